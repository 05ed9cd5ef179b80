//! Committing the planned bytes: hashing aside, publishing each changed file over what was
//! read (or restoring the ones already published when a later one fails), folders synced.

use super::report::finish;
use super::{backup_of, named, Draft, FileResult, Options, Slot};
use crate::commit::{self, Existing, Expected, Place, Publish, Staged};
use crate::keep::Replaced;
use coderd_core::error::{Code, Error, Result};
use std::fs::File;
use std::path::{Path, PathBuf};

/// A changed file's folder, the metadata its replacement keeps, and where its backup goes.
pub(super) struct Prepared {
    pub(super) place: Place,
    pub(super) like: Option<(Existing, File)>,
    pub(super) backup: Option<Place>,
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
pub(super) enum Hashing<'scope> {
    Done([u8; 32]),
    Running(std::thread::ScopedJoinHandle<'scope, [u8; 32]>),
}

impl<'scope> Hashing<'scope> {
    pub(super) fn start<'env>(
        scope: &'scope std::thread::Scope<'scope, 'env>,
        bytes: &'env [u8],
    ) -> Self {
        let hash = move || coderd_core::documents::stamp::content_hash(bytes);
        if bytes.len() < HASH_ASIDE_BYTES {
            return Hashing::Done(hash());
        }
        match std::thread::Builder::new().spawn_scoped(scope, hash) {
            Ok(handle) => Hashing::Running(handle),
            Err(_) => Hashing::Done(hash()),
        }
    }

    pub(super) fn wait(self) -> [u8; 32] {
        match self {
            Hashing::Done(hash) => hash,
            Hashing::Running(handle) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        }
    }
}

pub(super) fn commit_all(
    state: &coderd_core::workspace::Workspace,
    draft: &Draft,
    opts: &Options,
) -> Result<Vec<FileResult>> {
    let changed: Vec<&Slot> = draft
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
        publish_changed(state, draft, &changed, hashes, opts)
    })
}

/// Stages, backs up and publishes the changed files of a call (see the module docs).
fn publish_changed(
    state: &coderd_core::workspace::Workspace,
    draft: &Draft,
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
    keep_replaced(state, changed, &places, opts)?;
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
        crate::backups::record(state, path, &published);
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
    let results = finish(state, draft, changed, published, hashes, &places, opts);
    commit::close_later(
        places
            .into_iter()
            .filter_map(|p| p.like.map(|(_, file)| file)),
    );
    Ok(results)
}

/// Hands the bytes this commit replaces — each existing file it overwrites or deletes, and each
/// `.bak` it overwrites — to the keeper before anything is written (see `edit::keep`).
fn keep_replaced(
    state: &coderd_core::workspace::Workspace,
    changed: &[&Slot],
    places: &[Prepared],
    opts: &Options,
) -> Result<()> {
    let mut replaced = Vec::new();
    for (slot, prepared) in changed.iter().zip(places) {
        let field = &slot.target.field;
        if let Some(original) = &slot.original {
            let permissions = prepared.like.as_ref().map_or(0, |(like, _)| like.mode);
            let path = slot.target.resolved.abs.clone();
            replaced.push(Replaced::held(field, path, original.clone(), permissions));
        }
        if let Some(bak) = &prepared.backup {
            replaced.extend(Replaced::at(state, field, bak)?);
        }
    }
    let method = match opts.method {
        "" => "edit",
        named => named,
    };
    crate::keep::before(state, method, replaced, opts.force).map(|_| ())
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
    state: &coderd_core::workspace::Workspace,
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

/// Where the backup goes. Never resolved through a symlink: a planted `.bak` link is
/// replaced by the backup, never written through.
fn backup_place(state: &coderd_core::workspace::Workspace, slot: &Slot) -> Result<Place> {
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
    state: &coderd_core::workspace::Workspace,
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
