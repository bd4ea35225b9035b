//! Accepted exceptions on file: the CRA SIN exception recorded in `exceptions.toml`
//! (in use in the 13 correct programs; broader than needed for federal, whose program
//! only stops taxing at ten-digit SINs), a stale exception, and the files found for a
//! case in a dataset, on z3 and cvc5.

mod common;
use bl::check::*;
use bl::exceptions::{self, Exception};
use solver::{SolverConfig, SolverKind};

const BOUNDS: &str = r#"[
  {"type": "outputs", "variables": ["fee_bl", "FinalTaxes"]},
  {"type": "equals", "variables": ["Income", "income"]},
  {"type": "ranges", "variables": ["Income"], "min": 0}
]"#;

const FILE: &str = r#"
[[exception]]
id = "sin_exception"
assume = "(< sin 900000000)"
reason = "temporary workers taxed elsewhere"
accepted_by = "J. Tremblay"
date = "2026-11-02"

[[exception]]
id = "billionaires"
cases = "on"
assume = "(< income 10000000000)"
reason = "incomes over 10 billion were handled by hand"
accepted_by = "A. Roy"
date = "2020-01-15"
"#;

fn solvers() -> Vec<SolverKind> {
    [("z3", SolverKind::Z3), ("cvc5", SolverKind::Cvc5)]
        .into_iter()
        .filter(|(p, _)| common::have(p))
        .map(|(_, k)| k)
        .collect()
}

fn check(region: &str, exceptions: Vec<Exception>, kind: SolverKind) -> Report {
    let d = common::data().join("cra-25").join(region);
    let mut inp = CheckInput::new(
        SideSource::Smt(common::file(&d.join(format!("{region}.smt2")))),
        SideSource::Bl(common::file(&d.join("prog.bl"))),
    );
    inp.bounds = Some(Bounds::from_json("bounds", BOUNDS).unwrap());
    inp.exceptions = exceptions;
    check_consistency(&inp, &SolverConfig::new(kind)).unwrap()
}

fn applying(region: &str) -> Vec<Exception> {
    exceptions::parse("exceptions.toml", FILE)
        .unwrap()
        .into_iter()
        .filter(|e| e.applies_to(region))
        .collect()
}

#[test]
fn the_sin_exception_on_file() {
    for kind in solvers() {
        // In use: the verdict rests on it; where it excludes agreeing inputs, both
        // outputs are 0 (income 0), which is a note, not a finding.
        let r = check("ab", applying("ab"), kind);
        assert_eq!(r.verdict, Verdict::Consistent, "{kind:?}");
        assert_eq!(r.assumptions, ["sin_exception"]);
        let e = &r.exceptions[0];
        assert_eq!(e.status, ExceptionStatus::InUse, "{kind:?}: {e:?}");
        assert!(
            e.note
                .as_deref()
                .unwrap_or("")
                .contains("both outputs are 0"),
            "{e:?}"
        );
        // Stale: no SIN check depends on incomes over 10 billion.
        let r = check("on", applying("on"), kind);
        assert_eq!(r.verdict, Verdict::Consistent);
        let stale = r
            .exceptions
            .iter()
            .find(|e| e.id == "billionaires")
            .unwrap();
        assert_eq!(stale.status, ExceptionStatus::Stale, "{kind:?}: {stale:?}");
        assert_eq!(r.exceptions[0].status, ExceptionStatus::InUse);
        // Broader than needed: federal's program taxes SINs 900000000..8999999999, so
        // the exception hides inputs where both sides compute the same tax.
        let r = check("federal", applying("federal"), kind);
        assert_eq!(r.verdict, Verdict::Consistent);
        let e = &r.exceptions[0];
        assert_eq!(e.status, ExceptionStatus::Broader, "{kind:?}: {e:?}");
        let w = e.witness.as_ref().unwrap();
        let sin = bl::parse_rational(&w["sin"]).unwrap();
        assert!(sin >= bl::parse_rational("900000000").unwrap(), "{w:?}");
        assert!(sin < bl::parse_rational("9000000000").unwrap(), "{w:?}");
    }
}

/// Without the exception the pair is inconsistent; an exception also reports on an
/// inconsistent verdict (here: in use, the remaining divergence is elsewhere).
#[test]
fn exceptions_on_an_inconsistent_pair() {
    if !common::have("z3") {
        return;
    }
    let mut e = applying("ab");
    e[0].assume = "(< sin 950000000)".into();
    let r = check("ab", e, SolverKind::Z3);
    assert_eq!(r.verdict, Verdict::Inconsistent);
    assert_eq!(r.exceptions[0].status, ExceptionStatus::InUse);
}

#[test]
fn files_found_for_a_case() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("set");
    let case = root.join("cra-25/on");
    std::fs::create_dir_all(&case).unwrap();
    std::fs::write(
        root.join("exceptions.toml"),
        FILE.replace("cases = \"on\"", "cases = \"cra-25/*\""),
    )
    .unwrap();
    std::fs::write(
        case.join("exceptions.toml"),
        r#"[[exception]]
id = "local"
assume = "(> income 0)"
reason = "zero incomes file no return"
accepted_by = "B. Li"
date = "2025-04-30"
"#,
    )
    .unwrap();
    let ids: Vec<String> = exceptions::for_case(&root, &case)
        .unwrap()
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(ids, ["sin_exception", "billionaires", "local"]);
    // The same id twice on the way down is an error naming both files.
    std::fs::write(case.join("exceptions.toml"), FILE).unwrap();
    let e = exceptions::for_case(&root, &case).unwrap_err().to_string();
    assert!(e.contains("is also used in"), "{e}");
    // A broken file is an error with its location.
    std::fs::write(case.join("exceptions.toml"), "[[exception]]\nid = \n").unwrap();
    let e = exceptions::for_case(&root, &case).unwrap_err().to_string();
    assert!(e.contains("exceptions.toml") && e.contains("line 2"), "{e}");
}
