//! Test obligations of a requirement (docs/tests.md): what a suite must show about it.
//!
//! For a requirement `T => R` (an invariant is `true => R`):
//!
//! * `trigger`: a state where `T` holds (the requirement applies; `R` then holds in
//!   every valid state, so the case shows the response).
//! * `Tk=true`, `Tk=false`: for the k-th condition of `T`, a state where the condition
//!   has that outcome and decides `T` (negating it alone would change `T`). The two
//!   form a masking MC/DC pair: the trigger's outcome (applies / does not apply) changes
//!   with the condition, the other conditions masked or unchanged. This is Whalen et
//!   al.'s unique-first-cause obligation on a state formula.
//! * `Rk`: for the k-th condition of `R`, a state where `T` holds and the condition
//!   decides `R` (negating it alone would violate the requirement). Its other outcome
//!   violates the requirement, so it is no test: no valid system shows it.
//! * `Tk@at`, `Tk@above`, `Tk@below`: for a numeric comparison `a op b` in `T`, the
//!   states where `a - b` is 0, `+step` and `-step` (the bound, and its nearest values
//!   on both sides at the variables' step), with the comparison deciding `T`.
//!   `Rk@...`: the same for comparisons in `R` that mention an input, on the side that
//!   keeps the requirement (the other side violates it).
//!
//! Every obligation is a formula over one state; a case meets it when the formula
//! holds in the case's state.

use crate::conditions::{comparison, conditions, decides, Occurrence};
use crate::problem::Problem;
use logic::{Op, Sort, Term};
use num_rational::BigRational;
use num_traits::Zero;
use reqs::spec::{Requirement, Shape};
use serde::Serialize;

/// Which part of a requirement a condition is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Part {
    /// The trigger.
    Trigger,
    /// The response (or the whole invariant).
    Response,
}

/// Where a boundary case sits relative to the bound of `a op b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Point {
    /// `a - b = 0`.
    At,
    /// `a - b = +step`.
    Above,
    /// `a - b = -step`.
    Below,
}

impl Point {
    /// `at`, `above`, `below`.
    pub fn name(self) -> &'static str {
        match self {
            Point::At => "at",
            Point::Above => "above",
            Point::Below => "below",
        }
    }
}

/// What an obligation asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Kind {
    /// The trigger holds (for an invariant: any valid state).
    Trigger,
    /// A trigger condition with this outcome decides the trigger.
    TriggerCondition {
        /// One-based index among the trigger's conditions.
        index: usize,
        /// The condition's outcome.
        outcome: bool,
    },
    /// With the trigger, a response condition decides the response.
    ResponseCondition {
        /// One-based index among the response's conditions.
        index: usize,
    },
    /// A numeric comparison at, just above or just below its bound.
    Boundary {
        /// Trigger or response.
        part: Part,
        /// One-based index among that part's conditions.
        index: usize,
        /// Where.
        point: Point,
        /// The step: `a - b` is `0`, `step` or `-step`.
        step: String,
        /// The comparison's outcome there.
        outcome: bool,
    },
}

/// One obligation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Obligation {
    /// `R-ART-1/trigger`, `R-ART-1/T1=true`, `R-ART-1/R2`, `R-ART-1/T1@below`.
    pub id: String,
    /// The requirement's id.
    pub requirement: String,
    /// What it asks for.
    #[serde(flatten)]
    pub kind: Kind,
    /// The condition, printed (SMT-LIB), for condition and boundary obligations.
    pub condition: Option<String>,
    /// The formula a case's state must satisfy.
    #[serde(skip)]
    pub formula: Term,
}

/// The obligations of every formalized requirement, in spec order.
pub fn obligations(p: &Problem, boundaries: bool) -> Vec<Obligation> {
    let mut out = Vec::new();
    for r in p.spec.formalized() {
        out.extend(of_requirement(p, r, boundaries));
    }
    out
}

/// The obligations of one requirement.
pub fn of_requirement(p: &Problem, r: &Requirement, boundaries: bool) -> Vec<Obligation> {
    let formula = r.formula.clone().expect("formalized");
    let (trigger, response) = match &r.shape {
        Shape::Conditional { trigger, response } => (trigger.clone(), response.clone()),
        Shape::Invariant => (Term::Bool(true), formula),
    };
    let mut out = Vec::new();
    let ob = |suffix: String, kind: Kind, condition: Option<&Term>, formula: Term| Obligation {
        id: format!("{}/{suffix}", r.id),
        requirement: r.id.clone(),
        kind,
        condition: condition.map(logic::print::term),
        formula,
    };
    out.push(ob("trigger".into(), Kind::Trigger, None, trigger.clone()));
    let tconds = conditions(&trigger);
    for (k, o) in tconds.iter().enumerate() {
        for outcome in [true, false] {
            let value = if outcome {
                o.atom.clone()
            } else {
                Term::not(o.atom.clone())
            };
            out.push(ob(
                format!("T{}={outcome}", k + 1),
                Kind::TriggerCondition {
                    index: k + 1,
                    outcome,
                },
                Some(&o.atom),
                and(vec![value, decides(&trigger, o)]),
            ));
        }
    }
    let rconds = conditions(&response);
    for (k, o) in rconds.iter().enumerate() {
        out.push(ob(
            format!("R{}", k + 1),
            Kind::ResponseCondition { index: k + 1 },
            Some(&o.atom),
            and(vec![trigger.clone(), decides(&response, o)]),
        ));
    }
    if boundaries {
        // The trigger's conditions at every boundary point; the response's that read an
        // input at the points where they hold, under the trigger.
        let parts = [
            (Part::Trigger, "T", &tconds, &trigger, Term::Bool(true)),
            (Part::Response, "R", &rconds, &response, trigger.clone()),
        ];
        for (part, letter, conds, whole, under) in parts {
            let holding_only = part == Part::Response;
            for (k, o) in conds.iter().enumerate() {
                let mentions_input = || o.atom.free_vars().iter().any(|(n, _)| p.roles.is_input(n));
                if holding_only && !mentions_input() {
                    continue;
                }
                for (point, step, outcome, offset) in boundary_points(p, o, holding_only) {
                    out.push(ob(
                        format!("{letter}{}@{}", k + 1, point.name()),
                        Kind::Boundary {
                            part,
                            index: k + 1,
                            point,
                            step,
                            outcome,
                        },
                        Some(&o.atom),
                        // `and` drops the trigger part's `true`.
                        and(vec![under.clone(), offset, decides(whole, o)]),
                    ));
                }
            }
        }
    }
    out
}

/// The conjunction of `v` without its `true`s.
fn and(mut v: Vec<Term>) -> Term {
    v.retain(|t| *t != Term::Bool(true));
    Term::conjunction(v)
}

/// The boundary points of a comparison: point, step text, the comparison's outcome
/// there, and the formula that puts `a - b` there. With `holding_only`, only the points
/// where the comparison holds.
fn boundary_points(
    p: &Problem,
    o: &Occurrence,
    holding_only: bool,
) -> Vec<(Point, String, bool, Term)> {
    let Some((op, diff)) = comparison(&o.atom) else {
        return Vec::new();
    };
    let sort = diff.sort();
    // The finest step among the comparison's variables (Int variables: 1).
    let mut step: Option<BigRational> = None;
    for (n, _) in o.atom.free_vars() {
        if let Some(s) = p.step_of(&n) {
            step = Some(match step {
                Some(t) if t < s => t,
                _ => s,
            });
        }
    }
    let Some(mut step) = step else {
        return Vec::new();
    };
    if sort == Sort::Int {
        // An integer difference moves by whole units.
        step = BigRational::from_integer(step.ceil().to_integer().max(1.into()));
    }
    let lit = |r: &BigRational| match sort {
        Sort::Int => Term::Int(r.to_integer()),
        _ => Term::Real(r.clone()),
    };
    let holds = |d: &BigRational| -> bool {
        let z = BigRational::zero();
        match op {
            Op::Lt => *d < z,
            Op::Le => *d <= z,
            Op::Gt => *d > z,
            Op::Ge => *d >= z,
            _ => d.is_zero(),
        }
    };
    let mut out = Vec::new();
    for (point, d) in [
        (Point::At, BigRational::zero()),
        (Point::Above, step.clone()),
        (Point::Below, -step.clone()),
    ] {
        let outcome = holds(&d);
        if holding_only && !outcome {
            continue;
        }
        out.push((
            point,
            crate::values::show_rational(&step),
            outcome,
            Term::app(Op::Eq, vec![diff.clone(), lit(&d)]),
        ));
    }
    out
}
