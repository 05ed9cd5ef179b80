use super::super::render::render;
use super::*;
use crate::items::Item;
use crate::Kind;

/// `n` Rust files (sorted by path), each defining a type with methods of its own, some a name
/// many define (`new`), a few names of a shared pool, and using its neighbours' and the pool's
/// names, itself among them at times: items of every class, files with several items in the
/// graph's class, scores tied across files.
fn tree(n: usize, seed: u64) -> Vec<Arc<FileTags>> {
    let mut next = super::super::seeded(seed);
    let mut files: Vec<Arc<FileTags>> = (0..n)
        .map(|i| {
            let mut items = vec![Item::bare(Kind::Struct, &format!("Widget{i}"), None)];
            for m in 0..1 + next(4) {
                let name = format!("widget_{i}_step_{m}");
                items.push(Item::bare(Kind::Method, &name, Some(0)));
            }
            if i % 3 == 0 {
                items.push(Item::bare(Kind::Function, "new", None));
            }
            let shared = format!("sharedHelper{}", next(12));
            items.push(Item::bare(Kind::Function, &shared, None));
            let mut references: Vec<(String, u32)> = (0..4)
                .map(|_| {
                    let j = (i + n + next(7) - 3) % n;
                    (format!("widget_{j}_step_0"), 1 + next(3) as u32)
                })
                .collect();
            references.push((format!("sharedHelper{}", next(12)), 1));
            if next(3) == 0 {
                references.push(("new".into(), 2));
            }
            references.sort();
            references.dedup_by(|a, b| a.0 == b.0);
            let rel = format!("src/m{}/f{i:04}.rs", i / 30);
            super::super::tagged(rel, "rust", items, references)
        })
        .collect();
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    files
}

fn steering(focus: &[usize], mentions: &[&str], co_changed: &[(usize, f64)]) -> Steering {
    Steering {
        focus: focus.to_vec(),
        mentions: mentions.iter().map(|m| m.to_string()).collect(),
        include_tests: false,
        co_changed: co_changed.to_vec(),
    }
}

#[test]
fn the_ranking_sorted_as_far_as_read_is_the_fully_sorted_one_at_every_budget() {
    let files = tree(300, 4);
    let graph = graph(&files);
    let structure = Structure::of(&files);
    let questions = [
        steering(&[], &[], &[]),
        steering(&[12], &[], &[(200, 0.8), (40, 0.3)]),
        steering(&[7, 150], &["new"], &[]),
        steering(&[], &["sharedHelper3", "widget_9_step_0"], &[]),
    ];
    for question in &questions {
        let ranking = |first| rank_sorting(&files, question, &structure, &graph, 8, first);
        let full = ranking(usize::MAX);
        let all: Vec<RankedItem> = full.items(&files).collect();
        assert_eq!(all.len(), full.len());
        for first in [0, 1, 5, 40, 300, all.len() - 1, all.len()] {
            let lazy = ranking(first);
            for budget in [60, 400, 2_000, 20_000, 1_000_000] {
                let (a, b) = (render(&files, &lazy, budget), render(&files, &full, budget));
                assert_eq!(a.text, b.text, "{question:?} first {first} budget {budget}");
            }
            // Read past every prefix, after the renders read their parts of it.
            assert_eq!(lazy.items(&files).collect::<Vec<_>>(), all, "{question:?}");
            assert_eq!((lazy.len(), lazy.files()), (full.len(), full.files()));
        }
    }
}

/// The decay as the whole ranking once applied it: sorted, each file's class-1 entries decayed
/// by how many of the file's came before in that order, sorted again.
fn spread_by_full_sorts(mut entries: Vec<Entry>) -> Vec<Entry> {
    entries.sort_unstable_by(order);
    let mut seen: HashMap<u32, i32> = HashMap::default();
    for entry in entries.iter_mut().filter(|e| e.0 == 1) {
        let seen = seen.entry(entry.2).or_default();
        entry.1 *= FILE_DECAY.powi(*seen);
        *seen += 1;
    }
    entries.sort_unstable_by(order);
    entries
}

/// Per file, its scored entries before the decay: every class, few distinct scores (ties within
/// and across files).
fn undecayed_files(seed: u64) -> Vec<Vec<Entry>> {
    let mut state = seed;
    let mut next = move |below: u64| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(7);
        (state >> 33) % below
    };
    let file = |file: u32| -> Vec<Entry> {
        let items = 0..next(9) as u32;
        let entry = |item| {
            (
                [0, 1, 1, 1, 2][next(5) as usize],
                next(6) as f64 * 0.37,
                file,
                item,
            )
        };
        items.map(entry).collect()
    };
    (0..200).map(file).collect()
}

#[test]
fn spreading_each_file_on_its_own_gives_the_whole_rankings_decayed_scores_bit_for_bit() {
    for seed in [1, 2, 3] {
        let files = undecayed_files(seed);
        let mut spread: Vec<Entry> = Vec::new();
        for file in &files {
            let from = spread.len();
            spread.extend(file);
            spread_over_file(&mut spread[from..], &mut Vec::new());
        }
        let decayed = spread
            .iter()
            .zip(files.concat())
            .filter(|(a, b)| a.1 != b.1);
        assert!(decayed.count() > 50, "the test decays scores");
        spread.sort_unstable_by(order);
        let bits = |list: Vec<Entry>| -> Vec<(u8, u64, u32, u32)> {
            list.iter()
                .map(|e| (e.0, e.1.to_bits(), e.2, e.3))
                .collect()
        };
        assert_eq!(bits(spread), bits(spread_by_full_sorts(files.concat())));
    }
}

#[test]
fn a_files_own_uses_are_read_as_the_map_by_file_and_name_held_them() {
    let files = tree(200, 9);
    let graph = graph(&files);
    let weights = &graph.weights;
    for focus in [vec![], vec![3usize, 120]] {
        let steered = graph.steer(&files, &focus, FOCUS_USES, weights, &[]);
        let personalization = personalization(files.len(), &focus, &[]);
        let reached = steered.pagerank_with(&personalization, 8);
        let flows = Flows::of(&steered, &reached, graph.definers.len());
        let mut by_file_and_name: HashMap<(usize, usize), f64> = HashMap::default();
        for o in &flows.own_uses {
            by_file_and_name.insert((o.file as usize, o.name as usize), o.flow);
        }
        assert!(!by_file_and_name.is_empty());
        let mut rest = flows.own_uses_from(0);
        for f in 0..files.len() {
            let own = Flows::own_uses_of(&mut rest, f);
            for name in 0..graph.definers.len() {
                let held = by_file_and_name.get(&(f, name)).copied().unwrap_or(0.0);
                let expected = flows.per_name[name] - held;
                let got = flows.definition_rank(own, name);
                assert_eq!(
                    got.map(f64::to_bits),
                    (expected > 0.0).then_some(expected.to_bits())
                );
            }
        }
        assert!(rest.is_empty());
    }
}

#[test]
fn flows_gathered_over_the_in_edge_layout_are_the_flows_summed_file_by_file() {
    for seed in [1, 2, 3] {
        let files = tree(300, seed);
        let graph = graph(&files);
        let steered = graph.steer(&files, &[], FOCUS_USES, &graph.weights, &[]);
        let personalization = personalization(files.len(), &[], &[]);
        // Dense from the start: the pulled walk, which lays the in-edges out.
        let reached = steered.pagerank_with(&personalization, files.len() + 1);
        let edges = steered.laid_out().expect("the walk laid the in-edges out");
        let names = graph.definers.len();
        let gathered = Flows::gathered(&steered, edges, &reached, names);
        let summed = Flows::summed(&steered, &reached, names);
        let defined = (0..names).filter(|&n| !graph.definers[n].is_empty());
        for name in defined {
            let (a, b) = (gathered.per_name[name], summed.per_name[name]);
            assert_eq!(a.to_bits(), b.to_bits(), "seed {seed} name {name}");
        }
        assert!(gathered.per_name.iter().any(|&flow| flow > 0.0));
        let own = |f: &Flows| -> Vec<(u32, u32, u64)> {
            let own = f.own_uses.iter();
            own.map(|o| (o.file, o.name, o.flow.to_bits())).collect()
        };
        assert_eq!(own(&gathered), own(&summed), "seed {seed}");
        assert!(!gathered.own_uses.is_empty());
        // And `of` takes the layout for such a walk.
        let of = Flows::of(&steered, &reached, names);
        assert!(of.flowed.is_empty());
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&of.per_name), bits(&gathered.per_name));
    }
}
