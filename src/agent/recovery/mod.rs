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

mod literal;
mod repairs;
mod truncation;

use literal::object_literal;
use repairs::{
    code_fence, has_second_value, html_entities, python_literals, raw_control_chars, single_quotes,
    smart_quotes, trailing_commas, trailing_prose, unquoted_keys, windows_paths,
};
use truncation::close_truncated;
pub use truncation::truncation;

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

#[cfg(test)]
mod tests;
