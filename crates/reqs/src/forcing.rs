//! Requirements that fix a variable to one value in every state.
//!
//! A formula such as `(not (and (=> subvoltage cornerL) (=> subvoltage cornerR)))`,
//! written for a conditional requirement, holds only when `subvoltage` is true: with the
//! domain constraints it *fixes* `subvoltage = true` in every state. Every requirement
//! triggered by `subvoltage = false` then becomes vacuous, and every requirement that only
//! asks something of `subvoltage` becomes redundant, and neither finding names the one
//! formula to correct. So every requirement is checked on its own: which variables does
//! its formula, with the domain constraints, fix (while the domain alone does not)?
//!
//! A fixed variable is a finding of its own when the requirement cannot mean it: the
//! variable is an input (the environment chooses it; no requirement on the system can fix
//! it), the formula is conditional (`(=> trigger response)`), or the text is conditional
//! ("if", "when", "while", ...). An unconditional requirement that fixes an output
//! ("the heater shall be off") is only recorded. Wherever a requirement that fixes a
//! variable makes another vacuous or redundant, the report names it as the likely cause.
//!
//! The check is cheap: one model of all requirements (or of the one requirement) serves
//! as a base; a variable whose value can be changed in the base without breaking the
//! formula or a domain constraint that mentions it (vera's evaluator) is not fixed;
//! only the variables left are asked of the solver, all at once ("can any of them take
//! another value?"), until the answer is no.

use crate::audit::{AuditReport, Redundancy, Vacuity};
use crate::equiv::{Checker, EquivError, Universe};
use crate::spec::{Role, Shape, Spec};
use logic::{Model, Op, Sort, Symbol, Term, Value};
use num_bigint::BigInt;
use num_rational::BigRational;
use serde::Serialize;
use solver::SolverConfig;
use std::collections::{BTreeMap, HashMap, HashSet};

/// Why a fixed variable is (or is not) a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FixKind {
    /// The variable is an input: the environment chooses it, so no requirement can fix it.
    Input,
    /// The formula is conditional (`(=> trigger response)`) yet fixes a value always.
    ConditionalFormula,
    /// The text is conditional ("if", "when", "while", ...) yet the formula fixes a value
    /// always.
    ConditionalText,
    /// An unconditional requirement fixes an output: recorded, not a finding.
    Invariant,
}

impl FixKind {
    /// True for the kinds that are findings.
    pub fn is_finding(self) -> bool {
        self != FixKind::Invariant
    }

    /// Why it is a finding, for people.
    pub fn why(self) -> &'static str {
        match self {
            FixKind::Input => "it is an input, chosen by the environment",
            FixKind::ConditionalFormula => "the formula is conditional",
            FixKind::ConditionalText => "the text is conditional",
            FixKind::Invariant => "the requirement is unconditional",
        }
    }
}

/// A variable a requirement fixes in every state of the domain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Forced {
    /// The requirement whose formula fixes it.
    pub requirement: String,
    /// The variable.
    pub variable: String,
    /// The one value it can take, as written for people.
    pub value: String,
    /// The variable's unit, if the schema gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// Whether (and why) this is a finding.
    pub kind: FixKind,
}

/// A finding about one requirement whose likely cause is a variable another requirement
/// fixes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cause {
    /// `vacuous` or `redundant`.
    pub finding: &'static str,
    /// The requirement with that finding.
    pub of: String,
    /// What the other requirement fixes.
    #[serde(flatten)]
    pub forced: Forced,
}

/// What [`fixes`] found: the fixed variables, and the requirements for which the solver
/// could not tell.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fixes {
    /// Every fixed variable, in spec order of the requirements.
    pub forced: Vec<Forced>,
    /// Requirement ids for which an `unknown` answer left some variable undecided.
    pub undecided: Vec<String>,
}

/// True when the text reads as conditional: it names a condition ("if", "when",
/// "while", "whenever", "unless", "in case", "once", "as long as", "provided").
pub fn text_is_conditional(text: &str) -> bool {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let single = [
        "if", "when", "while", "whenever", "unless", "once", "provided",
    ];
    words.iter().any(|w| single.contains(&w.as_str()))
        || words
            .windows(2)
            .any(|p| (p[0] == "in" && p[1] == "case") || (p[0] == "as" && p[1] == "long"))
}

/// Values to try instead of `v` (the variable's bounds among them).
fn alternatives(
    v: &Value,
    bounds: (Option<&BigRational>, Option<&BigRational>),
    spec: &Spec,
) -> Vec<Value> {
    let mut out = Vec::new();
    match v {
        Value::Bool(b) => out.push(Value::Bool(!b)),
        Value::Int(i) => {
            out.push(Value::Int(i + 1));
            out.push(Value::Int(i - 1));
            for b in [bounds.0, bounds.1].into_iter().flatten() {
                if b.is_integer() {
                    out.push(Value::Int(b.to_integer()));
                }
            }
        }
        Value::Real(r) => {
            let one = BigRational::from_integer(BigInt::from(1));
            let half = BigRational::new(BigInt::from(1), BigInt::from(2));
            out.push(Value::Real(r + &one));
            out.push(Value::Real(r - &one));
            out.push(Value::Real(r + &half));
            out.push(Value::Real(r - &half));
            for b in [bounds.0, bounds.1].into_iter().flatten() {
                out.push(Value::Real(b.clone()));
            }
        }
        Value::Enum(e, ctor) => {
            if let Some((_, ctors)) = spec.enums.iter().find(|(n, _)| n == e) {
                for c in ctors.iter().filter(|c| *c != ctor) {
                    out.push(Value::Enum(e.clone(), c.clone()));
                }
            }
        }
    }
    out.retain(|x| x != v);
    out
}

/// For every formalized requirement, the variables its formula fixes with the domain
/// constraints while the domain alone does not. Nothing runs when the domain constraints
/// are inconsistent (every variable is "fixed" then).
pub fn fixes(spec: &Spec, config: &SolverConfig) -> Result<Fixes, EquivError> {
    let universe = Universe::of_spec(spec);
    let mut checker = match Checker::new(&universe, config) {
        Ok(c) => c,
        Err(EquivError::DomainInconsistent) => return Ok(Fixes::default()),
        Err(e) => return Err(e),
    };
    let formulas: Vec<Term> = spec
        .formalized()
        .filter_map(|r| r.formula.clone())
        .collect();
    // A model of every requirement satisfies each one: one base for all when it exists.
    let shared: Option<Model> = checker.model_of(&formulas)?.flatten();
    // The domain constraints that mention each variable.
    let mut domain_of: HashMap<Symbol, Vec<&Term>> = HashMap::new();
    for d in &spec.domain {
        for (n, _) in d.formula.free_vars() {
            domain_of.entry(n).or_default().push(&d.formula);
        }
    }
    let var_info: HashMap<&str, &crate::spec::Variable> =
        spec.variables.iter().map(|v| (&*v.name, v)).collect();
    // Whether the domain alone lets `v` differ from `x`, by (variable, value).
    let mut domain_fixes: HashMap<(Symbol, String), Option<bool>> = HashMap::new();
    let mut out = Fixes::default();
    for r in spec.formalized() {
        let Some(f) = &r.formula else { continue };
        let own;
        let base: &Model = match &shared {
            Some(m) => m,
            None => match checker.model_of(std::slice::from_ref(f))? {
                Some(Some(m)) => {
                    own = m;
                    &own
                }
                // Unsatisfiable with the domain: the other audits say so.
                Some(None) => continue,
                None => {
                    out.undecided.push(r.id.clone());
                    continue;
                }
            },
        };
        let mut open: Vec<(Symbol, Sort, Value)> = Vec::new();
        let mut mover = Mover::new(base, f, spec);
        for (name, sort) in f.free_vars() {
            let Some(info) = var_info.get(&*name) else {
                continue; // not a schema variable (a let or a parameter)
            };
            let Some(value) = base.get(&name).cloned() else {
                continue;
            };
            if !mover.movable(&name, &value, info, domain_of.get(&name)) {
                open.push((name, sort, value));
            }
        }
        // Ask the solver about the rest, all at once, until none can move.
        let mut undecided = false;
        // True once the solver said that none of `open` can move.
        let mut confirmed = false;
        while !open.is_empty() && !confirmed {
            let differ: Vec<Term> = open.iter().map(|(n, s, v)| distinct(n, s, v)).collect();
            let any = if differ.len() == 1 {
                differ[0].clone()
            } else {
                Term::app(Op::Or, differ)
            };
            match checker.model_of(&[f.clone(), any])? {
                Some(Some(m)) => {
                    // What the model moves is free, and so is what can move in it
                    // (one model often frees many: a solver may change one variable
                    // at a time).
                    let before = open.len();
                    let mut mover = Mover::new(&m, f, spec);
                    open.retain(|(n, _, v)| {
                        m.get(n).is_none_or(|x| x == v)
                            && !var_info
                                .get(&**n)
                                .is_some_and(|info| mover.movable(n, v, info, domain_of.get(n)))
                    });
                    if open.len() == before {
                        // The model names none of them: ask one at a time below.
                        break;
                    }
                }
                Some(None) => confirmed = true,
                None => {
                    undecided = true;
                    open.clear();
                }
            }
        }
        for (name, sort, value) in open {
            let other = distinct(&name, &sort, &value);
            if !confirmed {
                match checker.model_of(&[f.clone(), other.clone()])? {
                    Some(None) => {}
                    Some(Some(_)) => continue,
                    None => {
                        undecided = true;
                        continue;
                    }
                }
            }
            // The requirement fixes it; does the domain alone?
            let key = (name.clone(), value.to_string());
            let domain_free = match domain_fixes.get(&key) {
                Some(known) => *known,
                None => {
                    let known = checker.satisfiable(&other)?;
                    domain_fixes.insert(key, known);
                    known
                }
            };
            match domain_free {
                Some(true) => {}
                Some(false) => continue,
                None => {
                    undecided = true;
                    continue;
                }
            }
            let info = var_info.get(&*name).copied();
            out.forced.push(Forced {
                requirement: r.id.clone(),
                variable: name.to_string(),
                value: value.to_string(),
                unit: info.and_then(|v| v.unit.clone()),
                kind: fix_kind(r, info),
            });
        }
        if undecided {
            out.undecided.push(r.id.clone());
        }
    }
    out.undecided.dedup();
    Ok(out)
}

/// Which variables can move in one model `m` of `f` (see [`Mover::movable`]). `f` is
/// evaluated under `m` once; only a variable that evaluation read can change its value,
/// so `f` is evaluated again for those variables only, and `m` is copied once.
struct Mover<'a> {
    m: &'a Model,
    /// `m`, with one variable changed while [`Mover::movable`] runs.
    changed: Model,
    f: &'a Term,
    spec: &'a Spec,
    /// `f` is true under `m`.
    f_true: bool,
    /// The variables the evaluation of `f` under `m` read.
    f_reads: HashSet<Symbol>,
}

impl<'a> Mover<'a> {
    /// Evaluates `f` under `m` once, for the questions that follow.
    fn new(m: &'a Model, f: &'a Term, spec: &'a Spec) -> Mover<'a> {
        let (value, f_reads) = logic::eval::eval_bool_reading(f, m, &spec.context);
        Mover {
            m,
            changed: m.clone(),
            f,
            spec,
            f_true: value == Ok(true),
            f_reads,
        }
    }

    /// Whether `name` can take another value than `value` in `m` with `f` and the
    /// domain constraints that mention it (`domain`) still true: then `f` does not fix
    /// it. Checked by evaluation, without the solver.
    fn movable(
        &mut self,
        name: &Symbol,
        value: &Value,
        info: &crate::spec::Variable,
        domain: Option<&Vec<&Term>>,
    ) -> bool {
        let spec = self.spec;
        // Where `f` did not read `name`, its value does not change with `name`.
        let f_reads_it = self.f_reads.contains(name);
        let mut movable = false;
        for alt in alternatives(value, (info.min.as_ref(), info.max.as_ref()), spec) {
            self.changed.insert(name.clone(), alt);
            let changed = &self.changed;
            let ok = |t: &Term| logic::eval::eval_bool(t, changed, &spec.context) == Ok(true);
            let f_ok = if f_reads_it { ok(self.f) } else { self.f_true };
            if f_ok && domain.is_none_or(|ds| ds.iter().all(|d| ok(d))) {
                movable = true;
                break;
            }
        }
        // Back to `m`.
        match self.m.get(name) {
            Some(v) => self.changed.insert(name.clone(), v.clone()),
            None => {
                self.changed.values.remove(name);
            }
        }
        movable
    }
}

/// `n` (of sort `s`) differs from `v`.
fn distinct(n: &Symbol, s: &Sort, v: &Value) -> Term {
    Term::app(
        Op::Distinct,
        vec![Term::Var(n.clone(), s.clone()), v.to_term()],
    )
}

/// How requirement `r` fixes a variable (`info` when it is a schema variable): an
/// input, through a conditional formula or text, or as an invariant.
fn fix_kind(r: &crate::spec::Requirement, info: Option<&crate::spec::Variable>) -> FixKind {
    if info.is_some_and(|v| v.role == Some(Role::Input)) {
        FixKind::Input
    } else if matches!(r.shape, Shape::Conditional { .. }) {
        FixKind::ConditionalFormula
    } else if text_is_conditional(&r.text) {
        FixKind::ConditionalText
    } else {
        FixKind::Invariant
    }
}

/// The vacuity and redundancy findings whose likely cause is a variable a requirement
/// they name fixes: the requirement that makes the trigger unreachable (or subsumes)
/// fixes a variable the finding's requirement mentions.
pub fn causes(spec: &Spec, report: &AuditReport) -> Vec<Cause> {
    let mut by_req: BTreeMap<&str, Vec<&Forced>> = BTreeMap::new();
    for a in &report.requirements {
        for f in &a.fixes {
            by_req.entry(f.requirement.as_str()).or_default().push(f);
        }
    }
    let mut out = Vec::new();
    for a in &report.requirements {
        let mentions: Vec<String> = spec
            .requirements
            .iter()
            .find(|r| r.id == a.id)
            .and_then(|r| r.formula.as_ref())
            .map(|f| {
                f.free_vars()
                    .into_iter()
                    .map(|(n, _)| n.to_string())
                    .collect()
            })
            .unwrap_or_default();
        let mut named = |finding: &'static str, ids: &[String]| {
            for b in ids.iter().filter(|b| **b != a.id) {
                for f in by_req.get(b.as_str()).into_iter().flatten() {
                    if mentions.contains(&f.variable) {
                        out.push(Cause {
                            finding,
                            of: a.id.clone(),
                            forced: (*f).clone(),
                        });
                    }
                }
            }
        };
        if let Vacuity::Vacuous { because, .. } = &a.vacuity_model {
            named("vacuous", because);
        }
        if let Redundancy::Redundant { subsumed_by } = &a.redundancy {
            named("redundant", subsumed_by);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::text_is_conditional;

    #[test]
    fn conditional_texts() {
        assert!(text_is_conditional(
            "If the voltage drops, the lights shall dim."
        ));
        assert!(text_is_conditional("While driving, the low beam is on."));
        assert!(text_is_conditional(
            "In case of subvoltage, cornering lights are off."
        ));
        assert!(text_is_conditional(
            "The pump runs as long as flow is detected."
        ));
        assert!(!text_is_conditional("The heater shall be off."));
        assert!(!text_is_conditional("Whiff of elifant"));
    }
}
