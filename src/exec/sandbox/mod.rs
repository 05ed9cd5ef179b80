//! Where a command may write and what it may see. `exec.sandbox` in the daemon config:
//! `mode` (`auto` by default: user namespaces where the kernel allows them, else Landlock, else a
//! refusal; `namespaces`, `landlock` or `off` to insist), `writable` (tool caches beside the roots
//! and the run's private temp folder) and `network`.
//!
//! - `namespaces` (`namespaces.rs`): the whole file system read-only except the writable places,
//!   secrets inside the roots masked (`secrets.rs`), the daemon's own folders hidden, a minimal
//!   `/dev`, a fresh `/proc`, optionally no network.
//! - `landlock` (`landlock.rs`): writes limited to the same places; reads unrestricted.
//! - `off`: the command runs as the daemon's user, anywhere.

pub mod git_dirs;
pub mod landlock;
pub mod namespaces;
pub mod secrets;

pub use crate::config::exec::{Mode, SandboxConfig, DEFAULT_WRITABLE};
use crate::error::{Error, Result};
use crate::workspace::Workspace;
use serde::Serialize;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The sandbox a run actually gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Namespaces,
    Landlock,
    Off,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Namespaces => "namespaces",
            Kind::Landlock => "landlock",
            Kind::Off => "off",
        }
    }
}

/// Whether user namespaces work here, tried once per daemon.
fn namespaces_work() -> &'static std::result::Result<(), String> {
    static PROBED: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    PROBED.get_or_init(namespaces::probe)
}

/// The sandbox `config` gives on this machine, or why none can be had.
pub fn in_force(config: &SandboxConfig) -> std::result::Result<Kind, String> {
    let landlock = || landlock::kernel_abi().is_some();
    choose(config.mode, namespaces_work, landlock)
}

/// The choice itself: namespaces where they work, else Landlock for `auto`; `off` only when
/// the config says so. The probes run only when the mode needs them.
fn choose(
    mode: Mode,
    namespaces: impl FnOnce() -> &'static std::result::Result<(), String>,
    landlock: impl FnOnce() -> bool,
) -> std::result::Result<Kind, String> {
    const NO_LANDLOCK: &str = "this kernel does not offer Landlock";
    match mode {
        Mode::Off => Ok(Kind::Off),
        Mode::Landlock => match landlock() {
            true => Ok(Kind::Landlock),
            false => Err(NO_LANDLOCK.into()),
        },
        Mode::Namespaces => match namespaces() {
            Ok(()) => Ok(Kind::Namespaces),
            Err(e) => Err(format!("user namespaces do not work here ({e})")),
        },
        Mode::Auto => match (namespaces(), landlock()) {
            (Ok(()), _) => Ok(Kind::Namespaces),
            (Err(_), true) => Ok(Kind::Landlock),
            (Err(e), false) => Err(format!(
                "user namespaces do not work here ({e}) and {NO_LANDLOCK}"
            )),
        },
    }
}

/// The refusal when no sandbox can be had: C214 naming why.
fn refusal(config: &SandboxConfig, why: String) -> Error {
    Error::refused(format!(
        "commands run sandboxed (`exec.sandbox.mode: {}`) but {why}",
        serde_json::to_value(config.mode)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    ))
    .with_recovery(
        "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, \
         user.max_user_namespaces > 0), or set `exec.sandbox: off` in the daemon config to run \
         commands unsandboxed",
    )
}

/// Where commands may write: the roots, then the configured places that resolve (`~/`, `$VAR`).
pub fn writable_places(config: &SandboxConfig, roots: &[PathBuf]) -> Vec<PathBuf> {
    let mut places: Vec<PathBuf> = roots.to_vec();
    for entry in &config.writable {
        if let Some(path) = expand(entry) {
            if !places.contains(&path) {
                places.push(path);
            }
        }
    }
    places
}

fn expand(entry: &str) -> Option<PathBuf> {
    let path = if let Some(rest) = entry.strip_prefix("~/") {
        PathBuf::from(std::env::var_os("HOME").filter(|h| !h.is_empty())?).join(rest)
    } else if let Some(var) = entry.strip_prefix('$') {
        let (name, rest) = var.split_once('/').unwrap_or((var, ""));
        let value = std::env::var_os(name).filter(|v| !v.is_empty())?;
        PathBuf::from(value).join(rest)
    } else {
        PathBuf::from(entry)
    };
    path.is_absolute().then_some(path)
}

/// The daemon's own folders (checkpoints, todo lists, the edit journal, the registry of live
/// daemons) and its socket: hidden from commands, so none can reach the undo history.
fn daemon_places(state: &Workspace, socket: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let folders = [
        crate::paths::data_dir(),
        crate::paths::state_dir(),
        Some(crate::paths::runtime_dir()),
    ];
    let roots: Vec<&Path> = state
        .jail
        .roots()
        .iter()
        .map(|r| r.path.as_path())
        .collect();
    // A folder that holds a root cannot be hidden without hiding the root; it stays read-only.
    let dirs = folders
        .into_iter()
        .flatten()
        .filter_map(|dir| dir.canonicalize().ok())
        .filter(|dir| !roots.iter().any(|root| root.starts_with(dir)))
        .collect();
    let files = std::fs::canonicalize(socket).into_iter().collect();
    (dirs, files)
}

/// What one run is confined by, ready before the fork.
pub struct Prepared {
    pub kind: Kind,
    temp: Option<PrivateTemp>,
    pub landlock: Option<OwnedFd>,
    pub plan: Option<namespaces::Plan>,
    /// Root-relative names of the masked secrets.
    pub masked: Vec<String>,
    /// Pointer files git folders lacked before the run (`git_dirs::remove_planted`).
    git_pointers: Vec<PathBuf>,
}

impl Prepared {
    /// The run's private temp folder (`$TMPDIR` for the command), when sandboxed.
    pub fn temp_dir(&self) -> Option<&Path> {
        self.temp.as_ref().map(|t| t.path.as_path())
    }

    /// Once the run is over: removes the git pointer files it created; the ones removed.
    pub fn remove_planted(&self) -> Vec<PathBuf> {
        git_dirs::remove_planted(&self.git_pointers)
    }
}

/// Decides and builds the confinement of one run under `config`, in the folder `cwd`.
pub fn prepare(
    state: &Workspace,
    socket: &Path,
    config: &SandboxConfig,
    cwd: &Path,
) -> Result<Prepared> {
    let kind = in_force(config).map_err(|why| refusal(config, why))?;
    let mut prepared = Prepared {
        kind,
        temp: None,
        landlock: None,
        plan: None,
        masked: Vec::new(),
        git_pointers: Vec::new(),
    };
    if kind == Kind::Off {
        return Ok(prepared);
    }
    let temp = PrivateTemp::create()?;
    let roots: Vec<PathBuf> = state.jail.roots().iter().map(|r| r.path.clone()).collect();
    let mut writable = writable_places(config, &roots);
    for place in &writable[roots.len()..] {
        // Best effort: a cache that cannot be created stays read-only.
        let _ = std::fs::create_dir_all(place);
    }
    writable.retain(|p| p.exists());
    writable.push(temp.path.clone());
    let failed = |e: String| {
        Error::refused(format!("the {} sandbox cannot be set up: {e}", kind.name())).with_recovery(
            "`info` shows the sandbox in force; `exec.sandbox: off` runs unsandboxed",
        )
    };
    match kind {
        Kind::Landlock => prepared.landlock = Some(landlock::ruleset(&writable).map_err(failed)?),
        Kind::Namespaces => {
            // The git folders go after the roots: each is bound onto itself once its root is.
            let git = git_dirs::binds(&roots, cwd);
            writable.extend(git.folders);
            prepared.git_pointers = git.absent;
            let secrets = secrets::find(&state.jail);
            let (hidden_dirs, hidden_files) = daemon_places(state, socket);
            let masked_files: Vec<PathBuf> =
                secrets.files.iter().chain(&hidden_files).cloned().collect();
            let masked_dirs: Vec<PathBuf> =
                secrets.dirs.iter().chain(&hidden_dirs).cloned().collect();
            let view = namespaces::View {
                writable: &writable,
                read_only: &git.read_only,
                masked_files: &masked_files,
                masked_dirs: &masked_dirs,
                network: config.network,
            };
            prepared.plan = Some(namespaces::Plan::new(&view).map_err(|e| failed(e.to_string()))?);
            prepared.masked = secrets.shown;
        }
        Kind::Off => {}
    }
    prepared.temp = Some(temp);
    Ok(prepared)
}

/// What `info.exec.sandbox` and `dry_run` say: the mode configured, the one in force (or why
/// none is), where commands may write and whether they have a network.
pub fn describe(config: &SandboxConfig, roots: &[PathBuf]) -> serde_json::Value {
    let (in_force, refused) = match in_force(config) {
        Ok(kind) => (Some(kind), None),
        Err(why) => (None, Some(why)),
    };
    let writable: Vec<String> = match in_force {
        Some(Kind::Off) => vec!["(anywhere the daemon's user may)".into()],
        _ => writable_places(config, roots)
            .iter()
            .map(|p| p.display().to_string())
            .chain(std::iter::once("$TMPDIR (a private folder per run)".into()))
            .collect(),
    };
    serde_json::json!({
        "mode": config.mode,
        "in_force": in_force,
        "refused": refused,
        "writable": writable,
        "network": config.network,
        "secrets_masked": in_force == Some(Kind::Namespaces),
        "landlock_abi": landlock::kernel_abi(),
    })
}

/// A temporary folder for one sandboxed run, removed when the run ends.
struct PrivateTemp {
    path: PathBuf,
}

impl PrivateTemp {
    fn create() -> Result<PrivateTemp> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        // The time too: a folder left by a killed daemon whose pid is reused is not ours.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let path =
            std::env::temp_dir().join(format!("coderd-exec-{}-{n}-{nanos}", std::process::id()));
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&path)
            .map_err(|e| Error::from_io(&e, &path))?;
        Ok(PrivateTemp { path })
    }
}

impl Drop for PrivateTemp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(yaml: &str) -> std::result::Result<SandboxConfig, String> {
        serde_norway::from_str(yaml).map_err(|e| e.to_string())
    }

    #[test]
    fn the_config_takes_a_mode_alone_or_the_whole_section() {
        for (yaml, mode) in [
            ("none", Mode::Off),
            ("off", Mode::Off),
            ("landlock", Mode::Landlock),
            ("auto", Mode::Auto),
            ("namespaces", Mode::Namespaces),
        ] {
            let config = parsed(yaml).unwrap();
            assert_eq!(config.mode, mode, "{yaml}");
            assert_eq!(config.writable, SandboxConfig::default().writable, "{yaml}");
        }
        let full = parsed("{mode: namespaces, writable: [~/.gradle], network: false}").unwrap();
        assert_eq!(full.mode, Mode::Namespaces);
        assert_eq!(full.writable, vec!["~/.gradle".to_string()]);
        assert!(!full.network);
        let partial = parsed("{network: false}").unwrap();
        assert_eq!(partial.mode, Mode::Auto);
        assert!(parsed("sandboxed").is_err());
        assert!(parsed("{mode: auto, netwrok: false}").is_err());
    }

    #[test]
    fn auto_falls_back_to_landlock_and_nothing_falls_back_to_off() {
        static WORK: std::result::Result<(), String> = Ok(());
        static FAIL: std::sync::LazyLock<std::result::Result<(), String>> =
            std::sync::LazyLock::new(|| Err("EPERM".into()));
        let works = || &WORK;
        let fails = || &*FAIL;
        assert_eq!(choose(Mode::Auto, works, || false), Ok(Kind::Namespaces));
        assert_eq!(choose(Mode::Auto, fails, || true), Ok(Kind::Landlock));
        let neither = choose(Mode::Auto, fails, || false).unwrap_err();
        assert!(
            neither.contains("EPERM") && neither.contains("Landlock"),
            "{neither}"
        );
        assert!(choose(Mode::Namespaces, fails, || true).is_err());
        assert!(choose(Mode::Landlock, works, || false).is_err());
        assert_eq!(choose(Mode::Off, fails, || false), Ok(Kind::Off));
    }

    #[test]
    fn writable_entries_expand_home_and_variables_and_skip_unset_ones() {
        std::env::set_var("CODERD_TEST_CACHE", "/var/cache/t");
        let config = SandboxConfig {
            writable: vec![
                "$CODERD_TEST_CACHE/sub".into(),
                "$CODERD_TEST_SURELY_UNSET".into(),
                "relative/path".into(),
                "/abs".into(),
            ],
            ..SandboxConfig::default()
        };
        let places = writable_places(&config, &[PathBuf::from("/ws")]);
        assert_eq!(
            places,
            vec![
                PathBuf::from("/ws"),
                PathBuf::from("/var/cache/t/sub"),
                PathBuf::from("/abs")
            ]
        );
    }
}
