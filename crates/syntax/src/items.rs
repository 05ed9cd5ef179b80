//! Outline items from a syntax tree: runs the language's `outline.scm`, then nests the items by
//! range containment, in one sorted pass. Everything language-specific is in the query; the rules
//! here are shared: a definition inside a function is local and not an item, a function directly
//! inside a class-like item is a method, a variable directly inside one is a field, and a method
//! declared outside its type (`@receiver`) nests under the type of that name.

use super::docs::{self, Comment, DocMarkers};
use super::ecmascript::{self, Ecma};
use super::queries::{KindSet, OutlineQuery, Queries, Role};
use super::walk::{self, Leading};
use super::Kind;
use serde::Serialize;
use std::collections::HashMap;
use std::ops::Range;
use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, Query, QueryCursor, QueryMatch, QueryPredicateArg, Tree};

/// Signatures longer than this many characters are cut (with `…`).
pub const SIGNATURE_CAP: usize = 200;

/// One definition in a file's outline.
#[derive(Clone, Debug, Serialize)]
pub struct Item {
    pub kind: Kind,
    pub name: String,
    /// The declaration before its body, whitespace collapsed, capped at `SIGNATURE_CAP`.
    pub signature: String,
    /// 1-based, inclusive.
    pub line: usize,
    pub end_line: usize,
    /// Index of the enclosing item in the same outline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<usize>,
    /// The enclosing type's name when it is declared in another file (a Go method whose
    /// receiver type lives elsewhere, a C++ method defined out of line): its parent by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_name: Option<String>,
    /// The first line of the item's doc comment or docstring.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
    /// The item's bytes in the file.
    #[serde(skip)]
    pub bytes: Range<usize>,
    /// Its name's bytes (a reference query skips them: a definition does not refer to itself).
    #[serde(skip)]
    pub name_bytes: Range<usize>,
    /// The first line with the item's doc comment, attributes and decorators (1-based).
    #[serde(skip)]
    pub extent_line: usize,
}

#[cfg(test)]
impl Item {
    /// An item of `kind` named `name` on lines 1–2 under `parent`, nothing else said: what the
    /// tests build outlines from.
    pub fn bare(kind: Kind, name: &str, parent: Option<usize>) -> Item {
        Item {
            kind,
            name: name.to_owned(),
            signature: String::new(),
            line: 1,
            end_line: 2,
            parent,
            parent_name: None,
            doc: None,
            bytes: 0..0,
            name_bytes: 0..0,
            extent_line: 1,
        }
    }
}

/// A file's items (in file order, parents first) and how many syntax errors the parser recovered from.
#[derive(Clone, Debug, Default)]
pub struct Outline {
    pub items: Vec<Item>,
    pub parse_errors: usize,
}

impl Outline {
    /// How deep each item is nested (0 for top level), in item order.
    pub fn depths(&self) -> Vec<usize> {
        self.down_from_roots(|parent, _| parent.map_or(0, |depth| depth + 1))
    }

    /// A value for each item from its parent's (`None` at the top level) and the item itself,
    /// each computed once: climbing to the top from every item instead is quadratic in how deep
    /// a file nests, and a hostile file nests a hundred thousand deep. An out-of-line method's
    /// parent may come after it (`attach_receivers`), and a chain that loops (a damaged tag
    /// index) is cut where it closes.
    pub fn down_from_roots<T: Copy>(&self, value: impl Fn(Option<T>, &Item) -> T) -> Vec<T> {
        let n = self.items.len();
        let mut values: Vec<Option<T>> = vec![None; n];
        let mut seen = vec![false; n];
        let mut way = Vec::new();
        for start in 0..n {
            // Up to an item already valued (or the top), then down again.
            let mut at = Some(start);
            while let Some(i) = at.filter(|&i| i < n && !seen[i]) {
                seen[i] = true;
                way.push(i);
                at = self.items[i].parent;
            }
            let mut above = at.and_then(|i| values.get(i).copied().flatten());
            while let Some(i) = way.pop() {
                let valued = value(above, &self.items[i]);
                values[i] = Some(valued);
                above = Some(valued);
            }
        }
        values.into_iter().flatten().collect()
    }

    /// Item indices in rendering order: each item followed by its children, siblings by line.
    pub fn tree_order(&self) -> Vec<usize> {
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); self.items.len()];
        let mut roots = Vec::new();
        for (i, item) in self.items.iter().enumerate() {
            match item.parent {
                Some(p) => children[p].push(i),
                None => roots.push(i),
            }
        }
        let mut order = Vec::with_capacity(self.items.len());
        let mut stack: Vec<usize> = roots.into_iter().rev().collect();
        while let Some(i) = stack.pop() {
            order.push(i);
            stack.extend(children[i].iter().rev());
        }
        order
    }

    /// The dotted path of an item (`Server.handle`), starting with the parent by name of its
    /// outermost parent when that is declared in another file (`Appender.Commit`).
    pub fn path_of(&self, index: usize) -> String {
        let mut parts = vec![self.items[index].name.as_str()];
        let mut top = index;
        while let Some(parent) = self.items[top].parent {
            parts.push(&self.items[parent].name);
            top = parent;
        }
        if let Some(name) = &self.items[top].parent_name {
            parts.push(name);
        }
        parts.reverse();
        parts.join(".")
    }
}

/// One match of the outline query, before nesting.
struct Found<'t> {
    node: Node<'t>,
    kind: Kind,
    name: String,
    body: Option<Node<'t>>,
    signature: Option<Node<'t>>,
    receiver: Option<String>,
    doc: Option<Node<'t>>,
    pattern: usize,
    /// Its pattern says `(#set! exclusive)`: other patterns' items on its node are dropped (a
    /// recovery pattern that knows better, like C's field after a macro the parser took for a type).
    exclusive: bool,
    /// Its pattern says `(#set! skip)`: the node is no item (a recovery pattern's verdict).
    skip: bool,
    /// Its pattern says `(#set! scope)`: the node is no item, but what it holds is local to it
    /// like a function's (Go's function literal assigned to a package variable).
    scope: bool,
    name_id: usize,
    name_start: usize,
    name_end: usize,
    /// The row its name starts on (0-based): the item's line.
    name_row: usize,
}

/// Nodes of these kinds, each handed to the function on the outline's own walk of the tree.
pub type Also<'a> = Option<(&'a KindSet, &'a mut dyn FnMut(Node))>;

/// How definitions are found at a node: by the compiled query, or by code (`ecmascript`).
#[derive(Clone, Copy)]
enum Matcher<'q> {
    Query(&'q OutlineQuery),
    Code(Ecma),
}

pub fn extract(tree: &Tree, source: &[u8], queries: &Queries) -> Outline {
    match queries.outline() {
        Some(query) => extract_with(tree, source, queries, query),
        None => Outline::default(),
    }
}

/// The map's definitions: the outline's items and the names `tags.scm` says a file defines
/// otherwise (a Rust macro call's list), placed and nested the same way. With `also`, every node
/// of its kinds is handed to its function on the same walk of the tree (the tagger's references:
/// one walk instead of two); `false` when the query has no root kinds to walk by, and then nothing
/// is handed. `left_out`: the comments the parse left out (`skeleton`), sorted, which lead items
/// as the tree's comments do.
pub fn extract_definitions(
    tree: &Tree,
    source: &[u8],
    queries: &Queries,
    also: Also,
    left_out: &[Comment],
) -> (Outline, bool) {
    // The query is compiled only when asked for: not for a language found by code.
    let (matcher, roots) = match &queries.by_code {
        Some((ecma, roots)) => (Matcher::Code(*ecma), Some(roots)),
        None => match queries.definitions() {
            Some(query) => (Matcher::Query(query), query.roots.as_ref()),
            None => return (Outline::default(), false),
        },
    };
    let walked = also.is_some() && roots.is_some();
    let outline = extract_from(tree, source, queries, matcher, roots, also, left_out);
    (outline, walked)
}

/// The map's definitions by the compiled query run over the whole tree: what those found by code
/// (`ecmascript`) must equal.
#[cfg(test)]
pub fn definitions_by_query(tree: &Tree, source: &[u8], queries: &Queries) -> Outline {
    let query = Matcher::Query(queries.definitions().expect("the query compiles"));
    extract_from(tree, source, queries, query, None, None, &[])
}

fn extract_with(tree: &Tree, source: &[u8], queries: &Queries, query: &OutlineQuery) -> Outline {
    extract_from(
        tree,
        source,
        queries,
        Matcher::Query(query),
        query.roots.as_ref(),
        None,
        &[],
    )
}

/// The outline, with the matcher run only at `roots` kinds outside functions when given, else
/// over the whole tree (and `also` not called).
fn extract_from<'t>(
    tree: &'t Tree,
    source: &[u8],
    queries: &Queries,
    matcher: Matcher,
    roots: Option<&KindSet>,
    also: Also,
    left_out: &[Comment],
) -> Outline {
    let found = find_definitions(tree, source, matcher, roots, also);
    let parents = nest(&found);
    let keep = not_local(&found, &parents);
    let mut new_index = vec![None; found.len()];
    let mut items = Vec::new();
    // An item's leading doc comments and attributes are its anchor's siblings (`docs::anchor`),
    // all found on two walks (`Node::parent` and `Node::prev_sibling` search from the root down
    // at each step: quadratic in how deep a file nests).
    let listed = |i: &usize| keep[*i] && !found[*i].scope;
    let mut items_nodes: Vec<Node> = (0..found.len())
        .filter(listed)
        .map(|i| found[i].node)
        .collect();
    items_nodes.dedup_by_key(|node| node.id());
    let anchors = walk::with_ancestors(tree, &items_nodes, docs::anchor);
    let anchor_of = |node: Node<'t>| anchors.get(&node.id()).copied().unwrap_or(node);
    let mut targets: Vec<Node> = items_nodes.iter().map(|&node| anchor_of(node)).collect();
    // Outer first at one start, as the walk meets them; two names of one spec (`var a, b = 1,
    // 2`) share its anchor.
    targets.sort_by_key(|node| (node.start_byte(), std::cmp::Reverse(node.end_byte())));
    targets.dedup_by_key(|node| node.id());
    let runs = walk::leading_runs(tree, &targets, docs::leads);
    let no_run = Leading::default();
    for (i, f) in found.iter().enumerate() {
        if !listed(&i) {
            continue;
        }
        new_index[i] = Some(items.len());
        let parent = parents[i].and_then(|p| new_index[p]);
        let anchor = anchor_of(f.node);
        let lead = Lead {
            anchor,
            leading: runs.get(&anchor.id()).unwrap_or(&no_run),
        };
        items.push(to_item(
            f,
            parent,
            source,
            &queries.doc_markers,
            lead,
            left_out,
        ));
    }
    attach_receivers(&found, &keep, &new_index, &mut items);
    relabel_members(&mut items);
    Outline {
        items,
        parse_errors: count_errors(tree, source),
    }
}

fn find_definitions<'t>(
    tree: &'t Tree,
    source: &[u8],
    matcher: Matcher,
    roots: Option<&KindSet>,
    also: Also,
) -> Vec<Found<'t>> {
    let mut found = Vec::new();
    let mut cursor = QueryCursor::new();
    let collect = |cursor: &mut QueryCursor, node, found: &mut Vec<Found<'t>>| match matcher {
        Matcher::Query(query) => collect_matches(cursor, node, source, query, found),
        Matcher::Code(ecma) => collect_found_by_code(ecma, node, source, found),
    };
    match roots {
        Some(roots) => {
            cursor.set_max_start_depth(Some(0));
            let visit = |node| {
                let before = found.len();
                collect(&mut cursor, node, &mut found);
                // A function's descendants are locals: never visited.
                found[before..]
                    .iter()
                    .any(|f| f.node == node && matches!(f.kind, Kind::Function | Kind::Method))
            };
            match also {
                Some((kinds, each)) => walk::roots_and(
                    tree,
                    walk::MAX_ITEM_DEPTH,
                    |k| roots.contains(k),
                    visit,
                    |k| kinds.contains(k),
                    each,
                ),
                None => walk::roots(tree, walk::MAX_ITEM_DEPTH, |k| roots.contains(k), visit),
            }
        }
        // Code matches at one node, and always has its roots (`extract_definitions`).
        None => {
            if let Matcher::Query(query) = matcher {
                collect_matches(&mut cursor, tree.root_node(), source, query, &mut found)
            }
        }
    }
    sort_outer_first(&mut found);
    found
}

/// The definitions `ecmascript` finds at `node`, as `collect_matches` gives the query's.
fn collect_found_by_code<'t>(
    ecma: Ecma,
    node: Node<'t>,
    source: &[u8],
    found: &mut Vec<Found<'t>>,
) {
    ecmascript::matches_at(ecma, node, &mut |m| {
        found.push(Found {
            node: m.node,
            kind: m.kind,
            // A scope is no item: its name (the whole function's text) is never read.
            name: match m.scope {
                true => String::new(),
                false => collapse(&text(source, m.name)),
            },
            body: m.body,
            signature: None,
            receiver: None,
            doc: None,
            pattern: m.pattern,
            exclusive: false,
            skip: false,
            scope: m.scope,
            name_id: m.name.id(),
            name_start: m.name.start_byte(),
            name_end: m.name.end_byte(),
            name_row: m.name.start_position().row,
        })
    });
}

/// A pattern's `(#prev-is? @capture "," ";")` and `(#next-is? @capture "," "}")`: the token right
/// before (after) the captured node is one of those. The query language's anchor `.` cannot say
/// so: it skips anonymous nodes (`, Slot>> =` would be `Slot` followed by `=`).
fn neighbours_hold(query: &Query, m: &QueryMatch<'_, '_>) -> bool {
    query
        .general_predicates(m.pattern_index)
        .iter()
        .all(|predicate| {
            let before = match &*predicate.operator {
                "prev-is?" => true,
                "next-is?" => false,
                _ => return true,
            };
            let Some((QueryPredicateArg::Capture(captured), tokens)) = predicate.args.split_first()
            else {
                return true;
            };
            m.captures()
                .iter()
                .filter(|c| c.index == *captured)
                .all(|c| {
                    let neighbour = match before {
                        true => c.node.prev_sibling(),
                        false => c.node.next_sibling(),
                    };
                    neighbour.is_some_and(|n| {
                        tokens
                            .iter()
                            .any(|t| matches!(t, QueryPredicateArg::String(s) if **s == *n.kind()))
                    })
                })
        })
}

fn collect_matches<'t>(
    cursor: &mut QueryCursor,
    node: Node<'t>,
    source: &[u8],
    query: &OutlineQuery,
    found: &mut Vec<Found<'t>>,
) {
    let mut matches = cursor.matches(&query.query, node, source);
    while let Some(m) = matches.next() {
        let mut item = None;
        let (mut names, mut body, mut signature, mut receiver, mut doc) =
            (Vec::new(), None, None, None, None);
        for capture in m.captures() {
            match query.roles[capture.index as usize] {
                Role::Definition(kind) => item = Some((capture.node, kind)),
                Role::Name => names.push(capture.node),
                Role::Body => body = Some(capture.node),
                Role::Signature => signature = Some(capture.node),
                Role::Receiver => receiver = Some(text(source, capture.node)),
                Role::Doc => doc = Some(capture.node),
                Role::Other => {}
            }
        }
        let Some((node, kind)) = item else { continue };
        if !neighbours_hold(&query.query, m) {
            continue;
        }
        let settings = query.query.property_settings(m.pattern_index);
        let exclusive = settings.iter().any(|p| &*p.key == "exclusive");
        let skip = settings.iter().any(|p| &*p.key == "skip");
        let scope = settings.iter().any(|p| &*p.key == "scope");
        // `(#set! name "Companion")`: the name the language gives what the source leaves unnamed.
        let given = settings
            .iter()
            .find(|p| &*p.key == "name")
            .and_then(|p| p.value.as_deref());
        for name in names {
            found.push(Found {
                node,
                kind,
                name: given.map_or_else(|| collapse(&text(source, name)), str::to_owned),
                body,
                signature,
                receiver: receiver.clone(),
                doc,
                pattern: m.pattern_index,
                exclusive,
                skip,
                scope,
                name_id: name.id(),
                name_start: name.start_byte(),
                name_end: name.end_byte(),
                name_row: name.start_position().row,
            });
        }
    }
}

/// Outer items first; for one node and name the first pattern wins, and an exclusive pattern
/// wins its node alone.
fn sort_outer_first(found: &mut Vec<Found>) {
    found.sort_by_key(|f| {
        (
            f.node.start_byte(),
            std::cmp::Reverse(f.node.end_byte()),
            f.node.id(),
            f.name_start,
            f.name_id,
            f.pattern,
        )
    });
    let exclusive: HashMap<usize, usize> = found
        .iter()
        .filter(|f| f.exclusive)
        .map(|f| (f.node.id(), f.pattern))
        .collect();
    found.retain(|f| exclusive.get(&f.node.id()).is_none_or(|&p| p == f.pattern) && !f.skip);
    found.dedup_by_key(|f| (f.node.id(), f.name_id));
}

/// The enclosing item of each found item, by range containment (`found` is sorted outer first).
/// Items of one span are siblings (Go's `var a, b int`).
fn nest(found: &[Found]) -> Vec<Option<usize>> {
    let mut parents = vec![None; found.len()];
    let mut stack: Vec<usize> = Vec::new();
    for (i, f) in found.iter().enumerate() {
        let range = f.node.byte_range();
        while let Some(&top) = stack.last() {
            if found[top].node.end_byte() >= range.end {
                break;
            }
            stack.pop();
        }
        parents[i] = match stack.last() {
            Some(&top) if found[top].node.byte_range() == range => parents[top],
            Some(&top) => Some(top),
            None => None,
        };
        stack.push(i);
    }
    parents
}

/// False for items inside a function or method: those are local, not part of the outline.
fn not_local(found: &[Found], parents: &[Option<usize>]) -> Vec<bool> {
    let mut keep = vec![true; found.len()];
    for i in 0..found.len() {
        if let Some(p) = parents[i] {
            keep[i] = keep[p] && !matches!(found[p].kind, Kind::Function | Kind::Method);
        }
    }
    keep
}

fn attach_receivers(
    found: &[Found],
    keep: &[bool],
    new_index: &[Option<usize>],
    items: &mut [Item],
) {
    // Types by (their parent, name): an out-of-line method joins the type of that name declared
    // beside it (Go at top level, C++ in the same namespace).
    let mut types: HashMap<(Option<usize>, String), usize> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        if item.kind.holds_members() || item.kind == Kind::Type {
            types.entry((item.parent, item.name.clone())).or_insert(i);
        }
    }
    for (i, f) in found.iter().enumerate() {
        let (true, Some(receiver), Some(index)) = (keep[i], &f.receiver, new_index[i]) else {
            continue;
        };
        let key = (items[index].parent, receiver.clone());
        match types.get(&key) {
            Some(&owner) => items[index].parent = Some(owner),
            None if items[index].parent.is_none() => {
                items[index].parent_name = Some(receiver.clone())
            }
            None => {}
        }
    }
}

fn relabel_members(items: &mut [Item]) {
    for i in 0..items.len() {
        let Some(parent) = items[i].parent else {
            continue;
        };
        if !items[parent].kind.holds_members() {
            continue;
        }
        items[i].kind = match items[i].kind {
            Kind::Function => Kind::Method,
            Kind::Var => Kind::Field,
            other => other,
        };
    }
}

/// What leads an item: the node its leading matter precedes (`docs::anchor`) and that node's run
/// of leading siblings (`walk::leading_runs`).
struct Lead<'a, 't> {
    anchor: Node<'t>,
    leading: &'a Leading<'t>,
}

fn to_item(
    f: &Found,
    parent: Option<usize>,
    source: &[u8],
    markers: &DocMarkers,
    lead: Lead,
    left_out: &[Comment],
) -> Item {
    let extent = docs::extent(lead.anchor, source, markers, lead.leading, left_out);
    let start = after_annotations(f.node);
    let signature = match (f.signature, f.body) {
        (Some(sig), _) => signature_in(source, sig.byte_range(), false),
        (None, Some(body)) if body.start_byte() > start => {
            // Comments between the declaration and its body are not part of it.
            let end = walk::end_before(f.node, body, |kind| !kind.contains("comment"));
            signature_in(source, start..end.max(start), false)
        }
        _ => signature_in(source, start..f.node.end_byte().max(start), true),
    };
    let doc = match f.doc {
        Some(doc) => docs::first_doc_line(&text(source, doc), markers),
        None => extent.doc,
    };
    Item {
        kind: f.kind,
        name: f.name.clone(),
        signature,
        line: f.name_row + 1,
        end_line: end_line(f.node),
        parent,
        parent_name: None,
        doc: doc.map(cap),
        bytes: f.node.byte_range(),
        name_bytes: f.name_start..f.name_end,
        extent_line: extent.first_row + 1,
    }
}

/// Where an item's own text starts after the annotations and attributes it holds (Java's and
/// Kotlin's `modifiers` hold them, C#'s attribute lists lead the declaration): they are part of
/// its extent, not of its signature.
fn after_annotations(item: Node) -> usize {
    let is_annotation = |n: Node| {
        let kind = n.kind();
        kind.contains("annotation") || kind.contains("attribute") || kind.contains("comment")
    };
    let mut cursor = item.walk();
    for child in item.children(&mut cursor) {
        if is_annotation(child) {
            continue;
        }
        if child.kind() == "modifiers" {
            let mut inner = child.walk();
            let first = child.children(&mut inner).find(|m| !is_annotation(*m));
            return match first {
                Some(m) => m.start_byte(),
                // Only annotations: the declaration goes on after the modifiers.
                None => child
                    .next_sibling()
                    .map_or(child.end_byte(), |n| n.start_byte()),
            };
        }
        return child.start_byte();
    }
    item.start_byte()
}

/// 1-based last line; a node ending at the start of a line ends on the line before.
/// The last line of an item's content: comments after its last statement (which Python's
/// grammar puts inside the block) are not part of it.
fn end_line(node: Node) -> usize {
    let end = content_end(node);
    if end.column == 0 && end.row > node.start_position().row {
        end.row
    } else {
        end.row + 1
    }
}

fn content_end(node: Node) -> tree_sitter::Point {
    let mut at = node;
    loop {
        let mut last = at.child(at.child_count().saturating_sub(1));
        while let Some(child) = last.filter(|c| c.kind().contains("comment")) {
            last = child.prev_sibling();
        }
        match last {
            Some(child) => at = child,
            None => return at.end_position(),
        }
    }
}

fn text(source: &[u8], node: Node) -> String {
    String::from_utf8_lossy(&source[node.byte_range()]).into_owned()
}

/// An item's signature from `source[range]` (its first line only with `first_line`), as
/// `signature_of` makes it, read from the range's start only as far as fills the cap when it can
/// be: an item's first line can be a whole file (a hostile one holds a hundred thousand nested
/// items on one line), and reading all of it for each item was quadratic.
fn signature_in(source: &[u8], range: Range<usize>, first_line: bool) -> String {
    let of = |end: usize| {
        let text = String::from_utf8_lossy(&source[range.start..end]);
        let text = match first_line {
            true => text.lines().next().unwrap_or(""),
            false => &text,
        };
        tidy_signature(&collapse(text))
    };
    // Collapsing and tidying a prefix gives a prefix of the whole's: once it is longer than the
    // cap, the capped signature is the whole's. The window grows while whitespace fills it.
    let mut window = 2 * SIGNATURE_CAP;
    while range.start + window < range.end {
        let head = of(range.start + window);
        if head.chars().count() > SIGNATURE_CAP {
            return cap(head);
        }
        window *= 8;
    }
    cap(of(range.end))
}

pub(crate) fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub(crate) fn tidy_signature(signature: &str) -> String {
    signature.trim_end_matches(['{', ' ']).to_owned()
}

/// An item's signature from the text of its declaration (up to its body, or its first line):
/// whitespace collapsed, a trailing `{` dropped, capped.
pub(crate) fn signature_of(text: &str) -> String {
    cap(tidy_signature(&collapse(text)))
}

pub(crate) fn cap(mut text: String) -> String {
    if let Some((cut, _)) = text.char_indices().nth(SIGNATURE_CAP) {
        text.truncate(cut);
        text.push('…');
    }
    text
}

/// ERROR and MISSING nodes, and the damaged regions the parse left out (`recover`): what the
/// parser recovered from.
fn count_errors(tree: &Tree, source: &[u8]) -> usize {
    super::recover::skipped(tree, source) + super::recover::error_nodes(tree).len()
}

#[cfg(test)]
mod tests;
