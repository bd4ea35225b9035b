//! The four audits of VeriMed section 2.1, over M = C ∧ all requirements.
//!
//! Every domain constraint and requirement is asserted once, guarded by an assumption
//! literal (`vera!d<i> => C_i`, `vera!r<i> => rho_i`). Each check selects its members
//! with `check-sat-assuming` and adds the trigger or violation inside a `push`/`pop`, so
//! one solver process answers every check incrementally; a pool of such processes
//! splits the per-requirement checks. Cores are minimized by deletion.

use crate::spec::{Requirement, Shape, Spec, Variable};
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
    /// Reuse the results of an earlier audit of the same spec kept in this folder, and
    /// keep this audit's results there (with the fast paths only). `None`: no cache.
    pub cache_dir: Option<std::path::PathBuf>,
    /// Check every requirement for variables it fixes in every state
    /// ([`crate::forcing`]).
    pub fixes: bool,
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
            cache_dir: None,
            fixes: true,
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
        #[serde(flatten)]
        reason: solver::Undecided,
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
        /// Every minimal conflict with at most this many members is listed (conflicts are
        /// enumerated smallest first); `None` when nothing is known of the ones not
        /// listed (a single conflict was asked for).
        #[serde(skip_serializing_if = "Option::is_none")]
        listed_up_to: Option<usize>,
    },
    /// The solver answered unknown (or failed) during the enumeration; there may be
    /// conflicts not listed.
    Unknown {
        /// The solver's reason.
        #[serde(flatten)]
        reason: solver::Undecided,
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
        #[serde(flatten)]
        reason: solver::Undecided,
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
        #[serde(flatten)]
        reason: solver::Undecided,
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
        #[serde(flatten)]
        reason: solver::Undecided,
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
    /// Variables the formula, with the domain constraints, fixes in every state (see
    /// [`crate::forcing`]); a finding when [`crate::forcing::FixKind::is_finding`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fixes: Vec<crate::forcing::Forced>,
    /// The check for fixed variables met an `unknown` answer.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub fixes_unknown: bool,
}

impl RequirementAudit {
    /// The audit of `req` with these answers, and no fixed variables (they are found
    /// later, see [`crate::forcing`]).
    fn new(
        req: &Requirement,
        vacuity_domain: Vacuity,
        vacuity_model: Vacuity,
        violatability: Violatability,
        redundancy: Redundancy,
    ) -> RequirementAudit {
        RequirementAudit {
            id: req.id.clone(),
            line: req.line,
            kind: kind(req),
            vacuity_domain,
            vacuity_model,
            violatability,
            redundancy,
            fixes: Vec::new(),
            fixes_unknown: false,
        }
    }

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
        ) || self.fixes.iter().any(|f| f.kind.is_finding())
            || self.fixes_unknown
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
    /// Vacuity and redundancy findings whose likely cause is a variable another
    /// requirement fixes (see [`crate::forcing::causes`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub causes: Vec<crate::forcing::Cause>,
    /// Number of solver queries issued.
    pub queries: usize,
    /// Checks answered: the consistency check, each requirement's checks that were not
    /// skipped, and the groups of the realizability audit.
    pub checks: usize,
    /// How many of them were taken from the cache of an earlier audit.
    pub reused: usize,
    /// Why the cache could not be written, if it could not.
    pub cache_error: Option<String>,
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
        let (reqs, dom) = self.member_indices(lits);
        ids_in_order(spec, reqs, dom)
    }

    /// The ids of the members behind literals, each once: requirements in spec order,
    /// then domain constraints.
    pub fn distinct_ids(&self, spec: &Spec, lits: &[Term]) -> Vec<String> {
        let (mut reqs, mut dom) = self.member_indices(lits);
        for v in [&mut reqs, &mut dom] {
            v.sort_unstable();
            v.dedup();
        }
        ids_in_order(spec, reqs, dom)
    }

    /// The requirements and the domain constraints behind literals (indices into the
    /// spec), in the order of the literals.
    fn member_indices(&self, lits: &[Term]) -> (Vec<usize>, Vec<usize>) {
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
        (reqs, dom)
    }
}

/// Ids for people: the requirements `reqs` first, in spec order, then the domain
/// constraints `dom` (indices into the spec).
fn ids_in_order(spec: &Spec, mut reqs: Vec<usize>, mut dom: Vec<usize>) -> Vec<String> {
    reqs.sort_unstable();
    dom.sort_unstable();
    reqs.iter()
        .map(|i| spec.requirements[*i].id.clone())
        .chain(dom.iter().map(|i| spec.domain[*i].id.clone()))
        .collect()
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
        unite(&mut parent, vs);
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

/// Union-find over indices `0..p.len()` (`p[i]` is `i`'s parent): the root of `x`'s
/// set, halving the path on the way.
pub(crate) fn find(p: &mut [usize], mut x: usize) -> usize {
    while p[x] != x {
        p[x] = p[p[x]];
        x = p[x];
    }
    x
}

/// Union-find (see [`find`]): puts every index of `xs` in one set.
pub(crate) fn unite(p: &mut [usize], xs: &[usize]) {
    for w in xs.windows(2) {
        let (a, b) = (find(p, w[0]), find(p, w[1]));
        p[a] = b;
    }
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
    pub minimize_unknown: Option<solver::Undecided>,
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
    pub fn check(&mut self, assumptions: &[Term], extra: &[Term]) -> Result<Outcome, SolverError> {
        self.queries += 1;
        if let Some((config, spec)) = &self.fresh {
            let mut solver = Solver::start(config)?;
            load_into(&mut solver, spec)?;
            for t in extra {
                solver.assert(t)?;
            }
            return solver.check_assuming(assumptions);
        }
        check_with(self.solver, assumptions, extra)
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
                Outcome::Unsat(c) => {
                    // Keep only what the new core still needs (it is a subset of the candidate).
                    core = candidate.into_iter().filter(|l| c.contains(l)).collect();
                }
                Outcome::Sat(_) => i += 1,
                Outcome::Unknown(r) => {
                    self.minimize_unknown.get_or_insert(r.clone().into());
                    i += 1;
                }
            }
        }
        Ok(core)
    }
}

/// Checks `assumptions` on `solver` with `extra` asserted for this query only (in a
/// scope of its own, popped again when `extra` is not empty).
pub fn check_with(
    solver: &mut Solver,
    assumptions: &[Term],
    extra: &[Term],
) -> Result<Outcome, SolverError> {
    if !extra.is_empty() {
        solver.push()?;
        for t in extra {
            if let Err(e) = solver.assert(t) {
                solver.pop()?;
                return Err(e);
            }
        }
    }
    let r = solver.check_assuming(assumptions);
    if !extra.is_empty() {
        solver.pop()?;
    }
    r
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
        .filter_map(|v| assignment(v, model))
        .collect()
}

/// The value of schema variable `v` in `model`, with its unit, when the model has one.
fn assignment(v: &Variable, model: &Model) -> Option<Assignment> {
    model.get(&v.name).map(|val| Assignment {
        variable: v.name.to_string(),
        value: val.to_string(),
        unit: v.unit.clone(),
    })
}

/// Runs the four audits.
pub fn audit(spec: &Spec, options: &AuditOptions) -> Result<AuditReport, AuditError> {
    let not_formalized: Vec<String> = spec
        .requirements
        .iter()
        .filter(|r| r.formula.is_none())
        .map(|r| r.id.clone())
        .collect();
    let fresh = options
        .fresh_process_per_query
        .then(|| (options.solver.clone(), spec));
    let fast = options.fast_paths && !options.fresh_process_per_query;
    let facts = fast.then(|| Facts::new(spec));
    let (cache_file, hashes, mut prior) = open_cache(spec, options, facts.as_ref());
    let (mut bases, now_of_prior) = still_bases(&mut prior, facts.as_ref());
    let mut main: Option<Main> = None;
    let (consistency, from_bases) = match check_consistency(
        spec,
        options,
        fresh.clone(),
        facts.as_ref(),
        &mut bases,
        &mut main,
    )? {
        Ok(found) => found,
        Err(early) => {
            return Ok(AuditReport {
                not_formalized,
                ..early
            })
        }
    };
    let mut checks = 1;
    let mut reused = usize::from(from_bases);
    let global = Global::of(&consistency);

    // The per-requirement checks: first whatever the cache still proves, then the rest.
    let formalized: Vec<usize> = (0..spec.requirements.len())
        .filter(|i| spec.requirements[*i].formula.is_some())
        .collect();
    let parts = components(spec);
    let (part_of, part_size) = part_index(spec, &parts);
    let (mut done, reuses, todo) = match &facts {
        Some(f) => {
            let sizes: Vec<usize> = formalized.iter().map(|&i| part_size[part_of[i]]).collect();
            let cache = CacheRead {
                hashes: hashes.as_ref(),
                prior: &prior,
                now_of_prior: &now_of_prior,
            };
            let settled = settle_from_cache(f, &cache, &global, &formalized, &sizes)?;
            if matches!(global, Global::Consistent) {
                add_bases(spec, options, f, &mut bases, &settled.2, &mut main)?;
            }
            settled
        }
        None => (HashMap::new(), HashMap::new(), formalized.clone()),
    };
    let mut queries = main.as_ref().map_or(0, |m| m.queries);
    drop(main);

    let items = chunk_items(&todo, &part_of, parts.len(), options.jobs, fast);
    let pool = Pool::new(options.solver.clone(), options.jobs);
    let counted = std::sync::atomic::AtomicUsize::new(0);
    // The realizability audit runs alongside the per-requirement checks: both are
    // bound by exchanges with solver processes more than by computation.
    let realize_wanted = options.realizability && matches!(consistency, Consistency::Consistent);
    let (results, realized) = std::thread::scope(|sc| {
        let realizing =
            realize_wanted.then(|| sc.spawn(|| realize_cached(spec, options, &prior.groups)));
        let results: Vec<Result<Vec<(usize, Done)>, SolverError>> = if let Some(facts) = &facts {
            let run = FastChunks {
                facts,
                bases: &bases,
                parts: &parts,
                config: &options.solver,
                hashes: hashes.as_ref(),
                reuses: &reuses,
                global: &global,
                counted: &counted,
            };
            pool.map_with(
                &items,
                |solver| declare_sorts(solver, spec),
                |solver, big, (k, chunk)| run.audit_chunk(solver, big, *k, chunk),
            )
        } else {
            pool.map(&items, |solver, (k, chunk)| {
                let part = &parts[*k];
                audit_chunk_plain(solver, spec, part, fresh.clone(), &global, chunk, &counted)
            })
        };
        let realized = realizing.map(|h| match h.join() {
            Ok(r) => r,
            Err(panic) => std::panic::resume_unwind(panic),
        });
        (results, realized)
    });
    queries += counted.into_inner();
    merge_chunks(spec, &items, results, &mut done);
    let mut requirements = Vec::with_capacity(formalized.len());
    let mut records: Vec<(usize, Record)> = Vec::with_capacity(formalized.len());
    for i in 0..spec.requirements.len() {
        if let Some(d) = done.remove(&i) {
            checks += d.checks;
            reused += d.reused;
            requirements.push(d.audit);
            records.push((i, d.record));
        }
    }
    let (realizability, groups_learned) =
        match realizability_verdict(options, &consistency, realized) {
            Ok((r, learned, groups, from_cache)) => {
                checks += groups;
                reused += from_cache;
                (r, learned)
            }
            Err(r) => (r, Vec::new()),
        };
    let cache_error = match (&facts, &hashes, &cache_file) {
        (Some(f), Some(h), Some(path)) => {
            let keep = ToKeep {
                facts: f,
                hashes: h,
                options,
                bases: &bases,
                prior: &prior,
                records: &records,
                groups: &groups_learned,
            };
            write_cache(path, &keep).err()
        }
        _ => None,
    };
    let mut report = AuditReport {
        consistency,
        requirements,
        not_formalized,
        realizability,
        causes: Vec::new(),
        queries,
        checks,
        reused,
        cache_error,
    };
    if options.fixes {
        add_fixes(spec, options, &mut report);
    }
    Ok(report)
}

/// The bases of an earlier audit that still satisfy every member (so are models of M),
/// and for each prior base its index among them.
fn still_bases(prior: &mut Prior, facts: Option<&Facts>) -> (Vec<Base>, Vec<Option<usize>>) {
    let mut bases: Vec<Base> = Vec::new();
    let mut now_of_prior: Vec<Option<usize>> = vec![None; prior.bases.len()];
    if let Some(f) = facts {
        prior.validate(f);
        for (k, b) in prior.bases.iter().enumerate() {
            if prior.violated[k].is_empty() {
                now_of_prior[k] = Some(bases.len());
                bases.push(b.clone());
            }
        }
    }
    (bases, now_of_prior)
}

/// The cache file of the spec, the content hashes it is keyed by, and what an earlier
/// audit left in it (all only on the fast paths, and the first two only with a cache
/// directory).
fn open_cache(
    spec: &Spec,
    options: &AuditOptions,
    facts: Option<&Facts>,
) -> (Option<std::path::PathBuf>, Option<Hashes>, Prior) {
    let cache_file = match (facts, &options.cache_dir) {
        (Some(_), Some(dir)) => Some(cache_path(dir, spec, options)),
        _ => None,
    };
    let hashes = match (facts, &cache_file) {
        (Some(f), Some(_)) => Some(Hashes::new(f)),
        _ => None,
    };
    let prior = match (facts, &hashes, &cache_file) {
        (Some(f), Some(h), Some(path)) => Prior::read(path, f, h, options),
        _ => Prior::default(),
    };
    (cache_file, hashes, prior)
}

/// The consistency of M: consistent without a check when `bases` (models of M from an
/// earlier audit) is not empty (then `true`), else the global check on the main solver
/// (started here), whose model becomes the first base on the fast paths. `Err` is the
/// report of an audit that ends early (an unsatisfiable or unknown domain).
#[allow(clippy::type_complexity)]
fn check_consistency(
    spec: &Spec,
    options: &AuditOptions,
    fresh: Option<(SolverConfig, &Spec)>,
    facts: Option<&Facts>,
    bases: &mut Vec<Base>,
    main: &mut Option<Main>,
) -> Result<Result<(Consistency, bool), AuditReport>, AuditError> {
    if !bases.is_empty() {
        return Ok(Ok((Consistency::Consistent, true)));
    }
    let m = main.insert(Main::start(spec, options)?);
    let (consistency, first_model) = match m.global(spec, options, fresh)? {
        Ok(found) => found,
        Err(early) => {
            return Ok(Err(AuditReport {
                causes: Vec::new(),
                queries: m.queries,
                ..early
            }))
        }
    };
    if let (Some(f), Some(model)) = (facts, first_model) {
        bases.push(Base::from_model(f, &model));
    }
    Ok(Ok((consistency, false)))
}

/// For each requirement, the index of its component in `parts`; and for each component,
/// its size (domain members and requirements).
fn part_index(spec: &Spec, parts: &[Component]) -> (Vec<usize>, Vec<usize>) {
    let mut part_of = vec![0; spec.requirements.len()];
    for (k, c) in parts.iter().enumerate() {
        for &i in &c.requirements {
            part_of[i] = k;
        }
    }
    let part_size: Vec<usize> = parts
        .iter()
        .map(|c| c.domain.len() + c.requirements.len())
        .collect();
    (part_of, part_size)
}

/// What an audit reads of the cache: its hashes (when there is a cache file), the
/// earlier audit, and where each prior base is among the bases still valid.
struct CacheRead<'a> {
    hashes: Option<&'a Hashes>,
    prior: &'a Prior,
    now_of_prior: &'a [Option<usize>],
}

/// The requirements (indexes in `formalized`, each with its component's size in
/// `sizes`) whose audit the cache settles without a solver; the others are left to do,
/// each with what the cache still proves of it.
#[allow(clippy::type_complexity)]
fn settle_from_cache(
    f: &Facts,
    cache: &CacheRead,
    global: &Global,
    formalized: &[usize],
    sizes: &[usize],
) -> Result<(HashMap<usize, Done>, HashMap<usize, Reuse>, Vec<usize>), SolverError> {
    let mut done: HashMap<usize, Done> = HashMap::new();
    let mut reuses: HashMap<usize, Reuse> = HashMap::new();
    let mut todo: Vec<usize> = Vec::new();
    for (&i, &size) in formalized.iter().zip(sizes) {
        let reuse = match cache.hashes {
            Some(h) => cache.prior.reuse(f, h, i, cache.now_of_prior, size),
            None => Reuse::default(),
        };
        match audit_one_fast(None, f, cache.hashes, i, global, &reuse)? {
            Some(d) => {
                done.insert(i, d);
            }
            None => {
                todo.push(i);
                reuses.insert(i, reuse);
            }
        }
    }
    Ok((done, reuses, todo))
}

/// The requirements of `todo` cut into chunks of one component each (with the index of
/// the component), so that one large component still uses every worker. On the plain
/// path each chunk reloads its component into a solver, so chunks are as large as keeps
/// every worker busy: about four per worker, and at least 32 requirements. The fast
/// paths load nothing per chunk and take smaller ones.
fn chunk_items(
    todo: &[usize],
    part_of: &[usize],
    parts: usize,
    jobs: usize,
    fast: bool,
) -> Vec<(usize, Vec<usize>)> {
    let jobs = solver::job_count(jobs);
    let chunk_size = if fast {
        (todo.len() / (jobs * 16)).max(4)
    } else {
        (todo.len() / (jobs * 4)).max(32)
    };
    let mut by_part: Vec<Vec<usize>> = vec![Vec::new(); parts];
    for &i in todo {
        by_part[part_of[i]].push(i);
    }
    let mut items: Vec<(usize, Vec<usize>)> = Vec::new();
    for (k, list) in by_part.iter().enumerate() {
        for chunk in list.chunks(chunk_size) {
            items.push((k, chunk.to_vec()));
        }
    }
    items
}

/// A worker's solver loaded with one component (its index, the solver and its
/// literals), started when a check first needs it.
type BigSolver = std::cell::RefCell<Option<(usize, Solver, Loaded)>>;

/// Sets the logic of the spec and declares its enumerations on a worker's solver.
fn declare_sorts(solver: &mut Solver, spec: &Spec) -> Result<BigSolver, SolverError> {
    solver.command(&logic::Command::SetLogic(spec.logic.clone()))?;
    for (name, values) in &spec.enums {
        solver.command(&logic::Command::DeclareEnum(name.clone(), values.clone()))?;
    }
    Ok(std::cell::RefCell::new(None))
}

/// What every worker on the fast paths shares: the facts and bases of the spec, its
/// components, the solver, the cache's hashes and reuses, the global verdict, and the
/// count of queries asked.
struct FastChunks<'a> {
    facts: &'a Facts<'a>,
    bases: &'a [Base],
    parts: &'a [Component],
    config: &'a SolverConfig,
    hashes: Option<&'a Hashes>,
    reuses: &'a HashMap<usize, Reuse>,
    global: &'a Global,
    counted: &'a std::sync::atomic::AtomicUsize,
}

impl FastChunks<'_> {
    /// Audits the requirements of `chunk` (of component `k`) on the fast paths, with
    /// `solver` as scratch and `big` as the worker's solver loaded with a component.
    fn audit_chunk(
        &self,
        solver: &mut Solver,
        big: &BigSolver,
        k: usize,
        chunk: &[usize],
    ) -> Result<Vec<(usize, Done)>, SolverError> {
        let mut f = Fast {
            facts: self.facts,
            bases: self.bases,
            scratch: solver,
            big,
            parts: self.parts,
            part: k,
            config: self.config,
            queries: 0,
        };
        let empty = Reuse::default();
        let mut out = Vec::with_capacity(chunk.len());
        let mut failed = None;
        for &i in chunk {
            let reuse = self.reuses.get(&i).unwrap_or(&empty);
            match audit_one_fast(Some(&mut f), self.facts, self.hashes, i, self.global, reuse) {
                Ok(Some(d)) => out.push((i, d)),
                Ok(None) => {}
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        self.counted
            .fetch_add(f.queries, std::sync::atomic::Ordering::Relaxed);
        match failed {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }
}

/// Audits the requirements of `chunk` on the plain path: `part` loaded into `solver`,
/// then one [`audit_one`] each; the queries asked are added to `counted`.
fn audit_chunk_plain(
    solver: &mut Solver,
    spec: &Spec,
    part: &Component,
    fresh: Option<(SolverConfig, &Spec)>,
    global: &Global,
    chunk: &[usize],
    counted: &std::sync::atomic::AtomicUsize,
) -> Result<Vec<(usize, Done)>, SolverError> {
    let lits = load_part(solver, spec, Some(part))?;
    let mut s = Session {
        solver,
        lits,
        queries: 0,
        fresh,
        minimize_unknown: None,
    };
    let r: Result<Vec<(usize, Done)>, SolverError> = chunk
        .iter()
        .map(|&i| {
            audit_one(&mut s, spec, i, global).map(|a| {
                let n = answered(&a);
                (
                    i,
                    Done {
                        audit: a,
                        record: Record::default(),
                        checks: n,
                        reused: 0,
                    },
                )
            })
        })
        .collect();
    counted.fetch_add(s.queries, std::sync::atomic::Ordering::Relaxed);
    r
}

/// Adds bases (models of M) for the hub conditions that the requirements of `todo` ask
/// for and no base satisfies yet, on the main solver (started when it is not yet).
fn add_bases(
    spec: &Spec,
    options: &AuditOptions,
    f: &Facts,
    bases: &mut Vec<Base>,
    todo: &[usize],
    main: &mut Option<Main>,
) -> Result<(), SolverError> {
    if todo.is_empty() || !more_bases_needed(f, bases, todo) {
        return Ok(());
    }
    let m = match main {
        Some(m) => m,
        None => main.insert(Main::start(spec, options)?),
    };
    m.with(None, |s| more_bases(s, f, bases, todo))
}

/// Adds the audits of the chunks to `done`: a failed chunk's requirements with every
/// check unknown for the failure.
fn merge_chunks(
    spec: &Spec,
    items: &[(usize, Vec<usize>)],
    results: Vec<Result<Vec<(usize, Done)>, SolverError>>,
    done: &mut HashMap<usize, Done>,
) {
    for ((_, chunk), r) in items.iter().zip(results) {
        match r {
            Ok(list) => done.extend(list),
            Err(e) => {
                let reason = solver::Undecided::error(e);
                for &i in chunk {
                    done.insert(i, undecided_done(&spec.requirements[i], &reason));
                }
            }
        }
    }
}

/// The audit of a requirement whose chunk failed: every check unknown for `reason`.
fn undecided_done(req: &Requirement, reason: &solver::Undecided) -> Done {
    let unknown = RequirementAudit::new(
        req,
        Vacuity::Unknown {
            reason: reason.clone(),
        },
        Vacuity::Unknown {
            reason: reason.clone(),
        },
        Violatability::Unknown {
            reason: reason.clone(),
        },
        Redundancy::Unknown {
            reason: reason.clone(),
        },
    );
    Done {
        checks: answered(&unknown),
        audit: unknown,
        record: Record::default(),
        reused: 0,
    }
}

/// The realizability audit with the audit's solver and conflict limit, reusing the
/// groups an earlier audit found realizable.
fn realize_cached(
    spec: &Spec,
    options: &AuditOptions,
    known: &HashMap<u128, usize>,
) -> Result<crate::realize::Cached, SolverError> {
    let mut ro = crate::realize::RealizeOptions::new(options.solver.clone());
    ro.max_conflicts = ro.max_conflicts.max(options.max_conflicts);
    crate::realize::realizability_cached(spec, &ro, known)
}

/// The realizability verdict: `Ok` the answer of the realizability audit (with what it
/// learned and counted), `Err` a verdict without one (not asked for, failed, or not
/// run because M is not known consistent).
fn realizability_verdict(
    options: &AuditOptions,
    consistency: &Consistency,
    realized: Option<Result<crate::realize::Cached, SolverError>>,
) -> Result<crate::realize::Cached, crate::realize::Realizability> {
    match (consistency, realized) {
        _ if !options.realizability => Err(not_checked("not asked for")),
        (_, Some(Ok(cached))) => Ok(cached),
        (_, Some(Err(e))) => Err(crate::realize::Realizability::Unknown {
            reason: solver::Undecided::error(e),
        }),
        (Consistency::Unknown { reason }, None) => Err(crate::realize::Realizability::Unknown {
            reason: reason
                .clone()
                .map(|r| format!("the consistency of the requirements is unknown ({r})")),
        }),
        _ => Err(not_checked(
            "the requirements are inconsistent (no state satisfies them at all)",
        )),
    }
}

/// Checks every requirement for variables it fixes in every state, records them on the
/// requirement, and names them as the cause of the vacuity and redundancy findings they
/// explain. A solver failure marks every requirement's check undecided (never "fixes
/// nothing").
fn add_fixes(spec: &Spec, options: &AuditOptions, report: &mut AuditReport) {
    if matches!(report.consistency, Consistency::DomainInconsistent { .. }) {
        return;
    }
    let mut config = options.solver.clone();
    if let Some(t) = &config.transcript {
        // The audit's own sessions wrote the transcript; this one records beside it.
        let stem = t
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "transcript".into());
        config.transcript = Some(t.with_file_name(format!("{stem}.fixes.smt2")));
    }
    match crate::forcing::fixes(spec, &config) {
        Ok(found) => {
            for a in &mut report.requirements {
                a.fixes = found
                    .forced
                    .iter()
                    .filter(|f| f.requirement == a.id)
                    .cloned()
                    .collect();
                a.fixes_unknown = found.undecided.contains(&a.id);
            }
        }
        Err(_) => {
            for a in &mut report.requirements {
                a.fixes_unknown = true;
            }
        }
    }
    report.causes = crate::forcing::causes(spec, report);
}

/// The number of checks that gave an answer (not skipped, not applicable).
fn answered(a: &RequirementAudit) -> usize {
    let v = |x: &Vacuity| !matches!(x, Vacuity::NotApplicable | Vacuity::Skipped { .. });
    usize::from(v(&a.vacuity_domain))
        + usize::from(v(&a.vacuity_model))
        + 1
        + usize::from(!matches!(a.redundancy, Redundancy::Skipped { .. }))
}

/// The solver that holds the whole spec, for the global checks and for bases.
struct Main {
    solver: Solver,
    lits: Loaded,
    queries: usize,
}

impl Main {
    fn start(spec: &Spec, options: &AuditOptions) -> Result<Main, SolverError> {
        let mut solver = Solver::start(&options.solver)?;
        let lits = load_into(&mut solver, spec)?;
        Ok(Main {
            solver,
            lits,
            queries: 0,
        })
    }

    /// Runs `f` on a session over this solver.
    fn with<R>(
        &mut self,
        fresh: Option<(SolverConfig, &Spec)>,
        f: impl FnOnce(&mut Session) -> Result<R, SolverError>,
    ) -> Result<R, SolverError> {
        let mut s = Session {
            solver: &mut self.solver,
            lits: std::mem::take(&mut self.lits),
            queries: 0,
            fresh,
            minimize_unknown: None,
        };
        let r = f(&mut s);
        self.queries += s.queries;
        self.lits = s.lits;
        r
    }

    /// The global checks: the domain alone (an unsatisfiable or unknown domain ends
    /// the audit: `Err` with the report), then M, with a model when consistent.
    #[allow(clippy::type_complexity)]
    fn global(
        &mut self,
        spec: &Spec,
        options: &AuditOptions,
        fresh: Option<(SolverConfig, &Spec)>,
    ) -> Result<Result<(Consistency, Option<Model>), AuditReport>, SolverError> {
        self.with(fresh, |s| {
            let early = |consistency, realizability| AuditReport {
                causes: Vec::new(),
                consistency,
                requirements: Vec::new(),
                not_formalized: Vec::new(),
                realizability,
                queries: 0,
                checks: 1,
                reused: 0,
                cache_error: None,
            };
            // The domain alone first: if it is unsatisfiable, nothing else means anything.
            let dom = s.lits.domain.clone();
            match s.check(&dom, &[])? {
                Outcome::Unsat(core) => {
                    let min = s.minimize(&[], core, &[])?;
                    let conflict = s.lits.ids(spec, &min);
                    return Ok(Err(early(
                        Consistency::DomainInconsistent { conflict },
                        not_checked("the domain constraints are inconsistent"),
                    )));
                }
                Outcome::Unknown(reason) => {
                    return Ok(Err(early(
                        Consistency::Unknown {
                            reason: reason.clone().into(),
                        },
                        crate::realize::Realizability::Unknown {
                            reason: solver::Undecided::from(reason.clone())
                                .map(|r| format!("the domain's consistency is unknown ({r})")),
                        },
                    )))
                }
                Outcome::Sat(_) => {}
            }
            let mut all = dom.clone();
            all.extend(s.lits.reqs_except(None));
            Ok(Ok(match s.check(&all, &[])? {
                Outcome::Sat(m) => (Consistency::Consistent, Some(m)),
                Outcome::Unknown(reason) => (
                    Consistency::Unknown {
                        reason: reason.clone().into(),
                    },
                    None,
                ),
                Outcome::Unsat(core) => {
                    let (conflicts, incomplete) = conflicts(s, spec, core, options.max_conflicts)?;
                    (
                        Consistency::Inconsistent {
                            conflicts,
                            complete: incomplete.is_none(),
                            incomplete,
                        },
                        None,
                    )
                }
            }))
        })
    }
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
    Unknown(solver::Undecided),
}

impl Global {
    /// The verdict of the consistency check, as the per-requirement checks need it.
    fn of(consistency: &Consistency) -> Global {
        match consistency {
            Consistency::Consistent => Global::Consistent,
            Consistency::Unknown { reason } => Global::Unknown(reason.clone()),
            _ => Global::Inconsistent,
        }
    }

    /// Why a check that needs a consistent M was not run: `Ok` a skip reason, `Err` an
    /// unknown reason.
    fn not_run(&self) -> Option<Result<String, solver::Undecided>> {
        match self {
            Global::Consistent => None,
            Global::Inconsistent => Some(Ok("the requirements are inconsistent".into())),
            Global::Unknown(r) => Some(Err(r.clone().map(|r| {
                format!("not checked: the consistency of the requirements is unknown ({r})")
            }))),
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
        Some(Outcome::Sat(m)) => Some(m.clone()),
        _ => None,
    };

    let (vacuity_domain, vacuity_model) = if req.is_conditional() {
        let vd = if broken_state.is_some() {
            Vacuity::Reachable
        } else {
            match s.check(&dom, std::slice::from_ref(&trigger))? {
                Outcome::Sat(_) => Vacuity::Reachable,
                Outcome::Unsat(core) => {
                    let min = s.minimize(&[], core, std::slice::from_ref(&trigger))?;
                    Vacuity::Vacuous {
                        because: s.lits.ids(spec, &min),
                        response_conflict: false,
                    }
                }
                Outcome::Unknown(reason) => Vacuity::Unknown {
                    reason: reason.clone().into(),
                },
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
                Outcome::Sat(_) => Vacuity::Reachable,
                Outcome::Unsat(core) => {
                    // When the others alone rule the trigger out, that is the reason
                    // given (not a conflict with this requirement's own response),
                    // whichever core the solver happened to return.
                    let core = match &rest_breaks {
                        Some(Outcome::Sat(_)) => core,
                        _ => match s.check(&rest, std::slice::from_ref(&trigger))? {
                            Outcome::Unsat(others) => others,
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
                Outcome::Unknown(reason) => Vacuity::Unknown {
                    reason: reason.clone().into(),
                },
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
            Outcome::Sat(m) => Violatability::Violatable {
                witness: witness(spec, &m, &[formula]),
            },
            Outcome::Unsat(core) => {
                let min = s.minimize(&[], core, &breaking)?;
                Violatability::ImpliedByDomain {
                    because: s.lits.ids(spec, &min),
                }
            }
            Outcome::Unknown(reason) => Violatability::Unknown {
                reason: reason.clone().into(),
            },
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
        Some(Outcome::Sat(m)) => Redundancy::NotRedundant {
            witness: witness(spec, &m, &[formula]),
        },
        Some(Outcome::Unsat(core)) => {
            let min = s.minimize(&[], core, &breaking)?;
            Redundancy::Redundant {
                subsumed_by: s.lits.ids(spec, &min),
            }
        }
        Some(Outcome::Unknown(reason)) => Redundancy::Unknown {
            reason: reason.clone().into(),
        },
    };
    Ok(RequirementAudit::new(
        req,
        vacuity_domain,
        vacuity_model,
        violatability,
        redundancy,
    ))
}

/// One minimal conflict, or (with `cap > 1`) up to `cap` of them, smallest first, by
/// MARCO-style enumeration over the requirements (domain constraints always assumed).
fn conflicts(
    s: &mut Session,
    spec: &Spec,
    core: Vec<Term>,
    cap: usize,
) -> Result<(Vec<Vec<String>>, Option<Incomplete>), SolverError> {
    if cap <= 1 {
        let first = s.minimize(&[], core, &[])?;
        return Ok((
            vec![s.lits.ids(spec, &first)],
            Some(Incomplete::Cap {
                cap: 1,
                listed_up_to: None,
            }),
        ));
    }
    // The core only tells that there is a conflict: the list is enumerated smallest
    // first (crate::marco), component by component (a minimal conflict never spans two
    // variable-disjoint components), so a capped list holds the shortest conflicts.
    drop(core);
    let dom = s.lits.domain.clone();
    let parts: Vec<Vec<usize>> = components(spec)
        .into_iter()
        .map(|c| c.requirements)
        .collect();
    let map = map_config(s);
    let mut oracle = ConsistencyOracle {
        s: &mut *s,
        spec,
        dom: &dom,
    };
    let crate::marco::Found { conflicts, stopped } =
        crate::marco::by_parts(&mut oracle, &parts, cap, &map)?;
    let mut stopped = stopped;
    let found: Vec<Vec<Term>> = conflicts.into_iter().map(|(_, lits)| lits).collect();
    if stopped.is_none() {
        if let Some(r) = s.minimize_unknown.take() {
            stopped = Some(Incomplete::Unknown {
                reason: r.map(|r| format!("a conflict may not be minimal: {r}")),
            });
        }
    }
    Ok((found.iter().map(|c| s.lits.ids(spec, c)).collect(), stopped))
}

/// The consistency questions about subsets of the requirements (spec indices), for the
/// smallest-first enumeration; a conflict's evidence is its literals with the domain
/// constraints that take part.
struct ConsistencyOracle<'a, 's, 'x> {
    s: &'a mut Session<'s>,
    spec: &'x Spec,
    dom: &'x [Term],
}

impl ConsistencyOracle<'_, '_, '_> {
    fn lit(&self, i: usize) -> Option<Term> {
        self.s.lits.reqs.get(i).cloned().flatten()
    }

    fn check(&mut self, set: &[usize]) -> Result<Outcome, SolverError> {
        let mut assume = self.dom.to_vec();
        assume.extend(set.iter().filter_map(|i| self.lit(*i)));
        self.s.check(&assume, &[])
    }
}

impl crate::marco::Oracle for ConsistencyOracle<'_, '_, '_> {
    type Evidence = Vec<Term>;

    fn probe(&mut self, set: &[usize]) -> Result<crate::marco::Probe<Vec<Term>>, SolverError> {
        use crate::marco::Probe;
        Ok(match self.check(set)? {
            Outcome::Sat(_) => Probe::Fine,
            Outcome::Unknown(r) => Probe::Unknown(r.clone().into()),
            Outcome::Unsat(core) => {
                let mus = self.s.minimize(self.dom, core, &[])?;
                let members: Vec<usize> = set
                    .iter()
                    .copied()
                    .filter(|i| self.lit(*i).is_some_and(|l| mus.contains(&l)))
                    .collect();
                // Name the domain constraints involved too.
                let dom_min = self.s.minimize(&mus, self.dom.to_vec(), &[])?;
                let mut lits = mus;
                lits.extend(dom_min);
                Probe::Conflict(members, lits, None)
            }
        })
    }

    /// Fine when satisfiable; every member of `within` that the satisfying state also
    /// satisfies (vera's evaluator on the solver's model) can join at once.
    fn fine(
        &mut self,
        set: &[usize],
        within: &[usize],
    ) -> Result<Result<Option<Vec<usize>>, solver::Undecided>, SolverError> {
        Ok(match self.check(set)? {
            Outcome::Sat(m) => Ok(Some(
                within
                    .iter()
                    .copied()
                    .filter(|&j| {
                        self.spec.requirements[j].formula.as_ref().is_some_and(|f| {
                            logic::eval::eval_bool(f, &m, &self.spec.context) == Ok(true)
                        })
                    })
                    .collect(),
            )),
            Outcome::Unsat(_) => Ok(None),
            Outcome::Unknown(r) => Err(r.clone().into()),
        })
    }
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
        for vs in &dom_vars {
            unite(&mut parent, vs);
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

    /// The schema variables of `members`, and `also`, sorted, each once.
    fn vars_with(&self, members: &[MemberRef], also: &[usize]) -> Vec<usize> {
        let mut vars: Vec<usize> = members
            .iter()
            .flat_map(|m| self.vars(*m).iter().copied())
            .chain(also.iter().copied())
            .collect();
        vars.sort_unstable();
        vars.dedup();
        vars
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
        ids_in_order(self.spec, reqs, dom)
    }

    /// [`witness`], without a pass over the whole schema.
    fn witness(&self, model: &Model, formula: &Term) -> Witness {
        let vars = self.vars_of(std::slice::from_ref(formula));
        vars.into_iter()
            .filter_map(|i| assignment(&self.spec.variables[i], model))
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

/// A base (or nothing) with a few variables changed.
struct Overlay<'b> {
    base: Option<&'b Base>,
    delta: Vec<(usize, Value)>,
}

impl Overlay<'_> {
    fn get(&self, v: usize) -> Option<&Value> {
        match self.delta.iter().find(|(w, _)| *w == v) {
            Some((_, val)) => Some(val),
            None => self.base.and_then(|b| b.values[v].as_ref()),
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

    /// True when every term of `x` and every member in `check` holds in this state.
    fn holds_all(&self, facts: &Facts, x: &[Term], check: &[MemberRef]) -> bool {
        x.iter().all(|t| {
            let vs = facts.vars_of(std::slice::from_ref(t));
            self.holds(facts, t, &vs)
        }) && check
            .iter()
            .all(|m| self.holds(facts, facts.formula(*m), facts.vars(*m)))
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

/// Where a state comes from: a base (an index into the bases at hand, or none) and the
/// values that differ from it. Kept in the cache, so that the state can be confirmed
/// again against an edited spec.
#[derive(Debug, Clone)]
struct Graft {
    base: Option<usize>,
    delta: Vec<(usize, Value)>,
}

/// A state that satisfies a check: its values over the check's variables, and where
/// the whole state comes from.
struct State {
    model: Model,
    graft: Graft,
}

/// How a check that a state exists came out.
enum Found {
    /// A state, confirmed by the evaluator (over the check's variables at least).
    State(State),
    /// No state: a minimal core of members.
    Unsat(Vec<MemberRef>),
    /// No answer.
    Unknown(solver::Undecided),
}

/// The result of a local query.
enum Local {
    State(State),
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
                    base: Some(&self.bases[*b]),
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
                    base: Some(&self.bases[b]),
                    delta: Vec::new(),
                };
                if x.iter().all(|t| {
                    let vs = self.facts.vars_of(std::slice::from_ref(t));
                    o.holds(self.facts, t, &vs)
                }) {
                    return Ok(Found::State(State {
                        model: o.model(self.facts, &xv),
                        graft: Graft {
                            base: Some(b),
                            delta: Vec::new(),
                        },
                    }));
                }
            }
        }
        if let Some(state) = self.fixed_query(x, exclude, &cands)? {
            return Ok(Found::State(state));
        }
        match self.relaxed_query(x, exclude)? {
            Local::State(state) => return Ok(Found::State(state)),
            Local::Unsat(core) => return Ok(Found::Unsat(core)),
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
    ) -> Result<Option<State>, SolverError> {
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
                base: Some(&self.bases[*b]),
                delta: delta.clone(),
            };
            if o.holds_all(self.facts, x, &members) {
                return Ok(Some(State {
                    model: o.model(facts, &xv),
                    graft: Graft {
                        base: Some(*b),
                        delta: o.delta,
                    },
                }));
            }
        }
        Ok(None)
    }

    /// From a state that breaks requirement `i` and satisfies the rest of M, a state of
    /// all of M where its trigger holds: the same state with some of the response's
    /// Boolean variables flipped, confirmed by the evaluator on `i` and every member
    /// that mentions a flipped variable. No solver query.
    fn flip_response(&self, g: &Graft, i: usize) -> Option<Graft> {
        let facts = self.facts;
        let trigger = facts.spec.requirements[i].trigger();
        self.flipped(g, i, std::slice::from_ref(&trigger), |changed| {
            let mut check = facts.members_of(changed, None);
            if let Err(at) = check.binary_search(&MemberRef::Req(i)) {
                check.insert(at, MemberRef::Req(i));
            }
            check
        })
    }

    /// From a state of M where the trigger of requirement `i` holds, a state of the
    /// domain constraints that violates it: some of the response's Boolean variables
    /// flipped, confirmed on the trigger, the violation and every domain constraint
    /// that mentions a flipped variable. Its values over the requirement's variables.
    fn flip_to_break(&self, g: &Graft, i: usize) -> Option<Model> {
        let facts = self.facts;
        let req = &facts.spec.requirements[i];
        let x = [req.trigger(), req.violation()?];
        let found = self.flipped(g, i, &x, |changed| {
            let mut check: Vec<MemberRef> = changed
                .iter()
                .flat_map(|v| facts.var_domain[*v].iter().map(|d| MemberRef::Dom(*d)))
                .collect();
            check.sort_unstable();
            check.dedup();
            check
        })?;
        let o = Overlay {
            base: found.base.map(|b| &self.bases[b]),
            delta: found.delta,
        };
        Some(o.model(facts, &facts.vars_of(&x)))
    }

    /// The state `g` with some (at most three) of the Boolean non-hub variables of
    /// requirement `i`'s response flipped, such that `x` and the members
    /// `check(flipped variables)` hold.
    fn flipped(
        &self,
        g: &Graft,
        i: usize,
        x: &[Term],
        check: impl Fn(&[usize]) -> Vec<MemberRef>,
    ) -> Option<Graft> {
        let facts = self.facts;
        let req = &facts.spec.requirements[i];
        let Shape::Conditional { response, .. } = &req.shape else {
            return None;
        };
        let base = match g.base {
            Some(b) => Some(self.bases.get(b)?),
            None => None,
        };
        let flips: Vec<usize> = facts
            .vars_of(std::slice::from_ref(response))
            .into_iter()
            .filter(|v| facts.spec.variables[*v].sort == Sort::Bool && !facts.hub[*v])
            .take(3)
            .collect();
        for mask in 1..(1usize << flips.len()) {
            let mut delta = g.delta.clone();
            let mut changed = Vec::new();
            for (k, v) in flips.iter().enumerate() {
                if mask & (1 << k) == 0 {
                    continue;
                }
                let o = Overlay {
                    base,
                    delta: delta.clone(),
                };
                let Some(Value::Bool(b)) = o.get(*v).cloned() else {
                    return None;
                };
                delta.retain(|(w, _)| w != v);
                delta.push((*v, Value::Bool(!b)));
                changed.push(*v);
            }
            let o = Overlay { base, delta };
            if o.holds_all(self.facts, x, &check(&changed)) {
                return Some(Graft {
                    base: g.base,
                    delta: o.delta,
                });
            }
        }
        None
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
        let vars = facts.vars_with(&members, &xv);
        // Bounds and other domain constraints on the variables involved.
        for &v in &vars {
            members.extend(facts.var_domain[v].iter().map(|d| MemberRef::Dom(*d)));
        }
        members.sort_unstable();
        members.dedup();
        if members.len() > LOCAL_LIMIT {
            return Ok(Err(Vec::new()));
        }
        let vars = facts.vars_with(&members, &xv);
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
                Ok(Ok(Local::Unsat(in_core(members, &lits, &min))))
            }
            Outcome::Unknown(_) => Ok(Err(Vec::new())),
            Outcome::Sat(m) => {
                // Graft onto a base that agrees on every hub variable involved.
                let mut broken: Option<Vec<MemberRef>> = None;
                for (k, base) in self.bases.iter().enumerate() {
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
                    let o = Overlay {
                        base: Some(base),
                        delta,
                    };
                    if o.holds_all(self.facts, x, &check) {
                        return Ok(Ok(Local::State(State {
                            model: o.model(facts, vars),
                            graft: Graft {
                                base: Some(k),
                                delta: o.delta,
                            },
                        })));
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
                Outcome::Sat(m) => {
                    let delta = m
                        .values
                        .iter()
                        .filter_map(|(n, v)| Some((*self.facts.var_index.get(n)?, v.clone())))
                        .collect();
                    Found::State(State {
                        model: m,
                        graft: Graft { base: None, delta },
                    })
                }
                Outcome::Unknown(r) => Found::Unknown(r.clone().into()),
                Outcome::Unsat(core) => {
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
        let vars = facts.vars_with(&members, &xv);
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
                    let o = Overlay {
                        base: None,
                        delta: vars
                            .iter()
                            .filter_map(|v| m.get(facts.name(*v)).map(|val| (*v, val.clone())))
                            .collect(),
                    };
                    if o.holds_all(self.facts, x, &members) {
                        Found::State(State {
                            model: o.model(facts, &vars),
                            graft: Graft {
                                base: None,
                                delta: o.delta,
                            },
                        })
                    } else {
                        Found::Unknown(solver::Undecided::other(
                            "the solver's state does not satisfy the check",
                        ))
                    }
                }
                Outcome::Unsat(core) => {
                    let min = minimize_in(self.scratch, core, &mut self.queries)?;
                    Found::Unsat(in_core(&members, &lits, &min))
                }
                Outcome::Unknown(r) => Found::Unknown(r.clone().into()),
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

/// The members (guarded by `lits`, as [`guard_members`] returns them) whose literal is
/// in `core`.
fn in_core(members: &[MemberRef], lits: &[Term], core: &[Term]) -> Vec<MemberRef> {
    members
        .iter()
        .zip(lits)
        .filter(|(_, l)| core.contains(l))
        .map(|(m, _)| *m)
        .collect()
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

// ---- Reusing an earlier audit ---------------------------------------------------
//
// With a cache folder, an audit keeps what each check's result rests on, and the next
// audit of the same spec (same file, same solver) takes every result whose grounds
// still hold instead of asking again:
//
// - a check that involves only the domain constraints is keyed by the content of its
//   terms, of their variables' declarations and of the domain constraints it was asked
//   over; the same key gives the same answer;
// - a state that satisfies a check (a reachable trigger, a requirement the others do
//   not enforce) is kept as a base and the values that differ from it, and it is
//   confirmed again by the evaluator against the current spec: every member whose
//   variables it changes, and every member the base itself no longer satisfies;
// - an unsatisfiable check (a vacuity, a redundancy) is kept as its minimal core with
//   a content hash of each member: while none of them changed, the core is still unsat
//   and still minimal;
// - a base that satisfies every current member is a model of M: the spec is
//   consistent without asking;
// - each group of linked outputs the realizability audit found realizable is keyed by
//   the content of the group.
//
// An edit to one requirement therefore re-asks its own checks and those whose states
// it breaks or whose cores it belongs to. A cache that cannot be read is ignored.

/// FNV-1a over 128 bits: a content hash that is the same on every platform and with
/// every toolchain (unlike the standard library's hasher), for cache keys.
#[derive(Clone, Copy)]
pub(crate) struct ContentHash(u128);

impl ContentHash {
    pub(crate) fn new() -> ContentHash {
        ContentHash(0x6c62_272e_07bb_0142_62b8_2175_6295_c58d)
    }

    fn bytes(mut self, b: &[u8]) -> ContentHash {
        for &x in b {
            self.0 ^= u128::from(x);
            self.0 = self
                .0
                .wrapping_mul(0x0000_0000_0100_0000_0000_0000_0000_013b);
        }
        self
    }

    /// Adds a string (with a terminator, so that `ab`+`c` and `a`+`bc` differ).
    pub(crate) fn str(self, s: &str) -> ContentHash {
        self.bytes(s.as_bytes()).bytes(&[0xff])
    }

    pub(crate) fn num(self, v: u128) -> ContentHash {
        self.bytes(&v.to_le_bytes())
    }

    /// Adds a variable's declaration: name, sort and, for an enumeration, its values.
    pub(crate) fn decl(self, spec: &Spec, name: &str, sort: &Sort) -> ContentHash {
        let mut h = self.str(name).str(&sort.to_string());
        if let Sort::Enum(e) = sort {
            if let Some((_, ctors)) = spec.enums.iter().find(|(n, _)| n == e) {
                for c in ctors {
                    h = h.str(c);
                }
            }
        }
        h
    }

    pub(crate) fn finish(self) -> u128 {
        self.0
    }
}

/// Content hashes of the members of a spec.
struct Hashes {
    dom: Vec<u128>,
    req: Vec<u128>,
    /// Per component of the domain constraints alone.
    dcomp: Vec<u128>,
}

impl Hashes {
    fn new(facts: &Facts) -> Hashes {
        let spec = facts.spec;
        let member = |tag: &str, id: &str, t: &Term, vars: &[usize]| {
            let mut h = ContentHash::new()
                .str(tag)
                .str(id)
                .str(&logic::print::term(t));
            for &v in vars {
                let var = &spec.variables[v];
                h = h.decl(spec, &var.name, &var.sort);
            }
            h.finish()
        };
        let dom: Vec<u128> = spec
            .domain
            .iter()
            .enumerate()
            .map(|(i, d)| member("domain", &d.id, &d.formula, &facts.dom_vars[i]))
            .collect();
        let req = spec
            .requirements
            .iter()
            .enumerate()
            .map(|(i, r)| match &r.formula {
                Some(f) => member("requirement", &r.id, f, &facts.req_vars[i]),
                None => 0,
            })
            .collect();
        let dcomp = facts
            .dcomps
            .iter()
            .map(|c| {
                c.iter()
                    .fold(ContentHash::new().str("domain part"), |h, d| h.num(dom[*d]))
                    .finish()
            })
            .collect();
        Hashes { dom, req, dcomp }
    }

    fn of(&self, m: MemberRef) -> u128 {
        match m {
            MemberRef::Dom(i) => self.dom[i],
            MemberRef::Req(i) => self.req[i],
        }
    }

    /// The key of a check over the domain constraints: its terms, their variables'
    /// declarations, and the parts of the domain it is asked over.
    fn domain_key(&self, facts: &Facts, tag: &str, x: &[Term]) -> u128 {
        let xv = facts.vars_of(x);
        let mut h = ContentHash::new().str(tag);
        for t in x {
            h = h.str(&logic::print::term(t));
        }
        let mut comps: Vec<usize> = Vec::with_capacity(xv.len());
        for &v in &xv {
            let var = &facts.spec.variables[v];
            h = h.decl(facts.spec, &var.name, &var.sort);
            comps.push(facts.var_dcomp[v]);
        }
        comps.sort_unstable();
        comps.dedup();
        comps.iter().fold(h, |h, c| h.num(self.dcomp[*c])).finish()
    }
}

/// A domain-only vacuity as kept.
#[derive(Debug, Clone)]
enum VdStored {
    Reachable,
    Vacuous(Vec<String>),
}

/// A violatability as kept: the violating values over the formula's variables, or the
/// domain constraints that enforce it.
#[derive(Debug, Clone)]
enum ViolStored {
    Violatable(Vec<(usize, Value)>),
    Implied(Vec<String>),
}

/// Which list of bases a kept state refers to.
#[derive(Debug, Clone, Copy)]
enum BaseRef {
    /// The bases of this audit.
    Now(usize),
    /// The bases read from the cache.
    Prior(usize),
}

/// What a result over M rests on.
#[derive(Debug, Clone)]
enum Proof {
    State(Option<BaseRef>, Vec<(usize, Value)>),
    Core(Vec<MemberRef>),
}

/// What one requirement's results rest on, to be kept.
#[derive(Debug, Clone, Default)]
struct Record {
    vd: Option<(u128, VdStored)>,
    viol: Option<(u128, ViolStored)>,
    vm: Option<Proof>,
    red: Option<Proof>,
}

/// A result over M as read from the cache.
enum PriorProof {
    State(Option<usize>, Vec<(usize, Value)>),
    Core(Vec<(MemberRef, u128)>),
}

struct PriorRecord {
    hash: u128,
    vd: Option<(u128, VdStored)>,
    viol: Option<(u128, ViolStored)>,
    vm: Option<PriorProof>,
    red: Option<PriorProof>,
}

/// The results of an earlier audit, as read from the cache.
#[derive(Default)]
struct Prior {
    bases: Vec<Base>,
    /// Per base: the current members it does not satisfy (see [`Prior::validate`]).
    violated: Vec<Vec<MemberRef>>,
    records: HashMap<String, PriorRecord>,
    groups: HashMap<u128, usize>,
}

/// Results of one requirement that still hold, each with what it rests on.
#[derive(Default)]
struct Reuse {
    vd: Option<(Vacuity, (u128, VdStored))>,
    viol: Option<(Violatability, (u128, ViolStored))>,
    vm: Option<(Vacuity, Proof)>,
    red: Option<(Redundancy, Proof, Option<Model>)>,
}

/// One requirement's audit with what its results rest on.
struct Done {
    audit: RequirementAudit,
    record: Record,
    /// Checks answered, and how many of them came from the cache.
    checks: usize,
    reused: usize,
}

/// The first line of a cache file (with the solver after it). A cache written by
/// another version of vera is not read: bump the format number when what is kept, or
/// how a result is derived, changes.
const CACHE_HEADER: &str = concat!("vera-audit-cache\t1\t", env!("CARGO_PKG_VERSION"));

/// The cache file of a spec (by its file name) and solver (by its kind and the
/// program that runs: another binary, or a wrapper, gets a cache of its own).
fn cache_path(dir: &std::path::Path, spec: &Spec, options: &AuditOptions) -> std::path::PathBuf {
    let key = ContentHash::new()
        .str("vera audit")
        .str(&options.solver.kind.to_string())
        .str(&options.solver.resolved_program().to_string_lossy())
        .str(spec.source.name())
        .finish();
    dir.join(format!("{key:032x}.cache"))
}

/// Tabs, newlines and backslashes escaped, so that a name or an id is one field.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out
}

fn unesc(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match it.next()? {
            '\\' => '\\',
            't' => '\t',
            'n' => '\n',
            'r' => '\r',
            _ => return None,
        });
    }
    Some(out)
}

fn encode_value(v: &Value) -> String {
    match v {
        Value::Bool(true) => "t".into(),
        Value::Bool(false) => "f".into(),
        Value::Int(i) => format!("i{i}"),
        Value::Real(r) => format!("r{}/{}", r.numer(), r.denom()),
        Value::Enum(_, c) => format!("e{}", esc(c)),
    }
}

fn decode_value(s: &str, sort: &Sort, spec: &Spec) -> Option<Value> {
    match sort {
        Sort::Bool => match s {
            "t" => Some(Value::Bool(true)),
            "f" => Some(Value::Bool(false)),
            _ => None,
        },
        Sort::Int => s.strip_prefix('i')?.parse().ok().map(Value::Int),
        Sort::Real => {
            let (n, d) = s.strip_prefix('r')?.split_once('/')?;
            let (n, d): (num_bigint::BigInt, num_bigint::BigInt) =
                (n.parse().ok()?, d.parse().ok()?);
            if num_traits::Zero::is_zero(&d) {
                return None;
            }
            Some(Value::Real(num_rational::BigRational::new(n, d)))
        }
        Sort::Enum(e) => {
            let c = unesc(s.strip_prefix('e')?)?;
            let (_, ctors) = spec.enums.iter().find(|(n, _)| n == e)?;
            let ctor = ctors.iter().find(|k| ***k == *c)?;
            Some(Value::Enum(e.clone(), ctor.clone()))
        }
    }
}

/// `name=value` fields to values by variable index; `None` if any does not fit the
/// current schema.
fn decode_values(fields: &[&str], facts: &Facts) -> Option<Vec<(usize, Value)>> {
    fields
        .iter()
        .map(|f| {
            let (name, value) = f.rsplit_once('=')?;
            let name = unesc(name)?;
            let v = *facts.var_index.get(name.as_str())?;
            let val = decode_value(value, &facts.spec.variables[v].sort, facts.spec)?;
            Some((v, val))
        })
        .collect()
}

fn encode_values(out: &mut String, facts: &Facts, values: &[(usize, Value)]) {
    for (v, val) in values {
        out.push('\t');
        out.push_str(&esc(facts.name(*v)));
        out.push('=');
        out.push_str(&encode_value(val));
    }
}

impl Prior {
    /// Reads the cache file; anything missing, unreadable or malformed gives an empty
    /// cache (the audit then asks everything).
    fn read(
        path: &std::path::Path,
        facts: &Facts,
        hashes: &Hashes,
        options: &AuditOptions,
    ) -> Prior {
        let _ = hashes;
        let Ok(text) = std::fs::read_to_string(path) else {
            return Prior::default();
        };
        Prior::parse(&text, facts, options).unwrap_or_default()
    }

    fn parse(text: &str, facts: &Facts, options: &AuditOptions) -> Option<Prior> {
        let mut lines = text.lines();
        let header = lines.next()?;
        if header != format!("{CACHE_HEADER}\t{}", options.solver.kind) {
            return None;
        }
        let ids: HashMap<&str, MemberRef> = facts
            .spec
            .domain
            .iter()
            .enumerate()
            .map(|(i, d)| (d.id.as_str(), MemberRef::Dom(i)))
            .chain(
                facts
                    .spec
                    .requirements
                    .iter()
                    .enumerate()
                    .filter(|(_, r)| r.formula.is_some())
                    .map(|(i, r)| (r.id.as_str(), MemberRef::Req(i))),
            )
            .collect();
        let hex = |s: &str| u128::from_str_radix(s, 16).ok();
        let id_list =
            |fields: &[&str]| -> Option<Vec<String>> { fields.iter().map(|f| unesc(f)).collect() };
        let proof = |fields: &[&str]| -> Option<Option<PriorProof>> {
            Some(match fields.first().copied()? {
                "state" => {
                    let base = match *fields.get(1)? {
                        "-" => None,
                        b => Some(b.parse().ok()?),
                    };
                    // A value of a variable that no longer exists: not reusable.
                    decode_values(&fields[2..], facts).map(|delta| PriorProof::State(base, delta))
                }
                "core" => {
                    let mut core = Vec::new();
                    for pair in fields[1..].chunks(2) {
                        let [id, h] = pair else { return None };
                        match ids.get(unesc(id)?.as_str()) {
                            Some(m) => core.push((*m, hex(h)?)),
                            // A member that is gone: the core no longer holds.
                            None => return Some(None),
                        }
                    }
                    Some(PriorProof::Core(core))
                }
                _ => return None,
            })
        };
        let mut prior = Prior::default();
        let mut current: Option<(String, PriorRecord)> = None;
        for line in lines {
            let fields: Vec<&str> = line.split('\t').collect();
            match fields[0] {
                "B" => {
                    let mut values = vec![None; facts.spec.variables.len()];
                    for (v, val) in decode_values(&fields[1..], facts).unwrap_or_default() {
                        values[v] = Some(val);
                    }
                    prior.bases.push(Base { values });
                }
                "G" => {
                    prior
                        .groups
                        .insert(hex(fields.get(1)?)?, fields.get(2)?.parse().ok()?);
                }
                "R" => {
                    if let Some((id, r)) = current.take() {
                        prior.records.insert(id, r);
                    }
                    current = Some((
                        unesc(fields.get(1)?)?,
                        PriorRecord {
                            hash: hex(fields.get(2)?)?,
                            vd: None,
                            viol: None,
                            vm: None,
                            red: None,
                        },
                    ));
                }
                "vd" => {
                    let (_, r) = current.as_mut()?;
                    let key = hex(fields.get(1)?)?;
                    r.vd = Some((
                        key,
                        match *fields.get(2)? {
                            "reach" => VdStored::Reachable,
                            "vac" => VdStored::Vacuous(id_list(&fields[3..])?),
                            _ => return None,
                        },
                    ));
                }
                "viol" => {
                    let (_, r) = current.as_mut()?;
                    let key = hex(fields.get(1)?)?;
                    r.viol = match *fields.get(2)? {
                        "viol" => decode_values(&fields[3..], facts)
                            .map(|vals| (key, ViolStored::Violatable(vals))),
                        "impl" => Some((key, ViolStored::Implied(id_list(&fields[3..])?))),
                        _ => return None,
                    };
                }
                "vm" => {
                    let (_, r) = current.as_mut()?;
                    r.vm = proof(&fields[1..])?;
                }
                "red" => {
                    let (_, r) = current.as_mut()?;
                    r.red = proof(&fields[1..])?;
                }
                _ => return None,
            }
        }
        if let Some((id, r)) = current.take() {
            prior.records.insert(id, r);
        }
        if prior
            .records
            .values()
            .flat_map(|r| [&r.vm, &r.red])
            .any(|p| matches!(p, Some(PriorProof::State(Some(b), _)) if *b >= prior.bases.len()))
        {
            return None;
        }
        Some(prior)
    }

    /// Finds, for every base, the current members it does not satisfy.
    fn validate(&mut self, facts: &Facts) {
        let members: Vec<MemberRef> = (0..facts.spec.domain.len())
            .map(MemberRef::Dom)
            .chain(
                (0..facts.spec.requirements.len())
                    .filter(|i| facts.spec.requirements[*i].formula.is_some())
                    .map(MemberRef::Req),
            )
            .collect();
        self.violated = self
            .bases
            .iter()
            .map(|b| {
                let o = Overlay {
                    base: Some(b),
                    delta: Vec::new(),
                };
                members
                    .iter()
                    .copied()
                    .filter(|m| !o.holds(facts, facts.formula(*m), facts.vars(*m)))
                    .collect()
            })
            .collect();
    }

    /// True when the kept state (a base of this cache and the values that differ)
    /// satisfies `x` and every current member but `exclude`. `part_size`: the number
    /// of members of the requirement's component (a state without a base must cover
    /// them all).
    fn state_holds(
        &self,
        facts: &Facts,
        base: Option<usize>,
        delta: &[(usize, Value)],
        x: &[Term],
        exclude: Option<usize>,
        part_size: usize,
    ) -> bool {
        let skip = exclude.map(MemberRef::Req);
        let changed: Vec<usize> = delta.iter().map(|(v, _)| *v).collect();
        let check = facts.members_of(&changed, skip);
        let covered = match base {
            Some(b) => self.violated[b]
                .iter()
                .all(|m| Some(*m) == skip || check.binary_search(m).is_ok()),
            None => check.len() + usize::from(skip.is_some()) >= part_size,
        };
        if !covered {
            return false;
        }
        let o = Overlay {
            base: base.map(|b| &self.bases[b]),
            delta: delta.to_vec(),
        };
        o.holds_all(facts, x, &check)
    }

    /// The results of requirement `i` that still hold.
    fn reuse(
        &self,
        facts: &Facts,
        hashes: &Hashes,
        i: usize,
        now_of_prior: &[Option<usize>],
        part_size: usize,
    ) -> Reuse {
        let mut out = Reuse::default();
        let req = &facts.spec.requirements[i];
        let Some(rec) = self.records.get(&req.id) else {
            return out;
        };
        if rec.hash != hashes.req[i] {
            return out;
        }
        let (Some(formula), Some(violation)) = (&req.formula, req.violation()) else {
            return out;
        };
        let trigger = req.trigger();
        let breaking = [trigger.clone(), violation];
        if req.is_conditional() {
            if let Some((key, stored)) = &rec.vd {
                if *key == hashes.domain_key(facts, "vd", std::slice::from_ref(&trigger)) {
                    let v = match stored {
                        VdStored::Reachable => Vacuity::Reachable,
                        VdStored::Vacuous(ids) => Vacuity::Vacuous {
                            because: ids.clone(),
                            response_conflict: false,
                        },
                    };
                    out.vd = Some((v, (*key, stored.clone())));
                }
            }
        }
        if let Some((key, stored)) = &rec.viol {
            if *key == hashes.domain_key(facts, "viol", &breaking) {
                match stored {
                    ViolStored::Violatable(values) => {
                        // The violating values are evaluated again.
                        let o = Overlay {
                            base: None,
                            delta: values.clone(),
                        };
                        let ok = breaking.iter().all(|t| {
                            let vs = facts.vars_of(std::slice::from_ref(t));
                            o.holds(facts, t, &vs)
                        });
                        if ok {
                            let vars = facts.vars_of(std::slice::from_ref(formula));
                            let w = facts.witness(&o.model(facts, &vars), formula);
                            out.viol = Some((
                                Violatability::Violatable { witness: w },
                                (*key, stored.clone()),
                            ));
                        }
                    }
                    ViolStored::Implied(ids) => {
                        out.viol = Some((
                            Violatability::ImpliedByDomain {
                                because: ids.clone(),
                            },
                            (*key, stored.clone()),
                        ));
                    }
                }
            }
        }
        let base_ref = |b: Option<usize>| {
            b.map(|b| match now_of_prior[b] {
                Some(k) => BaseRef::Now(k),
                None => BaseRef::Prior(b),
            })
        };
        let core_holds = |core: &[(MemberRef, u128)]| core.iter().all(|(m, h)| hashes.of(*m) == *h);
        match &rec.red {
            Some(PriorProof::State(b, delta))
                if self.state_holds(facts, *b, delta, &breaking, Some(i), part_size) =>
            {
                let o = Overlay {
                    base: b.map(|b| &self.bases[b]),
                    delta: delta.clone(),
                };
                let model = o.model(facts, &facts.vars_of(&breaking));
                out.red = Some((
                    Redundancy::NotRedundant {
                        witness: facts.witness(&model, formula),
                    },
                    Proof::State(base_ref(*b), delta.clone()),
                    Some(model),
                ));
            }
            Some(PriorProof::Core(core))
                if core_holds(core) && core.iter().all(|(m, _)| *m != MemberRef::Req(i)) =>
            {
                let refs: Vec<MemberRef> = core.iter().map(|(m, _)| *m).collect();
                out.red = Some((
                    Redundancy::Redundant {
                        subsumed_by: facts.ids(&refs),
                    },
                    Proof::Core(refs),
                    None,
                ));
            }
            _ => {}
        }
        if req.is_conditional() {
            let x = std::slice::from_ref(&trigger);
            match &rec.vm {
                Some(PriorProof::State(b, delta))
                    if self.state_holds(facts, *b, delta, x, None, part_size) =>
                {
                    out.vm = Some((
                        Vacuity::Reachable,
                        Proof::State(base_ref(*b), delta.clone()),
                    ));
                }
                Some(PriorProof::Core(core)) if core_holds(core) => {
                    let refs: Vec<MemberRef> = core.iter().map(|(m, _)| *m).collect();
                    let own = refs.contains(&MemberRef::Req(i));
                    let because = facts
                        .ids(&refs)
                        .into_iter()
                        .filter(|id| *id != req.id)
                        .collect();
                    out.vm = Some((
                        Vacuity::Vacuous {
                            because,
                            response_conflict: own,
                        },
                        Proof::Core(refs),
                    ));
                }
                _ => {}
            }
        }
        out
    }
}

/// What [`write_cache`] keeps.
#[derive(Clone, Copy)]
struct ToKeep<'a> {
    facts: &'a Facts<'a>,
    hashes: &'a Hashes,
    options: &'a AuditOptions,
    bases: &'a [Base],
    prior: &'a Prior,
    records: &'a [(usize, Record)],
    groups: &'a [(u128, usize)],
}

/// Writes the cache file: this audit's bases (and the earlier ones that kept states
/// still refer to), each requirement's records, and the realizable groups.
fn write_cache(path: &std::path::Path, w: &ToKeep) -> Result<(), String> {
    let ToKeep {
        facts,
        hashes,
        options,
        bases,
        prior,
        records,
        groups,
    } = *w;
    // Earlier bases still referred to go after this audit's.
    let mut kept: Vec<usize> = Vec::new();
    let mut index_of_prior: HashMap<usize, usize> = HashMap::new();
    for (_, r) in records {
        for p in [&r.vm, &r.red] {
            if let Some(Proof::State(Some(BaseRef::Prior(b)), _)) = p {
                index_of_prior.entry(*b).or_insert_with(|| {
                    kept.push(*b);
                    bases.len() + kept.len() - 1
                });
            }
        }
    }
    let mut out = format!("{CACHE_HEADER}\t{}\n", options.solver.kind);
    for b in bases.iter().chain(kept.iter().map(|k| &prior.bases[*k])) {
        out.push('B');
        let values: Vec<(usize, Value)> = b
            .values
            .iter()
            .enumerate()
            .filter_map(|(v, val)| Some((v, val.clone()?)))
            .collect();
        encode_values(&mut out, facts, &values);
        out.push('\n');
    }
    let ids = |out: &mut String, list: &[String]| {
        for id in list {
            out.push('\t');
            out.push_str(&esc(id));
        }
    };
    let proof = |out: &mut String, tag: &str, p: &Proof| {
        out.push_str(tag);
        match p {
            Proof::State(b, delta) => {
                let b = b.map(|b| match b {
                    BaseRef::Now(k) => k,
                    BaseRef::Prior(k) => index_of_prior[&k],
                });
                out.push_str("\tstate\t");
                match b {
                    Some(b) => out.push_str(&b.to_string()),
                    None => out.push('-'),
                }
                encode_values(out, facts, delta);
            }
            Proof::Core(core) => {
                out.push_str("\tcore");
                for m in core {
                    let id = match m {
                        MemberRef::Dom(i) => &facts.spec.domain[*i].id,
                        MemberRef::Req(i) => &facts.spec.requirements[*i].id,
                    };
                    out.push('\t');
                    out.push_str(&esc(id));
                    out.push_str(&format!("\t{:032x}", hashes.of(*m)));
                }
            }
        }
        out.push('\n');
    };
    for (i, r) in records {
        let req = &facts.spec.requirements[*i];
        out.push_str(&format!("R\t{}\t{:032x}\n", esc(&req.id), hashes.req[*i]));
        if let Some((key, v)) = &r.vd {
            out.push_str(&format!("vd\t{key:032x}"));
            match v {
                VdStored::Reachable => out.push_str("\treach"),
                VdStored::Vacuous(list) => {
                    out.push_str("\tvac");
                    ids(&mut out, list);
                }
            }
            out.push('\n');
        }
        if let Some((key, v)) = &r.viol {
            out.push_str(&format!("viol\t{key:032x}"));
            match v {
                ViolStored::Violatable(values) => {
                    out.push_str("\tviol");
                    encode_values(&mut out, facts, values);
                }
                ViolStored::Implied(list) => {
                    out.push_str("\timpl");
                    ids(&mut out, list);
                }
            }
            out.push('\n');
        }
        if let Some(p) = &r.vm {
            proof(&mut out, "vm", p);
        }
        if let Some(p) = &r.red {
            proof(&mut out, "red", p);
        }
    }
    for (key, rounds) in groups {
        out.push_str(&format!("G\t{key:032x}\t{rounds}\n"));
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    safefile::write_atomic(path, out.as_bytes(), true).map_err(|e| e.to_string())
}

/// True when some requirement still to be audited asks for hub conditions that no base
/// satisfies.
fn more_bases_needed(facts: &Facts, bases: &[Base], todo: &[usize]) -> bool {
    !wanted_bases(facts, bases, todo).is_empty()
}

/// The combinations of hub conditions that requirements in `todo` ask for and no base
/// satisfies, most asked first, at most [`MAX_BASES`].
fn wanted_bases(facts: &Facts, bases: &[Base], todo: &[usize]) -> Vec<Vec<Term>> {
    let mut wanted: HashMap<Vec<String>, (usize, Vec<Term>)> = HashMap::new();
    for &i in todo {
        let r = &facts.spec.requirements[i];
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
    wanted
        .into_iter()
        .take(MAX_BASES)
        .map(|(_, (_, conj))| conj)
        .filter(|conj| !covered(facts, bases, conj))
        .collect()
}

/// True when some base satisfies every one of `conj`.
fn covered(facts: &Facts, bases: &[Base], conj: &[Term]) -> bool {
    bases.iter().any(|b| {
        let o = Overlay {
            base: Some(b),
            delta: Vec::new(),
        };
        conj.iter()
            .all(|t| o.holds(facts, t, &facts.vars_of(std::slice::from_ref(t))))
    })
}

/// Adds a base (a model of M) for each combination of hub conditions that requirements
/// in `todo` ask for and no base satisfies yet.
fn more_bases(
    s: &mut Session,
    facts: &Facts,
    bases: &mut Vec<Base>,
    todo: &[usize],
) -> Result<(), SolverError> {
    let mut all = s.lits.domain.clone();
    all.extend(s.lits.reqs_except(None));
    for conj in wanted_bases(facts, bases, todo) {
        if covered(facts, bases, &conj) {
            continue;
        }
        if let Outcome::Sat(m) = s.check(&all, &conj)? {
            bases.push(Base::from_model(facts, &m));
        }
    }
    Ok(())
}

/// [`audit_one`] on the fast paths, taking what `reuse` still proves. Without a worker
/// (`f` is `None`) it answers only when every check it needs is reused.
fn audit_one_fast(
    f: Option<&mut Fast>,
    facts: &Facts,
    hashes: Option<&Hashes>,
    i: usize,
    global: &Global,
    reuse: &Reuse,
) -> Result<Option<Done>, SolverError> {
    let req = &facts.spec.requirements[i];
    let mut one = OneFast::new(f, facts, hashes, i, global, reuse);
    let Some(redundancy) = one.redundancy()? else {
        return Ok(None);
    };
    // Without a state that breaks the requirement, a state of M where the trigger
    // holds settles the trigger under the domain too (and, with the response broken,
    // often the violatability): asked first when both would be asked.
    if req.is_conditional()
        && matches!(global, Global::Consistent)
        && one.broken_state.is_none()
        && reuse.vd.is_none()
        && reuse.vm.is_none()
    {
        let Some(w) = one.f.as_deref_mut() else {
            return Ok(None);
        };
        let found = w.exists(std::slice::from_ref(&one.trigger), None)?;
        if let Found::State(st) = &found {
            one.vm_graft = Some(st.graft.clone());
        }
        one.vm_found = Some(found);
    }
    let (vacuity_domain, vacuity_model) = if req.is_conditional() {
        let Some(vd) = one.vacuity_domain()? else {
            return Ok(None);
        };
        let Some(vm) = one.vacuity_model(&vd)? else {
            return Ok(None);
        };
        (vd, vm)
    } else {
        (Vacuity::NotApplicable, Vacuity::NotApplicable)
    };
    let Some(violatability) = one.violatability()? else {
        return Ok(None);
    };
    let audit = RequirementAudit::new(
        req,
        vacuity_domain,
        vacuity_model,
        violatability,
        redundancy,
    );
    let checks = answered(&audit);
    Ok(Some(Done {
        audit,
        record: one.record,
        checks,
        reused: one.reused,
    }))
}

/// A check of [`OneFast`]: `Ok(None)` when it needs a worker and there is none.
type Step<T> = Result<Option<T>, SolverError>;

/// The proof that a state of M exists: where the state comes from.
fn state_proof(st: &State) -> Proof {
    Proof::State(st.graft.base.map(BaseRef::Now), st.graft.delta.clone())
}

/// One requirement's audit on the fast paths while it runs: what it reads, and what
/// each check leaves for the next ones (the states found, the record for the cache,
/// the count of checks reused).
struct OneFast<'a, 'f, 's> {
    f: Option<&'a mut Fast<'f, 's>>,
    facts: &'a Facts<'a>,
    hashes: Option<&'a Hashes>,
    i: usize,
    global: &'a Global,
    reuse: &'a Reuse,
    req: &'a Requirement,
    trigger: Term,
    formula: &'a Term,
    /// The trigger with the response broken.
    breaking: [Term; 2],
    record: Record,
    reused: usize,
    /// A state of the rest of M that breaks the requirement, and where it comes from
    /// (when a worker found it).
    broken_state: Option<Model>,
    broken_graft: Option<Graft>,
    /// The redundancy came from the cache.
    red_from_cache: bool,
    /// The check for a state of M where the trigger holds, asked ahead, and where the
    /// state it found comes from.
    vm_found: Option<Found>,
    vm_graft: Option<Graft>,
}

impl<'a, 'f, 's> OneFast<'a, 'f, 's> {
    /// The audit of requirement `i`, no check done yet.
    fn new(
        f: Option<&'a mut Fast<'f, 's>>,
        facts: &'a Facts<'a>,
        hashes: Option<&'a Hashes>,
        i: usize,
        global: &'a Global,
        reuse: &'a Reuse,
    ) -> Self {
        let req = &facts.spec.requirements[i];
        let trigger = req.trigger();
        let violation = req.violation().expect("formalized");
        let formula = req.formula.as_ref().expect("formalized");
        let breaking = [trigger.clone(), violation.clone()];
        OneFast {
            f,
            facts,
            hashes,
            i,
            global,
            reuse,
            req,
            trigger,
            formula,
            breaking,
            record: Record::default(),
            reused: 0,
            broken_state: None,
            broken_graft: None,
            red_from_cache: false,
            vm_found: None,
            vm_graft: None,
        }
    }

    /// Redundancy, checked first: a state of the rest of M that breaks this
    /// requirement also shows the trigger reachable and the requirement violatable
    /// under the domain.
    fn redundancy(&mut self) -> Step<Redundancy> {
        if !matches!(self.global, Global::Consistent) {
            return Ok(Some(match self.global.not_run() {
                Some(Err(reason)) => Redundancy::Unknown { reason },
                Some(Ok(reason)) => Redundancy::Skipped { reason },
                None => Redundancy::Skipped {
                    reason: "not checked".into(),
                },
            }));
        }
        if let Some((v, proof, model)) = &self.reuse.red {
            self.reused += 1;
            self.red_from_cache = true;
            self.record.red = Some(proof.clone());
            self.broken_state = model.clone();
            return Ok(Some(v.clone()));
        }
        let Some(w) = self.f.as_deref_mut() else {
            return Ok(None);
        };
        Ok(Some(match w.exists(&self.breaking, Some(self.i))? {
            Found::State(st) => {
                self.record.red = Some(state_proof(&st));
                let witness = self.facts.witness(&st.model, self.formula);
                self.broken_state = Some(st.model);
                self.broken_graft = Some(st.graft);
                Redundancy::NotRedundant { witness }
            }
            Found::Unsat(core) => {
                let r = Redundancy::Redundant {
                    subsumed_by: self.facts.ids(&core),
                };
                self.record.red = Some(Proof::Core(core));
                r
            }
            Found::Unknown(reason) => Redundancy::Unknown { reason },
        }))
    }

    /// Vacuity under the domain (with its record for the cache).
    fn vacuity_domain(&mut self) -> Step<Vacuity> {
        let trigger = std::slice::from_ref(&self.trigger);
        let vd = if self.broken_state.is_some() {
            self.reused += usize::from(self.red_from_cache);
            Vacuity::Reachable
        } else if let Some((v, _)) = &self.reuse.vd {
            self.reused += 1;
            v.clone()
        } else if self.vm_graft.is_some() {
            Vacuity::Reachable
        } else {
            let Some(w) = self.f.as_deref_mut() else {
                return Ok(None);
            };
            match w.domain_state(trigger)? {
                Found::State(_) => Vacuity::Reachable,
                Found::Unsat(core) => Vacuity::Vacuous {
                    because: self.facts.ids(&core),
                    response_conflict: false,
                },
                Found::Unknown(reason) => Vacuity::Unknown { reason },
            }
        };
        if let Some(h) = self.hashes {
            let stored = match &vd {
                Vacuity::Reachable => Some(VdStored::Reachable),
                Vacuity::Vacuous { because, .. } => Some(VdStored::Vacuous(because.clone())),
                _ => None,
            };
            self.record.vd = stored.map(|s| {
                let key = match &self.reuse.vd {
                    Some((_, (key, _))) => *key,
                    None => h.domain_key(self.facts, "vd", trigger),
                };
                (key, s)
            });
        }
        Ok(Some(vd))
    }

    /// Vacuity under M, after vacuity under the domain `vd`.
    fn vacuity_model(&mut self, vd: &Vacuity) -> Step<Vacuity> {
        let red_state = self.broken_state.is_some();
        if let Some(why) = self.global.not_run() {
            return Ok(Some(match why {
                Ok(reason) => Vacuity::Skipped { reason },
                Err(reason) => Vacuity::Unknown { reason },
            }));
        }
        if matches!(vd, Vacuity::Vacuous { .. }) {
            return Ok(Some(Vacuity::Skipped {
                reason: "already vacuous under the domain constraints".into(),
            }));
        }
        if let Some((v, proof)) = self.reuse.vm.as_ref().filter(|(v, _)| {
            // A conflict with its own response stands only while the rest of M
            // allows the trigger (the redundancy state shows it does).
            !matches!(
                v,
                Vacuity::Vacuous {
                    response_conflict: true,
                    ..
                }
            ) || red_state
        }) {
            self.reused += 1;
            self.record.vm = Some(proof.clone());
            return Ok(Some(v.clone()));
        }
        let i = self.i;
        if let Some(g) = self
            .broken_graft
            .as_ref()
            .and_then(|g| self.f.as_deref().and_then(|w| w.flip_response(g, i)))
        {
            // The state that breaks the requirement, with its response made to hold.
            self.record.vm = Some(Proof::State(g.base.map(BaseRef::Now), g.delta));
            return Ok(Some(Vacuity::Reachable));
        }
        let trigger = std::slice::from_ref(&self.trigger);
        let found = match self.vm_found.take() {
            Some(found) => found,
            None => match self.f.as_deref_mut() {
                Some(w) => w.exists(trigger, None)?,
                None => return Ok(None),
            },
        };
        Ok(Some(match found {
            Found::State(st) => {
                self.record.vm = Some(state_proof(&st));
                self.vm_graft = Some(st.graft);
                Vacuity::Reachable
            }
            Found::Unsat(core) => {
                // As on the plain path: the others alone, when they rule it out.
                let core = if red_state {
                    core
                } else {
                    let Some(w) = self.f.as_deref_mut() else {
                        return Ok(None);
                    };
                    match w.exists(trigger, Some(i))? {
                        Found::Unsat(others) => others,
                        _ => core,
                    }
                };
                let own = core.contains(&MemberRef::Req(i));
                let because = self
                    .facts
                    .ids(&core)
                    .into_iter()
                    .filter(|id| *id != self.req.id)
                    .collect();
                self.record.vm = Some(Proof::Core(core));
                Vacuity::Vacuous {
                    because,
                    response_conflict: own,
                }
            }
            Found::Unknown(reason) => Vacuity::Unknown { reason },
        }))
    }

    /// Violatability under the domain (with its record for the cache).
    fn violatability(&mut self) -> Step<Violatability> {
        let formula_vars = self.facts.vars_of(std::slice::from_ref(self.formula));
        let facts = self.facts;
        let values_of = |m: &Model| -> Vec<(usize, Value)> {
            formula_vars
                .iter()
                .filter_map(|v| Some((*v, m.get(facts.name(*v))?.clone())))
                .collect()
        };
        let (violatability, viol_stored) = match &self.broken_state {
            Some(m) => {
                self.reused += usize::from(self.red_from_cache);
                (
                    Violatability::Violatable {
                        witness: facts.witness(m, self.formula),
                    },
                    Some(ViolStored::Violatable(values_of(m))),
                )
            }
            None => match &self.reuse.viol {
                Some((v, (_, stored))) => {
                    self.reused += 1;
                    (v.clone(), Some(stored.clone()))
                }
                None => {
                    let Some(found) = self.breaking_state()? else {
                        return Ok(None);
                    };
                    match found {
                        Found::State(st) => (
                            Violatability::Violatable {
                                witness: facts.witness(&st.model, self.formula),
                            },
                            Some(ViolStored::Violatable(values_of(&st.model))),
                        ),
                        Found::Unsat(core) => {
                            let because = facts.ids(&core);
                            (
                                Violatability::ImpliedByDomain {
                                    because: because.clone(),
                                },
                                Some(ViolStored::Implied(because)),
                            )
                        }
                        Found::Unknown(reason) => (Violatability::Unknown { reason }, None),
                    }
                }
            },
        };
        if let (Some(h), Some(stored)) = (self.hashes, viol_stored) {
            let key = match &self.reuse.viol {
                Some((_, (key, _))) if self.broken_state.is_none() => *key,
                _ => h.domain_key(facts, "viol", &self.breaking),
            };
            self.record.viol = Some((key, stored));
        }
        Ok(Some(violatability))
    }

    /// A state of the domain that violates the requirement: a state of M where the
    /// trigger holds, with the response broken, when there is one; else a check.
    fn breaking_state(&mut self) -> Step<Found> {
        let i = self.i;
        let flipped = self
            .vm_graft
            .as_ref()
            .and_then(|g| self.f.as_deref().and_then(|w| w.flip_to_break(g, i)));
        Ok(Some(match flipped {
            Some(m) => Found::State(State {
                model: m,
                graft: Graft {
                    base: None,
                    delta: Vec::new(),
                },
            }),
            None => match self.f.as_deref_mut() {
                Some(w) => w.domain_state(&self.breaking)?,
                None => return Ok(None),
            },
        }))
    }
}
