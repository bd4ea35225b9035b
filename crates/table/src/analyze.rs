//! The analysis: per group and outcome column, the gaps, conflicts and overlaps of the
//! rows, each decided by the solver and each witness checked by vera's evaluator.
//!
//! Candidate regions come from exact interval arithmetic (the complement of the rows'
//! union for one input, a grid of elementary cells for several; pairs of rows whose
//! boxes meet). The solver then decides each: a gap holds no row (unsat), the gaps
//! together are every input in range where no row applies (unsat), two rows that meet
//! differ somewhere in their common region (sat: a conflict) or nowhere (unsat: an
//! overlap). Models are validated by `solver` as always; the witness shown is a simple
//! point of the region (see [`crate::cell::simplest`]) that vera's evaluator confirms.
//! An `unknown` answer is recorded in [`Report::undecided`], never taken as an answer.

use crate::cell::{self, Bound, Condition, Interval, Outcome, OutcomeCell};
use crate::error::TableError;
use crate::model::{Columns, Layout, Meaning, Table};
use logic::{Model, Op, Sort, Term, Value};
use num_rational::BigRational;
use num_traits::{Signed, Zero};
use serde::ser::SerializeMap;
use solver::{Outcome as Answer, Solver, SolverConfig};
use std::collections::HashMap;

/// The Boolean constant that stands for "no row applies".
const NONE: &str = "table.none";

/// At most this many findings of one kind per group and outcome column.
pub const MAX_FINDINGS: usize = 200;

/// The most cells of the region grid of a group with several inputs.
pub const MAX_CELLS: usize = 100_000;

/// What to check and how.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Which columns are which.
    pub columns: Columns,
    /// Declared input ranges by input name (a condition column's header, or the name in
    /// the rule sentences); an input without one ranges over the hull of its group's
    /// rows.
    pub ranges: Vec<(String, Interval)>,
}

/// The values of a group's key columns, in column order. Serialized as a JSON object.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Group(pub Vec<(String, String)>);

impl serde::Serialize for Group {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl std::fmt::Display for Group {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_empty() {
            return f.write_str("(all rows)");
        }
        let parts: Vec<String> = self.0.iter().map(|(k, v)| format!("{k}={v}")).collect();
        f.write_str(&parts.join(", "))
    }
}

/// Names mapped to decimal strings (a witness). Serialized as a JSON object.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Point(pub Vec<(String, String)>);

impl serde::Serialize for Point {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// One numeric input of the table.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Input {
    /// Its name: the condition column's header, or the name a rule sentence uses.
    pub name: String,
    /// Its SMT-LIB constant.
    pub smt: String,
    /// How its cells are read (`sentence` for an input named only in rule sentences).
    pub meaning: String,
    /// Digits after the point that the table writes it with (for display).
    #[serde(skip)]
    pub decimals: usize,
}

/// The kind of a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Inputs in range where no row applies.
    Gap,
    /// Inputs where two rows apply with different outcomes.
    Conflict,
    /// Inputs where two rows apply with the same outcome.
    Overlap,
}

impl Kind {
    /// `gap`, `conflict`, `overlap`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Gap => "gap",
            Kind::Conflict => "conflict",
            Kind::Overlap => "overlap",
        }
    }
}

/// A set of inputs: a box, one interval per input.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Region {
    /// For people: `49.99 < amount < 50.00`.
    pub text: String,
    /// The same as an SMT-LIB formula over the inputs' constants.
    pub smt: String,
    /// The intervals, one per input (in [`Report::inputs`] order).
    #[serde(skip)]
    pub intervals: Vec<Interval>,
}

/// A row's outcome at a witness.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RowValue {
    /// The row's line.
    pub row: u32,
    /// Its outcome there, as a decimal.
    pub value: String,
}

/// A gap, conflict or overlap.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Finding {
    /// What it is.
    pub kind: Kind,
    /// The group's key values.
    pub group: Group,
    /// The outcome column.
    pub outcome: String,
    /// Where.
    pub region: Region,
    /// A point of the region, at human numbers (as few decimals as the region allows),
    /// checked with vera's evaluator against every row of the group.
    pub witness: Point,
    /// The lines of the rows involved: for a conflict or overlap the two rows that apply,
    /// for a gap the rows whose bounds border it.
    pub rows: Vec<u32>,
    /// For a conflict or overlap, each row's outcome at the witness.
    pub values: Vec<RowValue>,
}

/// The kind of a problem with the table's cells or keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProblemKind {
    /// A cell the parser cannot read; its row is left out of its group.
    Unreadable,
    /// A row with no outcome in an outcome column (left out for that column).
    NoOutcome,
    /// A group where no row could be read.
    EmptyGroup,
    /// Key values that differ only in case or blanks: likely one group split in two.
    SimilarKeys,
}

/// A problem with a cell, a row or a group, located in the file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    /// What it is.
    pub kind: ProblemKind,
    /// 1-based line.
    pub line: u32,
    /// 1-based column (characters), where known.
    pub column: Option<u32>,
    /// The column's header, where it concerns one column.
    pub header: Option<String>,
    /// The cell's text (cut to 80 characters), where it concerns one cell.
    pub text: Option<String>,
    /// What is wrong.
    pub message: String,
    /// Other lines involved.
    pub lines: Vec<u32>,
}

/// A question the solver did not answer: nothing is claimed about it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Undecided {
    /// The group.
    pub group: Group,
    /// The outcome column.
    pub outcome: String,
    /// What was asked.
    pub question: String,
    /// The solver's reason, in words and as a kind (`reason`, `reason_kind` in JSON).
    #[serde(flatten)]
    pub reason: solver::Undecided,
}

/// An input's range in one group.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Range {
    /// The input.
    pub input: String,
    /// The interval, in the cell syntax.
    pub text: String,
    /// `given` (--range) or `rows` (the hull of the group's rows).
    pub from: &'static str,
}

/// One group and outcome column, summarized.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    /// The group.
    pub group: Group,
    /// The outcome column.
    pub outcome: String,
    /// The line of its first row.
    pub line: u32,
    /// Rows that take part (readable, with an outcome).
    pub rows: usize,
    /// The ranges the gaps are sought in.
    pub ranges: Vec<Range>,
    /// Gaps found.
    pub gaps: usize,
    /// Conflicts found.
    pub conflicts: usize,
    /// Overlaps found.
    pub overlaps: usize,
    /// The solver confirmed that the gaps found are exactly the inputs in range where
    /// no row applies (`false` when that query got no answer).
    pub gaps_exact: bool,
    /// More findings than [`MAX_FINDINGS`] of some kind: the rest are not listed.
    pub truncated: bool,
}

/// The result of checking a table.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Report {
    /// The file.
    pub file: String,
    /// The key columns.
    pub keys: Vec<String>,
    /// The inputs (condition columns and names in rule sentences).
    pub inputs: Vec<Input>,
    /// The outcome columns.
    pub outcomes: Vec<String>,
    /// Columns with no role.
    pub ignored: Vec<String>,
    /// Data rows read.
    pub rows: usize,
    /// Per group and outcome column.
    pub groups: Vec<Summary>,
    /// Gaps, conflicts and overlaps.
    pub findings: Vec<Finding>,
    /// Cells, rows and groups that could not be used.
    pub problems: Vec<Problem>,
    /// Questions without an answer.
    pub undecided: Vec<Undecided>,
    /// The solver and its version.
    pub solver: String,
}

impl Report {
    /// True when nothing was found and everything was decided.
    pub fn is_clean(&self) -> bool {
        self.findings.is_empty() && self.problems.is_empty() && self.undecided.is_empty()
    }
}

/// An outcome cell as read: the outcome, and for a rule sentence its input and condition.
type ReadOutcome = (Outcome, Option<(usize, Interval)>);

/// A row of one group and outcome column, ready for the solver.
#[derive(Debug, Clone)]
pub(crate) struct Spec {
    pub(crate) line: u32,
    /// One interval per input.
    pub(crate) cond: Vec<Interval>,
    pub(crate) outcome: Outcome,
    /// The input the percentage applies to.
    pub(crate) base: Option<usize>,
}

fn excerpt(s: &str) -> String {
    let t = s.trim();
    if t.chars().count() <= 80 {
        t.to_string()
    } else {
        format!("{}…", t.chars().take(79).collect::<String>())
    }
}

/// An SMT-LIB constant name for a header: lower case, `_` for anything else.
pub(crate) fn smt_name(header: &str, taken: &[Input]) -> String {
    let mut s = String::new();
    for c in header.to_lowercase().chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c);
        } else if !s.ends_with('_') {
            s.push('_');
        }
    }
    let mut s = s.trim_matches('_').to_string();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s = format!("x_{s}");
    }
    if [
        "and", "or", "not", "ite", "let", "true", "false", "distinct", "xor", "as",
    ]
    .contains(&s.as_str())
    {
        s.push('_');
    }
    let base = s.clone();
    let mut k = 2;
    while taken.iter().any(|i| i.smt == s) {
        s = format!("{base}_{k}");
        k += 1;
    }
    s
}

/// A key value reduced to its letters and digits, lower case (`U.S.` and `us` alike).
fn key_norm(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// A name reduced to its words, lower case, joined by one space: how a rule sentence's
/// input is matched to a condition column's header.
pub fn words(s: &str) -> String {
    s.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// One group and outcome column as rows with their conditions resolved: what the
/// solver checks, and what [`crate::smt`] writes as a formalization.
#[derive(Debug, Clone)]
pub(crate) struct Prepared {
    /// The group.
    pub(crate) group: Group,
    /// The outcome column's header.
    pub(crate) outcome: String,
    /// The group's first line.
    pub(crate) first_line: u32,
    /// The usable rows.
    pub(crate) specs: Vec<Spec>,
    /// Each input's range and where it comes from (`given` or `rows`).
    pub(crate) ranges: Vec<(Interval, &'static str)>,
    /// Digits after the point of the outcome column's amounts.
    pub(crate) out_decimals: usize,
}

/// A table read, grouped and resolved, before any solver runs.
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    pub(crate) layout: Layout,
    pub(crate) inputs: Vec<Input>,
    pub(crate) units: Vec<Prepared>,
    pub(crate) problems: Vec<Problem>,
}

/// Checks a table: reads its cells, groups its rows and analyses every group and
/// outcome column with a solver started from `config`.
pub fn check(
    table: &Table,
    options: &Options,
    config: &SolverConfig,
) -> Result<Report, TableError> {
    let Resolved {
        layout,
        inputs,
        units,
        mut problems,
    } = resolve(table, options)?;
    let header = |c: usize| {
        table
            .headers
            .get(c)
            .cloned()
            .unwrap_or_else(|| format!("column {}", c + 1))
    };
    let mut s = Solver::start(config)?;
    let solver_name = format!("{} {}", config.kind, s.version());
    let mut report = Report {
        file: table.file.clone(),
        keys: layout.keys.iter().map(|c| header(*c)).collect(),
        inputs: inputs.clone(),
        outcomes: layout.then.iter().map(|c| header(*c)).collect(),
        ignored: layout.ignored.iter().map(|c| header(*c)).collect(),
        rows: table.rows.len(),
        groups: Vec::new(),
        findings: Vec::new(),
        problems: Vec::new(),
        undecided: Vec::new(),
        solver: solver_name,
    };
    for p in &units {
        let unit = Unit {
            group: &p.group,
            outcome: p.outcome.clone(),
            inputs: &inputs,
            specs: &p.specs,
            range: p.ranges.iter().map(|r| r.0.clone()).collect(),
            out_decimals: p.out_decimals,
            file: &table.file,
        };
        let mut summary = Summary {
            group: p.group.clone(),
            outcome: p.outcome.clone(),
            line: p.first_line,
            rows: p.specs.len(),
            ranges: p
                .ranges
                .iter()
                .zip(&inputs)
                .map(|((r, from), i)| Range {
                    input: i.name.clone(),
                    text: cell::interval_text(r, i.decimals),
                    from,
                })
                .collect(),
            gaps: 0,
            conflicts: 0,
            overlaps: 0,
            gaps_exact: false,
            truncated: false,
        };
        unit.run(&mut s, &mut summary, &mut report)?;
        report.groups.push(summary);
    }
    problems.sort_by_key(|p| (p.line, p.column));
    report.problems = problems;
    Ok(report)
}

/// Reads the cells, groups the rows and resolves every row's conditions: everything
/// short of the solver.
pub(crate) fn resolve(table: &Table, options: &Options) -> Result<Resolved, TableError> {
    let layout = Layout::resolve(table, &options.columns)?;
    let mut problems = Vec::new();
    // Inputs: the condition columns, then names used by rule sentences.
    let mut inputs = when_inputs(table, &layout);
    let n_when = inputs.len();
    let (conds, bad_row) = read_conditions(table, &layout, &mut problems);
    let outs = read_outcomes(table, &layout, &mut inputs, &mut problems);
    set_decimals(&mut inputs, &conds, &outs);
    let out_decimals: Vec<usize> = (0..layout.then.len())
        .map(|k| {
            outs.iter()
                .filter_map(|r| r[k].as_ref())
                .map(|(o, _)| cell::decimals(&o.fixed).unwrap_or(0))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let given = given_ranges(options, &inputs)?;
    let (order, members) = group_rows(table, &layout);
    similar_keys(table, &layout, &order, &members, &mut problems);
    let cells = ReadCells {
        table,
        layout: &layout,
        inputs: &inputs,
        n_when,
        conds: &conds,
        outs: &outs,
        bad_row: &bad_row,
        given: &given,
        out_decimals: &out_decimals,
    };
    let mut units = Vec::new();
    for g in &order {
        cells.prepare_group(g, &members[g], &mut units, &mut problems);
    }
    Ok(Resolved {
        layout,
        inputs,
        units,
        problems,
    })
}

/// The header of column `c`, or its number when it has none.
fn header(table: &Table, c: usize) -> String {
    table
        .headers
        .get(c)
        .cloned()
        .unwrap_or_else(|| format!("column {}", c + 1))
}

/// The inputs of the condition columns, each with its meaning.
fn when_inputs(table: &Table, layout: &Layout) -> Vec<Input> {
    let mut inputs: Vec<Input> = Vec::new();
    for (c, meaning) in &layout.when {
        let name = header(table, *c);
        let smt = smt_name(&name, &inputs);
        inputs.push(Input {
            name,
            smt,
            meaning: match meaning {
                Meaning::Interval => "interval",
                Meaning::NotOver => "not-over",
                Meaning::AtLeast => "at-least",
                Meaning::Point => "point",
            }
            .into(),
            decimals: 0,
        });
    }
    inputs
}

/// The parsed condition cells, per row and condition column, and which rows have an
/// unreadable one (reported in `problems`).
#[allow(clippy::type_complexity)]
fn read_conditions(
    table: &Table,
    layout: &Layout,
    problems: &mut Vec<Problem>,
) -> (Vec<Vec<Option<Condition>>>, Vec<bool>) {
    let mut conds: Vec<Vec<Option<Condition>>> = Vec::with_capacity(table.rows.len());
    let mut bad_row = vec![false; table.rows.len()];
    for (ri, row) in table.rows.iter().enumerate() {
        let mut v = Vec::new();
        for (c, _) in &layout.when {
            let cell = &row.cells[*c];
            match cell::parse_condition(&cell.text) {
                Ok(x) => v.push(Some(x)),
                Err(e) => {
                    bad_row[ri] = true;
                    problems.push(unreadable(cell, &header(table, *c), &e));
                    v.push(None);
                }
            }
        }
        conds.push(v);
    }
    (conds, bad_row)
}

/// The parsed outcome cells, per row and outcome column (`None` for an empty or
/// unreadable one, reported in `problems`); a rule sentence's input not yet among
/// `inputs` is added to them.
fn read_outcomes(
    table: &Table,
    layout: &Layout,
    inputs: &mut Vec<Input>,
    problems: &mut Vec<Problem>,
) -> Vec<Vec<Option<ReadOutcome>>> {
    let mut outs: Vec<Vec<Option<ReadOutcome>>> = Vec::with_capacity(table.rows.len());
    for row in &table.rows {
        let mut v = Vec::new();
        for c in &layout.then {
            let cell = &row.cells[*c];
            if cell.text.trim().is_empty() {
                problems.push(Problem {
                    kind: ProblemKind::NoOutcome,
                    line: cell.line,
                    column: Some(cell.column),
                    header: Some(header(table, *c)),
                    text: None,
                    message: format!(
                        "no outcome in column `{}`; the row is left out for it",
                        header(table, *c)
                    ),
                    lines: vec![],
                });
                v.push(None);
                continue;
            }
            match cell::parse_outcome(&cell.text) {
                Ok(OutcomeCell::Plain(o)) => v.push(Some((o, None))),
                Ok(OutcomeCell::Rule {
                    input,
                    condition,
                    outcome,
                }) => {
                    let k = sentence_input(inputs, &input);
                    v.push(Some((outcome, Some((k, condition)))));
                }
                Err(e) => {
                    problems.push(unreadable(cell, &header(table, *c), &e));
                    v.push(None);
                }
            }
        }
        outs.push(v);
    }
    outs
}

/// The index of the input a rule sentence names: an input whose name is the name or
/// has it as a word, else a new input added to `inputs`.
fn sentence_input(inputs: &mut Vec<Input>, input: &str) -> usize {
    let w = words(input);
    let found = inputs.iter().position(|i| {
        let h = words(&i.name);
        h == w || h.split(' ').any(|x| x == w)
    });
    match found {
        Some(k) => k,
        None => {
            let smt = smt_name(input, inputs);
            inputs.push(Input {
                name: input.to_string(),
                smt,
                meaning: "sentence".into(),
                decimals: 0,
            });
            inputs.len() - 1
        }
    }
}

/// Sets each input's display precision: the most decimals its values are written with.
fn set_decimals(
    inputs: &mut [Input],
    conds: &[Vec<Option<Condition>>],
    outs: &[Vec<Option<ReadOutcome>>],
) {
    for (ri, row_conds) in conds.iter().enumerate() {
        for (k, c) in row_conds.iter().enumerate() {
            let d = match c {
                Some(Condition::Bare(v)) => cell::decimals(v).unwrap_or(0),
                Some(Condition::Interval(i)) => interval_decimals(i),
                None => 0,
            };
            inputs[k].decimals = inputs[k].decimals.max(d);
        }
        for o in outs[ri].iter().flatten() {
            if let Some((k, i)) = &o.1 {
                inputs[*k].decimals = inputs[*k].decimals.max(interval_decimals(i));
            }
        }
    }
}

/// The ranges given by name in the options, per input; an error names an input that
/// does not exist.
fn given_ranges(options: &Options, inputs: &[Input]) -> Result<Vec<Option<Interval>>, TableError> {
    let mut given: Vec<Option<Interval>> = vec![None; inputs.len()];
    for (name, iv) in &options.ranges {
        let w = words(name);
        let Some(k) = inputs
            .iter()
            .position(|i| words(&i.name) == w || i.smt == *name)
        else {
            return Err(TableError::BadRange {
                arg: name.clone(),
                message: format!(
                    "no input `{name}`; the inputs are {}",
                    inputs
                        .iter()
                        .map(|i| format!("`{}`", i.name))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        };
        given[k] = Some(iv.clone());
    }
    Ok(given)
}

/// The groups (rows with the same key values) in order of first appearance, and the
/// rows of each.
fn group_rows(table: &Table, layout: &Layout) -> (Vec<Group>, HashMap<Group, Vec<usize>>) {
    let mut order: Vec<Group> = Vec::new();
    let mut members: HashMap<Group, Vec<usize>> = HashMap::new();
    for (ri, row) in table.rows.iter().enumerate() {
        let g = Group(
            layout
                .keys
                .iter()
                .map(|c| (header(table, *c), row.cells[*c].text.trim().to_string()))
                .collect(),
        );
        members
            .entry(g.clone())
            .or_insert_with(|| {
                order.push(g.clone());
                Vec::new()
            })
            .push(ri);
    }
    (order, members)
}

/// Reports key values that differ only in case or blanks (they make separate groups).
fn similar_keys(
    table: &Table,
    layout: &Layout,
    order: &[Group],
    members: &HashMap<Group, Vec<usize>>,
    problems: &mut Vec<Problem>,
) {
    for (ki, c) in layout.keys.iter().enumerate() {
        let mut seen: HashMap<String, Vec<(String, u32)>> = HashMap::new();
        for g in order {
            let v = &g.0[ki].1;
            let norm = key_norm(v);
            let first = table.rows[members[g][0]].line;
            let e = seen.entry(norm).or_default();
            if !e.iter().any(|(x, _)| x == v) {
                e.push((v.clone(), first));
            }
        }
        let mut similar: Vec<&Vec<(String, u32)>> = seen.values().filter(|v| v.len() > 1).collect();
        similar.sort_by_key(|v| v[0].1);
        for v in similar {
            problems.push(Problem {
                kind: ProblemKind::SimilarKeys,
                line: v[1].1,
                column: None,
                header: Some(header(table, *c)),
                text: Some(excerpt(&v[1].0)),
                message: format!(
                    "key values {} differ only in case or punctuation; they make separate groups",
                    v.iter()
                        .map(|(x, _)| format!("`{}`", excerpt(x)))
                        .collect::<Vec<_>>()
                        .join(" and ")
                ),
                lines: v.iter().map(|(_, l)| *l).collect(),
            });
        }
    }
}

/// The cells of a table as read, with what [`resolve`] derived from them: what each
/// group's units are prepared from.
struct ReadCells<'a> {
    table: &'a Table,
    layout: &'a Layout,
    inputs: &'a [Input],
    /// How many inputs are condition columns (the first ones).
    n_when: usize,
    conds: &'a [Vec<Option<Condition>>],
    outs: &'a [Vec<Option<ReadOutcome>>],
    bad_row: &'a [bool],
    given: &'a [Option<Interval>],
    out_decimals: &'a [usize],
}

impl ReadCells<'_> {
    /// Adds the units of group `g` (with its `rows`), one per outcome column with a
    /// usable row, to `units`; a group without one is reported.
    fn prepare_group(
        &self,
        g: &Group,
        rows: &[usize],
        units: &mut Vec<Prepared>,
        problems: &mut Vec<Problem>,
    ) {
        let steps = self.step_intervals(rows);
        let first_line = self.table.rows[rows[0]].line;
        let mut any_usable = false;
        for (oc, out_col) in self.layout.then.iter().enumerate() {
            let specs = self.column_specs(rows, &steps, oc, *out_col, problems);
            if specs.is_empty() {
                continue;
            }
            any_usable = true;
            let ranges: Vec<(Interval, &'static str)> = (0..self.inputs.len())
                .map(|k| match &self.given[k] {
                    Some(r) => (r.clone(), "given"),
                    None => (hull(specs.iter().map(|s| &s.cond[k])), "rows"),
                })
                .collect();
            units.push(Prepared {
                group: g.clone(),
                outcome: header(self.table, *out_col),
                first_line,
                specs,
                ranges,
                out_decimals: self.out_decimals[oc],
            });
        }
        if !any_usable {
            problems.push(Problem {
                kind: ProblemKind::EmptyGroup,
                line: first_line,
                column: None,
                header: None,
                text: None,
                message: format!(
                    "group {g}: no row could be read, so nothing about it was checked"
                ),
                lines: rows.iter().map(|r| self.table.rows[*r].line).collect(),
            });
        }
    }

    /// For each step column (not-over, at-least), each row's interval from the
    /// group's sorted values.
    fn step_intervals(&self, rows: &[usize]) -> Vec<HashMap<usize, Interval>> {
        let mut steps: Vec<HashMap<usize, Interval>> = vec![HashMap::new(); self.n_when];
        for (k, (_, meaning)) in self.layout.when.iter().enumerate() {
            if !matches!(meaning, Meaning::NotOver | Meaning::AtLeast) {
                continue;
            }
            let mut vals: Vec<BigRational> = rows
                .iter()
                .filter_map(|ri| match &self.conds[*ri][k] {
                    Some(Condition::Bare(v)) => Some(v.clone()),
                    _ => None,
                })
                .collect();
            vals.sort();
            vals.dedup();
            for ri in rows {
                let Some(Condition::Bare(v)) = &self.conds[*ri][k] else {
                    continue;
                };
                let pos = vals.iter().position(|x| x == v).unwrap_or(0);
                let iv = if *meaning == Meaning::NotOver {
                    let lo = if pos > 0 {
                        Some(Bound::open(vals[pos - 1].clone()))
                    } else if self.given[k].is_none() && v.is_positive() {
                        Some(Bound::open(BigRational::zero()))
                    } else {
                        None
                    };
                    Interval {
                        lo,
                        hi: Some(Bound::closed(v.clone())),
                    }
                } else {
                    Interval {
                        lo: Some(Bound::closed(v.clone())),
                        hi: vals.get(pos + 1).map(|n| Bound::open(n.clone())),
                    }
                };
                steps[k].insert(*ri, iv);
            }
        }
        steps
    }

    /// The usable rows of the group for outcome column `oc` (table column `out_col`),
    /// each with its condition on every input; a percentage without a numeric input
    /// is reported and left out.
    fn column_specs(
        &self,
        rows: &[usize],
        steps: &[HashMap<usize, Interval>],
        oc: usize,
        out_col: usize,
        problems: &mut Vec<Problem>,
    ) -> Vec<Spec> {
        let mut specs = Vec::new();
        for ri in rows {
            if self.bad_row[*ri] {
                continue;
            }
            let Some((outcome, rule)) = &self.outs[*ri][oc] else {
                continue;
            };
            let mut cond = vec![Interval::all(); self.inputs.len()];
            for k in 0..self.n_when {
                cond[k] = match &self.conds[*ri][k] {
                    Some(Condition::Interval(i)) => i.clone(),
                    Some(Condition::Bare(v)) => steps[k]
                        .get(ri)
                        .cloned()
                        .unwrap_or_else(|| Interval::point(v.clone())),
                    None => Interval::all(),
                };
            }
            let mut base = if self.inputs.is_empty() {
                None
            } else {
                Some(0)
            };
            if let Some((k, i)) = rule {
                cond[*k] = cond[*k].intersect(i);
                base = Some(*k);
            }
            if !outcome.percent.is_zero() && base.is_none() {
                let cell = &self.table.rows[*ri].cells[out_col];
                problems.push(Problem {
                    kind: ProblemKind::Unreadable,
                    line: cell.line,
                    column: Some(cell.column),
                    header: Some(header(self.table, out_col)),
                    text: Some(excerpt(&cell.text)),
                    message: "a percentage, but the table has no numeric input for it to apply to; name one with --when".into(),
                    lines: vec![],
                });
                continue;
            }
            specs.push(Spec {
                line: self.table.rows[*ri].line,
                cond,
                outcome: outcome.clone(),
                base,
            });
        }
        specs
    }
}

fn interval_decimals(i: &Interval) -> usize {
    [&i.lo, &i.hi]
        .into_iter()
        .flatten()
        .map(|b| cell::decimals(&b.value).unwrap_or(0))
        .max()
        .unwrap_or(0)
}

fn unreadable(cell: &crate::model::Cell, header: &str, e: &cell::CellError) -> Problem {
    // The column of the character where reading stopped.
    Problem {
        kind: ProblemKind::Unreadable,
        line: cell.line,
        column: Some(cell.column + e.offset as u32),
        header: Some(header.to_string()),
        text: Some(excerpt(&cell.text)),
        message: format!(
            "cannot read `{}` in column `{header}`: {}; the row is left out",
            excerpt(&cell.text),
            e.message
        ),
        lines: vec![],
    }
}

/// The smallest interval holding all of them.
pub(crate) fn hull_of<'a>(it: impl Iterator<Item = &'a Interval>) -> Interval {
    hull(it)
}

/// The smallest interval holding all of them.
fn hull<'a>(it: impl Iterator<Item = &'a Interval>) -> Interval {
    let mut lo: Option<Option<Bound>> = None;
    let mut hi: Option<Option<Bound>> = None;
    for i in it {
        if i.is_empty() {
            continue;
        }
        lo = Some(match (lo, &i.lo) {
            (None, b) => b.clone(),
            (Some(None), _) | (_, None) => None,
            (Some(Some(a)), Some(b)) => Some(looser(a, b.clone(), true)),
        });
        hi = Some(match (hi, &i.hi) {
            (None, b) => b.clone(),
            (Some(None), _) | (_, None) => None,
            (Some(Some(a)), Some(b)) => Some(looser(a, b.clone(), false)),
        });
    }
    Interval {
        lo: lo.flatten(),
        hi: hi.flatten(),
    }
}

fn looser(a: Bound, b: Bound, lower: bool) -> Bound {
    if a.value == b.value {
        return Bound {
            value: a.value,
            inclusive: a.inclusive || b.inclusive,
        };
    }
    if (a.value < b.value) == lower {
        a
    } else {
        b
    }
}

/// Sort key of a lower bound: -∞ first, then by value, inclusive before exclusive.
fn lo_cmp(a: &Option<Bound>, b: &Option<Bound>) -> std::cmp::Ordering {
    match (a, b) {
        (None, None) => std::cmp::Ordering::Equal,
        (None, _) => std::cmp::Ordering::Less,
        (_, None) => std::cmp::Ordering::Greater,
        (Some(x), Some(y)) => x.value.cmp(&y.value).then(y.inclusive.cmp(&x.inclusive)),
    }
}

/// The inputs where no interval applies, within `range`, in order (1-D).
pub fn gaps_1d(range: &Interval, rows: &[Interval]) -> Vec<Interval> {
    let mut clipped: Vec<Interval> = rows
        .iter()
        .map(|r| r.intersect(range))
        .filter(|r| !r.is_empty())
        .collect();
    clipped.sort_by(|a, b| lo_cmp(&a.lo, &b.lo));
    let mut out = Vec::new();
    let mut from = range.lo.clone();
    for r in &clipped {
        if let Some(l) = &r.lo {
            let gap = Interval {
                lo: from.clone(),
                hi: Some(Bound {
                    value: l.value.clone(),
                    inclusive: !l.inclusive,
                }),
            };
            if !gap.is_empty() {
                out.push(gap);
            }
        }
        let Some(h) = &r.hi else {
            return out;
        };
        let next = Some(Bound {
            value: h.value.clone(),
            inclusive: !h.inclusive,
        });
        // The later of the two starts.
        from = match (&from, &next) {
            (None, n) => n.clone(),
            (Some(f), Some(n)) => {
                if n.value > f.value || (n.value == f.value && !n.inclusive) {
                    next.clone()
                } else {
                    Some(f.clone())
                }
            }
            (f, None) => f.clone(),
        };
    }
    let gap = Interval {
        lo: from,
        hi: range.hi.clone(),
    };
    if !gap.is_empty() {
        out.push(gap);
    }
    out
}

/// The elementary pieces of one input: the points where some bound lies and the open
/// intervals between them, within the range.
fn pieces(range: &Interval, rows: &[&Interval]) -> Vec<Interval> {
    let mut pts: Vec<BigRational> = rows
        .iter()
        .flat_map(|r| [&r.lo, &r.hi])
        .chain([&range.lo, &range.hi])
        .flatten()
        .map(|b| b.value.clone())
        .collect();
    pts.sort();
    pts.dedup();
    let mut out = Vec::new();
    let mut prev: Option<Bound> = None;
    for p in &pts {
        out.push(Interval {
            lo: prev.clone(),
            hi: Some(Bound::open(p.clone())),
        });
        out.push(Interval::point(p.clone()));
        prev = Some(Bound::open(p.clone()));
    }
    out.push(Interval { lo: prev, hi: None });
    out.into_iter()
        .map(|p| p.intersect(range))
        .filter(|p| !p.is_empty())
        .collect()
}

struct Unit<'a> {
    group: &'a Group,
    outcome: String,
    inputs: &'a [Input],
    specs: &'a [Spec],
    range: Vec<Interval>,
    out_decimals: usize,
    file: &'a str,
}

fn real(r: &BigRational) -> Term {
    Term::Real(r.clone())
}

/// The interval as a formula over `x`.
pub fn interval_term(i: &Interval, x: &Term) -> Term {
    let mut v = Vec::new();
    if let Some(p) = i.as_point() {
        return Term::app(Op::Eq, vec![x.clone(), real(p)]);
    }
    if let Some(l) = &i.lo {
        v.push(Term::app(
            if l.inclusive { Op::Le } else { Op::Lt },
            vec![real(&l.value), x.clone()],
        ));
    }
    if let Some(h) = &i.hi {
        v.push(Term::app(
            if h.inclusive { Op::Le } else { Op::Lt },
            vec![x.clone(), real(&h.value)],
        ));
    }
    Term::conjunction(v)
}

impl Unit<'_> {
    fn var(&self, k: usize) -> Term {
        Term::var(&self.inputs[k].smt, Sort::Real)
    }

    fn box_term(&self, b: &[Interval]) -> Term {
        let mut parts = Vec::new();
        for (k, i) in b.iter().enumerate() {
            match interval_term(i, &self.var(k)) {
                Term::Bool(true) => {}
                Term::App(Op::And, args) => parts.extend(args),
                t => parts.push(t),
            }
        }
        Term::conjunction(parts)
    }

    fn outcome_term(&self, s: &Spec) -> Term {
        let fixed = real(&s.outcome.fixed);
        match s.base {
            Some(k) if !s.outcome.percent.is_zero() => {
                let rate = &s.outcome.percent / BigRational::from_integer(100.into());
                Term::app(
                    Op::Add,
                    vec![Term::app(Op::Mul, vec![real(&rate), self.var(k)]), fixed],
                )
            }
            _ => fixed,
        }
    }

    fn region(&self, b: &[Interval]) -> Region {
        let parts: Vec<String> = b
            .iter()
            .enumerate()
            .filter(|(k, i)| **i != Interval::all() && (b.len() == 1 || **i != self.range[*k]))
            .map(|(k, i)| cell::interval_over(i, &self.inputs[k].name, self.inputs[k].decimals))
            .collect();
        let text = if parts.is_empty() {
            if b.is_empty() {
                "always (the table has no numeric input)".into()
            } else {
                "the whole range".into()
            }
        } else {
            parts.join(" and ")
        };
        Region {
            text,
            smt: logic::print::term(&self.box_term(b)),
            intervals: b.to_vec(),
        }
    }

    fn model(&self, p: &[BigRational]) -> Model {
        let mut m = Model::new();
        for (k, v) in p.iter().enumerate() {
            m.insert(self.inputs[k].smt.as_str().into(), Value::Real(v.clone()));
        }
        m
    }

    fn point(&self, p: &[BigRational]) -> Point {
        Point(
            p.iter()
                .enumerate()
                .map(|(k, v)| (self.inputs[k].name.clone(), cell::decimal(v, 0)))
                .collect(),
        )
    }

    fn value(&self, s: &Spec, p: &[BigRational]) -> BigRational {
        match s.base {
            Some(k) => s.outcome.at(&p[k]),
            None => s.outcome.fixed.clone(),
        }
    }

    fn holds(&self, t: &Term, p: &[BigRational]) -> Result<bool, TableError> {
        logic::eval_bool(t, &self.model(p), &logic::Context::new()).map_err(|e| {
            TableError::Inconsistent(format!("cannot evaluate `{}`: {e}", logic::print::term(t)))
        })
    }

    fn undecided(&self, report: &mut Report, question: String, reason: solver::Undecided) {
        report.undecided.push(Undecided {
            group: self.group.clone(),
            outcome: self.outcome.clone(),
            question,
            reason,
        });
    }

    fn wrong(&self, what: String) -> TableError {
        TableError::Inconsistent(format!(
            "{}: group {}, column `{}`: {what}; this is a bug in vera or in the solver",
            self.file, self.group, self.outcome
        ))
    }

    /// Asks whether `assumptions` hold together; `Ok(None)` when the solver had no answer
    /// (recorded as undecided).
    fn ask(
        &self,
        s: &mut Solver,
        assumptions: &[Term],
        question: &str,
        report: &mut Report,
    ) -> Result<Option<bool>, TableError> {
        match s.check_assuming(assumptions)? {
            Answer::Sat(_) => Ok(Some(true)),
            Answer::Unsat(_) => Ok(Some(false)),
            Answer::Unknown(r) => {
                self.undecided(report, question.to_string(), r.into());
                Ok(None)
            }
        }
    }

    fn run(
        &self,
        s: &mut Solver,
        summary: &mut Summary,
        report: &mut Report,
    ) -> Result<(), TableError> {
        s.push()?;
        let r = self.run_in(s, summary, report);
        s.pop()?;
        r
    }

    /// Declares the inputs and asserts their range on `s`, then looks for the gaps and
    /// for the pairs of rows that apply together, adding what it finds to `summary` and
    /// `report`.
    fn run_in(
        &self,
        s: &mut Solver,
        summary: &mut Summary,
        report: &mut Report,
    ) -> Result<(), TableError> {
        let n = self.inputs.len();
        for k in 0..n {
            s.declare_const(&self.inputs[k].smt, Sort::Real)?;
        }
        let range = self.box_term(&self.range);
        s.assert(&range)?;
        let conds: Vec<Term> = self
            .specs
            .iter()
            .map(|sp| self.box_term(&sp.cond))
            .collect();
        // "No row applies" is named once, so that the many questions about it do not
        // send the whole disjunction each time. (`.` cannot occur in an input's name.)
        s.declare_const(NONE, Sort::Bool)?;
        s.assert(&Term::app(
            Op::Eq,
            vec![
                Term::var(NONE, Sort::Bool),
                Term::not(Term::disjunction(conds.clone())),
            ],
        ))?;
        let none = Term::var(NONE, Sort::Bool);
        let gaps = self.find_gaps(s, summary, report, &conds)?;
        self.check_gaps_exact(s, summary, report, &gaps, none)?;

        // Pairs of rows that apply together.
        for (a, b, region) in self.pairs() {
            if summary.conflicts >= MAX_FINDINGS || summary.overlaps >= MAX_FINDINGS {
                summary.truncated = true;
                break;
            }
            self.check_pair(s, summary, report, (&conds[a], &conds[b]), (a, b), &region)?;
        }
        Ok(())
    }

    /// The gaps (regions in range where no row applies), each checked by evaluation
    /// and by the solver and reported, at most [`MAX_FINDINGS`] (then `summary` says
    /// the list was cut).
    fn find_gaps(
        &self,
        s: &mut Solver,
        summary: &mut Summary,
        report: &mut Report,
        conds: &[Term],
    ) -> Result<Vec<Vec<Interval>>, TableError> {
        let n = self.inputs.len();
        let any = Term::not(Term::var(NONE, Sort::Bool));
        // The same for vera's evaluator, which re-checks every witness.
        let any_row = Term::disjunction(conds.to_vec());
        let gaps: Vec<Vec<Interval>> = if n == 0 {
            Vec::new()
        } else if n == 1 {
            let rows: Vec<Interval> = self.specs.iter().map(|s| s.cond[0].clone()).collect();
            gaps_1d(&self.range[0], &rows)
                .into_iter()
                .map(|g| vec![g])
                .collect()
        } else {
            self.gaps_nd()?
        };
        for g in &gaps {
            if summary.gaps >= MAX_FINDINGS {
                summary.truncated = true;
                break;
            }
            let p: Vec<BigRational> = g
                .iter()
                .map(|i| cell::simplest(i).ok_or_else(|| self.wrong("an empty gap".into())))
                .collect::<Result<_, _>>()?;
            if self.holds(&any_row, &p)? {
                return Err(self.wrong(format!(
                    "a row applies at gap witness {:?}",
                    self.point(&p).0
                )));
            }
            // No row applies anywhere in the gap.
            let question = format!("does some row apply in {}", self.region(g).text);
            match self.ask(s, &[self.box_term(g), any.clone()], &question, report)? {
                Some(false) => {}
                Some(true) => {
                    return Err(
                        self.wrong(format!("a row applies inside gap {}", self.region(g).text))
                    )
                }
                None => continue,
            }
            let rows = if n == 1 {
                self.bordering(&g[0])
            } else {
                Vec::new()
            };
            summary.gaps += 1;
            report.findings.push(Finding {
                kind: Kind::Gap,
                group: self.group.clone(),
                outcome: self.outcome.clone(),
                region: self.region(g),
                witness: self.point(&p),
                rows,
                values: vec![],
            });
        }
        Ok(gaps)
    }

    /// Asks whether the gaps found are all the inputs in range where no row applies
    /// (`none`), and records in `summary` when they are. Not asked when the list was
    /// cut.
    fn check_gaps_exact(
        &self,
        s: &mut Solver,
        summary: &mut Summary,
        report: &mut Report,
        gaps: &[Vec<Interval>],
        none: Term,
    ) -> Result<(), TableError> {
        if self.inputs.is_empty() {
            summary.gaps_exact = true;
        } else if !summary.truncated {
            let in_gaps = Term::disjunction(gaps.iter().map(|g| self.box_term(g)).collect());
            let missed = self.ask(
                s,
                &[none, Term::not(in_gaps)],
                "are there inputs in range where no row applies outside the gaps found",
                report,
            )?;
            if missed == Some(true) {
                return Err(
                    self.wrong("the gaps found are not all the inputs where no row applies".into())
                );
            }
            summary.gaps_exact = missed == Some(false) && summary.gaps == gaps.len();
        }
        Ok(())
    }

    /// Checks rows `a` and `b` (with conditions `conds`), which apply together in
    /// `region`: whether their outcomes differ (a conflict) or not (an overlap), with a
    /// witness checked by evaluation, reported as a finding.
    fn check_pair(
        &self,
        s: &mut Solver,
        summary: &mut Summary,
        report: &mut Report,
        conds: (&Term, &Term),
        (a, b): (usize, usize),
        region: &[Interval],
    ) -> Result<(), TableError> {
        let (sa, sb) = (&self.specs[a], &self.specs[b]);
        let (oa, ob) = (self.outcome_term(sa), self.outcome_term(sb));
        let differ = Term::not(Term::app(Op::Eq, vec![oa, ob]));
        let both = Term::conjunction(vec![conds.0.clone(), conds.1.clone()]);
        let question = format!(
            "do rows {} and {} give different outcomes",
            sa.line, sb.line
        );
        let Some(conflict) = self.ask(s, &[both.clone(), differ.clone()], &question, report)?
        else {
            return Ok(());
        };
        let witness = match self.simple_witness(region, &both, (sa, sb), conflict)? {
            Some(p) => Some(p),
            // No simple point shows it (the outcomes are equal at every one tried):
            // the solver's own point, checked the same way.
            None => self.model_point(s, &[both.clone(), differ.clone()], conflict)?,
        };
        let Some(p) = witness.filter(|p| {
            self.holds(&both, p).unwrap_or(false)
                && (self.value(sa, p) != self.value(sb, p)) == conflict
        }) else {
            self.undecided(
                report,
                format!("a witness for rows {} and {}", sa.line, sb.line),
                solver::Undecided::other("no point of the region that vera could check was found"),
            );
            return Ok(());
        };
        let kind = if conflict {
            Kind::Conflict
        } else {
            Kind::Overlap
        };
        if conflict {
            summary.conflicts += 1;
        } else {
            summary.overlaps += 1;
        }
        let value = |sp: &Spec| RowValue {
            row: sp.line,
            value: cell::decimal(&self.value(sp, &p), self.out_decimals),
        };
        report.findings.push(Finding {
            kind,
            group: self.group.clone(),
            outcome: self.outcome.clone(),
            region: self.region(region),
            witness: self.point(&p),
            rows: vec![sa.line, sb.line],
            values: vec![value(sa), value(sb)],
        });
        Ok(())
    }

    /// A witness at human numbers for rows `sa` and `sb` in `region`: the first simple
    /// point of the region where both apply (`both`) and their outcomes differ exactly
    /// when `conflict`, checked by evaluation.
    fn simple_witness(
        &self,
        region: &[Interval],
        both: &Term,
        (sa, sb): (&Spec, &Spec),
        conflict: bool,
    ) -> Result<Option<Vec<BigRational>>, TableError> {
        let mut tries: Vec<Vec<BigRational>> = Vec::new();
        let simple: Vec<BigRational> = region
            .iter()
            .map(|i| cell::simplest(i).unwrap_or_default())
            .collect();
        tries.push(simple.clone());
        for k in 0..self.inputs.len() {
            for c in cell::candidates(&region[k]) {
                let mut p = simple.clone();
                p[k] = c;
                if !tries.contains(&p) {
                    tries.push(p);
                }
            }
        }
        for p in tries {
            if !self.holds(both, &p)? {
                continue;
            }
            let differs = self.value(sa, &p) != self.value(sb, &p);
            if differs == conflict {
                return Ok(Some(p));
            }
        }
        Ok(None)
    }

    /// The solver's point for `assumptions`, when it has one (a conflict's).
    fn model_point(
        &self,
        s: &mut Solver,
        assumptions: &[Term],
        want: bool,
    ) -> Result<Option<Vec<BigRational>>, TableError> {
        if !want {
            return Ok(None);
        }
        let Answer::Sat(m) = s.check_assuming(assumptions)? else {
            return Ok(None);
        };
        Ok(self
            .inputs
            .iter()
            .map(|i| match m.get(&i.smt) {
                Some(Value::Real(r)) => Some(r.clone()),
                Some(Value::Int(n)) => Some(BigRational::from_integer(n.clone())),
                _ => Some(BigRational::zero()),
            })
            .collect())
    }

    /// Rows whose bounds touch a gap's ends (1-D).
    fn bordering(&self, g: &Interval) -> Vec<u32> {
        let mut out = Vec::new();
        for sp in self.specs {
            let c = &sp.cond[0];
            let below = matches!((&c.hi, &g.lo), (Some(h), Some(l)) if h.value == l.value);
            let above = matches!((&c.lo, &g.hi), (Some(l), Some(h)) if l.value == h.value);
            if (below || above) && !out.contains(&sp.line) {
                out.push(sp.line);
            }
        }
        out.sort();
        out
    }

    /// Pairs of rows whose conditions meet within the range, with the meeting box.
    fn pairs(&self) -> Vec<(usize, usize, Vec<Interval>)> {
        let clip = |sp: &Spec| -> Vec<Interval> {
            sp.cond
                .iter()
                .zip(&self.range)
                .map(|(c, r)| c.intersect(r))
                .collect()
        };
        let boxes: Vec<Vec<Interval>> = self.specs.iter().map(clip).collect();
        let mut idx: Vec<usize> = (0..boxes.len())
            .filter(|i| boxes[*i].iter().all(|x| !x.is_empty()))
            .collect();
        if let Some(first) = boxes.first() {
            if !first.is_empty() {
                idx.sort_by(|a, b| lo_cmp(&boxes[*a][0].lo, &boxes[*b][0].lo).then(a.cmp(b)));
            }
        }
        let mut out = Vec::new();
        for (x, &a) in idx.iter().enumerate() {
            for &b in &idx[x + 1..] {
                if !self.inputs.is_empty() {
                    // Sorted by the lower end of the first input: once b starts above
                    // a's upper end, no later row meets a.
                    let between = Interval {
                        lo: boxes[b][0].lo.clone(),
                        hi: boxes[a][0].hi.clone(),
                    };
                    if between.is_empty() {
                        break;
                    }
                }
                let meet: Vec<Interval> = boxes[a]
                    .iter()
                    .zip(&boxes[b])
                    .map(|(p, q)| p.intersect(q))
                    .collect();
                if meet.iter().all(|m| !m.is_empty()) {
                    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
                    out.push((lo, hi, meet));
                }
            }
        }
        out.sort_by_key(|(a, b, _)| (self.specs[*a].line, self.specs[*b].line));
        out
    }

    /// Gaps of a group with several inputs: uncovered cells of the grid of elementary
    /// pieces, merged along the last input.
    fn gaps_nd(&self) -> Result<Vec<Vec<Interval>>, TableError> {
        let n = self.inputs.len();
        let per: Vec<Vec<Interval>> = (0..n)
            .map(|k| {
                let rows: Vec<&Interval> = self.specs.iter().map(|s| &s.cond[k]).collect();
                pieces(&self.range[k], &rows)
            })
            .collect();
        let cells: u128 = per.iter().map(|p| p.len() as u128).product();
        if cells > MAX_CELLS as u128 {
            return Err(TableError::TooManyCells {
                file: self.file.to_string(),
                group: self.group.to_string(),
                cells,
                max: MAX_CELLS,
            });
        }
        if per.iter().any(|p| p.is_empty()) {
            return Ok(Vec::new());
        }
        let mut out: Vec<Vec<Interval>> = Vec::new();
        let mut idx = vec![0usize; n];
        loop {
            let cell: Vec<Interval> = idx
                .iter()
                .enumerate()
                .map(|(k, i)| per[k][*i].clone())
                .collect();
            let covered = self
                .specs
                .iter()
                .any(|s| cell.iter().zip(&s.cond).all(|(p, c)| p.within(c)));
            if !covered {
                // Merge with the previous gap when it differs only in the last input and
                // the two pieces are adjacent.
                let merged = match out.last_mut() {
                    Some(prev)
                        if prev[..n - 1] == cell[..n - 1]
                            && idx[n - 1] > 0
                            && prev[n - 1].hi == {
                                let p = &per[n - 1][idx[n - 1] - 1];
                                p.hi.clone()
                            } =>
                    {
                        prev[n - 1].hi = cell[n - 1].hi.clone();
                        true
                    }
                    _ => false,
                };
                if !merged {
                    out.push(cell);
                }
            }
            // Next index (last input fastest).
            let mut k = n;
            loop {
                if k == 0 {
                    return Ok(merge_boxes(out));
                }
                k -= 1;
                idx[k] += 1;
                if idx[k] < per[k].len() {
                    break;
                }
                idx[k] = 0;
            }
        }
    }
}

/// The union of two intervals that touch without overlapping, e.g. `(10, 15)` and
/// `[15, 20]`.
fn join(a: &Interval, b: &Interval) -> Option<Interval> {
    let touch = |x: &Interval, y: &Interval| match (&x.hi, &y.lo) {
        (Some(h), Some(l)) => h.value == l.value && h.inclusive != l.inclusive,
        _ => false,
    };
    if touch(a, b) {
        Some(Interval {
            lo: a.lo.clone(),
            hi: b.hi.clone(),
        })
    } else if touch(b, a) {
        Some(Interval {
            lo: b.lo.clone(),
            hi: a.hi.clone(),
        })
    } else {
        None
    }
}

/// Merges boxes that agree on every input but one and touch on that one, until none do.
fn merge_boxes(mut v: Vec<Vec<Interval>>) -> Vec<Vec<Interval>> {
    loop {
        let mut merged = None;
        'search: for a in 0..v.len() {
            for b in a + 1..v.len() {
                let differ: Vec<usize> = (0..v[a].len()).filter(|k| v[a][*k] != v[b][*k]).collect();
                if let [k] = differ[..] {
                    if let Some(u) = join(&v[a][k], &v[b][k]) {
                        merged = Some((a, b, k, u));
                        break 'search;
                    }
                }
            }
        }
        let Some((a, b, k, u)) = merged else {
            return v;
        };
        v[a][k] = u;
        v.remove(b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iv(s: &str) -> Interval {
        match cell::parse_condition(s).unwrap() {
            Condition::Interval(i) => i,
            Condition::Bare(v) => Interval::point(v),
        }
    }

    #[test]
    fn gaps_of_the_issue_example() {
        let rows = [
            "0.01 - 49.99",
            "50.00 - 500.00",
            "500.01 - 5000.00",
            "> 5000.01",
        ]
        .map(iv);
        let g: Vec<String> = gaps_1d(&iv(">= 0"), &rows)
            .iter()
            .map(|g| cell::interval_over(g, "a", 2))
            .collect();
        assert_eq!(
            g,
            [
                "0.00 <= a < 0.01",
                "49.99 < a < 50.00",
                "500.00 < a < 500.01",
                "5000.00 < a <= 5000.01"
            ]
        );
        assert!(gaps_1d(&iv("any"), &[iv("< 5"), iv(">= 5")]).is_empty());
        assert_eq!(gaps_1d(&iv("0 - 10"), &[iv("2 - 3"), iv("1 - 2")]).len(), 2);
    }
}
