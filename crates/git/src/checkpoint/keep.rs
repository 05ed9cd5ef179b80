//! The checkpoint store as the keeper of replaced bytes (`workspace::keep`): before an edit
//! overwrites, deletes or moves over files, their current bytes become a snapshot on top of the
//! newest one ("kept: before write of a.txt"), whatever the snapshots' own rules say of them
//! (ignored, untracked, changed since the last snapshot). The bytes are the ones the edit read
//! through the jail, hashed as they are: git never reads the work tree for them, so a symlink
//! swapped in meanwhile cannot slip other bytes in. It is built on copies of the indexes
//! (`Shadow::snapshot_with`), so later snapshots keep their rules, and no commit is made when the
//! newest snapshot already holds those bytes. `checkpoint --restore` of that hash brings them back.

use super::roots;
use super::store::Extra;
use super::Checkpoints;
use coderd_core::workspace::keep::{Bytes, Keeper, Kept};
use coderd_core::workspace::Workspace;
use std::time::{Duration, Instant};

/// How long keeping may take before the edit is refused (a snapshot of the whole tree may hold
/// the store's lock meanwhile).
const DEADLINE: Duration = Duration::from_secs(20);

impl Keeper for Checkpoints {
    fn keep(
        &self,
        workspace: &Workspace,
        files: &[Bytes<'_>],
        label: &str,
    ) -> Result<Kept, String> {
        if let Some(why) = self.off_reason(workspace) {
            return Ok(Kept::Off(why));
        }
        let Some(shadow) = &self.shadow else {
            return Ok(Kept::Off("no data folder".into()));
        };
        let placed: Vec<(usize, Vec<u8>, &Bytes)> = files
            .iter()
            .filter_map(|f| roots::holding(&shadow.trees, f.path).map(|(at, rel)| (at, rel, f)))
            .collect();
        if placed.is_empty() {
            return Ok(Kept::Off("no file inside a root".into()));
        }
        let deadline = Instant::now() + DEADLINE;
        let locked = shadow.lock(deadline).map_err(|e| e.to_string())?;
        let contents: Vec<&[u8]> = placed.iter().map(|(_, _, f)| f.bytes).collect();
        let ids = shadow
            .write_blobs(&locked, &contents, deadline)
            .map_err(|e| e.to_string())?;
        let extra: Vec<(usize, Extra)> = placed
            .into_iter()
            .zip(ids)
            .map(|((at, rel, f), id)| {
                let mode = f.mode;
                (at, Extra::Blob { rel, mode, id })
            })
            .collect();
        let base = shadow.head();
        let (hash, _) = shadow
            .snapshot_with(&locked, base.as_deref(), &extra, label, deadline)
            .map_err(|e| e.to_string())?;
        Ok(Kept::In(hash))
    }
}
