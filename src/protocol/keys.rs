//! Param names as agents write them, made canonical before a method sees them: dashed and
//! camelCased keys become snake_case, and each method's param aliases (its entry's in the method
//! table, the one place they are declared: ChatCLI's flags and atomic-tool names, iii's names,
//! Claude-Code-style names) become the key the method's schema declares.
//!
//! Applied to every request (socket, envelope, iii, MCP) in `Method::call`, and read by the schema
//! validator so an alias is never reported as an unknown key.

use coderd_core::error::{Error, Result};
use schemars::Schema;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, RwLock};

/// What a method's entry says a call may do beyond what `mutates` tells (see `hints`); `None`
/// keeps the default.
#[derive(Default, Debug, Clone, Copy)]
pub struct Overrides {
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
}

/// What a call of a method may do, for permission gates: MCP's tool annotations and the `tool`
/// envelope's `read_only`. From the method table's `mutates` (a mutating method is never
/// read-only), unless the entry's `Overrides` say more: `todo` writes its plan without changing
/// the workspace, `exec` and `test` run programs that may reach anything.
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
    /// The names agents give its params, as `(alias, canonical)` pairs.
    fn param_aliases(&self) -> &'static [(&'static str, &'static str)];
    /// What a call may do beyond what `mutates` tells.
    fn overrides(&self) -> Overrides;
}

pub fn hints(method: &impl Named) -> Hints {
    let says = method.overrides();
    let read_only = !method.mutates() && says.read_only.unwrap_or(true);
    Hints {
        read_only,
        destructive: !read_only && says.destructive.unwrap_or(true),
        idempotent: says.idempotent.unwrap_or(read_only),
        open_world: says.open_world.unwrap_or(false),
    }
}

/// The canonical name a method's alias stands for (snake_case in, as keys are made first).
pub fn alias_target(method: &impl Named, key: &str) -> Option<&'static str> {
    let aliases = method.param_aliases();
    aliases.iter().find(|(a, _)| *a == key).map(|(_, c)| *c)
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
    let declared = if method.param_aliases().is_empty() {
        Arc::new(Vec::new())
    } else {
        declared_of(method)
    };
    let rename = |key: &str| -> Option<&str> {
        let target = alias_target(method, key)?;
        let applies = declared.iter().any(|d| d == target) && !declared.iter().any(|d| d == key);
        applies.then_some(target)
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
    fn every_alias_targets_a_declared_key_of_its_method_and_is_not_one_itself() {
        for m in crate::methods::METHODS.iter() {
            let declared = declared_names(&(m.schema)());
            for (alias, target) in m.param_aliases {
                let name = m.name;
                assert!(
                    declared.iter().any(|d| d == target),
                    "{name}: {alias} -> {target}"
                );
                assert!(
                    !declared.iter().any(|d| d == alias),
                    "{name}: {alias} is declared"
                );
                assert_eq!(
                    snake_case(alias),
                    *alias,
                    "{name}: {alias} is not snake_case"
                );
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
