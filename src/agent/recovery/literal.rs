//! Objects written as literals of other languages (`{a: 1, b: 'x'}`), read key by key with the
//! guesses named.

use super::{too_deep, Failure};
use crate::protocol::depth::MAX_DEPTH;
use serde_json::{Map, Value};

/// The last resort, for JS-style object literals (`{file: main.go, start: 10}`): split the inside
/// on top-level commas, each part on its first top-level colon; values that are JSON (or
/// single-quoted, or object literals themselves) are taken as such, any other word is taken as a
/// string and its pointer reported in `guessed`. A part without a colon fails the whole repair.
/// It recurses into nested literals, at most `depth::MAX_DEPTH` levels (then the text is `TooDeep`).
pub(super) fn object_literal(text: &str) -> Result<Option<(Value, Vec<String>)>, Failure> {
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
