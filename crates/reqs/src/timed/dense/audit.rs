//! The peer's audits in dense time.
//!
//! - *Consistency*: some first interval satisfies every requirement. When the
//!   invariants alone (the automata with a single location) contradict each other, the
//!   spec is inconsistent and, as for the peer, nothing else is checked.
//! - *Vacuity* of each automaton: no reachable point has the automaton in a location
//!   where the highest phase that occurs in it is active (the requirement never gets to
//!   apply). A requirement is vacuous when one of its automata is.
//! - *rt-inconsistency* of each set of `range` automata that are not invariants (the
//!   peer's default: pairs; with every invariant added): a reachable point of the whole
//!   product after which these automata have no joint next step, for the next state
//!   nor for any clock value a little (the peer's ε: half the greatest common divisor
//!   of the durations) later.
//!
//! Each question is "is a point of this kind reachable?": bounded model checking looks
//! for a run of up to `bmc_depth` intervals; the questions it does not answer go to
//! z3's fixedpoint engine, whose invariant vera re-checks. A verdict says which:
//! shown by a run, proved for every run, or only checked up to `n` intervals.

use super::bdd::{Atom, Bdd, Ref, FALSE, TRUE};
use super::system::{Automaton, Bmc, Proof, System};
use super::{catalog, pea, DensePattern, DenseScope};
use crate::audit::{Assignment, Witness};
use crate::spec::Spec;
use crate::timed::unroll::var_at;
use crate::timed::TimeBase;
use logic::{Model, Op, Sort, Term, Value};
use num_rational::BigRational;
use num_traits::Zero;
use rustc_hash::FxHashMap as HashMap;
use serde::Serialize;
use solver::{Outcome, Solver, SolverConfig, SolverError};

mod env;
mod local;
mod minimal;
pub use env::DenseEnvironment;

/// Options of [`audit_dense`].
#[derive(Debug, Clone)]
pub struct DenseOptions {
    /// The solver (z3: the proofs need its fixedpoint engine).
    pub solver: SolverConfig,
    /// Runs of up to this many intervals are searched first (default: from the
    /// automata's sizes).
    pub bmc_depth: Option<usize>,
    /// Prove the questions no run answers, for runs of any length.
    pub prove: bool,
    /// How many automata an rt-inconsistency check takes together (the peer's 2; 0:
    /// rt-inconsistency is not checked).
    pub rt_range: usize,
    /// Solver sessions at once for the search and the proofs (0: one per core). The
    /// verdicts do not depend on it; the runs shown may.
    pub jobs: usize,
    /// Check each requirement's redundancy (whether the others imply it).
    pub redundancy: bool,
    /// Where the audit tells how far it has got (stage by stage).
    pub progress: crate::progress::Progress,
    /// Products of this many automata or more are searched a part at a time first
    /// (a question's own automata and the invariants, grown by what forbids their
    /// runs); below, one query of the whole product is cheaper. The verdicts do not
    /// depend on it.
    pub parts_from: usize,
}

impl DenseOptions {
    /// The defaults: the peer's range 2, proofs on.
    pub fn new(solver: SolverConfig) -> DenseOptions {
        DenseOptions {
            solver,
            bmc_depth: None,
            prove: true,
            rt_range: 2,
            jobs: 0,
            redundancy: true,
            progress: Default::default(),
            parts_from: PARTS_FROM,
        }
    }
}

/// An interval of a run over which the state does not change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DenseInterval {
    /// Where it starts (time since the start of the run).
    pub from: String,
    /// Where it ends.
    pub to: String,
    /// The state.
    pub values: Witness,
}

/// A run as intervals of real length.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct DenseTrace {
    /// The intervals, in order.
    pub rows: Vec<DenseInterval>,
    /// For a conflict the environment forces: what it chooses for the next interval's
    /// inputs (`a=false`, or a condition such as `(> temp 100)`); an input not named
    /// may take any value.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub next_inputs: Vec<String>,
}

/// The answer to "is such a point reachable?".
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Reach {
    /// Yes: a run of `intervals` intervals ends there.
    Reachable {
        /// The number of intervals of the run.
        intervals: usize,
        /// The run.
        trace: DenseTrace,
    },
    /// No.
    Unreachable {
        /// True when proved for runs of any length; false when only runs of up to
        /// `up_to` intervals were searched.
        proved: bool,
        /// The longest runs searched.
        up_to: usize,
    },
    /// Not decided.
    Unknown {
        /// Why.
        #[serde(flatten)]
        reason: solver::Undecided,
        /// Runs of up to this many intervals have none.
        up_to: usize,
    },
}

/// Consistency.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum DenseConsistency {
    /// A first interval satisfies every requirement.
    Consistent {
        /// It.
        witness: DenseTrace,
    },
    /// No run at all.
    Inconsistent {
        /// The requirements whose invariants contradict each other (empty when the
        /// contradiction is not among invariants alone).
        because: Vec<String>,
    },
    /// No answer.
    Unknown {
        /// Why.
        #[serde(flatten)]
        reason: solver::Undecided,
    },
}

/// The vacuity of one requirement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum DenseVacuity {
    /// It applies on some run.
    NotVacuous {
        /// A run after which it applies.
        trace: DenseTrace,
    },
    /// It never applies.
    Vacuous {
        /// Proved for every run (else only for runs of up to `up_to` intervals).
        proved: bool,
        /// The longest runs searched.
        up_to: usize,
    },
    /// Not checked: every location of its automata shows it applies (an invariant).
    NotChecked {
        /// Why.
        reason: String,
    },
    /// No answer.
    Unknown {
        /// Why.
        #[serde(flatten)]
        reason: solver::Undecided,
    },
}

/// The redundancy of one requirement: do the other requirements imply it?
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum DenseRedundancy {
    /// A run the other requirements allow breaks it.
    NotRedundant {
        /// The run; the requirement is broken in its last interval.
        trace: DenseTrace,
    },
    /// No run the other requirements allow breaks it.
    Redundant {
        /// Proved for every run (else only for runs of up to `up_to` intervals).
        proved: bool,
        /// The longest runs searched.
        up_to: usize,
        /// The requirements it was shown against: when proved, cut down to a set
        /// the proof still holds with (see `minimal`); else all the others.
        by: Vec<String>,
        /// No requirement of `by` can be dropped (the fixedpoint engine answered
        /// every proof the cut asked); false when some may be superfluous.
        minimal: bool,
    },
    /// Not checked.
    NotChecked {
        /// Why.
        reason: String,
    },
    /// No answer.
    Unknown {
        /// Why.
        #[serde(flatten)]
        reason: solver::Undecided,
    },
}

impl DenseRedundancy {
    /// Not decided: no answer, or redundant only for runs up to a length.
    pub fn undecided(&self) -> bool {
        matches!(
            self,
            DenseRedundancy::Unknown { .. } | DenseRedundancy::Redundant { proved: false, .. }
        )
    }
}

/// One requirement's audit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DenseRequirementAudit {
    /// Id.
    pub id: String,
    /// Line in the spec.
    pub line: usize,
    /// The pattern as a sentence.
    pub pattern: String,
    /// Its countertraces.
    pub countertraces: Vec<String>,
    /// Vacuity.
    pub vacuity: DenseVacuity,
    /// Redundancy.
    pub redundancy: DenseRedundancy,
}

/// One rt-inconsistency check: a set of automata (and every invariant).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RtCheck {
    /// The requirements of the automata.
    pub requirements: Vec<String>,
    /// The automata (`id` and countertrace number).
    pub automata: Vec<String>,
    /// `Reachable`: rt-inconsistent (the run leads to the dead end).
    pub dead_end: Reach,
    /// When a dead end was found: true when the run shown ends where the set has a next
    /// step now but none ε later (the peer's check; no run of as many intervals ends
    /// where it has none at all).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub epsilon_only: bool,
}

/// The dense-time audit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DenseReport {
    /// The reading used.
    pub semantics: &'static str,
    /// The tick (the unit of the durations).
    pub tick: String,
    /// The peer's ε, as time.
    pub epsilon: String,
    /// The automata: requirement, countertrace, locations, clocks, invariant or not.
    pub automata: Vec<AutomatonSummary>,
    /// Consistency.
    pub consistency: DenseConsistency,
    /// Per requirement.
    pub requirements: Vec<DenseRequirementAudit>,
    /// Every rt-inconsistency check that is not trivially passed.
    pub rt_checks: Vec<RtCheck>,
    /// How many sets were trivially free of dead ends (no clock or state of their
    /// locations lacks a next step).
    pub rt_trivial: usize,
    /// True when rt-inconsistency was not checked (asked so: `rt_range` 0).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub rt_skipped: bool,
    /// Conflicts the environment can force (with `role = "input"` variables).
    pub environment: DenseEnvironment,
    /// The number of results the peer reports for this spec (one per check).
    pub results: usize,
    /// Requirements without a pattern or formula.
    pub not_formalized: Vec<String>,
}

impl DenseReport {
    /// The rt-inconsistent sets of requirements.
    pub fn rt_inconsistent(&self) -> Vec<Vec<String>> {
        self.rt_checks
            .iter()
            .filter(|c| matches!(c.dead_end, Reach::Reachable { .. }))
            .map(|c| c.requirements.clone())
            .collect()
    }

    /// True when anything is wrong or undecided.
    pub fn has_findings(&self) -> bool {
        !matches!(self.consistency, DenseConsistency::Consistent { .. })
            || self.requirements.iter().any(|r| {
                matches!(
                    r.vacuity,
                    DenseVacuity::Vacuous { .. } | DenseVacuity::Unknown { .. }
                ) || matches!(
                    r.redundancy,
                    DenseRedundancy::Redundant { .. } | DenseRedundancy::Unknown { .. }
                )
            })
            || self
                .rt_checks
                .iter()
                .any(|c| !matches!(c.dead_end, Reach::Unreachable { proved: true, .. }))
            || !self.environment.conflicts().is_empty()
            || !self.environment.open().is_empty()
    }
}

/// An automaton in the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AutomatonSummary {
    /// `id` or `id (countertrace n)`.
    pub name: String,
    /// Locations.
    pub locations: usize,
    /// Clocks.
    pub clocks: usize,
    /// A single location: an invariant.
    pub invariant: bool,
}

/// Why a dense audit could not run.
#[derive(Debug, thiserror::Error)]
pub enum DenseError {
    /// The spec has no `[time]` table.
    #[error("the spec has no [time] table")]
    NotTimed,
    /// The solver failed.
    #[error(transparent)]
    Solver(#[from] SolverError),
    /// A witness run that the evaluator of the countertraces does not confirm.
    #[error("a witness run failed its re-check: {0}")]
    Witness(String),
}

/// The dense pattern of every formalized requirement: its own, or "always F" for a
/// plain formula `F`.
pub fn patterns(spec: &Spec) -> Vec<Option<DensePattern>> {
    spec.requirements
        .iter()
        .map(|r| match (&r.dense, &r.formula) {
            (Some(p), _) => Some(p.clone()),
            (None, Some(f)) => Some(DensePattern {
                kind: super::Kind::Universality,
                scope: DenseScope::Globally,
                formulas: vec![f.clone()],
                durations: vec![],
            }),
            _ => None,
        })
        .collect()
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The product of a spec's automata.
pub fn system(spec: &Spec) -> System {
    let mut bdd = Bdd::new();
    let mut automata = Vec::new();
    let mut g = 0u64;
    for (i, p) in patterns(spec).into_iter().enumerate() {
        let Some(p) = p else { continue };
        for d in &p.durations {
            g = gcd(g, *d);
        }
        let scope = p.scope.map(|t| bdd.of_term(t));
        let f: Vec<Ref> = p.formulas.iter().map(|t| bdd.of_term(t)).collect();
        let cts = catalog::countertraces(&mut bdd, p.kind, &scope, &f, &p.durations);
        for (c, ct) in cts.into_iter().enumerate() {
            let a = automata.len();
            let pea = pea::compile(ct, &mut bdd, a);
            automata.push(Automaton {
                req: i,
                id: spec.requirements[i].id.clone(),
                ct: c,
                pea,
            });
        }
    }
    // `x@prev` is the previous value of `x` when `x` is declared with its sort.
    let history: Vec<(logic::Symbol, logic::Symbol, Sort)> = spec
        .variables
        .iter()
        .filter_map(|v| {
            let base = v.name.strip_suffix("@prev")?;
            spec.variables
                .iter()
                .find(|w| &*w.name == base && w.sort == v.sort)
                .map(|w| (v.name.clone(), w.name.clone(), v.sort.clone()))
        })
        .collect();
    let state: Vec<(logic::Symbol, Sort)> = spec
        .variables
        .iter()
        .filter(|v| !history.iter().any(|(h, _, _)| *h == v.name))
        .map(|v| (v.name.clone(), v.sort.clone()))
        .collect();
    let logic = if spec.enums.is_empty() {
        "QF_LIRA".to_string()
    } else {
        "ALL".to_string()
    };
    System {
        state,
        enums: spec.enums.clone(),
        automata,
        bdd: std::sync::Arc::new(bdd),
        epsilon: BigRational::new(g.into(), 2.into()),
        domain: spec.domain.iter().map(|d| d.formula.clone()).collect(),
        logic,
        history,
        only: None,
        violable: Vec::new(),
        guarded: false,
    }
}

/// The countertrace of an automaton, printed as the peer writes it.
pub fn countertrace_text(sys: &System, a: usize, tb: &TimeBase) -> String {
    let pea = &sys.automata[a].pea;
    let parts: Vec<String> = pea
        .phases
        .iter()
        .map(|ph| {
            let inv = logic::print::term(&sys.bdd.to_term(ph.inv, &|atom| match atom {
                Atom::Data { term, .. } => term.clone(),
                Atom::Clock { .. } => Term::Bool(true),
            }));
            let base = if ph.inv == TRUE && ph.allow_empty {
                "true".to_string()
            } else {
                format!("⌈{inv}⌉")
            };
            let zero = if ph.allow_empty { "₀" } else { "" };
            match ph.bound {
                catalog::Bound::None => base,
                catalog::Bound::Lt(c) => format!("{base} ∧ ℓ <{zero} {}", tb.show(c)),
                catalog::Bound::Le(c) => format!("{base} ∧ ℓ ≤{zero} {}", tb.show(c)),
                catalog::Bound::Ge(c) => format!("{base} ∧ ℓ ≥{zero} {}", tb.show(c)),
                catalog::Bound::Gt(c) => format!("{base} ∧ ℓ >{zero} {}", tb.show(c)),
            }
        })
        .collect();
    parts.join(" ; ")
}

/// One reachability question: which points it asks about.
enum Question {
    /// Automaton `a` in one of the locations where its requirement applies.
    Vacuity { a: usize, locs: Vec<usize> },
    /// The set of automata without a joint next step.
    Rt { set: Vec<usize>, ndc: Ndc },
    /// A state formula (the trigger of an invariant).
    Holds { term: Term },
    /// Automaton `a` violated (in a violable system) while no automaton of another
    /// requirement is: a run the others allow breaks `a`'s requirement.
    Violated { a: usize },
}

impl Question {
    /// The automata the question is about.
    fn automata(&self) -> Vec<usize> {
        match self {
            Question::Vacuity { a, .. } => vec![*a],
            Question::Rt { set, .. } => set.clone(),
            Question::Holds { .. } => Vec::new(),
            Question::Violated { a } => vec![*a],
        }
    }

    /// The automaton a run answering the question must break (its requirement's
    /// other automata may break too); every other automaton must hold on it.
    fn breaks(&self) -> Option<usize> {
        match self {
            Question::Violated { a } => Some(*a),
            _ => None,
        }
    }

    fn bad(&self, sys: &System, k: usize) -> Term {
        self.bad_shifted(sys, k, true)
    }

    /// For a dead end, `shifted` false asks for no next step at all (no ε).
    fn bad_shifted(&self, sys: &System, k: usize, shifted: bool) -> Term {
        match self {
            Question::Vacuity { a, locs } => Term::App(
                Op::Or,
                locs.iter()
                    .map(|l| sys.at_loc(*a, *l, k))
                    .chain([Term::Bool(false)])
                    .collect(),
            ),
            Question::Rt { set, ndc } => ndc.bad(sys, set, k, shifted),
            Question::Holds { term } => sys.at(term, k),
            Question::Violated { a } => {
                let req = sys.automata[*a].req;
                let others = sys
                    .taken()
                    .filter(|(b, aut)| aut.req != req && sys.is_violable(*b))
                    .map(|(b, _)| Term::not(sys.at_loc(b, sys.violated(b), k)));
                let parts: Vec<Term> = std::iter::once(sys.at_loc(*a, sys.violated(*a), k))
                    .chain(others)
                    .collect();
                Term::App(Op::And, parts)
            }
        }
    }
}

/// One location vector of a set without a joint next step in some clock region: the
/// set's locations, the clock atoms `(automaton, phase)` and the cubes (one value per
/// atom) without a step, each with the condition on the current state under which it
/// has none (`None`: whatever the state) and, for the environment's dead ends, the
/// inputs that force it (see [`Judged::Stuck`]).
type Stuck = (
    Vec<usize>,
    Vec<(usize, usize)>,
    Vec<(Vec<bool>, Option<Ref>, Option<Ref>)>,
);

/// What a judge of next steps ([`ndc`]) makes of one location vector and clock cube
/// of a set.
enum Judged {
    /// A next step exists.
    Free,
    /// No next step: when `cond`, a diagram over the current state (the values a
    /// step's history variables refer to), holds (`None`: always); for the
    /// environment, when it chooses the next inputs as `choice` says.
    Stuck {
        cond: Option<Ref>,
        choice: Option<Ref>,
    },
    /// Not decided.
    Undecided(solver::Undecided),
}

/// For rt-inconsistency: per location vector of the set, the clock cubes after which
/// the set has no joint next step.
#[derive(PartialEq)]
struct Ndc {
    vectors: Vec<Stuck>,
}

impl Ndc {
    fn bad(&self, sys: &System, set: &[usize], k: usize, shifted: bool) -> Term {
        let mut alts = Vec::new();
        for (locs, atoms, cubes) in &self.vectors {
            let mut here: Vec<Term> = set
                .iter()
                .zip(locs)
                .map(|(a, l)| sys.at_loc(*a, *l, k))
                .collect();
            let stuck: Vec<Term> = cubes
                .iter()
                .map(|(cube, cond, _)| cube_term(sys, atoms, cube, *cond, k, shifted))
                .collect();
            here.push(Term::App(
                Op::Or,
                stuck.into_iter().chain([Term::Bool(false)]).collect(),
            ));
            alts.push(Term::App(
                Op::And,
                here.into_iter().chain([Term::Bool(true)]).collect(),
            ));
        }
        Term::App(
            Op::Or,
            alts.into_iter().chain([Term::Bool(false)]).collect(),
        )
    }
}

/// The conjunction of the invariants' state invariants over the next state.
fn primed_invariants(sys: &mut System, invariants: &[usize]) -> Ref {
    let mut f = TRUE;
    for a in invariants {
        let inv = sys.automata[*a].pea.locations[0].state_inv;
        let p = sys.bdd_mut().prime(inv);
        f = sys.bdd_mut().and(f, p);
    }
    f
}

/// The term of one clock cube of [`Ndc`] (with its condition) at check point `k`.
fn cube_term(
    sys: &System,
    atoms: &[(usize, usize)],
    cube: &[bool],
    cond: Option<Ref>,
    k: usize,
    shifted: bool,
) -> Term {
    let c: Vec<Term> = atoms
        .iter()
        .zip(cube)
        .map(|((a, p), v)| {
            let t = sys.clock_lt(*a, *p, k, shifted);
            if *v {
                t
            } else {
                Term::not(t)
            }
        })
        .chain(cond.map(|f| sys.term(0, f, k, shifted)))
        .collect();
    Term::App(Op::And, c.into_iter().chain([Term::Bool(true)]).collect())
}

impl Ndc {
    /// The environment's choice where run `m` ends (check point `k`): the inputs of
    /// the first stuck cube the run ends in.
    fn choice_at(
        &self,
        sys: &System,
        set: &[usize],
        m: &Model,
        ctx: &logic::Context,
        k: usize,
    ) -> Option<Choice> {
        let holds = |t: &Term| logic::eval::eval_bool(t, m, ctx) == Ok(true);
        for (locs, atoms, cubes) in &self.vectors {
            // An rt set's points have no choice: nothing to evaluate.
            if cubes.iter().all(|(_, _, choice)| choice.is_none())
                || !set
                    .iter()
                    .zip(locs)
                    .all(|(a, l)| holds(&sys.at_loc(*a, *l, k)))
            {
                continue;
            }
            for shifted in [false, true] {
                for (cube, cond, choice) in cubes {
                    if let Some(f) = choice {
                        if holds(&cube_term(sys, atoms, cube, *cond, k, shifted)) {
                            return choice_text(sys, *f, &holds, k);
                        }
                    }
                }
            }
        }
        None
    }
}

/// What the environment chooses for the next inputs: as text, and the Boolean inputs'
/// values; `data`: how many conditions on Int or Real inputs it has besides.
struct Choice {
    text: Vec<String>,
    bools: Vec<(logic::Symbol, bool)>,
    data: usize,
}

/// The next inputs a choice diagram `f` names, for a run whose state at check point
/// `k` satisfies `holds`: the first of its cubes that agrees with that state, its
/// atoms over the next inputs as text. Nothing when no cube agrees, or when the cube
/// has two conditions on Int or Real inputs (which may contradict each other).
fn choice_text(sys: &System, f: Ref, holds: &dyn Fn(&Term) -> bool, k: usize) -> Option<Choice> {
    if sys.bdd.support(f).len() > 16 {
        return None;
    }
    'cubes: for cube in sys.bdd.cubes(f) {
        let mut out = Vec::new();
        let mut bools = Vec::new();
        let mut data = 0;
        for (v, value) in cube {
            let Atom::Data { term, primed } = &sys.bdd.atoms()[v as usize] else {
                continue 'cubes;
            };
            let now = sys.at(term, if *primed { k + 1 } else { k });
            let at_k = now
                .free_vars()
                .iter()
                .all(|(n, _)| crate::timed::unroll::split_name(n).is_some_and(|(_, t)| t <= k));
            if at_k {
                let t = if value { now } else { Term::not(now) };
                if !holds(&t) {
                    continue 'cubes;
                }
            } else if let Term::Var(n, Sort::Bool) = term {
                out.push(format!("{n}={value}"));
                bools.push((n.clone(), value));
            } else {
                data += 1;
                out.push(match (term, value) {
                    (Term::App(Op::Eq, xs), true) if matches!(xs[..], [Term::Var(..), _]) => {
                        format!(
                            "{}={}",
                            logic::print::term(&xs[0]),
                            logic::print::term(&xs[1])
                        )
                    }
                    (t, true) => logic::print::term(t),
                    (t, false) => logic::print::term(&Term::not(t.clone())),
                });
            }
        }
        if data < 2 {
            out.sort();
            return Some(Choice {
                text: out,
                bools,
                data,
            });
        }
    }
    None
}

/// Decides whether a data diagram over the next state is satisfiable: false diagrams
/// are not, diagrams over Boolean variables only are; the rest are asked.
struct DataSat {
    solver: Solver,
    cache: HashMap<Ref, Option<bool>>,
    queries: usize,
}

impl DataSat {
    fn sat(&mut self, sys: &mut System, f: Ref) -> Result<Option<bool>, SolverError> {
        if f == FALSE {
            return Ok(Some(false));
        }
        if let Some(v) = self.cache.get(&f) {
            return Ok(*v);
        }
        // A Boolean variable no other atom mentions can take either value whatever
        // the rest is: quantified out, what is left is the part only a solver can
        // judge (usually small, and shared by many diagrams).
        let support = sys.bdd.support(f);
        let atoms = sys.bdd.atoms();
        let mentioned: rustc_hash::FxHashSet<(logic::Symbol, bool)> = support
            .iter()
            .filter_map(|v| match &atoms[*v as usize] {
                Atom::Data {
                    term: Term::Var(_, Sort::Bool),
                    ..
                } => None,
                Atom::Data { term, primed } => Some((term, *primed)),
                Atom::Clock { .. } => None,
            })
            .flat_map(|(t, p)| t.free_vars().into_iter().map(move |(n, _)| (n, p)))
            .collect();
        let free: Vec<u32> = support
            .iter()
            .copied()
            .filter(|v| match &atoms[*v as usize] {
                // A history variable (`x@prev`) is the same solver variable as its
                // own variable one point earlier: neither is quantified.
                Atom::Data {
                    term: Term::Var(n, Sort::Bool),
                    primed,
                } => {
                    !mentioned.contains(&(n.clone(), *primed))
                        && !sys.history.iter().any(|(h, x, _)| h == n || x == n)
                }
                _ => false,
            })
            .collect();
        let g = if free.is_empty() {
            f
        } else {
            sys.bdd_mut().exists(f, &free)
        };
        let v = if g == TRUE {
            Some(true)
        } else if let Some(v) = self.cache.get(&g) {
            *v
        } else {
            self.queries += 1;
            let t = sys.term(0, g, 0, false);
            // In a scope of its own (see `Bmc::check`).
            self.solver.push()?;
            let out = self.solver.check_assuming(&[t]);
            self.solver.pop()?;
            let v = match out? {
                Outcome::Sat(_) => Some(true),
                Outcome::Unsat(_) => Some(false),
                Outcome::Unknown(_) => None,
            };
            self.cache.insert(g, v);
            v
        };
        self.cache.insert(f, v);
        Ok(v)
    }
}

/// The points where the automata of `set` (with every invariant: `primed_inv`, their
/// state invariants over the next state) have no joint next step, in the peer's
/// reading: a next step is a transition of each automaton whose guard holds (its clock
/// constants lowered by ε) into a location whose state invariant holds of the next
/// state and whose clock bounds, for the clocks not reset, still hold strictly (again
/// lowered by ε). `Ok(None)`: there is always a next step (the check is trivial);
/// `Err`: a satisfiability question had no answer.
fn ndc(
    sys: &mut System,
    set: &[usize],
    primed_inv: Ref,
    data: &mut DataSat,
    steps: &mut Steps,
) -> Result<Result<Option<Ndc>, solver::Undecided>, SolverError> {
    stuck_points(sys, set, primed_inv, data, steps, &mut |sys, data, f| {
        Ok(match data.sat(sys, f)? {
            Some(true) => Judged::Free,
            Some(false) => Judged::Stuck {
                cond: None,
                choice: None,
            },
            None => Judged::Undecided(solver::Undecided::other(
                "whether the next state exists had no answer from the solver",
            )),
        })
    })
}

/// A judge of a set's joint next steps: given the diagram of the steps (the set's
/// steps from a location vector in one clock cube, and `primed_inv`), whether there is
/// none.
type Judge<'a> = dyn FnMut(&mut System, &mut DataSat, Ref) -> Result<Judged, SolverError> + 'a;

/// The points where the automata of `set` (with `primed_inv`) have no joint next step
/// by `judge`: per location vector, the clock cubes it finds stuck. `Ok(None)`: none.
fn stuck_points(
    sys: &mut System,
    set: &[usize],
    primed_inv: Ref,
    data: &mut DataSat,
    steps: &mut Steps,
    judge: &mut Judge,
) -> Result<Result<Option<Ndc>, solver::Undecided>, SolverError> {
    let mut vectors = Vec::new();
    let sizes: Vec<usize> = set
        .iter()
        .map(|a| sys.automata[*a].pea.locations.len())
        .collect();
    let mut locs = vec![0usize; set.len()];
    'vectors: loop {
        // The clock atoms of this vector: each automaton's own, in set order.
        let own: Vec<Vec<(usize, usize)>> = set
            .iter()
            .zip(&locs)
            .map(|(a, l)| steps.atoms(sys, *a, *l).to_vec())
            .collect();
        let mut atoms: Vec<(usize, usize)> = own.iter().flatten().copied().collect();
        atoms.sort_unstable();
        atoms.dedup();
        let mut stuck = Vec::new();
        for bits in 0u64..(1u64 << atoms.len()) {
            let value = |j: usize| bits & (1 << j) != 0;
            let mut f = primed_inv;
            for (i, a) in set.iter().enumerate() {
                let cube: Vec<bool> = own[i]
                    .iter()
                    .map(|x| atoms.iter().position(|y| y == x).is_some_and(value))
                    .collect();
                let d = steps.step(sys, *a, locs[i], &cube);
                f = sys.bdd_mut().and(f, d);
                if f == FALSE {
                    break;
                }
            }
            let cube = || (0..atoms.len()).map(value).collect::<Vec<bool>>();
            match judge(sys, data, f)? {
                Judged::Free => {}
                Judged::Stuck { cond, choice } => stuck.push((cube(), cond, choice)),
                Judged::Undecided(why) => return Ok(Err(why)),
            }
        }
        if !stuck.is_empty() {
            vectors.push((locs.clone(), atoms, stuck));
        }
        // The next vector.
        for i in (0..set.len()).rev() {
            locs[i] += 1;
            if locs[i] < sizes[i] {
                continue 'vectors;
            }
            locs[i] = 0;
        }
        break;
    }
    Ok(Ok(if vectors.is_empty() {
        None
    } else {
        Some(Ndc { vectors })
    }))
}

/// The next steps of one automaton, computed once and shared by every set it is in:
/// per location, the clock atoms its steps depend on, and per value of those atoms,
/// the diagram of its possible next steps (guard, with the clock atoms fixed, and the
/// destination's state invariant over the next state).
#[derive(Default)]
struct Steps {
    atoms: HashMap<(usize, usize), Vec<(usize, usize)>>,
    steps: HashMap<(usize, usize, Vec<bool>), Ref>,
}

impl Steps {
    /// The clock atoms `(automaton, phase)` the steps from location `l` of `a` depend
    /// on: those of its guards, and the destination's clock bounds of the clocks a step
    /// does not reset.
    fn atoms(&mut self, sys: &System, a: usize, l: usize) -> &[(usize, usize)] {
        self.atoms.entry((a, l)).or_insert_with(|| {
            let pea = &sys.automata[a].pea;
            let mut atoms = Vec::new();
            for t in &pea.locations[l].transitions {
                for v in sys.bdd.support(t.guard) {
                    if let Atom::Clock { aut, phase } = sys.bdd.atoms()[v as usize] {
                        atoms.push((aut, phase));
                    }
                }
                for (p, _) in &pea.locations[t.dest].clock_inv {
                    if !t.resets.contains(p) {
                        atoms.push((a, *p));
                    }
                }
            }
            atoms.sort_unstable();
            atoms.dedup();
            atoms
        })
    }

    /// The diagram of the steps from location `l` of `a` when its clock atoms (in the
    /// order of [`Steps::atoms`]) have the values `cube`.
    fn step(&mut self, sys: &mut System, a: usize, l: usize, cube: &[bool]) -> Ref {
        if let Some(d) = self.steps.get(&(a, l, cube.to_vec())) {
            return *d;
        }
        let atoms = self.atoms(sys, a, l).to_vec();
        let value = |x: &(usize, usize)| atoms.iter().position(|y| y == x).is_some_and(|j| cube[j]);
        let vars: Vec<(u32, bool)> = atoms
            .iter()
            .enumerate()
            .map(|(j, (aut, p))| {
                let c = sys.bdd_mut().clock_lt(*aut, *p);
                (sys.bdd.support(c)[0], cube[j])
            })
            .collect();
        let transitions = sys.automata[a].pea.locations[l].transitions.clone();
        let mut d = FALSE;
        for t in &transitions {
            let dest = &sys.automata[a].pea.locations[t.dest];
            let room = dest
                .clock_inv
                .iter()
                .all(|(p, _)| t.resets.contains(p) || value(&(a, *p)));
            if !room {
                continue;
            }
            let dest_inv = dest.state_inv;
            let mut g = t.guard;
            for (v, b) in &vars {
                g = sys.bdd_mut().restrict(g, *v, *b);
            }
            let inv = sys.bdd_mut().prime(dest_inv);
            let step = sys.bdd_mut().and(g, inv);
            d = sys.bdd_mut().or(d, step);
        }
        self.steps.insert((a, l, cube.to_vec()), d);
        d
    }
}

fn show_time(tb: &TimeBase, ticks: &BigRational) -> String {
    tb.show_rational(ticks)
}

/// A run from a model of `n + 1` check points.
fn trace_of(sys: &System, tb: &TimeBase, m: &Model, n: usize) -> DenseTrace {
    let mut rows: Vec<DenseInterval> = Vec::new();
    let mut t = BigRational::zero();
    for k in 0..=n {
        let d = match m.get(&var_at("vera.delta", k)) {
            Some(Value::Real(r)) => r.clone(),
            Some(Value::Int(i)) => BigRational::from_integer(i.clone()),
            _ => BigRational::zero(),
        };
        let values: Witness = sys
            .state
            .iter()
            .filter_map(|(n, _)| {
                m.get(&var_at(n, k)).map(|v| Assignment {
                    variable: n.to_string(),
                    value: v.to_string(),
                    unit: None,
                })
            })
            .collect();
        let end = &t + &d;
        match rows.last_mut() {
            Some(last) if last.values == values => last.to = show_time(tb, &end),
            _ => rows.push(DenseInterval {
                from: show_time(tb, &t),
                to: show_time(tb, &end),
                values,
            }),
        }
        t = end;
    }
    DenseTrace {
        rows,
        next_inputs: Vec::new(),
    }
}

/// Runs the dense-time audits.
pub fn audit_dense(spec: &Spec, options: &DenseOptions) -> Result<DenseReport, DenseError> {
    let tb = spec.time.as_ref().ok_or(DenseError::NotTimed)?;
    let mut sys = system(spec);
    let nauts = sys.automata.len();
    let automata = summaries(spec, &sys);
    let pats = patterns(spec);
    let not_formalized: Vec<String> = spec
        .requirements
        .iter()
        .zip(&pats)
        .filter(|(_, p)| p.is_none())
        .map(|(r, _)| r.id.clone())
        .collect();
    let mut requirements = requirement_audits(spec, &sys, &pats, tb);
    let epsilon = show_time(tb, &sys.epsilon);
    let invariants: Vec<usize> = (0..nauts)
        .filter(|a| sys.automata[*a].pea.is_invariant())
        .collect();
    let others: Vec<usize> = (0..nauts)
        .filter(|a| !sys.automata[*a].pea.is_invariant())
        .collect();

    // The invariants together: the peer stops here when they contradict each other.
    let mut checker = Solver::start(&options.solver)?;
    checker.command(&logic::Command::SetLogic(sys.logic.as_str().into()))?;
    for (name, ctors) in &sys.enums {
        checker.command(&logic::Command::DeclareEnum(name.clone(), ctors.clone()))?;
    }
    for k in 0..2 {
        for (n, s) in sys.declarations(k) {
            checker.declare_const(&n, s)?;
        }
    }
    if let Some(because) = contradicting_invariants(&sys, &mut checker, &invariants)? {
        return Ok(DenseReport {
            semantics: "dense",
            tick: tb.tick_text.clone(),
            epsilon,
            automata,
            consistency: DenseConsistency::Inconsistent { because },
            requirements,
            rt_checks: Vec::new(),
            rt_trivial: 0,
            rt_skipped: options.rt_range == 0,
            environment: DenseEnvironment::NotChecked {
                reason: "the requirements are not consistent".into(),
            },
            results: 1,
            not_formalized,
        });
    }

    let depth = options.bmc_depth.unwrap_or_else(|| default_depth(&sys));

    let Asked {
        mut questions,
        mut answers,
        vac_of,
        trigger_of,
        rt_sets,
        rt_trivial,
        rt_total,
        mut data,
        mut steps,
    } = ask(
        spec,
        &mut sys,
        &pats,
        &invariants,
        &others,
        options,
        checker,
    )?;
    let vacuity_checks = vac_of.iter().filter(|v| v.is_some()).count();
    let env_asked = env::ask_env(
        spec,
        &mut sys,
        (&invariants, &others),
        options,
        (&mut data, &mut steps),
        (&mut questions, &mut answers),
    )?;

    // Consistency: a first interval.
    let mut bmc = Bmc::start(&sys, &options.solver)?;
    let consistency = first_interval(spec, &sys, tb, &mut bmc, &mut answers)?;

    // Bounded model checking until it stops finding answers, then proofs for the rest,
    // then deeper runs for what the proofs leave open.
    let consistent = matches!(consistency, DenseConsistency::Consistent { .. });
    let epsilon_only = if consistent {
        search(
            spec,
            &sys,
            tb,
            options,
            &questions,
            &mut answers,
            &mut bmc,
            depth,
        )?
        .epsilon_only
    } else {
        vec![false; questions.len()]
    };
    drop(bmc);
    if consistent && options.redundancy {
        redundancies(spec, &sys, tb, options, depth, &mut requirements)?;
    }
    let answer = |qi: usize| -> Reach {
        answers[qi].clone().unwrap_or(Reach::Unknown {
            reason: solver::Undecided::other("consistency is undecided"),
            up_to: 0,
        })
    };

    vacuities(
        spec,
        &sys,
        &mut requirements,
        (&vac_of, &trigger_of),
        &answer,
    );
    let rt_checks = rt_checks_of(spec, &sys, &rt_sets, &answer, &epsilon_only);
    let environment = env::environment(
        spec,
        (&mut sys, &mut data, &mut steps),
        (env_asked, &questions),
        consistent,
        &answer,
        &epsilon_only,
    )?;
    Ok(DenseReport {
        semantics: "dense",
        tick: tb.tick_text.clone(),
        epsilon,
        automata,
        consistency,
        requirements,
        rt_checks,
        rt_trivial,
        rt_skipped: options.rt_range == 0,
        environment,
        results: 1 + vacuity_checks + rt_total,
        not_formalized,
    })
}

/// Vacuity per requirement: vacuous when one of its automata is (`vac_of`: each
/// automaton's question; `trigger_of`: each invariant's trigger question).
fn vacuities(
    spec: &Spec,
    sys: &System,
    requirements: &mut [DenseRequirementAudit],
    (vac_of, trigger_of): (&[Option<usize>], &[Option<usize>]),
    answer: &dyn Fn(usize) -> Reach,
) {
    for ra in requirements {
        let Some(i) = spec.requirements.iter().position(|r| r.id == ra.id) else {
            continue;
        };
        let auts = (0..sys.automata.len()).filter(|a| sys.automata[*a].req == i);
        let mut checked: Vec<Reach> = auts.filter_map(|a| vac_of[a].map(answer)).collect();
        if let Some(q) = trigger_of[i] {
            checked.push(answer(q));
        }
        ra.vacuity = vacuity_of(&checked);
    }
}

/// The report's rt checks: per set asked about, its answer.
fn rt_checks_of(
    spec: &Spec,
    sys: &System,
    rt_sets: &[(Vec<usize>, usize)],
    answer: &dyn Fn(usize) -> Reach,
    epsilon_only: &[bool],
) -> Vec<RtCheck> {
    rt_sets
        .iter()
        .map(|(set, qi)| {
            let mut reqs: Vec<String> = set.iter().map(|a| sys.automata[*a].id.clone()).collect();
            reqs.sort();
            reqs.dedup();
            RtCheck {
                requirements: reqs,
                automata: set
                    .iter()
                    .map(|a| automaton_name(spec, &sys.automata[*a]))
                    .collect(),
                dead_end: answer(*qi),
                epsilon_only: epsilon_only[*qi],
            }
        })
        .collect()
}

/// The default search depth: twice the longest countertrace and two, at most 40.
fn default_depth(sys: &System) -> usize {
    let longest = (sys.automata.iter())
        .map(|a| a.pea.phases.len())
        .max()
        .unwrap_or(1);
    (2 * longest + 2).min(40)
}

/// Redundancy, per requirement with automata (set in `requirements`): whether a run
/// the other requirements allow breaks one of its automata, asked of the product where every automaton may be
/// violated ([`System::with_violations`]) with the same search and proofs as the other
/// questions.
fn redundancies(
    spec: &Spec,
    sys: &System,
    tb: &TimeBase,
    options: &DenseOptions,
    depth: usize,
    requirements: &mut [DenseRequirementAudit],
) -> Result<(), DenseError> {
    let vsys = sys.with_violations(vec![true; sys.automata.len()]);
    let n = vsys.automata.len();
    let options = &DenseOptions {
        progress: options.progress.prefixed("redundancy: "),
        ..options.clone()
    };
    let questions: Vec<Question> = (0..n).map(|a| Question::Violated { a }).collect();
    let mut answers: Vec<Option<Reach>> = vec![None; n];
    let mut bmc = Bmc::start(&vsys, &options.solver)?;
    let found = search(
        spec,
        &vsys,
        tb,
        options,
        &questions,
        &mut answers,
        &mut bmc,
        depth,
    )?;
    // The proved ones, whose lists are cut down after.
    let mut to_shrink = Vec::new();
    for i in 0..spec.requirements.len() {
        let auts: Vec<usize> = (0..n).filter(|a| vsys.automata[*a].req == i).collect();
        if auts.is_empty() {
            continue;
        }
        let reaches: Vec<&Reach> = auts.iter().filter_map(|a| answers[*a].as_ref()).collect();
        let verdict = if let Some(Reach::Reachable { trace, .. }) = reaches
            .iter()
            .find(|r| matches!(r, Reach::Reachable { .. }))
        {
            DenseRedundancy::NotRedundant {
                trace: trace.clone(),
            }
        } else if let Some(Reach::Unknown { reason, .. }) =
            reaches.iter().find(|r| matches!(r, Reach::Unknown { .. }))
        {
            DenseRedundancy::Unknown {
                reason: reason.clone(),
            }
        } else if reaches.len() == auts.len() {
            // Every automaton's answer is "unreachable".
            let mut proved = true;
            let mut up_to = usize::MAX;
            let mut by_auts = vec![false; n];
            for (a, r) in auts.iter().zip(&reaches) {
                if let Reach::Unreachable {
                    proved: p,
                    up_to: u,
                } = r
                {
                    proved &= *p;
                    up_to = up_to.min(*u);
                }
                match &found.proved_in[*a] {
                    Some(part) => (by_auts.iter_mut().zip(part)).for_each(|(by, kept)| *by |= kept),
                    None => by_auts = vec![true; n],
                }
            }
            if proved {
                to_shrink.push((i, auts.clone(), by_auts.clone()));
            }
            DenseRedundancy::Redundant {
                proved,
                up_to,
                by: requirements_of(&vsys, &by_auts, i),
                minimal: false,
            }
        } else {
            DenseRedundancy::Unknown {
                reason: solver::Undecided::other("the redundancy check has no answer"),
            }
        };
        if let Some(ra) = (requirements.iter_mut()).find(|ra| ra.id == spec.requirements[i].id) {
            ra.redundancy = verdict;
        }
    }
    for (i, shrunk) in shrink_all(&vsys, &to_shrink, options)? {
        let ra = (requirements.iter_mut()).find(|ra| ra.id == spec.requirements[i].id);
        if let Some(DenseRedundancy::Redundant { by, minimal, .. }) =
            ra.map(|ra| &mut ra.redundancy)
        {
            *by = requirements_of(&vsys, &shrunk.keep, i);
            *minimal = shrunk.minimal;
        }
    }
    Ok(())
}

/// The ids of the requirements other than the `i`-th with an automaton in `keep`.
fn requirements_of(sys: &System, keep: &Part, i: usize) -> Vec<String> {
    let mut by: Vec<String> = Vec::new();
    for (b, aut) in sys.automata.iter().enumerate() {
        if keep[b] && aut.req != i && !by.contains(&aut.id) {
            by.push(aut.id.clone());
        }
    }
    by
}

/// [`minimal::shrink`] for each proved redundancy `(requirement, its automata, the
/// automata its proofs used)`, the jobs' sessions at once; those the engine could not
/// prove again with fewer are left out of the answer.
fn shrink_all(
    vsys: &System,
    asked: &[(usize, Vec<usize>, Part)],
    options: &DenseOptions,
) -> Result<Vec<(usize, minimal::Shrunk)>, DenseError> {
    let jobs = solver::job_count(options.jobs).min(asked.len()).max(1);
    options
        .progress
        .stage("requirements that imply each redundant one", asked.len());
    let counter = options.progress.counter();
    let each = |share: Vec<usize>| -> Result<Vec<(usize, minimal::Shrunk)>, DenseError> {
        let mut out = Vec::new();
        for j in share {
            let (i, own, by) = &asked[j];
            if let Some(s) = minimal::shrink(vsys, own, by, &options.solver)? {
                out.push((*i, s));
            }
            counter.tick();
        }
        Ok(out)
    };
    let all: Vec<usize> = (0..asked.len()).collect();
    in_threads(&all, jobs, each)
}

/// `each` run on [`shares`] of `items`, one thread per share, the answers joined in
/// the shares' order.
fn in_threads<T: Send>(
    items: &[usize],
    jobs: usize,
    each: impl Fn(Vec<usize>) -> Result<Vec<T>, DenseError> + Sync,
) -> Result<Vec<T>, DenseError> {
    let mut out = Vec::new();
    std::thread::scope(|scope| {
        let running: Vec<_> = (shares(items, jobs).into_iter())
            .map(|share| scope.spawn(|| each(share)))
            .collect();
        for r in running {
            out.extend(r.join().expect("a worker thread panicked")?);
        }
        Ok::<(), DenseError>(())
    })?;
    Ok(out)
}

/// Consistency: a first interval that satisfies every requirement. When there is
/// none, nothing is reachable and every question is answered.
fn first_interval(
    spec: &Spec,
    sys: &System,
    tb: &TimeBase,
    bmc: &mut Bmc,
    answers: &mut [Option<Reach>],
) -> Result<DenseConsistency, DenseError> {
    Ok(match bmc.check(&Term::Bool(true))? {
        Outcome::Sat(mdl) => {
            recheck(spec, sys, &mdl, 0, "the consistency witness", None)?;
            DenseConsistency::Consistent {
                witness: trace_of(sys, tb, &mdl, 0),
            }
        }
        Outcome::Unsat(_) => {
            // Nothing is reachable: every question is answered.
            for a in answers.iter_mut() {
                a.get_or_insert(Reach::Unreachable {
                    proved: true,
                    up_to: 0,
                });
            }
            DenseConsistency::Inconsistent {
                because: Vec::new(),
            }
        }
        Outcome::Unknown(r) => DenseConsistency::Unknown {
            reason: r.clone().into(),
        },
    })
}

/// What the report says of each automaton.
fn summaries(spec: &Spec, sys: &System) -> Vec<AutomatonSummary> {
    sys.automata
        .iter()
        .map(|a| AutomatonSummary {
            name: automaton_name(spec, a),
            locations: a.pea.locations.len(),
            clocks: a.pea.clocks().len(),
            invariant: a.pea.is_invariant(),
        })
        .collect()
}

/// One entry per formalized requirement: its pattern and countertraces (vacuity not
/// checked yet).
fn requirement_audits(
    spec: &Spec,
    sys: &System,
    pats: &[Option<DensePattern>],
    tb: &TimeBase,
) -> Vec<DenseRequirementAudit> {
    spec.requirements
        .iter()
        .zip(pats)
        .enumerate()
        .filter_map(|(i, (r, p))| {
            let p = p.as_ref()?;
            Some(DenseRequirementAudit {
                id: r.id.clone(),
                line: r.line,
                pattern: p.describe(tb),
                countertraces: (0..sys.automata.len())
                    .filter(|a| sys.automata[*a].req == i)
                    .map(|a| countertrace_text(sys, a, tb))
                    .collect(),
                vacuity: DenseVacuity::NotChecked {
                    reason: "not checked".into(),
                },
                redundancy: DenseRedundancy::NotChecked {
                    reason: "not checked".into(),
                },
            })
        })
        .collect()
}

/// The requirements whose invariants contradict each other, when they do (the peer
/// stops there).
fn contradicting_invariants(
    sys: &System,
    checker: &mut Solver,
    invariants: &[usize],
) -> Result<Option<Vec<String>>, SolverError> {
    // A requirement whose automaton has no location admits no run at all (its formula
    // can never hold, say): nothing else is asked, as when the invariants contradict
    // each other.
    let mut empty: Vec<String> = (sys.automata.iter())
        .filter(|a| a.pea.locations.is_empty())
        .map(|a| a.id.clone())
        .collect();
    empty.dedup();
    if !empty.is_empty() {
        return Ok(Some(empty));
    }
    let parts: Vec<Term> = invariants
        .iter()
        .map(|a| sys.term(*a, sys.automata[*a].pea.locations[0].state_inv, 0, false))
        .collect();
    Ok(match checker.check_assuming(&parts)? {
        Outcome::Unsat(core) => {
            let mut because: Vec<String> = invariants
                .iter()
                .zip(&parts)
                .filter(|(_, t)| core.contains(t) || core.is_empty())
                .map(|(a, _)| sys.automata[*a].id.clone())
                .collect();
            because.dedup();
            Some(because)
        }
        _ => None,
    })
}

/// The reachability questions of a dense audit, in order: vacuity of each automaton,
/// the triggers of invariants, each rt set that the pre-check ([`ndc`]) does not find
/// trivially free.
struct Asked {
    questions: Vec<Question>,
    /// Answers known before any search (an rt set the pre-check could not judge).
    answers: Vec<Option<Reach>>,
    /// Per automaton: its vacuity question.
    vac_of: Vec<Option<usize>>,
    /// Per requirement: the question whether its invariant's trigger ever holds.
    trigger_of: Vec<Option<usize>>,
    /// The rt sets asked about, with their question.
    rt_sets: Vec<(Vec<usize>, usize)>,
    /// The rt sets the pre-check finds free without a search.
    rt_trivial: usize,
    /// Every rt set.
    rt_total: usize,
    /// The pre-check's session and steps, for more questions.
    data: DataSat,
    steps: Steps,
}

/// Builds the questions of [`Asked`] (the rt pre-check asks `checker`).
fn ask(
    spec: &Spec,
    sys: &mut System,
    pats: &[Option<DensePattern>],
    invariants: &[usize],
    others: &[usize],
    options: &DenseOptions,
    checker: Solver,
) -> Result<Asked, SolverError> {
    let nauts = sys.automata.len();
    let mut questions: Vec<Question> = Vec::new();
    let mut answers: Vec<Option<Reach>> = Vec::new();
    let mut vac_of: Vec<Option<usize>> = vec![None; nauts];
    for (a, vac) in vac_of.iter_mut().enumerate() {
        if let Some(locs) = sys.automata[a].pea.applies_in() {
            *vac = Some(questions.len());
            questions.push(Question::Vacuity { a, locs });
            answers.push(None);
        }
    }
    // An invariant "if R then S" has no vacuity check of the peer's kind (its single
    // location shows nothing): vera asks whether R ever holds.
    let mut trigger_of: Vec<Option<usize>> = vec![None; spec.requirements.len()];
    for (i, p) in pats.iter().enumerate() {
        let Some(p) = p else { continue };
        let auts: Vec<usize> = (0..nauts).filter(|a| sys.automata[*a].req == i).collect();
        if p.kind == super::Kind::Invariance
            && !auts.is_empty()
            && auts.iter().all(|a| sys.automata[*a].pea.is_invariant())
        {
            trigger_of[i] = Some(questions.len());
            questions.push(Question::Holds {
                term: p.formulas[0].clone(),
            });
            answers.push(None);
        }
    }
    let m = options.rt_range.min(others.len());
    let sets: Vec<Vec<usize>> = if m == 0 {
        Vec::new()
    } else {
        combinations(others, m)
    };
    let primed_inv = primed_invariants(sys, invariants);
    let mut data = DataSat {
        solver: checker,
        cache: HashMap::default(),
        queries: 0,
    };
    let mut rt_sets: Vec<(Vec<usize>, usize)> = Vec::new();
    let mut rt_trivial = 0;
    let mut steps = Steps::default();
    let progress = &options.progress;
    progress.stage(
        "rt-inconsistency: sets of automata without a next step",
        sets.len(),
    );
    for (done, set) in sets.iter().enumerate() {
        progress.step(done, "");
        match ndc(sys, set, primed_inv, &mut data, &mut steps)? {
            Ok(None) => rt_trivial += 1,
            Ok(Some(n)) => {
                rt_sets.push((set.clone(), questions.len()));
                questions.push(Question::Rt {
                    set: set.clone(),
                    ndc: n,
                });
                answers.push(None);
            }
            Err(reason) => {
                rt_sets.push((set.clone(), questions.len()));
                questions.push(Question::Rt {
                    set: set.clone(),
                    ndc: Ndc {
                        vectors: Vec::new(),
                    },
                });
                answers.push(Some(Reach::Unknown { reason, up_to: 0 }));
            }
        }
    }
    progress.step(sets.len(), "");

    Ok(Asked {
        questions,
        answers,
        vac_of,
        trigger_of,
        rt_sets,
        rt_trivial,
        rt_total: sets.len(),
        data,
        steps,
    })
}

/// A requirement's vacuity from the answers to its questions: vacuous when one of its
/// automata never gets to apply (or its trigger never holds), undecided when one of
/// them is, otherwise not vacuous with the run of the first.
fn vacuity_of(checked: &[Reach]) -> DenseVacuity {
    if checked.is_empty() {
        DenseVacuity::NotChecked {
            reason: "every location of its automata shows it applies".into(),
        }
    } else if let Some(Reach::Unreachable { proved, up_to }) = checked
        .iter()
        .find(|r| matches!(r, Reach::Unreachable { .. }))
    {
        DenseVacuity::Vacuous {
            proved: *proved,
            up_to: *up_to,
        }
    } else if let Some(Reach::Unknown { reason, .. }) =
        checked.iter().find(|r| matches!(r, Reach::Unknown { .. }))
    {
        DenseVacuity::Unknown {
            reason: reason.clone(),
        }
    } else {
        match &checked[0] {
            Reach::Reachable { trace, .. } => DenseVacuity::NotVacuous {
                trace: trace.clone(),
            },
            _ => unreachable!("the other answers are handled above"),
        }
    }
}

/// Bounded model checking of the whole product until it stops finding answers, then
/// proofs ([`prove_all`]) for the questions still open, then deeper runs for what the
/// proofs leave open; every question gets an answer. Per question: whether its dead end
/// was shown only a little (ε) after the run's end.
#[allow(clippy::too_many_arguments)]
fn search<'a>(
    spec: &Spec,
    sys: &'a System,
    tb: &TimeBase,
    options: &DenseOptions,
    questions: &[Question],
    answers: &mut [Option<Reach>],
    bmc: &mut Bmc<'a>,
    depth: usize,
) -> Result<Searched, DenseError> {
    let mut out = Searched {
        epsilon_only: vec![false; questions.len()],
        proved_in: vec![None; questions.len()],
    };
    let mut last_found = 0;
    let mut proofs_tried = false;
    // Questions the fixedpoint engine found reachable: searched deeper.
    let mut deeper: Vec<bool> = vec![false; questions.len()];
    // Why the engine left a question open, for those it had no answer for.
    let mut engine_undecided: Vec<Option<solver::Undecided>> = vec![None; questions.len()];
    // One session per job, all at the same depth; the first is the caller's.
    let mut more = Vec::new();
    for _ in 1..solver::job_count(options.jobs).min(questions.len()).max(1) {
        let mut b = Bmc::start(sys, &options.solver)?;
        while b.depth < bmc.depth {
            b.extend()?;
        }
        more.push(b);
    }
    let mut bmcs: Vec<&mut Bmc> = std::iter::once(bmc).chain(more.iter_mut()).collect();
    // A large product is searched a part at a time first ([`local`]), in guarded
    // sessions of their own, one per session of the whole.
    let guarded = (sys.automata.len() >= options.parts_from).then(|| sys.guarded());
    let mut parts = match &guarded {
        Some(g) => part_sessions(g, bmcs.len(), bmcs[0].depth, &options.solver)?,
        None => Vec::new(),
    };
    let keeps: Vec<std::sync::Mutex<Option<Part>>> =
        questions.iter().map(|_| Default::default()).collect();
    // Questions a search query left undecided (its time limit, say): not asked at
    // deeper depths, left to the proofs, and reported undecided if no proof decides.
    let mut bmc_undecided: Vec<Option<Reach>> = vec![None; questions.len()];
    let asked_now = |qi: usize,
                     answers: &[Option<Reach>],
                     deeper: &[bool],
                     undecided: &[Option<Reach>],
                     tried: bool| {
        answers[qi].is_none() && (!tried || deeper[qi]) && undecided[qi].is_none()
    };
    let progress = &options.progress;
    progress.stage("runs searched, by intervals", depth);
    loop {
        let k = bmcs[0].depth;
        // The points asked about at this depth, built once: each is checked, and read
        // off the runs found for the questions before it.
        let bads: Vec<Option<Term>> = questions
            .iter()
            .enumerate()
            .map(|(qi, q)| {
                asked_now(qi, answers, &deeper, &bmc_undecided, proofs_tried).then(|| q.bad(sys, k))
            })
            .collect();
        // The questions asked at this depth, shared out among the sessions ([`shares`]).
        let asked: Vec<usize> = (0..questions.len())
            .filter(|q| bads[*q].is_some())
            .collect();
        // Fewer questions are asked at every depth than at the one before: a session
        // without a share now will not get one later.
        bmcs.truncate(asked.len().max(1));
        parts.truncate(bmcs.len());
        let found = sessions_search(
            &Ctx { spec, sys, tb },
            (questions, &keeps),
            (&bads, &asked),
            (&mut bmcs, &mut parts),
        )?;
        for (qi, reach, eps) in found {
            if matches!(reach, Reach::Unknown { .. }) {
                bmc_undecided[qi] = Some(reach);
            } else if answers[qi].is_none() {
                if matches!(reach, Reach::Reachable { .. }) {
                    last_found = k;
                }
                out.epsilon_only[qi] = eps;
                answers[qi] = Some(reach);
            }
        }
        let open: Vec<usize> = (0..questions.len())
            .filter(|q| asked_now(*q, answers, &deeper, &bmc_undecided, proofs_tried))
            .collect();
        progress.step(k + 1, &format!("{} questions open", open.len()));
        if open.is_empty() || k >= depth {
            break;
        }
        // Stalled: no answer at the last depth (and past the shortest runs most
        // answers need). What the proofs leave open (the engine finds the point, or
        // has no answer) is searched deeper.
        let stalled = k >= 3 && k > last_found;
        if stalled && !proofs_tried && options.prove {
            proofs_tried = true;
            let open: Vec<usize> = (0..questions.len())
                .filter(|q| answers[*q].is_none())
                .collect();
            let proved = prove_all(&Ctx { spec, sys, tb }, questions, &open, k + 1, options)?;
            progress.stage("runs searched further, by intervals", depth);
            for (qi, r) in proved {
                match r {
                    Engine::Answer(a, part) => {
                        answers[qi] = Some(a);
                        out.proved_in[qi] = part;
                    }
                    _ if bmc_undecided[qi].is_some() => answers[qi] = bmc_undecided[qi].take(),
                    Engine::Reachable => deeper[qi] = true,
                    Engine::Undecided(why) => {
                        deeper[qi] = true;
                        engine_undecided[qi] = Some(why);
                    }
                }
            }
            if !deeper.iter().any(|d| *d) {
                break;
            }
        }
        for b in bmcs.iter_mut() {
            b.extend()?;
        }
        for p in parts.iter_mut() {
            p.extend()?;
        }
    }
    for (qi, undecided) in bmc_undecided.into_iter().enumerate() {
        if answers[qi].is_none() {
            answers[qi] = undecided;
        }
    }
    let up_to = bmcs[0].depth + 1;
    settle_open(
        spec,
        sys,
        tb,
        options,
        questions,
        answers,
        (&deeper, engine_undecided),
        proofs_tried,
        up_to,
        &mut out.proved_in,
    )?;
    Ok(out)
}

/// The default of [`DenseOptions::parts_from`] ([`local`]): at 200 requirements (about
/// 230 automata) the search by parts took 25 s against 14 s for the whole product; at
/// 1,000 a query of the whole takes about half a second and one of a part a tenth.
const PARTS_FROM: usize = 600;

/// `n` sessions of the guarded system `guarded` at depth `depth`, for the search by
/// parts.
fn part_sessions<'g>(
    guarded: &'g System,
    n: usize,
    depth: usize,
    config: &SolverConfig,
) -> Result<Vec<Bmc<'g>>, SolverError> {
    (0..n)
        .map(|_| {
            let mut p = Bmc::start(guarded, config)?;
            while p.depth < depth {
                p.extend()?;
            }
            Ok(p)
        })
        .collect()
}

/// One depth of [`search`]: the questions `asked` (their points `bads`) shared out
/// among the sessions `bmcs` ([`shares`]), each share in a thread of its own, with the
/// guarded session of the same index when there are `parts` (and each question's part
/// in `keeps`).
fn sessions_search<'a, 'b>(
    ctx: &Ctx,
    (questions, keeps): (&[Question], &[std::sync::Mutex<Option<Part>>]),
    (bads, asked): (&[Option<Term>], &[usize]),
    (bmcs, parts): (&mut [&mut Bmc<'a>], &mut [Bmc<'b>]),
) -> Result<Vec<(usize, Reach, bool)>, DenseError> {
    let mut parts: Vec<Option<&mut Bmc<'b>>> = parts.iter_mut().map(Some).collect();
    parts.resize_with(bmcs.len(), || None);
    if let ([bmc], [part]) = (&mut *bmcs, &mut parts[..]) {
        let sessions = Sessions {
            whole: bmc,
            part: part.as_deref_mut(),
            keeps,
        };
        return depth_search(ctx, questions, bads, asked, sessions);
    }
    let mut found = Vec::new();
    let shared = shares(asked, bmcs.len());
    std::thread::scope(|scope| {
        let running: Vec<_> = (bmcs.iter_mut().zip(parts).zip(shared))
            .map(|((bmc, part), share)| {
                scope.spawn(move || {
                    let sessions = Sessions {
                        whole: bmc,
                        part,
                        keeps,
                    };
                    depth_search(ctx, questions, bads, &share, sessions)
                })
            })
            .collect();
        for r in running {
            found.extend(r.join().expect("a search thread panicked")?);
        }
        Ok::<(), DenseError>(())
    })?;
    Ok(found)
}

/// One thread's sessions in [`depth_search`].
struct Sessions<'s, 'a, 'b> {
    /// The whole product.
    whole: &'s mut Bmc<'a>,
    /// The guarded session for parts, if the product is searched by parts.
    part: Option<&'s mut Bmc<'b>>,
    /// Each question's part so far.
    keeps: &'s [std::sync::Mutex<Option<Part>>],
}

impl Sessions<'_, '_, '_> {
    /// Is the point `bad` of question `qi` reachable at the sessions' depth? Asked of a
    /// part first when there are parts ([`local::find`]); a run is always one of the
    /// whole product. An unsatisfiable answer is re-checked when `checked`.
    fn ask(
        &mut self,
        ctx: &Ctx,
        (qi, q): (usize, &Question),
        (shifted, bad): (bool, &Term),
        checked: bool,
    ) -> Result<Outcome, SolverError> {
        // Runs of one interval are asked of the whole product: nearly every question
        // has one, and a part would cost a session and a query of the whole besides.
        if let Some(part) = self.part.as_deref_mut().filter(|_| self.whole.depth >= 1) {
            let mut keep = self.keeps[qi].lock().expect("a part's lock");
            let keep = keep.get_or_insert_with(|| local::first_part(ctx.sys, q));
            match local::find(ctx, (self.whole, part), (q, shifted, bad), keep, checked)? {
                local::Found::Run(m) => return Ok(Outcome::Sat(m)),
                local::Found::Nothing => return Ok(Outcome::Unsat(Vec::new())),
                local::Found::Whole => {}
            }
        }
        if checked {
            self.whole.check(bad)
        } else {
            self.whole.search(bad)
        }
    }
}

/// What [`search`] tells besides the answers, per question.
struct Searched {
    /// The dead end was shown only a little (ε) after the run's end.
    epsilon_only: Vec<bool>,
    /// The part of the product a proof of unreachability was made in.
    proved_in: Vec<Option<Part>>,
}

/// The questions `share` asked of one session at its depth `k` (their points `bads`),
/// one after the other: per question answered, the answer and whether the dead end is
/// only within ε of the run's end. A run found for one question answers the later
/// questions of the share whose points it ends at (no solver call).
fn depth_search(
    ctx: &Ctx,
    questions: &[Question],
    bads: &[Option<Term>],
    share: &[usize],
    mut sessions: Sessions,
) -> Result<Vec<(usize, Reach, bool)>, DenseError> {
    let Ctx { spec, sys, tb } = *ctx;
    let k = sessions.whole.depth;
    let mut out: Vec<(usize, Reach, bool)> = Vec::new();
    let mut done = vec![false; questions.len()];
    for (i, &qi) in share.iter().enumerate() {
        let Some(bad) = bads[qi].as_ref().filter(|_| !done[qi]) else {
            continue;
        };
        let q = &questions[qi];
        // Unsatisfiable answers here only send the search on; what is reported
        // as not found is confirmed at the end (`confirm_not_found`).
        let mut mdl = match sessions.ask(ctx, (qi, q), (true, bad), false)? {
            Outcome::Sat(m) => m,
            Outcome::Unsat(_) => continue,
            Outcome::Unknown(r) => {
                let reason = r.clone().into();
                out.push((qi, Reach::Unknown { reason, up_to: k }, false));
                continue;
            }
        };
        let mut epsilon_only = false;
        if let Question::Rt { .. } = q {
            // A run that ends where there is no next step at all, if one of as many
            // intervals does (checked when there is none: the report says so).
            let exact = q.bad_shifted(sys, k, false);
            let found = match sessions.ask(ctx, (qi, q), (false, &exact), false)? {
                Outcome::Unsat(_) => sessions.ask(ctx, (qi, q), (false, &exact), true)?,
                other => other,
            };
            match found {
                Outcome::Sat(exact) => mdl = exact,
                _ => epsilon_only = true,
            }
        }
        if let Some(a) = recheck(spec, sys, &mdl, k, "a run shown", q.breaks())? {
            done[qi] = true;
            out.push((qi, not_confirmed(sys, a, k), false));
            continue;
        }
        let trace = trace_of(sys, tb, &mdl, k);
        let reached = Reach::Reachable {
            intervals: k + 1,
            trace: trace.clone(),
        };
        // For the environment's dead ends: what it chooses next, per question.
        let chosen = |q: &Question| match q {
            Question::Rt { .. } => env::reached(spec, sys, q, &mdl, k, trace.clone()),
            _ => reached.clone(),
        };
        // The same run may end at the points other questions ask about (one run
        // reaches many): read off the model, no solver call. A dead end is taken
        // only where there is no next step at all (the exact point); a question the
        // model does not settle (a variable it leaves out) is asked as before.
        let holds = |t: &Term| logic::eval::eval_bool(t, &mdl, &spec.context) == Ok(true);
        for &other in &share[i + 1..] {
            let Some(b) = &bads[other] else { continue };
            if done[other] || !holds(b) {
                continue;
            }
            let q = &questions[other];
            if !matches!(q, Question::Rt { .. }) || holds(&q.bad_shifted(sys, k, false)) {
                done[other] = true;
                out.push((other, chosen(q), false));
            }
        }
        done[qi] = true;
        out.push((qi, chosen(q), epsilon_only));
    }
    Ok(out)
}

/// What is still open after the search: searched up to `up_to` intervals only, or
/// found by the engine (`deeper`, with why it had no answer) and not shown by a run
/// that long.
#[allow(clippy::too_many_arguments)]
fn settle_open(
    spec: &Spec,
    sys: &System,
    tb: &TimeBase,
    options: &DenseOptions,
    questions: &[Question],
    answers: &mut [Option<Reach>],
    (deeper, mut engine_undecided): (&[bool], Vec<Option<solver::Undecided>>),
    proofs_tried: bool,
    up_to: usize,
    proved_in: &mut [Option<Part>],
) -> Result<(), DenseError> {
    let mut not_found = Vec::new();
    for (qi, ans) in answers.iter_mut().enumerate() {
        if ans.is_some() {
            continue;
        }
        let found_by_engine = || {
            Reach::Unknown {
            reason: solver::Undecided::other(format!(
                "the fixedpoint engine finds such a point; no run of up to {up_to} intervals shows it"
            )),
            up_to,
        }
        };
        if deeper[qi] {
            *ans = Some(match engine_undecided[qi].take() {
                Some(reason) => Reach::Unknown { reason, up_to },
                None => found_by_engine(),
            });
        } else if options.prove && !proofs_tried {
            *ans = Some(
                match prove_all(&Ctx { spec, sys, tb }, questions, &[qi], up_to, options)?.pop() {
                    Some((_, Engine::Answer(a, part))) => {
                        proved_in[qi] = part;
                        a
                    }
                    Some((_, Engine::Undecided(reason))) => Reach::Unknown { reason, up_to },
                    _ => found_by_engine(),
                },
            );
        } else {
            not_found.push(qi);
        }
    }
    for (qi, r) in confirm_not_found(spec, sys, tb, options, questions, &not_found, up_to)? {
        answers[qi] = Some(r);
    }
    Ok(())
}

/// The questions the search left without a run, to be reported as "no run of up to
/// `up_to` intervals ends there". The search's unsatisfiable answers were not
/// re-checked ([`Bmc::search`]), so each question is asked again at every depth, in a
/// session of its own whose answers are ([`Bmc::check`]): a run found now is reported
/// as found, an undecided check makes the answer undecided.
fn confirm_not_found(
    spec: &Spec,
    sys: &System,
    tb: &TimeBase,
    options: &DenseOptions,
    questions: &[Question],
    left: &[usize],
    up_to: usize,
) -> Result<Vec<(usize, Reach)>, DenseError> {
    let mut out: Vec<(usize, Reach)> = Vec::new();
    if left.is_empty() {
        return Ok(out);
    }
    let mut bmc = Bmc::start(sys, &options.solver)?;
    let mut open: Vec<usize> = left.to_vec();
    let progress = &options.progress;
    progress.stage("runs not found, confirmed by intervals", up_to);
    loop {
        let k = bmc.depth;
        progress.step(k, &format!("{} questions", open.len()));
        let mut still = Vec::new();
        for qi in open {
            match bmc.check(&questions[qi].bad(sys, k))? {
                Outcome::Unsat(_) => still.push(qi),
                Outcome::Sat(m) => {
                    let breaks = questions[qi].breaks();
                    if let Some(a) = recheck(spec, sys, &m, k, "a run shown", breaks)? {
                        out.push((qi, not_confirmed(sys, a, k)));
                        continue;
                    }
                    let trace = trace_of(sys, tb, &m, k);
                    out.push((qi, env::reached(spec, sys, &questions[qi], &m, k, trace)));
                }
                Outcome::Unknown(r) => out.push((
                    qi,
                    Reach::Unknown {
                        reason: r.clone().into(),
                        up_to: k,
                    },
                )),
            }
        }
        open = still;
        if open.is_empty() || k + 1 >= up_to {
            break;
        }
        bmc.extend()?;
    }
    out.extend(open.into_iter().map(|qi| {
        (
            qi,
            Reach::Unreachable {
                proved: false,
                up_to,
            },
        )
    }));
    Ok(out)
}

/// The variables an automaton's formulas mention.
fn variables_of(sys: &System, a: usize) -> std::collections::BTreeSet<logic::Symbol> {
    let mut out = std::collections::BTreeSet::new();
    for ph in &sys.automata[a].pea.phases {
        for v in sys.bdd.support(ph.inv) {
            if let Atom::Data { term, .. } = &sys.bdd.atoms()[v as usize] {
                out.extend(term.free_vars().into_iter().map(|(n, _)| n));
            }
        }
    }
    out
}

/// The time limit of a proof on a part of the product (the whole gets the solver's).
const SUB_PRODUCT_LIMIT: std::time::Duration = std::time::Duration::from_secs(5);

/// Proofs that the open questions' points are unreachable. Each is first tried on
/// smaller products, the parts of [`rings`]: a product of fewer automata has more
/// runs, so what it never reaches the whole never reaches. A part gets
/// [`SUB_PRODUCT_LIMIT`], the whole the solver's limit; the next part is tried when
/// the engine finds the point reachable in a part, the whole once it has had no answer
/// in two. Per question: what the engine made of it (see [`Engine`]).
fn prove_all(
    ctx: &Ctx,
    questions: &[Question],
    open: &[usize],
    searched: usize,
    options: &DenseOptions,
) -> Result<Vec<(usize, Engine)>, DenseError> {
    let jobs = solver::job_count(options.jobs).min(open.len()).max(1);
    options
        .progress
        .stage("proofs for runs of any length", open.len());
    let counter = options.progress.counter();
    if jobs == 1 {
        return prove_each(ctx, questions, open, searched, (&options.solver, &counter));
    }
    // The answers do not depend on the order.
    let mut out = in_threads(open, jobs, |share| {
        prove_each(
            ctx,
            questions,
            &share,
            searched,
            (&options.solver, &counter),
        )
    })?;
    out.sort_by_key(|(q, _)| open.iter().position(|o| o == q));
    Ok(out)
}

/// `items` shared out among `n` workers: every `n`-th to each, so each worker gets the
/// same items on every run, and neighbours (often alike in cost) go to different ones.
fn shares(items: &[usize], n: usize) -> Vec<Vec<usize>> {
    (0..n)
        .map(|j| items.iter().copied().skip(j).step_by(n).collect())
        .collect()
}

/// [`prove_all`] for the questions `open`, one after the other in this thread.
///
/// The part a proof is tried on grows by *localization*: when the engine finds the
/// point reachable in a part, a run of the part that reaches it is searched for
/// ([`part_run`]) and judged by the countertrace evaluator against the automata left
/// out; those the run breaks join the part (they are what keeps the whole from
/// reaching the point), and the engine is asked again. A run none of them breaks is a
/// run of the whole: the question is answered by it. Without such a run, the part
/// widens to the next of [`rings`].
fn prove_each(
    ctx: &Ctx,
    questions: &[Question],
    open: &[usize],
    searched: usize,
    (config, counter): (&SolverConfig, &crate::progress::Counter),
) -> Result<Vec<(usize, Engine)>, DenseError> {
    let sys = ctx.sys;
    let proved = Reach::Unreachable {
        proved: true,
        up_to: searched,
    };
    let vars = automaton_variables(sys);
    let mut out = Vec::new();
    for q in open {
        let question = &questions[*q];
        let rings = rings(sys, question, &vars);
        let mut keep = rings[0].clone();
        let (mut undecided_parts, mut refinements) = (0, 0);
        let answer = loop {
            let all = keep.iter().all(|k| *k);
            let mut part = if all {
                sys.clone()
            } else {
                sys.restricted(keep.clone())
            };
            if let Question::Violated { a } = question {
                // Only the automaton asked about needs its violated location here.
                part.violable = (0..part.automata.len()).map(|b| b == *a).collect();
            }
            let bad = question.bad(&part, 0);
            // A part gets a short time limit: a wider one may still decide, and the
            // whole product gets the full limit.
            let limit = if all {
                config.clone()
            } else {
                let mut c = config.clone();
                c.timeout = c.timeout.min(SUB_PRODUCT_LIMIT);
                c
            };
            match part.prove(&bad, &limit)? {
                Proof::Proved => break Engine::Answer(proved.clone(), Some(keep)),
                Proof::Unknown(reason) if all => break Engine::Undecided(reason),
                Proof::Reachable if all => break Engine::Reachable,
                // A part the engine gives no answer for: the next part may still get
                // one (a proof near the limit, or an invariant it needed), but after
                // two parts without an answer the wider ones seldom do, so the whole
                // product is tried next.
                Proof::Unknown(_) if undecided_parts == 0 => {
                    undecided_parts += 1;
                    widen(&mut keep, &rings);
                }
                Proof::Unknown(_) => keep = vec![true; keep.len()],
                Proof::Reachable => match localize(ctx, &part, question, &keep, &limit)? {
                    Localized::Breaks(more) if refinements < MAX_REFINEMENTS => {
                        refinements += 1;
                        for b in more {
                            keep[b] = true;
                        }
                    }
                    Localized::Whole(reach) => break Engine::Answer(reach, None),
                    _ => widen(&mut keep, &rings),
                },
            }
        };
        out.push((*q, answer));
        counter.tick();
    }
    Ok(out)
}

/// How many times [`prove_each`] adds the automata a part's run breaks before it
/// widens by [`rings`] instead.
const MAX_REFINEMENTS: usize = 8;

/// `keep` joined with the first of `rings` that adds an automaton (the last is the
/// whole product).
fn widen(keep: &mut Part, rings: &[Part]) {
    let next = rings
        .iter()
        .find(|r| r.iter().zip(keep.iter()).any(|(r, k)| *r && !*k));
    match next {
        Some(r) => keep.iter_mut().zip(r).for_each(|(k, r)| *k |= *r),
        None => keep.iter_mut().for_each(|k| *k = true),
    }
}

/// What a run of a part tells about the whole product.
enum Localized {
    /// The automata left out of the part that the run breaks.
    Breaks(Vec<usize>),
    /// No automaton breaks it: the whole product has the run, which answers the
    /// question.
    Whole(Reach),
    /// No run of the part was found (or none that can be judged).
    NoRun,
}

/// A run of `part` (the automata `keep` of the whole) reaching the point `question`
/// asks about, judged against the automata left out ([`Localized`]).
fn localize(
    ctx: &Ctx,
    part: &System,
    question: &Question,
    keep: &Part,
    limit: &SolverConfig,
) -> Result<Localized, DenseError> {
    let sys = ctx.sys;
    let Some((mut m, k)) = part_run(part, question, limit)? else {
        return Ok(Localized::NoRun);
    };
    // The variables the part leaves unconstrained get a default value: the automata
    // left out are judged on one whole state.
    for j in 0..=k {
        for (x, sort) in &sys.state {
            let v = var_at(x, j);
            if m.get(&v).is_none() {
                if let Some(d) = solver::default_value(sort, &ctx.spec.context) {
                    m.insert(v, d);
                }
            }
        }
    }
    let run = run_of(sys, &m, k);
    let breaks = question.breaks();
    let mut more = Vec::new();
    for (b, aut) in sys.automata.iter().enumerate() {
        if keep[b] || breaks.is_some_and(|a| sys.automata[a].req == aut.req) {
            continue;
        }
        // An automaton the evaluator cannot judge on the run joins the part too.
        if super::eval::matched(&sys.bdd, &aut.pea.phases, &run, &ctx.spec.context).unwrap_or(true)
        {
            more.push(b);
        }
    }
    if !more.is_empty() {
        return Ok(Localized::Breaks(more));
    }
    // A dead end's answer also says whether it shows only within ε of the end: left
    // to the search of the whole product.
    if matches!(question, Question::Rt { .. }) {
        return Ok(Localized::NoRun);
    }
    // The evaluator reads the countertraces, and two patterns' automata are stricter
    // (docs/timed.md): the whole product's automata must take the run too. Asked with
    // every state and interval length fixed, the query leaves nothing to search.
    let Some(m) = whole_run(sys, question, &m, k, limit)? else {
        return Ok(Localized::NoRun);
    };
    match recheck(ctx.spec, sys, &m, k, "a run of a part", breaks) {
        Ok(None) => Ok(Localized::Whole(Reach::Reachable {
            intervals: k + 1,
            trace: trace_of(sys, ctx.tb, &m, k),
        })),
        // The run does not pass as a run of the whole (an interval to split, say):
        // the part widens instead.
        Ok(Some(_)) | Err(_) => Ok(Localized::NoRun),
    }
}

/// The run of `m` (check points `0..=k`) as a run of the whole product `sys` that
/// reaches the point `question` asks about, if it is one.
fn whole_run(
    sys: &System,
    question: &Question,
    m: &Model,
    k: usize,
    limit: &SolverConfig,
) -> Result<Option<Model>, SolverError> {
    let every = sys.state.iter().map(|(x, _)| x.clone()).collect();
    let fixed = local::fixed_to(sys, &question.bad(sys, k), m, k, &every);
    let mut bmc = Bmc::start(sys, limit)?;
    while bmc.depth < k {
        bmc.extend()?;
    }
    Ok(match bmc.check(&fixed)? {
        Outcome::Sat(whole) => Some(whole),
        _ => None,
    })
}

/// A run of `part` of up to [`default_depth`] intervals that reaches the point
/// `question` asks about, with its last check point.
fn part_run(
    part: &System,
    question: &Question,
    limit: &SolverConfig,
) -> Result<Option<(Model, usize)>, SolverError> {
    let mut bmc = Bmc::start(part, limit)?;
    let depth = default_depth(part);
    loop {
        match bmc.check(&question.bad(part, bmc.depth))? {
            Outcome::Sat(m) => return Ok(Some((m, bmc.depth))),
            Outcome::Unknown(_) => return Ok(None),
            Outcome::Unsat(_) if bmc.depth >= depth => return Ok(None),
            Outcome::Unsat(_) => bmc.extend()?,
        }
    }
}

/// The variables each automaton's formulas mention.
fn automaton_variables(sys: &System) -> Vec<std::collections::BTreeSet<logic::Symbol>> {
    (0..sys.automata.len())
        .map(|a| variables_of(sys, a))
        .collect()
}

/// The parts of the product a proof of `question` is tried on, smallest first, the
/// last the whole: the question's automata and every invariant, then wider parts that
/// add the automata sharing a variable with the automata taken so far (the *core*),
/// the rarest variables first, each part at least doubling the core. A variable few
/// automata mention ties the question to the requirements that most likely decide it
/// (a requirement's own output), where a mode read by every component would pull in
/// nearly the whole product at once. The invariants' variables do not widen the core:
/// every automaton shares some input with some invariant, so that would be nearly all.
fn rings(
    sys: &System,
    question: &Question,
    vars: &[std::collections::BTreeSet<logic::Symbol>],
) -> Vec<Part> {
    let n = sys.automata.len();
    let invariant: Vec<bool> = (0..n).map(|a| sys.automata[a].pea.is_invariant()).collect();
    // How many automata (not invariants) mention each variable.
    let mut uses: HashMap<&logic::Symbol, usize> = HashMap::default();
    for a in (0..n).filter(|a| !invariant[*a]) {
        for v in &vars[a] {
            *uses.entry(v).or_default() += 1;
        }
    }
    let mut keep = invariant.clone();
    let mut core = vec![false; n];
    let mut core_vars: std::collections::BTreeSet<logic::Symbol> = Default::default();
    for a in question.automata() {
        core[a] = true;
    }
    if let Question::Holds { term } = question {
        // The automata over the formula's variables.
        core_vars = term.free_vars().into_iter().map(|(n, _)| n).collect();
        for a in 0..n {
            if !invariant[a] && !vars[a].is_disjoint(&core_vars) {
                core[a] = true;
            }
        }
    }
    let mut out = Vec::new();
    loop {
        for a in (0..n).filter(|a| core[*a]) {
            keep[a] = true;
        }
        if keep.iter().all(|k| *k) {
            break;
        }
        out.push(keep.clone());
        // The core's variables, rarest first, each with the automata it brings in.
        let mut taken: Vec<&logic::Symbol> = (0..n)
            .filter(|a| core[*a])
            .flat_map(|a| vars[a].iter())
            .chain(core_vars.iter())
            .collect();
        taken.sort_by_key(|v| (uses.get(v).copied().unwrap_or(0), *v));
        taken.dedup();
        let size = core.iter().filter(|c| **c).count().max(1);
        let mut added = 0;
        for v in taken {
            if added >= size {
                break;
            }
            for a in 0..n {
                if !core[a] && !invariant[a] && vars[a].contains(v) {
                    core[a] = true;
                    added += 1;
                }
            }
        }
        if added == 0 {
            // Nothing shares a variable with the core: the whole is next.
            keep = vec![true; n];
        }
    }
    out.push(keep);
    out
}

/// What the proofs read besides the questions.
struct Ctx<'a> {
    spec: &'a Spec,
    sys: &'a System,
    tb: &'a TimeBase,
}

/// What the fixedpoint engine made of a question.
enum Engine {
    /// Proved unreachable in this part of the product, or shown by a run.
    Answer(Reach, Option<Part>),
    /// Reachable in the whole product: a deeper search may show the run.
    Reachable,
    /// Undecided in the whole product: a deeper search may still show a run.
    Undecided(solver::Undecided),
}

/// The automata of a part of the product (see [`rings`]).
type Part = Vec<bool>;

/// The run of the first `n + 1` intervals of a model, for the evaluator.
fn run_of(sys: &System, m: &Model, n: usize) -> Vec<super::eval::Piece> {
    (0..=n)
        .map(|k| {
            let length = match m.get(&var_at("vera.delta", k)) {
                Some(Value::Real(r)) => r.clone(),
                Some(Value::Int(i)) => BigRational::from_integer(i.clone()),
                _ => BigRational::zero(),
            };
            let mut state = Model::new();
            for (x, _) in &sys.state {
                if let Some(v) = m.get(&var_at(x, k)) {
                    state.insert(x.clone(), v.clone());
                }
            }
            for (h, x, _) in &sys.history {
                if let Some(v) = m.get(&var_at(x, k.saturating_sub(1))) {
                    state.insert(h.clone(), v.clone());
                }
            }
            super::eval::Piece { length, state }
        })
        .collect()
}

/// Re-checks a witness run with the evaluator of the countertraces: every requirement
/// must hold on it. A run that breaks one is an error, never a finding.
///
/// A run that answers a redundancy question (`breaks`: the automaton it shows broken)
/// is not judged on that automaton's requirement; the answer is that automaton when the
/// evaluator does not find its countertrace in the run (none without `breaks`). A
/// run on which the automaton has no next step may still not break its countertrace:
/// the automaton changes location only between intervals, and some runs need an
/// interval split for it to follow them (or the peer's automaton is stricter than its
/// countertrace, as for two patterns; docs/timed.md).
fn recheck(
    spec: &Spec,
    sys: &System,
    m: &Model,
    n: usize,
    what: &str,
    breaks: Option<usize>,
) -> Result<Option<usize>, DenseError> {
    let run = run_of(sys, m, n);
    let matched = |a: &Automaton| {
        super::eval::matched(&sys.bdd, &a.pea.phases, &run, &spec.context)
            .map_err(|e| DenseError::Witness(format!("{what}: {}: {e}", a.id)))
    };
    for a in &sys.automata {
        if breaks.is_some_and(|b| sys.automata[b].req == a.req) {
            continue;
        }
        if matched(a)? {
            let shown: Vec<String> = run
                .iter()
                .map(|p| {
                    let vals: Vec<String> = p
                        .state
                        .values
                        .iter()
                        .map(|(k, v)| format!("{k}={v}"))
                        .collect();
                    format!("{} ticks: {}", p.length, vals.join(" "))
                })
                .collect();
            return Err(DenseError::Witness(format!(
                "{what} ({} intervals) breaks {} by the countertrace evaluator: {}",
                n + 1,
                a.id,
                shown.join("; ")
            )));
        }
    }
    match breaks {
        Some(b) if !matched(&sys.automata[b])? => Ok(Some(b)),
        _ => Ok(None),
    }
}

/// The answer when a run that breaks automaton `a` by its automaton does not break its
/// countertrace ([`recheck`] names it).
fn not_confirmed(sys: &System, a: usize, k: usize) -> Reach {
    Reach::Unknown {
        reason: solver::Undecided::other(format!(
            "a run of {} intervals leaves {}'s automaton without a next step, but its countertrace does not occur in it (the run needs finer intervals)",
            k + 1,
            sys.automata[a].id
        )),
        up_to: k,
    }
}

fn automaton_name(spec: &Spec, a: &Automaton) -> String {
    let many = spec.requirements[a.req]
        .dense
        .as_ref()
        .is_some_and(|p| p.kind.multiple_countertraces());
    if many {
        format!("{} (countertrace {})", a.id, a.ct)
    } else {
        a.id.clone()
    }
}

fn combinations(items: &[usize], m: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut cur = Vec::new();
    fn rec(
        items: &[usize],
        m: usize,
        start: usize,
        cur: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        if cur.len() == m {
            out.push(cur.clone());
            return;
        }
        for i in start..items.len() {
            cur.push(items[i]);
            rec(items, m, i + 1, cur, out);
            cur.pop();
        }
    }
    rec(items, m, 0, &mut cur, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use solver::SolverKind;

    /// A spec read from Ultimate's `.req` syntax.
    fn spec(text: &str) -> Spec {
        let imported = extract::req_to_spec("t.req", text, None).expect("imports");
        crate::parse_spec(logic::SourceFile::new("t.req", imported.toml)).expect("loads")
    }

    /// What [`localize`] makes of the question whether a run the others allow breaks
    /// `id`'s automaton (its redundancy), asked of the part of that automaton and the
    /// invariants.
    fn localized(text: &str, id: &str) -> (System, Localized) {
        let spec = spec(text);
        let sys = system(&spec);
        let n = sys.automata.len();
        let sys = sys.with_violations(vec![true; n]);
        let tb = spec.time.as_ref().expect("timed");
        let a = (sys.automata.iter())
            .position(|a| a.id == id)
            .expect("the automaton");
        let question = Question::Violated { a };
        let keep: Part = (0..n)
            .map(|b| b == a || sys.automata[b].pea.is_invariant())
            .collect();
        let mut part = sys.restricted(keep.clone());
        part.violable = (0..n).map(|b| b == a).collect();
        let config = SolverConfig::new(SolverKind::Z3);
        let ctx = Ctx {
            spec: &spec,
            sys: &sys,
            tb,
        };
        let out = localize(&ctx, &part, &question, &keep, &config).expect("localizes");
        (sys, out)
    }

    const HEAD: &str = "Input m is bool\nOutput o is bool\nOutput q is bool\n\
        A: Globally, it is always the case that if \"m\" holds for at least 8 time units, then \"q\" holds afterwards.\n\
        INV: Globally, it is always the case that if \"m\" holds, then \"o\" holds as well.\n";

    #[test]
    fn a_run_of_the_part_that_an_automaton_left_out_breaks_brings_it_in() {
        let text = format!(
            "{HEAD}RESP: Globally, it is always the case that if \"m\" holds then \"!o\" holds after at most 6 time units.\n"
        );
        let (sys, out) = localized(&text, "A");
        let resp = (sys.automata.iter()).position(|a| a.id == "RESP").unwrap();
        match out {
            Localized::Breaks(more) => assert_eq!(more, vec![resp]),
            Localized::Whole(r) => panic!("RESP breaks every such run, yet: {r:?}"),
            Localized::NoRun => panic!("the part has a run"),
        }
    }

    #[test]
    fn a_run_of_the_part_that_nothing_left_out_breaks_answers_the_question() {
        let text = format!(
            "{HEAD}LATE: Globally, it is always the case that if \"m\" holds then \"!o\" holds after at most 60 time units.\n"
        );
        match localized(&text, "A").1 {
            Localized::Whole(Reach::Reachable { trace, .. }) => assert!(!trace.rows.is_empty()),
            Localized::Whole(r) => panic!("a run, not {r:?}"),
            Localized::Breaks(b) => panic!("nothing left out breaks it, yet {b:?}"),
            Localized::NoRun => panic!("the part has a run"),
        }
    }

    #[test]
    fn a_requirement_that_can_never_hold_makes_the_spec_inconsistent() {
        for text in [
            "Output z is bool\nR: Globally, it is never the case that \"!(z) || z\" holds.\n",
            "Input o is bool\nOutput z is bool\n\
             R: Globally, it is always the case that \"o && !(o)\" holds.\n\
             S: Globally, it is always the case that if \"z\" holds then \"!o\" holds after at most 3 time units.\n",
        ] {
            let options = DenseOptions::new(SolverConfig::new(SolverKind::Z3));
            let report = audit_dense(&spec(text), &options).expect("audits");
            assert_eq!(
                report.consistency,
                DenseConsistency::Inconsistent {
                    because: vec!["R".into()]
                },
                "{text}"
            );
        }
    }
}
