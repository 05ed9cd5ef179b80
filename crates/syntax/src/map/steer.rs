//! What the agent's focus and mentions add to the ranking besides the graph's walk: the focus
//! files' neighbours (the files defining what a focus file uses — its imports — and the files using
//! what it defines — its callers), and how strongly a mentioned definition answers its mention.

use super::graph::Graph;
use super::index::FileTags;
use super::modules::Structure;
use crate::Kind;
use foldhash::HashSet;
use std::sync::Arc;

/// How closely each file is tied to the focus files: over every name a focus file uses that the
/// file defines, or that the file uses and a focus file defines, that name's weight (shared among
/// its definers). 0 for files with no tie and for the focus files themselves.
pub fn neighbours(
    files: &[Arc<FileTags>],
    focus: &[usize],
    graph: &Graph,
    name_weights: &[f64],
    structure: &Structure,
) -> Vec<f64> {
    let (name_index, definers) = (&graph.name_index, &graph.definers);
    let mut ties = vec![0.0; files.len()];
    if focus.is_empty() {
        return ties;
    }
    // Imports: the definers of what a focus file uses.
    let mut focus_defines: HashSet<usize> = HashSet::default();
    for &f in focus {
        for (&id, item) in files[f].item_ids.iter().zip(&files[f].tags.outline.items) {
            if let (Some(&name), true) = (name_index.get(&id), is_linkable(item.kind)) {
                focus_defines.insert(name);
            }
        }
        for &(id, _) in &files[f].reference_ids {
            let Some(&name) = name_index.get(&id) else {
                continue;
            };
            let list = &definers[name];
            for &to in list {
                ties[to] += name_weights[name] / list.len() as f64;
            }
        }
    }
    // Imports by a module's name (`use crate::cli::flags`, Go's `query.Parse`, Python's
    // `from .fields import`): the files of a module a focus file names — only those its imports
    // resolve to, when the structure resolved any (`modules`): a module named alike elsewhere is
    // a collision.
    let module_tie = |id: &u64| {
        graph
            .modules
            .get(id)
            .map(|list| (list, MODULE_NAME / list.len() as f64))
    };
    for &f in focus {
        for (list, tie) in files[f]
            .reference_ids
            .iter()
            .filter_map(|(id, _)| module_tie(id))
        {
            for &to in list.iter().filter(|&&to| structure.module_tie(f, to)) {
                ties[to] += tie;
            }
        }
    }
    let focus_modules: Vec<(usize, u64)> = focus
        .iter()
        .filter_map(|&f| Some((f, files[f].module_id?)))
        .collect();
    // Callers: the users of what a focus file defines, and of its module by name (only a file
    // using one of those names can be one: `graph.users` lists them).
    let focus_items = focus.iter().flat_map(|&f| &files[f].item_ids);
    let named = focus_items.chain(focus_modules.iter().map(|(_, id)| id));
    let mut callers: Vec<usize> = named
        .filter_map(|id| graph.users.get(id))
        .flatten()
        .map(|&f| f as usize)
        .collect();
    callers.sort_unstable();
    callers.dedup();
    for f in callers {
        let file = &files[f];
        for &(id, _) in &file.reference_ids {
            if let Some(&name) = name_index.get(&id) {
                if focus_defines.contains(&name) && definers[name].binary_search(&f).is_err() {
                    ties[f] += name_weights[name] / definers[name].len() as f64;
                }
            }
            let naming = |&(g, module): &(usize, u64)| module == id && structure.module_tie(g, f);
            if focus_modules.iter().any(naming) {
                ties[f] += module_tie(&id).map_or(0.0, |(_, tie)| tie);
            }
        }
    }
    // A change reaches the focus file's own folder more often than any other folder: a tied file
    // there counts more (an untied one gains nothing: being a neighbour is the tie, not the place).
    let folders: Vec<&str> = focus.iter().map(|&f| folder(&files[f].rel)).collect();
    for (f, file) in files.iter().enumerate() {
        if ties[f] > 0.0 && folders.contains(&folder(&file.rel)) {
            ties[f] *= SAME_FOLDER;
        }
    }
    for &f in focus {
        ties[f] = 0.0;
    }
    ties
}

/// What naming a module ties, shared among the module's files: as much as a specific name
/// (`rank::name_weight`), since naming a module is an import.
const MODULE_NAME: f64 = 10.0;

/// The name other files of its language use for a file's module, where the language names modules
/// by their files: Rust (`cli.rs`, `cli/mod.rs`: `cli`; a crate's `src/lib.rs`: the crate, `-` as
/// `_`), Python (`fields.py`, `fields/__init__.py`), Go (the package, by its folder).
pub fn module_name<'a>(rel: &'a str, language: &str) -> Option<std::borrow::Cow<'a, str>> {
    let (dir, file) = rel.rsplit_once('/').unwrap_or(("", rel));
    let parent = || dir.rsplit_once('/').map_or(dir, |(_, name)| name);
    let name = match (
        language,
        file.rsplit_once('.').map_or(file, |(stem, _)| stem),
    ) {
        ("go", _) => parent(),
        ("rust", "main") | ("python", "__main__") => return None,
        ("rust", "mod") | ("python", "__init__") => parent(),
        ("rust", "lib") => match dir.rsplit_once('/') {
            Some((krate, "src")) => {
                let krate = krate.rsplit_once('/').map_or(krate, |(_, name)| name);
                return (!krate.is_empty()).then(|| krate.replace('-', "_").into());
            }
            _ => return None,
        },
        ("rust" | "python", stem) => stem,
        _ => return None,
    };
    (!name.is_empty()).then_some(name.into())
}

/// How much more a tie counts for a file in a focus file's folder: 2 was the best of 1, 2, 3 and
/// 5 on the tuning repositories of `scripts/bench-map.sh` (docs/benchmarks.md).
const SAME_FOLDER: f64 = 2.0;

/// A file's folder, as the index's relative paths write it (`""` at the top).
fn folder(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// Kinds whose names tie files together (a field's or a module's name says little).
fn is_linkable(kind: Kind) -> bool {
    !matches!(
        kind,
        Kind::Field | Kind::Module | Kind::Heading | Kind::Key | Kind::Var
    )
}

/// How much a definition of this kind and name is worth: interfaces and traits, then types, over
/// functions, over methods, over fields; methods named like the standard interfaces' (`String`,
/// `Error`, `fmt`, `__repr__`) and generated accessors are nearly worthless.
pub fn kind_weight(kind: Kind, name: &str) -> f64 {
    let base = match kind {
        Kind::Interface | Kind::Trait => 2.0,
        Kind::Struct | Kind::Class | Kind::Enum | Kind::Type | Kind::Annotation => 1.5,
        Kind::Function | Kind::Macro => 1.0,
        Kind::Method | Kind::Const | Kind::Impl => 0.7,
        Kind::Field | Kind::Var | Kind::Module => 0.3,
        Kind::Heading | Kind::Key => 0.1,
    };
    if matches!(kind, Kind::Method | Kind::Function) && is_builtin_like(name) {
        base * 0.1
    } else {
        base
    }
}

/// Method names every type has in its language (the standard library's interfaces and traits, the
/// data model's dunders, protobuf's generated accessors).
fn is_builtin_like(name: &str) -> bool {
    // One `match` on the string (by length, then bytes), not a search of the list: every
    // function and method of the tree is scored through it.
    let listed = matches!(
        name,
        // Go
        "String"
        | "Error"
        | "Len"
        | "Less"
        | "Swap"
        | "Reset"
        | "ProtoMessage"
        | "Descriptor"
        | "Marshal"
        | "Unmarshal"
        | "MarshalTo"
        | "MarshalToSizedBuffer"
        | "Size"
        | "XXX_Unmarshal"
        | "XXX_Marshal"
        | "XXX_Size"
        | "XXX_DiscardUnknown"
        | "XXX_Merge"
        | "MarshalJSON"
        | "UnmarshalJSON"
        | "MarshalYAML"
        | "UnmarshalYAML"
        | "Equal"
        | "GoString"
        | "Format"
        // Rust
        | "fmt"
        | "new"
        | "default"
        | "clone"
        | "eq"
        | "ne"
        | "cmp"
        | "partial_cmp"
        | "hash"
        | "from"
        | "into"
        | "drop"
        | "deref"
        | "deref_mut"
        | "as_ref"
        | "as_mut"
        | "borrow"
        | "next"
        | "try_from"
        | "from_str"
        | "to_string"
        | "serialize"
        | "deserialize"
    );
    listed || name.len() > 4 && name.starts_with("__") && name.ends_with("__")
}

/// How strongly a definition answers a mention of its name: by its kind and how specific the name
/// is (`name_weight` without the mention), shared among every definition of the name. A type
/// `Labels` defined once answers `Labels` far better than a field `Labels` of ten structs.
pub fn mention_weight(kind: Kind, name: &str, specificity: f64, n_definers: usize) -> f64 {
    kind_weight(kind, name) * specificity / n_definers.max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::module_name;

    #[test]
    fn a_files_module_name_is_what_its_importers_write() {
        let cases = [
            ("crates/rust-analyzer/src/cli.rs", "rust", Some("cli")),
            ("crates/rust-analyzer/src/cli/mod.rs", "rust", Some("cli")),
            ("crates/hir-ty/src/lib.rs", "rust", Some("hir_ty")),
            ("src/bin/main.rs", "rust", None),
            ("pydantic/fields.py", "python", Some("fields")),
            ("pydantic/v1/__init__.py", "python", Some("v1")),
            ("promql/parser/parse.go", "go", Some("parser")),
            ("main.go", "go", None),
            ("web/ui/query.ts", "typescript", None),
        ];
        for (rel, language, want) in cases {
            assert_eq!(module_name(rel, language).as_deref(), want, "{rel}");
        }
    }
}
