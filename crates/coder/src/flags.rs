//! `coder METHOD --flag value ...`: the method's flags become params through the wire crate's one
//! parser (`wire::argv`, shared with the daemon's `tool` envelope), typed by the method's schema
//! as the daemon answers it, so the client never lags behind the method table.

use serde_json::Value;
use std::io::Read;
use wire::argv::{self, Problem, Reader, Syntax};
use wire::client::ClientError;

/// The params a method's flags spell. `described` is the method's entry from `schema`.
pub fn params_from_flags(args: &[String], described: &Value) -> Result<Value, ClientError> {
    let schema = &described["params"];
    // The params bare words fill, as the method table declares them (`schema`'s `bare`): the
    // same rule as the `tool` envelope's.
    let bare: Vec<&str> = described["bare"]
        .as_array()
        .map(|fields| fields.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let aliases = &described["param_aliases"];
    let syntax = Syntax {
        positional: &bare,
        key_of: &|name| key_of(name, aliases),
        single_dash: false,
        guess_untyped: false,
        leading_verb: true,
        stdin_suffix: true,
        lists_accumulate: true,
    };
    match argv::parse(args, schema, &syntax, &mut CommandLine) {
        Ok(params) => Ok(Value::Object(params)),
        Err(problem) => Err(ClientError(message(problem))),
    }
}

/// A flag's param: snake_case, then the method's agent aliases as the daemon's `schema` lists them
/// (`--term` is `pattern`, `--from_line` is `start`), the names ChatCLI's flags use.
fn key_of(flag: &str, aliases: &Value) -> String {
    let snake = argv::snake_case(flag);
    match aliases.get(snake.as_ref()).and_then(Value::as_str) {
        Some(canonical) => canonical.to_string(),
        None => snake.into_owned(),
    }
}

/// The client's reader: JSON must be JSON; stdin is the process's.
struct CommandLine;

impl Reader for CommandLine {
    type Error = String;

    fn json(&mut self, key: &str, text: &str) -> Result<Value, String> {
        serde_json::from_str(text).map_err(|e| {
            format!(
                "--{} expects JSON ({e}), got `{text}`",
                key.replace('_', "-")
            )
        })
    }

    fn stdin(&mut self) -> Result<String, String> {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| format!("reading stdin: {e}"))?;
        Ok(text)
    }
}

fn message(problem: Problem<String>) -> String {
    match problem {
        Problem::NoValue { flag, .. } => format!("--{flag} needs a value"),
        Problem::Unexpected { word, .. } => {
            format!("unexpected argument `{word}`: use --NAME VALUE")
        }
        Problem::BadValue { key, raw, types } => {
            let types: Vec<&str> = types
                .iter()
                .map(String::as_str)
                .filter(|t| *t != "null")
                .collect();
            let what = match types[..] {
                ["integer"] => "an integer".to_string(),
                ["number"] => "a number".to_string(),
                ["boolean"] => "true or false".to_string(),
                _ => format!("a value of type {}", types.join(" or ")),
            };
            format!("--{} expects {what}, got `{raw}`", key.replace('_', "-"))
        }
        Problem::Reader(message) => message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn described() -> Value {
        json!({"summary": "s", "bare": ["file"], "params": {
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
        let checkpoint = json!({"bare": ["label"], "params": {"type": "object", "properties": {
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
    fn chatclis_flattened_argv_is_read_as_the_envelope_meant() {
        // Keys sorted: a bare boolean before the term; a single object for a list; whole numbers
        // as Go prints them; a repeated list flag collected; the first of a text-or-list stays text.
        let mut described = described();
        described["params"]["properties"]["regex"] =
            json!({"anyOf": [{"type": "boolean"}, {"type": "string"}]});
        described["params"]["properties"]["glob"] =
            json!({"anyOf": [{"type": "string"}, {"type": "array"}]});
        described["param_aliases"] = json!({"from_line": "start", "term": "file"});
        let parse = |args: &[&str]| {
            let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
            params_from_flags(&args, &described).map_err(|e| e.0)
        };
        assert_eq!(
            parse(&["--regex", "--term", "(", "--from_line", "1e+06"]).unwrap(),
            json!({"regex": true, "file": "(", "start": 1_000_000})
        );
        assert_eq!(
            parse(&["--edits", r#"{"file": "a"}"#, "--glob", "*.go"]).unwrap(),
            json!({"edits": [{"file": "a"}], "glob": "*.go"})
        );
        assert_eq!(
            parse(&["--glob", "*.go", "--glob", "*.rs"]).unwrap(),
            json!({"glob": ["*.go", "*.rs"]})
        );
    }

    #[test]
    fn unknown_flags_go_to_the_daemon_which_names_them() {
        assert_eq!(parse(&["--nope", "1"]).unwrap(), json!({"nope": "1"}));
    }
}
