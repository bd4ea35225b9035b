//! Record and replay cassettes.

use std::sync::Arc;

use llm::{Client, LlmError, Recorder, Replayer, Request, Response, Scripted, Source, Usage};

fn session() -> Vec<Request> {
    let mut v: Vec<Request> = (0..6)
        .map(|i| {
            Request::new()
                .system("You formalize requirements.\nAnswer with one SMT-LIB term.")
                .user(format!(
                    "Requirement R{i}: if the temperature exceeds {} °C, raise an alarm.",
                    37 + i
                ))
                .temperature(0.0)
                .max_tokens(64)
        })
        .collect();
    v.push(Request::new().user("sampled").temperature(1.0).sample(3));
    v
}

fn provider() -> Scripted {
    Scripted::from_fn(|req, _| {
        let last = &req.messages.last().unwrap().content;
        Ok(Response {
            // Unicode, quotes, newlines and trailing spaces: all must survive byte for byte.
            text: format!("(=> (> temp {}) alarm)\n\"ünïcødé\"  \t", last.len()),
            finish: llm::FinishReason::Stop,
            usage: Usage {
                input_tokens: last.len() as u64,
                output_tokens: 7,
            },
            model: Some("m-2026".into()),
        })
    })
}

#[test]
fn a_recorded_session_replays_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let tape = dir.path().join("session.jsonl");
    let recorded = {
        let c = Client::builder(provider())
            .record(Recorder::open(&tape, false).unwrap())
            .concurrency(1)
            .build();
        c.run_all("formalize", &session())
    };
    let lines = std::fs::read_to_string(&tape).unwrap();
    assert_eq!(lines.lines().count(), session().len());

    // Replay: the provider would fail if called.
    let never = Arc::new(Scripted::from_list([]));
    let c = Client::builder_arc(never.clone())
        .replay(Replayer::open(&tape).unwrap())
        .build();
    let replayed = c.run_all("formalize", &session());
    assert_eq!(never.calls(), 0);
    for (a, b) in recorded.iter().zip(&replayed) {
        let (a, b) = (a.as_ref().unwrap(), b.as_ref().unwrap());
        assert_eq!(b.source, Source::Replay);
        assert_eq!(a.text().as_bytes(), b.text().as_bytes());
        assert_eq!(a.response, b.response);
        assert_eq!(a.key, b.key);
    }
    assert_eq!(c.accounting().total.replayed, session().len() as u64);

    // Re-recording the replay (replay + record) reproduces the cassette byte for byte.
    let copy = dir.path().join("copy.jsonl");
    let c = Client::builder(Scripted::from_list([]))
        .replay(Replayer::open(&tape).unwrap())
        .record(Recorder::open(&copy, false).unwrap())
        .concurrency(1)
        .build();
    c.run_all("formalize", &session());
    drop(c); // the cassette is renamed into place when its recorder is dropped
    assert_eq!(std::fs::read(&tape).unwrap(), std::fs::read(&copy).unwrap());

    // Recording the same deterministic session again gives the same file.
    let again = dir.path().join("again.jsonl");
    let c = Client::builder(provider())
        .record(Recorder::open(&again, false).unwrap())
        .concurrency(1)
        .build();
    c.run_all("formalize", &session());
    drop(c);
    assert_eq!(
        std::fs::read(&tape).unwrap(),
        std::fs::read(&again).unwrap()
    );
}

#[test]
fn a_missing_entry_fails_with_key_and_diff_hint() {
    let dir = tempfile::tempdir().unwrap();
    let tape = dir.path().join("s.jsonl");
    Client::builder(provider())
        .record(Recorder::open(&tape, false).unwrap())
        .build()
        .run_all("s", &session());
    let c = Client::builder(Scripted::from_list([]))
        .replay(Replayer::open(&tape).unwrap())
        .build();

    // One word changed in the user message of R2.
    let mut changed = session()[2].clone();
    changed.messages[1].content = changed.messages[1].content.replace("raise", "sound");
    let err = c.complete("s", &changed).unwrap_err();
    match &err {
        LlmError::ReplayMissing { key, hint } => {
            assert_eq!(key, &c.key(&changed));
            assert!(
                hint.contains(&c.key(&session()[2])),
                "names the closest entry: {hint}"
            );
            assert!(hint.contains("first difference at prompt line 3"), "{hint}");
            assert!(hint.contains("raise an alarm"), "{hint}");
            assert!(hint.contains("sound an alarm"), "{hint}");
        }
        other => panic!("{other}"),
    }
    let shown = err.to_string();
    assert!(
        shown.starts_with("replay: no recorded answer for request "),
        "{shown}"
    );

    // Same prompt, other sample index.
    let other = session()[0].clone().sample(1);
    match c.complete("s", &other).unwrap_err() {
        LlmError::ReplayMissing { hint, .. } => {
            assert!(hint.contains("sample 1 (recorded 0)"), "{hint}")
        }
        other => panic!("{other}"),
    }
    assert_eq!(c.accounting().total.errors, 2);
}

#[test]
fn a_bad_cassette_line_is_reported_with_its_line_number() {
    let dir = tempfile::tempdir().unwrap();
    let tape = dir.path().join("bad.jsonl");
    std::fs::write(&tape, "\n{\"not\": \"an exchange\"}\n").unwrap();
    let err = Replayer::open(&tape)
        .err()
        .expect("bad cassette")
        .to_string();
    assert!(err.contains("bad.jsonl:2"), "{err}");
}

/// Answers whose finish reason and token count the prompt chooses.
fn shaped() -> Scripted {
    Scripted::from_fn(|req, _| {
        let last = req.messages.last().unwrap().content.clone();
        let (finish, output_tokens) = match last.as_str() {
            "cut" => (llm::FinishReason::Length, 64),
            "unknown usage" => (llm::FinishReason::Stop, 0),
            _ => (llm::FinishReason::Stop, 7),
        };
        Ok(Response {
            text: format!("answer to {last}"),
            finish,
            usage: Usage {
                input_tokens: 3,
                output_tokens,
            },
            model: None,
        })
    })
}

#[test]
fn a_recording_that_fits_under_a_new_token_cap_replays() {
    let dir = tempfile::tempdir().unwrap();
    let tape = dir.path().join("caps.jsonl");
    let plain = Request::new().user("plain").temperature(0.0);
    let capped = Request::new()
        .user("capped")
        .temperature(0.0)
        .max_tokens(64);
    let cut = Request::new().user("cut").temperature(0.0).max_tokens(64);
    let unknown = Request::new().user("unknown usage").temperature(0.0);
    let grammar = Request::new()
        .user("constrained")
        .temperature(0.0)
        .grammar("root ::= \"x\"");
    {
        let c = Client::builder(shaped().with_grammar(true))
            .record(Recorder::open(&tape, false).unwrap())
            .build();
        for r in [&plain, &capped, &cut, &unknown, &grammar] {
            let _ = c.complete("s", r);
        }
    }
    let replay = |accepts_grammar: bool| {
        Client::builder(Scripted::from_list([]).with_grammar(accepts_grammar))
            .replay(Replayer::open(&tape).unwrap())
            .build()
    };
    let c = replay(true);
    let ok = |r: &Request| c.complete("s", r).map(|a| a.text().to_string());
    let missing = |r: &Request| matches!(c.complete("s", r), Err(LlmError::ReplayMissing { .. }));

    // Stopped after 7 tokens: the same answer under any cap of at least 7, or none.
    assert_eq!(
        ok(&plain.clone().max_tokens(256)).unwrap(),
        "answer to plain"
    );
    assert_eq!(ok(&plain.clone().max_tokens(7)).unwrap(), "answer to plain");
    assert!(missing(&plain.clone().max_tokens(6)));
    assert_eq!(
        ok(&capped.clone().max_tokens(8)).unwrap(),
        "answer to capped"
    );
    let mut uncapped = capped.clone();
    uncapped.max_tokens = None;
    assert_eq!(ok(&uncapped).unwrap(), "answer to capped");
    // Cut at the old cap: a larger cap might have given more, so nothing is assumed.
    assert!(missing(&cut.clone().max_tokens(128)));
    assert!(missing(&cut.clone().max_tokens(32)));
    // Usage not recorded: only the uncapped request can use it.
    assert!(missing(&unknown.clone().max_tokens(256)));
    // The exact key still answers a cut recording (as the checks then report it).
    assert!(matches!(
        c.complete("s", &cut),
        Err(LlmError::Truncated { .. })
    ));
    // Any other difference is still a miss.
    assert!(missing(&plain.clone().temperature(0.5).max_tokens(256)));
    assert!(missing(&plain.clone().sample(1).max_tokens(256)));

    // A grammar is part of the key where it is sent; without grammar support the
    // request is the one without a grammar, which this cassette does not hold.
    assert_eq!(ok(&grammar).unwrap(), "answer to constrained");
    assert_eq!(
        ok(&grammar.clone().max_tokens(100)).unwrap(),
        "answer to constrained"
    );
    let mut no_grammar = grammar.clone();
    no_grammar.grammar = None;
    assert!(missing(&no_grammar));
    match c.complete("s", &no_grammar) {
        Err(LlmError::ReplayMissing { hint, .. }) => assert!(hint.contains("grammar"), "{hint}"),
        other => panic!("{other:?}"),
    }
    let c2 = replay(false);
    assert!(matches!(
        c2.complete("s", &grammar),
        Err(LlmError::ReplayMissing { .. })
    ));
    assert_eq!(c2.key(&grammar), c2.key(&no_grammar));
}
