//! Timed requirements: patterns over traces, their monitors, and the audits on traces.
//!
//! A spec with a `[time]` table reads every requirement over *traces*: sequences of
//! states `s0, s1, ...`, one per tick. A timed requirement is a [`Pattern`] (scope,
//! trigger, response, timing) over the schema's state formulas; docs/timed.md states its
//! meaning step by step. [`unroll`] compiles a timed spec into a plain [`Spec`] over
//! one copy of each variable per step (`x@0 .. x@k`), each pattern through a past-time
//! monitor (saturating counters and flags, one set per step), so the encoding grows
//! linearly with the horizon `k` and the plain audits (consistency, minimal conflicts,
//! vacuity, violatability, redundancy) run on it unchanged. [`trace`] is an evaluator of
//! the patterns on concrete traces written from the definitions, not from the monitors:
//! every witness trace is re-checked with it. [`audit`] runs the audits and says what
//! each verdict rests on: the horizon, and whether a looping witness shows an infinite
//! run.
//!
//! [`Spec`]: crate::Spec

pub mod answer;
pub mod ask;
pub mod audit;
pub mod dense;
pub mod equiv;
pub mod request;
pub mod trace;
pub mod unroll;

use logic::Term;
use num_rational::BigRational;
use num_traits::{ToPrimitive, Zero};
use serde::Serialize;

/// The largest duration accepted in discrete time, in ticks (each tick is a step of
/// the unrolled runs). Dense time has no such limit: a duration is a clock constant.
pub const MAX_TICKS: u64 = 100_000;

/// How a timed spec reads time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Semantics {
    /// Steps of one tick (`[requirements.timed]` patterns, docs/timed.md).
    #[default]
    Discrete,
    /// Real time, Hanfor's patterns as Ultimate reads them (docs/timed.md, "Dense
    /// time").
    Dense,
}

/// The spec's time base: the tick and the named durations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeBase {
    /// The length of one step, in seconds.
    pub tick_seconds: BigRational,
    /// The tick as written (`1 s`).
    pub tick_text: String,
    /// The unit durations are printed in (the tick's unit).
    pub unit: Unit,
    /// The horizon the user asked for, in ticks.
    pub horizon: Option<u64>,
    /// Named durations, in ticks.
    pub durations: Vec<(String, u64)>,
    /// How time is read.
    pub semantics: Semantics,
}

impl TimeBase {
    /// `ticks` steps as physical time in the tick's unit (`120 s`, `1.5 min`).
    pub fn show(&self, ticks: u64) -> String {
        self.show_rational(&BigRational::from_integer(ticks.into()))
    }

    /// A (possibly fractional) number of ticks as physical time in the tick's unit.
    pub fn show_rational(&self, ticks: &BigRational) -> String {
        let secs = &self.tick_seconds * ticks;
        let v = secs / self.unit.seconds();
        format!("{} {}", show_number(&v), self.unit.symbol())
    }

    /// Reads a duration written in the spec: `"120 s"`, `"2 min"`, `"5 ticks"`, or the
    /// name of a duration in `[time.durations]`.
    pub fn duration(&self, text: &str) -> Result<u64, String> {
        let t = text.trim();
        if let Some((_, d)) = self.durations.iter().find(|(n, _)| n == t) {
            return Ok(*d);
        }
        let (value, unit) = parse_quantity(t).map_err(|e| {
            if !self.durations.is_empty() && !t.contains(char::is_whitespace) {
                let names: Vec<&str> = self.durations.iter().map(|(n, _)| n.as_str()).collect();
                format!("{e} (named durations: {})", names.join(", "))
            } else {
                e
            }
        })?;
        let ticks = match unit {
            None => value,
            Some(u) => value * u.seconds() / &self.tick_seconds,
        };
        let cap = match self.semantics {
            Semantics::Discrete => MAX_TICKS,
            Semantics::Dense => u64::MAX,
        };
        whole_ticks(&ticks, t, &self.tick_text, cap)
    }
}

/// A unit of time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// Microseconds.
    Us,
    /// Milliseconds.
    Ms,
    /// Seconds.
    S,
    /// Minutes.
    Min,
    /// Hours.
    H,
}

impl Unit {
    fn from_name(s: &str) -> Option<Unit> {
        Some(match s {
            "us" | "µs" | "usec" | "microsecond" | "microseconds" => Unit::Us,
            "ms" | "millisecond" | "milliseconds" => Unit::Ms,
            "s" | "sec" | "secs" | "second" | "seconds" => Unit::S,
            "min" | "mins" | "minute" | "minutes" => Unit::Min,
            "h" | "hr" | "hour" | "hours" => Unit::H,
            _ => return None,
        })
    }

    /// One unit in seconds.
    pub fn seconds(self) -> BigRational {
        match self {
            Unit::Us => BigRational::new(1.into(), 1_000_000.into()),
            Unit::Ms => BigRational::new(1.into(), 1000.into()),
            Unit::S => BigRational::from_integer(1.into()),
            Unit::Min => BigRational::from_integer(60.into()),
            Unit::H => BigRational::from_integer(3600.into()),
        }
    }

    /// Its symbol (`ms`, `s`, `min`, `h`).
    pub fn symbol(self) -> &'static str {
        match self {
            Unit::Us => "us",
            Unit::Ms => "ms",
            Unit::S => "s",
            Unit::Min => "min",
            Unit::H => "h",
        }
    }
}

/// Reads a tick: a positive number of a unit of time.
pub fn parse_tick(text: &str) -> Result<(BigRational, Unit), String> {
    let (value, unit) = parse_quantity(text.trim())?;
    let Some(unit) = unit else {
        return Err("the tick needs a unit of time (us, ms, s, min, h), e.g. \"1 s\"".into());
    };
    if value.is_zero() {
        return Err("the tick must be longer than zero".into());
    }
    Ok((value * unit.seconds(), unit))
}

/// `"<number> <unit>"`: the number and the unit (`None` for ticks or steps).
fn parse_quantity(t: &str) -> Result<(BigRational, Option<Unit>), String> {
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+'))
        .unwrap_or(t.len());
    let (num, rest) = t.split_at(split);
    let unit_text = rest.trim();
    if num.is_empty() {
        return Err(format!(
            "`{t}` is not a duration: write a number and a unit, e.g. \"5 s\", \"2 min\" or \"10 ticks\""
        ));
    }
    if num.starts_with('-') {
        return Err(format!("`{t}`: a duration cannot be negative"));
    }
    // Digits, at most one point, digits on both sides of it: `5`, `2.5`.
    let well_formed = {
        let mut parts = num.split('.');
        let int = parts.next().unwrap_or("");
        let frac = parts.next();
        parts.next().is_none()
            && !int.is_empty()
            && int.bytes().all(|b| b.is_ascii_digit())
            && frac.is_none_or(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()))
    };
    if !well_formed {
        return Err(format!(
            "`{t}` does not start with a number (write e.g. \"5 s\" or \"2.5 s\")"
        ));
    }
    if num.len() > 30 {
        return Err(format!("`{t}`: the number is too long"));
    }
    let Some(value) = logic::elab::try_parse_decimal(num) else {
        return Err(format!("`{t}` does not start with a number"));
    };
    if unit_text.is_empty() {
        return Err(format!(
            "`{t}` has no unit: write e.g. \"{num} s\" or \"{num} ticks\""
        ));
    }
    let unit = match unit_text {
        "tick" | "ticks" | "step" | "steps" => None,
        u => match Unit::from_name(u) {
            Some(u) => Some(u),
            None => {
                return Err(format!(
                    "unknown unit of time `{u}` in `{t}` (use us, ms, s, min, h, or ticks)"
                ))
            }
        },
    };
    Ok((value, unit))
}

fn whole_ticks(ticks: &BigRational, text: &str, tick: &str, cap: u64) -> Result<u64, String> {
    if !ticks.is_integer() {
        return Err(format!(
            "`{text}` is not a whole number of ticks (the tick is {tick}): {} ticks",
            show_number(ticks)
        ));
    }
    match ticks.to_integer().to_u64() {
        Some(n) if n <= cap => Ok(n),
        _ => Err(format!(
            "`{text}` is {} ticks; at most {cap} are supported in discrete time (choose a longer tick, or read the spec in dense time: semantics = \"dense\")",
            ticks.to_integer()
        )),
    }
}

/// A rational as a short decimal where it has one (`2.5`), else `p/q`.
fn show_number(v: &BigRational) -> String {
    if v.is_integer() {
        return v.to_integer().to_string();
    }
    let mut d = v.denom().clone();
    let (mut twos, mut fives) = (0usize, 0usize);
    let two = num_bigint::BigInt::from(2);
    let five = num_bigint::BigInt::from(5);
    while (&d % &two).is_zero() && twos < 40 {
        d /= &two;
        twos += 1;
    }
    while (&d % &five).is_zero() && fives < 40 {
        d /= &five;
        fives += 1;
    }
    let digits = twos.max(fives);
    if d == 1.into() {
        let scale = num_bigint::BigInt::from(10).pow(digits as u32);
        let n = (v * BigRational::from_integer(scale.clone())).to_integer();
        let neg = n < 0.into();
        let n = if neg { -n } else { n };
        let s = format!("{:0>width$}", n.to_string(), width = digits + 1);
        let (int, frac) = s.split_at(s.len() - digits);
        let frac = frac.trim_end_matches('0');
        format!(
            "{}{int}{}{frac}",
            if neg { "-" } else { "" },
            if frac.is_empty() { "" } else { "." }
        )
    } else {
        format!("{}/{}", v.numer(), v.denom())
    }
}

/// Where a timed requirement applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// At every step.
    Globally,
    /// At the steps where the formula holds.
    While(Term),
    /// From the first step where the formula holds on.
    After(Term),
    /// From a step where the first holds up to (excluding) the next where the second
    /// holds; again after the next step where the first holds.
    AfterUntil(Term, Term),
    /// Up to (excluding) the first step where the formula holds.
    Before(Term),
}

/// When a timed requirement fires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trigger {
    /// At every step of its scope.
    Always,
    /// Where the formula holds (level).
    Level(Term),
    /// Where the formula holds and did not at the step before (edge); at step 0 where
    /// it holds.
    Edge(Term),
    /// At step 0.
    Initially,
    /// Where the formula has held for at least this many ticks (steps `t-d .. t`).
    HeldFor(Term, u64),
    /// Where the formula held at some step of `t-d .. t`.
    WithinLast(Term, u64),
}

/// When the response must hold, counted from the step the trigger fires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Timing {
    /// At that step.
    Immediately,
    /// At the step after.
    Next,
    /// At some step of `t .. t+d`.
    Within(u64),
    /// At every step of `t .. t+d`.
    For(u64),
    /// At no step of `t .. t+d-1`.
    NotBefore(u64),
    /// At every step from `t` before the first step `u >= t` where the formula holds.
    Until(Term),
    /// At some step `u >= t` before the first step `v > t` where the formula holds.
    Before(Term),
}

/// A timed requirement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    /// Where it applies.
    pub scope: Scope,
    /// When it fires.
    pub trigger: Trigger,
    /// What it demands.
    pub response: Term,
    /// When the demand must be met.
    pub timing: Timing,
}

impl Pattern {
    /// Every state formula the pattern mentions.
    pub fn terms(&self) -> Vec<&Term> {
        let mut out = Vec::new();
        match &self.scope {
            Scope::Globally => {}
            Scope::While(c) | Scope::After(c) | Scope::Before(c) => out.push(c),
            Scope::AfterUntil(a, b) => out.extend([a, b]),
        }
        match &self.trigger {
            Trigger::Level(c)
            | Trigger::Edge(c)
            | Trigger::HeldFor(c, _)
            | Trigger::WithinLast(c, _) => out.push(c),
            Trigger::Always | Trigger::Initially => {}
        }
        out.push(&self.response);
        if let Timing::Until(c) | Timing::Before(c) = &self.timing {
            out.push(c);
        }
        out
    }

    /// The longest duration the pattern mentions, in ticks.
    pub fn longest(&self) -> u64 {
        let t = match &self.trigger {
            Trigger::HeldFor(_, d) | Trigger::WithinLast(_, d) => *d,
            _ => 0,
        };
        let r = match &self.timing {
            Timing::Within(d) | Timing::For(d) | Timing::NotBefore(d) => *d,
            Timing::Next => 1,
            _ => 0,
        };
        t + r
    }

    /// The pattern in words, with durations in the spec's time unit.
    pub fn describe(&self, time: &TimeBase) -> String {
        let p = |t: &Term| logic::print::term(t);
        let scope = match &self.scope {
            Scope::Globally => String::new(),
            Scope::While(c) => format!("while {}: ", p(c)),
            Scope::After(c) => format!("after {}: ", p(c)),
            Scope::AfterUntil(a, b) => format!("after {} until {}: ", p(a), p(b)),
            Scope::Before(c) => format!("before {}: ", p(c)),
        };
        let trigger = match &self.trigger {
            Trigger::Always => "always ".to_string(),
            Trigger::Level(c) => format!("if {} then ", p(c)),
            Trigger::Edge(c) => format!("when {} becomes true, ", p(c)),
            Trigger::Initially => "initially ".to_string(),
            Trigger::HeldFor(c, d) => format!("if {} has held for {} then ", p(c), time.show(*d)),
            Trigger::WithinLast(c, d) => {
                format!("if {} held within the last {} then ", p(c), time.show(*d))
            }
        };
        let timing = match &self.timing {
            Timing::Immediately => String::new(),
            Timing::Next => " at the next step".into(),
            Timing::Within(d) => format!(" within {}", time.show(*d)),
            Timing::For(d) => format!(" for {}", time.show(*d)),
            Timing::NotBefore(d) => format!(" not before {}", time.show(*d)),
            Timing::Until(c) => format!(" until {}", p(c)),
            Timing::Before(c) => format!(" before {}", p(c)),
        };
        format!("{scope}{trigger}{}{timing}", p(&self.response))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base(tick: &str) -> TimeBase {
        let (s, u) = parse_tick(tick).unwrap();
        TimeBase {
            tick_seconds: s,
            tick_text: tick.into(),
            unit: u,
            horizon: None,
            durations: vec![("LIMIT".into(), 120)],
            semantics: Semantics::Discrete,
        }
    }

    #[test]
    fn durations_are_whole_ticks() {
        let b = base("1 s");
        assert_eq!(b.duration("120 s"), Ok(120));
        assert_eq!(b.duration("2 min"), Ok(120));
        assert_eq!(b.duration("5 ticks"), Ok(5));
        assert_eq!(b.duration("LIMIT"), Ok(120));
        assert_eq!(b.duration("0 s"), Ok(0));
        assert!(b
            .duration("1.5 s")
            .unwrap_err()
            .contains("whole number of ticks"));
        assert!(b.duration("-3 s").unwrap_err().contains("negative"));
        assert!(b
            .duration("5 parsecs")
            .unwrap_err()
            .contains("unknown unit"));
        assert!(b.duration("5").unwrap_err().contains("no unit"));
        assert!(b.duration("abc").unwrap_err().contains("LIMIT"));
        assert!(b.duration("1000 h").unwrap_err().contains("at most"));
        assert!(b.duration("99999999999999999999999999999999999 s").is_err());
        for bad in [
            "5-3 s", "+-5 s", "5+ s", "++5 s", ".5 s", "5. s", "1.2.3 s", "+5 s",
        ] {
            assert!(b.duration(bad).is_err(), "{bad}");
        }
        let ms = base("100 ms");
        assert_eq!(ms.duration("1.5 s"), Ok(15));
        assert_eq!(ms.show(15), "1500 ms");
        assert_eq!(base("1 min").show(3), "3 min");
        assert!(parse_tick("0 s").is_err());
        assert!(parse_tick("3").is_err());
    }

    #[test]
    fn numbers_print_short() {
        let r = |n: i64, d: i64| BigRational::new(n.into(), d.into());
        assert_eq!(show_number(&r(5, 2)), "2.5");
        assert_eq!(show_number(&r(1, 3)), "1/3");
        assert_eq!(show_number(&r(3, 40)), "0.075");
        assert_eq!(show_number(&r(-1, 4)), "-0.25");
    }
}
