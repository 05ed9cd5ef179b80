//! Ranking: a graph with a node per file and an edge from each file that uses a name to each file
//! that defines it, PageRank over it (personalised by the focus files and mentioned names), and
//! the rank spread over the definitions. Everything iterates over sorted vectors, so the same
//! input gives the same floating-point sums and the same order.

use super::index::FileTags;
use super::modules::Structure;
use super::steer;
use crate::Kind;
use foldhash::HashMap;
use rayon::prelude::*;
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

const DAMPING: f64 = 0.85;
/// A mentioned definition this strong (`steer::mention_weight`: a type or function with a specific
/// name defined in one file is 10 and more; a field of a common name well under 1) is listed
/// before everything else; a weaker one is ranked by the graph like any other.
const STRONG_MENTION: f64 = 1.0;
/// Each further item of a file in the graph's class counts this much of the one before.
const FILE_DECAY: f64 = 0.7;
const ITERATIONS: usize = 60;
/// What a file that changed together with the focus file in every commit of it is worth as a tie,
/// against a name's (`name_weight`: a specific name is 10, shared among its definers): 100 was the
/// best of 100, 300 and 1000 on the tuning repositories (docs/benchmarks.md); more lists files that
/// merely changed together before the imports a change needs.
const CO_CHANGE: f64 = 100.0;
/// Ranks sum to 1; a total change below this moves no definition past another in practice.
const TOLERANCE: f64 = 1e-10;

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
#[derive(Clone, Copy, Debug)]
pub struct RankedItem {
    pub file: u32,
    pub item: u32,
}

pub struct Ranked {
    /// Best first: mentioned items, items reached through the graph, then the rest by their file's
    /// rank and depth.
    pub items: Vec<RankedItem>,
    /// Items not listed because they belong to focus files.
    pub focus_items: usize,
}

/// Kinds that count as definitions in the graph (headings and config keys do not).
fn is_symbol(kind: Kind) -> bool {
    !matches!(kind, Kind::Heading | Kind::Key)
}

/// How much one use of `name` says about the files defining it: long specific names more than
/// short common ones, names defined in many files less, private-looking names less.
fn name_weight(name: &str, n_definers: usize, mentioned: bool) -> f64 {
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

/// One file's use of one defined name.
struct Use {
    file: usize,
    name: usize,
    weight: f64,
    /// Whether the file defines the name too (its own definition gets none of this use).
    self_defined: bool,
}

/// The graph in name-aggregated form: a use of a name flows to every file defining it, so a flow is
/// summed once per name instead of once per (user, definer) pair: common names defined in hundreds
/// of files cost no more than rare ones.
struct Graph {
    uses: Vec<Use>,
    definers: Vec<Vec<usize>>,
    out_weight: Vec<f64>,
    /// Per use, the share of its file's rank it carries (its weight over the file's out-weight).
    share: Vec<f64>,
    /// The uses of names their own file defines too.
    own: Vec<usize>,
}

impl Graph {
    fn new(uses: Vec<Use>, definers: Vec<Vec<usize>>, out_weight: Vec<f64>) -> Graph {
        let share = uses
            .iter()
            .map(|u| match out_weight[u.file] {
                0.0 => 0.0,
                out => u.weight / out,
            })
            .collect();
        let own = (0..uses.len()).filter(|&i| uses[i].self_defined).collect();
        Graph {
            uses,
            definers,
            out_weight,
            share,
            own,
        }
    }

    /// Per use, the rank it carries (into `flows`, reused across iterations).
    fn flows(&self, rank: &[f64], flows: &mut Vec<f64>) {
        flows.clear();
        flows.extend(
            self.uses
                .iter()
                .zip(&self.share)
                .map(|(u, share)| rank[u.file] * share),
        );
    }

    /// Rank arriving at each file over the uses (into `inflow`); `scratch` holds the flows and the
    /// per-name sums between calls.
    fn inflow(&self, rank: &[f64], scratch: &mut Scratch, inflow: &mut [f64]) {
        self.flows(rank, &mut scratch.flows);
        scratch.per_name.clear();
        scratch.per_name.resize(self.definers.len(), 0.0);
        for (u, flow) in self.uses.iter().zip(&scratch.flows) {
            scratch.per_name[u.name] += flow;
        }
        inflow.fill(0.0);
        for (list, sum) in self.definers.iter().zip(&scratch.per_name) {
            for &to in list {
                inflow[to] += sum;
            }
        }
        for &i in &self.own {
            inflow[self.uses[i].file] -= scratch.flows[i];
        }
    }
}

/// Buffers one PageRank iteration fills, kept for the next.
#[derive(Default)]
struct Scratch {
    flows: Vec<f64>,
    per_name: Vec<f64>,
}

/// Ranks the definitions of `files`, which are sorted by path; `structure` is theirs.
pub fn rank(files: &[Arc<FileTags>], steering: &Steering, structure: &Structure) -> Ranked {
    debug_assert!(files.windows(2).all(|w| w[0].rel < w[1].rel));
    let n = files.len();
    let is_focus: Vec<bool> = (0..n).map(|i| steering.focus.contains(&i)).collect();
    // Every defined name (numbered in file order, so the numbering is deterministic) and the
    // files defining it (sorted, unique). Hash maps are only looked up, never iterated.
    let mut name_index: HashMap<u64, usize> = HashMap::default();
    let mut definers: Vec<Vec<usize>> = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    for (i, file) in files.iter().enumerate() {
        for (item, &id) in file.tags.outline.items.iter().zip(&file.item_ids) {
            if is_symbol(item.kind) {
                let next = definers.len();
                let name = *name_index.entry(id).or_insert(next);
                if name == next {
                    definers.push(Vec::new());
                    names.push(item.name.as_str());
                }
                if definers[name].last() != Some(&i) {
                    definers[name].push(i);
                }
            }
        }
    }
    let mentioned = |name: &str| steering.mentions.iter().any(|m| m == name);
    // A name's weight depends on the name alone: computed once per name, not once per use.
    let name_weights: Vec<f64> = names
        .iter()
        .zip(&definers)
        .map(|(name, list)| name_weight(name, list.len(), mentioned(name)))
        .collect();
    // Each file's uses on its own (all cores), joined in file order: the same order, and so the
    // same floating-point sums, as one loop over the files.
    let per_file: Vec<(Vec<Use>, f64)> = files
        .par_iter()
        .enumerate()
        .map(|(file, tags)| {
            let focus = is_focus[file];
            file_uses(
                file,
                &tags.reference_ids,
                &name_index,
                &definers,
                &name_weights,
                focus,
            )
        })
        .collect();
    let mut uses = Vec::with_capacity(per_file.iter().map(|(u, _)| u.len()).sum());
    let mut out_weight = Vec::with_capacity(n);
    for (file_uses, file_out) in per_file {
        uses.extend(file_uses);
        out_weight.push(file_out);
    }
    let personalization = personalization(files, steering, &name_index, &definers);
    let graph = Graph::new(uses, definers, out_weight);
    let file_rank = pagerank(&graph, &personalization);

    // The rank each (definer, name) receives: all the name's flow, less the definer's own use.
    let mut flows = Vec::new();
    graph.flows(&file_rank, &mut flows);
    let mut per_name = vec![0.0; graph.definers.len()];
    for (u, flow) in graph.uses.iter().zip(&flows) {
        per_name[u.name] += flow;
    }
    let own_use: HashMap<(usize, usize), f64> = graph
        .uses
        .iter()
        .zip(&flows)
        .filter(|(u, _)| u.self_defined)
        .map(|(u, flow)| ((u.file, u.name), *flow))
        .collect();
    let definition_rank = |file: usize, name: usize| {
        let score = per_name[name] - own_use.get(&(file, name)).copied().unwrap_or(0.0);
        (score > 0.0).then_some(score)
    };

    let mut ties = steer::neighbours(
        files,
        &steering.focus,
        &name_index,
        &graph.definers,
        &name_weights,
        structure,
    );
    structure.tie(&steering.focus, &mut ties, &super::modules::WEIGHTS);
    for &(f, strength) in &steering.co_changed {
        ties[f] += CO_CHANGE * strength;
    }
    let mut scored: Vec<(u8, f64, usize, usize)> = Vec::new();
    let mut focus_items = 0;
    for (f, file) in files.iter().enumerate() {
        let outline = &file.tags.outline;
        for (i, item) in outline.items.iter().enumerate() {
            if is_focus[f] {
                focus_items += 1;
                continue;
            }
            if file.generated || !steering.include_tests && in_test_module(outline, i) {
                continue;
            }
            let name = name_index
                .get(&file.item_ids[i])
                .copied()
                .filter(|_| is_symbol(item.kind));
            if mentioned(&item.name) {
                let n_definers = name.map_or(1, |n| graph.definers[n].len());
                let specificity = name_weight(&item.name, n_definers, false);
                let weight = steer::mention_weight(item.kind, &item.name, specificity, n_definers);
                if weight >= STRONG_MENTION {
                    scored.push((0, weight, f, i));
                    continue;
                }
            }
            match name.and_then(|name| definition_rank(f, name)) {
                Some(score) => {
                    scored.push((1, score * steer::kind_weight(item.kind, &item.name), f, i))
                }
                None => {
                    let depth = outline.depth(i) as f64;
                    scored.push((2, file_rank[f] / (1.0 + depth), f, i));
                }
            }
        }
    }
    // No two entries are equal (their file and item indices differ): unstable sorting is exact.
    let order = |a: &(u8, f64, usize, usize), b: &(u8, f64, usize, usize)| {
        a.0.cmp(&b.0)
            .then(b.1.total_cmp(&a.1))
            // `files` is sorted by path, so the index orders ties by path without comparing them.
            .then(a.2.cmp(&b.2))
            .then(a.3.cmp(&b.3))
    };
    scored.sort_unstable_by(order);
    spread_over_files(&mut scored, files.len());
    scored.sort_unstable_by(order);
    let items = neighbours_first(scored, &ties, &steering.co_changed, files);
    Ranked { items, focus_items }
}

/// A file's later items in the graph's class count less (each `FILE_DECAY` times the one before),
/// so that the map shows more files rather than every method of the best one.
fn spread_over_files(scored: &mut [(u8, f64, usize, usize)], n_files: usize) {
    let mut seen = vec![0i32; n_files];
    for entry in scored.iter_mut().filter(|e| e.0 == 1) {
        entry.1 *= FILE_DECAY.powi(seen[entry.2]);
        seen[entry.2] += 1;
    }
}

/// Every this many places among the focus neighbours listed first, the file that changed most
/// with the focus file and is not listed yet: 3 over 2, 4 and 5, and over none (the ties alone),
/// on the tuning repositories and tokio (docs/benchmarks.md, "The history's lane").
const HISTORY_LANE: usize = 3;

/// The mentioned items, then one item of each focus neighbour, then the rest in order: an agent
/// editing a file needs to see that its imports and callers exist before it needs a second item
/// of any of them. The neighbours come most tied first, except that every `HISTORY_LANE`-th place
/// goes to the next file by the history alone: a file that changed with the focus file before is
/// what its next change needs more often than a tie's size says, when the focus file's many names
/// outweigh it (`cochange`). A neighbour is shown by its best top-level item when it has one: one
/// line under its path, where a method or field takes its parent's line and a gap too, so the
/// budget lists more of the neighbours.
fn neighbours_first(
    scored: Vec<(u8, f64, usize, usize)>,
    ties: &[f64],
    co_changed: &[(usize, f64)],
    files: &[Arc<FileTags>],
) -> Vec<RankedItem> {
    let item = |&(_, _, f, i): &(u8, f64, usize, usize)| RankedItem {
        file: f as u32,
        item: i as u32,
    };
    let (mentioned, rest): (Vec<_>, Vec<_>) = scored.into_iter().partition(|e| e.0 == 0);
    let best = best_items(&rest, ties, files);
    let by_strength = |list: &mut Vec<(f64, usize)>| {
        list.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    };
    let mut tied: Vec<(f64, usize)> = (0..ties.len())
        .filter(|&f| best[f].is_some())
        .map(|f| (ties[f], f))
        .collect();
    by_strength(&mut tied);
    let mut history: Vec<(f64, usize)> = co_changed
        .iter()
        .filter(|&&(f, _)| best[f].is_some())
        .map(|&(f, strength)| (strength, f))
        .collect();
    by_strength(&mut history);
    let mut taken = vec![false; rest.len()];
    let mut items: Vec<RankedItem> = mentioned.iter().map(item).collect();
    // Both lists hold only files with a best item.
    for at in interleave(&tied, &history, ties.len())
        .into_iter()
        .filter_map(|f| best[f])
    {
        taken[at] = true;
        items.push(item(&rest[at]));
    }
    items.extend(
        rest.iter()
            .zip(&taken)
            .filter(|(_, t)| !**t)
            .map(|(e, _)| item(e)),
    );
    items
}

/// Per file, where its item shown among the neighbours is in `rest` (`None`: not a neighbour):
/// its first top-level item, else its first item.
fn best_items(
    rest: &[(u8, f64, usize, usize)],
    ties: &[f64],
    files: &[Arc<FileTags>],
) -> Vec<Option<usize>> {
    let mut first: Vec<Option<usize>> = vec![None; ties.len()];
    let mut top: Vec<Option<usize>> = vec![None; ties.len()];
    for (at, &(_, _, f, i)) in rest.iter().enumerate() {
        if ties[f] > 0.0 {
            first[f].get_or_insert(at);
            if files[f].tags.outline.items[i].parent.is_none() {
                top[f].get_or_insert(at);
            }
        }
    }
    top.iter().zip(first).map(|(t, f)| t.or(f)).collect()
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

/// One file's uses of defined names, and the weight they carry out of it in all.
fn file_uses(
    file: usize,
    references: &[(u64, u32)],
    name_index: &HashMap<u64, usize>,
    definers: &[Vec<usize>],
    name_weights: &[f64],
    focus: bool,
) -> (Vec<Use>, f64) {
    let mut uses = Vec::new();
    let mut out_weight = 0.0;
    for (id, count) in references {
        let Some(&index) = name_index.get(id) else {
            continue;
        };
        let list = &definers[index];
        let self_defined = list.binary_search(&file).is_ok();
        let targets = list.len() - usize::from(self_defined);
        if targets == 0 {
            continue;
        }
        let mut weight = name_weights[index] * (*count as f64).sqrt();
        if focus {
            weight *= 50.0;
        }
        out_weight += weight * targets as f64;
        uses.push(Use {
            file,
            name: index,
            weight,
            self_defined,
        });
    }
    (uses, out_weight)
}

fn in_test_module(outline: &crate::Outline, index: usize) -> bool {
    let mut at = Some(index);
    while let Some(i) = at {
        let item = &outline.items[i];
        if item.kind == Kind::Module && (item.name == "tests" || item.name == "test") {
            return true;
        }
        at = item.parent;
    }
    false
}

/// Where a random walk restarts: the focus files, the files defining a mentioned name and the files
/// named like one; every file alike when nothing steers.
fn personalization(
    files: &[Arc<FileTags>],
    steering: &Steering,
    name_index: &HashMap<u64, usize>,
    definers: &[Vec<usize>],
) -> Vec<f64> {
    let n = files.len();
    let mut weights = vec![0.0; n];
    for &f in &steering.focus {
        weights[f] += 1.0;
    }
    // A mention names no language: it is looked up in every family of the tree.
    let mut families: Vec<&str> = files.iter().map(|f| family(f.language)).collect();
    families.sort_unstable();
    families.dedup();
    for mention in &steering.mentions {
        for family in &families {
            let defining = name_index
                .get(&name_id(family, mention))
                .map(|&i| &definers[i]);
            for &f in defining.into_iter().flatten() {
                weights[f] += 1.0;
            }
        }
        for (f, file) in files.iter().enumerate() {
            let stem = std::path::Path::new(&file.rel)
                .file_stem()
                .and_then(|s| s.to_str());
            if stem == Some(mention.as_str()) {
                weights[f] += 1.0;
            }
        }
    }
    let total: f64 = weights.iter().sum();
    if total == 0.0 {
        return vec![1.0 / n.max(1) as f64; n];
    }
    weights.iter().map(|w| w / total).collect()
}

fn pagerank(graph: &Graph, personalization: &[f64]) -> Vec<f64> {
    let n = personalization.len();
    let dangling_files: Vec<usize> = (0..n).filter(|&i| graph.out_weight[i] == 0.0).collect();
    let mut rank = personalization.to_vec();
    let mut next = vec![0.0; n];
    let mut inflow = vec![0.0; n];
    let mut scratch = Scratch::default();
    for _ in 0..ITERATIONS {
        let dangling: f64 = dangling_files.iter().map(|&i| rank[i]).sum();
        graph.inflow(&rank, &mut scratch, &mut inflow);
        for i in 0..n {
            next[i] =
                (1.0 - DAMPING + DAMPING * dangling) * personalization[i] + DAMPING * inflow[i];
        }
        let change: f64 = next.iter().zip(&rank).map(|(a, b)| (a - b).abs()).sum();
        std::mem::swap(&mut rank, &mut next);
        if change < TOLERANCE {
            break;
        }
    }
    rank
}
