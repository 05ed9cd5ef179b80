//! Unit tests of `update`: line ops, replace ops, echoes and the corpus in tests/edits.

use super::echo::lines_at;
use super::plan::{check_references, references};
use super::*;
use crate::stat::line_stat;
use regex::bytes::Regex;
use serde_json::{json, Value};

fn ops(ops: Value) -> Vec<Op> {
    serde_json::from_value(ops).expect("ops parse")
}

fn body(file: &[u8]) -> &[u8] {
    file.strip_prefix(BOM).unwrap_or(file)
}

/// Applies the ops, and checks that the splices give the same bytes and the same line
/// counts as a numstat of the whole bodies.
fn run(file: &[u8], list: Value) -> Applied {
    let done = apply(file, &ops(list)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(splice::apply(file, &done.splices), done.bytes, "splices");
    let whole = line_stat(body(file), body(&done.bytes));
    assert_eq!((done.lines_added, done.lines_removed), whole, "line counts");
    done
}

fn out(file: &str, list: Value) -> String {
    String::from_utf8(run(file.as_bytes(), list).bytes).unwrap()
}

fn fail(file: &str, list: Value) -> Error {
    match apply(file.as_bytes(), &ops(list)) {
        Ok(done) => panic!("applied: {:?}", String::from_utf8_lossy(&done.bytes)),
        Err(e) => {
            assert_eq!(e.code.as_str(), "C210");
            e
        }
    }
}

fn echo_lines(echo: &Echo) -> Vec<(usize, &str)> {
    echo.lines
        .iter()
        .map(|l| (l.line, l.text.as_str()))
        .collect()
}

const ABC: &str = "a\nb\nc\n";

#[test]
fn insert_at_1_and_at_len_plus_1() {
    let op = |at| json!([{"op": "insert", "at_line": at, "content": "X"}]);
    assert_eq!(out(ABC, op(1)), "X\na\nb\nc\n");
    assert_eq!(out(ABC, op(4)), "a\nb\nc\nX\n");
    assert_eq!(out(ABC, op(2)), "a\nX\nb\nc\n");
    let multi = json!([{"op": "insert", "at_line": 2, "content": "X\nY\n"}]);
    assert_eq!(out(ABC, multi), "a\nX\nY\nb\nc\n");
}

#[test]
fn the_seed_quickstart() {
    let done = out(
        "# notes\n- one\n- two\n",
        json!([
            { "op": "insert", "at_line": 2, "content": "draft" },
            { "op": "update_lines", "from_line": 3, "to_line": 3, "content": "- ONE" }
        ]),
    );
    assert_eq!(done, "# notes\ndraft\n- one\n- ONE\n");
}

#[test]
fn remove_to_eof_and_whole_file() {
    let rm = |a, b| json!([{"op": "remove", "from_line": a, "to_line": b}]);
    assert_eq!(out(ABC, rm(2, 3)), "a\n");
    assert_eq!(out(ABC, rm(1, 3)), "");
    assert_eq!(out("a\nb\nc", rm(3, 3)), "a\nb");
    assert_eq!(out("a\nb\nc", rm(2, 3)), "a");
    assert_eq!(out("a\nb\nc", rm(1, 3)), "");
    assert_eq!(out(ABC, rm(1, 1)), "b\nc\n");
}

#[test]
fn update_lines_grows_shrinks_and_empties() {
    let up =
        |a, b, c: &str| json!([{"op": "update_lines", "from_line": a, "to_line": b, "content": c}]);
    assert_eq!(out(ABC, up(2, 2, "B1\nB2")), "a\nB1\nB2\nc\n");
    assert_eq!(out(ABC, up(1, 2, "AB")), "AB\nc\n");
    assert_eq!(out(ABC, up(2, 3, "")), "a\n");
    assert_eq!(out(ABC, up(2, 2, "\n")), "a\n\nc\n");
    assert_eq!(out("a\nb\nc", up(3, 3, "C\nD\n")), "a\nb\nC\nD");
}

#[test]
fn bottom_up_keeps_original_numbering() {
    let done = out(
        "1\n2\n3\n4\n5\n6\n",
        json!([
            {"op": "remove", "from_line": 1, "to_line": 2},
            {"op": "insert", "at_line": 4, "content": "new"},
            {"op": "update_lines", "from_line": 6, "to_line": 6, "content": "six"},
            {"op": "insert", "at_line": 7, "content": "end"}
        ]),
    );
    assert_eq!(done, "3\nnew\n4\n5\nsix\nend\n");
}

#[test]
fn overlapping_line_ops_are_c210() {
    let same = fail(
        ABC,
        json!([
            {"op": "insert", "at_line": 2, "content": "x"},
            {"op": "insert", "at_line": 2, "content": "y"}
        ]),
    );
    assert!(same.message.contains("ops[1]: overlaps ops[0]"), "{same}");
    assert_eq!(same.data["op"], 1);
    assert_eq!(same.data["conflicts_with"], 0);
    let inside = fail(
        "1\n2\n3\n4\n5\n",
        json!([
            {"op": "remove", "from_line": 2, "to_line": 4},
            {"op": "insert", "at_line": 3, "content": "x"}
        ]),
    );
    assert!(inside.message.contains("removes lines 2-4"), "{inside}");
    let at_start = json!([
        {"op": "insert", "at_line": 2, "content": "x"},
        {"op": "update_lines", "from_line": 2, "to_line": 3, "content": "y"}
    ]);
    assert_eq!(fail(ABC, at_start).data["op"], 1);
    let ranges = json!([
        {"op": "update_lines", "from_line": 3, "to_line": 3, "content": "y"},
        {"op": "remove", "from_line": 1, "to_line": 3}
    ]);
    assert_eq!(fail(ABC, ranges).data["conflicts_with"], 0);
    // Touching but not overlapping.
    let after = json!([
        {"op": "remove", "from_line": 1, "to_line": 2},
        {"op": "insert", "at_line": 3, "content": "x"},
        {"op": "update_lines", "from_line": 3, "to_line": 3, "content": "C"}
    ]);
    assert!(apply(ABC.as_bytes(), &ops(after)).is_err());
    let adjacent = json!([
        {"op": "remove", "from_line": 1, "to_line": 1},
        {"op": "update_lines", "from_line": 2, "to_line": 2, "content": "B"},
        {"op": "insert", "at_line": 3, "content": "x"}
    ]);
    assert_eq!(out(ABC, adjacent), "B\nx\nc\n");
    let fine = json!([
        {"op": "remove", "from_line": 1, "to_line": 1},
        {"op": "update_lines", "from_line": 2, "to_line": 2, "content": "B"},
        {"op": "insert", "at_line": 4, "content": "x"}
    ]);
    assert_eq!(out(ABC, fine), "B\nc\nx\n");
    let after_range = json!([
        {"op": "remove", "from_line": 1, "to_line": 2},
        {"op": "insert", "at_line": 3, "content": "x"}
    ]);
    assert_eq!(out(ABC, after_range), "x\nc\n");
}

#[test]
fn out_of_range_names_the_op_and_the_line_count() {
    let e = fail(
        ABC,
        json!([{"op": "replace", "pattern": "a", "replacement": "b"},
               {"op": "insert", "at_line": 5, "content": "x"}]),
    );
    assert!(e.message.starts_with("ops[1]: insert at_line 5"), "{e}");
    assert!(e.message.contains("1..=4"), "{e}");
    assert_eq!(e.data["op"], 1);
    assert_eq!(e.data["total_lines"], 3);
    assert!(e.recovery.unwrap().contains("3 lines"));
    fail(ABC, json!([{"op": "insert", "at_line": 0, "content": "x"}]));
    let e = fail(ABC, json!([{"op": "remove", "from_line": 2, "to_line": 4}]));
    assert!(e.message.contains("past the end"), "{e}");
    let e = fail(ABC, json!([{"op": "remove", "from_line": 3, "to_line": 2}]));
    assert!(e.message.contains("after to_line"), "{e}");
    let e = fail(
        ABC,
        json!([{"op": "update_lines", "from_line": 0, "to_line": 1, "content": ""}]),
    );
    assert!(e.message.contains("1-based"), "{e}");
    assert_eq!(
        out("", json!([{"op": "insert", "at_line": 1, "content": "x"}])),
        "x\n"
    );
    fail("", json!([{"op": "remove", "from_line": 1, "to_line": 1}]));
    fail(ABC, json!([]));
}

#[test]
fn capture_references() {
    let rep = |p: &str, r: &str| json!([{"op": "replace", "pattern": p, "replacement": r}]);
    assert_eq!(out("cost 5\n", rep("(\\d+)", "$$$1")), "cost $5\n");
    assert_eq!(out("x\n", rep("x", "$$")), "$\n");
    assert_eq!(
        out("hi name\n", rep("name", "Hello, $${name}!")),
        "hi Hello, ${name}!\n"
    );
    assert_eq!(
        out("ab\n", rep("(?<first>a)(?<second>b)", "$second$first")),
        "ba\n"
    );
    assert_eq!(
        out("ab\n", rep("(?<first>a)(b)", "${first}_${2}_$0")),
        "a_b_ab\n"
    );
    assert_eq!(out("ab\n", rep("(a)b", "${1}a")), "aa\n");
    assert_eq!(out("a\n", rep("a", "$ and ${ and $")), "$ and ${ and $\n");
    let e = fail("ab\n", rep("(a)b", "$1a"));
    assert!(e.message.contains("`$1a`"), "{e}");
    assert!(e.recovery.as_deref().unwrap().contains("${1}a"), "{e}");
    assert_eq!(e.data["reference"], "$1a");
    let e = fail("ab\n", rep("(a)b", "$2"));
    assert!(e.message.contains("$1..=$1"), "{e}");
    let e = fail("x\n", rep("x", "Hello, ${name}!"));
    assert!(e.message.contains("defines no capture groups"), "{e}");
    assert!(e.recovery.as_deref().unwrap().contains("$${name}"), "{e}");
    fail("x\n", rep("(?<a>x)", "$b"));
    fail("x\n", rep("x", "${}"));
    // Checked before anything applies, even when the op would match nothing.
    let e = fail(
        "x\n",
        json!([{"op": "insert", "at_line": 1, "content": "y"},
               {"op": "replace", "pattern": "zzz", "replacement": "$1", "expect_matches": 0}]),
    );
    assert_eq!(e.data["op"], 1);
}

#[test]
fn references_follow_regex_interpolation() {
    let refs = |r| {
        references(r)
            .into_iter()
            .map(|(w, c)| format!("{w}={c:?}"))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        refs("$1a $$2 ${x y} $_ $01 ${+1}"),
        vec![
            "$1a=Name(\"1a\")",
            "${x y}=Name(\"x y\")",
            "$_=Name(\"_\")",
            "$01=Number(1)",
            "${+1}=Number(1)",
        ]
    );
    assert!(refs("$ $. ${ $").is_empty());
    // Whatever the validator accepts expands exactly as regex does: compare against a
    // hand expansion for a pattern defining every referenced group.
    let re = Regex::new("(?<x>a)(?<y>b)").unwrap();
    let caps = re.captures(b"ab").unwrap();
    let mut got = Vec::new();
    caps.expand(b"<$x|${y}|$$x|$2|$1x|${x}y|$>", &mut got);
    assert_eq!(got, b"<a|b|$x|b||ay|$>");
    assert!(check_references(0, &re, "", "$1x").is_err());
}

#[test]
fn expect_matches() {
    let rep =
        |n| json!([{"op": "replace", "pattern": "o", "replacement": "0", "expect_matches": n}]);
    assert_eq!(out("foo\n", rep(2)), "f00\n");
    let e = fail("foo\n", rep(1));
    assert!(e.message.contains("matched 2 times, expected 1"), "{e}");
    assert!(e.recovery.as_deref().unwrap().contains("expect_matches: 2"));
    assert_eq!(e.data["matches"], 2);
    let e = fail("foo\n", rep(0));
    assert!(e.message.contains("expected 0"), "{e}");
    let absent =
        json!([{"op": "replace", "pattern": "zzz", "replacement": "0", "expect_matches": 0}]);
    let done = run(b"foo\n", absent);
    assert_eq!(done.bytes, b"foo\n");
    assert!(done.echoes.is_empty());
    let e = fail("bar\n", rep(1));
    assert!(e.message.contains("matched 0 times"), "{e}");
    // An earlier line op does not make it through either.
    let e = fail(
        "foo\n",
        json!([{"op": "insert", "at_line": 1, "content": "oo"},
               {"op": "replace", "pattern": "o", "replacement": "0", "expect_matches": 2}]),
    );
    assert_eq!(e.data["op"], 1);
}

#[test]
fn invalid_or_empty_regex_names_the_op() {
    let e = fail(
        ABC,
        json!([{"op": "insert", "at_line": 1, "content": "x"},
               {"op": "replace", "pattern": "(", "replacement": ""}]),
    );
    assert!(e.message.starts_with("ops[1]: invalid regex"), "{e}");
    assert_eq!(e.data["op"], 1);
    fail(
        ABC,
        json!([{"op": "replace", "pattern": "", "replacement": "x"}]),
    );
}

#[test]
fn dot_matches_newline_region_echo() {
    let file = "keep\n// BEGIN\nx\ny\nz\n// END\nafter\n";
    let op = |dot| {
        json!([{"op": "replace", "pattern": "// BEGIN.*?// END", "replacement": "// one\n// two\n// three\n// four",
                "dot_matches_newline": dot}])
    };
    fail(
        file,
        json!([{"op": "replace", "pattern": "// BEGIN.*?// END", "replacement": "", "expect_matches": 1}]),
    );
    assert_eq!(run(file.as_bytes(), op(false)).bytes, file.as_bytes());
    let done = run(file.as_bytes(), op(true));
    assert_eq!(
        String::from_utf8(done.bytes).unwrap(),
        "keep\n// one\n// two\n// three\n// four\nafter\n"
    );
    let echo = &done.echoes[0];
    assert_eq!(
        (echo.kind, echo.start_line, echo.end_line),
        (EchoKind::Replace, 2, 5)
    );
    assert_eq!(echo_lines(echo), vec![(2, "// one"), (5, "// four")]);
    assert_eq!((echo.elided, echo.replacements), (Some(2), Some(1)));
    assert_eq!((done.lines_added, done.lines_removed), (4, 5));
}

#[test]
fn replace_sites_are_capped_at_five() {
    let file = "x\n".repeat(7);
    let done = run(
        file.as_bytes(),
        json!([{"op": "replace", "pattern": "x", "replacement": "y"}]),
    );
    assert_eq!(done.bytes, "y\n".repeat(7).as_bytes());
    assert_eq!(done.echoes.len(), 5);
    assert!(done.echoes.iter().all(|e| e.replacements == Some(7)));
    let starts: Vec<usize> = done.echoes.iter().map(|e| e.start_line).collect();
    assert_eq!(starts, vec![1, 2, 3, 4, 5]);
    assert!(!done.echoes_truncated);
    // A site ending in a newline echoes its own line only.
    let done = run(
        b"a\nb\nc\n",
        json!([{"op": "replace", "pattern": "b\n", "replacement": "B1\nB2\n"}]),
    );
    assert_eq!(done.bytes, b"a\nB1\nB2\nc\n");
    assert_eq!(echo_lines(&done.echoes[0]), vec![(2, "B1"), (3, "B2")]);
}

#[test]
fn crlf_file_stays_crlf() {
    let file = "a\r\nb\r\nc\r\n";
    let done = out(
        file,
        json!([{"op": "insert", "at_line": 4, "content": "d\ne"},
               {"op": "update_lines", "from_line": 2, "to_line": 2, "content": "B\r\nB2\r\n"},
               {"op": "insert", "at_line": 1, "content": "0"}]),
    );
    assert_eq!(done, "0\r\na\r\nB\r\nB2\r\nc\r\nd\r\ne\r\n");
    assert_eq!(
        out(
            "a\r\nb",
            json!([{"op": "insert", "at_line": 3, "content": "c"}])
        ),
        "a\r\nb\r\nc"
    );
}

#[test]
fn mixed_file_keeps_each_lines_eol() {
    let file = "a\r\nb\nc\r\nd\n";
    assert_eq!(
        out(
            file,
            json!([{"op": "update_lines", "from_line": 2, "to_line": 3, "content": "B\nC\nX"}])
        ),
        "a\r\nB\nC\r\nX\r\nd\n"
    );
    assert_eq!(
        out(
            file,
            json!([{"op": "insert", "at_line": 3, "content": "x"}])
        ),
        "a\r\nb\nx\r\nc\r\nd\n"
    );
    assert_eq!(
        out(
            file,
            json!([{"op": "remove", "from_line": 2, "to_line": 2}])
        ),
        "a\r\nc\r\nd\n"
    );
    // Dominant EOL: CRLF wins 2:1 for the unterminated line gaining an EOL.
    assert_eq!(
        out(
            "a\r\nb\nc\r\nd",
            json!([{"op": "insert", "at_line": 5, "content": "e"}])
        ),
        "a\r\nb\nc\r\nd\r\ne"
    );
    assert_eq!(dominant_eol(&split_lines(b"a\nb\r\n")), LF);
    assert_eq!(dominant_eol(&split_lines(b"a\r\nb\n")), CRLF);
    assert_eq!(dominant_eol(&split_lines(b"abc")), LF);
}

#[test]
fn bom_stays_first() {
    let file = "\u{feff}a\nb\n";
    assert_eq!(
        out(
            file,
            json!([{"op": "insert", "at_line": 1, "content": "x"}])
        ),
        "\u{feff}x\na\nb\n"
    );
    assert_eq!(
        out(
            file,
            json!([{"op": "update_lines", "from_line": 1, "to_line": 1, "content": "A"}])
        ),
        "\u{feff}A\nb\n"
    );
    assert_eq!(
        out(
            file,
            json!([{"op": "remove", "from_line": 1, "to_line": 2}])
        ),
        "\u{feff}"
    );
    assert_eq!(
        out(
            file,
            json!([{"op": "replace", "pattern": "^a", "replacement": "A", "expect_matches": 1}])
        ),
        "\u{feff}A\nb\n"
    );
    let done = run(
        file.as_bytes(),
        json!([{"op": "insert", "at_line": 2, "content": "x"}]),
    );
    assert_eq!(
        echo_lines(&done.echoes[0]),
        vec![(1, "a"), (2, "x"), (3, "b")]
    );
}

#[test]
fn no_final_newline() {
    let file = "a\nb";
    assert_eq!(
        out(
            file,
            json!([{"op": "insert", "at_line": 3, "content": "c"}])
        ),
        "a\nb\nc"
    );
    assert_eq!(
        out(
            file,
            json!([{"op": "insert", "at_line": 3, "content": "c\n"}])
        ),
        "a\nb\nc"
    );
    assert_eq!(
        out(
            file,
            json!([{"op": "insert", "at_line": 2, "content": "x"}])
        ),
        "a\nx\nb"
    );
    assert_eq!(
        out(
            file,
            json!([{"op": "update_lines", "from_line": 2, "to_line": 2, "content": "B\nC"}])
        ),
        "a\nB\nC"
    );
    assert_eq!(
        out(
            "",
            json!([{"op": "insert", "at_line": 1, "content": "x\ny"}])
        ),
        "x\ny\n"
    );
    assert_eq!(
        out(
            "\n",
            json!([{"op": "insert", "at_line": 2, "content": "x"}])
        ),
        "\nx\n"
    );
}

#[test]
fn latin1_bytes_elsewhere_survive() {
    let file = b"caf\xe9\nmid\n\xff\xfe end\r\n";
    let done = run(
        file,
        json!([{"op": "update_lines", "from_line": 2, "to_line": 2, "content": "MID"},
               {"op": "replace", "pattern": "end", "replacement": "fin", "expect_matches": 1}]),
    );
    assert_eq!(done.bytes, b"caf\xe9\nMID\n\xff\xfe fin\r\n");
    assert_eq!(done.echoes[0].lines[0].text, "caf\u{fffd}");
    assert_eq!(done.echoes[1].lines[0].text, "\u{fffd}\u{fffd} fin");
}

#[test]
fn line_op_echoes_use_new_numbering() {
    let file: String = (1..=10).map(|i| format!("l{i}\n")).collect();
    let done = run(
        file.as_bytes(),
        json!([{"op": "update_lines", "from_line": 8, "to_line": 8, "content": "E"},
               {"op": "insert", "at_line": 2, "content": "i1\ni2"},
               {"op": "remove", "from_line": 5, "to_line": 6}]),
    );
    let [update, insert, remove] = &done.echoes[..] else {
        panic!("{:?}", done.echoes)
    };
    assert_eq!(
        (update.op, update.kind, update.start_line, update.end_line),
        (0, EchoKind::UpdateLines, 8, 8)
    );
    assert_eq!(
        echo_lines(update),
        vec![(6, "l4"), (7, "l7"), (8, "E"), (9, "l9"), (10, "l10")]
    );
    assert_eq!((insert.op, insert.start_line, insert.end_line), (1, 2, 3));
    assert_eq!(
        echo_lines(insert),
        vec![(1, "l1"), (2, "i1"), (3, "i2"), (4, "l2"), (5, "l3")]
    );
    assert_eq!(
        (remove.op, remove.kind, remove.start_line, remove.end_line),
        (2, EchoKind::Remove, 7, 6)
    );
    assert_eq!(
        echo_lines(remove),
        vec![(5, "l3"), (6, "l4"), (7, "l7"), (8, "E")]
    );
    assert_eq!((done.lines_added, done.lines_removed), (3, 3));
    assert!(!done.echoes_truncated);
}

#[test]
fn later_replace_ops_move_earlier_echoes() {
    let file = "a
b
c
d
e
";
    let done = run(
        file.as_bytes(),
        json!([{"op": "update_lines", "from_line": 4, "to_line": 4, "content": "D"},
               {"op": "replace", "pattern": "a\n", "replacement": "a1\na2\na3\n"},
               {"op": "replace", "pattern": "b\nc\n", "replacement": ""}]),
    );
    assert_eq!(done.bytes, b"a1\na2\na3\nD\ne\n");
    let update = &done.echoes[0];
    assert_eq!((update.start_line, update.end_line), (4, 4));
    assert_eq!(
        echo_lines(update),
        vec![(2, "a2"), (3, "a3"), (4, "D"), (5, "e")]
    );
    let grow = &done.echoes[1];
    assert_eq!(
        (grow.start_line, grow.end_line, grow.elided),
        (1, 3, Some(1))
    );
    let gone = &done.echoes[2];
    assert_eq!((gone.start_line, gone.end_line), (4, 4));
}

#[test]
fn large_windows_are_elided() {
    let file = "x\n".repeat(40);
    let content = "y\n".repeat(30);
    let done = run(
        file.as_bytes(),
        json!([{"op": "update_lines", "from_line": 5, "to_line": 6, "content": content}]),
    );
    let echo = &done.echoes[0];
    assert_eq!(
        (echo.start_line, echo.end_line, echo.elided),
        (5, 34, Some(34 - 16))
    );
    assert_eq!(echo.lines.len(), 16);
    assert_eq!(echo.lines[7].line, 10);
    assert_eq!(echo.lines[8].line, 29);
    assert_eq!(echo.lines[15].line, 36);
}

#[test]
fn echo_budget_runs_out() {
    let long = "z".repeat(1000);
    let file: String = (0..40).map(|_| format!("{long}\n")).collect();
    let list: Vec<Value> = (0..8)
        .map(|i| json!({"op": "update_lines", "from_line": 5 * i + 3, "to_line": 5 * i + 3, "content": "short"}))
        .collect();
    let done = run(file.as_bytes(), Value::Array(list));
    assert!(done.echoes_truncated);
    // Each echo shows 4 long lines and the short one: about 4 KiB each, so one fits.
    assert_eq!(done.echoes.len(), 1);
    let small: String = (0..40).map(|i| format!("{i}\n")).collect();
    let list: Vec<Value> = (0..8)
        .map(|i| json!({"op": "update_lines", "from_line": 5 * i + 3, "to_line": 5 * i + 3, "content": "short"}))
        .collect();
    let done = run(small.as_bytes(), Value::Array(list));
    assert!(!done.echoes_truncated);
    assert_eq!(done.echoes.len(), 8);
    // Very long lines are clipped.
    let huge = format!("{}\n", "é".repeat(3000));
    let done = run(
        huge.as_bytes(),
        json!([{"op": "insert", "at_line": 1, "content": "x"}]),
    );
    let line = &done.echoes[0].lines[1];
    assert!(
        line.clipped && line.text.len() <= ECHO_LINE_MAX && line.text.len() >= ECHO_LINE_MAX - 1
    );
}

#[test]
fn ops_deserialize_strictly_and_have_a_schema() {
    let bad = serde_json::from_value::<Vec<Op>>(
        json!([{"op": "insert", "at_line": 1, "content": "x", "extra": 1}]),
    );
    assert!(bad.unwrap_err().to_string().contains("unknown field"));
    let cased = serde_json::from_value::<Vec<Op>>(
        json!([{"op": "replace", "pattern": "x", "replacement": "y", "ignore_case": true}]),
    );
    assert!(cased.is_ok(), "iii's replace takes ignore_case");
    let bad =
        serde_json::from_value::<Vec<Op>>(json!([{"op": "insert", "at_line": -1, "content": "x"}]));
    assert!(bad.is_err());
    let schema = serde_json::to_string(&schemars::schema_for!(Op)).unwrap();
    assert!(schema.contains("update_lines") && schema.contains("dot_matches_newline"));
    let echo = Echo {
        op: 0,
        kind: EchoKind::UpdateLines,
        start_line: 1,
        end_line: 1,
        lines: vec![EchoLine {
            line: 1,
            text: "x".into(),
            clipped: false,
        }],
        elided: None,
        replacements: None,
    };
    assert_eq!(
        serde_json::to_value(&echo).unwrap(),
        json!({"op": 0, "kind": "update_lines", "start_line": 1, "end_line": 1, "lines": [{"line": 1, "text": "x"}]})
    );
}

#[test]
fn lines_at_finds_lines_far_apart() {
    let body: Vec<u8> = (0..3000)
        .map(|i| match i % 3 {
            0 => format!("line {i}\r\n"),
            1 => format!("{}\n", "x".repeat(i % 200)),
            _ => format!("a\rb {i}\n"),
        })
        .collect::<String>()
        .into_bytes();
    for body in [&body[..], &body[..body.len() - 1]] {
        let lines = split_lines(body);
        let wanted = [1, 2, 90, 91, 1500, 2998, 2999, 3000];
        let expected: Vec<&[u8]> = wanted.iter().map(|&k| text(body, &lines[k - 1])).collect();
        assert_eq!(lines_at(body, &wanted), expected);
    }
}

/// Replays tests/edits/update_file.json (the daemon-level harness replays it over the socket).
#[test]
fn corpus() {
    use base64::Engine;
    let b64 = |v: &Value| {
        base64::engine::general_purpose::STANDARD
            .decode(v.as_str().expect("base64 string"))
            .expect("valid base64")
    };
    let doc: Value =
        serde_json::from_str(include_str!("../../../../tests/edits/update_file.json")).unwrap();
    let cases = doc["cases"].as_array().unwrap();
    assert!(cases.len() >= 80, "{} cases", cases.len());
    let mut failures = Vec::new();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let file = match (case.get("file"), case.get("file_base64")) {
            (Some(text), None) => text.as_str().unwrap().as_bytes().to_vec(),
            (None, Some(bytes)) => b64(bytes),
            _ => panic!("{name}: needs file or file_base64"),
        };
        let result = serde_json::from_value::<Vec<Op>>(case["ops"].clone())
            .map_err(|e| Error::bad_input(format!("invalid ops: {e}")))
            .and_then(|ops| apply(&file, &ops));
        let expect = &case["expect"];
        let verdict = match (expect, &result) {
            (Value::Object(e), Err(err)) if e.contains_key("error") => {
                let contains = e["contains"].as_str().unwrap();
                if err.code.as_str() != e["error"] || !err.message.contains(contains) {
                    Err(format!("wrong error {err}, want {expect}"))
                } else {
                    Ok(())
                }
            }
            (_, Err(err)) => Err(format!("failed: {err}")),
            (Value::Object(e), Ok(_)) if e.contains_key("error") => {
                Err(format!("applied, want {expect}"))
            }
            (_, Ok(done)) => {
                let want = match expect {
                    Value::String(text) => text.as_bytes().to_vec(),
                    _ => b64(&expect["base64"]),
                };
                let echoes = serde_json::to_value(&done.echoes).unwrap();
                if done.bytes != want {
                    Err(format!(
                        "got {:?}, want {:?}",
                        String::from_utf8_lossy(&done.bytes),
                        String::from_utf8_lossy(&want)
                    ))
                } else if splice::apply(&file, &done.splices) != want {
                    Err(format!("splices {:?} do not give the result", done.splices))
                } else if (done.lines_added, done.lines_removed)
                    != line_stat(body(&file), body(&want))
                {
                    Err("the line counts of the splices differ from the whole file's".into())
                } else if case.get("echoes").is_some_and(|e| *e != echoes) {
                    Err(format!("echoes {echoes}"))
                } else if case
                    .get("echo_count")
                    .is_some_and(|n| *n != done.echoes.len())
                {
                    Err(format!("{} echoes", done.echoes.len()))
                } else if case
                    .get("echoes_truncated")
                    .is_some_and(|t| *t != done.echoes_truncated)
                {
                    Err(format!("echoes_truncated {}", done.echoes_truncated))
                } else if case
                    .get("lines_added")
                    .is_some_and(|n| *n != done.lines_added)
                    || case
                        .get("lines_removed")
                        .is_some_and(|n| *n != done.lines_removed)
                {
                    Err(format!("+{} -{}", done.lines_added, done.lines_removed))
                } else {
                    Ok(())
                }
            }
        };
        if let Err(why) = verdict {
            failures.push(format!("{name}: {why}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
