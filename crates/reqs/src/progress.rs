//! How a long audit tells how far it has got: a stage with its number of steps, then
//! the steps done. The library never prints (an Architecture Invariant); the binary
//! draws what it is told as a progress bar, and tests record it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Receives an audit's progress. Called from the audit's worker threads too.
pub trait Observer: Send + Sync {
    /// A stage starts: `name` says what it does, `total` how many steps it has.
    fn stage(&self, name: &str, total: usize);
    /// `done` of the current stage's steps are finished; `note` says what is left
    /// or found so far (may be empty).
    fn step(&self, done: usize, note: &str);
}

/// An audit option: where its progress goes (nowhere by default).
#[derive(Clone, Default)]
pub struct Progress {
    observer: Option<Arc<dyn Observer>>,
    /// Put before every stage's name (the redundancy check's own search, say).
    prefix: &'static str,
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let to = if self.observer.is_some() {
            "observed"
        } else {
            "none"
        };
        write!(f, "Progress({to}{})", self.prefix)
    }
}

impl Progress {
    /// Progress told to `observer`.
    pub fn to(observer: Arc<dyn Observer>) -> Progress {
        Progress {
            observer: Some(observer),
            prefix: "",
        }
    }

    /// The same observer, every stage's name after `prefix` (e.g. "redundancy: ").
    pub fn prefixed(&self, prefix: &'static str) -> Progress {
        Progress {
            observer: self.observer.clone(),
            prefix,
        }
    }

    /// A stage of `total` steps starts.
    pub fn stage(&self, name: &str, total: usize) {
        if let Some(o) = &self.observer {
            o.stage(&format!("{}{name}", self.prefix), total);
        }
    }

    /// `done` steps of the current stage are finished.
    pub fn step(&self, done: usize, note: &str) {
        if let Some(o) = &self.observer {
            o.step(done, note);
        }
    }

    /// A counter of the current stage's steps that threads share: each
    /// [`Counter::tick`] reports one more step done.
    pub fn counter(&self) -> Counter<'_> {
        Counter {
            progress: self,
            done: AtomicUsize::new(0),
        }
    }
}

/// Steps done in a stage, counted from several threads (see [`Progress::counter`]).
pub struct Counter<'a> {
    progress: &'a Progress,
    done: AtomicUsize,
}

impl Counter<'_> {
    /// One more step is done.
    pub fn tick(&self) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        self.progress.step(done, "");
    }
}
