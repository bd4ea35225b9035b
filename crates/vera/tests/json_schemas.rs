//! The JSON payloads of every command against their schemas in docs/schemas.
//!
//! Every payload that a command line can produce is produced here by the real `vera`
//! binary on example data of the repository (real solvers, real Frama-C) and validated
//! against `docs/schemas/<tag>.schema.json`; the commands that ask a language model
//! replay the cassettes recorded from the local model, as the other replay tests do.
//! The schemas themselves are checked against the draft 2020-12 meta-schema, every tag
//! has a schema file and a section in docs/json.md, and a broken payload is shown to be
//! rejected, so that a passing validation means something.
//!
//! `vera schema draft` has no recording of a real model yet: its payloads come from runs
//! against a local server that plays the model (tests/support/chat_server.rs). So do
//! the payloads of `vera formalize`, `vera ambiguity` and `vera clarify` on a spec with a
//! `[time]` table, whose pattern answers are scripted as in timed_llm.rs
//! (tests/support/timed_answers.rs).
//!
//! Not produced here (see docs/json.md): `vera.text.v1`, whose commands have no
//! `--format` option (`text_payload_has_no_command_line` pins that), and a `vera
//! roundtrip` run with trips: no recorded cassette holds the requests of `vera roundtrip`
//! (its only recording was made through `vera eval --only`, which `roundtrip` lacks), so
//! the envelope comes from a run with no trips and the trip shapes from the `roundtrip`
//! member of a replayed eval.json, which has the same schema.

#[path = "support/chat_server.rs"]
mod chat_server;
#[path = "support/timed_answers.rs"]
mod timed_answers;

use jsonschema::{Draft, Validator};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Every payload tag, as listed in docs/json.md.
const TAGS: &[&str] = &[
    "vera.ambiguity-timed.v1",
    "vera.ambiguity.v1",
    "vera.ask-timed.v1",
    "vera.ask.v1",
    "vera.audit-timed.v1",
    "vera.audit.v1",
    "vera.c-segments.v1",
    "vera.c-strength.v1",
    "vera.c-synth.v1",
    "vera.c-verify.v1",
    "vera.clarify-apply.v1",
    "vera.clarify-run-timed.v1",
    "vera.clarify-run.v1",
    "vera.clarify.v1",
    "vera.consistency-batch.v1",
    "vera.consistency-nl.v1",
    "vera.consistency.v1",
    "vera.derive.v1",
    "vera.draft-variables.v1",
    "vera.equiv.v1",
    "vera.error.v1",
    "vera.eval.v1",
    "vera.faults.v1",
    "vera.formalize.v1",
    "vera.mutate.v1",
    "vera.qa.v1",
    "vera.requirements.v1",
    "vera.restate-run.v1",
    "vera.restate.v1",
    "vera.roundtrip.v1",
    "vera.run.v1",
    "vera.schema-draft.v1",
    "vera.smt-check.v1",
    "vera.table-check.v1",
    "vera.tests-cover.v1",
    "vera.tests-cover-timed.v1",
    "vera.tests-run.v1",
    "vera.tests-run-timed.v1",
    "vera.tests-timed.v1",
    "vera.tests.v1",
    "vera.text.v1",
];

/// The tests that run Frama-C take turns: on a small machine, WP goals run in parallel
/// with other verifier runs can hit the per-goal timeout, and the replayed synthesis
/// must see the verifier answers of its recording.
static FRAMA_C: Mutex<()> = Mutex::new(());

const HEMO: &str = "examples/hemodialysis/hemodialysis.toml";
const HEMO_TIMED: &str = "examples/hemodialysis/hemodialysis-timed.toml";
const TIMED_RT: &str = "crates/vera/tests/fixtures/timed-rt.toml";
const TIMED_TEXT: &str = "crates/vera/tests/fixtures/timed-formalize.toml";
const CRA: &str = "testdata/fees-dataset/cra-25";
const CRA_BOUNDS: &str = "examples/fees/cra-bounds.json";
const SIN_EXCEPTION: &str = "sin_exception=(< sin 900000000)";
const ONLY: &str = "R-AIR-1,R-AIR-2,R-TEMP-1,R-TEMP-2,R-BF-4";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn cassette(name: &str) -> String {
    format!("crates/pipeline/tests/cassettes/{name}")
}

fn schema_path(tag: &str) -> PathBuf {
    root()
        .join("docs/schemas")
        .join(format!("{tag}.schema.json"))
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

fn schema(tag: &str) -> Value {
    read_json(&schema_path(tag))
}

/// The schema of `tag`, compiled as draft 2020-12. No retriever is configured and the
/// crate is built without its HTTP and file resolvers: every `$ref` is inside the file.
fn validator(tag: &str) -> Validator {
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .build(&schema(tag))
        .unwrap_or_else(|e| panic!("{tag}: the schema does not compile: {e}"))
}

/// Every validation error of `payload` against the schema of `tag`, one per line.
fn errors(tag: &str, payload: &Value) -> Vec<String> {
    validator(tag)
        .iter_errors(payload)
        .map(|e| format!("at {:?}: {e}", e.instance_path.to_string()))
        .collect()
}

/// Asserts that `payload` carries `tag` and is valid under its schema, printing every
/// error and the payload when it is not.
fn assert_valid(tag: &str, payload: &Value, what: &str) {
    assert_eq!(payload["schema"], tag, "{what}: wrong schema tag");
    let errs = errors(tag, payload);
    assert!(
        errs.is_empty(),
        "{what}: the {tag} payload does not match docs/schemas/{tag}.schema.json:\n{}\n\npayload:\n{}",
        errs.join("\n"),
        serde_json::to_string_pretty(payload).unwrap()
    );
}

/// Runs vera from the repository root with no LLM configuration, model variables or
/// cache; returns the exit code, standard output parsed as JSON, and standard error.
fn run(args: &[&str]) -> (i32, Value, String) {
    run_on(None, args)
}

/// [`run`], and with `port` the local chat server on that port plays the model (the
/// `local` provider at `http://127.0.0.1:PORT/v1`, no retries).
fn run_on(port: Option<u16>, args: &[&str]) -> (i32, Value, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vera"));
    for (k, _) in std::env::vars() {
        if k.starts_with("VERA_LLM_") {
            cmd.env_remove(k);
        }
    }
    if let Some(port) = port {
        cmd.env("VERA_LLM_PROVIDER", "local")
            .env("VERA_LLM_BASE_URL", format!("http://127.0.0.1:{port}/v1"))
            .env("VERA_LLM_MAX_RETRIES", "0");
    }
    let out = cmd
        .args(args)
        .current_dir(root())
        .output()
        .expect("vera runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let json = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!("vera {args:?}: standard output is not JSON ({e}):\n{stdout}\n{stderr}")
    });
    (out.status.code().unwrap_or(-1), json, stderr)
}

/// Runs `vera ARGS --format json`, checks the exit code against `codes`, validates the
/// payload against the schema of `tag` and returns it.
fn check(tag: &str, args: &[&str], codes: &[i32]) -> Value {
    check_on(None, tag, args, codes)
}

/// [`check`], with the model played by the local chat server on `port` when given.
fn check_on(port: Option<u16>, tag: &str, args: &[&str], codes: &[i32]) -> Value {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let (code, json, stderr) = run_on(port, &all);
    let what = format!("vera {}", all.join(" "));
    assert!(
        codes.contains(&code),
        "{what}: exit status {code}, expected one of {codes:?}\n{stderr}"
    );
    assert_valid(tag, &json, &what);
    json
}

/// [`check`] with the model played by the local chat server on `port`, no LLM
/// configuration file and no cache; every request reached the server.
fn check_scripted(tag: &str, port: u16, args: &[&str], codes: &[i32]) -> Value {
    let mut all = args.to_vec();
    all.extend(["--llm-config", "/nonexistent/vera.toml", "--no-cache"]);
    let j = check_on(Some(port), tag, &all, codes);
    let total = &j["llm"]["total"];
    assert_eq!(total["replayed"], 0, "{tag}: {total}");
    assert_eq!(total["cache_hits"], 0, "{tag}: {total}");
    assert_eq!(total["calls"], total["requests"], "{tag}: {total}");
    j
}

/// [`check`] with a replayed cassette and no LLM configuration or cache.
fn check_replay(tag: &str, cassette_name: &str, args: &[&str], codes: &[i32]) -> Value {
    let c = cassette(cassette_name);
    let mut all = args.to_vec();
    all.extend([
        "--llm-config",
        "/nonexistent/vera.toml",
        "--no-cache",
        "--replay",
        &c,
    ]);
    let j = check(tag, &all, codes);
    // Nothing but the cassette answers (c synth keeps its accounting in the report).
    let llm = if j["llm"].is_object() {
        &j["llm"]
    } else {
        &j["report"]["llm"]
    };
    assert_eq!(llm["total"]["calls"], 0, "{tag}: {}", llm["total"]);
    assert_eq!(llm["total"]["replayed"], llm["total"]["requests"], "{tag}");
    j
}

fn statuses<'a>(payloads: &'a [Value], pointer: &str) -> Vec<&'a str> {
    payloads
        .iter()
        .filter_map(|j| j.pointer(pointer).and_then(Value::as_str))
        .collect()
}

// ------------------------------------------------------------------ the schemas

#[test]
fn every_schema_file_is_a_valid_draft_2020_12_schema_for_its_tag() {
    let dir = root().join("docs/schemas");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut expected: Vec<String> = TAGS.iter().map(|t| format!("{t}.schema.json")).collect();
    expected.sort();
    assert_eq!(
        files, expected,
        "one schema file per tag, and no other file"
    );
    for tag in TAGS {
        let s = schema(tag);
        if let Err(e) = jsonschema::meta::validate(&s) {
            panic!("{tag}: not a valid schema: {e} at {}", e.instance_path);
        }
        validator(tag);
        assert_eq!(
            s["$schema"], "https://json-schema.org/draft/2020-12/schema",
            "{tag}"
        );
        assert_eq!(
            s["$id"],
            format!("https://vera.invalid/schemas/{tag}.schema.json"),
            "{tag}"
        );
        for key in ["title", "description"] {
            assert!(
                s[key].as_str().is_some_and(|t| !t.is_empty()),
                "{tag}: {key}"
            );
        }
        assert_eq!(s["type"], "object", "{tag}");
        assert_eq!(s["properties"]["schema"]["const"], *tag, "{tag}");
        assert_eq!(s["additionalProperties"], false, "{tag}");
        let required: Vec<&str> = s["required"]
            .as_array()
            .unwrap_or_else(|| panic!("{tag}: no required list"))
            .iter()
            .map(|r| r.as_str().unwrap())
            .collect();
        assert!(required.contains(&"schema"), "{tag}: `schema` not required");
        for r in &required {
            assert!(
                s["properties"].get(r).is_some(),
                "{tag}: required `{r}` is not a property"
            );
        }
        // Only local references: nothing is fetched.
        let text = std::fs::read_to_string(schema_path(tag)).unwrap();
        for (i, _) in text.match_indices("\"$ref\"") {
            assert!(
                text[i..].starts_with("\"$ref\": \"#/$defs/"),
                "{tag}: a $ref that is not local: {}",
                &text[i..(i + 60).min(text.len())]
            );
        }
    }
}

/// The same shape (a witness, the `llm` accounting, ...) is written once per file that
/// uses it: every copy must be the same.
#[test]
fn shared_definitions_are_the_same_in_every_schema() {
    let mut seen: std::collections::BTreeMap<String, (String, Value)> = Default::default();
    for tag in TAGS {
        let s = schema(tag);
        let Some(defs) = s["$defs"].as_object() else {
            continue;
        };
        for (name, def) in defs {
            match seen.get(name) {
                Some((first, d)) => {
                    assert_eq!(d, def, "$defs/{name} differs between {first} and {tag}")
                }
                None => {
                    seen.insert(name.clone(), (tag.to_string(), def.clone()));
                }
            }
        }
    }
    for shared in [
        "llm",
        "witness",
        "assignment",
        "partition",
        "check_report",
        "timeline",
        "timed_pattern",
        "proposal",
    ] {
        assert!(seen.contains_key(shared), "{shared}");
    }
}

#[test]
fn every_tag_has_a_section_in_docs_json_md() {
    let doc = std::fs::read_to_string(root().join("docs/json.md")).unwrap();
    for tag in TAGS {
        assert!(
            doc.lines().any(|l| l.trim() == format!("## {tag}")),
            "docs/json.md has no `## {tag}` section"
        );
        assert!(
            doc.contains(&format!("(schemas/{tag}.schema.json)")),
            "docs/json.md does not link schemas/{tag}.schema.json"
        );
    }
    assert!(
        doc.contains("v1 → v2") || doc.contains("v1 to v2"),
        "the stability promise"
    );
}

/// A payload that lacks a required field, has a field the schema does not know, or a
/// status that is not one of the listed ones is rejected.
#[test]
fn validation_rejects_a_broken_audit_payload() {
    let tag = "vera.audit.v1";
    let (_, good, _) = run(&[
        "audit",
        "examples/hemodialysis/hemodialysis-inconsistent.toml",
        "--no-cache",
        "--format",
        "json",
    ]);
    assert_valid(tag, &good, "the unbroken payload");
    let broken = |f: &dyn Fn(&mut Value)| {
        let mut j = good.clone();
        f(&mut j);
        errors(tag, &j)
    };
    let cases: Vec<(&str, Vec<String>, &str)> = vec![
        (
            "a required field deleted",
            broken(&|j| {
                j.as_object_mut().unwrap().remove("summary");
            }),
            "summary",
        ),
        (
            "an unknown top-level field",
            broken(&|j| {
                j["verdict_of_the_day"] = Value::from("fine");
            }),
            "verdict_of_the_day",
        ),
        (
            "an unknown consistency status",
            broken(&|j| j["consistency"]["status"] = Value::from("mostly-consistent")),
            "/consistency",
        ),
        (
            "an unknown redundancy status",
            broken(&|j| j["requirements"][0]["redundancy"]["status"] = Value::from("maybe")),
            "/requirements/0/redundancy",
        ),
        (
            "a negative count",
            broken(&|j| j["summary"]["vacuous"] = Value::from(-1)),
            "/summary/vacuous",
        ),
        (
            "a count that is not an integer",
            broken(&|j| j["queries"] = Value::from(2.5)),
            "/queries",
        ),
        (
            "an unknown field in a witness row",
            broken(&|j| {
                j["requirements"][0]["violatability"]["witness"][0]["confidence"] = Value::from(1)
            }),
            "/requirements/0/violatability",
        ),
        (
            "a wrong schema tag",
            broken(&|j| j["schema"] = Value::from("vera.audit.v2")),
            "/schema",
        ),
    ];
    for (what, errs, mention) in cases {
        assert!(!errs.is_empty(), "{what}: accepted");
        assert!(
            errs.iter().any(|e| e.contains(mention)),
            "{what}: no error mentions {mention}:\n{}",
            errs.join("\n")
        );
    }
}

/// The commands whose payload is `vera.text.v1` print text only: there is no command
/// line that prints this payload, so no run validates it. When one gains `--format`, this
/// test fails; add a run to the tests above.
#[test]
fn text_payload_has_no_command_line() {
    for args in [
        &["bl", "fmt", "x.bl", "--format", "json"][..],
        &["bl", "check", "x.bl", "--format", "json"],
        &["bl", "encode", "x.bl", "--format", "json"],
        &["bl", "eval", "x.bl", "--format", "json"],
        &["smt", "fmt", "x.smt2", "--format", "json"],
        &["llm", "ping", "--format", "json"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_vera"))
            .args(args)
            .current_dir(root())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("unexpected argument '--format'"),
            "{args:?}: {err}"
        );
    }
}

// ------------------------------------------------------------------ solver commands

#[test]
fn audit_payloads() {
    let tag = "vera.audit.v1";
    let runs = [
        // Findings (vacuity, redundancy), two requirements not formalized.
        check(tag, &["audit", HEMO, "--no-cache"], &[1]),
        check(tag, &["audit", HEMO, "--no-cache", "--witnesses"], &[1]),
        // Inconsistent, with several conflicts asked for.
        check(
            tag,
            &[
                "audit",
                "examples/hemodialysis/hemodialysis-inconsistent.toml",
                "--no-cache",
                "--all-conflicts",
                "3",
            ],
            &[1],
        ),
        // No findings at all.
        check(
            tag,
            &["audit", "examples/labeled/lights.toml", "--no-cache"],
            &[0],
        ),
        // Conflicts for some inputs (unrealizable), with the other solver.
        check(
            tag,
            &[
                "audit",
                "examples/labeled/pump.toml",
                "--no-cache",
                "--solver",
                "cvc5",
            ],
            &[1],
        ),
        check(
            tag,
            &["audit", "examples/labeled/req-pair.toml", "--no-cache"],
            &[1],
        ),
    ];
    let consistency = statuses(&runs, "/consistency/status");
    assert!(consistency.contains(&"consistent") && consistency.contains(&"inconsistent"));
    let realizability = statuses(&runs, "/realizability/status");
    assert!(realizability.contains(&"unrealizable") && realizability.contains(&"realizable"));
    assert!(statuses(&runs, "/solver").contains(&"cvc5"));
}

/// `vera audit` on specs with a `[time]` table: the audits on traces.
#[test]
fn audit_timed_payloads() {
    let tag = "vera.audit-timed.v1";
    let runs = [
        // Consistent with a looping witness, rt-inconsistent (Ultimate's
        // ex-rtinconsistent-01), no roles: the environment is not checked.
        check(tag, &["audit", TIMED_RT], &[1]),
        // Inconsistent: rt-inconsistency and the environment not checked.
        check(
            tag,
            &[
                "audit",
                "crates/vera/tests/fixtures/timed-inconsistent.toml",
                "--all-conflicts",
                "3",
            ],
            &[1],
        ),
        // Input roles: dead ends the environment can force. Exit status 0 is accepted
        // because an environment conflict does not make findings yet (see
        // timed_cli.rs, `an_environment_conflict_is_a_finding`).
        check(
            tag,
            &[
                "audit",
                "crates/vera/tests/fixtures/timed-env.toml",
                "--witnesses",
            ],
            &[0, 1],
        ),
        // No findings.
        check(
            tag,
            &[
                "audit",
                "crates/vera/tests/fixtures/timed-ok.toml",
                "--no-rt",
            ],
            &[0],
        ),
        // A horizon shorter than the requirement's durations, with the other solver.
        check(
            tag,
            &["audit", TIMED_RT, "--horizon", "3 s", "--solver", "cvc5"],
            &[1],
        ),
        // The repository's example: units, enums, named durations, input roles.
        check(tag, &["audit", HEMO_TIMED, "--no-rt"], &[0, 1]),
    ];
    let consistency = statuses(&runs, "/consistency/status");
    assert!(
        consistency.contains(&"consistent") && consistency.contains(&"inconsistent"),
        "{consistency:?}"
    );
    let rt = statuses(&runs, "/rt_inconsistency/status");
    for s in ["found", "none-up-to", "not-checked"] {
        assert!(rt.contains(&s), "rt_inconsistency {s}: {rt:?}");
    }
    let env = statuses(&runs, "/environment/status");
    for s in ["found", "not-checked"] {
        assert!(env.contains(&s), "environment {s}: {env:?}");
    }
    assert!(statuses(&runs, "/solver").contains(&"cvc5"));
    // The witnesses: a looping one, the rt prefix, the environment's prefix, a unit.
    assert!(runs[0]["consistency"]["witness"]["loops_to"].is_u64());
    assert_eq!(
        runs[0]["rt_inconsistency"]["conflicts"][0]["requirements"],
        serde_json::json!(["req1", "req2"])
    );
    assert!(!runs[4]["bound_too_small"].as_array().unwrap().is_empty());
    assert!(runs[2]["environment"]["conflicts"][0]["prefix"]["rows"].is_array());
    assert!(
        runs[5].to_string().contains("\"unit\":\"mL\""),
        "no witness row carries a unit"
    );
}

/// `vera ask` on a spec with a `[time]` table: questions over time, every verdict.
#[test]
fn ask_timed_payloads() {
    let tag = "vera.ask-timed.v1";
    let runs = [
        // Entailed, not entailed (a timeline), scenario impossible.
        check(
            tag,
            &[
                "ask",
                HEMO_TIMED,
                "--questions",
                "examples/hemodialysis/questions-timed.toml",
            ],
            &[1],
        ),
        // One claim, the other solver, an answer that differs from none expected.
        check(
            tag,
            &[
                "ask",
                TIMED_RT,
                "--scenario",
                "at 0 s: (and A B)",
                "--claim",
                "sometime [0 s, 5 s]: C",
                "--solver",
                "cvc5",
            ],
            &[0, 1],
        ),
    ];
    let verdicts = statuses(&runs[..1], "/answers/0/verdict");
    assert_eq!(verdicts, ["entailed"]);
    let all: Vec<&str> = runs[0]["answers"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a["verdict"].as_str())
        .collect();
    for v in ["entailed", "not-entailed", "scenario-impossible"] {
        assert!(all.contains(&v), "{v}: {all:?}");
    }
    assert!(runs[0]["answers"][1]["counterexample"]["rows"].is_array());
    assert_eq!(runs[1]["answers"][0]["scenario"][0], "at 0 s: (and A B)");
}

/// A timed payload with a field missing, an unknown status or a loop without its time
/// is rejected.
#[test]
fn validation_rejects_a_broken_timed_payload() {
    let tag = "vera.audit-timed.v1";
    let (_, good, _) = run(&["audit", TIMED_RT, "--format", "json"]);
    assert_valid(tag, &good, "the unbroken payload");
    let broken = |f: &dyn Fn(&mut Value)| {
        let mut j = good.clone();
        f(&mut j);
        errors(tag, &j)
    };
    let cases: Vec<(&str, Vec<String>, &str)> = vec![
        (
            "a required field deleted",
            broken(&|j| {
                j.as_object_mut().unwrap().remove("environment");
            }),
            "environment",
        ),
        (
            "an unknown rt status",
            broken(&|j| j["rt_inconsistency"]["status"] = Value::from("probably-fine")),
            "/rt_inconsistency",
        ),
        (
            "a dead end without its prefix",
            broken(&|j| {
                j["rt_inconsistency"]["conflicts"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("prefix");
            }),
            "/rt_inconsistency",
        ),
        (
            "a loop without its time",
            broken(&|j| {
                j["consistency"]["witness"]
                    .as_object_mut()
                    .unwrap()
                    .remove("loops_to_time");
            }),
            "/consistency",
        ),
        (
            "a negative step",
            broken(&|j| j["horizon"]["steps"] = Value::from(-1)),
            "/horizon/steps",
        ),
        (
            "an unknown field in a trace row",
            broken(&|j| {
                j["requirements"][0]["violatability"]["trace"]["rows"][0]["note"] = Value::from("x")
            }),
            "/requirements/0/violatability",
        ),
    ];
    for (what, errs, mention) in cases {
        assert!(!errs.is_empty(), "{what}: accepted");
        assert!(
            errs.iter().any(|e| e.contains(mention)),
            "{what}: no error mentions {mention}:\n{}",
            errs.join("\n")
        );
    }
}

#[test]
fn ask_and_derive_payloads() {
    let tag = "vera.ask.v1";
    let runs = [
        check(
            tag,
            &[
                "ask",
                HEMO,
                "--questions",
                "examples/hemodialysis/questions.toml",
            ],
            &[1],
        ),
        check(
            tag,
            &[
                "ask",
                HEMO,
                "--scenario",
                "(> venous_pressure ven_high_limit)",
                "--claim",
                "venous_clamp_closed",
            ],
            &[0],
        ),
        check(tag, &["ask", HEMO, "--claim", "blood_pump_on"], &[1]),
        // A schema with roles: the answer says which inputs the scenario fixes.
        check(
            tag,
            &["ask", "examples/labeled/pump.toml", "--claim", "true"],
            &[0],
        ),
    ];
    let verdicts: Vec<&str> = runs
        .iter()
        .flat_map(|j| j["answers"].as_array().unwrap())
        .filter_map(|a| a["verdict"].as_str())
        .collect();
    for v in ["entailed", "not-entailed", "scenario-impossible"] {
        assert!(verdicts.contains(&v), "{v}: {verdicts:?}");
    }
    assert!(runs[3]["answers"][0]["roles"].is_object());

    let tag = "vera.derive.v1";
    let runs = [
        check(
            tag,
            &["ask", HEMO, "--derive", "--scenario", "(= phase Therapy)"],
            &[0],
        ),
        check(
            tag,
            &[
                "ask",
                HEMO,
                "--derive",
                "--scenario",
                "(and (= phase Therapy) (< ven_low_limit 5))",
            ],
            &[1],
        ),
        check(
            tag,
            &["ask", "examples/labeled/pump.toml", "--derive"],
            &[0],
        ),
    ];
    let got = statuses(&runs, "/result/status");
    assert_eq!(got, ["facts", "scenario-impossible", "facts"]);
}

#[test]
fn equiv_and_mutate_payloads() {
    let j = check(
        "vera.equiv.v1",
        &[
            "equiv",
            HEMO,
            "(> blood_flow 200)",
            "(>= blood_flow 200)",
            "(< 200 blood_flow)",
        ],
        &[1],
    );
    assert_eq!(j["sets"][0]["partition"]["metrics"]["classes"], 2);
    check(
        "vera.equiv.v1",
        &["equiv", HEMO, "(> blood_flow 200)", "(< 200 blood_flow)"],
        &[0],
    );
    for spec in [
        "examples/labeled/req-pair.toml",
        "examples/labeled/lights.toml",
    ] {
        check("vera.mutate.v1", &["mutate", spec], &[0, 1]);
    }
}

#[test]
fn tests_payloads() {
    let j = check(
        "vera.tests.v1",
        &[
            "tests",
            HEMO,
            "--roles",
            "examples/hemodialysis/test-roles.toml",
        ],
        &[1],
    );
    assert_eq!(j["cases"].as_array().unwrap().len(), 48);
    check(
        "vera.tests.v1",
        &[
            "tests",
            "crates/vera/tests/fixtures/tests-small.toml",
            "--no-boundaries",
        ],
        &[1],
    );
    let clamp = [
        "tests",
        "run",
        "examples/c/clamp-spec.toml",
        "--impl",
        "examples/c/clamp.c",
        "--function",
        "clamp",
    ];
    let j = check("vera.tests-run.v1", &clamp, &[0]);
    assert_eq!(j["failed"], 0);
    // A failing and an erroring run: the Ontario rule with a mistyped bracket, and an
    // executable that does not exist.
    let dir = tempfile::tempdir().unwrap();
    let prog = std::fs::read_to_string(root().join(CRA).join("on/prog.bl")).unwrap();
    let typo = dir.path().join("on-typo.bl");
    std::fs::write(
        &typo,
        prog.replace("105775 then 105775", "105757 then 105757"),
    )
    .unwrap();
    let on = format!("{CRA}/on/on.smt2");
    let j = check(
        "vera.tests-run.v1",
        &[
            "tests",
            "run",
            &on,
            "--bounds",
            CRA_BOUNDS,
            "--impl",
            typo.to_str().unwrap(),
            "--fix",
            "sin=1",
        ],
        &[1],
    );
    assert!(j["failed"].as_u64().unwrap() > 0);
    let j = check(
        "vera.tests-run.v1",
        &[
            "tests",
            "run",
            "examples/c/clamp-spec.toml",
            "--impl",
            "/nonexistent/impl",
        ],
        &[2],
    );
    assert!(j["errors"].as_u64().unwrap() > 0);
    // Timed sequences run on an executable that stops the pump and sounds the alarm
    // at every step (all pass), and on one that prints nothing (every sequence an error).
    let steady = dir.path().join("steady.sh");
    std::fs::write(
        &steady,
        "#!/bin/sh\nawk 'NR > 1 { print \"false,true\" }'\n",
    )
    .unwrap();
    let silent = dir.path().join("silent.sh");
    std::fs::write(&silent, "#!/bin/sh\ncat > /dev/null\n").unwrap();
    for p in [&steady, &silent] {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let j = check(
        "vera.tests-run-timed.v1",
        &[
            "tests",
            "run",
            HEMO_TIMED,
            "--impl",
            steady.to_str().unwrap(),
        ],
        &[0],
    );
    assert_eq!(j["failed"], 0);
    let j = check(
        "vera.tests-run-timed.v1",
        &[
            "tests",
            "run",
            HEMO_TIMED,
            "--impl",
            silent.to_str().unwrap(),
        ],
        &[2],
    );
    assert!(j["errors"].as_u64().unwrap() > 0);
    // A suite of sequences measured against the timed spec: two sequences, one of
    // which breaks R-AIR-3 (the pump runs while air is detected).
    let seqs = dir.path().join("sequences.csv");
    std::fs::write(
        &seqs,
        "sequence,step,phase,no_flow,air_detected,alarm_confirmed,reinfused_ml,blood_pump_on,alarm\n\
         ok,0,Therapy,false,true,false,0,false,true\n\
         ok,1,Therapy,false,true,false,0,false,true\n\
         bad,0,Therapy,false,true,false,0,true,true\n",
    )
    .unwrap();
    let j = check(
        "vera.tests-cover-timed.v1",
        &["tests", "cover", HEMO_TIMED, seqs.to_str().unwrap()],
        &[1],
    );
    assert_eq!(j["sequences"][1]["status"], "invalid");
    // Coverage of a suite with an impossible vector and a vector that leaves a value open.
    let suite = dir.path().join("suite.csv");
    std::fs::write(&suite, "id,x,alarm\nA,60,false\nB,60,true\nC,,\n").unwrap();
    let j = check(
        "vera.tests-cover.v1",
        &[
            "tests",
            "cover",
            "crates/vera/tests/fixtures/tests-small.toml",
            suite.to_str().unwrap(),
        ],
        &[1],
    );
    assert_eq!(j["vectors"][0]["status"], "invalid");
    let j = check("vera.tests-timed.v1", &["tests", HEMO_TIMED], &[0]);
    assert!(j["sequences"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["sequence"]["shape"] == "missed-by-one"));
    // A timed spec with plain requirements: their obligations as sequences.
    let j = check(
        "vera.tests-timed.v1",
        &["tests", "crates/vera/tests/fixtures/timed-plain.toml"],
        &[0],
    );
    assert!(j["sequences"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["sequence"]["shape"] == "obligation"));
}

#[test]
fn consistency_payloads() {
    let tag = "vera.consistency.v1";
    let nl = format!("{CRA}/nu/nu.smt2");
    let imp = format!("{CRA}/nu/prog.bl");
    let consistent = check(
        tag,
        &[
            "consistency",
            "--nl",
            &nl,
            "--impl",
            &imp,
            "--bounds",
            CRA_BOUNDS,
            "--assume",
            SIN_EXCEPTION,
        ],
        &[0],
    );
    assert_eq!(consistent["report"]["verdict"], "consistent");
    // A check that cannot run (the documentation side does not parse): no report, the
    // error instead, exit 2.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.smt2");
    std::fs::write(&bad, "(declare-const x Real)\n(assert (= x 1.0)\n").unwrap();
    let broken = check(
        tag,
        &["consistency", "--nl", bad.to_str().unwrap(), "--impl", &imp],
        &[2],
    );
    assert!(broken["report"].is_null(), "{broken}");
    assert!(
        broken["error"].as_str().unwrap().contains("does not parse"),
        "{broken}"
    );
    // Without the assumption: a counterexample and the divergence regions.
    let inconsistent = check(
        tag,
        &[
            "consistency",
            "--nl",
            &nl,
            "--impl",
            &imp,
            "--bounds",
            CRA_BOUNDS,
            "--enumerate",
        ],
        &[1],
    );
    assert!(inconsistent["report"]["counterexample"].is_object());
    assert!(!inconsistent["report"]["regions"]
        .as_array()
        .unwrap()
        .is_empty());

    let tag = "vera.consistency-batch.v1";
    // --bounds applies to every case (federal's own bounds.json is not used): exit 0.
    let cra = check(
        tag,
        &[
            "consistency",
            "--batch",
            CRA,
            "--bounds",
            CRA_BOUNDS,
            "--assume",
            SIN_EXCEPTION,
        ],
        &[0],
    );
    assert_eq!(cra["totals"]["consistent"], 14, "{cra}");
    // Shards of the whole dataset, and their merge, are valid reports too; the merge
    // has every case once.
    let dir = tempfile::tempdir().unwrap();
    let mut parts = Vec::new();
    for k in 1..=2 {
        let shard = check(
            tag,
            &[
                "consistency",
                "--batch",
                "testdata/fees-dataset",
                "--shard",
                &format!("{k}/2"),
            ],
            &[1, 2],
        );
        assert_eq!(shard["shard"]["count"], 2, "{shard}");
        let path = dir.path().join(format!("shard-{k}.json"));
        std::fs::write(&path, shard.to_string()).unwrap();
        parts.push(path.display().to_string());
    }
    let mut args = vec!["consistency", "--merge"];
    args.extend(parts.iter().map(String::as_str));
    let merged = check(tag, &args, &[2]);
    assert_eq!(merged["merged_from"].as_array().unwrap().len(), 2);
    assert_eq!(
        merged["cases"].as_array().unwrap().len(),
        merged["total_rows"].as_u64().unwrap() as usize,
        "{merged}"
    );
    let all = check(
        tag,
        &["consistency", "--batch", "testdata/fees-dataset"],
        &[2],
    );
    let verdicts: Vec<&Value> = all["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["verdict"])
        .collect();
    for v in ["consistent", "inconsistent", "rejected"] {
        assert!(verdicts.iter().any(|x| *x == v), "{v}");
    }
    assert!(verdicts.iter().any(|x| x.is_null()), "an error case");
}

#[test]
fn table_check_payloads() {
    let tag = "vera.table-check.v1";
    for solver in ["z3", "cvc5"] {
        // Gaps, conflicts, overlaps and rule sentences: findings, exit 1.
        let j = check(
            tag,
            &[
                "table",
                "check",
                "crates/table/testdata/fees.csv",
                "--solver",
                solver,
            ],
            &[1],
        );
        let kinds: Vec<&str> = j["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["kind"].as_str().unwrap())
            .collect();
        assert!(
            kinds.contains(&"conflict") && kinds.contains(&"overlap"),
            "{kinds:?}"
        );
        let j = check(
            tag,
            &[
                "table",
                "check",
                "crates/table/testdata/brackets.csv",
                "--keys",
                "product,country",
                "--when",
                "amount",
                "--then",
                "fee",
                "--range",
                "amount=0..100000",
                "--solver",
                solver,
            ],
            &[1],
        );
        assert_eq!(j["findings"][0]["kind"], "gap");
        assert_eq!(j["findings"][0]["group"]["country"], "US");
        assert_eq!(j["findings"][0]["witness"]["amount"], "0");
        // Unreadable cells and an empty group.
        check(
            tag,
            &[
                "table",
                "check",
                "crates/table/testdata/bad.csv",
                "--solver",
                solver,
            ],
            &[1],
        );
        // A published USPS table: complete and unambiguous, exit 0.
        let j = check(
            tag,
            &[
                "table",
                "check",
                "testdata/fees-dataset/usps/priority-mail-express-retail/priority-mail-express-retail-nl.csv",
                "--solver",
                solver,
            ],
            &[0],
        );
        assert_eq!(j["groups"].as_array().unwrap().len(), 9);
    }
    // A file that cannot be read as a table: the error payload instead of the report,
    // the located error on standard error, exit 2.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("latin1.csv");
    std::fs::write(&bad, b"product,amount,fee\nCaf\xe9,0 - 10,1\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_vera"))
        .args(["table", "check", bad.to_str().unwrap(), "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let payload: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_valid("vera.error.v1", &payload, "table check latin1.csv");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("latin1.csv:2:4: the file is not UTF-8"),
        "{err}"
    );
}

#[test]
fn requirements_payloads() {
    let tag = "vera.requirements.v1";
    let pca = "crates/extract/testdata/open-pca-pump/requirements.txt";
    let j = check(tag, &["extract", pca], &[0]);
    assert_eq!(j["counts"]["high"], 148);
    assert_eq!(j["requirements"][4]["id"], "line-662");
    assert_eq!(j["requirements"][4]["confidence"], "candidate");
    for f in [
        "crates/extract/testdata/fret/project.json",
        "crates/extract/testdata/hanfor/requirements.csv",
        "crates/extract/testdata/reqif/requirements.reqif",
        "crates/extract/testdata/docs/lighting.md",
    ] {
        check(tag, &["extract", f], &[0]);
    }
    // Nothing to check: an honest empty list, exit 1.
    let j = check(
        tag,
        &[
            "extract",
            "crates/extract/testdata/docs/no-requirements.txt",
        ],
        &[1],
    );
    assert_eq!(j["counts"]["requirements"], 0);
    // Malformed input: the error payload instead of the report, the located error on
    // standard error, exit 2.
    let out = Command::new(env!("CARGO_BIN_EXE_vera"))
        .args([
            "extract",
            "crates/extract/testdata/reqif/broken.reqif",
            "--format",
            "json",
        ])
        .current_dir(root())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let payload: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_valid("vera.error.v1", &payload, "extract broken.reqif");
    assert_eq!(payload["command"], "extract");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("broken.reqif:5:3: not well-formed XML"),
        "{err}"
    );
}

#[test]
fn smt_check_payloads() {
    let tag = "vera.smt-check.v1";
    for solver in ["z3", "cvc5"] {
        let sat = check(
            tag,
            &[
                "smt",
                "check",
                "--solver",
                solver,
                "examples/smt/pump-ok.smt2",
            ],
            &[0],
        );
        assert_eq!(sat["files"][0]["checks"][0]["answer"], "sat");
        let unsat = check(
            tag,
            &[
                "smt",
                "check",
                "--solver",
                solver,
                "examples/smt/pump-limits.smt2",
            ],
            &[1],
        );
        let last = unsat["files"][0]["checks"]
            .as_array()
            .unwrap()
            .last()
            .unwrap();
        assert_eq!(last["answer"], "unsat");
    }
    check(
        tag,
        &[
            "smt",
            "check",
            "examples/smt/pump-ok.smt2",
            "examples/smt/pump-limits.smt2",
        ],
        &[1],
    );
    // A file that is not SMT-LIB: the file's `error`.
    let bad = check(tag, &["smt", "check", "README.md"], &[2]);
    assert!(bad["files"][0]["error"].is_string());
}

#[test]
fn c_payloads() {
    let _turn = FRAMA_C.lock().unwrap_or_else(|e| e.into_inner());
    let c = |f: &str| format!("crates/acsl/tests/c/{f}");
    let tag = "vera.c-segments.v1";
    for f in ["array_max.c", "soundness/callee_kinds.c"] {
        check(tag, &["c", "segments", &c(f)], &[0]);
    }
    let tag = "vera.c-verify.v1";
    // One verifier cache for this test's runs (a fresh folder: nothing outside the
    // repository is read): the strength runs' baselines are the verify runs' goals.
    let cache_dir = tempfile::tempdir().unwrap();
    let cache = cache_dir.path().to_str().unwrap().to_string();
    let wp = ["--cache-dir", cache.as_str(), "-j", "2"];
    let mut runs = Vec::new();
    for (f, codes) in [
        ("abs_strong.c", &[0, 1][..]),
        ("soundness/vacuous.c", &[1][..]),
        ("soundness/callee_no_contract.c", &[1][..]),
        ("bad/no_goals.c", &[2][..]),
    ] {
        let path = c(f);
        let mut args = vec!["c", "verify", path.as_str()];
        args.extend(wp);
        runs.push(check(tag, &args, codes));
    }
    // A program of several files from its compilation database.
    let db = c("project/compile_commands.json");
    let mut args = vec!["c", "verify", "--compile-commands", db.as_str()];
    args.extend(wp);
    let program = check(tag, &args, &[0]);
    assert_eq!(program["report"]["files"].as_array().unwrap().len(), 3);
    runs.push(program);
    let verdicts = statuses(&runs, "/report/verdict/verdict");
    for v in ["inconsistent", "not_proved", "no_goals", "proved"] {
        assert!(verdicts.contains(&v), "{v}: {verdicts:?}");
    }
    // Errors, located, when JSON was asked for.
    let tag = "vera.error.v1";
    let inc = c("project/include");
    let bad = c("bad/not_parse.c");
    let mut kinds = Vec::new();
    for args in [
        vec!["c", "verify", bad.as_str()],
        vec!["c", "segments", "-I", inc.as_str(), "/nonexistent/x.c"],
        vec![
            "c",
            "verify",
            "--compile-commands",
            "/nonexistent/compile_commands.json",
        ],
    ] {
        kinds.push(check(tag, &args, &[2]));
    }
    let kinds = statuses(&kinds, "/error/kind");
    assert_eq!(kinds, ["syntax", "input", "flags"]);
    let tag = "vera.c-strength.v1";
    let path = c("abs_weak.c");
    let mut args = vec!["c", "strength", path.as_str()];
    args.extend(wp);
    let j = check(tag, &args, &[0, 1]);
    let fates: Vec<&str> = j["report"]["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["fate"]["fate"].as_str())
        .collect();
    assert!(fates.contains(&"killed"), "{fates:?}");
    // A program: each mutant in the file it comes from; a function that a
    // macro invocation writes has none.
    let mut args = vec![
        "c",
        "strength",
        "--compile-commands",
        db.as_str(),
        "--max-mutants",
        "6",
    ];
    args.extend(wp);
    let j = check(tag, &args, &[0, 1]);
    let r = &j["report"];
    assert_eq!(r["files"].as_array().unwrap().len(), 3);
    assert!(r["not_in_source"].as_u64().unwrap() > 0);
    let mutants = r["mutants"].as_array().unwrap();
    assert_eq!(mutants.len(), 6);
    assert!(mutants.iter().all(|m| m["file"].is_string()), "{mutants:?}");
}

// ------------------------------------------------------------------ LLM commands, replayed

#[test]
fn formalize_and_ambiguity_payloads_from_the_hemodialysis_cassette() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("formalized.toml");
    let out = out.to_str().unwrap();
    check_replay(
        "vera.formalize.v1",
        "hemodialysis.jsonl",
        &[
            "formalize",
            "--smtlib",
            HEMO,
            "--only",
            ONLY,
            "--reformalize",
            ONLY,
            "-o",
            out,
        ],
        &[0, 1],
    );
    check_replay(
        "vera.ambiguity.v1",
        "hemodialysis.jsonl",
        &["ambiguity", HEMO, "--only", ONLY],
        &[0, 1],
    );
}

/// The requirements-CSV pipeline of csv-pipeline.jsonl: formalize, ambiguity, clarify
/// (its report and its proposals file), then --apply without and with an accepted
/// proposal (applying asks no model).
#[test]
fn csv_pipeline_payloads_and_the_proposals_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).display().to_string();
    let (formalized, proposals, accepted, clarified) = (
        p("formalized.toml"),
        p("proposals.json"),
        p("accepted.json"),
        p("clarified.toml"),
    );
    let c = "csv-pipeline.jsonl";
    check_replay(
        "vera.formalize.v1",
        c,
        &[
            "formalize",
            "--smtlib",
            "examples/hemodialysis/requirements.csv",
            "--schema",
            HEMO,
            "-o",
            &formalized,
        ],
        &[1],
    );
    check_replay("vera.ambiguity.v1", c, &["ambiguity", &formalized], &[2]);
    let run = check_replay(
        "vera.clarify-run.v1",
        c,
        &["clarify", &formalized, "-o", &proposals],
        &[2],
    );
    assert_eq!(run["proposals_file"], proposals.as_str());
    let mut file = read_json(Path::new(&proposals));
    assert_valid("vera.clarify.v1", &file, "the proposals file");

    let none = check(
        "vera.clarify-apply.v1",
        &[
            "clarify",
            &formalized,
            "--apply",
            &proposals,
            "--out",
            &clarified,
        ],
        &[0],
    );
    assert!(none.get("output").is_none() && none["applied"] == serde_json::json!([]));
    file["proposals"][0]["accepted"] = Value::Bool(true);
    std::fs::write(&accepted, serde_json::to_string_pretty(&file).unwrap()).unwrap();
    let applied = check(
        "vera.clarify-apply.v1",
        &[
            "clarify",
            &formalized,
            "--apply",
            &accepted,
            "--out",
            &clarified,
        ],
        &[0],
    );
    assert_eq!(applied["applied"].as_array().unwrap().len(), 1);
    assert_eq!(applied["output"], clarified.as_str());
}

#[test]
fn draft_variables_and_voting_payloads_from_the_cra_cassettes() {
    let rule = format!("{CRA}/nu/nu.txt");
    let example = format!("{CRA}/yt/yt.txt");
    check_replay(
        "vera.draft-variables.v1",
        "draft-nu.jsonl",
        &["draft-variables", &rule, "--example-rule", &example],
        &[0],
    );
    let imp = format!("{CRA}/nu/prog.bl");
    let j = check_replay(
        "vera.consistency-nl.v1",
        "voting-nu.jsonl",
        &[
            "consistency",
            "--nl-text",
            &rule,
            "--impl",
            &imp,
            "--bounds",
            CRA_BOUNDS,
            "--assume",
            SIN_EXCEPTION,
        ],
        &[2],
    );
    // The recorded vote is rejected: nothing is checked against the program.
    assert!(j["report"].is_null());
}

#[test]
fn qa_payload_from_the_eval_cassette() {
    let j = check_replay(
        "vera.qa.v1",
        "eval-qa-local.jsonl",
        &["qa", HEMO, &cassette("qa-8.toml"), "-j", "1"],
        &[1],
    );
    assert_eq!(j["report"]["modes"].as_array().unwrap().len(), 4);
}

/// The faulty texts the recorded model wrote (tests/fixtures/faults-recorded.toml) are
/// formalized again from the cassette of the same run.
#[test]
fn faults_payload_from_the_eval_cassette() {
    let j = check_replay(
        "vera.faults.v1",
        "eval-rest-local.jsonl",
        &[
            "faults",
            HEMO,
            "--mutants",
            "crates/vera/tests/fixtures/faults-recorded.toml",
        ],
        &[1],
    );
    assert_eq!(j["report"]["results"].as_array().unwrap().len(), 5);
}

/// No cassette holds the requests of `vera roundtrip` (see the file's comment): the
/// envelope comes from a run over no requirement, which asks the model nothing; the
/// trips are validated in the eval.json of `eval_json_payloads`.
#[test]
fn roundtrip_payload_of_a_run_without_trips() {
    let j = check_replay(
        "vera.roundtrip.v1",
        "eval-rest-local.jsonl",
        &["roundtrip", HEMO, "--limit", "0"],
        &[0],
    );
    assert_eq!(j["report"]["trips"], serde_json::json!([]));
    assert!(j["checks"].as_str().is_some_and(|c| !c.is_empty()));
}

/// eval.json of the two recorded harness runs: audit, mutation and qa; roundtrip,
/// faults and ambiguity with clarification.
#[test]
fn eval_json_payloads() {
    let dir = tempfile::tempdir().unwrap();
    for (experiments, cassette_name, only) in [
        (
            "roundtrip,faults,ambiguity",
            "eval-rest-local.jsonl",
            Some(ONLY),
        ),
        ("audit,mutation,qa", "eval-qa-local.jsonl", None),
    ] {
        let out = dir.path().join(cassette_name);
        let c = cassette(cassette_name);
        let questions = cassette("qa-8.toml");
        let mut args = vec![
            "eval",
            HEMO,
            "--experiments",
            experiments,
            "--questions",
            &questions,
            "--out",
            out.to_str().unwrap(),
            "-j",
            "1",
            "--llm-config",
            "/nonexistent/vera.toml",
            "--no-cache",
            "--replay",
            &c,
        ];
        if let Some(o) = only {
            args.extend(["--only", o]);
        }
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_vera"));
        for (k, _) in std::env::vars() {
            if k.starts_with("VERA_LLM_") {
                cmd.env_remove(k);
            }
        }
        let status = cmd.args(&args).current_dir(root()).output().unwrap();
        assert!(
            status.status.success(),
            "vera {}\n{}",
            args.join(" "),
            String::from_utf8_lossy(&status.stderr)
        );
        let j = read_json(&out.join("eval.json"));
        assert_valid("vera.eval.v1", &j, experiments);
        for e in experiments.split(',') {
            assert!(j[e].is_object(), "{e}");
        }
        for (name, acc) in j["llm"].as_object().unwrap() {
            assert_eq!(acc["total"]["calls"], 0, "{name}");
        }
        // The paper-shaped tables written beside it (golden file, without the
        // wall-clock columns).
        let md = std::fs::read_to_string(out.join("tables.md")).unwrap();
        let name = format!(
            "tables_{}",
            cassette_name.trim_end_matches(".jsonl").replace('-', "_")
        );
        insta::assert_snapshot!(name, strip_timing(&md));
    }
}

/// The tables without the wall-clock columns of the accounting table.
fn strip_timing(md: &str) -> String {
    md.lines()
        .map(|l| {
            let cells: Vec<&str> = l.split('|').collect();
            if l.starts_with("| ") && cells.len() == 11 && !l.contains("experiment") {
                // | name | requests | calls | cached | in | out | llm s | exp s | cost |
                let mut c = cells.clone();
                c[7] = " - ";
                c[8] = " - ";
                c.join("|")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn c_synth_payload_and_report_file_from_the_cassette() {
    let _turn = FRAMA_C.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("abs.synth.c").display().to_string();
    let report = dir.path().join("abs.synth.json").display().to_string();
    // The settings of the recording (crates/pipeline/tests/csynth_replay.rs).
    let j = check_replay(
        "vera.c-synth.v1",
        "csynth_local.jsonl",
        &[
            "c",
            "synth",
            "crates/pipeline/tests/c/csynth_abs.c",
            "--out",
            &out,
            "--report",
            &report,
            "--max-mutants",
            "8",
            "-j",
            "2",
            "--wp-timeout",
            "2",
            "--no-verifier-cache",
        ],
        &[0, 1],
    );
    let file = read_json(Path::new(&report));
    assert_valid("vera.c-synth.v1", &file, "the --report file");
    assert_eq!(file, j, "the report file holds the printed payload");
}

#[test]
fn schema_draft_payloads_against_a_scripted_server() {
    let dir = tempfile::tempdir().unwrap();
    let reqs = dir.path().join("reqs.json");
    std::fs::write(
        &reqs,
        r#"{"schema": "vera.requirements.v1", "requirements": [
  {"id": "R1", "text": "The basal rate shall be settable from 1 to 10 ml/hr."},
  {"id": "R2", "text": "The pump shall sound the alarm when the door is open."},
  {"id": "R3", "text": "The pump shall log every event."}]}"#,
    )
    .unwrap();
    // Every kind of finding the draft can carry without an undecided answer.
    let draft = r#"{"enums": [{"name": "Mode", "values": ["Off", "On"]}], "variables": [
  {"name": "basal_rate", "sort": "Real", "unit": "ml/hr", "description": "basal rate", "min": 10, "max": 1, "fixed": false, "role": "input", "serves": ["R1"]},
  {"name": "rate_basal", "sort": "Real", "unit": "ml/h", "description": "basal rate", "min": 1, "max": 1, "fixed": false, "role": "input", "serves": ["R1"]},
  {"name": "kvo", "sort": "Real", "unit": "ml/hr", "description": "keep vein open", "min": 0, "max": 5, "fixed": false, "role": "input", "serves": ["R1"]},
  {"name": "shown", "sort": "Real", "unit": "ml/hr", "description": "the shown value", "min": 0, "max": 5, "fixed": false, "role": "output", "serves": ["R9"]},
  {"name": "door_open", "sort": "Bool", "unit": null, "description": "the door is open", "min": null, "max": null, "fixed": false, "role": "input", "serves": ["R2"]},
  {"name": "alarm", "sort": "Bool", "unit": null, "description": "the alarm sounds", "min": null, "max": null, "fixed": false, "role": "output", "serves": ["R2"]},
  {"name": "mode", "sort": "Mode", "unit": null, "description": "mode", "min": null, "max": null, "fixed": false, "role": "output", "serves": []}],
  "domain": [{"id": "D1", "text": "", "formula": "(= shown kvo)"}, {"id": "D2", "text": "", "formula": "(<= kvo limit)"}]}"#;
    let (port, _) = chat_server::server(move |body| {
        if body.contains("Propose only the missing variables") {
            "no proposal".into()
        } else {
            draft.into()
        }
    });
    let url = format!("http://127.0.0.1:{port}/v1");
    let out = dir.path().join("s.toml");
    let cmd = |args: &[&str]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_vera"));
        for (k, _) in std::env::vars() {
            if k.starts_with("VERA_LLM_") {
                c.env_remove(k);
            }
        }
        let o = c
            .args(args)
            .args([
                "--llm-config",
                "/nonexistent/vera.toml",
                "--no-cache",
                "--format",
                "json",
            ])
            .env("VERA_LLM_PROVIDER", "local")
            .env("VERA_LLM_BASE_URL", &url)
            .env("VERA_LLM_MAX_RETRIES", "0")
            .output()
            .unwrap();
        let j: Value = serde_json::from_slice(&o.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)));
        (o.status.code().unwrap(), j)
    };
    let (code, j) = cmd(&[
        "schema",
        "draft",
        &reqs.display().to_string(),
        "-o",
        &out.display().to_string(),
        "--retries",
        "0",
    ]);
    assert_eq!(code, 1);
    assert_valid("vera.schema-draft.v1", &j, "vera schema draft (findings)");
    let mut kinds: Vec<&str> = j["report"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    kinds.sort();
    kinds.dedup();
    assert_eq!(
        kinds,
        [
            "duplicate-quantity",
            "empty-range",
            "forced-equal",
            "missing-variable",
            "single-point",
            "unknown-requirement",
            "unused-variable"
        ]
    );
}

#[test]
fn table_check_llm_payload_against_a_scripted_server() {
    // Two cells rewritten (one after a refused answer), one declined.
    let (port, _) = chat_server::server(|body| {
        if body.contains("The cell: fifty to five hundred dollars") {
            if body.contains("That answer cannot be used") {
                r#"{"cell": "50 - 500"}"#.into()
            } else {
                r#"{"cell": "fifty - 500"}"#.into()
            }
        } else if body.contains("The cell: above five hundred") {
            r#"{"cell": "> 500"}"#.into()
        } else {
            r#"{"cell": null, "reason": "no value in the cell"}"#.into()
        }
    });
    let mut c = Command::new(env!("CARGO_BIN_EXE_vera"));
    for (k, _) in std::env::vars() {
        if k.starts_with("VERA_LLM_") {
            c.env_remove(k);
        }
    }
    let o = c
        .args([
            "table",
            "check",
            "crates/table/testdata/words.csv",
            "--llm",
            "--llm-config",
            "/nonexistent/vera.toml",
            "--no-cache",
            "--format",
            "json",
        ])
        .current_dir(root())
        .env("VERA_LLM_PROVIDER", "local")
        .env("VERA_LLM_BASE_URL", format!("http://127.0.0.1:{port}/v1"))
        .env("VERA_LLM_MAX_RETRIES", "0")
        .output()
        .unwrap();
    let j: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)));
    assert_eq!(o.status.code(), Some(1));
    assert_valid("vera.table-check.v1", &j, "vera table check --llm");
    let r = j["model_readings"].as_array().unwrap();
    assert_eq!(r.len(), 4);
    assert_eq!(r[0]["reading"], "50 - 500");
    assert_eq!(r[0]["answers"], 2);
    assert_eq!(r[0]["refused"].as_array().unwrap().len(), 1);
    assert_eq!(r[2]["reading"], Value::Null);
    assert_eq!(r[2]["reason"], "no value in the cell");
    assert_eq!(j["llm"]["total"]["requests"], 5);
    // Without --llm the payload has neither member, and stays valid.
    let j = check(
        "vera.table-check.v1",
        &["table", "check", "crates/table/testdata/words.csv"],
        &[1],
    );
    assert!(j.get("model_readings").is_none() && j.get("llm").is_none());
}

// ------------------------------------------------------------------ timed LLM commands
//
// `vera formalize`, `vera ambiguity` and `vera clarify` on a spec with a `[time]` table
// (docs/timed.md): the model is played by the local chat server, as in timed_llm.rs, and
// the readings are compared on traces by the real solvers.

/// The pattern answer "if no_flow has held for DURATION then (not pump_on)" (R1 of
/// tests/fixtures/timed-formalize.toml).
fn held_for(duration: &str) -> Value {
    timed_answers::answer_value(&[
        ("if", "no_flow".into()),
        ("held_for", duration.into()),
        ("then", "(not pump_on)".into()),
    ])
}

/// R1 read as "if no_flow held within the last 3 s": a reading that differs from
/// [`held_for`] on traces.
fn within_last() -> String {
    timed_answers::answer(&[
        ("if", "no_flow".into()),
        ("within_last", "3 s".into()),
        ("then", "(not pump_on)".into()),
    ])
}

/// `vera formalize` on a timed spec: every accepted requirement carries its pattern
/// (`pattern`, no `formula`). One request per requirement, with an answer repaired from
/// the spec reader's error; then one batch request, in which the pattern that is not a
/// whole number of ticks fails (no repair turn).
#[test]
fn formalize_timed_payloads_against_a_scripted_server() {
    let (port, _) = chat_server::server(|body| {
        if body.contains("timed_patterns") {
            // The schema of the batch request: one pattern per id.
            serde_json::json!({
                "R1": held_for("2.5 s"),
                "R2": serde_json::from_str::<Value>(&timed_answers::edge()).unwrap(),
            })
            .to_string()
        } else if body.contains("for 3 seconds") {
            if body.contains("not a whole number of ticks") {
                held_for("NO_FLOW_LIMIT").to_string()
            } else {
                held_for("2.5 s").to_string()
            }
        } else {
            timed_answers::level()
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let out = |n: &str| dir.path().join(n).display().to_string();
    let (one, batch) = (out("one.toml"), out("batch.toml"));
    let tag = "vera.formalize.v1";
    let j = check_scripted(
        tag,
        port,
        &["formalize", "--smtlib", TIMED_TEXT, "-o", &one],
        &[0],
    );
    let r = &j["report"]["requirements"];
    assert_eq!(j["report"]["mode"], "per-requirement");
    assert_eq!(
        r[0]["pattern"],
        serde_json::json!({"if": "no_flow", "held_for": "3 s", "then": "(not pump_on)"})
    );
    assert!(r[0]["attempts"][0]["error"].is_string());
    assert_eq!(r[0]["provenance"]["prompt"], "formalize-timed@v1");
    assert_eq!(
        r[1]["pattern"],
        serde_json::json!({"if": "no_flow", "then": "alarm"})
    );
    assert!(r[1].get("formula").is_none());

    let j = check_scripted(
        tag,
        port,
        &[
            "formalize",
            "--smtlib",
            TIMED_TEXT,
            "-o",
            &batch,
            "--batch",
            "--retries",
            "0",
        ],
        &[1],
    );
    let r = &j["report"]["requirements"];
    assert_eq!(j["report"]["mode"], "batch");
    assert_eq!(j["report"]["failed"], serde_json::json!(["R1"]));
    assert!(r[0].get("pattern").is_none());
    assert_eq!(r[1]["pattern"]["when"], "no_flow");
    assert_eq!(r[1]["provenance"]["prompt"], "formalize-timed-batch@v1");
    assert_eq!(j["llm"]["total"]["requests"], 1);
}

/// `vera ambiguity` with four samples per requirement of
/// tests/fixtures/timed-formalize.toml: R1 has one reading (the first answer served for
/// it is not a whole number of ticks), R2 is an edge or a level by turns.
fn timed_ambiguity_payload() -> Value {
    let (r1, r2) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (port, _) = chat_server::server(move |body| {
        if body.contains("for 3 seconds") {
            if r1.fetch_add(1, Ordering::SeqCst) == 0 {
                held_for("2.5 s").to_string()
            } else {
                held_for("3 s").to_string()
            }
        } else if r2.fetch_add(1, Ordering::SeqCst).is_multiple_of(2) {
            timed_answers::edge()
        } else {
            timed_answers::level()
        }
    });
    check_scripted(
        "vera.ambiguity-timed.v1",
        port,
        &["ambiguity", TIMED_TEXT, "-n", "4", "--solver", "z3"],
        &[1],
    )
}

/// `vera ambiguity` on a timed spec: one reading with an invalid sample, two readings
/// with the question of time and its trace; then no valid sample at all.
#[test]
fn ambiguity_timed_payloads_against_a_scripted_server() {
    let tag = "vera.ambiguity-timed.v1";
    let j = timed_ambiguity_payload();
    let (r1, r2) = (
        &j["report"]["requirements"][0],
        &j["report"]["requirements"][1],
    );
    assert_eq!(
        (r1["valid"].as_u64(), r1["flagged"].as_bool()),
        (Some(3), Some(false))
    );
    assert_eq!(r1["classes"][0]["pattern"]["held_for"], "3 s");
    assert_eq!(r2["classes"].as_array().unwrap().len(), 2);
    let q = &r2["questions"][0];
    assert_eq!(q["kinds"], serde_json::json!(["edge-or-level"]));
    assert!(q["timeline"]["rows"]
        .as_array()
        .is_some_and(|r| !r.is_empty()));
    assert_eq!(j["report"]["summary"]["invalid_samples"], 1);

    // No answer is JSON: nothing to compare, which is not a pass (exit status 2).
    let (port, _) = chat_server::server(|_| "I cannot tell.".into());
    let j = check_scripted(
        tag,
        port,
        &[
            "ambiguity",
            TIMED_TEXT,
            "--only",
            "R1",
            "-n",
            "2",
            "--solver",
            "cvc5",
        ],
        &[2],
    );
    let r1 = &j["report"]["requirements"][0];
    assert_eq!(r1["could_not_screen"], true);
    assert_eq!(r1["classes"], serde_json::json!([]));
    assert!(r1["samples"][0]["error"].is_string());
}

/// `vera clarify` on a timed spec: R2 converges to the edge reading (its proposal
/// carries the pattern), R1's rewrite repeats the text and is rejected; the proposals
/// file is `vera.clarify.v1`, and applying it is `vera.clarify-apply.v1`.
#[test]
fn clarify_timed_payloads_against_a_scripted_server() {
    let (r1, r2) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (port, _) = chat_server::server(move |body| {
        if body.contains("Rewrite the requirement text") {
            if body.contains("for 3 seconds") {
                "If no flow is detected for 3 seconds, the blood pump shall stop.".into()
            } else {
                "Once no flow becomes detected, the alarm shall sound at that moment.".into()
            }
        } else if body.contains("for 3 seconds") {
            if r1.fetch_add(1, Ordering::SeqCst).is_multiple_of(2) {
                held_for("3 s").to_string()
            } else {
                within_last()
            }
        } else if body.contains("Once no flow becomes detected")
            || r2.fetch_add(1, Ordering::SeqCst).is_multiple_of(2)
        {
            timed_answers::edge()
        } else {
            timed_answers::level()
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).display().to_string();
    let (proposals, clarified) = (p("proposals.json"), p("clarified.toml"));
    let j = check_scripted(
        "vera.clarify-run-timed.v1",
        port,
        &[
            "clarify", TIMED_TEXT, "-n", "4", "-o", &proposals, "--solver", "z3",
        ],
        &[1],
    );
    assert_eq!(j["proposals_file"], proposals.as_str());
    let rep = &j["report"];
    assert_eq!(rep["flagged_per_round"], serde_json::json!([2, 1]));
    let kinds: Vec<&Value> = rep["screening"]["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["questions"][0]["kinds"][0])
        .collect();
    assert_eq!(kinds, ["trigger", "edge-or-level"]);
    let (p1, p2) = (&rep["proposals"][0], &rep["proposals"][1]);
    assert_eq!(
        (p1["converged"].as_bool(), p1["note"].as_str()),
        (Some(false), Some("the text is unchanged"))
    );
    assert!(p1.get("pattern").is_none());
    assert_eq!(p2["accepted"], true);
    assert_eq!(
        p2["pattern"],
        serde_json::json!({"when": "no_flow", "then": "alarm"})
    );

    let file = read_json(Path::new(&proposals));
    assert_valid(
        "vera.clarify.v1",
        &file,
        "the proposals file of a timed spec",
    );
    assert_eq!(file["proposals"], rep["proposals"]);
    let applied = check(
        "vera.clarify-apply.v1",
        &[
            "clarify", TIMED_TEXT, "--apply", &proposals, "--out", &clarified,
        ],
        &[0],
    );
    assert_eq!(applied["applied"], serde_json::json!(["R2"]));
    assert_eq!(applied["output"], clarified.as_str());
}

/// A timed screening with a field missing, an unknown pattern key, a flag that is not
/// `true`, a pattern without its response, a trigger duration without `if`, an unknown
/// kind of question, a trace row without its time, a valid sample without its class or a
/// question between three readings is rejected.
#[test]
fn validation_rejects_a_broken_timed_ambiguity_payload() {
    let tag = "vera.ambiguity-timed.v1";
    let good = timed_ambiguity_payload();
    let broken = |f: &dyn Fn(&mut Value)| {
        let mut j = good.clone();
        f(&mut j);
        errors(tag, &j)
    };
    let r2 = "/report/requirements/1";
    let cases: Vec<(&str, Vec<String>, &str)> = vec![
        (
            "a required field deleted",
            broken(&|j| {
                j["report"].as_object_mut().unwrap().remove("summary");
            }),
            "summary",
        ),
        (
            "an unknown pattern key",
            broken(&|j| {
                j["report"]["requirements"][1]["classes"][0]["pattern"]["eventually"] =
                    Value::from("alarm")
            }),
            r2,
        ),
        (
            "a flag that is not true",
            broken(&|j| {
                j["report"]["requirements"][1]["classes"][1]["pattern"]["next"] = Value::from(false)
            }),
            r2,
        ),
        (
            "a pattern without its response",
            broken(&|j| {
                j["report"]["requirements"][1]["classes"][0]["pattern"]
                    .as_object_mut()
                    .unwrap()
                    .remove("then");
            }),
            r2,
        ),
        (
            "a duration without `if`",
            broken(&|j| {
                j["report"]["requirements"][1]["classes"][0]["pattern"] =
                    serde_json::json!({"when": "no_flow", "held_for": "3 s", "then": "alarm"})
            }),
            r2,
        ),
        (
            "an unknown kind of question",
            broken(&|j| {
                j["report"]["requirements"][1]["questions"][0]["kinds"][0] = Value::from("vibes")
            }),
            r2,
        ),
        (
            "a trace row without its time",
            broken(&|j| {
                j["report"]["requirements"][1]["questions"][0]["timeline"]["rows"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("to_time");
            }),
            r2,
        ),
        (
            "a valid sample without its class",
            broken(&|j| {
                j["report"]["requirements"][1]["samples"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("class");
            }),
            r2,
        ),
        (
            "a question between three readings",
            broken(&|j| {
                j["report"]["requirements"][1]["questions"][0]["between"]
                    .as_array_mut()
                    .unwrap()
                    .push(Value::from("C"))
            }),
            r2,
        ),
        (
            "the tag of the untimed screening",
            broken(&|j| j["schema"] = Value::from("vera.ambiguity.v1")),
            "/schema",
        ),
    ];
    for (what, errs, mention) in cases {
        assert!(!errs.is_empty(), "{what}: accepted");
        assert!(
            errs.iter().any(|e| e.contains(mention)),
            "{what}: no error mentions {mention}:\n{}",
            errs.join("\n")
        );
    }
}

/// `vera clarify --controlled` on the labeled pump spec against a scripted server: P1
/// is restated in the reader's words (its formula equivalent to the spec's), P2's only
/// answer repeats the text and is refused; P4 and P5 read already. The restatements
/// file is `vera.restate.v1`; with P1 accepted by hand, `--apply` writes the new spec
/// (`vera.clarify-apply.v1`), whose P1 has the sentence and the reader's formula.
#[test]
fn restate_payloads_against_a_scripted_server() {
    let spec = "examples/labeled/pump.toml";
    let (port, _) = chat_server::server(|body| {
        if body.contains("Requirement: If the cassette door is open") {
            "If the cassette door is open, the pumping mode shall be Stopped.".into()
        } else if body.contains("Requirement: When an occlusion") {
            "When an occlusion is detected, the pump shall stop and the alarm shall sound.".into()
        } else {
            "I cannot rewrite this.".into()
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).display().to_string();
    let (file, out) = (p("pump.restated.json"), p("pump.restated.toml"));
    let j = check_scripted(
        "vera.restate-run.v1",
        port,
        &[
            "clarify",
            spec,
            "--controlled",
            "--rounds",
            "1",
            "-o",
            &file,
            "--solver",
            "z3",
        ],
        &[1],
    );
    assert_eq!(j["restatements_file"], file.as_str());
    let rs = j["report"]["restatements"].as_array().unwrap();
    let by_id = |id: &str| rs.iter().find(|r| r["id"] == id).unwrap();
    let p1 = by_id("P1");
    assert_eq!(p1["status"], "restated", "{p1}");
    assert_eq!(p1["formula"], "(=> door_open (= mode Stopped))");
    assert_eq!(p1["same_as_spec"], true);
    assert_eq!(p1["accepted"], false);
    let p2 = by_id("P2");
    assert_eq!(p2["status"], "not-restated", "{p2}");
    assert!(p2["attempts"][0]["refused"]
        .as_str()
        .unwrap()
        .contains("repeats the requirement"));
    assert_eq!(by_id("P4")["status"], "controlled");

    let mut written = read_json(Path::new(&file));
    assert_valid("vera.restate.v1", &written, "the restatements file");
    assert_eq!(written["restatements"], j["report"]["restatements"]);
    // Nothing accepted: --apply writes nothing.
    let none = check(
        "vera.clarify-apply.v1",
        &["clarify", spec, "--apply", &file, "--out", &out],
        &[0],
    );
    assert_eq!(none["applied"], serde_json::json!([]));
    assert!(!Path::new(&out).exists());
    // A person accepts P1.
    for r in written["restatements"].as_array_mut().unwrap() {
        if r["id"] == "P1" {
            r["accepted"] = Value::Bool(true);
        }
    }
    std::fs::write(&file, serde_json::to_string_pretty(&written).unwrap()).unwrap();
    let applied = check(
        "vera.clarify-apply.v1",
        &["clarify", spec, "--apply", &file, "--out", &out],
        &[0],
    );
    assert_eq!(applied["applied"], serde_json::json!(["P1"]));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.contains("If the cassette door is open, the pumping mode shall be Stopped."),
        "{text}"
    );
    assert!(
        text.contains("restated in controlled English by vera"),
        "{text}"
    );
}
