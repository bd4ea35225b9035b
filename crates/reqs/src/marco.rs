//! Minimal conflicts, smallest first.
//!
//! Both conflict lists of the audit — requirements that contradict each other
//! (consistency) and requirements the environment can drive into a clash
//! (realizability) — are minimal "bad" subsets of a set of members, enumerated with
//! MARCO: a *map* solver holds one Boolean per member, and each of its models is a subset
//! not yet explored. A bad subset is shrunk to a minimal one and every superset of it is
//! blocked; a good one is grown to a maximal good subset and every subset of it is
//! blocked.
//!
//! A person reads the short conflicts first, and a capped list must not be filled with
//! large conflicts while smaller ones are left out. So the map is asked for subsets of
//! at most `k` members, `k = 1, 2, ...`, moving to `k + 1` only when no unexplored subset
//! of `k` members is left. Every minimal conflict with at most `k` members is then found
//! before any with more: a minimal conflict of `j < k` members is itself an unexplored
//! subset at level `j` (it is neither a superset of another minimal conflict nor a subset
//! of a good set), so level `j` cannot end without it. When the cap stops the
//! enumeration at level `k`, the report can say that every conflict of fewer than `k`
//! members is listed.

use crate::audit::Incomplete;
use logic::{Op, Sort, Term, Value};
use solver::{Outcome, Solver, SolverConfig, SolverError};

/// What a subset of members is.
pub(crate) enum Probe<E> {
    /// It holds a conflict: a minimal conflicting subset of it (member indices), the
    /// evidence, and a reason to doubt its minimality (an unknown answer while shrinking).
    Conflict(Vec<usize>, E, Option<solver::Undecided>),
    /// It is free of conflict.
    Fine,
    /// The solver could not tell.
    Unknown(solver::Undecided),
}

/// The questions the enumeration asks about subsets of `0..n`.
pub(crate) trait Oracle {
    /// Evidence kept with each conflict (a witness, the domain constraints involved).
    type Evidence;
    /// Does `set` hold a conflict? If so, a minimal one within it.
    fn probe(&mut self, set: &[usize]) -> Result<Probe<Self::Evidence>, SolverError>;
    /// Is `set` free of conflict? `Ok(Some(more))` when it is, where `more` are members
    /// of `within` that can join it at once and keep it so (it may be empty); `Ok(None)`
    /// when it is not; `Err(reason)` when the solver cannot tell. Used to grow a good
    /// subset; the default asks [`Oracle::probe`] and names no more members.
    fn fine(
        &mut self,
        set: &[usize],
        _within: &[usize],
    ) -> Result<Result<Option<Vec<usize>>, solver::Undecided>, SolverError> {
        Ok(match self.probe(set)? {
            Probe::Fine => Ok(Some(Vec::new())),
            Probe::Conflict(..) => Ok(None),
            Probe::Unknown(r) => Err(r),
        })
    }
    /// A maximal subset of `within` that contains the good subset `seed` and is free of
    /// conflict; `Err(reason)` when the solver cannot tell. Adds one member at a time,
    /// with the members [`Oracle::fine`] says can join along with it.
    fn grow(
        &mut self,
        seed: &[usize],
        within: &[usize],
    ) -> Result<Result<Vec<usize>, solver::Undecided>, SolverError> {
        let mut grown = seed.to_vec();
        for &k in within {
            if grown.contains(&k) {
                continue;
            }
            let mut bigger = grown.clone();
            bigger.push(k);
            match self.fine(&bigger, within)? {
                Ok(Some(more)) => {
                    grown = bigger;
                    for j in more {
                        if !grown.contains(&j) {
                            grown.push(j);
                        }
                    }
                }
                Ok(None) => {}
                Err(r) => return Ok(Err(r)),
            }
        }
        Ok(Ok(grown))
    }
}

/// The minimal conflicts found, smallest first (then in the order found), and why the
/// enumeration stopped early, if it did.
pub(crate) struct Found<E> {
    pub conflicts: Vec<(Vec<usize>, E)>,
    pub stopped: Option<Incomplete>,
}

/// Enumerates the minimal conflicts among `members` (indices the oracle understands),
/// smallest first, stopping after `cap` of them. `map` configures the solver that holds
/// the subsets.
pub(crate) fn smallest_first<O: Oracle>(
    oracle: &mut O,
    members: &[usize],
    cap: usize,
    map: &SolverConfig,
) -> Result<Found<O::Evidence>, SolverError> {
    let n = members.len();
    let mut found: Vec<(Vec<usize>, O::Evidence)> = Vec::new();
    let mut stopped: Option<Incomplete> = None;
    let mut solver = Solver::start(map)?;
    let seeds: Vec<Term> = (0..n)
        .map(|k| Term::var(&format!("m{k}"), Sort::Bool))
        .collect();
    for k in 0..n {
        solver.declare_const(&format!("m{k}"), Sort::Bool)?;
    }
    let or = |ts: Vec<Term>| match ts.len() {
        0 => Term::Bool(false),
        1 => ts.into_iter().next().expect("one term"),
        _ => Term::app(Op::Or, ts),
    };
    let position = |m: usize| members.iter().position(|x| *x == m);
    let chosen = |model: &logic::Model| -> Vec<usize> {
        (0..n)
            .filter(|k| matches!(model.get(&format!("m{k}")), Some(Value::Bool(true))))
            .map(|k| members[k])
            .collect()
    };
    let unknown = |why: &str, reason: &dyn std::fmt::Display| {
        Some(Incomplete::Unknown {
            reason: solver::Undecided::other(format!("{why}: {reason}")),
        })
    };
    let mut level = 1usize;
    'levels: while level <= n {
        let bound = at_most(&mut solver, &seeds, level)?;
        loop {
            if found.len() >= cap {
                stopped = Some(Incomplete::Cap {
                    cap,
                    listed_up_to: Some(level - 1),
                });
                break 'levels;
            }
            let seed = match solver.check_assuming(std::slice::from_ref(&bound))? {
                Outcome::Sat(m) => chosen(&m),
                Outcome::Unsat(_) => break,
                Outcome::Unknown(r) => {
                    stopped = unknown("the subset solver answered unknown", &r);
                    break 'levels;
                }
            };
            match oracle.probe(&seed)? {
                Probe::Conflict(set, evidence, doubt) => {
                    solver.assert(&or(set
                        .iter()
                        .filter_map(|m| position(*m))
                        .map(|k| Term::not(seeds[k].clone()))
                        .collect()))?;
                    found.push((set, evidence));
                    if let Some(d) = doubt {
                        stopped = unknown("a conflict may not be minimal", &d);
                        break 'levels;
                    }
                }
                Probe::Fine => {
                    // Grow to a maximal good subset, then require leaving it.
                    let grown = match oracle.grow(&seed, members)? {
                        Ok(g) => g,
                        Err(r) => {
                            stopped = unknown("the solver answered unknown", &r);
                            break 'levels;
                        }
                    };
                    let leave: Vec<Term> = (0..n)
                        .filter(|k| !grown.contains(&members[*k]))
                        .map(|k| seeds[k].clone())
                        .collect();
                    if leave.is_empty() {
                        // Everything together is fine: no conflict at all.
                        break 'levels;
                    }
                    solver.assert(&or(leave))?;
                }
                Probe::Unknown(r) => {
                    stopped = unknown("the solver answered unknown", &r);
                    break 'levels;
                }
            }
        }
        level += 1;
    }
    sort(&mut found);
    Ok(Found {
        conflicts: found,
        stopped,
    })
}

/// Declares a literal that, when assumed, allows at most `k` of `xs` to be true: a
/// sequential counter (Sinz, 2005) in plain clauses, each guarded by the literal, so
/// the map stays a pure SAT problem that every solver answers at once (a sum of
/// `ite`s under a bound made cvc5 run into its time limit on sixty members).
fn at_most(solver: &mut Solver, xs: &[Term], k: usize) -> Result<Term, SolverError> {
    let name = format!("vera!le{k}");
    solver.declare_const(&name, Sort::Bool)?;
    let guard = Term::var(&name, Sort::Bool);
    let n = xs.len();
    if n <= k {
        return Ok(guard);
    }
    let clause = |solver: &mut Solver, mut lits: Vec<Term>| -> Result<(), SolverError> {
        lits.push(Term::not(guard.clone()));
        solver.assert(&Term::app(Op::Or, lits))
    };
    // s[i][j]: at least j + 1 of xs[0..=i] are true.
    let s = |i: usize, j: usize| Term::var(&format!("vera!le{k}!{i}!{j}"), Sort::Bool);
    for i in 0..n.saturating_sub(1) {
        for j in 0..k {
            solver.declare_const(&format!("vera!le{k}!{i}!{j}"), Sort::Bool)?;
        }
    }
    if k == 0 {
        for x in xs {
            clause(solver, vec![Term::not(x.clone())])?;
        }
        return Ok(guard);
    }
    clause(solver, vec![Term::not(xs[0].clone()), s(0, 0)])?;
    for j in 1..k {
        clause(solver, vec![Term::not(s(0, j))])?;
    }
    for (i, x) in xs.iter().enumerate().take(n - 1).skip(1) {
        clause(solver, vec![Term::not(x.clone()), s(i, 0)])?;
        clause(solver, vec![Term::not(s(i - 1, 0)), s(i, 0)])?;
        for j in 1..k {
            clause(
                solver,
                vec![Term::not(x.clone()), Term::not(s(i - 1, j - 1)), s(i, j)],
            )?;
            clause(solver, vec![Term::not(s(i - 1, j)), s(i, j)])?;
        }
        clause(
            solver,
            vec![Term::not(x.clone()), Term::not(s(i - 1, k - 1))],
        )?;
    }
    clause(
        solver,
        vec![Term::not(xs[n - 1].clone()), Term::not(s(n - 2, k - 1))],
    )?;
    Ok(guard)
}

/// Smallest first; among equals, by their members (so a report does not depend on the
/// order a solver happened to find them in).
fn sort<E>(found: &mut [(Vec<usize>, E)]) {
    for (set, _) in found.iter_mut() {
        set.sort_unstable();
    }
    found.sort_by(|(a, _), (b, _)| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
}

/// [`smallest_first`] over `parts` that cannot share a conflict (variable-disjoint
/// components, groups with disjoint outputs): each part is enumerated on its own, which
/// keeps every map small, and the lists are merged smallest first under one `cap`.
pub(crate) fn by_parts<O: Oracle>(
    oracle: &mut O,
    parts: &[Vec<usize>],
    cap: usize,
    map: &SolverConfig,
) -> Result<Found<O::Evidence>, SolverError> {
    let mut found = Vec::new();
    // Every conflict of at most this many members is listed.
    let mut listed_up_to = usize::MAX;
    let mut unknown = None;
    for part in parts {
        if part.is_empty() {
            continue;
        }
        let f = smallest_first(oracle, part, cap, map)?;
        found.extend(f.conflicts);
        match f.stopped {
            None => {}
            Some(Incomplete::Cap {
                listed_up_to: l, ..
            }) => listed_up_to = listed_up_to.min(l.unwrap_or(0)),
            Some(u @ Incomplete::Unknown { .. }) => {
                unknown = Some(u);
                break;
            }
        }
    }
    sort(&mut found);
    if found.len() > cap {
        listed_up_to = listed_up_to.min(found[cap].0.len() - 1);
        found.truncate(cap);
    }
    let stopped = unknown.or((listed_up_to != usize::MAX).then_some(Incomplete::Cap {
        cap,
        listed_up_to: Some(listed_up_to),
    }));
    Ok(Found {
        conflicts: found,
        stopped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Members are numbers; a subset is bad when it contains one of the given sets.
    struct Sets(Vec<Vec<usize>>);

    impl Oracle for Sets {
        type Evidence = ();
        fn probe(&mut self, set: &[usize]) -> Result<Probe<()>, SolverError> {
            for bad in &self.0 {
                if bad.iter().all(|b| set.contains(b)) {
                    let mut b = bad.clone();
                    b.sort_unstable();
                    return Ok(Probe::Conflict(b, (), None));
                }
            }
            Ok(Probe::Fine)
        }
    }

    fn config() -> SolverConfig {
        SolverConfig::new(solver::SolverKind::Z3)
    }

    #[test]
    fn small_conflicts_come_before_large_ones_under_a_cap() {
        // Seven 4-member conflicts listed first in the oracle, five 3-member ones after.
        let mut bad: Vec<Vec<usize>> = (0..7).map(|i| vec![i, i + 1, i + 2, i + 3]).collect();
        bad.extend((0..5).map(|i| vec![10 + i, 15 + i, 20 + i]));
        let mut o = Sets(bad);
        let found = smallest_first(&mut o, &(0..25).collect::<Vec<_>>(), 6, &config()).unwrap();
        let sizes: Vec<usize> = found.conflicts.iter().map(|(s, _)| s.len()).collect();
        assert_eq!(sizes, vec![3, 3, 3, 3, 3, 4], "{sizes:?}");
        match found.stopped {
            Some(Incomplete::Cap {
                cap: 6,
                listed_up_to: Some(3),
            }) => {}
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn every_conflict_without_a_cap() {
        let bad = vec![vec![0, 1], vec![1, 2, 3], vec![4]];
        let mut o = Sets(bad);
        let found = smallest_first(&mut o, &(0..6).collect::<Vec<_>>(), 100, &config()).unwrap();
        let sets: Vec<Vec<usize>> = found.conflicts.into_iter().map(|(s, _)| s).collect();
        assert_eq!(sets, vec![vec![4], vec![0, 1], vec![1, 2, 3]]);
        assert!(found.stopped.is_none());
    }

    #[test]
    fn parts_are_merged_smallest_first_under_one_cap() {
        // Part A holds two 3-member conflicts, part B three 2-member ones.
        let bad = vec![
            vec![0, 1, 2],
            vec![3, 4, 5],
            vec![10, 11],
            vec![12, 13],
            vec![14, 15],
        ];
        let mut o = Sets(bad);
        let parts = vec![(0..6).collect::<Vec<_>>(), (10..16).collect::<Vec<_>>()];
        let found = by_parts(&mut o, &parts, 4, &config()).unwrap();
        let sizes: Vec<usize> = found.conflicts.iter().map(|(s, _)| s.len()).collect();
        assert_eq!(sizes, vec![2, 2, 2, 3]);
        match found.stopped {
            Some(Incomplete::Cap {
                cap: 4,
                listed_up_to: Some(2),
            }) => {}
            other => panic!("{other:?}"),
        }
        let all = by_parts(&mut o, &parts, 10, &config()).unwrap();
        assert_eq!(all.conflicts.len(), 5);
        assert!(all.stopped.is_none());
    }

    #[test]
    fn the_counter_allows_exactly_up_to_k() {
        for kind in [solver::SolverKind::Z3, solver::SolverKind::Cvc5] {
            let mut s = Solver::start(&SolverConfig::new(kind)).unwrap();
            let xs: Vec<Term> = (0..6)
                .map(|i| {
                    s.declare_const(&format!("x{i}"), Sort::Bool).unwrap();
                    Term::var(&format!("x{i}"), Sort::Bool)
                })
                .collect();
            for k in 0..4 {
                let guard = at_most(&mut s, &xs, k).unwrap();
                for ones in 0..=6usize {
                    let mut assume = vec![guard.clone()];
                    assume.extend(xs.iter().take(ones).cloned());
                    assume.extend(xs.iter().skip(ones).map(|x| Term::not(x.clone())));
                    let sat = matches!(s.check_assuming(&assume).unwrap(), Outcome::Sat(_));
                    assert_eq!(sat, ones <= k, "{kind}: k = {k}, {ones} true");
                }
            }
        }
    }

    #[test]
    fn no_conflict_at_all() {
        let mut o = Sets(vec![]);
        let found = smallest_first(&mut o, &(0..5).collect::<Vec<_>>(), 10, &config()).unwrap();
        assert!(found.conflicts.is_empty());
        assert!(found.stopped.is_none());
    }
}
