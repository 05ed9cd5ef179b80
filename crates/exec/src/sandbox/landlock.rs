//! The Landlock fallback (`exec.sandbox.mode: landlock`, or `auto` where user namespaces do not
//! work): the child may read and execute anything, but write only beneath the writable places
//! (roots, private temp folder, tool caches) and a few device files (`/dev/null`, `/dev/tty`, ...).
//! The ruleset is built in the daemon (which may allocate) and only enforced in the child between
//! fork and exec, with two raw system calls. It cannot hide files: secrets stay readable.

use super::seccomp::Filter;
use landlock::{
    Access, AccessFs, PathBeneath, PathFd, Ruleset, RulesetAttr, RulesetCreatedAttr, ABI,
};
use std::os::fd::{OwnedFd, RawFd};
use std::path::PathBuf;

/// The Landlock ABI version this kernel offers, if any.
pub fn kernel_abi() -> Option<i64> {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: landlock_create_ruleset(NULL, 0, VERSION) only returns the ABI version.
    let version = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    (version > 0).then_some(version)
}

/// Device files a sandboxed command may still write.
const WRITABLE_DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/tty",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
];

/// Builds the ruleset fd: read and execute everywhere, write beneath `writable` only.
pub fn ruleset(writable: &[PathBuf]) -> Result<OwnedFd, String> {
    let abi = ABI::V3;
    let all = AccessFs::from_all(abi);
    let read = AccessFs::from_read(abi);
    let mut created = Ruleset::default()
        .handle_access(all)
        .and_then(|r| r.create())
        .map_err(|e| e.to_string())?;
    let root = PathFd::new("/").map_err(|e| e.to_string())?;
    created = created
        .add_rule(PathBeneath::new(root, read))
        .map_err(|e| e.to_string())?;
    for path in writable {
        let fd = PathFd::new(path).map_err(|e| format!("{}: {e}", path.display()))?;
        created = created
            .add_rule(PathBeneath::new(fd, all))
            .map_err(|e| e.to_string())?;
    }
    for device in WRITABLE_DEVICES {
        if let Ok(fd) = PathFd::new(device) {
            let file_access = AccessFs::from_file(abi);
            created = created
                .add_rule(PathBeneath::new(fd, file_access))
                .map_err(|e| e.to_string())?;
        }
    }
    let fd: Option<OwnedFd> = created.into();
    fd.ok_or_else(|| "this kernel does not enforce Landlock".to_string())
}

/// In the child, after fork: no new privileges, then the ruleset. Async-signal-safe.
pub fn enforce_in_child(ruleset: RawFd) -> std::io::Result<()> {
    // SAFETY: prctl and landlock_restrict_self are plain system calls on this process.
    unsafe {
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        if libc::syscall(libc::SYS_landlock_restrict_self, ruleset, 0u32) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// What the child of a Landlock run applies to itself between fork and exec, made in the daemon.
#[derive(Clone)]
pub struct InChild {
    pub ruleset: RawFd,
    pub filter: std::sync::Arc<Filter>,
    /// The run's control groups' `cgroup.procs`, joined first.
    pub cgroup_procs: Vec<RawFd>,
    pub rlimits: Vec<super::limits::Rlimit>,
}

impl InChild {
    pub fn new(
        ruleset: &OwnedFd,
        filter: &std::sync::Arc<Filter>,
        held: &super::limits::Held,
    ) -> Self {
        use std::os::fd::AsRawFd;
        InChild {
            ruleset: ruleset.as_raw_fd(),
            filter: filter.clone(),
            cgroup_procs: held.procs(),
            rlimits: held.rlimits.clone(),
        }
    }

    /// Joins the control groups, enforces the ruleset, sets the limits, installs the filter.
    ///
    /// # Safety
    /// In the child after fork: system calls only, no allocation.
    pub unsafe fn enter(&self) -> std::io::Result<()> {
        for fd in &self.cgroup_procs {
            if libc::write(*fd, c"0".as_ptr().cast(), 1) != 1 {
                return Err(std::io::Error::last_os_error());
            }
        }
        enforce_in_child(self.ruleset)?;
        super::limits::apply(&self.rlimits);
        if !self.filter.install() {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }
}
