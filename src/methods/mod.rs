//! The one method table. Each entry names a method, its aliases, its params type (decoded with
//! unknown fields refused, described by a JSON Schema), whether it changes files, what it needs
//! around a call (heavy slot, checkpoint before, diagnostics after, when it changes nothing), and
//! its handler. `info` and `schema` list methods from here; the dispatcher finds handlers here.
//!
//! The entries live in one file per area (`edit.rs`, `exec.rs`, ..., `agent/` for `tool`), as
//! thin handlers over the subsystems' plain functions: this module and its files are the only
//! code that sees `State` (`state.rs`); the subsystems take the `Workspace` or the parts they need.

pub mod agent;
mod checkpoint;
mod edit;
mod editor;
mod exec;
mod git;
pub mod iii;
mod lsp;
mod map;
mod navigate;
pub mod state;
mod stats;
mod symedit;
mod syntax;
mod todo;

use crate::protocol::{self, parse_params};
use crate::{listing, read, search};
use coderd_core::error::{Error, Result};
use coderd_core::memory;
use schemars::{JsonSchema, Schema};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};
use state::State;
use std::sync::{Arc, LazyLock};
use wire::answers::Answer;

/// A handler, given its own entry (whose param aliases name a misspelt key's likely meaning).
type Handler = Box<dyn Fn(&Method, &Arc<State>, Value) -> Result<Box<RawValue>> + Send + Sync>;

pub struct Method {
    pub name: &'static str,
    /// Other names the same method answers to.
    pub aliases: &'static [&'static str],
    pub summary: &'static str,
    /// Whether the method changes files (agent front-ends gate these behind a permission).
    pub mutates: bool,
    /// The params bare words fill, in order (`read main.go`, `search TODO src`): the one rule of
    /// `coder`'s command line, the `tool` envelope's CLI-style words and its bare `args`, and
    /// `schema`'s `bare`. None unless the entry declares them with `bare`.
    pub bare: &'static [&'static str],
    /// The names agents give the params, as `(alias, canonical)` pairs (`path` for `file`):
    /// renamed at every depth before a call is validated (`protocol::keys::canonical`), listed by
    /// `schema` as `param_aliases` for `coder`'s flags and ChatCLI; the one place aliases live.
    /// None unless the entry declares them with `param_aliases`.
    pub param_aliases: &'static [(&'static str, &'static str)],
    /// What a call may do beyond what `mutates` tells, for permission gates (`keys::hints`).
    hints: protocol::keys::Overrides,
    /// The kind of answer it gives (`schema`'s `answer`), which a client renders by: JSON unless
    /// the entry declares it with `answers`.
    pub answer: Answer,
    /// The JSON Schema (draft 2020-12) of the params.
    pub schema: fn() -> Schema,
    /// Whether a call waits for a daemon-wide heavy slot (see `is_heavy`); never, unless the
    /// entry declares it with `heavy`.
    heavy: fn(&Method, &Value) -> bool,
    /// Whether a call of a mutating method changes nothing (see `changes_nothing`); never,
    /// unless the entry declares it with `changes_nothing`.
    changes_nothing: fn(&Method, &Value) -> bool,
    /// Snapshot the workspace before a call that changes something (`checkpoint::auto`): every
    /// mutating method.
    checkpoint_before: bool,
    /// The call changes only the files its params name, and hands their bytes to the checkpoint
    /// store first (`edit::keep`): its automatic snapshot is a restore point, not the safety net,
    /// so it is taken at most once per `checkpoint_interval_ms`. Any other mutating call (`exec`,
    /// `test`) may change files it does not name: it gets one every time.
    only_named: bool,
    /// The method a call runs in its stead (`tool`'s inner call), whose properties decide the
    /// call's automatic snapshot; none unless the entry declares it with `delegates`.
    delegate: fn(&Method, &Value) -> Option<(&'static Method, Value)>,
    /// Attach the language servers' diagnostics of the files a call changed (`lsp`), under the
    /// `diagnostics` switch its schema gains: every mutating method.
    diagnostics_after: bool,
    /// After a call that succeeded, start the language servers of the file its `file` param
    /// names, in the background (`lsp::Lsp::warm`): an agent reads (or outlines) before it edits.
    warm_after: bool,
    call: Handler,
}

/// A property that holds for no call.
fn never(_: &Method, _: &Value) -> bool {
    false
}

/// A property that holds for every call.
fn always(_: &Method, _: &Value) -> bool {
    true
}

impl Method {
    /// Declares the params bare words fill, in order (see `bare`).
    fn bare(mut self, fields: &'static [&'static str]) -> Method {
        self.bare = fields;
        self
    }

    /// Declares the names agents give the params (see `param_aliases`).
    fn param_aliases(mut self, pairs: &'static [(&'static str, &'static str)]) -> Method {
        self.param_aliases = pairs;
        self
    }

    /// Declares what a call may do beyond what `mutates` tells (see `keys::hints`).
    fn hints(mut self, overrides: protocol::keys::Overrides) -> Method {
        self.hints = overrides;
        self
    }

    /// Declares the kind of answer a call gives (see `answer`).
    fn answers(mut self, kind: Answer) -> Method {
        self.answer = kind;
        self
    }

    /// Declares when a call is heavy.
    fn heavy(mut self, heavy: fn(&Method, &Value) -> bool) -> Method {
        self.heavy = heavy;
        self
    }

    /// Declares that a call warms the language servers of the file it names.
    fn warms_servers(mut self) -> Method {
        self.warm_after = true;
        self
    }

    /// Declares that a call changes only the files its params name, keeping their bytes first.
    fn changes_only_what_it_names(mut self) -> Method {
        self.only_named = true;
        self
    }

    /// Declares the method a call runs in its stead (see `delegate`).
    fn delegates(mut self, to: fn(&Method, &Value) -> Option<(&'static Method, Value)>) -> Method {
        self.delegate = to;
        self
    }

    /// The automatic snapshot before a call, as the method it runs decides it: none when it
    /// changes nothing or snapshots itself (`checkpoint`), else at most once per interval for a
    /// call that keeps what it replaces, every time for one that may change more.
    fn snapshot_before(&self, state: &Arc<State>, params: &Value) {
        if let Some((inner, inner_params)) = (self.delegate)(self, params) {
            return inner.snapshot_before(state, &inner_params);
        }
        if self.checkpoint_before && !self.changes_nothing(params) {
            state
                .checkpoints
                .before_mutation(state, self.name, self.only_named);
        }
    }

    /// Declares when a call of this mutating method changes nothing.
    fn changes_nothing_when(mut self, still: fn(&Method, &Value) -> bool) -> Method {
        self.changes_nothing = still;
        self
    }

    /// Runs a request's call with what the entry declares around it: the automatic checkpoint
    /// before (unless the call changes nothing; no request can skip it, see
    /// `protocol::parse_request`), then `call` (diagnostics after). The one place the server
    /// applies an entry's properties.
    pub fn serve(&self, state: &Arc<State>, params: Value) -> Result<Box<RawValue>> {
        self.snapshot_before(state, &params);
        self.call(state, params)
    }

    /// Decodes `params` (keys made canonical first: dashed and camelCased keys as snake_case, the
    /// method's agent aliases as the names it declares, see `protocol::keys`), runs the handler, and
    /// serializes its result once, straight to the bytes that go into the response.
    ///
    /// A mutating method also takes `diagnostics` (see `lsp`): it is taken out of the params here,
    /// and the answer gets the language servers' findings for the files the call changed, so no
    /// edit method needs to know about them.
    pub fn call(&self, state: &Arc<State>, params: Value) -> Result<Box<RawValue>> {
        // Left by the automatic checkpoint that should have preceded this call.
        if let Some(warning) = coderd_core::request::take_checkpoint_warning() {
            let result = self.call(state, params)?;
            return coderd_git::checkpoint::auto::attach(result, &warning);
        }
        // Files a call changes without keeping their bytes (`edit::keep`, under `force`) are
        // named in its answer; a failed call changed nothing, so the notes go with it.
        if self.mutates {
            // Notes a panicked call on this thread left behind are not this call's.
            coderd_core::request::take_not_kept();
            let outcome = self.call_checked(state, params);
            let not_kept = coderd_core::request::take_not_kept();
            return match (outcome, not_kept.is_empty()) {
                (Ok(result), false) => {
                    let list = serde_json::Value::from(not_kept).to_string();
                    coderd_core::outgoing::with_field(result, "not_kept", &list)
                }
                (outcome, _) => outcome,
            };
        }
        self.call_checked(state, params)
    }

    /// `call` without the `not_kept` notes.
    fn call_checked(&self, state: &Arc<State>, params: Value) -> Result<Box<RawValue>> {
        let params = protocol::keys::canonical(self, params)?;
        // Read once the keys are canonical: agents' `path` and `filepath` are `file` by now.
        let warm = match self.warm_after {
            // iii's `coder::read-file` names it `path`.
            true => params
                .get("file")
                .or_else(|| params.get("path"))
                .and_then(Value::as_str)
                .map(str::to_owned),
            false => None,
        };
        let result = match self.diagnostics_after {
            true => self.call_with_diagnostics(state, params)?,
            false => (self.call)(self, state, params)?,
        };
        if let Some(file) = warm {
            state.lsp.warm(&state.workspace, &file);
        }
        Ok(result)
    }

    /// A mutating call: takes its `diagnostics` switch and attaches the report after it.
    fn call_with_diagnostics(
        &self,
        state: &Arc<State>,
        mut params: Value,
    ) -> Result<Box<RawValue>> {
        let switch = coderd_lsp::take_switch(&mut params).map_err(|e| {
            let schema = (self.schema)().to_value();
            crate::protocol::schema_error(self, &schema, &params).unwrap_or(e)
        })?;
        // A call made by another call (`tool` runs the method it names) is off when that one is.
        let outer = coderd_core::request::diagnostics();
        let diagnostics = switch && outer != Some(false);
        coderd_core::request::set_diagnostics(Some(diagnostics));
        let outcome = self.run_with(state, params, diagnostics);
        coderd_core::request::set_diagnostics(outer);
        outcome
    }

    fn run_with(
        &self,
        state: &Arc<State>,
        params: Value,
        diagnostics: bool,
    ) -> Result<Box<RawValue>> {
        if !diagnostics {
            return (self.call)(self, state, params);
        }
        let at_start = state.lsp.published_at_start(state);
        let (result, events) =
            coderd_core::documents::events::recorded(|| (self.call)(self, state, params));
        let result = result?;
        match state.lsp.after_edit(state, &events, at_start) {
            Some(report) => coderd_lsp::attach(result, &report),
            None => Ok(result),
        }
    }

    /// Whether a call may need much memory or a long scan, and so waits for one of the
    /// daemon-wide heavy slots (`memory::Gate`): search, tree, batch reads, stat hashing, and
    /// reads that may return or count more than a small window.
    pub fn is_heavy(&self, params: &Value) -> bool {
        (self.heavy)(self, params)
    }

    /// Whether this call of a mutating method changes nothing: `exec` with `dry_run` only reports
    /// the decision, and a `tool` envelope changes nothing when it is a dry run or names a method
    /// that reads. The automatic checkpoint is skipped for it (a snapshot would be work, and would
    /// use up the throttle window, for a call that writes nothing).
    pub fn changes_nothing(&self, params: &Value) -> bool {
        (self.changes_nothing)(self, params)
    }
}

impl protocol::keys::Named for Method {
    fn name(&self) -> &'static str {
        self.name
    }

    fn mutates(&self) -> bool {
        self.mutates
    }

    fn schema(&self) -> Schema {
        (self.schema)()
    }

    fn param_aliases(&self) -> &'static [(&'static str, &'static str)] {
        self.param_aliases
    }

    fn overrides(&self) -> protocol::keys::Overrides {
        self.hints
    }
}

/// Builds a table entry from a typed handler.
pub(crate) fn method<P, R>(
    name: &'static str,
    aliases: &'static [&'static str],
    summary: &'static str,
    mutates: bool,
    handler: fn(&Arc<State>, P) -> Result<R>,
) -> Method
where
    P: DeserializeOwned + JsonSchema + 'static,
    R: Serialize + 'static,
{
    Method {
        name,
        aliases,
        summary,
        mutates,
        bare: &[],
        param_aliases: &[],
        hints: Default::default(),
        answer: Answer::Json,
        schema: match mutates {
            true => schema_with_switch::<P>,
            false => schema_of::<P>,
        },
        heavy: never,
        changes_nothing: never,
        checkpoint_before: mutates,
        only_named: false,
        delegate: |_, _| None,
        diagnostics_after: mutates,
        warm_after: false,
        call: Box::new(move |entry, state, params| {
            let params: P = parse_params(entry, params)?;
            let result = handler(state, params)?;
            serde_json::value::to_raw_value(&result)
                .map_err(|e| Error::io(format!("serializing the result of `{name}`: {e}")))
        }),
    }
}

/// A table entry whose handler writes its answer's JSON itself (`search`: megabytes of lines
/// already serialized by the walker threads, which a second pass through serde would copy again).
pub(crate) fn raw_method<P>(
    name: &'static str,
    aliases: &'static [&'static str],
    summary: &'static str,
    handler: fn(&Arc<State>, P) -> Result<Box<RawValue>>,
) -> Method
where
    P: DeserializeOwned + JsonSchema + 'static,
{
    Method {
        name,
        aliases,
        summary,
        mutates: false,
        bare: &[],
        param_aliases: &[],
        hints: Default::default(),
        answer: Answer::Json,
        schema: schema_of::<P>,
        heavy: never,
        changes_nothing: never,
        checkpoint_before: false,
        only_named: false,
        delegate: |_, _| None,
        diagnostics_after: false,
        warm_after: false,
        call: Box::new(move |entry, state, params| handler(state, parse_params(entry, params)?)),
    }
}

fn schema_of<P: JsonSchema>() -> Schema {
    schemars::schema_for!(P)
}

/// A mutating method's schema: its params plus the `diagnostics` switch `Method::call` takes.
fn schema_with_switch<P: JsonSchema>() -> Schema {
    schema_with::<P>("diagnostics", coderd_lsp::switch_schema())
}

/// `P`'s schema with one more property, which a face takes before the params reach `P`.
pub fn schema_with<P: JsonSchema>(name: &str, property: Value) -> Schema {
    let mut schema = schemars::schema_for!(P);
    if let Some(properties) = schema
        .ensure_object()
        .entry("properties")
        .or_insert_with(|| json!({}))
        .as_object_mut()
    {
        properties.insert(name.into(), property);
    }
    schema
}

/// Every method the daemon answers, in the order `info` lists them. Each area lists its own
/// entries (`methods/edit.rs`, ...); this is the one place they are joined.
pub static METHODS: LazyLock<Vec<Method>> = LazyLock::new(|| {
    [
        core_methods(),
        edit::methods(),
        exec::methods(),
        git::methods(),
        checkpoint::methods(),
        todo::methods(),
        agent::methods(),
        syntax::methods(),
        map::methods(),
        lsp::methods(),
        editor::methods(),
        stats::methods(),
        navigate::methods(),
        symedit::methods(),
    ]
    .into_iter()
    .flatten()
    .collect()
});

/// The daemon's own methods and the read side.
fn core_methods() -> Vec<Method> {
    vec![
        method(
            "info",
            &[],
            "What the daemon serves: roots, budgets, globs, methods.",
            false,
            info,
        ),
        method(
            "schema",
            &[],
            "The JSON Schema of each method's params.",
            false,
            schema,
        ),
        method(
            "read",
            &[],
            "Read a file: a line window, head/tail, base64, a stat probe, or a batch.",
            false,
            |s, p| read::handle(s, &s.line_counts, p),
        )
        .answers(Answer::Read)
        .param_aliases(&[
            ("path", "file"),
            ("filepath", "file"),
            ("file_path", "file"),
            ("from_line", "start"),
            ("line_from", "start"),
            ("to_line", "end"),
            ("line_to", "end"),
        ])
        .bare(&["file"])
        .heavy(|_, params| read::is_heavy(params))
        .warms_servers(),
        method(
            "tree",
            &[],
            "A nested, bounded view of a folder.",
            false,
            |s, p| listing::tree(&s.jail, &s.limits(), p),
        )
        .answers(Answer::Tree)
        .param_aliases(&[
            ("path", "dir"),
            ("directory", "dir"),
            ("max_depth", "depth"),
            ("skip", "exclude"),
            ("ignore", "exclude"),
            ("include_hidden", "hidden"),
        ])
        .bare(&["dir"])
        .heavy(always),
        method(
            "list-folder",
            &[],
            "One folder, paginated.",
            false,
            |s, p| listing::list_folder(&s.jail, &s.limits(), p),
        )
        .answers(Answer::ListFolder)
        .param_aliases(&[("path", "dir"), ("folder", "dir"), ("directory", "dir")])
        .bare(&["dir"]),
        raw_method(
            "search",
            &[],
            "Search file contents (or paths) for a literal or a regex.",
            |s, p| search::handle(&s.jail, &s.limits(), &s.policy(), p)?.into_json(),
        )
        .answers(Answer::Search)
        .param_aliases(&[
            ("term", "pattern"),
            ("query", "pattern"),
            ("include", "glob"),
            ("path", "dir"),
            ("directory", "dir"),
            ("max_matches", "max_results"),
            ("limit", "max_results"),
            ("context_lines_before", "before"),
            ("context_lines_after", "after"),
        ])
        .bare(&["pattern", "dir"])
        .heavy(always),
        method("shutdown", &[], "Stop the daemon.", false, shutdown),
    ]
}

/// The method a request names, by name or alias: coderd's own, or a `coder::*` id (iii's).
/// Methods only an editor face calls (`coderd lsp` telling of a person's buffers): not offered to
/// agents (MCP tools, the `tool` envelope, ChatCLI's schema).
pub const EDITOR_ONLY: &[&str] = &["buffer"];

pub fn find(name: &str) -> Option<&'static Method> {
    METHODS
        .iter()
        .chain(iii::METHODS.iter())
        .find(|m| m.name == name || m.aliases.contains(&name))
}

pub fn names() -> Vec<&'static str> {
    METHODS.iter().map(|m| m.name).collect()
}

pub fn unknown(name: &str) -> Error {
    Error::bad_input(format!("unknown method `{name}`"))
        .with_recovery(format!("methods: {}", names().join(", ")))
}

/// Params of methods that take none.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SchemaParams {
    /// One method's schema; all of them when absent.
    method: Option<String>,
}

/// Each method's description as `schema` answers it, built once: `coder` asks for its method's
/// schema before every call (its flags come from it), and building a JSON Schema costs more than
/// the call that follows it (~0.7 ms a request before this cache).
static DESCRIBED: LazyLock<Map<String, Value>> = LazyLock::new(|| {
    let described = |m: &Method| {
        json!({
            "summary": m.summary,
            "aliases": m.aliases,
            "mutates": m.mutates,
            "bare": m.bare,
            "answer": m.answer,
            // What a call may do, for permission gates (MCP's annotations, `tool`'s `read_only`).
            "hints": hints_json(m),
            "params": (m.schema)(),
            // The names agents give the params (`term` for `pattern`), so that a client types
            // `--term x` as the envelope does: `coder` is ChatCLI's plugin too (docs/chatcli.md).
            "param_aliases": m.param_aliases.iter().copied().collect::<std::collections::BTreeMap<_, _>>(),
        })
    };
    METHODS
        .iter()
        .chain(iii::METHODS.iter())
        .map(|m| (m.name.to_string(), described(m)))
        .collect()
});

fn hints_json(m: &Method) -> Value {
    let hints = protocol::keys::hints(m);
    json!({
        "read_only": hints.read_only,
        "destructive": hints.destructive,
        "idempotent": hints.idempotent,
        "open_world": hints.open_world,
    })
}

fn schema(_: &Arc<State>, p: SchemaParams) -> Result<Value> {
    match p.method {
        Some(name) => {
            let m = find(&name).ok_or_else(|| unknown(&name))?;
            Ok(json!({"method": m.name, "schema": DESCRIBED[m.name]}))
        }
        None => Ok(described_methods()),
    }
}

/// `schema`'s answer without params: every method of coderd's own (a `coder::*` id, iii's, is
/// described when asked for by name). Also printed by `coderd schema`, so `coder --help` lists
/// the methods with no daemon running.
pub fn described_methods() -> Value {
    let own = METHODS
        .iter()
        .map(|m| (m.name.to_string(), DESCRIBED[m.name].clone()));
    json!({"methods": own.collect::<Map<_, _>>()})
}

fn shutdown(state: &Arc<State>, _: NoParams) -> Result<Value> {
    state.request_shutdown();
    Ok(json!({"shutting_down": true}))
}

fn info(state: &Arc<State>, _: NoParams) -> Result<Value> {
    let limits = state.limits();
    let roots: Vec<&std::path::Path> = state
        .jail
        .roots()
        .iter()
        .map(|r| r.path.as_path())
        .collect();
    Ok(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "pid": std::process::id(),
        "uptime_ms": state.started.elapsed().as_millis() as u64,
        "socket": state.socket,
        "config": state.config_path,
        "roots": roots,
        "primary_root": roots[0],
        "non_accessible_globs": state.jail.non_accessible_globs,
        "non_accessible_case_insensitive": state.jail.non_accessible_case_insensitive,
        "refuse_hardlinked_reads": state.jail.refuse_hardlinked_reads,
        "default_exclude_globs": state.jail.default_exclude_globs,
        "limits": *limits,
        "read": {
            "default_max_bytes": read::default_max_bytes(&limits, None),
            "unranged_line_cap": read::UNRANGED_LINE_CAP,
        },
        "search": {
            "default_max_results": search::DEFAULT_MAX_RESULTS,
            "default_context": search::DEFAULT_CONTEXT,
            "max_context": search::MAX_CONTEXT,
        },
        "tree": {"default_max_entries": listing::TREE_DEFAULT_MAX_ENTRIES},
        "max_frame_bytes": protocol::max_frame_bytes(&limits),
        "rss_bytes": memory::rss_bytes(),
        "documents": state.documents.usage(limits.documents_max_bytes),
        "memory": {
            "policy": state.policy(),
            "heavy_running": state.heavy.running(),
            "heavy_queued": state.heavy.queued(),
            "frame_bytes_in_use": state.frames.in_use(),
            "answer_bytes_in_use": state.answers.held(),
            "allocator": memory::ALLOCATOR,
        },
        "connections": {
            "open": state.connections.count(),
            "max": crate::connections::cap(limits.max_connections, limits.max_memory_bytes),
            "fd_reserve": crate::connections::FD_RESERVE,
        },
        "methods": names(),
        "mutating_methods": METHODS.iter().filter(|m| m.mutates).map(|m| m.name).collect::<Vec<_>>(),
        "languages": coderd_syntax::languages::all().iter().map(|l| json!({
            "name": l.name, "extensions": l.extensions, "file_names": l.file_names,
        })).collect::<Vec<_>>(),
        "language_servers": state.lsp.info(),
        "exec": coderd_exec::info(&limits.exec, &state.jail.roots().iter().map(|r| r.path.clone()).collect::<Vec<_>>()),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_has_a_draft_2020_12_schema_that_refuses_unknown_keys() {
        for m in METHODS.iter() {
            let schema = (m.schema)().to_value();
            assert_eq!(
                schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
                "{}",
                m.name
            );
            // The `tool` envelope takes the args a model flattened to its top level.
            if m.name != "tool" {
                assert_eq!(schema["additionalProperties"], false, "{}", m.name);
            }
        }
    }

    #[test]
    fn schema_describes_each_method_from_its_entry() {
        for m in METHODS.iter() {
            let described = &DESCRIBED[m.name];
            assert_eq!(described["bare"], json!(m.bare), "{}", m.name);
            assert_eq!(described["hints"], hints_json(m), "{}", m.name);
            assert_eq!(described["answer"], json!(m.answer), "{}", m.name);
            // An edit (it keeps what it replaces) answers with the files it changed.
            if m.only_named {
                assert_eq!(m.answer, Answer::Edit, "{}", m.name);
            }
            let aliases = described["param_aliases"].as_object().unwrap();
            assert_eq!(aliases.len(), m.param_aliases.len(), "{}", m.name);
            for (alias, canonical) in m.param_aliases {
                assert_eq!(aliases[*alias], *canonical, "{}", m.name);
            }
        }
        // A mutating method is never read-only; `todo` is not, by its entry's hints.
        assert_eq!(DESCRIBED["write"]["hints"]["read_only"], false);
        assert_eq!(DESCRIBED["todo"]["hints"]["read_only"], false);
        assert_eq!(DESCRIBED["exec"]["hints"]["open_world"], true);
        assert_eq!(DESCRIBED["read"]["hints"]["read_only"], true);
    }

    #[test]
    fn a_tool_call_is_as_heavy_as_the_method_it_names() {
        let tool = find("tool").unwrap();
        let heavy = |params: Value| tool.is_heavy(&params);
        assert!(heavy(json!({"cmd": "search", "args": {"pattern": "x"}})));
        assert!(heavy(json!({"raw": "tree --dir src"})));
        assert!(heavy(json!({"tool": "@search", "args": {"pattern": "x"}})));
        assert!(!heavy(
            json!({"cmd": "read", "args": {"file": "a.rs", "start": 1, "end": 5}})
        ));
        // A dry run runs nothing, and a call that does not parse fails before any work.
        assert!(!heavy(
            json!({"cmd": "search", "args": {"pattern": "x"}, "dry_run": true})
        ));
        assert!(!heavy(json!({"cmd": "no-such-method"})));
    }

    #[test]
    fn a_tool_call_changes_something_only_through_a_mutating_method() {
        let tool = find("tool").unwrap();
        let still = |params: Value| tool.changes_nothing(&params);
        assert!(still(json!({"cmd": "read", "args": {"file": "a.rs"}})));
        assert!(still(
            json!({"cmd": "write", "args": {"file": "a", "content": "x"}, "dry_run": true})
        ));
        assert!(still(
            json!({"cmd": "exec", "args": {"cmd": "ls", "dry_run": true}})
        ));
        assert!(!still(
            json!({"cmd": "write", "args": {"file": "a", "content": "x"}})
        ));
        assert!(!still(json!({"cmd": "exec", "args": {"cmd": "ls"}})));
    }
}
