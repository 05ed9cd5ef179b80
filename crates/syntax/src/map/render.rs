//! Rendering a ranked map into a character budget: the largest prefix of the ranked items that
//! fits (counted item by item, each in its own file's block), grouped by file in rank order,
//! each file's items nested under their parents with line numbers and `⋮` where items are left out;
//! when those cannot show every file, the items take a share of the budget and the next
//! files are named without them (`named`), as are the files with no item; then one note saying
//! what was elided and how to see more.

use super::index::FileTags;
use super::named::Named;
use super::rank::{Ranked, RankedItem};
use foldhash::HashMap;
use std::collections::hash_map::Entry;
use std::fmt::Write;
use std::sync::Arc;

/// Later items (or files to name, `named`) tried for the room the best prefix leaves (few in the
/// tests, so that they run out).
pub(super) const FILL_TRIES: usize = if cfg!(test) { 4 } else { 64 };
/// Signatures are cut to this many characters in the map.
const LINE_CAP: usize = 100;
/// The characters of a `⋮` line, one per run of items left out.
const RUN_LINE: usize = 2;
/// The shares of the room the items may take, in sixths, largest first: the map takes the one
/// listing the most files (shown, or named after them: `named`), the larger share among equals
/// and one showing items before one showing none (`best_split`). A small tree's items show all
/// its files, as before; on rust-analyzer the items take a third of a 4,000-character map, and
/// it lists a median of 124 files where the items alone listed about 45.
const ITEM_SIXTHS: [usize; 5] = [6, 5, 4, 3, 2];

pub struct Rendered {
    pub text: String,
    pub chars: usize,
    pub files_shown: usize,
    pub items_shown: usize,
    pub elided_files: usize,
    pub elided_items: usize,
    /// The shown items.
    pub shown: Vec<RankedItem>,
    /// The files named without their items, in the order they were named (`named`).
    pub named: Vec<usize>,
}

pub fn render(files: &[Arc<FileTags>], ranked: &Ranked, budget: usize) -> Rendered {
    let total = ranked.len();
    let listable = ranked.listable_files();
    // The note's length depends on the counts; reserve room for the longest it can be.
    let reserve = note(total, listable, ranked.focus_items).chars().count();
    let room = budget.saturating_sub(reserve);
    let (prefix, blocks) = Prefix::of(files, ranked, room);
    let Split { shown, named, .. } = best_split(files, ranked, room, &prefix, blocks);
    let (blocks, shown) = match shown {
        Shown::Whole(blocks, shown) => (blocks, shown),
        Shown::Cut(cut) => (
            prefix.blocks(files, room, cut),
            prefix.items[..cut].to_vec(),
        ),
    };
    let (mut text, files_shown) = blocks.text();
    named.write(&mut text);
    let focus_items = ranked.focus_items;
    let elided_items = total - shown.len();
    let elided_files = listable - files_shown - named.count();
    if elided_items > 0 || elided_files > 0 || focus_items > 0 {
        text.push_str(&note(elided_items, elided_files, focus_items));
    }
    Rendered {
        chars: text.chars().count(),
        text,
        files_shown,
        named: named.files().to_vec(),
        items_shown: shown.len(),
        elided_files,
        elided_items,
        shown,
    }
}

/// The longest ranked prefix that fits in the whole room, with the map's length after each of its
/// items. A smaller room shows the cut of it that fits (an item shown never makes a map shorter,
/// `Block::show`), so each share is weighed without rendering its items again: at a budget of
/// 1,000,000 characters that took 50 ms a share.
struct Prefix {
    items: Vec<RankedItem>,
    /// The map's characters after each item.
    chars: Vec<usize>,
    /// Per file shown, the place of its first item; and those places in order.
    first: HashMap<u32, usize>,
    firsts: Vec<usize>,
}

impl Prefix {
    /// The prefix, and the blocks showing it.
    fn of<'a>(files: &'a [Arc<FileTags>], ranked: &Ranked, room: usize) -> (Prefix, Blocks<'a>) {
        let mut blocks = Blocks::new(files, room);
        let mut prefix = Prefix {
            items: Vec::new(),
            chars: Vec::new(),
            first: HashMap::default(),
            firsts: Vec::new(),
        };
        for item in ranked.items(files) {
            if !blocks.add(item) {
                break;
            }
            let at = prefix.items.len();
            if let Entry::Vacant(first) = prefix.first.entry(item.file) {
                first.insert(at);
                prefix.firsts.push(at);
            }
            prefix.items.push(item);
            prefix.chars.push(blocks.chars);
        }
        (prefix, blocks)
    }

    /// How many of its items fit in `room`.
    fn cut(&self, room: usize) -> usize {
        self.chars.partition_point(|&c| c <= room)
    }

    fn chars_at(&self, cut: usize) -> usize {
        cut.checked_sub(1).map_or(0, |last| self.chars[last])
    }

    /// How many files the first `cut` items are in.
    fn files_at(&self, cut: usize) -> usize {
        self.firsts.partition_point(|&p| p < cut)
    }

    fn shows(&self, f: usize, cut: usize) -> bool {
        self.first.get(&(f as u32)).is_some_and(|&p| p < cut)
    }

    /// The blocks of the first `cut` items (each fits: the whole prefix did).
    fn blocks<'a>(&self, files: &'a [Arc<FileTags>], room: usize, cut: usize) -> Blocks<'a> {
        let mut blocks = Blocks::new(files, room);
        for &item in &self.items[..cut] {
            let fits = blocks.add(item);
            debug_assert!(fits);
        }
        blocks
    }
}

/// The items one way of spending the room shows: the whole room's (its prefix, then the next
/// items that still fit), or a cut of the prefix.
enum Shown<'a> {
    Whole(Blocks<'a>, Vec<RankedItem>),
    Cut(usize),
}

/// One way to spend the room: the items shown, in how many files, and the files named after them.
struct Split<'a> {
    shown: Shown<'a>,
    files_shown: usize,
    named: Named<'a>,
}

/// The whole room's items (the prefix's `blocks`, then any of the next `FILL_TRIES` items that
/// still fit), the rest naming the files they leave out.
fn whole_split<'a>(
    files: &'a [Arc<FileTags>],
    ranked: &Ranked,
    room: usize,
    prefix: &Prefix,
    mut blocks: Blocks<'a>,
) -> Split<'a> {
    let mut shown = prefix.items.clone();
    let next = ranked.items(files).skip(shown.len() + 1);
    if shown.len() < ranked.len() {
        for item in next.take(FILL_TRIES) {
            if blocks.add(item) {
                shown.push(item);
            }
        }
    }
    let files_shown = blocks.blocks.len();
    let named = Named::fill(
        files,
        ranked,
        |f| blocks.shows(f),
        ranked.files() - files_shown,
        room - blocks.chars,
    );
    Split {
        shown: Shown::Whole(blocks, shown),
        files_shown,
        named,
    }
}

/// The prefix's items that fit in `items_room`, the rest of `room` naming the files they leave
/// out.
fn cut_split<'a>(
    files: &'a [Arc<FileTags>],
    ranked: &Ranked,
    room: usize,
    prefix: &Prefix,
    items_room: usize,
) -> Split<'a> {
    let cut = prefix.cut(items_room);
    let files_shown = prefix.files_at(cut);
    let named = Named::fill(
        files,
        ranked,
        |f| prefix.shows(f, cut),
        ranked.files() - files_shown,
        room - prefix.chars_at(cut),
    );
    Split {
        shown: Shown::Cut(cut),
        files_shown,
        named,
    }
}

/// A way of spending the room, as `best_of` weighs it.
trait Weighed {
    /// Whether the names list every file the items leave out.
    fn complete(&self) -> bool;
    /// How good it is: showing items at all, then the files it lists.
    fn listed(&self) -> (bool, usize);
}

impl Weighed for Split<'_> {
    fn complete(&self) -> bool {
        self.named.complete()
    }

    fn listed(&self) -> (bool, usize) {
        (self.files_shown > 0, self.files_shown + self.named.count())
    }
}

/// The split of `room` that lists the most files (`ITEM_SIXTHS`).
fn best_split<'a>(
    files: &'a [Arc<FileTags>],
    ranked: &Ranked,
    room: usize,
    prefix: &Prefix,
    blocks: Blocks<'a>,
) -> Split<'a> {
    let mut blocks = Some(blocks);
    best_of(room, |items_room, whole| match (whole, blocks.take()) {
        (true, Some(blocks)) => whole_split(files, ranked, room, prefix, blocks),
        _ => cut_split(files, ranked, room, prefix, items_room),
    })
}

/// Of the splits `split(items_room, whole)` gives (`whole`: the items take the whole room, then
/// the next items that still fit), the one listing the most files, trying the shares of
/// `ITEM_SIXTHS` in turn. A share whose names list every file left out lists the most; the items
/// then take as much more room as still lets them (found by halving up to the next larger
/// share), so that a small tree's map shows what it can.
fn best_of<S: Weighed>(room: usize, mut split: impl FnMut(usize, bool) -> S) -> S {
    let mut best: Option<S> = None;
    for sixths in ITEM_SIXTHS {
        let mut tried = split(room * sixths / 6, sixths == 6);
        let complete = tried.complete();
        if complete && sixths < 6 {
            let (mut lo, mut hi) = (room * sixths / 6, room * (sixths + 1) / 6);
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                let wider = split(mid, false);
                match wider.complete() {
                    true => (lo, tried) = (mid, wider),
                    false => hi = mid,
                }
            }
        }
        if best.as_ref().is_none_or(|b| tried.listed() > b.listed()) {
            best = Some(tried);
        }
        // No smaller share lists more: every file is listed.
        if complete {
            break;
        }
    }
    best.expect("ITEM_SIXTHS is not empty")
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
            layouts: HashMap::default(),
            blocks: Vec::new(),
            place: HashMap::default(),
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

    fn shows(&self, f: usize) -> bool {
        self.place.contains_key(&f)
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
    /// names: maps with runs of left-out items before, between and after the shown ones, and
    /// files named after them; one file in eleven has no item but uses names (a module of
    /// re-exports), named after the ranked files or, tied to a focus file, before them.
    fn tree(n: usize, seed: u64) -> Vec<Arc<FileTags>> {
        let mut next = crate::map::seeded(seed);
        let mut files: Vec<Arc<FileTags>> = (0..n)
            .map(|f| {
                let mut items: Vec<Item> = Vec::new();
                let n_items = if f % 11 == 10 { 0 } else { 2 + next(12) };
                for k in 0..n_items {
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
                let uses = if items.is_empty() { 12 } else { 3 };
                let references = (0..uses)
                    .map(|_| (format!("f{}_{}", next(n), next(4)), 1 + next(3) as u32))
                    .collect();
                // Root files and names that cannot share a folder's braces too (`named`).
                let rel = match f % 9 {
                    7 => format!("r{f:03}.rs"),
                    8 => format!("src/d{}/a, {{b}}{f:03}.rs", f % 5),
                    _ => format!("src/d{}/é{f:03}.rs", f % 5),
                };
                crate::map::tagged(rel, "rust", items, references)
            })
            .collect();
        files.sort_by(|a, b| a.rel.cmp(&b.rel));
        files
    }

    /// The map as its rule says, each try rendered whole (`whole_split`), the shares weighed by
    /// the map's own search (`best_of`): what this checks is the render's counting, item by
    /// item and name by name, against whole texts.
    fn by_whole_maps(files: &[Arc<FileTags>], ranked: &Ranked, budget: usize) -> String {
        let reserve = note(ranked.len(), ranked.listable_files(), ranked.focus_items);
        let room = budget.saturating_sub(reserve.chars().count());
        // The same search over the shares as the map's; each split here is rendered whole.
        let best = best_of(room, |items_room, whole| {
            whole_split(files, ranked, room, items_room, whole)
        });
        let WholeSplit {
            picked,
            named,
            mut text,
            ..
        } = best;
        let elided = (
            ranked.len() - picked.len(),
            ranked.listable_files() - files_of(&picked) - named.len(),
        );
        if elided.0 > 0 || elided.1 > 0 || ranked.focus_items > 0 {
            text += &note(elided.0, elided.1, ranked.focus_items);
        }
        text
    }

    struct WholeSplit {
        picked: Vec<RankedItem>,
        named: Vec<usize>,
        text: String,
        complete: bool,
    }

    impl Weighed for WholeSplit {
        fn complete(&self) -> bool {
            self.complete
        }

        fn listed(&self) -> (bool, usize) {
            (
                !self.picked.is_empty(),
                files_of(&self.picked) + self.named.len(),
            )
        }
    }

    /// The longest prefix of the ranking whose items fit in `items_room`, then (with `fill`)
    /// each of the next `FILL_TRIES` items kept when they still fit; then the files left out
    /// named, the longest prefix whose lines fit in the rest of `room`, then each of the next
    /// `FILL_TRIES` kept when it still fits.
    fn whole_split(
        files: &[Arc<FileTags>],
        ranked: &Ranked,
        room: usize,
        items_room: usize,
        fill: bool,
    ) -> WholeSplit {
        let all: Vec<RankedItem> = ranked.items(files).collect();
        let fits = |picked: &[RankedItem]| whole_map(files, picked).chars().count() <= items_room;
        let mut k = 0;
        while k < all.len() && fits(&all[..=k]) {
            k += 1;
        }
        let mut picked = all[..k].to_vec();
        let fill = if fill { FILL_TRIES } else { 0 };
        for &item in all.iter().skip(k + 1).take(fill) {
            picked.push(item);
            if !fits(&picked) {
                picked.pop();
            }
        }
        let items = whole_map(files, &picked);
        let names_room = room - items.chars().count();
        // The files with no item tied to the focus files at their places (`named::in_order`).
        let (tied, rest) = ranked.itemless();
        let mut tied = tied.iter().peekable();
        let mut left_out: Vec<usize> = Vec::new();
        for (read, item) in all.iter().enumerate() {
            while let Some(&(_, f)) = tied.next_if(|&&(place, _)| place <= read) {
                left_out.push(f as usize);
            }
            let f = item.file as usize;
            if !picked.iter().any(|p| p.file as usize == f) && !left_out.contains(&f) {
                left_out.push(f);
            }
        }
        left_out.extend(tied.map(|&(_, f)| f as usize));
        let fits = |named: &[usize]| whole_names(files, named).chars().count() <= names_room;
        // The longest prefix of `next` whose names fit after `named`, then each of the next
        // `FILL_TRIES` kept when it still fits: whether every one was named.
        let name = |named: &mut Vec<usize>, next: &[usize]| {
            let mut k = 0;
            while k < next.len() && fits(&[&named[..], &next[..=k]].concat()) {
                k += 1;
            }
            named.extend(&next[..k]);
            for &f in next.iter().skip(k + 1).take(FILL_TRIES) {
                named.push(f);
                if !fits(named) {
                    named.pop();
                }
            }
            k == next.len()
        };
        let mut named = Vec::new();
        let mut complete = name(&mut named, &left_out);
        // The files with no item tied to nothing once every other file is named.
        if complete {
            let untied: Vec<usize> = rest.iter().map(|&f| f as usize).collect();
            complete = name(&mut named, &untied);
        }
        WholeSplit {
            text: items + &whole_names(files, &named),
            complete,
            picked,
            named,
        }
    }

    fn files_of(picked: &[RankedItem]) -> usize {
        let mut seen: Vec<u32> = picked.iter().map(|p| p.file).collect();
        seen.sort_unstable();
        seen.dedup();
        seen.len()
    }

    /// The heading, then the named files by folder in the order of each folder's first file:
    /// `folder/{a,b}`, or `folder/a` alone (a root file, or a name that cannot share braces).
    fn whole_names(files: &[Arc<FileTags>], named: &[usize]) -> String {
        let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
        for &f in named {
            let (folder, name) = crate::map::named::split(&files[f].rel);
            let shares = crate::map::named::shares(folder, name);
            match groups
                .iter_mut()
                .find(|(g, names)| *g == folder && shares && crate::map::named::shares(g, names[0]))
            {
                Some((_, names)) => names.push(name),
                None => groups.push((folder, vec![name])),
            }
        }
        let mut text = String::new();
        if !groups.is_empty() {
            text += crate::map::named::HEADING;
        }
        for (folder, names) in groups {
            let prefix = if folder.is_empty() {
                String::new()
            } else {
                format!("{folder}/")
            };
            match names.len() {
                1 => text += &format!("{prefix}{}\n", names[0]),
                _ => text += &format!("{prefix}{{{}}}\n", names.join(",")),
            }
        }
        text
    }

    /// The picked items grouped by file (files in the order of their first item), each file's
    /// shown with their parents in tree order, `⋮` for each run of items left out.
    fn whole_map(files: &[Arc<FileTags>], picked: &[RankedItem]) -> String {
        let mut order: Vec<usize> = Vec::new();
        let mut shown: HashMap<usize, Vec<bool>> = HashMap::default();
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
    fn the_map_is_the_ranked_prefix_that_fits_its_share_then_the_next_files_named() {
        // The maps that named files in a folder's braces, at the root, and alone in a folder;
        // a file with no item tied to the focus, one not, and a tied one named after a file with
        // items (at its place in the ranking).
        let mut named = [false; 3];
        let mut itemless = [false; 3];
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
                    let names = map.text.split(crate::map::named::HEADING).nth(1);
                    let lines = names.into_iter().flat_map(str::lines);
                    let (tied, rest) = ranked.itemless();
                    let is_named = |f: &u32| map.named.contains(&(*f as usize));
                    itemless[0] |= tied.iter().any(|(_, f)| is_named(f));
                    itemless[1] |= rest.iter().any(is_named);
                    let with_items = |f: &usize| !files[*f].tags.outline.items.is_empty();
                    let mut after = map.named.iter().skip_while(|f| !with_items(f));
                    itemless[2] |= after.any(|&f| tied.iter().any(|t| t.1 as usize == f));
                    let shows = map.items_shown + map.named.len() > 0;
                    assert!(map.chars <= budget || !shows, "seed {seed} budget {budget}");
                    for line in lines.filter(|l| !l.starts_with('⋮')) {
                        let braces = line.matches('{').count();
                        if line.starts_with('r') {
                            assert_eq!(braces, 0, "a root file alone: {line}");
                            named[1] = true;
                        } else if line.contains("a, {b}") {
                            assert_eq!(braces, 1, "a name with braces alone: {line}");
                            named[2] = true;
                        } else {
                            named[0] |= line.contains("/{");
                        }
                    }
                }
            }
        }
        assert_eq!(named, [true; 3], "braces, root, alone");
        assert_eq!(
            itemless, [true; 3],
            "no item: tied, not tied, tied after others"
        );
    }
}
