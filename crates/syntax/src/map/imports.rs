//! What a file says it imports, in its language's own words, read once when the file is tagged:
//! Rust's `use` trees, `mod x;` and paths written in the code (`crate::a::b`, `super::x`,
//! `other_crate::c`); Go's import paths; Python's `import a.b` and `from .x import y`; a
//! `Cargo.toml`'s package name and dependencies. Nothing here resolves a path to a file: that is
//! `modules`, over the whole tree. Not a parse: Rust is read through the skeleton's lexer (its
//! comments and literals skipped as the body finder skips them), the others line by line; a file
//! says at most `MAX_IMPORTS` things.

use crate::lexer::{lex, Dialect, Token as Lexed};

/// What one file may say at most (a generated file of paths says no more than this).
const MAX_IMPORTS: usize = 512;

/// The imports of one file, deduplicated, in first-seen order. Rust paths are `::`-joined
/// (`crate::a::b::C`, `self::x` for `mod x;`); Go's are the import path; Python's are dotted,
/// relative ones with their leading dots (`..x.y`, and `.x.y` for `from .x import y`); a
/// `Cargo.toml` says `package:name` and `dep:name` (`dep:alias=package` for a renamed dependency).
pub fn imports(language: &str, rel: &str, source: &[u8]) -> Vec<String> {
    imports_lexed(language, rel, source, None)
}

/// `imports`, with a Rust file's tokens when the tagger has lexed it already (`tags::tag_lexed`):
/// one pass of the lexer over the file serves both.
pub fn imports_lexed(
    language: &str,
    rel: &str,
    source: &[u8],
    tokens: Option<&[Lexed]>,
) -> Vec<String> {
    let text = String::from_utf8_lossy(source);
    let mut out = Vec::new();
    match language {
        // The tokens' offsets are the source's: only when the text is the source unchanged.
        "rust" => match (tokens, &text) {
            (Some(tokens), std::borrow::Cow::Borrowed(_)) => rust(&text, tokens, &mut out),
            _ => rust(&text, &lex(Dialect::Rust, text.as_bytes()), &mut out),
        },
        "go" => go(&text, &mut out),
        "python" => python(&text, &mut out),
        "toml" if rel == "Cargo.toml" || rel.ends_with("/Cargo.toml") => cargo(&text, &mut out),
        _ => {}
    }
    // First-seen order kept; a Rust file writes the same path many times, so no copy per path.
    let first_seen: Vec<bool> = {
        let mut seen = foldhash::HashSet::default();
        out.iter().map(|i| seen.insert(i.as_str())).collect()
    };
    let mut first = first_seen.into_iter();
    out.retain(|_| first.next().unwrap_or(false));
    out.truncate(MAX_IMPORTS);
    out
}

/// Rust tokens as this module needs them: identifiers, `::` and single punctuation.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Token<'s> {
    Ident(&'s str),
    Path,
    Punct(u8),
}

/// Rust's tokens from the skeleton's lexer (comments and literals skipped), `::` joined into one.
fn rust_tokens<'s>(text: &'s str, lexed: &[Lexed]) -> Vec<Token<'s>> {
    let mut out = Vec::with_capacity(lexed.len());
    for token in lexed {
        // Every range starts and ends at an ASCII byte or the text's ends: char boundaries.
        let token = match token {
            Lexed::Ident(range) | Lexed::Lifetime(range) => Token::Ident(&text[range.clone()]),
            // The second of two adjacent colons.
            Lexed::Punct(b':', at)
                if out.last() == Some(&Token::Punct(b':')) && text.as_bytes()[at - 1] == b':' =>
            {
                out.pop();
                Token::Path
            }
            Lexed::Punct(b, _) => Token::Punct(*b),
        };
        out.push(token);
    }
    out
}

/// `use` trees expanded to paths, `mod x;` as `self::x`, `extern crate x;` as `x`, and every path
/// of two or more segments whose first is a module's name (lower case) written in the code.
fn rust(text: &str, lexed: &[Lexed], out: &mut Vec<String>) {
    let tokens = rust_tokens(text, lexed);
    let mut i = 0;
    while i < tokens.len() {
        match tokens[i] {
            Token::Ident("use") if i == 0 || tokens[i - 1] != Token::Path => {
                i = use_tree(&tokens, i + 1, 0, &mut Vec::new(), out);
            }
            Token::Ident("mod") => {
                if let (Some(Token::Ident(name)), Some(Token::Punct(b';'))) =
                    (tokens.get(i + 1), tokens.get(i + 2))
                {
                    out.push(format!("self::{name}"));
                }
                i += 1;
            }
            Token::Ident(first) if starts_module_path(first) => {
                let mut path = vec![first];
                let mut j = i + 1;
                while let (Some(Token::Path), Some(Token::Ident(next))) =
                    (tokens.get(j), tokens.get(j + 1))
                {
                    path.push(next);
                    j += 2;
                }
                let after_path = i > 0 && tokens[i - 1] == Token::Path;
                if path.len() >= 2 && !after_path {
                    out.push(path.join("::"));
                }
                i = j;
            }
            _ => i += 1,
        }
    }
}

/// A first path segment that may name a module: `crate`, `super`, `self` or a lower-case name.
fn starts_module_path(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_') && name != "_"
}

/// How deep `use` trees' braces are read: past it a tree's paths are left out (the reading
/// recurses, and a hostile file nests a hundred thousand deep; real trees nest two or three).
const MAX_USE_NESTING: usize = 32;

/// One `use` tree from `at` (after `use` or a `{`/`,`), `nesting` braces deep: its paths, each
/// prefixed by `prefix`, into `out`. Returns the index after the tree (at its `;`, `,` or `}`).
fn use_tree<'s>(
    tokens: &[Token<'s>],
    mut at: usize,
    nesting: usize,
    prefix: &mut Vec<&'s str>,
    out: &mut Vec<String>,
) -> usize {
    let depth = prefix.len();
    if tokens.get(at) == Some(&Token::Path) {
        at += 1; // `use ::std::…`
    }
    loop {
        match tokens.get(at) {
            Some(Token::Ident(name)) => {
                prefix.push(name);
                at += 1;
                match tokens.get(at) {
                    Some(Token::Path) => at += 1,
                    Some(Token::Ident("as")) => {
                        out.push(prefix.join("::"));
                        at += 2;
                        break;
                    }
                    _ => {
                        out.push(prefix.join("::"));
                        break;
                    }
                }
            }
            Some(Token::Punct(b'*')) => {
                if !prefix.is_empty() {
                    out.push(prefix.join("::"));
                }
                at += 1;
                break;
            }
            Some(Token::Punct(b'{')) if nesting < MAX_USE_NESTING => {
                at += 1;
                while at < tokens.len() {
                    at = use_tree(tokens, at, nesting + 1, prefix, out);
                    match tokens.get(at) {
                        Some(Token::Punct(b',')) => at += 1,
                        Some(Token::Punct(b'}')) => {
                            at += 1;
                            break;
                        }
                        _ => break,
                    }
                }
                break;
            }
            _ => break,
        }
    }
    prefix.truncate(depth);
    at
}

/// The quoted paths of `import "x"`, `import alias "x"` and `import ( … )` blocks.
fn go(text: &str, out: &mut Vec<String>) {
    let mut in_block = false;
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or("").trim();
        if in_block {
            if line.starts_with(')') {
                in_block = false;
            } else if let Some(path) = quoted_path(line) {
                out.push(path.to_owned());
            }
        } else if let Some(rest) = line.strip_prefix("import") {
            let rest = rest.trim_start();
            if let Some(block) = rest.strip_prefix('(') {
                in_block = !block.contains(')');
                if let Some(path) = quoted_path(block) {
                    out.push(path.to_owned());
                }
            } else if let Some(path) = quoted_path(rest) {
                out.push(path.to_owned());
            }
        } else if ["func ", "type ", "var ", "const "]
            .iter()
            .any(|k| line.starts_with(k))
        {
            break; // imports come before every declaration
        }
    }
}

fn quoted_path(line: &str) -> Option<&str> {
    let start = line.find('"')? + 1;
    let len = line[start..].find('"')?;
    Some(&line[start..start + len]).filter(|p| !p.is_empty())
}

/// `import a.b, c as d` and `from X import y, z` (each `X.y`, and `X` itself), at any indentation.
fn python(text: &str, out: &mut Vec<String>) {
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let line = line.split('#').next().unwrap_or("").trim();
        if let Some(rest) = line.strip_prefix("import ") {
            for name in rest.split(',') {
                let name = name.split_whitespace().next().unwrap_or("");
                if is_dotted(name) {
                    out.push(name.to_owned());
                }
            }
        } else if let Some(rest) = line.strip_prefix("from ") {
            let Some((module, names)) = rest.split_once(" import ") else {
                continue;
            };
            let module = module.trim();
            if !is_dotted(module) {
                continue;
            }
            let mut names = names.trim().to_owned();
            // `from x import (\n a,\n b,\n)`
            if names.starts_with('(') && !names.contains(')') {
                for more in lines.by_ref() {
                    names.push_str(more.split('#').next().unwrap_or(""));
                    if more.contains(')') {
                        break;
                    }
                }
            }
            out.push(module.to_owned());
            let names = names.trim_matches(|c| c == '(' || c == ')');
            for name in names.split(',') {
                let name = name.split_whitespace().next().unwrap_or("");
                if !name.is_empty() && name != "*" && is_dotted(name) {
                    let sep = if module.ends_with('.') { "" } else { "." };
                    out.push(format!("{module}{sep}{name}"));
                }
            }
        }
    }
}

fn is_dotted(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

/// A `Cargo.toml`'s `[package] name` and the names of its `[dependencies]` (and build and
/// target-specific ones; dev-dependencies serve only tests, which the map leaves out).
fn cargo(text: &str, out: &mut Vec<String>) {
    let mut table = String::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if let Some(header) = line.strip_prefix('[') {
            table = header.trim_end_matches(']').trim().to_owned();
            // `[dependencies.foo]`
            if let Some(dep) = dependency_table(&table).and_then(|rest| rest.strip_prefix('.')) {
                out.push(format!("dep:{}", dep.trim_matches('"')));
            }
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let key = key.trim();
        if table == "package" && key == "name" {
            let name = value.trim().trim_matches('"');
            out.push(format!("package:{name}"));
        } else if dependency_table(&table) == Some("") {
            // `foo = "1"`, `foo.workspace = true`, `foo = { package = "bar", … }`
            let name = key.split('.').next().unwrap_or(key).trim_matches('"');
            let renamed = value
                .split_once("package")
                .and_then(|(_, rest)| rest.trim_start().strip_prefix('='))
                .and_then(|rest| rest.split('"').nth(1));
            match renamed {
                Some(package) => out.push(format!("dep:{name}={package}")),
                None => out.push(format!("dep:{name}")),
            }
        }
    }
}

/// What follows a dependency table's name in a header (`""` for the table itself), `None` for
/// any other table.
fn dependency_table(table: &str) -> Option<&str> {
    let table = match table.strip_prefix("target.") {
        // `target.'cfg(unix)'.dependencies`
        Some(rest) => rest.rsplit_once("dependencies").map(|(_, after)| after)?,
        None => ["dependencies", "build-dependencies"]
            .iter()
            .find_map(|t| table.strip_prefix(t))?,
    };
    Some(table)
}

#[cfg(test)]
mod tests {
    use super::imports;

    #[test]
    fn each_language_says_what_it_imports() {
        let cases: &[(&str, &str, &str, &[&str])] = &[
            (
                "rust",
                "src/lib.rs",
                "use crate::a::{b::C, d as e, f::*};\nmod g;\n// use crate::no;\nfn x() { super::h::i(); let s = \"crate::no::way\"; other_crate::c::D::new(); }",
                &["crate::a::b::C", "crate::a::d", "crate::a::f", "self::g", "super::h::i", "other_crate::c::D::new"],
            ),
            (
                "rust",
                "src/a.rs",
                "pub use self::x::Y; fn f<'a>(c: char) { let q = '\"'; std::mem::swap(); }",
                &["self::x::Y", "std::mem::swap"],
            ),
            (
                "go",
                "a/b.go",
                "package b\n\nimport \"fmt\"\nimport (\n\tx \"example.com/m/pkg/x\" // aliased\n\t\"example.com/m/y\"\n)\nfunc f() {}\nimport \"no\"\n",
                &["fmt", "example.com/m/pkg/x", "example.com/m/y"],
            ),
            (
                "python",
                "pkg/a.py",
                "import os.path, json as j\nfrom .x import y\nfrom .. import z\nfrom pkg.m import (\n  A,\n  b,\n)\n",
                &["os.path", "json", ".x", ".x.y", "..", "..z", "pkg.m", "pkg.m.A", "pkg.m.b"],
            ),
            (
                "toml",
                "crates/a/Cargo.toml",
                "[package]\nname = \"a-b\"\n[dependencies]\nc.workspace = true\nd = { path = \"../d\", package = \"d-real\" }\n[dev-dependencies]\nt = \"1\"\n[dependencies.e]\npath = \"x\"\n",
                &["package:a-b", "dep:c", "dep:d=d-real", "dep:e"],
            ),
            ("toml", "config.toml", "[dependencies]\nx = 1\n", &[]),
        ];
        for (language, rel, source, want) in cases {
            assert_eq!(imports(language, rel, source.as_bytes()), *want, "{rel}");
        }
    }
}
