//! Unit tests of `read`.

use super::*;

fn tally(chunks: &[&[u8]]) -> (u64, &'static str) {
    let mut tally = LineTally::default();
    chunks.iter().for_each(|c| tally.feed(c));
    let counted = tally.counted();
    (counted.lines, counted.line_ending.as_str())
}

#[test]
fn one_pass_counts_lines_and_tells_line_endings() {
    assert_eq!(tally(&[b"a\r\nb\r\n"]), (2, "crlf"));
    assert_eq!(tally(&[b"a\nb\r\n"]), (2, "mixed"));
    assert_eq!(tally(&[b"a\nb"]), (2, "lf"));
    assert_eq!(tally(&[b"ab"]), (1, "none"));
    assert_eq!(tally(&[b"a\rb\n"]), (1, "lf"));
    // A CRLF split across two buffers, and a lone CR at a buffer's end.
    assert_eq!(tally(&[b"a\r", b"\nb\r\n"]), (2, "crlf"));
    assert_eq!(tally(&[b"a\r", b"b\n"]), (1, "lf"));
    assert_eq!(tally(&[b"a\n", b"", b"b\r\n"]), (2, "mixed"));
    assert!(Sniff::of_bytes(b"a\0b").binary);
}

#[test]
fn a_window_tells_the_line_ending_of_what_it_read_through() {
    let mut file = tempfile::tempfile().unwrap();
    std::io::Write::write_all(&mut file, "a\n".repeat(10).as_bytes()).unwrap();
    std::io::Write::write_all(&mut file, b"b\r\n").unwrap();
    let range = |start, end| LineRange {
        start,
        end,
        capped: false,
    };
    let early = read_window(&file, &range(1, Some(2)), 1000, None, false).unwrap();
    assert_eq!((early.line_ending, early.saw_end), (LineEnding::Lf, false));
    let whole = read_window(&file, &range(3, None), 1000, None, false).unwrap();
    assert_eq!(
        (whole.line_ending, whole.saw_end),
        (LineEnding::Mixed, true)
    );
    let past = read_window(&file, &range(50, None), 1000, None, false).unwrap();
    assert_eq!((past.line_ending, past.saw_end), (LineEnding::Mixed, true));
}

#[test]
fn decode_drops_a_code_point_split_by_a_cut() {
    let bytes = "héllo".as_bytes();
    assert_eq!(
        decode_text(bytes[..2].to_vec(), true),
        ("h".to_string(), false)
    );
    assert_eq!(
        decode_text(b"a\xffb".to_vec(), false),
        ("a\u{fffd}b".to_string(), true)
    );
}
