//! No user work lost, by design (issue 33, item 4): every byte a method overwrites, deletes or
//! moves over is brought back by `checkpoint --restore`, ignored files included; `clean --force`
//! never removes the last copy; rollback keeps the save it replaces; no request can switch the
//! snapshots off; and snapshots follow neither the repository's `info/exclude` nor a `.gitignore`
//! written during the run. Each case on a fresh daemon over the real socket, with real git.

use crate::common;

use common::{git, Daemon, Sandbox};
use serde_json::{json, Value};

/// A user's repository with one commit; `*.log` and `build/` are ignored.
fn user_repo() -> Sandbox {
    let sandbox = Sandbox::empty();
    std::fs::write(sandbox.root.join(".gitignore"), "*.log\nbuild/\n").unwrap();
    std::fs::write(sandbox.root.join("a.txt"), "tracked\n").unwrap();
    git(&sandbox.root, &["init", "-q"]);
    git(&sandbox.root, &["add", "-A"]);
    git(&sandbox.root, &["commit", "-qm", "user commit"]);
    sandbox
}

/// The newest checkpoint whose label starts with `prefix`.
fn labelled(daemon: &Daemon, prefix: &str) -> String {
    let listing = daemon.ok("checkpoint", json!({}));
    let found = listing["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["label"].as_str().unwrap().starts_with(prefix));
    match found {
        Some(c) => c["hash"].as_str().unwrap().to_string(),
        None => panic!("no checkpoint labelled {prefix:?}: {listing}"),
    }
}

/// User bytes no snapshot's rules would hold: NULs, invalid UTF-8, CRLF.
fn user_bytes(name: &str) -> Vec<u8> {
    let mut bytes = format!("{name}: the user's work\r\n").into_bytes();
    bytes.extend_from_slice(&[0, 0xff, 0xfe, b'\n']);
    bytes
}

struct Case {
    name: &'static str,
    /// Files (ignored ones among them) as the user left them.
    files: &'static [&'static str],
    /// The calls that replace or remove the user's bytes.
    calls: fn(&Daemon),
    /// The snapshot that holds them: a `kept: before …` label prefix.
    kept_by: &'static str,
}

const CASES: &[Case] = &[
    Case {
        name: "write, then clean --force removes the .bak",
        files: &["notes.log"],
        calls: |d| {
            d.ok("write", json!({"file": "notes.log", "content": "agent\n"}));
            let cleaned = d.ok("clean", json!({"force": true}));
            assert_eq!(cleaned["removed"].as_array().unwrap().len(), 1, "{cleaned}");
        },
        kept_by: "kept: before write of notes.log",
    },
    Case {
        name: "delete-file of an ignored file",
        files: &["notes.log"],
        calls: |d| {
            d.ok("delete-file", json!({"paths": ["notes.log"]}));
        },
        kept_by: "kept: before delete-file of notes.log",
    },
    Case {
        name: "delete-file of an ignored folder",
        files: &["build/out.bin", "build/deep/more.bin"],
        calls: |d| {
            d.ok(
                "delete-file",
                json!({"paths": ["build"], "recursive": true}),
            );
        },
        kept_by: "kept: before delete-file of build/",
    },
    Case {
        name: "move with overwrite onto an ignored file",
        files: &["notes.log", "draft.txt"],
        calls: |d| {
            d.ok(
                "move",
                json!({"moves": [{"from": "draft.txt", "to": "notes.log", "overwrite": true}]}),
            );
        },
        kept_by: "kept: before move of notes.log",
    },
    Case {
        name: "create-file with overwrite of an ignored file",
        files: &["notes.log"],
        calls: |d| {
            d.ok(
                "create-file",
                json!({"files": [{"path": "notes.log", "content": "agent\n", "overwrite": true}]}),
            );
        },
        kept_by: "kept: before create-file of notes.log",
    },
    Case {
        name: "coder::delete-file (iii) of an ignored file",
        files: &["notes.log"],
        calls: |d| {
            let done = d.ok("coder::delete-file", json!({"paths": ["notes.log"]}));
            assert_eq!(done["results"][0]["removed"], true, "{done}");
        },
        kept_by: "kept: before delete-file of notes.log",
    },
    Case {
        name: "tool envelope: write over an ignored file",
        files: &["notes.log"],
        calls: |d| {
            d.ok(
                "tool",
                json!({"cmd": "write", "args": {"file": "notes.log", "content": "agent\n"}}),
            );
        },
        kept_by: "kept: before write of notes.log",
    },
];

/// Each case: the user's files, the calls, then `checkpoint --restore` of the snapshot that kept
/// them gives every byte back.
#[test]
fn every_byte_a_method_replaces_or_removes_comes_back_ignored_files_included() {
    for case in CASES {
        let sandbox = user_repo();
        let root = &sandbox.root;
        for file in case.files {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, user_bytes(file)).unwrap();
        }
        let daemon = Daemon::start(&sandbox, &[]);
        (case.calls)(&daemon);
        let hash = labelled(&daemon, case.kept_by);
        let restored = daemon.ok("checkpoint", json!({"restore": hash}));
        for file in case.files {
            let now = std::fs::read(root.join(file)).unwrap_or_default();
            assert_eq!(now, user_bytes(file), "{}: {file}: {restored}", case.name);
        }
    }
}

/// The user saves a file the agent wrote (within a second: no clock decides), the agent rolls
/// back: the save is kept (in the store, and as the `.bak`, so a second rollback gives it back).
#[test]
fn a_rollback_over_a_newer_save_keeps_the_save() {
    for file in ["notes.log", "a.txt"] {
        let sandbox = user_repo();
        let root = &sandbox.root;
        std::fs::write(root.join(file), "original\n").unwrap();
        let daemon = Daemon::start(&sandbox, &[]);
        daemon.ok("write", json!({"file": file, "content": "agent\n"}));
        std::fs::write(root.join(file), user_bytes(file)).unwrap();
        daemon.ok("rollback", json!({"file": file}));
        assert_eq!(std::fs::read(root.join(file)).unwrap(), b"original\n");
        let hash = labelled(&daemon, &format!("kept: before rollback of {file}"));
        daemon.ok("checkpoint", json!({"restore": hash}));
        assert_eq!(std::fs::read(root.join(file)).unwrap(), user_bytes(file));
        // The restore also put back the `.bak` the rollback replaced: rollback swaps the two,
        // so rolling back a rollback gives the save back.
        let bak = root.join(format!("{file}.bak"));
        assert_eq!(std::fs::read(&bak).unwrap(), b"original\n");
        daemon.ok("rollback", json!({"file": file}));
        assert_eq!(std::fs::read(root.join(file)).unwrap(), b"original\n");
        assert_eq!(std::fs::read(&bak).unwrap(), user_bytes(file));
        daemon.ok("rollback", json!({"file": file}));
        assert_eq!(std::fs::read(root.join(file)).unwrap(), user_bytes(file));
    }
}

/// Over `checkpoint_max_file_bytes` a method refuses (nothing changes) unless `force`, and then
/// its answer says the bytes were not kept.
#[test]
fn over_the_size_cap_a_method_refuses_unless_force_and_then_says_so() {
    let sandbox = user_repo();
    let root = &sandbox.root;
    std::fs::write(root.join("big.log"), vec![7u8; 3000]).unwrap();
    std::fs::write(root.join("small.txt"), "s\n").unwrap();
    let config = sandbox.dir.path().join("cap.yaml");
    std::fs::write(&config, "checkpoint_max_file_bytes: 1000\n").unwrap();
    let daemon = Daemon::start(&sandbox, &["--config", config.to_str().unwrap()]);
    let calls: [(&str, Value); 3] = [
        ("delete-file", json!({"paths": ["small.txt", "big.log"]})),
        (
            "move",
            json!({"moves": [{"from": "small.txt", "to": "big.log", "overwrite": true}]}),
        ),
        ("coder::delete-file", json!({"paths": ["big.log"]})),
    ];
    for (method, params) in &calls {
        let refused = daemon.call(method, params.clone());
        let text = refused.to_string();
        let code = refused["error"]["data"]["code"]
            .as_str()
            .or(refused["result"]["results"][0]["error"]["code"].as_str());
        assert_eq!(code, Some("C213"), "{method}: {refused}");
        assert!(
            text.contains("big.log") && text.contains("force"),
            "{method}: {refused}"
        );
        assert_eq!(
            std::fs::read(root.join("big.log")).unwrap(),
            vec![7u8; 3000]
        );
        assert_eq!(std::fs::read(root.join("small.txt")).unwrap(), b"s\n");
    }
    let forced = daemon.ok("delete-file", json!({"paths": ["big.log"], "force": true}));
    assert!(!root.join("big.log").exists());
    let not_kept = forced["not_kept"].as_array().expect("not_kept");
    assert_eq!(not_kept.len(), 1, "{forced}");
    assert!(not_kept[0]["path"].as_str().unwrap().ends_with("big.log"));
    assert!(not_kept[0]["reason"]
        .as_str()
        .unwrap()
        .contains("checkpoint_max_file_bytes"));
    // A call whose bytes are kept says nothing of the kind.
    let kept = daemon.ok("delete-file", json!({"paths": ["small.txt"]}));
    assert!(kept.get("not_kept").is_none(), "{kept}");
}

/// With checkpoints off in the config nothing is kept, so `clean --force` leaves a backup whose
/// bytes exist nowhere else, and removes one that holds what its file holds.
#[test]
fn clean_never_removes_the_last_copy() {
    let sandbox = user_repo();
    let root = &sandbox.root;
    std::fs::write(root.join("a.txt"), "one\n").unwrap();
    std::fs::write(root.join("b.txt"), "same\n").unwrap();
    let config = sandbox.dir.path().join("off.yaml");
    std::fs::write(&config, "checkpoints: false\n").unwrap();
    let daemon = Daemon::start(&sandbox, &["--config", config.to_str().unwrap()]);
    daemon.ok("write", json!({"file": "a.txt", "content": "two\n"}));
    daemon.ok("write", json!({"file": "b.txt", "content": "other\n"}));
    std::fs::write(root.join("b.txt"), "same\n").unwrap();
    let cleaned = daemon.ok("clean", json!({"force": true}));
    assert_eq!(std::fs::read(root.join("a.txt.bak")).unwrap(), b"one\n");
    assert!(!root.join("b.txt.bak").exists(), "{cleaned}");
    let only = cleaned["kept_only_copy"]
        .as_array()
        .expect("kept_only_copy");
    assert_eq!(only.len(), 1, "{cleaned}");
    assert!(only[0].as_str().unwrap().ends_with("a.txt.bak"));
}

/// `"checkpoints": false` is a safety switch as a request member: refused with C210 naming the
/// field and the config key, on every way in; nothing is written.
#[test]
fn no_request_can_switch_snapshots_off() {
    let sandbox = user_repo();
    let daemon = Daemon::start(&sandbox, &[]);
    let mut client = daemon.client();
    let lines = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "write", "checkpoints": false,
               "params": {"file": "w.txt", "content": "x"}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "exec", "checkpoints": "no",
               "params": {"cmd": "touch w.txt"}}),
    ];
    for line in &lines {
        client.send_line(&line.to_string());
        let answer = client.recv();
        assert_eq!(answer["error"]["data"]["code"], "C210", "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains("`checkpoints`"), "{answer}");
    }
    let message = {
        client.send_line(&lines[0].to_string());
        client.recv()["error"].to_string()
    };
    assert!(message.contains("checkpoints: false") && message.contains("config"));
    // As a param, through the agent envelope and an iii id: the schema refuses it.
    let tool = daemon.err(
        "tool",
        json!({"cmd": "write", "args": {"file": "w.txt", "content": "x"}, "checkpoints": false}),
    );
    assert_eq!(tool["data"]["code"], "C210", "{tool}");
    let iii = daemon.err(
        "coder::create-file",
        json!({"files": [{"path": "w.txt", "content": "x"}], "checkpoints": false}),
    );
    assert_eq!(iii["data"]["code"], "C210", "{iii}");
    assert!(!sandbox.root.join("w.txt").exists());
    // `true` asks for nothing beyond the default.
    client.send_line(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "write", "checkpoints": true,
                "params": {"file": "w.txt", "content": "x"}})
        .to_string(),
    );
    assert!(client.recv()["result"].is_object());
}

/// What a command hides from git hides nothing from the snapshots: `.git/info/exclude` is never
/// read, and a `.gitignore` written during the run switches new files to the snapshots' own
/// rules. A file created by one command and deleted by the next comes back.
#[test]
fn snapshots_follow_neither_info_exclude_nor_a_gitignore_written_during_the_run() {
    let sandbox = user_repo();
    let root = &sandbox.root;
    let daemon = Daemon::start(&sandbox, &[]);
    for (hide, name) in [
        ("echo '*' >> .git/info/exclude", "first.txt"),
        (
            "echo '*' > sub.gitignore && mv sub.gitignore .gitignore",
            "second.txt",
        ),
    ] {
        daemon.ok("exec", json!({"cmd": hide}));
        daemon.ok(
            "exec",
            json!({"cmd": format!("printf 'made by a command' > {name}")}),
        );
        daemon.ok("exec", json!({"cmd": format!("rm {name}")}));
        assert!(!root.join(name).exists());
        let hash = labelled(&daemon, "auto: before exec");
        let restored = daemon.ok("checkpoint", json!({"restore": hash}));
        assert_eq!(
            std::fs::read(root.join(name)).unwrap_or_default(),
            b"made by a command",
            "{hide}: {restored}"
        );
    }
}
