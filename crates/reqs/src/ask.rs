//! Scenario questions (VeriMed's Query Verifier): is a claim entailed by the
//! requirements under a scenario? And, going further, what do the requirements force
//! under a scenario (`derive`)?

use crate::audit::{load_into, witness, Session, Witness};
use crate::spec::Spec;
use logic::{Op, Sort, Term, Value};
use num_rational::BigRational;
use serde::{Deserialize, Serialize};
use solver::Outcome;
use solver::{Solver, SolverConfig, SolverError};
use std::collections::BTreeSet;

/// The verdict on one question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum Verdict {
    /// M ∧ s ⊨ claim.
    Entailed {
        /// A minimal set of requirements (and domain constraints) that justify it.
        because: Vec<String>,
    },
    /// Some state satisfies M and the scenario but not the claim.
    NotEntailed {
        /// Such a state.
        counterexample: Witness,
        /// When the claim cannot hold at all under the scenario: the requirements it contradicts.
        contradicts: Vec<String>,
    },
    /// No state satisfies M and the scenario together.
    ScenarioImpossible {
        /// A minimal set of ids that rules the scenario out.
        because: Vec<String>,
    },
    /// The solver gave no answer.
    Unknown {
        /// Why.
        #[serde(flatten)]
        reason: solver::Undecided,
    },
}

impl Verdict {
    /// The short name: `entailed`, `not-entailed`, `scenario-impossible`, `unknown`.
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Entailed { .. } => "entailed",
            Verdict::NotEntailed { .. } => "not-entailed",
            Verdict::ScenarioImpossible { .. } => "scenario-impossible",
            Verdict::Unknown { .. } => "unknown",
        }
    }
}

/// A question from a questions file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Question {
    /// Its id.
    pub id: String,
    /// The question in words.
    #[serde(default)]
    pub text: String,
    /// The scenario, an SMT-LIB formula over the schema (default: `true`).
    pub scenario: Option<String>,
    /// The claim to check.
    pub claim: Option<String>,
    /// The expected verdict, if the author knows it.
    pub expected: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct QuestionsFile {
    questions: Vec<Question>,
}

/// Reads a questions file (TOML with `[[questions]]`).
pub fn load_questions(text: &str, name: &str) -> Result<Vec<Question>, logic::Diagnostics> {
    let file = logic::SourceFile::new(name, text);
    crate::spec::read_toml::<QuestionsFile>(&file, None).map(|q| q.questions)
}

/// The problems of a list of questions, one per line: an id used twice, an
/// `expected` that is not a verdict's name.
#[derive(Debug, thiserror::Error)]
#[error("{}", .0.join("\n"))]
pub struct QuestionProblems(pub Vec<String>);

/// Checks a list of questions before any is asked: ids unique, every `expected` a
/// verdict (`entailed`, `not-entailed`, `scenario-impossible` or `unknown`).
pub fn check_questions(questions: &[Question]) -> Result<(), QuestionProblems> {
    let mut problems = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for q in questions {
        if !seen.insert(q.id.as_str()) {
            problems.push(format!("question id `{}` is used twice", q.id));
        }
        if let Some(e) = &q.expected {
            if !["entailed", "not-entailed", "scenario-impossible", "unknown"].contains(&e.as_str())
            {
                problems.push(format!(
                    "question {}: expected = \"{e}\" is not a verdict (entailed, not-entailed, scenario-impossible or unknown)",
                    q.id
                ));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(QuestionProblems(problems))
    }
}

/// The question of `vera ask --claim C [--scenario S]`, or `None` when a questions
/// file is given instead; both or neither is an error.
pub fn claim_question(
    claim: Option<&str>,
    scenario: Option<&str>,
    file_given: bool,
) -> Result<Option<Question>, AskError> {
    match (file_given, claim) {
        (true, None) => Ok(None),
        (false, Some(c)) => Ok(Some(Question {
            id: "claim".into(),
            text: String::new(),
            scenario: scenario.map(str::to_string),
            claim: Some(c.to_string()),
            expected: None,
        })),
        (true, Some(_)) => Err(AskError::Usage(
            "give either --claim or --questions, not both",
        )),
        (false, None) => Err(AskError::Usage(
            "nothing to ask: give --claim TERM, --questions FILE or --derive",
        )),
    }
}

/// Why questions could not be asked.
#[derive(Debug, thiserror::Error)]
pub enum AskError {
    /// A scenario or claim that is not a formula over the spec.
    #[error("{0}")]
    Formula(logic::Diagnostics),
    /// A question without a claim.
    #[error("question {0} has no claim")]
    NoClaim(String),
    /// The options do not say what to ask.
    #[error("{0}")]
    Usage(&'static str),
    /// The solver failed.
    #[error(transparent)]
    Solver(#[from] SolverError),
}

/// A question asked: its scenario and claim as terms, the verdict, and for a definite
/// verdict the roles' view of the scenario.
#[derive(Debug)]
pub struct Asked {
    /// The question.
    pub question: Question,
    /// Its scenario (`true` when it has none).
    pub scenario: Term,
    /// Its claim.
    pub claim: Term,
    /// The verdict.
    pub verdict: Verdict,
    /// [`Asker::roles_view`] of the scenario, for an entailed or not entailed claim.
    pub roles: Option<RolesView>,
}

/// Answers questions one after the other on one solver session.
pub struct Asker<'a> {
    spec: &'a Spec,
    solver: Solver,
    lits: crate::audit::Loaded,
    /// Number of solver queries so far.
    pub queries: usize,
}

impl<'a> Asker<'a> {
    /// Parses `text` as a formula over the spec; `what` names it in messages.
    pub fn formula(&self, what: &str, text: &str) -> Result<Term, AskError> {
        self.spec
            .parse_formula(what, text)
            .map_err(AskError::Formula)
    }

    /// Asks every question in order (a question without a scenario assumes `true`).
    pub fn ask_all(&mut self, questions: &[Question]) -> Result<Vec<Asked>, AskError> {
        let mut asked = Vec::new();
        for q in questions {
            let scenario = self.formula(
                &format!("{} scenario", q.id),
                q.scenario.as_deref().unwrap_or("true"),
            )?;
            let Some(claim_text) = &q.claim else {
                return Err(AskError::NoClaim(q.id.clone()));
            };
            let claim = self.formula(&format!("{} claim", q.id), claim_text)?;
            let verdict = self.ask(&scenario, &claim)?;
            let roles = match verdict {
                Verdict::Entailed { .. } | Verdict::NotEntailed { .. } => {
                    self.roles_view(&scenario)?
                }
                _ => None,
            };
            asked.push(Asked {
                question: q.clone(),
                scenario,
                claim,
                verdict,
                roles,
            });
        }
        Ok(asked)
    }

    /// Starts a solver and loads the spec.
    pub fn new(spec: &'a Spec, config: &SolverConfig) -> Result<Asker<'a>, SolverError> {
        let mut solver = Solver::start(config)?;
        let lits = load_into(&mut solver, spec)?;
        Ok(Asker {
            spec,
            solver,
            lits,
            queries: 0,
        })
    }

    fn session(&mut self) -> Session<'_> {
        Session::new(&mut self.solver, self.lits.clone())
    }

    fn all(&self) -> Vec<Term> {
        let mut a = self.lits.domain().to_vec();
        a.extend(self.lits.reqs_except(None));
        a
    }

    fn ids(&self, lits: &[Term]) -> Vec<String> {
        let mut out: Vec<String> = lits
            .iter()
            .filter_map(|l| self.lits.id_of(self.spec, l).map(str::to_string))
            .collect();
        out.sort_by_key(|id| self.order(id));
        out
    }

    fn order(&self, id: &str) -> (usize, usize) {
        if let Some(i) = self.spec.requirements.iter().position(|r| r.id == id) {
            (0, i)
        } else {
            (
                1,
                self.spec
                    .domain
                    .iter()
                    .position(|d| d.id == id)
                    .unwrap_or(usize::MAX),
            )
        }
    }

    /// Checks M ∧ scenario ∧ ¬claim.
    pub fn ask(&mut self, scenario: &Term, claim: &Term) -> Result<Verdict, SolverError> {
        let all = self.all();
        let spec = self.spec;
        let mut s = self.session();
        let verdict = match s.check(&all, std::slice::from_ref(scenario))? {
            Outcome::Unknown(reason) => Verdict::Unknown {
                reason: reason.clone().into(),
            },
            Outcome::Unsat(core) => {
                let min = s.minimize(&[], core, std::slice::from_ref(scenario))?;
                let q = s.queries;
                self.queries += q;
                return Ok(Verdict::ScenarioImpossible {
                    because: self.ids(&min),
                });
            }
            Outcome::Sat(_) => {
                let negated = [scenario.clone(), Term::not(claim.clone())];
                match s.check(&all, &negated)? {
                    Outcome::Unknown(reason) => Verdict::Unknown {
                        reason: reason.clone().into(),
                    },
                    Outcome::Unsat(core) => {
                        let min = s.minimize(&[], core, &negated)?;
                        let q = s.queries;
                        self.queries += q;
                        return Ok(Verdict::Entailed {
                            because: self.ids(&min),
                        });
                    }
                    Outcome::Sat(m) => {
                        let mut terms = vec![scenario, claim];
                        let reqs: Vec<&Term> = spec
                            .formalized()
                            .filter_map(|r| r.formula.as_ref())
                            .collect();
                        // Variables of the scenario and claim, then those of requirements
                        // sharing a variable with them.
                        let vars: BTreeSet<logic::Symbol> = terms
                            .iter()
                            .flat_map(|t| t.free_vars())
                            .map(|(n, _)| n)
                            .collect();
                        for r in &reqs {
                            let fv: Vec<_> = r.free_vars().into_iter().map(|(n, _)| n).collect();
                            if fv.iter().any(|n| vars.contains(n)) {
                                terms.push(r);
                            }
                        }
                        let counterexample = witness(spec, &m, &terms);
                        let with_claim = [scenario.clone(), claim.clone()];
                        let contradicts = match s.check(&all, &with_claim)? {
                            Outcome::Unsat(core) => {
                                let min = s.minimize(&[], core, &with_claim)?;
                                Some(min)
                            }
                            _ => None,
                        };
                        let q = s.queries;
                        self.queries += q;
                        return Ok(Verdict::NotEntailed {
                            counterexample,
                            contradicts: contradicts.map(|c| self.ids(&c)).unwrap_or_default(),
                        });
                    }
                }
            }
        };
        let q = s.queries;
        self.queries += q;
        Ok(verdict)
    }

    /// What M forces under the scenario, variable by variable.
    pub fn derive(&mut self, scenario: &Term) -> Result<Derivation, SolverError> {
        let all = self.all();
        self.derive_under(scenario, all)
    }

    /// What the domain alone (no requirement) forces under the scenario.
    pub fn derive_from_domain(&mut self, scenario: &Term) -> Result<Derivation, SolverError> {
        let dom = self.lits.domain().to_vec();
        self.derive_under(scenario, dom)
    }

    fn derive_under(&mut self, scenario: &Term, all: Vec<Term>) -> Result<Derivation, SolverError> {
        let spec = self.spec;
        let constants = numeric_constants(spec);
        let mut s = self.session();
        match s.check(&all, std::slice::from_ref(scenario))? {
            Outcome::Unsat(core) => {
                let min = s.minimize(&[], core, std::slice::from_ref(scenario))?;
                let q = s.queries;
                self.queries += q;
                return Ok(Derivation::ScenarioImpossible {
                    because: self.ids(&min),
                });
            }
            Outcome::Unknown(reason) => {
                let q = s.queries;
                self.queries += q;
                return Ok(Derivation::Unknown {
                    reason: reason.clone().into(),
                });
            }
            Outcome::Sat(_) => {}
        }
        let mut out = Vec::new();
        for v in &spec.variables {
            let var = Term::Var(v.name.clone(), v.sort.clone());
            let fact = match &v.sort {
                Sort::Bool => {
                    let can_true = sat(&mut s, &all, scenario, var.clone())?;
                    let can_false = sat(&mut s, &all, scenario, Term::not(var.clone()))?;
                    match (can_true, can_false) {
                        (Some(true), Some(false)) => Fact::Forced {
                            value: "true".into(),
                        },
                        (Some(false), Some(true)) => Fact::Forced {
                            value: "false".into(),
                        },
                        (Some(true), Some(true)) => Fact::Free,
                        _ => Fact::Unknown,
                    }
                }
                Sort::Enum(e) => {
                    let values: Vec<logic::Symbol> = spec
                        .enums
                        .iter()
                        .find(|(n, _)| n == e)
                        .map(|(_, vs)| vs.clone())
                        .unwrap_or_default();
                    let mut possible = Vec::new();
                    let mut unknown = false;
                    for c in values {
                        let lit = Term::EnumVal {
                            sort: e.clone(),
                            ctor: c.clone(),
                        };
                        match sat(
                            &mut s,
                            &all,
                            scenario,
                            Term::app(Op::Eq, vec![var.clone(), lit]),
                        )? {
                            Some(true) => possible.push(c.to_string()),
                            Some(false) => {}
                            None => unknown = true,
                        }
                    }
                    if unknown {
                        Fact::Unknown
                    } else if possible.len() == 1 {
                        Fact::Forced {
                            value: possible.remove(0),
                        }
                    } else {
                        Fact::OneOf { values: possible }
                    }
                }
                Sort::Int | Sort::Real => numeric_fact(&mut s, &all, scenario, &var, &constants)?,
            };
            out.push(Derived {
                variable: v.name.to_string(),
                unit: v.unit.clone(),
                fact,
            });
        }
        let q = s.queries;
        self.queries += q;
        Ok(Derivation::Facts { variables: out })
    }
}

impl Asker<'_> {
    /// For a schema with roles: which inputs the scenario fixes, and what the
    /// requirements allow for each output. `None` without roles or when the scenario is
    /// impossible or undecided.
    pub fn roles_view(&mut self, scenario: &Term) -> Result<Option<RolesView>, SolverError> {
        use crate::spec::Role;
        let spec = self.spec;
        if !spec.variables.iter().any(|v| v.role == Some(Role::Input)) {
            return Ok(None);
        }
        // Inputs are the environment's: what the scenario fixes is judged under the
        // domain alone (the requirements must not "fix" an input by ruling a clash out).
        let Derivation::Facts { variables } = self.derive(scenario)? else {
            return Ok(None);
        };
        let Derivation::Facts {
            variables: env_facts,
        } = self.derive_from_domain(scenario)?
        else {
            return Ok(None);
        };
        let mut view = RolesView {
            fixes_all_inputs: true,
            fixed_inputs: Vec::new(),
            free_inputs: Vec::new(),
            outputs: Vec::new(),
        };
        let is_input = |name: &str| {
            spec.variables
                .iter()
                .any(|v| *v.name == *name && v.role == Some(Role::Input))
        };
        for d in env_facts.into_iter().filter(|d| is_input(&d.variable)) {
            if matches!(d.fact, Fact::Forced { .. }) {
                view.fixed_inputs.push(d);
            } else {
                view.fixes_all_inputs = false;
                view.free_inputs.push(d.variable);
            }
        }
        view.outputs = variables
            .into_iter()
            .filter(|d| !is_input(&d.variable))
            .collect();
        Ok(Some(view))
    }
}

/// Is M ∧ scenario ∧ extra satisfiable? `None` for unknown.
fn sat(
    s: &mut Session,
    all: &[Term],
    scenario: &Term,
    extra: Term,
) -> Result<Option<bool>, SolverError> {
    Ok(match s.check(all, &[scenario.clone(), extra])? {
        Outcome::Sat(_) => Some(true),
        Outcome::Unsat(_) => Some(false),
        Outcome::Unknown(_) => None,
    })
}

/// Every numeric literal in the spec's formulas, sorted: the candidate bounds.
fn numeric_constants(spec: &Spec) -> Vec<BigRational> {
    fn walk(t: &Term, out: &mut BTreeSet<BigRational>) {
        match t {
            Term::Int(i) => {
                out.insert(BigRational::from_integer(i.clone()));
            }
            Term::Real(r) => {
                out.insert(r.clone());
            }
            Term::App(_, args) | Term::Call(_, args, _) => args.iter().for_each(|a| walk(a, out)),
            Term::Let(b, body) => {
                b.iter().for_each(|(_, t)| walk(t, out));
                walk(body, out);
            }
            Term::Named(t, _) => walk(t, out),
            _ => {}
        }
    }
    let mut set = BTreeSet::new();
    for t in spec
        .domain
        .iter()
        .map(|d| &d.formula)
        .chain(spec.formalized().filter_map(|r| r.formula.as_ref()))
    {
        walk(t, &mut set);
    }
    set.into_iter().collect()
}

fn lit(sort: &Sort, r: &BigRational) -> Option<Term> {
    match sort {
        Sort::Int if r.is_integer() => Some(Term::Int(r.to_integer())),
        Sort::Int => None,
        _ => Some(Term::Real(r.clone())),
    }
}

fn numeric_fact(
    s: &mut Session,
    all: &[Term],
    scenario: &Term,
    var: &Term,
    constants: &[BigRational],
) -> Result<Fact, SolverError> {
    // A forced value: take one model's value and ask whether any other is possible.
    let model = match s.check(all, std::slice::from_ref(scenario))? {
        Outcome::Sat(m) => m,
        _ => return Ok(Fact::Unknown),
    };
    let Term::Var(name, sort) = var else {
        unreachable!("a variable")
    };
    let Some(v) = model.get(name).cloned() else {
        return Ok(Fact::Unknown);
    };
    let differs = Term::app(Op::Distinct, vec![var.clone(), v.to_term()]);
    match sat(s, all, scenario, differs)? {
        Some(false) => {
            return Ok(Fact::Forced {
                value: v.to_string(),
            })
        }
        None => return Ok(Fact::Unknown),
        Some(true) => {}
    }
    let value = match &v {
        Value::Int(i) => BigRational::from_integer(i.clone()),
        Value::Real(r) => r.clone(),
        _ => return Ok(Fact::Unknown),
    };
    // The tightest bounds among the spec's constants (binary search over the sorted list:
    // "x >= c is forced" is monotone in c).
    // Only constants the variable's sort can take (whole numbers for Int).
    let constants: Vec<&BigRational> = constants
        .iter()
        .filter(|c| lit(sort, c).is_some())
        .collect();
    let mut lower = None;
    let below: Vec<&BigRational> = constants.iter().copied().filter(|c| **c <= value).collect();
    let (mut lo, mut hi) = (0usize, below.len());
    while lo < hi {
        let mid = (lo + hi) / 2;
        let c = below[mid];
        let Some(l) = lit(sort, c) else {
            lo = mid + 1;
            continue;
        };
        // x >= c forced iff M ∧ s ∧ x < c is unsat.
        match sat(s, all, scenario, Term::app(Op::Lt, vec![var.clone(), l]))? {
            Some(false) => {
                lower = Some(c.clone());
                lo = mid + 1;
            }
            _ => hi = mid,
        }
    }
    let mut upper = None;
    let above: Vec<&BigRational> = constants.iter().copied().filter(|c| **c >= value).collect();
    let (mut lo, mut hi) = (0usize, above.len());
    while lo < hi {
        let mid = (lo + hi) / 2;
        let c = above[mid];
        let Some(l) = lit(sort, c) else {
            hi = mid;
            continue;
        };
        match sat(s, all, scenario, Term::app(Op::Gt, vec![var.clone(), l]))? {
            Some(false) => {
                upper = Some(c.clone());
                hi = mid;
            }
            _ => lo = mid + 1,
        }
    }
    let show = |r: Option<BigRational>| {
        r.map(|r| {
            if r.is_integer() {
                r.to_integer().to_string()
            } else {
                Value::Real(r).to_string()
            }
        })
    };
    Ok(match (lower, upper) {
        (None, None) => Fact::Free,
        (l, u) => Fact::Bounded {
            at_least: show(l),
            at_most: show(u),
        },
    })
}

/// What the requirements force on one variable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "fact", rename_all = "kebab-case")]
pub enum Fact {
    /// Exactly one value is possible.
    Forced {
        /// The value.
        value: String,
    },
    /// Several enum values are possible.
    OneOf {
        /// The possible values.
        values: Vec<String>,
    },
    /// Bounds among the spec's constants that every state respects.
    Bounded {
        /// Forced lower bound (inclusive), if any.
        #[serde(skip_serializing_if = "Option::is_none")]
        at_least: Option<String>,
        /// Forced upper bound (inclusive), if any.
        #[serde(skip_serializing_if = "Option::is_none")]
        at_most: Option<String>,
    },
    /// Not constrained in a way vera could state.
    Free,
    /// The solver gave no answer.
    Unknown,
}

/// One variable's derived fact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Derived {
    /// The variable.
    pub variable: String,
    /// Its unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// What is forced.
    #[serde(flatten)]
    pub fact: Fact,
}

/// What a scenario leaves open, for a schema with roles: which inputs it fixes, and
/// what the requirements still allow for every output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RolesView {
    /// True when every input has one value under the scenario and the requirements.
    pub fixes_all_inputs: bool,
    /// Inputs with one value.
    pub fixed_inputs: Vec<Derived>,
    /// Inputs the scenario leaves open (the answer covers every value they can take).
    pub free_inputs: Vec<String>,
    /// What the requirements allow for each output under the scenario.
    pub outputs: Vec<Derived>,
}

/// The result of [`Asker::derive`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Derivation {
    /// Facts per variable, in schema order.
    Facts {
        /// The facts.
        variables: Vec<Derived>,
    },
    /// The scenario contradicts the requirements.
    ScenarioImpossible {
        /// Why.
        because: Vec<String>,
    },
    /// The solver gave no answer.
    Unknown {
        /// Why.
        #[serde(flatten)]
        reason: solver::Undecided,
    },
}
