//! Where the names of a file the token walk outlined (`super::outline`) are counted otherwise by
//! the tags query on the skeleton's tree (`identifier`, `type_identifier`, `field_identifier`
//! nodes: `queries/rust/tags.scm`) than by the lexer's rule (`skeleton::names`: every word but a
//! keyword, every lifetime), which the map's tagger applies to the whole file
//! (`tags::tag_tokens`). Inside function bodies and left-out `use` declarations the skeleton
//! counts by the lexer's rule too.

use super::Mode;
use crate::lexer::{is_keyword, Dialect, Token};
use std::ops::Range;

/// (where the names start the lexer's rule counts and the tree does not, the names the tree
/// counts and the lexer's rule does not).
pub(super) fn differences(
    source: &[u8],
    tokens: &[Token],
    modes: &[Mode],
) -> (Vec<usize>, Vec<Range<usize>>) {
    let (mut unreferenced, mut referenced) = (Vec::new(), Vec::new());
    for (i, token) in tokens.iter().enumerate() {
        let (Token::Ident(r) | Token::Lifetime(r)) = token else {
            continue;
        };
        let word = &source[r.clone()];
        // A lifetime or label holds an identifier, whatever its name (`'static` too).
        let lifetime = matches!(token, Token::Lifetime(_));
        let lexer = lifetime || !is_keyword(Dialect::Rust, word);
        let tree = match modes[i] {
            Mode::Body => lexer,
            // `macro_rules!` is one keyword token to the grammar.
            Mode::Syntax => {
                (lexer && !macro_rules(source, tokens, i) && !union_item(word, tokens, i))
                    || primitive_path(word, tokens, i)
                    || unnamed_const(word, source, tokens, i)
                    || primitive_binding(word, tokens, i)
            }
            Mode::Tree => in_tree(word),
            Mode::Rules => in_tree(word) && !metavariable(source, tokens, i),
            Mode::Shorthand => false,
            // `extern crate self as _;`: both are identifiers there.
            Mode::Crate => !matches!(word, b"extern" | b"crate" | b"as"),
        };
        match (lexer, tree) {
            (true, false) => unreferenced.push(r.start),
            (false, true) => referenced.push(r.clone()),
            _ => {}
        }
    }
    (unreferenced, referenced)
}

/// Whether a word is an `identifier` in a token tree, where tree-sitter-rust reads most keywords
/// as their own tokens but some as identifiers (`dyn`, `ref`, `move`, …), and `union`, `default`
/// and `gen` as keywords.
fn in_tree(word: &[u8]) -> bool {
    let identifier_there = matches!(
        word,
        b"dyn" | b"else" | b"extern" | b"in" | b"move" | b"ref"
    );
    let keyword_there = matches!(word, b"union" | b"default" | b"gen");
    (identifier_there || !is_keyword(Dialect::Rust, word)) && !keyword_there
}

/// A primitive type's name as a path's segment (`u32::MAX`, `std::str::from_utf8`): an
/// identifier to the grammar.
fn primitive_path(word: &[u8], tokens: &[Token], i: usize) -> bool {
    let primitive = primitive(word);
    let colon = |j: usize| matches!(tokens.get(j), Some(Token::Punct(b':', _)));
    primitive && colon(i + 1) && colon(i + 2)
}

/// A primitive type's name bound by a parameter (`fn f(u32: u32)`): an identifier there.
fn primitive_binding(word: &[u8], tokens: &[Token], i: usize) -> bool {
    let colon = |j: usize| matches!(tokens.get(j), Some(Token::Punct(b':', _)));
    primitive(word) && colon(i + 1) && !colon(i + 2) && !(i > 0 && colon(i - 1))
}

fn primitive(word: &[u8]) -> bool {
    crate::lexer::is_rust_primitive(word)
}

/// `const _`: the `_` is an identifier there.
fn unnamed_const(word: &[u8], source: &[u8], tokens: &[Token], i: usize) -> bool {
    let after_const =
        i > 0 && matches!(&tokens[i - 1], Token::Ident(r) if &source[r.clone()] == b"const");
    word == b"_" && after_const
}

/// `union U { … }`: the grammar's keyword there.
fn union_item(word: &[u8], tokens: &[Token], i: usize) -> bool {
    word == b"union" && matches!(tokens.get(i + 1), Some(Token::Ident(_)))
}

fn macro_rules(source: &[u8], tokens: &[Token], i: usize) -> bool {
    let Token::Ident(r) = &tokens[i] else {
        return false;
    };
    &source[r.clone()] == b"macro_rules"
        && matches!(tokens.get(i + 1), Some(Token::Punct(b'!', at)) if *at == r.end)
}

/// In a `macro_rules!` body: `$name` (a metavariable) or the fragment specifier after `$name:`.
fn metavariable(source: &[u8], tokens: &[Token], i: usize) -> bool {
    let dollar = |j: usize, start: usize| matches!(tokens.get(j), Some(Token::Punct(b'$', at)) if at + 1 == start);
    let Token::Ident(r) = &tokens[i] else {
        return false;
    };
    if i > 0 && dollar(i - 1, r.start) {
        return true;
    }
    let fragment = matches!(
        &source[r.clone()],
        b"ident"
            | b"expr"
            | b"expr_2021"
            | b"tt"
            | b"ty"
            | b"path"
            | b"pat"
            | b"pat_param"
            | b"stmt"
            | b"block"
            | b"item"
            | b"meta"
            | b"vis"
            | b"literal"
            | b"lifetime"
    );
    fragment
        && i >= 3
        && matches!(tokens[i - 1], Token::Punct(b':', _))
        && matches!(&tokens[i - 2], Token::Ident(name) if dollar(i - 3, name.start))
}
