//! Go's outline from its tokens (`token_outline`): a gofmt-shaped file read as the package clause,
//! then declarations at the top level (`import`, `func`, `type`, `const`, `var`), each type read
//! far enough to find the struct fields and interface methods it lists. The items are those of
//! `queries/go/outline.scm` on the skeleton's tree: functions and methods (a method under its
//! receiver's type when the file declares it, else with the type as its parent by name), type
//! specs (struct, interface, other), const and var specs (one item per name), fields and interface
//! methods nested under what holds them. A function's insides (and a function literal's) are
//! local; a composite literal's insides hold no item (the skeleton leaves them out).
//!
//! The lexer skips literals (strings, runes, numbers) whole, so a statement's end is read from the
//! gap between two tokens (`Gap`): Go ends a statement at a line break after an identifier, a
//! literal or a closing bracket. Anything unusual (a token where the grammar wants another, a
//! receiver the query does not match, a struct type inside a parameter list) answers `None`.

use super::{Rows, TokenOutline};
use crate::docs::{self, DocMarkers};
use crate::items::{self, Item, Outline};
use crate::lexer::{is_keyword, Dialect, Token};
use crate::Kind;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::OnceLock;

mod types;

pub(super) fn outline(
    source: &[u8],
    tokens: &[Token],
    comments: &[Range<usize>],
) -> Option<TokenOutline> {
    let mut finder = Finder {
        source,
        tokens,
        comments,
        rows: Rows::of(source),
        at: 0,
        items: Vec::new(),
        unreferenced: Vec::new(),
        local: false,
        receivers: Vec::new(),
        depth: 0,
    };
    finder.file()?;
    Some(finder.finish())
}

/// What the walk has found so far, and where it is (`at`, a token index).
struct Finder<'s> {
    source: &'s [u8],
    tokens: &'s [Token],
    comments: &'s [Range<usize>],
    rows: Rows,
    at: usize,
    items: Vec<Item>,
    /// The starts of names among the tokens that are no references (`TokenOutline`).
    unreferenced: Vec<usize>,
    /// Inside an interface method's signature: what it holds is local, as in a function.
    local: bool,
    /// Each method's item and its receiver's type name.
    receivers: Vec<(usize, String)>,
    /// How many types the walk is in (`MAX_NESTING`).
    depth: usize,
}

/// What lies between two tokens: whitespace, comments and literals.
struct Gap {
    /// Where the statement ends, when a line break in the gap ends it (after the token before the
    /// gap, or after a literal in it).
    end: Option<usize>,
    /// The end of the gap's last literal.
    literal: Option<usize>,
}

/// How an item's signature is read from its bytes.
enum Signature {
    /// The whole text (a function's, up to its body).
    Whole(Range<usize>),
    /// The first line.
    FirstLine(Range<usize>),
}

impl<'s> Finder<'s> {
    // Tokens.

    fn word(&self, i: usize) -> Option<&'s [u8]> {
        match self.tokens.get(i)? {
            Token::Ident(r) => Some(&self.source[r.clone()]),
            _ => None,
        }
    }

    /// A name: an identifier that is no keyword.
    fn name(&self, i: usize) -> Option<Range<usize>> {
        match self.tokens.get(i)? {
            Token::Ident(r) if !is_keyword(Dialect::Go, &self.source[r.clone()]) => Some(r.clone()),
            _ => None,
        }
    }

    fn is(&self, i: usize, punct: u8) -> bool {
        matches!(self.tokens.get(i), Some(Token::Punct(b, _)) if *b == punct)
    }

    fn is_word(&self, i: usize, word: &[u8]) -> bool {
        self.word(i) == Some(word)
    }

    fn start(&self, i: usize) -> usize {
        self.tokens.get(i).map_or(self.source.len(), Token::start)
    }

    fn end(&self, i: usize) -> usize {
        match &self.tokens[i] {
            Token::Ident(r) | Token::Lifetime(r) => r.end,
            Token::Punct(_, at) => at + 1,
        }
    }

    /// The gap after token `i`.
    fn gap(&self, i: usize) -> Gap {
        let ends = matches!(
            self.tokens[i],
            Token::Ident(_) | Token::Punct(b')' | b']' | b'}', _)
        );
        scan_gap(self.source, self.end(i), self.start(i + 1), ends)
    }

    /// Where a statement whose last token so far is `i` ends, when it ends there: at a line break,
    /// before a `;` or a closing bracket, or at the file's end.
    fn stop(&self, i: usize) -> Option<usize> {
        let gap = self.gap(i);
        if gap.end.is_some() {
            return gap.end;
        }
        let closes = matches!(
            self.tokens.get(i + 1),
            Some(Token::Punct(b';' | b')' | b'}', _))
        );
        closes.then(|| gap.literal.unwrap_or(self.end(i)))
    }

    /// Whether a line break (or the file's end) after token `i` ends its statement.
    fn breaks_after(&self, i: usize) -> bool {
        self.gap(i).end.is_some()
    }

    /// From an opening bracket: the index of its closer.
    fn skip_group(&self, open: usize) -> Option<usize> {
        let mut depth = 0usize;
        for (i, token) in self.tokens.iter().enumerate().skip(open) {
            match token {
                Token::Punct(b'(' | b'[' | b'{', _) => depth += 1,
                Token::Punct(b')' | b']' | b'}', _) => {
                    depth -= 1;
                    if depth == 0 {
                        return self.closes(open, i).then_some(i);
                    }
                }
                _ => {}
            }
        }
        None
    }

    fn closes(&self, open: usize, close: usize) -> bool {
        let pair = |o, c| self.is(open, o) && self.is(close, c);
        pair(b'(', b')') || pair(b'[', b']') || pair(b'{', b'}')
    }

    /// `skip_group` over a group whose struct or interface types would hold items nested in a
    /// parameter or an index (rare): those answer `None`.
    fn flat_close(&self, open: usize) -> Option<usize> {
        let close = self.skip_group(open)?;
        let holds_members = (open..close).any(|i| {
            (self.is_word(i, b"struct") || self.is_word(i, b"interface"))
                && self.is(i + 1, b'{')
                && !self.is(i + 2, b'}')
        });
        (!holds_members).then_some(close)
    }

    // Declarations.

    fn file(&mut self) -> Option<()> {
        if !self.is_word(0, b"package") || self.name(1).is_none() || !self.breaks_after(1) {
            return None;
        }
        self.unreferenced.push(self.start(1));
        self.at = 2;
        while self.at < self.tokens.len() {
            match self.word(self.at)? {
                b"import" => self.import()?,
                b"func" => self.function()?,
                b"type" => self.declaration(Kind::Type)?,
                b"const" => self.declaration(Kind::Const)?,
                b"var" => self.declaration(Kind::Var)?,
                _ => return None,
            }
        }
        Some(())
    }

    /// `import ( … )` or `import [name] "path"`: no item.
    fn import(&mut self) -> Option<()> {
        let keyword = self.at;
        let last = match self.is(keyword + 1, b'(') {
            true => self.skip_group(keyword + 1)?,
            // The path is a literal: the statement ends in the gap after the keyword or the name.
            false if self.name(keyword + 1).is_some() || self.is(keyword + 1, b'.') => keyword + 1,
            false => keyword,
        };
        // Its names are package names.
        let names = self.tokens[keyword..=last].iter();
        (self.unreferenced).extend(
            names
                .filter(|t| matches!(t, Token::Ident(_)))
                .map(Token::start),
        );
        self.at = last + 1;
        self.breaks_after(last).then_some(())
    }

    /// `func [receiver] name[type parameters](parameters) [result] [body]`.
    fn function(&mut self) -> Option<()> {
        let first = self.at;
        let start = self.start(first);
        self.at += 1;
        let receiver = match self.is(self.at, b'(') {
            true => Some(self.receiver()?),
            false => None,
        };
        let name = self.name(self.at)?;
        self.at += 1;
        let (signature_end, body) = self.signature()?;
        // A body's `}` ends the declaration's line; without one, its first line is the signature.
        let (end, signature) = match body {
            Some(close) if self.breaks_after(close) => {
                (self.end(close), Signature::Whole(start..signature_end))
            }
            Some(_) => return None,
            None => (signature_end, Signature::FirstLine(start..signature_end)),
        };
        let kind = match receiver {
            Some(_) => Kind::Method,
            None => Kind::Function,
        };
        let index = self.push(kind, name, None, first);
        self.complete(&[index], start..end, signature);
        if let Some(receiver) = receiver {
            self.receivers.push((index, receiver));
        }
        Some(())
    }

    /// A receiver as the outline query matches it: `([name] [*]Type[[params]])`; its type's name.
    fn receiver(&mut self) -> Option<String> {
        let open = self.at;
        let close = self.skip_group(open)?;
        let mut i = open + 1;
        if self.name(i).is_some() && (self.name(i + 1).is_some() || self.is(i + 1, b'*')) {
            i += 1;
        }
        if self.is(i, b'*') {
            i += 1;
        }
        let ty = self.name(i)?;
        i += 1;
        if self.is(i, b'[') {
            i = self.skip_flat(i)? + 1;
        }
        self.at = close + 1;
        (i == close).then(|| String::from_utf8_lossy(&self.source[ty]).into_owned())
    }

    /// From after a function's name (or a literal's `func`): up to its body's `{`, or to the end
    /// of its statement when it has none. The signature's end and the body's closing brace.
    fn signature(&mut self) -> Option<(usize, Option<usize>)> {
        loop {
            let last = self.at.checked_sub(1)?;
            let i = self.at;
            if self.is(i, b'{') {
                // `struct{…}` and `interface{…}` in a parameter or result are types, not the body.
                if self.is_word(last, b"struct") || self.is_word(last, b"interface") {
                    self.at = self.skip_types(i)? + 1;
                    continue;
                }
                let close = self.skip_group(i)?;
                self.at = close + 1;
                return Some((self.end(last), Some(close)));
            }
            if self.breaks_after(last) && i > 0 {
                return Some((self.end(last), None));
            }
            match self.tokens.get(i)? {
                Token::Punct(b'(' | b'[', _) => self.at = self.skip_types(i)? + 1,
                Token::Punct(b')' | b']' | b'}' | b';', _) => return None,
                _ => {
                    self.qualifier(i);
                    self.at += 1;
                }
            }
        }
    }

    /// `type`, `const` or `var`, then one spec or a parenthesized group of them.
    fn declaration(&mut self, kind: Kind) -> Option<()> {
        let keyword = self.at;
        self.at += 1;
        if !self.is(self.at, b'(') {
            // A spec declared alone is led by its declaration's doc comment (`docs::lead_anchor`).
            return self.spec(kind, keyword);
        }
        self.at += 1;
        loop {
            if self.is(self.at, b')') {
                self.at += 1;
                return self.breaks_after(self.at - 1).then_some(());
            }
            if self.is(self.at, b';') {
                self.at += 1;
                continue;
            }
            let first = self.at;
            self.spec(kind, first)?;
        }
    }

    fn spec(&mut self, kind: Kind, anchor: usize) -> Option<()> {
        match kind {
            Kind::Type => self.type_spec(anchor),
            _ => self.value_spec(kind, anchor),
        }
    }

    /// `Name[type parameters] [=] Type`.
    fn type_spec(&mut self, anchor: usize) -> Option<()> {
        let first = self.at;
        let name = self.name(first)?;
        self.at += 1;
        if self.type_parameters_follow() {
            self.at = self.skip_types(self.at)? + 1;
        }
        let alias = self.is(self.at, b'=');
        self.at += usize::from(alias);
        let ty = self.at;
        let kind = match (alias, self.word(ty), self.is(ty + 1, b'{')) {
            (false, Some(b"struct"), true) => Kind::Struct,
            (false, Some(b"interface"), true) => Kind::Interface,
            _ => Kind::Type,
        };
        let index = self.push(kind, name.clone(), None, anchor);
        self.ty(Some(index))?;
        let end = self.stop(self.at - 1)?;
        let signature = match kind {
            // The struct's field list is its body: the signature ends before it.
            Kind::Struct => Signature::Whole(name.start..self.end(ty)),
            _ => Signature::FirstLine(name.start..end),
        };
        self.complete(&[index], name.start..end, signature);
        Some(())
    }

    /// After a type's name, `[T any]` or `[K comparable, V any]` rather than an array's length.
    fn type_parameters_follow(&self) -> bool {
        let i = self.at;
        self.is(i, b'[')
            && self.name(i + 1).is_some()
            && (self.word(i + 2).is_some() || self.is(i + 2, b',') || self.is(i + 2, b'~'))
    }

    /// `a, b [Type] [= values]`: an item per name.
    fn value_spec(&mut self, kind: Kind, anchor: usize) -> Option<()> {
        let start = self.start(self.at);
        let mut names = Vec::new();
        loop {
            let name = self.name(self.at)?;
            names.push(self.push(kind, name, None, anchor));
            self.at += 1;
            if !self.is(self.at, b',') {
                break;
            }
            self.at += 1;
        }
        let last_name = *names.last()?;
        if !self.is(self.at, b'=') && self.stop(self.at - 1).is_none() {
            self.ty(Some(last_name))?;
        }
        if self.is(self.at, b'=') {
            self.at += 1;
            self.value(Some(last_name))?;
        }
        let end = self.stop(self.at - 1)?;
        self.complete(&names, start..end, Signature::FirstLine(start..end));
        Some(())
    }

    /// An expression, up to its statement's end. A function literal's insides are local and a
    /// composite literal's hold no item; a struct or interface type in it lists its members.
    fn value(&mut self, parent: Option<usize>) -> Option<()> {
        loop {
            let i = self.at;
            if self.stop(i - 1).is_some() {
                return Some(());
            }
            match self.tokens.get(i)? {
                Token::Ident(_) if self.is_word(i, b"func") => {
                    self.at += 1;
                    self.signature()?;
                }
                Token::Ident(_) if self.is(i + 1, b'{') && self.holds_members(i) => {
                    self.ty(parent)?;
                }
                Token::Punct(b'{', _) => self.at = self.skip_group(i)? + 1,
                Token::Punct(b'(' | b'[', _) => {
                    let close = self.flat_close(i)?;
                    self.arguments(i, close);
                    self.at = close + 1;
                }
                Token::Punct(b')' | b']' | b'}' | b';', _) => return None,
                _ => {
                    self.value_qualifier(i);
                    self.at += 1;
                }
            }
        }
    }

    /// In an expression, a composite literal's type (`pkg.T{…}`, `[]pkg.T{…}`) is a type; the
    /// package of `pkg.F()` or `pkg.V` is an identifier the tags query counts.
    fn value_qualifier(&mut self, i: usize) {
        if self.is(i + 3, b'{') || (i > 0 && self.is(i - 1, b']')) {
            self.qualifier(i);
        }
    }

    /// A group in an expression: `new(T)` and `make(T, …)` take a type first.
    fn arguments(&mut self, open: usize, close: usize) {
        let takes_type =
            open > 0 && (self.is_word(open - 1, b"new") || self.is_word(open - 1, b"make"));
        let mut first = open + 1;
        if takes_type && self.is(open, b'(') {
            let mut i = open + 1;
            while i < close && !self.is(i, b',') {
                i = match self.tokens[i] {
                    Token::Punct(b'(' | b'[' | b'{', _) => self.skip_group(i).unwrap_or(close),
                    _ => i,
                } + 1;
            }
            self.types_in(open + 1..i);
            first = i;
        }
        self.values_in(first..close);
    }

    /// `value_qualifier` over a group's expressions, but inside composite literals (the skeleton
    /// leaves those out and counts every name in them).
    fn values_in(&mut self, tokens: Range<usize>) {
        let mut i = tokens.start;
        while i < tokens.end {
            match self.is(i, b'{') {
                true => i = self.skip_group(i).unwrap_or(tokens.end),
                false => self.value_qualifier(i),
            }
            i += 1;
        }
    }

    fn holds_members(&self, i: usize) -> bool {
        self.is_word(i, b"struct") || self.is_word(i, b"interface")
    }

    // Items.

    /// A new item named `name`, led by the comments before token `anchor`; its bytes and
    /// signature are `complete`d once its end is known.
    fn push(
        &mut self,
        kind: Kind,
        name: Range<usize>,
        parent: Option<usize>,
        anchor: usize,
    ) -> usize {
        let (extent_line, doc) = self.lead(anchor);
        let text = String::from_utf8_lossy(&self.source[name.clone()]).into_owned();
        self.items.push(Item {
            kind,
            name: text,
            signature: String::new(),
            line: self.rows.row(name.start) + 1,
            end_line: 0,
            parent,
            parent_name: None,
            doc: doc.map(items::cap),
            bytes: 0..0,
            name_bytes: name,
            extent_line,
        });
        self.items.len() - 1
    }

    fn complete(&mut self, indices: &[usize], bytes: Range<usize>, signature: Signature) {
        let text = match signature {
            Signature::Whole(range) => String::from_utf8_lossy(&self.source[range]).into_owned(),
            Signature::FirstLine(range) => {
                let text = &self.source[range];
                let line = memchr::memchr(b'\n', text).map_or(text, |i| &text[..i]);
                String::from_utf8_lossy(line).into_owned()
            }
        };
        let signature = items::signature_of(&text);
        let end_line = self.rows.end_line(self.rows.row(bytes.start), bytes.end);
        for &i in indices {
            let item = &mut self.items[i];
            item.signature = signature.clone();
            item.end_line = end_line;
            item.bytes = bytes.clone();
        }
    }

    /// The line an item's leading comments start on (1-based) and its doc: the run of comments
    /// right before token `anchor`, each starting its line and touching the next (`docs::extent`).
    fn lead(&self, anchor: usize) -> (usize, Option<String>) {
        let start = self.start(anchor);
        let floor = match anchor.checked_sub(1) {
            Some(prev) => self.gap(prev).literal.unwrap_or(self.end(prev)),
            None => 0,
        };
        let from = self.comments.partition_point(|c| c.start < floor);
        let to = self.comments.partition_point(|c| c.start < start);
        let mut first_row = self.rows.row(start);
        let mut doc_start = None;
        for comment in self.comments[from..to].iter().rev() {
            let adjacent = self.rows.row(comment.end) + 1 >= first_row;
            if !adjacent || !docs::starts_its_line(comment.start, self.source) {
                break;
            }
            first_row = self.rows.row(comment.start);
            doc_start = Some(comment.clone());
        }
        let doc = doc_start.and_then(|c| {
            let text = String::from_utf8_lossy(&self.source[c.start..start.max(c.end)]);
            docs::first_doc_line(&text, markers())
        });
        (first_row + 1, doc)
    }

    /// The outline: methods nested under their receiver's type when the file declares it at the
    /// top level, else given it as their parent by name (`items::attach_receivers`).
    fn finish(mut self) -> TokenOutline {
        let mut types: HashMap<&str, usize> = HashMap::new();
        for (i, item) in self.items.iter().enumerate() {
            let is_type = item.kind.holds_members() || item.kind == Kind::Type;
            if item.parent.is_none() && is_type {
                types.entry(item.name.as_str()).or_insert(i);
            }
        }
        let owners: Vec<Option<usize>> = (self.receivers.iter())
            .map(|(_, receiver)| types.get(receiver.as_str()).copied())
            .collect();
        for ((index, receiver), owner) in self.receivers.into_iter().zip(owners) {
            match owner {
                Some(owner) => self.items[index].parent = Some(owner),
                None => self.items[index].parent_name = Some(receiver),
            }
        }
        let outline = Outline {
            items: self.items,
            parse_errors: 0,
        };
        TokenOutline {
            outline,
            unreferenced: self.unreferenced,
            referenced: Vec::new(),
        }
    }
}

/// Go's comment markers, for the docs.
fn markers() -> &'static DocMarkers {
    static MARKERS: OnceLock<DocMarkers> = OnceLock::new();
    MARKERS.get_or_init(|| DocMarkers::of(crate::languages::by_name("go").expect("go")))
}

/// Reads the gap `from..to` between two tokens; `ends`: the token before it ends a statement at a
/// line break.
fn scan_gap(source: &[u8], from: usize, to: usize, ends: bool) -> Gap {
    let mut gap = Gap {
        end: None,
        literal: None,
    };
    // The end of the last thing that ends a statement at a line break, if the last thing does.
    let mut ending = ends.then_some(from);
    let mut at = from;
    while at < to {
        let next = source.get(at + 1).copied();
        let (end, literal, breaks) = match source[at] {
            b'\n' => (at + 1, false, true),
            b'/' if next == Some(b'/') => {
                let end = memchr::memchr(b'\n', &source[at..to]).map_or(to, |i| at + i);
                (end, false, false)
            }
            b'/' if next == Some(b'*') => {
                let end =
                    memchr::memmem::find(&source[at + 2..to], b"*/").map_or(to, |i| at + i + 4);
                (end, false, source[at..end].contains(&b'\n'))
            }
            b if b.is_ascii_whitespace() => (at + 1, false, false),
            b'"' | b'\'' => (quoted(source, at, to), true, false),
            b'`' => {
                let end = memchr::memchr(b'`', &source[at + 1..to]).map_or(to, |i| at + i + 2);
                (end, true, false)
            }
            _ => (at + 1, true, false),
        };
        if literal {
            gap.literal = Some(end);
            ending = Some(end);
        }
        if breaks && gap.end.is_none() {
            gap.end = ending;
        }
        at = end;
    }
    // The file's end ends a statement as a line break does.
    if to == source.len() && gap.end.is_none() {
        gap.end = ending;
    }
    gap
}

/// The end of the string or rune quoted at `at`, with backslash escapes.
fn quoted(source: &[u8], at: usize, to: usize) -> usize {
    let quote = source[at];
    let mut i = at + 1;
    while i < to {
        match source[i] {
            b'\\' => i += 2,
            b if b == quote => return i + 1,
            _ => i += 1,
        }
    }
    to
}
