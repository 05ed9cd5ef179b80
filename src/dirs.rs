//! The daemon's own folders: where it keeps data (checkpoints, todo lists) and state (the
//! temp-file journal), and folders only this user may enter (0700). In the core layer so that
//! the commit protocol and the sandbox need not know the wire or the daemon's state.

use std::path::{Path, PathBuf};

/// Creates the socket's folder (and parents) readable by this user only.
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
    let base = match std::env::var_os("XDG_DATA_HOME") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(std::env::var_os("HOME")?).join(".local/share"),
    };
    Some(base.join("coderd"))
}

/// The folder holding every daemon's `state_dir`: `$XDG_STATE_HOME/coderd`, else
/// `~/.local/state/coderd`.
pub fn state_base() -> Option<PathBuf> {
    let base = match std::env::var_os("XDG_STATE_HOME") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(std::env::var_os("HOME")?).join(".local/state"),
    };
    Some(base.join("coderd"))
}
