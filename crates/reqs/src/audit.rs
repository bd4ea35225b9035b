//! The four audits of VeriMed section 2.1, over M = C ∧ all requirements.
//!
//! Every domain constraint and requirement is asserted once, guarded by an assumption
//! literal (`vera!d<i> => C_i`, `vera!r<i> => rho_i`). Each check selects its members
//! with `check-sat-assuming` and adds the trigger or violation inside a `push`/`pop`, so
//! one solver process answers every check incrementally; a pool of such processes
//! splits the per-requirement checks. Cores are minimized by deletion.

use crate::spec::{Requirement, Spec};
use logic::{Model, Sort, Symbol, Term};
use serde::Serialize;
use solver::{Outcome, Pool, Solver, SolverConfig, SolverError};
use std::collections::HashMap;

/// Options for [`audit`].
#[derive(Debug, Clone)]
pub struct AuditOptions {
    /// The solver to use.
    pub solver: SolverConfig,
    /// Parallel solver processes (0: number of cores).
    pub jobs: usize,
    /// When inconsistent, enumerate up to this many minimal conflicts (1: just one).
    pub max_conflicts: usize,
    /// Benchmark baseline only: a fresh solver process per query instead of one
    /// incremental session per worker.
    pub fresh_process_per_query: bool,
    /// Run the realizability audit (when the schema has roles).
    pub realizability: bool,
}

impl AuditOptions {
    /// Defaults: one minimal conflict, one job per core.
    pub fn new(solver: SolverConfig) -> AuditOptions {
        AuditOptions {
            solver,
            jobs: 0,
            max_conflicts: 1,
            fresh_process_per_query: false,
            realizability: true,
        }
    }
}

/// One variable's value in a witness, with its unit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Assignment {
    /// Variable name.
    pub variable: String,
    /// Value as printed for people (`-3`, `2.5`, `1/3`, `true`, `Bolus`).
    pub value: String,
    /// The variable's unit, if the schema gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
}

/// A state, restricted to the variables that matter for a finding.
pub type Witness = Vec<Assignment>;

/// Global consistency of M.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Consistency {
    /// M is satisfiable.
    Consistent,
    /// The domain constraints alone are unsatisfiable.
    DomainInconsistent {
        /// A minimal set of clashing domain constraints.
        conflict: Vec<String>,
    },
    /// M is unsatisfiable.
    Inconsistent {
        /// Minimal conflicting sets of ids (requirements and the domain constraints involved).
        conflicts: Vec<Vec<String>>,
        /// True when every minimal conflict was found: the enumeration ran to its end
        /// (it did not hit its cap, and the solver answered every query).
        complete: bool,
        /// Why the enumeration stopped early, when it did (the cap, or an unknown answer).
        #[serde(skip_serializing_if = "Option::is_none")]
        incomplete: Option<Incomplete>,
    },
    /// The solver gave no answer.
    Unknown {
        /// Why.
        reason: String,
    },
}

/// Why a conflict enumeration stopped before it had found every minimal conflict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "why", rename_all = "kebab-case")]
pub enum Incomplete {
    /// The requested number of conflicts was reached.
    Cap {
        /// The cap.
        cap: usize,
    },
    /// The solver answered unknown (or failed) during the enumeration; there may be
    /// conflicts not listed.
    Unknown {
        /// The solver's reason.
        reason: String,
    },
}

/// Can a requirement's trigger ever hold?
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Vacuity {
    /// The trigger can hold.
    Reachable,
    /// The trigger can never hold; `because` lists what rules it out.
    Vacuous {
        /// Ids of the constraints and requirements that make the trigger unreachable.
        because: Vec<String>,
        /// True when the requirement itself is part of the reason: whenever it fires,
        /// its response contradicts the others, so M rules the trigger out.
        response_conflict: bool,
    },
    /// Invariants have no trigger.
    NotApplicable,
    /// Not checked.
    Skipped {
        /// Why.
        reason: String,
    },
    /// The solver gave no answer.
    Unknown {
        /// Why.
        reason: String,
    },
}

/// Can the requirement be broken within the domain?
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Violatability {
    /// A state of the domain that breaks it.
    Violatable {
        /// The violating state, over the requirement's variables.
        witness: Witness,
    },
    /// The domain constraints alone already enforce it.
    ImpliedByDomain {
        /// The domain constraints that enforce it.
        because: Vec<String>,
    },
    /// The solver gave no answer.
    Unknown {
        /// Why.
        reason: String,
    },
}

/// Do the other requirements already enforce this one?
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Redundancy {
    /// No: this state satisfies everything else and breaks this requirement.
    NotRedundant {
        /// The state, over the requirement's variables.
        witness: Witness,
    },
    /// Yes, enforced by these.
    Redundant {
        /// A minimal set of ids (requirements and domain constraints) that subsume it.
        subsumed_by: Vec<String>,
    },
    /// Not checked.
    Skipped {
        /// Why.
        reason: String,
    },
    /// The solver gave no answer.
    Unknown {
        /// Why.
        reason: String,
    },
}

/// The audit of one requirement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RequirementAudit {
    /// Requirement id.
    pub id: String,
    /// Line in the spec.
    pub line: usize,
    /// `conditional` or `invariant`.
    pub kind: &'static str,
    /// Vacuity of the trigger under the domain constraints C alone.
    pub vacuity_domain: Vacuity,
    /// Vacuity of the trigger under C and the other requirements.
    pub vacuity_model: Vacuity,
    /// Violatability under C.
    pub violatability: Violatability,
    /// Redundancy against the rest of M.
    pub redundancy: Redundancy,
}

impl RequirementAudit {
    /// True when any check found a defect or gave no answer.
    pub fn has_findings(&self) -> bool {
        matches!(
            self.vacuity_domain,
            Vacuity::Vacuous { .. } | Vacuity::Unknown { .. }
        ) || matches!(
            self.vacuity_model,
            Vacuity::Vacuous { .. } | Vacuity::Unknown { .. }
        ) || matches!(
            self.violatability,
            Violatability::ImpliedByDomain { .. } | Violatability::Unknown { .. }
        ) || matches!(
            self.redundancy,
            Redundancy::Redundant { .. } | Redundancy::Unknown { .. }
        )
    }
}

/// The whole audit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AuditReport {
    /// Global consistency of M.
    pub consistency: Consistency,
    /// One entry per formalized requirement, in spec order.
    pub requirements: Vec<RequirementAudit>,
    /// Ids of requirements without a formula.
    pub not_formalized: Vec<String>,
    /// Conflicts the environment can force (see [`crate::realize`]).
    pub realizability: crate::realize::Realizability,
    /// Number of solver queries issued.
    pub queries: usize,
}

/// Why an audit could not run at all (individual checks report unknowns instead).
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// The solver failed outside any single check.
    #[error(transparent)]
    Solver(#[from] SolverError),
}

/// Who an assumption literal stands for.
#[derive(Debug, Clone, Copy)]
enum Member {
    Domain(usize),
    Req(usize),
}

/// The assumption literals of a spec loaded into a solver.
#[derive(Debug, Clone)]
pub struct Loaded {
    domain: Vec<Term>,
    /// Per requirement (spec order); `None` for requirements without a formula.
    reqs: Vec<Option<Term>>,
    members: HashMap<Symbol, Member>,
}

impl Loaded {
    /// Literals for the domain constraints.
    pub fn domain(&self) -> &[Term] {
        &self.domain
    }

    /// Literals for all formalized requirements except `skip`.
    pub fn reqs_except(&self, skip: Option<usize>) -> Vec<Term> {
        self.reqs
            .iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != skip)
            .filter_map(|(_, l)| l.clone())
            .collect()
    }

    /// The id of the member behind a literal.
    pub fn id_of<'a>(&self, spec: &'a Spec, lit: &Term) -> Option<&'a str> {
        let Term::Var(n, _) = lit else { return None };
        match self.members.get(n)? {
            Member::Domain(i) => Some(&spec.domain[*i].id),
            Member::Req(i) => Some(&spec.requirements[*i].id),
        }
    }

    pub(crate) fn ids(&self, spec: &Spec, lits: &[Term]) -> Vec<String> {
        // Requirements first, in spec order, then domain constraints.
        let mut reqs = Vec::new();
        let mut dom = Vec::new();
        for l in lits {
            if let Term::Var(n, _) = l {
                match self.members.get(n) {
                    Some(Member::Req(i)) => reqs.push(*i),
                    Some(Member::Domain(i)) => dom.push(*i),
                    None => {}
                }
            }
        }
        reqs.sort_unstable();
        dom.sort_unstable();
        reqs.iter()
            .map(|i| spec.requirements[*i].id.clone())
            .chain(dom.iter().map(|i| spec.domain[*i].id.clone()))
            .collect()
    }
}

/// Declares the schema and asserts every member under its literal.
pub fn load_into(solver: &mut Solver, spec: &Spec) -> Result<Loaded, SolverError> {
    load_part(solver, spec, None)
}

/// A set of spec members that shares no variable with the rest of the spec.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Component {
    /// Indices into `spec.variables`.
    pub variables: Vec<usize>,
    /// Indices into `spec.domain`.
    pub domain: Vec<usize>,
    /// Indices into `spec.requirements` (formalized ones only).
    pub requirements: Vec<usize>,
}

/// Splits the spec into variable-disjoint components (members linked by shared
/// variables). When the domain constraints (or all of M) are satisfiable, every
/// component is, so a check that concerns one requirement only needs that
/// requirement's component: the other components can always be satisfied alongside.
pub fn components(spec: &Spec) -> Vec<Component> {
    let index: HashMap<&str, usize> = spec
        .variables
        .iter()
        .enumerate()
        .map(|(i, v)| (&*v.name, i))
        .collect();
    let mut parent: Vec<usize> = (0..spec.variables.len()).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let vars_of = |t: &Term| -> Vec<usize> {
        t.free_vars()
            .iter()
            .filter_map(|(n, _)| index.get(&**n).copied())
            .collect()
    };
    let members: Vec<(Option<usize>, Option<usize>, Vec<usize>)> = spec
        .domain
        .iter()
        .enumerate()
        .map(|(i, d)| (Some(i), None, vars_of(&d.formula)))
        .chain(
            spec.requirements
                .iter()
                .enumerate()
                .filter_map(|(i, r)| r.formula.as_ref().map(|f| (None, Some(i), vars_of(f)))),
        )
        .collect();
    for (_, _, vs) in &members {
        for w in vs.windows(2) {
            let (a, b) = (find(&mut parent, w[0]), find(&mut parent, w[1]));
            parent[a] = b;
        }
    }
    let mut by_root: std::collections::BTreeMap<usize, Component> = Default::default();
    let mut closed: Vec<Component> = Vec::new();
    for v in 0..spec.variables.len() {
        let r = find(&mut parent, v);
        by_root.entry(r).or_default().variables.push(v);
    }
    for (d, q, vs) in members {
        let c = match vs.first() {
            Some(v) => {
                let r = find(&mut parent, *v);
                by_root.entry(r).or_default()
            }
            None => {
                // A closed formula (no variables) stands alone.
                closed.push(Component::default());
                closed.last_mut().expect("just pushed")
            }
        };
        c.domain.extend(d);
        c.requirements.extend(q);
    }
    by_root
        .into_values()
        .chain(closed)
        .filter(|c| !c.domain.is_empty() || !c.requirements.is_empty())
        .collect()
}

/// Declares the schema (or one component of it) and asserts its members under their
/// literals. Literal names depend only on the member's index in the spec.
pub fn load_part(
    solver: &mut Solver,
    spec: &Spec,
    part: Option<&Component>,
) -> Result<Loaded, SolverError> {
    solver.command(&logic::Command::SetLogic(spec.logic.clone()))?;
    for (name, values) in &spec.enums {
        solver.command(&logic::Command::DeclareEnum(name.clone(), values.clone()))?;
    }
    let all_vars: Vec<usize>;
    let vars = match part {
        Some(c) => &c.variables,
        None => {
            all_vars = (0..spec.variables.len()).collect();
            &all_vars
        }
    };
    for &i in vars {
        let v = &spec.variables[i];
        solver.declare_const(&v.name, v.sort.clone())?;
    }
    let mut members = HashMap::new();
    let mut guard =
        |solver: &mut Solver, name: String, t: &Term, m: Member| -> Result<Term, SolverError> {
            solver.declare_const(&name, Sort::Bool)?;
            let lit = Term::var(&name, Sort::Bool);
            solver.assert(&Term::app(logic::Op::Implies, vec![lit.clone(), t.clone()]))?;
            members.insert(Symbol::from(name.as_str()), m);
            Ok(lit)
        };
    let mut domain = Vec::new();
    for (i, d) in spec.domain.iter().enumerate() {
        if part.is_some_and(|c| !c.domain.contains(&i)) {
            continue;
        }
        domain.push(guard(
            solver,
            format!("vera!d{i}"),
            &d.formula,
            Member::Domain(i),
        )?);
    }
    let mut reqs = Vec::new();
    for (i, r) in spec.requirements.iter().enumerate() {
        let wanted = part.is_none_or(|c| c.requirements.contains(&i));
        reqs.push(match &r.formula {
            Some(f) if wanted => Some(guard(solver, format!("vera!r{i}"), f, Member::Req(i))?),
            _ => None,
        });
    }
    Ok(Loaded {
        domain,
        reqs,
        members,
    })
}

/// A solver with a spec loaded, counting its queries.
pub struct Session<'s> {
    /// The solver.
    pub solver: &'s mut Solver,
    /// The literals.
    pub lits: Loaded,
    /// Queries issued.
    pub queries: usize,
    /// Benchmark baseline: answer every query in a fresh process that loads the spec
    /// anew, as a script without incremental solving would.
    pub fresh: Option<(SolverConfig, &'s Spec)>,
    /// Set when a minimization kept a member because the solver answered unknown
    /// without it (the result is unsat but may not be minimal).
    pub minimize_unknown: Option<String>,
}

/// The result of one check-sat, with cores already mapped to literals.
pub enum Answer {
    /// Satisfiable, with a model.
    Sat(Model),
    /// Unsatisfiable, with a (not necessarily minimal) core of the assumptions.
    Unsat(Vec<Term>),
    /// No answer.
    Unknown(String),
}

impl<'s> Session<'s> {
    /// A session over a loaded spec, with no queries yet.
    pub fn new(solver: &'s mut Solver, lits: Loaded) -> Session<'s> {
        Session {
            solver,
            lits,
            queries: 0,
            fresh: None,
            minimize_unknown: None,
        }
    }

    /// Checks the given assumptions, with `extra` asserted for this query only.
    pub fn check(&mut self, assumptions: &[Term], extra: &[Term]) -> Result<Answer, SolverError> {
        self.queries += 1;
        if let Some((config, spec)) = &self.fresh {
            let mut solver = Solver::start(config)?;
            load_into(&mut solver, spec)?;
            for t in extra {
                solver.assert(t)?;
            }
            return Ok(match solver.check_assuming(assumptions)? {
                Outcome::Sat(m) => Answer::Sat(m),
                Outcome::Unsat(core) => Answer::Unsat(core),
                Outcome::Unknown(reason) => Answer::Unknown(reason.to_string()),
            });
        }
        if !extra.is_empty() {
            self.solver.push()?;
            for t in extra {
                if let Err(e) = self.solver.assert(t) {
                    self.solver.pop()?;
                    return Err(e);
                }
            }
        }
        let r = self.solver.check_assuming(assumptions);
        if !extra.is_empty() {
            self.solver.pop()?;
        }
        Ok(match r? {
            Outcome::Sat(m) => Answer::Sat(m),
            Outcome::Unsat(core) => Answer::Unsat(core),
            Outcome::Unknown(reason) => Answer::Unknown(reason.to_string()),
        })
    }

    /// Deletion-based minimization: the smallest subset of `core` (with `fixed` always
    /// assumed) that stays unsat, such that removing any member makes it sat.
    /// Members whose removal gives unknown are kept.
    pub fn minimize(
        &mut self,
        fixed: &[Term],
        core: Vec<Term>,
        extra: &[Term],
    ) -> Result<Vec<Term>, SolverError> {
        let mut core: Vec<Term> = core.into_iter().filter(|l| !fixed.contains(l)).collect();
        let mut i = 0;
        while i < core.len() {
            let mut candidate = core.clone();
            candidate.remove(i);
            let mut assume = fixed.to_vec();
            assume.extend(candidate.iter().cloned());
            match self.check(&assume, extra)? {
                Answer::Unsat(c) => {
                    // Keep only what the new core still needs (it is a subset of the candidate).
                    core = candidate.into_iter().filter(|l| c.contains(l)).collect();
                }
                Answer::Sat(_) => i += 1,
                Answer::Unknown(r) => {
                    self.minimize_unknown.get_or_insert(r);
                    i += 1;
                }
            }
        }
        Ok(core)
    }
}

/// The model restricted to the schema variables that occur in `terms`, in schema order,
/// with units: the witness shown for a finding.
pub fn witness(spec: &Spec, model: &Model, terms: &[&Term]) -> Witness {
    let mut names: Vec<Symbol> = Vec::new();
    for t in terms {
        for (n, _) in t.free_vars() {
            if !names.contains(&n) {
                names.push(n);
            }
        }
    }
    // Schema order reads better than first-use order.
    spec.variables
        .iter()
        .filter(|v| names.contains(&v.name))
        .filter_map(|v| {
            model.get(&v.name).map(|val| Assignment {
                variable: v.name.to_string(),
                value: val.to_string(),
                unit: v.unit.clone(),
            })
        })
        .collect()
}

/// Runs the four audits.
pub fn audit(spec: &Spec, options: &AuditOptions) -> Result<AuditReport, AuditError> {
    let mut main = Solver::start(&options.solver)?;
    let lits = load_into(&mut main, spec)?;
    let fresh = options
        .fresh_process_per_query
        .then(|| (options.solver.clone(), spec));
    let mut s = Session {
        solver: &mut main,
        lits,
        queries: 0,
        fresh: fresh.clone(),
        minimize_unknown: None,
    };
    let not_formalized: Vec<String> = spec
        .requirements
        .iter()
        .filter(|r| r.formula.is_none())
        .map(|r| r.id.clone())
        .collect();

    // The domain alone first: if it is unsatisfiable, nothing else means anything.
    let dom = s.lits.domain.clone();
    match s.check(&dom, &[])? {
        Answer::Unsat(core) => {
            let min = s.minimize(&[], core, &[])?;
            let conflict = s.lits.ids(spec, &min);
            return Ok(AuditReport {
                consistency: Consistency::DomainInconsistent { conflict },
                requirements: Vec::new(),
                not_formalized,
                realizability: not_checked("the domain constraints are inconsistent"),
                queries: s.queries,
            });
        }
        Answer::Unknown(reason) => {
            return Ok(AuditReport {
                realizability: crate::realize::Realizability::Unknown {
                    reason: format!("the domain's consistency is unknown ({reason})"),
                },
                consistency: Consistency::Unknown { reason },
                requirements: Vec::new(),
                not_formalized,
                queries: s.queries,
            })
        }
        Answer::Sat(_) => {}
    }
    let mut all = dom.clone();
    all.extend(s.lits.reqs_except(None));
    let consistency = match s.check(&all, &[])? {
        Answer::Sat(_) => Consistency::Consistent,
        Answer::Unknown(reason) => Consistency::Unknown { reason },
        Answer::Unsat(core) => {
            let (conflicts, incomplete) = conflicts(&mut s, spec, core, options.max_conflicts)?;
            Consistency::Inconsistent {
                conflicts,
                complete: incomplete.is_none(),
                incomplete,
            }
        }
    };
    let global = match &consistency {
        Consistency::Consistent => Global::Consistent,
        Consistency::Unknown { reason } => Global::Unknown(reason.clone()),
        _ => Global::Inconsistent,
    };
    let mut queries = s.queries;

    // Per-requirement checks run on the requirement's component only (see
    // [`components`]), in chunks so that one large component still uses every worker.
    // Each chunk reloads its component into a solver, so chunks are as large as keeps
    // every worker busy: about four per worker, and at least 32 requirements.
    let jobs = if options.jobs == 0 {
        std::thread::available_parallelism().map_or(1, usize::from)
    } else {
        options.jobs
    };
    let chunk_size = (spec.formalized().count() / (jobs * 4)).max(32);
    let parts = components(spec);
    let mut items: Vec<(usize, Vec<usize>)> = Vec::new();
    for (k, c) in parts.iter().enumerate() {
        for chunk in c.requirements.chunks(chunk_size) {
            items.push((k, chunk.to_vec()));
        }
    }
    let pool = Pool::new(options.solver.clone(), options.jobs);
    let counted = std::sync::atomic::AtomicUsize::new(0);
    let results = pool.map(&items, |solver, (k, chunk)| {
        let lits = load_part(solver, spec, Some(&parts[*k]))?;
        let mut s = Session {
            solver,
            lits,
            queries: 0,
            fresh: fresh.clone(),
            minimize_unknown: None,
        };
        let r: Result<Vec<(usize, RequirementAudit)>, SolverError> = chunk
            .iter()
            .map(|&i| audit_one(&mut s, spec, i, &global).map(|a| (i, a)))
            .collect();
        counted.fetch_add(s.queries, std::sync::atomic::Ordering::Relaxed);
        r
    });
    queries += counted.into_inner();
    let mut by_index: HashMap<usize, RequirementAudit> = HashMap::new();
    for ((_, chunk), r) in items.iter().zip(results) {
        match r {
            Ok(list) => by_index.extend(list),
            Err(e) => {
                let reason = format!("solver error: {e}");
                for &i in chunk {
                    let req = &spec.requirements[i];
                    by_index.insert(
                        i,
                        RequirementAudit {
                            id: req.id.clone(),
                            line: req.line,
                            kind: kind(req),
                            vacuity_domain: Vacuity::Unknown {
                                reason: reason.clone(),
                            },
                            vacuity_model: Vacuity::Unknown {
                                reason: reason.clone(),
                            },
                            violatability: Violatability::Unknown {
                                reason: reason.clone(),
                            },
                            redundancy: Redundancy::Unknown {
                                reason: reason.clone(),
                            },
                        },
                    );
                }
            }
        }
    }
    let requirements: Vec<RequirementAudit> = (0..spec.requirements.len())
        .filter_map(|i| by_index.remove(&i))
        .collect();
    let realizability = match &consistency {
        _ if !options.realizability => not_checked("not asked for"),
        Consistency::Consistent => {
            let mut ro = crate::realize::RealizeOptions::new(options.solver.clone());
            ro.max_conflicts = ro.max_conflicts.max(options.max_conflicts);
            match crate::realize::realizability(spec, &ro) {
                Ok(r) => r,
                Err(e) => crate::realize::Realizability::Unknown {
                    reason: format!("solver error: {e}"),
                },
            }
        }
        Consistency::Unknown { reason } => crate::realize::Realizability::Unknown {
            reason: format!("the consistency of the requirements is unknown ({reason})"),
        },
        _ => not_checked("the requirements are inconsistent (no state satisfies them at all)"),
    };
    Ok(AuditReport {
        consistency,
        requirements,
        not_formalized,
        realizability,
        queries,
    })
}

fn not_checked(reason: &str) -> crate::realize::Realizability {
    crate::realize::Realizability::NotChecked {
        reason: reason.into(),
    }
}

fn kind(r: &Requirement) -> &'static str {
    if r.is_conditional() {
        "conditional"
    } else {
        "invariant"
    }
}

/// What the global check found, as the per-requirement checks need it.
enum Global {
    Consistent,
    Inconsistent,
    /// The consistency check answered unknown (with the reason).
    Unknown(String),
}

impl Global {
    /// Why a check that needs a consistent M was not run: `Ok` a skip reason, `Err` an
    /// unknown reason.
    fn not_run(&self) -> Option<Result<String, String>> {
        match self {
            Global::Consistent => None,
            Global::Inconsistent => Some(Ok("the requirements are inconsistent".into())),
            Global::Unknown(r) => Some(Err(format!(
                "not checked: the consistency of the requirements is unknown ({r})"
            ))),
        }
    }
}

fn audit_one(
    s: &mut Session,
    spec: &Spec,
    i: usize,
    global: &Global,
) -> Result<RequirementAudit, SolverError> {
    let consistent = matches!(global, Global::Consistent);
    let req = &spec.requirements[i];
    let dom = s.lits.domain.clone();
    let mut rest = dom.clone();
    rest.extend(s.lits.reqs_except(Some(i)));
    let mut all = dom.clone();
    all.extend(s.lits.reqs_except(None));
    let trigger = req.trigger();
    let violation = req.violation().expect("formalized");
    let formula = req.formula.as_ref().expect("formalized");

    let breaking = [trigger.clone(), violation.clone()];
    // The redundancy query first: when the rest of M allows breaking this requirement,
    // that one state also shows the trigger reachable and the requirement violatable
    // under the domain, which saves two queries for most requirements.
    let rest_breaks = if consistent {
        Some(s.check(&rest, &breaking)?)
    } else {
        None
    };
    let broken_state = match &rest_breaks {
        Some(Answer::Sat(m)) => Some(m.clone()),
        _ => None,
    };

    let (vacuity_domain, vacuity_model) = if req.is_conditional() {
        let vd = if broken_state.is_some() {
            Vacuity::Reachable
        } else {
            match s.check(&dom, std::slice::from_ref(&trigger))? {
                Answer::Sat(_) => Vacuity::Reachable,
                Answer::Unsat(core) => {
                    let min = s.minimize(&[], core, std::slice::from_ref(&trigger))?;
                    Vacuity::Vacuous {
                        because: s.lits.ids(spec, &min),
                        response_conflict: false,
                    }
                }
                Answer::Unknown(reason) => Vacuity::Unknown { reason },
            }
        };
        let vm = if let Some(why) = global.not_run() {
            match why {
                Ok(reason) => Vacuity::Skipped { reason },
                Err(reason) => Vacuity::Unknown { reason },
            }
        } else if matches!(vd, Vacuity::Vacuous { .. }) {
            Vacuity::Skipped {
                reason: "already vacuous under the domain constraints".into(),
            }
        } else {
            // Under all of M, this requirement included: a trigger that the others rule
            // out, or one whose response contradicts the others whenever it fires.
            match s.check(&all, std::slice::from_ref(&trigger))? {
                Answer::Sat(_) => Vacuity::Reachable,
                Answer::Unsat(core) => {
                    let min = s.minimize(&[], core, std::slice::from_ref(&trigger))?;
                    let own = s.lits.reqs[i].as_ref().is_some_and(|l| min.contains(l));
                    let because = s
                        .lits
                        .ids(spec, &min)
                        .into_iter()
                        .filter(|id| *id != req.id)
                        .collect();
                    Vacuity::Vacuous {
                        because,
                        response_conflict: own,
                    }
                }
                Answer::Unknown(reason) => Vacuity::Unknown { reason },
            }
        };
        (vd, vm)
    } else {
        (Vacuity::NotApplicable, Vacuity::NotApplicable)
    };

    let violatability = match &broken_state {
        Some(m) => Violatability::Violatable {
            witness: witness(spec, m, &[formula]),
        },
        None => match s.check(&dom, &breaking)? {
            Answer::Sat(m) => Violatability::Violatable {
                witness: witness(spec, &m, &[formula]),
            },
            Answer::Unsat(core) => {
                let min = s.minimize(&[], core, &breaking)?;
                Violatability::ImpliedByDomain {
                    because: s.lits.ids(spec, &min),
                }
            }
            Answer::Unknown(reason) => Violatability::Unknown { reason },
        },
    };

    let redundancy = match rest_breaks {
        None => match global.not_run() {
            Some(Err(reason)) => Redundancy::Unknown { reason },
            Some(Ok(reason)) => Redundancy::Skipped { reason },
            None => Redundancy::Skipped {
                reason: "not checked".into(),
            },
        },
        Some(Answer::Sat(m)) => Redundancy::NotRedundant {
            witness: witness(spec, &m, &[formula]),
        },
        Some(Answer::Unsat(core)) => {
            let min = s.minimize(&[], core, &breaking)?;
            Redundancy::Redundant {
                subsumed_by: s.lits.ids(spec, &min),
            }
        }
        Some(Answer::Unknown(reason)) => Redundancy::Unknown { reason },
    };
    Ok(RequirementAudit {
        id: req.id.clone(),
        line: req.line,
        kind: kind(req),
        vacuity_domain,
        vacuity_model,
        violatability,
        redundancy,
    })
}

/// One minimal conflict, or (with `cap > 1`) up to `cap` of them by MARCO-style
/// enumeration over the requirements (domain constraints always assumed).
fn conflicts(
    s: &mut Session,
    spec: &Spec,
    core: Vec<Term>,
    cap: usize,
) -> Result<(Vec<Vec<String>>, Option<Incomplete>), SolverError> {
    let first = s.minimize(&[], core, &[])?;
    if cap <= 1 {
        return Ok((
            vec![s.lits.ids(spec, &first)],
            Some(Incomplete::Cap { cap: 1 }),
        ));
    }
    let dom = s.lits.domain.clone();
    let reqs = s.lits.reqs_except(None);
    // The map solver: one Bool per requirement; each model is an unexplored subset.
    let mut map = Solver::start(&map_config(s))?;
    let seeds: Vec<Term> = (0..reqs.len())
        .map(|k| Term::var(&format!("m{k}"), Sort::Bool))
        .collect();
    for k in 0..reqs.len() {
        map.declare_const(&format!("m{k}"), Sort::Bool)?;
    }
    let index: HashMap<&Term, usize> = reqs.iter().enumerate().map(|(k, l)| (l, k)).collect();
    let block_mus = |map: &mut Solver, mus: &[Term]| -> Result<(), SolverError> {
        let clause: Vec<Term> = mus
            .iter()
            .filter_map(|l| index.get(l))
            .map(|k| Term::not(seeds[*k].clone()))
            .collect();
        map.assert(&or(clause))
    };
    let mut found: Vec<Vec<Term>> = Vec::new();
    let first_reqs: Vec<Term> = first
        .iter()
        .filter(|l| index.contains_key(l))
        .cloned()
        .collect();
    block_mus(&mut map, &first_reqs)?;
    found.push(first);
    let unknown = |why: &str, reason: &dyn std::fmt::Display| {
        Some(Incomplete::Unknown {
            reason: format!("{why}: {reason}"),
        })
    };
    let mut stopped: Option<Incomplete> = None;
    loop {
        if found.len() >= cap {
            stopped = Some(Incomplete::Cap { cap });
            break;
        }
        // Prefer large seeds: assume every seed variable true, dropping the failed ones.
        let seed: Vec<usize> = match map.check_assuming(&seeds)? {
            Outcome::Sat(m) => (0..reqs.len())
                .filter(|k| model_true(&m, &seeds[*k]))
                .collect(),
            Outcome::Unsat(_) => match map.check()? {
                Outcome::Sat(m) => (0..reqs.len())
                    .filter(|k| model_true(&m, &seeds[*k]))
                    .collect(),
                Outcome::Unsat(_) => break,
                Outcome::Unknown(r) => {
                    stopped = unknown("the subset solver answered unknown", &r);
                    break;
                }
            },
            Outcome::Unknown(r) => {
                stopped = unknown("the subset solver answered unknown", &r);
                break;
            }
        };
        let mut assume = dom.clone();
        assume.extend(seed.iter().map(|k| reqs[*k].clone()));
        match s.check(&assume, &[])? {
            Answer::Unsat(core) => {
                let mus = s.minimize(&dom, core, &[])?;
                block_mus(&mut map, &mus)?;
                let mut with_dom = mus.clone();
                // Name the domain constraints involved too.
                let dom_min = s.minimize(&mus, dom.clone(), &[])?;
                with_dom.extend(dom_min);
                found.push(with_dom);
            }
            Answer::Sat(_) => {
                // Grow to a maximal satisfiable subset, then require leaving it.
                let mut mss: Vec<usize> = seed.clone();
                for k in 0..reqs.len() {
                    if mss.contains(&k) {
                        continue;
                    }
                    let mut a = dom.clone();
                    a.extend(mss.iter().map(|j| reqs[*j].clone()));
                    a.push(reqs[k].clone());
                    match s.check(&a, &[])? {
                        Answer::Sat(_) => mss.push(k),
                        Answer::Unsat(_) => {}
                        Answer::Unknown(r) => {
                            stopped = unknown("the solver answered unknown", &r);
                            break;
                        }
                    }
                }
                if stopped.is_some() {
                    break;
                }
                let clause: Vec<Term> = (0..reqs.len())
                    .filter(|k| !mss.contains(k))
                    .map(|k| seeds[k].clone())
                    .collect();
                if clause.is_empty() {
                    break;
                }
                map.assert(&or(clause))?;
            }
            Answer::Unknown(r) => {
                stopped = unknown("the solver answered unknown", &r);
                break;
            }
        }
    }
    if stopped.is_none() {
        if let Some(r) = s.minimize_unknown.take() {
            stopped = unknown("a conflict may not be minimal", &r);
        }
    }
    Ok((
        in_spec_order(spec, found.iter().map(|c| s.lits.ids(spec, c)).collect()),
        stopped,
    ))
}

/// Conflicts ordered by where their first member stands in the spec, so reports do not
/// depend on the order in which a solver happened to find them.
fn in_spec_order(spec: &Spec, mut conflicts: Vec<Vec<String>>) -> Vec<Vec<String>> {
    let pos = |id: &String| {
        spec.requirements
            .iter()
            .position(|r| &r.id == id)
            .unwrap_or(usize::MAX)
    };
    conflicts.sort_by_key(|c| c.iter().map(pos).min());
    conflicts
}

fn map_config(s: &Session) -> SolverConfig {
    let mut c = SolverConfig::new(s.solver.kind());
    c.transcript = None;
    c
}

fn or(mut ts: Vec<Term>) -> Term {
    match ts.len() {
        0 => Term::Bool(false),
        1 => ts.remove(0),
        _ => Term::app(logic::Op::Or, ts),
    }
}

fn model_true(m: &Model, t: &Term) -> bool {
    match t {
        Term::Var(n, _) => matches!(m.get(n), Some(logic::Value::Bool(true))),
        _ => false,
    }
}
