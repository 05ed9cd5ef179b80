//! The short name a list of paths gets inside a folder or file name (a default socket, a shadow
//! repository, a daemon's state folder, a todo file, the backups' journal): the first 8 bytes of
//! the SHA-256 of the paths' bytes, NUL-joined, in hex. The same paths in the same order always
//! get the same name, so a restarted daemon and every client find the same files; 16 hex digits
//! keep a socket path well under `sun_path`'s 108 bytes.

use sha2::{Digest, Sha256};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The 16-hex tag of `paths` (for one path, of its bytes alone).
pub fn of_paths<P: AsRef<Path>>(paths: &[P]) -> String {
    let joined = paths
        .iter()
        .map(|path| path.as_ref().as_os_str().as_bytes())
        .collect::<Vec<_>>()
        .join(&0u8);
    let digest = Sha256::digest(&joined);
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_path_is_hashed_alone_and_roots_nul_joined() {
        let one = of_paths(&[Path::new("/w")]);
        assert_eq!(one.len(), 16);
        let direct: String = Sha256::digest(b"/w")
            .iter()
            .take(8)
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(one, direct);
        let two = of_paths(&[Path::new("/a"), Path::new("/b")]);
        let joined: String = Sha256::digest(b"/a\0/b")
            .iter()
            .take(8)
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(two, joined);
    }
}
