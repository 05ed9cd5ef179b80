//! JSON text by hand, both ways, for the answers that can be megabytes long (`search`): the daemon
//! writes straight into a `String` (no `Value` tree, no `Serializer` state machine per line, a
//! fast path for strings that need no escaping, as plain code almost always is), and `coder`
//! copies a text answer's string out of the socket unescaped as it arrives (`copy_unescaped`),
//! never holding it whole. Everything else on the wire is serde's, the envelope around the hits
//! included: `raw_ref` and `to_raw` hand it the hand-written parts as they are.
//!
//! The output is byte-for-byte what `serde_json` writes for the same strings and numbers, and the
//! reading undoes it (tests hold the three side by side), so no side can tell which wrote it.
#![allow(missing_docs)]

use serde_json::value::RawValue;
use std::io::{BufRead, Write};

/// Appends `s` as a JSON string (quotes included).
/// The output stays a `String` throughout (escapes sit on ASCII bytes, so every slice taken is on
/// a character boundary): the finished answer needs no UTF-8 check over its megabytes.
pub fn string(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    string_contents(out, s);
    out.push('"');
}

/// Appends `s` escaped as inside a JSON string, without the quotes (for a string assembled from
/// several pieces, like `search`'s text answer).
pub fn string_contents(out: &mut String, s: &str) {
    let bytes = s.as_bytes();
    let mut start = 0;
    while let Some(at) = first_escape(&bytes[start..]) {
        let i = start + at;
        out.push_str(&s[start..i]);
        escape(out, bytes[i]);
        start = i + 1;
    }
    out.push_str(&s[start..]);
}

/// The index of the first byte that needs escaping. Eight bytes are tested at a time (SWAR: a
/// word has a control byte, a quote or a backslash), so a line of plain code is passed over at
/// a few cycles per word instead of a branch per byte.
fn first_escape(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let has_zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    let mut chunks = bytes.chunks_exact(8);
    let mut offset = 0;
    for chunk in &mut chunks {
        let w = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        let control = w.wrapping_sub(ONES * 0x20) & !w & HIGHS;
        if control
            | has_zero(w ^ (ONES * u64::from(b'"')))
            | has_zero(w ^ (ONES * u64::from(b'\\')))
            != 0
        {
            break;
        }
        offset += 8;
    }
    bytes[offset..]
        .iter()
        .position(|&b| needs_escape(b))
        .map(|i| offset + i)
}

/// Appends `bytes` as a JSON string, invalid UTF-8 replaced by U+FFFD (as `from_utf8_lossy`).
pub fn lossy_string(out: &mut String, bytes: &[u8]) {
    out.reserve(bytes.len() + 2);
    out.push('"');
    lossy_string_contents(out, bytes);
    out.push('"');
}

/// `lossy_string` without the quotes.
pub fn lossy_string_contents(out: &mut String, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(s) => string_contents(out, s),
        Err(_) => string_contents(out, &String::from_utf8_lossy(bytes)),
    }
}

#[inline]
fn needs_escape(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

fn escape(out: &mut String, b: u8) {
    let short = match b {
        b'"' => b'"',
        b'\\' => b'\\',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        0x08 => b'b',
        0x0c => b'f',
        _ => 0,
    };
    if short != 0 {
        out.push('\\');
        out.push(char::from(short));
    } else {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        out.push_str("\\u00");
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 0xf)]));
    }
}

/// Appends an unsigned number in decimal.
pub fn number(out: &mut String, n: u64) {
    let mut digits = [0u8; 20];
    out.extend(decimal(n, &mut digits).iter().map(|&d| char::from(d)));
}

/// `n` in decimal ASCII digits, written at the end of `buf` (20 digits hold any `u64`).
pub fn decimal(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buf[at..];
        }
    }
}

/// Appends `true` or `false`.
pub fn boolean(out: &mut String, b: bool) {
    out.push_str(if b { "true" } else { "false" });
}

/// Takes JSON text this module wrote as a `RawValue`, without parsing it again: serde_json's own
/// constructor (`RawValue::from_string`) validates by parsing, which for a 20 MB search answer
/// costs as much as writing it. The text must be one complete JSON value; the callers build it
/// from this module's writers only (tests parse what they write).
pub fn raw(json: String) -> Box<RawValue> {
    // SAFETY: `RawValue` is `#[repr(transparent)]` over `str` (serde_json declares it so and
    // converts `Box<str>` to `Box<RawValue>` this same way in `RawValue::from_owned`); the
    // transmute is between two fat pointers of identical layout and keeps the allocation.
    unsafe { std::mem::transmute::<Box<str>, Box<RawValue>>(json.into_boxed_str()) }
}

/// `json`, JSON text this module wrote, as a borrowed `RawValue`, without parsing it again (see
/// `raw`): for a serde-derived struct that holds parts already written, which serde then copies
/// into its output as they are.
pub fn raw_ref(json: &str) -> &RawValue {
    // SAFETY: as in `raw`: `RawValue` is `#[repr(transparent)]` over `str`, so the two references
    // have the same layout; the lifetime is carried over unchanged.
    unsafe { &*(json as *const str as *const RawValue) }
}

/// Serializes `value` with serde into a buffer of `capacity` bytes and takes the text as a
/// `RawValue` without checking or parsing it again: `serde_json::to_string` would start at 128
/// bytes and regrow (copying) up to a 20 MB search answer, and `RawValue::from_string` reparses.
pub fn to_raw<T: serde::Serialize + ?Sized>(
    value: &T,
    capacity: usize,
) -> serde_json::Result<Box<RawValue>> {
    let mut out = Vec::with_capacity(capacity);
    serde_json::to_writer(&mut out, value)?;
    // SAFETY: serde_json writes only UTF-8 (`RawValue` parts included, being `str`);
    // `serde_json::to_string` takes its own buffer with `from_utf8_unchecked` the same way.
    Ok(raw(unsafe { String::from_utf8_unchecked(out) }))
}

/// Copies a JSON string's contents from `input` (positioned just after its opening quote) to
/// `out`, unescaped, and consumes the closing quote. Escapes split across reads are carried over.
pub fn copy_unescaped(input: &mut impl BufRead, out: &mut impl Write) -> std::io::Result<()> {
    let invalid = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what);
    // An escape begun at the end of one read (at most `\uXXXX\uXXXX`, 12 bytes).
    let mut carry: Vec<u8> = Vec::new();
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            return Err(invalid("the answer ended inside its text"));
        }
        if !carry.is_empty() {
            let had = carry.len();
            let take = (12 - had).min(buf.len());
            carry.extend_from_slice(&buf[..take]);
            match unescape(&carry, &mut *out)? {
                Some(used) => {
                    input.consume(used.saturating_sub(had));
                    carry.clear();
                }
                None => input.consume(take),
            }
            continue;
        }
        match memchr::memchr2(b'\\', b'"', buf) {
            None => {
                out.write_all(buf)?;
                let n = buf.len();
                input.consume(n);
            }
            Some(i) if buf[i] == b'"' => {
                out.write_all(&buf[..i])?;
                input.consume(i + 1);
                return Ok(());
            }
            Some(i) => {
                out.write_all(&buf[..i])?;
                match unescape(&buf[i..], &mut *out)? {
                    Some(used) => input.consume(i + used),
                    None => {
                        carry.extend_from_slice(&buf[i..]);
                        let n = buf.len();
                        input.consume(n);
                    }
                }
            }
        }
    }
}

/// Writes the escape at the start of `bytes` (which starts with a backslash) unescaped and
/// returns how many bytes it took, or `None` when `bytes` ends before the escape does.
fn unescape(bytes: &[u8], out: &mut impl Write) -> std::io::Result<Option<usize>> {
    let invalid = || std::io::Error::new(std::io::ErrorKind::InvalidData, "a bad escape");
    let Some(&kind) = bytes.get(1) else {
        return Ok(None);
    };
    let simple = match kind {
        b'n' => b'\n',
        b't' => b'\t',
        b'r' => b'\r',
        b'"' => b'"',
        b'\\' => b'\\',
        b'/' => b'/',
        b'b' => 0x08,
        b'f' => 0x0c,
        b'u' => 0,
        _ => return Err(invalid()),
    };
    if kind != b'u' {
        out.write_all(&[simple])?;
        return Ok(Some(2));
    }
    let hex = |at: usize| -> Option<Result<u32, std::io::Error>> {
        let digits = bytes.get(at..at + 4)?;
        let text = std::str::from_utf8(digits).ok();
        Some(
            text.and_then(|t| u32::from_str_radix(t, 16).ok())
                .ok_or_else(invalid),
        )
    };
    let Some(first) = hex(2) else {
        return Ok(None);
    };
    let first = first?;
    let (code, used) = if (0xd800..0xdc00).contains(&first) {
        // A high surrogate: a low one must follow as `\uXXXX`, else it stands alone.
        match (bytes.get(6..8), hex(8)) {
            (None, _) => return Ok(None),
            (Some(b"\\u"), None) => return Ok(None),
            (Some(b"\\u"), Some(low)) => match low? {
                low @ 0xdc00..0xe000 => (0x10000 + ((first - 0xd800) << 10) + (low - 0xdc00), 12),
                _ => (0xfffd, 6),
            },
            _ => (0xfffd, 6),
        }
    } else {
        (first, 6)
    };
    let c = char::from_u32(code).unwrap_or('\u{fffd}');
    let mut utf8 = [0u8; 4];
    out.write_all(c.encode_utf8(&mut utf8).as_bytes())?;
    Ok(Some(used))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_written_reads_back_across_any_split() {
        let text = "quote \" backslash \\ tab \t newline \n controls \u{1} \u{7f} é 漢 🦀 \u{2028}";
        let mut escaped = String::new();
        string(&mut escaped, text);
        // After the opening quote; a small buffer splits escapes across reads.
        let body = &escaped.as_bytes()[1..];
        for capacity in 1..16 {
            let mut input = std::io::BufReader::with_capacity(capacity, body);
            let mut out = Vec::new();
            copy_unescaped(&mut input, &mut out).unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), text, "capacity {capacity}");
        }
    }

    #[test]
    fn strings_and_numbers_match_serde_json() {
        let samples = [
            "",
            "plain ascii, nothing to escape",
            "quote \" backslash \\ tab \t newline \n cr \r",
            "controls \u{0} \u{1} \u{8} \u{c} \u{1f} \u{7f}",
            "unicode é 漢字 🦀 and \u{2028}",
        ];
        for s in samples {
            let mut out = String::new();
            string(&mut out, s);
            assert_eq!(out, serde_json::to_string(s).unwrap());
        }
        for n in [0u64, 7, 10, 12345, u64::MAX] {
            let mut out = String::new();
            number(&mut out, n);
            assert_eq!(out, n.to_string());
        }
        let mut out = String::new();
        lossy_string(&mut out, b"bad \xff byte");
        assert_eq!(out, serde_json::to_string("bad \u{fffd} byte").unwrap());
        let text = r#"{"a":[1,"x"]}"#;
        let raw = raw(text.to_string());
        assert_eq!(raw.get(), text);
        assert_eq!(serde_json::to_string(&raw).unwrap(), text);
    }
}
