//! The resolver on small trees: imports in each language, and Rust paths through re-exports.

use super::*;
use crate::items::Outline;
use crate::tags::Tags;

fn file(rel: &str, language: &'static str, source: &str) -> Arc<FileTags> {
    let tags = Tags {
        outline: Outline::default(),
        references: Vec::new(),
    };
    let imports = super::super::imports::imports(language, rel, source.as_bytes());
    Arc::new(FileTags::new(
        rel.into(),
        language,
        tags,
        false,
        Vec::new(),
        imports,
    ))
}

/// A Rust file whose outline lists `names` (what `re_export` asks a module it passes through).
fn defining(rel: &str, source: &str, names: &[&str]) -> Arc<FileTags> {
    let item = |name: &&str| crate::items::Item {
        end_line: 1,
        ..crate::items::Item::bare(crate::Kind::Struct, name, None)
    };
    let tags = Tags {
        outline: Outline {
            items: names.iter().map(item).collect(),
            ..Outline::default()
        },
        references: Vec::new(),
    };
    let imports = super::super::imports::imports("rust", rel, source.as_bytes());
    Arc::new(FileTags::new(
        rel.into(),
        "rust",
        tags,
        false,
        Vec::new(),
        imports,
    ))
}

/// Three crates: `c` uses `a`'s names through `b`'s re-exports, and `b` defines `Own` while a
/// path of its own ends in `Own`.
fn re_exporting_crates() -> Vec<Arc<FileTags>> {
    let manifest = |dir: &str, deps: &[&str]| {
        let deps: String = deps
            .iter()
            .map(|d| format!("{d} = {{ path = \"../{d}\" }}\n"))
            .collect();
        file(
            &format!("{dir}/Cargo.toml"),
            "toml",
            &format!("[package]\nname = \"{dir}\"\n[dependencies]\n{deps}"),
        )
    };
    vec![
        manifest("a", &[]),
        defining("a/src/lib.rs", "pub mod thing;\npub mod deep;", &[]),
        defining("a/src/deep.rs", "", &["Deep"]),
        // A facade inside the crate: `a::thing::Deep` is deep.rs's.
        defining("a/src/thing.rs", "pub use crate::deep::Deep;", &["Thing"]),
        // A cycle of `use`s ends (nothing defines `Loop`).
        defining("a/src/x.rs", "pub use crate::y::Loop;", &[]),
        defining("a/src/y.rs", "pub use crate::x::Loop;", &[]),
        manifest("b", &["a"]),
        // b re-exports a's `Thing` and a's module `thing`, and defines `Own` while it also
        // writes a path ending in `Own` (that path is no re-export: b defines the name).
        defining(
            "b/src/lib.rs",
            "pub use a::thing::Thing;\npub use a::thing;\nfn f() -> a::deep::Own {}",
            &["Own"],
        ),
        manifest("c", &["b"]),
        defining(
            "c/src/lib.rs",
            "use b::Thing;\nuse b::thing::Deep;\nuse b::Own;\nuse a::x::Loop;",
            &[],
        ),
    ]
}

#[test]
fn a_path_through_a_re_export_reaches_the_file_defining_the_name() {
    let files = re_exporting_crates();
    let structure = Structure::of(&files);
    assert_eq!(
        imported(&structure, &files, "c/src/lib.rs"),
        [
            "a/src/deep.rs",
            "a/src/thing.rs",
            "a/src/x.rs",
            "b/src/lib.rs"
        ],
    );
    let c = files.iter().position(|f| f.rel == "c/src/lib.rs").unwrap() as u32;
    let thing = files
        .iter()
        .position(|f| f.rel == "a/src/thing.rs")
        .unwrap();
    assert!(structure.importers[thing].iter().any(|&(f, _)| f == c));
}

fn imported(structure: &Structure, files: &[Arc<FileTags>], from: &str) -> Vec<String> {
    let f = files.iter().position(|x| x.rel == from).unwrap();
    structure.imports[f]
        .iter()
        .map(|&(t, _)| files[t as usize].rel.clone())
        .collect()
}

#[test]
fn imports_resolve_to_the_files_defining_them() {
    let files = vec![
        file("Cargo.toml", "toml", "[workspace]\n"),
        file(
            "a/Cargo.toml",
            "toml",
            "[package]\nname = \"a\"\n[dependencies]\nb-crate = { path = \"../b\" }\n",
        ),
        file("a/src/lib.rs", "rust", "mod x;\npub mod y;\n"),
        file(
            "a/src/x.rs",
            "rust",
            "use crate::y::Z;\nuse b_crate::c::D;\nuse super::nothing;",
        ),
        file("a/src/y/mod.rs", "rust", "use super::x::f; mod w;"),
        file("a/src/y/w.rs", "rust", "use super::super::x;"),
        file("b/Cargo.toml", "toml", "[package]\nname = \"b-crate\"\n"),
        file("b/src/c.rs", "rust", ""),
        file("b/src/lib.rs", "rust", "pub mod c;"),
        file(
            "go/cmd/main.go",
            "go",
            "import (\n\"ex.com/m/go/p\"\n\"ex.com/m/go/q\"\n\"fmt\"\n)\n",
        ),
        file("go/p/p.go", "go", "import \"ex.com/m/go/q\"\n"),
        file("go/q/q1.go", "go", ""),
        file("go/q/q2.go", "go", ""),
        file("py/pkg/__init__.py", "python", "from .mod import f\n"),
        file(
            "py/pkg/mod.py",
            "python",
            "from pkg import sub\nimport os\n",
        ),
        file("py/pkg/sub.py", "python", "from . import mod\n"),
    ];
    let structure = Structure::of(&files);
    let cases: &[(&str, &[&str])] = &[
        ("a/src/lib.rs", &["a/src/x.rs", "a/src/y/mod.rs"]),
        (
            "a/src/x.rs",
            &["a/src/lib.rs", "a/src/y/mod.rs", "b/src/c.rs"],
        ),
        ("a/src/y/mod.rs", &["a/src/x.rs", "a/src/y/w.rs"]),
        ("a/src/y/w.rs", &["a/src/x.rs"]),
        ("go/cmd/main.go", &["go/p/p.go", "go/q/q1.go", "go/q/q2.go"]),
        ("go/p/p.go", &["go/q/q1.go", "go/q/q2.go"]),
        ("py/pkg/__init__.py", &["py/pkg/mod.py"]),
        ("py/pkg/mod.py", &["py/pkg/__init__.py", "py/pkg/sub.py"]),
        ("py/pkg/sub.py", &["py/pkg/__init__.py", "py/pkg/mod.py"]),
    ];
    for (from, want) in cases {
        assert_eq!(imported(&structure, &files, from), *want, "{from}");
    }
    let unit = |rel: &str| structure.unit[files.iter().position(|x| x.rel == rel).unwrap()];
    let (a, b) = (unit("a/src/x.rs").unwrap(), unit("b/src/c.rs").unwrap());
    assert_eq!(structure.deps[a as usize], vec![b]);
    assert_eq!(unit("a/src/y/w.rs"), Some(a));
}

#[test]
fn an_edit_that_changes_nothing_the_structure_reads_keeps_it_and_any_other_does_not() {
    let files = re_exporting_crates();
    let before = Structure::of(&files);
    let b = files.iter().position(|f| f.rel == "b/src/lib.rs").unwrap();
    let c = files.iter().position(|f| f.rel == "c/src/lib.rs").unwrap();
    let b_source = "pub use a::thing::Thing;\npub use a::thing;\nfn f() -> a::deep::Own {}";
    let edits = [
        // A new definition whose name no import of b ends in: the structure holds.
        (
            b,
            defining("b/src/lib.rs", b_source, &["Own", "Added"]),
            true,
        ),
        (
            c,
            defining(
                "c/src/lib.rs",
                "use b::Thing;\nuse b::thing::Deep;\nuse b::Own;\nuse a::x::Loop;\nfn body() {}",
                &["body"],
            ),
            true,
        ),
        // b no longer defines `Own`: its path ending in `Own` becomes a re-export, and c's
        // `b::Own` reaches a's deep.rs instead.
        (b, defining("b/src/lib.rs", b_source, &[]), false),
        // Another import.
        (c, defining("c/src/lib.rs", "use b::Thing;", &[]), false),
    ];
    for (at, replacement, holds) in edits {
        let mut after = files.clone();
        let old = std::mem::replace(&mut after[at], replacement);
        let rel = after[at].rel.clone();
        assert_eq!(Structure::holds_after(&[(at, old)], &after), holds, "{rel}");
        // What it says is what a rebuild finds (the edits it refuses all change something).
        assert_eq!(Structure::of(&after) == before, holds, "{rel}");
    }
}
