//! Ranking: a graph with a node per file and an edge from each file that uses a name to each file
//! that defines it, PageRank over it (personalised by the focus files and mentioned names), and
//! the rank spread over the definitions. Everything iterates over sorted vectors, so the same
//! input gives the same floating-point sums and the same order.

use super::graph::{is_symbol, Graph};
use super::index::FileTags;
use super::modules::Structure;
use super::steer;
use crate::Kind;
use foldhash::HashMap;
use std::borrow::Cow;
use std::collections::BTreeSet;
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

/// The reference graph of `files` (sorted by path), which every question about them shares.
pub fn graph(files: &[Arc<FileTags>]) -> Graph {
    Graph::of(files, |name, n_definers| {
        name_weight(name, n_definers, false)
    })
}

/// One ranked entry: its class (0 mentioned, 1 reached through the graph, 2 the rest), its score,
/// its file and its item.
type Scored = (u8, f64, usize, usize);

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
/// (`graph::Steered::pagerank_with`: the tests compare a sparse walk with a dense one).
pub(super) fn rank_with(
    files: &[Arc<FileTags>],
    steering: &Steering,
    structure: &Structure,
    graph: &Graph,
    dense_share: usize,
) -> Ranked {
    debug_assert!(files.windows(2).all(|w| w[0].rel < w[1].rel));
    let n = files.len();
    let is_focus: Vec<bool> = (0..n).map(|i| steering.focus.contains(&i)).collect();
    let mentioned = |name: &str| steering.mentions.iter().any(|m| m == name);
    // A mention names no language: it is looked up in every family of the tree.
    let families: Vec<&str> = match steering.mentions.is_empty() {
        true => Vec::new(),
        false => {
            let set: BTreeSet<&str> = files.iter().map(|f| family(f.language)).collect();
            set.into_iter().collect()
        }
    };
    // The mentioned names weigh more: only theirs differ from the graph's weights.
    let mut raised: Vec<usize> = steering
        .mentions
        .iter()
        .flat_map(|m| families.iter().map(move |family| name_id(family, m)))
        .filter_map(|id| graph.name_index.get(&id).copied())
        .filter(|&name| mentioned(graph.text(files, name)))
        .collect();
    raised.sort_unstable();
    raised.dedup();
    let weights: Cow<[f64]> = match raised.is_empty() {
        true => Cow::Borrowed(&graph.weights),
        false => {
            let mut weights = graph.weights.clone();
            for &name in &raised {
                let n_definers = graph.definers[name].len();
                weights[name] = name_weight(graph.text(files, name), n_definers, true);
            }
            Cow::Owned(weights)
        }
    };
    let steered = graph.steer(files, &steering.focus, FOCUS_USES, &weights, &raised);
    let personalization = personalization(files, steering, graph, &families);
    let started = std::time::Instant::now();
    let reached = steered.pagerank_with(&personalization, dense_share);
    let walked = started.elapsed();
    let file_rank = &reached.rank;

    // The rank each (definer, name) receives: all the name's flow, less the definer's own use.
    // Files the walk did not reach carry none.
    let mut per_name = vec![0.0; graph.definers.len()];
    let mut flowed = vec![false; graph.definers.len()];
    let mut own_use: HashMap<(usize, usize), f64> = HashMap::default();
    for &f in &reached.files {
        let (uses, share, _) = steered.uses(f);
        for (u, share) in uses.iter().zip(share) {
            let (name, flow) = (u.name as usize, file_rank[f] * share);
            per_name[name] += flow;
            flowed[name] = true;
            if u.self_defined {
                own_use.insert((f, name), flow);
            }
        }
    }
    let definition_rank = |file: usize, name: usize| {
        let score = per_name[name] - own_use.get(&(file, name)).copied().unwrap_or(0.0);
        (score > 0.0).then_some(score)
    };

    let flowed_at = started.elapsed();
    let mut ties = steer::neighbours(files, &steering.focus, graph, &weights, structure);
    structure.tie(&steering.focus, &mut ties, &super::modules::WEIGHTS);
    for &(f, strength) in &steering.co_changed {
        ties[f] += CO_CHANGE * strength;
    }

    // Only these files' items can score above zero: the files the walk reached, the definers of
    // the names rank flowed to, the files defining an item named like a mention. Every other
    // file's items score zero, and so come last in file and item order: they are listed without
    // being scored or sorted.
    let tied = started.elapsed();
    let mut scores = vec![false; n];
    for &f in &reached.files {
        scores[f] = true;
    }
    for (name, _) in flowed.iter().enumerate().filter(|(_, flowed)| **flowed) {
        for &f in &graph.definers[name] {
            scores[f] = true;
        }
    }
    if !steering.mentions.is_empty() {
        for (f, file) in files.iter().enumerate() {
            scores[f] |= file.tags.outline.items.iter().any(|i| mentioned(&i.name));
        }
    }
    let listed = |f: usize, i: usize| {
        let file = &files[f];
        !(file.generated || !steering.include_tests && in_test_module(&file.tags.outline, i))
    };
    let score = |f: usize, i: usize| -> (u8, f64) {
        let file = &files[f];
        let item = &file.tags.outline.items[i];
        let name = graph
            .name_index
            .get(&file.item_ids[i])
            .copied()
            .filter(|_| is_symbol(item.kind));
        if mentioned(&item.name) {
            let n_definers = name.map_or(1, |n| graph.definers[n].len());
            let specificity = name_weight(&item.name, n_definers, false);
            let weight = steer::mention_weight(item.kind, &item.name, specificity, n_definers);
            if weight >= STRONG_MENTION {
                return (0, weight);
            }
        }
        match name.and_then(|name| definition_rank(f, name)) {
            Some(score) => (1, score * steer::kind_weight(item.kind, &item.name)),
            None => (2, file_rank[f] / (1.0 + file.tags.outline.depth(i) as f64)),
        }
    };
    // The scored entries before the zeros, the zeros (in file and item order), the ones after.
    let (mut head, mut zeros, mut after) = (Vec::new(), Vec::new(), Vec::new());
    let mut focus_items = 0;
    for f in (0..n).filter(|&f| scores[f]) {
        for i in 0..files[f].tags.outline.items.len() {
            if is_focus[f] {
                focus_items += 1;
                continue;
            }
            if !listed(f, i) {
                continue;
            }
            let (class, score) = score(f, i);
            let entry = (class, score, f, i);
            match (class, score.total_cmp(&0.0)) {
                (2, std::cmp::Ordering::Equal) => zeros.push(entry),
                (2, std::cmp::Ordering::Less) => after.push(entry),
                _ => head.push(entry),
            }
        }
    }
    head.sort_unstable_by(order);
    spread_over_files(&mut head, n);
    head.sort_unstable_by(order);
    after.sort_unstable_by(order);
    let item = |&(_, _, f, i): &Scored| RankedItem {
        file: f as u32,
        item: i as u32,
    };
    // The rest in file and item order, without scoring them: the zeros of the scored files, every
    // listed item of the others.
    let mut zeros = zeros.into_iter().peekable();
    let mut tail = Vec::new();
    for f in 0..n {
        match scores[f] {
            true => {
                let of_file = std::iter::from_fn(|| zeros.next_if(|e| e.2 == f));
                tail.extend(of_file.map(|e| item(&e)));
            }
            false => {
                let items = 0..files[f].tags.outline.items.len();
                let listed = items.filter(|&i| listed(f, i));
                tail.extend(listed.map(|i| item(&(2, 0.0, f, i))));
            }
        }
    }
    let mentioned = head.iter().take_while(|e| e.0 == 0).count();
    let scored: Vec<RankedItem> = head[mentioned..].iter().map(item).collect();
    let after: Vec<RankedItem> = after.iter().map(item).collect();
    let mentioned = head[..mentioned].iter().map(item).collect();
    let scored_at = started.elapsed();
    let items = neighbours_first(
        mentioned,
        &[&scored, &tail, &after],
        &ties,
        &steering.co_changed,
        files,
    );
    // Where a new question's time goes, for `CODERD_LOG=coderd=debug`.
    tracing::debug!(
        reached = reached.files.len(),
        pagerank_us = walked.as_micros() as u64,
        flows_us = (flowed_at - walked).as_micros() as u64,
        ties_us = (tied - flowed_at).as_micros() as u64,
        score_us = (scored_at - tied).as_micros() as u64,
        order_us = (started.elapsed() - scored_at).as_micros() as u64,
        "rank"
    );
    Ranked { items, focus_items }
}

/// The ranking's order: by class, then best score first. No two entries are equal (their file
/// and item indices differ): unstable sorting is exact.
fn order(a: &Scored, b: &Scored) -> std::cmp::Ordering {
    a.0.cmp(&b.0)
        .then(b.1.total_cmp(&a.1))
        // `files` is sorted by path, so the index orders ties by path without comparing them.
        .then(a.2.cmp(&b.2))
        .then(a.3.cmp(&b.3))
}
/// A file's later items in the graph's class count less (each `FILE_DECAY` times the one before),
/// so that the map shows more files rather than every method of the best one.
fn spread_over_files(scored: &mut [Scored], n_files: usize) {
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
/// budget lists more of the neighbours. `parts` are the rest, one after the other.
fn neighbours_first(
    mentioned: Vec<RankedItem>,
    parts: &[&[RankedItem]],
    ties: &[f64],
    co_changed: &[(usize, f64)],
    files: &[Arc<FileTags>],
) -> Vec<RankedItem> {
    let rest = || parts.iter().flat_map(|part| part.iter());
    let best = best_items(rest(), ties, files);
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
    let mut taken = vec![false; rest().count()];
    let mut items = mentioned;
    // Both lists hold only files with a best item.
    for at in interleave(&tied, &history, ties.len())
        .into_iter()
        .filter_map(|f| best[f])
    {
        taken[at] = true;
        items.push(entry(parts, at));
    }
    items.extend(rest().zip(&taken).filter(|(_, t)| !**t).map(|(e, _)| *e));
    items
}

/// Per file, where its item shown among the neighbours is in `rest` (`None`: not a neighbour):
/// its first top-level item, else its first item.
fn best_items<'a>(
    rest: impl Iterator<Item = &'a RankedItem>,
    ties: &[f64],
    files: &[Arc<FileTags>],
) -> Vec<Option<usize>> {
    let mut first: Vec<Option<usize>> = vec![None; ties.len()];
    let mut top: Vec<Option<usize>> = vec![None; ties.len()];
    for (at, e) in rest.enumerate() {
        let (f, i) = (e.file as usize, e.item as usize);
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

/// The entry at `at` of the parts taken one after the other.
fn entry(parts: &[&[RankedItem]], mut at: usize) -> RankedItem {
    for part in parts {
        match part.get(at) {
            Some(e) => return *e,
            None => at -= part.len(),
        }
    }
    unreachable!("a position found in the parts")
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
    graph: &Graph,
    families: &[&str],
) -> Vec<f64> {
    let n = files.len();
    let mut weights = vec![0.0; n];
    for &f in &steering.focus {
        weights[f] += 1.0;
    }
    for mention in &steering.mentions {
        for family in families {
            let defining = graph
                .name_index
                .get(&name_id(family, mention))
                .map(|&i| &graph.definers[i]);
            for &f in defining.into_iter().flatten() {
                weights[f] += 1.0;
            }
        }
        // A path holding the mention is rare: only those are taken apart.
        let holding = files.iter().enumerate();
        for (f, file) in holding.filter(|(_, file)| file.rel.contains(mention.as_str())) {
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
