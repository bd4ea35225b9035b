//! The consistency checker of the SIRNA paper, Eq. (2) and Theorem 1.
//!
//! Given a formalization A of the documentation (SMT-LIB, output `O_A`), an
//! implementation B (BL or SMT-LIB, output `O_B`), mappings Φ and constraints Ψ, it
//! decides whether `∀V. A ∧ B ∧ Φ ∧ Ψ ⇒ O_A = O_B` is valid by asking a solver whether
//! `A ∧ B ∧ Φ ∧ Ψ ∧ O_A ≠ O_B` is satisfiable.
//!
//! * The two sides live in separate namespaces: every symbol of A is renamed `nl.x`,
//!   every symbol of B `bl.x`. A name on both sides denotes two variables until a
//!   mapping relates them. With [`CheckOptions::map_same_named_inputs`] (the default)
//!   inputs with the same name on both sides are equated unless the bounds map either
//!   of them explicitly; outputs are always compared through the given pair.
//! * Before the check, formalization diagnostics look for SIRNA's failure categories:
//!   output missing, functions used but not defined, A not functional, intermediate
//!   variables left unconstrained, constraints that leave no input, and inputs for
//!   which A has no output (sampled at one point per path of B).
//! * Every query on the way to a verdict must be answered: an `unknown` answer of a
//!   formalization check or of Eq. (2) makes the verdict [`Verdict::Unknown`], never a
//!   pass ([`Report::undecided`] lists each with the solver's reason).
//! * A counterexample is replayed: B through the interpreter (or the evaluator for an
//!   SMT-LIB side), A by evaluating every one of its assertions with `logic::eval`.
//! * With [`CheckOptions::enumerate`], every divergence region is listed: a conjunction
//!   of the path conditions of both sides on which the outputs differ everywhere,
//!   generalised by dropping conditions that do not matter.

pub mod bounds;
mod flat;
pub mod regions;
mod render;
mod restrict;
pub mod side;

pub use bounds::{BoundItem, Bounds, BoundsError};
pub use regions::{DifferenceKind, Partition, Proof, Range, RangeEnd, Witness, WitnessKind};
pub use side::{Side, SideLabel};

use crate::diag::Diagnostics;
use logic::{Command, Context, Model, Op, Sort, SourceFile, Symbol, Term, Value};
use num_rational::BigRational;
use serde::{Deserialize, Serialize};
use side::{
    inline_calls, output_sides, prefixed, qualified, rename_command, rename_term, substitute,
};
use solver::{Outcome, Reason, Solver, SolverConfig, SolverError};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

/// Where one side comes from.
#[derive(Debug, Clone)]
pub enum SideSource {
    /// An SMT-LIB file (declarations, definitions, assertions).
    Smt(SourceFile),
    /// A BL program.
    Bl(SourceFile),
}

impl SideSource {
    /// The implementation side read from `path`: a BL program when its extension is
    /// `bl`, SMT-LIB otherwise.
    pub fn implementation(path: &std::path::Path, file: SourceFile) -> SideSource {
        if path.extension().is_some_and(|x| x == "bl") {
            SideSource::Bl(file)
        } else {
            SideSource::Smt(file)
        }
    }
}

/// A named assumption: an SMT-LIB predicate added to Ψ to mark a discrepancy as
/// intended (e.g. `sin_exception=(< bl.sin 900000000)`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Assumption {
    /// The user's name for it.
    pub name: String,
    /// The predicate, in SMT-LIB, over `nl.x` / `bl.x` (or unqualified names that exist
    /// on one side only).
    pub term: String,
}

impl Assumption {
    /// Reads `NAME=TERM` as given to `--assume`.
    pub fn parse_arg(arg: &str) -> Result<Assumption, CheckError> {
        match arg.split_once('=') {
            Some((n, t)) if !n.trim().is_empty() && !t.trim().is_empty() => Ok(Assumption {
                name: n.trim().to_string(),
                term: t.trim().to_string(),
            }),
            _ => Err(CheckError::BadAssumptionArg(arg.to_string())),
        }
    }
}

/// Knobs of a check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckOptions {
    /// Equate inputs with the same name on both sides unless the bounds map them.
    pub map_same_named_inputs: bool,
    /// Run the formalization diagnostics before the check.
    pub diagnose: bool,
    /// List divergence regions after an inconsistency.
    pub enumerate: bool,
    /// At most this many regions.
    pub max_regions: usize,
}

impl Default for CheckOptions {
    fn default() -> CheckOptions {
        CheckOptions {
            map_same_named_inputs: true,
            diagnose: true,
            enumerate: false,
            max_regions: 16,
        }
    }
}

/// Everything a check needs.
#[derive(Debug, Clone)]
pub struct CheckInput {
    /// The documentation's formalization (A).
    pub nl: SideSource,
    /// The implementation (B).
    pub bl: SideSource,
    /// Output of A; taken from the bounds when `None`.
    pub nl_output: Option<String>,
    /// Output of B; from the bounds, else the last binding of a BL program.
    pub bl_output: Option<String>,
    /// Mappings and constraints.
    pub bounds: Option<Bounds>,
    /// Named assumptions added to Ψ.
    pub assumptions: Vec<Assumption>,
    /// Accepted exceptions on file, added to Ψ like assumptions; the report says which
    /// the verdict rests on and which are stale or broader than needed.
    pub exceptions: Vec<crate::exceptions::Exception>,
    /// Options.
    pub options: CheckOptions,
}

impl CheckInput {
    /// A check of `nl` against `bl` with default options and no bounds.
    pub fn new(nl: SideSource, bl: SideSource) -> CheckInput {
        CheckInput {
            nl,
            bl,
            nl_output: None,
            bl_output: None,
            bounds: None,
            assumptions: Vec::new(),
            exceptions: Vec::new(),
            options: CheckOptions::default(),
        }
    }
}

/// What a check can fail with (as opposed to a verdict).
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// A side does not parse or type-check.
    #[error("the {} side does not parse:\n{diagnostics}", side.upper())]
    Parse {
        /// Which side.
        side: SideLabel,
        /// What is wrong, located.
        diagnostics: Diagnostics,
    },
    /// The bounds file is unusable (including names that exist on neither side).
    #[error(transparent)]
    Bounds(#[from] BoundsError),
    /// An assumption does not parse.
    #[error("assumption `{name}` does not parse{note}:\n{diagnostics}")]
    Assumption {
        /// Its name.
        name: String,
        /// Located diagnostics.
        diagnostics: Diagnostics,
        /// A note on names that need qualifying.
        note: String,
    },
    /// `--assume` without `NAME=TERM`.
    #[error("expected NAME=TERM for an assumption, found `{}`", crate::diag::quote(.0))]
    BadAssumptionArg(String),
    /// The solver session failed. Its message can quote a whole command, so it is
    /// shown shortened (the full error is kept).
    #[error("{}", crate::diag::message(&.0.to_string()))]
    Solver(SolverError),
    /// A counterexample did not replay: a bug in vera or the solver, never a verdict.
    #[error("the counterexample did not replay: {}", crate::diag::message(.0))]
    Replay(String),
}

impl From<SolverError> for CheckError {
    fn from(e: SolverError) -> CheckError {
        CheckError::Solver(e)
    }
}

/// The answer of a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Eq. (2) is valid: the outputs agree on every input allowed by Φ and Ψ.
    Consistent,
    /// There are inputs on which the outputs differ (see the counterexample).
    Inconsistent,
    /// A query the verdict depends on (a formalization check or Eq. (2) itself) got no
    /// answer; [`Report::reason`] names them.
    Unknown,
    /// A formalization diagnostic makes the check meaningless (see the diagnostics).
    Rejected,
}

/// SIRNA's failure categories, and vera's additions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// The output variable does not exist (MF).
    OutputMissing,
    /// A function is declared with arguments but has no definition (MD).
    UndefinedFunction,
    /// Two outputs for one input (MC, MB).
    NotFunctional,
    /// An intermediate variable is not determined by the inputs (MC).
    UnconstrainedIntermediate,
    /// A and B together with Φ and Ψ admit no assignment at all (GF).
    Vacuous,
    /// An input allowed by Ψ for which A has no output (GF: spurious constraints).
    NoOutputForInput,
    /// An input of one side is not related to the other side.
    UnmappedInput,
}

/// One formalization diagnostic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// The category.
    pub kind: FindingKind,
    /// The side it is about.
    pub side: SideLabel,
    /// What was found, in one line.
    pub message: String,
    /// True when it makes the verdict meaningless.
    pub blocking: bool,
}

/// A side's inputs and output at a counterexample.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideValues {
    /// Input values by name (exact, `n/d` when not a finite decimal).
    pub inputs: BTreeMap<String, String>,
    /// The output's name.
    pub output: String,
    /// Its value.
    pub value: String,
    /// How the value was confirmed independently of the solver.
    pub replay: String,
}

/// A concrete input on which the outputs differ.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counterexample {
    /// The documentation side.
    pub nl: SideValues,
    /// The implementation side.
    pub bl: SideValues,
}

/// One divergence region: a set of inputs on which the outputs differ. The regions of a
/// report are disjoint and together the divergence set (see [`Report::partition`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Region {
    /// `Some(true)` when the outputs differ at every point of the conditions,
    /// `Some(false)` when only on part of them (the region is then the conditions
    /// intersected with the divergence, and `difference_kind` is `sample`), `None`
    /// when the solver could not tell (see `note`).
    pub everywhere: Option<bool>,
    /// The conjunction of conditions, each in infix notation over display names.
    pub conditions: Vec<String>,
    /// An example input (the first witness).
    pub example: BTreeMap<String, String>,
    /// The NL output at the example.
    pub nl_output: String,
    /// The BL output at the example.
    pub bl_output: String,
    /// BL minus NL on the region: a constant, a linear formula over the inputs
    /// (`0.0025*income - 132.2`), or the value at the example (see `difference_kind`).
    pub difference: String,
    /// What the solver could not decide about this region, if anything.
    pub note: Option<String>,
    /// The region as an SMT-LIB term over the (prefixed) inputs, within Φ and Ψ.
    pub smt: String,
    /// How `difference` is known.
    pub difference_kind: DifferenceKind,
    /// Minimum and maximum of the difference over the region (`None`: not computed).
    pub range: Option<Range>,
    /// Inputs of the region at round numbers (boundary, inside), each confirmed by the
    /// solver, with both outputs there.
    pub witnesses: Vec<Witness>,
}

/// A solver query of the checker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Query {
    /// Sampling one allowed input per path of both sides, for the totality check.
    Sampling,
    /// Does the formalization have an output for a sampled input?
    Totality,
    /// Do the two sides with the mappings and constraints admit any assignment?
    Vacuity,
    /// Is a relational side functional (one output per input)?
    Functionality,
    /// Is an intermediate variable determined by the inputs? (A warning only.)
    Intermediate,
    /// Eq. (2) itself: do the outputs differ on some allowed input?
    Consistency,
}

impl Query {
    /// The query's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Query::Sampling => "input sampling",
            Query::Totality => "totality check",
            Query::Vacuity => "no-assignment check",
            Query::Functionality => "functionality check",
            Query::Intermediate => "intermediate-variable check",
            Query::Consistency => "consistency query",
        }
    }

    /// True when the verdict depends on the query's answer.
    pub fn affects_verdict(self) -> bool {
        !matches!(self, Query::Intermediate)
    }
}

/// A query the solver answered `unknown`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Undecided {
    /// Which query.
    pub query: Query,
    /// The side it is about, when it is about one.
    pub side: Option<SideLabel>,
    /// What exactly was asked (a sampled input, a variable), possibly empty.
    pub detail: String,
    /// The solver's reason, in words and as a kind (`reason`, `reason_kind` in JSON).
    #[serde(flatten)]
    pub reason: solver::Undecided,
    /// True when the verdict depends on it (then the verdict is unknown, unless a
    /// blocking finding rejects the formalization anyway).
    pub affects_verdict: bool,
}

impl Undecided {
    fn new(query: Query, side: Option<SideLabel>, detail: String, reason: &Reason) -> Undecided {
        Undecided {
            query,
            side,
            detail,
            reason: reason.into(),
            affects_verdict: query.affects_verdict(),
        }
    }

    /// One line: which query, about what, and the solver's reason.
    pub fn describe(&self) -> String {
        let mut s = format!("the {}", self.query.name());
        if let Some(side) = self.side {
            s.push_str(&format!(" of {}", side.upper()));
        }
        if !self.detail.is_empty() {
            s.push(' ');
            s.push_str(&self.detail);
        }
        s.push_str(&format!(" answered unknown ({})", self.reason));
        s
    }
}

/// What an accepted exception does in a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExceptionStatus {
    /// It excludes inputs where the outputs differ (the verdict rests on it), and no
    /// input where they agree and are not both zero.
    InUse,
    /// It excludes no input where the outputs differ: nothing rests on it.
    Stale,
    /// It excludes inputs where the outputs differ, and also inputs where they agree
    /// (not both zero): see the witness.
    Broader,
    /// A query about it answered unknown (see the note).
    Undecided,
}

/// An accepted exception as the check used it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExceptionUse {
    /// Its id.
    pub id: String,
    /// Why it is accepted.
    pub reason: String,
    /// Who accepted it.
    pub accepted_by: String,
    /// When.
    pub date: String,
    /// The file it comes from.
    pub file: String,
    /// The predicate.
    pub assume: String,
    /// What it does here.
    pub status: ExceptionStatus,
    /// For `broader`: an input it excludes where the outputs agree (input name to
    /// value), with both outputs there.
    pub witness: Option<BTreeMap<String, String>>,
    /// A remark (inputs it excludes where both outputs are zero; an unknown answer).
    pub note: Option<String>,
}

/// The result of a check, serializable for JSON reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    /// The verdict.
    pub verdict: Verdict,
    /// Output compared on the NL side.
    pub nl_output: String,
    /// Output compared on the BL side.
    pub bl_output: String,
    /// Φ, in SMT-LIB over the prefixed names.
    pub mappings: Vec<String>,
    /// Ψ (ranges and assumptions), in SMT-LIB over the prefixed names.
    pub constraints: Vec<String>,
    /// Names of the assumptions in force (accepted exceptions included).
    pub assumptions: Vec<String>,
    /// The accepted exceptions on file that applied, and what each does.
    pub exceptions: Vec<ExceptionUse>,
    /// Formalization diagnostics.
    pub findings: Vec<Finding>,
    /// The witness of an inconsistency.
    pub counterexample: Option<Counterexample>,
    /// Divergence regions (with enumeration on).
    pub regions: Vec<Region>,
    /// True when the region list is complete (not cut by the cap or an unknown).
    pub regions_complete: bool,
    /// Why the region list is incomplete.
    pub regions_note: Option<String>,
    /// What the solver confirmed about the regions as a partition of the divergence
    /// set (with enumeration on and at least one region).
    pub partition: Option<Partition>,
    /// Queries the solver answered `unknown`, in the order asked.
    pub undecided: Vec<Undecided>,
    /// Why the verdict is unknown: the queries it depends on that got no answer.
    pub reason: Option<String>,
    /// The kind of that reason, for a program: the kind of the first of those queries'
    /// reasons (each query in `undecided` has its own). `None` (and absent from JSON)
    /// when the verdict is not unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason_kind: Option<solver::ReasonKind>,
}

// ------------------------------------------------------------------ preparation

/// An input of one side: its own name, its prefixed constant and sort.
#[derive(Debug, Clone)]
struct Input {
    name: String,
    var: Term,
}

/// One side, renamed and with its output resolved.
struct Prepared {
    label: SideLabel,
    side: Side,
    /// Renamed declarations and definitions.
    decls: Vec<Command>,
    /// Renamed assertions.
    asserts: Vec<Term>,
    /// The assertions as sent to the solver: long `ite` chains as guarded clauses
    /// (equivalent; see [`flat`]).
    solver_asserts: Vec<Term>,
    output_name: String,
    output: Term,
    /// True when the output is a function of its parameters (functional by construction).
    function_form: bool,
    inputs: Vec<Input>,
}

impl Prepared {
    /// The symbols of the side's inputs that are plain variables.
    fn input_symbols(&self) -> HashSet<Symbol> {
        self.inputs
            .iter()
            .filter_map(|i| match &i.var {
                Term::Var(v, _) => Some(v.clone()),
                _ => None,
            })
            .collect()
    }
}

fn numeric(t: Term) -> Term {
    if t.sort() == Sort::Int {
        logic::elab::to_real(t)
    } else {
        t
    }
}

fn load(label: SideLabel, src: &SideSource) -> Result<Side, CheckError> {
    match src {
        SideSource::Smt(f) => Side::from_smt(label, f).map_err(|diagnostics| CheckError::Parse {
            side: label,
            diagnostics,
        }),
        SideSource::Bl(f) => {
            crate::parse(f)
                .map(|p| Side::from_bl(label, p))
                .map_err(|diagnostics| CheckError::Parse {
                    side: label,
                    diagnostics,
                })
        }
    }
}

fn describe_names(side: &Side) -> String {
    let mut names: Vec<String> = side
        .consts()
        .into_iter()
        .map(|(n, _)| crate::diag::quote(&n))
        .collect();
    names.extend(
        side.functions()
            .into_iter()
            .map(|(n, _)| crate::diag::quote(&n)),
    );
    if names.len() > 12 {
        names.truncate(12);
        names.push("...".into());
    }
    names.join(", ")
}

fn bounds_err(index: usize, message: String) -> CheckError {
    BOUNDS_FILE.with(|f| {
        let (file, positions) = &*f.borrow();
        CheckError::Bounds(BoundsError::invalid(file, positions, index, &message))
    })
}

/// Assigns two names to the two sides; errors name what is unknown or ambiguous.
fn assign_pair(
    index: usize,
    what: &str,
    a: &str,
    b: &str,
    sides_of: &dyn Fn(&str) -> Vec<SideLabel>,
    nl: &Side,
    bl: &Side,
) -> Result<(String, String), CheckError> {
    let (sa, sb) = (sides_of(a), sides_of(b));
    for (n, s) in [(a, &sa), (b, &sb)] {
        if s.is_empty() {
            return Err(bounds_err(
                index,
                format!(
                    "unknown {what} `{n}`: not a name of the NL side ({}) nor of the BL side ({})",
                    describe_names(nl),
                    describe_names(bl)
                ),
            ));
        }
    }
    let strip = |n: &str| qualified(n).1.to_string();
    let mut choices = Vec::new();
    if sa.contains(&SideLabel::Nl) && sb.contains(&SideLabel::Bl) {
        choices.push((strip(a), strip(b)));
    }
    if sa.contains(&SideLabel::Bl) && sb.contains(&SideLabel::Nl) {
        let c = (strip(b), strip(a));
        if !choices.contains(&c) {
            choices.push(c);
        }
    }
    match choices.len() {
        1 => Ok(choices.pop().expect("one choice")),
        0 => Err(bounds_err(
            index,
            format!(
                "`{a}` and `{b}` are on the same side; a {what} pair needs one name from each side"
            ),
        )),
        _ => Err(bounds_err(
            index,
            format!("`{a}` and `{b}` both exist on both sides; qualify them as nl.NAME / bl.NAME"),
        )),
    }
}

struct Problem {
    nl: Prepared,
    bl: Prepared,
    phi: Vec<Term>,
    psi: Vec<Term>,
    findings: Vec<Finding>,
    assumption_names: Vec<String>,
    /// Ψ from this index on are the accepted exceptions, in the order of
    /// `CheckInput::exceptions`.
    exceptions_from: usize,
    ctx: Context,
    /// Slices of one input for the hard queries (see [`slices`]); empty for most rules.
    slices: Vec<restrict::Slice>,
    /// The companion session of the sliced queries, kept across them (see
    /// [`check_sliced`]).
    part: std::cell::RefCell<Option<Part>>,
    /// The slice where the latest sliced query was satisfied (the slices before it
    /// answered unsat).
    sat_slice: std::cell::Cell<Option<usize>>,
}

/// A companion session and the declarations sent to it.
struct Part {
    decls: Vec<Command>,
    solver: Solver,
    /// The assertions restricted to each slice alone (by slice index), for the
    /// assertions whose hash is `cached_for`: the queries that bound no input (a
    /// pass over every slice) reuse them.
    cache: HashMap<usize, Option<Term>>,
    cached_for: u64,
}

fn prepare_side(side: Side, output: &str) -> Result<Prepared, Finding> {
    let label = side.label;
    let f = prefixed(label);
    let (decls, asserts) = side.renamed();
    let solver_asserts = asserts.iter().flat_map(flat::for_solver).collect();
    let mut p = Prepared {
        label,
        decls,
        asserts,
        solver_asserts,
        output_name: output.to_string(),
        output: Term::Bool(false),
        function_form: false,
        inputs: Vec::new(),
        side,
    };
    if let Some(sort) = p.side.sort_of(output).filter(|_| p.side.has_const(output)) {
        if !sort.is_numeric() {
            return Err(Finding {
                kind: FindingKind::OutputMissing,
                side: label,
                message: format!("output `{output}` has sort {sort}, not a number"),
                blocking: true,
            });
        }
        p.output = numeric(Term::Var(f(output), sort));
        let defined = p.side.defined.clone();
        for (n, s) in p.side.consts() {
            let is_input = match &p.side.program {
                Some(prog) => prog.inputs().any(|i| i == n),
                None => !defined.contains(&n),
            };
            if n != output && is_input {
                p.inputs.push(Input {
                    var: Term::Var(f(&n), s),
                    name: n,
                });
            }
        }
    } else if let Some(def) = p
        .side
        .context
        .fun(output)
        .filter(|d| !d.params.is_empty())
        .cloned()
    {
        p.function_form = true;
        let mut args = Vec::new();
        for (param, s) in &def.params {
            let mut cname = format!("{}{param}", label.prefix());
            if p.side.has_const(param) {
                cname = format!("{}{output}.{param}", label.prefix());
            }
            let sym: Symbol = Arc::from(cname.as_str());
            p.decls.push(Command::DeclareConst(sym.clone(), s.clone()));
            let v = Term::Var(sym, s.clone());
            args.push(v.clone());
            p.inputs.push(Input {
                name: param.to_string(),
                var: v,
            });
        }
        p.output = numeric(Term::Call(f(output), args, def.sort.clone()));
        for (n, s) in p.side.consts() {
            if !p.side.defined.contains(&n) {
                p.inputs.push(Input {
                    var: Term::Var(f(&n), s),
                    name: n,
                });
            }
        }
    } else {
        let hint = describe_names(&p.side);
        return Err(Finding {
            kind: FindingKind::OutputMissing,
            side: label,
            message: format!("output variable `{output}` is missing (names: {hint})"),
            blocking: true,
        });
    }
    Ok(p)
}

/// The constant term for a name on one side: an input (including function
/// parameters) or any constant.
fn var_of(p: &Prepared, name: &str) -> Option<Term> {
    if let Some(i) = p.inputs.iter().find(|i| i.name == name) {
        return Some(i.var.clone());
    }
    let s = p.side.sort_of(name).filter(|_| p.side.has_const(name))?;
    Some(Term::Var(prefixed(p.label)(name), s))
}

fn eq(a: Term, b: Term) -> Term {
    Term::app(Op::Eq, vec![numeric(a), numeric(b)])
}

thread_local! {
    /// The bounds file's name, for messages about its entries.
    /// The bounds file's name and the positions of its entries, for messages about them.
    static BOUNDS_FILE: std::cell::RefCell<(String, Vec<(usize, usize)>)> =
        const { std::cell::RefCell::new((String::new(), Vec::new())) };
}

/// Resolves outputs, mappings, ranges and assumptions.
fn prepare(input: &CheckInput) -> Result<Result<Problem, Vec<Finding>>, CheckError> {
    BOUNDS_FILE.with(|f| {
        *f.borrow_mut() = input.bounds.as_ref().map_or_else(
            || ("bounds".to_string(), Vec::new()),
            |b| (b.file.clone(), b.positions.clone()),
        )
    });
    let nl = load(SideLabel::Nl, &input.nl)?;
    let bl = load(SideLabel::Bl, &input.bl)?;
    let mut findings = undefined_functions(&nl, &bl);
    let items: &[BoundItem] = input.bounds.as_ref().map_or(&[], |b| &b.items);
    let outputs = bound_outputs(input, items, &nl, &bl)?;
    let out_bl = outputs.bl.or_else(|| {
        bl.program
            .as_ref()
            .and_then(|p| p.last_name().map(str::to_string))
    });
    let Some(out_nl) = outputs.nl else {
        findings.push(Finding {
            kind: FindingKind::OutputMissing,
            side: SideLabel::Nl,
            message: "no NL output variable given (use the bounds' `outputs` entry or name it)"
                .into(),
            blocking: true,
        });
        return Ok(Err(findings));
    };
    let Some(out_bl) = out_bl else {
        findings.push(Finding {
            kind: FindingKind::OutputMissing,
            side: SideLabel::Bl,
            message: "no BL output variable given".into(),
            blocking: true,
        });
        return Ok(Err(findings));
    };
    let (pnl, pbl) = (prepare_side(nl, &out_nl), prepare_side(bl, &out_bl));
    let (mut pnl, mut pbl) = match (pnl, pbl) {
        (Ok(a), Ok(b)) => (a, b),
        (a, b) => {
            findings.extend(a.err());
            findings.extend(b.err());
            return Ok(Err(findings));
        }
    };
    let mut mapped = Mapped::default();
    let mut psi: Vec<Term> = Vec::new();
    let sides = Sides { nl: &pnl, bl: &pbl };
    for (idx, it) in &outputs.functions {
        sides.function_mapping(*idx, it, &mut mapped)?;
    }
    for (i, it) in items.iter().enumerate() {
        match it {
            BoundItem::Equals { variables } => sides.equalities(i + 1, variables, &mut mapped)?,
            BoundItem::Ranges { .. } => psi.extend(sides.ranges(i + 1, it)?),
            _ => {}
        }
    }
    if input.options.map_same_named_inputs {
        sides.map_same_named(&mut mapped);
    }
    let Mapped { phi, names: mapped } = mapped;
    keep_mapped_inputs(items, [&mut pnl, &mut pbl], &mapped);
    let ctx = combined_context(&pnl, &pbl);
    let (names, exceptions_from) = assumptions(input, &ctx, &pnl, &pbl, &mut psi)?;
    findings.extend(unmapped_inputs(&pnl, &pbl, &phi, &psi));
    let exceptions_from = exceptions_from.min(psi.len());
    let mut problem = Problem {
        nl: pnl,
        bl: pbl,
        phi,
        psi,
        findings,
        assumption_names: names,
        exceptions_from,
        ctx,
        slices: Vec::new(),
        part: std::cell::RefCell::new(None),
        sat_slice: std::cell::Cell::new(None),
    };
    problem.slices = slices(&problem);
    Ok(Ok(problem))
}

/// A blocking finding for each function a side declares but never defines.
fn undefined_functions(nl: &Side, bl: &Side) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (s, l) in [(nl, SideLabel::Nl), (bl, SideLabel::Bl)] {
        for f in &s.undefined_functions {
            findings.push(Finding {
                kind: FindingKind::UndefinedFunction,
                side: l,
                message: format!("function `{f}` is declared but never defined"),
                blocking: true,
            });
        }
    }
    findings
}

/// The outputs of both sides (as given, or named by the bounds' `outputs`, `strict` and
/// `mapping` entries), and the function entries with their positions.
fn bound_outputs<'i>(
    input: &CheckInput,
    items: &'i [BoundItem],
    nl: &Side,
    bl: &Side,
) -> Result<BoundOutputs<'i>, CheckError> {
    let (mut out_nl, mut out_bl) = (input.nl_output.clone(), input.bl_output.clone());
    let mut fn_pairs: Vec<(usize, &BoundItem)> = Vec::new();
    for (i, it) in items.iter().enumerate() {
        let (names, what) = match it {
            BoundItem::Outputs { variables } => (variables, "output"),
            BoundItem::Strict { functions, .. } | BoundItem::Mapping { functions, .. } => {
                (functions, "function")
            }
            _ => continue,
        };
        // Checked when reading a file; bounds built in code may still be wrong.
        let [first, second] = names.as_slice() else {
            return Err(bounds_err(
                i + 1,
                format!("needs exactly two {what} names, one per side"),
            ));
        };
        let sides_of = |n: &str| output_sides(n, nl, bl);
        let (a, b) = assign_pair(i + 1, what, first, second, &sides_of, nl, bl)?;
        for (given, found, l) in [(&mut out_nl, &a, "NL"), (&mut out_bl, &b, "BL")] {
            match given {
                Some(g) if g != found => {
                    return Err(bounds_err(
                        i + 1,
                        format!("the bounds name `{found}` as the {l} output, but `{g}` was given"),
                    ))
                }
                _ => *given = Some(found.clone()),
            }
        }
        if what == "function" {
            fn_pairs.push((i + 1, it));
        }
    }
    Ok(BoundOutputs {
        nl: out_nl,
        bl: out_bl,
        functions: fn_pairs,
    })
}

/// What [`bound_outputs`] finds.
struct BoundOutputs<'i> {
    /// The NL output, when given or named.
    nl: Option<String>,
    /// The BL output, when given or named.
    bl: Option<String>,
    /// The `strict` and `mapping` entries, with their positions (from 1).
    functions: Vec<(usize, &'i BoundItem)>,
}

/// The equalities between the sides' inputs (φ) and the inputs they map.
#[derive(Default)]
struct Mapped {
    phi: Vec<Term>,
    names: HashSet<(SideLabel, String)>,
}

impl Mapped {
    /// Records that the NL input `x` (named `n`) equals the BL input `y` (named `m`).
    fn relate(&mut self, x: Term, n: String, y: Term, m: String) {
        self.phi.push(eq(x, y));
        self.names.insert((SideLabel::Nl, n));
        self.names.insert((SideLabel::Bl, m));
    }
}

/// Both prepared sides, for resolving the names the bounds use.
struct Sides<'a> {
    nl: &'a Prepared,
    bl: &'a Prepared,
}

impl Sides<'_> {
    /// The sides on which `n` (maybe qualified) is a variable.
    fn of_var(&self, n: &str) -> Vec<SideLabel> {
        let (q, m) = qualified(n);
        let mut v = Vec::new();
        for p in [self.nl, self.bl] {
            if q.is_none_or(|q| q == p.label) && var_of(p, m).is_some() {
                v.push(p.label);
            }
        }
        v
    }

    /// The prepared side with label `l`.
    fn side(&self, l: SideLabel) -> &Prepared {
        if l == SideLabel::Nl {
            self.nl
        } else {
            self.bl
        }
    }

    /// Resolves the variables `x` and `y` of entry `idx` to one per side and maps them.
    fn map_pair(
        &self,
        idx: usize,
        what: &str,
        x: &str,
        y: &str,
        mapped: &mut Mapped,
    ) -> Result<(), CheckError> {
        let sides_of_var = |n: &str| self.of_var(n);
        let (n, m) = assign_pair(idx, what, x, y, &sides_of_var, &self.nl.side, &self.bl.side)?;
        mapped.relate(
            var_of(self.nl, &n).expect("resolved"),
            n,
            var_of(self.bl, &m).expect("resolved"),
            m,
        );
        Ok(())
    }

    /// The parameter mapping of a `strict` or `mapping` entry of the bounds.
    fn function_mapping(
        &self,
        idx: usize,
        it: &BoundItem,
        mapped: &mut Mapped,
    ) -> Result<(), CheckError> {
        let params = |p: &Prepared| -> Vec<Input> {
            p.inputs
                .iter()
                .filter(|_| p.function_form)
                .cloned()
                .collect()
        };
        let (pa, pb) = (params(self.nl), params(self.bl));
        match it {
            BoundItem::Strict { .. } => {
                if pa.len() != pb.len() {
                    return Err(bounds_err(
                        idx,
                        format!(
                            "`strict` needs functions of the same arity; `{}` has {} parameters, `{}` has {}",
                            self.nl.output_name,
                            pa.len(),
                            self.bl.output_name,
                            pb.len()
                        ),
                    ));
                }
                for (x, y) in pa.iter().zip(&pb) {
                    mapped.relate(x.var.clone(), x.name.clone(), y.var.clone(), y.name.clone());
                }
            }
            BoundItem::Mapping { mapping, .. } => {
                for (x, y) in mapping {
                    self.map_pair(idx, "parameter", x, y, mapped)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// An `equals` entry of the bounds: two variables, one per side, or a chain of
    /// qualified ones.
    fn equalities(
        &self,
        idx: usize,
        variables: &[String],
        mapped: &mut Mapped,
    ) -> Result<(), CheckError> {
        if variables.len() == 2 {
            return self.map_pair(idx, "variable", &variables[0], &variables[1], mapped);
        }
        let mut terms = Vec::new();
        for v in variables {
            let s = self.of_var(v);
            if s.len() != 1 {
                return Err(bounds_err(
                    idx,
                    format!(
                        "`{v}` is {}; qualify it as nl.NAME or bl.NAME",
                        if s.is_empty() {
                            "not a variable of either side"
                        } else {
                            "on both sides"
                        }
                    ),
                ));
            }
            let n = qualified(v).1;
            mapped.names.insert((s[0], n.to_string()));
            terms.push(var_of(self.side(s[0]), n).expect("resolved"));
        }
        for w in terms.windows(2) {
            mapped.phi.push(eq(w[0].clone(), w[1].clone()));
        }
        Ok(())
    }

    /// The bounds (Ψ) of a `ranges` entry, on every side that has each variable.
    fn ranges(&self, idx: usize, it: &BoundItem) -> Result<Vec<Term>, CheckError> {
        let BoundItem::Ranges {
            variables,
            min,
            max,
            min_inclusive,
            max_inclusive,
        } = it
        else {
            return Ok(Vec::new());
        };
        let mut psi = Vec::new();
        for v in variables {
            let s = self.of_var(v);
            if s.is_empty() {
                return Err(bounds_err(
                    idx,
                    format!(
                        "unknown variable `{v}`: not a name of the NL side ({}) nor of the BL side ({})",
                        describe_names(&self.nl.side),
                        describe_names(&self.bl.side)
                    ),
                ));
            }
            for l in s {
                let x = numeric(var_of(self.side(l), qualified(v).1).expect("resolved"));
                let (lower, upper) = (
                    if min_inclusive.unwrap_or(true) {
                        Op::Ge
                    } else {
                        Op::Gt
                    },
                    if max_inclusive.unwrap_or(false) {
                        Op::Le
                    } else {
                        Op::Lt
                    },
                );
                for (op, bound) in [(lower, min), (upper, max)] {
                    if let Some(m) = bound {
                        psi.push(Term::app(op, vec![x.clone(), Term::Real(m.clone())]));
                    }
                }
            }
        }
        Ok(psi)
    }

    /// Maps inputs of the same name on both sides that no entry has mapped.
    fn map_same_named(&self, mapped: &mut Mapped) {
        for x in &self.nl.inputs {
            if let Some(y) = self.bl.inputs.iter().find(|y| y.name == x.name) {
                if !mapped.names.contains(&(SideLabel::Nl, x.name.clone()))
                    && !mapped.names.contains(&(SideLabel::Bl, y.name.clone()))
                {
                    mapped.relate(x.var.clone(), x.name.clone(), y.var.clone(), y.name.clone());
                }
            }
        }
    }
}

/// When the mappings relate some constants of a relational SMT side, those (and the
/// ranged ones) are its inputs; every other constant is an intermediate, which the
/// functionality check then has to find determined.
fn keep_mapped_inputs(
    items: &[BoundItem],
    sides: [&mut Prepared; 2],
    mapped: &HashSet<(SideLabel, String)>,
) {
    let ranged = bounds::ranged_names(items);
    for p in sides {
        let label = p.label;
        if p.side.program.is_none()
            && !p.function_form
            && p.inputs
                .iter()
                .any(|i| mapped.contains(&(label, i.name.clone())))
        {
            p.inputs
                .retain(|i| mapped.contains(&(label, i.name.clone())) || ranged.contains(&i.name));
        }
    }
}

/// The combined context of both sides (for assumptions and evaluation).
fn combined_context(pnl: &Prepared, pbl: &Prepared) -> Context {
    let mut ctx = Context::new();
    for c in pnl.decls.iter().chain(&pbl.decls) {
        match c {
            Command::DeclareConst(n, s) => ctx.declare_const(n.clone(), s.clone()),
            Command::DefineFun(d) => ctx.define((**d).clone()),
            _ => {}
        }
    }
    ctx
}

/// Reads the assumptions, then the accepted exceptions, onto `psi`; returns their
/// names and the index in `psi` where the exceptions begin (`usize::MAX` when there
/// are none).
fn assumptions(
    input: &CheckInput,
    ctx: &Context,
    pnl: &Prepared,
    pbl: &Prepared,
    psi: &mut Vec<Term>,
) -> Result<(Vec<String>, usize), CheckError> {
    let mut names = Vec::new();
    let mut exceptions_from = usize::MAX;
    let all: Vec<Assumption> = input
        .assumptions
        .iter()
        .cloned()
        .chain(input.exceptions.iter().map(|e| e.assumption()))
        .collect();
    for (k, a) in all.iter().enumerate() {
        if k == input.assumptions.len() {
            exceptions_from = psi.len();
        }
        psi.push(assumption(a, ctx, pnl, pbl)?);
        names.push(a.name.clone());
    }
    Ok((names, exceptions_from))
}

/// One assumption as a term over both sides: a name that only one side has may be
/// written unqualified.
fn assumption(
    a: &Assumption,
    ctx: &Context,
    pnl: &Prepared,
    pbl: &Prepared,
) -> Result<Term, CheckError> {
    let mut actx = ctx.clone();
    let mut both = Vec::new();
    let mut alias: BTreeMap<Symbol, Term> = BTreeMap::new();
    let mut seen: HashSet<String> = HashSet::new();
    for (n, s) in pnl.side.consts().into_iter().chain(pbl.side.consts()) {
        if !seen.insert(n.clone()) {
            both.push(n);
        } else if !ctx.is_declared(&n) {
            alias.insert(Arc::from(n.as_str()), Term::Var(Arc::from(n.as_str()), s));
        }
    }
    for n in &both {
        alias.remove(n.as_str());
    }
    for (n, t) in &alias {
        if let Term::Var(_, s) = t {
            actx.declare_const(n.clone(), s.clone());
        }
    }
    let file = SourceFile::new(format!("assumption {}", a.name), a.term.clone());
    let t = logic::parse_formula(&file, &actx).map_err(|diagnostics| CheckError::Assumption {
        name: crate::diag::quote(&a.name),
        diagnostics: Diagnostics::from_logic(&diagnostics),
        note: if both.is_empty() {
            String::new()
        } else {
            format!(
                " (names on both sides must be written nl.NAME or bl.NAME: {})",
                crate::diag::clip(
                    &both
                        .iter()
                        .map(|n| crate::diag::quote(n))
                        .collect::<Vec<_>>()
                        .join(", "),
                    crate::diag::MAX_MESSAGE
                )
            )
        },
    })?;
    // Unqualified names to their side's constant.
    let resolved: BTreeMap<Symbol, Term> = alias
        .keys()
        .map(|n| {
            let side = if pnl.side.has_const(n) { pnl } else { pbl };
            (n.clone(), var_of(side, n).expect("declared"))
        })
        .collect();
    Ok(substitute(&t, &resolved))
}

/// A finding for each input that neither a mapping nor an assumption constrains while
/// the other side has inputs.
fn unmapped_inputs(pnl: &Prepared, pbl: &Prepared, phi: &[Term], psi: &[Term]) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (p, other) in [(pnl, pbl), (pbl, pnl)] {
        for x in &p.inputs {
            let used_in_phi = phi.iter().chain(psi).any(|t| {
                t.free_vars().iter().any(|(n, _)| {
                    Some(n)
                        == match &x.var {
                            Term::Var(v, _) => Some(v),
                            _ => None,
                        }
                })
            });
            if !used_in_phi && !other.inputs.is_empty() {
                findings.push(Finding {
                    kind: FindingKind::UnmappedInput,
                    side: p.label,
                    message: format!(
                        "input `{}` is not mapped to the other side and is unconstrained",
                        x.name
                    ),
                    blocking: false,
                });
            }
        }
    }
    findings
}

/// Thresholds on one input above which the hard queries are asked slice by slice.
const SLICE_FROM: usize = 256;
/// Thresholds per slice.
const SLICE_WIDTH: usize = 32;

/// Slices of the input with the most thresholds, when it has many: intervals that
/// together cover every value, cut at every [`SLICE_WIDTH`]th threshold. A query over
/// a rule with thousands of rows is asked once per slice, on the problem restricted to
/// the slice ([`restrict`]): the rows of other slices drop out, so each query is small,
/// and it means the same, since the slices cover every input (the query is satisfiable
/// exactly when it is in one slice).
fn slices(p: &Problem) -> Vec<restrict::Slice> {
    let mut by_var: BTreeMap<Symbol, (Sort, BTreeSet<BigRational>)> = BTreeMap::new();
    for a in atoms(&p.nl, &p.ctx).iter().chain(&atoms(&p.bl, &p.ctx)) {
        let Term::App(_, xs) = a else { continue };
        let [x, y] = xs.as_slice() else { continue };
        let (v, k) = match (x, y) {
            (Term::Var(v, srt), k) | (k, Term::Var(v, srt)) => match regions::rat_of_term(k) {
                Some(r) => ((v.clone(), srt.clone()), r),
                None => continue,
            },
            _ => continue,
        };
        by_var
            .entry(v.0)
            .or_insert_with(|| (v.1, BTreeSet::new()))
            .1
            .insert(k);
    }
    let Some((var, (sort, values))) = by_var.into_iter().max_by_key(|(_, (_, vs))| vs.len()) else {
        return Vec::new();
    };
    if values.len() < SLICE_FROM {
        return Vec::new();
    }
    let x = numeric(Term::Var(var.clone(), sort));
    let cuts: Vec<BigRational> = values
        .into_iter()
        .enumerate()
        .filter(|(i, _)| (i + 1) % SLICE_WIDTH == 0)
        .map(|(_, v)| v)
        .collect();
    let mut out = Vec::new();
    let mut prev: Option<BigRational> = None;
    for c in cuts.into_iter().map(Some).chain([None]) {
        let above = prev
            .clone()
            .map(|p| Term::app(Op::Lt, vec![Term::Real(p), x.clone()]));
        let below = c
            .clone()
            .map(|c| Term::app(Op::Le, vec![x.clone(), Term::Real(c)]));
        let term = match (above, below) {
            (Some(a), Some(b)) => Term::app(Op::And, vec![a, b]),
            (Some(t), None) | (None, Some(t)) => t,
            (None, None) => Term::Bool(true),
        };
        out.push(restrict::Slice {
            term,
            var: var.clone(),
            lo: prev.clone(),
            hi: c.clone(),
        });
        prev = c;
    }
    out
}

/// `check_assuming(q)`, asked slice by slice when the problem has [`slices`]: the
/// first slice's model when one is satisfiable, unsat (with all of `q` as the core)
/// when every slice is, else the first unknown. Without slices, asked as it is.
///
/// Each slice is asked in a companion session (its transcript next to the main one as
/// `*.slices-1.smt2`) that holds the declarations in force, the slice, and every
/// assertion in force restricted to the slice and to the bounds that `q` itself puts
/// on the inputs ([`restrict`]): the same problem there, without the rows that cannot
/// apply. A slice that `q`'s bounds exclude is not asked (`q` is unsat in it by those
/// bounds alone), so a query about one cell of a large table costs one small query.
fn check_sliced(p: &Problem, s: &mut Solver, q: &[Term]) -> Result<Outcome, CheckError> {
    check_sliced_as(p, s, q, false, 0)
}

/// [`check_sliced`]; with `restrict_query`, `q` too is restricted to each slice (by the
/// slice's bounds alone, never by bounds read from `q`): for a query that is large but
/// mostly decided in any one slice, such as the negation of every guard. Slices
/// before `from` are not asked (the caller knows the answer there is unsat).
fn check_sliced_as(
    p: &Problem,
    s: &mut Solver,
    q: &[Term],
    restrict_query: bool,
    from: usize,
) -> Result<Outcome, CheckError> {
    p.sat_slice.set(None);
    if p.slices.is_empty() {
        return Ok(s.check_assuming(q)?);
    }
    let decls: Vec<Command> = s
        .commands()
        .filter(|c| !matches!(c, Command::Assert(_)))
        .cloned()
        .collect();
    let mut slot = p.part.borrow_mut();
    if slot.as_ref().is_some_and(|part| part.decls != decls) {
        let part = slot.as_mut().expect("checked");
        part.solver.reset()?;
        for c in &decls {
            part.solver.command(c)?;
        }
        part.decls = decls;
    } else if slot.is_none() {
        let mut solver = s.companion("slices")?;
        for c in &decls {
            solver.command(c)?;
        }
        *slot = Some(Part {
            decls,
            solver,
            cache: HashMap::new(),
            cached_for: 0,
        });
    }
    let part = slot.as_mut().expect("set above");
    let asserts: Vec<&Term> = s
        .commands()
        .filter_map(|c| match c {
            Command::Assert(t) => Some(t),
            _ => None,
        })
        .collect();
    let classes = restrict::classes(asserts.iter().copied());
    let unbounded = restrict::within(q, None, &classes).is_some_and(|w| w.is_empty());
    if unbounded {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        std::hash::Hash::hash(&asserts, &mut h);
        let fp = std::hash::Hasher::finish(&h);
        if fp != part.cached_for {
            part.cache.clear();
            part.cached_for = fp;
        }
    }
    let mut unknown = None;
    for (k, slice) in p.slices.iter().enumerate().skip(from) {
        let Some(within) = restrict::within(q, Some(slice), &classes) else {
            continue;
        };
        // One assertion per slice: one exchange with the process instead of one
        // per row.
        let restricted = || -> Option<Term> {
            let mut rows: Vec<Term> = asserts
                .iter()
                .map(|t| restrict::restrict(t, &within))
                .filter(|r| *r != Term::Bool(true))
                .collect();
            match rows.len() {
                0 => None,
                1 => rows.pop(),
                _ => Some(Term::app(Op::And, rows)),
            }
        };
        let rows = if unbounded {
            part.cache.entry(k).or_insert_with(restricted).clone()
        } else {
            restricted()
        };
        // `q` is sent as it is: the bounds read from it hold only because it is
        // assumed (restricting it by them would assume what it says). Restricted by
        // the slice's own bounds, which the slice session asserts, it is equal to
        // itself there.
        let here: Vec<Term> = if restrict_query {
            let own = restrict::within(&[], Some(slice), &classes).unwrap_or_default();
            q.iter().map(|t| restrict::restrict(t, &own)).collect()
        } else {
            q.to_vec()
        };
        if here.contains(&Term::Bool(false)) {
            continue;
        }
        let part = &mut part.solver;
        part.push()?;
        part.assert(&slice.term)?;
        if let Some(rows) = &rows {
            part.assert(rows)?;
        }
        let outcome = part.check_assuming(&here);
        part.pop()?;
        match outcome? {
            Outcome::Sat(m) => {
                p.sat_slice.set(Some(k));
                return Ok(Outcome::Sat(m));
            }
            Outcome::Unsat(_) => {}
            Outcome::Unknown(r) => {
                unknown.get_or_insert(r);
            }
        }
    }
    Ok(match unknown {
        Some(r) => Outcome::Unknown(r),
        None => Outcome::Unsat(q.to_vec()),
    })
}

// ------------------------------------------------------------------ solving

fn distinct(a: &Term, b: &Term) -> Term {
    Term::app(Op::Distinct, vec![a.clone(), b.clone()])
}

fn value_of(t: &Term, m: &Model, ctx: &Context) -> Result<Value, CheckError> {
    logic::eval(t, m, ctx)
        .map_err(|e| CheckError::Replay(format!("{}: {e}", logic::print::term(t))))
}

fn rat(v: &Value) -> Option<BigRational> {
    match v {
        Value::Real(r) => Some(r.clone()),
        Value::Int(i) => Some(BigRational::from_integer(i.clone())),
        _ => None,
    }
}

/// The model with every declared constant given a value (0 / false for those the
/// solver left out because nothing constrains them).
fn complete(m: &Model, ctx: &Context) -> Model {
    let mut m = m.clone();
    for (n, s) in ctx.consts() {
        if m.get(n).is_none() {
            let v = match s {
                Sort::Bool => Value::Bool(false),
                Sort::Int => Value::Int(0.into()),
                _ => Value::Real(BigRational::from_integer(0.into())),
            };
            m.insert(n.clone(), v);
        }
    }
    m
}

/// A value for people: exact, integers without a trailing `.0`.
fn show(v: &Value) -> String {
    let s = v.to_string();
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

/// Checks the documented rule against the implementation (Eq. (2)), after the
/// formalization diagnostics.
///
/// The check runs on a thread with a large stack ([`logic::with_big_stack`]), so rule
/// chains of any practical length (a nested `if` or `ite` per table row) are fine.
pub fn check_consistency(input: &CheckInput, config: &SolverConfig) -> Result<Report, CheckError> {
    logic::with_big_stack(|| check_on_this_thread(input, config))
}

fn check_on_this_thread(input: &CheckInput, config: &SolverConfig) -> Result<Report, CheckError> {
    let problem = match prepare(input)? {
        Ok(p) => p,
        Err(findings) => {
            return Ok(Report {
                findings,
                ..empty_report(
                    Verdict::Rejected,
                    input.nl_output.clone().unwrap_or_default(),
                    input.bl_output.clone().unwrap_or_default(),
                    input.assumptions.iter().map(|a| a.name.clone()).collect(),
                )
            })
        }
    };
    let mut solver = Solver::start(config)?;
    run(&problem, input, &mut solver)
}

/// The literals of `atoms` that hold in `m` (each atom or its negation).
fn literals_at(atoms: &[Term], m: &Model, ctx: &Context) -> Vec<Term> {
    atoms
        .iter()
        .filter_map(|a| {
            logic::eval_bool(a, m, ctx)
                .ok()
                .map(|b| if b { a.clone() } else { Term::not(a.clone()) })
        })
        .collect()
}

/// `name = value, ...` for the inputs of a side that have a value in `m`.
fn show_inputs(inputs: &[Input], m: &Model, ctx: &Context) -> String {
    inputs
        .iter()
        .filter_map(|i| {
            logic::eval(&i.var, m, ctx)
                .ok()
                .map(|v| format!("{} = {}", i.name, show(&v)))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A blocking finding makes the verdict `rejected`, an undecided query the verdict
/// depends on `unknown`; true when one of them settled it.
fn settled_before_the_verdict(report: &mut Report) -> bool {
    if report.findings.iter().any(|f| f.blocking) {
        report.verdict = Verdict::Rejected;
        return true;
    }
    if report.undecided.iter().any(|u| u.affects_verdict) {
        report.verdict = Verdict::Unknown;
        set_unknown_reason(report);
        return true;
    }
    false
}

/// Runs the check of a prepared problem: diagnostics first (when asked), then the
/// consistency query and, when the outputs differ, the counterexample and the regions.
fn run(p: &Problem, input: &CheckInput, s: &mut Solver) -> Result<Report, CheckError> {
    let mut findings = p.findings.clone();
    let mut undecided: Vec<Undecided> = Vec::new();
    // Sides of guarded clauses whose coverage is asked only after a sat main query.
    let mut deferred: Vec<(&Prepared, Vec<Term>)> = Vec::new();
    let mut report = blank_report(p);
    for c in p.nl.decls.iter().chain(&p.bl.decls) {
        s.command(c)?;
    }
    for t in &p.bl.solver_asserts {
        s.assert(t)?;
    }
    for t in p.phi.iter().chain(&p.psi) {
        s.assert(t)?;
    }
    let samples = if input.options.diagnose && !p.nl.function_form {
        sample_paths(p, s, &mut undecided)?
    } else {
        Vec::new()
    };
    s.push()?;
    for t in &p.nl.solver_asserts {
        s.assert(t)?;
    }
    if input.options.diagnose {
        totality(p, s, &samples, &mut findings, &mut undecided)?;
        vacuity(s, &mut findings, &mut undecided)?;
        for side in [&p.nl, &p.bl] {
            if side.function_form || side.side.program.is_some() || definitional(side) {
                continue;
            }
            match guarded(side) {
                // Where no guard holds, the output is free, so the main query is sat
                // there: an unsat main query proves there is no such input, and the
                // coverage query is needed only after a sat one.
                Form::Functional(guards) => deferred.push((side, guards)),
                _ => functional(p, side, s, &mut findings, &mut undecided)?,
            }
        }
    }
    report.findings = findings;
    report.undecided = undecided;
    if settled_before_the_verdict(&mut report) {
        return Ok(report);
    }
    if consistency(p, input, s, &deferred, &mut report)? {
        return Ok(report);
    }
    if !input.exceptions.is_empty()
        && matches!(report.verdict, Verdict::Consistent | Verdict::Inconsistent)
    {
        report.exceptions = exception_uses(p, input, s.config())?;
    }
    Ok(report)
}

/// The report of `p` before any query: its outputs, mappings, constraints and
/// assumptions, with an unknown verdict.
fn blank_report(p: &Problem) -> Report {
    Report {
        mappings: p.phi.iter().map(logic::print::term).collect(),
        constraints: p.psi.iter().map(logic::print::term).collect(),
        ..empty_report(
            Verdict::Unknown,
            p.nl.output_name.clone(),
            p.bl.output_name.clone(),
            p.assumption_names.clone(),
        )
    }
}

/// A report with `verdict` over the outputs `nl_output` and `bl_output` under
/// `assumptions`, and nothing else: no mapping, constraint, finding or region.
fn empty_report(
    verdict: Verdict,
    nl_output: String,
    bl_output: String,
    assumptions: Vec<String>,
) -> Report {
    Report {
        verdict,
        nl_output,
        bl_output,
        mappings: vec![],
        constraints: vec![],
        assumptions,
        exceptions: vec![],
        findings: vec![],
        counterexample: None,
        regions: vec![],
        regions_complete: true,
        regions_note: None,
        partition: None,
        undecided: vec![],
        reason: None,
        reason_kind: None,
    }
}

/// Samples one input per path of B (before A is asserted), for the totality check;
/// where two clauses of a guarded NL side meet with different outputs, a point of the
/// meet comes first (when the inputs allow it).
fn sample_paths(
    p: &Problem,
    s: &mut Solver,
    undecided: &mut Vec<Undecided>,
) -> Result<Vec<Model>, CheckError> {
    let mut sample_atoms = atoms(&p.bl, &p.ctx);
    sample_atoms.extend(atoms(&p.nl, &p.ctx));
    let mut samples: Vec<Model> = Vec::new();
    s.push()?;
    while samples.len() < 16 {
        match s.check()? {
            Outcome::Sat(m) => {
                let m = complete(&m, &p.ctx);
                let lits = literals_at(&sample_atoms, &m, &p.ctx);
                samples.push(m);
                if lits.is_empty() {
                    break;
                }
                s.assert(&Term::not(Term::app(Op::And, lits)))?;
            }
            Outcome::Unsat(_) => break,
            Outcome::Unknown(r) => {
                undecided.push(Undecided::new(
                    Query::Sampling,
                    None,
                    format!("(after {} samples)", samples.len()),
                    &r,
                ));
                break;
            }
        }
    }
    if let Form::Overlap(point) = guarded(&p.nl) {
        let fix: Vec<Term> =
            p.nl.inputs
                .iter()
                .filter_map(|i| {
                    let v = point.get(&i.name)?;
                    let t = match i.var.sort() {
                        Sort::Int if v.is_integer() => Term::Int(v.to_integer()),
                        Sort::Int => return None,
                        _ => Term::Real(v.clone()),
                    };
                    Some(eq(i.var.clone(), t))
                })
                .collect();
        if let Outcome::Sat(m) = check_sliced(p, s, &fix)? {
            samples.insert(0, complete(&m, &p.ctx));
        }
    }
    s.pop()?;
    Ok(samples)
}

/// Looks for a sampled input for which A has no output (with A asserted); stops at the
/// first one, or at the first unknown answer.
fn totality(
    p: &Problem,
    s: &mut Solver,
    samples: &[Model],
    findings: &mut Vec<Finding>,
    undecided: &mut Vec<Undecided>,
) -> Result<(), CheckError> {
    for m in samples {
        let fix: Vec<Term> =
            p.nl.inputs
                .iter()
                .filter_map(|i| {
                    logic::eval(&i.var, m, &p.ctx)
                        .ok()
                        .map(|v| eq(i.var.clone(), v.to_term()))
                })
                .collect();
        let at = || show_inputs(&p.nl.inputs, m, &p.ctx);
        match check_sliced(p, s, &fix)? {
            Outcome::Sat(_) => {}
            Outcome::Unsat(_) => {
                findings.push(Finding {
                    kind: FindingKind::NoOutputForInput,
                    side: SideLabel::Nl,
                    message: format!(
                        "the formalization has no solution for the allowed input {} (spurious constraints?)",
                        at()
                    ),
                    blocking: true,
                });
                break;
            }
            Outcome::Unknown(r) => {
                // Every further sample would cost the same time limit.
                undecided.push(Undecided::new(
                    Query::Totality,
                    Some(SideLabel::Nl),
                    format!("at {}", at()),
                    &r,
                ));
                break;
            }
        }
    }
    Ok(())
}

/// Whether the two sides with the mappings and constraints admit any assignment at all.
fn vacuity(
    s: &mut Solver,
    findings: &mut Vec<Finding>,
    undecided: &mut Vec<Undecided>,
) -> Result<(), CheckError> {
    match s.check()? {
        Outcome::Unsat(_) => findings.push(Finding {
            kind: FindingKind::Vacuous,
            side: SideLabel::Nl,
            message: "the two sides with the mappings and constraints admit no assignment at all"
                .into(),
            blocking: true,
        }),
        Outcome::Sat(_) => {}
        Outcome::Unknown(r) => {
            undecided.push(Undecided::new(Query::Vacuity, None, String::new(), &r))
        }
    }
    Ok(())
}

/// The main query (do the outputs differ?) and its verdict; when they do, the
/// deferred coverage checks, a counterexample and, when asked, the regions. True when
/// the coverage checks settle the report before the verdict.
fn consistency(
    p: &Problem,
    input: &CheckInput,
    s: &mut Solver,
    deferred: &[(&Prepared, Vec<Term>)],
    report: &mut Report,
) -> Result<bool, CheckError> {
    let diff = distinct(&p.nl.output, &p.bl.output);
    match check_sliced(p, s, std::slice::from_ref(&diff))? {
        Outcome::Unsat(_) => report.verdict = Verdict::Consistent,
        Outcome::Unknown(r) => {
            report.verdict = Verdict::Unknown;
            report
                .undecided
                .push(Undecided::new(Query::Consistency, None, String::new(), &r));
            set_unknown_reason(report);
        }
        Outcome::Sat(m) => {
            // In the slices where the main query was unsat the outputs agree, so no
            // guard is missing there (where none holds, the output is free).
            let from = p.sat_slice.get().unwrap_or(0);
            for (side, guards) in deferred {
                covered(
                    p,
                    side,
                    guards,
                    from,
                    s,
                    &mut report.findings,
                    &mut report.undecided,
                )?;
            }
            if settled_before_the_verdict(report) {
                return Ok(true);
            }
            report.verdict = Verdict::Inconsistent;
            let m = complete(&m, &p.ctx);
            let m = rounder(p, s, std::slice::from_ref(&diff), m)?;
            report.counterexample = Some(replay(p, &m)?);
            if input.options.enumerate {
                let e = regions::enumerate(p, s, input.options.max_regions, Some(m.clone()))?;
                report.regions = e.regions;
                report.regions_complete = e.note.is_none();
                report.regions_note = e.note;
                report.partition = e.partition;
            }
        }
    }
    Ok(false)
}

/// The inputs of both sides at a model: BL names, then NL inputs that Φ does not
/// relate to the other side (`nl.x` when a BL input has the name).
fn input_values(p: &Problem, m: &Model) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for i in &p.bl.inputs {
        if let Ok(v) = logic::eval(&i.var, m, &p.ctx) {
            out.insert(i.name.clone(), show(&v));
        }
    }
    // NL inputs that Φ relates to the other side are shown under their BL names.
    let mapped: HashSet<Symbol> = p
        .phi
        .iter()
        .flat_map(|t| t.free_vars().into_iter().map(|(n, _)| n))
        .collect();
    for i in &p.nl.inputs {
        if matches!(&i.var, Term::Var(n, _) if mapped.contains(n)) {
            continue;
        }
        if let Ok(v) = logic::eval(&i.var, m, &p.ctx) {
            let v = show(&v);
            match out.get(&i.name) {
                Some(w) if *w == v => {}
                Some(_) => {
                    out.insert(format!("nl.{}", i.name), v);
                }
                None => {
                    out.insert(i.name.clone(), v);
                }
            }
        }
    }
    out
}

/// What each accepted exception does: asked on a fresh session where the other
/// exceptions are assumptions, so each is judged with the others in force.
fn exception_uses(
    p: &Problem,
    input: &CheckInput,
    config: &SolverConfig,
) -> Result<Vec<ExceptionUse>, CheckError> {
    let mut s = Solver::start(config)?;
    for c in p.nl.decls.iter().chain(&p.bl.decls) {
        s.command(c)?;
    }
    for t in
        p.nl.solver_asserts
            .iter()
            .chain(&p.bl.solver_asserts)
            .chain(&p.phi)
    {
        s.assert(t)?;
    }
    for t in &p.psi[..p.exceptions_from] {
        s.assert(t)?;
    }
    let terms = &p.psi[p.exceptions_from..];
    let differ = distinct(&p.nl.output, &p.bl.output);
    let same = eq(p.nl.output.clone(), p.bl.output.clone());
    let zero = Term::Real(BigRational::from_integer(0.into()));
    let nonzero = Term::app(
        Op::Or,
        vec![
            distinct(&numeric(p.nl.output.clone()), &zero),
            distinct(&numeric(p.bl.output.clone()), &zero),
        ],
    );
    let mut out = Vec::new();
    for (i, (e, t)) in input.exceptions.iter().zip(terms).enumerate() {
        let others: Vec<Term> = terms
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, t)| t.clone())
            .collect();
        let excluded = Term::not(t.clone());
        let ask = |extra: &[&Term]| {
            let mut q: Vec<Term> = others.clone();
            q.push(excluded.clone());
            q.extend(extra.iter().map(|t| (*t).clone()));
            q
        };
        let mut use_ = ExceptionUse {
            id: e.id.clone(),
            reason: e.reason.clone(),
            accepted_by: e.accepted_by.clone(),
            date: e.date.clone(),
            file: e.file.clone(),
            assume: e.assume.clone(),
            status: ExceptionStatus::InUse,
            witness: None,
            note: None,
        };
        let outputs = |m: &Model| -> String {
            let v = |t: &Term| {
                logic::eval(t, m, &p.ctx)
                    .map(|v| show(&v))
                    .unwrap_or_else(|_| "?".into())
            };
            format!(
                "NL {} = {}, BL {} = {}",
                p.nl.output_name,
                v(&p.nl.output),
                p.bl.output_name,
                v(&p.bl.output)
            )
        };
        match s.check_assuming(&ask(&[&differ]))? {
            Outcome::Unsat(_) => use_.status = ExceptionStatus::Stale,
            Outcome::Unknown(r) => {
                use_.status = ExceptionStatus::Undecided;
                use_.note = Some(format!(
                    "whether it excludes an input where the outputs differ is unknown ({r})"
                ));
            }
            Outcome::Sat(_) => match s.check_assuming(&ask(&[&same, &nonzero]))? {
                Outcome::Sat(m) => {
                    let m = rounder(p, &mut s, &ask(&[&same, &nonzero]), complete(&m, &p.ctx))?;
                    use_.status = ExceptionStatus::Broader;
                    use_.note = Some(outputs(&m));
                    use_.witness = Some(input_values(p, &m));
                }
                Outcome::Unknown(r) => {
                    use_.status = ExceptionStatus::Undecided;
                    use_.note = Some(format!(
                        "whether it excludes inputs where the outputs agree is unknown ({r})"
                    ));
                }
                Outcome::Unsat(_) => {
                    if let Outcome::Sat(m) = s.check_assuming(&ask(&[&same]))? {
                        let m = rounder(p, &mut s, &ask(&[&same]), complete(&m, &p.ctx))?;
                        let at: Vec<String> = input_values(p, &m)
                            .into_iter()
                            .map(|(k, v)| format!("{k} = {v}"))
                            .collect();
                        use_.note = Some(format!(
                            "it also excludes inputs where both outputs are 0, e.g. {}",
                            at.join(", ")
                        ));
                    }
                }
            },
        }
        out.push(use_);
    }
    Ok(out)
}

/// The counterexample at round numbers when there is one: every input rounded down to
/// an integer, else to cents, kept only when the outputs still differ there (asked of
/// the solver, whose model is then replayed like any other).
fn rounder(p: &Problem, s: &mut Solver, base: &[Term], m: Model) -> Result<Model, CheckError> {
    let vars: Vec<&Term> =
        p.bl.inputs
            .iter()
            .chain(&p.nl.inputs)
            .map(|i| &i.var)
            .collect();
    let hundred = BigRational::from_integer(100.into());
    for cents in [false, true] {
        let mut q = base.to_vec();
        let mut changed = false;
        for v in &vars {
            let Some(x) = logic::eval(v, &m, &p.ctx).ok().as_ref().and_then(rat) else {
                continue;
            };
            let r = if cents {
                (&x * &hundred).floor() / &hundred
            } else {
                x.floor()
            };
            changed |= r != x;
            let t = match v.sort() {
                Sort::Int => Term::Int(r.to_integer()),
                _ => Term::Real(r),
            };
            q.push(Term::app(Op::Eq, vec![(*v).clone(), t]));
        }
        if !changed {
            return Ok(m);
        }
        if let Outcome::Sat(r) = check_sliced(p, s, &q)? {
            return Ok(complete(&r, &p.ctx));
        }
    }
    Ok(m)
}

/// The reason of an unknown verdict: every query it depends on that got no answer,
/// and the kind of the first one's reason.
fn set_unknown_reason(report: &mut Report) {
    let affecting = || report.undecided.iter().filter(|u| u.affects_verdict);
    report.reason_kind = affecting().next().map(|u| u.reason.reason_kind);
    report.reason = Some(
        affecting()
            .map(Undecided::describe)
            .collect::<Vec<_>>()
            .join("; "),
    );
}

/// A not functional? Two copies sharing the inputs, different outputs.
/// True when the side is functional by its form, so that the solver need not be asked:
/// every assertion is a definition `(= x t)` of a constant that is not an input, no
/// constant is defined twice, and `t` uses only inputs and constants defined by earlier
/// assertions. (A rate table written as one `ite` chain is such a side; asking the
/// solver whether two copies of a chain of thousands of `ite`s can differ costs
/// seconds to minutes for nothing.)
fn definitional(side: &Prepared) -> bool {
    let inputs: HashSet<&str> = side.inputs.iter().map(|i| i.name.as_str()).collect();
    let mut defined: HashSet<String> = HashSet::new();
    for c in &side.side.commands {
        let Command::Assert(t) = c else { continue };
        let Term::App(Op::Eq, args) = t else {
            return false;
        };
        let [a, b] = args.as_slice() else {
            return false;
        };
        let (x, body) = match (a, b) {
            (Term::Var(x, _), e) if !inputs.contains(&**x) && !defined.contains(&**x) => (x, e),
            (e, Term::Var(x, _)) if !inputs.contains(&**x) && !defined.contains(&**x) => (x, e),
            _ => return false,
        };
        let uses_only_known = body
            .free_vars()
            .iter()
            .all(|(v, _)| inputs.contains(&**v) || defined.contains(&**v));
        if !uses_only_known {
            return false;
        }
        defined.insert(x.to_string());
    }
    // A constant that is neither an input nor defined is left to the solver's check,
    // which reports it as an undetermined intermediate.
    side.side
        .consts()
        .iter()
        .all(|(n, _)| inputs.contains(&**n) || defined.contains(&**n))
}

/// Most pairs of guards [`guarded`] compares before leaving the question to the solver.
const GUARD_PAIRS: usize = 2_000_000;

/// What [`guarded`] found out about a side.
#[derive(Debug, PartialEq)]
enum Form {
    /// Not a list of guarded clauses over boxes, or too many to compare.
    Other,
    /// No two clauses with different outputs meet: functional wherever some guard
    /// holds. The guards (in the side's own names) are given for the coverage query:
    /// where none holds the output is left free.
    Functional(Vec<Term>),
    /// Two clauses with different outputs both apply at this point (input name ->
    /// value): unless the outputs are equal there, the side has no output for it.
    Overlap(BTreeMap<String, BigRational>),
}

/// Whether the side is a list of guarded clauses `(=> G (= out T))` whose guards
/// are boxes (comparisons of inputs with numbers) that pairwise do not meet, or give
/// the same `T` where they do; `G` and `T` over the inputs only, and every other
/// assertion over the inputs only. Such a side is functional by its form (at most one
/// clause applies to an input, and it fixes the output), which is how a table is
/// written (`table::smt`): the two-copy solver query is not needed. The boxes are
/// read with [`restrict::within`], which may leave out a conjunct it does not read:
/// a box then contains its guard, and disjoint boxes still mean disjoint guards.
/// Where two boxes with different outputs meet, a point of the meet is returned for
/// the totality check to ask the solver about (the guards may still not both hold
/// there, or the outputs agree).
fn guarded(side: &Prepared) -> Form {
    let inputs: HashSet<&str> = side.inputs.iter().map(|i| i.name.as_str()).collect();
    let over_inputs = |t: &Term| t.free_vars().iter().all(|(v, _)| inputs.contains(&**v));
    let out = side.output_name.as_str();
    let mut boxes: Vec<(restrict::Within, &Term)> = Vec::new();
    let mut guards: Vec<Term> = Vec::new();
    for c in &side.side.commands {
        let Command::Assert(t) = c else { continue };
        if over_inputs(t) {
            continue;
        }
        let Term::App(Op::Implies, xs) = t else {
            return Form::Other;
        };
        let [g, Term::App(Op::Eq, eqs)] = xs.as_slice() else {
            return Form::Other;
        };
        let body = match eqs.as_slice() {
            [Term::Var(v, _), b] | [b, Term::Var(v, _)] if &**v == out => b,
            _ => return Form::Other,
        };
        if !over_inputs(g) || !over_inputs(body) {
            return Form::Other;
        }
        guards.push(g.clone());
        // A guard no input satisfies (an empty box) is left out.
        if let Some(b) = restrict::within(std::slice::from_ref(g), None, &[]) {
            boxes.push((b, body));
        }
    }
    let consts_known = side
        .side
        .consts()
        .iter()
        .all(|(n, _)| inputs.contains(&**n) || &**n == out);
    if !consts_known || boxes.is_empty() {
        return Form::Other;
    }
    // Sweep along the input with the most different intervals among the guards: only
    // boxes whose intervals on it meet need comparing.
    let mut count: BTreeMap<&Symbol, HashSet<String>> = BTreeMap::new();
    for (b, _) in &boxes {
        for (v, iv) in b {
            count.entry(v).or_default().insert(format!("{iv:?}"));
        }
    }
    let Some(key) = count
        .into_iter()
        .max_by_key(|(_, n)| n.len())
        .map(|(v, _)| v.clone())
    else {
        return Form::Other;
    };
    let all = restrict::Iv::all();
    let on_key = |b: &restrict::Within| b.get(&key).cloned().unwrap_or_else(|| all.clone());
    boxes.sort_by(|a, b| {
        let (x, y) = (on_key(&a.0), on_key(&b.0));
        // Unbounded below first, then by the lower end: a box that does not meet
        // the current one on the key input then lies wholly below every later one.
        match (&x.lo, &y.lo) {
            (None, None) => std::cmp::Ordering::Equal,
            (None, _) => std::cmp::Ordering::Less,
            (_, None) => std::cmp::Ordering::Greater,
            // At the same value a closed end (which holds the value) first.
            (Some(p), Some(q)) => p.0.cmp(&q.0).then(q.1.cmp(&p.1)),
        }
    });
    let meet = |a: &restrict::Within, b: &restrict::Within| {
        a.iter()
            .all(|(v, x)| b.get(v).is_none_or(|y| !x.meet(y).is_empty()))
    };
    let mut active: Vec<usize> = Vec::new();
    let mut pairs = 0usize;
    for i in 0..boxes.len() {
        let here = on_key(&boxes[i].0);
        // Boxes that end before this one starts on the key input are done with.
        active.retain(|&j| !on_key(&boxes[j].0).meet(&here).is_empty());
        for &j in &active {
            pairs += 1;
            if pairs > GUARD_PAIRS {
                return Form::Other;
            }
            if meet(&boxes[i].0, &boxes[j].0) && boxes[i].1 != boxes[j].1 {
                let mut point = BTreeMap::new();
                for (v, x) in &boxes[i].0 {
                    let iv = match boxes[j].0.get(v) {
                        Some(y) => x.meet(y),
                        None => x.clone(),
                    };
                    point.insert(v.to_string(), iv.inside());
                }
                for (v, y) in &boxes[j].0 {
                    if !boxes[i].0.contains_key(v) {
                        point.insert(v.to_string(), y.inside());
                    }
                }
                return Form::Overlap(point);
            }
        }
        active.push(i);
    }
    Form::Functional(guards)
}

/// For a side of guarded clauses that never disagree ([`Form::Functional`]): whether
/// some guard holds at every allowed input. Where none does, the side leaves its output
/// free, which is the not-functional finding the two-copy query would give.
fn covered(
    p: &Problem,
    side: &Prepared,
    guards: &[Term],
    from: usize,
    s: &mut Solver,
    findings: &mut Vec<Finding>,
    undecided: &mut Vec<Undecided>,
) -> Result<(), CheckError> {
    let label = side.label;
    let named = prefixed(label);
    let none = Term::not(Term::app(
        Op::Or,
        guards
            .iter()
            .map(|g| rename_term(g, &|n: &str| named(n)))
            .collect(),
    ));
    match check_sliced_as(p, s, std::slice::from_ref(&none), true, from)? {
        Outcome::Sat(m) => {
            let ctx = s.context().clone();
            let m = complete(&m, &ctx);
            findings.push(Finding {
                kind: FindingKind::NotFunctional,
                side: label,
                message: format!(
                    "not functional: for {} no clause applies, so the output `{}` can be any value",
                    show_inputs(&side.inputs, &m, &ctx),
                    side.output_name,
                ),
                blocking: true,
            });
        }
        Outcome::Unsat(_) => {}
        Outcome::Unknown(r) => undecided.push(Undecided::new(
            Query::Functionality,
            Some(label),
            format!(
                "(output `{}`: does some clause apply everywhere)",
                side.output_name
            ),
            &r,
        )),
    }
    Ok(())
}

fn functional(
    p: &Problem,
    side: &Prepared,
    s: &mut Solver,
    findings: &mut Vec<Finding>,
    undecided: &mut Vec<Undecided>,
) -> Result<(), CheckError> {
    let inputs: HashSet<String> = side.inputs.iter().map(|i| i.name.clone()).collect();
    let label = side.label;
    let copy = |n: &str| -> Symbol {
        if inputs.contains(n) {
            Arc::from(format!("{}{n}", label.prefix()).as_str())
        } else {
            Arc::from(format!("{}{n}", label.copy_prefix()).as_str())
        }
    };
    s.push()?;
    let mut pairs = Vec::new();
    for c in &side.side.commands {
        let c2 = rename_command(c, &copy);
        if let Command::DeclareConst(n, sort) = c {
            if inputs.contains(&**n) {
                continue;
            }
            pairs.push((
                n.to_string(),
                Term::Var(prefixed(label)(n), sort.clone()),
                Term::Var(copy(n), sort.clone()),
            ));
        }
        s.command(&c2)?;
    }
    let out2 = rename_term(
        &side.output,
        &|n: &str| match n.strip_prefix(label.prefix()) {
            Some(orig) => copy(orig),
            None => Arc::from(n),
        },
    );
    match check_sliced(p, s, &[distinct(&side.output, &out2)])? {
        Outcome::Sat(m) => {
            let ctx = s.context().clone();
            let m = complete(&m, &ctx);
            let value = |t: &Term| {
                logic::eval(t, &m, &ctx)
                    .map(|v| show(&v))
                    .unwrap_or_else(|e| format!("(not evaluable: {e})"))
            };
            findings.push(Finding {
                kind: FindingKind::NotFunctional,
                side: label,
                message: format!(
                    "not functional: for {} the output `{}` can be {} or {}",
                    show_inputs(&side.inputs, &m, &ctx),
                    side.output_name,
                    value(&side.output),
                    value(&out2)
                ),
                blocking: true,
            });
        }
        Outcome::Unsat(_) => {}
        Outcome::Unknown(r) => {
            undecided.push(Undecided::new(
                Query::Functionality,
                Some(label),
                format!("(output `{}`)", side.output_name),
                &r,
            ));
        }
    }
    let candidates: Vec<&(String, Term, Term)> = pairs
        .iter()
        .filter(|(name, _, _)| *name != side.output_name)
        .take(40)
        .collect();
    for (k, (name, a, b)) in candidates.iter().enumerate() {
        match s.check_assuming(&[distinct(a, b)])? {
            Outcome::Sat(m) => findings.push(Finding {
                kind: FindingKind::UnconstrainedIntermediate,
                side: label,
                message: format!(
                    "intermediate variable `{name}` is not determined by the inputs (e.g. at {})",
                    show_inputs(&side.inputs, &complete(&m, s.context()), s.context())
                ),
                blocking: false,
            }),
            Outcome::Unsat(_) => {}
            Outcome::Unknown(r) => {
                // The others would each cost the same time limit: stop here.
                let rest = candidates.len() - k - 1;
                undecided.push(Undecided::new(
                    Query::Intermediate,
                    Some(label),
                    if rest == 0 {
                        format!("for `{name}`")
                    } else {
                        format!("for `{name}` ({rest} more intermediates not checked)")
                    },
                    &r,
                ));
                break;
            }
        }
    }
    s.pop()?;
    Ok(())
}

fn replay(p: &Problem, m: &Model) -> Result<Counterexample, CheckError> {
    let side_values = |side: &Prepared| -> Result<SideValues, CheckError> {
        let mut inputs = BTreeMap::new();
        let mut exact = BTreeMap::new();
        for i in &side.inputs {
            let v = value_of(&i.var, m, &p.ctx)?;
            inputs.insert(i.name.clone(), show(&v));
            if let Some(r) = rat(&v) {
                exact.insert(i.name.clone(), r);
            }
        }
        let claimed = value_of(&side.output, m, &p.ctx)?;
        let replay = match &side.side.program {
            Some(prog) => {
                let got = crate::interpret(prog, &exact, &side.output_name)
                    .map_err(|e| CheckError::Replay(format!("the interpreter failed: {e}")))?;
                if Some(&got) != rat(&claimed).as_ref() {
                    return Err(CheckError::Replay(format!(
                        "the interpreter computes {} = {} but the solver claimed {}",
                        side.output_name,
                        show(&Value::Real(got)),
                        show(&claimed)
                    )));
                }
                "replayed by the BL interpreter".to_string()
            }
            None => {
                for t in &side.asserts {
                    if !logic::eval_bool(t, m, &p.ctx)
                        .map_err(|e| CheckError::Replay(e.to_string()))?
                    {
                        return Err(CheckError::Replay(format!(
                            "assertion {} is false under the counterexample",
                            logic::print::term(t)
                        )));
                    }
                }
                if side.function_form {
                    "evaluated from the definition".to_string()
                } else {
                    format!(
                        "all {} assertions hold, checked by the evaluator",
                        side.asserts.len()
                    )
                }
            }
        };
        Ok(SideValues {
            inputs,
            output: side.output_name.clone(),
            value: show(&claimed),
            replay,
        })
    };
    for t in p.phi.iter().chain(&p.psi) {
        if !logic::eval_bool(t, m, &p.ctx).map_err(|e| CheckError::Replay(e.to_string()))? {
            return Err(CheckError::Replay(format!(
                "constraint {} is false",
                logic::print::term(t)
            )));
        }
    }
    let nl = side_values(&p.nl)?;
    let bl = side_values(&p.bl)?;
    if nl.value == bl.value {
        return Err(CheckError::Replay("the two outputs are equal".into()));
    }
    Ok(Counterexample { nl, bl })
}

// ------------------------------------------------------------------ regions

fn is_atom(t: &Term) -> bool {
    match t {
        Term::App(Op::Le | Op::Lt | Op::Ge | Op::Gt | Op::Eq, xs) => {
            xs.len() == 2 && xs[0].sort().is_numeric() && !t.free_vars().is_empty()
        }
        _ => false,
    }
}

fn collect_atoms(
    t: &Term,
    inputs: &HashSet<Symbol>,
    out: &mut Vec<Term>,
    seen: &mut HashSet<Term>,
) {
    let mut stack = vec![t];
    while let Some(t) = stack.pop() {
        if is_atom(t)
            && t.free_vars().iter().all(|(n, _)| inputs.contains(n))
            && seen.insert(t.clone())
        {
            out.push(t.clone());
        }
        match t {
            Term::App(_, xs) | Term::Call(_, xs, _) => stack.extend(xs.iter().rev()),
            Term::Named(x, _) => stack.push(x),
            Term::Let(b, x) => {
                stack.push(x);
                stack.extend(b.iter().map(|(_, t)| t));
            }
            _ => {}
        }
    }
}

/// Comparisons over the side's inputs: the path conditions, with definitions inlined.
fn atoms(side: &Prepared, ctx: &Context) -> Vec<Term> {
    let inputs = side.input_symbols();
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    if let Some(prog) = &side.side.program {
        // Inline every binding so conditions are over inputs.
        let f = prefixed(side.label);
        let mut defs: BTreeMap<Symbol, Term> = BTreeMap::new();
        for l in &prog.lets {
            if let crate::Binding::Expr(e) = &l.value {
                let t = substitute(&crate::encode::expr_term(e, &f), &defs);
                if t.size() > 20_000 {
                    return out; // too large to describe readably
                }
                collect_atoms(&t, &inputs, &mut out, &mut seen);
                defs.insert(f(&l.name), t);
            }
        }
    } else if side.function_form {
        collect_atoms(
            &inline_calls(&side.output, ctx),
            &inputs,
            &mut out,
            &mut seen,
        );
    } else {
        for t in &side.asserts {
            collect_atoms(&inline_calls(t, ctx), &inputs, &mut out, &mut seen);
        }
    }
    out
}
