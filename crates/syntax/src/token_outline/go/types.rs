//! Go's types as the token finder (`go`) reads them: a struct's fields and an interface's methods
//! are items nested under what holds the type; inside an interface method's signature they are
//! local (`Finder::local`), and inside a parameter list or an index they answer `None` (rare).
//! A qualified type's package name (`pkg.T`) is tree-sitter's `package_identifier`, which the
//! tags query does not count: it is no reference (`TokenOutline::unreferenced`).

use super::{Finder, Signature};
use crate::lexer::{is_keyword, Dialect, Token};
use crate::Kind;
use std::ops::Range;

impl Finder<'_> {
    /// `flat_close` over a group of types (parameters, type arguments, a map's key).
    pub(super) fn skip_flat(&mut self, open: usize) -> Option<usize> {
        let close = self.flat_close(open)?;
        self.types_in(open..close);
        Some(close)
    }

    /// A group of types skipped whole: its qualified types' package names are no references.
    pub(super) fn skip_types(&mut self, open: usize) -> Option<usize> {
        let close = self.skip_group(open)?;
        self.types_in(open..close);
        Some(close)
    }

    pub(super) fn types_in(&mut self, tokens: Range<usize>) {
        let mut i = tokens.start;
        while i < tokens.end {
            // An array's length (`[pkg.N]T`) is an expression; a `[` right after a name or `map`
            // holds types (`T[pkg.U]`, `map[pkg.K]V`: gofmt leaves no space there).
            let types = i > 0
                && self.end(i - 1) == self.start(i)
                && (self.name(i - 1).is_some() || self.is_word(i - 1, b"map"));
            let length = self.is(i, b'[') && !types;
            match length {
                true => i = self.skip_group(i).unwrap_or(tokens.end),
                false => self.qualifier(i),
            }
            i += 1;
        }
    }

    /// In a type, `pkg.T`: tree-sitter's `package_identifier`, which the tags query does not count.
    pub(super) fn qualifier(&mut self, i: usize) {
        if self.is(i + 1, b'.') && self.name(i).is_some() && self.name(i + 2).is_some() {
            self.unreferenced.push(self.start(i));
        }
    }

    /// One type, its struct fields and interface methods nested under `parent`.
    pub(super) fn ty(&mut self, parent: Option<usize>) -> Option<()> {
        if self.depth == super::super::MAX_NESTING {
            return None;
        }
        self.depth += 1;
        let found = self.one_type(parent);
        self.depth -= 1;
        found
    }

    /// `ty`'s walk, `depth` counted.
    fn one_type(&mut self, parent: Option<usize>) -> Option<()> {
        let i = self.at;
        match self.tokens.get(i)? {
            Token::Punct(b'*', _) => {
                self.at += 1;
                self.ty(parent)
            }
            // `[]T`, `[N]T`: the length is an expression.
            Token::Punct(b'[', _) => {
                self.at = self.flat_close(i)? + 1;
                self.ty(parent)
            }
            Token::Punct(b'(', _) => {
                self.at = self.skip_flat(i)? + 1;
                Some(())
            }
            // `<-chan T`
            Token::Punct(b'<', _) if self.is(i + 1, b'-') && self.is_word(i + 2, b"chan") => {
                self.at += 3;
                self.ty(parent)
            }
            Token::Ident(_) => self.word_type(parent),
            _ => None,
        }
    }

    fn word_type(&mut self, parent: Option<usize>) -> Option<()> {
        let i = self.at;
        self.at += 1;
        match self.word(i)? {
            b"struct" | b"interface" if self.local && self.is(i + 1, b'{') => {
                self.at = self.skip_types(i + 1)? + 1;
                Some(())
            }
            b"struct" if self.is(i + 1, b'{') => {
                self.at += 1;
                self.fields(parent)
            }
            b"interface" if self.is(i + 1, b'{') => {
                self.at += 1;
                self.elements(parent)
            }
            b"map" if self.is(i + 1, b'[') => {
                self.at += 1;
                let close = self.skip_flat(i + 1)?;
                self.at = close + 1;
                self.ty(parent)
            }
            b"chan" => {
                if self.is(self.at, b'<') && self.is(self.at + 1, b'-') {
                    self.at += 2;
                }
                self.ty(parent)
            }
            b"func" => self.func_type(parent),
            word if is_keyword(Dialect::Go, word) => None,
            _ => {
                // `T`, `pkg.T`, `T[A, B]`.
                self.qualifier(i);
                if self.is(self.at, b'.') {
                    self.name(self.at + 1)?;
                    self.at += 2;
                }
                if self.is(self.at, b'[') {
                    self.at = self.skip_flat(self.at)? + 1;
                }
                Some(())
            }
        }
    }

    /// After `func` in a type: `(parameters) [result]`.
    fn func_type(&mut self, parent: Option<usize>) -> Option<()> {
        if !self.is(self.at, b'(') {
            return None;
        }
        self.at = self.skip_flat(self.at)? + 1;
        if !self.breaks_after(self.at - 1) && self.type_starts(self.at) {
            return self.ty(parent);
        }
        Some(())
    }

    fn type_starts(&self, i: usize) -> bool {
        match self.tokens.get(i) {
            Some(Token::Ident(r)) => {
                let word = &self.source[r.clone()];
                !is_keyword(Dialect::Go, word)
                    || matches!(word, b"struct" | b"interface" | b"map" | b"chan" | b"func")
            }
            Some(Token::Punct(b, _)) => matches!(b, b'*' | b'[' | b'(' | b'<'),
            _ => false,
        }
    }

    /// A struct's fields, after its `{`, through its `}`.
    fn fields(&mut self, parent: Option<usize>) -> Option<()> {
        loop {
            match self.tokens.get(self.at)? {
                Token::Punct(b'}', _) => {
                    self.at += 1;
                    return Some(());
                }
                Token::Punct(b';', _) => self.at += 1,
                _ => self.field(parent)?,
            }
        }
    }

    /// `a, b Type [tag]` (an item per name), or an embedded `[*]T [tag]` (no item).
    fn field(&mut self, parent: Option<usize>) -> Option<()> {
        let first = self.at;
        let start = self.start(first);
        if self.embedded(first)? {
            self.ty(None)?;
            self.stop(self.at - 1)?;
            return Some(());
        }
        let mut names = Vec::new();
        loop {
            let name = self.name(self.at)?;
            names.push(self.push(Kind::Field, name, parent, first));
            self.at += 1;
            if !self.is(self.at, b',') {
                break;
            }
            self.at += 1;
        }
        self.ty(names.last().copied())?;
        let end = self.stop(self.at - 1)?;
        self.complete(&names, start..end, Signature::FirstLine(start..end));
        Some(())
    }

    /// Whether the field at `first` is an embedded type rather than named fields.
    fn embedded(&self, first: usize) -> Option<bool> {
        if self.is(first, b'*') {
            return Some(true);
        }
        self.name(first)?;
        Some(match self.tokens.get(first + 1)? {
            Token::Punct(b'.' | b';' | b'}', _) => true,
            Token::Punct(b',', _) => false,
            // `T[int]` alone is an embedded generic type; `a [4]int` a field.
            Token::Punct(b'[', _) => {
                let close = self.flat_close(first + 1)?;
                self.stop(close).is_some()
            }
            _ => self.stop(first).is_some(),
        })
    }

    /// An interface's elements, after its `{`, through its `}`: methods are items; embedded
    /// interfaces and type sets (`~int | ~string`) are not.
    fn elements(&mut self, parent: Option<usize>) -> Option<()> {
        loop {
            let first = self.at;
            match self.tokens.get(first)? {
                Token::Punct(b'}', _) => {
                    self.at += 1;
                    return Some(());
                }
                Token::Punct(b';', _) => self.at += 1,
                _ if self.name(first).is_some() && self.is(first + 1, b'(') => {
                    let name = self.name(first)?;
                    let index = self.push(Kind::Method, name.clone(), parent, first);
                    self.at += 1;
                    self.local = true;
                    let found = self.func_type(None);
                    self.local = false;
                    found?;
                    let end = self.stop(self.at - 1)?;
                    self.complete(
                        &[index],
                        name.start..end,
                        Signature::FirstLine(name.start..end),
                    );
                }
                _ => self.type_element()?,
            }
        }
    }

    /// `[~]T | [~]U …`.
    fn type_element(&mut self) -> Option<()> {
        loop {
            if self.is(self.at, b'~') {
                self.at += 1;
            }
            self.ty(None)?;
            if !self.is(self.at, b'|') {
                break;
            }
            self.at += 1;
        }
        self.stop(self.at - 1).map(|_| ())
    }
}
