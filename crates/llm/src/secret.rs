//! API keys: read from the environment only, never printed, serialized or stored.

use crate::error::{LlmError, Result};

/// An API key. Its `Debug` output is redacted and it implements neither `Display` nor
/// `Serialize`, so it cannot end up in a log line, an error, the cache or a cassette by
/// accident.
#[derive(Clone)]
pub struct ApiKey(String);

impl ApiKey {
    /// Reads the key from the environment variable `var`.
    pub fn from_env(var: &str) -> Result<ApiKey> {
        match std::env::var(var) {
            Ok(v) if !v.trim().is_empty() => Ok(ApiKey(v.trim().to_string())),
            _ => Err(LlmError::MissingApiKey {
                var: var.to_string(),
            }),
        }
    }

    /// A key given directly (tests, or a caller that has its own secret store).
    pub fn new(key: impl Into<String>) -> ApiKey {
        ApiKey(key.into())
    }

    /// The key, for an HTTP header. Crate-private on purpose.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }

    /// `text` with every occurrence of the key replaced by `***`.
    pub fn redact(&self, text: &str) -> String {
        if self.0.len() < 4 {
            return text.to_string();
        }
        text.replace(&self.0, "***")
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

/// Redacts an optional key from `text`.
pub(crate) fn redact(key: Option<&ApiKey>, text: &str) -> String {
    match key {
        Some(k) => k.redact(text),
        None => text.to_string(),
    }
}
