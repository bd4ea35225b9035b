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

// Connectives on diagrams, built in the diagram store `$b` from left to right.
macro_rules! and { ($b:expr; $($x:expr),+) => {{ let mut acc = TRUE; $( let y = $x; acc = $b.and(acc, y); )+ acc }}; }
macro_rules! not {
    ($b:expr; $x:expr) => {{
        let y = $x;
        $b.not(y)
    }};
}

/// A pattern's formulas (R, S, T, U), the negations of the first three, and its
/// durations in ticks (c1, c2).
#[derive(Debug, Clone, Copy)]
struct Operands {
    r: Ref,
    s: Ref,
    tt: Ref,
    u: Ref,
    nr: Ref,
    ns: Ref,
    nt: Ref,
    c1: u64,
    c2: u64,
}

impl Operands {
    /// Reads the formulas `f` and durations `d` (missing ones are `TRUE` and 0) and
    /// builds the negations in `b`.
    fn new(b: &mut Bdd, f: &[Ref], d: &[u64]) -> Operands {
        let g = |i: usize| f.get(i).copied().unwrap_or(TRUE);
        let (r, s, tt, u) = (g(0), g(1), g(2), g(3));
        let c1 = d.first().copied().unwrap_or(0);
        let c2 = d.get(1).copied().unwrap_or(0);
        let (nr, ns, nt) = (not!(b; r), not!(b; s), not!(b; tt));
        Operands {
            r,
            s,
            tt,
            u,
            nr,
            ns,
            nt,
            c1,
            c2,
        }
    }
}

/// The countertraces of a pattern in a scope. `f` are the pattern's formulas in the
/// order of its sentence (R, S, T, U, ...), `d` its durations in ticks (c1, c2), both as
/// many as [`Kind::formulas`] and [`Kind::durations`] say; `scope` holds the diagrams of
/// the scope's formulas. In the pattern functions below, `pre` are the phases before
/// the pattern's own, `w(x)` is `x` restricted to the scope (`¬P ∧ x` before P, `¬Q ∧ x`
/// between and after-until), `post` the phases after them (`⌈¬Q⌉;⌈Q⌉;true` between,
/// else `true`).
pub fn countertraces(
    b: &mut Bdd,
    kind: Kind,
    scope: &DenseScope<Ref>,
    f: &[Ref],
    d: &[u64],
) -> Vec<CounterTrace> {
    let o = Operands::new(b, f, d);
    match kind {
        Kind::Absence => absence(b, o, scope),
        Kind::Universality => universality(b, o, scope),
        Kind::Initialization => initialization(b, o, scope),
        Kind::Invariance => invariance(b, o, scope),
        Kind::Persistence => persistence(b, o, scope),
        Kind::Response => response(b, o, scope),
        Kind::ResponseChain12 => response_chain12(b, o, scope),
        Kind::ConstrainedChain => constrained_chain(b, o, scope),
        Kind::ExistenceBoundU => existence_bound_u(b, o, scope),
        Kind::Precedence => precedence(b, o, scope),
        Kind::PrecedenceChain12 => precedence_chain12(b, o, scope),
        Kind::PrecedenceChain21 => precedence_chain21(b, o, scope),
        Kind::DurationBoundL => duration_bound_l(b, o, scope),
        Kind::DurationBoundU => duration_bound_u(b, o, scope),
        Kind::EdgeResponseBoundL2 => edge_response_bound_l2(b, o, scope),
        Kind::EdgeResponseBoundU1 => edge_response_bound_u1(b, o, scope),
        Kind::EdgeResponseDelay => edge_response_delay(b, o, scope),
        Kind::EdgeResponseDelayBoundL2 => edge_response_delay_bound_l2(b, o, scope),
        Kind::ReccurrenceBoundL => reccurrence_bound_l(b, o, scope),
        Kind::UniversalityDelay => universality_delay(b, o, scope),
        Kind::ResponseDelay => response_delay(b, o, scope),
        Kind::ResponseBoundL12 => response_bound_l12(b, o, scope),
        Kind::ResponseBoundL1 | Kind::BndEntryCondition => response_bound_l1(b, o, scope),
        Kind::ResponseDelayBoundL1 => response_delay_bound_l1(b, o, scope),
        Kind::ResponseDelayBoundL2 => response_delay_bound_l2(b, o, scope),
        Kind::InvarianceBoundL2 => invariance_bound_l2(b, o, scope),
        Kind::TriggerResponseBoundL1 => trigger_response_bound_l1(b, o, scope),
        Kind::TriggerResponseDelayBoundL1 => trigger_response_delay_bound_l1(b, o, scope),
    }
}

/// The one countertrace `true ; ⌈x₁⌉ ∧ ℓ ~ c₁ ; ... ; true` of a pattern whose phases
/// `xs` (each a formula and its bound) are restricted to the scope, between the scope's
/// phases before and after them.
fn one_scoped_trace(
    b: &mut Bdd,
    scope: &DenseScope<Ref>,
    xs: &[(Ref, Bound)],
) -> Vec<CounterTrace> {
    let mut ct = vec![];
    match scope {
        DenseScope::Globally => {
            ct.push(t());
            ct.extend(xs.iter().map(|&(x, bound)| pb(x, bound)));
        }
        DenseScope::Before(pp) => {
            let np = not!(b; *pp);
            ct.push(p(np));
            for &(x, bound) in xs {
                ct.push(pb(and!(b; np, x), bound));
            }
        }
        DenseScope::AfterUntil(pp, q) => {
            let nq = not!(b; *q);
            ct.extend([t(), p(*pp), p(nq)]);
            for &(x, bound) in xs {
                ct.push(pb(and!(b; nq, x), bound));
            }
        }
        DenseScope::After(pp) => {
            ct.extend([t(), p(*pp), t()]);
            ct.extend(xs.iter().map(|&(x, bound)| pb(x, bound)));
        }
        DenseScope::Between(pp, q) => {
            let nq = not!(b; *q);
            ct.extend([t(), p(and!(b; *pp, nq)), p(nq)]);
            for &(x, bound) in xs {
                ct.push(pb(and!(b; nq, x), bound));
            }
            ct.extend([p(nq), p(*q)]);
        }
    }
    ct.push(t());
    vec![ct]
}

/// The frame of a pattern in the scope: the phases before the pattern's own, the
/// formula that restricts them to the scope, and the phases after them; between `P`
/// and `Q` the phases after them are `⌈¬Q⌉ ; ⌈Q⌉ ; true` when `q_closes` (else
/// `true ; ⌈Q⌉ ; true`).
fn scope_frame(
    b: &mut Bdd,
    scope: &DenseScope<Ref>,
    q_closes: bool,
) -> (Vec<DcPhase>, Ref, Vec<DcPhase>) {
    match scope {
        DenseScope::Globally => (vec![t()], TRUE, vec![t()]),
        DenseScope::Before(pp) => (vec![p(not!(b; *pp))], not!(b; *pp), vec![t()]),
        DenseScope::After(pp) => (vec![t(), p(*pp), t()], TRUE, vec![t()]),
        DenseScope::Between(pp, q) => {
            let nq = not!(b; *q);
            let gap = if q_closes { p(nq) } else { t() };
            (
                vec![t(), p(and!(b; *pp, nq)), p(nq)],
                nq,
                vec![gap, p(*q), t()],
            )
        }
        DenseScope::AfterUntil(pp, q) => {
            (vec![t(), p(*pp), p(not!(b; *q))], not!(b; *q), vec![t()])
        }
    }
}

/// The countertraces of Absence in the scope.
fn absence(b: &mut Bdd, o: Operands, scope: &DenseScope<Ref>) -> Vec<CounterTrace> {
    one_scoped_trace(b, scope, &[(o.r, Bound::None)])
}

/// The countertraces of Universality in the scope.
fn universality(b: &mut Bdd, o: Operands, scope: &DenseScope<Ref>) -> Vec<CounterTrace> {
    one_scoped_trace(b, scope, &[(o.nr, Bound::None)])
}

/// The countertraces of Initialization in the scope.
fn initialization(b: &mut Bdd, o: Operands, scope: &DenseScope<Ref>) -> Vec<CounterTrace> {
    let Operands { nr, .. } = o;
    vec![match scope {
        DenseScope::Globally => vec![p(nr), t()],
        DenseScope::Before(pp) => {
            let np = not!(b; *pp);
            vec![p(and!(b; np, nr)), t()]
        }
        DenseScope::AfterUntil(pp, q) => {
            let nq = not!(b; *q);
            vec![t(), p(*pp), p(and!(b; nq, nr)), t()]
        }
        DenseScope::After(pp) => vec![t(), p(*pp), p(nr), t()],
        DenseScope::Between(pp, q) => {
            let nq = not!(b; *q);
            vec![
                t(),
                p(and!(b; *pp, nq)),
                p(and!(b; nq, nr)),
                t(),
                p(*q),
                t(),
            ]
        }
    }]
}

/// The countertraces of Invariance in the scope.
fn invariance(b: &mut Bdd, o: Operands, scope: &DenseScope<Ref>) -> Vec<CounterTrace> {
    let rns = and!(b; o.r, o.ns);
    one_scoped_trace(b, scope, &[(rns, Bound::None)])
}

/// The countertraces of Persistence in the scope.
fn persistence(b: &mut Bdd, o: Operands, scope: &DenseScope<Ref>) -> Vec<CounterTrace> {
    one_scoped_trace(b, scope, &[(o.r, Bound::None), (o.nr, Bound::None)])
}

/// The countertraces of Response in the scope.
fn response(b: &mut Bdd, o: Operands, scope: &DenseScope<Ref>) -> Vec<CounterTrace> {
    let Operands { r, ns, .. } = o;
    let rns = and!(b; r, ns);
    match scope {
        DenseScope::Before(pp) => {
            let np = not!(b; *pp);
            vec![vec![
                p(np),
                p(and!(b; np, rns)),
                p(and!(b; np, ns)),
                p(*pp),
                t(),
            ]]
        }
        DenseScope::Between(pp, q) => {
            let nq = not!(b; *q);
            vec![vec![
                t(),
                p(and!(b; *pp, nq)),
                p(nq),
                p(and!(b; nq, rns)),
                p(and!(b; nq, ns)),
                p(*q),
                t(),
            ]]
        }
        DenseScope::AfterUntil(pp, q) => {
            let nq = not!(b; *q);
            vec![vec![
                t(),
                p(*pp),
                p(nq),
                p(and!(b; nq, rns)),
                p(and!(b; nq, ns)),
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

/// The frame of a chain pattern in the scope: the phases before the pattern's own, the
/// formula that restricts them to the scope, and the phase that ends the scope.
fn chain_frame(b: &mut Bdd, scope: &DenseScope<Ref>) -> (Vec<DcPhase>, Ref, Ref) {
    match scope {
        DenseScope::Before(pp) => (vec![], not!(b; *pp), *pp),
        DenseScope::Between(pp, q) => {
            let nq = not!(b; *q);
            (vec![t(), p(and!(b; *pp, nq))], nq, *q)
        }
        DenseScope::AfterUntil(pp, q) => (vec![t(), p(*pp)], not!(b; *q), *q),
        DenseScope::Globally => (vec![], TRUE, FALSE),
        DenseScope::After(pp) => (vec![t(), p(*pp)], TRUE, FALSE),
    }
}

/// The two countertraces of ResponseChain12 in the frame `pre`, `nq`, `end` of
/// [`chain_frame`].
fn response_chain_traces(
    b: &mut Bdd,
    o: Operands,
    pre: &[DcPhase],
    nq: Ref,
    end: Ref,
) -> Vec<CounterTrace> {
    let Operands { r, s, ns, nt, .. } = o;
    let mut a = pre.to_vec();
    a.extend([p(nq), p(and!(b; nq, r)), p(and!(b; nq, ns)), p(end), t()]);
    let mut c = pre.to_vec();
    c.extend([
        p(nq),
        p(and!(b; nq, r)),
        p(nq),
        p(and!(b; nq, s)),
        p(and!(b; nq, nt)),
        p(end),
        t(),
    ]);
    vec![a, c]
}

/// The countertraces of ResponseChain12 in the scope.
fn response_chain12(b: &mut Bdd, o: Operands, scope: &DenseScope<Ref>) -> Vec<CounterTrace> {
    let (pre, nq, end) = chain_frame(b, scope);
    response_chain_traces(b, o, &pre, nq, end)
}

/// The countertraces of ConstrainedChain in the scope: those of ResponseChain12 and
/// one more.
fn constrained_chain(b: &mut Bdd, o: Operands, scope: &DenseScope<Ref>) -> Vec<CounterTrace> {
    let Operands {
        r, s, tt, u, nt, ..
    } = o;
    let (pre, nq, end) = chain_frame(b, scope);
    let mut cts = response_chain_traces(b, o, &pre, nq, end);
    let mut e = pre;
    e.extend([
        p(nq),
        p(and!(b; nq, r)),
        p(nq),
        p(and!(b; nq, s)),
        p(and!(b; nq, nt)),
        p(and!(b; nq, nt, u)),
        p(nq),
        p(and!(b; nq, tt)),
        p(nq),
        p(end),
        t(),
    ]);
    cts.push(e);
    cts
}

/// The countertraces of ExistenceBoundU in the scope.
fn existence_bound_u(b: &mut Bdd, o: Operands, scope: &DenseScope<Ref>) -> Vec<CounterTrace> {
    let Operands { r, nr, .. } = o;
    vec![match scope {
        DenseScope::Globally => vec![t(), p(r), p(nr), p(r), p(nr), p(r), t()],
        DenseScope::Before(pp) => {
            let np = not!(b; *pp);
            let (a, na) = (and!(b; np, r), and!(b; np, nr));
            vec![p(np), p(a), p(na), p(a), p(na), p(a), t()]
        }
        DenseScope::AfterUntil(pp, q) => {
            let nq = not!(b; *q);
            let (a, na) = (and!(b; nq, r), and!(b; nq, nr));
            vec![t(), p(*pp), p(nq), p(a), p(na), p(a), p(na), p(a), t()]
        }
        DenseScope::After(pp) => vec![t(), p(*pp), t(), p(r), p(nr), p(r), p(nr), p(r), t()],
        DenseScope::Between(pp, q) => {
            let nq = not!(b; *q);
            let (a, na) = (and!(b; nq, r), and!(b; nq, nr));
            vec![
                t(),
                p(and!(b; *pp, nq)),
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
    }]
}

/// The countertraces of Precedence in the scope.
fn precedence(b: &mut Bdd, o: Operands, scope: &DenseScope<Ref>) -> Vec<CounterTrace> {
    let Operands { r, ns, .. } = o;
    vec![match scope {
        // R is "S previously held"'s trigger: the sentence is "if R holds, then S
        // previously held".
        DenseScope::Globally => vec![p(ns), p(r), t()],
        DenseScope::Before(pp) => {
            let np = not!(b; *pp);
            vec![p(and!(b; np, ns)), p(and!(b; r, np)), t()]
        }
        DenseScope::AfterUntil(pp, q) => {
            let nq = not!(b; *q);
            vec![t(), p(*pp), p(and!(b; ns, nq)), p(and!(b; r, nq)), t()]
        }
        DenseScope::After(pp) => vec![t(), p(*pp), p(ns), p(r), t()],
        DenseScope::Between(pp, q) => {
            let nq = not!(b; *q);
            vec![
                t(),
                p(and!(b; *pp, ns, nq)),
                p(and!(b; ns, nq)),
                p(and!(b; r, nq)),
                p(nq),
                p(*q),
                t(),
            ]
        }
    }]
}

/// The countertraces of PrecedenceChain12 in the scope.
fn precedence_chain12(b: &mut Bdd, o: Operands, scope: &DenseScope<Ref>) -> Vec<CounterTrace> {
    let Operands { r, s, nt, .. } = o;
    vec![match scope {
        DenseScope::Globally => vec![p(nt), p(r), t(), p(s), t()],
        DenseScope::Before(pp) => {
            let np = not!(b; *pp);
            vec![
                p(and!(b; np, nt)),
                p(and!(b; np, r)),
                p(np),
                p(and!(b; np, s)),
                t(),
            ]
        }
        DenseScope::AfterUntil(pp, q) => {
            let nq = not!(b; *q);
            vec![
                t(),
                p(*pp),
                p(and!(b; nq, nt)),
                p(and!(b; nq, r)),
                p(nq),
                p(and!(b; nq, s)),
                t(),
            ]
        }
        DenseScope::After(pp) => vec![t(), p(*pp), p(nt), p(r), t(), p(s), t()],
        DenseScope::Between(pp, q) => {
            let nq = not!(b; *q);
            vec![
                t(),
                p(and!(b; *pp, nq)),
                p(and!(b; nq, nt)),
                p(and!(b; nq, r)),
                p(nq),
                p(and!(b; nq, s)),
                p(nq),
                p(*q),
                t(),
            ]
        }
    }]
}

/// The countertraces of PrecedenceChain21 in the scope.
fn precedence_chain21(b: &mut Bdd, o: Operands, scope: &DenseScope<Ref>) -> Vec<CounterTrace> {
    let Operands {
        r, s, tt, ns, nt, ..
    } = o;
    // (pre, scope-restricted formula, post)
    let (pre, w, post): (Vec<DcPhase>, Ref, Vec<DcPhase>) = match scope {
        DenseScope::Globally => (vec![], TRUE, vec![t()]),
        DenseScope::Before(pp) => (vec![], not!(b; *pp), vec![t()]),
        DenseScope::AfterUntil(pp, q) => (vec![t(), p(*pp)], not!(b; *q), vec![t()]),
        DenseScope::After(pp) => (vec![t(), p(*pp)], TRUE, vec![t()]),
        DenseScope::Between(pp, q) => {
            let nq = not!(b; *q);
            (vec![t(), p(and!(b; *pp, nq))], nq, vec![p(nq), p(*q), t()])
        }
    };
    let mut out = Vec::new();
    for first in [nt, ns] {
        let mut c = pre.clone();
        c.extend([p(and!(b; w, first)), p(and!(b; w, r))]);
        c.extend(post.iter().copied());
        out.push(c);
    }
    let mut c = pre;
    c.extend([
        p(and!(b; w, nt)),
        p(and!(b; w, nt, s)),
        p(and!(b; w, nt)),
        p(and!(b; w, tt, ns)),
        p(and!(b; w, ns)),
        p(and!(b; w, r)),
    ]);
    c.extend(post);
    out.push(c);
    out
}

/// The countertraces of DurationBoundL in the scope.
fn duration_bound_l(b: &mut Bdd, o: Operands, scope: &DenseScope<Ref>) -> Vec<CounterTrace> {
    use Bound::*;
    let Operands { r, nr, c1, .. } = o;
    vec![match scope {
        DenseScope::Globally => vec![t(), p(nr), pb(r, Lt(c1)), p(nr), t()],
        DenseScope::Before(pp) => {
            let np = not!(b; *pp);
            vec![
                p(np),
                p(and!(b; np, nr)),
                pb(and!(b; np, r), Lt(c1)),
                p(and!(b; np, nr)),
                t(),
            ]
        }
        DenseScope::AfterUntil(pp, q) => {
            let nq = not!(b; *q);
            vec![
                t(),
                p(*pp),
                p(nq),
                p(and!(b; nq, nr)),
                pb(and!(b; nq, r), Lt(c1)),
                p(and!(b; nq, nr)),
                t(),
            ]
        }
        DenseScope::After(pp) => vec![t(), p(*pp), t(), p(nr), pb(r, Lt(c1)), p(nr), t()],
        DenseScope::Between(pp, q) => {
            let nq = not!(b; *q);
            vec![
                t(),
                p(and!(b; *pp, nq)),
                p(nq),
                p(and!(b; nq, nr)),
                pb(and!(b; nq, r), Lt(c1)),
                p(and!(b; nq, nr)),
                p(nq),
                p(*q),
                t(),
            ]
        }
    }]
}

/// The countertraces of DurationBoundU in the scope.
fn duration_bound_u(b: &mut Bdd, o: Operands, scope: &DenseScope<Ref>) -> Vec<CounterTrace> {
    one_scoped_trace(b, scope, &[(o.r, Bound::Ge(o.c1))])
}

/// The countertraces of EdgeResponseBoundL2 in the scope.
fn edge_response_bound_l2(b: &mut Bdd, o: Operands, scope: &DenseScope<Ref>) -> Vec<CounterTrace> {
    use Bound::*;
    let Operands {
        r, s, nr, ns, c1, ..
    } = o;
    let (pre, w, post) = scope_frame(b, scope, true);
    let mut a = pre.clone();
    a.extend([
        p(and!(b; nr, w)),
        p(and!(b; r, w)),
        pb(and!(b; s, w), Lt(c1)),
        p(and!(b; ns, w)),
    ]);
    a.extend(post.iter().copied());
    let mut c = pre;
    c.extend([p(and!(b; nr, w)), p(and!(b; r, ns, w))]);
    c.extend(post);
    vec![a, c]
}

/// The countertraces of EdgeResponseBoundU1 in the scope.
fn edge_response_bound_u1(b: &mut Bdd, o: Operands, scope: &DenseScope<Ref>) -> Vec<CounterTrace> {
    use Bound::*;
    let Operands { r, nr, ns, c1, .. } = o;
    vec![match scope {
        DenseScope::Globally => vec![t(), p(nr), pb(r, Le(c1)), p(and!(b; ns, nr)), t()],
        DenseScope::Before(pp) => {
            // Ultimate's reading in this scope has `ℓ ≥ c1` where the others have
            // `ℓ ≤ c1`; kept as the peer has it.
            let np = not!(b; *pp);
            vec![
                p(np),
                p(and!(b; np, nr)),
                pb(and!(b; np, r), Ge(c1)),
                p(and!(b; np, ns, nr)),
                t(),
            ]
        }
        DenseScope::AfterUntil(pp, q) => {
            let nq = not!(b; *q);
            vec![
                t(),
                p(*pp),
                p(nq),
                p(and!(b; nq, nr)),
                pb(and!(b; nq, r), Le(c1)),
                p(and!(b; nq, ns, nr)),
                t(),
            ]
        }
        DenseScope::After(pp) => {
            vec![
                t(),
                p(*pp),
                t(),
                p(nr),
                pb(r, Le(c1)),
                p(and!(b; ns, nr)),
                t(),
            ]
        }
        DenseScope::Between(pp, q) => {
            let nq = not!(b; *q);
            vec![
                t(),
                p(and!(b; *pp, nq)),
                p(nq),
                p(and!(b; nq, nr)),
                pb(and!(b; nq, r), Le(c1)),
                p(and!(b; nq, ns, nr)),
                p(nq),
                p(*q),
                t(),
            ]
        }
    }]
}

/// The countertraces of EdgeResponseDelay in the scope.
fn edge_response_delay(b: &mut Bdd, o: Operands, scope: &DenseScope<Ref>) -> Vec<CounterTrace> {
    use Bound::*;
    let Operands { r, nr, ns, c1, .. } = o;
    vec![match scope {
        DenseScope::Globally => vec![t(), p(nr), p(and!(b; r, ns)), pb(ns, Gt(c1)), t()],
        DenseScope::Before(pp) => {
            let np = not!(b; *pp);
            vec![
                p(np),
                p(and!(b; np, nr)),
                p(and!(b; np, r, ns)),
                pb(and!(b; np, ns), Gt(c1)),
                t(),
            ]
        }
        DenseScope::After(pp) => {
            vec![
                t(),
                p(*pp),
                t(),
                p(nr),
                p(and!(b; r, ns)),
                pb(ns, Gt(c1)),
                t(),
            ]
        }
        DenseScope::Between(pp, q) => {
            let nq = not!(b; *q);
            vec![
                t(),
                p(and!(b; *pp, nq)),
                p(nq),
                p(and!(b; nq, nr)),
                p(and!(b; nq, r, ns)),
                pb(and!(b; nq, ns), Gt(c1)),
                t(),
                p(*q),
                t(),
            ]
        }
        DenseScope::AfterUntil(pp, q) => {
            let nq = not!(b; *q);
            vec![
                t(),
                p(*pp),
                p(nq),
                p(and!(b; nq, nr)),
                p(and!(b; nq, r, ns)),
                pb(and!(b; nq, ns), Gt(c1)),
                t(),
            ]
        }
    }]
}

/// The countertraces of EdgeResponseDelayBoundL2 in the scope.
fn edge_response_delay_bound_l2(
    b: &mut Bdd,
    o: Operands,
    scope: &DenseScope<Ref>,
) -> Vec<CounterTrace> {
    use Bound::*;
    let Operands {
        r,
        s,
        nr,
        ns,
        c1,
        c2,
        ..
    } = o;
    let (pre, w, post) = scope_frame(b, scope, false);
    let mut a = pre.clone();
    a.extend([
        p(and!(b; w, nr)),
        p(and!(b; w, r, ns)),
        pb(and!(b; w, ns), Gt(c1)),
    ]);
    a.extend(post.iter().copied());
    let mut c = pre;
    c.extend([
        p(and!(b; w, nr)),
        p(and!(b; w, r)),
        pb(w, Lt(c1)),
        pb(and!(b; w, s), Lt(c2)),
        p(and!(b; w, ns)),
    ]);
    c.extend(post);
    vec![a, c]
}

/// The countertraces of ReccurrenceBoundL in the scope.
fn reccurrence_bound_l(b: &mut Bdd, o: Operands, scope: &DenseScope<Ref>) -> Vec<CounterTrace> {
    one_scoped_trace(b, scope, &[(o.nr, Bound::Gt(o.c1))])
}

/// The countertraces of UniversalityDelay in the scope.
fn universality_delay(b: &mut Bdd, o: Operands, scope: &DenseScope<Ref>) -> Vec<CounterTrace> {
    use Bound::*;
    let Operands { nr, c1, .. } = o;
    vec![match scope {
        DenseScope::Globally => vec![pb(TRUE, Ge(c1)), p(nr), t()],
        DenseScope::Before(pp) => {
            let np = not!(b; *pp);
            vec![pb(np, Ge(c1)), p(and!(b; np, nr)), t()]
        }
        DenseScope::AfterUntil(pp, q) => {
            let nq = not!(b; *q);
            vec![t(), p(*pp), pb(nq, Ge(c1)), p(and!(b; nq, nr)), t()]
        }
        DenseScope::After(pp) => vec![t(), p(*pp), pb(TRUE, Ge(c1)), p(nr), t()],
        DenseScope::Between(pp, q) => {
            let nq = not!(b; *q);
            vec![
                t(),
                p(and!(b; *pp, nq)),
                pb(nq, Ge(c1)),
                p(and!(b; nq, nr)),
                t(),
                p(*q),
                t(),
            ]
        }
    }]
}

/// The countertraces of ResponseDelay in the scope.
fn response_delay(b: &mut Bdd, o: Operands, scope: &DenseScope<Ref>) -> Vec<CounterTrace> {
    use Bound::*;
    let Operands { r, ns, c1, .. } = o;
    vec![match scope {
        DenseScope::Globally => vec![t(), p(and!(b; r, ns)), pb(ns, Gt(c1)), t()],
        DenseScope::Before(pp) => {
            let np = not!(b; *pp);
            vec![
                p(np),
                p(and!(b; np, r, ns)),
                pb(and!(b; np, ns), Gt(c1)),
                t(),
            ]
        }
        DenseScope::AfterUntil(pp, q) => {
            let nq = not!(b; *q);
            vec![
                t(),
                p(*pp),
                p(nq),
                p(and!(b; nq, r, ns)),
                pb(and!(b; nq, ns), Gt(c1)),
                t(),
            ]
        }
        DenseScope::After(pp) => vec![t(), p(*pp), t(), p(and!(b; r, ns)), pb(ns, Gt(c1)), t()],
        DenseScope::Between(pp, q) => {
            let nq = not!(b; *q);
            vec![
                t(),
                p(and!(b; *pp, nq)),
                p(nq),
                p(and!(b; nq, r, ns)),
                pb(and!(b; nq, ns), Gt(c1)),
                p(nq),
                p(*q),
                t(),
            ]
        }
    }]
}

/// The countertraces of ResponseBoundL12 in the scope.
fn response_bound_l12(b: &mut Bdd, o: Operands, scope: &DenseScope<Ref>) -> Vec<CounterTrace> {
    use Bound::*;
    let Operands {
        r, s, ns, c1, c2, ..
    } = o;
    vec![match scope {
        DenseScope::Globally => vec![t(), pb(r, Ge(c1)), pe(s, Lt(c2)), p(ns), t()],
        DenseScope::Before(pp) => {
            let np = not!(b; *pp);
            vec![
                p(np),
                pb(and!(b; np, r), Ge(c1)),
                pe(and!(b; np, s), Lt(c2)),
                p(and!(b; np, ns)),
                t(),
            ]
        }
        // No `true` between the scope's start and R here, as the peer has it.
        DenseScope::After(pp) => vec![t(), p(*pp), pb(r, Ge(c1)), pe(s, Lt(c2)), p(ns), t()],
        DenseScope::Between(pp, q) => {
            let nq = not!(b; *q);
            vec![
                t(),
                p(and!(b; *pp, nq)),
                p(nq),
                pb(and!(b; nq, r), Ge(c1)),
                pe(and!(b; nq, s), Lt(c2)),
                p(and!(b; nq, ns)),
                t(),
                p(*q),
                t(),
            ]
        }
        DenseScope::AfterUntil(pp, q) => {
            let nq = not!(b; *q);
            vec![
                t(),
                p(*pp),
                p(nq),
                pb(and!(b; nq, r), Ge(c1)),
                pe(and!(b; nq, s), Lt(c2)),
                p(and!(b; nq, ns)),
                t(),
            ]
        }
    }]
}

/// The countertraces of ResponseBoundL1 and BndEntryCondition in the scope.
fn response_bound_l1(b: &mut Bdd, o: Operands, scope: &DenseScope<Ref>) -> Vec<CounterTrace> {
    use Bound::*;
    let Operands { r, ns, c1, .. } = o;
    vec![match scope {
        DenseScope::Globally => vec![t(), pb(r, Ge(c1)), p(ns), t()],
        DenseScope::Before(pp) => {
            let np = not!(b; *pp);
            vec![p(np), pb(and!(b; np, r), Ge(c1)), p(and!(b; np, ns)), t()]
        }
        DenseScope::AfterUntil(pp, q) => {
            let nq = not!(b; *q);
            vec![
                t(),
                p(*pp),
                p(nq),
                pb(and!(b; nq, r), Ge(c1)),
                p(and!(b; nq, ns)),
                t(),
            ]
        }
        DenseScope::After(pp) => vec![t(), p(*pp), t(), pb(r, Ge(c1)), p(ns), t()],
        DenseScope::Between(pp, q) => {
            let nq = not!(b; *q);
            vec![
                t(),
                p(and!(b; *pp, nq)),
                p(nq),
                pb(and!(b; nq, r), Ge(c1)),
                p(and!(b; nq, ns)),
                p(nq),
                p(*q),
                t(),
            ]
        }
    }]
}

/// The countertraces of ResponseDelayBoundL1 in the scope.
fn response_delay_bound_l1(b: &mut Bdd, o: Operands, scope: &DenseScope<Ref>) -> Vec<CounterTrace> {
    use Bound::*;
    let Operands { r, ns, c1, c2, .. } = o;
    vec![match scope {
        DenseScope::Globally => vec![t(), pb(r, Ge(c1)), pb(ns, Gt(c2)), t()],
        DenseScope::Before(pp) => {
            let np = not!(b; *pp);
            vec![
                p(np),
                pb(and!(b; np, r), Ge(c1)),
                pb(and!(b; np, ns), Gt(c2)),
                t(),
            ]
        }
        DenseScope::After(pp) => vec![t(), p(*pp), t(), pb(r, Ge(c1)), pb(ns, Gt(c2)), t()],
        DenseScope::Between(pp, q) => {
            let nq = not!(b; *q);
            vec![
                t(),
                p(and!(b; *pp, nq)),
                p(nq),
                pb(and!(b; nq, r), Ge(c1)),
                pb(and!(b; nq, ns), Gt(c2)),
                t(),
                p(*q),
                t(),
            ]
        }
        DenseScope::AfterUntil(pp, q) => {
            let nq = not!(b; *q);
            vec![
                t(),
                p(*pp),
                p(nq),
                pb(and!(b; nq, r), Ge(c1)),
                pb(and!(b; nq, ns), Gt(c2)),
                t(),
            ]
        }
    }]
}

/// The countertraces of ResponseDelayBoundL2 in the scope.
fn response_delay_bound_l2(b: &mut Bdd, o: Operands, scope: &DenseScope<Ref>) -> Vec<CounterTrace> {
    use Bound::*;
    let Operands {
        r, s, ns, c1, c2, ..
    } = o;
    let (pre, w, post) = scope_frame(b, scope, false);
    let mut a = pre.clone();
    a.extend([p(and!(b; w, r)), pb(and!(b; w, ns), Gt(c1))]);
    a.extend(post.iter().copied());
    let mut c = pre;
    c.extend([
        p(and!(b; w, r)),
        pe(and!(b; w, ns), Lt(c1)),
        pb(and!(b; w, s), Lt(c2)),
        p(and!(b; w, ns)),
    ]);
    c.extend(post);
    vec![a, c]
}

/// The countertraces of InvarianceBoundL2 in the scope.
fn invariance_bound_l2(b: &mut Bdd, o: Operands, scope: &DenseScope<Ref>) -> Vec<CounterTrace> {
    use Bound::*;
    let Operands { r, ns, c1, .. } = o;
    vec![match scope {
        DenseScope::Globally => vec![t(), p(r), pb(TRUE, Lt(c1)), p(ns), t()],
        DenseScope::Before(pp) => {
            let np = not!(b; *pp);
            vec![
                p(np),
                p(and!(b; r, np)),
                pb(np, Lt(c1)),
                p(and!(b; ns, np)),
                t(),
            ]
        }
        DenseScope::AfterUntil(pp, q) => {
            let nq = not!(b; *q);
            vec![
                t(),
                p(*pp),
                p(nq),
                p(and!(b; r, nq)),
                pb(nq, Lt(c1)),
                p(and!(b; ns, nq)),
                t(),
            ]
        }
        DenseScope::After(pp) => vec![t(), p(*pp), t(), p(r), pb(TRUE, Lt(c1)), p(ns), t()],
        DenseScope::Between(pp, q) => {
            let nq = not!(b; *q);
            vec![
                t(),
                p(and!(b; *pp, nq)),
                p(nq),
                p(and!(b; r, nq)),
                pb(nq, Lt(c1)),
                p(and!(b; ns, nq)),
                p(nq),
                p(*q),
                t(),
            ]
        }
    }]
}

/// The countertraces of TriggerResponseBoundL1 in the scope.
fn trigger_response_bound_l1(
    b: &mut Bdd,
    o: Operands,
    scope: &DenseScope<Ref>,
) -> Vec<CounterTrace> {
    use Bound::*;
    let Operands { r, s, nt, c1, .. } = o;
    let (pre, w, post) = scope_frame(b, scope, false);
    let mut a = pre;
    a.extend([pb(and!(b; w, r), Ge(c1)), p(and!(b; w, r, s, nt))]);
    a.extend(post);
    vec![a]
}

/// The countertraces of TriggerResponseDelayBoundL1 in the scope.
fn trigger_response_delay_bound_l1(
    b: &mut Bdd,
    o: Operands,
    scope: &DenseScope<Ref>,
) -> Vec<CounterTrace> {
    use Bound::*;
    let Operands {
        r, s, nt, c1, c2, ..
    } = o;
    let (pre, w, post) = scope_frame(b, scope, false);
    let mut a = pre;
    a.extend([
        pb(and!(b; w, r), Ge(c1)),
        p(and!(b; w, r, s, nt)),
        pb(and!(b; w, nt), Gt(c2)),
    ]);
    a.extend(post);
    vec![a]
}
