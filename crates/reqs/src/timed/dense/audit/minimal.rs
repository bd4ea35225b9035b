//! The fewest requirements a redundancy proof needs.
//!
//! A requirement's redundancy is proved in a part of the product (the automata a proof
//! needed; at 200 generated requirements that is some 40 to 56 other requirements,
//! mostly the invariants every first part holds). Such a list tells the reader little.
//! Here the list is cut down: groups of requirements are dropped while the fixedpoint
//! engine still proves, in the part made of the rest, that no run breaks the
//! requirement (halves first, then quarters, down to one at a time). Dropping
//! automata only adds runs, so a group whose removal lets a run through is needed
//! whatever else is dropped later, and one pass of single removals leaves a set from
//! which no requirement can be dropped: a minimal one, when the engine answered every
//! proof it was asked. The first proof that runs out of time ends the cut (the set so
//! far is kept and not called minimal), so a product the engine finds hard costs one
//! time limit more, not one per requirement of the list.

use super::{Part, Question, SUB_PRODUCT_LIMIT};
use crate::timed::dense::system::{Proof, System};
use solver::{SolverConfig, SolverError};

/// A set of requirements that implies the requirement asked about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Shrunk {
    /// The automata of the requirements kept (automata of the product `vsys`).
    pub(super) keep: Part,
    /// Every proof the cut asked was answered, so no requirement of the set can be
    /// dropped (else some may be superfluous: a proof that ran out kept its group).
    pub(super) minimal: bool,
}

/// Cuts down `by` (the automata of the other requirements a redundancy proof used, in
/// the product `vsys` where every automaton may be violated) for the requirement whose
/// automata are `own`. `None` when the engine does not prove the redundancy in `by`
/// with `own`'s automata each alone (the proof that found it leaned on more: the list
/// is left as it was).
pub(super) fn shrink(
    vsys: &System,
    own: &[usize],
    by: &Part,
    config: &SolverConfig,
) -> Result<Option<Shrunk>, SolverError> {
    let mut limit = config.clone();
    limit.timeout = limit.timeout.min(SUB_PRODUCT_LIMIT);
    // The groups to drop: one per other requirement, with its automata in `by`.
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    for (b, aut) in vsys.automata.iter().enumerate() {
        if !by[b] || own.contains(&b) || own.iter().any(|a| vsys.automata[*a].req == aut.req) {
            continue;
        }
        match groups.iter_mut().find(|(req, _)| *req == aut.req) {
            Some((_, auts)) => auts.push(b),
            None => groups.push((aut.req, vec![b])),
        }
    }
    // Those that share no variable with the requirement first: the halves dropped
    // first are then the likeliest to go.
    let near: std::collections::BTreeSet<logic::Symbol> = own
        .iter()
        .flat_map(|a| super::variables_of(vsys, *a))
        .collect();
    groups.sort_by_key(|(_, auts)| {
        auts.iter()
            .any(|b| !super::variables_of(vsys, *b).is_disjoint(&near))
    });
    // With one automaton the proof that found the redundancy was this one (the part
    // `by`, only that automaton violable); with more, each was proved in a part that
    // may have held the others, which the cut leaves out, so the whole of `by` is
    // asked first.
    if own.len() > 1 && proves(vsys, own, &groups, &limit)? != (true, true) {
        return Ok(None);
    }
    let mut answered = true;
    let mut chunk = groups.len().div_ceil(2).max(1);
    'cut: loop {
        let mut start = 0;
        while start < groups.len() {
            let end = (start + chunk).min(groups.len());
            let mut without = groups[..start].to_vec();
            without.extend_from_slice(&groups[end..]);
            let (proved, all) = proves(vsys, own, &without, &limit)?;
            answered = all;
            if proved {
                groups = without;
            } else {
                start = end;
            }
            // A proof that ran out ends the cut: on a product where the engine runs
            // out, each further drop could cost its whole limit too.
            if !answered {
                break 'cut;
            }
        }
        if chunk == 1 {
            break;
        }
        chunk = chunk.div_ceil(2);
    }
    let mut keep = vec![false; by.len()];
    for b in groups.iter().flat_map(|(_, auts)| auts) {
        keep[*b] = true;
    }
    Ok(Some(Shrunk {
        keep,
        minimal: answered,
    }))
}

/// Whether the engine proves, for each automaton of `own` alone with the automata of
/// `groups`, that no run breaks it; and whether it answered every proof asked (a
/// proof that runs out counts as not proved).
fn proves(
    vsys: &System,
    own: &[usize],
    groups: &[(usize, Vec<usize>)],
    limit: &SolverConfig,
) -> Result<(bool, bool), SolverError> {
    let mut keep = vec![false; vsys.automata.len()];
    for b in groups.iter().flat_map(|(_, auts)| auts) {
        keep[*b] = true;
    }
    for a in own {
        let mut with = keep.clone();
        with[*a] = true;
        let mut part = vsys.restricted(with);
        part.violable = (0..part.automata.len()).map(|b| b == *a).collect();
        let bad = Question::Violated { a: *a }.bad(&part, 0);
        match part.prove(&bad, limit)? {
            Proof::Proved => {}
            Proof::Reachable => return Ok((false, true)),
            Proof::Unknown(_) => return Ok((false, false)),
        }
    }
    Ok((true, true))
}
