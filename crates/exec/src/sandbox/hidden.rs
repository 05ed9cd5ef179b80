//! The places outside the roots a sandboxed program sees empty (`exec.sandbox.hidden`):
//! credentials in the home folder, which the jail's globs (inside the roots) never cover. Each
//! entry names a file or folder (`~/`, `$VAR` expanded as `writable` is); its last component may
//! be a glob (`~/.ssh/*`); an entry starting with `!` keeps what it matches visible
//! (`!~/.ssh/*.pub`). What exists when a run starts is masked, folders whole.

use globset::{Glob, GlobMatcher};
use std::path::{Path, PathBuf};

/// What to mask: files and folders, absolute.
#[derive(Debug, Default, PartialEq)]
pub struct Hidden {
    pub files: Vec<PathBuf>,
    pub dirs: Vec<PathBuf>,
}

/// The places `entries` name that exist now.
pub fn find(entries: &[String]) -> Hidden {
    let (kept, hidden): (Vec<&String>, Vec<&String>) =
        entries.iter().partition(|e| e.starts_with('!'));
    let kept: Vec<GlobMatcher> = kept
        .iter()
        .filter_map(|e| super::expand(&e[1..]))
        .filter_map(|path| Glob::new(&path.to_string_lossy()).ok())
        .map(|glob| glob.compile_matcher())
        .collect();
    let mut found = Hidden::default();
    for path in hidden.iter().filter_map(|e| super::expand(e)) {
        for place in matches(&path) {
            if kept.iter().any(|k| k.is_match(&place)) {
                continue;
            }
            match std::fs::metadata(&place) {
                Ok(meta) if meta.is_dir() => found.dirs.push(place),
                Ok(_) => found.files.push(place),
                Err(_) => {}
            }
        }
    }
    found
}

/// `path` itself, or the entries of its folder its last component matches when that is a glob.
fn matches(path: &Path) -> Vec<PathBuf> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    if !name.contains(['*', '?', '[']) {
        return vec![path.to_path_buf()];
    }
    let (Some(folder), Ok(glob)) = (path.parent(), Glob::new(&name)) else {
        return Vec::new();
    };
    let glob = glob.compile_matcher();
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .filter(|e| glob.is_match(e.file_name()))
        .map(|e| e.path())
        .collect();
    found.sort();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_in_the_last_component_and_exceptions() {
        let home = std::env::temp_dir().join(format!("coderd-hidden-{}", std::process::id()));
        let ssh = home.join(".ssh");
        std::fs::create_dir_all(home.join(".aws")).unwrap();
        std::fs::create_dir_all(&ssh).unwrap();
        for name in ["id_rsa", "id_rsa.pub", "known_hosts", "config"] {
            std::fs::write(ssh.join(name), "x").unwrap();
        }
        let root = home.display();
        let entries: Vec<String> = [
            format!("{root}/.ssh/*"),
            format!("!{root}/.ssh/*.pub"),
            format!("!{root}/.ssh/known_hosts"),
            format!("{root}/.aws"),
            format!("{root}/.netrc"),
        ]
        .into();
        let found = find(&entries);
        std::fs::remove_dir_all(&home).unwrap();
        assert_eq!(found.files, vec![ssh.join("config"), ssh.join("id_rsa")]);
        assert_eq!(found.dirs, vec![home.join(".aws")]);
    }
}
