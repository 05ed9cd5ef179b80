//! A snapshot's graph made from the last one's when the same paths are listed and a few files'
//! tags changed (an agent's edit): only the names those files define, before or after, are looked
//! at again, and only the uses of the files using them are weighed again. The result is the graph
//! `Graph::of` builds, part for part (the numbering of the names included: by their first
//! definition in file order), so a map after an edit is a fresh daemon's; debug builds check it
//! against a rebuild.

use super::rows::{replace_in_place, replaced_copy, Resized};
use super::{file_uses, is_symbol, FileUses, Graph, InEdges, NO_NAME};
use crate::map::index::FileTags;
use foldhash::HashSet;
use rayon::prelude::*;
use std::sync::{Arc, OnceLock, PoisonError};

/// Past this many changed files, a rebuild (all cores) costs less than patching one by one.
const MOST_CHANGED: usize = 64;

/// Where a patch's time goes, step by step, for `CODERD_LOG=coderd=debug`.
struct Steps {
    at: std::time::Instant,
    us: String,
}

impl Steps {
    fn start() -> Steps {
        Steps {
            at: std::time::Instant::now(),
            us: String::new(),
        }
    }

    fn done(&mut self, step: &str) {
        let now = std::time::Instant::now();
        let us = (now - self.at).as_micros();
        self.us += &format!(
            "{}{step}_us={us}",
            if self.us.is_empty() { "" } else { " " }
        );
        self.at = now;
    }
}

/// What a changed name became: its definers and first definition now (`None`: defined nowhere).
struct Renamed {
    id: u64,
    old: Option<usize>,
    definers: Vec<usize>,
    first: Option<(u32, u32)>,
    /// Whether its definers or first definition changed (else its uses weigh as before).
    differs: bool,
}

/// The names of a stretch laid out again (`Graph::stretch`).
struct Stretch {
    /// Per old name of the stretch, its number now (`u32::MAX`: defined nowhere now).
    remap: Vec<u32>,
    /// Per arriving name (by first definition), its number.
    arrived: Vec<usize>,
    definers: Vec<Vec<usize>>,
    first: Vec<(u32, u32)>,
    weights: Vec<f64>,
}

/// An old name's number now: the same before the stretch laid out again, looked up in it, moved
/// by `shift` past it.
struct Remap {
    lo: usize,
    hi: usize,
    stretch: Vec<u32>,
    shift: isize,
}

impl Remap {
    fn of(&self, n: usize) -> usize {
        match n {
            n if n < self.lo => n,
            n if n < self.hi => self.stretch[n - self.lo] as usize,
            n => (n as isize + self.shift) as usize,
        }
    }
}

impl Graph {
    /// The graph of `files`, made from this graph of the files before the `replaced` ones (by
    /// index, with their tags before) replaced them, when the paths, languages and modules stay
    /// and at most `MOST_CHANGED` files differ; else `None`.
    pub fn patched(
        mut self,
        replaced: &[(usize, Arc<FileTags>)],
        files: &[Arc<FileTags>],
        weight: &impl Fn(&str, usize) -> f64,
    ) -> Option<Graph> {
        let mut steps = Steps::start();
        let old = &Before::of(self.files(), replaced, files)?;
        let changed = old.changed.clone();
        let renamed = self.renamed(old, files, &changed);
        steps.done("renamed");
        let mut users_of_changed: Vec<u32> = Vec::new();
        for r in renamed.iter().filter(|r| r.differs) {
            // The users before the change: a name defined nowhere now loses its entry.
            users_of_changed.extend(self.users.get(&r.id).into_iter().flatten());
        }
        let refs = changed
            .iter()
            .map(|&f| files[f].reference_ids.iter().map(|r| r.0).collect());
        self.refs.replace(&changed, refs.collect());
        steps.done("refs");
        let renumbered = self.number(files, &renamed, weight);
        steps.done("number");
        let named = changed
            .iter()
            .map(|&f| self.items_named(&files[f]))
            .collect();
        self.item_name.replace(&changed, named);
        let facts = changed.iter().map(|&f| files[f].item_facts.clone());
        self.item_facts.replace(&changed, facts.collect());
        steps.done("named");
        self.note_users(old, files, &changed, &renamed);
        steps.done("users");
        for r in renamed.iter().filter(|r| r.differs) {
            users_of_changed.extend(self.users.get(&r.id).into_iter().flatten());
        }
        let mut reweighed: Vec<usize> = users_of_changed.iter().map(|&f| f as usize).collect();
        reweighed.extend(&changed);
        reweighed.sort_unstable();
        reweighed.dedup();
        // The in-edge layout is kept when only these files' shares change: their uses before
        // (their names as `number` numbered them again).
        let before: Vec<Vec<super::Use>> = match self.in_edges.get().is_some() {
            true => reweighed
                .iter()
                .map(|&f| self.file_uses(f).0.to_vec())
                .collect(),
            false => Vec::new(),
        };
        self.reweigh(files, &reweighed);
        steps.done("reweigh");
        self.names.patch(old, files, &changed);
        self.listing.patch(files, &changed);
        steps.done("names");
        self.keep_in_edges(renumbered.as_ref(), &reweighed, &before);
        steps.done("edges");
        tracing::debug!(
            steps = %steps.us,
            reweighed = reweighed.len(),
            renamed = renamed.len(),
            "map graph patch steps"
        );
        debug_assert!(self.same_as(&Graph::of(files, weight)), "patched graph");
        debug_assert!(
            (self.in_edges.get()).is_none_or(|e| e.same_as(&InEdges::of(&self, None))),
            "patched in-edge layout"
        );
        Some(self)
    }

    /// The last graph's in-edge layout made this one's when its used names kept their order
    /// (`renumbered`: how names were numbered again, if they were) and only the `reweighed`
    /// files' shares changed (`InEdges::reweighed`; `before`: their uses before); else kept as
    /// the spare whose buffers the next layout fills (it is large: its pages are in memory
    /// already).
    fn keep_in_edges(
        &mut self,
        renumbered: Option<&Remap>,
        reweighed: &[usize],
        before: &[Vec<super::Use>],
    ) {
        let Some(mut edges) = std::mem::take(&mut self.in_edges).into_inner() else {
            return;
        };
        let names = self.definers.len();
        let kept_order = renumbered.is_none_or(|r| edges.renumbered(r.lo, &r.stretch, names));
        // Laid out for as many names as there are now, or not kept (never indexed past them).
        if kept_order && edges.names() == names && edges.reweighed(self, reweighed, before) {
            self.in_edges = OnceLock::from(edges);
            return;
        }
        let spare = self.spare_in_edges.get_mut();
        *spare.unwrap_or_else(PoisonError::into_inner) = Some(edges);
    }

    /// The names the changed files define, before or after, with their definers now.
    fn renamed(&self, old: &Before, files: &[Arc<FileTags>], changed: &[usize]) -> Vec<Renamed> {
        let mut ids: Vec<u64> = changed
            .iter()
            .flat_map(|&f| symbol_ids(&old[f]).chain(symbol_ids(&files[f])))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        let renamed = ids.into_iter().map(|id| {
            let old_name = self.name_index.get(&id).copied();
            let before = old_name.map_or(&[][..], |n| &self.definers[n][..]);
            let mut definers: Vec<usize> = before
                .iter()
                .copied()
                .filter(|f| changed.binary_search(f).is_err())
                .collect();
            definers.extend(
                changed
                    .iter()
                    .copied()
                    .filter(|&f| symbol_ids(&files[f]).any(|i| i == id)),
            );
            definers.sort_unstable();
            let first = definers.first().map(|&f| {
                let i = first_definition(&files[f], id);
                (f as u32, i as u32)
            });
            let differs = before != &definers[..] || old_name.map(|n| self.first[n]) != first;
            Renamed {
                id,
                old: old_name,
                definers,
                first,
                differs,
            }
        });
        renamed.collect()
    }

    /// The names numbered again: the changed ones' definers, first definitions and weights set,
    /// those defined nowhere now dropped, new ones placed by their first definition (the names
    /// stay numbered in the order of their first definitions, as `Graph::of` numbers them).
    /// Only the stretch of names between the first and the last place that changed is laid out
    /// again; the names past it move by how many came less how many left, and when none moved
    /// (a name replaced by one defined where it was) no use is renumbered. How the names were
    /// numbered again, if any moved or their number changed.
    fn number(
        &mut self,
        files: &[Arc<FileTags>],
        renamed: &[Renamed],
        weight: &impl Fn(&str, usize) -> f64,
    ) -> Option<Remap> {
        let text = |(f, i): (u32, u32)| {
            files[f as usize].tags.outline.items[i as usize]
                .name
                .as_str()
        };
        let moves = |r: &Renamed| r.old.map(|n| self.first[n]) != r.first;
        for r in renamed.iter().filter(|r| !moves(r)) {
            let (name, first) = (r.old.expect("kept"), r.first.expect("kept"));
            self.weights[name] = weight(text(first), r.definers.len());
            self.definers[name] = r.definers.clone();
        }
        let mut leaving: Vec<usize> = renamed
            .iter()
            .filter(|r| moves(r))
            .filter_map(|r| r.old)
            .collect();
        leaving.sort_unstable();
        let mut arriving: Vec<&Renamed> = renamed
            .iter()
            .filter(|r| moves(r) && r.first.is_some())
            .collect();
        arriving.sort_unstable_by_key(|r| r.first);
        // Each arriving name goes before the first old name defined after it.
        let before: Vec<usize> = arriving
            .iter()
            .map(|r| self.first.partition_point(|&at| Some(at) < r.first))
            .collect();
        let (Some(lo), Some(hi)) = (
            leaving
                .first()
                .into_iter()
                .chain(before.first())
                .min()
                .copied(),
            (leaving.last().map(|&n| n + 1).into_iter())
                .chain(before.last().copied())
                .max(),
        ) else {
            return None;
        };
        let stretch = self.stretch(lo..hi, &leaving, &arriving, &before, &text, weight);
        for r in renamed.iter().filter(|r| r.first.is_none()) {
            self.name_index.remove(&r.id);
        }
        let shift = stretch.definers.len() as isize - (hi - lo) as isize;
        let remap = Remap {
            lo,
            hi,
            stretch: stretch.remap,
            shift,
        };
        let tail_moves = shift != 0 && hi < self.first.len();
        let stretch_moves = (lo..hi).any(|n| remap.stretch[n - lo] != u32::MAX && remap.of(n) != n);
        // Else the names that left are defined nowhere now: only their users (weighed again) and
        // the changed files (named again) held them.
        if tail_moves || stretch_moves {
            for n in self.name_index.values_mut() {
                *n = remap.of(*n);
            }
            // A removed name's uses are weighed again (its users are), and its items are in the
            // changed files (named again): the others keep their place.
            self.uses
                .par_iter_mut()
                .with_min_len(1 << 14)
                .for_each(|u| u.name = remap.of(u.name as usize) as u32);
            self.item_name
                .data
                .par_iter_mut()
                .with_min_len(1 << 14)
                .filter(|n| **n != NO_NAME)
                .for_each(|n| *n = remap.of(*n as usize) as u32);
        }
        for (k, r) in arriving.iter().enumerate() {
            self.name_index.insert(r.id, stretch.arrived[k]);
        }
        self.definers.splice(lo..hi, stretch.definers);
        self.first.splice(lo..hi, stretch.first);
        self.weights.splice(lo..hi, stretch.weights);
        // A name added or dropped after every other changes how many there are, not any number.
        (tail_moves || stretch_moves || shift != 0).then_some(remap)
    }

    /// The names `lo..hi` laid out again: the `leaving` ones (sorted) left out, the `arriving`
    /// ones (by first definition) placed before the old names `before` says.
    fn stretch<'a>(
        &mut self,
        names: std::ops::Range<usize>,
        leaving: &[usize],
        arriving: &[&Renamed],
        before: &[usize],
        text: &impl Fn((u32, u32)) -> &'a str,
        weight: &impl Fn(&str, usize) -> f64,
    ) -> Stretch {
        let lo = names.start;
        let mut stretch = Stretch {
            remap: vec![u32::MAX; names.len()],
            arrived: Vec::with_capacity(arriving.len()),
            definers: Vec::new(),
            first: Vec::new(),
            weights: Vec::new(),
        };
        let mut coming = arriving.iter().zip(before).peekable();
        let mut leaving = leaving.iter().peekable();
        for n in names.clone().chain([names.end]) {
            while let Some((r, _)) = coming.next_if(|(_, &b)| b <= n) {
                let at = r.first.expect("arriving");
                stretch.arrived.push(lo + stretch.definers.len());
                stretch.definers.push(r.definers.clone());
                stretch.first.push(at);
                stretch.weights.push(weight(text(at), r.definers.len()));
            }
            if n == names.end || leaving.next_if(|&&l| l == n).is_some() {
                continue;
            }
            stretch.remap[n - lo] = (lo + stretch.definers.len()) as u32;
            stretch.definers.push(std::mem::take(&mut self.definers[n]));
            stretch.first.push(self.first[n]);
            stretch.weights.push(self.weights[n]);
        }
        // A name whose first definition moved keeps its definers elsewhere: their items follow it.
        for (r, &to) in arriving.iter().zip(&stretch.arrived) {
            if let Some(n) = r.old {
                stretch.remap[n - lo] = to as u32;
            }
        }
        stretch
    }

    /// The users' lists after the edit: each changed file taken out of the lists of the ids it
    /// no longer references and put into those of the ids it now references (a reference kept
    /// keeps its place), the users of a name new to the tree found among every file, and a name
    /// defined nowhere now dropped (unless it names a module).
    fn note_users(
        &mut self,
        old: &Before,
        files: &[Arc<FileTags>],
        changed: &[usize],
        renamed: &[Renamed],
    ) {
        // A module's name already lists every file using it.
        let new: Vec<u64> = renamed
            .iter()
            .filter(|r| r.old.is_none() && r.first.is_some() && !self.modules.contains_key(&r.id))
            .map(|r| r.id)
            .collect();
        self.note_users_of_new(&new);
        for &f in changed {
            let (before, now) = (sorted_ids(&old[f]), sorted_ids(&files[f]));
            for id in before.iter().filter(|id| now.binary_search(id).is_err()) {
                if let Some(list) = self.users.get_mut(id) {
                    if let Ok(at) = list.binary_search(&(f as u32)) {
                        list.remove(at);
                    }
                    if list.is_empty() {
                        self.users.remove(id);
                    }
                }
            }
            // A reference kept is listed already, unless its name is new (listed just now).
            for id in now.iter().filter(|id| before.binary_search(id).is_err()) {
                if self.name_index.contains_key(id) || self.modules.contains_key(id) {
                    let list = self.users.entry(*id).or_default();
                    if let Err(at) = list.binary_search(&(f as u32)) {
                        list.insert(at, f as u32);
                    }
                }
            }
        }
        for r in renamed.iter().filter(|r| r.first.is_none()) {
            if !self.modules.contains_key(&r.id) {
                self.users.remove(&r.id);
            }
        }
    }

    /// The users of names new to the tree, found in every file's references (all cores, in file
    /// order): a name is usually one, compared with directly instead of looked up.
    fn note_users_of_new(&mut self, new: &[u64]) {
        if new.is_empty() {
            return;
        }
        let set: HashSet<u64> = new.iter().copied().collect();
        let is_new = |id: &u64| match new.len() {
            1..=4 => new.contains(id),
            _ => set.contains(id),
        };
        // Over the references laid out together, not file by file: a name new to the tree is
        // referenced by few, and the scan is one pass over memory. On this thread: the pool's may
        // be busy with the pass ahead's module structure, which a question would wait behind.
        let refs = &self.refs;
        let at = refs.data.iter().enumerate().filter(|(_, id)| is_new(id));
        let found: Vec<(u32, u64)> = at
            .map(|(k, &id)| {
                let f = refs.start.partition_point(|&s| s <= k) - 1;
                (f as u32, id)
            })
            .collect();
        for (f, id) in found {
            let list = self.users.entry(id).or_default();
            if list.last() != Some(&f) {
                list.push(f);
            }
        }
    }

    /// Each item's name in `file` (`NO_NAME` for one that is no symbol).
    fn items_named(&self, file: &FileTags) -> Vec<u32> {
        let items = file.tags.outline.items.iter().zip(&file.item_ids);
        let name = |(item, id): (&crate::items::Item, &u64)| match is_symbol(item.kind) {
            true => self.name_index[id] as u32,
            false => NO_NAME,
        };
        items.map(name).collect()
    }

    /// The uses of `reweighed` (sorted) weighed again; every other file's kept (in place while
    /// few files' numbers of uses change, see `rows`).
    fn reweigh(&mut self, files: &[Arc<FileTags>], reweighed: &[usize]) {
        let fresh: Vec<FileUses> = reweighed
            .iter()
            .map(|&f| {
                let refs = &files[f].reference_ids;
                file_uses(
                    f,
                    refs,
                    &self.name_index,
                    &self.definers,
                    &self.weights,
                    1.0,
                )
            })
            .collect();
        for (&f, file) in reweighed.iter().zip(&fresh) {
            self.out_weight[f] = file.out_weight;
        }
        let uses: Vec<&[super::Use]> = fresh.iter().map(|u| &u.uses[..]).collect();
        let share: Vec<&[f64]> = fresh.iter().map(|u| &u.share[..]).collect();
        let resized = Resized::of(&self.start, reweighed, uses.iter().map(|u| u.len()));
        if resized.in_place() {
            replace_in_place(&self.start, &mut self.uses, reweighed, &uses);
            replace_in_place(&self.start, &mut self.share, reweighed, &share);
            resized.shift_starts(&mut self.start, reweighed);
        } else {
            let (start, uses) = replaced_copy(&self.start, &self.uses, reweighed, &uses);
            (_, self.share) = replaced_copy(&self.start, &self.share, reweighed, &share);
            (self.start, self.uses) = (start, uses);
        }
    }

    /// Whether every part equals `other`'s, floating-point numbers bit for bit.
    fn same_as(&self, other: &Graph) -> bool {
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let uses = |g: &Graph| {
            let list = g
                .uses
                .iter()
                .map(|u| (u.name, u.weight.to_bits(), u.self_defined));
            list.collect::<Vec<_>>()
        };
        self.name_index == other.name_index
            && self.definers == other.definers
            && self.first == other.first
            && bits(&self.weights) == bits(&other.weights)
            && self.modules == other.modules
            && self.users == other.users
            && self.names == other.names
            && self.listing == other.listing
            && self.item_name == other.item_name
            && self.item_facts == other.item_facts
            && self.refs == other.refs
            && self.start == other.start
            && uses(self) == uses(other)
            && bits(&self.share) == bits(&other.share)
            && bits(&self.out_weight) == bits(&other.out_weight)
    }
}

/// The changed files' tags before the edit, by file index.
struct Before<'a> {
    /// The files that changed (sorted).
    changed: Vec<usize>,
    tags: Vec<&'a FileTags>,
}

impl<'a> Before<'a> {
    /// The files of `replaced` (sorted by index) that changed in `files` (a graph of `n` files),
    /// when they stay at their paths with their languages and modules and few changed.
    fn of(
        n: usize,
        replaced: &'a [(usize, Arc<FileTags>)],
        files: &[Arc<FileTags>],
    ) -> Option<Before<'a>> {
        if n != files.len() {
            return None;
        }
        let mut before = Before {
            changed: Vec::new(),
            tags: Vec::new(),
        };
        for (f, a) in replaced {
            let b = files.get(*f)?;
            if Arc::ptr_eq(a, b) {
                continue;
            }
            let same_place =
                a.rel == b.rel && a.language == b.language && a.module_id == b.module_id;
            if !same_place || before.changed.len() == MOST_CHANGED {
                return None;
            }
            before.changed.push(*f);
            before.tags.push(a);
        }
        Some(before)
    }
}

impl std::ops::Index<usize> for Before<'_> {
    type Output = FileTags;

    fn index(&self, f: usize) -> &FileTags {
        let at = self.changed.binary_search(&f).expect("a changed file");
        self.tags[at]
    }
}

/// The ids of the names `file` defines as graph symbols, in item order.
fn symbol_ids(file: &FileTags) -> impl Iterator<Item = u64> + '_ {
    let items = file.tags.outline.items.iter().zip(&file.item_ids);
    items
        .filter(|(item, _)| is_symbol(item.kind))
        .map(|(_, &id)| id)
}

/// The ids `file` references (sorted, unique).
fn sorted_ids(file: &FileTags) -> Vec<u64> {
    let mut ids: Vec<u64> = file.reference_ids.iter().map(|r| r.0).collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// The first item of `file` defining `id` as a graph symbol.
fn first_definition(file: &FileTags, id: u64) -> usize {
    let items = file.tags.outline.items.iter().zip(&file.item_ids);
    let mut found = items
        .enumerate()
        .filter(|(_, (item, &i))| i == id && is_symbol(item.kind));
    found.next().map_or(0, |(at, _)| at)
}

#[cfg(test)]
mod tests;
