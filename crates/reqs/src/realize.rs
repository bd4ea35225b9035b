//! Realizability: conflicts the environment can force.
//!
//! With roles in the schema (`role = "input"` for what the environment chooses, every
//! other variable chosen by the system), the requirements are *realizable* when for every
//! input state the domain allows there are outputs that satisfy the domain and all
//! requirements:
//!
//! ```text
//! forall i. DomIn(i) => exists o. DomIO(i, o) and R(i, o)
//! ```
//!
//! where `DomIn` are the domain constraints over inputs only and `DomIO` the others. A
//! consistent spec can still be unrealizable: some state avoids every clash, but the
//! environment can pick inputs for which two requirements demand opposite outputs.
//!
//! The exists-forall question is decided by a counterexample-guided loop over two solver
//! sessions: a candidate session proposes inputs allowed by `DomIn` and not yet covered;
//! a check session fixes them and looks for outputs. If there are none, the inputs are a
//! witness, and the check's unsat core names the requirements that clash there. If there
//! are outputs `o*`, the candidate session learns `not (DomIO(i, o*) and R(i, o*))`
//! (the formulas with the outputs bound to `o*` by a `let`), so the next candidate is an
//! input those outputs do not serve. The candidate session running out of inputs proves
//! realizability; the iteration bound ends in `unknown`, never in "realizable".
//!
//! Minimal conflicts (sets of requirements that are unrealizable on their own) are
//! enumerated MARCO-style like the consistency audit's: a map session over subsets,
//! shrinking unrealizable seeds by deletion and growing realizable ones. Every reported
//! conflict is re-checked in a fresh solver process: with its witness inputs fixed, its
//! requirements and the domain are unsat, and the inputs satisfy `DomIn` under vera's own
//! evaluator.

use crate::audit::{find, unite, witness, Incomplete, Witness};
use crate::spec::{Role, Spec};
use logic::{Model, Op, Sort, Symbol, Term, Value};
use serde::Serialize;
use solver::{Outcome, Solver, SolverConfig, SolverError};
use std::collections::BTreeSet;

/// Options for [`realizability`].
#[derive(Debug, Clone)]
pub struct RealizeOptions {
    /// The solver.
    pub solver: SolverConfig,
    /// Candidate/check rounds allowed for one realizability question before it is
    /// `unknown`.
    pub max_iterations: usize,
    /// Stop after this many minimal conflicts.
    pub max_conflicts: usize,
    /// Decide each group of linked outputs on its own before looking for conflicts
    /// (the same verdicts; `false` runs one loop over the whole spec).
    pub by_groups: bool,
}

impl RealizeOptions {
    /// Defaults: 1,000 rounds per question, up to 20 conflicts.
    pub fn new(solver: SolverConfig) -> RealizeOptions {
        RealizeOptions {
            solver,
            max_iterations: 1000,
            max_conflicts: 20,
            by_groups: true,
        }
    }
}

/// The verdict of the realizability audit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Realizability {
    /// Not checked (no roles in the schema, or the requirements are inconsistent).
    NotChecked {
        /// Why.
        reason: String,
    },
    /// For every allowed input state there are outputs satisfying everything.
    Realizable {
        /// Candidate/check rounds it took.
        iterations: usize,
    },
    /// The environment can force a conflict.
    Unrealizable {
        /// Minimal sets of requirements that are unrealizable on their own.
        conflicts: Vec<EnvConflict>,
        /// True when every minimal set was found.
        complete: bool,
        /// Why the enumeration stopped early, when it did.
        #[serde(skip_serializing_if = "Option::is_none")]
        incomplete: Option<Incomplete>,
    },
    /// The solver (or the iteration bound) gave no answer.
    Unknown {
        /// Why.
        #[serde(flatten)]
        reason: solver::Undecided,
    },
}

/// A minimal set of requirements the environment can drive into conflict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EnvConflict {
    /// The requirements, in spec order.
    pub requirements: Vec<String>,
    /// Domain constraints over outputs that take part in the clash.
    pub domain: Vec<String>,
    /// Input values under which no outputs satisfy them (every input of the schema).
    pub inputs: Witness,
    /// The decision this conflict asks of the people who own the requirements.
    pub question: String,
}

/// The outcome of one exists-forall question.
enum Cegis {
    Realizable,
    /// Inputs with no outputs, and the requirement indices of the core there.
    Witness(Model, Vec<usize>),
    Unknown(solver::Undecided),
}

struct Roles {
    inputs: Vec<(Symbol, Sort)>,
    outputs: Vec<(Symbol, Sort)>,
    /// Domain constraint indices over inputs only, and the others.
    dom_in: Vec<usize>,
    dom_io: Vec<usize>,
}

fn dlit(i: usize) -> Term {
    Term::var(&format!("vera!d{i}"), Sort::Bool)
}

fn rlit(i: usize) -> Term {
    Term::var(&format!("vera!r{i}"), Sort::Bool)
}

fn and(mut ts: Vec<Term>) -> Term {
    match ts.len() {
        0 => Term::Bool(true),
        1 => ts.remove(0),
        _ => Term::app(Op::And, ts),
    }
}

struct Realizer<'a> {
    spec: &'a Spec,
    roles: Roles,
    options: &'a RealizeOptions,
    /// Proposes inputs.
    cand: Solver,
    /// Looks for outputs for fixed inputs.
    check: Solver,
    /// Rounds used in total.
    rounds: usize,
}

impl<'a> Realizer<'a> {
    fn new(spec: &'a Spec, roles: Roles, options: &'a RealizeOptions) -> Result<Self, SolverError> {
        let mut cand = Solver::start(&options.solver)?;
        crate::audit::load_into(&mut cand, spec)?;
        let mut config = options.solver.clone();
        config.transcript = None;
        let mut check = Solver::start(&config)?;
        crate::audit::load_into(&mut check, spec)?;
        Ok(Realizer {
            spec,
            roles,
            options,
            cand,
            check,
            rounds: 0,
        })
    }

    fn input_eqs(&self, m: &Model) -> Vec<Term> {
        self.roles
            .inputs
            .iter()
            .filter_map(|(n, s)| {
                m.get(n)
                    .map(|v| Term::app(Op::Eq, vec![Term::Var(n.clone(), s.clone()), v.to_term()]))
            })
            .collect()
    }

    /// Values of `vars` in the current model of `solver` (after a sat answer).
    fn values(solver: &mut Solver, vars: &[(Symbol, Sort)]) -> Result<Model, SolverError> {
        let terms: Vec<Term> = vars
            .iter()
            .map(|(n, s)| Term::Var(n.clone(), s.clone()))
            .collect();
        let mut m = Model::new();
        if terms.is_empty() {
            return Ok(m);
        }
        let vals = solver.get_values(&terms)?;
        for ((n, _), v) in vars.iter().zip(vals) {
            m.values.insert(n.clone(), v);
        }
        Ok(m)
    }

    /// Is there an output for these inputs under the dom_io constraints and `reqs`?
    /// `Ok(Err(core requirement indices))` when there is none.
    fn outputs_for(
        &mut self,
        inputs: &Model,
        reqs: &[usize],
    ) -> Result<Result<Option<Model>, Vec<usize>>, SolverError> {
        let eqs = self.input_eqs(inputs);
        let mut assume: Vec<Term> = self.roles.dom_io.iter().map(|i| dlit(*i)).collect();
        assume.extend(reqs.iter().map(|i| rlit(*i)));
        assume.extend(self.roles.dom_in.iter().map(|i| dlit(*i)));
        self.check.push()?;
        for e in &eqs {
            self.check.assert(e)?;
        }
        let r = self.check.check_assuming(&assume);
        let out = match r {
            Ok(Outcome::Sat(_)) => {
                let outs = self.roles.outputs.clone();
                Self::values(&mut self.check, &outs).map(|m| Ok(Some(m)))
            }
            Ok(Outcome::Unsat(core)) => Ok(Err(reqs
                .iter()
                .copied()
                .filter(|i| core.contains(&rlit(*i)))
                .collect())),
            Ok(Outcome::Unknown(_)) => Ok(Ok(None)),
            Err(e) => Err(e),
        };
        self.check.pop()?;
        out
    }

    /// The learned constraint: these outputs do not serve the next candidate.
    fn block(&self, outputs: &Model, reqs: &[usize]) -> Term {
        let mut body: Vec<Term> = self
            .roles
            .dom_io
            .iter()
            .map(|i| self.spec.domain[*i].formula.clone())
            .collect();
        body.extend(
            reqs.iter()
                .filter_map(|i| self.spec.requirements[*i].formula.clone()),
        );
        let bindings: Vec<(Symbol, Term)> = self
            .roles
            .outputs
            .iter()
            .filter_map(|(n, _)| outputs.get(n).map(|v| (n.clone(), v.to_term())))
            .collect();
        let body = and(body);
        let bound = if bindings.is_empty() {
            body
        } else {
            Term::Let(bindings, Box::new(body))
        };
        Term::not(bound)
    }

    /// Decides whether the requirements `reqs` (indices) are realizable.
    fn cegis(&mut self, reqs: &[usize]) -> Result<Cegis, SolverError> {
        let dom_in: Vec<Term> = self.roles.dom_in.iter().map(|i| dlit(*i)).collect();
        self.cand.push()?;
        let result = (|| {
            for _ in 0..self.options.max_iterations {
                self.rounds += 1;
                let inputs = match self.cand.check_assuming(&dom_in)? {
                    Outcome::Unsat(_) => return Ok(Cegis::Realizable),
                    Outcome::Unknown(r) => {
                        return Ok(Cegis::Unknown(
                            solver::Undecided::from(r.clone())
                                .map(|r| format!("proposing inputs: {r}")),
                        ))
                    }
                    Outcome::Sat(_) => {
                        let ins = self.roles.inputs.clone();
                        Self::values(&mut self.cand, &ins)?
                    }
                };
                match self.outputs_for(&inputs, reqs)? {
                    Err(core) => return Ok(Cegis::Witness(inputs, core)),
                    Ok(None) => {
                        return Ok(Cegis::Unknown(solver::Undecided::other(
                            "the solver answered unknown looking for outputs",
                        )))
                    }
                    Ok(Some(outputs)) => {
                        let b = self.block(&outputs, reqs);
                        self.cand.assert(&b)?;
                    }
                }
            }
            Ok(Cegis::Unknown(solver::Undecided::other(format!(
                "no decision within {} candidate inputs (raise the bound, or bound the inputs' ranges)",
                self.options.max_iterations
            ))))
        })();
        self.cand.pop()?;
        result
    }

    /// Shrinks an unrealizable set (with a witness) to a minimal one. Returns the set,
    /// its witness, and whether minimality is certain.
    fn shrink(
        &mut self,
        mut set: Vec<usize>,
        mut wit: Model,
    ) -> Result<(Vec<usize>, Model, Option<solver::Undecided>), SolverError> {
        let mut doubt = None;
        let mut k = 0;
        while k < set.len() {
            let mut smaller = set.clone();
            smaller.remove(k);
            // Cheap first: still no outputs for the same inputs?
            if let Err(core) = self.outputs_for(&wit, &smaller)? {
                set = core;
                continue;
            }
            match self.cegis(&smaller)? {
                Cegis::Witness(w, core) => {
                    set = core;
                    wit = w;
                }
                Cegis::Realizable => k += 1,
                Cegis::Unknown(r) => {
                    doubt.get_or_insert(r);
                    k += 1;
                }
            }
        }
        Ok((set, wit, doubt))
    }

    /// The dom_io constraints that take part in the clash of `set` at `wit`.
    fn domain_part(&mut self, set: &[usize], wit: &Model) -> Result<Vec<String>, SolverError> {
        let eqs = self.input_eqs(wit);
        let mut assume: Vec<Term> = set.iter().map(|i| rlit(*i)).collect();
        assume.extend(self.roles.dom_in.iter().map(|i| dlit(*i)));
        let fixed = assume.len();
        assume.extend(self.roles.dom_io.iter().map(|i| dlit(*i)));
        self.check.push()?;
        for e in &eqs {
            self.check.assert(e)?;
        }
        // Deletion over the dom_io literals only.
        let mut k = fixed;
        while k < assume.len() {
            let mut a = assume.clone();
            a.remove(k);
            match self.check.check_assuming(&a)? {
                Outcome::Unsat(_) => assume = a,
                _ => k += 1,
            }
        }
        self.check.pop()?;
        Ok(self
            .roles
            .dom_io
            .iter()
            .filter(|i| assume[fixed..].contains(&dlit(**i)))
            .map(|i| self.spec.domain[*i].id.clone())
            .collect())
    }

    fn conflict(&mut self, set: &[usize], wit: &Model) -> Result<EnvConflict, SolverError> {
        let domain = self.domain_part(set, wit)?;
        let vars: Vec<Term> = self
            .roles
            .inputs
            .iter()
            .map(|(n, s)| Term::Var(n.clone(), s.clone()))
            .collect();
        let refs: Vec<&Term> = vars.iter().collect();
        let inputs = witness(self.spec, wit, &refs);
        let requirements: Vec<String> = set
            .iter()
            .map(|i| self.spec.requirements[*i].id.clone())
            .collect();
        let when: Vec<String> = inputs
            .iter()
            .map(|a| format!("{} = {}", a.variable, a.value))
            .collect();
        let question = format!(
            "When {}, {} cannot all hold: which requirement gives way?",
            if when.is_empty() {
                "any input occurs".to_string()
            } else {
                when.join(" and ")
            },
            requirements.join(", ")
        );
        Ok(EnvConflict {
            requirements,
            domain,
            inputs,
            question,
        })
    }
}

/// The roles of a spec, or why realizability cannot be checked.
fn roles(spec: &Spec) -> Result<Roles, String> {
    let inputs: Vec<(Symbol, Sort)> = spec
        .variables
        .iter()
        .filter(|v| v.role == Some(Role::Input))
        .map(|v| (v.name.clone(), v.sort.clone()))
        .collect();
    if inputs.is_empty() {
        return Err(
            "no variable has `role = \"input\"`: say which variables the environment chooses (docs/spec-format.md)"
                .into(),
        );
    }
    let outputs = spec
        .variables
        .iter()
        .filter(|v| v.role != Some(Role::Input))
        .map(|v| (v.name.clone(), v.sort.clone()))
        .collect();
    let input_names: BTreeSet<&str> = inputs.iter().map(|(n, _)| &**n).collect();
    let (mut dom_in, mut dom_io) = (Vec::new(), Vec::new());
    for (i, d) in spec.domain.iter().enumerate() {
        if d.formula
            .free_vars()
            .iter()
            .all(|(n, _)| input_names.contains(&**n))
        {
            dom_in.push(i);
        } else {
            dom_io.push(i);
        }
    }
    Ok(Roles {
        inputs,
        outputs,
        dom_in,
        dom_io,
    })
}

/// Re-checks a conflict in a fresh solver process: the inputs satisfy the input-only
/// domain constraints (vera's evaluator), and with them fixed the requirements and the
/// domain are unsat.
fn recheck(
    spec: &Spec,
    config: &SolverConfig,
    c: &EnvConflict,
    wit: &Model,
) -> Result<(), SolverError> {
    let roles = roles(spec).map_err(|r| SolverError::Protocol {
        expected: "roles".into(),
        got: r,
    })?;
    for i in &roles.dom_in {
        let ok = logic::eval_bool(&spec.domain[*i].formula, wit, &spec.context).unwrap_or(false);
        if !ok {
            return Err(SolverError::Protocol {
                expected: format!("witness inputs that satisfy {}", spec.domain[*i].id),
                got: format!("{:?}", c.inputs),
            });
        }
    }
    let mut config = config.clone();
    config.transcript = None;
    let mut fresh = Solver::start(&config)?;
    crate::audit::load_into(&mut fresh, spec)?;
    for (n, s) in &roles.inputs {
        if let Some(v) = wit.get(n) {
            fresh.assert(&Term::app(
                Op::Eq,
                vec![Term::Var(n.clone(), s.clone()), v.to_term()],
            ))?;
        }
    }
    let mut assume: Vec<Term> = (0..spec.domain.len()).map(dlit).collect();
    assume.extend(
        spec.requirements
            .iter()
            .enumerate()
            .filter(|(_, r)| c.requirements.contains(&r.id))
            .map(|(i, _)| rlit(i)),
    );
    match fresh.check_assuming(&assume)? {
        Outcome::Unsat(_) => Ok(()),
        other => Err(SolverError::Protocol {
            expected: format!(
                "unsat: no outputs for the witness inputs of {:?}",
                c.requirements
            ),
            got: format!("{} in a fresh process", other.status()),
        }),
    }
}

/// Members whose outputs are linked, directly or through other members, with the input
/// constraints their inputs depend on. Outputs of different groups are independent, so
/// `forall i. exists o. R` holds exactly when it holds for every group on its own; and
/// since every superset of an unrealizable set is unrealizable, every minimal conflict
/// lies within one group.
struct Group {
    /// Requirement indices.
    reqs: Vec<usize>,
    /// Domain constraints over outputs (and inputs) of the group.
    dom_io: Vec<usize>,
    /// Input-only domain constraints on the group's inputs (and the inputs they link).
    dom_in: Vec<usize>,
    /// Variable indices.
    inputs: Vec<usize>,
    outputs: Vec<usize>,
}

fn groups(spec: &Spec, roles: &Roles) -> Vec<Group> {
    let index: std::collections::HashMap<&str, usize> = spec
        .variables
        .iter()
        .enumerate()
        .map(|(i, v)| (&*v.name, i))
        .collect();
    let is_input: Vec<bool> = spec
        .variables
        .iter()
        .map(|v| v.role == Some(Role::Input))
        .collect();
    let vars_of = |t: &Term| -> Vec<usize> {
        t.free_vars()
            .iter()
            .filter_map(|(n, _)| index.get(&**n).copied())
            .collect()
    };
    let mut parent: Vec<usize> = (0..spec.variables.len()).collect();
    // Inputs are linked by the input-only constraints, outputs by everything else.
    let mut members: Vec<(bool, usize, Vec<usize>)> = Vec::new();
    for &d in &roles.dom_io {
        members.push((true, d, vars_of(&spec.domain[d].formula)));
    }
    for (i, r) in spec.requirements.iter().enumerate() {
        if let Some(f) = &r.formula {
            members.push((false, i, vars_of(f)));
        }
    }
    for (_, _, vs) in &members {
        let outs: Vec<usize> = vs.iter().copied().filter(|v| !is_input[*v]).collect();
        unite(&mut parent, &outs);
    }
    for &d in &roles.dom_in {
        unite(&mut parent, &vars_of(&spec.domain[d].formula));
    }
    let mut by_key: std::collections::BTreeMap<(usize, usize), Group> = Default::default();
    for (is_dom, k, vs) in members {
        // Keyed by the root of the first output; a requirement over inputs only is a
        // group of its own.
        let key = match vs.iter().find(|v| !is_input[**v]) {
            Some(o) => (0, find(&mut parent, *o)),
            None => (1, k),
        };
        let g = by_key.entry(key).or_insert_with(|| Group {
            reqs: Vec::new(),
            dom_io: Vec::new(),
            dom_in: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
        });
        if is_dom {
            g.dom_io.push(k);
        } else {
            g.reqs.push(k);
        }
        for v in vs {
            if is_input[v] {
                g.inputs.push(v);
            } else {
                g.outputs.push(v);
            }
        }
    }
    let dom_in_vars: Vec<(usize, Vec<usize>)> = roles
        .dom_in
        .iter()
        .map(|d| (*d, vars_of(&spec.domain[*d].formula)))
        .collect();
    let mut out: Vec<Group> = by_key.into_values().collect();
    for g in &mut out {
        let roots: BTreeSet<usize> = g.inputs.iter().map(|v| find(&mut parent, *v)).collect();
        for (d, vs) in &dom_in_vars {
            if vs.iter().any(|v| roots.contains(&find(&mut parent, *v))) {
                g.dom_in.push(*d);
                g.inputs.extend(vs.iter().copied());
            }
        }
        for list in [&mut g.inputs, &mut g.outputs] {
            list.sort_unstable();
            list.dedup();
        }
    }
    out
}

/// What the loop decided for one group.
enum Decision {
    Realizable(usize),
    Unrealizable,
    Unknown(solver::Undecided),
}

/// The exists-forall loop for one group, in a scope of one session that holds nothing
/// else: the group's variables, the input constraints and the learned blocks under one
/// literal (proposing inputs), the input constraints and the group's members under
/// another (looking for outputs). No literal per member (the group is only decided
/// here; conflicts are found by the full loop), and every model is small.
fn decide(
    s: &mut Solver,
    spec: &Spec,
    g: &Group,
    max_iterations: usize,
) -> Result<Decision, SolverError> {
    let var = |i: usize| {
        let v = &spec.variables[i];
        Term::Var(v.name.clone(), v.sort.clone())
    };
    let inputs: Vec<Term> = g.inputs.iter().map(|i| var(*i)).collect();
    let outputs: Vec<Term> = g.outputs.iter().map(|i| var(*i)).collect();
    let dom_in = and(g
        .dom_in
        .iter()
        .map(|d| spec.domain[*d].formula.clone())
        .collect());
    let mut system: Vec<Term> = g
        .dom_io
        .iter()
        .map(|d| spec.domain[*d].formula.clone())
        .collect();
    system.extend(
        g.reqs
            .iter()
            .filter_map(|i| spec.requirements[*i].formula.clone()),
    );
    let system = and(system);
    let propose = Term::var("vera!propose", Sort::Bool);
    let serve = Term::var("vera!serve", Sort::Bool);
    let values_of = |s: &mut Solver, m: &Model, ts: &[Term]| -> Result<Vec<Value>, SolverError> {
        let known: Option<Vec<Value>> = ts
            .iter()
            .map(|t| match t {
                Term::Var(n, _) => m.get(n).cloned(),
                _ => None,
            })
            .collect();
        match known {
            Some(v) => Ok(v),
            None if ts.is_empty() => Ok(Vec::new()),
            None => s.get_values(ts),
        }
    };
    s.push()?;
    let result: Result<Decision, SolverError> = (|| {
        for t in inputs.iter().chain(&outputs).chain([&propose, &serve]) {
            if let Term::Var(n, sort) = t {
                s.declare_const(n, sort.clone())?;
            }
        }
        s.assert(&Term::app(
            Op::Implies,
            vec![propose.clone(), dom_in.clone()],
        ))?;
        s.assert(&Term::app(
            Op::Implies,
            vec![serve.clone(), and(vec![dom_in.clone(), system.clone()])],
        ))?;
        for round in 1..=max_iterations {
            let values = match s.check_assuming(std::slice::from_ref(&propose))? {
                Outcome::Unsat(_) => return Ok(Decision::Realizable(round)),
                Outcome::Unknown(r) => {
                    return Ok(Decision::Unknown(
                        solver::Undecided::from(r.clone())
                            .map(|r| format!("proposing inputs: {r}")),
                    ))
                }
                Outcome::Sat(m) => values_of(s, &m, &inputs)?,
            };
            let eqs: Vec<Term> = inputs
                .iter()
                .zip(values)
                .map(|(t, v)| Term::app(Op::Eq, vec![t.clone(), v.to_term()]))
                .collect();
            s.push()?;
            // Ok(Ok(Some(outputs))), Ok(Ok(None)) for none, Ok(Err(reason)) for unknown.
            let found: Result<Result<Option<Vec<Value>>, solver::Undecided>, SolverError> =
                (|| {
                    for e in &eqs {
                        s.assert(e)?;
                    }
                    Ok(match s.check_assuming(std::slice::from_ref(&serve))? {
                        Outcome::Sat(m) => Ok(Some(values_of(s, &m, &outputs)?)),
                        Outcome::Unsat(_) => Ok(None),
                        Outcome::Unknown(r) => Err(solver::Undecided::from(r.clone())
                            .map(|r| format!("looking for outputs: {r}"))),
                    })
                })();
            s.pop()?;
            let found = match found? {
                Ok(f) => f,
                Err(reason) => return Ok(Decision::Unknown(reason)),
            };
            let Some(values) = found else {
                return Ok(Decision::Unrealizable);
            };
            let bindings: Vec<(Symbol, Term)> = outputs
                .iter()
                .zip(values)
                .filter_map(|(t, v)| match t {
                    Term::Var(n, _) => Some((n.clone(), v.to_term())),
                    _ => None,
                })
                .collect();
            let served = if bindings.is_empty() {
                system.clone()
            } else {
                Term::Let(bindings, Box::new(system.clone()))
            };
            s.assert(&Term::app(
                Op::Implies,
                vec![propose.clone(), Term::not(served)],
            ))?;
        }
        Ok(Decision::Unknown(solver::Undecided::other(format!(
            "no decision within {max_iterations} candidate inputs (raise the bound, or bound the inputs' ranges)"
        ))))
    })();
    let popped = s.pop();
    let r = result?;
    popped?;
    Ok(r)
}

/// The realizability audit: whether the environment can force a conflict, with every
/// minimal set of requirements it can drive into one (up to `max_conflicts`). Call it on
/// a consistent spec (an inconsistent one is unrealizable for every input).
///
/// Each group of linked outputs (the members that share output variables, directly or
/// through other members) is decided on its own first: outputs of different groups are
/// independent, so the spec is realizable exactly when every group is. The conflicts
/// are then looked for among the requirements of the groups that are not realizable
/// (every minimal conflict lies within one group).
pub fn realizability(spec: &Spec, options: &RealizeOptions) -> Result<Realizability, SolverError> {
    realizability_cached(spec, options, &std::collections::HashMap::new()).map(|r| r.0)
}

/// [`realizability_cached`]'s answer: the verdict, the realizable groups (content key
/// and rounds), the number of groups, and how many were known.
pub(crate) type Cached = (Realizability, Vec<(u128, usize)>, usize, usize);

/// A content key of a group: everything its verdict depends on.
fn group_key(spec: &Spec, g: &Group, options: &RealizeOptions) -> u128 {
    let mut h = crate::audit::ContentHash::new()
        .str("realizability group")
        .num(options.max_iterations as u128)
        .str(&spec.logic);
    for i in &g.reqs {
        let r = &spec.requirements[*i];
        h = h.str(&r.id);
        if let Some(f) = &r.formula {
            h = h.str(&logic::print::term(f));
        }
    }
    for d in g.dom_io.iter().chain(&g.dom_in) {
        h = h
            .str(&spec.domain[*d].id)
            .str(&logic::print::term(&spec.domain[*d].formula));
    }
    for (role, list) in [("in", &g.inputs), ("out", &g.outputs)] {
        for v in list {
            let var = &spec.variables[*v];
            h = h.str(role).decl(spec, &var.name, &var.sort);
        }
    }
    h.finish()
}

/// [`realizability`], taking the groups found realizable by an earlier run from `known`
/// (by content key, with their rounds). Also returns the realizable groups' keys and
/// rounds, the number of groups, and how many came from `known`.
pub(crate) fn realizability_cached(
    spec: &Spec,
    options: &RealizeOptions,
    known: &std::collections::HashMap<u128, usize>,
) -> Result<Cached, SolverError> {
    let roles = match roles(spec) {
        Ok(r) => r,
        Err(reason) => return Ok((Realizability::NotChecked { reason }, Vec::new(), 0, 0)),
    };
    let groups = if options.by_groups {
        groups(spec, &roles)
    } else {
        Vec::new()
    };
    let mut rounds = 0;
    let mut open: Vec<&Group> = Vec::new();
    let mut unknown = None;
    let mut learned = Vec::new();
    let mut from_cache = 0;
    if options.by_groups {
        let mut session: Option<Solver> = None;
        for g in &groups {
            let key = group_key(spec, g, options);
            if let Some(n) = known.get(&key) {
                rounds += n;
                from_cache += 1;
                learned.push((key, *n));
                continue;
            }
            let s = match &mut session {
                Some(s) => s,
                None => {
                    let mut s = Solver::start(&options.solver)?;
                    s.command(&logic::Command::SetLogic(spec.logic.clone()))?;
                    for (name, values) in &spec.enums {
                        s.command(&logic::Command::DeclareEnum(name.clone(), values.clone()))?;
                    }
                    session.insert(s)
                }
            };
            match decide(s, spec, g, options.max_iterations)? {
                Decision::Realizable(n) => {
                    rounds += n;
                    learned.push((key, n));
                }
                Decision::Unrealizable => open.push(g),
                Decision::Unknown(reason) => {
                    unknown.get_or_insert(reason);
                }
            }
        }
    }
    let n_groups = groups.len().max(1);
    if options.by_groups && open.is_empty() {
        let r = match unknown {
            Some(reason) => Realizability::Unknown { reason },
            None => Realizability::Realizable { iterations: rounds },
        };
        return Ok((r, learned, n_groups, from_cache));
    }
    let r = conflicts_among(spec, roles, options, &open)?;
    Ok((r, learned, n_groups, from_cache))
}

/// The conflict enumeration over the requirements of the unrealizable groups (all
/// requirements without groups).
fn conflicts_among(
    spec: &Spec,
    roles: Roles,
    options: &RealizeOptions,
    open: &[&Group],
) -> Result<Realizability, SolverError> {
    let all: Vec<usize> = if options.by_groups && open.iter().all(|g| !g.reqs.is_empty()) {
        let mut all: Vec<usize> = open.iter().flat_map(|g| g.reqs.iter().copied()).collect();
        all.sort_unstable();
        all
    } else {
        // A clash of domain constraints alone: the whole loop, as it always ran.
        spec.requirements
            .iter()
            .enumerate()
            .filter(|(_, r)| r.formula.is_some())
            .map(|(i, _)| i)
            .collect()
    };
    // Outputs of different groups are independent, so every minimal conflict lies within
    // one group: each is enumerated on its own (also on the whole-loop path, which only
    // decides the groups together).
    let sorted = |g: &Group| {
        let mut p = g.reqs.clone();
        p.sort_unstable();
        p
    };
    let parts: Vec<Vec<usize>> = if !open.iter().all(|g| !g.reqs.is_empty()) {
        // A clash of domain constraints alone: one part.
        vec![all.clone()]
    } else if options.by_groups {
        open.iter().map(|g| sorted(g)).collect()
    } else {
        let gs = groups(spec, &roles);
        let mut parts: Vec<Vec<usize>> = gs.iter().map(sorted).filter(|p| !p.is_empty()).collect();
        // Requirements over inputs only belong to no group: each is a part of its own.
        let grouped: BTreeSet<usize> = parts.iter().flatten().copied().collect();
        parts.extend(
            all.iter()
                .filter(|i| !grouped.contains(i))
                .map(|i| vec![*i]),
        );
        parts
    };
    let mut r = Realizer::new(spec, roles, options)?;
    // Is there a conflict at all? Then the list is enumerated smallest first
    // (crate::marco), so a capped list holds the shortest conflicts.
    match r.cegis(&all)? {
        Cegis::Realizable => {
            return Ok(Realizability::Realizable {
                iterations: r.rounds,
            })
        }
        Cegis::Unknown(reason) => return Ok(Realizability::Unknown { reason }),
        Cegis::Witness(..) => {}
    }
    let mut map_config = SolverConfig::new(options.solver.kind);
    map_config.program = options.solver.program.clone();
    let mut oracle = RealizeOracle { r: &mut r };
    let crate::marco::Found {
        conflicts: found,
        stopped,
    } = crate::marco::by_parts(&mut oracle, &parts, options.max_conflicts, &map_config)?;
    let mut conflicts = Vec::new();
    for (set, wit) in &found {
        let c = r.conflict(set, wit)?;
        recheck(spec, &options.solver, &c, wit)?;
        conflicts.push(c);
    }
    Ok(Realizability::Unrealizable {
        conflicts,
        complete: stopped.is_none(),
        incomplete: stopped,
    })
}

/// The realizability questions about subsets of the requirements (spec indices), for
/// the smallest-first enumeration.
struct RealizeOracle<'r, 'a> {
    r: &'r mut Realizer<'a>,
}

impl crate::marco::Oracle for RealizeOracle<'_, '_> {
    type Evidence = Model;

    fn probe(&mut self, set: &[usize]) -> Result<crate::marco::Probe<Model>, SolverError> {
        use crate::marco::Probe;
        Ok(match self.r.cegis(set)? {
            Cegis::Realizable => Probe::Fine,
            Cegis::Unknown(reason) => Probe::Unknown(reason),
            Cegis::Witness(w, core) => {
                let (set, wit, doubt) = self.r.shrink(core, w)?;
                Probe::Conflict(set, wit, doubt)
            }
        })
    }
}
