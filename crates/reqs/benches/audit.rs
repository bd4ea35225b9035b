//! The full audit (all four checks for every requirement) on generated specs, and the
//! same audits with a fresh solver process per query as the baseline.
//!
//! Two spec shapes: `spec_text` (groups of five requirements, many small components)
//! and `connected_spec_text` (one connected component: a shared phase variable,
//! interlocks, roles). For the connected shape it also times the realizability audit
//! against the consistency check.
//!
//! `cargo bench -p reqs --bench audit`. Environment: VERA_BENCH_SIZES=100,1000,5000
//! and VERA_BENCH_BASELINE=100,1000 (grouped shape), VERA_BENCH_CONNECTED=100,1000,5000,10000
//! and VERA_BENCH_CONNECTED_BASELINE=100,1000 (connected shape),
//! VERA_BENCH_REALIZE=1000, VERA_BENCH_REAUDIT=1000 (audits with a cache: cold,
//! unchanged, one requirement edited), VERA_BENCH_JOBS=2, VERA_BENCH_PLAIN=1 (no fast
//! paths),
//! VERA_BENCH_WRITE=N:PATH (write the connected spec of N requirements and stop).
//! An empty list skips a part.

use reqs::{audit, AuditOptions, Spec};
use solver::{Outcome, Solver, SolverConfig, SolverKind};
use std::collections::BTreeMap;
use std::time::Instant;

fn sizes(var: &str, default: &str) -> Vec<usize> {
    std::env::var(var)
        .unwrap_or_else(|_| default.into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect()
}

fn load(name: &str, text: String) -> Spec {
    reqs::parse_spec(logic::SourceFile::new(name.to_string(), text)).expect("generated spec loads")
}

fn options(jobs: usize, fresh: bool) -> AuditOptions {
    let mut o = AuditOptions::new(SolverConfig::new(SolverKind::Z3));
    o.jobs = jobs;
    o.fresh_process_per_query = fresh;
    // The realizability audit is timed on its own (below).
    o.realizability = false;
    o.fast_paths = std::env::var_os("VERA_BENCH_PLAIN").is_none();
    if std::env::var_os("VERA_BENCH_NO_VALIDATE").is_some() {
        o.solver.validate = false;
    }
    o
}

struct Run {
    secs: f64,
    cpu: f64,
    queries: usize,
    findings: usize,
}

fn run(spec: &Spec, fresh: bool, jobs: usize) -> Run {
    let o = options(jobs, fresh);
    let cpu0 = cpu_seconds();
    let start = Instant::now();
    let r = audit(spec, &o).expect("audit runs");
    let secs = start.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu0;
    let findings = r.requirements.iter().filter(|a| a.has_findings()).count();
    Run {
        secs,
        cpu,
        queries: r.queries,
        findings,
    }
}

/// CPU seconds used so far by this process and its finished children (the solver
/// processes), from /proc: less sensitive to other load on the machine than wall time.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return f64::NAN;
    };
    // Fields after the command name (which is in parentheses): utime is field 14.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<f64> = rest
        .split_whitespace()
        .skip(11)
        .take(4)
        .filter_map(|x| x.parse().ok())
        .collect();
    f.iter().sum::<f64>() / 100.0
}

/// The peak resident set of this process so far (`VmHWM`), in MiB; the solver runs in
/// child processes and is not included.
fn peak_rss_mib() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map_or_else(|| "?".into(), |kb| format!("{:.0} MiB", kb / 1024.0))
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

fn shape(
    label: &str,
    make: fn(usize) -> String,
    sizes_var: &str,
    default: &str,
    baseline_var: &str,
    baseline_default: &str,
    jobs: usize,
) -> BTreeMap<usize, f64> {
    let mut times = BTreeMap::new();
    for n in sizes(sizes_var, default) {
        let spec = load(&format!("{label}-{n}.toml"), make(n));
        let r = run(&spec, false, jobs);
        println!(
            "{label:<9} incremental   N={n:>6}: {:>8.2} s (cpu {:.2} s), {} queries, {} requirements with findings, peak RSS {} (load {})",
            r.secs,
            r.cpu,
            r.queries,
            r.findings,
            peak_rss_mib(),
            load_average()
        );
        times.insert(n, r.secs);
    }
    if let (Some(a), Some(b)) = (times.get(&1000), times.get(&5000)) {
        println!("{label:<9} growth time(5000)/time(1000) = {:.2}", b / a);
    }
    if let (Some(a), Some(b)) = (times.get(&1000), times.get(&10000)) {
        println!("{label:<9} growth time(10000)/time(1000) = {:.2}", b / a);
    }
    for n in sizes(baseline_var, baseline_default) {
        let spec = load(&format!("{label}-{n}.toml"), make(n));
        let r = run(&spec, true, jobs);
        let speedup = times.get(&n).map(|t| r.secs / t);
        println!(
            "{label:<9} fresh process N={n:>6}: {:>8.2} s (cpu {:.2} s), {} queries{} (load {})",
            r.secs,
            r.cpu,
            r.queries,
            speedup
                .map(|s| format!(", incremental is {s:.1}x faster"))
                .unwrap_or_default(),
            load_average()
        );
    }
    times
}

/// The consistency check alone: a solver started, the spec loaded, M checked.
fn consistency_secs(spec: &Spec) -> f64 {
    let start = Instant::now();
    let mut s = Solver::start(&SolverConfig::new(SolverKind::Z3)).expect("z3 starts");
    let lits = reqs::audit::load_into(&mut s, spec).expect("spec loads");
    let mut all = lits.domain().to_vec();
    all.extend(lits.reqs_except(None));
    let sat = matches!(s.check_assuming(&all), Ok(Outcome::Sat(_)));
    assert!(sat, "the generated spec is consistent");
    start.elapsed().as_secs_f64()
}

/// One requirement of the connected spec edited: the first alarm on sensor p3 gets a
/// threshold 15 kPa higher.
fn edit_one(text: &str) -> String {
    let line = text
        .lines()
        .find(|l| l.starts_with("formula = \"(=> (and (= phase") && l.contains("(> p3 "))
        .expect("an alarm on p3");
    let at = line.find("(> p3 ").expect("threshold") + "(> p3 ".len();
    let len = line[at..].find(')').expect("closing");
    let c: i64 = line[at..at + len].parse().expect("a number");
    let moved = format!("{}{}{}", &line[..at], c + 15, &line[at + len..]);
    text.replacen(line, &moved, 1)
}

/// The cache: a cold audit, the same spec again, and one requirement edited.
fn reaudit(n: usize, jobs: usize) {
    let dir = std::env::temp_dir().join(format!("vera-bench-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let text = reqs::generate::connected_spec_text(n);
    let mut o = options(jobs, false);
    o.realizability = true;
    o.cache_dir = Some(dir.clone());
    for (what, text) in [
        ("cold cache", text.clone()),
        ("unchanged", text.clone()),
        ("one edited", edit_one(&text)),
    ] {
        let spec = load("connected-reaudit.toml", text);
        let cpu0 = cpu_seconds();
        let start = Instant::now();
        let r = audit(&spec, &o).expect("audit runs");
        let secs = start.elapsed().as_secs_f64();
        println!(
            "re-audit  N={n:>6} {what:<10}: {secs:>8.2} s (cpu {:.2} s), {} queries, {} of {} checks reused (load {})",
            cpu_seconds() - cpu0,
            r.queries,
            r.reused,
            r.checks,
            load_average()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn main() {
    // VERA_BENCH_WRITE=N:PATH writes the connected spec of N requirements and stops
    // (for timing `vera audit` on it).
    if let Ok(w) = std::env::var("VERA_BENCH_WRITE") {
        let (n, path) = w.split_once(':').expect("VERA_BENCH_WRITE=N:PATH");
        let n: usize = n.parse().expect("a number of requirements");
        std::fs::write(path, reqs::generate::connected_spec_text(n)).expect("spec written");
        return;
    }
    let jobs = std::env::var("VERA_BENCH_JOBS")
        .ok()
        .and_then(|j| j.parse().ok())
        .unwrap_or(2);
    shape(
        "grouped",
        reqs::generate::spec_text,
        "VERA_BENCH_SIZES",
        "100,1000,5000",
        "VERA_BENCH_BASELINE",
        "100,1000",
        jobs,
    );
    shape(
        "connected",
        reqs::generate::connected_spec_text,
        "VERA_BENCH_CONNECTED",
        "100,1000,5000,10000",
        "VERA_BENCH_CONNECTED_BASELINE",
        "100,1000",
        jobs,
    );
    for n in sizes("VERA_BENCH_REAUDIT", "1000") {
        reaudit(n, jobs);
    }
    for n in sizes("VERA_BENCH_REALIZE", "1000") {
        let spec = load(
            &format!("connected-{n}.toml"),
            reqs::generate::connected_spec_text(n),
        );
        let c = consistency_secs(&spec);
        let start = Instant::now();
        let ro = reqs::realize::RealizeOptions::new(SolverConfig::new(SolverKind::Z3));
        let r = reqs::realize::realizability(&spec, &ro).expect("realizability runs");
        let secs = start.elapsed().as_secs_f64();
        let verdict = match &r {
            reqs::realize::Realizability::Realizable { iterations } => {
                format!("realizable after {iterations} rounds")
            }
            other => format!("{other:?}").chars().take(200).collect(),
        };
        println!(
            "realizability N={n:>6}: {secs:.2} s ({verdict}); consistency check {c:.2} s; ratio {:.1}x (load {})",
            secs / c,
            load_average()
        );
    }
}
