//! Tables written for the purpose, with known gaps, conflicts and overlaps, checked with
//! z3 and cvc5. Every witness is re-checked here by evaluating the rows at it, and the
//! gaps are shown to be exactly the inputs in range where no row applies by a solver
//! query of the test's own.

mod common;
use common::*;
use logic::{Context, Op, Sort, SourceFile, Term};
use num_rational::BigRational;
use solver::{Outcome as Answer, Solver, SolverConfig, SolverKind};
use table::cell::{self, Condition, Interval, Outcome, OutcomeCell};
use table::{Kind, Options, Report, Table};

/// One row as the test reads it, independently of the analysis: its key values, one
/// interval per input, the outcome and the input a percentage applies to.
struct Row {
    line: u32,
    keys: Vec<String>,
    cond: Vec<Interval>,
    outcome: Outcome,
    base: usize,
}

/// Reads the rows of an interval table (no step columns) for the outcome column `out`.
fn rows(t: &Table, r: &Report, out: &str) -> Vec<Row> {
    let col = |h: &str| t.column(h).unwrap();
    let mut v = Vec::new();
    'rows: for row in &t.rows {
        let mut cond = vec![Interval::all(); r.inputs.len()];
        for (k, i) in r.inputs.iter().enumerate() {
            if i.meaning == "sentence" {
                continue;
            }
            match cell::parse_condition(&row.cells[col(&i.name)].text) {
                Ok(Condition::Interval(x)) => cond[k] = x,
                Ok(Condition::Bare(x)) => cond[k] = Interval::point(x),
                Err(_) => continue 'rows,
            }
        }
        let (outcome, base) = match cell::parse_outcome(&row.cells[col(out)].text) {
            Ok(OutcomeCell::Plain(o)) => (o, 0),
            Ok(OutcomeCell::Rule {
                input,
                condition,
                outcome,
            }) => {
                let k = r
                    .inputs
                    .iter()
                    .position(|i| i.name.to_lowercase().contains(&input))
                    .unwrap();
                cond[k] = cond[k].intersect(&condition);
                (outcome, k)
            }
            Err(_) => continue,
        };
        v.push(Row {
            line: row.line,
            keys: r
                .keys
                .iter()
                .map(|k| row.cells[col(k)].text.trim().to_string())
                .collect(),
            cond,
            outcome,
            base,
        });
    }
    v
}

fn num(s: &str) -> BigRational {
    match cell::parse_condition(s).unwrap() {
        Condition::Bare(v) => v,
        c => panic!("{c:?}"),
    }
}

/// Every finding's witness, evaluated on the rows: a gap's applies to no row of its group
/// and lies in range; a conflict's or overlap's lies in both rows, whose outcomes there
/// differ (conflict) or agree (overlap) and are the reported values.
fn recheck_witnesses(t: &Table, r: &Report) {
    for f in &r.findings {
        let all = rows(t, r, &f.outcome);
        let group: Vec<&Row> = all
            .iter()
            .filter(|row| row.keys.iter().zip(&f.group.0).all(|(a, (_, b))| a == b))
            .collect();
        let p: Vec<BigRational> = r
            .inputs
            .iter()
            .map(|i| {
                let (_, v) = f.witness.0.iter().find(|(k, _)| *k == i.name).unwrap();
                num(v)
            })
            .collect();
        let applies = |row: &Row| row.cond.iter().zip(&p).all(|(c, x)| c.contains(x));
        let summary = r
            .groups
            .iter()
            .find(|g| g.group == f.group && g.outcome == f.outcome)
            .unwrap();
        match f.kind {
            Kind::Gap => {
                assert!(!group.iter().any(|row| applies(row)), "{f:?}");
                for (range, x) in summary.ranges.iter().zip(&p) {
                    let range = match cell::parse_condition(&range.text).unwrap() {
                        Condition::Interval(i) => i,
                        Condition::Bare(v) => Interval::point(v),
                    };
                    assert!(range.contains(x), "{f:?}");
                }
            }
            Kind::Conflict | Kind::Overlap => {
                let find = |line: u32| group.iter().find(|row| row.line == line).unwrap();
                let (a, b) = (find(f.rows[0]), find(f.rows[1]));
                assert!(applies(a) && applies(b), "{f:?}");
                let (va, vb) = (a.outcome.at(&p[a.base]), b.outcome.at(&p[b.base]));
                assert_eq!(f.kind == Kind::Conflict, va != vb, "{f:?}");
                assert_eq!(num(&f.values[0].value), va, "{f:?}");
                assert_eq!(num(&f.values[1].value), vb, "{f:?}");
            }
        }
    }
}

/// In every group: (in range and no row applies) <=> (in one of the reported gaps),
/// asked of the solver as the unsatisfiability of the difference.
fn gaps_are_exact(t: &Table, r: &Report, kind: SolverKind) {
    let mut s = Solver::start(&SolverConfig::new(kind)).unwrap();
    let mut ctx = Context::new();
    for i in &r.inputs {
        s.declare_const(&i.smt, Sort::Real).unwrap();
        ctx.declare_const(i.smt.as_str().into(), Sort::Real);
    }
    let var = |k: usize| Term::var(&r.inputs[k].smt, Sort::Real);
    let boxed = |b: &[Interval]| {
        let parts: Vec<Term> = b
            .iter()
            .enumerate()
            .map(|(k, i)| table::analyze::interval_term(i, &var(k)))
            .collect();
        Term::app(
            Op::And,
            [parts, vec![Term::Bool(true), Term::Bool(true)]].concat(),
        )
    };
    for g in &r.groups {
        let group: Vec<Row> = rows(t, r, &g.outcome)
            .into_iter()
            .filter(|row| row.keys.iter().zip(&g.group.0).all(|(a, (_, b))| *a == *b))
            .collect();
        let range: Vec<Interval> = g
            .ranges
            .iter()
            .map(|x| match cell::parse_condition(&x.text).unwrap() {
                Condition::Interval(i) => i,
                Condition::Bare(v) => Interval::point(v),
            })
            .collect();
        let any = Term::app(
            Op::Or,
            group
                .iter()
                .map(|row| boxed(&row.cond))
                .chain([Term::Bool(false), Term::Bool(false)])
                .collect(),
        );
        let uncovered = Term::app(Op::And, vec![boxed(&range), Term::not(any)]);
        let gaps: Vec<Term> = r
            .findings
            .iter()
            .filter(|f| f.kind == Kind::Gap && f.group == g.group && f.outcome == g.outcome)
            .map(|f| {
                logic::parse_formula(&SourceFile::new("region", f.region.smt.clone()), &ctx)
                    .unwrap()
            })
            .chain([Term::Bool(false), Term::Bool(false)])
            .collect();
        let differ = Term::not(Term::app(Op::Eq, vec![uncovered, Term::app(Op::Or, gaps)]));
        let answer = s.check_assuming(&[differ]).unwrap();
        assert!(
            matches!(answer, Answer::Unsat(_)),
            "{kind}: group {} [{}]: the gaps are not exactly the uncovered inputs: {answer:?}",
            g.group,
            g.outcome
        );
        assert!(g.gaps_exact);
    }
}

/// Checks a test table with every solver: the same report (but for the solver's name),
/// witnesses re-checked, gaps exact; returns the rendering.
fn run(name: &str, options: &Options) -> Option<String> {
    let t = read(&testdata(name));
    let mut first: Option<(SolverKind, String)> = None;
    for kind in solvers() {
        let r = check(&t, options, kind);
        recheck_witnesses(&t, &r);
        gaps_are_exact(&t, &r, kind);
        let text = render(&r);
        match &first {
            None => first = Some((kind, text)),
            Some((k, f)) => assert_eq!(*f, text, "{k} and {kind} differ on {name}"),
        }
    }
    first.map(|f| f.1)
}

#[test]
fn brackets_of_the_issue_have_their_three_gaps() {
    let Some(out) = run("brackets.csv", &Options::default()) else {
        return;
    };
    insta::assert_snapshot!("brackets", out);
}

#[test]
fn a_range_from_zero_adds_the_gap_below_the_first_bracket() {
    let options = Options {
        ranges: table::parse_range("amount=0..100000").unwrap(),
        ..Options::default()
    };
    let Some(out) = run("brackets.csv", &options) else {
        return;
    };
    insta::assert_snapshot!("brackets_range", out);
}

#[test]
fn fees_with_percentages_rules_conflicts_and_overlaps() {
    let Some(out) = run("fees.csv", &Options::default()) else {
        return;
    };
    insta::assert_snapshot!("fees", out);
}

#[test]
fn two_inputs_gap_and_conflict() {
    let Some(out) = run("two-inputs.csv", &Options::default()) else {
        return;
    };
    insta::assert_snapshot!("two_inputs", out);
}

#[test]
fn unreadable_cells_similar_keys_and_an_empty_group_are_findings() {
    let Some(out) = run("bad.csv", &Options::default()) else {
        return;
    };
    insta::assert_snapshot!("bad", out);
}

mod random {
    use super::*;
    use proptest::prelude::*;

    const KEYS: &[&str] = &["A", "B"];
    const WHEN: &[&str] = &[
        "0 - 10",
        "5 - 15",
        "> 12",
        "< 3",
        "10 - 20",
        "= 7",
        "any",
        "20 or more",
        "up to 4",
        "3.5 - 3.75",
        "> 10 and <= 12",
        "between 1 and 2",
    ];
    const THEN: &[&str] = &[
        "1",
        "2",
        "1%",
        "0.5% + 1",
        "\"if amount is over 15, then 3\"",
        "2.00",
    ];

    fn table() -> impl Strategy<Value = String> {
        proptest::collection::vec((0..KEYS.len(), 0..WHEN.len(), 0..THEN.len()), 1..9).prop_map(
            |rows| {
                let mut s = String::from("product,amount,fee\n");
                for (k, w, t) in rows {
                    s.push_str(&format!("{},{},{}\n", KEYS[k], WHEN[w], THEN[t]));
                }
                s
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]

        /// Random tables of intervals: with every solver, the same report, every witness
        /// true of the rows, and the gaps exactly the uncovered inputs.
        #[test]
        fn random_tables_are_analysed_soundly_and_completely(csv in table()) {
            let t = Table::read("random.csv", csv.as_bytes()).unwrap();
            let mut first: Option<String> = None;
            for kind in solvers() {
                let r = check(&t, &Options::default(), kind);
                prop_assert!(r.undecided.is_empty(), "{}", render(&r));
                recheck_witnesses(&t, &r);
                gaps_are_exact(&t, &r, kind);
                let text = render(&r);
                if let Some(f) = &first {
                    prop_assert_eq!(f, &text, "{}", kind);
                }
                first = Some(text);
            }
        }
    }
}
