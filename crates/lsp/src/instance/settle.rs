//! The settling rule: when a document's diagnostics are current. Waits for the server's own
//! findings of the version sent, and for its first check run that began after the save.

use super::{wait, Deadlines, Instance, Status};
use crate::client::{Client, Findings};
use lsp_types::Diagnostic;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// What settling found for one document on one server.
#[derive(Debug)]
pub enum Outcome {
    Current {
        items: Vec<Diagnostic>,
        before: Vec<Diagnostic>,
        /// A part of the answer `items` lack, and why.
        missing: Option<Missing>,
    },
    /// Not current by the deadline (or the server cannot answer): nothing is shown for it.
    Pending { state: Status, reason: String },
}
/// A part of a check server's answer that is not in it.
#[derive(Debug)]
pub struct Missing {
    pub part: Part,
    pub reason: String,
}
/// The two parts of a check server's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// What the server finds itself (rust-analyzer's native diagnostics, by pull).
    Own,
    /// What its check of saved files finds (rust-analyzer's `cargo check`).
    Check,
}
/// How a wait for a version's check run ended.
enum CheckWait {
    /// With the publish count at the run's begin: what was published after it is the run's.
    Ended { began_at_seq: u64 },
    /// The document changed meanwhile.
    Changed,
    /// The last run took this long, longer than the deadline leaves.
    CannotEnd(Duration),
    /// No run has begun since a save whose run had not begun by its deadline.
    NeverBegins,
    /// Whether the save's run had begun.
    Deadline { began: bool },
}
/// How a pull of the server's own findings ended.
enum Own {
    Items(Vec<Diagnostic>),
    Again,
    Answer(Outcome),
}
impl Instance {
    /// Waits until the server's diagnostics for `path` are current (see docs/lsp.md, the settling
    /// rule), or the deadline passes: warm when the server is ready, has settled once and reports
    /// no work in progress, cold otherwise, once per load.
    pub async fn settle(self: Arc<Self>, path: PathBuf, deadlines: Deadlines) -> Outcome {
        // Cold also while the server reports work in progress: rust-analyzer and tsserver are
        // "ready" long before they have loaded the project.
        let cold = {
            let inner = self.lock();
            let warm = inner.status == Status::Ready
                && inner.settled_once
                && inner.client.as_ref().is_some_and(|c| !c.activity().1);
            !warm && !inner.cold_spent
        };
        let deadline = Instant::now()
            + match cold {
                true => deadlines.cold,
                false => deadlines.warm,
            };
        let outcome = self.settle_by(&path, deadline, deadlines.quiet).await;
        // A check that answered alone says nothing of the server's own analysis.
        let analysed = match &outcome {
            Outcome::Current { missing, .. } => !matches!(missing, Some(m) if m.part == Part::Own),
            Outcome::Pending { state, .. } => *state == Status::Ready,
        };
        coderd_core::metrics::record(coderd_core::metrics::Event::Settle(match &outcome {
            Outcome::Current { .. } => "current",
            Outcome::Pending { .. } => "pending",
        }));
        let mut inner = self.lock();
        inner.settled_once |= analysed;
        match outcome {
            Outcome::Current { .. } => inner.cold_spent = false,
            Outcome::Pending { .. } => inner.cold_spent |= cold,
        }
        drop(inner);
        outcome
    }

    async fn settle_by(&self, path: &Path, deadline: Instant, quiet: Duration) -> Outcome {
        let mut ticks = self.tick.subscribe();
        loop {
            let (status, client, target) = {
                let inner = self.lock();
                let target = inner
                    .docs
                    .get(path)
                    .map(|d| (d.version, d.sent_seq, d.opened));
                (inner.status, inner.client.clone(), target)
            };
            if status == Status::Failed {
                return self.pending(status);
            }
            let Some((version, sent_seq, true)) = target else {
                if wait(&mut ticks, deadline, None).await.is_err() {
                    return self.pending(status);
                }
                continue;
            };
            let Some(client) = client else {
                if wait(&mut ticks, deadline, None).await.is_err() {
                    return self.pending(status);
                }
                continue;
            };
            if client.offers_pull() {
                let own = self.pull_own(&client, path, version, &mut ticks, deadline);
                let first_analysis = !self.lock().settled_once;
                let own = match client.def.check_progress {
                    // The server's first analysis can take seconds longer than its check
                    // (rust-analyzer's resolves the standard library): once the check of this
                    // version has ended, the answer does not wait for it. Later ones are quick.
                    Some(_) if first_analysis => {
                        let mut check_ticks = self.tick.subscribe();
                        let check = self.wait_for_check(
                            &client,
                            path,
                            version,
                            &mut check_ticks,
                            deadline,
                            quiet,
                        );
                        tokio::select! {
                            own = own => own,
                            CheckWait::Ended { began_at_seq } = check => {
                                return self.check_alone(&client, path, began_at_seq);
                            }
                        }
                    }
                    _ => own.await,
                };
                match own {
                    Own::Items(items) => {
                        let before = client.pulled(path).map(|f| f.before).unwrap_or_default();
                        match self
                            .add_check(
                                &client, path, version, items, before, &mut ticks, deadline, quiet,
                            )
                            .await
                        {
                            Some(outcome) => return outcome,
                            None => continue, // Changed meanwhile: settle the newer version.
                        }
                    }
                    Own::Again => continue,
                    Own::Answer(outcome) => return outcome,
                }
            }
            match client.findings(path) {
                Some(found)
                    if is_about(&found, version, sent_seq) || self.same_text(path, &found) =>
                {
                    let (last_publish, busy) = client.activity();
                    // A final publish for this very version needs no quiet period after it.
                    let final_one = client.def.final_publish && found.version == Some(version);
                    let wait_quiet = if final_one { Duration::ZERO } else { quiet };
                    let quiet_at = last_publish.map_or(Instant::now(), |t| t + wait_quiet);
                    if !busy && Instant::now() >= quiet_at {
                        if self.version_of(path) != Some(version) {
                            continue;
                        }
                        return Outcome::Current {
                            items: found.items,
                            before: found.before,
                            missing: None,
                        };
                    }
                    let wake = if busy { None } else { Some(quiet_at) };
                    if wait(&mut ticks, deadline, wake).await.is_err() {
                        return self.pending(status);
                    }
                }
                _ => {
                    if wait(&mut ticks, deadline, None).await.is_err() {
                        return self.pending(status);
                    }
                }
            }
        }
    }

    /// Pulls the server's own findings for `version`: `Again` when the document changed
    /// meanwhile or the server asks to be asked again.
    async fn pull_own(
        &self,
        client: &Client,
        path: &Path,
        version: i32,
        ticks: &mut watch::Receiver<u64>,
        deadline: Instant,
    ) -> Own {
        let remaining = deadline.saturating_duration_since(Instant::now());
        let refreshes = client.refreshes();
        let pulled = client.pull(path, version, remaining).await;
        tracing::debug!(
            server = %self.def.name,
            version,
            items = pulled.as_ref().and_then(|p| p.as_ref().ok()).map(Vec::len),
            busy = client.activity().1,
            "pulled"
        );
        match pulled {
            Some(Ok(items)) => {
                if self.version_of(path) != Some(version) {
                    return Own::Again; // Changed meanwhile: settle the newer version.
                }
                // An empty answer while the server is still loading may just mean "not analysed
                // yet" (rust-analyzer answers so for its first ~30 s): ask again after its
                // refresh or the end of its progress, never report it clean.
                if items.is_empty() && client.activity().1 {
                    loop {
                        if wait(ticks, deadline, None).await.is_err() {
                            return Own::Answer(Outcome::Pending {
                                state: Status::Starting,
                                reason: "the server was still loading the project at the deadline"
                                    .into(),
                            });
                        }
                        if !client.activity().1 || client.refreshes() != refreshes {
                            return Own::Again;
                        }
                    }
                }
                Own::Items(items)
            }
            Some(Err(crate::transport::TransportError::Closed)) => {
                if wait(ticks, deadline, None).await.is_err() {
                    return Own::Answer(self.pending(self.status()));
                }
                Own::Again
            }
            // ContentModified / ServerCancelled (rust-analyzer, when a newer change arrives
            // mid-pull): ask again, for whatever version is current then.
            Some(Err(crate::transport::TransportError::Rpc {
                code: -32801 | -32802,
                ..
            })) => {
                let soon = Instant::now() + Duration::from_millis(20);
                if wait(ticks, deadline, Some(soon)).await.is_err() {
                    return Own::Answer(self.pending(self.status()));
                }
                Own::Again
            }
            Some(Err(_)) => Own::Answer(self.pending(self.status())),
            None => Own::Again, // Pulls were unregistered meanwhile.
        }
    }

    /// Adds to a version's own findings those of the server's first check run that began after
    /// the version was saved to it (see `wait_for_check`). By the deadline, the own findings
    /// alone, with why the check is missing; at once so, when the last run took longer than the
    /// deadline leaves (a big workspace: every edit would otherwise wait the whole deadline for a
    /// run that cannot end in time). `None` when the document changed meanwhile.
    #[allow(clippy::too_many_arguments)]
    async fn add_check(
        &self,
        client: &Client,
        path: &Path,
        version: i32,
        mut items: Vec<Diagnostic>,
        mut before: Vec<Diagnostic>,
        ticks: &mut watch::Receiver<u64>,
        deadline: Instant,
        quiet: Duration,
    ) -> Option<Outcome> {
        let reason = match client.def.check_progress {
            None => None,
            Some(_) => match self
                .wait_for_check(client, path, version, ticks, deadline, quiet)
                .await
            {
                CheckWait::Ended { began_at_seq } => {
                    if let Some(found) = check_findings(client, path, began_at_seq) {
                        items.extend(found.items);
                        before.extend(found.before);
                    }
                    None
                }
                CheckWait::Changed => return None,
                CheckWait::CannotEnd(took) => Some(format!(
                    "not waited for: its last check took {:.1} s, longer than the deadline leaves",
                    took.as_secs_f64()
                )),
                CheckWait::NeverBegins => Some(
                    "not waited for: no check has begun since one that a save should have \
                    started had not begun by its deadline (are the server's checks on save off?)"
                        .into(),
                ),
                CheckWait::Deadline { began: true } => {
                    Some("the check the save started had not finished by the deadline".into())
                }
                CheckWait::Deadline { began: false } => {
                    // Idle, and still no run: the server does not check saves (while it loads,
                    // it may only be holding them back).
                    if !client.activity().1 {
                        self.lock().checks_silent_at = Some(client.checks().begun);
                    }
                    Some("no check had begun after the save by the deadline".into())
                }
            },
        };
        Some(Outcome::Current {
            items,
            before,
            missing: reason.map(|r| Missing {
                part: Part::Check,
                reason: format!(
                    "{r}; findings shown are the server's own (`diagnostics` on the file once \
                    the check has ended adds the check's)"
                ),
            }),
        })
    }

    /// The answer when the check of a version ended before the server's own analysis of it: the
    /// check's findings, the server's own listed as pending.
    fn check_alone(&self, client: &Client, path: &Path, began_at_seq: u64) -> Outcome {
        let found = check_findings(client, path, began_at_seq).unwrap_or_default();
        Outcome::Current {
            items: found.items,
            before: found.before,
            missing: Some(Missing {
                part: Part::Own,
                reason: "its own analysis was still running when its check of this version \
                    ended; findings shown are the check's"
                    .into(),
            }),
        }
    }

    /// Waits for the server's first check run that began after `version` was saved to it to
    /// end, and for its publishes to be quiet for `quiet`.
    async fn wait_for_check(
        &self,
        client: &Client,
        path: &Path,
        version: i32,
        ticks: &mut watch::Receiver<u64>,
        deadline: Instant,
        quiet: Duration,
    ) -> CheckWait {
        loop {
            let mark = self
                .lock()
                .docs
                .get(path)
                .map(|d| (d.version, d.check_mark));
            let Some((_, mark)) = mark.filter(|(v, _)| *v == version) else {
                return CheckWait::Changed;
            };
            let checks = client.checks();
            let silent = self.lock().checks_silent_at == Some(checks.begun);
            if silent && checks.begun <= mark {
                return CheckWait::NeverBegins;
            }
            if let Some(took) = checks.cannot_end_by(mark, deadline) {
                return CheckWait::CannotEnd(took);
            }
            // Quiet after the run's last publish and after its end (a cancelled run's end is
            // followed at once by the next run's begin).
            let last = client.activity().0.max(checks.ended_at);
            let quiet_at = last.map_or(Instant::now(), |t| t + quiet);
            let ended = checks.begun > mark && !checks.open;
            if ended && Instant::now() >= quiet_at {
                return CheckWait::Ended {
                    began_at_seq: checks.began_at_seq,
                };
            }
            if wait(ticks, deadline, ended.then_some(quiet_at))
                .await
                .is_err()
            {
                let began = client.checks().begun > mark;
                return CheckWait::Deadline { began };
            }
        }
    }

    fn pending(&self, state: Status) -> Outcome {
        let reason = match state {
            Status::Ready => "the server had not answered for this version by the deadline".into(),
            Status::Failed => self
                .lock()
                .last_error
                .clone()
                .unwrap_or_else(|| "failed".into()),
            other => format!("the server is {}", other.as_str().replace('_', " ")),
        };
        Outcome::Pending { state, reason }
    }

    /// Whether versioned findings are for an older version whose text is the current text.
    fn same_text(&self, path: &Path, found: &Findings) -> bool {
        let Some(version) = found.version else {
            return false;
        };
        self.lock()
            .docs
            .get(path)
            .is_some_and(|d| d.same_text_as(version))
    }

    fn version_of(&self, path: &Path) -> Option<i32> {
        self.lock().docs.get(path).map(|d| d.version)
    }
}
/// Whether findings describe `version`: stamped with it (or later), or, from a server that sends
/// no version, published after the change was sent.
fn is_about(found: &Findings, version: i32, sent_seq: u64) -> bool {
    match found.version {
        Some(v) => v >= version,
        None => found.seq > sent_seq,
    }
}
/// What the server published about a document after a check run began (publish count
/// `began_at_seq`): that run's findings; anything older is dropped.
fn check_findings(client: &Client, path: &Path, began_at_seq: u64) -> Option<Findings> {
    client.findings(path).filter(|f| f.seq > began_at_seq)
}
