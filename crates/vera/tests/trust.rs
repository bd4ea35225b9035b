//! No verdict without an answer: an `unknown` anywhere on the path to a verdict, an
//! empty input, or a result that means nothing is reported as such (exit 2), never as a
//! pass or a complete result. The faults are injected by `fixtures/z3-proxy.py`, which
//! passes everything else through to the real z3.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs vera from the repository root with extra environment; returns (code, out, err).
fn vera_env(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_vera"));
    c.args(args).current_dir(root());
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().expect("vera runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn vera(args: &[&str]) -> (i32, String, String) {
    vera_env(args, &[])
}

fn proxy() -> String {
    root()
        .join("crates/vera/tests/fixtures/z3-proxy.py")
        .display()
        .to_string()
}

const INCONSISTENT: &str = "examples/hemodialysis/hemodialysis-inconsistent.toml";
const SPEC: &str = "examples/hemodialysis/hemodialysis.toml";

#[test]
fn all_conflicts_interrupted_by_unknown_is_incomplete_and_counted() {
    let proxy = proxy();
    // The subset (map) solver of the enumeration declares m0; from then on its checks
    // answer unknown.
    let env = [
        ("VERA_Z3", proxy.as_str()),
        ("FAKE_ARM", "(declare-const m0 Bool)"),
    ];
    let (code, out, err) = vera_env(
        &[
            "audit",
            INCONSISTENT,
            "--all-conflicts",
            "10",
            "--format",
            "json",
        ],
        &env,
    );
    assert_eq!(code, 2, "an unknown answer is exit 2\n{out}\n{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let c = &j["consistency"];
    assert_eq!(c["status"], "inconsistent");
    assert_eq!(c["complete"], false, "{c}");
    assert_eq!(c["incomplete"]["why"], "unknown", "{c}");
    assert!(
        j["summary"]["unknown"].as_u64().unwrap() >= 1,
        "{}",
        j["summary"]
    );

    let (code, out, _) = vera_env(&["audit", INCONSISTENT, "--all-conflicts", "10"], &env);
    assert_eq!(code, 2);
    assert!(!out.contains("all of them"), "{out}");
    assert!(out.contains("incomplete"), "{out}");
}

#[test]
fn all_conflicts_that_finish_say_so() {
    let (code, out, err) = vera(&["audit", INCONSISTENT, "--all-conflicts", "10"]);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("(all of them)"), "{out}");
}

#[test]
fn unknown_consistency_is_not_reported_as_inconsistent() {
    let proxy = proxy();
    // Every check that assumes a requirement (the consistency check and the checks
    // under M) answers unknown; the domain-only checks are answered by z3.
    let env = [("VERA_Z3", proxy.as_str()), ("FAKE_MATCH", "vera!r")];
    let (code, out, err) = vera_env(&["audit", SPEC, "--format", "json"], &env);
    assert_eq!(code, 2, "{out}\n{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["consistency"]["status"], "unknown");
    for r in j["requirements"].as_array().unwrap() {
        for check in ["vacuity_model", "redundancy"] {
            let st = &r[check]["status"];
            assert!(
                st == "unknown" || st == "not-applicable",
                "{}: {check} {}",
                r["id"],
                r[check]
            );
        }
    }
    assert!(j["summary"]["unknown"].as_u64().unwrap() > 0);
    let (_, out, _) = vera_env(&["audit", SPEC], &env);
    assert!(!out.contains("inconsistent"), "{out}");
}

#[test]
fn mutation_analysis_of_an_inconsistent_spec_is_refused() {
    let (code, out, err) = vera(&["mutate", INCONSISTENT]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(err.contains("not meaningful"), "{err}");
    assert!(err.contains("inconsistent"), "{err}");
    assert!(!out.contains("100.0%"), "{out}");
}

#[test]
fn derive_with_undecided_facts_exits_2() {
    let proxy = proxy();
    // The first check after the spec is loaded (is the scenario possible?) is answered;
    // every later one (the facts) is unknown.
    let env = [
        ("VERA_Z3", proxy.as_str()),
        ("FAKE_ARM", "(declare-const blood_flow"),
        ("FAKE_AFTER", "1"),
    ];
    let (code, out, err) = vera_env(
        &["ask", SPEC, "--scenario", "(= phase Therapy)", "--derive"],
        &env,
    );
    assert!(out.contains("unknown"), "{out}\n{err}");
    assert_eq!(code, 2, "{out}\n{err}");
    // Without faults the same derivation is a result.
    let (code, _, err) = vera(&["ask", SPEC, "--scenario", "(= phase Therapy)", "--derive"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn empty_spec_and_header_only_csv_have_nothing_to_check() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.toml");
    std::fs::write(&empty, "").unwrap();
    let header = dir.path().join("header.csv");
    std::fs::write(&header, "id,text,formula\n").unwrap();
    let (e, h) = (empty.display().to_string(), header.display().to_string());
    for args in [
        vec!["audit", e.as_str()],
        vec!["ask", e.as_str(), "--claim", "true"],
        vec!["mutate", e.as_str()],
        vec!["audit", h.as_str(), "--schema", SPEC],
    ] {
        let (code, out, err) = vera(&args);
        assert_eq!(code, 2, "{args:?}\n{out}\n{err}");
        assert!(
            err.contains("nothing to check") || err.contains("no formalized requirement"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn named_formulas_audit_and_division_by_zero_is_located() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("named.toml");
    std::fs::write(
        &spec,
        r#"[[variables]]
name = "x"
sort = "Int"

[[requirements]]
id = "R1"
text = "x is big"
formula = "(! (> x 1) :named big)"

[[requirements]]
id = "R2"
text = "if x is big then x is small"
formula = "(=> (! (> x 1) :named big2) (< x 10))"
"#,
    )
    .unwrap();
    let p = spec.display().to_string();
    for solver in ["z3", "cvc5"] {
        let (code, out, err) = vera(&["audit", &p, "--solver", solver]);
        assert_eq!(code, 0, "{solver}\n{out}\n{err}");
        assert!(
            out.contains("2 of 2 formalized requirements have no findings"),
            "{out}"
        );
    }
    let text = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(&spec, text.replace("(< x 10)", "(< (div x 0) 10)")).unwrap();
    let (code, _, err) = vera(&["audit", &p]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("named.toml:13:12: error: division by zero in `(div x 0)`"),
        "{err}"
    );
    assert!(!err.contains("model"), "{err}");
}

#[test]
fn control_characters_never_reach_the_terminal_raw() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("esc.toml");
    let write = |id: &str| {
        std::fs::write(
            &spec,
            format!(
                "[spec]\nname = \"evil\\u001b[2J\"\n[[variables]]\nname = \"x\"\nsort = \"Int\"\n\n[[requirements]]\nid = \"{id}\"\ntext = \"x is big\\u001b]0;owned\\u0007\\nconsistency: consistent\"\nformula = \"(> x 1)\"\n"
            ),
        )
        .unwrap();
    };
    write("R1");
    let p = spec.display().to_string();
    let (code, out, err) = vera(&["audit", &p]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
    assert!(out.contains("evil\\u{1b}[2J"), "{out}");
    // An id with a line break would forge a report line: refused where it is written.
    write("R1\\nR2 (line 1, invariant)");
    let (code, _, err) = vera(&["audit", &p]);
    assert_eq!(code, 2);
    assert!(
        err.contains("esc.toml:8:6: error: an id may not contain control characters"),
        "{err}"
    );
}

/// Serves `n` OpenAI-style chat answers ("OK") on a local port, then stops listening.
fn one_shot_server(n: usize) -> (u16, std::thread::JoinHandle<()>) {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let h = std::thread::spawn(move || {
        for _ in 0..n {
            let (mut sock, _) = listener.accept().unwrap();
            let mut reader = BufReader::new(sock.try_clone().unwrap());
            let mut len = 0usize;
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap();
                }
                if line == "\r\n" || line.is_empty() {
                    break;
                }
            }
            let mut body = vec![0; len];
            reader.read_exact(&mut body).unwrap();
            let answer = r#"{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"OK"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}"#;
            let _ = write!(
                sock,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
                answer.len()
            );
        }
    });
    (port, h)
}

#[test]
fn llm_ping_asks_the_endpoint_never_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache.sqlite").display().to_string();
    let (port, server) = one_shot_server(1);
    let url = format!("http://127.0.0.1:{port}/v1");
    let env = [
        ("VERA_LLM_PROVIDER", "local"),
        ("VERA_LLM_BASE_URL", url.as_str()),
        ("VERA_LLM_CACHE", cache.as_str()),
        ("VERA_LLM_MAX_RETRIES", "0"),
    ];
    let args = ["llm", "ping", "--config", "/nonexistent/vera.toml"];
    let (code, out, err) = vera_env(&args, &env);
    assert_eq!(code, 0, "{out}\n{err}");
    server.join().unwrap();
    // Nothing listens any more: the ping fails, whatever the cache holds.
    let (code, out, err) = vera_env(&args, &env);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(!out.contains("ok:"), "{out}");
}

const LIGHTS: &str = r#"[[variables]]
name = "darkness_switch"
sort = "Bool"
role = "input"
[[variables]]
name = "daylight"
sort = "Bool"
role = "input"
[[variables]]
name = "low_beam"
sort = "Bool"
role = "output"
[[requirements]]
id = "L1"
text = "With the darkness switch on, the low beams are on."
formula = "(=> darkness_switch low_beam)"
[[requirements]]
id = "L2"
text = "In daylight the low beams are off."
formula = "(=> daylight (not low_beam))"
"#;

#[test]
fn realizability_with_unknown_inside_the_loop_is_unknown_never_realizable() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("lights.toml");
    // Realizable once daylight yields to the darkness switch.
    std::fs::write(
        &spec,
        LIGHTS.replace(
            "(=> daylight (not low_beam))",
            "(=> (and daylight (not darkness_switch)) (not low_beam))",
        ),
    )
    .unwrap();
    let p = spec.display().to_string();
    let (code, out, err) = vera(&["audit", &p, "--format", "json"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["realizability"]["status"], "realizable");
    // The output search (inputs fixed by an assertion) answers unknown.
    let proxy = proxy();
    let env = [
        ("VERA_Z3", proxy.as_str()),
        ("FAKE_ARM", "(assert (= darkness_switch"),
    ];
    let (code, out, err) = vera_env(&["audit", &p, "--format", "json"], &env);
    assert_eq!(code, 2, "{out}\n{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        j["realizability"]["status"], "unknown",
        "{}",
        j["realizability"]
    );
}

#[test]
fn unrealizable_spec_is_a_finding_with_the_decision_to_make() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("lights.toml");
    std::fs::write(&spec, LIGHTS).unwrap();
    let p = spec.display().to_string();
    for solver in ["z3", "cvc5"] {
        let (code, out, err) = vera(&["audit", &p, "--solver", solver]);
        assert_eq!(code, 1, "{out}\n{err}");
        // The conflicts come first, and the consistency line never says "consistent"
        // under them.
        assert!(!out.contains("consistency: consistent"), "{out}");
        assert!(
            out.contains(
                "consistency: some state satisfies every requirement, but not for every input"
            ),
            "{out}"
        );
        assert!(
            out.find("realizability: unrealizable") < out.find("consistency:"),
            "{out}"
        );
        assert!(out.contains("conflict for some inputs 1: L1, L2"), "{out}");
        assert!(
            out.contains("decide: When darkness_switch = true and daylight = true"),
            "{out}"
        );
        assert!(
            out.contains("0 of 2 formalized requirements have no findings"),
            "{out}"
        );
    }
}

#[test]
fn ask_says_which_inputs_the_scenario_fixes_and_what_outputs_may_be() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("lights.toml");
    std::fs::write(&spec, LIGHTS).unwrap();
    let p = spec.display().to_string();
    let (code, out, err) = vera(&[
        "ask",
        &p,
        "--scenario",
        "darkness_switch",
        "--claim",
        "low_beam",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let roles = &j["answers"][0]["roles"];
    // daylight is the environment's to choose: the requirements do not fix it, even
    // though they rule daylight = true out (that is the conflict).
    assert_eq!(roles["fixes_all_inputs"], false, "{roles}");
    assert_eq!(roles["free_inputs"], serde_json::json!(["daylight"]));
    assert_eq!(roles["outputs"][0]["variable"], "low_beam");
    assert_eq!(roles["outputs"][0]["fact"], "forced");
    let (_, out, _) = vera(&[
        "ask",
        &p,
        "--scenario",
        "(and darkness_switch (not daylight))",
        "--claim",
        "low_beam",
    ]);
    assert!(out.contains("the scenario fixes every input"), "{out}");
}

#[test]
fn req7_req8_style_pair_is_a_conflict_for_some_inputs_not_two_vacuities() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("req78.toml");
    std::fs::write(
        &spec,
        "[[variables]]\nname = \"var3\"\nsort = \"Bool\"\nrole = \"input\"\n\
         [[variables]]\nname = \"var4\"\nsort = \"Int\"\nrole = \"output\"\n\
         [[requirements]]\nid = \"REQ7\"\ntext = \"If var3 then var4 is 0.\"\nformula = \"(=> var3 (= var4 0))\"\n\
         [[requirements]]\nid = \"REQ8\"\ntext = \"If var3 then var4 is 1.\"\nformula = \"(=> var3 (= var4 1))\"\n",
    )
    .unwrap();
    let p = spec.display().to_string();
    let (code, out, err) = vera(&["audit", &p]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("0 vacuous"), "{out}");
    assert!(out.contains("1 conflict(s) for some inputs"), "{out}");
    assert!(out.contains("it clashes with REQ8"), "{out}");
    assert!(out.contains("it clashes with REQ7"), "{out}");
}

#[test]
fn smt_files_with_nothing_to_check_or_no_end_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.smt2");
    std::fs::write(&empty, "").unwrap();
    let decls = dir.path().join("decls.smt2");
    std::fs::write(&decls, "(declare-const x Int)\n(assert (> x 1))\n").unwrap();
    for f in [&empty, &decls] {
        let (code, out, err) = vera(&["smt", "check", f.to_str().unwrap()]);
        assert_eq!(code, 2, "{out}\n{err}");
        assert!(
            format!("{out}{err}").contains("nothing to check"),
            "{out}\n{err}"
        );
    }
    // A device that never ends is read up to the input limit, then refused.
    let start = std::time::Instant::now();
    let (code, out, err) = vera(&["smt", "check", "/dev/zero"]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(
        format!("{out}{err}").contains("larger than"),
        "{out}\n{err}"
    );
    assert!(start.elapsed() < std::time::Duration::from_secs(30));
}
