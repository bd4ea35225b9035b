//! Ultimate's requirement-analysis regression files (copied unchanged into
//! crates/extract/tests/data/ultimate-req with their license), imported with vera's
//! `.req` importer *in discrete time* and audited on traces, against the results
//! Ultimate expects (each file's first line). Where vera's discrete reading gives a
//! different answer, the case is listed in `EXPLAINED` with the reason. The default,
//! dense-time import agrees with every file (tests/dense_conformance.rs); this test
//! keeps the discrete reading's differences documented.

use reqs::audit::Vacuity;
use reqs::timed::audit::{audit_timed, RtInconsistency, TimedConsistency, TimedOptions};
use reqs::AuditOptions;
use solver::{SolverConfig, SolverKind};
use std::collections::BTreeSet;
use std::path::Path;

fn files() -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../extract/tests/data/ultimate-req");
    let mut out = Vec::new();
    for sub in [dir.clone(), dir.join("parsing")] {
        for e in std::fs::read_dir(&sub).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "req") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// vera's answer in Ultimate's terms: rt-inconsistent sets, vacuous requirements,
/// inconsistent requirements.
#[derive(Debug, PartialEq, Eq)]
struct Answer {
    rt: BTreeSet<BTreeSet<String>>,
    vacuous: BTreeSet<String>,
    inconsistent: BTreeSet<String>,
}

fn run(path: &Path, kind: SolverKind) -> Option<(Answer, Answer)> {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let discrete = |tick: Option<&str>| {
        extract::req_to_spec_with(
            &name,
            &text,
            &extract::ReqOptions {
                tick,
                semantics: extract::ReqSemantics::Discrete,
            },
        )
    };
    let first = discrete(None).ok()?;
    // Ultimate's time units are read as seconds; the tick is their greatest common
    // divisor, so a 1000-unit duration is not 1000 steps.
    let tick = gcd_of_durations(&first.toml);
    if std::env::var("SHOW_TICK").is_ok() {
        eprintln!("{name}: tick {tick}");
    }
    let imported = discrete(Some(&format!("{tick} s"))).ok()?;
    let expected = imported.expected.clone()?;
    let mut spec = reqs::parse_spec(logic::SourceFile::new(&name, imported.toml.clone()))
        .unwrap_or_else(|d| panic!("{name}: the imported spec does not load:\n{d}"));
    // Ultimate's rt-inconsistency asks whether some next state exists, whoever
    // chooses it: compared with vera's rt-inconsistency, not with the environment's
    // dead ends (with every variable an input, each requirement alone would be one).
    for v in &mut spec.variables {
        v.role = None;
    }
    let mut a = AuditOptions::new(SolverConfig::new(kind));
    a.jobs = 1;
    a.max_conflicts = 10;
    let o = TimedOptions {
        audit: a,
        horizon: None,
        rt_horizon: None,
        no_rt: false,
    };
    let r = audit_timed(&spec, &o).unwrap_or_else(|e| panic!("{name} ({kind}): {e}"));
    let set = |v: &[String]| v.iter().cloned().collect::<BTreeSet<_>>();
    let mut rt = BTreeSet::new();
    for x in [&r.rt_inconsistency] {
        match x {
            RtInconsistency::Found { conflicts, .. } => {
                rt.extend(conflicts.iter().map(|c| set(&c.requirements)))
            }
            RtInconsistency::Unknown { reason } => panic!("{name}: rt undecided: {reason}"),
            _ => {}
        }
    }
    let inconsistent = match &r.consistency {
        TimedConsistency::Inconsistent { conflicts, .. } => {
            conflicts.iter().flatten().cloned().collect()
        }
        TimedConsistency::Unknown { reason } => panic!("{name}: undecided: {reason}"),
        _ => BTreeSet::new(),
    };
    let vacuous = r
        .requirements
        .iter()
        .filter(|a| {
            matches!(a.vacuity, Vacuity::Vacuous { .. })
                || matches!(a.vacuity_domain, Vacuity::Vacuous { .. })
        })
        .map(|a| a.id.clone())
        .collect();
    let vera = Answer {
        rt,
        vacuous,
        inconsistent,
    };
    let ultimate = Answer {
        rt: expected.rt_inconsistent.iter().map(|s| set(s)).collect(),
        vacuous: set(&expected.vacuous),
        inconsistent: set(&expected.inconsistent),
    };
    Some((vera, ultimate))
}

/// The greatest common divisor of the whole-second durations `"<n> s"` in a spec.
fn gcd_of_durations(toml: &str) -> u64 {
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    let mut g = 0;
    let body: String = toml
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("tick"))
        .collect::<Vec<_>>()
        .join("\n");
    for part in body.split('"') {
        if let Some(n) = part.strip_suffix(" s") {
            if let Ok(n) = n.trim().parse::<u64>() {
                if n > 0 {
                    g = gcd(g, n);
                }
            }
        }
    }
    g.max(1)
}

/// The files where vera's answer differs from Ultimate's expectation, and why.
const EXPLAINED: &[(&str, &str)] = &[
    ("bug-465-ex02.req", "vera names both requirements of the minimal set: req1's obligation cannot be met because of the invariant req2 (never a); Ultimate labels only req1"),
    ("bug-465-ex03.req", "no dead end when every variable may be chosen at the next step (x can turn false, releasing a); Ultimate's label req1 needs the environment to keep x true, and its own comment says which requirement to blame is the question"),
    ("bug-523-ex03.req", "off by one tick: 'S holds afterwards' is read at the step where R has held for d, so R3 (then !a) forbids a from ever holding for d and R1 cannot fire; in dense time the phase may last exactly d"),
    ("bug-523_ex02.req", "the same reading of 'holds afterwards' as bug-523-ex03"),
    ("ex-rtinconsistent-I454.req", "req1 can never be met after 50 time units on any run, so vera reports no run at all (inconsistent), the stronger verdict; Ultimate labels it rt-inconsistent"),
    ("ex-rtinconsistent-transitive-2.req", "the minimal set needs all four requirements (req3 and req4 carry C to E); Ultimate blames the pair req1, req2"),
    ("ex-rtinconsistent-transitive.req", "the minimal set needs all four requirements (req3 and req4 carry C to E); Ultimate blames the pair req1, req2"),
];

fn show(a: &Answer) -> String {
    let sets: Vec<String> =
        a.rt.iter()
            .map(|s| s.iter().cloned().collect::<Vec<_>>().join("+"))
            .collect();
    let list = |v: &BTreeSet<String>| v.iter().cloned().collect::<Vec<_>>().join(",");
    format!(
        "rt-inconsistent:{}; vacuous:{}; inconsistent:{}",
        sets.join(","),
        list(&a.vacuous),
        list(&a.inconsistent)
    )
}

/// Every copied file: imported or refused, and vera's answer against Ultimate's. The
/// table is a golden file (`INSTA_UPDATE=always` to bless a change).
#[test]
fn ultimate_regression_files() {
    let mut rows = Vec::new();
    let (mut same, mut diff, mut refused) = (0, 0, 0);
    for p in files() {
        let rel = p
            .strip_prefix(
                Path::new(env!("CARGO_MANIFEST_DIR")).join("../extract/tests/data/ultimate-req"),
            )
            .unwrap()
            .display()
            .to_string();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        match run(&p, SolverKind::Z3) {
            None => {
                refused += 1;
                rows.push(format!(
                    "{rel}: not imported (a pattern vera's timed format has no counterpart for)"
                ));
            }
            Some((v, u)) if v == u => {
                same += 1;
                rows.push(format!("{rel}: same: {}", show(&v)));
            }
            Some((v, u)) => {
                diff += 1;
                let why = EXPLAINED
                    .iter()
                    .find(|(f, _)| *f == name)
                    .map(|(_, w)| *w)
                    .unwrap_or_else(|| {
                        panic!(
                            "{rel}: vera {} but Ultimate expects {}, and no reason is recorded",
                            show(&v),
                            show(&u)
                        )
                    });
                rows.push(format!(
                    "{rel}: differs\n  vera:     {}\n  ultimate: {}\n  why: {why}",
                    show(&v),
                    show(&u)
                ));
            }
        }
    }
    let stale: Vec<&str> = EXPLAINED
        .iter()
        .map(|(f, _)| *f)
        .filter(|f| !rows.iter().any(|r| r.contains(f) && r.contains("differs")))
        .collect();
    assert!(
        stale.is_empty(),
        "explained as differences but no longer different: {stale:?}"
    );
    rows.push(format!(
        "{same} same, {diff} different (explained), {refused} not imported"
    ));
    insta::assert_snapshot!(rows.join("\n"));
}

/// The rt-inconsistency examples answer the same with cvc5 as with z3.
#[test]
fn cvc5_agrees_on_the_rt_examples() {
    for p in files()
        .iter()
        .filter(|p| p.to_string_lossy().contains("ex-rtinconsistent"))
    {
        let z = run(p, SolverKind::Z3).map(|(v, _)| v);
        let c = run(p, SolverKind::Cvc5).map(|(v, _)| v);
        assert_eq!(z, c, "{}", p.display());
    }
}
