//! The `lsp:` section of the daemon config and the form of one server definition (also the form
//! of `data/servers.toml`). The settings only; `lsp::servers` applies them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The `lsp:` section of the config.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LspConfig {
    /// How long an edit waits for a ready server's diagnostics before answering `pending`.
    pub warm_deadline_ms: u64,
    /// The same, when the server is still starting (first file of a language).
    pub cold_deadline_ms: u64,
    /// Quiet time after the matching publish before a set counts as settled.
    pub settle_ms: u64,
    /// A server unused this long is stopped.
    pub idle_secs: u64,
    /// When the servers together use more memory than this, the least recently used is stopped.
    pub max_servers_rss_bytes: u64,
    /// Start a language's servers when an agent first reads or outlines one of its files, so
    /// that its first edit finds them loaded (rust-analyzer needs seconds to load a project).
    pub warm_on_read: bool,
    /// Servers beside the built-in ones (`data/servers.toml`), in the same form; one with a
    /// built-in's name replaces it.
    pub servers: Vec<ServerDef>,
    /// The servers a language runs, by name, instead of the registry's (`[]`: none).
    pub languages: std::collections::BTreeMap<String, Vec<String>>,
    /// Whether the workspace's own code may run inside the servers (build scripts, proc-macros,
    /// a workspace tsserver, toolchain downloads): `untrusted` merges each server's `untrusted`
    /// table. Trusted or not, servers run inside the sandbox.
    pub trust: Trust,
}

/// `lsp.trust`: a safety switch of the config, never of a request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Trust {
    #[default]
    Untrusted,
    Trusted,
}

impl Default for LspConfig {
    fn default() -> Self {
        LspConfig {
            warm_deadline_ms: 2_000,
            cold_deadline_ms: 10_000,
            settle_ms: 150,
            idle_secs: 600,
            max_servers_rss_bytes: 4 * 1024 * 1024 * 1024,
            warm_on_read: true,
            servers: Vec::new(),
            languages: Default::default(),
            trust: Trust::Untrusted,
        }
    }
}

/// One `[[server]]` of `data/servers.toml`, or one entry of the config's `lsp.servers`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerDef {
    pub name: String,
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    pub languages: Vec<String>,
    /// The server runs only for a language whose `lsp.languages` names it (an alternative to
    /// the default ones, as ty is to pyright).
    #[serde(default)]
    pub opt_in: bool,
    #[serde(default)]
    pub root_markers: Vec<String>,
    /// The server analyses only the files of a project, one of its `root_markers` in their
    /// folder or above, the workspace root's parents included (rust-analyzer: a Cargo project). For other files it is not started:
    /// it would answer nothing, and a check that never runs would hold every edit to the deadline.
    #[serde(default)]
    pub project_only: bool,
    #[serde(default)]
    pub initialization_options: Option<Value>,
    /// What `workspace/configuration` is answered with.
    #[serde(default)]
    pub settings: Option<Value>,
    /// How to install it, shown when it is unavailable.
    #[serde(default)]
    pub install: String,
    /// How to get a document's current diagnostics besides the LSP ways (see `tsserver`).
    #[serde(default)]
    pub pull: Option<PullVia>,
    /// The server reports whether it has loaded its workspace (`experimental/serverStatus`,
    /// `quiescent`): it counts as busy from its start until it says so, since its first answers
    /// can come before any loading progress opens and would read as "clean".
    #[serde(default)]
    pub quiescent_status: bool,
    /// A publish stamped with a document's version is the whole set for that version (clangd
    /// publishes once per build): it is current at once, without the quiet period that guards
    /// servers publishing a version in several steps.
    #[serde(default)]
    pub final_publish: bool,
    /// The server checks the saved files with another tool (rust-analyzer's `cargo check`),
    /// inside work-done progress whose token starts with this, and publishes what it finds. An
    /// edit's answer adds those findings from the first run that began after the edit's save,
    /// once it has ended; findings of earlier runs are never shown. Used with servers that
    /// answer pulls for their own findings; a server that only publishes is settled by the
    /// publish rule, which waits for its open progress, the check's too.
    #[serde(default)]
    pub check_progress: Option<String>,
    /// Where the sandboxed server may write besides its private `$TMPDIR`: `{root}/...` (its
    /// root's build outputs), `~/...`, `$VAR/...`, absolute paths. Everything else is read-only.
    #[serde(default)]
    pub writable: Vec<String>,
    /// The server needs the network (off by default: its sandbox has only a loopback).
    #[serde(default)]
    pub network: bool,
    /// Environment variables set for the server.
    #[serde(default)]
    pub env: std::collections::BTreeMap<String, String>,
    /// The server is told to use the TypeScript installed beside it (`tsserver.path`), never a
    /// workspace's `node_modules` one; without one it does not start.
    #[serde(default)]
    pub bundled_typescript: bool,
    /// What `lsp.trust: untrusted` changes (see `Untrusted`).
    #[serde(default)]
    pub untrusted: Option<Untrusted>,
}

/// A server's settings under `lsp.trust: untrusted`: merged over its definition so that the
/// workspace's code does not run where the server lets that be switched off.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Untrusted {
    /// Merged (recursively) into `initialization_options`.
    #[serde(default)]
    pub initialization_options: Option<Value>,
    /// Merged (recursively) into `settings`.
    #[serde(default)]
    pub settings: Option<Value>,
    /// Added to `env`.
    #[serde(default)]
    pub env: std::collections::BTreeMap<String, String>,
    /// Variables naming a file found at or above the server's root (`GOWORK = "go.work"`): set
    /// to that file when it is inside the roots, else to `off`.
    #[serde(default)]
    pub inside_roots_only: std::collections::BTreeMap<String, String>,
    /// The server checks no saves any more (`check_progress` dropped: no edit waits for a check).
    #[serde(default)]
    pub no_checks: bool,
    /// What it switches off, in words (`info` shows it).
    #[serde(default)]
    pub switched_off: Vec<String>,
}

/// A server-specific way to ask for a document's current diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PullVia {
    /// typescript-language-server's `typescript.tsserverRequest` command.
    TsserverRequest,
}

impl ServerDef {
    /// The answer to one `workspace/configuration` item: the settings under its dotted `section`
    /// (null when absent), or all of them.
    pub fn setting(&self, section: Option<&str>) -> Value {
        let Some(settings) = &self.settings else {
            return Value::Null;
        };
        let Some(section) = section.filter(|s| !s.is_empty()) else {
            return settings.clone();
        };
        section
            .split('.')
            .try_fold(settings, |value, key| value.get(key))
            .cloned()
            .unwrap_or(Value::Null)
    }
}
