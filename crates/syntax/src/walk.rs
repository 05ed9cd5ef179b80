//! The cursor walks the outline and the tagger share: the nodes of given kinds (by kind id), in
//! document order.

use tree_sitter::{Node, Tree};

/// Calls `visit` on every node of a root kind in document order, and does not descend into a node
/// for which it returns true. Matches rooted inside a function only yield locals, which the
/// outline drops anyway, so skipping them changes nothing but the time.
pub fn roots<'t>(
    tree: &'t Tree,
    is_root: impl Fn(u16) -> bool,
    mut visit: impl FnMut(Node<'t>) -> bool,
) {
    let mut cursor = tree.walk();
    loop {
        let node = cursor.node();
        let skip = is_root(node.kind_id()) && visit(node);
        if (!skip && cursor.goto_first_child()) || cursor.goto_next_sibling() {
            continue;
        }
        loop {
            if !cursor.goto_parent() {
                return;
            }
            if cursor.goto_next_sibling() {
                break;
            }
        }
    }
}

/// `roots`, and on the same walk `each` on every node of an `is_other` kind, in document order,
/// the subtrees `visit` skips included.
pub fn roots_and<'t>(
    tree: &'t Tree,
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
        if skipping.is_none() && is_root(kind) && visit(node) {
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
