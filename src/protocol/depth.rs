//! How deep a request may nest. The walks over request input recurse (key canonicalisation,
//! schema validation, serde's decoding, JSON recovery's last repair, even dropping a
//! `serde_json::Value`), so a request nested deep enough would overflow the stack of the thread
//! that runs it and take the daemon down. Every request is held to `MAX_DEPTH` levels before any
//! of them runs: `keys::canonical`, the first walk of every call, checks it without recursing, and
//! JSON recovery refuses deeper text before it builds anything. serde_json's parser stops at 128
//! levels on its own, so a deeper request line never becomes a tree at all.

use coderd_core::error::Error;
use serde_json::Value;

/// The most levels of objects and arrays a request's params (or a tool call's text) may nest.
/// No method takes more than a few; the rest is stack headroom for the walks above.
pub const MAX_DEPTH: usize = 64;

/// A JSON Pointer shown in an error is cut here: 65 long keys would make a long message.
const SHOWN_POINTER_CHARS: usize = 120;

/// Where `value` first nests deeper than `MAX_DEPTH` (the pointer of that container), if it does.
/// Iterative: the check itself must not recurse.
pub fn beyond_limit(value: &Value) -> Option<String> {
    let mut open: Vec<(Children<'_>, Token<'_>)> = Vec::new();
    if let Some(children) = Children::of(value) {
        open.push((children, Token::Root));
    }
    while let Some((children, _)) = open.last_mut() {
        let Some((token, child)) = children.next() else {
            open.pop();
            continue;
        };
        if let Some(grandchildren) = Children::of(child) {
            open.push((grandchildren, token));
            if open.len() > MAX_DEPTH {
                return Some(pointer(&open));
            }
        }
    }
    None
}

/// The C210 for input nested too deep: `what` names it ("the params of `read`"), `at` says where
/// (a JSON Pointer, or where in a text the parser stopped).
pub fn error(what: &str, at: &str) -> Error {
    let shown = shorten(at);
    let kind = match at.is_empty() || at.starts_with('/') {
        true => "pointer",
        false => "position",
    };
    Error::bad_input(format!(
        "{what}: nested deeper than {MAX_DEPTH} levels (at {shown})"
    ))
    .with_data(kind, shown)
    .with_data("max_depth", MAX_DEPTH)
    .with_recovery(format!(
        "send flatter params: no method takes more than a few levels, and at most {MAX_DEPTH} are read"
    ))
}

/// Whether a serde_json error is its parser's own depth limit (128 levels).
pub fn is_parser_limit(e: &serde_json::Error) -> bool {
    e.to_string().starts_with("recursion limit exceeded")
}

fn shorten(at: &str) -> String {
    match at.char_indices().nth(SHOWN_POINTER_CHARS) {
        Some((cut, _)) => format!("{}…", &at[..cut]),
        None => at.to_string(),
    }
}

enum Token<'a> {
    Root,
    Key(&'a str),
    Index(usize),
}

enum Children<'a> {
    Object(serde_json::map::Iter<'a>),
    Array(std::iter::Enumerate<std::slice::Iter<'a, Value>>),
}

impl<'a> Children<'a> {
    fn of(value: &'a Value) -> Option<Children<'a>> {
        match value {
            Value::Object(map) => Some(Children::Object(map.iter())),
            Value::Array(items) => Some(Children::Array(items.iter().enumerate())),
            _ => None,
        }
    }

    fn next(&mut self) -> Option<(Token<'a>, &'a Value)> {
        match self {
            Children::Object(entries) => entries.next().map(|(k, v)| (Token::Key(k), v)),
            Children::Array(items) => items.next().map(|(i, v)| (Token::Index(i), v)),
        }
    }
}

fn pointer(open: &[(Children<'_>, Token<'_>)]) -> String {
    let mut out = String::new();
    for (_, token) in open {
        match token {
            Token::Root => {}
            Token::Key(key) => {
                out.push('/');
                out.push_str(&super::keys::pointer_escape(key));
            }
            Token::Index(i) => {
                out.push('/');
                out.push_str(&i.to_string());
            }
        }
        if out.len() > 4 * SHOWN_POINTER_CHARS {
            break;
        }
    }
    out
}

/// `depth` arrays, one inside the other, built without recursion.
#[cfg(test)]
pub fn nested_arrays(depth: usize) -> Value {
    let mut value = Value::Null;
    for _ in 0..depth {
        value = Value::Array(vec![value]);
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Takes a tree apart level by level, so a test's deep value never recurses when dropped.
    fn dismantle(mut value: Value) {
        while let Value::Array(mut items) = value {
            value = items.pop().unwrap_or(Value::Null);
        }
    }

    #[test]
    fn the_limit_is_exact_and_named_by_its_pointer() {
        let at_limit = nested_arrays(MAX_DEPTH);
        assert_eq!(beyond_limit(&at_limit), None);
        let over = json!({"args": {"a": nested_arrays(MAX_DEPTH - 1)}});
        let at = beyond_limit(&over).expect("65 levels");
        assert!(at.starts_with("/args/a/0/0/"), "{at}");
        assert_eq!(at.matches('/').count(), MAX_DEPTH);
        dismantle(at_limit);
    }

    #[test]
    fn a_hundred_thousand_levels_are_checked_without_recursing() {
        let deep = nested_arrays(100_000);
        assert!(beyond_limit(&deep).is_some());
        dismantle(deep);
    }

    #[test]
    fn serde_json_stops_deep_text_itself() {
        let text = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let e = serde_json::from_str::<Value>(&text).unwrap_err();
        assert!(is_parser_limit(&e), "{e}");
    }
}
