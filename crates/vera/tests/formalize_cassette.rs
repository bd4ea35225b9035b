//! Replays the cassette recorded from the local model (crates/pipeline/tests/cassettes)
//! end to end through the `vera` binary: formalize and ambiguity, no server needed.

use std::path::{Path, PathBuf};
use std::process::Command;

const ONLY: &str = "R-AIR-1,R-AIR-2,R-TEMP-1,R-TEMP-2,R-BF-4";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn vera(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_vera"))
        .args(args)
        .current_dir(root())
        .env("VERA_LLM_PROVIDER", "local")
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

const SPEC: &str = "examples/hemodialysis/hemodialysis.toml";
const CASSETTE: &str = "crates/pipeline/tests/cassettes/hemodialysis.jsonl";
const NO_CONFIG: &str = "/nonexistent/vera.toml";

#[test]
fn formalize_replays_from_the_cassette() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("formalized.toml");
    let out_s = out.display().to_string();
    let (code, stdout, stderr) = vera(&[
        "formalize",
        SPEC,
        "--only",
        ONLY,
        "--reformalize",
        ONLY,
        "-o",
        &out_s,
        "--llm-config",
        NO_CONFIG,
        "--no-cache",
        "--replay",
        CASSETTE,
        "--format",
        "json",
    ]);
    assert!(code == 0 || code == 1, "{stderr}");
    let j: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(j["schema"], "vera.formalize.v1");
    let reqs = j["report"]["requirements"].as_array().unwrap();
    assert_eq!(reqs.len(), 5);
    assert_eq!(
        j["llm"]["total"]["calls"], 0,
        "nothing but the cassette answers"
    );
    // The new spec loads, keeps every requirement, and records provenance.
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("# provenance: provider=local"));
    let spec = reqs::load(&out).unwrap();
    assert_eq!(
        spec.requirements.len(),
        reqs::load(&root().join(SPEC)).unwrap().requirements.len()
    );
    // Never over an existing file without --force.
    let (code, _, stderr) = vera(&[
        "formalize",
        SPEC,
        "--only",
        ONLY,
        "--reformalize",
        ONLY,
        "-o",
        &out_s,
        "--llm-config",
        NO_CONFIG,
        "--no-cache",
        "--replay",
        CASSETTE,
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("exists"), "{stderr}");
}

#[test]
fn ambiguity_replays_from_the_cassette() {
    let (code, stdout, stderr) = vera(&[
        "ambiguity",
        SPEC,
        "--only",
        ONLY,
        "--llm-config",
        NO_CONFIG,
        "--no-cache",
        "--replay",
        CASSETTE,
        "--format",
        "json",
    ]);
    assert!(code == 0 || code == 1, "{stderr}");
    let j: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(j["schema"], "vera.ambiguity.v1");
    let s = &j["report"]["summary"];
    assert_eq!(s["requirements"], 5);
    assert_eq!(code == 1, s["flagged"].as_u64().unwrap() > 0);
    for r in j["report"]["requirements"].as_array().unwrap() {
        assert_eq!(r["samples"].as_array().unwrap().len(), 5);
    }
}
