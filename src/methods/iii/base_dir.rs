//! `base_dir`: the folder a `coder::*` call's relative paths resolve against, instead of the
//! primary root. It must itself be a folder inside the jail; the paths it prefixes are then checked
//! by the jail like any other (a `..` may leave `base_dir`, never the roots). Absolute paths are
//! left as they are. A `coder::tree`, `coder::list-folder` or `coder::search` without a `path`
//! starts at `base_dir`.

use crate::methods::state::State;
use coderd_core::error::{Error, Result};
use schemars::{JsonSchema, Schema};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// The params that name paths: top level, and in each `files[]` entry.
const TOP: &[&str] = &["path", "paths"];
const IN_FILES: &[&str] = &["path", "from", "to"];
/// The methods whose `path` defaults to the root: with `base_dir`, to it.
const STARTS_AT_PATH: &[&str] = &["coder::tree", "coder::list-folder", "coder::search"];

/// `P`'s schema with the `base_dir` property.
pub fn schema<P: JsonSchema>() -> Schema {
    super::super::schema_with::<P>(
        "base_dir",
        json!({
            "type": "string",
            "description": "The folder relative paths resolve against (default: the primary \
                root); a folder inside the allowed roots. Absolute paths are unaffected."
        }),
    )
}

/// The params with `base_dir` taken out and applied to every relative path they name.
pub fn apply(state: &Arc<State>, method: &str, mut params: Value) -> Result<Value> {
    let Some(fields) = params.as_object_mut() else {
        return Ok(params);
    };
    let Some(base) = fields.remove("base_dir") else {
        return Ok(params);
    };
    let base = folder(state, &base)?;
    prefix(fields, TOP, &base);
    if STARTS_AT_PATH.contains(&method) && !fields.contains_key("path") {
        fields.insert("path".into(), Value::String(base.clone()));
    }
    if let Some(Value::Array(files)) = fields.get_mut("files") {
        for entry in files.iter_mut().filter_map(Value::as_object_mut) {
            prefix(entry, IN_FILES, &base);
        }
    }
    Ok(params)
}

/// `base_dir` resolved by the jail: the canonical path of a folder inside the roots.
fn folder(state: &Arc<State>, base: &Value) -> Result<String> {
    let Some(wire) = base.as_str() else {
        return Err(
            Error::bad_input("`base_dir` must be a string (a folder path)").with_recovery(
                "pass a folder inside the roots, e.g. \"src\"; coder::info lists them",
            ),
        );
    };
    let resolved = state.jail.resolve("base_dir", wire)?;
    let is_dir = state.jail.metadata(&resolved)?.is_dir();
    if !is_dir {
        return Err(
            Error::bad_input(format!("`base_dir` {wire:?} is not a folder"))
                .with_recovery("name a folder; coder::list-folder shows what is there"),
        );
    }
    Ok(resolved.abs.display().to_string())
}

/// Each named field's relative path (or list of paths) prefixed with `base`.
fn prefix(fields: &mut Map<String, Value>, names: &[&str], base: &str) {
    for name in names {
        match fields.get_mut(*name) {
            Some(Value::String(path)) => joined(path, base),
            Some(Value::Array(paths)) => paths
                .iter_mut()
                .filter_map(|p| match p {
                    Value::String(path) => Some(path),
                    _ => None,
                })
                .for_each(|path| joined(path, base)),
            _ => {}
        }
    }
}

fn joined(path: &mut String, base: &str) {
    if !path.starts_with('/') {
        *path = match path.as_str() {
            "" | "." => base.to_string(),
            rel => format!("{base}/{rel}"),
        };
    }
}
