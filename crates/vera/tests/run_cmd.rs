//! `vera run DOC` through the binary, against a local OpenAI-compatible server that plays
//! the model (the solver is a real z3 process): every stage, the counts, a rerun that
//! reuses every stage without asking the model, an edited schema that is used as it is
//! and never written over, and bad input.

#[path = "support/chat_server.rs"]
mod chat_server;

use chat_server::server;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::Ordering;

/// Runs vera in `dir` against the server on `port`, with an LLM cache in `dir`.
fn vera(dir: &Path, port: u16, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_vera"))
        .args(args)
        .args(["--llm-config", "/nonexistent/vera.toml"])
        .current_dir(dir)
        .env("VERA_LLM_PROVIDER", "local")
        .env("VERA_LLM_BASE_URL", format!("http://127.0.0.1:{port}/v1"))
        .env("VERA_LLM_MAX_RETRIES", "0")
        .env("VERA_LLM_CACHE", dir.join("llm.sqlite"))
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

/// A document in the shape of the Open PCA pump's: numbered paragraphs under section
/// headings, prose around them.
const DOC: &str = "\
1 Introduction
This document describes a small infusion pump. The reader should know the pump.

2 Operation
2.1 Door
(1) The pump shall sound the alarm when the door is open.
(2) The pump shall stop when the door is
open.
(3) While the pump is stopped, the alarm shall sound.
2.2 Bolus
(1) The alarm shall sound when the bolus volume exceeds 20 ml.
";

/// The schema the model drafts (in two chunks: the second repeats `alarm`).
const DRAFT1: &str = r#"{"enums": [{"name": "PumpMode", "values": ["Running", "Stopped"]}],
 "variables": [
  {"name": "door_open", "sort": "Bool", "unit": null, "description": "the door is open", "min": null, "max": null, "fixed": false, "role": "input", "serves": ["2.1(1)", "2.1(2)"]},
  {"name": "alarm", "sort": "Bool", "unit": null, "description": "the alarm sounds", "min": null, "max": null, "fixed": false, "role": "output", "serves": ["2.1(1)", "2.1(3)"]},
  {"name": "mode", "sort": "PumpMode", "unit": null, "description": "whether the pump runs or is stopped", "min": null, "max": null, "fixed": false, "role": "output", "serves": ["2.1(2)", "2.1(3)"]}
 ],
 "domain": []}"#;

const DRAFT2: &str = r#"{"enums": [],
 "variables": [
  {"name": "alarm", "sort": "Bool", "unit": null, "description": "the alarm sounds", "min": null, "max": null, "fixed": false, "role": "output", "serves": ["2.2(1)"]},
  {"name": "bolus_volume", "sort": "Real", "unit": "ml", "description": "volume of a bolus", "min": 0, "max": 50, "fixed": false, "role": "input", "serves": ["2.2(1)"]}
 ],
 "domain": []}"#;

/// The model: drafts, formalizes, samples and describes. `bolus` is its answer for the
/// bolus requirement (a formula over a name the schema lacks fails for a missing
/// variable).
fn model(body: &str, bolus: &str) -> String {
    let has = |s: &str| body.contains(s);
    // The requirement asked about is the last one of the prompt (worked examples come
    // before it).
    let last = body.rfind("Requirement: ").map_or("", |i| &body[i..]);
    let asks = |s: &str| last.starts_with(s);
    if has("You design the typed schema") {
        DRAFT1.into()
    } else if has("Extend the schema") {
        DRAFT2.into()
    } else if has("Write the SMT-LIB formula below as one requirement sentence") {
        if has("Formula: (=> door_open alarm)") {
            "If the door is open, the alarm shall sound.".into()
        } else if has("Formula: (=> door_open (= mode Stopped))") {
            "If the door is open, the pump shall be stopped.".into()
        } else if has("Formula: (=> (= mode Stopped) alarm)") {
            "While the pump is stopped, the alarm shall sound.".into()
        } else {
            "The alarm shall sound when the bolus volume exceeds 20 ml.".into()
        }
    } else if asks("Requirement: The pump shall sound the alarm")
        || asks("Requirement: If the door is open, the alarm")
    {
        "(=> door_open alarm)".into()
    } else if asks("Requirement: The pump shall stop")
        || asks("Requirement: If the door is open, the pump")
    {
        "(=> door_open (= mode Stopped))".into()
    } else if asks("Requirement: While the pump is stopped") {
        "(=> (= mode Stopped) alarm)".into()
    } else if asks("Requirement: The alarm shall sound when the bolus") {
        bolus.into()
    } else {
        "unexpected request".into()
    }
}

fn setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("pump.txt"), DOC).unwrap();
    dir
}

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

const ARGS: &[&str] = &[
    "run",
    "pump.txt",
    "--chunk",
    "3",
    "--samples",
    "2",
    "--smtlib",
];

#[test]
fn every_stage_runs_and_a_rerun_reuses_them() {
    every_stage_with("z3");
}

#[test]
fn every_stage_runs_with_cvc5_too() {
    every_stage_with("cvc5");
}

fn every_stage_with(solver: &str) {
    let dir = setup();
    let (port, count) = server(|b| model(b, "(=> (> bolus_volume 20.0) alarm)"));
    let mut args = ARGS.to_vec();
    args.extend(["--format", "json", "--solver", solver]);
    let (code, out, err) = vera(dir.path(), port, &args);
    // 2.1(1) follows from 2.1(2) and 2.1(3): a redundancy the audit finds (exit 1).
    assert_eq!(code, 1, "{out}\n{err}");
    let v = json(&out);
    assert_eq!(v["schema"], "vera.run.v1");
    assert_eq!(v["extract"]["selected"], 4);
    assert_eq!(v["schema_draft"]["variables"], 4);
    assert_eq!(v["schema_draft"]["chunks"], 2);
    let s = &v["stages"];
    let names: Vec<&str> = s
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "extract",
            "schema",
            "formalize",
            "audit",
            "ambiguity",
            "roundtrip"
        ]
    );
    assert!(s.as_array().unwrap().iter().all(|x| x["reused"] == false));
    let f = &v["formalize"];
    assert_eq!(
        (f["requirements"].as_u64(), f["first_attempt"].as_u64()),
        (Some(4), Some(4))
    );
    assert_eq!(v["audit"]["consistency"], "consistent");
    assert_eq!(v["audit"]["redundant"], 1);
    assert_eq!(v["audit"]["with_findings"], serde_json::json!(["2.1(1)"]));
    assert_eq!(v["ambiguity"]["one_reading"], 4);
    assert_eq!(v["roundtrip"]["checked"], 4);
    assert!(
        err.contains(
            "[2/6] schema: drafting a schema for 4 requirements (2 requests of at most 3)"
        ),
        "{err}"
    );
    // The files of every stage, and a schema that merged both chunks.
    let run = dir.path().join("pump.txt.vera");
    for f in [
        "requirements.json",
        "schema.toml",
        "schema.json",
        "formalized.toml",
        "formalize.json",
        "audit.json",
        "ambiguity.json",
        "roundtrip.json",
        "run.json",
    ] {
        assert!(run.join(f).is_file(), "{f}");
    }
    let spec = reqs::load(&run.join("formalized.toml")).unwrap();
    assert_eq!(spec.formalized().count(), 4);
    assert_eq!(spec.variables.len(), 4);
    let asked = count.load(Ordering::SeqCst);

    // A rerun: every stage up to date, no request reaches the model.
    let (code, out, err) = vera(dir.path(), port, &[ARGS, &["--solver", solver]].concat());
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("audit findings: 2.1(1)"), "{out}");
    assert_eq!(count.load(Ordering::SeqCst), asked);
    assert_eq!(err.matches("up to date, reused").count(), 6, "{err}");
    assert!(out.contains("formalized, first attempt"), "{out}");
    assert!(out.contains("4 of 4 (100.0%)"), "{out}");
    // The same report as a page.
    let (code, out, err) = vera(
        dir.path(),
        port,
        &[ARGS, &["--solver", solver, "--format", "html"]].concat(),
    );
    assert_eq!(code, 1, "{err}");
    assert!(out.starts_with("<!DOCTYPE html>"), "{out}");
    assert!(out.contains("vera run: pump.txt"), "{out}");
    assert!(out.contains("<td>formalized, first attempt</td>"), "{out}");
    assert_eq!(count.load(Ordering::SeqCst), asked);
}

#[test]
fn an_edited_schema_is_used_and_never_written_over() {
    let dir = setup();
    let (port, _) = server(|b| model(b, "(=> (> bolus_volume 20.0) alarm)"));
    let (code, out, err) = vera(dir.path(), port, &[ARGS, &["--no-ambiguity"]].concat());
    assert_eq!(code, 1, "{out}\n{err}");
    let run = dir.path().join("pump.txt.vera");
    let schema = run.join("schema.toml");
    // The reviewer narrows the bolus range: formalization, audit and round trip run
    // again on the edited schema; extraction and drafting are reused.
    let edited = std::fs::read_to_string(&schema)
        .unwrap()
        .replace("max = 50", "max = 30");
    assert_ne!(edited, std::fs::read_to_string(&schema).unwrap());
    std::fs::write(&schema, &edited).unwrap();
    let (code, out, err) = vera(dir.path(), port, &[ARGS, &["--no-ambiguity"]].concat());
    assert_eq!(code, 1, "{out}\n{err}");
    assert_eq!(err.matches("up to date, reused").count(), 2, "{err}");
    assert!(
        out.contains("schema.toml was changed after vera wrote it"),
        "{out}"
    );
    let f = std::fs::read_to_string(run.join("formalized.toml")).unwrap();
    assert!(f.contains("max = 30"), "{f}");

    // The document changes: the schema stage must run again, and the edited schema is
    // not written over.
    std::fs::write(dir.path().join("pump.txt"), DOC.replace("20 ml", "25 ml")).unwrap();
    let (code, out, err) = vera(dir.path(), port, &[ARGS, &["--no-ambiguity"]].concat());
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(
        err.contains("schema.toml was changed after vera wrote it"),
        "{err}"
    );
    assert!(err.contains("--force"), "{err}");
    assert_eq!(std::fs::read_to_string(&schema).unwrap(), edited);
    // With --force it is replaced.
    let (code, out, err) = vera(
        dir.path(),
        port,
        &[ARGS, &["--no-ambiguity", "--force"]].concat(),
    );
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(std::fs::read_to_string(&schema)
        .unwrap()
        .contains("max = 50"));
}

#[test]
fn a_requirement_that_does_not_formalize_is_counted_with_its_reason() {
    let dir = setup();
    let (port, _) = server(|b| model(b, "(=> (> bolus_size 20.0) alarm)"));
    let (code, out, err) = vera(
        dir.path(),
        port,
        &[ARGS, &["--no-ambiguity", "--retries", "1"]].concat(),
    );
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("formalized, first attempt"), "{out}");
    assert!(out.contains("3 of 4 (75.0%)"), "{out}");
    assert!(
        out.contains("not formalized 2.2(1): needs `bolus_size` (not in the schema)"),
        "{out}"
    );
    // The round trip counts the formalized requirements only.
    assert!(out.contains("round trip equivalent, first pass"), "{out}");
    assert!(out.contains("3 of 3 (100.0%)"), "{out}");
}

#[test]
fn a_document_without_requirements_has_nothing_to_check() {
    let dir = setup();
    std::fs::write(
        dir.path().join("prose.txt"),
        "Some prose.\nNothing numbered here.\n",
    )
    .unwrap();
    let (port, count) = server(|_| "unexpected".into());
    let (code, out, err) = vera(dir.path(), port, &["run", "prose.txt", "--smtlib"]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(out.contains("no requirement to check"), "{out}");
    assert_eq!(count.load(Ordering::SeqCst), 0);
    // A section filter that selects nothing says so too.
    let (code, out, _) = vera(
        dir.path(),
        port,
        &["run", "pump.txt", "--sections", "9", "--smtlib"],
    );
    assert_eq!(code, 2);
    assert!(out.contains("none selected in section(s) 9"), "{out}");
    assert_eq!(count.load(Ordering::SeqCst), 0);
}

#[test]
fn bad_documents_are_refused_before_the_model_is_asked() {
    let dir = setup();
    let (port, count) = server(|_| "unexpected".into());
    std::fs::write(dir.path().join("bin.txt"), b"abc\0def").unwrap();
    std::fs::write(dir.path().join("latin1.txt"), b"5.1 A\n(1) caf\xe9 shall\n").unwrap();
    std::fs::write(dir.path().join("empty.txt"), b"").unwrap();
    for (file, says) in [
        ("bin.txt", "binary"),
        ("latin1.txt", "latin1.txt:2:8: not utf-8"),
        ("empty.txt", "empty"),
        ("missing.txt", "missing.txt"),
    ] {
        let (code, out, err) = vera(dir.path(), port, &["run", file, "--smtlib"]);
        assert_eq!(code, 2, "{file}: {out}\n{err}");
        assert!(err.to_lowercase().contains(says), "{file}: {err}");
    }
    assert_eq!(count.load(Ordering::SeqCst), 0);
    // A run state that is not one is refused with its path.
    let run = dir.path().join("pump.txt.vera");
    std::fs::create_dir(&run).unwrap();
    std::fs::write(run.join("run.json"), "{not json").unwrap();
    let (code, _, err) = vera(dir.path(), port, &["run", "pump.txt", "--smtlib"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("run.json") && err.contains("remove it"),
        "{err}"
    );
    assert_eq!(count.load(Ordering::SeqCst), 0);
}

/// A run killed in the middle of formalization (SIGKILL: no chance to clean up)
/// continues where it stopped: extraction and the schema are reused, and the
/// formalizations answered before the kill come from the cache.
#[test]
fn a_run_killed_mid_stage_continues_where_it_stopped() {
    let dir = setup();
    let formalize_asks = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let f2 = formalize_asks.clone();
    let (port, _) = server(move |b| {
        if b.contains("Translate the requirement into one SMT-LIB 2 term") {
            f2.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(std::time::Duration::from_millis(400));
        }
        model(b, "(=> (> bolus_volume 20.0) alarm)")
    });
    let args = [
        ARGS,
        &["--no-ambiguity", "--no-roundtrip", "--llm-concurrency", "1"],
    ]
    .concat();
    let mut child = Command::new(env!("CARGO_BIN_EXE_vera"))
        .args(&args)
        .args(["--llm-config", "/nonexistent/vera.toml"])
        .current_dir(dir.path())
        .env("VERA_LLM_PROVIDER", "local")
        .env("VERA_LLM_BASE_URL", format!("http://127.0.0.1:{port}/v1"))
        .env("VERA_LLM_CACHE", dir.path().join("llm.sqlite"))
        .env_remove("VERA_LLM_MODEL")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while formalize_asks.load(Ordering::SeqCst) < 3 {
        assert!(
            std::time::Instant::now() < deadline,
            "formalization never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    let _ = child.wait();
    let run = dir.path().join("pump.txt.vera");
    assert!(!run.join("formalized.toml").exists());
    let before = formalize_asks.load(Ordering::SeqCst);

    let (code, out, err) = vera(dir.path(), port, &args);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(err.contains("[1/4] extract: up to date, reused"), "{err}");
    assert!(err.contains("[2/4] schema: up to date, reused"), "{err}");
    // The two answers received before the kill were cached; only the rest is asked.
    let asked_again = formalize_asks.load(Ordering::SeqCst) - before;
    assert!(asked_again <= 2, "asked {asked_again} again:\n{err}");
    assert!(out.contains("4 of 4 (100.0%)"), "{out}");
}

/// The JSON payload matches docs/schemas/vera.run.v1.schema.json, with every stage and
/// with a failed formalization.
#[test]
fn the_json_payload_matches_its_schema() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join("docs/schemas/vera.run.v1.schema.json")).unwrap();
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&schema)
        .unwrap();
    // The second bolus answer never formalizes, so its ambiguity samples are not valid
    // either: a requirement that could not be screened, exit status 2.
    for (bolus, expected) in [
        ("(=> (> bolus_volume 20.0) alarm)", 1),
        ("(=> (> bolus_size 20.0) alarm)", 2),
    ] {
        let dir = setup();
        let (port, _) = server(move |b| model(b, bolus));
        let (code, out, err) = vera(dir.path(), port, &[ARGS, &["--format", "json"]].concat());
        assert_eq!(code, expected, "{out}\n{err}");
        let v = json(&out);
        let errors: Vec<String> = validator.iter_errors(&v).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{errors:?}\n{out}");
    }
}

/// `--schema FILE`: a schema written by hand is used instead of a draft (no drafting
/// request), and its formula for a requirement of the same id is kept.
#[test]
fn a_given_schema_replaces_the_draft_and_keeps_its_formulas() {
    let dir = setup();
    std::fs::write(
        dir.path().join("mine.toml"),
        r#"[spec]
name = "mine"

[[enums]]
name = "PumpMode"
values = ["Running", "Stopped"]

[[variables]]
name = "door_open"
sort = "Bool"
role = "input"

[[variables]]
name = "alarm"
sort = "Bool"
role = "output"

[[variables]]
name = "mode"
sort = "PumpMode"
role = "output"

[[variables]]
name = "bolus_volume"
sort = "Real"
min = 0
max = 50
role = "input"

[[requirements]]
id = "2.1(2)"
text = "The pump stops when the door opens."
formula = "(=> door_open (= mode Stopped))"
"#,
    )
    .unwrap();
    let drafts = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let d2 = drafts.clone();
    let (port, _) = server(move |b| {
        if b.contains("You design the typed schema") || b.contains("Extend the schema") {
            d2.fetch_add(1, Ordering::SeqCst);
        }
        model(b, "(=> (> bolus_volume 20.0) alarm)")
    });
    let (code, out, err) = vera(
        dir.path(),
        port,
        &[
            ARGS,
            &[
                "--schema",
                "mine.toml",
                "--no-ambiguity",
                "--format",
                "json",
            ],
        ]
        .concat(),
    );
    assert_eq!(code, 1, "{out}\n{err}");
    assert_eq!(drafts.load(Ordering::SeqCst), 0);
    let v = json(&out);
    assert_eq!(v["schema_draft"]["given"], "mine.toml");
    assert_eq!(v["schema_draft"]["kept_formulas"], 1);
    assert_eq!(v["formalize"]["requirements"], 3);
    assert_eq!(v["formalize"]["kept"], 1);
    // The text is the document's; the formula is the schema file's.
    let spec = reqs::load(&dir.path().join("pump.txt.vera/formalized.toml")).unwrap();
    let r = spec.requirements.iter().find(|r| r.id == "2.1(2)").unwrap();
    assert_eq!(r.text, "The pump shall stop when the door is open.");
    assert_eq!(
        logic::print::term(r.formula.as_ref().unwrap()),
        "(=> door_open (= mode Stopped))"
    );
    assert!(
        v["notes"][0]
            .as_str()
            .unwrap()
            .contains("as given (--schema)"),
        "{out}"
    );
}

/// What a careless or unlucky user does to a run directory, each refused before the
/// model is asked, or recovered from.
#[test]
fn run_directories_are_guarded() {
    let dir = setup();
    let (port, count) = server(|b| model(b, "(=> (> bolus_volume 20.0) alarm)"));
    let run = dir.path().join("pump.txt.vera");
    let quick = [ARGS, &["--no-ambiguity", "--no-roundtrip"]].concat();

    // Formats the report has not, and outputs inside the run directory: refused first.
    for extra in [
        &["--format", "sarif"][..],
        &["--format", "junit"][..],
        &["--samples", "1"][..],
        &["--limit", "0"][..],
        &["--sections", ","][..],
    ] {
        let (code, _, err) = vera(dir.path(), port, &[&quick[..], extra].concat());
        assert_eq!(code, 2, "{extra:?}: {err}");
    }
    std::fs::create_dir(&run).unwrap();
    let (code, _, err) = vera(
        dir.path(),
        port,
        &[&quick[..], &["-o", "pump.txt.vera/run.json"]].concat(),
    );
    assert_eq!(code, 2);
    assert!(err.contains("inside the run directory"), "{err}");
    assert_eq!(count.load(Ordering::SeqCst), 0);

    // A directory with someone's files but no run.json is not a run directory.
    std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
    let (code, _, err) = vera(dir.path(), port, &[&quick[..], &["--dir", "."]].concat());
    assert_eq!(code, 2);
    assert!(err.contains("not a vera run directory"), "{err}");
    assert_eq!(count.load(Ordering::SeqCst), 0);

    // Another vera run holds the directory.
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(run.join(".lock"))
        .unwrap();
    lock.lock().unwrap();
    let (code, _, err) = vera(dir.path(), port, &quick);
    assert_eq!(code, 2);
    assert!(err.contains("another vera run is using"), "{err}");
    assert_eq!(count.load(Ordering::SeqCst), 0);
    lock.unlock().unwrap();
    drop(lock);

    let (code, out, err) = vera(dir.path(), port, &quick);
    assert_eq!(code, 1, "{out}\n{err}");

    // Killed after the schema was renamed into place but before its stage was recorded:
    // the file is known as vera's own, and the stage simply runs again.
    let state_path = run.join("run.json");
    let mut state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&state_path).unwrap()).unwrap();
    state["stages"].as_object_mut().unwrap().remove("schema");
    std::fs::write(&state_path, state.to_string()).unwrap();
    std::fs::write(run.join(".schema.toml.Xy12Ab.tmp"), "half").unwrap();
    let (code, out, err) = vera(dir.path(), port, &quick);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(err.contains("[2/4] schema: drafting"), "{err}");
    assert!(!run.join(".schema.toml.Xy12Ab.tmp").exists());

    // The run of another document is not replaced without --force.
    std::fs::write(dir.path().join("other.txt"), DOC).unwrap();
    let (code, _, err) = vera(
        dir.path(),
        port,
        &[&quick[..], &["--dir", "pump.txt.vera"]].concat()[..]
            .iter()
            .map(|a| if *a == "pump.txt" { "other.txt" } else { a })
            .collect::<Vec<_>>(),
    );
    assert_eq!(code, 2);
    assert!(err.contains("it holds the run of"), "{err}");
}

/// The model answering forms: the form of whichever requirement is asked about.
fn form_model(body: &str) -> String {
    if !body.contains("requirement_form") {
        return model(body, "(=> (> bolus_volume 20.0) alarm)");
    }
    let last = body.rfind("Requirement: ").map_or("", |i| &body[i..]);
    let asks = |s: &str| last.starts_with(s);
    let atom =
        |n: &str, op: &str, v: &str| format!(r#"{{"name": "{n}", "op": "{op}", "value": {v}}}"#);
    let form = |c: String, t: String| format!(r#"{{"if": {c}, "then": {t}}}"#);
    if asks("Requirement: The pump shall sound the alarm") {
        form(atom("door_open", "is", "true"), atom("alarm", "is", "true"))
    } else if asks("Requirement: The pump shall stop") {
        form(
            atom("door_open", "is", "true"),
            atom("mode", "is", "\"Stopped\""),
        )
    } else if asks("Requirement: While the pump is stopped") {
        format!(
            r#"{{"during": {}, "then": {}}}"#,
            atom("mode", "is", "\"Stopped\""),
            atom("alarm", "is", "true")
        )
    } else if asks("Requirement: The alarm shall sound when the bolus") {
        form(
            atom("bolus_volume", "op_placeholder", "20"),
            atom("alarm", "is", "true"),
        )
        .replace("op_placeholder", ">")
    } else {
        "unexpected request".into()
    }
}

#[test]
fn with_forms_the_vote_is_the_ambiguity_screening() {
    let dir = setup();
    let bodies = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let log = bodies.clone();
    let (port, _) = server(move |b| {
        log.lock().unwrap().push(b.to_string());
        form_model(b)
    });
    let (code, out, err) = vera(
        dir.path(),
        port,
        &["run", "pump.txt", "--chunk", "3", "--format", "json"],
    );
    assert_eq!(
        code, 1,
        "the redundancy of 2.1(1) is a finding\n{out}\n{err}"
    );
    let v = json(&out);
    let f = &v["formalize"];
    // 2.1(3) is controlled English ("While the pump is stopped, the alarm shall
    // sound."): read without the model; the other three by forms.
    assert_eq!(f["by_path"]["parser"], 1, "{f}");
    assert_eq!(f["by_path"]["form"], 3, "{f}");
    assert_eq!(f["failed"].as_array().unwrap().len(), 0, "{f}");
    // Three agreeing forms each, and the ambiguity stage reads them: no new samples.
    let a = &v["ambiguity"];
    assert_eq!(a["requirements"], 3, "{a}");
    assert_eq!(a["one_reading"], 3, "{a}");
    assert!(
        err.contains("reading the forms' vote of the formalization (no new samples)"),
        "{err}"
    );
    let bodies = bodies.lock().unwrap();
    // SMT-LIB terms are asked for only by the round trip (of the sentences it wrote),
    // never of the document's own texts: no formalization fallback, no ambiguity sample.
    for b in bodies
        .iter()
        .filter(|b| b.contains("Translate the requirement into one SMT-LIB 2 term"))
    {
        let last = b.rfind("Requirement: ").map_or("", |i| &b[i..]);
        // (2.1(3)'s and 2.2(1)'s texts are also the sentences the round trip writes
        // for their formulas, so only the other two tell the stages apart.)
        for original in [
            "Requirement: The pump shall sound the alarm",
            "Requirement: The pump shall stop",
        ] {
            assert!(!last.starts_with(original), "{last}");
        }
    }
    assert_eq!(
        bodies
            .iter()
            .filter(|b| b.contains("requirement_form"))
            .count(),
        9,
        "three forms for each of the three requirements the parser left to the model"
    );
}

/// `--transcript` naming an existing file (or one of the files written beside it, one per
/// solver process) is refused before any work, without --force: the model is never
/// asked.
#[test]
fn an_existing_transcript_is_refused_before_any_work() {
    let dir = setup();
    let (port, count) = server(|b| model(b, "(=> (> bolus_volume 20.0) alarm)"));
    let quick = [ARGS, &["--no-ambiguity", "--no-roundtrip", "-j", "2"]].concat();
    for existing in ["t.smt2", "t.1.smt2", "t.recheck.smt2"] {
        std::fs::write(dir.path().join(existing), "mine").unwrap();
        let (code, _, err) = vera(
            dir.path(),
            port,
            &[&quick[..], &["--transcript", "t.smt2"]].concat(),
        );
        assert_eq!(code, 2, "{existing}: {err}");
        assert!(
            err.contains(&format!("{existing} already exists")),
            "{existing}: {err}"
        );
        assert_eq!(count.load(Ordering::SeqCst), 0, "{existing}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join(existing)).unwrap(),
            "mine"
        );
        std::fs::remove_file(dir.path().join(existing)).unwrap();
    }
}
