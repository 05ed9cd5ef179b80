//! Rendering a ranked map into a character budget: the largest prefix of the ranked items that
//! fits (binary search; each trial stops as soon as it overflows), grouped by file in rank order,
//! each file's items nested under their parents with line numbers and `⋮` where items are left out,
//! then one note saying what was elided and how to see more.

use super::index::FileTags;
use super::rank::{Ranked, RankedItem};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Arc;

/// Later items tried for the room the best prefix leaves.
const FILL_TRIES: usize = 64;
/// Signatures are cut to this many characters in the map.
const LINE_CAP: usize = 100;
/// The shortest line an item can take: its right-aligned line number, a space and a newline.
const MIN_LINE: usize = 7;

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

/// Layouts of the files rendered so far.
#[derive(Default)]
struct Layouts(std::cell::RefCell<BTreeMap<usize, std::rc::Rc<Layout>>>);

impl Layouts {
    fn get(&self, index: usize, file: &FileTags) -> std::rc::Rc<Layout> {
        self.0
            .borrow_mut()
            .entry(index)
            .or_insert_with(|| std::rc::Rc::new(Layout::of(file)))
            .clone()
    }
}

pub fn render(files: &[Arc<FileTags>], ranked: &Ranked, budget: usize) -> Rendered {
    let layouts = Layouts::default();
    let total = ranked.len();
    let files_with_items = ranked.files();
    // The note's length depends on the counts; reserve room for the longest it can be.
    let reserve = note(total, files_with_items, ranked.focus_items)
        .chars()
        .count();
    let room = budget.saturating_sub(reserve);
    let focus_items = ranked.focus_items;
    let prefix = |k: usize| (0..k).collect::<Vec<_>>();
    // Every shown item takes a line of at least MIN_LINE characters, so no longer prefix fits.
    let (mut lo, mut hi) = (0, total.min(room / MIN_LINE));
    // No item past these is tried: the rest of the ranking is never listed.
    let ranked: Vec<RankedItem> = ranked.items(files).take(hi + 1 + FILL_TRIES).collect();
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if body(files, &layouts, &ranked, &prefix(mid), room).is_some() {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    // The best prefix that fits, then any later items that still fit in what is left.
    let mut picked = prefix(lo);
    let mut best = body(files, &layouts, &ranked, &picked, room).unwrap_or_default();
    for next in (lo + 1..total).take(FILL_TRIES) {
        picked.push(next);
        match body(files, &layouts, &ranked, &picked, room) {
            Some(fits) => best = fits,
            None => {
                picked.pop();
            }
        }
    }
    let (mut text, files_shown) = best;
    let lo = picked.len();
    let elided_items = total - lo;
    let elided_files = files_with_items - files_shown;
    if elided_items > 0 || focus_items > 0 {
        text.push_str(&note(elided_items, elided_files, focus_items));
    }
    Rendered {
        chars: text.chars().count(),
        text,
        files_shown,
        items_shown: lo,
        elided_files,
        elided_items,
        shown: picked.iter().map(|&p| ranked[p]).collect(),
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

/// The picked ranked items (indices into `ranked`, the ranking's first items), grouped by file:
/// `None` when that exceeds `room` characters.
fn body(
    files: &[Arc<FileTags>],
    layouts: &Layouts,
    ranked: &[RankedItem],
    picked: &[usize],
    room: usize,
) -> Option<(String, usize)> {
    let mut chosen: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    let mut file_order = Vec::new();
    for r in picked.iter().map(|&p| &ranked[p]) {
        let list = chosen.entry(r.file as usize).or_default();
        if list.is_empty() {
            file_order.push(r.file as usize);
        }
        list.push(r.item as usize);
    }
    let mut text = String::new();
    let mut chars = 0;
    for &f in &file_order {
        let layout = layouts.get(f, &files[f]);
        chars += render_file(&files[f], &layout, &chosen[&f], &mut text, room - chars)?;
    }
    Some((text, file_order.len()))
}

/// A file's items in rendering order with their depths, computed once per map.
struct Layout {
    order: Vec<usize>,
    depth: Vec<usize>,
}

impl Layout {
    fn of(file: &FileTags) -> Layout {
        let outline = &file.tags.outline;
        let order = outline.tree_order();
        let mut depth = vec![0; outline.items.len()];
        for &i in &order {
            if let Some(p) = outline.items[i].parent {
                depth[i] = depth[p] + 1;
            }
        }
        Layout { order, depth }
    }
}

/// Appends the file's chosen items to `out` with the parents they sit in, and answers how many
/// characters that took, or `None` as soon as it takes more than `room`: an item nested a
/// hundred thousand deep would otherwise write its every parent, each indented deeper, before
/// the budget was checked.
fn render_file(
    file: &FileTags,
    layout: &Layout,
    chosen: &[usize],
    out: &mut String,
    room: usize,
) -> Option<usize> {
    let outline = &file.tags.outline;
    let mut shown = vec![false; outline.items.len()];
    for &i in chosen {
        let mut at = Some(i);
        while let Some(j) = at {
            if shown[j] {
                break;
            }
            shown[j] = true;
            at = outline.items[j].parent;
        }
    }
    let mut chars = 0;
    let mut push = |out: &mut String, line: std::fmt::Arguments| {
        let from = out.len();
        out.write_fmt(line).ok();
        chars += out[from..].chars().count();
        (chars <= room).then_some(())
    };
    push(out, format_args!("{}:\n", file.rel))?;
    let mut skipped = false;
    for &i in &layout.order {
        if !shown[i] {
            skipped = true;
            continue;
        }
        if std::mem::take(&mut skipped) {
            push(out, format_args!("⋮\n"))?;
        }
        let item = &outline.items[i];
        let indent = layout.depth[i].min(room);
        let signature: String = item.signature.chars().take(LINE_CAP).collect();
        push(
            out,
            format_args!(
                "{:>5} {:indent$}{}\n",
                item.line,
                "",
                signature,
                indent = 2 * indent
            ),
        )?;
    }
    if skipped {
        push(out, format_args!("⋮\n"))?;
    }
    Some(chars)
}
