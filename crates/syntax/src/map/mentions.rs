//! Where a question's mentioned names are in a snapshot, found through indexes built once per
//! snapshot (`Names`, kept in the graph) instead of scans over every file and item: a mention names
//! no language, so it is looked up in each language family of the tree; the files defining it
//! (the graph's definers), holding an item of that name that is no graph symbol (a heading, a
//! config key), and named after it (a path's stem).

use super::graph::{is_symbol, Graph};
use super::index::FileTags;
use super::rank::{family, name_id};
use foldhash::HashMap;
use std::sync::Arc;

/// A snapshot's indexes for looking mentions up.
#[derive(Default, PartialEq)]
pub struct Names {
    /// The language families of the files (sorted, unique).
    families: Vec<&'static str>,
    /// The files holding an item that is no graph symbol, by the item's id (`rank::name_id`).
    others: HashMap<u64, Vec<u32>>,
    /// Each file by the id of its path's stem (`stem_id`), sorted.
    stems: Vec<(u64, u32)>,
}

/// The id of a path's stem (`fields` for `pydantic/fields.py`): a fixed-seed hash.
fn stem_id(stem: &str) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0x7374_656d).hash_one(stem)
}

fn stem(rel: &str) -> Option<&str> {
    std::path::Path::new(rel).file_stem()?.to_str()
}

/// The ids of the items of `file` that are no graph symbols, in item order.
fn other_ids(file: &FileTags) -> impl Iterator<Item = u64> + '_ {
    let items = file.tags.outline.items.iter().zip(&file.item_ids);
    items
        .filter(|(item, _)| !is_symbol(item.kind))
        .map(|(_, &id)| id)
}

impl Names {
    pub fn of(files: &[Arc<FileTags>]) -> Names {
        let mut names = Names::default();
        for (f, file) in files.iter().enumerate() {
            names.families.push(family(file.language));
            for id in other_ids(file) {
                let list = names.others.entry(id).or_default();
                if list.last() != Some(&(f as u32)) {
                    list.push(f as u32);
                }
            }
            if let Some(stem) = stem(&file.rel) {
                names.stems.push((stem_id(stem), f as u32));
            }
        }
        names.families.sort_unstable();
        names.families.dedup();
        names.stems.sort_unstable();
        names
    }

    /// The indexes after the `changed` files of `old` became those of `files`, at the same paths
    /// (so the families and stems are the same): their items that are no symbols listed anew.
    pub fn patch(
        &mut self,
        old: &impl std::ops::Index<usize, Output = FileTags>,
        files: &[Arc<FileTags>],
        changed: &[usize],
    ) {
        for &f in changed {
            for id in other_ids(&old[f]) {
                if let Some(list) = self.others.get_mut(&id) {
                    list.retain(|&g| g as usize != f);
                    if list.is_empty() {
                        self.others.remove(&id);
                    }
                }
            }
        }
        for &f in changed {
            for id in other_ids(&files[f]) {
                let list = self.others.entry(id).or_default();
                if let Err(at) = list.binary_search(&(f as u32)) {
                    list.insert(at, f as u32);
                }
            }
        }
    }

    /// The ids `mention` has in the tree's families.
    fn ids<'a>(&'a self, mention: &'a str) -> impl Iterator<Item = u64> + 'a {
        self.families
            .iter()
            .map(move |family| name_id(family, mention))
    }

    /// The files whose path's stem is `mention`.
    fn named(&self, files: &[Arc<FileTags>], mention: &str) -> Vec<usize> {
        let id = stem_id(mention);
        let from = self.stems.partition_point(|e| e.0 < id);
        let same = self.stems[from..].iter().take_while(|e| e.0 == id);
        same.map(|e| e.1 as usize)
            .filter(|&f| stem(&files[f].rel) == Some(mention))
            .collect()
    }
}

/// A question's mentions as the snapshot holds them.
pub struct Mentioned {
    /// The graph's names spelled like a mention (sorted, unique): they weigh more.
    pub names: Vec<usize>,
    /// The files where a random walk restarts for the mentions, once per mention and family
    /// defining a name of its id, and once per mention naming the file's stem.
    pub restarts: Vec<usize>,
    /// The files that may hold an item named like a mention: every one that does, and a few
    /// more when two names share an id (their items then score as they would anyway).
    pub holders: Vec<usize>,
}

impl Mentioned {
    pub fn of(files: &[Arc<FileTags>], graph: &Graph, mentions: &[String]) -> Mentioned {
        let index = &graph.names;
        let mut found = Mentioned {
            names: Vec::new(),
            restarts: Vec::new(),
            holders: Vec::new(),
        };
        for mention in mentions {
            for id in index.ids(mention) {
                if let Some(&name) = graph.name_index.get(&id) {
                    if graph.text(files, name) == mention {
                        found.names.push(name);
                    }
                    found.restarts.extend(&graph.definers[name]);
                    found.holders.extend(&graph.definers[name]);
                }
                let others = index.others.get(&id).into_iter().flatten();
                found.holders.extend(others.map(|&f| f as usize));
            }
            found.restarts.extend(index.named(files, mention));
        }
        found.names.sort_unstable();
        found.names.dedup();
        found.holders.sort_unstable();
        found.holders.dedup();
        found
    }
}

/// Whether `mention` changes no ranking of the snapshot: no item has a name of its id, in any
/// family, and no file is named after it. Such a mention (a name defined nowhere) can be left
/// out of the question: the answer is the one without it.
pub fn inert(files: &[Arc<FileTags>], graph: &Graph, mention: &str) -> bool {
    let index = &graph.names;
    let held = |id: u64| graph.name_index.contains_key(&id) || index.others.contains_key(&id);
    !index.ids(mention).any(held) && index.named(files, mention).is_empty()
}
