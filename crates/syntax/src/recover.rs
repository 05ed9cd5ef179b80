//! Parse errors contained. tree-sitter recovers from most syntax errors where they are, but a form
//! its grammar does not know can make it lose the file's structure from there on:
//! tree-sitter-typescript 0.23.2 reads an interface call signature whose `<` opens its own line as
//! a comparison, closes the interface there and leaves the rest of the file in fragments (hono's
//! `types.ts`: 19 of its 56 declarations found); a Rust `macro` 2.0 item closes the module
//! holding it. When the structure is lost (an ERROR node directly under the root, or a block
//! closed by a `}` that is not there), the file is parsed again without the damaged region: the
//! parser is given the file's other bytes as its included ranges, so it skips the region and every
//! node keeps its place in the file. The one tree then serves the outline, `symbols`, the tag index
//! and the map alike. The parse kept is the one with the most top-level declarations (`score`):
//! tree-sitter's own recovery often loses none, and then it stands.
//!
//! The damaged region starts at the line of the first error of the declaration that broke, and
//! ends with the construct that line opens: the lines after it indented deeper, and the closers
//! (`}`, `)`, `]`, `>`) at its own indentation. When the next parse breaks again in the same
//! top-level declaration, the region runs from the new error to that declaration's end (the next
//! line starting at column 0, which may be its closing `}`: the parser then closes it there).

use std::ops::Range;
use tree_sitter::{Node, Parser, Point, Tree, TreeCursor};

/// Reparses at most this many times per file: each damaged declaration takes one or two.
const ROUNDS: usize = 12;

/// `tree`, or when it lost the file's structure a tree of the same file parsed without the damaged
/// regions (`Tree::included_ranges` has a gap for each).
pub fn contain(parser: &mut Parser, source: &[u8], tree: Tree) -> Tree {
    let Some(mut at) = first_break(&tree) else {
        return tree;
    };
    let mut best_score = score(&tree);
    let declarations = best_score.0;
    let mut best = tree;
    let mut skipped: Vec<Skip> = Vec::new();
    let mut stale = 0;
    for _ in 0..ROUNDS {
        let skip = region(source, at, skipped.last());
        // A block left open at the end of the file (a file mid-edit) has nothing after it to save.
        if skip.bytes.is_empty() || skipped.iter().any(|s| s.bytes.start == skip.bytes.start) {
            break;
        }
        skipped.push(skip);
        if parser
            .set_included_ranges(&included(source, &skipped))
            .is_err()
        {
            break;
        }
        let Some(next) = parser.parse(source, None) else {
            break;
        };
        let broken_at = first_break(&next);
        let next_score = score(&next);
        if next_score.0 < declarations {
            // The cuts took whole declarations: more would only take more.
            break;
        }
        if next_score > best_score {
            (best, best_score, stale) = (next, next_score, 0);
        } else {
            // A damaged declaration takes two cuts at most (its construct, then its end).
            stale += 1;
            if stale == 2 {
                break;
            }
        }
        match broken_at {
            // Each region holds the error it was cut for: a later break is progress.
            Some(b) if b >= skipped.last().map_or(0, |s| s.bytes.end) => at = b,
            _ => break,
        }
    }
    // The parser is shared by the thread: whole files from here on.
    let _ = parser.set_included_ranges(&[]);
    best
}

/// What makes one parse better than another: more declarations at the top level (nodes starting a
/// line at column 0), then fewer fragments (ERROR nodes under the root). A region is cut only when
/// it saves declarations or structure: tree-sitter's own recovery often loses neither (a call
/// signature it misreads between two others closes its interface early, and the next interface
/// is whole; a block it closes early in a Bash function).
fn score(tree: &Tree) -> (usize, std::cmp::Reverse<usize>) {
    let root = tree.root_node();
    let mut cursor = root.walk();
    let (mut declarations, mut fragments) = (0, usize::from(root.is_error()));
    for child in root.children(&mut cursor) {
        if child.is_error() {
            fragments += 1;
        } else if child.is_named() && !child.is_extra() && child.start_position().column == 0 {
            declarations += 1;
        }
    }
    (declarations, std::cmp::Reverse(fragments))
}

/// One region left out of a parse, and the end of the top-level declaration it lies in.
struct Skip {
    bytes: Range<usize>,
    declaration_end: usize,
}

/// How many signs of a lost structure the tree bears: ERROR nodes directly under the root
/// (fragments), and blocks the parser closed with a `}` that is not there.
fn lost(tree: &Tree) -> usize {
    let root = tree.root_node();
    let mut cursor = root.walk();
    let fragments = root.children(&mut cursor).filter(|c| c.is_error()).count();
    fragments + usize::from(root.is_error()) + unclosed(root)
}

/// The MISSING `}` under `node`. A cursor's walk, not a recursion: a tree nests as deep as its
/// file, and a file 100,000 levels deep overflowed a thread's stack and aborted the daemon.
fn unclosed(node: Node) -> usize {
    let (mut cursor, mut count) = (node.walk(), 0);
    loop {
        let at = cursor.node();
        count += usize::from(at.is_missing() && at.kind() == "}");
        let enters = !at.is_missing() && at.has_error() && cursor.goto_first_child();
        if !enters && !next_in_file_order(&mut cursor) {
            return count;
        }
    }
}

/// Moves the cursor to the node after its subtree in file order (its next sibling, or an
/// ancestor's); false at the end of the walk's root.
fn next_in_file_order(cursor: &mut TreeCursor) -> bool {
    loop {
        if cursor.goto_next_sibling() {
            return true;
        }
        if !cursor.goto_parent() {
            return false;
        }
    }
}

/// Where the parse first broke, when it lost the structure: the first error of the top-level
/// declaration that broke (a block closed early, or the fragments after it broke off from it).
fn first_break(tree: &Tree) -> Option<usize> {
    let root = tree.root_node();
    if lost(tree) == 0 {
        return None;
    }
    let mut cursor = root.walk();
    let children: Vec<Node> = root.children(&mut cursor).collect();
    let closed_early = children.iter().position(|c| unclosed(*c) > 0);
    let fragment = children.iter().position(|c| c.is_error());
    let broke = match (closed_early, fragment) {
        (Some(c), Some(f)) => c.min(broke_off(&children, f)),
        (Some(c), None) => c,
        (None, Some(f)) => broke_off(&children, f),
        (None, None) => return first_error(root),
    };
    children[broke..].iter().find_map(|c| first_error(*c))
}

/// The declaration the fragment at `fragment` broke off from: back over the fragments (which do
/// not start a line at column 0) and the declarations with errors.
fn broke_off(children: &[Node], fragment: usize) -> usize {
    let mut first = fragment;
    while first > 0 {
        let before = children[first - 1];
        if before.start_position().column == 0 && !before.has_error() {
            break;
        }
        first -= 1;
    }
    first
}

/// The first error under `node`, in file order: an ERROR node's start, or for a MISSING node (the
/// parser closed something early) the start of the token the parser could not take.
/// A cursor's walk (see `unclosed`).
fn first_error(node: Node) -> Option<usize> {
    let mut cursor = node.walk();
    loop {
        let at = cursor.node();
        if at.is_missing() {
            return Some(next_token(&mut cursor));
        }
        if at.is_error() {
            return Some(at.start_byte());
        }
        let enters = at.has_error() && cursor.goto_first_child();
        if !enters && !next_in_file_order(&mut cursor) {
            return None;
        }
    }
}

/// The start of the first token after the cursor's node that is not a comment. Up through the
/// cursor (each `Node::parent` searches from the root down: a deep tree made it quadratic), then
/// from the walk's root, a child of the tree's at most.
fn next_token(cursor: &mut TreeCursor) -> usize {
    let node = cursor.node();
    loop {
        while cursor.goto_next_sibling() {
            if !cursor.node().is_extra() {
                return cursor.node().start_byte();
            }
        }
        if !cursor.goto_parent() {
            break;
        }
    }
    let mut at = cursor.node();
    loop {
        match at.next_sibling() {
            Some(sibling) if sibling.is_extra() => at = sibling,
            Some(sibling) => return sibling.start_byte(),
            None => match at.parent() {
                Some(parent) => at = parent,
                None => return node.end_byte(),
            },
        }
    }
}

/// The region to leave out for an error at byte `at`: the construct its line opens, or to the end
/// of the top-level declaration when the last region was cut from the same one.
fn region(source: &[u8], at: usize, last: Option<&Skip>) -> Skip {
    // An ERROR node may start with the whitespace before its first token.
    let at = at
        + (source[at.min(source.len())..].iter())
            .take_while(|b| b.is_ascii_whitespace())
            .count();
    let start = line_start(source, at);
    let declaration_end = next_line_where(source, start, |indent, _| indent == 0);
    let same_declaration = last.is_some_and(|l| l.declaration_end == declaration_end);
    let end = if same_declaration {
        declaration_end
    } else {
        let own = indentation(&source[start..]);
        next_line_where(source, start, |indent, first| {
            indent < own || (indent == own && !b")]}>".contains(&first))
        })
    };
    Skip {
        bytes: start..end,
        declaration_end,
    }
}

/// The start of the first non-blank line after the one starting at `start` whose indentation and
/// first character satisfy `stop`; the end of the file when none does.
fn next_line_where(source: &[u8], start: usize, stop: impl Fn(usize, u8) -> bool) -> usize {
    let mut at = start;
    while let Some(newline) = source[at..].iter().position(|&b| b == b'\n') {
        at += newline + 1;
        let indent = indentation(&source[at..]);
        match source.get(at + indent) {
            Some(b'\n' | b'\r') => continue,
            Some(&first) if stop(indent, first) => return at,
            Some(_) => continue,
            None => break,
        }
    }
    source.len()
}

fn indentation(line: &[u8]) -> usize {
    line.iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count()
}

fn line_start(source: &[u8], at: usize) -> usize {
    let at = at.min(source.len());
    source[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1)
}

/// The file's bytes outside the skipped regions, as the parser's included ranges.
fn included(source: &[u8], skipped: &[Skip]) -> Vec<tree_sitter::Range> {
    let gaps: Vec<Range<usize>> = skipped.iter().map(|s| s.bytes.clone()).collect();
    included_outside(source, &gaps)
}

/// The file's bytes outside `gaps` (in any order, possibly overlapping), as a parser's included
/// ranges: no empty range, and never none (a file left out whole keeps its empty end). The parse
/// of a damaged region's surroundings and the map's skeleton parse (`skeleton`) both use it.
pub(crate) fn included_outside(source: &[u8], gaps: &[Range<usize>]) -> Vec<tree_sitter::Range> {
    let mut gaps = gaps.to_vec();
    gaps.sort_by_key(|g| g.start);
    let mut bounds = Vec::new();
    let mut from = 0;
    for gap in gaps {
        if gap.start > from {
            bounds.extend([from, gap.start]);
        }
        from = from.max(gap.end);
    }
    if from < source.len() || bounds.is_empty() {
        bounds.extend([from, source.len()]);
    }
    let points = points_at(source, &bounds);
    bounds
        .chunks(2)
        .zip(points.chunks(2))
        .map(|(b, p)| tree_sitter::Range {
            start_byte: b[0],
            end_byte: b[1],
            start_point: p[0],
            end_point: p[1],
        })
        .collect()
}

/// The (row, column) of each byte offset of a sorted list, in one pass.
pub(crate) fn points_at(source: &[u8], offsets: &[usize]) -> Vec<Point> {
    let (mut row, mut line_start, mut at) = (0, 0, 0);
    offsets
        .iter()
        .map(|&offset| {
            for newline in memchr::memchr_iter(b'\n', &source[at..offset]) {
                row += 1;
                line_start = at + newline + 1;
            }
            at = offset;
            Point::new(row, offset - line_start)
        })
        .collect()
}

/// The 1-based line where the first region a parse of `source` left out starts, if it left one
/// out (the end of the file included).
pub fn first_skipped_line(tree: &Tree, source: &[u8]) -> Option<usize> {
    let ranges = tree.included_ranges();
    if ranges.first().is_some_and(|r| r.start_byte > 0) {
        return Some(1);
    }
    let gap = ranges
        .windows(2)
        .find(|w| w[0].end_byte < w[1].start_byte)
        .map(|w| &w[0]);
    let tail = ranges.last().filter(|r| r.end_byte < source.len());
    gap.or(tail).map(|r| r.end_point.row + 1)
}

/// How many regions a parse of `source` left out (the end of the file included).
pub fn skipped(tree: &Tree, source: &[u8]) -> usize {
    let ranges = tree.included_ranges();
    let inner = ranges
        .windows(2)
        .filter(|w| w[0].end_byte < w[1].start_byte)
        .count();
    let head = ranges.first().is_some_and(|r| r.start_byte > 0);
    let tail = ranges.last().is_some_and(|r| r.end_byte < source.len());
    inner + usize::from(head) + usize::from(tail)
}

/// The ERROR and MISSING nodes in a tree (those inside an ERROR node too), found by entering
/// only the subtrees that hold one.
pub fn error_nodes(tree: &Tree) -> Vec<Node<'_>> {
    let mut errors = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.is_error() || node.is_missing() {
            errors.push(node);
        }
        let mut cursor = node.walk();
        let holding = node.children(&mut cursor);
        stack.extend(holding.filter(|c| c.has_error() || c.is_missing()));
    }
    errors
}

#[cfg(test)]
mod tests {
    use crate::{languages, outline_of};

    /// (name, line, parent's name) of each item.
    fn names(language: &str, source: &str) -> Vec<(String, usize, String)> {
        let language = languages::by_name(language).unwrap();
        let outline = outline_of(language, source.as_bytes()).unwrap();
        let items = &outline.items;
        let parent = |p: Option<usize>| p.map_or(String::new(), |p| items[p].name.clone());
        (items.iter())
            .map(|i| (i.name.clone(), i.line, parent(i.parent)))
            .collect()
    }

    /// (language, source, a declaration after the error, its line, its parent): each is found,
    /// in its place.
    #[test]
    fn declarations_after_a_lost_structure_are_found() {
        let cases = [
            (
                "typescript",
                "export interface HandlerInterface<E extends Env = Env> {\n  // app.get(handler)\n  <\n    P extends string = string,\n    R extends HandlerResponse<any> = any,\n  >(\n    handler: H<E, P, R>\n  ): HonoBase<\n    IntersectNonAnyTypes<[E]>,\n    P\n  >\n\n  // app.get(handler x2)\n  <\n    P extends string = string,\n    I2 extends Input = I,\n    M1 extends H<E, P, I> = H<E, P, I>,\n  >(\n    ...handlers: [H<E, P, I> & M1, H<E, P, I2>]\n  ): HonoBase<\n    IntersectNonAnyTypes<[E, E2]>,\n    S & ToSchema<M, P, I2, MergeTypedResponse<R> | MergeMiddlewareResponse<M1>>\n  >\n}\n\nexport type ToSchema<M extends string> = { [K in M]: string }\n\nexport const createFactory = <E>(): Factory<E> => new Factory<E>()\n",
                "createFactory",
                28,
                "",
            ),
            (
                "rust",
                "mod inner {\n    pub macro m($x:expr) {\n        $x + 1\n    }\n\n    pub fn after_in_mod() {}\n\n    pub struct InMod;\n}\n\npub fn after_mod() {}\n",
                "InMod",
                8,
                "inner",
            ),
        ];
        // A block left open at the end (a file mid-edit) keeps the parser's own recovery.
        let open = names("rust", "pub fn a() {}\n\nimpl A {\n    pub fn b(&self) {\n");
        assert_eq!(open, [("a".to_owned(), 1, String::new())]);
        for (language, source, name, line, parent) in cases {
            let found = names(language, source);
            assert!(
                found.contains(&(name.to_owned(), line, parent.to_owned())),
                "{language}: {name} at {line} under {parent:?} not in {found:?}"
            );
        }
    }
}
