//! `vera audit` on specs with a `[time]` table (docs/timed.md), end to end: bad timed
//! input is a located error with exit status 2 (never a panic, never a verdict), the
//! exit status of a verdict, the other commands' refusal of timed requirements, and a
//! closed standard output.

use std::io::Read as _;
use std::path::Path;
use std::process::{Command, Stdio};

mod common;
use common::{root, vera};

const RT: &str = "crates/vera/tests/fixtures/timed-rt.toml";
const OK: &str = "crates/vera/tests/fixtures/timed-ok.toml";
const ENV: &str = "crates/vera/tests/fixtures/timed-env.toml";

/// A spec with `[time]` (unless `time` is false), Booleans A and C, and one timed
/// requirement R-1 whose `[requirements.timed]` table holds `timed` (the table's
/// heading is on line 18, its first key on line 19).
fn spec(time: bool, timed: &str) -> String {
    let time = if time {
        "[time]\ntick = \"1 s\"\n"
    } else {
        "# no [time] table\n\n"
    };
    format!(
        "[spec]\nname = \"bad\"\n\n{time}\n[[variables]]\nname = \"A\"\nsort = \"Bool\"\n\n\
         [[variables]]\nname = \"C\"\nsort = \"Bool\"\n\n[[requirements]]\nid = \"R-1\"\n\
         text = \"t\"\n[requirements.timed]\n{timed}"
    )
}

/// Writes `text` to `dir/name` and returns the path as a string.
fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// Asserts exit status 2, no panic, no verdict on either stream, and an error located
/// at `file:line:col` whose message contains `says`.
fn assert_located_error(args: &[&str], file: &str, line_col: &str, says: &str) {
    let (code, out, err) = vera(args);
    let what = format!("vera {}", args.join(" "));
    assert_eq!(code, 2, "{what}: exit status\n{out}{err}");
    assert!(!err.contains("panicked"), "{what}: a panic\n{err}");
    for verdict in [
        "consistent",
        "inconsistent",
        "rt-inconsisten",
        "solver queries",
    ] {
        assert!(
            !out.contains(verdict) && !err.contains(verdict),
            "{what}: a verdict ({verdict}) on bad input\n{out}{err}"
        );
    }
    if args.contains(&"json") {
        // The error payload, with the same located problem.
        let j: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(j["schema"], "vera.error.v1", "{what}: {out}");
        let (l, c) = line_col.split_once(':').unwrap();
        let (l, c): (u64, u64) = (l.parse().unwrap(), c.parse().unwrap());
        assert!(
            j["error"]["diagnostics"]
                .as_array()
                .unwrap()
                .iter()
                .any(|d| {
                    d["file"] == file
                        && d["line"] == l
                        && d["column"] == c
                        && d["message"].as_str().unwrap().contains(says)
                }),
            "{what}: {out}"
        );
    } else {
        assert!(out.is_empty(), "{what}: standard output\n{out}");
    }
    let at = format!("{file}:{line_col}: error: ");
    let line = err
        .lines()
        .find(|l| l.starts_with(&at))
        .unwrap_or_else(|| panic!("{what}: no error at {at}\n{err}"));
    assert!(line.contains(says), "{what}: `{line}` does not say {says}");
}

#[test]
fn bad_timed_input_is_a_located_error_and_no_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, bool, &str, &str, &str)] = &[
        (
            "unit.toml",
            true,
            "if = \"A\"\nthen = \"C\"\nwithin = \"5 parsecs\"\n",
            "21:10",
            "unknown unit of time `parsecs`",
        ),
        (
            "negative.toml",
            true,
            "if = \"A\"\nthen = \"C\"\nwithin = \"-5 s\"\n",
            "21:10",
            "cannot be negative",
        ),
        (
            "enormous.toml",
            true,
            "if = \"A\"\nthen = \"C\"\nwithin = \"10000000 h\"\n",
            "21:10",
            "at most 100000 are supported",
        ),
        (
            "fraction.toml",
            true,
            "if = \"A\"\nthen = \"C\"\nfor = \"1.5 s\"\n",
            "21:7",
            "not a whole number of ticks",
        ),
        (
            "named.toml",
            true,
            "if = \"A\"\nthen = \"C\"\nwithin = \"LIMIT\"\n",
            "21:10",
            "`LIMIT`",
        ),
        (
            "no-then.toml",
            true,
            "if = \"A\"\nwithin = \"5 s\"\n",
            "18:1",
            "needs `then`",
        ),
        (
            "two-triggers.toml",
            true,
            "if = \"A\"\nwhen = \"C\"\nthen = \"C\"\n",
            "20:8",
            "at most one trigger",
        ),
        (
            "two-timings.toml",
            true,
            "if = \"A\"\nthen = \"C\"\nwithin = \"5 s\"\nfor = \"2 s\"\n",
            "22:7",
            "at most one",
        ),
        (
            "unparsed.toml",
            true,
            "if = \"A\"\nthen = \"(and C\"\n",
            "20:9",
            "unclosed `(`",
        ),
        (
            "undeclared.toml",
            true,
            "if = \"A\"\nthen = \"(and C D)\"\n",
            "20:16",
            "undeclared symbol `D`",
        ),
        (
            "not-bool.toml",
            true,
            "if = \"A\"\nthen = \"(+ 1 2)\"\n",
            "20:9",
            "expected a Bool formula",
        ),
        (
            "unknown-key.toml",
            true,
            "if = \"A\"\nthen = \"C\"\nwihtin = \"5 s\"\n",
            "21:1",
            "unknown field `wihtin`",
        ),
        (
            "no-time.toml",
            false,
            "if = \"A\"\nthen = \"C\"\nwithin = \"5 s\"\n",
            "18:1",
            "the spec has no [time] table",
        ),
    ];
    for (name, time, timed, line_col, says) in cases {
        let text = spec(*time, timed);
        // The heading of the timed table is on line 18 in both shapes.
        assert_eq!(
            text.lines().nth(17),
            Some("[requirements.timed]"),
            "{name}: {text}"
        );
        let f = write(dir.path(), name, &text);
        assert_located_error(&["audit", &f], &f, line_col, says);
        assert_located_error(&["audit", &f, "--format", "json"], &f, line_col, says);
    }
}

#[test]
fn bad_time_table_and_bad_options_are_errors_too() {
    let dir = tempfile::tempdir().unwrap();
    let good = spec(true, "if = \"A\"\nthen = \"C\"\nwithin = \"5 s\"\n");
    for (name, from, to, line_col, says) in [
        (
            "tick-unit.toml",
            "tick = \"1 s\"",
            "tick = \"1\"",
            "5:8",
            "unit",
        ),
        (
            "tick-zero.toml",
            "tick = \"1 s\"",
            "tick = \"0 s\"",
            "5:8",
            "zero",
        ),
        (
            "horizon-zero.toml",
            "tick = \"1 s\"",
            "tick = \"1 s\"\nhorizon = \"0 s\"",
            "6:11",
            "at least one tick",
        ),
    ] {
        let f = write(dir.path(), name, &good.replace(from, to));
        assert_located_error(&["audit", &f], &f, line_col, says);
    }
    // A horizon or rt horizon given on the command line: the option is named.
    let f = write(dir.path(), "good.toml", &good);
    for (args, says) in [
        (
            &["--horizon", "0 s"][..],
            "--horizon must be at least one tick",
        ),
        (&["--horizon", "2.5 s"], "--horizon: `2.5 s` is not a whole"),
        (&["--horizon", "5 parsecs"], "--horizon: unknown unit"),
        (
            &["--rt-horizon=-3 s"],
            "--rt-horizon: `-3 s`: a duration cannot be negative",
        ),
    ] {
        let mut all = vec!["audit", f.as_str()];
        all.extend(args);
        let (code, out, err) = vera(&all);
        assert_eq!(code, 2, "{all:?}\n{out}{err}");
        assert!(!err.contains("panicked"), "{all:?}: {err}");
        assert!(err.contains(says), "{all:?}: {err}");
        assert!(out.is_empty(), "{all:?}: {out}");
    }
}

#[test]
fn rt_inconsistent_requirements_exit_1_and_say_so() {
    let (code, out, err) = vera(&["audit", RT]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("rt-inconsistent"), "{out}");
    assert!(out.contains("req1, req2"), "{out}");
    // Both requirements together are consistent: a run exists.
    assert!(out.contains("consistent: an infinite run"), "{out}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_consistent_timed_spec_without_findings_exits_0() {
    let (code, out, err) = vera(&["audit", OK]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("consistent: an infinite run"), "{out}");
    assert!(
        out.contains("rt-inconsistency: no dead end after any prefix"),
        "{out}"
    );
    assert!(!out.contains("rt-inconsistent:"), "{out}");
}

/// An environment conflict is reported as an error in SARIF
/// (VERA-TIMED-ENV-CONFLICT), like the untimed audit's unrealizability (exit status 1),
/// but the timed audit exits 0 on it: `TimedReport::has_findings` does not look at
/// `environment`.
#[test]
fn an_environment_conflict_is_a_finding() {
    let (code, out, err) = vera(&["audit", ENV]);
    assert!(
        out.contains("conflicts the environment can force: 1 minimal set"),
        "{out}"
    );
    assert_eq!(code, 1, "{out}{err}");
}

#[test]
fn other_commands_refuse_timed_requirements_and_name_vera_audit() {
    for args in [&["mutate", RT][..], &["mutate", RT, "--format", "json"]] {
        let (code, out, err) = vera(args);
        assert_eq!(code, 2, "{args:?}\n{out}{err}");
        assert!(
            err.contains("only `vera audit` reads timed requirements"),
            "{args:?}: {err}"
        );
        assert!(err.contains("req1, req2"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        if args.contains(&"json") {
            // The error as the error payload.
            let j: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(j["schema"], "vera.error.v1", "{out}");
            assert!(j["error"]["message"]
                .as_str()
                .unwrap()
                .contains("only `vera audit` reads timed requirements"));
        } else {
            assert!(out.is_empty(), "{args:?}: {out}");
        }
    }
}

/// `vera ask` on a timed spec: the hemodialysis questions with their exit status, a
/// claim without the steps it speaks of, a fact after the run, and what is not there
/// yet (`--derive`) are errors that say so.
#[test]
fn questions_over_time_from_the_command_line() {
    let (code, out, err) = vera(&[
        "ask",
        "examples/hemodialysis/hemodialysis-timed.toml",
        "--questions",
        "examples/hemodialysis/questions-timed.toml",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("Q-T1: entailed"), "{out}");
    assert!(out.contains("Q-T2: not entailed"), "{out}");
    assert!(out.contains("Q-T5: scenario impossible"), "{out}");
    assert!(out.contains("runs of 52 steps (260 s)"), "{out}");
    assert!(!out.contains("expected"), "{out}");
    for (args, says) in [
        (&["ask", RT, "--claim", "A"][..], "has no `:`"),
        (
            &["ask", RT, "--claim", "at 1.5 s: A"],
            "whole number of ticks",
        ),
        (
            &[
                "ask",
                RT,
                "--claim",
                "at 1 s: A",
                "--scenario",
                "[2 s, 1 s]: B",
            ],
            "empty",
        ),
        (
            &["ask", RT, "--claim", "at 1 s: A", "--margin", "1 parsec"],
            "--margin",
        ),
        (
            &["ask", RT, "--derive"],
            "--derive is not available for timed specs",
        ),
    ] {
        let (code, out, err) = vera(args);
        assert_eq!(code, 2, "{args:?}\n{out}{err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let (code, out, err) = vera(&["ask", RT, "--claim", "at 1 s: (or A (not A))"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("claim: entailed"), "{out}");
    assert!(out.contains("by the scenario alone"), "{out}");
    // A claim of several facts is all of them: the second one fails here.
    let (code, out, err) = vera(&["ask", RT, "--claim", "at 0 s: (or A (not A)); at 9 s: C"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("claim: not entailed"), "{out}");
    // Each question on its own run length; bad expectations and twice-used ids refused.
    let dir = tempfile::tempdir().unwrap();
    let q = write(
        dir.path(),
        "q.toml",
        r#"
[[questions]]
id = "short"
scenario = "at 0 s: (and A B)"
claim = "[0 s, 4 s]: (not C); sometime [0 s, 5 s]: C"
expected = "scenario-impossible"
[[questions]]
id = "late"
claim = "at 200 s: (or C (not C))"
expected = "entailed"
"#,
    );
    let (code, out, err) = vera(&["ask", RT, "--questions", &q]);
    // A scenario found impossible is a finding, as expected or not.
    assert_eq!(code, 1, "{out}{err}");
    assert!(!out.contains("(expected"), "{out}");
    assert!(out.contains("on runs of 17 steps (17 s)"), "{out}");
    assert!(out.contains("on runs of 212 steps (212 s)"), "{out}");
    let bad = write(
        dir.path(),
        "bad.toml",
        r#"
[[questions]]
id = "a"
claim = "at 0 s: A"
expected = "yes"
[[questions]]
id = "a"
claim = "at 0 s: A"
"#,
    );
    let (code, _, err) = vera(&["ask", RT, "--questions", &bad]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is not a verdict"), "{err}");
    assert!(err.contains("used twice"), "{err}");
}

/// `vera audit ... | head -1`: the reader is gone before vera writes. The read end of
/// the pipe is closed right after the start, while vera is still auditing (a second or
/// more), so every write meets a closed pipe: no panic, the verdict's exit status.
#[test]
fn a_closed_standard_output_is_no_panic() {
    for format in ["human", "json", "sarif"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_vera"))
            .args(["audit", RT, "--witnesses", "--format", format])
            .current_dir(root())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let status = child.wait().unwrap();
        assert!(!err.contains("panicked"), "{format}: {err}");
        assert_eq!(status.code(), Some(1), "{format}: {status:?}\n{err}");
    }
    // And through a real `head -1`.
    let dir = tempfile::tempdir().unwrap();
    let err_file = dir.path().join("err.txt");
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "'{}' audit {RT} --witnesses 2>'{}' | head -1",
            env!("CARGO_BIN_EXE_vera"),
            err_file.display()
        ))
        .current_dir(root())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let err = std::fs::read_to_string(&err_file).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("2 requirements on traces"), "{text}");
    assert!(!err.contains("panicked"), "{err}");
}

/// A duration whose number does not read as a decimal (`5-3`, `+-5`, `.5`) passes the
/// duration parser's checks and is then read as 0 (`logic::elab::parse_decimal` falls
/// back to zero): `within = "5-3 s"` is audited as `within 0 s`.
#[test]
fn a_duration_whose_number_does_not_read_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    for d in ["5-3 s", "+-5 s", "5+ s", ".5 s"] {
        let f = write(
            dir.path(),
            "d.toml",
            &spec(
                true,
                &format!("if = \"A\"\nthen = \"C\"\nwithin = \"{d}\"\n"),
            ),
        );
        assert_located_error(&["audit", &f], &f, "21:10", "");
    }
}

/// `vera audit` tells a timed spec from a plain one by looking for the exact lines
/// `[time]`, `[time.…` or `[requirements.timed]`; a heading with a comment after it, or
/// inline tables, make it load the spec as a plain one, which refuses timed
/// requirements with "only `vera audit` reads timed requirements".
#[test]
fn a_timed_spec_is_recognised_whatever_its_toml_layout() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join(OK)).unwrap();
    let commented = text
        .replace("[time]\n", "[time]  # the time base\n")
        .replace("[requirements.timed]\n", "[requirements.timed]  # when\n");
    let inline = format!(
        "time = {{ tick = \"1 s\" }}\n{}",
        text.replace("[time]\ntick = \"1 s\"\n", "")
    );
    for (name, t) in [("commented.toml", commented), ("inline.toml", inline)] {
        let f = write(dir.path(), name, &t);
        let (code, out, err) = vera(&["audit", &f]);
        assert_eq!(code, 0, "{name}\n{out}{err}");
    }
}
