//! The tree the map reads, kept between maps: the walk's result per folder mapped (each source
//! file's path, language, identity and tags), refreshed from the change signal (`watch`) rather
//! than walked and stat'ed again. A warm map with nothing changed answers the last snapshot; a
//! changed path re-lists its folder only (one level, by the same walking rules), and a new folder
//! is walked. What a folder's listing cannot tell — an ignore or attributes file changed, changes
//! lost, a tree the watcher cannot cover — makes the map walk everything, as before.

use super::exclude;
use super::index::{key_of, Change, Index, OverTags, Snapshot, Source, MAX_FILE_BYTES};
use super::watch::{Changes, Watch};
use crate::languages;
use coderd_core::documents::{Event, EventKind};
use coderd_core::error::Result;
use coderd_core::jail::{Jail, Resolved};
use coderd_core::workspace::Workspace;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use tokio::sync::broadcast;

mod limits;
use limits::{tag_count, together, too_many, too_many_tags, Question, Refusal};

/// Folders the map never enters, besides hidden ones, ignored ones and the default excludes.
const SKIPPED_FOLDERS: &[&str] = &["vendor", "build", "node_modules", "target", "dist"];

/// Files whose change can change what a walk lists anywhere below their folder.
const RULE_FILES: &[&str] = &[".gitignore", ".ignore", ".gitattributes"];

/// Folders whose listing is kept; the least recently mapped goes first.
const LISTINGS: usize = 4;

/// The listings and what keeps them fresh.
pub struct Tree {
    inner: Mutex<Inner>,
    /// The watcher's change count (`Watch::count`), readable while a map holds `inner`.
    change_count: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

struct Inner {
    watch: Watch,
    /// The documents store's events: the daemon's own edits count before the kernel tells.
    events: Option<broadcast::Receiver<Event>>,
    listings: Vec<Listing>,
    /// The last question refused past `map_max_tags` (`Refusal`).
    refused: Option<Refusal>,
}

/// One folder's source files as last walked, and the paths changed below it since.
struct Listing {
    dir: Resolved,
    /// Whether the listing holds the test files too, each marked (`Source::test`), so that it
    /// answers questions with and without tests alike. Only a folder whose files with their
    /// tests pass `map_max_files` is listed without them, for the questions without.
    tests: bool,
    /// Whether the test files were tagged: by the first question with tests, so that a folder
    /// only ever asked without them pays for no test file's tags (the cold map costs what it did).
    tests_tagged: bool,
    /// By root-relative path: the map's order.
    files: BTreeMap<String, Source>,
    /// The tags the listed files hold (`FileTags::tag_count`), against `map_max_tags`.
    tags: u64,
    /// Whether the last walk, refused past `map_max_tags`, counted test files' tags (held from an
    /// earlier question with tests): without them the folder may fit.
    test_tags_counted: bool,
    /// Every folder entered (each one watched).
    folders: BTreeSet<PathBuf>,
    dirty: Changes,
    /// The watcher's epoch when the folder was walked (`Watch::epoch`).
    epoch: u64,
    /// The last snapshot without the tests (`[0]`) and with them (`[1]`): made by a walk, then
    /// changed in place (made anew by the next question of its kind after a change it cannot
    /// apply).
    last: [Option<Snapshot>; 2],
    /// The last snapshot of a kind whose change could not be applied in place: the next one
    /// continues its edits (`Snapshot::after`), so that its graph is still patched.
    stale: [Option<Snapshot>; 2],
}

/// Why a listing cannot be brought up to date by its folders.
struct WalkAll;

impl Tree {
    pub fn new(events: Option<broadcast::Receiver<Event>>) -> Tree {
        let watch = Watch::default();
        Tree {
            change_count: watch.count(),
            inner: Mutex::new(Inner {
                watch,
                events,
                listings: Vec::new(),
                refused: None,
            }),
        }
    }

    /// Whether a listing is kept that answers questions about `dir` (with its tests or without).
    pub fn lists(&self, dir: &Resolved, include_tests: bool) -> bool {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.listings.iter().any(|l| l.answers(dir, include_tests))
    }

    /// How many changes the watcher has seen so far (it moves with every event).
    pub fn change_count(&self) -> std::sync::Arc<std::sync::atomic::AtomicU64> {
        self.change_count.clone()
    }

    /// The source files under `dir` with their current tags: the last snapshot when nothing
    /// changed, else the changed folders re-listed, else (first time, or the tree not watched)
    /// a whole walk. C213 past `map_max_files` source files or `map_max_tags` tags; a refusal
    /// past `map_max_tags` is given again while nothing below the folder changes (`Refusal`).
    pub fn snapshot(
        &self,
        ws: &Workspace,
        index: &Index,
        dir: &Resolved,
        include_tests: bool,
    ) -> Result<Snapshot> {
        let limits = ws.limits();
        let (cap, max_files) = (limits.map_watch_max_folders, limits.map_max_files);
        let max_tags = limits.map_max_tags;
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let inner = &mut *inner;
        inner.drain_events();
        let changes = inner.watch.take();
        for listing in &mut inner.listings {
            listing.absorb(&changes);
        }
        let walked_because = inner.watch.broken(cap).map(str::to_owned);
        inner.forget_refusal_after(&changes, walked_because.is_some());
        let question = Question {
            dir: dir.abs.clone(),
            include_tests,
            limits: [cap, max_files, max_tags],
            epoch: inner.watch.epoch(),
        };
        if let Some(answer) = inner.refused_again(&question) {
            return Err(answer);
        }
        let answer = inner.snapshot(ws, index, dir, include_tests, question.limits);
        if let Err(refusal) = &answer {
            inner.remember(question, refusal, cap);
        }
        answer
    }
}

impl Inner {
    /// `Tree::snapshot` past the refusal kept: the listing refreshed, or walked.
    fn snapshot(
        &mut self,
        ws: &Workspace,
        index: &Index,
        dir: &Resolved,
        include_tests: bool,
        [cap, max_files, max_tags]: [u64; 3],
    ) -> Result<Snapshot> {
        let walked_because = self.watch.broken(cap).map(str::to_owned);
        let at = (self.listings.iter()).position(|l| l.answers(dir, include_tests));
        let mut listing = match at {
            Some(at) => self.listings.remove(at),
            None => Listing::new(dir, true),
        };
        let mut tagged = None;
        if walked_because.is_none() && at.is_some() && listing.epoch == self.watch.epoch() {
            tagged = listing
                .refresh(&ws.jail, index, &mut self.watch, cap, max_files, max_tags)
                .ok();
        }
        let tagged = match tagged {
            Some(tagged) => tagged,
            None => {
                match listing.walk_all(&ws.jail, index, &mut self.watch, [cap, max_files, max_tags])
                {
                    Ok(tagged) => tagged,
                    // Past `map_max_files` (or `map_max_tags`) with its tests, a folder may still
                    // be under it without them: a question without tests walks it as before (its
                    // walk's own error, if any, is the answer).
                    Err(e)
                        if listing.tests && !include_tests && listing.may_fit_without_tests(&e) =>
                    {
                        listing = Listing::new(dir, false);
                        listing.walk_all(
                            &ws.jail,
                            index,
                            &mut self.watch,
                            [cap, max_files, max_tags],
                        )?
                    }
                    Err(e) => return Err(e),
                }
            }
        };
        let tagged = match include_tests {
            true => match listing.tag_tests(&ws.jail, index, max_tags) {
                Ok(tests) => tagged + tests,
                Err(e) => {
                    self.keep(listing, index, max_tags); // still good for questions without tests
                    return Err(e);
                }
            },
            false => tagged,
        };
        let mut snapshot = listing.snapshot(include_tests);
        snapshot.tagged = tagged;
        snapshot.walked_because = self.watch.broken(cap).map(str::to_owned);
        self.keep(listing, index, max_tags);
        Ok(snapshot)
    }

    /// Keeps a listing as the most recently mapped, forgetting the least recent past `LISTINGS`
    /// or while those kept hold more than `max_tags` together (a listing forgotten costs its
    /// folder a walk, not its tags: the index keeps them while they fit).
    fn keep(&mut self, listing: Listing, index: &Index, max_tags: u64) {
        self.listings.push(listing);
        while self.listings.len() > LISTINGS
            || self.listings.len() > 1 && together(&self.listings) > max_tags
        {
            self.listings.remove(0);
        }
        let dirs: Vec<&Path> = self.listings.iter().map(|l| l.dir.abs.as_path()).collect();
        index.forget_beyond(&dirs, max_tags);
    }

    /// Notes the paths the daemon's own edits touched.
    fn drain_events(&mut self) {
        let Some(events) = self.events.as_mut() else {
            return;
        };
        let mut paths = Vec::new();
        loop {
            match events.try_recv() {
                Ok(event) => {
                    if let EventKind::Moved { from } = event.kind {
                        paths.push(from);
                    }
                    paths.push(event.path);
                }
                Err(broadcast::error::TryRecvError::Lagged(_)) => {
                    for listing in &mut self.listings {
                        listing.dirty.lost();
                    }
                }
                Err(_) => break,
            }
        }
        self.watch.note(paths);
    }
}

impl Listing {
    fn new(dir: &Resolved, tests: bool) -> Listing {
        Listing {
            dir: dir.clone(),
            tests,
            tests_tagged: false,
            files: BTreeMap::new(),
            tags: 0,
            test_tags_counted: false,
            folders: BTreeSet::new(),
            dirty: Changes::default(),
            epoch: 0,
            last: [None, None],
            stale: [None, None],
        }
    }

    /// The snapshot of the listed files, the test files among them or not: the last one of its
    /// kind, else a new one (O(files), once per kind after a walk or a change it cannot apply).
    fn snapshot(&mut self, include_tests: bool) -> Snapshot {
        let (files, kind) = (&self.files, include_tests as usize);
        let stale = &mut self.stale[kind];
        self.last[kind]
            .get_or_insert_with(|| Snapshot::after(stale.take(), files.values(), include_tests))
            .clone()
    }

    /// Tags the listed test files not tagged yet, once (the first question with tests; changes
    /// tag them from then on). Returns how many were tagged; C213 when they pass `max_tags`
    /// with the rest (the next question with tests tries again).
    fn tag_tests(&mut self, jail: &Jail, index: &Index, max_tags: u64) -> Result<usize> {
        if self.tests_tagged || !self.tests {
            return Ok(0);
        }
        let untagged: Vec<String> = (self.files.iter())
            .filter(|(_, s)| s.test && s.tags.is_none())
            .map(|(rel, _)| rel.clone())
            .collect();
        let mut sources: Vec<Source> = (untagged.iter())
            .filter_map(|rel| self.files.remove(rel))
            .collect();
        let room = max_tags.saturating_sub(self.tags);
        let tagged = index.update(jail, &mut sources, &[], None, true, room);
        if tagged.is_err() {
            sources.iter_mut().for_each(|s| s.tags = None);
        } else {
            self.tests_tagged = true;
            self.tags += tag_count(sources.iter().map(|s| &s.tags));
            if !sources.is_empty() {
                self.last[1] = None; // made anew with the test files' tags
            }
        }
        self.files
            .extend(sources.into_iter().map(|s| (rel_of(&s.resolved), s)));
        tagged.map_err(|_| too_many_tags(&self.dir, max_tags))
    }

    /// Whether this listing answers questions about `dir`, with its tests or without.
    fn answers(&self, dir: &Resolved, include_tests: bool) -> bool {
        self.dir.abs == dir.abs && (self.tests || !include_tests)
    }

    fn absorb(&mut self, changes: &Changes) {
        if changes.overflow {
            self.dirty.lost();
        }
        for path in changes
            .paths
            .iter()
            .filter(|p| p.starts_with(&self.dir.abs))
        {
            self.dirty.add(path.clone());
        }
    }

    /// Walks the whole folder again (watching every folder entered), keeping the tags of the
    /// files whose identity did not change. Returns how many files were tagged.
    /// `[cap, max_files, max_tags]`: the watcher's folders, the files and the tags it may hold.
    fn walk_all(
        &mut self,
        jail: &Jail,
        index: &Index,
        watch: &mut Watch,
        [cap, max_files, max_tags]: [u64; 3],
    ) -> Result<usize> {
        self.dirty = Changes::default();
        self.epoch = watch.epoch();
        let walked = walk(jail, &self.dir, self.tests, None, max_files, &mut |f| {
            watch.folder(f, cap);
        })?;
        let mut sources = stat(jail, &self.dir, walked.files);
        let under = Some(self.dir.abs.as_path());
        let tagged = index.update(jail, &mut sources, &[], under, self.tests_tagged, max_tags);
        self.test_tags_counted = matches!(tagged, Err(OverTags { tests }) if tests > 0);
        let tagged = tagged.map_err(|_| too_many_tags(&self.dir, max_tags))?;
        self.tags = tag_count(sources.iter().map(|s| &s.tags));
        tracing::debug!(files = sources.len(), tags = self.tags, "map folder walked");
        self.files = sources
            .into_iter()
            .map(|s| (rel_of(&s.resolved), s))
            .collect();
        self.folders = walked.folders.into_iter().collect();
        // Both kinds at once when no test file waits for its tags (none, or all held in the
        // index): at 200,000 files a snapshot is about 100 ms of the walk's seconds, which the
        // first question with tests would otherwise pay.
        let files = &self.files;
        let waiting = files.values().any(|s| s.test && s.tags.is_none());
        let with_tests = self.tests && (self.tests_tagged || !waiting);
        let [without, with] = std::mem::take(&mut self.last);
        let of = |last, include_tests| Some(Snapshot::after(last, files.values(), include_tests));
        self.last = [
            of(without, false),
            if with_tests { of(with, true) } else { None },
        ];
        self.stale = [None, None];
        Ok(tagged)
    }

    /// Re-lists the folders of the paths changed since the last map, walking the new folders.
    /// Returns how many files were tagged; `WalkAll` when only a whole walk can tell.
    fn refresh(
        &mut self,
        jail: &Jail,
        index: &Index,
        watch: &mut Watch,
        cap: u64,
        max_files: u64,
        max_tags: u64,
    ) -> std::result::Result<usize, WalkAll> {
        let dirty = std::mem::take(&mut self.dirty);
        if dirty.paths.is_empty() && !dirty.overflow {
            return Ok(0);
        }
        let rules = |p: &PathBuf| {
            p.file_name()
                .is_some_and(|n| RULE_FILES.iter().any(|r| n == *r))
        };
        if dirty.overflow || dirty.paths.iter().any(|p| *p == self.dir.abs || rules(p)) {
            return Err(WalkAll);
        }
        // A path in a folder not listed yet (the daemon wrote a file into new folders) re-lists
        // the nearest listed one, which walks the new ones.
        let folders: BTreeSet<&Path> = dirty
            .paths
            .iter()
            .filter_map(|p| p.ancestors().skip(1).find(|f| self.folders.contains(*f)))
            .collect();
        // Past a quarter of the folders, one walk costs less than a listing per folder.
        if folders.len() * 4 > self.folders.len() {
            return Err(WalkAll);
        }
        let t0 = std::time::Instant::now();
        let (mut changed, mut removed) = (Vec::new(), Vec::new());
        for folder in folders {
            // A folder removed by its parent's listing, earlier in this loop, is gone with it.
            if self.folders.contains(folder) {
                self.relist(
                    jail,
                    folder,
                    watch,
                    cap,
                    max_files,
                    &mut changed,
                    &mut removed,
                )?;
            }
        }
        // What the snapshot had at each path (its update is O(changed), not O(files)).
        let mut changes: BTreeMap<String, Change> = removed
            .iter()
            .map(|s| (rel_of(&s.resolved), (s.tags.clone(), None)))
            .collect();
        let old_tests: Vec<String> = (removed.iter().filter(|s| s.test))
            .map(|s| rel_of(&s.resolved))
            .collect();
        // A file listed again under the identity it had keeps its tags without asking the index.
        let mut old: HashMap<PathBuf, Source> = removed
            .into_iter()
            .map(|s| (s.resolved.abs.clone(), s))
            .collect();
        let (mut kept, mut fresh) = (Vec::new(), Vec::new());
        for source in stat(jail, &self.dir, changed) {
            match old.remove(&source.resolved.abs) {
                Some(o) if o.key == source.key && o.tags.is_some() => kept.push(o),
                _ => fresh.push(source),
            }
        }
        let gone: Vec<PathBuf> = old.into_keys().collect();
        let t_relist = t0.elapsed();
        // The tags of the files still listed and of those kept: what the fresh ones may add to.
        let removed = tag_count(changes.values().map(|c| &c.0));
        debug_assert!(removed <= self.tags, "a listing's tag count lost track");
        let staying = self.tags.saturating_sub(removed) + tag_count(kept.iter().map(|s| &s.tags));
        let room = max_tags.saturating_sub(staying);
        let tests = self.tests_tagged;
        // Past it, the whole walk says so, with the limit's name.
        let tagged =
            (index.update(jail, &mut fresh, &gone, None, tests, room)).map_err(|_| WalkAll)?;
        self.tags = staying + tag_count(fresh.iter().map(|s| &s.tags));
        if self.tags > max_tags {
            return Err(WalkAll); // the limit lowered since (a config reload): the walk says so
        }
        let t_update = t0.elapsed();
        for s in kept.iter().chain(&fresh) {
            changes.entry(rel_of(&s.resolved)).or_default().1 = s.tags.clone();
        }
        // The snapshot without tests never held a test file: its changes leave them out.
        let tests: HashSet<String> = (old_tests.into_iter())
            .chain(
                kept.iter()
                    .chain(&fresh)
                    .filter(|s| s.test)
                    .map(|s| rel_of(&s.resolved)),
            )
            .collect();
        let listed = kept.into_iter().chain(fresh);
        self.files.extend(listed.map(|s| (rel_of(&s.resolved), s)));
        if self.files.len() as u64 > max_files {
            return Err(WalkAll); // the whole walk says so, with the limit's name
        }
        let without_tests: BTreeMap<String, Change> = match tests.is_empty() {
            true => BTreeMap::new(),
            false => (changes.iter())
                .filter(|(rel, _)| !tests.contains(*rel))
                .map(|(rel, change)| (rel.clone(), change.clone()))
                .collect(),
        };
        for (with_tests, last) in self.last.iter_mut().enumerate() {
            let changes = match with_tests == 0 && !tests.is_empty() {
                true => &without_tests,
                false => &changes,
            };
            // A change it cannot apply in place: the next question's snapshot is made anew.
            if last.as_mut().is_some_and(|l| !l.change(changes)) {
                self.stale[with_tests] = last.take();
            }
        }
        tracing::debug!(
            relist_us = t_relist.as_micros() as u64,
            update_us = (t_update - t_relist).as_micros() as u64,
            change_us = (t0.elapsed() - t_update).as_micros() as u64,
            "map refresh steps"
        );
        Ok(tagged)
    }

    /// A walk of `dir` (to `depth`) whose every folder gets a watch; a walk that fails, or a folder
    /// the watcher cannot take, is a whole walk's matter.
    fn walk_watched(
        &self,
        jail: &Jail,
        dir: &Resolved,
        depth: Option<usize>,
        max_files: u64,
        watch: &mut Watch,
        cap: u64,
    ) -> std::result::Result<Walked, WalkAll> {
        let mut entered = true;
        let walked = walk(jail, dir, self.tests, depth, max_files, &mut |f| {
            entered &= watch.folder(f, cap);
        })
        .map_err(|_| WalkAll)?;
        if !entered {
            return Err(WalkAll);
        }
        Ok(walked)
    }

    /// One folder listed again: its files replaced (the new ones to `changed`, the old ones to
    /// `removed`), its removed subfolders forgotten, its new ones walked.
    #[allow(clippy::too_many_arguments)]
    fn relist(
        &mut self,
        jail: &Jail,
        folder: &Path,
        watch: &mut Watch,
        cap: u64,
        max_files: u64,
        changed: &mut Vec<(Resolved, &'static languages::Language)>,
        removed: &mut Vec<Source>,
    ) -> std::result::Result<(), WalkAll> {
        let Some(resolved) = jail.locate(folder).filter(|_| folder.is_dir()) else {
            return Ok(()); // gone: its parent's listing (the same events) forgets it
        };
        let walked = self.walk_watched(jail, &resolved, Some(1), max_files, watch, cap)?;
        let prefix = prefix_of(&resolved);
        let direct: Vec<String> = self
            .files
            .range(prefix.clone()..)
            .take_while(|(rel, _)| rel.starts_with(&prefix))
            .filter(|(rel, _)| !rel[prefix.len()..].contains('/'))
            .map(|(rel, _)| rel.clone())
            .collect();
        for rel in direct {
            removed.extend(self.files.remove(&rel));
        }
        changed.extend(walked.files);
        let now: HashSet<&PathBuf> = walked.folders.iter().collect();
        let known: Vec<PathBuf> = self
            .folders
            .range::<Path, _>((
                std::ops::Bound::Excluded(folder),
                std::ops::Bound::Unbounded,
            ))
            .take_while(|f| f.starts_with(folder))
            .filter(|f| f.parent() == Some(folder))
            .cloned()
            .collect();
        for sub in known.iter().filter(|s| !now.contains(s)) {
            self.forget(jail, sub, removed);
        }
        for sub in walked.folders.iter().filter(|s| *s != folder) {
            if self.folders.contains(sub) {
                continue;
            }
            let Some(sub_resolved) = jail.locate(sub) else {
                continue;
            };
            let inside = self.walk_watched(jail, &sub_resolved, None, max_files, watch, cap)?;
            changed.extend(inside.files);
            self.folders.extend(inside.folders);
        }
        self.folders.insert(folder.to_path_buf());
        Ok(())
    }

    /// Forgets a removed folder: its files (to `removed`) and its folders.
    fn forget(&mut self, jail: &Jail, sub: &Path, removed: &mut Vec<Source>) {
        let below: Vec<PathBuf> = self
            .folders
            .range::<Path, _>((std::ops::Bound::Included(sub), std::ops::Bound::Unbounded))
            .take_while(|f| f.starts_with(sub))
            .cloned()
            .collect();
        for f in below {
            self.folders.remove(&f);
        }
        let Some(resolved) = jail.locate(sub) else {
            return;
        };
        let prefix = prefix_of(&resolved);
        let rels: Vec<String> = self
            .files
            .range(prefix.clone()..)
            .take_while(|(rel, _)| rel.starts_with(&prefix))
            .map(|(rel, _)| rel.clone())
            .collect();
        for rel in rels {
            removed.extend(self.files.remove(&rel));
        }
    }
}

/// A root-relative path as the map prints it and orders it.
fn rel_of(resolved: &Resolved) -> String {
    resolved.rel.to_string_lossy().into_owned()
}

/// What every file below a folder's root-relative path starts with.
fn prefix_of(folder: &Resolved) -> String {
    match rel_of(folder) {
        rel if rel.is_empty() => rel,
        rel => rel + "/",
    }
}

/// Each listed file's identity and whether it is test code below the listing's folder `dir`,
/// leaving out those gone or too large since.
fn stat(
    jail: &Jail,
    dir: &Resolved,
    files: Vec<(Resolved, &'static languages::Language)>,
) -> Vec<Source> {
    let keyed = files.into_iter().filter_map(|(resolved, language)| {
        let meta = jail.metadata(&resolved).ok()?;
        (meta.len() <= MAX_FILE_BYTES).then(|| Source {
            key: key_of(&meta),
            test: exclude::is_test_path(&dir.abs, &resolved.abs),
            resolved,
            language,
            tags: None,
        })
    });
    keyed.collect()
}

/// What a walk found: the source files, and the folders entered (the walk's own first).
struct Walked {
    files: Vec<(Resolved, &'static languages::Language)>,
    folders: Vec<PathBuf>,
}

/// Source files (in a language with a grammar) under `dir`, by the jail's walking policy, to
/// `depth` levels; `entered` hears of each folder before the walk reads it (so a watch placed
/// then misses no change to what is listed). C213 past `max_files`: the walk stops there.
fn walk(
    jail: &Jail,
    dir: &Resolved,
    include_tests: bool,
    depth: Option<usize>,
    max_files: u64,
    entered: &mut dyn FnMut(&Path),
) -> Result<Walked> {
    let mut builder = jail.walk_builder(dir, true, false);
    builder.max_depth(depth);
    let noise = jail.default_excludes();
    let root = jail.roots()[dir.root].path.clone();
    let generated = exclude::generated_by_attributes(jail, &root);
    let filter_root = root.clone();
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
        let rel = e.path().strip_prefix(&filter_root).unwrap_or(e.path());
        !coderd_core::globs::hit(&noise, rel)
    });
    let mut out = Walked {
        files: Vec::new(),
        folders: Vec::new(),
    };
    for entry in builder.build().flatten() {
        let Some(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            entered(entry.path());
            out.folders.push(entry.path().to_path_buf());
            continue;
        }
        if !kind.is_file() {
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
        if out.files.len() as u64 >= max_files {
            return Err(too_many(dir, max_files));
        }
        out.files.push((resolved, language));
    }
    Ok(out)
}
