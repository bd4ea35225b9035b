//! Progress reporting without terminal code: the client calls an [`Observer`]; the
//! binary turns that into a progress bar or plain lines.

use std::time::Duration;

use crate::accounting::Stats;
use crate::error::LlmError;
use crate::types::Source;

/// One finished request of a batch.
#[derive(Clone, Debug)]
pub struct Progress<'a> {
    /// The stage name.
    pub stage: &'a str,
    /// The request's index in the batch.
    pub index: usize,
    /// Requests finished so far in this batch (this one included).
    pub done: usize,
    /// Requests in the batch.
    pub total: usize,
    /// Of the finished ones, answered from the cache or a cassette.
    pub cached: usize,
    /// Where this answer came from (`None` if it failed before one was had).
    pub source: Option<Source>,
    /// Whether it succeeded.
    pub ok: bool,
}

/// Receives progress events. Every method has an empty default; implementations must be
/// cheap and must not panic. Called from worker threads.
pub trait Observer: Send + Sync {
    /// A batch of `total` requests starts.
    fn batch_started(&self, _stage: &str, _total: usize) {}
    /// A request of a batch finished.
    fn request_finished(&self, _progress: &Progress<'_>) {}
    /// A transient failure; attempt `attempt` (1 = first retry) follows after `delay`.
    fn retrying(&self, _stage: &str, _attempt: u32, _delay: Duration, _error: &LlmError) {}
    /// A batch finished; `stats` are its own counters.
    fn batch_finished(&self, _stage: &str, _stats: &Stats) {}
}

/// An observer that ignores everything.
pub struct Silent;

impl Observer for Silent {}
