//! The secrets a sandboxed command must not see: every path inside the roots that the jail's
//! non-accessible globs match, found by walking the roots before each run (the masks are mounts,
//! so they cover what exists when the run starts). A folder whose every entry is a secret
//! (`secrets/**`) is masked whole; `.git` folders are not walked (nothing in them is named like a
//! secret, and they hold thousands of folders).

use crate::jail::Jail;
use std::path::{Path, PathBuf};

/// A name no real file has: when the globs match it inside a folder, they match every entry.
const PROBE: &str = ".coderd-mask-probe\u{1}";

/// What to mask, as absolute paths, and how answers name them (root-relative).
#[derive(Default, Debug)]
pub struct Secrets {
    pub files: Vec<PathBuf>,
    pub dirs: Vec<PathBuf>,
    pub shown: Vec<String>,
}

/// Walks every root of `jail` for paths its non-accessible globs match.
pub fn find(jail: &Jail) -> Secrets {
    let mut found = Secrets::default();
    for root in jail.roots() {
        walk(jail, &root.path, &mut found);
    }
    found
}

fn walk(jail: &Jail, root: &Path, found: &mut Secrets) {
    let mut pending = vec![PathBuf::new()];
    while let Some(rel) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(root.join(&rel)) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let name = entry.file_name();
            let child = rel.join(&name);
            let abs = root.join(&child);
            // A link named like a secret is masked where it points (that is what a reader gets).
            let is_dir = kind.is_dir() || (kind.is_symlink() && abs.is_dir());
            if jail.is_non_accessible(&child) {
                if kind.is_symlink() && !abs.exists() {
                    continue;
                }
                let shown = child.display().to_string();
                match is_dir {
                    true => {
                        found.dirs.push(abs);
                        found.shown.push(format!("{shown}/"));
                    }
                    false => {
                        found.files.push(abs);
                        found.shown.push(shown);
                    }
                }
            } else if kind.is_dir() {
                if jail.is_non_accessible(&child.join(PROBE)) {
                    found.dirs.push(abs);
                    found.shown.push(format!("{}/", child.display()));
                } else if name != ".git" {
                    pending.push(child);
                }
            }
        }
    }
}
