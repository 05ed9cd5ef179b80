//! Content as it arrives in edit requests: text, or base64 validated (never repaired).

use base64::Engine;
use coderd_core::error::{Error, Result};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema, Clone, Copy, Debug, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Encoding {
    #[default]
    Text,
    Base64,
}

/// How hard links are treated when a file with several is replaced.
#[derive(Deserialize, JsonSchema, Clone, Copy, Debug, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Hardlinks {
    /// Refuse (C214): replacing the name would silently split it from its other names.
    #[default]
    Refuse,
    /// Give the edited name its own inode; the other names keep the old content.
    Split,
}

/// The bytes a field carries in the given encoding.
pub fn decode(field: &str, value: &str, encoding: Encoding) -> Result<Vec<u8>> {
    match encoding {
        Encoding::Text => Ok(value.as_bytes().to_vec()),
        Encoding::Base64 => decode_base64(field, value),
    }
}

/// Standard-alphabet base64. Whitespace (spaces, tabs, line breaks) is ignored; any other byte
/// outside the alphabet fails with its offset, so a corrupted payload never reaches the disk.
pub fn decode_base64(field: &str, value: &str) -> Result<Vec<u8>> {
    let mut compact = Vec::with_capacity(value.len());
    for (offset, byte) in value.bytes().enumerate() {
        match byte {
            b' ' | b'\t' | b'\r' | b'\n' => {}
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'+' | b'/' | b'=' => compact.push(byte),
            _ => {
                return Err(Error::bad_input(format!(
                    "`{field}` is not valid base64: byte {offset} is {:?}, outside the standard alphabet (A-Z a-z 0-9 + / =)",
                    char::from(byte)
                ))
                .with_data("offset", offset)
                .with_recovery("re-encode the content with standard base64 (not URL-safe), or send it as text"));
            }
        }
    }
    let engine = base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
    );
    engine.decode(&compact).map_err(|e| {
        Error::bad_input(format!("`{field}` is not valid base64: {e}"))
            .with_recovery("re-encode the content; padding `=` may only end the payload")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_is_ignored_and_other_bytes_are_named() {
        assert_eq!(decode_base64("content", "SGVs\nbG8=").unwrap(), b"Hello");
        assert_eq!(decode_base64("content", "SGVsbG8").unwrap(), b"Hello");
        let e = decode_base64("content", "SGV*bG8=").unwrap_err();
        assert!(e.message.contains("byte 3"), "{e}");
        assert_eq!(e.data["offset"], 3);
        assert!(decode_base64("content", "SGVsbG8-").is_err());
    }
}
