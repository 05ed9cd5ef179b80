//! The agent surface: the ways agent backends call coderd without glue.
//!
//! - `envelope`: the `tool` method, ChatCLI's `@coder` envelope (JSON or CLI-style, often
//!   malformed) and the atomic tools (`atomic`), normalized into one call of a method in the table.
//! - `recovery`: named, bounded JSON repairs; `words`: CLI-style splitting; `quotes`: curly quotes in
//!   model-written code.
//! - `keys`: agent param names (aliases, dashed and camelCased keys) made canonical for every request.
//! - `validate`: every schema violation as a JSON Pointer, for every request that serde refuses.
//! - `depth`: how deep a request may nest, checked before any walk over it recurses.
//!
//! Every path ends in `Method::call` of the method table: one handler per behaviour.

pub mod atomic;
pub mod depth;
pub mod envelope;
pub mod keys;
pub mod quotes;
pub mod recovery;
pub mod validate;
pub mod words;

use crate::methods::{method, Method};

/// The agent surface's entries in the method table.
pub fn methods() -> Vec<Method> {
    vec![method(
        "tool",
        &[],
        "A ChatCLI-style tool call ({\"cmd\", \"args\"}, CLI-style, or the raw text a model wrote), recovered, validated and run as the method it names.",
        true,
        envelope::run,
    )]
}
