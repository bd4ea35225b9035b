//! Mutation analysis (VeriMed section 2.4): would the spec notice if a requirement were
//! wrong? Each requirement's formula is mutated by operators grouped in the paper's four
//! fault categories plus operator and boundary flips and response negation. A mutant is
//! *detected* when the mutated model is globally inconsistent, or when the mutant is not
//! equivalent to the original under the domain constraints (checked in both directions,
//! with a distinguishing state).

use crate::audit::{components, load_part, witness, Session, Witness};
use crate::spec::{shape_of, Shape, Spec};
use logic::{Op, Sort, Term};
use num_bigint::BigInt;
use num_rational::BigRational;
use serde::Serialize;
use solver::Outcome;
use solver::{Pool, SolverConfig, SolverError};

/// The fault categories.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    /// The trigger fires in fewer states (a disjunct dropped, a threshold moved past).
    FalseAlarmSuppression,
    /// A guard of the trigger is removed (a conjunct dropped, a mode test made true).
    GuardRemoval,
    /// A value the response demands is changed (a constant, an enum value).
    ValueMismatch,
    /// A limit in a comparison is moved by one unit.
    LimitViolation,
    /// A relational operator is replaced by its opposite.
    RelationalFlip,
    /// A strict comparison becomes non-strict or the other way round.
    BoundaryFlip,
    /// The response (or invariant) is negated.
    ResponseNegation,
}

impl Category {
    /// All categories, in report order.
    pub const ALL: [Category; 7] = [
        Category::FalseAlarmSuppression,
        Category::GuardRemoval,
        Category::ValueMismatch,
        Category::LimitViolation,
        Category::RelationalFlip,
        Category::BoundaryFlip,
        Category::ResponseNegation,
    ];

    /// The category's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Category::FalseAlarmSuppression => "false-alarm trigger suppression",
            Category::GuardRemoval => "mode-transition guard removal",
            Category::ValueMismatch => "value mismatch",
            Category::LimitViolation => "limit violation",
            Category::RelationalFlip => "relational operator flip",
            Category::BoundaryFlip => "boundary flip",
            Category::ResponseNegation => "response negation",
        }
    }
}

/// One mutant of one requirement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mutant {
    /// The requirement mutated.
    pub requirement: String,
    /// Its category.
    pub category: Category,
    /// What was changed, in words.
    pub description: String,
    /// The mutated formula.
    #[serde(serialize_with = "ser_term")]
    pub formula: Term,
}

fn ser_term<S: serde::Serializer>(t: &Term, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&logic::print::term(t))
}

/// Where a subterm sits in a formula, for choosing operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Trigger,
    Response,
}

/// Every mutant of a formula.
pub fn mutants(requirement: &str, formula: &Term) -> Vec<Mutant> {
    let mut out = Vec::new();
    let mut push = |category, description: String, formula: Term| {
        if out.iter().all(|m: &Mutant| m.formula != formula) {
            out.push(Mutant {
                requirement: requirement.to_string(),
                category,
                description,
                formula,
            });
        }
    };
    let (trigger, response) = match shape_of(formula) {
        Shape::Conditional { trigger, response } => (Some(trigger), response),
        Shape::Invariant => (None, formula.clone()),
    };
    let rebuild = |t: Option<&Term>, r: &Term| match t {
        Some(t) => Term::app(Op::Implies, vec![t.clone(), r.clone()]),
        None => r.clone(),
    };
    if let Some(t) = &trigger {
        // Guard removal: drop a conjunct, or replace a mode/flag test by true.
        match t {
            Term::App(Op::And, args) => {
                for (a, nt) in without_each(Op::And, args) {
                    push(
                        Category::GuardRemoval,
                        format!("trigger without `{}`", logic::print::term(a)),
                        rebuild(Some(&nt), &response),
                    );
                }
            }
            _ => push(
                Category::GuardRemoval,
                "trigger removed (always applies)".into(),
                response.clone(),
            ),
        }
        // False-alarm suppression: drop a disjunct, or move a threshold so the trigger fires later.
        if let Term::App(Op::Or, args) = t {
            for (a, nt) in without_each(Op::Or, args) {
                push(
                    Category::FalseAlarmSuppression,
                    format!("trigger no longer fires on `{}`", logic::print::term(a)),
                    rebuild(Some(&nt), &response),
                );
            }
        }
        for (cat, d, nt) in comparison_edits(t, Place::Trigger) {
            push(cat, d, rebuild(Some(&nt), &response));
        }
    }
    for (cat, d, nr) in comparison_edits(&response, Place::Response) {
        push(cat, d, rebuild(trigger.as_ref(), &nr));
    }
    for (d, nr) in value_edits(&response) {
        push(Category::ValueMismatch, d, rebuild(trigger.as_ref(), &nr));
    }
    push(
        Category::ResponseNegation,
        if trigger.is_some() {
            "response negated".into()
        } else {
            "invariant negated".into()
        },
        rebuild(trigger.as_ref(), &Term::not(response.clone())),
    );
    out
}

/// For each argument of `op` applied to `args`: the argument, and `op` applied to the
/// others (the one left alone when just one is left).
fn without_each(op: Op, args: &[Term]) -> Vec<(&Term, Term)> {
    (0..args.len())
        .map(|i| {
            let mut rest = args.to_vec();
            rest.remove(i);
            let without = if rest.len() == 1 {
                rest.remove(0)
            } else {
                Term::app(op, rest)
            };
            (&args[i], without)
        })
        .collect()
}

/// Numeric literal plus/minus one unit.
fn shift(t: &Term, up: bool) -> Option<Term> {
    let one = |s: &Sort| match s {
        Sort::Int => Term::Int(BigInt::from(1)),
        _ => Term::Real(BigRational::from_integer(1.into())),
    };
    match t {
        Term::Int(i) => Some(Term::Int(if up { i + 1 } else { i - 1 })),
        Term::Real(r) => Some(Term::Real(if up {
            r + BigRational::from_integer(1.into())
        } else {
            r - BigRational::from_integer(1.into())
        })),
        t if t.sort().is_numeric() => Some(Term::app(
            if up { Op::Add } else { Op::Sub },
            vec![t.clone(), one(&t.sort())],
        )),
        _ => None,
    }
}

type Edit = (Category, String, Term);

/// Edits of the comparisons in `t`: limits moved, operators flipped, boundaries flipped.
fn comparison_edits(t: &Term, place: Place) -> Vec<Edit> {
    let mut out = Vec::new();
    walk(t, &mut Vec::new(), &mut |path, sub| {
        let Term::App(op, args) = sub else { return };
        if !matches!(op, Op::Le | Op::Lt | Op::Ge | Op::Gt) || args.len() != 2 {
            return;
        }
        let shown = logic::print::term(sub);
        let mut edit = |cat: Category, new: Term| {
            out.push((
                cat,
                format!("`{shown}` becomes `{}`", logic::print::term(&new)),
                replace(t, path, new),
            ));
        };
        // Limits: move the right-hand side one unit either way.
        let lower_bound = matches!(op, Op::Gt | Op::Ge);
        for up in [true, false] {
            if let Some(nv) = shift(&args[1], up) {
                let mut a = args.clone();
                a[1] = nv;
                // In a trigger, moving the limit so the condition holds less often is a
                // suppressed alarm; everywhere else it is a violated limit.
                let suppresses = place == Place::Trigger && up == lower_bound;
                let cat = if suppresses {
                    Category::FalseAlarmSuppression
                } else {
                    Category::LimitViolation
                };
                edit(cat, Term::App(*op, a));
            }
        }
        let flipped = match op {
            Op::Le => Op::Gt,
            Op::Lt => Op::Ge,
            Op::Ge => Op::Lt,
            _ => Op::Le,
        };
        edit(Category::RelationalFlip, Term::App(flipped, args.clone()));
        let boundary = match op {
            Op::Le => Op::Lt,
            Op::Lt => Op::Le,
            Op::Ge => Op::Gt,
            _ => Op::Ge,
        };
        edit(Category::BoundaryFlip, Term::App(boundary, args.clone()));
    });
    out
}

/// Edits of demanded values: `(= x c)` with c a number (±1) or an enum value (another one).
fn value_edits(t: &Term) -> Vec<(String, Term)> {
    let mut out = Vec::new();
    walk(t, &mut Vec::new(), &mut |path, sub| {
        let Term::App(Op::Eq, args) = sub else { return };
        if args.len() != 2 {
            return;
        }
        let shown = logic::print::term(sub);
        for side in 0..2 {
            if let Some(nv) = shift(&args[side], true).filter(|_| args[side].is_literal()) {
                let mut a = args.clone();
                a[side] = nv;
                let new = Term::App(Op::Eq, a);
                out.push((
                    format!("`{shown}` becomes `{}`", logic::print::term(&new)),
                    replace(t, path, new),
                ));
            }
        }
    });
    out
}

fn walk(t: &Term, path: &mut Vec<usize>, f: &mut dyn FnMut(&[usize], &Term)) {
    f(path, t);
    if let Term::App(_, args) = t {
        for (i, a) in args.iter().enumerate() {
            path.push(i);
            walk(a, path, f);
            path.pop();
        }
    }
}

fn replace(t: &Term, path: &[usize], new: Term) -> Term {
    match (path.split_first(), t) {
        (None, _) => new,
        (Some((i, rest)), Term::App(op, args)) => {
            let mut a = args.clone();
            a[*i] = replace(&args[*i], rest, new);
            Term::App(*op, a)
        }
        _ => t.clone(),
    }
}

/// Whether and how a mutant was detected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Detection {
    /// Replacing the requirement with the mutant makes the requirements inconsistent.
    Inconsistent,
    /// Not equivalent under the domain: a state that one allows and the other forbids.
    NotEquivalent {
        /// `original-only` (the mutant forbids it) or `mutant-only` (the mutant allows it).
        direction: &'static str,
        /// The distinguishing state, over the formula's variables.
        witness: Witness,
    },
    /// Equivalent under the domain: the spec cannot tell the two apart.
    Equivalent,
    /// The solver gave no answer.
    Unknown {
        /// Why.
        #[serde(flatten)]
        reason: solver::Undecided,
    },
}

/// One mutant and its detection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MutantResult {
    /// The mutant.
    #[serde(flatten)]
    pub mutant: Mutant,
    /// The outcome.
    pub detection: Detection,
}

/// Detection counts of one category, with a Wilson interval.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rate {
    /// The category (`overall` for the total).
    pub category: String,
    /// Mutants.
    pub mutants: usize,
    /// Detected mutants.
    pub detected: usize,
    /// Detected / mutants.
    pub rate: f64,
    /// Two-sided Wilson 95% interval.
    pub interval: (f64, f64),
}

/// The whole analysis.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MutationReport {
    /// Every mutant with its outcome.
    pub mutants: Vec<MutantResult>,
    /// Per category, then `overall`.
    pub rates: Vec<Rate>,
}

/// The two-sided Wilson score interval for `k` successes in `n` trials at 95%.
pub fn wilson(k: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let z = 1.959_963_984_540_054_f64;
    let n = n as f64;
    let p = k as f64 / n;
    let denom = 1.0 + z * z / n;
    let center = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    ((center - half).max(0.0), (center + half).min(1.0))
}

fn detect(s: &mut Session, spec: &Spec, i: usize, m: &Mutant) -> Result<Detection, SolverError> {
    let original = spec.requirements[i].formula.clone().expect("formalized");
    let dom = s.lits.domain().to_vec();
    let mut rest = dom.clone();
    rest.extend(s.lits.reqs_except(Some(i)));
    // The mutated model: the others plus the mutant.
    match s.check(&rest, std::slice::from_ref(&m.formula))? {
        Outcome::Unsat(_) => return Ok(Detection::Inconsistent),
        Outcome::Unknown(reason) => {
            return Ok(Detection::Unknown {
                reason: reason.clone().into(),
            })
        }
        Outcome::Sat(_) => {}
    }
    let both = Term::app(Op::And, vec![original.clone(), m.formula.clone()]);
    for (direction, holds, fails) in [
        ("original-only", &original, &m.formula),
        ("mutant-only", &m.formula, &original),
    ] {
        match s.check(&dom, &[holds.clone(), Term::not(fails.clone())])? {
            Outcome::Sat(model) => {
                return Ok(Detection::NotEquivalent {
                    direction,
                    witness: witness(spec, &model, &[&both]),
                })
            }
            Outcome::Unknown(reason) => {
                return Ok(Detection::Unknown {
                    reason: reason.clone().into(),
                })
            }
            Outcome::Unsat(_) => {}
        }
    }
    Ok(Detection::Equivalent)
}

/// Why mutation analysis could not run.
#[derive(Debug, thiserror::Error)]
pub enum MutateError {
    /// A solver session failed.
    #[error(transparent)]
    Solver(#[from] SolverError),
    /// The analysis means nothing for this spec: with inconsistent requirements every
    /// mutant would count as detected.
    #[error("mutation analysis is not meaningful here: {0}")]
    NotMeaningful(String),
}

/// Runs the analysis over every formalized requirement. The spec's own requirements must
/// be consistent: that is checked first, and an inconsistent (or undecided) spec is
/// refused, since every mutant of it would look detected.
pub fn analyze(
    spec: &Spec,
    config: &SolverConfig,
    jobs: usize,
) -> Result<MutationReport, MutateError> {
    if spec.formalized().next().is_none() {
        return Err(MutateError::NotMeaningful(
            "the spec has no formalized requirement to mutate".into(),
        ));
    }
    {
        let mut solver = solver::Solver::start(config)?;
        let lits = load_part(&mut solver, spec, None)?;
        let mut s = Session::new(&mut solver, lits);
        let mut all = s.lits.domain().to_vec();
        all.extend(s.lits.reqs_except(None));
        match s.check(&all, &[])? {
            Outcome::Sat(_) => {}
            Outcome::Unsat(core) => {
                let min = s.minimize(&[], core, &[])?;
                return Err(MutateError::NotMeaningful(format!(
                    "the requirements are inconsistent (conflict: {}); every mutant would count as detected. Run `vera audit` and fix the conflict first",
                    s.lits.ids(spec, &min).join(", ")
                )));
            }
            Outcome::Unknown(reason) => {
                return Err(MutateError::NotMeaningful(format!(
                    "the consistency of the requirements is unknown ({reason})"
                )));
            }
        }
    }
    let parts = components(spec);
    let mut items: Vec<(usize, usize, Mutant)> = Vec::new();
    for (k, c) in parts.iter().enumerate() {
        for &i in &c.requirements {
            let r = &spec.requirements[i];
            for m in mutants(&r.id, r.formula.as_ref().expect("formalized")) {
                items.push((k, i, m));
            }
        }
    }
    let pool = Pool::new(config.clone(), jobs);
    // Mutants of one component share a loaded solver; the mutant may bring in no new
    // variables (mutation operators only rearrange the formula's own terms).
    let mut results: Vec<Option<MutantResult>> = vec![None; items.len()];
    let groups: Vec<usize> = (0..parts.len()).collect();
    let out = pool.map(&groups, |solver, &k| {
        let lits = load_part(solver, spec, Some(&parts[k]))?;
        let mut s = Session::new(solver, lits);
        let mut done = Vec::new();
        for (idx, (kk, i, m)) in items.iter().enumerate() {
            if *kk != k {
                continue;
            }
            let detection = match detect(&mut s, spec, *i, m) {
                Ok(d) => d,
                Err(e) => Detection::Unknown {
                    reason: solver::Undecided::error(e),
                },
            };
            done.push((
                idx,
                MutantResult {
                    mutant: m.clone(),
                    detection,
                },
            ));
        }
        Ok(done)
    });
    for r in out {
        for (idx, mr) in r? {
            results[idx] = Some(mr);
        }
    }
    let mutants: Vec<MutantResult> = results
        .into_iter()
        .map(|r| r.expect("every mutant checked"))
        .collect();
    let mut rates = Vec::new();
    let detected = |r: &MutantResult| {
        matches!(
            r.detection,
            Detection::Inconsistent | Detection::NotEquivalent { .. }
        )
    };
    for c in Category::ALL {
        let of: Vec<&MutantResult> = mutants.iter().filter(|m| m.mutant.category == c).collect();
        if of.is_empty() {
            continue;
        }
        let k = of.iter().filter(|m| detected(m)).count();
        rates.push(Rate {
            category: c.name().into(),
            mutants: of.len(),
            detected: k,
            rate: k as f64 / of.len() as f64,
            interval: wilson(k, of.len()),
        });
    }
    let k = mutants.iter().filter(|m| detected(m)).count();
    rates.push(Rate {
        category: "overall".into(),
        mutants: mutants.len(),
        detected: k,
        rate: if mutants.is_empty() {
            0.0
        } else {
            k as f64 / mutants.len() as f64
        },
        interval: wilson(k, mutants.len()),
    });
    Ok(MutationReport { mutants, rates })
}
