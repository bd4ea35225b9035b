//! The read-back of formulas (`pipeline::readback`): golden sentences for every formula
//! of the shipped specs, and properties over random well-sorted terms.

use logic::testgen::Gen;
use logic::{Op, Sort, SourceFile, Term};
use pipeline::readback::sentence;
use proptest::prelude::*;
use std::fmt::Write as _;

fn example(path: &str) -> reqs::Spec {
    let full = format!("{}/../../examples/{path}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&full).unwrap();
    reqs::parse_spec(SourceFile::new(path, text)).unwrap()
}

/// Every written formula of a spec (domain constraints with an id of their own, and
/// requirements) with its sentence.
fn golden(path: &str) -> String {
    let spec = example(path);
    let mut out = String::new();
    for d in spec.domain.iter().filter(|d| d.line > 0) {
        let _ = writeln!(
            out,
            "{}: {}\n  reads: {}\n",
            d.id,
            logic::print::term(&d.formula),
            sentence(&spec, &d.formula)
        );
    }
    for r in &spec.requirements {
        let Some(f) = &r.formula else { continue };
        let _ = writeln!(
            out,
            "{}: {}\n  text:  {}\n  reads: {}\n",
            r.id,
            logic::print::term(f),
            r.text,
            sentence(&spec, f)
        );
    }
    out
}

#[test]
fn hemodialysis_reads_back() {
    insta::assert_snapshot!(
        "readback_hemodialysis",
        golden("hemodialysis/hemodialysis.toml")
    );
}

#[test]
fn labeled_sets_read_back() {
    for set in ["hemodialysis", "lights", "pump", "req-pair"] {
        insta::assert_snapshot!(
            format!("readback_labeled_{set}"),
            golden(&format!("labeled/{set}.toml"))
        );
    }
}

/// A spec over the schema of `logic::testgen` (no descriptions: names are read).
fn testgen_spec() -> reqs::Spec {
    let text = "[spec]\nname = \"testgen\"\n\
        [[enums]]\nname = \"Color\"\nvalues = [\"Red\", \"Green\", \"Blue\"]\n\
        [[variables]]\nname = \"x\"\nsort = \"Int\"\n\
        [[variables]]\nname = \"y\"\nsort = \"Int\"\n\
        [[variables]]\nname = \"z\"\nsort = \"Int\"\n\
        [[variables]]\nname = \"a\"\nsort = \"Real\"\nunit = \"V\"\n\
        [[variables]]\nname = \"b\"\nsort = \"Real\"\nunit = \"V\"\n\
        [[variables]]\nname = \"p\"\nsort = \"Bool\"\n\
        [[variables]]\nname = \"q\"\nsort = \"Bool\"\ndescription = \"the door is open\"\n\
        [[variables]]\nname = \"c\"\nsort = \"Color\"\n";
    reqs::parse_spec(SourceFile::new("testgen.toml", text)).unwrap()
}

/// Every subterm with its path (child indices; a `let` counts its bound values, then
/// its body).
fn subterms(t: &Term, path: &mut Vec<usize>, out: &mut Vec<(Vec<usize>, Term)>) {
    out.push((path.clone(), t.clone()));
    let children: Vec<&Term> = match t {
        Term::App(_, args) | Term::Call(_, args, _) => args.iter().collect(),
        Term::Let(binds, body) => binds
            .iter()
            .map(|(_, v)| v)
            .chain(std::iter::once(&**body))
            .collect(),
        Term::Named(inner, _) => vec![&**inner],
        _ => vec![],
    };
    for (i, c) in children.into_iter().enumerate() {
        path.push(i);
        subterms(c, path, out);
        path.pop();
    }
}

fn replace(t: &Term, path: &[usize], new: &Term) -> Term {
    let Some((&i, rest)) = path.split_first() else {
        return new.clone();
    };
    match t {
        Term::App(op, args) => {
            let mut args = args.clone();
            args[i] = replace(&args[i], rest, new);
            Term::App(*op, args)
        }
        Term::Call(f, args, s) => {
            let mut args = args.clone();
            args[i] = replace(&args[i], rest, new);
            Term::Call(f.clone(), args, s.clone())
        }
        Term::Let(binds, body) => {
            let mut binds = binds.clone();
            if i < binds.len() {
                binds[i].1 = replace(&binds[i].1, rest, new);
                Term::Let(binds, body.clone())
            } else {
                Term::Let(binds, Box::new(replace(body, rest, new)))
            }
        }
        Term::Named(inner, n) => Term::Named(Box::new(replace(inner, rest, new)), n.clone()),
        other => other.clone(),
    }
}

const ORDER: [Op; 4] = [Op::Lt, Op::Le, Op::Gt, Op::Ge];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    #[test]
    fn every_formula_reads_as_a_sentence(seed in any::<u64>(), depth in 0usize..6) {
        let spec = testgen_spec();
        let t = Gen::new(seed).term(&Sort::Bool, depth);
        let s = sentence(&spec, &t);
        prop_assert!(!s.trim().is_empty(), "{}", logic::print::term(&t));
        prop_assert!(s.ends_with('.'), "{s}");
    }

    #[test]
    fn another_comparison_reads_differently(seed in any::<u64>(), depth in 1usize..6, pick in any::<usize>(), other in 1usize..4) {
        let spec = testgen_spec();
        let mut g = Gen::new(seed);
        let mut t = g.term(&Sort::Bool, depth);
        let is_comparison = |s: &Term| matches!(s, Term::App(op, _) if ORDER.contains(op) || *op == Op::Eq || *op == Op::Distinct);
        let mut all = Vec::new();
        subterms(&t, &mut Vec::new(), &mut all);
        if !all.iter().any(|(_, s)| is_comparison(s)) {
            // Give the term a comparison of its own to change.
            let sort = if seed % 2 == 0 { Sort::Int } else { Sort::Real };
            let (l, r) = (g.term(&sort, depth - 1), g.term(&sort, depth - 1));
            t = Term::App(Op::And, vec![t, Term::App(ORDER[seed as usize % 4], vec![l, r])]);
            all.clear();
            subterms(&t, &mut Vec::new(), &mut all);
        }
        let comparisons: Vec<&(Vec<usize>, Term)> =
            all.iter().filter(|(_, s)| is_comparison(s)).collect();
        let (path, sub) = comparisons[pick % comparisons.len()];
        let Term::App(op, args) = sub else { unreachable!() };
        let new_op = match op {
            Op::Eq => Op::Distinct,
            Op::Distinct => Op::Eq,
            o => ORDER[(ORDER.iter().position(|x| x == o).unwrap() + other) % 4],
        };
        let mutated = replace(&t, path, &Term::App(new_op, args.clone()));
        let (a, b) = (sentence(&spec, &t), sentence(&spec, &mutated));
        prop_assert_ne!(&a, &b, "{} vs {}", logic::print::term(&t), logic::print::term(&mutated));
    }

    #[test]
    fn a_negation_reads_differently(seed in any::<u64>(), depth in 0usize..6, pick in any::<usize>()) {
        let spec = testgen_spec();
        let t = Gen::new(seed).term(&Sort::Bool, depth);
        let mut all = Vec::new();
        subterms(&t, &mut Vec::new(), &mut all);
        let booleans: Vec<&(Vec<usize>, Term)> =
            all.iter().filter(|(_, s)| s.sort() == Sort::Bool).collect();
        let (path, sub) = booleans[pick % booleans.len()];
        let mutated = replace(&t, path, &Term::not(sub.clone()));
        let (a, b) = (sentence(&spec, &t), sentence(&spec, &mutated));
        prop_assert_ne!(&a, &b, "{} vs {}", logic::print::term(&t), logic::print::term(&mutated));
    }
}
