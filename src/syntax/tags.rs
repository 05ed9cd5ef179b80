//! Tags for the map: a file's definitions (its outline) and the names it refers to (from
//! `queries/<language>/tags.scm`), with how often each is used.

use super::items::{self, Outline};
use super::languages::Language;
use super::{parse, queries};
use std::collections::{HashMap, HashSet};
use streaming_iterator::StreamingIterator;
use tree_sitter::QueryCursor;

/// One file's definitions and references.
pub struct Tags {
    pub outline: Outline,
    /// Referenced names and their use counts, sorted by name.
    pub references: Vec<(String, u32)>,
}

/// Parses a source text and tags it; `None` when the language has no grammar or queries.
pub fn tag(language: &Language, source: &[u8]) -> Option<Tags> {
    let queries = queries::of(language).ok()?;
    let tree = parse(language, source, None)?;
    let outline = items::extract(&tree, source, queries);
    let mut counts: HashMap<&[u8], u32> = HashMap::new();
    if let Some(query) = &queries.tags {
        let definitions: HashSet<usize> =
            outline.items.iter().map(|i| i.name_bytes.start).collect();
        let mut cursor = QueryCursor::new();
        let mut captures = cursor.captures(query, tree.root_node(), source);
        let mut last = usize::MAX;
        while let Some((m, index)) = captures.next() {
            let node = m.captures()[*index].node;
            // One node caught by several patterns counts once.
            if node.start_byte() == last || definitions.contains(&node.start_byte()) {
                continue;
            }
            last = node.start_byte();
            *counts.entry(&source[node.byte_range()]).or_default() += 1;
        }
    }
    let mut references: Vec<(String, u32)> = counts
        .into_iter()
        .filter_map(|(name, n)| Some((std::str::from_utf8(name).ok()?.to_owned(), n)))
        .collect();
    references.sort();
    Some(Tags {
        outline,
        references,
    })
}
