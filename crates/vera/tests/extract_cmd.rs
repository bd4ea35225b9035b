//! `vera extract` end to end: the TOML spec it prints (golden), what vera's spec loader
//! makes of it, `-o` (atomic, never over an input or an existing file without --force),
//! and exit codes 0, 1 and 2 with located errors; Ultimate `.req` files imported as timed
//! specs (`--tick`, notes, every error at once, no JSON).

mod common;
use common::{root, vera};

#[test]
fn markdown_to_a_toml_spec() {
    let (code, out, err) = vera(&["extract", "crates/extract/testdata/docs/lighting.md"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("7 requirements extracted from crates/extract/testdata/docs/lighting.md (read as markdown): 5 marked in the source, 2 candidates"),
        "{err}"
    );
    insta::assert_snapshot!("extract_lighting_toml", out);
}

#[test]
fn fret_and_hanfor_keep_their_formal_text_in_comments() {
    let (code, out, err) = vera(&["extract", "crates/extract/testdata/fret/project.json"]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("extract_fret_toml", out);
    let (code, out, err) = vera(&["extract", "crates/extract/testdata/hanfor/requirements.csv"]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("extract_hanfor_toml", out);
}

#[test]
fn the_written_spec_loads_and_is_never_written_over_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pca.toml");
    let o = out.to_str().unwrap();
    let pca = "crates/extract/testdata/open-pca-pump/requirements.txt";
    let (code, stdout, err) = vera(&["extract", pca, "-o", o]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.is_empty());
    let spec = std::fs::read_to_string(&out).unwrap();
    assert_eq!(spec.matches("[[requirements]]").count(), 153);
    assert!(spec.contains("id = \"5.1(3)\""));
    // An existing file needs --force.
    let (code, _, err) = vera(&["extract", pca, "-o", o]);
    assert_eq!(code, 2);
    assert!(err.contains("already exists"), "{err}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), spec);
    // Never over the input, not even with --force.
    let (code, _, err) = vera(&["extract", o, "-o", o, "--force"]);
    assert_eq!(code, 2);
    assert!(err.contains("is an input"), "{err}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), spec);
    // vera's spec loader reads it: every requirement is there, none formalized yet.
    let (code, _, err) = vera(&["audit", o]);
    assert_eq!(code, 2);
    assert!(
        err.contains("has 153 requirement(s) and none with a formula"),
        "{err}"
    );
}

#[test]
fn exit_codes_and_bad_input() {
    let (code, out, err) = vera(&[
        "extract",
        "crates/extract/testdata/docs/no-requirements.txt",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("0 requirements found in"), "{err}");
    assert!(out.contains("# 0 requirements found in"), "{out}");
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        p.to_str().unwrap().to_string()
    };
    for (file, message) in [
        (write("empty.txt", b""), "empty.txt: the file is empty"),
        (
            write("tool.bin", b"\x7fELF\x02\x00\x00"),
            "a binary file (a NUL byte at offset 5), not text",
        ),
        (
            write("latin1.md", b"# T\n\nCaf\xe9\n"),
            "latin1.md:3:4: not UTF-8",
        ),
        (
            write("bad.json", b"[{\"reqid\": 1}]"),
            "bad.json: record 1: \"reqid\" is not a string",
        ),
    ] {
        let (code, out, err) = vera(&["extract", &file]);
        assert_eq!(code, 2, "{file}: {err}");
        assert!(out.is_empty(), "{out}");
        assert!(err.contains(message), "{file}: {err}");
    }
    // --from overrides the guess.
    let (code, _, err) = vera(&[
        "extract",
        "crates/extract/testdata/docs/lighting.md",
        "--from",
        "reqif",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("lighting.md:1:1: not well-formed XML"),
        "{err}"
    );
    let _ = root();
}

const REQ: &str = "crates/extract/tests/data/ultimate-req/ex-rtinconsistent-01.req";

/// `text` written as `name` in `dir`; its path as a string.
fn write_in(dir: &std::path::Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn a_req_file_imports_to_a_timed_spec_that_audit_loads() {
    let (code, out, err) = vera(&["extract", REQ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(&format!(
            "2 requirements imported from {REQ} (read as Ultimate .req): a timed spec with 3 variables"
        )),
        "{err}"
    );
    // Dense time by default: the tick is the durations' greatest common divisor.
    assert!(
        out.contains("[time]\ntick = \"5 s\"\nsemantics = \"dense\"\n"),
        "{out}"
    );
    assert!(out.contains("id = \"req1\""), "{out}");
    assert!(
        out.contains(
            "[requirements.timed]\npattern = \"ResponseDelay\"\nR = \"B\"\nS = \"C\"\nc1 = \"5 s\"\n"
        ),
        "{out}"
    );
    // vera's timed spec loader reads it, and the audit gives the peer's verdict: the
    // two requirements reach a dead end (exit 1: findings).
    let dir = tempfile::tempdir().unwrap();
    let spec = write_in(dir.path(), "spec.toml", &out);
    let (code, audit, err) = vera(&["audit", &spec]);
    assert_eq!(code, 1, "{audit}\n{err}");
    assert!(
        audit.contains("2 requirements in dense time"),
        "{audit}\n{err}"
    );
    assert!(
        audit.contains("rt-inconsistency: 1 set with a dead end"),
        "{audit}\n{err}"
    );
    // vera's own check: neither requirement implies the other (a run each).
    assert!(
        audit.contains("redundancy: 0 redundant (proved), 2 broken by a run the others allow"),
        "{audit}\n{err}"
    );
    let (_, json, _) = vera(&["audit", &spec, "--format", "json"]);
    assert!(json.contains("\"status\": \"not-redundant\""), "{json}");
    let (_, quiet, _) = vera(&["audit", &spec, "--no-redundancy"]);
    assert!(!quiet.contains("redundancy:"), "{quiet}");
    // Without the rt-inconsistency check nothing is found (exit 0), and the report
    // says the check did not run rather than "0 sets with a dead end".
    let (code, no_rt, err) = vera(&["audit", &spec, "--no-rt"]);
    assert_eq!(code, 0, "{no_rt}\n{err}");
    assert!(
        no_rt.contains("rt-inconsistency: not checked (--no-rt)"),
        "{no_rt}"
    );
    // In discrete time the same file has vera's step-by-step keys.
    let (code, discrete, err) = vera(&["extract", REQ, "--semantics", "discrete"]);
    assert_eq!(code, 0, "{err}");
    assert!(discrete.contains("[time]\ntick = \"1 s\"\n"), "{discrete}");
    assert!(
        discrete.contains("[requirements.timed]\nif = \"B\"\nthen = \"C\"\nwithin = \"5 s\"\n"),
        "{discrete}"
    );
    let spec2 = write_in(dir.path(), "discrete.toml", &discrete);
    let (code, audit, err) = vera(&["audit", "--no-rt", &spec2]);
    assert_ne!(code, 2, "{audit}\n{err}");
    assert!(audit.contains("2 requirements on traces"), "{audit}\n{err}");
    // `--from req` reads a file of another name the same way.
    let txt = write_in(
        dir.path(),
        "reqs.txt",
        &std::fs::read_to_string(common::root().join(REQ)).unwrap(),
    );
    let (code, same, err) = vera(&["extract", &txt, "--from", "req"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("(read as Ultimate .req)"), "{err}");
    assert_eq!(
        same.replace(&txt, REQ)
            .replace("\"reqs\"", "\"ex-rtinconsistent-01\""),
        out
    );
}

#[test]
fn req_notes_go_to_standard_error_and_into_the_spec() {
    let file = "crates/extract/tests/data/ultimate-req/bug-524.req";
    let (code, out, err) = vera(&["extract", file, "--semantics", "discrete"]);
    assert_eq!(code, 0, "{err}");
    let note = "req2: \"once P becomes satisfied\" is read with `when`";
    assert!(err.contains(&format!("note: {note}")), "{err}");
    assert!(err.contains("(1 note above)"), "{err}");
    assert!(out.contains(&format!("# note: {note}")), "{out}");
    // A file without requirements: nothing to check, exit 1.
    let dir = tempfile::tempdir().unwrap();
    let empty = write_in(dir.path(), "empty.req", "Input A is bool\n");
    let (code, out, err) = vera(&["extract", &empty]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("note: the file has no requirements"), "{err}");
    assert!(err.contains("0 requirements found in"), "{err}");
    assert!(out.contains("[time]"), "{out}");
}

#[test]
fn req_output_file_needs_force_and_is_never_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("spec.toml");
    let o = out.to_str().unwrap();
    let (code, stdout, err) = vera(&["extract", REQ, "-o", o]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(err.contains("2 requirements imported from"), "{err}");
    let written = std::fs::read_to_string(&out).unwrap();
    assert_eq!(written, vera(&["extract", REQ]).1);
    // An existing file needs --force.
    let (code, _, err) = vera(&["extract", REQ, "-o", o, "--tick", "500 ms"]);
    assert_eq!(code, 2);
    assert!(err.contains("already exists"), "{err}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), written);
    let (code, _, err) = vera(&["extract", REQ, "-o", o, "--tick", "500 ms", "--force"]);
    assert_eq!(code, 0, "{err}");
    let replaced = std::fs::read_to_string(&out).unwrap();
    assert!(replaced.contains("tick = \"500 ms\""), "{replaced}");
    // Never over the input, not even with --force.
    let input = write_in(dir.path(), "in.req", &written_req());
    let (code, _, err) = vera(&["extract", &input, "-o", &input, "--force"]);
    assert_eq!(code, 2);
    assert!(err.contains("is an input"), "{err}");
    assert_eq!(std::fs::read_to_string(&input).unwrap(), written_req());
}

/// The text of [`REQ`].
fn written_req() -> String {
    std::fs::read_to_string(common::root().join(REQ)).unwrap()
}

#[test]
fn req_errors_are_listed_at_once_with_their_place() {
    let dir = tempfile::tempdir().unwrap();
    let bad = write_in(
        dir.path(),
        "bad.req",
        "Input A is bool\nInput B is bool\n\n\
         req1: Globally, it is always the case that if \"A\" holds then \"B\" eventually holds\n\
         req2: Globally, it is always the case that if \"A\" holds then \"B\" holds after at most \"5\" time units\n\
         req3: Sometimes \"A\" holds\n",
    );
    let out = dir.path().join("spec.toml");
    let (code, stdout, err) = vera(&[
        "extract",
        &bad,
        "-o",
        out.to_str().unwrap(),
        "--semantics",
        "discrete",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        err.contains(&format!(
            "{bad}:4:17: pattern not supported in discrete time: ResponsePattern"
        )),
        "{err}"
    );
    // Dense time reads the response pattern; the sentence that is none stays an error.
    let (code, _, dense_err) = vera(&["extract", &bad, "-o", out.to_str().unwrap()]);
    assert_eq!(code, 2, "{dense_err}");
    assert!(!dense_err.contains(":4:17:"), "{dense_err}");
    assert!(
        dense_err.contains(&format!("{bad}:6:7: expected a scope")),
        "{dense_err}"
    );
    assert!(
        err.contains(&format!("{bad}:6:7: expected a scope")),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "error: {bad} cannot be imported: the errors above"
        )),
        "{err}"
    );
    assert!(!err.contains("imported from"), "{err}");
    assert!(!out.exists(), "nothing is written");
}

#[test]
fn req_tick() {
    let (code, out, err) = vera(&["extract", REQ, "--tick", "500 ms"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("[time]\ntick = \"500 ms\"\n"), "{out}");
    assert!(out.contains("c1 = \"5 s\""), "{out}");
    // Not a duration: exit 2, nothing printed.
    let (code, out, err) = vera(&["extract", REQ, "--tick", "soon"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("the tick \"soon\" is not a duration"), "{err}");
    // A duration that is not a whole number of ticks.
    let (code, _, err) = vera(&["extract", REQ, "--tick", "3 s"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("{REQ}:")), "{err}");
    // Only for .req files.
    for args in [
        &[
            "extract",
            "crates/extract/testdata/docs/lighting.md",
            "--tick",
            "1 s",
        ][..],
        &[
            "extract",
            "crates/extract/testdata/docs/lighting.md",
            "--tick",
            "1 s",
            "--from",
            "markdown",
        ][..],
    ] {
        let (code, out, err) = vera(args);
        assert_eq!(code, 2, "{err}");
        assert!(out.is_empty(), "{out}");
        assert!(
            err.contains("--tick sets the time step of a spec imported from an Ultimate .req file"),
            "{err}"
        );
    }
}

#[test]
fn req_has_no_json_output() {
    let (code, out, err) = vera(&["extract", REQ, "--format", "json"]);
    assert_eq!(code, 2, "{err}");
    // The error, as the error payload JSON asks for.
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["schema"], "vera.error.v1", "{out}");
    assert!(
        err.contains("--format json is not available for an Ultimate .req file"),
        "{err}"
    );
}

const PUMP: &str = "crates/extract/tests/data/fretish/pump.json";
const LPC: &str = "crates/extract/tests/data/fret-case-studies/LPC_mini_reqts_and_vars.json";

#[test]
fn a_fret_export_imports_its_fretish_as_a_timed_spec_with_timed() {
    let (code, out, err) = vera(&["extract", PUMP, "--timed"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(&format!(
            "4 requirements imported from {PUMP} (read as FRET, FRETish): a timed spec with 5 variables"
        )),
        "{err}"
    );
    assert!(err.contains("note: P-1: FRET ignores time units"), "{err}");
    insta::assert_snapshot!("extract_fretish_pump_toml", out);
    // vera's timed spec loader and audit read it.
    let dir = tempfile::tempdir().unwrap();
    let spec = write_in(dir.path(), "spec.toml", &out);
    let (code, audit, err) = vera(&["audit", "--no-rt", &spec]);
    assert_ne!(code, 2, "{audit}\n{err}");
    assert!(audit.contains("4 requirements on traces"), "{audit}\n{err}");
    // Without --timed, the same file is the requirement list, as before.
    let (code, out, err) = vera(&["extract", PUMP]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("4 requirements extracted"), "{err}");
    assert!(out.contains("# FRETish: Upon start_pressed"), "{out}");
    assert!(!out.contains("[requirements.timed]"), "{out}");
    // --tick implies --timed for a FRET export.
    let (code, out, err) = vera(&["extract", PUMP, "--tick", "100 ms"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("[time]\ntick = \"100 ms\"\n"), "{out}");
    assert!(out.contains("within = \"2 ticks\""), "{out}");
}

#[test]
fn fretish_errors_are_listed_at_once_and_skip_unsupported_imports_the_rest() {
    let (code, out, err) = vera(&["extract", LPC, "--timed"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains(&format!("{LPC}:873:59: LPC_KIAS_DERIVATIVE: FTP (FRET's first-timepoint predicate) is not supported")),
        "{err}"
    );
    assert!(
        err.contains(&format!("{LPC}:873:73: LPC_KIAS_DERIVATIVE: preReal(...)")),
        "{err}"
    );
    assert!(
        err.contains(&format!("error: {LPC} cannot be imported: the errors above (--skip-unsupported imports the other requirements)")),
        "{err}"
    );
    let (code, out, err) = vera(&["extract", LPC, "--skip-unsupported"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("warning: "), "{err}");
    assert!(err.contains("18 requirements imported"), "{err}");
    assert!(err.contains("1 requirement left out"), "{err}");
    assert!(out.contains("# not imported: "), "{out}");
    assert!(!out.contains("id = \"LPC_KIAS_DERIVATIVE\""), "{out}");
    // The FSM case study imports whole.
    let (code, _, err) = vera(&[
        "extract",
        "crates/extract/tests/data/fret-case-studies/fsm_reqts_and_vars.json",
        "--timed",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("13 requirements imported"), "{err}");
}

#[test]
fn timed_is_for_fret_exports_and_has_no_json_output() {
    let (code, out, err) = vera(&["extract", PUMP, "--timed", "--format", "json"]);
    assert_eq!(code, 2, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["schema"], "vera.error.v1", "{out}");
    assert!(
        err.contains("--format json is not available with --timed"),
        "{err}"
    );
    let (code, out, err) = vera(&[
        "extract",
        "crates/extract/testdata/docs/lighting.md",
        "--timed",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains(
            "--timed (and --skip-unsupported) imports the FRETish sentences of a FRET export"
        ),
        "{err}"
    );
    let (code, _, err) = vera(&["extract", REQ, "--skip-unsupported"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--skip-unsupported is for FRET exports"),
        "{err}"
    );
    // A bad tick is one error.
    let (code, _, err) = vera(&["extract", PUMP, "--tick", "soon"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("the tick \"soon\" is not a duration"), "{err}");
}

/// Runs vera in `dir`; returns (exit code, stdout, stderr).
fn vera_in(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vera"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("vera runs");
    (
        out.status.code().expect("exit code"),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// A 29-page document whose 87 requirements all have the same shape but for their
/// digits: every one is extracted (none is taken for a page header), and the running
/// header that was dropped is named, with its lines, on standard error.
#[test]
fn requirements_shaped_alike_are_not_dropped_as_page_headers() {
    let t = tempfile::tempdir().unwrap();
    let mut doc = String::new();
    for p in 1..=29 {
        doc.push_str("Controller Software Requirements Specification\n\n");
        for k in 1..=3 {
            let n = (p - 1) * 3 + k;
            doc.push_str(&format!(
                "REQ-{n} The controller shall log event {n} within 5 ms.\n\n"
            ));
        }
        doc.push_str(&format!("Page {p} of 29\n"));
    }
    std::fs::write(t.path().join("log.txt"), doc).unwrap();
    let (code, out, err) = vera_in(t.path(), &["extract", "log.txt"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(
            "87 requirements extracted from log.txt (read as text): 87 marked in the source"
        ),
        "{err}"
    );
    assert!(
        err.contains("note: dropped 29 running header or footer lines like `Controller Software Requirements Specification` next to page breaks (lines 1, 10, 19, 28,"),
        "{err}"
    );
    assert_eq!(out.matches("[[requirements]]").count(), 87);
}

/// Markdown: `\|` stays in the requirement's text, a table row without an id and a
/// skipped code block are said on standard error, and no closing fence ends up in a
/// requirement.
#[test]
fn markdown_escaped_pipes_rows_without_ids_and_code_blocks() {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(
        t.path().join("s.md"),
        "# Spec\n\n| ID | Requirement |\n|----|-------------|\n| D-1 | The display shall show `a \\| b` as one value. |\n|  | The display shall blink twice. |\n\nR-9: The alarm shall sound.\n```\ncode\n```\n",
    )
    .unwrap();
    let (code, out, err) = vera_in(t.path(), &["extract", "s.md", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let texts: Vec<&str> = j["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        texts,
        [
            "The display shall show `a | b` as one value.",
            "The alarm shall sound."
        ]
    );
    assert!(
        err.contains("note: line 6: a table row without an id is not read as a requirement: The display shall blink twice."),
        "{err}"
    );
    assert!(
        err.contains("note: skipped a fenced code block (lines 9-11)"),
        "{err}"
    );
}

/// A DEL character (U+007F) from a document, a FRET requirement or a ReqIF character
/// reference (`&#x7F;`) is escaped in the TOML written, so the spec loads.
#[test]
fn a_del_character_is_escaped_in_the_written_spec() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    std::fs::write(d.join("doc.txt"), "R-1: The pump shall stop\u{7f} now.\n").unwrap();
    let fret = r#"{"requirements": [{"reqid": "LIM-1", "project": "Pump", "rationale": "Never more than 10\u007f ml/hr.", "fulltext": "Pump shall always satisfy basal_rate <= 10"}], "variables": []}"#;
    std::fs::write(d.join("fret.json"), fret).unwrap();
    let reqif =
        std::fs::read_to_string(root().join("crates/extract/testdata/reqif/requirements.reqif"))
            .unwrap()
            .replace("reopen the door &amp;", "reopen the door &#x7F;&amp;");
    std::fs::write(d.join("doors.reqif"), reqif).unwrap();
    for input in ["doc.txt", "fret.json", "doors.reqif"] {
        let (code, _, err) = vera_in(d, &["extract", input, "-o", "spec.toml", "--force"]);
        assert_eq!(code, 0, "{input}: {err}");
        let spec = std::fs::read_to_string(d.join("spec.toml")).unwrap();
        assert!(!spec.contains('\u{7f}'), "{input}: {spec}");
        assert!(spec.contains("\\u007F"), "{input}: {spec}");
        // The spec loads: the only complaint is that nothing has a formula yet.
        let (code, _, err) = vera_in(d, &["audit", "spec.toml"]);
        assert_eq!(code, 2, "{input}: {err}");
        assert!(
            err.contains("nothing to check: spec.toml has"),
            "{input}: {err}"
        );
    }
}

/// FRET's own LMCPS export holds model documents among its variables (records without
/// a variable_name): plain `vera extract` skips them with a note, as `--timed` does,
/// instead of refusing the file.
#[test]
fn a_fret_export_with_model_documents_is_read() {
    let (code, out, err) = vera(&[
        "extract",
        "crates/extract/tests/data/fret-case-studies/LM_requirements.json",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["counts"]["requirements"], 97);
    assert!(
        err.contains("note: 11 variable record(s) without a variable_name (model documents) are not read: records 1, 8, 12,"),
        "{err}"
    );
    assert!(j["notes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n.as_str().unwrap().starts_with("11 variable record(s)")));
}

/// Hanfor CSV: the line of a row is right with CRLF line ends and blank lines, and a
/// `\\` reads the same quoted or not (as Python's csv module, which Hanfor uses, reads
/// it).
#[test]
fn hanfor_lines_with_crlf_and_blank_lines_and_backslashes() {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(
        t.path().join("h.csv"),
        "ID,Description,Type\r\n\r\nR1,\"say \\\"x\\\" a\\\\b\",requirement\r\n\r\nR2,a\\\\b,requirement\r\n",
    )
    .unwrap();
    let (code, out, err) = vera_in(t.path(), &["extract", "h.csv", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let got: Vec<(u64, &str)> = j["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["source"]["line"].as_u64().unwrap(),
                r["text"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, [(3, "say \"x\" a\\b"), (5, "a\\b")]);
    std::fs::write(
        t.path().join("h.csv"),
        "ID,Description,Type\r\n\r\nR1,a,requirement\r\n\r\n,no id,requirement\r\n",
    )
    .unwrap();
    let (code, _, err) = vera_in(t.path(), &["extract", "h.csv"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("h.csv:5:1: the row has no id"), "{err}");
}

/// What the spec loader refuses is refused at import, at its place in the source: a
/// division by zero and a product of variables in a `.req` file, a division by zero in
/// a FRETish sentence, a formula nested deeper than the loader reads. A FRETish chain
/// of 1,500 `|` is one n-ary `or`, which the loader reads.
#[test]
fn imports_refuse_what_the_loader_refuses_and_write_chains_flat() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    std::fs::write(
        d.join("a.req"),
        "Input x is int\nInput y is int\nreq1: Globally, it is always the case that \"x / 0 > 1\" holds.\nreq2: Globally, it is always the case that \"x * y > 1\" holds.\n",
    )
    .unwrap();
    let (code, out, err) = vera_in(d, &["extract", "a.req"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("a.req:3:49: / by zero: SMT-LIB leaves its value unspecified"),
        "{err}"
    );
    assert!(
        err.contains("a.req:4:45: a product of two variable terms: vera's specs are linear"),
        "{err}"
    );
    let alternating: String = (0..1200)
        .map(|i| if i % 2 == 1 { " + x" } else { " - x" })
        .collect();
    std::fs::write(
        d.join("deep.req"),
        format!("Input x is int\nreq1: Globally, it is always the case that \"x{alternating} > 1\" holds.\n"),
    )
    .unwrap();
    let (code, _, err) = vera_in(d, &["extract", "deep.req"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("deep.req:2:45: the formula nests 1201 levels deep once written in SMT-LIB, more than the 1000 vera's spec loader reads"),
        "{err}"
    );

    let vars = |n: usize| -> String {
        let mut v: Vec<String> = (0..n)
            .map(|i| {
                format!(r#"{{"variable_name": "v{i}", "dataType": "boolean", "idType": "Input"}}"#)
            })
            .collect();
        v.push(r#"{"variable_name": "x", "dataType": "integer", "idType": "Input"}"#.into());
        v.push(r#"{"variable_name": "out", "dataType": "boolean", "idType": "Output"}"#.into());
        v.join(", ")
    };
    std::fs::write(
        d.join("zero.json"),
        format!(
            r#"{{"requirements": [{{"reqid": "R1", "fulltext": "The sys shall always satisfy x / 0 > 1"}}], "variables": [{}]}}"#,
            vars(0)
        ),
    )
    .unwrap();
    let (code, _, err) = vera_in(d, &["extract", "zero.json", "--timed"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("zero.json:1:81: R1: / by zero: SMT-LIB leaves its value unspecified"),
        "{err}"
    );
    let ors: Vec<String> = (0..1500).map(|i| format!("v{i}")).collect();
    std::fs::write(
        d.join("wide.json"),
        format!(
            r#"{{"requirements": [{{"reqid": "R1", "fulltext": "The sys shall always satisfy ({}) => out"}}], "variables": [{}]}}"#,
            ors.join(" | "),
            vars(1500)
        ),
    )
    .unwrap();
    let (code, _, err) = vera_in(d, &["extract", "wide.json", "--timed", "-o", "wide.toml"]);
    assert_eq!(code, 0, "{err}");
    let spec = std::fs::read_to_string(d.join("wide.toml")).unwrap();
    assert!(
        spec.contains("(=> (or v0 v1 v2 "),
        "{}",
        &spec[spec.len() - 300..]
    );
    let (code, out, err) = vera_in(d, &["audit", "wide.toml", "--no-rt"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1 requirements on traces"), "{err}");
}

/// `text` as UTF-16LE with a byte-order mark (what "Unicode text" exports write).
fn utf16le(text: &str) -> Vec<u8> {
    let mut b = vec![0xFF, 0xFE];
    b.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    b
}

/// A UTF-16 document is read as text (with a note), not called binary; UTF-16 without a
/// byte-order mark, and a UTF-16 spec, are refused with the encoding named and how to
/// convert.
#[test]
fn utf16_files_are_read_or_named_as_utf16() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    std::fs::write(d.join("doc.txt"), utf16le("R-1: The pump shall stop.\n")).unwrap();
    let (code, out, err) = vera_in(d, &["extract", "doc.txt"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("note: doc.txt is UTF-16LE text; read as such"),
        "{err}"
    );
    assert!(out.contains("text = \"The pump shall stop.\""), "{out}");
    let bare: Vec<u8> = "R-1: The pump shall stop.\n"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    std::fs::write(d.join("bare.txt"), bare).unwrap();
    let (code, _, err) = vera_in(d, &["extract", "bare.txt"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("bare.txt is UTF-16 text (without a byte-order mark); vera reads UTF-8: convert it first, e.g. `iconv -f UTF-16LE -t UTF-8 bare.txt > converted.txt`"),
        "{err}"
    );
    assert!(!err.contains("binary"), "{err}");
    let spec =
        std::fs::read_to_string(root().join("examples/hemodialysis/hemodialysis.toml")).unwrap();
    std::fs::write(d.join("h.toml"), utf16le(&spec)).unwrap();
    let (code, _, err) = vera_in(d, &["audit", "h.toml"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("h.toml is UTF-16 text; vera reads UTF-8"),
        "{err}"
    );
}

/// An Ultimate `.req` file given to `vera audit` is named as one, with the command that
/// imports it, instead of TOML errors from line 1 on.
#[test]
fn audit_of_a_req_file_points_at_extract() {
    let (code, _, err) = vera(&["audit", REQ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("{REQ} is an Ultimate/Hanfor requirements file (.req), not a vera spec: import it with `vera extract {REQ} -o ")),
        "{err}"
    );
    assert!(!err.contains("invalid key"), "{err}");
    // The same text under another name is recognized by its content.
    let t = tempfile::tempdir().unwrap();
    std::fs::copy(root().join(REQ), t.path().join("spec.txt")).unwrap();
    let (code, _, err) = vera_in(t.path(), &["audit", "spec.txt"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("import it with `vera extract spec.txt --from req -o spec.toml`"),
        "{err}"
    );
}

#[test]
fn a_conflict_the_environment_forces_in_dense_time_is_a_finding() {
    // `Input` and `Output` give the roles: the environment ends `a` after 2 s without
    // `b`, and R1 and R2 then demand opposite values of `b`.
    let dir = tempfile::tempdir().unwrap();
    let req = write_in(
        dir.path(),
        "env.req",
        "Input a is bool\nOutput b is bool\n\
         R1: Globally, it is always the case that if \"a\" holds then \"b\" holds after at most 2 time units.\n\
         R2: Globally, it is always the case that if \"!a\" holds then \"!b\" holds as well.\n",
    );
    let spec = dir.path().join("env.toml").display().to_string();
    let (code, _, err) = vera(&["extract", &req, "-o", &spec]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = vera(&["audit", &spec]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(
        out.contains("rt-inconsistency: 0 sets with a dead end"),
        "{out}"
    );
    assert!(
        out.contains("conflicts the environment can force: 1 set; 0 proved free"),
        "{out}"
    );
    assert!(
        out.contains("  R1, R2: after this run (1 intervals) every requirement holds, and the environment can choose the next inputs"),
        "{out}"
    );
    let (_, json, _) = vera(&["audit", &spec, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["environment"]["status"], "checked", "{json}");
    assert_eq!(
        v["environment"]["checks"][0]["dead_end"]["status"], "reachable",
        "{json}"
    );
    let (_, sarif, _) = vera(&["audit", &spec, "--format", "sarif"]);
    assert!(sarif.contains("VERA-DENSE-ENV-CONFLICT"), "{sarif}");
    // Not asked for: said so, and nothing is found.
    let (code, out, err) = vera(&["audit", &spec, "--no-rt"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains("conflicts the environment can force: not checked (--no-rt)"),
        "{out}"
    );
}
