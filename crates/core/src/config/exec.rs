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
    /// Commands (`exec` and `test`) running at once; more wait for a slot, at most their own
    /// timeout (then C218). Unset: twice the cores.
    pub max_concurrent: Option<usize>,
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
            max_concurrent: None,
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
    /// Files and folders outside the roots that commands see empty (credentials in the home
    /// folder): `~/`, `$VAR` as in `writable`; `*`, `?` and `[...]` in the last component; a
    /// leading `!` keeps what it matches visible (`!~/.ssh/*.pub`).
    pub hidden: Vec<String>,
    /// What one run may use (see `Limits`).
    pub limits: Limits,
}

/// Credentials outside the roots that no command reads (`exec.sandbox.hidden`).
pub const DEFAULT_HIDDEN: &[&str] = &[
    "~/.ssh/*",
    "!~/.ssh/*.pub",
    "!~/.ssh/known_hosts",
    "!~/.ssh/known_hosts.old",
    "~/.aws",
    "~/.gnupg",
    "~/.config/gcloud",
    "~/.kube",
    "~/.docker/config.json",
    "~/.netrc",
    "~/.git-credentials",
    "~/.config/git/credentials",
    "~/.npmrc",
    "~/.pypirc",
    "~/.cargo/credentials*",
    "~/.config/gh",
];

/// `exec.sandbox.limits`: the memory (resident, page cache and the private `$TMPDIR` included),
/// processes and `$TMPDIR` bytes one run may use. A number is bytes; a string may carry a unit
/// (`200MiB`, `4G`, `512k`). `null` lifts a limit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    #[serde(deserialize_with = "size::optional")]
    pub memory: Option<u64>,
    pub pids: Option<u64>,
    #[serde(deserialize_with = "size::optional")]
    pub tmp: Option<u64>,
}

impl Default for Limits {
    fn default() -> Self {
        const GIB: u64 = 1 << 30;
        Limits {
            memory: Some(4 * GIB),
            pids: Some(4096),
            tmp: Some(GIB),
        }
    }
}

/// Sizes written with a unit.
pub mod size {
    use serde::{Deserialize, Deserializer};

    /// Bytes in `text`: a number with an optional unit, `k`/`M`/`G`/`T` (powers of 1024, with or
    /// without `iB` or `B`).
    pub fn parse(text: &str) -> Result<u64, String> {
        let text = text.trim();
        let digits = text
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(text.len());
        let (number, unit) = text.split_at(digits);
        let number: u64 = number
            .parse()
            .map_err(|_| format!("`{text}` is not a size (a number with a unit such as MiB)"))?;
        let shift = match unit.trim().to_ascii_lowercase().as_str() {
            "" | "b" => 0,
            "k" | "kb" | "kib" => 10,
            "m" | "mb" | "mib" => 20,
            "g" | "gb" | "gib" => 30,
            "t" | "tb" | "tib" => 40,
            other => return Err(format!("`{other}` is not a unit of size (k, M, G, T)")),
        };
        number
            .checked_mul(1 << shift)
            .ok_or_else(|| format!("`{text}` is too large"))
    }

    pub fn optional<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        #[derive(Deserialize)]
        #[serde(
            untagged,
            expecting = "a size: bytes, or a number with a unit such as 200MiB"
        )]
        enum Size {
            Bytes(u64),
            Text(String),
        }
        match Option::<Size>::deserialize(d)? {
            None => Ok(None),
            Some(Size::Bytes(n)) => Ok(Some(n)),
            Some(Size::Text(t)) => parse(&t).map(Some).map_err(serde::de::Error::custom),
        }
    }
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
            hidden: DEFAULT_HIDDEN.iter().map(|s| s.to_string()).collect(),
            limits: Limits::default(),
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
            hidden: Vec<String>,
            limits: Limits,
        }
        impl Default for Full {
            fn default() -> Self {
                let d = SandboxConfig::default();
                Full {
                    mode: d.mode,
                    writable: d.writable,
                    network: d.network,
                    hidden: d.hidden,
                    limits: d.limits,
                }
            }
        }
        #[derive(Deserialize)]
        #[serde(
            untagged,
            expecting = "a mode (auto, namespaces, landlock, off) or {mode, writable, network, hidden, limits}"
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
                hidden: full.hidden,
                limits: full.limits,
            },
        })
    }
}
