//! Unit tests of `store`.

use super::snapshot::{index_entries, parse_version};
use super::*;

#[test]
fn log_records_count_their_files() {
    let raw = b"\x1eaaa\x00100\x00first\x00\na\x00b c\x00\x1ebbb\x0090\x00second\x00\nx\x00";
    let entries = parse_log(raw);
    assert_eq!(entries.len(), 2);
    assert_eq!((entries[0].files_changed, entries[0].time), (2, 100));
    assert_eq!(entries[1].label, "second");
}

#[test]
fn diff_tree_and_batch_output_parse() {
    let changes =
        parse_diff_tree(b":100644 100755 aaa bbb M\0run.sh\0:100644 000000 ccc 000 D\0gone\0");
    assert_eq!(changes.len(), 2);
    assert_eq!(changes[0].mode, 0o100755);
    assert_eq!(changes[1].mode, 0);
    let blobs = parse_batch(b"aaa blob 3\nab\n\nbbb blob 0\n\n", 2).unwrap();
    assert_eq!(blobs, vec![b"ab\n".to_vec(), Vec::new()]);
}

#[test]
fn git_versions_parse_to_major_and_minor() {
    assert_eq!(parse_version("git version 2.39.5\n"), Some((2, 39)));
    assert_eq!(parse_version("git version 2.40.0-rc1"), Some((2, 40)));
    assert_eq!(parse_version("git version 2.37.1.windows.1"), Some((2, 37)));
    assert_eq!(parse_version("hub version 2"), None);
    assert!((2, 36) < (2, 37) && (3, 0) > (2, 37));
}

#[test]
fn an_index_header_gives_its_entry_count() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    std::fs::write(&index, b"DIRC\0\0\0\x02\0\0\x01\x02rest").unwrap();
    assert_eq!(index_entries(&index), 258);
    assert_eq!(index_entries(&dir.path().join("none")), 0);
}
