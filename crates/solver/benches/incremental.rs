//! Incremental queries through one z3 process versus a fresh process per query.
//!
//! `cargo bench -p solver --bench incremental` runs 10,000 queries each way. Fresh
//! processes are slow; reduce their number with `VERA_BENCH_FRESH=1000` (or
//! `--fresh 1000`), and the incremental count with `VERA_BENCH_QUERIES` (`--queries`).

use logic::{Op, Sort, Term};
use solver::{Outcome, Solver, SolverConfig, SolverKind};
use std::time::Instant;

/// A small xorshift generator, so runs are reproducible without dependencies.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
}

const VARS: [&str; 3] = ["x", "y", "z"];

/// A random conjunction of two linear constraints over x, y, z within bounds.
fn constraint(rng: &mut Rng) -> Term {
    let mut parts = Vec::new();
    for _ in 0..2 {
        let sum = Term::app(
            Op::Add,
            VARS.iter()
                .map(|v| {
                    Term::app(
                        Op::Mul,
                        vec![Term::int(rng.range(-5, 5)), Term::var(v, Sort::Int)],
                    )
                })
                .collect(),
        );
        let op = [Op::Le, Op::Ge, Op::Eq][rng.range(0, 2) as usize];
        parts.push(Term::app(op, vec![sum, Term::int(rng.range(-20, 20))]));
    }
    for v in VARS {
        parts.push(Term::app(
            Op::Le,
            vec![Term::int(-10), Term::var(v, Sort::Int), Term::int(10)],
        ));
    }
    Term::app(Op::And, parts)
}

fn count(name: &str, args: &[String], default: usize) -> usize {
    let flag = format!("--{name}");
    let env = format!("VERA_BENCH_{}", name.to_ascii_uppercase());
    args.windows(2)
        .find(|w| w[0] == flag)
        .map(|w| w[1].clone())
        .or_else(|| std::env::var(&env).ok())
        .map(|s| {
            s.parse()
                .unwrap_or_else(|_| panic!("{flag}/{env}: not a number"))
        })
        .unwrap_or(default)
}

fn declare(s: &mut Solver) {
    for v in VARS {
        s.declare_const(v, Sort::Int).expect("declare");
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let queries = count("queries", &args, 10_000);
    let fresh = count("fresh", &args, 10_000);
    let config = SolverConfig::new(SolverKind::Z3);
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let problems: Vec<Term> = (0..queries.max(fresh))
        .map(|_| constraint(&mut rng))
        .collect();

    let mut s = Solver::start(&config).expect("z3 starts");
    println!(
        "z3 {} at {}; {queries} incremental queries, {fresh} fresh-process queries",
        s.version(),
        s.program().display()
    );
    declare(&mut s);
    s.declare_const("p", Sort::Bool).expect("declare p");
    let p = Term::var("p", Sort::Bool);
    let mut answers = Vec::with_capacity(queries);
    let t = Instant::now();
    for c in &problems[..queries] {
        s.push().expect("push");
        s.assert(&Term::app(Op::Implies, vec![p.clone(), c.clone()]))
            .expect("assert");
        let o = s.check_assuming(std::slice::from_ref(&p)).expect("check");
        answers.push(o.status());
        s.pop().expect("pop");
    }
    let inc = t.elapsed();
    let inc_qps = queries as f64 / inc.as_secs_f64();
    let sat = answers.iter().filter(|a| **a == "sat").count();
    println!(
        "incremental: {queries} queries in {:.2} s = {inc_qps:.0} queries/s ({sat} sat, {} unsat)",
        inc.as_secs_f64(),
        answers.iter().filter(|a| **a == "unsat").count()
    );

    let t = Instant::now();
    let mut disagree = 0;
    for (i, c) in problems[..fresh].iter().enumerate() {
        let mut s = Solver::start(&config).expect("z3 starts");
        declare(&mut s);
        s.assert(c).expect("assert");
        let o = s.check().expect("check");
        if i < answers.len() && o.status() != answers[i] {
            disagree += 1;
        }
        if let Outcome::Unknown(r) = o {
            eprintln!("query {i}: unknown ({r})");
        }
    }
    let fr = t.elapsed();
    let fresh_qps = fresh as f64 / fr.as_secs_f64();
    println!(
        "fresh process: {fresh} queries in {:.2} s = {fresh_qps:.0} queries/s",
        fr.as_secs_f64()
    );
    println!("ratio: incremental is {:.1}x faster", inc_qps / fresh_qps);
    assert_eq!(disagree, 0, "incremental and fresh answers disagree");
}
