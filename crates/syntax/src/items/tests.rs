use super::*;
use crate::{languages, parse, queries};

fn chain(parents: &[Option<usize>]) -> Outline {
    Outline {
        items: (parents.iter())
            .map(|&p| Item::bare(Kind::Module, "m", p))
            .collect(),
        parse_errors: 0,
    }
}

/// Depths come from the parents however they are ordered (an out-of-line method's type may
/// come after it), a loop in a damaged index is cut, and a chain 100,000 deep takes one pass.
#[test]
fn depths_follow_parents_in_any_order() {
    let outline = chain(&[Some(2), Some(0), None, Some(99)]);
    assert_eq!(outline.depths(), [1, 2, 0, 0]);
    let looped = chain(&[Some(1), Some(0), Some(1)]);
    assert_eq!(looped.depths().len(), 3);
    let deep: Vec<Option<usize>> = (0..100_000usize).map(|i| i.checked_sub(1)).collect();
    let depths = chain(&deep).depths();
    assert_eq!(depths[99_999], 99_999);
    let backwards: Vec<Option<usize>> = (0..100_000usize).map(|i| Some(i + 1)).collect();
    assert_eq!(chain(&backwards).depths()[0], 99_999);
}

/// Running the outline query only at its patterns' root kinds outside functions gives exactly
/// the outline of running it over the whole tree, on every golden fixture and on this crate's
/// own sources.
#[test]
fn walking_pattern_roots_equals_running_the_whole_query() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let mut paths: Vec<std::path::PathBuf> =
        std::fs::read_dir(format!("{root}/tests/fixtures/structure/outline"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
    paths.extend(
        [
            "crates/syntax/src/items.rs",
            "crates/syntax/src/map/rank.rs",
            "src/server.rs",
        ]
        .iter()
        .map(|p| std::path::Path::new(root).join(p)),
    );
    let mut checked = 0;
    for path in paths {
        let Some(language) = languages::for_path(&path, None) else {
            continue;
        };
        let queries = queries::of(language).unwrap();
        // The outline's query and the map's (with tags.scm's definitions) alike.
        for query in [queries.outline(), queries.definitions()]
            .into_iter()
            .flatten()
        {
            let Some(roots) = &query.roots else {
                continue;
            };
            let source = std::fs::read(&path).unwrap();
            let tree = parse(language, &source, None).unwrap();
            let by_query = Matcher::Query(query);
            let walked = extract_from(&tree, &source, queries, by_query, Some(roots), None, &[]);
            let whole = extract_from(&tree, &source, queries, by_query, None, None, &[]);
            assert!(!whole.items.is_empty(), "{}", path.display());
            assert_eq!(
                format!("{:?}", walked.items),
                format!("{:?}", whole.items),
                "{}",
                path.display()
            );
            checked += 1;
        }
    }
    assert!(checked >= 18, "only {checked} files checked");
}
