//! Unit tests of `search`.

use super::*;

#[test]
fn clip_keeps_the_match_in_view_and_respects_char_boundaries() {
    let line = format!("{}NEEDLE{}", "a".repeat(100), "é".repeat(50));
    let (kept, cut) = clip(line.as_bytes(), 100, 40);
    let text = std::str::from_utf8(kept).unwrap();
    assert!(cut && text.contains("NEEDLE") && text.len() <= 40, "{text}");
    let (kept, cut) = clip(line.as_bytes(), 140, 41);
    let text = std::str::from_utf8(kept).expect("cut on a character boundary");
    assert!(cut && text.len() <= 41, "{text}");
    assert_eq!(clip(b"short", 0, 40), (&b"short"[..], false));
}

#[test]
fn a_line_object_is_what_serde_json_writes() {
    let mut out = String::new();
    let escaped = write_line(&mut out, Some(12), true, Some(3), b"a \"q\"\tb", true);
    let expected = serde_json::json!({"line": 12, "match": true, "column": 3,
        "text": "a \"q\"\tb", "line_truncated": true});
    let parsed: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(parsed, expected);
    assert_eq!(escaped, serde_json::to_string("a \"q\"\tb").unwrap().len());
    let mut out = String::new();
    write_line(&mut out, None, false, None, b"ctx", false);
    assert_eq!(out, r#"{"line":null,"match":false,"text":"ctx"}"#);
}
