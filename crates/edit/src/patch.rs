//! `patch` (search/replace, or a unified diff over one or more files) and `multipatch` (several
//! search/replace edits over several files, all applied or none).

use super::content::{decode, Encoding, Hardlinks};
use super::diff;
use super::locate::{locate_replace, Occurrence};
use super::txn::{self, Options, Target};
use super::write::target;
use coderd_core::error::{Error, Result};
use coderd_core::workspace::Workspace;
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::HashMap;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PatchParams {
    /// The file (required for search/replace). For a diff: the file its hunks apply to, whatever
    /// its headers name; a diff over several files is then refused.
    file: Option<String>,
    /// Exact text to replace; it must occur once (see `occurrence`, `replace_all`).
    search: Option<String>,
    /// The text that takes the search text's place.
    replace: Option<String>,
    /// Encoding of `search` and `replace`.
    #[serde(default)]
    encoding: Encoding,
    /// A unified diff (multi-file; `--- /dev/null` creates, `+++ /dev/null` deletes).
    diff: Option<String>,
    /// Encoding of `diff`: `text` (default) or `base64`.
    #[serde(default)]
    diff_encoding: Encoding,
    /// Replace the Nth match (1-based) when the search text occurs several times.
    occurrence: Option<usize>,
    /// Replace every match.
    #[serde(default)]
    replace_all: bool,
    /// Keep the previous content as `<file>.bak` (default true).
    backup: Option<bool>,
    /// Refuse (C212) unless the file is still at this version (the `version` of a `read`).
    expect_version: Option<String>,
    /// The client's session: the daemon remembers which version of each file it read, and a
    /// line-number edit based on an outdated read is refused (C212).
    session: Option<String>,
    /// A file with several hard links: `refuse` (default, C214) or `split` (the edited name gets
    /// its own inode; the other names keep the old content).
    hardlinks: Option<Hardlinks>,
    /// Answer each file with the unified diff the call would make, and change nothing.
    #[serde(default)]
    dry_run: bool,
}

pub use wire::answers::edit::{EditOutcome, MultipatchResult, PatchResult, Replaced};

pub fn patch(state: &Workspace, p: PatchParams) -> Result<PatchResult> {
    let opts = Options {
        must_exist: true,
        ..Options::backed_up(p.session.clone(), p.hardlinks, p.backup, p.dry_run)
    };
    match (&p.diff, &p.search) {
        (Some(_), Some(_)) => Err(Error::bad_input(
            "give either `diff` or `search`/`replace`, not both",
        )),
        (None, None) => Err(
            Error::bad_input("missing `search` and `replace` (or `diff`)").with_recovery(
                r#"{"file": "main.go", "search": "old text", "replace": "new text"}"#,
            ),
        ),
        (Some(text), None) => patch_diff(state, &p, text, opts),
        (None, Some(search)) => patch_replace(state, &p, search, opts),
    }
}

fn occurrence(field: &str, nth: Option<usize>, all: bool) -> Result<Occurrence> {
    match (nth, all) {
        (Some(_), true) => Err(Error::bad_input(format!(
            "`{field}`: give `occurrence` or `replace_all`, not both"
        ))),
        (Some(n), false) => Ok(Occurrence::Nth(n)),
        (None, true) => Ok(Occurrence::All),
        (None, false) => Ok(Occurrence::Unique),
    }
}

fn patch_replace(
    state: &Workspace,
    p: &PatchParams,
    search: &str,
    opts: Options,
) -> Result<PatchResult> {
    let file = p
        .file
        .as_deref()
        .ok_or_else(|| Error::bad_input("missing `file` for a search/replace patch"))?;
    let replace = p.replace.as_deref().ok_or_else(|| {
        Error::bad_input("missing `replace` (use \"\" to delete the search text)")
    })?;
    let search = decode("search", search, p.encoding)?;
    let replace = decode("replace", replace, p.encoding)?;
    let which = occurrence("patch", p.occurrence, p.replace_all)?;
    let mut t = target(state, "file", file)?;
    t.expect_version = p.expect_version.clone();
    let path = t.resolved.abs.clone();
    let mut outcome = None;
    let mut results = txn::run(state, vec![t], &opts, |ws| {
        let located = locate_replace(ws.current(&path)?, &search, &replace, which)
            .map_err(|e| in_file(e, &path))?;
        if !located.already_applied {
            ws.splice(&path, located.splices.clone())?;
        }
        outcome = Some(located);
        Ok(())
    })?;
    let located = outcome.expect("planned");
    Ok(PatchResult::Replace(Replaced {
        file: results.remove(0),
        matched_with: located.matched_with.into(),
        already_applied: located.already_applied,
        lines: located.lines,
    }))
}

/// Names the file in a locate error (the engine only knows bytes).
fn in_file(e: Error, path: &std::path::Path) -> Error {
    e.with_prefix(format_args!("{}: ", path.display()))
}

fn patch_diff(
    state: &Workspace,
    p: &PatchParams,
    text: &str,
    opts: Options,
) -> Result<PatchResult> {
    if p.occurrence.is_some() || p.replace_all || p.replace.is_some() {
        return Err(Error::bad_input(
            "`occurrence`, `replace_all` and `replace` apply to search/replace, not to `diff`",
        ));
    }
    let bytes = decode("diff", text, p.diff_encoding)?;
    let patches = diff::parse(&bytes, p.file.as_deref())?;
    if let (Some(file), true) = (&p.file, patches.len() > 1) {
        return Err(one_file_only(file, &patches));
    }
    let mut targets: Vec<Target> = Vec::new();
    let mut plans = Vec::new();
    for (i, fp) in patches.iter().enumerate() {
        // With `file` given, the diff is that file's, whatever its headers call it.
        let wire = p
            .file
            .as_deref()
            .or(fp.new_path.as_deref())
            .or(fp.old_path.as_deref())
            .ok_or_else(|| Error::bad_input(format!("file {} of the diff names no path", i + 1)))?;
        let mut t = target(state, &format!("diff (file {} of the diff)", i + 1), wire)?;
        if targets.iter().any(|o| o.resolved.abs == t.resolved.abs) {
            return Err(Error::bad_input(format!(
                "the diff patches {wire} twice; merge its hunks"
            )));
        }
        if patches.len() == 1 {
            t.expect_version = p.expect_version.clone();
        }
        t.parents = fp.old_path.is_none();
        plans.push((t.resolved.abs.clone(), fp));
        targets.push(t);
    }
    let opts = Options {
        must_exist: false,
        ..opts
    };
    let mut all_applied = true;
    let files = txn::run(state, targets, &opts, |ws| {
        all_applied = true;
        for (path, fp) in &plans {
            let exists = ws.exists(path);
            match (&fp.old_path, &fp.new_path, exists) {
                (None, _, false) => {
                    ws.set(path, diff::new_file_bytes(fp));
                    all_applied = false;
                }
                (_, None, true) => {
                    diff::plan_file(ws.current(path)?, fp).map_err(|e| in_file(e, path))?;
                    ws.delete(path)?;
                    all_applied = false;
                }
                (_, None, false) => {} // already deleted
                (_, _, false) => {
                    ws.current(path)?; // C211: patching a file that does not exist
                }
                (_, _, true) => {
                    let located =
                        diff::plan_file(ws.current(path)?, fp).map_err(|e| in_file(e, path))?;
                    if !located.already_applied {
                        ws.splice(path, located.splices)?;
                        all_applied = false;
                    }
                }
            }
        }
        Ok(())
    })?;
    Ok(PatchResult::Diff {
        files,
        already_applied: all_applied,
    })
}

/// `file` names one file; a diff over several cannot be that file's.
fn one_file_only(file: &str, patches: &[diff::FilePatch]) -> Error {
    let named: Vec<&str> = patches
        .iter()
        .map(|fp| {
            let path = fp.new_path.as_deref().or(fp.old_path.as_deref());
            path.unwrap_or("/dev/null")
        })
        .collect();
    Error::bad_input(format!(
        "`file` is {file} but the diff patches {} files ({}); nothing was changed",
        named.len(),
        named.join(", ")
    ))
    .with_data("files", named)
    .with_recovery("drop `file` to apply the diff by its headers, or send only that file's part")
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MultipatchParams {
    /// Applied in order, each against the result of the earlier edits to the same file.
    edits: Vec<Edit>,
    /// The client's session: the daemon remembers which version of each file it read, and a
    /// line-number edit based on an outdated read is refused (C212).
    session: Option<String>,
    /// A file with several hard links: `refuse` (default, C214) or `split` (the edited name gets
    /// its own inode; the other names keep the old content).
    hardlinks: Option<Hardlinks>,
    /// Keep each file's previous content as `<file>.bak` (default true).
    backup: Option<bool>,
    /// Answer each file with the unified diff the call would make, and change nothing.
    #[serde(default)]
    dry_run: bool,
}

#[derive(Deserialize, JsonSchema, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
struct Edit {
    /// The file this edit changes.
    file: String,
    /// Exact text to replace; it must occur once.
    search: String,
    /// The text that takes its place.
    replace: String,
    #[serde(default)]
    encoding: Encoding,
    occurrence: Option<usize>,
    #[serde(default)]
    replace_all: bool,
    expect_version: Option<String>,
}

/// All edits or none. N identical edits to one file whose search text occurs exactly N times
/// replace all N (the reference tool's way to replace several occurrences).
pub fn multipatch(state: &Workspace, p: MultipatchParams) -> Result<MultipatchResult> {
    if p.edits.is_empty() {
        return Err(Error::bad_input("`edits` is empty"));
    }
    let mut targets: Vec<Target> = Vec::new();
    let mut decoded = Vec::new();
    for (i, e) in p.edits.iter().enumerate() {
        let mut t = target(state, &format!("edits[{i}].file"), &e.file)?;
        let search = decode(&format!("edits[{i}].search"), &e.search, e.encoding)?;
        let replace = decode(&format!("edits[{i}].replace"), &e.replace, e.encoding)?;
        let which = occurrence(&format!("edits[{i}]"), e.occurrence, e.replace_all)?;
        let path = t.resolved.abs.clone();
        match targets.iter_mut().find(|o| o.resolved.abs == path) {
            Some(existing) => {
                if existing.expect_version.is_none() {
                    existing.expect_version = e.expect_version.clone();
                }
            }
            None => {
                t.expect_version = e.expect_version.clone();
                targets.push(t);
            }
        }
        decoded.push((path, search, replace, which));
    }
    let opts = Options {
        must_exist: true,
        ..Options::backed_up(p.session.clone(), p.hardlinks, p.backup, p.dry_run)
    };
    // Identical edits form a group, handled at its first member: all its occurrences at once.
    let first_twin: Vec<usize> = p
        .edits
        .iter()
        .enumerate()
        .map(|(i, edit)| p.edits.iter().position(|e| e == edit).unwrap_or(i))
        .collect();
    let mut twins: HashMap<usize, usize> = HashMap::new();
    for first in &first_twin {
        *twins.entry(*first).or_default() += 1;
    }
    let mut outcomes = Vec::new();
    let files = txn::run(state, targets, &opts, |ws| {
        outcomes.clear();
        for (i, (path, search, replace, which)) in decoded.iter().enumerate() {
            if first_twin[i] != i {
                continue; // replaced with the first of its identical twins
            }
            let declared = twins[&i];
            let fail = |e: Error| {
                e.with_prefix(format_args!("edits[{i}] ({}): ", path.display()))
                    .with_data("edit", i)
            };
            let which = if declared > 1 {
                Occurrence::All
            } else {
                *which
            };
            let located =
                locate_replace(ws.current(path)?, search, replace, which).map_err(fail)?;
            if declared > 1 && !located.already_applied && located.lines.len() != declared {
                return Err(fail(
                    Error::bad_input(format!(
                    "this edit is declared {declared} times but its search text occurs {} times",
                    located.lines.len()
                ))
                    .with_data(
                        "matches",
                        located.lines.iter().map(|l| l.0).collect::<Vec<_>>(),
                    )
                    .with_recovery(
                        "declare it once per occurrence, or add context to make each unique",
                    ),
                ));
            }
            if !located.already_applied {
                ws.splice(path, located.splices.clone())?;
            }
            outcomes.push(EditOutcome {
                file: path.clone(),
                matched_with: located.matched_with.into(),
                already_applied: located.already_applied,
                lines: located.lines,
            });
        }
        Ok(())
    })?;
    Ok(MultipatchResult {
        files,
        edits: outcomes,
    })
}
