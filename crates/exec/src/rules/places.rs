//! The protected places: system folders, disk devices, home and the working folders a command
//! could be run from (its `cd`s followed).

use super::path_words::{has_glob, known_pieces};
use crate::parse::Word;
use crate::wrappers::Analysis;
use regex::Regex;
use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock;

/// The folders a decision needs: where the command runs, the home folder, the workspace roots.
pub struct Places {
    pub cwd: PathBuf,
    pub home: Option<PathBuf>,
    pub roots: Vec<PathBuf>,
}

/// Top-level folders whose recursive deletion breaks the machine.
const SYSTEM_FOLDERS: &[&str] = &[
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/home",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/opt",
    "/proc",
    "/root",
    "/run",
    "/sbin",
    "/srv",
    "/sys",
    "/usr",
    "/var",
    "/tmp",
    "/snap",
    "/mnt",
    "/media",
    "/usr/bin",
    "/usr/lib",
    "/usr/lib64",
    "/usr/local",
    "/usr/sbin",
    "/usr/share",
    "/usr/include",
    "/usr/libexec",
    "/var/lib",
    "/var/log",
];

/// Block devices and kernel interfaces that must never be written.
pub(super) static DEVICE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^/dev/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk|dm-\d|md\d|loop\d|mapper/|nbd\d|zd\d|rbd\d|bcache\d|sr\d|root$|mem$|kmem$|port$)|^/proc/sysrq-trigger$|^/sys/firmware/efi/efivars",
    )
    .expect("a valid regex")
});

/// Examples of device paths, tried against a pattern for a word only known at run time.
pub(super) const DEVICE_SAMPLES: &[&str] = &[
    "/dev/sda",
    "/dev/nvme0n1",
    "/dev/vda",
    "/dev/mmcblk0",
    "/dev/disk/by-id/x",
    "/dev/mapper/root",
    "/proc/sysrq-trigger",
];

impl Places {
    /// Whether `path` (as the rules print it) is one of the workspace roots.
    pub(super) fn is_root(&self, path: &str) -> bool {
        self.roots.iter().any(|r| r.as_os_str() == path)
    }

    /// Paths whose deletion (recursive) is catastrophic: `/`, system folders, the home folder
    /// and its ancestors, each workspace root and its ancestors.
    pub(super) fn protected(&self) -> Vec<String> {
        let mut out: Vec<String> = SYSTEM_FOLDERS.iter().map(|s| s.to_string()).collect();
        out.push("/".into());
        // What a pattern or variable under `/proc/PID/` could reach: `/` itself.
        out.push("/proc/1/root".into());
        out.push("/proc/1/cwd".into());
        let mut add_with_ancestors = |path: &Path| {
            for ancestor in path.ancestors() {
                out.push(ancestor.to_string_lossy().into_owned());
            }
        };
        if let Some(home) = &self.home {
            add_with_ancestors(home);
        }
        for root in &self.roots {
            add_with_ancestors(root);
        }
        out.sort();
        out.dedup();
        out
    }

    /// Whether the working folder is known (a `cd "$X"` earlier in the command makes it not).
    pub(super) fn cwd_known(&self) -> bool {
        self.cwd.is_absolute()
    }

    pub(super) fn absolute(&self, text: &str) -> PathBuf {
        normalize(&self.cwd.join(text))
    }

    /// The same places with another working folder (`None`: only known at run time).
    pub(super) fn with_cwd(&self, cwd: Option<&PathBuf>) -> Places {
        Places {
            cwd: cwd.cloned().unwrap_or_default(),
            home: self.home.clone(),
            roots: self.roots.clone(),
        }
    }
}

/// The most working folders a command's `cd`s are followed into before the rest count as unknown.
const MAX_WORKING_FOLDERS: usize = 16;

/// Every folder a command of the analysis may run in: the request's folder and each `cd`,
/// `pushd` target reached from any of them. A `cd` may fail or sit in a subshell, a loop or a
/// branch, so the folders before it stay possible too: `cd /tmp/x; rm -rf *` is checked in both.
pub(super) fn working_folders(analysis: &Analysis, places: &Places) -> Vec<Option<PathBuf>> {
    let mut folders = vec![Some(places.cwd.clone())];
    for command in &analysis.commands {
        let Some(name) = command.name() else { continue };
        if name != "cd" && name != "pushd" {
            continue;
        }
        let operand = command.argv[1..]
            .iter()
            .find(|w| w.text().is_none_or(|t| !t.starts_with('-') || t == "-"));
        let reached: Vec<Option<PathBuf>> = folders
            .iter()
            .map(|from| cd_target(operand, from.as_ref(), places))
            .collect();
        for folder in reached {
            if !folders.contains(&folder) {
                folders.push(folder);
            }
        }
        if folders.len() > MAX_WORKING_FOLDERS {
            folders.truncate(MAX_WORKING_FOLDERS);
            folders.push(None);
            break;
        }
    }
    folders
}

/// Where `cd OPERAND` leads from `from` (`None`: only known at run time).
fn cd_target(operand: Option<&Word>, from: Option<&PathBuf>, places: &Places) -> Option<PathBuf> {
    let Some(operand) = operand else {
        return places.home.clone();
    };
    let here = places.with_cwd(from);
    let pieces = known_pieces(operand, &here);
    let text: Option<String> = pieces
        .iter()
        .map(|p| p.as_ref().map(|(t, _)| t.as_str()))
        .collect();
    let text = text.filter(|t| t != "-" && !has_glob(&pieces))?;
    match (text.starts_with('/'), from) {
        (true, _) => Some(normalize(Path::new(&text))),
        (false, Some(from)) => Some(normalize(&from.join(&text))),
        (false, None) => None,
    }
}

/// `..` and `.` applied lexically (rm does not follow symlinks in the paths it is given), and
/// `/proc/PID/root` (`/proc/PID/cwd`, `/proc/PID/task/TID/...`) seen as the `/` it reaches.
fn normalize(path: &Path) -> PathBuf {
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                parts.pop();
            }
            Component::Normal(name) => parts.push(name),
            _ => {}
        }
        if is_proc_root(&parts) {
            parts.clear();
        }
    }
    let mut out = PathBuf::from("/");
    out.extend(parts);
    out
}

/// `proc/X/root`, `proc/X/cwd`, `proc/X/task/Y/root`, `proc/X/task/Y/cwd`.
fn is_proc_root(parts: &[&std::ffi::OsStr]) -> bool {
    let last = parts.last().is_some_and(|p| *p == "root" || *p == "cwd");
    last && parts[0] == "proc" && (parts.len() == 3 || (parts.len() == 5 && parts[2] == "task"))
}
