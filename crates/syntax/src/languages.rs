//! The language registry: `grammars/languages.toml`, compiled into the binary and parsed once.
//! Everything language-specific that is data (extensions, shebangs, comment tokens, root markers)
//! lives there, not in code; the servers of a language are data/servers.toml's.

use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::LazyLock;

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Language {
    pub name: String,
    #[serde(default)]
    pub extensions: Vec<String>,
    #[serde(default)]
    pub file_names: Vec<String>,
    #[serde(default)]
    pub shebangs: Vec<String>,
    pub grammar: String,
    #[serde(default)]
    pub line_comment: Option<String>,
    #[serde(default)]
    pub block_comment: Option<(String, String)>,
    #[serde(default)]
    pub root_markers: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RegistryFile {
    language: Vec<Language>,
}

static REGISTRY: LazyLock<Vec<Language>> = LazyLock::new(|| {
    let file: RegistryFile = toml::from_str(include_str!("../../../grammars/languages.toml"))
        .expect("grammars/languages.toml is checked by the registry_parses test");
    file.language
});

/// Every language, in registry order.
pub fn all() -> &'static [Language] {
    &REGISTRY
}

pub fn by_name(name: &str) -> Option<&'static Language> {
    REGISTRY.iter().find(|l| l.name == name)
}

/// The language of a file: by exact file name, then extension, then the interpreter named on a
/// `#!` first line (`first_line` is the file's first bytes, when the caller has them).
pub fn for_path(path: &Path, first_line: Option<&[u8]>) -> Option<&'static Language> {
    let file_name = path.file_name()?.to_str()?;
    if let Some(l) = REGISTRY
        .iter()
        .find(|l| l.file_names.iter().any(|n| n == file_name))
    {
        return Some(l);
    }
    if let Some(ext) = path.extension().and_then(|e| e.to_str()) {
        if let Some(l) = REGISTRY
            .iter()
            .find(|l| l.extensions.iter().any(|e| e == ext))
        {
            return Some(l);
        }
    }
    let interpreter = shebang_interpreter(first_line?)?;
    REGISTRY
        .iter()
        .find(|l| l.shebangs.iter().any(|s| s == interpreter))
}

/// `#!/usr/bin/env -S python3 -u` → `python3`; `#!/bin/bash` → `bash`.
fn shebang_interpreter(first_line: &[u8]) -> Option<&str> {
    let line = first_line.strip_prefix(b"#!")?;
    let line = line.split(|&b| b == b'\n').next()?;
    let line = std::str::from_utf8(line).ok()?;
    let mut words = line.split_whitespace();
    let mut program = words.next()?.rsplit('/').next()?;
    if program == "env" {
        program = words.find(|w| !w.starts_with('-'))?;
    }
    Some(program)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_parses_and_names_are_unique() {
        let mut names: Vec<&str> = all().iter().map(|l| l.name.as_str()).collect();
        assert!(names.len() >= 18, "{names:?}");
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all().len());
    }

    #[test]
    fn no_extension_or_file_name_belongs_to_two_languages() {
        let mut seen = std::collections::HashMap::new();
        for l in all() {
            for key in l.extensions.iter().chain(&l.file_names) {
                if let Some(other) = seen.insert(key.clone(), l.name.clone()) {
                    panic!("{key} is both {other} and {}", l.name);
                }
            }
        }
    }

    #[test]
    fn files_are_recognised_by_name_extension_and_shebang() {
        let name =
            |p: &str, first: Option<&[u8]>| for_path(Path::new(p), first).map(|l| l.name.as_str());
        assert_eq!(name("src/main.go", None), Some("go"));
        assert_eq!(name("a/b.tsx", None), Some("tsx"));
        assert_eq!(name("Gemfile", None), Some("ruby"));
        assert_eq!(name("x.H", None), None, "extensions are case-sensitive");
        assert_eq!(
            name("bin/tool", Some(b"#!/usr/bin/env -S python3 -u\nprint(1)")),
            Some("python")
        );
        assert_eq!(name("bin/run", Some(b"#!/bin/bash\n")), Some("bash"));
        assert_eq!(name("bin/run", Some(b"no shebang")), None);
        assert_eq!(name("README", None), None);
    }
}
