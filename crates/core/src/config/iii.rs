//! The `iii:` section: how `coderd iii` joins an iii engine as a worker (see docs/iii.md). Read
//! once when the face starts; a change needs a restart of the worker.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct IiiConfig {
    /// The engine's WebSocket address (default `ws://127.0.0.1:49134`; `--engine` overrides).
    pub engine: Option<String>,
    /// The iii namespace the worker and its functions register in (default: the engine's
    /// `default`; `--namespace` overrides). Two workspaces on one engine take one each.
    pub namespace: Option<String>,
    /// The `coder::*` ids to register (default: all of them).
    pub functions: Option<Vec<String>>,
    /// The worker's name as the engine lists it (default `coderd`: the engine admits one live
    /// worker of a name per namespace, which keeps a namespace one workspace's).
    pub worker_name: Option<String>,
    /// Export the iii SDK's OpenTelemetry traces and metrics to the engine (default off: with it
    /// on, replies were reported lost and p50 through the engine was several times higher).
    pub opentelemetry: bool,
}
