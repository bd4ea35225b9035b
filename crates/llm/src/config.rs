//! Configuration: the `[llm]` table of `vera.toml`, environment overrides, presets, and
//! building a ready [`Client`] from it.
//!
//! ```toml
//! [llm]
//! provider = "openai"                 # openai | anthropic | local
//! model = "gpt-4o-mini"
//! # base_url = "https://api.openai.com/v1"   (default per provider)
//! # api_key_env = "OPENAI_API_KEY"           (default per provider; the key itself
//! #                                           is only ever read from the environment)
//! concurrency = 8
//! price_input_per_mtok = 0.15
//! price_output_per_mtok = 0.60
//! ```
//!
//! Every setting can be overridden from the environment (see [`ENV_VARS`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::accounting::Prices;
use crate::anthropic::Anthropic;
use crate::cache::{Cache, CacheMode};
use crate::cassette::{Recorder, Replayer};
use crate::client::{Client, DEFAULT_MAX_ANSWER_BYTES};
use crate::error::{LlmError, Result};
use crate::http::HttpSettings;
use crate::limit::RetryPolicy;
use crate::openai::{OpenAi, StructuredMode};
use crate::provider::Provider;
use crate::secret::ApiKey;
use crate::types::{Request, Response};

/// Which service to talk to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProviderKind {
    /// An OpenAI-compatible chat-completions endpoint.
    Openai,
    /// The Anthropic Messages API.
    Anthropic,
    /// The local llama.cpp server started by `scripts/local-llm` (no key, 127.0.0.1).
    #[default]
    Local,
}

impl ProviderKind {
    fn parse(s: &str) -> Option<ProviderKind> {
        match s.trim().to_ascii_lowercase().as_str() {
            "openai" | "openai-compatible" => Some(ProviderKind::Openai),
            "anthropic" => Some(ProviderKind::Anthropic),
            "local" => Some(ProviderKind::Local),
            _ => None,
        }
    }
    /// The provider id used in cache keys.
    pub fn id(self) -> &'static str {
        match self {
            ProviderKind::Openai => "openai",
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::Local => "local",
        }
    }
}

/// The wire format spoken (the `local` server speaks both).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Api {
    /// OpenAI chat completions.
    Openai,
    /// Anthropic messages.
    Anthropic,
}

/// The local preset's base URL (see `scripts/local-llm`).
pub const LOCAL_BASE_URL: &str = "http://127.0.0.1:8080/v1";
/// The local preset's model name (llama-server answers whatever name it is sent).
pub const LOCAL_MODEL: &str = "qwen2.5-coder-1.5b-instruct-q4_k_m";

/// The environment variables read by [`LlmConfig::apply_env`].
pub const ENV_VARS: &[(&str, &str)] = &[
    ("VERA_LLM_PROVIDER", "provider: openai | anthropic | local"),
    ("VERA_LLM_API", "wire format: openai | anthropic"),
    ("VERA_LLM_BASE_URL", "base_url"),
    ("VERA_LLM_MODEL", "model"),
    (
        "VERA_LLM_API_KEY_ENV",
        "name of the variable holding the key",
    ),
    ("VERA_LLM_CONNECT_TIMEOUT", "connect_timeout_secs"),
    ("VERA_LLM_READ_TIMEOUT", "read_timeout_secs"),
    ("VERA_LLM_MAX_RETRIES", "max_retries"),
    ("VERA_LLM_CONCURRENCY", "concurrency"),
    (
        "VERA_LLM_CONTEXT",
        "context (tokens of the model's context window)",
    ),
    ("VERA_LLM_TPM", "tokens_per_minute (0 = no limit)"),
    ("VERA_LLM_PRICE_INPUT", "price_input_per_mtok"),
    ("VERA_LLM_PRICE_OUTPUT", "price_output_per_mtok"),
    ("VERA_LLM_STRUCTURED", "structured: native | prompt"),
    (
        "VERA_LLM_GRAMMAR",
        "grammar: true | false (send GBNF grammars; llama.cpp's server only)",
    ),
    (
        "VERA_LLM_STREAM",
        "stream: true | false (streamed answers, stopped at a loop)",
    ),
    ("VERA_LLM_CACHE", "cache (path of the SQLite file)"),
    ("VERA_LLM_CACHE_MODE", "cache_mode: use | refresh | off"),
    ("VERA_LLM_RECORD", "record (cassette to append to)"),
    ("VERA_LLM_REPLAY", "replay (cassette to answer from)"),
    ("VERA_LLM_EMBEDDING_MODEL", "embedding_model"),
    ("VERA_LLM_EMBEDDING_URL", "embedding_base_url"),
];

/// A Boolean environment setting: true/1/on/yes or false/0/off/no, any case.
fn env_bool(name: &str, v: &str) -> Result<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "on" | "yes" => Ok(true),
        "false" | "0" | "off" | "no" => Ok(false),
        _ => Err(LlmError::Config(format!(
            "{name}={v:?}: expected true or false"
        ))),
    }
}

fn d_true() -> bool {
    true
}
fn d_connect() -> f64 {
    10.0
}
fn d_read() -> f64 {
    300.0
}
fn d_retries() -> u32 {
    4
}
fn d_base_ms() -> u64 {
    500
}
fn d_max_ms() -> u64 {
    60_000
}
fn d_max_answer() -> usize {
    DEFAULT_MAX_ANSWER_BYTES
}
fn d_max_response() -> usize {
    8 << 20
}
fn d_max_tokens() -> u32 {
    4096
}
fn d_cache() -> Option<PathBuf> {
    Some(PathBuf::from(".vera-cache/llm.sqlite"))
}

/// What a command line changes in the configuration it loads
/// ([`LlmConfig::apply_overrides`]).
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// Record every exchange in this cassette.
    pub record: Option<PathBuf>,
    /// Add to an existing cassette instead of refusing it.
    pub record_append: bool,
    /// Answer from this cassette.
    pub replay: Option<PathBuf>,
    /// With `replay`: ask the model for the requests the cassette does not hold.
    pub replay_then_live: bool,
    /// Do not read or write the cache.
    pub no_cache: bool,
    /// Ask again and overwrite cached answers.
    pub refresh: bool,
    /// Constrain formula answers with a grammar.
    pub grammar: bool,
    /// Requests in flight at once (0 or none: the configuration's).
    pub concurrency: Option<usize>,
}

/// The `[llm]` settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlmConfig {
    /// Which service.
    #[serde(default)]
    pub provider: ProviderKind,
    /// Wire format; default: the provider's own (`openai` for `local`).
    #[serde(default)]
    pub api: Option<Api>,
    /// Base URL; default per provider.
    #[serde(default)]
    pub base_url: Option<String>,
    /// Model; required for `openai` and `anthropic`.
    #[serde(default)]
    pub model: Option<String>,
    /// The environment variable that holds the API key; default `OPENAI_API_KEY` or
    /// `ANTHROPIC_API_KEY`, none for `local`. Set to `""` to send no key.
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// Connect timeout in seconds.
    #[serde(default = "d_connect")]
    pub connect_timeout_secs: f64,
    /// Read timeout (waiting for and reading the answer) in seconds.
    #[serde(default = "d_read")]
    pub read_timeout_secs: f64,
    /// Retries after transient failures.
    #[serde(default = "d_retries")]
    pub max_retries: u32,
    /// First backoff delay in milliseconds.
    #[serde(default = "d_base_ms")]
    pub retry_base_ms: u64,
    /// Largest backoff delay (and largest `Retry-After` honoured) in milliseconds.
    #[serde(default = "d_max_ms")]
    pub retry_max_ms: u64,
    /// Requests in flight; default 4 (1 for `local`, whose server has one slot).
    #[serde(default)]
    pub concurrency: Option<usize>,
    /// The model's context window in tokens; by default asked of a llama.cpp server
    /// (`grammar = true` or the `local` preset), unknown for hosted endpoints.
    #[serde(default)]
    pub context: Option<u32>,
    /// Tokens-per-minute limit; none by default.
    #[serde(default)]
    pub tokens_per_minute: Option<u64>,
    /// Dollars per million prompt tokens.
    #[serde(default)]
    pub price_input_per_mtok: f64,
    /// Dollars per million generated tokens.
    #[serde(default)]
    pub price_output_per_mtok: f64,
    /// Largest answer accepted, in bytes.
    #[serde(default = "d_max_answer")]
    pub max_answer_bytes: usize,
    /// Largest HTTP response body accepted, in bytes.
    #[serde(default = "d_max_response")]
    pub max_response_bytes: usize,
    /// `max_tokens` sent to Anthropic when a request has none.
    #[serde(default = "d_max_tokens")]
    pub default_max_tokens: u32,
    /// How JSON schemas are conveyed.
    #[serde(default)]
    pub structured: StructuredMode,
    /// Send GBNF grammars (a request's `grammar`, e.g. the formula grammar of
    /// formalization) as the top-level `grammar` field of chat completions. Only
    /// llama.cpp's server accepts it, so it is off by default and refused with the
    /// Anthropic API and with the hosted OpenAI endpoint.
    #[serde(default)]
    pub grammar: bool,
    /// Ask OpenAI-compatible endpoints for a streamed answer, so that an answer that
    /// falls into a loop is stopped at once instead of running to the token limit
    /// (default true; a server that does not stream is read as before).
    #[serde(default = "d_true")]
    pub stream: bool,
    /// The cache file; `.vera-cache/llm.sqlite` by default.
    #[serde(default = "d_cache")]
    pub cache: Option<PathBuf>,
    /// How the cache is used.
    #[serde(default)]
    pub cache_mode: CacheMode,
    /// Cassette to record every exchange in (a new file, unless `record_append`).
    #[serde(default)]
    pub record: Option<PathBuf>,
    /// Add to an existing `record` cassette instead of refusing it (the command line's
    /// `--force`; never set from a file).
    #[serde(skip)]
    pub record_append: bool,
    /// Cassette to answer from (the provider is never called).
    #[serde(default)]
    pub replay: Option<PathBuf>,
    /// With `replay`: ask the provider for what the cassette lacks instead of failing
    /// (the command line's `--replay-then-live`, for re-recording; never set from a file).
    #[serde(skip)]
    pub replay_then_live: bool,
    /// Embeddings model for text similarity (round trip); none: not computed.
    #[serde(default)]
    pub embedding_model: Option<String>,
    /// Base URL of the OpenAI-compatible embeddings endpoint; default `base_url`.
    #[serde(default)]
    pub embedding_base_url: Option<String>,
}

impl Default for LlmConfig {
    fn default() -> Self {
        toml::from_str("").expect("defaults parse")
    }
}

impl LlmConfig {
    /// The `local` preset: the llama.cpp server of `scripts/local-llm`.
    pub fn local() -> LlmConfig {
        LlmConfig {
            provider: ProviderKind::Local,
            ..LlmConfig::default()
        }
    }

    /// Reads the `[llm]` table of a whole `vera.toml` text (defaults if absent).
    pub fn from_toml(text: &str) -> Result<LlmConfig> {
        let table: toml::Table =
            toml::from_str(text).map_err(|e| LlmError::Config(format!("vera.toml: {e}")))?;
        match table.get("llm") {
            None => Ok(LlmConfig::default()),
            Some(v) => v
                .clone()
                .try_into()
                .map_err(|e: toml::de::Error| LlmError::Config(format!("[llm]: {}", e.message()))),
        }
    }

    /// Reads `path` if it exists (defaults otherwise), then applies the environment.
    pub fn load(path: Option<&Path>) -> Result<LlmConfig> {
        let mut cfg = match path {
            Some(p) if p.exists() => {
                safefile::register_input(p);
                let text = std::fs::read_to_string(p)
                    .map_err(|e| LlmError::Config(format!("cannot read {}: {e}", p.display())))?;
                LlmConfig::from_toml(&text)?
            }
            _ => LlmConfig::default(),
        };
        cfg.apply_env(|k| std::env::var(k).ok())?;
        Ok(cfg)
    }

    /// Reads `path` as [`LlmConfig::load`] does, then applies a command line's
    /// `overrides`.
    pub fn load_with(path: &Path, overrides: &Overrides) -> Result<LlmConfig> {
        let mut cfg = LlmConfig::load(Some(path))?;
        cfg.apply_overrides(overrides)?;
        Ok(cfg)
    }

    /// Applies a command line's `overrides`: a cassette to record into (added to with
    /// `record_append`), one to replay from (answers only from it, so nothing is
    /// recorded, unless `replay_then_live`; replaying only while asking to record is
    /// refused), the cache mode, the grammar and the concurrency (0 leaves it).
    pub fn apply_overrides(&mut self, o: &Overrides) -> Result<()> {
        if let Some(r) = &o.record {
            self.record = Some(r.clone());
        }
        self.record_append = o.record_append;
        if o.replay.is_some() && o.record.is_some() && !o.replay_then_live {
            return Err(LlmError::Options(
                "--replay answers only from the cassette: nothing new to --record (add --replay-then-live to re-record)".into(),
            ));
        }
        if let Some(r) = &o.replay {
            self.replay = Some(r.clone());
            if !o.replay_then_live {
                self.record = None;
            }
            self.replay_then_live = o.replay_then_live;
        }
        if o.no_cache {
            self.cache_mode = CacheMode::Off;
        } else if o.refresh {
            self.cache_mode = CacheMode::Refresh;
        }
        if o.grammar {
            self.grammar = true;
        }
        if let Some(n) = o.concurrency.filter(|n| *n > 0) {
            self.concurrency = Some(n);
        }
        Ok(())
    }

    /// The configuration a ping uses: it asks the endpoint itself, never the cache or
    /// a cassette.
    pub fn for_ping(mut self) -> LlmConfig {
        self.cache_mode = CacheMode::Off;
        self.replay = None;
        self.record = None;
        self
    }

    /// Applies overrides from `get` (the process environment, or a map in tests).
    pub fn apply_env(&mut self, get: impl Fn(&str) -> Option<String>) -> Result<()> {
        fn num<T: std::str::FromStr>(var: &str, v: &str) -> Result<T> {
            v.trim()
                .parse()
                .map_err(|_| LlmError::Config(format!("{var}={v:?} is not a number")))
        }
        let get = |k: &str| get(k).filter(|v| !v.is_empty());
        if let Some(v) = get("VERA_LLM_PROVIDER") {
            self.provider = ProviderKind::parse(&v).ok_or_else(|| {
                LlmError::Config(format!(
                    "VERA_LLM_PROVIDER={v:?}: expected openai, anthropic or local"
                ))
            })?;
        }
        if let Some(v) = get("VERA_LLM_API") {
            self.api = Some(match v.trim() {
                "openai" => Api::Openai,
                "anthropic" => Api::Anthropic,
                _ => {
                    return Err(LlmError::Config(format!(
                        "VERA_LLM_API={v:?}: expected openai or anthropic"
                    )))
                }
            });
        }
        if let Some(v) = get("VERA_LLM_BASE_URL") {
            self.base_url = Some(v);
        }
        if let Some(v) = get("VERA_LLM_MODEL") {
            self.model = Some(v);
        }
        if let Some(v) = get("VERA_LLM_API_KEY_ENV") {
            self.api_key_env = Some(v);
        }
        if let Some(v) = get("VERA_LLM_CONNECT_TIMEOUT") {
            self.connect_timeout_secs = num("VERA_LLM_CONNECT_TIMEOUT", &v)?;
        }
        if let Some(v) = get("VERA_LLM_READ_TIMEOUT") {
            self.read_timeout_secs = num("VERA_LLM_READ_TIMEOUT", &v)?;
        }
        if let Some(v) = get("VERA_LLM_MAX_RETRIES") {
            self.max_retries = num("VERA_LLM_MAX_RETRIES", &v)?;
        }
        if let Some(v) = get("VERA_LLM_CONCURRENCY") {
            self.concurrency = Some(num("VERA_LLM_CONCURRENCY", &v)?);
        }
        if let Some(v) = get("VERA_LLM_CONTEXT") {
            self.context = Some(num("VERA_LLM_CONTEXT", &v)?);
        }
        if let Some(v) = get("VERA_LLM_TPM") {
            let n: u64 = num("VERA_LLM_TPM", &v)?;
            self.tokens_per_minute = (n > 0).then_some(n);
        }
        if let Some(v) = get("VERA_LLM_PRICE_INPUT") {
            self.price_input_per_mtok = num("VERA_LLM_PRICE_INPUT", &v)?;
        }
        if let Some(v) = get("VERA_LLM_PRICE_OUTPUT") {
            self.price_output_per_mtok = num("VERA_LLM_PRICE_OUTPUT", &v)?;
        }
        if let Some(v) = get("VERA_LLM_STRUCTURED") {
            self.structured = match v.trim() {
                "native" => StructuredMode::Native,
                "prompt" => StructuredMode::Prompt,
                _ => {
                    return Err(LlmError::Config(format!(
                        "VERA_LLM_STRUCTURED={v:?}: expected native or prompt"
                    )))
                }
            };
        }
        if let Some(v) = get("VERA_LLM_GRAMMAR") {
            self.grammar = env_bool("VERA_LLM_GRAMMAR", &v)?;
        }
        if let Some(v) = get("VERA_LLM_STREAM") {
            self.stream = env_bool("VERA_LLM_STREAM", &v)?;
        }
        if let Some(v) = get("VERA_LLM_CACHE") {
            self.cache = Some(PathBuf::from(v));
        }
        if let Some(v) = get("VERA_LLM_CACHE_MODE") {
            self.cache_mode = CacheMode::parse(&v).ok_or_else(|| {
                LlmError::Config(format!(
                    "VERA_LLM_CACHE_MODE={v:?}: expected use, refresh or off"
                ))
            })?;
        }
        if let Some(v) = get("VERA_LLM_RECORD") {
            self.record = Some(PathBuf::from(v));
        }
        if let Some(v) = get("VERA_LLM_REPLAY") {
            self.replay = Some(PathBuf::from(v));
        }
        if let Some(v) = get("VERA_LLM_EMBEDDING_MODEL") {
            self.embedding_model = Some(v);
        }
        if let Some(v) = get("VERA_LLM_EMBEDDING_URL") {
            self.embedding_base_url = Some(v);
        }
        Ok(())
    }

    /// The wire format in force.
    pub fn api(&self) -> Api {
        self.api.unwrap_or(match self.provider {
            ProviderKind::Anthropic => Api::Anthropic,
            ProviderKind::Openai | ProviderKind::Local => Api::Openai,
        })
    }

    /// The base URL in force.
    pub fn base_url(&self) -> String {
        match &self.base_url {
            Some(u) => u.trim_end_matches('/').to_string(),
            None => match self.provider {
                ProviderKind::Openai => "https://api.openai.com/v1".into(),
                ProviderKind::Anthropic => "https://api.anthropic.com/v1".into(),
                ProviderKind::Local => LOCAL_BASE_URL.into(),
            },
        }
    }

    /// The model in force.
    pub fn model(&self) -> Result<String> {
        match (&self.model, self.provider) {
            (Some(m), _) if !m.trim().is_empty() => Ok(m.trim().to_string()),
            (_, ProviderKind::Local) => Ok(LOCAL_MODEL.into()),
            (_, p) => Err(LlmError::Config(format!(
                "no model set for provider {}: set `model` in [llm] or VERA_LLM_MODEL",
                p.id()
            ))),
        }
    }

    /// The name of the variable holding the key, if a key is used.
    pub fn api_key_env(&self) -> Option<String> {
        match &self.api_key_env {
            Some(v) if v.trim().is_empty() => None,
            Some(v) => Some(v.trim().to_string()),
            None => match self.provider {
                ProviderKind::Openai => Some("OPENAI_API_KEY".into()),
                ProviderKind::Anthropic => Some("ANTHROPIC_API_KEY".into()),
                ProviderKind::Local => None,
            },
        }
    }

    /// Requests in flight.
    pub fn concurrency(&self) -> usize {
        self.concurrency.unwrap_or(match self.provider {
            ProviderKind::Local => 1,
            _ => 4,
        })
    }

    /// The HTTP timeouts and limits.
    pub fn http_settings(&self) -> Result<HttpSettings> {
        let secs = |name: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(Duration::from_secs_f64(v))
            } else {
                Err(LlmError::Config(format!(
                    "{name} must be a positive number of seconds"
                )))
            }
        };
        Ok(HttpSettings {
            connect_timeout: secs("connect_timeout_secs", self.connect_timeout_secs)?,
            read_timeout: secs("read_timeout_secs", self.read_timeout_secs)?,
            max_response_bytes: self.max_response_bytes,
        })
    }

    /// The retry policy.
    pub fn retry_policy(&self) -> RetryPolicy {
        RetryPolicy {
            max_retries: self.max_retries,
            base: Duration::from_millis(self.retry_base_ms),
            max: Duration::from_millis(self.retry_max_ms),
        }
    }

    /// The key from the environment variable the configuration names, if a key is used.
    fn api_key(&self) -> Result<Option<ApiKey>> {
        self.api_key_env()
            .map(|var| ApiKey::from_env(&var))
            .transpose()
    }

    /// Refuses `grammar = true` where the endpoint cannot take it: the Anthropic API,
    /// and OpenAI's hosted service (which rejects unknown fields).
    fn check_grammar(&self) -> Result<()> {
        if !self.grammar {
            return Ok(());
        }
        if self.api() == Api::Anthropic {
            return Err(LlmError::Config(
                "grammar = true needs the OpenAI wire format of llama.cpp's server; the Anthropic API takes no grammar".into(),
            ));
        }
        if self.base_url().contains("api.openai.com") {
            return Err(LlmError::Config(
                "grammar = true is for llama.cpp's server; the hosted OpenAI API takes no grammar"
                    .into(),
            ));
        }
        Ok(())
    }

    /// Builds the provider (reads the key from the environment).
    pub fn provider(&self) -> Result<Arc<dyn Provider>> {
        self.check_grammar()?;
        self.provider_with_key(self.api_key()?)
    }

    /// Builds the provider with an explicit key.
    pub fn provider_with_key(&self, key: Option<ApiKey>) -> Result<Arc<dyn Provider>> {
        let base = self.base_url();
        check_url("base_url", &base)?;
        self.check_grammar()?;
        let model = self.model()?;
        let id = self.provider.id();
        let http = self.http_settings()?;
        Ok(match self.api() {
            Api::Openai => Arc::new(
                OpenAi::new(id, &base, model, key, http)
                    .with_structured(self.structured)
                    .with_grammar(self.grammar)
                    .with_stream(self.stream)
                    .with_context(self.context),
            ),
            Api::Anthropic => Arc::new(
                Anthropic::new(id, &base, model, key, http)
                    .with_structured(self.structured)
                    .with_default_max_tokens(self.default_max_tokens),
            ),
        })
    }

    /// The embeddings client, when `embedding_model` is set. Its endpoint is
    /// `embedding_base_url`, else `base_url` (which must then speak the OpenAI API: the
    /// Anthropic API has no embeddings endpoint). The key is the provider's.
    pub fn embeddings(&self) -> Result<Option<Arc<dyn crate::embed::Embeddings>>> {
        let Some(model) = self
            .embedding_model
            .as_ref()
            .filter(|m| !m.trim().is_empty())
        else {
            return Ok(None);
        };
        let base = match &self.embedding_base_url {
            Some(u) => u.trim_end_matches('/').to_string(),
            None if self.api() == Api::Anthropic => {
                return Err(LlmError::Config(
                    "the Anthropic API has no embeddings endpoint: set embedding_base_url".into(),
                ))
            }
            None => self.base_url(),
        };
        check_url("embedding_base_url", &base)?;
        Ok(Some(Arc::new(crate::embed::OpenAiEmbeddings::new(
            &base,
            model.trim(),
            self.api_key()?,
            self.http_settings()?,
        ))))
    }

    /// Builds a ready client: provider, cache (unless off), cassette, limits, prices.
    /// In replay mode no key is needed and the provider is never called.
    pub fn client(&self) -> Result<Client> {
        Ok(self.builder()?.build())
    }

    /// A client builder set up from this configuration, for callers that add an
    /// observer or a cancellation token before building.
    pub fn builder(&self) -> Result<crate::ClientBuilder> {
        let provider: Arc<dyn Provider> = if self.replay.is_some() && !self.replay_then_live {
            self.check_grammar()?;
            Arc::new(Offline {
                id: self.provider.id().into(),
                model: self.model()?,
                grammar: self.grammar,
            })
        } else {
            self.provider()?
        };
        let mut b = Client::builder_arc(provider)
            .cache_mode(self.cache_mode)
            .retry(self.retry_policy())
            .concurrency(self.concurrency())
            .tokens_per_minute(self.tokens_per_minute)
            .max_answer_bytes(self.max_answer_bytes)
            .prices(Prices {
                input_per_mtok: self.price_input_per_mtok,
                output_per_mtok: self.price_output_per_mtok,
            });
        if self.cache_mode != CacheMode::Off {
            if let Some(path) = &self.cache {
                b = b.cache(Cache::open(path)?);
            }
        }
        if let Some(path) = &self.record {
            b = b.record(Recorder::open(path, self.record_append)?);
        }
        if let Some(path) = &self.replay {
            b = b
                .replay(Replayer::open(path)?)
                .replay_then_live(self.replay_then_live);
        }
        Ok(b)
    }
}

/// Stands in for the provider in replay mode: same id, model and grammar setting (so
/// keys match), never answers.
struct Offline {
    id: String,
    model: String,
    grammar: bool,
}

impl Provider for Offline {
    fn id(&self) -> &str {
        &self.id
    }
    fn model(&self) -> &str {
        &self.model
    }
    fn accepts_grammar(&self) -> bool {
        self.grammar
    }
    fn complete(&self, _: &Request) -> Result<Response> {
        Err(LlmError::Config(
            "replay mode: the provider is not called".into(),
        ))
    }
}

/// A base URL must be HTTP(S); `name` is the setting it came from.
fn check_url(name: &str, base: &str) -> Result<()> {
    if base.starts_with("http://") || base.starts_with("https://") {
        Ok(())
    } else {
        Err(LlmError::Config(format!(
            "{name} {base:?} must start with http:// or https://"
        )))
    }
}

/// A configuration checked with one small request ([`ping`]).
#[derive(Debug)]
pub struct Pinged {
    /// The configuration, as used for the check (no cache, cassette or replay).
    pub config: LlmConfig,
    /// The model it names (`(no model set)` when it names none).
    pub model: String,
    /// The answer.
    pub answer: crate::types::Completion,
    /// How long the request took, in seconds.
    pub seconds: f64,
}

/// Why [`ping`] failed.
#[derive(Debug, thiserror::Error)]
#[error("{error}")]
pub struct PingError {
    /// What failed: loading the configuration, building its client, or the request.
    pub error: LlmError,
    /// The request to the local model failed (its server may not be running).
    pub local: bool,
}

/// Checks the configuration at `path` (its `[llm]` table; `VERA_LLM_*` variables
/// override it) with one small request, with no cache, cassette or replay.
pub fn ping(path: &Path) -> std::result::Result<Pinged, PingError> {
    let failed = |error| PingError {
        error,
        local: false,
    };
    let config = LlmConfig::load(Some(path)).map_err(failed)?.for_ping();
    let model = config.model().unwrap_or_else(|_| "(no model set)".into());
    let client = config.client().map_err(failed)?;
    let local = matches!(config.provider, ProviderKind::Local);
    let start = std::time::Instant::now();
    let answer = client.ping().map_err(|error| PingError { error, local })?;
    let seconds = start.elapsed().as_secs_f64();
    Ok(Pinged {
        config,
        model,
        answer,
        seconds,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn defaults_and_presets() {
        let c = LlmConfig::default();
        assert_eq!(c.provider, ProviderKind::Local);
        assert_eq!(c.base_url(), LOCAL_BASE_URL);
        assert_eq!(c.api_key_env(), None);
        assert_eq!(c.concurrency(), 1);
        assert_eq!(c, LlmConfig::local());
        let c = LlmConfig::from_toml("[llm]\nprovider = \"anthropic\"\nmodel = \"m\"\n").unwrap();
        assert_eq!(c.base_url(), "https://api.anthropic.com/v1");
        assert_eq!(c.api_key_env().as_deref(), Some("ANTHROPIC_API_KEY"));
        assert_eq!(c.api(), Api::Anthropic);
        assert_eq!(c.concurrency(), 4);
    }

    #[test]
    fn file_then_environment() {
        let text = r#"
[solver]
whatever = 1

[llm]
provider = "openai"
base_url = "http://127.0.0.1:9/v1/"
model = "gpt"
concurrency = 8
price_input_per_mtok = 1.5
cache_mode = "refresh"
"#;
        let mut c = LlmConfig::from_toml(text).unwrap();
        assert_eq!(c.base_url(), "http://127.0.0.1:9/v1");
        assert_eq!(c.concurrency(), 8);
        assert_eq!(c.cache_mode, CacheMode::Refresh);
        let env: HashMap<&str, &str> = [
            ("VERA_LLM_MODEL", "other"),
            ("VERA_LLM_CONCURRENCY", "2"),
            ("VERA_LLM_CACHE_MODE", "off"),
            ("VERA_LLM_TPM", "1000"),
            ("VERA_LLM_API_KEY_ENV", "MY_KEY"),
        ]
        .into_iter()
        .collect();
        c.apply_env(|k| env.get(k).map(|v| v.to_string())).unwrap();
        assert_eq!(c.model().unwrap(), "other");
        assert_eq!(c.concurrency(), 2);
        assert_eq!(c.cache_mode, CacheMode::Off);
        assert_eq!(c.tokens_per_minute, Some(1000));
        assert_eq!(c.api_key_env().as_deref(), Some("MY_KEY"));
    }

    #[test]
    fn replay_needs_no_key_and_never_calls() {
        let dir = std::env::temp_dir().join(format!("vera-llm-cfg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let tape = dir.join("empty.jsonl");
        std::fs::write(&tape, "").unwrap();
        let text = format!(
            "[llm]\nprovider = \"openai\"\nmodel = \"m\"\napi_key_env = \"VERA_TEST_SURELY_UNSET_KEY\"\n\
             cache_mode = \"off\"\nreplay = {:?}\n",
            tape.display().to_string()
        );
        let client = LlmConfig::from_toml(&text).unwrap().client().unwrap();
        assert_eq!(
            (client.provider().id(), client.provider().model()),
            ("openai", "m")
        );
        let err = client.complete("s", &Request::new().user("x")).unwrap_err();
        assert!(matches!(err, LlmError::ReplayMissing { .. }), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn streaming_is_on_unless_turned_off() {
        assert!(LlmConfig::default().stream);
        assert!(
            !LlmConfig::from_toml("[llm]\nstream = false\n")
                .unwrap()
                .stream
        );
        let mut c = LlmConfig::default();
        c.apply_env(|k| (k == "VERA_LLM_STREAM").then(|| "Off".into()))
            .unwrap();
        assert!(!c.stream);
        let e = c
            .apply_env(|k| (k == "VERA_LLM_STREAM").then(|| "sometimes".into()))
            .unwrap_err();
        assert!(e.to_string().contains("VERA_LLM_STREAM"), "{e}");
    }

    #[test]
    fn grammar_is_opt_in_and_refused_where_it_cannot_go() {
        assert!(!LlmConfig::default().grammar);
        let c = LlmConfig::from_toml("[llm]\ngrammar = true\n").unwrap();
        assert!(c.provider().unwrap().accepts_grammar());
        assert!(!LlmConfig::default().provider().unwrap().accepts_grammar());
        let mut c = LlmConfig::default();
        c.apply_env(|k| (k == "VERA_LLM_GRAMMAR").then(|| "on".into()))
            .unwrap();
        assert!(c.grammar);
        let e = c
            .apply_env(|k| (k == "VERA_LLM_GRAMMAR").then(|| "maybe".into()))
            .unwrap_err();
        assert!(e.to_string().contains("VERA_LLM_GRAMMAR"), "{e}");
        for text in [
            "[llm]\ngrammar = true\napi = \"anthropic\"\n",
            "[llm]\ngrammar = true\nprovider = \"anthropic\"\nmodel = \"m\"\napi_key_env = \"\"\n",
            "[llm]\ngrammar = true\nprovider = \"openai\"\nmodel = \"m\"\napi_key_env = \"\"\n",
        ] {
            let c = LlmConfig::from_toml(text).unwrap();
            match c.provider() {
                Err(LlmError::Config(m)) => assert!(m.contains("grammar"), "{m}"),
                Err(e) => panic!("wrong error {e}"),
                Ok(_) => panic!("{text}: a grammar would be sent"),
            }
        }
    }

    #[test]
    fn bad_settings_are_named() {
        let e = LlmConfig::from_toml("[llm]\nprovidr = \"openai\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("providr"), "{e}");
        let mut c = LlmConfig::default();
        let e = c
            .apply_env(|k| (k == "VERA_LLM_CONCURRENCY").then(|| "many".into()))
            .unwrap_err();
        assert!(e.to_string().contains("VERA_LLM_CONCURRENCY"));
        let c = LlmConfig::from_toml("[llm]\nprovider = \"openai\"\n").unwrap();
        assert!(c
            .model()
            .unwrap_err()
            .to_string()
            .contains("VERA_LLM_MODEL"));
        let c = LlmConfig::from_toml("[llm]\nprovider = \"openai\"\nmodel = \"m\"\napi_key_env = \"VERA_TEST_SURELY_UNSET_KEY\"\n").unwrap();
        match c.provider() {
            Err(LlmError::MissingApiKey { var }) => assert_eq!(var, "VERA_TEST_SURELY_UNSET_KEY"),
            Err(e) => panic!("wrong error {e}"),
            Ok(_) => panic!("no error"),
        }
    }

    #[test]
    fn overrides_replay_record_and_cache() {
        let mut c = LlmConfig::default();
        let o = Overrides {
            record: Some("r.jsonl".into()),
            replay: Some("p.jsonl".into()),
            ..Default::default()
        };
        match c.apply_overrides(&o) {
            Err(LlmError::Options(m)) => assert!(m.contains("nothing new to --record"), "{m}"),
            other => panic!("not refused: {other:?}"),
        }
        // Replaying alone records nothing; then-live keeps recording.
        let mut c = LlmConfig {
            record: Some("old.jsonl".into()),
            ..LlmConfig::default()
        };
        c.apply_overrides(&Overrides {
            replay: Some("p.jsonl".into()),
            no_cache: true,
            concurrency: Some(0),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(c.replay.as_deref(), Some(Path::new("p.jsonl")));
        assert_eq!(c.record, None);
        assert_eq!(c.cache_mode, CacheMode::Off);
        assert_eq!(c.concurrency, None);
        let mut c = LlmConfig::default();
        c.apply_overrides(&Overrides {
            record: Some("r.jsonl".into()),
            record_append: true,
            replay: Some("p.jsonl".into()),
            replay_then_live: true,
            refresh: true,
            concurrency: Some(3),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(c.record.as_deref(), Some(Path::new("r.jsonl")));
        assert!(c.record_append && c.replay_then_live);
        assert_eq!(c.cache_mode, CacheMode::Refresh);
        assert_eq!(c.concurrency, Some(3));
        let p = c.for_ping();
        assert_eq!(
            (p.cache_mode, p.replay, p.record),
            (CacheMode::Off, None, None)
        );
    }
}
