//! A snapshot's graph made from the last one's when the same paths are listed and a few files'
//! tags changed (an agent's edit): only the names those files define, before or after, are looked
//! at again, and only the uses of the files using them are weighed again. The result is the graph
//! `Graph::of` builds, part for part (the numbering of the names included: by their first
//! definition in file order), so a map after an edit is a fresh daemon's; debug builds check it
//! against a rebuild.

use super::{file_uses, is_symbol, FileUses, Graph, PerFile, NO_NAME};
use crate::map::index::FileTags;
use foldhash::HashSet;
use std::sync::{Arc, OnceLock};

/// Past this many changed files, a rebuild (all cores) costs less than patching one by one.
const MOST_CHANGED: usize = 64;

/// What a changed name became: its definers and first definition now (`None`: defined nowhere).
struct Renamed {
    id: u64,
    old: Option<usize>,
    definers: Vec<usize>,
    first: Option<(u32, u32)>,
    /// Whether its definers or first definition changed (else its uses weigh as before).
    differs: bool,
}

impl Graph {
    /// The graph of `files`, made from this graph of `old` when both list the same paths with
    /// the same languages and modules and at most `MOST_CHANGED` files differ; else `None`.
    pub fn patched(
        mut self,
        old: &[Arc<FileTags>],
        files: &[Arc<FileTags>],
        weight: &impl Fn(&str, usize) -> f64,
    ) -> Option<Graph> {
        let changed = changed_files(old, files)?;
        let renamed = self.renamed(old, files, &changed);
        let mut users_of_changed: Vec<u32> = Vec::new();
        for r in renamed.iter().filter(|r| r.differs) {
            // The users before the change: a name defined nowhere now loses its entry.
            users_of_changed.extend(self.users.get(&r.id).into_iter().flatten());
        }
        self.forget_users(old, &changed);
        let refs = changed
            .iter()
            .map(|&f| files[f].reference_ids.iter().map(|r| r.0).collect());
        self.refs.replace(&changed, refs.collect());
        self.number(files, &renamed, weight);
        let named = changed
            .iter()
            .map(|&f| self.items_named(&files[f]))
            .collect();
        self.item_name.replace(&changed, named);
        self.note_users(&changed, files, &renamed);
        for r in renamed.iter().filter(|r| r.differs) {
            users_of_changed.extend(self.users.get(&r.id).into_iter().flatten());
        }
        let mut reweighed: Vec<usize> = users_of_changed.iter().map(|&f| f as usize).collect();
        reweighed.extend(&changed);
        reweighed.sort_unstable();
        reweighed.dedup();
        self.reweigh(files, &reweighed);
        self.names.patch(old, files, &changed);
        self.listing.patch(files, &changed);
        self.in_edges = OnceLock::new();
        debug_assert!(self.same_as(&Graph::of(files, weight)), "patched graph");
        Some(self)
    }

    /// The names the changed files define, before or after, with their definers now.
    fn renamed(
        &self,
        old: &[Arc<FileTags>],
        files: &[Arc<FileTags>],
        changed: &[usize],
    ) -> Vec<Renamed> {
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
    fn number(
        &mut self,
        files: &[Arc<FileTags>],
        renamed: &[Renamed],
        weight: &impl Fn(&str, usize) -> f64,
    ) {
        let text = |(f, i): (u32, u32)| {
            files[f as usize].tags.outline.items[i as usize]
                .name
                .as_str()
        };
        let moves = |r: &Renamed| r.old.map(|n| self.first[n]) != r.first;
        if !renamed.iter().any(moves) {
            for r in renamed {
                let (name, first) = (r.old.expect("kept"), r.first.expect("kept"));
                self.weights[name] = weight(text(first), r.definers.len());
                self.definers[name] = r.definers.clone();
            }
            return;
        }
        // The kept names in their order, the moved and new ones merged in by first definition.
        let mut by_old = vec![usize::MAX; self.first.len()];
        for (k, r) in renamed.iter().enumerate() {
            if let Some(n) = r.old {
                by_old[n] = k;
            }
        }
        let mut arriving: Vec<&Renamed> = renamed
            .iter()
            .filter(|r| moves(r) && r.first.is_some())
            .collect();
        arriving.sort_unstable_by_key(|r| r.first);
        let mut arriving = arriving.into_iter().peekable();
        let names = self.first.len() + arriving.len();
        let mut placed: Vec<(Option<usize>, Option<&Renamed>)> = Vec::with_capacity(names);
        for (n, (&k, &at)) in by_old.iter().zip(&self.first).enumerate() {
            let r = renamed.get(k);
            if r.is_some_and(moves) {
                continue;
            }
            while let Some(r) = arriving.next_if(|r| r.first < Some(at)) {
                placed.push((None, Some(r)));
            }
            placed.push((Some(n), r));
        }
        placed.extend(arriving.map(|r| (None, Some(r))));
        let mut remap = vec![u32::MAX; self.first.len()];
        let mut definers = Vec::with_capacity(names);
        let (mut first, mut weights) = (Vec::with_capacity(names), Vec::with_capacity(names));
        for (to, &(from, r)) in placed.iter().enumerate() {
            if let Some(r) = r {
                let at = r.first.expect("placed");
                if let Some(n) = r.old {
                    remap[n] = to as u32;
                }
                definers.push(r.definers.clone());
                first.push(at);
                weights.push(weight(text(at), r.definers.len()));
                self.name_index.insert(r.id, to);
            } else if let Some(n) = from {
                remap[n] = to as u32;
                definers.push(std::mem::take(&mut self.definers[n]));
                first.push(self.first[n]);
                weights.push(self.weights[n]);
            }
        }
        for r in renamed.iter().filter(|r| r.first.is_none()) {
            self.name_index.remove(&r.id);
        }
        for (id, n) in self.name_index.iter_mut() {
            if renamed.binary_search_by_key(id, |r| r.id).is_err() {
                *n = remap[*n] as usize;
            }
        }
        // A removed name's uses are weighed again (its users are), and its items are in the
        // changed files (named again): the others keep their place.
        for u in self.uses.iter_mut() {
            u.name = remap[u.name as usize];
        }
        for name in self.item_name.data.iter_mut().filter(|n| **n != NO_NAME) {
            *name = remap[*name as usize];
        }
        (self.definers, self.first, self.weights) = (definers, first, weights);
    }

    /// The changed files taken out of the users of what they used.
    fn forget_users(&mut self, old: &[Arc<FileTags>], changed: &[usize]) {
        for &f in changed {
            for (id, _) in &old[f].reference_ids {
                if let Some(list) = self.users.get_mut(id) {
                    list.retain(|&g| g as usize != f);
                    if list.is_empty() {
                        self.users.remove(id);
                    }
                }
            }
        }
    }

    /// The changed files added to the users of what they use, the users of a name new to the
    /// tree found among every file, and a name defined nowhere now dropped (unless it names a
    /// module).
    fn note_users(&mut self, changed: &[usize], files: &[Arc<FileTags>], renamed: &[Renamed]) {
        // A module's name already lists every file using it.
        let new: Vec<u64> = renamed
            .iter()
            .filter(|r| r.old.is_none() && r.first.is_some() && !self.modules.contains_key(&r.id))
            .map(|r| r.id)
            .collect();
        if !new.is_empty() {
            let new: HashSet<u64> = new.into_iter().collect();
            for f in 0..files.len() {
                for id in self.refs.of(f).iter().filter(|id| new.contains(id)) {
                    let list = self.users.entry(*id).or_default();
                    if list.last() != Some(&(f as u32)) {
                        list.push(f as u32);
                    }
                }
            }
        }
        for &f in changed {
            for (id, _) in &files[f].reference_ids {
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

    /// Each item's name in `file` (`NO_NAME` for one that is no symbol).
    fn items_named(&self, file: &FileTags) -> Vec<u32> {
        let items = file.tags.outline.items.iter().zip(&file.item_ids);
        let name = |(item, id): (&crate::items::Item, &u64)| match is_symbol(item.kind) {
            true => self.name_index[id] as u32,
            false => NO_NAME,
        };
        items.map(name).collect()
    }

    /// The uses of `reweighed` (sorted) weighed again; every other file's kept.
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
        let n = files.len();
        let (old_start, old_uses, old_share) = (
            std::mem::take(&mut self.start),
            std::mem::take(&mut self.uses),
            std::mem::take(&mut self.share),
        );
        let mut start = Vec::with_capacity(n + 1);
        let (mut uses, mut share) = (
            Vec::with_capacity(old_uses.len()),
            Vec::with_capacity(old_uses.len()),
        );
        let mut from = 0;
        for (&f, file) in reweighed.iter().zip(fresh) {
            // The kept files before `f` in one copy, their starts shifted.
            keep_rows(&old_start, &old_uses, from..f, &mut start, &mut uses);
            share.extend_from_slice(&old_share[old_start[from]..old_start[f]]);
            start.push(uses.len());
            uses.extend(file.uses);
            share.extend(file.share);
            self.out_weight[f] = file.out_weight;
            from = f + 1;
        }
        keep_rows(&old_start, &old_uses, from..n, &mut start, &mut uses);
        share.extend_from_slice(&old_share[old_start[from]..old_start[n]]);
        start.push(uses.len());
        (self.start, self.uses, self.share) = (start, uses, share);
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
            && self.refs == other.refs
            && self.start == other.start
            && uses(self) == uses(other)
            && bits(&self.share) == bits(&other.share)
            && bits(&self.out_weight) == bits(&other.out_weight)
    }
}

impl<T: Copy> PerFile<T> {
    /// The runs of the `changed` files (sorted) replaced by `fresh`, in order; the others kept,
    /// each stretch between two changed files in one copy.
    fn replace(&mut self, changed: &[usize], fresh: Vec<Vec<T>>) {
        let n = self.start.len() - 1;
        let (old_start, old) = (
            std::mem::take(&mut self.start),
            std::mem::take(&mut self.data),
        );
        let (mut start, mut data) = (Vec::with_capacity(n + 1), Vec::with_capacity(old.len()));
        let mut from = 0;
        for (&f, run) in changed.iter().zip(fresh) {
            keep_rows(&old_start, &old, from..f, &mut start, &mut data);
            start.push(data.len());
            data.extend(run);
            from = f + 1;
        }
        keep_rows(&old_start, &old, from..n, &mut start, &mut data);
        start.push(data.len());
        (self.start, self.data) = (start, data);
    }
}

/// Appends the kept `rows` of a row layout (`old_start[r]..old_start[r + 1]` of `old` for row
/// `r`) to `start` and `data`, their starts shifted to where they land.
fn keep_rows<T: Clone>(
    old_start: &[usize],
    old: &[T],
    rows: std::ops::Range<usize>,
    start: &mut Vec<usize>,
    data: &mut Vec<T>,
) {
    let shift = data.len() as isize - old_start[rows.start] as isize;
    let starts = old_start[rows.clone()].iter();
    start.extend(starts.map(|&s| (s as isize + shift) as usize));
    data.extend_from_slice(&old[old_start[rows.start]..old_start[rows.end]]);
}

/// The indices of the files that changed (sorted), when `old` and `files` list the same paths
/// with the same languages and modules and few changed.
fn changed_files(old: &[Arc<FileTags>], files: &[Arc<FileTags>]) -> Option<Vec<usize>> {
    if old.len() != files.len() {
        return None;
    }
    let mut changed = Vec::new();
    for (f, (a, b)) in old.iter().zip(files).enumerate() {
        if Arc::ptr_eq(a, b) {
            continue;
        }
        let same_place = a.rel == b.rel && a.language == b.language && a.module_id == b.module_id;
        if !same_place || changed.len() == MOST_CHANGED {
            return None;
        }
        changed.push(f);
    }
    Some(changed)
}

/// The ids of the names `file` defines as graph symbols, in item order.
fn symbol_ids(file: &FileTags) -> impl Iterator<Item = u64> + '_ {
    let items = file.tags.outline.items.iter().zip(&file.item_ids);
    items
        .filter(|(item, _)| is_symbol(item.kind))
        .map(|(_, &id)| id)
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
mod tests {
    use super::super::tests::tree;
    use super::*;
    use crate::items::Item;
    use crate::map::rank::{graph, graph_after, name_weight};
    use crate::tags::Tags;
    use crate::Kind;

    /// File `f` of `files` with its items and references changed by `change`.
    fn changed(
        files: &[Arc<FileTags>],
        f: usize,
        change: impl FnOnce(&mut Vec<Item>, &mut Vec<(String, u32)>),
    ) -> Vec<Arc<FileTags>> {
        let file = &files[f];
        let (mut items, mut references) = (
            file.tags.outline.items.clone(),
            file.tags.references.clone(),
        );
        change(&mut items, &mut references);
        references.sort();
        references.dedup_by(|a, b| a.0 == b.0);
        let mut outline = file.tags.outline.clone();
        outline.items = items;
        let tags = Tags {
            outline,
            references,
        };
        let new = FileTags::new(
            file.rel.clone(),
            file.language,
            tags,
            file.generated,
            vec![],
            vec![],
        );
        let mut out = files.to_vec();
        out[f] = Arc::new(new);
        out
    }

    fn function(name: &str) -> Item {
        Item::bare(Kind::Function, name, None)
    }

    /// The graph after `files` became `next`, patched, checked against a new one, part for part.
    fn patch_and_check(files: &[Arc<FileTags>], next: &[Arc<FileTags>], expect_patch: bool) {
        let weight = |name: &str, n| name_weight(name, n, false);
        let patched = graph(files).patched(files, next, &weight);
        assert_eq!(patched.is_some(), expect_patch);
        let fresh = graph(next);
        if let Some(patched) = patched {
            assert!(patched.same_as(&fresh));
        }
        let last = Arc::new(graph(files));
        assert!(graph_after(files, last, next).0.same_as(&fresh));
    }

    #[test]
    fn a_patched_graph_is_the_rebuilt_graph_part_for_part() {
        for seed in [1, 2, 3, 4] {
            let files = tree(400, seed);
            let f = 37 + seed as usize * 41;
            let mut steps: Vec<Vec<Arc<FileTags>>> = Vec::new();
            // Uses changed: a name of a far file, a name defined nowhere, one use dropped.
            steps.push(changed(&files, f, |_, refs| {
                refs.push(("do_thing_300".into(), 2));
                refs.push(("NotDefinedYet".into(), 1));
                refs.remove(0);
            }));
            // A definition added of a name others use but nobody defined, then one of a name
            // many files define (its weight changes past five definers).
            let before = steps.last().unwrap().clone();
            steps.push(changed(&before, f + 5, |items, _| {
                items.push(function("NotDefinedYet"))
            }));
            let before = steps.last().unwrap().clone();
            steps.push(changed(&before, f + 9, |items, _| {
                items.push(function("New"))
            }));
            // A definition removed that only this file had, the items after it moved up.
            let before = steps.last().unwrap().clone();
            steps.push(changed(&before, f + 2, |items, _| {
                items.remove(0);
                for item in items.iter_mut() {
                    item.parent = item.parent.and_then(|p| p.checked_sub(1));
                }
            }));
            // A file's items reversed: its names' first definitions move.
            let before = steps.last().unwrap().clone();
            steps.push(changed(&before, 3, |items, _| {
                items.retain(|i| i.parent.is_none());
                items.reverse();
            }));
            // The first file's definitions all gone: every name numbered anew.
            let before = steps.last().unwrap().clone();
            steps.push(changed(&before, 0, |items, refs| {
                items.clear();
                refs.clear();
            }));
            let mut last = files.clone();
            for next in steps {
                patch_and_check(&last, &next, true);
                last = next;
            }
        }
    }

    #[test]
    fn a_file_added_removed_or_renamed_rebuilds_the_graph() {
        let files = tree(300, 9);
        let mut fewer = files.clone();
        fewer.remove(120);
        patch_and_check(&files, &fewer, false);
        patch_and_check(&fewer, &files, false);
        let mut renamed = files.clone();
        let moved = &files[200];
        let tags = Tags {
            outline: moved.tags.outline.clone(),
            references: moved.tags.references.clone(),
        };
        let rel = moved.rel.replace("f00", "g00");
        renamed[200] = Arc::new(FileTags::new(
            rel,
            moved.language,
            tags,
            false,
            vec![],
            vec![],
        ));
        renamed.sort_by(|a, b| a.rel.cmp(&b.rel));
        patch_and_check(&files, &renamed, false);
    }
}
