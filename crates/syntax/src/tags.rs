//! Tags for the map: a file's definitions (its outline) and the names it refers to (from
//! `queries/<language>/tags.scm`), with how often each is used.

use super::items::{self, Outline};
use super::languages::Language;
use super::queries::KindSet;
use super::{parse, queries};
use foldhash::{HashMap, HashSet};
use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, Query, QueryCursor, Tree};

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
    let outline = items::extract_definitions(&tree, source, queries);
    let definitions: HashSet<usize> = outline.items.iter().map(|i| i.name_bytes.start).collect();
    let mut counts: HashMap<&[u8], u32> = HashMap::default();
    let mut count = |node: Node| {
        if !definitions.contains(&node.start_byte()) {
            *counts.entry(&source[node.byte_range()]).or_default() += 1;
        }
    };
    match (&queries.reference_set, &queries.tags) {
        (Some(kinds), _) => walk_kinds(&tree, kinds, &mut count),
        (None, Some(query)) => run_query(&tree, query, source, &mut count),
        (None, None) => {}
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

/// Every named node of the given kinds, in document order.
fn walk_kinds<'t>(tree: &'t Tree, kinds: &KindSet, found: &mut impl FnMut(Node<'t>)) {
    // Never skips a subtree: references are wanted everywhere, inside functions too.
    items::walk_roots(tree, kinds, |node| {
        found(node);
        false
    });
}

/// Every `@reference` capture of a query, each node once.
fn run_query<'t>(tree: &'t Tree, query: &Query, source: &[u8], found: &mut impl FnMut(Node<'t>)) {
    let mut cursor = QueryCursor::new();
    let mut captures = cursor.captures(query, tree.root_node(), source);
    let mut last = None;
    while let Some((m, index)) = captures.next() {
        let node = m.captures()[*index].node;
        if last != Some(node.id()) {
            last = Some(node.id());
            found(node);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::languages;

    /// The tree walk finds exactly what the query engine captures, on every golden fixture of a
    /// language whose tags query is simple.
    #[test]
    fn walking_simple_tags_equals_running_the_query() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/structure/outline"
        );
        let mut checked = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let Some(language) = languages::for_path(&path, None) else {
                continue;
            };
            let queries = queries::of(language).unwrap();
            let (Some(kinds), Some(query)) = (&queries.reference_set, &queries.tags) else {
                continue;
            };
            let source = std::fs::read(&path).unwrap();
            let tree = parse(language, &source, None).unwrap();
            let (mut walked, mut queried) = (Vec::new(), Vec::new());
            walk_kinds(&tree, kinds, &mut |n| walked.push(n.byte_range()));
            run_query(&tree, query, &source, &mut |n| queried.push(n.byte_range()));
            assert!(!walked.is_empty(), "{}", path.display());
            assert_eq!(walked, queried, "{}", path.display());
            checked += 1;
        }
        assert!(checked >= 12, "only {checked} fixtures checked");
    }
}
