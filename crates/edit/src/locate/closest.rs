//! The closest candidate when nothing matches: a cheap similarity to pick windows, then a finer
//! one, and the visible difference shown in the error.

use super::lines::{text_lines, Text};
use super::loose::typo_fold;
use serde_json::{json, Value};
use similar::{capture_diff_slices_deadline, Algorithm};
use std::time::{Duration, Instant};

/// Bigram signature of a trimmed line (256 buckets).
fn signature(s: &[u8]) -> [u64; 4] {
    let s = s.trim_ascii();
    let mut sig = [0u64; 4];
    let mut set = |h: u32| sig[(h >> 6) as usize & 3] |= 1u64 << (h & 63);
    if s.len() < 2 {
        if let Some(&b) = s.first() {
            set(b as u32);
        }
        return sig;
    }
    for w in s.windows(2) {
        let h = ((w[0] as u32) << 8 | w[1] as u32).wrapping_mul(2654435761) >> 24;
        set(h);
    }
    sig
}

fn cheap_sim(a: &[u64; 4], b: &[u64; 4]) -> f32 {
    let (mut inter, mut union) = (0, 0);
    for k in 0..4 {
        inter += (a[k] & b[k]).count_ones();
        union += (a[k] | b[k]).count_ones();
    }
    if union == 0 {
        return 1.0;
    }
    inter as f32 / union as f32
}

/// Dice coefficient of the byte-bigram multisets of two texts: deterministic and linear.
fn dice(a: &[u8], b: &[u8]) -> f32 {
    let grams = |s: &[u8]| {
        let mut v: Vec<u16> = s
            .windows(2)
            .map(|w| (w[0] as u16) << 8 | w[1] as u16)
            .collect();
        v.sort_unstable();
        v
    };
    let (ga, gb) = (grams(a), grams(b));
    if ga.is_empty() && gb.is_empty() {
        return if a == b { 1.0 } else { 0.0 };
    }
    let (mut i, mut j, mut common) = (0, 0, 0);
    while i < ga.len() && j < gb.len() {
        match ga[i].cmp(&gb[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    2.0 * common as f32 / (ga.len() + gb.len()) as f32
}

/// Similarity (0..1) of two texts, by characters, bounded in time.
fn ratio(a: &str, b: &str) -> f32 {
    let ac: Vec<char> = a.chars().collect();
    let bc: Vec<char> = b.chars().collect();
    if ac.is_empty() && bc.is_empty() {
        return 1.0;
    }
    let deadline = Instant::now() + Duration::from_millis(5);
    let ops = capture_diff_slices_deadline(Algorithm::Myers, &ac, &bc, Some(deadline));
    similar::diff_ratio(&ops, ac.len(), bc.len())
}

/// The file window most similar to `search` (as lines), as the `data.closest` object:
/// `{start_line, end_line, similarity, diff}`.
pub(crate) fn closest(text: &Text, search: &[u8]) -> Option<Value> {
    let found = closest_window(text, search)?;
    let slines = text_lines(search);
    let diff = visible_diff(text, found.first, found.len, &slines);
    Some(json!({
        "start_line": found.first + 1,
        "end_line": found.first + found.len,
        "similarity": (found.similarity * 1000.0).round() / 1000.0,
        "diff": diff,
    }))
}

/// The lines of the original most like a text that is not in it.
pub(crate) struct Window {
    /// 0-based first line.
    pub first: usize,
    pub len: usize,
    /// Character-level similarity, 0 to 1.
    pub similarity: f32,
}

pub(crate) fn closest_window(text: &Text, search: &[u8]) -> Option<Window> {
    let slines = text_lines(search);
    let n = text.lines().len();
    let m = slines.len();
    if n == 0 || m == 0 {
        return None;
    }
    let w = m.min(n);
    let fsig: Vec<[u64; 4]> = (0..n).map(|i| signature(text.content(i))).collect();
    let ssig: Vec<[u64; 4]> = slines.iter().map(|(c, _)| signature(c)).collect();
    // Cheap score of every window, then a finer (bigram multiset) score of the best few; the
    // character-level ratio of the winner is what is reported.
    let mut scored: Vec<(f32, usize)> = (0..=n - w)
        .map(|i| {
            let s: f32 = (0..w).map(|j| cheap_sim(&fsig[i + j], &ssig[j])).sum();
            (s, i)
        })
        .collect();
    let keep = 16.min(scored.len());
    scored.select_nth_unstable_by(keep - 1, |a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.truncate(keep);
    let norm = |b: &[u8]| -> Vec<u8> {
        b.split(|&c| c == b'\n')
            .flat_map(|l| l.trim_ascii().iter().copied().chain([b'\n']))
            .collect()
    };
    let sflat = norm(search);
    let window = |i: usize| &text.bytes[text.lines()[i].start..text.lines()[i + w - 1].content_end];
    let mut best: Option<(f32, usize)> = None;
    for &(_, i) in &scored {
        let d = dice(&norm(window(i)), &sflat);
        if best.is_none_or(|(bd, bi)| d > bd || (d == bd && i < bi)) {
            best = Some((d, i));
        }
    }
    let (_, i) = best?;
    let stext = String::from_utf8_lossy(search).replace("\r\n", "\n");
    let similarity = ratio(
        &String::from_utf8_lossy(window(i)).replace("\r\n", "\n"),
        stext.trim_end_matches('\n'),
    );
    Some(Window {
        first: i,
        len: w,
        similarity,
    })
}

/// How alike the search text and the lines standing where it would have matched must be before
/// a replacement found there counts as that edit, already applied.
const SAME_PLACE_SIMILARITY: f32 = 0.5;

/// Whether the replacement, found once at `found` (1-based inclusive lines) while the search text
/// is absent, stands where the search would have matched. Finding the replacement somewhere
/// proves nothing by itself (the same text may stand elsewhere in the file): the place must be
/// the search's. It is when the edit keeps a line of context with a word in it (the replacement, found
/// whole, carries that context with it), or else when the lines most like the search text are
/// the ones the replacement stands on.
pub(crate) fn stands_in_place(
    text: &Text,
    search: &[u8],
    keeps_context: bool,
    found: (usize, usize),
) -> bool {
    if keeps_context {
        return true;
    }
    closest_window(text, search).is_some_and(|w| {
        let (first, last) = (w.first + 1, w.first + w.len);
        w.similarity >= SAME_PLACE_SIMILARITY && first <= found.1 && found.0 <= last
    })
}

/// Whether a context line can anchor a place: it has a word in it (a lone `}` stands everywhere).
pub(crate) fn is_anchor(line: &[u8]) -> bool {
    line.iter().any(|&b| b.is_ascii_alphanumeric() || b >= 0x80)
}

/// Whether the search and its replacement begin or end with the same anchoring line.
pub(super) fn keeps_context(search: &[u8], replace: &[u8]) -> bool {
    let lines = |t: &[u8]| -> Vec<Vec<u8>> {
        text_lines(t)
            .into_iter()
            .map(|(c, _)| typo_fold(c.trim_ascii()).into_owned())
            .collect()
    };
    let (s, r) = (lines(search), lines(replace));
    let same = |a: Option<&Vec<u8>>, b: Option<&Vec<u8>>| matches!((a, b), (Some(a), Some(b)) if a == b && is_anchor(a));
    // Only whole lines count: a one-line edit has no line of context.
    (s.len() > 1 || r.len() > 1) && (same(s.first(), r.first()) || same(s.last(), r.last()))
}

/// Renders a line with visible whitespace: tab →, trailing spaces ·, CR ␍, NBSP ⍽.
pub(crate) fn visible(content: &[u8], eol: &[u8]) -> String {
    let s = String::from_utf8_lossy(content);
    let trimmed = s.trim_end_matches(' ');
    let mut out = String::with_capacity(s.len() + 4);
    for c in trimmed.chars() {
        match c {
            '\t' => out.push('→'),
            '\r' => out.push('␍'),
            '\u{a0}' => out.push('⍽'),
            c => out.push(c),
        }
    }
    for _ in 0..s.len() - trimmed.len() {
        out.push('·');
    }
    if eol == b"\r\n" {
        out.push('␍');
    }
    out
}

fn visible_diff(text: &Text, first: usize, w: usize, search: &[(&[u8], &[u8])]) -> String {
    let old: Vec<String> = (first..first + w)
        .map(|i| visible(text.content(i), b""))
        .collect();
    let new: Vec<String> = search.iter().map(|(c, _)| visible(c, b"")).collect();
    let old_full: Vec<String> = (first..first + w)
        .map(|i| visible(text.content(i), text.eol(i)))
        .collect();
    let new_full: Vec<String> = search.iter().map(|(c, e)| visible(c, e)).collect();
    let deadline = Instant::now() + Duration::from_millis(5);
    let ops = capture_diff_slices_deadline(Algorithm::Myers, &old, &new, Some(deadline));
    let mut out = String::new();
    for op in &ops {
        for (tag, oi, ni) in op
            .iter_changes(&old, &new)
            .map(|c| (c.tag(), c.old_index(), c.new_index()))
        {
            let (prefix, line) = match tag {
                similar::ChangeTag::Equal => (' ', &old_full[oi.unwrap_or(0)]),
                similar::ChangeTag::Delete => ('-', &old_full[oi.unwrap_or(0)]),
                similar::ChangeTag::Insert => ('+', &new_full[ni.unwrap_or(0)]),
            };
            out.push(prefix);
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}
