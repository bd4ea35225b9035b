//! The on-disk cache: hits and misses, sample indices, modes, concurrent writers, and a
//! run killed mid-way that resumes without repeating finished calls.

use std::sync::Arc;

use llm::{
    Cache, CacheMode, Client, FinishReason, LlmError, Request, Response, Scripted, Source, Usage,
};

fn numbered() -> Scripted {
    Scripted::from_fn(|req, n| {
        Ok(Response::text(format!(
            "answer {n} to {}",
            req.messages[0].content
        )))
    })
}

fn reqs(n: usize) -> Vec<Request> {
    (0..n)
        .map(|i| {
            Request::new()
                .user(format!("requirement {i}"))
                .temperature(0.0)
        })
        .collect()
}

#[test]
fn miss_then_hit_across_clients() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cache.sqlite");
    let p = Arc::new(numbered());
    let c = Client::builder_arc(p.clone())
        .cache(Cache::open(&path).unwrap())
        .build();
    let first: Vec<String> = c
        .run_all("s", &reqs(6))
        .into_iter()
        .map(|r| r.unwrap().text().to_string())
        .collect();
    assert_eq!(p.calls(), 6);
    drop(c);
    // A new client on the same file (a re-run) makes zero calls and gets the same text.
    let p2 = Arc::new(numbered());
    let c = Client::builder_arc(p2.clone())
        .cache(Cache::open(&path).unwrap())
        .build();
    let again = c.run_all("s", &reqs(6));
    assert_eq!(p2.calls(), 0);
    for (a, b) in first.iter().zip(&again) {
        let b = b.as_ref().unwrap();
        assert_eq!(b.source, Source::Cache);
        assert_eq!(a, b.text());
    }
    let acc = c.accounting();
    assert_eq!(
        (acc.total.calls, acc.total.cache_hits, acc.total.requests),
        (0, 6, 6)
    );
    assert_eq!(acc.total.cost_usd, 0.0);
}

#[test]
fn sample_indices_are_distinct_entries() {
    let p = Arc::new(numbered());
    let c = Client::builder_arc(p.clone())
        .cache(Cache::in_memory().unwrap())
        .build();
    let base = Request::new()
        .user("ambiguous requirement")
        .temperature(1.0);
    let samples: Vec<Request> = (0..5).map(|i| base.clone().sample(i)).collect();
    let out = c.run_all("sample", &samples);
    assert_eq!(p.calls(), 5);
    assert_eq!(c.cache().unwrap().len().unwrap(), 5);
    let texts: std::collections::BTreeSet<String> = out
        .iter()
        .map(|r| r.as_ref().unwrap().text().to_string())
        .collect();
    assert_eq!(texts.len(), 5);
    // The sample index is not sent to the provider.
    assert!(p.requests().iter().all(|r| r.messages == base.messages));
    c.run_all("sample", &samples);
    assert_eq!(p.calls(), 5);
}

#[test]
fn refresh_and_off_modes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.sqlite");
    let p = Arc::new(numbered());
    let make = |mode| {
        Client::builder_arc(p.clone())
            .cache(Cache::open(&path).unwrap())
            .cache_mode(mode)
            .build()
    };
    let r = Request::new().user("x");
    assert_eq!(
        make(CacheMode::Use).complete("s", &r).unwrap().text(),
        "answer 0 to x"
    );
    // Refresh: calls again and overwrites.
    let c = make(CacheMode::Refresh);
    assert_eq!(c.complete("s", &r).unwrap().text(), "answer 1 to x");
    assert_eq!(
        make(CacheMode::Use).complete("s", &r).unwrap().text(),
        "answer 1 to x"
    );
    // Off: calls and stores nothing.
    let c = make(CacheMode::Off);
    assert_eq!(
        c.complete("s", &Request::new().user("y")).unwrap().text(),
        "answer 2 to y"
    );
    assert_eq!(c.cache().unwrap().len().unwrap(), 1);
    assert_eq!(p.calls(), 3);
}

#[test]
fn answer_problems_replay_from_the_cache_without_a_call() {
    let p = Arc::new(Scripted::from_list([Ok(Response {
        text: "(and".into(),
        finish: FinishReason::Length,
        usage: Usage {
            input_tokens: 3,
            output_tokens: 8,
        },
        model: None,
    })]));
    let c = Client::builder_arc(p.clone())
        .cache(Cache::in_memory().unwrap())
        .build();
    let r = Request::new().user("x").max_tokens(8);
    assert!(matches!(
        c.complete("s", &r),
        Err(LlmError::Truncated { .. })
    ));
    assert!(matches!(
        c.complete("s", &r),
        Err(LlmError::Truncated { .. })
    ));
    assert_eq!(p.calls(), 1);
}

#[test]
fn transport_failures_are_not_cached() {
    let p = Arc::new(Scripted::from_list([
        Err(LlmError::Transport {
            url: "u".into(),
            message: "reset".into(),
        }),
        Ok(Response::text("ok")),
    ]));
    let c = Client::builder_arc(p.clone())
        .cache(Cache::in_memory().unwrap())
        .retry(llm::RetryPolicy {
            max_retries: 0,
            ..Default::default()
        })
        .build();
    let r = Request::new().user("x");
    assert!(c.complete("s", &r).is_err());
    assert_eq!(c.complete("s", &r).unwrap().text(), "ok");
    assert_eq!(c.complete("s", &r).unwrap().source, Source::Cache);
}

#[test]
fn concurrent_writers_on_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shared.sqlite");
    // Four independent connections (as four processes would have), writing and reading
    // at the same time.
    std::thread::scope(|s| {
        for w in 0..4 {
            let path = &path;
            s.spawn(move || {
                let cache = Cache::open(path).unwrap();
                for i in 0..50 {
                    let req = Request::new().user(format!("w{w} r{i}"));
                    let key = llm::request_key("p", "m", &req);
                    cache
                        .put(&key, "p", "m", &req, &Response::text(format!("{w}/{i}")))
                        .unwrap();
                    assert_eq!(cache.get(&key).unwrap().unwrap().text, format!("{w}/{i}"));
                }
            });
        }
    });
    assert_eq!(Cache::open(&path).unwrap().len().unwrap(), 200);

    // Two clients on the same file running overlapping batches: every request answered,
    // no errors, and each request key stored once.
    let batch = reqs(40);
    std::thread::scope(|s| {
        for _ in 0..2 {
            let (path, batch) = (&path, &batch);
            s.spawn(move || {
                let c = Client::builder(numbered())
                    .cache(Cache::open(path).unwrap())
                    .concurrency(4)
                    .build();
                assert!(c.run_all("s", batch).iter().all(|r| r.is_ok()));
            });
        }
    });
    assert_eq!(Cache::open(&path).unwrap().len().unwrap(), 240);
}

/// Run by `killed_run_resumes` in a child process: answers five requests, then the
/// process aborts in the middle of the sixth call.
#[test]
fn child_run_that_gets_killed() {
    let Ok(path) = std::env::var("VERA_LLM_TEST_KILL_CACHE") else {
        return;
    };
    let p = Scripted::from_fn(|req, n| {
        if n == 5 {
            std::process::abort();
        }
        Ok(Response::text(format!("done {}", req.messages[0].content)))
    });
    let c = Client::builder(p)
        .cache(Cache::open(path).unwrap())
        .concurrency(1)
        .build();
    c.run_all("s", &reqs(10));
    unreachable!("the provider aborts the process");
}

#[test]
fn killed_run_resumes_without_repeating_finished_calls() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crash.sqlite");
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_run_that_gets_killed",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("VERA_LLM_TEST_KILL_CACHE", &path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(!status.success(), "the child should have died");
    assert_eq!(
        Cache::open(&path).unwrap().len().unwrap(),
        5,
        "finished answers survive the crash"
    );
    let p = Arc::new(Scripted::from_fn(|req, _| {
        Ok(Response::text(format!("done {}", req.messages[0].content)))
    }));
    let c = Client::builder_arc(p.clone())
        .cache(Cache::open(&path).unwrap())
        .build();
    let out = c.run_all("s", &reqs(10));
    assert_eq!(p.calls(), 5, "only the unfinished requests are sent");
    for (i, r) in out.iter().enumerate() {
        let r = r.as_ref().unwrap();
        assert_eq!(r.text(), format!("done requirement {i}"));
        assert_eq!(
            r.source,
            if i < 5 {
                Source::Cache
            } else {
                Source::Provider
            }
        );
    }
}
