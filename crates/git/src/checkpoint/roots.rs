//! The workspace's roots inside one shadow repository.
//!
//! Every root is its own work tree, so each has its own index file (its stat cache) in the shared
//! git directory, and objects are shared. A snapshot is one commit for the whole workspace: with
//! one root its tree is the root's tree (what `git ls-tree` of a snapshot shows is the project);
//! with several, the top tree has one folder per root, named `<position>-<folder name>`
//! (`0-app`, `1-lib`), so one hash restores every root to the same moment.
//!
//! Paths are shown the way wire paths are written: relative to the primary root for its files,
//! absolute for the other roots' files.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// One root as the shadow repository sees it.
pub struct Tree {
    /// The root, the work tree of its git commands.
    pub work_tree: PathBuf,
    /// Its index file in the shadow repository.
    pub index: PathBuf,
    /// Its folder in a snapshot's top tree; `None` when it is the only root.
    pub entry: Option<String>,
    primary: bool,
}

impl Tree {
    /// The trees of `roots` (the primary first) in the shadow repository `git_dir`.
    pub fn all(git_dir: &Path, roots: &[PathBuf]) -> Vec<Tree> {
        let single = roots.len() == 1;
        roots
            .iter()
            .enumerate()
            .map(|(i, root)| Tree {
                work_tree: root.clone(),
                // The primary keeps git's default name, so a one-root store reads as usual.
                index: match i {
                    0 => git_dir.join("index"),
                    _ => git_dir.join(format!("index-{i}")),
                },
                entry: (!single).then(|| entry_name(i, root)),
                primary: i == 0,
            })
            .collect()
    }

    /// How a path of this root (relative to it) is shown.
    pub fn show(&self, rel: &[u8]) -> String {
        let rel = Path::new(OsStr::from_bytes(rel));
        match self.primary {
            true => rel.to_string_lossy().into_owned(),
            false => self.work_tree.join(rel).to_string_lossy().into_owned(),
        }
    }
}

/// `<position>-<folder name>`: unique (the position) and readable (the name).
fn entry_name(position: usize, root: &Path) -> String {
    let name = root
        .file_name()
        .map(OsStr::to_string_lossy)
        .unwrap_or_default();
    format!("{position}-{name}")
}

/// The tree a snapshot path belongs to, and the path relative to that root.
pub fn locate<'a>(trees: &'a [Tree], path: &'a [u8]) -> Option<(&'a Tree, &'a [u8])> {
    if let [only] = trees {
        return Some((only, path));
    }
    let slash = memchr::memchr(b'/', path)?;
    let (entry, rest) = (&path[..slash], &path[slash + 1..]);
    trees
        .iter()
        .find(|t| t.entry.as_deref().map(str::as_bytes) == Some(entry))
        .map(|t| (t, rest))
}

/// `locate` as the root's position among `trees` and the owned relative path.
pub fn position(trees: &[Tree], path: &[u8]) -> Option<(usize, Vec<u8>)> {
    let (tree, rel) = locate(trees, path)?;
    let at = trees.iter().position(|t| std::ptr::eq(t, tree))?;
    Some((at, rel.to_vec()))
}

/// The root holding the absolute path `abs` (the deepest, when roots nest), as its position
/// among `trees`, and the path relative to it.
pub fn holding(trees: &[Tree], abs: &Path) -> Option<(usize, Vec<u8>)> {
    trees
        .iter()
        .enumerate()
        .filter_map(|(at, t)| Some((at, abs.strip_prefix(&t.work_tree).ok()?)))
        .filter(|(_, rel)| !rel.as_os_str().is_empty())
        .min_by_key(|(_, rel)| rel.components().count())
        .map(|(at, rel)| (at, rel.as_os_str().as_bytes().to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_root_is_the_whole_tree_and_several_get_a_folder_each() {
        let git_dir = Path::new("/data/cp");
        let one = Tree::all(git_dir, &[PathBuf::from("/w/app")]);
        assert_eq!(one[0].entry, None);
        assert_eq!(locate(&one, b"src/a.rs").unwrap().1, b"src/a.rs");
        let two = Tree::all(git_dir, &[PathBuf::from("/w/app"), PathBuf::from("/x/lib")]);
        assert_eq!(two[1].entry.as_deref(), Some("1-lib"));
        assert_eq!(two[1].index, Path::new("/data/cp/index-1"));
        let (tree, rel) = locate(&two, b"1-lib/src/b.rs").unwrap();
        assert_eq!(
            (tree.show(rel).as_str(), rel),
            ("/x/lib/src/b.rs", &b"src/b.rs"[..])
        );
        let (tree, rel) = locate(&two, b"0-app/a.rs").unwrap();
        assert_eq!(tree.show(rel), "a.rs");
        assert!(locate(&two, b"2-gone/a.rs").is_none());
        assert!(locate(&two, b"toplevel").is_none());
    }
}
