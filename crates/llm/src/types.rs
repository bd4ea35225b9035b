//! Requests, responses and usage: the data every provider speaks.

use serde::{Deserialize, Serialize};

/// Who wrote a chat message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions that frame the conversation.
    System,
    /// The user's turn.
    User,
    /// The model's turn (used for worked examples and for prefill).
    Assistant,
}

impl Role {
    /// The wire name (`system`, `user`, `assistant`).
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// One chat message.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// The text.
    pub content: String,
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Message {
            role: Role::System,
            content: content.into(),
        }
    }
    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Message {
            role: Role::User,
            content: content.into(),
        }
    }
    /// An assistant message.
    pub fn assistant(content: impl Into<String>) -> Self {
        Message {
            role: Role::Assistant,
            content: content.into(),
        }
    }
}

/// A JSON schema the answer must follow (structured output).
///
/// Sent as OpenAI `response_format: json_schema` or as an Anthropic tool whose input is the
/// answer; validated on our side either way (see [`crate::jsonschema`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonSchema {
    /// A short identifier (letters, digits, `_` and `-`), sent as the schema or tool name.
    pub name: String,
    /// The schema itself.
    pub schema: serde_json::Value,
}

/// One completion request. Everything in it (and the sample index) is part of the cache
/// key, so two requests that differ in any field are distinct entries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// The conversation.
    pub messages: Vec<Message>,
    /// Sampling temperature; `None` leaves the provider's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Upper bound on generated tokens; `None` leaves the provider's default (Anthropic
    /// requires one, so its client falls back to its configured default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// Stop sequences.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop: Vec<String>,
    /// Seed, where the provider supports one (OpenAI-compatible servers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Structured output: the answer must be JSON that follows this schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<JsonSchema>,
    /// A GBNF grammar (llama.cpp's format) the answer must follow, sent as the top-level
    /// `grammar` field by an OpenAI-compatible provider configured with `grammar = true`
    /// (llama.cpp's server). A client whose provider does not accept grammars drops it
    /// before anything else, so it is then neither sent nor part of the cache key. Absent
    /// from the serialized request (and so from the key) when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grammar: Option<String>,
    /// Which sample this is when the same prompt is asked several times (0 for the
    /// first). Never sent to the provider; it only separates cache entries.
    #[serde(default)]
    pub sample: u32,
}

impl Request {
    /// An empty request; add messages with [`Request::system`], [`Request::user`], ...
    pub fn new() -> Self {
        Request {
            messages: Vec::new(),
            temperature: None,
            max_tokens: None,
            stop: Vec::new(),
            seed: None,
            schema: None,
            grammar: None,
            sample: 0,
        }
    }
    /// Appends a system message.
    pub fn system(mut self, text: impl Into<String>) -> Self {
        self.messages.push(Message::system(text));
        self
    }
    /// Appends a user message.
    pub fn user(mut self, text: impl Into<String>) -> Self {
        self.messages.push(Message::user(text));
        self
    }
    /// Appends an assistant message.
    pub fn assistant(mut self, text: impl Into<String>) -> Self {
        self.messages.push(Message::assistant(text));
        self
    }
    /// Sets the temperature.
    pub fn temperature(mut self, t: f64) -> Self {
        self.temperature = Some(t);
        self
    }
    /// Sets the token limit.
    pub fn max_tokens(mut self, n: u32) -> Self {
        self.max_tokens = Some(n);
        self
    }
    /// Adds a stop sequence.
    pub fn stop(mut self, s: impl Into<String>) -> Self {
        self.stop.push(s.into());
        self
    }
    /// Sets the seed.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }
    /// Requires a JSON answer following `schema`.
    pub fn schema(mut self, name: impl Into<String>, schema: serde_json::Value) -> Self {
        self.schema = Some(JsonSchema {
            name: name.into(),
            schema,
        });
        self
    }
    /// Constrains the answer with a GBNF grammar (see the `grammar` field).
    pub fn grammar(mut self, gbnf: impl Into<String>) -> Self {
        self.grammar = Some(gbnf.into());
        self
    }
    /// Sets the sample index.
    pub fn sample(mut self, index: u32) -> Self {
        self.sample = index;
        self
    }
    /// The conversation as plain text, one `role: line` per line (for diff hints and
    /// logs; never contains anything but the request itself).
    pub fn prompt_text(&self) -> String {
        let mut out = String::new();
        for m in &self.messages {
            for line in m.content.split('\n') {
                out.push_str(m.role.as_str());
                out.push_str(": ");
                out.push_str(line);
                out.push('\n');
            }
        }
        out
    }
    /// A rough token estimate of the prompt (characters / 4), used by the
    /// tokens-per-minute limiter before the provider reports real usage.
    pub fn estimated_input_tokens(&self) -> u64 {
        let chars: usize = self
            .messages
            .iter()
            .map(|m| m.content.chars().count() + 4)
            .sum();
        (chars as u64).div_ceil(4)
    }
}

impl Default for Request {
    fn default() -> Self {
        Request::new()
    }
}

/// Why generation stopped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// Natural end or a stop sequence.
    Stop,
    /// The token limit was reached: the answer is truncated.
    Length,
    /// The model answered through a tool call (Anthropic structured output).
    ToolUse,
    /// The provider filtered the answer.
    ContentFilter,
    /// vera stopped a streamed answer that had fallen into a loop (see
    /// [`crate::runaway`]): the text is what came before the stop.
    Repetition,
    /// Anything else the provider said, verbatim.
    Other(String),
    /// The provider did not say.
    Unknown,
}

/// Tokens used by one call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Generated tokens.
    pub output_tokens: u64,
}

/// What a provider answered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Response {
    /// The answer text (for structured output: the JSON text).
    pub text: String,
    /// Why generation stopped.
    pub finish: FinishReason,
    /// Token usage as reported by the provider (zero if it did not report any).
    pub usage: Usage,
    /// The model name the provider reported, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

impl Response {
    /// A plain answer that stopped naturally, with no usage: handy in tests.
    pub fn text(text: impl Into<String>) -> Self {
        Response {
            text: text.into(),
            finish: FinishReason::Stop,
            usage: Usage::default(),
            model: None,
        }
    }
}

/// Where a [`Completion`] came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A call to the provider.
    Provider,
    /// The on-disk cache.
    Cache,
    /// A replay cassette.
    Replay,
}

/// A checked answer, as returned by [`crate::Client`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Completion {
    /// The raw response.
    pub response: Response,
    /// The parsed JSON answer, when the request carried a schema (already validated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json: Option<serde_json::Value>,
    /// Where it came from.
    pub source: Source,
    /// The request's content hash (cache key and cassette key), hex.
    pub key: String,
    /// How many times the call was retried.
    pub retries: u32,
}

impl Completion {
    /// The answer text.
    pub fn text(&self) -> &str {
        &self.response.text
    }

    /// The answer as JSON text: the parsed JSON written out when there is one, else the
    /// text as it came.
    pub fn json_text(&self) -> String {
        self.json
            .as_ref()
            .map(|j| j.to_string())
            .unwrap_or_else(|| self.text().to_string())
    }
}
