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

fn audit_both(spec: &Spec, horizon: Option<usize>, check: impl Fn(SolverKind, &TimedReport)) {
    for kind in SOLVERS {
        let mut a = AuditOptions::new(SolverConfig::new(kind));
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
        assert!(
            matches!(r.rt_inconsistency, RtInconsistency::NoneUpTo { .. }),
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
