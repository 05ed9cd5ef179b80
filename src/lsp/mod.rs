//! Language servers kept warm inside the daemon, and the diagnostics an edit's answer carries.
//!
//! `servers` reads the definitions (`grammars/servers.toml`); `transport` frames JSON-RPC over a
//! server's stdio; `client` is one process and what it reported.

pub mod client;
pub mod servers;
pub mod transport;
pub mod uri;
