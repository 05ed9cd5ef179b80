//! The item forms of Rust's token outline (`super`): each reads one form from the cursor, pushes
//! its items and returns what it leaves for the next sibling's leading matter.

use super::{Found, Head, Level, Mode, Sibling, Walk};
use crate::lexer::Token;
use crate::skeleton::breaks_use;
use crate::Kind;
use std::ops::Range;

/// Words that open an item inside a value: a block holding items, which the walk does not read.
fn opens_item(word: &[u8]) -> bool {
    matches!(
        word,
        b"struct"
            | b"enum"
            | b"trait"
            | b"impl"
            | b"mod"
            | b"macro_rules"
            | b"static"
            | b"type"
            | b"union"
            | b"macro"
    )
}

impl Walk<'_> {
    /// `fn name …` with a body (skipped whole) or a `;`.
    pub(super) fn function(
        &mut self,
        head: Head,
        parent: Option<usize>,
        level: &Level,
    ) -> Option<Sibling> {
        let name = self.name(head.at + 1)?;
        let (end, body) = self.header(head.at + 2, false)?;
        if !self.parameters_then(head.at + 2, end) {
            return None;
        }
        self.mark_shorthands(head.at + 2, end);
        let start = self.start(head.first);
        let (close, signature) = match body {
            b'{' => {
                let close = self.close_of(end)?;
                self.mark(end + 1..close, Mode::Body);
                (close, self.before_body(start, end))
            }
            b';' => (end, self.first_line(&(start..self.end(end)))),
            _ => return None,
        };
        let bytes = start..self.end(close);
        self.at = close + 1;
        let kind = Kind::Function;
        let found = Found {
            kind,
            name,
            bytes: bytes.clone(),
            signature,
            parent,
        };
        self.push(found, level);
        Some(Sibling::Passed(bytes.end))
    }

    /// Whether a function's header (tokens `from..end`, after its name) has its generics and
    /// parameters, then `->`, `where` or its end (not `fn f() u8`).
    fn parameters_then(&self, from: usize, end: usize) -> bool {
        let mut at = from;
        if self.punct(at) == Some(b'<') {
            match self.angle_close(at) {
                Some(close) => at = close + 1,
                None => return false,
            }
        }
        if self.punct(at) != Some(b'(') {
            return false;
        }
        let Some(close) = self.close_of(at) else {
            return false;
        };
        let next = close + 1;
        next == end
            || self.word(next) == Some(b"where")
            || (self.punct(next) == Some(b'-') && self.punct(next + 1) == Some(b'>'))
    }

    /// Marks the shorthand fields of the struct patterns among a function's parameters (tokens
    /// `from..to`): `S { a, ref mut b, .. }` binds `a` and `b`, which the grammar names no
    /// reference.
    fn mark_shorthands(&mut self, from: usize, to: usize) {
        let mut groups: Vec<u8> = Vec::new();
        for i in from..to {
            match &self.tokens[i] {
                Token::Punct(b @ (b'(' | b'[' | b'{'), _) => groups.push(*b),
                Token::Punct(b')' | b']' | b'}', _) => {
                    groups.pop();
                }
                Token::Ident(_) if groups.last() == Some(&b'{') => {
                    let mut before = i - 1;
                    while matches!(self.word(before), Some(b"ref" | b"mut")) {
                        before -= 1;
                    }
                    let opens = matches!(self.punct(before), Some(b'{' | b','));
                    let closes = matches!(self.punct(i + 1), Some(b',' | b'}'));
                    if opens && closes && self.modes.len() > i {
                        self.modes[i] = Mode::Shorthand;
                    }
                }
                _ => {}
            }
        }
    }

    /// Whether tokens `from..to` of a header, a type or a value hold a form tree-sitter-rust
    /// (0.24) does not parse: empty generics or bounds (`S<>`, `T:>`), a negative const argument
    /// (`S<-1>`), a dangling `dyn` or `impl` or one with a lifetime first, `const`, `async` or
    /// `[const]` bounds, `::(`.
    fn unusual(&self, from: usize, to: usize) -> bool {
        let mut i = from;
        while i < to {
            if self.punct(i) == Some(b'!') && self.calls(i) {
                // A macro call's tokens are the macro's (`T![const]`).
                match self.close_of(i + 1) {
                    Some(close) => i = close + 1,
                    None => return true,
                }
                continue;
            }
            if self.unusual_at(i) {
                return true;
            }
            i += 1;
        }
        false
    }

    /// `unusual` at token `i` and the one after it.
    fn unusual_at(&self, i: usize) -> bool {
        // Punctuation right after (a literal between, as in `a: 1,`, is no such pair).
        let next_punct = |set: &[u8]| {
            matches!(self.tokens.get(i + 1), Some(Token::Punct(b, _)) if set.contains(b))
                && self.spaced(i)
        };
        let next_word = |set: &[&[u8]]| self.word(i + 1).is_some_and(|w| set.contains(&w));
        match &self.tokens[i] {
            // No Rust outside a macro.
            Token::Punct(b'~' | b'$' | b'\\', _) => true,
            Token::Punct(b'<', _) => next_punct(b">-"),
            Token::Punct(b':', _) => {
                next_punct(b">,;{=)")
                    || next_word(&[b"const", b"async"])
                    || (next_punct(b":") && self.punct(i + 2) == Some(b'('))
            }
            Token::Punct(b'+', _) => next_word(&[b"const", b"async"]),
            Token::Punct(b'[', _) => next_word(&[b"const"]),
            Token::Ident(r) => match &self.source[r.clone()] {
                b"dyn" | b"impl" => {
                    matches!(self.tokens.get(i + 1), Some(Token::Lifetime(_)))
                        || next_punct(b")>,;={(")
                        || next_word(&[b"const", b"async"])
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// Whether the `!` at token `i` calls a macro: after a word, before a group.
    fn calls(&self, i: usize) -> bool {
        self.word(i.wrapping_sub(1)).is_some()
            && matches!(self.punct(i + 1), Some(b'(' | b'[' | b'{'))
    }

    /// From token `from`: the first `{` or `;` outside brackets and angle brackets (with `(` too
    /// when `tuple`, before a `where`), and which it is; `None` at a macro call.
    fn header(&mut self, from: usize, tuple: bool) -> Option<(usize, u8)> {
        // A declaration's generics open with a parameter (`struct S<90>` is an error).
        if self.punct(from) == Some(b'<') && !self.spaced(from) {
            return None;
        }
        let (mut angle, mut after_where, mut i) = (0usize, false, from);
        loop {
            match self.tokens.get(i)? {
                Token::Punct(b'<', _) => angle += 1,
                Token::Punct(b'>', at) => {
                    let arrow = *at > 0 && self.source[at - 1] == b'-';
                    if !arrow {
                        angle = angle.checked_sub(1)?;
                    }
                }
                Token::Punct(b'(', _) if tuple && angle == 0 && !after_where => {
                    let close = self.close_of(i)?;
                    return (!self.unusual(from, close)).then_some((i, b'('));
                }
                Token::Punct(b'(' | b'[', _) => {
                    let close = self.close_of(i)?;
                    if (i..close).any(|j| self.punct(j) == Some(b'!') && self.calls(j)) {
                        return None;
                    }
                    i = close;
                }
                Token::Punct(b @ (b'{' | b';'), _) if angle == 0 => {
                    return (!self.unusual(from, i)).then_some((i, *b));
                }
                Token::Punct(b'{' | b';', _) => return None,
                // A macro call in a header: not read (a function's names are its own anyway).
                Token::Punct(b'!', _) if self.calls(i) => return None,
                Token::Ident(r) if self.raw(r) => return None,
                Token::Ident(r) if &self.source[r.clone()] == b"where" && angle == 0 => {
                    after_where = true
                }
                _ => {}
            }
            i += 1;
        }
    }

    /// `struct` or `union`: a field list, a tuple (then a `;`), or a `;`.
    pub(super) fn structure(
        &mut self,
        head: Head,
        kind: Kind,
        parent: Option<usize>,
        level: &Level,
    ) -> Option<Sibling> {
        let name = self.name(head.at + 1)?;
        let (open, form) = self.header(head.at + 2, kind == Kind::Struct)?;
        let start = self.start(head.first);
        let (end, signature) = match form {
            b'{' => (self.close_of(open)?, self.before_body(start, open)),
            b'(' => {
                let close = self.close_of(open)?;
                let (semicolon, b';') = self.header(close + 1, false)? else {
                    return None;
                };
                (semicolon, self.before_body(start, open))
            }
            _ => (open, self.first_line(&(start..self.end(open)))),
        };
        let bytes = start..self.end(end);
        let found = Found {
            kind,
            name,
            bytes: bytes.clone(),
            signature,
            parent,
        };
        let index = self.push(found, level);
        self.at = open + 1;
        match form {
            b'{' => self.fields(index, open)?,
            b'(' => self.macros_in(open + 1, self.close_of(open)?, Some(index))?,
            _ => {}
        }
        self.at = end + 1;
        Some(Sibling::Passed(bytes.end))
    }

    /// A field list's fields from its `{` at `open` (the cursor after it) to its `}`.
    fn fields(&mut self, parent: usize, open: usize) -> Option<()> {
        let mut level = Level::new(self.end(open));
        loop {
            match self.tokens.get(self.at)? {
                Token::Punct(b'}', _) => return Some(()),
                Token::Punct(b'#', _) => {
                    let attribute = self.attribute()?;
                    level.attrs.push(attribute);
                }
                Token::Punct(b',', at) => {
                    level.passed(at + 1);
                    self.at += 1;
                }
                _ => {
                    let end = self.field(parent, &level)?;
                    level.passed(end);
                }
            }
        }
    }

    /// `[pub] name: Type` up to its `,` or the list's `}`.
    fn field(&mut self, parent: usize, level: &Level) -> Option<usize> {
        let first = self.at;
        let i = self.after_visibility(first)?;
        let name = self.name(i)?;
        if self.punct(i + 1) != Some(b':') {
            return None;
        }
        let last = self.type_end(i + 2)?;
        if self.unusual(i, last + 1) || self.run_on(i + 2, last + 1) {
            return None;
        }
        let start = self.start(first);
        let bytes = start..self.end(last);
        let found = Found {
            kind: Kind::Field,
            name,
            signature: self.first_line(&bytes),
            bytes: bytes.clone(),
            parent: Some(parent),
        };
        let index = self.push(found, level);
        self.macros_in(i + 2, last + 1, Some(index))?;
        self.at = last + 1;
        Some(bytes.end)
    }

    /// Whether a field's type (tokens `from..to`) runs on into another field (`a: u32 b: u32`, a
    /// missing comma): two words in a row that no type has, or a `:` that is no `::`.
    fn run_on(&self, from: usize, to: usize) -> bool {
        let colon = |i: usize| self.punct(i) == Some(b':');
        (from..to).any(|i| {
            let joined = |j: usize| self.end(j) == self.start(j + 1);
            let lone_colon = colon(i)
                && !(colon(i + 1) && joined(i))
                && !(i > 0 && colon(i - 1) && joined(i - 1));
            let two_words = self.word(i).is_some_and(|w| {
                !matches!(
                    w,
                    b"dyn"
                        | b"impl"
                        | b"mut"
                        | b"const"
                        | b"unsafe"
                        | b"extern"
                        | b"as"
                        | b"async"
                        | b"for"
                )
            }) && self.word(i + 1).is_some()
                && i + 1 < to;
            lone_colon || two_words
        })
    }

    /// From a type's first token: its last one, before a `,` or a `}` outside brackets.
    fn type_end(&self, from: usize) -> Option<usize> {
        let mut angle = 0usize;
        let mut i = from;
        loop {
            match self.tokens.get(i)? {
                Token::Punct(b',' | b'}', _) if angle == 0 => {
                    return (i > from).then_some(i - 1);
                }
                Token::Punct(b'<', _) => angle += 1,
                Token::Punct(b'>', at) if !(*at > 0 && self.source[at - 1] == b'-') => {
                    angle = angle.checked_sub(1)?;
                }
                Token::Punct(b'(' | b'[' | b'{', _) => i = self.close_of(i)?,
                Token::Punct(b';' | b'=', _) if angle == 0 => return None,
                _ => {}
            }
            i += 1;
        }
    }

    /// `enum Name … { variants }`: the fields of its struct-like variants are its items.
    pub(super) fn enumeration(
        &mut self,
        head: Head,
        parent: Option<usize>,
        level: &Level,
    ) -> Option<Sibling> {
        let name = self.name(head.at + 1)?;
        let (open, b'{') = self.header(head.at + 2, false)? else {
            return None;
        };
        let start = self.start(head.first);
        let close = self.close_of(open)?;
        let bytes = start..self.end(close);
        let found = Found {
            kind: Kind::Enum,
            name,
            signature: self.before_body(start, open),
            bytes: bytes.clone(),
            parent,
        };
        let index = self.push(found, level);
        self.at = open + 1;
        while self.at < close {
            self.variant(index, close)?;
        }
        self.at = close + 1;
        Some(Sibling::Passed(bytes.end))
    }

    /// One variant (its attributes, name, fields, discriminant) and its `,`.
    fn variant(&mut self, parent: usize, close: usize) -> Option<()> {
        while self.punct(self.at) == Some(b'#') {
            self.attribute()?;
        }
        if self.at >= close {
            return Some(());
        }
        self.name(self.at)?;
        self.at += 1;
        match self.punct(self.at) {
            Some(b'{') => {
                let open = self.at;
                let end = self.close_of(open)?;
                self.at += 1;
                self.fields(parent, open)?;
                self.at = end + 1;
            }
            Some(b'(') => {
                let end = self.close_of(self.at)?;
                if self.unusual(self.at, end) {
                    return None;
                }
                self.macros_in(self.at + 1, end, Some(parent))?;
                self.at = end + 1;
            }
            _ => {}
        }
        if self.punct(self.at) == Some(b'=') {
            let mut i = self.at + 1;
            while !matches!(self.punct(i), Some(b',')) && i < close {
                if matches!(self.punct(i), Some(b'(' | b'[' | b'{')) {
                    i = self.close_of(i)?;
                }
                i += 1;
            }
            self.value(self.at + 1, i, Some(parent))?;
            self.at = i;
        }
        match self.punct(self.at) {
            Some(b',') => self.at += 1,
            _ if self.at == close => {}
            _ => return None,
        }
        Some(())
    }

    /// `trait` and `mod`: a header, then a level of items (a `mod name;` has none).
    pub(super) fn container(
        &mut self,
        head: Head,
        kind: Kind,
        parent: Option<usize>,
        level: &Level,
    ) -> Option<Sibling> {
        let name = self.name(head.at + 1)?;
        let (open, form) = self.header(head.at + 2, false)?;
        let start = self.start(head.first);
        if form == b';' {
            if kind != Kind::Module || open != head.at + 2 {
                return None;
            }
            let bytes = start..self.end(open);
            let signature = self.first_line(&bytes);
            let found = Found {
                kind,
                name,
                bytes: bytes.clone(),
                signature,
                parent,
            };
            self.push(found, level);
            self.at = open + 1;
            return Some(Sibling::Passed(bytes.end));
        }
        self.with_body(start, open, kind, name, parent, level)
    }

    /// An item whose body is a level of items, from its `{` at `open`.
    fn with_body(
        &mut self,
        start: usize,
        open: usize,
        kind: Kind,
        name: Range<usize>,
        parent: Option<usize>,
        level: &Level,
    ) -> Option<Sibling> {
        let close = self.close_of(open)?;
        let bytes = start..self.end(close);
        let found = Found {
            kind,
            name,
            signature: self.before_body(start, open),
            bytes: bytes.clone(),
            parent,
        };
        let index = self.push(found, level);
        self.at = open + 1;
        if self.level(Some(index), Some(open))? != close {
            return None;
        }
        Some(Sibling::Passed(bytes.end))
    }

    /// `impl<…> Trait for Type where … { … }`: named by its type.
    pub(super) fn implementation(
        &mut self,
        head: Head,
        parent: Option<usize>,
        level: &Level,
    ) -> Option<Sibling> {
        let mut from = head.at + 1;
        if self.punct(from) == Some(b'<') {
            from = self.angle_close(from)? + 1;
        }
        let (open, b'{') = self.header(from, false)? else {
            return None;
        };
        let impl_again = (from..open).any(|i| self.word(i) == Some(b"impl"));
        if impl_again || self.unusual(head.at, open) {
            return None;
        }
        // The type: after the trait's `for`, up to a `where`, both outside brackets.
        let (mut first, mut last, mut angle) = (from, open - 1, 0usize);
        let mut i = from;
        while i < open {
            match &self.tokens[i] {
                Token::Punct(b'<', _) => angle += 1,
                Token::Punct(b'>', at) if !(*at > 0 && self.source[at - 1] == b'-') => {
                    angle = angle.checked_sub(1)?
                }
                Token::Punct(b'(' | b'[', _) => i = self.close_of(i)?,
                Token::Ident(r) if angle == 0 => match &self.source[r.clone()] {
                    b"for" if first == from && self.punct(i + 1) != Some(b'<') => first = i + 1,
                    b"for" => return None,
                    b"where" => {
                        last = i - 1;
                        break;
                    }
                    b"const" if first == from => return None,
                    _ => {}
                },
                _ => {}
            }
            i += 1;
        }
        if first > last {
            return None;
        }
        let name = self.start(first)..self.end(last);
        let start = self.start(head.first);
        self.with_body(start, open, Kind::Impl, name, parent, level)
    }

    /// From a `<` at `open`: its matching `>`.
    fn angle_close(&self, open: usize) -> Option<usize> {
        let mut depth = 0usize;
        let mut i = open;
        loop {
            match self.tokens.get(i)? {
                Token::Punct(b'<', _) => depth += 1,
                Token::Punct(b'>', at) if !(*at > 0 && self.source[at - 1] == b'-') => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                Token::Punct(b'(' | b'[', _) => i = self.close_of(i)?,
                Token::Punct(b'{' | b';', _) => return None,
                _ => {}
            }
            i += 1;
        }
    }

    /// `type`, `const` and `static`: through their `;`; a value is read for macro calls and
    /// must hold no item.
    pub(super) fn declaration(
        &mut self,
        head: Head,
        kind: Kind,
        parent: Option<usize>,
        level: &Level,
    ) -> Option<Sibling> {
        let mut at = head.at + 1;
        if kind == Kind::Var && self.word(at) == Some(b"mut") {
            at += 1;
        }
        let unnamed = kind == Kind::Const && self.word(at) == Some(b"_");
        let name = match unnamed {
            true => self.start(at)..self.end(at),
            false => self.name(at)?,
        };
        let follows = match kind {
            Kind::Type => {
                matches!(self.punct(at + 1), Some(b'<' | b'=' | b':' | b';'))
                    || self.word(at + 1) == Some(b"where")
            }
            _ => self.punct(at + 1) == Some(b':'),
        };
        if !follows {
            return None;
        }
        let mut end = at + 1;
        while self.punct(end) != Some(b';') {
            match self.tokens.get(end)? {
                Token::Punct(b'(' | b'[' | b'{', _) => end = self.close_of(end)?,
                Token::Punct(b'}', _) => return None,
                _ => {}
            }
            end += 1;
        }
        if self.unusual(at, end) {
            return None;
        }
        let start = self.start(head.first);
        let bytes = start..self.end(end);
        let index = match unnamed {
            true => parent,
            false => {
                let found = Found {
                    kind,
                    name,
                    signature: self.first_line(&bytes),
                    bytes: bytes.clone(),
                    parent,
                };
                Some(self.push(found, level))
            }
        };
        match self.block_value(at + 1, end) {
            // `const _: () = { impl … };`: a block of items.
            Some(open) => {
                self.value(at + 1, open, index)?;
                self.at = open + 1;
                if self.level(index, Some(open))? != end - 1 {
                    return None;
                }
            }
            None => self.value(at + 1, end, index)?,
        }
        self.at = end + 1;
        Some(Sibling::Passed(bytes.end))
    }

    /// When a declaration's value (between tokens `from` and its `;` at `end`) is a block whose
    /// statements open with an item keyword: the block's `{`.
    fn block_value(&self, from: usize, end: usize) -> Option<usize> {
        let open = end.checked_sub(1).and_then(|close| {
            (from..close)
                .rev()
                .find(|&i| self.punct(i) == Some(b'{') && self.close_of(i) == Some(close))
        })?;
        let is_value = self.punct(open - 1) == Some(b'=') && self.punct(open - 2) != Some(b'=');
        let first = self.word(open + 1).is_some_and(|w| {
            matches!(
                w,
                b"impl"
                    | b"fn"
                    | b"struct"
                    | b"enum"
                    | b"trait"
                    | b"use"
                    | b"type"
                    | b"const"
                    | b"static"
                    | b"mod"
                    | b"pub"
                    | b"unsafe"
            )
        });
        let attribute = self.punct(open + 1) == Some(b'#');
        (is_value && (first || attribute)).then_some(open)
    }

    /// Tokens `from..to` of a type or value: no item may open there; macro calls are read.
    fn value(&mut self, from: usize, to: usize, parent: Option<usize>) -> Option<()> {
        let mut i = from;
        while i < to {
            let at = i;
            i += 1;
            // An attribute inside an expression (`(1, #[cfg(x)] 2)`).
            if self.punct(at) == Some(b'#') {
                return None;
            }
            let Some(word) = self.word(at) else { continue };
            if self.punct(at + 1) == Some(b'!') && self.calls(at + 1) {
                // A macro call's tokens are no items (`T![type]`); `macros_in` reads them.
                i = self.close_of(at + 2)? + 1;
                continue;
            }
            let opens = match word {
                b"fn" => self.word(at + 1).is_some(),
                b"const" => self.punct(at.wrapping_sub(1)) != Some(b'*'),
                b"union" => self.word(at + 1).is_some(),
                _ => opens_item(word),
            };
            if opens {
                return None;
            }
        }
        self.macros_in(from, to, parent)
    }

    /// A `use` declaration through its `;`: hidden when the skeleton leaves it out of its tree
    /// (`skeleton::rust_use`: after `;`, `{`, `}` or nothing, a plain use tree).
    pub(super) fn use_declaration(&mut self, head: Head) -> Option<Sibling> {
        let mut end = head.at + 1;
        let mut plain = true;
        while self.punct(end) != Some(b';') {
            match self.tokens.get(end)? {
                Token::Punct(b':' | b'{' | b'}' | b',' | b'*', _) => {}
                Token::Ident(r) if self.raw(r) => return None,
                Token::Ident(r) if !breaks_use(&self.source[r.clone()]) => {}
                _ => plain = false,
            }
            end += 1;
        }
        let after_item =
            head.first == 0 || matches!(self.punct(head.first - 1), Some(b';' | b'{' | b'}'));
        let bytes = self.start(head.first)..self.end(end);
        self.at = end + 1;
        match plain && after_item {
            true => Some(Sibling::Hidden(bytes)),
            false => Some(Sibling::Passed(bytes.end)),
        }
    }

    /// Through the `;` after token `i` (`extern crate`).
    pub(super) fn through_semicolon(&mut self, mut i: usize) -> Option<Sibling> {
        while self.punct(i) != Some(b';') {
            if matches!(self.punct(i), Some(b'{' | b'}')) {
                return None;
            }
            self.tokens.get(i)?;
            i += 1;
        }
        self.at = i + 1;
        Some(Sibling::Passed(self.end(i)))
    }

    /// `extern "abi" { … }`: its items belong to the enclosing item.
    pub(super) fn foreign(&mut self, open: usize, parent: Option<usize>) -> Option<Sibling> {
        self.at = open + 1;
        let close = self.level(parent, Some(open))?;
        Some(Sibling::Passed(self.end(close)))
    }
}
