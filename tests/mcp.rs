//! `coderd mcp` driven by a client nobody here wrote: the official Python MCP SDK (installed by
//! scripts/install-mcp-client.sh, which scripts/test.sh runs first). The client spawns `coderd mcp`,
//! which starts the workspace's daemon on the socket it is given; the checks are in
//! tests/agent/mcp_client.py (list tools, read, patch, search, errors).

mod common;

use common::Sandbox;
use std::path::Path;
use std::process::Command;

#[test]
fn the_python_mcp_sdk_lists_and_calls_coderd_tools() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = manifest.join("target/mcp-client-venv/bin/python");
    assert!(
        python.exists(),
        "the MCP client is not installed: run scripts/install-mcp-client.sh (scripts/test.sh does)"
    );
    let sandbox = Sandbox::fixture("chatcli");
    let socket = sandbox.socket();
    let out = Command::new(&python)
        .arg(manifest.join("tests/agent/mcp_client.py"))
        .arg(env!("CARGO_BIN_EXE_coderd"))
        .arg(&sandbox.root)
        .arg(&socket)
        .output()
        .expect("run the MCP client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The daemon `coderd mcp` started for the workspace is stopped with the sandbox's socket.
    let _ = Command::new(env!("CARGO_BIN_EXE_coder"))
        .args(["--no-start", "--socket"])
        .arg(&socket)
        .arg("shutdown")
        .output();
    assert!(
        out.status.success() && stdout.contains("all checks passed"),
        "MCP client failed:\n{stdout}\n{stderr}"
    );
    eprintln!("{stdout}");
}
