//! Mutants as faulty implementations: a mutant that lets the alarm start one unit late
//! is revealed by the generated suite's boundary case and killed for sure there; a
//! mutant that only narrows what the spec allows can be revealed by no valid test;
//! random suites are reproducible from their seed and hold valid vectors only.

use logic::{eval_bool, SourceFile};
use rbt::kill::{kill_matrix, probes_of, random_probes, revealable, Kill};
use rbt::{generate, Options, Problem};
use solver::{SolverConfig, SolverKind};

const PUMP: &str = r#"
[[variables]]
name = "x"
sort = "Int"
min = 0
max = 100
role = "input"
[[variables]]
name = "mode"
sort = "Bool"
role = "input"
[[variables]]
name = "alarm"
sort = "Bool"
role = "output"
[[requirements]]
id = "R1"
text = "In mode, above 50 the alarm is raised."
formula = "(=> (and mode (> x 50)) alarm)"
"#;

#[test]
fn mutants_revealed_killed_and_unrevealable() {
    let p = Problem::from_spec(
        reqs::parse_spec(SourceFile::new("p.toml", PUMP)).unwrap(),
        None,
    )
    .unwrap();
    let f = |s: &str| p.spec.parse_formula("m", s).unwrap();
    let late = (0, f("(=> (and mode (> x 51)) alarm)"));
    let narrower = (0, f("(=> mode alarm)"));
    for kind in [SolverKind::Z3, SolverKind::Cvc5] {
        let config = SolverConfig::new(kind);
        let (can, unknown) = revealable(&p, &[late.clone(), narrower.clone()], &config).unwrap();
        assert_eq!((can, unknown), (vec![true, false], 0), "{kind}");
        let suite = generate(&p, &Options::new(config.clone())).unwrap();
        let probes = probes_of(&suite);
        let (m, _) = kill_matrix(&p, &probes, &[late.clone(), narrower.clone()], &config).unwrap();
        for (c, probe) in probes.iter().enumerate() {
            let x = probe
                .inputs
                .iter()
                .find(|(n, _)| &**n == "x")
                .unwrap()
                .1
                .to_string();
            let mode = probe
                .inputs
                .iter()
                .find(|(n, _)| &**n == "mode")
                .unwrap()
                .1
                .to_string();
            // Only x = 51 in mode tells the late alarm apart, and there every output of
            // the faulty implementation that differs fails.
            let expected = if x == "51" && mode == "true" {
                Kill::Revealed
            } else {
                Kill::No
            };
            assert!(
                m[0][c] == expected || (expected == Kill::Revealed && m[0][c] == Kill::Sure),
                "{kind}: x = {x}, mode = {mode}: {:?}",
                m[0][c]
            );
            assert_eq!(m[1][c], Kill::No, "{kind}");
        }
        assert!(
            m[0].iter().any(|k| *k != Kill::No),
            "{kind}: the boundary case reveals it"
        );
    }
}

#[test]
fn random_suites_are_valid_and_reproducible() {
    let p = Problem::from_spec(
        reqs::parse_spec(SourceFile::new("p.toml", PUMP)).unwrap(),
        None,
    )
    .unwrap();
    let config = SolverConfig::new(SolverKind::Z3);
    let a = random_probes(&p, 20, 7, &config).unwrap();
    let b = random_probes(&p, 20, 7, &config).unwrap();
    assert_eq!(a, b);
    assert_eq!(a.len(), 20);
    assert_ne!(a, random_probes(&p, 20, 8, &config).unwrap());
    for probe in &a {
        let r = p.spec.requirements[0].formula.as_ref().unwrap();
        assert!(eval_bool(r, &probe.state, &p.spec.context).unwrap());
    }
}
