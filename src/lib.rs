//! coderd: an editing daemon for coding agents. See ARCHITECTURE.md for where each concept lives.

pub mod agent;
pub mod checkpoint;
pub mod children;
pub mod config;
pub mod connections;
pub mod documents;
pub mod edit;
pub mod error;
pub mod exec;
pub mod git;
pub mod globs;
pub mod jail;
pub mod listing;
pub mod lsp;
pub mod map;
pub mod mcp;
pub mod memory;
pub mod methods;
pub mod progress;
pub mod protocol;
pub mod read;
pub mod registry;
pub mod search;
pub mod server;
pub mod state;
pub mod syntax;
pub mod todo;

/// JSON text written by hand for big answers: the wire crate's, shared with the client.
pub use wire::jsonw;
