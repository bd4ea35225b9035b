//! Values as they appear in test tables: printed the way vera prints values
//! (`-3`, `2.5`, `1/3`, `true`, `Therapy`) and read back exactly.

use logic::{Sort, Symbol, Value};
use num_bigint::BigInt;
use num_rational::BigRational;

/// A value as a table cell: integers in decimal, reals as a decimal when they have one
/// and `n/d` otherwise, Booleans as `true`/`false`, enumeration values by name.
pub fn show(v: &Value) -> String {
    v.to_string()
}

/// A rational as a cell: an integer without a decimal point, else as a `Real` value.
pub fn show_rational(r: &BigRational) -> String {
    if r.is_integer() {
        r.to_integer().to_string()
    } else {
        show(&Value::Real(r.clone()))
    }
}

/// Reads a cell as a value of `sort`. Reals accept integers, decimals, `n/d` and a
/// decimal exponent (`1e-3`, as C's `%g` prints); Booleans accept `true`/`false` and
/// `1`/`0` (any case); integers must be whole (`3`, `-3`, also `3.0`).
pub fn parse(text: &str, sort: &Sort, enums: &[(Symbol, Vec<Symbol>)]) -> Result<Value, String> {
    let t = text.trim();
    match sort {
        Sort::Bool => match t.to_ascii_lowercase().as_str() {
            "true" | "1" => Ok(Value::Bool(true)),
            "false" | "0" => Ok(Value::Bool(false)),
            _ => Err(format!("`{}` is not a Boolean (true or false)", cut(t))),
        },
        Sort::Int => {
            let r = rational(t).ok_or_else(|| format!("`{}` is not a number", cut(t)))?;
            if r.is_integer() {
                Ok(Value::Int(r.to_integer()))
            } else {
                Err(format!("`{}` is not a whole number", cut(t)))
            }
        }
        Sort::Real => rational(t)
            .map(Value::Real)
            .ok_or_else(|| format!("`{}` is not a number", cut(t))),
        Sort::Enum(name) => {
            let values = enums
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_slice())
                .unwrap_or(&[]);
            match values.iter().find(|c| &***c == t) {
                Some(c) => Ok(Value::Enum(name.clone(), c.clone())),
                None => Err(format!(
                    "`{}` is not a value of {name} ({})",
                    cut(t),
                    values
                        .iter()
                        .map(|v| v.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            }
        }
    }
}

/// The exact value of `12`, `-3.5`, `1/3`, `2.5e-3`; `None` for anything else
/// (also `inf`, `nan` and exponents beyond 400).
pub fn rational(t: &str) -> Option<BigRational> {
    let t = t.trim();
    if t.is_empty() || t.len() > 450 {
        return None;
    }
    let (mant, exp) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], t[i + 1..].parse::<i32>().ok()?),
        None => (t, 0),
    };
    if exp.unsigned_abs() > 400 {
        return None;
    }
    let mant = mant.strip_prefix('+').unwrap_or(mant);
    let m = bl::parse_rational(mant)?;
    Some(bl::times_pow10(m, exp))
}

/// The value of a rational in `sort` (Int only when it is whole).
pub fn numeric(r: &BigRational, sort: &Sort) -> Option<Value> {
    match sort {
        Sort::Int if r.is_integer() => Some(Value::Int(r.to_integer())),
        Sort::Real => Some(Value::Real(r.clone())),
        _ => None,
    }
}

/// A value as an exact rational, for numeric values.
pub fn as_rational(v: &Value) -> Option<BigRational> {
    match v {
        Value::Int(i) => Some(BigRational::from_integer(i.clone())),
        Value::Real(r) => Some(r.clone()),
        _ => None,
    }
}

/// A default value of a sort within optional bounds: the lower bound, else the upper,
/// else zero; `false`; the first constructor.
pub fn default_value(
    sort: &Sort,
    min: Option<&BigRational>,
    max: Option<&BigRational>,
    enums: &[(Symbol, Vec<Symbol>)],
) -> Option<Value> {
    match sort {
        Sort::Bool => Some(Value::Bool(false)),
        Sort::Int | Sort::Real => {
            let zero = BigRational::from_integer(BigInt::from(0));
            let r = match (min, max) {
                (Some(lo), _) if sort == &Sort::Real => lo.clone(),
                (Some(lo), _) => lo.ceil(),
                (None, Some(hi)) if sort == &Sort::Real => hi.clone(),
                (None, Some(hi)) => hi.floor(),
                (None, None) => zero,
            };
            numeric(&r, sort)
        }
        Sort::Enum(name) => enums
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.first())
            .map(|c| Value::Enum(name.clone(), c.clone())),
    }
}

/// Text from a file, cut for a message.
pub(crate) fn cut(t: &str) -> String {
    let mut s: String = t.chars().take(48).collect();
    if t.chars().count() > 48 {
        s.push('…');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_read_back() {
        let e = vec![(
            Symbol::from("P"),
            vec![Symbol::from("A"), Symbol::from("B")],
        )];
        let r = |n: i64, d: i64| Value::Real(BigRational::new(n.into(), d.into()));
        assert_eq!(parse("2.5", &Sort::Real, &e), Ok(r(5, 2)));
        assert_eq!(parse("1/3", &Sort::Real, &e), Ok(r(1, 3)));
        assert_eq!(parse("-1e-3", &Sort::Real, &e), Ok(r(-1, 1000)));
        assert_eq!(
            parse("0.10000000000000001", &Sort::Real, &e).map(|v| v == r(1, 10)),
            Ok(false)
        );
        assert_eq!(parse(" 7 ", &Sort::Int, &e), Ok(Value::Int(7.into())));
        assert!(parse("7.5", &Sort::Int, &e).is_err());
        assert_eq!(parse("TRUE", &Sort::Bool, &e), Ok(Value::Bool(true)));
        assert!(parse("maybe", &Sort::Bool, &e).is_err());
        assert!(parse("C", &Sort::Enum("P".into()), &e)
            .unwrap_err()
            .contains("A, B"));
        assert!(parse("nan", &Sort::Real, &e).is_err());
        assert!(parse("1e999", &Sort::Real, &e).is_err());
        for v in [r(5, 2), r(1, 3), r(-7, 1), Value::Int((-3).into())] {
            assert_eq!(parse(&show(&v), &v.sort(), &e), Ok(v.clone()));
        }
    }
}
