//! An `unknown` answer anywhere on the way to a verdict makes the verdict unknown, and
//! the verdict says why in words (`reason`) and as a kind (`reason_kind`).
//!
//! The cases use a documentation side whose intermediates must satisfy
//! `a³ + b³ = c³` with positive integers: no solver can decide that (it is Fermat's
//! last theorem for n = 3), so with a short time limit any query that needs it answers
//! `unknown` on z3 and cvc5 alike, while queries that do not need it stay easy. That
//! makes the outcome deterministic without depending on machine speed.

mod common;
use bl::check::*;
use logic::SourceFile;
use solver::{Reason, ReasonKind, SolverConfig, SolverKind, Undecided};
use std::time::Duration;

/// Positive integers a, b, c with a³ + b³ = c³ (there are none, undecidably for a solver).
const FERMAT: &str = "(and (> a 0) (> b 0) (> c 0) (= (+ (* a a a) (* b b b)) (* c c c)))";

const PROG: &str = "let x = <input>\nlet fee = x\n";

const BOUNDS: &str = r#"[ {"type": "outputs", "variables": ["out", "fee"]},
  {"type": "equals", "variables": ["nl.x", "bl.x"]} ]"#;

fn nl(body: &str) -> String {
    format!(
        "(declare-const x Real)\n(declare-const a Int)\n(declare-const b Int)\n\
         (declare-const c Int)\n(declare-const out Real)\n{}\n",
        body.replace("FERMAT", FERMAT)
    )
}

fn input(nl_text: &str) -> CheckInput {
    let mut inp = CheckInput::new(
        SideSource::Smt(SourceFile::new("nl.smt2", nl_text)),
        SideSource::Bl(SourceFile::new("prog.bl", PROG)),
    );
    inp.bounds = Some(Bounds::from_json("bounds.json", BOUNDS).unwrap());
    inp
}

fn config(kind: SolverKind) -> SolverConfig {
    let mut c = SolverConfig::new(kind);
    c.timeout = Duration::from_millis(500);
    c
}

fn solvers() -> Vec<SolverKind> {
    SolverKind::ALL
        .into_iter()
        .filter(|k| common::have(k.default_program()))
        .collect()
}

/// A is vacuous (no positive a, b, c exist) but no solver can show it: the totality and
/// no-assignment checks answer unknown. The main query is easy (out = x = fee), so the
/// old checker reported `consistent` for a formalization with no solutions at all.
#[test]
fn unknown_totality_and_vacuity_checks_make_the_verdict_unknown() {
    let text = nl("(assert FERMAT)\n(assert (= out (* 1.0 x)))");
    for kind in solvers() {
        let r = check_consistency(&input(&text), &config(kind)).unwrap();
        assert_eq!(r.verdict, Verdict::Unknown, "{kind:?}\n{r:?}");
        let reason = r.reason.clone().unwrap_or_default();
        assert!(
            reason.contains("no-assignment check") || reason.contains("totality check"),
            "{kind:?}: {reason}"
        );
        assert!(
            r.undecided
                .iter()
                .any(|u| u.query == Query::Totality && u.affects_verdict),
            "{kind:?}: {:?}",
            r.undecided
        );
        // The verdict's reason is the totality query that got no answer.
        assert!(r.reason.as_deref().is_some_and(|x| !x.is_empty()), "{r:?}");
    }
}

/// Totality and vacuity are easy here (a = 0 works), but whether `out` is a function of
/// `x` needs the Fermat equation; an assumption ties the outputs so that Eq. (2) itself
/// is trivially valid. The functionality check's unknown must not be read as "functional".
#[test]
fn unknown_functionality_check_makes_the_verdict_unknown() {
    let text = nl("(assert (= out (+ x (ite FERMAT 1.0 0.0))))");
    for kind in solvers() {
        let mut inp = input(&text);
        inp.assumptions
            .push(Assumption::parse_arg("tie=(= nl.out bl.fee)").unwrap());
        let r = check_consistency(&inp, &config(kind)).unwrap();
        assert_eq!(r.verdict, Verdict::Unknown, "{kind:?}\n{r:?}");
        let reason = r.reason.clone().unwrap_or_default();
        assert!(reason.contains("functionality check"), "{kind:?}: {reason}");
        assert!(
            r.undecided
                .iter()
                .any(|u| u.query == Query::Functionality && u.affects_verdict),
            "{kind:?}: {:?}",
            r.undecided
        );
    }
}

/// The search for a second region (x <= 10) needs a solution of the Fermat equation.
/// z3 finds the first counterexample (x > 10) at once: the verdict stands, and the
/// region list must say it is incomplete and why. cvc5 explores the Fermat branch
/// before the easy one and cannot find even the first counterexample in time: its
/// verdict must be unknown, naming the consistency query.
#[test]
fn unknown_region_search_marks_the_list_incomplete() {
    let text = nl("(assert (= out (ite (> x 10.0) (+ x 1.0) (+ x (ite FERMAT 1.0 0.0)))))");
    for kind in solvers() {
        let mut inp = input(&text);
        inp.options.diagnose = false;
        inp.options.enumerate = true;
        let r = check_consistency(&inp, &config(kind)).unwrap();
        if kind == SolverKind::Cvc5 {
            assert_eq!(r.verdict, Verdict::Unknown, "{kind:?}\n{r:?}");
            let reason = r.reason.clone().unwrap_or_default();
            assert!(reason.contains("consistency query"), "{reason}");
            assert!(r.regions.is_empty());
            continue;
        }
        assert_eq!(r.verdict, Verdict::Inconsistent, "{kind:?}\n{r:?}");
        assert!(!r.regions_complete, "{kind:?}\n{r:?}");
        let note = r.regions_note.clone().unwrap_or_default();
        assert!(note.contains("unknown"), "{kind:?}: {note}");
        assert!(r.regions_note.is_some(), "{r:?}");
    }
}

/// In the region x > 10 the outputs differ unless the Fermat equation has a solution:
/// whether they differ everywhere there is unknown, which must not be shown as
/// "differ on part of it".
#[test]
fn unknown_region_coverage_is_not_reported_as_partial() {
    let text = nl("(assert (= out (ite (> x 10.0) (- (+ x 1.0) (ite FERMAT 1.0 0.0)) x)))");
    for kind in solvers() {
        let mut inp = input(&text);
        inp.options.diagnose = false;
        inp.options.enumerate = true;
        let r = check_consistency(&inp, &config(kind)).unwrap();
        assert_eq!(r.verdict, Verdict::Inconsistent, "{kind:?}\n{r:?}");
        assert_eq!(r.regions[0].everywhere, None, "{kind:?}");
    }
}

/// In a batch, such a case is an unknown row with its reason, never consistent.
#[test]
fn batch_counts_an_unknown_case_as_unknown_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let case = dir.path().join("data/fermat");
    std::fs::create_dir_all(&case).unwrap();
    std::fs::write(
        case.join("nl.smt2"),
        nl("(assert FERMAT)\n(assert (= out (* 1.0 x)))"),
    )
    .unwrap();
    std::fs::write(case.join("prog.bl"), PROG).unwrap();
    std::fs::write(case.join("bounds.json"), BOUNDS).unwrap();
    let cases = bl::batch::discover(dir.path()).unwrap().cases;
    for kind in solvers() {
        let results = bl::batch::run(&cases, &bl::batch::BatchOptions::default(), &config(kind));
        assert_eq!(results.len(), 1);
        assert_eq!(results[0].verdict, Some(Verdict::Unknown), "{kind:?}");
        let reason = results[0].reason.clone().unwrap_or_default();
        assert!(reason.contains("check"), "{kind:?}: {reason}");
        let report = results[0].report.as_ref().unwrap();
        assert_eq!(results[0].reason_kind, report.reason_kind, "{kind:?}");
        assert!(results[0].reason_kind.is_some(), "{kind:?}");
        let rows = bl::batch::summarize(&results);
        assert_eq!((rows[0].unknown, rows[0].consistent), (1, 0), "{rows:?}");
    }
}

/// The unknown verdict says why twice in JSON: `reason` in words and `reason_kind` for a
/// program, on the report, on each undecided query and on the batch's row; a check that
/// is decided has neither kind.
#[test]
fn an_unknown_verdict_carries_the_kind_of_its_reason_in_json() {
    let text = nl("(assert FERMAT)\n(assert (= out (* 1.0 x)))");
    for kind in solvers() {
        let r = check_consistency(&input(&text), &config(kind)).unwrap();
        assert_eq!(r.verdict, Verdict::Unknown, "{kind:?}\n{r:?}");
        let first = r.undecided.iter().find(|u| u.affects_verdict).unwrap();
        // The solver's own answer (a time limit or incomplete methods), never a crash
        // or an error of vera's.
        assert!(
            matches!(
                first.reason.reason_kind,
                ReasonKind::Timeout | ReasonKind::ResourceLimit | ReasonKind::Incomplete
            ),
            "{kind:?}: {first:?}"
        );
        assert_eq!(r.reason_kind, Some(first.reason.reason_kind));
        let j = serde_json::to_value(&r).unwrap();
        let kind_name = serde_json::to_value(first.reason.reason_kind).unwrap();
        assert_eq!(j["reason_kind"], kind_name, "{j}");
        assert!(j["reason"]
            .as_str()
            .unwrap()
            .contains(first.reason.as_str()));
        for (u, ju) in r.undecided.iter().zip(j["undecided"].as_array().unwrap()) {
            assert_eq!(ju["reason"], u.reason.as_str(), "{ju}");
            assert_eq!(
                ju["reason_kind"],
                serde_json::to_value(u.reason.reason_kind).unwrap()
            );
        }
        // A report read back keeps the kinds.
        let back: Report = serde_json::from_value(j).unwrap();
        assert_eq!(back, r);
    }
    // A decided check has no kind to give.
    let easy = nl("(assert (= out (* 1.0 x)))");
    for kind in solvers() {
        let r = check_consistency(&input(&easy), &config(kind)).unwrap();
        assert_eq!(r.verdict, Verdict::Consistent, "{kind:?}\n{r:?}");
        assert_eq!(r.reason_kind, None);
        let j = serde_json::to_value(&r).unwrap();
        assert!(j.get("reason_kind").is_none(), "{j}");
        assert!(j["reason"].is_null(), "{j}");
    }
}

/// A partition check the solver left open serializes as before (`status`, `detail` in
/// words) plus its `reason_kind`; a payload written before `reason_kind` existed still
/// reads, as kind `other`.
#[test]
fn a_proof_left_open_keeps_its_detail_and_gains_a_kind() {
    use bl::check::Proof;
    let p = Proof::Unknown(Undecided::from(Reason::Timeout));
    let j = serde_json::to_value(&p).unwrap();
    assert_eq!(
        j,
        serde_json::json!({"status": "unknown", "detail": "the time limit was reached", "reason_kind": "timeout"})
    );
    assert_eq!(serde_json::from_value::<Proof>(j).unwrap(), p);
    assert_eq!(
        serde_json::to_value(Proof::Proved).unwrap(),
        serde_json::json!({"status": "proved"})
    );
    let refuted = Proof::Refuted("at x = 3".into());
    let j = serde_json::to_value(&refuted).unwrap();
    assert_eq!(
        j,
        serde_json::json!({"status": "refuted", "detail": "at x = 3"})
    );
    assert_eq!(serde_json::from_value::<Proof>(j).unwrap(), refuted);
    let old: Proof =
        serde_json::from_value(serde_json::json!({"status": "unknown", "detail": "gave up"}))
            .unwrap();
    assert_eq!(old, Proof::Unknown(Undecided::other("gave up")));
    let old: bl::check::Undecided = serde_json::from_value(serde_json::json!({
        "query": "totality", "side": null, "detail": "", "reason": "gave up",
        "affects_verdict": true
    }))
    .unwrap();
    assert_eq!(old.reason, Undecided::other("gave up"));
}
