//! A table as an SMT-LIB formalization, so that it can be one side of a consistency
//! check against an implementation (the USPS rate tables against their BL programs).
//!
//! # Encoding
//!
//! The encoding is flat, whatever the table's size: one guarded clause per cell,
//!
//! ```text
//! (assert (=> (and (< 1 w) (<= w 2)) (= fee 4.96)))                ; line 3
//! (assert (=> (and (< 1 w) (<= w 2) (= zone 3)) (= fee 37.25)))     ; with --by
//! ```
//!
//! and one assertion for the table's domain: the inputs where some row applies
//! (`(or g1 g2 ...)`, or a product of the row guards and the selector's values when
//! every column has every row). Nothing is nested deeper than a row's guard, so a
//! table of any number of rows reads and prints without a nesting limit, and the
//! solver sees no `ite` chain. Two rows that both apply with different outcomes make
//! the formalization non-functional there, which the consistency check reports; inputs
//! where no row applies are outside the domain (the check reports them as inputs with
//! no output when the input ranges allow them).

use crate::analyze::{self, Input, Resolved};
use crate::cell::{self, Interval};
use crate::error::TableError;
use crate::model::Table;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Zero};
use std::fmt::Write as _;

/// Which outcome column(s) the formalization uses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum OutcomeChoice {
    /// The table's only outcome column (an error when it has several).
    #[default]
    Only,
    /// The outcome column with this header.
    Column(String),
    /// Every outcome column, selected by this input: a column whose header ends in a
    /// number (`Zone 3`) applies when the input equals that number.
    By(String),
}

/// What to formalize: one group, one or several outcome columns, and the names.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// The group, as `key column = value` pairs (every key column; empty for a table
    /// without keys).
    pub group: Vec<(String, String)>,
    /// The outcome column(s).
    pub outcome: OutcomeChoice,
    /// SMT-LIB names for inputs, by the input's name (a condition column's header or
    /// the name a rule sentence uses); others get a name made from their header.
    pub names: Vec<(String, String)>,
    /// The output constant's name (default: made from the outcome column's header, or
    /// `fee` with [`OutcomeChoice::By`]).
    pub output: Option<String>,
    /// Written before every name in [`Formalization::hull`] (`nl.` for a consistency
    /// check's documentation side).
    pub hull_prefix: String,
}

/// A table written as SMT-LIB.
#[derive(Debug, Clone)]
pub struct Formalization {
    /// The SMT-LIB text: declarations, one guarded clause per cell, the domain.
    pub text: String,
    /// The output constant.
    pub output: String,
    /// The inputs: (name in the table, SMT-LIB constant).
    pub inputs: Vec<(String, String)>,
    /// The cells written as clauses.
    pub cells: usize,
    /// The smallest box around the rows (each input between its rows' least and
    /// greatest values; the selector among the columns' numbers), one SMT-LIB term per
    /// input over its name with [`Selection::hull_prefix`] before it, for a consistency
    /// check to compare only where the table speaks. Gaps inside the box stay visible.
    pub hull: Vec<(String, String)>,
    /// Cells that could not be read and were left out, with row and column.
    pub problems: Vec<analyze::Problem>,
}

/// Writes one group of a table as an SMT-LIB formalization (see the module docs).
pub fn formalize(
    table: &Table,
    options: &analyze::Options,
    sel: &Selection,
) -> Result<Formalization, TableError> {
    let Resolved {
        layout,
        mut inputs,
        units,
        problems,
    } = analyze::resolve(table, options)?;
    let keys: Vec<String> = layout
        .keys
        .iter()
        .map(|c| table.headers[*c].clone())
        .collect();
    let group = choose_group(table, &units, &keys, sel)?;
    let units: Vec<&analyze::Prepared> = units.iter().filter(|u| u.group == group).collect();
    let chosen_units = choose_columns(table, &units, sel)?;
    name_inputs(table, &mut inputs, sel)?;
    let (output, selector) = output_and_selector(table, &inputs, &chosen_units, sel)?;
    let columns = Chosen {
        units: &chosen_units,
        inputs: &inputs,
        selector: selector.as_deref(),
        output: &output,
    };

    // The text.
    let mut text = String::new();
    let outcome_desc = match &sel.outcome {
        OutcomeChoice::By(n) => format!("outcome columns selected by `{n}`"),
        _ => format!("outcome column `{}`", chosen_units[0].0.outcome),
    };
    let _ = writeln!(
        text,
        "; {} as a formalization: group {group}, {outcome_desc}.",
        table.file
    );
    let _ = writeln!(
        text,
        "; One guarded clause per cell (its line in the table after it), then the domain:"
    );
    let _ = writeln!(text, "; the inputs where some row applies.");
    columns.declare(&mut text);
    let cells = columns.clauses(&mut text);
    let _ = writeln!(text, "; the domain");
    let _ = writeln!(text, "(assert {})", columns.domain());
    let hull = columns.hull(&sel.hull_prefix);
    let names = inputs
        .iter()
        .map(|i: &Input| (i.name.clone(), i.smt.clone()))
        .chain(selector.iter().map(|s| (s.clone(), s.clone())))
        .collect();
    Ok(Formalization {
        text,
        output,
        inputs: names,
        cells,
        hull,
        problems,
    })
}

/// An error in the selection of what to formalize in `table`.
fn bad(table: &Table, message: String) -> TableError {
    TableError::Selection {
        file: table.file.clone(),
        message,
    }
}

/// The group that the selection names (by its `key = value` pairs), among the groups
/// of `units` (with the table's key columns `keys`).
fn choose_group(
    table: &Table,
    units: &[analyze::Prepared],
    keys: &[String],
    sel: &Selection,
) -> Result<analyze::Group, TableError> {
    let mut groups: Vec<&analyze::Group> = Vec::new();
    for u in units {
        if !groups.contains(&&u.group) {
            groups.push(&u.group);
        }
    }
    let listing = |gs: &[&analyze::Group]| {
        let mut v: Vec<String> = gs.iter().take(8).map(|g| format!("`{g}`")).collect();
        if gs.len() > 8 {
            v.push(format!("and {} more", gs.len() - 8));
        }
        v.join(", ")
    };
    for (k, _) in &sel.group {
        if !keys.iter().any(|h| h.eq_ignore_ascii_case(k)) {
            return Err(bad(
                table,
                format!(
                    "no key column `{k}`; the key columns are {}",
                    if keys.is_empty() {
                        "none".to_string()
                    } else {
                        keys.iter()
                            .map(|h| format!("`{h}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                ),
            ));
        }
    }
    let chosen: Vec<&analyze::Group> = groups
        .iter()
        .copied()
        .filter(|g| {
            sel.group.iter().all(|(k, v)| {
                g.0.iter()
                    .any(|(gk, gv)| gk.eq_ignore_ascii_case(k) && gv.trim() == v.trim())
            })
        })
        .collect();
    match chosen.as_slice() {
        [g] => Ok((*g).clone()),
        [] if groups.is_empty() => Err(bad(
            table,
            "no row could be read, so there is nothing to formalize".into(),
        )),
        [] => Err(bad(
            table,
            format!(
                "no group matches {}; the groups are {}",
                sel.group
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(","),
                listing(&groups)
            ),
        )),
        many => Err(bad(
            table,
            format!(
                "{} groups match; choose one with --group KEY=VALUE,...: {}",
                many.len(),
                listing(many)
            ),
        )),
    }
}

/// The outcome column(s) of the group's `units` that the selection names, each with
/// the selector value that picks it (with [`OutcomeChoice::By`]).
fn choose_columns<'u>(
    table: &Table,
    units: &[&'u analyze::Prepared],
    sel: &Selection,
) -> Result<Vec<(&'u analyze::Prepared, Option<BigRational>)>, TableError> {
    let headers: Vec<&str> = units.iter().map(|u| u.outcome.as_str()).collect();
    let mut chosen_units: Vec<(&analyze::Prepared, Option<BigRational>)> = Vec::new();
    match &sel.outcome {
        OutcomeChoice::Only => match units {
            [u] => chosen_units.push((u, None)),
            _ => {
                return Err(bad(table, format!(
                    "the table has {} outcome columns ({}); name one with --then, or select them by an input with --by",
                    units.len(),
                    headers.iter().map(|h| format!("`{h}`")).collect::<Vec<_>>().join(", ")
                )))
            }
        },
        OutcomeChoice::Column(c) => match units.iter().find(|u| u.outcome.eq_ignore_ascii_case(c)) {
            Some(u) => chosen_units.push((u, None)),
            None => {
                return Err(bad(table, format!(
                    "no readable outcome column `{c}`; the outcome columns are {}",
                    headers.iter().map(|h| format!("`{h}`")).collect::<Vec<_>>().join(", ")
                )))
            }
        },
        OutcomeChoice::By(_) => {
            for u in units {
                let Some(v) = trailing_number(&u.outcome) else {
                    return Err(bad(table, format!(
                        "outcome column `{}` has no number at the end of its header, so --by cannot tell which value selects it",
                        u.outcome
                    )));
                };
                if let Some((other, _)) = chosen_units.iter().find(|(_, x)| x.as_ref() == Some(&v)) {
                    return Err(bad(table, format!(
                        "outcome columns `{}` and `{}` end in the same number",
                        other.outcome, u.outcome
                    )));
                }
                chosen_units.push((u, Some(v)));
            }
        }
    }
    Ok(chosen_units)
}

/// Gives the inputs the SMT-LIB names the selection asks for.
fn name_inputs(table: &Table, inputs: &mut [Input], sel: &Selection) -> Result<(), TableError> {
    for (from, to) in &sel.names {
        let w = analyze::words(from);
        let Some(i) = inputs
            .iter()
            .position(|i| analyze::words(&i.name) == w || i.smt == *from)
        else {
            return Err(bad(
                table,
                format!(
                    "no input `{from}` to name; the inputs are {}",
                    describe_inputs(inputs)
                ),
            ));
        };
        check_symbol(to).map_err(|m| bad(table, format!("`{to}`: {m}")))?;
        inputs[i].smt = to.clone();
    }
    Ok(())
}

/// The output constant's name and the selector's (with [`OutcomeChoice::By`]), both
/// valid symbols, and no name used twice among them and the inputs.
fn output_and_selector(
    table: &Table,
    inputs: &[Input],
    chosen_units: &[(&analyze::Prepared, Option<BigRational>)],
    sel: &Selection,
) -> Result<(String, Option<String>), TableError> {
    let output = match (&sel.output, &sel.outcome) {
        (Some(o), _) => o.clone(),
        (None, OutcomeChoice::By(_)) => "fee".to_string(),
        (None, _) => analyze::smt_name(&chosen_units[0].0.outcome, inputs),
    };
    check_symbol(&output).map_err(|m| bad(table, format!("output `{output}`: {m}")))?;
    let selector = match &sel.outcome {
        OutcomeChoice::By(n) => {
            check_symbol(n).map_err(|m| bad(table, format!("--by `{n}`: {m}")))?;
            Some(n.clone())
        }
        _ => None,
    };
    let mut all_names: Vec<&str> = inputs.iter().map(|i| i.smt.as_str()).collect();
    all_names.push(&output);
    if let Some(s) = &selector {
        all_names.push(s);
    }
    for (k, a) in all_names.iter().enumerate() {
        if all_names[..k].contains(a) {
            return Err(bad(
                table,
                format!("the name `{a}` is used twice (inputs, output, --by)"),
            ));
        }
    }
    Ok((output, selector))
}

/// The chosen outcome columns (each with its selector value), the inputs, the
/// selector and the output: what the text, the domain and the hull are written from.
struct Chosen<'a> {
    units: &'a [(&'a analyze::Prepared, Option<BigRational>)],
    inputs: &'a [Input],
    selector: Option<&'a str>,
    output: &'a str,
}

impl Chosen<'_> {
    /// Writes the declarations of the inputs, the selector and the output.
    fn declare(&self, text: &mut String) {
        for i in self.inputs {
            let _ = writeln!(
                text,
                "(declare-const {} Real) ; {}",
                i.smt,
                one_line(&i.name)
            );
        }
        if let Some(s) = self.selector {
            let _ = writeln!(
                text,
                "(declare-const {s} Real) ; selects the outcome column"
            );
        }
        let _ = writeln!(text, "(declare-const {} Real)", self.output);
    }

    /// Writes one guarded clause per cell of the chosen columns; the number of cells.
    fn clauses(&self, text: &mut String) -> usize {
        let output = self.output;
        let mut cells = 0usize;
        for (u, sv) in self.units {
            if let Some(v) = sv {
                let _ = writeln!(
                    text,
                    "; column `{}`: {} = {}",
                    one_line(&u.outcome),
                    self.selector.unwrap_or_default(),
                    number(v)
                );
            }
            for spec in &u.specs {
                let mut guard = guard_parts(&spec.cond, self.inputs);
                if let (Some(v), Some(s)) = (sv, self.selector) {
                    guard.push(format!("(= {s} {})", number(v)));
                }
                let value = outcome_term(
                    &spec.outcome,
                    spec.base.map(|b| self.inputs[b].smt.as_str()),
                );
                let _ = writeln!(
                    text,
                    "(assert (=> {} (= {output} {value}))) ; line {}",
                    conj(guard),
                    spec.line
                );
                cells += 1;
            }
        }
        cells
    }

    /// The row guards of a column.
    fn boxes(&self, u: &analyze::Prepared) -> Vec<String> {
        u.specs
            .iter()
            .map(|s| conj(guard_parts(&s.cond, self.inputs)))
            .collect()
    }

    /// The selector equal to the value of each chosen column, with `prefix` before
    /// its name.
    fn selector_values(&self, prefix: &str, s: &str) -> Vec<String> {
        self.units
            .iter()
            .filter_map(|(_, v)| v.as_ref())
            .map(|v| format!("(= {prefix}{s} {})", number(v)))
            .collect()
    }

    /// The domain: the inputs where some row applies (a product of the row guards and
    /// the selector's values when every column has the same rows).
    fn domain(&self) -> String {
        let first = self.boxes(self.units[0].0);
        let same = self.units.iter().all(|(u, _)| self.boxes(u) == first);
        match (self.selector, same) {
            (None, _) => disj(first),
            (Some(s), true) => conj(vec![disj(first), disj(self.selector_values("", s))]),
            (Some(s), false) => disj(
                self.units
                    .iter()
                    .flat_map(|(u, v)| {
                        let v = v.clone().unwrap_or_else(BigRational::zero);
                        self.boxes(u)
                            .into_iter()
                            .map(move |b| format!("(and (= {s} {}) {b})", number(&v)))
                    })
                    .collect(),
            ),
        }
    }

    /// The hull, per input (and the selector), with `prefix` before every name.
    fn hull(&self, prefix: &str) -> Vec<(String, String)> {
        let mut hull = Vec::new();
        for (k, i) in self.inputs.iter().enumerate() {
            let h = analyze::hull_of(
                self.units
                    .iter()
                    .flat_map(|(u, _)| u.specs.iter().map(move |s| &s.cond[k])),
            );
            let mut named = i.clone();
            named.smt = format!("{prefix}{}", i.smt);
            let parts = guard_parts(std::slice::from_ref(&h), std::slice::from_ref(&named));
            if !parts.is_empty() {
                hull.push((i.smt.clone(), conj(parts)));
            }
        }
        if let Some(s) = self.selector {
            hull.push((s.to_string(), disj(self.selector_values(prefix, s))));
        }
        hull
    }
}

fn describe_inputs(inputs: &[Input]) -> String {
    if inputs.is_empty() {
        return "none".into();
    }
    inputs
        .iter()
        .map(|i| format!("`{}` (`{}`)", i.name, i.smt))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A header or name on one line (for a comment).
fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// A simple SMT-LIB symbol: letters, digits and `_ . - ~ ! @ $ % ^ & * + < > = ? /`,
/// not starting with a digit.
fn check_symbol(s: &str) -> Result<(), String> {
    let ok_char = |c: char| c.is_ascii_alphanumeric() || "_.-~!@$%^&*+<>=?/".contains(c);
    if s.is_empty() {
        return Err("an empty name".into());
    }
    if s.starts_with(|c: char| c.is_ascii_digit()) || !s.chars().all(ok_char) {
        return Err(
            "not a plain SMT-LIB name (letters, digits and _ only, not starting with a digit)"
                .into(),
        );
    }
    Ok(())
}

/// The number at the end of a header (`Zone 3` → 3, `Zone 1.5` → 1.5).
fn trailing_number(h: &str) -> Option<BigRational> {
    let t = h.trim_end();
    let start = t
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_ascii_digit() || *c == '.')
        .last()
        .map(|(i, _)| i)?;
    let digits = t[start..].trim_start_matches('.');
    if digits.is_empty() || digits.ends_with('.') {
        return None;
    }
    match cell::parse_condition(digits) {
        Ok(cell::Condition::Bare(v)) => Some(v),
        _ => None,
    }
}

/// A rational as an SMT-LIB term (`(- 3.5)`, `(/ 1 3)`).
fn number(r: &BigRational) -> String {
    let neg = r < &BigRational::zero();
    let a = if neg { -r.clone() } else { r.clone() };
    let body = match cell::decimals(&a) {
        Some(d) => cell::decimal(&a, d.max(1)),
        None => format!("(/ {}.0 {}.0)", a.numer(), a.denom()),
    };
    if neg {
        format!("(- {body})")
    } else {
        body
    }
}

fn guard_parts(cond: &[Interval], inputs: &[Input]) -> Vec<String> {
    let mut v = Vec::new();
    for (k, i) in cond.iter().enumerate() {
        let x = &inputs[k].smt;
        if let Some(p) = i.as_point() {
            v.push(format!("(= {x} {})", number(p)));
            continue;
        }
        if let Some(l) = &i.lo {
            let op = if l.inclusive { "<=" } else { "<" };
            v.push(format!("({op} {} {x})", number(&l.value)));
        }
        if let Some(h) = &i.hi {
            let op = if h.inclusive { "<=" } else { "<" };
            v.push(format!("({op} {x} {})", number(&h.value)));
        }
    }
    v
}

fn conj(mut v: Vec<String>) -> String {
    match v.len() {
        0 => "true".into(),
        1 => v.pop().unwrap_or_default(),
        _ => format!("(and {})", v.join(" ")),
    }
}

fn disj(mut v: Vec<String>) -> String {
    match v.len() {
        0 => "false".into(),
        1 => v.pop().unwrap_or_default(),
        _ => format!("(or {})", v.join(" ")),
    }
}

fn outcome_term(o: &cell::Outcome, base: Option<&str>) -> String {
    let hundred = BigRational::from_integer(BigInt::from(100));
    let mut parts = Vec::new();
    if !o.percent.is_zero() {
        if let Some(b) = base {
            let f = &o.percent / &hundred;
            parts.push(if f.is_one() {
                b.to_string()
            } else {
                format!("(* {} {b})", number(&f))
            });
        }
    }
    if !o.fixed.is_zero() || parts.is_empty() {
        parts.push(number(&o.fixed));
    }
    if parts.len() == 1 {
        parts.pop().unwrap_or_default()
    } else {
        format!("(+ {})", parts.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailing_numbers() {
        let n = |s: &str| trailing_number(s).map(|r| number(&r));
        assert_eq!(n("Zone 3").as_deref(), Some("3.0"));
        assert_eq!(n("Zone 1.5").as_deref(), Some("1.5"));
        assert_eq!(n("Zones 1&2").as_deref(), Some("2.0"));
        assert_eq!(n("Zone"), None);
        assert_eq!(n("Zone 3."), None);
    }

    #[test]
    fn numbers_are_smt_terms() {
        let r = |a: i64, b: i64| BigRational::new(a.into(), b.into());
        assert_eq!(number(&r(-7, 2)), "(- 3.5)");
        assert_eq!(number(&r(1, 3)), "(/ 1.0 3.0)");
        assert_eq!(number(&r(449, 100)), "4.49");
    }
}
