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
