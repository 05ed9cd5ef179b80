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
mod hidden;
pub mod landlock;
pub mod limits;
pub mod namespaces;
pub mod seccomp;
pub mod secrets;
pub mod wrapper;

pub use coderd_core::config::exec::{Mode, SandboxConfig, DEFAULT_WRITABLE};
use coderd_core::error::{Error, Result};
use coderd_core::workspace::Workspace;
use serde::{Deserialize, Serialize};
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

/// A writable entry as an absolute path (`~/`, `$VAR/`), or `None` when it names nothing here.
pub fn expand(entry: &str) -> Option<PathBuf> {
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
/// daemons) and its socket: hidden from commands, so none can reach the undo history. A folder
/// holding one of `keep` (the language servers' install folder, by default in the data folder)
/// is hidden child by child instead, all but the way to what is kept.
fn daemon_places(
    state: &Workspace,
    socket: &Path,
    keep: &[PathBuf],
) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let folders = [
        wire::paths::data_dir(),
        wire::paths::state_dir(),
        Some(wire::paths::runtime_dir()),
    ];
    let roots: Vec<&Path> = state
        .jail
        .roots()
        .iter()
        .map(|r| r.path.as_path())
        .collect();
    // A folder that holds a root cannot be hidden without hiding the root; it stays read-only.
    let hidden: Vec<PathBuf> = folders
        .into_iter()
        .flatten()
        .filter_map(|dir| dir.canonicalize().ok())
        .filter(|dir| !roots.iter().any(|root| root.starts_with(dir)))
        .collect();
    let mut files: Vec<PathBuf> = std::fs::canonicalize(socket).into_iter().collect();
    let mut dirs = Vec::new();
    for dir in hidden {
        match keep.iter().find(|k| k.starts_with(&dir) && **k != dir) {
            Some(kept) => hide_around(&dir, kept, &mut dirs, &mut files),
            None => dirs.push(dir),
        }
    }
    (dirs, files)
}

/// Every entry of `dir` hidden but the one on the way to `kept` (strictly inside `dir`), and
/// the same beneath that one until `kept` itself.
fn hide_around(dir: &Path, kept: &Path, dirs: &mut Vec<PathBuf>, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path == kept {
            continue;
        }
        if kept.starts_with(&path) {
            hide_around(&path, kept, dirs, files);
        } else if entry.file_type().is_ok_and(|t| t.is_dir()) {
            dirs.push(path);
        } else {
            files.push(path);
        }
    }
}

/// What one run is confined by, ready before the fork.
pub struct Prepared {
    pub kind: Kind,
    temp: Option<PrivateTemp>,
    landlock: Option<OwnedFd>,
    pub plan: Option<namespaces::Plan>,
    /// Root-relative names of the masked secrets.
    pub masked: Vec<String>,
    /// The run's control group, or the resource limits its child sets (see `limits`).
    held: limits::Held,
    filter: std::sync::Arc<seccomp::Filter>,
    /// Pointer files git folders lacked before the run (`git_dirs::remove_planted`).
    git_pointers: Vec<PathBuf>,
}

impl Prepared {
    /// The run's private temp folder (`$TMPDIR` for the command), when sandboxed.
    pub fn temp_dir(&self) -> Option<&Path> {
        self.temp.as_ref().map(|t| t.path.as_path())
    }

    /// Under Landlock: what the child applies to itself before `exec`.
    pub fn landlock_child(&self) -> Option<landlock::InChild> {
        let ruleset = self.landlock.as_ref()?;
        Some(landlock::InChild::new(ruleset, &self.filter, &self.held))
    }

    /// Which limits the run hit (`memory`, `pids`), as far as its control group tells.
    pub fn limits_hit(&self) -> Vec<&'static str> {
        self.held.hit()
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
    // Under every kind: the walk renews the jail's secrets by identity before the command can
    // rename one (unsandboxed, only the masks go unused).
    let secrets = secrets::find(&state.jail);
    let mut prepared = Prepared {
        kind,
        temp: None,
        landlock: None,
        plan: None,
        masked: Vec::new(),
        held: limits::Held::default(),
        filter: std::sync::Arc::new(seccomp::Filter::new(config.network)),
        git_pointers: Vec::new(),
    };
    if kind == Kind::Off {
        return Ok(prepared);
    }
    prepared.held = limits::Held::new(&config.limits);
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
            let mut places = Places::of(
                state,
                socket,
                config,
                secrets,
                writable,
                config.network,
                &[],
            );
            places.read_only = git.read_only;
            places.covered = masked_git_configs(state, &temp.path);
            places.temp = config.limits.tmp.map(|size| (temp.path.clone(), size));
            let view = places.view(&prepared.held);
            prepared.plan = Some(namespaces::Plan::new(&view).map_err(|e| failed(e.to_string()))?);
            prepared.masked = places.shown;
        }
        Kind::Off => {}
    }
    prepared.temp = Some(temp);
    Ok(prepared)
}

/// Each root's git config whose remote URLs carry credentials, paired with a copy of it (in the
/// run's private temp folder) where they are masked: the command's `git remote -v` or `cat
/// .git/config` shows the copy. Read through the jail; a config that cannot be read is left as is.
fn masked_git_configs(state: &Workspace, temp: &Path) -> Vec<(PathBuf, PathBuf)> {
    let mut covered = Vec::new();
    for (n, root) in state.jail.roots().iter().enumerate() {
        let Some(config) = state.jail.locate(&root.path.join(".git/config")) else {
            continue;
        };
        let Ok((mut file, _)) = state.jail.open_file(&config) else {
            continue;
        };
        let mut text = String::new();
        if std::io::Read::read_to_string(&mut file, &mut text).is_err() {
            continue;
        }
        let masked = coderd_core::credentials::mask_url_credentials(&text);
        let copy = temp.join(format!(".coderd-git-config-{n}"));
        if masked != text && std::fs::write(&copy, masked.as_bytes()).is_ok() {
            covered.push((copy, config.abs));
        }
    }
    covered
}

/// What a namespace sandbox shows besides the read-only file system, as the daemon decided it:
/// the same for a command and for a language server (which gets it through `wrapper`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Places {
    pub writable: Vec<PathBuf>,
    /// Places inside the writable ones that stay read-only (a repository's hooks and config).
    pub read_only: Vec<PathBuf>,
    pub masked_files: Vec<PathBuf>,
    pub masked_dirs: Vec<PathBuf>,
    /// Files shown in place of others: (the copy, the file it covers).
    pub covered: Vec<(PathBuf, PathBuf)>,
    pub network: bool,
    /// The private temp folder and the size of the tmpfs mounted on it.
    pub temp: Option<(PathBuf, u64)>,
    /// What a process started by the wrapper may use (the wrapper makes its control group).
    pub limits: limits::Limits,
    /// Root-relative names of the masked secrets.
    #[serde(skip)]
    pub shown: Vec<String>,
}

impl Places {
    /// `writable` (existing places); the roots' `secrets`, the daemon's folders and socket (but
    /// for `keep`, see `daemon_places`) and the credentials of `exec.sandbox.hidden` masked.
    pub fn of(
        state: &Workspace,
        socket: &Path,
        config: &SandboxConfig,
        secrets: secrets::Secrets,
        writable: Vec<PathBuf>,
        network: bool,
        keep: &[PathBuf],
    ) -> Places {
        let (daemon_dirs, daemon_files) = daemon_places(state, socket, keep);
        let credentials = hidden::find(&config.hidden);
        Places {
            writable,
            masked_files: [secrets.files, daemon_files, credentials.files]
                .into_iter()
                .flatten()
                .collect(),
            masked_dirs: [secrets.dirs, daemon_dirs, credentials.dirs]
                .into_iter()
                .flatten()
                .collect(),
            network,
            limits: config.limits.clone(),
            shown: secrets.shown,
            ..Places::default()
        }
    }

    /// The view for the namespaces' init: these places, and the run's control groups to join
    /// (or the resource limits to set when it has none).
    pub fn view(&self, held: &limits::Held) -> namespaces::View<'_> {
        namespaces::View {
            writable: &self.writable,
            read_only: &self.read_only,
            masked_files: &self.masked_files,
            masked_dirs: &self.masked_dirs,
            covered: &self.covered,
            network: self.network,
            temp: self
                .temp
                .as_ref()
                .map(|(path, size)| (path.as_path(), *size)),
            cgroup_procs: held.procs(),
            rlimits: held.rlimits.clone(),
        }
    }
}

/// The confinement of a process the daemon starts on its own and keeps (a language server): the
/// view a command gets, but with the roots read-only; it writes only `writable` and a private
/// temp folder that lives as long as this value.
pub struct Helper {
    pub kind: Kind,
    temp: Option<PrivateTemp>,
    landlock: Option<OwnedFd>,
    /// What the `sandbox-exec` wrapper builds the namespaces from.
    pub places: Option<Places>,
    /// Under Landlock: the server's control group, or the resource limits it sets itself, and
    /// its system-call filter (the wrapper makes its own for namespaces).
    held: limits::Held,
    filter: std::sync::Arc<seccomp::Filter>,
}

impl Helper {
    pub fn temp_dir(&self) -> Option<&Path> {
        self.temp.as_ref().map(|t| t.path.as_path())
    }

    /// Under Landlock: what the server's process applies to itself before `exec`.
    pub fn landlock_child(&self) -> Option<landlock::InChild> {
        let ruleset = self.landlock.as_ref()?;
        Some(landlock::InChild::new(ruleset, &self.filter, &self.held))
    }
}

/// What a helper may do besides reading: its own writable places (absolute, created when
/// missing, best effort), its network flag, and what stays visible in the daemon's folders.
pub struct HelperNeeds<'a> {
    pub writable: &'a [PathBuf],
    pub network: bool,
    pub keep: &'a [PathBuf],
}

/// Decides and builds a helper's confinement under `config` (the `exec.sandbox` of commands).
pub fn prepare_helper(
    state: &Workspace,
    socket: &Path,
    config: &SandboxConfig,
    needs: &HelperNeeds,
) -> Result<Helper> {
    let kind = in_force(config).map_err(|why| refusal(config, why))?;
    let mut helper = Helper {
        kind,
        temp: None,
        landlock: None,
        places: None,
        held: limits::Held::default(),
        filter: std::sync::Arc::new(seccomp::Filter::new(needs.network)),
    };
    if kind == Kind::Off {
        return Ok(helper);
    }
    let temp = PrivateTemp::create()?;
    let mut places: Vec<PathBuf> = Vec::new();
    for place in needs.writable {
        let _ = std::fs::create_dir_all(place);
        if place.exists() && !places.contains(place) {
            places.push(place.clone());
        }
    }
    let temp_path = temp.path.clone();
    places.push(temp.path.clone());
    helper.temp = Some(temp);
    match kind {
        Kind::Landlock => {
            let ruleset = landlock::ruleset(&places).map_err(|e| Error::refused(e.to_string()))?;
            helper.landlock = Some(ruleset);
            helper.held = limits::Held::new(&config.limits);
        }
        Kind::Namespaces => {
            let secrets = secrets::find(&state.jail);
            let (network, keep) = (needs.network, needs.keep);
            let mut view = Places::of(state, socket, config, secrets, places, network, keep);
            view.covered = masked_git_configs(state, &temp_path);
            view.temp = config.limits.tmp.map(|size| (temp_path.clone(), size));
            helper.places = Some(view);
        }
        Kind::Off => {}
    }
    Ok(helper)
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
    let confined = matches!(in_force, Some(Kind::Namespaces | Kind::Landlock));
    serde_json::json!({
        "mode": config.mode,
        "in_force": in_force,
        "refused": refused,
        "writable": writable,
        "network": config.network,
        "secrets_masked": in_force == Some(Kind::Namespaces),
        "hidden": if in_force == Some(Kind::Namespaces) { config.hidden.clone() } else { Vec::new() },
        "unix_sockets": !confined,
        "set_id_bits": !confined,
        "limits": {
            "memory": config.limits.memory,
            "pids": config.limits.pids,
            "tmp": config.limits.tmp,
            "enforced_by": confined.then(|| limits::enforcement(&config.limits).name()),
        },
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
