//! Param names as agents write them, made canonical before a method sees them: dashed and
//! camelCased keys become snake_case, and each method's aliases (`data/agent.toml`: ChatCLI's flags
//! and atomic-tool names, iii's names) become the key the method's schema declares.
//!
//! One table, applied to every request (socket, envelope, iii, MCP) in `Method::call`, and read by
//! the schema validator so an alias is never reported as an unknown key.

use crate::error::{Error, Result};
use crate::methods::Method;
use schemars::Schema;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, LazyLock, RwLock};

/// What `data/agent.toml` says about one method.
#[derive(Deserialize, Default, Debug)]
#[serde(deny_unknown_fields)]
pub struct MethodNames {
    #[serde(default)]
    pub aliases: BTreeMap<String, String>,
    pub default_field: Option<String>,
    pub read_only: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    methods: HashMap<String, MethodNames>,
}

static TABLE: LazyLock<HashMap<String, MethodNames>> = LazyLock::new(|| {
    let table: Table = toml::from_str(include_str!("../../data/agent.toml"))
        .expect("data/agent.toml is checked by a unit test");
    table.methods
});

static NONE: LazyLock<MethodNames> = LazyLock::new(MethodNames::default);

/// The agent names of a method (empty for methods the table does not list).
pub fn of(method: &str) -> &'static MethodNames {
    TABLE.get(method).unwrap_or(&NONE)
}

/// `maxBytes` and `max-bytes` are `max_bytes`. Keys already in snake_case come back borrowed.
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

/// The property names a schema declares anywhere (top level and `$defs`), to decide which aliases
/// apply: an alias is renamed only when its target is declared and the alias itself is not.
pub fn declared_names(schema: &Schema) -> Vec<String> {
    let mut names = Vec::new();
    collect_names(schema.as_value(), &mut names);
    names
}

fn collect_names(value: &Value, names: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Object(props)) = map.get("properties") {
                names.extend(props.keys().cloned());
            }
            map.values().for_each(|v| collect_names(v, names));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_names(v, names)),
        _ => {}
    }
}

/// The declared names of each method's schema, computed once per method.
static DECLARED: LazyLock<RwLock<HashMap<&'static str, Arc<Vec<String>>>>> =
    LazyLock::new(Default::default);

fn declared_of(method: &Method) -> Arc<Vec<String>> {
    if let Some(found) = DECLARED
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .get(method.name)
    {
        return found.clone();
    }
    let names = Arc::new(declared_names(&(method.schema)()));
    DECLARED
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .insert(method.name, names.clone());
    names
}

/// Renames the keys of `params` (at every depth, never values) to the method's canonical names.
/// Two keys that land on the same name (`file` and its alias `path`) are C210.
pub fn canonical(method: &Method, params: Value) -> Result<Value> {
    let names = of(method.name);
    let declared = if names.aliases.is_empty() {
        Arc::new(Vec::new())
    } else {
        declared_of(method)
    };
    let rename = |key: &str| -> Option<&str> {
        let target = names.aliases.get(key)?;
        let applies = declared.iter().any(|d| d == target) && !declared.iter().any(|d| d == key);
        applies.then_some(target.as_str())
    };
    rename_keys(params, "", &rename)
}

fn rename_keys<'a>(
    value: Value,
    at: &str,
    rename: &impl Fn(&str) -> Option<&'a str>,
) -> Result<Value> {
    match value {
        Value::Object(map) => {
            let mut out = Map::with_capacity(map.len());
            let mut origin: HashMap<String, String> = HashMap::new();
            for (key, v) in map {
                let snake = snake_case(&key).into_owned();
                let name = rename(&snake).map(str::to_string).unwrap_or(snake);
                let child = format!("{at}/{}", pointer_escape(&name));
                if let Some(first) = origin.get(&name) {
                    return Err(Error::bad_input(format!(
                        "`{first}` and `{key}` at `{}` both mean `{name}`",
                        if at.is_empty() { "/" } else { at }
                    ))
                    .with_recovery(format!("send only `{name}`")));
                }
                origin.insert(name.clone(), key);
                out.insert(name, rename_keys(v, &child, rename)?);
            }
            Ok(Value::Object(out))
        }
        Value::Array(items) => items
            .into_iter()
            .enumerate()
            .map(|(i, v)| rename_keys(v, &format!("{at}/{i}"), rename))
            .collect::<Result<Vec<_>>>()
            .map(Value::Array),
        other => Ok(other),
    }
}

/// A JSON Pointer token (`~` and `/` escaped).
pub fn pointer_escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_table_parses_and_every_alias_targets_a_declared_key_of_its_method() {
        for (method, names) in TABLE.iter() {
            let Some(m) = crate::methods::find(method) else {
                continue; // a method another subsystem has not registered yet
            };
            let declared = declared_names(&(m.schema)());
            for (alias, target) in &names.aliases {
                assert!(declared.contains(target), "{method}: {alias} -> {target}");
            }
            if let Some(field) = &names.default_field {
                assert!(declared.contains(field), "{method}: default {field}");
            }
        }
    }

    #[test]
    fn camel_and_dashed_keys_become_snake_case() {
        assert_eq!(snake_case("maxBytes"), "max_bytes");
        assert_eq!(snake_case("max-bytes"), "max_bytes");
        assert_eq!(snake_case("max_bytes"), "max_bytes");
        assert_eq!(snake_case("URL"), "url");
    }

    #[test]
    fn aliases_are_renamed_at_every_depth_and_a_clash_is_refused() {
        let read = crate::methods::find("read").unwrap();
        let v = canonical(
            read,
            json!({"path": "a", "line_from": 2, "paths": [{"filepath": "b"}]}),
        )
        .unwrap();
        assert_eq!(
            v,
            json!({"file": "a", "start": 2, "paths": [{"file": "b"}]})
        );
        let e = canonical(read, json!({"file": "a", "path": "b"})).unwrap_err();
        assert!(e.message.contains("both mean `file`"), "{e}");
    }
}
