//! The generator: obligations → solver-checked cases → a minimized suite with
//! expected outputs, re-checked in a fresh solver process.
//!
//! 1. The domain and the requirements must be satisfiable together (else the spec is
//!    inconsistent and every "case" would be vacuous: an error with a minimal core).
//! 2. Obligations in spec order. One that a case found so far already meets (vera's
//!    evaluator on the case's state) costs no query; otherwise the solver is asked for
//!    a state that satisfies the domain, every requirement and the obligation, first
//!    with the `Real` inputs on their step grid, then without. Unsat is a finding
//!    with a minimal core; unknown is undecided, never met.
//! 3. Minimization: the coverage of every case is evaluated, and a greedy set cover
//!    (most new obligations first, ties to the earlier case) keeps the cases needed.
//! 4. Expected outputs per kept case, with the inputs fixed: an output is forced when
//!    no valid state gives it another value (unsat), free when one does (a model that
//!    differs). Asked as a disjunction over the outputs still open, so a case costs
//!    one query plus one per model that frees some.
//! 5. Every kept case is re-checked in a second solver process: its state satisfies
//!    everything (evaluator and solver), and its forced outputs are forced there too.
//!
//! One solver session answers every query of steps 1-4 in a fixed order, so the same
//! spec with the same solver binary gives the same suite, byte for byte.

use crate::obligations::{obligations, Obligation};
use crate::problem::Problem;
use crate::session::{differs, equalities, Session, SessionError};
use crate::suite::{
    Case, Cell, Expected, ExpectedCell, Finding, ObligationResult, Recheck, RequirementRow, Status,
    Suite,
};
use logic::{Model, Op, Symbol, Term};
use solver::{Outcome, SolverConfig};
use std::collections::BTreeSet;

/// Options of the generator.
#[derive(Debug, Clone)]
pub struct Options {
    /// The solver.
    pub solver: SolverConfig,
    /// Boundary cases for numeric comparisons (on by default).
    pub boundaries: bool,
}

impl Options {
    /// Boundaries on.
    pub fn new(solver: SolverConfig) -> Options {
        Options {
            solver,
            boundaries: true,
        }
    }
}

/// Why no suite could be generated.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    /// The session failed.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The domain and the requirements cannot hold together.
    #[error("the spec is inconsistent: no state satisfies the domain and every requirement (a minimal conflict: {})", .core.join(", "))]
    Inconsistent {
        /// A minimal set of members in conflict.
        core: Vec<String>,
    },
    /// The consistency check got no answer.
    #[error("the solver could not decide whether the spec is consistent ({0})")]
    Undecided(solver::Undecided),
    /// Nothing to test.
    #[error("the spec has no formalized requirement: no test can be derived")]
    NothingToTest,
}

impl From<solver::SolverError> for GenerateError {
    fn from(e: solver::SolverError) -> GenerateError {
        GenerateError::Session(SessionError::Solver(e))
    }
}

/// Checks that the domain and the requirements hold together.
pub(crate) fn check_consistent(s: &mut Session) -> Result<(), GenerateError> {
    let all = s.members();
    match s.check(&all, &[], false)? {
        Outcome::Sat(_) => Ok(()),
        Outcome::Unsat(core) => {
            let core = s.minimize(core, &[])?;
            Err(GenerateError::Inconsistent { core: s.ids(&core) })
        }
        Outcome::Unknown(r) => Err(GenerateError::Undecided(r.clone().into())),
    }
}

/// What asking for one obligation gave.
pub(crate) enum Reach {
    /// A valid state that meets it.
    State(Model),
    /// No valid state meets it; the members of a minimal core.
    Unreachable(Vec<String>),
    /// Unknown.
    Undecided(solver::Undecided),
}

/// Asks for a valid state that meets `formula`: on the grid first, then anywhere.
pub(crate) fn reach(s: &mut Session, formula: &Term, what: &str) -> Result<Reach, GenerateError> {
    let all = s.members();
    let extra = [formula.clone()];
    let mut undecided = None;
    if s.has_grid() {
        match s.check(&all, &extra, true)? {
            Outcome::Sat(m) => return found(s, &m, formula, what),
            Outcome::Unknown(r) => undecided = Some(solver::Undecided::from(r)),
            Outcome::Unsat(_) => {}
        }
    }
    match s.check(&all, &extra, false)? {
        Outcome::Sat(m) => found(s, &m, formula, what),
        Outcome::Unsat(core) => {
            let core = s.minimize(core, &extra)?;
            Ok(Reach::Unreachable(s.ids(&core)))
        }
        Outcome::Unknown(r) => Ok(Reach::Undecided(
            undecided.unwrap_or_else(|| solver::Undecided::from(r)),
        )),
    }
}

fn found(s: &Session, m: &Model, formula: &Term, what: &str) -> Result<Reach, GenerateError> {
    let state = s.state(m);
    s.validate(&state, &[(what, formula)])?;
    Ok(Reach::State(state))
}

/// Generates the suite of a problem.
pub fn generate(p: &Problem, options: &Options) -> Result<Suite, GenerateError> {
    if p.spec.formalized().next().is_none() {
        return Err(GenerateError::NothingToTest);
    }
    let mut s = Session::start(p, &options.solver)?;
    check_consistent(&mut s)?;
    let obls = obligations(p, options.boundaries);
    let ctx = &p.spec.context;
    let meets = |o: &Obligation, state: &Model| -> bool {
        logic::eval_bool(&o.formula, state, ctx).unwrap_or(false)
    };
    // Step 2: a state per obligation not met so far.
    let mut states: Vec<Model> = Vec::new();
    let mut status: Vec<Option<Status>> = vec![None; obls.len()];
    for (i, o) in obls.iter().enumerate() {
        if states.iter().any(|st| meets(o, st)) {
            continue;
        }
        match reach(&mut s, &o.formula, &format!("obligation {}", o.id))? {
            Reach::State(st) => states.push(st),
            Reach::Unreachable(core) => status[i] = Some(Status::Unreachable { core }),
            Reach::Undecided(reason) => status[i] = Some(Status::Undecided { reason }),
        }
    }
    let before = states.len();
    // Step 3: coverage and a greedy set cover.
    let coverage: Vec<BTreeSet<usize>> = states
        .iter()
        .map(|st| {
            (0..obls.len())
                .filter(|&i| status[i].is_none() && meets(&obls[i], st))
                .collect()
        })
        .collect();
    let mut uncovered: BTreeSet<usize> = (0..obls.len()).filter(|&i| status[i].is_none()).collect();
    let mut kept: Vec<usize> = Vec::new();
    while !uncovered.is_empty() {
        let best = (0..states.len())
            .filter(|c| !kept.contains(c))
            .max_by(|&a, &b| {
                let na = coverage[a].intersection(&uncovered).count();
                let nb = coverage[b].intersection(&uncovered).count();
                na.cmp(&nb).then(b.cmp(&a))
            });
        let Some(best) = best.filter(|&c| coverage[c].intersection(&uncovered).count() > 0) else {
            break;
        };
        for i in &coverage[best] {
            uncovered.remove(i);
        }
        kept.push(best);
    }
    // Cases in the order of the first obligation each meets.
    kept.sort_by_key(|&c| (coverage[c].iter().next().copied(), c));
    let width = kept.len().to_string().len().max(3);
    let ids: Vec<String> = (1..=kept.len())
        .map(|n| format!("TC-{n:0width$}"))
        .collect();
    // Step 4: expected outputs and what holds whatever the free outputs are.
    let mut cases = Vec::new();
    for (k, &c) in kept.iter().enumerate() {
        let st = &states[c];
        let expected = expected_outputs(&mut s, st)?;
        let mut depends = Vec::new();
        for &i in &coverage[c] {
            if !determined(&mut s, st, &expected, &obls[i].formula)? {
                depends.push(obls[i].id.clone());
            }
        }
        cases.push(make_case(
            p,
            ids[k].clone(),
            st,
            expected,
            &coverage[c],
            &obls,
            depends,
        ));
    }
    for (i, slot) in status.iter_mut().enumerate() {
        if slot.is_none() {
            let cases_meeting: Vec<String> = kept
                .iter()
                .enumerate()
                .filter(|(_, &c)| coverage[c].contains(&i))
                .map(|(k, _)| ids[k].clone())
                .collect();
            *slot = Some(Status::Met {
                cases: cases_meeting,
            });
        }
    }
    let queries = s.queries;
    drop(s);
    // Step 5: the re-check in a fresh process.
    let recheck = recheck(p, &options.solver, &cases)?;
    let results: Vec<ObligationResult> = obls
        .into_iter()
        .zip(status)
        .map(|(obligation, status)| ObligationResult {
            obligation,
            status: status.expect("every obligation has a status"),
        })
        .collect();
    Ok(assemble(
        p,
        &options.solver,
        results,
        cases,
        before,
        queries,
        recheck,
    ))
}

/// The expected outputs of a state's inputs: forced (with the state's value), free or
/// undecided.
pub(crate) fn expected_outputs(
    s: &mut Session,
    state: &Model,
) -> Result<Vec<(Symbol, Expected)>, GenerateError> {
    let p = s.problem;
    let inputs = equalities(
        p.roles
            .inputs
            .iter()
            .filter_map(|n| state.get(n).map(|v| (&**n, v))),
    );
    let mut open: Vec<Symbol> = p
        .roles
        .outputs
        .iter()
        .filter(|n| state.get(n).is_some())
        .cloned()
        .collect();
    let mut result: std::collections::BTreeMap<Symbol, Expected> = Default::default();
    let all = s.members();
    while !open.is_empty() {
        let disj: Vec<Term> = open
            .iter()
            .map(|n| differs(n, state.get(n).expect("in the state")))
            .collect();
        let disj = if disj.len() == 1 {
            disj.into_iter().next().expect("one")
        } else {
            Term::app(Op::Or, disj)
        };
        let mut extra = inputs.clone();
        extra.push(disj);
        match s.check(&all, &extra, false)? {
            Outcome::Sat(m) => {
                let before = open.len();
                open.retain(|n| {
                    let differs = m.get(n).is_some_and(|v| Some(v) != state.get(n));
                    if differs {
                        result.insert(n.clone(), Expected::Free);
                    }
                    !differs
                });
                if open.len() == before {
                    // A model that satisfies the disjunction differs somewhere; one
                    // that does not show it (values left out) cannot be read.
                    for n in open.drain(..) {
                        result.insert(
                            n,
                            Expected::Undecided(solver::Undecided::other(
                                "the solver's model does not show the output",
                            )),
                        );
                    }
                }
            }
            Outcome::Unsat(_) => {
                for n in open.drain(..) {
                    let v = state.get(&n).expect("in the state").clone();
                    result.insert(n, Expected::Value(v));
                }
            }
            Outcome::Unknown(r) => {
                for n in open.drain(..) {
                    result.insert(n, Expected::Undecided(r.clone().into()));
                }
            }
        }
    }
    Ok(p.roles
        .outputs
        .iter()
        .filter_map(|n| result.remove(n).map(|e| (n.clone(), e)))
        .collect())
}

/// Whether `formula` holds in every valid state with the state's inputs: by evaluation
/// when it mentions only inputs and forced outputs, else by the solver (unknown counts
/// as not determined).
fn determined(
    s: &mut Session,
    state: &Model,
    expected: &[(Symbol, Expected)],
    formula: &Term,
) -> Result<bool, GenerateError> {
    let p = s.problem;
    let fixed = |n: &str| {
        p.roles.is_input(n)
            || expected
                .iter()
                .any(|(o, e)| &**o == n && matches!(e, Expected::Value(_)))
    };
    if formula.free_vars().iter().all(|(n, _)| fixed(n)) {
        return Ok(true);
    }
    let mut extra = equalities(
        p.roles
            .inputs
            .iter()
            .filter_map(|n| state.get(n).map(|v| (&**n, v))),
    );
    extra.push(Term::not(formula.clone()));
    let all = s.members();
    Ok(matches!(s.check(&all, &extra, false)?, Outcome::Unsat(_)))
}

fn cells<'a>(pairs: impl IntoIterator<Item = (&'a Symbol, &'a logic::Value)>) -> Vec<Cell> {
    pairs
        .into_iter()
        .map(|(n, v)| Cell {
            variable: n.to_string(),
            value: crate::values::show(v),
        })
        .collect()
}

fn make_case(
    p: &Problem,
    id: String,
    state: &Model,
    expected: Vec<(Symbol, Expected)>,
    covers: &BTreeSet<usize>,
    obls: &[Obligation],
    depends: Vec<String>,
) -> Case {
    let input_values: Vec<(Symbol, logic::Value)> = p
        .roles
        .inputs
        .iter()
        .filter_map(|n| state.get(n).map(|v| (n.clone(), v.clone())))
        .collect();
    let mut reqs: Vec<&str> = covers
        .iter()
        .map(|&i| obls[i].requirement.as_str())
        .collect();
    let order = |id: &str| p.spec.requirements.iter().position(|r| r.id == id);
    reqs.sort_by_key(|r| order(r));
    reqs.dedup();
    let state_cells = cells(
        p.spec
            .variables
            .iter()
            .filter_map(|v| state.get(&v.name).map(|val| (&v.name, val))),
    );
    Case {
        id,
        covers: covers.iter().map(|&i| obls[i].id.clone()).collect(),
        depends_on_free_outputs: depends,
        requirements: reqs.into_iter().map(String::from).collect(),
        inputs: cells(input_values.iter().map(|(n, v)| (n, v))),
        expected: expected
            .iter()
            .map(|(n, e)| ExpectedCell {
                variable: n.to_string(),
                value: e.clone(),
            })
            .collect(),
        state: state_cells,
        input_values,
        expected_values: expected,
        model: state.clone(),
    }
}

/// Re-checks every case in a new solver process: the state satisfies the domain and
/// every requirement (evaluator and solver), and the forced outputs are forced.
pub fn recheck(
    p: &Problem,
    config: &SolverConfig,
    cases: &[Case],
) -> Result<Recheck, GenerateError> {
    let mut r = Recheck {
        cases: cases.len(),
        valid: 0,
        expectations_confirmed: 0,
        failures: Vec::new(),
    };
    if cases.is_empty() {
        return Ok(r);
    }
    let mut s = Session::start(p, config)?;
    let all = s.members();
    for c in cases {
        if let Err(e) = s.validate(&c.model, &[]) {
            r.failures.push(format!("{}: {e}", c.id));
            continue;
        }
        let eqs = equalities(c.model.values.iter().map(|(n, v)| (&**n, v)));
        match s.check(&all, &eqs, false)? {
            Outcome::Sat(_) => r.valid += 1,
            other => {
                r.failures.push(format!(
                    "{}: the fresh solver answered {} for its state",
                    c.id,
                    other.status()
                ));
                continue;
            }
        }
        let forced: Vec<Term> = c
            .expected_values
            .iter()
            .filter_map(|(n, e)| match e {
                Expected::Value(v) => Some(differs(n, v)),
                _ => None,
            })
            .collect();
        if forced.is_empty() {
            r.expectations_confirmed += 1;
            continue;
        }
        let mut extra = equalities(c.input_values.iter().map(|(n, v)| (&**n, v)));
        extra.push(if forced.len() == 1 {
            forced.into_iter().next().expect("one")
        } else {
            Term::app(Op::Or, forced)
        });
        match s.check(&all, &extra, false)? {
            Outcome::Unsat(_) => r.expectations_confirmed += 1,
            other => r.failures.push(format!(
                "{}: the fresh solver answered {} where its expected outputs are forced",
                c.id,
                other.status()
            )),
        }
    }
    Ok(r)
}

fn assemble(
    p: &Problem,
    config: &SolverConfig,
    obligations: Vec<ObligationResult>,
    cases: Vec<Case>,
    before: usize,
    queries: usize,
    recheck: Recheck,
) -> Suite {
    let spec = &p.spec;
    let mut findings = Vec::new();
    let mut requirements = Vec::new();
    for r in &spec.requirements {
        let mine: Vec<&ObligationResult> = obligations
            .iter()
            .filter(|o| o.obligation.requirement == r.id)
            .collect();
        if r.formula.is_none() {
            findings.push(Finding::NotFormalized {
                requirement: r.id.clone(),
                line: r.line,
            });
        }
        for o in &mine {
            match &o.status {
                Status::Unreachable { core } => findings.push(Finding::Unreachable {
                    requirement: r.id.clone(),
                    line: r.line,
                    obligation: o.obligation.id.clone(),
                    kind: o.obligation.kind.clone(),
                    condition: o.obligation.condition.clone(),
                    core: core.clone(),
                }),
                Status::Undecided { reason } => findings.push(Finding::Undecided {
                    requirement: r.id.clone(),
                    obligation: o.obligation.id.clone(),
                    reason: reason.clone(),
                }),
                Status::Met { .. } => {}
            }
        }
        let count = |f: &dyn Fn(&Status) -> bool| mine.iter().filter(|o| f(&o.status)).count();
        requirements.push(RequirementRow {
            id: r.id.clone(),
            line: r.line,
            text: r.text.clone(),
            formula: r.formula.as_ref().map(logic::print::term),
            obligations: mine.len(),
            met: count(&|s| matches!(s, Status::Met { .. })),
            unreachable: count(&|s| matches!(s, Status::Unreachable { .. })),
            undecided: count(&|s| matches!(s, Status::Undecided { .. })),
            cases: cases
                .iter()
                .filter(|c| c.requirements.contains(&r.id))
                .map(|c| c.id.clone())
                .collect(),
        });
    }
    Suite {
        spec: spec.name.clone(),
        file: spec.source.name().to_string(),
        solver: solver_name(config),
        inputs: p.roles.inputs.iter().map(|n| n.to_string()).collect(),
        outputs: p.roles.outputs.iter().map(|n| n.to_string()).collect(),
        roles: p.roles.source,
        steps: p
            .steps_in_force()
            .into_iter()
            .map(|(n, s)| Cell {
                variable: n.to_string(),
                value: crate::values::show_rational(&s),
            })
            .collect(),
        obligations,
        cases,
        requirements,
        findings,
        cases_before_minimization: before,
        queries,
        recheck,
    }
}

/// `z3` or `cvc5`, as configured.
pub(crate) fn solver_name(config: &SolverConfig) -> String {
    config.kind.to_string()
}
