//! The phase event automata against the countertraces they are compiled from, on
//! concrete runs: for random patterns of the catalog in random scopes and random runs
//! (a few intervals of random rational length over Boolean variables), whenever the
//! automaton, simulated here on the run (its clocks computed, no solver), accepts the
//! run, the countertrace evaluator finds the countertrace nowhere in it. This is what
//! the re-check of a witness run relies on: a run the automata allow is allowed by the
//! countertraces.
//!
//! The other direction holds only up to where the run changes state: an automaton
//! changes location only between intervals, so a run the countertrace allows may need
//! an interval split in two (a step without a change) to be accepted; the audits'
//! searches choose such splits freely.

use logic::{Context, Model, Sort, Term, Value};
use num_rational::BigRational;
use proptest::prelude::*;
use reqs::timed::dense::bdd::{Atom, Bdd, Ref};
use reqs::timed::dense::catalog::countertraces;
use reqs::timed::dense::eval::{matched, Piece};
use reqs::timed::dense::pea::{compile, Pea};
use reqs::timed::dense::{DenseScope, Kind};

const VARS: [&str; 4] = ["a", "b", "c", "d"];

/// The automaton run on `run`: the configurations (location, clock values) it can be
/// in after each interval; accepted when some survive the last one.
fn accepts(bdd: &Bdd, pea: &Pea, run: &[Piece]) -> bool {
    let clocks = pea.clocks();
    let bound = |p: usize| BigRational::from_integer(pea.phases[p].bound.value().unwrap().into());
    let value = |f: Ref, state: &Model, clk: &[BigRational]| -> bool {
        bdd.eval(f, &|v| match &bdd.atoms()[v as usize] {
            Atom::Data { term, .. } => {
                logic::eval_bool(term, state, &Context::new()).expect("Boolean variables")
            }
            Atom::Clock { phase, .. } => {
                let i = clocks.iter().position(|(p, _)| p == phase).unwrap();
                clk[i] < bound(*phase)
            }
        })
    };
    let inv_ok = |l: usize, state: &Model, clk: &[BigRational]| -> bool {
        let loc = &pea.locations[l];
        value(loc.state_inv, state, clk)
            && loc.clock_inv.iter().all(|(p, strict)| {
                let i = clocks.iter().position(|(q, _)| q == p).unwrap();
                if *strict {
                    clk[i] < bound(*p)
                } else {
                    clk[i] <= bound(*p)
                }
            })
    };
    let d0 = run[0].length.clone();
    let mut configs: Vec<(usize, Vec<BigRational>)> = pea
        .init
        .iter()
        .map(|l| (*l, vec![d0.clone(); clocks.len()]))
        .filter(|(l, c)| inv_ok(*l, &run[0].state, c))
        .collect();
    for piece in &run[1..] {
        let mut next: Vec<(usize, Vec<BigRational>)> = Vec::new();
        for (l, clk) in &configs {
            for t in &pea.locations[*l].transitions {
                // The guard reads the clocks before the step and the next state (its
                // atoms are primed; evaluate them on the next state).
                if !value(t.guard, &piece.state, clk) {
                    continue;
                }
                let c2: Vec<BigRational> = clocks
                    .iter()
                    .zip(clk)
                    .map(|((p, _), v)| {
                        if t.resets.contains(p) {
                            piece.length.clone()
                        } else {
                            v + &piece.length
                        }
                    })
                    .collect();
                if inv_ok(t.dest, &piece.state, &c2) && !next.contains(&(t.dest, c2.clone())) {
                    next.push((t.dest, c2));
                }
            }
        }
        configs = next;
    }
    !configs.is_empty()
}

fn kind_of(i: usize) -> Kind {
    Kind::ALL[i % Kind::ALL.len()]
}

fn scope_of(i: usize, p: Ref, q: Ref) -> DenseScope<Ref> {
    match i % 5 {
        0 => DenseScope::Globally,
        1 => DenseScope::Before(p),
        2 => DenseScope::After(p),
        3 => DenseScope::Between(p, q),
        _ => DenseScope::AfterUntil(p, q),
    }
}

fn check(
    kind: usize,
    scope: usize,
    picks: &[usize],
    d: &[u64],
    run: &[(u64, u8)],
) -> Result<(), String> {
    let kind = kind_of(kind);
    let mut bdd = Bdd::new();
    let var = |b: &mut Bdd, i: usize| b.of_term(&Term::var(VARS[i % VARS.len()], Sort::Bool));
    // Formulas: a variable or its negation, chosen by `picks`.
    let mut f = Vec::new();
    for (j, pk) in picks.iter().enumerate().take(kind.formulas() + 2) {
        let v = var(&mut bdd, *pk / 2);
        let _ = j;
        f.push(if pk % 2 == 0 { v } else { bdd.not(v) });
    }
    let (p, q) = (f[0], f[1]);
    let pattern_f: Vec<Ref> = f[2..].to_vec();
    let durations: Vec<u64> = d[..kind.durations()].to_vec();
    let cts = countertraces(
        &mut bdd,
        kind,
        &scope_of(scope, p, q),
        &pattern_f,
        &durations,
    );
    // The run: lengths in half ticks, states as bit masks over the variables.
    let pieces: Vec<Piece> = run
        .iter()
        .map(|(len, bits)| {
            let mut m = Model::new();
            for (i, v) in VARS.iter().enumerate() {
                m.insert((*v).into(), Value::Bool(bits & (1 << i) != 0));
            }
            Piece {
                length: BigRational::new((*len as i64).into(), 2.into()),
                state: m,
            }
        })
        .collect();
    for ct in cts {
        let pea = compile(ct.clone(), &mut bdd, 0);
        // The automaton accepts the run iff no prefix matches the countertrace: with
        // the trailing `true`, iff the whole run does not match it.
        let dc = !matched(&bdd, &ct, &pieces, &Context::new()).unwrap();
        let aut = accepts(&bdd, &pea, &pieces);
        if aut && !dc {
            return Err(format!(
                "{} {:?}: the countertrace says {dc}, the automaton {aut}, on {run:?} ({:?})",
                kind.name(),
                scope % 5,
                durations
            ));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]
    #[test]
    fn automata_accept_what_the_countertraces_allow(
        kind in 0usize..29,
        scope in 0usize..5,
        picks in proptest::collection::vec(0usize..8, 6),
        d in proptest::collection::vec(1u64..4, 2),
        run in proptest::collection::vec((1u64..7, 0u8..16), 1..6),
    ) {
        if let Err(e) = check(kind, scope, &picks, &d, &run) {
            prop_assert!(false, "{}", e);
        }
    }
}

/// The property above is not vacuous: over a fixed sample, the automata accept many of
/// the runs and reject many others; and on a run split into quarter ticks (every point a
/// step may need) they accept exactly what the countertraces allow, except for the two
/// patterns with a phase that may be empty and has a formula (ResponseDelayBoundL2,
/// ResponseBoundL12), where the peer's automaton is stricter than its countertrace on
/// some runs (docs/timed.md, "Dense time").
#[test]
fn the_sample_has_both_verdicts_and_fine_runs_agree() {
    let (mut accepted, mut rejected, mut fine_disagree) = (0, 0, Vec::new());
    let mut seed: u64 = 7;
    let mut next = |m: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % m
    };
    for _ in 0..600 {
        let kind = kind_of(next(29) as usize);
        let scope = next(5) as usize;
        let picks: Vec<usize> = (0..6).map(|_| next(8) as usize).collect();
        let d: Vec<u64> = (0..2).map(|_| 1 + next(3)).collect();
        let n = 1 + next(5) as usize;
        let run: Vec<(u64, u8)> = (0..n).map(|_| (1 + next(6), next(16) as u8)).collect();
        let mut bdd = Bdd::new();
        let var = |b: &mut Bdd, i: usize| b.of_term(&Term::var(VARS[i % VARS.len()], Sort::Bool));
        let mut f = Vec::new();
        for pk in picks.iter().take(kind.formulas() + 2) {
            let v = var(&mut bdd, *pk / 2);
            f.push(if pk % 2 == 0 { v } else { bdd.not(v) });
        }
        let durations: Vec<u64> = d[..kind.durations()].to_vec();
        let cts = countertraces(
            &mut bdd,
            kind,
            &scope_of(scope, f[0], f[1]),
            &f[2..],
            &durations,
        );
        // The run split into quarter ticks.
        let mut fine: Vec<Piece> = Vec::new();
        for (len, bits) in &run {
            let mut m = Model::new();
            for (i, v) in VARS.iter().enumerate() {
                m.insert((*v).into(), Value::Bool(bits & (1 << i) != 0));
            }
            for _ in 0..(2 * len) {
                fine.push(Piece {
                    length: BigRational::new(1.into(), 4.into()),
                    state: m.clone(),
                });
            }
        }
        for ct in cts {
            let pea = compile(ct.clone(), &mut bdd, 0);
            let dc = !matched(&bdd, &ct, &fine, &Context::new()).unwrap();
            let aut = accepts(&bdd, &pea, &fine);
            if aut {
                accepted += 1;
            } else {
                rejected += 1;
            }
            let empty_phase = matches!(kind, Kind::ResponseDelayBoundL2 | Kind::ResponseBoundL12);
            if dc != aut && !(empty_phase && dc && !aut) {
                fine_disagree.push(format!(
                    "{} scope {scope}: countertrace {dc}, automaton {aut}, {run:?} {durations:?}",
                    kind.name()
                ));
            }
        }
    }
    assert!(
        accepted > 100 && rejected > 100,
        "{accepted} accepted, {rejected} rejected"
    );
    assert!(
        fine_disagree.is_empty(),
        "{} disagree:\n{}",
        fine_disagree.len(),
        fine_disagree.join("\n")
    );
}
