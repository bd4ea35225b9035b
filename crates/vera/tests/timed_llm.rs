//! `vera formalize`, `vera ambiguity` and `vera clarify` on a spec with a `[time]` table,
//! end to end, with a local OpenAI-compatible server playing the model
//! (tests/support/chat_server.rs) and real solvers: pattern answers repaired with the
//! spec reader's exact error, the written spec audited by `vera audit`, readings
//! compared on traces with the question of time, and a clarified pattern applied.

#[path = "support/chat_server.rs"]
mod chat_server;
#[path = "support/timed_answers.rs"]
mod timed_answers;

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use timed_answers::{answer, edge, level};

const SPEC: &str = "crates/vera/tests/fixtures/timed-formalize.toml";

fn root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
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
        .current_dir(root())
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

fn audit(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_vera"))
        .arg("audit")
        .args(args)
        .current_dir(root())
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

#[test]
fn formalize_writes_timed_patterns_that_vera_audit_reads() {
    let (port, count) = chat_server::server(|body| {
        if body.contains("for 3 seconds") {
            if body.contains("not a whole number of ticks") {
                answer(&[
                    ("if", "no_flow".into()),
                    ("held_for", "NO_FLOW_LIMIT".into()),
                    ("then", "(not pump_on)".into()),
                ])
            } else {
                answer(&[
                    ("if", "no_flow".into()),
                    ("held_for", "2.5 s".into()),
                    ("then", "(not pump_on)".into()),
                ])
            }
        } else {
            level()
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("formalized.toml");
    let out_s = out.display().to_string();
    let (code, stdout, stderr) = vera(port, &["formalize", SPEC, "-o", &out_s]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    // Two requests for R1 (one repair), one for R2.
    assert_eq!(count.load(Ordering::SeqCst), 3);
    assert!(
        stdout.contains("ok R1  [timed] if no_flow has held for 3 s then (not pump_on)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("1 answer(s) of 2 rejected and repaired"),
        "{stdout}"
    );
    assert!(
        stdout.contains("ok R2  [timed] if no_flow then alarm"),
        "{stdout}"
    );
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.contains("[requirements.timed]\nif = \"no_flow\"\nheld_for = \"3 s\""),
        "{text}"
    );
    let spec = reqs::load(&out).unwrap();
    assert!(spec.requirements.iter().all(|r| r.timed.is_some()));
    let (code, stdout, stderr) = audit(&[&out_s, "--solver", "z3"]);
    assert!(code == 0 || code == 1, "{stdout}\n{stderr}");
    assert!(stdout.contains("consistent"), "{stdout}");
    // The JSON report carries each pattern as its keys.
    let out2 = dir.path().join("again.toml").display().to_string();
    let (code, stdout, _) = vera(port, &["formalize", SPEC, "-o", &out2, "--format", "json"]);
    assert_eq!(code, 0);
    let j: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        j["report"]["requirements"][1]["pattern"],
        serde_json::json!({"if": "no_flow", "then": "alarm"})
    );
}

#[test]
fn ambiguity_on_a_timed_spec_asks_edge_or_level() {
    for s in solvers() {
        let n = Arc::new(AtomicUsize::new(0));
        let n2 = n.clone();
        let (port, _) = chat_server::server(move |_| {
            if n2.fetch_add(1, Ordering::SeqCst).is_multiple_of(2) {
                edge()
            } else {
                level()
            }
        });
        let (code, out, err) = vera(
            port,
            &["ambiguity", SPEC, "--only", "R2", "-n", "4", "--solver", s],
        );
        assert_eq!(code, 1, "{s}: {out}\n{err}");
        assert!(out.contains("R2 ambiguity-sensitive"), "{s}: {out}");
        assert!(
            out.contains("question (A vs B; edge-or-level)"),
            "{s}: {out}"
        );
        assert!(out.contains("once no_flow becomes true"), "{s}: {out}");
        assert!(out.contains("whenever no_flow holds"), "{s}: {out}");
        assert!(out.contains("0 s to 1 s"), "{s}: {out}");
        assert!(
            out.contains("1 of 1 timed requirements ambiguity-sensitive"),
            "{s}: {out}"
        );
        // The same as JSON and as a page.
        let (code, out, err) = vera(
            port,
            &[
                "ambiguity",
                SPEC,
                "--only",
                "R2",
                "-n",
                "4",
                "--solver",
                s,
                "--format",
                "json",
            ],
        );
        assert_eq!(code, 1, "{s}: {out}\n{err}");
        let j: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(j["schema"], "vera.ambiguity-timed.v1");
        let r = &j["report"]["requirements"][0];
        assert_eq!(r["classes"].as_array().unwrap().len(), 2, "{s}: {out}");
        assert_eq!(r["questions"][0]["kinds"][0], "edge-or-level", "{s}: {out}");
        assert!(
            r["questions"][0]["timeline"]["rows"].is_array(),
            "{s}: {out}"
        );
        let (code, out, _) = vera(
            port,
            &[
                "ambiguity",
                SPEC,
                "--only",
                "R2",
                "-n",
                "4",
                "--solver",
                s,
                "--format",
                "html",
            ],
        );
        assert_eq!(code, 1, "{s}");
        assert!(out.contains("with the questions of time"), "{s}: {out}");
    }
}

#[test]
fn clarify_on_a_timed_spec_converges_and_applies_the_pattern() {
    let n = Arc::new(AtomicUsize::new(0));
    let (port, _) = chat_server::server(move |body| {
        if body.contains("Rewrite the requirement text") {
            "Once no flow becomes detected, the alarm shall sound at that moment.".into()
        } else if body.contains("Once no flow becomes detected")
            || n.fetch_add(1, Ordering::SeqCst).is_multiple_of(2)
        {
            edge()
        } else {
            level()
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let props = dir.path().join("p.json").display().to_string();
    let (code, out, err) = vera(
        port,
        &[
            "clarify", SPEC, "--only", "R2", "-n", "4", "-o", &props, "--solver", "z3",
        ],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains("R2 converged after 1 round(s): 2 -> 1 readings"),
        "{out}"
    );
    let new = dir.path().join("clarified.toml").display().to_string();
    let (code, out, err) = vera(port, &["clarify", SPEC, "--apply", &props, "--out", &new]);
    assert_eq!(code, 0, "{out}\n{err}");
    let spec = reqs::load(Path::new(&new)).unwrap();
    let r2 = spec.requirements.iter().find(|r| r.id == "R2").unwrap();
    assert!(matches!(
        r2.timed.as_ref().unwrap().trigger,
        reqs::timed::Trigger::Edge(_)
    ));
    assert!(r2.text.starts_with("Once no flow becomes detected"));
    let (code, stdout, stderr) = audit(&[&new, "--solver", "z3"]);
    assert!(code == 0 || code == 1, "{stdout}\n{stderr}");
}

/// A provider that is not there: the timed path writes what it has (every requirement
/// marked as not formalized, with the reason), per requirement and in batch mode, and
/// exits 2 instead of losing the run.
#[test]
fn a_timed_run_whose_provider_fails_writes_its_output() {
    // A port nothing listens on: every request fails to connect.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    for batch in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("formalized.toml");
        let out_s = out.display().to_string();
        let mut args = vec!["formalize", SPEC, "-o", &out_s];
        if batch {
            args.push("--batch");
        }
        let (code, stdout, stderr) = vera(port, &args);
        assert_eq!(
            code, 2,
            "batch {batch}: a provider failure is exit 2\n{stdout}\n{stderr}"
        );
        assert!(stderr.contains("stopped asking the model"), "{stderr}");
        let text = std::fs::read_to_string(&out).expect("the output is written");
        assert_eq!(
            text.matches("# NOT FORMALIZED: the provider failed")
                .count(),
            2,
            "batch {batch}: both requirements say why\n{text}"
        );
        let spec = reqs::load(&out).unwrap();
        assert!(spec.requirements.iter().all(|r| r.timed.is_none()));
    }
}
