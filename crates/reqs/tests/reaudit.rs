//! Re-auditing with the cache of an earlier audit: an unchanged spec reuses every
//! check; an edit re-asks only what it can change, and the report is the one a fresh
//! audit gives (the same verdict for every check, witnesses that break their
//! requirements); a cache that does not fit is ignored. Against z3 and cvc5.

use logic::SourceFile;
use reqs::audit::{Consistency, Redundancy, RequirementAudit, Vacuity, Violatability};
use reqs::{audit, AuditOptions, AuditReport, Spec};
use solver::{SolverConfig, SolverKind};
use std::path::{Path, PathBuf};

/// A fresh folder under the system's temporary folder, removed on drop.
struct Folder(PathBuf);

impl Folder {
    fn new(name: &str) -> Folder {
        let p = std::env::temp_dir().join(format!("vera-reaudit-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Folder(p)
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn spec(text: &str) -> Spec {
    // The same file name each time: the cache is kept per spec file.
    reqs::parse_spec(SourceFile::new("connected.toml", text)).unwrap_or_else(|d| panic!("{d}"))
}

fn run(spec: &Spec, kind: SolverKind, cache: Option<&Path>) -> AuditReport {
    let mut o = AuditOptions::new(SolverConfig::new(kind));
    o.jobs = 2;
    o.cache_dir = cache.map(Path::to_path_buf);
    let r = audit(spec, &o).unwrap_or_else(|e| panic!("{kind}: {e}"));
    assert_eq!(r.cache_error, None);
    r
}

/// A check's verdict without its evidence.
fn verdicts(a: &RequirementAudit) -> String {
    let v = |x: &Vacuity| match x {
        Vacuity::Vacuous {
            response_conflict, ..
        } => format!("vacuous({response_conflict})"),
        other => format!("{other:?}"),
    };
    let viol = match &a.violatability {
        Violatability::Violatable { .. } => "violatable".to_string(),
        Violatability::ImpliedByDomain { .. } => "implied".into(),
        other => format!("{other:?}"),
    };
    let red = match &a.redundancy {
        Redundancy::NotRedundant { .. } => "not redundant".to_string(),
        Redundancy::Redundant { .. } => "redundant".into(),
        other => format!("{other:?}"),
    };
    format!(
        "{} {} {} {viol} {red}",
        a.id,
        v(&a.vacuity_domain),
        v(&a.vacuity_model)
    )
}

fn assert_same_verdicts(kind: SolverKind, a: &AuditReport, b: &AuditReport) {
    assert_eq!(a.consistency, b.consistency, "{kind}");
    assert_eq!(
        format!("{:?}", a.realizability).split(' ').next(),
        format!("{:?}", b.realizability).split(' ').next(),
        "{kind}"
    );
    let va: Vec<String> = a.requirements.iter().map(verdicts).collect();
    let vb: Vec<String> = b.requirements.iter().map(verdicts).collect();
    assert_eq!(va, vb, "{kind}");
}

/// Every witness in the report breaks its requirement.
fn witnesses_break(spec: &Spec, r: &AuditReport) {
    for a in &r.requirements {
        let req = spec.requirements.iter().find(|q| q.id == a.id).unwrap();
        let f = req.formula.as_ref().unwrap();
        for w in [
            match &a.violatability {
                Violatability::Violatable { witness } => Some(witness),
                _ => None,
            },
            match &a.redundancy {
                Redundancy::NotRedundant { witness } => Some(witness),
                _ => None,
            },
        ]
        .into_iter()
        .flatten()
        {
            let mut m = logic::Model::new();
            for x in w {
                let v = spec.variable(&x.variable).unwrap();
                let val = match x.value.as_str() {
                    "true" => logic::Value::Bool(true),
                    "false" => logic::Value::Bool(false),
                    s => match &v.sort {
                        logic::Sort::Enum(e) => logic::Value::Enum(e.clone(), s.into()),
                        _ => {
                            let r: num_like::Rat = s.parse().unwrap();
                            logic::Value::Real(r.0)
                        }
                    },
                };
                m.insert(v.name.clone(), val);
            }
            assert!(
                !logic::eval_bool(f, &m, &spec.context).unwrap(),
                "{}: {w:?}",
                a.id
            );
        }
    }
}

mod num_like {
    /// A rational written for people (`-3`, `2.5`, `1/3`).
    pub struct Rat(pub num_rational::BigRational);

    impl std::str::FromStr for Rat {
        type Err = String;
        fn from_str(s: &str) -> Result<Rat, String> {
            let (neg, body) = s.strip_prefix('-').map_or((false, s), |b| (true, b));
            let r = if let Some((n, d)) = body.split_once('/') {
                num_rational::BigRational::new(
                    n.parse().map_err(|_| s.to_string())?,
                    d.parse().map_err(|_| s.to_string())?,
                )
            } else if let Some((i, f)) = body.split_once('.') {
                let den = num_bigint::BigInt::from(10u32).pow(f.len() as u32);
                let num: num_bigint::BigInt =
                    format!("{i}{f}").parse().map_err(|_| s.to_string())?;
                num_rational::BigRational::new(num, den)
            } else {
                num_rational::BigRational::from_integer(body.parse().map_err(|_| s.to_string())?)
            };
            Ok(Rat(if neg { -r } else { r }))
        }
    }
}

#[test]
fn an_unchanged_spec_reuses_every_check() {
    for kind in [SolverKind::Z3, SolverKind::Cvc5] {
        let dir = Folder::new(&format!("same-{kind}"));
        let s = spec(&reqs::generate::connected_spec_text(120));
        let first = run(&s, kind, Some(&dir.0));
        assert_eq!(first.reused, 0, "{kind}");
        let again = run(&s, kind, Some(&dir.0));
        assert_eq!(again.reused, again.checks, "{kind}: everything reused");
        assert_eq!(again.checks, first.checks, "{kind}");
        assert_eq!(again.queries, 0, "{kind}: no solver query at all");
        assert_eq!(again.requirements, first.requirements, "{kind}");
        assert_eq!(again.consistency, first.consistency, "{kind}");
    }
}

#[test]
fn an_edit_reasks_only_what_it_can_change() {
    for kind in [SolverKind::Z3, SolverKind::Cvc5] {
        let dir = Folder::new(&format!("edit-{kind}"));
        let text = reqs::generate::connected_spec_text(160);
        let first = run(&spec(&text), kind, Some(&dir.0));
        // Three edits in a row: a threshold, a new requirement that makes another
        // redundant, and a removed one.
        let alm = text
            .lines()
            .find(|l| l.starts_with("formula = \"(=> (and (= phase") && l.contains("(> p3 "))
            .unwrap()
            .to_string();
        // The threshold 15 kPa higher.
        let at = alm.find("(> p3 ").unwrap() + "(> p3 ".len();
        let len = alm[at..].find(')').unwrap();
        let c: i64 = alm[at..at + len].parse().unwrap();
        let moved = format!("{}{}{}", &alm[..at], c + 15, &alm[at + len..]);
        let edited = text.replacen(&alm, &moved, 1);
        let dup = format!(
            "{edited}\n[[requirements]]\nid = \"NEW-1\"\ntext = \"copy\"\nformula = \"{}\"\n",
            alm.trim_start_matches("formula = \"").trim_end_matches('"')
        );
        let removed = {
            let start = dup.find("[[requirements]]\nid = \"LOCK-12\"").unwrap();
            let end = start + dup[start..].find("\n\n").unwrap_or(dup.len() - start);
            format!("{}{}", &dup[..start], &dup[end..])
        };
        let mut previous_checks = first.checks;
        for text in [edited, dup, removed] {
            let s = spec(&text);
            let cached = run(&s, kind, Some(&dir.0));
            let fresh = run(&s, kind, None);
            assert_same_verdicts(kind, &cached, &fresh);
            witnesses_break(&s, &cached);
            assert!(cached.reused > 0, "{kind}: something reused");
            assert!(
                cached.reused * 10 >= cached.checks * 8,
                "{kind}: most checks reused ({} of {})",
                cached.reused,
                cached.checks
            );
            assert!(cached.queries < fresh.queries, "{kind}");
            assert!(cached.checks + 8 >= previous_checks);
            previous_checks = cached.checks;
        }
    }
}

#[test]
fn a_cache_that_does_not_fit_is_ignored() {
    let kind = SolverKind::Z3;
    let dir = Folder::new("garbage");
    let s = spec(&reqs::generate::connected_spec_text(60));
    let first = run(&s, kind, Some(&dir.0));
    for f in std::fs::read_dir(&dir.0).unwrap() {
        let path = f.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        // Cut in the middle of a line, and a line that makes no sense.
        std::fs::write(&path, format!("{}\nR\tnonsense\n", &text[..text.len() / 2])).unwrap();
    }
    let again = run(&s, kind, Some(&dir.0));
    assert_eq!(again.reused, 0);
    assert_same_verdicts(kind, &first, &again);
    // The broken file was replaced by a good one.
    let third = run(&s, kind, Some(&dir.0));
    assert_eq!(third.reused, third.checks);
    // Another solver does not take z3's results.
    let cvc5 = run(&s, SolverKind::Cvc5, Some(&dir.0));
    assert_eq!(cvc5.reused, 0);
    assert!(matches!(cvc5.consistency, Consistency::Consistent));
}
