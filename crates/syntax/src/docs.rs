//! An item's leading matter (doc comments, attributes, decorators, annotations right before it):
//! where its extent starts, and the first line of its doc.
//!
//! The matter is read from the tree: a grammar's wrapper kinds climbed (decorators, `export`,
//! `template <...>`), then the item's siblings before it. The map's skeleton parse
//! (`skeleton`) leaves most comments out of the tree, so there the lexer's comments stand in for
//! the comment siblings the full parse would have: the same run, the same extent and doc.

use super::languages::Language;
use super::walk::Leading;
use std::ops::Range;
use tree_sitter::Node;

/// A comment the parse left out (`skeleton`): its bytes and its first and last rows (0-based).
#[derive(Clone, Debug)]
pub struct Comment {
    pub bytes: Range<usize>,
    pub first_row: usize,
    pub last_row: usize,
}

/// Where an item's leading matter starts (doc comments, attributes, decorators), and its doc
/// (uncut).
pub struct Extent {
    pub first_row: usize,
    pub doc: Option<String>,
}

/// Wrappers that belong to the item they hold: decorators, `export`, `template <...>`.
pub const WRAPPERS: &[&str] = &[
    "decorated_definition",
    "export_statement",
    "template_declaration",
];

/// Declarations that hold specs (Go's `type`, `const`, `var`): a doc comment goes before the
/// declaration, so a spec declared alone (`type A struct {…}`, `var X = 1`) is led by its
/// declaration's leading matter.
const SPEC_DECLARATIONS: &[&str] = &["type_declaration", "const_declaration", "var_declaration"];

/// The node whose leading matter is an item's, given its ancestors (root first,
/// `walk::with_ancestors`): the item's own, or for a Go spec declared alone (no parentheses: a
/// grouped spec has comments of its own) its declaration; then the outermost of the wrappers
/// right above it (decorators, `export`, `template <...>`).
pub fn anchor<'t>(node: Node<'t>, ancestors: &[Node<'t>]) -> Node<'t> {
    let alone = |declaration: &Node| {
        let second = declaration.child(1).map(|c| c.kind());
        declaration.named_child_count() == 1 && second.is_some_and(|kind| kind != "(")
    };
    let mut above = ancestors.iter().rev().peekable();
    let mut anchor = node;
    if let Some(declaration) = above.next_if(|p| SPEC_DECLARATIONS.contains(&p.kind()) && alone(p))
    {
        anchor = *declaration;
    }
    while let Some(wrapper) = above.next_if(|p| WRAPPERS.contains(&p.kind())) {
        anchor = *wrapper;
    }
    anchor
}

/// Leading matter: comments, attributes, decorators, annotations.
pub fn leads(kind: &str) -> bool {
    ["comment", "attribute", "decorator", "annotation"]
        .iter()
        .any(|a| kind.contains(a))
}

/// One sibling before an item, from the tree or a left-out comment.
#[derive(Clone, Copy)]
struct Piece {
    bytes: (usize, usize),
    first_row: usize,
    last_row: usize,
    comment: bool,
    leads: bool,
}

impl Piece {
    fn of_node(node: Node) -> Piece {
        let kind = node.kind();
        Piece {
            bytes: (node.start_byte(), node.end_byte()),
            first_row: node.start_position().row,
            last_row: node.end_position().row,
            comment: kind.contains("comment"),
            leads: leads(kind),
        }
    }

    fn of_comment(comment: &Comment) -> Piece {
        Piece {
            bytes: (comment.bytes.start, comment.bytes.end),
            first_row: comment.first_row,
            last_row: comment.last_row,
            comment: true,
            leads: true,
        }
    }
}

/// Where the leading matter of the item whose anchor (`anchor`) is `anchor` starts, and its doc:
/// the run of `leads` siblings right before the anchor (`walk::leading_runs`), merged with the
/// `left_out` comments (sorted) between the run's start and the anchor.
pub fn extent(
    anchor: Node,
    source: &[u8],
    markers: &DocMarkers,
    leading: &Leading,
    left_out: &[Comment],
) -> Extent {
    let mut first_row = anchor.start_position().row;
    let mut doc_start = None;
    let mut at_row = first_row;
    let mut before = merged(leading, anchor.start_byte(), left_out);
    while let Some(prev) = before.pop() {
        let adjacent = prev.last_row + 1 >= at_row;
        if !adjacent || !prev.leads || !starts_its_line(prev.bytes.0, source) {
            break;
        }
        if prev.comment {
            doc_start = Some(prev.bytes);
        }
        first_row = prev.first_row;
        at_row = prev.first_row;
    }
    Extent {
        first_row,
        doc: doc_start.and_then(|(start, end)| {
            // The whole run of line comments from the first one down.
            let end = anchor.start_byte().max(end);
            first_doc_line(&String::from_utf8_lossy(&source[start..end]), markers)
        }),
    }
}

/// The run's nodes and the left-out comments after its start (`leading.after`) and before `end`
/// that no node of the run holds, in file order.
fn merged(leading: &Leading, end: usize, left_out: &[Comment]) -> Vec<Piece> {
    let mut pieces: Vec<Piece> = leading.run.iter().map(|n| Piece::of_node(*n)).collect();
    let first = left_out.partition_point(|c| c.bytes.start < leading.after);
    let comments = left_out[first..].iter().take_while(|c| c.bytes.end <= end);
    let outside = |c: &&Comment| {
        let held = |n: &Node| n.start_byte() <= c.bytes.start && c.bytes.end <= n.end_byte();
        !leading.run.iter().any(held)
    };
    let before = pieces.len();
    pieces.extend(comments.filter(outside).map(Piece::of_comment));
    if pieces.len() > before && before > 0 {
        pieces.sort_by_key(|p| p.bytes.0);
    }
    pieces
}

/// Whether only whitespace precedes `start` on its line (a trailing comment is no doc).
pub(crate) fn starts_its_line(start: usize, source: &[u8]) -> bool {
    let line_start = source[..start]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    source[line_start..start]
        .iter()
        .all(|b| b.is_ascii_whitespace())
}

/// A docstring is a string, not a comment: its quotes, whatever the language.
const DOCSTRING_QUOTES: &[&str] = &["r\"\"\"", "\"\"\"", "'''", "\"", "'"];

/// What a doc's lines are stripped of: the language's comment markers (`line_comment` and
/// `block_comment` of grammars/languages.toml), then a docstring's quotes.
pub struct DocMarkers {
    line: Option<String>,
    block: Option<(String, String)>,
}

impl DocMarkers {
    pub fn of(language: &Language) -> DocMarkers {
        DocMarkers {
            line: language.line_comment.clone(),
            block: language.block_comment.clone(),
        }
    }

    /// `line` without its opening marker. A doc comment is its marker with the marker's last
    /// character repeated or a `!` after it (`///`, `//!`, `##`, `/**`, `/*!`); a block's inner
    /// lines start with the opener's last character (` * `).
    fn strip_open<'a>(&self, line: &'a str) -> &'a str {
        let block_open = self.block.as_ref().map(|(open, _)| open.as_str());
        for marker in [self.line.as_deref(), block_open].into_iter().flatten() {
            if let Some(rest) = line.strip_prefix(marker) {
                let last = marker.chars().next_back().unwrap_or(' ');
                let rest = rest.trim_start_matches(last);
                return rest.strip_prefix('!').unwrap_or(rest);
            }
        }
        if let Some(inner) = block_open.and_then(|open| open.chars().next_back()) {
            if let Some(rest) = line.strip_prefix(inner) {
                return rest;
            }
        }
        DOCSTRING_QUOTES
            .iter()
            .find_map(|q| line.strip_prefix(q))
            .unwrap_or(line)
    }

    fn strip_close<'a>(&self, line: &'a str) -> &'a str {
        let block_close = self.block.as_ref().map(|(_, close)| close.as_str());
        block_close
            .into_iter()
            .chain(DOCSTRING_QUOTES.iter().copied())
            .find_map(|s| line.strip_suffix(s))
            .unwrap_or(line)
    }
}

/// The first line of a comment or docstring with its markers removed (uncut: the outline caps it).
pub fn first_doc_line(text: &str, markers: &DocMarkers) -> Option<String> {
    for line in text.lines() {
        // The closer first, so a line that is only `*/` is empty, not `/`.
        let line = markers.strip_close(line.trim()).trim_end();
        let line = markers.strip_open(line).trim_start();
        // C#'s XML doc comments: the summary's text.
        let line = line.replace("<summary>", "").replace("</summary>", "");
        let line = line.trim();
        if !line.is_empty() {
            return Some(line.to_owned());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_docs_markers_are_its_languages() {
        // (language, the doc as written, its first line): the markers come from
        // grammars/languages.toml, so `//` is no marker in Python nor `#` in Rust.
        let cases = [
            ("rust", "/// Opens the file.", "Opens the file."),
            ("rust", "//! The crate.", "The crate."),
            ("rust", "/**\n * Closes it.\n */", "Closes it."),
            ("rust", "# not a marker", "# not a marker"),
            ("csharp", "/// <summary>Sums.</summary>", "Sums."),
            ("python", "\"\"\"Parses it.\"\"\"", "Parses it."),
            ("python", "## A heading", "A heading"),
            ("python", "// not a marker", "// not a marker"),
            ("bash", "# Installs it.", "Installs it."),
            ("json", "\"A string.\"", "A string."),
        ];
        for (language, doc, want) in cases {
            let markers = DocMarkers::of(crate::languages::by_name(language).unwrap());
            assert_eq!(
                first_doc_line(doc, &markers).as_deref(),
                Some(want),
                "{language}: {doc:?}"
            );
        }
    }
}
