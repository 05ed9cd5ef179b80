//! Rust's outline from the lexer's tokens: the items, names, signatures, lines, docs and byte
//! ranges the skeleton's tree gives (`items::extract_definitions` with `queries/rust`), read by a
//! small recursive walk over the item grammar. Function bodies are skipped whole (what they hold
//! is local), a macro call's tokens are read only for the names `tags.scm` says it defines.
//!
//! It answers only when it is sure: anything rare or doubtful (macros 2.0, `default` items, a raw
//! identifier, a block with items in a `const`'s value, a macro call whose names depend on how the
//! grammar tokenizes a keyword) gives `None`, and the file is parsed as before.

use super::TokenOutline;
use crate::docs::{first_doc_line, DocMarkers};
use crate::items::{cap, collapse, tidy_signature, Item, Outline};
use crate::lexer::{is_keyword, Token};
use crate::Kind;
use std::ops::Range;
use std::sync::LazyLock;

/// Rust's comment markers, for the first line of a doc.
static MARKERS: LazyLock<Option<DocMarkers>> =
    LazyLock::new(|| crate::languages::by_name("rust").map(DocMarkers::of));

/// The outline of a Rust file from its tokens and comments (`lexer::lex_with_comments`), with
/// the names the tags query would count otherwise than the lexer (`names`), or `None` when it
/// holds anything the walk is not sure of.
pub(super) fn outline(
    source: &[u8],
    tokens: &[Token],
    comments: &[Range<usize>],
) -> Option<TokenOutline> {
    let (outline, modes) = walk(source, tokens, comments)?;
    let (unreferenced, referenced) = names::differences(source, tokens, &modes);
    Some(TokenOutline {
        outline,
        unreferenced,
        referenced,
    })
}

/// The walk over a file's items: its outline, and how the tree reads each token.
fn walk(
    source: &[u8],
    tokens: &[Token],
    comments: &[Range<usize>],
) -> Option<(Outline, Vec<Mode>)> {
    // A shebang line, or a form the parse masks (`rust_mask`): parsed as before.
    if source.starts_with(b"#!") && !source.starts_with(b"#![") {
        return None;
    }
    let mut walk = Walk::new(source, tokens, comments);
    walk.level(None, None)?;
    let outline = Outline {
        items: walk.items,
        parse_errors: 0,
    };
    Some((outline, walk.modes))
}

/// Where the walk stopped when it gave no outline: the offset of the sibling it could not read.
#[cfg(test)]
pub(super) fn stopped_at(source: &[u8], tokens: &[Token], comments: &[Range<usize>]) -> usize {
    let mut walk = Walk::new(source, tokens, comments);
    walk.level(None, None);
    walk.start(walk.at)
}

/// Words that are no plain identifier everywhere (keywords, contextual keywords, reserved
/// words): a macro call naming one of them where a definition could be is not read.
fn doubtful(word: &[u8]) -> bool {
    is_keyword(crate::lexer::Dialect::Rust, word)
        || matches!(
            word,
            b"Self"
                | b"union"
                | b"default"
                | b"macro_rules"
                | b"auto"
                | b"yield"
                | b"try"
                | b"box"
                | b"raw"
                | b"gen"
                | b"safe"
                | b"macro"
                | b"ref"
                | b"abstract"
                | b"become"
                | b"do"
                | b"final"
                | b"override"
                | b"priv"
                | b"typeof"
                | b"unsized"
                | b"virtual"
        )
}

/// The siblings seen on one level since the last one that does not lead an item.
struct Level {
    /// Where that sibling ends (the level's opening brace's end, 0 at the top).
    after: usize,
    /// The attributes since then.
    attrs: Vec<Range<usize>>,
    /// The `use` declarations since then that the skeleton leaves out (`skeleton::rust_use`):
    /// invisible to the tree, and so are the comments inside them.
    hidden: Vec<Range<usize>>,
}

impl Level {
    fn new(after: usize) -> Level {
        Level {
            after,
            attrs: Vec::new(),
            hidden: Vec::new(),
        }
    }

    fn passed(&mut self, end: usize) {
        self.after = end;
        self.attrs.clear();
        self.hidden.clear();
    }
}

/// One piece of leading matter: its start and its first and last rows.
struct Piece {
    start: usize,
    end: usize,
    first_row: usize,
    last_row: usize,
    comment: bool,
}

struct Walk<'s> {
    source: &'s [u8],
    tokens: &'s [Token],
    comments: &'s [Range<usize>],
    newlines: Vec<usize>,
    at: usize,
    items: Vec<Item>,
    /// How the tree reads each token (`Mode`), for the references (`names::differences`).
    modes: Vec<Mode>,
    /// How many levels the walk is in (`MAX_NESTING`).
    depth: usize,
}

/// Where a token sits, for what the tree makes of it: plain syntax, a function body (which the
/// skeleton's lexer counts), a token tree (a macro call's or an attribute's arguments), a
/// `macro_rules!` body (a token tree with metavariables).
#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) enum Mode {
    Syntax,
    Body,
    Tree,
    Rules,
    /// A shorthand field in a parameter's pattern (`S { a, ref b }: S`): no reference.
    Shorthand,
    /// An `extern crate` declaration, whose `self` and `_` are identifiers.
    Crate,
}

fn end_of(token: &Token) -> usize {
    match token {
        Token::Ident(r) | Token::Lifetime(r) => r.end,
        Token::Punct(_, at) => at + 1,
    }
}

/// Where a token's text starts (a lifetime's at its `'`).
fn start_of(token: &Token) -> usize {
    match token {
        Token::Lifetime(r) => r.start - 1,
        other => other.start(),
    }
}

impl<'s> Walk<'s> {
    fn new(source: &'s [u8], tokens: &'s [Token], comments: &'s [Range<usize>]) -> Walk<'s> {
        Walk {
            source,
            tokens,
            comments,
            newlines: memchr::memchr_iter(b'\n', source).collect(),
            at: 0,
            items: Vec::new(),
            modes: vec![Mode::Syntax; tokens.len()],
            depth: 0,
        }
    }

    fn row(&self, at: usize) -> usize {
        self.newlines.partition_point(|&n| n < at)
    }

    fn word(&self, i: usize) -> Option<&'s [u8]> {
        match self.tokens.get(i)? {
            Token::Ident(r) => Some(&self.source[r.clone()]),
            _ => None,
        }
    }

    fn punct(&self, i: usize) -> Option<u8> {
        match self.tokens.get(i)? {
            Token::Punct(b, _) => Some(*b),
            _ => None,
        }
    }

    fn start(&self, i: usize) -> usize {
        self.tokens.get(i).map_or(self.source.len(), start_of)
    }

    fn end(&self, i: usize) -> usize {
        end_of(&self.tokens[i])
    }

    /// Only whitespace between tokens `i` and `i + 1` (no literal, no comment).
    fn spaced(&self, i: usize) -> bool {
        let (a, b) = (self.end(i), self.start(i + 1));
        self.source[a..b].iter().all(u8::is_ascii_whitespace)
    }

    /// A plain identifier at `i`: no keyword, not raw (`r#x`).
    fn plain(&self, i: usize) -> Option<Range<usize>> {
        match self.tokens.get(i)? {
            Token::Ident(r) if !doubtful(&self.source[r.clone()]) && !self.raw(r) => {
                Some(r.clone())
            }
            _ => None,
        }
    }

    /// An item's, a field's or a variant's name at `i`: an identifier (a contextual keyword like
    /// `union` included), not raw.
    fn name(&self, i: usize) -> Option<Range<usize>> {
        match self.tokens.get(i)? {
            Token::Ident(r) => {
                let word = &self.source[r.clone()];
                // Primitive types' names are the lexer's keywords, and names to the grammar.
                let primitive = crate::lexer::is_rust_primitive(word);
                let keyword = word == b"Self"
                    || (is_keyword(crate::lexer::Dialect::Rust, word) && !primitive);
                (!keyword && !self.raw(r)).then(|| r.clone())
            }
            _ => None,
        }
    }

    /// From the opening delimiter at token `open`: the index of its closer, every kind of
    /// delimiter nested inside matched (`None` where one closes another's opener).
    fn close_of(&self, open: usize) -> Option<usize> {
        let mut open_ones: Vec<u8> = Vec::new();
        for (i, token) in self.tokens[open..].iter().enumerate() {
            match token {
                Token::Punct(b @ (b'(' | b'[' | b'{'), _) => open_ones.push(*b),
                Token::Punct(b @ (b')' | b']' | b'}'), _) => {
                    let opener = match b {
                        b')' => b'(',
                        b']' => b'[',
                        _ => b'{',
                    };
                    if open_ones.pop() != Some(opener) {
                        return None;
                    }
                    if open_ones.is_empty() {
                        return Some(open + i);
                    }
                }
                Token::Ident(r) if self.raw(r) => return None,
                _ => {}
            }
        }
        None
    }

    /// Marks tokens `range` as read in `mode`.
    fn mark(&mut self, range: Range<usize>, mode: Mode) {
        if let Some(modes) = self.modes.get_mut(range) {
            modes.fill(mode);
        }
    }

    /// `r#name`: lexed as `r`, `#`, `name`; the grammar reads one identifier.
    fn raw(&self, r: &Range<usize>) -> bool {
        &self.source[r.clone()] == b"r" && self.source.get(r.end) == Some(&b'#')
    }

    /// The items of one level up to its closing brace (the file's end at the top), with `parent`
    /// their enclosing item; the closer's token index.
    fn level(&mut self, parent: Option<usize>, open: Option<usize>) -> Option<usize> {
        if self.depth == super::MAX_NESTING {
            return None;
        }
        self.depth += 1;
        let closer = self.siblings(parent, open);
        self.depth -= 1;
        closer
    }

    /// `level`'s walk, `depth` counted.
    fn siblings(&mut self, parent: Option<usize>, open: Option<usize>) -> Option<usize> {
        let mut level = Level::new(open.map_or(0, |i| self.end(i)));
        loop {
            // Between siblings only whitespace and comments: a literal or number there, or one
            // left open to the file's end, is a syntax error the tree would count.
            let previous = self.at.checked_sub(1).map_or(0, |i| self.end(i));
            let Some(token) = self.tokens.get(self.at) else {
                let closed = self.clean_gap(previous, self.source.len()) && self.closed();
                return (open.is_none() && closed).then_some(self.at);
            };
            if !self.clean_gap(previous, start_of(token)) {
                return None;
            }
            match token {
                Token::Punct(b'}', _) if open.is_some() => {
                    self.at += 1;
                    return Some(self.at - 1);
                }
                Token::Punct(b'#', _) => {
                    let attribute = self.attribute()?;
                    level.attrs.push(attribute);
                }
                _ => match self.item(parent, &level)? {
                    Sibling::Hidden(range) => {
                        // The skeleton leaves it out and its lexer counts its names.
                        let first = self.tokens.partition_point(|t| t.start() < range.start);
                        self.mark(first..self.at, Mode::Body);
                        level.hidden.push(range)
                    }
                    Sibling::Passed(end) => level.passed(end),
                },
            }
        }
    }

    /// Whether only whitespace and comments are between offsets `from` and `to`.
    fn clean_gap(&self, from: usize, to: usize) -> bool {
        let mut at = from;
        let first = self.comments.partition_point(|c| c.start < from);
        for comment in self.comments[first..].iter().take_while(|c| c.start < to) {
            if !self.source[at..comment.start]
                .iter()
                .all(u8::is_ascii_whitespace)
            {
                return false;
            }
            at = comment.end;
        }
        at >= to || self.source[at..to].iter().all(u8::is_ascii_whitespace)
    }

    /// Whether the file's last comment, when a block comment, is closed (the lexer runs an open
    /// one to the file's end).
    fn closed(&self) -> bool {
        let Some(last) = self.comments.last() else {
            return true;
        };
        let text = &self.source[last.clone()];
        if !text.starts_with(b"/*") {
            return true;
        }
        let mut depth = 0usize;
        let mut i = 0;
        while i + 1 < text.len() {
            match &text[i..i + 2] {
                b"/*" => {
                    depth += 1;
                    i += 2;
                }
                b"*/" => {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        return i == text.len();
                    }
                }
                _ => i += 1,
            }
        }
        false
    }

    /// `#[…]` or `#![…]`: its range, the cursor after it. A macro call inside that defines a name
    /// is not read.
    fn attribute(&mut self) -> Option<Range<usize>> {
        let start = self.start(self.at);
        let mut open = self.at + 1;
        if self.punct(open) == Some(b'!') {
            open += 1;
        }
        if self.punct(open) != Some(b'[') {
            return None;
        }
        let close = self.close_of(open)?;
        // `#[path(…)]`: the arguments are a token tree.
        let mut path = open + 1;
        while self.word(path).is_some() || self.punct(path) == Some(b':') {
            path += 1;
        }
        if path < close && matches!(self.punct(path), Some(b'(' | b'[' | b'{')) {
            self.mark(path..self.close_of(path)? + 1, Mode::Tree);
        }
        let before = self.items.len();
        self.macros_in(open + 1, close, None)?;
        if self.items.len() != before {
            return None;
        }
        self.at = close + 1;
        Some(start..self.end(close))
    }

    /// The token after a visibility (`pub`, `pub(crate)`, …) at `i`, or `i` without one.
    fn after_visibility(&self, i: usize) -> Option<usize> {
        if self.word(i) != Some(b"pub") {
            return Some(i);
        }
        match self.punct(i + 1) {
            Some(b'(') => Some(self.close_of(i + 1)? + 1),
            _ => Some(i + 1),
        }
    }

    /// One item-level sibling from the cursor.
    fn item(&mut self, parent: Option<usize>, level: &Level) -> Option<Sibling> {
        let first = self.at;
        let i = self.after_visibility(first)?;
        let word = self.word(i)?;
        let next = self.word(i + 1);
        let item = Head { first, at: i };
        match word {
            b"fn" => self.function(item, parent, level),
            b"struct" => self.structure(item, Kind::Struct, parent, level),
            b"union" if self.plain(i + 1).is_some() => {
                self.structure(item, Kind::Struct, parent, level)
            }
            b"enum" => self.enumeration(item, parent, level),
            b"trait" => self.container(item, Kind::Trait, parent, level),
            b"mod" => self.container(item, Kind::Module, parent, level),
            b"impl" => self.implementation(item, parent, level),
            b"type" => self.declaration(item, Kind::Type, parent, level),
            b"static" => self.declaration(item, Kind::Var, parent, level),
            b"const" if !matches!(next, Some(b"fn" | b"unsafe" | b"async" | b"extern")) => {
                self.declaration(item, Kind::Const, parent, level)
            }
            b"unsafe" if matches!(next, Some(b"impl")) => {
                self.implementation(Head { at: i + 1, ..item }, parent, level)
            }
            b"unsafe" if matches!(next, Some(b"trait")) => {
                let head = Head { at: i + 1, ..item };
                self.container(head, Kind::Trait, parent, level)
            }
            b"use" => self.use_declaration(item),
            b"extern" if next == Some(b"crate") => {
                let sibling = self.through_semicolon(i)?;
                self.mark(i..self.at, Mode::Crate);
                Some(sibling)
            }
            b"extern" if self.punct(i + 1) == Some(b'{') && i == first => {
                self.foreign(i + 1, parent)
            }
            b"async" | b"const" | b"unsafe" | b"extern" => {
                let mut at = i;
                while matches!(
                    self.word(at),
                    Some(b"async" | b"const" | b"unsafe" | b"extern")
                ) {
                    at += 1;
                }
                if self.word(at) != Some(b"fn") {
                    return None;
                }
                self.function(Head { at, ..item }, parent, level)
            }
            b"macro_rules" if i == first => self.macro_rules(parent, level),
            _ if i == first => self.macro_call(parent),
            _ => None,
        }
    }

    /// Pushes an item; its extent and doc from `level`'s leading matter.
    fn push(&mut self, found: Found, level: &Level) -> usize {
        let (extent_row, doc) = self.lead(level, found.bytes.start);
        self.push_led(found, extent_row, doc)
    }

    fn push_led(&mut self, found: Found, extent_row: usize, doc: Option<String>) -> usize {
        let holds = found
            .parent
            .is_some_and(|p| self.items[p].kind.holds_members());
        let kind = match (found.kind, holds) {
            (Kind::Function, true) => Kind::Method,
            (Kind::Var, true) => Kind::Field,
            (kind, _) => kind,
        };
        let name = &self.source[found.name.clone()];
        self.items.push(Item {
            kind,
            name: collapse(&String::from_utf8_lossy(name)),
            signature: cap(tidy_signature(&found.signature)),
            line: self.row(found.name.start) + 1,
            end_line: self.row(found.bytes.end) + 1,
            parent: found.parent,
            parent_name: None,
            doc: doc.map(cap),
            bytes: found.bytes,
            name_bytes: found.name,
            extent_line: extent_row + 1,
        });
        self.items.len() - 1
    }

    /// The signature of an item with a body: its text before the body, whitespace collapsed.
    fn before_body(&self, start: usize, body: usize) -> String {
        let end = self.end(body - 1).max(start);
        collapse(&String::from_utf8_lossy(&self.source[start..end]))
    }

    /// The signature of an item without one: its first line.
    fn first_line(&self, bytes: &Range<usize>) -> String {
        let text = String::from_utf8_lossy(&self.source[bytes.clone()]);
        collapse(text.lines().next().unwrap_or(""))
    }

    /// The row an item's leading matter starts on, and its doc (`docs::extent`): the run of
    /// attributes and comments right before `start` on its level, each adjacent to the next and
    /// starting its line.
    fn lead(&self, level: &Level, start: usize) -> (usize, Option<String>) {
        let mut pieces: Vec<Piece> = Vec::with_capacity(level.attrs.len() + 2);
        for attr in &level.attrs {
            pieces.push(self.piece(attr.clone(), false));
        }
        let first = self.comments.partition_point(|c| c.start < level.after);
        let inside = |c: &Range<usize>, ranges: &[Range<usize>]| {
            ranges.iter().any(|r| r.start <= c.start && c.end <= r.end)
        };
        for comment in self.comments[first..].iter().take_while(|c| c.end <= start) {
            if !inside(comment, &level.attrs) && !inside(comment, &level.hidden) {
                pieces.push(self.piece(comment.clone(), true));
            }
        }
        if !level.attrs.is_empty() && pieces.len() > level.attrs.len() {
            pieces.sort_by_key(|p| p.start);
        }
        let mut first_row = self.row(start);
        let mut at_row = first_row;
        let mut doc_start = None;
        while let Some(piece) = pieces.pop() {
            let adjacent = piece.last_row + 1 >= at_row;
            if !adjacent || !self.starts_its_line(piece.start) {
                break;
            }
            if piece.comment {
                doc_start = Some(piece.start..piece.end);
            }
            first_row = piece.first_row;
            at_row = piece.first_row;
        }
        let doc = doc_start.and_then(|c| {
            let text = String::from_utf8_lossy(&self.source[c.start..start.max(c.end)]);
            first_doc_line(&text, MARKERS.as_ref()?)
        });
        (first_row, doc)
    }

    fn piece(&self, bytes: Range<usize>, comment: bool) -> Piece {
        let text = &self.source[bytes.clone()];
        // tree-sitter-rust's line doc comment holds its newline (`skeleton::ends_on_next_row`).
        let line_doc =
            text.starts_with(b"//!") || (text.starts_with(b"///") && !text.starts_with(b"////"));
        let next_row = comment && line_doc && self.source.get(bytes.end) == Some(&b'\n');
        Piece {
            start: bytes.start,
            end: bytes.end,
            first_row: self.row(bytes.start),
            last_row: self.row(bytes.end) + usize::from(next_row),
            comment,
        }
    }

    fn starts_its_line(&self, start: usize) -> bool {
        let line_start = self.source[..start]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        self.source[line_start..start]
            .iter()
            .all(u8::is_ascii_whitespace)
    }
}

/// What an item-level sibling leaves for the next one's leading matter.
enum Sibling {
    /// It ends here and does not lead.
    Passed(usize),
    /// A `use` the skeleton leaves out of its tree.
    Hidden(Range<usize>),
}

/// Where an item starts (its first token, `pub` included) and its keyword's token.
#[derive(Clone, Copy)]
struct Head {
    first: usize,
    at: usize,
}

/// An item before it is pushed.
struct Found {
    kind: Kind,
    name: Range<usize>,
    bytes: Range<usize>,
    signature: String,
    parent: Option<usize>,
}

mod forms;
mod macros;
mod names;

#[cfg(test)]
mod tests;
