//! Language servers kept warm inside the daemon, and the diagnostics an edit's answer carries.
//!
//! `servers` reads the definitions (`grammars/servers.toml`); `transport` frames JSON-RPC over a
//! server's stdio; `client` is one process and what it reported; `instance` is one server for one
//! root across restarts, with document sync and the settling rule.

pub mod client;
pub mod instance;
pub mod servers;
pub mod transport;
pub mod uri;
