//! The repository's recent history as the map reads it: which files each of the last commits
//! changed together. Files that changed together before are what the next change needs
//! (evolutionary coupling); the map's ranking weighs them beside the reference graph.
//!
//! Read with one hardened `git log --name-only` from HEAD (no merges, no rename detection, no
//! diff drivers: only trees are compared, no file content is read), bounded by the config: the
//! last `map.history_commits` commits, and a commit that changed more than
//! `map.history_max_files` files (a mass rename, a formatting pass) says nothing about any pair
//! and is left out. Only HEAD's ancestors are read: no other branch, no commit after HEAD.
//!
//! Kept per repository in memory and in the daemon's state folder, keyed by the commit HEAD names:
//! a map asks for HEAD by reading `HEAD` and its ref as files (no process), and reads the log again
//! only when HEAD moved. A folder in no repository (or one git cannot read) has no history: the
//! map ranks by the graph alone.

use super::{command::nul_records, repository, Repo};
use coderd_core::config::MapConfig;
use coderd_core::error::{Error, Result};
use coderd_core::workspace::Workspace;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The most output one log may produce (3,000 commits of up to 30 paths is a few MB).
const MAX_LOG_BYTES: usize = 64 * 1024 * 1024;

/// What one repository's last commits changed.
#[derive(Debug, Serialize, Deserialize)]
pub struct History {
    /// The commit HEAD named when the log was read, and the bounds it was read with.
    pub head: String,
    pub bounds: MapConfig,
    /// Per commit, newest first, the files it changed, relative to the workspace root the map's
    /// folder is in (as the map prints paths); commits over the bound are left out.
    pub commits: Vec<Vec<String>>,
}

/// The histories read so far, by repository, and where they are saved.
#[derive(Default)]
pub struct HistoryCache {
    dir: Option<PathBuf>,
    /// By `cache_key`: a repository seen from one root with one set of bounds.
    held: Mutex<HashMap<u64, Arc<History>>>,
}

impl HistoryCache {
    /// A cache saved in `dir` (the daemon's state folder); in memory only without one.
    pub fn new(dir: Option<&Path>) -> HistoryCache {
        HistoryCache {
            dir: dir.map(Path::to_path_buf),
            held: Mutex::default(),
        }
    }

    /// The history of the repository holding `near` (a wire path of a file or a folder; the map
    /// passes its focus file), as of its HEAD now: `None` when it is in no repository, the
    /// repository has no commit, or the config turns history off (`map.history_commits: 0`).
    pub fn read(&self, state: &Workspace, near: &str) -> Result<Option<Arc<History>>> {
        let bounds = state.limits().map.clone();
        if bounds.history_commits == 0 {
            return Ok(None);
        }
        let jail = &state.jail;
        let mut resolved = jail.resolve("focus", near)?;
        if !jail.metadata(&resolved).is_ok_and(|m| m.is_dir()) {
            let Some(folder) = resolved.abs.parent().and_then(|p| jail.locate(p)) else {
                return Ok(None);
            };
            resolved = folder;
        }
        let wire = resolved.abs.to_string_lossy().into_owned();
        let dir = Some(wire.as_str());
        let Some(pinned) = repository::find(jail, &resolved)? else {
            return Ok(None);
        };
        let root = &jail.roots()[resolved.root].path;
        let key = cache_key(&pinned.git_dir, root, &bounds);
        let head = match head_of(jail, &pinned)? {
            Some(head) => head,
            // A ref git packed or keeps another way: git names the commit.
            None => match rev_parse_head(state, dir)? {
                Some(head) => head,
                None => return Ok(None),
            },
        };
        // Held across the log: a second map of the same moment waits for this one's log instead
        // of running its own.
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(history) = held.get(&key) {
            if history.head == head && history.bounds == bounds {
                return Ok(Some(history.clone()));
            }
        }
        let history = match self.load(key, &head, &bounds) {
            Some(saved) => saved,
            None => {
                let repo = Repo::open(state, dir)?;
                let prefix = root_prefix(&repo.pinned.work_tree, root);
                let history = read_log(&repo, head, bounds, &prefix)?;
                self.save(key, &history);
                history
            }
        };
        let history = Arc::new(history);
        held.insert(key, history.clone());
        Ok(Some(history))
    }

    fn path(&self, key: u64) -> Option<PathBuf> {
        Some(self.dir.as_ref()?.join(format!("{key:016x}.json")))
    }

    /// The saved history, if it is of this HEAD and these bounds.
    fn load(&self, key: u64, head: &str, bounds: &MapConfig) -> Option<History> {
        let text = std::fs::read(self.path(key)?).ok()?;
        let saved: History = serde_json::from_slice(&text).ok()?;
        (saved.head == head && saved.bounds == *bounds).then_some(saved)
    }

    /// Saves a history (whole or not at all: written beside, then renamed); a failure costs only
    /// the next daemon's log.
    fn save(&self, key: u64, history: &History) {
        let Some(path) = self.path(key) else {
            return;
        };
        let written = (|| {
            std::fs::create_dir_all(path.parent()?).ok()?;
            let partial = path.with_extension("partial");
            std::fs::write(&partial, serde_json::to_vec(history).ok()?).ok()?;
            std::fs::rename(&partial, &path).ok()
        })();
        if written.is_none() {
            tracing::debug!(path = %path.display(), "history not saved");
        }
    }
}

/// The saved file of a repository's history as seen from one root with one set of bounds.
fn cache_key(git_dir: &Path, root: &Path, bounds: &MapConfig) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    (
        git_dir,
        root,
        bounds.history_commits,
        bounds.history_max_files,
    )
        .hash(&mut hasher);
    hasher.finish()
}

/// The commit HEAD names, read as git's files: `HEAD` (a commit, or `ref: NAME`) and a loose ref.
/// `None` when the ref is neither a loose file nor in `packed-refs` (reftable, unborn): git is
/// asked instead.
fn head_of(jail: &coderd_core::jail::Jail, pinned: &repository::Pinned) -> Result<Option<String>> {
    let Some(head) = repository::read_inside(jail, &pinned.git_dir.join("HEAD"))? else {
        return Ok(None);
    };
    let head = String::from_utf8_lossy(head.trim_ascii()).into_owned();
    let Some(name) = head.strip_prefix("ref:").map(str::trim) else {
        return Ok(is_commit_id(&head).then_some(head));
    };
    if !name.starts_with("refs/") || name.split('/').any(|part| part == "..") {
        return Ok(None);
    }
    let id = match repository::read_inside(jail, &pinned.common_dir.join(name))? {
        Some(id) => String::from_utf8_lossy(id.trim_ascii()).into_owned(),
        None => return packed_ref(jail, pinned, name),
    };
    Ok(is_commit_id(&id).then_some(id))
}

/// The commit `packed-refs` names for `name` (a fresh clone packs its refs): read as a file, so a
/// warm map spawns no git to learn where HEAD is.
fn packed_ref(
    jail: &coderd_core::jail::Jail,
    pinned: &repository::Pinned,
    name: &str,
) -> Result<Option<String>> {
    let Some(packed) = repository::read_inside(jail, &pinned.common_dir.join("packed-refs"))?
    else {
        return Ok(None);
    };
    let text = String::from_utf8_lossy(&packed);
    let id = text.lines().find_map(|line| {
        let (id, listed) = line.split_once(' ')?;
        (listed == name && is_commit_id(id)).then(|| id.to_owned())
    });
    Ok(id)
}

fn is_commit_id(text: &str) -> bool {
    matches!(text.len(), 40 | 64) && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// `git rev-parse HEAD`: `None` in a repository without commits.
fn rev_parse_head(state: &Workspace, dir: Option<&str>) -> Result<Option<String>> {
    let repo = Repo::open(state, dir)?;
    let output = repo
        .git()
        .args(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])
        .output()
        .map_err(|e| repo.error("map", e))?;
    let id = String::from_utf8_lossy(output.stdout.trim_ascii()).into_owned();
    Ok((output.status.success() && is_commit_id(&id)).then_some(id))
}

/// What turns a path git prints (relative to the work tree) into one relative to the root:
/// the work tree's place under the root, or the root's place under the work tree.
enum Prefix {
    Add(String),
    Strip(String),
}

fn root_prefix(work_tree: &Path, root: &Path) -> Prefix {
    let text = |p: &Path| {
        let mut s = p.to_string_lossy().into_owned();
        if !s.is_empty() {
            s.push('/');
        }
        s
    };
    match work_tree.strip_prefix(root) {
        Ok(inner) => Prefix::Add(text(inner)),
        Err(_) => Prefix::Strip(text(root.strip_prefix(work_tree).unwrap_or(root))),
    }
}

/// The log from `head`: each commit's changed files, the commits over the bound left out. A root
/// commit's files are its whole tree, which git would list in full (200,000 paths for a tree
/// committed at once) to have them dropped here: the log lists none (`log.showRoot=false`) and a
/// root commit's tree is listed apart, only as far as the bound (`root_files`).
fn read_log(repo: &Repo, head: String, bounds: MapConfig, prefix: &Prefix) -> Result<History> {
    let output = repo
        .git()
        .args(["-c", "log.showRoot=false", "log"])
        .args([
            "-z",
            "--no-merges",
            "--no-renames",
            "--no-ext-diff",
            "--no-textconv",
            "--no-color",
            "--name-only",
            "--format=%x01%H %P",
        ])
        .arg(format!("--max-count={}", bounds.history_commits))
        .arg(&head)
        .arg("--")
        .stdout_cap(MAX_LOG_BYTES)
        .run()
        .map_err(|e| repo.error("map", e))?;
    let mut logged = parse(&output.stdout);
    if output.omitted > 0 {
        // The last commit was cut short.
        logged.pop();
    }
    if logged.len() > bounds.history_commits {
        return Err(Error::io("git log listed more commits than asked"));
    }
    let max_files = bounds.history_max_files;
    let mut commits = Vec::new();
    for commit in logged {
        let listed;
        let paths = match commit.root {
            Some(id) => match root_files(repo, id, max_files)? {
                Some(bytes) => {
                    listed = bytes;
                    nul_records(&listed).collect()
                }
                None => continue,
            },
            None => commit.paths,
        };
        commits.extend(within_root(&paths, max_files, prefix));
    }
    Ok(History {
        head,
        bounds,
        commits,
    })
}

/// One commit of the log: its id when it is a root commit (the log lists no file of those), else
/// the paths it changed.
struct Logged<'a> {
    root: Option<&'a str>,
    paths: Vec<&'a [u8]>,
}

/// `git log -z --name-only --format=%x01%H %P`: a record `\x01` with the commit's id and its
/// parents opens each commit, the records after it are its paths (the first one after a newline).
fn parse(bytes: &[u8]) -> Vec<Logged<'_>> {
    let mut commits: Vec<Logged> = Vec::new();
    for record in nul_records(bytes) {
        let record = record.strip_prefix(b"\n").unwrap_or(record);
        if let Some(header) = record.strip_prefix(b"\x01") {
            let header = std::str::from_utf8(header).unwrap_or_default();
            let (id, parents) = header.split_once(' ').unwrap_or((header, ""));
            commits.push(Logged {
                root: parents.trim().is_empty().then_some(id),
                paths: Vec::new(),
            });
            continue;
        }
        if let Some(open) = commits.last_mut() {
            open.paths.push(record);
        }
    }
    commits
}

/// The files of root commit `id` (its whole tree, NUL-separated, as the log would list them), or
/// `None` when they are more than `max_files`: git is stopped once the listing passes
/// `max_files + 1` paths of the longest length a path may have, so a root commit of a big tree
/// costs a few kilobytes of listing rather than all of its paths.
fn root_files(repo: &Repo, id: &str, max_files: usize) -> Result<Option<Vec<u8>>> {
    if !is_commit_id(id) {
        return Err(Error::io(format!("git log named no commit: {id:?}")));
    }
    const LONGEST_PATH: usize = 4096;
    let cap = (max_files + 1)
        .saturating_mul(LONGEST_PATH + 1)
        .min(MAX_LOG_BYTES);
    let output = repo
        .git()
        .args(["ls-tree", "-r", "-z", "--name-only", "--full-tree", id])
        .stdout_head(cap)
        .output()
        .map_err(|e| repo.error("map", e))?;
    if output.omitted > 0 {
        // More paths than the bound, or paths longer than any file system takes: none listed.
        return Ok(None);
    }
    if !output.status.success() {
        let stderr = super::command::first_lines(&output.stderr);
        return Err(Error::io(format!("git ls-tree {id}: {stderr}")));
    }
    let count = nul_records(&output.stdout).count();
    Ok((count <= max_files).then_some(output.stdout))
}

/// A commit's files under the root, when it changed any there and no more than `max_files` in all.
fn within_root(paths: &[&[u8]], max_files: usize, prefix: &Prefix) -> Option<Vec<String>> {
    if paths.len() > max_files {
        return None;
    }
    let files: Vec<String> = paths
        .iter()
        .filter_map(|path| {
            let path = std::str::from_utf8(path).ok()?;
            match prefix {
                Prefix::Add(p) => Some(format!("{p}{path}")),
                Prefix::Strip(p) => path.strip_prefix(p.as_str()).map(str::to_owned),
            }
        })
        .filter(|p| !p.is_empty())
        .collect();
    (!files.is_empty()).then_some(files)
}

#[cfg(test)]
mod tests {
    use super::{parse, within_root, Prefix};

    #[test]
    fn commits_over_the_bound_and_empty_ones_are_left_out_and_root_commits_are_marked() {
        let log = b"\x01c1 p1\0\na.rs\0b.rs\0\x01c2 p2\0\x01c3 p3 p4\0\nc.rs\0d.rs\0e.rs\0\
                    \x01c4 p5\0\nsub/f.rs\0\x01c5 \0";
        let logged = parse(log);
        let roots: Vec<Option<&str>> = logged.iter().map(|c| c.root).collect();
        assert_eq!(roots, [None, None, None, None, Some("c5")]);
        let kept = |max, prefix: &Prefix| {
            let commits = logged.iter().map(|c| within_root(&c.paths, max, prefix));
            commits.flatten().collect::<Vec<_>>()
        };
        let at_top = kept(2, &Prefix::Add(String::new()));
        assert_eq!(at_top, [vec!["a.rs", "b.rs"], vec!["sub/f.rs"]]);
        let below = kept(3, &Prefix::Add("repo/".into()));
        assert_eq!(below[1], ["repo/c.rs", "repo/d.rs", "repo/e.rs"]);
        let above = kept(3, &Prefix::Strip("sub/".into()));
        assert_eq!(above, [vec!["f.rs"]]);
    }
}
