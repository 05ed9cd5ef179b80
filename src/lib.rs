//! coderd: an editing daemon for coding agents. See ARCHITECTURE.md for where each concept lives.
//!
//! This crate is the top of the layers: the method table (`methods`) over the subsystems that
//! live in their own crates (coderd-core, coderd-syntax, coderd-exec, coderd-lsp, coderd-edit,
//! coderd-git) and the ones small enough to live here (`read`, `listing`, `search`, `todo`,
//! `agent`), and the faces that carry requests in: the socket (`server`, `connections`,
//! `outbox`, `protocol`), MCP (`mcp`), the iii engine (`iii`) and editors (`editor`).

pub mod agent;
pub mod connections;
pub mod editor;
pub mod iii;
pub mod listing;
pub mod mcp;
pub mod methods;
pub mod outbox;
pub mod protocol;
pub mod read;
pub mod registry;
pub mod search;
pub mod server;
pub mod todo;
