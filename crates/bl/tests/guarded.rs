//! A side written as guarded clauses (how `vera table smt` writes a table) against a BL
//! program, with enough thresholds that the hard queries are asked slice by slice on
//! the problem restricted to each slice. A grid of disjoint guards is functional by
//! its form (no two-copy query); a conflicting overlap must still be found, and an
//! overlap with the same output is no conflict. Run with z3 and cvc5.

use bl::check::*;
use logic::SourceFile;
use solver::{SolverConfig, SolverKind};
use std::fmt::Write as _;

const WEIGHTS: usize = 300;

fn rate(w: usize, z: usize) -> String {
    format!("{}.{:02}", 3 + w / 4 + z, (w * 7 + z * 13) % 100)
}

/// The table as guarded clauses over `w` and `z`, plus `extra` clauses.
fn table(extra: &str) -> String {
    let mut s =
        String::from("(declare-const w Real)\n(declare-const z Real)\n(declare-const fee Real)\n");
    for w in 1..=WEIGHTS {
        for z in 1..=2 {
            let _ = writeln!(
                s,
                "(assert (=> (and (< {}.0 w) (<= w {w}.0) (= z {z}.0)) (= fee {})))",
                w - 1,
                rate(w, z)
            );
        }
    }
    s.push_str(extra);
    s
}

/// The program, wrong in one cell when `planted`.
fn program(planted: bool) -> String {
    let mut s = String::from("let w = <input>\nlet z = <input>\nlet fee = ");
    for w in 1..=WEIGHTS {
        let r2 = if planted && w == 200 {
            "0.5".to_string()
        } else {
            rate(w, 2)
        };
        let _ = write!(
            s,
            "if w <= {w} then (if z == 1 then {} else {r2}) else ",
            rate(w, 1)
        );
    }
    s.push_str("0\n");
    s
}

fn check(kind: SolverKind, nl: String, planted: bool) -> Report {
    let mut inp = CheckInput::new(
        SideSource::Smt(SourceFile::new("table.smt2", nl)),
        SideSource::Bl(SourceFile::new("table.bl", program(planted))),
    );
    inp.nl_output = Some("fee".into());
    inp.bl_output = Some("fee".into());
    inp.options.enumerate = true;
    inp.assumptions = vec![
        Assumption::parse_arg(&format!("rows_w=(and (< 0.0 nl.w) (<= nl.w {WEIGHTS}.0))"))
            .expect("assumption"),
        Assumption::parse_arg("rows_z=(or (= nl.z 1.0) (= nl.z 2.0))").expect("assumption"),
    ];
    let mut config = SolverConfig::new(kind);
    config.timeout = std::time::Duration::from_secs(60);
    check_consistency(&inp, &config).expect("no error")
}

fn each_solver(f: impl Fn(SolverKind)) {
    for kind in [SolverKind::Z3, SolverKind::Cvc5] {
        f(kind);
    }
}

#[test]
fn a_grid_of_guarded_cells_is_consistent_with_its_program() {
    each_solver(|kind| {
        let r = check(kind, table(""), false);
        assert_eq!(r.verdict, Verdict::Consistent, "{kind:?}: {r:?}");
    });
}

#[test]
fn a_wrong_cell_is_found_as_exactly_its_region() {
    each_solver(|kind| {
        let r = check(kind, table(""), true);
        assert_eq!(r.verdict, Verdict::Inconsistent, "{kind:?}: {r:?}");
        assert_eq!(r.regions.len(), 1, "{kind:?}: {:?}", r.regions);
        let ex = &r.regions[0].example;
        let w: f64 = ex["w"].parse().expect("a number");
        assert!(199.0 < w && w <= 200.0, "{kind:?}: {ex:?}");
        assert_eq!(ex["z"], "2", "{kind:?}: {ex:?}");
        assert!(
            r.partition.as_ref().is_some_and(|p| p.exact()),
            "{kind:?}: {:?}",
            r.partition
        );
    });
}

/// Two cells that both apply with different outputs leave the documentation side with
/// no output where they meet (no value satisfies both): found at a point of the meet,
/// which the solver confirms, however far the point is from the program's paths.
#[test]
fn overlapping_cells_with_different_outputs_leave_inputs_without_output() {
    each_solver(|kind| {
        let r = check(
            kind,
            table("(assert (=> (and (< 250.5 w) (<= w 251.5) (= z 1.0)) (= fee 0.25)))\n"),
            false,
        );
        assert_eq!(r.verdict, Verdict::Rejected, "{kind:?}: {r:?}");
        let f = r
            .findings
            .iter()
            .find(|f| f.kind == FindingKind::NoOutputForInput)
            .unwrap_or_else(|| panic!("{kind:?}: {:?}", r.findings));
        assert!(
            f.message.contains("w = 251") && f.message.contains("z = 1"),
            "{}",
            f.message
        );
    });
}

#[test]
fn overlapping_cells_with_the_same_output_are_no_conflict() {
    each_solver(|kind| {
        let r = check(
            kind,
            table(&format!(
                "(assert (=> (and (< 250.5 w) (<= w 251.0) (= z 1.0)) (= fee {})))\n",
                rate(251, 1)
            )),
            false,
        );
        assert_eq!(r.verdict, Verdict::Consistent, "{kind:?}: {r:?}");
    });
}

/// A grid with one cell left out: where no guard holds the side leaves its output
/// free. That is a not-functional finding at a point of the hole (asked slice by
/// slice), never a counterexample with a made-up documentation output.
#[test]
fn a_missing_cell_leaves_the_output_free_there() {
    let hole = "(< 149.0 w) (<= w 150.0) (= z 2.0)";
    let nl: String = table("")
        .lines()
        .filter(|l| !l.contains(hole))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(nl.lines().count(), table("").lines().count() - 1);
    each_solver(|kind| {
        let r = check(kind, nl.clone(), false);
        assert_eq!(r.verdict, Verdict::Rejected, "{kind:?}: {r:?}");
        assert!(r.counterexample.is_none(), "{kind:?}");
        let f = r
            .findings
            .iter()
            .find(|f| f.kind == FindingKind::NotFunctional)
            .unwrap_or_else(|| panic!("{kind:?}: {:?}", r.findings));
        assert_eq!(f.side, SideLabel::Nl);
        assert!(f.message.contains("no clause applies"), "{}", f.message);
        // The witness lies in the hole.
        let w: f64 = f
            .message
            .split("w = ")
            .nth(1)
            .and_then(|x| x.split([',', ' ']).next())
            .and_then(|x| x.parse().ok())
            .unwrap_or_else(|| panic!("{}", f.message));
        assert!(149.0 < w && w <= 150.0, "{}", f.message);
        assert!(f.message.contains("z = 2"), "{}", f.message);
    });
}
