//! coderd: an editing daemon for coding agents. See ARCHITECTURE.md for where each concept lives.

pub mod agent;
pub mod checkpoint;
pub mod children;
pub mod config;
pub mod connections;
pub mod credentials;
pub mod documents;
pub mod edit;
pub mod editor;
pub mod error;
pub mod exec;
pub mod git;
pub mod globs;
#[cfg(feature = "iii")]
pub mod iii;
pub mod jail;
pub mod listing;
pub mod lsp;
pub mod map;
pub mod mcp;
pub mod memory;
pub mod methods;
pub mod metrics;
pub mod outbox;
pub mod protocol;
pub mod read;
pub mod registry;
pub mod request;
pub mod search;
pub mod server;
pub mod syntax;
pub mod todo;
pub mod typography;
pub mod workspace;

// What the daemon shares with its clients lives in the wire crate; these are its modules under
// the names the daemon's code uses.
/// JSON text written by hand for big answers.
pub use wire::jsonw;
/// The per-user folders, the default socket, private folders.
pub use wire::paths;
/// What an environment switch that says off looks like.
pub use wire::switches;
/// The 16-hex name a list of paths gets.
pub use wire::tag;
