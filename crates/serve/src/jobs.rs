//! Checks run from the page: a `vera` child process per check, its progress streamed,
//! cancellable.
//!
//! A check is the same command a person would type (`vera audit SPEC --format json`,
//! `vera consistency ... --format json`), run in the served folder. Its standard error
//! lines and the time spent are the progress; its JSON report, when it ends with one,
//! is kept as the file's last result. Cancelling kills the process; a cancelled or
//! failed check keeps no result (the previous one stays, marked with its time).

use serde::Serialize;
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};
use tokio::io::{AsyncBufReadExt, AsyncReadExt};
use tokio::sync::{watch, Notify};

/// How a job stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// Still running.
    Running,
    /// Ended with a report.
    Done,
    /// Ended without a report (bad input, a tool failure).
    Failed,
    /// Stopped by the person.
    Cancelled,
}

/// What the page sees of a job.
#[derive(Debug, Clone, Serialize)]
pub struct View {
    /// The job id.
    pub id: u64,
    /// What it checks, e.g. `audit`.
    pub kind: String,
    /// The file or folder, relative to the root.
    pub target: String,
    /// How it stands.
    pub state: State,
    /// Seconds since it started.
    pub seconds: f64,
    /// The last lines of its standard error (at most [`LOG_LINES`]).
    pub log: Vec<String>,
    /// The exit status, when it ended.
    pub exit: Option<i32>,
}

/// Lines of standard error kept per job.
pub const LOG_LINES: usize = 200;

/// A finished check's report.
#[derive(Debug, Clone)]
pub struct Stored {
    /// `audit` or `consistency`.
    pub kind: String,
    /// The JSON report.
    pub json: serde_json::Value,
    /// The exit status (0 fine, 1 findings, 2 undecided or bad input).
    pub exit: i32,
    /// The version of the checked file when the check started.
    pub version: String,
    /// When it ended.
    pub at: SystemTime,
    /// How long it ran.
    pub seconds: f64,
}

struct Job {
    view: watch::Sender<View>,
    cancel: Arc<Notify>,
}

/// Every job of this server, and the last result per target.
#[derive(Default)]
pub struct Jobs {
    next: Mutex<u64>,
    jobs: Mutex<HashMap<u64, Job>>,
    results: Mutex<HashMap<String, Stored>>,
}

/// A check to run.
#[derive(Debug, Clone)]
pub struct Spec {
    /// `audit` or `consistency`.
    pub kind: String,
    /// The target, relative to the root (the key of its result).
    pub target: String,
    /// The `vera` binary.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// Where it runs.
    pub cwd: PathBuf,
    /// The target's version when started.
    pub version: String,
}

/// A path relative to the served folder as a check's argument: one that starts with
/// `-` is written `./-...`, so that it is not read as an option.
pub fn path_arg(rel: &str) -> String {
    if rel.starts_with('-') {
        format!("./{rel}")
    } else {
        rel.to_string()
    }
}

/// How many finished jobs (their logs and states) are kept for the pages that watch
/// them.
pub const KEEP_FINISHED: usize = 100;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Jobs {
    /// Starts a check and returns its id; when a check of the same target is already
    /// running, returns that one's id instead (the test and the insertion are one step
    /// under the lock, so two requests at once start one check). Finished jobs beyond
    /// the newest [`KEEP_FINISHED`] are forgotten (their results are kept per target).
    pub fn start(self: &Arc<Self>, spec: Spec) -> u64 {
        let mut jobs = lock(&self.jobs);
        if let Some(v) = jobs
            .values()
            .map(|j| j.view.borrow().clone())
            .find(|v| v.target == spec.target && v.state == State::Running)
        {
            return v.id;
        }
        let mut finished: Vec<u64> = jobs
            .iter()
            .filter(|(_, j)| j.view.borrow().state != State::Running)
            .map(|(id, _)| *id)
            .collect();
        if finished.len() > KEEP_FINISHED {
            finished.sort_unstable();
            for id in &finished[..finished.len() - KEEP_FINISHED] {
                jobs.remove(id);
            }
        }
        let id = {
            let mut n = lock(&self.next);
            *n += 1;
            *n
        };
        let (tx, _) = watch::channel(View {
            id,
            kind: spec.kind.clone(),
            target: spec.target.clone(),
            state: State::Running,
            seconds: 0.0,
            log: Vec::new(),
            exit: None,
        });
        let cancel = Arc::new(Notify::new());
        jobs.insert(
            id,
            Job {
                view: tx.clone(),
                cancel: cancel.clone(),
            },
        );
        drop(jobs);
        let jobs = self.clone();
        tokio::spawn(async move { jobs.run(tx, cancel, spec).await });
        id
    }

    /// Follows a job's state.
    pub fn watch(&self, id: u64) -> Option<watch::Receiver<View>> {
        lock(&self.jobs).get(&id).map(|j| j.view.subscribe())
    }

    /// Asks a running job to stop; false when there is no such job.
    pub fn cancel(&self, id: u64) -> bool {
        match lock(&self.jobs).get(&id) {
            Some(j) => {
                j.cancel.notify_one();
                true
            }
            None => false,
        }
    }

    /// The last result for a target.
    pub fn result(&self, target: &str) -> Option<Stored> {
        lock(&self.results).get(target).cloned()
    }

    /// Every target with a result.
    pub fn results(&self) -> Vec<(String, Stored)> {
        let mut v: Vec<_> = lock(&self.results)
            .iter()
            .map(|(k, s)| (k.clone(), s.clone()))
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }

    /// The running job for a target, if any.
    pub fn running(&self, target: &str) -> Option<View> {
        lock(&self.jobs)
            .values()
            .map(|j| j.view.borrow().clone())
            .find(|v| v.target == target && v.state == State::Running)
    }

    async fn run(self: Arc<Self>, tx: watch::Sender<View>, cancel: Arc<Notify>, spec: Spec) {
        let started = Instant::now();
        let log = |tx: &watch::Sender<View>, line: String| {
            tx.send_modify(|v| {
                v.log.push(line);
                if v.log.len() > LOG_LINES {
                    v.log.remove(0);
                }
                v.seconds = started.elapsed().as_secs_f64();
            })
        };
        log(&tx, format!("$ vera {}", spec.args.join(" ")));
        let child = tokio::process::Command::new(&spec.program)
            .args(&spec.args)
            .current_dir(&spec.cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            // Its own process group, so that cancelling stops the solvers it started too.
            .process_group(0)
            .spawn();
        let mut child = match child {
            Ok(c) => c,
            Err(e) => {
                log(&tx, format!("cannot start {}: {e}", spec.program.display()));
                tx.send_modify(|v| v.state = State::Failed);
                return;
            }
        };
        let mut stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let tx2 = tx.clone();
        let err_task = tokio::spawn(async move {
            if let Some(e) = stderr {
                let mut lines = tokio::io::BufReader::new(e).lines();
                while let Ok(Some(l)) = lines.next_line().await {
                    tx2.send_modify(|v| {
                        v.log.push(l);
                        if v.log.len() > LOG_LINES {
                            v.log.remove(0);
                        }
                    });
                }
            }
        });
        let out_task = tokio::spawn(async move {
            let mut s = Vec::new();
            if let Some(o) = stdout.as_mut() {
                let _ = o.read_to_end(&mut s).await;
            }
            s
        });
        let ticker = {
            let tx = tx.clone();
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
                    tx.send_modify(|v| v.seconds = started.elapsed().as_secs_f64());
                }
            })
        };
        let status = tokio::select! {
            s = child.wait() => Some(s),
            _ = cancel.notified() => {
                if let Some(pid) = child.id().and_then(|p| i32::try_from(p).ok()) {
                    // SAFETY: killpg only sends a signal; the group is the child's own
                    // (process_group(0) above), so nothing else is hit.
                    unsafe {
                        libc::killpg(pid, libc::SIGKILL);
                    }
                }
                let _ = child.kill().await;
                None
            }
        };
        ticker.abort();
        let _ = err_task.await;
        let out = out_task.await.unwrap_or_default();
        let seconds = started.elapsed().as_secs_f64();
        let Some(status) = status else {
            tx.send_modify(|v| {
                v.state = State::Cancelled;
                v.seconds = seconds;
                v.log
                    .push("cancelled: the check was stopped; no result kept".into());
            });
            return;
        };
        let code = status.ok().and_then(|s| s.code()).unwrap_or(-1);
        let json: Option<serde_json::Value> = serde_json::from_slice(&out).ok();
        let is_report = json
            .as_ref()
            .and_then(|j| j.get("schema"))
            .and_then(|s| s.as_str())
            .is_some_and(|s| s.starts_with("vera.") && s != "vera.error.v1");
        match json {
            Some(json) if is_report && (0..=2).contains(&code) => {
                lock(&self.results).insert(
                    spec.target.clone(),
                    Stored {
                        kind: spec.kind.clone(),
                        json,
                        exit: code,
                        version: spec.version.clone(),
                        at: SystemTime::now(),
                        seconds,
                    },
                );
                tx.send_modify(|v| {
                    v.state = State::Done;
                    v.exit = Some(code);
                    v.seconds = seconds;
                });
            }
            other => {
                if let Some(msg) = other
                    .as_ref()
                    .and_then(|j| j.get("message").or_else(|| j.get("error")))
                    .and_then(|m| m.as_str())
                {
                    log(&tx, msg.to_string());
                }
                tx.send_modify(|v| {
                    v.state = State::Failed;
                    v.exit = Some(code);
                    v.seconds = seconds;
                    v.log.push(format!(
                        "the check ended with exit status {code} and no report"
                    ));
                });
            }
        }
    }
}
