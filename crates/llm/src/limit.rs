//! Limits: requests in flight, tokens per minute, retry backoff, cancellation.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::error::LlmError;

/// A counting semaphore bounding requests in flight.
pub(crate) struct Semaphore {
    free: Mutex<usize>,
    cv: Condvar,
}

pub(crate) struct Permit<'a>(&'a Semaphore);

impl Semaphore {
    pub(crate) fn new(n: usize) -> Semaphore {
        Semaphore {
            free: Mutex::new(n.max(1)),
            cv: Condvar::new(),
        }
    }
    pub(crate) fn acquire(&self) -> Permit<'_> {
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        while *free == 0 {
            free = self.cv.wait(free).unwrap_or_else(|p| p.into_inner());
        }
        *free -= 1;
        Permit(self)
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        *self.0.free.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        self.0.cv.notify_one();
    }
}

/// A sliding one-minute window of tokens used. Before a call, its estimate is reserved
/// and the caller waits until the window has room; after it, the real usage is booked.
pub(crate) struct TokenLimiter {
    per_minute: u64,
    window: Mutex<VecDeque<(Instant, u64)>>,
}

const MINUTE: Duration = Duration::from_secs(60);

impl TokenLimiter {
    pub(crate) fn new(per_minute: u64) -> TokenLimiter {
        TokenLimiter {
            per_minute,
            window: Mutex::new(VecDeque::new()),
        }
    }

    /// Waits until `estimate` tokens fit in the window (or the window is empty, so that
    /// a single request larger than the limit still goes), then reserves them.
    pub(crate) fn acquire(&self, estimate: u64, cancel: &CancelToken) -> Result<(), LlmError> {
        loop {
            let wait = {
                let mut w = self.window.lock().unwrap_or_else(|p| p.into_inner());
                let now = Instant::now();
                while w
                    .front()
                    .is_some_and(|(t, _)| now.duration_since(*t) >= MINUTE)
                {
                    w.pop_front();
                }
                let used: u64 = w.iter().map(|(_, n)| n).sum();
                if w.is_empty() || used + estimate <= self.per_minute {
                    w.push_back((now, estimate));
                    return Ok(());
                }
                MINUTE.saturating_sub(now.duration_since(w.front().expect("not empty").0))
            };
            cancel.sleep(wait.max(Duration::from_millis(10)))?;
        }
    }

    /// Books tokens used beyond the estimate.
    pub(crate) fn book(&self, extra: u64) {
        if extra > 0 {
            self.window
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push_back((Instant::now(), extra));
        }
    }
}

/// Retry settings: exponential backoff with jitter, honouring `Retry-After`.
#[derive(Clone, Debug, PartialEq)]
pub struct RetryPolicy {
    /// Attempts after the first one.
    pub max_retries: u32,
    /// First backoff delay.
    pub base: Duration,
    /// Largest backoff delay (and largest `Retry-After` honoured).
    pub max: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 4,
            base: Duration::from_millis(500),
            max: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// The delay before retry number `attempt` (1-based) after `error`: the server's
    /// `Retry-After` when it sent one (capped at `max`), otherwise
    /// `base * 2^(attempt-1)` capped at `max`, with "equal jitter" (a uniformly random
    /// value in the upper half), so clients that failed together do not retry together.
    pub fn delay(&self, attempt: u32, error: &LlmError) -> Duration {
        if let Some(ra) = error.retry_after() {
            return ra.min(self.max) + Duration::from_millis(jitter(50));
        }
        let exp = self
            .base
            .saturating_mul(1u32 << (attempt.saturating_sub(1)).min(20))
            .min(self.max);
        let half = exp / 2;
        half + Duration::from_millis(jitter(half.as_millis() as u64))
    }
}

/// A random number in `0..=bound` (xorshift seeded from the clock and a counter: good
/// enough for jitter, no dependency).
fn jitter(bound: u64) -> u64 {
    static STATE: AtomicU64 = AtomicU64::new(0);
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1);
    let mut x = STATE.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed) ^ t;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    if bound == 0 {
        0
    } else {
        x % (bound + 1)
    }
}

/// Cancels a run: requests not yet started fail with [`LlmError::Cancelled`], retry
/// waits end early, finished answers are kept (they are already in the cache).
#[derive(Clone, Debug, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    /// A token that is not cancelled.
    pub fn new() -> CancelToken {
        CancelToken::default()
    }
    /// Cancels (e.g. from a Ctrl-C handler).
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
    /// Whether it was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
    /// Sleeps up to `d`, returning early with an error if cancelled.
    pub(crate) fn sleep(&self, d: Duration) -> Result<(), LlmError> {
        let end = Instant::now() + d;
        loop {
            if self.is_cancelled() {
                return Err(LlmError::Cancelled);
            }
            let now = Instant::now();
            if now >= end {
                return Ok(());
            }
            std::thread::sleep((end - now).min(Duration::from_millis(25)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_honours_retry_after() {
        let p = RetryPolicy {
            max_retries: 5,
            base: Duration::from_millis(100),
            max: Duration::from_secs(1),
        };
        let e = LlmError::Server {
            status: 500,
            retry_after: None,
            message: String::new(),
        };
        for attempt in 1..6 {
            let d = p.delay(attempt, &e);
            let exp = Duration::from_millis(100 * (1 << (attempt - 1))).min(Duration::from_secs(1));
            assert!(d >= exp / 2 && d <= exp, "attempt {attempt}: {d:?}");
        }
        let e = LlmError::RateLimited {
            retry_after: Some(Duration::from_millis(700)),
            message: String::new(),
        };
        let d = p.delay(1, &e);
        assert!(d >= Duration::from_millis(700) && d <= Duration::from_millis(750));
        let e = LlmError::RateLimited {
            retry_after: Some(Duration::from_secs(600)),
            message: String::new(),
        };
        assert!(p.delay(1, &e) <= Duration::from_millis(1050));
    }

    #[test]
    fn semaphore_bounds() {
        let s = Semaphore::new(2);
        let a = s.acquire();
        let _b = s.acquire();
        drop(a);
        let _c = s.acquire();
        assert_eq!(*s.free.lock().unwrap(), 0);
    }

    #[test]
    fn token_limiter_waits_for_room() {
        let l = TokenLimiter::new(100);
        let c = CancelToken::new();
        l.acquire(80, &c).unwrap();
        // A second reservation does not fit: cancelling ends the wait.
        let c2 = c.clone();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            c2.cancel();
        });
        assert!(matches!(l.acquire(80, &c), Err(LlmError::Cancelled)));
        t.join().unwrap();
    }
}
