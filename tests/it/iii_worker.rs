//! iii's `coder` worker test suite, replayed against the `coder::*` ids over the socket, and
//! again through the real iii engine (tests/iii/worker.json says where each check comes from).
//! Every case must pass; the cases that keep a deliberately different (stricter) expectation
//! carry `differs` with the reason, and the others, those that agree with the worker, must be at
//! least 85 of the 89.

use crate::common;
#[cfg(feature = "iii")]
use crate::common::iii as engine;

use common::{matches, Daemon, Failures, Sandbox};
use serde_json::Value;
use std::path::Path;

const AGREEMENT_BAR: usize = 85;

/// A file's content as a case writes it: a string, or `{"repeat": s, "times": n}`.
fn content(spec: &Value) -> Vec<u8> {
    match spec {
        Value::String(s) => s.as_bytes().to_vec(),
        _ => spec["repeat"]
            .as_str()
            .unwrap()
            .repeat(spec["times"].as_u64().unwrap() as usize)
            .into_bytes(),
    }
}

/// Empties a folder without removing it (the daemon holds it open as a root).
fn empty(dir: &Path) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        match std::fs::symlink_metadata(&path).unwrap().is_dir() {
            true => std::fs::remove_dir_all(&path).unwrap(),
            false => std::fs::remove_file(&path).unwrap(),
        }
    }
}

struct World {
    sandbox: Sandbox,
    root2: std::path::PathBuf,
}

impl World {
    fn expand(&self, v: &Value) -> Value {
        match v {
            Value::String(s) if s == "@BIG" => Value::String("x".repeat(5000)),
            Value::String(s) => {
                let s = s.replace("$ROOT2", self.root2.to_str().unwrap());
                Value::String(self.sandbox.expand(&s))
            }
            Value::Array(a) => Value::Array(a.iter().map(|x| self.expand(x)).collect()),
            Value::Object(o) => {
                Value::Object(o.iter().map(|(k, x)| (k.clone(), self.expand(x))).collect())
            }
            other => other.clone(),
        }
    }

    fn write(&self, files: &Value) {
        for (rel, spec) in files.as_object().into_iter().flatten() {
            let path = self.sandbox.root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, content(spec)).unwrap();
        }
    }

    fn arrange(&self, case: &Value) {
        empty(&self.sandbox.root);
        empty(&self.root2);
        self.write(&case["files"]);
        for dir in case["dirs"].as_array().into_iter().flatten() {
            std::fs::create_dir_all(self.sandbox.root.join(dir.as_str().unwrap())).unwrap();
        }
        for link in case["links"].as_array().into_iter().flatten() {
            let target = self.expand(&link[1]);
            let at = self.sandbox.root.join(link[0].as_str().unwrap());
            std::os::unix::fs::symlink(target.as_str().unwrap(), at).unwrap();
        }
    }

    /// Runs one step, calling with `call` (a JSON-RPC response); the problems it found.
    fn step(&self, call: &dyn Fn(&str, Value) -> Value, step: &Value, at: &str) -> Vec<String> {
        let mut problems = Vec::new();
        if let Some(files) = step.get("write") {
            self.write(files);
        } else if let Some(entries) = step.get("exists") {
            for (rel, want) in entries.as_object().unwrap() {
                let path = self.sandbox.root.join(self.sandbox.expand(rel));
                let there = std::fs::symlink_metadata(path).is_ok();
                if Value::Bool(there) != *want {
                    problems.push(format!("{at} exists {rel}: {there}, expected {want}"));
                }
            }
        } else if let Some(disk) = step.get("disk") {
            for (rel, want) in disk.as_object().unwrap() {
                let got = std::fs::read(self.sandbox.root.join(rel)).ok();
                let got = got.map(|b| Value::String(String::from_utf8_lossy(&b).into_owned()));
                matches(
                    want,
                    got.as_ref().unwrap_or(&Value::Null),
                    &format!("{at} disk {rel}"),
                    &mut problems,
                );
            }
        } else {
            let method = step["call"].as_str().unwrap();
            let response = call(method, self.expand(&step["params"]));
            match (step.get("expect"), response.get("result")) {
                (Some(want), Some(got)) => matches(&self.expand(want), got, at, &mut problems),
                (Some(_), None) => {
                    problems.push(format!("{at}: expected a result, got {response}"))
                }
                (None, _) => match response.get("error") {
                    Some(error) => {
                        let mut view = error["data"].clone();
                        view["message"] = error["data"]["message"].clone();
                        matches(
                            &self.expand(&step["expect_error"]),
                            &view,
                            at,
                            &mut problems,
                        )
                    }
                    None => problems.push(format!("{at}: expected an error, got {response}")),
                },
            }
        }
        problems
    }
}

/// A daemon with the worker's test config and a second root; `args` come after them.
fn start(suite: &Value, args: &[&str]) -> (World, Daemon) {
    let sandbox = Sandbox::empty();
    let root2 = sandbox.dir.path().canonicalize().unwrap().join("ws2");
    std::fs::create_dir_all(&root2).unwrap();
    let config = sandbox.dir.path().join("config.yaml");
    std::fs::write(&config, suite["config"].as_str().unwrap()).unwrap();
    let mut all = vec![
        "--root",
        root2.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    let daemon = Daemon::start(&sandbox, &all);
    (World { sandbox, root2 }, daemon)
}

fn load(file: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn suite() -> Value {
    load("tests/iii/worker.json")
}

/// Runs every case of `cases` and asserts they all pass.
fn run_cases(cases: &Value, world: &World, call: &dyn Fn(&str, Value) -> Value, face: &str) {
    let cases = cases["cases"].as_array().unwrap();
    let mut failures = Failures::default();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        world.arrange(case);
        let problems: Vec<String> = case["steps"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .flat_map(|(i, step)| world.step(call, step, &format!("step {i}")))
            .collect();
        failures.record(name, &problems);
    }
    failures.assert_none(face, cases.len());
}

/// Runs every case, asserts they all pass, and that enough agree with the worker.
fn check_all(suite: &Value, world: &World, call: &dyn Fn(&str, Value) -> Value, face: &str) {
    run_cases(suite, world, call, &format!("coder worker checks {face}"));
    let cases = suite["cases"].as_array().unwrap();
    let differs: Vec<String> = cases
        .iter()
        .filter_map(|c| Some(format!("{}: {}", c["name"], c.get("differs")?)))
        .collect();
    let agree = cases.len() - differs.len();
    eprintln!(
        "coder worker checks {face}: {agree} of {} agree; kept different:\n  {}",
        cases.len(),
        differs.join("\n  ")
    );
    assert_eq!(cases.len(), 89, "the worker's suite has 89 checks");
    assert!(
        agree >= AGREEMENT_BAR,
        "only {agree} of 89 checks agree with the worker (bar: {AGREEMENT_BAR})"
    );
}

#[test]
fn the_coder_workers_own_checks_agree() {
    let suite = suite();
    let (world, daemon) = start(&suite, &[]);
    check_all(
        &suite,
        &world,
        &|method, params| daemon.call(method, params),
        "over the socket",
    );
}

/// The same checks, each call made through the engine by `iii trigger`: what an iii agent sees.
#[cfg(feature = "iii")]
#[test]
fn the_coder_workers_own_checks_agree_through_the_engine() {
    let suite = suite();
    through_the_engine(&suite, |world, call| {
        check_all(&suite, world, call, "through the engine")
    });
}

/// coderd's own checks beyond the worker's suite (tests/iii/coderd.json), with the worker's config.
#[test]
fn coderds_own_checks_pass() {
    let (world, daemon) = start(&suite(), &[]);
    let call = |method: &str, params: Value| daemon.call(method, params);
    run_cases(
        &load("tests/iii/coderd.json"),
        &world,
        &call,
        "coderd checks over the socket",
    );
}

#[cfg(feature = "iii")]
#[test]
fn coderds_own_checks_pass_through_the_engine() {
    through_the_engine(&suite(), |world, call| {
        let face = "coderd checks through the engine";
        run_cases(&load("tests/iii/coderd.json"), world, call, face)
    });
}

/// A `coderd iii` worker with the suite's config on a fresh engine; `run` calls through it.
#[cfg(feature = "iii")]
fn through_the_engine(suite: &Value, run: impl FnOnce(&World, &dyn Fn(&str, Value) -> Value)) {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine::Engine::start(dir.path(), engine::free_port());
    let url = engine.url();
    let (world, _daemon) = start(suite, &["iii", "--engine", &url, "--namespace", "checks"]);
    engine.when_ready(Some("checks"), "coder::info", serde_json::json!({}));
    let call = |method: &str, params: Value| match engine.trigger(Some("checks"), method, params) {
        Ok(result) => serde_json::json!({"result": result}),
        Err(error) => serde_json::json!({"error": {"data": error}}),
    };
    run(&world, &call);
}
