//! What a committed file reports: its new stamp and document, the changed regions, and the lines
//! added and removed.

use super::publish::{Hashing, Prepared};
use super::{Draft, FileResult, Options, Slot};
use crate::splice::Splice;
use crate::stat::myers_counts;
use coderd_core::documents::{Change, Document, Event, EventKind, Stamp, Text};
use std::sync::Arc;

/// Installs the new documents, publishes their events, and builds the answer.
pub(super) fn finish(
    state: &coderd_core::workspace::Workspace,
    draft: &Draft,
    changed: &[&Slot],
    published: Vec<(usize, Option<std::fs::Metadata>)>,
    mut hashes: Vec<Option<Hashing>>,
    places: &[Prepared],
    opts: &Options,
) -> Vec<FileResult> {
    let budget = state.limits().documents_max_bytes;
    let mut results = Vec::new();
    for (i, meta) in published {
        let slot = changed[i];
        let Some(meta) = meta else {
            results.push(deleted(state, slot));
            continue;
        };
        let new = slot.planned_bytes().unwrap_or_default();
        let hash = hashes[i].take().expect("one hash per changed file").wait();
        let stamp = Stamp::hashed(&meta, new.len() as u64, hash);
        let old_text = slot.doc.as_ref().map(|d| &d.text);
        let changes = changes(slot, old_text, new);
        let (lines_added, lines_removed) = slot.counts.unwrap_or_else(|| {
            line_counts(slot.original_bytes().unwrap_or_default(), new, &changes)
        });
        let text = match (old_text, &slot.splices) {
            (Some(old), Some(splices)) => old.spliced(splices, new),
            _ => Text::from_bytes(new.to_vec()),
        };
        let old_revision = slot.doc.as_ref().map(|d| d.revision);
        let revision =
            old_revision.unwrap_or(state.documents.revision(&slot.target.resolved.abs)) + 1;
        let doc = Arc::new(Document {
            path: slot.target.resolved.abs.clone(),
            stamp,
            revision,
            text,
            flat: slot.planned.clone(),
        });
        let version = doc.version();
        if let Some(session) = &opts.session {
            state
                .documents
                .sessions
                .note_read(session, &doc.path, &version);
        }
        let created = slot.doc.is_none();
        state.documents.committed(
            doc,
            Event {
                path: slot.target.resolved.abs.clone(),
                old_revision,
                new_revision: Some(revision),
                kind: if created {
                    EventKind::Created
                } else {
                    EventKind::Edited
                },
                changes,
            },
            budget,
        );
        results.push(FileResult {
            path: slot.target.resolved.abs.clone(),
            bytes: new.len() as u64,
            version,
            revision,
            lines_added,
            lines_removed,
            created,
            unchanged: false,
            deleted: false,
            backup: places[i].backup.as_ref().map(|p| p.abs.clone()),
            diff: None,
        });
    }
    // Files the call named but did not need to change are reported too, as unchanged.
    for slot in draft.slots.values() {
        if results.iter().any(|r| r.path == slot.target.resolved.abs) {
            continue;
        }
        if let Some(doc) = &slot.doc {
            if let Some(session) = &opts.session {
                state
                    .documents
                    .sessions
                    .note_read(session, &doc.path, &doc.version());
            }
            results.push(FileResult {
                path: doc.path.clone(),
                bytes: doc.stamp.size,
                version: doc.version(),
                revision: doc.revision,
                lines_added: 0,
                lines_removed: 0,
                created: false,
                unchanged: true,
                deleted: false,
                backup: None,
                diff: None,
            });
        }
    }
    results
}

/// Tells the documents store a file the call deleted is gone, and reports it.
pub(super) fn deleted(state: &coderd_core::workspace::Workspace, slot: &Slot) -> FileResult {
    let path = slot.target.resolved.abs.clone();
    let old_revision = slot.doc.as_ref().map(|d| d.revision);
    state.documents.removed(
        &path,
        Event {
            path: path.clone(),
            old_revision,
            new_revision: None,
            kind: EventKind::Deleted,
            changes: Vec::new(),
        },
    );
    let original = slot.original.as_deref().map_or(&[][..], |v| v.as_slice());
    FileResult {
        path,
        bytes: 0,
        version: String::new(),
        revision: old_revision.unwrap_or(0) + 1,
        lines_added: 0,
        lines_removed: memchr::memchr_iter(b'\n', original).count(),
        created: false,
        unchanged: false,
        deleted: true,
        backup: None,
        diff: None,
    }
}

/// A dry run's answer: each file the call names as the plan would leave it, with its unified
/// diff (none when unchanged). Nothing is written, no event is published, no session notes a read:
/// the version and revision are the file's current ones.
pub(super) fn previewed(draft: &Draft) -> Vec<FileResult> {
    let planned = draft
        .slots
        .values()
        .filter(|s| s.original.is_some() || s.planned.is_some());
    planned
        .map(|slot| {
            let old = slot.original_bytes().unwrap_or_default();
            let new = slot.planned_bytes().unwrap_or(old);
            let unchanged = slot.original.is_some() && !slot.delete && new == old;
            let (lines_added, lines_removed) = match unchanged {
                true => (0, 0),
                false => slot.counts.unwrap_or_else(|| {
                    let old_text = slot.doc.as_ref().map(|d| &d.text);
                    line_counts(old, new, &changes(slot, old_text, new))
                }),
            };
            let path = slot.target.resolved.abs.clone();
            FileResult {
                bytes: new.len() as u64,
                version: slot.doc.as_ref().map(|d| d.version()).unwrap_or_default(),
                revision: slot.doc.as_ref().map_or(0, |d| d.revision),
                lines_added,
                lines_removed,
                created: slot.original.is_none(),
                unchanged,
                deleted: slot.delete,
                backup: None,
                diff: (!unchanged).then(|| super::unified_diff(old, new, &path)),
                path,
            }
        })
        .collect()
}

/// The changed regions, from the splices of a single change, else one region between the common
/// prefix and suffix of the old and new content.
pub(super) fn changes(slot: &Slot, old_text: Option<&Text>, new: &[u8]) -> Vec<Change> {
    let old = slot
        .original
        .as_deref()
        .map(|v| v.as_slice())
        .unwrap_or_default();
    // Lines of `new` before a byte offset, counted on from the previous (larger or equal) offset
    // asked: the regions come in file order, so the whole count is one pass over `new`.
    let mut counted = (0, 0);
    let mut new_line = |byte: usize| {
        let (at, lines) = if byte >= counted.0 { counted } else { (0, 0) };
        let lines = lines + memchr::memchr_iter(b'\n', &new[at..byte]).count();
        counted = (byte, lines);
        lines
    };
    let old_line = |byte: usize| match old_text {
        Some(t) => t.line_of_byte(byte),
        None => 0,
    };
    let regions: Vec<(std::ops::Range<usize>, usize)> = match &slot.splices {
        Some(splices) => {
            let mut sorted: Vec<&Splice> = splices.iter().collect();
            sorted.sort_by_key(|s| s.range.start);
            sorted
                .iter()
                .map(|s| (s.range.clone(), s.text.len()))
                .collect()
        }
        None => {
            let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
            let max_suffix = old.len().min(new.len()) - prefix;
            let suffix = old
                .iter()
                .rev()
                .zip(new.iter().rev())
                .take(max_suffix)
                .take_while(|(a, b)| a == b)
                .count();
            vec![(prefix..old.len() - suffix, new.len() - suffix - prefix)]
        }
    };
    let mut shift: isize = 0;
    regions
        .into_iter()
        .map(|(range, new_len)| {
            let new_start = (range.start as isize + shift) as usize;
            shift += new_len as isize - range.len() as isize;
            let new_bytes = new_start..new_start + new_len;
            Change {
                old_lines: old_line(range.start)..old_line(range.end) + 1,
                new_lines: new_line(new_bytes.start)..new_line(new_bytes.end) + 1,
                old_bytes: range,
                new_bytes,
            }
        })
        .collect()
}

/// Lines added and removed, as `git diff --stat` counts them, over the changed regions only.
fn line_counts(old: &[u8], new: &[u8], changes: &[Change]) -> (usize, usize) {
    let (mut added, mut removed) = (0, 0);
    for change in changes {
        let old_region = whole_lines(old, change.old_bytes.clone());
        let new_region = whole_lines(new, change.new_bytes.clone());
        let old_lines: Vec<&[u8]> = old_region.split_inclusive(|b| *b == b'\n').collect();
        let new_lines: Vec<&[u8]> = new_region.split_inclusive(|b| *b == b'\n').collect();
        let (region_added, region_removed) = myers_counts(&old_lines, &new_lines, None);
        added += region_added;
        removed += region_removed;
    }
    (added, removed)
}

/// The region widened to whole lines.
fn whole_lines(text: &[u8], range: std::ops::Range<usize>) -> &[u8] {
    let start = memchr::memrchr(b'\n', &text[..range.start]).map_or(0, |i| i + 1);
    let ends_line = range.end > range.start && text[range.end - 1] == b'\n';
    let end = match memchr::memchr(b'\n', &text[range.end..]) {
        _ if ends_line => range.end,
        Some(i) => range.end + i + 1,
        None => text.len(),
    };
    &text[start..end]
}
