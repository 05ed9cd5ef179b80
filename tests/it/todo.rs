//! `todo` through a real daemon: plans per session, 1-based marks, C210 for bad ids and
//! statuses, a restart that keeps the plans, and `coder` filling the session from CODER_SESSION.

use crate::common;

use common::{Daemon, Sandbox};
use serde_json::json;
use std::process::Command;

fn plan() -> serde_json::Value {
    json!([
        {"description": "Investigate bug", "status": "completed"},
        {"description": "Apply fix", "status": "in_progress"},
        {"description": "Add tests", "status": ""}
    ])
}

#[test]
fn plans_are_per_session_marked_by_one_based_id_and_survive_a_restart() {
    let sandbox = Sandbox::empty();
    let daemon = Daemon::start(&sandbox, &[]);
    let written = daemon.ok(
        "todo",
        json!({"write": true, "todos": plan(), "session": "a"}),
    );
    assert_eq!(written["todos"][2]["status"], "pending");
    assert_eq!(written["todos"][2]["id"], 3);
    assert_eq!(written["summary"]["total"], 3);
    let marked = daemon.ok(
        "todo",
        json!({"mark": true, "id": 3, "status": "failed", "error": "flaky", "session": "a"}),
    );
    assert_eq!(marked["todos"][2]["status"], "failed");
    assert_eq!(marked["todos"][2]["error"], "flaky");
    assert_eq!(marked["summary"]["failed"], 1);
    // Another session has its own (empty) plan.
    let other = daemon.ok("todo", json!({"session": "b"}));
    assert_eq!(other["todos"], json!([]));
    assert_eq!(daemon.ok("todo", json!({}))["session"], "default");

    for (params, field) in [
        (
            json!({"mark": true, "id": 4, "status": "completed", "session": "a"}),
            "`id`",
        ),
        (
            json!({"mark": true, "id": 0, "status": "completed", "session": "a"}),
            "`id`",
        ),
        (
            json!({"mark": true, "id": 1, "status": "done", "session": "a"}),
            "`status`",
        ),
        (
            json!({"write": true, "todos": [{"description": "x", "status": "soon"}]}),
            "`todos[0].status`",
        ),
        (json!({"write": true, "mark": true}), "exclude"),
    ] {
        let error = daemon.err("todo", params.clone());
        assert_eq!(error["data"]["code"], "C210", "{params}");
        assert!(
            error["message"].as_str().unwrap().contains(field),
            "{params}: {error}"
        );
    }

    drop(daemon);
    let daemon = Daemon::start(&sandbox, &[]);
    let again = daemon.ok("todo", json!({"session": "a"}));
    assert_eq!(again["todos"], marked["todos"]);
}

#[test]
fn coder_takes_the_session_from_its_environment_and_renders_marks() {
    let sandbox = Sandbox::empty();
    let daemon = Daemon::start(&sandbox, &[]);
    let coder = |params: &str| {
        let out = Command::new(common::coder_bin())
            .arg("--socket")
            .arg(&daemon.socket)
            .args(["call", "todo", params])
            .env("CODER_SESSION", "agent-7")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    coder(&json!({"write": true, "todos": plan()}).to_string());
    let result = daemon.ok("todo", json!({"session": "agent-7"}));
    assert_eq!(result["summary"]["completed"], 1);
    let mut text = Vec::new();
    coder::render(
        &mut text,
        wire::answers::Answer::Todo,
        false,
        &result.to_string(),
    )
    .unwrap();
    assert_eq!(
        String::from_utf8(text).unwrap(),
        "[✓] 1. Investigate bug\n[~] 2. Apply fix\n[ ] 3. Add tests\n1/3 completed, 1 in progress, 0 failed\n"
    );
}
