//! `tree` (a nested, bounded view of a folder) and `list-folder` (one folder, paginated).

use coderd_core::config::Limits;
use coderd_core::error::{Error, Result};
use coderd_core::globs::{self, Globs};
use coderd_core::jail::{Jail, Resolved};
use globset::GlobSet;
use schemars::JsonSchema;
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Serialize, Serializer};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use wire::answers::listing::{FolderEntry, FolderPage};

pub const TREE_DEFAULT_MAX_ENTRIES: usize = 2000;
const TREE_MAX_DEPTH: usize = 20;

#[derive(Deserialize, JsonSchema, Debug)]
#[serde(deny_unknown_fields)]
pub struct TreeParams {
    /// The folder to show (default: the primary root).
    dir: Option<String>,
    /// Keep only files matching these globs, and the folders that lead to them.
    glob: Option<Globs>,
    /// Entries shown in all before the tree is cut (default 2000).
    max_entries: Option<usize>,
    /// Levels shown below `dir` (1 to 20; default: the config's `tree_default_depth`).
    depth: Option<usize>,
    /// Leave out paths matching these globs.
    exclude: Option<Globs>,
    /// Show noise folders (`node_modules`, `target`, …) as childless stubs (default true).
    use_default_excludes: Option<bool>,
    /// Honour `.gitignore`, `.ignore` and `.git/info/exclude` (default true).
    gitignore: Option<bool>,
    /// Include hidden files and folders (default true).
    hidden: Option<bool>,
    /// Children shown per folder before it is cut (default: the config's `tree_per_folder_limit`),
    /// as iii's `coder::tree` takes it.
    per_folder_limit: Option<usize>,
}

#[derive(Default)]
pub struct Node {
    name: String,
    kind: &'static str,
    size: Option<u64>,
    children: Vec<usize>,
    non_accessible: bool,
    reason: Option<&'static str>,
    omitted: usize,
}

/// The `tree` result, serialized straight from the walk's nodes into the response.
#[derive(Serialize)]
pub struct TreeResult {
    path: PathBuf,
    depth: usize,
    entries: usize,
    truncated: bool,
    tree: Nodes,
}

/// The walk's arena; serializes as the nested tree rooted at its first node.
pub struct Nodes(Vec<Node>);

impl Serialize for Nodes {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        NodeOut {
            arena: &self.0,
            id: 0,
        }
        .serialize(s)
    }
}

struct NodeOut<'a> {
    arena: &'a [Node],
    id: usize,
}

impl Serialize for NodeOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let node = &self.arena[self.id];
        let mut out = s.serialize_map(None)?;
        out.serialize_entry("name", &node.name)?;
        out.serialize_entry("kind", node.kind)?;
        if let Some(size) = node.size {
            out.serialize_entry("size", &size)?;
        }
        if node.non_accessible {
            out.serialize_entry("non_accessible", &true)?;
        }
        if node.kind == "dir"
            && node.reason != Some("default_exclude")
            && node.reason != Some("depth")
        {
            let mut children: Vec<usize> = node.children.clone();
            children.sort_by(|a, b| self.arena[*a].name.cmp(&self.arena[*b].name));
            out.serialize_entry(
                "children",
                &Children {
                    arena: self.arena,
                    ids: &children,
                },
            )?;
        }
        if let Some(reason) = node.reason {
            out.serialize_entry("truncated", &true)?;
            out.serialize_entry("reason", reason)?;
        }
        if node.omitted > 0 {
            out.serialize_entry("omitted", &node.omitted)?;
        }
        out.end()
    }
}

struct Children<'a> {
    arena: &'a [Node],
    ids: &'a [usize],
}

impl Serialize for Children<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.ids.len()))?;
        for &id in self.ids {
            seq.serialize_element(&NodeOut {
                arena: self.arena,
                id,
            })?;
        }
        seq.end()
    }
}

pub fn tree(jail: &Jail, limits: &Limits, p: TreeParams) -> Result<TreeResult> {
    let depth = p.depth.unwrap_or(limits.tree_default_depth);
    if !(1..=TREE_MAX_DEPTH).contains(&depth) {
        return Err(Error::bad_input(format!(
            "`depth` must be between 1 and {TREE_MAX_DEPTH}, got {depth}"
        )));
    }
    let max_entries = p.max_entries.unwrap_or(TREE_DEFAULT_MAX_ENTRIES);
    if max_entries == 0 {
        return Err(Error::bad_input("`max_entries` must be at least 1"));
    }
    let dir = jail.resolve_visible("dir", p.dir.as_deref().unwrap_or("."))?;
    if !jail.metadata(&dir)?.is_dir() {
        return Err(
            Error::bad_input(format!("`dir`: {} is not a directory", dir.abs.display()))
                .with_recovery("pass a folder; use read for files"),
        );
    }
    let only = optional_globs("glob", p.glob)?;
    let exclude = optional_globs("exclude", p.exclude)?;
    let walk = TreeWalk {
        jail,
        dir: &dir,
        depth,
        max_entries,
        per_folder: p
            .per_folder_limit
            .unwrap_or(limits.tree_per_folder_limit)
            .max(1),
        only,
        exclude,
        default_excludes: p.use_default_excludes.unwrap_or(true),
        gitignore: p.gitignore.unwrap_or(true),
        hidden: p.hidden.unwrap_or(true),
    };
    walk.run()
}

struct TreeWalk<'a> {
    jail: &'a Jail,
    dir: &'a Resolved,
    depth: usize,
    max_entries: usize,
    per_folder: usize,
    only: Option<GlobSet>,
    exclude: Option<GlobSet>,
    default_excludes: bool,
    gitignore: bool,
    hidden: bool,
}

impl TreeWalk<'_> {
    fn run(self) -> Result<TreeResult> {
        let stubs = Arc::new(Mutex::new(Vec::new()));
        let walker = self.walker(stubs.clone());
        let mut arena = vec![Node {
            name: self
                .dir
                .abs
                .file_name()
                .map_or("/".into(), |n| n.to_string_lossy().into_owned()),
            kind: "dir",
            ..Default::default()
        }];
        let mut index: HashMap<PathBuf, usize> = HashMap::from([(self.dir.abs.clone(), 0)]);
        let mut entries = 0;
        let mut truncated = false;
        // Entries dropped by the per-folder limit still get walked; this bounds that work too.
        let visit_limit = self.max_entries.saturating_mul(20);
        for (visited, entry) in guarded(walker, &self.dir.abs).enumerate() {
            let entry = entry?;
            if entry.depth() == 0 {
                continue;
            }
            if entries >= self.max_entries || visited > visit_limit {
                truncated = true;
                break;
            }
            let path = entry.path();
            let Some(&parent) = path.parent().and_then(|p| index.get(p)) else {
                continue;
            };
            let kind = entry.file_type().map_or("other", kind_name);
            if kind != "dir" && !self.wanted_file(path) {
                continue;
            }
            if !self.jail.holds_entry(path) {
                continue;
            }
            let mut node = self.node_for(path, kind, entry.metadata().ok().map(|m| m.len()));
            if kind == "dir" && entry.depth() == self.depth && has_children(path) {
                node.reason = Some("depth");
            }
            if let Some(id) = self.attach(&mut arena, parent, node) {
                index.insert(path.to_path_buf(), id);
                entries += 1;
            }
        }
        let stubs = std::mem::take(&mut *stubs.lock().unwrap_or_else(|e| e.into_inner()));
        for stub in stubs {
            let Some(&parent) = stub.parent().and_then(|p| index.get(p)) else {
                continue;
            };
            let mut node = self.node_for(&stub, "dir", None);
            node.reason = Some("default_exclude");
            self.attach(&mut arena, parent, node);
        }
        if self.only.is_some() {
            prune_empty_dirs(&mut arena, 0);
        }
        Ok(TreeResult {
            path: self.dir.abs.clone(),
            depth: self.depth,
            entries,
            truncated,
            tree: Nodes(arena),
        })
    }

    fn walker(&self, stubs: Arc<Mutex<Vec<PathBuf>>>) -> ignore::Walk {
        let mut builder = self
            .jail
            .walk_builder(self.dir, self.gitignore, self.hidden);
        builder
            .max_depth(Some(self.depth))
            .sort_by_file_name(|a, b| a.cmp(b));
        // Request globs match below the tree's folder; the jail's noise globs below the root.
        let (tree_dir, jail_root) = (
            self.dir.abs.clone(),
            self.jail.roots()[self.dir.root].path.clone(),
        );
        let exclude = self.exclude.clone();
        let defaults = self.default_excludes;
        let noise = self.jail.default_excludes();
        builder.filter_entry(move |entry| {
            let path = entry.path();
            let below_dir = path.strip_prefix(&tree_dir).unwrap_or(path);
            if exclude
                .as_ref()
                .is_some_and(|set| globs::hit(set, below_dir))
            {
                return false;
            }
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            let below_root = path.strip_prefix(&jail_root).unwrap_or(path);
            if defaults && entry.depth() > 0 && globs::hit(&noise, below_root) {
                if is_dir {
                    stubs
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(entry.path().to_path_buf());
                }
                return false;
            }
            true
        });
        builder.build()
    }

    /// Adds a node under `parent` unless the folder is full (`tree_per_folder_limit`), in which
    /// case it is only counted in the folder's `omitted`.
    fn attach(&self, arena: &mut Vec<Node>, parent: usize, node: Node) -> Option<usize> {
        if arena[parent].children.len() >= self.per_folder {
            arena[parent].omitted += 1;
            arena[parent].reason = Some("per_folder_limit");
            return None;
        }
        arena.push(node);
        let id = arena.len() - 1;
        arena[parent].children.push(id);
        Some(id)
    }

    fn wanted_file(&self, path: &Path) -> bool {
        let rel = path.strip_prefix(&self.dir.abs).unwrap_or(path);
        self.only.as_ref().is_none_or(|set| globs::hit(set, rel))
    }

    fn node_for(&self, path: &Path, kind: &'static str, size: Option<u64>) -> Node {
        let rel = path
            .strip_prefix(&self.jail.roots()[self.dir.root].path)
            .unwrap_or(path);
        Node {
            name: path
                .file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into_owned()),
            kind,
            size: if kind == "file" { size } else { None },
            non_accessible: self.jail.is_non_accessible(rel),
            ..Default::default()
        }
    }
}

/// Compiles an optional request glob list; `None` when absent or empty.
pub fn optional_globs(field: &str, globs: Option<Globs>) -> Result<Option<GlobSet>> {
    match globs.map(|g| g.to_vec()) {
        Some(list) if !list.is_empty() => globs::compile(field, &list).map(Some),
        _ => Ok(None),
    }
}

/// The walker's entries, unreadable ones skipped. `ignore`'s sequential walker (0.4.35) panics
/// (`walk.rs`, `self.ig.parent().unwrap()`) when the folder being walked is swapped for a symlink
/// mid-walk; that is caught here and answered as the race it is, instead of as an internal error.
fn guarded<'a>(
    mut walker: ignore::Walk,
    dir: &'a Path,
) -> impl Iterator<Item = Result<ignore::DirEntry>> + 'a {
    let mut failed = false;
    std::iter::from_fn(move || loop {
        if failed {
            return None;
        }
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| walker.next())) {
            Ok(Some(Ok(entry))) => return Some(Ok(entry)),
            Ok(Some(Err(_))) => continue,
            Ok(None) => return None,
            Err(_) => {
                failed = true;
                return Some(Err(Error::outside_jail(format!(
                    "{} changed while it was being walked (a symlink was swapped in)",
                    dir.display()
                ))
                .with_recovery(
                    "retry; if it persists, the folder now leads outside the jail",
                )));
            }
        }
    })
}

fn kind_name(t: std::fs::FileType) -> &'static str {
    if t.is_symlink() {
        "symlink"
    } else if t.is_dir() {
        "dir"
    } else if t.is_file() {
        "file"
    } else {
        "other"
    }
}

fn has_children(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_some())
}

/// With a glob, folders that hold no matching file are noise: drop them. Folders cut by the depth
/// limit stay, since matches may lie below them. Returns whether `id` survives.
fn prune_empty_dirs(arena: &mut [Node], id: usize) -> bool {
    let children = std::mem::take(&mut arena[id].children);
    let kept: Vec<usize> = children
        .into_iter()
        .filter(|&c| prune_empty_dirs(arena, c))
        .collect();
    let node = &arena[id];
    let survives =
        node.kind != "dir" || !kept.is_empty() || id == 0 || node.reason == Some("depth");
    arena[id].children = kept;
    survives
}

#[derive(Deserialize, JsonSchema, Debug)]
#[serde(deny_unknown_fields)]
pub struct ListParams {
    /// The folder to list.
    dir: Option<String>,
    /// Entries per page (at most the config's `list_max_page_size`).
    page_size: Option<usize>,
    /// The `next_cursor` of the previous page (the last name returned): pages stay stable when
    /// entries are added or removed.
    cursor: Option<String>,
    /// The page to show (1-based, `page_size` entries each), instead of a `cursor`: iii's paging.
    page: Option<usize>,
}

pub fn list_folder(jail: &Jail, limits: &Limits, p: ListParams) -> Result<FolderPage> {
    let page_size = p.page_size.unwrap_or(limits.list_default_page_size);
    if page_size == 0 || page_size > limits.list_max_page_size {
        return Err(Error::bad_input(format!(
            "`page_size` must be between 1 and {} (list_max_page_size), got {page_size}",
            limits.list_max_page_size
        )));
    }
    let dir = jail.resolve_visible("dir", p.dir.as_deref().unwrap_or("."))?;
    let fd = jail.open_dir(&dir)?;
    let mut names = read_names(&fd).map_err(|e| Error::from_io(&e, &dir.abs))?;
    names.sort();
    let total = names.len();
    let start = match (&p.cursor, p.page) {
        (Some(_), Some(_)) => {
            return Err(Error::bad_input("`cursor` and `page` are exclusive")
                .with_recovery("page with `cursor` (stable) or with `page`, not both"))
        }
        (Some(cursor), None) => names.partition_point(|n| n.as_str() <= cursor.as_str()),
        (None, Some(0)) => return Err(Error::bad_input("`page` counts from 1, got 0")),
        (None, Some(page)) => total.min((page - 1).saturating_mul(page_size)),
        (None, None) => 0,
    };
    let page: Vec<&String> = names[start..].iter().take(page_size).collect();
    let entries: Vec<FolderEntry> = page
        .iter()
        .map(|name| entry(jail, &dir, &fd, name))
        .collect();
    let next_cursor = (start + page.len() < total)
        .then(|| page.last().map(|n| n.to_string()))
        .flatten();
    Ok(FolderPage {
        entries,
        next_cursor,
        path: dir.abs,
        total,
    })
}

fn read_names(fd: &std::os::fd::OwnedFd) -> std::io::Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in rustix::fs::Dir::read_from(fd)? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if name != "." && name != ".." {
            names.push(name);
        }
    }
    Ok(names)
}

fn entry(jail: &Jail, dir: &Resolved, fd: &std::os::fd::OwnedFd, name: &str) -> FolderEntry {
    use rustix::fs::{AtFlags, FileType};
    let rel = dir.rel.join(name);
    let stat = rustix::fs::statat(fd, name, AtFlags::SYMLINK_NOFOLLOW).ok();
    let kind = match stat.as_ref().map(|s| FileType::from_raw_mode(s.st_mode)) {
        Some(FileType::Directory) => "dir",
        Some(FileType::RegularFile) => "file",
        Some(FileType::Symlink) => "symlink",
        Some(_) => "other",
        None => "unknown",
    };
    FolderEntry {
        default_excluded: jail.is_default_excluded(&rel),
        kind: kind.into(),
        name: name.to_string(),
        non_accessible: jail.is_non_accessible(&rel),
        size: stat.filter(|_| kind == "file").map(|s| s.st_size as u64),
    }
}
