//! JSON recovery for tool-call arguments written by language models.
//!
//! Each repair is named, bounded (one linear pass over the text) and string-aware: it never
//! changes a byte inside a well-formed double-quoted string, so applying it to valid JSON changes
//! nothing. `recover` tries strict JSON first, then applies the repairs in order from safest to most
//! aggressive, keeping each one that changed the text, and stops at the first text that parses. The
//! names of the repairs that were needed are returned (`recovered_by`).
//!
//! Never guessed: string content. A text cut inside a string, after a `:` or `,`, or inside a number
//! or a literal is refused with the JSON Pointer of the place it was cut, so a truncated payload is
//! never taken as whole.

use crate::protocol::depth::{self, MAX_DEPTH};
use serde_json::{Map, Value};

/// How many times a JSON string holding JSON is decoded again (`"{\"cmd\":...}"`).
const MAX_UNSTRINGIFY: usize = 2;

/// What recovery produced: the value, the repairs it needed, and the places where the most
/// aggressive repair took a bare word as a string (empty unless `object_literal` ran).
#[derive(Debug, PartialEq)]
pub struct Recovered {
    pub value: Value,
    pub steps: Vec<&'static str>,
    pub guessed: Vec<String>,
}

/// Why a text could not be recovered.
#[derive(Debug, PartialEq)]
pub enum Failure {
    /// The text ends where more must follow: inside a string, after `:` or `,`, in a number.
    Truncated { pointer: String, what: &'static str },
    /// Two different JSON values one after the other (two calls in one).
    TwoValues,
    /// Not JSON, and no repair made it JSON; the strict parser's message.
    NotJson(String),
    /// The text nests deeper than `depth::MAX_DEPTH` levels; `at` says where (a JSON Pointer, or
    /// the line and column where the parser stopped).
    TooDeep { at: String },
}

type Repair = fn(&str) -> Option<String>;

/// The repairs in the order they are tried: safest first. `object_literal` is not here: it is the
/// last resort and reports what it guessed (see `recover`).
const REPAIRS: &[(&str, Repair)] = &[
    ("html_entities", html_entities),
    ("code_fence", code_fence),
    ("smart_quotes", smart_quotes),
    ("raw_control_chars", raw_control_chars),
    ("windows_paths", windows_paths),
    ("single_quotes", single_quotes),
    ("unquoted_keys", unquoted_keys),
    ("python_literals", python_literals),
    ("trailing_commas", trailing_commas),
    ("trailing_prose", trailing_prose),
    ("closed_truncated", close_truncated),
];

/// Recovers a JSON value from model output. Empty input is `{}`. What comes back never nests
/// deeper than `depth::MAX_DEPTH` levels: deeper text is `TooDeep`, found before any repair builds
/// a tree (so no walk over it, nor its drop, can recurse without bound).
pub fn recover(input: &str) -> Result<Recovered, Failure> {
    let recovered = recover_rounds(input, 0)?;
    match depth::beyond_limit(&recovered.value) {
        Some(at) => Err(Failure::TooDeep { at }),
        None => Ok(recovered),
    }
}

/// Where the brackets of `text` (outside double-quoted strings) first open more than `MAX_DEPTH`
/// levels: one pass, so text that deep costs no repair and no parse. Brackets inside single-quoted
/// strings count too; it takes more than `MAX_DEPTH` unclosed ones there to be refused.
fn nested_beyond_limit(text: &str) -> Option<usize> {
    let mut level = 0usize;
    for (i, bracket) in brackets_outside_strings(text) {
        match bracket {
            b'{' | b'[' => {
                level += 1;
                if level > MAX_DEPTH {
                    return Some(i);
                }
            }
            _ => level = level.saturating_sub(1),
        }
    }
    None
}

/// The brackets (`{`, `[`, `}`, `]`) of `text` outside double-quoted strings, with their byte
/// offsets; the scan ends at a string left open.
fn brackets_outside_strings(text: &str) -> impl Iterator<Item = (usize, u8)> + '_ {
    let bytes = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            let at = i;
            match bytes[at] {
                b'"' => i = string_end(text, at).unwrap_or(bytes.len()),
                bracket @ (b'{' | b'[' | b'}' | b']') => {
                    i += 1;
                    return Some((at, bracket));
                }
                _ => i += 1,
            }
        }
        None
    })
}

/// A parse that stopped at serde_json's own depth limit is final: no repair makes text flatter.
fn too_deep(e: &serde_json::Error) -> Option<Failure> {
    depth::is_parser_limit(e).then(|| Failure::TooDeep {
        at: format!("line {} column {}", e.line(), e.column()),
    })
}

fn recover_rounds(input: &str, round: usize) -> Result<Recovered, Failure> {
    let mut text = input.trim().to_string();
    if text.is_empty() {
        return Ok(done(Value::Object(Map::new()), Vec::new()));
    }
    if let Some(at) = nested_beyond_limit(&text) {
        return Err(Failure::TooDeep {
            at: format!("byte {at} of the text"),
        });
    }
    let strict_error = match serde_json::from_str::<Value>(&text) {
        Ok(value) => return unstringify(value, Vec::new(), round),
        Err(e) => match too_deep(&e) {
            Some(deep) => return Err(deep),
            None => e.to_string(),
        },
    };
    let mut steps = Vec::new();
    for (name, repair) in REPAIRS {
        if *name == "closed_truncated" {
            if let Some(cut) = truncation(&text) {
                return Err(cut);
            }
        }
        if *name == "trailing_prose" && has_second_value(&text) {
            return Err(Failure::TwoValues);
        }
        let Some(next) = repair(&text) else { continue };
        if next == text {
            continue;
        }
        text = next;
        steps.push(*name);
        match serde_json::from_str::<Value>(&text) {
            Ok(value) => return unstringify(value, steps, round),
            Err(e) => match too_deep(&e) {
                Some(deep) => return Err(deep),
                None => continue,
            },
        }
    }
    if let Some((value, guessed)) = object_literal(&text)? {
        steps.push("object_literal");
        return Ok(Recovered {
            value,
            steps,
            guessed,
        });
    }
    Err(Failure::NotJson(strict_error))
}

fn done(value: Value, steps: Vec<&'static str>) -> Recovered {
    Recovered {
        value,
        steps,
        guessed: Vec::new(),
    }
}

/// A JSON string whose content is itself a JSON object or array is decoded again (models often
/// double-encode `args`), at most `MAX_UNSTRINGIFY` times.
fn unstringify(
    value: Value,
    mut steps: Vec<&'static str>,
    round: usize,
) -> Result<Recovered, Failure> {
    let Value::String(inner) = &value else {
        return Ok(done(value, steps));
    };
    let trimmed = inner.trim();
    let looks_like_json = trimmed.starts_with('{') || trimmed.starts_with('[');
    if !looks_like_json || round >= MAX_UNSTRINGIFY {
        return Ok(done(value, steps));
    }
    let mut inner = recover_rounds(trimmed, round + 1)?;
    steps.push("unstringified");
    steps.append(&mut inner.steps);
    inner.steps = steps;
    Ok(inner)
}

/// Walks `text`, calling `outside` for each char that is not inside a double-quoted string and
/// copying string contents (with their escapes) as they are. Returns the rebuilt text.
fn map_outside_strings(
    text: &str,
    mut outside: impl FnMut(&mut String, &str, usize) -> usize,
) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < text.len() {
        if bytes[i] == b'"' {
            let end = string_end(text, i).unwrap_or(text.len());
            out.push_str(&text[i..end]);
            i = end;
            continue;
        }
        i += outside(&mut out, text, i);
    }
    out
}

/// The byte after the closing quote of the double-quoted string that starts at `start`, or `None`
/// when the string never closes.
fn string_end(text: &str, start: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

fn char_at(text: &str, i: usize) -> char {
    text[i..].chars().next().unwrap_or('\0')
}

/// Copies one char and says how many bytes it took.
fn copy_char(out: &mut String, text: &str, i: usize) -> usize {
    let c = char_at(text, i);
    out.push(c);
    c.len_utf8()
}

/// `&quot;` and friends: args that went through an HTML attribute. Only when a quote entity is
/// present (a lone `&amp;` may be real content).
fn html_entities(text: &str) -> Option<String> {
    let quoted = ["&quot;", "&#34;", "&#39;", "&apos;"]
        .iter()
        .any(|e| text.contains(e));
    if !quoted {
        return None;
    }
    Some(
        text.replace("&quot;", "\"")
            .replace("&#34;", "\"")
            .replace("&#39;", "'")
            .replace("&apos;", "'")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&"),
    )
}

/// A markdown code fence around the args (```json ... ```).
fn code_fence(text: &str) -> Option<String> {
    let rest = text.strip_prefix("```")?;
    let body_start = rest.find('\n')? + 1;
    let body = rest[body_start..].trim_end();
    let body = body.strip_suffix("```").unwrap_or(body);
    Some(body.trim().to_string())
}

/// Curly quotes used as JSON delimiters: “key”: “value”. Outside ASCII strings, `“`/`”`/`„` open and
/// close a string (written with `"`; an ASCII `"` inside is escaped), and `‘`/`’` become `'` for the
/// single-quote repair. Curly quotes inside ASCII strings are content and stay.
fn smart_quotes(text: &str) -> Option<String> {
    if !text.contains(['“', '”', '„', '‘', '’']) {
        return None;
    }
    let mut in_smart = false;
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let c = char_at(text, i);
        if in_smart {
            match c {
                '”' | '“' => {
                    out.push('"');
                    in_smart = false;
                }
                '"' => out.push_str("\\\""),
                '\\' => {
                    out.push('\\');
                    if let Some(next) = text[i + 1..].chars().next() {
                        out.push(next);
                        i += next.len_utf8();
                    }
                }
                _ => out.push(c),
            }
            i += c.len_utf8();
            continue;
        }
        match c {
            '"' => {
                let end = string_end(text, i).unwrap_or(text.len());
                out.push_str(&text[i..end]);
                i = end;
                continue;
            }
            '“' | '”' | '„' => {
                out.push('"');
                in_smart = true;
            }
            '‘' | '’' => out.push('\''),
            _ => out.push(c),
        }
        i += c.len_utf8();
    }
    Some(out)
}

/// Python's `True`, `False`, `None` as bare tokens outside strings.
fn python_literals(text: &str) -> Option<String> {
    if !["True", "False", "None"].iter().any(|w| text.contains(w)) {
        return None;
    }
    Some(map_outside_strings(text, |out, text, i| {
        let before = text[..i].chars().next_back();
        let starts_token = !before.is_some_and(is_word_char);
        for (word, json) in [("True", "true"), ("False", "false"), ("None", "null")] {
            let after = text[i + word.len().min(text.len() - i)..].chars().next();
            if starts_token && text[i..].starts_with(word) && !after.is_some_and(is_word_char) {
                out.push_str(json);
                return word.len();
            }
        }
        copy_char(out, text, i)
    }))
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Raw newlines, tabs and other control characters inside a string: JSON wants them escaped.
/// Unambiguous, so safe.
fn raw_control_chars(text: &str) -> Option<String> {
    if !text.chars().any(|c| c.is_control()) {
        return None;
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut in_string = false;
    let mut escaped = false;
    for c in text.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            } else if c.is_control() {
                match c {
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    other => out.push_str(&format!("\\u{:04x}", other as u32)),
                }
                continue;
            }
        } else if c == '"' {
            in_string = true;
        }
        out.push(c);
    }
    Some(out)
}

/// Windows paths: a string literal holding an escape JSON rejects (`"C:\Users\me"`) has every
/// backslash doubled except those before `"` and `\`; all or nothing per literal, and literals
/// whose escapes are all valid stay as they are.
fn windows_paths(text: &str) -> Option<String> {
    if !text.contains('\\') {
        return None;
    }
    let mut out = String::with_capacity(text.len() + 16);
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < text.len() {
        if bytes[i] != b'"' {
            i += copy_char(&mut out, text, i);
            continue;
        }
        let end = string_end(text, i).unwrap_or(text.len());
        let literal = &text[i..end];
        if has_invalid_escape(literal) {
            out.push_str(&double_backslashes(literal));
        } else {
            out.push_str(literal);
        }
        i = end;
    }
    Some(out)
}

fn has_invalid_escape(literal: &str) -> bool {
    let bytes = literal.as_bytes();
    let mut i = 1;
    while i + 1 < bytes.len() {
        if bytes[i] == b'\\' {
            let next = bytes[i + 1];
            let valid = match next {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => true,
                b'u' => literal
                    .get(i + 2..i + 6)
                    .is_some_and(|h| h.chars().all(|c| c.is_ascii_hexdigit())),
                _ => false,
            };
            if !valid {
                return true;
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    false
}

fn double_backslashes(literal: &str) -> String {
    let mut out = String::with_capacity(literal.len() + 8);
    let mut chars = literal.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some('"') | Some('\\') => {
                out.push('\\');
                out.push(chars.next().unwrap_or('\\'));
            }
            _ => out.push_str("\\\\"),
        }
    }
    out
}

/// Single-quoted strings become double-quoted ones: `\'` inside is `'`, a `"` inside is escaped.
/// A `'` closes the string only when the next non-space char could follow a JSON string
/// (`,` `:` `}` `]` or the end), so an apostrophe inside a word (`it's`) stays content.
fn single_quotes(text: &str) -> Option<String> {
    if !text.contains('\'') || !(text.starts_with('{') || text.starts_with('[')) {
        return None;
    }
    Some(map_outside_strings(text, |out, text, i| {
        if text.as_bytes()[i] != b'\'' {
            return copy_char(out, text, i);
        }
        let Some((content, len)) = single_quoted(&text[i..]) else {
            return copy_char(out, text, i);
        };
        out.push_str(&serde_json::to_string(&content).unwrap_or_default());
        len
    }))
}

/// The content of the single-quoted string at the start of `s` and its length in bytes.
fn single_quoted(s: &str) -> Option<(String, usize)> {
    let mut content = String::new();
    let mut chars = s.char_indices().skip(1);
    while let Some((at, c)) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some((_, '\'')) => content.push('\''),
                Some((_, other)) => {
                    content.push('\\');
                    content.push(other);
                }
                None => return None,
            },
            '\'' => {
                let rest = s[at + 1..].trim_start();
                let closes = rest.is_empty() || rest.starts_with([',', ':', '}', ']']);
                if closes {
                    return Some((unescape_single(&content), at + 1));
                }
                content.push('\'');
            }
            _ => content.push(c),
        }
    }
    None
}

/// Backslash escapes inside a single-quoted string mean what they mean in JSON (`\n`, `\"`).
fn unescape_single(raw: &str) -> String {
    if !raw.contains('\\') {
        return raw.to_string();
    }
    let escaped = raw.replace('"', "\\\"").replace("\\\\\"", "\\\"");
    serde_json::from_str::<String>(&format!("\"{escaped}\"")).unwrap_or_else(|_| raw.to_string())
}

/// `{file: "a"}`: an identifier (letters, digits, `_`, `-`) right after `{` or `,` and before `:`
/// is quoted.
fn unquoted_keys(text: &str) -> Option<String> {
    if !text.starts_with('{') {
        return None;
    }
    let mut after_opener = false;
    Some(map_outside_strings(text, |out, text, i| {
        let c = char_at(text, i);
        if matches!(c, '{' | ',') {
            after_opener = true;
            out.push(c);
            return 1;
        }
        if c.is_whitespace() {
            out.push(c);
            return c.len_utf8();
        }
        let was_after = std::mem::replace(&mut after_opener, false);
        if was_after && (c.is_alphabetic() || c == '_') {
            let len = text[i..]
                .find(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == '-'))
                .unwrap_or(text.len() - i);
            if text[i + len..].trim_start().starts_with(':') {
                out.push('"');
                out.push_str(&text[i..i + len]);
                out.push('"');
                return len;
            }
        }
        copy_char(out, text, i)
    }))
}

/// A `,` right before `}` or `]` (whitespace between allowed), outside strings.
fn trailing_commas(text: &str) -> Option<String> {
    if !text.contains(',') {
        return None;
    }
    Some(map_outside_strings(text, |out, text, i| {
        if text.as_bytes()[i] == b',' && text[i + 1..].trim_start().starts_with(['}', ']']) {
            return 1;
        }
        copy_char(out, text, i)
    }))
}

/// The byte after the first complete JSON value at the start of `text` (an object or array whose
/// brackets balance outside strings), if there is one.
fn first_value_end(text: &str) -> Option<usize> {
    if !text.starts_with(['{', '[']) {
        return None;
    }
    let mut depth = 0usize;
    for (i, bracket) in brackets_outside_strings(text) {
        match bracket {
            b'{' | b'[' => depth += 1,
            _ => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
        }
    }
    None
}

/// Whether a second, different JSON value follows the first one (a duplicated envelope that is
/// not an exact repeat): which one was meant cannot be known.
fn has_second_value(text: &str) -> bool {
    let Some(end) = first_value_end(text) else {
        return false;
    };
    let rest = text[end..].trim();
    if !rest.starts_with(['{', '[']) {
        return false;
    }
    let first = serde_json::from_str::<Value>(&text[..end]);
    let second = first_value_end(rest).map(|e| serde_json::from_str::<Value>(&rest[..e]));
    match (first, second) {
        (Ok(a), Some(Ok(b))) => a != b,
        _ => true,
    }
}

/// Prose (or an exact repeat of the call) after a complete JSON value is dropped.
fn trailing_prose(text: &str) -> Option<String> {
    let end = first_value_end(text)?;
    Some(text[..end].to_string())
}

/// Where a truncated text was cut, when closing its brackets would mean guessing content: inside
/// a string, after `:` or `,`, after a key, in a number or a literal. `None` when the text ends
/// between values, so appending the closers of the open brackets restores it.
pub fn truncation(text: &str) -> Option<Failure> {
    let scan = Scan::run(text);
    if scan.open.is_empty() || scan.broken {
        return None;
    }
    let what = scan.cut?;
    Some(Failure::Truncated {
        pointer: scan.pointer(),
        what,
    })
}

/// Appends the closers of the open `{`/`[` stack, only when the scan ends between values.
fn close_truncated(text: &str) -> Option<String> {
    let scan = Scan::run(text);
    if scan.cut.is_some() || scan.open.is_empty() || scan.broken {
        return None;
    }
    let mut out = text.trim_end().to_string();
    for frame in scan.open.iter().rev() {
        out.push(if frame.is_object { '}' } else { ']' });
    }
    Some(out)
}

/// One open bracket during a scan, with where the scan is inside it (for the pointer).
struct Frame {
    is_object: bool,
    key: Option<String>,
    index: usize,
}

/// A string-aware scan of (possibly truncated) JSON: the open brackets at the end and, if the
/// text stops where more must follow, what was cut.
struct Scan {
    open: Vec<Frame>,
    cut: Option<&'static str>,
    /// Something other than JSON was met (the closing repair does not apply).
    broken: bool,
}

impl Scan {
    fn run(text: &str) -> Scan {
        let mut scan = Scan {
            open: Vec::new(),
            cut: None,
            broken: false,
        };
        let bytes = text.as_bytes();
        // What the last token was: 'k' key string, 'v' complete value, ':' ',' '{' '[' openers.
        let mut last = b' ';
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            match b {
                b' ' | b'\n' | b'\r' | b'\t' => {}
                b'"' => {
                    let is_key = scan.open.last().is_some_and(|f| f.is_object)
                        && matches!(last, b'{' | b',');
                    let Some(end) = string_end(text, i) else {
                        if is_key {
                            scan.key_here(None);
                        }
                        scan.cut = Some("inside a string");
                        return scan;
                    };
                    if is_key {
                        let key = serde_json::from_str::<String>(&text[i..end]).ok();
                        scan.key_here(key);
                        last = b'k';
                    } else {
                        last = b'v';
                    }
                    i = end;
                    continue;
                }
                b'{' | b'[' => {
                    scan.open.push(Frame {
                        is_object: b == b'{',
                        key: None,
                        index: 0,
                    });
                    last = b;
                }
                b'}' | b']' => {
                    if scan.open.pop().is_none() {
                        scan.broken = true;
                        return scan;
                    }
                    last = b'v';
                }
                b':' => last = b':',
                b',' => {
                    if let Some(f) = scan.open.last_mut() {
                        if !f.is_object {
                            f.index += 1;
                        }
                    }
                    last = b',';
                }
                _ => {
                    let len = text[i..]
                        .find([',', '}', ']', ' ', '\n', '\r', '\t'])
                        .unwrap_or(text.len() - i);
                    let token = &text[i..i + len];
                    let literal = matches!(token, "true" | "false" | "null");
                    if i + len == text.len() && !literal {
                        scan.cut = Some("inside a number or literal");
                        return scan;
                    }
                    let known =
                        matches!(token, "true" | "false" | "null") || token.parse::<f64>().is_ok();
                    if !known {
                        scan.broken = true;
                        return scan;
                    }
                    last = b'v';
                    i += len;
                    continue;
                }
            }
            i += 1;
        }
        scan.cut = match last {
            b':' => Some("after a `:`"),
            b',' => Some("after a `,`"),
            b'k' => Some("after a key"),
            _ => None,
        };
        scan
    }

    fn key_here(&mut self, key: Option<String>) {
        if let Some(f) = self.open.last_mut() {
            f.key = key;
        }
    }

    /// The JSON Pointer of the place the text stops.
    fn pointer(&self) -> String {
        let mut out = String::new();
        for f in &self.open {
            out.push('/');
            if f.is_object {
                let key = f.key.clone().unwrap_or_default();
                out.push_str(&key.replace('~', "~0").replace('/', "~1"));
            } else {
                out.push_str(&f.index.to_string());
            }
        }
        out
    }
}

/// The last resort, for JS-style object literals (`{file: main.go, start: 10}`): split the inside
/// on top-level commas, each part on its first top-level colon; values that are JSON (or
/// single-quoted, or object literals themselves) are taken as such, any other word is taken as a
/// string and its pointer reported in `guessed`. A part without a colon fails the whole repair.
/// It recurses into nested literals, at most `depth::MAX_DEPTH` levels (then the text is `TooDeep`).
fn object_literal(text: &str) -> Result<Option<(Value, Vec<String>)>, Failure> {
    let mut guessed = Vec::new();
    let value = literal_object(text.trim(), "", 1, &mut guessed)?;
    Ok(value.map(|v| (v, guessed)))
}

fn literal_object(
    text: &str,
    at: &str,
    level: usize,
    guessed: &mut Vec<String>,
) -> Result<Option<Value>, Failure> {
    let Some(inner) = text.strip_prefix('{').and_then(|t| t.strip_suffix('}')) else {
        return Ok(None);
    };
    if level > MAX_DEPTH {
        return Err(Failure::TooDeep { at: at.to_string() });
    }
    let mut map = Map::new();
    for part in split_top_level(inner, ',') {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let Some(colon) = top_level_find(part, ':') else {
            return Ok(None);
        };
        let key = unquote(part[..colon].trim());
        if key.is_empty() {
            return Ok(None);
        }
        let pointer = format!("{at}/{}", crate::protocol::keys::pointer_escape(&key));
        match literal_value(part[colon + 1..].trim(), &pointer, level, guessed)? {
            Some(value) => map.insert(key, value),
            None => return Ok(None),
        };
    }
    Ok(Some(Value::Object(map)))
}

fn literal_value(
    raw: &str,
    pointer: &str,
    level: usize,
    guessed: &mut Vec<String>,
) -> Result<Option<Value>, Failure> {
    if raw.is_empty() {
        return Ok(None);
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(v) => return Ok(Some(v)),
        Err(e) => {
            if let Some(deep) = too_deep(&e) {
                return Err(deep);
            }
        }
    }
    if raw.starts_with('{') {
        return literal_object(raw, pointer, level + 1, guessed);
    }
    Ok(literal_scalar(raw, pointer, guessed))
}

/// A value of an object literal that is neither JSON nor a nested literal.
fn literal_scalar(raw: &str, pointer: &str, guessed: &mut Vec<String>) -> Option<Value> {
    if raw.len() >= 2 && raw.starts_with('\'') && raw.ends_with('\'') {
        return Some(Value::String(raw[1..raw.len() - 1].to_string()));
    }
    match raw.to_ascii_lowercase().as_str() {
        "true" => return Some(Value::Bool(true)),
        "false" => return Some(Value::Bool(false)),
        "null" | "none" => return Some(Value::Null),
        _ => {}
    }
    if raw.starts_with(['[', '"', '\'']) {
        return None;
    }
    guessed.push(pointer.to_string());
    Some(Value::String(raw.to_string()))
}

fn unquote(key: &str) -> String {
    let quoted = key.len() >= 2
        && ((key.starts_with('"') && key.ends_with('"'))
            || (key.starts_with('\'') && key.ends_with('\'')));
    match quoted {
        true => key[1..key.len() - 1].to_string(),
        false => key.to_string(),
    }
}

/// Splits on `sep` where it is outside quotes (either kind) and brackets.
fn split_top_level(text: &str, sep: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut from = 0;
    while let Some(at) = top_level_find(&text[from..], sep) {
        parts.push(&text[from..from + at]);
        from += at + sep.len_utf8();
    }
    parts.push(&text[from..]);
    parts
}

fn top_level_find(text: &str, sep: char) -> Option<usize> {
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '{' | '[' => depth += 1,
            '}' | ']' => depth -= 1,
            c if c == sep && depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ok(text: &str) -> (Value, Vec<&'static str>) {
        let r = recover(text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
        (r.value, r.steps)
    }

    #[test]
    fn valid_json_passes_unchanged_with_no_steps() {
        let (v, steps) = ok(r#"{"a": "x,}", "b": [1, 2]}"#);
        assert_eq!(v, json!({"a": "x,}", "b": [1, 2]}));
        assert!(steps.is_empty());
    }

    #[test]
    fn every_repair_is_a_no_op_on_valid_json() {
        let valid = r#"{"a":"it's “q” True, \"x\" C:\\dir","b":[1,{"c":null}],"d":"{'x':1,}"}"#;
        for (name, repair) in REPAIRS {
            if let Some(out) = repair(valid) {
                if *name != "closed_truncated" {
                    assert_eq!(out, valid, "{name}");
                }
            }
        }
    }

    #[test]
    fn trailing_commas_inside_strings_are_content() {
        let (v, steps) = ok(r#"{"a": "x,}", "b": [1,],}"#);
        assert_eq!(v, json!({"a": "x,}", "b": [1]}));
        assert_eq!(steps, ["trailing_commas"]);
    }

    #[test]
    fn a_cut_inside_a_string_is_refused_with_its_pointer() {
        let e = recover(r#"{"cmd":"write","args":{"file":"a","content":"hello wor"#).unwrap_err();
        assert_eq!(
            e,
            Failure::Truncated {
                pointer: "/args/content".into(),
                what: "inside a string"
            }
        );
    }

    #[test]
    fn a_cut_between_values_is_closed() {
        let (v, steps) = ok(r#"{"cmd":"read","args":{"file":"a.go","#.trim_end_matches(','));
        assert_eq!(v, json!({"cmd": "read", "args": {"file": "a.go"}}));
        assert_eq!(steps, ["closed_truncated"]);
    }

    #[test]
    fn apostrophes_inside_single_quoted_words_stay() {
        let (v, _) = ok("{'content': 'it's here', 'file': 'a.txt'}");
        assert_eq!(v, json!({"content": "it's here", "file": "a.txt"}));
    }

    #[test]
    fn text_nested_past_the_limit_is_refused_before_a_tree_is_built() {
        // Quoting the keys makes it JSON, which the parser finds too deep.
        let deep = format!("{}b{}", "{a:".repeat(100_000), "}".repeat(100_000));
        assert!(matches!(recover(&deep), Err(Failure::TooDeep { .. })));
        // A bare word in every object fails each parse early, so the object-literal repair is
        // the walk that meets the depth.
        let literal = |levels: usize| {
            let (open, close) = ("{a: b c, x:".repeat(levels), "}".repeat(levels));
            format!("{open}1{close}")
        };
        assert_eq!(
            recover(&literal(100_000)),
            Err(Failure::TooDeep {
                at: format!("byte {} of the text", 11 * MAX_DEPTH),
            })
        );
        // The repair holds to the limit on its own too.
        match object_literal(&literal(1_000)) {
            Err(Failure::TooDeep { at }) => assert!(at.starts_with("/x/x/x/"), "{at}"),
            other => panic!("{other:?}"),
        }
        let at_limit = recover(&literal(MAX_DEPTH)).unwrap();
        assert_eq!(at_limit.steps, ["unquoted_keys", "object_literal"]);
        assert_eq!(at_limit.guessed.len(), MAX_DEPTH);
    }

    #[test]
    fn object_literals_report_what_they_guessed() {
        let r = recover("{file: main.go, start: 10}").unwrap();
        assert_eq!(r.value, json!({"file": "main.go", "start": 10}));
        assert_eq!(r.guessed, ["/file"]);
        assert_eq!(r.steps, ["unquoted_keys", "object_literal"]);
    }
}
