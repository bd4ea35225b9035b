//! The rule-pair chart on the copied CRA data (testdata/fees-dataset/cra-25), with z3.

use bl::check::Bounds;
use num_rational::BigRational;
use serve::plot::{self, CaseFiles, PlotError, PlotRequest};
use solver::{SolverConfig, SolverKind};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn cra_bounds() -> Bounds {
    let p = root().join("examples/fees/cra-bounds.json");
    let text = std::fs::read_to_string(&p).expect("the CRA bounds are in the repository");
    Bounds::from_json(&p.display().to_string(), &text).expect("valid bounds")
}

/// A case of cra-25 as the batch check finds it, with the batch's `--bounds`.
fn case(name: &str) -> CaseFiles {
    let d = bl::batch::discover(&root().join("testdata/fees-dataset/cra-25")).unwrap();
    let c = d
        .cases
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("case {name} not found"));
    CaseFiles::read(c, Some(&cra_bounds())).unwrap()
}

fn z3() -> SolverConfig {
    SolverConfig::new(SolverKind::Z3)
}

fn r(s: &str) -> BigRational {
    bl::parse_rational(s).unwrap()
}

fn request(x: &str, from: &str, to: &str, fixed: &[(&str, &str)], samples: usize) -> PlotRequest {
    PlotRequest {
        x: x.into(),
        from: Some(r(from)),
        to: Some(r(to)),
        fixed: fixed.iter().map(|(k, v)| (k.to_string(), r(v))).collect(),
        samples,
    }
}

/// The implementation's value, straight from the interpreter.
fn interp(case: &str, income: &str, sin: &str) -> BigRational {
    let p = root().join(format!("testdata/fees-dataset/cra-25/{case}/prog.bl"));
    let file = logic::SourceFile::new(
        p.display().to_string(),
        std::fs::read_to_string(&p).unwrap(),
    );
    let prog = bl::parse(&file).unwrap();
    let inputs = bl::inputs(&[("income", income), ("sin", sin)]).unwrap();
    bl::interpret(&prog, &inputs, prog.last_name().unwrap()).unwrap()
}

fn point<'a>(p: &'a plot::Plot, x: &str) -> &'a (String, Option<String>, Option<String>) {
    p.points
        .iter()
        .find(|(px, _, _)| px == x)
        .unwrap_or_else(|| panic!("no sample at {x}"))
}

#[test]
fn inputs_and_defaults() {
    let ab = case("ab");
    assert_eq!(plot::inputs_of(&ab).unwrap(), ["income", "sin"]);
    let fixed = plot::default_fixed(&ab, "income").unwrap();
    assert_eq!(fixed, BTreeMap::from([("sin".to_string(), r("0"))]));
    // From the bound `Income >= 0` to twice the largest threshold (362961), rounded.
    let (from, to) = plot::default_range(&ab, "income").unwrap();
    assert_eq!(
        (plot::exact(&from), plot::exact(&to)),
        ("0".into(), "730000".into())
    );
    // With SIRNA's Fig. 8(b) bounds (sin < 900000000), the SIN's range is the bound's.
    let d = bl::batch::discover(&root().join("testdata/fees-dataset/cra-25")).unwrap();
    let fed = d.cases.iter().find(|c| c.name == "federal").unwrap();
    let fig8 = Bounds::from_json(
        "fig8b.json",
        r#"[{"type": "outputs", "variables": ["fee_bl", "FinalTaxes"]},
            {"type": "equals", "variables": ["Income", "income"]},
            {"type": "ranges", "variables": ["Income"], "min": 0},
            {"type": "ranges", "variables": ["sin"], "min": 100000000, "max": 900000000}]"#,
    )
    .unwrap();
    let own = CaseFiles::read(fed, Some(&fig8)).unwrap();
    let (from, to) = plot::default_range(&own, "sin").unwrap();
    assert_eq!(
        (plot::exact(&from), plot::exact(&to)),
        ("100000000".into(), "900000000".into())
    );
    let fixed = plot::default_fixed(&own, "income").unwrap();
    assert_eq!(fixed, BTreeMap::from([("sin".to_string(), r("100000000"))]));
    // The case's own bounds.json names an output (`final_tax`) that the program does
    // not have: an error, as for the check.
    let err = plot::inputs_of(&CaseFiles::read(fed, None).unwrap()).unwrap_err();
    assert!(err.to_string().contains("final_tax"), "{err}");
    let err = plot::default_fixed(&ab, "wage").unwrap_err();
    assert!(matches!(err, PlotError::UnknownInput { .. }), "{err}");
    assert!(err.to_string().contains("income, sin"), "{err}");
}

#[test]
fn ab_diverges_at_a_sin_starting_with_9_and_not_otherwise() {
    let ab = case("ab");
    let p = plot::plot_case(
        &ab,
        &request("income", "0", "500000", &[("sin", "900000000")], 50),
        &[],
        &z3(),
    )
    .unwrap();
    // The implementation charges nothing for such a SIN: every positive income differs.
    assert_eq!(p.divergent.len(), 1, "{:?}", p.divergent);
    let (a, b) = &p.divergent[0];
    assert_eq!(b, "500000");
    assert!(r(a) > r("0") && r(a) <= r("20000"), "{a}");
    assert_eq!(point(&p, "0").1.as_deref(), Some("0"));
    assert!(p.svg.contains(r#"class="divergence""#));
    // Exact values against the interpreter and the formalization's brackets.
    for income in ["60000", "151234", "200000", "362961", "500000"] {
        let (_, nl, bl) = point(&p, income);
        assert_eq!(
            bl.as_deref(),
            Some(plot::exact(&interp("ab", income, "900000000")).as_str())
        );
        assert_eq!(bl.as_deref(), Some("0"));
        assert_eq!(
            nl.as_deref(),
            Some(plot::exact(&interp("ab", income, "123456789")).as_str())
        );
    }
    // 0.08 * 60000 + 0.10 * (151234 - 60000), by hand:
    assert_eq!(point(&p, "151234").1.as_deref(), Some("13923.4"));

    let p = plot::plot_case(
        &ab,
        &request("income", "0", "500000", &[("sin", "123456789")], 50),
        &[],
        &z3(),
    )
    .unwrap();
    assert!(p.divergent.is_empty(), "{:?}", p.divergent);
    assert!(!p.svg.contains(r#"class="divergence""#));
    for (x, nl, bl) in &p.points {
        assert_eq!(nl, bl, "at {x}");
        assert_eq!(
            bl.as_deref(),
            Some(plot::exact(&interp("ab", x, "123456789")).as_str())
        );
    }
    // The thresholds are sampled exactly, the grid is at round numbers.
    for x in [
        "60000", "151234", "181481", "241974", "362961", "20000", "480000",
    ] {
        point(&p, x);
    }
    assert!(p.notes.is_empty(), "{:?}", p.notes);
}

#[test]
fn federal_diverges_from_its_own_sin_threshold() {
    // The federal program treats a SIN >= 9000000000 (ten digits) specially, unlike the
    // other provinces (>= 900000000): the batch check's counterexample there is at
    // sin = 9000000000, and at 900000000 the two sides agree.
    let fed = case("federal");
    let p = plot::plot_case(
        &fed,
        &request("income", "0", "400000", &[("sin", "9000000000")], 41),
        &[],
        &z3(),
    )
    .unwrap();
    assert_eq!(p.divergent.len(), 1, "{:?}", p.divergent);
    assert_eq!(p.divergent[0].1, "400000");
    assert_eq!(point(&p, "114750").1.as_deref(), Some("20081.25"));
    assert_eq!(point(&p, "114750").2.as_deref(), Some("0"));
    for sin in ["900000000", "123456789"] {
        let p = plot::plot_case(
            &fed,
            &request("income", "0", "400000", &[("sin", sin)], 41),
            &[],
            &z3(),
        )
        .unwrap();
        assert!(p.divergent.is_empty(), "sin {sin}: {:?}", p.divergent);
        for income in ["0", "57375", "114750", "177882", "253414", "400000"] {
            let (_, nl, bl) = point(&p, income);
            let want = plot::exact(&interp("federal", income, sin));
            assert_eq!(bl.as_deref(), Some(want.as_str()));
            assert_eq!(nl.as_deref(), Some(want.as_str()));
        }
    }
    // Along the SIN, with the income fixed: the outputs differ from 9000000000 on.
    let p = plot::plot_case(
        &fed,
        &PlotRequest {
            x: "sin".into(),
            from: Some(r("8000000000")),
            to: Some(r("10000000000")),
            fixed: BTreeMap::from([("income".to_string(), r("100000"))]),
            samples: 20,
        },
        &[],
        &z3(),
    )
    .unwrap();
    assert_eq!(
        p.divergent,
        [("9000000000".to_string(), "10000000000".to_string())]
    );
}

#[test]
fn regions_of_the_check_are_drawn_and_agree() {
    let fed = case("federal");
    let mut input = bl::check::CheckInput::new(
        bl::check::SideSource::Smt(fed.nl.clone()),
        bl::check::SideSource::Bl(fed.implementation.clone()),
    );
    input.bounds = fed.bounds.clone();
    input.options.enumerate = true;
    let report = bl::check::check_consistency(&input, &z3()).unwrap();
    assert!(!report.regions.is_empty());
    let p = plot::plot_case(
        &fed,
        &request("income", "0", "300000", &[("sin", "9000000000")], 31),
        &report.regions,
        &z3(),
    )
    .unwrap();
    assert!(p.svg.contains(r#"class="region""#), "{}", p.svg);
    // The sampled divergence is exactly where the regions say.
    assert!(
        p.notes.iter().all(|n| !n.contains("regions say")),
        "{:?}",
        p.notes
    );
}

#[test]
fn svg_is_well_formed_and_labelled() {
    let ab = case("ab");
    let p = plot::plot_case(
        &ab,
        &PlotRequest {
            x: "income".into(),
            ..Default::default()
        },
        &[],
        &z3(),
    )
    .unwrap();
    assert!(p.svg.starts_with("<svg id=\"plot\""));
    assert!(p.svg.ends_with("</svg>"));
    assert_eq!(p.svg.matches("<polyline class=\"nl\"").count(), 1);
    assert_eq!(p.svg.matches("<polyline class=\"bl\"").count(), 1);
    assert!(p.svg.contains("documentation: FinalTaxes"));
    assert!(p.svg.contains("implementation: fee_bl"));
    assert!(p.svg.contains(">200000<"), "x tick labels");
    assert_eq!((p.from.as_str(), p.to.as_str()), ("0", "730000"));
    assert_eq!(
        p.fixed,
        BTreeMap::from([("sin".to_string(), "0".to_string())])
    );
    // About DEFAULT_SAMPLES grid points plus the five thresholds.
    assert!(
        p.points.len() >= 150 && p.points.len() <= plot::DEFAULT_SAMPLES + 10,
        "{}",
        p.points.len()
    );
    let xs: Vec<BigRational> = p.points.iter().map(|(x, _, _)| r(x)).collect();
    assert!(xs.windows(2).all(|w| w[0] < w[1]));
    let roxml = p.svg.matches('<').count() == p.svg.matches('>').count();
    assert!(roxml);
}

#[test]
fn gaps_are_gaps_not_zero() {
    let dir = tempfile::tempdir().unwrap();
    // The documentation has no output below 100, and two outputs above 1000.
    std::fs::write(
        dir.path().join("nl.smt2"),
        "(declare-const x Real)\n(declare-const out Real)\n\
         (assert (>= x 100))\n\
         (assert (=> (<= x 1000) (= out (* 2 x))))\n\
         (assert (=> (> x 1000) (>= out 0)))\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("prog.bl"),
        "let x = <input>\nlet d = x - 50\nlet fee = 100 / d\n",
    )
    .unwrap();
    let mut c = CaseFiles::from_paths(
        &dir.path().join("nl.smt2"),
        &dir.path().join("prog.bl"),
        None,
        None,
    )
    .unwrap();
    c.nl_output = Some("out".into());
    c.bl_output = Some("fee".into());
    let p = plot::plot_case(&c, &request("x", "0", "2000", &[], 21), &[], &z3()).unwrap();
    let at = |x: &str| point(&p, x).clone();
    assert_eq!(at("0").1, None);
    assert_eq!(at("200").1.as_deref(), Some("400"));
    assert_eq!(at("1500").1, None);
    assert_eq!(at("200").2.as_deref(), Some("2/3"));
    assert_eq!(at("0").2.as_deref(), Some("-2"));
    // Division by zero at x = 50: sampled, a gap on the implementation's side.
    let p50 = plot::plot_case(&c, &request("x", "0", "100", &[], 3), &[], &z3()).unwrap();
    assert_eq!(point(&p50, "50").2, None);
    assert!(
        p50.notes.iter().any(|n| n.contains("division by zero")),
        "{:?}",
        p50.notes
    );
    assert!(
        p.notes.iter().any(|n| n.contains("no output satisfies")),
        "{:?}",
        p.notes
    );
    assert!(
        p.notes.iter().any(|n| n.contains("not determined")),
        "{:?}",
        p.notes
    );
    // A gap is never a difference.
    for (a, b) in &p.divergent {
        assert!(r(a) >= r("100") && r(b) <= r("1000"), "{a}..{b}");
    }
    assert!(p.svg.contains("class=\"gap-nl\""));
    assert!(p.svg.matches("<polyline class=\"nl\"").count() == 1);
    assert!(p.svg.matches("<polyline class=\"bl\"").count() >= 1);
}

#[test]
fn names_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    // BL names are plain identifiers; an SMT-LIB side may use |quoted| symbols.
    std::fs::write(
        dir.path().join("nl.smt2"),
        "(declare-const |<script>alert(1)</script>| Real)\n(declare-const |o\"ut&| Real)\n\
         (assert (= |o\"ut&| (* 2 |<script>alert(1)</script>|)))\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("bl.smt2"),
        "(declare-const |<b>x| Real)\n(declare-const y Real)\n(assert (= y (* 2 |<b>x|)))\n",
    )
    .unwrap();
    let mut c = CaseFiles::from_paths(
        &dir.path().join("nl.smt2"),
        &dir.path().join("bl.smt2"),
        None,
        None,
    )
    .unwrap();
    c.nl_output = Some("o\"ut&".into());
    c.bl_output = Some("y".into());
    let names = plot::inputs_of(&c).unwrap();
    assert_eq!(names, ["<b>x", "<script>alert(1)</script>"]);
    let p = plot::plot_case(
        &c,
        &request("<script>alert(1)</script>", "0", "10", &[("<b>x", "3")], 11),
        &[],
        &z3(),
    )
    .unwrap();
    assert!(!p.svg.contains("<script>"), "{}", p.svg);
    assert!(!p.svg.contains("<b>"), "{}", p.svg);
    assert!(p.svg.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(p.svg.contains("o&quot;ut&amp;"));
    assert_eq!(point(&p, "5").1.as_deref(), Some("10"));
    assert_eq!(point(&p, "5").2.as_deref(), Some("6"));
    // 2x against 2 * 3: equal at x = 3 only.
    let runs: Vec<(&str, &str)> = p
        .divergent
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    assert_eq!(runs, [("0", "2"), ("4", "10")]);
}

#[test]
fn bad_requests_are_errors() {
    let ab = case("ab");
    let err = plot::plot_case(&ab, &request("income", "5", "5", &[], 10), &[], &z3()).unwrap_err();
    assert!(matches!(err, PlotError::BadRange { .. }), "{err}");
    let err = plot::plot_case(
        &ab,
        &request("income", "0", "5", &[("income", "1")], 10),
        &[],
        &z3(),
    )
    .unwrap_err();
    assert!(matches!(err, PlotError::FixedIsX(_)), "{err}");
    let err = plot::plot_case(
        &ab,
        &request("income", "0", "5", &[("<i>", "1")], 10),
        &[],
        &z3(),
    )
    .unwrap_err();
    assert!(matches!(err, PlotError::UnknownInput { .. }), "{err}");
    // A huge sample count is capped.
    let p = plot::plot_case(
        &ab,
        &request("income", "0", "1", &[], 1_000_000),
        &[],
        &z3(),
    )
    .unwrap();
    assert!(
        p.points.len() <= plot::MAX_SAMPLES + 1,
        "{}",
        p.points.len()
    );
}
