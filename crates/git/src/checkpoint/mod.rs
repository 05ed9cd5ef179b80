//! `checkpoint`: snapshots of the workspace in a shadow git repository (`store`), restored through
//! the jail (`restore`), and taken automatically before every mutating call (`auto`).
//!
//! Every root is snapshotted, all in one commit per snapshot (`roots`), so one hash restores the
//! whole workspace. A workspace with a root that is `/`, `$HOME` or an ancestor of it is never
//! snapshotted: hashing that much of the disk would stall every edit.

pub mod auto;
pub mod keep;
pub mod restore;
pub mod roots;
pub mod store;

use coderd_core::error::{Error, Result};
use coderd_core::workspace::Workspace;
use schemars::JsonSchema;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use store::{Caps, Shadow};

/// How long an explicit `create` or `restore` may take.
const EXPLICIT_DEADLINE: Duration = Duration::from_secs(60);
const DEFAULT_LIST_LIMIT: usize = 30;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckpointParams {
    /// List snapshots, newest first (the default).
    #[serde(default)]
    pub list: bool,
    /// Take a snapshot now.
    #[serde(default)]
    pub create: bool,
    /// Rewind the tracked files to the snapshot with this hash (4 to 64 hex digits).
    pub restore: Option<String>,
    /// Label of a `create` snapshot (default "manual").
    pub label: Option<String>,
    /// How many snapshots `list` shows (default 30).
    pub limit: Option<usize>,
}

enum Action {
    List { limit: usize },
    Create { label: String },
    Restore { hash: String },
}

impl CheckpointParams {
    fn action(self) -> Result<Action> {
        let chosen = [self.list, self.create, self.restore.is_some()]
            .iter()
            .filter(|b| **b)
            .count();
        if chosen > 1 {
            return Err(Error::bad_input(
                "`list`, `create` and `restore` exclude each other; pass one",
            )
            .with_recovery("e.g. `checkpoint --create --label \"before refactor\"`"));
        }
        if self.label.is_some() && !self.create {
            return Err(Error::bad_input("`label` goes with `create`")
                .with_recovery("add `create: true`, or drop `label`"));
        }
        Ok(match (self.create, self.restore) {
            (true, _) => Action::Create {
                label: self.label.unwrap_or_else(|| "manual".into()),
            },
            (_, Some(hash)) => Action::Restore { hash },
            _ => Action::List {
                limit: self.limit.unwrap_or(DEFAULT_LIST_LIMIT).max(1),
            },
        })
    }
}

/// `checkpoint`'s answers: the wire's types, shared with clients.
pub use wire::answers::checkpoint::{Listing, Outcome};

/// The daemon's checkpoint state: where the shadow repository is and how automatic snapshots fare.
pub struct Checkpoints {
    shadow: Option<Shadow>,
    /// Why this workspace is never snapshotted, when it is `/`, `$HOME` or an ancestor of it.
    refusal: Option<String>,
    auto: Mutex<auto::Auto>,
}

impl Checkpoints {
    /// `data_dir`: the daemon's data folder (`$XDG_DATA_HOME/coderd`); none means no checkpoints.
    /// `roots`: the workspace's roots, the primary first.
    pub fn new(data_dir: Option<&Path>, roots: &[PathBuf]) -> Checkpoints {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        Checkpoints {
            shadow: data_dir.map(|dir| Shadow::new(dir, roots)),
            refusal: roots.iter().find_map(|r| too_broad(r, home.as_deref())),
            auto: Mutex::new(auto::Auto::from_env()),
        }
    }

    fn shadow(&self) -> Result<&Shadow> {
        if let Some(why) = &self.refusal {
            return Err(Error::refused(why.clone())
                .with_recovery("serve a project folder (`--root`), not a home or system folder"));
        }
        self.shadow.as_ref().ok_or_else(|| {
            Error::not_found(
                "checkpoints need a data folder: neither $XDG_DATA_HOME nor $HOME is set",
            )
            .with_recovery("set XDG_DATA_HOME for the daemon")
        })
    }
}

/// Why a root must never be snapshotted, if it is `/`, `$HOME` or one of `$HOME`'s ancestors.
pub fn too_broad(root: &Path, home: Option<&Path>) -> Option<String> {
    if root == Path::new("/") {
        return Some("the workspace is `/`; it is never snapshotted".into());
    }
    let home = home?;
    let home = std::fs::canonicalize(home).unwrap_or(home.to_path_buf());
    home.starts_with(root).then(|| {
        format!(
            "the workspace {} is $HOME or holds it; it is never snapshotted",
            root.display()
        )
    })
}

/// The caps in force (from the live config).
fn caps(state: &Workspace) -> Caps {
    let limits = state.limits();
    Caps {
        max_file_bytes: limits.checkpoint_max_file_bytes,
        max_files: limits.checkpoint_max_files,
    }
}

pub fn run(state: &Workspace, checkpoints: &Checkpoints, p: CheckpointParams) -> Result<Outcome> {
    match p.action()? {
        Action::List { limit } => {
            let deadline = Instant::now() + EXPLICIT_DEADLINE;
            let listed = match checkpoints.shadow() {
                Ok(shadow) => shadow
                    .list(limit, deadline)
                    .map_err(|e| Error::io(format!("checkpoint list: {e}")))?,
                Err(_) => Vec::new(),
            };
            Ok(Outcome::List(Listing {
                checkpoints: listed,
                auto: checkpoints.auto_report(state),
                store: checkpoints.shadow.as_ref().map(|s| s.git_dir.clone()),
            }))
        }
        Action::Create { label } => {
            let shadow = checkpoints.shadow()?;
            let deadline = Instant::now() + EXPLICIT_DEADLINE;
            let locked = shadow
                .lock(deadline)
                .map_err(store::SnapshotError::into_error)?;
            let snapshot = shadow
                .snapshot(&locked, &state.jail, caps(state), &label, deadline)
                .map_err(store::SnapshotError::into_error)?;
            Ok(Outcome::Create(snapshot))
        }
        Action::Restore { hash } => {
            let shadow = checkpoints.shadow()?;
            let deadline = Instant::now() + EXPLICIT_DEADLINE;
            let target = shadow.resolve_commit(&hash, deadline)?;
            let locked = shadow
                .lock(deadline)
                .map_err(store::SnapshotError::into_error)?;
            let label = format!("before restore of {}", &target[..12]);
            let now = shadow
                .snapshot(&locked, &state.jail, caps(state), &label, deadline)
                .map_err(|e| {
                    e.into_error()
                        .with_prefix("restore refused: the snapshot that would undo it failed: ")
                })?;
            let restored = restore::restore(state, shadow, &locked, &target, &now.hash, deadline)?;
            Ok(Outcome::Restore(restored))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn home_its_ancestors_and_the_system_root_are_too_broad() {
        let home = Path::new("/home/ann");
        assert!(too_broad(Path::new("/"), Some(home)).is_some());
        assert!(too_broad(Path::new("/home"), Some(home)).is_some());
        assert!(too_broad(Path::new("/home/ann"), Some(home)).is_some());
        assert!(too_broad(Path::new("/home/ann/project"), Some(home)).is_none());
        assert!(too_broad(Path::new("/srv/x"), None).is_none());
    }
}
