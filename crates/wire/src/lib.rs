//! coderd's wire: what the daemon (`coderd`) and its clients (`coder`, the MCP face) share and
//! nothing else. It depends on no daemon code, so the `coder` binary stays small and starts fast.
//!
//! - `paths`: the per-user folders (runtime, data, state, cache), a workspace's default socket,
//!   private folders; `tag`: the 16-hex name a list of paths gets; `switches`: what an
//!   environment switch that says off looks like.
//! - `registry`: the files through which live daemons announce themselves and clients find them.
//! - `client`: finding (or starting) a daemon and sending it newline-delimited JSON-RPC frames.
//! - `argv`: the one parser that turns `--flag value` words into params typed by a method's JSON
//!   Schema, for `coder METHOD ...` and for the `tool` envelope's CLI-style calls.
//! - `jsonw`: JSON text written and read by hand where answers are megabytes (`search`).
//! - `diagnostics`: the typed view of an edit's `diagnostics` and the `[DIAGNOSTICS]` block.
//! - `answers`: what kind of answer a method gives (`schema`'s `answer`), which a client renders by.
#![warn(missing_docs)]

pub mod answers;
pub mod argv;
pub mod client;
pub mod diagnostics;
pub mod jsonw;
pub mod paths;
pub mod registry;
pub mod switches;
pub mod tag;
