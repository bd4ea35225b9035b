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
        .join("../shared/data/fees-dataset/cra-25")
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
