//! The daemon: binds the socket, accepts clients, frames requests, dispatches them to the method
//! modules on the blocking pool, and writes responses back. Each request runs on its own task, so a
//! slow one never holds up another, on the same connection or any other.

use crate::connections::Handle;
use crate::methods;
use crate::methods::state::State;
use crate::outbox::{Charged, Outbox};
use crate::protocol::{self, default_socket_path, FrameError};
use crate::registry;
use coderd_core::config::Config;
use coderd_core::error::{Error, Result};
use coderd_core::jail::Jail;
use coderd_core::memory::{FrameBudget, FrameBytes};
use coderd_core::outgoing::Outgoing;
use serde_json::Value;
use std::os::fd::OwnedFd;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::Semaphore;

/// Requests one connection may have in flight before the daemon stops reading from it.
const IN_FLIGHT_PER_CONNECTION: usize = 64;

pub struct ServeOptions {
    pub roots: Vec<PathBuf>,
    pub config: Option<PathBuf>,
    pub socket: Option<PathBuf>,
    /// Another face served beside the socket (`coderd iii`: the iii engine's worker).
    pub beside: Option<Beside>,
    /// `--idle-exit SECS`: overrides the config's `idle_exit_secs` (see `State::exit_when_idle`).
    pub idle_exit: Option<u64>,
}

/// A face started once the daemon's state exists; it returns how to stop it (run at shutdown).
pub type Beside = Box<dyn FnOnce(&Arc<State>) -> Result<Started> + Send>;

/// A face running beside the socket.
pub struct Started {
    /// Run at shutdown.
    pub stop: Box<dyn FnOnce() + Send>,
    /// Resolves if the face can no longer serve (the iii namespace taken over): the daemon stops
    /// with that error.
    pub lost: std::pin::Pin<Box<dyn std::future::Future<Output = Error> + Send>>,
}

/// Builds the jail from options and config, binds the socket, and serves until shut down.
pub async fn serve(opts: ServeOptions) -> Result<()> {
    let config = match &opts.config {
        Some(path) => crate::methods::state::load_config(path)?,
        None => Config::default(),
    };
    let roots = if opts.roots.is_empty() {
        config.jail.base_paths.clone()
    } else {
        opts.roots.clone()
    };
    if roots.is_empty() {
        return Err(Error::bad_input(
            "no workspace root: pass --root DIR or set base_paths in the config",
        ));
    }
    let jail = Jail::new(&roots, &config.jail)?;
    let socket = opts
        .socket
        .clone()
        .unwrap_or_else(|| default_socket_path(jail.primary()));
    // Handlers first: a client may send SIGTERM as soon as the socket answers.
    let signals = Signals::install()?;
    let (listener, _lock) = bind(&socket)?;
    let config_path = opts
        .config
        .as_ref()
        .map(|p| std::path::absolute(p).unwrap_or(p.clone()));
    coderd_core::memory::configure_allocator();
    let state = Arc::new(State::new(jail, config, config_path, socket.clone()));
    coderd_core::workspace::watch::start(&state.workspace, config_watch(&state));
    // The secrets by identity, known before a first command could rename one.
    let workspace = state.workspace.clone();
    let walked = std::thread::Builder::new()
        .name("secrets-walk".into())
        .spawn(move || coderd_exec::sandbox::secrets::find(&workspace.jail));
    if let Err(e) = walked {
        tracing::warn!("secrets by identity wait for the first command: {e}");
    }
    coderd_lsp::watch(&state.lsp, &state.workspace);
    // Lets `coder` find this daemon from any folder under its roots; removed at a clean stop.
    let roots: Vec<PathBuf> = state.jail.roots().iter().map(|r| r.path.clone()).collect();
    let _registration = registry::register(&socket, &roots)
        .map_err(|e| tracing::warn!("not listed in the daemon registry: {e}"))
        .ok();
    tracing::info!(
        "coderd {} serving {:?} on {}",
        env!("CARGO_PKG_VERSION"),
        state
            .jail
            .roots()
            .iter()
            .map(|r| r.path.display().to_string())
            .collect::<Vec<_>>(),
        socket.display()
    );
    let idle = tokio::spawn(state.clone().exit_when_idle(opts.idle_exit));
    let (result, stop_beside) = match opts.beside.map(|start| start(&state)) {
        None => (accept_loop(&state, listener, signals).await, None),
        // A face that cannot start stops the daemon, which cleans up as after a run.
        Some(Err(refused)) => (Err(refused), None),
        Some(Ok(Started { stop, lost })) => {
            let result = tokio::select! {
                served = accept_loop(&state, listener, signals) => served,
                refused = lost => Err(refused),
            };
            (result, Some(stop))
        }
    };
    idle.abort();
    if let Some(stop) = stop_beside {
        let _ = tokio::task::spawn_blocking(stop).await;
    }
    // Language servers get `shutdown`/`exit` (a kill after 3 s) before the daemon goes.
    let _ = tokio::time::timeout(Duration::from_secs(4), state.lsp.stop_all()).await;
    remove_socket(&socket);
    let _ = std::fs::remove_file(lock_path(&socket));
    tracing::info!("coderd stopped");
    result
}

/// SIGTERM and SIGINT, caught from before the socket exists until the daemon stops.
struct Signals {
    term: tokio::signal::unix::Signal,
    int: tokio::signal::unix::Signal,
}

impl Signals {
    fn install() -> Result<Signals> {
        use tokio::signal::unix::{signal, SignalKind};
        let io = |e: std::io::Error| Error::io(format!("installing signal handlers: {e}"));
        Ok(Signals {
            term: signal(SignalKind::terminate()).map_err(io)?,
            int: signal(SignalKind::interrupt()).map_err(io)?,
        })
    }
}

async fn accept_loop(state: &Arc<State>, listener: UnixListener, signals: Signals) -> Result<()> {
    let Signals {
        term: mut sigterm,
        int: mut sigint,
    } = signals;
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let cap = {
                        let limits = state.limits();
                        crate::connections::cap(limits.max_connections, limits.max_memory_bytes)
                    };
                    match state.connections.admit(cap) {
                        Some(conn) => tokio::spawn(serve_connection(state.clone(), stream, conn)),
                        None => tokio::spawn(refuse_connection(stream, cap)),
                    };
                }
                Err(e) => {
                    tracing::warn!("accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            _ = state.shutdown.notified() => return Ok(()),
            _ = sigterm.recv() => return Ok(()),
            _ = sigint.recv() => return Ok(()),
        }
    }
}

/// How long a new daemon waits for the lock of one that holds it without answering.
const LOCK_WAIT: Duration = Duration::from_secs(6);

/// Binds the socket with mode 0600. A lock file beside it makes "one daemon per socket" race-free.
/// Whatever is already at the path is looked at with `lstat`: a socket nobody answers on is stale and
/// removed; anything else (a regular file, a folder, a symlink, a FIFO, a device) is never touched and
/// the daemon refuses to start, naming the path and what it is.
fn bind(socket: &Path) -> Result<(UnixListener, OwnedFd)> {
    use rustix::fs::{flock, FlockOperation, Mode, OFlags};
    let io = |what: &str, e: std::io::Error| Error::io(format!("{what} {}: {e}", socket.display()));
    // Checked before the lock file is created, so a mistyped --socket leaves no trace beside the file.
    refuse_non_socket(socket)?;
    if let Some(dir) = socket.parent() {
        protocol::create_private_dir(dir).map_err(|e| io("creating the folder of", e))?;
    }
    let lock = rustix::fs::open(
        lock_path(socket),
        OFlags::CREATE | OFlags::RDWR | OFlags::CLOEXEC | OFlags::NOFOLLOW,
        Mode::from_raw_mode(0o600),
    )
    .map_err(|e| io("opening the lock file of", e.into()))?;
    // A daemon that answers is serving. One that holds the lock without answering is starting or
    // stopping (it stops its language servers before it lets go): wait for it a little.
    let waiting_since = std::time::Instant::now();
    loop {
        let answers = std::os::unix::net::UnixStream::connect(socket).is_ok();
        if !answers && flock(&lock, FlockOperation::NonBlockingLockExclusive).is_ok() {
            break;
        }
        if answers || waiting_since.elapsed() > LOCK_WAIT {
            return Err(Error::new(
                coderd_core::error::Code::Exists,
                format!("another coderd is already serving {}", socket.display()),
            )
            .with_recovery(
                "use that daemon, stop it with `coder shutdown`, or pass another --socket",
            ));
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    // Again under the lock: the path may have changed since the first look.
    if refuse_non_socket(socket)? {
        tracing::info!("removing stale socket {}", socket.display());
        std::fs::remove_file(socket).map_err(|e| io("removing the stale socket", e))?;
    }
    // The umask makes the socket 0600 from birth: no window where another user could connect.
    let old = rustix::process::umask(Mode::from_raw_mode(0o177));
    let bound = UnixListener::bind(socket);
    rustix::process::umask(old);
    let listener = bound.map_err(|e| io("binding", e))?;
    Ok((listener, lock))
}

/// `Ok(true)` when a socket file is at the path, `Ok(false)` when nothing is; an error naming the
/// path and its kind for anything else, which the daemon must neither remove nor bind over.
fn refuse_non_socket(socket: &Path) -> Result<bool> {
    use std::os::unix::fs::FileTypeExt;
    let meta = match std::fs::symlink_metadata(socket) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => {
            return Err(Error::io(format!(
                "cannot inspect the socket path {}: {e}",
                socket.display()
            )))
        }
    };
    let kind = meta.file_type();
    if kind.is_socket() {
        return Ok(true);
    }
    let what = if kind.is_file() {
        "a regular file"
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else {
        "not a socket"
    };
    Err(Error::new(
        coderd_core::error::Code::Exists,
        format!(
            "refusing to use {} as the socket: it is {what}, not a socket; it was left untouched",
            socket.display()
        ),
    )
    .with_recovery("pass another --socket (or $CODERD_SOCKET), or remove that path yourself"))
}

/// Removes the socket at exit, only if it is still a socket (something else may have taken the path).
fn remove_socket(socket: &Path) {
    if matches!(refuse_non_socket(socket), Ok(true)) {
        let _ = std::fs::remove_file(socket);
    }
}

fn lock_path(socket: &Path) -> PathBuf {
    let mut name = socket.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// Config hot reload: the config file, watched by the workspace's watcher (`workspace::watch`).
fn config_watch(state: &Arc<State>) -> Option<coderd_core::workspace::watch::Also> {
    let file = state.config_path.clone()?;
    file.parent()?;
    let weak = Arc::downgrade(state);
    Some(coderd_core::workspace::watch::Also {
        file,
        on_change: Box::new(move || {
            if let Some(state) = weak.upgrade() {
                state.reload_config();
            }
        }),
    })
}

async fn serve_connection(state: Arc<State>, stream: UnixStream, conn: Handle) {
    let conn = Arc::new(conn);
    let peer = crate::outbox::Peer {
        connection: conn.id(),
        pid: stream.peer_cred().ok().and_then(|c| c.pid()),
    };
    let (reader, writer) = stream.into_split();
    let stall = Duration::from_secs(state.limits().write_timeout_secs);
    let (outbox, writer_task) = Outbox::open(writer, state.answers.clone(), stall, peer);
    let mut reader = BufReader::with_capacity(64 * 1024, reader);
    let slots = Arc::new(Semaphore::new(IN_FLIGHT_PER_CONNECTION));
    let turns = coderd_core::memory::Gate::connection_turns(&state.policy());
    loop {
        // Backpressure: no new frame while this connection's unsent answers are over budget.
        let budget = state.policy().answer_bytes_per_connection;
        tokio::select! {
            _ = outbox.room(budget) => {},
            _ = outbox.closed() => break,
        }
        let limits = state.limits();
        let bounds = Bounds {
            max: protocol::max_frame_bytes(&limits),
            budget: &state.frames,
            idle: Duration::from_secs(limits.idle_timeout_secs),
            frame: Duration::from_secs(limits.frame_timeout_secs),
        };
        let next = tokio::select! {
            next = next_frame(&mut reader, &bounds, &conn) => next,
            _ = outbox.closed() => break, // the writer gave up on a client that does not read
        };
        let frame = match next {
            Ok(Frame::Line(frame)) => frame,
            Ok(Frame::Refused(error)) => {
                conn.frame_read(false);
                outbox.send(frame_failure(&error)).await;
                continue;
            }
            Ok(Frame::Abandoned(error)) => {
                outbox.send(frame_failure(&error)).await;
                break;
            }
            Ok(Frame::Eof | Frame::Closed) | Err(_) => break,
        };
        if frame.bytes.iter().all(u8::is_ascii_whitespace) {
            conn.frame_read(false);
            continue;
        }
        conn.frame_read(true);
        coderd_core::metrics::record(coderd_core::metrics::Event::BytesIn(
            frame.bytes.len() as u64
        ));
        let Ok(permit) = slots.clone().acquire_owned().await else {
            break;
        };
        let (state, outbox, turns, conn) =
            (state.clone(), outbox.clone(), turns.clone(), conn.clone());
        tokio::spawn(async move {
            if let Some(response) = handle_frame(state, &frame.bytes, &turns, &outbox).await {
                outbox.queue(response).await;
            }
            drop((permit, frame));
            conn.answered();
        });
    }
    drop(outbox);
    let _ = writer_task.await;
}

/// A frame-level error: it has no request id to answer to.
fn frame_failure(error: &Error) -> Outgoing {
    protocol::failure(&Value::Null, -32600, error).into()
}

/// A client over the connection cap, while every connection is serving a request: told why, then
/// closed.
async fn refuse_connection(mut stream: UnixStream, cap: usize) {
    let error = Error::too_large(format!(
        "too many connections: all {cap} are serving requests; this one was closed"
    ))
    .with_data("max_connections", cap)
    .with_recovery("retry in a moment, or raise `max_connections` (or the file limit, ulimit -n)");
    let line: Outgoing = frame_failure(&error);
    let send = async {
        for piece in line.pieces() {
            stream.write_all(piece).await?;
        }
        stream.shutdown().await
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), send).await;
}

/// What bounds the reading of one frame.
struct Bounds<'a> {
    /// The frame limit.
    max: usize,
    /// The daemon-wide budget the frame's buffer is counted against.
    budget: &'a FrameBudget,
    /// How long a connection may wait between frames with no request running.
    idle: Duration,
    /// How long one frame may take to arrive whole.
    frame: Duration,
}

/// A frame read whole, and the budget its bytes hold until it is dropped.
struct Received {
    bytes: Vec<u8>,
    _budget: Option<FrameBytes>,
}

enum Frame {
    Line(Received),
    /// Skipped to its newline and answered with this error; the connection carries on.
    Refused(Error),
    /// Dropped half-read; answered with this error and the connection closed.
    Abandoned(Error),
    /// Closed between frames: idle too long, or giving way to a new connection.
    Closed,
    Eof,
}

/// Reads one newline-terminated frame. A frame over the limit, or one whose buffer cannot get
/// budget, is skipped to its newline without being held in memory. Between frames, a connection
/// with no request running closes after `bounds.idle`, or when it is told to give way; a frame
/// must arrive whole within `bounds.frame` of its first byte.
async fn next_frame<R: tokio::io::AsyncBufRead + Unpin>(
    reader: &mut R,
    bounds: &Bounds<'_>,
    conn: &Handle,
) -> std::io::Result<Frame> {
    let mut check_at = conn.idle_deadline(bounds.idle);
    loop {
        tokio::select! {
            buf = reader.fill_buf() => match buf?.is_empty() {
                true => return Ok(Frame::Eof),
                false => break,
            },
            _ = tokio::time::sleep_until(check_at.into()) => {
                let (now, deadline) = (Instant::now(), conn.idle_deadline(bounds.idle));
                if conn.is_idle() && now >= deadline {
                    return Ok(Frame::Closed);
                }
                // A request is running (its answer restarts the idle time) or one was answered
                // since: look again when the connection could next have been idle too long,
                // never sooner (a deadline already past would wake this loop without pause).
                check_at = deadline.max(now + bounds.idle);
            },
            _ = conn.told_to_close() => match conn.is_idle() {
                true => return Ok(Frame::Closed),
                false => conn.stays(), // a request arrived since it was chosen
            },
        }
    }
    conn.frame_started();
    let deadline = tokio::time::Instant::now() + bounds.frame;
    let mut buffer = FrameBuffer::default();
    loop {
        let buf = tokio::select! {
            buf = reader.fill_buf() => buf?,
            _ = tokio::time::sleep_until(deadline) => return Ok(Frame::Abandoned(stalled(bounds))),
            _ = conn.told_to_close() => match conn.is_idle() {
                true => return Ok(Frame::Abandoned(gave_way(buffer.seen))),
                false => {
                    conn.stays();
                    continue;
                }
            },
        };
        if buf.is_empty() {
            return Ok(buffer.end(bounds));
        }
        let (chunk, done) = match memchr::memchr(b'\n', buf) {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        buffer.push(chunk, bounds);
        let used = done.unwrap_or(buf.len());
        reader.consume(used);
        if done.is_some() {
            return Ok(buffer.end(bounds));
        }
    }
}

/// The part of a frame each connection may buffer without budget: a request for `info` or
/// `shutdown` is always read, whoever holds the budget. Bounded like the connections themselves.
const FREE_FRAME_BYTES: usize = 64 * 1024;

/// One frame's bytes as they arrive, its buffer grown (past `FREE_FRAME_BYTES`) only with budget.
#[derive(Default)]
struct FrameBuffer {
    line: Vec<u8>,
    budget: Option<FrameBytes>,
    seen: usize,
    /// The budget said no: the rest of the frame is skipped.
    refused: bool,
}

impl FrameBuffer {
    fn push(&mut self, chunk: &[u8], bounds: &Bounds) {
        self.seen += chunk.len();
        if self.refused || self.seen > bounds.max {
            self.line = Vec::new();
            self.budget = None;
            return;
        }
        if self.seen > self.line.capacity() {
            // Grown by doubling, the budget taken for the whole new capacity.
            let want = self
                .seen
                .max(2 * self.line.capacity())
                .max(64 * 1024)
                .min(bounds.max);
            let counted = |capacity: usize| capacity.saturating_sub(FREE_FRAME_BYTES);
            match bounds
                .budget
                .try_take(counted(want) - counted(self.line.capacity()))
            {
                Some(more) => {
                    match &mut self.budget {
                        Some(held) => held.merge(more),
                        None => self.budget = Some(more),
                    }
                    self.line.reserve_exact(want - self.line.len());
                }
                None => {
                    self.refused = true;
                    self.line = Vec::new();
                    self.budget = None;
                    return;
                }
            }
        }
        self.line.extend_from_slice(chunk);
    }

    fn end(self, bounds: &Bounds) -> Frame {
        let seen = self.seen;
        if seen > bounds.max {
            return Frame::Refused(
                Error::too_large(format!(
                    "request of {seen}+ bytes is over the {}-byte frame limit; it was dropped",
                    bounds.max
                ))
                .with_recovery("send smaller requests (e.g. split a batch)"),
            );
        }
        if self.refused {
            return Frame::Refused(
                Error::too_large(format!(
                    "request of {seen}+ bytes was dropped: the daemon's memory for requests being \
                     read ({} bytes in all, a quarter of max_memory_bytes) is in use",
                    bounds.budget.size()
                ))
                .with_recovery(
                    "retry when fewer large requests are in flight, or send smaller ones",
                ),
            );
        }
        Frame::Line(Received {
            bytes: self.line,
            _budget: self.budget,
        })
    }
}

fn stalled(bounds: &Bounds) -> Error {
    Error::new(
        coderd_core::error::Code::TimedOut,
        format!(
            "request frame not finished {} s after it began (no newline); it was dropped and the \
             connection closed",
            bounds.frame.as_secs()
        ),
    )
    .with_recovery("end every request with a newline; raise `frame_timeout_secs` for slow links")
}

fn gave_way(seen: usize) -> Error {
    Error::too_large(format!(
        "the connection was closed for a new client (the connection cap was reached) while its \
         frame was half-written ({seen} bytes); it was dropped"
    ))
    .with_recovery("reconnect and send the request whole")
}

/// Turns one frame into response bytes, charged to the answers' backlogs; `None` for notifications
/// (requests without an id). A heavy request first waits for its connection's turn and a
/// daemon-wide slot (`memory::Gate`), and holds them until its answer is charged.
async fn handle_frame(
    state: Arc<State>,
    frame: &[u8],
    turns: &Arc<Semaphore>,
    outbox: &Outbox,
) -> Option<Charged> {
    let request = match protocol::parse_request(frame) {
        Ok(r) => r,
        Err(FrameError {
            id,
            rpc_code,
            error,
        }) => return Some(outbox.charge(protocol::failure(&id, rpc_code, &error).into())),
    };
    let started = Instant::now();
    let method = methods::find(&request.method);
    let mut held = None;
    let outcome = match method {
        Some(method) => {
            let params = request.params;
            let permit = match method.is_heavy(&params) {
                true => {
                    let room = room_to_answer(&state, outbox, true);
                    state.heavy.enter(turns, room).await
                }
                false => {
                    room_to_answer(&state, outbox, false).await;
                    None
                }
            };
            if outbox.is_closed() {
                return None; // the client is gone: nobody would read the answer
            }
            // Methods may report progress to this request's client (e.g. `exec` with `stream`).
            let progress = request.id.clone().map(|id| {
                let outbox = outbox.clone();
                coderd_core::request::Progress::new(Arc::new(move |line| outbox.try_send(line)), id)
            });
            let outcome = run_blocking(method.name, move || {
                // The entry's properties (the automatic checkpoint before a mutating call, ...)
                // are applied by `Method::serve`.
                coderd_core::request::with(progress, || method.serve(&state, params))
            })
            .await;
            held = permit;
            outcome
        }
        None => Err(methods::unknown(&request.method)),
    };
    let error = outcome.as_ref().err().map(|e| e.code.as_str());
    coderd_core::metrics::call(method.map(|m| m.name), started.elapsed(), error);
    tracing::debug!(
        method = request.method,
        elapsed_us = started.elapsed().as_micros() as u64,
        ok = outcome.is_ok()
    );
    let id = request.id?;
    let answer = outbox.charge(match outcome {
        Ok(result) => protocol::success(&id, result),
        Err(e) => protocol::failure(&id, protocol::rpc_code_for(&e, method.is_none()), &e).into(),
    });
    drop(held); // the connection's next heavy request now sees this answer in its backlog
    Some(answer)
}

/// Waits until a request may start: its connection's unsent answers under the connection's budget,
/// then every connection's together under the daemon's — for a heavy request, or any request of a
/// connection with answers still unsent. So a connection that reads its answers is never held up
/// by the light requests of others, and `info` answers however many clients do not read. Returns
/// at once when the client is gone.
async fn room_to_answer(state: &State, outbox: &Outbox, heavy: bool) {
    let policy = state.policy();
    let room = async {
        outbox.room(policy.answer_bytes_per_connection).await;
        if heavy || outbox.unsent() > 0 {
            state.answers.room(policy.answer_budget_bytes).await;
        }
    };
    tokio::select! {
        _ = room => {},
        _ = outbox.closed() => {},
    }
}

/// One call from another face (the iii engine), served as a socket request is: the method from
/// the table, a heavy call waiting for a daemon-wide slot, the entry's properties applied by
/// `Method::serve`, a panic answered as C216, and the call counted by `stats` (here, since
/// these calls never pass through `handle_frame`).
pub async fn call(
    state: Arc<State>,
    name: &'static str,
    params: Value,
) -> Result<Box<serde_json::value::RawValue>> {
    let started = Instant::now();
    let method = methods::find(name);
    let outcome = match method {
        Some(method) => {
            let turns = Arc::new(Semaphore::new(1));
            let permit = match method.is_heavy(&params) {
                true => state.heavy.enter(&turns, std::future::ready(())).await,
                false => None,
            };
            let outcome = run_blocking(method.name, move || method.serve(&state, params)).await;
            drop(permit);
            outcome
        }
        None => Err(methods::unknown(name)),
    };
    let error = outcome.as_ref().err().map(|e| e.code.as_str());
    coderd_core::metrics::call(method.map(|m| m.name), started.elapsed(), error);
    outcome
}

/// Runs a handler in place on this request's task, with the worker thread handed over to blocking
/// work (file I/O is synchronous). That is one thread hop fewer than `spawn_blocking` (measured: ~30%
/// off a small read's round trip) and other requests still run on the other workers. A panic in the
/// handler becomes a C216 answer and a log line; the daemon keeps serving.
async fn run_blocking<T, F>(method: &str, handler: F) -> Result<T>
where
    F: FnOnce() -> Result<T> + Send + 'static,
{
    let outcome =
        tokio::task::block_in_place(|| std::panic::catch_unwind(AssertUnwindSafe(handler)));
    outcome.unwrap_or_else(|payload| {
        let why = panic_message(payload);
        tracing::error!("handler for `{method}` panicked: {why}");
        Err(Error::io(format!(
            "internal error while handling `{method}` (logged by coderd): {why}"
        ))
        .with_recovery("retry; if it repeats, report it with the daemon log"))
    })
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread")]
    async fn a_panicking_handler_becomes_c216() {
        let error = run_blocking::<(), _>("read", || panic!("boom"))
            .await
            .unwrap_err();
        assert_eq!(error.code.as_str(), "C216");
        assert!(
            error.message.contains("`read`") && error.message.contains("boom"),
            "{error}"
        );
        let fine = run_blocking("info", || Ok(serde_json::json!({"ok": true})))
            .await
            .unwrap();
        assert_eq!(fine["ok"], true);
    }

    /// Reads every frame of `input` under these bounds, as text for the assertions.
    async fn frames(input: &[u8], max: usize, budget_bytes: u64) -> Vec<String> {
        let mut policy = coderd_core::memory::Policy::new(coderd_core::memory::MIN_MEMORY_BYTES);
        policy.frame_budget_bytes = budget_bytes;
        let budget = FrameBudget::new(&policy);
        let bounds = Bounds {
            max,
            budget: &budget,
            idle: Duration::from_secs(60),
            frame: Duration::from_secs(60),
        };
        let connections = crate::connections::Connections::default();
        let conn = connections.admit(1).unwrap();
        let mut reader = tokio::io::BufReader::with_capacity(4, input);
        let mut frames = Vec::new();
        loop {
            match next_frame(&mut reader, &bounds, &conn).await.unwrap() {
                Frame::Line(l) => frames.push(String::from_utf8(l.bytes).unwrap()),
                Frame::Refused(e) => frames.push(format!("refused: {}", e.message)),
                Frame::Eof => break,
                Frame::Abandoned(_) | Frame::Closed => unreachable!(),
            }
        }
        assert_eq!(budget.in_use(), 0, "every frame gave its budget back");
        frames
    }

    #[tokio::test]
    async fn frames_over_the_limit_are_skipped_to_their_newline() {
        let input: &[u8] = b"short\nxxxxxxxxxxxxxxxxxxxx\nafter\nlast-without-newline";
        let frames = frames(input, 8, 1 << 20).await;
        assert_eq!(frames[0], "short");
        assert!(frames[1].starts_with("refused: request of 20+ bytes is over"));
        assert_eq!(frames[2], "after");
        assert!(frames[3].starts_with("refused: request of 20+ bytes is over"));
    }

    #[tokio::test]
    async fn a_frame_without_budget_is_skipped_and_the_next_one_read() {
        let big = vec![b'x'; 200 * 1024];
        let input = [&big[..], b"\nsmall\n"].concat();
        let frames = frames(&input, 1 << 20, 128 * 1024).await;
        assert_eq!(frames.len(), 2);
        assert!(
            frames[0].contains("memory for requests being read"),
            "{}",
            frames[0]
        );
        assert_eq!(frames[1], "small");
    }
}
