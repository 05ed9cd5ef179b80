//! Replacement text with the file's EOLs: each newline of the replacement takes the EOL of the
//! file line it stands for.

use super::lines::{text_lines, Text};
use super::loose::typo_fold;
use similar::{capture_diff_slices_deadline, Algorithm, DiffOp};
use std::time::{Duration, Instant};

/// Builds the replacement for a match whose search lines `search` stand for file lines
/// `first..first + search.len()`. Each newline of `replace` takes the EOL of its aligned file line.
pub(crate) fn adapt_eols(
    text: &Text,
    first: usize,
    search: &[(&[u8], &[u8])],
    replace: &[(Vec<u8>, Vec<u8>)],
) -> Vec<u8> {
    let fallback: &[u8] = text.dominant_eol();
    let eol_of = |j: usize| -> Option<&[u8]> {
        let i = first + j;
        if i < text.lines().len() && text.lines()[i].end > text.lines()[i].content_end {
            Some(text.eol(i))
        } else {
            None
        }
    };
    // For each replacement line, the search line it stands for.
    let mut aligned: Vec<Option<usize>> = vec![None; replace.len()];
    if !search.is_empty() {
        let skeys: Vec<_> = search
            .iter()
            .map(|(c, _)| typo_fold(c.trim_ascii()))
            .collect();
        let rkeys: Vec<_> = replace
            .iter()
            .map(|(c, _)| typo_fold(c.trim_ascii()))
            .collect();
        let deadline = Instant::now() + Duration::from_millis(20);
        let ops = capture_diff_slices_deadline(Algorithm::Myers, &skeys, &rkeys, Some(deadline));
        let mut last_old: Option<usize> = None;
        for op in &ops {
            match *op {
                DiffOp::Equal {
                    old_index,
                    new_index,
                    len,
                } => {
                    for k in 0..len {
                        aligned[new_index + k] = Some(old_index + k);
                    }
                    last_old = Some(old_index + len - 1);
                }
                DiffOp::Replace {
                    old_index,
                    old_len,
                    new_index,
                    new_len,
                } => {
                    for k in 0..new_len {
                        aligned[new_index + k] = Some(old_index + k.min(old_len - 1));
                    }
                    last_old = Some(old_index + old_len - 1);
                }
                DiffOp::Insert {
                    old_index,
                    new_index,
                    new_len,
                } => {
                    let at = last_old.unwrap_or(old_index.min(search.len() - 1));
                    for k in 0..new_len {
                        aligned[new_index + k] = Some(at);
                    }
                }
                DiffOp::Delete {
                    old_index, old_len, ..
                } => last_old = Some(old_index + old_len - 1),
            }
        }
    }
    let mut out = Vec::new();
    for (k, (content, eol)) in replace.iter().enumerate() {
        out.extend_from_slice(content);
        if eol.is_empty() {
            continue;
        }
        let chosen = aligned[k].and_then(eol_of).unwrap_or(if text.has_eol() {
            fallback
        } else {
            eol.as_slice()
        });
        out.extend_from_slice(chosen);
    }
    out
}

pub(super) fn owned_lines(text: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    text_lines(text)
        .into_iter()
        .map(|(c, e)| (c.to_vec(), e.to_vec()))
        .collect()
}

pub(super) fn eols_mixed(text: &[u8]) -> bool {
    let lines = text_lines(text);
    let crlf = lines.iter().any(|(_, e)| e.len() == 2);
    let lf = lines.iter().any(|(_, e)| e.len() == 1);
    crlf && lf
}
