//! Starting language-server processes so that they die with the daemon, even a daemon killed with
//! SIGKILL (which runs no clean-up): each server asks the kernel for SIGKILL when its parent goes
//! (`PR_SET_PDEATHSIG`). That signal fires when the *thread* that forked the child ends, not the
//! process, and tokio's blocking threads come and go; so every server is forked by one thread that
//! lives as long as the daemon.

use std::io;
use std::sync::{mpsc, OnceLock};
use tokio::process::{Child, Command};
use tokio::sync::oneshot;

type Job = (Command, oneshot::Sender<io::Result<Child>>);

/// The spawner thread's inbox.
static SPAWNER: OnceLock<mpsc::Sender<Job>> = OnceLock::new();

/// Spawns `command` from the spawner thread, set up to be killed when the daemon goes.
pub async fn spawn(mut command: Command) -> io::Result<Child> {
    let daemon = std::process::id() as libc::pid_t;
    // SAFETY: `die_with` makes only async-signal-safe calls and allocates nothing.
    unsafe {
        command.pre_exec(move || coderd_core::children::die_with(daemon));
    }
    let (reply, answer) = oneshot::channel();
    spawner()
        .send((command, reply))
        .map_err(|_| io::Error::other("the server spawner is gone"))?;
    answer
        .await
        .map_err(|_| io::Error::other("the server spawner is gone"))?
}

fn spawner() -> &'static mpsc::Sender<Job> {
    SPAWNER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Job>();
        // The child is registered with the daemon's runtime (for its exit status) from this thread.
        let runtime = tokio::runtime::Handle::current();
        std::thread::Builder::new()
            .name("lsp-spawner".into())
            .spawn(move || {
                let _entered = runtime.enter();
                for (mut command, reply) in rx {
                    let _ = reply.send(command.spawn());
                }
            })
            .expect("starting the language-server spawner thread");
        tx
    })
}
