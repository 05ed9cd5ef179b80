//! The lexer of the languages whose skeleton the map parses (`skeleton`): Go's and Rust's tokens
//! as the body finder, the name counter and the map's imports read them: identifiers, lifetimes
//! and single punctuation bytes, with comments, strings, raw and prefixed literals and numbers
//! skipped whole. One pass per file (`lex`) serves the three.

use super::languages::Language;
use std::ops::Range;

/// The languages whose bodies are left out, each with its lexical rules.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Dialect {
    Go,
    Rust,
}

impl Dialect {
    pub fn of(language: &Language) -> Option<Dialect> {
        match language.name.as_str() {
            "go" => Some(Dialect::Go),
            "rust" => Some(Dialect::Rust),
            _ => None,
        }
    }
}

/// Words the grammars give their own nodes, not `identifier` ones.
pub fn is_keyword(dialect: Dialect, word: &[u8]) -> bool {
    match dialect {
        Dialect::Go => matches!(
            word,
            b"break"
                | b"case"
                | b"chan"
                | b"const"
                | b"continue"
                | b"default"
                | b"defer"
                | b"else"
                | b"fallthrough"
                | b"for"
                | b"func"
                | b"go"
                | b"goto"
                | b"if"
                | b"import"
                | b"interface"
                | b"map"
                | b"package"
                | b"range"
                | b"return"
                | b"select"
                | b"struct"
                | b"switch"
                | b"type"
                | b"var"
                | b"true"
                | b"false"
                | b"nil"
                | b"iota"
        ),
        Dialect::Rust => {
            matches!(
                word,
                b"as"
                    | b"async"
                    | b"await"
                    | b"break"
                    | b"const"
                    | b"continue"
                    | b"crate"
                    | b"dyn"
                    | b"else"
                    | b"enum"
                    | b"extern"
                    | b"false"
                    | b"fn"
                    | b"for"
                    | b"if"
                    | b"impl"
                    | b"in"
                    | b"let"
                    | b"loop"
                    | b"match"
                    | b"mod"
                    | b"move"
                    | b"mut"
                    | b"pub"
                    | b"ref"
                    | b"return"
                    | b"self"
                    | b"static"
                    | b"struct"
                    | b"super"
                    | b"trait"
                    | b"true"
                    | b"type"
                    | b"unsafe"
                    | b"use"
                    | b"where"
                    | b"while"
                    | b"_"
            ) || is_rust_primitive(word)
        }
    }
}

/// Rust's primitive types' names: keywords to the lexer (no reference), names to the grammar in
/// some places (a path's segment, a binding), which the token finder tells apart.
pub fn is_rust_primitive(word: &[u8]) -> bool {
    matches!(
        word,
        b"bool"
            | b"char"
            | b"str"
            | b"i8"
            | b"i16"
            | b"i32"
            | b"i64"
            | b"i128"
            | b"isize"
            | b"u8"
            | b"u16"
            | b"u32"
            | b"u64"
            | b"u128"
            | b"usize"
            | b"f32"
            | b"f64"
    )
}

/// The tokens of `source` in `dialect`, lexed once per file: the body finder, the name counter
/// and the map's imports (`map::imports`) all read them, so one lexer knows the language's
/// comments and literals, and one pass over the file serves the three.
pub fn lex(dialect: Dialect, source: &[u8]) -> Vec<Token> {
    lex_with_comments(dialect, source).0
}

/// `lex`, and the byte ranges of the file's comments, in order (a line comment without its
/// newline).
pub fn lex_with_comments(dialect: Dialect, source: &[u8]) -> (Vec<Token>, Vec<Range<usize>>) {
    let mut lexer = Lexer::new(dialect, source);
    // About one token per five bytes of Rust or Go.
    let mut out = Vec::with_capacity(source.len() / 5);
    while let Some(token) = lexer.next() {
        out.push(token);
    }
    (out, lexer.comments)
}

/// A token as the body finder and the name counter see it; strings, numbers and comments are
/// skipped whole.
#[derive(Clone, Debug)]
pub enum Token {
    Ident(Range<usize>),
    /// The identifier of a Rust lifetime or label (after its `'`).
    Lifetime(Range<usize>),
    /// A punctuation byte and its offset.
    Punct(u8, usize),
}

impl Token {
    /// Its first byte (a lifetime's identifier's, after the `'`).
    pub fn start(&self) -> usize {
        match self {
            Token::Ident(r) | Token::Lifetime(r) => r.start,
            Token::Punct(_, at) => *at,
        }
    }
}

/// The byte lexer behind `lex`.
struct Lexer<'s> {
    dialect: Dialect,
    source: &'s [u8],
    at: usize,
    comments: Vec<Range<usize>>,
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

impl<'s> Lexer<'s> {
    fn new(dialect: Dialect, source: &'s [u8]) -> Lexer<'s> {
        Lexer {
            dialect,
            source,
            at: 0,
            comments: Vec::new(),
        }
    }

    fn byte(&self, at: usize) -> u8 {
        self.source.get(at).copied().unwrap_or(0)
    }

    fn next(&mut self) -> Option<Token> {
        let s = self.source;
        loop {
            while self.at < s.len() && s[self.at].is_ascii_whitespace() {
                self.at += 1;
            }
            let start = self.at;
            let b = *s.get(start)?;
            match b {
                b'/' if self.byte(start + 1) == b'/' => {
                    self.at = memchr::memchr(b'\n', &s[start..]).map_or(s.len(), |i| start + i);
                    self.comments.push(start..self.at);
                }
                b'/' if self.byte(start + 1) == b'*' => {
                    self.block_comment();
                    self.comments.push(start..self.at);
                }
                b'"' => self.quoted(b'"'),
                b'`' if self.dialect == Dialect::Go => {
                    self.at =
                        memchr::memchr(b'`', &s[start + 1..]).map_or(s.len(), |i| start + i + 2);
                }
                b'\'' => match self.quote_or_lifetime() {
                    Some(lifetime) => return Some(lifetime),
                    None => continue,
                },
                b'0'..=b'9' => {
                    self.at += 1;
                    while self.at < s.len() && is_ident_byte(s[self.at]) {
                        self.at += 1;
                    }
                }
                _ if is_ident_byte(b) => {
                    if self.dialect == Dialect::Rust && self.rust_prefixed_literal() {
                        continue;
                    }
                    while self.at < s.len() && is_ident_byte(s[self.at]) {
                        self.at += 1;
                    }
                    return Some(Token::Ident(start..self.at));
                }
                _ => {
                    self.at += 1;
                    return Some(Token::Punct(b, start));
                }
            }
        }
    }

    /// `/* … */`, nested in Rust.
    fn block_comment(&mut self) {
        let s = self.source;
        let mut depth = 0usize;
        while self.at < s.len() {
            if s[self.at] == b'/' && self.byte(self.at + 1) == b'*' {
                depth += 1;
                self.at += 2;
            } else if s[self.at] == b'*' && self.byte(self.at + 1) == b'/' {
                self.at += 2;
                depth -= 1;
                if depth == 0 || self.dialect == Dialect::Go {
                    return;
                }
            } else {
                self.at += 1;
            }
        }
    }

    /// A literal quoted by `quote`, with backslash escapes, from its opening quote.
    fn quoted(&mut self, quote: u8) {
        let s = self.source;
        self.at += 1;
        while self.at < s.len() {
            match s[self.at] {
                b'\\' => self.at += 2,
                b if b == quote => {
                    self.at += 1;
                    return;
                }
                _ => self.at += 1,
            }
        }
        self.at = s.len();
    }

    /// From a `'`: skips a character literal (`None`), or returns a Rust lifetime's or label's
    /// identifier.
    fn quote_or_lifetime(&mut self) -> Option<Token> {
        let s = self.source;
        let start = self.at;
        if self.dialect == Dialect::Rust && self.byte(start + 1) != b'\\' {
            // One character, then `'` for a character literal; otherwise a lifetime.
            let width = match self.byte(start + 1) {
                b if b < 0x80 => 1,
                b if b >= 0xf0 => 4,
                b if b >= 0xe0 => 3,
                _ => 2,
            };
            if self.byte(start + 1 + width) != b'\'' && is_ident_byte(self.byte(start + 1)) {
                let mut end = start + 1;
                while end < s.len() && is_ident_byte(s[end]) {
                    end += 1;
                }
                self.at = end;
                return Some(Token::Lifetime(start + 1..end));
            }
        }
        self.quoted(b'\'');
        None
    }

    /// At an identifier's start: skips a Rust literal with a letter prefix (`b"…"`, `b'x'`,
    /// `r"…"`, `r#"…"#`, `br#"…"#`, `c"…"`) and says so.
    fn rust_prefixed_literal(&mut self) -> bool {
        let s = self.source;
        let start = self.at;
        let mut at = start;
        if matches!(self.byte(at), b'b' | b'c') {
            at += 1;
        }
        let raw = self.byte(at) == b'r';
        if raw {
            at += 1;
        }
        if at == start {
            return false;
        }
        if !raw {
            return match self.byte(at) {
                q @ (b'"' | b'\'') => {
                    self.at = at;
                    self.quoted(q);
                    true
                }
                _ => false,
            };
        }
        let hashes = s[at..].iter().take_while(|&&b| b == b'#').count();
        if self.byte(at + hashes) != b'"' {
            return false;
        }
        // The closing `"` followed by as many `#`.
        let mut end = at + hashes + 1;
        loop {
            match memchr::memchr(b'"', &s[end..]) {
                Some(i) => {
                    let quote = end + i;
                    let closing = s[quote + 1..].iter().take(hashes).all(|&b| b == b'#')
                        && quote + 1 + hashes <= s.len();
                    end = quote + 1;
                    if closing {
                        self.at = quote + 1 + hashes;
                        return true;
                    }
                }
                None => {
                    self.at = s.len();
                    return true;
                }
            }
        }
    }
}
