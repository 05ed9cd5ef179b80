//! Folders only this user may enter (0700): the runtime folder holding sockets, the temp-file
//! journal's folder. In the core layer so that the commit protocol need not know the wire.

use std::path::Path;

/// Creates the socket's folder (and parents) readable by this user only.
pub fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}
