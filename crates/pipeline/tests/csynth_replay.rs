//! The C synthesis loop end to end from a cassette recorded with the real local
//! model (`scripts/local-llm`, Qwen2.5-Coder-1.5B, temperature 0) by
//! `vera c synth FILE --record crates/pipeline/tests/cassettes/csynth_local.jsonl
//! -j 2 --max-mutants 8` on three small files. No model server is needed; Frama-C
//! still runs, with the settings of the recording (a different verifier answer would
//! change the repair prompts, which then miss in the cassette).

use std::path::{Path, PathBuf};

use acsl::{parse_c, WpConfig};
use llm::LlmConfig;
use pipeline::csynth::{synthesize, SynthOptions};

fn strip_inserted(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("/*@ ") {
        let line_start = rest[..i].rfind('\n').map(|p| p + 1).unwrap_or(0);
        let indent = &rest[line_start..i];
        out.push_str(&rest[..i]);
        let end = rest[i..].find("*/\n").unwrap() + i + 3;
        rest = rest[end..].strip_prefix(indent).unwrap_or(&rest[end..]);
    }
    out.push_str(rest);
    out
}

#[test]
fn replays_the_recorded_local_model() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cassette = root.join("tests/cassettes/csynth_local.jsonl");
    assert!(cassette.exists(), "missing cassette {}", cassette.display());
    let cfg = LlmConfig {
        replay: Some(cassette),
        record: None,
        cache: None,
        ..LlmConfig::local()
    };
    let client = cfg.client().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let opts = SynthOptions {
        max_mutants: Some(8),
        ..SynthOptions::default()
    };
    for name in ["csynth_max.c", "csynth_abs.c", "csynth_clamp.c"] {
        let file = parse_c(&root.join("tests/c").join(name)).unwrap();
        let wp = WpConfig {
            timeout: 2,
            par: 2,
            jobs: 2,
            cache_dir: Some(dir.path().join(name)),
            why3_config: Some(PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("csynth-why3.conf")),
            ..WpConfig::default()
        };
        let out = synthesize(&file, &client, &wp, &opts, &mut |l| eprintln!("{l}"))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let s = &out.report.summary;
        eprintln!(
            "{name}: proposed {} proved {} assumed {} dropped {} refused {}+{} precision {:?} VDR {:?} -> {:?}, verdict {:?}",
            s.proposed,
            s.proved,
            s.assumed,
            s.dropped,
            s.rejected,
            s.rejected_by_frama_c,
            s.precision,
            s.vdr_before.vdr,
            s.vdr_after.vdr,
            out.report.final_verdict
        );
        assert_eq!(strip_inserted(&out.text), file.text, "{name}");
        assert!(out
            .report
            .clauses
            .iter()
            .all(|c| !matches!(c.status, pipeline::csynth::ClauseStatus::Pending)));
        assert!(s.vdr_after.assessed > 0, "{name}");
        assert!(s.vdr_after.killed >= s.vdr_before.killed, "{name}");
    }
    let acc = client.accounting();
    assert_eq!(acc.total.calls, 0, "replay must not call a model");
    assert!(acc.total.replayed > 0);
}
