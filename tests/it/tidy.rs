//! Tidy checks on the source tree (as rust-analyzer's `xtask/src/tidy.rs`): the workspace's crates
//! depend on one another only down their layers; within each crate, the top-level modules
//! of `src/` import one another only downwards through the layers below, and never in a cycle;
//! every module of every crate has its row in ARCHITECTURE.md's code map; no non-test file grows
//! past 800 lines; each package's integration tests stay one binary (its `tests/it/`). Docs and
//! data are checked like code: every repository path they cite exists, and no build artefact is
//! tracked.
//!
//! The import graph is read from the syntax tree (syn), so comments and strings never count, and
//! items under `#[cfg(test)]` are left out: a unit test may reach anything. To print the graph:
//!
//!     CODERD_PRINT_GRAPH=1 cargo test --test it -- --nocapture tidy::the_import_graph

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The workspace's crates in layers, lowest first: a crate may depend on crates of the layers
/// below its own, never on its own layer or above (Cargo already refuses a cycle; this keeps the
/// direction). `coder` is a client: it stands on `wire` alone.
const CRATE_LAYERS: &[&[&str]] = &[
    &["coderd-wire"],
    // Errors, the jail, config, documents, the workspace: knows no subsystem, method or face.
    &["coderd-core"],
    // The subsystems that stand on core alone.
    &["coderd-syntax", "coderd-edit"],
    &["coderd-exec", "coderd-git"],
    &["coderd-lsp"],
    // The method table and the faces; the client.
    &["coderd", "coder"],
];

/// The daemon crate's own modules (src/) in layers, lowest first. A module may import its own
/// layer and the layers below it; the graph as a whole must also stay acyclic (checked apart, so
/// siblings cannot import each other in a ring either).
const LAYERS: &[(&str, &[&str])] = &[
    // The wire: frames, params decoding and validation; the registry of live daemons.
    ("protocol", &["protocol", "registry"]),
    // The subsystems small enough to live in the daemon crate.
    (
        "subsystems",
        &["read", "listing", "search", "todo", "agent", "symedit"],
    ),
    // The method table and the daemon's state: the only code that sees `State`.
    ("methods", &["methods"]),
    // The ways in: the socket server and its connections, the client, MCP.
    (
        "faces",
        &["server", "connections", "outbox", "mcp", "iii", "editor"],
    ),
];

/// Imports allowed against the layers, each with its reason. Keep this short.
const ALLOWED: &[(&str, &str, &str)] = &[
    // The socket server admits connections; `info` (a method) reports their count and cap.
    (
        "methods",
        "connections",
        "`info` reports the open connections and their cap",
    ),
];

/// Files over the line limit while they are being split by concept (the split is its own
/// change); empty when none is.
const TOO_LONG_FOR_NOW: &[&str] = &[];

const MAX_LINES: usize = 800;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Every crate of the workspace as (name, source folder relative to the top): the daemon's `src/`
/// and each `crates/<name>/src/`.
fn crates() -> Vec<(String, String)> {
    let mut crates = vec![("coderd".to_string(), "src".to_string())];
    for entry in std::fs::read_dir(root().join("crates")).unwrap() {
        let name = entry.unwrap().file_name().to_str().unwrap().to_string();
        crates.push((name.clone(), format!("crates/{name}/src")));
    }
    crates.sort();
    crates
}

/// The top-level module a file of a crate's source folder belongs to (`crates/edit/src/txn/mod.rs`
/// → `txn`); `None` for the crate root and the binaries.
fn module_of(file: &Path, src: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel.components().next()?.as_os_str().to_str()?.to_string();
    if first == "bin" || first == "lib.rs" || first == "main.rs" {
        return None;
    }
    Some(first.trim_end_matches(".rs").to_string())
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg") && {
            let text = a.meta.to_token_stream().to_string();
            text.contains("test") && !text.contains("not")
        }
    })
}

/// The top-level modules named by `crate::x` paths in `tokens` (`crate::{a, b::c}` names both).
fn crate_paths(tokens: TokenStream, out: &mut BTreeSet<String>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < trees.len() {
        if let TokenTree::Group(g) = &trees[i] {
            crate_paths(g.stream(), out);
        }
        let is_crate = matches!(&trees[i], TokenTree::Ident(id) if id == "crate");
        let colons = matches!(
            (trees.get(i + 1), trees.get(i + 2)),
            (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b))) if a.as_char() == ':' && b.as_char() == ':'
        );
        if is_crate && colons {
            match trees.get(i + 3) {
                Some(TokenTree::Ident(name)) => {
                    out.insert(name.to_string());
                }
                Some(TokenTree::Group(g)) => {
                    // `crate::{a, b::c}`: the first ident of each comma-separated piece.
                    let mut first = true;
                    for tree in g.stream() {
                        match tree {
                            TokenTree::Ident(name) if first => {
                                out.insert(name.to_string());
                                first = false;
                            }
                            TokenTree::Punct(p) if p.as_char() == ',' => first = true,
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
            i += 3;
            continue;
        }
        i += 1;
    }
}

/// The top-level modules a file's non-test items import.
fn imports_of(file: &Path, in_test_module: bool) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if in_test_module {
        return out;
    }
    let text = std::fs::read_to_string(file).unwrap();
    let syntax = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    for item in syntax.items {
        if item_is_test(&item) {
            continue;
        }
        crate_paths(item.to_token_stream(), &mut out);
    }
    out
}

fn item_is_test(item: &syn::Item) -> bool {
    match item {
        syn::Item::Mod(m) => is_cfg_test(&m.attrs),
        syn::Item::Fn(f) => is_cfg_test(&f.attrs),
        syn::Item::Use(u) => is_cfg_test(&u.attrs),
        syn::Item::Impl(i) => is_cfg_test(&i.attrs),
        syn::Item::Struct(s) => is_cfg_test(&s.attrs),
        syn::Item::Const(c) => is_cfg_test(&c.attrs),
        syn::Item::Static(s) => is_cfg_test(&s.attrs),
        _ => false,
    }
}

/// Files that are test code as a whole: modules declared under `#[cfg(test)]` in their parent.
fn test_files(files: &[PathBuf]) -> BTreeSet<PathBuf> {
    let mut tests = BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(file).unwrap();
        let Ok(syntax) = syn::parse_file(&text) else {
            continue;
        };
        let dir = match file.file_name().unwrap().to_str().unwrap() {
            "mod.rs" | "lib.rs" => file.parent().unwrap().to_path_buf(),
            name => file.parent().unwrap().join(name.trim_end_matches(".rs")),
        };
        for item in syntax.items {
            if let syn::Item::Mod(m) = item {
                if m.content.is_none() && is_cfg_test(&m.attrs) {
                    let name = m.ident.to_string();
                    tests.insert(dir.join(format!("{name}.rs")));
                    tests.insert(dir.join(name).join("mod.rs"));
                }
            }
        }
    }
    tests
}

/// The graph of every crate's top-level modules, each named `crate::module` (the daemon's as
/// `coderd::module`): module → the modules of its crate its non-test code imports. Imports across
/// crates are Cargo's to keep acyclic (`crates_depend_down_the_layers`).
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, src) in crates() {
        let src = root().join(src);
        let files = rust_files(&src);
        let tests = test_files(&files);
        for file in &files {
            let Some(module) = module_of(file, &src) else {
                continue;
            };
            let mut imports = imports_of(file, tests.contains(file));
            imports.remove(&module);
            let imports = imports.into_iter().map(|m| format!("{name}::{m}"));
            graph
                .entry(format!("{name}::{module}"))
                .or_default()
                .extend(imports);
        }
    }
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    for imports in graph.values_mut() {
        imports.retain(|m| modules.contains(m));
    }
    graph
}

/// The strongly connected components with more than one module (Tarjan).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(w: &mut Walk<'a>, v: &'a str) {
        let n = w.index.len();
        w.index.insert(v, n);
        w.low.insert(v, n);
        w.stack.push(v);
        w.on_stack.insert(v);
        for next in &w.graph[v] {
            let next = next.as_str();
            if !w.index.contains_key(next) {
                visit(w, next);
                let low = w.low[v].min(w.low[next]);
                w.low.insert(v, low);
            } else if w.on_stack.contains(next) {
                let low = w.low[v].min(w.index[next]);
                w.low.insert(v, low);
            }
        }
        if w.low[v] == w.index[v] {
            let mut component = Vec::new();
            loop {
                let top = w.stack.pop().unwrap();
                w.on_stack.remove(top);
                component.push(top.to_string());
                if top == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                w.found.push(component);
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v.as_str()) {
            visit(&mut walk, v);
        }
    }
    walk.found
}

/// The layer of one of the daemon crate's modules (`coderd::methods`).
fn layer_of(module: &str) -> Option<usize> {
    let module = module.strip_prefix("coderd::")?;
    LAYERS
        .iter()
        .position(|(_, modules)| modules.contains(&module))
}

fn render(graph: &BTreeMap<String, BTreeSet<String>>) -> String {
    let mut text = String::new();
    for (module, imports) in graph {
        let layer = layer_of(module).map_or("?", |i| LAYERS[i].0);
        let imports: Vec<&str> = imports.iter().map(String::as_str).collect();
        text.push_str(&format!("{module} [{layer}] -> {}\n", imports.join(", ")));
    }
    text
}

#[test]
fn the_import_graph_has_no_cycle() {
    let graph = graph();
    if std::env::var_os("CODERD_PRINT_GRAPH").is_some() {
        println!("{}", render(&graph));
        for cycle in cycles(&graph) {
            println!("cycle of {}: {}", cycle.len(), cycle.join(", "));
        }
    }
    let found = cycles(&graph);
    let described: Vec<String> = found
        .iter()
        .map(|c| format!("{} modules: {}", c.len(), c.join(", ")))
        .collect();
    assert!(
        found.is_empty(),
        "import cycles among the top-level modules of src/:\n{}\n\nthe graph:\n{}",
        described.join("\n"),
        render(&graph)
    );
}

#[test]
fn imports_run_down_the_layers() {
    let graph = graph();
    let mut wrong = Vec::new();
    for (module, imports) in graph.iter().filter(|(m, _)| m.starts_with("coderd::")) {
        let Some(from) = layer_of(module) else {
            wrong.push(format!(
                "`{module}` is in no layer (add it to LAYERS in tests/it/tidy.rs)"
            ));
            continue;
        };
        for import in imports {
            let Some(to) = layer_of(import) else {
                continue; // reported as a module above
            };
            let allowed = ALLOWED.iter().any(|(a, b, _)| {
                module == &format!("coderd::{a}") && import == &format!("coderd::{b}")
            });
            if to > from && !allowed {
                wrong.push(format!(
                    "`{module}` ({}) imports `{import}` ({})",
                    LAYERS[from].0, LAYERS[to].0
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layers:\n{}\n\nthe graph:\n{}",
        wrong.join("\n"),
        render(&graph)
    );
}

#[test]
fn every_module_has_a_row_in_the_code_map() {
    let map = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let mut missing = Vec::new();
    let folders: BTreeMap<String, String> = crates().into_iter().collect();
    for module in graph().keys() {
        let (name, module) = module.split_once("::").unwrap();
        let src = &folders[name];
        let file = format!("`{src}/{module}.rs`");
        let folder = format!("`{src}/{module}/`");
        if !map.contains(&file) && !map.contains(&folder) {
            missing.push(format!("{src}/{module}"));
        }
    }
    assert!(
        missing.is_empty(),
        "modules missing from ARCHITECTURE.md's code map (a row naming `src/x.rs` or `crates/c/src/x/`): {}",
        missing.join(", ")
    );
}

#[test]
fn no_file_is_too_long() {
    let files: Vec<PathBuf> = crates()
        .into_iter()
        .flat_map(|(_, src)| rust_files(&root().join(src)))
        .collect();
    let tests = test_files(&files);
    let mut long = Vec::new();
    for file in &files {
        let rel = file
            .strip_prefix(root())
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        if tests.contains(file) || TOO_LONG_FOR_NOW.contains(&rel.as_str()) {
            continue;
        }
        let lines = std::fs::read_to_string(file).unwrap().lines().count();
        if lines > MAX_LINES {
            long.push(format!("{rel}: {lines} lines"));
        }
    }
    assert!(
        long.is_empty(),
        "files over {MAX_LINES} lines (split them by concept):\n{}",
        long.join("\n")
    );
}

/// One alias system: a param's other names are declared on its method's entry
/// (`.param_aliases`, which `schema`, `coder`'s flags, the envelope and iii all read), never as a
/// serde `alias` only the socket's decoding would know. (A config value's spelling is not a param.)
#[test]
fn no_param_has_a_serde_alias() {
    let mut found = Vec::new();
    for dir in ["src", "crates"] {
        for file in rust_files(&root().join(dir)) {
            let rel = file.strip_prefix(root()).unwrap().display().to_string();
            if rel.contains("/config/") {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap();
            for (n, line) in text.lines().enumerate() {
                if line.trim_start().starts_with("#[serde(") && line.contains("alias") {
                    found.push(format!("{rel}:{}: {}", n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "declare these with the method's `.param_aliases(&[...])` instead:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_import_graph() {
    // Prints the graph with CODERD_PRINT_GRAPH set; always checks that it could be built.
    let graph = graph();
    if std::env::var_os("CODERD_PRINT_GRAPH").is_some() {
        println!("{}", render(&graph));
        let found = cycles(&graph);
        println!("{} cycle(s)", found.len());
        for cycle in found {
            println!("cycle of {}: {}", cycle.len(), cycle.join(", "));
        }
    }
    assert!(graph.contains_key("core::error"));
}

/// The workspace crates a package's manifest depends on (normal and build dependencies; a test
/// may reach anything).
fn workspace_dependencies(manifest: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(manifest).unwrap();
    let doc: toml_edit::DocumentMut = text.parse().unwrap();
    let package = doc["package"]["name"].as_str().unwrap().to_string();
    let names: BTreeSet<&str> = CRATE_LAYERS
        .iter()
        .flat_map(|l| l.iter().copied())
        .collect();
    let mut found = Vec::new();
    for table in ["dependencies", "build-dependencies"] {
        if let Some(deps) = doc.get(table).and_then(|d| d.as_table_like()) {
            for (dep, _) in deps.iter() {
                if names.contains(dep) {
                    found.push(dep.to_string());
                }
            }
        }
    }
    found.insert(0, package);
    found
}

#[test]
fn crates_depend_down_the_layers() {
    let layer = |name: &str| CRATE_LAYERS.iter().position(|l| l.contains(&name));
    let mut manifests = vec![root().join("Cargo.toml")];
    for (name, _) in crates().into_iter().filter(|(n, _)| n != "coderd") {
        manifests.push(root().join("crates").join(name).join("Cargo.toml"));
    }
    let mut wrong = Vec::new();
    for manifest in manifests {
        let mut deps = workspace_dependencies(&manifest);
        let package = deps.remove(0);
        let Some(from) = layer(&package) else {
            wrong.push(format!(
                "`{package}` is in no layer (add it to CRATE_LAYERS)"
            ));
            continue;
        };
        for dep in deps {
            if layer(&dep).is_some_and(|to| to >= from) {
                wrong.push(format!("`{package}` depends on `{dep}`, not a lower layer"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "crates against the layers:\n{}",
        wrong.join("\n")
    );
}

/// The workspace's packages: the root and each folder of `crates/` with a Cargo.toml.
fn packages() -> Vec<PathBuf> {
    let mut packages = vec![root()];
    for entry in std::fs::read_dir(root().join("crates")).unwrap() {
        let dir = entry.unwrap().path();
        if dir.join("Cargo.toml").is_file() {
            packages.push(dir);
        }
    }
    packages.sort();
    packages
}

/// The modules a file declares (`mod x;`).
fn declared_modules(file: &Path) -> BTreeSet<String> {
    let syntax = syn::parse_file(&std::fs::read_to_string(file).unwrap()).unwrap();
    syntax
        .items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Mod(m) if m.content.is_none() => Some(m.ident.to_string()),
            _ => None,
        })
        .collect()
}

/// Each package's integration tests are one binary, `tests/it/main.rs` with a module per area:
/// Cargo makes a binary of every `tests/*.rs` and `tests/*/main.rs`, each linking the whole
/// package, so another one is another link of it on every change; and a file of `tests/it/` that
/// main.rs does not declare would never run.
#[test]
fn the_integration_tests_are_one_binary() {
    let mut wrong = Vec::new();
    for package in packages() {
        let tests = package.join("tests");
        let Ok(entries) = std::fs::read_dir(&tests) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(root()).unwrap().display().to_string();
            if path.extension().is_some_and(|e| e == "rs") {
                wrong.push(format!(
                    "{rel}: a test binary of its own (make it a module of tests/it/)"
                ));
            } else if path.join("main.rs").is_file() && !path.ends_with("it") {
                wrong.push(format!(
                    "{rel}/main.rs: a test binary of its own (make it a module of tests/it/)"
                ));
            }
        }
        let main = tests.join("it/main.rs");
        if !main.is_file() {
            continue;
        }
        let declared = declared_modules(&main);
        for entry in std::fs::read_dir(tests.join("it")).unwrap() {
            let path = entry.unwrap().path();
            let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
            let module =
                path.extension().is_some_and(|e| e == "rs") || path.join("mod.rs").is_file();
            if module && stem != "main" && !declared.contains(&stem) {
                let rel = path.strip_prefix(root()).unwrap().display();
                wrong.push(format!(
                    "{rel}: not declared in tests/it/main.rs, so it never runs"
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "integration tests outside the one binary:\n{}",
        wrong.join("\n")
    );
}

// Docs and data checked like code: every repository path they cite exists, and no build artefact
// is tracked.

/// The folders a cited repository path starts with.
const CITED_FOLDERS: &[&str] = &[
    "src/",
    "crates/",
    "tests/",
    "scripts/",
    "docs/",
    "data/",
    "grammars/",
    "queries/",
    "benches/",
    "examples/",
    ".ci/",
];

/// The top-level files a document may cite by their bare name.
const TOP_LEVEL_FILES: &[&str] = &[
    "Cargo.lock",
    "coderd.example.yaml",
    "README.md",
    "ARCHITECTURE.md",
    "SECURITY.md",
    "CONTRIBUTING.md",
];

/// Cited paths that are not this repository's: a user's files in the examples, placeholders.
/// (A path holding `<`, `*`, `{`, `$` or `…` is a pattern and never checked.)
const NOT_REPOSITORY_PATHS: &[&str] = &[
    "src/main.rs",   // the user's file in the tour and the docs' examples
    "src/a.rs",      // an error message's example
    "docs/huge.txt", // protocol-guide.md's example of a big file
    "tests/fixtures/workspaces/NAME/",
];

/// Folders under tests/ that hold workspaces and data, not the tests' code.
const TEST_DATA: &[&str] = &["fixtures", "corpus", "lsp"];

/// The files git tracks, relative to the root.
fn tracked_files() -> Vec<String> {
    let out = std::process::Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root())
        .output()
        .expect("git runs (the tidy checks read the tracked files)");
    assert!(out.status.success(), "git ls-files: {out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .split('\0')
        .filter(|f| !f.is_empty())
        .map(str::to_string)
        .collect()
}

/// The part of a line of `file` that cites paths: a whole line of a document, data or config
/// file; the comment of a manifest, a script or Rust source (their code names paths of its own
/// workspaces); `None` for any other file.
fn citing_part<'a>(file: &str, line: &'a str) -> Option<&'a str> {
    let comment = |marker: &str| Some(line.find(marker).map_or("", |i| &line[i..]));
    let top = file.split('/').next().unwrap();
    let name = file.rsplit('/').next().unwrap();
    let test_data = file.split('/').any(|c| TEST_DATA.contains(&c));
    let document = file.ends_with(".md") || file == "coderd.example.yaml";
    let data = (top == "data" || top == "grammars") && file.ends_with(".toml");
    if top == "tests" && (!file.ends_with(".rs") || test_data) {
        None // the tests' workspaces and corpus: other projects' files and paths
    } else if document || data {
        Some(line)
    } else if name == "Cargo.toml" || top == "scripts" || top == ".ci" {
        comment("#")
    } else if file.ends_with(".rs") {
        comment("//")
    } else {
        None
    }
}

/// The repository paths `text` cites: words starting with one of `CITED_FOLDERS` or naming a
/// `TOP_LEVEL_FILES` (`path:line` and `path::item` end the word at the colon); patterns left out.
/// A word glued to a longer path or a URL (`crates/coder/src/…`, `https://…/src/…`) starts before
/// the folder's name, so it is no citation.
fn cited_paths(text: &str) -> Vec<String> {
    let in_word = |c: char| c.is_alphanumeric() || "_./-<>*{}$…".contains(c);
    let mut paths = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(in_word) {
        let end = rest[start..]
            .find(|c| !in_word(c))
            .map_or(rest.len(), |e| start + e);
        let word = rest[start..end].trim_end_matches(['.', ',', ';']);
        rest = &rest[end..];
        let cited =
            CITED_FOLDERS.iter().any(|f| word.starts_with(f)) || TOP_LEVEL_FILES.contains(&word);
        if cited && !word.contains(['<', '>', '*', '{', '}', '$', '…']) {
            paths.push(word.to_string());
        }
    }
    paths
}

#[test]
fn every_path_the_docs_and_data_cite_exists() {
    let mut stale = Vec::new();
    for file in tracked_files() {
        let Ok(text) = std::fs::read_to_string(root().join(&file)) else {
            continue; // binary
        };
        for (n, line) in text.lines().enumerate() {
            let Some(part) = citing_part(&file, line) else {
                break;
            };
            for path in cited_paths(part) {
                if !NOT_REPOSITORY_PATHS.contains(&path.as_str()) && !root().join(&path).exists() {
                    stale.push(format!("{file}:{}: `{path}` does not exist", n + 1));
                }
            }
        }
    }
    assert!(
        stale.is_empty(),
        "repository paths cited that do not exist (fix the citation, or list a placeholder in \
         NOT_REPOSITORY_PATHS in tests/it/tidy.rs):\n{}",
        stale.join("\n")
    );
}

#[test]
fn the_path_scanner_reads_citations_as_written() {
    let cases: &[(&str, &[&str])] = &[
        (
            "see `src/jail.rs:120` and src/edit/mod.rs.",
            &["src/jail.rs", "src/edit/mod.rs"],
        ),
        (
            "`src/protocol/keys.rs::canonical`",
            &["src/protocol/keys.rs"],
        ),
        (
            "crates/coder/src/lib.rs, not src/ inside it",
            &["crates/coder/src/lib.rs", "src/"],
        ),
        (
            "https://example.org/src/x.rs and `queries/<language>/tags.scm`",
            &[],
        ),
        (
            "crates/syntax/build.rs reads grammars/grammars.toml;",
            &["crates/syntax/build.rs", "grammars/grammars.toml"],
        ),
        ("my-build.rs, dev.build.rs and data-src/x", &[]),
    ];
    for (text, want) in cases {
        assert_eq!(&cited_paths(text), want, "in {text:?}");
    }
}

/// What a build leaves behind, never to be tracked.
fn is_artefact(file: &str) -> bool {
    let name = file.rsplit('/').next().unwrap();
    file.starts_with("target/")
        || file.split('/').any(|c| c == "__pycache__")
        || [".pyc", ".pyo", ".o", ".so", ".a", ".rlib", ".rmeta", ".d"]
            .iter()
            .any(|ext| name.ends_with(ext))
}

#[test]
fn no_build_artefact_is_tracked() {
    let artefacts: Vec<String> = tracked_files()
        .into_iter()
        .filter(|f| is_artefact(f))
        .collect();
    assert!(
        artefacts.is_empty(),
        "build artefacts tracked by git (`git rm --cached` them and extend .gitignore):\n{}",
        artefacts.join("\n")
    );
    assert!(is_artefact("scripts/__pycache__/x.cpython-311.pyc") && !is_artefact("src/lib.rs"));
}

// Numbers and lists the docs state about the data: checked against the data.

/// The `[[table]]` entries of a data file (`grammars/languages.toml`'s `language`, …).
fn entries(file: &str, table: &str) -> Vec<toml::Table> {
    let text = std::fs::read_to_string(root().join(file)).unwrap();
    let data: toml::Table = toml::from_str(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
    data[table]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_table().unwrap().clone())
        .collect()
}

/// The counts a document may state, each with the data that decides it: "18 languages" is
/// `grammars/languages.toml`'s count, so a new language cannot leave the README behind.
fn counted_things() -> Vec<(&'static str, usize)> {
    let grammars = entries("grammars/grammars.toml", "grammar");
    let crates: BTreeSet<&str> = grammars
        .iter()
        .map(|g| g["crate"].as_str().unwrap())
        .collect();
    vec![
        (
            "languages",
            entries("grammars/languages.toml", "language").len(),
        ),
        ("grammars", grammars.len()),
        ("grammar crates", crates.len()),
    ]
}

#[test]
fn the_counts_the_docs_state_are_the_datas() {
    let counted = counted_things();
    let mut wrong = Vec::new();
    for file in tracked_files() {
        if !file.ends_with(".md") || file.starts_with("tests/") {
            continue;
        }
        let text = std::fs::read_to_string(root().join(&file)).unwrap();
        for (n, line) in text.lines().enumerate() {
            let words: Vec<&str> = line.split(|c: char| !c.is_alphanumeric()).collect();
            for (i, number) in words.iter().enumerate() {
                let Ok(number) = number.parse::<usize>() else {
                    continue;
                };
                for (thing, count) in &counted {
                    let named = thing
                        .split(' ')
                        .enumerate()
                        .all(|(k, w)| words.get(i + 1 + k) == Some(&w));
                    if named && number != *count {
                        wrong.push(format!(
                            "{file}:{}: \"{number} {thing}\", the data has {count}",
                            n + 1
                        ));
                    }
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "counts in the docs that the data contradicts (grammars/*.toml decide them):\n{}",
        wrong.join("\n")
    );
}

/// Every language has its golden outline sample: `sample.<ext>` (or `Sample.<ext>`) beside its
/// expected `<file>.outline`, for one of its extensions.
#[test]
fn every_language_has_its_sample_fixture() {
    let dir = root().join("tests/fixtures/structure/outline");
    let mut missing = Vec::new();
    for language in entries("grammars/languages.toml", "language") {
        let extensions = language.get("extensions").and_then(|e| e.as_array());
        let has_sample = extensions.into_iter().flatten().any(|ext| {
            let ext = ext.as_str().unwrap();
            ["sample", "Sample"].iter().any(|stem| {
                let sample = dir.join(format!("{stem}.{ext}"));
                sample.exists() && dir.join(format!("{stem}.{ext}.outline")).exists()
            })
        });
        if !has_sample {
            missing.push(language["name"].as_str().unwrap().to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "languages without a golden sample in tests/fixtures/structure/outline/ (sample.EXT and \
         sample.EXT.outline; UPDATE_GOLDEN=1 cargo test --test structure writes the outline): {}",
        missing.join(", ")
    );
}

/// The scripts have one socket client, `scripts/coderd_bench.py`'s `Connection`: a script with a
/// copy of its own drifts from it (framing, waiting for the daemon, errors).
#[test]
fn the_scripts_have_one_socket_client() {
    let own_clients: Vec<String> = tracked_files()
        .into_iter()
        .filter(|f| f.starts_with("scripts/") && f != "scripts/coderd_bench.py")
        .filter(|f| {
            let text = std::fs::read_to_string(root().join(f)).unwrap_or_default();
            text.contains("AF_UNIX") || text.contains("socat") || text.contains("nc -U")
        })
        .collect();
    assert!(
        own_clients.is_empty(),
        "scripts with a socket client of their own (use coderd_bench.Connection): {}",
        own_clients.join(", ")
    );
}
