//! Over-broad roots: `/`, or a folder that holds another user's home folder (`/home`, `/var`
//! holding `/var/www`…). Behind such a root every face — including the iii engine, which does not
//! authenticate its callers — would let an agent stat and list the whole machine or other users'
//! files. Refused at start unless the config says `allow_broad_roots: true`. A root that *is* one
//! user's home (or lies inside one) is fine: that is the common single-user workspace.

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// The home folders of `/etc/passwd` (the sixth field), canonical; those that do not exist are left
/// out (they cannot be under a root).
pub fn homes_of(passwd: &str) -> Vec<PathBuf> {
    passwd
        .lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| line.split(':').nth(5))
        .filter(|home| home.starts_with('/'))
        .filter_map(|home| std::fs::canonicalize(home).ok())
        .collect()
}

/// Why `root` (canonical) is too broad, given the machine's home folders; `None` when it is not.
pub fn why_broad(root: &Path, homes: &[PathBuf]) -> Option<String> {
    if root.parent().is_none() {
        return Some("it is the file system's root".to_string());
    }
    homes
        .iter()
        .find(|home| home.as_path() != root && home.starts_with(root))
        .map(|home| format!("it holds the home folder {}", home.display()))
}

/// Refuses the first over-broad root (C214), naming it, why, and the way out.
pub fn check(roots: &[PathBuf]) -> Result<()> {
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    let homes = homes_of(&passwd);
    for root in roots {
        if let Some(why) = why_broad(root, &homes) {
            return Err(Error::refused(format!(
                "root {} is too broad: {why}; every caller of the daemon (the iii engine's \
                 included, which are not authenticated) could read and list it",
                root.display()
            ))
            .with_recovery(
                "pass the project's folder as --root; or, if this is meant, set \
                 `allow_broad_roots: true` in the config",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slash_and_folders_holding_a_home_are_broad_a_home_itself_is_not() {
        let homes = [PathBuf::from("/home/ann"), PathBuf::from("/var/www")];
        let cases = [
            ("/", true),
            ("/home", true),
            ("/var", true),
            ("/home/ann", false),
            ("/home/ann/src/app", false),
            ("/var/www", false),
            ("/srv/project", false),
            ("/tmp", false),
        ];
        for (root, broad) in cases {
            assert_eq!(
                why_broad(Path::new(root), &homes).is_some(),
                broad,
                "{root}"
            );
        }
    }

    #[test]
    fn homes_are_read_from_the_sixth_field_and_must_exist() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("ann");
        std::fs::create_dir(&home).unwrap();
        let passwd = format!(
            "# comment\nann:x:1000:1000:Ann:{}:/bin/sh\nghost:x:1:1::/nonexistent/ghost:/bin/false\nodd\n",
            home.display()
        );
        assert_eq!(homes_of(&passwd), [home.canonicalize().unwrap()]);
    }
}
