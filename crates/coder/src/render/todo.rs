//! `coder todo`: one line per item with its mark, then the progress.

use std::io::{self, Write};

/// The text `coder todo` prints: one line per item with its mark, then the progress.
pub fn render(out: &mut impl Write, r: &serde_json::Value) -> io::Result<()> {
    let todos = r["todos"].as_array().cloned().unwrap_or_default();
    if todos.is_empty() {
        return writeln!(
            out,
            "no todos in session {}",
            r["session"].as_str().unwrap_or("?")
        );
    }
    for todo in &todos {
        write!(
            out,
            "{} {}. {}",
            mark(todo["status"].as_str().unwrap_or_default()),
            todo["id"],
            todo["description"].as_str().unwrap_or("")
        )?;
        match todo["error"].as_str() {
            Some(error) => writeln!(out, " ({error})")?,
            None => writeln!(out)?,
        }
    }
    let s = &r["summary"];
    writeln!(
        out,
        "{}/{} completed, {} in progress, {} failed",
        s["completed"], s["total"], s["in_progress"], s["failed"]
    )
}

/// An item's mark by its status (an unknown status reads as pending).
fn mark(status: &str) -> &'static str {
    match status {
        "in_progress" => "[~]",
        "completed" => "[✓]",
        "failed" => "[✗]",
        _ => "[ ]",
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
        render(&mut out, &value).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "[ ] 1. task 0\n[~] 2. task 1\n[✓] 3. task 2\n[✗] 4. task 3 (boom)\n\
             1/4 completed, 1 in progress, 1 failed\n"
        );
    }
}
