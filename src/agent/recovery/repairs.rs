//! The named repairs, each one linear pass that leaves well-formed strings alone.

use super::{brackets_outside_strings, char_at, copy_char, map_outside_strings, string_end};
use coderd_core::typography::straight_quote;
use serde_json::Value;

/// `&quot;` and friends: args that went through an HTML attribute. Only when a quote entity is
/// present (a lone `&amp;` may be real content).
pub(super) fn html_entities(text: &str) -> Option<String> {
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
pub(super) fn code_fence(text: &str) -> Option<String> {
    let rest = text.strip_prefix("```")?;
    let body_start = rest.find('\n')? + 1;
    let body = rest[body_start..].trim_end();
    let body = body.strip_suffix("```").unwrap_or(body);
    Some(body.trim().to_string())
}

/// Curly quotes used as JSON delimiters: “key”: “value”. Outside ASCII strings, `“`/`”`/`„` open and
/// close a string (written with `"`; an ASCII `"` inside is escaped), and `‘`/`’` become `'` for the
/// single-quote repair. Curly quotes inside ASCII strings are content and stay.
pub(super) fn smart_quotes(text: &str) -> Option<String> {
    if !text.contains(|c| straight_quote(c).is_some()) {
        return None;
    }
    let mut in_smart = false;
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let c = char_at(text, i);
        if in_smart {
            match c {
                // `„` only ever opens a quotation (`„so“`), so it is content here.
                c if c != '„' && straight_quote(c) == Some('"') => {
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
            c if straight_quote(c) == Some('"') => {
                out.push('"');
                in_smart = true;
            }
            c if straight_quote(c) == Some('\'') => out.push('\''),
            _ => out.push(c),
        }
        i += c.len_utf8();
    }
    Some(out)
}

/// Python's `True`, `False`, `None` as bare tokens outside strings.
pub(super) fn python_literals(text: &str) -> Option<String> {
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
pub(super) fn raw_control_chars(text: &str) -> Option<String> {
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
pub(super) fn windows_paths(text: &str) -> Option<String> {
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
pub(super) fn single_quotes(text: &str) -> Option<String> {
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
pub(super) fn unquoted_keys(text: &str) -> Option<String> {
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
pub(super) fn trailing_commas(text: &str) -> Option<String> {
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
pub(super) fn has_second_value(text: &str) -> bool {
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
pub(super) fn trailing_prose(text: &str) -> Option<String> {
    let end = first_value_end(text)?;
    Some(text[..end].to_string())
}
