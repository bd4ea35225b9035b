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

/// Reads a JSON number (with optional exponent) or `n/d` exactly.
fn json_number(t: &str) -> Option<BigRational> {
    let t = t.trim();
    let (mant, exp) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], t[i + 1..].parse::<i32>().ok()?),
        None => (t, 0),
    };
    let m = crate::parse_rational(mant)?;
    let ten = BigRational::from_integer(10.into());
    let mut r = m;
    for _ in 0..exp.unsigned_abs().min(400) {
        if exp > 0 {
            r *= &ten;
        } else {
            r /= &ten;
        }
    }
    Some(r)
}

/// A parsed bounds file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Bounds {
    /// The file name, for messages.
    pub file: String,
    /// The entries in order.
    pub items: Vec<BoundItem>,
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
    #[error("{file}: error: entry {index}: {message}")]
    Invalid {
        /// The file name.
        file: String,
        /// One-based index of the entry.
        index: usize,
        /// What is wrong.
        message: String,
    },
}

impl Bounds {
    /// Parses a bounds file. `file` names it in errors.
    pub fn from_json(file: &str, text: &str) -> Result<Bounds, BoundsError> {
        let items: Vec<BoundItem> = serde_json::from_str(text).map_err(|e| BoundsError::Json {
            file: file.to_string(),
            line: e.line(),
            col: e.column(),
            message: e
                .to_string()
                .split(" at line ")
                .next()
                .unwrap_or("")
                .to_string(),
        })?;
        for (i, it) in items.iter().enumerate() {
            let bad = |m: &str| BoundsError::Invalid {
                file: file.to_string(),
                index: i + 1,
                message: m.to_string(),
            };
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
        })
    }
}
