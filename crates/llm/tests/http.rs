//! The HTTP providers end to end against a real HTTP server on 127.0.0.1 speaking the
//! OpenAI and Anthropic wire formats.

mod support;

use std::time::{Duration, Instant};

use llm::{
    Anthropic, ApiKey, Client, HttpSettings, LlmError, OpenAi, Provider, Request, RetryPolicy,
    Source,
};
use serde_json::json;
use support::{anthropic_body, openai_body, Reply, Server};

const KEY: &str = "sk-test-0123456789abcdef";

fn settings(read_ms: u64) -> HttpSettings {
    HttpSettings {
        connect_timeout: Duration::from_secs(2),
        read_timeout: Duration::from_millis(read_ms),
        max_response_bytes: 1 << 20,
    }
}

fn openai(server: &Server) -> OpenAi {
    OpenAi::new(
        "openai",
        &server.url(),
        "test-model",
        Some(ApiKey::new(KEY)),
        settings(5000),
    )
}

fn anthropic(server: &Server) -> Anthropic {
    Anthropic::new(
        "anthropic",
        &server.url(),
        "test-model",
        Some(ApiKey::new(KEY)),
        settings(5000),
    )
}

fn fast_retries(n: u32) -> RetryPolicy {
    RetryPolicy {
        max_retries: n,
        base: Duration::from_millis(10),
        max: Duration::from_secs(5),
    }
}

fn client(p: impl Provider + 'static, retries: u32) -> Client {
    Client::builder(p).retry(fast_retries(retries)).build()
}

fn request() -> Request {
    Request::new()
        .system("Be brief.")
        .user("Say hi.")
        .temperature(0.0)
        .max_tokens(16)
}

#[test]
fn openai_success_and_wire_format() {
    let server = Server::start(|_, _| Reply::json(200, openai_body("hi", "stop", 12, 3)));
    let c = client(openai(&server), 0);
    let req = request().stop("\n\n").seed(7);
    let out = c.complete("t", &req).unwrap();
    assert_eq!(out.text(), "hi");
    assert_eq!(out.source, Source::Provider);
    assert_eq!(
        (
            out.response.usage.input_tokens,
            out.response.usage.output_tokens
        ),
        (12, 3)
    );
    let got = &server.requests()[0];
    assert_eq!(got.method, "POST");
    assert_eq!(got.path, "/v1/chat/completions");
    assert_eq!(
        got.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    let body = got.json();
    assert_eq!(body["model"], "test-model");
    assert_eq!(
        body["messages"],
        json!([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hi."}])
    );
    assert_eq!(body["temperature"], 0.0);
    assert_eq!(body["max_tokens"], 16);
    assert_eq!(body["stop"], json!(["\n\n"]));
    assert_eq!(body["seed"], 7);
    assert!(body.get("response_format").is_none());
    let acc = c.accounting();
    assert_eq!(
        (
            acc.total.calls,
            acc.total.input_tokens,
            acc.total.output_tokens
        ),
        (1, 12, 3)
    );
}

#[test]
fn openai_structured_output() {
    let schema = json!({"type": "object", "properties": {"formula": {"type": "string"}}, "required": ["formula"]});
    let server = Server::start(|_, n| {
        let text = if n == 0 {
            r#"{"formula": "(> t 38)"}"#
        } else {
            r#"{"formel": 1}"#
        };
        Reply::json(200, openai_body(text, "stop", 1, 1))
    });
    let c = client(openai(&server), 0);
    let req = request().schema("formalization", schema.clone());
    let out = c.complete("t", &req).unwrap();
    assert_eq!(out.json, Some(json!({"formula": "(> t 38)"})));
    let body = server.requests()[0].json();
    assert_eq!(body["response_format"]["type"], "json_schema");
    assert_eq!(
        body["response_format"]["json_schema"]["name"],
        "formalization"
    );
    assert_eq!(body["response_format"]["json_schema"]["schema"], schema);
    // The second answer does not follow the schema: a typed answer problem.
    let err = c.complete("t", &req.clone().sample(1)).unwrap_err();
    assert!(matches!(err, LlmError::Malformed { .. }), "{err}");
    assert!(err.is_answer_problem());
    assert!(err.feedback().unwrap().contains("formula"));
}

#[test]
fn a_grammar_is_sent_only_to_a_provider_that_accepts_it() {
    let g = "root ::= \"(> t \" [0-9]+ \")\"";
    let server = Server::start(|_, _| Reply::json(200, openai_body("(> t 5)", "stop", 3, 4)));
    // llama.cpp's server (grammar = true): the grammar is the top-level `grammar` field,
    // and it is part of the key.
    let with = client(openai(&server).with_grammar(true), 0);
    assert!(with.accepts_grammar());
    with.complete("t", &request().grammar(g)).unwrap();
    let body = server.requests()[0].json();
    assert_eq!(body["grammar"], g);
    assert_ne!(with.key(&request().grammar(g)), with.key(&request()));
    // Any other OpenAI-compatible endpoint: never sent, and the key is that of the
    // request without a grammar (so recordings made without grammars still match).
    let without = client(openai(&server), 0);
    assert!(!without.accepts_grammar());
    without.complete("t", &request().grammar(g)).unwrap();
    let body = server.requests()[1].json();
    assert!(body.get("grammar").is_none(), "{body}");
    assert_eq!(without.key(&request().grammar(g)), without.key(&request()));
    // A request without a grammar has the same key whatever the provider accepts.
    assert_eq!(with.key(&request()), without.key(&request()));
}

#[test]
fn anthropic_never_receives_a_grammar() {
    let server = Server::start(|_, _| Reply::json(200, anthropic_body("hi", "end_turn", 9, 2)));
    let c = client(anthropic(&server), 0);
    assert!(!c.accepts_grammar());
    c.complete("t", &request().grammar("root ::= \"hi\""))
        .unwrap();
    let body = server.requests()[0].json();
    assert!(body.get("grammar").is_none(), "{body}");
    assert!(!body.to_string().contains("root ::="), "{body}");
}

#[test]
fn anthropic_success_and_wire_format() {
    let server = Server::start(|_, _| Reply::json(200, anthropic_body("hi", "end_turn", 9, 2)));
    let c = client(anthropic(&server), 0);
    let out = c.complete("t", &request().stop("END")).unwrap();
    assert_eq!(out.text(), "hi");
    assert_eq!(
        (
            out.response.usage.input_tokens,
            out.response.usage.output_tokens
        ),
        (9, 2)
    );
    let got = &server.requests()[0];
    assert_eq!(got.path, "/v1/messages");
    assert_eq!(got.header("x-api-key"), Some(KEY));
    assert_eq!(
        got.header("anthropic-version"),
        Some(llm::anthropic::ANTHROPIC_VERSION)
    );
    assert_eq!(got.header("authorization"), None);
    let body = got.json();
    assert_eq!(body["system"], "Be brief.");
    assert_eq!(
        body["messages"],
        json!([{"role": "user", "content": "Say hi."}])
    );
    assert_eq!(body["max_tokens"], 16);
    assert_eq!(body["stop_sequences"], json!(["END"]));
}

#[test]
fn anthropic_structured_output_via_tool_use() {
    let server = Server::start(|_, _| {
        Reply::json(
            200,
            json!({
                "content": [{"type": "tool_use", "id": "t1", "name": "answer", "input": {"formula": "(< x 1)"}}],
                "stop_reason": "tool_use",
                "usage": {"input_tokens": 5, "output_tokens": 6}
            })
            .to_string(),
        )
    });
    let c = client(anthropic(&server), 0);
    let schema = json!({"type": "object", "properties": {"formula": {"type": "string"}}, "required": ["formula"]});
    let out = c
        .complete("t", &request().schema("answer", schema.clone()))
        .unwrap();
    assert_eq!(out.json, Some(json!({"formula": "(< x 1)"})));
    let body = server.requests()[0].json();
    assert_eq!(body["tools"][0]["name"], "answer");
    assert_eq!(body["tools"][0]["input_schema"], schema);
    assert_eq!(
        body["tool_choice"],
        json!({"type": "tool", "name": "answer"})
    );
}

#[test]
fn rate_limit_with_retry_after_is_honoured() {
    for anthropic_wire in [false, true] {
        let server = Server::start(move |_, n| {
            if n == 0 {
                Reply::json(429, r#"{"error":{"message":"slow down"}}"#).header("Retry-After", "1")
            } else if anthropic_wire {
                Reply::json(200, anthropic_body("ok", "end_turn", 1, 1))
            } else {
                Reply::json(200, openai_body("ok", "stop", 1, 1))
            }
        });
        let c = if anthropic_wire {
            client(anthropic(&server), 3)
        } else {
            client(openai(&server), 3)
        };
        let t0 = Instant::now();
        let out = c.complete("t", &request()).unwrap();
        let waited = t0.elapsed();
        assert_eq!(out.text(), "ok");
        assert_eq!(out.retries, 1);
        assert!(waited >= Duration::from_secs(1), "waited only {waited:?}");
        assert!(waited < Duration::from_secs(3), "waited {waited:?}");
        assert_eq!(server.hits(), 2);
        assert_eq!(c.accounting().total.retries, 1);
    }
}

#[test]
fn server_error_then_success() {
    let server = Server::start(|_, n| {
        if n < 2 {
            Reply::json(
                if n == 0 { 500 } else { 503 },
                r#"{"error":{"message":"overloaded"}}"#,
            )
        } else {
            Reply::json(200, openai_body("ok", "stop", 1, 1))
        }
    });
    let c = client(openai(&server), 3);
    let out = c.complete("t", &request()).unwrap();
    assert_eq!((out.text(), out.retries), ("ok", 2));
    assert_eq!(server.hits(), 3);
}

#[test]
fn persistent_server_error_gives_up_after_max_retries() {
    let server = Server::start(|_, _| Reply::json(500, "<html>boom</html>"));
    let c = client(openai(&server), 2);
    let err = c.complete("t", &request()).unwrap_err();
    match &err {
        LlmError::Server {
            status: 500,
            message,
            ..
        } => assert!(message.contains("boom")),
        other => panic!("{other}"),
    }
    assert_eq!(server.hits(), 3);
    let acc = c.accounting();
    assert_eq!((acc.total.retries, acc.total.errors), (2, 1));
}

#[test]
fn slow_response_beyond_read_timeout() {
    let server = Server::start(|_, _| {
        Reply::json(200, openai_body("late", "stop", 1, 1)).delay(Duration::from_millis(1500))
    });
    let p = OpenAi::new("openai", &server.url(), "m", None, settings(300));
    let c = client(p, 1);
    let t0 = Instant::now();
    let err = c.complete("t", &request()).unwrap_err();
    assert!(matches!(err, LlmError::Timeout { .. }), "{err}");
    assert!(err.is_retryable());
    assert!(
        t0.elapsed() < Duration::from_millis(1400),
        "{:?}",
        t0.elapsed()
    );
    assert_eq!(server.hits(), 2, "a timeout is retried");
}

#[test]
fn malformed_json_is_a_typed_error_and_not_retried() {
    let server = Server::start(|req, _| {
        if req.path.ends_with("/messages") {
            Reply::json(200, r#"{"id": "msg", "content": "not a list"}"#)
        } else {
            Reply::json(200, "{\"choices\": [ {\"message\": ")
        }
    });
    let err = client(openai(&server), 3)
        .complete("t", &request())
        .unwrap_err();
    assert!(matches!(err, LlmError::BadResponse { .. }), "{err}");
    assert_eq!(server.hits(), 1);
    let err = client(anthropic(&server), 3)
        .complete("t", &request())
        .unwrap_err();
    assert!(matches!(err, LlmError::BadResponse { .. }), "{err}");
    let server = Server::start(|_, _| Reply::json(200, r#"{"choices": []}"#));
    let err = client(openai(&server), 0)
        .complete("t", &request())
        .unwrap_err();
    assert!(err.to_string().contains("empty `choices`"), "{err}");
}

#[test]
fn truncated_answers() {
    let server = Server::start(|req, _| {
        if req.path.ends_with("/messages") {
            Reply::json(200, anthropic_body("(and (> x", "max_tokens", 4, 16))
        } else {
            Reply::json(200, openai_body("(and (> x", "length", 4, 16))
        }
    });
    for c in [client(openai(&server), 0), client(anthropic(&server), 0)] {
        match c.complete("t", &request()).unwrap_err() {
            LlmError::Truncated {
                partial,
                output_tokens,
            } => {
                assert_eq!(partial, "(and (> x");
                assert_eq!(output_tokens, 16);
            }
            other => panic!("{other}"),
        }
        // Tokens were still paid for.
        let acc = c.accounting();
        assert_eq!((acc.total.output_tokens, acc.total.answer_errors), (16, 1));
    }
}

#[test]
fn empty_and_oversized_answers() {
    let server = Server::start(|_, n| match n {
        0 => Reply::json(200, openai_body("  ", "stop", 1, 0)),
        1 => Reply::json(200, openai_body(&"x".repeat(5000), "stop", 1, 1)),
        _ => Reply::json(200, openai_body(&"y".repeat(3 << 20), "stop", 1, 1)),
    });
    let c = Client::builder(openai(&server))
        .retry(fast_retries(0))
        .max_answer_bytes(1000)
        .build();
    assert!(matches!(
        c.complete("t", &request()).unwrap_err(),
        LlmError::Empty
    ));
    let err = c.complete("t", &request().sample(1)).unwrap_err();
    assert!(
        matches!(
            err,
            LlmError::Oversized {
                bytes: 5000,
                limit: 1000
            }
        ),
        "{err}"
    );
    // A body over the HTTP limit (1 MiB here) is refused while reading.
    let err = c.complete("t", &request().sample(2)).unwrap_err();
    assert!(matches!(err, LlmError::Oversized { .. }), "{err}");
}

#[test]
fn client_errors_are_not_retried_and_hide_the_key() {
    let server = Server::start(|req, _| {
        let auth = req
            .header("authorization")
            .or(req.header("x-api-key"))
            .unwrap_or("")
            .to_string();
        Reply::json(
            401,
            json!({"error": {"message": format!("invalid key {auth}")}}).to_string(),
        )
    });
    for c in [client(openai(&server), 3), client(anthropic(&server), 3)] {
        let err = c.complete("t", &request()).unwrap_err();
        assert!(matches!(err, LlmError::Http { status: 401, .. }), "{err}");
        let shown = format!("{err} {err:?}");
        assert!(!shown.contains(KEY), "{shown}");
        assert!(shown.contains("***"), "{shown}");
        assert!(shown.contains("api_key_env"), "{shown}");
    }
    assert_eq!(server.hits(), 2);
}

#[test]
fn connection_refused_is_a_transport_error() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let p = OpenAi::new(
        "openai",
        &format!("http://127.0.0.1:{port}/v1"),
        "m",
        None,
        settings(500),
    );
    let err = client(p, 1).complete("t", &request()).unwrap_err();
    assert!(matches!(err, LlmError::Transport { .. }), "{err}");
    assert!(err.is_retryable());
}

#[test]
fn batches_over_http_run_in_parallel_and_in_order() {
    let server = Server::start(support::echo_openai(Duration::from_millis(200)));
    let c = Client::builder(openai(&server)).concurrency(8).build();
    let reqs: Vec<Request> = (0..16)
        .map(|i| Request::new().user(format!("a b {i}")))
        .collect();
    let t0 = Instant::now();
    let out = c.run_all("batch", &reqs);
    let took = t0.elapsed();
    for (i, r) in out.iter().enumerate() {
        assert_eq!(r.as_ref().unwrap().text(), format!("{i} b a"));
    }
    // 16 × 200 ms at concurrency 8 is two rounds, not sixteen.
    assert!(took < Duration::from_millis(1600), "{took:?}");
}

#[test]
fn embeddings_wire_format_and_errors() {
    use llm::{Embeddings, OpenAiEmbeddings};
    let server = Server::start(|r, _| {
        let body = r.json();
        let inputs = body["input"].as_array().unwrap().len();
        if body["model"] == "broken" {
            return Reply::json(
                200,
                json!({"data": [{"index": 0, "embedding": [1.0]}]}).to_string(),
            );
        }
        if body["model"] == "missing" {
            return Reply::json(
                404,
                json!({"error": {"message": "model not found"}}).to_string(),
            );
        }
        // Answered out of order: the client must place vectors by index.
        let data: Vec<serde_json::Value> = (0..inputs)
            .rev()
            .map(|i| json!({"object": "embedding", "index": i, "embedding": [i as f64, 1.0, 0.0]}))
            .collect();
        Reply::json(
            200,
            json!({"object": "list", "data": data, "model": body["model"]}).to_string(),
        )
    });
    let e = OpenAiEmbeddings::new(&server.url(), "emb", Some(ApiKey::new(KEY)), settings(5000));
    let v = e
        .embed(&["a".to_string(), "b".to_string(), "c".to_string()])
        .unwrap();
    assert_eq!(
        v,
        vec![
            vec![0.0, 1.0, 0.0],
            vec![1.0, 1.0, 0.0],
            vec![2.0, 1.0, 0.0]
        ]
    );
    let got = server.requests();
    assert_eq!(got[0].method, "POST");
    assert!(got[0].path.ends_with("/embeddings"), "{}", got[0].path);
    assert_eq!(
        got[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(got[0].json()["input"], json!(["a", "b", "c"]));
    // No request for no texts.
    assert!(e.embed(&[]).unwrap().is_empty());
    assert_eq!(server.requests().len(), 1);
    // Too few vectors, or an HTTP error, are typed errors that do not show the key.
    let broken = OpenAiEmbeddings::new(&server.url(), "broken", None, settings(5000));
    let err = broken.embed(&["a".into(), "b".into()]).unwrap_err();
    assert!(matches!(err, LlmError::BadResponse { .. }), "{err}");
    let missing = OpenAiEmbeddings::new(
        &server.url(),
        "missing",
        Some(ApiKey::new(KEY)),
        settings(5000),
    );
    let err = missing.embed(&["a".into()]).unwrap_err();
    assert!(matches!(err, LlmError::Http { status: 404, .. }), "{err}");
    assert!(!err.to_string().contains(KEY));
}

#[test]
fn embeddings_configuration() {
    let cfg = llm::LlmConfig::from_toml("[llm]\nprovider = \"local\"\n").unwrap();
    assert!(cfg.embeddings().unwrap().is_none(), "off unless configured");
    let cfg = llm::LlmConfig::from_toml(
        "[llm]\nprovider = \"local\"\nembedding_model = \"nomic\"\nembedding_base_url = \"http://127.0.0.1:8081/v1\"\n",
    )
    .unwrap();
    assert_eq!(cfg.embeddings().unwrap().unwrap().model(), "nomic");
    let cfg = llm::LlmConfig::from_toml(
        "[llm]\nprovider = \"anthropic\"\nmodel = \"m\"\napi_key_env = \"\"\nembedding_model = \"e\"\n",
    )
    .unwrap();
    let err = cfg.embeddings().unwrap_err();
    assert!(err.to_string().contains("no embeddings endpoint"), "{err}");
}

/// One streamed chat-completions event carrying `content`.
fn delta(content: &str) -> String {
    json!({"model": "test-model", "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": null}]}).to_string()
}

#[test]
fn a_streamed_answer_is_joined_with_its_usage() {
    let data = vec![
        delta("(=> "),
        delta("door_open "),
        delta("alarm)"),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}).to_string(),
        json!({"choices": [], "usage": {"prompt_tokens": 40, "completion_tokens": 3}}).to_string(),
        "[DONE]".to_string(),
    ];
    let server = Server::start(move |_, _| Reply::stream(data.clone(), Duration::ZERO).0);
    let c = client(openai(&server).with_stream(true), 0);
    let got = c.complete("t", &request()).unwrap();
    assert_eq!(got.text(), "(=> door_open alarm)");
    assert_eq!(got.response.finish, llm::FinishReason::Stop);
    assert_eq!(got.response.usage.input_tokens, 40);
    assert_eq!(got.response.usage.output_tokens, 3);
    let body = server.requests()[0].json();
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"]["include_usage"], true);
}

#[test]
fn a_runaway_stream_is_stopped_as_soon_as_it_loops() {
    let mut data = vec![delta("(=> door_open ")];
    data.extend(std::iter::repeat_n(delta("(and "), 2000));
    let (reply, written) = Reply::stream(data, Duration::from_millis(2));
    let server = Server::start(move |_, _| reply.clone());
    let c = client(openai(&server).with_stream(true), 0);
    let started = Instant::now();
    match c.complete("t", &request()).unwrap_err() {
        LlmError::Runaway {
            partial,
            unit,
            times,
        } => {
            assert_eq!(unit, "(and ");
            assert!(times >= llm::runaway::MIN_TIMES, "{times}");
            assert!(partial.starts_with("(=> door_open (and (and"), "{partial}");
            // Stopped at the first loop the detector accepts, not at the end.
            assert!(partial.len() < 200, "{} bytes", partial.len());
        }
        other => panic!("{other}"),
    }
    // The whole stream takes 4 s; the client hung up long before.
    assert!(started.elapsed() < Duration::from_secs(3));
    std::thread::sleep(Duration::from_millis(300));
    let sent = written.load(std::sync::atomic::Ordering::SeqCst);
    assert!(sent < 200, "the server wrote {sent} of 2001 events");
    // The feedback names the loop.
    let e = c.complete("t", &request()).unwrap_err();
    assert!(
        e.feedback().unwrap().contains("repeated `(and`"),
        "{:?}",
        e.feedback()
    );
}

#[test]
fn a_server_that_does_not_stream_is_read_as_before() {
    let server = Server::start(|_, _| Reply::json(200, openai_body("(> t 5)", "stop", 3, 4)));
    let c = client(openai(&server).with_stream(true), 0);
    let got = c.complete("t", &request()).unwrap();
    assert_eq!(got.text(), "(> t 5)");
    assert_eq!(got.response.usage.output_tokens, 4);
}

#[test]
fn a_loop_cut_at_the_token_limit_is_named_as_a_loop() {
    let runaway = format!("(=> a {}", "(not ".repeat(30));
    let server =
        Server::start(move |_, _| Reply::json(200, openai_body(&runaway, "length", 3, 64)));
    let c = client(openai(&server), 0);
    match c.complete("t", &request()).unwrap_err() {
        LlmError::Runaway { unit, times, .. } => assert_eq!((unit.as_str(), times), ("(not ", 30)),
        other => panic!("{other}"),
    }
}

#[test]
fn a_broken_stream_is_an_error_not_an_answer() {
    let data = vec![delta("(=> a"), "{not json".to_string()];
    let server = Server::start(move |_, _| Reply::stream(data.clone(), Duration::ZERO).0);
    let c = client(openai(&server).with_stream(true), 0);
    match c.complete("t", &request()).unwrap_err() {
        LlmError::BadResponse { detail, .. } => assert!(detail.contains("not JSON"), "{detail}"),
        other => panic!("{other}"),
    }
}
