//! The rank a walk leaves with each defined name: what scoring gives a definition (all of its name's
//! flow, less its own file's use of the name).

use super::graph::{Reached, Steered};
use super::pull::InEdges;
use super::scratch;

/// The rank each (definer, name) receives: all the name's flow, less the definer's own use. Files
/// the walk did not reach carry none.
pub(super) struct Flows {
    /// Per name, the rank its uses carry to its definers.
    pub(super) per_name: Vec<f64>,
    /// The names any rank flowed to, in the order first flowed; empty when the walk reached every
    /// file (`gathered`), as nothing reads it then.
    pub(super) flowed: Vec<usize>,
    /// The reached files' uses of names they define themselves, in file order: scoring reads
    /// them file by file, as it goes (no map keyed by file and name to fill and look up).
    pub(super) own_uses: Vec<OwnUse>,
}

/// A file's use of a name it defines itself, and the rank that use carries: its own definition
/// gets none of it.
#[derive(Clone, Copy)]
pub(super) struct OwnUse {
    pub(super) file: u32,
    pub(super) name: u32,
    pub(super) flow: f64,
}

impl Flows {
    pub(super) fn of(steered: &Steered, reached: &Reached, names: usize) -> Flows {
        let everywhere = reached.files.len() == reached.rank.len();
        match steered.laid_out().filter(|_| everywhere) {
            Some(edges) => Flows::gathered(steered, edges, reached, names),
            None => Flows::summed(steered, reached, names),
        }
    }

    /// The flows of a walk that reached every file, gathered per name over the in-edge layout on
    /// all cores: the same sums in the same order as `summed`'s for every name a file defines
    /// (what scoring reads). `flowed` is left empty: with every file reached, every file is
    /// scored (`scored_files`) without it.
    pub(super) fn gathered(
        steered: &Steered,
        edges: &InEdges,
        reached: &Reached,
        names: usize,
    ) -> Flows {
        let mut per_slot = scratch::zeros(edges.slots(), true);
        edges.gather(&reached.rank, &mut per_slot);
        let mut per_name = scratch::zeros(names, true);
        edges.spread(&per_slot, &mut per_name);
        scratch::give_back(per_slot);
        let mut own_uses = Vec::new();
        for f in 0..reached.rank.len() {
            let (uses, share, _) = steered.uses(f);
            for (u, share) in uses.iter().zip(share).filter(|(u, _)| u.self_defined) {
                let flow = reached.rank[f] * share;
                own_uses.push(OwnUse {
                    file: f as u32,
                    name: u.name,
                    flow,
                });
            }
        }
        Flows {
            per_name,
            flowed: Vec::new(),
            own_uses,
        }
    }

    /// The flows of the files `reached` reached, summed file by file.
    pub(super) fn summed(steered: &Steered, reached: &Reached, names: usize) -> Flows {
        // Nearly every name flows when the walk reached most files.
        let (reached_files, n) = (reached.files.len(), reached.rank.len());
        let dense = super::graph::is_wide(reached_files, n, super::graph::DENSE_SHARE);
        let mut flows = Flows {
            per_name: scratch::zeros(names, dense),
            flowed: Vec::new(),
            own_uses: Vec::new(),
        };
        let mut marked = vec![false; names];
        debug_assert!(reached.files.windows(2).all(|w| w[0] < w[1]));
        for &f in &reached.files {
            let (uses, share, _) = steered.uses(f);
            for (u, share) in uses.iter().zip(share) {
                let (name, flow) = (u.name as usize, reached.rank[f] * share);
                flows.per_name[name] += flow;
                if !std::mem::replace(&mut marked[name], true) {
                    flows.flowed.push(name);
                }
                if u.self_defined {
                    let (file, name) = (f as u32, u.name);
                    flows.own_uses.push(OwnUse { file, name, flow });
                }
            }
        }
        flows
    }

    /// The own uses of the files from `f` on (which `own_uses_of` reads on from).
    pub(super) fn own_uses_from(&self, f: usize) -> &[OwnUse] {
        let at = self.own_uses.partition_point(|o| (o.file as usize) < f);
        &self.own_uses[at..]
    }

    /// File `f`'s own uses, `rest` (the own uses of `f` and later files) moved past them.
    pub(super) fn own_uses_of<'a>(rest: &mut &'a [OwnUse], f: usize) -> &'a [OwnUse] {
        // Walked, not searched: the files come in order, and most have no own use or one.
        let skipped = rest.iter().take_while(|o| (o.file as usize) < f).count();
        let of_f = rest[skipped..].iter().take_while(|o| o.file as usize == f);
        let (own, later) = rest[skipped..].split_at(of_f.count());
        *rest = later;
        own
    }

    /// What a file's definition of `name` receives, when above zero; `own` is the file's own
    /// uses.
    pub(super) fn definition_rank(&self, own: &[OwnUse], name: usize) -> Option<f64> {
        // A file uses each name once; were it listed twice, the last would count, as it did.
        let own_use = own.iter().rev().find(|o| o.name as usize == name);
        let score = self.per_name[name] - own_use.map_or(0.0, |o| o.flow);
        (score > 0.0).then_some(score)
    }
}
