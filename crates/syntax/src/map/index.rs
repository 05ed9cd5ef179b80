//! The tag index: every source file the map has seen, outlined and tagged, cached per file by its
//! identity, size and times (the same test the documents store uses), so a warm map re-reads
//! nothing and an edit re-tags only the file it touched. Files are tagged on all cores. Which
//! files there are, and which changed, is the tree's business (`tree`).

use super::exclude;
use super::rank::{family, name_id};
use crate::languages;
use crate::tags::{tag_lexed, Tags};
use coderd_core::jail::{Jail, Resolved};
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Files larger than this are left out of the map (generated code, data).
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// One file's tags as the map sees them.
pub struct FileTags {
    /// Root-relative path (what the map prints, and what `outline` accepts).
    pub rel: String,
    pub language: &'static str,
    pub tags: Tags,
    /// The ranking's ids (`rank::name_id`) of each outline item's name, in item order.
    pub item_ids: Vec<u64>,
    /// What the ranking's scoring reads of each outline item, in item order: computed once per
    /// file version, so that scoring a whole tree reads these instead of every item's strings.
    pub item_facts: Vec<ItemFacts>,
    /// The ranking's ids of the referenced names, with their counts, in `tags.references` order.
    /// Computed once per file version on the tagging threads, so that ranking a whole tree reads
    /// integers laid out together instead of chasing thousands of scattered strings.
    pub reference_ids: Vec<(u64, u32)>,
    /// A hash of what the ranking reads from this file (its items' kinds, names and nesting, its
    /// references): an edit that changes none of it (a comment, a body's literals, lines moved)
    /// keeps the last ranking.
    pub rank_key: u64,
    /// Whether the file says it is generated (`// Code generated ... DO NOT EDIT.`, `@generated`)
    /// or is named like generated code (`*.pb.go`, `*_pb2.py`): the map lists none of its items.
    pub generated: bool,
    /// The test modules a Rust file declares out of line (`exclude::rust_test_modules`).
    pub test_modules: Vec<String>,
    /// The ranking's id of the name other files use for this file's module (`steer::module_name`).
    pub module_id: Option<u64>,
    /// What the file says it imports, in its language's words (`imports::imports`); `modules`
    /// resolves them to files.
    pub imports: Vec<String>,
}

/// What the ranking's scoring reads of one outline item (`rank::Scoring::score`, `tail::listed`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ItemFacts {
    /// Its kind's weight (`steer::kind_weight`).
    pub kind_weight: f64,
    /// How many items it is nested in.
    pub depth: u32,
    /// Whether its kind counts as a definition in the graph (`graph::is_symbol`).
    pub symbol: bool,
    /// Whether it is inside a module named `test` or `tests` (Rust's `mod tests`).
    pub in_tests: bool,
}

impl ItemFacts {
    /// Every item's facts, in item order: depths and test modules found from the top down
    /// (`Outline::down_from_roots`), not by climbing each item's parents, which is quadratic in a
    /// file nesting a hundred thousand deep.
    fn of(outline: &crate::Outline) -> Vec<ItemFacts> {
        let depths = outline.depths();
        let in_tests = super::tail::test_items(outline);
        let facts = outline.items.iter().enumerate().map(|(i, item)| ItemFacts {
            kind_weight: super::steer::kind_weight(item.kind, &item.name),
            depth: depths[i] as u32,
            symbol: super::graph::is_symbol(item.kind),
            in_tests: in_tests.get(i) == Some(&true),
        });
        facts.collect()
    }
}

/// A file's identity, size and times: the same test the documents store uses.
pub type FileKey = (u64, u64, u64, i64, i64, i64, i64);

pub fn key_of(meta: &std::fs::Metadata) -> FileKey {
    (
        meta.dev(),
        meta.ino(),
        meta.size(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec(),
    )
}

/// One file in the index: its tags, for the version with this key and content hash.
#[derive(Clone)]
pub struct Entry {
    pub key: FileKey,
    pub hash: blake3::Hash,
    pub tags: Arc<FileTags>,
}

/// One source file a walk found: where, its language, its identity when listed, whether it is test
/// code (`exclude::is_test_path`: a question without tests leaves it out), and its tags once the
/// index has them (`None`: not readable).
pub struct Source {
    pub resolved: Resolved,
    pub language: &'static languages::Language,
    pub key: FileKey,
    pub test: bool,
    pub tags: Option<Arc<FileTags>>,
}

/// The files under one folder, sorted by path, and a fingerprint of what the ranking reads.
#[derive(Clone)]
pub struct Snapshot {
    pub files: Arc<Vec<Arc<FileTags>>>,
    /// The sum of the files' `print`s: a change to one file changes it in O(1).
    pub fingerprint: u64,
    /// Files (re)tagged by this call.
    pub tagged: usize,
    /// Why the tree is not watched, when it is not: then every map walks and stats all of it.
    pub walked_because: Option<String>,
    /// The test modules the files declare out of line, whose files are left out (`None`: tests
    /// are listed).
    test_modules: Option<Arc<HashSet<String>>>,
    /// The files replaced since the list was made: what the graph of an earlier version needs to
    /// be patched to this one.
    pub edits: Edits,
}

/// The files replaced in a list of files, in place, since it was made: what a graph made of an
/// earlier version of the list is patched with (`Graph::patched`). The graph keeps a version
/// number, not that version's list: a list held twice would be copied by every change, and at
/// 200,000 files the copy (and its later drop) touches every file's counter.
#[derive(Clone)]
pub struct Edits {
    /// Which list: one made anew, or whose paths changed, starts another lineage.
    pub lineage: u64,
    /// How many replacements were dropped from the log's front: no graph needs them any more.
    base: usize,
    /// Each file replaced since, oldest first: its index and its tags before.
    replaced: Arc<Vec<(usize, Arc<FileTags>)>>,
    /// The oldest version a kept graph was made of (`keep`), shared by the lineage's copies: the
    /// replacements before it are dropped by the next one.
    kept: Arc<std::sync::atomic::AtomicUsize>,
}

/// Past this many replacements since the last graph kept, or this much of the tags they hold
/// (items and references), a list starts a new lineage (its graph is built anew once): the old
/// tags of a big file edited over and over are not held on to.
const MOST_EDITS: usize = 256;
const MOST_EDITED_TAGS: usize = 1 << 20;

impl Edits {
    fn new() -> Edits {
        static LINEAGES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Edits {
            lineage: LINEAGES.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            base: 0,
            replaced: Arc::default(),
            kept: Arc::default(),
        }
    }

    /// How many replacements the list has seen: its version within its lineage.
    pub fn version(&self) -> usize {
        self.base + self.replaced.len()
    }

    /// Notes that a graph of version `version` is kept: no graph needs the replacements before.
    pub fn keep(&self, version: usize) {
        self.kept
            .fetch_max(version, std::sync::atomic::Ordering::Relaxed);
    }

    fn push(&mut self, at: usize, before: Arc<FileTags>) {
        let kept = self.kept.load(std::sync::atomic::Ordering::Relaxed);
        let log = Arc::make_mut(&mut self.replaced);
        if kept > self.base {
            log.drain(..(kept - self.base).min(log.len()));
            self.base = kept;
        }
        log.push((at, before));
        let size = |t: &FileTags| t.tags.outline.items.len() + t.reference_ids.len();
        let held: usize = log.iter().map(|(_, t)| size(t)).sum();
        if log.len() > MOST_EDITS || held > MOST_EDITED_TAGS {
            *self = Edits::new();
        }
    }

    /// The files replaced since version `version` of lineage `lineage`, by index, each with its
    /// tags in that version; `None` when that is no earlier version of this list (or one whose
    /// replacements were dropped).
    pub fn since(&self, lineage: u64, version: usize) -> Option<Vec<(usize, Arc<FileTags>)>> {
        if lineage != self.lineage || version < self.base || version > self.version() {
            return None;
        }
        let mut since = self.replaced[version - self.base..].to_vec();
        // A stable sort: a file replaced twice keeps its tags of the version asked about.
        since.sort_by_key(|e| e.0);
        since.dedup_by_key(|e| e.0);
        Some(since)
    }

    /// These edits continued by the change from `old` to `files`, when both list the same paths
    /// and few files differ; else a new lineage.
    fn after(self, old: &[Arc<FileTags>], files: &[Arc<FileTags>]) -> Edits {
        match replaced_between(old, files, MOST_REPLACED) {
            Some(replaced) => replaced
                .into_iter()
                .fold(self, |edits, (at, before)| edits.pushed(at, before)),
            None => Edits::new(),
        }
    }

    fn pushed(mut self, at: usize, before: Arc<FileTags>) -> Edits {
        self.push(at, before);
        self
    }
}

/// Past this many files replaced at once, a list made anew starts a new lineage: the graph of a
/// version that far behind is built anew (`Graph::patched` takes few).
const MOST_REPLACED: usize = 64;

/// The files of `files` that replaced those of `old` at the same paths (by index, with the tags
/// before), when both list the same paths and at most `most` differ; else `None`.
pub fn replaced_between(
    old: &[Arc<FileTags>],
    files: &[Arc<FileTags>],
    most: usize,
) -> Option<Vec<(usize, Arc<FileTags>)>> {
    if old.len() != files.len() {
        return None;
    }
    let mut replaced = Vec::new();
    for (f, (a, b)) in old.iter().zip(files).enumerate() {
        if Arc::ptr_eq(a, b) {
            continue;
        }
        if a.rel != b.rel || replaced.len() == most {
            return None;
        }
        replaced.push((f, a.clone()));
    }
    Some(replaced)
}

/// What changed at one root-relative path: the tags listed there before and now (`None`: none).
pub type Change = (Option<Arc<FileTags>>, Option<Arc<FileTags>>);

impl Snapshot {
    /// The snapshot of these files (`of`), continuing the edits of `previous`, the last snapshot
    /// of its kind, when it listed the same paths.
    pub fn after<'a>(
        previous: Option<Snapshot>,
        sources: impl Iterator<Item = &'a Source>,
        include_tests: bool,
    ) -> Snapshot {
        let mut snapshot = Snapshot::of(sources, include_tests);
        if let Some(previous) = previous {
            snapshot.edits = previous.edits.after(&previous.files, &snapshot.files);
        }
        snapshot
    }

    /// The snapshot of these files, given in path order (the test files among them left out
    /// unless `include_tests`).
    pub fn of<'a>(sources: impl Iterator<Item = &'a Source>, include_tests: bool) -> Snapshot {
        let listed = sources.filter(|s| include_tests || !s.test);
        let mut files: Vec<Arc<FileTags>> = listed.filter_map(|s| s.tags.clone()).collect();
        let test_modules = (!include_tests).then(|| Arc::new(declared_test_modules(&files)));
        if let Some(modules) = &test_modules {
            files.retain(|f| !in_test_modules(f, modules));
        }
        let fingerprint = files
            .iter()
            .fold(0, |sum: u64, f| sum.wrapping_add(print(f)));
        Snapshot {
            files: Arc::new(files),
            fingerprint,
            tagged: 0,
            walked_because: None,
            test_modules,
            edits: Edits::new(),
        }
    }

    /// Whether the snapshot lists the test files (a question with `include_tests`).
    pub fn with_tests(&self) -> bool {
        self.test_modules.is_none()
    }

    /// Applies the changes at some paths in place (copying the list of files only if another
    /// snapshot still shares it); `false`, changing nothing, when a changed file declares test
    /// modules, which can leave out other files: then only a whole snapshot (`of`) tells.
    pub fn change(&mut self, changes: &std::collections::BTreeMap<String, Change>) -> bool {
        let declares =
            |t: &Option<Arc<FileTags>>| t.as_ref().is_some_and(|t| !t.test_modules.is_empty());
        if changes
            .values()
            .any(|(old, new)| declares(old) || declares(new))
        {
            return false;
        }
        let files = Arc::make_mut(&mut self.files);
        for (rel, (_, new)) in changes {
            let new = new.clone().filter(|f| {
                let modules = self.test_modules.as_ref();
                !modules.is_some_and(|m| in_test_modules(f, m))
            });
            let fingerprint = &mut self.fingerprint;
            match (files.binary_search_by(|f| f.rel.as_str().cmp(rel)), new) {
                (Ok(at), Some(new)) => {
                    *fingerprint = fingerprint
                        .wrapping_sub(print(&files[at]))
                        .wrapping_add(print(&new));
                    let before = std::mem::replace(&mut files[at], new);
                    self.edits.push(at, before);
                }
                (Ok(at), None) => {
                    *fingerprint = fingerprint.wrapping_sub(print(&files.remove(at)));
                    self.edits = Edits::new();
                }
                (Err(at), Some(new)) => {
                    *fingerprint = fingerprint.wrapping_add(print(&new));
                    files.insert(at, new);
                    self.edits = Edits::new();
                }
                (Err(_), None) => {}
            }
        }
        true
    }
}

/// What one file adds to its snapshot's fingerprint: its path and what the ranking reads of it.
fn print(file: &FileTags) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    (&file.rel, file.rank_key).hash(&mut hasher);
    hasher.finish()
}

/// The index: every tagged file by its absolute path, loaded from the store (when the daemon
/// has one) before the first snapshot and saved to it after a snapshot that changed it.
#[derive(Default)]
pub struct Index {
    files: Mutex<Shards>,
    store: Option<super::store::Store>,
    loaded: std::sync::OnceLock<()>,
    /// The tags left after the last `forget_beyond` that forgot (0 once under the limit again):
    /// what stays over the limit then (files no listing holds a version of) is not scanned for
    /// again until the index grows past it.
    left_over: AtomicU64,
}

/// How many parts the index is kept in.
const SHARDS: usize = 256;

/// The index's entries in parts, each behind its own `Arc`: the background save holds the parts
/// as they were, and a change copies only the parts it touches (a few hundred entries each)
/// rather than the whole index.
#[derive(Clone)]
pub struct Shards {
    parts: Vec<Arc<HashMap<PathBuf, Entry>>>,
    /// The tags the entries hold (`FileTags::tag_count`), kept with every change.
    tags: u64,
}

impl Default for Shards {
    fn default() -> Shards {
        Shards {
            parts: vec![Arc::default(); SHARDS],
            tags: 0,
        }
    }
}

impl Shards {
    fn at(path: &Path) -> usize {
        use std::hash::BuildHasher;
        foldhash::fast::FixedState::default().hash_one(path) as usize % SHARDS
    }

    pub fn get(&self, path: &Path) -> Option<&Entry> {
        self.parts[Shards::at(path)].get(path)
    }

    pub fn insert(&mut self, path: PathBuf, entry: Entry) {
        self.tags += entry.tags.tag_count();
        let shard = Arc::make_mut(&mut self.parts[Shards::at(&path)]);
        if let Some(old) = shard.insert(path, entry) {
            self.tags -= old.tags.tag_count();
        }
    }

    pub(super) fn remove(&mut self, path: &Path) {
        let shard = &mut self.parts[Shards::at(path)];
        if shard.contains_key(path) {
            let old = Arc::make_mut(shard).remove(path);
            self.tags -= old.map_or(0, |old| old.tags.tag_count());
        }
    }

    /// Keeps the entries `keep` says to, copying only the parts that lose one.
    fn retain(&mut self, keep: impl Fn(&Path) -> bool) {
        let mut lost = 0;
        for shard in &mut self.parts {
            if shard.keys().any(|p| !keep(p)) {
                Arc::make_mut(shard).retain(|p, entry| {
                    let kept = keep(p);
                    lost += (!kept as u64) * entry.tags.tag_count();
                    kept
                });
            }
        }
        self.tags -= lost;
    }

    /// The parts, for comparing two versions of the index part by part (`store`).
    pub(super) fn parts(&self) -> &[Arc<HashMap<PathBuf, Entry>>] {
        &self.parts
    }

    pub fn len(&self) -> usize {
        self.parts.iter().map(|s| s.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The tags the entries hold.
    pub fn tags(&self) -> u64 {
        self.tags
    }

    /// Every entry, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&PathBuf, &Entry)> {
        self.parts.iter().flat_map(|s| s.iter())
    }
}

/// Files whose tags pass the room a question has for them (`map_max_tags`): none were kept.
#[derive(Debug)]
pub struct OverTags {
    /// How many of the tags counted were test files'.
    pub tests: u64,
}

/// What tagging one stale file gave: new tags, or the held ones under a new key (same content).
enum Fresh {
    Tagged(Entry),
    Rekeyed(Entry),
}

impl Index {
    /// An index kept on disk in `dir` (the daemon's state folder); in memory only without one.
    pub fn with_store(dir: Option<&Path>) -> Index {
        Index {
            store: dir.and_then(super::store::Store::new),
            ..Index::default()
        }
    }

    /// Brings the tags of `sources` up to date: a file under the identity held keeps its tags, any
    /// other is read (and tagged again if its content changed); those not readable get none.
    /// The index forgets `gone`, and with `under` every file below it that `sources` does not
    /// list (a whole walk's result). Without `tests`, a test file (`Source::test`) gets only the
    /// tags held under its identity: none is read, so that a question without tests costs what it
    /// did before test files were listed. Returns how many files were tagged; `OverTags` once
    /// `sources` hold more than `room` tags (`FileTags::tag_count`): tagging stops there, so what
    /// it holds at once is bounded, and the index is left as it was.
    pub fn update(
        &self,
        jail: &Jail,
        sources: &mut [Source],
        gone: &[PathBuf],
        under: Option<&Path>,
        tests: bool,
        room: u64,
    ) -> Result<usize, OverTags> {
        self.load();
        let mut stale = Vec::new();
        let (mut held_tags, mut test_tags) = (0, 0);
        {
            let files = self.lock();
            for (i, source) in sources.iter_mut().enumerate() {
                match files.get(&source.resolved.abs) {
                    Some(held) if held.key == source.key => {
                        held_tags += held.tags.tag_count();
                        test_tags += source.test as u64 * held.tags.tag_count();
                        source.tags = Some(held.tags.clone());
                    }
                    _ if source.test && !tests => source.tags = None,
                    held => stale.push((i, held.cloned())),
                }
            }
        }
        let used = AtomicU64::new(held_tags);
        let used_by_tests = AtomicU64::new(test_tags);
        let projects = crate::dialect::Projects::default();
        let fresh: Vec<(usize, Option<Fresh>)> = stale
            .par_iter()
            .map(|(i, held)| {
                if used.load(Ordering::Relaxed) > room {
                    return (*i, None); // over already: not worth reading
                }
                let s = &sources[*i];
                let fresh = tag_file(
                    jail,
                    &projects,
                    &s.resolved,
                    s.language,
                    s.key,
                    held.as_ref(),
                );
                if let Some(Fresh::Tagged(entry) | Fresh::Rekeyed(entry)) = &fresh {
                    used.fetch_add(entry.tags.tag_count(), Ordering::Relaxed);
                    if s.test {
                        used_by_tests.fetch_add(entry.tags.tag_count(), Ordering::Relaxed);
                    }
                }
                (*i, fresh)
            })
            .collect();
        if used.into_inner() > room {
            let tests = used_by_tests.into_inner();
            return Err(OverTags { tests });
        }
        let tagged = fresh
            .iter()
            .filter(|(_, f)| matches!(f, Some(Fresh::Tagged(_))))
            .count();
        let mut files = self.lock();
        let before = files.len();
        for path in gone {
            files.remove(path);
        }
        if let Some(under) = under {
            let listed: HashSet<&Path> = sources.iter().map(|s| s.resolved.abs.as_path()).collect();
            files.retain(|path| !path.starts_with(under) || listed.contains(path));
        }
        let changed = !fresh.is_empty() || files.len() != before;
        for (i, fresh) in fresh {
            let source = &mut sources[i];
            source.tags = None;
            if let Some(Fresh::Tagged(entry) | Fresh::Rekeyed(entry)) = fresh {
                source.tags = Some(entry.tags.clone());
                files.insert(source.resolved.abs.clone(), entry);
            }
        }
        if let (true, Some(store)) = (changed, &self.store) {
            store.save(files.clone());
        }
        Ok(tagged)
    }

    /// Past `max_tags`, forgets the tags of every file below none of `dirs` (the folders whose
    /// listings are kept): so the index holds what was tagged for other folders only while that
    /// fits, and what it keeps at once is bounded by the limit and the listings'.
    pub fn forget_beyond(&self, dirs: &[&Path], max_tags: u64) {
        let mut files = self.lock();
        if files.tags() <= max_tags {
            self.left_over.store(0, Ordering::Relaxed);
            return;
        }
        if files.tags() <= self.left_over.load(Ordering::Relaxed) {
            return;
        }
        let before = files.len();
        files.retain(|path| dirs.iter().any(|dir| path.starts_with(dir)));
        self.left_over.store(files.tags(), Ordering::Relaxed);
        if let (true, Some(store)) = (files.len() != before, &self.store) {
            store.save(files.clone());
        }
    }

    /// Fills the index from the store, once.
    fn load(&self) {
        self.loaded.get_or_init(|| {
            if let Some(store) = &self.store {
                *self.lock() = store.load();
            }
        });
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Shards> {
        self.files.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The test modules the files declare out of line (Rust's `#[cfg(test)] mod tests;`), whose files
/// no folder or file name marks.
fn declared_test_modules(files: &[Arc<FileTags>]) -> HashSet<String> {
    let declared = files.iter().flat_map(|f| f.test_modules.iter().cloned());
    declared.collect()
}

/// Whether a file is one of those test modules.
fn in_test_modules(file: &FileTags, modules: &HashSet<String>) -> bool {
    !modules.is_empty() && file.language == "rust" && exclude::in_test_module(&file.rel, modules)
}

/// Reads a stale file: the held tags under its new key when its content is unchanged, else its
/// new tags.
fn tag_file(
    jail: &Jail,
    projects: &crate::dialect::Projects,
    resolved: &Resolved,
    language: &'static languages::Language,
    key: FileKey,
    held: Option<&Entry>,
) -> Option<Fresh> {
    let (mut file, meta) = jail.open_walked_file(resolved).ok()?;
    let mut source = Vec::with_capacity(meta.len() as usize);
    file.read_to_end(&mut source).ok()?;
    let hash = blake3::hash(&source);
    if let Some(held) = held.filter(|h| h.hash == hash) {
        return Some(Fresh::Rekeyed(Entry {
            key,
            ..held.clone()
        }));
    }
    // A `.h` header's dialect (C or C++) is known only from its content and project.
    let language = match language.name == "c" {
        true => crate::dialect::language_of(jail, projects, &resolved.abs, &source)?,
        false => language,
    };
    let (tags, tokens) = tag_lexed(language, &source)?;
    let rel = resolved.rel.to_string_lossy().into_owned();
    let generated = exclude::is_generated(&rel, &source);
    let test_modules = match language.name.as_str() {
        "rust" => exclude::rust_test_modules(&rel, &source),
        _ => Vec::new(),
    };
    let imports = super::imports::imports_lexed(&language.name, &rel, &source, tokens.as_deref());
    let file = FileTags::new(rel, &language.name, tags, generated, test_modules, imports);
    Some(Fresh::Tagged(Entry {
        key,
        hash,
        tags: Arc::new(file),
    }))
}

impl FileTags {
    /// What the file weighs against `map_max_tags`: its outline items and the distinct names it
    /// uses (what the index, the graph and a ranking hold of a file grows with these).
    pub fn tag_count(&self) -> u64 {
        (self.item_ids.len() + self.reference_ids.len()) as u64
    }

    /// A file's tags with the ranking's ids and key computed.
    pub fn new(
        rel: String,
        language: &'static str,
        tags: Tags,
        generated: bool,
        test_modules: Vec<String>,
        imports: Vec<String>,
    ) -> FileTags {
        let family = family(language);
        let module_id = super::steer::module_name(&rel, language).map(|m| name_id(family, &m));
        FileTags {
            module_id,
            rel,
            language,
            item_ids: tags
                .outline
                .items
                .iter()
                .map(|i| name_id(family, &i.name))
                .collect(),
            item_facts: ItemFacts::of(&tags.outline),
            reference_ids: tags
                .references
                .iter()
                .map(|(name, count)| (name_id(family, name), *count))
                .collect(),
            rank_key: rank_key(&tags, generated, &imports),
            generated,
            test_modules,
            imports,
            tags,
        }
    }
}

fn rank_key(tags: &Tags, generated: bool, imports: &[String]) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    (generated, imports).hash(&mut hasher);
    for item in &tags.outline.items {
        (item.kind, &item.name, item.parent).hash(&mut hasher);
    }
    tags.references.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests;
