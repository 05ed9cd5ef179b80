//! The tag index: every source file under a folder, outlined and tagged, cached per file by its
//! identity, size and times (the same test the documents store uses), so a warm map re-reads
//! nothing and an edit re-tags only the file it touched. Files are tagged on all cores.

use super::exclude;
use super::rank::{family, name_id};
use crate::languages;
use crate::tags::{tag, Tags};
use coderd_core::error::Result;
use coderd_core::jail::{Jail, Resolved};
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Files larger than this are left out of the map (generated code, data).
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Folders the map never enters, besides hidden ones, ignored ones and the default excludes.
const SKIPPED_FOLDERS: &[&str] = &["vendor", "build", "node_modules", "target", "dist"];

/// One file's tags as the map sees them.
pub struct FileTags {
    /// Root-relative path (what the map prints, and what `outline` accepts).
    pub rel: String,
    pub language: &'static str,
    pub tags: Tags,
    /// The ranking's ids (`rank::name_id`) of each outline item's name, in item order.
    pub item_ids: Vec<u64>,
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
}

/// A file's identity, size and times: the same test the documents store uses.
pub type FileKey = (u64, u64, u64, i64, i64, i64, i64);

fn key_of(meta: &std::fs::Metadata) -> FileKey {
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

/// The files under one folder, sorted by path, and a fingerprint of what the ranking reads.
pub struct Snapshot {
    pub files: Vec<Arc<FileTags>>,
    pub fingerprint: u64,
    /// Files (re)tagged by this call.
    pub tagged: usize,
}

/// The index: every tagged file by its absolute path, loaded from the store (when the daemon
/// has one) before the first snapshot and saved to it after a snapshot that changed it.
#[derive(Default)]
pub struct Index {
    files: Mutex<HashMap<PathBuf, Entry>>,
    store: Option<super::store::Store>,
    loaded: std::sync::OnceLock<()>,
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

    /// Lists, stats and (where changed) tags every source file under `dir`.
    pub fn snapshot(&self, jail: &Jail, dir: &Resolved, include_tests: bool) -> Result<Snapshot> {
        self.load();
        let listed = list_sources(jail, dir, include_tests);
        let mut keyed = Vec::with_capacity(listed.len());
        for (resolved, language) in listed {
            if let Ok(meta) = jail.metadata(&resolved) {
                if meta.len() <= MAX_FILE_BYTES {
                    keyed.push((resolved, language, key_of(&meta)));
                }
            }
        }
        let held: HashMap<PathBuf, Entry> = {
            let files = self.lock();
            keyed
                .iter()
                .filter_map(|(r, _, _)| files.get(&r.abs).map(|e| (r.abs.clone(), e.clone())))
                .collect()
        };
        let stale: Vec<&(Resolved, &'static languages::Language, FileKey)> = keyed
            .iter()
            .filter(|(r, _, key)| held.get(&r.abs).is_none_or(|e| e.key != *key))
            .collect();
        let projects = crate::dialect::Projects::default();
        let fresh: Vec<(PathBuf, Fresh)> = stale
            .par_iter()
            .filter_map(|(resolved, language, key)| {
                let fresh = tag_file(
                    jail,
                    &projects,
                    resolved,
                    language,
                    *key,
                    held.get(&resolved.abs),
                )?;
                Some((resolved.abs.clone(), fresh))
            })
            .collect();
        let tagged = fresh
            .iter()
            .filter(|(_, f)| matches!(f, Fresh::Tagged(_)))
            .count();
        let mut files = self.lock();
        let under: HashSet<&Path> = keyed.iter().map(|(r, _, _)| r.abs.as_path()).collect();
        let before = files.len();
        files.retain(|path, _| !path.starts_with(&dir.abs) || under.contains(path.as_path()));
        let changed = !fresh.is_empty() || files.len() != before;
        for (path, fresh) in fresh {
            let (Fresh::Tagged(entry) | Fresh::Rekeyed(entry)) = fresh;
            files.insert(path, entry);
        }
        if let (true, Some(store)) = (changed, &self.store) {
            store.save(files.iter().map(|(p, e)| (p.clone(), e.clone())).collect());
        }
        let mut snapshot: Vec<Arc<FileTags>> = keyed
            .iter()
            .filter_map(|(r, _, _)| files.get(&r.abs).map(|e| e.tags.clone()))
            .collect();
        drop(files);
        if !include_tests {
            without_test_modules(&mut snapshot);
        }
        snapshot.sort_by(|a, b| a.rel.cmp(&b.rel));
        let mut hasher = std::hash::DefaultHasher::new();
        for tags in &snapshot {
            tags.rel.hash(&mut hasher);
            tags.rank_key.hash(&mut hasher);
        }
        Ok(Snapshot {
            files: snapshot,
            fingerprint: hasher.finish(),
            tagged,
        })
    }

    /// Fills the index from the store, once.
    fn load(&self) {
        self.loaded.get_or_init(|| {
            if let Some(store) = &self.store {
                let saved = store.load();
                self.lock().extend(saved);
            }
        });
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Entry>> {
        self.files.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Leaves out the files of the test modules the files declare out of line (Rust's
/// `#[cfg(test)] mod tests;`), which no folder or file name marks.
fn without_test_modules(files: &mut Vec<Arc<FileTags>>) {
    let modules: HashSet<&str> = files
        .iter()
        .flat_map(|f| f.test_modules.iter().map(String::as_str))
        .collect();
    if modules.is_empty() {
        return;
    }
    let tests: HashSet<String> = files
        .iter()
        .filter(|f| f.language == "rust" && exclude::in_test_module(&f.rel, &modules))
        .map(|f| f.rel.clone())
        .collect();
    files.retain(|f| !tests.contains(&f.rel));
}

/// Source files (in a language with a grammar) under `dir`, by the jail's walking policy.
fn list_sources(
    jail: &Jail,
    dir: &Resolved,
    include_tests: bool,
) -> Vec<(Resolved, &'static languages::Language)> {
    let mut builder = jail.walk_builder(dir, true, false);
    let noise = jail.default_excludes();
    let root = jail.roots()[dir.root].path.clone();
    let generated = exclude::generated_by_attributes(jail, &root);
    builder.filter_entry(move |e| {
        if e.depth() == 0 {
            return true;
        }
        let name = e.file_name().to_string_lossy();
        let is_dir = e.file_type().is_some_and(|t| t.is_dir());
        if is_dir
            && (SKIPPED_FOLDERS.contains(&name.as_ref())
                || (!include_tests && exclude::TEST_FOLDERS.contains(&name.as_ref())))
        {
            return false;
        }
        !coderd_core::globs::hit(&noise, e.path().strip_prefix(&root).unwrap_or(e.path()))
    });
    let mut out = Vec::new();
    for entry in builder.build().flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let name = entry.file_name().to_string_lossy();
        if !include_tests && exclude::is_test_file(&name) {
            continue;
        }
        // As in git, a pattern names files (`gen/**`), not the folders holding them.
        let marked = generated.as_ref().map(|g| g.matched(entry.path(), false));
        if marked.is_some_and(|m| m.is_ignore()) {
            continue;
        }
        let Some(language) = languages::for_path(entry.path(), None) else {
            continue;
        };
        // Not `queries::of`: compiling a language's queries costs tens of milliseconds, which a
        // restarted daemon whose saved tags are all current never needs to spend.
        if !crate::queries::available(language) {
            continue;
        }
        let Some(resolved) = jail.locate(entry.path()) else {
            continue;
        };
        if jail.is_non_accessible(&resolved.rel) {
            continue;
        }
        out.push((resolved, language));
    }
    out
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
    let tags = tag(language, &source)?;
    let rel = resolved.rel.to_string_lossy().into_owned();
    let generated = exclude::is_generated(&rel, &source);
    let test_modules = match language.name.as_str() {
        "rust" => exclude::rust_test_modules(&rel, &source),
        _ => Vec::new(),
    };
    let file = FileTags::new(rel, &language.name, tags, generated, test_modules);
    Some(Fresh::Tagged(Entry {
        key,
        hash,
        tags: Arc::new(file),
    }))
}

impl FileTags {
    /// A file's tags with the ranking's ids and key computed.
    pub fn new(
        rel: String,
        language: &'static str,
        tags: Tags,
        generated: bool,
        test_modules: Vec<String>,
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
            reference_ids: tags
                .references
                .iter()
                .map(|(name, count)| (name_id(family, name), *count))
                .collect(),
            rank_key: rank_key(&tags, generated),
            generated,
            test_modules,
            tags,
        }
    }
}

fn rank_key(tags: &Tags, generated: bool) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    generated.hash(&mut hasher);
    for item in &tags.outline.items {
        (item.kind, &item.name, item.parent).hash(&mut hasher);
    }
    tags.references.hash(&mut hasher);
    hasher.finish()
}
