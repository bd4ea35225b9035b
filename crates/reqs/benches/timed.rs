//! Timed requirements on a generated spec ([`reqs::generate::timed_spec`]): the size of
//! the unrolled encoding and the time to unroll at two horizons (the encoding is meant
//! to grow linearly with the horizon k), the consistency check of the unrolled spec
//! with z3, and the full audit on traces (`audit_timed`, without the rt check).
//!
//! `cargo bench -p reqs --bench timed`. Environment:
//! - VERA_BENCH_TIMED_N=200 (timed requirements), VERA_BENCH_TIMED_SEED=1;
//! - VERA_BENCH_TIMED_HORIZONS=50,500;
//! - VERA_BENCH_TIMED_CHECK_LIMIT=180: seconds allowed to each consistency check (one
//!   that runs out is printed as `>` the limit);
//! - VERA_BENCH_TIMED_AUDIT=50:50:10,10:50:120: full audits, each `N:K:T` on the
//!   generated spec of N requirements at horizon K with T seconds per solver query
//!   (empty: none);
//! - VERA_BENCH_JOBS=2;
//! - VERA_BENCH_TIMED_SPEC=PATH: measure the horizons on that spec instead;
//! - VERA_BENCH_TIMED_TRANSCRIPT=PREFIX: write each consistency check's session to
//!   PREFIX-<k>.smt2;
//! - VERA_BENCH_TIMED_WRITE=N:PATH: write the generated spec of N requirements and stop.

use logic::SourceFile;
use reqs::audit::Vacuity;
use reqs::timed::audit::{
    audit_timed, TimedConsistency, TimedOptions, TimedRedundancy, TimedViolatability,
};
use reqs::timed::unroll::unroll;
use reqs::{AuditOptions, Spec};
use solver::{Outcome, Solver, SolverConfig, SolverKind};
use std::time::{Duration, Instant};

/// The full audits run by default. On the 200-requirement spec at k = 50 the audit is
/// far beyond this benchmark's few minutes (its consistency check alone takes 1.5 to 2
/// minutes, and it asks about a thousand queries); on 50 requirements with a 120 s
/// limit per query it did not finish in 25 minutes. So: 50 requirements with vera's
/// default limit of 10 s per query (what `vera audit` does), and 10 requirements with
/// a limit high enough that every check is answered.
const AUDITS: &str = "50:50:10,10:50:120";

fn env_or(var: &str, default: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| default.into())
}

fn generated(n: usize, seed: u64) -> Spec {
    let text = reqs::generate::timed_spec(n, seed);
    let s = reqs::parse_spec(SourceFile::new(format!("timed-{n}.toml"), text))
        .unwrap_or_else(|d| panic!("the generated spec loads: {d}"));
    assert!(s.time.is_some(), "a timed spec");
    assert!(
        s.requirements.iter().all(|r| r.timed.is_some()),
        "every requirement timed"
    );
    s
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

/// One horizon's figures.
struct Row {
    k: usize,
    variables: usize,
    nodes: usize,
    unroll_secs: f64,
    load_secs: f64,
    check_secs: f64,
    /// False when the check ran out of time (or gave no answer).
    answered: bool,
}

/// Unrolls to `k` (the best of a few runs for the time), measures the encoding, and
/// checks the unrolled spec's consistency in one query.
fn horizon(spec: &Spec, k: usize, limit: f64) -> Row {
    let reps = if k <= 100 { 5 } else { 3 };
    let mut unroll_secs = f64::INFINITY;
    let mut u = None;
    for _ in 0..reps {
        let start = Instant::now();
        let x = unroll(spec, k);
        unroll_secs = unroll_secs.min(start.elapsed().as_secs_f64());
        u = Some(x);
    }
    let u = u.expect("unrolled");
    let plain = &u.spec;
    let nodes = plain.domain.iter().map(|d| d.formula.size()).sum::<usize>()
        + plain
            .requirements
            .iter()
            .filter_map(|r| r.formula.as_ref())
            .map(|f| f.size())
            .sum::<usize>();

    // The consistency check as the tests' `satisfiable` asks it: every domain
    // constraint and requirement under its literal, one check assuming them all.
    let mut config = SolverConfig::new(SolverKind::Z3);
    config.timeout = Duration::from_secs_f64(limit);
    if let Ok(t) = std::env::var("VERA_BENCH_TIMED_TRANSCRIPT") {
        config.transcript = Some(format!("{t}-{k}.smt2").into());
        config.transcript_force = true;
    }
    let start = Instant::now();
    let mut s = Solver::start(&config).expect("z3 starts");
    let lits = reqs::audit::load_into(&mut s, plain).expect("the unrolled spec loads");
    let load_secs = start.elapsed().as_secs_f64();
    eprintln!(
        "k = {k}: unrolled in {unroll_secs:.3} s, loaded into z3 in {load_secs:.2} s; checking (limit {limit} s, load {})",
        load_average()
    );
    let mut all = lits.domain().to_vec();
    all.extend(lits.reqs_except(None));
    let start = Instant::now();
    let outcome = s.check_assuming(&all);
    let check_secs = start.elapsed().as_secs_f64();
    let answered = match outcome {
        Ok(Outcome::Sat(_)) => true,
        Ok(Outcome::Unsat(_)) => panic!("k = {k}: the spec is inconsistent"),
        Ok(Outcome::Unknown(r)) => {
            eprintln!("k = {k}: no answer after {check_secs:.1} s: {r}");
            false
        }
        Err(e) => {
            eprintln!("k = {k}: no answer after {check_secs:.1} s: {e}");
            false
        }
    };
    Row {
        k,
        variables: plain.variables.len(),
        nodes,
        unroll_secs,
        load_secs,
        check_secs,
        answered,
    }
}

fn table(rows: &[Row]) {
    println!(
        "\n{:>5} | {:>9} {:>7} | {:>9} {:>8} | {:>8} {:>9} | {:>7} {:>9} {:>10}",
        "k",
        "variables",
        "/step",
        "nodes",
        "/step",
        "unroll s",
        "ms/step",
        "z3 load",
        "check s",
        "check s/st"
    );
    println!("{}", "-".repeat(104));
    for r in rows {
        // Steps 0 ..= k: k + 1 copies of the state.
        let steps = (r.k + 1) as f64;
        let more = if r.answered { " " } else { ">" };
        println!(
            "{:>5} | {:>9} {:>7.1} | {:>9} {:>8.1} | {:>8.3} {:>9.3} | {:>7.2} {more}{:>8.1} {more}{:>9.3}",
            r.k,
            r.variables,
            r.variables as f64 / steps,
            r.nodes,
            r.nodes as f64 / steps,
            r.unroll_secs,
            1000.0 * r.unroll_secs / steps,
            r.load_secs,
            r.check_secs,
            r.check_secs / steps,
        );
    }
    println!(
        "per step: divided by the k + 1 states; nodes: Term::size() summed over the domain constraints (monitors included) and requirement formulas; z3 load: declaring and asserting the unrolled spec; check: one check-sat-assuming over every literal ('>': ran out of time)"
    );
    if let [a, b, ..] = rows {
        let ratio = |x: f64, y: f64| y / x;
        println!(
            "\nk = {} -> {}: steps x{:.2}; size x{:.2} (nodes), x{:.2} (variables); unroll time x{:.1}; z3 check {}x{:.1}",
            a.k,
            b.k,
            ratio((a.k + 1) as f64, (b.k + 1) as f64),
            ratio(a.nodes as f64, b.nodes as f64),
            ratio(a.variables as f64, b.variables as f64),
            ratio(a.unroll_secs, b.unroll_secs),
            if b.answered && a.answered { "" } else { ">" },
            ratio(a.check_secs, b.check_secs),
        );
    }
}

/// The full audit on traces of the generated spec of `n` requirements at horizon `k`,
/// `timeout` seconds per solver query.
fn full_audit(n: usize, k: usize, timeout: f64, seed: u64, jobs: usize) {
    let spec = generated(n, seed);
    let mut a = AuditOptions::new(SolverConfig::new(SolverKind::Z3));
    a.jobs = jobs;
    a.solver.timeout = Duration::from_secs_f64(timeout);
    let o = TimedOptions {
        audit: a,
        horizon: Some(k),
        rt_horizon: None,
        no_rt: true,
    };
    let start = Instant::now();
    let r = audit_timed(&spec, &o).expect("the audit runs");
    let secs = start.elapsed().as_secs_f64();
    let consistency = match &r.consistency {
        TimedConsistency::Consistent { infinite: true, .. } => "consistent (looping witness)",
        TimedConsistency::Consistent { .. } => "consistent (finite witness)",
        TimedConsistency::Inconsistent { .. } => "INCONSISTENT",
        TimedConsistency::DomainInconsistent { .. } => "DOMAIN INCONSISTENT",
        TimedConsistency::Unknown { .. } => "consistency unknown (the query ran out of time)",
    };
    let count = |f: &dyn Fn(&reqs::timed::audit::TimedRequirementAudit) -> bool| {
        r.requirements.iter().filter(|x| f(x)).count()
    };
    let redundant = count(&|x| matches!(x.redundancy, TimedRedundancy::Redundant { .. }));
    let answered = count(&|x| {
        matches!(x.violatability, TimedViolatability::Violatable { .. })
            && matches!(
                x.vacuity,
                Vacuity::Reachable | Vacuity::Vacuous { .. } | Vacuity::NotApplicable
            )
            && matches!(
                x.redundancy,
                TimedRedundancy::NotRedundant { .. } | TimedRedundancy::Redundant { .. }
            )
    });
    println!(
        "audit_timed  N = {n:>3}, k = {k}, {timeout:>3} s/query: {secs:>7.1} s, {:>4} queries; {consistency}; {answered} of {n} requirements with every check answered, {redundant} redundant (load {})",
        r.queries,
        load_average()
    );
}

fn main() {
    let seed: u64 = env_or("VERA_BENCH_TIMED_SEED", "1").parse().expect("seed");
    if let Ok(w) = std::env::var("VERA_BENCH_TIMED_WRITE") {
        let (n, path) = w.split_once(':').expect("VERA_BENCH_TIMED_WRITE=N:PATH");
        let n: usize = n.parse().expect("a number of requirements");
        std::fs::write(path, reqs::generate::timed_spec(n, seed)).expect("spec written");
        return;
    }
    let n: usize = env_or("VERA_BENCH_TIMED_N", "200").parse().expect("N");
    let jobs: usize = env_or("VERA_BENCH_JOBS", "2").parse().expect("jobs");
    let limit: f64 = env_or("VERA_BENCH_TIMED_CHECK_LIMIT", "180")
        .parse()
        .expect("seconds");
    let horizons: Vec<usize> = env_or("VERA_BENCH_TIMED_HORIZONS", "50,500")
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();

    let spec = match std::env::var("VERA_BENCH_TIMED_SPEC") {
        Ok(path) => {
            let text = std::fs::read_to_string(&path).expect("VERA_BENCH_TIMED_SPEC readable");
            reqs::parse_spec(SourceFile::new(path, text)).unwrap_or_else(|d| panic!("{d}"))
        }
        Err(_) => generated(n, seed),
    };
    println!(
        "timed spec `{}`: {} requirements, {} variables per step, tick {}; z3, load {} on {} cores",
        spec.name,
        spec.requirements.len(),
        spec.variables.len(),
        spec.time.as_ref().map_or("?", |t| t.tick_text.as_str()),
        load_average(),
        std::thread::available_parallelism().map_or(0, |p| p.get()),
    );
    if !horizons.is_empty() {
        let rows: Vec<Row> = horizons.iter().map(|&k| horizon(&spec, k, limit)).collect();
        table(&rows);
    }

    let audits: Vec<(usize, usize, f64)> = env_or("VERA_BENCH_TIMED_AUDIT", AUDITS)
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| {
            let f: Vec<&str> = s.trim().split(':').collect();
            match f[..] {
                [n, k, t] => (
                    n.parse().expect("N"),
                    k.parse().expect("K"),
                    t.parse().expect("seconds"),
                ),
                _ => panic!("VERA_BENCH_TIMED_AUDIT=N:K:T,..."),
            }
        })
        .collect();
    if !audits.is_empty() {
        println!("\nfull audit on traces (audit_timed, no rt check, z3, {jobs} jobs):");
        if audits.iter().all(|(an, _, _)| *an != n) {
            println!(
                "  (not on the {n}-requirement spec: at k = 50 it takes far more than 3 minutes, its consistency check alone about as long as above; on 50 requirements with 120 s per query it did not finish in 25 minutes. VERA_BENCH_TIMED_AUDIT={n}:50:120 runs it anyway)"
            );
        }
    }
    for (an, ak, t) in audits {
        full_audit(an, ak, t, seed, jobs);
    }
}
