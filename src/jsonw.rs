//! Writing JSON text straight into a `String`, for the answers that can be megabytes long
//! (`search`): no `Value` tree, no `Serializer` state machine per line, and a fast path for
//! strings that need no escaping (plain code is almost always such).
//!
//! The output is byte-for-byte what `serde_json` writes for the same strings and numbers (a test
//! holds the two side by side), so clients cannot tell which wrote it.

use serde_json::value::RawValue;

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

#[cfg(test)]
mod tests {
    use super::*;

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
