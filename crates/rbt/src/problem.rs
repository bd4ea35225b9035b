//! What tests are derived from: a plain spec, who chooses each variable (inputs are
//! set by a test, outputs are observed), and the step of each numeric input (the
//! distance between a bound and its nearest values).
//!
//! A problem comes from a requirements spec ([`Problem::from_spec`]) or from the
//! SMT-LIB documentation side of a business rule ([`Problem::from_documentation`]),
//! whose assertions become requirements named by their line.

use crate::values;
use bl::check::bounds::{BoundItem, Bounds};
use bl::check::side::{inline_calls, Side, SideLabel};
use logic::{Command, Diagnostics, Op, Sort, SourceFile, Symbol, Term};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::Signed;
use reqs::spec::{shape_of, Constraint, Origin, Requirement, Variable};
use reqs::Spec;
use serde::Serialize;
use std::collections::BTreeMap;

/// Where the split into inputs and outputs comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RoleSource {
    /// The spec's `role` fields.
    Spec,
    /// Given on the command line (`--inputs`).
    Given,
    /// Inferred: a variable some requirement's response (or invariant) mentions is an
    /// output, every other variable an input.
    Inferred,
    /// A documentation side: the constants no assertion defines are inputs (or the
    /// ones the bounds map), the defined ones outputs.
    Documentation,
}

/// Inputs and outputs, each in schema order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Roles {
    /// Variables a test sets.
    pub inputs: Vec<Symbol>,
    /// Variables a test observes.
    pub outputs: Vec<Symbol>,
    /// Where the split comes from.
    pub source: RoleSource,
}

impl Roles {
    /// True for an input.
    pub fn is_input(&self, name: &str) -> bool {
        self.inputs.iter().any(|i| &**i == name)
    }
}

/// A spec with roles and steps, ready for test generation.
#[derive(Debug, Clone)]
pub struct Problem {
    /// The plain spec (calls to definitions inlined).
    pub spec: Spec,
    /// Inputs and outputs.
    pub roles: Roles,
    /// The step of each `Real` variable that has one other than the default.
    pub steps: BTreeMap<Symbol, BigRational>,
    /// The step of `Real` variables without one of their own.
    pub default_step: BigRational,
}

/// Why a problem cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum ProblemError {
    /// The documentation side does not read (every problem, located).
    #[error("{0}")]
    Invalid(bl::diag::Diagnostics),
    /// Timed requirements go through [`crate::timed`].
    #[error("the spec has timed requirements ({0}); their test sequences are made by the timed generator")]
    Timed(String),
    /// A name on the command line or in the bounds is not a variable.
    #[error("`{name}` is not a variable of the spec{hint}")]
    UnknownVariable {
        /// The name.
        name: String,
        /// Close names, if any.
        hint: String,
    },
    /// A step that is not a positive number, or a step for a non-Real variable.
    #[error("{0}")]
    BadStep(String),
    /// Something about the documentation side that tests cannot use.
    #[error("{0}")]
    Unsupported(String),
}

/// The default step of `Real` variables: one hundredth.
pub fn default_step() -> BigRational {
    BigRational::new(BigInt::from(1), BigInt::from(100))
}

impl Problem {
    /// A problem over a requirements spec. `inputs`, when given, names the inputs (the
    /// rest are outputs); otherwise the spec's roles are used (with at least one
    /// `role = "input"`, variables without a role are outputs), and without roles they
    /// are inferred ([`RoleSource::Inferred`]).
    pub fn from_spec(spec: Spec, inputs: Option<&[String]>) -> Result<Problem, ProblemError> {
        let timed: Vec<&str> = spec
            .requirements
            .iter()
            .filter(|r| r.timed.is_some())
            .map(|r| r.id.as_str())
            .take(5)
            .collect();
        if !timed.is_empty() {
            return Err(ProblemError::Timed(timed.join(", ")));
        }
        let names: Vec<Symbol> = spec.variables.iter().map(|v| v.name.clone()).collect();
        let roles = match inputs {
            Some(given) => {
                for g in given {
                    if !names.iter().any(|n| &**n == g) {
                        return Err(unknown(g, &names));
                    }
                }
                split(&names, |n| given.iter().any(|g| g == n), RoleSource::Given)
            }
            None if spec
                .variables
                .iter()
                .any(|v| v.role == Some(reqs::spec::Role::Input)) =>
            {
                split(
                    &names,
                    |n| {
                        spec.variable(n)
                            .is_some_and(|v| v.role == Some(reqs::spec::Role::Input))
                    },
                    RoleSource::Spec,
                )
            }
            None => {
                let mut out = std::collections::HashSet::new();
                for r in spec.formalized() {
                    let demanded = match &r.shape {
                        reqs::spec::Shape::Conditional { response, .. } => response,
                        reqs::spec::Shape::Invariant => r.formula.as_ref().expect("formalized"),
                    };
                    for (n, _) in demanded.free_vars() {
                        out.insert(n);
                    }
                }
                split(&names, |n| !out.contains(n), RoleSource::Inferred)
            }
        };
        Ok(Problem {
            spec,
            roles,
            steps: BTreeMap::new(),
            default_step: default_step(),
        })
    }

    /// A problem over a timed spec, for running its test sequences
    /// ([`crate::timed_run`]): the roles are the spec's (`role = "input"`; every other
    /// variable is an output), which a timed spec must declare.
    pub fn for_sequences(spec: Spec) -> Result<Problem, ProblemError> {
        if crate::timed::TimedRoles::of(&spec).inputs.is_empty() {
            return Err(ProblemError::Unsupported(
                "the spec declares no inputs: mark the variables an implementation is given with role = \"input\"".into(),
            ));
        }
        Ok(crate::timed::plain_problem(&spec))
    }

    /// A problem over the SMT-LIB documentation side of a rule: every assertion is a
    /// requirement named `<file name>:<line>`, the ranges of `bounds` that name its
    /// constants are the domain, and the inputs are the constants no assertion defines
    /// (or, when the bounds map or range some of its constants, exactly those).
    pub fn from_documentation(
        file: &SourceFile,
        bounds: Option<&Bounds>,
    ) -> Result<Problem, ProblemError> {
        let side = Side::from_smt(SideLabel::Nl, file).map_err(ProblemError::Invalid)?;
        if let Some((f, _)) = side.functions().first() {
            return Err(ProblemError::Unsupported(format!(
                "{}: `{f}` is a function of parameters; tests are derived from documentation written over constants",
                file.name()
            )));
        }
        if let Some(f) = side.undefined_functions.first() {
            return Err(ProblemError::Unsupported(format!(
                "{}: `{f}` is declared with arguments but never defined",
                file.name()
            )));
        }
        let consts = side.consts();
        let names: Vec<Symbol> = consts
            .iter()
            .map(|(n, _)| Symbol::from(n.as_str()))
            .collect();
        let DocBounds {
            domain,
            mapped,
            outputs_named,
        } = doc_bounds(&side, &names, bounds);
        let is_input = |n: &str| {
            if outputs_named.iter().any(|o| o == n) {
                return false;
            }
            if mapped.is_empty() {
                !side.defined.contains(n)
            } else {
                mapped.iter().any(|m| m == n)
            }
        };
        let variables: Vec<Variable> = consts
            .iter()
            .map(|(n, s)| Variable {
                name: Symbol::from(n.as_str()),
                sort: s.clone(),
                unit: None,
                description: None,
                min: None,
                max: None,
                role: Some(if is_input(n) {
                    reqs::spec::Role::Input
                } else {
                    reqs::spec::Role::Output
                }),
            })
            .collect();
        let requirements = doc_requirements(file, &side);
        let int = variables.iter().any(|v| v.sort == Sort::Int);
        let real = variables.iter().any(|v| v.sort == Sort::Real);
        let logic = match (int, real) {
            (true, true) => "QF_LIRA",
            (true, false) => "QF_LIA",
            _ => "QF_LRA",
        };
        let spec = Spec {
            name: file.name().to_string(),
            logic: logic.to_string(),
            enums: Vec::new(),
            variables,
            domain,
            requirements,
            context: side.context.clone(),
            time: None,
            warnings: Diagnostics::default(),
            source: file.clone(),
            reviews: Vec::new(),
        };
        let mut p = Problem::from_spec(spec, None)?;
        p.roles.source = RoleSource::Documentation;
        Ok(p)
    }

    /// Sets the step of a `Real` variable, or of every `Real` variable (`name` None).
    pub fn set_step(&mut self, name: Option<&str>, step: BigRational) -> Result<(), ProblemError> {
        if !step.is_positive() {
            return Err(ProblemError::BadStep(format!(
                "a step must be a positive number, not {step}"
            )));
        }
        match name {
            None => self.default_step = step,
            Some(n) => {
                let names: Vec<Symbol> =
                    self.spec.variables.iter().map(|v| v.name.clone()).collect();
                let v = self.spec.variable(n).ok_or_else(|| unknown(n, &names))?;
                if v.sort != Sort::Real {
                    return Err(ProblemError::BadStep(format!(
                        "`{n}` is {}; only Real variables take a step (Int variables move by 1)",
                        v.sort
                    )));
                }
                self.steps.insert(v.name.clone(), step);
            }
        }
        Ok(())
    }

    /// The step of a variable: 1 for `Int`, the variable's own or the default for
    /// `Real`; `None` for other sorts.
    pub fn step_of(&self, name: &str) -> Option<BigRational> {
        let v = self.spec.variable(name)?;
        match v.sort {
            Sort::Int => Some(BigRational::from_integer(1.into())),
            Sort::Real => Some(
                self.steps
                    .get(name)
                    .cloned()
                    .unwrap_or_else(|| self.default_step.clone()),
            ),
            _ => None,
        }
    }

    /// The steps in force, for every numeric variable, in schema order.
    pub fn steps_in_force(&self) -> Vec<(Symbol, BigRational)> {
        self.spec
            .variables
            .iter()
            .filter_map(|v| self.step_of(&v.name).map(|s| (v.name.clone(), s)))
            .collect()
    }

    /// The value a missing variable of a model takes: see [`values::default_value`].
    pub(crate) fn default_of(&self, v: &Variable) -> Option<logic::Value> {
        values::default_value(&v.sort, v.min.as_ref(), v.max.as_ref(), &self.spec.enums)
    }
}

fn split(names: &[Symbol], input: impl Fn(&str) -> bool, source: RoleSource) -> Roles {
    let (inputs, outputs) = names.iter().cloned().partition(|n| input(n));
    Roles {
        inputs,
        outputs,
        source,
    }
}

fn unknown(name: &str, names: &[Symbol]) -> ProblemError {
    let close: Vec<&str> = names
        .iter()
        .map(|n| &**n)
        .filter(|n| n.eq_ignore_ascii_case(name) || n.contains(name) || name.contains(*n))
        .take(3)
        .collect();
    ProblemError::UnknownVariable {
        name: values::cut(name),
        hint: if close.is_empty() {
            String::new()
        } else {
            format!(" (did you mean {}?)", close.join(", "))
        },
    }
}

/// What a bounds map says of the constants of a documentation side: the domain
/// constraints of its ranges, the constants it maps or ranges (inputs), and those it
/// names as outputs.
struct DocBounds {
    domain: Vec<Constraint>,
    mapped: Vec<String>,
    outputs_named: Vec<String>,
}

/// Reads `bounds` for the constants `names` of the documentation `side` (a name may
/// carry the `nl.` prefix): ranges become domain constraints; mapped or ranged
/// constants are inputs.
fn doc_bounds(side: &Side, names: &[Symbol], bounds: Option<&Bounds>) -> DocBounds {
    let own = |n: &str| -> Option<String> {
        let n = n.strip_prefix("nl.").unwrap_or(n);
        names.iter().any(|m| &**m == n).then(|| n.to_string())
    };
    let mut out = DocBounds {
        domain: Vec::new(),
        mapped: Vec::new(),
        outputs_named: Vec::new(),
    };
    let Some(b) = bounds else { return out };
    for item in &b.items {
        match item {
            BoundItem::Ranges {
                variables,
                min,
                max,
                min_inclusive,
                max_inclusive,
            } => {
                for v in variables {
                    let Some(n) = own(v) else { continue };
                    let sort = side.sort_of(&n).unwrap_or(Sort::Real);
                    let x = Term::var(&n, sort.clone());
                    if let Some(lo) = min {
                        let op = if min_inclusive.unwrap_or(true) {
                            Op::Ge
                        } else {
                            Op::Gt
                        };
                        out.domain.push(bound_constraint(&n, &x, op, lo, &sort));
                    }
                    if let Some(hi) = max {
                        let op = if max_inclusive.unwrap_or(false) {
                            Op::Le
                        } else {
                            Op::Lt
                        };
                        out.domain.push(bound_constraint(&n, &x, op, hi, &sort));
                    }
                    if !out.mapped.contains(&n) {
                        out.mapped.push(n);
                    }
                }
            }
            BoundItem::Equals { variables } => {
                for v in variables {
                    if let Some(n) = own(v) {
                        if !side.defined.contains(&n) && !out.mapped.contains(&n) {
                            out.mapped.push(n);
                        }
                    }
                }
            }
            BoundItem::Outputs { variables } => {
                out.outputs_named
                    .extend(variables.iter().filter_map(|v| own(v)));
            }
            _ => {}
        }
    }
    out
}

/// The assertions of the documentation `side` as requirements named
/// `<file name>:<line>`.
fn doc_requirements(file: &SourceFile, side: &Side) -> Vec<Requirement> {
    let short = std::path::Path::new(file.name())
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| file.name().to_string());
    let mut requirements = Vec::new();
    for c in &side.commands {
        let Command::Assert(t) = c else { continue };
        let t = inline_calls(t, &side.context);
        let line = assertion_line(file, &t, requirements.len());
        requirements.push(Requirement {
            id: format!("{short}:{line}"),
            text: logic::print::term(&t),
            shape: shape_of(&t),
            formula: Some(t),
            line,
            origin: Origin::Hand,
            timed: None,
            dense: None,
        });
    }
    requirements
}

fn bound_constraint(name: &str, x: &Term, op: Op, v: &BigRational, sort: &Sort) -> Constraint {
    let (x, lit) = match sort {
        Sort::Int if v.is_integer() => (x.clone(), Term::Int(v.to_integer())),
        Sort::Int => (
            Term::app(Op::ToReal, vec![x.clone()]),
            Term::Real(v.clone()),
        ),
        _ => (x.clone(), Term::Real(v.clone())),
    };
    Constraint {
        id: format!(
            "bounds: {name} {} {}",
            op.name(),
            values::show(&logic::Value::Real(v.clone()))
        ),
        text: None,
        formula: Term::app(op, vec![x, lit]),
        line: 0,
    }
}

/// The line of the `n`-th assertion of the file (counting `(assert` openings outside
/// comments); 0 when it cannot be found.
fn assertion_line(file: &SourceFile, _t: &Term, n: usize) -> usize {
    let mut count = 0;
    for (i, line) in file.text().lines().enumerate() {
        let code = line.split(';').next().unwrap_or("");
        let mut rest = code;
        while let Some(p) = rest.find("(assert") {
            if count == n {
                return i + 1;
            }
            count += 1;
            rest = &rest[p + 7..];
        }
    }
    0
}

/// Reads a roles file (`inputs = ["a", "b"]`, TOML): the inputs of a test, the other
/// variables being outputs. Errors name the file and the line.
pub fn read_roles(file: &str, text: &str) -> Result<Vec<String>, String> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Raw {
        inputs: Vec<String>,
    }
    toml::from_str::<Raw>(text).map(|r| r.inputs).map_err(|e| {
        let line = e
            .span()
            .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
        match line {
            Some(l) => format!("{file}:{l}: {}", e.message()),
            None => format!("{file}: {}", e.message()),
        }
    })
}
