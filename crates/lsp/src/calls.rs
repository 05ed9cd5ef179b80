//! `callers` and `callees` through a warm server's call hierarchy: `prepareCallHierarchy` at a
//! position names the item there, then `callHierarchy/incomingCalls` (who calls it) or
//! `outgoingCalls` (what it calls) are asked of the same server.

use super::navigate::{places, At, Place, Unanswered};
use super::{uri, Lsp};
use coderd_core::workspace::Workspace;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Which way the calls go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// The functions that call the item.
    Incoming,
    /// The functions the item calls.
    Outgoing,
}

/// One calling (incoming) or called (outgoing) function, and where the calls are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    pub name: String,
    /// The function's name in its file.
    pub at: Place,
    /// The calls: in the caller's file (incoming) or in the item's own (outgoing).
    pub sites: Vec<Place>,
}

/// A server's calls of the item at a position.
pub struct Calls {
    pub server: String,
    /// The item the hierarchy was prepared at.
    pub item: String,
    pub calls: Vec<Call>,
}

impl Lsp {
    /// The calls of the item at `at`: `Err` says why no server answered (see `ask_why`); an
    /// item with no calls is `Ok` with none.
    pub fn calls(
        &self,
        state: &Workspace,
        path: &Path,
        at: At,
        direction: Direction,
    ) -> Result<Calls, Unanswered> {
        let method = "textDocument/prepareCallHierarchy";
        let prepared = self.ask_why(state, path, at, method, json!({}))?;
        let items = match &prepared.result {
            Value::Array(items) => items.clone(),
            one => vec![one.clone()],
        };
        let (request, key) = match direction {
            Direction::Incoming => ("callHierarchy/incomingCalls", "from"),
            Direction::Outgoing => ("callHierarchy/outgoingCalls", "to"),
        };
        let timeout = Duration::from_millis(state.limits().lsp.cold_deadline_ms);
        let mut calls = Vec::new();
        for item in &items {
            let asked = prepared
                .client
                .request(request, json!({"item": item}), timeout);
            let answer = tokio::runtime::Handle::current().block_on(asked);
            let answer = answer.map_err(|e| Unanswered {
                failed: vec![format!("{}: {request}: {e:?}", prepared.server)],
                ..Unanswered::default()
            })?;
            let own = item["uri"].as_str().and_then(uri::to_path);
            for entry in answer.as_array().map(Vec::as_slice).unwrap_or(&[]) {
                calls.extend(call(
                    &entry[key],
                    &entry["fromRanges"],
                    direction,
                    own.as_ref(),
                ));
            }
        }
        calls.sort_by(|a, b| a.at.cmp(&b.at));
        Ok(Calls {
            server: prepared.server,
            item: items
                .first()
                .and_then(|i| i["name"].as_str())
                .unwrap_or_default()
                .into(),
            calls,
        })
    }
}

/// One entry of an incoming or outgoing answer: the other function and the call ranges, which
/// lie in the caller's file (incoming: the other function's; outgoing: the item's own).
fn call(
    other: &Value,
    ranges: &Value,
    direction: Direction,
    own: Option<&PathBuf>,
) -> Option<Call> {
    let other_uri = other["uri"].as_str()?;
    let at = places(&json!({"uri": other_uri, "range": other["selectionRange"]}))
        .into_iter()
        .next()?;
    let sites_uri = match direction {
        Direction::Incoming => other_uri.to_string(),
        Direction::Outgoing => uri::from_path(own?),
    };
    let located: Vec<Value> = (ranges.as_array().map(Vec::as_slice).unwrap_or(&[]))
        .iter()
        .map(|range| json!({"uri": sites_uri, "range": range}))
        .collect();
    Some(Call {
        name: other["name"].as_str().unwrap_or_default().to_string(),
        at,
        sites: places(&Value::Array(located)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outgoing_calls_are_sited_in_the_items_own_file_and_incoming_in_the_callers() {
        let range = |line: u32| json!({"start": {"line": line, "character": 1}, "end": {"line": line, "character": 4}});
        let other = json!({"name": "F03", "uri": "file:///ws/f03.go", "selectionRange": range(2)});
        let own = PathBuf::from("/ws/total.go");
        let ranges = json!([range(3), range(3), range(5)]);
        let incoming = call(&other, &ranges, Direction::Incoming, Some(&own)).unwrap();
        assert_eq!((incoming.name.as_str(), incoming.at.line), ("F03", 3));
        let lines: Vec<_> = incoming
            .sites
            .iter()
            .map(|s| (s.path.clone(), s.line))
            .collect();
        let f03 = PathBuf::from("/ws/f03.go");
        assert_eq!(lines, [(f03.clone(), 4), (f03, 6)]);
        let outgoing = call(&other, &ranges, Direction::Outgoing, Some(&own)).unwrap();
        assert_eq!(outgoing.sites[0].path, own);
        assert_eq!(outgoing.at.path, PathBuf::from("/ws/f03.go"));
    }
}
