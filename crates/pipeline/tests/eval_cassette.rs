//! Replays the cassette recorded from the real local model (scripts/local-llm) for
//! `vera eval` on the hemodialysis example (audit, round trip of one requirement,
//! mutation, QA on five questions under two feedback modes with one repair), through the
//! library and through the `vera` binary. No model is called.
//!
//! Recorded with:
//! vera eval examples/hemodialysis/hemodialysis.toml
//!     --questions crates/pipeline/tests/cassettes/qa-5.toml
//!     --experiments audit,roundtrip,mutation,qa --limit-requirements 1
//!     --modes none,counterexample --max-repairs 1 --out DIR
//!     --record crates/pipeline/tests/cassettes/qa-hemodialysis.jsonl

use pipeline::eval::{self, EvalOptions, Experiment, FaultSource};
use pipeline::qa::{FeedbackMode, QaOptions};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn cassette() -> PathBuf {
    root().join("crates/pipeline/tests/cassettes/qa-hemodialysis.jsonl")
}

fn questions() -> PathBuf {
    root().join("crates/pipeline/tests/cassettes/qa-5.toml")
}

fn spec_path() -> PathBuf {
    root().join("examples/hemodialysis/hemodialysis.toml")
}

#[test]
fn replays_through_the_library() {
    let spec = reqs::load(&spec_path()).unwrap();
    let text = std::fs::read_to_string(questions()).unwrap();
    let qs = pipeline::qa::load_questions(&text, "qa-5.toml").unwrap();
    let cfg = llm::LlmConfig {
        replay: Some(cassette()),
        cache_mode: llm::CacheMode::Off,
        ..llm::LlmConfig::local()
    };
    let client = cfg.client().unwrap();
    let opts = EvalOptions {
        experiments: vec![
            Experiment::Audit,
            Experiment::Roundtrip,
            Experiment::Mutation,
            Experiment::Qa,
        ],
        questions: qs,
        qa: QaOptions {
            modes: vec![FeedbackMode::None, FeedbackMode::Counterexample],
            max_repairs: 1,
            ..QaOptions::default()
        },
        faults: FaultSource::Generate,
        selection: pipeline::select::Selection::first(Some(1)),
        ambiguity_samples: 5,
        clarify_rounds: 0,
        jobs: 1,
        embeddings: None,
    };
    let solver = solver::SolverConfig::new(solver::SolverKind::Z3);
    let rep = eval::run(&spec, &client, &solver, &opts).unwrap();
    let qa = rep.qa.as_ref().unwrap();
    assert_eq!(qa.modes.len(), 2);
    assert!(qa.modes.iter().all(|m| m.questions == 5));
    for (name, acc) in &rep.accounting {
        assert_eq!(acc.total.calls, 0, "{name}");
        assert_eq!(acc.total.replayed, acc.total.requests, "{name}");
    }
    assert!(rep.accounting["qa"].total.requests >= 10);
    assert_eq!(rep.roundtrip.as_ref().unwrap().trips.len(), 1);
    let md = eval::markdown(&rep);
    println!("{md}");
    assert!(md.contains("## Fig. 4"));
}

fn vera_binary() -> Option<PathBuf> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    ["debug", "release"]
        .iter()
        .map(|p| target.join(p).join("vera"))
        .find(|p| p.exists())
}

#[test]
fn replays_through_the_cli() {
    let Some(vera) = vera_binary() else {
        eprintln!("note: no vera binary under target/; run `cargo build -p vera` first");
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let mut cmd = std::process::Command::new(&vera);
    for (k, _) in std::env::vars() {
        if k.starts_with("VERA_LLM_") {
            cmd.env_remove(k);
        }
    }
    let status = cmd
        .current_dir(out.path())
        .args(["eval".as_ref(), spec_path().as_os_str()])
        .arg("--questions")
        .arg(questions())
        .args([
            "--experiments",
            "audit,roundtrip,mutation,qa",
            "--limit-requirements",
            "1",
            "--modes",
            "none,counterexample",
            "--max-repairs",
            "1",
            "--no-cache",
            "-j",
            "1",
        ])
        .arg("--replay")
        .arg(cassette())
        .arg("--out")
        .arg(out.path().join("eval"))
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let j: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(&out.path().join("eval/eval.json"))).unwrap(),
    )
    .unwrap();
    assert_eq!(j["schema"], "vera.eval.v1");
    assert_eq!(j["accounting"]["qa"]["total"]["calls"], 0);
    assert_eq!(j["qa"]["modes"].as_array().unwrap().len(), 2);
    let tables = std::fs::read_to_string(out.path().join("eval/tables.md")).unwrap();
    assert!(tables.contains("## Table 1 (b)"));
}
