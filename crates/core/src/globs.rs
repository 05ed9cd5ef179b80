//! Glob lists as they arrive in config files and requests.

use crate::error::{Error, Result};
use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use schemars::JsonSchema;
use serde::Deserialize;
use std::path::Path;

/// A glob, or a list of them (requests accept both forms).
#[derive(Deserialize, JsonSchema, Debug, Clone)]
#[serde(untagged)]
pub enum Globs {
    One(String),
    Many(Vec<String>),
}

impl Globs {
    pub fn to_vec(&self) -> Vec<String> {
        match self {
            Globs::One(g) => vec![g.clone()],
            Globs::Many(v) => v.clone(),
        }
    }
}

/// Compiles globs; `field` names the config key or request field for the error.
pub fn compile(field: &str, globs: &[String]) -> Result<GlobSet> {
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        let parsed = Glob::new(glob)
            .map_err(|e| Error::bad_input(format!("`{field}`: invalid glob {glob:?}: {e}")))?;
        builder.add(parsed);
    }
    builder
        .build()
        .map_err(|e| Error::bad_input(format!("`{field}`: {e}")))
}

/// Compiles the non-accessible globs. Each also covers everything below what it matches (`g/**`),
/// so a folder named like a secret (`.env/`, `id_rsa/`) is as unreadable as its contents. One
/// match per path, however deep, instead of one per ancestor.
pub fn compile_policy(field: &str, globs: &[String], case_insensitive: bool) -> Result<GlobSet> {
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        let mut patterns = vec![glob.clone()];
        if !glob.ends_with("/**") {
            patterns.push(format!("{}/**", glob.trim_end_matches('/')));
        }
        for pattern in patterns {
            let parsed = GlobBuilder::new(&pattern)
                .case_insensitive(case_insensitive)
                .build()
                .map_err(|e| Error::bad_input(format!("`{field}`: invalid glob {glob:?}: {e}")))?;
            builder.add(parsed);
        }
    }
    builder
        .build()
        .map_err(|e| Error::bad_input(format!("`{field}`: {e}")))
}

/// True when the set matches the relative path, or (for plain names like `node_modules`) its last component.
pub fn hit(set: &GlobSet, rel: &Path) -> bool {
    set.is_match(rel)
        || rel
            .file_name()
            .is_some_and(|name| set.is_match(Path::new(name)))
}
