//! Equivalence classes of candidate formulas (VeriMed section 2.1 "Ambiguity
//! detection", SIRNA section III-B).
//!
//! Two candidates `a` and `b` *agree* when both `C ∧ a ∧ ¬b` and `C ∧ b ∧ ¬a` are
//! unsatisfiable, `C` being the domain constraints. Candidates are partitioned into
//! classes of agreement, each new candidate compared with the representative (first
//! member) of every class so far only. For every pair of classes a distinguishing
//! witness is computed in each direction that has one, restricted to the variables of
//! the two representatives; boundary values are tried first: a state where a compared
//! variable equals a constant it is compared with (Fig. 2's 33 °C and 40 °C), and any
//! model only when no boundary state separates the two.
//!
//! Metrics: number of classes, pairwise agreement (share of candidate pairs in the same
//! class), semantic entropy over class sizes (bits) and confidence `|C_max| / |T|`.
//!
//! Every answer comes from the solver through `solver`, so models are validated; a
//! comparison the solver cannot decide puts the candidate in a class of its own and is
//! listed as undecided.

use crate::audit::{Assignment, Witness};
use crate::spec::{shape_of, Shape, Spec};
use logic::{Context, Model, Op, Sort, Symbol, Term};
use serde::Serialize;
use solver::{Outcome, Solver, SolverConfig, SolverError};

/// Where the candidates live: declarations and the domain constraints.
#[derive(Debug, Clone)]
pub struct Universe {
    /// The SMT-LIB logic.
    pub logic: String,
    /// Enumerations, declared first.
    pub enums: Vec<(Symbol, Vec<Symbol>)>,
    /// Variables: name, sort and unit (for witnesses).
    pub variables: Vec<(Symbol, Sort, Option<String>)>,
    /// Domain constraints, by id.
    pub domain: Vec<(String, Term)>,
    /// The elaboration context of the variables.
    pub context: Context,
}

impl Universe {
    /// The schema and domain constraints of a spec.
    pub fn of_spec(spec: &Spec) -> Universe {
        Universe {
            logic: spec.logic.clone(),
            enums: spec.enums.clone(),
            variables: spec
                .variables
                .iter()
                .map(|v| (v.name.clone(), v.sort.clone(), v.unit.clone()))
                .collect(),
            domain: spec
                .domain
                .iter()
                .map(|d| (d.id.clone(), d.formula.clone()))
                .collect(),
            context: spec.context.clone(),
        }
    }

    fn unit(&self, name: &str) -> Option<String> {
        self.variables
            .iter()
            .find(|(n, _, _)| &**n == name)
            .and_then(|(_, _, u)| u.clone())
    }
}

/// Why a partition could not be computed.
#[derive(Debug, thiserror::Error)]
pub enum EquivError {
    /// The solver failed.
    #[error(transparent)]
    Solver(#[from] SolverError),
    /// The domain constraints alone are unsatisfiable: every candidate would agree.
    #[error("the domain constraints are unsatisfiable, so every formula agrees with every other")]
    DomainInconsistent,
    /// The solver could not decide whether the domain constraints are satisfiable.
    #[error("the solver could not decide the domain constraints: {0}")]
    DomainUnknown(solver::Reason),
}

/// One class of agreeing candidates.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Class {
    /// Its label: `A`, `B`, ... in order of first appearance.
    pub label: String,
    /// Indices of the candidates in it, ascending.
    pub members: Vec<usize>,
    /// The representative (its first member).
    pub representative: usize,
    /// The representative, printed.
    pub formula: String,
}

/// A state that one reading allows and the other rules out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Distinction {
    /// The state, restricted to the variables of the two representatives.
    pub witness: Witness,
    /// The boundary the state was pinned to (`dialysate_temp = 33`), if one separated them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub boundary: Option<String>,
    /// The difference in words.
    pub explanation: String,
}

/// How two classes differ.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Separation {
    /// Index of the first class.
    pub a: usize,
    /// Index of the second class.
    pub b: usize,
    /// A state allowed by `a` and ruled out by `b`, if there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub only_a: Option<Distinction>,
    /// A state allowed by `b` and ruled out by `a`, if there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub only_b: Option<Distinction>,
}

/// Agreement metrics over a candidate set.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Metrics {
    /// Number of candidates.
    pub candidates: usize,
    /// Number of classes.
    pub classes: usize,
    /// Agreeing pairs over all pairs (1 with fewer than two candidates).
    pub agreeing_pairs: usize,
    /// All pairs, `n (n - 1) / 2`.
    pub pairs: usize,
    /// `agreeing_pairs / pairs`.
    pub pairwise_agreement: f64,
    /// Semantic entropy over class sizes, in bits.
    pub entropy: f64,
    /// `|C_max| / |T|` (0 without candidates).
    pub confidence: f64,
}

impl Metrics {
    /// Metrics for the given class sizes.
    pub fn from_sizes(sizes: &[usize]) -> Metrics {
        let n: usize = sizes.iter().sum();
        let pairs = n * n.saturating_sub(1) / 2;
        let agreeing: usize = sizes.iter().map(|s| s * s.saturating_sub(1) / 2).sum();
        let entropy = sizes
            .iter()
            .filter(|s| **s > 0)
            .map(|s| {
                let p = *s as f64 / n as f64;
                -p * p.log2()
            })
            .sum::<f64>()
            .abs();
        Metrics {
            candidates: n,
            classes: sizes.iter().filter(|s| **s > 0).count(),
            agreeing_pairs: agreeing,
            pairs,
            pairwise_agreement: if pairs == 0 {
                1.0
            } else {
                agreeing as f64 / pairs as f64
            },
            entropy,
            confidence: if n == 0 {
                0.0
            } else {
                *sizes.iter().max().unwrap_or(&0) as f64 / n as f64
            },
        }
    }
}

/// The partition of a candidate set.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Partition {
    /// The classes, in order of first appearance.
    pub classes: Vec<Class>,
    /// The class of each candidate.
    pub class_of: Vec<usize>,
    /// For every pair of classes, how they differ.
    pub separations: Vec<Separation>,
    /// Candidate pairs `(i, j)` the solver could not compare (kept apart).
    pub undecided: Vec<(usize, usize)>,
    /// The metrics.
    pub metrics: Metrics,
    /// Solver queries issued.
    pub queries: usize,
}

impl Partition {
    /// The largest class (the first of the largest on ties).
    pub fn largest(&self) -> Option<&Class> {
        let max = self.classes.iter().map(|c| c.members.len()).max()?;
        self.classes.iter().find(|c| c.members.len() == max)
    }
}

/// The label of class `i`: `A`..`Z`, then `C27`, ...
pub fn label(i: usize) -> String {
    if i < 26 {
        char::from(b'A' + i as u8).to_string()
    } else {
        format!("C{}", i + 1)
    }
}

/// A solver session with a universe loaded, for comparing candidates.
pub struct Checker<'u> {
    solver: Solver,
    universe: &'u Universe,
    /// Queries issued so far.
    pub queries: usize,
}

impl<'u> Checker<'u> {
    /// Starts a solver, declares the universe and asserts its domain constraints.
    pub fn new(universe: &'u Universe, config: &SolverConfig) -> Result<Checker<'u>, EquivError> {
        let mut solver = Solver::start(config)?;
        solver.command(&logic::Command::SetLogic(universe.logic.clone()))?;
        for (name, values) in &universe.enums {
            solver.command(&logic::Command::DeclareEnum(name.clone(), values.clone()))?;
        }
        for (name, sort, _) in &universe.variables {
            solver.declare_const(name, sort.clone())?;
        }
        for (_, d) in &universe.domain {
            solver.assert(d)?;
        }
        let mut c = Checker {
            solver,
            universe,
            queries: 0,
        };
        match c.sat(&[])? {
            Outcome::Sat(_) => Ok(c),
            Outcome::Unsat(_) => Err(EquivError::DomainInconsistent),
            Outcome::Unknown(r) => Err(EquivError::DomainUnknown(r)),
        }
    }

    fn sat(&mut self, extra: &[Term]) -> Result<Outcome, SolverError> {
        self.queries += 1;
        self.solver.push()?;
        for t in extra {
            if let Err(e) = self.solver.assert(t) {
                self.solver.pop()?;
                return Err(e);
            }
        }
        let r = self.solver.check();
        self.solver.pop()?;
        r
    }

    /// Is `C ∧ t` satisfiable? `None` when the solver cannot tell.
    pub fn satisfiable(&mut self, t: &Term) -> Result<Option<bool>, SolverError> {
        Ok(match self.sat(std::slice::from_ref(t))? {
            Outcome::Sat(_) => Some(true),
            Outcome::Unsat(_) => Some(false),
            Outcome::Unknown(_) => None,
        })
    }

    /// A state of the domain satisfying every term: `Some(Some(model))`, `Some(None)`
    /// when there is none, `None` when the solver cannot tell.
    pub fn model_of(&mut self, ts: &[Term]) -> Result<Option<Option<Model>>, SolverError> {
        Ok(match self.sat(ts)? {
            Outcome::Sat(m) => Some(Some(m)),
            Outcome::Unsat(_) => Some(None),
            Outcome::Unknown(_) => None,
        })
    }

    /// Do `a` and `b` agree under the domain? `None` when the solver cannot tell.
    pub fn equivalent(&mut self, a: &Term, b: &Term) -> Result<Option<bool>, SolverError> {
        let mut unknown = false;
        for (x, y) in [(a, b), (b, a)] {
            match self.sat(&[x.clone(), Term::not(y.clone())])? {
                Outcome::Sat(_) => return Ok(Some(false)),
                Outcome::Unsat(_) => {}
                Outcome::Unknown(_) => unknown = true,
            }
        }
        Ok(if unknown { None } else { Some(true) })
    }

    /// A state allowed by `a` and ruled out by `b`, boundary values first.
    pub fn distinguish(
        &mut self,
        a: &Term,
        b: &Term,
        labels: (&str, &str),
    ) -> Result<Option<Distinction>, SolverError> {
        let base = [a.clone(), Term::not(b.clone())];
        let mut found: Option<(Model, Option<String>)> = None;
        for (var, value) in boundaries(&[a, b]).into_iter().take(16) {
            let pin = Term::app(Op::Eq, vec![var.clone(), value.clone()]);
            let mut q = base.to_vec();
            q.push(pin);
            if let Outcome::Sat(m) = self.sat(&q)? {
                found = Some((m, Some(format!("{} = {}", print_name(&var), show(&value)))));
                break;
            }
        }
        if found.is_none() {
            if let Outcome::Sat(m) = self.sat(&base)? {
                found = Some((m, None));
            }
        }
        let Some((model, boundary)) = found else {
            return Ok(None);
        };
        let witness = self.witness(&model, &[a, b], boundary.as_deref());
        let explanation = explain(
            &witness,
            a,
            b,
            labels,
            &model,
            &self.universe.context,
            boundary.as_deref(),
        );
        Ok(Some(Distinction {
            witness,
            boundary,
            explanation,
        }))
    }

    fn witness(&self, model: &Model, terms: &[&Term], first: Option<&str>) -> Witness {
        let mut names: Vec<Symbol> = Vec::new();
        for t in terms {
            for (n, _) in t.free_vars() {
                if !names.contains(&n) {
                    names.push(n);
                }
            }
        }
        let pinned = first.and_then(|b| b.split(" = ").next()).unwrap_or("");
        let mut out: Witness = self
            .universe
            .variables
            .iter()
            .filter(|(n, _, _)| names.contains(n))
            .filter_map(|(n, _, unit)| {
                model.get(n).map(|v| Assignment {
                    variable: n.to_string(),
                    value: show(&v.to_term()),
                    unit: unit.clone(),
                })
            })
            .collect();
        // The pinned boundary variable first: it is the point of the witness.
        out.sort_by_key(|a| a.variable != pinned);
        out
    }

    /// Partitions `candidates` into classes of agreement and separates every pair of
    /// classes.
    pub fn partition(&mut self, candidates: &[Term]) -> Result<Partition, SolverError> {
        let start = self.queries;
        let mut reps: Vec<usize> = Vec::new();
        let mut members: Vec<Vec<usize>> = Vec::new();
        let mut class_of = Vec::with_capacity(candidates.len());
        let mut undecided = Vec::new();
        for (i, c) in candidates.iter().enumerate() {
            let mut home = None;
            for (k, &r) in reps.iter().enumerate() {
                match self.equivalent(&candidates[r], c)? {
                    Some(true) => {
                        home = Some(k);
                        break;
                    }
                    Some(false) => {}
                    None => undecided.push((r, i)),
                }
            }
            let k = match home {
                Some(k) => k,
                None => {
                    reps.push(i);
                    members.push(Vec::new());
                    reps.len() - 1
                }
            };
            members[k].push(i);
            class_of.push(k);
        }
        let classes: Vec<Class> = reps
            .iter()
            .zip(&members)
            .enumerate()
            .map(|(k, (&r, m))| Class {
                label: label(k),
                members: m.clone(),
                representative: r,
                formula: logic::print::term(&candidates[r]),
            })
            .collect();
        let mut separations = Vec::new();
        for a in 0..classes.len() {
            for b in a + 1..classes.len() {
                let (ta, tb) = (&candidates[reps[a]], &candidates[reps[b]]);
                let (la, lb) = (label(a), label(b));
                let only_a = self.distinguish(ta, tb, (&la, &lb))?;
                let only_b = self.distinguish(tb, ta, (&lb, &la))?;
                separations.push(Separation {
                    a,
                    b,
                    only_a,
                    only_b,
                });
            }
        }
        let sizes: Vec<usize> = members.iter().map(Vec::len).collect();
        Ok(Partition {
            classes,
            class_of,
            separations,
            undecided,
            metrics: Metrics::from_sizes(&sizes),
            queries: self.queries - start,
        })
    }
}

/// Partitions candidates over a universe with a fresh solver.
pub fn partition(
    universe: &Universe,
    candidates: &[Term],
    config: &SolverConfig,
) -> Result<Partition, EquivError> {
    let mut c = Checker::new(universe, config)?;
    Ok(c.partition(candidates)?)
}

fn print_name(t: &Term) -> String {
    match t {
        Term::Var(n, _) => n.to_string(),
        other => logic::print::term(other),
    }
}

fn show(lit: &Term) -> String {
    match lit {
        Term::Int(i) => i.to_string(),
        Term::Real(r) if r.is_integer() => r.to_integer().to_string(),
        Term::Real(r) => logic::Value::Real(r.clone()).to_string(),
        other => logic::print::term(other),
    }
}

/// Variable/constant pairs compared directly in the terms, first seen first.
fn boundaries(terms: &[&Term]) -> Vec<(Term, Term)> {
    fn walk(t: &Term, out: &mut Vec<(Term, Term)>) {
        match t {
            Term::App(op, args) => {
                let cmp = matches!(op, Op::Le | Op::Lt | Op::Ge | Op::Gt | Op::Eq);
                if cmp && args.len() == 2 {
                    let pair = match (&args[0], &args[1]) {
                        (v @ Term::Var(_, s), c) | (c, v @ Term::Var(_, s))
                            if s.is_numeric() && numeral(c) =>
                        {
                            Some((v.clone(), c.clone()))
                        }
                        _ => None,
                    };
                    if let Some(p) = pair {
                        if !out.contains(&p) {
                            out.push(p);
                        }
                    }
                }
                args.iter().for_each(|a| walk(a, out));
            }
            Term::Let(b, body) => {
                b.iter().for_each(|(_, t)| walk(t, out));
                walk(body, out);
            }
            Term::Named(t, _) => walk(t, out),
            Term::Call(_, args, _) => args.iter().for_each(|a| walk(a, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for t in terms {
        walk(t, &mut out);
    }
    out
}

fn numeral(t: &Term) -> bool {
    match t {
        Term::Int(_) | Term::Real(_) => true,
        Term::App(Op::Neg, a) => a.len() == 1 && numeral(&a[0]),
        _ => false,
    }
}

fn state_words(w: &Witness) -> String {
    if w.is_empty() {
        return "in any state".into();
    }
    let parts: Vec<String> = w
        .iter()
        .map(|a| match &a.unit {
            Some(u) => format!("{} = {} {u}", a.variable, a.value),
            None => format!("{} = {}", a.variable, a.value),
        })
        .collect();
    format!("at {}", parts.join(", "))
}

fn explain(
    w: &Witness,
    a: &Term,
    b: &Term,
    (la, lb): (&str, &str),
    model: &Model,
    ctx: &Context,
    _boundary: Option<&str>,
) -> String {
    let at = state_words(w);
    let trig = |t: &Term| match shape_of(t) {
        Shape::Conditional { trigger, .. } => logic::eval_bool(&trigger, model, ctx).ok(),
        Shape::Invariant => None,
    };
    let demand = match shape_of(b) {
        Shape::Conditional { response, .. } => logic::print::term(&response),
        Shape::Invariant => logic::print::term(b),
    };
    match (trig(a), trig(b)) {
        (Some(false), Some(true)) => {
            format!("{at} reading {lb} requires {demand} and reading {la} does not")
        }
        (Some(true), Some(true)) => format!(
            "{at} both readings apply: reading {lb} requires {demand}, which reading {la} does not"
        ),
        _ => format!("{at} reading {la} holds and reading {lb} is violated"),
    }
}

impl Universe {
    /// The unit of a variable, for reports.
    pub fn unit_of(&self, name: &str) -> Option<String> {
        self.unit(name)
    }
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct CandidatesFile {
    requirements: Vec<CandidateSet>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct CandidateSet {
    id: String,
    candidates: Vec<String>,
}

/// Reads a candidates file: TOML with one `[[requirements]]` table per set, each with
/// an `id` and a list of `candidates` (SMT-LIB terms as strings).
pub fn load_candidates(
    text: &str,
    name: &str,
) -> Result<Vec<(String, Vec<String>)>, logic::Diagnostics> {
    let file = logic::SourceFile::new(name, text);
    crate::spec::read_toml::<CandidatesFile>(&file, None).map(|f| {
        f.requirements
            .into_iter()
            .map(|s| (s.id, s.candidates))
            .collect()
    })
}

/// Why `vera equiv`'s candidate sets could not be partitioned.
#[derive(Debug, thiserror::Error)]
pub enum SetsError {
    /// The options do not say what to compare.
    #[error("{0}")]
    Usage(&'static str),
    /// The candidates file could not be read.
    #[error(transparent)]
    Read(#[from] safefile::SafeFileError),
    /// The candidates file is not one.
    #[error("{0}")]
    File(logic::Diagnostics),
    /// A candidate that is not a formula over the spec.
    #[error("{0}")]
    Formula(logic::Diagnostics),
    /// The checker could not start.
    #[error(transparent)]
    Equiv(#[from] EquivError),
    /// The solver failed.
    #[error(transparent)]
    Solver(#[from] SolverError),
}

/// The candidate sets of `vera equiv`: those of the candidates file `file`, or the
/// terms given on the command line as one set; both or neither is an error.
pub fn candidate_sets(
    file: Option<&std::path::Path>,
    terms: &[String],
) -> Result<Vec<(String, Vec<String>)>, SetsError> {
    match file {
        Some(_) if !terms.is_empty() => Err(SetsError::Usage(
            "give candidate terms on the command line or --candidates, not both",
        )),
        Some(f) => load_candidates(&safefile::read_text(f)?, &f.display().to_string())
            .map_err(SetsError::File),
        None if terms.is_empty() => Err(SetsError::Usage(
            "give at least one candidate TERM, or --candidates FILE",
        )),
        None => Ok(vec![("command line".into(), terms.to_vec())]),
    }
}

/// Each set of candidate texts parsed over `spec` (the `i`th of set `id` named
/// `id #i`) and partitioned by equivalence under the spec's domain, on one solver
/// session; with the number of solver queries.
pub fn partition_sets(
    spec: &crate::Spec,
    sets: &[(String, Vec<String>)],
    config: &SolverConfig,
) -> Result<(Vec<(String, Partition)>, usize), SetsError> {
    let universe = Universe::of_spec(spec);
    let mut checker = Checker::new(&universe, config)?;
    let mut results = Vec::new();
    for (id, texts) in sets {
        let terms = texts
            .iter()
            .enumerate()
            .map(|(i, t)| spec.parse_formula(&format!("{id} #{}", i + 1), t))
            .collect::<Result<Vec<_>, _>>()
            .map_err(SetsError::Formula)?;
        results.push((id.clone(), checker.partition(&terms)?));
    }
    Ok((results, checker.queries))
}
