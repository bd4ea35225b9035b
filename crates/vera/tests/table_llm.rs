//! `vera table check --llm`: cells the parser cannot read, rewritten by a model that a
//! local OpenAI-compatible server plays (tests/support/chat_server.rs), accepted only
//! when the parser reads the rewriting, listed for review, and the findings that rest
//! on them marked; with z3 and cvc5.

#[path = "support/chat_server.rs"]
mod chat_server;

use std::process::Command;
use std::sync::atomic::Ordering;

const TABLE: &str = "crates/table/testdata/words.csv";

/// The model: rewrites three of the four cells (the first only after its first answer
/// is refused by the parser) and declines the fourth.
fn model(body: &str) -> String {
    if body.contains("The cell: fifty to five hundred dollars") {
        if body.contains("That answer cannot be used") {
            r#"{"cell": "50 - 500"}"#.into()
        } else {
            r#"{"cell": "50 to 500 dollars"}"#.into()
        }
    } else if body.contains("The cell: above five hundred") {
        "```json\n{\"cell\": \"> 500\"}\n```".into()
    } else if body.contains("The cell: 1.5% plus a quarter") {
        r#"{"cell": "1.5% + 0.25"}"#.into()
    } else if body.contains("The cell: see note 4") {
        r#"{"cell": null, "reason": "the value is in a note that is not in the table"}"#.into()
    } else {
        "unexpected request".into()
    }
}

fn vera(port: u16, args: &[&str]) -> (i32, String, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_vera"));
    for (k, _) in std::env::vars() {
        if k.starts_with("VERA_LLM_") {
            c.env_remove(k);
        }
    }
    let out = c
        .args(args)
        .args(["--llm-config", "/nonexistent/vera.toml", "--no-cache"])
        .current_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .env("VERA_LLM_PROVIDER", "local")
        .env("VERA_LLM_BASE_URL", format!("http://127.0.0.1:{port}/v1"))
        .env("VERA_LLM_MAX_RETRIES", "0")
        .env("NO_COLOR", "1")
        .output()
        .expect("vera runs");
    (
        out.status.code().expect("exit code"),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn solvers() -> Vec<&'static str> {
    ["z3", "cvc5"]
        .into_iter()
        .filter(|s| {
            Command::new(s)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .collect()
}

/// The text without the solver's version.
fn without_version(out: &str) -> String {
    out.lines()
        .map(|l| match l.find(" checked: ") {
            Some(_) => l.split(" (").next().unwrap_or(l),
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

#[test]
fn model_readings_are_checked_by_the_parser_shown_and_marked_on_findings() {
    let (port, count) = chat_server::server(model);
    let mut first: Option<String> = None;
    for s in solvers() {
        let before = count.load(Ordering::SeqCst);
        let (code, out, err) = vera(port, &["table", "check", TABLE, "--llm", "--solver", s]);
        // A gap found over the model's readings, and a cell still unreadable: exit 1.
        assert_eq!(code, 1, "{out}\n{err}");
        // Five answers: two for the first cell, one for each of the others.
        assert_eq!(count.load(Ordering::SeqCst) - before, 5, "{out}");
        let out = without_version(&out);
        match &first {
            None => {
                insta::assert_snapshot!("table_llm_human", out);
                first = Some(out);
            }
            Some(f) => assert_eq!(*f, out, "{s}"),
        }
    }
    let out = first.expect("a solver is installed");
    assert!(
        out.contains("words.csv:3:6 [amount]: `fifty to five hundred dollars` read as `50 - 500`"),
        "{out}"
    );
    assert!(
        out.contains("words.csv:5:6 [amount]: `see note 4` not read (the value is in a note that is not in the table)"),
        "{out}"
    );
    // The gap between 49.99 and 50 lies next to a row the model read.
    assert!(
        out.contains("rests on the model's reading of row 3"),
        "{out}"
    );
    assert!(
        out.contains("3 cells checked as the model read them: not a result about the table as written until reviewed"),
        "{out}"
    );
    // The declined cell is still an unreadable cell of the check.
    assert!(
        out.contains("words.csv:5:6: unreadable cell: cannot read `see note 4`"),
        "{out}"
    );
}

#[test]
fn without_llm_nothing_is_asked_and_a_model_reading_alone_is_not_a_pass() {
    let (port, count) = chat_server::server(|body| {
        if body.contains("The cell: over ten") {
            r#"{"cell": "> 10"}"#.into()
        } else {
            "unexpected request".into()
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("t.csv");
    std::fs::write(&csv, "amount,fee\n0 - 10,1\nover ten,2\n").unwrap();
    let csv = csv.to_str().unwrap();

    let (code, out, _) = vera(port, &["table", "check", csv]);
    assert_eq!(code, 1, "an unreadable cell is a finding: {out}");
    assert_eq!(count.load(Ordering::SeqCst), 0, "no --llm, no request");

    // The model's reading completes the table, but the run still exits 1: the
    // result rests on a reading nobody has reviewed.
    let (code, out, err) = vera(port, &["table", "check", csv, "--llm"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert_eq!(count.load(Ordering::SeqCst), 1);
    assert!(out.contains("complete and unambiguous"), "{out}");
    assert!(out.contains("`over ten` read as `> 10`"), "{out}");
    assert!(out.contains("1 cell checked as the model read it"), "{out}");

    // A table the parser reads entirely: --llm asks nothing and the check passes.
    std::fs::write(dir.path().join("ok.csv"), "amount,fee\n0 - 10,1\n> 10,2\n").unwrap();
    let ok = dir.path().join("ok.csv");
    let (code, out, err) = vera(port, &["table", "check", ok.to_str().unwrap(), "--llm"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(count.load(Ordering::SeqCst), 1);

    // The cassette options mean nothing without --llm: refused, exit 2.
    let (code, _, err) = vera(port, &["table", "check", csv, "--replay", "x.jsonl"]);
    assert_eq!(code, 2);
    assert!(err.contains("--record and --replay need --llm"), "{err}");
}
