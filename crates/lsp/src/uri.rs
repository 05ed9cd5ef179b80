//! `file://` URIs for local paths and back. Every byte outside the unreserved set and `/` is
//! percent-encoded, so spaces, `#`, `%` and non-UTF-8 names survive the round trip.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

pub fn from_path(path: &Path) -> String {
    let mut uri = String::from("file://");
    for &byte in path.as_os_str().as_bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                uri.push(byte as char)
            }
            _ => uri.push_str(&format!("%{byte:02X}")),
        }
    }
    uri
}

/// The path of a `file://` URI (with or without an empty authority); `None` for other schemes.
pub fn to_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let decoded = (bytes[i] == b'%')
            .then(|| rest.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match decoded {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    Some(PathBuf::from(OsStr::from_bytes(&out)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_names_round_trip() {
        for path in ["/tmp/a b/c#d%e.go", "/ws/main.py", "/x/ünï/€.ts"] {
            let uri = from_path(Path::new(path));
            assert!(!uri.contains(' ') && !uri.contains('#'), "{uri}");
            assert_eq!(to_path(&uri).unwrap(), Path::new(path));
        }
        assert_eq!(
            to_path("file:///C%3A/x").unwrap(),
            Path::new("/C:/x"),
            "encoded colons decode"
        );
        assert_eq!(to_path("untitled:1"), None);
    }
}
