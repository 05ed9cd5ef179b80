//! Over-broad roots (`/`, a folder holding another user's home) are refused at start on every
//! face unless the config says `allow_broad_roots: true` (crates/core/src/jail/broad.rs).

use crate::common::{Daemon, Sandbox};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// `coderd ARGS` in the sandbox's private runtime folders: success, and what it said on stderr.
fn run(sandbox: &Sandbox, args: &[&str]) -> (bool, String) {
    let dir = sandbox.dir.path();
    let out = Command::new(env!("CARGO_BIN_EXE_coderd"))
        .args(args)
        .arg("--socket")
        .arg(dir.join("broad.sock"))
        .env("XDG_RUNTIME_DIR", dir.join("run"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("XDG_STATE_HOME", dir.join("state"))
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A home folder of /etc/passwd that exists and is not directly under `/`: its parent holds it.
fn a_nested_home() -> Option<PathBuf> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd
        .lines()
        .filter_map(|l| l.split(':').nth(5))
        .filter_map(|h| Path::new(h).canonicalize().ok())
        .find(|h| h.is_dir() && h.parent().is_some_and(|p| p.parent().is_some()))
}

#[test]
fn slash_and_a_folder_holding_a_home_are_refused_on_every_face() {
    let sandbox = Sandbox::empty();
    let home = a_nested_home().expect("a home folder below a top-level folder in /etc/passwd");
    let roots = [
        "/".to_string(),
        home.parent().unwrap().display().to_string(),
    ];
    for root in &roots {
        let faces: [&[&str]; 4] = [&[], &["iii"], &["mcp"], &["lsp"]];
        for face in faces {
            let mut args = vec!["--root", root.as_str()];
            args.extend_from_slice(face);
            let (ok, err) = run(&sandbox, &args);
            assert!(!ok, "coderd {args:?} started");
            assert!(
                err.contains("too broad") && err.contains("allow_broad_roots"),
                "coderd {args:?}: {err}"
            );
        }
    }
}

#[test]
fn the_config_can_allow_a_broad_root() {
    let sandbox = Sandbox::empty();
    let config = sandbox.dir.path().join("coderd.yaml");
    std::fs::write(&config, "allow_broad_roots: true\ncheckpoints: false\n").unwrap();
    let config = config.to_str().unwrap();
    let daemon = Daemon::start_with(
        &[
            "--root".into(),
            "/".into(),
            "--config".into(),
            config.into(),
        ],
        &sandbox.socket(),
        sandbox.dir.path(),
    );
    let info = daemon.ok("info", json!({}));
    assert_eq!(info["primary_root"], "/", "{info}");
    daemon.ok("shutdown", json!({}));
}

/// A root that is a user's home, or inside one, is the ordinary workspace: it starts.
#[test]
fn a_home_itself_is_not_broad() {
    let home = a_nested_home().expect("a home folder below a top-level folder in /etc/passwd");
    let sandbox = Sandbox::empty();
    let home = home.display().to_string();
    let config = sandbox.dir.path().join("coderd.yaml");
    std::fs::write(&config, "checkpoints: false\n").unwrap();
    let config = config.to_str().unwrap();
    let daemon = Daemon::start_with(
        &[
            "--root".into(),
            home.clone(),
            "--config".into(),
            config.into(),
        ],
        &sandbox.socket(),
        sandbox.dir.path(),
    );
    assert_eq!(daemon.ok("info", json!({}))["primary_root"], home);
    daemon.ok("shutdown", json!({}));
}
