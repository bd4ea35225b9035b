//! Timed requirements on a generated spec ([`reqs::generate::timed_spec`]): the size of
//! the unrolled encoding and the time to unroll at two horizons (the encoding is meant
//! to grow linearly with the horizon k), the consistency check of the unrolled spec
//! with z3, and the full audit on traces (`audit_timed`, without the rt check).
//!
//! `cargo bench -p reqs --bench timed`. Environment: VERA_BENCH_TIMED_N=200 (timed
//! requirements), VERA_BENCH_TIMED_SEED=1, VERA_BENCH_TIMED_HORIZONS=50,500,
//! VERA_BENCH_TIMED_AUDIT=N:K (the full audit on a spec of N requirements at horizon
//! K; empty skips it), VERA_BENCH_JOBS=2, VERA_BENCH_TIMED_WRITE=N:PATH (write the spec
//! of N requirements and stop), VERA_BENCH_TIMED_SPEC=PATH (measure the horizons on
//! that spec instead of the generated one), VERA_BENCH_TIMED_TRANSCRIPT=PREFIX (write
//! the consistency check's session to PREFIX-<k>.smt2).

use logic::SourceFile;
use reqs::timed::audit::{
    audit_timed, TimedConsistency, TimedOptions, TimedRedundancy, TimedViolatability,
};
use reqs::timed::unroll::unroll;
use reqs::{AuditOptions, Spec};
use solver::{Outcome, Solver, SolverConfig, SolverKind};
use std::time::{Duration, Instant};

/// The full audit's default: measured on the 200-requirement spec at k = 50 it took
/// well over the three minutes this benchmark allows itself (more than 1,000 queries
/// on an encoding of about 1.4 million nodes), so it runs on 50 requirements.
const AUDIT_DEFAULT: &str = "50:50";

fn env_or(var: &str, default: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| default.into())
}

fn load(n: usize, seed: u64) -> Spec {
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
}

/// Unrolls to `k` (best of a few runs for the time), measures the encoding, and
/// checks the unrolled spec's consistency in one query.
fn horizon(spec: &Spec, k: usize) -> Row {
    let reps = if k <= 100 { 5 } else { 2 };
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
    config.timeout = Duration::from_secs(600);
    if let Ok(t) = std::env::var("VERA_BENCH_TIMED_TRANSCRIPT") {
        config.transcript = Some(format!("{t}-{k}.smt2").into());
        config.transcript_force = true;
    }
    let start = Instant::now();
    let mut s = Solver::start(&config).expect("z3 starts");
    let lits = reqs::audit::load_into(&mut s, plain).expect("the unrolled spec loads");
    let load_secs = start.elapsed().as_secs_f64();
    eprintln!(
        "k = {k}: unrolled in {unroll_secs:.3} s, loaded into z3 in {load_secs:.2} s; checking"
    );
    let mut all = lits.domain().to_vec();
    all.extend(lits.reqs_except(None));
    let start = Instant::now();
    let outcome = s.check_assuming(&all).expect("the check runs");
    let check_secs = start.elapsed().as_secs_f64();
    match outcome {
        Outcome::Sat(_) => {}
        Outcome::Unsat(_) => panic!("k = {k}: the generated spec is inconsistent"),
        Outcome::Unknown(r) => panic!("k = {k}: no answer: {r}"),
    }
    Row {
        k,
        variables: plain.variables.len(),
        nodes,
        unroll_secs,
        load_secs,
        check_secs,
    }
}

fn full_audit(n: usize, k: usize, seed: u64, jobs: usize) {
    let spec = load(n, seed);
    let mut a = AuditOptions::new(SolverConfig::new(SolverKind::Z3));
    a.jobs = jobs;
    if let Ok(t) = std::env::var("VERA_BENCH_TIMED_TIMEOUT") {
        a.solver.timeout = Duration::from_secs_f64(t.parse().expect("seconds"));
    }
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
        TimedConsistency::Unknown { .. } => "unknown",
    };
    let redundant = r
        .requirements
        .iter()
        .filter(|x| matches!(x.redundancy, TimedRedundancy::Redundant { .. }))
        .count();
    let unknown = r
        .requirements
        .iter()
        .filter(|x| {
            matches!(x.redundancy, TimedRedundancy::Unknown { .. })
                || matches!(x.violatability, TimedViolatability::Unknown { .. })
                || matches!(x.vacuity, reqs::audit::Vacuity::Unknown { .. })
                || matches!(x.vacuity_domain, reqs::audit::Vacuity::Unknown { .. })
        })
        .count();
    println!(
        "\nfull audit_timed (no_rt, z3, {jobs} jobs), N = {n} requirements, k = {k}: {secs:.1} s, {} queries; {consistency}, {redundant} redundant, {unknown} with an unknown check (load {})",
        r.queries,
        load_average()
    );
}

fn main() {
    if let Ok(w) = std::env::var("VERA_BENCH_TIMED_WRITE") {
        let (n, path) = w.split_once(':').expect("VERA_BENCH_TIMED_WRITE=N:PATH");
        let n: usize = n.parse().expect("a number of requirements");
        let seed: u64 = env_or("VERA_BENCH_TIMED_SEED", "1").parse().expect("seed");
        std::fs::write(path, reqs::generate::timed_spec(n, seed)).expect("spec written");
        return;
    }
    let n: usize = env_or("VERA_BENCH_TIMED_N", "200").parse().expect("N");
    let seed: u64 = env_or("VERA_BENCH_TIMED_SEED", "1").parse().expect("seed");
    let jobs: usize = env_or("VERA_BENCH_JOBS", "2").parse().expect("jobs");
    let horizons: Vec<usize> = env_or("VERA_BENCH_TIMED_HORIZONS", "50,500")
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();

    let spec = match std::env::var("VERA_BENCH_TIMED_SPEC") {
        Ok(path) => {
            let text = std::fs::read_to_string(&path).expect("VERA_BENCH_TIMED_SPEC readable");
            reqs::parse_spec(SourceFile::new(path, text)).unwrap_or_else(|d| panic!("{d}"))
        }
        Err(_) => load(n, seed),
    };
    let n = spec.requirements.len();
    println!(
        "timed spec: {n} requirements (seed {seed}), {} variables per step, tick {}",
        spec.variables.len(),
        spec.time.as_ref().map_or("?", |t| t.tick_text.as_str())
    );
    let mut rows = Vec::new();
    for &k in &horizons {
        let r = horizon(&spec, k);
        eprintln!(
            "k = {k}: done in {:.1} s (load {})",
            r.unroll_secs + r.load_secs + r.check_secs,
            load_average()
        );
        rows.push(r);
    }
    println!(
        "\n{:>5} | {:>9} {:>8} | {:>10} {:>10} | {:>9} {:>11} | {:>9} {:>9} {:>11}",
        "k",
        "variables",
        "vars/st",
        "nodes",
        "nodes/st",
        "unroll s",
        "unroll ms/st",
        "load s",
        "check s",
        "z3 ms/step"
    );
    println!("{}", "-".repeat(117));
    for r in &rows {
        // Steps 0 ..= k: k + 1 copies of the state.
        let steps = (r.k + 1) as f64;
        let z3 = r.load_secs + r.check_secs;
        println!(
            "{:>5} | {:>9} {:>8.1} | {:>10} {:>10.1} | {:>9.3} {:>11.3} | {:>9.2} {:>9.2} {:>11.1}",
            r.k,
            r.variables,
            r.variables as f64 / steps,
            r.nodes,
            r.nodes as f64 / steps,
            r.unroll_secs,
            1000.0 * r.unroll_secs / steps,
            r.load_secs,
            r.check_secs,
            1000.0 * z3 / steps,
        );
    }
    println!(
        "(per step: divided by k + 1 states; z3 per step: load and check; load = declare and assert through the pipe)"
    );
    if let [a, b, ..] = &rows[..] {
        println!(
            "\nk {} -> {}: steps x{:.2}; size(k={})/size(k={}) = {:.2} (nodes), {:.2} (variables); unroll time x{:.1}; consistency (load + check) x{:.1}",
            a.k,
            b.k,
            (b.k + 1) as f64 / (a.k + 1) as f64,
            b.k,
            a.k,
            b.nodes as f64 / a.nodes as f64,
            b.variables as f64 / a.variables as f64,
            b.unroll_secs / a.unroll_secs,
            (b.load_secs + b.check_secs) / (a.load_secs + a.check_secs),
        );
    }

    let audit = env_or("VERA_BENCH_TIMED_AUDIT", AUDIT_DEFAULT);
    if let Some((an, ak)) = audit.split_once(':') {
        let an: usize = an.parse().expect("VERA_BENCH_TIMED_AUDIT=N:K");
        let ak: usize = ak.parse().expect("VERA_BENCH_TIMED_AUDIT=N:K");
        if an != n {
            println!(
                "\n(the full audit runs on a {an}-requirement spec, not on the {n}-requirement one: on {n} it takes more than 3 minutes; VERA_BENCH_TIMED_AUDIT={n}:{ak} to run it anyway)"
            );
        }
        full_audit(an, ak, seed, jobs);
    }
}
