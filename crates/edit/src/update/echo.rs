//! The bounded echoes of what each op wrote, read from the final bytes.

use super::rewrite::Region;
use super::{
    count_newlines, Echo, EchoKind, EchoLine, CONTEXT, ECHO_BUDGET_BYTES, ECHO_HEAD_TAIL,
    ECHO_LINE_MAX, ECHO_MAX_LINES, ECHO_OVERHEAD,
};

fn echo_line(number: usize, line: &[u8]) -> EchoLine {
    let clipped = line.len() > ECHO_LINE_MAX;
    let shown = &line[..line.len().min(ECHO_LINE_MAX + 3)];
    let mut text = String::from_utf8_lossy(shown).into_owned();
    if clipped {
        let mut cut = ECHO_LINE_MAX.min(text.len());
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
    EchoLine {
        line: number,
        text,
        clipped,
    }
}

/// The line numbers an echo of `region` shows, and how many of its window's lines it leaves out,
/// in a body of `n` lines.
fn shown_lines(region: &Region, n: usize) -> (Vec<usize>, Option<usize>) {
    let span = |from: usize, to: usize| (from..=to).filter(move |k| (1..=n).contains(k));
    let end_line = region.start + region.len - 1;
    if region.kind == EchoKind::Replace {
        let first = region.start.clamp(1, n.max(1));
        let last = end_line.clamp(first, n.max(1));
        if last - first < 2 {
            (span(first, last).collect(), None)
        } else {
            let both = span(first, first).chain(span(last, last)).collect();
            (both, Some(last - first - 1))
        }
    } else {
        let from = region.start.saturating_sub(CONTEXT).max(1);
        let to = (region.start + region.len + CONTEXT - 1).min(n);
        let window = (to + 1).saturating_sub(from);
        if window <= ECHO_MAX_LINES {
            (span(from, to).collect(), None)
        } else {
            let ends = span(from, from + ECHO_HEAD_TAIL - 1)
                .chain(span(to + 1 - ECHO_HEAD_TAIL, to))
                .collect();
            (ends, Some(window - 2 * ECHO_HEAD_TAIL))
        }
    }
}

/// The text (EOL left out) of lines `wanted` of `body`: 1-based, ascending, no duplicates, each
/// within the body. One pass over the body up to the last of them, instead of indexing every line
/// of the file for the few dozen an answer shows.
pub(super) fn lines_at<'a>(body: &'a [u8], wanted: &[usize]) -> Vec<&'a [u8]> {
    let mut texts = Vec::with_capacity(wanted.len());
    // Line `line` starts at byte `start`.
    let (mut line, mut start) = (1, 0);
    for &k in wanted {
        if line < k {
            start = start_ahead(body, start, k - line);
            line = k;
        }
        let end = memchr::memchr(b'\n', &body[start..]).map_or(body.len(), |i| start + i);
        let text = &body[start..end];
        let text = match end < body.len() {
            true => text.strip_suffix(b"\r").unwrap_or(text),
            false => text,
        };
        texts.push(text);
    }
    texts
}

/// Bytes whose newlines are counted in one go when looking for a line far ahead.
const SKIP_BYTES: usize = 4096;

/// Where the line `ahead` lines after the one starting at `from` starts (the body's end if it
/// has fewer lines). Whole blocks are skipped by counting their newlines, which is many times
/// faster than stepping from one newline to the next.
fn start_ahead(body: &[u8], from: usize, ahead: usize) -> usize {
    let (mut at, mut ahead) = (from, ahead);
    loop {
        let end = (at + SKIP_BYTES).min(body.len());
        let block = &body[at..end];
        let count = memchr::memchr_iter(b'\n', block).count();
        if count < ahead && end < body.len() {
            ahead -= count;
            at = end;
            continue;
        }
        return memchr::memchr_iter(b'\n', block)
            .nth(ahead - 1)
            .map_or(body.len(), |nl| at + nl + 1);
    }
}

pub(super) fn build_echoes(regions: &[Region], body: &[u8]) -> (Vec<Echo>, bool) {
    let n = count_newlines(body) + usize::from(!body.is_empty() && !body.ends_with(b"\n"));
    let mut order: Vec<&Region> = regions.iter().collect();
    order.sort_by_key(|r| r.op);
    let shown: Vec<(Vec<usize>, Option<usize>)> =
        order.iter().map(|region| shown_lines(region, n)).collect();
    let mut wanted: Vec<usize> = shown.iter().flat_map(|(k, _)| k.iter().copied()).collect();
    wanted.sort_unstable();
    wanted.dedup();
    let texts = lines_at(body, &wanted);
    let text_of = |k: usize| wanted.binary_search(&k).map_or(&b""[..], |i| texts[i]);
    let mut echoes: Vec<Echo> = Vec::new();
    let mut budget = ECHO_BUDGET_BYTES;
    for (region, (numbers, elided)) in order.into_iter().zip(shown) {
        let lines: Vec<EchoLine> = numbers
            .into_iter()
            .map(|k| echo_line(k, text_of(k)))
            .collect();
        let cost = ECHO_OVERHEAD + lines.iter().map(|l| l.text.len() + 1).sum::<usize>();
        if cost > budget && !echoes.is_empty() {
            return (echoes, true);
        }
        budget = budget.saturating_sub(cost);
        echoes.push(Echo {
            op: region.op,
            kind: region.kind,
            start_line: region.start,
            end_line: region.start + region.len - 1,
            lines,
            elided,
            replacements: region.replacements,
        });
    }
    (echoes, false)
}
