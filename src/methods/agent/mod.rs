//! The agent surface's method: `tool`, ChatCLI's `@coder` envelope (JSON or CLI-style, often
//! malformed) and the atomic tools (`atomic`), normalized into one call of a method in the table.
//! It names methods, so it lives beside the table; the parts that know no method (JSON recovery,
//! CLI-style words, curly quotes) are the `agent` subsystem's.

pub mod atomic;
pub mod envelope;

use super::{method, Method};

/// The agent surface's entries in the method table.
pub fn methods() -> Vec<Method> {
    vec![method(
        "tool",
        &[],
        "A ChatCLI-style tool call ({\"cmd\", \"args\"}, CLI-style, or the raw text a model wrote), recovered, validated and run as the method it names.",
        true,
        envelope::run,
    )
    .bare(&["cmd"])
    // A tool call waits like the method it names: the envelope is no way around the gate.
    .heavy(|_, params| envelope::inner_call(params).is_some_and(|(m, p)| m.is_heavy(&p)))
    // It changes nothing when it is a dry run or names a method that reads.
    .changes_nothing_when(|_, params| match envelope::inner_call(params) {
        Some((inner, p)) => !inner.mutates || inner.changes_nothing(&p),
        None => true,
    })
    // Its automatic snapshot is the one the method it names would take: an edit through `tool`
    // keeps its bytes as a direct one does, and `checkpoint` snapshots itself.
    .delegates(|_, params| envelope::inner_call(params))]
}
