//! Errors in BL programs, SMT-LIB sides and bounds files carry `file:line:col` and echo
//! no more than a short excerpt of the input, however large the input is.

use bl::check::*;
use logic::SourceFile;
use solver::{SolverConfig, SolverKind};

/// Longest acceptable rendering of one error.
const SHORT: usize = 2_000;

/// A tax table written as one nested rule of `rows` rows on a single line, each row
/// padded to about 650 characters (about 1 MB for 1,600 rows).
fn nested_rule(rows: usize) -> String {
    nested_rule_padded(rows, 60)
}

/// The same with `terms` padding terms per row.
fn nested_rule_padded(rows: usize, terms: usize) -> String {
    let pad: String = (0..terms).map(|k| format!(" + {k}.5 * 0")).collect();
    let mut s = String::from("let income = <input>\nlet tax = ");
    for i in 0..rows {
        s.push_str(&format!(
            "if income <= {i}000.25 then {i}.5 * income{pad} else "
        ));
    }
    s.push_str("0\n");
    s
}

/// A rule of 1,600 rows (about 1 MB on one line) is within the limits.
#[test]
fn a_rule_of_1600_rows_parses() {
    let f = SourceFile::new("rule.bl", nested_rule(1_600));
    let p = bl::parse(&f).expect("1,600 nested rows parse");
    assert_eq!(p.lets.len(), 2);
}

#[test]
fn a_deeply_nested_rule_gives_a_short_located_error() {
    let text = nested_rule_padded(bl::parse::MAX_DEPTH + 50, 0);
    assert!(text.len() > 1_000_000);
    let f = SourceFile::new("rule.bl", text.clone());
    let err = bl::parse(&f).unwrap_err().to_string();
    assert!(err.len() < SHORT, "{} bytes:\n{}", err.len(), &err[..SHORT]);
    assert!(err.contains("nested more than 100000 levels"), "{err}");
    // Located on line 2, at the `if` (or operand) where the limit is passed.
    let head = err.lines().next().unwrap();
    let (loc, _) = head.split_once(": error:").unwrap();
    let mut parts = loc.rsplit(':');
    let col: usize = parts.next().unwrap().parse().unwrap();
    let line: usize = parts.next().unwrap().parse().unwrap();
    assert_eq!(line, 2, "{head}");
    assert!(col > 600_000, "{head}");
    // The same program as the implementation side of a check.
    let inp = CheckInput::new(
        SideSource::Smt(SourceFile::new(
            "nl.smt2",
            "(declare-const income Real)\n(declare-const tax Real)\n(assert (= tax income))\n",
        )),
        SideSource::Bl(f),
    );
    let err = check_consistency(&inp, &SolverConfig::new(SolverKind::Z3))
        .unwrap_err()
        .to_string();
    assert!(err.len() < SHORT, "{} bytes", err.len());
    assert!(err.contains("rule.bl:2:"), "{err}");
}

/// Thousands of errors: the first few are shown, the rest counted.
#[test]
fn many_errors_are_counted_not_all_shown() {
    let text = "let a = 1 +\n".repeat(20_000);
    let err = bl::parse(&SourceFile::new("many.bl", text))
        .unwrap_err()
        .to_string();
    assert!(err.len() < 20 * SHORT, "{} bytes", err.len());
    assert!(err.contains("more diagnostics not shown"), "{err}");
    assert!(
        err.ends_with("39999 errors") || err.contains(" errors"),
        "{err}"
    );
}

#[test]
fn a_long_smt_line_gives_a_short_located_error() {
    let body: String = (0..50_000).map(|i| format!(" (+ x {i})")).collect();
    let nl =
        format!("(declare-const x Real) (declare-const out Real) (assert (= out (+{body} y)))");
    let inp = CheckInput::new(
        SideSource::Smt(SourceFile::new("nl.smt2", nl)),
        SideSource::Bl(SourceFile::new("prog.bl", "let x = <input>\nlet out = x\n")),
    );
    let err = check_consistency(&inp, &SolverConfig::new(SolverKind::Z3))
        .unwrap_err()
        .to_string();
    assert!(err.len() < SHORT, "{} bytes", err.len());
    assert!(err.contains("nl.smt2:1:"), "{err}");
    assert!(err.contains('y'), "{err}");
}

#[test]
fn bounds_errors_are_located_and_short() {
    let long = "n".repeat(1_000_000);
    // Unknown entry type: serde quotes it.
    let text = format!("[\n  {{\"type\": \"{long}\", \"variables\": [\"x\"]}}\n]");
    let err = Bounds::from_json("b.json", &text).unwrap_err().to_string();
    assert!(err.len() < SHORT, "{} bytes", err.len());
    assert!(err.starts_with("b.json:2:"), "{err}");
    // A number that is not one.
    let digits = "9".repeat(200_000);
    let text =
        format!("[{{\"type\": \"ranges\", \"variables\": [\"x\"], \"min\": \"{digits}x\"}}]");
    let err = Bounds::from_json("b.json", &text).unwrap_err().to_string();
    assert!(err.len() < SHORT, "{} bytes", err.len());
    assert!(err.starts_with("b.json:1:"), "{err}");
    // An entry that is valid JSON but wrong: located at the entry.
    let text = "[\n  {\"type\": \"outputs\", \"variables\": [\"a\", \"b\"]},\n  {\"type\": \"ranges\", \"variables\": [\"x\"]}\n]";
    let err = Bounds::from_json("b.json", text).unwrap_err().to_string();
    assert_eq!(
        err,
        "b.json:3:3: error: entry 2: `ranges` needs `min`, `max` or both"
    );
    // A name that is on neither side, found by the checker: located, name shortened.
    let text = format!(
        "[\n  {{\"type\": \"outputs\", \"variables\": [\"out\", \"fee\"]}},\n  {{\"type\": \"equals\", \"variables\": [\"{long}\", \"x\"]}}\n]"
    );
    let mut inp = CheckInput::new(
        SideSource::Smt(SourceFile::new(
            "nl.smt2",
            "(declare-const x Real)\n(declare-const out Real)\n(assert (= out (* 2.0 x)))\n",
        )),
        SideSource::Bl(SourceFile::new("prog.bl", "let x = <input>\nlet fee = x\n")),
    );
    inp.bounds = Some(Bounds::from_json("b.json", &text).unwrap());
    let err = check_consistency(&inp, &SolverConfig::new(SolverKind::Z3))
        .unwrap_err()
        .to_string();
    assert!(err.len() < SHORT, "{} bytes", err.len());
    assert!(
        err.starts_with("b.json:3:3: error: entry 2: unknown"),
        "{err}"
    );
}

#[test]
fn bounds_numbers_with_huge_exponents_are_errors_not_truncated() {
    let text = r#"[{"type": "ranges", "variables": ["x"], "max": "1e1000"}]"#;
    let err = Bounds::from_json("b.json", text).unwrap_err().to_string();
    assert!(err.contains("is not a number"), "{err}");
    let text = r#"[{"type": "ranges", "variables": ["x"], "max": "15e-3"}]"#;
    let b = Bounds::from_json("b.json", text).unwrap();
    let BoundItem::Ranges { max: Some(m), .. } = &b.items[0] else {
        panic!()
    };
    assert_eq!(m.to_string(), "3/200");
}
