//! The reference graph of one snapshot — every defined name with the files defining it, each file's
//! uses of those names with their weights — built once per snapshot and shared by every question
//! asked of it: a question re-weighs only the files it steers (the focus files, the users of a
//! mentioned name). PageRank then visits only the files the question's personalization reaches.
//!
//! Both give the very floating-point sums a computation over the whole graph gives, in the same
//! order: a file the walk has not reached has a rank of exactly zero, and adding its zero flows
//! changes no sum. So a new focus on 200,000 files costs what its neighbourhood costs, and the
//! ranking's answers are the ones a whole-graph computation gives (the tests compare the two).

use super::index::{FileTags, ItemFacts};
use super::pull::{InEdges, Personalization, Restart};
use super::scratch;
use crate::Kind;
use foldhash::HashMap;
use rayon::prelude::*;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

mod patch;
mod rows;

const DAMPING: f64 = 0.85;
/// At most this many iterations (a walk's change shrinks by about `DAMPING` each, so it ends at the
/// tolerance first unless its change started far above it).
const ITERATIONS: usize = 60;
/// A walk stops once its total change falls below this (ranks sum to 1). The change then shrinks
/// by about `DAMPING` an iteration, so the ranks are within about `TOLERANCE × DAMPING / (1 −
/// DAMPING)`, 6 × 10⁻⁵ in total, of the walk's limit. The maps' retrieval on ten repositories was
/// the same at this tolerance, and at ten and a hundred times it, as at 60 iterations
/// (docs/benchmarks.md); 200,000 files settle in about 38 iterations instead of 60.
const TOLERANCE: f64 = 1e-5;
/// Past this share of the files reached, an iteration runs over all of them: sorting the names a
/// sparse iteration touched would cost more than visiting every one.
pub const DENSE_SHARE: usize = 8;

/// Whether a walk that reached `reached` of `n` files visits all of them: past `1 / dense_share`.
pub fn is_wide(reached: usize, n: usize, dense_share: usize) -> bool {
    reached * dense_share > n
}

/// Kinds that count as definitions in the graph (headings and config keys do not).
pub fn is_symbol(kind: Kind) -> bool {
    !matches!(kind, Kind::Heading | Kind::Key)
}

/// One file's use of one defined name.
#[derive(Clone, Copy)]
pub struct Use {
    pub name: u32,
    pub weight: f64,
    /// Whether the file defines the name too (its own definition gets none of this use).
    pub self_defined: bool,
}

/// One file's uses, the share of the file's rank each carries, and the weight they carry in all.
#[derive(Default)]
pub struct FileUses {
    uses: Vec<Use>,
    share: Vec<f64>,
    out_weight: f64,
}

/// The graph of a snapshot as no question steers it.
pub struct Graph {
    /// Every defined name by its id (`rank::name_id`), numbered in file order.
    pub name_index: HashMap<u64, usize>,
    /// Per name, the files defining it (sorted, unique).
    pub definers: Vec<Vec<usize>>,
    /// Per name, its first definition (file, item): where its text is.
    first: Vec<(u32, u32)>,
    /// Per name, its weight when no question mentions it.
    pub weights: Vec<f64>,
    /// The files of each module, by the id of the name other files use for it
    /// (`FileTags::module_id`), in file order.
    pub modules: HashMap<u64, Vec<usize>>,
    /// The files using each defined name or module name, by its id, in file order: a focus
    /// file's callers and a mentioned name's users are found among them, not among every file.
    pub users: HashMap<u64, Vec<u32>>,
    /// Per file, each item's name (`NO_NAME` for an item that is no symbol): what scoring and the
    /// in-edge layout read instead of looking every item's id up.
    item_name: PerFile<u32>,
    /// Per file, each item's facts (`FileTags::item_facts`), one run after the other: scoring
    /// reads them in file order, not wherever each file's tags were made.
    item_facts: PerFile<ItemFacts>,
    /// Per file, the ids it references: the users of a name new to the tree are found here
    /// (`patch`), not by reading every file's tags.
    refs: PerFile<u64>,
    /// Where a mention is: the families, the items that are no symbols, the paths' stems.
    pub names: super::mentions::Names,
    /// How many items each file lists: what a question's unscored tail holds, counted.
    pub listing: super::tail::Listing,
    /// Each file's uses, one after the other in file order: file `f`'s are `start[f]..start[f + 1]`.
    start: Vec<usize>,
    uses: Vec<Use>,
    share: Vec<f64>,
    out_weight: Vec<f64>,
    /// The uses laid out by name for the dense walk (`pull`), made by the first one.
    in_edges: OnceLock<InEdges>,
    /// The layout of the graph this one was patched from, whose buffers the first dense walk
    /// fills again (`InEdges::of`) instead of faulting in new ones.
    spare_in_edges: Mutex<Option<InEdges>>,
}

impl Graph {
    /// The graph of `files` (sorted by path); `weight` is a name's weight from its text and its
    /// number of definers.
    pub fn of(files: &[Arc<FileTags>], weight: impl Fn(&str, usize) -> f64) -> Graph {
        let started = std::time::Instant::now();
        // Names numbered in file order, so that the numbering is deterministic. Hash maps are only
        // looked up, never iterated.
        let mut name_index: HashMap<u64, usize> = HashMap::default();
        let mut definers: Vec<Vec<usize>> = Vec::new();
        let mut first = Vec::new();
        let mut items_of = PerFile::default();
        for (f, file) in files.iter().enumerate() {
            items_of.start.push(items_of.data.len());
            let items = file.tags.outline.items.iter().zip(&file.item_ids);
            for (i, (item, &id)) in items.enumerate() {
                if !is_symbol(item.kind) {
                    items_of.data.push(NO_NAME);
                    continue;
                }
                let next = definers.len();
                let name = *name_index.entry(id).or_insert(next);
                if name == next {
                    definers.push(Vec::new());
                    first.push((f as u32, i as u32));
                }
                if definers[name].last() != Some(&f) {
                    definers[name].push(f);
                }
                items_of.data.push(name as u32);
            }
        }
        items_of.start.push(items_of.data.len());
        let refs_of = PerFile::collect(
            files
                .iter()
                .map(|file| file.reference_ids.iter().map(|r| r.0)),
        );
        let text = |&(f, i): &(u32, u32)| {
            files[f as usize].tags.outline.items[i as usize]
                .name
                .as_str()
        };
        // A name's weight depends on the name alone: computed once per name, not once per use.
        let weights: Vec<f64> = first
            .iter()
            .zip(&definers)
            .map(|(at, list)| weight(text(at), list.len()))
            .collect();
        let named = started.elapsed();
        // Each file's uses on its own (all cores), joined in file order.
        let per_file: Vec<FileUses> = files
            .par_iter()
            .enumerate()
            .map(|(f, tags)| {
                file_uses(
                    f,
                    &tags.reference_ids,
                    &name_index,
                    &definers,
                    &weights,
                    1.0,
                )
            })
            .collect();
        let used = started.elapsed();
        let mut modules: HashMap<u64, Vec<usize>> = HashMap::default();
        for (f, file) in files.iter().enumerate() {
            if let Some(id) = file.module_id {
                modules.entry(id).or_default().push(f);
            }
        }
        let mut users: HashMap<u64, Vec<u32>> = HashMap::default();
        for (f, file) in files.iter().enumerate() {
            for (id, _) in &file.reference_ids {
                if name_index.contains_key(id) || modules.contains_key(id) {
                    let list = users.entry(*id).or_default();
                    if list.last() != Some(&(f as u32)) {
                        list.push(f as u32);
                    }
                }
            }
        }
        let users_at = started.elapsed();
        let total = per_file.iter().map(|u| u.uses.len()).sum();
        let mut graph = Graph {
            name_index,
            definers,
            first,
            weights,
            modules,
            users,
            item_name: items_of,
            item_facts: PerFile::collect(files.iter().map(|file| file.item_facts.iter().copied())),
            refs: refs_of,
            names: super::mentions::Names::of(files),
            listing: super::tail::Listing::of(files),
            start: Vec::with_capacity(files.len() + 1),
            uses: Vec::with_capacity(total),
            share: Vec::with_capacity(total),
            out_weight: Vec::with_capacity(files.len()),
            in_edges: OnceLock::new(),
            spare_in_edges: Mutex::new(None),
        };
        for file in per_file {
            graph.start.push(graph.uses.len());
            graph.uses.extend(file.uses);
            graph.share.extend(file.share);
            graph.out_weight.push(file.out_weight);
        }
        graph.start.push(graph.uses.len());
        // Where a new snapshot's graph goes, for `CODERD_LOG=coderd=debug`.
        tracing::debug!(
            files = files.len(),
            names = graph.definers.len(),
            uses = graph.uses.len(),
            names_us = named.as_micros() as u64,
            uses_us = (used - named).as_micros() as u64,
            users_us = (users_at - used).as_micros() as u64,
            rest_us = (started.elapsed() - users_at).as_micros() as u64,
            "map graph"
        );
        graph
    }

    /// The name of item `i` of file `f`, when it is a graph symbol.
    pub fn item_name(&self, f: usize, i: usize) -> Option<usize> {
        let name = self.item_name.of(f)[i];
        (name != NO_NAME).then_some(name as usize)
    }

    /// File `f`'s items' facts, in item order.
    pub fn item_facts(&self, f: usize) -> &[ItemFacts] {
        self.item_facts.of(f)
    }

    /// File `f`'s names, in name order, pushed onto `out`.
    pub fn push_names_of(&self, f: usize, out: &mut Vec<u32>) {
        let from = out.len();
        let names = self.item_name.of(f).iter().copied();
        out.extend(names.filter(|&n| n != NO_NAME));
        out[from..].sort_unstable();
        let mut kept = from;
        for k in from..out.len() {
            if kept == from || out[k] != out[kept - 1] {
                out[kept] = out[k];
                kept += 1;
            }
        }
        out.truncate(kept);
    }

    /// How many files the graph has.
    pub fn files(&self) -> usize {
        self.out_weight.len()
    }

    /// File `f`'s uses as no question steers them, and their shares of its rank.
    pub fn file_uses(&self, f: usize) -> (&[Use], &[f64]) {
        let range = self.start[f]..self.start[f + 1];
        (&self.uses[range.clone()], &self.share[range])
    }

    /// The text of name `name`.
    pub fn text<'a>(&self, files: &'a [Arc<FileTags>], name: usize) -> &'a str {
        let (f, i) = self.first[name];
        &files[f as usize].tags.outline.items[i as usize].name
    }

    /// The graph as one question weighs it: `weights` are the question's name weights (a mentioned
    /// name weighs more), which differ from the graph's only at `mentioned` (sorted); the uses of
    /// the focus files are multiplied by `focus_factor`.
    pub fn steer<'a>(
        &'a self,
        files: &[Arc<FileTags>],
        focus: &[usize],
        focus_factor: f64,
        weights: &[f64],
        mentioned: &[usize],
    ) -> Steered<'a> {
        let mut steered: Vec<usize> = focus.to_vec();
        // A file using a mentioned name is among the users of its id (some of which use it only
        // as its sole definer: no use of it in the graph).
        let uses_mentioned = |f: &usize| {
            let uses = &self.uses[self.start[*f]..self.start[*f + 1]];
            uses.iter()
                .any(|u| mentioned.binary_search(&(u.name as usize)).is_ok())
        };
        for &name in mentioned {
            let (f, i) = self.first[name];
            let id = files[f as usize].item_ids[i as usize];
            let users = self.users.get(&id).into_iter().flatten();
            steered.extend(users.map(|&f| f as usize).filter(uses_mentioned));
        }
        steered.sort_unstable();
        steered.dedup();
        let own = steered
            .into_iter()
            .map(|f| {
                let factor = if focus.contains(&f) {
                    focus_factor
                } else {
                    1.0
                };
                let uses = file_uses(
                    f,
                    &files[f].reference_ids,
                    &self.name_index,
                    &self.definers,
                    weights,
                    factor,
                );
                (f, uses)
            })
            .collect();
        Steered { graph: self, own }
    }
}

/// An item's name when it is no graph symbol.
const NO_NAME: u32 = u32::MAX;

/// Per file a run of values, one file after the other: file `f`'s are `start[f]..start[f + 1]`.
#[derive(Default, PartialEq)]
struct PerFile<T> {
    start: Vec<usize>,
    data: Vec<T>,
}

impl<T: Copy> PerFile<T> {
    fn collect<I: IntoIterator<Item = T>>(files: impl Iterator<Item = I>) -> PerFile<T> {
        let mut per_file = PerFile {
            start: Vec::new(),
            data: Vec::new(),
        };
        for values in files {
            per_file.start.push(per_file.data.len());
            per_file.data.extend(values);
        }
        per_file.start.push(per_file.data.len());
        per_file
    }

    fn of(&self, f: usize) -> &[T] {
        &self.data[self.start[f]..self.start[f + 1]]
    }
}

/// One file's uses of defined names, each weighed `factor` times its name's weight.
fn file_uses(
    file: usize,
    references: &[(u64, u32)],
    name_index: &HashMap<u64, usize>,
    definers: &[Vec<usize>],
    weights: &[f64],
    factor: f64,
) -> FileUses {
    let mut uses = Vec::new();
    let mut out_weight = 0.0;
    for (id, count) in references {
        let Some(&name) = name_index.get(id) else {
            continue;
        };
        let list = &definers[name];
        let self_defined = list.binary_search(&file).is_ok();
        let targets = list.len() - usize::from(self_defined);
        if targets == 0 {
            continue;
        }
        let weight = weights[name] * (*count as f64).sqrt() * factor;
        out_weight += weight * targets as f64;
        uses.push(Use {
            name: name as u32,
            weight,
            self_defined,
        });
    }
    let share = uses
        .iter()
        .map(|u| match out_weight {
            0.0 => 0.0,
            out => u.weight / out,
        })
        .collect();
    FileUses {
        uses,
        share,
        out_weight,
    }
}

/// The graph with one question's weights.
pub struct Steered<'a> {
    pub graph: &'a Graph,
    /// The uses the question weighs differently, by file (sorted).
    own: Vec<(usize, FileUses)>,
}

/// What PageRank gives: every file's rank, and the files it reached (sorted; every other file's
/// rank is zero).
pub struct Reached {
    pub rank: Vec<f64>,
    pub files: Vec<usize>,
}

impl Steered<'_> {
    /// File `f`'s uses, their shares and its out-weight.
    pub fn uses(&self, f: usize) -> (&[Use], &[f64], f64) {
        match self.own.binary_search_by_key(&f, |e| e.0) {
            Ok(at) => {
                let own = &self.own[at].1;
                (&own.uses, &own.share, own.out_weight)
            }
            Err(_) => {
                let range = self.graph.start[f]..self.graph.start[f + 1];
                let g = self.graph;
                (&g.uses[range.clone()], &g.share[range], g.out_weight[f])
            }
        }
    }

    /// PageRank personalised by `personalization` (summing to 1), over the files it reaches,
    /// iterating over every file once more than `1 / dense_share` of them are reached.
    /// A walk dense from the start over the graph's own weights (the unsteered question's) is
    /// pulled (`pagerank_pulled`), any other pushed from the files reached.
    pub fn pagerank_with(&self, personalization: &[f64], dense_share: usize) -> Reached {
        let reached = personalization.iter().filter(|&&p| p != 0.0).count();
        match is_wide(reached, personalization.len(), dense_share) && self.own.is_empty() {
            true => self.pagerank_pulled(personalization),
            false => self.pagerank_pushed(personalization, dense_share),
        }
    }

    fn pagerank_pushed(&self, personalization: &[f64], dense_share: usize) -> Reached {
        let n = personalization.len();
        let mut walk = Walk::new(self, personalization, dense_share);
        let mut rank = scratch::copy(personalization);
        let mut next = scratch::zeros(n, walk.dense);
        // The files without uses, once the walk is dense (a sparse walk's are few: it filters).
        let mut dangling_files: Option<Vec<usize>> = None;
        for _ in 0..ITERATIONS {
            let dangling: f64 = match walk.dense {
                true => dangling_files
                    .get_or_insert_with(|| (0..n).filter(|&f| self.uses(f).2 == 0.0).collect())
                    .iter()
                    .map(|&f| rank[f])
                    .sum(),
                false => walk
                    .files
                    .iter()
                    .filter(|&&f| self.uses(f).2 == 0.0)
                    .map(|&f| rank[f])
                    .sum(),
            };
            walk.inflow(self, &rank);
            let restart = 1.0 - DAMPING + DAMPING * dangling;
            let change: f64 = match walk.dense {
                // Every file, in order: the same sums, without going through the list.
                true => {
                    for i in 0..n {
                        next[i] = restart * personalization[i] + DAMPING * walk.inflow[i];
                    }
                    total_change(&next, &rank)
                }
                false => {
                    for &i in &walk.files {
                        next[i] = restart * personalization[i] + DAMPING * walk.inflow[i];
                    }
                    walk.files.iter().map(|&i| (next[i] - rank[i]).abs()).sum()
                }
            };
            std::mem::swap(&mut rank, &mut next);
            if change < TOLERANCE {
                break;
            }
        }
        // A sparse walk's buffers were zeroed lazily and mostly never touched: not worth keeping.
        if walk.dense {
            for buffer in [next, walk.inflow, walk.per_name] {
                scratch::give_back(buffer);
            }
        }
        Reached {
            rank,
            files: walk.files,
        }
    }
}

impl Steered<'_> {
    /// The graph's in-edge layout, when it is laid out and this question weighs the uses as the
    /// graph does (a walk over it gives the push walk's sums).
    pub fn laid_out(&self) -> Option<&InEdges> {
        self.graph.in_edges.get().filter(|_| self.own.is_empty())
    }

    /// `pagerank_with` for a walk dense from the start over the graph's own weights: the same
    /// iterations, each pulled over the in-edge layout (`pull`), its ranks the push walk's bit
    /// for bit.
    fn pagerank_pulled(&self, personalization: &[f64]) -> Reached {
        let graph = self.graph;
        let edges = graph.in_edges.get_or_init(|| {
            let started = std::time::Instant::now();
            let spare = graph.spare_in_edges.lock();
            let edges = InEdges::of(graph, spare.unwrap_or_else(PoisonError::into_inner).take());
            let us = started.elapsed().as_micros() as u64;
            tracing::debug!(us, "map graph in-edges");
            edges
        });
        let n = personalization.len();
        let dangling_files: Vec<usize> = (0..n).filter(|&f| graph.out_weight[f] == 0.0).collect();
        let mut rank = scratch::copy(personalization);
        let mut next = scratch::zeros(n, true);
        let mut per_slot = scratch::zeros(edges.slots(), true);
        let weights = Personalization::of(personalization);
        for _ in 0..ITERATIONS {
            let dangling: f64 = dangling_files.iter().map(|&f| rank[f]).sum();
            let restart = Restart {
                share: 1.0 - DAMPING + DAMPING * dangling,
                personalization: weights,
                damping: DAMPING,
            };
            let change = edges.step(&rank, restart, &mut per_slot, &mut next);
            let settled = settled(change, || total_change(&next, &rank));
            std::mem::swap(&mut rank, &mut next);
            if settled {
                break;
            }
        }
        scratch::give_back(next);
        scratch::give_back(per_slot);
        Reached {
            rank,
            files: (0..n).collect(),
        }
    }
}

/// The total change of an iteration, |next - rank| summed in file order: what a walk stops on.
fn total_change(next: &[f64], rank: &[f64]) -> f64 {
    next.iter().zip(rank).map(|(a, b)| (a - b).abs()).sum()
}

/// Whether a walk has settled (`total_change` below `TOLERANCE`), from `in_parts`: the same
/// change summed in parts on all cores, instead of a pass over every file on one core per
/// iteration. A sum of n terms of one sign is within n × 2⁻⁵³ of the exact sum, in any order
/// (2 × 10⁻¹¹ of it at 200,000 files), so both sums fall on the same side of half or of twice the
/// tolerance; only between those is the change summed again in file order: the walk stops exactly
/// where the walk summing in file order stops.
fn settled(in_parts: f64, in_order: impl FnOnce() -> f64) -> bool {
    match in_parts {
        c if c >= 2.0 * TOLERANCE => false,
        c if c < TOLERANCE / 2.0 => true,
        _ => in_order() < TOLERANCE,
    }
}

/// One PageRank's buffers, kept across its iterations: the files reached so far and what flows.
struct Walk {
    /// The files reached so far (sorted); all of them once the walk is dense.
    files: Vec<usize>,
    reached: Vec<bool>,
    dense: bool,
    dense_share: usize,
    /// Per file, the rank flowing in this iteration.
    inflow: Vec<f64>,
    /// Per name, the rank flowing to its definers this iteration.
    per_name: Vec<f64>,
    /// The names flowed to this iteration (a sparse walk's), and a mark per name.
    names: Vec<usize>,
    named: Vec<bool>,
    /// The flows of uses of names their own file defines too, in use order: (file, flow).
    own: Vec<(usize, f64)>,
    /// Files reached for the first time this iteration.
    new: Vec<usize>,
}

impl Walk {
    fn new(steered: &Steered, personalization: &[f64], dense_share: usize) -> Walk {
        let n = personalization.len();
        let files: Vec<usize> = (0..n).filter(|&i| personalization[i] != 0.0).collect();
        let mut reached = vec![false; n];
        for &f in &files {
            reached[f] = true;
        }
        let names = steered.graph.definers.len();
        let dense = is_wide(files.len(), n, dense_share);
        let mut walk = Walk {
            files,
            reached,
            dense: false,
            dense_share,
            inflow: scratch::zeros(n, dense),
            per_name: scratch::zeros(names, dense),
            names: Vec::new(),
            named: vec![false; names],
            own: Vec::new(),
            new: Vec::new(),
        };
        walk.densify_if_wide();
        walk
    }

    /// Past the dense share, every file is walked (their zero ranks add nothing).
    fn densify_if_wide(&mut self) {
        let n = self.reached.len();
        if !self.dense && is_wide(self.files.len(), n, self.dense_share) {
            self.dense = true;
            self.files = (0..n).collect();
            self.reached.fill(true);
        }
    }

    /// The rank arriving at each reached file over the uses (into `inflow`), adding the files it
    /// reaches: per name the flows of its uses in use order, then to each definer in name order,
    /// less a definer's own use.
    fn inflow(&mut self, steered: &Steered, rank: &[f64]) {
        match self.dense {
            true => self.inflow.fill(0.0),
            false => self.files.iter().for_each(|&f| self.inflow[f] = 0.0),
        }
        self.own.clear();
        // The question's own uses, met in file order beside the files (no search per file).
        let mut steered_own = steered.own.iter().peekable();
        let graph = steered.graph;
        for &f in &self.files {
            while steered_own.next_if(|(g, _)| *g < f).is_some() {}
            let (uses, share) = match steered_own.next_if(|(g, _)| *g == f) {
                Some((_, own)) => (&own.uses[..], &own.share[..]),
                None => {
                    let range = graph.start[f]..graph.start[f + 1];
                    (&graph.uses[range.clone()], &graph.share[range])
                }
            };
            for (u, share) in uses.iter().zip(share) {
                let flow = rank[f] * share;
                let name = u.name as usize;
                self.per_name[name] += flow;
                if !self.dense && !self.named[name] {
                    self.named[name] = true;
                    self.names.push(name);
                }
                if u.self_defined {
                    self.own.push((f, flow));
                }
            }
        }
        let definers = &steered.graph.definers;
        if self.dense {
            for (list, sum) in definers.iter().zip(&mut self.per_name) {
                for &to in list {
                    self.inflow[to] += *sum;
                }
                *sum = 0.0;
            }
        } else {
            self.names.sort_unstable();
            for &name in &self.names {
                for &to in &definers[name] {
                    if !self.reached[to] {
                        self.reached[to] = true;
                        self.inflow[to] = 0.0;
                        self.new.push(to);
                    }
                    self.inflow[to] += self.per_name[name];
                }
                self.per_name[name] = 0.0;
                self.named[name] = false;
            }
            self.names.clear();
        }
        for &(f, flow) in &self.own {
            self.inflow[f] -= flow;
        }
        if !self.new.is_empty() {
            self.new.sort_unstable();
            let old = std::mem::take(&mut self.files);
            self.files = merged(&old, &self.new);
            self.new.clear();
            self.densify_if_wide();
        }
    }
}

/// Two sorted, disjoint lists as one sorted list.
fn merged(a: &[usize], b: &[usize]) -> Vec<usize> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i] < b[j] {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

#[cfg(test)]
mod tests;
