//! coderd's core: what every other layer stands on. Errors and their `C2xx` codes (`error`), the
//! jail that decides which paths a request may touch (`jail`, `globs`, `credentials`), the
//! daemon's configuration (`config`), the documents store of open files as ropes (`documents`)
//! and the workspace that holds it (`workspace`), the memory budget (`memory`), counters
//! (`metrics`), the processes the daemon starts (`children`), the request running on this
//! thread (`request`) and the lines going back to its client (`outgoing`).
//!
//! It knows no method, no subsystem (syntax, exec, lsp, edit, git) and no face: those crates
//! stand on this one, never the other way round.

pub mod children;
pub mod config;
pub mod credentials;
pub mod documents;
pub mod error;
pub mod globs;
pub mod jail;
pub mod memory;
pub mod metrics;
pub mod outgoing;
pub mod request;
pub mod typography;
pub mod workspace;
