//! `vera schema draft` through the binary, against a local OpenAI-compatible server that
//! plays the model (the solver is a real z3 process).

#[path = "support/chat_server.rs"]
mod chat_server;

use chat_server::server;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

/// Runs vera in `dir` against the server on `port` (no cache, no retries of transport).
fn vera(dir: &Path, port: u16, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_vera"))
        .args(args)
        .args(["--llm-config", "/nonexistent/vera.toml", "--no-cache"])
        .current_dir(dir)
        .env("VERA_LLM_PROVIDER", "local")
        .env("VERA_LLM_BASE_URL", format!("http://127.0.0.1:{port}/v1"))
        .env("VERA_LLM_MAX_RETRIES", "0")
        .env("NO_COLOR", "1")
        .env_remove("VERA_LLM_MODEL")
        .env_remove("VERA_LLM_RECORD")
        .env_remove("VERA_LLM_REPLAY")
        .output()
        .expect("vera runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const REQS: &str = r#"{"schema": "vera.requirements.v1", "requirements": [
  {"id": "5.1(3)", "text": "The basal rate shall be settable from Fbasal min = 1 to Fbasal max = 10 ml/hr."},
  {"id": "6.1(4)", "text": "The pump shall sound the alarm when the door is open."}
]}"#;

fn draft(extra_domain: &str) -> String {
    format!(
        r#"{{"enums": [],
  "variables": [
    {{"name": "basal_rate", "sort": "Real", "unit": "ml/hr", "description": "programmed basal rate", "min": 1, "max": 10, "fixed": false, "role": "input", "serves": ["5.1(3)"]}},
    {{"name": "kvo_rate", "sort": "Real", "unit": "ml/hr", "description": "keep vein open rate", "min": 0.1, "max": 1, "fixed": false, "role": "input", "serves": ["5.1(3)"]}},
    {{"name": "door_open", "sort": "Bool", "unit": null, "description": "the door is open", "min": null, "max": null, "fixed": false, "role": "input", "serves": ["6.1(4)"]}},
    {{"name": "alarm", "sort": "Bool", "unit": null, "description": "the alarm sounds", "min": null, "max": null, "fixed": false, "role": "output", "serves": ["6.1(4)"]}}
  ],
  "domain": [{extra_domain}]}}"#
    )
}

const UNSAT: &str = r#"{"id": "D1", "text": "The basal rate stays below the KVO rate.", "formula": "(< basal_rate kvo_rate)"}"#;

fn setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("reqs.json"), REQS).unwrap();
    dir
}

#[test]
fn a_clean_draft_is_written_and_formalize_takes_it_as_it_is() {
    let dir = setup();
    let (port, count) = server(|body| {
        if body.contains("You design the typed schema") {
            draft("")
        } else if body.contains("Requirement: The pump shall sound the alarm") {
            "(=> door_open alarm)".into()
        } else {
            "unexpected request".into()
        }
    });
    let (code, out, err) = vera(dir.path(), port, &["schema", "draft", "reqs.json"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.starts_with("drafted 4 variables, 0 enumerations and 0 domain constraints for 2 requirements from reqs.json (1 answer); wrote reqs.schema.toml\n"), "{out}");
    assert!(
        out.contains("no findings: the domain is satisfiable"),
        "{out}"
    );
    let written = dir.path().join("reqs.schema.toml");
    let spec = reqs::load(&written).unwrap();
    assert_eq!(spec.variables.len(), 4);
    assert_eq!(spec.requirements.len(), 2);
    assert_eq!(count.load(Ordering::SeqCst), 1);

    // The schema is a spec `vera formalize` reads as it is.
    let (code, out, err) = vera(
        dir.path(),
        port,
        &[
            "formalize",
            "--smtlib",
            "reqs.schema.toml",
            "--only",
            "6.1(4)",
            "-o",
            "f.toml",
        ],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    let f = reqs::load(&dir.path().join("f.toml")).unwrap();
    let r = f.requirements.iter().find(|r| r.id == "6.1(4)").unwrap();
    assert_eq!(
        logic::print::term(r.formula.as_ref().unwrap()),
        "(=> door_open alarm)"
    );

    // Never over an existing file without --force; with it, replaced atomically.
    let before = std::fs::read_to_string(&written).unwrap();
    let (code, _, err) = vera(dir.path(), port, &["schema", "draft", "reqs.json"]);
    assert_eq!(code, 2);
    assert!(err.contains("reqs.schema.toml"), "{err}");
    assert!(err.contains("--force"), "{err}");
    assert_eq!(std::fs::read_to_string(&written).unwrap(), before);
    let (code, _, err) = vera(
        dir.path(),
        port,
        &["schema", "draft", "reqs.json", "--force"],
    );
    assert_eq!(code, 0, "{err}");
    // Never over the input, even with --force.
    let (code, _, err) = vera(
        dir.path(),
        port,
        &["schema", "draft", "reqs.json", "-o", "reqs.json", "--force"],
    );
    assert_eq!(code, 2);
    assert!(err.contains("reqs.json"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("reqs.json")).unwrap(),
        REQS
    );
}

#[test]
fn a_draft_with_findings_is_written_and_exits_1() {
    let dir = setup();
    let (port, _) = server(|_| draft(UNSAT));
    let (code, out, err) = vera(
        dir.path(),
        port,
        &["schema", "draft", "reqs.json", "-o", "s.toml"],
    );
    assert_eq!(code, 1, "{out}\n{err}");
    insta::assert_snapshot!("schema_draft_unsat_human", out);
    assert!(reqs::load(&dir.path().join("s.toml")).is_ok());

    let (code, out, err) = vera(
        dir.path(),
        port,
        &[
            "schema",
            "draft",
            "reqs.json",
            "-o",
            "s2.toml",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 1, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["schema"], "vera.schema-draft.v1");
    assert_eq!(j["output"], "s2.toml");
    assert_eq!(j["report"]["findings"][0]["kind"], "unsatisfiable-domain");
    assert_eq!(
        j["report"]["findings"][0]["constraints"],
        serde_json::json!(["basal_rate.min", "kvo_rate.max", "D1"])
    );
    assert_eq!(j["llm"]["total"]["requests"], 1);
}

#[test]
fn a_model_that_never_answers_a_draft_is_an_error_and_writes_nothing() {
    let dir = setup();
    let (port, count) = server(|_| "Sure! Here is a schema: basal_rate is a Real.".into());
    let (code, out, err) = vera(
        dir.path(),
        port,
        &["schema", "draft", "reqs.json", "--retries", "1"],
    );
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(
        err.contains("error: no valid schema draft after 2 answers; the last was refused because:"),
        "{err}"
    );
    assert_eq!(count.load(Ordering::SeqCst), 2);
    assert!(!dir.path().join("reqs.schema.toml").exists());
}

#[test]
fn bad_requirement_lists_are_refused_before_the_model_is_asked() {
    let dir = tempfile::tempdir().unwrap();
    let (port, count) = server(|_| draft(""));
    let cases: [(&str, &[u8], &str); 4] = [
        (
            "empty.json",
            b"",
            "error: empty.json: the file is empty: no requirements to draft a schema for",
        ),
        (
            "bin.toml",
            b"\x00\x01\x02",
            "error: bin.toml: a binary file (NUL byte at offset 0), not a requirement list",
        ),
        (
            "bad.json",
            b"{\"requirements\": [\n  {\"id\": \"R1\",, \"text\": \"x\"}\n]}",
            "error: bad.json:2:15: not a requirement list: key must be a string",
        ),
        (
            "none.json",
            br#"{"schema": "vera.requirements.v1", "requirements": []}"#,
            "error: none.json: no requirements in the file: nothing to draft a schema for",
        ),
    ];
    for (name, bytes, expected) in cases {
        std::fs::write(dir.path().join(name), bytes).unwrap();
        let (code, out, err) = vera(dir.path(), port, &["schema", "draft", name]);
        assert_eq!(code, 2, "{name}: {out}\n{err}");
        assert_eq!(err.trim_end(), expected, "{name}");
    }
    assert_eq!(count.load(Ordering::SeqCst), 0, "the model was never asked");
    let written: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("schema"))
        .collect();
    assert!(written.is_empty(), "{written:?}");
}

#[test]
fn the_probe_formalizes_against_the_draft_and_asks_for_what_was_missing() {
    let dir = setup();
    // The first draft has no alarm; the formalization of 6.1(4) needs one.
    let without_alarm = draft("").replace(
        r#",
    {"name": "alarm", "sort": "Bool", "unit": null, "description": "the alarm sounds", "min": null, "max": null, "fixed": false, "role": "output", "serves": ["6.1(4)"]}"#,
        "",
    );
    assert!(!without_alarm.contains("alarm\""));
    let (port, _) = server(move |body| {
        if body.contains("Propose only the missing variables") {
            r#"{"enums": [], "variables": [{"name": "alarm", "sort": "Bool", "unit": null, "description": "the alarm sounds", "min": null, "max": null, "fixed": false, "role": "output", "serves": ["6.1(4)"]}], "domain": []}"#.into()
        } else if body.contains("You design the typed schema") {
            without_alarm.clone()
        } else if body.contains("Requirement: The pump shall sound the alarm") {
            "(=> door_open alarm)".into()
        } else {
            "(>= basal_rate 1)".into()
        }
    });
    let (code, out, err) = vera(
        dir.path(),
        port,
        &["schema", "draft", "reqs.json", "--probe"],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains("repair rounds for missing variables: 1; proposed: alarm\n"),
        "{out}"
    );
    assert!(out.contains("probe: 0 of 2 formalized against the draft; 2 failed, 1 of them for a missing variable; after the repair round 1 of 1 formalize\n  failed for other reasons (see `vera formalize`): 5.1(3)\n"), "{out}");
    let spec = reqs::load(&dir.path().join("reqs.schema.toml")).unwrap();
    assert!(spec.variable("alarm").is_some());
}

#[test]
fn the_extracted_pca_pump_list_is_read_whole_into_the_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let doc = root.join("crates/extract/testdata/open-pca-pump/requirements.txt");
    let list = dir.path().join("pca.json");
    let out = Command::new(env!("CARGO_BIN_EXE_vera"))
        .args([
            "extract",
            &doc.display().to_string(),
            "--format",
            "json",
            "-o",
        ])
        .arg(&list)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen = Arc::new(Mutex::new(String::new()));
    let s2 = seen.clone();
    let (port, _) = server(move |body| {
        *s2.lock().unwrap() = body.to_string();
        "not a schema".into()
    });
    let (code, _, err) = vera(
        dir.path(),
        port,
        &["schema", "draft", "pca.json", "--retries", "0"],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("no valid schema draft after 1 answers"),
        "{err}"
    );
    let body: serde_json::Value = serde_json::from_str(&seen.lock().unwrap()).unwrap();
    let prompt = body["messages"][0]["content"].as_str().unwrap();
    let listed = prompt
        .lines()
        .skip_while(|l| !l.starts_with("Requirements:"))
        .filter(|l| l.starts_with("- "))
        .count();
    assert_eq!(listed, 153);
}
