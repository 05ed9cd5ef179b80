//! `METHOD --flag value ...` for every method: flags become params, typed by the method's own
//! JSON Schema (asked of the daemon), so a client never lags behind the method table.

use crate::client::ClientError;
use serde_json::{json, Map, Value};
use std::io::Read;

/// Params a positional argument fills, in order of preference, when the method has one of them.
const POSITIONAL_KEYS: &[&str] = &[
    "file", "path", "pattern", "query", "cmd", "term", "dir", "label",
];

/// What a flag's value is parsed as.
#[derive(Clone, Debug, PartialEq)]
enum Kind {
    Text,
    Integer,
    Number,
    Boolean,
    List(Box<Kind>),
    /// An object, or a value whose schema allows several shapes: JSON when it parses as an
    /// object or array, else text.
    Json,
}

/// The params a method's flags spell. `described` is the method's entry from `schema`.
pub fn params_from_flags(args: &[String], described: &Value) -> Result<Value, ClientError> {
    let schema = &described["params"];
    let properties = schema["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let kind_of = |key: &str| {
        properties
            .get(key)
            .map(|p| kind(p, schema))
            .unwrap_or(Kind::Json)
    };
    let args = with_leading_verb(args, &properties, &kind_of);
    let mut params = Map::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        let Some(flag) = arg.strip_prefix("--") else {
            let key = POSITIONAL_KEYS
                .iter()
                .find(|k| properties.contains_key(**k) && !params.contains_key(**k))
                .ok_or_else(|| {
                    ClientError(format!("unexpected argument `{arg}`: use --NAME VALUE"))
                })?;
            params.insert(key.to_string(), value_of(&kind_of(key), key, arg)?);
            continue;
        };
        let (name, inline) = match flag.split_once('=') {
            Some((name, value)) => (name, Some(value.to_string())),
            None => (flag, None),
        };
        let mut key = name.replace('-', "_");
        let mut from_stdin = false;
        if !properties.contains_key(&key) {
            if let Some(field) = key
                .strip_suffix("_stdin")
                .filter(|f| properties.contains_key(*f))
            {
                key = field.to_string();
                from_stdin = true;
            }
        }
        let kind = kind_of(&key);
        let text = if from_stdin {
            read_stdin()?
        } else if kind == Kind::Boolean && inline.is_none() {
            match args.get(i).map(String::as_str) {
                Some(b @ ("true" | "false")) => {
                    i += 1;
                    b.to_string()
                }
                _ => "true".to_string(),
            }
        } else if let Some(value) = inline {
            value
        } else {
            let value = args
                .get(i)
                .ok_or_else(|| ClientError(format!("--{name} needs a value")))?;
            i += 1;
            value.clone()
        };
        match kind {
            Kind::List(item) => {
                let list = params.entry(key.clone()).or_insert_with(|| json!([]));
                match serde_json::from_str::<Value>(&text) {
                    Ok(Value::Array(items)) if text.trim_start().starts_with('[') => {
                        list.as_array_mut().expect("a list").extend(items)
                    }
                    _ => list
                        .as_array_mut()
                        .expect("a list")
                        .push(value_of(&item, &key, &text)?),
                }
            }
            kind => {
                params.insert(key.clone(), value_of(&kind, &key, &text)?);
            }
        }
    }
    Ok(Value::Object(params))
}

/// Params that take whatever word the user writes, so a leading word never names a flag there
/// (`coder search start` looks for "start").
const FREE_TEXT_KEYS: &[&str] = &["file", "path", "pattern", "query", "cmd", "term"];

/// Reads a leading word that names one of the method's flags as that flag, the way subcommands
/// are written: `coder todo list`, `coder checkpoint create`, `coder checkpoint restore 1a2b3c`.
/// A boolean flag always may lead; another flag only in a method without a free-text param.
fn with_leading_verb(
    args: &[String],
    properties: &Map<String, Value>,
    kind_of: &impl Fn(&str) -> Kind,
) -> Vec<String> {
    let mut args = args.to_vec();
    let Some(first) = args.first() else {
        return args;
    };
    let key = first.replace('-', "_");
    let free_text = FREE_TEXT_KEYS.iter().any(|k| properties.contains_key(*k));
    let is_verb = !first.starts_with("--")
        && properties.contains_key(&key)
        && (kind_of(&key) == Kind::Boolean || !free_text);
    if is_verb {
        args[0] = format!("--{first}");
    }
    args
}

fn value_of(kind: &Kind, key: &str, text: &str) -> Result<Value, ClientError> {
    let bad = |what: &str| {
        ClientError(format!(
            "--{} expects {what}, got `{text}`",
            key.replace('_', "-")
        ))
    };
    Ok(match kind {
        Kind::Text => json!(text),
        Kind::Integer => json!(text.parse::<i64>().map_err(|_| bad("an integer"))?),
        Kind::Number => json!(text.parse::<f64>().map_err(|_| bad("a number"))?),
        Kind::Boolean => json!(text.parse::<bool>().map_err(|_| bad("true or false"))?),
        Kind::List(item) => json!([value_of(item, key, text)?]),
        Kind::Json => match text.trim_start().chars().next() {
            Some('{' | '[') => {
                serde_json::from_str(text).map_err(|e| bad(&format!("JSON ({e})")))?
            }
            _ => json!(text),
        },
    })
}

/// The kind of a property's schema, following `$ref`s into the root's `$defs`.
fn kind(property: &Value, root: &Value) -> Kind {
    if let Some(target) = property["$ref"].as_str() {
        let name = target.rsplit('/').next().unwrap_or_default();
        return kind(&root["$defs"][name], root);
    }
    for union in ["anyOf", "oneOf"] {
        if let Some(variants) = property[union].as_array() {
            let kinds: Vec<Kind> = variants
                .iter()
                .filter(|v| v["type"] != "null")
                .map(|v| kind(v, root))
                .collect();
            // `Option<Enum>` and enums of strings are one kind under several variants.
            return match kinds.split_first() {
                Some((first, rest)) if rest.iter().all(|k| k == first) => first.clone(),
                _ => Kind::Json,
            };
        }
    }
    let types: Vec<&str> = match &property["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| *t != "null")
            .collect(),
        _ if property.get("enum").is_some() || property.get("const").is_some() => vec!["string"],
        _ => vec![],
    };
    match types.as_slice() {
        ["string"] => Kind::Text,
        ["integer"] => Kind::Integer,
        ["number"] => Kind::Number,
        ["boolean"] => Kind::Boolean,
        ["array"] => Kind::List(Box::new(kind(&property["items"], root))),
        _ => Kind::Json,
    }
}

fn read_stdin() -> Result<String, ClientError> {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| ClientError(format!("reading stdin: {e}")))?;
    Ok(text)
}

/// `coder METHOD --help`: the method's flags, from its schema.
pub fn help(method: &str, described: &Value) -> String {
    let schema = &described["params"];
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut text = format!(
        "coder {method}: {}\n\nflags (each also accepts --NAME-stdin to read its value from stdin):\n",
        described["summary"].as_str().unwrap_or_default()
    );
    if let Some(properties) = schema["properties"].as_object() {
        for (key, property) in properties {
            let shape = match kind(property, schema) {
                Kind::Text => "TEXT".to_string(),
                Kind::Integer | Kind::Number => "N".to_string(),
                Kind::Boolean => "[true|false]".to_string(),
                Kind::List(_) => "VALUE (repeatable, or a JSON list)".to_string(),
                Kind::Json => "JSON".to_string(),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn described() -> Value {
        json!({"summary": "s", "params": {
            "type": "object",
            "required": ["file"],
            "properties": {
                "file": {"type": "string"},
                "start": {"type": ["integer", "null"]},
                "numbered": {"type": "boolean"},
                "paths": {"type": "array", "items": {"type": "string"}},
                "encoding": {"anyOf": [{"$ref": "#/$defs/Encoding"}, {"type": "null"}]},
                "edits": {"type": "array", "items": {"$ref": "#/$defs/Edit"}},
            },
            "$defs": {
                "Encoding": {"type": "string", "enum": ["text", "base64"]},
                "Edit": {"type": "object", "properties": {"file": {"type": "string"}}},
            }
        }})
    }

    fn parse(args: &[&str]) -> Result<Value, String> {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        params_from_flags(&args, &described()).map_err(|e| e.0)
    }

    #[test]
    fn a_leading_word_may_name_a_flag() {
        // `numbered` is boolean: it may lead, like a subcommand.
        assert_eq!(
            parse(&["numbered", "a.rs"]).unwrap(),
            json!({"numbered": true, "file": "a.rs"})
        );
        // `start` takes a value, and `read` has a free-text param: the word is the file.
        assert_eq!(parse(&["start"]).unwrap(), json!({"file": "start"}));
        let checkpoint = json!({"params": {"type": "object", "properties": {
            "create": {"type": "boolean"},
            "label": {"type": ["string", "null"]},
            "restore": {"type": ["string", "null"]},
        }}});
        let words = |args: &[&str]| {
            let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
            params_from_flags(&args, &checkpoint).map_err(|e| e.0)
        };
        assert_eq!(
            words(&["restore", "1a2b3c"]).unwrap(),
            json!({"restore": "1a2b3c"})
        );
        assert_eq!(
            words(&["create", "before refactor"]).unwrap(),
            json!({"create": true, "label": "before refactor"})
        );
    }

    #[test]
    fn flags_are_typed_by_the_schema() {
        assert_eq!(
            parse(&[
                "--file",
                "007",
                "--start=10",
                "--numbered",
                "--encoding",
                "base64"
            ])
            .unwrap(),
            json!({"file": "007", "start": 10, "numbered": true, "encoding": "base64"})
        );
        assert_eq!(
            parse(&["x.rs", "--numbered", "false"]).unwrap(),
            json!({"file": "x.rs", "numbered": false})
        );
    }

    #[test]
    fn lists_repeat_or_arrive_as_json() {
        assert_eq!(
            parse(&["--paths", "a", "--paths", "b"]).unwrap(),
            json!({"paths": ["a", "b"]})
        );
        assert_eq!(
            parse(&[
                "--edits",
                r#"[{"file": "a"}]"#,
                "--edits",
                r#"{"file": "b"}"#
            ])
            .unwrap(),
            json!({"edits": [{"file": "a"}, {"file": "b"}]})
        );
    }

    #[test]
    fn bad_values_name_the_flag() {
        assert_eq!(
            parse(&["--start", "ten"]).unwrap_err(),
            "--start expects an integer, got `ten`"
        );
        assert_eq!(parse(&["--file"]).unwrap_err(), "--file needs a value");
        assert!(parse(&["--edits", "{oops"])
            .unwrap_err()
            .starts_with("--edits expects JSON"));
        assert!(parse(&["a", "b"])
            .unwrap_err()
            .contains("unexpected argument `b`"));
    }

    #[test]
    fn unknown_flags_go_to_the_daemon_which_names_them() {
        assert_eq!(parse(&["--nope", "1"]).unwrap(), json!({"nope": "1"}));
    }
}
