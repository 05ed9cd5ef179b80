//! The repo map and the workspace symbol index, both over the tag index (`index`): `map` ranks
//! every definition under a folder by the reference graph (`rank`) and renders the best into a
//! character budget (`render`); `symbols` finds definitions by name (`symbols`).
//!
//! The files come from `tree` (the walk's result, kept fresh by `watch`); the ranking is cached
//! per (folder, steering, versions of every file): a warm map with nothing changed only renders,
//! and a new question about the same files reuses their reference graph (`graph`); after a change
//! the unsteered question is ranked again before it is asked (`ahead`).

pub mod ahead;
pub mod cochange;
pub mod exclude;
mod flows;
pub mod graph;
pub mod imports;
pub mod index;
pub mod lookup;
pub mod mentions;
pub mod modules;
pub mod named;
mod prefix_sort;
mod pull;
pub mod rank;
pub mod render;
mod scratch;
pub mod steer;
pub mod store;
pub mod symbols;
pub mod tail;
pub mod tree;
pub mod watch;

use coderd_core::error::{Error, Result};
use coderd_core::workspace::Workspace;
use index::Index;
use rank::{Ranked, Steering};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

pub const DEFAULT_BUDGET: usize = 8000;
/// The largest budget a map may ask for (a map is a summary; beyond this read outlines).
pub const MAX_BUDGET: usize = 1_000_000;
/// Rankings kept for questions asked again (each a few bytes per item of the tree).
const RANKINGS_KEPT: usize = 8;

/// The map's state in the daemon: the tag index, the tree's listings and the last rankings.
pub struct MapCache {
    pub index: Index,
    tree: tree::Tree,
    /// The last rankings, by (folder, steering, fingerprint), the most recent last.
    ranked: Mutex<Vec<(u64, Arc<Ranked>)>>,
    /// The last unsteered ranking (no focus, no mention the snapshot holds), by the same key: every
    /// question whose mentions are defined nowhere is answered by it, however many others came since.
    unsteered: Mutex<Option<(u64, Arc<Ranked>)>>,
    /// The imports of the last snapshot resolved (`modules`), by its fingerprint: one without
    /// tests (`[0]`) and one with them (`[1]`), so that a question with tests between questions
    /// without them rebuilds neither's.
    structure: PerKind<modules::Structure>,
    /// The reference graph of the last snapshot ranked, by its fingerprint, likewise per kind,
    /// with the files it was made of: the next snapshot's is patched from it.
    graph: PerKind<KeptGraph>,
    /// The unsteered question the background keeps ranked after changes.
    ahead: ahead::Ahead,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MapParams {
    /// The folder to map (default: the workspace root).
    #[serde(default)]
    pub dir: Option<String>,
    /// Characters the map may use (default 8000).
    #[serde(default)]
    pub budget: Option<usize>,
    /// Files the agent is working on: their neighbours rank higher; their own items are left out.
    #[serde(default)]
    pub focus: Vec<String>,
    /// Identifiers the agent mentioned: their definitions rank higher.
    #[serde(default)]
    pub mentions: Vec<String>,
    /// Include test files and folders (`*_test.go`, `test_*.py`, `tests/`, ...).
    #[serde(default)]
    pub include_tests: bool,
    /// Also answer the shown items with their places (`items`) and the files named without
    /// them (`named`), for editors.
    #[serde(default)]
    pub items: bool,
}

/// One item the map shows, for a client that links the map to the code.
#[derive(Serialize)]
pub struct MapItem {
    /// Root-relative, as the map prints it.
    pub path: String,
    pub name: String,
    pub kind: crate::Kind,
    /// 1-based, inclusive.
    pub line: usize,
    pub end_line: usize,
}

#[derive(Serialize)]
pub struct MapResult {
    pub dir: String,
    pub budget: usize,
    /// Characters of `map` (at most `budget`).
    pub chars: usize,
    pub files: usize,
    pub files_shown: usize,
    /// Files named after the items, without them.
    pub files_named: usize,
    pub items_shown: usize,
    pub elided_files: usize,
    pub elided_items: usize,
    /// Files (re)parsed for this call (0 when every file's tags were cached), counting those the
    /// daemon tagged ahead of it after a change (`ahead`).
    pub parsed: usize,
    /// How the map knows what changed: `watched` (a watcher on every folder: a map reads only the
    /// changed folders) or `walked` (every map walks and stats the whole tree; `freshness_note`
    /// says why: the folder cap, the kernel's watch limit, no watcher).
    pub freshness: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub freshness_note: Option<String>,
    pub map: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<Vec<MapItem>>,
    /// With `items`: the files named without their items (root-relative), in the order the map
    /// names them (`named::Named::fill`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub named: Option<Vec<String>>,
}

/// The map `p` asks for; `history` (the repository's recent commits, when the folder is in one)
/// ties the files that changed with the focus files.
pub fn run(
    state: &Workspace,
    cache: &MapCache,
    p: MapParams,
    history: Option<cochange::History<'_>>,
) -> Result<MapResult> {
    let budget = p.budget.unwrap_or(DEFAULT_BUDGET);
    if budget == 0 || budget > MAX_BUDGET {
        return Err(Error::bad_input(format!(
            "`budget` must be 1..={MAX_BUDGET} characters, not {budget}"
        ))
        .with_recovery(format!(
            "omit it for {DEFAULT_BUDGET}, or outline single files"
        )));
    }
    let dir = state.jail.resolve("dir", p.dir.as_deref().unwrap_or("."))?;
    let started = std::time::Instant::now();
    let mut snapshot = cache.snapshot(state, &dir, p.include_tests)?;
    // What the background tagged for this question (`ahead`) counts as this question's.
    snapshot.tagged += cache.ahead.take_tagged();
    let mut focus = Vec::new();
    for wire in &p.focus {
        let resolved = state.jail.resolve("focus", wire)?;
        let rel = resolved.rel.to_string_lossy();
        if let Ok(i) = snapshot
            .files
            .binary_search_by(|f| f.rel.as_str().cmp(&rel))
        {
            focus.push(i);
        }
    }
    focus.sort_unstable();
    focus.dedup();
    let mut mentions = p.mentions.clone();
    mentions.sort();
    mentions.dedup();
    let co_changed = history
        .map(|h| h.ties(&snapshot.files, &focus, snapshot.fingerprint))
        .unwrap_or_default();
    let steering = Steering {
        focus,
        mentions,
        include_tests: p.include_tests,
        co_changed,
    };
    let listed = started.elapsed();
    let ranked = cache.ranking(&dir, &snapshot, &steering);
    if steering.focus.is_empty() && steering.mentions.is_empty() {
        cache.ahead.asked(&dir, steering.include_tests);
    }
    let ranked_at = started.elapsed();
    let rendered = render::render(&snapshot.files, &ranked, budget);
    let items = p.items.then(|| map_items(&snapshot.files, &rendered.shown));
    let named = p.items.then(|| {
        let rel = |&f: &usize| snapshot.files[f].rel.clone();
        rendered.named.iter().map(rel).collect()
    });
    // Where a map's time goes, for `CODERD_LOG=coderd=debug` (the bench's edit rows).
    tracing::debug!(
        snapshot_us = listed.as_micros() as u64,
        rank_us = (ranked_at - listed).as_micros() as u64,
        render_us = (started.elapsed() - ranked_at).as_micros() as u64,
        parsed = snapshot.tagged,
        "map"
    );
    Ok(MapResult {
        dir: dir.abs.display().to_string(),
        budget,
        chars: rendered.chars,
        files: snapshot.files.len(),
        files_shown: rendered.files_shown,
        files_named: rendered.named.len(),
        items_shown: rendered.items_shown,
        elided_files: rendered.elided_files,
        elided_items: rendered.elided_items,
        parsed: snapshot.tagged,
        freshness: match snapshot.walked_because {
            None => "watched",
            Some(_) => "walked",
        },
        freshness_note: snapshot.walked_because,
        map: rendered.text,
        items,
        named,
    })
}

fn map_items(files: &[Arc<index::FileTags>], shown: &[rank::RankedItem]) -> Vec<MapItem> {
    let item = |r: &rank::RankedItem| {
        let file = &files[r.file as usize];
        let item = &file.tags.outline.items[r.item as usize];
        MapItem {
            path: file.rel.clone(),
            name: item.name.clone(),
            kind: item.kind,
            line: item.line,
            end_line: item.end_line,
        }
    };
    shown.iter().map(item).collect()
}

impl MapCache {
    /// A map whose tag index is kept on disk in `dir` (see `store`), in memory only without one,
    /// told of the daemon's own edits by the documents store's `events`.
    pub fn new(
        dir: Option<&std::path::Path>,
        events: Option<tokio::sync::broadcast::Receiver<coderd_core::documents::Event>>,
    ) -> MapCache {
        MapCache {
            index: Index::with_store(dir),
            tree: tree::Tree::new(events),
            ranked: Mutex::default(),
            unsteered: Mutex::default(),
            structure: Default::default(),
            graph: Default::default(),
            ahead: Default::default(),
        }
    }

    /// The source files under `dir` with their current tags (see `tree`).
    pub fn snapshot(
        &self,
        state: &Workspace,
        dir: &coderd_core::jail::Resolved,
        include_tests: bool,
    ) -> Result<index::Snapshot> {
        self.tree.snapshot(state, &self.index, dir, include_tests)
    }

    /// Whether the folder's listing is still kept (`tree::Tree::lists`).
    pub fn lists(&self, dir: &coderd_core::jail::Resolved, include_tests: bool) -> bool {
        self.tree.lists(dir, include_tests)
    }

    /// The module structure of a snapshot: the last one's when nothing the ranking reads changed.
    fn structure(&self, snapshot: &index::Snapshot) -> Arc<modules::Structure> {
        of_snapshot(&self.structure, snapshot, || {
            let started = std::time::Instant::now();
            let structure = modules::Structure::of(&snapshot.files);
            let us = started.elapsed().as_micros() as u64;
            tracing::debug!(us, "map structure");
            structure
        })
    }

    /// The structure kept of the snapshot whose fingerprint is `before`, kept as `snapshot`'s too
    /// when the files `replaced` since (the same paths) changed nothing it reads: an edit's next
    /// focus question, and the pass after it, then do not build it again.
    fn carry_structure(
        &self,
        before: u64,
        snapshot: &index::Snapshot,
        replaced: &[(usize, Arc<index::FileTags>)],
    ) {
        let kind = snapshot.with_tests() as usize;
        // Not waited for: a structure being built holds the lock for as long as it takes, and a
        // question without focus does not need it.
        let mut kept = match self.structure[kind].try_lock() {
            Ok(kept) => kept,
            Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return,
        };
        if let Some((print, structure)) = kept.as_mut().filter(|(print, _)| *print == before) {
            if modules::Structure::holds_after(replaced, &snapshot.files) {
                debug_assert!(**structure == modules::Structure::of(&snapshot.files));
                *print = snapshot.fingerprint;
            }
        }
    }

    /// The reference graph of a snapshot: the last one's when nothing the ranking reads changed,
    /// else the last one of its kind patched for the files that changed (`rank::graph_after`);
    /// and whether it was patched just now.
    fn graph(&self, snapshot: &index::Snapshot) -> (Arc<graph::Graph>, bool) {
        let kind = snapshot.with_tests() as usize;
        let lock = |k: usize| self.graph[k].lock().unwrap_or_else(|e| e.into_inner());
        let same = |kept: &Option<(u64, Arc<KeptGraph>)>| match kept {
            Some((k, kept)) if *k == snapshot.fingerprint => Some(kept.graph.clone()),
            _ => None,
        };
        if let Some(graph) = same(&lock(1 - kind)) {
            return (graph, false);
        }
        let mut last = lock(kind);
        if let Some(graph) = same(&last) {
            return (graph, false);
        }
        // Taken out of the slot: the patch reuses its memory, or it is given back first.
        let edits = &snapshot.edits;
        let replaced = |kept: &KeptGraph| edits.since(kept.lineage, kept.version);
        let kept = last
            .take()
            .and_then(|(print, kept)| Some((print, Arc::into_inner(kept)?)));
        let (graph, patched) =
            match kept.and_then(|(print, kept)| Some((replaced(&kept)?, print, kept))) {
                Some((replaced, print, kept)) => {
                    self.carry_structure(print, snapshot, &replaced);
                    rank::graph_after(&replaced, kept.graph, &snapshot.files)
                }
                None => (rank::graph(&snapshot.files), false),
            };
        let graph = Arc::new(graph);
        edits.keep(edits.version());
        let kept = KeptGraph {
            lineage: edits.lineage,
            version: edits.version(),
            graph: graph.clone(),
        };
        *last = Some((snapshot.fingerprint, Arc::new(kept)));
        (graph, patched)
    }

    /// The ranking of a question about `snapshot` of folder `dir`.
    fn ranking(
        &self,
        dir: &coderd_core::jail::Resolved,
        snapshot: &index::Snapshot,
        steering: &Steering,
    ) -> Arc<Ranked> {
        self.ranked(&dir.abs, steering, snapshot.fingerprint, || {
            let (graph, patched) = self.graph(snapshot);
            // Only a focus file's ties read the module structure. A question without focus after
            // an edit (its graph patched) does not wait for it: the pass after the change builds
            // it (`ahead`); otherwise (the cold map) it is built now for the focus questions.
            let structure = match steering.focus.is_empty() && patched {
                true => Arc::default(),
                false => self.structure(snapshot),
            };
            // A mention of a name the snapshot holds nowhere changes nothing: the question without
            // it is the same question.
            let mut steering = steering.clone();
            let files = &snapshot.files;
            steering
                .mentions
                .retain(|m| !mentions::inert(files, &graph, m));
            let rank = || rank::rank(files, &steering, &structure, &graph);
            let unsteered = steering.focus.is_empty() && steering.co_changed.is_empty();
            match unsteered && steering.mentions.is_empty() {
                true => self.unsteered(&dir.abs, &steering, snapshot.fingerprint, rank),
                false => Arc::new(rank()),
            }
        })
    }

    /// The unsteered ranking of `snapshot`, as the question without focus or mentions computes it
    /// (`ahead`: ranked before it is asked).
    fn rank_unsteered(
        &self,
        dir: &coderd_core::jail::Resolved,
        snapshot: &index::Snapshot,
        include_tests: bool,
    ) {
        let steering = Steering {
            include_tests,
            ..Steering::default()
        };
        // The next focus question needs the snapshot's graph and structure even when this
        // ranking is a kept one (a file written back as it was): built here too, the graph
        // first (patching it carries the last structure over when the edit left it as it was).
        self.graph(snapshot);
        self.structure(snapshot);
        self.ranking(dir, snapshot, &steering);
    }

    /// The ranking for these files and steering: a kept one when the question was asked of the
    /// same files lately (an agent going back and forth between two focus files ranks each once).
    fn ranked(
        &self,
        dir: &std::path::Path,
        steering: &Steering,
        fingerprint: u64,
        compute: impl FnOnce() -> Arc<Ranked>,
    ) -> Arc<Ranked> {
        let key = question_key(dir, steering, fingerprint);
        let lock = || self.ranked.lock().unwrap_or_else(|e| e.into_inner());
        let mut kept = lock();
        if let Some(at) = kept.iter().position(|(k, _)| *k == key) {
            let hit = kept.remove(at);
            kept.push(hit.clone());
            return hit.1;
        }
        // Not held while ranking: a focus question asked while the unsteered one is ranked
        // (`ahead`) waits only for what it shares with it (the graph).
        drop(kept);
        let ranked = compute();
        let mut kept = lock();
        kept.retain(|(k, _)| *k != key);
        if kept.len() == RANKINGS_KEPT {
            kept.remove(0);
        }
        kept.push((key, ranked.clone()));
        ranked
    }

    /// The unsteered ranking of a snapshot: the kept one while the key is the same. Its
    /// personalization is uniform, so its walk and scoring cover the whole graph (at 200,000
    /// files most of a second): it is computed once per snapshot.
    fn unsteered(
        &self,
        dir: &std::path::Path,
        steering: &Steering,
        fingerprint: u64,
        compute: impl FnOnce() -> Ranked,
    ) -> Arc<Ranked> {
        let key = question_key(dir, steering, fingerprint);
        let mut kept = self.unsteered.lock().unwrap_or_else(|e| e.into_inner());
        match kept.as_ref() {
            Some((k, ranked)) if *k == key => ranked.clone(),
            _ => {
                *kept = None;
                let ranked = Arc::new(compute());
                *kept = Some((key, ranked.clone()));
                ranked
            }
        }
    }
}

/// The key of a question about a snapshot in the kept rankings.
fn question_key(dir: &std::path::Path, steering: &Steering, fingerprint: u64) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    (dir, steering, fingerprint).hash(&mut hasher);
    hasher.finish()
}

/// A snapshot's reference graph and which version of its list of files it was made of
/// (`index::Edits`): a later version's replaced files patch it.
struct KeptGraph {
    lineage: u64,
    version: usize,
    graph: Arc<graph::Graph>,
}

/// What was made of the last snapshot without tests (`[0]`) and with them (`[1]`), by fingerprint.
type PerKind<T> = [Mutex<Option<(u64, Arc<T>)>>; 2];

/// What `build` makes of a snapshot, kept for the next snapshot of its kind with the same
/// fingerprint (the same files, and nothing the ranking reads changed in them); the other kind's
/// is taken when its fingerprint is the same (a tree without test files: the same files).
fn of_snapshot<T>(
    kept: &PerKind<T>,
    snapshot: &index::Snapshot,
    build: impl FnOnce() -> T,
) -> Arc<T> {
    let kind = snapshot.with_tests() as usize;
    let other = kept[1 - kind].lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, held)) = other.as_ref().filter(|(k, _)| *k == snapshot.fingerprint) {
        return held.clone();
    }
    drop(other);
    let mut last = kept[kind].lock().unwrap_or_else(|e| e.into_inner());
    match last.as_ref() {
        Some((k, held)) if *k == snapshot.fingerprint => held.clone(),
        _ => {
            *last = None; // the old one's memory back before the new one's is taken
            let built = Arc::new(build());
            *last = Some((snapshot.fingerprint, built.clone()));
            built
        }
    }
}

/// A file of the map's generated test trees, tagged: its `items` and `references` as a tagger
/// would have found them.
#[cfg(test)]
fn tagged(
    rel: String,
    language: &'static str,
    items: Vec<crate::items::Item>,
    references: Vec<(String, u32)>,
) -> Arc<index::FileTags> {
    let outline = crate::items::Outline {
        items,
        parse_errors: 0,
    };
    let tags = crate::tags::Tags {
        outline,
        references,
    };
    Arc::new(index::FileTags::new(
        rel,
        language,
        tags,
        false,
        vec![],
        vec![],
    ))
}

/// The map's generated test trees' random source: numbers below `below`, the same for a seed.
#[cfg(test)]
fn seeded(seed: u64) -> impl FnMut(usize) -> usize {
    let mut state = seed;
    move |below: usize| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize % below
    }
}
