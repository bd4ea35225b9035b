//! Every option that writes a file refuses the command's inputs (by identity: hard links,
//! `./a` against `a`) even with --force, and existing files without --force; writes are
//! atomic, and a transcript cut by Ctrl-C says so.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs vera in `dir` with no LLM environment; returns (exit code, stdout, stderr).
fn vera_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_vera"))
        .args(args)
        .current_dir(dir)
        .env("VERA_LLM_PROVIDER", "local")
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

/// A temporary folder holding a copy of the hemodialysis spec as `h.toml`.
fn spec_dir() -> (tempfile::TempDir, PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("h.toml");
    std::fs::copy(
        root().join("examples/hemodialysis/hemodialysis.toml"),
        &spec,
    )
    .unwrap();
    let text = std::fs::read_to_string(&spec).unwrap();
    (dir, spec, text)
}

/// Names in `dir` (to see that no temporary file is left behind).
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn transcript_over_the_spec_is_refused_even_with_force() {
    let (dir, spec, text) = spec_dir();
    for args in [
        &["audit", "h.toml", "--transcript", "h.toml"][..],
        &["audit", "h.toml", "--transcript", "./h.toml", "--force"][..],
        &["audit", "./h.toml", "--transcript", "h.toml", "--force"][..],
    ] {
        let (code, out, err) = vera_in(dir.path(), args);
        assert_eq!(code, 2, "{args:?}\n{out}\n{err}");
        assert!(
            err.contains("is an input of this command"),
            "{args:?}: {err}"
        );
        assert_eq!(std::fs::read_to_string(&spec).unwrap(), text, "{args:?}");
    }
    assert_eq!(names(dir.path()), ["h.toml"]);
}

#[test]
fn transcript_through_a_hard_link_to_the_spec_is_refused() {
    let (dir, spec, text) = spec_dir();
    std::fs::hard_link(&spec, dir.path().join("link.smt2")).unwrap();
    let (code, _, err) = vera_in(
        dir.path(),
        &["audit", "h.toml", "--transcript", "link.smt2", "--force"],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is an input of this command"), "{err}");
    assert_eq!(std::fs::read_to_string(&spec).unwrap(), text);
}

#[test]
fn existing_transcript_needs_force_and_a_finished_one_is_complete() {
    let (dir, _spec, _) = spec_dir();
    let t = dir.path().join("t.smt2");
    std::fs::write(&t, "keep me").unwrap();
    let (code, _, err) = vera_in(
        dir.path(),
        &["ask", "h.toml", "--claim", "true", "--transcript", "t.smt2"],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("already exists"), "{err}");
    assert_eq!(std::fs::read_to_string(&t).unwrap(), "keep me");

    let (code, out, err) = vera_in(
        dir.path(),
        &[
            "ask",
            "h.toml",
            "--claim",
            "true",
            "--transcript",
            "t.smt2",
            "--force",
        ],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    let text = std::fs::read_to_string(&t).unwrap();
    assert!(text.contains("(check-sat"), "{text}");
    assert!(!text.contains("cut here"), "{text}");
    // The transcript, and the one of the process that re-checks unsat answers.
    assert_eq!(
        names(dir.path()),
        ["h.toml", "t.recheck.smt2", "t.smt2"],
        "no temporary file left"
    );
}

#[test]
fn record_over_an_input_is_refused_even_with_force() {
    let (dir, spec, text) = spec_dir();
    let (code, _, err) = vera_in(
        dir.path(),
        &[
            "formalize",
            "--smtlib",
            "h.toml",
            "--llm-config",
            "/nonexistent/vera.toml",
            "--no-cache",
            "--record",
            "./h.toml",
            "--force",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is an input of this command"), "{err}");
    assert_eq!(std::fs::read_to_string(&spec).unwrap(), text);
}

#[test]
fn formalize_output_through_a_hard_link_to_its_input_is_refused_with_force() {
    let (dir, spec, text) = spec_dir();
    std::fs::hard_link(&spec, dir.path().join("out.toml")).unwrap();
    let cassette = root().join("crates/pipeline/tests/cassettes/hemodialysis.jsonl");
    let (code, _, err) = vera_in(
        dir.path(),
        &[
            "formalize",
            "--smtlib",
            "h.toml",
            "--only",
            "R-AIR-1,R-AIR-2,R-TEMP-1,R-TEMP-2,R-BF-4",
            "--reformalize",
            "R-AIR-1,R-AIR-2,R-TEMP-1,R-TEMP-2,R-BF-4",
            "-o",
            "out.toml",
            "--force",
            "--llm-config",
            "/nonexistent/vera.toml",
            "--no-cache",
            "--replay",
            cassette.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is an input"), "{err}");
    assert_eq!(std::fs::read_to_string(&spec).unwrap(), text);
}

/// Ctrl-C during a query: the transcript is renamed into place and its last line says it
/// was cut; vera exits with 130.
#[cfg(unix)]
#[test]
fn transcript_cut_by_ctrl_c_ends_with_a_marker() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("q.smt2");
    std::fs::write(
        &input,
        "(declare-const hang_here Int)\n(assert (> hang_here 0))\n(check-sat)\n",
    )
    .unwrap();
    let fake = root().join("crates/vera/tests/fixtures/z3-proxy.py");
    let mut child = Command::new(env!("CARGO_BIN_EXE_vera"))
        .args([
            "smt",
            "check",
            "q.smt2",
            "--timeout",
            "120",
            "--transcript",
            "t.smt2",
        ])
        .current_dir(dir.path())
        .env("VERA_Z3", &fake)
        .env("FAKE_ARM", "hang_here")
        .env("FAKE_ACTION", "hang")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the hanging check-sat has been sent (it is in the temporary transcript).
    let start = Instant::now();
    loop {
        let sent = std::fs::read_dir(dir.path()).unwrap().any(|e| {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with(".t.smt2.")
                && std::fs::read_to_string(e.path()).is_ok_and(|t| t.contains("hang_here"))
        });
        if sent {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the query never started"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(300));
    let ok = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let text = std::fs::read_to_string(dir.path().join("t.smt2")).unwrap();
    let last = text.lines().last().unwrap();
    assert_eq!(last, ";; vera: cut here: interrupted (Ctrl-C)", "{text}");
    assert_eq!(names(dir.path()), ["q.smt2", "t.smt2"]);
}
