//! The map's structural ties (crates/syntax/src/map/imports.rs, crates/syntax/src/map/modules.rs)
//! over the real socket: a focus file's real imports — Rust's `crate::a::b` and another workspace
//! crate's `other_crate::c`, a Go package's import path, a Python relative import — come before
//! files that merely define the same bare names in modules of the same names (decoys, one in the
//! focus file's own folder, which the name and module-name ties alone favour); a file importing the
//! focus file's type through another crate's re-export (`pub use a::thing::Thing` in b, `use
//! b::Thing` in c) is an importer of it; and resolution never reaches past the jail.

use crate::common;

use common::{Daemon, Sandbox, OUTSIDE_SECRET};
use serde_json::json;

struct Case {
    name: &'static str,
    files: &'static [(&'static str, &'static str)],
    focus: &'static str,
    /// The files the map must list first, in any order.
    first: &'static [&'static str],
    /// Files that must come after every file of `first` (or not be listed).
    after: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        name: "rust workspace: crate::a::b and other_crate::c",
        files: &[
            ("Cargo.toml", "[workspace]\nmembers = [\"app\", \"lib-b\", \"zoo\"]\n"),
            (
                "app/Cargo.toml",
                "[package]\nname = \"app\"\n\n[dependencies]\nlib-b = { path = \"../lib-b\" }\n",
            ),
            ("app/src/lib.rs", "mod a;\nmod c;\nmod focus;\n"),
            ("app/src/a/mod.rs", "pub mod b;\n"),
            ("app/src/a/b.rs", "pub struct Widget;\n"),
            (
                "app/src/focus.rs",
                "use crate::a::b::Widget;\nuse lib_b::c::Gadget;\n\npub fn run() {\n    let _w = Widget;\n    let _g = Gadget::make();\n}\n",
            ),
            (
                "app/src/c.rs",
                "pub struct Gadget;\nimpl Gadget {\n    pub fn make() -> Gadget { Gadget }\n}\n",
            ),
            ("lib-b/Cargo.toml", "[package]\nname = \"lib-b\"\n"),
            ("lib-b/src/lib.rs", "pub mod c;\n"),
            (
                "lib-b/src/c.rs",
                "pub struct Gadget;\nimpl Gadget {\n    pub fn make() -> Gadget { Gadget }\n}\n",
            ),
            ("zoo/Cargo.toml", "[package]\nname = \"zoo\"\n"),
            ("zoo/src/lib.rs", "pub mod b;\n"),
            ("zoo/src/b.rs", "pub struct Widget;\n"),
        ],
        focus: "app/src/focus.rs",
        first: &["app/src/a/b.rs", "lib-b/src/c.rs"],
        after: &["app/src/c.rs", "zoo/src/b.rs"],
    },
    Case {
        name: "rust: an importer two crates away, through a re-export",
        files: &[
            ("Cargo.toml", "[workspace]\nmembers = [\"a\", \"b\", \"c\", \"z\"]\n"),
            ("a/Cargo.toml", "[package]\nname = \"a\"\n"),
            ("a/src/lib.rs", "pub mod thing;\npub mod shelf;\n"),
            (
                "a/src/thing.rs",
                "pub struct Thing {\n    pub size: u32,\n}\n\nimpl Thing {\n    pub fn enlarge(&mut self) {\n        self.size += 1;\n    }\n}\n",
            ),
            // Beside the focus file, a call of a method named like the focus file's.
            (
                "a/src/shelf.rs",
                "pub struct Shelf {\n    pub boards: Vec<u32>,\n}\n\npub fn enlarge_all(s: &mut Shelf) {\n    s.enlarge();\n}\n",
            ),
            (
                "b/Cargo.toml",
                "[package]\nname = \"b\"\n\n[dependencies]\na = { path = \"../a\" }\n",
            ),
            ("b/src/lib.rs", "pub use a::thing::Thing;\n"),
            (
                "c/Cargo.toml",
                "[package]\nname = \"c\"\n\n[dependencies]\nb = { path = \"../b\" }\n",
            ),
            ("c/src/lib.rs", "pub mod user;\n"),
            (
                "c/src/user.rs",
                "use b::Thing;\n\npub fn grow(t: &mut Thing) {\n    t.enlarge();\n}\n",
            ),
            // Another crate's `Thing`: the bare name is shared, so it ties c's file less.
            ("z/Cargo.toml", "[package]\nname = \"z\"\n"),
            ("z/src/lib.rs", "pub mod thing;\n"),
            ("z/src/thing.rs", "pub struct Thing;\n"),
        ],
        focus: "a/src/thing.rs",
        first: &["c/src/user.rs"],
        after: &["a/src/lib.rs", "a/src/shelf.rs"],
    },
    Case {
        name: "go module: two packages and a decoy package of the same name",
        files: &[
            ("go.mod", "module example.com/shop\n\ngo 1.22\n"),
            (
                "cart/cart.go",
                "package cart\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/shop/pricing\"\n)\n\nfunc Total() int {\n\tfmt.Println()\n\treturn pricing.Price()\n}\n",
            ),
            ("cart/decoy.go", "package cart\n\nfunc Price() int { return 2 }\n"),
            ("pricing/price.go", "package pricing\n\nfunc Price() int { return 1 }\n"),
            (
                "api/handler.go",
                "package api\n\nimport \"example.com/shop/cart\"\n\nfunc Handle() int { return cart.Total() }\n",
            ),
            (
                "legacy/pricing/price.go",
                "package pricing\n\nfunc Price() int { return 3 }\n",
            ),
        ],
        focus: "cart/cart.go",
        first: &["pricing/price.go", "api/handler.go"],
        after: &["cart/decoy.go", "legacy/pricing/price.go"],
    },
    Case {
        name: "python: a relative import against a module of the same name beside the focus",
        files: &[
            ("shop/__init__.py", ""),
            ("shop/models.py", "class Item:\n    price = 1\n"),
            ("shop/sub/__init__.py", ""),
            (
                "shop/sub/cart.py",
                "from ..models import Item\n\n\ndef total(items):\n    return sum(Item(i).price for i in items)\n",
            ),
            ("shop/sub/models.py", "class Item:\n    price = 2\n"),
        ],
        focus: "shop/sub/cart.py",
        first: &["shop/models.py"],
        after: &["shop/sub/models.py"],
    },
];

#[test]
fn a_focus_files_real_imports_come_before_files_sharing_its_names() {
    let mut problems = Vec::new();
    for case in CASES {
        let sandbox = Sandbox::empty();
        for (rel, content) in case.files {
            sandbox.write(rel, content);
        }
        let daemon = Daemon::start(&sandbox, &[]);
        let result = daemon.ok("map", json!({"focus": [case.focus], "budget": 4000}));
        let text = result["map"].as_str().unwrap();
        let files = common::map_files(text);
        let head = &files[..case.first.len().min(files.len())];
        for want in case.first.iter().filter(|w| !head.iter().any(|h| h == *w)) {
            problems.push(format!("{}: {want} not first\n{text}", case.name));
        }
        for decoy in case.after {
            if files.iter().position(|f| f == decoy) < Some(case.first.len()) {
                problems.push(format!("{}: {decoy} before an import\n{text}", case.name));
            }
        }
        // The same map from a fresh daemon, byte for byte.
        drop(daemon);
        let again = Daemon::start(&sandbox, &[]);
        let second = again.ok("map", json!({"focus": [case.focus], "budget": 4000}));
        assert_eq!(second["map"], result["map"], "{}", case.name);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A crate the focus file imports by name lives outside the root (a symlinked folder, a manifest's
/// `path = "../../outside"`): its manifest and files are not in the jail's walk, so nothing of it is
/// read or listed.
#[test]
fn resolution_never_leaves_the_jail() {
    let sandbox = Sandbox::empty();
    let crate_dir = sandbox.outside.join("evil");
    std::fs::create_dir_all(crate_dir.join("src")).unwrap();
    std::fs::write(crate_dir.join("Cargo.toml"), "[package]\nname = \"evil\"\n").unwrap();
    std::fs::write(
        crate_dir.join("src/lib.rs"),
        format!("/// {OUTSIDE_SECRET}\npub struct Gadget;\n"),
    )
    .unwrap();
    std::os::unix::fs::symlink(&crate_dir, sandbox.root.join("evil")).unwrap();
    sandbox.write(
        "app/Cargo.toml",
        "[package]\nname = \"app\"\n\n[dependencies]\nevil = { path = \"../../outside/evil\" }\n",
    );
    sandbox.write(
        "app/src/lib.rs",
        "use evil::Gadget;\n\npub fn run() -> Gadget {\n    evil::Gadget\n}\n",
    );
    sandbox.write("app/src/other.rs", "pub struct Other;\n");
    let daemon = Daemon::start(&sandbox, &[]);
    let result = daemon.ok(
        "map",
        json!({"focus": ["app/src/lib.rs"], "budget": 100_000}),
    );
    let text = result["map"].as_str().unwrap();
    assert!(!text.contains(OUTSIDE_SECRET), "{text}");
    assert!(
        common::map_files(text)
            .iter()
            .all(|f| f.starts_with("app/")),
        "{text}"
    );
}
