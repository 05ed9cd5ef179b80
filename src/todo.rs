//! `todo`: the agent's task plan, kept per session (`session`, which `coder` fills from
//! `CODER_SESSION`) for the daemon's life and saved under its data folder, so a restart keeps it.
//! `write` replaces the whole plan (as Claude Code's TodoWrite does), `mark` changes one item by
//! its 1-based id, `list` (the default) shows it with a summary.

use coderd_core::error::{Error, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use wire::answers::{TodoEntry, TodoPlan, TodoSummary};

const DEFAULT_SESSION: &str = "default";
const MAX_SESSION_BYTES: usize = 128;

/// An item's status: the answer's type (`wire::answers`), saved as it is answered.
pub use wire::answers::TodoStatus as Status;

const STATUS_NAMES: &str = "pending, in_progress, completed, failed";

/// `field` names the request field for the error; `""` is pending where `blank_ok`.
fn parse_status(text: &str, field: &str, blank_ok: bool) -> Result<Status> {
    Ok(match text {
        "" if blank_ok => Status::Pending,
        "pending" => Status::Pending,
        "in_progress" => Status::InProgress,
        "completed" => Status::Completed,
        "failed" => Status::Failed,
        other => {
            return Err(Error::bad_input(format!(
                "`{field}`: unknown status {other:?}; one of {STATUS_NAMES}"
            ))
            .with_recovery(format!("use one of {STATUS_NAMES}")))
        }
    })
}

#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct Item {
    pub description: String,
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewItem {
    pub description: String,
    /// pending (also ""), in_progress, completed or failed.
    #[serde(default)]
    pub status: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TodoParams {
    /// Replace the plan with `todos`.
    #[serde(default)]
    pub write: bool,
    /// Show the plan (the default).
    #[serde(default)]
    pub list: bool,
    /// Change one item's status (`id`, `status`, optional `error`).
    #[serde(default)]
    pub mark: bool,
    /// The new plan, for `write`: `[{description, status}]`.
    pub todos: Option<Vec<NewItem>>,
    /// 1-based item number, for `mark`.
    pub id: Option<u64>,
    /// The new status, for `mark`.
    pub status: Option<String>,
    /// Why an item failed, for `mark` with `status: failed`.
    pub error: Option<String>,
    /// Whose plan (`coder` sends $CODER_SESSION); "default" when absent.
    pub session: Option<String>,
}

/// The plans of every session, and the file they are saved to.
pub struct Todos {
    file: Option<PathBuf>,
    plans: Mutex<BTreeMap<String, Vec<Item>>>,
}

impl Todos {
    /// Loads the saved plans of the workspace `root` from the data folder (none: memory only).
    pub fn open(data_dir: Option<&Path>, root: &Path) -> Todos {
        let file = data_dir.map(|dir| {
            let tag = wire::tag::of_paths(&[root]);
            dir.join("todos").join(format!("{tag}.json"))
        });
        let plans = file
            .as_ref()
            .and_then(|f| std::fs::read(f).ok())
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default();
        Todos {
            file,
            plans: Mutex::new(plans),
        }
    }

    /// Writes the plans to a temporary file and renames it over the saved one.
    fn save(&self, plans: &BTreeMap<String, Vec<Item>>) -> Result<()> {
        let Some(file) = &self.file else {
            return Ok(());
        };
        let io = |e: std::io::Error| Error::from_io(&e, file);
        if let Some(dir) = file.parent() {
            crate::protocol::create_private_dir(dir).map_err(io)?;
        }
        let temp = file.with_extension(format!("json.{}.tmp", std::process::id()));
        let bytes = serde_json::to_vec(plans).map_err(|e| Error::io(e.to_string()))?;
        std::fs::write(&temp, bytes).map_err(io)?;
        std::fs::rename(&temp, file).map_err(io)
    }
}

pub fn run(todos: &Todos, p: TodoParams) -> Result<serde_json::Value> {
    let session = p.session.clone().unwrap_or_else(|| DEFAULT_SESSION.into());
    if session.is_empty() || session.len() > MAX_SESSION_BYTES {
        return Err(Error::bad_input(format!(
            "`session` must be 1 to {MAX_SESSION_BYTES} bytes"
        )));
    }
    let mut plans = todos.plans.lock().unwrap_or_else(|e| e.into_inner());
    let chosen = [p.write, p.list, p.mark].iter().filter(|b| **b).count();
    if chosen > 1 {
        return Err(Error::bad_input(
            "`write`, `list` and `mark` exclude each other; pass one",
        ));
    }
    if p.write {
        let items = new_plan(p.todos)?;
        plans.insert(session.clone(), items);
        todos.save(&plans)?;
    } else if p.mark {
        let items = plans.entry(session.clone()).or_default();
        mark(items, p.id, p.status.as_deref(), p.error)?;
        todos.save(&plans)?;
    } else if p.todos.is_some() || p.id.is_some() || p.status.is_some() {
        return Err(
            Error::bad_input("`todos`, `id` and `status` need `write` or `mark`")
                .with_recovery("e.g. `todo --mark --id 2 --status completed`"),
        );
    }
    let items = plans.get(&session).map(Vec::as_slice).unwrap_or_default();
    serde_json::to_value(plan(&session, items)).map_err(|e| Error::io(e.to_string()))
}

fn new_plan(todos: Option<Vec<NewItem>>) -> Result<Vec<Item>> {
    let todos = todos.ok_or_else(|| {
        Error::bad_input("`write` needs `todos`: [{description, status}]").with_recovery(
            r#"e.g. {"write":true,"todos":[{"description":"Add tests","status":"pending"}]}"#,
        )
    })?;
    todos
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            if item.description.trim().is_empty() {
                return Err(Error::bad_input(format!(
                    "`todos[{i}].description` is empty"
                )));
            }
            Ok(Item {
                status: parse_status(&item.status, &format!("todos[{i}].status"), true)?,
                description: item.description,
                error: None,
            })
        })
        .collect()
}

fn mark(
    items: &mut [Item],
    id: Option<u64>,
    status: Option<&str>,
    error: Option<String>,
) -> Result<()> {
    let count = items.len();
    let id = id.ok_or_else(|| Error::bad_input("`mark` needs `id` (1-based)"))?;
    let Some(item) = (id as usize).checked_sub(1).and_then(|i| items.get_mut(i)) else {
        return Err(Error::bad_input(format!(
            "`id`: no item {id}; the plan has {count} (ids 1 to {count})"
        ))
        .with_recovery("list the plan with `todo` first"));
    };
    let status = status.ok_or_else(|| Error::bad_input("`mark` needs `status`"))?;
    item.status = parse_status(status, "status", false)?;
    item.error = error.filter(|_| item.status == Status::Failed);
    Ok(())
}

/// The answer: the plan numbered from 1, with its summary.
fn plan(session: &str, items: &[Item]) -> TodoPlan {
    let mut summary = TodoSummary {
        total: items.len(),
        ..TodoSummary::default()
    };
    for item in items {
        match item.status {
            Status::Pending => summary.pending += 1,
            Status::InProgress => summary.in_progress += 1,
            Status::Completed => summary.completed += 1,
            Status::Failed => summary.failed += 1,
        }
    }
    TodoPlan {
        session: session.to_string(),
        todos: items
            .iter()
            .enumerate()
            .map(|(i, item)| TodoEntry {
                id: i + 1,
                description: item.description.clone(),
                status: item.status,
                error: item.error.clone(),
            })
            .collect(),
        summary,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(n: usize) -> Vec<Item> {
        (0..n)
            .map(|i| Item {
                description: format!("task {i}"),
                status: Status::Pending,
                error: None,
            })
            .collect()
    }

    #[test]
    fn the_answer_is_the_wire_type_and_its_bytes_are_those_clients_read() {
        let mut items = items(2);
        mark(&mut items, Some(2), Some("failed"), Some("boom".into())).unwrap();
        let answer = serde_json::to_value(plan("s", &items)).unwrap();
        // The bytes before the answer became `wire::answers::TodoPlan` (keys in `Value`'s order).
        assert_eq!(
            answer.to_string(),
            r#"{"session":"s","summary":{"completed":0,"failed":1,"in_progress":0,"pending":1,"total":2},"todos":[{"description":"task 0","id":1,"status":"pending"},{"description":"task 1","error":"boom","id":2,"status":"failed"}]}"#
        );
        let back: TodoPlan = serde_json::from_value(answer).unwrap();
        assert_eq!(back, plan("s", &items));
    }

    #[test]
    fn mark_takes_one_based_ids_and_refuses_others() {
        let mut plan = items(2);
        mark(&mut plan, Some(2), Some("completed"), None).unwrap();
        assert_eq!(plan[1].status, Status::Completed);
        for bad in [0, 3] {
            let e = mark(&mut plan, Some(bad), Some("completed"), None).unwrap_err();
            assert!(e.message.contains("`id`"), "{}", e.message);
        }
        let e = mark(&mut plan, Some(1), Some("done"), None).unwrap_err();
        assert!(e.message.contains("`status`"));
        assert!(mark(&mut plan, Some(1), Some(""), None).is_err());
    }

    #[test]
    fn a_blank_status_in_a_new_plan_is_pending_and_bad_ones_name_their_item() {
        let plan = new_plan(Some(vec![NewItem {
            description: "a".into(),
            status: "".into(),
        }]))
        .unwrap();
        assert_eq!(plan[0].status, Status::Pending);
        let e = new_plan(Some(vec![
            NewItem {
                description: "a".into(),
                status: "pending".into(),
            },
            NewItem {
                description: "b".into(),
                status: "later".into(),
            },
        ]))
        .unwrap_err();
        assert!(e.message.contains("`todos[1].status`"), "{}", e.message);
    }
}
