//! Typed errors. Three families matter to callers:
//!
//! * **transient** ([`LlmError::is_retryable`]): rate limits, server errors, transport
//!   failures and timeouts; the client retries them with backoff before giving up;
//! * **answer problems** ([`LlmError::is_answer_problem`]): the call worked but the answer
//!   is empty, truncated, oversized or not the JSON that was asked for; a repair loop can
//!   feed [`LlmError::feedback`] back to the model;
//! * everything else (configuration, authentication, cache, replay): fix and re-run.
//!
//! No error ever contains an API key: keys are redacted from server text before it is
//! stored in an error.

use std::time::Duration;

/// Everything that can go wrong in the LLM layer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LlmError {
    /// The configuration is invalid (names the setting).
    #[error("llm configuration: {0}")]
    Config(String),
    /// Options asked for together that exclude each other (replaying only from a
    /// cassette and recording into one).
    #[error("{0}")]
    Options(String),
    /// The environment variable that should hold the API key is not set.
    #[error("the API key variable {var} is not set in the environment")]
    MissingApiKey {
        /// The variable's name (never its value).
        var: String,
    },
    /// The connection failed or broke (DNS, refused, reset, TLS).
    #[error("transport error talking to {url}: {message}")]
    Transport {
        /// The endpoint.
        url: String,
        /// What failed.
        message: String,
    },
    /// No answer within the configured timeout.
    #[error("timed out talking to {url}: {message}")]
    Timeout {
        /// The endpoint.
        url: String,
        /// Which timeout fired.
        message: String,
    },
    /// HTTP 429.
    #[error("rate limited (HTTP 429){}: {message}", retry_after_text(*.retry_after))]
    RateLimited {
        /// The server's `Retry-After`, if it sent one.
        retry_after: Option<Duration>,
        /// The server's message (excerpt).
        message: String,
    },
    /// HTTP 5xx (and 408, 409 which are also worth retrying).
    #[error("server error (HTTP {status}): {message}")]
    Server {
        /// The status code.
        status: u16,
        /// The server's `Retry-After`, if it sent one.
        retry_after: Option<Duration>,
        /// The server's message (excerpt).
        message: String,
    },
    /// Any other HTTP error status (400, 401, 403, 404, ...): not retried.
    #[error("HTTP {status}: {message}{}", status_hint(*.status))]
    Http {
        /// The status code.
        status: u16,
        /// The server's message (excerpt).
        message: String,
    },
    /// The server's reply is not the wire format it should be (not JSON, no choices, ...).
    #[error("malformed response from the server: {detail} (body starts: {excerpt:?})")]
    BadResponse {
        /// What is wrong.
        detail: String,
        /// The first bytes of the body.
        excerpt: String,
    },
    /// The answer is empty.
    #[error("the model returned an empty answer")]
    Empty,
    /// Generation hit the token limit (`finish_reason: length`, `stop_reason: max_tokens`).
    #[error("the answer was truncated at the token limit after {output_tokens} tokens")]
    Truncated {
        /// What was generated before the cut.
        partial: String,
        /// Tokens generated.
        output_tokens: u64,
    },
    /// The answer fell into a loop (one piece of text repeated to the end, see
    /// [`crate::runaway`]): stopped early when streamed, or cut at the token limit.
    #[error("the answer fell into a loop: `{unit}` repeated {times} times")]
    Runaway {
        /// What was generated before the stop.
        partial: String,
        /// The repeated piece.
        unit: String,
        /// How many times it repeated.
        times: usize,
    },
    /// The provider's content filter stopped the answer.
    #[error("the provider's content filter stopped the answer")]
    Filtered {
        /// What was generated before the stop.
        partial: String,
    },
    /// The answer (or the response body) is larger than the configured limit.
    #[error("the answer is {bytes} bytes, over the limit of {limit}")]
    Oversized {
        /// Its size.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// The answer is not the JSON the request's schema asks for.
    #[error("the answer does not follow the requested format: {detail}")]
    Malformed {
        /// What is wrong (JSON parse error or the first schema violation).
        detail: String,
        /// The answer text.
        text: String,
    },
    /// The on-disk cache failed.
    #[error("llm cache: {0}")]
    Cache(String),
    /// A cassette could not be read or written.
    #[error("cassette: {0}")]
    Cassette(String),
    /// Replay mode and the cassette has no entry for this request.
    #[error("replay: no recorded answer for request {key}\n{hint}")]
    ReplayMissing {
        /// The request's hash.
        key: String,
        /// The closest recorded prompt and its first differing line.
        hint: String,
    },
    /// A prompt template could not be loaded or parsed.
    #[error("prompt template {template}: {detail}")]
    Template {
        /// The template's name or path.
        template: String,
        /// What is wrong.
        detail: String,
    },
    /// A template variable has no value.
    #[error("prompt template {template}: no value for variable {{{{{name}}}}}")]
    MissingVariable {
        /// The template's name.
        template: String,
        /// The variable.
        name: String,
    },
    /// The run was cancelled before this request was answered.
    #[error("cancelled")]
    Cancelled,
    /// A scripted provider ran out of answers or its closure failed.
    #[error("scripted provider: {0}")]
    Scripted(String),
}

fn retry_after_text(d: Option<Duration>) -> String {
    match d {
        Some(d) => format!(", retry after {:.1}s", d.as_secs_f64()),
        None => String::new(),
    }
}

fn status_hint(status: u16) -> &'static str {
    match status {
        401 | 403 => " (check the API key variable named by api_key_env)",
        404 => " (check base_url and model)",
        _ => "",
    }
}

impl LlmError {
    /// A reply that is not the wire format it should be: what is wrong, and the first
    /// bytes of `body`.
    pub(crate) fn bad_response(detail: impl Into<String>, body: &str) -> LlmError {
        LlmError::BadResponse {
            detail: detail.into(),
            excerpt: crate::http::excerpt(body),
        }
    }
    /// Transient: worth retrying with backoff.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            LlmError::Transport { .. }
                | LlmError::Timeout { .. }
                | LlmError::RateLimited { .. }
                | LlmError::Server { .. }
        )
    }

    /// The server's requested delay before the next attempt, if any.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            LlmError::RateLimited { retry_after, .. } | LlmError::Server { retry_after, .. } => {
                *retry_after
            }
            _ => None,
        }
    }

    /// The call worked, but the answer is unusable: a repair loop may ask again with
    /// [`LlmError::feedback`].
    pub fn is_answer_problem(&self) -> bool {
        matches!(
            self,
            LlmError::Empty
                | LlmError::Truncated { .. }
                | LlmError::Runaway { .. }
                | LlmError::Filtered { .. }
                | LlmError::Oversized { .. }
                | LlmError::Malformed { .. }
        )
    }

    /// For answer problems: one sentence to send back to the model in a repair turn.
    pub fn feedback(&self) -> Option<String> {
        Some(match self {
            LlmError::Empty => "Your answer was empty. Answer again.".into(),
            LlmError::Truncated { .. } => {
                "Your answer was cut off at the length limit. Answer again, more briefly.".into()
            }
            LlmError::Runaway { unit, times, .. } => format!(
                "Your answer fell into a loop: it repeated `{}` {times} times and was stopped. Answer again with one short answer.",
                unit.trim()
            ),
            LlmError::Filtered { .. } => "Your answer was stopped by a content filter.".into(),
            LlmError::Oversized { bytes, limit } => format!(
                "Your answer was {bytes} bytes long; the limit is {limit}. Answer again, more briefly."
            ),
            LlmError::Malformed { detail, .. } => {
                format!("Your answer did not follow the required format: {detail}. Answer again.")
            }
            _ => return None,
        })
    }
}

/// Result with [`LlmError`].
pub type Result<T, E = LlmError> = std::result::Result<T, E>;
