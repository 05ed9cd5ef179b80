//! Typed errors. Every failure that reaches a client is one of the `C2xx` codes below, with a message
//! that names the field or path and, where the caller can do something about it, a recovery hint.

use serde_json::{json, Map, Value};
use std::fmt;
use std::io;
use std::path::Path;

/// The error codes fixed by the wire convention (see docs/protocol.md, "Errors").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    /// Bad input: malformed request, wrong type, missing or conflicting fields.
    BadInput,
    /// Not found, or non-accessible by policy (the two are not told apart on purpose).
    NotFound,
    /// The file changed under the caller (stale read-before-write).
    Stale,
    /// Too large or over a budget; the data says how to ask for less.
    TooLarge,
    /// Refused by policy (dangerous command, non-regular file, ...).
    Refused,
    /// The path resolves outside every workspace root.
    OutsideJail,
    /// The operating system said no.
    Io,
    /// The target already exists.
    Exists,
    /// The operation ran out of time.
    TimedOut,
}

impl Code {
    pub fn as_str(self) -> &'static str {
        match self {
            Code::BadInput => "C210",
            Code::NotFound => "C211",
            Code::Stale => "C212",
            Code::TooLarge => "C213",
            Code::Refused => "C214",
            Code::OutsideJail => "C215",
            Code::Io => "C216",
            Code::Exists => "C217",
            Code::TimedOut => "C218",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Error {
    pub code: Code,
    pub message: String,
    pub recovery: Option<String>,
    /// Extra machine-readable fields merged into the JSON-RPC `error.data` object.
    pub data: Map<String, Value>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
            recovery: None,
            data: Map::new(),
        }
    }
    pub fn bad_input(message: impl Into<String>) -> Self {
        Self::new(Code::BadInput, message)
    }
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(Code::NotFound, message)
    }
    pub fn too_large(message: impl Into<String>) -> Self {
        Self::new(Code::TooLarge, message)
    }
    pub fn refused(message: impl Into<String>) -> Self {
        Self::new(Code::Refused, message)
    }
    pub fn outside_jail(message: impl Into<String>) -> Self {
        Self::new(Code::OutsideJail, message)
    }
    pub fn io(message: impl Into<String>) -> Self {
        Self::new(Code::Io, message)
    }

    pub fn with_recovery(mut self, hint: impl Into<String>) -> Self {
        self.recovery = Some(hint.into());
        self
    }

    /// Puts where the error happened in front of its message (`edits[2] (src/a.rs): `).
    pub fn with_prefix(mut self, prefix: impl fmt::Display) -> Self {
        self.message = format!("{prefix}{}", self.message);
        self
    }

    pub fn with_data(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.data.insert(key.to_string(), value.into());
        self
    }

    /// Maps an OS error on `path` to the code a caller can act on.
    pub fn from_io(err: &io::Error, path: &Path) -> Self {
        let shown = path.display();
        match err.kind() {
            io::ErrorKind::NotFound => {
                Self::not_found(format!("{shown}: no such file or directory"))
                    .with_recovery("check the path with list-folder or tree")
            }
            io::ErrorKind::NotADirectory => Self::not_found(format!(
                "{shown}: a component of the path is not a directory"
            )),
            io::ErrorKind::IsADirectory => Self::bad_input(format!("{shown} is a directory"))
                .with_recovery("use list-folder or tree for directories"),
            io::ErrorKind::InvalidFilename => {
                Self::bad_input(format!("{shown}: a file name in the path is too long"))
            }
            io::ErrorKind::PermissionDenied => Self::io(format!(
                "{shown}: permission denied by the operating system"
            )),
            _ => Self::io(format!("{shown}: {err}")),
        }
    }

    /// The JSON-RPC `error.data` object: the C2xx code, the recovery hint and any extra fields.
    pub fn data_json(&self) -> Value {
        let mut data = self.data.clone();
        data.insert("code".into(), json!(self.code.as_str()));
        // With `code`, iii's error object (`{"code": "C2xx", "message": ...}`).
        data.insert("message".into(), json!(self.message));
        if let Some(hint) = &self.recovery {
            data.insert("recovery".into(), json!(hint));
        }
        Value::Object(data)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)?;
        if let Some(hint) = &self.recovery {
            write!(f, " (hint: {hint})")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}
