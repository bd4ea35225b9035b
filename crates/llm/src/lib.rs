//! vera's LLM layer: providers (any OpenAI-compatible endpoint, the Anthropic Messages
//! API, a scripted provider for tests), and around them a [`Client`] that adds an
//! on-disk cache, record/replay cassettes, retries with backoff, bounded concurrency, a
//! tokens-per-minute limit, answer checks with typed errors, accounting and progress
//! events. Prompt templates and a schema renderer help build the prompts.
//!
//! This crate knows nothing of solvers, specifications or terminals: it moves text to
//! and from models, and that is all.
//!
//! ```
//! use llm::{Client, Request, Scripted, Cache};
//! let client = Client::builder(Scripted::from_texts(["(> temp 38)"]))
//!     .cache(Cache::in_memory().unwrap())
//!     .concurrency(4)
//!     .build();
//! let reqs = vec![Request::new().user("Formalize: fever above 38").temperature(0.0)];
//! let out = client.run_all("formalize", &reqs);
//! assert_eq!(out[0].as_ref().unwrap().text(), "(> temp 38)");
//! // Same request again: answered from the cache, no call.
//! let again = client.run_all("formalize", &reqs);
//! assert_eq!(again[0].as_ref().unwrap().source, llm::Source::Cache);
//! let acc = client.accounting();
//! assert_eq!((acc.total.calls, acc.total.cache_hits), (1, 1));
//! ```

#![warn(missing_docs)]

pub mod accounting;
pub mod anthropic;
pub mod cache;
pub mod cassette;
pub mod client;
pub mod config;
pub mod embed;
pub mod error;
mod http;
pub mod jsonschema;
mod key;
pub mod limit;
pub mod observer;
pub mod openai;
pub mod provider;
pub mod runaway;
pub mod schema;
pub mod scripted;
pub mod secret;
pub mod template;
pub mod types;

pub use accounting::{Accounting, Prices, Stats};
pub use anthropic::Anthropic;
pub use cache::{Cache, CacheMode};
pub use cassette::{Exchange, Recorder, Replayer};
pub use client::{Client, ClientBuilder};
pub use config::{ping, Api, LlmConfig, Overrides, PingError, Pinged, ProviderKind};
pub use embed::{cosine, Embeddings, OpenAiEmbeddings};
pub use error::{LlmError, Result};
pub use http::{parse_retry_after, HttpSettings};
pub use key::request_key;
pub use limit::{CancelToken, RetryPolicy};
pub use observer::{Observer, Progress};
pub use openai::{OpenAi, StructuredMode};
pub use provider::Provider;
pub use schema::{ConstraintInfo, EnumInfo, SchemaInfo, VariableInfo};
pub use scripted::Scripted;
pub use secret::ApiKey;
pub use template::Template;
pub use types::{
    Completion, FinishReason, JsonSchema, Message, Request, Response, Role, Source, Usage,
};
