//! The ranking's unscored tail: the items no question's walk reached, listed after the scored ones
//! in path and item order. At 200,000 files they are most of the tree's 400,000 items, and a map
//! shows at most a few thousand items in all: the tail is listed lazily, only as far as the render
//! reads it, and counted from per-snapshot counts (`Listing`) instead of being listed to count it.

use super::index::FileTags;
use super::rank::RankedItem;
use crate::Kind;
use std::sync::Arc;

/// Whether the map lists item `i` of `file`: never a generated file's, nor, unless `include_tests`,
/// one inside a module named `test` or `tests` (Rust's `mod tests`).
pub fn listed(file: &FileTags, i: usize, include_tests: bool) -> bool {
    !(file.generated || !include_tests && file.item_facts[i].in_tests)
}

/// Per item, whether it is inside a module named `test` or `tests`; empty when none is (most
/// files). Found from the top down: climbing each item's parents is quadratic in a deep file.
pub fn test_items(outline: &crate::Outline) -> Vec<bool> {
    let is_test = |item: &crate::Item| {
        item.kind == Kind::Module && (item.name == "tests" || item.name == "test")
    };
    if !outline.items.iter().any(is_test) {
        return Vec::new();
    }
    outline.down_from_roots(|inside, item| inside == Some(true) || is_test(item))
}

/// Per snapshot, how many items each file lists, without and with tests (`include_tests`), and
/// the totals: what a question's tail holds is these less its scored files'; and the files with
/// no item that still say something (`says_without_items`).
#[derive(Default, PartialEq)]
pub struct Listing {
    /// Per `include_tests` (false, true), per file, its listed items.
    counts: [Vec<u32>; 2],
    /// Per `include_tests`, the listed items and the files listing any.
    totals: [(usize, usize); 2],
    /// The files `says_without_items`, sorted.
    itemless: Vec<u32>,
}

impl Listing {
    pub fn of(files: &[Arc<FileTags>]) -> Listing {
        let mut listing = Listing::default();
        for tests in [false, true] {
            let counts: Vec<u32> = files.iter().map(|file| count(file, tests)).collect();
            let items = counts.iter().map(|&c| c as usize).sum();
            let with_items = counts.iter().filter(|&&c| c > 0).count();
            listing.totals[usize::from(tests)] = (items, with_items);
            listing.counts[usize::from(tests)] = counts;
        }
        let itemless = files
            .iter()
            .enumerate()
            .filter(|(_, f)| says_without_items(f));
        listing.itemless = itemless.map(|(f, _)| f as u32).collect();
        listing
    }

    /// The counts after the `changed` files became those of `files`.
    pub fn patch(&mut self, files: &[Arc<FileTags>], changed: &[usize]) {
        for tests in [false, true] {
            let kind = usize::from(tests);
            for &f in changed {
                let (before, now) = (
                    self.counts[kind][f] as usize,
                    count(&files[f], tests) as usize,
                );
                let (items, with_items) = &mut self.totals[kind];
                *items = *items + now - before;
                *with_items = *with_items + usize::from(now > 0) - usize::from(before > 0);
                self.counts[kind][f] = now as u32;
            }
        }
        for &f in changed {
            let at = self.itemless.binary_search(&(f as u32));
            match (at, says_without_items(&files[f])) {
                (Err(at), true) => self.itemless.insert(at, f as u32),
                (Ok(at), false) => _ = self.itemless.remove(at),
                _ => {}
            }
        }
    }

    /// The items file `f` lists.
    pub fn count(&self, f: usize, include_tests: bool) -> usize {
        self.counts[usize::from(include_tests)][f] as usize
    }

    /// The items and the files listing any, over the snapshot.
    pub fn totals(&self, include_tests: bool) -> (usize, usize) {
        self.totals[usize::from(include_tests)]
    }

    /// The files with no item that still say something (`says_without_items`), in path order.
    pub fn itemless(&self) -> &[u32] {
        &self.itemless
    }
}

/// Whether `file` has no item but says something a change may need: a module of re-exports
/// (`index.ts`, `mod.ts`), an `__init__.py` of imports. The map names such a file too
/// (`Ranked::itemless`); an empty file, a generated one or one of comments alone it does not.
fn says_without_items(file: &FileTags) -> bool {
    let says = !file.tags.references.is_empty() || !file.imports.is_empty();
    file.tags.outline.items.is_empty() && !file.generated && says
}

/// The items `file` lists.
fn count(file: &FileTags, include_tests: bool) -> u32 {
    let items = 0..file.tags.outline.items.len();
    items.filter(|&i| listed(file, i, include_tests)).count() as u32
}

/// One question's tail: per file in path order, a scored file's items that scored zero (`zeros`),
/// every listed item of any other file; less the items listed earlier among the focus
/// neighbours (`taken`).
pub struct Tail {
    /// The scored files (sorted).
    scored: Vec<u32>,
    /// The scored files' items that scored zero, in file and item order.
    zeros: Vec<RankedItem>,
    /// The tail's items listed earlier instead, in file and item order.
    taken: Vec<RankedItem>,
    include_tests: bool,
}

impl Tail {
    pub fn new(scored: Vec<u32>, zeros: Vec<RankedItem>, include_tests: bool) -> Tail {
        Tail {
            scored,
            zeros,
            taken: Vec::new(),
            include_tests,
        }
    }

    /// How many items the tail holds (the taken ones too), and how many files other than the
    /// scored ones list any: the snapshot's counts less the scored files'.
    pub fn size(&self, listing: &Listing) -> (usize, usize) {
        let (mut items, mut files) = listing.totals(self.include_tests);
        for &f in &self.scored {
            let count = listing.count(f as usize, self.include_tests);
            items -= count;
            files -= usize::from(count > 0);
        }
        (items + self.zeros.len(), files)
    }

    /// Takes these items out of the tail (any not in it are ignored): they are listed earlier.
    pub fn take(&mut self, mut taken: Vec<RankedItem>) {
        taken.sort_unstable_by_key(|e| (e.file, e.item));
        self.taken = taken;
    }

    /// File `f`'s items in the tail, in item order (the taken ones too).
    pub fn of_file<'a>(
        &'a self,
        f: usize,
        files: &'a [Arc<FileTags>],
    ) -> Box<dyn Iterator<Item = RankedItem> + 'a> {
        let file = f as u32;
        if self.scored.binary_search(&file).is_ok() {
            let from = self.zeros.partition_point(|e| e.file < file);
            let zeros = self.zeros[from..]
                .iter()
                .take_while(move |e| e.file == file);
            return Box::new(zeros.copied());
        }
        let tags = &files[f];
        let items = 0..tags.tags.outline.items.len();
        let listed = items.filter(move |&i| listed(tags, i, self.include_tests));
        Box::new(listed.map(move |i| RankedItem {
            file,
            item: i as u32,
        }))
    }

    /// The tail in path and item order, less the taken items, listed as it is read.
    pub fn iter<'a>(&'a self, files: &'a [Arc<FileTags>]) -> impl Iterator<Item = RankedItem> + 'a {
        let items = (0..files.len()).flat_map(move |f| self.of_file(f, files));
        let mut taken = self.taken.iter().map(|t| (t.file, t.item)).peekable();
        items.filter(move |e| {
            let key = (e.file, e.item);
            while taken.next_if(|&t| t < key).is_some() {}
            taken.next_if_eq(&key).is_none()
        })
    }
}
