//! Unit tests of `locate`.

use super::eols::{adapt_eols, owned_lines};
use super::lines::{split_lines, text_lines, Text};
use super::*;
use crate::splice::apply;
use serde_json::json;
use std::time::{Duration, Instant};

fn run(file: &[u8], search: &[u8], replace: &[u8]) -> Result<(Vec<u8>, &'static str)> {
    let l = locate_replace(file, search, replace, Occurrence::Unique)?;
    Ok((apply(file, &l.splices), l.matched_with))
}

#[test]
fn line_of_counts_the_same_with_and_without_the_table() {
    for file in [
        &b"a\nbb\n\nccc"[..],
        b"a\nbb\n\n",
        b"\n",
        b"x",
        b"a\r\nb\r\n",
    ] {
        let counted = Text::new(file);
        let tabled = Text::new(file);
        tabled.lines();
        for offset in 0..=file.len() {
            assert_eq!(counted.line_of(offset), tabled.line_of(offset), "{offset}");
        }
    }
}

/// The LF-only fast path of `ladder` takes the replacement verbatim; that is what the EOL
/// adaptation gives for such text, whichever lines the replacement aligns with.
#[test]
fn replacements_in_lf_only_text_need_no_eol_adaptation() {
    let file = b"fn a() {\n    one();\n    two();\n}\nlast";
    let text = Text::new(file);
    let search = b"    one();\n    two();\n";
    for replace in [
        &b"    uno();\n    two();\n"[..],
        b"    one();\n",
        b"    one();\n    new();\n    two();\n    three();",
        b"",
        b"no eol",
    ] {
        let adapted = adapt_eols(&text, 1, &text_lines(search), &owned_lines(replace));
        assert_eq!(adapted, replace, "{}", String::from_utf8_lossy(replace));
    }
}

#[test]
fn lines_split_at_every_lf_across_block_edges() {
    // LFs and CRLFs at every offset around the 16-byte blocks and the tail.
    for len in 0..70 {
        for step in 1..20 {
            let file: Vec<u8> = (0..len)
                .map(|i| match i % step {
                    0 => b'\n',
                    k if k == step - 1 && step > 3 => b'\r',
                    _ => b'x',
                })
                .collect();
            let mut expected = Vec::new();
            let mut start = 0;
            for (i, &b) in file.iter().enumerate() {
                if b == b'\n' {
                    let cr = i > start && file[i - 1] == b'\r';
                    expected.push((start, i - cr as usize, i + 1));
                    start = i + 1;
                }
            }
            if start < file.len() {
                expected.push((start, file.len(), file.len()));
            }
            let got: Vec<_> = split_lines(&file)
                .iter()
                .map(|l| (l.start, l.content_end, l.end))
                .collect();
            assert_eq!(got, expected, "len {len}, LF every {step}");
        }
    }
}

#[test]
fn exact_unique() {
    let (out, how) = run(b"a\nb\nc\n", b"b\n", b"B\n").unwrap();
    assert_eq!(out, b"a\nB\nc\n");
    assert_eq!(how, "exact");
}

#[test]
fn exact_in_crlf_file_keeps_crlf() {
    let (out, how) = run(b"a\r\nb\r\nc\r\n", b"b\r\n", b"B\nX\n").unwrap();
    assert_eq!(out, b"a\r\nB\r\nX\r\nc\r\n");
    assert_eq!(how, "exact");
}

#[test]
fn lf_search_in_crlf_file() {
    let (out, how) = run(b"a\r\nb\r\nc\r\n", b"a\nb\n", b"a\nB\n").unwrap();
    assert_eq!(out, b"a\r\nB\r\nc\r\n");
    assert_eq!(how, "line_endings");
}

#[test]
fn mixed_region_takes_each_lines_eol() {
    let file = b"a\r\nb\nc\r\nd\n";
    let (out, _) = run(file, b"a\nb\nc\n", b"a\nB\nnew\nc\n").unwrap();
    assert_eq!(out, b"a\r\nB\nnew\nc\r\nd\n");
}

#[test]
fn trailing_whitespace_and_indentation() {
    let file = b"fn f() {\n        let x = 1;  \n        let y = 2;\n}\n";
    let (out, how) = run(
        file,
        b"let x = 1;\nlet y = 2;\n",
        b"let x = 1;\nif y {\n    z();\n}\n",
    )
    .unwrap();
    assert_eq!(how, "indentation");
    assert_eq!(
        out,
        b"fn f() {\n        let x = 1;\n        if y {\n            z();\n        }\n}\n"
    );
    let (out, how) = run(
        file,
        b"        let x = 1;\n        let y = 2;\n",
        b"        let x = 3;\n        let y = 2;\n",
    )
    .unwrap();
    assert_eq!(how, "trailing_whitespace");
    assert_eq!(
        out,
        b"fn f() {\n        let x = 3;\n        let y = 2;\n}\n"
    );
}

#[test]
fn typography() {
    let file = "say(\u{201c}hi\u{201d});\nx\u{a0}= 1;\n".as_bytes();
    let (out, how) = run(file, b"say(\"hi\");", b"say(\"ho\");").unwrap();
    assert_eq!(how, "typography");
    assert_eq!(out, "say(\"ho\");\nx\u{a0}= 1;\n".as_bytes());
}

#[test]
fn ambiguous_lists_lines() {
    let err = run(b"}\nx\n}\n", b"}\n", b"};\n").unwrap_err();
    assert_eq!(err.data["matches"], json!([1, 3]));
    assert_eq!(err.data["match_count"], json!(2));
    let l = locate_replace(b"}\nx\n}\n", b"}\n", b"};\n", Occurrence::Nth(2)).unwrap();
    assert_eq!(apply(b"}\nx\n}\n", &l.splices), b"}\nx\n};\n");
    let l = locate_replace(b"}\nx\n}\n", b"}\n", b"};\n", Occurrence::All).unwrap();
    assert_eq!(apply(b"}\nx\n}\n", &l.splices), b"};\nx\n};\n");
    assert!(locate_replace(b"x\n", b"}\n", b"};\n", Occurrence::All).is_err());
}

#[test]
fn not_found_has_closest() {
    let file = b"fn a() {}\nfn main() {\n\tlet x = 1;\n    let y = 2; \n}\n";
    let err = run(
        file,
        b"fn main() {\n    let x = 10;\n    let y = 2;\n",
        b"zz",
    )
    .unwrap_err();
    let c = &err.data["closest"];
    assert_eq!(c["start_line"], json!(2));
    assert_eq!(c["end_line"], json!(4));
    let diff = c["diff"].as_str().unwrap();
    assert!(diff.contains("-→let x = 1;"), "{diff}");
    assert!(diff.contains("-    let y = 2;·"), "{diff}");
}

#[test]
fn replay_is_already_applied_and_anchor_append_is_not() {
    let file = b"a = 1\nlimit = 20\nc = 3\n";
    let l = locate_replace(file, b"limit = 10\n", b"limit = 20\n", Occurrence::Unique).unwrap();
    assert!(l.already_applied && l.splices.is_empty());
    assert_eq!(l.lines, vec![(2, 2)]);
    // The replacement stands elsewhere than where the search would have matched.
    let file = b"limit = 5\nreturn compute(2)\n";
    let err = run(file, b"limit = 10", b"return compute(2)").unwrap_err();
    assert_eq!(err.data["closest"]["start_line"], json!(1));
    // Search is a substring of replace: the search is found first and applied.
    let (out, _) = run(b"anchor\nz\n", b"anchor\n", b"anchor\nadded\n").unwrap();
    assert_eq!(out, b"anchor\nadded\nz\n");
}

#[test]
fn empty_search_and_no_final_newline() {
    assert!(run(b"a", b"", b"x").is_err());
    let (out, _) = run(b"a\n  b", b"b\n", b"c\n").unwrap();
    assert_eq!(out, b"a\n  c");
}

#[test]
fn closest_is_fast_on_big_files() {
    let mut file = Vec::new();
    for i in 0..10_000 {
        file.extend_from_slice(
            format!(
                "    let value_{i} = compute(alpha, beta, {i}); // comment {}\n",
                i * 7
            )
            .as_bytes(),
        );
    }
    assert!(file.len() > 400_000);
    let search = b"    let value_5000 = compute(alpha, gamma, 5000);\n    let value_5001 = compute(alpha, beta, 5001);\n    let value_5002 = nope;\n";
    let t = Instant::now();
    let err = run(&file, search, b"x\n").unwrap_err();
    let took = t.elapsed();
    assert_eq!(err.data["closest"]["start_line"], json!(5001));
    eprintln!("not-found on 10k lines: {took:?}");
    if !cfg!(debug_assertions) {
        assert!(took < Duration::from_millis(20));
    }
}
