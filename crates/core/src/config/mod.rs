//! Configuration: the file format (YAML, or TOML by extension), `${VAR}` expansion, defaults, and the
//! split between the jail fields (fixed for the daemon's life) and the budgets (swapped in live).

pub mod exec;
pub mod iii;
pub mod lsp;
pub mod map;

pub use crate::jail::JailSettings;
pub use lsp::LspConfig;
pub use map::MapConfig;

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Budgets and caps. Every one of them can change while the daemon runs (hot reload).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    pub max_read_bytes: u64,
    pub max_write_bytes: u64,
    pub tree_default_depth: usize,
    pub tree_per_folder_limit: usize,
    pub list_default_page_size: usize,
    pub list_max_page_size: usize,
    pub search_default_max_matches: usize,
    pub search_default_max_line_bytes: usize,
    pub search_response_budget_bytes: usize,
    pub batch_read_budget_bytes: u64,
    pub max_output_bytes: u64,
    /// fsync each written file and its folder before an edit is reported done.
    pub fsync: bool,
    /// Bytes of file content the documents store keeps in memory (least recently used go first).
    pub documents_max_bytes: u64,
    /// Editing a file this session has not read (or that changed since it read it) is C212.
    pub require_read_before_edit: bool,
    /// The memory the daemon keeps itself under; heavy-request concurrency and per-request heap
    /// budgets are derived from it (see `memory::Policy`).
    pub max_memory_bytes: u64,
    /// Snapshot the workspace before every mutating call (see `checkpoint::auto`).
    pub checkpoints: bool,
    /// At most one automatic snapshot per this many milliseconds.
    pub checkpoint_interval_ms: u64,
    /// Untracked files larger than this are left out of snapshots (and reported).
    pub checkpoint_max_file_bytes: u64,
    /// A workspace with more files than this is not snapshotted.
    pub checkpoint_max_files: u64,
    /// A map (or `symbols`) of a folder with more source files than this is refused (C213): the
    /// tag index keeps every file's tags in memory, about 2.5 KiB a file.
    pub map_max_files: u64,
    /// A map (or `symbols`) of a folder whose files hold more tags than this (outline items and
    /// distinct names used, summed over its files) is refused (C213): a tag costs 100–350 bytes
    /// of memory, and a file's count is bounded only by its size (a 1 MB file may hold 70,000).
    pub map_max_tags: u64,
    /// The map watches at most this many folders (one inotify watch each) to learn what changed;
    /// a tree with more is walked and stat'ed on every map instead (0: never watch).
    pub map_watch_max_folders: u64,
    /// Running commands (`exec`, `test`): the policy and process limits (see docs/exec-safety.md).
    pub exec: exec::ExecConfig,
    /// Attach language-server diagnostics to edit answers (`diagnostics: false` turns it off per
    /// request, `CODER_AUTODIAG=off` per client).
    pub autodiag: bool,
    /// Language servers: deadlines, settling, reaping, and servers added or chosen (see `lsp`).
    pub lsp: LspConfig,
    /// A connection with no request running and no frame arriving is closed after this long.
    pub idle_timeout_secs: u64,
    /// The daemon stops after this long with no connection open (0: never). A daemon a client
    /// started (`coder`, `coderd mcp`, a ChatCLI plugin call) gets 1800 from its `--idle-exit`.
    pub idle_exit_secs: u64,
    /// A request frame must arrive whole (up to its newline) within this long of its first
    /// byte; a half-written one is dropped and its connection closed.
    pub frame_timeout_secs: u64,
    /// A client that takes no byte of its waiting answers for this long is disconnected (see
    /// `outbox`).
    pub write_timeout_secs: u64,
    /// Connections kept open at once; unset: the file-descriptor limit less a reserve (see
    /// `connections`).
    pub max_connections: Option<usize>,
    /// The iii engine face (`coderd iii`): engine, namespace, functions (see `iii`).
    pub iii: iii::IiiConfig,
    /// The map: how much of the repository's history its ranking reads (see `history`).
    pub map: MapConfig,
}

impl Default for Limits {
    fn default() -> Self {
        const MIB: u64 = 1024 * 1024;
        Limits {
            max_read_bytes: 10 * MIB,
            max_write_bytes: 10 * MIB,
            tree_default_depth: 4,
            tree_per_folder_limit: 50,
            list_default_page_size: 100,
            list_max_page_size: 1000,
            search_default_max_matches: 1000,
            search_default_max_line_bytes: 4096,
            search_response_budget_bytes: 256 * 1024,
            batch_read_budget_bytes: MIB,
            max_output_bytes: 128 * 1024,
            fsync: true,
            documents_max_bytes: 256 * MIB,
            require_read_before_edit: false,
            max_memory_bytes: 512 * MIB,
            checkpoints: true,
            checkpoint_interval_ms: 15_000,
            checkpoint_max_file_bytes: 10 * MIB,
            checkpoint_max_files: 50_000,
            map_max_files: 300_000,
            map_max_tags: 3_000_000,
            map_watch_max_folders: 50_000,
            exec: exec::ExecConfig::default(),
            autodiag: true,
            lsp: LspConfig::default(),
            idle_timeout_secs: 600,
            idle_exit_secs: 0,
            frame_timeout_secs: 30,
            write_timeout_secs: 30,
            max_connections: None,
            iii: iii::IiiConfig::default(),
            map: MapConfig::default(),
        }
    }
}

/// Secrets are unreadable unless a config says otherwise (`non_accessible_globs: []` opts out).
/// Beside `.env` files and keys, the usual credential files: SSH private keys (every
/// `.ssh/id_*` but a `*.pub`, spelled as four globs since a glob cannot say "not"), cloud, git,
/// package-registry and Docker credentials, certificate bundles and password databases.
pub const DEFAULT_NON_ACCESSIBLE: &[&str] = &[
    "**/.env",
    "**/.env.*",
    "**/*.pem",
    "**/*.key",
    "**/secrets/**",
    "**/id_rsa*",
    "**/.ssh/id_*[!b]",
    "**/.ssh/id_*[!u]b",
    "**/.ssh/id_*[!p]ub",
    "**/.ssh/id_*[!.]pub",
    "**/.aws/credentials",
    "**/.netrc",
    "**/.npmrc",
    "**/.pypirc",
    "**/.git-credentials",
    "**/.docker/config.json",
    "**/*.p12",
    "**/*.pfx",
    "**/*.kdbx",
];

pub const DEFAULT_EXCLUDES: &[&str] = &[
    ".git",
    "node_modules",
    "target",
    "dist",
    ".venv",
    "__pycache__",
];

/// Validates the config sections the subsystems own (see `Config::load`); the error names the key.
pub type SectionCheck = fn(&Limits) -> std::result::Result<(), String>;

#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub jail: JailSettings,
    pub limits: Limits,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            jail: JailSettings {
                base_paths: Vec::new(),
                non_accessible_globs: DEFAULT_NON_ACCESSIBLE
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
                non_accessible_case_insensitive: true,
                refuse_hardlinked_reads: false,
                allow_git_dir: false,
                allow_broad_roots: false,
                default_exclude_globs: DEFAULT_EXCLUDES.iter().map(|s| s.to_string()).collect(),
            },
            limits: Limits::default(),
        }
    }
}

/// The jail keys as written; the rest of the file is `Limits`.
#[derive(Deserialize, Default)]
struct JailKeys {
    base_paths: Option<Vec<PathBuf>>,
    base_path: Option<PathBuf>,
    non_accessible_globs: Option<Vec<String>>,
    non_accessible_case_insensitive: Option<bool>,
    default_exclude_globs: Option<Vec<String>>,
    refuse_hardlinked_reads: Option<bool>,
    allow_broad_roots: Option<bool>,
    edit: Option<EditKeys>,
}

/// The `edit` section: what coderd's own edit methods may write.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct EditKeys {
    #[serde(default)]
    allow_git_dir: bool,
}

pub const JAIL_KEYS: &[&str] = &[
    "base_paths",
    "base_path",
    "non_accessible_globs",
    "non_accessible_case_insensitive",
    "default_exclude_globs",
    "refuse_hardlinked_reads",
    "allow_broad_roots",
    "edit",
];

impl Config {
    /// Reads and validates a config file. Relative `base_paths` resolve against the file's folder.
    ///
    /// `check` validates the sections subsystems own (`exec` rules, `lsp` servers), at the point
    /// of the budget checks where they always ran: the layer above the subsystems passes it.
    pub fn load(path: &Path, check: SectionCheck) -> Result<Config> {
        let raw = std::fs::read_to_string(path).map_err(|e| Error::from_io(&e, path))?;
        let fail = |msg: String| {
            Error::bad_input(format!("config {}: {msg}", path.display()))
                .with_recovery("fix the file; see docs/configuration.md")
        };
        let mut value = parse(&raw, path.extension().is_some_and(|e| e == "toml")).map_err(fail)?;
        // Expanded in string values only, after parsing, so a `${...}` in a comment is just text.
        expand_strings(&mut value).map_err(fail)?;
        let base_dir = path.parent().unwrap_or(Path::new("."));
        Config::from_value(value, base_dir, check).map_err(|e| fail(e.message))
    }

    /// Splits the document into the jail keys and the budgets, naming the key on any type error.
    fn from_value(
        value: serde_json::Value,
        base_dir: &Path,
        check: SectionCheck,
    ) -> Result<Config> {
        let serde_json::Value::Object(mut map) = value else {
            return Err(Error::bad_input("the top level must be a mapping of keys"));
        };
        let mut jail_map = serde_json::Map::new();
        for key in JAIL_KEYS {
            if let Some(v) = map.remove(*key) {
                jail_map.insert(key.to_string(), v);
            }
        }
        let keys: JailKeys = typed(serde_json::Value::Object(jail_map))?;
        let limits: Limits = typed(serde_json::Value::Object(map))?;
        let base_paths =
            match (keys.base_paths, keys.base_path) {
                (Some(_), Some(_)) => return Err(Error::bad_input(
                    "both `base_paths` and the legacy `base_path` are set; keep only `base_paths`",
                )),
                (Some(list), None) => list,
                (None, Some(one)) => vec![one],
                (None, None) => Vec::new(),
            };
        let defaults = Config::default();
        let config = Config {
            jail: JailSettings {
                base_paths: base_paths.into_iter().map(|p| base_dir.join(p)).collect(),
                non_accessible_globs: keys
                    .non_accessible_globs
                    .unwrap_or(defaults.jail.non_accessible_globs),
                non_accessible_case_insensitive: keys
                    .non_accessible_case_insensitive
                    .unwrap_or(defaults.jail.non_accessible_case_insensitive),
                refuse_hardlinked_reads: keys
                    .refuse_hardlinked_reads
                    .unwrap_or(defaults.jail.refuse_hardlinked_reads),
                allow_git_dir: keys.edit.is_some_and(|e| e.allow_git_dir),
                allow_broad_roots: keys.allow_broad_roots.unwrap_or(false),
                default_exclude_globs: keys
                    .default_exclude_globs
                    .unwrap_or(defaults.jail.default_exclude_globs),
            },
            limits,
        };
        config.limits.validate(check)?;
        Ok(config)
    }
}

/// YAML (or TOML) text to a JSON value; an empty YAML file is an empty mapping.
fn parse(text: &str, is_toml: bool) -> std::result::Result<serde_json::Value, String> {
    if is_toml {
        return toml::from_str(text).map_err(|e| e.to_string());
    }
    if text.trim().is_empty() {
        return Ok(serde_json::Value::Object(Default::default()));
    }
    serde_norway::from_str(text).map_err(|e| e.to_string())
}

fn typed<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> Result<T> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        Error::bad_input(format!("`{path}`: {}", e.into_inner()))
    })
}

impl Limits {
    fn validate(&self, check: SectionCheck) -> Result<()> {
        let positive = [
            ("max_read_bytes", self.max_read_bytes),
            ("max_write_bytes", self.max_write_bytes),
            ("tree_default_depth", self.tree_default_depth as u64),
            ("tree_per_folder_limit", self.tree_per_folder_limit as u64),
            ("list_default_page_size", self.list_default_page_size as u64),
            ("list_max_page_size", self.list_max_page_size as u64),
            (
                "search_default_max_matches",
                self.search_default_max_matches as u64,
            ),
            (
                "search_default_max_line_bytes",
                self.search_default_max_line_bytes as u64,
            ),
            (
                "search_response_budget_bytes",
                self.search_response_budget_bytes as u64,
            ),
            ("batch_read_budget_bytes", self.batch_read_budget_bytes),
            ("max_output_bytes", self.max_output_bytes),
            ("max_memory_bytes", self.max_memory_bytes),
            ("checkpoint_max_files", self.checkpoint_max_files),
            ("lsp.warm_deadline_ms", self.lsp.warm_deadline_ms),
            ("lsp.cold_deadline_ms", self.lsp.cold_deadline_ms),
            ("lsp.idle_secs", self.lsp.idle_secs),
            ("map.history_max_files", self.map.history_max_files as u64),
            ("idle_timeout_secs", self.idle_timeout_secs),
            ("frame_timeout_secs", self.frame_timeout_secs),
            ("write_timeout_secs", self.write_timeout_secs),
            (
                "max_connections",
                self.max_connections.map_or(1, |n| n as u64),
            ),
        ];
        if let Some((name, _)) = positive.iter().find(|(_, v)| *v == 0) {
            return Err(Error::bad_input(format!("`{name}` must be greater than 0")));
        }
        if self.map.history_commits > map::MAX_HISTORY_COMMITS {
            return Err(Error::bad_input(format!(
                "`map.history_commits` must be at most {}",
                map::MAX_HISTORY_COMMITS
            )));
        }
        if self.tree_default_depth > 20 {
            return Err(Error::bad_input(
                "`tree_default_depth` must be between 1 and 20",
            ));
        }
        if self.max_memory_bytes < crate::memory::MIN_MEMORY_BYTES {
            return Err(Error::bad_input(format!(
                "`max_memory_bytes` must be at least {} (16 MiB)",
                crate::memory::MIN_MEMORY_BYTES
            )));
        }
        check(self).map_err(Error::bad_input)?;
        if self.list_default_page_size > self.list_max_page_size {
            return Err(Error::bad_input(
                "`list_default_page_size` exceeds `list_max_page_size`",
            ));
        }
        Ok(())
    }
}

fn expand_strings(value: &mut serde_json::Value) -> std::result::Result<(), String> {
    match value {
        serde_json::Value::String(s) => *s = expand_env(s)?,
        serde_json::Value::Array(items) => items.iter_mut().try_for_each(expand_strings)?,
        serde_json::Value::Object(map) => map.values_mut().try_for_each(expand_strings)?,
        _ => {}
    }
    Ok(())
}

/// Expands `${VAR}` from the environment; an unset variable is an error rather than a silent "".
/// `$${` is a literal `${`.
pub fn expand_env(text: &str) -> std::result::Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(pos) = rest.find('$') {
        out.push_str(&rest[..pos]);
        rest = &rest[pos..];
        if let Some(after) = rest.strip_prefix("$${") {
            out.push_str("${");
            rest = after;
        } else if let Some(after) = rest.strip_prefix("${") {
            let end = after.find('}').ok_or("unterminated `${` in config")?;
            let name = &after[..end];
            let value = std::env::var(name).map_err(|_| {
                format!("environment variable `{name}` is not set (used as ${{{name}}})")
            })?;
            out.push_str(&value);
            rest = &after[end + 1..];
        } else {
            out.push('$');
            rest = &rest[1..];
        }
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `exec` and `lsp` sections' own checks belong to those crates; the daemon's tests run
    /// them (methods::state).
    fn no_section_checks(_: &Limits) -> std::result::Result<(), String> {
        Ok(())
    }

    #[test]
    fn expands_variables_and_escapes() {
        std::env::set_var("CODERD_TEST_HOME", "/home/x");
        assert_eq!(
            expand_env("a: ${CODERD_TEST_HOME}/w $$${b} $5").unwrap(),
            "a: /home/x/w $${b} $5"
        );
        assert!(expand_env("${CODERD_TEST_SURELY_UNSET}")
            .unwrap_err()
            .contains("CODERD_TEST_SURELY_UNSET"));
    }

    #[test]
    fn both_base_path_forms_conflict() {
        let value = parse("base_path: a\nbase_paths: [b]", false).unwrap();
        let err = Config::from_value(value, Path::new("/"), no_section_checks).unwrap_err();
        assert!(err.message.contains("base_path"));
    }

    #[test]
    fn budgets_parse_from_yaml_and_toml() {
        let y = parse("max_output_bytes: 7\nbase_paths: [w]", false).unwrap();
        let c = Config::from_value(y, Path::new("/etc"), no_section_checks).unwrap();
        assert_eq!(c.limits.max_output_bytes, 7);
        assert_eq!(c.jail.base_paths, vec![PathBuf::from("/etc/w")]);
        let t = parse("tree_default_depth = 3", true).unwrap();
        assert_eq!(
            Config::from_value(t, Path::new("/"), no_section_checks)
                .unwrap()
                .limits
                .tree_default_depth,
            3
        );
    }

    #[test]
    fn jail_switches_parse_and_default() {
        let none = Config::from_value(parse("", false).unwrap(), Path::new("/"), no_section_checks)
            .unwrap();
        assert!(none.jail.non_accessible_case_insensitive);
        assert!(!none.jail.refuse_hardlinked_reads);
        let off = parse(
            "non_accessible_case_insensitive: false\nrefuse_hardlinked_reads: true",
            false,
        )
        .unwrap();
        let off = Config::from_value(off, Path::new("/"), no_section_checks).unwrap();
        assert!(!off.jail.non_accessible_case_insensitive);
        assert!(off.jail.refuse_hardlinked_reads);
        assert_eq!(off.limits, Limits::default());
        assert!(!none.jail.allow_git_dir);
        let load = |text: &str| {
            Config::from_value(
                parse(text, false).unwrap(),
                Path::new("/"),
                no_section_checks,
            )
        };
        assert!(
            load("edit:\n  allow_git_dir: true")
                .unwrap()
                .jail
                .allow_git_dir
        );
        let typo = load("edit:\n  allow_gitdir: true").unwrap_err();
        assert!(typo.message.contains("allow_gitdir"), "{}", typo.message);
    }

    #[test]
    fn the_default_secrets_cover_credential_files_but_not_public_keys() {
        let settings = Config::default().jail;
        let secrets = crate::globs::compile_policy(
            "non_accessible_globs",
            &settings.non_accessible_globs,
            true,
        )
        .unwrap();
        for secret in [
            "home/.ssh/id_ed25519",
            "home/.ssh/id_rsa",
            "home/.ssh/id_ecdsa_sk",
            "home/.ssh/id_work",
            ".aws/credentials",
            "dev/.netrc",
            ".npmrc",
            "pkg/.pypirc",
            ".git-credentials",
            ".docker/config.json",
            "certs/client.p12",
            "certs/client.PFX",
            "vault/passwords.kdbx",
            "tls/server.key",
        ] {
            assert!(secrets.is_match(secret), "{secret} should be a secret");
        }
        for public in [
            "home/.ssh/id_ed25519.pub",
            "home/.ssh/id_work.pub",
            "home/.ssh/known_hosts",
            "home/.ssh/config",
            ".aws/config",
            ".docker/daemon.json",
            "src/keys.rs",
        ] {
            assert!(!secrets.is_match(public), "{public} should stay readable");
        }
    }

    #[test]
    fn errors_name_the_key() {
        let bad = parse("max_output_bytes: lots", false).unwrap();
        assert!(Config::from_value(bad, Path::new("/"), no_section_checks)
            .unwrap_err()
            .message
            .contains("`max_output_bytes`"));
        let unknown = parse("max_outptu_bytes: 1", false).unwrap();
        assert!(
            Config::from_value(unknown, Path::new("/"), no_section_checks)
                .unwrap_err()
                .message
                .contains("max_outptu_bytes")
        );
        let zero = parse("list_max_page_size: 0", false).unwrap();
        assert!(Config::from_value(zero, Path::new("/"), no_section_checks)
            .unwrap_err()
            .message
            .contains("list_max_page_size"));
    }
}
