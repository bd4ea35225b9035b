//! Timed requirements: audits on traces against z3 and cvc5, on small specs whose
//! answers are worked out by hand in the comments.

use logic::SourceFile;
use reqs::timed::audit::{
    audit_timed, RtInconsistency, TimedConsistency, TimedOptions, TimedReport,
};
use reqs::{AuditOptions, Spec};
use solver::{SolverConfig, SolverKind};

const SOLVERS: [SolverKind; 2] = [SolverKind::Z3, SolverKind::Cvc5];

fn spec(text: &str) -> Spec {
    reqs::parse_spec(SourceFile::new("test.toml", text)).unwrap_or_else(|d| panic!("{d}"))
}

/// Audits `spec` with each solver and hands the report to `check`. The time limit per
/// query is three times the default: the verdicts these tests expect come within the
/// default on an idle machine, and the whole suite runs on every core at once.
fn audit_both(spec: &Spec, horizon: Option<usize>, check: impl Fn(SolverKind, &TimedReport)) {
    for kind in SOLVERS {
        let mut config = SolverConfig::new(kind);
        config.timeout *= 3;
        let mut a = AuditOptions::new(config);
        a.jobs = 2;
        a.max_conflicts = 10;
        let o = TimedOptions {
            audit: a,
            horizon,
            rt_horizon: None,
            no_rt: std::env::var("NO_RT").is_ok(),
        };
        let r = audit_timed(spec, &o).unwrap_or_else(|e| panic!("{kind}: {e}"));
        check(kind, &r);
    }
}

const HEADER: &str = r#"
[time]
tick = "1 s"

[[variables]]
name = "A"
sort = "Bool"
[[variables]]
name = "B"
sort = "Bool"
[[variables]]
name = "C"
sort = "Bool"
"#;

/// Ultimate's ex-rtinconsistent-01 in vera's patterns: after A and B at the same step,
/// C must stay false for 10 s (req1) and must become true within 5 s (req2). Each
/// alone, and both together, are consistent (never raise A and B together), but the
/// prefix "A and B, then 5 steps without C" has no next step.
#[test]
fn two_requirements_rt_inconsistent() {
    let text = format!(
        r#"{HEADER}
[[requirements]]
id = "req1"
text = "if A holds then !C holds for at least 10 time units"
[requirements.timed]
if = "A"
then = "(not C)"
for = "10 s"

[[requirements]]
id = "req2"
text = "if B holds then C holds after at most 5 time units"
[requirements.timed]
if = "B"
then = "C"
within = "5 s"
"#
    );
    let s = spec(&text);
    audit_both(&s, None, |kind, r| {
        assert!(
            matches!(
                r.consistency,
                TimedConsistency::Consistent { infinite: true, .. }
            ),
            "{kind}: {:?}",
            r.consistency
        );
        match &r.rt_inconsistency {
            RtInconsistency::Found { conflicts, .. } => {
                assert_eq!(conflicts.len(), 1, "{kind}: {conflicts:?}");
                assert_eq!(conflicts[0].requirements, ["req1", "req2"]);
                // The shortest dead end: A, B at step 0, C false at 0..=4, step 5 stuck
                // (C must hold at some step of 0..=5, and must not before step 11).
                assert_eq!(conflicts[0].dead_end_at, 5, "{kind}: {:?}", conflicts[0]);
            }
            other => panic!("{kind}: {other:?}"),
        }
    });
}

/// All minimal sets, not only pairs: one dead end needs three requirements (req3
/// carries D to C), another is a pair over other variables.
#[test]
fn every_minimal_rt_inconsistent_set() {
    let text = r#"
[time]
tick = "1 s"
[[variables]]
name = "A"
sort = "Bool"
[[variables]]
name = "B"
sort = "Bool"
[[variables]]
name = "C"
sort = "Bool"
[[variables]]
name = "D"
sort = "Bool"
[[variables]]
name = "E"
sort = "Bool"
[[variables]]
name = "F"
sort = "Bool"
[[variables]]
name = "G"
sort = "Bool"

[[requirements]]
id = "req1"
text = "after A, C stays false for 10 s"
[requirements.timed]
if = "A"
then = "(not C)"
for = "10 s"

[[requirements]]
id = "req2"
text = "after B, D within 5 s"
[requirements.timed]
if = "B"
then = "D"
within = "5 s"

[[requirements]]
id = "req3"
text = "D implies C"
formula = "(=> D C)"

[[requirements]]
id = "req4"
text = "once E, F for 3 s"
[requirements.timed]
when = "E"
then = "F"
for = "3 s"

[[requirements]]
id = "req5"
text = "after G, F false within 1 s"
[requirements.timed]
if = "G"
then = "(not F)"
within = "1 s"
"#;
    let s = spec(text);
    audit_both(&s, None, |kind, r| {
        let RtInconsistency::Found {
            conflicts,
            complete,
            ..
        } = &r.rt_inconsistency
        else {
            panic!("{kind}: {:?}", r.rt_inconsistency)
        };
        let mut sets: Vec<Vec<String>> = conflicts.iter().map(|c| c.requirements.clone()).collect();
        sets.sort();
        assert_eq!(
            sets,
            vec![vec!["req1", "req2", "req3"], vec!["req4", "req5"]],
            "{kind}"
        );
        assert!(complete, "{kind}");
        // The shortest prefixes: E and G at 0 leave no step 1 (F due at 1 by req4, not F
        // due by 1 by req5); A and B at 0 leave no step 5 (D, hence C, due by step 5; C
        // false until step 10).
        let at: Vec<usize> = {
            let mut c = conflicts.clone();
            c.sort_by_key(|c| c.requirements.clone());
            c.iter().map(|c| c.dead_end_at).collect()
        };
        assert_eq!(at, vec![5, 1], "{kind}");
        // Every requirement holds on each prefix (re-checked by the evaluator in the
        // audit); the prefix is as long as the dead end says.
        for c in conflicts {
            assert_eq!(c.prefix.steps, c.dead_end_at, "{kind}");
        }
    });
}

/// The environment's dead end in the very first state: "initially the motor runs" and
/// "when stop is pressed the motor is off", with `stop` an input.
#[test]
fn environment_dead_end_in_the_first_state() {
    let text = r#"
[time]
tick = "1 s"
[[variables]]
name = "stop"
sort = "Bool"
role = "input"
[[variables]]
name = "motor_on"
sort = "Bool"
[[requirements]]
id = "init"
text = "initially the motor runs"
[requirements.timed]
initially = true
then = "motor_on"
[[requirements]]
id = "stop"
text = "when stop is pressed the motor is off"
[requirements.timed]
if = "stop"
then = "(not motor_on)"
"#;
    let s = spec(text);
    audit_both(&s, None, |kind, r| {
        assert!(
            matches!(r.rt_inconsistency, RtInconsistency::NoneUpTo { .. }),
            "{kind}: {:?}",
            r.rt_inconsistency
        );
        let RtInconsistency::Found { conflicts, .. } = &r.environment else {
            panic!("{kind}: {:?}", r.environment)
        };
        assert_eq!(conflicts.len(), 1, "{kind}");
        assert_eq!(conflicts[0].requirements, ["init", "stop"], "{kind}");
        assert_eq!(conflicts[0].dead_end_at, 0, "{kind}");
        assert!(r.has_findings());
    });
}

/// The hemodialysis machine's timed requirements find what
/// examples/hemodialysis/README.md says: a looping run, no rt-inconsistency, and R-BP-3
/// against each of R-AIR-3, R-AIR-4 and R-FLOW-2 when the sensors are the environment's.
#[test]
fn hemodialysis_timed_findings() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/hemodialysis/hemodialysis-timed.toml");
    let s = reqs::load(&path).unwrap_or_else(|e| panic!("{e}"));
    audit_both(&s, None, |kind, r| {
        // A looping witness with z3; cvc5 may run out of time on the loop-back query,
        // which is then reported as consistent up to the horizon (never as more).
        match (&r.consistency, kind) {
            (TimedConsistency::Consistent { infinite: true, .. }, _) => {}
            (
                TimedConsistency::Consistent {
                    infinite: false, ..
                },
                SolverKind::Cvc5,
            ) => {}
            (other, _) => panic!("{kind}: {other:?}"),
        }
        // No dead end after prefixes of up to 28 steps, and by k-induction none after
        // longer ones either.
        assert!(
            matches!(
                r.rt_inconsistency,
                RtInconsistency::NoneUpTo {
                    every_prefix: true,
                    ..
                }
            ),
            "{kind}: {:?}",
            r.rt_inconsistency
        );
        let RtInconsistency::Found {
            conflicts,
            complete,
            ..
        } = &r.environment
        else {
            panic!("{kind}: {:?}", r.environment)
        };
        let mut sets: Vec<Vec<String>> = conflicts.iter().map(|c| c.requirements.clone()).collect();
        sets.sort();
        assert_eq!(
            sets,
            vec![
                vec!["R-AIR-3", "R-BP-3"],
                vec!["R-AIR-4", "R-BP-3"],
                vec!["R-FLOW-2", "R-BP-3"]
            ],
            "{kind}"
        );
        assert!(complete, "{kind}");
        let flow = conflicts
            .iter()
            .find(|c| c.requirements[0] == "R-FLOW-2")
            .unwrap();
        // 120 s without flow at a 5 s tick: the dead end is at step 24.
        assert_eq!(flow.dead_end_at, 24, "{kind}");
        for a in &r.requirements {
            assert!(a.fits, "{kind}: {}", a.id);
            assert!(
                matches!(
                    a.redundancy,
                    reqs::timed::audit::TimedRedundancy::NotRedundant { .. }
                ),
                "{kind}: {} {:?}",
                a.id,
                a.redundancy
            );
        }
    });
}

/// Scenario questions over time on the hemodialysis example: the questions file's
/// expected verdicts, on both solvers, and the counterexample of Q-T2 shows the claim
/// failing at 115 s.
#[test]
fn questions_over_time_on_the_hemodialysis_example() {
    use reqs::timed::ask::{parse_fact, parse_scenario, TimedAsker, TimedVerdict};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/hemodialysis");
    let s = reqs::load(&root.join("hemodialysis-timed.toml")).unwrap_or_else(|e| panic!("{e}"));
    let tb = s.time.clone().unwrap();
    let text = std::fs::read_to_string(root.join("questions-timed.toml")).unwrap();
    let questions = reqs::ask::load_questions(&text, "questions-timed.toml").unwrap();
    assert!(questions.len() >= 5);
    let parsed: Vec<_> = questions
        .iter()
        .map(|q| {
            let sc = parse_scenario(&s, &tb, &q.id, q.scenario.as_deref().unwrap_or(""))
                .unwrap_or_else(|e| panic!("{e}"));
            let cl = parse_fact(&s, &tb, &q.id, q.claim.as_deref().unwrap())
                .unwrap_or_else(|e| panic!("{e}"));
            (q, sc, cl)
        })
        .collect();
    let last = parsed.iter().map(|(_, _, c)| c.to).max().unwrap();
    for kind in SOLVERS {
        let mut asker = TimedAsker::new(&s, last, None, &SolverConfig::new(kind)).unwrap();
        // The margin: the longest requirement (120 s at 5 s ticks = 24 steps, +1).
        assert_eq!(asker.last_step(), last + 25, "{kind}");
        for (q, sc, cl) in &parsed {
            let a = asker
                .ask(sc, std::slice::from_ref(cl))
                .unwrap_or_else(|e| panic!("{kind} {}: {e}", q.id));
            assert_eq!(
                Some(a.verdict.name()),
                q.expected.as_deref(),
                "{kind} {}: {:?}",
                q.id,
                a.verdict
            );
            if q.id == "Q-T2" {
                let TimedVerdict::NotEntailed { counterexample, .. } = &a.verdict else {
                    unreachable!()
                };
                // The row covering step 23 (115 s) has the pump on.
                let row = counterexample
                    .rows
                    .iter()
                    .rev()
                    .find(|r| r.from <= 23)
                    .unwrap();
                let pump_on = counterexample
                    .rows
                    .iter()
                    .take_while(|r| r.from <= row.from)
                    .flat_map(|r| r.values.iter())
                    .filter(|v| v.variable == "blood_pump_on")
                    .last()
                    .unwrap();
                assert_eq!(pump_on.value, "true", "{kind}: {counterexample:?}");
                assert_eq!(counterexample.steps, last + 26);
            }
            if let TimedVerdict::Entailed { because }
            | TimedVerdict::ScenarioImpossible { because } = &a.verdict
            {
                assert!(!because.is_empty(), "{kind} {}", q.id);
                assert!(because.iter().all(|b| b.starts_with("R-")), "{because:?}");
            }
        }
    }
}

/// The margin decides what an obligation the scenario starts can show: "when A, B
/// within 3 s" and "never B" make A impossible, but only on runs long enough for the
/// 3 s to run out.
#[test]
fn questions_over_time_need_the_margin() {
    use reqs::timed::ask::{parse_fact, TimedAsker};
    let s = spec(&format!(
        r#"{HEADER}
[[requirements]]
id = "req1"
[requirements.timed]
when = "A"
then = "B"
within = "3 s"
[[requirements]]
id = "req2"
[requirements.timed]
then = "(not B)"
"#
    ));
    let tb = s.time.clone().unwrap();
    let scenario = [parse_fact(&s, &tb, "s", "at 0 s: A").unwrap()];
    let claim = [parse_fact(&s, &tb, "c", "at 0 s: (not C)").unwrap()];
    for kind in SOLVERS {
        let config = SolverConfig::new(kind);
        let mut short = TimedAsker::new(&s, 0, Some(2), &config).unwrap();
        let a = short.ask(&scenario, &claim).unwrap();
        assert_eq!(a.verdict.name(), "not-entailed", "{kind}: {a:?}");
        assert_eq!(a.steps, 3);
        let mut long = TimedAsker::new(&s, 0, None, &config).unwrap();
        let a = long.ask(&scenario, &claim).unwrap();
        assert_eq!(a.verdict.name(), "scenario-impossible", "{kind}: {a:?}");
        let reqs::timed::ask::TimedVerdict::ScenarioImpossible { because } = a.verdict else {
            unreachable!()
        };
        assert_eq!(because, ["req1", "req2"], "{kind}");
    }
}

/// Facts that do not read are errors that say why, never a question.
#[test]
fn bad_facts_are_errors() {
    use reqs::timed::ask::{parse_fact, parse_scenario};
    let s = spec(&format!(
        r#"{HEADER}
[[requirements]]
id = "req1"
[requirements.timed]
then = "(not B)"
"#
    ));
    let tb = s.time.clone().unwrap();
    for (fact, says) in [
        ("A", "has no `:`"),
        ("at 1.5 s: A", "whole number of ticks"),
        ("at -1 s: A", "negative"),
        ("[3 s, 1 s]: A", "empty"),
        ("[0 s, 0 s): A", "empty"),
        ("[0 s]: A", "two times"),
        ("sometime 0 s: A", "is not `at T`"),
        ("at 1 s: Z", "Z"),
        ("at 1 s: (+ A 1)", ""),
        ("at 5 parsecs: A", "unknown unit"),
    ] {
        let e = parse_fact(&s, &tb, "q", fact).expect_err(fact);
        assert!(e.contains(says), "{fact}: {e}");
        assert!(e.starts_with("q"), "{fact}: {e}");
    }
    assert_eq!(parse_scenario(&s, &tb, "q", " ; ").unwrap(), vec![]);
    let two = parse_scenario(&s, &tb, "q", "at 1 s: A; sometime [0 s, 2 s): B").unwrap();
    assert_eq!((two[1].from, two[1].to), (0, 1));
}

/// k-induction: "never" verdicts proved for runs of any length. req1 and req2 keep A
/// false for ever (false at step 0, and false stays false), so req3's trigger can never
/// fire, and req4 (never A) is redundant: both beyond any horizon, by induction.
#[test]
fn k_induction_proves_never_for_every_run() {
    let s = spec(&format!(
        r#"{HEADER}
[[requirements]]
id = "req1"
[requirements.timed]
initially = true
then = "(not A)"
[[requirements]]
id = "req2"
[requirements.timed]
if = "(not A)"
then = "(not A)"
next = true
[[requirements]]
id = "req3"
[requirements.timed]
if = "A"
held_for = "2 s"
then = "B"
[[requirements]]
id = "req4"
[requirements.timed]
then = "(not A)"
"#
    ));
    audit_both(&s, Some(6), |kind, r| {
        let a = |id: &str| r.requirements.iter().find(|a| a.id == id).unwrap();
        assert!(
            matches!(a("req3").vacuity, reqs::audit::Vacuity::Vacuous { .. }),
            "{kind}: {:?}",
            a("req3").vacuity
        );
        assert!(
            a("req3").proved_for_every_run.contains(&"vacuity"),
            "{kind}: {:?}",
            a("req3")
        );
        // Under the domain alone A may hold: not vacuous, nothing to prove.
        assert!(!a("req3").proved_for_every_run.contains(&"vacuity_domain"));
        assert!(
            matches!(
                a("req4").redundancy,
                reqs::timed::audit::TimedRedundancy::Redundant { .. }
            ),
            "{kind}: {:?}",
            a("req4").redundancy
        );
        assert!(
            a("req4").proved_for_every_run.contains(&"redundancy"),
            "{kind}: {:?}",
            a("req4")
        );
    });
}

/// k-induction proves nothing it should not: A is false at steps 0 .. 8 (req1, req2),
/// so within a horizon of 6 steps req3's trigger cannot fire, but later it can. The
/// bounded verdict stays bounded.
#[test]
fn k_induction_leaves_a_bounded_verdict_bounded() {
    let s = spec(&format!(
        r#"{HEADER}
[[requirements]]
id = "req1"
[requirements.timed]
initially = true
then = "(not A)"
until = "C"
[[requirements]]
id = "req2"
[requirements.timed]
initially = true
then = "(not C)"
for = "8 s"
[[requirements]]
id = "req3"
[requirements.timed]
if = "A"
then = "B"
"#
    ));
    audit_both(&s, Some(6), |kind, r| {
        let a = r.requirements.iter().find(|a| a.id == "req3").unwrap();
        assert!(
            matches!(a.vacuity, reqs::audit::Vacuity::Vacuous { .. }),
            "{kind}: {:?}",
            a.vacuity
        );
        assert!(a.proved_for_every_run.is_empty(), "{kind}: {a:?}");
    });
    // With a horizon past step 8, A can hold: not vacuous at all.
    audit_both(&s, Some(12), |kind, r| {
        let a = r.requirements.iter().find(|a| a.id == "req3").unwrap();
        assert!(
            matches!(a.vacuity, reqs::audit::Vacuity::Reachable),
            "{kind}: {:?}",
            a.vacuity
        );
    });
}

/// A timed requirement keeps who wrote it: a model's pattern is not taken for a
/// person's (only reviewed ones serve as worked examples for a model).
#[test]
fn a_timed_requirement_keeps_its_origin() {
    let s = spec(&format!(
        r#"{HEADER}
[[requirements]]
id = "by-model"
origin = "model"
[requirements.timed]
then = "(not B)"
[[requirements]]
id = "accepted"
origin = "model"
accepted = true
[requirements.timed]
then = "(not C)"
[[requirements]]
id = "by-hand"
[requirements.timed]
then = "(not A)"
"#
    ));
    use reqs::spec::Origin;
    let origins: Vec<Origin> = s.requirements.iter().map(|r| r.origin).collect();
    assert_eq!(
        origins,
        [Origin::Model, Origin::ModelAccepted, Origin::Hand]
    );
}

/// k-induction of "no dead end": the pair of `two_requirements_rt_inconsistent` has its
/// shortest dead end after 5 steps. Checked only up to 3 steps, none is found, and the
/// inductive step must not claim more (a window after an arbitrary state reaches the
/// dead end). "Within 20 s" instead still has dead ends (A held for 21 steps after B),
/// so nothing is proved either. With req1 demanding C instead of (not C), both want
/// the same thing: there is no dead end at all, and the inductive step proves it.
#[test]
fn k_induction_of_dead_ends_claims_only_what_holds() {
    let pair = |within: &str, then1: &str| {
        spec(&format!(
            r#"{HEADER}
[[requirements]]
id = "req1"
[requirements.timed]
if = "A"
then = "{then1}"
for = "10 s"
[[requirements]]
id = "req2"
[requirements.timed]
if = "B"
then = "C"
within = "{within}"
"#
        ))
    };
    for kind in SOLVERS {
        let run = |s: &Spec, rt: usize| {
            let mut a = AuditOptions::new(SolverConfig::new(kind));
            a.jobs = 2;
            let o = TimedOptions {
                audit: a,
                horizon: None,
                rt_horizon: Some(rt),
                no_rt: false,
            };
            audit_timed(s, &o).unwrap_or_else(|e| panic!("{kind}: {e}"))
        };
        for within in ["5 s", "20 s"] {
            let r = run(&pair(within, "(not C)"), 3);
            assert!(
                matches!(
                    r.rt_inconsistency,
                    RtInconsistency::NoneUpTo {
                        up_to: 3,
                        every_prefix: false,
                        ..
                    }
                ),
                "{kind} {within}: {:?}",
                r.rt_inconsistency
            );
        }
        let r = run(&pair("5 s", "(not C)"), 6);
        assert!(
            matches!(r.rt_inconsistency, RtInconsistency::Found { .. }),
            "{kind}: {:?}",
            r.rt_inconsistency
        );
        let r = run(&pair("5 s", "C"), 3);
        assert!(
            matches!(
                r.rt_inconsistency,
                RtInconsistency::NoneUpTo {
                    every_prefix: true,
                    ..
                }
            ),
            "{kind}: {:?}",
            r.rt_inconsistency
        );
    }
}
