//! Redundancy in dense time: a requirement is redundant when no run the other
//! requirements allow breaks it. Small specs in Ultimate's `.req` syntax with known
//! answers, in both directions: what another requirement implies is reported redundant
//! (proved for every run, against that requirement), what none implies is shown broken
//! by a run (which the audit re-checks with the countertrace evaluator).

mod dense;
use dense::audit;
use reqs::timed::dense::audit::{audit_dense, DenseOptions, DenseRedundancy, DenseReport};
use solver::{SolverConfig, SolverKind};

/// Per requirement id: "redundant by X,Y" (proved), "broken" or what else it is.
fn verdicts(r: &DenseReport) -> Vec<(String, String)> {
    r.requirements
        .iter()
        .map(|a| {
            let v = match &a.redundancy {
                DenseRedundancy::Redundant {
                    proved: true,
                    by,
                    minimal: true,
                    ..
                } => format!("redundant by {}", by.join(",")),
                DenseRedundancy::Redundant {
                    proved: true,
                    by,
                    minimal: false,
                    ..
                } => format!("redundant by {} (not shown minimal)", by.join(",")),
                DenseRedundancy::NotRedundant { trace } => {
                    assert!(!trace.rows.is_empty(), "a run is shown");
                    "broken".into()
                }
                other => format!("{other:?}"),
            };
            (a.id.clone(), v)
        })
        .collect()
}

fn expect(text: &str, want: &[(&str, &str)]) {
    let got = verdicts(&audit(text));
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(got, want, "{text}");
}

#[test]
fn an_invariant_implied_by_a_stronger_one_is_redundant() {
    expect(
        "Input p is bool\nInput q is bool\n\
         A: Globally, it is always the case that \"p\" holds.\n\
         B: Globally, it is always the case that \"p || q\" holds.\n",
        &[("A", "broken"), ("B", "redundant by A")],
    );
}

#[test]
fn a_longer_deadline_is_implied_by_a_shorter_one() {
    expect(
        "Input p is bool\nOutput q is bool\n\
         A: Globally, it is always the case that if \"p\" holds then \"q\" holds after at most 5 time units.\n\
         B: Globally, it is always the case that if \"p\" holds then \"q\" holds after at most 10 time units.\n",
        &[("A", "broken"), ("B", "redundant by A")],
    );
}

#[test]
fn a_shorter_minimum_duration_is_implied_by_a_longer_one() {
    expect(
        "Input p is bool\nOutput q is bool\n\
         A: Globally, it is always the case that if \"p\" holds then \"q\" holds for at least 3 time units.\n\
         B: Globally, it is always the case that if \"p\" holds then \"q\" holds for at least 5 time units.\n",
        &[("A", "redundant by B"), ("B", "broken")],
    );
}

#[test]
fn a_requirement_alone_is_broken_by_some_run_and_a_copy_makes_both_redundant() {
    let one = "Input R is bool\nInput S is bool\n\
         A: Globally, it is always the case that once \"R\" becomes satisfied, \"S\" holds for at least 5 time units.\n";
    expect(one, &[("A", "broken")]);
    let two = format!(
        "{one}B: Globally, it is always the case that once \"R\" becomes satisfied, \"S\" holds for at least 5 time units.\n"
    );
    expect(&two, &[("A", "redundant by B"), ("B", "redundant by A")]);
}

/// Every invariant is in the first part a proof is made in, so the proof that B is
/// redundant was made with C, D and E beside A; the list names only A, the one B
/// needs (it used to name all four). E ("s or q") follows from C and D together (r
/// gives q by D, not r gives s by C), and A is not named for it.
#[test]
fn the_list_of_a_redundancy_names_only_what_it_needs() {
    expect(
        "Input p is bool\nInput q is bool\nInput r is bool\nInput s is bool\n\
         A: Globally, it is always the case that \"p\" holds.\n\
         B: Globally, it is always the case that \"p || q\" holds.\n\
         C: Globally, it is always the case that \"r || s\" holds.\n\
         D: Globally, it is always the case that \"!r || q\" holds.\n\
         E: Globally, it is always the case that \"s || q\" holds.\n",
        &[
            ("A", "broken"),
            ("B", "redundant by A"),
            ("C", "broken"),
            ("D", "broken"),
            ("E", "redundant by C,D"),
        ],
    );
}

/// A requirement implied by two others together, neither alone: both are named, and
/// the third requirement over one of their variables is not.
#[test]
fn a_redundancy_that_needs_two_requirements_names_both() {
    expect(
        "Input p is bool\nInput q is bool\nInput r is bool\n\
         A1: Globally, it is always the case that \"!p || q\" holds.\n\
         A2: Globally, it is always the case that \"p\" holds.\n\
         B: Globally, it is always the case that \"q\" holds.\n\
         C: Globally, it is always the case that \"q || r\" holds.\n",
        &[
            ("A1", "redundant by B"),
            ("A2", "broken"),
            ("B", "redundant by A1,A2"),
            ("C", "redundant by B"),
        ],
    );
}

#[test]
fn unrelated_requirements_are_not_redundant() {
    expect(
        "Input p is bool\nOutput q is bool\nOutput r is bool\n\
         A: Globally, it is always the case that if \"p\" holds then \"q\" holds after at most 5 time units.\n\
         B: Globally, it is always the case that if \"p\" holds then \"r\" holds for at least 5 time units.\n",
        &[("A", "broken"), ("B", "broken")],
    );
}

/// The proof that T is implied needs RESP, which T reaches only through `m`, a mode
/// that every filler reads too. The part the proof is made in grows by the automata
/// that a run of the smaller part breaks (RESP), not by everything sharing `m`: the
/// fillers stay out of the `by` list.
#[test]
fn a_proof_takes_the_requirements_a_run_of_its_part_breaks_not_all_that_share_a_mode() {
    let mut text = String::from(
        "Input m is bool\nOutput o is bool\nOutput z is bool\n\
         INV: Globally, it is always the case that if \"m\" holds, then \"o\" holds as well.\n\
         RESP: Globally, it is always the case that if \"m\" holds then \"!o\" holds after at most 6 time units.\n",
    );
    let mut want = vec![("INV", "broken".to_string()), ("RESP", "broken".into())];
    let fillers: Vec<String> = (0..8).map(|k| format!("F{k}")).collect();
    for (k, f) in fillers.iter().enumerate() {
        text.push_str(&format!(
            "Input i{k} is bool\nOutput o{k} is bool\n\
             {f}: Globally, it is always the case that if \"m && i{k}\" holds then \"o{k}\" holds after at most 3 time units.\n"
        ));
        want.push((f, "broken".into()));
    }
    text.push_str(
        "T: Globally, it is always the case that if \"m\" holds for at least 8 time units, then \"z\" holds afterwards.\n",
    );
    want.push(("T", "redundant by INV,RESP".into()));
    let want: Vec<(&str, &str)> = want.iter().map(|(a, b)| (*a, b.as_str())).collect();
    expect(&text, &want);
}

/// An enumeration-typed input: the proofs' Horn problem declares the enumeration (z3
/// refused the problem with "unknown sort" before, and the audit stopped with an error).
#[test]
fn a_proof_over_an_enumeration_variable_is_made() {
    let text = r#"
[spec]
name = "b"

[time]
tick = "2 s"
semantics = "dense"

[[enums]]
name = "Mode"
values = ["Off", "Idle", "Run"]

[[variables]]
name = "m"
sort = "Mode"
role = "input"

[[variables]]
name = "o"
sort = "Bool"
role = "output"

[[variables]]
name = "z"
sort = "Bool"
role = "output"

[[requirements]]
id = "INV"
text = 'Globally, it is always the case that if "m" holds, then "o" holds as well.'

[requirements.timed]
pattern = "Invariance"
R = "(= m Run)"
S = "o"

[[requirements]]
id = "RESP"
text = 'Globally, it is always the case that if "m" holds then "!o" holds after at most 6 time units.'

[requirements.timed]
pattern = "ResponseDelay"
R = "(= m Run)"
S = "(not o)"
c1 = "6 s"

[[requirements]]
id = "T"
text = 'Globally, it is always the case that if "m" holds for at least 8 time units, then "z" holds afterwards.'

[requirements.timed]
pattern = "ResponseBoundL1"
R = "(= m Run)"
S = "z"
c1 = "8 s"
"#;
    let spec = reqs::parse_spec(logic::SourceFile::new("t.toml", text.to_string()))
        .unwrap_or_else(|d| panic!("loads:\n{d}"));
    let options = DenseOptions::new(SolverConfig::new(SolverKind::Z3));
    let report = audit_dense(&spec, &options).expect("audits");
    let got = verdicts(&report);
    assert_eq!(
        got,
        [
            ("INV".to_string(), "broken".to_string()),
            ("RESP".into(), "broken".into()),
            ("T".into(), "redundant by INV,RESP".into())
        ]
    );
}
