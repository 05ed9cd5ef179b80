//! Builds two tables of data into the binary, so that a new language needs no Rust code:
//! - the query files under `queries/<language>/<kind>.scm` (`OUT_DIR/queries.rs`);
//! - the grammars of `grammars/grammars.toml` (`OUT_DIR/grammars.rs`): each is compiled from its
//!   crate's generated C sources into a shared object and deflated. Their parse tables are mostly
//!   zeros, so 23 MB of grammars take 2.2 MB of the binary; `crates/syntax/src/grammars.rs` writes one
//!   to a cache file named by its hash the first time a file needs it, and loads it from there.
//!
//! The grammar crates' sources are found without asking cargo (no nested `cargo` call, which
//! could reach the network): Cargo.lock pins each crate's version, and `cargo fetch` (or
//! `cargo vendor`) has put its sources where cargo always puts them.

use std::collections::HashMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

fn main() {
    let manifest = PathBuf::from(env("CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(env("OUT_DIR"));
    // The queries and the grammar table are the workspace's data, at its top beside Cargo.lock.
    let top = workspace_top(&manifest);
    let queries = top.join("queries");
    let table = top.join("grammars/grammars.toml");
    // Every path this script prints or writes into the generated code is relative (to the package or
    // to OUT_DIR): a checkout moved, or a target folder copied to another worktree, then builds
    // its own queries, not the first checkout's.
    let up = path_up(&manifest, &top);
    println!("cargo:rerun-if-changed={up}queries");
    println!("cargo:rerun-if-changed={up}grammars/grammars.toml");
    // Where the grammar crates' sources were found (cargo's registry folder, or a vendor folder
    // that a `.cargo/config.toml` names) does not change what is built from them: Cargo.lock
    // pins each crate's version, and a published version's sources are the same bytes wherever
    // they are unpacked. So the lock, the table and the queries are watched, never the files
    // cargo's configuration might live in: a `rerun-if-changed` on a file that does not exist
    // reruns this script, and so recompiles the daemon, on every build.
    println!("cargo:rerun-if-env-changed={SOURCES_VAR}");
    write_query_table(&queries, &up, &out);
    write_grammar_pack(&manifest, &table, &out);
}

/// The workspace's top folder: the nearest one above this package holding Cargo.lock.
fn workspace_top(manifest: &Path) -> PathBuf {
    manifest
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").is_file())
        .expect("a Cargo.lock in the package's folder or above it (build with --locked)")
        .to_path_buf()
}

/// A folder holding the grammar crates' sources (`<name>-<version>/` or `<name>/`), looked in
/// first: for a build whose sources are neither in cargo's registry folder nor in a vendor
/// folder that a `.cargo/config.toml` names.
const SOURCES_VAR: &str = "CODERD_GRAMMAR_SOURCES";

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("cargo sets {name} for build scripts"))
}

/// The way up from the package's folder to `top`, one `../` per level (`""` when they are one).
fn path_up(manifest: &Path, top: &Path) -> String {
    let below = manifest
        .strip_prefix(top)
        .expect("the workspace's top holds the package");
    "../".repeat(below.components().count())
}

/// A file name as UTF-8, for the generated code.
fn file_name(path: &Path) -> &str {
    path.file_name()
        .and_then(|n| n.to_str())
        .expect("utf-8 file name")
}

fn write_query_table(queries: &Path, up: &str, out: &Path) {
    let mut table =
        String::from("/// (language, query kind, text) for every queries/<language>/<kind>.scm.\n");
    table.push_str("pub static QUERY_FILES: &[(&str, &str, &str)] = &[\n");
    for language in sorted_entries(queries) {
        let Some(name) = language.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        for file in sorted_entries(&language) {
            if file.extension().and_then(|e| e.to_str()) != Some("scm") {
                continue;
            }
            let kind = file
                .file_stem()
                .and_then(|s| s.to_str())
                .expect("utf-8 file name");
            let relative = format!("/{up}queries/{name}/{}", file_name(&file));
            writeln!(
                table,
                "    ({name:?}, {kind:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), {relative:?}))),"
            )
            .expect("writing to a String");
        }
    }
    table.push_str("];\n");
    std::fs::write(out.join("queries.rs"), table).expect("writing OUT_DIR/queries.rs");
}

fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    entries.sort();
    entries
}

/// One `[[grammar]]` of grammars/grammars.toml.
struct Grammar {
    id: String,
    package: String,
    dir: String,
    symbol: String,
}

/// Where a grammar's sources are and what its shared object became.
struct Built {
    sources: String,
    size: usize,
    /// The BLAKE3 hash of the shared object, hex: the name of its cache file.
    hash: String,
    deflated: PathBuf,
}

/// The serialization buffer the grammars' external scanners are told they have: 16 bytes less
/// than the 1024 tree-sitter gives them. Some scanners check the room before each entry of their
/// stack but write several bytes per entry (tree-sitter-yaml 0.7.2: an indentation 254 levels deep
/// writes 1,026 bytes), and tree-sitter then aborts the process on its length assertion (or,
/// without assertions, has had its buffer overrun): one hostile file took the daemon down.
const SCANNER_BUFFER: usize = 1008;

/// The header given to every grammar's compile before its sources (`-include`): the grammar's own
/// `tree_sitter/parser.h` (its include guard makes the sources' own inclusion a no-op), then the
/// smaller buffer size.
fn write_scanner_buffer_header(pack_dir: &Path) -> PathBuf {
    let header = pack_dir.join("scanner_buffer.h");
    let text = format!(
        "/* Written by crates/syntax/build.rs: see SCANNER_BUFFER there. */\n\
         #include \"tree_sitter/parser.h\"\n\
         #undef TREE_SITTER_SERIALIZATION_BUFFER_SIZE\n\
         #define TREE_SITTER_SERIALIZATION_BUFFER_SIZE {SCANNER_BUFFER}\n"
    );
    write_atomically(&header, text.as_bytes());
    header
}

fn write_grammar_pack(manifest: &Path, table: &Path, out: &Path) {
    let grammars = read_grammar_table(table);
    let packages = grammar_sources(manifest, &grammars);
    let pack_dir = out.join("grammars");
    std::fs::create_dir_all(&pack_dir).expect("creating OUT_DIR/grammars");
    let header = write_scanner_buffer_header(&pack_dir);
    let built = build_all(&grammars, &packages, &pack_dir, &header);
    let mut table = String::from(
        "/// Every grammar of grammars/grammars.toml: its shared object, deflated.\n\
         pub static GRAMMAR_PACK: &[Packed] = &[\n",
    );
    for (grammar, built) in grammars.iter().zip(built) {
        writeln!(
            table,
            "    Packed {{ id: {:?}, symbol: {:?}, sources: {:?}, size: {}, hash: {:?}, deflated: include_bytes!(concat!(env!(\"OUT_DIR\"), \"/grammars/{}\")) }},",
            grammar.id,
            grammar.symbol,
            built.sources,
            built.size,
            built.hash,
            file_name(&built.deflated)
        )
        .expect("writing to a String");
    }
    table.push_str("];\n");
    std::fs::write(out.join("grammars.rs"), table).expect("writing OUT_DIR/grammars.rs");
}

fn read_grammar_table(path: &Path) -> Vec<Grammar> {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let table: toml::Table = text
        .parse()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let field = |entry: &toml::Value, key: &str| -> String {
        entry
            .get(key)
            .and_then(toml::Value::as_str)
            .unwrap_or_else(|| panic!("{}: a [[grammar]] lacks `{key}`", path.display()))
            .to_owned()
    };
    table
        .get("grammar")
        .and_then(toml::Value::as_array)
        .unwrap_or_else(|| panic!("{}: no [[grammar]] entries", path.display()))
        .iter()
        .map(|entry| Grammar {
            id: field(entry, "id"),
            package: field(entry, "crate"),
            dir: field(entry, "dir"),
            symbol: field(entry, "symbol"),
        })
        .collect()
}

/// The folder and version of each grammar crate. Cargo.lock pins the version (the crates are
/// dependencies of a target no platform matches, so that the lock holds them and `cargo fetch`
/// downloads them while no build compiles them); the sources are then looked for in
/// `$CODERD_GRAMMAR_SOURCES`, in the vendor folders that `.cargo/config.toml` files name (what
/// `cargo vendor` sets up), and in cargo's registry folder.
fn grammar_sources(manifest: &Path, grammars: &[Grammar]) -> HashMap<String, (PathBuf, String)> {
    let top = workspace_top(manifest);
    let lock = top.join("Cargo.lock");
    println!(
        "cargo:rerun-if-changed={}Cargo.lock",
        path_up(manifest, &top)
    );
    let locked = locked_versions(&lock);
    let roots = source_roots(manifest);
    let mut found = HashMap::new();
    for grammar in grammars {
        if found.contains_key(&grammar.package) {
            continue;
        }
        let version = locked.get(&grammar.package).unwrap_or_else(|| {
            panic!(
                "grammar `{}`: crate `{}` is not in Cargo.lock; list it under \
                 [target.'cfg(any())'.dependencies] in Cargo.toml",
                grammar.id, grammar.package
            )
        });
        let dir = roots
            .iter()
            .find_map(|root| crate_dir(root, &grammar.package, version))
            .unwrap_or_else(|| {
                let looked: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
                panic!(
                    "grammar `{}`: the sources of {} {version} are not on this machine; run \
                     `cargo fetch --locked` (it downloads the grammar crates, which a build does \
                     not), or `cargo vendor`. Looked in: {}",
                    grammar.id,
                    grammar.package,
                    looked.join(", ")
                )
            });
        found.insert(grammar.package.clone(), (dir, version.clone()));
    }
    found
}

/// Each registry package's version in Cargo.lock, by name (a name locked at two versions is
/// refused: the grammar table names crates, not versions).
fn locked_versions(lock: &Path) -> HashMap<String, String> {
    let text =
        std::fs::read_to_string(lock).unwrap_or_else(|e| panic!("reading {}: {e}", lock.display()));
    let table: toml::Table = text
        .parse()
        .unwrap_or_else(|e| panic!("{}: {e}", lock.display()));
    let mut versions: HashMap<String, String> = HashMap::new();
    let mut twice = Vec::new();
    for package in table
        .get("package")
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
    {
        let field = |key: &str| package.get(key).and_then(toml::Value::as_str);
        let (Some(name), Some(version), Some(source)) =
            (field("name"), field("version"), field("source"))
        else {
            continue;
        };
        if !source.starts_with("registry+") && !source.starts_with("sparse+") {
            continue;
        }
        if versions
            .insert(name.to_owned(), version.to_owned())
            .is_some()
        {
            twice.push(name.to_owned());
        }
    }
    for name in twice {
        versions.remove(&name);
    }
    versions
}

/// The folders that may hold a crate's sources, in the order they are tried.
fn source_roots(manifest: &Path) -> Vec<PathBuf> {
    let mut roots = Vec::new();
    if let Some(dir) = std::env::var_os(SOURCES_VAR).filter(|v| !v.is_empty()) {
        roots.push(PathBuf::from(dir));
    }
    let cargo_home = std::env::var_os("CARGO_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    // Cargo reads .cargo/config.toml in the package's folder and every folder above it, then in
    // CARGO_HOME; a `directory` source (`cargo vendor`) is relative to the folder holding .cargo.
    let mut configs: Vec<(PathBuf, PathBuf)> = manifest
        .ancestors()
        .map(|dir| (dir.join(".cargo"), dir.to_path_buf()))
        .collect();
    if let Some(home) = &cargo_home {
        configs.push((home.clone(), home.parent().unwrap_or(home).to_path_buf()));
    }
    for (dot_cargo, base) in configs {
        for name in ["config.toml", "config"] {
            let file = dot_cargo.join(name);
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            let Ok(table) = text.parse::<toml::Table>() else {
                continue;
            };
            let sources = table.get("source").and_then(toml::Value::as_table);
            for source in sources.into_iter().flat_map(|s| s.values()) {
                if let Some(dir) = source.get("directory").and_then(toml::Value::as_str) {
                    roots.push(base.join(dir));
                }
            }
        }
    }
    if let Some(home) = cargo_home {
        // One folder per registry index: `registry/src/index.crates.io-<hash>/`. With none, the
        // pattern stays in the list for the message that nothing was found.
        let registry = home.join("registry").join("src");
        let indexes = sorted_entries(&registry);
        if indexes.is_empty() {
            roots.push(registry.join("*"));
        }
        roots.extend(indexes);
    }
    roots
}

/// `<root>/<name>-<version>` when cargo finished unpacking it there (its `.cargo-ok` marker), or
/// a vendored `<root>/<name>-<version>` or `<root>/<name>` whose Cargo.toml has this version.
fn crate_dir(root: &Path, name: &str, version: &str) -> Option<PathBuf> {
    let versioned = root.join(format!("{name}-{version}"));
    if versioned.join(".cargo-ok").is_file() {
        return Some(versioned);
    }
    [versioned, root.join(name)]
        .into_iter()
        .find(|dir| manifest_version(dir).as_deref() == Some(version))
}

fn manifest_version(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join("Cargo.toml")).ok()?;
    let table: toml::Table = text.parse().ok()?;
    let version = table.get("package")?.get("version")?.as_str()?;
    Some(version.to_owned())
}

/// Builds every grammar, as many at once as cargo gives this build jobs.
fn build_all(
    grammars: &[Grammar],
    packages: &HashMap<String, (PathBuf, String)>,
    pack_dir: &Path,
    header: &Path,
) -> Vec<Built> {
    let jobs = std::env::var("NUM_JOBS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2usize)
        .clamp(1, grammars.len().max(1));
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Built>>> =
        Mutex::new((0..grammars.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(grammar) = grammars.get(index) else {
                    break;
                };
                let built = build_one(grammar, packages, pack_dir, header);
                results.lock().expect("no builder panicked")[index] = Some(built);
            });
        }
    });
    results
        .into_inner()
        .expect("no builder panicked")
        .into_iter()
        .map(|b| b.expect("every grammar built"))
        .collect()
}

/// Compiles one grammar into a shared object and deflates it, unless this build already did
/// (the file name carries the crate's version and the optimisation level).
fn build_one(
    grammar: &Grammar,
    packages: &HashMap<String, (PathBuf, String)>,
    pack_dir: &Path,
    header: &Path,
) -> Built {
    let (package_dir, version) = packages.get(&grammar.package).unwrap_or_else(|| {
        panic!(
            "grammar `{}`: crate `{}` is not a dependency in Cargo.toml",
            grammar.id, grammar.package
        )
    });
    // Parse tables are data and lexers are long switch statements: size is what optimising
    // buys here, and debug builds keep -O0 so that tests compile quickly.
    let opt_level = if env("OPT_LEVEL") == "0" { "0" } else { "s" };
    let stem = format!(
        "{}-{}-{}-O{opt_level}-b{SCANNER_BUFFER}",
        grammar.id, grammar.package, version
    );
    let deflated = pack_dir.join(format!("{stem}.so.deflate"));
    let shared = pack_dir.join(format!("{stem}.so"));
    let hash_file = pack_dir.join(format!("{stem}.so.blake3"));
    // All three are renamed into place when complete, the hash last.
    if !hash_file.exists() {
        let sources = package_dir.join(&grammar.dir);
        compile(grammar, &sources, header, opt_level, &shared);
        let image = std::fs::read(&shared).expect("reading the compiled grammar");
        let packed = miniz_oxide::deflate::compress_to_vec(&image, 9);
        write_atomically(&deflated, &packed);
        write_atomically(&hash_file, blake3::hash(&image).to_hex().as_bytes());
    }
    let size = std::fs::metadata(&shared)
        .expect("the compiled grammar")
        .len() as usize;
    let hash = std::fs::read_to_string(&hash_file).expect("reading the grammar's hash");
    Built {
        sources: format!("{} {version}", grammar.package),
        size,
        hash,
        deflated,
    }
}

fn write_atomically(path: &Path, bytes: &[u8]) {
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    let partial = PathBuf::from(partial);
    std::fs::write(&partial, bytes)
        .unwrap_or_else(|e| panic!("writing {}: {e}", partial.display()));
    std::fs::rename(&partial, path)
        .unwrap_or_else(|e| panic!("renaming {}: {e}", partial.display()));
}

fn compile(grammar: &Grammar, source_dir: &Path, header: &Path, opt_level: &str, shared: &Path) {
    let compiler = cc::Build::new()
        .opt_level_str(opt_level)
        .debug(false)
        .pic(true)
        .cargo_metadata(false)
        .get_compiler();
    let mut command = compiler.to_command();
    command
        .args(["-shared", "-std=c11", "-w", "-Wl,--gc-sections", "-Wl,-s"])
        .arg("-I")
        .arg(source_dir)
        .arg("-include")
        .arg(header)
        .arg(source_dir.join("parser.c"));
    let scanner = source_dir.join("scanner.c");
    if scanner.exists() {
        command.arg(scanner);
    }
    let partial = shared.with_extension("so.partial");
    command.arg("-o").arg(&partial);
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("grammar `{}`: running {command:?}: {e}", grammar.id));
    assert!(
        output.status.success(),
        "grammar `{}`: {command:?} failed:\n{}",
        grammar.id,
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::rename(&partial, shared).expect("renaming the compiled grammar");
}
