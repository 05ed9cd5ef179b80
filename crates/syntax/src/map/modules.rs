//! The module structure the languages themselves define, resolved to the tree's files, so that a
//! tie between two files is a real import and not two names that happen to be spelled alike:
//! Rust's module tree (`crate::a::b` → a/b.rs or a/b/mod.rs under the crate's src/, `self::`,
//! `super::`, a workspace crate by its package name), Go's import paths (through the module path the imports
//! themselves reveal) and Python's dotted and relative imports. Files group into units — a Rust
//! crate (the folder of its `Cargo.toml`), a Go package (a folder) — and units depend on units
//! (a `Cargo.toml`'s dependencies, and any resolved import between their files).
//!
//! Computed once per snapshot (`Structure::of`) from what tagging read (`imports`): nothing is
//! read here, so nothing outside the listed files (the jail's walk) is ever looked at. An edit that
//! changes none of what it reads — most edits: a body, a new function — keeps the last snapshot's
//! (`Structure::holds_after`), where building it again took 0.3 s of CPU at 200,000 files.

use super::index::FileTags;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::Arc;

/// The tree's files as imports tie them, by index into the snapshot's files.
#[derive(Default, PartialEq, Debug)]
pub struct Structure {
    /// Per file, the files it imports, each with its share of the import (`1 / n` when the import
    /// names a Go package of n files), sorted by file.
    imports: Vec<Vec<(u32, f64)>>,
    /// Per file, the files importing it, with the importer's share.
    importers: Vec<Vec<(u32, f64)>>,
    /// Per file, its unit (a Rust crate, a Go package), if its language has units.
    unit: Vec<Option<u32>>,
    /// Per file, its folder's number (files of one folder share it).
    folder: Vec<u32>,
    /// Per unit, the units it depends on, and those depending on it (sorted, unique).
    deps: Vec<Vec<u32>>,
    dependents: Vec<Vec<u32>>,
    /// Per unit, whether dependencies count transitively (a Rust crate: a change in `hir-def`
    /// reaches `ide` through `hir`) or only directly (a Go package, whose imports fan out wide).
    transitive: Vec<bool>,
}

/// The weights of structural ties (see `Structure::tie`).
pub struct Weights {
    /// A file a focus file imports, as much as this many specific names (`rank::name_weight`: 10).
    pub import: f64,
    /// A file importing a focus file.
    pub imported_by: f64,
    /// A name or module tie to a file in the focus file's own unit, outside its folder (which
    /// counts already), counts this much more.
    pub same_unit: f64,
    /// A name or module tie to a file whose unit neither depends on the focus file's nor is a
    /// dependency of it counts this much: a bare name shared across unrelated crates or packages
    /// is more likely a collision than a use.
    pub unrelated: f64,
}

/// The weights in force, chosen on the tuning repositories and tokio (docs/benchmarks.md, "Module
/// structure"): imports 5 / 10 / 20, importers 0 / 5 / 10, the same crate 1 / 1.5 / 2, unrelated
/// units 0.1 / 0.3 / 1 (the last changed nothing there; 0.3 was chosen before measuring).
pub const WEIGHTS: Weights = Weights {
    import: 5.0,
    imported_by: 5.0,
    same_unit: 1.5,
    unrelated: 0.3,
};

impl Structure {
    /// Whether the structure of a list of files is also that of `files`, the same paths with the
    /// files at `replaced`'s indexes replaced (each with its tags before): when no replaced file
    /// changed what `of` reads of it.
    pub fn holds_after(replaced: &[(usize, Arc<FileTags>)], files: &[Arc<FileTags>]) -> bool {
        replaced
            .iter()
            .all(|(at, before)| same_structure_inputs(before, &files[*at]))
    }

    pub fn of(files: &[Arc<FileTags>]) -> Structure {
        let mut units = Units::new(files);
        let unit: Vec<Option<u32>> = files.iter().map(|f| units.of_file(f, files)).collect();
        let resolver = Resolver::new(files, &units, &unit);
        // Each file's imports on its own (all cores), collected in file order.
        let imports: Vec<Vec<(u32, f64)>> = files
            .par_iter()
            .enumerate()
            .map(|(f, file)| {
                let mut list = Vec::new();
                for import in &file.imports {
                    let targets = resolver.resolve(f, import);
                    let share = 1.0 / targets.len().max(1) as f64;
                    list.extend(
                        targets
                            .into_iter()
                            .filter(|&t| t as usize != f)
                            .map(|t| (t, share)),
                    );
                }
                merge(&mut list);
                list
            })
            .collect();
        let mut importers: Vec<Vec<(u32, f64)>> = vec![Vec::new(); files.len()];
        let mut edges: Vec<(u32, u32)> = units.manifest_deps.clone();
        for (f, list) in imports.iter().enumerate() {
            for &(t, share) in list {
                importers[t as usize].push((f as u32, share));
                if let (Some(a), Some(b)) = (unit[f], unit[t as usize]) {
                    if a != b {
                        edges.push((a, b));
                    }
                }
            }
        }
        edges.sort_unstable();
        edges.dedup();
        let n = units.folders.len();
        let (mut deps, mut dependents) = (vec![Vec::new(); n], vec![Vec::new(); n]);
        for &(a, b) in &edges {
            deps[a as usize].push(b);
            dependents[b as usize].push(a);
        }
        let mut folders: HashMap<&str, u32> = HashMap::new();
        let folder = files
            .iter()
            .map(|f| {
                let next = folders.len() as u32;
                *folders.entry(folder(&f.rel)).or_insert(next)
            })
            .collect();
        Structure {
            imports,
            importers,
            unit,
            folder,
            deps,
            dependents,
            transitive: units.transitive,
        }
    }

    /// Adds the structural ties to `ties` (the name and module ties of `steer::neighbours`): the
    /// files the focus files import and those importing them, and the name ties weighed by where
    /// their file's unit stands to the focus files' units.
    pub fn tie(&self, focus: &[usize], ties: &mut [f64], weights: &Weights) {
        if focus.is_empty() || self.unit.len() != ties.len() {
            return;
        }
        let same: Vec<u32> = focus.iter().filter_map(|&f| self.unit[f]).collect();
        let related = self.related(&same);
        let focus_folders: Vec<u32> = focus.iter().map(|&f| self.folder[f]).collect();
        for (f, tie) in ties.iter_mut().enumerate() {
            let factor = match self.unit[f] {
                _ if same.is_empty() => 1.0,
                // The focus file's own folder counts already (`steer`); a Go package is one.
                Some(u) if same.contains(&u) && focus_folders.contains(&self.folder[f]) => 1.0,
                Some(u) if same.contains(&u) => weights.same_unit,
                Some(u) if related.binary_search(&u).is_ok() => 1.0,
                Some(_) => weights.unrelated,
                None => 1.0,
            };
            *tie *= factor;
        }
        for &f in focus {
            for &(t, share) in &self.imports[f] {
                ties[t as usize] += weights.import * share;
            }
            for &(t, share) in &self.importers[f] {
                ties[t as usize] += weights.imported_by * share;
            }
        }
        for &f in focus {
            ties[f] = 0.0;
        }
    }

    /// Whether a tie by a module's bare name between a focus file and another file is an import:
    /// always when the structure resolved none of the focus file's imports (a language it does not
    /// know, a tree it cannot read), else only when one imports the other.
    pub fn module_tie(&self, focus: usize, other: usize) -> bool {
        let Some(imports) = self.imports.get(focus) else {
            return true;
        };
        let has = |list: &[(u32, f64)]| list.binary_search_by_key(&(other as u32), |e| e.0).is_ok();
        imports.is_empty() || has(imports) || has(&self.importers[focus])
    }

    /// The units the focus units depend on or are depended on by (transitively for crates),
    /// sorted.
    fn related(&self, from: &[u32]) -> Vec<u32> {
        let mut seen = vec![false; self.deps.len()];
        for edges in [&self.deps, &self.dependents] {
            let mut stack: Vec<(u32, bool)> = from.iter().map(|&u| (u, true)).collect();
            while let Some((u, first)) = stack.pop() {
                if !first && !self.transitive[u as usize] {
                    continue;
                }
                for &next in &edges[u as usize] {
                    if !seen[next as usize] {
                        seen[next as usize] = true;
                        stack.push((next, false));
                    }
                }
            }
        }
        (0..seen.len() as u32)
            .filter(|&u| seen[u as usize])
            .collect()
    }
}

/// Sorts by file and sums the shares of a file imported more than once.
fn merge(list: &mut Vec<(u32, f64)>) {
    list.sort_by_key(|&(t, _)| t);
    let mut out: Vec<(u32, f64)> = Vec::with_capacity(list.len());
    for &(t, share) in list.iter() {
        match out.last_mut() {
            Some(last) if last.0 == t => last.1 += share,
            _ => out.push((t, share)),
        }
    }
    *list = out;
}

/// The units of a tree: Rust crates by the folder of their `Cargo.toml` (a Rust file outside any
/// is in the crate of the folder above its `src/`), Go packages by folder.
#[derive(Default)]
struct Units {
    /// Per unit, its key: the language family and folder.
    folders: Vec<(&'static str, String)>,
    by_folder: HashMap<(&'static str, String), u32>,
    transitive: Vec<bool>,
    /// Rust crates by the name code uses for them (`-` as `_`), from `[package] name`.
    crate_names: HashMap<String, u32>,
    /// Dependencies a manifest names, once every crate is known.
    manifest_deps: Vec<(u32, u32)>,
}

impl Units {
    /// The crates the manifests among `files` name (`[package] name`, `-` as `_`) and the
    /// dependencies between them.
    fn new(files: &[Arc<FileTags>]) -> Units {
        let mut units = Units::default();
        let mut packages: HashMap<&str, u32> = HashMap::new();
        let manifests: Vec<&FileTags> = files
            .iter()
            .filter(|f| is_manifest(&f.rel))
            .map(|f| &**f)
            .collect();
        for manifest in &manifests {
            let u = units.get("rust", folder(&manifest.rel));
            for name in manifest
                .imports
                .iter()
                .filter_map(|i| i.strip_prefix("package:"))
            {
                packages.insert(name, u);
                units.crate_names.insert(name.replace('-', "_"), u);
            }
        }
        for manifest in &manifests {
            let u = units.get("rust", folder(&manifest.rel));
            for dep in manifest
                .imports
                .iter()
                .filter_map(|i| i.strip_prefix("dep:"))
            {
                let package = dep.split_once('=').map_or(dep, |(_, p)| p);
                match packages.get(package) {
                    Some(&v) if v != u => units.manifest_deps.push((u, v)),
                    _ => {}
                }
            }
        }
        units
    }

    fn get(&mut self, language: &'static str, folder: &str) -> u32 {
        let key = (language, folder.to_owned());
        if let Some(&u) = self.by_folder.get(&key) {
            return u;
        }
        let u = self.folders.len() as u32;
        self.folders.push(key.clone());
        self.by_folder.insert(key, u);
        self.transitive.push(language == "rust");
        u
    }

    fn of_file(&mut self, file: &FileTags, files: &[Arc<FileTags>]) -> Option<u32> {
        match file.language {
            "go" => Some(self.get("go", folder(&file.rel))),
            "rust" => Some(self.get("rust", crate_folder(&file.rel, files))),
            _ => None,
        }
    }
}

fn is_manifest(rel: &str) -> bool {
    rel == "Cargo.toml" || rel.ends_with("/Cargo.toml")
}

/// The folder of the nearest `Cargo.toml` above a Rust file (the files are sorted, so each
/// candidate is a binary search), else the folder above its `src/`.
fn crate_folder<'a>(rel: &'a str, files: &[Arc<FileTags>]) -> &'a str {
    let mut dir = folder(rel);
    loop {
        let manifest = match dir {
            "" => "Cargo.toml".to_owned(),
            dir => format!("{dir}/Cargo.toml"),
        };
        if files
            .binary_search_by(|f| f.rel.as_str().cmp(&manifest))
            .is_ok()
        {
            return dir;
        }
        if dir.is_empty() {
            break;
        }
        dir = folder(dir);
    }
    match rel.rfind("/src/") {
        Some(at) => &rel[..at],
        None if rel.starts_with("src/") => "",
        None => folder(rel),
    }
}

/// A file's folder (`""` at the top).
fn folder(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// Import paths to files.
struct Resolver<'a> {
    files: &'a [Arc<FileTags>],
    unit: &'a [Option<u32>],
    crate_names: &'a HashMap<String, u32>,
    /// Rust: (crate, module path `a::b`) → the file defining the module.
    rust_modules: HashMap<(u32, u64), u32>,
    /// Rust: per file, its module path in its crate.
    rust_paths: Vec<String>,
    /// Rust: per file, the hashes of its imports' last segments with the import's index, sorted:
    /// where a path through the file's module (`hir::HirDisplay`) goes on (`re_export`).
    rust_last: Vec<Vec<(u64, u16)>>,
    /// Go: package folder → its files.
    go_packages: HashMap<&'a str, Vec<u32>>,
    /// Go: the module paths of the tree (`github.com/prometheus/prometheus`).
    go_modules: Vec<String>,
    /// Python: a dotted module name, and every shorter one with leading folders left out (a `src/`
    /// layout), → the file, the one with the fewest folders left out winning.
    python_modules: HashMap<String, (usize, u32)>,
}

impl<'a> Resolver<'a> {
    fn new(files: &'a [Arc<FileTags>], units: &'a Units, unit: &'a [Option<u32>]) -> Self {
        let mut rust_modules = HashMap::new();
        let mut rust_paths = vec![String::new(); files.len()];
        let mut go_packages: HashMap<&str, Vec<u32>> = HashMap::new();
        let mut python_modules: HashMap<String, (usize, u32)> = HashMap::new();
        for (f, file) in files.iter().enumerate() {
            match (file.language, unit[f]) {
                ("rust", Some(u)) => {
                    let path = rust_module_path(&file.rel, &units.folders[u as usize].1);
                    let hash = path
                        .split("::")
                        .filter(|s| !s.is_empty())
                        .fold(ROOT, path_hash);
                    rust_modules.entry((u, hash)).or_insert(f as u32);
                    rust_paths[f] = path;
                }
                ("go", _) => go_packages
                    .entry(folder(&file.rel))
                    .or_default()
                    .push(f as u32),
                ("python", _) => {
                    let dotted = python_module(&file.rel);
                    let parts: Vec<&str> = dotted.split('.').collect();
                    // By its path from the root, and from the folder above its top package
                    // (the outermost folder of `__init__.py` files around it: a `src/` layout).
                    for left_out in [0, python_root_depth(&file.rel, files)] {
                        let name = parts[left_out.min(parts.len())..].join(".");
                        let entry = python_modules.entry(name).or_insert((left_out, f as u32));
                        if left_out < entry.0 {
                            *entry = (left_out, f as u32);
                        }
                    }
                }
                _ => {}
            }
        }
        let go_modules = go_module_paths(files, &go_packages);
        let rust_last = files
            .par_iter()
            .map(|file| match file.language {
                "rust" => last_segments(&file.imports),
                _ => Vec::new(),
            })
            .collect();
        Resolver {
            files,
            unit,
            crate_names: &units.crate_names,
            rust_modules,
            rust_paths,
            rust_last,
            go_packages,
            go_modules,
            python_modules,
        }
    }

    fn resolve(&self, from: usize, import: &str) -> Vec<u32> {
        let file = &self.files[from];
        match file.language {
            "rust" => self.rust_item(from, import).into_iter().collect(),
            "go" => self
                .go_modules
                .iter()
                .find_map(|m| match import.strip_prefix(m.as_str())? {
                    "" => Some(""),
                    rest => rest.strip_prefix('/'),
                })
                .and_then(|pkg| self.go_packages.get(pkg))
                .cloned()
                .unwrap_or_default(),
            "python" => self.python(&file.rel, import).into_iter().collect(),
            _ => Vec::new(),
        }
    }

    /// The file defining what a Rust path names, from the file `from`: its longest module prefix,
    /// then through that module's re-exports (`pub use hir_ty::display::HirDisplay` in `hir`'s
    /// lib.rs makes `hir::HirDisplay` hir-ty's display.rs), at most `MAX_HOPS` of them (a cycle
    /// of `use`s ends there too).
    fn rust_item(&self, from: usize, import: &str) -> Option<u32> {
        let segments: Vec<&str> = import.split("::").collect();
        let (mut file, consumed) = self.rust(from, &segments)?;
        let mut rest: Vec<&str> = segments[consumed..].to_vec();
        for _ in 0..MAX_HOPS {
            let Some(&name) = rest.first() else { break };
            let Some(path) = self.re_export(file as usize, name) else {
                break;
            };
            let path: Vec<&str> = path.split("::").collect();
            let Some((next, consumed)) = self.rust(file as usize, &path) else {
                break;
            };
            if next == file {
                break;
            }
            // `pub use a::b::C` → C's file with nothing left; `pub use a::m` (a module) → m's
            // file, with what followed the module's name still to look up there.
            rest.splice(..1, path[consumed..].iter().copied());
            file = next;
        }
        Some(file)
    }

    /// The path a file's `use` gives for `name` when the file does not define `name` itself:
    /// a path through the module to `name` then goes on from there.
    fn re_export(&self, file: usize, name: &str) -> Option<&'a str> {
        let last = &self.rust_last[file];
        let at = last.partition_point(|e| e.0 < segment_hash(name));
        let &(hash, index) = last.get(at)?;
        let path = self.files[file].imports.get(index as usize)?;
        let defines = || defines_rust_name(&self.files[file], name);
        (hash == segment_hash(name) && path.rsplit("::").next() == Some(name) && !defines())
            .then_some(path.as_str())
    }

    /// The file defining the longest module prefix of a Rust path, from the file `from`, and how
    /// many of the path's segments that prefix takes.
    fn rust(&self, from: usize, segments: &[&str]) -> Option<(u32, usize)> {
        let here = self.unit[from]?;
        let own = self.rust_path_of(from);
        // `skip`: the segments the anchor takes (`crate`, `super::super`, a crate's name).
        let (krate, base, skip, anchored): (u32, &[&str], usize, bool) = match *segments.first()? {
            "crate" => (here, &[], 1, true),
            "self" => (here, &own, 1, true),
            "super" => {
                let supers = segments.iter().take_while(|s| **s == "super").count();
                let keep = own.len().checked_sub(supers)?;
                (here, &own[..keep], supers, true)
            }
            name => match self.crate_names.get(name) {
                Some(&krate) => (krate, &[], 1, true),
                // A module in scope (`use a::b` inside the module that declares `a`).
                None => (here, &own, 0, false),
            },
        };
        // The longest prefix naming a module, looked up by the paths' hashes (no string built).
        let base_hash = base.iter().fold(ROOT, |h, s| path_hash(h, s));
        let mut found = anchored
            .then(|| {
                self.rust_modules
                    .get(&(krate, base_hash))
                    .map(|&f| (f, skip))
            })
            .flatten();
        let mut hash = base_hash;
        for (i, segment) in segments.iter().enumerate().skip(skip) {
            hash = path_hash(hash, segment);
            if let Some(&f) = self.rust_modules.get(&(krate, hash)) {
                found = Some((f, i + 1));
            }
        }
        found
    }

    fn rust_path_of(&self, f: usize) -> Vec<&str> {
        let path = self.rust_paths[f].as_str();
        path.split("::").filter(|s| !s.is_empty()).collect()
    }

    /// A Python module: `.x.y` from the importing file's package, else by its dotted name.
    fn python(&self, rel: &str, import: &str) -> Option<u32> {
        let dots = import.len() - import.trim_start_matches('.').len();
        let name = if dots > 0 {
            let mut package: Vec<&str> = folder(rel).split('/').filter(|s| !s.is_empty()).collect();
            package.truncate(package.len().checked_sub(dots - 1)?);
            let rest = &import[dots..];
            package.extend(rest.split('.').filter(|s| !s.is_empty()));
            package.join(".")
        } else {
            import.to_owned()
        };
        self.python_modules.get(&name).map(|&(_, f)| f)
    }
}

/// How many re-exports a Rust path is followed through (`ide` → `hir` → `hir_ty` is one; a
/// chain of facades is rarely longer).
const MAX_HOPS: usize = 4;

/// Whether `of` reads the same of two versions of a file (the same path): its language, its
/// imports, and — for a Rust file — which of its imports' last names it defines itself (what
/// `Resolver::re_export` asks of it; any other name it defines, it never asks).
fn same_structure_inputs(a: &FileTags, b: &FileTags) -> bool {
    a.language == b.language
        && a.imports == b.imports
        && (a.language != "rust" || defines_last(a).eq(defines_last(b)))
}

/// Per import of a file, whether the file defines the import's last name.
fn defines_last(file: &FileTags) -> impl Iterator<Item = bool> + '_ {
    file.imports.iter().map(|path| {
        let last = path.rsplit("::").next();
        last.is_some_and(|name| defines_rust_name(file, name))
    })
}

/// Whether a Rust file defines an item named `name`.
fn defines_rust_name(file: &FileTags, name: &str) -> bool {
    file.item_ids.contains(&super::rank::name_id("rust", name))
}

/// Per import (by index), the hash of its last segment, sorted (the first import of a name first).
fn last_segments(imports: &[String]) -> Vec<(u64, u16)> {
    let mut out: Vec<(u64, u16)> = imports
        .iter()
        .enumerate()
        .filter_map(|(i, path)| {
            Some((
                segment_hash(path.rsplit("::").next()?),
                u16::try_from(i).ok()?,
            ))
        })
        .collect();
    out.sort_unstable();
    out
}

fn segment_hash(segment: &str) -> u64 {
    path_hash(ROOT, segment)
}

/// The hash of a crate's root module path; `path_hash` extends a path's hash by one segment (a
/// fixed seed: the same in every process; two module paths of a tree sharing one is a 1 in 10^15
/// chance).
const ROOT: u64 = 0x6d6f_6475_6c65;

fn path_hash(hash: u64, segment: &str) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(ROOT).hash_one((hash, segment))
}

/// A Rust file's module path in its crate: a/b.rs and a/b/mod.rs under src/ are `a::b`,
/// `src/lib.rs` and `src/main.rs` the root (`""`).
fn rust_module_path(rel: &str, crate_folder: &str) -> String {
    let inside = match crate_folder {
        "" => rel,
        dir => rel
            .strip_prefix(dir)
            .map_or(rel, |r| r.trim_start_matches('/')),
    };
    let inside = inside.strip_prefix("src/").unwrap_or(inside);
    let inside = inside.strip_suffix(".rs").unwrap_or(inside);
    let mut parts: Vec<&str> = inside.split('/').collect();
    if matches!(parts.as_slice(), ["lib"] | ["main"]) || parts.last() == Some(&"mod") {
        parts.pop();
    }
    parts.join("::")
}

/// How many leading folders of a Python file are above its top package: the folders from the
/// file's own up to the outermost one holding an `__init__.py` are packages.
fn python_root_depth(rel: &str, files: &[Arc<FileTags>]) -> usize {
    let mut dir = folder(rel);
    let is_package = |dir: &str| {
        let init = format!("{dir}/__init__.py");
        files
            .binary_search_by(|f| f.rel.as_str().cmp(&init))
            .is_ok()
    };
    while !dir.is_empty() && is_package(dir) {
        dir = folder(dir);
    }
    match dir {
        "" => 0,
        dir => dir.split('/').count(),
    }
}

/// A Python file's dotted module name (`a/b/__init__.py` is `a.b`).
fn python_module(rel: &str) -> String {
    let stem = rel
        .strip_suffix(".pyi")
        .or_else(|| rel.strip_suffix(".py"))
        .unwrap_or(rel);
    let stem = stem.strip_suffix("/__init__").unwrap_or(stem);
    stem.replace('/', ".")
}

/// The Go module paths of the tree, as its own imports reveal them: an import path that ends with a
/// package folder of the tree (`…/promql/parser` and `promql/parser/`) names a module path (what
/// comes before the folder); one named by imports of at least two different folders is the tree's
/// (a single match may be another module's package that happens to share a folder's name), or the
/// only one named at all. Longest first, so a nested module wins over the one around it.
fn go_module_paths(files: &[Arc<FileTags>], packages: &HashMap<&str, Vec<u32>>) -> Vec<String> {
    let mut votes: HashMap<&str, Vec<&str>> = HashMap::new();
    for file in files.iter().filter(|f| f.language == "go") {
        for import in &file.imports {
            let mut at = import.len();
            while let Some(slash) = import[..at].rfind('/') {
                let (module, package) = (&import[..slash], &import[slash + 1..]);
                if packages.contains_key(package) {
                    votes.entry(module).or_default().push(package);
                }
                at = slash;
            }
        }
    }
    let mut modules: Vec<(&str, usize)> = votes
        .into_iter()
        .map(|(module, mut packages)| {
            packages.sort_unstable();
            packages.dedup();
            (module, packages.len())
        })
        .collect();
    let only = modules.len() == 1;
    modules.retain(|&(_, n)| n >= 2 || only);
    let mut modules: Vec<String> = modules.into_iter().map(|(m, _)| m.to_owned()).collect();
    modules.sort_unstable_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    modules
}

#[cfg(test)]
mod tests;
