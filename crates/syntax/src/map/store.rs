//! The tag index on disk: every tagged file's tags with its identity, times and content hash, in the
//! daemon's state folder, so that a restarted daemon's first map re-tags only what changed while it
//! was down. A file whose identity and times match is taken as it was saved; one whose times
//! changed but whose content hash matches (a checkout that rewrote it unchanged) is taken too.
//!
//! Two JSON Lines files, written on a background thread after a map changed the index: the base
//! (`tags.jsonl`: a header naming the build and the base's generation, then a line per tagged
//! file), written whole (temporary file, then rename), and a journal (`tags.journal.jsonl`: a
//! header naming the build and the base it follows, then a line per file changed or removed
//! since), appended to. A save appends only what changed since the last one while the journal is
//! under a quarter of the base, and otherwise writes a new base and drops the journal: at 200,000
//! files the base is about 100 MB, and rewriting it after every edit cost about 0.4 s of CPU per
//! edit. A journal that follows another base (a crash between a new base and the journal's
//! removal) is ignored, as is a line that does not parse (a torn last append): the index is a
//! cache, each entry checked against its file before use, so what is lost is only re-tagged.
//! Files written by another build of coderd are ignored (its outlines may differ). They are read
//! on a background thread from the daemon's start, the lines parsed on all cores, so that a
//! restarted daemon's first map costs about what a warm daemon's does.

use super::index::{Entry, FileKey, FileTags, Shards};
use crate::items::{Item, Outline};
use crate::tags::Tags;
use crate::{languages, Kind};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

const FILE_NAME: &str = "tags.jsonl";
const JOURNAL_NAME: &str = "tags.journal.jsonl";
/// The journal is appended to while it stays under this share of the base's size.
const JOURNAL_SHARE: u64 = 4;
/// How long a save waits for a later one to supersede it (and for the map that asked for it to be
/// ranked and answered, so that the save does not compete with it for the cores).
const SETTLE: std::time::Duration = std::time::Duration::from_secs(1);

/// Where the index is saved, and the saves in flight.
pub struct Store {
    files: Arc<Files>,
    /// The number of the latest save asked for; a save that finds a later one asked skips its write.
    asked: Arc<AtomicU64>,
    /// What the files hold (none: not known, the next save writes a new base); held by the one
    /// save writing at a time.
    written: Arc<Mutex<Option<Written>>>,
    /// The saved entries being read since the daemon started; taken by the first `load`.
    reading: Mutex<Option<JoinHandle<Loaded>>>,
}

/// Where the base and the journal are.
struct Files {
    base: PathBuf,
    journal: PathBuf,
}

/// What the files on disk hold: the entries as last written (base and journal together), the
/// base's generation, and both files' sizes.
struct Written {
    entries: Shards,
    disk: Disk,
}

#[derive(Clone, Copy)]
struct Disk {
    generation: u64,
    base_bytes: u64,
    journal_bytes: u64,
}

/// What reading the files gave.
struct Loaded {
    entries: Shards,
    /// None when there was no base of this build.
    disk: Option<Disk>,
}

/// The base's first line.
#[derive(Serialize, Deserialize)]
struct Header {
    build: String,
    /// Which base this is: a journal names the one it follows.
    #[serde(default)]
    generation: u64,
}

/// The journal's first line.
#[derive(Serialize, Deserialize)]
struct JournalHeader {
    build: String,
    base: u64,
}

/// A journal line: a file's new entry, or its removal.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum Change {
    Removed { removed: PathBuf },
    Saved(Box<SavedFile>),
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
        let files = Arc::new(Files {
            base: dir.join(FILE_NAME),
            journal: dir.join(JOURNAL_NAME),
        });
        let reading = files.base.exists().then(|| {
            let files = files.clone();
            std::thread::spawn(move || read(&files))
        });
        Some(Store {
            files,
            asked: Arc::default(),
            written: Arc::default(),
            reading: Mutex::new(reading),
        })
    }

    /// The entries saved by this build of coderd (waiting for the read started with the store);
    /// none when there is no file or it is another build's or unreadable, and none after the first
    /// call.
    pub fn load(&self) -> Shards {
        let reading = self
            .reading
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        let Some(loaded) = reading.and_then(|handle| handle.join().ok()) else {
            return Shards::default();
        };
        if let Some(disk) = loaded.disk {
            let entries = loaded.entries.clone();
            *lock(&self.written) = Some(Written { entries, disk });
        }
        loaded.entries
    }

    /// Saves `entries` on a background thread (a later save supersedes this one).
    pub fn save(&self, entries: Shards) {
        let number = self.asked.fetch_add(1, Ordering::SeqCst) + 1;
        let (asked, written, files) =
            (self.asked.clone(), self.written.clone(), self.files.clone());
        std::thread::spawn(move || {
            // Edits come in bursts, each followed by a map: only the last of a burst is written.
            std::thread::sleep(SETTLE);
            if asked.load(Ordering::SeqCst) != number {
                return;
            }
            let mut written = lock(&written);
            if asked.load(Ordering::SeqCst) != number {
                return;
            }
            // On an error nothing is known of the files: the next save writes a new base.
            *written = write(&files, written.take(), entries)
                .map_err(|e| tracing::warn!("tag index {} not saved: {e}", files.base.display()))
                .ok();
        });
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// The entries the base and its journal hold, each line parsed on its own (on all cores).
fn read(files: &Files) -> Loaded {
    let mut entries = Shards::default();
    let Some((generation, base_bytes)) = read_base(&files.base, &mut entries) else {
        return Loaded {
            entries,
            disk: None,
        };
    };
    let journal_bytes = read_journal(&files.journal, generation, &mut entries);
    let disk = Disk {
        generation,
        base_bytes,
        journal_bytes,
    };
    Loaded {
        entries,
        disk: Some(disk),
    }
}

/// Reads the base into `entries`: its generation and size, none when it is not this build's.
fn read_base(path: &Path, entries: &mut Shards) -> Option<(u64, u64)> {
    let bytes = std::fs::read(path).ok()?;
    let mut lines = bytes.split(|&b| b == b'\n');
    let header = match serde_json::from_slice::<Header>(lines.next()?) {
        Ok(header) if header.build == build() => header,
        Ok(_) => return None,
        Err(e) => {
            tracing::info!("tag index {} not read: {e}", path.display());
            return None;
        }
    };
    let lines: Vec<&[u8]> = lines.collect();
    let restored: Vec<(PathBuf, Entry)> = lines
        .par_iter()
        .filter_map(|line| serde_json::from_slice::<SavedFile>(line).ok())
        .filter_map(restore)
        .collect();
    for (path, entry) in restored {
        entries.insert(path, entry);
    }
    Some((header.generation, bytes.len() as u64))
}

/// Applies the journal that follows base `generation` to `entries`, in order: its size (0 when
/// there is none, or it follows another base or build).
fn read_journal(path: &Path, generation: u64, entries: &mut Shards) -> u64 {
    let Ok(bytes) = std::fs::read(path) else {
        return 0;
    };
    let mut lines = bytes.split(|&b| b == b'\n');
    let header = lines.next().map(serde_json::from_slice::<JournalHeader>);
    if !matches!(header, Some(Ok(h)) if h.build == build() && h.base == generation) {
        return 0;
    }
    let lines: Vec<&[u8]> = lines.filter(|line| !line.is_empty()).collect();
    let changes: Vec<Option<Change>> = lines
        .par_iter()
        .map(|line| serde_json::from_slice::<Change>(line).ok())
        .collect();
    for change in changes.into_iter().flatten() {
        match change {
            Change::Removed { removed } => entries.remove(&removed),
            Change::Saved(saved) => {
                let path = saved.path.clone();
                match restore(*saved) {
                    Some((path, entry)) => entries.insert(path, entry),
                    // Not this build's: not known, so not held.
                    None => entries.remove(&path),
                }
            }
        }
    }
    bytes.len() as u64
}

/// Writes `now` after `before` (what the files held): the changes appended to the journal while
/// it stays small, otherwise a new base.
fn write(files: &Files, before: Option<Written>, now: Shards) -> std::io::Result<Written> {
    if let Some(before) = before {
        let lines = changes(&before.entries, &now)?;
        let disk = before.disk;
        if (disk.journal_bytes + lines.len() as u64) * JOURNAL_SHARE <= disk.base_bytes {
            let journal_bytes = append(&files.journal, disk, &lines)?;
            let disk = Disk {
                journal_bytes,
                ..disk
            };
            return Ok(Written { entries: now, disk });
        }
    }
    write_base(files, now)
}

/// The journal lines that take `before` to `now`: only the parts that are not the same `Arc`
/// are compared.
fn changes(before: &Shards, now: &Shards) -> serde_json::Result<Vec<u8>> {
    let mut out = Vec::new();
    for (old, new) in before.parts().iter().zip(now.parts()) {
        if Arc::ptr_eq(old, new) {
            continue;
        }
        for (path, entry) in new.iter() {
            if !old.get(path).is_some_and(|held| same(held, entry)) {
                serde_json::to_writer(&mut out, &save_one(path, entry))?;
                out.push(b'\n');
            }
        }
        for path in old.keys().filter(|path| !new.contains_key(*path)) {
            let removed = path.clone();
            serde_json::to_writer(&mut out, &Change::Removed { removed })?;
            out.push(b'\n');
        }
    }
    Ok(out)
}

fn same(a: &Entry, b: &Entry) -> bool {
    a.key == b.key && a.hash == b.hash && Arc::ptr_eq(&a.tags, &b.tags)
}

/// Appends `lines` to the journal (started with its header when `disk` has none): its new size.
fn append(path: &Path, disk: Disk, lines: &[u8]) -> std::io::Result<u64> {
    use std::io::Write;
    if lines.is_empty() {
        return Ok(disk.journal_bytes);
    }
    let mut out = Vec::new();
    if disk.journal_bytes == 0 {
        let header = JournalHeader {
            build: build(),
            base: disk.generation,
        };
        serde_json::to_writer(&mut out, &header)?;
        out.push(b'\n');
    }
    out.extend_from_slice(lines);
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .truncate(false)
        .open(path)?;
    if disk.journal_bytes == 0 {
        // A journal of an earlier base may be left (it was not removed): start over.
        file.set_len(0)?;
    }
    file.write_all(&out)?;
    Ok(disk.journal_bytes + out.len() as u64)
}

/// Writes `entries` as a new base, and removes the journal that followed the last one.
fn write_base(files: &Files, entries: Shards) -> std::io::Result<Written> {
    let mut sorted: Vec<(&PathBuf, &Entry)> = entries.iter().collect();
    // By bytes, not by path components (a third of a save's time at 200,000 files): any fixed
    // order keeps the file the same for the same index.
    sorted.sort_unstable_by(|a, b| a.0.as_os_str().cmp(b.0.as_os_str()));
    let generation = new_generation();
    let mut out = serde_json::to_vec(&Header {
        build: build(),
        generation,
    })?;
    for (path, entry) in sorted {
        out.push(b'\n');
        serde_json::to_writer(&mut out, &save_one(path, entry))?;
    }
    let temporary = files.base.with_extension("jsonl.tmp");
    std::fs::write(&temporary, &out)?;
    std::fs::rename(&temporary, &files.base)?;
    // One left behind names another base and is not read.
    let _ = std::fs::remove_file(&files.journal);
    let disk = Disk {
        generation,
        base_bytes: out.len() as u64,
        journal_bytes: 0,
    };
    Ok(Written { entries, disk })
}

/// A number no earlier base of this state folder is likely to have had.
fn new_generation() -> u64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    (now.as_nanos() as u64) ^ (u64::from(std::process::id()) << 32)
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

    /// An entry for `path` whose one function is named `name`, at version `version`.
    fn entry(path: &str, name: &str, version: u64) -> (PathBuf, Entry) {
        let mut file = saved(&[None]);
        file.path = path.into();
        file.rel = path.trim_start_matches("/w/").into();
        file.key.2 = version;
        file.items[0].1 = name.into();
        restore(file).expect("a well-formed entry")
    }

    fn shards(entries: &[(&str, &str, u64)]) -> Shards {
        let mut shards = Shards::default();
        for &(path, name, version) in entries {
            let (path, entry) = entry(path, name, version);
            shards.insert(path, entry);
        }
        shards
    }

    /// Each entry's path, version and item names, sorted: what a read must give back.
    fn listed(shards: &Shards) -> Vec<(PathBuf, u64, Vec<String>)> {
        let mut listed: Vec<_> = shards
            .iter()
            .map(|(path, entry)| {
                let items = &entry.tags.tags.outline.items;
                let names = items.iter().map(|i| i.name.clone()).collect();
                (path.clone(), entry.key.2, names)
            })
            .collect();
        listed.sort();
        listed
    }

    fn files(dir: &Path) -> Files {
        Files {
            base: dir.join(FILE_NAME),
            journal: dir.join(JOURNAL_NAME),
        }
    }

    fn journal_lines(files: &Files) -> usize {
        let text = std::fs::read_to_string(&files.journal).unwrap_or_default();
        text.lines().count()
    }

    #[test]
    fn a_save_appends_only_what_changed_and_a_read_gives_back_the_index_as_saved() {
        let dir = tempfile::tempdir().unwrap();
        let files = files(dir.path());
        let many: Vec<(String, String)> = (0..200)
            .map(|i| (format!("/w/f{i}.rs"), format!("f{i}")))
            .collect();
        let first: Vec<(&str, &str, u64)> = many
            .iter()
            .map(|(p, n)| (p.as_str(), n.as_str(), 1))
            .collect();
        let mut now = shards(&first);
        let written = write(&files, None, now.clone()).unwrap();
        let base = std::fs::read(&files.base).unwrap();
        assert_eq!(
            journal_lines(&files),
            0,
            "a first save writes the base alone"
        );

        // One file changed, one removed, one added: three lines after the journal's header.
        let (path, changed) = entry("/w/f7.rs", "g7", 2);
        now.insert(path, changed);
        now.remove(Path::new("/w/f9.rs"));
        let (path, added) = entry("/w/new.rs", "n", 1);
        now.insert(path, added);
        let written = write(&files, Some(written), now.clone()).unwrap();
        assert_eq!(
            std::fs::read(&files.base).unwrap(),
            base,
            "the base is not rewritten"
        );
        assert_eq!(journal_lines(&files), 1 + 3);
        let read_back = read(&files);
        assert_eq!(listed(&read_back.entries), listed(&now));
        let disk = read_back.disk.expect("this build's files");
        assert_eq!(disk.generation, written.disk.generation);
        assert_eq!(disk.journal_bytes, written.disk.journal_bytes);

        // Nothing changed: nothing appended.
        let again = write(&files, Some(written), now.clone()).unwrap();
        assert_eq!(journal_lines(&files), 1 + 3);

        // A later change to the same file supersedes its earlier line.
        let (path, changed) = entry("/w/f7.rs", "h7", 3);
        now.insert(path, changed);
        write(&files, Some(again), now.clone()).unwrap();
        assert_eq!(journal_lines(&files), 1 + 4);
        assert_eq!(listed(&read(&files).entries), listed(&now));
    }

    #[test]
    fn a_journal_past_its_share_gives_way_to_a_new_base_and_one_of_another_base_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let files = files(dir.path());
        let mut now = shards(&[("/w/a.rs", "a", 1), ("/w/b.rs", "b", 1)]);
        let written = write(&files, None, now.clone()).unwrap();
        // Changing half of a two-file index is past a quarter of the base: a new base.
        let (path, changed) = entry("/w/a.rs", "a2", 2);
        now.insert(path, changed);
        let rewritten = write(&files, Some(written), now.clone()).unwrap();
        assert_ne!(rewritten.disk.generation, 0);
        assert!(!files.journal.exists(), "a new base drops the journal");
        assert_eq!(listed(&read(&files).entries), listed(&now));

        // A journal naming another base (left by a crash before its removal) is ignored.
        let header = JournalHeader {
            build: build(),
            base: rewritten.disk.generation + 1,
        };
        let (path, stale) = entry("/w/a.rs", "stale", 9);
        let line = serde_json::to_string(&save_one(&path, &stale)).unwrap();
        let text = format!("{}\n{line}\n", serde_json::to_string(&header).unwrap());
        std::fs::write(&files.journal, text).unwrap();
        let read_back = read(&files);
        assert_eq!(listed(&read_back.entries), listed(&now));
        assert_eq!(read_back.disk.map(|d| d.journal_bytes), Some(0));
    }

    #[test]
    fn a_torn_last_line_of_the_journal_loses_only_its_own_change() {
        let dir = tempfile::tempdir().unwrap();
        let files = files(dir.path());
        let paths: Vec<String> = (0..40).map(|i| format!("/w/f{i}.rs")).collect();
        let first: Vec<(&str, &str, u64)> = paths.iter().map(|p| (p.as_str(), "f", 1)).collect();
        let mut now = shards(&first);
        let written = write(&files, None, now.clone()).unwrap();
        let (path, changed) = entry("/w/f1.rs", "g", 2);
        now.insert(path, changed);
        write(&files, Some(written), now.clone()).unwrap();
        let mut journal = std::fs::read(&files.journal).unwrap();
        let (path, torn) = entry("/w/f2.rs", "torn", 2);
        let line = serde_json::to_vec(&save_one(&path, &torn)).unwrap();
        journal.extend_from_slice(&line[..line.len() / 2]);
        std::fs::write(&files.journal, journal).unwrap();
        assert_eq!(listed(&read(&files).entries), listed(&now));
    }
}
