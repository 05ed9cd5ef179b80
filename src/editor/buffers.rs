//! The editor's open buffers as the face knows them (text, version, whether they differ from the
//! file on disk, the file's version when last seen), and the follower that shows the editor what
//! others write: once a second it renews each buffer's claim with the daemon (`buffer` without
//! text: a stamp check, no read; a claim not renewed lapses, so a dead editor blocks nothing), and
//! when another writer (an agent) has changed the file of a clean buffer, it sends the editor the new text as a `workspace/applyEdit` of that buffer's
//! version, which the editor refuses if the person typed meanwhile, and the file's new findings. A dirty buffer is never
//! touched: the daemon refuses edits under it (C212).

use super::daemon::Daemon;
use lsp_types::{
    ApplyWorkspaceEditParams, DocumentChanges, OneOf, OptionalVersionedTextDocumentIdentifier,
    Position, Range, TextDocumentEdit, TextEdit, Uri, WorkspaceEdit,
};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tower_lsp_server::{Client, UriExt};

/// How often clean buffers' files are looked at.
const FOLLOW_EVERY: Duration = Duration::from_secs(1);

/// One open buffer.
#[derive(Clone, Debug, Default)]
pub struct Open {
    pub text: String,
    pub version: i32,
    /// The file's version on disk when the daemon last answered about this buffer.
    pub disk_version: Option<String>,
    /// The buffer differs from the file (the daemon's judgement).
    pub dirty: bool,
}

/// The editor's open buffers, and the session id the daemon knows them by.
#[derive(Clone)]
pub struct Buffers {
    open: Arc<Mutex<HashMap<PathBuf, Open>>>,
    /// This face's editor session: random, so no other caller can change or close its buffers.
    pub session: Arc<str>,
}

impl Buffers {
    /// The buffers of a new editor session.
    pub fn new_session() -> Buffers {
        Buffers {
            open: Arc::default(),
            session: session_id().into(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Open>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn get(&self, path: &Path) -> Option<Open> {
        self.lock().get(path).cloned()
    }

    pub fn remove(&self, path: &Path) {
        self.lock().remove(path);
    }

    /// Records what the editor sent (`text`, `version`) and what the daemon answered. A report
    /// older than the one held is dropped: handlers of successive notifications run concurrently,
    /// so an earlier version's answer may come back last.
    pub fn record(&self, path: &Path, text: Option<String>, version: Option<i32>, answer: &Value) {
        let mut buffers = self.lock();
        let open = buffers.entry(path.to_path_buf()).or_default();
        if version.is_some_and(|v| v < open.version) {
            return;
        }
        if let Some(text) = text {
            open.text = text;
        }
        if let Some(version) = version {
            open.version = version;
        }
        open.dirty = answer["buffer"]["dirty"].as_bool().unwrap_or(open.dirty);
        open.disk_version = answer["disk_version"].as_str().map(str::to_owned);
    }

    fn all(&self) -> Vec<(PathBuf, Open)> {
        let buffers = self.lock();
        buffers
            .iter()
            .map(|(p, o)| (p.clone(), o.clone()))
            .collect()
    }

    /// Tells the daemon every buffer is closed (the editor is going away).
    pub async fn close_all(&self, daemon: &Arc<Daemon>) {
        for (path, open) in self.all() {
            let params = self.params(&path, open.version, None, false, true);
            call(daemon, "buffer", params).await;
            self.remove(&path);
        }
    }

    /// The `buffer` call's params for one report of this session.
    pub fn params(
        &self,
        path: &Path,
        version: i32,
        text: Option<String>,
        opened: bool,
        closed: bool,
    ) -> Value {
        json!({
            "file": path,
            "editor": &*self.session,
            "version": version,
            "text": text,
            "opened": opened,
            "closed": closed,
        })
    }
}

/// 128 random bits, as hex.
fn session_id() -> String {
    use std::io::Read;
    let mut bytes = [0u8; 16];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if read.is_err() {
        // Never without an id: the time and the process, which no other caller knows either.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        bytes = (nanos ^ u128::from(std::process::id()) << 64).to_le_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// One daemon call off the async workers.
pub async fn call(daemon: &Arc<Daemon>, method: &'static str, params: Value) -> Option<Value> {
    let daemon = daemon.clone();
    tokio::task::spawn_blocking(move || daemon.call(method, params).ok())
        .await
        .ok()
        .flatten()
}

/// Renews every buffer's claim with the daemon, and follows the files of clean ones, until the
/// editor goes away.
pub async fn follow(client: Client, daemon: Arc<Daemon>, buffers: Buffers) {
    loop {
        tokio::time::sleep(FOLLOW_EVERY).await;
        for (path, open) in buffers.all() {
            let params = buffers.params(&path, open.version, None, false, false);
            let Some(answer) = call(&daemon, "buffer", params).await else {
                continue;
            };
            if open.dirty {
                continue;
            }
            let disk = answer["disk_version"].as_str().map(str::to_owned);
            if disk.is_none() || disk == open.disk_version {
                continue;
            }
            // Written by someone else: the editor gets the new text (read as it can read it).
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            if let Some(current) = buffers.get(&path) {
                buffers.record(&path, None, None, &answer);
                // The agent's edit changed the file's findings too: shown now, not on a save
                // (beside the new text, whose answer waits for the person's editor).
                if let Some(uri) = Uri::from_file_path(&path) {
                    let (client, daemon, path) = (client.clone(), daemon.clone(), path.clone());
                    tokio::spawn(async move { super::relay(&client, &daemon, uri, path).await });
                }
                if text != current.text {
                    show(&client, &path, &current, text).await;
                }
            }
        }
    }
}

/// Replaces a buffer's whole text, for its version only (the editor may refuse: the person typed).
async fn show(client: &Client, path: &Path, open: &Open, text: String) {
    let Some(uri) = Uri::from_file_path(path) else {
        return;
    };
    let lines = open.text.split('\n').count() as u32;
    let edit = TextDocumentEdit {
        text_document: OptionalVersionedTextDocumentIdentifier {
            uri,
            version: Some(open.version),
        },
        edits: vec![OneOf::Left(TextEdit {
            range: Range::new(Position::new(0, 0), Position::new(lines, 0)),
            new_text: text,
        })],
    };
    let edit = WorkspaceEdit {
        document_changes: Some(DocumentChanges::Edits(vec![edit])),
        ..WorkspaceEdit::default()
    };
    let params = ApplyWorkspaceEditParams {
        label: Some("coderd: the file changed on disk".into()),
        edit,
    };
    let applied = client
        .send_request::<lsp_types::request::ApplyWorkspaceEdit>(params)
        .await;
    tracing::debug!(path = %path.display(), "showing the file's new text: {applied:?}");
}
