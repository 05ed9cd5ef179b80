use super::super::modules::Structure;
use super::super::rank::{graph, rank_with, Steering};
use super::*;
use crate::items::{Item, Outline};
use crate::tags::Tags;

/// A tree of `n` Go and Python files (sorted by path), each defining names of its own, a name
/// many files define (`New`) and a few of a shared pool, and using names of nearby files and of
/// the pool: a graph whose walk from one file reaches a part of the tree, and from a common
/// name all of it.
pub(super) fn tree(n: usize, seed: u64) -> Vec<Arc<FileTags>> {
    let mut next = super::super::seeded(seed);
    let item = |kind, name: String, parent| Item::bare(kind, &name, parent);
    let files = (0..n).map(|i| {
        let language = if i % 5 == 4 { "python" } else { "go" };
        let mut items = vec![
            item(Kind::Struct, format!("Type{i}"), None),
            item(Kind::Function, format!("do_thing_{i}"), Some(0)),
        ];
        if i % 7 == 0 {
            items.push(item(Kind::Function, "New".into(), None));
        }
        if next(3) == 0 {
            items.push(item(
                Kind::Function,
                format!("sharedName{}", next(20)),
                None,
            ));
        }
        if i % 11 == 0 {
            items.push(item(Kind::Module, "tests".into(), None));
            items.push(item(
                Kind::Function,
                format!("test_{i}"),
                Some(items.len() - 1),
            ));
        }
        let mut references: Vec<(String, u32)> = (0..3)
            .map(|_| {
                let j = (i + n + next(9) - 4) % n;
                (format!("do_thing_{j}"), 1 + next(3) as u32)
            })
            .collect();
        if next(4) == 0 {
            references.push(("New".into(), 2));
        }
        if next(2) == 0 {
            references.push((format!("sharedName{}", next(20)), 1));
        }
        references.sort();
        references.dedup_by(|a, b| a.0 == b.0);
        let tags = Tags {
            outline: Outline {
                items,
                parse_errors: 0,
            },
            references,
        };
        let ext = if language == "go" { "go" } else { "py" };
        let rel = format!("d{}/f{i:05}.{ext}", i / 40);
        Arc::new(FileTags::new(
            rel,
            language,
            tags,
            i % 13 == 12,
            vec![],
            vec![],
        ))
    });
    let mut files: Vec<Arc<FileTags>> = files.collect();
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    files
}

fn focus_on(focus: &[usize], mentions: &[&str]) -> Steering {
    Steering {
        focus: focus.to_vec(),
        mentions: mentions.iter().map(|m| m.to_string()).collect(),
        include_tests: false,
        co_changed: vec![],
    }
}

#[test]
fn a_walk_over_the_reached_files_gives_the_whole_graphs_ranks_bit_for_bit() {
    let files = tree(600, 7);
    let graph = graph(&files);
    let n = files.len();
    for focus in [vec![3], vec![100, 420], vec![]] {
        let steered = graph.steer(&files, &focus, 50.0, &graph.weights, &[]);
        let mut personalization = vec![0.0; n];
        for &f in &focus {
            personalization[f] = 1.0 / focus.len() as f64;
        }
        if focus.is_empty() {
            personalization.fill(1.0 / n as f64);
        }
        let sparse = steered.pagerank_with(&personalization, 0);
        let dense = steered.pagerank_with(&personalization, n + 1);
        let bits = |r: &[f64]| r.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&sparse.rank), bits(&dense.rank), "focus {focus:?}");
        assert_eq!(dense.files.len(), n);
        if !focus.is_empty() {
            // The walk from a focus file stays in part of the tree, and every file it left
            // out has a rank of exactly zero.
            assert!(
                sparse.files.len() < n,
                "{} of {n} reached",
                sparse.files.len()
            );
            let zero = (0..n).filter(|f| sparse.files.binary_search(f).is_err());
            assert!(zero.into_iter().all(|f| sparse.rank[f] == 0.0));
        }
    }
}

#[test]
fn the_pulled_walk_gives_the_pushed_walks_ranks_bit_for_bit() {
    for seed in [1, 2, 3] {
        let files = tree(900, seed);
        let graph = graph(&files);
        let n = files.len();
        let steered = graph.steer(&files, &[], 50.0, &graph.weights, &[]);
        let mut skewed: Vec<f64> = (0..n).map(|f| (f % 7) as f64).collect();
        let total: f64 = skewed.iter().sum();
        skewed.iter_mut().for_each(|p| *p /= total);
        for personalization in [vec![1.0 / n as f64; n], skewed] {
            let pulled = steered.pagerank_pulled(&personalization);
            let pushed = steered.pagerank_pushed(&personalization, n + 1);
            let bits = |r: &[f64]| r.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&pulled.rank), bits(&pushed.rank), "seed {seed}");
            assert_eq!(pulled.files, pushed.files);
            assert!(pulled.rank.iter().any(|&r| r != pulled.rank[0]));
        }
    }
}

#[test]
fn the_ranking_from_the_reached_files_is_the_ranking_from_every_file() {
    for seed in [1, 2, 3] {
        let files = tree(400, seed);
        let graph = graph(&files);
        let structure = Structure::of(&files);
        let questions = [
            focus_on(&[5], &[]),
            focus_on(&[17, 300], &[]),
            focus_on(&[9], &["do_thing_200", "New"]),
            focus_on(&[], &["sharedName3"]),
            focus_on(&[], &[]),
        ];
        for steering in &questions {
            let order = |dense_share| {
                let ranked = rank_with(&files, steering, &structure, &graph, dense_share);
                let items = ranked.items(&files).map(|r| (r.file, r.item));
                (items.collect::<Vec<_>>(), ranked.focus_items)
            };
            let (sparse, dense) = (order(0), order(files.len() + 1));
            assert_eq!(sparse, dense, "seed {seed}, {steering:?}");
            assert!(!sparse.0.is_empty());
        }
    }
}

#[test]
fn the_lazy_tail_lists_every_listed_item_once_as_counted_and_an_inert_mention_changes_nothing() {
    use super::super::{mentions, tail};
    let files = tree(400, 5);
    let graph = graph(&files);
    let structure = Structure::of(&files);
    // Files far from the focus tied by the history alone: their best items come out of the
    // tail, ahead of it.
    let far = vec![(350, 0.5), (123, 0.9), (201, 0.2)];
    let questions = [
        (vec![9], vec![], false, far.clone()),
        (vec![9], vec![], true, far),
        (vec![40, 41], vec!["New"], false, vec![]),
        (vec![], vec!["do_thing_7"], true, vec![]),
        (vec![], vec![], false, vec![]),
    ];
    for (focus, mentions, include_tests, co_changed) in questions {
        let mut steering = focus_on(&focus, &mentions);
        (steering.include_tests, steering.co_changed) = (include_tests, co_changed);
        let ranked = rank_with(&files, &steering, &structure, &graph, DENSE_SHARE);
        let items: Vec<(u32, u32)> = ranked.items(&files).map(|r| (r.file, r.item)).collect();
        let mut expected: Vec<(u32, u32)> = (0..files.len())
            .filter(|f| !focus.contains(f))
            .flat_map(|f| {
                let file = &files[f];
                let listed = (0..file.tags.outline.items.len())
                    .filter(move |&i| tail::listed(file, i, include_tests));
                listed.map(move |i| (f as u32, i as u32))
            })
            .collect();
        let mut sorted = items.clone();
        sorted.sort_unstable();
        expected.sort_unstable();
        assert_eq!(sorted, expected, "{steering:?}");
        assert_eq!(ranked.len(), items.len(), "{steering:?}");
        let mut with_items: Vec<u32> = items.iter().map(|e| e.0).collect();
        with_items.sort_unstable();
        with_items.dedup();
        assert_eq!(ranked.files(), with_items.len(), "{steering:?}");
    }
    assert!(mentions::inert(&files, &graph, "NoSuchName"));
    assert!(!mentions::inert(&files, &graph, "New"));
    // A file named like the mention is where a walk restarts.
    assert!(!mentions::inert(&files, &graph, "f00003"));
    let order = |mentions: &[&str]| {
        let ranked = rank_with(&files, &focus_on(&[9], mentions), &structure, &graph, 8);
        ranked.items(&files).collect::<Vec<_>>()
    };
    assert_eq!(order(&["NoSuchName"]), order(&[]));
}

#[test]
fn a_walk_settles_where_the_change_summed_in_file_order_says() {
    let unasked = || -> f64 { panic!("summed again in file order") };
    // Far from the tolerance, the sum in parts decides alone.
    assert!(!settled(2.0 * TOLERANCE, unasked));
    assert!(settled(TOLERANCE / 2.0 - f64::EPSILON * TOLERANCE, unasked));
    assert!(settled(0.0, unasked));
    // Near it, the sum in file order decides, on either side of the sum in parts.
    assert!(settled(TOLERANCE * 1.000_001, || TOLERANCE * 0.999_999));
    assert!(!settled(TOLERANCE * 0.999_999, || TOLERANCE));
    // The same change summed in parts and in order: both sides of the band agree.
    let rank: Vec<f64> = (0..10_000)
        .map(|i| TOLERANCE / 60_000.0 * (i % 13) as f64)
        .collect();
    let next = vec![0.0; rank.len()];
    let in_order = total_change(&next, &rank);
    let in_parts: f64 = rank.chunks(64).map(|c| c.iter().sum::<f64>()).sum();
    assert_eq!(settled(in_parts, || in_order), in_order < TOLERANCE);
}
