//! Macros in Rust's token outline (`super`): `macro_rules!` definitions, and the names a macro
//! call defines by `tags.scm`'s patterns (a braced list's entries, the name after a declaring
//! keyword), read from its tokens where the grammar's reading of them is certain.

use super::{Found, Level, Mode, Sibling, Walk};
use crate::lexer::Token;
use crate::Kind;
use std::ops::Range;

impl Walk<'_> {
    /// `macro_rules! name { … }` (or `( … );`).
    pub(super) fn macro_rules(&mut self, parent: Option<usize>, level: &Level) -> Option<Sibling> {
        let first = self.at;
        let bang = self.tokens.get(first + 1)?;
        if !matches!(bang, Token::Punct(b'!', at) if *at == self.end(first)) {
            return None;
        }
        let name = self.name(first + 2)?;
        let open = first + 3;
        let delimiter = self.punct(open)?;
        let mut end = self.close_of(open)?;
        self.mark(open..end + 1, Mode::Rules);
        // A lone `$` in a rule (`$ )`) is an error to the grammar.
        let lone = (open..end).any(|i| {
            self.punct(i) == Some(b'$')
                && !(self.start(i + 1) == self.end(i)
                    && (self.word(i + 1).is_some() || self.punct(i + 1) == Some(b'(')))
        });
        if lone {
            return None;
        }
        if delimiter != b'{' {
            if self.punct(end + 1) != Some(b';') {
                return None;
            }
            end += 1;
        }
        let start = self.start(first);
        let bytes = start..self.end(end);
        let found = Found {
            kind: Kind::Macro,
            name,
            signature: self.first_line(&bytes),
            bytes: bytes.clone(),
            parent,
        };
        self.push(found, level);
        self.at = end + 1;
        Some(Sibling::Passed(bytes.end))
    }

    /// An item-level macro call, `path::name! ( … );` or `{ … }`: the names it defines.
    pub(super) fn macro_call(&mut self, parent: Option<usize>) -> Option<Sibling> {
        let mut i = self.at;
        let first = self.word(i)?;
        if !matches!(first, b"crate" | b"self" | b"super") {
            self.plain(i)?;
        }
        while self.punct(i + 1) == Some(b':') && self.punct(i + 2) == Some(b':') {
            i += 3;
            self.plain(i)?;
        }
        if self.punct(i + 1) != Some(b'!') {
            return None;
        }
        let open = i + 2;
        let delimiter = self.punct(open)?;
        if !matches!(delimiter, b'(' | b'[' | b'{') {
            return None;
        }
        let mut end = self.close_of(open)?;
        self.defines(open, end, parent)?;
        if delimiter != b'{' || self.punct(end + 1) == Some(b';') {
            if self.punct(end + 1) != Some(b';') {
                return None;
            }
            end += 1;
        }
        self.at = end + 1;
        Some(Sibling::Passed(self.end(end)))
    }

    /// The macro calls among tokens `from..to` (`name!` then a group): the names they define,
    /// under `parent`.
    pub(super) fn macros_in(
        &mut self,
        from: usize,
        to: usize,
        parent: Option<usize>,
    ) -> Option<()> {
        let mut i = from;
        while i < to {
            let call = self.word(i).is_some()
                && self.punct(i + 1) == Some(b'!')
                && matches!(self.punct(i + 2), Some(b'(' | b'[' | b'{'));
            if call {
                let close = self.close_of(i + 2)?;
                self.defines(i + 2, close, parent)?;
                i = close;
            }
            i += 1;
        }
        Some(())
    }

    /// The names a macro call's group (`open..=close`) defines by `tags.scm`'s patterns: an
    /// entry of a braced comma list, or the name after a declaring keyword in the group or one
    /// level of brackets inside it. `None` where the grammar's reading is in doubt.
    fn defines(&mut self, open: usize, close: usize, parent: Option<usize>) -> Option<()> {
        self.mark(open..close + 1, Mode::Tree);
        let braced = self.punct(open) == Some(b'{');
        let mut depth = 0usize;
        for i in open..=close {
            match &self.tokens[i] {
                Token::Punct(b'(' | b'[' | b'{', _) => depth += 1,
                Token::Punct(b')' | b']' | b'}', _) => depth -= 1,
                Token::Ident(r) if self.raw(r) => return None,
                Token::Ident(r) => {
                    let word = &self.source[r.clone()];
                    if word == b"union" {
                        return None;
                    }
                    if braced && depth == 1 && self.entry(i, open, close)? {
                        self.define(Kind::Const, r.clone(), parent);
                    }
                    if let Some(kind) = declares(word, depth) {
                        if let Some(name) = self.declared(i, kind)? {
                            self.define(kind, name, parent);
                        }
                    }
                }
                _ => {}
            }
        }
        Some(())
    }

    /// Whether the identifier at `i` is an entry of a braced list: after the `{` or a `,`, before
    /// a `,`, a `=` or the `}`. `None` when it is and is no plain identifier, or where a literal
    /// or a comment sits beside it.
    fn entry(&self, i: usize, open: usize, close: usize) -> Option<bool> {
        let after_start = i - 1 == open || self.punct(i - 1) == Some(b',');
        let next = self.punct(i + 1);
        let before_end = i + 1 == close
            || next == Some(b',')
            || (next == Some(b'=')
                && !matches!(self.tokens.get(i + 2), Some(Token::Punct(b'>' | b'=', at)) if *at == self.end(i + 1)));
        if !(after_start && before_end) {
            return Some(false);
        }
        if !self.spaced(i - 1) || !self.spaced(i) {
            return None;
        }
        self.plain(i).map(|_| true)
    }

    /// After a declaring keyword at `i`: the name it declares, none when a group or a
    /// metavariable follows, `None` when in doubt.
    fn declared(&self, i: usize, kind: Kind) -> Option<Option<Range<usize>>> {
        if !self.spaced(i) {
            return None;
        }
        match self.tokens.get(i + 1)? {
            Token::Punct(b'(' | b'[' | b'{' | b')' | b']' | b'}', _) => Some(None),
            Token::Punct(b'$', at) if self.start(i + 2) == at + 1 && self.word(i + 2).is_some() => {
                Some(None)
            }
            Token::Ident(r) if kind == Kind::Var && &self.source[r.clone()] == b"ref" => {
                if !self.spaced(i + 1) {
                    return None;
                }
                self.plain(i + 2).map(Some)
            }
            Token::Ident(_) => self.plain(i + 1).map(Some),
            _ => None,
        }
    }

    /// Pushes a name a macro call defines: the identifier is the item.
    fn define(&mut self, kind: Kind, name: Range<usize>, parent: Option<usize>) {
        let row = self.row(name.start);
        let found = Found {
            kind,
            signature: self.first_line(&name),
            bytes: name.clone(),
            name,
            parent,
        };
        self.push_led(found, row, None);
    }
}

/// The kind a declaring keyword gives the name after it in a macro call, at a depth of brackets
/// (1: the call's own group).
fn declares(word: &[u8], depth: usize) -> Option<Kind> {
    let kind = match word {
        b"struct" => Kind::Struct,
        b"enum" => Kind::Enum,
        b"trait" if depth == 1 => Kind::Trait,
        b"type" => Kind::Type,
        b"fn" => Kind::Function,
        b"mod" if depth == 1 => Kind::Module,
        b"const" => Kind::Const,
        b"static" => Kind::Var,
        _ => return None,
    };
    (depth <= 2).then_some(kind)
}
