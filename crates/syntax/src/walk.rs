//! The cursor walks the outline and the tagger share: the nodes of given kinds (by kind id), in
//! document order; an item's leading siblings and the end of its header. A cursor knows each
//! node's parent and siblings; `Node::parent` and `Node::prev_sibling` search from the root down.

use std::collections::HashMap;
use tree_sitter::{Node, Tree};

/// How deep in a tree the outline looks for items (the root is at 0): a second bound on what a
/// file nesting 100,000 deep costs, past the walks that keep each item's cost from growing with
/// its depth (`with_ancestors`, `leading_runs`; a scope's name is still its whole text); real
/// code nests a few dozen levels.
pub const MAX_ITEM_DEPTH: usize = 256;

/// Calls `visit` on every node of a root kind in document order down to `max_depth`, and does not
/// descend into a node for which it returns true. Matches rooted inside a function only yield
/// locals, which the outline drops anyway, so skipping them changes nothing but the time.
pub fn roots<'t>(
    tree: &'t Tree,
    max_depth: usize,
    is_root: impl Fn(u16) -> bool,
    mut visit: impl FnMut(Node<'t>) -> bool,
) {
    let (mut cursor, mut depth) = (tree.walk(), 0usize);
    loop {
        let node = cursor.node();
        let skip = depth >= max_depth || (is_root(node.kind_id()) && visit(node));
        if !skip && cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        if cursor.goto_next_sibling() {
            continue;
        }
        loop {
            if !cursor.goto_parent() {
                return;
            }
            depth -= 1;
            if cursor.goto_next_sibling() {
                break;
            }
        }
    }
}

/// `roots`, and on the same walk `each` on every node of an `is_other` kind, in document order,
/// the subtrees `visit` skips and those below `max_depth` included.
pub fn roots_and<'t>(
    tree: &'t Tree,
    max_depth: usize,
    is_root: impl Fn(u16) -> bool,
    mut visit: impl FnMut(Node<'t>) -> bool,
    is_other: impl Fn(u16) -> bool,
    each: &mut dyn FnMut(Node),
) {
    let mut cursor = tree.walk();
    // The depth of the cursor, and of the node whose descendants `visit` does not see.
    let (mut depth, mut skipping) = (0usize, None);
    loop {
        let node = cursor.node();
        if skipping.is_some_and(|d| depth <= d) {
            skipping = None;
        }
        let kind = node.kind_id();
        if is_other(kind) {
            each(node);
        }
        if skipping.is_none() && depth < max_depth && is_root(kind) && visit(node) {
            skipping = Some(depth);
        }
        if cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        if cursor.goto_next_sibling() {
            continue;
        }
        loop {
            if !cursor.goto_parent() {
                return;
            }
            depth -= 1;
            if cursor.goto_next_sibling() {
                break;
            }
        }
    }
}

/// For each of `targets` (in document order), keyed by node id: what `pick` makes of it and its
/// ancestors (root first). One walk, entering only the nodes that hold a target, where asking
/// each target for its parents would search from the root for each (quadratic in how deep a file
/// nests).
pub fn with_ancestors<'t, T>(
    tree: &'t Tree,
    targets: &[Node<'t>],
    pick: impl Fn(Node<'t>, &[Node<'t>]) -> T,
) -> HashMap<usize, T> {
    let mut picked = HashMap::with_capacity(targets.len());
    let finder = Targets(targets);
    let mut cursor = tree.walk();
    let mut ancestors = Vec::new();
    loop {
        let node = cursor.node();
        if finder.is_target(node) {
            picked.insert(node.id(), pick(node, &ancestors));
        }
        if finder.holds_target(node) && cursor.goto_first_child() {
            ancestors.push(node);
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return picked;
            }
            ancestors.pop();
        }
    }
}

/// Nodes in document order, asked whether a node is one of them or holds one.
struct Targets<'a, 't>(&'a [Node<'t>]);

impl<'t> Targets<'_, 't> {
    /// The targets from the node's start on: the node itself, or those it holds.
    fn from(&self, node: Node) -> std::slice::Iter<'_, Node<'t>> {
        let at = self
            .0
            .partition_point(|t| t.start_byte() < node.start_byte());
        self.0[at..].iter()
    }

    fn is_target(&self, node: Node) -> bool {
        let mut same_start = self
            .from(node)
            .take_while(|t| t.start_byte() == node.start_byte());
        same_start.any(|t| t.id() == node.id())
    }

    fn holds_target(&self, node: Node) -> bool {
        let mut inside = self
            .from(node)
            .take_while(|t| t.start_byte() < node.end_byte());
        inside.any(|t| t.id() != node.id())
    }
}

/// The leading matter `leading_runs` finds before an item.
#[derive(Default)]
pub struct Leading<'t> {
    /// The run of siblings right before the item whose kinds lead, nearest last.
    pub run: Vec<Node<'t>>,
    /// Where the siblings before the run end: the end of the last one that does not lead, else
    /// the parent's start (0 at the top level, where the root may start with a comment).
    pub after: usize,
}

/// For each of `targets` (in document order), keyed by node id: the run of its siblings right
/// before it whose kinds `leads` accepts (empty when the sibling before it is not one), and where
/// the siblings before the run end. One walk, entering only the nodes that hold a target.
pub fn leading_runs<'t>(
    tree: &'t Tree,
    targets: &[Node<'t>],
    leads: impl Fn(&str) -> bool,
) -> HashMap<usize, Leading<'t>> {
    let mut runs = HashMap::with_capacity(targets.len());
    let finder = Targets(targets);
    let mut cursor = tree.walk();
    // The run at the cursor's level and where it may start, and those of the levels above it.
    let (mut run, mut after): (Vec<Node>, usize) = (Vec::new(), 0);
    let mut above: Vec<(Vec<Node>, usize)> = Vec::new();
    if targets.is_empty() || !cursor.goto_first_child() {
        return runs;
    }
    loop {
        let node = cursor.node();
        if finder.is_target(node) {
            let run = run.clone();
            runs.insert(node.id(), Leading { run, after });
        }
        if finder.holds_target(node) && cursor.goto_first_child() {
            above.push((std::mem::take(&mut run), after));
            after = node.start_byte();
            continue;
        }
        let mut passed = node;
        loop {
            match leads(passed.kind()) {
                true => run.push(passed),
                false => {
                    run.clear();
                    after = passed.end_byte();
                }
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return runs;
            }
            (run, after) = above.pop().unwrap_or_default();
            passed = cursor.node();
        }
    }
}

/// The end of the last child before `body` on its level under `item` that `counts` (by kind), or
/// where the body starts when none does.
pub fn end_before(item: Node, body: Node, counts: impl Fn(&str) -> bool) -> usize {
    let fallback = body.start_byte().max(item.start_byte());
    let mut cursor = item.walk();
    let mut last = None;
    if !cursor.goto_first_child() {
        return fallback;
    }
    loop {
        let node = cursor.node();
        if node.id() == body.id() {
            return last.unwrap_or(fallback);
        }
        let holds_body =
            node.start_byte() <= body.start_byte() && node.end_byte() >= body.end_byte();
        if holds_body && cursor.goto_first_child() {
            last = None;
            continue;
        }
        if counts(node.kind()) {
            last = Some(node.end_byte());
        }
        if !cursor.goto_next_sibling() {
            return fallback;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    fn leads(kind: &str) -> bool {
        kind.contains("comment") || kind.contains("attribute") || kind.contains("decorator")
    }

    /// On every golden outline fixture, for every named node: the run `leading_runs` finds is the
    /// chain of `Node::prev_sibling` that `leads`, and `end_before` a body is where the last
    /// sibling before it that is not a comment ends, as `prev_sibling` finds it.
    #[test]
    fn cursor_walks_find_what_prev_sibling_finds() {
        let mut checked = 0;
        for (path, language) in crate::outline_fixtures() {
            let source = std::fs::read(&path).unwrap();
            let tree = parse(language, &source, None).unwrap();
            let (mut targets, root) = (Vec::new(), tree.root_node().id());
            roots(
                &tree,
                usize::MAX,
                |_| true,
                |node| {
                    targets.extend(Some(node).filter(|n| n.is_named() && n.id() != root));
                    false
                },
            );
            let runs = leading_runs(&tree, &targets, leads);
            for target in &targets {
                let mut chain = Vec::new();
                let mut at = *target;
                while let Some(prev) = at.prev_sibling().filter(|p| leads(p.kind())) {
                    chain.push(prev.id());
                    at = prev;
                }
                chain.reverse();
                let found: Vec<usize> = runs[&target.id()].run.iter().map(|n| n.id()).collect();
                assert_eq!(found, chain, "{} {:?}", path.display(), target);
                // Before the run: the sibling that does not lead, or the parent's start. Checked
                // where the skeleton reads it (Go, Rust): elsewhere `prev_sibling` may stop at a
                // hidden or empty node the cursor steps over (Markdown).
                if crate::lexer::Dialect::of(language).is_some() {
                    let after = match (at.prev_sibling(), at.parent()) {
                        (Some(prev), _) => prev.end_byte(),
                        (None, Some(parent)) if parent.id() != root => parent.start_byte(),
                        (None, _) => 0,
                    };
                    assert_eq!(runs[&target.id()].after, after, "{}", path.display());
                }
                if let Some(body) = target.child_by_field_name("body") {
                    let mut at = body;
                    let mut end = body.start_byte().max(target.start_byte());
                    while let Some(prev) = at.prev_sibling() {
                        if !prev.kind().contains("comment") {
                            end = prev.end_byte();
                            break;
                        }
                        at = prev;
                    }
                    let counts = |kind: &str| !kind.contains("comment");
                    assert_eq!(end_before(*target, body, counts), end, "{}", path.display());
                }
            }
            checked += 1;
        }
        assert!(checked >= 12, "only {checked} fixtures checked");
    }
}
