use super::super::tests::tree;
use super::*;
use crate::items::Item;
use crate::map::index::replaced_between;
use crate::map::rank::{graph, graph_after, name_weight};
use crate::tags::Tags;
use crate::Kind;

/// File `f` of `files` with its items and references changed by `change`.
fn changed(
    files: &[Arc<FileTags>],
    f: usize,
    change: impl FnOnce(&mut Vec<Item>, &mut Vec<(String, u32)>),
) -> Vec<Arc<FileTags>> {
    let file = &files[f];
    let (mut items, mut references) = (
        file.tags.outline.items.clone(),
        file.tags.references.clone(),
    );
    change(&mut items, &mut references);
    references.sort();
    references.dedup_by(|a, b| a.0 == b.0);
    let mut outline = file.tags.outline.clone();
    outline.items = items;
    let tags = Tags {
        outline,
        references,
    };
    let new = FileTags::new(
        file.rel.clone(),
        file.language,
        tags,
        file.generated,
        vec![],
        vec![],
    );
    let mut out = files.to_vec();
    out[f] = Arc::new(new);
    out
}

fn function(name: &str) -> Item {
    Item::bare(Kind::Function, name, None)
}

/// `files`' graph with its in-edge layout, as the unsteered question's walk leaves it.
fn laid_out(files: &[Arc<FileTags>]) -> Graph {
    let graph = graph(files);
    graph.in_edges.get_or_init(|| InEdges::of(&graph, None));
    graph
}

#[test]
fn an_edit_that_changes_only_shares_keeps_the_in_edge_layout_and_any_other_lays_it_out_again() {
    let weight = |name: &str, n| name_weight(name, n, false);
    let files = tree(400, 5);
    // A file defining `New` and using it, with others defining it: a use of its own too.
    let uses_new = |f: &usize| files[*f].tags.references.iter().any(|r| r.0 == "New");
    let f = (0..400)
        .step_by(7)
        .find(uses_new)
        .expect("a file using its own New");
    let g = (1..400).find(|g| g % 7 != 0 && !uses_new(g)).unwrap();
    // A file whose `do_thing_` another file uses.
    let used = |k: &usize| {
        let uses = |file: &Arc<FileTags>| {
            let name = format!("do_thing_{k}");
            file.tags.references.iter().any(|r| r.0 == name)
        };
        files
            .iter()
            .enumerate()
            .any(|(j, file)| j != *k && uses(file))
    };
    let h = (1..400).find(used).unwrap();
    let more =
        |_: &mut Vec<Item>, refs: &mut Vec<(String, u32)>| refs.iter_mut().for_each(|r| r.1 += 1);
    let twice = changed(&changed(&files, f, more), f + 3, more);
    let edits = [
        (
            "every use counted once more",
            changed(&files, f, more),
            true,
        ),
        ("then another file's", twice, true),
        (
            "an unused name renamed where it was",
            changed(&files, f, |items, _| items[0].name = "Renamed".into()),
            true,
        ),
        // Every name after it numbered again (the first a used one), in the same order.
        (
            "a name added",
            changed(&files, h, |items, _| items.insert(1, function("Added"))),
            true,
        ),
        // Two used names first defined in file 0 swap their order.
        (
            "used names reordered",
            changed(&files, 0, |items, _| {
                let new = items.iter().position(|i| i.name == "New").unwrap();
                let item = items.remove(new);
                items.insert(1, item);
            }),
            false,
        ),
        (
            "a name used anew",
            changed(&files, f, |_, refs| refs.push(("do_thing_200".into(), 1))),
            false,
        ),
        (
            "a use dropped",
            changed(&files, f, |_, refs| refs.retain(|r| r.0 != "New")),
            false,
        ),
        (
            "a use of another name instead",
            changed(&files, f, |_, refs| {
                refs.retain(|r| r.0 != "New");
                refs.push(("do_thing_200".into(), 1));
            }),
            false,
        ),
        // Its users weigh it again (one definer more) and use the same names: only the file
        // defining it now changes the layout.
        (
            "a used name defined by one more file",
            changed(&files, g, |items, _| items.push(function("New"))),
            false,
        ),
    ];
    for (what, next, kept) in edits {
        let mut last = laid_out(&files);
        let mut before = files.clone();
        // The second edit patches the layout the first one kept.
        if what == "then another file's" {
            let once = changed(&files, f, more);
            let replaced = replaced_between(&files, &once, usize::MAX).unwrap();
            last = last.patched(&replaced, &once, &weight).unwrap();
            before = once;
        }
        let replaced = replaced_between(&before, &next, usize::MAX).unwrap();
        let patched = last.patched(&replaced, &next, &weight).unwrap();
        assert_eq!(patched.in_edges.get().is_some(), kept, "{what}");
        if let Some(edges) = patched.in_edges.get() {
            assert!(edges.same_as(&InEdges::of(&graph(&next), None)), "{what}");
        }
    }
}

/// The graph after `files` became `next`, patched, checked against a new one, part for part.
fn patch_and_check(files: &[Arc<FileTags>], next: &[Arc<FileTags>], expect_patch: bool) {
    let weight = |name: &str, n| name_weight(name, n, false);
    // A list whose paths changed starts a new lineage of edits: its graph is built anew.
    let replaced = replaced_between(files, next, usize::MAX);
    assert_eq!(replaced.is_some(), expect_patch);
    let Some(replaced) = replaced else {
        // Nor does a graph of another number of files take any edits.
        if files.len() != next.len() {
            assert!(graph(files).patched(&[], next, &weight).is_none());
        }
        return;
    };
    let patched = laid_out(files).patched(&replaced, next, &weight);
    assert_eq!(patched.is_some(), expect_patch);
    let fresh = graph(next);
    if let Some(patched) = patched {
        assert!(patched.same_as(&fresh));
    }
    let last = Arc::new(graph(files));
    assert!(graph_after(&replaced, last, next).0.same_as(&fresh));
}

#[test]
fn a_patched_graph_is_the_rebuilt_graph_part_for_part() {
    for seed in [1, 2, 3, 4] {
        let files = tree(400, seed);
        let f = 37 + seed as usize * 41;
        let mut steps: Vec<Vec<Arc<FileTags>>> = Vec::new();
        // Uses changed: a name of a far file, a name defined nowhere, one use dropped.
        steps.push(changed(&files, f, |_, refs| {
            refs.push(("do_thing_300".into(), 2));
            refs.push(("NotDefinedYet".into(), 1));
            refs.remove(0);
        }));
        // A definition added of a name others use but nobody defined, then one of a name
        // many files define (its weight changes past five definers).
        let before = steps.last().unwrap().clone();
        steps.push(changed(&before, f + 5, |items, _| {
            items.push(function("NotDefinedYet"))
        }));
        let before = steps.last().unwrap().clone();
        steps.push(changed(&before, f + 9, |items, _| {
            items.push(function("New"))
        }));
        // A name replaced by a new one defined where it was (the names after it keep their
        // numbers), then by one many files define and use.
        let before = steps.last().unwrap().clone();
        steps.push(changed(&before, f + 7, |items, _| {
            items[0].name = "RenamedInPlace".into();
        }));
        let before = steps.last().unwrap().clone();
        steps.push(changed(&before, f + 7, |items, _| {
            items[0].name = "do_thing_300".into();
        }));
        // A definition removed that only this file had, the items after it moved up.
        let before = steps.last().unwrap().clone();
        steps.push(changed(&before, f + 2, |items, _| {
            items.remove(0);
            for item in items.iter_mut() {
                item.parent = item.parent.and_then(|p| p.checked_sub(1));
            }
        }));
        // A file's items reversed: its names' first definitions move.
        let before = steps.last().unwrap().clone();
        steps.push(changed(&before, 3, |items, _| {
            items.retain(|i| i.parent.is_none());
            items.reverse();
        }));
        // A file's items all gone but its uses kept (a module of re-exports: the map names it
        // without items, `tail::Listing::itemless`), then one item back.
        let before = steps.last().unwrap().clone();
        steps.push(changed(&before, f + 11, |items, _| items.clear()));
        let before = steps.last().unwrap().clone();
        steps.push(changed(&before, f + 11, |items, _| {
            items.push(function("BackAgain"))
        }));
        // The first file's definitions all gone: every name numbered anew.
        let before = steps.last().unwrap().clone();
        steps.push(changed(&before, 0, |items, refs| {
            items.clear();
            refs.clear();
        }));
        let mut last = files.clone();
        for next in steps {
            patch_and_check(&last, &next, true);
            last = next;
        }
    }
}

#[test]
fn a_file_added_removed_or_renamed_rebuilds_the_graph() {
    let files = tree(300, 9);
    let mut fewer = files.clone();
    fewer.remove(120);
    patch_and_check(&files, &fewer, false);
    patch_and_check(&fewer, &files, false);
    let mut renamed = files.clone();
    let moved = &files[200];
    let tags = Tags {
        outline: moved.tags.outline.clone(),
        references: moved.tags.references.clone(),
    };
    let rel = moved.rel.replace("f00", "g00");
    renamed[200] = Arc::new(FileTags::new(
        rel,
        moved.language,
        tags,
        false,
        vec![],
        vec![],
    ));
    renamed.sort_by(|a, b| a.rel.cmp(&b.rel));
    patch_and_check(&files, &renamed, false);
}

#[test]
fn a_name_added_or_dropped_after_every_other_keeps_the_layout_at_the_new_count_of_names() {
    let weight = |name: &str, n| name_weight(name, n, false);
    let files = tree(400, 5);
    // The last file's new name comes after every name: none moves, one more.
    let appended = changed(&files, 399, |items, _| items.push(function("Appended")));
    // Then dropped again, then a name added that moves every name after it.
    let steps = [
        appended.clone(),
        files.clone(),
        changed(&files, 3, |items, _| items.insert(1, function("Added"))),
    ];
    let (mut last, mut before) = (laid_out(&files), files.clone());
    for next in steps {
        let replaced = replaced_between(&before, &next, usize::MAX).unwrap();
        last = last.patched(&replaced, &next, &weight).unwrap();
        let edges = last.in_edges.get().expect("kept");
        assert!(edges.same_as(&InEdges::of(&graph(&next), None)));
        before = next;
    }
}

/// Random edits one after another, the last file's often, each patching the graph the one before
/// left (its layout kept, moved, or laid out again in the spare's buffers as a question would):
/// after every one, the graph and the layout it keeps are a rebuild's.
#[test]
fn a_chain_of_random_edits_keeps_the_graph_and_its_layout_equal_to_a_rebuild() {
    let weight = |name: &str, n| name_weight(name, n, false);
    let mut next = crate::map::seeded(11);
    let mut files = tree(120, 8);
    let mut last = laid_out(&files);
    let mut kept = 0;
    for step in 0..80 {
        let f = match next(4) {
            0 => files.len() - 1,
            _ => next(files.len()),
        };
        let (what, at, target) = (next(6), next(8), next(files.len()));
        let edited = changed(&files, f, |items, refs| match what {
            0 => items.push(function(&format!("Fresh{step}"))),
            1 if items.len() > 1 && !items.iter().any(|i| i.parent == Some(items.len() - 1)) => {
                items.pop();
            }
            2 => {
                let at = at.min(items.len());
                for item in items.iter_mut() {
                    item.parent = item.parent.map(|p| p + usize::from(p >= at));
                }
                items.insert(at, function(&format!("Inserted{step}")));
            }
            3 => refs.iter_mut().for_each(|r| r.1 += 1),
            4 => refs.push((format!("do_thing_{target}"), 1)),
            _ if !refs.is_empty() => {
                refs.remove(at % refs.len());
            }
            _ => {}
        });
        let Some(replaced) = replaced_between(&files, &edited, usize::MAX) else {
            panic!("step {step}: the same paths");
        };
        last = match last.patched(&replaced, &edited, &weight) {
            Some(patched) => patched,
            None => graph(&edited),
        };
        let fresh = graph(&edited);
        assert!(last.same_as(&fresh), "step {step}");
        match last.in_edges.get() {
            Some(edges) => {
                kept += 1;
                assert!(edges.same_as(&InEdges::of(&fresh, None)), "step {step}");
            }
            None => {
                let spare = last.spare_in_edges.lock().unwrap().take();
                last.in_edges.get_or_init(|| InEdges::of(&last, spare));
            }
        }
        files = edited;
    }
    assert!(kept > 20, "{kept} of 80 edits kept the layout");
}
