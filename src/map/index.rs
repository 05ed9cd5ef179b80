//! The tag index: every source file under a folder, outlined and tagged, cached per file by its
//! identity, size and times (the same test the documents store uses), so a warm map re-reads
//! nothing and an edit re-tags only the file it touched. Files are tagged on all cores.

use super::rank::name_id;
use crate::error::Result;
use crate::jail::{Jail, Resolved};
use crate::syntax::languages;
use crate::syntax::tags::{tag, Tags};
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
/// Test folders and file-name patterns, left out unless `include_tests`.
const TEST_FOLDERS: &[&str] = &["test", "tests", "__tests__", "testdata", "spec"];

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
}

type FileKey = (u64, u64, u64, i64, i64, i64, i64);

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

/// The files under one folder, sorted by path, and a fingerprint of what the ranking reads.
pub struct Snapshot {
    pub files: Vec<Arc<FileTags>>,
    pub fingerprint: u64,
    /// Files (re)tagged by this call.
    pub tagged: usize,
}

#[derive(Default)]
pub struct Index {
    files: Mutex<HashMap<PathBuf, (FileKey, Arc<FileTags>)>>,
}

impl Index {
    /// Lists, stats and (where changed) tags every source file under `dir`.
    pub fn snapshot(&self, jail: &Jail, dir: &Resolved, include_tests: bool) -> Result<Snapshot> {
        let listed = list_sources(jail, dir, include_tests);
        let mut keyed = Vec::with_capacity(listed.len());
        for (resolved, language) in listed {
            if let Ok(meta) = jail.metadata(&resolved) {
                if meta.len() <= MAX_FILE_BYTES {
                    keyed.push((resolved, language, key_of(&meta)));
                }
            }
        }
        let held: HashMap<PathBuf, (FileKey, Arc<FileTags>)> = {
            let files = self.lock();
            keyed
                .iter()
                .filter_map(|(r, _, _)| files.get(&r.abs).map(|e| (r.abs.clone(), e.clone())))
                .collect()
        };
        let stale: Vec<&(Resolved, &'static languages::Language, FileKey)> = keyed
            .iter()
            .filter(|(r, _, key)| held.get(&r.abs).is_none_or(|(k, _)| k != key))
            .collect();
        let projects = crate::syntax::dialect::Projects::default();
        let fresh: Vec<(PathBuf, FileKey, Arc<FileTags>)> = stale
            .par_iter()
            .filter_map(|(resolved, language, key)| {
                let tags = tag_file(jail, &projects, resolved, language)?;
                Some((resolved.abs.clone(), *key, Arc::new(tags)))
            })
            .collect();
        let tagged = fresh.len();
        let mut files = self.lock();
        let under: HashSet<&Path> = keyed.iter().map(|(r, _, _)| r.abs.as_path()).collect();
        files.retain(|path, _| !path.starts_with(&dir.abs) || under.contains(path.as_path()));
        for (path, key, tags) in fresh {
            files.insert(path, (key, tags));
        }
        let mut snapshot: Vec<(FileKey, Arc<FileTags>)> = keyed
            .iter()
            .filter_map(|(r, _, _)| files.get(&r.abs).cloned())
            .collect();
        drop(files);
        snapshot.sort_by(|a, b| a.1.rel.cmp(&b.1.rel));
        let mut hasher = std::hash::DefaultHasher::new();
        for (_, tags) in &snapshot {
            tags.rel.hash(&mut hasher);
            tags.rank_key.hash(&mut hasher);
        }
        Ok(Snapshot {
            files: snapshot.into_iter().map(|(_, t)| t).collect(),
            fingerprint: hasher.finish(),
            tagged,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, (FileKey, Arc<FileTags>)>> {
        self.files.lock().unwrap_or_else(|e| e.into_inner())
    }
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
    builder.filter_entry(move |e| {
        if e.depth() == 0 {
            return true;
        }
        let name = e.file_name().to_string_lossy();
        let is_dir = e.file_type().is_some_and(|t| t.is_dir());
        if is_dir
            && (SKIPPED_FOLDERS.contains(&name.as_ref())
                || (!include_tests && TEST_FOLDERS.contains(&name.as_ref())))
        {
            return false;
        }
        !crate::globs::hit(&noise, e.path().strip_prefix(&root).unwrap_or(e.path()))
    });
    let mut out = Vec::new();
    for entry in builder.build().flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let name = entry.file_name().to_string_lossy();
        if !include_tests && is_test_file(&name) {
            continue;
        }
        let Some(language) = languages::for_path(entry.path(), None) else {
            continue;
        };
        if crate::syntax::queries::of(language).is_err() {
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

/// `*_test.go`, `test_*.py`, `*_test.py`, `*.spec.ts`, `*.test.js` and the like.
pub fn is_test_file(name: &str) -> bool {
    let stem = name.split('.').next().unwrap_or(name);
    stem.ends_with("_test")
        || stem.starts_with("test_")
        || name.contains(".spec.")
        || name.contains(".test.")
        || stem.ends_with("Test") && name.ends_with(".java")
}

fn tag_file(
    jail: &Jail,
    projects: &crate::syntax::dialect::Projects,
    resolved: &Resolved,
    language: &'static languages::Language,
) -> Option<FileTags> {
    let (mut file, meta) = jail.open_walked_file(resolved).ok()?;
    let mut source = Vec::with_capacity(meta.len() as usize);
    file.read_to_end(&mut source).ok()?;
    // A `.h` header's dialect (C or C++) is known only from its content and project.
    let language = match language.name == "c" {
        true => crate::syntax::dialect::language_of(jail, projects, &resolved.abs, &source)?,
        false => language,
    };
    let tags = tag(language, &source)?;
    Some(FileTags {
        rel: resolved.rel.to_string_lossy().into_owned(),
        language: &language.name,
        item_ids: tags
            .outline
            .items
            .iter()
            .map(|i| name_id(&i.name))
            .collect(),
        reference_ids: tags
            .references
            .iter()
            .map(|(name, count)| (name_id(name), *count))
            .collect(),
        rank_key: rank_key(&tags),
        tags,
    })
}

fn rank_key(tags: &Tags) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    for item in &tags.outline.items {
        (item.kind, &item.name, item.parent).hash(&mut hasher);
    }
    tags.references.hash(&mut hasher);
    hasher.finish()
}
