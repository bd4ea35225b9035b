//! Fault detection of requirements-based tests: the hemodialysis spec's own mutants
//! (`reqs::mutate`, the operators of `vera mutate`) used as faulty implementations, the
//! generated suite's kill rate next to random suites of the same size, with Wilson 95%
//! intervals; and the generator's size and time. Figures go to docs/performance.md.
//!
//! `cargo bench -p rbt --bench killrate` (z3; `RBT_SOLVER=cvc5` for cvc5,
//! `RBT_SEEDS=N` random suites, default 10).

use rbt::kill::{kill_matrix, probes_of, random_probes, revealable, Kill};
use rbt::{generate, Options, Problem};
use reqs::mutate::{mutants, wilson, Category};
use solver::{SolverConfig, SolverKind};
use std::path::Path;
use std::time::Instant;

fn main() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let kind = match std::env::var("RBT_SOLVER").as_deref() {
        Ok("cvc5") => SolverKind::Cvc5,
        _ => SolverKind::Z3,
    };
    let seeds: u64 = std::env::var("RBT_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    let config = SolverConfig::new(kind);
    let spec = reqs::load(&root.join("examples/hemodialysis/hemodialysis.toml")).unwrap();
    let roles =
        std::fs::read_to_string(root.join("examples/hemodialysis/test-roles.toml")).unwrap();
    let inputs = rbt::problem::read_roles("test-roles.toml", &roles).unwrap();
    let p = Problem::from_spec(spec, Some(&inputs)).unwrap();

    let t = Instant::now();
    let suite = generate(&p, &Options::new(config.clone())).unwrap();
    let gen_secs = t.elapsed().as_secs_f64();
    println!(
        "hemodialysis ({kind}): {} obligations, {} met, {} unreachable; {} cases ({} before minimization); {} queries; generated and re-checked in {gen_secs:.2} s",
        suite.obligations.len(),
        suite.met(),
        suite.unreachable(),
        suite.cases.len(),
        suite.cases_before_minimization,
        suite.queries
    );
    let t = Instant::now();
    let mut o = Options::new(config.clone());
    o.boundaries = false;
    let small = generate(&p, &o).unwrap();
    println!(
        "  without boundary cases: {} obligations, {} cases in {:.2} s",
        small.obligations.len(),
        small.cases.len(),
        t.elapsed().as_secs_f64()
    );

    let mut all = Vec::new();
    for r in p.spec.formalized() {
        for m in mutants(&r.id, r.formula.as_ref().unwrap()) {
            all.push(m);
        }
    }
    let formulas: Vec<(usize, logic::Term)> = all
        .iter()
        .map(|m| {
            let i = p
                .spec
                .requirements
                .iter()
                .position(|r| r.id == m.requirement)
                .unwrap();
            (i, m.formula.clone())
        })
        .collect();
    println!(
        "mutants: {} of {} formalized requirements",
        all.len(),
        p.spec.formalized().count()
    );

    let t = Instant::now();
    let (can, unknown) = revealable(&p, &formulas, &config).unwrap();
    let total = can.iter().filter(|c| **c).count();
    println!(
        "revealable by some valid test: {total} ({} only narrow what the spec allows or differ only on invalid inputs; {:.1} s{})",
        all.len() - total,
        t.elapsed().as_secs_f64(),
        if unknown > 0 { format!(", {unknown} unknown") } else { String::new() }
    );
    let n = suite.cases.len();
    // A mutant counts for a suite when some case of it reveals it (or kills it for sure).
    // Rates are over the revealable mutants.
    let count = |m: &[Vec<Kill>], sure: bool| -> usize {
        m.iter()
            .enumerate()
            .filter(|(i, row)| {
                can[*i]
                    && row.iter().any(|k| {
                        if sure {
                            *k == Kill::Sure
                        } else {
                            *k != Kill::No
                        }
                    })
            })
            .count()
    };
    let pct = |k: usize| 100.0 * k as f64 / total.max(1) as f64;
    let line = |name: &str, cases: usize, m: &[Vec<Kill>], note: String| {
        let (r, s) = (count(m, false), count(m, true));
        let (rl, rh) = wilson(r, total);
        let (sl, sh) = wilson(s, total);
        println!(
            "{name:<24} {cases:>5} {r:>5} {:>6.1}% [{:>4.1}%, {:>4.1}%] {s:>5} {:>6.1}% [{:>4.1}%, {:>4.1}%]{note}",
            pct(r),
            100.0 * rl,
            100.0 * rh,
            pct(s),
            100.0 * sl,
            100.0 * sh
        );
        (r, s)
    };
    println!(
        "\n{:<24} {:>5} {:>30} {:>30}",
        "suite", "cases", "revealed (Wilson 95%)", "killed for sure (Wilson 95%)"
    );
    let t = Instant::now();
    let (gen_kills, unknown) = kill_matrix(&p, &probes_of(&suite), &formulas, &config).unwrap();
    let secs = t.elapsed().as_secs_f64();
    line(
        "generated (vera tests)",
        n,
        &gen_kills,
        format!(
            "   ({secs:.1} s{})",
            if unknown > 0 {
                format!(", {unknown} unknown")
            } else {
                String::new()
            }
        ),
    );
    let mut random_kills: Vec<Vec<Vec<Kill>>> = Vec::new();
    let mut rates = Vec::new();
    for seed in 1..=seeds {
        let probes = random_probes(&p, n, seed, &config).unwrap();
        let (k, unknown) = kill_matrix(&p, &probes, &formulas, &config).unwrap();
        let (r, s) = line(
            &format!("random, seed {seed}"),
            probes.len(),
            &k,
            if unknown > 0 {
                format!("   ({unknown} unknown)")
            } else {
                String::new()
            },
        );
        rates.push((pct(r), pct(s)));
        random_kills.push(k);
    }
    if !rates.is_empty() {
        let mean =
            |f: fn(&(f64, f64)) -> f64| rates.iter().map(f).sum::<f64>() / rates.len() as f64;
        let lo = |f: fn(&(f64, f64)) -> f64| rates.iter().map(f).fold(f64::INFINITY, f64::min);
        let hi = |f: fn(&(f64, f64)) -> f64| rates.iter().map(f).fold(0.0, f64::max);
        println!(
            "random, mean of {} seeds: revealed {:.1}% (min {:.1}%, max {:.1}%), killed for sure {:.1}% (min {:.1}%, max {:.1}%)",
            rates.len(),
            mean(|r| r.0),
            lo(|r| r.0),
            hi(|r| r.0),
            mean(|r| r.1),
            lo(|r| r.1),
            hi(|r| r.1)
        );
    }
    // Per category: revealed by the generated suite and by the first random suite.
    println!(
        "\n{:<34} {:>10} {:>10} {:>10}",
        "category (revealed)", "revealable", "generated", "random 1"
    );
    for c in Category::ALL {
        let idx: Vec<usize> = (0..all.len())
            .filter(|&i| all[i].category == c && can[i])
            .collect();
        if idx.is_empty() {
            continue;
        }
        let hit = |m: &[Vec<Kill>]| {
            idx.iter()
                .filter(|&&i| m[i].iter().any(|k| *k != Kill::No))
                .count()
        };
        let r = random_kills.first().map(|k| hit(k)).unwrap_or(0);
        println!(
            "{:<34} {:>7} {:>10} {:>10}",
            c.name(),
            idx.len(),
            hit(&gen_kills),
            r
        );
    }
    // Revealable mutants no suite reveals: they differ only on inputs none of the suites
    // drew.
    let unrevealed: Vec<usize> = (0..all.len())
        .filter(|&i| {
            can[i]
                && gen_kills[i].iter().all(|k| *k == Kill::No)
                && random_kills
                    .iter()
                    .all(|m| m[i].iter().all(|k| *k == Kill::No))
        })
        .collect();
    println!("\nrevealable, revealed by no suite: {}", unrevealed.len());
    for &i in &unrevealed {
        println!(
            "  {}: {} — {}",
            all[i].requirement,
            all[i].category.name(),
            all[i].description
        );
    }
}
