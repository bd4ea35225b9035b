//! Timed patterns from keys (a model's structured answer) through the spec reader's
//! checks, and equivalence of two patterns on traces, against z3 and cvc5.

use logic::SourceFile;
use reqs::timed::answer::{keys_of, parse_pattern, KeyValue};
use reqs::timed::equiv::{equivalent, Side, TraceEquivalence};
use reqs::timed::{Pattern, Timing, Trigger};
use reqs::Spec;
use solver::{SolverConfig, SolverKind};

const SOLVERS: [SolverKind; 2] = [SolverKind::Z3, SolverKind::Cvc5];

const SPEC: &str = r#"
[spec]
name = "pump"

[time]
tick = "1 s"

[time.durations]
LIMIT = "3 s"

[[enums]]
name = "Phase"
values = ["Idle", "Therapy"]

[[variables]]
name = "no_flow"
sort = "Bool"
[[variables]]
name = "pump_on"
sort = "Bool"
[[variables]]
name = "alarm"
sort = "Bool"
[[variables]]
name = "phase"
sort = "Phase"
[[variables]]
name = "pressure"
sort = "Int"
min = 0
max = 500
"#;

fn spec() -> Spec {
    reqs::parse_spec(SourceFile::new("pump.toml", SPEC)).unwrap_or_else(|d| panic!("{d}"))
}

fn keys(pairs: &[(&str, &str)]) -> Vec<(String, KeyValue)> {
    pairs
        .iter()
        .map(|(k, v)| {
            let v = match *v {
                "true" => KeyValue::Flag(true),
                "false" => KeyValue::Flag(false),
                s => KeyValue::Text(s.to_string()),
            };
            (k.to_string(), v)
        })
        .collect()
}

fn pattern(pairs: &[(&str, &str)]) -> Pattern {
    parse_pattern(&spec(), &keys(pairs)).unwrap_or_else(|d| panic!("{d}"))
}

fn error(pairs: &[(&str, &str)]) -> String {
    match parse_pattern(&spec(), &keys(pairs)) {
        Ok(p) => panic!("accepted: {p:?}"),
        Err(d) => d.to_string(),
    }
}

#[test]
fn a_correct_answer_is_the_pattern_a_spec_file_gives() {
    let p = pattern(&[
        ("if", "no_flow"),
        ("held_for", "LIMIT"),
        ("then", "(not pump_on)"),
    ]);
    assert!(matches!(p.trigger, Trigger::HeldFor(_, 3)));
    assert_eq!(p.timing, Timing::Immediately);
    let p = pattern(&[
        ("when", "alarm"),
        ("then", "(not pump_on)"),
        ("within", "2 s"),
    ]);
    assert!(matches!(p.trigger, Trigger::Edge(_)));
    assert_eq!(p.timing, Timing::Within(2));
    let p = pattern(&[("initially", "true"), ("then", "(= phase Idle)")]);
    assert_eq!(p.trigger, Trigger::Initially);
    // The same text in a spec file gives the same pattern.
    let file = format!(
        "{SPEC}\n[[requirements]]\nid = \"R\"\ntext = \"t\"\n[requirements.timed]\nwhen = \"alarm\"\nthen = \"(not pump_on)\"\nwithin = \"2 s\"\n"
    );
    let s = reqs::parse_spec(SourceFile::new("f.toml", file)).unwrap_or_else(|d| panic!("{d}"));
    let from_file = s.requirements[0].timed.clone().expect("timed");
    let from_keys = pattern(&[
        ("when", "alarm"),
        ("then", "(not pump_on)"),
        ("within", "2 s"),
    ]);
    assert_eq!(from_file, from_keys);
}

#[test]
fn keys_of_reads_back_to_the_same_pattern() {
    let s = spec();
    let tb = s.time.clone().expect("timed");
    for pairs in [
        vec![
            ("if", "no_flow"),
            ("held_for", "LIMIT"),
            ("then", "(not pump_on)"),
        ],
        vec![
            ("scope_after", "(= phase Therapy)"),
            ("scope_until", "(= phase Idle)"),
            ("when", "alarm"),
            ("then", "(not pump_on)"),
            ("for", "4 s"),
        ],
        vec![
            ("if", "(> pressure 400)"),
            ("within_last", "2 s"),
            ("then", "alarm"),
            ("next", "true"),
        ],
        vec![
            ("scope_before", "pump_on"),
            ("then", "(not alarm)"),
            ("until", "no_flow"),
        ],
        vec![("then", "alarm"), ("not_before", "5 s")],
        vec![
            ("initially", "true"),
            ("then", "alarm"),
            ("before", "pump_on"),
        ],
    ] {
        let p = pattern(&pairs);
        let back = parse_pattern(&s, &keys_of(&p, &tb)).unwrap_or_else(|d| panic!("{d}"));
        assert_eq!(p, back);
    }
}

/// Broken answers: each problem is reported in the spec reader's words, located at the
/// key it is about.
#[test]
fn broken_answers_get_the_spec_readers_errors() {
    let e = error(&[
        ("if", "no_flow"),
        ("when", "alarm"),
        ("then", "(not pump_on)"),
    ]);
    assert!(
        e.contains("at most one trigger: `if` and `when` are given"),
        "{e}"
    );
    let e = error(&[
        ("if", "no_flow"),
        ("held_for", "1.5 s"),
        ("then", "(not pump_on)"),
    ]);
    assert!(
        e.contains("`1.5 s` is not a whole number of ticks (the tick is 1 s)"),
        "{e}"
    );
    assert!(e.contains("held_for"), "the line of the key is shown: {e}");
    let e = error(&[("then", "(always (not alarm))")]);
    assert!(e.contains("always"), "{e}");
    let e = error(&[("if", "flow_lost"), ("then", "alarm")]);
    assert!(e.contains("flow_lost"), "{e}");
    let e = error(&[("if", "no_flow"), ("then", "alarm"), ("eventually", "5 s")]);
    assert!(e.contains("unknown field `eventually`"), "{e}");
    let e = error(&[("if", "no_flow")]);
    assert!(e.contains("needs `then`"), "{e}");
    let e = error(&[("then", "alarm"), ("next", "false")]);
    assert!(e.contains("`next = false` means nothing"), "{e}");
    let e = error(&[("then", "pressure")]);
    assert!(e.contains("Bool"), "{e}");
    let e = error(&[("held_for", "2 s"), ("then", "alarm")]);
    assert!(e.contains("needs an `if` trigger"), "{e}");
    let deep = format!("{}alarm{}", "(not ".repeat(300), ")".repeat(300));
    let e = error(&[("then", deep.as_str())]);
    assert!(e.contains("nested deeper"), "{e}");
    // Without a [time] table there are no timed requirements.
    let plain = reqs::parse_spec(SourceFile::new(
        "p.toml",
        "[[variables]]\nname = \"x\"\nsort = \"Bool\"\n",
    ))
    .unwrap();
    assert!(parse_pattern(&plain, &keys(&[("then", "x")])).is_err());
}

#[test]
fn the_errors_of_an_answer_as_shown_to_the_model() {
    let e = error(&[
        ("if", "no_flow"),
        ("when", "alarm"),
        ("held_for", "1.5 s"),
        ("then", "(always pump_on)"),
    ]);
    insta::assert_snapshot!(e);
}

fn compare(a: &Pattern, b: &Pattern, kind: SolverKind) -> TraceEquivalence {
    equivalent(&spec(), a, b, &SolverConfig::new(kind), None)
        .unwrap_or_else(|e| panic!("{kind}: {e}"))
}

fn rows(d: &reqs::timed::equiv::Difference) -> String {
    let mut s = String::new();
    for r in &d.timeline.rows {
        let vals: Vec<String> = r
            .values
            .iter()
            .map(|a| format!("{}={}", a.variable, a.value))
            .collect();
        s.push_str(&format!(
            "[{}, {}) {}\n",
            r.from_time,
            r.to_time,
            vals.join(" ")
        ));
    }
    s
}

#[test]
fn within_5_and_within_4_differ_on_a_trace() {
    let a = pattern(&[("when", "no_flow"), ("then", "alarm"), ("within", "5 s")]);
    let b = pattern(&[("when", "no_flow"), ("then", "alarm"), ("within", "4 s")]);
    for kind in SOLVERS {
        match compare(&a, &b, kind) {
            TraceEquivalence::Different(d) => {
                assert_eq!(d.holds, Side::First, "{kind}");
                // Broken at 4 s at the earliest; the trace runs on 5 s more (the
                // timing of the pattern that holds), with the alarm at 5 s.
                assert_eq!(d.violated_at, 4, "{kind}: {}", rows(&d));
                assert_eq!(d.trace.len(), 10, "{kind}");
                let alarm = |t: usize| d.trace[t].get("alarm").map(|v| v.to_string());
                assert_eq!(alarm(4).as_deref(), Some("false"), "{kind}");
                assert_eq!(alarm(5).as_deref(), Some("true"), "{kind}: {}", rows(&d));
            }
            other => panic!("{kind}: {other:?}"),
        }
        // The other way round, the second one holds.
        match compare(&b, &a, kind) {
            TraceEquivalence::Different(d) => assert_eq!(d.holds, Side::Second, "{kind}"),
            other => panic!("{kind}: {other:?}"),
        }
    }
}

#[test]
fn held_for_zero_is_the_plain_level_trigger() {
    let a = pattern(&[("if", "no_flow"), ("held_for", "0 s"), ("then", "alarm")]);
    let b = pattern(&[("if", "no_flow"), ("then", "alarm")]);
    for kind in SOLVERS {
        match compare(&a, &b, kind) {
            TraceEquivalence::Equivalent { up_to_k } => assert_eq!(up_to_k, 2, "{kind}"),
            other => panic!("{kind}: {other:?}"),
        }
    }
}

#[test]
fn edge_and_level_triggers_differ() {
    let edge = pattern(&[("when", "no_flow"), ("then", "alarm")]);
    let level = pattern(&[("if", "no_flow"), ("then", "alarm")]);
    for kind in SOLVERS {
        match compare(&edge, &level, kind) {
            TraceEquivalence::Different(d) => {
                // no_flow at two steps in a row, the alarm only at the first.
                assert_eq!(d.holds, Side::First, "{kind}");
                assert_eq!(d.violated_at, 1, "{kind}");
                let t = rows(&d);
                assert!(t.contains("no_flow=true"), "{kind}: {t}");
                if kind == SolverKind::Z3 {
                    insta::assert_snapshot!("edge_vs_level_z3", t);
                }
            }
            other => panic!("{kind}: {other:?}"),
        }
    }
}

/// The domain holds at every step: a difference that needs a state the domain forbids
/// is no difference.
#[test]
fn the_domain_is_respected() {
    let a = pattern(&[("if", "(> pressure 600)"), ("then", "alarm")]);
    let b = pattern(&[("if", "(> pressure 700)"), ("then", "pump_on")]);
    for kind in SOLVERS {
        assert!(
            matches!(compare(&a, &b, kind), TraceEquivalence::Equivalent { .. }),
            "{kind}"
        );
    }
}

#[test]
fn not_timed_is_an_error() {
    let plain = reqs::parse_spec(SourceFile::new(
        "p.toml",
        "[[variables]]\nname = \"x\"\nsort = \"Bool\"\n",
    ))
    .unwrap();
    let p = pattern(&[("then", "alarm")]);
    assert!(equivalent(&plain, &p, &p, &SolverConfig::new(SolverKind::Z3), None).is_err());
}

/// A bound too large to unroll is an unknown answer, never equivalence.
#[test]
fn a_bound_too_large_is_unknown() {
    let a = pattern(&[("when", "no_flow"), ("then", "alarm"), ("within", "2 h")]);
    let b = pattern(&[("when", "no_flow"), ("then", "alarm"), ("within", "2 h")]);
    match compare(&a, &b, SolverKind::Z3) {
        TraceEquivalence::Unknown { reason } => assert!(
            reason.as_str().contains("at most") && reason.reason_kind == solver::ReasonKind::Other,
            "{reason}"
        ),
        other => panic!("{other:?}"),
    }
}
