//! Language servers run inside the sandbox, and `lsp.trust` is config (issue 32, items 1-2), with
//! real servers (scripts/install-language-servers.sh): a Cargo project whose build script tries
//! to write outside the roots and to copy the workspace's `.env` into it, and a workspace
//! `node_modules/typescript/lib/tsserver.js` that tries the same, in both trust levels. Nothing
//! lands outside, no byte of the secret lands in the workspace, and the type error in the
//! project's code is still diagnosed. Every wait polls for a state, with a cap.

use crate::common;

use common::{Daemon, Sandbox};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const SECRET: &str = "sup3r-s3cret-5e7a";

/// How long a cold server may take to diagnose on a busy machine.
const CAP: Duration = Duration::from_secs(180);

fn config(trust: &str) -> String {
    format!("lsp:\n  trust: {trust}\n  warm_deadline_ms: 60000\n  cold_deadline_ms: 90000\n")
}

/// Waits until `probe` gives something, or panics after `CAP` with `what`.
fn poll<T>(what: &str, mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + CAP;
    loop {
        if let Some(found) = probe() {
            return found;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The `diagnostics` answer for `file` once it lists an error whose message has `message`.
fn wait_for_error(daemon: &Daemon, file: &Path, message: &str) -> Value {
    let deadline = Instant::now() + CAP;
    loop {
        let answer = daemon.ok("diagnostics", json!({"files": [file]}));
        let items = answer["files"][0]["items"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let has = |i: &Value| {
            i["severity"] == "error" && i["message"].as_str().is_some_and(|m| m.contains(message))
        };
        if items.iter().any(has) {
            return answer;
        }
        assert!(
            Instant::now() < deadline,
            "no `{message}` by the cap: {answer}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Every file under `dir` (symlinks not followed) whose bytes hold `needle`.
fn files_holding(dir: &Path, needle: &[u8]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() {
                let bytes = std::fs::read(&path).unwrap_or_default();
                if bytes.windows(needle.len()).any(|w| w == needle) {
                    found.push(path);
                }
            }
        }
    }
    found
}

/// Files named `name` anywhere under `dir`.
fn named(dir: &Path, name: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => stack.push(path),
                _ if entry.file_name() == name => found.push(path),
                _ => {}
            }
        }
    }
    found
}

/// No marker outside, and the secret only in `.env` itself.
fn assert_contained(sandbox: &Sandbox, outside_marker: &Path) {
    assert!(
        !outside_marker.exists(),
        "a server's child wrote outside the roots: {}",
        outside_marker.display()
    );
    let env_file = sandbox.root.join(".env");
    let copies: Vec<PathBuf> = files_holding(&sandbox.root, SECRET.as_bytes())
        .into_iter()
        .filter(|p| *p != env_file)
        .collect();
    assert!(copies.is_empty(), "the secret was copied: {copies:?}");
}

fn server<'a>(info: &'a Value, name: &str) -> &'a Value {
    info["language_servers"]["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {info}"))
}

fn require(daemon: &Daemon, name: &str) {
    let info = daemon.ok("info", json!({}));
    assert_ne!(
        server(&info, name)["state"],
        "unavailable",
        "{name} is not installed: run scripts/install-language-servers.sh"
    );
}

/// A Cargo project (with its lock file) whose build script writes outside the roots, copies `.env` into the root and
/// into its OUT_DIR, and leaves `ran` in its OUT_DIR (the proof that it ran); `src/main.rs` has a
/// type error.
fn cargo_project(sandbox: &Sandbox, outside_marker: &Path) {
    let root = &sandbox.root;
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"buildrs\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    // The lock file a real project has, byte for byte as cargo writes it: in the read-only root
    // cargo could not write a new or different one.
    std::fs::write(
        root.join("Cargo.lock"),
        "# This file is automatically @generated by Cargo.\n\
         # It is not intended for manual editing.\n\
         version = 4\n\n[[package]]\nname = \"buildrs\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    std::fs::write(root.join(".env"), format!("API_KEY={SECRET}\n")).unwrap();
    let build = format!(
        "fn main() {{\n\
         \x20   let out = std::env::var(\"OUT_DIR\").unwrap();\n\
         \x20   let _ = std::fs::write(format!(\"{{out}}/ran\"), \"ran\");\n\
         \x20   let _ = std::fs::write({outside:?}, \"ran\");\n\
         \x20   let secret = std::fs::read({env:?}).unwrap_or_default();\n\
         \x20   let _ = std::fs::write({leak:?}, &secret);\n\
         \x20   let _ = std::fs::write(format!(\"{{out}}/leak.txt\"), &secret);\n\
         }}\n",
        outside = outside_marker,
        env = root.join(".env"),
        leak = root.join("leak.txt"),
    );
    std::fs::write(root.join("build.rs"), build).unwrap();
    std::fs::write(
        root.join("src/main.rs"),
        "fn main() {\n    let x: i32 = \"a\";\n    println!(\"{x}\");\n}\n",
    )
    .unwrap();
}

/// Untrusted (the default): build scripts are off, so the script never runs; the type error is
/// still diagnosed by rust-analyzer's own analysis.
#[test]
fn an_untrusted_build_script_never_runs_and_the_type_error_is_still_diagnosed() {
    let sandbox = Sandbox::empty();
    let marker = sandbox.outside.join("buildrs-ran");
    cargo_project(&sandbox, &marker);
    let daemon = Daemon::start_with_servers(&sandbox, &config("untrusted"), &[]);
    require(&daemon, "rust-analyzer");
    let main = sandbox.root.join("src/main.rs");
    daemon.ok("read", json!({"file": main}));
    wait_for_error(&daemon, &main, "i32");
    assert!(
        named(&sandbox.root, "ran").is_empty(),
        "the build script ran"
    );
    assert_contained(&sandbox, &marker);
    let info = daemon.ok("info", json!({}));
    let ra = server(&info, "rust-analyzer");
    assert_eq!(info["language_servers"]["trust"], "untrusted", "{info}");
    let off = ra["switched_off"].to_string();
    assert!(
        off.contains("build scripts") && off.contains("proc-macros"),
        "{ra}"
    );
}

/// Trusted: the build script runs (its OUT_DIR marker appears), inside the sandbox: its write
/// outside fails, `.env` reads as empty, the root is read-only; the type error is diagnosed.
#[test]
fn a_trusted_build_script_runs_confined_and_the_type_error_is_still_diagnosed() {
    let sandbox = Sandbox::empty();
    let marker = sandbox.outside.join("buildrs-ran");
    cargo_project(&sandbox, &marker);
    let daemon = Daemon::start_with_servers(&sandbox, &config("trusted"), &[]);
    require(&daemon, "rust-analyzer");
    let main = sandbox.root.join("src/main.rs");
    daemon.ok("read", json!({"file": main}));
    let ran = poll("the build script's OUT_DIR marker", || {
        named(&sandbox.root.join("target"), "ran").pop()
    });
    // An agent's edit once the project is loaded: its save starts a check of its own (one that
    // began while the build script was still building can have ended with nothing).
    let text = std::fs::read_to_string(&main).unwrap();
    daemon.ok(
        "write",
        json!({"file": main, "content": format!("{text}\n")}),
    );
    wait_for_error(&daemon, &main, "i32");
    assert_contained(&sandbox, &marker);
    assert!(!sandbox.root.join("leak.txt").exists());
    let out_leak = ran.with_file_name("leak.txt");
    if out_leak.exists() {
        assert!(std::fs::read(&out_leak).unwrap().is_empty(), "masked .env");
    }
    let info = daemon.ok("info", json!({}));
    assert_eq!(info["language_servers"]["trust"], "trusted", "{info}");
    assert_eq!(server(&info, "rust-analyzer")["switched_off"], json!([]));
}

/// A TypeScript project whose `node_modules/typescript` holds a tsserver.js that writes outside
/// and copies `.env`; `index.ts` has a type error.
fn typescript_project(sandbox: &Sandbox, outside_marker: &Path) {
    let root = &sandbox.root;
    let lib = root.join("node_modules/typescript/lib");
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::write(
        root.join("node_modules/typescript/package.json"),
        "{\"name\": \"typescript\", \"version\": \"5.9.2\", \"main\": \"lib/typescript.js\"}\n",
    )
    .unwrap();
    let evil = format!(
        "const fs = require('fs');\n\
         try {{ fs.writeFileSync({outside:?}, 'ran'); }} catch (e) {{}}\n\
         try {{ fs.writeFileSync({leak:?}, fs.readFileSync({env:?})); }} catch (e) {{}}\n",
        outside = outside_marker.to_str().unwrap(),
        leak = root.join("leak.txt").to_str().unwrap(),
        env = root.join(".env").to_str().unwrap(),
    );
    std::fs::write(lib.join("tsserver.js"), &evil).unwrap();
    std::fs::write(lib.join("typescript.js"), &evil).unwrap();
    std::fs::write(root.join(".env"), format!("API_KEY={SECRET}\n")).unwrap();
    std::fs::write(root.join("package.json"), "{\"name\": \"ts\"}\n").unwrap();
    std::fs::write(
        root.join("tsconfig.json"),
        "{\"compilerOptions\": {\"strict\": true}}\n",
    )
    .unwrap();
    std::fs::write(
        root.join("index.ts"),
        "const x: number = \"a\";\nexport { x };\n",
    )
    .unwrap();
}

/// typescript-language-server runs the TypeScript installed beside it at either trust level:
/// the workspace's tsserver.js never runs (the real one answers: the type error is diagnosed),
/// and nothing lands outside or copies the secret.
#[test]
fn a_workspace_tsserver_never_runs_at_either_trust_level() {
    for trust in ["untrusted", "trusted"] {
        let sandbox = Sandbox::empty();
        let marker = sandbox.outside.join("tsserver-ran");
        typescript_project(&sandbox, &marker);
        let daemon = Daemon::start_with_servers(&sandbox, &config(trust), &[]);
        require(&daemon, "typescript-language-server");
        let file = sandbox.root.join("index.ts");
        daemon.ok("read", json!({"file": file}));
        wait_for_error(&daemon, &file, "not assignable to type 'number'");
        assert_contained(&sandbox, &marker);
        assert!(!sandbox.root.join("leak.txt").exists(), "{trust}");
    }
}
