//! Unit tests of `recovery`.

use super::literal::object_literal;
use super::*;
use serde_json::json;

fn ok(text: &str) -> (Value, Vec<&'static str>) {
    let r = recover(text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
    (r.value, r.steps)
}

#[test]
fn valid_json_passes_unchanged_with_no_steps() {
    let (v, steps) = ok(r#"{"a": "x,}", "b": [1, 2]}"#);
    assert_eq!(v, json!({"a": "x,}", "b": [1, 2]}));
    assert!(steps.is_empty());
}

#[test]
fn every_repair_is_a_no_op_on_valid_json() {
    let valid = r#"{"a":"it's “q” True, \"x\" C:\\dir","b":[1,{"c":null}],"d":"{'x':1,}"}"#;
    for (name, repair) in REPAIRS {
        if let Some(out) = repair(valid) {
            if *name != "closed_truncated" {
                assert_eq!(out, valid, "{name}");
            }
        }
    }
}

#[test]
fn trailing_commas_inside_strings_are_content() {
    let (v, steps) = ok(r#"{"a": "x,}", "b": [1,],}"#);
    assert_eq!(v, json!({"a": "x,}", "b": [1]}));
    assert_eq!(steps, ["trailing_commas"]);
}

#[test]
fn a_cut_inside_a_string_is_refused_with_its_pointer() {
    let e = recover(r#"{"cmd":"write","args":{"file":"a","content":"hello wor"#).unwrap_err();
    assert_eq!(
        e,
        Failure::Truncated {
            pointer: "/args/content".into(),
            what: "inside a string"
        }
    );
}

#[test]
fn a_cut_between_values_is_closed() {
    let (v, steps) = ok(r#"{"cmd":"read","args":{"file":"a.go","#.trim_end_matches(','));
    assert_eq!(v, json!({"cmd": "read", "args": {"file": "a.go"}}));
    assert_eq!(steps, ["closed_truncated"]);
}

#[test]
fn apostrophes_inside_single_quoted_words_stay() {
    let (v, _) = ok("{'content': 'it's here', 'file': 'a.txt'}");
    assert_eq!(v, json!({"content": "it's here", "file": "a.txt"}));
}

#[test]
fn text_nested_past_the_limit_is_refused_before_a_tree_is_built() {
    // Quoting the keys makes it JSON, which the parser finds too deep.
    let deep = format!("{}b{}", "{a:".repeat(100_000), "}".repeat(100_000));
    assert!(matches!(recover(&deep), Err(Failure::TooDeep { .. })));
    // A bare word in every object fails each parse early, so the object-literal repair is
    // the walk that meets the depth.
    let literal = |levels: usize| {
        let (open, close) = ("{a: b c, x:".repeat(levels), "}".repeat(levels));
        format!("{open}1{close}")
    };
    assert_eq!(
        recover(&literal(100_000)),
        Err(Failure::TooDeep {
            at: format!("byte {} of the text", 11 * MAX_DEPTH),
        })
    );
    // The repair holds to the limit on its own too.
    match object_literal(&literal(1_000)) {
        Err(Failure::TooDeep { at }) => assert!(at.starts_with("/x/x/x/"), "{at}"),
        other => panic!("{other:?}"),
    }
    let at_limit = recover(&literal(MAX_DEPTH)).unwrap();
    assert_eq!(at_limit.steps, ["unquoted_keys", "object_literal"]);
    assert_eq!(at_limit.guessed.len(), MAX_DEPTH);
}

#[test]
fn object_literals_report_what_they_guessed() {
    let r = recover("{file: main.go, start: 10}").unwrap();
    assert_eq!(r.value, json!({"file": "main.go", "start": 10}));
    assert_eq!(r.guessed, ["/file"]);
    assert_eq!(r.steps, ["unquoted_keys", "object_literal"]);
}
