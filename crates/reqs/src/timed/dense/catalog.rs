//! Hanfor's pattern catalog and the Duration Calculus reading the peer gives each
//! pattern in each scope: a list of *countertraces*, each a sequence of phases
//! `⌈φ₀⌉ ; ⌈φ₁⌉ ∧ ℓ ~ c ; ... ; true` that no run may show (a run is allowed when no
//! prefix of it can be cut into consecutive intervals matching the phases in order).
//!
//! The countertraces are those of Ultimate's `PatternType` classes (Library-srParse, at
//! the commit the regression files come from) as published in Hanfor's pattern
//! documentation; where Ultimate has no countertrace (the liveness patterns Response,
//! ResponseChain12 and ConstrainedChain in the scopes globally and after, and
//! ConstrainedChain after-until) vera reads the pattern as the same pattern in the
//! scope "before a `P` that never happens" (globally) or "after `P` until a `Q` that
//! never happens" (after): an obligation that nothing ends is never broken on a finite
//! run, so these countertraces forbid nothing, but their phases still say when the
//! requirement applies (docs/timed.md, "Dense time").

use super::bdd::{Bdd, Ref, FALSE, TRUE};
use super::{DenseScope, Kind};

/// A bound on the length `ℓ` of a phase, in ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// No bound (`ℓ > 0`, or any length for a phase that may be empty).
    None,
    /// `ℓ < c`.
    Lt(u64),
    /// `ℓ ≤ c`.
    Le(u64),
    /// `ℓ ≥ c`.
    Ge(u64),
    /// `ℓ > c`.
    Gt(u64),
}

impl Bound {
    /// The constant of the bound.
    pub fn value(self) -> Option<u64> {
        match self {
            Bound::None => None,
            Bound::Lt(c) | Bound::Le(c) | Bound::Ge(c) | Bound::Gt(c) => Some(c),
        }
    }

    /// `<` or `≤`.
    pub fn is_upper(self) -> bool {
        matches!(self, Bound::Lt(_) | Bound::Le(_))
    }

    /// `≥` or `>`.
    pub fn is_lower(self) -> bool {
        matches!(self, Bound::Ge(_) | Bound::Gt(_))
    }
}

/// One phase of a countertrace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DcPhase {
    /// The state formula that holds throughout the phase (a diagram over the current
    /// state).
    pub inv: Ref,
    /// The bound on its length.
    pub bound: Bound,
    /// The phase may be empty (a point).
    pub allow_empty: bool,
}

impl DcPhase {
    fn new(inv: Ref, bound: Bound, allow_empty: bool) -> DcPhase {
        // A non-empty phase has a positive length: `ℓ ≥ 0` and `ℓ > 0` say nothing more.
        let bound = match bound {
            Bound::Ge(0) | Bound::Gt(0) if !allow_empty => Bound::None,
            b => b,
        };
        DcPhase {
            inv,
            bound,
            allow_empty,
        }
    }
}

/// A countertrace: the phases in order.
pub type CounterTrace = Vec<DcPhase>;

/// `true`: any interval, the empty one included.
fn t() -> DcPhase {
    DcPhase::new(TRUE, Bound::None, true)
}

/// `⌈x⌉`.
fn p(x: Ref) -> DcPhase {
    DcPhase::new(x, Bound::None, false)
}

/// `⌈x⌉ ∧ ℓ ~ c`.
fn pb(x: Ref, b: Bound) -> DcPhase {
    DcPhase::new(x, b, false)
}

/// `⌈x⌉ ∧ ℓ ~ c`, or the empty interval.
fn pe(x: Ref, b: Bound) -> DcPhase {
    DcPhase::new(x, b, true)
}

/// The countertraces of a pattern in a scope. `f` are the pattern's formulas in the
/// order of its sentence (R, S, T, U, ...), `d` its durations in ticks (c1, c2), both as
/// many as [`Kind::formulas`] and [`Kind::durations`] say; `scope` holds the diagrams of
/// the scope's formulas.
pub fn countertraces(
    b: &mut Bdd,
    kind: Kind,
    scope: &DenseScope<Ref>,
    f: &[Ref],
    d: &[u64],
) -> Vec<CounterTrace> {
    use Bound::*;
    let g = |i: usize| f.get(i).copied().unwrap_or(TRUE);
    let (r, s, tt, u) = (g(0), g(1), g(2), g(3));
    let c1 = d.first().copied().unwrap_or(0);
    let c2 = d.get(1).copied().unwrap_or(0);
    // Connectives on diagrams.
    macro_rules! and { ($($x:expr),+) => {{ let mut acc = TRUE; $( let y = $x; acc = b.and(acc, y); )+ acc }}; }
    macro_rules! not {
        ($x:expr) => {{
            let y = $x;
            b.not(y)
        }};
    }
    let (nr, ns, nt) = (not!(r), not!(s), not!(tt));
    // The scope: `pre` are the phases before the pattern's own, `w(x)` is `x` restricted
    // to the scope (`¬P ∧ x` before P, `¬Q ∧ x` between and after-until), `post` the
    // phases after them (`⌈¬Q⌉;⌈Q⌉;true` between, else `true`).
    match kind {
        Kind::Absence => vec![match scope {
            DenseScope::Globally => vec![t(), p(r), t()],
            DenseScope::Before(pp) => {
                let np = not!(*pp);
                vec![p(np), p(and!(np, r)), t()]
            }
            DenseScope::AfterUntil(pp, q) => {
                let nq = not!(*q);
                vec![t(), p(*pp), p(nq), p(and!(nq, r)), t()]
            }
            DenseScope::After(pp) => vec![t(), p(*pp), t(), p(r), t()],
            DenseScope::Between(pp, q) => {
                let nq = not!(*q);
                vec![
                    t(),
                    p(and!(*pp, nq)),
                    p(nq),
                    p(and!(nq, r)),
                    p(nq),
                    p(*q),
                    t(),
                ]
            }
        }],
        Kind::Universality => vec![match scope {
            DenseScope::Globally => vec![t(), p(nr), t()],
            DenseScope::Before(pp) => {
                let np = not!(*pp);
                vec![p(np), p(and!(np, nr)), t()]
            }
            DenseScope::AfterUntil(pp, q) => {
                let nq = not!(*q);
                vec![t(), p(*pp), p(nq), p(and!(nr, nq)), t()]
            }
            DenseScope::After(pp) => vec![t(), p(*pp), t(), p(nr), t()],
            DenseScope::Between(pp, q) => {
                let nq = not!(*q);
                vec![
                    t(),
                    p(and!(*pp, nq)),
                    p(nq),
                    p(and!(nr, nq)),
                    p(nq),
                    p(*q),
                    t(),
                ]
            }
        }],
        Kind::Initialization => vec![match scope {
            DenseScope::Globally => vec![p(nr), t()],
            DenseScope::Before(pp) => {
                let np = not!(*pp);
                vec![p(and!(np, nr)), t()]
            }
            DenseScope::AfterUntil(pp, q) => {
                let nq = not!(*q);
                vec![t(), p(*pp), p(and!(nq, nr)), t()]
            }
            DenseScope::After(pp) => vec![t(), p(*pp), p(nr), t()],
            DenseScope::Between(pp, q) => {
                let nq = not!(*q);
                vec![t(), p(and!(*pp, nq)), p(and!(nq, nr)), t(), p(*q), t()]
            }
        }],
        Kind::Invariance => {
            let rns = and!(r, ns);
            vec![match scope {
                DenseScope::Globally => vec![t(), p(rns), t()],
                DenseScope::Before(pp) => {
                    let np = not!(*pp);
                    vec![p(np), p(and!(np, rns)), t()]
                }
                DenseScope::AfterUntil(pp, q) => {
                    let nq = not!(*q);
                    vec![t(), p(*pp), p(nq), p(and!(nq, rns)), t()]
                }
                DenseScope::After(pp) => vec![t(), p(*pp), t(), p(rns), t()],
                DenseScope::Between(pp, q) => {
                    let nq = not!(*q);
                    vec![
                        t(),
                        p(and!(*pp, nq)),
                        p(nq),
                        p(and!(nq, rns)),
                        p(nq),
                        p(*q),
                        t(),
                    ]
                }
            }]
        }
        Kind::Persistence => vec![match scope {
            DenseScope::Globally => vec![t(), p(r), p(nr), t()],
            DenseScope::Before(pp) => {
                let np = not!(*pp);
                vec![p(np), p(and!(np, r)), p(and!(np, nr)), t()]
            }
            DenseScope::AfterUntil(pp, q) => {
                let nq = not!(*q);
                vec![t(), p(*pp), p(nq), p(and!(r, nq)), p(and!(nr, nq)), t()]
            }
            DenseScope::After(pp) => vec![t(), p(*pp), t(), p(r), p(nr), t()],
            DenseScope::Between(pp, q) => {
                let nq = not!(*q);
                vec![
                    t(),
                    p(and!(*pp, nq)),
                    p(nq),
                    p(and!(r, nq)),
                    p(and!(nr, nq)),
                    p(nq),
                    p(*q),
                    t(),
                ]
            }
        }],
        Kind::Response => {
            let rns = and!(r, ns);
            match scope {
                DenseScope::Before(pp) => {
                    let np = not!(*pp);
                    vec![vec![p(np), p(and!(np, rns)), p(and!(np, ns)), p(*pp), t()]]
                }
                DenseScope::Between(pp, q) => {
                    let nq = not!(*q);
                    vec![vec![
                        t(),
                        p(and!(*pp, nq)),
                        p(nq),
                        p(and!(nq, rns)),
                        p(and!(nq, ns)),
                        p(*q),
                        t(),
                    ]]
                }
                DenseScope::AfterUntil(pp, q) => {
                    let nq = not!(*q);
                    vec![vec![
                        t(),
                        p(*pp),
                        p(nq),
                        p(and!(nq, rns)),
                        p(and!(nq, ns)),
                        p(*q),
                        t(),
                    ]]
                }
                // Liveness: read as "before FALSE" (globally) and "after P until FALSE".
                DenseScope::Globally => vec![vec![p(TRUE), p(rns), p(ns), p(FALSE), t()]],
                DenseScope::After(pp) => {
                    vec![vec![t(), p(*pp), p(TRUE), p(rns), p(ns), p(FALSE), t()]]
                }
            }
        }
        Kind::ResponseChain12 => {
            // (pre, scope-restricted formula, end phase)
            let (pre, nq, end): (Vec<DcPhase>, Ref, Ref) = match scope {
                DenseScope::Before(pp) => (vec![], not!(*pp), *pp),
                DenseScope::Between(pp, q) => {
                    let nq = not!(*q);
                    (vec![t(), p(and!(*pp, nq))], nq, *q)
                }
                DenseScope::AfterUntil(pp, q) => (vec![t(), p(*pp)], not!(*q), *q),
                DenseScope::Globally => (vec![], TRUE, FALSE),
                DenseScope::After(pp) => (vec![t(), p(*pp)], TRUE, FALSE),
            };
            let mut a = pre.clone();
            a.extend([p(nq), p(and!(nq, r)), p(and!(nq, ns)), p(end), t()]);
            let mut c = pre;
            c.extend([
                p(nq),
                p(and!(nq, r)),
                p(nq),
                p(and!(nq, s)),
                p(and!(nq, nt)),
                p(end),
                t(),
            ]);
            vec![a, c]
        }
        Kind::ConstrainedChain => {
            let (pre, nq, end): (Vec<DcPhase>, Ref, Ref) = match scope {
                DenseScope::Before(pp) => (vec![], not!(*pp), *pp),
                DenseScope::Between(pp, q) => {
                    let nq = not!(*q);
                    (vec![t(), p(and!(*pp, nq))], nq, *q)
                }
                DenseScope::AfterUntil(pp, q) => (vec![t(), p(*pp)], not!(*q), *q),
                DenseScope::Globally => (vec![], TRUE, FALSE),
                DenseScope::After(pp) => (vec![t(), p(*pp)], TRUE, FALSE),
            };
            let mut a = pre.clone();
            a.extend([p(nq), p(and!(nq, r)), p(and!(nq, ns)), p(end), t()]);
            let mut c = pre.clone();
            c.extend([
                p(nq),
                p(and!(nq, r)),
                p(nq),
                p(and!(nq, s)),
                p(and!(nq, nt)),
                p(end),
                t(),
            ]);
            let mut e = pre;
            e.extend([
                p(nq),
                p(and!(nq, r)),
                p(nq),
                p(and!(nq, s)),
                p(and!(nq, nt)),
                p(and!(nq, nt, u)),
                p(nq),
                p(and!(nq, tt)),
                p(nq),
                p(end),
                t(),
            ]);
            vec![a, c, e]
        }
        Kind::ExistenceBoundU => vec![match scope {
            DenseScope::Globally => vec![t(), p(r), p(nr), p(r), p(nr), p(r), t()],
            DenseScope::Before(pp) => {
                let np = not!(*pp);
                let (a, na) = (and!(np, r), and!(np, nr));
                vec![p(np), p(a), p(na), p(a), p(na), p(a), t()]
            }
            DenseScope::AfterUntil(pp, q) => {
                let nq = not!(*q);
                let (a, na) = (and!(nq, r), and!(nq, nr));
                vec![t(), p(*pp), p(nq), p(a), p(na), p(a), p(na), p(a), t()]
            }
            DenseScope::After(pp) => vec![t(), p(*pp), t(), p(r), p(nr), p(r), p(nr), p(r), t()],
            DenseScope::Between(pp, q) => {
                let nq = not!(*q);
                let (a, na) = (and!(nq, r), and!(nq, nr));
                vec![
                    t(),
                    p(and!(*pp, nq)),
                    p(nq),
                    p(a),
                    p(na),
                    p(a),
                    p(na),
                    p(a),
                    p(nq),
                    p(*q),
                    t(),
                ]
            }
        }],
        Kind::Precedence => vec![match scope {
            // R is "S previously held"'s trigger: the sentence is "if R holds, then S
            // previously held".
            DenseScope::Globally => vec![p(ns), p(r), t()],
            DenseScope::Before(pp) => {
                let np = not!(*pp);
                vec![p(and!(np, ns)), p(and!(r, np)), t()]
            }
            DenseScope::AfterUntil(pp, q) => {
                let nq = not!(*q);
                vec![t(), p(*pp), p(and!(ns, nq)), p(and!(r, nq)), t()]
            }
            DenseScope::After(pp) => vec![t(), p(*pp), p(ns), p(r), t()],
            DenseScope::Between(pp, q) => {
                let nq = not!(*q);
                vec![
                    t(),
                    p(and!(*pp, ns, nq)),
                    p(and!(ns, nq)),
                    p(and!(r, nq)),
                    p(nq),
                    p(*q),
                    t(),
                ]
            }
        }],
        Kind::PrecedenceChain12 => vec![match scope {
            DenseScope::Globally => vec![p(nt), p(r), t(), p(s), t()],
            DenseScope::Before(pp) => {
                let np = not!(*pp);
                vec![p(and!(np, nt)), p(and!(np, r)), p(np), p(and!(np, s)), t()]
            }
            DenseScope::AfterUntil(pp, q) => {
                let nq = not!(*q);
                vec![
                    t(),
                    p(*pp),
                    p(and!(nq, nt)),
                    p(and!(nq, r)),
                    p(nq),
                    p(and!(nq, s)),
                    t(),
                ]
            }
            DenseScope::After(pp) => vec![t(), p(*pp), p(nt), p(r), t(), p(s), t()],
            DenseScope::Between(pp, q) => {
                let nq = not!(*q);
                vec![
                    t(),
                    p(and!(*pp, nq)),
                    p(and!(nq, nt)),
                    p(and!(nq, r)),
                    p(nq),
                    p(and!(nq, s)),
                    p(nq),
                    p(*q),
                    t(),
                ]
            }
        }],
        Kind::PrecedenceChain21 => {
            // (pre, scope-restricted formula, post)
            let (pre, w, post): (Vec<DcPhase>, Ref, Vec<DcPhase>) = match scope {
                DenseScope::Globally => (vec![], TRUE, vec![t()]),
                DenseScope::Before(pp) => (vec![], not!(*pp), vec![t()]),
                DenseScope::AfterUntil(pp, q) => (vec![t(), p(*pp)], not!(*q), vec![t()]),
                DenseScope::After(pp) => (vec![t(), p(*pp)], TRUE, vec![t()]),
                DenseScope::Between(pp, q) => {
                    let nq = not!(*q);
                    (vec![t(), p(and!(*pp, nq))], nq, vec![p(nq), p(*q), t()])
                }
            };
            let mut out = Vec::new();
            for first in [nt, ns] {
                let mut c = pre.clone();
                c.extend([p(and!(w, first)), p(and!(w, r))]);
                c.extend(post.iter().copied());
                out.push(c);
            }
            let mut c = pre;
            c.extend([
                p(and!(w, nt)),
                p(and!(w, nt, s)),
                p(and!(w, nt)),
                p(and!(w, tt, ns)),
                p(and!(w, ns)),
                p(and!(w, r)),
            ]);
            c.extend(post);
            out.push(c);
            out
        }
        Kind::DurationBoundL => vec![match scope {
            DenseScope::Globally => vec![t(), p(nr), pb(r, Lt(c1)), p(nr), t()],
            DenseScope::Before(pp) => {
                let np = not!(*pp);
                vec![
                    p(np),
                    p(and!(np, nr)),
                    pb(and!(np, r), Lt(c1)),
                    p(and!(np, nr)),
                    t(),
                ]
            }
            DenseScope::AfterUntil(pp, q) => {
                let nq = not!(*q);
                vec![
                    t(),
                    p(*pp),
                    p(nq),
                    p(and!(nq, nr)),
                    pb(and!(nq, r), Lt(c1)),
                    p(and!(nq, nr)),
                    t(),
                ]
            }
            DenseScope::After(pp) => vec![t(), p(*pp), t(), p(nr), pb(r, Lt(c1)), p(nr), t()],
            DenseScope::Between(pp, q) => {
                let nq = not!(*q);
                vec![
                    t(),
                    p(and!(*pp, nq)),
                    p(nq),
                    p(and!(nq, nr)),
                    pb(and!(nq, r), Lt(c1)),
                    p(and!(nq, nr)),
                    p(nq),
                    p(*q),
                    t(),
                ]
            }
        }],
        Kind::DurationBoundU => vec![match scope {
            DenseScope::Globally => vec![t(), pb(r, Ge(c1)), t()],
            DenseScope::Before(pp) => {
                let np = not!(*pp);
                vec![p(np), pb(and!(np, r), Ge(c1)), t()]
            }
            DenseScope::AfterUntil(pp, q) => {
                let nq = not!(*q);
                vec![t(), p(*pp), p(nq), pb(and!(nq, r), Ge(c1)), t()]
            }
            DenseScope::After(pp) => vec![t(), p(*pp), t(), pb(r, Ge(c1)), t()],
            DenseScope::Between(pp, q) => {
                let nq = not!(*q);
                vec![
                    t(),
                    p(and!(*pp, nq)),
                    p(nq),
                    pb(and!(nq, r), Ge(c1)),
                    p(nq),
                    p(*q),
                    t(),
                ]
            }
        }],
        Kind::EdgeResponseBoundL2 => {
            let (pre, w, post): (Vec<DcPhase>, Ref, Vec<DcPhase>) = match scope {
                DenseScope::Globally => (vec![t()], TRUE, vec![t()]),
                DenseScope::Before(pp) => (vec![p(not!(*pp))], not!(*pp), vec![t()]),
                DenseScope::AfterUntil(pp, q) => {
                    (vec![t(), p(*pp), p(not!(*q))], not!(*q), vec![t()])
                }
                DenseScope::After(pp) => (vec![t(), p(*pp), t()], TRUE, vec![t()]),
                DenseScope::Between(pp, q) => {
                    let nq = not!(*q);
                    (
                        vec![t(), p(and!(*pp, nq)), p(nq)],
                        nq,
                        vec![p(nq), p(*q), t()],
                    )
                }
            };
            let mut a = pre.clone();
            a.extend([
                p(and!(nr, w)),
                p(and!(r, w)),
                pb(and!(s, w), Lt(c1)),
                p(and!(ns, w)),
            ]);
            a.extend(post.iter().copied());
            let mut c = pre;
            c.extend([p(and!(nr, w)), p(and!(r, ns, w))]);
            c.extend(post);
            vec![a, c]
        }
        Kind::EdgeResponseBoundU1 => vec![match scope {
            DenseScope::Globally => vec![t(), p(nr), pb(r, Le(c1)), p(and!(ns, nr)), t()],
            DenseScope::Before(pp) => {
                // Ultimate's reading in this scope has `ℓ ≥ c1` where the others have
                // `ℓ ≤ c1`; kept as the peer has it.
                let np = not!(*pp);
                vec![
                    p(np),
                    p(and!(np, nr)),
                    pb(and!(np, r), Ge(c1)),
                    p(and!(np, ns, nr)),
                    t(),
                ]
            }
            DenseScope::AfterUntil(pp, q) => {
                let nq = not!(*q);
                vec![
                    t(),
                    p(*pp),
                    p(nq),
                    p(and!(nq, nr)),
                    pb(and!(nq, r), Le(c1)),
                    p(and!(nq, ns, nr)),
                    t(),
                ]
            }
            DenseScope::After(pp) => {
                vec![t(), p(*pp), t(), p(nr), pb(r, Le(c1)), p(and!(ns, nr)), t()]
            }
            DenseScope::Between(pp, q) => {
                let nq = not!(*q);
                vec![
                    t(),
                    p(and!(*pp, nq)),
                    p(nq),
                    p(and!(nq, nr)),
                    pb(and!(nq, r), Le(c1)),
                    p(and!(nq, ns, nr)),
                    p(nq),
                    p(*q),
                    t(),
                ]
            }
        }],
        Kind::EdgeResponseDelay => vec![match scope {
            DenseScope::Globally => vec![t(), p(nr), p(and!(r, ns)), pb(ns, Gt(c1)), t()],
            DenseScope::Before(pp) => {
                let np = not!(*pp);
                vec![
                    p(np),
                    p(and!(np, nr)),
                    p(and!(np, r, ns)),
                    pb(and!(np, ns), Gt(c1)),
                    t(),
                ]
            }
            DenseScope::After(pp) => {
                vec![t(), p(*pp), t(), p(nr), p(and!(r, ns)), pb(ns, Gt(c1)), t()]
            }
            DenseScope::Between(pp, q) => {
                let nq = not!(*q);
                vec![
                    t(),
                    p(and!(*pp, nq)),
                    p(nq),
                    p(and!(nq, nr)),
                    p(and!(nq, r, ns)),
                    pb(and!(nq, ns), Gt(c1)),
                    t(),
                    p(*q),
                    t(),
                ]
            }
            DenseScope::AfterUntil(pp, q) => {
                let nq = not!(*q);
                vec![
                    t(),
                    p(*pp),
                    p(nq),
                    p(and!(nq, nr)),
                    p(and!(nq, r, ns)),
                    pb(and!(nq, ns), Gt(c1)),
                    t(),
                ]
            }
        }],
        Kind::EdgeResponseDelayBoundL2 => {
            let (pre, w, post): (Vec<DcPhase>, Ref, Vec<DcPhase>) = match scope {
                DenseScope::Globally => (vec![t()], TRUE, vec![t()]),
                DenseScope::Before(pp) => (vec![p(not!(*pp))], not!(*pp), vec![t()]),
                DenseScope::After(pp) => (vec![t(), p(*pp), t()], TRUE, vec![t()]),
                DenseScope::Between(pp, q) => {
                    let nq = not!(*q);
                    (
                        vec![t(), p(and!(*pp, nq)), p(nq)],
                        nq,
                        vec![t(), p(*q), t()],
                    )
                }
                DenseScope::AfterUntil(pp, q) => {
                    (vec![t(), p(*pp), p(not!(*q))], not!(*q), vec![t()])
                }
            };
            let mut a = pre.clone();
            a.extend([p(and!(w, nr)), p(and!(w, r, ns)), pb(and!(w, ns), Gt(c1))]);
            a.extend(post.iter().copied());
            let mut c = pre;
            c.extend([
                p(and!(w, nr)),
                p(and!(w, r)),
                pb(w, Lt(c1)),
                pb(and!(w, s), Lt(c2)),
                p(and!(w, ns)),
            ]);
            c.extend(post);
            vec![a, c]
        }
        Kind::ReccurrenceBoundL => vec![match scope {
            DenseScope::Globally => vec![t(), pb(nr, Gt(c1)), t()],
            DenseScope::Before(pp) => {
                let np = not!(*pp);
                vec![p(np), pb(and!(np, nr), Gt(c1)), t()]
            }
            DenseScope::AfterUntil(pp, q) => {
                let nq = not!(*q);
                vec![t(), p(*pp), p(nq), pb(and!(nq, nr), Gt(c1)), t()]
            }
            DenseScope::After(pp) => vec![t(), p(*pp), t(), pb(nr, Gt(c1)), t()],
            DenseScope::Between(pp, q) => {
                let nq = not!(*q);
                vec![
                    t(),
                    p(and!(*pp, nq)),
                    p(nq),
                    pb(and!(nq, nr), Gt(c1)),
                    p(nq),
                    p(*q),
                    t(),
                ]
            }
        }],
        Kind::UniversalityDelay => vec![match scope {
            DenseScope::Globally => vec![pb(TRUE, Ge(c1)), p(nr), t()],
            DenseScope::Before(pp) => {
                let np = not!(*pp);
                vec![pb(np, Ge(c1)), p(and!(np, nr)), t()]
            }
            DenseScope::AfterUntil(pp, q) => {
                let nq = not!(*q);
                vec![t(), p(*pp), pb(nq, Ge(c1)), p(and!(nq, nr)), t()]
            }
            DenseScope::After(pp) => vec![t(), p(*pp), pb(TRUE, Ge(c1)), p(nr), t()],
            DenseScope::Between(pp, q) => {
                let nq = not!(*q);
                vec![
                    t(),
                    p(and!(*pp, nq)),
                    pb(nq, Ge(c1)),
                    p(and!(nq, nr)),
                    t(),
                    p(*q),
                    t(),
                ]
            }
        }],
        Kind::ResponseDelay => vec![match scope {
            DenseScope::Globally => vec![t(), p(and!(r, ns)), pb(ns, Gt(c1)), t()],
            DenseScope::Before(pp) => {
                let np = not!(*pp);
                vec![p(np), p(and!(np, r, ns)), pb(and!(np, ns), Gt(c1)), t()]
            }
            DenseScope::AfterUntil(pp, q) => {
                let nq = not!(*q);
                vec![
                    t(),
                    p(*pp),
                    p(nq),
                    p(and!(nq, r, ns)),
                    pb(and!(nq, ns), Gt(c1)),
                    t(),
                ]
            }
            DenseScope::After(pp) => vec![t(), p(*pp), t(), p(and!(r, ns)), pb(ns, Gt(c1)), t()],
            DenseScope::Between(pp, q) => {
                let nq = not!(*q);
                vec![
                    t(),
                    p(and!(*pp, nq)),
                    p(nq),
                    p(and!(nq, r, ns)),
                    pb(and!(nq, ns), Gt(c1)),
                    p(nq),
                    p(*q),
                    t(),
                ]
            }
        }],
        Kind::ResponseBoundL12 => vec![match scope {
            DenseScope::Globally => vec![t(), pb(r, Ge(c1)), pe(s, Lt(c2)), p(ns), t()],
            DenseScope::Before(pp) => {
                let np = not!(*pp);
                vec![
                    p(np),
                    pb(and!(np, r), Ge(c1)),
                    pe(and!(np, s), Lt(c2)),
                    p(and!(np, ns)),
                    t(),
                ]
            }
            // No `true` between the scope's start and R here, as the peer has it.
            DenseScope::After(pp) => vec![t(), p(*pp), pb(r, Ge(c1)), pe(s, Lt(c2)), p(ns), t()],
            DenseScope::Between(pp, q) => {
                let nq = not!(*q);
                vec![
                    t(),
                    p(and!(*pp, nq)),
                    p(nq),
                    pb(and!(nq, r), Ge(c1)),
                    pe(and!(nq, s), Lt(c2)),
                    p(and!(nq, ns)),
                    t(),
                    p(*q),
                    t(),
                ]
            }
            DenseScope::AfterUntil(pp, q) => {
                let nq = not!(*q);
                vec![
                    t(),
                    p(*pp),
                    p(nq),
                    pb(and!(nq, r), Ge(c1)),
                    pe(and!(nq, s), Lt(c2)),
                    p(and!(nq, ns)),
                    t(),
                ]
            }
        }],
        Kind::ResponseBoundL1 | Kind::BndEntryCondition => vec![match scope {
            DenseScope::Globally => vec![t(), pb(r, Ge(c1)), p(ns), t()],
            DenseScope::Before(pp) => {
                let np = not!(*pp);
                vec![p(np), pb(and!(np, r), Ge(c1)), p(and!(np, ns)), t()]
            }
            DenseScope::AfterUntil(pp, q) => {
                let nq = not!(*q);
                vec![
                    t(),
                    p(*pp),
                    p(nq),
                    pb(and!(nq, r), Ge(c1)),
                    p(and!(nq, ns)),
                    t(),
                ]
            }
            DenseScope::After(pp) => vec![t(), p(*pp), t(), pb(r, Ge(c1)), p(ns), t()],
            DenseScope::Between(pp, q) => {
                let nq = not!(*q);
                vec![
                    t(),
                    p(and!(*pp, nq)),
                    p(nq),
                    pb(and!(nq, r), Ge(c1)),
                    p(and!(nq, ns)),
                    p(nq),
                    p(*q),
                    t(),
                ]
            }
        }],
        Kind::ResponseDelayBoundL1 => vec![match scope {
            DenseScope::Globally => vec![t(), pb(r, Ge(c1)), pb(ns, Gt(c2)), t()],
            DenseScope::Before(pp) => {
                let np = not!(*pp);
                vec![
                    p(np),
                    pb(and!(np, r), Ge(c1)),
                    pb(and!(np, ns), Gt(c2)),
                    t(),
                ]
            }
            DenseScope::After(pp) => vec![t(), p(*pp), t(), pb(r, Ge(c1)), pb(ns, Gt(c2)), t()],
            DenseScope::Between(pp, q) => {
                let nq = not!(*q);
                vec![
                    t(),
                    p(and!(*pp, nq)),
                    p(nq),
                    pb(and!(nq, r), Ge(c1)),
                    pb(and!(nq, ns), Gt(c2)),
                    t(),
                    p(*q),
                    t(),
                ]
            }
            DenseScope::AfterUntil(pp, q) => {
                let nq = not!(*q);
                vec![
                    t(),
                    p(*pp),
                    p(nq),
                    pb(and!(nq, r), Ge(c1)),
                    pb(and!(nq, ns), Gt(c2)),
                    t(),
                ]
            }
        }],
        Kind::ResponseDelayBoundL2 => {
            let (pre, w, post): (Vec<DcPhase>, Ref, Vec<DcPhase>) = match scope {
                DenseScope::Globally => (vec![t()], TRUE, vec![t()]),
                DenseScope::Before(pp) => (vec![p(not!(*pp))], not!(*pp), vec![t()]),
                DenseScope::After(pp) => (vec![t(), p(*pp), t()], TRUE, vec![t()]),
                DenseScope::Between(pp, q) => {
                    let nq = not!(*q);
                    (
                        vec![t(), p(and!(*pp, nq)), p(nq)],
                        nq,
                        vec![t(), p(*q), t()],
                    )
                }
                DenseScope::AfterUntil(pp, q) => {
                    (vec![t(), p(*pp), p(not!(*q))], not!(*q), vec![t()])
                }
            };
            let mut a = pre.clone();
            a.extend([p(and!(w, r)), pb(and!(w, ns), Gt(c1))]);
            a.extend(post.iter().copied());
            let mut c = pre;
            c.extend([
                p(and!(w, r)),
                pe(and!(w, ns), Lt(c1)),
                pb(and!(w, s), Lt(c2)),
                p(and!(w, ns)),
            ]);
            c.extend(post);
            vec![a, c]
        }
        Kind::InvarianceBoundL2 => vec![match scope {
            DenseScope::Globally => vec![t(), p(r), pb(TRUE, Lt(c1)), p(ns), t()],
            DenseScope::Before(pp) => {
                let np = not!(*pp);
                vec![p(np), p(and!(r, np)), pb(np, Lt(c1)), p(and!(ns, np)), t()]
            }
            DenseScope::AfterUntil(pp, q) => {
                let nq = not!(*q);
                vec![
                    t(),
                    p(*pp),
                    p(nq),
                    p(and!(r, nq)),
                    pb(nq, Lt(c1)),
                    p(and!(ns, nq)),
                    t(),
                ]
            }
            DenseScope::After(pp) => vec![t(), p(*pp), t(), p(r), pb(TRUE, Lt(c1)), p(ns), t()],
            DenseScope::Between(pp, q) => {
                let nq = not!(*q);
                vec![
                    t(),
                    p(and!(*pp, nq)),
                    p(nq),
                    p(and!(r, nq)),
                    pb(nq, Lt(c1)),
                    p(and!(ns, nq)),
                    p(nq),
                    p(*q),
                    t(),
                ]
            }
        }],
        Kind::TriggerResponseBoundL1 => {
            let (pre, w, post): (Vec<DcPhase>, Ref, Vec<DcPhase>) = match scope {
                DenseScope::Globally => (vec![t()], TRUE, vec![t()]),
                DenseScope::Before(pp) => (vec![p(not!(*pp))], not!(*pp), vec![t()]),
                DenseScope::After(pp) => (vec![t(), p(*pp), t()], TRUE, vec![t()]),
                DenseScope::Between(pp, q) => {
                    let nq = not!(*q);
                    (
                        vec![t(), p(and!(*pp, nq)), p(nq)],
                        nq,
                        vec![t(), p(*q), t()],
                    )
                }
                DenseScope::AfterUntil(pp, q) => {
                    (vec![t(), p(*pp), p(not!(*q))], not!(*q), vec![t()])
                }
            };
            let mut a = pre;
            a.extend([pb(and!(w, r), Ge(c1)), p(and!(w, r, s, nt))]);
            a.extend(post);
            vec![a]
        }
        Kind::TriggerResponseDelayBoundL1 => {
            let (pre, w, post): (Vec<DcPhase>, Ref, Vec<DcPhase>) = match scope {
                DenseScope::Globally => (vec![t()], TRUE, vec![t()]),
                DenseScope::Before(pp) => (vec![p(not!(*pp))], not!(*pp), vec![t()]),
                DenseScope::After(pp) => (vec![t(), p(*pp), t()], TRUE, vec![t()]),
                DenseScope::Between(pp, q) => {
                    let nq = not!(*q);
                    (
                        vec![t(), p(and!(*pp, nq)), p(nq)],
                        nq,
                        vec![t(), p(*q), t()],
                    )
                }
                DenseScope::AfterUntil(pp, q) => {
                    (vec![t(), p(*pp), p(not!(*q))], not!(*q), vec![t()])
                }
            };
            let mut a = pre;
            a.extend([
                pb(and!(w, r), Ge(c1)),
                p(and!(w, r, s, nt)),
                pb(and!(w, nt), Gt(c2)),
            ]);
            a.extend(post);
            vec![a]
        }
    }
}
