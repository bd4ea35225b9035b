//! The Anthropic Messages API: `POST {base_url}/messages`.
//!
//! System messages are joined into the top-level `system` field. A JSON schema becomes a
//! single tool that the model is forced to call; the tool's input is the answer.

use serde_json::{json, Value};

use crate::error::{LlmError, Result};
use crate::http::{endpoint, Http, HttpSettings};
use crate::openai::{schema_instruction, StructuredMode};
use crate::provider::Provider;
use crate::secret::ApiKey;
use crate::types::{FinishReason, Request, Response, Role, Usage};

/// The `anthropic-version` header sent.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// An Anthropic Messages API client.
pub struct Anthropic {
    id: String,
    model: String,
    url: String,
    key: Option<ApiKey>,
    default_max_tokens: u32,
    structured: StructuredMode,
    http: Http,
}

impl Anthropic {
    /// A client for `base_url` (e.g. `https://api.anthropic.com/v1`).
    pub fn new(
        id: impl Into<String>,
        base_url: &str,
        model: impl Into<String>,
        key: Option<ApiKey>,
        settings: HttpSettings,
    ) -> Anthropic {
        Anthropic {
            id: id.into(),
            model: model.into(),
            url: endpoint(base_url, "messages"),
            key,
            default_max_tokens: 4096,
            structured: StructuredMode::Native,
            http: Http::new(settings),
        }
    }

    /// The `max_tokens` sent when a request has none (the API requires one).
    pub fn with_default_max_tokens(mut self, n: u32) -> Anthropic {
        self.default_max_tokens = n;
        self
    }

    /// Chooses how schemas are sent.
    pub fn with_structured(mut self, mode: StructuredMode) -> Anthropic {
        self.structured = mode;
        self
    }

    /// The JSON body this client sends for `request`.
    pub fn body(&self, request: &Request) -> Value {
        let mut system: Vec<&str> = Vec::new();
        let mut messages = Vec::new();
        for m in &request.messages {
            match m.role {
                Role::System => system.push(&m.content),
                Role::User | Role::Assistant => {
                    messages.push(json!({"role": m.role.as_str(), "content": m.content}))
                }
            }
        }
        let mut body = json!({
            "model": self.model,
            "max_tokens": request.max_tokens.unwrap_or(self.default_max_tokens),
            "messages": messages,
        });
        let instruction;
        if let Some(schema) = &request.schema {
            match self.structured {
                StructuredMode::Native => {
                    body["tools"] = json!([{
                        "name": schema.name,
                        "description": "Give the answer as this tool's input.",
                        "input_schema": schema.schema,
                    }]);
                    body["tool_choice"] = json!({"type": "tool", "name": schema.name});
                }
                StructuredMode::Prompt => {
                    instruction = schema_instruction(schema);
                    system.insert(0, &instruction);
                }
            }
        }
        if !system.is_empty() {
            body["system"] = json!(system.join("\n\n"));
        }
        if let Some(t) = request.temperature {
            body["temperature"] = json!(t);
        }
        if !request.stop.is_empty() {
            body["stop_sequences"] = json!(request.stop);
        }
        body
    }
}

impl Provider for Anthropic {
    fn id(&self) -> &str {
        &self.id
    }
    fn model(&self) -> &str {
        &self.model
    }
    fn complete(&self, request: &Request) -> Result<Response> {
        let mut headers = vec![("anthropic-version", ANTHROPIC_VERSION.to_string())];
        if let Some(k) = &self.key {
            headers.push(("x-api-key", k.expose().to_string()));
        }
        let v = self
            .http
            .post_json(&self.url, &headers, &self.body(request), self.key.as_ref())?;
        parse_response(&v)
    }
}

/// Reads a Messages API response body.
pub fn parse_response(v: &Value) -> Result<Response> {
    let bad = |detail: &str| LlmError::bad_response(detail, &v.to_string());
    let content = v
        .get("content")
        .and_then(|c| c.as_array())
        .ok_or_else(|| bad("no `content` array"))?;
    let mut text = String::new();
    let mut tool_input = None;
    for block in content {
        match block.get("type").and_then(|t| t.as_str()) {
            Some("text") => text.push_str(
                block
                    .get("text")
                    .and_then(|t| t.as_str())
                    .ok_or_else(|| bad("text block without `text`"))?,
            ),
            Some("tool_use") if tool_input.is_none() => {
                tool_input = Some(block.get("input").cloned().unwrap_or(Value::Null));
            }
            _ => {}
        }
    }
    if let Some(input) = tool_input {
        text = input.to_string();
    }
    let finish = match v.get("stop_reason").and_then(|f| f.as_str()) {
        Some("end_turn") | Some("stop_sequence") => FinishReason::Stop,
        Some("max_tokens") => FinishReason::Length,
        Some("tool_use") => FinishReason::ToolUse,
        Some("refusal") => FinishReason::ContentFilter,
        Some(other) => FinishReason::Other(other.to_string()),
        None => FinishReason::Unknown,
    };
    let usage = Usage {
        // Prompt tokens read from or written to the provider's prompt cache are
        // reported apart from `input_tokens`; all of them were sent.
        input_tokens: [
            "input_tokens",
            "cache_read_input_tokens",
            "cache_creation_input_tokens",
        ]
        .iter()
        .filter_map(|k| {
            v.get("usage")
                .and_then(|u| u.get(*k))
                .and_then(|t| t.as_u64())
        })
        .sum(),
        output_tokens: v
            .pointer("/usage/output_tokens")
            .and_then(|t| t.as_u64())
            .unwrap_or(0),
    };
    let model = v.get("model").and_then(|m| m.as_str()).map(str::to_string);
    Ok(Response {
        text,
        finish,
        usage,
        model,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_counts_prompt_cache_tokens_as_input() {
        let v = json!({
            "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
            "stop_reason": "stop_sequence",
            "usage": {"input_tokens": 20, "cache_read_input_tokens": 3, "output_tokens": 2}
        });
        let r = parse_response(&v).unwrap();
        assert_eq!(r.text, "ab");
        assert_eq!(r.finish, FinishReason::Stop);
        assert_eq!((r.usage.input_tokens, r.usage.output_tokens), (23, 2));
    }
}
