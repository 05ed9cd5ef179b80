//! Edit transactions. Phase 1 plans every change in memory against the current documents (under the
//! files' locks); phase 2 stages every new content beside its target, then publishes them one by
//! one through the commit protocol. If another program wrote a file between the two phases, phase 1
//! runs once more on the fresh content; if a publish fails midway, the files already published get
//! their original bytes back. Either every file of the call changes, or none does.

use super::content::Hardlinks;
use super::splice::{self, Splice};
use coderd_core::documents::Document;
use coderd_core::error::{Code, Error, Result};
use coderd_core::jail::Resolved;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod publish;
mod report;

use publish::commit_all;

/// A file a call names: the request field it came from, and where it resolved.
#[derive(Clone, Debug)]
pub struct Target {
    pub field: String,
    pub resolved: Resolved,
    /// The version the caller last saw (`expect_version`), if it said.
    pub expect_version: Option<String>,
    /// Create missing parent folders.
    pub parents: bool,
    /// Refuse when the file exists (create-file without overwrite): C217, decided by the kernel.
    pub create_only: bool,
}

impl Target {
    pub fn new(field: impl Into<String>, resolved: Resolved) -> Target {
        Target {
            field: field.into(),
            resolved,
            expect_version: None,
            parents: false,
            create_only: false,
        }
    }
}

/// What a call allows beyond a plain edit.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The client's session (reads and edits are remembered per session).
    pub session: Option<String>,
    /// Split hard links (the edited name gets its own inode) instead of refusing.
    pub split_hardlinks: bool,
    /// Keep the previous content as `<file>.bak`.
    pub backup: bool,
    /// Refuse to create files that do not exist (patch, update-file).
    pub must_exist: bool,
    /// Line-number edits: refused if the session's last read is older than the file.
    pub line_numbers: bool,
    /// Go on when the bytes a publish replaces cannot be kept (see `edit::keep`).
    pub force: bool,
    /// The method, for the label of the snapshot that keeps replaced bytes ("edit" if unset).
    pub method: &'static str,
    /// Plan every file as the call would, then answer each with its unified diff and write
    /// nothing (`dry_run`: an agent previews an edit through any face, MCP included).
    pub dry_run: bool,
}

impl Options {
    /// The options of the content edits that keep a `.bak` (`write`, `patch`, `multipatch`), from
    /// their shared params; `backup` defaults to on.
    pub fn backed_up(
        session: Option<String>,
        hardlinks: Option<Hardlinks>,
        backup: Option<bool>,
        dry_run: bool,
    ) -> Options {
        Options {
            session,
            dry_run,
            split_hardlinks: hardlinks == Some(Hardlinks::Split),
            backup: backup.unwrap_or(true),
            ..Options::default()
        }
    }
}

/// One file's part of a call's answer: the wire's type, shared with clients.
pub use wire::answers::edit::FileResult;

struct Slot {
    target: Target,
    /// The document as it was at planning time; `None` when the file does not exist.
    doc: Option<Arc<Document>>,
    original: Option<Arc<Vec<u8>>>,
    /// The planned content; `None` until the planner changes the file.
    planned: Option<Arc<Vec<u8>>>,
    /// The splices of the only change made, for precise event ranges; `None` after several.
    splices: Option<Vec<Splice>>,
    changes: usize,
    /// Lines (added, removed) the planner counted for its only change; `None`: diffed at commit.
    counts: Option<(usize, usize)>,
    /// The planner removes the file (a diff's `+++ /dev/null`).
    delete: bool,
}

impl Slot {
    fn planned_bytes(&self) -> Option<&[u8]> {
        self.planned.as_deref().map(Vec::as_slice)
    }
    fn original_bytes(&self) -> Option<&[u8]> {
        self.original.as_deref().map(Vec::as_slice)
    }
}

/// The files of one call as the planner sees them: their current (planned) content.
pub struct Draft {
    slots: BTreeMap<PathBuf, Slot>,
}

impl Draft {
    fn slot(&mut self, path: &Path) -> &mut Slot {
        self.slots
            .get_mut(path)
            .expect("planners only touch the call's targets")
    }

    /// The content of a file as planned so far (the original before any change). C211 if the
    /// file does not exist and nothing planned it.
    pub fn current(&mut self, path: &Path) -> Result<&[u8]> {
        let slot = self.slot(path);
        if slot.planned.is_none() && slot.original.is_none() {
            return Err(Error::not_found(format!(
                "`{}`: {} does not exist",
                slot.target.field,
                path.display()
            ))
            .with_recovery(
                "check the path with list-folder, or create the file with write or create-file",
            ));
        }
        Ok(slot
            .planned_bytes()
            .or(slot.original_bytes())
            .unwrap_or_default())
    }

    pub fn exists(&self, path: &Path) -> bool {
        self.slots
            .get(path)
            .is_some_and(|s| s.original.is_some() || s.planned.is_some())
    }

    /// Applies splices to the current content of a file.
    pub fn splice(&mut self, path: &Path, splices: Vec<Splice>) -> Result<()> {
        let current = self.current(path)?;
        let new = splice::apply(current, &splices);
        let slot = self.slot(path);
        slot.splices = (slot.changes == 0).then_some(splices);
        slot.counts = None;
        slot.changes += 1;
        slot.planned = Some(Arc::new(new));
        Ok(())
    }

    /// Sets a file's whole content.
    pub fn set(&mut self, path: &Path, bytes: Vec<u8>) {
        let slot = self.slot(path);
        slot.counts = None;
        slot.splices = None;
        slot.changes += 1;
        slot.planned = Some(Arc::new(bytes));
    }

    /// Sets a file's whole content, with the lines added and removed the planner counted (the
    /// whole change from the file's current content).
    pub fn set_counted(&mut self, path: &Path, bytes: Vec<u8>, counts: (usize, usize)) {
        let first = self.slot(path).changes == 0;
        self.set(path, bytes);
        self.slot(path).counts = first.then_some(counts);
    }

    /// Sets a file's whole content, planned as `splices` of its current content, with the lines
    /// added and removed the planner counted: as `set_counted`, and the commit updates the
    /// document's rope and the event's ranges from the splices (see `Text::spliced`).
    pub fn set_spliced(
        &mut self,
        path: &Path,
        bytes: Vec<u8>,
        splices: Vec<Splice>,
        counts: (usize, usize),
    ) {
        let first = self.slot(path).changes == 0;
        self.set_counted(path, bytes, counts);
        self.slot(path).splices = first.then_some(splices);
    }

    /// Removes a file (it must exist).
    pub fn delete(&mut self, path: &Path) -> Result<()> {
        self.current(path)?;
        let slot = self.slot(path);
        slot.delete = true;
        slot.planned = Some(Arc::default());
        Ok(())
    }

    /// Hands the buffers nothing else holds any more (the content an edit replaced, a plan
    /// that was not committed) to the next edit (see `splice::spare`).
    fn recycle(self) {
        for (_, slot) in self.slots {
            drop(slot.doc);
            for buffer in [slot.original, slot.planned].into_iter().flatten() {
                if let Ok(buffer) = Arc::try_unwrap(buffer) {
                    splice::spare::give(buffer);
                }
            }
        }
    }

    /// The document a file had when planning started (for line-based checks and echoes).
    pub fn document(&self, path: &Path) -> Option<&Arc<Document>> {
        self.slots.get(path).and_then(|s| s.doc.as_ref())
    }
}

/// Runs one edit call: locks its files, plans with `plan`, commits. See the module docs.
pub fn run<F>(
    state: &coderd_core::workspace::Workspace,
    targets: Vec<Target>,
    opts: &Options,
    mut plan: F,
) -> Result<Vec<FileResult>>
where
    F: FnMut(&mut Draft) -> Result<()>,
{
    // Every content edit passes here: a target under `.git` is refused before any lock or read.
    for target in &targets {
        state.jail.check_edit(&target.resolved)?;
    }
    let _held = state
        .locks
        .lock(targets.iter().map(|t| t.resolved.abs.clone()))?;
    let mut attempt = 0;
    loop {
        let mut draft = load(state, &targets, opts)?;
        plan(&mut draft)?;
        let outcome = match opts.dry_run {
            true => Ok(report::previewed(&draft)),
            false => commit_all(state, &draft, opts),
        };
        draft.recycle();
        match outcome {
            Err(e) if e.code == Code::Stale && attempt == 0 => attempt += 1,
            outcome => return outcome,
        }
    }
}

fn load(
    state: &coderd_core::workspace::Workspace,
    targets: &[Target],
    opts: &Options,
) -> Result<Draft> {
    let limits = state.limits();
    let mut slots = BTreeMap::new();
    for target in targets {
        let path = target.resolved.abs.clone();
        if slots.contains_key(&path) {
            continue;
        }
        // A buffer of a file not on disk yet is unsaved work too.
        state
            .documents
            .buffers
            .refuse(&path)
            .map_err(|e| named(e, &target.field))?;
        let doc = match state.load(&target.resolved) {
            Ok(doc) => Some(doc),
            Err(e) if e.code == Code::NotFound && !opts.must_exist => None,
            Err(e) => return Err(named(e, &target.field)),
        };
        if let Some(doc) = &doc {
            check_version(state, target, doc)?;
            check_session(state, target, doc, opts, limits.require_read_before_edit)?;
        } else if let Some(expected) = &target.expect_version {
            return Err(Error::new(
                Code::Stale,
                format!(
                    "`{}`: {} no longer exists (expected version {expected})",
                    target.field,
                    path.display()
                ),
            )
            .with_recovery("list the folder and read the file again"));
        }
        let original = doc.as_ref().map(|d| d.shared_bytes());
        slots.insert(
            path,
            Slot {
                target: target.clone(),
                doc,
                original,
                planned: None,
                splices: None,
                changes: 0,
                counts: None,
                delete: false,
            },
        );
    }
    Ok(Draft { slots })
}

/// Adds the request field to errors that only named the path.
fn named(e: Error, field: &str) -> Error {
    if e.message.contains(&format!("`{field}`")) {
        e
    } else {
        e.with_prefix(format_args!("`{field}`: "))
    }
}

fn check_version(
    state: &coderd_core::workspace::Workspace,
    target: &Target,
    doc: &Document,
) -> Result<()> {
    let Some(expected) = &target.expect_version else {
        return Ok(());
    };
    let current = doc.version();
    if *expected == current {
        return Ok(());
    }
    let mut error = Error::new(
        Code::Stale,
        format!(
            "`{}`: {} is at version {current}, not the expected {expected}: it changed since it was read",
            target.field,
            doc.path.display()
        ),
    )
    .with_recovery("read the file again (the diff shows what changed), then retry the edit")
    .with_data("current_version", current)
    .with_data("expected_version", expected.clone());
    if let Some(old) = state.documents.older(&doc.path, expected) {
        error = error.with_data("diff", unified_diff(&old.bytes(), &doc.bytes(), &doc.path));
    }
    Err(error)
}

fn check_session(
    state: &coderd_core::workspace::Workspace,
    target: &Target,
    doc: &Document,
    opts: &Options,
    require_read: bool,
) -> Result<()> {
    let Some(session) = &opts.session else {
        return Ok(());
    };
    if !opts.line_numbers && !require_read {
        return Ok(());
    }
    let current = doc.version();
    match state.documents.sessions.last_read(session, &doc.path) {
        Some(seen) if seen == current => Ok(()),
        Some(seen) => Err(Error::new(
            Code::Stale,
            format!(
                "`{}`: {} changed since session `{session}` read it (read {seen}, now {current}); line numbers may point elsewhere",
                target.field,
                doc.path.display()
            ),
        )
        .with_recovery("read the file again and recompute the line numbers")
        .with_data("current_version", current)),
        None if require_read => Err(Error::new(
            Code::Stale,
            format!("`{}`: session `{session}` has not read {} yet", target.field, doc.path.display()),
        )
        .with_recovery("read the file first (require_read_before_edit is on)")),
        None => Ok(()),
    }
}

/// A unified diff between two contents, capped, for error data.
pub fn unified_diff(old: &[u8], new: &[u8], path: &Path) -> String {
    const CAP: usize = 16 * 1024;
    let old = String::from_utf8_lossy(old);
    let new = String::from_utf8_lossy(new);
    let shown = path.display().to_string();
    let mut text = similar::TextDiff::from_lines(old.as_ref(), new.as_ref())
        .unified_diff()
        .context_radius(2)
        .header(&shown, &shown)
        .to_string();
    if text.len() > CAP {
        let mut cut = CAP;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push_str("\n… (diff cut)\n");
    }
    text
}

/// The path of a file's backup: `<file>.bak` beside it, taken as written (not resolved).
pub fn backup_of(file: &Resolved) -> Resolved {
    let mut name = file.rel.file_name().unwrap_or_default().to_os_string();
    name.push(".bak");
    Resolved {
        abs: file.abs.with_file_name(&name),
        root: file.root,
        rel: file.rel.with_file_name(&name),
    }
}
