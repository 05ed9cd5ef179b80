//! Rendering a ranked map into a character budget: the largest prefix of the ranked items that
//! fits (counted item by item, each in its own file's block), grouped by file in rank order,
//! each file's items nested under their parents with line numbers and `⋮` where items are left out,
//! then one note saying what was elided and how to see more.

use super::index::FileTags;
use super::rank::{Ranked, RankedItem};
use std::collections::HashMap;
use std::fmt::Write;
use std::sync::Arc;

/// Later items tried for the room the best prefix leaves.
const FILL_TRIES: usize = 64;
/// Signatures are cut to this many characters in the map.
const LINE_CAP: usize = 100;
/// The characters of a `⋮` line, one per run of items left out.
const RUN_LINE: usize = 2;

pub struct Rendered {
    pub text: String,
    pub chars: usize,
    pub files_shown: usize,
    pub items_shown: usize,
    pub elided_files: usize,
    pub elided_items: usize,
    /// The shown items.
    pub shown: Vec<RankedItem>,
}

pub fn render(files: &[Arc<FileTags>], ranked: &Ranked, budget: usize) -> Rendered {
    let total = ranked.len();
    let files_with_items = ranked.files();
    // The note's length depends on the counts; reserve room for the longest it can be.
    let reserve = note(total, files_with_items, ranked.focus_items)
        .chars()
        .count();
    let mut blocks = Blocks::new(files, budget.saturating_sub(reserve));
    // The longest prefix that fits: once an item overflows, no longer prefix fits (an item shown
    // never makes a map shorter, `Block::show`).
    let mut items = ranked.items(files);
    let mut shown = Vec::new();
    let mut overflowed = false;
    for item in items.by_ref() {
        if !blocks.add(item) {
            overflowed = true;
            break;
        }
        shown.push(item);
    }
    // Then any of the next items that still fit in what is left.
    if overflowed {
        for item in items.take(FILL_TRIES) {
            if blocks.add(item) {
                shown.push(item);
            }
        }
    }
    let (mut text, files_shown) = blocks.text();
    let focus_items = ranked.focus_items;
    let elided_items = total - shown.len();
    let elided_files = files_with_items - files_shown;
    if elided_items > 0 || focus_items > 0 {
        text.push_str(&note(elided_items, elided_files, focus_items));
    }
    Rendered {
        chars: text.chars().count(),
        text,
        files_shown,
        items_shown: shown.len(),
        elided_files,
        elided_items,
        shown,
    }
}

fn note(elided_items: usize, elided_files: usize, focus_items: usize) -> String {
    let mut text = format!("⋮ {elided_items} more items, {elided_files} more files");
    if focus_items > 0 {
        write!(text, " (and {focus_items} in focus files)").ok();
    }
    text.push_str("; see more: larger `budget`, narrower `dir`, or `outline`\n");
    text
}

/// The map being filled: the shown files' blocks, in the order of their first items shown, and
/// the characters they take. An item is counted in its own file's block: filling a map costs
/// the lines it shows, where rendering the whole map again for every item tried took
/// milliseconds at 200,000 files.
struct Blocks<'a> {
    files: &'a [Arc<FileTags>],
    room: usize,
    layouts: HashMap<usize, Layout>,
    blocks: Vec<Block>,
    /// Per shown file, its block's place in `blocks`.
    place: HashMap<usize, usize>,
    chars: usize,
}

impl<'a> Blocks<'a> {
    fn new(files: &'a [Arc<FileTags>], room: usize) -> Blocks<'a> {
        Blocks {
            files,
            room,
            layouts: HashMap::new(),
            blocks: Vec::new(),
            place: HashMap::new(),
            chars: 0,
        }
    }

    /// Shows `item` when the map with it still fits in the room: whether it did.
    fn add(&mut self, item: RankedItem) -> bool {
        let f = item.file as usize;
        let file = &self.files[f];
        let layout = self.layouts.entry(f).or_insert_with(|| Layout::of(file));
        let (k, others) = match self.place.get(&f) {
            Some(&k) => (k, self.chars - self.blocks[k].chars()),
            None => {
                self.blocks.push(Block::new(f, file, layout));
                (self.blocks.len() - 1, self.chars)
            }
        };
        let block = &mut self.blocks[k];
        let fits = block.show(item.item as usize, file, layout, self.room - others);
        if fits {
            self.chars = others + block.chars();
            self.place.insert(f, k);
        } else if !self.place.contains_key(&f) {
            self.blocks.pop();
        }
        fits
    }

    /// The map's text and how many files it shows.
    fn text(&self) -> (String, usize) {
        let mut text = String::with_capacity(self.chars);
        for block in &self.blocks {
            let file = &self.files[block.file];
            block.write(file, &self.layouts[&block.file], &mut text);
        }
        (text, self.blocks.len())
    }
}

/// One file's block: its path line, its shown items' lines in rendering order, and a `⋮` line
/// for each run of items left out between, before or after them.
struct Block {
    file: usize,
    shown: Vec<bool>,
    /// The characters of the path line and the shown items' lines.
    lines: usize,
    /// The runs of items left out.
    runs: usize,
}

impl Block {
    fn new(f: usize, file: &FileTags, layout: &Layout) -> Block {
        Block {
            file: f,
            shown: vec![false; file.tags.outline.items.len()],
            lines: file.rel.chars().count() + ":\n".len(),
            // Nothing shown yet: all the items are one run.
            runs: usize::from(!layout.order.is_empty()),
        }
    }

    fn chars(&self) -> usize {
        self.lines + RUN_LINE * self.runs
    }

    /// Shows item `i` and the parents it sits in when the block then takes at most `room`
    /// characters: whether it did (else the block is as it was). Each item shown adds a line of at
    /// least 7 characters and closes at most one run (2), so the block only grows, and counting
    /// stops as soon as it is over: an item nested a hundred thousand deep would otherwise count
    /// its every parent.
    fn show(&mut self, i: usize, file: &FileTags, layout: &Layout, room: usize) -> bool {
        let items = &file.tags.outline.items;
        let (lines, runs) = (self.lines, self.runs);
        let mut at = Some(i);
        let mut shown = Vec::new();
        while let Some(j) = at.filter(|&j| !self.shown[j]) {
            self.show_one(j, file, layout);
            shown.push(j);
            if self.chars() > room {
                for j in shown {
                    self.shown[j] = false;
                }
                (self.lines, self.runs) = (lines, runs);
                return false;
            }
            at = items[j].parent;
        }
        true
    }

    /// Item `j`'s line added and the run of left-out items it was in split or closed.
    fn show_one(&mut self, j: usize, file: &FileTags, layout: &Layout) {
        self.shown[j] = true;
        // An item not in the rendering order (its parents loop) is never written.
        let Some(&p) = layout.position.get(j).filter(|&&p| p != NOT_LAID) else {
            return;
        };
        let left_out = |q: usize| layout.order.get(q).is_some_and(|&k| !self.shown[k]);
        match (p > 0 && left_out(p - 1), left_out(p + 1)) {
            (true, true) => self.runs += 1,
            (false, false) => self.runs -= 1,
            _ => {}
        }
        let item = &file.tags.outline.items[j];
        let number = item.line.checked_ilog10().map_or(1, |d| d as usize + 1);
        let signature = item.signature.chars().take(LINE_CAP).count();
        self.lines += number.max(5) + 1 + 2 * layout.depth[j] + signature + 1;
    }

    /// Appends the block to `out`.
    fn write(&self, file: &FileTags, layout: &Layout, out: &mut String) {
        let from = out.len();
        let outline = &file.tags.outline;
        writeln!(out, "{}:", file.rel).ok();
        let mut skipped = false;
        for &i in &layout.order {
            if !self.shown[i] {
                skipped = true;
                continue;
            }
            if std::mem::take(&mut skipped) {
                out.push_str("⋮\n");
            }
            let item = &outline.items[i];
            let indent = 2 * layout.depth[i];
            let signature: String = item.signature.chars().take(LINE_CAP).collect();
            writeln!(out, "{:>5} {:indent$}{signature}", item.line, "").ok();
        }
        if skipped {
            out.push_str("⋮\n");
        }
        debug_assert_eq!(out[from..].chars().count(), self.chars(), "{}", file.rel);
    }
}

/// A file's items in rendering order with their depths and their places in that order, made
/// once per map.
struct Layout {
    order: Vec<usize>,
    depth: Vec<usize>,
    position: Vec<usize>,
}

/// The place of an item the rendering order does not hold.
const NOT_LAID: usize = usize::MAX;

impl Layout {
    fn of(file: &FileTags) -> Layout {
        let outline = &file.tags.outline;
        let order = outline.tree_order();
        let mut depth = vec![0; outline.items.len()];
        let mut position = vec![NOT_LAID; outline.items.len()];
        for (p, &i) in order.iter().enumerate() {
            position[i] = p;
            if let Some(parent) = outline.items[i].parent {
                depth[i] = depth[parent] + 1;
            }
        }
        Layout {
            order,
            depth,
            position,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::items::Item;
    use crate::map::modules::Structure;
    use crate::map::rank::{self, Steering};
    use crate::Kind;

    /// Files of nested items (up to four deep) with signatures of every length (some past
    /// `LINE_CAP`, some not ASCII) and line numbers of one to seven digits, using each other's
    /// names: maps with runs of left-out items before, between and after the shown ones.
    fn tree(n: usize, seed: u64) -> Vec<Arc<FileTags>> {
        let mut next = crate::map::seeded(seed);
        let mut files: Vec<Arc<FileTags>> = (0..n)
            .map(|f| {
                let mut items: Vec<Item> = Vec::new();
                for k in 0..2 + next(12) {
                    let parent = match (items.len(), next(3)) {
                        (0, _) | (_, 0) => None,
                        (len, _) => Some(len - 1 - next(len.min(3))),
                    };
                    let mut item = Item::bare(Kind::Function, &format!("f{f}_{k}"), parent);
                    let words = ["fn", "é", "x", "→", "(a: u8)", "-> Result<(), Error>"];
                    item.signature = (0..next(40)).map(|_| words[next(words.len())]).collect();
                    item.line = [1, 9, 10, 99_999, 100_000, 1_234_567][next(6)] + k;
                    items.push(item);
                }
                let references = (0..3)
                    .map(|_| (format!("f{}_{}", next(n), next(4)), 1 + next(3) as u32))
                    .collect();
                let rel = format!("src/d{}/é{f:03}.rs", f % 5);
                crate::map::tagged(rel, "rust", items, references)
            })
            .collect();
        files.sort_by(|a, b| a.rel.cmp(&b.rel));
        files
    }

    /// The map as its rule says, each try rendered whole: the longest prefix of the ranking whose
    /// map fits, then each of the next `FILL_TRIES` items kept when the map with it still fits.
    fn by_whole_maps(files: &[Arc<FileTags>], ranked: &Ranked, budget: usize) -> String {
        let all: Vec<RankedItem> = ranked.items(files).collect();
        let reserve = note(ranked.len(), ranked.files(), ranked.focus_items);
        let room = budget.saturating_sub(reserve.chars().count());
        let fits = |picked: &[RankedItem]| whole_map(files, picked).chars().count() <= room;
        let mut k = 0;
        while k < all.len() && fits(&all[..=k]) {
            k += 1;
        }
        let mut picked = all[..k].to_vec();
        for &item in all.iter().skip(k + 1).take(FILL_TRIES) {
            picked.push(item);
            if !fits(&picked) {
                picked.pop();
            }
        }
        let mut text = whole_map(files, &picked);
        let files_shown = {
            let mut seen: Vec<u32> = picked.iter().map(|p| p.file).collect();
            seen.sort_unstable();
            seen.dedup();
            seen.len()
        };
        let elided = (ranked.len() - picked.len(), ranked.files() - files_shown);
        if elided.0 > 0 || ranked.focus_items > 0 {
            text += &note(elided.0, elided.1, ranked.focus_items);
        }
        text
    }

    /// The picked items grouped by file (files in the order of their first item), each file's
    /// shown with their parents in tree order, `⋮` for each run of items left out.
    fn whole_map(files: &[Arc<FileTags>], picked: &[RankedItem]) -> String {
        let mut order: Vec<usize> = Vec::new();
        let mut shown: HashMap<usize, Vec<bool>> = HashMap::new();
        for p in picked {
            let (f, items) = (p.file as usize, &files[p.file as usize].tags.outline.items);
            let flags = shown.entry(f).or_insert_with(|| {
                order.push(f);
                vec![false; items.len()]
            });
            let mut at = Some(p.item as usize);
            while let Some(i) = at {
                flags[i] = true;
                at = items[i].parent;
            }
        }
        let mut text = String::new();
        for f in order {
            let outline = &files[f].tags.outline;
            text += &format!("{}:\n", files[f].rel);
            let mut left_out = false;
            for i in outline.tree_order() {
                if !shown[&f][i] {
                    left_out = true;
                    continue;
                }
                if std::mem::take(&mut left_out) {
                    text += "⋮\n";
                }
                let mut depth = 0;
                let mut at = outline.items[i].parent;
                while let Some(p) = at {
                    depth += 1;
                    at = outline.items[p].parent;
                }
                let signature: String = outline.items[i].signature.chars().take(100).collect();
                let number = format!("{:>5}", outline.items[i].line);
                text += &format!("{number} {}{signature}\n", "  ".repeat(depth));
            }
            if left_out {
                text += "⋮\n";
            }
        }
        text
    }

    #[test]
    fn the_map_is_the_longest_ranked_prefix_that_fits_then_the_next_items_that_still_fit() {
        for seed in [1, 2] {
            let files = tree(40, seed);
            let graph = rank::graph(&files);
            let structure = Structure::of(&files);
            for focus in [vec![], vec![3], vec![0, 17]] {
                let steering = Steering {
                    focus,
                    mentions: vec![],
                    include_tests: false,
                    co_changed: vec![],
                };
                let ranked = rank::rank(&files, &steering, &structure, &graph);
                for budget in (0..3_000).step_by(71).chain([20_000, 1_000_000]) {
                    let map = render(&files, &ranked, budget);
                    let expected = by_whole_maps(&files, &ranked, budget);
                    assert_eq!(map.text, expected, "seed {seed} budget {budget}");
                    assert_eq!(map.chars, map.text.chars().count());
                }
            }
        }
    }
}
