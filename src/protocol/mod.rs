//! The wire: newline-delimited JSON-RPC 2.0. One request per line, one response per line.
//! `method` is the subcommand name and `params` its flags without dashes.

pub mod depth;
pub mod keys;
pub mod validate;

use coderd_core::config::Limits;
use coderd_core::error::{Code, Error, Result};
use coderd_core::outgoing::Outgoing;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{json, Value};

/// JSON-RPC's own codes, used alongside the C2xx code in `error.data.code`.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
const SERVER_ERROR: i64 = -32000;

/// A request as read off the socket; `id: None` marks a notification (no response is sent).
#[derive(Debug)]
pub struct Request {
    pub id: Option<Value>,
    pub method: String,
    pub params: Value,
}

/// Why a frame could not become a request; carries the id when it could be recovered.
#[derive(Debug)]
pub struct FrameError {
    pub id: Value,
    pub rpc_code: i64,
    pub error: Error,
}

pub fn parse_request(frame: &[u8]) -> Result<Request, FrameError> {
    let value: Value = serde_json::from_slice(frame).map_err(|e| FrameError {
        id: Value::Null,
        rpc_code: PARSE_ERROR,
        error: not_json(&e),
    })?;
    let invalid = |id: Value, msg: String| FrameError {
        id,
        rpc_code: INVALID_REQUEST,
        error: Error::bad_input(msg).with_recovery(
            r#"send {"jsonrpc":"2.0","id":1,"method":"read","params":{"file":"README.md"}}"#,
        ),
    };
    let Value::Object(mut obj) = value else {
        return Err(invalid(
            Value::Null,
            "the request must be a JSON object".into(),
        ));
    };
    let id = obj.remove("id");
    let reply_id = id.clone().unwrap_or(Value::Null);
    if !matches!(
        id,
        None | Some(Value::Null | Value::Number(_) | Value::String(_))
    ) {
        return Err(invalid(
            Value::Null,
            "field `id` must be a number or a string".into(),
        ));
    }
    if obj.get("jsonrpc").is_some_and(|v| v != "2.0") {
        return Err(invalid(reply_id, "field `jsonrpc` must be \"2.0\"".into()));
    }
    let method = match obj.remove("method") {
        Some(Value::String(m)) => m,
        Some(_) => return Err(invalid(reply_id, "field `method` must be a string".into())),
        None => return Err(invalid(reply_id, "missing field `method`".into())),
    };
    let params = match obj.remove("params") {
        None | Some(Value::Null) => Value::Object(Default::default()),
        Some(p @ Value::Object(_)) => p,
        Some(_) => {
            return Err(invalid(
                reply_id,
                "field `params` must be an object of named arguments".into(),
            ))
        }
    };
    refuse_checkpoints_member(obj.get("checkpoints")).map_err(|error| FrameError {
        id: reply_id,
        rpc_code: INVALID_REQUEST,
        error,
    })?;
    Ok(Request { id, method, params })
}

/// Automatic snapshots are a safety switch, so only the daemon's config turns them off: a request
/// saying `"checkpoints": false` (any agent could send it) is refused, naming the field and where
/// the switch is. `true` (or null) asks for nothing beyond the default and passes.
fn refuse_checkpoints_member(member: Option<&Value>) -> Result<(), Error> {
    match member {
        None | Some(Value::Null | Value::Bool(true)) => Ok(()),
        Some(_) => Err(Error::bad_input(
            "field `checkpoints`: automatic checkpoints are switched off in the daemon's config \
             only (`checkpoints: false`), never by a request",
        )
        .with_recovery(
            "drop the `checkpoints` member; to run without snapshots, set `checkpoints: false` \
             in the daemon's config file",
        )),
    }
}

/// The C210 for a line that is not JSON; one nested past the parser's limit says so.
pub fn not_json(e: &serde_json::Error) -> Error {
    if depth::is_parser_limit(e) {
        let at = format!("line {} column {}", e.line(), e.column());
        return depth::error("the request", &at);
    }
    Error::bad_input(format!("the request is not valid JSON: {e}"))
        .with_recovery("send one JSON-RPC 2.0 object per line")
}

/// Deserializes `params` into a method's argument struct. When serde refuses them, the params are
/// checked against the method's JSON Schema so the error lists every violation as a JSON Pointer
/// with what was expected there (`data.violations`), not only the first one serde met; what the
/// schema cannot see (a value serde still refuses) is reported as serde's error naming the field.
pub fn parse_params<T: DeserializeOwned + JsonSchema>(
    method: &impl keys::Named,
    params: Value,
) -> Result<T> {
    let serde_error = match serde_path_to_error::deserialize::<_, T>(&params) {
        Ok(parsed) => return Ok(parsed),
        Err(e) => e,
    };
    let schema = schemars::schema_for!(T).to_value();
    schema_error(method, &schema, &params).map_or_else(
        || {
            let method = method.name();
            let path = serde_error.path().to_string();
            let place = match path.as_str() {
                "." => String::new(),
                _ => format!(" at `{path}`"),
            };
            let inner = serde_error.into_inner();
            Err(
                Error::bad_input(format!("invalid params for `{method}`{place}: {inner}"))
                    .with_recovery(recovery_for(method)),
            )
        },
        Err,
    )
}

fn recovery_for(method: &str) -> String {
    format!("fix each path listed; `schema {{\"method\": \"{method}\"}}` shows every param")
}

/// Violations an answer lists (`data.violations` and the message); the count says how many more.
const LISTED_VIOLATIONS: usize = 20;

/// The C210 that lists every violation of `params` against a method's params `schema` (JSON
/// Pointer, what was expected), or `None` when the schema finds nothing wrong.
pub fn schema_error(method: &impl keys::Named, schema: &Value, params: &Value) -> Option<Error> {
    let alias_names: Vec<&str> = method.param_aliases().iter().map(|(a, _)| *a).collect();
    let method = method.name();
    let violations = validate::violations_of(schema, params, &alias_names);
    if violations.is_empty() {
        return None;
    }
    // However many there are, the answer lists a bounded number (the first ones) and the count.
    let shown = &violations[..violations.len().min(LISTED_VIOLATIONS)];
    let mut listed: Vec<String> = shown.iter().map(ToString::to_string).collect();
    if violations.len() > shown.len() {
        listed.push(format!(
            "{} more not listed",
            violations.len() - shown.len()
        ));
    }
    let count = match violations.len() {
        1 => String::new(),
        n => format!(" ({n} problems)"),
    };
    let pointers: Vec<Value> = shown
        .iter()
        .map(|v| json!({"pointer": v.pointer, "message": v.message}))
        .collect();
    Some(
        Error::bad_input(format!(
            "invalid params for `{method}`{count}: {}",
            listed.join("; ")
        ))
        .with_recovery(recovery_for(method))
        .with_data("violations", pointers),
    )
}

/// A success response: `{"jsonrpc":"2.0","id":ID,"result":RESULT}`, the result embedded as the
/// method serialized it, not parsed and written again.
pub fn success(id: &Value, result: Box<RawValue>) -> Outgoing {
    let id = serde_json::to_string(id).unwrap_or_else(|_| "null".into());
    let head = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":").into_bytes();
    Outgoing::Success { head, result }
}

pub fn failure(id: &Value, rpc_code: i64, error: &Error) -> Vec<u8> {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": rpc_code, "message": error.to_string(), "data": error.data_json()},
    })
    .to_string()
    .into_bytes()
}

/// The largest request line accepted: room for a full `max_write_bytes` payload after JSON escaping.
pub fn max_frame_bytes(limits: &Limits) -> usize {
    (limits.max_write_bytes as usize)
        .saturating_mul(4)
        .saturating_add(1 << 20)
}

/// The JSON-RPC code that goes with a C2xx error.
pub fn rpc_code_for(error: &Error, unknown_method: bool) -> i64 {
    match (error.code, unknown_method) {
        (_, true) => METHOD_NOT_FOUND,
        (Code::BadInput, false) => INVALID_PARAMS,
        _ => SERVER_ERROR,
    }
}

/// The default socket path and private folders are the wire crate's, shared with the clients.
pub use wire::paths::{create_private_dir, default_socket_path};
