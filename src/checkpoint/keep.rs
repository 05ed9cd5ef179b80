//! The checkpoint store as the keeper of replaced bytes (`workspace::keep`): before an edit
//! overwrites, deletes or moves over files, their current bytes become a snapshot on top of the
//! newest one ("kept: before write of a.txt"), whatever the snapshots' own rules say of them
//! (ignored, untracked, changed since the last snapshot). It is built on copies of the indexes
//! (`Shadow::snapshot_with`), so later snapshots keep their rules, and no commit is made when the
//! newest snapshot already holds those bytes. `checkpoint --restore` of that hash brings them back.

use super::roots;
use super::Checkpoints;
use crate::workspace::keep::{Keeper, Kept};
use crate::workspace::Workspace;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How long keeping may take before the edit is refused (a snapshot of the whole tree may hold
/// the store's lock meanwhile).
const DEADLINE: Duration = Duration::from_secs(20);

impl Keeper for Checkpoints {
    fn keep(&self, workspace: &Workspace, files: &[PathBuf], label: &str) -> Result<Kept, String> {
        if let Some(why) = self.off_reason(workspace) {
            return Ok(Kept::Off(why));
        }
        let Some(shadow) = &self.shadow else {
            return Ok(Kept::Off("no data folder".into()));
        };
        let extra: Vec<(usize, Vec<u8>)> = files
            .iter()
            .filter_map(|abs| roots::holding(&shadow.trees, abs))
            .collect();
        if extra.is_empty() {
            return Ok(Kept::Off("no file inside a root".into()));
        }
        let deadline = Instant::now() + DEADLINE;
        let locked = shadow.lock(deadline).map_err(|e| e.to_string())?;
        let base = shadow.head();
        let (hash, _) = shadow
            .snapshot_with(&locked, base.as_deref(), &extra, label, deadline)
            .map_err(|e| e.to_string())?;
        Ok(Kept::In(hash))
    }
}
