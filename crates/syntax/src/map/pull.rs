//! PageRank's dense iteration pulled instead of pushed: each name gathers the flows of its users'
//! uses over a compact in-edge layout, then each file gathers its names' sums and gives back its
//! own uses' flows. Every sum is the push walk's (`graph::Walk::inflow`) term for term in the
//! same order — a name's flows in file and use order, a file's names in name order, its own uses
//! in use order — so the ranks are the push walk's bit for bit. Each name and each file is summed
//! on its own, so the names and files are split across the cores without changing any sum.
//!
//! Only the names something uses are laid out (half of them in a generated tree): another name's
//! flow is exactly zero, and adding a zero to a sum of ranks changes nothing. They are numbered
//! in the order of the first file defining them, so the files read their names' sums nearly in
//! the order they were written.
//!
//! Each name's uses are laid out in groups of `GROUP`, the last group filled up with uses of file 0
//! that carry nothing (a share of zero): the gather then runs the same short loop for every name,
//! where a loop over each name's own count (one to four uses for most names) mispredicted its end
//! at nearly every name. That took about 40% of the gather's time at 200,000 files. The sums stay
//! bit for bit the same: a flow is a sum of ranks times shares, never below zero, and adding
//! `0.0` to such a sum leaves it unchanged.
//!
//! It serves the iterations that visit every file with the graph's own weights (the unsteered
//! question, whose walk is dense from the start): a whole-graph walk of tens of iterations, where
//! the push walk's scattered writes were most of a question's time.
//!
//! A graph patched after an edit keeps its layout when the edit changed only shares (a body
//! edited: the uses' counts) and, if names were numbered again, kept the used ones in order (a
//! name added): `renumbered` and `reweighed` move what changed in place, where laying out every
//! use again took 8–15 ms at 200,000 files.

use super::graph::{Graph, Use};
use rayon::prelude::*;

/// How many names or files one task sums: large enough that the split costs nothing measurable
/// (small in the tests, so that their trees are split too).
const CHUNK: usize = if cfg!(test) { 64 } else { 4096 };

/// A name's slot when nothing uses it.
const NO_SLOT: u32 = u32::MAX;

/// How many uses a name's gather reads per turn of its loop; its last group is filled up.
const GROUP: usize = 4;

/// The graph's uses laid out by the name they flow to, and each file's defined names.
#[derive(Default)]
pub struct InEdges {
    /// Per slot (a used name), its groups of uses: `slot_start[s]..slot_start[s + 1]` counts
    /// groups of `GROUP` places in `user` and `share`, its uses in file and use order (the push
    /// walk's order of adding them), then places that carry nothing (file 0, share 0).
    slot_start: Vec<u32>,
    user: Vec<u32>,
    share: Vec<f64>,
    /// Per file, the slots of the used names it defines, in name order:
    /// `file_start[f]..file_start[f + 1]` into `defined`.
    file_start: Vec<u32>,
    defined: Vec<u32>,
    /// The files' uses of names they define too, in file and use order: the file, and the use's
    /// share (most files have none, so they are listed, not indexed by file).
    own_file: Vec<u32>,
    own_share: Vec<f64>,
    /// Per name, its slot, and its uses counted then its next free place (once laid out, where
    /// its uses end): kept with the layout to be filled again.
    slot_of: Vec<u32>,
    uses_of: Vec<usize>,
}

impl InEdges {
    /// The layout of `graph`'s uses (file `f`'s are `graph.file_uses(f)`), in `spare`'s buffers
    /// when there is one (a layout no longer used): their pages are in memory already.
    pub fn of(graph: &Graph, spare: Option<InEdges>) -> InEdges {
        let mut edges = spare.unwrap_or_default();
        edges.count_uses(graph);
        edges.number_slots(graph);
        edges.place_uses(graph);
        edges
    }

    /// How many names the layout was laid out for (used or not).
    pub fn names(&self) -> usize {
        self.slot_of.len()
    }

    /// How many names something uses: the length of `step`'s `per_slot`.
    pub fn slots(&self) -> usize {
        self.slot_start.len() - 1
    }

    fn count_uses(&mut self, graph: &Graph) {
        refill(&mut self.uses_of, graph.definers.len(), 0);
        for f in 0..graph.files() {
            for u in graph.file_uses(f).0 {
                self.uses_of[u.name as usize] += 1;
            }
        }
    }

    /// Each file's used names (from its items': one run per file, not from every name's
    /// definers), a name's slot given at its first definer.
    fn number_slots(&mut self, graph: &Graph) {
        refill(&mut self.slot_of, graph.definers.len(), NO_SLOT);
        refill(&mut self.slot_start, 1, 0);
        self.file_start.clear();
        self.defined.clear();
        for f in 0..graph.files() {
            self.file_start.push(self.defined.len() as u32);
            let from = self.defined.len();
            graph.push_names_of(f, &mut self.defined);
            let mut kept = from;
            for k in from..self.defined.len() {
                let name = self.defined[k] as usize;
                if self.uses_of[name] == 0 {
                    continue;
                }
                if self.slot_of[name] == NO_SLOT {
                    self.slot_of[name] = self.slots() as u32;
                    let groups = self.uses_of[name].div_ceil(GROUP) as u32;
                    let end = self.slot_start[self.slots()] + groups;
                    self.slot_start.push(end);
                }
                self.defined[kept] = self.slot_of[name];
                kept += 1;
            }
            self.defined.truncate(kept);
        }
        self.file_start.push(self.defined.len() as u32);
    }

    /// Each use at its slot's next free place, and each file's uses of its own names.
    fn place_uses(&mut self, graph: &Graph) {
        for (name, &slot) in self.slot_of.iter().enumerate() {
            if slot != NO_SLOT {
                self.uses_of[name] = self.slot_start[slot as usize] as usize * GROUP;
            }
        }
        let total = self.slot_start[self.slots()] as usize * GROUP;
        // The places no use fills carry nothing: file 0's rank times a share of 0.
        refill(&mut self.user, total, 0);
        refill(&mut self.share, total, 0.0);
        self.own_file.clear();
        self.own_share.clear();
        for f in 0..graph.files() {
            let (uses, shares) = graph.file_uses(f);
            for (u, &s) in uses.iter().zip(shares) {
                let name = u.name as usize;
                if u.self_defined {
                    self.own_file.push(f as u32);
                    self.own_share.push(s);
                }
                // A use of a name no file defines flows nowhere.
                if self.slot_of[name] != NO_SLOT {
                    let at = &mut self.uses_of[name];
                    (self.user[*at], self.share[*at]) = (f as u32, s);
                    *at += 1;
                }
            }
        }
    }

    /// The layout's names numbered again: names `lo..lo + stretch.len()` became the numbers
    /// `stretch` lists (`u32::MAX`: defined nowhere now), the names after them moved up or down
    /// so that there are `names` now. When the names something uses keep their order, their
    /// slots (numbered in that order) stay: only the slots and counts by name move, in place
    /// (a name added to a file moves every name after it). Whether they did; else the layout is
    /// unchanged.
    pub fn renumbered(&mut self, lo: usize, stretch: &[u32], names: usize) -> bool {
        let hi = lo + stretch.len();
        let used = (lo..hi).filter(|&n| self.slot_of[n] != NO_SLOT);
        let moved: Vec<(u32, u32, usize)> = used
            .map(|n| (stretch[n - lo], self.slot_of[n], self.uses_of[n]))
            .collect();
        let in_order = moved.windows(2).all(|w| w[0].0 < w[1].0);
        if !in_order || moved.last().is_some_and(|m| m.0 == u32::MAX) {
            return false;
        }
        let now_hi = names - (self.slot_of.len() - hi);
        restretch(&mut self.slot_of, lo, (hi, now_hi), NO_SLOT);
        restretch(&mut self.uses_of, lo, (hi, now_hi), 0);
        for (now, slot, uses) in moved {
            (self.slot_of[now as usize], self.uses_of[now as usize]) = (slot, uses);
        }
        true
    }

    /// This layout made `graph`'s, when `graph` is the graph it was laid out for with only the
    /// uses of `reweighed` (sorted) weighed again, and each of those files still uses the names
    /// `before` lists for it (in order, defined by it or not) and defines the same used names:
    /// then only their uses' shares changed, and they are put in place (an edit inside a
    /// function's body, the common one, costs no layout). Whether it did; else it is unchanged.
    /// Names numbered again are `renumbered` first.
    pub fn reweighed(&mut self, graph: &Graph, reweighed: &[usize], before: &[Vec<Use>]) -> bool {
        let same_uses = reweighed.iter().zip(before).all(|(&f, before)| {
            let now = graph.file_uses(f).0;
            let same = |(a, b): (&Use, &Use)| a.name == b.name && a.self_defined == b.self_defined;
            now.len() == before.len() && now.iter().zip(before).all(same) && distinct_names(now)
        });
        if !same_uses || !reweighed.iter().all(|&f| self.defines_as_laid(graph, f)) {
            return false;
        }
        for &f in reweighed {
            self.reshare(graph, f);
        }
        true
    }

    /// Whether file `f` of `graph` defines the used names the layout lists for it.
    fn defines_as_laid(&self, graph: &Graph, f: usize) -> bool {
        let mut names = Vec::new();
        graph.push_names_of(f, &mut names);
        let slots = names
            .iter()
            .map(|&name| self.slot_of[name as usize])
            .filter(|&slot| slot != NO_SLOT);
        let laid = &self.defined[self.file_start[f] as usize..self.file_start[f + 1] as usize];
        slots.eq(laid.iter().copied())
    }

    /// File `f`'s uses' shares put at their places: in its names' runs (its use among a run's
    /// users, in file order) and among the own uses.
    fn reshare(&mut self, graph: &Graph, f: usize) {
        let (uses, shares) = graph.file_uses(f);
        let mut own = self.own_file.partition_point(|&g| (g as usize) < f);
        for (u, &share) in uses.iter().zip(shares) {
            if u.self_defined {
                self.own_share[own] = share;
                own += 1;
            }
            let name = u.name as usize;
            if self.slot_of[name] != NO_SLOT {
                // `uses_of` holds where each run's uses end once laid out (`place_uses`).
                let from = self.slot_start[self.slot_of[name] as usize] as usize * GROUP;
                let users = &self.user[from..self.uses_of[name]];
                self.share[from + users.partition_point(|&g| (g as usize) < f)] = share;
            }
        }
    }

    /// Whether every part equals `other`'s, the shares bit for bit.
    pub fn same_as(&self, other: &InEdges) -> bool {
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        self.slot_start == other.slot_start
            && self.user == other.user
            && bits(&self.share) == bits(&other.share)
            && self.file_start == other.file_start
            && self.defined == other.defined
            && self.own_file == other.own_file
            && bits(&self.own_share) == bits(&other.own_share)
            && self.slot_of == other.slot_of
    }

    /// One iteration: into `next`, each file's rank after the one of `rank` — its share of
    /// `restart` (`personalization`) and the damped rank arriving over the uses: per used name the
    /// flows of its uses, to each of its definers, less a definer's own use. `per_slot` is
    /// scratch, one place per slot. Answers the total change, |next - rank| over the files, summed
    /// in parts on all cores (`graph::settled` decides with it).
    pub fn step(
        &self,
        rank: &[f64],
        restart: Restart,
        per_slot: &mut [f64],
        next: &mut [f64],
    ) -> f64 {
        self.gather(rank, per_slot);
        // Every file's weight read from one number when they are all alike (the unsteered
        // question's): a read less per file, of the same value.
        match restart.personalization {
            Personalization::Alike(p) => self.arrive(rank, restart, |_| p, per_slot, next),
            Personalization::PerFile(p) => self.arrive(rank, restart, |f| p[f], per_slot, next),
        }
    }

    /// `step`'s second half: each file's rank from its names' flows in `per_slot`, its own uses'
    /// flows taken back, and `personalization(f)` of the restart.
    fn arrive(
        &self,
        rank: &[f64],
        restart: Restart,
        personalization: impl Fn(usize) -> f64 + Sync,
        per_slot: &[f64],
        next: &mut [f64],
    ) -> f64 {
        let changes: Vec<f64> = next
            .par_chunks_mut(CHUNK)
            .enumerate()
            .map(|(c, chunk)| {
                let first = c * CHUNK;
                let mut own = self.own_file.partition_point(|&g| (g as usize) < first);
                let mut change = 0.0;
                for (k, out) in chunk.iter_mut().enumerate() {
                    let f = first + k;
                    let names = self.file_start[f] as usize..self.file_start[f + 1] as usize;
                    let mut inflow = 0.0;
                    for &slot in &self.defined[names] {
                        inflow += per_slot[slot as usize];
                    }
                    while self.own_file.get(own) == Some(&(f as u32)) {
                        inflow -= rank[f] * self.own_share[own];
                        own += 1;
                    }
                    *out = restart.share * personalization(f) + restart.damping * inflow;
                    change += (*out - rank[f]).abs();
                }
                change
            })
            .collect();
        changes.iter().sum()
    }

    /// Into `per_slot`, each used name's flow: its uses' shares of their files' `rank`, in file
    /// and use order (`graph::Walk::inflow`'s and `rank::Flows::of`'s order), on all cores.
    pub fn gather(&self, rank: &[f64], per_slot: &mut [f64]) {
        per_slot
            .par_chunks_mut(CHUNK)
            .enumerate()
            .for_each(|(c, chunk)| {
                for (k, sum) in chunk.iter_mut().enumerate() {
                    let slot = c * CHUNK + k;
                    let (from, to) = (self.slot_start[slot], self.slot_start[slot + 1]);
                    let places = from as usize * GROUP..to as usize * GROUP;
                    let users = self.user[places.clone()].as_chunks::<GROUP>().0;
                    let shares = self.share[places].as_chunks::<GROUP>().0;
                    let mut flow = 0.0;
                    for (users, shares) in users.iter().zip(shares) {
                        for (&user, &share) in users.iter().zip(shares) {
                            flow += rank[user as usize] * share;
                        }
                    }
                    *sum = flow;
                }
            });
    }

    /// Each used name's value in `per_slot` put at its name in `per_name`; the other names' left.
    pub fn spread(&self, per_slot: &[f64], per_name: &mut [f64]) {
        for (name, &slot) in self.slot_of.iter().enumerate() {
            if slot != NO_SLOT {
                per_name[name] = per_slot[slot as usize];
            }
        }
    }
}

/// What an iteration gives each file besides its inflow: `share` of the restart, spread by the
/// personalization, and the damping of the inflow.
#[derive(Clone, Copy)]
pub struct Restart<'a> {
    pub share: f64,
    pub personalization: Personalization<'a>,
    pub damping: f64,
}

/// Each file's weight in the restart.
#[derive(Clone, Copy)]
pub enum Personalization<'a> {
    /// Every file's the same.
    Alike(f64),
    PerFile(&'a [f64]),
}

impl<'a> Personalization<'a> {
    /// `weights`, as one number when they are all the same.
    pub fn of(weights: &'a [f64]) -> Personalization<'a> {
        match weights.split_first() {
            Some((&first, rest)) if rest.iter().all(|&w| w == first) => Self::Alike(first),
            _ => Self::PerFile(weights),
        }
    }
}

/// Whether no two of `uses` are of one name (each name's run holds a file once).
fn distinct_names(uses: &[Use]) -> bool {
    let mut names: Vec<u32> = uses.iter().map(|u| u.name).collect();
    names.sort_unstable();
    names.windows(2).all(|w| w[0] != w[1])
}

/// Per-name `values` once names `lo..hi` are `lo..now_hi`: those from `hi` on moved to start at
/// `now_hi` (in place), the stretch between left `empty`.
fn restretch<T: Copy>(values: &mut Vec<T>, lo: usize, (hi, now_hi): (usize, usize), empty: T) {
    let len = values.len();
    let now_len = len - hi + now_hi;
    if now_hi > hi {
        values.resize(now_len, empty);
    }
    values.copy_within(hi..len, now_hi);
    values.truncate(now_len);
    values[lo..now_hi].fill(empty);
}

/// `buffer` holding `len` times `value`, in the memory it has.
fn refill<T: Copy>(buffer: &mut Vec<T>, len: usize, value: T) {
    buffer.clear();
    buffer.resize(len, value);
}
