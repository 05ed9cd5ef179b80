//! The per-user folders coderd keeps things in, found by the XDG base-directory rules in one
//! place: runtime (sockets, the registry of live daemons), data (checkpoints, todo lists, backups'
//! journal, installed language servers), state (what a daemon leaves for its next start) and
//! cache. Each is `$XDG_<KIND>_HOME/coderd` (or `$XDG_RUNTIME_DIR/coderd`), an empty variable
//! counting as unset, else the spec's fallback under `$HOME`.
//!
//! Also where daemons and clients meet: the default socket of a workspace, and folders only this
//! user may enter. Depends on std, rustix and `tag` only: the daemon and its clients share it.

use std::path::{Path, PathBuf};

/// The per-user runtime folder: `$XDG_RUNTIME_DIR/coderd`, else `/tmp/coderd-<uid>`. Default
/// sockets, their logs and the registry live here.
pub fn runtime_dir() -> PathBuf {
    match non_empty_var("XDG_RUNTIME_DIR") {
        Some(dir) => dir.join("coderd"),
        None => PathBuf::from(format!(
            "/tmp/coderd-{}",
            rustix::process::getuid().as_raw()
        )),
    }
}

/// The socket a workspace's daemon listens on when none is named: in the runtime folder
/// (`runtime_dir`). The name hashes the canonical primary root, so every client that agrees on
/// the workspace agrees on the socket, and the path stays short (sun_path is 108 bytes).
pub fn default_socket_path(primary_root: &Path) -> PathBuf {
    let tag = crate::tag::of_paths(&[primary_root]);
    runtime_dir().join(format!("{tag}.sock"))
}

/// Creates a folder (and parents) readable by this user only.
pub fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

/// The daemon's data folder, for what is worth keeping across restarts and machines' reboots
/// (checkpoints, todo lists): `$XDG_DATA_HOME/coderd`, else `~/.local/share/coderd`.
pub fn data_dir() -> Option<PathBuf> {
    Some(base("XDG_DATA_HOME", ".local/share")?.join("coderd"))
}

/// The folder holding every daemon's state folder: `$XDG_STATE_HOME/coderd`, else
/// `~/.local/state/coderd`.
pub fn state_dir() -> Option<PathBuf> {
    Some(base("XDG_STATE_HOME", ".local/state")?.join("coderd"))
}

/// coderd's cache folder, for what can be rebuilt: `$XDG_CACHE_HOME/coderd`, else
/// `~/.cache/coderd`.
pub fn cache_dir() -> Option<PathBuf> {
    Some(base("XDG_CACHE_HOME", ".cache")?.join("coderd"))
}

/// The user's config folder (not coderd's own): `$XDG_CONFIG_HOME`, else `~/.config`. Other
/// programs' settings are found under it (git's `git/config`).
pub fn config_home() -> Option<PathBuf> {
    base("XDG_CONFIG_HOME", ".config")
}

/// `$var`, else `$HOME/home_relative` (`$HOME` taken as it is, as every caller did before).
fn base(var: &str, home_relative: &str) -> Option<PathBuf> {
    non_empty_var(var)
        .or_else(|| Some(PathBuf::from(std::env::var_os("HOME")?).join(home_relative)))
}

/// The variable as a path; unset and empty are the same.
fn non_empty_var(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
}
