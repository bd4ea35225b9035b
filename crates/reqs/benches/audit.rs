//! The full audit (all four checks for every requirement) on generated specs of
//! N = 100, 1,000 and 5,000 requirements, and the same audits with a fresh solver
//! process per query as the baseline.
//!
//! `cargo bench -p reqs --bench audit` (env: VERA_BENCH_SIZES=100,1000,5000,
//! VERA_BENCH_BASELINE=100,1000, VERA_BENCH_JOBS=2).

use reqs::{audit, AuditOptions};
use solver::{SolverConfig, SolverKind};
use std::time::Instant;

fn sizes(var: &str, default: &str) -> Vec<usize> {
    std::env::var(var)
        .unwrap_or_else(|_| default.into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect()
}

fn run(n: usize, fresh: bool, jobs: usize) -> (f64, usize, usize) {
    let text = reqs::generate::spec_text(n);
    let spec = reqs::parse_spec(logic::SourceFile::new(format!("generated-{n}.toml"), text))
        .expect("generated spec loads");
    let mut o = AuditOptions::new(SolverConfig::new(SolverKind::Z3));
    o.jobs = jobs;
    o.fresh_process_per_query = fresh;
    if std::env::var_os("VERA_BENCH_NO_VALIDATE").is_some() {
        o.solver.validate = false;
    }
    let start = Instant::now();
    let r = audit(&spec, &o).expect("audit runs");
    let secs = start.elapsed().as_secs_f64();
    let findings = r.requirements.iter().filter(|a| a.has_findings()).count();
    (secs, r.queries, findings)
}

fn main() {
    let jobs = std::env::var("VERA_BENCH_JOBS")
        .ok()
        .and_then(|j| j.parse().ok())
        .unwrap_or(2);
    let mut times = std::collections::BTreeMap::new();
    for n in sizes("VERA_BENCH_SIZES", "100,1000,5000") {
        let (secs, queries, findings) = run(n, false, jobs);
        println!("incremental  N={n:>5}: {secs:>8.2} s, {queries} queries ({:.0}/s), {findings} requirements with findings", queries as f64 / secs);
        times.insert(n, secs);
    }
    if let (Some(a), Some(b)) = (times.get(&1000), times.get(&5000)) {
        println!("growth time(5000)/time(1000) = {:.2}", b / a);
    }
    for n in sizes("VERA_BENCH_BASELINE", "100,1000") {
        let (secs, queries, _) = run(n, true, jobs);
        let speedup = times.get(&n).map(|t| secs / t);
        println!(
            "fresh process N={n:>5}: {secs:>8.2} s, {queries} queries{}",
            speedup
                .map(|s| format!(", incremental is {s:.1}x faster"))
                .unwrap_or_default()
        );
    }
}
