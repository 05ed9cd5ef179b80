//! The map's cheap parse: a file parsed by tree-sitter without the insides of its function bodies,
//! whose names are counted by a lexer instead.
//!
//! Tagging a tree from nothing was mostly tree-sitter building nodes for function bodies (about
//! two thirds of a Go or Rust file's tokens), yet a body holds no outline item (what a function
//! defines is local) and the map wants only the names it uses, which for Go and Rust are every
//! identifier (`queries/{go,rust}/tags.scm`). So the tagger finds the bodies with a lexer
//! (`gaps`), gives the parser the rest of the file as its included ranges (every node keeps its
//! place, so lines, signatures and docs are those of the full parse), and counts the identifiers
//! inside each body with the same lexer (`count_names`).
//!
//! Go's package-level composite literals (`var table = []T{…}`) are left out the same way: they
//! hold no item either, and a generated parser's or protobuf descriptor's tables were a fifth of
//! what the skeleton still parsed. So are whole Rust `use` declarations (their names counted like
//! a body's) and Go `import` declarations (no name the tags query counts): neither holds an item,
//! and the map reads a file's imports from the same tokens (`map::imports`).
//!
//! The file is lexed once (`lexer::lex_with_comments`); the body finder walks its tokens, the
//! name counter and the imports read them again without lexing.
//!
//! Comments outside the bodies are left out too (`left_out_comments`): they were two fifths of
//! what a Go skeleton still parsed, tree-sitter lexes them byte by byte, and they hold no item.
//! What the outline reads from them, an item's doc and the line its leading matter starts on, is
//! read from the lexer's comments instead (`docs::extent`). A comment stays in the parse where
//! leaving it out could change what the parser sees: touching a token (`a/* c */b` would join
//! `a` and `b`), or inside a Rust macro call, whose tokens a query's `#prev-is?` reads.
//!
//! The skeleton is used only when it proves itself: no syntax error, and each left-out range is
//! exactly the inside of a function's body block (or, in Go, of a composite literal). Anything else (a body the lexer misjudged, a
//! file with errors) is parsed in full as before. What the lexer cannot tell from a token alone
//! (Go's package names in types, Rust's shorthand fields) counts as a reference: a little noise in
//! the use counts, no change to any definition.

use super::docs::Comment;
use super::lexer::{is_keyword, Dialect, Token};
use std::ops::Range;
use tree_sitter::Tree;

/// The node kinds a body block may sit in.
fn is_function(dialect: Dialect, kind: &str) -> bool {
    match dialect {
        Dialect::Go => matches!(kind, "function_declaration" | "method_declaration"),
        Dialect::Rust => kind == "function_item",
    }
}

/// A skeleton parse: the tree, and the left-out ranges whose names the lexer counts (the insides
/// of the bodies, of Go's package-level composite literals, `go_var_literals`, and Rust's `use`
/// declarations, `rust_use`), in file order. Go's import declarations are left out too, but hold
/// no name the map counts (package names and strings).
pub struct Skeleton {
    pub tree: Tree,
    pub bodies: Vec<Range<usize>>,
    /// The comments left out of the parse outside the other ranges, in file order: the
    /// outline's leading comments (`docs::extent`).
    pub comments: Vec<Comment>,
}

/// Parses `source` (already masked by the language's rewrites: same length; `tokens` and
/// `comments` are its tokens and comments, `lex_with_comments`) without its function bodies and
/// comments; `None` when the skeleton does not prove itself (see the module's doc).
pub fn parse(
    dialect: Dialect,
    parser: &mut tree_sitter::Parser,
    source: &[u8],
    tokens: &[Token],
    comments: &[Range<usize>],
) -> Option<Skeleton> {
    let Gaps {
        bodies,
        named,
        quiet,
        macros,
    } = gaps(dialect, source, tokens);
    if bodies.is_empty() && named.is_empty() && quiet.is_empty() {
        return None;
    }
    let mut all: Vec<Range<usize>> = bodies.iter().chain(&named).chain(&quiet).cloned().collect();
    all.sort_by_key(|r| r.start);
    let comments = left_out_comments(dialect, source, comments, &all, &macros);
    all.extend(comments.iter().map(|c| c.bytes.clone()));
    all.sort_by_key(|r| r.start);
    let all = merge_spaced(dialect, source, all);
    parser
        .set_included_ranges(&crate::recover::included_outside(source, &all))
        .ok()?;
    let tree = parser.parse(source, None);
    parser.set_included_ranges(&[]).ok()?;
    let tree = tree?;
    let root = tree.root_node();
    let proven = !root.has_error() && bodies.iter().all(|b| is_body(dialect, &tree, b));
    let mut bodies = bodies;
    if !named.is_empty() {
        bodies.extend(named);
        bodies.sort_by_key(|b| b.start);
    }
    proven.then_some(Skeleton {
        tree,
        bodies,
        comments,
    })
}

/// The comments (sorted) the skeleton leaves out: those outside the other left-out ranges
/// (`gaps`, sorted) and Rust's macro calls (`macros`, in order), with whitespace or the file's
/// edge on both sides, each with its rows as the grammar gives them.
fn left_out_comments(
    dialect: Dialect,
    source: &[u8],
    comments: &[Range<usize>],
    gaps: &[Range<usize>],
    macros: &[Range<usize>],
) -> Vec<Comment> {
    let spaced = |at: Option<&u8>| at.is_none_or(u8::is_ascii_whitespace);
    let outside = |ranges: &[Range<usize>], c: &Range<usize>| {
        // The last range starting before the comment; ranges do not nest across lists.
        let at = ranges.partition_point(|r| r.start <= c.start);
        at == 0 || ranges[at - 1].end <= c.start
    };
    let kept: Vec<&Range<usize>> = comments
        .iter()
        .filter(|c| {
            spaced(c.start.checked_sub(1).and_then(|i| source.get(i)))
                && spaced(source.get(c.end))
                && outside(gaps, c)
                && outside(macros, c)
        })
        .collect();
    let bounds: Vec<usize> = kept.iter().flat_map(|c| [c.start, c.end]).collect();
    let points = crate::recover::points_at(source, &bounds);
    kept.iter()
        .zip(points.chunks(2))
        .map(|(c, p)| Comment {
            bytes: (*c).clone(),
            first_row: p[0].row,
            last_row: p[1].row + usize::from(ends_on_next_row(dialect, source, c)),
        })
        .collect()
}

/// `gaps` (sorted, disjoint) with those only whitespace apart joined: tree-sitter's lexer looks for
/// its place among the included ranges from the first one at every token (`ts_lexer_goto`), so a
/// file's parse costs its tokens times its ranges, and a run of doc comment lines or `use`
/// declarations is one range instead of one per line. Whitespace means nothing to Rust's grammar;
/// Go's ends a statement at a newline, so two Go gaps are joined across a newline only where the
/// second ends its line (the newline after it stands for the ones left out).
fn merge_spaced(dialect: Dialect, source: &[u8], gaps: Vec<Range<usize>>) -> Vec<Range<usize>> {
    let blank = |bytes: &[u8]| bytes.iter().all(u8::is_ascii_whitespace);
    let ends_line = |at: usize| {
        let rest = &source[at..];
        let line = memchr::memchr(b'\n', rest).map_or(rest, |i| &rest[..i]);
        blank(line)
    };
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(gaps.len());
    for gap in gaps {
        if let Some(last) = merged.last_mut() {
            let between = &source[last.end.min(gap.start)..gap.start];
            let joins = blank(between)
                && (dialect == Dialect::Rust || !between.contains(&b'\n') || ends_line(gap.end));
            if joins {
                last.end = last.end.max(gap.end);
                continue;
            }
        }
        merged.push(gap);
    }
    merged
}

/// tree-sitter-rust's line doc comment (`///`, not `////`; `//!`) holds its newline, so it ends
/// on the next row: one blank line after it still leaves it adjacent to an item.
fn ends_on_next_row(dialect: Dialect, source: &[u8], comment: &Range<usize>) -> bool {
    let text = &source[comment.clone()];
    let doc = text.starts_with(b"//!") || (text.starts_with(b"///") && !text.starts_with(b"////"));
    dialect == Dialect::Rust && doc && source.get(comment.end) == Some(&b'\n')
}

/// Whether the braces around `inside` are a function's body block (or, in Go, a composite
/// literal's braces). Found with a cursor from the root down, which knows each node's parent
/// (`Node::parent` searches from the root again).
fn is_body(dialect: Dialect, tree: &Tree, inside: &Range<usize>) -> bool {
    let braces = inside.start - 1..inside.end + 1;
    let mut cursor = tree.walk();
    let mut parent = None;
    // Down to the innermost node of the braces' range, as `descendant_for_byte_range` finds it.
    loop {
        let node = cursor.node();
        let range = node.byte_range();
        if range.start > braces.start || range.end < braces.end {
            return false;
        }
        let here = range == braces;
        if cursor.goto_first_child_for_byte(braces.start).is_none() {
            break;
        }
        let child = cursor.node().byte_range();
        let covers = child.start <= braces.start && child.end >= braces.end;
        if here && !covers {
            cursor.goto_parent();
            break;
        }
        parent = Some(node);
    }
    let node = cursor.node();
    node.byte_range() == braces
        && match node.kind() {
            "block" => parent.is_some_and(|p| is_function(dialect, p.kind())),
            "literal_value" => dialect == Dialect::Go,
            _ => false,
        }
}

/// What the skeleton leaves out of a file, each list in file order.
#[derive(Default)]
struct Gaps {
    /// The insides of function bodies and of Go's package-level composite literals: `parse`
    /// checks each is a block's (a literal's) inside.
    bodies: Vec<Range<usize>>,
    /// Whole Rust `use` declarations: the outline lists none, the map's imports are read from the
    /// tokens (`map::imports`), and their names are counted by the lexer.
    named: Vec<Range<usize>>,
    /// Whole Go import declarations: no item, and no name the tags query counts.
    quiet: Vec<Range<usize>>,
    /// Rust's macro calls' delimited groups (not left out: their comments stay in the parse).
    macros: Vec<Range<usize>>,
}

/// The insides of the function bodies the lexer finds (between the braces, non-empty), in order.
#[cfg(test)]
pub fn bodies(dialect: Dialect, source: &[u8], tokens: &[Token]) -> Vec<Range<usize>> {
    gaps(dialect, source, tokens).bodies
}

fn gaps(dialect: Dialect, source: &[u8], tokens: &[Token]) -> Gaps {
    let mut lexer = Cursor {
        dialect,
        source,
        tokens,
        at: 0,
    };
    let mut found = Gaps::default();
    let mut previous: Option<Token> = None;
    while let Some(token) = lexer.next() {
        let starts_function = match (dialect, &previous, &token) {
            // gofmt puts every function declaration's `func` at a line's start; a `func` elsewhere is
            // a literal (or an unformatted file, parsed in full where it is).
            (Dialect::Go, _, Token::Ident(r)) => {
                &source[r.clone()] == b"func" && at_line_start(source, r.start)
            }
            // `fn name`, not the type `fn(u8)`.
            (Dialect::Rust, Some(Token::Ident(f)), Token::Ident(_)) => &source[f.clone()] == b"fn",
            _ => false,
        };
        if dialect == Dialect::Rust {
            found
                .macros
                .extend(skip_macro(&mut lexer, &previous, &token));
            if let Some(range) = rust_use(&mut lexer, &token) {
                found.named.push(range);
                previous = None;
                continue;
            }
        }
        if let (Dialect::Go, Token::Ident(r)) = (dialect, &token) {
            if at_line_start(source, r.start) {
                match &source[r.clone()] {
                    b"var" => {
                        go_var_literals(&mut lexer, &mut found.bodies);
                        previous = None;
                        continue;
                    }
                    b"import" => {
                        found.quiet.extend(go_import(&mut lexer, r.start));
                        previous = None;
                        continue;
                    }
                    _ => {}
                }
            }
        }
        previous = Some(token);
        if starts_function {
            if let Some(body) = body_after_signature(&mut lexer) {
                if !body.is_empty() {
                    found.bodies.push(body);
                }
            }
            previous = None;
        }
    }
    found
}

/// At a Rust `use` that starts an item (after `;`, `}`, `{` or nothing, with its `pub` or
/// `pub(…)`): the whole declaration through its `;`, the cursor after it. Anything but a plain use
/// tree before the `;` (a missing `;`, an attribute, a keyword that opens an item) leaves it in the
/// parse.
fn rust_use(lexer: &mut Cursor, token: &Token) -> Option<Range<usize>> {
    let Token::Ident(word) = token else {
        return None;
    };
    if &lexer.source[word.clone()] != b"use" {
        return None;
    }
    let source = lexer.source;
    let word_at = |i: usize, w: &[u8]| matches!(lexer.tokens.get(i), Some(Token::Ident(r)) if &source[r.clone()] == w);
    // The `use` token is at `lexer.at - 1`; step back over `pub` and `pub(…)`.
    let mut first = lexer.at - 1;
    if first > 0 && matches!(lexer.tokens[first - 1], Token::Punct(b')', _)) {
        let open = lexer.tokens[..first - 1]
            .iter()
            .rposition(|t| matches!(t, Token::Punct(b'(', _)))?;
        if open > 0 && word_at(open - 1, b"pub") {
            first = open - 1;
        } else {
            return None;
        }
    } else if first > 0 && word_at(first - 1, b"pub") {
        first -= 1;
    }
    let starts_item =
        first == 0 || matches!(lexer.tokens[first - 1], Token::Punct(b';' | b'{' | b'}', _));
    if !starts_item {
        return None;
    }
    let start = match &lexer.tokens[first] {
        Token::Ident(r) | Token::Lifetime(r) => r.start,
        Token::Punct(_, at) => *at,
    };
    for (i, t) in lexer.tokens[lexer.at..].iter().enumerate() {
        match t {
            Token::Punct(b';', at) => {
                lexer.at += i + 1;
                return Some(start..at + 1);
            }
            Token::Punct(b':' | b'{' | b'}' | b',' | b'*', _) => {}
            Token::Ident(r) if !breaks_use(&source[r.clone()]) => {}
            _ => return None,
        }
    }
    None
}

/// After a Go `import` at a line's start: the whole declaration (`import ( … )`, or one spec to
/// its line's end), the cursor after it.
fn go_import(lexer: &mut Cursor, start: usize) -> Option<Range<usize>> {
    let source = lexer.source;
    if let Some(Token::Punct(b'(', _)) = lexer.peek() {
        lexer.next();
        let close = lexer.skip_group(b'(')?;
        return Some(start..close + 1);
    }
    // `import "x"`, `import alias "x"`: the lexer skips strings, so the line's end bounds it.
    let end = memchr::memchr(b'\n', &source[start..]).map_or(source.len(), |i| start + i);
    let line = &source[start..end];
    if !line.ends_with(b"\"") {
        return None; // a comment or something unusual after the path: left in the parse
    }
    while lexer.peek().is_some_and(|t| t.start() < end) {
        lexer.next();
    }
    Some(start..end)
}

fn at_line_start(source: &[u8], at: usize) -> bool {
    at == 0 || source[at - 1] == b'\n'
}

/// After a Go `var` at a line's start (gofmt puts every package-level one there): the insides of
/// the composite literals its values build (`var x = []T{…}`, `var ( m = map[K]V{…} )`), up to the
/// next declaration at a line's start. Like a body, a literal's inside holds no item (a function
/// literal there holds locals) and gives the map only names, and package-level tables (a
/// generated parser's, a protobuf descriptor's bytes) were a fifth of what the skeleton still
/// parsed. Braces after `func` (a function literal's body, or a function type) are skipped, not
/// left out; `parse` checks that each left-out range is a literal's.
fn go_var_literals(lexer: &mut Cursor, found: &mut Vec<Range<usize>>) {
    let (mut previous, mut after_func): (Option<Token>, bool) = (None, false);
    while let Some(token) = lexer.peek() {
        if matches!(&token, Token::Ident(r) if at_line_start(lexer.source, r.start)) {
            return;
        }
        lexer.next();
        match &token {
            Token::Punct(b'=', _) => after_func = false,
            Token::Ident(r) if &lexer.source[r.clone()] == b"func" => after_func = true,
            Token::Punct(b'{', open) => {
                let type_braces = matches!(&previous, Some(Token::Ident(r))
                    if matches!(&lexer.source[r.clone()], b"struct" | b"interface"));
                // `T{`, `pkg.T{`, `[]T{`, `map[K]V{`, `T[int]{`, `struct{…}{`.
                let after_type = matches!(
                    &previous,
                    Some(Token::Ident(_) | Token::Punct(b']' | b'}', _))
                );
                let Some(close) = lexer.skip_group(b'{') else {
                    return;
                };
                if !type_braces && !after_func && after_type && close > open + 1 {
                    found.push(open + 1..close);
                }
                previous = Some(Token::Punct(b'}', close));
                continue;
            }
            _ => {}
        }
        previous = Some(token);
    }
}

/// After `name!` (or `macro_rules! name`), skips the macro's delimited group and returns its
/// range: what a macro holds is tokens, not items, whatever it looks like.
fn skip_macro(lexer: &mut Cursor, previous: &Option<Token>, token: &Token) -> Option<Range<usize>> {
    let (Some(Token::Ident(name)), Token::Punct(b'!', _)) = (previous, token) else {
        return None;
    };
    let mut next = lexer.peek();
    if &lexer.source[name.clone()] == b"macro_rules" {
        if let Some(Token::Ident(_)) = next {
            lexer.next();
            next = lexer.peek();
        }
    }
    let Some(Token::Punct(open @ (b'(' | b'[' | b'{'), at)) = next else {
        return None;
    };
    lexer.next();
    // An unclosed group runs to the file's end.
    let close = lexer.skip_group(open).unwrap_or(lexer.source.len());
    Some(at..close + 1)
}

/// From just after `func`/`fn name`: the inside of the body's braces, or `None` when the
/// declaration has no body (a `;` or, in Go, a new line's declaration first).
fn body_after_signature(lexer: &mut Cursor) -> Option<Range<usize>> {
    let mut depth = 0usize;
    let mut previous: Option<Token> = None;
    loop {
        let token = lexer.peek()?;
        if depth == 0 && lexer.dialect == Dialect::Go && previous.is_some() {
            if let Token::Ident(r) = &token {
                if r.start == 0 || lexer.source[r.start - 1] == b'\n' {
                    return None;
                }
            }
        }
        lexer.next();
        match token {
            Token::Punct(b'(' | b'[', _) => depth += 1,
            Token::Punct(b')' | b']', _) => depth = depth.saturating_sub(1),
            Token::Punct(b';', _) if depth == 0 => return None,
            Token::Punct(b'{', open) if depth == 0 => {
                let type_braces = matches!(&previous, Some(Token::Ident(r))
                    if matches!(&lexer.source[r.clone()], b"struct" | b"interface"));
                if type_braces && lexer.dialect == Dialect::Go {
                    lexer.skip_group(b'{');
                } else {
                    let close = lexer.skip_group(b'{')?;
                    return Some(open + 1..close);
                }
            }
            Token::Punct(b'{', _) => {
                lexer.skip_group(b'{');
            }
            _ => {}
        }
        previous = Some(token);
    }
}

/// Counts the identifiers among `tokens` (the file's, `lex`) inside `range` as references
/// (keywords and literals are not names).
pub fn count_names<'s>(
    dialect: Dialect,
    source: &'s [u8],
    tokens: &[Token],
    range: Range<usize>,
    count: &mut impl FnMut(&'s [u8]),
) {
    for name in names(dialect, source, tokens, range) {
        count(&source[name]);
    }
}

/// The byte ranges of the names among `tokens` inside `range` (`count_names`).
pub fn names<'t>(
    dialect: Dialect,
    source: &'t [u8],
    tokens: &'t [Token],
    range: Range<usize>,
) -> impl Iterator<Item = Range<usize>> + 't {
    let first = tokens.partition_point(|t| t.start() < range.start);
    let inside = tokens[first..]
        .iter()
        .take_while(move |t| t.start() < range.end);
    inside.filter_map(move |token| match token {
        Token::Ident(r) if !is_keyword(dialect, &source[r.clone()]) => Some(r.clone()),
        // `'a` and `'outer:`: tree-sitter's lifetimes and labels hold an identifier.
        Token::Lifetime(r) => Some(r.clone()),
        _ => None,
    })
}

/// A walk over a file's tokens (`lex`), as the body finder reads them.
struct Cursor<'s> {
    dialect: Dialect,
    source: &'s [u8],
    tokens: &'s [Token],
    at: usize,
}

impl Cursor<'_> {
    fn next(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.at)?.clone();
        self.at += 1;
        Some(token)
    }

    fn peek(&self) -> Option<Token> {
        self.tokens.get(self.at).cloned()
    }

    /// After an opening delimiter: skips to its matching closer (nested ones of the same kind
    /// counted) and returns the closer's offset; `None` at the end of the file.
    fn skip_group(&mut self, open: u8) -> Option<usize> {
        let close = match open {
            b'(' => b')',
            b'[' => b']',
            _ => b'}',
        };
        let mut depth = 1usize;
        while let Some(token) = self.next() {
            match token {
                Token::Punct(b, _) if b == open => depth += 1,
                Token::Punct(b, at) if b == close => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(at);
                    }
                }
                _ => {}
            }
        }
        None
    }
}

/// Words that end a Rust `use` declaration as the skeleton reads it (an item's or a statement's
/// start after a missing `;`): a `use` holding one is kept in the parse (`rust_use`).
pub(crate) fn breaks_use(word: &[u8]) -> bool {
    matches!(
        word,
        b"fn"
            | b"struct"
            | b"enum"
            | b"impl"
            | b"trait"
            | b"mod"
            | b"pub"
            | b"use"
            | b"let"
            | b"const"
            | b"static"
            | b"type"
            | b"where"
            | b"extern"
            | b"union"
            | b"macro_rules"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexer::lex;

    fn bodies_of(dialect: Dialect, source: &str) -> Vec<&str> {
        let tokens = lex(dialect, source.as_bytes());
        let found = bodies(dialect, source.as_bytes(), &tokens);
        found.into_iter().map(|r| &source[r]).collect()
    }

    #[test]
    fn go_bodies_are_those_of_declarations() {
        let source = "package p\n\nfunc A(x interface{}) map[string]struct{} {\n\treturn nil\n}\n\nvar f = func() { g() }\n\nfunc (r *T) M() (int, error) { s := `\n}\nfunc` ; _ = '}'; return 0, nil }\n\nfunc asm(x int)\n\nfunc E() {}\n";
        assert_eq!(
            bodies_of(Dialect::Go, source),
            [
                "\n\treturn nil\n",
                " s := `\n}\nfunc` ; _ = '}'; return 0, nil "
            ]
        );
    }

    #[test]
    fn go_package_level_literals_are_left_out_too() {
        let source = "package p\n\nvar a = []int{1, 2}\n\nvar (\n\tm = map[string]struct{}{\"x\": {}}\n\tf = func() T { return T{} }\n\tt = pkg.T{A: b}\n\te = T{}\n)\n\nfunc F() { x := T{1} }\n";
        assert_eq!(
            bodies_of(Dialect::Go, source),
            ["1, 2", "\"x\": {}", "A: b", " x := T{1} "]
        );
        // Each is a literal's inside, so the skeleton proves itself.
        let language = crate::languages::by_name("go").unwrap();
        let parsed = crate::parse_for_tags(language, source.as_bytes(), false).unwrap();
        assert_eq!(parsed.skeleton.unwrap().bodies.len(), 4);
    }

    #[test]
    fn rust_bodies_skip_macros_strings_and_lifetimes() {
        let source = "macro_rules! m { () => { fn x() { } } }\nimpl<'a> T<'a> {\n    fn a(&'a self) -> [u8; 2] where Self: Sized { let c = '}'; r#\"}\"#; b'{'; 'outer: loop {} }\n    fn b();\n}\nm! { fn hidden() { 1 } }\ntype F = fn(u8) -> u8;\nfn c() { /* } /* } */ */ }\n";
        assert_eq!(
            bodies_of(Dialect::Rust, source),
            [
                " let c = '}'; r#\"}\"#; b'{'; 'outer: loop {} ",
                " /* } /* } */ */ "
            ]
        );
    }

    /// (the named gaps, the quiet ones) as text.
    fn declarations_of(dialect: Dialect, source: &str) -> (Vec<&str>, Vec<&str>) {
        let tokens = lex(dialect, source.as_bytes());
        let found = gaps(dialect, source.as_bytes(), &tokens);
        let text = |ranges: Vec<Range<usize>>| ranges.into_iter().map(|r| &source[r]).collect();
        (text(found.named), text(found.quiet))
    }

    #[test]
    fn use_and_import_declarations_are_left_out_whole() {
        // Rust: plain `use` items with their visibility; not one under an attribute, nor one
        // without its `;` (the parse keeps what it cannot vouch for), nor `use` in a body.
        let rust = "use a::{b, c as d};\npub(crate) use e::*;\npub use ::f;\n#[cfg(test)]\nuse g;\nmod m { use h::i; }\nfn x() { use j; }\nuse k\nfn y() {}\n";
        assert_eq!(
            declarations_of(Dialect::Rust, rust),
            (
                vec![
                    "use a::{b, c as d};",
                    "pub(crate) use e::*;",
                    "pub use ::f;",
                    "use h::i;"
                ],
                vec![]
            )
        );
        // Go: import blocks and single imports ending their line, quiet (no name to count).
        let go = "package p\n\nimport \"fmt\"\nimport (\n\tx \"a/b\" // c\n\t\"d\"\n)\nimport y \"e\" // f\n\nfunc F() {}\n";
        assert_eq!(
            declarations_of(Dialect::Go, go),
            (
                vec![],
                vec!["import \"fmt\"", "import (\n\tx \"a/b\" // c\n\t\"d\"\n)"]
            )
        );
        // Both parse as skeletons whose tags are the full parse's (`tags::tests`).
        for (name, source) in [("rust", rust.replace("use k\n", "")), ("go", go.to_owned())] {
            let language = crate::languages::by_name(name).unwrap();
            let lexed = crate::parse_for_tags(language, source.as_bytes(), false).unwrap();
            assert!(lexed.skeleton.is_some(), "{name}");
        }
    }

    /// Gaps only whitespace apart become one included-range gap; in Go not across a newline the
    /// gap after it does not restore (`x int /* a */` then `/* b */ y` on the next line).
    #[test]
    fn gaps_only_whitespace_apart_are_joined() {
        // (dialect, source, gaps, joined), each gap as (start, end).
        type Pairs = &'static [(usize, usize)];
        let cases: [(Dialect, &str, Pairs, Pairs); 5] = [
            (
                Dialect::Rust,
                "/// a\n/// b\nfn f() {}",
                &[(0, 5), (6, 11)],
                &[(0, 11)],
            ),
            (
                Dialect::Rust,
                "// a\nx // b",
                &[(0, 4), (7, 11)],
                &[(0, 4), (7, 11)],
            ),
            (
                Dialect::Go,
                "// a\n\n// b\nfunc",
                &[(0, 4), (6, 10)],
                &[(0, 10)],
            ),
            (
                Dialect::Go,
                "x /* a */\n/* b */ y",
                &[(2, 9), (10, 17)],
                &[(2, 9), (10, 17)],
            ),
            (
                Dialect::Go,
                "x /* a */ /* b */ y",
                &[(2, 9), (10, 17)],
                &[(2, 17)],
            ),
        ];
        let ranges =
            |pairs: &[(usize, usize)]| pairs.iter().map(|&(a, b)| a..b).collect::<Vec<_>>();
        for (dialect, source, gaps, joined) in cases {
            let got = merge_spaced(dialect, source.as_bytes(), ranges(gaps));
            assert_eq!(got, ranges(joined), "{source:?}");
        }
    }

    #[test]
    fn names_are_identifiers_outside_strings_and_comments() {
        let source = "{ let x: u8 = foo(\"bar\", 'q', b\"baz\") + self.field; // note\n 'a: loop { break 'a; } r#\"raw\"#; Self::new() }";
        let mut names = Vec::new();
        let tokens = lex(Dialect::Rust, source.as_bytes());
        count_names(
            Dialect::Rust,
            source.as_bytes(),
            &tokens,
            0..source.len(),
            &mut |n| names.push(std::str::from_utf8(n).unwrap()),
        );
        assert_eq!(names, ["x", "foo", "field", "a", "a", "Self", "new"]);
    }
}
