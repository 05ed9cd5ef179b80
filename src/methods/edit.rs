//! The write side's entries: `write`, `create-file`, `rollback`, `patch`, `multipatch`,
//! `update-file`, `delete-file`, `move`, `clean` (see `edit`).

use super::{method, Method};
use coderd_edit::{patch, paths, update_file, write};

/// Each changes only the files its params name and keeps their bytes first (`edit::keep`).
pub fn methods() -> Vec<Method> {
    vec![
        method(
            "write",
            &[],
            "Write a file (text or base64), keeping the previous content as <file>.bak.",
            true,
            |s, p| write::write(s, p),
        )
        .answers(wire::answers::Answer::Edit)
        .param_aliases(&[("path", "file"), ("filepath", "file"), ("file_path", "file")])
        .hints(crate::protocol::keys::Overrides { idempotent: Some(true), ..Default::default() })
        .bare(&["file"])
        .changes_only_what_it_names()
        .changes_nothing_when(asks_dry_run),
        method(
            "create-file",
            &[],
            "Create files, all or none (coder::create-file reports each entry on its own); an existing path is C217 unless overwrite.",
            true,
            |s, p| write::create_file(s, p),
        )
        .answers(wire::answers::Answer::Edit)
        .param_aliases(&[("file", "path")])
        .changes_only_what_it_names(),
        method(
            "rollback",
            &[],
            "Restore a file from its .bak.",
            true,
            |s, p| write::rollback(s, p),
        )
        .answers(wire::answers::Answer::Edit)
        .param_aliases(&[("path", "file"), ("filepath", "file"), ("file_path", "file")])
        .bare(&["file"])
        .changes_only_what_it_names(),
        method(
            "patch",
            &[],
            "Replace a unique search text, or apply a unified diff (multi-file; all hunks or none).",
            true,
            |s, p| patch::patch(s, p),
        )
        .answers(wire::answers::Answer::Edit)
        .param_aliases(&[("path", "file"), ("filepath", "file"), ("file_path", "file"), ("old_string", "search"), ("new_string", "replace")])
        .bare(&["file"])
        .changes_only_what_it_names()
        .changes_nothing_when(asks_dry_run),
        method(
            "multipatch",
            &[],
            "Several search/replace edits over several files: all applied, or none.",
            true,
            |s, p| patch::multipatch(s, p),
        )
        .answers(wire::answers::Answer::Edit)
        .param_aliases(&[("path", "file"), ("filepath", "file"), ("file_path", "file"), ("old_string", "search"), ("new_string", "replace")])
        .changes_only_what_it_names()
        .changes_nothing_when(asks_dry_run),
        method(
            "update-file",
            &[],
            "Line ops (insert, remove, update_lines) and regex replaces over files, with echoes; all files or none (coder::update-file commits each file on its own).",
            true,
            |s, p| update_file::update_file(s, p),
        )
        .answers(wire::answers::Answer::Edit)
        .param_aliases(&[("file", "path")])
        .changes_only_what_it_names()
        .changes_nothing_when(asks_dry_run),
        method(
            "delete-file",
            &[],
            "Delete files, symlinks or folders (recursive for non-empty ones); all or none (coder::delete-file reports each path on its own).",
            true,
            |s, p| paths::delete_file(s, p),
        )
        .answers(wire::answers::Answer::Edit)
        .param_aliases(&[("files", "paths")])
        .hints(crate::protocol::keys::Overrides { idempotent: Some(true), ..Default::default() })
        .changes_only_what_it_names(),
        method(
            "move",
            &[],
            "Move or rename entries, all or none (coder::move reports each entry on its own); across roots files are copied then deleted.",
            true,
            |s, p| paths::move_entries(s, p),
        )
        .answers(wire::answers::Answer::Edit)
        .param_aliases(&[("src", "from"), ("source", "from"), ("dst", "to"), ("dest", "to"), ("destination", "to")])
        .changes_only_what_it_names(),
        method(
            "clean",
            &[],
            "The .bak backups coderd wrote under a folder: listed, and removed with --force (never a .bak coderd did not write).",
            true,
            |s, p| paths::clean(s, p),
        )
        .answers(wire::answers::Answer::Edit)
        .param_aliases(&[("path", "dir"), ("directory", "dir")])
        .hints(crate::protocol::keys::Overrides { idempotent: Some(true), ..Default::default() })
        .bare(&["dir"])
        .changes_only_what_it_names()
        // Without `force` it only lists.
        .changes_nothing_when(|_, params| paths::clean_changes_nothing(params)),
    ]
}

/// A `dry_run` call answers with its diffs and writes nothing: no automatic checkpoint before it.
fn asks_dry_run(edit: &Method, params: &serde_json::Value) -> bool {
    crate::protocol::keys::canonical(edit, params.clone())
        .is_ok_and(|p| p.get("dry_run") == Some(&serde_json::Value::Bool(true)))
}
