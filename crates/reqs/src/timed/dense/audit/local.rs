//! The search of one question on a part of the product first.
//!
//! At a thousand requirements one query of the whole product takes about half a
//! second, and the search asks thousands. Most questions are about a few automata: the
//! part made of those automata and the invariants is asked first, in a solver session
//! of its own. A part that has no run of this many intervals answers for the whole
//! product (a part has more runs). A run of the part is asked of the whole product with
//! the part's variables and the intervals' lengths fixed; when the whole has no such
//! run, a session where each automaton is under a literal of its own
//! ([`System::guarded`]) names in its core the automata that forbid it, they join the
//! part, and the part is asked again.

use super::{Ctx, Part, Question};
use crate::timed::dense::system::{Bmc, System};
use crate::timed::unroll::var_at;
use logic::{Model, Op, Term};
use solver::{Outcome, SolverError};

/// What the search of a part says of one question at the sessions' depth.
pub(super) enum Found {
    /// A run of the whole product that reaches the point (the whole session's model).
    Run(Model),
    /// No run of the part of this many intervals reaches it, so none of the whole.
    Nothing,
    /// The parts did not settle it: the whole product is to be asked.
    Whole,
}

/// How many times the automata that forbid a part's run are added before the whole
/// product is asked instead.
const MAX_ROUNDS: usize = 6;

/// The first part for `question`: its own automata, those over the variables of a
/// formula it asks about, and every invariant.
pub(super) fn first_part(sys: &System, question: &Question) -> Part {
    let mut keep: Part = (0..sys.automata.len())
        .map(|a| sys.automata[a].pea.is_invariant())
        .collect();
    for a in question.automata() {
        keep[a] = true;
    }
    if let Question::Holds { term } = question {
        let vars: std::collections::BTreeSet<logic::Symbol> =
            term.free_vars().into_iter().map(|(n, _)| n).collect();
        for (a, k) in keep.iter_mut().enumerate() {
            if !*k && !super::variables_of(sys, a).is_disjoint(&vars) {
                *k = true;
            }
        }
    }
    keep
}

/// Searches the point `question` asks about (`bad` in the whole product, at the
/// sessions' depth; `shifted` as [`Question::bad_shifted`] has it) on the
/// part `keep`, in a session of that part's own, and asks `whole` for a run that
/// agrees with the part's on the part's variables and the intervals' lengths. When
/// there is none, the guarded session `guarded` (every literal assumed) names in its
/// core the automata left out that forbid it: they join `keep` and the part is asked
/// again (see [`Found`]). An unsatisfiable answer of the part is re-checked when
/// `checked`.
pub(super) fn find(
    ctx: &Ctx,
    (whole, guarded): (&mut Bmc, &mut Bmc),
    (question, shifted, bad): (&Question, bool, &Term),
    keep: &mut Part,
    checked: bool,
) -> Result<Found, SolverError> {
    let sys = ctx.sys;
    let k = whole.depth;
    let n = keep.len();
    let config = whole.solver.config().clone();
    for _ in 0..MAX_ROUNDS {
        // A part of more than half the product saves little: the whole is asked.
        if 2 * keep.iter().filter(|x| **x).count() > n {
            return Ok(Found::Whole);
        }
        // A session of the part's own: a small product answers in milliseconds, where
        // a large session with the rest of the automata switched off took seconds.
        let part = sys.restricted(keep.clone());
        let mut session = Bmc::start(&part, &config)?;
        while session.depth < k {
            session.extend()?;
        }
        // The point as the part sees it (a redundancy question names every automaton
        // of the product that may be violated).
        let part_bad = question.bad_shifted(&part, k, shifted);
        let found = if checked {
            session.check(&part_bad)?
        } else {
            session.search(&part_bad)?
        };
        drop(session);
        let m = match found {
            Outcome::Unsat(_) => return Ok(Found::Nothing),
            Outcome::Unknown(_) => return Ok(Found::Whole),
            Outcome::Sat(m) => m,
        };
        let fixed = fixed_to(sys, bad, &m, k, &part_variables(sys, keep));
        match whole.search(&fixed)? {
            Outcome::Sat(w) => return Ok(Found::Run(w)),
            Outcome::Unknown(_) => return Ok(Found::Whole),
            Outcome::Unsat(_) => {}
        }
        // The automata in the solver's core that the part left out are what forbids
        // the part's run.
        let Outcome::Unsat(core) = guarded.check_guarded(&fixed)? else {
            return Ok(Found::Whole);
        };
        let mut grew = false;
        for (a, k) in keep.iter_mut().enumerate() {
            if !*k && core.contains(&sys.act(a)) {
                *k = true;
                grew = true;
            }
        }
        if !grew {
            return Ok(Found::Whole);
        }
    }
    Ok(Found::Whole)
}

/// The state variables the automata of `keep` mention.
fn part_variables(sys: &System, keep: &Part) -> std::collections::BTreeSet<logic::Symbol> {
    (0..keep.len())
        .filter(|a| keep[*a])
        .flat_map(|a| super::variables_of(sys, a))
        .collect()
}

/// `bad` with the state variables `vars` and the interval lengths of check points
/// `0..=k` fixed to their values in `m`.
pub(super) fn fixed_to(
    sys: &System,
    bad: &Term,
    m: &Model,
    k: usize,
    vars: &std::collections::BTreeSet<logic::Symbol>,
) -> Term {
    let mut fixed = vec![bad.clone()];
    for j in 0..=k {
        let delta = std::iter::once(sys.delta(j)).filter_map(|d| match d {
            Term::Var(n, s) => Some((n, s)),
            _ => None,
        });
        let state = (sys.state.iter())
            .filter(|(x, _)| vars.contains(x))
            .map(|(x, s)| (var_at(x, j), s.clone()));
        for (n, s) in state.chain(delta) {
            if let Some(v) = m.get(&n) {
                fixed.push(Term::App(Op::Eq, vec![Term::Var(n, s), v.to_term()]));
            }
        }
    }
    Term::App(Op::And, fixed)
}
