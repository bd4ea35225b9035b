//! The C synthesis loop driven by the scripted provider through its branches, with
//! the real Frama-C/WP as the judge (frama-c, why3, z3 and cvc5 must be installed;
//! scripts/setup does it). The scripted answers depend on the request (which point,
//! which turn), never on call order.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use acsl::{parse_c, CFile, WpConfig};
use llm::{Cache, Client, Provider, Request, Response, Scripted};
use pipeline::csynth::{
    synthesize, ClauseStatus, Origin, PointOutcome, SynthOptions, SynthOutcome,
};

fn c_file(name: &str) -> CFile {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/c")
        .join(name);
    parse_c(&p).unwrap()
}

fn wp(cache: &Path) -> WpConfig {
    WpConfig {
        timeout: 1,
        par: 2,
        jobs: 2,
        cache_dir: Some(cache.to_path_buf()),
        why3_config: Some(PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("csynth-why3.conf")),
        ..WpConfig::default()
    }
}

/// The prompt's last user turn and how many answers came before it.
fn turn(r: &Request) -> (String, usize) {
    let last = r
        .messages
        .iter()
        .rev()
        .find(|m| m.role == llm::Role::User)
        .map(|m| m.content.clone())
        .unwrap_or_default();
    let answers = r
        .messages
        .iter()
        .filter(|m| m.role == llm::Role::Assistant)
        .count();
    (last, answers)
}

fn first_prompt(r: &Request) -> String {
    r.messages
        .iter()
        .find(|m| m.role == llm::Role::User)
        .map(|m| m.content.clone())
        .unwrap_or_default()
}

fn clauses(items: &[(&str, &str)]) -> Response {
    let v: Vec<serde_json::Value> = items
        .iter()
        .map(|(k, e)| serde_json::json!({"kind": k, "expr": e}))
        .collect();
    Response::text(serde_json::json!({ "clauses": v }).to_string())
}

fn run(
    file: &CFile,
    provider: Arc<Scripted>,
    opts: &SynthOptions,
    cache: &Path,
) -> (SynthOutcome, Client) {
    let p: Arc<dyn Provider> = provider;
    let client = Client::builder_arc(p)
        .cache(Cache::in_memory().unwrap())
        .build();
    let out = synthesize(file, &client, &wp(cache), opts, &mut |l| eprintln!("{l}")).unwrap();
    (out, client)
}

/// Removes every inserted `/*@ ... */` comment (and the indentation the insertion
/// repeats after it): what is left must be the input, byte for byte.
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

fn no_strengthen() -> SynthOptions {
    SynthOptions {
        strengthen: false,
        ..SynthOptions::default()
    }
}

#[test]
fn accepted_first_time_and_code_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let file = c_file("csynth_clamp.c");
    let provider = Arc::new(Scripted::from_fn(|r, _| {
        assert!(first_prompt(r).contains(">>>INFILL<<<"));
        Ok(clauses(&[
            ("requires", "lo <= hi"),
            ("assigns", "\\nothing"),
            ("ensures", "lo <= \\result <= hi"),
            ("ensures", "x < lo ==> \\result == lo"),
            ("ensures", "lo <= x <= hi ==> \\result == x"),
        ]))
    }));
    let (out, client) = run(&file, provider.clone(), &no_strengthen(), dir.path());
    let r = &out.report;
    assert_eq!(r.points.len(), 1);
    assert_eq!(r.points[0].outcome, PointOutcome::AcceptedFirst);
    assert_eq!(r.points[0].attempts, 1);
    assert_eq!(r.summary.proved, 4);
    assert_eq!(r.summary.assumed, 1);
    assert_eq!(r.summary.precision, Some(1.0));
    assert!(r.final_verdict.is_proved(), "{:?}", r.final_verdict);
    assert_eq!(strip_inserted(&out.text), file.text);
    assert!(out.text.contains("ensures vera_s3: lo <= \\result <= hi;"));
    assert_eq!(provider.calls(), 1);
    assert_eq!(client.accounting().total.calls, 1);
    assert!(r.summary.verifier_calls >= 2);
}

#[test]
fn repaired_at_second_answer_and_exhausted_clause_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let file = c_file("csynth_sum.c");
    let provider = Arc::new(Scripted::from_fn(|r, _| {
        let (last, answers) = turn(r);
        let first = first_prompt(r);
        Ok(if first.contains("loop 0 of function") {
            match answers {
                0 => clauses(&[
                    ("loop invariant", "0 <= i <= n + 1"),
                    ("loop invariant", "s == i * (i - 1) / 2"),
                    ("loop invariant", "s == i"),
                    ("loop assigns", "i, s"),
                    ("loop variant", "n + 1 - i"),
                ]),
                _ => {
                    assert!(
                        last.contains("Not proved, removed: loop invariant s == i"),
                        "{last}"
                    );
                    clauses(&[("loop invariant", "s >= 0")])
                }
            }
        } else {
            match answers {
                0 => clauses(&[
                    ("requires", "0 <= n <= 1000"),
                    ("assigns", "\\nothing"),
                    ("ensures", "\\result == n * (n + 1) / 2"),
                    ("ensures", "\\result == 0"),
                ]),
                1 => clauses(&[("ensures", "\\result == n * n")]),
                _ => clauses(&[("ensures", "\\result == n + 1")]),
            }
        })
    }));
    let (out, _) = run(&file, provider.clone(), &no_strengthen(), dir.path());
    let r = &out.report;
    let lp = &r.points[0];
    assert_eq!(lp.outcome, PointOutcome::Repaired, "{lp:?}");
    assert_eq!(lp.attempts, 2);
    let ct = &r.points[1];
    assert_eq!(ct.outcome, PointOutcome::Exhausted, "{ct:?}");
    assert_eq!(ct.attempts, 3);
    let status = |t: &str| {
        r.clauses
            .iter()
            .find(|c| c.text == t)
            .map(|c| c.status.clone())
            .unwrap_or_else(|| panic!("no clause {t}"))
    };
    assert!(matches!(
        status("loop invariant s == i"),
        ClauseStatus::Dropped { .. }
    ));
    // `i <= n + 1` needs `n >= 0`, which only the contract brings: dropped at the
    // loop, proved once the precondition is kept, and with it the closed form.
    assert_eq!(
        status("loop invariant 0 <= i <= n + 1"),
        ClauseStatus::Proved
    );
    assert!(r
        .clauses
        .iter()
        .any(|c| c.revived && c.text == "loop invariant 0 <= i <= n + 1"));
    assert_eq!(status("loop invariant s >= 0"), ClauseStatus::Proved);
    assert_eq!(
        status("ensures \\result == n * (n + 1) / 2"),
        ClauseStatus::Proved
    );
    assert_eq!(status("requires 0 <= n <= 1000"), ClauseStatus::Assumed);
    for bad in [
        "ensures \\result == 0",
        "ensures \\result == n * n",
        "ensures \\result == n + 1",
    ] {
        assert!(matches!(status(bad), ClauseStatus::Dropped { .. }), "{bad}");
        assert!(!out.text.contains(&bad["ensures ".len()..]) || bad.contains("(n + 1)"));
    }
    assert!(!out.text.contains("s == i;"));
    assert!(r.final_verdict.is_proved(), "{:?}", r.final_verdict);
    assert_eq!(strip_inserted(&out.text), file.text);
    assert_eq!(provider.calls(), 5);
    // proved: 3 invariants (two first, one repaired), loop assigns, variant,
    // assigns, closed form; dropped: 1 invariant, 3 postconditions.
    assert_eq!(r.summary.proved, 7);
    assert_eq!(r.summary.dropped, 4);
    let p = r.summary.precision.unwrap();
    assert!((p - 7.0 / 11.0).abs() < 1e-9, "{p}");
}

#[test]
fn hostile_and_malformed_answers_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = c_file("csynth_abs.c");
    let provider = Arc::new(Scripted::from_fn(|r, _| {
        let (last, answers) = turn(r);
        Ok(match answers {
            0 => clauses(&[
                (
                    "ensures",
                    "\\result >= 0 */ int evil(void) { return 1; } /*@ ensures \\true",
                ),
                ("ensures", "\\result >= 0; ensures \\false"),
                ("ensures", "\\result == undefined_variable"),
                ("requires", "x > INT_MIN"),
                ("ensures", "\\result >= 0"),
            ]),
            1 => {
                assert!(last.contains("Refused"), "{last}");
                assert!(last.contains("Frama-C rejected"), "{last}");
                Response::text(r#"{"clauses": [], "code": "int abs_value(int x) { return 0; }"}"#)
            }
            _ => {
                assert!(
                    last.contains("did not follow the required format"),
                    "{last}"
                );
                clauses(&[("assigns", "\\nothing")])
            }
        })
    }));
    let (out, client) = run(&file, provider.clone(), &no_strengthen(), dir.path());
    let r = &out.report;
    assert!(!out.text.contains("evil"));
    assert!(!out.text.contains("undefined_variable"));
    assert!(!out.text.contains("\\false"));
    assert_eq!(strip_inserted(&out.text), file.text);
    assert_eq!(r.summary.rejected, 2, "{:#?}", r.clauses);
    assert_eq!(r.summary.rejected_by_frama_c, 1, "{:#?}", r.clauses);
    assert_eq!(r.summary.proved, 2); // \result >= 0, assigns \nothing
    assert_eq!(r.summary.assumed, 1);
    assert_eq!(r.points[0].attempts, 3);
    assert_eq!(r.points[0].outcome, PointOutcome::Repaired);
    assert_eq!(client.accounting().total.answer_errors, 1);
    assert!(r.final_verdict.is_proved(), "{:?}", r.final_verdict);
}

#[test]
fn strengthening_kills_a_surviving_mutant() {
    let dir = tempfile::tempdir().unwrap();
    let file = c_file("csynth_abs.c");
    let provider = Arc::new(Scripted::from_fn(|r, _| {
        let first = first_prompt(r);
        Ok(if first.contains("changed versions") {
            let items = [
                ("abs_value:contract", "ensures", "x >= 0 ==> \\result == x"),
                ("abs_value:contract", "ensures", "x < 0 ==> \\result == -x"),
                ("abs_value:contract", "ensures", "\\result == x"),
            ];
            let v: Vec<serde_json::Value> = items
                .iter()
                .map(|(a, k, e)| serde_json::json!({"at": a, "kind": k, "expr": e}))
                .collect();
            Response::text(serde_json::json!({ "clauses": v }).to_string())
        } else {
            clauses(&[
                ("requires", "x > INT_MIN"),
                ("assigns", "\\nothing"),
                ("ensures", "\\result >= 0"),
            ])
        })
    }));
    let opts = SynthOptions {
        max_mutants: Some(10),
        ..SynthOptions::default()
    };
    let (out, _) = run(&file, provider.clone(), &opts, dir.path());
    let r = &out.report;
    let st = &r.strength[0];
    eprintln!("{st:#?}");
    let before = st.before.vdr.unwrap();
    let after = st.after.vdr.unwrap();
    assert!(st.before.assessed > 0 && before < 1.0, "{st:?}");
    assert!(after > before, "{st:?}");
    let added: Vec<_> = r
        .clauses
        .iter()
        .filter(|c| c.origin == Origin::Strengthen)
        .collect();
    assert_eq!(added.len(), 3);
    assert!(matches!(added[2].status, ClauseStatus::Dropped { .. }));
    assert!(
        added
            .iter()
            .any(|c| c.status == ClauseStatus::Proved && !c.kills.is_empty()),
        "{added:#?}"
    );
    assert_eq!(r.summary.vdr_after.vdr, Some(after));
    assert!(r.final_verdict.is_proved());
    assert_eq!(provider.calls(), 2);
    assert_eq!(strip_inserted(&out.text), file.text);
}
