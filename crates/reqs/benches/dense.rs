//! The dense-time audit on generated specs ([`reqs::timed::dense::generate::spec_text`]):
//! the time of the full audit per number of requirements and per duration scale (the
//! same spec with every duration multiplied), with what it found.
//!
//! `cargo bench -p reqs --bench dense`. Environment:
//! - VERA_BENCH_DENSE_SIZES=50,200,1000 (requirements);
//! - VERA_BENCH_DENSE_SCALES=1,10,100,1000 (every duration is the scale times 1 to 10
//!   ticks: 1 to 10,000 ticks at scale 1000);
//! - VERA_BENCH_DENSE_SEED=1;
//! - VERA_BENCH_DENSE_JOBS=0 (solver sessions at once; 0: one per core, the default);
//! - VERA_BENCH_DENSE_SHAPE=shared or components (how requirements share variables,
//!   [`reqs::timed::dense::generate::Shape`]; shared by default);
//! - VERA_BENCH_DENSE_REDUNDANCY=0: leave out the redundancy checks (on by default,
//!   as in `vera audit`);
//! - VERA_BENCH_DENSE_WRITE=N:SCALE:PATH: write that generated spec and stop.

use reqs::timed::dense::audit::{
    audit_dense, DenseConsistency, DenseEnvironment, DenseOptions, DenseRedundancy, DenseReport,
    DenseVacuity, Reach,
};
use reqs::timed::dense::generate::{shaped_text, Shape};
use solver::{SolverConfig, SolverKind};
use std::time::Instant;

fn list(var: &str, default: &str) -> Vec<u64> {
    std::env::var(var)
        .unwrap_or_else(|_| default.into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect()
}

fn summary(r: &DenseReport) -> String {
    let undecided = r
        .requirements
        .iter()
        .filter(|a| {
            matches!(
                a.vacuity,
                DenseVacuity::Unknown { .. } | DenseVacuity::Vacuous { proved: false, .. }
            )
        })
        .count()
        + r.rt_checks
            .iter()
            .filter(|c| {
                matches!(
                    c.dead_end,
                    Reach::Unknown { .. } | Reach::Unreachable { proved: false, .. }
                )
            })
            .count()
        + usize::from(matches!(r.consistency, DenseConsistency::Unknown { .. }))
        + r.requirements
            .iter()
            .filter(|a| a.redundancy.undecided())
            .count()
        + r.environment.open().len();
    let redundant = r
        .requirements
        .iter()
        .filter(|a| {
            matches!(
                a.redundancy,
                DenseRedundancy::Redundant { proved: true, .. }
            )
        })
        .count();
    let vacuous = r
        .requirements
        .iter()
        .filter(|a| matches!(a.vacuity, DenseVacuity::Vacuous { proved: true, .. }))
        .count();
    let environment = match &r.environment {
        DenseEnvironment::NotChecked { reason } => format!("environment not checked ({reason})"),
        DenseEnvironment::Checked { checks, trivial } => format!(
            "{} sets the environment can force into a dead end, {} proved free, {trivial} trivially free",
            r.environment.conflicts().len(),
            checks
                .iter()
                .filter(|c| matches!(c.dead_end, Reach::Unreachable { proved: true, .. }))
                .count()
        ),
    };
    format!(
        "{} checks, {} rt sets with a dead end, {} proved free, {} trivially free; {environment}; {} vacuous; {} redundant; {} undecided",
        r.results,
        r.rt_inconsistent().len(),
        r.rt_checks
            .iter()
            .filter(|c| matches!(c.dead_end, Reach::Unreachable { proved: true, .. }))
            .count(),
        r.rt_trivial,
        vacuous,
        redundant,
        undecided
    )
}

fn main() {
    let seed = list("VERA_BENCH_DENSE_SEED", "1")
        .first()
        .copied()
        .unwrap_or(1);
    let shape = match std::env::var("VERA_BENCH_DENSE_SHAPE").as_deref() {
        Ok("components") => Shape::Components,
        Ok("shared") | Err(_) => Shape::Shared,
        Ok(other) => panic!("VERA_BENCH_DENSE_SHAPE is shared or components, not {other}"),
    };
    if let Ok(w) = std::env::var("VERA_BENCH_DENSE_WRITE") {
        let parts: Vec<&str> = w.splitn(3, ':').collect();
        let (n, scale, path) = (
            parts[0].parse().expect("N"),
            parts[1].parse().expect("SCALE"),
            parts[2],
        );
        std::fs::write(path, shaped_text(n, seed, scale, shape)).expect("written");
        return;
    }
    let sizes = list("VERA_BENCH_DENSE_SIZES", "50,200,1000");
    let scales = list("VERA_BENCH_DENSE_SCALES", "1,10,100,1000");
    // Solver sessions at once (0: one per core, the audit's default).
    let jobs = list("VERA_BENCH_DENSE_JOBS", "0")
        .first()
        .copied()
        .unwrap_or(0) as usize;
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let sessions = solver::job_count(jobs);
    println!(
        "dense-time audit, generated specs (seed {seed}, {shape:?} variables), z3, {sessions} solver session(s) at once on {cores} core(s)"
    );
    println!("{:>6} {:>6} {:>9}  found", "reqs", "scale", "seconds");
    for n in sizes {
        for scale in &scales {
            let text = shaped_text(n as usize, seed, *scale, shape);
            let spec = reqs::parse_spec(logic::SourceFile::new("dense.toml", text)).expect("loads");
            let start = Instant::now();
            let mut options = DenseOptions::new(SolverConfig::new(SolverKind::Z3));
            options.jobs = jobs;
            options.redundancy = std::env::var("VERA_BENCH_DENSE_REDUNDANCY").as_deref() != Ok("0");
            let r = audit_dense(&spec, &options).expect("audit runs");
            let secs = start.elapsed().as_secs_f64();
            println!("{n:>6} {scale:>6} {secs:>9.1}  {}", summary(&r));
        }
    }
}
