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
    /// The layout of `graph`'s uses (file `f`'s are `graph.file_uses(f)`).
    pub fn of(graph: &Graph) -> InEdges {
        let files = graph.files();
        let names = graph.definers.len();
        let mut name_start = vec![0usize; names + 1];
        for f in 0..files {
            for u in graph.file_uses(f).0 {
                name_start[u.name as usize + 1] += 1;
            }
        }
        prefix_sums(&mut name_start);
        let total = name_start[names];
        let (mut user, mut share) = (vec![0u32; total], vec![0.0; total]);
        let mut at = name_start.clone();
        let (mut own_start, mut own_share) = (Vec::with_capacity(files + 1), Vec::new());
        for f in 0..files {
            own_start.push(own_share.len());
            let (uses, shares) = graph.file_uses(f);
            for (u, &s) in uses.iter().zip(shares) {
                let slot = &mut at[u.name as usize];
                (user[*slot], share[*slot]) = (f as u32, s);
                *slot += 1;
                if u.self_defined {
                    own_share.push(s);
                }
            }
        }
        own_start.push(own_share.len());
        // A file's names from its items' (one run per file), not from every name's definers.
        let (mut file_start, mut defined) = (Vec::with_capacity(files + 1), Vec::new());
        for f in 0..files {
            file_start.push(defined.len());
            graph.push_names_of(f, &mut defined);
        }
        file_start.push(defined.len());
        InEdges {
            name_start,
            user,
            share,
            file_start,
            defined,
            own_start,
            own_share,
        }
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

/// Counts (at `i + 1`) turned into starts (at `i`).
fn prefix_sums(counts: &mut [usize]) {
    for i in 1..counts.len() {
        counts[i] += counts[i - 1];
    }
}
