//! Runs recorded from the local model (scripts/local-llm, Qwen2.5-Coder-1.5B), replayed
//! end to end through the `vera` binary with no server: drafting a variable
//! specification (SIRNA Fig. 9), translation voting against a BL program, and the
//! requirements-CSV pipeline (formalize, ambiguity, clarify, apply). The assertions are
//! about what the recorded model did; where it did badly the test says so.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn cassette(name: &str) -> String {
    root()
        .join("crates/pipeline/tests/cassettes")
        .join(name)
        .display()
        .to_string()
}

fn cra(path: &str) -> String {
    root()
        .join("testdata/fees-dataset/cra-25")
        .join(path)
        .display()
        .to_string()
}

/// Runs vera with a cassette and no configuration, cache or model variables; the JSON
/// report is `Null` when standard output holds none.
fn replay(cassette: &str, args: &[&str]) -> (i32, serde_json::Value, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vera"));
    for (k, _) in std::env::vars() {
        if k.starts_with("VERA_LLM_") {
            cmd.env_remove(k);
        }
    }
    let out = cmd
        .args(args)
        .args([
            "--llm-config",
            "/nonexistent/vera.toml",
            "--no-cache",
            "--replay",
            cassette,
            "--format",
            "json",
        ])
        .current_dir(root())
        .output()
        .expect("vera runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let json = if stdout.trim().is_empty() {
        serde_json::Value::Null
    } else {
        serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}):\n{stdout}\n{stderr}"))
    };
    (out.status.code().unwrap_or(-1), json, stderr)
}

fn no_calls(j: &serde_json::Value) {
    let t = &j["llm"]["total"];
    assert_eq!(t["calls"], 0, "nothing but the cassette answers: {t}");
    assert_eq!(t["replayed"], t["requests"]);
}

/// Recorded with `vera draft-variables cra-25/nu/nu.txt --example-rule cra-25/yt/yt.txt`.
#[test]
fn draft_variables_for_nunavut_from_the_yukon_example() {
    let (code, j, stderr) = replay(
        &cassette("draft-nu.jsonl"),
        &[
            "draft-variables",
            &cra("nu/nu.txt"),
            "--example-rule",
            &cra("yt/yt.txt"),
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(j["schema"], "vera.draft-variables.v1");
    no_calls(&j);
    let d = &j["draft"];
    assert_eq!(d["attempts"], 1);
    // The draft names exactly the variables of the dataset's own nu/model.json, in
    // order, and every description carries that bracket's rate.
    let reference: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(cra("nu/model.json")).unwrap()).unwrap();
    let names = |v: &serde_json::Value| -> Vec<String> {
        v["variables"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&d["spec"]), names(&reference));
    let descs: Vec<&str> = d["spec"]["variables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["description"].as_str().unwrap())
        .collect();
    for (desc, rate) in descs[1..5].iter().zip(["4%", "7%", "9%", "11.5%"]) {
        assert!(desc.contains(rate), "{desc}");
    }
    // Written to a file: never over an existing one without --force.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("nu-model.json");
    let o = out.display().to_string();
    let args = [
        "draft-variables",
        &cra("nu/nu.txt"),
        "--example-rule",
        &cra("yt/yt.txt"),
        "-o",
        &o,
    ];
    let (code, _, _) = replay(&cassette("draft-nu.jsonl"), &args);
    assert_eq!(code, 0);
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(written.contains("\"FinalTaxes\""));
    let (code, _, stderr) = replay(&cassette("draft-nu.jsonl"), &args);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("exists"), "{stderr}");
}

/// Recorded with `vera consistency --nl-text cra-25/nu/nu.txt --impl cra-25/nu/prog.bl
/// --bounds examples/fees/cra-bounds.json --assume 'sin_exception=(< sin 900000000)'`.
#[test]
fn voting_on_the_nunavut_rule_is_rejected_with_diagnostics() {
    let (code, j, stderr) = replay(
        &cassette("voting-nu.jsonl"),
        &[
            "consistency",
            "--nl-text",
            &cra("nu/nu.txt"),
            "--impl",
            &cra("nu/prog.bl"),
            "--bounds",
            "examples/fees/cra-bounds.json",
            "--assume",
            "sin_exception=(< sin 900000000)",
        ],
    );
    assert_eq!(j["schema"], "vera.consistency-nl.v1", "{stderr}");
    no_calls(&j);
    // The recorded 1.5B model: two of three translations never parse, even after two
    // repair turns each; the third parses but leaves the brackets unconstrained. No class
    // reaches 2/3, so the vote is rejected (exit 2) and nothing is checked against the
    // program.
    assert_eq!(code, 2);
    let v = &j["vote"];
    assert_eq!(v["accepted"], false);
    assert!((v["confidence"].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-9);
    assert!(j["report"].is_null());
    let t = v["translations"].as_array().unwrap();
    let attempts: Vec<u64> = t.iter().map(|x| x["attempts"].as_u64().unwrap()).collect();
    assert_eq!(attempts, vec![3, 3, 1]);
    let cats = |i: usize| -> Vec<String> {
        t[i]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["category"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(cats(0), vec!["invalid"]);
    assert_eq!(cats(1), vec!["invalid"]);
    // The checker's own finding against prog.bl: not functional.
    let c2 = cats(2);
    assert!(c2.contains(&"missing_constraints".to_string()), "{c2:?}");
    assert!(
        c2.contains(&"missing_intermediate_variables".to_string()),
        "{c2:?}"
    );
    assert!(t[2]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d["message"].as_str().unwrap().starts_with("not functional")));
}

/// The requirements-CSV pipeline of examples/hemodialysis/README.md, recorded in
/// `csv-pipeline.jsonl`: formalize, ambiguity, clarify, apply.
#[test]
fn csv_to_formalized_spec_ambiguity_report_and_proposals() {
    let dir = tempfile::tempdir().unwrap();
    let formalized = dir.path().join("formalized.toml").display().to_string();
    let proposals = dir.path().join("proposals.json").display().to_string();
    let c = cassette("csv-pipeline.jsonl");
    let (code, j, stderr) = replay(
        &c,
        &[
            "formalize",
            "--smtlib",
            "examples/hemodialysis/requirements.csv",
            "--schema",
            "examples/hemodialysis/hemodialysis.toml",
            "-o",
            &formalized,
        ],
    );
    assert_eq!(code, 1, "one requirement failed: {stderr}");
    no_calls(&j);
    let r = &j["report"];
    // Formalization re-recorded after the schema-worded repair feedback and the reading
    // notes (how each sort is written): four on the first attempt (R-AIR-1, R-BF-4,
    // R-TEMP-1, R-TEMP-2). R-BF-4's `(not (and blood_pump_on door_closed))` parses and
    // passes screening but inverts the door condition: accepted and wrong, which is what
    // review and the ambiguity screening are for. R-AIR-2 gives a sort error (a number as
    // the consequence), a tautology, prose, the tautology, prose, then the tautology a
    // third time, which ends its turns as a repetition.
    assert_eq!(
        (r["first_attempt"].as_u64(), r["after_repair"].as_u64()),
        (Some(4), Some(0))
    );
    assert_eq!(r["failed"], serde_json::json!(["R-AIR-2"]));
    let air2 = r["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["id"] == "R-AIR-2")
        .unwrap();
    let attempts = air2["attempts"].as_array().unwrap();
    assert!(attempts[0]["error"]
        .as_str()
        .unwrap()
        .contains("`air_threshold` is a number (Real), not a condition"));
    assert!(attempts.last().unwrap()["error"]
        .as_str()
        .unwrap()
        .starts_with("stopped: the model repeated a rejected answer again"));
    let spec = reqs::load(Path::new(&formalized)).unwrap();
    assert_eq!(spec.requirements.len(), 5);
    assert_eq!(spec.formalized().count(), 4);

    let (code, j, stderr) = replay(&c, &["ambiguity", &formalized]);
    // Three are flagged, and R-BF-4 with fewer than two valid samples could not be
    // screened at all: that is a failure (exit 2), not a pass.
    assert_eq!(code, 2, "{stderr}");
    no_calls(&j);
    let s = &j["report"]["summary"];
    assert_eq!(s["flagged"], 3);
    let unscreened: Vec<&str> = j["report"]["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["could_not_screen"] == true)
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        s["could_not_screen"].as_u64(),
        Some(unscreened.len() as u64)
    );
    assert_eq!(unscreened, ["R-BF-4"]);
    let flagged: Vec<&serde_json::Value> = j["report"]["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["flagged"] == true)
        .collect();
    let ids: Vec<&str> = flagged.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, vec!["R-AIR-1", "R-AIR-2", "R-TEMP-1"]);
    // Every flagged requirement comes with witnesses in words.
    assert!(flagged
        .iter()
        .all(|r| !r["explanations"].as_array().unwrap().is_empty()));
    // R-TEMP-1's readings disagree at exactly 41 degC (exceeds vs at least).
    assert!(flagged[2]["explanations"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e.as_str().unwrap().contains("dialysate_temp = 41 degC")));

    let (code, j, stderr) = replay(&c, &["clarify", &formalized, "-o", &proposals]);
    // Nothing converged: exit status 2, and the proposals file is written all the same.
    assert_eq!(code, 2, "{stderr}");
    no_calls(&j);
    // Nothing converges (the recorded model mostly repeats the texts, even when told so)
    // and every proposal says why.
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&proposals).unwrap()).unwrap();
    assert_eq!(file["schema"], "vera.clarify.v1");
    let ps = file["proposals"].as_array().unwrap();
    assert_eq!(ps.len(), 3);
    for p in ps {
        assert_eq!(p["converged"], false);
        assert_eq!(p["accepted"], false);
        assert!(!p["note"].as_str().unwrap().is_empty());
    }
    // Applying proposals nobody accepted changes nothing, and says so.
    let clarified = dir.path().join("clarified.toml").display().to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_vera"))
        .args([
            "clarify",
            &formalized,
            "--apply",
            &proposals,
            "--out",
            &clarified,
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("nothing to apply"), "{err}");
    assert!(!Path::new(&clarified).exists());
}
