//! One namespace, one workspace: a `coderd iii` worker serves its namespace only while it owns
//! it (see docs/iii.md, "A namespace has one owner").
//!
//! Every coderd registers under the same worker name (`coderd`, unless the config names it), so the
//! engine refuses a second one in a taken namespace with `WORKER_NAMESPACE_CONFLICT`, which the SDK
//! makes fatal (it stops and does not reconnect). A worker given another name would only have its
//! functions refused, with a warning, and keep its connection: so after every (re)connect the
//! worker also asks the engine who answers `coder::info` in its namespace, and the answer's
//! `workspace` must be its own. Either way the loser does not linger: the daemon stops, and says
//! which namespace and whose workspace.

use coderd_core::error::{Error, Result};
use iii_sdk::iii::IIIConnectionState;
use iii_sdk::protocol::{TriggerRequest, TriggerRequestWithMetadata};
use iii_sdk::IIIClient;
use serde_json::json;
use std::time::{Duration, Instant};

/// How long `start` waits for the engine's verdict before serving on (the engine may be down: the
/// watch goes on, and a later refusal still stops the daemon).
pub const FIRST_VERDICT: Duration = Duration::from_secs(10);
/// How often the watch looks at the connection.
const TICK: Duration = Duration::from_millis(200);
/// One `coder::info` probe through the engine.
const PROBE_TIMEOUT_MS: u64 = 10_000;

/// What a look at the connection found.
pub enum Verdict {
    /// Registered, and `coder::info` in the namespace answers from this workspace.
    Owner,
    /// Not connected yet, or the registrations are not routed yet.
    Pending,
    /// Another worker owns the namespace: the message says which and where.
    Taken(Error),
}

/// The worker's side of the question.
#[derive(Clone)]
pub struct Claim {
    pub engine: String,
    pub namespace: String,
    pub workspace: String,
    /// `coder::info` is registered (the config may leave it out): the probe needs it.
    pub probe: bool,
}

impl Claim {
    /// Refused by the engine (fatal), or another workspace answering the namespace's `coder::info`.
    pub async fn verdict(&self, client: &IIIClient) -> Verdict {
        if let Some(fatal) = client.fatal_error() {
            let owner = self.owner_workspace().await;
            return Verdict::Taken(self.taken(&fatal.to_string(), owner.as_deref()));
        }
        if client.get_connection_state() != IIIConnectionState::Connected {
            return Verdict::Pending;
        }
        if !self.probe {
            return Verdict::Owner;
        }
        match info_workspace(client, None).await {
            Some(w) if w == self.workspace => Verdict::Owner,
            Some(other) => {
                Verdict::Taken(self.taken("another worker answers its coder::info", Some(&other)))
            }
            None => Verdict::Pending,
        }
    }

    /// Waits up to `FIRST_VERDICT` for a verdict: `Err` when the namespace is taken, else whether
    /// this worker was seen to own it (not yet when the engine has not answered).
    pub async fn first(&self, client: &IIIClient) -> Result<bool> {
        let deadline = Instant::now() + FIRST_VERDICT;
        loop {
            match self.verdict(client).await {
                Verdict::Owner => return Ok(true),
                Verdict::Taken(e) => return Err(e),
                Verdict::Pending if Instant::now() >= deadline => {
                    tracing::warn!(
                        "iii worker: no verdict from {} yet; serving the socket, and stopping if \
                         namespace {} turns out to be taken",
                        self.engine,
                        self.namespace
                    );
                    return Ok(false);
                }
                Verdict::Pending => tokio::time::sleep(TICK).await,
            }
        }
    }

    /// Watches the connection for the daemon's life; returns the refusal when the namespace is
    /// lost (an engine restart replays the registrations, and the owner may then be another).
    /// `checked`: this connection was already seen to own the namespace (no probe again).
    pub async fn watch(&self, client: &IIIClient, mut checked: bool) -> Error {
        loop {
            tokio::time::sleep(TICK).await;
            let connected = client.get_connection_state() == IIIConnectionState::Connected;
            if client.fatal_error().is_none() && (!connected || checked) {
                checked &= connected;
                continue;
            }
            match self.verdict(client).await {
                Verdict::Taken(e) => return e,
                Verdict::Owner => checked = true,
                Verdict::Pending => {}
            }
        }
    }

    fn taken(&self, why: &str, owner: Option<&str>) -> Error {
        let owner = owner.map_or_else(
            || "another workspace".to_string(),
            |w| format!("workspace {w}"),
        );
        Error::refused(format!(
            "iii namespace {:?} on {} is taken: {owner} serves it ({why}); this worker ({}) does \
             not answer for it",
            self.namespace, self.engine, self.workspace
        ))
        .with_recovery(
            "give this workspace its own namespace (--namespace or iii.namespace), or stop the \
             owner first",
        )
    }

    /// The owner's workspace, asked of the namespace's `coder::info` by a client of its own (this
    /// worker's connection is closed once refused).
    async fn owner_workspace(&self) -> Option<String> {
        let metadata = iii_sdk::iii::WorkerMetadata {
            name: format!("coderd-probe:{}", std::process::id()),
            ..Default::default()
        };
        let probe = iii_sdk::register_worker(&self.engine, options(metadata, None, false));
        let answer = info_workspace(&probe, Some(&self.namespace)).await;
        tokio::task::spawn_blocking(move || probe.shutdown())
            .await
            .ok();
        answer
    }
}

/// The `workspace` of `coder::info` through the engine, in `namespace` (else the client's own).
async fn info_workspace(client: &IIIClient, namespace: Option<&str>) -> Option<String> {
    let request = TriggerRequest {
        function_id: "coder::info".to_string(),
        payload: json!({}),
        action: None,
        timeout_ms: Some(PROBE_TIMEOUT_MS),
    };
    let request: TriggerRequestWithMetadata = request.into();
    let request = match namespace {
        Some(ns) => request.namespace(ns),
        None => request,
    };
    let answer = client.trigger(request).await.ok()?;
    answer["workspace"].as_str().map(str::to_string)
}

/// The SDK's options: the worker's metadata and namespace, OpenTelemetry export on or off
/// (`iii.opentelemetry`; off by default: see docs/iii.md, "No reply lost").
pub fn options(
    metadata: iii_sdk::iii::WorkerMetadata,
    namespace: Option<String>,
    opentelemetry: bool,
) -> iii_sdk::InitOptions {
    let mut options = iii_sdk::InitOptions {
        metadata: Some(metadata),
        namespace,
        ..Default::default()
    };
    let mut otel = options.otel.take().unwrap_or_default();
    otel.enabled = Some(opentelemetry);
    options.otel = Some(otel);
    options
}
