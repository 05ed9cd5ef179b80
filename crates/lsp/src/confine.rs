//! Where a language server runs: inside the sandbox commands get (`exec.sandbox`), since a server
//! runs the workspace's code (rust-analyzer's build scripts, a workspace's tsserver, `go list`)
//! and reads what the workspace names (`.clangd`, `pyrightconfig.json`). The file system is
//! read-only but for the places the server's definition declares (`writable`) and a private
//! `$TMPDIR`; the roots' secrets are masked and the daemon's folders and socket hidden; the
//! network is off unless the definition says it needs it. With namespaces the daemon starts its
//! own binary as `coderd sandbox-exec` (`exec::sandbox::wrapper`), with Landlock the server
//! itself under the ruleset; with `exec.sandbox: off` the server runs as the daemon's user.
//!
//! The environment is the one commands get (secrets scrubbed), with the server's `env`, and under
//! `lsp.trust: untrusted` its `inside_roots_only` variables.

use super::servers::{ServerDef, Trust};
use coderd_core::workspace::Workspace;
use coderd_exec::environment;
use coderd_exec::sandbox::{self, wrapper, Helper, Kind};
use serde_json::json;
use std::ffi::OsString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;

/// What servers are confined by: the workspace (roots, secrets, config) and the daemon's socket.
pub struct Confine {
    pub workspace: Arc<Workspace>,
    pub socket: PathBuf,
}

/// A server's command, ready to spawn, and what must live as long as the server.
pub struct Confined {
    pub command: tokio::process::Command,
    /// The private temp folder (and Landlock ruleset): removed when the server is gone.
    pub helper: Helper,
    /// The places, on the descriptor the wrapper reads: needed until the spawn.
    pub places_fd: Option<OwnedFd>,
}

impl Confined {
    /// The server runs in namespaces of its own, where the daemon's pid means nothing.
    pub fn in_namespaces(&self) -> bool {
        self.helper.kind == Kind::Namespaces
    }
}

/// The command that starts `def` in `root`, confined.
pub fn command(
    confine: &Confine,
    def: &ServerDef,
    executable: &Path,
    root: &Path,
) -> Result<Confined, String> {
    let state = &confine.workspace;
    let limits = state.limits();
    let writable: Vec<PathBuf> = def
        .writable
        .iter()
        .filter_map(|entry| match entry.strip_prefix("{root}") {
            Some(rest) => Some(root.join(rest.trim_start_matches('/'))),
            None => sandbox::expand(entry),
        })
        .collect();
    // The install folder is in the daemon's data folder by default: it stays visible.
    let keep: Vec<PathBuf> = super::servers::install_dir()
        .and_then(|d| d.canonicalize().ok())
        .into_iter()
        .collect();
    let needs = sandbox::HelperNeeds {
        writable: &writable,
        network: def.network,
        keep: &keep,
    };
    let helper = sandbox::prepare_helper(state, &confine.socket, &limits.exec.sandbox, &needs)
        .map_err(|e| format!("sandboxing {}: {}", def.name, e.message))?;
    let mut env = environment::scrubbed(std::env::vars_os(), &limits.exec.env_passthrough);
    set(&mut env, "PATH", search_path());
    for (name, value) in &def.env {
        set(&mut env, name, value.into());
    }
    if limits.lsp.trust == Trust::Untrusted {
        for (name, file) in def.untrusted.iter().flat_map(|u| &u.inside_roots_only) {
            set(&mut env, name, inside_roots(state, root, file));
        }
    }
    if let Some(temp) = helper.temp_dir() {
        set(&mut env, "TMPDIR", temp.into());
    }
    let (mut command, places_fd) = match &helper.places {
        Some(places) => {
            let places = serde_json::to_vec(places).map_err(|e| e.to_string())?;
            let fd = memfd(&places).map_err(|e| format!("sandboxing {}: {e}", def.name))?;
            let mut command = tokio::process::Command::new("/proc/self/exe");
            command.arg(wrapper::SUBCOMMAND).arg("--").arg(executable);
            let raw = fd.as_raw_fd();
            // SAFETY: dup2 is async-signal-safe; the memfd stays open until the spawn returns.
            unsafe {
                command.pre_exec(move || match libc::dup2(raw, wrapper::PLACES_FD) {
                    -1 => Err(std::io::Error::last_os_error()),
                    _ => Ok(()),
                });
            }
            (command, Some(fd))
        }
        None => (tokio::process::Command::new(executable), None),
    };
    if let Some(in_child) = helper.landlock_child() {
        // SAFETY: plain system calls only (see `landlock::InChild::enter`).
        unsafe {
            command.pre_exec(move || in_child.enter());
        }
    }
    command
        .args(&def.args)
        .current_dir(root)
        .env_clear()
        .envs(env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    Ok(Confined {
        command,
        helper,
        places_fd,
    })
}

/// `def` as the server is to be told it: with `bundled_typescript`, `tsserver.path` set to the
/// TypeScript installed beside the executable (never a workspace's: without one, no start).
pub fn effective(def: &Arc<ServerDef>, executable: &Path) -> Result<Arc<ServerDef>, String> {
    if !def.bundled_typescript {
        return Ok(def.clone());
    }
    let tsserver = bundled_tsserver(executable).ok_or_else(|| {
        format!(
            "{}: no TypeScript installed beside {} (it would run a workspace's tsserver); {}",
            def.name,
            executable.display(),
            def.install
        )
    })?;
    let mut def = (**def).clone();
    let options = def.initialization_options.get_or_insert_with(|| json!({}));
    if !options.is_object() {
        *options = json!({});
    }
    options["tsserver"] = json!({ "path": tsserver });
    Ok(Arc::new(def))
}

/// `node_modules/typescript/lib/tsserver.js` in the nearest folder above the executable's real
/// file that has one (node's own lookup from the server's code).
fn bundled_tsserver(executable: &Path) -> Option<PathBuf> {
    let real = executable.canonicalize().ok()?;
    real.ancestors()
        .skip(1)
        .map(|dir| dir.join("node_modules/typescript/lib/tsserver.js"))
        .find(|candidate| candidate.is_file())
}

/// The file named `name` at or above `root`, when it is inside the roots; else `off`.
fn inside_roots(state: &Workspace, root: &Path, name: &str) -> OsString {
    let found = root
        .ancestors()
        .map(|dir| dir.join(name))
        .find(|f| f.exists());
    let inside = |file: &Path| {
        let roots = state.jail.roots();
        roots.iter().any(|r| file.starts_with(&r.path))
    };
    match found {
        Some(file) if inside(&file) => file.into(),
        _ => "off".into(),
    }
}

fn set(env: &mut Vec<(OsString, OsString)>, name: &str, value: OsString) {
    env.retain(|(k, _)| k != name);
    env.push((name.into(), value));
}

/// PATH for a server: the daemon's, then the install folder's `bin/` (tsserver, node tools).
fn search_path() -> OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let extra = super::servers::install_dir().map(|d| d.join("bin"));
    std::env::join_paths(std::env::split_paths(&path).chain(extra)).unwrap_or(path)
}

/// A memory file holding `bytes`, closed on exec unless moved to another descriptor.
fn memfd(bytes: &[u8]) -> std::io::Result<OwnedFd> {
    // SAFETY: memfd_create with a valid name; the descriptor is new and ours.
    let fd = unsafe { libc::memfd_create(c"coderd-places".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor owned by nobody else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    use std::io::Write;
    std::fs::File::from(fd.try_clone()?).write_all(bytes)?;
    Ok(fd)
}
