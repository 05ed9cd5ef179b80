//! coderd: an editing daemon for coding agents. See ARCHITECTURE.md for where each concept lives.

pub mod cli;
pub mod config;
pub mod documents;
pub mod edit;
pub mod error;
pub mod globs;
pub mod jail;
pub mod listing;
pub mod lsp;
pub mod memory;
pub mod methods;
pub mod protocol;
pub mod read;
pub mod registry;
pub mod search;
pub mod server;
pub mod state;
pub mod syntax;
