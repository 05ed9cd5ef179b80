//! `update-file`: iii's batched line and regex ops (see `update`) over one or more files, all
//! committed together or none.

use super::txn::{self, Options};
use super::update::{self, Echo, Op};
use super::write::target;
use coderd_core::error::{Error, Result};
use coderd_core::workspace::Workspace;
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::HashMap;
use std::path::PathBuf;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateParams {
    /// Each file with its line operations, all applied or none.
    files: Vec<FileOps>,
    /// The client's session: the daemon remembers which version of each file it read, and a
    /// line-number edit based on an outdated read is refused (C212).
    session: Option<String>,
    /// Answer each file with the unified diff the call would make, and change nothing.
    #[serde(default)]
    dry_run: bool,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct FileOps {
    /// The file to change.
    path: String,
    /// Line ops (`insert`, `remove`, `update_lines`), all numbered as the file was before the
    /// call (overlapping ones are C210), then regex `replace` ops.
    ops: Vec<Op>,
    /// Refuse (C212) unless the file is still at this version (the `version` of a `read`).
    expect_version: Option<String>,
}

pub use wire::answers::edit::{UpdateResult, UpdatedFile};

pub fn update_file(state: &Workspace, p: UpdateParams) -> Result<UpdateResult> {
    if p.files.is_empty() {
        return Err(Error::bad_input("`files` is empty").with_recovery(
            r#"{"files": [{"path": "notes.md", "ops": [{"op": "insert", "at_line": 1, "content": "x"}]}]}"#,
        ));
    }
    let mut targets = Vec::new();
    for (i, f) in p.files.iter().enumerate() {
        let mut t = target(state, &format!("files[{i}].path"), &f.path)?;
        if targets
            .iter()
            .any(|o: &txn::Target| o.resolved.abs == t.resolved.abs)
        {
            return Err(Error::bad_input(format!(
                "`files[{i}].path`: {} is named twice; put all its ops in one entry",
                f.path
            )));
        }
        t.expect_version = f.expect_version.clone();
        targets.push(t);
    }
    let line_numbers = p
        .files
        .iter()
        .any(|f| f.ops.iter().any(|op| !matches!(op, Op::Replace { .. })));
    let opts = Options {
        session: p.session,
        must_exist: true,
        line_numbers,
        dry_run: p.dry_run,
        ..Options::default()
    };
    // Per file, what the answer adds to the commit's result: (line count, echoes, truncated).
    let mut applied: HashMap<PathBuf, (usize, Vec<Echo>, bool)> = HashMap::new();
    let results = txn::run(state, targets.clone(), &opts, |ws| {
        applied.clear();
        for (i, (f, t)) in p.files.iter().zip(&targets).enumerate() {
            let current = ws.current(&t.resolved.abs)?;
            let outcome = update::apply(current, &f.ops).map_err(|e| {
                e.with_prefix(format_args!("files[{i}]."))
                    .with_data("file", i)
            })?;
            let answer = (
                line_count(&outcome.bytes),
                outcome.echoes,
                outcome.echoes_truncated,
            );
            // The engine counted the lines already, and its splices let the commit edit the
            // document's rope in place: neither diffs nor re-reads the whole file again.
            ws.set_spliced(
                &t.resolved.abs,
                outcome.bytes,
                outcome.splices,
                (outcome.lines_added, outcome.lines_removed),
            );
            applied.insert(t.resolved.abs.clone(), answer);
        }
        Ok(())
    })?;
    let files = results
        .into_iter()
        .map(|file| {
            let (new_line_count, echoes, echoes_truncated) =
                applied.remove(&file.path).unwrap_or_default();
            UpdatedFile {
                file,
                new_line_count,
                echoes,
                echoes_truncated,
            }
        })
        .collect();
    Ok(UpdateResult { files })
}

/// Lines as `read` counts them: an unterminated last line counts.
fn line_count(bytes: &[u8]) -> usize {
    let newlines = memchr::memchr_iter(b'\n', bytes).count();
    newlines + usize::from(bytes.last().is_some_and(|b| *b != b'\n'))
}
