//! The client around the scripted provider: retries, repair loops, concurrency, order,
//! cancellation, progress events, accounting.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use llm::{
    Client, LlmError, Observer, Prices, Progress, Request, Response, RetryPolicy, Scripted, Stats,
    Usage,
};

fn fast(n: u32) -> RetryPolicy {
    RetryPolicy {
        max_retries: n,
        base: Duration::from_millis(5),
        max: Duration::from_millis(50),
    }
}

#[test]
fn transient_errors_are_retried_then_succeed() {
    let p = Arc::new(Scripted::from_list([
        Err(LlmError::RateLimited {
            retry_after: Some(Duration::from_millis(20)),
            message: "slow".into(),
        }),
        Err(LlmError::Server {
            status: 502,
            retry_after: None,
            message: "bad gateway".into(),
        }),
        Ok(Response::text("ok")),
    ]));
    let c = Client::builder_arc(p.clone()).retry(fast(3)).build();
    let out = c.complete("s", &Request::new().user("x")).unwrap();
    assert_eq!((out.text(), out.retries, p.calls()), ("ok", 2, 3));
    assert_eq!(c.accounting().total.retries, 2);
}

#[test]
fn non_transient_errors_are_not_retried() {
    let p = Arc::new(Scripted::from_list([Err(LlmError::Http {
        status: 400,
        message: "bad".into(),
    })]));
    let c = Client::builder_arc(p.clone()).retry(fast(3)).build();
    assert!(matches!(
        c.complete("s", &Request::new().user("x")),
        Err(LlmError::Http { status: 400, .. })
    ));
    assert_eq!(p.calls(), 1);
}

/// A repair loop as a pipeline would write it: feed the answer problem back until the
/// answer parses or the budget runs out.
fn repair_loop(c: &Client, budget: usize) -> Result<serde_json::Value, LlmError> {
    let schema = serde_json::json!({"type": "object", "properties": {"formula": {"type": "string"}}, "required": ["formula"]});
    let mut req = Request::new().user("Formalize R1.").schema("f", schema);
    let mut last = None;
    for _ in 0..budget {
        match c.complete("repair", &req) {
            Ok(done) => return Ok(done.json.unwrap()),
            Err(e) if e.is_answer_problem() => {
                let text = match &e {
                    LlmError::Malformed { text, .. } => text.clone(),
                    _ => String::new(),
                };
                req = req.assistant(text).user(e.feedback().unwrap());
                last = Some(e);
            }
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap())
}

#[test]
fn scripted_repair_loop_converges_and_exhausts() {
    let c = Client::builder(Scripted::from_texts([
        "(> t 38)",
        "{\"formula\": 1}",
        "{\"formula\": \"(> t 38)\"}",
    ]))
    .build();
    assert_eq!(repair_loop(&c, 5).unwrap()["formula"], "(> t 38)");
    let acc = c.accounting();
    assert_eq!(
        (
            acc.stages["repair"].requests,
            acc.stages["repair"].answer_errors
        ),
        (3, 2)
    );

    let c = Client::builder(Scripted::from_fn(|_, _| Ok(Response::text("no json")))).build();
    assert!(matches!(
        repair_loop(&c, 3),
        Err(LlmError::Malformed { .. })
    ));
    assert_eq!(c.accounting().total.calls, 3);
}

#[test]
fn concurrency_is_bounded_and_results_keep_their_order() {
    let in_flight = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let (f, pk) = (in_flight.clone(), peak.clone());
    let p = Scripted::from_fn(move |req, _| {
        let now = f.fetch_add(1, Ordering::SeqCst) + 1;
        pk.fetch_max(now, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(50));
        f.fetch_sub(1, Ordering::SeqCst);
        Ok(Response::text(req.messages[0].content.to_uppercase()))
    });
    let c = Client::builder(p).concurrency(4).build();
    let reqs: Vec<Request> = (0..16)
        .map(|i| Request::new().user(format!("r{i}")))
        .collect();
    let t0 = Instant::now();
    let out = c.run_all("s", &reqs);
    assert!(
        t0.elapsed() < Duration::from_millis(600),
        "{:?}",
        t0.elapsed()
    );
    assert_eq!(peak.load(Ordering::SeqCst), 4);
    for (i, r) in out.iter().enumerate() {
        assert_eq!(r.as_ref().unwrap().text(), format!("R{i}"));
    }
}

#[test]
fn cancelling_keeps_finished_answers() {
    let token = llm::CancelToken::new();
    let t = token.clone();
    let p = Scripted::from_fn(move |_, n| {
        if n == 2 {
            t.cancel();
        }
        Ok(Response::text(format!("a{n}")))
    });
    let c = Client::builder(p)
        .concurrency(1)
        .cancel_token(token)
        .build();
    let reqs: Vec<Request> = (0..6)
        .map(|i| Request::new().user(format!("r{i}")))
        .collect();
    let out = c.run_all("s", &reqs);
    assert_eq!(out.iter().filter(|r| r.is_ok()).count(), 3);
    assert!(out[3..]
        .iter()
        .all(|r| matches!(r, Err(LlmError::Cancelled))));
}

#[derive(Default)]
struct Recording {
    events: Mutex<Vec<String>>,
}

impl Observer for Recording {
    fn batch_started(&self, stage: &str, total: usize) {
        self.events
            .lock()
            .unwrap()
            .push(format!("start {stage} {total}"));
    }
    fn request_finished(&self, p: &Progress<'_>) {
        self.events
            .lock()
            .unwrap()
            .push(format!("done {}/{} cached {}", p.done, p.total, p.cached));
    }
    fn retrying(&self, _: &str, attempt: u32, _: Duration, _: &LlmError) {
        self.events.lock().unwrap().push(format!("retry {attempt}"));
    }
    fn batch_finished(&self, stage: &str, stats: &Stats) {
        self.events.lock().unwrap().push(format!(
            "end {stage} {} {}",
            stats.requests, stats.cache_hits
        ));
    }
}

#[test]
fn progress_events_and_accounting_per_stage() {
    let obs = Arc::new(Recording::default());
    let p = Scripted::from_fn(|req, n| {
        if n == 0 {
            return Err(LlmError::Transport {
                url: "u".into(),
                message: "reset".into(),
            });
        }
        Ok(Response {
            text: format!("ok {}", req.messages[0].content),
            finish: llm::FinishReason::Stop,
            usage: Usage {
                input_tokens: 1000,
                output_tokens: 100,
            },
            model: None,
        })
    });
    let c = Client::builder(p)
        .cache(llm::Cache::in_memory().unwrap())
        .concurrency(1)
        .retry(fast(2))
        .prices(Prices {
            input_per_mtok: 3.0,
            output_per_mtok: 15.0,
        })
        .observer(obs.clone())
        .build();
    let reqs: Vec<Request> = (0..3)
        .map(|i| Request::new().user(format!("r{i}")))
        .collect();
    c.run_all("formalize", &reqs);
    c.run_all("formalize", &reqs[..2]);
    c.complete("ask", &Request::new().user("q")).unwrap();
    let events = obs.events.lock().unwrap().clone();
    assert_eq!(
        events,
        [
            "start formalize 3",
            "retry 1",
            "done 1/3 cached 0",
            "done 2/3 cached 0",
            "done 3/3 cached 0",
            "end formalize 3 0",
            "start formalize 2",
            "done 1/2 cached 1",
            "done 2/2 cached 2",
            "end formalize 2 2",
        ]
    );
    let acc = c.accounting();
    let f = &acc.stages["formalize"];
    assert_eq!((f.requests, f.calls, f.cache_hits, f.retries), (5, 3, 2, 1));
    assert_eq!((f.input_tokens, f.output_tokens), (3000, 300));
    assert!((f.cost_usd - (3000.0 * 3.0 + 300.0 * 15.0) / 1e6).abs() < 1e-12);
    assert!(f.wall_secs > 0.0);
    assert_eq!(acc.stages["ask"].calls, 1);
    assert_eq!(acc.total.requests, 6);
    // Serializable, with every stage.
    let json = serde_json::to_value(&acc).unwrap();
    assert_eq!(json["stages"]["formalize"]["cache_hits"], 2);
    let back: llm::Accounting = serde_json::from_value(json).unwrap();
    assert_eq!(back, acc);
    assert_eq!(
        back.stages.keys().collect::<Vec<_>>(),
        ["ask", "formalize"],
        "{back:?}"
    );
}

#[test]
fn tokens_per_minute_limit_holds_back_requests() {
    // 100 tokens per minute; each request is estimated at about 60: the second has to
    // wait for the window, so cancelling while it waits ends it cleanly.
    let p = Arc::new(Scripted::from_texts(["a", "b"]));
    let c = Client::builder_arc(p.clone())
        .tokens_per_minute(Some(100))
        .concurrency(1)
        .build();
    let token = c.cancel_token();
    let r = Request::new().user("x".repeat(40)).max_tokens(50);
    c.complete("s", &r).unwrap();
    let killer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        token.cancel();
    });
    let t0 = Instant::now();
    assert!(matches!(
        c.complete("s", &r.clone().sample(1)),
        Err(LlmError::Cancelled)
    ));
    assert!(t0.elapsed() >= Duration::from_millis(150));
    killer.join().unwrap();
    assert_eq!(p.calls(), 1);
}
