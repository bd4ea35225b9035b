//! A solver process with a problem loaded: every domain constraint and requirement
//! under an assumption literal (so unsat answers name what rules a state out), and a
//! grid literal that puts every `Real` input on a multiple of its step (so cases show
//! values at the inputs' precision, not the solver's arbitrary fractions).

use crate::problem::Problem;
use crate::values;
use logic::{Model, Op, Sort, Term, Value};
use reqs::audit::{check_with, load_into, Loaded};
use reqs::Spec;
use solver::{Outcome, Solver, SolverConfig, SolverError};

/// Why a session failed.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The solver session failed (not an answer: a crash outside a query, a failed
    /// validation, a refused command).
    #[error(transparent)]
    Solver(#[from] SolverError),
    /// A state the solver gave does not satisfy what it was asked (vera's evaluator
    /// disagrees): never used as a case.
    #[error("a state from the solver does not satisfy {0} when vera evaluates it")]
    BadState(String),
}

/// A loaded problem.
pub struct Session<'p> {
    /// The problem.
    pub problem: &'p Problem,
    /// The spec as sent (the logic widened to mixed arithmetic for the grid).
    pub spec: Spec,
    /// The solver.
    pub solver: Solver,
    lits: Loaded,
    grid: Option<Term>,
    /// Queries asked so far.
    pub queries: usize,
}

impl<'p> Session<'p> {
    /// Starts a solver process and loads the problem.
    pub fn start(problem: &'p Problem, config: &SolverConfig) -> Result<Session<'p>, SessionError> {
        let mut spec = problem.spec.clone();
        let reals = spec.variables.iter().any(|v| v.sort == Sort::Real);
        if reals && spec.logic.contains("LRA") && !spec.logic.contains("LIRA") {
            spec.logic = spec.logic.replace("LRA", "LIRA");
        }
        // The grid needs integers next to the reals; a logic without both (a nonlinear
        // one, say) goes without it.
        let grid_allowed = spec.logic == "ALL" || spec.logic.contains("LIRA");
        let mut solver = Solver::start(config)?;
        let lits = load_into(&mut solver, &spec)?;
        let mut cells = Vec::new();
        for (i, v) in spec.variables.iter().enumerate() {
            if !grid_allowed || v.sort != Sort::Real || !problem.roles.is_input(&v.name) {
                continue;
            }
            let step = problem
                .step_of(&v.name)
                .expect("Real variables have a step");
            let g = format!("vera!g{i}");
            solver.declare_const(&g, Sort::Int)?;
            cells.push(Term::app(
                Op::Eq,
                vec![
                    Term::var(&v.name, Sort::Real),
                    Term::app(
                        Op::Mul,
                        vec![
                            Term::Real(step),
                            Term::app(Op::ToReal, vec![Term::var(&g, Sort::Int)]),
                        ],
                    ),
                ],
            ));
        }
        let grid = if cells.is_empty() {
            None
        } else {
            solver.declare_const("vera!grid", Sort::Bool)?;
            let lit = Term::var("vera!grid", Sort::Bool);
            let body = if cells.len() == 1 {
                cells.pop().expect("one")
            } else {
                Term::app(Op::And, cells)
            };
            solver.assert(&Term::app(Op::Implies, vec![lit.clone(), body]))?;
            Some(lit)
        };
        Ok(Session {
            problem,
            spec,
            solver,
            lits,
            grid,
            queries: 0,
        })
    }

    /// The literals of the domain and every formalized requirement.
    pub fn members(&self) -> Vec<Term> {
        let mut v = self.lits.domain().to_vec();
        v.extend(self.lits.reqs_except(None));
        v
    }

    /// The literals of the domain and every formalized requirement but `skip` (an index
    /// into the spec's requirements).
    pub fn members_except(&self, skip: usize) -> Vec<Term> {
        let mut v = self.lits.domain().to_vec();
        v.extend(self.lits.reqs_except(Some(skip)));
        v
    }

    /// Checks `assumptions` with `extra` asserted for this query only, on the grid
    /// when `grid` is set (and the problem has `Real` inputs).
    pub fn check(
        &mut self,
        assumptions: &[Term],
        extra: &[Term],
        grid: bool,
    ) -> Result<Outcome, SolverError> {
        self.queries += 1;
        let mut assume = assumptions.to_vec();
        if grid {
            assume.extend(self.grid.clone());
        }
        check_with(&mut self.solver, &assume, extra)
    }

    /// True when the problem has a grid.
    pub fn has_grid(&self) -> bool {
        self.grid.is_some()
    }

    /// Deletion-based minimization of an unsat core of members (with `extra`
    /// asserted): a subset that stays unsat and from which no member can be dropped.
    /// A member whose removal gives `unknown` is kept.
    pub fn minimize(&mut self, core: Vec<Term>, extra: &[Term]) -> Result<Vec<Term>, SolverError> {
        let mut core = core;
        let mut i = 0;
        while i < core.len() {
            let mut candidate = core.clone();
            candidate.remove(i);
            match self.check(&candidate, extra, false)? {
                Outcome::Unsat(c) => {
                    core = candidate.into_iter().filter(|l| c.contains(l)).collect();
                }
                _ => i += 1,
            }
        }
        Ok(core)
    }

    /// The ids of the members behind literals, each once: requirements in spec order,
    /// then domain constraints.
    pub fn ids(&self, lits: &[Term]) -> Vec<String> {
        self.lits.distinct_ids(&self.problem.spec, lits)
    }

    /// The schema variables of a model, every variable present: one the solver left
    /// out (no formula constrains it) takes its default value.
    pub fn state(&self, m: &Model) -> Model {
        let mut s = Model::new();
        for v in &self.problem.spec.variables {
            let val = m
                .get(&v.name)
                .cloned()
                .or_else(|| self.problem.default_of(v));
            if let Some(val) = val {
                s.insert(v.name.clone(), val);
            }
        }
        s
    }

    /// Checks with vera's evaluator that a state satisfies the domain and every
    /// formalized requirement (and `extra`); the first that fails is named.
    pub fn validate(&self, state: &Model, extra: &[(&str, &Term)]) -> Result<(), SessionError> {
        let spec = &self.problem.spec;
        let ctx = &spec.context;
        let holds = |t: &Term| logic::eval_bool(t, state, ctx).unwrap_or(false);
        for d in &spec.domain {
            if !holds(&d.formula) {
                return Err(SessionError::BadState(format!(
                    "domain constraint {}",
                    d.id
                )));
            }
        }
        for r in spec.formalized() {
            if !holds(r.formula.as_ref().expect("formalized")) {
                return Err(SessionError::BadState(format!("requirement {}", r.id)));
            }
        }
        for (what, t) in extra {
            if !holds(t) {
                return Err(SessionError::BadState((*what).to_string()));
            }
        }
        Ok(())
    }
}

/// `x = v` for each pair.
pub fn equalities<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a Value)>) -> Vec<Term> {
    pairs
        .into_iter()
        .map(|(n, v)| Term::app(Op::Eq, vec![Term::var(n, v.sort()), v.to_term()]))
        .collect()
}

/// `(not (= x v))`.
pub fn differs(n: &str, v: &Value) -> Term {
    Term::not(Term::app(Op::Eq, vec![Term::var(n, v.sort()), v.to_term()]))
}

/// A value printed for a message.
pub fn show(v: &Value) -> String {
    values::show(v)
}
