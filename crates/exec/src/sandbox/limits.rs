//! What one sandboxed run may use (`exec.sandbox.limits`): memory and processes through a
//! control group of its own where the daemon may make one, else through resource limits; the
//! private `$TMPDIR` is a tmpfs of the configured size (the namespace sandbox mounts it).
//!
//! The control group is made beside the daemon's own: cgroup v2 when the daemon's group can hold
//! children with the `memory` and `pids` controllers (a delegated group, or root), else the
//! v1 `memory` and `pids` hierarchies (root). The run's init joins it before anything else, so
//! every process of the run is counted; the group is removed when the run is over. Without one,
//! `RLIMIT_DATA` bounds each process's heap and `RLIMIT_NPROC` the processes, which the kernel
//! does not apply to root: `info` says which is in force.

pub use coderd_core::config::exec::Limits;
use std::fs;
use std::io::Write;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The control-group file system's mount point.
const CGROUP_FS: &str = "/sys/fs/cgroup";

/// How a run's limits are enforced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enforcement {
    CgroupV2,
    CgroupV1,
    /// Per-process resource limits only.
    Rlimits,
}

impl Enforcement {
    pub fn name(self) -> &'static str {
        match self {
            Enforcement::CgroupV2 => "cgroup v2",
            Enforcement::CgroupV1 => "cgroup v1",
            Enforcement::Rlimits => "rlimits",
        }
    }
}

/// A resource limit a process sets itself: `(resource, value)`.
pub type Rlimit = (libc::__rlimit_resource_t, libc::rlim_t);

/// How one run (or server) is held: its control group, else the resource limits its processes
/// set themselves.
#[derive(Default)]
pub struct Held {
    pub group: Option<Group>,
    pub rlimits: Vec<Rlimit>,
}

impl Held {
    pub fn new(limits: &Limits) -> Held {
        match Group::create(limits) {
            Some(group) => Held {
                group: Some(group),
                rlimits: Vec::new(),
            },
            None => Held {
                group: None,
                rlimits: rlimits(limits),
            },
        }
    }

    /// The `cgroup.procs` to join, if there is a group.
    pub fn procs(&self) -> Vec<RawFd> {
        self.group.as_ref().map(Group::procs).unwrap_or_default()
    }

    /// Which limits were reached (see `Group::hit`); none known without a group.
    pub fn hit(&self) -> Vec<&'static str> {
        self.group.as_ref().map(Group::hit).unwrap_or_default()
    }
}

/// The control group(s) of one run, removed when dropped.
pub struct Group {
    pub enforcement: Enforcement,
    /// One folder per hierarchy (one for v2; `memory` and `pids` for v1).
    dirs: Vec<PathBuf>,
    /// Their `cgroup.procs`, open for the init to write itself into.
    procs: Vec<OwnedFd>,
}

impl Group {
    /// A group for one run under `limits`, or `None` when this daemon can make none (the run
    /// then gets resource limits: `rlimits`).
    pub fn create(limits: &Limits) -> Option<Group> {
        if limits.memory.is_none() && limits.pids.is_none() {
            return None;
        }
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = format!(
            "coderd-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        v2(&name, limits).or_else(|| v1(&name, limits))
    }

    /// The descriptors the init writes `0` to, joining the group.
    pub fn procs(&self) -> Vec<RawFd> {
        self.procs.iter().map(|fd| fd.as_raw_fd()).collect()
    }

    /// Which limit ended the run: `memory` when the kernel's out-of-memory killer ran in the
    /// group; `pids` when a fork was refused at the limit.
    pub fn hit(&self) -> Vec<&'static str> {
        let mut hit = Vec::new();
        let count = |file: &str, key: &str| {
            self.dirs
                .iter()
                .filter_map(|dir| fs::read_to_string(dir.join(file)).ok())
                .filter_map(|text| field(&text, key))
                .sum::<u64>()
        };
        let oom = match self.enforcement {
            Enforcement::CgroupV2 => count("memory.events", "oom_kill"),
            _ => count("memory.oom_control", "oom_kill"),
        };
        if oom > 0 {
            hit.push("memory");
        }
        if count("pids.events", "max") > 0 {
            hit.push("pids");
        }
        hit
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.procs.clear();
        let dirs = std::mem::take(&mut self.dirs);
        // The init leaves the group when it exits, which may be a moment after it reported the
        // command's status: removal is retried off the request's path.
        if !remove_all(&dirs) {
            let _ = std::thread::Builder::new()
                .name("cgroup-sweep".into())
                .spawn(move || {
                    for _ in 0..200 {
                        std::thread::sleep(std::time::Duration::from_millis(50));
                        if remove_all(&dirs) {
                            return;
                        }
                    }
                    tracing::warn!(dirs = ?dirs, "a run's control group could not be removed");
                });
        }
    }
}

/// Removes the groups a killed daemon left beside `parent`'s new one (`coderd-<pid>-<n>` whose
/// daemon is gone), once per folder and daemon.
fn sweep_stale(parent: &Path) {
    static SWEPT: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());
    let mut swept = SWEPT.lock().unwrap_or_else(|e| e.into_inner());
    if swept.iter().any(|p| p == parent) {
        return;
    }
    swept.push(parent.to_path_buf());
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("coderd-"))
            .and_then(|n| n.split('-').next())
            .and_then(|pid| pid.parse::<i32>().ok())
        else {
            continue;
        };
        // SAFETY: signal 0 only asks whether the process exists.
        let gone = unsafe { libc::kill(pid, 0) } < 0
            && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        if gone {
            let _ = fs::remove_dir(entry.path());
        }
    }
}

fn remove_all(dirs: &[PathBuf]) -> bool {
    dirs.iter()
        .all(|dir| fs::remove_dir(dir).is_ok() || !dir.exists())
}

/// `key N` in a flat-keyed control file.
fn field(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|line| {
        let (name, value) = line.split_once(' ')?;
        (name == key).then(|| value.trim().parse().ok()).flatten()
    })
}

/// The daemon's group in the hierarchy `controller` (`""` for v2) from /proc/self/cgroup.
fn own_group(controller: &str) -> Option<String> {
    let text = fs::read_to_string("/proc/self/cgroup").ok()?;
    text.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let matches = match controller {
            "" => controllers.is_empty(),
            c => controllers.split(',').any(|name| name == c),
        };
        matches.then(|| path.trim_start_matches('/').to_owned())
    })
}

fn v2(name: &str, limits: &Limits) -> Option<Group> {
    let fs_root = Path::new(CGROUP_FS);
    if !fs_root.join("cgroup.controllers").exists() {
        return None;
    }
    let parent = fs_root.join(own_group("")?);
    let enabled = fs::read_to_string(parent.join("cgroup.subtree_control")).unwrap_or_default();
    let has = |c: &str| enabled.split_whitespace().any(|e| e == c);
    if !(has("memory") && has("pids")) {
        // Enabling them fails while the daemon's own group holds processes (v2's rule that
        // only leaves hold processes); a delegated group set up for it has them on.
        write(&parent.join("cgroup.subtree_control"), "+memory +pids").ok()?;
    }
    sweep_stale(&parent);
    let dir = parent.join(name);
    fs::create_dir(&dir).ok()?;
    let group = Group {
        enforcement: Enforcement::CgroupV2,
        procs: vec![open_procs(&dir)?],
        dirs: vec![dir.clone()],
    };
    if let Some(memory) = limits.memory {
        write(&dir.join("memory.max"), &memory.to_string()).ok()?;
        let _ = write(&dir.join("memory.swap.max"), "0");
        // The whole run ends together: a half-killed build is worse than none.
        let _ = write(&dir.join("memory.oom.group"), "1");
    }
    if let Some(pids) = limits.pids {
        write(&dir.join("pids.max"), &pids.to_string()).ok()?;
    }
    Some(group)
}

fn v1(name: &str, limits: &Limits) -> Option<Group> {
    let mut group = Group {
        enforcement: Enforcement::CgroupV1,
        dirs: Vec::new(),
        procs: Vec::new(),
    };
    let wanted = [
        ("memory", limits.memory, "memory.limit_in_bytes"),
        ("pids", limits.pids, "pids.max"),
    ];
    for (controller, limit, file) in wanted {
        let Some(limit) = limit else { continue };
        let parent = Path::new(CGROUP_FS)
            .join(controller)
            .join(own_group(controller)?);
        sweep_stale(&parent);
        let dir = parent.join(name);
        fs::create_dir(&dir).ok()?;
        group.dirs.push(dir.clone());
        write(&dir.join(file), &limit.to_string()).ok()?;
        if controller == "memory" {
            let _ = write(&dir.join("memory.memsw.limit_in_bytes"), &limit.to_string());
        }
        group.procs.push(open_procs(&dir)?);
    }
    Some(group)
}

fn open_procs(dir: &Path) -> Option<OwnedFd> {
    let file = fs::OpenOptions::new()
        .write(true)
        .open(dir.join("cgroup.procs"))
        .ok()?;
    Some(file.into())
}

fn write(path: &Path, text: &str) -> std::io::Result<()> {
    fs::OpenOptions::new()
        .write(true)
        .open(path)?
        .write_all(text.as_bytes())
}

/// How runs under `limits` are held on this machine: a control group is made (and removed) once
/// to find out, and the answer kept.
pub fn enforcement(limits: &Limits) -> Enforcement {
    static PROBED: std::sync::OnceLock<Enforcement> = std::sync::OnceLock::new();
    *PROBED.get_or_init(|| {
        let probe = Limits {
            memory: limits.memory.or(Some(u64::MAX / 2)),
            pids: limits.pids.or(Some(u32::MAX as u64)),
            tmp: None,
        };
        Group::create(&probe).map_or(Enforcement::Rlimits, |g| g.enforcement)
    })
}

/// The resource limits a run's processes get when no group holds them: `(resource, value)`,
/// set by the child before `execve`.
fn rlimits(limits: &Limits) -> Vec<Rlimit> {
    let mut set = Vec::new();
    if let Some(memory) = limits.memory {
        set.push((libc::RLIMIT_DATA, memory as libc::rlim_t));
    }
    if let Some(pids) = limits.pids {
        set.push((libc::RLIMIT_NPROC, pids as libc::rlim_t));
    }
    set
}

/// Applies `rlimits` in a child. Async-signal-safe.
///
/// # Safety
/// Plain `setrlimit` calls on this process.
pub unsafe fn apply(rlimits: &[Rlimit]) {
    for (resource, value) in rlimits {
        let limit = libc::rlimit {
            rlim_cur: *value,
            rlim_max: *value,
        };
        libc::setrlimit(*resource, &limit);
    }
}

/// The mount options of the private `$TMPDIR` tmpfs of `size` bytes.
pub fn tmpfs_options(size: u64) -> String {
    format!("mode=0700,size={size}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_files_are_read_by_key() {
        let text = "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n";
        assert_eq!(field(text, "oom_kill"), Some(2));
        assert_eq!(field(text, "oom"), None);
        assert_eq!(field("max 5\n", "max"), Some(5));
    }
}
