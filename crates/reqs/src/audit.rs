//! The four audits of VeriMed section 2.1, over M = C ∧ all requirements.
//!
//! Every domain constraint and requirement is asserted once, guarded by an assumption
//! literal (`vera!d<i> => C_i`, `vera!r<i> => rho_i`). Each check selects its members
//! with `check-sat-assuming` and adds the trigger or violation inside a `push`/`pop`, so
//! one solver process answers every check incrementally; a pool of such processes
//! splits the per-requirement checks. Cores are minimized by deletion.

use crate::spec::{Requirement, Spec};
use logic::{Model, Sort, Symbol, Term, Value};
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
    /// Settle checks from known models of M and small local queries before asking
    /// about a requirement's whole component (the same verdicts; `false` asks every
    /// check over the whole component, the plain path).
    pub fast_paths: bool,
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
            fast_paths: true,
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
#[derive(Debug, Clone, Default)]
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
    // Membership by index (a large component would make `contains` quadratic).
    let in_part = |list: &[usize], n: usize| {
        let mut v = vec![false; n];
        for &i in list {
            v[i] = true;
        }
        v
    };
    let dom_in = part.map(|c| in_part(&c.domain, spec.domain.len()));
    let req_in = part.map(|c| in_part(&c.requirements, spec.requirements.len()));
    let mut domain = Vec::new();
    for (i, d) in spec.domain.iter().enumerate() {
        if dom_in.as_ref().is_some_and(|v| !v[i]) {
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
        let wanted = req_in.as_ref().is_none_or(|v| v[i]);
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
    let mut first_model = None;
    let consistency = match s.check(&all, &[])? {
        Answer::Sat(m) => {
            first_model = Some(m);
            Consistency::Consistent
        }
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
    let fast = options.fast_paths && !options.fresh_process_per_query;
    let facts = fast.then(|| Facts::new(spec));
    let bases = match (&facts, &first_model) {
        (Some(facts), Some(m)) => make_bases(&mut s, facts, m)?,
        _ => Vec::new(),
    };
    drop(first_model);
    let mut queries = s.queries;

    // Per-requirement checks run on the requirement's component only (see
    // [`components`]), in chunks so that one large component still uses every worker.
    // On the plain path each chunk reloads its component into a solver, so chunks are
    // as large as keeps every worker busy: about four per worker, and at least 32
    // requirements. The fast paths load nothing per chunk and take smaller ones.
    let jobs = if options.jobs == 0 {
        std::thread::available_parallelism().map_or(1, usize::from)
    } else {
        options.jobs
    };
    let chunk_size = if fast {
        (spec.formalized().count() / (jobs * 16)).max(4)
    } else {
        (spec.formalized().count() / (jobs * 4)).max(32)
    };
    let parts = components(spec);
    let mut items: Vec<(usize, Vec<usize>)> = Vec::new();
    for (k, c) in parts.iter().enumerate() {
        for chunk in c.requirements.chunks(chunk_size) {
            items.push((k, chunk.to_vec()));
        }
    }
    let pool = Pool::new(options.solver.clone(), options.jobs);
    let counted = std::sync::atomic::AtomicUsize::new(0);
    let results = if let Some(facts) = &facts {
        pool.map_with(
            &items,
            |solver| {
                solver.command(&logic::Command::SetLogic(spec.logic.clone()))?;
                for (name, values) in &spec.enums {
                    solver.command(&logic::Command::DeclareEnum(name.clone(), values.clone()))?;
                }
                Ok(std::cell::RefCell::new(None))
            },
            |solver, big, (k, chunk)| {
                let mut f = Fast {
                    facts,
                    bases: &bases,
                    scratch: solver,
                    big,
                    parts: &parts,
                    part: *k,
                    config: &options.solver,
                    queries: 0,
                };
                let r: Result<Vec<(usize, RequirementAudit)>, SolverError> = chunk
                    .iter()
                    .map(|&i| audit_one_fast(&mut f, i, &global).map(|a| (i, a)))
                    .collect();
                counted.fetch_add(f.queries, std::sync::atomic::Ordering::Relaxed);
                r
            },
        )
    } else {
        pool.map(&items, |solver, (k, chunk)| {
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
        })
    };
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
                    // When the others alone rule the trigger out, that is the reason
                    // given (not a conflict with this requirement's own response),
                    // whichever core the solver happened to return.
                    let core = match &rest_breaks {
                        Some(Answer::Sat(_)) => core,
                        _ => match s.check(&rest, std::slice::from_ref(&trigger))? {
                            Answer::Unsat(others) => others,
                            _ => core,
                        },
                    };
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

fn and(mut ts: Vec<Term>) -> Term {
    match ts.len() {
        0 => Term::Bool(true),
        1 => ts.remove(0),
        _ => Term::app(logic::Op::And, ts),
    }
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

// ---- Fast paths -----------------------------------------------------------------
//
// On a large connected component every query of the plain path runs over the whole
// component, and every satisfiable answer brings a full model that is read and
// validated: quadratic in the size of the spec. The fast paths answer the same
// questions from a few models of M (the *bases*) and small local queries:
//
// - a base is a validated model of all of M: one from the consistency check and one
//   for each combination of values of the *hub* variables (those that almost every
//   requirement mentions, such as a phase) that some trigger asks for;
// - a satisfiable check is settled by changing a base only where the check's own
//   variables are: a local query over the members that mention them (everything else
//   fixed to the base by a `let`), or a relaxed local query (the members around the
//   check, nothing fixed) whose model is grafted onto a base. Either way the result is
//   a full state that vera's evaluator confirms against every member whose variables
//   changed (the others keep the base's values, which satisfy them);
// - an unsatisfiable local query is conclusive (it has fewer constraints than the
//   real one), and its core is minimized by deletion like any other core;
// - whatever stays open is asked over the whole component, as in the plain path.
//
// Checks that involve only the domain constraints run on the components of the
// domain constraints alone (sound because C was found satisfiable as a whole).

/// A member of M by its index in the spec. Domain constraints sort first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum MemberRef {
    Dom(usize),
    Req(usize),
}

/// Variables mentioned by at least this many members can be hubs.
const HUB_MIN: usize = 32;
/// At most this many bases are asked for.
const MAX_BASES: usize = 32;
/// Local queries with more members than this are left to the whole component.
const LOCAL_LIMIT: usize = 400;

/// What the fast paths know about the structure of a spec.
struct Facts<'a> {
    spec: &'a Spec,
    var_index: HashMap<Symbol, usize>,
    dom_vars: Vec<Vec<usize>>,
    req_vars: Vec<Vec<usize>>,
    /// Per variable: the members that mention it.
    var_members: Vec<Vec<MemberRef>>,
    /// Per variable: the domain constraints that mention it.
    var_domain: Vec<Vec<usize>>,
    /// Per variable: mentioned by so many members that local queries fix it.
    hub: Vec<bool>,
    /// Per variable: its component under the domain constraints alone.
    var_dcomp: Vec<usize>,
    /// The domain constraints of each such component.
    dcomps: Vec<Vec<usize>>,
}

impl<'a> Facts<'a> {
    fn new(spec: &'a Spec) -> Facts<'a> {
        let var_index: HashMap<Symbol, usize> = spec
            .variables
            .iter()
            .enumerate()
            .map(|(i, v)| (v.name.clone(), i))
            .collect();
        let vars_of = |t: &Term| -> Vec<usize> {
            t.free_vars()
                .iter()
                .filter_map(|(n, _)| var_index.get(n).copied())
                .collect()
        };
        let dom_vars: Vec<Vec<usize>> = spec.domain.iter().map(|d| vars_of(&d.formula)).collect();
        let req_vars: Vec<Vec<usize>> = spec
            .requirements
            .iter()
            .map(|r| r.formula.as_ref().map(&vars_of).unwrap_or_default())
            .collect();
        let mut var_members = vec![Vec::new(); spec.variables.len()];
        let mut var_domain = vec![Vec::new(); spec.variables.len()];
        for (i, vs) in dom_vars.iter().enumerate() {
            for &v in vs {
                var_members[v].push(MemberRef::Dom(i));
                var_domain[v].push(i);
            }
        }
        for (i, vs) in req_vars.iter().enumerate() {
            for &v in vs {
                var_members[v].push(MemberRef::Req(i));
            }
        }
        let members = dom_vars.len() + spec.formalized().count();
        let limit = HUB_MIN.max(2 * (members as f64).sqrt() as usize);
        let hub = var_members.iter().map(|m| m.len() > limit).collect();
        // Components of the variables under the domain constraints alone.
        let mut parent: Vec<usize> = (0..spec.variables.len()).collect();
        fn find(p: &mut [usize], mut x: usize) -> usize {
            while p[x] != x {
                p[x] = p[p[x]];
                x = p[x];
            }
            x
        }
        for vs in &dom_vars {
            for w in vs.windows(2) {
                let (a, b) = (find(&mut parent, w[0]), find(&mut parent, w[1]));
                parent[a] = b;
            }
        }
        let mut root_index: HashMap<usize, usize> = HashMap::new();
        let mut var_dcomp = Vec::with_capacity(spec.variables.len());
        for v in 0..spec.variables.len() {
            let r = find(&mut parent, v);
            let next = root_index.len();
            var_dcomp.push(*root_index.entry(r).or_insert(next));
        }
        let mut dcomps = vec![Vec::new(); root_index.len()];
        for (i, vs) in dom_vars.iter().enumerate() {
            if let Some(v) = vs.first() {
                dcomps[var_dcomp[*v]].push(i);
            }
        }
        Facts {
            spec,
            var_index,
            dom_vars,
            req_vars,
            var_members,
            var_domain,
            hub,
            var_dcomp,
            dcomps,
        }
    }

    fn formula(&self, m: MemberRef) -> &'a Term {
        match m {
            MemberRef::Dom(i) => &self.spec.domain[i].formula,
            MemberRef::Req(i) => self.spec.requirements[i]
                .formula
                .as_ref()
                .expect("members are formalized"),
        }
    }

    fn vars(&self, m: MemberRef) -> &[usize] {
        match m {
            MemberRef::Dom(i) => &self.dom_vars[i],
            MemberRef::Req(i) => &self.req_vars[i],
        }
    }

    /// The schema variables of some terms, sorted, each once.
    fn vars_of(&self, ts: &[Term]) -> Vec<usize> {
        let mut out: Vec<usize> = ts
            .iter()
            .flat_map(|t| t.free_vars())
            .filter_map(|(n, _)| self.var_index.get(&n).copied())
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    fn name(&self, v: usize) -> &Symbol {
        &self.spec.variables[v].name
    }

    /// The members that mention any of `vars`, sorted, without `exclude`.
    fn members_of(&self, vars: &[usize], exclude: Option<MemberRef>) -> Vec<MemberRef> {
        let mut out: Vec<MemberRef> = vars
            .iter()
            .flat_map(|v| self.var_members[*v].iter().copied())
            .filter(|m| Some(*m) != exclude)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Ids for people: requirements first in spec order, then domain constraints (as
    /// [`Loaded::ids`] orders them).
    fn ids(&self, members: &[MemberRef]) -> Vec<String> {
        let mut reqs: Vec<usize> = Vec::new();
        let mut dom: Vec<usize> = Vec::new();
        for m in members {
            match m {
                MemberRef::Req(i) => reqs.push(*i),
                MemberRef::Dom(i) => dom.push(*i),
            }
        }
        reqs.sort_unstable();
        dom.sort_unstable();
        reqs.iter()
            .map(|i| self.spec.requirements[*i].id.clone())
            .chain(dom.iter().map(|i| self.spec.domain[*i].id.clone()))
            .collect()
    }

    /// [`witness`], without a pass over the whole schema.
    fn witness(&self, model: &Model, formula: &Term) -> Witness {
        let vars = self.vars_of(std::slice::from_ref(formula));
        vars.into_iter()
            .filter_map(|i| {
                let v = &self.spec.variables[i];
                model.get(&v.name).map(|val| Assignment {
                    variable: v.name.to_string(),
                    value: val.to_string(),
                    unit: v.unit.clone(),
                })
            })
            .collect()
    }

    /// The conjuncts of `x` that mention hub variables only.
    fn hub_conjuncts(&self, x: &[Term]) -> Vec<Term> {
        let mut all = Vec::new();
        for t in x {
            conjuncts(t, &mut all);
        }
        all.into_iter()
            .filter(|t| {
                let vs = self.vars_of(std::slice::from_ref(t));
                !vs.is_empty() && vs.iter().all(|v| self.hub[*v])
            })
            .collect()
    }
}

/// Splits a formula into conjuncts (through `and`, `not or`, `not =>`, `not not`).
fn conjuncts(t: &Term, out: &mut Vec<Term>) {
    match t {
        Term::App(logic::Op::And, args) => args.iter().for_each(|a| conjuncts(a, out)),
        Term::App(logic::Op::Not, args) if args.len() == 1 => match &args[0] {
            Term::App(logic::Op::Or, inner) => inner
                .iter()
                .for_each(|a| conjuncts(&Term::not(a.clone()), out)),
            Term::App(logic::Op::Not, inner) if inner.len() == 1 => conjuncts(&inner[0], out),
            Term::App(logic::Op::Implies, inner) if inner.len() >= 2 => {
                let (last, premises) = inner.split_last().expect("two or more");
                premises.iter().for_each(|a| conjuncts(a, out));
                conjuncts(&Term::not(last.clone()), out);
            }
            _ => out.push(t.clone()),
        },
        _ => out.push(t.clone()),
    }
}

/// A validated model of all of M, by variable index.
#[derive(Debug, Clone)]
struct Base {
    values: Vec<Option<Value>>,
}

impl Base {
    fn from_model(facts: &Facts, m: &Model) -> Base {
        let mut values = vec![None; facts.spec.variables.len()];
        for (n, v) in &m.values {
            if let Some(i) = facts.var_index.get(n) {
                values[*i] = Some(v.clone());
            }
        }
        Base { values }
    }
}

/// A base with a few variables changed.
struct Overlay<'b> {
    base: &'b Base,
    delta: Vec<(usize, Value)>,
}

impl Overlay<'_> {
    fn get(&self, v: usize) -> Option<&Value> {
        match self.delta.iter().find(|(w, _)| *w == v) {
            Some((_, val)) => Some(val),
            None => self.base.values[v].as_ref(),
        }
    }

    /// The state restricted to `vars` (those with a value).
    fn model(&self, facts: &Facts, vars: &[usize]) -> Model {
        let mut m = Model::new();
        for &v in vars {
            if let Some(val) = self.get(v) {
                m.insert(facts.name(v).clone(), val.clone());
            }
        }
        m
    }

    /// True when `t` (over `vars`) evaluates to true in this state.
    fn holds(&self, facts: &Facts, t: &Term, vars: &[usize]) -> bool {
        if vars.iter().any(|v| self.get(*v).is_none()) {
            return false;
        }
        matches!(
            logic::eval_bool(t, &self.model(facts, vars), &facts.spec.context),
            Ok(true)
        )
    }
}

/// How a check that a state exists came out.
enum Found {
    /// A state, confirmed by the evaluator (over the check's variables at least).
    State(Model),
    /// No state: a minimal core of members.
    Unsat(Vec<MemberRef>),
    /// No answer.
    Unknown(String),
}

/// The result of a local query.
enum Local {
    State(Model),
    Unsat(Vec<MemberRef>),
    Open,
}

/// The per-worker state of the fast paths: the worker's own solver for local queries,
/// and (started when first needed) a solver with the whole component loaded.
struct Fast<'f, 's> {
    facts: &'f Facts<'f>,
    bases: &'f [Base],
    scratch: &'s mut Solver,
    big: &'s std::cell::RefCell<Option<(usize, Solver, Loaded)>>,
    parts: &'f [Component],
    part: usize,
    config: &'f SolverConfig,
    queries: usize,
}

impl Fast<'_, '_> {
    /// Bases whose hub values satisfy the hub conjuncts of `x`.
    fn candidates(&self, x: &[Term]) -> Vec<usize> {
        let conj = self.facts.hub_conjuncts(x);
        let with_vars: Vec<(Term, Vec<usize>)> = conj
            .into_iter()
            .map(|t| {
                let vs = self.facts.vars_of(std::slice::from_ref(&t));
                (t, vs)
            })
            .collect();
        (0..self.bases.len())
            .filter(|b| {
                let o = Overlay {
                    base: &self.bases[*b],
                    delta: Vec::new(),
                };
                with_vars.iter().all(|(t, vs)| o.holds(self.facts, t, vs))
            })
            .collect()
    }

    /// Is there a state of M (without `exclude`) where all of `x` holds? Tried on the
    /// bases, then locally, then on the whole component.
    fn exists(&mut self, x: &[Term], exclude: Option<usize>) -> Result<Found, SolverError> {
        let xv = self.facts.vars_of(x);
        let cands = self.candidates(x);
        if exclude.is_none() {
            // A base where x already holds.
            for &b in &cands {
                let o = Overlay {
                    base: &self.bases[b],
                    delta: Vec::new(),
                };
                if x.iter().all(|t| {
                    let vs = self.facts.vars_of(std::slice::from_ref(t));
                    o.holds(self.facts, t, &vs)
                }) {
                    return Ok(Found::State(o.model(self.facts, &xv)));
                }
            }
        }
        if let Some(m) = self.fixed_query(x, exclude, &cands)? {
            return Ok(Found::State(m));
        }
        match self.relaxed_query(x, exclude)? {
            Local::State(m) => {
                return Ok(Found::State(m));
            }
            Local::Unsat(core) => {
                return Ok(Found::Unsat(core));
            }
            Local::Open => {}
        }
        self.whole(x, exclude)
    }

    /// The local query with everything but the non-hub variables of `x` fixed to one of
    /// the candidate bases: the members that mention those variables, and `x`. One
    /// query tries every candidate: the fixed values are `ite` chains over selector
    /// literals.
    fn fixed_query(
        &mut self,
        x: &[Term],
        exclude: Option<usize>,
        cands: &[usize],
    ) -> Result<Option<Model>, SolverError> {
        let facts = self.facts;
        if cands.is_empty() {
            return Ok(None);
        }
        let xv = facts.vars_of(x);
        let free: Vec<usize> = xv
            .iter()
            .copied()
            .filter(|v| !facts.hub[*v] || cands.iter().any(|b| self.bases[*b].values[*v].is_none()))
            .collect();
        let members = facts.members_of(&free, exclude.map(MemberRef::Req));
        if members.len() > LOCAL_LIMIT {
            return Ok(None);
        }
        let mut fixed: Vec<usize> = members
            .iter()
            .flat_map(|m| facts.vars(*m).iter().copied())
            .chain(xv.iter().copied())
            .filter(|v| !free.contains(v))
            .collect();
        fixed.sort_unstable();
        fixed.dedup();
        // Selector k (for k < last) picks candidate k; none of them, the last one.
        let selectors: Vec<Term> = (0..cands.len() - 1)
            .map(|k| Term::var(&format!("vera!base{k}"), Sort::Bool))
            .collect();
        let mut bindings = Vec::with_capacity(fixed.len());
        for v in &fixed {
            let mut values = Vec::with_capacity(cands.len());
            for b in cands {
                match &self.bases[*b].values[*v] {
                    Some(val) => values.push(val),
                    None => return Ok(None),
                }
            }
            let last = values.last().expect("a candidate").to_term();
            let term = if values.iter().all(|val| *val == values[0]) {
                last
            } else {
                selectors
                    .iter()
                    .zip(&values)
                    .rev()
                    .fold(last, |rest, (sel, val)| {
                        Term::app(logic::Op::Ite, vec![sel.clone(), val.to_term(), rest])
                    })
            };
            bindings.push((facts.name(*v).clone(), term));
        }
        let mut body: Vec<Term> = x.to_vec();
        body.extend(members.iter().map(|m| facts.formula(*m).clone()));
        let body = and(body);
        let query = if bindings.is_empty() {
            body
        } else {
            Term::Let(bindings, Box::new(body))
        };
        self.scratch.push()?;
        let r: Result<Option<Model>, SolverError> = (|| {
            for v in &free {
                let var = &facts.spec.variables[*v];
                self.scratch.declare_const(&var.name, var.sort.clone())?;
            }
            for sel in &selectors {
                if let Term::Var(n, _) = sel {
                    self.scratch.declare_const(n, Sort::Bool)?;
                }
            }
            self.scratch.assert(&query)?;
            self.queries += 1;
            match self.scratch.check()? {
                Outcome::Sat(m) => Ok(Some(m)),
                _ => Ok(None),
            }
        })();
        self.scratch.pop()?;
        let Some(m) = r? else {
            return Ok(None);
        };
        let delta: Vec<(usize, Value)> = free
            .iter()
            .filter_map(|v| m.get(facts.name(*v)).map(|val| (*v, val.clone())))
            .collect();
        // The base the solver picked is one where the new values confirm; asking the
        // evaluator is cheaper than asking the solver for the selectors.
        for b in cands {
            let o = Overlay {
                base: &self.bases[*b],
                delta: delta.clone(),
            };
            if self.confirm(&o, x, &members) {
                return Ok(Some(o.model(facts, &xv)));
            }
        }
        Ok(None)
    }

    /// True when every term of `x` and every member in `check` holds in `o`.
    fn confirm(&self, o: &Overlay, x: &[Term], check: &[MemberRef]) -> bool {
        let facts = self.facts;
        x.iter().all(|t| {
            let vs = facts.vars_of(std::slice::from_ref(t));
            o.holds(facts, t, &vs)
        }) && check
            .iter()
            .all(|m| o.holds(facts, facts.formula(*m), facts.vars(*m)))
    }

    /// The relaxed local query: `x` with the members that mention its non-hub variables
    /// and the domain constraints on theirs, nothing fixed. Unsat is conclusive; a model
    /// is grafted onto a base with the same hub values and confirmed.
    fn relaxed_query(&mut self, x: &[Term], exclude: Option<usize>) -> Result<Local, SolverError> {
        let facts = self.facts;
        let xv = facts.vars_of(x);
        let own: Vec<usize> = xv.iter().copied().filter(|v| !facts.hub[*v]).collect();
        let mut members = facts.members_of(&own, exclude.map(MemberRef::Req));
        // A model that breaks members outside the query brings them in, a few times.
        for _ in 0..3 {
            match self.relaxed_round(x, exclude, &members)? {
                Ok(local) => return Ok(local),
                Err(broken) if !broken.is_empty() => {
                    members.extend(broken);
                    members.sort_unstable();
                    members.dedup();
                }
                Err(_) => break,
            }
        }
        Ok(Local::Open)
    }

    /// One relaxed query over `members` (and the domain constraints on their
    /// variables). `Err` with the members a grafted model breaks (empty: give up).
    fn relaxed_round(
        &mut self,
        x: &[Term],
        exclude: Option<usize>,
        members: &[MemberRef],
    ) -> Result<Result<Local, Vec<MemberRef>>, SolverError> {
        let facts = self.facts;
        let xv = facts.vars_of(x);
        let mut members = members.to_vec();
        let mut vars: Vec<usize> = members
            .iter()
            .flat_map(|m| facts.vars(*m).iter().copied())
            .chain(xv.iter().copied())
            .collect();
        vars.sort_unstable();
        vars.dedup();
        // Bounds and other domain constraints on the variables involved.
        for &v in &vars {
            members.extend(facts.var_domain[v].iter().map(|d| MemberRef::Dom(*d)));
        }
        members.sort_unstable();
        members.dedup();
        if members.len() > LOCAL_LIMIT {
            return Ok(Err(Vec::new()));
        }
        let mut vars: Vec<usize> = members
            .iter()
            .flat_map(|m| facts.vars(*m).iter().copied())
            .chain(xv.iter().copied())
            .collect();
        vars.sort_unstable();
        vars.dedup();
        self.scratch.push()?;
        let r = self.relaxed_in_scope(x, exclude, &members, &vars);
        self.scratch.pop()?;
        r
    }

    fn relaxed_in_scope(
        &mut self,
        x: &[Term],
        exclude: Option<usize>,
        members: &[MemberRef],
        vars: &[usize],
    ) -> Result<Result<Local, Vec<MemberRef>>, SolverError> {
        let facts = self.facts;
        for v in vars {
            let var = &facts.spec.variables[*v];
            self.scratch.declare_const(&var.name, var.sort.clone())?;
        }
        for t in x {
            self.scratch.assert(t)?;
        }
        // Most of these are satisfiable: asked first without literals, in one assertion.
        self.scratch.push()?;
        let plain: Result<Outcome, SolverError> = (|| {
            self.scratch.assert(&and(members
                .iter()
                .map(|m| facts.formula(*m).clone())
                .collect()))?;
            self.queries += 1;
            self.scratch.check()
        })();
        self.scratch.pop()?;
        let answer = match plain? {
            Outcome::Unsat(_) => {
                let lits = guard_members(self.scratch, facts, members)?;
                self.queries += 1;
                (self.scratch.check_assuming(&lits)?, lits)
            }
            other => (other, Vec::new()),
        };
        let (answer, lits) = answer;
        match answer {
            Outcome::Unsat(core) => {
                let min = minimize_in(self.scratch, core, &mut self.queries)?;
                Ok(Ok(Local::Unsat(
                    members
                        .iter()
                        .zip(&lits)
                        .filter(|(_, l)| min.contains(l))
                        .map(|(m, _)| *m)
                        .collect(),
                )))
            }
            Outcome::Unknown(_) => Ok(Err(Vec::new())),
            Outcome::Sat(m) => {
                // Graft onto a base that agrees on every hub variable involved.
                let mut broken: Option<Vec<MemberRef>> = None;
                for base in self.bases {
                    let agrees = vars.iter().filter(|v| facts.hub[**v]).all(|v| {
                        base.values[*v].is_some()
                            && base.values[*v].as_ref() == m.get(facts.name(*v))
                    });
                    if !agrees {
                        continue;
                    }
                    let delta: Vec<(usize, Value)> = vars
                        .iter()
                        .filter_map(|v| {
                            let val = m.get(facts.name(*v))?;
                            (base.values[*v].as_ref() != Some(val)).then(|| (*v, val.clone()))
                        })
                        .collect();
                    let changed: Vec<usize> = delta.iter().map(|(v, _)| *v).collect();
                    let check = facts.members_of(&changed, exclude.map(MemberRef::Req));
                    if check.len() > 4 * members.len() + 64 {
                        continue;
                    }
                    let o = Overlay { base, delta };
                    if self.confirm(&o, x, &check) {
                        return Ok(Ok(Local::State(o.model(facts, vars))));
                    }
                    if broken.is_none() {
                        broken = Some(
                            check
                                .iter()
                                .copied()
                                .filter(|m| !o.holds(facts, facts.formula(*m), facts.vars(*m)))
                                .collect(),
                        );
                    }
                }
                Ok(Err(broken.unwrap_or_default()))
            }
        }
    }

    /// The check over the whole component, as the plain path asks it.
    fn whole(&mut self, x: &[Term], exclude: Option<usize>) -> Result<Found, SolverError> {
        let mut cell = self.big.borrow_mut();
        if cell.as_ref().is_none_or(|(p, _, _)| *p != self.part) {
            let mut config = self.config.clone();
            config.transcript = config.transcript.map(|p| {
                let stem = p.file_stem().map(|s| s.to_string_lossy().into_owned());
                p.with_file_name(format!(
                    "{}.whole-{}.smt2",
                    stem.unwrap_or_default(),
                    std::process::id()
                ))
            });
            *cell = None;
            let mut solver = Solver::start(&config)?;
            let lits = load_part(&mut solver, self.facts.spec, Some(&self.parts[self.part]))?;
            *cell = Some((self.part, solver, lits));
        }
        let (_, solver, lits) = cell.as_mut().expect("loaded");
        let mut s = Session::new(solver, std::mem::take(lits));
        let mut assume = s.lits.domain.clone();
        assume.extend(s.lits.reqs_except(exclude));
        let r = (|| {
            Ok(match s.check(&assume, x)? {
                Answer::Sat(m) => Found::State(m),
                Answer::Unknown(r) => Found::Unknown(r),
                Answer::Unsat(core) => {
                    let min = s.minimize(&[], core, x)?;
                    Found::Unsat(
                        min.iter()
                            .filter_map(|l| match l {
                                Term::Var(n, _) => s.lits.members.get(n).map(|m| match m {
                                    Member::Domain(i) => MemberRef::Dom(*i),
                                    Member::Req(i) => MemberRef::Req(*i),
                                }),
                                _ => None,
                            })
                            .collect(),
                    )
                }
            })
        })();
        self.queries += s.queries;
        *lits = s.lits;
        r
    }

    /// Is there a state of the domain constraints where `x` holds? Asked on the
    /// components of the domain constraints that `x` touches.
    fn domain_state(&mut self, x: &[Term]) -> Result<Found, SolverError> {
        let facts = self.facts;
        let xv = facts.vars_of(x);
        let mut comps: Vec<usize> = xv.iter().map(|v| facts.var_dcomp[*v]).collect();
        comps.sort_unstable();
        comps.dedup();
        let members: Vec<MemberRef> = {
            let mut d: Vec<usize> = comps
                .iter()
                .flat_map(|c| facts.dcomps[*c].iter().copied())
                .collect();
            d.sort_unstable();
            d.into_iter().map(MemberRef::Dom).collect()
        };
        let mut vars: Vec<usize> = members
            .iter()
            .flat_map(|m| facts.vars(*m).iter().copied())
            .chain(xv.iter().copied())
            .collect();
        vars.sort_unstable();
        vars.dedup();
        self.scratch.push()?;
        let r = (|| {
            for v in &vars {
                let var = &facts.spec.variables[*v];
                self.scratch.declare_const(&var.name, var.sort.clone())?;
            }
            let lits = guard_members(self.scratch, facts, &members)?;
            for t in x {
                self.scratch.assert(t)?;
            }
            self.queries += 1;
            Ok(match self.scratch.check_assuming(&lits)? {
                Outcome::Sat(m) => {
                    // Confirmed by the evaluator, as every witness is.
                    let empty = Base {
                        values: vec![None; facts.spec.variables.len()],
                    };
                    let o = Overlay {
                        base: &empty,
                        delta: vars
                            .iter()
                            .filter_map(|v| m.get(facts.name(*v)).map(|val| (*v, val.clone())))
                            .collect(),
                    };
                    if self.confirm(&o, x, &members) {
                        Found::State(o.model(facts, &vars))
                    } else {
                        Found::Unknown("the solver's state does not satisfy the check".into())
                    }
                }
                Outcome::Unsat(core) => {
                    let min = minimize_in(self.scratch, core, &mut self.queries)?;
                    Found::Unsat(
                        members
                            .iter()
                            .zip(&lits)
                            .filter(|(_, l)| min.contains(l))
                            .map(|(m, _)| *m)
                            .collect(),
                    )
                }
                Outcome::Unknown(r) => Found::Unknown(r.to_string()),
            })
        })();
        self.scratch.pop()?;
        r
    }
}

/// Declares a literal per member (with the names [`load_part`] uses) and asserts each
/// member under its literal; returns the literals in the members' order.
fn guard_members(
    solver: &mut Solver,
    facts: &Facts,
    members: &[MemberRef],
) -> Result<Vec<Term>, SolverError> {
    let mut lits = Vec::with_capacity(members.len());
    let mut guarded = Vec::with_capacity(members.len());
    for m in members {
        let name = match m {
            MemberRef::Dom(i) => format!("vera!d{i}"),
            MemberRef::Req(i) => format!("vera!r{i}"),
        };
        solver.declare_const(&name, Sort::Bool)?;
        let lit = Term::var(&name, Sort::Bool);
        guarded.push(Term::app(
            logic::Op::Implies,
            vec![lit.clone(), facts.formula(*m).clone()],
        ));
        lits.push(lit);
    }
    if !guarded.is_empty() {
        solver.assert(&and(guarded))?;
    }
    Ok(lits)
}

/// Deletion-based minimization of a core of assumption literals (see
/// [`Session::minimize`]), on whatever the solver has asserted.
fn minimize_in(
    solver: &mut Solver,
    core: Vec<Term>,
    queries: &mut usize,
) -> Result<Vec<Term>, SolverError> {
    let mut core = core;
    let mut i = 0;
    while i < core.len() {
        let mut candidate = core.clone();
        candidate.remove(i);
        *queries += 1;
        match solver.check_assuming(&candidate)? {
            Outcome::Unsat(c) => {
                core = candidate.into_iter().filter(|l| c.contains(l)).collect();
            }
            Outcome::Sat(_) | Outcome::Unknown(_) => i += 1,
        }
    }
    Ok(core)
}

/// The bases: the consistency check's model, then a model of M for each combination of
/// hub conditions that triggers ask for (most asked first, at most [`MAX_BASES`]).
fn make_bases(s: &mut Session, facts: &Facts, first: &Model) -> Result<Vec<Base>, SolverError> {
    let mut bases = vec![Base::from_model(facts, first)];
    let mut wanted: HashMap<Vec<String>, (usize, Vec<Term>)> = HashMap::new();
    for r in &facts.spec.requirements {
        let Some(violation) = r.violation() else {
            continue;
        };
        let trigger = r.trigger();
        for x in [vec![trigger.clone()], vec![trigger.clone(), violation]] {
            let conj = facts.hub_conjuncts(&x);
            if conj.is_empty() {
                continue;
            }
            let mut key: Vec<String> = conj.iter().map(logic::print::term).collect();
            key.sort();
            key.dedup();
            wanted.entry(key).or_insert_with(|| (0, conj)).0 += 1;
        }
    }
    let mut wanted: Vec<_> = wanted.into_iter().collect();
    wanted.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then_with(|| a.0.cmp(&b.0)));
    let mut all = s.lits.domain.clone();
    all.extend(s.lits.reqs_except(None));
    for (_, (_, conj)) in wanted.into_iter().take(MAX_BASES) {
        let with_vars: Vec<(Term, Vec<usize>)> = conj
            .iter()
            .map(|t| (t.clone(), facts.vars_of(std::slice::from_ref(t))))
            .collect();
        let covered = bases.iter().any(|b| {
            let o = Overlay {
                base: b,
                delta: Vec::new(),
            };
            with_vars.iter().all(|(t, vs)| o.holds(facts, t, vs))
        });
        if covered {
            continue;
        }
        if let Answer::Sat(m) = s.check(&all, &conj)? {
            bases.push(Base::from_model(facts, &m));
        }
    }
    Ok(bases)
}

/// [`audit_one`] on the fast paths: the same four checks, the same verdicts.
fn audit_one_fast(
    f: &mut Fast,
    i: usize,
    global: &Global,
) -> Result<RequirementAudit, SolverError> {
    let spec = f.facts.spec;
    let consistent = matches!(global, Global::Consistent);
    let req = &spec.requirements[i];
    let trigger = req.trigger();
    let violation = req.violation().expect("formalized");
    let formula = req.formula.as_ref().expect("formalized");
    let breaking = [trigger.clone(), violation.clone()];

    // Redundancy first: a state of the rest of M that breaks this requirement also
    // shows the trigger reachable and the requirement violatable under the domain.
    let rest_breaks = if consistent {
        Some(f.exists(&breaking, Some(i))?)
    } else {
        None
    };
    let broken_state = match &rest_breaks {
        Some(Found::State(m)) => Some(m.clone()),
        _ => None,
    };

    let (vacuity_domain, vacuity_model) = if req.is_conditional() {
        let vd = if broken_state.is_some() {
            Vacuity::Reachable
        } else {
            match f.domain_state(std::slice::from_ref(&trigger))? {
                Found::State(_) => Vacuity::Reachable,
                Found::Unsat(core) => Vacuity::Vacuous {
                    because: f.facts.ids(&core),
                    response_conflict: false,
                },
                Found::Unknown(reason) => Vacuity::Unknown { reason },
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
            match f.exists(std::slice::from_ref(&trigger), None)? {
                Found::State(_) => Vacuity::Reachable,
                Found::Unsat(core) => {
                    // As on the plain path: the others alone, when they rule it out.
                    let core = match &rest_breaks {
                        Some(Found::State(_)) => core,
                        _ => match f.exists(std::slice::from_ref(&trigger), Some(i))? {
                            Found::Unsat(others) => others,
                            _ => core,
                        },
                    };
                    let own = core.contains(&MemberRef::Req(i));
                    let because = f
                        .facts
                        .ids(&core)
                        .into_iter()
                        .filter(|id| *id != req.id)
                        .collect();
                    Vacuity::Vacuous {
                        because,
                        response_conflict: own,
                    }
                }
                Found::Unknown(reason) => Vacuity::Unknown { reason },
            }
        };
        (vd, vm)
    } else {
        (Vacuity::NotApplicable, Vacuity::NotApplicable)
    };

    let violatability = match &broken_state {
        Some(m) => Violatability::Violatable {
            witness: f.facts.witness(m, formula),
        },
        None => match f.domain_state(&breaking)? {
            Found::State(m) => Violatability::Violatable {
                witness: f.facts.witness(&m, formula),
            },
            Found::Unsat(core) => Violatability::ImpliedByDomain {
                because: f.facts.ids(&core),
            },
            Found::Unknown(reason) => Violatability::Unknown { reason },
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
        Some(Found::State(m)) => Redundancy::NotRedundant {
            witness: f.facts.witness(&m, formula),
        },
        Some(Found::Unsat(core)) => Redundancy::Redundant {
            subsumed_by: f.facts.ids(&core),
        },
        Some(Found::Unknown(reason)) => Redundancy::Unknown { reason },
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
