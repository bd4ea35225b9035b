//! The rule-pair chart: both outputs of a case (the documentation's formalization and
//! the implementation) along one input, with the others fixed, computed exactly.
//!
//! A case is read as the consistency check reads it (`bl::check`): the two sides in
//! their own namespaces, the outputs and mappings from the bounds (or the case's
//! defaults), inputs with the same name on both sides equated unless the bounds map
//! either, and a relational formalization's inputs narrowed to the mapped and ranged
//! constants when the bounds map some of them. Each input class (inputs equated by the
//! mappings) is one input of the chart, named as the check's regions name it: the
//! implementation's name when it has one.
//!
//! Each sample is exact:
//!
//! * a BL program runs in `bl::interp` (an interpreter error is a gap, with the reason);
//! * an SMT-LIB side is asked of the solver, in one incremental session per chart: the
//!   side's assertions in a `push` frame, and per sample a frame with the inputs fixed;
//!   `sat` gives the output's value, which a second query (`output ≠ value`, which
//!   must be `unsat`) shows to be the only one. No output (`unsat`), several outputs,
//!   or no answer (`unknown`) are gaps with a note, never a value. Models and unsat
//!   answers are validated by the `solver` crate as everywhere in vera.
//!
//! The samples are a grid at round numbers over the range plus every threshold of the
//! chosen input that either side compares it with (so a kink or a single diverging
//! point at a threshold is sampled exactly). Where the two defined outputs differ at
//! samples inside the bounds, the chart shades the x intervals: each run of differing
//! samples, widened to half way to the nearest agreeing samples (the boundary is
//! somewhere between two samples; [`Plot::divergent`] gives the sampled ends exactly).
//!
//! [`plot_case`] is a pure function of its arguments (apart from the solver process it
//! starts); nothing here reads a request or writes a response.

use bl::check::side::{output_sides, prefixed, qualified};
use bl::check::{BoundItem, Bounds, Region, Side, SideLabel};
use logic::{Command, Context, Model, Op, Sort, SourceFile, Symbol, Term, Value};
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};
use solver::{Outcome, Solver, SolverConfig};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

/// Samples of the grid when the request asks for none.
pub const DEFAULT_SAMPLES: usize = 200;

/// Most grid samples of one chart.
pub const MAX_SAMPLES: usize = 2000;

/// Most threshold samples added to the grid.
pub const MAX_THRESHOLD_SAMPLES: usize = 400;

/// Width of the SVG, in user units.
const WIDTH: f64 = 820.0;
/// Height of the SVG.
const HEIGHT: f64 = 460.0;
const LEFT: f64 = 96.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 58.0;
/// Below the plot area: region bands, tick labels, the axis name and notes.
const BOTTOM: f64 = 112.0;

/// The files of one case, read.
#[derive(Debug, Clone)]
pub struct CaseFiles {
    /// The documentation's formalization (SMT-LIB).
    pub nl: SourceFile,
    /// The implementation: a BL program, or SMT-LIB (see `implementation_is_bl`).
    pub implementation: SourceFile,
    /// True when the implementation is a BL program.
    pub implementation_is_bl: bool,
    /// Mappings, ranges and the outputs (SIRNA's bounds format), if any.
    pub bounds: Option<Bounds>,
    /// The documentation's output when the bounds do not name it (default: the one
    /// defined constant nothing uses, as the batch check infers it).
    pub nl_output: Option<String>,
    /// The implementation's output when the bounds do not name it (default: the last
    /// binding of a BL program).
    pub bl_output: Option<String>,
}

impl CaseFiles {
    /// Reads a case found by `bl::batch::discover`: see [`CaseFiles::from_paths`].
    pub fn read(case: &bl::batch::Case, bounds: Option<&Bounds>) -> Result<CaseFiles, PlotError> {
        CaseFiles::from_paths(
            &case.nl,
            &case.implementation,
            case.bounds.as_deref(),
            bounds,
        )
    }

    /// Reads a case's files: the documentation's formalization `nl`, the
    /// implementation (a BL program when its name ends in `.bl`, else SMT-LIB), each
    /// at most `bl::batch::MAX_FILE_BYTES` with invalid UTF-8 replaced (as the batch
    /// check reads them), and the bounds: `bounds` when given (the batch's `--bounds`),
    /// else the file `bounds_file` when there is one.
    pub fn from_paths(
        nl: &Path,
        implementation: &Path,
        bounds_file: Option<&Path>,
        bounds: Option<&Bounds>,
    ) -> Result<CaseFiles, PlotError> {
        let nl_file = SourceFile::new(nl.display().to_string(), read_text(nl)?);
        let imp = SourceFile::new(
            implementation.display().to_string(),
            read_text(implementation)?,
        );
        let bounds = match (bounds, bounds_file) {
            (Some(b), _) => Some(b.clone()),
            (None, Some(f)) => Some(
                Bounds::from_json(&f.display().to_string(), &read_text(f)?)
                    .map_err(|e| PlotError::Bounds(e.to_string()))?,
            ),
            (None, None) => None,
        };
        Ok(CaseFiles {
            nl: nl_file,
            implementation: imp,
            implementation_is_bl: implementation.extension().is_some_and(|x| x == "bl"),
            bounds,
            nl_output: None,
            bl_output: None,
        })
    }
}

fn read_text(p: &Path) -> Result<String, PlotError> {
    use std::io::Read as _;
    let err = |message: String| PlotError::Read {
        file: p.display().to_string(),
        message,
    };
    let f = std::fs::File::open(p).map_err(|e| err(e.to_string()))?;
    let mut bytes = Vec::new();
    f.take(bl::batch::MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| err(e.to_string()))?;
    if bytes.len() as u64 > bl::batch::MAX_FILE_BYTES {
        return Err(err(format!(
            "larger than {} MiB",
            bl::batch::MAX_FILE_BYTES >> 20
        )));
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// What to draw.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PlotRequest {
    /// The input along the x axis, as [`inputs_of`] names it (e.g. `income`).
    pub x: String,
    /// Start of the range (default: see [`default_range`]).
    pub from: Option<BigRational>,
    /// End of the range (default: see [`default_range`]).
    pub to: Option<BigRational>,
    /// Values of the other inputs, by the names of [`inputs_of`]; an input not given
    /// takes its value from [`default_fixed`].
    pub fixed: BTreeMap<String, BigRational>,
    /// Grid samples: 0 means [`DEFAULT_SAMPLES`]; at least 2, at most [`MAX_SAMPLES`].
    /// Thresholds of the input inside the range are sampled too (at most
    /// [`MAX_THRESHOLD_SAMPLES`]).
    pub samples: usize,
}

/// The chart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plot {
    /// A self-contained inline SVG (`<svg id="plot" ...>`): axes with tick labels, the
    /// documentation's output as `polyline.nl`, the implementation's as `polyline.bl`
    /// (one polyline per run of defined samples: a side undefined at a sample leaves a
    /// gap), `rect.divergence` where they differ, `rect.outside` where the samples
    /// are outside the bounds, `rect.region` bands for the check's regions, a legend
    /// and the notes. Every text in it is escaped.
    pub svg: String,
    /// The input along x.
    pub x: String,
    /// The range drawn, exactly.
    pub from: String,
    /// The end of the range drawn, exactly.
    pub to: String,
    /// The values the other inputs were fixed at, exactly.
    pub fixed: BTreeMap<String, String>,
    /// The documentation's output name.
    pub nl_output: String,
    /// The implementation's output name.
    pub bl_output: String,
    /// Each sample: x, the documentation's output and the implementation's, exact
    /// (`None`: no value there, see `notes`), in increasing x.
    pub points: Vec<(String, Option<String>, Option<String>)>,
    /// Runs of samples inside the bounds where both outputs are defined and differ:
    /// the first and last such sample of each run, exactly.
    pub divergent: Vec<(String, String)>,
    /// What the chart leaves out or could not compute: gaps of either side with the
    /// reason, samples outside the bounds, regions not placed on the chart, samples
    /// where the sampled values and the check's regions disagree.
    pub notes: Vec<String>,
}

/// Why there is no chart.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlotError {
    /// A file of the case cannot be read.
    #[error("cannot read {file}: {message}")]
    Read {
        /// The file.
        file: String,
        /// Why.
        message: String,
    },
    /// A side does not parse.
    #[error("the {side} side does not parse:\n{message}")]
    Parse {
        /// `NL` or `BL`.
        side: &'static str,
        /// The located diagnostics.
        message: String,
    },
    /// The bounds cannot be used.
    #[error("{0}")]
    Bounds(String),
    /// An output is missing or not a number.
    #[error("{0}")]
    Output(String),
    /// The requested input is not an input of the case.
    #[error("`{}` is not an input of the case (inputs: {})", bl::diag::quote(.name), .known.join(", "))]
    UnknownInput {
        /// The name asked for.
        name: String,
        /// The inputs there are.
        known: Vec<String>,
    },
    /// The x input is also given a fixed value.
    #[error("`{}` is the input along x; it cannot also be fixed", bl::diag::quote(.0))]
    FixedIsX(String),
    /// An integer input was given a value that is not an integer.
    #[error("`{}` is an integer input; {value} is not an integer", bl::diag::quote(.name))]
    NotAnInteger {
        /// The input.
        name: String,
        /// The value given.
        value: String,
    },
    /// The range is empty.
    #[error("the range is empty: from {from} to {to}")]
    BadRange {
        /// Its start.
        from: String,
        /// Its end.
        to: String,
    },
    /// The case has no input to draw along.
    #[error("the case has no input")]
    NoInput,
    /// The solver session failed (not an answer about the rule: the process, the
    /// protocol or a failed validation).
    #[error("the solver failed: {}", bl::diag::message(.0))]
    Solver(String),
}

impl From<solver::SolverError> for PlotError {
    fn from(e: solver::SolverError) -> PlotError {
        PlotError::Solver(e.to_string())
    }
}

// ------------------------------------------------------------------ the case model

/// One side, loaded and renamed into its namespace.
struct SideModel {
    label: SideLabel,
    side: Side,
    output_name: String,
    /// The output, over prefixed names.
    output: Term,
    /// Declarations and definitions to send (prefixed), function parameters included.
    decls: Vec<Command>,
    /// Assertions (prefixed).
    asserts: Vec<Term>,
    /// Inputs: own name, prefixed constant, sort.
    inputs: Vec<(String, Symbol, Sort)>,
}

/// One input of the chart: inputs of either side equated by the mappings.
#[derive(Debug, Clone)]
struct Class {
    name: String,
    /// Members: side and own name.
    members: Vec<(SideLabel, String)>,
    int: bool,
    /// Range constraints: (bound, is_lower, inclusive).
    ranges: Vec<(BigRational, bool, bool)>,
}

struct CaseModel {
    nl: SideModel,
    bl: SideModel,
    classes: Vec<Class>,
    notes: Vec<String>,
}

fn load_sides(case: &CaseFiles) -> Result<(Side, Side), PlotError> {
    let nl = Side::from_smt(SideLabel::Nl, &case.nl).map_err(|d| PlotError::Parse {
        side: "NL",
        message: d.to_string(),
    })?;
    let bl = if case.implementation_is_bl {
        let p = bl::parse(&case.implementation).map_err(|d| PlotError::Parse {
            side: "BL",
            message: d.to_string(),
        })?;
        Side::from_bl(SideLabel::Bl, p)
    } else {
        Side::from_smt(SideLabel::Bl, &case.implementation).map_err(|d| PlotError::Parse {
            side: "BL",
            message: d.to_string(),
        })?
    };
    Ok((nl, bl))
}

/// The two output names, as the checker resolves them.
fn outputs(case: &CaseFiles, nl: &Side, bl: &Side) -> Result<(String, String), PlotError> {
    let (mut out_nl, mut out_bl) = (case.nl_output.clone(), case.bl_output.clone());
    let items: &[BoundItem] = case.bounds.as_ref().map_or(&[], |b| &b.items);
    let sides_of = |n: &str| output_sides(n, nl, bl);
    for it in items {
        let names = match it {
            BoundItem::Outputs { variables } => variables,
            BoundItem::Strict { functions, .. } | BoundItem::Mapping { functions, .. } => functions,
            _ => continue,
        };
        let [a, b] = names.as_slice() else {
            return Err(PlotError::Bounds(
                "an `outputs` entry needs exactly two names".into(),
            ));
        };
        let (sa, sb) = (sides_of(a), sides_of(b));
        let strip = |n: &str| qualified(n).1.to_string();
        let pair = if sa.contains(&SideLabel::Nl) && sb.contains(&SideLabel::Bl) {
            (strip(a), strip(b))
        } else if sa.contains(&SideLabel::Bl) && sb.contains(&SideLabel::Nl) {
            (strip(b), strip(a))
        } else {
            return Err(PlotError::Bounds(format!(
                "the outputs `{}` and `{}` are not one name of each side",
                bl::diag::quote(a),
                bl::diag::quote(b)
            )));
        };
        out_nl.get_or_insert(pair.0);
        out_bl.get_or_insert(pair.1);
    }
    let out_bl = out_bl.or_else(|| {
        bl.program
            .as_ref()
            .and_then(|p| p.last_name().map(str::to_string))
    });
    let out_nl = out_nl.or_else(|| bl::batch::infer_output(&case.nl));
    match (out_nl, out_bl) {
        (Some(a), Some(b)) => Ok((a, b)),
        (None, _) => Err(PlotError::Output(
            "no documentation output: name it in the bounds' `outputs` entry".into(),
        )),
        (_, None) => Err(PlotError::Output(
            "no implementation output: name it in the bounds' `outputs` entry".into(),
        )),
    }
}

fn side_model(side: Side, output: &str) -> Result<SideModel, PlotError> {
    let label = side.label;
    let f = prefixed(label);
    let (mut decls, asserts) = side.renamed();
    let mut inputs = Vec::new();
    let output_term;
    if let Some(sort) = side.sort_of(output).filter(|_| side.has_const(output)) {
        if !sort.is_numeric() {
            return Err(PlotError::Output(format!(
                "the {} output `{}` has sort {sort}, not a number",
                label.upper(),
                bl::diag::quote(output)
            )));
        }
        output_term = Term::Var(f(output), sort);
        for (n, s) in side.consts() {
            let is_input = match &side.program {
                Some(p) => p.inputs().any(|i| i == n),
                None => !side.defined.contains(&n),
            };
            if n != output && is_input {
                inputs.push((n.clone(), f(&n), s));
            }
        }
    } else if let Some(def) = side
        .context
        .fun(output)
        .filter(|d| !d.params.is_empty())
        .cloned()
    {
        let mut args = Vec::new();
        for (param, s) in &def.params {
            let cname = if side.has_const(param) {
                format!("{}{output}.{param}", label.prefix())
            } else {
                format!("{}{param}", label.prefix())
            };
            let sym: Symbol = Arc::from(cname.as_str());
            decls.push(Command::DeclareConst(sym.clone(), s.clone()));
            args.push(Term::Var(sym.clone(), s.clone()));
            inputs.push((param.to_string(), sym, s.clone()));
        }
        output_term = Term::Call(f(output), args, def.sort.clone());
        for (n, s) in side.consts() {
            if !side.defined.contains(&n) {
                inputs.push((n.clone(), f(&n), s));
            }
        }
    } else {
        return Err(PlotError::Output(format!(
            "the {} output `{}` is missing",
            label.upper(),
            bl::diag::quote(output)
        )));
    }
    Ok(SideModel {
        label,
        side,
        output_name: output.to_string(),
        output: output_term,
        decls,
        asserts,
        inputs,
    })
}

impl SideModel {
    fn has_input(&self, n: &str) -> bool {
        self.inputs.iter().any(|(m, _, _)| m == n)
    }

    fn sort_of_input(&self, n: &str) -> Option<&Sort> {
        self.inputs
            .iter()
            .find(|(m, _, _)| m == n)
            .map(|(_, _, s)| s)
    }
}

/// Union-find over (side, name).
struct Classes {
    parent: HashMap<(SideLabel, String), (SideLabel, String)>,
}

impl Classes {
    fn find(&mut self, k: &(SideLabel, String)) -> (SideLabel, String) {
        let mut cur = k.clone();
        let mut steps = 0;
        while let Some(p) = self.parent.get(&cur) {
            if *p == cur || steps > self.parent.len() {
                break;
            }
            cur = p.clone();
            steps += 1;
        }
        cur
    }

    fn union(&mut self, a: &(SideLabel, String), b: &(SideLabel, String)) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent.insert(ra, rb);
        }
    }
}

fn case_model(case: &CaseFiles) -> Result<CaseModel, PlotError> {
    let (nl, bl) = load_sides(case)?;
    let (out_nl, out_bl) = outputs(case, &nl, &bl)?;
    let mut nl = side_model(nl, &out_nl)?;
    let mut bl = side_model(bl, &out_bl)?;
    let mut notes = Vec::new();
    let items: Vec<BoundItem> = case
        .bounds
        .as_ref()
        .map(|b| b.items.clone())
        .unwrap_or_default();
    let (mut pairs, not_inputs) = mapped_pairs(&items, &nl, &bl);
    let mut mapped: HashSet<(SideLabel, String)> = HashSet::new();
    for (a, b) in &pairs {
        mapped.insert(a.clone());
        mapped.insert(b.clone());
    }
    // Same-named inputs, unless the bounds map either (the checker's default).
    for (n, _, _) in &nl.inputs {
        if bl.has_input(n)
            && !mapped.contains(&(SideLabel::Nl, n.clone()))
            && !mapped.contains(&(SideLabel::Bl, n.clone()))
        {
            pairs.push(((SideLabel::Nl, n.clone()), (SideLabel::Bl, n.clone())));
            mapped.insert((SideLabel::Nl, n.clone()));
            mapped.insert((SideLabel::Bl, n.clone()));
        }
    }
    restrict_relational(&items, &mapped, [&mut nl, &mut bl]);
    pairs.retain(|(a, b)| {
        [a, b].iter().all(|(l, n)| {
            let s = if *l == SideLabel::Nl { &nl } else { &bl };
            s.has_input(n)
        })
    });
    if !not_inputs.is_empty() {
        notes.push(format!(
            "mappings that do not relate two inputs are not used by the chart: {}",
            not_inputs.join(", ")
        ));
    }
    let mut classes = input_classes(&pairs, &nl, &bl);
    apply_ranges(&items, &mut classes);
    Ok(CaseModel {
        nl,
        bl,
        classes,
        notes,
    })
}

/// An input pair the chart moves together: (side, name) on each end.
type InputPair = ((SideLabel, String), (SideLabel, String));

/// The input pairs the bounds relate (strict parameter lists, mappings, equalities),
/// and the mappings that do not relate two inputs.
fn mapped_pairs(
    items: &[BoundItem],
    nl: &SideModel,
    bl: &SideModel,
) -> (Vec<InputPair>, Vec<String>) {
    // Which side a (possibly qualified) input name is on.
    let sides_of = |n: &str, nl: &SideModel, bl: &SideModel| -> Vec<SideLabel> {
        let (q, m) = qualified(n);
        let mut v = Vec::new();
        for s in [nl, bl] {
            if !matches!(q, Some(q) if q != s.label) && s.has_input(m) {
                v.push(s.label);
            }
        }
        v
    };
    let mut pairs: Vec<InputPair> = Vec::new();
    let mut not_inputs: Vec<String> = Vec::new();
    for it in items {
        match it {
            BoundItem::Strict { .. } => {
                let fa: Vec<String> = function_params(nl);
                let fb: Vec<String> = function_params(bl);
                for (a, b) in fa.iter().zip(&fb) {
                    pairs.push(((SideLabel::Nl, a.clone()), (SideLabel::Bl, b.clone())));
                }
            }
            BoundItem::Mapping { mapping, .. } => {
                for (a, b) in mapping {
                    match resolve_pair(a, b, nl, bl, &sides_of) {
                        Some(p) => pairs.push(p),
                        None => not_inputs.push(format!("{a} = {b}")),
                    }
                }
            }
            BoundItem::Equals { variables } if variables.len() == 2 => {
                match resolve_pair(&variables[0], &variables[1], nl, bl, &sides_of) {
                    Some(p) => pairs.push(p),
                    None => not_inputs.push(variables.join(" = ")),
                }
            }
            BoundItem::Equals { variables } => {
                let mut members = Vec::new();
                for v in variables {
                    match sides_of(v, nl, bl).as_slice() {
                        [one] => members.push((*one, qualified(v).1.to_string())),
                        _ => not_inputs.push(v.clone()),
                    }
                }
                for w in members.windows(2) {
                    pairs.push((w[0].clone(), w[1].clone()));
                }
            }
            _ => {}
        }
    }
    (pairs, not_inputs)
}

/// A relational SMT side with mapped inputs keeps exactly its mapped and ranged inputs.
fn restrict_relational(
    items: &[BoundItem],
    mapped: &HashSet<(SideLabel, String)>,
    sides: [&mut SideModel; 2],
) {
    let ranged = bl::check::bounds::ranged_names(items);
    for s in sides {
        let label = s.label;
        let relational = s.side.program.is_none() && matches!(s.output, Term::Var(..));
        if relational
            && s.inputs
                .iter()
                .any(|(n, _, _)| mapped.contains(&(label, n.clone())))
        {
            s.inputs
                .retain(|(n, _, _)| mapped.contains(&(label, n.clone())) || ranged.contains(n));
        }
    }
}

/// The chart's inputs: classes of inputs the pairs tie together, in the order of the
/// implementation's inputs, then the documentation's, each named and typed.
fn input_classes(pairs: &[InputPair], nl: &SideModel, bl: &SideModel) -> Vec<Class> {
    let mut uf = Classes {
        parent: HashMap::new(),
    };
    for (a, b) in pairs {
        uf.union(a, b);
    }
    // Classes in the order of the implementation's inputs, then the documentation's.
    let mut order: Vec<(SideLabel, String)> = Vec::new();
    for s in [bl, nl] {
        for (n, _, _) in &s.inputs {
            order.push((s.label, n.clone()));
        }
    }
    let mut by_root: BTreeMap<(SideLabel, String), usize> = BTreeMap::new();
    let mut classes: Vec<Class> = Vec::new();
    for k in &order {
        let root = uf.find(k);
        let idx = *by_root.entry(root).or_insert_with(|| {
            classes.push(Class {
                name: String::new(),
                members: Vec::new(),
                int: false,
                ranges: Vec::new(),
            });
            classes.len() - 1
        });
        classes[idx].members.push(k.clone());
    }
    // Names: the implementation's member, else the documentation's; qualified when two
    // classes would share a name.
    let plain: Vec<String> = classes
        .iter()
        .map(|c| {
            c.members
                .iter()
                .find(|(l, _)| *l == SideLabel::Bl)
                .or(c.members.first())
                .map(|(_, n)| n.clone())
                .unwrap_or_default()
        })
        .collect();
    for (i, c) in classes.iter_mut().enumerate() {
        let dup = plain.iter().filter(|p| **p == plain[i]).count() > 1;
        c.name = if dup {
            let (l, n) = c
                .members
                .iter()
                .find(|(l, _)| *l == SideLabel::Bl)
                .or(c.members.first())
                .cloned()
                .unwrap_or((SideLabel::Bl, String::new()));
            format!("{}{n}", l.prefix())
        } else {
            plain[i].clone()
        };
        c.int = c.members.iter().any(|(l, n)| {
            let s = if *l == SideLabel::Nl { nl } else { bl };
            s.sort_of_input(n) == Some(&Sort::Int)
        });
    }
    classes
}

/// Adds the bounds' ranges to the classes whose members they name.
fn apply_ranges(items: &[BoundItem], classes: &mut [Class]) {
    for it in items {
        let BoundItem::Ranges {
            variables,
            min,
            max,
            min_inclusive,
            max_inclusive,
        } = it
        else {
            continue;
        };
        for v in variables {
            let (q, n) = qualified(v);
            for c in classes.iter_mut() {
                if c.members
                    .iter()
                    .any(|(l, m)| m == n && !matches!(q, Some(q) if q != *l))
                {
                    if let Some(m) = min {
                        c.ranges
                            .push((m.clone(), true, min_inclusive.unwrap_or(true)));
                    }
                    if let Some(m) = max {
                        c.ranges
                            .push((m.clone(), false, max_inclusive.unwrap_or(false)));
                    }
                }
            }
        }
    }
}

fn function_params(s: &SideModel) -> Vec<String> {
    match &s.output {
        Term::Call(..) => s
            .side
            .context
            .fun(&s.output_name)
            .map(|d| d.params.iter().map(|(p, _)| p.to_string()).collect())
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

type Sides<'a> = dyn Fn(&str, &SideModel, &SideModel) -> Vec<SideLabel> + 'a;

fn resolve_pair(
    a: &str,
    b: &str,
    nl: &SideModel,
    bl: &SideModel,
    sides_of: &Sides<'_>,
) -> Option<((SideLabel, String), (SideLabel, String))> {
    let (sa, sb) = (sides_of(a, nl, bl), sides_of(b, nl, bl));
    let (na, nb) = (qualified(a).1.to_string(), qualified(b).1.to_string());
    if sa.contains(&SideLabel::Nl) && sb.contains(&SideLabel::Bl) {
        Some(((SideLabel::Nl, na), (SideLabel::Bl, nb)))
    } else if sa.contains(&SideLabel::Bl) && sb.contains(&SideLabel::Nl) {
        Some(((SideLabel::Nl, nb), (SideLabel::Bl, na)))
    } else {
        None
    }
}

/// One end of a range: the bound and whether it is included.
type End = Option<(BigRational, bool)>;

impl Class {
    fn allows(&self, v: &BigRational) -> bool {
        self.ranges
            .iter()
            .all(|(b, lower, incl)| match (lower, incl) {
                (true, true) => v >= b,
                (true, false) => v > b,
                (false, true) => v <= b,
                (false, false) => v < b,
            })
    }

    /// The tightest lower bound (value, inclusive) and upper bound.
    fn bounds(&self) -> (End, End) {
        let mut lo: End = None;
        let mut hi: End = None;
        for (b, lower, incl) in &self.ranges {
            if *lower {
                let tighter = match &lo {
                    None => true,
                    Some((c, ci)) => b > c || (b == c && *ci && !incl),
                };
                if tighter {
                    lo = Some((b.clone(), *incl));
                }
            } else {
                let tighter = match &hi {
                    None => true,
                    Some((c, ci)) => b < c || (b == c && *ci && !incl),
                };
                if tighter {
                    hi = Some((b.clone(), *incl));
                }
            }
        }
        (lo, hi)
    }

    /// A value inside the bounds, as near 0 as the bounds allow (an integer for an
    /// integer input when the bounds leave one).
    fn default_value(&self) -> BigRational {
        let (lo, hi) = self.bounds();
        let one = BigRational::one();
        let mut v = match (&lo, &hi) {
            (Some((l, true)), _) if !l.is_negative() => l.clone(),
            (Some((l, false)), _) if !l.is_negative() => l.floor() + &one,
            (_, Some((h, true))) if h.is_negative() => h.clone(),
            (_, Some((h, false))) if !h.is_positive() => h.ceil() - &one,
            _ => BigRational::zero(),
        };
        if self.int {
            v = v.ceil();
        }
        if !self.allows(&v) {
            if let (Some((l, _)), Some((h, _))) = (&lo, &hi) {
                v = (l + h) / BigRational::from_integer(2.into());
            }
        }
        v
    }
}

// ------------------------------------------------------------------ public entry points

/// The inputs a user can choose for x or fix, in the order of the implementation's
/// inputs, then the documentation's unmapped ones. Inputs equated by the mappings are
/// one input, named by the implementation's name (as the check's regions name them);
/// a name that would denote two inputs is qualified (`nl.x`).
pub fn inputs_of(case: &CaseFiles) -> Result<Vec<String>, PlotError> {
    Ok(case_model(case)?
        .classes
        .into_iter()
        .map(|c| c.name)
        .collect())
}

/// Default values of the inputs other than `x`: the lower bound of an input's range
/// when it has one and it is not negative, else 0 when the range allows it, else a
/// value inside the range (integers for integer inputs).
pub fn default_fixed(
    case: &CaseFiles,
    x: &str,
) -> Result<BTreeMap<String, BigRational>, PlotError> {
    let m = case_model(case)?;
    class_index(&m, x)?;
    Ok(m.classes
        .iter()
        .filter(|c| c.name != x)
        .map(|c| (c.name.clone(), c.default_value()))
        .collect())
}

/// The default range of `x`: from the lower bound of its range (else 0, or below the
/// upper bound when that is not positive) to its upper bound when it has one, else to
/// twice the largest threshold either side compares it with, rounded up to two
/// significant digits (e.g. 730000 for thresholds up to 362961); without thresholds,
/// 100 wide.
pub fn default_range(case: &CaseFiles, x: &str) -> Result<(BigRational, BigRational), PlotError> {
    let m = case_model(case)?;
    let i = class_index(&m, x)?;
    let t = thresholds(&m, i);
    Ok(range_for(&m.classes[i], &t))
}

fn class_index(m: &CaseModel, x: &str) -> Result<usize, PlotError> {
    if m.classes.is_empty() {
        return Err(PlotError::NoInput);
    }
    m.classes
        .iter()
        .position(|c| c.name == x)
        .ok_or_else(|| PlotError::UnknownInput {
            name: x.to_string(),
            known: m.classes.iter().map(|c| c.name.clone()).collect(),
        })
}

fn range_for(c: &Class, thresholds: &BTreeSet<BigRational>) -> (BigRational, BigRational) {
    let (lo, hi) = c.bounds();
    let hundred = BigRational::from_integer(100.into());
    let from = match (&lo, &hi) {
        (Some((l, _)), _) => l.clone(),
        (None, Some((h, _))) if !h.is_positive() => {
            let below = thresholds
                .iter()
                .next()
                .cloned()
                .unwrap_or_else(|| h.clone());
            round_sig(
                &(below.min(h.clone()) * BigRational::from_integer(2.into())),
                false,
            )
            .min(h.clone() - &hundred)
        }
        _ => BigRational::zero(),
    };
    let to = match &hi {
        Some((h, _)) if *h > from => h.clone(),
        _ => {
            let top = thresholds.iter().next_back().cloned();
            match top {
                Some(t) if t > from => {
                    let twice = &t * BigRational::from_integer(2.into());
                    round_sig(&twice, true).max(t)
                }
                _ => &from + &hundred,
            }
        }
    };
    (from, to)
}

/// `v` rounded to two significant digits, up (or down).
fn round_sig(v: &BigRational, up: bool) -> BigRational {
    if v.is_zero() {
        return v.clone();
    }
    let mut unit = BigRational::one();
    let ten = BigRational::from_integer(10.into());
    let hundred = BigRational::from_integer(100.into());
    let a = v.abs();
    let mut guard = 0;
    while &a / &unit >= hundred && guard < 2000 {
        unit *= &ten;
        guard += 1;
    }
    while &a / &unit < BigRational::from_integer(10.into()) && guard < 4000 {
        unit /= &ten;
        guard += 1;
    }
    let q = v / &unit;
    let r = if up { q.ceil() } else { q.floor() };
    r * unit
}

/// Draws the chart of `case` along `req.x`. `regions` are the divergence regions of
/// a consistency report of the same case (may be empty): each is drawn as a band
/// under the samples that fall in it, and samples where the sampled outputs and the
/// regions disagree are noted. `solver` runs the SMT-LIB sides (one session for the
/// whole chart).
pub fn plot_case(
    case: &CaseFiles,
    req: &PlotRequest,
    regions: &[Region],
    solver: &SolverConfig,
) -> Result<Plot, PlotError> {
    logic::with_big_stack(|| plot_on_this_thread(case, req, regions, solver))
}

/// A value at one sample.
#[derive(Debug, Clone)]
enum Sample {
    Value(BigRational),
    /// No value, and why.
    Gap(String),
}

fn plot_on_this_thread(
    case: &CaseFiles,
    req: &PlotRequest,
    regions: &[Region],
    config: &SolverConfig,
) -> Result<Plot, PlotError> {
    let m = case_model(case)?;
    let xi = class_index(&m, &req.x)?;
    let xclass = m.classes[xi].clone();
    let fixed = fixed_inputs(&m, xi, req)?;
    let mut notes = m.notes.clone();
    for (i, v) in &fixed {
        if !m.classes[*i].allows(v) {
            notes.push(format!(
                "{} = {} is outside the bounds: every sample is outside them",
                m.classes[*i].name,
                exact(v)
            ));
        }
    }
    let ths = thresholds(&m, xi);
    let (from, to) = plot_range(req, &xclass, &ths)?;
    let samples = match req.samples {
        0 => DEFAULT_SAMPLES,
        n => n.clamp(2, MAX_SAMPLES),
    };
    let xs = sample_points(&from, &to, samples, &ths, xclass.int);
    if xs.is_empty() {
        return Err(PlotError::BadRange {
            from: exact(&from),
            to: exact(&to),
        });
    }
    // Values of every input at each sample.
    let assignment = |x: &BigRational| -> Vec<BigRational> {
        (0..m.classes.len())
            .map(|i| {
                if i == xi {
                    x.clone()
                } else {
                    fixed.get(&i).cloned().unwrap_or_default()
                }
            })
            .collect()
    };
    let points: Vec<Vec<BigRational>> = xs.iter().map(assignment).collect();
    let mut session: Option<Solver> = None;
    let nl_vals = evaluate_side(&m, &m.nl, &points, &mut session, config)?;
    let bl_vals = evaluate_side(&m, &m.bl, &points, &mut session, config)?;
    drop(session);
    let inside: Vec<bool> = points
        .iter()
        .map(|p| m.classes.iter().zip(p).all(|(c, v)| c.allows(v)))
        .collect();
    let differs: Vec<bool> = (0..xs.len())
        .map(|k| {
            inside[k]
                && matches!((&nl_vals[k], &bl_vals[k]), (Sample::Value(a), Sample::Value(b)) if a != b)
        })
        .collect();
    let runs = runs_of(&differs);
    let divergent: Vec<(String, String)> = runs
        .iter()
        .map(|(a, b)| (exact(&xs[*a]), exact(&xs[*b])))
        .collect();
    for (label, out, vals) in [
        ("documentation", &m.nl.output_name, &nl_vals),
        ("implementation", &m.bl.output_name, &bl_vals),
    ] {
        notes.extend(gap_note(label, out, vals, &xclass.name, &xs));
    }
    let outside = inside.iter().filter(|i| !**i).count();
    if outside > 0 {
        notes.push(format!(
            "{outside} of {} samples are outside the bounds (shaded grey); differences there are not marked",
            xs.len()
        ));
    }
    let membership = region_membership(&m, regions, &points, &mut notes);
    if !regions.is_empty() && membership.iter().all(Option::is_some) {
        let samples = Samples {
            xs: &xs,
            nl: &nl_vals,
            bl: &bl_vals,
            inside: &inside,
            differs: &differs,
        };
        notes.extend(disagreement_note(&samples, &membership, &xclass.name));
    }
    let fixed_named: BTreeMap<String, String> = fixed
        .iter()
        .map(|(i, v)| (m.classes[*i].name.clone(), exact(v)))
        .collect();
    let svg = render(&Render {
        m: &m,
        xname: &xclass.name,
        xs: &xs,
        nl: &nl_vals,
        bl: &bl_vals,
        inside: &inside,
        runs: &runs,
        regions,
        membership: &membership,
        fixed: &fixed_named,
        notes: &notes,
        case,
    });
    let show = |s: &Sample| match s {
        Sample::Value(v) => Some(exact(v)),
        Sample::Gap(_) => None,
    };
    Ok(Plot {
        svg,
        x: xclass.name.clone(),
        from: exact(&from),
        to: exact(&to),
        fixed: fixed_named,
        nl_output: m.nl.output_name.clone(),
        bl_output: m.bl.output_name.clone(),
        points: (0..xs.len())
            .map(|k| (exact(&xs[k]), show(&nl_vals[k]), show(&bl_vals[k])))
            .collect(),
        divergent,
        notes,
    })
}

/// The value of every input but the x axis: the request's, checked, else the input's
/// default.
fn fixed_inputs(
    m: &CaseModel,
    xi: usize,
    req: &PlotRequest,
) -> Result<BTreeMap<usize, BigRational>, PlotError> {
    let mut fixed: BTreeMap<usize, BigRational> = BTreeMap::new();
    for (name, v) in &req.fixed {
        let i = m
            .classes
            .iter()
            .position(|c| c.name == *name)
            .ok_or_else(|| PlotError::UnknownInput {
                name: name.clone(),
                known: m.classes.iter().map(|c| c.name.clone()).collect(),
            })?;
        if i == xi {
            return Err(PlotError::FixedIsX(name.clone()));
        }
        if m.classes[i].int && !v.is_integer() {
            return Err(PlotError::NotAnInteger {
                name: name.clone(),
                value: exact(v),
            });
        }
        fixed.insert(i, v.clone());
    }
    for (i, c) in m.classes.iter().enumerate() {
        if i != xi {
            fixed.entry(i).or_insert_with(|| c.default_value());
        }
    }
    Ok(fixed)
}

/// The x range to sample: the request's ends, each defaulting to the input's range (a
/// range as wide as that one when only one end is given).
fn plot_range(
    req: &PlotRequest,
    xclass: &Class,
    ths: &BTreeSet<BigRational>,
) -> Result<(BigRational, BigRational), PlotError> {
    let (dfrom, dto) = range_for(xclass, ths);
    let from = req.from.clone().unwrap_or_else(|| {
        if req.to.as_ref().is_some_and(|t| *t <= dfrom) {
            req.to.clone().unwrap_or_default() - (&dto - &dfrom)
        } else {
            dfrom.clone()
        }
    });
    let to = req.to.clone().unwrap_or_else(|| {
        if dto <= from {
            &from + (&dto - &dfrom)
        } else {
            dto.clone()
        }
    });
    if from >= to {
        return Err(PlotError::BadRange {
            from: exact(&from),
            to: exact(&to),
        });
    }
    Ok((from, to))
}

/// The note on the samples where one output has no value (one example of each kind of
/// reason), if there are any.
fn gap_note(
    label: &str,
    out: &str,
    vals: &[Sample],
    xname: &str,
    xs: &[BigRational],
) -> Option<String> {
    let gaps: Vec<(usize, &String)> = vals
        .iter()
        .enumerate()
        .filter_map(|(k, v)| match v {
            Sample::Gap(r) => Some((k, r)),
            Sample::Value(_) => None,
        })
        .collect();
    if gaps.is_empty() {
        return None;
    }
    // One example of each kind of reason (the text before its details).
    let mut kinds: Vec<(&str, usize, &String)> = Vec::new();
    for (k, why) in &gaps {
        let kind = why.split(" (").next().unwrap_or(why);
        if !kinds.iter().any(|(x, _, _)| *x == kind) {
            kinds.push((kind, *k, why));
        }
    }
    let examples: Vec<String> = kinds
        .iter()
        .take(3)
        .map(|(_, k, why)| format!("at {} = {}: {why}", xname, exact(&xs[*k])))
        .collect();
    Some(format!(
        "the {label} output {out} has no value at {} of {} samples (shown as gaps), e.g. {}",
        gaps.len(),
        xs.len(),
        examples.join("; ")
    ))
}

/// What is known at each sample: the x values, both outputs, whether the sample is
/// within the bounds and whether the outputs differ there.
struct Samples<'a> {
    xs: &'a [BigRational],
    nl: &'a [Sample],
    bl: &'a [Sample],
    inside: &'a [bool],
    differs: &'a [bool],
}

/// The note on samples where the outputs differ outside every region of the check, or
/// agree inside one, if there are any.
fn disagreement_note(
    p: &Samples<'_>,
    membership: &[Option<Vec<Option<bool>>>],
    xname: &str,
) -> Option<String> {
    let mut disagree = Vec::new();
    for k in 0..p.xs.len() {
        if !p.inside[k] {
            continue;
        }
        let in_region = membership
            .iter()
            .any(|r| r.as_ref().is_some_and(|v| v[k] == Some(true)));
        let decided = membership
            .iter()
            .all(|r| r.as_ref().is_some_and(|v| v[k].is_some()));
        let both = matches!((&p.nl[k], &p.bl[k]), (Sample::Value(_), Sample::Value(_)));
        if decided && both && in_region != p.differs[k] {
            disagree.push(k);
        }
    }
    let k = disagree.first()?;
    Some(format!(
            "at {} of the samples the outputs {} although the check's regions say {} (e.g. at {} = {}); the check may have used other bounds or accepted exceptions",
            disagree.len(),
            if p.differs[*k] { "differ" } else { "agree" },
            if p.differs[*k] { "they agree" } else { "they differ" },
            xname,
            exact(&p.xs[*k])
    ))
}

/// Maximal runs of `true`, as (first, last) indices.
fn runs_of(flags: &[bool]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (k, f) in flags.iter().enumerate() {
        match (f, start) {
            (true, None) => start = Some(k),
            (false, Some(s)) => {
                out.push((s, k - 1));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, flags.len() - 1));
    }
    out
}

// ------------------------------------------------------------------ sampling

/// The grid at a round step over [from, to], both ends included, plus the thresholds
/// inside, sorted and without duplicates. Integers only for an integer input.
fn sample_points(
    from: &BigRational,
    to: &BigRational,
    samples: usize,
    thresholds: &BTreeSet<BigRational>,
    int: bool,
) -> Vec<BigRational> {
    let span = to - from;
    let raw = &span / BigRational::from_integer(((samples.max(2) - 1) as i64).into());
    let mut step = nice_step(&raw, true);
    if int && step < BigRational::one() {
        step = BigRational::one();
    }
    let mut set: BTreeSet<BigRational> = BTreeSet::new();
    let fix = |v: BigRational| if int { v.floor() } else { v };
    let lo = if int { from.ceil() } else { from.clone() };
    let hi = if int { to.floor() } else { to.clone() };
    if lo > hi {
        return Vec::new();
    }
    set.insert(lo.clone());
    set.insert(hi.clone());
    let mut k = (from / &step).ceil();
    let last = (to / &step).floor();
    let mut guard = 0;
    while k <= last && guard <= MAX_SAMPLES + 2 {
        let v = fix(&k * &step);
        if v >= lo && v <= hi {
            set.insert(v);
        }
        k += BigRational::one();
        guard += 1;
    }
    let inside: Vec<&BigRational> = thresholds.iter().filter(|t| **t > lo && **t < hi).collect();
    // Evenly spread when there are more than the cap.
    let take = inside.len().min(MAX_THRESHOLD_SAMPLES);
    for j in 0..take {
        let idx = if take == inside.len() {
            j
        } else {
            j * inside.len() / take
        };
        if let Some(t) = inside.get(idx) {
            if int {
                set.insert(t.floor());
                set.insert(t.floor() + BigRational::one());
            } else {
                set.insert((*t).clone());
            }
        }
    }
    set.into_iter().filter(|v| *v >= lo && *v <= hi).collect()
}

/// The smallest (or largest, with `up == false`) of 1, 2, 2.5, 5 times a power of ten
/// that is at least (at most) `raw`.
fn nice_step(raw: &BigRational, up: bool) -> BigRational {
    if !raw.is_positive() {
        return BigRational::one();
    }
    let ten = BigRational::from_integer(10.into());
    let mut p = BigRational::one();
    let mut guard = 0;
    while &p * &ten <= *raw && guard < 2000 {
        p *= &ten;
        guard += 1;
    }
    while p > *raw && guard < 4000 {
        p /= &ten;
        guard += 1;
    }
    // Now p <= raw < 10p.
    let half = BigRational::new(1.into(), 2.into());
    let mults = [
        BigRational::one(),
        BigRational::from_integer(2.into()),
        BigRational::from_integer(5.into()) * &half,
        BigRational::from_integer(5.into()),
        ten.clone(),
    ];
    if up {
        mults
            .iter()
            .map(|m| m * &p)
            .find(|c| c >= raw)
            .unwrap_or_else(|| &p * &ten)
    } else {
        mults
            .iter()
            .rev()
            .map(|m| m * &p)
            .find(|c| c <= raw)
            .unwrap_or(p)
    }
}

/// Most expression or term nodes looked at for thresholds.
const THRESHOLD_BUDGET: usize = 2_000_000;

/// The numbers either side compares the input `xi` with (directly, or through
/// intermediate values that depend on it).
fn thresholds(m: &CaseModel, xi: usize) -> BTreeSet<BigRational> {
    let mut out = BTreeSet::new();
    let mut budget = THRESHOLD_BUDGET;
    let class = &m.classes[xi];
    for s in [&m.nl, &m.bl] {
        let xs: HashSet<&str> = class
            .members
            .iter()
            .filter(|(l, _)| *l == s.label)
            .map(|(_, n)| n.as_str())
            .collect();
        // Inputs of other classes: comparisons over only these are not about x.
        let others: HashSet<&str> = s
            .inputs
            .iter()
            .map(|(n, _, _)| n.as_str())
            .filter(|n| !xs.contains(n))
            .collect();
        match &s.side.program {
            Some(p) => bl_thresholds(p, &xs, &mut out, &mut budget),
            None => {
                for c in &s.side.commands {
                    let t = match c {
                        Command::Assert(t) => t,
                        Command::DefineFun(d) => &d.body,
                        _ => continue,
                    };
                    smt_thresholds(t, &others, &mut out, &mut budget);
                }
            }
        }
    }
    out
}

fn bl_thresholds(
    p: &bl::Program,
    xs: &HashSet<&str>,
    out: &mut BTreeSet<BigRational>,
    budget: &mut usize,
) {
    use bl::ExprKind;
    // Which bindings depend on x.
    let mut dep: HashSet<String> = xs.iter().map(|s| s.to_string()).collect();
    let vars_depend = |e: &bl::Expr, dep: &HashSet<String>, budget: &mut usize| -> bool {
        let mut stack = vec![e];
        while let Some(e) = stack.pop() {
            if *budget == 0 {
                return false;
            }
            *budget -= 1;
            if let ExprKind::Var(v) = &e.kind {
                if dep.contains(v) {
                    return true;
                }
            }
            stack.extend(e.children());
        }
        false
    };
    let num = |e: &bl::Expr| -> Option<BigRational> {
        let mut e = e;
        while let ExprKind::Paren(x) = &e.kind {
            e = x;
        }
        match &e.kind {
            ExprKind::Num(n) => Some(n.clone()),
            _ => None,
        }
    };
    for l in &p.lets {
        let bl::Binding::Expr(e) = &l.value else {
            continue;
        };
        let mut stack = vec![e];
        while let Some(e) = stack.pop() {
            if *budget == 0 {
                return;
            }
            *budget -= 1;
            if let ExprKind::If { lhs, rhs, .. } = &e.kind {
                match (num(lhs), num(rhs)) {
                    (Some(k), None) if vars_depend(rhs, &dep, budget) => {
                        out.insert(k);
                    }
                    (None, Some(k)) if vars_depend(lhs, &dep, budget) => {
                        out.insert(k);
                    }
                    _ => {}
                }
            }
            stack.extend(e.children());
        }
        if vars_depend(e, &dep, budget) {
            dep.insert(l.name.clone());
        }
    }
}

fn literal(t: &Term) -> Option<BigRational> {
    match t {
        Term::Real(r) => Some(r.clone()),
        Term::Int(i) => Some(BigRational::from_integer(i.clone())),
        Term::App(Op::ToReal, xs) if xs.len() == 1 => literal(&xs[0]),
        _ => None,
    }
}

/// Comparisons with a number whose other side mentions something other than the
/// inputs of other classes (x itself, an intermediate, a function parameter).
fn smt_thresholds(
    t: &Term,
    others: &HashSet<&str>,
    out: &mut BTreeSet<BigRational>,
    budget: &mut usize,
) {
    let mut stack = vec![t];
    while let Some(t) = stack.pop() {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        match t {
            Term::App(op, xs) => {
                if matches!(op, Op::Le | Op::Lt | Op::Ge | Op::Gt | Op::Eq) && xs.len() == 2 {
                    let about_x = |u: &Term, budget: &mut usize| -> bool {
                        let mut st = vec![u];
                        while let Some(u) = st.pop() {
                            if *budget == 0 {
                                return false;
                            }
                            *budget -= 1;
                            match u {
                                Term::Var(n, _) if !others.contains(&**n) => return true,
                                Term::App(_, ys) | Term::Call(_, ys, _) => st.extend(ys.iter()),
                                Term::Named(y, _) => st.push(y),
                                Term::Let(b, y) => {
                                    st.push(y);
                                    st.extend(b.iter().map(|(_, v)| v));
                                }
                                _ => {}
                            }
                        }
                        false
                    };
                    match (literal(&xs[0]), literal(&xs[1])) {
                        (Some(k), None) if xs[1].sort().is_numeric() && about_x(&xs[1], budget) => {
                            out.insert(k);
                        }
                        (None, Some(k)) if xs[0].sort().is_numeric() && about_x(&xs[0], budget) => {
                            out.insert(k);
                        }
                        _ => {}
                    }
                }
                stack.extend(xs.iter());
            }
            Term::Call(_, xs, _) => stack.extend(xs.iter()),
            Term::Named(x, _) => stack.push(x),
            Term::Let(b, x) => {
                stack.push(x);
                stack.extend(b.iter().map(|(_, v)| v));
            }
            _ => {}
        }
    }
}

// ------------------------------------------------------------------ evaluation

/// The side's own input values at one sample.
fn side_inputs(m: &CaseModel, s: &SideModel, point: &[BigRational]) -> Vec<(String, BigRational)> {
    let mut out = Vec::new();
    for (n, _, _) in &s.inputs {
        let v = m
            .classes
            .iter()
            .zip(point)
            .find(|(c, _)| c.members.iter().any(|(l, mn)| *l == s.label && mn == n))
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        out.push((n.clone(), v));
    }
    out
}

fn value_rat(v: &Value) -> Option<BigRational> {
    match v {
        Value::Real(r) => Some(r.clone()),
        Value::Int(i) => Some(BigRational::from_integer(i.clone())),
        _ => None,
    }
}

fn lit_for(v: &BigRational, sort: &Sort) -> Option<Term> {
    match sort {
        Sort::Int if v.is_integer() => Some(Term::Int(v.to_integer())),
        Sort::Int => None,
        _ => Some(Term::Real(v.clone())),
    }
}

fn evaluate_side(
    m: &CaseModel,
    s: &SideModel,
    points: &[Vec<BigRational>],
    session: &mut Option<Solver>,
    config: &SolverConfig,
) -> Result<Vec<Sample>, PlotError> {
    if let Some(p) = &s.side.program {
        return Ok(points
            .iter()
            .map(|pt| {
                let inputs: BTreeMap<String, BigRational> =
                    side_inputs(m, s, pt).into_iter().collect();
                match bl::interpret(p, &inputs, &s.output_name) {
                    Ok(v) => Sample::Value(v),
                    Err(e) => Sample::Gap(format!("the interpreter stops: {e}")),
                }
            })
            .collect());
    }
    if session.is_none() {
        *session = Some(Solver::start(config)?);
    }
    let Some(solver) = session.as_mut() else {
        return Err(PlotError::Solver("no session".into()));
    };
    solver.push()?;
    let result = (|| -> Result<Vec<Sample>, PlotError> {
        for c in &s.decls {
            solver.command(c)?;
        }
        for t in &s.asserts {
            solver.assert(t)?;
        }
        let mut out = Vec::with_capacity(points.len());
        for pt in points {
            out.push(evaluate_smt_point(m, s, pt, solver)?);
        }
        Ok(out)
    })();
    let popped = solver.pop();
    let out = result?;
    popped?;
    Ok(out)
}

fn evaluate_smt_point(
    m: &CaseModel,
    s: &SideModel,
    pt: &[BigRational],
    solver: &mut Solver,
) -> Result<Sample, PlotError> {
    let mut fix = Vec::new();
    for ((n, sym, sort), (_, v)) in s.inputs.iter().zip(side_inputs(m, s, pt)) {
        let Some(lit) = lit_for(&v, sort) else {
            return Ok(Sample::Gap(format!(
                "input {n} is an integer and {} is not",
                exact(&v)
            )));
        };
        fix.push(Term::app(
            Op::Eq,
            vec![Term::Var(sym.clone(), sort.clone()), lit],
        ));
    }
    solver.push()?;
    let r = (|| -> Result<Sample, PlotError> {
        for t in &fix {
            solver.assert(t)?;
        }
        match solver.check()? {
            Outcome::Unsat(_) => {
                return Ok(Sample::Gap("no output satisfies the formalization".into()))
            }
            Outcome::Unknown(r) => {
                return Ok(Sample::Gap(format!("the solver answered unknown ({r})")))
            }
            Outcome::Sat(_) => {}
        }
        let vals = solver.get_values(std::slice::from_ref(&s.output))?;
        let Some(v) = vals.first().and_then(value_rat) else {
            return Ok(Sample::Gap("the solver gave no numeric value".into()));
        };
        let Some(lit) = lit_for(&v, &s.output.sort()) else {
            return Ok(Sample::Gap("the solver gave no numeric value".into()));
        };
        let other = Term::app(Op::Distinct, vec![s.output.clone(), lit]);
        match solver.check_assuming(std::slice::from_ref(&other))? {
            Outcome::Unsat(_) => Ok(Sample::Value(v)),
            Outcome::Sat(_) => {
                let w = solver
                    .get_values(std::slice::from_ref(&s.output))?
                    .first()
                    .and_then(value_rat)
                    .map(|w| exact(&w))
                    .unwrap_or_else(|| "another value".into());
                Ok(Sample::Gap(format!(
                    "the output is not determined ({} and {w} both satisfy the formalization)",
                    exact(&v)
                )))
            }
            Outcome::Unknown(r) => Ok(Sample::Gap(format!(
                "the solver could not tell whether {} is the only output ({r})",
                exact(&v)
            ))),
        }
    })();
    let popped = solver.pop();
    let r = r?;
    popped?;
    Ok(r)
}

/// For each region, whether each sample is in it (`None` for a region whose term
/// cannot be read over the inputs; an inner `None` where it cannot be evaluated).
fn region_membership(
    m: &CaseModel,
    regions: &[Region],
    points: &[Vec<BigRational>],
    notes: &mut Vec<String>,
) -> Vec<Option<Vec<Option<bool>>>> {
    let mut ctx = Context::new();
    let mut vars: Vec<(usize, Symbol, Sort)> = Vec::new();
    for s in [&m.nl, &m.bl] {
        for (n, sym, sort) in &s.inputs {
            ctx.declare_const(sym.clone(), sort.clone());
            if let Some(ci) = m
                .classes
                .iter()
                .position(|c| c.members.iter().any(|(l, mn)| *l == s.label && mn == n))
            {
                vars.push((ci, sym.clone(), sort.clone()));
            }
        }
    }
    let mut out = Vec::new();
    for (k, r) in regions.iter().enumerate() {
        let text = format!("(assert {})", r.smt);
        let parsed = logic::parse_untrusted("region", &text, &ctx, logic::Limits::default())
            .ok()
            .filter(|u| {
                u.assertions.len() == 1
                    && u.constants.is_empty()
                    && u.definitions.is_empty()
                    && u.enums.is_empty()
            })
            .and_then(|u| u.assertions.into_iter().next().map(|(t, _)| t));
        let Some(term) = parsed else {
            notes.push(format!(
                "region {} is not drawn: its term is not a formula over the inputs",
                k + 1
            ));
            out.push(None);
            continue;
        };
        let v = points
            .iter()
            .map(|pt| {
                let mut model = Model::new();
                for (ci, sym, sort) in &vars {
                    let val = &pt[*ci];
                    let value = match sort {
                        Sort::Int if val.is_integer() => Value::Int(val.to_integer()),
                        Sort::Int => return None,
                        _ => Value::Real(val.clone()),
                    };
                    model.insert(sym.clone(), value);
                }
                logic::eval_bool(&term, &model, &ctx).ok()
            })
            .collect();
        out.push(Some(v));
    }
    out
}

// ------------------------------------------------------------------ numbers

/// An exact rational for people: `12`, `-3.5`, `1/3`.
pub fn exact(v: &BigRational) -> String {
    if v.is_integer() {
        return v.to_integer().to_string();
    }
    match logic::print::decimal(v) {
        Some(d) => d,
        None => format!("{}/{}", v.numer(), v.denom()),
    }
}

fn f64_of(v: &BigRational) -> f64 {
    v.to_f64().unwrap_or(0.0)
}

// ------------------------------------------------------------------ SVG

struct Render<'a> {
    m: &'a CaseModel,
    xname: &'a str,
    xs: &'a [BigRational],
    nl: &'a [Sample],
    bl: &'a [Sample],
    inside: &'a [bool],
    runs: &'a [(usize, usize)],
    regions: &'a [Region],
    membership: &'a [Option<Vec<Option<bool>>>],
    fixed: &'a BTreeMap<String, String>,
    notes: &'a [String],
    case: &'a CaseFiles,
}

fn esc(s: &str) -> String {
    report::html::escape(s)
}

/// Tick values: multiples of a round step inside [lo, hi].
fn ticks(lo: &BigRational, hi: &BigRational) -> Vec<BigRational> {
    let raw = (hi - lo) / BigRational::from_integer(6.into());
    let step = nice_step(&raw, true);
    let mut out = Vec::new();
    let mut k = (lo / &step).ceil();
    while &k * &step <= *hi && out.len() < 20 {
        out.push(&k * &step);
        k += BigRational::one();
    }
    out
}

/// The plot area and the value ranges it shows: where a sample lands.
struct Scale<'a> {
    xs: &'a [BigRational],
    x0: BigRational,
    x1: BigRational,
    xspan: BigRational,
    y0: BigRational,
    y1: BigRational,
    yspan: BigRational,
    /// Width of the plot area.
    pw: f64,
    /// Height of the plot area.
    ph: f64,
}

impl<'a> Scale<'a> {
    /// The x range of the samples and a y range that holds every value and zero.
    fn of(r: &Render<'a>) -> Scale<'a> {
        let (x0, x1) = (
            r.xs.first().cloned().unwrap_or_default(),
            r.xs.last().cloned().unwrap_or_default(),
        );
        let xspan = if x1 > x0 {
            &x1 - &x0
        } else {
            BigRational::one()
        };
        let mut ys: Vec<&BigRational> = Vec::new();
        for s in r.nl.iter().chain(r.bl) {
            if let Sample::Value(v) = s {
                ys.push(v);
            }
        }
        let (mut y0, mut y1) = match (ys.iter().min(), ys.iter().max()) {
            (Some(a), Some(b)) => ((*a).clone(), (*b).clone()),
            _ => (BigRational::zero(), BigRational::one()),
        };
        if y0 > BigRational::zero() {
            y0 = BigRational::zero();
        }
        if y1 < BigRational::zero() {
            y1 = BigRational::zero();
        }
        if y1 <= y0 {
            y1 = &y0 + BigRational::one();
        }
        let yspan = &y1 - &y0;
        Scale {
            xs: r.xs,
            x0,
            x1,
            xspan,
            y0,
            y1,
            yspan,
            pw: WIDTH - LEFT - RIGHT,
            ph: HEIGHT - TOP - BOTTOM,
        }
    }

    /// The horizontal position of `x`.
    fn px(&self, x: &BigRational) -> f64 {
        LEFT + f64_of(&((x - &self.x0) / &self.xspan)) * self.pw
    }

    /// The vertical position of `y`.
    fn py(&self, y: &BigRational) -> f64 {
        TOP + self.ph - f64_of(&((y - &self.y0) / &self.yspan)) * self.ph
    }

    /// Half way from sample `k` to its neighbour in direction `dir` (the sample itself
    /// at either end).
    fn half_to(&self, k: usize, dir: i64) -> f64 {
        let j = k as i64 + dir;
        if j < 0 || j as usize >= self.xs.len() {
            self.px(&self.xs[k])
        } else {
            (self.px(&self.xs[k]) + self.px(&self.xs[j as usize])) / 2.0
        }
    }
}

fn render(r: &Render<'_>) -> String {
    let sc = Scale::of(r);
    let mut s = String::new();
    let title = format!(
        "{} (documentation) and {} (implementation) along {}",
        r.m.nl.output_name, r.m.bl.output_name, r.xname
    );
    let _ = write!(
        s,
        r#"<svg id="plot" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" role="img" aria-label="{}" font-family="sans-serif" font-size="11">"#,
        esc(&title)
    );
    let _ = write!(s, "<title>{}</title>", esc(&title));
    outside_and_divergence(&mut s, r, &sc);
    axes(&mut s, &sc);
    output_lines(&mut s, r, &sc);
    let band_y = TOP + sc.ph + 24.0;
    region_bands(&mut s, r, &sc, band_y);
    axis_name_and_legend(&mut s, r, &sc, band_y);
    // Notes (the first few; the page lists them all).
    for (i, n) in r.notes.iter().take(2).enumerate() {
        let _ = write!(
            s,
            r##"<text class="note" x="{LEFT}" y="{:.2}" fill="#8a4b00">{}</text>"##,
            band_y + 48.0 + 14.0 * i as f64,
            esc(&bl::diag::clip(n, 140))
        );
    }
    s.push_str("</svg>");
    s
}

/// Shades the samples outside the bounds, then the runs where the outputs differ.
fn outside_and_divergence(s: &mut String, r: &Render<'_>, sc: &Scale<'_>) {
    let ph = sc.ph;
    let half_to = |k: usize, dir: i64| sc.half_to(k, dir);
    for (a, b) in runs_of(&r.inside.iter().map(|i| !i).collect::<Vec<_>>()) {
        let (l, rr) = (half_to(a, -1), half_to(b, 1));
        let _ = write!(
            s,
            r##"<rect class="outside" x="{l:.2}" y="{TOP:.2}" width="{:.2}" height="{ph:.2}" fill="#888888" fill-opacity="0.15"><title>{}</title></rect>"##,
            (rr - l).max(1.0),
            esc(&format!(
                "outside the bounds: {} = {} to {}",
                r.xname,
                exact(&r.xs[a]),
                exact(&r.xs[b])
            ))
        );
    }
    for (a, b) in r.runs {
        let (l, rr) = (half_to(*a, -1), half_to(*b, 1));
        let _ = write!(
            s,
            r##"<rect class="divergence" x="{l:.2}" y="{TOP:.2}" width="{:.2}" height="{ph:.2}" fill="#d62728" fill-opacity="0.15" data-from="{}" data-to="{}"><title>{}</title></rect>"##,
            (rr - l).max(2.0),
            esc(&exact(&r.xs[*a])),
            esc(&exact(&r.xs[*b])),
            esc(&format!(
                "the outputs differ at every sample from {} = {} to {} ({} samples)",
                r.xname,
                exact(&r.xs[*a]),
                exact(&r.xs[*b]),
                b - a + 1
            ))
        );
    }
}

/// The axes with their ticks and grid lines.
fn axes(s: &mut String, sc: &Scale<'_>) {
    let (pw, ph) = (sc.pw, sc.ph);
    let _ = write!(
        s,
        r##"<g class="axes" stroke="#444444" fill="none"><line x1="{LEFT}" y1="{:.2}" x2="{:.2}" y2="{:.2}"/><line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{:.2}"/></g>"##,
        TOP + ph,
        LEFT + pw,
        TOP + ph,
        TOP + ph
    );
    s.push_str(r##"<g class="ticks" fill="#333333">"##);
    for t in ticks(&sc.x0, &sc.x1) {
        let x = sc.px(&t);
        let _ = write!(
            s,
            r##"<line x1="{x:.2}" y1="{:.2}" x2="{x:.2}" y2="{:.2}" stroke="#444444"/><text x="{x:.2}" y="{:.2}" text-anchor="middle">{}</text>"##,
            TOP + ph,
            TOP + ph + 5.0,
            TOP + ph + 18.0,
            esc(&exact(&t))
        );
    }
    for t in ticks(&sc.y0, &sc.y1) {
        let y = sc.py(&t);
        let _ = write!(
            s,
            r##"<line x1="{:.2}" y1="{y:.2}" x2="{LEFT}" y2="{y:.2}" stroke="#444444"/><line x1="{LEFT}" y1="{y:.2}" x2="{:.2}" y2="{y:.2}" stroke="#dddddd"/><text x="{:.2}" y="{:.2}" text-anchor="end">{}</text>"##,
            LEFT - 5.0,
            LEFT + pw,
            LEFT - 8.0,
            y + 4.0,
            esc(&exact(&t))
        );
    }
    s.push_str("</g>");
}

/// The two outputs: one polyline per run of defined samples, a dot for a lone sample
/// and a mark on the x axis where an output has no value.
fn output_lines(s: &mut String, r: &Render<'_>, sc: &Scale<'_>) {
    let (ph, px, py) = (
        sc.ph,
        |x: &BigRational| sc.px(x),
        |y: &BigRational| sc.py(y),
    );
    for (class, vals, color, dash, who) in [
        ("nl", r.nl, "#1f77b4", "", "documentation"),
        (
            "bl",
            r.bl,
            "#d62728",
            r#" stroke-dasharray="6 4""#,
            "implementation",
        ),
    ] {
        let out = if class == "nl" {
            &r.m.nl.output_name
        } else {
            &r.m.bl.output_name
        };
        let defined: Vec<bool> = vals.iter().map(|v| matches!(v, Sample::Value(_))).collect();
        for (a, b) in runs_of(&defined) {
            let mut pts = String::new();
            for (x, v) in r.xs[a..=b].iter().zip(&vals[a..=b]) {
                if let Sample::Value(v) = v {
                    let _ = write!(pts, "{:.2},{:.2} ", px(x), py(v));
                }
            }
            let _ = write!(
                s,
                r#"<polyline class="{class}" fill="none" stroke="{color}" stroke-width="2"{dash} points="{}"><title>{}</title></polyline>"#,
                pts.trim_end(),
                esc(&format!("{who}: {out}"))
            );
            if a == b {
                // A single defined sample: a dot, since a one-point line is invisible.
                if let Sample::Value(v) = &vals[a] {
                    let _ = write!(
                        s,
                        r#"<circle class="{class}" cx="{:.2}" cy="{:.2}" r="2.5" fill="{color}"/>"#,
                        px(&r.xs[a]),
                        py(v)
                    );
                }
            }
        }
        // Gaps: a mark on the x axis at each sample without a value.
        for (k, v) in vals.iter().enumerate() {
            if let Sample::Gap(why) = v {
                let y = TOP + ph + if class == "nl" { -3.0 } else { -8.0 };
                let _ = write!(
                    s,
                    r#"<circle class="gap-{class}" cx="{:.2}" cy="{y:.2}" r="2" fill="none" stroke="{color}"><title>{}</title></circle>"#,
                    px(&r.xs[k]),
                    esc(&format!(
                        "{who} ({out}) has no value at {} = {}: {why}",
                        r.xname,
                        exact(&r.xs[k])
                    ))
                );
            }
        }
    }
}

/// The regions of the check, as bands under the axis.
fn region_bands(s: &mut String, r: &Render<'_>, sc: &Scale<'_>, band_y: f64) {
    let half_to = |k: usize, dir: i64| sc.half_to(k, dir);
    for (i, (reg, mem)) in r.regions.iter().zip(r.membership).enumerate() {
        let Some(mem) = mem else { continue };
        let flags: Vec<bool> = mem.iter().map(|f| *f == Some(true)).collect();
        for (a, b) in runs_of(&flags) {
            let (l, rr) = (half_to(a, -1), half_to(b, 1));
            let _ = write!(
                s,
                r##"<rect class="region" data-region="{}" x="{l:.2}" y="{:.2}" width="{:.2}" height="5" fill="#9467bd" fill-opacity="0.6"><title>{}</title></rect>"##,
                i + 1,
                band_y + (i % 3) as f64 * 6.0,
                (rr - l).max(2.0),
                esc(&format!(
                    "region {}: {} (difference {})",
                    i + 1,
                    reg.conditions.join(", "),
                    reg.difference
                ))
            );
        }
    }
}

/// The x axis's name with the inputs held fixed, and the legend.
fn axis_name_and_legend(s: &mut String, r: &Render<'_>, sc: &Scale<'_>, band_y: f64) {
    let pw = sc.pw;
    let mut axis = r.xname.to_string();
    if !r.fixed.is_empty() {
        let f: Vec<String> = r.fixed.iter().map(|(k, v)| format!("{k} = {v}")).collect();
        axis = format!("{axis}    (fixed: {})", f.join(", "));
    }
    let _ = write!(
        s,
        r##"<text class="axis-name" x="{:.2}" y="{:.2}" text-anchor="middle" fill="#222222">{}</text>"##,
        LEFT + pw / 2.0,
        band_y + 30.0,
        esc(&axis)
    );
    // Legend.
    let nl_file = r
        .case
        .nl
        .name()
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_string();
    let bl_file = r
        .case
        .implementation
        .name()
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_string();
    let _ = write!(
        s,
        r##"<g class="legend"><line x1="{LEFT}" y1="14" x2="{:.2}" y2="14" stroke="#1f77b4" stroke-width="2"/><text x="{:.2}" y="18">{}</text><line x1="{LEFT}" y1="32" x2="{:.2}" y2="32" stroke="#d62728" stroke-width="2" stroke-dasharray="6 4"/><text x="{:.2}" y="36">{}</text><rect x="{:.2}" y="8" width="14" height="10" fill="#d62728" fill-opacity="0.15"/><text x="{:.2}" y="17">outputs differ</text></g>"##,
        LEFT + 24.0,
        LEFT + 30.0,
        esc(&format!(
            "documentation: {} ({nl_file})",
            r.m.nl.output_name
        )),
        LEFT + 24.0,
        LEFT + 30.0,
        esc(&format!(
            "implementation: {} ({bl_file})",
            r.m.bl.output_name
        )),
        LEFT + pw - 110.0,
        LEFT + pw - 92.0,
    );
}
