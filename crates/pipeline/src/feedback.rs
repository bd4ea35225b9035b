//! Repair feedback in the model's own terms.
//!
//! The elaborator's hints are written for a person editing an SMT-LIB file ("declare it
//! first", "compare it, e.g. (> x 0)"). A model answering over a fixed schema needs
//! different advice: it may not declare anything, and "x" means nothing to it. This
//! module rewrites the hint of each diagnostic of a model answer from the spec's schema:
//! an invented name is matched by its words against the schema's variables, their
//! descriptions and the enumeration values (`pump_stopped` → `(= mode Stopped)`); a
//! number or an enumeration value used as a condition gets a comparison over that very
//! name; an implication with one argument is explained as "if A then B".
//!
//! Only the hints change: the message, the position and the caret stay the
//! elaborator's, so the feedback still says exactly what is wrong and where.

use logic::{Diagnostics, Located, Sort};
use reqs::Spec;

/// Words too common to tie an invented name to a schema symbol.
const STOP_WORDS: &[&str] = &[
    "the", "and", "for", "not", "is", "on", "off", "of", "in", "to", "a", "an", "be", "has", "are",
    "with", "that", "this", "shall", "when", "while", "its", "it", "by", "at", "or",
];

/// How many schema names the "use only" list shows before it is cut.
const MOST_LISTED: usize = 16;

/// Rewrites the hints of `diags` (a model answer's diagnostics) in the schema's terms.
pub fn rewrite(spec: &Spec, diags: &mut Diagnostics) {
    for d in &mut diags.0 {
        if let Some(h) = hint(spec, d) {
            d.hint = Some(h);
        }
    }
}

/// The text under the caret of `d`.
fn underlined(d: &Located) -> String {
    d.source_line.chars().skip(d.caret).take(d.width).collect()
}

/// The first name between backticks in `message`.
fn quoted(message: &str) -> Option<&str> {
    let start = message.find('`')? + 1;
    let len = message[start..].find('`')?;
    Some(&message[start..start + len])
}

fn hint(spec: &Spec, d: &Located) -> Option<String> {
    let m = d.message.as_str();
    if m.starts_with("undeclared symbol") {
        return Some(unknown_name(spec, quoted(m)?));
    }
    if m.starts_with("unknown function `declare") || m.starts_with("unknown function `define") {
        return Some(
            "the answer is one term over the schema's variables: nothing can be declared or defined"
                .into(),
        );
    }
    if m.starts_with("sort mismatch") && m.contains("must be Bool") {
        return not_a_condition(spec, underlined(d).trim());
    }
    if m.starts_with("`not` takes 1 argument(s)") {
        // `(not mode Stopped)`: a comparison without its `=`.
        let shown = underlined(d);
        let inner = shown.trim().strip_prefix("(not")?.strip_suffix(')')?.trim();
        let parts: Vec<&str> = inner.split_whitespace().collect();
        if let [a, b] = parts[..] {
            if compares(spec, a, b) {
                return Some(format!(
                    "`not` takes one condition; to say that {a} is not {b}, write (not (= {a} {b}))"
                ));
            }
        }
        return None;
    }
    if m.starts_with("`=>` takes at least 2 argument(s), given 1") {
        let shown = underlined(d);
        let inner = shown
            .trim()
            .strip_prefix("(=>")
            .and_then(|s| s.strip_suffix(')'))
            .map(str::trim)
            .filter(|s| !s.is_empty());
        return Some(match inner {
            Some(b) => match split_conjunction(b) {
                // `(=> (and A B C))`: the condition and the consequence were put in one
                // conjunction.
                Some((a, rest)) => format!(
                    "(=> A B) means \"if A then B\" and takes the condition and the consequence as two arguments, not one conjunction: perhaps (=> {a} {rest})"
                ),
                None => format!(
                    "(=> A B) means \"if A then B\" and needs both; a requirement without a condition is its consequence alone, e.g. {b}"
                ),
            },
            None => "(=> A B) means \"if A then B\" and needs both".into(),
        });
    }
    None
}

/// `a b` would be a comparison `(= a b)`: an enumeration variable and one of its values,
/// or a numeric variable and a number.
fn compares(spec: &Spec, a: &str, b: &str) -> bool {
    let Some(v) = spec.variables.iter().find(|v| &*v.name == a) else {
        return false;
    };
    match &v.sort {
        Sort::Enum(e) => spec
            .enums
            .iter()
            .any(|(n, vs)| n == e && vs.iter().any(|x| &**x == b)),
        s if s.is_numeric() => b.parse::<f64>().is_ok(),
        _ => false,
    }
}

/// `(and A B C)` as `A` and the rest as one term (`B`, or `(and B C)`), when the text is
/// a conjunction of at least two arguments.
fn split_conjunction(text: &str) -> Option<(String, String)> {
    let e = logic::sexp::read_one(text).ok()?;
    let items = e.as_list()?;
    if e.head() != Some("and") || items.len() < 3 {
        return None;
    }
    let piece = |i: usize| {
        text.get(items[i].span.start..items[i].span.end)
            .map(str::to_string)
    };
    let first = piece(1)?;
    let rest = if items.len() == 3 {
        piece(2)?
    } else {
        let parts: Option<Vec<String>> = (2..items.len()).map(piece).collect();
        format!("(and {})", parts?.join(" "))
    };
    Some((first, rest))
}

/// The words of a name: split at `_`, `-`, digits and lower-to-upper case changes,
/// lower-cased, stop words dropped.
fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphabetic() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out.retain(|w| w.len() >= 3 && !STOP_WORDS.contains(&w.as_str()));
    out
}

/// Two words name the same thing: equal, or one a prefix of the other of at least four
/// letters (`stop` / `stopped`, `pump` / `pumping`).
fn same_word(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    a == b || (short.len() >= 4 && long.starts_with(short))
}

fn overlaps(a: &[String], b: &[String]) -> bool {
    a.iter().any(|x| b.iter().any(|y| same_word(x, y)))
}

/// The hint for a name that is not in the schema.
fn unknown_name(spec: &Spec, name: &str) -> String {
    let mut suggestions: Vec<String> = Vec::new();
    if let Some(s) = spec.context.similar(name) {
        suggestions.push(format!("`{s}`"));
    }
    let ws = words(name);
    // An enumeration value among the words: `pump_stopped` → (= mode Stopped).
    for (sort, values) in &spec.enums {
        for v in values {
            if !overlaps(&ws, &words(v)) {
                continue;
            }
            for var in spec
                .variables
                .iter()
                .filter(|x| matches!(&x.sort, Sort::Enum(e) if e == sort))
            {
                suggestions.push(format!("(= {} {v})", var.name));
            }
        }
    }
    // A variable whose name or description shares a word.
    for v in &spec.variables {
        let mut vw = words(&v.name);
        if let Some(d) = &v.description {
            vw.extend(d.split_whitespace().flat_map(words));
        }
        if overlaps(&ws, &vw) {
            suggestions.push(match &v.sort {
                Sort::Enum(e) => format!("a comparison of `{}` with a value of {e}", v.name),
                _ => format!("`{}`", v.name),
            });
        }
    }
    suggestions.dedup();
    let mut hint = format!("`{name}` is not in the schema and cannot be declared");
    if !suggestions.is_empty() {
        suggestions.truncate(4);
        hint.push_str(&format!("; perhaps {}", suggestions.join(" or ")));
    }
    hint.push_str(&format!("; use only {}", listing(spec)));
    hint
}

/// The schema's names for a "use only" list: each variable, an enumeration-valued one
/// with its values.
fn listing(spec: &Spec) -> String {
    let mut names: Vec<String> = Vec::new();
    for v in &spec.variables {
        match &v.sort {
            Sort::Enum(e) => {
                let values = spec
                    .enums
                    .iter()
                    .find(|(n, _)| n == e)
                    .map(|(_, vs)| {
                        vs.iter()
                            .map(|s| s.to_string())
                            .collect::<Vec<_>>()
                            .join("|")
                    })
                    .unwrap_or_default();
                names.push(format!("{} ({values})", v.name));
            }
            _ => names.push(v.name.to_string()),
        }
    }
    let more = names.len().saturating_sub(MOST_LISTED);
    names.truncate(MOST_LISTED);
    let mut s = names.join(", ");
    if more > 0 {
        s.push_str(&format!(" and {more} more"));
    }
    s
}

/// The hint for a term used as a condition that is not one.
fn not_a_condition(spec: &Spec, shown: &str) -> Option<String> {
    if let Some(v) = spec.variables.iter().find(|v| &*v.name == shown) {
        return Some(match &v.sort {
            Sort::Enum(e) => {
                let first = spec
                    .enums
                    .iter()
                    .find(|(n, _)| n == e)
                    .and_then(|(_, vs)| vs.first())?;
                format!("`{shown}` holds a value of {e}, not a condition: compare it with one, e.g. (= {shown} {first})")
            }
            s if s.is_numeric() => {
                let at = v
                    .min
                    .as_ref()
                    .map(|m| logic::Value::Real(m.clone()).to_string())
                    .map(|s| s.trim_end_matches(".0").to_string())
                    .unwrap_or_else(|| "0".into());
                format!("`{shown}` is a number ({s}), not a condition: compare it, e.g. (= {shown} {at}) or (> {shown} {at})")
            }
            _ => return None,
        });
    }
    for (sort, values) in &spec.enums {
        if values.iter().any(|v| &**v == shown) {
            let var = spec
                .variables
                .iter()
                .find(|x| matches!(&x.sort, Sort::Enum(e) if e == sort))?;
            return Some(format!(
                "`{shown}` is a value of {sort}, not a condition: say which variable has it, e.g. (= {} {shown})",
                var.name
            ));
        }
    }
    if shown.parse::<f64>().is_ok() {
        return Some(format!(
            "`{shown}` is a number, not a condition: a condition compares a variable, e.g. (> x {shown}) with x from the schema"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_names() {
        assert_eq!(words("pump_stopped"), ["pump", "stopped"]);
        assert_eq!(words("doorOpen2x"), ["door", "open"]);
        assert_eq!(words("is_on"), Vec::<String>::new());
        assert!(same_word("stop", "stopped"));
        assert!(!same_word("one", "onerous"));
    }
}
