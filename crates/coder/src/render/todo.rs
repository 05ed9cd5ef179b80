//! `coder todo`: one line per item with its mark, then the progress, from the answer's type
//! (`wire::answers::TodoPlan`, the one the daemon builds).

use std::io::{self, Write};
use wire::answers::{TodoPlan, TodoStatus};

/// The text `coder todo` prints: one line per item with its mark, then the progress; an answer
/// that is not a plan is shown as JSON.
pub fn render(out: &mut impl Write, text: &str) -> io::Result<()> {
    let Ok(plan) = serde_json::from_str::<TodoPlan>(text) else {
        return super::write_pretty(out, text.as_bytes());
    };
    if plan.todos.is_empty() {
        return writeln!(out, "no todos in session {}", plan.session);
    }
    for todo in &plan.todos {
        write!(
            out,
            "{} {}. {}",
            mark(todo.status),
            todo.id,
            todo.description
        )?;
        match &todo.error {
            Some(error) => writeln!(out, " ({error})")?,
            None => writeln!(out)?,
        }
    }
    let s = plan.summary;
    writeln!(
        out,
        "{}/{} completed, {} in progress, {} failed",
        s.completed, s.total, s.in_progress, s.failed
    )
}

/// An item's mark by its status.
fn mark(status: TodoStatus) -> &'static str {
    match status {
        TodoStatus::Pending => "[ ]",
        TodoStatus::InProgress => "[~]",
        TodoStatus::Completed => "[✓]",
        TodoStatus::Failed => "[✗]",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_rendering_marks_each_status() {
        let todo = |id: u64, status: &str| json!({"id": id, "description": format!("task {}", id - 1), "status": status});
        let mut failed = todo(4, "failed");
        failed["error"] = json!("boom");
        let value = json!({
            "session": "s",
            "todos": [todo(1, "pending"), todo(2, "in_progress"), todo(3, "completed"), failed],
            "summary": {"total": 4, "pending": 1, "in_progress": 1, "completed": 1, "failed": 1},
        });
        let mut out = Vec::new();
        render(&mut out, &value.to_string()).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "[ ] 1. task 0\n[~] 2. task 1\n[✓] 3. task 2\n[✗] 4. task 3 (boom)\n\
             1/4 completed, 1 in progress, 1 failed\n"
        );
    }
}
