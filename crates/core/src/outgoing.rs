//! What goes back to a client, and what a call's hooks add to a method's answer. A success keeps
//! its result as the method wrote it (`Outgoing::Success`), and `with_field` appends to that text
//! without parsing it again.

use crate::error::{Error, Result};
use serde_json::value::RawValue;

/// One line on its way to a client. A success keeps its result as the method wrote it: the
/// writer sends the envelope's head, the result and the closing brace one after another, so an
/// answer of tens of megabytes is never copied into a second buffer to be wrapped.
pub enum Outgoing {
    Line(Vec<u8>),
    Success {
        head: Vec<u8>,
        result: Box<RawValue>,
    },
}

impl From<Vec<u8>> for Outgoing {
    fn from(line: Vec<u8>) -> Outgoing {
        Outgoing::Line(line)
    }
}

impl Outgoing {
    /// The line's pieces in order, the newline included.
    pub fn pieces(&self) -> [&[u8]; 3] {
        match self {
            Outgoing::Line(line) => [line, b"\n", b""],
            Outgoing::Success { head, result } => [head, result.get().as_bytes(), b"}\n"],
        }
    }
}

/// Adds `"key": value` (value already JSON text) at the end of an object answer, without parsing
/// it again; an answer that is not an object comes back as it was. What a call's hooks (its
/// diagnostics, a missed checkpoint) add to the method's own answer.
pub fn with_field(result: Box<RawValue>, key: &str, value: &str) -> Result<Box<RawValue>> {
    let text = result.get();
    let Some(body) = text.trim_end().strip_suffix('}') else {
        return Ok(result);
    };
    let separator = match body.trim_end().ends_with('{') {
        true => "",
        false => ",",
    };
    RawValue::from_string(format!("{body}{separator}\"{key}\":{value}}}"))
        .map_err(|e| Error::io(format!("attaching {key}: {e}")))
}
