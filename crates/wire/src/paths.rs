//! Where daemons and clients meet: the per-user runtime folder, the default socket of a
//! workspace, and folders only this user may enter.

use std::path::{Path, PathBuf};

/// The per-user runtime folder: `$XDG_RUNTIME_DIR/coderd`, else `/tmp/coderd-<uid>`. Default
/// sockets, their logs and the registry live here.
pub fn runtime_dir() -> PathBuf {
    match std::env::var_os("XDG_RUNTIME_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir).join("coderd"),
        _ => PathBuf::from(format!(
            "/tmp/coderd-{}",
            rustix::process::getuid().as_raw()
        )),
    }
}

/// The socket a workspace's daemon listens on when none is named: in the runtime folder
/// (`runtime_dir`). The name hashes the canonical primary root, so every client that agrees on
/// the workspace agrees on the socket, and the path stays short (sun_path is 108 bytes).
pub fn default_socket_path(primary_root: &Path) -> PathBuf {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(primary_root.as_os_str().as_encoded_bytes());
    let tag: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
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
