//! Outlines read from a file's tokens alone, without tree-sitter, for the map's tagger: where a
//! dialect's finder proves nothing in the file is unusual, its outline is exactly the skeleton's
//! (`skeleton`, `items::extract_definitions`) and the file is not parsed at all; `None` otherwise.

mod rust;

use super::items::Outline;
use super::lexer::{Dialect, Token};
use std::ops::Range;

/// The outline of `source` from its tokens and comments (`lexer::lex_with_comments`), when the
/// dialect's finder is sure of it. (The map's tagger takes `tags`, with the references.)
#[cfg(test)]
pub fn outline(
    dialect: Dialect,
    source: &[u8],
    tokens: &[Token],
    comments: &[Range<usize>],
) -> Option<Outline> {
    match dialect {
        Dialect::Rust => rust::outline(source, tokens, comments),
        Dialect::Go => None,
    }
}

/// `outline`, and the file's references (names and use counts, sorted) as the skeleton's tagger
/// would count them.
pub fn tags(
    dialect: Dialect,
    source: &[u8],
    tokens: &[Token],
    comments: &[Range<usize>],
) -> Option<(Outline, Vec<(String, u32)>)> {
    match dialect {
        Dialect::Rust => rust::tags(source, tokens, comments),
        Dialect::Go => None,
    }
}
