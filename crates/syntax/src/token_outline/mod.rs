//! The map's outline from a file's tokens alone, without tree-sitter: for the files where a small
//! token state machine per language can prove nothing is unusual, the items, lines, signatures,
//! docs and byte ranges that `items::extract_definitions` reads from the skeleton's tree
//! (`skeleton`), read from the lexer's tokens and comments instead. Anything the finder is not
//! sure of answers `None`, and the map parses that file as before.
//!
//! tree-sitter's parse of what the skeleton keeps (signatures, types, fields) was the largest part
//! of a cold map's CPU after the earlier rounds (docs/benchmarks.md, "Cold map"); a file answered
//! here is lexed once and never parsed.

mod go;
#[cfg(test)]
mod go_tests;
mod rust;

use super::items::Outline;
use super::lexer::{Dialect, Token};
use std::ops::Range;

/// How deep the finders' walks nest (Rust's items in items, Go's types in types) before they give
/// the file to the parse: they recurse, and a hostile file nesting thousands deep must not
/// overflow a tagging thread's stack; tree-sitter's parse and walks do not recurse.
const MAX_NESTING: usize = 64;

/// A file's outline read from its tokens, and the names among them that are no references.
pub struct TokenOutline {
    pub outline: Outline,
    /// Where the names start that the tags query would not count though they are identifiers to
    /// the lexer: Go's package names (the package clause's, the imports', a qualified type's).
    pub unreferenced: Vec<usize>,
    /// The names the lexer takes for keywords that the tags query counts: Rust's `ref` or `dyn`
    /// in a macro call's tokens, the `_` of `const _`, `u32` in `u32::MAX`.
    pub referenced: Vec<Range<usize>>,
}

impl From<Outline> for TokenOutline {
    fn from(outline: Outline) -> TokenOutline {
        TokenOutline {
            outline,
            unreferenced: Vec::new(),
            referenced: Vec::new(),
        }
    }
}

/// The outline of `source` from its tokens and comments (`lexer::lex_with_comments`), exactly as
/// the skeleton's tree gives it, or `None` when the dialect's finder is not sure of the file.
pub fn outline(
    dialect: Dialect,
    source: &[u8],
    tokens: &[Token],
    comments: &[Range<usize>],
) -> Option<TokenOutline> {
    match dialect {
        Dialect::Go => go::outline(source, tokens, comments),
        Dialect::Rust => rust::outline(source, tokens, comments),
    }
}

/// Rows of byte offsets, as tree-sitter counts them (0-based, a row per `\n`).
pub(crate) struct Rows {
    /// Where each line after the first starts.
    starts: Vec<usize>,
}

impl Rows {
    pub fn of(source: &[u8]) -> Rows {
        let starts = memchr::memchr_iter(b'\n', source).map(|i| i + 1).collect();
        Rows { starts }
    }

    /// The row of the byte at `at` (0-based).
    pub fn row(&self, at: usize) -> usize {
        self.starts.partition_point(|&s| s <= at)
    }

    /// The 1-based last line of a node ending at `end` and starting on row `first`: a node ending
    /// at the start of a line ends on the line before (`items::end_line`).
    pub fn end_line(&self, first: usize, end: usize) -> usize {
        let row = self.row(end);
        let at_line_start = row > 0 && self.starts[row - 1] == end;
        match at_line_start && row > first {
            true => row,
            false => row + 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::languages::{self, Language};
    use crate::tags::{tag_with, Tags};
    use std::collections::HashMap;

    /// A file's tags from its tokens alone and from its skeleton (the map's parse without
    /// `token_outline`); the first `None` when the finder does not answer.
    pub(super) fn both(language: &Language, source: &[u8]) -> (Option<Tags>, Tags) {
        let answered = crate::parse_for_tags(language, source, true).and_then(|l| l.outline);
        let skeleton = tag_with(language, source, false).unwrap().0;
        let tokens = answered.map(|_| tag_with(language, source, true).unwrap().0);
        (tokens, skeleton)
    }

    /// Every item's every field, as the comparison sees it.
    pub(super) fn shape(tags: &Tags) -> Vec<String> {
        let items = tags.outline.items.iter();
        items
            .map(|i| format!("{i:?} extent_line={}", i.extent_line))
            .collect()
    }

    /// (missing, extra, total) uses of the token path's references against the skeleton's.
    fn difference(tokens: &Tags, skeleton: &Tags) -> (usize, usize, usize) {
        let counts = |t: &Tags| -> HashMap<String, u32> { t.references.iter().cloned().collect() };
        let (got, want) = (counts(tokens), counts(skeleton));
        let (mut missing, mut extra) = (0, 0);
        for (name, &n) in &want {
            missing += n.saturating_sub(got.get(name).copied().unwrap_or(0)) as usize;
        }
        for (name, &n) in &got {
            extra += n.saturating_sub(want.get(name).copied().unwrap_or(0)) as usize;
        }
        let total = want.values().map(|&n| n as usize).sum();
        (missing, extra, total)
    }

    /// A file nesting far deeper than `MAX_NESTING` is given to the parse, not walked until the
    /// stack overflows (which would abort the daemon); one nesting a little is answered.
    #[test]
    fn deep_nesting_is_left_to_the_parse() {
        let deep = 100_000;
        let cases = [
            (
                "rust",
                format!(
                    "{}fn f() {{}}{}",
                    "mod a {\n".repeat(deep),
                    "}\n".repeat(deep)
                ),
            ),
            ("rust", format!("{}fn f() {{}}", "pub mod a;\n".repeat(3))),
            (
                "go",
                format!("package p\n\ntype T {}int\n", "*".repeat(deep)),
            ),
            (
                "go",
                format!("package p\n\ntype T {}int\n", "[]".repeat(deep)),
            ),
            (
                "go",
                format!("package p\n\ntype T {}\n", "func() ".repeat(deep)),
            ),
            (
                "go",
                format!("package p\n\nvar v {}int\n", "chan ".repeat(deep)),
            ),
            (
                "go",
                format!(
                    "package p\n\ntype T {}int{}\n",
                    "struct { a ".repeat(deep),
                    " }".repeat(deep)
                ),
            ),
            (
                "go",
                format!(
                    "package p\n\ntype T {}int{}\n",
                    "struct { a ".repeat(8),
                    " }".repeat(8)
                ),
            ),
        ];
        for (i, (name, source)) in cases.iter().enumerate() {
            let language = languages::by_name(name).unwrap();
            let answered = crate::parse_for_tags(language, source.as_bytes(), true)
                .and_then(|l| l.outline)
                .is_some();
            let shallow = !source.contains(&"*".repeat(100)) && source.len() < 1000;
            assert_eq!(answered, shallow, "case {i} ({name})");
        }
    }

    /// Over a tree named by CODERD_TOKEN_CORPUS (a checkout of prometheus, gin, moby): how many
    /// Go files the token finder answers, that each answer is the skeleton's outline item for item
    /// and field for field, and how far its references are from the skeleton's.
    #[test]
    #[ignore = "needs a corpus"]
    fn token_outlines_match_the_skeletons_on_a_corpus() {
        let (mut files, mut answered, mut mismatches) = (0, 0, 0);
        let (mut missing, mut extra, mut total) = (0, 0, 0);
        for (path, language, source) in crate::lexer_corpus("CODERD_TOKEN_CORPUS") {
            files += 1;
            let (tokens, skeleton) = both(language, &source);
            let Some(tokens) = tokens else {
                if std::env::var("CODERD_TOKEN_UNANSWERED").is_ok() {
                    eprintln!("unanswered: {}", path.display());
                }
                continue;
            };
            answered += 1;
            if shape(&tokens) != shape(&skeleton) {
                mismatches += 1;
                eprintln!("mismatch: {}", path.display());
                let (a, b) = (shape(&tokens), shape(&skeleton));
                if let Some((x, y)) = a.iter().zip(&b).find(|(x, y)| x != y) {
                    eprintln!("  tokens:   {x}\n  skeleton: {y}");
                } else {
                    eprintln!("  {} items against {}", a.len(), b.len());
                }
            }
            let (m, e, t) = difference(&tokens, &skeleton);
            if m + e > 0 && std::env::var("CODERD_TOKEN_UNANSWERED").is_ok() {
                let names = |t: &Tags| -> Vec<(String, u32)> { t.references.clone() };
                let (got, want) = (names(&tokens), names(&skeleton));
                let odd: Vec<_> = got.iter().filter(|n| !want.contains(n)).collect();
                let gone: Vec<_> = want.iter().filter(|n| !got.contains(n)).collect();
                eprintln!("uses differ: {}: {odd:?} for {gone:?}", path.display());
            }
            (missing, extra, total) = (missing + m, extra + e, total + t);
        }
        eprintln!(
            "{answered}/{files} files answered; {mismatches} mismatches; uses: {missing} missing, \
             {extra} extra of {total}"
        );
        assert_eq!(mismatches, 0);
    }
}
