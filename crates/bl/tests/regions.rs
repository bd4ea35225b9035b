//! Divergence regions as a partition: a planted threshold typo in a tax bracket, a
//! fee over two inputs (a difference linear in both, and a condition over both), and
//! the cap. Every region list is checked disjoint and exactly the divergence twice:
//! by the checker's own queries (`Report::partition`) and by separate queries here
//! (`common::check_partition`), on z3 and cvc5.

mod common;
use bl::check::*;
use logic::SourceFile;
use solver::{SolverConfig, SolverKind};

fn solvers() -> Vec<SolverKind> {
    [("z3", SolverKind::Z3), ("cvc5", SolverKind::Cvc5)]
        .into_iter()
        .filter(|(p, _)| common::have(p))
        .map(|(_, k)| k)
        .collect()
}

/// Runs the check, checks the partition both ways, and renders the regions.
fn regions(inp: &CheckInput, kind: SolverKind) -> (Report, String) {
    let rep = check_consistency(inp, &SolverConfig::new(kind)).unwrap();
    assert_eq!(rep.verdict, Verdict::Inconsistent, "{kind:?}: {rep:?}");
    let mut out = String::new();
    let (SideSource::Smt(nl), SideSource::Bl(bl)) = (&inp.nl, &inp.bl) else {
        unreachable!()
    };
    if rep.regions_complete {
        let p = rep.partition.as_ref().expect("a partition");
        assert!(p.exact(), "{kind:?}: {p:?}");
        let n = common::check_partition(nl, bl, &rep, kind);
        out.push_str(&format!(
            "{n} region{}, disjoint and exactly the divergence (checked)\n",
            if n == 1 { "" } else { "s" }
        ));
    }
    for g in &rep.regions {
        out.push_str(&format!("  {}\n", common::region_line(g)));
    }
    (rep, out)
}

/// The Ontario program with the top of its second bracket mistyped (`105757` for
/// `105775`, where the third bracket starts), with the SIN exception assumed so the
/// typo is the only divergence: the band between the two numbers, where the
/// difference grows linearly, and above it a constant shortfall of 18 x 9.15%.
#[test]
fn planted_threshold_typo() {
    let d = common::data().join("cra-25/on");
    let prog = common::read(&d.join("prog.bl"));
    let right = "if income > 105775 then 105775 else income";
    assert!(prog.contains(right), "the threshold is in the program");
    let typo = prog.replace(right, "if income > 105757 then 105757 else income");
    let mut inp = CheckInput::new(
        SideSource::Smt(common::file(&d.join("on.smt2"))),
        SideSource::Bl(SourceFile::new("on-typo.bl", typo)),
    );
    inp.bounds = Some(
        Bounds::from_json(
            "bounds",
            r#"[{"type": "outputs", "variables": ["fee_bl", "FinalTaxes"]},
                {"type": "equals", "variables": ["Income", "income"]},
                {"type": "ranges", "variables": ["Income"], "min": 0}]"#,
        )
        .unwrap(),
    );
    inp.assumptions
        .push(Assumption::parse_arg("sin_exception=(< sin 900000000)").unwrap());
    inp.options.enumerate = true;
    for kind in solvers() {
        let (rep, text) = regions(&inp, kind);
        let conds: Vec<String> = rep
            .regions
            .iter()
            .map(|g| g.conditions.join(" and "))
            .collect();
        assert_eq!(
            conds,
            ["105757 < income <= 105775", "income > 105775"],
            "{text}"
        );
        assert_eq!(rep.regions[0].difference, "-0.0915*income + 9676.7655");
        assert_eq!(rep.regions[1].difference, "-1.647");
        insta::assert_snapshot!("planted_threshold_typo", text);
    }
}

const FEE_DOC: &str = "(declare-const amount Real)
(declare-const weight Real)
(declare-const fee Real)
(assert (= fee (ite (<= amount 100.0)
                    (+ 2.0 (* 0.5 weight))
                    (+ (* 0.02 amount) (* 0.5 weight)))))
";

const FEE_BOUNDS: &str = r#"[
  {"type": "ranges", "variables": ["amount"], "min": 0, "max": 10000},
  {"type": "ranges", "variables": ["weight"], "min": 0, "max": 50}
]"#;

fn fee(program: &str) -> CheckInput {
    let mut inp = CheckInput::new(
        SideSource::Smt(SourceFile::new("fee.smt2", FEE_DOC)),
        SideSource::Bl(SourceFile::new("fee.bl", program)),
    );
    inp.nl_output = Some("fee".into());
    inp.bl_output = Some("fee".into());
    inp.bounds = Some(Bounds::from_json("bounds.json", FEE_BOUNDS).unwrap());
    inp.options.enumerate = true;
    inp
}

/// Heavy parcels get a surcharge of 1% of the amount the documentation does not
/// state: the difference is linear in both inputs, the same on both sides of the
/// amount threshold (so one region), and its range is taken at the box's vertices.
#[test]
fn two_inputs_linear_difference() {
    let inp = fee("let amount = <input>
let weight = <input>
let base = if amount <= 100 then 2 else 0.02 * amount
let fee = base + 0.5 * weight + (if weight > 10 then 0.01 * amount + 0.1 * weight else 0)
");
    for kind in solvers() {
        let (rep, text) = regions(&inp, kind);
        assert_eq!(rep.regions.len(), 1, "{text}");
        let g = &rep.regions[0];
        assert_eq!(g.difference, "0.01*amount + 0.1*weight", "{text}");
        let r = g.range.as_ref().expect("a range over a box");
        assert_eq!(r.min.value.as_deref(), Some("1"));
        assert!(!r.min.attained);
        assert_eq!(r.max.value.as_deref(), Some("105"));
        insta::assert_snapshot!("two_inputs_linear_difference", text);
    }
}

/// A condition over both inputs (`amount + 10*weight > 400`) makes a region that is
/// not a box: the range of its difference (1% of the amount) is not computed, and the
/// partition still holds.
#[test]
fn two_inputs_joint_condition() {
    let inp = fee("let amount = <input>
let weight = <input>
let base = if amount <= 100 then 2 else 0.02 * amount
let fee = base + 0.5 * weight + (if amount + 10 * weight > 400 then 0.01 * amount else 0)
");
    for kind in solvers() {
        let (rep, text) = regions(&inp, kind);
        assert!(
            rep.regions
                .iter()
                .all(|g| g.difference == "0.01*amount" && g.range.is_none()),
            "{text}"
        );
        assert!(
            rep.regions.iter().any(|g| g
                .conditions
                .iter()
                .any(|c| c.contains("amount + 10*weight"))),
            "{text}"
        );
        insta::assert_snapshot!("two_inputs_joint_condition", text);
    }
}

/// With a cap below the number of regions, the report says divergence remains and
/// gives an input outside the listed regions; the listed ones are still disjoint and
/// inside the divergence.
#[test]
fn cap_says_what_is_left() {
    let d = common::data().join("cra-25/federal");
    let mut inp = CheckInput::new(
        SideSource::Smt(common::file(&d.join("federal.smt2"))),
        SideSource::Bl(common::file(&d.join("prog.bl"))),
    );
    inp.bounds = Some(
        Bounds::from_json(
            "bounds",
            r#"[{"type": "outputs", "variables": ["fee_bl", "FinalTaxes"]},
                {"type": "equals", "variables": ["Income", "income"]},
                {"type": "ranges", "variables": ["Income"], "min": 0}]"#,
        )
        .unwrap(),
    );
    inp.options.enumerate = true;
    inp.options.max_regions = 2;
    for kind in solvers() {
        let rep = check_consistency(&inp, &SolverConfig::new(kind)).unwrap();
        assert_eq!(rep.regions.len(), 2);
        assert!(!rep.regions_complete);
        let note = rep.regions_note.clone().unwrap_or_default();
        assert!(
            note.contains("divergence remains outside them, e.g. at"),
            "{note}"
        );
        let p = rep.partition.as_ref().unwrap();
        assert!(p.disjoint.holds() && p.within_divergence.holds(), "{p:?}");
        assert!(matches!(p.covers_divergence, Proof::Refuted(_)), "{p:?}");
    }
}
