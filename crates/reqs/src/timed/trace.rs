//! The patterns evaluated on a concrete finite trace, straight from their definitions
//! (docs/timed.md), without the monitors of [`super::unroll`]: the independent check
//! of every witness trace, and the reference the monitors are tested against.
//!
//! On a finite trace an obligation that is still open at the last step (a `within d`
//! whose `d` has not run out) is not a violation.

use super::{Pattern, Scope, Timing, Trigger};
use logic::{Context, EvalError, Model, Term};

/// A trace: one state (values of the schema's variables) per step.
pub type Trace = Vec<Model>;

struct Eval<'a> {
    trace: &'a [Model],
    ctx: &'a Context,
}

impl Eval<'_> {
    fn holds(&self, f: &Term, t: usize) -> Result<bool, EvalError> {
        logic::eval_bool(f, &self.trace[t], self.ctx)
    }

    fn in_scope(&self, s: &Scope, t: usize) -> Result<bool, EvalError> {
        Ok(match s {
            Scope::Globally => true,
            Scope::While(c) => self.holds(c, t)?,
            Scope::After(e) => {
                let mut any = false;
                for u in 0..=t {
                    any |= self.holds(e, u)?;
                }
                any
            }
            Scope::AfterUntil(e, f) => {
                // Some u <= t opens the scope, and no step of u..=t closes it.
                let mut open = false;
                for u in 0..=t {
                    if self.holds(f, u)? {
                        open = false;
                    } else if self.holds(e, u)? {
                        open = true;
                    }
                }
                open
            }
            Scope::Before(f) => {
                let mut none = true;
                for u in 0..=t {
                    none &= !self.holds(f, u)?;
                }
                none
            }
        })
    }

    fn triggered(&self, g: &Trigger, t: usize) -> Result<bool, EvalError> {
        Ok(match g {
            Trigger::Always => true,
            Trigger::Level(c) => self.holds(c, t)?,
            Trigger::Edge(c) => self.holds(c, t)? && (t == 0 || !self.holds(c, t - 1)?),
            Trigger::Initially => t == 0,
            Trigger::HeldFor(c, d) => {
                let d = *d as usize;
                if t < d {
                    return Ok(false);
                }
                let mut all = true;
                for u in t - d..=t {
                    all &= self.holds(c, u)?;
                }
                all
            }
            Trigger::WithinLast(c, d) => {
                let mut any = false;
                for u in t.saturating_sub(*d as usize)..=t {
                    any |= self.holds(c, u)?;
                }
                any
            }
        })
    }

    /// The step where a trigger at `t` is violated, if it is (within the trace).
    fn violated(&self, p: &Pattern, t: usize) -> Result<Option<usize>, EvalError> {
        let n = self.trace.len();
        let r = |u: usize| self.holds(&p.response, u);
        Ok(match &p.timing {
            Timing::Immediately => (!r(t)?).then_some(t),
            Timing::Next => (t + 1 < n && !r(t + 1)?).then_some(t + 1),
            Timing::Within(d) => {
                let end = t + *d as usize;
                if end >= n {
                    None
                } else {
                    let mut met = false;
                    for u in t..=end {
                        met |= r(u)?;
                    }
                    (!met).then_some(end)
                }
            }
            Timing::For(d) => {
                let mut at = None;
                for u in t..=(t + *d as usize).min(n - 1) {
                    if !r(u)? {
                        at = Some(u);
                        break;
                    }
                }
                at
            }
            Timing::NotBefore(d) => {
                let mut at = None;
                for u in t..(t + *d as usize).min(n) {
                    if r(u)? {
                        at = Some(u);
                        break;
                    }
                }
                at
            }
            Timing::Until(c) => {
                let mut at = None;
                for u in t..n {
                    if self.holds(c, u)? {
                        break;
                    }
                    if !r(u)? {
                        at = Some(u);
                        break;
                    }
                }
                at
            }
            Timing::Before(c) => {
                let mut at = None;
                let mut met = false;
                for v in t..n {
                    if v > t && self.holds(c, v)? {
                        if !met {
                            at = Some(v);
                        }
                        break;
                    }
                    met |= r(v)?;
                }
                at
            }
        })
    }
}

/// The steps where `p` fires on the trace.
pub fn fires(p: &Pattern, trace: &[Model], ctx: &Context) -> Result<Vec<usize>, EvalError> {
    let e = Eval { trace, ctx };
    let mut out = Vec::new();
    for t in 0..trace.len() {
        if e.in_scope(&p.scope, t)? && e.triggered(&p.trigger, t)? {
            out.push(t);
        }
    }
    Ok(out)
}

/// The steps where `p` is violated on the trace (sorted, each once).
pub fn violations(p: &Pattern, trace: &[Model], ctx: &Context) -> Result<Vec<usize>, EvalError> {
    let e = Eval { trace, ctx };
    let mut out = Vec::new();
    for t in fires(p, trace, ctx)? {
        if let Some(v) = e.violated(p, t)? {
            out.push(v);
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// The steps where a plain formula (which must hold at every step) is false.
pub fn formula_violations(
    f: &Term,
    trace: &[Model],
    ctx: &Context,
) -> Result<Vec<usize>, EvalError> {
    let mut out = Vec::new();
    for (t, s) in trace.iter().enumerate() {
        if !logic::eval_bool(f, s, ctx)? {
            out.push(t);
        }
    }
    Ok(out)
}
