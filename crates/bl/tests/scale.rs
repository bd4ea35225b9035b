//! Long rule chains: a rate table of 1,600 rows written as one nested `if` (BL) and one
//! nested `ite` (SMT-LIB) is read, checked and its divergence region found, with no
//! nesting limit in the way (the solver sees the chains as guarded clauses and the
//! hard queries slice by slice). z3 only: cvc5 takes minutes on chains this long.

use bl::check::*;
use logic::SourceFile;
use solver::{SolverConfig, SolverKind};
use std::fmt::Write as _;

fn rate_table(rows: usize) -> (String, String) {
    let rate = |i: usize| format!("{}.{:02}", 4 + i * 3 / 4, (i * 37) % 100);
    let mut bl = String::from("let w = <input>\nlet max = <input>\nlet fee_bl = ");
    let mut nl = String::from(
        "(declare-const fee Real)\n(declare-const max Real)\n(declare-const w Real)\n(assert (= fee ",
    );
    for i in 1..=rows {
        let r = if i == rows {
            "999.99".to_string()
        } else {
            rate(i)
        };
        let _ = write!(bl, "if w <= {i} then {r} else ");
        let _ = write!(nl, "(ite (<= w {i}) {} ", rate(i));
    }
    bl.push_str("max\n");
    nl.push_str("max");
    nl.push_str(&")".repeat(rows));
    nl.push_str("))\n");
    (bl, nl)
}

#[test]
fn a_rule_of_1600_rows_is_checked_with_its_region() {
    let (b, n) = rate_table(1_600);
    let mut inp = CheckInput::new(
        SideSource::Smt(SourceFile::new("table.smt2", n)),
        SideSource::Bl(SourceFile::new("table.bl", b)),
    );
    inp.nl_output = Some("fee".into());
    inp.options.enumerate = true;
    let mut config = SolverConfig::new(SolverKind::Z3);
    config.timeout = std::time::Duration::from_secs(60);
    let r = check_consistency(&inp, &config).expect("no error");
    assert_eq!(r.verdict, Verdict::Inconsistent, "{r:?}");
    assert_eq!(r.regions.len(), 1, "{:?}", r.regions);
    assert_eq!(r.regions[0].conditions, vec!["1599 < w <= 1600"]);
    assert!(r.regions_complete);
    assert!(
        r.partition.as_ref().is_some_and(|p| p.exact()),
        "{:?}",
        r.partition
    );
}
