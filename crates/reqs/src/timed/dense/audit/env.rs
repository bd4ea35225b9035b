//! Conflicts the environment can force, in dense time: realizability over time.
//!
//! With roles in the schema (`role = "input"`: the environment's; every other variable
//! the system's), a set of requirements has such a conflict at a reachable point when
//! the environment can choose the next interval's inputs so that the set (with every
//! invariant) has no joint next step whatever the system chooses, while some other
//! choice of inputs leaves it one. The second half keeps the points out where the set
//! has no next step at all: those are rt-inconsistency, which needs no environment.
//!
//! Per location vector and clock cube of a set, the diagram `f` of its joint next
//! steps is judged by [`env_judge`]: with `A` the environment's assumptions over the
//! next inputs (the invariants and domain constraints over inputs only), the
//! environment can force a dead end when `∃in. A ∧ ¬∃out. f` and the set has a step
//! for other inputs when `∃in. A ∧ ∃out. f`. The system's Boolean variables are
//! quantified in the diagram; with Int or Real variables of the system a bounded
//! counterexample-guided search over the inputs decides ([`judge_by_search`]), or says
//! it did not settle. What the two halves leave over the current state
//! (a history variable's value) becomes a condition on the point asked about. The
//! points found are then questions like the rt sets' ("is such a point reachable?"),
//! answered by the same search and proofs.
//!
//! The automata fall into groups linked through the system's variables (two are linked
//! when they share one, directly or through other automata). Per group, the sets asked
//! about are its invariants alone (shrunk to a smallest set that keeps the conflict),
//! each automaton that is not an invariant, and each pair of those, each with the
//! group's invariants: a pair across groups has a conflict only where one of its
//! members has one on its own. A set is reported only when none of its subsets is.

use super::{
    automaton_name, combinations, primed_invariants, run_of, stuck_points, variables_of, DataSat,
    DenseOptions, DenseTrace, Judged, Ndc, Question, Reach, RtCheck, Steps,
};
use crate::spec::{Role, Spec};
use crate::timed::dense::bdd::{Atom, Ref, FALSE, TRUE};
use crate::timed::dense::eval::{matched, Piece};
use crate::timed::dense::system::subst;
use crate::timed::dense::system::System;
use crate::timed::unroll::var_at;
use logic::{Sort, Symbol, Term};
use num_rational::BigRational;
use num_traits::Zero;
use rustc_hash::FxHashSet as HashSet;
use serde::Serialize;
use solver::{Outcome, SolverError};

/// Conflicts the environment can force (realizability over time).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum DenseEnvironment {
    /// Not checked.
    NotChecked {
        /// Why.
        reason: String,
    },
    /// Checked: every set whose pre-check finds a point the environment can force.
    Checked {
        /// The sets asked about (a set with a reachable conflict, or one whose check is
        /// not decided), minimal: no subset of a set listed has a conflict.
        checks: Vec<RtCheck>,
        /// How many sets were free without a search (no point of theirs lets the
        /// environment force a dead end).
        trivial: usize,
    },
}

impl DenseEnvironment {
    /// The sets with a conflict the environment can force.
    pub fn conflicts(&self) -> Vec<&RtCheck> {
        match self {
            DenseEnvironment::Checked { checks, .. } => checks
                .iter()
                .filter(|c| matches!(c.dead_end, Reach::Reachable { .. }))
                .collect(),
            DenseEnvironment::NotChecked { .. } => Vec::new(),
        }
    }

    /// The checks not decided for every run.
    pub fn open(&self) -> Vec<&RtCheck> {
        match self {
            DenseEnvironment::Checked { checks, .. } => checks
                .iter()
                .filter(|c| {
                    !matches!(
                        c.dead_end,
                        Reach::Reachable { .. } | Reach::Unreachable { proved: true, .. }
                    )
                })
                .collect(),
            DenseEnvironment::NotChecked { .. } => Vec::new(),
        }
    }
}

/// Which variables the environment chooses, and the history variables (whose value in
/// a next step is the current state's).
#[derive(Clone)]
struct Roles {
    inputs: HashSet<Symbol>,
    history: HashSet<Symbol>,
}

impl Roles {
    /// The variable a name stands for: a history variable's own variable.
    fn base<'a>(&'a self, sys: &'a System, n: &'a Symbol) -> &'a Symbol {
        sys.history
            .iter()
            .find(|(h, _, _)| h == n)
            .map_or(n, |(_, x, _)| x)
    }

    /// A variable the system chooses in the next step: neither an input nor a history
    /// variable.
    fn chosen(&self, n: &Symbol) -> bool {
        !self.history.contains(n) && !self.inputs.contains(n)
    }

    /// `term` reads the current state (a history variable).
    fn reads_history(&self, term: &Term) -> bool {
        term.free_vars()
            .iter()
            .any(|(n, _)| self.history.contains(n))
    }
}

/// The environment's questions, added to the audit's.
pub(super) struct EnvAsked {
    /// The sets asked about: the automata, the invariants taken with them, the
    /// question.
    pub sets: Vec<(Vec<usize>, Vec<usize>, usize)>,
    /// Sets free without a search.
    pub trivial: usize,
    /// What the pre-check judged by: the roles, the environment's assumptions and the
    /// domain constraints kept with the invariants.
    judging: (Roles, Ref, Ref),
}

/// Why the check is not run on this spec, if it is not.
fn not_checked(spec: &Spec, sys: &System, rt_range: usize) -> Option<String> {
    let inputs = spec
        .variables
        .iter()
        .filter(|v| v.role == Some(Role::Input))
        .count();
    if rt_range == 0 {
        return Some("--no-rt".into());
    }
    if inputs == 0 {
        return Some("no variable has role = \"input\"".into());
    }
    if inputs == spec.variables.len() {
        return Some(
            "every variable is an input: no requirement constrains what the system chooses".into(),
        );
    }
    let roles = roles(spec, sys);
    let mut timed: Vec<String> = (0..sys.automata.len())
        .filter(|a| !sys.automata[*a].pea.is_invariant() && inputs_only(sys, &roles, *a))
        .map(|a| sys.automata[a].id.clone())
        .collect();
    timed.dedup();
    (!timed.is_empty()).then(|| {
        format!(
            "{} constrain{} inputs only, over time: the environment's timed assumptions are not modelled",
            timed.join(", "),
            if timed.len() == 1 { "s" } else { "" }
        )
    })
}

fn roles(spec: &Spec, sys: &System) -> Roles {
    Roles {
        inputs: spec
            .variables
            .iter()
            .filter(|v| v.role == Some(Role::Input))
            .map(|v| v.name.clone())
            .collect(),
        history: sys.history.iter().map(|(h, _, _)| h.clone()).collect(),
    }
}

/// True when automaton `a` mentions inputs only (an assumption about the environment).
fn inputs_only(sys: &System, roles: &Roles, a: usize) -> bool {
    variables_of(sys, a)
        .iter()
        .all(|n| roles.inputs.contains(roles.base(sys, n)))
}

/// Builds the environment's questions (appended to `questions` and `answers`), or says
/// why there are none.
pub(super) fn ask_env(
    spec: &Spec,
    sys: &mut System,
    (invariants, others): (&[usize], &[usize]),
    options: &DenseOptions,
    (data, steps): (&mut DataSat, &mut Steps),
    (questions, answers): (&mut Vec<Question>, &mut Vec<Option<Reach>>),
) -> Result<Result<EnvAsked, String>, SolverError> {
    let rt_range = options.rt_range;
    if let Some(reason) = not_checked(spec, sys, rt_range) {
        return Ok(Err(reason));
    }
    let roles = roles(spec, sys);
    let (assumed, kept): (Vec<usize>, Vec<usize>) = invariants
        .iter()
        .partition(|a| inputs_only(sys, &roles, **a));
    // The environment's assumptions over the next inputs, and the domain constraints
    // over the system's variables (kept like invariants).
    let mut assume = primed_invariants(sys, &assumed);
    let mut kept_domain = TRUE;
    for d in &spec.domain {
        let f = sys.bdd_mut().of_term(&d.formula);
        let f = sys.bdd_mut().prime(f);
        let over_inputs = (d.formula.free_vars().iter()).all(|(n, _)| roles.inputs.contains(n));
        if over_inputs {
            assume = sys.bdd_mut().and(assume, f);
        } else {
            kept_domain = sys.bdd_mut().and(kept_domain, f);
        }
    }
    let mut judge = judge_with(&roles, assume, kept_domain);
    let mut out = EnvAsked {
        sets: Vec::new(),
        trivial: 0,
        judging: (roles.clone(), assume, kept_domain),
    };
    let groups = linked(sys, &roles, others, &kept);
    let (progress, total) = (&options.progress, groups.len());
    progress.stage("environment: groups of automata", total);
    for (done, (group, invs)) in groups.into_iter().enumerate() {
        progress.step(done, "");
        // The group's invariants alone; when they are in conflict at every point,
        // every set of the group has theirs.
        if invariants_alone(
            sys,
            (data, steps),
            &mut judge,
            &invs,
            &mut out,
            (questions, answers),
        )? {
            continue;
        }
        let inv = primed_invariants(sys, &invs);
        let mut sets: Vec<Vec<usize>> = group.iter().map(|a| vec![*a]).collect();
        for m in 2..=rt_range.min(group.len()) {
            sets.extend(combinations(&group, m));
        }
        for set in sets {
            match stuck_points(sys, &set, inv, data, steps, &mut judge)? {
                Ok(None) => out.trivial += 1,
                answer => push(&mut out, (questions, answers), (set, invs.clone()), answer),
            }
        }
    }
    progress.step(total, "");
    Ok(Ok(out))
}

/// The question of invariants `invs` alone (shrunk to a smallest set that keeps a
/// conflict), when the pre-check finds one; true when they are in conflict at every
/// point.
fn invariants_alone(
    sys: &mut System,
    (data, steps): (&mut DataSat, &mut Steps),
    judge: &mut super::Judge,
    invs: &[usize],
    out: &mut EnvAsked,
    (questions, answers): (&mut Vec<Question>, &mut Vec<Option<Reach>>),
) -> Result<bool, SolverError> {
    if invs.is_empty() {
        return Ok(false);
    }
    let all = primed_invariants(sys, invs);
    let empty = stuck_points(sys, &[], all, data, steps, judge)?;
    if matches!(empty, Ok(None)) {
        out.trivial += 1;
        return Ok(false);
    }
    let unconditional = matches!(&empty, Ok(Some(n)) if n.vectors.iter()
        .all(|(_, _, c)| c.iter().all(|(_, cond, _)| cond.is_none())));
    let keep = shrink(sys, (data, steps), judge, (&[], invs), &|_| true)?;
    let inv = primed_invariants(sys, &keep);
    let answer = stuck_points(sys, &[], inv, data, steps, judge)?;
    push(out, (questions, answers), (Vec::new(), keep), answer);
    Ok(unconditional)
}

/// Adds the question of `set` (with invariants `invs`) with the pre-check's `answer`.
fn push(
    out: &mut EnvAsked,
    (questions, answers): (&mut Vec<Question>, &mut Vec<Option<Reach>>),
    (set, invs): (Vec<usize>, Vec<usize>),
    answer: Result<Option<Ndc>, solver::Undecided>,
) {
    out.sets.push((set.clone(), invs, questions.len()));
    let (ndc, known) = match answer {
        Ok(n) => (n.unwrap_or(Ndc { vectors: vec![] }), None),
        Err(reason) => (
            Ndc { vectors: vec![] },
            Some(Reach::Unknown { reason, up_to: 0 }),
        ),
    };
    questions.push(Question::Rt { set, ndc });
    answers.push(known);
}

/// The automata of `others` and the invariants of `kept` in groups linked through the
/// system's variables (two are linked when they share one, or are linked to an
/// automaton that does).
fn linked(
    sys: &System,
    roles: &Roles,
    others: &[usize],
    kept: &[usize],
) -> Vec<(Vec<usize>, Vec<usize>)> {
    let nodes: Vec<usize> = others.iter().chain(kept).copied().collect();
    let outputs: Vec<Vec<Symbol>> = nodes
        .iter()
        .map(|a| {
            variables_of(sys, *a)
                .iter()
                .map(|n| roles.base(sys, n).clone())
                .filter(|n| !roles.inputs.contains(n))
                .collect()
        })
        .collect();
    // Union-find over the nodes, joined through their variables.
    let mut parent: Vec<usize> = (0..nodes.len()).collect();
    fn find(p: &mut [usize], i: usize) -> usize {
        let mut r = i;
        while p[r] != r {
            r = p[r];
        }
        p[i] = r;
        r
    }
    let mut owner: rustc_hash::FxHashMap<&Symbol, usize> = Default::default();
    for (i, vars) in outputs.iter().enumerate() {
        for v in vars {
            match owner.get(v) {
                Some(&j) => {
                    let (ri, rj) = (find(&mut parent, i), find(&mut parent, j));
                    parent[ri] = rj;
                }
                None => {
                    owner.insert(v, i);
                }
            }
        }
    }
    let mut groups: rustc_hash::FxHashMap<usize, (Vec<usize>, Vec<usize>)> = Default::default();
    for (i, a) in nodes.iter().enumerate() {
        let r = find(&mut parent, i);
        let g = groups.entry(r).or_default();
        if i < others.len() {
            g.0.push(*a);
        } else {
            g.1.push(*a);
        }
    }
    let mut out: Vec<(Vec<usize>, Vec<usize>)> = groups.into_values().collect();
    out.sort();
    out
}

/// Judges one diagram `f` of a set's joint next steps: [`Judged::Stuck`] when the
/// environment can choose inputs (allowed by `assume`) with no joint step for any
/// choice of the system's variables, while other inputs leave one.
fn env_judge(
    sys: &mut System,
    data: &mut DataSat,
    roles: &Roles,
    assume: Ref,
    f: Ref,
) -> Result<Judged, SolverError> {
    let mut system_bools = Vec::new();
    let mut system_data = false;
    for v in sys.bdd.support(f) {
        match &sys.bdd.atoms()[v as usize] {
            Atom::Data {
                term: Term::Var(n, Sort::Bool),
                primed: true,
            } if roles.chosen(n) => {
                system_bools.push(v);
            }
            Atom::Data { term, primed: true } => {
                system_data |= term.free_vars().iter().any(|(n, _)| roles.chosen(n));
            }
            _ => {}
        }
    }
    if system_data {
        return judge_by_search(sys, data, roles, assume, f);
    }
    let g = sys.bdd_mut().exists(f, &system_bools);
    let ng = sys.bdd_mut().not(g);
    let forced = sys.bdd_mut().and(assume, ng);
    let served = sys.bdd_mut().and(assume, g);
    if forced == FALSE || served == FALSE {
        return Ok(Judged::Free);
    }
    // What is left over the current state, with the Boolean inputs quantified.
    let mut conds = Vec::new();
    let mut closed = true;
    let mut input_data = false;
    for h in [forced, served] {
        let bools: Vec<u32> = (sys.bdd.support(h).into_iter())
            .filter(|v| matches!(&sys.bdd.atoms()[*v as usize], Atom::Data { term: Term::Var(n, Sort::Bool), primed: true } if !roles.history.contains(n)))
            .collect();
        let c = sys.bdd_mut().exists(h, &bools);
        for v in sys.bdd.support(c) {
            match &sys.bdd.atoms()[v as usize] {
                Atom::Data { term, primed: true } if !roles.reads_history(term) => {
                    input_data = true
                }
                _ => closed = false,
            }
        }
        conds.push(c);
    }
    if closed {
        // Over the next inputs only: the solver decides both halves.
        return Ok(match (data.sat(sys, forced)?, data.sat(sys, served)?) {
            (Some(true), Some(true)) => Judged::Stuck {
                cond: None,
                choice: Some(forced),
            },
            (Some(false), _) | (_, Some(false)) => Judged::Free,
            _ => Judged::Undecided(solver::Undecided::other(
                "whether the environment can force a dead end had no answer from the solver",
            )),
        });
    }
    if input_data {
        return Ok(Judged::Undecided(solver::Undecided::other(
            "a dead end the environment forces through Int or Real inputs that depends on the previous interval is not decided in dense time",
        )));
    }
    let cond = sys.bdd_mut().and(conds[0], conds[1]);
    Ok(if cond == FALSE {
        Judged::Free
    } else {
        Judged::Stuck {
            cond: Some(cond),
            choice: Some(forced),
        }
    })
}

/// The verdict from the answers (`asked`: the questions, or why there are none). A
/// conflict found is listed with the fewest of its group's invariants that give the
/// pre-check the same points ([`fewest_invariants`]).
pub(super) fn environment(
    spec: &Spec,
    (sys, data, steps): (&mut System, &mut DataSat, &mut Steps),
    (asked, questions): (Result<EnvAsked, String>, &[Question]),
    consistent: bool,
    answer: &dyn Fn(usize) -> Reach,
    epsilon_only: &[bool],
) -> Result<DenseEnvironment, SolverError> {
    let mut asked = match asked {
        Err(reason) => return Ok(DenseEnvironment::NotChecked { reason }),
        Ok(_) if !consistent => {
            return Ok(DenseEnvironment::NotChecked {
                reason: "the requirements are not consistent".into(),
            })
        }
        Ok(asked) => asked,
    };
    let EnvAsked { sets, judging, .. } = &mut asked;
    for (set, invs, qi) in sets {
        if set.is_empty() || !matches!(answer(*qi), Reach::Reachable { .. }) {
            continue;
        }
        if let Question::Rt { ndc, .. } = &questions[*qi] {
            *invs = fewest_invariants(sys, (data, steps), judging, (set, invs), ndc)?;
        }
    }
    Ok(DenseEnvironment::Checked {
        checks: env_checks(spec, sys, &asked, answer, epsilon_only),
        trivial: asked.trivial,
    })
}

/// The invariants `invs` of a set's question without those the pre-check does not need:
/// each is left out when the set's points stay the same without it.
fn fewest_invariants(
    sys: &mut System,
    (data, steps): (&mut DataSat, &mut Steps),
    (roles, assume, kept_domain): &(Roles, Ref, Ref),
    (set, invs): (&[usize], &[usize]),
    ndc: &Ndc,
) -> Result<Vec<usize>, SolverError> {
    let mut judge = judge_with(roles, *assume, *kept_domain);
    shrink(sys, (data, steps), &mut judge, (set, invs), &|n| n == ndc)
}

/// The invariants `invs` less each one without which the points of `set` are still
/// found and `same` says they are the same (deletion, one at a time).
fn shrink(
    sys: &mut System,
    (data, steps): (&mut DataSat, &mut Steps),
    judge: &mut super::Judge,
    (set, invs): (&[usize], &[usize]),
    same: &dyn Fn(&Ndc) -> bool,
) -> Result<Vec<usize>, SolverError> {
    let mut keep = invs.to_vec();
    let mut i = 0;
    while i < keep.len() {
        let mut fewer = keep.clone();
        fewer.remove(i);
        let inv = primed_invariants(sys, &fewer);
        match stuck_points(sys, set, inv, data, steps, judge)? {
            Ok(Some(n)) if same(&n) => keep = fewer,
            _ => i += 1,
        }
    }
    Ok(keep)
}

/// The judge of the environment's dead ends ([`env_judge`]) with the domain
/// constraints kept with the invariants.
fn judge_with(
    roles: &Roles,
    assume: Ref,
    kept_domain: Ref,
) -> impl FnMut(&mut System, &mut DataSat, Ref) -> Result<Judged, SolverError> + '_ {
    move |sys: &mut System, data: &mut DataSat, f: Ref| {
        let f = sys.bdd_mut().and(f, kept_domain);
        env_judge(sys, data, roles, assume, f)
    }
}

/// How many candidate inputs [`judge_by_search`] tries before it gives up.
const MAX_CANDIDATES: usize = 64;

/// [`env_judge`] for a diagram with Int or Real variables of the system, which the
/// diagram cannot quantify: a counterexample-guided search over two questions to the
/// solver. A candidate is a choice of inputs that `assume` allows and no system answer
/// found so far serves; the check asks for an answer to it. No candidate left: the
/// system answers every input (free); a candidate without an answer: the environment
/// forces the dead end (then judged against the set having a step at all). Only for
/// diagrams over the next state alone.
fn judge_by_search(
    sys: &mut System,
    data: &mut DataSat,
    roles: &Roles,
    assume: Ref,
    f: Ref,
) -> Result<Judged, SolverError> {
    let current = |sys: &System, r: Ref| {
        sys.bdd
            .support(r)
            .into_iter()
            .any(|v| match &sys.bdd.atoms()[v as usize] {
                Atom::Data { term, primed: true } => roles.reads_history(term),
                _ => true,
            })
    };
    if current(sys, f) || current(sys, assume) {
        return Ok(Judged::Undecided(solver::Undecided::other(
            "a dead end the environment forces that depends on the previous interval and on Int or Real variables of the system is not decided in dense time",
        )));
    }
    let (ft, at) = (sys.term(0, f, 0, false), sys.term(0, assume, 0, false));
    let next: Vec<(Symbol, Sort, (Symbol, bool))> = (sys.state.iter())
        .map(|(n, s)| {
            (
                var_at(n, 1),
                s.clone(),
                (n.clone(), roles.inputs.contains(n)),
            )
        })
        .filter(|(n, _, _)| ft.free_vars().iter().any(|(m, _)| m == n))
        .collect();
    let undecided = || {
        Judged::Undecided(solver::Undecided::other(
            "whether the environment can force a dead end had no answer from the solver",
        ))
    };
    let mut learned = vec![at];
    for _ in 0..MAX_CANDIDATES {
        let candidate = match ask(data, &learned)? {
            Outcome::Sat(m) => m,
            Outcome::Unsat(_) => return Ok(Judged::Free),
            Outcome::Unknown(_) => return Ok(undecided()),
        };
        let fixed: Vec<Term> = std::iter::once(ft.clone())
            .chain(next.iter().filter(|(_, _, i)| i.1).map(|(n, s, _)| {
                let v = value(&candidate, n, s, data.solver.context());
                Term::App(logic::Op::Eq, vec![Term::Var(n.clone(), s.clone()), v])
            }))
            .collect();
        match ask(data, &fixed)? {
            Outcome::Unsat(_) => {
                let served = sys.bdd_mut().and(assume, f);
                let mut choice = TRUE;
                for (n, s, (base, _)) in next.iter().filter(|(_, _, i)| i.1) {
                    let v = value(&candidate, n, s, data.solver.context());
                    let eq = Term::App(logic::Op::Eq, vec![Term::Var(base.clone(), s.clone()), v]);
                    let atom = sys.bdd_mut().of_term(&eq);
                    let primed = sys.bdd_mut().prime(atom);
                    choice = sys.bdd_mut().and(choice, primed);
                }
                return Ok(match data.sat(sys, served)? {
                    Some(true) => Judged::Stuck {
                        cond: None,
                        choice: Some(choice),
                    },
                    Some(false) => Judged::Free,
                    None => undecided(),
                });
            }
            Outcome::Sat(answer) => {
                let map: std::collections::HashMap<Symbol, Term> = (next.iter())
                    .filter(|(_, _, i)| !i.1)
                    .map(|(n, s, _)| (n.clone(), value(&answer, n, s, data.solver.context())))
                    .collect();
                learned.push(Term::not(subst(&ft, &map)));
            }
            Outcome::Unknown(_) => return Ok(undecided()),
        }
    }
    Ok(Judged::Undecided(solver::Undecided::other(format!(
        "the environment's choices were not settled after {MAX_CANDIDATES} candidates (Int or Real variables of the system)"
    ))))
}

/// `terms` asked of the pre-check's session, in a scope of its own.
fn ask(data: &mut DataSat, terms: &[Term]) -> Result<Outcome, SolverError> {
    data.solver.push()?;
    let out = data.solver.check_assuming(terms);
    data.solver.pop()?;
    out
}

/// The value of `n` in model `m` as a term (the sort's default when the model leaves
/// it out).
fn value(m: &logic::Model, n: &Symbol, s: &Sort, ctx: &logic::Context) -> Term {
    m.get(n)
        .cloned()
        .or_else(|| solver::default_value(s, ctx))
        .map_or(Term::Var(n.clone(), s.clone()), |v| v.to_term())
}

/// The report's checks from the answers: per set asked about, minimal ones only (no
/// subset with a conflict), without those trivially free.
fn env_checks(
    spec: &Spec,
    sys: &System,
    asked: &EnvAsked,
    answer: &dyn Fn(usize) -> Reach,
    epsilon_only: &[bool],
) -> Vec<RtCheck> {
    let all = |(set, invs, _): &(Vec<usize>, Vec<usize>, usize)| -> Vec<usize> {
        set.iter().chain(invs).copied().collect()
    };
    let found: Vec<Vec<usize>> = (asked.sets.iter())
        .filter(|(_, _, qi)| matches!(answer(*qi), Reach::Reachable { .. }))
        .map(all)
        .collect();
    asked
        .sets
        .iter()
        .filter(|s| {
            let auts = all(s);
            !found
                .iter()
                .any(|f| f.len() < auts.len() && f.iter().all(|a| auts.contains(a)))
        })
        .map(|s| {
            let (auts, qi) = (all(s), s.2);
            let mut reqs: Vec<String> = auts.iter().map(|a| sys.automata[*a].id.clone()).collect();
            reqs.sort();
            reqs.dedup();
            RtCheck {
                requirements: reqs,
                automata: auts
                    .iter()
                    .map(|a| automaton_name(spec, &sys.automata[*a]))
                    .collect(),
                dead_end: answer(qi),
                epsilon_only: epsilon_only[qi],
            }
        })
        .collect()
}

/// A dead end the search reached for question `q` at the end of run `m` (check point
/// `k`; `trace` its table): for the environment's dead ends, with what it chooses next;
/// for a set with an automaton stricter than its countertrace (a phase after the first
/// that may be empty and has a formula, which the automaton skips only where the state
/// changes), confirmed by the countertrace evaluator ([`confirmed`]) or reported
/// undecided.
pub(super) fn reached(
    spec: &Spec,
    sys: &System,
    q: &Question,
    m: &logic::Model,
    k: usize,
    mut trace: DenseTrace,
) -> Reach {
    let intervals = k + 1;
    let Question::Rt { set, ndc } = q else {
        return Reach::Reachable { intervals, trace };
    };
    let Some(choice) = ndc.choice_at(sys, set, m, &spec.context, k) else {
        return Reach::Reachable { intervals, trace };
    };
    trace.next_inputs = choice.text.clone();
    let stricter = set.iter().find(|a| {
        (sys.automata[**a].pea.phases.iter())
            .skip(1)
            .any(|ph| ph.allow_empty && ph.inv != TRUE)
    });
    let Some(a) = stricter else {
        return Reach::Reachable { intervals, trace };
    };
    match confirmed(spec, sys, set, m, k, &choice) {
        Ok(()) => Reach::Reachable { intervals, trace },
        Err(why) => Reach::Unknown {
            reason: solver::Undecided::other(format!(
                "a dead end was found, but the automaton of {} is stricter than its countertrace (a phase that may be empty has a formula), and {why}",
                automaton_name(spec, &sys.automata[*a])
            )),
            up_to: 0,
        },
    }
}

/// The environment's dead end confirmed by the countertrace evaluator: with the
/// inputs `choice` names, no choice of the set's Boolean system variables for a short
/// next interval leaves every countertrace of the set and every invariant unmatched.
fn confirmed(
    spec: &Spec,
    sys: &System,
    set: &[usize],
    m: &logic::Model,
    k: usize,
    choice: &super::Choice,
) -> Result<(), String> {
    if choice.data > 0 {
        return Err("its choice of an Int or Real input cannot be replayed".into());
    }
    let inputs = roles(spec, sys).inputs;
    let mut outputs: Vec<Symbol> = Vec::new();
    for a in set {
        for n in variables_of(sys, *a) {
            let bool_state = sys.state.iter().any(|(x, s)| *x == n && *s == Sort::Bool);
            if bool_state && !inputs.contains(&n) && !outputs.contains(&n) {
                outputs.push(n);
            } else if !bool_state && !inputs.contains(&n) && sys.state.iter().any(|(x, _)| *x == n)
            {
                return Err(format!("the system's {n} is not Boolean"));
            }
        }
    }
    if outputs.len() > 10 {
        return Err("the set has too many outputs to try".into());
    }
    let mut run = run_of(sys, m, k);
    let last = run.last().map(|p| p.state.clone()).unwrap_or_default();
    let half = BigRational::new(1.into(), 2.into());
    let length = if sys.epsilon > BigRational::zero() {
        &sys.epsilon * &half
    } else {
        half
    };
    let checked: Vec<usize> = (0..sys.automata.len())
        .filter(|a| set.contains(a) || sys.automata[*a].pea.is_invariant())
        .collect();
    run.push(Piece {
        length,
        state: last.clone(),
    });
    for bits in 0u32..(1 << outputs.len()) {
        let mut state = last.clone();
        for (n, v) in &choice.bools {
            state.insert(n.clone(), logic::Value::Bool(*v));
        }
        for (j, n) in outputs.iter().enumerate() {
            state.insert(n.clone(), logic::Value::Bool(bits & (1 << j) != 0));
        }
        for (h, x, _) in &sys.history {
            if let Some(v) = last.get(x) {
                state.insert(h.clone(), v.clone());
            }
        }
        run.last_mut().expect("pushed").state = state;
        let broken = checked.iter().try_fold(false, |any, a| {
            let phases = &sys.automata[*a].pea.phases;
            matched(&sys.bdd, phases, &run, &spec.context).map(|b| any || b)
        });
        match broken {
            Ok(false) => {
                return Err("the countertraces allow a next interval with those inputs".into())
            }
            Ok(true) => {}
            Err(e) => return Err(format!("the evaluator could not replay it: {e}")),
        }
    }
    Ok(())
}
