//! `vera formalize` against a local HTTP server that plays the model: forms by default,
//! a run that never loses what it found (a server that goes away, a request it refuses),
//! and conversations kept within the context window the server reports.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One HTTP exchange as the test server saw it.
struct Seen {
    method: String,
    path: String,
    body: String,
}

/// What the test server answers: status and body.
type Answer = Box<dyn Fn(&Seen, usize) -> Option<(u16, String)> + Send>;

/// Serves until `answer` returns `None` (then the listener closes and every later
/// connection is refused). Returns the port and every request's body.
fn server(answer: Answer) -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let log = Arc::new(Mutex::new(Vec::new()));
    let l2 = log.clone();
    let n = AtomicUsize::new(0);
    std::thread::spawn(move || {
        for sock in listener.incoming() {
            let Ok(mut sock) = sock else { continue };
            let mut reader = BufReader::new(sock.try_clone().unwrap());
            let mut first = String::new();
            if reader.read_line(&mut first).unwrap_or(0) == 0 {
                continue;
            }
            let mut parts = first.split_whitespace();
            let method = parts.next().unwrap_or("").to_string();
            let path = parts.next().unwrap_or("").to_string();
            let mut len = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap();
                }
            }
            let mut body = vec![0; len];
            if reader.read_exact(&mut body).is_err() {
                continue;
            }
            let seen = Seen {
                method,
                path,
                body: String::from_utf8_lossy(&body).into_owned(),
            };
            if seen.method == "POST" {
                l2.lock().unwrap().push(seen.body.clone());
            }
            let k = n.fetch_add(1, Ordering::SeqCst);
            let Some((status, reply)) = answer(&seen, k) else {
                // Gone: this connection is dropped and the listener closes.
                return;
            };
            let _ = write!(
                sock,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reply}",
                reply.len()
            );
        }
    });
    (port, log)
}

/// A chat completion whose message is `content`.
fn chat(content: &str) -> String {
    serde_json::json!({
        "id": "x", "object": "chat.completion", "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70}
    })
    .to_string()
}

fn vera(port: u16, args: &[&str]) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vera"));
    for (k, _) in std::env::vars() {
        if k.starts_with("VERA_LLM_") {
            cmd.env_remove(k);
        }
    }
    let out = cmd
        .env("VERA_LLM_PROVIDER", "local")
        .env("VERA_LLM_BASE_URL", format!("http://127.0.0.1:{port}/v1"))
        .env("VERA_LLM_MAX_RETRIES", "0")
        .env("VERA_LLM_STREAM", "false")
        .args(args)
        // These tests are about the model's path: controlled English is not read.
        .args([
            "--llm-config",
            "/nonexistent/vera.toml",
            "--no-cache",
            "--no-parse",
        ])
        .current_dir(root())
        .output()
        .expect("vera runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const SPEC: &str = r#"[spec]
name = "pump"

[[variables]]
name = "door_open"
sort = "Bool"
description = "the cassette door is open"
role = "input"

[[variables]]
name = "occlusion"
sort = "Bool"
description = "an occlusion is detected"
role = "input"

[[variables]]
name = "pump_on"
sort = "Bool"
description = "the pump runs"
role = "output"

[[variables]]
name = "alarm"
sort = "Bool"
description = "the alarm sounds"
role = "output"

[[requirements]]
id = "A"
text = "If the cassette door is open, the pump shall not run."

[[requirements]]
id = "B"
text = "When an occlusion is detected, the alarm shall sound."
"#;

const FORM_A: &str = r#"{"if": {"name": "door_open", "op": "is", "value": true}, "then": {"name": "pump_on", "op": "is", "value": false}}"#;
const FORM_B: &str = r#"{"if": {"name": "occlusion", "op": "is", "value": true}, "then": {"name": "alarm", "op": "is", "value": true}}"#;

fn spec_file(dir: &Path) -> String {
    let p = dir.join("pump.toml");
    std::fs::write(&p, SPEC).unwrap();
    p.display().to_string()
}

/// The form for whichever requirement the request is about.
fn form_for(body: &str) -> &'static str {
    if body.contains("Requirement: If the cassette door") {
        FORM_A
    } else {
        FORM_B
    }
}

#[test]
fn forms_are_the_default_and_the_output_says_the_path_and_agreement() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec_file(dir.path());
    let (port, log) = server(Box::new(|s, _| Some((200, chat(form_for(&s.body))))));
    let out = dir.path().join("out.toml").display().to_string();
    let (code, stdout, stderr) = vera(port, &["formalize", &spec, "-o", &out]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stdout.contains("ok A [form, 3 of 3 agree]  (=> door_open (not pump_on))"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "formulas by path: 0 parsed without a model, 2 by voted forms, 0 by SMT-LIB fallback"
        ),
        "{stdout}"
    );
    // Every request carried the form's JSON schema.
    for body in log.lock().unwrap().iter() {
        assert!(body.contains("\"json_schema\""), "{body}");
        assert!(body.contains("requirement_form"), "{body}");
    }
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.contains("path=form agreement=3/3 of 3 drawn"),
        "{text}"
    );
    let s = reqs::load(Path::new(&out)).unwrap();
    assert_eq!(s.formalized().count(), 2);
}

#[test]
fn a_server_that_goes_away_leaves_what_was_found_written() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec_file(dir.path());
    // The first chat request is answered; then the server is gone.
    let (port, _) = server(Box::new(|s, _| {
        if s.method == "GET" {
            return Some((404, "{}".into()));
        }
        static SERVED: AtomicUsize = AtomicUsize::new(0);
        if SERVED.fetch_add(1, Ordering::SeqCst) == 0 {
            Some((200, chat(form_for(&s.body))))
        } else {
            None
        }
    }));
    let out = dir.path().join("out.toml").display().to_string();
    let (code, stdout, stderr) = vera(port, &["formalize", &spec, "-o", &out, "--forms", "1"]);
    assert_eq!(code, 2, "a provider failure is exit 2\n{stdout}\n{stderr}");
    assert!(stderr.contains("stopped asking the model"), "{stderr}");
    assert!(stderr.contains("run the same command again"), "{stderr}");
    // What was formalized before is written.
    let text = std::fs::read_to_string(&out).expect("the output is written");
    let s = reqs::load(Path::new(&out)).unwrap();
    let a = s.requirements.iter().find(|r| r.id == "A").unwrap();
    assert!(a.formula.is_some(), "{text}");
    let b = s.requirements.iter().find(|r| r.id == "B").unwrap();
    assert!(b.formula.is_none());
    assert!(
        text.contains("# NOT FORMALIZED: the provider failed"),
        "{text}"
    );
}

#[test]
fn a_request_the_server_refuses_fails_alone() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec_file(dir.path());
    let (port, _) = server(Box::new(|s, _| {
        if s.method == "GET" {
            return Some((404, "{}".into()));
        }
        if s.body.contains("occlusion is detected, the alarm") {
            Some((
                400,
                r#"{"error": {"code": 400, "message": "request (4137 tokens) exceeds the available context size (4096 tokens)", "type": "exceed_context_size_error"}}"#.into(),
            ))
        } else {
            Some((200, chat(form_for(&s.body))))
        }
    }));
    let out = dir.path().join("out.toml").display().to_string();
    let (code, stdout, stderr) = vera(port, &["formalize", &spec, "-o", &out, "--format", "json"]);
    assert_eq!(code, 1, "one requirement failed\n{stdout}\n{stderr}");
    let j: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let r = &j["report"];
    assert_eq!(r["failed"], serde_json::json!(["B"]));
    assert!(r.get("halted").is_none(), "{r}");
    let b = r["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["id"] == "B")
        .unwrap();
    let err = b["attempts"][0]["error"].as_str().unwrap();
    assert!(
        err.contains("refused this request") && err.contains("context size"),
        "{err}"
    );
    let s = reqs::load(Path::new(&out)).unwrap();
    assert!(s
        .requirements
        .iter()
        .find(|x| x.id == "A")
        .unwrap()
        .formula
        .is_some());
}

#[test]
fn repair_turns_stay_within_the_context_window_the_server_reports() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec_file(dir.path());
    // A small context: the prompt fits, a prompt with several long rejected answers
    // does not. Every SMT-LIB answer is long prose, so every turn is a repair.
    let prose = format!("The pump {}", "stops when the door is open ".repeat(40));
    let make = |ctx: Option<u32>| -> Answer {
        let prose = prose.clone();
        Box::new(move |s, k| {
            if s.method == "GET" {
                return Some(match (s.path.as_str(), ctx) {
                    ("/props", Some(n)) => (
                        200,
                        format!(
                            r#"{{"default_generation_settings": {{"n_ctx": {n}}}, "total_slots": 1}}"#
                        ),
                    ),
                    _ => (404, "{}".into()),
                });
            }
            // A different answer each time, so the repetition rule does not end the
            // turns early.
            Some((200, chat(&format!("{prose} (take {k})"))))
        })
    };
    let messages_per_request = |log: &Arc<Mutex<Vec<String>>>| -> Vec<usize> {
        log.lock()
            .unwrap()
            .iter()
            .map(|b| {
                let v: serde_json::Value = serde_json::from_str(b).unwrap();
                v["messages"].as_array().unwrap().len()
            })
            .collect()
    };
    let args = |out: &str| {
        vec![
            "formalize".to_string(),
            spec.clone(),
            "-o".into(),
            out.to_string(),
            "--smtlib".into(),
            "--only".into(),
            "A".into(),
            "--retries".into(),
            "4".into(),
            "--no-decompose".into(),
        ]
    };
    // Without a known window the conversation grows by two messages a turn.
    let (port, log) = server(make(None));
    let out1 = dir.path().join("o1.toml").display().to_string();
    let a: Vec<String> = args(&out1);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let (code, _, stderr) = vera(port, &a);
    assert_eq!(code, 1, "{stderr}");
    let grown = messages_per_request(&log);
    assert_eq!(grown.iter().max(), Some(&9), "{grown:?}");
    // With the server's window, the middle turns go: never more than the prompt and the
    // latest exchange.
    let (port, log) = server(make(Some(1200)));
    let out2 = dir.path().join("o2.toml").display().to_string();
    let a: Vec<String> = args(&out2);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let (code, _, stderr) = vera(port, &a);
    assert_eq!(code, 1, "{stderr}");
    let kept = messages_per_request(&log);
    assert_eq!(kept.len(), grown.len(), "{kept:?}");
    assert!(kept.iter().all(|n| *n <= 3), "{kept:?}");
    assert!(kept.contains(&3), "{kept:?}");
}

#[test]
fn a_batch_run_keeps_what_it_found_when_the_server_goes_away() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec_file(dir.path());
    // The first answer holds a good formula for A and an unusable one for B; the server
    // is gone when vera asks again about B.
    let (port, _) = server(Box::new(|s, _| {
        if s.method == "GET" {
            return Some((404, "{}".into()));
        }
        static SERVED: AtomicUsize = AtomicUsize::new(0);
        if SERVED.fetch_add(1, Ordering::SeqCst) == 0 {
            Some((
                200,
                chat(r#"{"A": "(=> door_open (not pump_on))", "B": "(=> occlusion"}"#),
            ))
        } else {
            None
        }
    }));
    let out = dir.path().join("out.toml").display().to_string();
    let (code, stdout, stderr) = vera(
        port,
        &["formalize", &spec, "-o", &out, "--batch", "--retries", "1"],
    );
    assert_eq!(code, 2, "a provider failure is exit 2\n{stdout}\n{stderr}");
    assert!(stderr.contains("stopped asking the model"), "{stderr}");
    let text = std::fs::read_to_string(&out).expect("the output is written");
    let s = reqs::load(Path::new(&out)).unwrap();
    let a = s.requirements.iter().find(|r| r.id == "A").unwrap();
    assert!(a.formula.is_some(), "{text}");
    let b = s.requirements.iter().find(|r| r.id == "B").unwrap();
    assert!(b.formula.is_none(), "{text}");
    assert!(
        text.contains("# NOT FORMALIZED: the provider failed"),
        "{text}"
    );
}
