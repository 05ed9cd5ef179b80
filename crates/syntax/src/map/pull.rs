//! PageRank's dense iteration pulled instead of pushed: each name gathers the flows of its users'
//! uses over a compact in-edge layout, then each file gathers its names' sums and gives back its
//! own uses' flows. Every sum is the push walk's (`graph::Walk::inflow`) term for term in the
//! same order — a name's flows in file and use order, a file's names in name order, its own uses
//! in use order — so the ranks are the push walk's bit for bit. Each name and each file is summed
//! on its own, so the names and files are split across the cores without changing any sum.
//!
//! It serves the iterations that visit every file with the graph's own weights (the unsteered
//! question, whose walk is dense from the start): a whole-graph walk of tens of iterations, where
//! the push walk's scattered writes were most of a question's time.

use super::graph::Graph;
use rayon::prelude::*;

/// How many names or files one task sums: large enough that the split costs nothing measurable
/// (small in the tests, so that their trees are split too).
const CHUNK: usize = if cfg!(test) { 64 } else { 4096 };

/// The graph's uses laid out by the name they flow to, and each file's defined names.
#[derive(Default)]
pub struct InEdges {
    /// Per name, its uses: `name_start[n]..name_start[n + 1]` into `user` and `share`, in file
    /// and use order (the push walk's order of adding them).
    name_start: Vec<usize>,
    user: Vec<u32>,
    share: Vec<f64>,
    /// Per file, the names it defines in name order: `file_start[f]..file_start[f + 1]`.
    file_start: Vec<usize>,
    defined: Vec<u32>,
    /// Per file, the shares of its uses of names it defines too, in use order.
    own_start: Vec<usize>,
    own_share: Vec<f64>,
}

impl InEdges {
    /// The layout of `graph`'s uses (file `f`'s are `graph.file_uses(f)`), in `spare`'s buffers
    /// when there is one (a layout no longer used): their pages are in memory already.
    pub fn of(graph: &Graph, spare: Option<InEdges>) -> InEdges {
        let mut edges = spare.unwrap_or_default();
        edges.lay_out(graph);
        edges
    }

    fn lay_out(&mut self, graph: &Graph) {
        let files = graph.files();
        let names = graph.definers.len();
        let name_start = &mut self.name_start;
        refill(name_start, names + 1, 0);
        for f in 0..files {
            for u in graph.file_uses(f).0 {
                name_start[u.name as usize + 1] += 1;
            }
        }
        prefix_sums(name_start);
        let total = name_start[names];
        refill(&mut self.user, total, 0);
        refill(&mut self.share, total, 0.0);
        self.own_start.clear();
        self.own_share.clear();
        // Each name's start serves as its next free slot, then is moved back from the next name's.
        for f in 0..files {
            self.own_start.push(self.own_share.len());
            let (uses, shares) = graph.file_uses(f);
            for (u, &s) in uses.iter().zip(shares) {
                let slot = &mut name_start[u.name as usize];
                (self.user[*slot], self.share[*slot]) = (f as u32, s);
                *slot += 1;
                if u.self_defined {
                    self.own_share.push(s);
                }
            }
        }
        self.own_start.push(self.own_share.len());
        name_start.copy_within(..names, 1);
        name_start[0] = 0;
        // A file's names from its items' (one run per file), not from every name's definers.
        self.file_start.clear();
        self.defined.clear();
        for f in 0..files {
            self.file_start.push(self.defined.len());
            graph.push_names_of(f, &mut self.defined);
        }
        self.file_start.push(self.defined.len());
    }

    /// One iteration: into `next`, each file's rank after the one of `rank` — its share of
    /// `restart` (`personalization`) and the damped rank arriving over the uses: per name the flows
    /// of its uses, to each of its definers, less a definer's own use. `per_name` is scratch, one
    /// slot per name. Answers the total change, |next - rank| over the files, summed in parts on
    /// all cores (`graph::settled` decides with it).
    pub fn step(
        &self,
        rank: &[f64],
        restart: Restart,
        per_name: &mut [f64],
        next: &mut [f64],
    ) -> f64 {
        per_name
            .par_chunks_mut(CHUNK)
            .enumerate()
            .for_each(|(c, chunk)| {
                for (k, sum) in chunk.iter_mut().enumerate() {
                    let n = c * CHUNK + k;
                    let mut flow = 0.0;
                    for e in self.name_start[n]..self.name_start[n + 1] {
                        flow += rank[self.user[e] as usize] * self.share[e];
                    }
                    *sum = flow;
                }
            });
        let per_name = &*per_name;
        let changes: Vec<f64> = next
            .par_chunks_mut(CHUNK)
            .enumerate()
            .map(|(c, chunk)| {
                let mut change = 0.0;
                for (k, out) in chunk.iter_mut().enumerate() {
                    let f = c * CHUNK + k;
                    let mut inflow = 0.0;
                    for &name in &self.defined[self.file_start[f]..self.file_start[f + 1]] {
                        inflow += per_name[name as usize];
                    }
                    for &share in &self.own_share[self.own_start[f]..self.own_start[f + 1]] {
                        inflow -= rank[f] * share;
                    }
                    *out = restart.share * restart.personalization[f] + restart.damping * inflow;
                    change += (*out - rank[f]).abs();
                }
                change
            })
            .collect();
        changes.iter().sum()
    }
}

/// What an iteration gives each file besides its inflow: `share` of the restart, spread by the
/// personalization, and the damping of the inflow.
#[derive(Clone, Copy)]
pub struct Restart<'a> {
    pub share: f64,
    pub personalization: &'a [f64],
    pub damping: f64,
}

/// `buffer` holding `len` times `value`, in the memory it has.
fn refill<T: Copy>(buffer: &mut Vec<T>, len: usize, value: T) {
    buffer.clear();
    buffer.resize(len, value);
}

/// Counts (at `i + 1`) turned into starts (at `i`).
fn prefix_sums(counts: &mut [usize]) {
    for i in 1..counts.len() {
        counts[i] += counts[i - 1];
    }
}
