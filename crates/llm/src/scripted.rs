//! A provider that answers from a script, for tests of the loops built on top (repair on
//! error, convergence, budget exhaustion) and of the client itself (retries, cache,
//! replay), without any network.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use crate::error::{LlmError, Result};
use crate::provider::Provider;
use crate::types::{Request, Response};

type AnswerFn = dyn Fn(&Request, usize) -> Result<Response> + Send + Sync;

/// Answers from a list (in call order) or from a closure.
pub struct Scripted {
    id: String,
    model: String,
    list: Option<Mutex<VecDeque<Result<Response>>>>,
    func: Option<Box<AnswerFn>>,
    latency: Duration,
    grammar: bool,
    calls: AtomicUsize,
    seen: Mutex<Vec<Request>>,
}

impl Scripted {
    fn make(list: Option<VecDeque<Result<Response>>>, func: Option<Box<AnswerFn>>) -> Scripted {
        Scripted {
            id: "scripted".into(),
            model: "script".into(),
            list: list.map(Mutex::new),
            func,
            latency: Duration::ZERO,
            grammar: false,
            calls: AtomicUsize::new(0),
            seen: Mutex::new(Vec::new()),
        }
    }

    /// Answers (or errors) in call order; once they run out, every call is an
    /// [`LlmError::Scripted`] error.
    pub fn from_list(answers: impl IntoIterator<Item = Result<Response>>) -> Scripted {
        Scripted::make(Some(answers.into_iter().collect()), None)
    }

    /// Plain text answers in call order.
    pub fn from_texts<S: Into<String>>(texts: impl IntoIterator<Item = S>) -> Scripted {
        Scripted::from_list(texts.into_iter().map(|t| Ok(Response::text(t))))
    }

    /// Answers computed by `f(request, call_number)` (call numbers start at 0).
    pub fn from_fn(
        f: impl Fn(&Request, usize) -> Result<Response> + Send + Sync + 'static,
    ) -> Scripted {
        Scripted::make(None, Some(Box::new(f)))
    }

    /// Sets the provider id (part of cache keys).
    pub fn with_id(mut self, id: impl Into<String>) -> Scripted {
        self.id = id.into();
        self
    }

    /// Sets the model name (part of cache keys).
    pub fn with_model(mut self, model: impl Into<String>) -> Scripted {
        self.model = model.into();
        self
    }

    /// Sleeps this long in every call (to test concurrency).
    pub fn with_latency(mut self, latency: Duration) -> Scripted {
        self.latency = latency;
        self
    }

    /// Plays a provider that accepts GBNF grammars (so requests keep theirs).
    pub fn with_grammar(mut self, on: bool) -> Scripted {
        self.grammar = on;
        self
    }

    /// Calls made so far.
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }

    /// The requests received, in call order.
    pub fn requests(&self) -> Vec<Request> {
        self.seen.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

impl Provider for Scripted {
    fn id(&self) -> &str {
        &self.id
    }
    fn model(&self) -> &str {
        &self.model
    }
    fn accepts_grammar(&self) -> bool {
        self.grammar
    }
    fn complete(&self, request: &Request) -> Result<Response> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst);
        self.seen
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(request.clone());
        if !self.latency.is_zero() {
            std::thread::sleep(self.latency);
        }
        if let Some(f) = &self.func {
            return f(request, n);
        }
        let list = self.list.as_ref().expect("a list or a closure");
        list.lock()
            .unwrap_or_else(|p| p.into_inner())
            .pop_front()
            .unwrap_or_else(|| {
                Err(LlmError::Scripted(format!(
                    "no answer left for call {}",
                    n + 1
                )))
            })
    }
}
