//! The agent surface: the ways agent backends call coderd without glue.
//!
//! The `tool` method itself (ChatCLI's `@coder` envelope and the atomic tools) resolves names in the
//! method table, so it lives with the table, in `methods::agent`; these are its parts that know no
//! method:
//!
//! - `recovery`: named, bounded JSON repairs; `words`: CLI-style splitting; `quotes`: curly quotes in
//!   model-written code.
//!
//! Agent param names made canonical, schema violations and the depth bound are the protocol's
//! (`protocol::keys`, `protocol::validate`, `protocol::depth`): every request goes through them.

pub mod quotes;
pub mod recovery;
pub mod words;
