use clap::{Parser, Subcommand};
use coderd::server::{serve, ServeOptions};
use std::path::PathBuf;

/// The coderd daemon: serves the code toolkit for one workspace over a Unix socket.
#[derive(Parser, Debug)]
#[command(name = "coderd", version)]
struct Args {
    /// A workspace root (repeatable; the first is the primary root). Overrides the config's base_paths.
    #[arg(long = "root", global = true)]
    roots: Vec<PathBuf>,
    /// Config file (YAML, or TOML by extension); watched and hot-reloaded.
    #[arg(long, global = true)]
    config: Option<PathBuf>,
    /// Socket path (default: derived from the primary root, see `coder info`).
    #[arg(long, global = true)]
    socket: Option<PathBuf>,
    /// Write logs here instead of stderr.
    #[arg(long, global = true)]
    log_file: Option<PathBuf>,
    /// Log filter, e.g. `info` or `coderd=debug` (default: $CODERD_LOG, else info).
    #[arg(long, global = true)]
    log: Option<String>,
    /// Stop after this many seconds with no client connected (0: never; default: the config's
    /// `idle_exit_secs`). A daemon `coder` or `coderd mcp` starts gets 1800.
    #[arg(long, value_name = "SECS")]
    idle_exit: Option<u64>,
    #[command(subcommand)]
    command: Option<Sub>,
}

#[derive(Subcommand, Debug)]
enum Sub {
    /// Serve MCP on stdin/stdout for a client that spawns it (Claude Code, Codex, Cursor, Zed):
    /// connects to the workspace's daemon (from --socket, $CODERD_SOCKET, the registry, or the
    /// default socket of --root / the current workspace), starting one when none answers.
    Mcp {
        /// Fail instead of starting a daemon when none answers.
        #[arg(long)]
        no_start: bool,
        /// Say on stderr which daemon was used and why.
        #[arg(long, short = 'v')]
        verbose: bool,
    },
    /// Serve as a worker of an iii engine too: register every `coder::*` function with it (the
    /// socket keeps serving beside it). See docs/iii.md.
    Iii {
        /// The engine's WebSocket address (default: the config's `iii.engine`, else
        /// ws://127.0.0.1:49134).
        #[arg(long)]
        engine: Option<String>,
        /// The iii namespace to register in (default: the config's `iii.namespace`, else the
        /// engine's `default`); callers reach it with `iii trigger -n NAMESPACE`.
        #[arg(long)]
        namespace: Option<String>,
    },
    /// Serve LSP on stdin/stdout for an editor (Neovim, VS Code, Helix, Zed): document and
    /// workspace symbols, folding, definition, references, hover and rename (through the
    /// daemon's warm language servers), the `coderd/map` and `coderd/stats` requests, and
    /// diagnostics relayed from the daemon's language servers. Finds (or starts) the daemon as
    /// `mcp` does.
    Lsp {
        /// Fail instead of starting a daemon when none answers.
        #[arg(long)]
        no_start: bool,
        /// Say on stderr which daemon was used and why.
        #[arg(long, short = 'v')]
        verbose: bool,
    },
    /// Print the method table's `schema` (what `coder --help` lists when no daemon answers) and
    /// exit; no daemon is started.
    #[command(hide = true)]
    Schema,
    /// Started by the daemon itself: ends the process groups of running commands when the
    /// daemon is gone (see crates/exec/src/watchdog.rs).
    #[command(hide = true)]
    Watchdog,
    /// Started by the daemon itself: runs a language server inside the sandbox the daemon
    /// describes on descriptor 3 (see crates/exec/src/sandbox/wrapper.rs).
    #[command(name = "sandbox-exec", hide = true)]
    SandboxExec {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
        command: Vec<std::ffi::OsString>,
    },
}

fn main() {
    // SAFETY: first thing, before any parse (see its doc).
    unsafe { coderd_syntax::allocate_with_mimalloc() };
    let args = Args::parse();
    if let Some(Sub::Watchdog) = args.command {
        coderd_exec::watchdog::watch(std::io::stdin().lock());
        return;
    }
    if let Some(Sub::Schema) = args.command {
        println!("{}", coderd::described_methods());
        return;
    }
    if let Some(Sub::SandboxExec { command }) = &args.command {
        std::process::exit(coderd_exec::sandbox::wrapper::main(command));
    }
    init_logging(&args);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    // The stdio faces find (or start) the workspace's daemon as `coder` does.
    let face_options = |no_start, verbose| wire::client::Options {
        socket: args.socket.clone(),
        roots: args.roots.clone(),
        no_start,
        verbose,
    };
    let face = match args.command {
        Some(Sub::Mcp { no_start, verbose }) => {
            let options = face_options(no_start, verbose);
            Some(("mcp", runtime.block_on(coderd::mcp::serve_stdio(options))))
        }
        Some(Sub::Lsp { no_start, verbose }) => {
            let options = face_options(no_start, verbose);
            Some((
                "lsp",
                runtime.block_on(coderd::editor::serve_stdio(options)),
            ))
        }
        _ => None,
    };
    if let Some((name, served)) = face {
        if let Err(e) = served {
            eprintln!("coderd {name}: {e}");
            std::process::exit(2);
        }
        return;
    }
    let beside: Option<coderd::server::Beside> = match args.command {
        #[cfg(feature = "iii")]
        Some(Sub::Iii { engine, namespace }) => {
            let options = coderd::iii::IiiOptions { engine, namespace };
            Some(Box::new(move |state| {
                let mut worker = coderd::iii::start(state, &options)?;
                let lost = Box::pin(worker.lost());
                Ok(coderd::server::Started {
                    stop: Box::new(move || worker.stop()),
                    lost,
                })
            }))
        }
        #[cfg(not(feature = "iii"))]
        Some(Sub::Iii { .. }) => {
            eprintln!(
                "coderd iii: this coderd was built without the `iii` feature (cargo's \
                 --no-default-features); rebuild with `--features iii` to serve an iii engine"
            );
            std::process::exit(2);
        }
        _ => None,
    };
    let options = ServeOptions {
        roots: args.roots,
        config: args.config,
        socket: args.socket,
        beside,
        idle_exit: args.idle_exit,
    };
    if let Err(e) = runtime.block_on(serve(options)) {
        tracing::error!("{e}");
        eprintln!("coderd: {e}");
        std::process::exit(2);
    }
    // Blocking tasks still running (a long search) must not hold the exit.
    runtime.shutdown_timeout(std::time::Duration::from_secs(2));
}

fn init_logging(args: &Args) {
    use tracing_subscriber::EnvFilter;
    let filter = args
        .log
        .clone()
        .or_else(|| std::env::var("CODERD_LOG").ok())
        .unwrap_or_else(|| "info".into());
    // Colour only for a person at a terminal: a log file, a pipe or an MCP client's stderr
    // capture gets plain text (every subcommand logs through here).
    use std::io::IsTerminal;
    let builder = tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::new(filter))
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false);
    match args.log_file.as_ref().map(|p| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
    }) {
        Some(Ok(file)) => builder
            .with_ansi(false)
            .with_writer(std::sync::Mutex::new(file))
            .init(),
        Some(Err(e)) => {
            builder.with_writer(std::io::stderr).init();
            tracing::warn!("cannot open the log file, logging to stderr: {e}");
        }
        None => builder.with_writer(std::io::stderr).init(),
    }
}
