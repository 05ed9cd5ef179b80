//! Edit transactions. Phase 1 plans every change in memory against the current documents (under the
//! files' locks); phase 2 stages every new content beside its target, then publishes them one by
//! one through the commit protocol. If another program wrote a file between the two phases, phase 1
//! runs once more on the fresh content; if a publish fails midway, the files already published get
//! their original bytes back. Either every file of the call changes, or none does.

use super::commit::{self, Existing, Expected, Place, Publish, Staged};
use super::content::Hardlinks;
use super::splice::{self, Splice};
use crate::documents::{Change, Document, Event, EventKind, Stamp, Text};
use crate::error::{Code, Error, Result};
use crate::jail::Resolved;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
}

impl Options {
    /// The options of the content edits that keep a `.bak` (`write`, `patch`, `multipatch`), from
    /// their shared params; `backup` defaults to on.
    pub fn backed_up(
        session: Option<String>,
        hardlinks: Option<Hardlinks>,
        backup: Option<bool>,
    ) -> Options {
        Options {
            session,
            split_hardlinks: hardlinks == Some(Hardlinks::Split),
            backup: backup.unwrap_or(true),
            ..Options::default()
        }
    }
}

/// One file's part of a call's answer.
#[derive(Serialize, Debug, Clone)]
pub struct FileResult {
    pub path: PathBuf,
    pub bytes: u64,
    pub version: String,
    pub revision: u64,
    pub lines_added: usize,
    pub lines_removed: usize,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub created: bool,
    /// Nothing needed changing: the content already was what the call asked for.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unchanged: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub deleted: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backup: Option<PathBuf>,
}

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
pub struct Workspace {
    slots: BTreeMap<PathBuf, Slot>,
}

impl Workspace {
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
    state: &crate::workspace::Workspace,
    targets: Vec<Target>,
    opts: &Options,
    mut plan: F,
) -> Result<Vec<FileResult>>
where
    F: FnMut(&mut Workspace) -> Result<()>,
{
    let _held = state
        .locks
        .lock(targets.iter().map(|t| t.resolved.abs.clone()))?;
    let mut attempt = 0;
    loop {
        let mut workspace = load(state, &targets, opts)?;
        plan(&mut workspace)?;
        let outcome = commit_all(state, &workspace, opts);
        workspace.recycle();
        match outcome {
            Err(e) if e.code == Code::Stale && attempt == 0 => attempt += 1,
            outcome => return outcome,
        }
    }
}

fn load(
    state: &crate::workspace::Workspace,
    targets: &[Target],
    opts: &Options,
) -> Result<Workspace> {
    let limits = state.limits();
    let mut slots = BTreeMap::new();
    for target in targets {
        let path = target.resolved.abs.clone();
        if slots.contains_key(&path) {
            continue;
        }
        let doc = match state.documents.load(
            &state.jail,
            &target.resolved,
            limits.max_write_bytes,
            limits.documents_max_bytes,
        ) {
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
    Ok(Workspace { slots })
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
    state: &crate::workspace::Workspace,
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
    state: &crate::workspace::Workspace,
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

/// A changed file's folder, the metadata its replacement keeps, and where its backup goes.
struct Prepared {
    place: Place,
    like: Option<(Existing, File)>,
    backup: Option<Place>,
}

/// A file ready to publish: its place, staged content, and how to publish it.
struct Ready<'a> {
    path: PathBuf,
    /// `None` for a file the call deletes.
    staged: Option<Staged<'a>>,
    how: Publish,
    /// The file as planned on, for the compare-and-swap (`None` when creating).
    expected: Option<Expected<'a>>,
}

/// Contents at least this large are hashed on a thread of their own while they are written.
const HASH_ASIDE_BYTES: usize = 64 * 1024;

/// The content hash of each changed file's new content (for its stamp), computed beside the
/// writes: for a large file the hash costs about half of what writing it does, and the two overlap.
enum Hashing<'scope> {
    Done([u8; 32]),
    Running(std::thread::ScopedJoinHandle<'scope, [u8; 32]>),
}

impl<'scope> Hashing<'scope> {
    fn start<'env>(scope: &'scope std::thread::Scope<'scope, 'env>, bytes: &'env [u8]) -> Self {
        let hash = move || crate::documents::stamp::content_hash(bytes);
        if bytes.len() < HASH_ASIDE_BYTES {
            return Hashing::Done(hash());
        }
        match std::thread::Builder::new().spawn_scoped(scope, hash) {
            Ok(handle) => Hashing::Running(handle),
            Err(_) => Hashing::Done(hash()),
        }
    }

    fn wait(self) -> [u8; 32] {
        match self {
            Hashing::Done(hash) => hash,
            Hashing::Running(handle) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        }
    }
}

fn commit_all(
    state: &crate::workspace::Workspace,
    workspace: &Workspace,
    opts: &Options,
) -> Result<Vec<FileResult>> {
    let changed: Vec<&Slot> = workspace
        .slots
        .values()
        .filter(|s| {
            s.planned_bytes()
                .is_some_and(|p| Some(p) != s.original_bytes() || s.original.is_none())
        })
        .collect();
    std::thread::scope(|scope| {
        let hashes = changed
            .iter()
            .map(|slot| {
                Some(Hashing::start(
                    scope,
                    slot.planned_bytes().unwrap_or_default(),
                ))
            })
            .collect();
        publish_changed(state, workspace, &changed, hashes, opts)
    })
}

/// Stages, backs up and publishes the changed files of a call (see the module docs).
fn publish_changed(
    state: &crate::workspace::Workspace,
    workspace: &Workspace,
    changed: &[&Slot],
    hashes: Vec<Option<Hashing>>,
    opts: &Options,
) -> Result<Vec<FileResult>> {
    let limits = state.limits();
    let fsync = limits.fsync;
    for slot in changed {
        let size = slot.planned.as_ref().map_or(0, |p| p.len()) as u64;
        if size > limits.max_write_bytes {
            return Err(Error::too_large(format!(
                "`{}`: the new content of {} would be {size} bytes, over max_write_bytes = {}",
                slot.target.field,
                slot.target.resolved.abs.display(),
                limits.max_write_bytes
            ))
            .with_data("size", size));
        }
    }
    // Places and sources first: every folder is opened before anything is written.
    let mut places: Vec<Prepared> = Vec::new();
    for slot in changed {
        let place = commit::place(&state.jail, &slot.target.resolved, slot.target.parents)
            .map_err(|e| named(e, &slot.target.field))?;
        let like = match &slot.doc {
            Some(_) => Some(existing(state, slot, opts)?),
            None => None,
        };
        let backup = match (&slot.doc, opts.backup) {
            (Some(_), true) => Some(backup_place(state, slot)?),
            _ => None,
        };
        places.push(Prepared {
            place,
            like,
            backup,
        });
    }
    let journal = &state.journal;
    let mut ready: Vec<Ready> = Vec::new();
    let mut backups: Vec<(&Path, Staged)> = Vec::new();
    for (
        slot,
        Prepared {
            place,
            like,
            backup,
        },
    ) in changed.iter().zip(&places)
    {
        let bytes = slot.planned_bytes().unwrap_or_default();
        let like_ref = like.as_ref().map(|(e, f)| (e, f));
        let staged = match slot.delete {
            true => None,
            false => Some(commit::stage(place, bytes, like_ref, fsync, journal)?),
        };
        ready.push(Ready {
            path: slot.target.resolved.abs.clone(),
            staged,
            // A file this call creates must not appear meanwhile: for create-only targets that is
            // C217, for others a stale plan (planned again once).
            how: match &slot.doc {
                Some(_) => Publish::Replace,
                None => Publish::CreateNew,
            },
            expected: slot.doc.as_ref().map(|doc| Expected {
                stamp: &doc.stamp,
                content: slot.original_bytes().unwrap_or_default(),
            }),
        });
        if let (Some(bak), Some(original)) = (backup, &slot.original) {
            let staged = commit::stage(bak, original, like_ref, fsync, journal)?;
            backups.push((&bak.abs, staged));
        }
    }
    // Folders are synced once each, after every rename of the call (not once per file).
    for (path, bak) in backups {
        let published = bak.publish(Publish::Overwrite, None, false)?;
        super::backups::record(state, path, &published);
    }
    let mut published: Vec<(usize, Option<std::fs::Metadata>)> = Vec::new();
    for (i, item) in ready.into_iter().enumerate() {
        let creating = item.how == Publish::CreateNew && !changed[i].target.create_only;
        let outcome = match item.staged {
            Some(staged) => staged.publish(item.how, item.expected, false).map(Some),
            None => remove(&places[i].place, item.expected).map(|()| None),
        };
        match outcome {
            Ok(meta) => published.push((i, meta)),
            Err(e) => {
                restore(state, changed, &places, &published, fsync);
                // Someone created the file between planning and publishing: plan again.
                let e = if creating && e.code == Code::Exists {
                    commit::stale(&item.path)
                } else {
                    e
                };
                return Err(named(e, &changed[i].target.field));
            }
        }
    }
    if fsync {
        sync_folders(&places)?;
    }
    let results = finish(state, workspace, changed, published, hashes, &places, opts);
    commit::close_later(
        places
            .into_iter()
            .filter_map(|p| p.like.map(|(_, file)| file)),
    );
    Ok(results)
}

/// Makes the renames of a call durable: one fsync per distinct folder.
fn sync_folders(places: &[Prepared]) -> Result<()> {
    let mut synced = std::collections::HashSet::new();
    for Prepared { place, .. } in places {
        // A backup lives in its file's folder, so syncing the file's folder covers it.
        if synced.insert(place.abs.parent().map(Path::to_path_buf)) {
            commit::sync_dir(&place.dir, &place.abs)?;
        }
    }
    Ok(())
}

/// Deletes a file the call planned to delete, if it is still the one planned on.
fn remove(place: &Place, expected: Option<Expected>) -> Result<()> {
    if let Some(expected) = expected {
        place.still(expected)?;
    }
    place.unlink(false)
}

/// The metadata a replacement keeps, and the hard-link policy.
fn existing(
    state: &crate::workspace::Workspace,
    slot: &Slot,
    opts: &Options,
) -> Result<(Existing, File)> {
    let (file, meta) = state.jail.open_file(&slot.target.resolved)?;
    let existing = Existing::of(&meta);
    if existing.nlink > 1 && !opts.split_hardlinks {
        return Err(Error::refused(format!(
            "`{}`: {} has {} hard links; replacing it would split them",
            slot.target.field,
            slot.target.resolved.abs.display(),
            existing.nlink
        ))
        .with_recovery("pass `hardlinks: \"split\"` to give this name its own copy"));
    }
    Ok((existing, file))
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

/// Where the backup goes. Never resolved through a symlink: a planted `.bak` link is
/// replaced by the backup, never written through.
fn backup_place(state: &crate::workspace::Workspace, slot: &Slot) -> Result<Place> {
    let bak = backup_of(&slot.target.resolved);
    if state.jail.is_non_accessible(&bak.rel) {
        return Err(Error::not_found(format!(
            "`{}`: the backup {} would be non-accessible by workspace policy",
            slot.target.field,
            bak.abs.display()
        )));
    }
    let place = commit::place(&state.jail, &bak, false)?;
    if place.stat()?.is_some_and(|st| {
        rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::Directory
    }) {
        return Err(Error::refused(format!(
            "`{}`: {} is a folder; the backup cannot be written",
            slot.target.field,
            bak.abs.display()
        )));
    }
    Ok(place)
}

/// Puts back the original bytes of files already published (or removes files just created).
fn restore(
    state: &crate::workspace::Workspace,
    changed: &[&Slot],
    places: &[Prepared],
    published: &[(usize, Option<std::fs::Metadata>)],
    fsync: bool,
) {
    for (i, _) in published {
        let Prepared { place, like, .. } = &places[*i];
        let how = if changed[*i].delete {
            Publish::CreateNew
        } else {
            Publish::Overwrite
        };
        let outcome = match &changed[*i].original {
            Some(original) => commit::stage(
                place,
                original,
                like.as_ref().map(|(e, f)| (e, f)),
                fsync,
                &state.journal,
            )
            .and_then(|s| s.publish(how, None, fsync).map(|_| ())),
            None => place.unlink(false),
        };
        if let Err(e) = outcome {
            tracing::error!(
                "restoring {} after a failed transaction: {e}",
                place.abs.display()
            );
        }
    }
}

/// Installs the new documents, publishes their events, and builds the answer.
fn finish(
    state: &crate::workspace::Workspace,
    workspace: &Workspace,
    changed: &[&Slot],
    published: Vec<(usize, Option<std::fs::Metadata>)>,
    mut hashes: Vec<Option<Hashing>>,
    places: &[Prepared],
    opts: &Options,
) -> Vec<FileResult> {
    let budget = state.limits().documents_max_bytes;
    let mut results = Vec::new();
    for (i, meta) in published {
        let slot = changed[i];
        let Some(meta) = meta else {
            results.push(deleted(state, slot));
            continue;
        };
        let new = slot.planned_bytes().unwrap_or_default();
        let hash = hashes[i].take().expect("one hash per changed file").wait();
        let stamp = Stamp::hashed(&meta, new.len() as u64, hash);
        let old_text = slot.doc.as_ref().map(|d| &d.text);
        let changes = changes(slot, old_text, new);
        let (lines_added, lines_removed) = slot.counts.unwrap_or_else(|| {
            line_counts(slot.original_bytes().unwrap_or_default(), new, &changes)
        });
        let text = match (old_text, &slot.splices) {
            (Some(old), Some(splices)) => old.spliced(splices, new),
            _ => Text::from_bytes(new.to_vec()),
        };
        let old_revision = slot.doc.as_ref().map(|d| d.revision);
        let revision =
            old_revision.unwrap_or(state.documents.revision(&slot.target.resolved.abs)) + 1;
        let doc = Arc::new(Document {
            path: slot.target.resolved.abs.clone(),
            stamp,
            revision,
            text,
            flat: slot.planned.clone(),
        });
        let version = doc.version();
        if let Some(session) = &opts.session {
            state
                .documents
                .sessions
                .note_read(session, &doc.path, &version);
        }
        let created = slot.doc.is_none();
        state.documents.committed(
            doc,
            Event {
                path: slot.target.resolved.abs.clone(),
                old_revision,
                new_revision: Some(revision),
                kind: if created {
                    EventKind::Created
                } else {
                    EventKind::Edited
                },
                changes,
            },
            budget,
        );
        results.push(FileResult {
            path: slot.target.resolved.abs.clone(),
            bytes: new.len() as u64,
            version,
            revision,
            lines_added,
            lines_removed,
            created,
            unchanged: false,
            deleted: false,
            backup: places[i].backup.as_ref().map(|p| p.abs.clone()),
        });
    }
    // Files the call named but did not need to change are reported too, as unchanged.
    for slot in workspace.slots.values() {
        if results.iter().any(|r| r.path == slot.target.resolved.abs) {
            continue;
        }
        if let Some(doc) = &slot.doc {
            if let Some(session) = &opts.session {
                state
                    .documents
                    .sessions
                    .note_read(session, &doc.path, &doc.version());
            }
            results.push(FileResult {
                path: doc.path.clone(),
                bytes: doc.stamp.size,
                version: doc.version(),
                revision: doc.revision,
                lines_added: 0,
                lines_removed: 0,
                created: false,
                unchanged: true,
                deleted: false,
                backup: None,
            });
        }
    }
    results
}

/// Tells the documents store a file the call deleted is gone, and reports it.
fn deleted(state: &crate::workspace::Workspace, slot: &Slot) -> FileResult {
    let path = slot.target.resolved.abs.clone();
    let old_revision = slot.doc.as_ref().map(|d| d.revision);
    state.documents.removed(
        &path,
        Event {
            path: path.clone(),
            old_revision,
            new_revision: None,
            kind: EventKind::Deleted,
            changes: Vec::new(),
        },
    );
    let original = slot.original.as_deref().map_or(&[][..], |v| v.as_slice());
    FileResult {
        path,
        bytes: 0,
        version: String::new(),
        revision: old_revision.unwrap_or(0) + 1,
        lines_added: 0,
        lines_removed: memchr::memchr_iter(b'\n', original).count(),
        created: false,
        unchanged: false,
        deleted: true,
        backup: None,
    }
}

/// The changed regions, from the splices of a single change, else one region between the common
/// prefix and suffix of the old and new content.
fn changes(slot: &Slot, old_text: Option<&Text>, new: &[u8]) -> Vec<Change> {
    let old = slot
        .original
        .as_deref()
        .map(|v| v.as_slice())
        .unwrap_or_default();
    // Lines of `new` before a byte offset, counted on from the previous (larger or equal) offset
    // asked: the regions come in file order, so the whole count is one pass over `new`.
    let mut counted = (0, 0);
    let mut new_line = |byte: usize| {
        let (at, lines) = if byte >= counted.0 { counted } else { (0, 0) };
        let lines = lines + memchr::memchr_iter(b'\n', &new[at..byte]).count();
        counted = (byte, lines);
        lines
    };
    let old_line = |byte: usize| match old_text {
        Some(t) => t.line_of_byte(byte),
        None => 0,
    };
    let regions: Vec<(std::ops::Range<usize>, usize)> = match &slot.splices {
        Some(splices) => {
            let mut sorted: Vec<&Splice> = splices.iter().collect();
            sorted.sort_by_key(|s| s.range.start);
            sorted
                .iter()
                .map(|s| (s.range.clone(), s.text.len()))
                .collect()
        }
        None => {
            let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
            let max_suffix = old.len().min(new.len()) - prefix;
            let suffix = old
                .iter()
                .rev()
                .zip(new.iter().rev())
                .take(max_suffix)
                .take_while(|(a, b)| a == b)
                .count();
            vec![(prefix..old.len() - suffix, new.len() - suffix - prefix)]
        }
    };
    let mut shift: isize = 0;
    regions
        .into_iter()
        .map(|(range, new_len)| {
            let new_start = (range.start as isize + shift) as usize;
            shift += new_len as isize - range.len() as isize;
            let new_bytes = new_start..new_start + new_len;
            Change {
                old_lines: old_line(range.start)..old_line(range.end) + 1,
                new_lines: new_line(new_bytes.start)..new_line(new_bytes.end) + 1,
                old_bytes: range,
                new_bytes,
            }
        })
        .collect()
}

/// Lines added and removed, as `git diff --stat` counts them, over the changed regions only.
fn line_counts(old: &[u8], new: &[u8], changes: &[Change]) -> (usize, usize) {
    let (mut added, mut removed) = (0, 0);
    for change in changes {
        let old_region = whole_lines(old, change.old_bytes.clone());
        let new_region = whole_lines(new, change.new_bytes.clone());
        let old_lines: Vec<&[u8]> = old_region.split_inclusive(|b| *b == b'\n').collect();
        let new_lines: Vec<&[u8]> = new_region.split_inclusive(|b| *b == b'\n').collect();
        for op in similar::capture_diff_slices(similar::Algorithm::Myers, &old_lines, &new_lines) {
            let (tag, old_range, new_range) = op.as_tag_tuple();
            if tag != similar::DiffTag::Equal {
                removed += old_range.len();
                added += new_range.len();
            }
        }
    }
    (added, removed)
}

/// The region widened to whole lines.
fn whole_lines(text: &[u8], range: std::ops::Range<usize>) -> &[u8] {
    let start = memchr::memrchr(b'\n', &text[..range.start]).map_or(0, |i| i + 1);
    let ends_line = range.end > range.start && text[range.end - 1] == b'\n';
    let end = match memchr::memchr(b'\n', &text[range.end..]) {
        _ if ends_line => range.end,
        Some(i) => range.end + i + 1,
        None => text.len(),
    };
    &text[start..end]
}
