//! Countertraces evaluated on a concrete run, straight from their Duration Calculus
//! meaning, without the automata: the independent re-check of every witness run.
//!
//! A run is a sequence of intervals `[t₀, t₁), [t₁, t₂), ...` of positive length with
//! one state each, observed from 0 to its end `T`. A countertrace `φ₀ ; φ₁ ; ... ` is
//! *matched* when the observation can be cut at points `0 = b₀ ≤ b₁ ≤ ... ≤ T` so that
//! each phase covers its piece: a piece of positive length where its formula holds
//! throughout (the values at single points do not count) and whose length meets the
//! phase's bound, or, for a phase that may be empty, a single point. A requirement holds
//! on the run when none of its countertraces is matched.
//!
//! One reading is the peer's rather than the formula's: a phase that may be empty and has
//! a formula (`⌈S⌉ ∧ ℓ <₀ c`) is empty only at a point where the state changes (or at
//! the start). The peer's automata enter the next phase there and nowhere else, so they
//! allow runs in which the formula's chop would put that empty phase inside an interval;
//! docs/timed.md ("Dense time") gives the example.
//!
//! The evaluation follows the sets of points where each phase can end, as unions of
//! intervals with exact rational ends.

use super::bdd::{Atom, Bdd, Ref};
use super::catalog::{Bound, CounterTrace};
use logic::{Context, EvalError, Model};
use num_rational::BigRational;
use num_traits::Zero;

/// One interval of a run: its length (positive) and its state.
#[derive(Debug, Clone)]
pub struct Piece {
    /// Its length.
    pub length: BigRational,
    /// The state over it (history variables included).
    pub state: Model,
}

/// An interval of reals with exact ends; `hi` `None` is +∞.
#[derive(Debug, Clone, PartialEq)]
struct Iv {
    lo: BigRational,
    lo_in: bool,
    hi: Option<BigRational>,
    hi_in: bool,
}

impl Iv {
    fn is_empty(&self) -> bool {
        match &self.hi {
            None => false,
            Some(h) => *h < self.lo || (*h == self.lo && !(self.lo_in && self.hi_in)),
        }
    }

    fn point(x: BigRational) -> Iv {
        Iv {
            lo: x.clone(),
            lo_in: true,
            hi: Some(x),
            hi_in: true,
        }
    }

    /// The intersection with `[u, v]` (`v_in`: `v` included).
    fn clip(&self, u: &BigRational, v: &BigRational, v_in: bool) -> Iv {
        let (lo, lo_in) = if self.lo > *u {
            (self.lo.clone(), self.lo_in)
        } else if self.lo == *u {
            (u.clone(), self.lo_in)
        } else {
            (u.clone(), true)
        };
        let (hi, hi_in) = match &self.hi {
            Some(h) if h < v => (h.clone(), self.hi_in),
            Some(h) if h == v => (v.clone(), self.hi_in && v_in),
            _ => (v.clone(), v_in),
        };
        Iv {
            lo,
            lo_in,
            hi: Some(hi),
            hi_in,
        }
    }

    /// `{ x + y : x ∈ self, y ∈ other }`.
    fn plus(&self, other: &Iv) -> Iv {
        Iv {
            lo: &self.lo + &other.lo,
            lo_in: self.lo_in && other.lo_in,
            hi: match (&self.hi, &other.hi) {
                (Some(a), Some(b)) => Some(a + b),
                _ => None,
            },
            hi_in: self.hi_in && other.hi_in,
        }
    }
}

/// The lengths a non-empty phase with this bound may have.
fn lengths(b: Bound) -> Iv {
    let zero = BigRational::zero();
    let c = |x: u64| BigRational::from_integer(x.into());
    match b {
        Bound::None => Iv {
            lo: zero,
            lo_in: false,
            hi: None,
            hi_in: false,
        },
        Bound::Lt(x) => Iv {
            lo: zero,
            lo_in: false,
            hi: Some(c(x)),
            hi_in: false,
        },
        Bound::Le(x) => Iv {
            lo: zero,
            lo_in: false,
            hi: Some(c(x)),
            hi_in: true,
        },
        Bound::Ge(0) => Iv {
            lo: zero,
            lo_in: false,
            hi: None,
            hi_in: false,
        },
        Bound::Ge(x) => Iv {
            lo: c(x),
            lo_in: true,
            hi: None,
            hi_in: false,
        },
        Bound::Gt(x) => Iv {
            lo: c(x),
            lo_in: false,
            hi: None,
            hi_in: false,
        },
    }
}

/// Whether an empty phase meets the bound.
fn empty_ok(b: Bound) -> bool {
    match b {
        Bound::None | Bound::Le(_) => true,
        Bound::Lt(x) => x > 0,
        Bound::Ge(x) => x == 0,
        Bound::Gt(_) => false,
    }
}

/// Is the countertrace matched on the run? Lengths and bounds are in ticks; `ctx`
/// declares the state's enumerations.
pub fn matched(
    bdd: &Bdd,
    ct: &CounterTrace,
    run: &[Piece],
    ctx: &Context,
) -> Result<bool, EvalError> {
    // The points where the pieces start, and the end.
    let mut starts = Vec::with_capacity(run.len() + 1);
    let mut t = BigRational::zero();
    for p in run {
        starts.push(t.clone());
        t += &p.length;
    }
    let end = t;
    let holds = |f: Ref, state: &Model| -> Result<bool, EvalError> {
        let mut values = std::collections::HashMap::new();
        for a in bdd.support(f) {
            if let Atom::Data { term, .. } = &bdd.atoms()[a as usize] {
                values.insert(a, logic::eval_bool(term, state, ctx)?);
            }
        }
        Ok(bdd.eval(f, &|v| values.get(&v).copied().unwrap_or(false)))
    };
    // The points where the phases so far can end.
    let mut ends: Vec<Iv> = vec![Iv::point(BigRational::zero())];
    for ph in ct {
        let mut next: Vec<Iv> = Vec::new();
        if ph.allow_empty && empty_ok(ph.bound) {
            if ph.inv == super::bdd::TRUE {
                next.extend(ends.iter().cloned());
            } else {
                // The peer's automata skip an empty phase with a formula only where the
                // state changes (or at the start): only there may it be empty.
                for t in starts.iter().chain(std::iter::once(&end)) {
                    if ends.iter().any(|b| !b.clip(t, t, true).is_empty()) {
                        next.push(Iv::point(t.clone()));
                    }
                }
            }
        }
        // Maximal runs of pieces where the phase's formula holds: [u, v].
        let len = lengths(ph.bound);
        let mut k = 0;
        while k < run.len() {
            if !holds(ph.inv, &run[k].state)? {
                k += 1;
                continue;
            }
            let u = starts[k].clone();
            let mut j = k;
            while j + 1 < run.len() && holds(ph.inv, &run[j + 1].state)? {
                j += 1;
            }
            let v = if j + 1 < run.len() {
                starts[j + 1].clone()
            } else {
                end.clone()
            };
            for b in &ends {
                // Starts in [u, v), ends in (start, v].
                let s = b.clip(&u, &v, false);
                if s.is_empty() {
                    continue;
                }
                let e = s.plus(&len).clip(&u, &v, true);
                if !e.is_empty() {
                    next.push(e);
                }
            }
            k = j + 1;
        }
        if next.is_empty() {
            return Ok(false);
        }
        ends = next;
    }
    Ok(true)
}
