//! `coderd iii`: the daemon as a worker of an iii engine (see docs/iii.md).
//!
//! Every `coder::*` entry of the method table is registered with the engine, with its summary as
//! description and its params' JSON Schema as request format, through the `iii-sdk` crate. A call
//! from the engine runs exactly as a socket request does (`server::call`: the same table, heavy
//! gate, checkpoint, documents and locks), on the daemon's runtime; its error goes back as iii's
//! `{code, message}`. The SDK keeps the connection: it reconnects when the engine goes away and
//! replays the registrations; `Worker::stop` unregisters every function before it disconnects.
//! A namespace has one owner (`ownership`): a worker refused in a taken one stops the daemon.
//! Every answer names the workspace it came from (`workspace`), so a caller can check.

mod ownership;

use crate::methods::{self, state::State};
use coderd_core::error::{Error, Result};
use iii_sdk::iii::WorkerMetadata;
use iii_sdk::{IIIClient, RegisterFunction};
use serde_json::Value;
use std::sync::Arc;

/// Where the engine listens when neither `--engine` nor the config says.
pub const DEFAULT_ENGINE: &str = "ws://127.0.0.1:49134";

/// The key the engine adds to each payload it routes (the calling worker's id).
const CALLER_KEY: &str = "_caller_worker_id";

/// The command line's say, over the config's `iii:` section.
#[derive(Default, Debug, Clone)]
pub struct IiiOptions {
    pub engine: Option<String>,
    pub namespace: Option<String>,
}

/// The worker name every coderd registers under unless the config names one: the engine lets
/// one live worker of a name into a namespace, which makes a namespace one workspace's.
const WORKER_NAME: &str = "coderd";

/// A registered worker: its connection, one handle per function, and the watch over its claim
/// on the namespace (it ends with the refusal when another worker owns it).
pub struct Worker {
    client: IIIClient,
    functions: Vec<iii_sdk::iii::FunctionRef>,
    watch: tokio::task::AbortHandle,
    lost: Option<tokio::task::JoinHandle<Error>>,
    pub engine: String,
}

/// Connects to the engine and registers the `coder::*` functions (all, or the config's
/// `iii.functions`), then waits (at most `ownership::FIRST_VERDICT`) to learn whether the
/// namespace is this worker's: `Err` when another owns it. The SDK reconnects in its own thread.
pub fn start(state: &Arc<State>, options: &IiiOptions) -> Result<Worker> {
    let settings = state.limits().iii.clone();
    let engine = options
        .engine
        .clone()
        .or(settings.engine)
        .unwrap_or_else(|| DEFAULT_ENGINE.to_string());
    if !(engine.starts_with("ws://") || engine.starts_with("wss://")) {
        return Err(Error::bad_input(format!(
            "iii engine address {engine:?} is not a WebSocket URL"
        ))
        .with_recovery("write it as ws://HOST:PORT (the engine's default port is 49134)"));
    }
    let namespace = options.namespace.clone().or(settings.namespace);
    if namespace.as_deref().is_some_and(|n| n.trim().is_empty()) {
        return Err(Error::bad_input("the iii namespace is empty")
            .with_recovery("name one, or leave it unset for the engine's `default`"));
    }
    let chosen = chosen_methods(settings.functions.as_deref())?;
    let workspace = state.jail.primary().display().to_string();
    let metadata = WorkerMetadata {
        name: settings
            .worker_name
            .unwrap_or_else(|| WORKER_NAME.to_string()),
        description: Some(format!(
            "coderd {}: the coder::* toolkit over {workspace}",
            env!("CARGO_PKG_VERSION"),
        )),
        ..WorkerMetadata::default()
    };
    let claim = ownership::Claim {
        engine: engine.clone(),
        namespace: namespace.clone().unwrap_or_else(|| "default".to_string()),
        workspace: workspace.clone(),
        probe: chosen.iter().any(|m| m.name == "coder::info"),
    };
    let client = iii_sdk::register_worker(
        &engine,
        ownership::options(metadata, namespace, settings.opentelemetry),
    );
    let runtime = tokio::runtime::Handle::current();
    let functions = chosen
        .iter()
        .map(|m| client.register_function(m.name, registration(state, m, &runtime, &workspace)))
        .collect();
    let owned = tokio::task::block_in_place(|| runtime.block_on(claim.first(&client)));
    let owned = match owned {
        Ok(owned) => owned,
        Err(refused) => {
            client.shutdown();
            return Err(refused);
        }
    };
    tracing::info!(
        "iii worker: {} functions for engine {engine} (namespace {})",
        chosen.len(),
        claim.namespace
    );
    let watched = client.clone();
    let lost = runtime.spawn(async move { claim.watch(&watched, owned).await });
    Ok(Worker {
        client,
        functions,
        watch: lost.abort_handle(),
        lost: Some(lost),
        engine,
    })
}

impl Worker {
    /// Resolves when another worker takes the namespace over (after an engine restart): the
    /// refusal to stop the daemon with. Taken once.
    pub fn lost(&mut self) -> impl std::future::Future<Output = Error> + Send + 'static {
        let watch = self.lost.take();
        async move {
            match watch {
                Some(watch) => match watch.await {
                    Ok(refused) => refused,
                    Err(_) => std::future::pending().await,
                },
                None => std::future::pending().await,
            }
        }
    }

    /// Unregisters every function, then closes the connection (the SDK sends in order).
    pub fn stop(self) {
        self.watch.abort();
        for function in &self.functions {
            function.unregister();
        }
        self.client.shutdown();
        tracing::info!("iii worker: unregistered from {}", self.engine);
    }
}

/// The `coder::*` entries of the table, or those the config names (an unknown one is an error).
fn chosen_methods(wanted: Option<&[String]>) -> Result<Vec<&'static methods::Method>> {
    let all: Vec<&'static methods::Method> = methods::iii::METHODS.iter().collect();
    let Some(wanted) = wanted else {
        return Ok(all);
    };
    wanted
        .iter()
        .map(|name| {
            all.iter().copied().find(|m| m.name == name).ok_or_else(|| {
                Error::bad_input(format!(
                    "iii.functions: {name:?} is not a coder::* function"
                ))
                .with_recovery(format!(
                    "choose among {}",
                    all.iter().map(|m| m.name).collect::<Vec<_>>().join(", ")
                ))
            })
        })
        .collect()
}

/// One function's registration: description, request schema, and a handler that runs the call
/// on the daemon's runtime.
fn registration(
    state: &Arc<State>,
    method: &'static methods::Method,
    runtime: &tokio::runtime::Handle,
    workspace: &str,
) -> RegisterFunction {
    let state = state.clone();
    let runtime = runtime.clone();
    let workspace = Value::String(workspace.to_string());
    let handler = move |mut input: Value| {
        // The engine adds who called to every payload; it is not a param of the function.
        if let Some(payload) = input.as_object_mut() {
            payload.remove(CALLER_KEY);
        }
        let call = crate::server::call(state.clone(), method.name, input);
        let running = runtime.spawn(call);
        let workspace = workspace.clone();
        async move {
            match running.await {
                Ok(Ok(raw)) => serde_json::from_str::<Value>(raw.get())
                    .map(|answer| with_workspace(answer, workspace))
                    .map_err(|e| remote(&Error::io(format!("reading the answer: {e}")))),
                Ok(Err(e)) => Err(remote(&e)),
                Err(e) => Err(remote(&Error::io(format!("the call stopped: {e}")))),
            }
        }
    };
    RegisterFunction::new_async(handler)
        .description(method.summary)
        .request_format((method.schema)().to_value())
}

/// The answer with the root of the workspace it came from, so a caller can check where it read.
fn with_workspace(mut answer: Value, workspace: Value) -> Value {
    if let Some(fields) = answer.as_object_mut() {
        fields.insert("workspace".to_string(), workspace);
    }
    answer
}

/// A coderd error as iii's `{code, message}`, the recovery hint kept in the message.
fn remote(e: &Error) -> iii_sdk::Error {
    let message = match &e.recovery {
        Some(hint) => format!("{} (hint: {hint})", e.message),
        None => e.message.clone(),
    };
    iii_sdk::Error::Remote {
        code: e.code.as_str().to_string(),
        message,
        stacktrace: None,
    }
}
