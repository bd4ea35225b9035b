//! API keys never appear in any file the LLM layer writes (cache database with its WAL
//! and shared-memory files, cassettes, serialized accounting) nor in errors, even when a
//! server echoes the key back.

mod support;

use std::path::Path;

use llm::{LlmConfig, Request};
use support::{anthropic_body, openai_body, Reply, Server};

const VAR: &str = "VERA_LLM_TEST_SECRET_KEY";
const KEY: &str = "sk-fake-7f3a9c1e5b2d4680aaaa";

fn grep_dir(dir: &Path, needle: &[u8]) -> Vec<String> {
    let mut hits = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            hits.extend(grep_dir(&p, needle));
        } else {
            let bytes = std::fs::read(&p).unwrap();
            if bytes.windows(needle.len()).any(|w| w == needle) {
                hits.push(p.display().to_string());
            }
        }
    }
    hits
}

#[test]
fn keys_never_reach_files_or_errors() {
    std::env::set_var(VAR, KEY);
    // The server puts whatever key it received into answers and error messages.
    let server = Server::start(|req, n| {
        let key = req
            .header("authorization")
            .or(req.header("x-api-key"))
            .unwrap_or("")
            .to_string();
        let anthropic = req.path.ends_with("/messages");
        match n % 3 {
            0 if anthropic => Reply::json(
                200,
                anthropic_body(&format!("you sent {key}"), "end_turn", 1, 1),
            ),
            0 => Reply::json(200, openai_body(&format!("you sent {key}"), "stop", 1, 1)),
            1 => Reply::json(
                401,
                format!("{{\"error\":{{\"message\":\"bad key {key}\"}}}}"),
            ),
            _ => Reply::json(200, format!("garbage {key}")),
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let mut shown = String::new();
    for provider in ["openai", "anthropic"] {
        let toml = format!(
            "[llm]\nprovider = \"{provider}\"\nbase_url = \"{}\"\nmodel = \"m\"\napi_key_env = \"{VAR}\"\n\
             max_retries = 0\ncache = \"{}\"\nrecord = \"{}\"\n",
            server.url(),
            dir.path().join("cache/llm.sqlite").display(),
            dir.path().join(format!("{provider}.jsonl")).display()
        );
        let cfg = LlmConfig::from_toml(&toml).unwrap();
        shown.push_str(&format!("{cfg:?}"));
        let client = cfg.client().unwrap();
        let reqs: Vec<Request> = (0..6)
            .map(|i| Request::new().user(format!("q{i}")))
            .collect();
        for r in client.run_all("s", &reqs) {
            match r {
                Ok(c) => shown.push_str(&format!("{c:?}")),
                Err(e) => shown.push_str(&format!("{e} {e:?}")),
            }
        }
        shown.push_str(&serde_json::to_string(&client.accounting()).unwrap());
        shown.push_str(&format!("{:?}", cfg.provider().map(|_| ())));
        // Keep the cache open while grepping too (WAL and shm files present).
        assert!(grep_dir(dir.path(), KEY.as_bytes()).is_empty());
    }
    assert!(
        server
            .requests()
            .iter()
            .any(|r| r.headers.iter().any(|(_, v)| v.contains(KEY))),
        "the key was sent"
    );
    assert!(shown.contains("***"), "the server's echo was redacted");
    assert!(!shown.contains(KEY), "{shown}");
    let files = grep_dir(dir.path(), KEY.as_bytes());
    assert!(files.is_empty(), "the key leaked into {files:?}");
    let written: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(
        written.len() >= 3,
        "cache dir and two cassettes were written"
    );
    std::env::remove_var(VAR);
}
