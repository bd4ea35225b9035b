//! Checks run from the page: a `vera` child process per check, its progress streamed,
//! cancellable.
//!
//! A check is the same command a person would type (`vera audit SPEC --format json`,
//! `vera consistency ... --format json`), run in the served folder. Its standard error
//! lines and the time spent are the progress; its JSON report, when it ends with one,
//! is kept as the file's last result. Cancelling kills the process; a cancelled or
//! failed check keeps no result (the previous one stays, marked with its time).
//!
//! At most [`Jobs::limit`] checks run at once (by default the number of cores); the
//! others wait in a queue, first come first served, and the page shows how many are
//! ahead of each. [`Jobs::shutdown`] stops every check, queued or running, and waits
//! until their processes are gone.

use serde::Serialize;
use std::collections::HashMap;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};
use tokio::io::{AsyncBufReadExt, AsyncReadExt};
use tokio::sync::{oneshot, watch, Notify};

/// How a job stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// Waiting for one of the checks before it to end.
    Queued,
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
    /// While queued: how many checks wait before it.
    pub ahead: Option<usize>,
    /// How many checks run at once.
    pub limit: usize,
}

impl State {
    /// Queued or running: not ended yet.
    pub fn active(self) -> bool {
        matches!(self, State::Queued | State::Running)
    }
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
pub struct Jobs {
    next: Mutex<u64>,
    jobs: Mutex<HashMap<u64, Job>>,
    results: Mutex<HashMap<String, Stored>>,
    /// The free places to run a check, and the checks waiting for one (in order).
    slots: Mutex<Slots>,
    limit: usize,
    /// Set by [`Jobs::shutdown`]: no check starts any more.
    closed: AtomicBool,
    /// The tasks that run the checks (each ends once its process is gone).
    tasks: Mutex<Vec<tokio::task::JoinHandle<()>>>,
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

/// A check of `vera` on the one served file `rel`: `args` makes its arguments from the
/// file's path argument, the file as resolved inside the folder (no link in it), so
/// the command line names no link. It runs in the folder, and its version is that of
/// the file's bytes.
pub fn file_job(
    app: &crate::app::App,
    kind: &str,
    rel: &str,
    args: impl FnOnce(String) -> Vec<String>,
) -> Result<Spec, String> {
    let path = app.root.existing(rel).map_err(|e| e.to_string())?;
    let bytes = crate::app::read_limited(&path).map_err(|e| e.to_string())?;
    let resolved = app
        .root
        .relative(&path)
        .ok_or_else(|| format!("`{rel}` is not a path inside the served folder"))?;
    Ok(Spec {
        kind: kind.into(),
        target: rel.to_string(),
        program: app.vera.clone(),
        args: args(path_arg(&resolved)),
        cwd: app.root.dir().to_path_buf(),
        version: crate::page::version(bytes.as_deref()),
    })
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

/// The places to run checks.
struct Slots {
    free: usize,
    waiting: VecDeque<(u64, oneshot::Sender<()>)>,
}

/// A started check's place: held, or waiting for the one a finished check gives.
enum Place {
    Held,
    Waiting(oneshot::Receiver<()>),
}

/// A place held by a running check, given to the next one when dropped.
struct Held(Arc<Jobs>);

impl Drop for Held {
    fn drop(&mut self) {
        self.0.release();
    }
}

/// Why a check was not started.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StartError {
    /// The server is stopping.
    #[error("the server is stopping; no check starts")]
    Stopping,
}

impl Jobs {
    /// No jobs yet; at most `limit` checks run at once (at least one).
    pub fn new(limit: usize) -> Jobs {
        let limit = limit.max(1);
        Jobs {
            next: Mutex::new(0),
            jobs: Mutex::new(HashMap::new()),
            results: Mutex::new(HashMap::new()),
            slots: Mutex::new(Slots {
                free: limit,
                waiting: VecDeque::new(),
            }),
            limit,
            closed: AtomicBool::new(false),
            tasks: Mutex::new(Vec::new()),
        }
    }

    /// How many checks run at once.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Starts a check and returns its id: it runs at once when fewer than
    /// [`Jobs::limit`] checks run, else it is queued. When a check of the same target
    /// is already queued or running, returns that one's id instead (the test and the
    /// insertion are one step under the lock, so two requests at once start one check).
    /// Finished jobs beyond the newest [`KEEP_FINISHED`] are forgotten (their results
    /// are kept per target).
    pub fn start(self: &Arc<Self>, spec: Spec) -> Result<u64, StartError> {
        let mut jobs = lock(&self.jobs);
        if self.closed.load(Ordering::SeqCst) {
            return Err(StartError::Stopping);
        }
        if let Some(v) = jobs
            .values()
            .map(|j| j.view.borrow().clone())
            .find(|v| v.target == spec.target && v.state.active())
        {
            return Ok(v.id);
        }
        let mut finished: Vec<u64> = jobs
            .iter()
            .filter(|(_, j)| !j.view.borrow().state.active())
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
        // A free place is taken now; else the check joins the end of the queue (here,
        // in the order the checks were started).
        let place = {
            let mut slots = lock(&self.slots);
            if slots.free > 0 {
                slots.free -= 1;
                Place::Held
            } else {
                let (tx, rx) = oneshot::channel();
                slots.waiting.push_back((id, tx));
                Place::Waiting(rx)
            }
        };
        let (tx, _) = watch::channel(View {
            id,
            kind: spec.kind.clone(),
            target: spec.target.clone(),
            state: if matches!(place, Place::Held) {
                State::Running
            } else {
                State::Queued
            },
            seconds: 0.0,
            log: Vec::new(),
            exit: None,
            ahead: None,
            limit: self.limit,
        });
        let cancel = Arc::new(Notify::new());
        jobs.insert(
            id,
            Job {
                view: tx.clone(),
                cancel: cancel.clone(),
            },
        );
        Self::number_queue(&jobs);
        drop(jobs);
        let me = self.clone();
        let task =
            tokio::spawn(async move { me.queue_then_run(id, tx, cancel, spec, place).await });
        let mut tasks = lock(&self.tasks);
        tasks.retain(|t| !t.is_finished());
        tasks.push(task);
        Ok(id)
    }

    /// Sets how many checks wait before each queued one.
    fn number_queue(jobs: &HashMap<u64, Job>) {
        let mut queued: Vec<(u64, &Job)> = jobs
            .iter()
            .filter(|(_, j)| j.view.borrow().state == State::Queued)
            .map(|(id, j)| (*id, j))
            .collect();
        queued.sort_by_key(|(id, _)| *id);
        for (ahead, (_, j)) in queued.into_iter().enumerate() {
            j.view.send_if_modified(|v| {
                let changed = v.ahead != Some(ahead);
                v.ahead = Some(ahead);
                changed
            });
        }
    }

    /// Stops every check: none starts any more, the queued ones end cancelled, the
    /// running ones' process groups are killed; returns once every process of theirs
    /// is gone (reaped) or `wait` has passed.
    pub async fn shutdown(&self, wait: std::time::Duration) {
        {
            let jobs = lock(&self.jobs);
            self.closed.store(true, Ordering::SeqCst);
            // Waiting checks get no place: they end cancelled.
            lock(&self.slots).waiting.clear();
            for j in jobs.values() {
                j.cancel.notify_one();
            }
        }
        let tasks: Vec<_> = lock(&self.tasks).drain(..).collect();
        let _ = tokio::time::timeout(wait, async {
            for t in tasks {
                let _ = t.await;
            }
        })
        .await;
    }

    async fn queue_then_run(
        self: Arc<Self>,
        id: u64,
        tx: watch::Sender<View>,
        cancel: Arc<Notify>,
        spec: Spec,
        place: Place,
    ) {
        let started = Instant::now();
        let held = match place {
            Place::Held => true,
            Place::Waiting(mut rx) => tokio::select! {
                given = &mut rx => given.is_ok(),
                _ = cancel.notified() => {
                    // Leave the queue; a place handed over meanwhile is given back.
                    let mut slots = lock(&self.slots);
                    slots.waiting.retain(|(w, _)| *w != id);
                    drop(slots);
                    if rx.try_recv().is_ok() {
                        self.release();
                    }
                    false
                }
            },
        };
        if !held {
            tx.send_modify(|v| {
                v.state = State::Cancelled;
                v.ahead = None;
                v.seconds = started.elapsed().as_secs_f64();
                v.log
                    .push("cancelled while queued: the check did not start".into());
            });
            Self::number_queue(&lock(&self.jobs));
            return;
        }
        let place = Held(self.clone());
        tx.send_modify(|v| {
            v.state = State::Running;
            v.ahead = None;
        });
        Self::number_queue(&lock(&self.jobs));
        self.clone().run(tx, cancel, spec).await;
        drop(place);
    }

    /// A place to run a check is free again: the first check waiting gets it.
    fn release(&self) {
        let mut slots = lock(&self.slots);
        while let Some((_, next)) = slots.waiting.pop_front() {
            if next.send(()).is_ok() {
                return;
            }
        }
        slots.free += 1;
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

    /// The queued or running job for a target, if any.
    pub fn active(&self, target: &str) -> Option<View> {
        lock(&self.jobs)
            .values()
            .map(|j| j.view.borrow().clone())
            .find(|v| v.target == target && v.state.active())
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
            .map(crate::payload::Envelope::of)
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn sleeper(target: &str) -> Spec {
        Spec {
            kind: "audit".into(),
            target: target.into(),
            program: "sleep".into(),
            args: vec!["30".into()],
            cwd: std::env::temp_dir(),
            version: "v".into(),
        }
    }

    async fn until(jobs: &Jobs, id: u64, want: State) {
        let mut rx = jobs.watch(id).unwrap();
        tokio::time::timeout(Duration::from_secs(10), rx.wait_for(|v| v.state == want))
            .await
            .unwrap_or_else(|_| panic!("job {id} never became {want:?}"))
            .unwrap();
    }

    /// Started in a burst, queued checks run in the order they were started, whatever
    /// order their tasks first run in; a cancelled queued check never runs.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_queue_runs_checks_in_the_order_they_were_started() {
        let jobs = Arc::new(Jobs::new(1));
        let ids: Vec<u64> = (0..6)
            .map(|i| jobs.start(sleeper(&format!("t{i}"))).unwrap())
            .collect();
        until(&jobs, ids[0], State::Running).await;
        for (n, id) in ids[1..].iter().enumerate() {
            let v = jobs.watch(*id).unwrap().borrow().clone();
            assert_eq!((v.state, v.ahead), (State::Queued, Some(n)));
        }
        assert!(jobs.cancel(ids[2]));
        until(&jobs, ids[2], State::Cancelled).await;
        for (i, id) in ids.iter().enumerate() {
            if i == 2 {
                continue;
            }
            until(&jobs, *id, State::Running).await;
            for later in &ids[i + 1..] {
                let s = jobs.watch(*later).unwrap().borrow().state;
                assert_ne!(s, State::Running, "{later} runs before {id}");
            }
            assert!(jobs.cancel(*id));
            until(&jobs, *id, State::Cancelled).await;
        }
        // After a shutdown nothing starts.
        jobs.shutdown(Duration::from_secs(5)).await;
        assert_eq!(jobs.start(sleeper("late")), Err(StartError::Stopping));
    }
}
