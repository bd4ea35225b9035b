//! The HTTP layer shared by the OpenAI-compatible and Anthropic clients: one blocking
//! `ureq` agent with connect and read timeouts, a response size limit, and the mapping
//! from statuses and transport failures to typed errors.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::error::{LlmError, Result};
use crate::secret::{redact, ApiKey};

/// Timeouts and limits of one HTTP client.
#[derive(Clone, Debug, PartialEq)]
pub struct HttpSettings {
    /// Time allowed to open the connection (including TLS).
    pub connect_timeout: Duration,
    /// Time allowed to wait for the answer and to read it.
    pub read_timeout: Duration,
    /// Largest response body accepted, in bytes.
    pub max_response_bytes: usize,
}

impl Default for HttpSettings {
    fn default() -> Self {
        HttpSettings {
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(300),
            max_response_bytes: 8 << 20,
        }
    }
}

/// What [`Http::post_stream`] received.
pub(crate) enum Streamed {
    /// The server did not stream: its whole JSON answer.
    Json(serde_json::Value),
    /// The server streamed; `stopped` when the caller stopped it early.
    Events {
        /// True when `on_event` asked to stop.
        stopped: bool,
    },
}

pub(crate) struct Http {
    agent: ureq::Agent,
    settings: HttpSettings,
}

/// The URL of `path` under `base_url` (a trailing slash of the base ignored).
pub(crate) fn endpoint(base_url: &str, path: &str) -> String {
    format!("{}/{path}", base_url.trim_end_matches('/'))
}

/// The `authorization: Bearer` header of an OpenAI-compatible request, when there is a
/// key.
pub(crate) fn bearer(key: Option<&ApiKey>) -> Vec<(&'static str, String)> {
    key.map(|k| ("authorization", format!("Bearer {}", k.expose())))
        .into_iter()
        .collect()
}

/// Excerpt length for server text kept in errors.
const EXCERPT: usize = 300;

pub(crate) fn excerpt(s: &str) -> String {
    let mut out: String = s.chars().take(EXCERPT).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

impl Http {
    pub(crate) fn new(settings: HttpSettings) -> Http {
        let config = ureq::Agent::config_builder()
            .timeout_connect(Some(settings.connect_timeout))
            .timeout_send_request(Some(settings.read_timeout))
            .timeout_send_body(Some(settings.read_timeout))
            .timeout_recv_response(Some(settings.read_timeout))
            .timeout_recv_body(Some(settings.read_timeout))
            .http_status_as_error(false)
            .user_agent(concat!("vera-llm/", env!("CARGO_PKG_VERSION")))
            .build();
        Http {
            agent: config.into(),
            settings,
        }
    }

    /// GETs a URL and returns the parsed JSON answer of a 2xx response.
    pub(crate) fn get_json(&self, url: &str, key: Option<&ApiKey>) -> Result<serde_json::Value> {
        let resp = self
            .agent
            .get(url)
            .call()
            .map_err(|e| transport(url, e, key))?;
        self.json_answer(url, resp, key)
    }

    /// POSTs a JSON body and returns the parsed JSON answer of a 2xx response; every
    /// other outcome is a typed error with the key redacted from any server text.
    pub(crate) fn post_json(
        &self,
        url: &str,
        headers: &[(&str, String)],
        body: &serde_json::Value,
        key: Option<&ApiKey>,
    ) -> Result<serde_json::Value> {
        let resp = self.send(url, headers, body, key)?;
        self.json_answer(url, resp, key)
    }

    /// POSTs a JSON body that asks for a server-sent event stream and hands the `data`
    /// of each event to `on_event` as it arrives, until the server sends `[DONE]` or
    /// closes the stream, or `on_event` answers `true` (stop now: the connection is
    /// dropped, which makes a server such as llama.cpp's stop generating). A server that
    /// answers with one JSON body instead of a stream gets it read as [`Http::post_json`]
    /// would. The byte limit applies to the whole stream.
    pub(crate) fn post_stream(
        &self,
        url: &str,
        headers: &[(&str, String)],
        body: &serde_json::Value,
        key: Option<&ApiKey>,
        mut on_event: impl FnMut(&str) -> Result<bool>,
    ) -> Result<Streamed> {
        use std::io::BufRead;
        let mut resp = self.send(url, headers, body, key)?;
        let streaming = (200..300).contains(&resp.status().as_u16())
            && resp
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.trim_start().starts_with("text/event-stream"));
        if !streaming {
            return self.json_answer(url, resp, key).map(Streamed::Json);
        }
        let limit = self.settings.max_response_bytes;
        let reader = resp.body_mut().with_config().limit(limit as u64).reader();
        let mut lines = std::io::BufReader::new(reader);
        let mut line = String::new();
        loop {
            line.clear();
            match lines.read_line(&mut line) {
                Ok(0) => return Ok(Streamed::Events { stopped: false }),
                Ok(_) => {}
                Err(e) => {
                    return Err(match e.into_inner().map(|i| i.downcast::<ureq::Error>()) {
                        Some(Ok(u)) if matches!(*u, ureq::Error::BodyExceedsLimit(_)) => {
                            LlmError::Oversized {
                                bytes: limit + 1,
                                limit,
                            }
                        }
                        Some(Ok(u)) => transport(url, *u, key),
                        _ => LlmError::Transport {
                            url: url.to_string(),
                            message: "the event stream broke off".into(),
                        },
                    })
                }
            }
            let Some(data) = line.trim_end().strip_prefix("data:") else {
                continue; // comments, `event:`, `id:`, blank separators
            };
            let data = data.trim();
            if data == "[DONE]" {
                return Ok(Streamed::Events { stopped: false });
            }
            if on_event(&redact(key, data))? {
                return Ok(Streamed::Events { stopped: true });
            }
        }
    }

    fn send(
        &self,
        url: &str,
        headers: &[(&str, String)],
        body: &serde_json::Value,
        key: Option<&ApiKey>,
    ) -> Result<ureq::http::Response<ureq::Body>> {
        let mut req = self
            .agent
            .post(url)
            .header("content-type", "application/json");
        for (name, value) in headers {
            req = req.header(*name, value.as_str());
        }
        let text = serde_json::to_string(body).expect("a JSON value serializes");
        req.send(text).map_err(|e| transport(url, e, key))
    }

    /// Reads a whole response: its JSON for a 2xx status, a typed error otherwise.
    fn json_answer(
        &self,
        url: &str,
        mut resp: ureq::http::Response<ureq::Body>,
        key: Option<&ApiKey>,
    ) -> Result<serde_json::Value> {
        let status = resp.status().as_u16();
        let retry_after = resp
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| parse_retry_after(v, SystemTime::now()));
        let limit = self.settings.max_response_bytes;
        let body = match resp
            .body_mut()
            .with_config()
            .limit(limit as u64)
            .read_to_string()
        {
            Ok(b) => b,
            Err(ureq::Error::BodyExceedsLimit(_)) => {
                return Err(LlmError::Oversized {
                    bytes: limit + 1,
                    limit,
                })
            }
            Err(e) => return Err(transport(url, e, key)),
        };
        let body = redact(key, &body);
        if (200..300).contains(&status) {
            return serde_json::from_str(&body)
                .map_err(|e| LlmError::bad_response(format!("not JSON: {e}"), &body));
        }
        let message = error_message(&body);
        Err(match status {
            429 => LlmError::RateLimited {
                retry_after,
                message,
            },
            408 | 409 | 500..=599 => LlmError::Server {
                status,
                retry_after,
                message,
            },
            _ => LlmError::Http { status, message },
        })
    }
}

/// The human part of an error body: `error.message` (OpenAI, Anthropic, llama.cpp) or
/// an excerpt of the body.
fn error_message(body: &str) -> String {
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(body) {
        let m = v
            .pointer("/error/message")
            .or_else(|| v.pointer("/message"))
            .or_else(|| v.pointer("/error"))
            .and_then(|m| m.as_str());
        if let Some(m) = m {
            return excerpt(m);
        }
    }
    if body.trim().is_empty() {
        "(empty body)".into()
    } else {
        excerpt(body.trim())
    }
}

fn transport(url: &str, e: ureq::Error, key: Option<&ApiKey>) -> LlmError {
    let message = redact(key, &e.to_string());
    let url = url.to_string();
    match e {
        ureq::Error::Timeout(_) => LlmError::Timeout { url, message },
        ureq::Error::Io(ref io)
            if matches!(
                io.kind(),
                std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
            ) =>
        {
            LlmError::Timeout { url, message }
        }
        ureq::Error::BadUri(_) | ureq::Error::Http(_) | ureq::Error::InvalidProxyUrl => {
            LlmError::Config(format!("cannot request {url}: {message}"))
        }
        _ => LlmError::Transport { url, message },
    }
}

/// Parses a `Retry-After` value: delay seconds (integer or decimal) or an HTTP date.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let v = value.trim();
    if let Ok(secs) = v.parse::<f64>() {
        if secs.is_finite() && secs >= 0.0 {
            return Some(Duration::from_secs_f64(secs.min(86_400.0)));
        }
        return None;
    }
    let at = parse_http_date(v)?;
    let now = now.duration_since(UNIX_EPOCH).ok()?.as_secs();
    Some(Duration::from_secs(at.saturating_sub(now)))
}

/// Parses an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) to Unix seconds.
fn parse_http_date(v: &str) -> Option<u64> {
    let rest = v.split_once(", ").map(|(_, r)| r).unwrap_or(v);
    let parts: Vec<&str> = rest.split_whitespace().collect();
    if parts.len() != 5 || parts[4] != "GMT" {
        return None;
    }
    let day: u64 = parts[0].parse().ok()?;
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|m| *m == parts[1])? as u64 + 1;
    let year: i64 = parts[2].parse().ok()?;
    let hms: Vec<u64> = parts[3]
        .split(':')
        .map(|x| x.parse().ok())
        .collect::<Option<Vec<u64>>>()?;
    if hms.len() != 3 || day == 0 || day > 31 {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = (y - era * 400) as u64;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe as i64 - 719_468;
    if days < 0 {
        return None;
    }
    Some(days as u64 * 86_400 + hms[0] * 3600 + hms[1] * 60 + hms[2])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_seconds_and_dates() {
        let now = UNIX_EPOCH + Duration::from_secs(784_111_770);
        assert_eq!(parse_retry_after("2", now), Some(Duration::from_secs(2)));
        assert_eq!(
            parse_retry_after(" 0.5 ", now),
            Some(Duration::from_millis(500))
        );
        assert_eq!(parse_retry_after("-1", now), None);
        // 784111777 is Sun, 06 Nov 1994 08:49:37 GMT.
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now),
            Some(Duration::from_secs(7))
        );
        assert_eq!(parse_retry_after("soon", now), None);
    }

    #[test]
    fn error_messages() {
        assert_eq!(
            error_message(r#"{"error":{"message":"bad key"}}"#),
            "bad key"
        );
        assert_eq!(error_message(""), "(empty body)");
        assert_eq!(error_message("<html>oops"), "<html>oops");
    }
}
