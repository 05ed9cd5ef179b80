//! Ranking: a graph with a node per file and an edge from each file that uses a name to each file
//! that defines it, PageRank over it (personalised by the focus files and mentioned names), and
//! the rank spread over the definitions. Everything iterates over sorted vectors, so the same
//! input gives the same floating-point sums and the same order.

use super::flows::{Flows, OwnUse};
use super::graph::{Graph, Reached};
use super::index::{FileTags, ItemFacts};
use super::mentions::Mentioned;
use super::modules::Structure;
use super::prefix_sort::{sort, PrefixSorted};
use super::scratch;
use super::steer;
use super::tail::{Listing, Tail};
use foldhash::HashMap;
use rayon::prelude::*;
use std::borrow::Cow;
use std::sync::Arc;

/// A name's id in the ranking, within a language family (`family`): a 64-bit hash with a fixed
/// seed, so ids are the same in every process. A Go file's `Labels` and a TypeScript file's
/// `Labels` are different names: a bare name never ties files across languages. Two names sharing
/// an id would count as one; among the ~20,000 names of a large tree the chance that any two do is
/// about 1 in 10^10.
pub fn name_id(family: &str, name: &str) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0x636f_6465_7264).hash_one((family, name))
}

/// The languages whose files call each other's definitions by name: C and C++ (headers are
/// either), JavaScript and TypeScript, Java and Kotlin; every other language on its own.
pub fn family(language: &str) -> &str {
    match language {
        "c" | "cpp" => "c",
        "javascript" | "typescript" | "tsx" => "javascript",
        "java" | "kotlin" => "jvm",
        other => other,
    }
}

/// A mentioned definition this strong (`steer::mention_weight`: a type or function with a specific
/// name defined in one file is 10 and more; a field of a common name well under 1) is listed
/// before everything else; a weaker one is ranked by the graph like any other.
const STRONG_MENTION: f64 = 1.0;
/// Each further item of a file in the graph's class counts this much of the one before.
const FILE_DECAY: f64 = 0.7;
/// How much more the uses of a focus file count than another file's.
const FOCUS_USES: f64 = 50.0;
/// What a file that changed together with the focus file in every commit of it is worth as a tie,
/// against a name's (`name_weight`: a specific name is 10, shared among its definers): 100 was the
/// best of 100, 300 and 1000 on the tuning repositories (docs/benchmarks.md); more lists files that
/// merely changed together before the imports a change needs.
const CO_CHANGE: f64 = 100.0;

/// What steers the ranking besides the files themselves.
#[derive(Clone, Debug, Default)]
pub struct Steering {
    /// Indices of the focus files (their neighbours rise; their own items are not listed).
    pub focus: Vec<usize>,
    /// Names the agent mentioned.
    pub mentions: Vec<String>,
    /// Whether items inside a module named `test` or `tests` (Rust's `mod tests`) are listed.
    pub include_tests: bool,
    /// Files that changed together with the focus files in the repository's history, with how
    /// strongly (`cochange::ties`), by file index.
    pub co_changed: Vec<(usize, f64)>,
}

impl std::hash::Hash for Steering {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (&self.focus, &self.mentions, self.include_tests).hash(state);
        for &(file, strength) in &self.co_changed {
            (file, strength.to_bits()).hash(state);
        }
    }
}

/// One definition in ranked order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RankedItem {
    pub file: u32,
    pub item: u32,
}

/// A question's ranking: best first, mentioned items, the focus neighbours' best items, the items
/// reached through the graph, then the unscored tail (`tail`: listed as it is read), then the rest
/// by their file's rank and depth.
pub struct Ranked {
    /// The mentioned items and the focus neighbours' best ones.
    lead: Vec<RankedItem>,
    /// The other scored items, sorted as far as they are read (`prefix_sort`): a map reads a
    /// few thousand of a large tree's hundreds of thousands.
    scored: PrefixSorted<Entry>,
    /// The items `lead` lists earlier, sorted: skipped where they would come again.
    taken: Vec<RankedItem>,
    tail: Tail,
    /// The items scoring below zero.
    after: Vec<RankedItem>,
    len: usize,
    files: usize,
    /// The files with no item that say something (`tail::Listing::itemless`), which the map
    /// names (`named`): those tied to the focus files, most tied first, each with its place in
    /// the ranking (`itemless_places`); the rest, in path order, after every ranked file.
    itemless_tied: Vec<(usize, u32)>,
    itemless_rest: Vec<u32>,
    /// Items not listed because they belong to focus files.
    pub focus_items: usize,
}

impl Ranked {
    /// The items in ranked order, listed as they are read (`files` are the ranked snapshot's).
    pub fn items<'a>(
        &'a self,
        files: &'a [Arc<FileTags>],
    ) -> impl Iterator<Item = RankedItem> + 'a {
        let taken = |e: &RankedItem| self.taken.binary_search(e).is_ok();
        let scored = self.scored.iter().map(|e| item(&e));
        self.lead
            .iter()
            .copied()
            .chain(scored.filter(move |e| !taken(e)))
            .chain(self.tail.iter(files))
            .chain(self.after.iter().copied())
    }

    /// How many items `items` lists.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many files those items are in.
    pub fn files(&self) -> usize {
        self.files
    }

    /// The files with no item that the map may name: those tied to the focus files, each with
    /// how many ranked items come before it (most tied first), and the rest, in path order.
    pub fn itemless(&self) -> (&[(usize, u32)], &[u32]) {
        (&self.itemless_tied, &self.itemless_rest)
    }

    /// How many files the map may list: the items' and the files with none.
    pub fn listable_files(&self) -> usize {
        self.files + self.itemless_tied.len() + self.itemless_rest.len()
    }
}

/// How much one use of `name` says about the files defining it: long specific names more than
/// short common ones, names defined in many files less, private-looking names less.
pub(super) fn name_weight(name: &str, n_definers: usize, mentioned: bool) -> f64 {
    let mut weight = 1.0;
    let specific = name.len() >= 8
        && (name.contains('_')
            || name.contains('-')
            || name.chars().any(|c| c.is_uppercase()) && name.chars().any(|c| c.is_lowercase()));
    if specific {
        weight *= 10.0;
    } else if name.chars().count() <= 3 {
        // `len`, `new`, `get`, `fmt`: mostly calls of library methods of the same name.
        weight *= 0.3;
    }
    if name.starts_with('_') {
        weight *= 0.1;
    }
    if n_definers > 5 {
        weight *= 0.1;
    }
    if mentioned {
        weight *= 10.0;
    }
    weight
}

/// The reference graph of `files` (sorted by path), which every question about them shares.
pub fn graph(files: &[Arc<FileTags>]) -> Graph {
    Graph::of(files, |name, n_definers| {
        name_weight(name, n_definers, false)
    })
}

/// The reference graph of `files`, patched from `last`, the graph of the files before the
/// `replaced` ones (by index, with their tags before) replaced them, when only a few did
/// (`Graph::patched`: equal to a new one's), else built anew; and whether it was patched.
pub fn graph_after(
    replaced: &[(usize, Arc<FileTags>)],
    last: Arc<Graph>,
    files: &[Arc<FileTags>],
) -> (Graph, bool) {
    let weight = |name: &str, n_definers| name_weight(name, n_definers, false);
    let started = std::time::Instant::now();
    let patched = Arc::try_unwrap(last)
        .ok()
        .and_then(|graph| graph.patched(replaced, files, &weight));
    tracing::debug!(
        patched = patched.is_some(),
        us = started.elapsed().as_micros() as u64,
        "map graph after a change"
    );
    match patched {
        Some(graph) => (graph, true),
        None => (Graph::of(files, weight), false),
    }
}

/// Ranks the definitions of `files`, which are sorted by path; `structure` and `graph` are theirs.
pub fn rank(
    files: &[Arc<FileTags>],
    steering: &Steering,
    structure: &Structure,
    graph: &Graph,
) -> Ranked {
    rank_with(files, steering, structure, graph, super::graph::DENSE_SHARE)
}

/// `rank`, its PageRank walking every file once more than `1 / dense_share` of them are reached
/// (`graph::Steered::pagerank_with`: the tests compare a sparse walk with a dense one). The steps:
/// the question's weights and walk, the rank flowing to each name, the focus files' ties, the
/// scoring of the items that can score, the order.
pub(super) fn rank_with(
    files: &[Arc<FileTags>],
    steering: &Steering,
    structure: &Structure,
    graph: &Graph,
    dense_share: usize,
) -> Ranked {
    rank_sorting(files, steering, structure, graph, dense_share, SORTED_FIRST)
}

/// How many of the scored items are sorted at once (`prefix_sort`), the rest when a map reads
/// past them: more than the default budget's map shows (8,000 characters, at least 7 per item).
/// The files a map names after its items (`named`) are read further down the same order.
/// Few in the tests, so that their maps read past them.
const SORTED_FIRST: usize = if cfg!(test) { 8 } else { 4096 };

/// `rank_with`, its `sorted_first` best scored items sorted at once (the tests compare any
/// number with all).
pub(super) fn rank_sorting(
    files: &[Arc<FileTags>],
    steering: &Steering,
    structure: &Structure,
    graph: &Graph,
    dense_share: usize,
    sorted_first: usize,
) -> Ranked {
    debug_assert!(files.windows(2).all(|w| w[0].rel < w[1].rel));
    let started = std::time::Instant::now();
    let mentioned = Mentioned::of(files, graph, &steering.mentions);
    let weights = weights(files, graph, &mentioned.names);
    let steered = graph.steer(
        files,
        &steering.focus,
        FOCUS_USES,
        &weights,
        &mentioned.names,
    );
    let personalization = personalization(files.len(), &steering.focus, &mentioned.restarts);
    let steered_at = started.elapsed();
    let reached = steered.pagerank_with(&personalization, dense_share);
    let walked = started.elapsed();
    let flows = Flows::of(&steered, &reached, graph.definers.len());
    let flowed_at = started.elapsed();
    let ties = ties(files, steering, graph, &weights, structure);
    let tied = started.elapsed();
    let scoring = Scoring {
        files,
        steering,
        graph,
        rank: &reached.rank,
        flows: &flows,
    };
    let scorable = scored_files(files.len(), &reached, &flows, graph, &mentioned);
    let scored = scoring.classify(&scorable);
    let scored_at = started.elapsed();
    let ranked = ordered(scored, &ties, steering, files, graph, sorted_first);
    for buffer in [reached.rank, flows.per_name, personalization] {
        scratch::give_back(buffer);
    }
    // Where a new question's time goes, for `CODERD_LOG=coderd=debug`.
    tracing::debug!(
        reached = reached.files.len(),
        steer_us = steered_at.as_micros() as u64,
        pagerank_us = (walked - steered_at).as_micros() as u64,
        flows_us = (flowed_at - walked).as_micros() as u64,
        ties_us = (tied - flowed_at).as_micros() as u64,
        score_us = (scored_at - tied).as_micros() as u64,
        order_us = (started.elapsed() - scored_at).as_micros() as u64,
        "rank"
    );
    ranked
}

/// The question's name weights: the graph's, the mentioned names (`raised`) weighing more.
fn weights<'a>(files: &[Arc<FileTags>], graph: &'a Graph, raised: &[usize]) -> Cow<'a, [f64]> {
    if raised.is_empty() {
        return Cow::Borrowed(&graph.weights);
    }
    let mut weights = graph.weights.clone();
    for &name in raised {
        let n_definers = graph.definers[name].len();
        weights[name] = name_weight(graph.text(files, name), n_definers, true);
    }
    Cow::Owned(weights)
}

/// How closely each file is tied to the focus files: by names and modules (`steer`), by imports
/// (`modules`), by the history.
fn ties(
    files: &[Arc<FileTags>],
    steering: &Steering,
    graph: &Graph,
    weights: &[f64],
    structure: &Structure,
) -> Vec<f64> {
    let mut ties = steer::neighbours(files, &steering.focus, graph, weights, structure);
    structure.tie(&steering.focus, &mut ties, &super::modules::WEIGHTS);
    for &(f, strength) in &steering.co_changed {
        ties[f] += CO_CHANGE * strength;
    }
    ties
}

/// The only files whose items can score above zero (sorted): the files the walk reached, the
/// definers of the names rank flowed to, the files holding an item named like a mention. Every
/// other file's items score zero, and so come last in file and item order: they are listed
/// without being scored or sorted (`tail`).
fn scored_files(
    n: usize,
    reached: &Reached,
    flows: &Flows,
    graph: &Graph,
    mentioned: &Mentioned,
) -> Vec<usize> {
    if reached.files.len() == n {
        // The unsteered walk reaches every file: no need to read every name's definers (each
        // its own allocation, a cache miss per name) to learn that.
        return reached.files.clone();
    }
    let mut scores = vec![false; n];
    let definers = flows.flowed.iter().flat_map(|&name| &graph.definers[name]);
    let holders = mentioned.holders.iter();
    for &f in reached.files.iter().chain(definers).chain(holders) {
        scores[f] = true;
    }
    (0..n).filter(|&f| scores[f]).collect()
}

/// What scores an item: the question, the walk's ranks and the names' flows.
struct Scoring<'a> {
    files: &'a [Arc<FileTags>],
    steering: &'a Steering,
    graph: &'a Graph,
    rank: &'a [f64],
    flows: &'a Flows,
}

/// How many files one scoring task takes (few in the tests, so that their trees are split too).
const SCORED_PER_TASK: usize = if cfg!(test) { 16 } else { 2048 };

/// The scored files' items by where they go: above zero or in a class before the last (`head`,
/// in file and item order, in the parts scored on the cores), scoring zero (`zeros`, in file and
/// item order, listed in the tail), below zero (`after`).
#[derive(Default)]
struct Scored {
    head: Vec<Vec<Entry>>,
    /// How many of `head` are mentioned (class 0).
    mentioned: usize,
    zeros: Vec<RankedItem>,
    after: Vec<Entry>,
    /// The scored files (sorted), and how many of them have an item listed.
    files: Vec<usize>,
    files_listing: usize,
    focus_items: usize,
}

impl Scored {
    /// The parts scored on the cores, in file order, one after the other.
    fn joined(parts: Vec<Scored>) -> Scored {
        let total = |len: fn(&Scored) -> usize| parts.iter().map(len).sum::<usize>();
        let mut scored = Scored {
            head: Vec::with_capacity(total(|p| p.head.len())),
            zeros: Vec::with_capacity(total(|p| p.zeros.len())),
            after: Vec::with_capacity(total(|p| p.after.len())),
            files: Vec::with_capacity(total(|p| p.files.len())),
            ..Scored::default()
        };
        for part in parts {
            scored.head.extend(part.head);
            scored.mentioned += part.mentioned;
            scored.zeros.extend(part.zeros);
            scored.after.extend(part.after);
            scored.files.extend(part.files);
            scored.files_listing += part.files_listing;
            scored.focus_items += part.focus_items;
        }
        scored
    }
}

impl Scoring<'_> {
    /// The class and score of item `i` of file `f`, whose own uses are `own`.
    fn score(&self, f: usize, i: usize, facts: ItemFacts, own: &[OwnUse]) -> (u8, f64) {
        let graph = self.graph;
        let name = match facts.symbol {
            true => graph.item_name(f, i),
            false => None,
        };
        if !self.steering.mentions.is_empty() {
            let item = &self.files[f].tags.outline.items[i];
            if self.steering.mentions.contains(&item.name) {
                let n_definers = name.map_or(1, |n| graph.definers[n].len());
                let specificity = name_weight(&item.name, n_definers, false);
                let weight = steer::mention_weight(item.kind, &item.name, specificity, n_definers);
                if weight >= STRONG_MENTION {
                    return (0, weight);
                }
            }
        }
        match name.and_then(|name| self.flows.definition_rank(own, name)) {
            Some(score) => (1, score * facts.kind_weight),
            None => (2, self.rank[f] / (1.0 + facts.depth as f64)),
        }
    }

    /// The listed items of `files` (sorted) scored, a focus file's counted instead: in parts of
    /// files on all cores, joined in file order (each item's score is its own and its file's:
    /// the same scores, the same order).
    fn classify(&self, files: &[usize]) -> Scored {
        // A focus question's few files are scored here: handing them to the pool costs more.
        if files.len() <= SCORED_PER_TASK {
            return self.classify_part(files);
        }
        let parts: Vec<Scored> = files
            .par_chunks(SCORED_PER_TASK)
            .map(|part| self.classify_part(part))
            .collect();
        Scored::joined(parts)
    }

    fn classify_part(&self, files: &[usize]) -> Scored {
        let include_tests = self.steering.include_tests;
        let listing = &self.graph.listing;
        let listed = files.iter().map(|&f| listing.count(f, include_tests)).sum();
        let mut head = Vec::with_capacity(listed);
        let mut scored = Scored {
            files: files.to_vec(),
            ..Scored::default()
        };
        let mut own_uses = self.flows.own_uses_from(files.first().map_or(0, |&f| f));
        let mut graph_class = Vec::new();
        for &f in files {
            let own = Flows::own_uses_of(&mut own_uses, f);
            self.classify_file(f, own, &mut head, &mut scored, &mut graph_class);
        }
        scored.head = vec![head];
        scored
    }

    /// File `f`'s listed items scored (`own` its own uses) onto `head` or `scored`'s other
    /// lists, or counted for a focus file.
    fn classify_file(
        &self,
        f: usize,
        own: &[OwnUse],
        head: &mut Vec<Entry>,
        scored: &mut Scored,
        graph_class: &mut Vec<usize>,
    ) {
        // Read from the graph's runs, in file order: the tags are wherever each file was parsed,
        // and reading them was most of the scoring's time at 200,000 files.
        let facts = self.graph.item_facts(f);
        if self.steering.focus.contains(&f) {
            scored.focus_items += facts.len();
            return;
        }
        let include_tests = self.steering.include_tests;
        // A generated file lists none; another lists its items but tests' when they are left out.
        if self.graph.listing.count(f, include_tests) == 0 {
            return;
        }
        let listed = (0..facts.len()).filter(|&i| include_tests || !facts[i].in_tests);
        let (from, mut any) = (head.len(), false);
        for i in listed {
            any = true;
            let (class, score) = self.score(f, i, facts[i], own);
            let entry = (class, score, f as u32, i as u32);
            match (class, score.total_cmp(&0.0)) {
                (2, std::cmp::Ordering::Equal) => scored.zeros.push(item(&entry)),
                (2, std::cmp::Ordering::Less) => scored.after.push(entry),
                (class, _) => {
                    scored.mentioned += usize::from(class == 0);
                    head.push(entry);
                }
            }
        }
        spread_over_file(&mut head[from..], graph_class);
        scored.files_listing += usize::from(any);
    }
}

/// One scored entry: its class (0 mentioned, 1 reached through the graph, 2 the rest), its
/// score, its file and its item.
type Entry = (u8, f64, u32, u32);

fn item(&(_, _, file, item): &Entry) -> RankedItem {
    RankedItem { file, item }
}

/// The ranking in order: the mentioned items, the focus neighbours' best items
/// (`neighbours_first`), the other scored entries by class and score (sorted as far as they are
/// read), the tail after them, then the entries below zero.
fn ordered(
    mut scored: Scored,
    ties: &[f64],
    steering: &Steering,
    files: &[Arc<FileTags>],
    graph: &Graph,
    sorted_first: usize,
) -> Ranked {
    let mentioned = take_mentioned(&mut scored);
    sort(&mut scored.after, order);
    let scored_files = scored.files.iter().map(|&f| f as u32).collect();
    let mut tail = Tail::new(scored_files, scored.zeros, steering.include_tests);
    let (tail_items, tail_files) = tail.size(&graph.listing);
    let n_scored: usize = scored.head.iter().map(Vec::len).sum();
    let len = mentioned.len() + n_scored + tail_items + scored.after.len();
    let parts = Parts {
        scored: &scored.head,
        tail: &tail,
        after: &scored.after,
    };
    let picked = neighbours_first(&parts, ties, &steering.co_changed, files);
    let (itemless_tied, itemless_rest) = itemless(&graph.listing, ties, steering, &picked);
    let itemless_tied = itemless_places(itemless_tied, mentioned.len(), &picked, ties);
    let mut taken = picked.clone();
    taken.sort_unstable();
    let after = scored.after.iter().map(item);
    let after = after.filter(|e| taken.binary_search(e).is_err()).collect();
    tail.take(picked.clone());
    let mut lead: Vec<RankedItem> = mentioned.iter().map(item).collect();
    lead.extend(picked);
    Ranked {
        lead,
        scored: PrefixSorted::new(scored.head, sorted_first, order),
        taken,
        tail,
        after,
        len,
        files: scored.files_listing + tail_files,
        itemless_tied,
        itemless_rest,
        focus_items: scored.focus_items,
    }
}

/// The files with no item that say something (`tail::Listing::itemless`) but the focus files:
/// those tied to the focus files, most tied first, and the rest in path order.
fn itemless(
    listing: &Listing,
    ties: &[f64],
    steering: &Steering,
    picked: &[RankedItem],
) -> (Vec<u32>, Vec<u32>) {
    let files = listing.itemless().iter().copied();
    let files = files.filter(|&f| !steering.focus.contains(&(f as usize)));
    let (mut tied, rest): (Vec<u32>, Vec<u32>) = files.partition(|&f| ties[f as usize] > 0.0);
    let tie = |f: u32| ties[f as usize];
    tied.sort_unstable_by(|&a, &b| tie(b).total_cmp(&tie(a)).then(a.cmp(&b)));
    debug_assert!(picked.iter().all(|p| !tied.contains(&p.file)));
    (tied, rest)
}

/// Each of the `tied` files (most tied first) with its place in the ranking: after the
/// `mentioned` items and as many of the neighbours listed first (`picked`, one item each) as are
/// tied at least as strongly, where it would be listed had it an item.
fn itemless_places(
    tied: Vec<u32>,
    mentioned: usize,
    picked: &[RankedItem],
    ties: &[f64],
) -> Vec<(usize, u32)> {
    let mut stronger: Vec<f64> = picked.iter().map(|p| ties[p.file as usize]).collect();
    stronger.sort_unstable_by(|a, b| b.total_cmp(a));
    let place = |f: u32| mentioned + stronger.partition_point(|&t| t >= ties[f as usize]);
    tied.into_iter().map(|f| (place(f), f)).collect()
}

/// The mentioned entries (class 0) taken out of the scored ones, in order: listed first.
fn take_mentioned(scored: &mut Scored) -> Vec<Entry> {
    if scored.mentioned == 0 {
        return Vec::new();
    }
    let entries = scored.head.iter().flatten();
    let mut mentioned: Vec<Entry> = entries.filter(|e| e.0 == 0).copied().collect();
    for part in &mut scored.head {
        part.retain(|e| e.0 != 0);
    }
    sort(&mut mentioned, order);
    mentioned
}

/// The ranking's order: by class, then best score first. No two entries are equal (their file
/// and item indices differ): unstable sorting is exact.
fn order(a: &Entry, b: &Entry) -> std::cmp::Ordering {
    a.0.cmp(&b.0)
        .then(b.1.total_cmp(&a.1))
        // `files` is sorted by path, so the index orders ties by path without comparing them.
        .then(a.2.cmp(&b.2))
        .then(a.3.cmp(&b.3))
}

/// A file's later items in the graph's class count less (each `FILE_DECAY` times the one before,
/// in the ranking's order), so that the map shows more files rather than every method of the
/// best one. `entries` are one file's; only its own order matters, so each file is spread as
/// it is scored, on the cores, with no sort of the whole ranking to find it.
fn spread_over_file(entries: &mut [Entry], graph_class: &mut Vec<usize>) {
    graph_class.clear();
    graph_class.extend((0..entries.len()).filter(|&k| entries[k].0 == 1));
    if graph_class.len() < 2 {
        // The first counts in full.
        return;
    }
    graph_class.sort_unstable_by(|&a, &b| order(&entries[a], &entries[b]));
    for (seen, &k) in graph_class.iter().enumerate() {
        entries[k].1 *= FILE_DECAY.powi(seen as i32);
    }
}

/// Every this many places among the focus neighbours listed first, the file that changed most
/// with the focus file and is not listed yet: 3 over 2, 4 and 5, and over none (the ties alone),
/// on the tuning repositories and tokio (docs/benchmarks.md, "The history's lane").
const HISTORY_LANE: usize = 3;

/// The ranking after its mentioned items, one part after the other.
struct Parts<'a> {
    /// In no order (`order` orders them), in parts.
    scored: &'a [Vec<Entry>],
    tail: &'a Tail,
    /// In order.
    after: &'a [Entry],
}

/// The items listed after the mentioned ones and before the rest: one of each focus neighbour,
/// an agent editing a file needs to see that its imports and callers exist before it needs a
/// second item of any of them. The neighbours come most tied first, except that every
/// `HISTORY_LANE`-th place goes to the next file by the history alone: a file that changed with
/// the focus file before is what its next change needs more often than a tie's size says, when
/// the focus file's many names outweigh it (`cochange`). A neighbour is shown by its best
/// top-level item when it has one: one line under its path, where a method or field takes its
/// parent's line and a gap too, so the budget lists more of the neighbours. The picked items are
/// taken out of the parts.
fn neighbours_first(
    parts: &Parts,
    ties: &[f64],
    co_changed: &[(usize, f64)],
    files: &[Arc<FileTags>],
) -> Vec<RankedItem> {
    let best = best_items(parts, ties, files);
    let by_strength = |list: &mut Vec<(f64, usize)>| {
        list.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    };
    // Sorted in full (no two files are equal): the map's order of keys does not matter.
    let mut tied: Vec<(f64, usize)> = best.keys().map(|&f| (ties[f], f)).collect();
    by_strength(&mut tied);
    let mut history: Vec<(f64, usize)> = co_changed
        .iter()
        .filter(|(f, _)| best.contains_key(f))
        .map(|&(f, strength)| (strength, f))
        .collect();
    by_strength(&mut history);
    // Both lists hold only files with a best item.
    let picked = interleave(&tied, &history, ties.len()).into_iter();
    picked.map(|f| best[&f]).collect()
}

/// Per focus neighbour (a file tied to the focus files), its item shown among the neighbours: its
/// first top-level item in the parts' order, else its first item; none for a file with no item
/// in them.
fn best_items(parts: &Parts, ties: &[f64], files: &[Arc<FileTags>]) -> HashMap<usize, RankedItem> {
    if !ties.iter().any(|&t| t > 0.0) {
        return HashMap::default();
    }
    let mut first: HashMap<usize, Entry> = HashMap::default();
    let mut top: HashMap<usize, Entry> = HashMap::default();
    let top_level = |e: &Entry| files[e.2 as usize].tags.outline.items[e.3 as usize].parent;
    // The scored entries are in no order: each tied file's best by the ranking's order.
    let scored = parts.scored.iter().flatten();
    for e in scored.filter(|e| ties[e.2 as usize] > 0.0) {
        let keep_best = |best: &mut HashMap<usize, Entry>| {
            let kept = best.entry(e.2 as usize).or_insert(*e);
            if order(e, kept).is_lt() {
                *kept = *e;
            }
        };
        keep_best(&mut first);
        if top_level(e).is_none() {
            keep_best(&mut top);
        }
    }
    // The tail and the entries below zero come after every scored one, in order.
    let mut see = |e: Entry| {
        first.entry(e.2 as usize).or_insert(e);
        if top_level(&e).is_none() {
            top.entry(e.2 as usize).or_insert(e);
        }
    };
    // The tail holds each file's items together: only the tied files' are read.
    for f in (0..ties.len()).filter(|&f| ties[f] > 0.0) {
        let of_file = parts.tail.of_file(f, files);
        of_file.for_each(|e| see((2, 0.0, e.file, e.item)));
    }
    let after = parts.after.iter().filter(|e| ties[e.2 as usize] > 0.0);
    after.copied().for_each(&mut see);
    first
        .into_iter()
        .map(|(f, e)| (f, item(top.get(&f).unwrap_or(&e))))
        .collect()
}

/// The files of `tied` in order, every `HISTORY_LANE`-th place taken by the next of `history`
/// not placed yet (both lists of the same files' subset, best first); `n` files in the tree.
fn interleave(tied: &[(f64, usize)], history: &[(f64, usize)], n: usize) -> Vec<usize> {
    let mut placed = vec![false; n];
    let mut cursors = [0, 0];
    let lists = [tied, history];
    let mut order = Vec::new();
    loop {
        let lane = usize::from((order.len() + 1) % HISTORY_LANE == 0);
        let mut next = |list: usize| {
            let at = &mut cursors[list];
            while let Some(&(_, f)) = lists[list].get(*at) {
                *at += 1;
                if !placed[f] {
                    return Some(f);
                }
            }
            None
        };
        let Some(f) = next(lane).or_else(|| next(1 - lane)) else {
            return order;
        };
        placed[f] = true;
        order.push(f);
    }
}

/// Where a random walk restarts: the focus files and the mentions' (`Mentioned::restarts`); every
/// file alike when nothing steers.
fn personalization(n: usize, focus: &[usize], restarts: &[usize]) -> Vec<f64> {
    let mut weights = scratch::zeros(n, true);
    // Each adds 1: small whole numbers, whose sums are exact in any order.
    for &f in focus.iter().chain(restarts) {
        weights[f] += 1.0;
    }
    let total: f64 = weights.iter().sum();
    if total == 0.0 {
        weights.fill(1.0 / n.max(1) as f64);
        return weights;
    }
    weights.iter_mut().for_each(|w| *w /= total);
    weights
}

#[cfg(test)]
mod tests;
