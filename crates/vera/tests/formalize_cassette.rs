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
        "--smtlib",
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
        "--smtlib",
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

/// Every line of `source` that is not a requirement's `formula`/`origin`/`accepted` key
/// or a comment appears in `out`, in order: what the user wrote is kept byte for byte.
fn kept_in_order(source: &str, out: &str, changed: &[&str]) {
    let mut rest = out;
    for line in source.lines() {
        if changed.iter().any(|c| line.contains(c)) {
            continue;
        }
        match rest.find(line) {
            Some(at) => rest = &rest[at + line.len()..],
            None => panic!("line {line:?} of the source is missing or moved in\n{out}"),
        }
    }
}

#[test]
fn formulas_kept_as_written_are_copied_byte_for_byte() {
    // Integer literals on Real variables (which vera's printer writes as 10.0), a
    // three-line formula, comments, a review: all of it must come out as written.
    let source = "# the team's notes\n[spec]\nname = \"kept\"\nlogic = \"QF_LRA\"\n\n[[variables]]\nname = \"t\"\nsort = \"Real\"\nunit = \"C\"\nmin = 0\nmax = 100\n\n[[variables]]\nname = \"alarm\"\nsort = \"Bool\"\n\n[[domain]]\nid = \"D1\"\nformula = \"(<= t 90)\" # sensor range\n\n[[requirements]]\nid = \"R1\"\ntext = \"If the temperature is above 10 C, the alarm shall sound.\"\nformula = \"(=> (> t 10) alarm)\"\n\n[[requirements]]\nid = \"R2\"\ntext = \"The alarm shall be silent below 5 C.\"\nformula = '''\n(=> (< t 5)\n    (not alarm))'''\n\n[[reviews]]\nrequirement = \"R2\"\nfinding = \"redundant\"\nreason = \"kept on purpose\"\nreviewed_by = \"A. B\"\ndate = \"2026-11-02\"\n";
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("kept.toml");
    std::fs::write(&spec, source).unwrap();
    let out = dir.path().join("out.toml");
    let (code, stdout, stderr) = vera(&[
        "formalize",
        "--smtlib",
        &spec.display().to_string(),
        "-o",
        &out.display().to_string(),
        "--llm-config",
        NO_CONFIG,
        "--no-cache",
    ]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stdout.contains("kept as written (2 already had a formula"),
        "{stdout}"
    );
    let text = std::fs::read_to_string(&out).unwrap();
    // Only a header comment is added.
    let header_end = text
        .find("# the team's notes")
        .expect("the user's comment is kept");
    assert!(
        text[..header_end].lines().all(|l| l.starts_with('#')),
        "{text}"
    );
    assert_eq!(&text[header_end..], source, "everything else byte for byte");
    assert!(!text.contains("10.0"), "{text}");
    reqs::load(&out).expect("the output loads");
}

#[test]
fn a_partly_formalized_spec_changes_only_the_requirements_asked() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("formalized.toml");
    let (code, _stdout, stderr) = vera(&[
        "formalize",
        "--smtlib",
        SPEC,
        "--only",
        ONLY,
        "--reformalize",
        ONLY,
        "-o",
        &out.display().to_string(),
        "--llm-config",
        NO_CONFIG,
        "--no-cache",
        "--replay",
        CASSETTE,
    ]);
    assert!(code == 0 || code == 1, "{stderr}");
    let source = std::fs::read_to_string(root().join(SPEC)).unwrap();
    let text = std::fs::read_to_string(&out).unwrap();
    // The formulas of the requirements not asked are the user's, as written; only the
    // asked ones' formula and origin lines change, with comments above them.
    let asked: Vec<String> = ONLY.split(',').map(|id| format!("\"{id}\"")).collect();
    let mut changed: Vec<&str> = vec!["formula = ", "origin = ", "accepted = "];
    changed.extend(asked.iter().map(String::as_str));
    kept_in_order(&source, &text, &changed);
    let spec = reqs::load(&out).unwrap();
    let original = reqs::load(&root().join(SPEC)).unwrap();
    for r in &original.requirements {
        let id = format!("\"{}\"", r.id);
        let now = spec.requirements.iter().find(|x| x.id == r.id).unwrap();
        if !asked.contains(&id) {
            assert_eq!(now.formula, r.formula, "{} kept", r.id);
            assert_eq!(now.origin, r.origin, "{} kept", r.id);
        }
    }
}
