//! The `exec:` section of the daemon config: what commands may run and how they are sandboxed.
//! The settings only; what they mean is `exec::policy` (`ExecConfig::validate` compiles the
//! rules) and `exec::sandbox`.

use serde::{Deserialize, Serialize};

/// The `exec` section of the daemon config.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExecConfig {
    /// `exec` and `test` run commands at all.
    pub enabled: bool,
    /// Argv rules (`git push *`) that refuse any simple command they match.
    pub deny: Vec<String>,
    /// When not empty, every simple command must match one of these argv rules.
    pub allow: Vec<String>,
    /// Variable names passed to commands even though they look like secrets.
    pub env_passthrough: Vec<String>,
    /// Where commands may write and what they see (see `sandbox`).
    pub sandbox: SandboxConfig,
    /// Seconds an `exec` may run when the request names no `timeout`.
    pub default_timeout: u64,
    /// The largest `timeout` a request may ask for (`exec` and `test`).
    pub max_timeout: u64,
    /// Seconds a `test` run may take when the request names no `timeout`.
    pub test_timeout: u64,
}

impl Default for ExecConfig {
    fn default() -> Self {
        ExecConfig {
            enabled: true,
            deny: Vec::new(),
            allow: Vec::new(),
            env_passthrough: Vec::new(),
            sandbox: Default::default(),
            default_timeout: 120,
            max_timeout: 3600,
            test_timeout: 30,
        }
    }
}

/// The `exec.sandbox` section. The scalar forms of earlier configs still parse: `none` is `off`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SandboxConfig {
    pub mode: Mode,
    /// Places writable besides the roots and the private temp folder: `~/` is the daemon's home,
    /// a leading `$VAR` a variable of its environment (the entry is skipped when it is unset).
    /// A place missing when a command starts is created first.
    pub writable: Vec<String>,
    /// `false` runs commands in a network namespace of their own (loopback only).
    pub network: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Auto,
    Namespaces,
    Landlock,
    #[serde(alias = "none")]
    Off,
}

/// The tool caches a build writes (toolchains themselves, `~/.cargo/bin` and `~/.rustup`, stay
/// read-only).
pub const DEFAULT_WRITABLE: &[&str] = &[
    "~/.cargo/registry",
    "~/.cargo/git",
    "$CARGO_TARGET_DIR",
    "~/go/pkg/mod",
    "$GOMODCACHE",
    "~/.cache/go-build",
    "$GOCACHE",
    "~/.npm",
    "~/.cache/pip",
    "~/.m2",
];

impl Default for SandboxConfig {
    fn default() -> Self {
        SandboxConfig {
            mode: Mode::Auto,
            writable: DEFAULT_WRITABLE.iter().map(|s| s.to_string()).collect(),
            network: true,
        }
    }
}

impl<'de> Deserialize<'de> for SandboxConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(default, deny_unknown_fields)]
        struct Full {
            mode: Mode,
            writable: Vec<String>,
            network: bool,
        }
        impl Default for Full {
            fn default() -> Self {
                let d = SandboxConfig::default();
                Full {
                    mode: d.mode,
                    writable: d.writable,
                    network: d.network,
                }
            }
        }
        #[derive(Deserialize)]
        #[serde(
            untagged,
            expecting = "a mode (auto, namespaces, landlock, off) or {mode, writable, network}"
        )]
        enum Form {
            Mode(Mode),
            Full(Full),
        }
        Ok(match Form::deserialize(d)? {
            Form::Mode(mode) => SandboxConfig {
                mode,
                ..SandboxConfig::default()
            },
            Form::Full(full) => SandboxConfig {
                mode: full.mode,
                writable: full.writable,
                network: full.network,
            },
        })
    }
}
