//! `coderd iii` against the real iii engine: the engine on a free port with a temp config,
//! `coderd iii` registered with it, and every call made THROUGH the engine by a second,
//! independent client (`iii trigger`, the engine's own CLI). The engine binary: `iii` on PATH,
//! else `shared/iii/iii` beside the repository (or beside one of its parent folders, as on the
//! machines of this project; see /work/shared/iii/README.md). No engine is a failure, not a skip.

#![cfg(feature = "iii")] // `coderd iii` is built with the `iii` feature only

use crate::common;
use crate::common::iii as engine;

use common::{Daemon, Sandbox};
use engine::{free_port, Engine, PATIENCE};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// `coderd iii` for a sandbox, against an engine, in a namespace.
fn worker(sandbox: &Sandbox, engine: &Engine, namespace: &str) -> Daemon {
    let config = sandbox.dir.path().join("coderd.yaml");
    std::fs::write(
        &config,
        "non_accessible_globs: [\"**/.env\"]\ncheckpoints: false\n",
    )
    .unwrap();
    Daemon::start(
        sandbox,
        &[
            "--config",
            config.to_str().unwrap(),
            "iii",
            "--engine",
            &engine.url(),
            "--namespace",
            namespace,
        ],
    )
}

fn code(error: Result<Value, Value>) -> String {
    match error {
        Ok(answer) => panic!("expected an error, got {answer}"),
        Err(e) => e["code"].as_str().unwrap_or("").to_string(),
    }
}

#[test]
fn coderd_serves_its_coder_functions_through_the_engine() {
    let sandbox = Sandbox::empty();
    sandbox.write("src/lib.rs", "pub fn one() -> u32 {\n    1\n}\n");
    sandbox.write(".env", "TOKEN=1\n");
    let engine = Engine::start(sandbox.dir.path(), free_port());
    let daemon = worker(&sandbox, &engine, "ws-a");
    let ns = Some("ws-a");

    let read = engine.when_ready(ns, "coder::read-file", json!({"path": "src/lib.rs"}));
    assert_eq!(read["content"], "pub fn one() -> u32 {\n    1\n}\n");
    assert_eq!(read["is_utf8"], true);

    // The socket serves the same documents beside the engine.
    let over_socket = daemon.ok("coder::read-file", json!({"path": "src/lib.rs"}));
    assert_eq!(over_socket["version"], read["version"]);

    let found = engine
        .trigger(ns, "coder::search", json!({"query": "fn one"}))
        .unwrap();
    let root = sandbox.root.display().to_string();
    assert_eq!(
        found["content_matches"][0]["path"],
        format!("{root}/src/lib.rs")
    );
    assert_eq!(found["content_matches"][0]["line"], 1);

    let tree = engine
        .trigger(ns, "coder::tree", json!({"path": "."}))
        .unwrap();
    let names: Vec<&str> = tree["root"]["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, [".env", "src"], "{tree}");

    // A patch-like batch: the good file commits beside the refused one.
    let updated = engine
        .trigger(
            ns,
            "coder::update-file",
            json!({"files": [
                {"path": "src/lib.rs", "ops": [{"op": "replace", "pattern": "\\b1\\b", "replacement": "2", "expect_matches": 1}]},
                {"path": "src/missing.rs", "ops": [{"op": "insert", "at_line": 1, "content": "x"}]}]}),
        )
        .unwrap();
    assert_eq!(updated["results"][0]["success"], true, "{updated}");
    assert_eq!(updated["results"][1]["error"]["code"], "C211", "{updated}");
    let bytes = std::fs::read_to_string(sandbox.root.join("src/lib.rs")).unwrap();
    assert_eq!(bytes, "pub fn one() -> u32 {\n    2\n}\n");

    let created = engine
        .trigger(
            ns,
            "coder::create-file",
            json!({"files": [{"path": "notes/a.md", "content": "# a\n", "mode": "0644"}]}),
        )
        .unwrap();
    assert_eq!(created["results"][0]["bytes_written"], 4, "{created}");
    assert!(sandbox.root.join("notes/a.md").is_file());
    let deleted = engine
        .trigger(
            ns,
            "coder::delete-file",
            json!({"paths": ["notes"], "recursive": true}),
        )
        .unwrap();
    assert_eq!(deleted["results"][0]["removed"], true, "{deleted}");
    assert!(!sandbox.root.join("notes").exists());

    // The jail holds through the engine: errors come back as iii's {code, message}.
    let escape = engine.trigger(
        ns,
        "coder::read-file",
        json!({"path": "../outside/secret.txt"}),
    );
    assert_eq!(code(escape), "C215");
    let secret = engine.trigger(ns, "coder::read-file", json!({"path": ".env"}));
    let secret = secret.unwrap_err();
    assert_eq!(secret["code"], "C211");
    assert!(!secret.to_string().contains("TOKEN"), "{secret}");

    // The engine restarts: the worker reconnects and registers again.
    let port = engine.port;
    let dir = engine.dir.clone();
    drop(engine);
    let engine = Engine::start(&dir, port);
    let again = engine.when_ready(ns, "coder::read-file", json!({"path": "src/lib.rs"}));
    assert_eq!(again["content"], "pub fn one() -> u32 {\n    2\n}\n");

    // A clean stop unregisters every function.
    daemon.ok("shutdown", json!({}));
    let deadline = Instant::now() + PATIENCE;
    loop {
        match engine.trigger(ns, "coder::info", json!({})) {
            Err(e) if e["code"] == "function_not_found" => break,
            _ if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(100)),
            other => panic!("coder::info still answers after the worker stopped: {other:?}"),
        }
    }
}

#[test]
fn two_workspaces_on_one_engine_answer_only_their_own_namespace() {
    let a = Sandbox::empty();
    a.write("who.txt", "A\n");
    let b = Sandbox::empty();
    b.write("who.txt", "B\n");
    let engine = Engine::start(a.dir.path(), free_port());
    let _wa = worker(&a, &engine, "ws-a");
    let _wb = worker(&b, &engine, "ws-b");
    let who = json!({"path": "who.txt"});
    assert_eq!(
        engine.when_ready(Some("ws-a"), "coder::read-file", who.clone())["content"],
        "A\n"
    );
    assert_eq!(
        engine.when_ready(Some("ws-b"), "coder::read-file", who.clone())["content"],
        "B\n"
    );
    // Neither answers in the engine's default namespace: routing by namespace is strict.
    let default = engine.trigger(None, "coder::read-file", who);
    assert_eq!(code(default), "function_not_found");
}

/// A call through the engine is counted by `stats` once, like a socket request, errors by code.
#[test]
fn stats_count_each_call_through_the_engine_once() {
    let sandbox = Sandbox::empty();
    sandbox.write("notes.txt", "one\n");
    sandbox.write(".env", "TOKEN=1\n");
    let engine = Engine::start(sandbox.dir.path(), free_port());
    let daemon = worker(&sandbox, &engine, "ws-stats");
    let ns = Some("ws-stats");
    engine.when_ready(ns, "coder::info", json!({}));
    let before = daemon.ok("stats", json!({}));
    let read = json!({"path": "notes.txt"});
    assert_eq!(
        engine.trigger(ns, "coder::read-file", read).unwrap()["content"],
        "one\n"
    );
    let secret = engine.trigger(ns, "coder::read-file", json!({"path": ".env"}));
    assert_eq!(code(secret), "C211");
    // The same method over the socket is counted once too, not again by the engine's path.
    daemon.ok("coder::read-file", json!({"path": "notes.txt"}));
    let after = daemon.ok("stats", json!({}));
    let moved = |pointer: &str| {
        let at = |v: &Value| v.pointer(pointer).and_then(Value::as_u64).unwrap_or(0);
        at(&after) - at(&before)
    };
    let method = "/since_start/methods/coder::read-file";
    assert_eq!(moved(&format!("{method}/requests")), 3, "{after:#}");
    assert_eq!(moved(&format!("{method}/errors")), 1, "{after:#}");
    assert_eq!(
        moved(&format!("{method}/errors_by_code/C211")),
        1,
        "{after:#}"
    );
    assert_eq!(
        moved("/since_start/methods/coder::info/requests"),
        0,
        "{after:#}"
    );
}
