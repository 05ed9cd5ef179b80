//! The one schema-typed argv parser: `METHOD --flag value ...` words become a method's params,
//! each value typed by the param's JSON Schema (a `serde_json::Value`, as the daemon's `schema`
//! answers it). `coder` reads its command line with it, and the daemon's `tool` envelope reads the
//! CLI-style calls models write (`"read --file main.go --start 10"`), so a flag means the same in
//! both and neither lags behind the method table.
//!
//! What the two readers differ in is said by `Syntax`, in the open: where a bare word goes, what
//! a flag's name becomes (the envelope's aliases), how a value the schema cannot type is read,
//! and the command-line conveniences of `coder` (a leading mode word, `--NAME-stdin`, repeated
//! list flags). Typing, flags and values are the same code for both.

use serde_json::{Map, Number, Value};

/// One word after the method: a flag (`--file`, `-file`, `--file=x`) or a value.
#[derive(Debug, PartialEq)]
pub enum Word<'a> {
    /// A flag, with the value written after `=` if any.
    Flag {
        /// The name as written (without dashes).
        name: &'a str,
        /// `--name=value`'s value.
        value: Option<&'a str>,
    },
    /// Anything else: a positional value, or a flag's value.
    Value(&'a str),
}

/// Whether a word is a flag name (`--file`, `--max-bytes=5`, and with `single_dash`, `-cmd`), not
/// a value such as `---` (a diff header) or `-5`.
pub fn classify(word: &str, single_dash: bool) -> Word<'_> {
    let body = word
        .strip_prefix("--")
        .or_else(|| word.strip_prefix('-').filter(|_| single_dash))
        .filter(|b| b.starts_with(|c: char| c.is_ascii_alphabetic()));
    let Some(body) = body else {
        return Word::Value(word);
    };
    let (name, value) = match body.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (body, None),
    };
    let flag_like = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    match flag_like {
        true => Word::Flag { name, value },
        false => Word::Value(word),
    }
}

/// How a reader reads words; see the module doc.
pub struct Syntax<'a> {
    /// The params a bare word fills, in order of preference: the first not yet given.
    pub positional: &'a [&'a str],
    /// A flag's name as a param key (snake_case, aliases).
    pub key_of: &'a dyn Fn(&str) -> String,
    /// `-file` is a flag too (models write it); on a command line `-x` stays a value.
    pub single_dash: bool,
    /// A flag the schema does not type is guessed: a number or boolean when it reads as one, and
    /// `true` when no value follows (a model's `--force`). Else its value is text and required.
    pub guess_untyped: bool,
    /// A leading word naming a flag is that flag, the way subcommands are written (`coder todo
    /// list`, `coder checkpoint restore 1a2b3c`): always for a boolean flag, for another only in a
    /// method without a free-text param (`coder search start` looks for "start").
    pub leading_verb: bool,
    /// `--NAME-stdin` reads NAME's value from stdin.
    pub stdin_suffix: bool,
    /// A list flag given twice collects both (`--paths a --paths b`); else the last one wins.
    pub lists_accumulate: bool,
}

/// Why words could not be read, for each reader to word in its own voice.
#[derive(Debug, PartialEq)]
pub enum Problem<E> {
    /// A flag that takes a value ends the words.
    NoValue {
        /// The flag as written.
        flag: String,
        /// Its param.
        key: String,
    },
    /// A bare word with no param left to fill; `at` is its 1-based position.
    Unexpected {
        /// The word.
        word: String,
        /// Its position among the words (1-based).
        at: usize,
    },
    /// A value the param's types cannot hold.
    BadValue {
        /// The param.
        key: String,
        /// The value as written.
        raw: String,
        /// The JSON types the schema allows (`null` included if it is).
        types: Vec<String>,
    },
    /// The reader's own failure: JSON that does not parse, stdin that cannot be read.
    Reader(E),
}

/// What the reader supplies beyond words: how JSON values are parsed (strictly, or with the
/// envelope's repairs) and how stdin is read.
pub trait Reader {
    /// The reader's error.
    type Error;
    /// A value that starts with `[` or `{` for a param that takes a list or an object.
    fn json(&mut self, key: &str, text: &str) -> Result<Value, Self::Error>;
    /// The text of stdin, for `--NAME-stdin`.
    fn stdin(&mut self) -> Result<String, Self::Error>;
}

/// Params that take whatever word the user writes, so a leading word never names a flag there.
const FREE_TEXT_KEYS: &[&str] = &["file", "path", "pattern", "query", "cmd", "term"];

/// The params that `words` spell for a method whose params schema is `schema` (`Value::Null` when
/// the method is unknown: nothing is typed then).
pub fn parse<R: Reader>(
    words: &[String],
    schema: &Value,
    syntax: &Syntax,
    reader: &mut R,
) -> Result<Map<String, Value>, Problem<R::Error>> {
    let leading;
    let words = match syntax.leading_verb {
        true => {
            leading = with_leading_verb(words, schema, syntax);
            &leading[..]
        }
        false => words,
    };
    let mut params = Map::new();
    let mut i = 0;
    while i < words.len() {
        let word = &words[i];
        i += 1;
        let (name, inline) = match classify(word, syntax.single_dash) {
            Word::Flag { name, value } => (name, value),
            Word::Value(v) => {
                let key = syntax
                    .positional
                    .iter()
                    .find(|k| !params.contains_key(**k))
                    .ok_or_else(|| Problem::Unexpected {
                        word: v.to_string(),
                        at: i,
                    })?;
                let types = param_types(schema, key);
                let value = typed(key, v, &types, syntax, reader)?;
                params.insert(key.to_string(), value);
                continue;
            }
        };
        let mut key = (syntax.key_of)(name);
        let mut from_stdin = false;
        if syntax.stdin_suffix && !declares(schema, &key) {
            if let Some(field) = key.strip_suffix("_stdin").filter(|f| declares(schema, f)) {
                key = field.to_string();
                from_stdin = true;
            }
        }
        let types = param_types(schema, &key);
        let takes_bool = wants(&types, "boolean");
        let boolean = takes_bool && !wants(&types, "string");
        let next_is_flag = words
            .get(i)
            .is_none_or(|w| matches!(classify(w, syntax.single_dash), Word::Flag { .. }));
        // A flag with nothing after it (the end, or another flag) is a bare boolean when its param
        // takes one, even one that takes text too (`search --regex --term x`, as ChatCLI writes
        // `"regex": true`), and when the schema does not declare it (`--allow-unsafe`): the
        // daemon then names the unknown key, rather than the client asking for its value.
        let bare =
            inline.is_none() && !from_stdin && next_is_flag && (takes_bool || types.is_empty());
        if bare {
            put(&mut params, key, Value::Bool(true), &types, syntax);
            continue;
        }
        let raw = match inline {
            _ if from_stdin => read_stdin(reader)?,
            Some(v) => v.to_string(),
            None if boolean && words.get(i).is_some_and(|w| w == "true" || w == "false") => {
                i += 1;
                words[i - 1].clone()
            }
            None if boolean => "true".into(),
            None => match words.get(i) {
                Some(v) => {
                    i += 1;
                    v.clone()
                }
                None => {
                    return Err(Problem::NoValue {
                        flag: name.to_string(),
                        key,
                    })
                }
            },
        };
        let value = typed(&key, &raw, &types, syntax, reader)?;
        put(&mut params, key, value, &types, syntax);
    }
    Ok(params)
}

/// A flag's value into the params: a list flag given again adds to its list (`--edits '{…}'
/// --edits '{…}'`, the way ChatCLI flattens an array) when the reader collects lists; else the
/// last one wins.
fn put(
    params: &mut Map<String, Value>,
    key: String,
    value: Value,
    types: &[String],
    syntax: &Syntax,
) {
    let repeated = params.contains_key(&key);
    if !(syntax.lists_accumulate && wants(types, "array") && repeated) {
        params.insert(key, value);
        return;
    }
    // The first value stays as typed (`--glob '*.go'` is the string a glob may be); a second one
    // makes the list.
    let Some(first) = params.get_mut(&key) else {
        return;
    };
    let mut list = match first.take() {
        Value::Array(items) => items,
        single => vec![single],
    };
    match value {
        Value::Array(items) => list.extend(items),
        item => list.push(item),
    }
    *first = Value::Array(list);
}

fn read_stdin<R: Reader>(reader: &mut R) -> Result<String, Problem<R::Error>> {
    reader.stdin().map_err(Problem::Reader)
}

fn wants(types: &[String], t: &str) -> bool {
    types.iter().any(|x| x == t)
}

/// A word as the JSON value the param's schema wants.
fn typed<R: Reader>(
    key: &str,
    raw: &str,
    types: &[String],
    syntax: &Syntax,
    reader: &mut R,
) -> Result<Value, Problem<R::Error>> {
    let untyped = types.is_empty();
    let guess = untyped && syntax.guess_untyped;
    if wants(types, "string") || (untyped && !(guess && looks_typed(raw))) {
        return Ok(Value::String(raw.to_string()));
    }
    if wants(types, "integer") || wants(types, "number") || guess {
        if let Ok(n) = raw.parse::<i64>() {
            return Ok(n.into());
        }
        if let Ok(n) = raw.parse::<u64>() {
            return Ok(n.into());
        }
        if wants(types, "number") {
            if let Some(n) = raw.parse::<f64>().ok().and_then(Number::from_f64) {
                return Ok(Value::Number(n));
            }
        }
        if let Some(n) = whole_number(raw).filter(|_| wants(types, "integer")) {
            return Ok(n.into());
        }
    }
    if wants(types, "boolean") || guess {
        match raw {
            "true" => return Ok(Value::Bool(true)),
            "false" => return Ok(Value::Bool(false)),
            _ => {}
        }
    }
    if wants(types, "array") || wants(types, "object") {
        let trimmed = raw.trim();
        if trimmed.starts_with(['[', '{']) {
            let value = reader.json(key, trimmed).map_err(Problem::Reader)?;
            // One object for a list of them: the first of a repeated flag, or a list of one.
            return Ok(match value {
                Value::Object(_) if !wants(types, "object") => Value::Array(vec![value]),
                value => value,
            });
        }
        if wants(types, "array") {
            return Ok(Value::Array(vec![Value::String(raw.to_string())]));
        }
    }
    if untyped {
        return Ok(Value::String(raw.to_string()));
    }
    Err(Problem::BadValue {
        key: key.to_string(),
        raw: raw.to_string(),
        types: types.to_vec(),
    })
}

/// A whole number written as a float (`1e+06`, `60.0`): how Go's `fmt.Sprint` writes a JSON
/// number, so how ChatCLI flattens `"max_bytes": 1000000` into `--max_bytes 1e+06`.
fn whole_number(raw: &str) -> Option<i64> {
    let f = raw.parse::<f64>().ok()?;
    let whole = f.is_finite() && f.fract() == 0.0 && f.abs() < 9.0e15;
    whole.then_some(f as i64)
}

/// `maxBytes` and `max-bytes` are `max_bytes`: how every reader names a param from a flag or key.
/// Keys already in snake_case come back borrowed.
pub fn snake_case(key: &str) -> std::borrow::Cow<'_, str> {
    let needs = key.contains('-') || key.chars().any(|c| c.is_ascii_uppercase());
    if !needs {
        return key.into();
    }
    let mut out = String::with_capacity(key.len() + 4);
    for (i, c) in key.char_indices() {
        if c == '-' {
            out.push('_');
        } else if c.is_ascii_uppercase() {
            let prev_lower = key[..i]
                .chars()
                .next_back()
                .is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit());
            if prev_lower {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out.into()
}

/// Whether a word of an untyped flag reads as a number or boolean.
fn looks_typed(raw: &str) -> bool {
    raw == "true" || raw == "false" || raw.parse::<i64>().is_ok()
}

/// Whether the schema declares the param at its top level.
fn declares(schema: &Value, key: &str) -> bool {
    schema["properties"].get(key).is_some()
}

/// The JSON types a param's schema allows (following `$ref`s, `anyOf`/`oneOf`; an `enum` without a
/// type is a string), `null` included; empty when the schema does not declare the param.
pub fn param_types(schema: &Value, key: &str) -> Vec<String> {
    let Some(property) = schema.get("properties").and_then(|p| p.get(key)) else {
        return Vec::new();
    };
    let mut types = Vec::new();
    collect_types(schema, property, &mut types, 0);
    types
}

fn collect_types(root: &Value, schema: &Value, types: &mut Vec<String>, depth: usize) {
    let schema = resolve(root, schema);
    if depth > 8 {
        return;
    }
    match schema.get("type") {
        Some(Value::String(t)) => types.push(t.clone()),
        Some(Value::Array(ts)) => {
            types.extend(ts.iter().filter_map(Value::as_str).map(str::to_string))
        }
        _ => {}
    }
    if schema.get("enum").is_some() && schema.get("type").is_none() {
        types.push("string".into());
    }
    for branch in schema
        .get("anyOf")
        .or_else(|| schema.get("oneOf"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        collect_types(root, branch, types, depth + 1);
    }
}

/// A schema with its `$ref`s followed (within the root document).
fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    let mut schema = schema;
    for _ in 0..16 {
        let Some(reference) = schema.get("$ref").and_then(Value::as_str) else {
            return schema;
        };
        let target = match reference {
            "#" => Some(root),
            r => r.strip_prefix('#').and_then(|p| root.pointer(p)),
        };
        match target {
            Some(t) => schema = t,
            None => return schema,
        }
    }
    schema
}

/// See `Syntax::leading_verb`.
fn with_leading_verb(words: &[String], schema: &Value, syntax: &Syntax) -> Vec<String> {
    let mut words = words.to_vec();
    let Some(first) = words.first() else {
        return words;
    };
    let key = (syntax.key_of)(first);
    let free_text = FREE_TEXT_KEYS.iter().any(|k| declares(schema, k));
    let types = param_types(schema, &key);
    let boolean = types.iter().any(|t| t == "boolean") && !types.iter().any(|t| t == "string");
    let is_verb = !first.starts_with('-') && declares(schema, &key) && (boolean || !free_text);
    if is_verb {
        words[0] = format!("--{first}");
    }
    words
}

/// `coder METHOD --help`: the method's flags, from its entry in `schema` (`summary`, `params`).
pub fn help(method: &str, described: &Value) -> String {
    let schema = &described["params"];
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut text = format!(
        "coder {method}: {}\n\n",
        described["summary"].as_str().unwrap_or_default()
    );
    // The params bare words fill, as the method's entry declares them (`schema`'s `bare`).
    let bare: Vec<String> = described["bare"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|field| field.to_uppercase())
        .collect();
    if !bare.is_empty() {
        let words = bare
            .iter()
            .rev()
            .fold(String::new(), |inner, field| match inner.is_empty() {
                true => format!("[{field}]"),
                false => format!("[{field} {inner}]"),
            });
        text.push_str(&format!(
            "usage: coder {method} {words} [--flag VALUE ...]\n\n"
        ));
    }
    text.push_str("flags (each also accepts --NAME-stdin to read its value from stdin):\n");
    if let Some(properties) = schema["properties"].as_object() {
        for (key, property) in properties {
            let mut types: Vec<String> = param_types(schema, key)
                .into_iter()
                .filter(|t| t != "null")
                .collect();
            types.sort();
            types.dedup();
            let shape = match types.iter().map(String::as_str).collect::<Vec<_>>()[..] {
                ["string"] => "TEXT",
                ["integer"] | ["number"] => "N",
                ["boolean"] => "[true|false]",
                ["array"] => "VALUE (repeatable, or a JSON list)",
                _ => "JSON",
            };
            let must = if required.contains(&key.as_str()) {
                " (required)"
            } else {
                ""
            };
            let about = property["description"]
                .as_str()
                .unwrap_or_default()
                .replace('\n', " ");
            text.push_str(&format!(
                "  --{} {shape}{must}\n      {about}\n",
                key.replace('_', "-")
            ));
        }
    }
    text
}
