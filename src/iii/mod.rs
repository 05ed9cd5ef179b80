//! `coderd iii`: the daemon as a worker of an iii engine (see docs/iii.md).
//!
//! Every `coder::*` entry of the method table is registered with the engine, with its summary as
//! description and its params' JSON Schema as request format, through the `iii-sdk` crate. A call
//! from the engine runs exactly as a socket request does (`server::call`: the same table, heavy
//! gate, checkpoint, documents and locks), on the daemon's runtime; its error goes back as iii's
//! `{code, message}`. The SDK keeps the connection: it reconnects when the engine goes away and
//! replays the registrations; `Worker::stop` unregisters every function before it disconnects.

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

/// A registered worker: its connection and one handle per function.
pub struct Worker {
    client: IIIClient,
    functions: Vec<iii_sdk::iii::FunctionRef>,
    pub engine: String,
}

/// Connects to the engine and registers the `coder::*` functions (all, or the config's
/// `iii.functions`). Returns at once: the SDK connects, and reconnects, in its own thread.
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
    let metadata = WorkerMetadata {
        name: settings
            .worker_name
            .unwrap_or_else(|| format!("coderd:{}", std::process::id())),
        description: Some(format!(
            "coderd {}: the coder::* toolkit over {}",
            env!("CARGO_PKG_VERSION"),
            state.jail.primary().display()
        )),
        ..WorkerMetadata::default()
    };
    let client = iii_sdk::register_worker(
        &engine,
        iii_sdk::InitOptions {
            metadata: Some(metadata),
            namespace: namespace.clone(),
            ..Default::default()
        },
    );
    let runtime = tokio::runtime::Handle::current();
    let functions = chosen
        .iter()
        .map(|m| client.register_function(m.name, registration(state, m, &runtime)))
        .collect();
    tracing::info!(
        "iii worker: {} functions for engine {engine} (namespace {})",
        chosen.len(),
        namespace.as_deref().unwrap_or("default")
    );
    Ok(Worker {
        client,
        functions,
        engine,
    })
}

impl Worker {
    /// Unregisters every function, then closes the connection (the SDK sends in order).
    pub fn stop(self) {
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
) -> RegisterFunction {
    let state = state.clone();
    let runtime = runtime.clone();
    let handler = move |mut input: Value| {
        // The engine adds who called to every payload; it is not a param of the function.
        if let Some(payload) = input.as_object_mut() {
            payload.remove(CALLER_KEY);
        }
        let call = crate::server::call(state.clone(), method.name, input);
        let running = runtime.spawn(call);
        async move {
            match running.await {
                Ok(Ok(raw)) => serde_json::from_str::<Value>(raw.get())
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
