//! `vera c synth` on a program of two files and a header (`--out-dir`), with a
//! local server playing the model (tests/support/chat_server.rs) and the real
//! Frama-C/WP: annotated copies of each file under the output folder, clauses in
//! the file they belong to, inputs untouched, nothing overwritten without
//! --force. Needs frama-c, why3, z3, cvc5 and gcc (scripts/setup).

#[path = "support/chat_server.rs"]
mod chat_server;

use std::path::Path;
use std::process::Command;

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

const HEADER: &str = "#define MAXV 100\n\n/*@ assigns \\nothing; */\nint bounded(int x);\n";
const A: &str = "#include \"lim.h\"\n\nint bounded(int x) {\n  if (x > MAXV) return MAXV;\n  if (x < 0) return 0;\n  return x;\n}\n";
const B: &str = "#include \"lim.h\"\n\nint use(int x) { return bounded(x) + 1; }\n";

fn answer(body: &str) -> String {
    let clauses = if body.contains("function `bounded`") {
        r#"[{"kind": "ensures", "expr": "0 <= \\result <= MAXV"}]"#
    } else if body.contains("function `use`") {
        r#"[{"kind": "assigns", "expr": "\\nothing"}, {"kind": "ensures", "expr": "\\result <= MAXV + 1"}]"#
    } else {
        "[]"
    };
    format!(r#"{{"clauses": {clauses}}}"#)
}

#[test]
fn a_program_is_annotated_file_by_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir(dir.join("inc")).unwrap();
    std::fs::write(dir.join("inc/lim.h"), HEADER).unwrap();
    std::fs::write(dir.join("a.c"), A).unwrap();
    std::fs::write(dir.join("b.c"), B).unwrap();
    let (port, served) = chat_server::server(answer);
    let args = [
        "c",
        "synth",
        "a.c",
        "b.c",
        "-I",
        "inc",
        "--out-dir",
        "out",
        "--attempts",
        "1",
        "--wp-timeout",
        "2",
    ];
    let (code, out, err) = vera(dir, port, &args);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("a.c b.c -> out/: proved"), "{out}");
    assert!(served.load(std::sync::atomic::Ordering::SeqCst) >= 2);
    // The contract of bounded is on its prototype, in the header: the clause
    // goes there, and the source keeps its text.
    let h = std::fs::read_to_string(dir.join("out/inc/lim.h")).unwrap();
    assert!(h.contains("0 <= \\result <= MAXV"), "{h}");
    assert_eq!(std::fs::read_to_string(dir.join("out/a.c")).unwrap(), A);
    let b = std::fs::read_to_string(dir.join("out/b.c")).unwrap();
    assert!(
        b.contains("\\result <= MAXV + 1; */\nint use(int x)"),
        "{b}"
    );
    // The report is a vera.c-synth.v1 payload; points name their original file.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/vera-synth.json")).unwrap())
            .unwrap();
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../docs/schemas/vera.c-synth.v1.schema.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&schema)
        .unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&report)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let points = report["report"]["points"].as_array().unwrap();
    assert!(
        points
            .iter()
            .any(|p| p["function"] == "bounded" && p["file"] == "inc/lim.h" && p["line"] == 3),
        "{points:?}"
    );
    // The inputs are untouched.
    assert_eq!(
        std::fs::read_to_string(dir.join("inc/lim.h")).unwrap(),
        HEADER
    );
    assert_eq!(std::fs::read_to_string(dir.join("b.c")).unwrap(), B);

    // Again: the outputs exist, so nothing is done without --force.
    let (code, _, err) = vera(dir, port, &args);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("out/a.c"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.join("out/inc/lim.h")).unwrap(),
        h
    );

    // Several files and no folder for them.
    let (code, _, err) = vera(dir, port, &["c", "synth", "a.c", "b.c", "-I", "inc"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--out-dir"), "{err}");
}
