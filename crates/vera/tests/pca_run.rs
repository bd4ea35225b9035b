//! The Open PCA pump requirements document, section 5, taken through `vera run` with the
//! local model (scripts/local-llm, Qwen2.5-Coder-1.5B) and replayed here offline from
//! the recording: every stage runs again on this machine's solvers, the model's answers
//! come from the cassette, and the table must be the one docs/run.md shows.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The command line the recording was made with (docs/run.md, "The Open PCA pump").
const ARGS: &[&str] = &[
    "run",
    "crates/extract/testdata/open-pca-pump/requirements.txt",
    "--sections",
    "5",
    "--chunk",
    "6",
    "--schema-max-tokens",
    "1500",
    "--retries",
    "1",
    "--samples",
    "3",
];

/// The rows of the table between the markers in docs/run.md: (measure, value).
fn documented_rows() -> Vec<(String, String)> {
    let doc = std::fs::read_to_string(root().join("docs/run.md")).unwrap();
    let start = doc
        .find("<!-- pca-table -->")
        .expect("docs/run.md has the PCA table");
    let end = doc.find("<!-- /pca-table -->").expect("its end marker");
    doc[start..end]
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| measure") && !l.starts_with("|--"))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split(" | ").collect();
            assert_eq!(cells.len(), 2, "{l}");
            (cells[0].trim().to_string(), cells[1].trim().to_string())
        })
        .collect()
}

#[test]
fn the_pca_pump_section_5_replays_to_the_documented_table() {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("pca.vera");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vera"));
    for (k, _) in std::env::vars() {
        if k.starts_with("VERA_LLM_") {
            cmd.env_remove(k);
        }
    }
    let out = cmd
        .args(ARGS)
        .args(["--dir", &run_dir.display().to_string()])
        .args([
            "--llm-config",
            "/nonexistent/vera.toml",
            "--no-cache",
            "--replay",
            "crates/pipeline/tests/cassettes/pca-section5.jsonl",
            "--format",
            "json",
        ])
        .env("VERA_LLM_PROVIDER", "local")
        .current_dir(root())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let v: serde_json::Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}:\n{stdout}\n{stderr}"));
    // Findings (the model's schema and formulas are far from perfect), nothing undecided.
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let t = &v["llm"]["total"];
    assert_eq!(t["calls"], 0, "nothing but the cassette answers: {t}");
    assert_eq!(t["replayed"], t["requests"]);
    assert_eq!(v["extract"]["selected"], 18);
    let rows: Vec<(String, String)> = v["table"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["measure"].as_str().unwrap().to_string(),
                r["value"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        documented_rows(),
        "the replayed table differs from docs/run.md"
    );
    // Every stage's files are there.
    for f in [
        "requirements.json",
        "schema.toml",
        "formalized.toml",
        "audit.json",
        "ambiguity.json",
        "roundtrip.json",
        "run.json",
    ] {
        assert!(run_dir.join(f).is_file(), "{f}");
    }
}
