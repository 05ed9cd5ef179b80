//! coderd: an editing daemon for coding agents. See ARCHITECTURE.md for where each concept lives.
//!
//! This crate is the top of the layers: the method table (`methods`) over the subsystems that
//! live in their own crates (coderd-core, coderd-syntax, coderd-exec, coderd-lsp, coderd-edit,
//! coderd-git) and the ones small enough to live here (`read`, `listing`, `search`, `todo`,
//! `agent`, `symedit`), and the faces that carry requests in: the socket (`server`, `connections`,
//! `outbox`, `protocol`), MCP (`mcp`), the iii engine (`iii`) and editors (`editor`).

mod agent;
mod connections;
pub mod editor;
#[cfg(feature = "iii")]
pub mod iii;
mod listing;
pub mod mcp;
mod methods;
mod outbox;
mod protocol;
mod read;
mod registry;
mod search;
pub mod server;
mod symedit;
mod todo;

/// The method table's description (`coderd schema`, for `coder --help` with no daemon).
pub use methods::described_methods;
