//! The tag index on disk: every tagged file's tags with its identity, times and content hash, in the
//! daemon's state folder, so that a restarted daemon's first map re-tags only what changed while it
//! was down. A file whose identity and times match is taken as it was saved; one whose times
//! changed but whose content hash matches (a checkout that rewrote it unchanged) is taken too.
//!
//! One JSON Lines file — a header naming the build, then a line per tagged file — written whole
//! (temporary file, then rename) on a background thread after a map changed the index; a file written
//! by another build of coderd is ignored (its outlines may differ). The file is read on a background
//! thread from the daemon's start, its lines parsed on all cores, so that a restarted daemon's first
//! map costs about what a warm daemon's does.

use super::index::{Entry, FileKey, FileTags, Shards};
use crate::items::{Item, Outline};
use crate::tags::Tags;
use crate::{languages, Kind};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

const FILE_NAME: &str = "tags.jsonl";
/// How long a save waits for a later one to supersede it (and for the map that asked for it to be
/// ranked and answered, so that the save does not compete with it for the cores).
const SETTLE: std::time::Duration = std::time::Duration::from_secs(1);

/// Where the index is saved, and the saves in flight.
pub struct Store {
    path: PathBuf,
    /// The number of the latest save asked for; a save that finds a later one asked skips its write.
    asked: Arc<AtomicU64>,
    writing: Arc<Mutex<()>>,
    /// The saved entries being read since the daemon started; taken by the first `load`.
    reading: Mutex<Option<JoinHandle<HashMap<PathBuf, Entry>>>>,
}

/// The file's first line.
#[derive(Serialize, Deserialize)]
struct Header {
    build: String,
}

#[derive(Serialize, Deserialize)]
struct SavedFile {
    path: PathBuf,
    rel: String,
    key: FileKey,
    hash: String,
    language: String,
    generated: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    test_modules: Vec<String>,
    items: Vec<SavedItem>,
    references: Vec<(String, u32)>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    imports: Vec<String>,
}

/// An outline item as an array — kind, name, signature, line, end line, parent, parent's name (a
/// method's type declared elsewhere), doc — since field names would be a third of the file.
#[derive(Serialize, Deserialize)]
struct SavedItem(
    Kind,
    String,
    String,
    usize,
    usize,
    Option<usize>,
    Option<String>,
    Option<String>,
);

impl Store {
    /// The store in `dir` (the daemon's state folder), created private if missing; what it holds
    /// starts being read now.
    pub fn new(dir: &Path) -> Option<Store> {
        wire::paths::create_private_dir(dir)
            .map_err(|e| tracing::warn!("no tag index on disk at {}: {e}", dir.display()))
            .ok()?;
        let path = dir.join(FILE_NAME);
        let reading = path.exists().then(|| {
            let path = path.clone();
            std::thread::spawn(move || read(&path))
        });
        Some(Store {
            path,
            asked: Arc::default(),
            writing: Arc::default(),
            reading: Mutex::new(reading),
        })
    }

    /// The entries saved by this build of coderd (waiting for the read started with the store);
    /// none when there is no file or it is another build's or unreadable, and none after the first
    /// call.
    pub fn load(&self) -> HashMap<PathBuf, Entry> {
        let reading = self
            .reading
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        reading
            .and_then(|handle| handle.join().ok())
            .unwrap_or_default()
    }

    /// Saves `entries` on a background thread (a later save supersedes this one).
    pub fn save(&self, entries: Shards) {
        let number = self.asked.fetch_add(1, Ordering::SeqCst) + 1;
        let (asked, writing, path) = (self.asked.clone(), self.writing.clone(), self.path.clone());
        std::thread::spawn(move || {
            // Edits come in bursts, each followed by a map: only the last of a burst is written.
            std::thread::sleep(SETTLE);
            if asked.load(Ordering::SeqCst) != number {
                return;
            }
            let _one_at_a_time = writing.lock().unwrap_or_else(|e| e.into_inner());
            if asked.load(Ordering::SeqCst) != number {
                return;
            }
            if let Err(e) = write(&path, entries) {
                tracing::warn!("tag index {} not saved: {e}", path.display());
            }
        });
    }
}

/// The entries in the file at `path`, each line parsed on its own (on all cores).
fn read(path: &Path) -> HashMap<PathBuf, Entry> {
    let Ok(bytes) = std::fs::read(path) else {
        return HashMap::new();
    };
    let mut lines = bytes.split(|&b| b == b'\n');
    let header = lines.next().map(serde_json::from_slice::<Header>);
    match header {
        Some(Ok(header)) if header.build == build() => {}
        Some(Err(e)) => {
            tracing::info!("tag index {} not read: {e}", path.display());
            return HashMap::new();
        }
        _ => return HashMap::new(),
    }
    let lines: Vec<&[u8]> = lines.collect();
    lines
        .par_iter()
        .filter_map(|line| serde_json::from_slice::<SavedFile>(line).ok())
        .filter_map(restore)
        .collect()
}

fn write(path: &Path, entries: Shards) -> std::io::Result<()> {
    let mut entries: Vec<(&PathBuf, &Entry)> = entries.iter().collect();
    // By bytes, not by path components (a third of a save's time at 200,000 files): any fixed
    // order keeps the file the same for the same index.
    entries.sort_unstable_by(|a, b| a.0.as_os_str().cmp(b.0.as_os_str()));
    let mut out = serde_json::to_vec(&Header { build: build() })?;
    for (path, entry) in entries {
        out.push(b'\n');
        serde_json::to_writer(&mut out, &save_one(path, entry))?;
    }
    let temporary = path.with_extension("jsonl.tmp");
    std::fs::write(&temporary, out)?;
    std::fs::rename(&temporary, path)
}

fn save_one(path: &Path, entry: &Entry) -> SavedFile {
    let tags = &entry.tags;
    SavedFile {
        path: path.to_path_buf(),
        rel: tags.rel.clone(),
        key: entry.key,
        hash: entry.hash.to_hex().to_string(),
        language: tags.language.to_owned(),
        generated: tags.generated,
        test_modules: tags.test_modules.clone(),
        items: tags
            .tags
            .outline
            .items
            .iter()
            .map(|i| {
                SavedItem(
                    i.kind,
                    i.name.clone(),
                    i.signature.clone(),
                    i.line,
                    i.end_line,
                    i.parent,
                    i.parent_name.clone(),
                    i.doc.clone(),
                )
            })
            .collect(),
        references: tags.tags.references.clone(),
        imports: tags.imports.clone(),
    }
}

fn restore(saved: SavedFile) -> Option<(PathBuf, Entry)> {
    let language = languages::by_name(&saved.language)?;
    let hash = blake3::Hash::from_hex(&saved.hash).ok()?;
    // Rendering nests by the parents: a line whose parents do not form a tree was not written by
    // this build, and its file is tagged again. A parent may come after its child (a Go method
    // declared above its receiver type), so the rule is a tree, not an order.
    let parents: Vec<Option<usize>> = saved.items.iter().map(|item| item.5).collect();
    if !is_forest(&parents) {
        return None;
    }
    let items = saved
        .items
        .into_iter()
        .map(
            |SavedItem(kind, name, signature, line, end_line, parent, parent_name, doc)| Item {
                kind,
                name,
                signature,
                line,
                end_line,
                parent,
                parent_name,
                doc,
                // Byte ranges are only read while tagging, which is done.
                bytes: 0..0,
                name_bytes: 0..0,
                extent_line: line,
            },
        )
        .collect();
    let tags = Tags {
        outline: Outline {
            items,
            parse_errors: 0,
        },
        references: saved.references,
    };
    let file = FileTags::new(
        saved.rel,
        &language.name,
        tags,
        saved.generated,
        saved.test_modules,
        saved.imports,
    );
    Some((
        saved.path,
        Entry {
            key: saved.key,
            hash,
            tags: Arc::new(file),
        },
    ))
}

/// Whether every parent is another item and following parents from any item ends at a top-level
/// one (no cycle).
fn is_forest(parents: &[Option<usize>]) -> bool {
    let n = parents.len();
    // 0: not yet seen, 1: on the path being followed, 2: known to reach the top.
    let mut state = vec![0u8; n];
    for start in 0..n {
        let mut path = Vec::new();
        let mut at = Some(start);
        while let Some(i) = at {
            if i >= n || state[i] == 1 {
                return false;
            }
            if state[i] == 2 {
                break;
            }
            state[i] = 1;
            path.push(i);
            at = parents[i];
        }
        for i in path {
            state[i] = 2;
        }
    }
    true
}

/// This build of coderd: its version and its executable's size and modification time (a rebuilt
/// binary may outline differently).
fn build() -> String {
    static BUILD: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    BUILD
        .get_or_init(|| {
            let exe = std::env::current_exe()
                .and_then(std::fs::metadata)
                .map(|m| {
                    use std::os::unix::fs::MetadataExt;
                    format!("{}.{}.{}", m.size(), m.mtime(), m.mtime_nsec())
                })
                .unwrap_or_default();
            format!("{} {exe}", env!("CARGO_PKG_VERSION"))
        })
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saved(parents: &[Option<usize>]) -> SavedFile {
        let item = |parent| {
            SavedItem(
                Kind::Function,
                "f".into(),
                "fn f()".into(),
                1,
                2,
                parent,
                None,
                None,
            )
        };
        SavedFile {
            path: "/w/a.rs".into(),
            rel: "a.rs".into(),
            key: (1, 2, 3, 4, 5, 6, 7),
            hash: blake3::hash(b"x").to_hex().to_string(),
            language: "rust".into(),
            generated: false,
            test_modules: vec![],
            items: parents.iter().map(|&p| item(p)).collect(),
            references: vec![],
            imports: vec![],
        }
    }

    #[test]
    fn a_saved_file_whose_parents_do_not_form_a_tree_is_tagged_again() {
        assert!(restore(saved(&[None, Some(0), Some(1)])).is_some());
        // A Go method declared above its receiver type: its parent is a later item.
        assert!(restore(saved(&[Some(1), None, Some(1)])).is_some());
        assert!(restore(saved(&[None, Some(1)])).is_none());
        assert!(restore(saved(&[Some(1), Some(0)])).is_none());
        assert!(restore(saved(&[None, Some(7)])).is_none());
    }
}
