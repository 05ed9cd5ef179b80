use super::*;

fn file(rel: &str, references: &[&str]) -> Arc<FileTags> {
    let references = references.iter().map(|r| (r.to_string(), 1)).collect();
    crate::map::tagged(rel.into(), "go", vec![], references)
}

fn snapshot(files: Vec<Arc<FileTags>>) -> Snapshot {
    Snapshot {
        files: Arc::new(files),
        fingerprint: 0,
        tagged: 0,
        walked_because: None,
        test_modules: None,
        edits: Edits::new(),
    }
}

/// The parts count the tags their entries hold through every change: an entry added, one
/// replaced, one removed, one never there removed, others dropped by `retain`.
#[test]
fn the_index_counts_its_entries_tags_through_every_change() {
    let entry = |rel: &str, names: &[&str]| Entry {
        key: (0, 0, 0, 0, 0, 0, 0),
        hash: blake3::hash(rel.as_bytes()),
        tags: file(rel, names),
    };
    let summed = |shards: &Shards| shards.iter().map(|(_, e)| e.tags.tag_count()).sum::<u64>();
    let mut shards = Shards::default();
    type Step<'a> = (&'a str, &'a dyn Fn(&mut Shards));
    let steps: [Step; 6] = [
        ("add", &|s| {
            s.insert("/r/a.go".into(), entry("a.go", &["x", "y"]))
        }),
        ("add", &|s| {
            s.insert("/r/b/b.go".into(), entry("b/b.go", &["x"]))
        }),
        ("replace", &|s| {
            s.insert("/r/a.go".into(), entry("a.go", &["z"]))
        }),
        ("remove", &|s| s.remove(Path::new("/r/a.go"))),
        ("remove none", &|s| s.remove(Path::new("/r/c.go"))),
        ("retain", &|s| s.retain(|p| !p.starts_with("/r/b"))),
    ];
    let expected = [2, 3, 2, 1, 1, 0];
    for ((what, step), tags) in steps.iter().zip(expected) {
        step(&mut shards);
        assert_eq!((shards.tags(), summed(&shards)), (tags, tags), "{what}");
    }
}

/// A file replaced in place is logged with its tags before (the first ones of a version asked
/// about, when replaced twice since); a file added or removed starts a new lineage.
#[test]
fn edits_tell_the_files_replaced_since_a_version_until_the_paths_change() {
    let (a, b, c) = (file("a.go", &[]), file("b.go", &[]), file("c.go", &[]));
    let mut snap = snapshot(vec![a.clone(), b.clone(), c.clone()]);
    let (lineage, start) = (snap.edits.lineage, snap.edits.version());
    let change = |rel: &str, new: Option<Arc<FileTags>>| {
        let mut changes = std::collections::BTreeMap::new();
        changes.insert(rel.to_string(), (None, new));
        changes
    };
    assert!(snap.change(&change("c.go", Some(file("c.go", &["x"])))));
    let middle = snap.edits.version();
    assert!(snap.change(&change("c.go", Some(file("c.go", &["y"])))));
    assert!(snap.change(&change("a.go", Some(file("a.go", &["z"])))));
    let since = snap.edits.since(lineage, start).unwrap();
    let at: Vec<usize> = since.iter().map(|e| e.0).collect();
    assert_eq!(at, [0, 2]);
    assert!(Arc::ptr_eq(&since[0].1, &a) && Arc::ptr_eq(&since[1].1, &c));
    let since_middle = snap.edits.since(lineage, middle).unwrap();
    assert!(since_middle[1].1.reference_ids.len() == 1);
    assert!(snap.edits.since(lineage + 1, start).is_none());
    assert!(snap
        .edits
        .since(lineage, snap.edits.version() + 1)
        .is_none());
    // Once a graph of a version is kept, the replacements before it are dropped.
    snap.edits.keep(middle);
    assert!(snap.change(&change("b.go", Some(file("b.go", &["w"])))));
    assert!(snap.edits.since(lineage, start).is_none());
    let since_middle = snap.edits.since(lineage, middle).unwrap();
    assert_eq!(
        since_middle.iter().map(|e| e.0).collect::<Vec<_>>(),
        [0, 1, 2]
    );
    // A later list of the same paths made anew continues the lineage; another one does not.
    let again = snap.edits.clone().after(&snap.files, &snap.files);
    assert_eq!(again.lineage, lineage);
    assert!(snap.change(&change("d.go", Some(file("d.go", &[])))));
    assert!(snap.edits.since(lineage, start).is_none());
    assert!(!Arc::ptr_eq(&snap.files[1], &b));
}
