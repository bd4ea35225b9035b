//! Any OpenAI-compatible chat-completions endpoint (hosted services, vLLM, llama.cpp
//! server, Ollama, LM Studio): `POST {base_url}/chat/completions`.

use serde_json::{json, Value};

use crate::error::{LlmError, Result};
use crate::http::{bearer, endpoint, Http, HttpSettings, Streamed};
use crate::provider::Provider;
use crate::secret::ApiKey;
use crate::types::{FinishReason, Request, Response, Usage};

/// The context size a llama.cpp server's `/props` reports: `n_ctx` of its default
/// generation settings (newer servers), or at the top level.
pub fn props_context(props: &Value) -> Option<u32> {
    let n = props
        .pointer("/default_generation_settings/n_ctx")
        .or_else(|| props.get("n_ctx"))?;
    n.as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .filter(|n| *n > 0)
}

/// How a request's JSON schema is conveyed to the model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StructuredMode {
    /// The provider's own mechanism: OpenAI `response_format: json_schema`, Anthropic
    /// forced tool use.
    #[default]
    Native,
    /// Only an instruction with the schema in the system prompt (for servers without
    /// structured output). The answer is validated on our side either way.
    Prompt,
}

/// An OpenAI-compatible chat-completions client.
pub struct OpenAi {
    id: String,
    model: String,
    url: String,
    key: Option<ApiKey>,
    structured: StructuredMode,
    grammar: bool,
    stream: bool,
    http: Http,
    /// The context window: configured, or asked of a llama.cpp server once.
    context: std::sync::OnceLock<Option<u32>>,
    /// The server's root (the base URL without `/v1`), where llama.cpp answers `/props`.
    root: String,
}

impl OpenAi {
    /// A client for `base_url` (e.g. `https://api.openai.com/v1` or
    /// `http://127.0.0.1:8080/v1`). `id` names the provider in cache keys.
    pub fn new(
        id: impl Into<String>,
        base_url: &str,
        model: impl Into<String>,
        key: Option<ApiKey>,
        settings: HttpSettings,
    ) -> OpenAi {
        OpenAi {
            id: id.into(),
            model: model.into(),
            url: endpoint(base_url, "chat/completions"),
            key,
            structured: StructuredMode::Native,
            grammar: false,
            stream: false,
            http: Http::new(settings),
            context: std::sync::OnceLock::new(),
            root: base_url
                .trim_end_matches('/')
                .trim_end_matches("/v1")
                .to_string(),
        }
    }

    /// Sets the context window (tokens) instead of asking the server.
    pub fn with_context(self, tokens: Option<u32>) -> OpenAi {
        if let Some(t) = tokens {
            let _ = self.context.set(Some(t));
        }
        self
    }

    /// Chooses how schemas are sent.
    pub fn with_structured(mut self, mode: StructuredMode) -> OpenAi {
        self.structured = mode;
        self
    }

    /// Sends a request's GBNF grammar as the top-level `grammar` field (llama.cpp's
    /// server accepts it; hosted services do not, so it is off by default).
    pub fn with_grammar(mut self, on: bool) -> OpenAi {
        self.grammar = on;
        self
    }

    /// Asks for the answer as a server-sent event stream and stops reading (dropping
    /// the connection) as soon as the answer falls into a loop ([`crate::runaway`]);
    /// such an answer ends with [`FinishReason::Repetition`]. A server that does not
    /// stream is read as before.
    pub fn with_stream(mut self, on: bool) -> OpenAi {
        self.stream = on;
        self
    }

    /// The JSON body this client sends for `request` (public for tests and logging).
    pub fn body(&self, request: &Request) -> Value {
        let mut messages: Vec<Value> = request
            .messages
            .iter()
            .map(|m| json!({"role": m.role.as_str(), "content": m.content}))
            .collect();
        let mut body = json!({"model": self.model});
        if let Some(t) = request.temperature {
            body["temperature"] = json!(t);
        }
        if let Some(n) = request.max_tokens {
            body["max_tokens"] = json!(n);
        }
        if !request.stop.is_empty() {
            body["stop"] = json!(request.stop);
        }
        if let Some(s) = request.seed {
            body["seed"] = json!(s);
        }
        if let Some(g) = request.grammar.as_ref().filter(|_| self.grammar) {
            body["grammar"] = json!(g);
        }
        if let Some(schema) = &request.schema {
            match self.structured {
                StructuredMode::Native => {
                    body["response_format"] = json!({
                        "type": "json_schema",
                        "json_schema": {"name": schema.name, "schema": schema.schema, "strict": true}
                    });
                }
                StructuredMode::Prompt => {
                    messages.insert(
                        0,
                        json!({"role": "system", "content": schema_instruction(schema)}),
                    );
                }
            }
        }
        if self.stream {
            body["stream"] = json!(true);
            body["stream_options"] = json!({"include_usage": true});
        }
        body["messages"] = Value::Array(messages);
        body
    }

    /// One streamed completion: the deltas joined, stopped early on a loop.
    fn complete_streamed(&self, headers: &[(&str, String)], body: &Value) -> Result<Response> {
        let mut text = String::new();
        let mut finish = None;
        let mut usage = None;
        let mut model = None;
        let mut deltas = 0u64;
        let got = self
            .http
            .post_stream(&self.url, headers, body, self.key.as_ref(), |data| {
                let v: Value = serde_json::from_str(data).map_err(|e| {
                    LlmError::bad_response(format!("an event of the stream is not JSON: {e}"), data)
                })?;
                if let Some(e) = v.get("error") {
                    return Err(LlmError::bad_response(
                        "the stream reported an error",
                        &e.to_string(),
                    ));
                }
                if let Some(m) = v.get("model").and_then(|m| m.as_str()) {
                    model = Some(m.to_string());
                }
                if v.get("usage").is_some_and(|u| !u.is_null()) {
                    usage = Some(usage_of(&v));
                }
                if let Some(c) = v.pointer("/choices/0") {
                    if let Some(d) = c.pointer("/delta/content").and_then(|d| d.as_str()) {
                        text.push_str(d);
                        deltas += 1;
                    }
                    if let Some(f) = c.get("finish_reason").and_then(|f| f.as_str()) {
                        finish = Some(finish_reason(Some(f)));
                    }
                }
                Ok(crate::runaway::repeated_tail(&text).is_some())
            })?;
        match got {
            Streamed::Json(v) => parse_response(&v),
            Streamed::Events { stopped } => Ok(Response {
                text,
                finish: if stopped {
                    FinishReason::Repetition
                } else {
                    finish.unwrap_or(FinishReason::Unknown)
                },
                // A stream stopped early has no usage event: its output is counted as
                // the deltas received (one token each on llama.cpp's server).
                usage: usage.unwrap_or(Usage {
                    input_tokens: 0,
                    output_tokens: deltas,
                }),
                model,
            }),
        }
    }
}

/// The instruction used by [`StructuredMode::Prompt`].
pub(crate) fn schema_instruction(schema: &crate::types::JsonSchema) -> String {
    format!(
        "Answer with a single JSON value that follows this JSON schema, and nothing else:\n{}",
        serde_json::to_string(&schema.schema).unwrap_or_default()
    )
}

impl Provider for OpenAi {
    fn id(&self) -> &str {
        &self.id
    }
    fn model(&self) -> &str {
        &self.model
    }
    fn accepts_grammar(&self) -> bool {
        self.grammar
    }
    /// Configured, or for llama.cpp's server (the `local` provider, or any endpoint
    /// set to take grammars) its `/props` `n_ctx`, asked once. A hosted endpoint is not
    /// asked.
    fn context_window(&self) -> Option<u32> {
        *self.context.get_or_init(|| {
            if !self.grammar && self.id != "local" {
                return None;
            }
            let props = self
                .http
                .get_json(&format!("{}/props", self.root), self.key.as_ref())
                .ok()?;
            props_context(&props)
        })
    }
    fn complete(&self, request: &Request) -> Result<Response> {
        let headers = bearer(self.key.as_ref());
        let body = self.body(request);
        if self.stream {
            return self.complete_streamed(&headers, &body);
        }
        let v = self
            .http
            .post_json(&self.url, &headers, &body, self.key.as_ref())?;
        parse_response(&v)
    }
}

/// Reads a chat-completions response body.
pub fn parse_response(v: &Value) -> Result<Response> {
    let bad = |detail: &str| LlmError::bad_response(detail, &v.to_string());
    let choice = v
        .get("choices")
        .and_then(|c| c.as_array())
        .ok_or_else(|| bad("no `choices` array"))?
        .first()
        .ok_or_else(|| bad("empty `choices` array"))?;
    let message = choice
        .get("message")
        .ok_or_else(|| bad("choice without `message`"))?;
    let text = match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(_) => return Err(bad("`message.content` is not a string")),
    };
    let finish = finish_reason(choice.get("finish_reason").and_then(|f| f.as_str()));
    let usage = usage_of(v);
    let model = v.get("model").and_then(|m| m.as_str()).map(str::to_string);
    Ok(Response {
        text,
        finish,
        usage,
        model,
    })
}

fn finish_reason(f: Option<&str>) -> FinishReason {
    match f {
        Some("stop") => FinishReason::Stop,
        Some("length") => FinishReason::Length,
        Some("content_filter") => FinishReason::ContentFilter,
        Some("tool_calls") | Some("function_call") => FinishReason::ToolUse,
        Some(other) => FinishReason::Other(other.to_string()),
        None => FinishReason::Unknown,
    }
}

/// The `usage` object of a response or of a stream's last event.
fn usage_of(v: &Value) -> Usage {
    let n = |p: &str| v.pointer(p).and_then(|t| t.as_u64()).unwrap_or(0);
    Usage {
        input_tokens: n("/usage/prompt_tokens"),
        output_tokens: n("/usage/completion_tokens"),
    }
}

#[cfg(test)]
mod tests {
    use super::props_context;
    use serde_json::json;

    #[test]
    fn the_context_size_of_a_llama_server() {
        assert_eq!(
            props_context(&json!({"default_generation_settings": {"n_ctx": 4096}})),
            Some(4096)
        );
        assert_eq!(props_context(&json!({"n_ctx": 8192})), Some(8192));
        assert_eq!(props_context(&json!({"n_ctx": 0})), None);
        assert_eq!(props_context(&json!({"model": "m"})), None);
    }
}
