//! Also what C's parser cannot see: bare macro lines (`mask_macro_lines`).
//!
//! Which language a `.h` header is in: C by its extension, C++ when its content uses C++ or its
//! project is a C++ one. Parsed as C, a C++ header gives hundreds of parse errors and a third of
//! its items (classes, namespaces and templates read as garbage); parsed as C++, a C header loses
//! nothing (C++'s grammar reads C's declarations), so any sign of C++ tips the choice.
//!
//! Content: a C++-only construct outside comments, strings and `#if __cplusplus` blocks (where C
//! headers keep their `extern "C"` guards and C++ wrappers). Project: C++ sources in the header's
//! folder, else the nearest folder up to the workspace root with a build file: a
//! `compile_commands.json` compiling C++, or a `CMakeLists.txt` naming `CXX`.

use super::languages::{self, Language};
use coderd_core::jail::{Jail, Resolved};
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex};

/// C++ source extensions whose presence beside a header makes its folder C++.
const CPP_SOURCES: &[&str] = &["cc", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "ipp", "tpp"];

/// How much of a build file is read: enough for the compiler of the first entries.
const BUILD_FILE_BYTES: u64 = 256 * 1024;

/// The language of a file from its path and content, with a `.h` header's dialect decided by
/// its content and project (`projects` remembers each folder's answer for one walk).
pub fn language_of(
    jail: &Jail,
    projects: &Projects,
    path: &Path,
    source: &[u8],
) -> Option<&'static Language> {
    let language = languages::for_path(path, Some(&source[..source.len().min(256)]))?;
    let header = language.name == "c" && path.extension().is_some_and(|e| e == "h");
    if header && (cpp_content(source) || projects.is_cpp(jail, path)) {
        return languages::by_name("cpp");
    }
    Some(language)
}

/// Each folder's answer (is its project C++?), remembered for the folders of one walk.
#[derive(Default)]
pub struct Projects(Mutex<HashMap<PathBuf, bool>>);

impl Projects {
    /// Whether the header at `path` belongs to a C++ project.
    pub fn is_cpp(&self, jail: &Jail, path: &Path) -> bool {
        let Some(folder) = path.parent() else {
            return false;
        };
        if let Some(known) = self.lock().get(folder) {
            return *known;
        }
        let answer = cpp_project(jail, folder);
        self.lock().insert(folder.to_path_buf(), answer);
        answer
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, bool>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// C++ sources in `folder`, else the verdict of the nearest build file above it.
fn cpp_project(jail: &Jail, folder: &Path) -> bool {
    let Some(resolved) = jail.locate(folder) else {
        return false;
    };
    if names_in(jail, &resolved).iter().any(|n| is_cpp_source(n)) {
        return true;
    }
    let root = jail.roots()[resolved.root].path.clone();
    for dir in folder.ancestors().take_while(|d| d.starts_with(&root)) {
        if let Some(text) = read_prefix(jail, &dir.join("compile_commands.json")) {
            return compiles_cpp(&text);
        }
        if let Some(text) = read_prefix(jail, &dir.join("CMakeLists.txt")) {
            return names_cxx(&text);
        }
    }
    false
}

fn is_cpp_source(name: &str) -> bool {
    name.rsplit_once('.')
        .is_some_and(|(stem, ext)| !stem.is_empty() && CPP_SOURCES.contains(&ext))
}

/// A compilation database compiling C++: a C++ compiler or a C++ source in its entries.
fn compiles_cpp(text: &str) -> bool {
    ["++ ", "++\"", "g++", "clang++", ".cpp\"", ".cc\"", ".cxx\""]
        .iter()
        .any(|sign| text.contains(sign))
}

/// A `CMakeLists.txt` naming the `CXX` language (`project(x LANGUAGES CXX)`, `enable_language`).
fn names_cxx(text: &str) -> bool {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or(""))
        .any(|l| {
            l.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                .any(|w| w == "CXX")
        })
}

/// The names in a folder, listed through the jail.
fn names_in(jail: &Jail, folder: &Resolved) -> Vec<String> {
    let Ok(fd) = jail.open_dir(folder) else {
        return Vec::new();
    };
    let Ok(dir) = rustix::fs::Dir::read_from(&fd) else {
        return Vec::new();
    };
    dir.flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

fn read_prefix(jail: &Jail, path: &Path) -> Option<String> {
    let resolved = jail.locate(path)?;
    if jail.is_non_accessible(&resolved.rel) {
        return None;
    }
    let (file, _) = jail.open_file(&resolved).ok()?;
    let mut bytes = Vec::new();
    file.take(BUILD_FILE_BYTES).read_to_end(&mut bytes).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// Whether a header's code (outside comments, strings, preprocessor lines and `__cplusplus`
/// blocks) uses a construct only C++ has.
pub fn cpp_content(source: &[u8]) -> bool {
    let code = plain_code(source);
    let words: Vec<&str> = code
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_' && c != ':')
        .filter(|w| !w.is_empty())
        .collect();
    let strong = [
        "namespace",
        "template",
        "typename",
        "virtual",
        "nullptr",
        "constexpr",
        "operator",
        "public:",
        "private:",
        "protected:",
    ];
    words.iter().enumerate().any(|(i, w)| {
        strong.contains(w)
            || w.contains("::")
            || (*w == "class" && words.get(i + 1).is_some_and(|n| is_identifier(n)))
    })
}

fn is_identifier(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') && !word.contains(':')
}

/// The source with comments, string and character literals, preprocessor lines, and the lines
/// of `#if`s that test `__cplusplus` blanked out.
fn plain_code(source: &[u8]) -> String {
    let text = String::from_utf8_lossy(source);
    let without_comments = strip_comments_and_literals(&text);
    let mut out = String::with_capacity(without_comments.len());
    // The depth of `#if` nesting, and the depth at which a `__cplusplus` block began.
    let (mut depth, mut cplusplus_at): (usize, Option<usize>) = (0, None);
    for line in without_comments.lines() {
        let trimmed = line.trim_start();
        if let Some(directive) = trimmed.strip_prefix('#') {
            let directive = directive.trim_start();
            if directive.starts_with("if") {
                depth += 1;
                if cplusplus_at.is_none() && directive.contains("__cplusplus") {
                    cplusplus_at = Some(depth);
                }
            } else if directive.starts_with("endif") {
                if cplusplus_at == Some(depth) {
                    cplusplus_at = None;
                }
                depth = depth.saturating_sub(1);
            }
            continue;
        }
        if cplusplus_at.is_none() {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// `//` and `/* */` comments, `"…"` and `'…'` literals replaced by a space (newlines kept).
fn strip_comments_and_literals(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let rest = &bytes[i..];
        if rest.starts_with(b"//") {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if rest.starts_with(b"/*") {
            i += 2;
            while i < bytes.len() && !bytes[i..].starts_with(b"*/") {
                if bytes[i] == b'\n' {
                    out.push('\n');
                }
                i += 1;
            }
            i += 2;
            out.push(' ');
        } else if bytes[i] == b'"' || bytes[i] == b'\'' {
            let quote = bytes[i];
            i += 1;
            while i < bytes.len() && bytes[i] != quote && bytes[i] != b'\n' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(' ');
        } else {
            let len = text[i..].chars().next().map_or(1, char::len_utf8);
            out.push_str(&text[i..i + len]);
            i += len;
        }
    }
    out
}

/// The source with each bare macro line blanked (same length, so every position holds): a line
/// that is one identifier in capitals (`SUBTREE_BITS`, `TS_PACKED`) after a line ending a
/// declaration (`;`, `{`, `}`), a directive or a comment. Such a macro expands to declarations the
/// parser cannot see; left in, it reads as a type and swallows the next line, or as the last
/// member of a struct that never closes. `None` when there is none.
pub fn mask_macro_lines(source: &[u8]) -> Option<Vec<u8>> {
    let masked = mask_bare_lines(source);
    mask_export_macros(masked.as_deref().unwrap_or(source)).or(masked)
}

/// Export and annotation macros before a declaration (`GTEST_API_ FilePath f();`,
/// `class GTEST_API_ UnitTestImpl {`, `TS_EXPORT void f(void);`): a word in capitals that ends in
/// `_` or names `API` or `EXPORT`, followed by a word. The parser takes it for the type or the
/// class name and misreads the declaration.
fn mask_export_macros(source: &[u8]) -> Option<Vec<u8>> {
    static MACRO: LazyLock<regex::bytes::Regex> = LazyLock::new(|| {
        regex::bytes::Regex::new(
            r"(?m)(?:^[ \t]*|\b(?:class|struct)[ \t]+)(\b[A-Z][A-Z0-9]*_(?:[A-Z0-9]+_)*|\b[A-Z][A-Z0-9_]*(?:API|EXPORT)[A-Z0-9_]*\b)[ \t]+[A-Za-z_]",
        )
        .expect("a valid regex")
    });
    let mut masked: Option<Vec<u8>> = None;
    for captures in MACRO.captures_iter(source) {
        let word = captures.get(1).expect("group 1 always takes part");
        let out = masked.get_or_insert_with(|| source.to_vec());
        out[word.range()].fill(b' ');
    }
    masked
}

fn mask_bare_lines(source: &[u8]) -> Option<Vec<u8>> {
    let mut masked: Option<Vec<u8>> = None;
    let mut after_declaration = true;
    let mut start = 0;
    for line in source.split_inclusive(|&b| b == b'\n') {
        let code = line.trim_ascii();
        let bare_macro = code.len() >= 2
            && code[0].is_ascii_uppercase()
            && code
                .iter()
                .all(|&b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
        if bare_macro && after_declaration {
            let out = masked.get_or_insert_with(|| source.to_vec());
            for b in &mut out[start..start + line.len()] {
                if !b.is_ascii_whitespace() {
                    *b = b' ';
                }
            }
        } else if !code.is_empty() {
            after_declaration = code.ends_with(b";")
                || code.ends_with(b"{")
                || code.ends_with(b"}")
                || code.starts_with(b"#")
                || code.starts_with(b"//")
                || code.ends_with(b"*/");
        }
        start += line.len();
    }
    masked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpp_constructs_make_a_header_cpp() {
        let cpp = [
            "namespace fuzzer {\nclass Corpus;\n}\n",
            "class InputCorpus {\n public:\n  int n;\n};\n",
            "template <typename T> T max(T a, T b);\n",
            "struct A { virtual ~A(); };\n",
            "void f(std::string s);\n",
            "int* A::b();\n",
        ];
        for text in cpp {
            assert!(cpp_content(text.as_bytes()), "{text}");
        }
    }

    #[test]
    fn c_headers_stay_c_with_their_cplusplus_guards_and_comments() {
        let c = [
            "#ifdef __cplusplus\nextern \"C\" {\n#endif\nint f(void);\n#ifdef __cplusplus\n}\n#endif\n",
            "#if defined(__cplusplus)\nnamespace x { class Y {}; }\n#endif\nstruct s { int class_id; };\n",
            "/* a class of its own, namespace std:: */\n// template <T>\nint g(const char *s);\n",
            "const char *m = \"std::string\";\nint class_; \n",
            "#define CONCAT(a, b) a::b\n",
        ];
        for text in c {
            assert!(!cpp_content(text.as_bytes()), "{text}");
        }
    }

    #[test]
    fn bare_macro_lines_after_declarations_are_masked() {
        let text =
            "struct S {\n  uint8_t symbol;\n  SUBTREE_SIZE\n};\nenum E {\n  A,\n  LAST\n};\n";
        let masked = mask_macro_lines(text.as_bytes()).unwrap();
        let masked = String::from_utf8(masked).unwrap();
        assert_eq!(masked.len(), text.len());
        assert!(
            !masked.contains("SUBTREE_SIZE") && masked.contains("LAST"),
            "{masked}"
        );
        assert!(mask_macro_lines(b"int x;\nint y;\n").is_none());
        let text = "class GTEST_API_ Impl {\nGTEST_API_ extern bool flag;\nDWORD count;\nTS_EXPORT void f(void);\n";
        let masked = String::from_utf8(mask_macro_lines(text.as_bytes()).unwrap()).unwrap();
        assert_eq!(
            masked,
            "class            Impl {\n           extern bool flag;\nDWORD count;\n          void f(void);\n"
        );
    }

    #[test]
    fn build_files_name_their_language() {
        assert!(names_cxx("project(fuzzer LANGUAGES C CXX)\n"));
        assert!(names_cxx("enable_language(CXX)\n"));
        assert!(!names_cxx("project(lib C)\n# no CXX here\n"));
        assert!(compiles_cpp(
            r#"[{"command": "/usr/bin/c++ -c a.cc", "file": "a.cc"}]"#
        ));
        assert!(!compiles_cpp(
            r#"[{"command": "cc -c a.c", "file": "a.c"}]"#
        ));
        assert!(is_cpp_source("FuzzerLoop.cpp") && !is_cpp_source("a.c") && !is_cpp_source(".cc"));
    }
}
