//! The registry of live daemons lives in the wire crate (`wire::registry`), shared with the
//! clients that read it; the daemon writes its own entry through it, with its version.

pub use wire::registry::*;

/// Writes this daemon's entry (see `wire::registry::register`).
pub fn register(
    socket: &std::path::Path,
    roots: &[std::path::PathBuf],
) -> std::io::Result<Registration> {
    wire::registry::register(socket, roots, env!("CARGO_PKG_VERSION"))
}
