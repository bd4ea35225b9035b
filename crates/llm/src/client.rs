//! The client every pipeline uses: a provider plus cache, record/replay, retries,
//! bounded concurrency, a tokens-per-minute limit, answer checks, accounting and
//! progress events.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::accounting::{Accounting, Prices, Stats};
use crate::cache::{Cache, CacheMode};
use crate::cassette::{Exchange, Recorder, Replayer};
use crate::error::{LlmError, Result};
use crate::jsonschema;
use crate::key::request_key;
use crate::limit::{CancelToken, RetryPolicy, Semaphore, TokenLimiter};
use crate::observer::{Observer, Progress, Silent};
use crate::provider::Provider;
use crate::types::{Completion, FinishReason, Request, Response, Source};

/// Builds a [`Client`].
pub struct ClientBuilder {
    provider: Arc<dyn Provider>,
    cache: Option<Cache>,
    cache_mode: CacheMode,
    recorder: Option<Recorder>,
    replayer: Option<Replayer>,
    replay_then_live: bool,
    retry: RetryPolicy,
    concurrency: usize,
    tokens_per_minute: Option<u64>,
    prices: Prices,
    max_answer_bytes: usize,
    observer: Arc<dyn Observer>,
    cancel: CancelToken,
}

impl ClientBuilder {
    /// Uses `cache` (in [`CacheMode::Use`] unless [`ClientBuilder::cache_mode`] says
    /// otherwise).
    pub fn cache(mut self, cache: Cache) -> Self {
        self.cache = Some(cache);
        self
    }
    /// Sets how the cache is used.
    pub fn cache_mode(mut self, mode: CacheMode) -> Self {
        self.cache_mode = mode;
        self
    }
    /// Appends every exchange to a cassette.
    pub fn record(mut self, recorder: Recorder) -> Self {
        self.recorder = Some(recorder);
        self
    }
    /// Answers only from a cassette; the provider is never called.
    pub fn replay(mut self, replayer: Replayer) -> Self {
        self.replayer = Some(replayer);
        self
    }
    /// With [`ClientBuilder::replay`]: a request the cassette does not hold goes on to
    /// the cache and the provider instead of failing (for re-recording a cassette after
    /// a change that alters some requests: together with a recorder, the new cassette
    /// keeps the unchanged answers and asks the model only for the new requests).
    pub fn replay_then_live(mut self, on: bool) -> Self {
        self.replay_then_live = on;
        self
    }
    /// Sets the retry policy.
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }
    /// Bounds requests in flight (at least 1).
    pub fn concurrency(mut self, n: usize) -> Self {
        self.concurrency = n.max(1);
        self
    }
    /// Limits tokens per minute (prompt estimate plus `max_tokens`, then real usage).
    pub fn tokens_per_minute(mut self, n: Option<u64>) -> Self {
        self.tokens_per_minute = n.filter(|n| *n > 0);
        self
    }
    /// Sets prices for the cost estimate.
    pub fn prices(mut self, prices: Prices) -> Self {
        self.prices = prices;
        self
    }
    /// Largest accepted answer, in bytes.
    pub fn max_answer_bytes(mut self, n: usize) -> Self {
        self.max_answer_bytes = n;
        self
    }
    /// Sets the progress observer.
    pub fn observer(mut self, observer: Arc<dyn Observer>) -> Self {
        self.observer = observer;
        self
    }
    /// Uses an existing cancellation token (e.g. one shared with a Ctrl-C handler).
    pub fn cancel_token(mut self, token: CancelToken) -> Self {
        self.cancel = token;
        self
    }
    /// Builds the client.
    pub fn build(self) -> Client {
        Client {
            provider: self.provider,
            cache: self.cache,
            cache_mode: self.cache_mode,
            recorder: self.recorder,
            replayer: self.replayer,
            replay_then_live: self.replay_then_live,
            retry: self.retry,
            concurrency: self.concurrency,
            in_flight: Semaphore::new(self.concurrency),
            tokens: self.tokens_per_minute.map(TokenLimiter::new),
            prices: self.prices,
            max_answer_bytes: self.max_answer_bytes,
            observer: self.observer,
            cancel: self.cancel,
            accounting: Mutex::new(Accounting::default()),
        }
    }
}

/// A provider with caching, replay, retries, limits and accounting. Shared by reference
/// across threads (`&Client` is `Send + Sync`).
pub struct Client {
    provider: Arc<dyn Provider>,
    cache: Option<Cache>,
    cache_mode: CacheMode,
    recorder: Option<Recorder>,
    replayer: Option<Replayer>,
    replay_then_live: bool,
    retry: RetryPolicy,
    concurrency: usize,
    in_flight: Semaphore,
    tokens: Option<TokenLimiter>,
    prices: Prices,
    max_answer_bytes: usize,
    observer: Arc<dyn Observer>,
    cancel: CancelToken,
    accounting: Mutex<Accounting>,
}

/// Default largest answer: 256 KiB.
pub const DEFAULT_MAX_ANSWER_BYTES: usize = 256 * 1024;

impl Client {
    /// Starts building a client around `provider`.
    pub fn builder(provider: impl Provider + 'static) -> ClientBuilder {
        Client::builder_arc(Arc::new(provider))
    }

    /// Starts building a client around a shared provider.
    pub fn builder_arc(provider: Arc<dyn Provider>) -> ClientBuilder {
        ClientBuilder {
            provider,
            cache: None,
            cache_mode: CacheMode::Use,
            recorder: None,
            replayer: None,
            replay_then_live: false,
            retry: RetryPolicy::default(),
            concurrency: 4,
            tokens_per_minute: None,
            prices: Prices::default(),
            max_answer_bytes: DEFAULT_MAX_ANSWER_BYTES,
            observer: Arc::new(Silent),
            cancel: CancelToken::new(),
        }
    }

    /// The provider.
    pub fn provider(&self) -> &dyn Provider {
        &*self.provider
    }

    /// The cache, if any.
    pub fn cache(&self) -> Option<&Cache> {
        self.cache.as_ref()
    }

    /// The concurrency bound.
    pub fn concurrency(&self) -> usize {
        self.concurrency
    }

    /// The cancellation token: cancel it to stop a run cleanly.
    pub fn cancel_token(&self) -> CancelToken {
        self.cancel.clone()
    }

    /// The counters so far.
    pub fn accounting(&self) -> Accounting {
        self.accounting
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Takes the counters so far and starts again from zero.
    pub fn take_accounting(&self) -> Accounting {
        std::mem::take(&mut *self.accounting.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// The key under which `request` is cached and recorded (after a grammar the
    /// provider does not accept is dropped).
    pub fn key(&self, request: &Request) -> String {
        request_key(
            self.provider.id(),
            self.provider.model(),
            &self.effective(request),
        )
    }

    /// The model's context window in tokens, when the configuration or the server says.
    pub fn context_window(&self) -> Option<u32> {
        self.provider.context_window()
    }

    /// Whether the provider accepts GBNF grammars (`grammar = true` in the
    /// configuration, for llama.cpp's server). Callers may attach a grammar either
    /// way; without support it is dropped before the key is computed.
    pub fn accepts_grammar(&self) -> bool {
        self.provider.accepts_grammar()
    }

    /// The request as it is keyed and sent: without its grammar when the provider does
    /// not accept grammars, so such a request is exactly the one without a grammar.
    fn effective<'r>(&self, request: &'r Request) -> std::borrow::Cow<'r, Request> {
        if request.grammar.is_some() && !self.provider.accepts_grammar() {
            let mut r = request.clone();
            r.grammar = None;
            std::borrow::Cow::Owned(r)
        } else {
            std::borrow::Cow::Borrowed(request)
        }
    }

    /// Answers one request, counted under `stage`.
    pub fn complete(&self, stage: &str, request: &Request) -> Result<Completion> {
        let start = Instant::now();
        let mut delta = Stats::default();
        let r = self.answer(stage, request, &mut delta);
        delta.wall_secs = start.elapsed().as_secs_f64();
        self.book(stage, &delta);
        r
    }

    /// Answers a batch with at most [`Client::concurrency`] requests in flight; results
    /// come back in the order of `requests`. Cancelling stops requests that have not
    /// started; the others finish.
    pub fn run_all(&self, stage: &str, requests: &[Request]) -> Vec<Result<Completion>> {
        let n = requests.len();
        let start = Instant::now();
        self.observer.batch_started(stage, n);
        let next = AtomicUsize::new(0);
        let done = AtomicUsize::new(0);
        let cached = AtomicUsize::new(0);
        let batch = Mutex::new(Stats::default());
        let slots: Vec<Mutex<Option<Result<Completion>>>> =
            (0..n).map(|_| Mutex::new(None)).collect();
        let workers = self.concurrency.min(n);
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= n {
                        break;
                    }
                    let mut delta = Stats::default();
                    let r = self.answer(stage, &requests[i], &mut delta);
                    self.book(stage, &delta);
                    let source = match &r {
                        Ok(c) => Some(c.source),
                        Err(_) => None,
                    };
                    if matches!(source, Some(Source::Cache | Source::Replay)) {
                        cached.fetch_add(1, Ordering::SeqCst);
                    }
                    let ok = r.is_ok();
                    *slots[i].lock().unwrap_or_else(|p| p.into_inner()) = Some(r);
                    let d = done.fetch_add(1, Ordering::SeqCst) + 1;
                    batch
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .merge(&delta);
                    self.observer.request_finished(&Progress {
                        stage,
                        index: i,
                        done: d,
                        total: n,
                        cached: cached.load(Ordering::SeqCst),
                        source,
                        ok,
                    });
                });
            }
        });
        let wall = start.elapsed().as_secs_f64();
        let wall_delta = Stats {
            wall_secs: wall,
            ..Stats::default()
        };
        self.book(stage, &wall_delta);
        let mut batch = batch.into_inner().unwrap_or_else(|p| p.into_inner());
        batch.wall_secs = wall;
        self.observer.batch_finished(stage, &batch);
        slots
            .into_iter()
            .map(|m| {
                m.into_inner()
                    .unwrap_or_else(|p| p.into_inner())
                    .unwrap_or(Err(LlmError::Cancelled))
            })
            .collect()
    }

    /// Sends a tiny request and returns the answer, to check a configuration. The error
    /// says what is wrong (missing key, unreachable server, unknown model, ...).
    pub fn ping(&self) -> Result<Completion> {
        let req = Request::new()
            .user("Reply with the single word OK.")
            .temperature(0.0)
            .max_tokens(8);
        self.complete("ping", &req)
    }

    fn book(&self, stage: &str, delta: &Stats) {
        self.accounting
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .add(stage, delta);
    }

    /// One request: replay, cache, or the provider with retries; then the answer checks.
    fn answer(&self, stage: &str, request: &Request, delta: &mut Stats) -> Result<Completion> {
        delta.requests = 1;
        let r = self.answer_inner(stage, request, delta);
        if let Err(e) = &r {
            delta.errors = 1;
            if e.is_answer_problem() {
                delta.answer_errors = 1;
            }
        }
        r
    }

    fn answer_inner(
        &self,
        stage: &str,
        request: &Request,
        delta: &mut Stats,
    ) -> Result<Completion> {
        if self.cancel.is_cancelled() {
            return Err(LlmError::Cancelled);
        }
        let request = &*self.effective(request);
        let key = request_key(self.provider.id(), self.provider.model(), request);
        let replayed = match &self.replayer {
            Some(r) => match r.get(self.provider.id(), self.provider.model(), &key, request) {
                Ok(resp) => Some(resp),
                Err(LlmError::ReplayMissing { .. }) if self.replay_then_live => None,
                Err(e) => return Err(e),
            },
            None => None,
        };
        let (response, source, retries) = if let Some(resp) = replayed {
            delta.replayed = 1;
            (resp, Source::Replay, 0)
        } else if let Some(hit) = self.cached(&key)? {
            delta.cache_hits = 1;
            (hit, Source::Cache, 0)
        } else {
            let (resp, retries) = self.call_with_retries(stage, request, delta)?;
            if let Some(cache) = self.cache.as_ref().filter(|_| self.cache_mode.writes()) {
                cache.put(
                    &key,
                    self.provider.id(),
                    self.provider.model(),
                    request,
                    &resp,
                )?;
            }
            (resp, Source::Provider, retries)
        };
        if let Some(rec) = &self.recorder {
            rec.record(&Exchange {
                key: key.clone(),
                provider: self.provider.id().to_string(),
                model: self.provider.model().to_string(),
                request: request.clone(),
                response: response.clone(),
            })?;
        }
        let json = self.check(request, &response)?;
        Ok(Completion {
            response,
            json,
            source,
            key,
            retries,
        })
    }

    fn cached(&self, key: &str) -> Result<Option<Response>> {
        match &self.cache {
            Some(c) if self.cache_mode.reads() => c.get(key),
            _ => Ok(None),
        }
    }

    fn call_with_retries(
        &self,
        stage: &str,
        request: &Request,
        delta: &mut Stats,
    ) -> Result<(Response, u32)> {
        delta.calls = 1;
        let mut attempt = 0u32;
        loop {
            if self.cancel.is_cancelled() {
                return Err(LlmError::Cancelled);
            }
            let estimate =
                request.estimated_input_tokens() + u64::from(request.max_tokens.unwrap_or(256));
            let result = {
                let _permit = self.in_flight.acquire();
                if let Some(t) = &self.tokens {
                    t.acquire(estimate, &self.cancel)?;
                }
                let t0 = Instant::now();
                let r = self.provider.complete(request);
                delta.call_secs += t0.elapsed().as_secs_f64();
                r
            };
            match result {
                Ok(resp) => {
                    let used = resp.usage.input_tokens + resp.usage.output_tokens;
                    if let Some(t) = &self.tokens {
                        t.book(used.saturating_sub(estimate));
                    }
                    delta.input_tokens += resp.usage.input_tokens;
                    delta.output_tokens += resp.usage.output_tokens;
                    delta.cost_usd += self
                        .prices
                        .cost(resp.usage.input_tokens, resp.usage.output_tokens);
                    return Ok((resp, attempt));
                }
                Err(e) if e.is_retryable() && attempt < self.retry.max_retries => {
                    attempt += 1;
                    delta.retries += 1;
                    let delay = self.retry.delay(attempt, &e);
                    self.observer.retrying(stage, attempt, delay, &e);
                    self.cancel.sleep(delay)?;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// The answer checks, in order: size, truncation, filter, emptiness, schema.
    fn check(&self, request: &Request, r: &Response) -> Result<Option<serde_json::Value>> {
        if r.text.len() > self.max_answer_bytes {
            return Err(LlmError::Oversized {
                bytes: r.text.len(),
                limit: self.max_answer_bytes,
            });
        }
        let looped = matches!(r.finish, FinishReason::Length | FinishReason::Repetition)
            .then(|| crate::runaway::repeated_tail(&r.text))
            .flatten();
        if let Some(rep) = looped {
            return Err(LlmError::Runaway {
                partial: r.text.clone(),
                unit: rep.unit,
                times: rep.times,
            });
        }
        match r.finish {
            FinishReason::Length | FinishReason::Repetition => {
                return Err(LlmError::Truncated {
                    partial: r.text.clone(),
                    output_tokens: r.usage.output_tokens,
                })
            }
            FinishReason::ContentFilter => {
                return Err(LlmError::Filtered {
                    partial: r.text.clone(),
                })
            }
            _ => {}
        }
        if r.text.trim().is_empty() {
            return Err(LlmError::Empty);
        }
        let Some(schema) = &request.schema else {
            return Ok(None);
        };
        let v = jsonschema::parse_answer(&r.text).map_err(|detail| LlmError::Malformed {
            detail,
            text: r.text.clone(),
        })?;
        jsonschema::validate(&schema.schema, &v).map_err(|detail| LlmError::Malformed {
            detail,
            text: r.text.clone(),
        })?;
        Ok(Some(v))
    }
}
