//! A pool of solver processes for running many independent problems in parallel.

use crate::config::SolverConfig;
use crate::error::SolverError;
use crate::solver::Solver;
use crate::transcript::worker_path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Solver processes shared by worker threads. Processes are started lazily and kept
/// between calls to [`Pool::map`].
#[derive(Debug)]
pub struct Pool {
    config: SolverConfig,
    jobs: usize,
    idle: Mutex<Vec<Solver>>,
    started: AtomicUsize,
    exact_transcript: bool,
}

/// How many solver processes a `jobs` option asks for: 0 means one per available core.
pub fn job_count(jobs: usize) -> usize {
    match jobs {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    }
}

impl Pool {
    /// A pool of up to `jobs` solvers; 0 means one per available core.
    pub fn new(config: SolverConfig, jobs: usize) -> Pool {
        let jobs = job_count(jobs);
        Pool {
            config,
            jobs,
            idle: Mutex::new(Vec::new()),
            started: AtomicUsize::new(0),
            exact_transcript: false,
        }
    }

    /// With one job, the first process writes its transcript to the configured path
    /// itself rather than to `<stem>.0.smt2` (for commands that record one session).
    pub fn exact_transcript(mut self) -> Pool {
        self.exact_transcript = self.jobs == 1;
        self
    }

    /// The number of worker threads (and at most processes).
    pub fn jobs(&self) -> usize {
        self.jobs
    }

    /// The configuration each solver is started with.
    pub fn config(&self) -> &SolverConfig {
        &self.config
    }

    /// Runs `f` on every item in parallel, each worker thread owning one [`Solver`];
    /// results come back in input order.
    ///
    /// Each item starts from a clean solver: a reused process gets `(reset)` first. A
    /// solver that crashed restarts itself; if one cannot be started, the items its
    /// worker takes get the start error. With a transcript configured, solver `i`
    /// writes `<stem>.<i>.smt2` next to the configured path.
    pub fn map<T: Sync, R: Send>(
        &self,
        items: &[T],
        f: impl Fn(&mut Solver, &T) -> Result<R, SolverError> + Sync,
    ) -> Vec<Result<R, SolverError>> {
        let next = AtomicUsize::new(0);
        self.in_workers(items.len(), || self.work(items, &f, &next))
    }

    /// Runs `work` on as many worker threads as there are jobs (at most `n`) and puts
    /// the `(index, result)` pairs they return in index order; together they must
    /// return every index below `n`. A worker's panic is resumed here.
    fn in_workers<R: Send>(
        &self,
        n: usize,
        work: impl Fn() -> Vec<(usize, Result<R, SolverError>)> + Sync,
    ) -> Vec<Result<R, SolverError>> {
        let workers = self.jobs.min(n);
        let mut results: Vec<Option<Result<R, SolverError>>> =
            std::iter::repeat_with(|| None).take(n).collect();
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..workers).map(|_| s.spawn(&work)).collect();
            for h in handles {
                match h.join() {
                    Ok(done) => {
                        for (i, r) in done {
                            results[i] = Some(r);
                        }
                    }
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
        });
        results
            .into_iter()
            .map(|r| r.expect("every item was taken by a worker"))
            .collect()
    }

    fn work<T, R>(
        &self,
        items: &[T],
        f: &(impl Fn(&mut Solver, &T) -> Result<R, SolverError> + Sync),
        next: &AtomicUsize,
    ) -> Vec<(usize, Result<R, SolverError>)> {
        let mut solver = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut used = solver.is_some();
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::SeqCst);
            if i >= items.len() {
                break;
            }
            let r = match &mut solver {
                Some(s) => {
                    if used {
                        s.reset().and_then(|()| f(s, &items[i]))
                    } else {
                        f(s, &items[i])
                    }
                }
                None => match self.start_one() {
                    Ok(s) => f(solver.insert(s), &items[i]),
                    Err(e) => Err(e),
                },
            };
            used = solver.is_some();
            done.push((i, r));
        }
        if let Some(s) = solver {
            self.idle.lock().unwrap_or_else(|e| e.into_inner()).push(s);
        }
        done
    }

    /// Like [`Pool::map`], but each solver process is prepared once by `setup` (for
    /// example: load a specification) and then answers many items without a reset. `f`
    /// must leave the solver as it found it (use `push`/`pop` for per-item assertions).
    /// If `setup` fails, the item at hand gets the error and the next item retries it.
    pub fn map_with<T: Sync, S, R: Send>(
        &self,
        items: &[T],
        setup: impl Fn(&mut Solver) -> Result<S, SolverError> + Sync,
        f: impl Fn(&mut Solver, &S, &T) -> Result<R, SolverError> + Sync,
    ) -> Vec<Result<R, SolverError>> {
        let next = AtomicUsize::new(0);
        self.in_workers(items.len(), || self.work_with(items, &setup, &f, &next))
    }

    /// One worker of [`Pool::map_with`]: takes items until none is left, setting its
    /// solver up before the first (and again after a failed setup).
    fn work_with<T, S, R>(
        &self,
        items: &[T],
        setup: &(impl Fn(&mut Solver) -> Result<S, SolverError> + Sync),
        f: &(impl Fn(&mut Solver, &S, &T) -> Result<R, SolverError> + Sync),
        next: &AtomicUsize,
    ) -> Vec<(usize, Result<R, SolverError>)> {
        let mut solver = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut needs_reset = solver.is_some();
        let mut state: Option<S> = None;
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::SeqCst);
            if i >= items.len() {
                break;
            }
            let r = (|| {
                let sv = match &mut solver {
                    Some(sv) => sv,
                    None => solver.insert(self.start_one()?),
                };
                if state.is_none() {
                    if needs_reset {
                        sv.reset()?;
                        needs_reset = false;
                    }
                    state = Some(setup(sv)?);
                }
                f(sv, state.as_ref().expect("set up"), &items[i])
            })();
            done.push((i, r));
        }
        if let Some(sv) = solver {
            self.idle.lock().unwrap_or_else(|e| e.into_inner()).push(sv);
        }
        done
    }

    fn start_one(&self) -> Result<Solver, SolverError> {
        let i = self.started.fetch_add(1, Ordering::SeqCst);
        let mut config = self.config.clone();
        if !(self.exact_transcript && i == 0) {
            config.transcript = config.transcript.map(|p| worker_path(&p, i));
        }
        Solver::start(&config)
    }
}
