//! Param names as agents write them, made canonical before a method sees them: dashed and
//! camelCased keys become snake_case, and each method's aliases (`data/agent.toml`: ChatCLI's flags
//! and atomic-tool names, iii's names) become the key the method's schema declares.
//!
//! One table, applied to every request (socket, envelope, iii, MCP) in `Method::call`, and read by
//! the schema validator so an alias is never reported as an unknown key.

use crate::error::{Error, Result};
use schemars::Schema;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, LazyLock, RwLock};

/// What `data/agent.toml` says about one method: its agent names, and what it does to the world
/// beyond what `mutates` tells (see `hints`).
#[derive(Deserialize, Default, Debug)]
#[serde(deny_unknown_fields)]
pub struct MethodNames {
    #[serde(default)]
    pub aliases: BTreeMap<String, String>,
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
}

/// What a call of a method may do, for permission gates: MCP's tool annotations and the `tool`
/// envelope's `read_only`. From the method table's `mutates` (a mutating method is never
/// read-only), unless `data/agent.toml` says more: `todo` writes its plan without changing the
/// workspace, `exec` and `test` run programs that may reach anything.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hints {
    pub read_only: bool,
    /// It may overwrite or delete what is there (meaningful only when not read-only).
    pub destructive: bool,
    /// A second identical call changes nothing more.
    pub idempotent: bool,
    /// It may reach things outside the workspace (the network, other programs' state).
    pub open_world: bool,
}

/// What this module needs to know of a method of the table (`methods::Method` is one): the
/// protocol layer names no method itself.
pub trait Named {
    fn name(&self) -> &'static str;
    /// Whether the method changes files.
    fn mutates(&self) -> bool;
    /// The JSON Schema of its params.
    fn schema(&self) -> Schema;
}

pub fn hints(method: &impl Named) -> Hints {
    let names = of(method.name());
    let read_only = !method.mutates() && names.read_only.unwrap_or(true);
    Hints {
        read_only,
        destructive: !read_only && names.destructive.unwrap_or(true),
        idempotent: names.idempotent.unwrap_or(read_only),
        open_world: names.open_world.unwrap_or(false),
    }
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

pub use wire::argv::snake_case;

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
type DeclaredCache = RwLock<HashMap<&'static str, Arc<Vec<String>>>>;
static DECLARED: LazyLock<DeclaredCache> = LazyLock::new(Default::default);

fn declared_of(method: &impl Named) -> Arc<Vec<String>> {
    if let Some(found) = DECLARED
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .get(method.name())
    {
        return found.clone();
    }
    let names = Arc::new(declared_names(&method.schema()));
    DECLARED
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .insert(method.name(), names.clone());
    names
}

/// Renames the keys of `params` (at every depth, never values) to the method's canonical names.
/// Two keys that land on the same name (`file` and its alias `path`) are C210. As the first walk of
/// every call, it first holds the params to `depth::MAX_DEPTH` (C210), so neither this walk nor the
/// ones after it (validation, decoding) can recurse without bound.
pub fn canonical(method: &impl Named, params: Value) -> Result<Value> {
    if let Some(at) = super::depth::beyond_limit(&params) {
        return Err(super::depth::error(
            &format!("the params of `{}`", method.name()),
            &at,
        ));
    }
    let names = of(method.name());
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
                if let Some(first) = origin.get(&name) {
                    return Err(Error::bad_input(format!(
                        "`{first}` and `{key}` at `{}` both mean `{name}`",
                        if at.is_empty() { "/" } else { at }
                    ))
                    .with_recovery(format!("send only `{name}`")));
                }
                // Only a nested object or array needs its place named (scalars are most keys).
                let v = match v {
                    Value::Object(_) | Value::Array(_) => {
                        rename_keys(v, &format!("{at}/{}", pointer_escape(&name)), rename)?
                    }
                    scalar => scalar,
                };
                origin.insert(name.clone(), key);
                out.insert(name, v);
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
        }
    }

    #[test]
    fn hints_follow_mutates_and_the_table_says_what_it_cannot() {
        let hints = |name: &str| hints(crate::methods::find(name).unwrap());
        for m in crate::methods::METHODS.iter() {
            assert!(!(m.mutates && hints(m.name).read_only), "{}", m.name);
        }
        let read = hints("read");
        assert!(read.read_only && read.idempotent && !read.destructive && !read.open_world);
        // `test` runs project code, which may change or delete anything.
        let test = hints("test");
        assert!(!test.read_only && test.destructive && !test.idempotent && test.open_world);
        assert!(hints("exec").open_world);
        // `todo` changes no file of the workspace, but it does replace the session's plan.
        let todo = hints("todo");
        assert!(!todo.read_only && todo.destructive && todo.idempotent);
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
