//! The tag index on disk: every tagged file's tags with its identity, times and content hash, in the
//! daemon's state folder, so that a restarted daemon's first map re-tags only what changed while it
//! was down. A file whose identity and times match is taken as it was saved; one whose times
//! changed but whose content hash matches (a checkout that rewrote it unchanged) is taken too.
//!
//! One JSON file, written whole (temporary file, then rename) on a background thread after a map
//! changed the index; a file written by another build of coderd is ignored (its outlines may differ).

use super::index::{Entry, FileKey, FileTags};
use crate::syntax::items::{Item, Outline};
use crate::syntax::tags::Tags;
use crate::syntax::{languages, Kind};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

const FILE_NAME: &str = "tags.json";
/// How long a save waits for a later one to supersede it (and for the map that asked for it to be
/// ranked and answered, so that the save does not compete with it for the cores).
const SETTLE: std::time::Duration = std::time::Duration::from_secs(1);

/// Where the index is saved, and the saves in flight.
pub struct Store {
    path: PathBuf,
    /// The number of the latest save asked for; a save that finds a later one asked skips its write.
    asked: Arc<AtomicU64>,
    writing: Arc<Mutex<()>>,
}

#[derive(Serialize, Deserialize)]
struct Saved {
    build: String,
    files: Vec<SavedFile>,
}

#[derive(Serialize, Deserialize)]
struct SavedFile {
    path: PathBuf,
    rel: String,
    key: FileKey,
    hash: String,
    language: String,
    generated: bool,
    items: Vec<SavedItem>,
    references: Vec<(String, u32)>,
}

#[derive(Serialize, Deserialize)]
struct SavedItem {
    kind: Kind,
    name: String,
    signature: String,
    line: usize,
    end_line: usize,
    parent: Option<usize>,
    /// The type a method belongs to when it is declared elsewhere (Go's receivers).
    #[serde(default)]
    parent_name: Option<String>,
    doc: Option<String>,
}

impl Store {
    /// The store in `dir` (the daemon's state folder), created private if missing.
    pub fn new(dir: &Path) -> Option<Store> {
        crate::paths::create_private_dir(dir)
            .map_err(|e| tracing::warn!("no tag index on disk at {}: {e}", dir.display()))
            .ok()?;
        Some(Store {
            path: dir.join(FILE_NAME),
            asked: Arc::default(),
            writing: Arc::default(),
        })
    }

    /// The entries saved by this build of coderd; none when there is no file or it is another
    /// build's or unreadable.
    pub fn load(&self) -> HashMap<PathBuf, Entry> {
        let Ok(bytes) = std::fs::read(&self.path) else {
            return HashMap::new();
        };
        let saved: Saved = match serde_json::from_slice(&bytes) {
            Ok(saved) => saved,
            Err(e) => {
                tracing::info!("tag index {} not read: {e}", self.path.display());
                return HashMap::new();
            }
        };
        if saved.build != build() {
            return HashMap::new();
        }
        saved.files.into_iter().filter_map(restore).collect()
    }

    /// Saves `entries` on a background thread (a later save supersedes this one).
    pub fn save(&self, entries: Vec<(PathBuf, Entry)>) {
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

fn write(path: &Path, mut entries: Vec<(PathBuf, Entry)>) -> std::io::Result<()> {
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let saved = Saved {
        build: build(),
        files: entries.into_iter().map(|(p, e)| save_one(p, e)).collect(),
    };
    let temporary = path.with_extension("json.tmp");
    std::fs::write(&temporary, serde_json::to_vec(&saved)?)?;
    std::fs::rename(&temporary, path)
}

fn save_one(path: PathBuf, entry: Entry) -> SavedFile {
    let tags = &entry.tags;
    SavedFile {
        path,
        rel: tags.rel.clone(),
        key: entry.key,
        hash: entry.hash.to_hex().to_string(),
        language: tags.language.to_owned(),
        generated: tags.generated,
        items: tags
            .tags
            .outline
            .items
            .iter()
            .map(|i| SavedItem {
                kind: i.kind,
                name: i.name.clone(),
                signature: i.signature.clone(),
                line: i.line,
                end_line: i.end_line,
                parent: i.parent,
                parent_name: i.parent_name.clone(),
                doc: i.doc.clone(),
            })
            .collect(),
        references: tags.tags.references.clone(),
    }
}

fn restore(saved: SavedFile) -> Option<(PathBuf, Entry)> {
    let language = languages::by_name(&saved.language)?;
    let hash = blake3::Hash::from_hex(&saved.hash).ok()?;
    let items = saved
        .items
        .into_iter()
        .map(|i| Item {
            kind: i.kind,
            name: i.name,
            signature: i.signature,
            line: i.line,
            end_line: i.end_line,
            parent: i.parent,
            parent_name: i.parent_name,
            doc: i.doc,
            // Byte ranges are only read while tagging, which is done.
            bytes: 0..0,
            name_bytes: 0..0,
            extent_line: i.line,
        })
        .collect();
    let tags = Tags {
        outline: Outline {
            items,
            parse_errors: 0,
        },
        references: saved.references,
    };
    let file = FileTags::new(saved.rel, &language.name, tags, saved.generated);
    Some((
        saved.path,
        Entry {
            key: saved.key,
            hash,
            tags: Arc::new(file),
        },
    ))
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
