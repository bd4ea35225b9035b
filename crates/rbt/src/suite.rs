//! A generated test suite as data: cases with inputs and expected outputs, what each
//! obligation came to, findings about requirements, and the fresh-process re-check.
//! Serializable as it is (the JSON payload of `vera tests`); [`crate::table`] writes
//! the CSV test table and the traceability matrix.

use crate::obligations::Obligation;
use crate::problem::RoleSource;
use logic::{Model, Symbol, Value};
use serde::{Serialize, Serializer};

/// What the spec says about an output, given a case's inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    /// Every valid state with these inputs has this value (the solver found no other).
    Value(Value),
    /// The spec leaves the output open: valid states with these inputs differ in it.
    Free,
    /// The solver could not decide (its reason).
    Undecided(solver::Undecided),
}

impl Expected {
    /// The table cell: the value, `free`, or `undecided`.
    pub fn cell(&self) -> String {
        match self {
            Expected::Value(v) => crate::values::show(v),
            Expected::Free => "free".into(),
            Expected::Undecided(_) => "undecided".into(),
        }
    }
}

impl Serialize for Expected {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.cell())
    }
}

/// A name and a value, printed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cell {
    /// The variable.
    pub variable: String,
    /// Its value as a table cell (`-3`, `2.5`, `1/3`, `true`, `Therapy`).
    pub value: String,
}

/// One test case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Case {
    /// `TC-001`, ...
    pub id: String,
    /// The obligations its state meets, in obligation order.
    pub covers: Vec<String>,
    /// Of those, the ones that hold only when the outputs the spec leaves free take the
    /// values of the case's state (an implementation may choose others).
    pub depends_on_free_outputs: Vec<String>,
    /// The requirements of the obligations it covers, in spec order.
    pub requirements: Vec<String>,
    /// The inputs, in schema order.
    pub inputs: Vec<Cell>,
    /// The expected outputs, in schema order: a value, `free` or `undecided`.
    pub expected: Vec<ExpectedCell>,
    /// The whole state the case was designed as (inputs and every output), which
    /// satisfies the domain and every requirement.
    pub state: Vec<Cell>,
    /// The inputs as values (for running the case).
    #[serde(skip)]
    pub input_values: Vec<(Symbol, Value)>,
    /// The expected outputs as data.
    #[serde(skip)]
    pub expected_values: Vec<(Symbol, Expected)>,
    /// The state as a model.
    #[serde(skip)]
    pub model: Model,
}

/// An expected output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExpectedCell {
    /// The output.
    pub variable: String,
    /// Its value, `free` or `undecided`.
    pub value: Expected,
}

/// What became of an obligation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Status {
    /// Cases of the suite meet it.
    Met {
        /// The cases, in suite order.
        cases: Vec<String>,
    },
    /// No state that satisfies the domain and every requirement meets it.
    Unreachable {
        /// A minimal set of requirements and domain constraints that rules it out
        /// (empty: the formula itself, with the variables' sorts, rules it out).
        core: Vec<String>,
    },
    /// The solver could not decide whether a valid state meets it.
    Undecided {
        /// The solver's reason.
        #[serde(flatten)]
        reason: solver::Undecided,
    },
}

/// An obligation and its status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ObligationResult {
    /// The obligation.
    #[serde(flatten)]
    pub obligation: Obligation,
    /// What became of it.
    #[serde(flatten)]
    pub status: Status,
}

/// A requirement's line in the suite.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RequirementRow {
    /// Its id.
    pub id: String,
    /// Its line in the spec.
    pub line: usize,
    /// Its text.
    pub text: String,
    /// Its formula (SMT-LIB), `None` when it has none.
    pub formula: Option<String>,
    /// Obligations.
    pub obligations: usize,
    /// Met by the suite.
    pub met: usize,
    /// Unreachable.
    pub unreachable: usize,
    /// Undecided.
    pub undecided: usize,
    /// The cases that cover one of its obligations.
    pub cases: Vec<String>,
}

/// A finding about a requirement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "finding", rename_all = "kebab-case")]
pub enum Finding {
    /// The requirement has no formula: no test can be derived from it.
    NotFormalized {
        /// Its id.
        requirement: String,
        /// Its line.
        line: usize,
    },
    /// An obligation no valid state meets.
    Unreachable {
        /// The requirement.
        requirement: String,
        /// Its line.
        line: usize,
        /// The obligation's id.
        obligation: String,
        /// What the obligation asks for.
        #[serde(flatten)]
        kind: crate::obligations::Kind,
        /// The condition, printed.
        condition: Option<String>,
        /// What rules it out (see [`Status::Unreachable`]).
        core: Vec<String>,
    },
    /// An obligation the solver could not decide.
    Undecided {
        /// The requirement.
        requirement: String,
        /// The obligation's id.
        obligation: String,
        /// Why.
        #[serde(flatten)]
        reason: solver::Undecided,
    },
}

/// The re-check of every case in a second solver process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Recheck {
    /// Cases re-checked.
    pub cases: usize,
    /// Cases whose state satisfies the domain and every requirement, by vera's
    /// evaluator and by the solver in the fresh process.
    pub valid: usize,
    /// Cases whose expected (forced) outputs the fresh process confirmed.
    pub expectations_confirmed: usize,
    /// What failed, one line each.
    pub failures: Vec<String>,
}

/// A generated suite.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Suite {
    /// The spec's name.
    pub spec: String,
    /// The spec file.
    pub file: String,
    /// The solver and its version.
    pub solver: String,
    /// Inputs.
    pub inputs: Vec<String>,
    /// Outputs.
    pub outputs: Vec<String>,
    /// Where the roles come from.
    pub roles: RoleSource,
    /// The step of each numeric variable.
    pub steps: Vec<Cell>,
    /// Every obligation with its status.
    pub obligations: Vec<ObligationResult>,
    /// The cases.
    pub cases: Vec<Case>,
    /// Per requirement.
    pub requirements: Vec<RequirementRow>,
    /// Findings about requirements.
    pub findings: Vec<Finding>,
    /// Cases found before minimization.
    pub cases_before_minimization: usize,
    /// Solver queries asked (generation and expected outputs; not the re-check).
    pub queries: usize,
    /// The re-check in a fresh process.
    pub recheck: Recheck,
}

impl Suite {
    /// Obligations met.
    pub fn met(&self) -> usize {
        self.count(|s| matches!(s, Status::Met { .. }))
    }

    /// Obligations unreachable.
    pub fn unreachable(&self) -> usize {
        self.count(|s| matches!(s, Status::Unreachable { .. }))
    }

    /// Obligations undecided.
    pub fn undecided(&self) -> usize {
        self.count(|s| matches!(s, Status::Undecided { .. }))
    }

    fn count(&self, f: impl Fn(&Status) -> bool) -> usize {
        self.obligations.iter().filter(|o| f(&o.status)).count()
    }

    /// True when something could not be decided or the re-check failed.
    pub fn has_errors(&self) -> bool {
        self.undecided() > 0
            || !self.recheck.failures.is_empty()
            || self.cases.iter().any(|c| {
                c.expected_values
                    .iter()
                    .any(|(_, e)| matches!(e, Expected::Undecided(_)))
            })
    }
}
