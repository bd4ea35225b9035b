//! The live tests' way to the local model (`scripts/local-llm start`): its URL, whether
//! it answers, and the rule that a missing server skips a test unless
//! `VERA_LLM_LIVE=require` (CI) makes it a failure.

use std::time::Duration;

/// The local server's base URL (`VERA_LOCAL_LLM_URL`, default llama.cpp's on 8080).
pub fn base_url() -> String {
    std::env::var("VERA_LOCAL_LLM_URL").unwrap_or_else(|_| llm::config::LOCAL_BASE_URL.to_string())
}

/// `GET /health` answers 200 (plain HTTP over a socket: no HTTP client needed here).
pub fn server_up(base: &str) -> bool {
    use std::io::{Read, Write};
    let Some(rest) = base.strip_prefix("http://") else {
        return false;
    };
    let host = rest.split('/').next().unwrap_or("");
    let Ok(mut addrs) = std::net::ToSocketAddrs::to_socket_addrs(host) else {
        return false;
    };
    let Some(addr) = addrs.next() else {
        return false;
    };
    let Ok(mut s) = std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(3)) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(3)));
    if s.write_all(format!("GET /health HTTP/1.0\r\nHost: {host}\r\n\r\n").as_bytes())
        .is_err()
    {
        return false;
    }
    let mut head = [0u8; 12];
    s.read_exact(&mut head).is_ok() && head.ends_with(b" 200")
}

/// The base URL when the server answers; `None` (after a note) when it does not and
/// live tests are not required; a panic when they are.
pub fn server_or_skip() -> Option<String> {
    let base = base_url();
    if server_up(&base) {
        return Some(base);
    }
    if std::env::var("VERA_LLM_LIVE").as_deref() == Ok("require") {
        panic!("VERA_LLM_LIVE=require but no local LLM server answers at {base}");
    }
    eprintln!("note: no local LLM server at {base}; start one with scripts/local-llm start");
    None
}

/// A client of the local server without cache, grammar as given.
pub fn client(base: &str, grammar: bool) -> llm::Client {
    let mut cfg = llm::LlmConfig::local();
    cfg.base_url = Some(base.to_string());
    cfg.grammar = grammar;
    cfg.cache = None;
    cfg.cache_mode = llm::CacheMode::Off;
    cfg.client().expect("the local configuration builds")
}
