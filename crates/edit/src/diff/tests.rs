//! Unit tests of `diff`.

use super::apply::plan_file;
use super::parse::{new_file_bytes, parse};
use crate::locate::Located;
use crate::splice::apply;
use coderd_core::error::Result;

fn apply_diff(file: &[u8], diff: &[u8]) -> Result<(Vec<u8>, Located)> {
    let patches = parse(diff, Some("f"))?;
    assert_eq!(patches.len(), 1);
    let l = plan_file(file, &patches[0])?;
    Ok((apply(file, &l.splices), l))
}

const BASE: &[u8] = b"a\nb\nc\nd\ne\nf\ng\n";

#[test]
fn plain_hunk_and_no_numbers() {
    let (out, _) =
        apply_diff(BASE, b"--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n b\n-c\n+C\n d\n").unwrap();
    assert_eq!(out, b"a\nb\nC\nd\ne\nf\ng\n");
    let (out, _) = apply_diff(BASE, b"@@ @@\n b\n-c\n+C\n d\n").unwrap();
    assert_eq!(out, b"a\nb\nC\nd\ne\nf\ng\n");
    let (out, _) = apply_diff(BASE, b"@@ -9,7 +1,1 @@\n b\n-c\n+C\n d\n").unwrap();
    assert_eq!(out, b"a\nb\nC\nd\ne\nf\ng\n");
}

#[test]
fn crlf_file_and_crlf_diff() {
    let file = b"a\r\nb\r\nc\r\n";
    let (out, l) = apply_diff(file, b"@@ @@\r\n a\r\n-b\r\n+B\r\n+X\r\n c\r\n").unwrap();
    assert_eq!(out, b"a\r\nB\r\nX\r\nc\r\n");
    assert_eq!(l.matched_with, "exact");
}

#[test]
fn shuffled_hunks_and_already_applied() {
    let diff = b"@@ -6 @@\n e\n-f\n+F\n@@ -1 @@\n a\n-b\n+B\n";
    let (out, l) = apply_diff(BASE, diff).unwrap();
    assert_eq!(out, b"a\nB\nc\nd\ne\nF\ng\n");
    assert_eq!(l.lines, vec![(5, 6), (1, 2)]);
    let (again, l) = apply_diff(&out, diff).unwrap();
    assert!(l.already_applied);
    assert_eq!(again, out);
}

#[test]
fn ambiguity_and_hints() {
    let file = b"x\n}\ny\n}\nz\n";
    let err = apply_diff(file, b"@@ @@\n }\n+w\n").unwrap_err();
    assert_eq!(err.data["hunk"], 1);
    assert_eq!(err.data["matches"], serde_json::json!([2, 4]));
    let (out, _) = apply_diff(file, b"@@ -4 @@\n }\n+w\n").unwrap();
    assert_eq!(out, b"x\n}\ny\n}\nw\nz\n");
}

#[test]
fn no_final_newline() {
    let file = b"a\nb\nc";
    let (out, _) = apply_diff(file, b"@@ @@\n b\n-c\n+C\n").unwrap();
    assert_eq!(out, b"a\nb\nC");
    let (out, _) = apply_diff(file, b"@@ @@\n b\n-c\n\\ No newline at end of file\n+C\n").unwrap();
    assert_eq!(out, b"a\nb\nC\n");
    let (out, _) = apply_diff(file, b"@@ @@\n b\n c\n+d\n").unwrap();
    assert_eq!(out, b"a\nb\nc\nd");
    let (out, _) = apply_diff(
        b"a\nb\n",
        b"@@ @@\n a\n-b\n+B\n\\ No newline at end of file\n",
    )
    .unwrap();
    assert_eq!(out, b"a\nB");
}

#[test]
fn changed_context_refuses_with_closest() {
    let err = apply_diff(BASE, b"@@ @@\n b\n-c\n+C\n D\n").unwrap_err();
    assert_eq!(err.data["hunk"], 1);
    assert!(err.data["closest"]["diff"].as_str().unwrap().contains("+D"));
}

#[test]
fn trailing_blank_context_and_garbage() {
    let (out, l) = apply_diff(BASE, b"```diff\n@@ @@\n f\n-g\n+G\n\n```\nThat's it.\n").unwrap();
    assert_eq!(out, b"a\nb\nc\nd\ne\nf\nG\n");
    assert_eq!(l.matched_with, "trailing_whitespace");
    assert!(apply_diff(BASE, b"@@ @@\n a\nnot a hunk line\n-b\n").is_err());
}

#[test]
fn multi_file_new_and_deleted() {
    let diff = b"diff --git a/x.rs b/x.rs\nindex 1..2 100644\n--- a/x.rs\t2024-01-01\n+++ b/x.rs\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/n b/n\nnew file mode 100644\n--- /dev/null\n+++ b/n\n@@ -0,0 +1,2 @@\n+one\n+two\n\\ No newline at end of file\n--- a/gone\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n";
    let p = parse(diff, None).unwrap();
    assert_eq!(p.len(), 3);
    assert_eq!(p[0].old_path.as_deref(), Some("x.rs"));
    assert_eq!(p[1].old_path, None);
    assert_eq!(new_file_bytes(&p[1]), b"one\ntwo");
    assert_eq!(p[2].new_path, None);
    let l = plan_file(b"bye\n", &p[2]).unwrap();
    assert_eq!(apply(b"bye\n", &l.splices), b"");
    assert!(parse(b"@@ @@\n-a\n", None).is_err());
}

#[test]
fn removed_line_sql_comment_is_not_a_header() {
    let file = b"select 1;\n-- old\n++ x\n";
    let (out, _) = apply_diff(file, b"@@ @@\n select 1;\n--- old\n+++ x\n ++ x\n").unwrap();
    assert_eq!(out, b"select 1;\n++ x\n++ x\n");
}

#[test]
fn indentation_reindents_added_lines() {
    let file = b"fn f() {\n    if a {\n        b();\n    }\n}\n";
    let (out, l) = apply_diff(
        file,
        b"@@ @@\n if a {\n-    b();\n+    c();\n+    d();\n }\n",
    )
    .unwrap();
    assert_eq!(l.matched_with, "indentation");
    assert_eq!(
        out,
        b"fn f() {\n    if a {\n        c();\n        d();\n    }\n}\n"
    );
}
