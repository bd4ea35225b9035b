//! The provider interface: one request in, one response out, one attempt.
//!
//! Providers do not retry, cache, record or count: [`crate::Client`] does all of that
//! around any provider, so the scripted provider exercises the same paths as the HTTP
//! ones.

use std::sync::Arc;

use crate::error::Result;
use crate::types::{Request, Response};

/// A source of completions.
pub trait Provider: Send + Sync {
    /// A stable identifier of the provider (`openai`, `anthropic`, `local`, `scripted`),
    /// part of the cache key.
    fn id(&self) -> &str;
    /// The model name, part of the cache key.
    fn model(&self) -> &str;
    /// Sends one request and returns the provider's answer as is. Answer checks (empty,
    /// truncated, schema) happen in the client; transient failures are returned as
    /// retryable errors ([`crate::LlmError::is_retryable`]).
    fn complete(&self, request: &Request) -> Result<Response>;
    /// Whether a request's GBNF `grammar` is sent (llama.cpp's server). False by
    /// default: [`crate::Client`] then drops the grammar before the cache key is
    /// computed, so the provider never sees it.
    fn accepts_grammar(&self) -> bool {
        false
    }
    /// The model's context window in tokens (prompt and answer together), when known:
    /// configured, or asked of the server. `None` when nobody says.
    fn context_window(&self) -> Option<u32> {
        None
    }
}

/// Forwards every method of [`Provider`] through a smart pointer to the provider it
/// holds (a blanket impl over `Deref` would also cover types that other crates own).
macro_rules! forward_provider {
    ($pointer:ident) => {
        impl<P: Provider + ?Sized> Provider for $pointer<P> {
            fn context_window(&self) -> Option<u32> {
                (**self).context_window()
            }
            fn id(&self) -> &str {
                (**self).id()
            }
            fn model(&self) -> &str {
                (**self).model()
            }
            fn accepts_grammar(&self) -> bool {
                (**self).accepts_grammar()
            }
            fn complete(&self, request: &Request) -> Result<Response> {
                (**self).complete(request)
            }
        }
    };
}

forward_provider!(Arc);
forward_provider!(Box);
