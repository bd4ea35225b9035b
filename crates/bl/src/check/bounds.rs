//! The SIRNA bounds format: a JSON array of mappings (Φ) and constraints (Ψ).
//!
//! ```json
//! [ {"type": "outputs", "variables": ["fee_bl", "FinalTaxes"]},
//!   {"type": "equals",  "variables": ["Income", "income"]},
//!   {"type": "ranges",  "variables": ["Income"], "min": 0},
//!   {"type": "ranges",  "variables": ["sin"], "max": 900000000} ]
//! ```
//!
//! Ranges are half-open by default: `min` is inclusive and `max` exclusive
//! (`min <= x < max`), so `"max": 900000000` keeps exactly the SINs that do not start
//! with 9. `"min_inclusive": false` and `"max_inclusive": true` change either end.
//! The function forms `strict` (parameters matched by position) and `mapping`
//! (parameters matched by the listed pairs, then by equal names) relate two
//! functions defined with `declare-fun` + `forall`. See docs/bl.md.

use num_rational::BigRational;
use serde::Deserialize;
use std::collections::HashSet;

/// One entry of a bounds file.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum BoundItem {
    /// The two output variables to compare (one per side, any order).
    Outputs {
        /// The output names.
        variables: Vec<String>,
    },
    /// Variables that denote the same value (Φ), usually one per side.
    Equals {
        /// The names to equate.
        variables: Vec<String>,
    },
    /// Bounds on variables (Ψ).
    Ranges {
        /// The bounded names.
        variables: Vec<String>,
        /// Lower bound, inclusive unless `min_inclusive` is false.
        #[serde(default, deserialize_with = "number")]
        min: Option<BigRational>,
        /// Upper bound, exclusive unless `max_inclusive` is true.
        #[serde(default, deserialize_with = "number")]
        max: Option<BigRational>,
        /// Whether `min` itself is allowed (default true).
        #[serde(default)]
        min_inclusive: Option<bool>,
        /// Whether `max` itself is allowed (default false).
        #[serde(default)]
        max_inclusive: Option<bool>,
    },
    /// Two functions with the same arity whose parameters correspond by position.
    Strict {
        /// The two function names (one per side).
        functions: Vec<String>,
        /// Informational in SIRNA's files; ignored.
        #[serde(default)]
        inputs: Option<serde_json::Value>,
    },
    /// Two functions whose parameters correspond by the listed pairs and then by name.
    Mapping {
        /// The two function names (one per side).
        functions: Vec<String>,
        /// Parameter pairs, one name from each function.
        #[serde(default)]
        mapping: Vec<(String, String)>,
        /// Informational in SIRNA's files; ignored.
        #[serde(default)]
        inputs: Option<serde_json::Value>,
    },
}

fn number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<BigRational>, D::Error> {
    let v = serde_json::Value::deserialize(d)?;
    let text = match &v {
        serde_json::Value::Null => return Ok(None),
        serde_json::Value::Number(n) => n.to_string(),
        serde_json::Value::String(s) => s.clone(),
        _ => return Err(serde::de::Error::custom("expected a number")),
    };
    json_number(&text)
        .map(Some)
        .ok_or_else(|| serde::de::Error::custom(format!("`{text}` is not a number")))
}

/// Largest accepted decimal exponent in a bounds number (`1e400`).
pub const MAX_EXPONENT: u32 = 400;

/// Reads a JSON number (with optional exponent, at most [`MAX_EXPONENT`] in size) or
/// `n/d` exactly.
fn json_number(t: &str) -> Option<BigRational> {
    let t = t.trim();
    let (mant, exp) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], t[i + 1..].parse::<i32>().ok()?),
        None => (t, 0),
    };
    if exp.unsigned_abs() > MAX_EXPONENT {
        return None;
    }
    let m = crate::parse_rational(mant)?;
    Some(crate::times_pow10(m, exp))
}

/// Line and column (one-based, in characters) of each element of the top-level array of
/// a valid JSON text, found in one pass.
fn entry_positions(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let (mut line, mut col) = (1usize, 1usize);
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    // At depth 1, right after `[` or `,`: the next non-space character starts an entry.
    let mut expect_entry = false;
    for c in text.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if !c.is_whitespace() && c != '\u{feff}' {
            if expect_entry && c != ']' {
                out.push((line, col));
            }
            expect_entry = false;
            match c {
                '"' => in_string = true,
                '[' | '{' => {
                    depth += 1;
                    expect_entry = depth == 1 && c == '[';
                }
                ']' | '}' => depth = depth.saturating_sub(1),
                ',' => expect_entry = depth == 1,
                _ => {}
            }
        }
        if c == '\n' {
            line += 1;
            col = 1;
        } else {
            col += 1;
        }
    }
    out
}

/// A parsed bounds file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Bounds {
    /// The file name, for messages.
    pub file: String,
    /// The entries in order.
    pub items: Vec<BoundItem>,
    /// Line and column of each entry in the file (empty for bounds built in code).
    pub positions: Vec<(usize, usize)>,
}

/// A bounds file that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoundsError {
    /// Not valid JSON, or not the expected shape.
    #[error("{file}:{line}:{col}: error: {message}")]
    Json {
        /// The file name.
        file: String,
        /// One-based line.
        line: usize,
        /// One-based column.
        col: usize,
        /// What serde_json found.
        message: String,
    },
    /// An entry that is well formed JSON but makes no sense.
    #[error("{file}{}: error: entry {index}: {message}", at(*.line, *.col))]
    Invalid {
        /// The file name.
        file: String,
        /// One-based index of the entry.
        index: usize,
        /// One-based line where the entry starts (0 when not known).
        line: usize,
        /// One-based column where the entry starts.
        col: usize,
        /// What is wrong.
        message: String,
    },
}

fn at(line: usize, col: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        format!(":{line}:{col}")
    }
}

impl BoundsError {
    /// A problem with entry `index` (one-based) of `bounds`, located when its
    /// position is known. Names quoted in `message` are shortened.
    pub fn invalid(
        file: &str,
        positions: &[(usize, usize)],
        index: usize,
        message: &str,
    ) -> BoundsError {
        let (line, col) = index
            .checked_sub(1)
            .and_then(|i| positions.get(i))
            .copied()
            .unwrap_or((0, 0));
        BoundsError::Invalid {
            file: crate::diag::escape(file).into_owned(),
            index,
            line,
            col,
            message: crate::diag::message(message),
        }
    }
}

/// The names (without their `nl.` / `bl.` qualifier) that some `ranges` entry of
/// `items` bounds.
pub fn ranged_names(items: &[BoundItem]) -> HashSet<String> {
    items
        .iter()
        .flat_map(|it| match it {
            BoundItem::Ranges { variables, .. } => variables
                .iter()
                .map(|v| super::side::qualified(v).1.to_string())
                .collect(),
            _ => Vec::new(),
        })
        .collect()
}

impl Bounds {
    /// Parses a bounds file. `file` names it in errors.
    /// Errors carry `file:line:col` and quote at most a short piece of the text.
    pub fn from_json(file: &str, text: &str) -> Result<Bounds, BoundsError> {
        let items: Vec<BoundItem> = serde_json::from_str(text).map_err(|e| BoundsError::Json {
            file: crate::diag::escape(file).into_owned(),
            line: e.line(),
            col: e.column(),
            message: crate::diag::message(
                e.to_string()
                    .rsplit_once(" at line ")
                    .map_or("", |(m, _)| m),
            ),
        })?;
        let positions = entry_positions(text);
        for (i, it) in items.iter().enumerate() {
            let bad = |m: &str| BoundsError::invalid(file, &positions, i + 1, m);
            match it {
                BoundItem::Outputs { variables } if variables.len() != 2 => {
                    return Err(bad("`outputs` needs exactly two variables, one per side"))
                }
                BoundItem::Equals { variables } if variables.len() < 2 => {
                    return Err(bad("`equals` needs at least two variables"))
                }
                BoundItem::Ranges {
                    variables,
                    min,
                    max,
                    ..
                } => {
                    if variables.is_empty() {
                        return Err(bad("`ranges` needs at least one variable"));
                    }
                    if min.is_none() && max.is_none() {
                        return Err(bad("`ranges` needs `min`, `max` or both"));
                    }
                    if let (Some(a), Some(b)) = (min, max) {
                        if a > b {
                            return Err(bad("`min` is greater than `max`"));
                        }
                    }
                }
                BoundItem::Strict { functions, .. } | BoundItem::Mapping { functions, .. }
                    if functions.len() != 2 =>
                {
                    return Err(bad("`functions` needs exactly two names, one per side"))
                }
                _ => {}
            }
        }
        Ok(Bounds {
            file: file.to_string(),
            items,
            positions,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powers_of_ten_agree_with_plain_arithmetic() {
        let ten = BigRational::from_integer(10.into());
        for m in [
            "0", "1", "-1", "1/3", "-7/40", "25/2", "3/1250", "12.5", "-0.008",
        ] {
            let m = crate::parse_rational(m).unwrap();
            for e in -12i32..=12 {
                let mut plain = m.clone();
                for _ in 0..e.unsigned_abs() {
                    plain = if e > 0 { plain * &ten } else { plain / &ten };
                }
                let fast = crate::times_pow10(m.clone(), e);
                assert_eq!(fast, plain, "{m} e{e}");
                // Reduced as BigRational::new would.
                let (n, d) = (fast.numer().clone(), fast.denom().clone());
                assert_eq!(
                    BigRational::new(n.clone(), d.clone()),
                    BigRational::new_raw(n, d)
                );
            }
        }
    }
}
