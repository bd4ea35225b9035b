//! Divergence regions as a partition of the divergence set.
//!
//! The inputs on which the two outputs differ are cut into regions that are
//! pairwise disjoint and together exactly the divergence set; the solver is asked to
//! confirm both (see [`Partition`]).
//!
//! * **Cells.** Every comparison over inputs that occurs in either side (BL conditions
//!   with bindings inlined, the formalization's atoms, the strict form of each range
//!   bound) is put in a canonical linear form `L <= c` or `L < c` with `L` monic (an
//!   equality is the pair of both), over one representative per class of mapped
//!   inputs. A cell is a truth assignment to these atoms: cells are disjoint and split
//!   at every threshold of both sides.
//! * **Difference.** Inside a cell every `ite` is decided, so `impl - doc` is a linear
//!   function `d` of the inputs (when both outputs are linear there). The solver
//!   confirms it on the cell. When `d` is not constant, the cell is split by its sign
//!   (`d > 0` / `d < 0`), so every piece is a convex set on which the outputs differ
//!   everywhere.
//! * **Merging.** A piece grows by dropping conditions as long as the outputs differ
//!   by the same `d` everywhere on the larger set and it stays disjoint from the
//!   regions already listed: adjacent cells with the same difference become one region.
//! * **Numbers for people.** Each region has witnesses at round numbers (a boundary
//!   value and a round number inside), each confirmed by the solver, and the minimum and
//!   maximum of `d` over the region, computed at the vertices when the region is a box.

use super::*;
use num_traits::{One, Signed, Zero};

/// The outcome of one of the partition's checks. In JSON, `status` and `detail` (the
/// counterexample or the reason in words), and for `unknown` the reason's kind
/// (`reason_kind`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "ProofJson", from = "ProofJson")]
pub enum Proof {
    /// The solver answered unsat: the property holds.
    Proved,
    /// The solver found a counterexample (described).
    Refuted(String),
    /// The solver answered unknown (its reason).
    Unknown(solver::Undecided),
}

/// [`Proof`] as JSON has it.
#[derive(Serialize, Deserialize)]
struct ProofJson {
    status: ProofStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    detail: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reason_kind: Option<solver::ReasonKind>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum ProofStatus {
    Proved,
    Refuted,
    Unknown,
}

impl From<Proof> for ProofJson {
    fn from(p: Proof) -> ProofJson {
        let (status, detail, reason_kind) = match p {
            Proof::Proved => (ProofStatus::Proved, None, None),
            Proof::Refuted(d) => (ProofStatus::Refuted, Some(d), None),
            Proof::Unknown(u) => (ProofStatus::Unknown, Some(u.reason), Some(u.reason_kind)),
        };
        ProofJson {
            status,
            detail,
            reason_kind,
        }
    }
}

impl From<ProofJson> for Proof {
    fn from(j: ProofJson) -> Proof {
        let detail = j.detail.unwrap_or_default();
        match j.status {
            ProofStatus::Proved => Proof::Proved,
            ProofStatus::Refuted => Proof::Refuted(detail),
            ProofStatus::Unknown => Proof::Unknown(solver::Undecided::new(
                j.reason_kind.unwrap_or_default(),
                detail,
            )),
        }
    }
}

impl Proof {
    /// True when proved.
    pub fn holds(&self) -> bool {
        matches!(self, Proof::Proved)
    }
}

/// What the solver confirmed about the region list as a whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Partition {
    /// No input lies in two regions.
    pub disjoint: Proof,
    /// On every input of every region the outputs differ.
    pub within_divergence: Proof,
    /// Every input on which the outputs differ lies in some region. Refuted when the
    /// cap stopped the enumeration (the detail gives an uncovered input).
    pub covers_divergence: Proof,
}

impl Partition {
    /// True when all three checks hold.
    pub fn exact(&self) -> bool {
        self.disjoint.holds() && self.within_divergence.holds() && self.covers_divergence.holds()
    }
}

/// How the difference of a region is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DifferenceKind {
    /// The same value everywhere in the region.
    Constant,
    /// A linear function of the inputs (confirmed by the solver on the region).
    Linear,
    /// Not linear in the region: the value at the example only.
    Sample,
}

/// One end of a range; `value` is `None` when unbounded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RangeEnd {
    /// Exact decimal (or `n/d`), `None` when unbounded.
    pub value: Option<String>,
    /// True when some input of the region reaches it (false at an excluded boundary).
    pub attained: bool,
}

/// Minimum and maximum of the difference over a region.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Range {
    /// The infimum.
    pub min: RangeEnd,
    /// The supremum.
    pub max: RangeEnd,
}

/// Where a witness was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WitnessKind {
    /// At (or a cent inside) the region's boundary.
    Boundary,
    /// A round number inside the region.
    Inside,
    /// The solver's own value (no round number was found).
    Solver,
}

/// A concrete input of a region, confirmed by the solver.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Witness {
    /// Where it was taken.
    pub at: WitnessKind,
    /// Input values (decimal strings) by display name.
    pub inputs: BTreeMap<String, String>,
    /// The NL output there.
    pub nl_output: String,
    /// The BL output there.
    pub bl_output: String,
    /// BL minus NL there.
    pub difference: String,
}

// ------------------------------------------------------------------ linear forms

/// `Σ c·x + k`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub(super) struct Lin {
    c: BTreeMap<Symbol, BigRational>,
    k: BigRational,
}

fn zero() -> BigRational {
    BigRational::zero()
}

impl Lin {
    fn constant(k: BigRational) -> Lin {
        Lin {
            c: BTreeMap::new(),
            k,
        }
    }
    fn var(v: Symbol) -> Lin {
        let mut c = BTreeMap::new();
        c.insert(v, BigRational::one());
        Lin { c, k: zero() }
    }
    fn is_const(&self) -> bool {
        self.c.is_empty()
    }
    fn add(mut self, o: &Lin, sign: &BigRational) -> Lin {
        for (v, x) in &o.c {
            let e = self.c.entry(v.clone()).or_insert_with(zero);
            *e += x * sign;
        }
        self.c.retain(|_, x| !x.is_zero());
        self.k += &o.k * sign;
        self
    }
    fn scale(mut self, f: &BigRational) -> Lin {
        if f.is_zero() {
            return Lin::default();
        }
        for x in self.c.values_mut() {
            *x *= f;
        }
        self.k *= f;
        self
    }
    fn eval(&self, at: &BTreeMap<Symbol, BigRational>) -> Option<BigRational> {
        let mut s = self.k.clone();
        for (v, x) in &self.c {
            s += x * at.get(v)?;
        }
        Some(s)
    }
}

pub(super) fn rat_of_term(t: &Term) -> Option<BigRational> {
    match t {
        Term::Real(r) => Some(r.clone()),
        Term::Int(i) => Some(BigRational::from_integer(i.clone())),
        _ => None,
    }
}

/// The term as a linear form over its constants. `ite`s are decided by evaluating
/// their conditions in `at` (when given); without it, an `ite` is not linear.
fn linearize(t: &Term, at: Option<(&Model, &Context)>) -> Option<Lin> {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
        if let Some(r) = rat_of_term(t) {
            return Some(Lin::constant(r));
        }
        match t {
            Term::Var(v, s) if s.is_numeric() => Some(Lin::var(v.clone())),
            Term::Named(x, _) => linearize(x, at),
            Term::App(op, xs) => match op {
                Op::ToReal => linearize(&xs[0], at),
                Op::Add => {
                    let mut acc = Lin::default();
                    for x in xs {
                        acc = acc.add(&linearize(x, at)?, &BigRational::one());
                    }
                    Some(acc)
                }
                Op::Sub if xs.len() == 1 => {
                    Some(linearize(&xs[0], at)?.scale(&-BigRational::one()))
                }
                Op::Sub => {
                    let mut acc = linearize(&xs[0], at)?;
                    for x in &xs[1..] {
                        acc = acc.add(&linearize(x, at)?, &-BigRational::one());
                    }
                    Some(acc)
                }
                Op::Neg => Some(linearize(&xs[0], at)?.scale(&-BigRational::one())),
                Op::Mul => {
                    let mut acc = Lin::constant(BigRational::one());
                    for x in xs {
                        let l = linearize(x, at)?;
                        acc = if acc.is_const() {
                            l.scale(&acc.k)
                        } else if l.is_const() {
                            acc.scale(&l.k)
                        } else {
                            return None;
                        };
                    }
                    Some(acc)
                }
                Op::Div if xs.len() == 2 => {
                    let d = linearize(&xs[1], at)?;
                    if !d.is_const() || d.k.is_zero() {
                        return None;
                    }
                    Some(linearize(&xs[0], at)?.scale(&d.k.recip()))
                }
                Op::Ite => {
                    let (m, ctx) = at?;
                    if logic::eval_bool(&xs[0], m, ctx).ok()? {
                        linearize(&xs[1], at)
                    } else {
                        linearize(&xs[2], at)
                    }
                }
                _ => None,
            },
            _ => None,
        }
    })
}

/// A canonical comparison: `lin <= rhs` (or `<` when strict), `lin` monic (its first
/// coefficient is 1), or a comparison that is not linear.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Atom {
    Lin {
        lin: BTreeMap<Symbol, BigRational>,
        rhs: BigRational,
        strict: bool,
    },
    Raw(Term),
}

/// An atom or its negation.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Lit {
    atom: Atom,
    pos: bool,
}

/// `a op b` as canonical literals (an equality is two), `None` when not linear,
/// empty when it does not depend on any constant.
fn canon(op: Op, a: &Term, b: &Term) -> Option<Vec<Lit>> {
    let d = linearize(a, None)?.add(&linearize(b, None)?, &-BigRational::one());
    canon_lin(op, d)
}

/// `d op 0` as canonical literals.
fn canon_lin(mut op: Op, d: Lin) -> Option<Vec<Lit>> {
    let Some(first) = d.c.values().next().cloned() else {
        return Some(vec![]);
    };
    let f = first.recip();
    if f.is_negative() {
        op = match op {
            Op::Le => Op::Ge,
            Op::Lt => Op::Gt,
            Op::Ge => Op::Le,
            Op::Gt => Op::Lt,
            o => o,
        };
    }
    let d = d.scale(&f);
    let rhs = -d.k.clone();
    let atom = |strict: bool| Atom::Lin {
        lin: d.c.clone(),
        rhs: rhs.clone(),
        strict,
    };
    Some(match op {
        Op::Le => vec![Lit {
            atom: atom(false),
            pos: true,
        }],
        Op::Lt => vec![Lit {
            atom: atom(true),
            pos: true,
        }],
        Op::Ge => vec![Lit {
            atom: atom(true),
            pos: false,
        }],
        Op::Gt => vec![Lit {
            atom: atom(false),
            pos: false,
        }],
        Op::Eq => vec![
            Lit {
                atom: atom(false),
                pos: true,
            },
            Lit {
                atom: atom(true),
                pos: false,
            },
        ],
        _ => return None,
    })
}

fn lin_term(
    lin: &BTreeMap<Symbol, BigRational>,
    k: &BigRational,
    sorts: &HashMap<Symbol, Sort>,
) -> Term {
    let mut parts: Vec<Term> = Vec::new();
    for (v, c) in lin {
        let x = numeric(Term::Var(
            v.clone(),
            sorts.get(v).cloned().unwrap_or(Sort::Real),
        ));
        parts.push(if c.is_one() {
            x
        } else {
            Term::app(Op::Mul, vec![Term::Real(c.clone()), x])
        });
    }
    if !k.is_zero() || parts.is_empty() {
        parts.push(Term::Real(k.clone()));
    }
    if parts.len() == 1 {
        parts.pop().expect("one part")
    } else {
        Term::app(Op::Add, parts)
    }
}

impl Lit {
    fn term(&self, sorts: &HashMap<Symbol, Sort>) -> Term {
        match &self.atom {
            Atom::Raw(t) => {
                if self.pos {
                    t.clone()
                } else {
                    Term::not(t.clone())
                }
            }
            Atom::Lin { lin, rhs, strict } => {
                let op = match (self.pos, strict) {
                    (true, false) => Op::Le,
                    (true, true) => Op::Lt,
                    (false, false) => Op::Gt,
                    (false, true) => Op::Ge,
                };
                Term::app(
                    op,
                    vec![lin_term(lin, &zero(), sorts), Term::Real(rhs.clone())],
                )
            }
        }
    }

    fn human(&self, name: &dyn Fn(&str) -> String) -> String {
        match &self.atom {
            Atom::Raw(t) => {
                let t = if self.pos {
                    t.clone()
                } else {
                    Term::not(t.clone())
                };
                render::infix(&t, name)
            }
            Atom::Lin { lin, rhs, strict } => {
                let op = match (self.pos, strict) {
                    (true, false) => "<=",
                    (true, true) => "<",
                    (false, false) => ">",
                    (false, true) => ">=",
                };
                format!("{} {op} {}", human_lin(lin, &zero(), name), num(rhs))
            }
        }
    }

    /// The non-strict form of a strict literal (`L < r` to `L <= r`, `L > r` to
    /// `L >= r`).
    fn relaxed(&self) -> Option<Lit> {
        match &self.atom {
            Atom::Lin { lin, rhs, strict } if *strict == self.pos => Some(Lit {
                atom: Atom::Lin {
                    lin: lin.clone(),
                    rhs: rhs.clone(),
                    strict: !strict,
                },
                pos: self.pos,
            }),
            _ => None,
        }
    }

    /// `(var, bound, is_lower, strict)` when the literal bounds one constant.
    fn bound(&self) -> Option<(Symbol, BigRational, bool, bool)> {
        let Atom::Lin { lin, rhs, strict } = &self.atom else {
            return None;
        };
        if lin.len() != 1 {
            return None;
        }
        let (v, c) = lin.iter().next()?;
        if !c.is_one() {
            return None;
        }
        // pos: v <= rhs / v < rhs (upper); neg: v > rhs / v >= rhs (lower).
        Some(if self.pos {
            (v.clone(), rhs.clone(), false, *strict)
        } else {
            (v.clone(), rhs.clone(), true, !*strict)
        })
    }
}

/// Whether bound `a` (`(value, strict)`) allows fewer values than `b`: for an upper
/// bound the smaller value, for a lower bound the larger, and at the same value the
/// strict one.
fn tighter(a: (&BigRational, bool), b: (&BigRational, bool), lower: bool) -> bool {
    if a.0 == b.0 {
        return a.1 && !b.1;
    }
    (a.0 < b.0) != lower
}

/// The literals with, per input, only the tightest lower and upper bound kept (every
/// literal holds at one point, so the others are implied and the set is the same).
fn tightest(lits: Vec<Lit>) -> Vec<Lit> {
    let mut best: Vec<((Symbol, bool), Lit)> = Vec::new();
    let mut others = Vec::new();
    for l in lits {
        let Some((v, x, lower, strict)) = l.bound() else {
            others.push(l);
            continue;
        };
        match best.iter_mut().find(|(k, _)| k.0 == v && k.1 == lower) {
            Some((_, cur)) => {
                let (_, cx, _, cs) = cur.bound().expect("a bound");
                if tighter((&x, strict), (&cx, cs), lower) {
                    *cur = l;
                }
            }
            None => best.push(((v, lower), l)),
        }
    }
    best.into_iter().map(|(_, l)| l).chain(others).collect()
}

/// The bounds on `v` of the same direction as `cur` that hold at `point` and are
/// looser than `cur`, from the tightest to the loosest: the thresholds of either side
/// a region bounded by `cur` can grow to.
fn looser_bounds(
    cur: &Lit,
    atoms: &[Atom],
    v: &Symbol,
    lower: bool,
    point: &BTreeMap<Symbol, BigRational>,
) -> Vec<Lit> {
    let Some((_, cx, _, cs)) = cur.bound() else {
        return Vec::new();
    };
    let Some(at) = point.get(v) else {
        return Vec::new();
    };
    let mut out: Vec<(BigRational, bool, Lit)> = Vec::new();
    for a in atoms {
        let Atom::Lin { lin, .. } = a else { continue };
        if lin.len() != 1 || !lin.contains_key(v) {
            continue;
        }
        for pos in [true, false] {
            let l = Lit {
                atom: a.clone(),
                pos,
            };
            let Some((_, x, lo, strict)) = l.bound() else {
                continue;
            };
            let holds = match (lo, strict) {
                (false, true) => at < &x,
                (false, false) => at <= &x,
                (true, true) => at > &x,
                (true, false) => at >= &x,
            };
            if lo == lower && holds && tighter((&cx, cs), (&x, strict), lower) {
                out.push((x, strict, l));
            }
        }
    }
    // Tightest first: for an upper bound the smallest value, strict before non-strict.
    out.sort_by(|a, b| {
        let by_value = if lower { b.0.cmp(&a.0) } else { a.0.cmp(&b.0) };
        by_value.then(b.1.cmp(&a.1))
    });
    out.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
    out.into_iter().map(|(_, _, l)| l).collect()
}

/// Sort key: bounds of one input, per input the tightest first (the largest lower
/// bound, the smallest upper bound), then every other literal.
fn tightness(l: &Lit) -> (u8, Option<Symbol>, bool, BigRational) {
    match l.bound() {
        Some((v, x, lower, _)) => (0, Some(v), lower, if lower { -x } else { x }),
        None => (1, None, false, zero()),
    }
}

/// An exact number for people: a decimal when finite, else `n/d`.
fn num(r: &BigRational) -> String {
    show(&Value::Real(r.clone()))
}

/// `0.0025*income - 132.2`.
fn human_lin(
    lin: &BTreeMap<Symbol, BigRational>,
    k: &BigRational,
    name: &dyn Fn(&str) -> String,
) -> String {
    let mut s = String::new();
    for (v, c) in lin {
        let neg = c.is_negative();
        let a = c.abs();
        let term = if a.is_one() {
            name(v)
        } else {
            format!("{}*{}", num(&a), name(v))
        };
        if s.is_empty() {
            s = if neg { format!("-{term}") } else { term };
        } else {
            s.push_str(if neg { " - " } else { " + " });
            s.push_str(&term);
        }
    }
    if s.is_empty() {
        return num(k);
    }
    if !k.is_zero() {
        s.push_str(if k.is_negative() { " - " } else { " + " });
        s.push_str(&num(&k.abs()));
    }
    s
}

// ------------------------------------------------------------------ the enumeration

/// What [`enumerate`] returns.
pub(super) struct Enumerated {
    pub regions: Vec<Region>,
    pub note: Option<String>,
    pub partition: Option<Partition>,
}

/// A side's output as a term over its inputs (bindings and definitions inlined), when
/// that can be done.
fn over_inputs(side: &Prepared, ctx: &Context) -> Option<Term> {
    let input_syms = side.input_symbols();
    let t = if let Some(prog) = &side.side.program {
        let f = prefixed(side.label);
        let mut defs: BTreeMap<Symbol, Term> = BTreeMap::new();
        for l in &prog.lets {
            if let crate::Binding::Expr(e) = &l.value {
                let t = substitute(&crate::encode::expr_term(e, &f), &defs);
                if t.size() > 50_000 {
                    return None;
                }
                defs.insert(f(&l.name), t);
            }
        }
        substitute(&side.output, &defs)
    } else if side.function_form {
        inline_calls(&side.output, ctx)
    } else {
        // Definitions `(= x e)` of constants that are not inputs, and guarded ones
        // `(=> g (= x e))`, which become `(ite g e ...)` (the guard that holds at a
        // point picks the branch; the solver confirms the result on each region).
        let mut cases: BTreeMap<Symbol, Vec<(Option<Term>, Term)>> = BTreeMap::new();
        // (guards, term), flattening `=>` and `and`.
        let mut stack: Vec<(Vec<Term>, &Term)> = side.asserts.iter().map(|a| (vec![], a)).collect();
        while let Some((guards, t)) = stack.pop() {
            match t {
                Term::App(Op::Implies, xs) if xs.len() == 2 => {
                    let mut g = guards.clone();
                    g.push(xs[0].clone());
                    stack.push((g, &xs[1]));
                }
                Term::App(Op::And, xs) => {
                    stack.extend(xs.iter().rev().map(|x| (guards.clone(), x)));
                }
                Term::App(Op::Eq, xs) if xs.len() == 2 => {
                    let guard = match guards.len() {
                        0 => None,
                        1 => Some(guards[0].clone()),
                        _ => Some(Term::app(Op::And, guards.clone())),
                    };
                    for (l, r) in [(&xs[0], &xs[1]), (&xs[1], &xs[0])] {
                        if let Term::Var(v, _) = l {
                            if !input_syms.contains(v) && !r.free_vars().iter().any(|(n, _)| n == v)
                            {
                                cases
                                    .entry(v.clone())
                                    .or_default()
                                    .push((guard.clone(), inline_calls(r, ctx)));
                                break;
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        for list in cases.values_mut() {
            // In the order of the file (the stack reversed it for `and`s only).
            list.reverse();
        }
        let mut defs: BTreeMap<Symbol, Term> = BTreeMap::new();
        for (v, mut list) in cases {
            // An unguarded definition wins.
            if let Some(i) = list.iter().position(|(g, _)| g.is_none()) {
                defs.insert(v, list.swap_remove(i).1);
                continue;
            }
            let Some((_, last)) = list.pop() else {
                continue;
            };
            let t = list.into_iter().rev().fold(last, |acc, (g, e)| match g {
                Some(g) => Term::app(Op::Ite, vec![inline_calls(&g, ctx), e, acc]),
                None => e,
            });
            defs.insert(v, t);
        }
        let mut t = side.output.clone();
        for _ in 0..=defs.len() {
            if !t.free_vars().iter().any(|(n, _)| defs.contains_key(n)) {
                break;
            }
            t = substitute(&t, &defs);
            if t.size() > 50_000 {
                return None;
            }
        }
        t
    };
    t.free_vars()
        .iter()
        .all(|(n, _)| input_syms.contains(n))
        .then_some(t)
}

/// Classes of inputs equated by Φ: each constant to its representative (BL first).
fn representatives(p: &Problem) -> BTreeMap<Symbol, Term> {
    let mut parent: BTreeMap<Symbol, Symbol> = BTreeMap::new();
    fn find(parent: &BTreeMap<Symbol, Symbol>, mut x: Symbol) -> Symbol {
        while let Some(y) = parent.get(&x) {
            if *y == x {
                break;
            }
            x = y.clone();
        }
        x
    }
    let mut sorts: BTreeMap<Symbol, Sort> = BTreeMap::new();
    for t in &p.phi {
        if let Term::App(Op::Eq, xs) = t {
            if let [Term::Var(a, sa), Term::Var(b, sb)] = xs.as_slice() {
                if sa != sb {
                    continue;
                }
                sorts.insert(a.clone(), sa.clone());
                sorts.insert(b.clone(), sb.clone());
                let (ra, rb) = (find(&parent, a.clone()), find(&parent, b.clone()));
                if ra == rb {
                    continue;
                }
                // A BL constant represents its class.
                if ra.starts_with("bl.") && !rb.starts_with("bl.") {
                    parent.insert(rb, ra);
                } else {
                    parent.insert(ra, rb);
                }
            }
        }
    }
    let mut map = BTreeMap::new();
    for x in parent.keys() {
        let r = find(&parent, x.clone());
        if r != *x {
            let s = sorts.get(&r).cloned().unwrap_or(Sort::Real);
            map.insert(x.clone(), Term::Var(r, s));
        }
    }
    map
}

/// A region being built: literals, and how the outputs differ on it.
struct Piece {
    lits: Vec<Lit>,
    /// `impl - doc` on the piece, when linear.
    d: Option<Lin>,
    /// False when the outputs differ only on part of the cell (no linear difference
    /// and not everywhere): the region is then the cell intersected with the
    /// divergence.
    everywhere: Option<bool>,
}

struct Ctx<'a> {
    p: &'a Problem,
    sorts: HashMap<Symbol, Sort>,
    /// Representative input constants, in order (BL inputs first).
    inputs: Vec<(Symbol, Sort)>,
    display: Box<dyn Fn(&str) -> String + 'a>,
    /// Literals that always hold (Ψ), for boxes.
    always: Vec<Lit>,
    /// `impl - doc` in the solver's vocabulary.
    diff: Term,
    differ: Term,
    same: Term,
}

impl Ctx<'_> {
    fn and(&self, lits: &[Lit]) -> Term {
        match lits.len() {
            0 => Term::Bool(true),
            1 => lits[0].term(&self.sorts),
            _ => Term::app(Op::And, lits.iter().map(|l| l.term(&self.sorts)).collect()),
        }
    }

    /// The region's exact term.
    fn exact(&self, piece: &Piece) -> Term {
        let t = self.and(&piece.lits);
        if piece.d.is_none() && piece.everywhere != Some(true) {
            Term::app(Op::And, vec![t, self.differ.clone()])
        } else {
            t
        }
    }

    /// Inputs where the region claims something false: a difference other than `d`
    /// (or equal outputs).
    fn bad(&self, d: &Option<Lin>) -> Term {
        match d {
            Some(d) => {
                let dt = lin_term(&d.c, &d.k, &self.sorts);
                let mut alts = vec![Term::app(Op::Distinct, vec![self.diff.clone(), dt.clone()])];
                if !d.is_const() {
                    alts.push(Term::app(Op::Eq, vec![dt, Term::Real(zero())]));
                }
                if alts.len() == 1 {
                    alts.pop().expect("one")
                } else {
                    Term::app(Op::Or, alts)
                }
            }
            None => self.same.clone(),
        }
    }
}

fn or(ts: &[Term]) -> Option<Term> {
    match ts.len() {
        0 => None,
        1 => Some(ts[0].clone()),
        _ => Some(Term::app(Op::Or, ts.to_vec())),
    }
}

/// Lists the divergence regions as a partition, at most `cap` of them.
///
/// `seed`, a point where the outputs differ (the consistency query's
/// counterexample), is where the first region is grown from when the problem is asked
/// slice by slice, which saves a pass over every slice.
pub(super) fn enumerate(
    p: &Problem,
    s: &mut Solver,
    cap: usize,
    mut seed: Option<Model>,
) -> Result<Enumerated, CheckError> {
    let reps = representatives(p);
    let cx = context(p, &reps);
    let space = space(p, &reps, &cx.sorts);
    let mut exacts: Vec<Term> = Vec::new();
    let mut regions: Vec<Region> = Vec::new();
    let mut note: Option<String> = None;
    let mut stopped = false;
    let mut covered = false;
    loop {
        let mut search = vec![cx.differ.clone()];
        search.extend(exacts.iter().map(|t| Term::not(t.clone())));
        if regions.len() >= cap {
            note = cut_note(&cx, s, &search, cap)?;
            stopped = note.is_some();
            break;
        }
        let m = match next_point(&cx, s, &space, &search, &mut seed)? {
            Outcome::Sat(m) => complete(&m, &p.ctx),
            Outcome::Unsat(_) => {
                // No divergence outside the regions: the coverage half of the
                // partition proof, answered by this very query.
                covered = true;
                break;
            }
            Outcome::Unknown(r) => {
                note = Some(format!(
                    "the search for a further region answered unknown ({r})"
                ));
                stopped = true;
                break;
            }
        };
        let overlap = or(&exacts);
        let (piece, region_note) = piece_at(&cx, s, &space, &m, &overlap)?;
        let (exact, region_note) = cut_out_overlap(&cx, s, &piece, &overlap, region_note)?;
        let region = describe(&cx, s, &piece, &exact, &m, region_note)?;
        regions.push(region);
        exacts.push(exact);
    }
    let partition = if exacts.is_empty() {
        None
    } else {
        Some(prove(&cx, s, &exacts, stopped, covered)?)
    };
    Ok(Enumerated {
        regions: in_example_order(regions),
        note,
        partition,
    })
}

/// The atoms of the problem and what is derived from them, fixed for the whole
/// enumeration.
struct Space {
    /// The canonical atoms of both sides and of the strict range bounds, in order.
    atoms: Vec<Atom>,
    /// The same atoms, for membership questions.
    seen: HashSet<Atom>,
    /// `L != r` for each hyperplane that has both a `<=` and a `<` atom.
    planes: Vec<Term>,
    /// The documentation side's output over the inputs, when it has one.
    out_nl: Option<Term>,
    /// The implementation side's output over the inputs, when it has one.
    out_bl: Option<Term>,
}

/// The context of the enumeration: sorts, representative inputs, their display names,
/// the literals that always hold and the output comparisons.
fn context<'a>(p: &'a Problem, reps: &BTreeMap<Symbol, Term>) -> Ctx<'a> {
    let mut sorts: HashMap<Symbol, Sort> = HashMap::new();
    for (n, srt) in p.ctx.consts() {
        sorts.insert(n.clone(), srt.clone());
    }
    let inputs = input_constants(p, reps);
    let display = display_names(&inputs);
    Ctx {
        p,
        sorts,
        inputs,
        display: Box::new(display),
        always: always_lits(p, reps),
        diff: Term::app(Op::Sub, vec![p.bl.output.clone(), p.nl.output.clone()]),
        differ: distinct(&p.nl.output, &p.bl.output),
        same: eq(p.nl.output.clone(), p.bl.output.clone()),
    }
}

/// The representative input constants, BL inputs first, each once.
fn input_constants(p: &Problem, reps: &BTreeMap<Symbol, Term>) -> Vec<(Symbol, Sort)> {
    let mut inputs: Vec<(Symbol, Sort)> = Vec::new();
    for i in p.bl.inputs.iter().chain(&p.nl.inputs) {
        if let Term::Var(v, srt) = substitute(&i.var, reps) {
            if !inputs.iter().any(|(n, _)| *n == v) {
                inputs.push((v, srt));
            }
        }
    }
    inputs
}

/// Display names: without the side prefix unless two inputs would share one.
fn display_names(inputs: &[(Symbol, Sort)]) -> impl Fn(&str) -> String {
    let mut count: HashMap<String, usize> = HashMap::new();
    for (n, _) in inputs {
        *count.entry(qualified(n).1.to_string()).or_default() += 1;
    }
    move |n: &str| -> String {
        let short = qualified(n).1;
        if count.get(short).copied().unwrap_or(0) > 1 {
            n.to_string()
        } else {
            short.to_string()
        }
    }
}

/// The literals of the range bounds (Ψ), which always hold.
fn always_lits(p: &Problem, reps: &BTreeMap<Symbol, Term>) -> Vec<Lit> {
    let mut always = Vec::new();
    for t in &p.psi {
        if let Term::App(op, xs) = substitute(t, reps) {
            if xs.len() == 2 {
                if let Some(l) = canon(op, &xs[0], &xs[1]) {
                    always.extend(l);
                }
            }
        }
    }
    always
}

/// The atoms of both sides, the hyperplanes with a cell of their own and the outputs
/// over the inputs.
fn space(p: &Problem, reps: &BTreeMap<Symbol, Term>, sorts: &HashMap<Symbol, Sort>) -> Space {
    let (atoms, seen) = canonical_atoms(p, reps);
    let planes = own_cell_planes(&atoms, &seen, sorts);
    Space {
        atoms,
        seen,
        planes,
        out_nl: over_inputs(&p.nl, &p.ctx).map(|t| substitute(&t, reps)),
        out_bl: over_inputs(&p.bl, &p.ctx).map(|t| substitute(&t, reps)),
    }
}

/// The atoms of both sides and the strict form of each range bound, over the
/// representatives, in canonical form and each once.
fn canonical_atoms(p: &Problem, reps: &BTreeMap<Symbol, Term>) -> (Vec<Atom>, HashSet<Atom>) {
    let mut raw: Vec<Term> = atoms(&p.bl, &p.ctx);
    raw.extend(atoms(&p.nl, &p.ctx));
    for t in &p.psi {
        if let Term::App(op @ (Op::Ge | Op::Le), xs) = t {
            let strict = Term::app(if *op == Op::Ge { Op::Gt } else { Op::Lt }, xs.clone());
            if is_atom(&strict) {
                raw.push(strict);
            }
        }
    }
    let mut atoms_c: Vec<Atom> = Vec::new();
    let mut seen: HashSet<Atom> = HashSet::new();
    for a in raw {
        let a = substitute(&a, reps);
        let lits = match &a {
            Term::App(op, xs) if xs.len() == 2 => canon(*op, &xs[0], &xs[1]),
            _ => None,
        };
        let list = match lits {
            Some(l) => l.into_iter().map(|l| l.atom).collect(),
            None => vec![Atom::Raw(a)],
        };
        for at in list {
            if seen.insert(at.clone()) {
                atoms_c.push(at);
            }
        }
    }
    (atoms_c, seen)
}

/// `L != r` for each hyperplane that has both a `<=` and a `<` atom.
fn own_cell_planes(
    atoms_c: &[Atom],
    seen: &HashSet<Atom>,
    sorts: &HashMap<Symbol, Sort>,
) -> Vec<Term> {
    atoms_c
        .iter()
        .filter_map(|a| match a {
            Atom::Lin {
                lin,
                rhs,
                strict: false,
            } if seen.contains(&Atom::Lin {
                lin: lin.clone(),
                rhs: rhs.clone(),
                strict: true,
            }) =>
            {
                Some((lin.clone(), rhs.clone()))
            }
            _ => None,
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|(lin, rhs)| {
            Term::app(
                Op::Distinct,
                vec![lin_term(&lin, &zero(), sorts), Term::Real(rhs)],
            )
        })
        .collect()
}

/// The note when the enumeration stops at `cap` regions: `None` when no divergence
/// remains outside them.
fn cut_note(
    cx: &Ctx,
    s: &mut Solver,
    search: &[Term],
    cap: usize,
) -> Result<Option<String>, CheckError> {
    let p = cx.p;
    Ok(match check_sliced(p, s, search)? {
        Outcome::Unsat(_) => None,
        Outcome::Sat(m) => {
            let m = complete(&m, &p.ctx);
            Some(format!(
                "cut at {cap} regions; divergence remains outside them, e.g. at {}",
                show_point(cx, &m)
            ))
        }
        Outcome::Unknown(r) => Some(format!(
            "cut at {cap} regions; whether divergence remains is unknown ({r})"
        )),
    })
}

/// A point of `search` (divergence outside the regions found), off the hyperplanes
/// with a cell of their own when there is one.
///
/// Points off those hyperplanes (`x == k`, where the sides disagree on `<` and `<=`)
/// come first: the full cells around them are found first and can then absorb the
/// boundary when the difference continues.
fn next_point(
    cx: &Ctx,
    s: &mut Solver,
    space: &Space,
    search: &[Term],
    seed: &mut Option<Model>,
) -> Result<Outcome, CheckError> {
    let p = cx.p;
    let mut off = search.to_vec();
    off.extend(space.planes.iter().cloned());
    if p.slices.is_empty() {
        let first = if space.planes.is_empty() {
            None
        } else {
            match check_sliced(p, s, &off)? {
                Outcome::Sat(m) => Some(m),
                _ => None,
            }
        };
        return match first {
            Some(m) => Ok(Outcome::Sat(m)),
            None => check_sliced(p, s, search),
        };
    }
    // Asked slice by slice, every question over all inputs is a pass over the
    // slices: find a point (or take the seed) first, then look for one off the
    // hyperplanes only in its own slice.
    Ok(
        match seed
            .take()
            .map(Outcome::Sat)
            .map_or_else(|| check_sliced(p, s, search), Ok)?
        {
            Outcome::Sat(m) => {
                let m = complete(&m, &p.ctx);
                let on_plane = space
                    .planes
                    .iter()
                    .any(|t| logic::eval_bool(t, &m, &p.ctx).ok() != Some(true));
                let near = p
                    .slices
                    .iter()
                    .find(|sl| logic::eval_bool(&sl.term, &m, &p.ctx).ok() == Some(true));
                match (on_plane, near) {
                    (true, Some(sl)) => {
                        off.push(sl.term.clone());
                        match check_sliced(p, s, &off)? {
                            Outcome::Sat(m2) => Outcome::Sat(m2),
                            _ => Outcome::Sat(m),
                        }
                    }
                    _ => Outcome::Sat(m),
                }
            }
            other => other,
        },
    )
}

/// The piece around the point `m`: its cell, the difference on it, then grown as far
/// as the difference stays the same and the piece disjoint from `overlap` (the regions
/// found before); with the region's note, if any.
fn piece_at(
    cx: &Ctx,
    s: &mut Solver,
    space: &Space,
    m: &Model,
    overlap: &Option<Term>,
) -> Result<(Piece, Option<String>), CheckError> {
    // Of the bounds on one input, only the tightest lower and upper bound say
    // anything (all literals hold at `m`): the cell is the same set with the
    // others left out, and every query below stays small however many thresholds
    // the sides have.
    let mut lits = tightest(cell_lits(cx, &space.atoms, m));
    let point: BTreeMap<Symbol, BigRational> = cx
        .inputs
        .iter()
        .filter_map(|(v, _)| m.get(v).and_then(rat).map(|r| (v.clone(), r)))
        .collect();
    let mut d = None;
    if let Some((dl, actual)) = linear_difference(cx, space, m, &point)? {
        if dl.is_const() {
            d = Some(dl);
        } else {
            let sign = canon_lin(
                if actual.is_positive() { Op::Gt } else { Op::Lt },
                dl.clone(),
            );
            if let Some(l) = sign {
                lits.extend(l);
                d = Some(dl);
            }
        }
    }
    let (everywhere, mut region_note) = confirm_difference(cx, s, space, &mut lits, &mut d)?;
    // Grow: drop conditions that are implied, or whose removal keeps the same
    // difference everywhere and the region disjoint from those already listed.
    // The tightest bound of each input first: dropping it first lets the region
    // grow into the neighbouring cell, where the next bound takes over (dropping
    // a looser bound first, because the tighter one implies it, would fix the
    // region to its cell).
    lits.sort_by_key(tightness);
    let mut g = Growth {
        cx,
        s,
        space,
        d: &d,
        overlap,
        grow: everywhere == Some(true),
        kept_on_unknown: None,
    };
    if g.grow {
        g.grow_bounds(&mut lits, &point)?;
    }
    g.drop_conditions(&mut lits)?;
    if let Some(r) = g.kept_on_unknown {
        let n = format!(
            "some conditions may be redundant: a simplification query answered unknown ({r})"
        );
        region_note = Some(match region_note {
            Some(prev) => format!("{prev}; {n}"),
            None => n,
        });
    }
    Ok((
        Piece {
            lits,
            d,
            everywhere,
        },
        region_note,
    ))
}

/// The cell of `m`: every atom with the truth value it has at `m`.
fn cell_lits(cx: &Ctx, atoms_c: &[Atom], m: &Model) -> Vec<Lit> {
    atoms_c
        .iter()
        .filter_map(|a| {
            let l = Lit {
                atom: a.clone(),
                pos: true,
            };
            logic::eval_bool(&l.term(&cx.sorts), m, &cx.p.ctx)
                .ok()
                .map(|b| Lit { pos: b, ..l })
        })
        .collect()
}

/// `impl - doc` as a linear function on the cell of `m`, with its value at `m`, when
/// both outputs are linear there and the function gives the difference the point has.
fn linear_difference(
    cx: &Ctx,
    space: &Space,
    m: &Model,
    point: &BTreeMap<Symbol, BigRational>,
) -> Result<Option<(Lin, BigRational)>, CheckError> {
    let p = cx.p;
    let actual = match (
        rat(&value_of(&p.bl.output, m, &p.ctx)?),
        rat(&value_of(&p.nl.output, m, &p.ctx)?),
    ) {
        (Some(b), Some(a)) => b - a,
        _ => return Ok(None),
    };
    let (Some(a), Some(b)) = (&space.out_nl, &space.out_bl) else {
        return Ok(None);
    };
    let d = match (
        linearize(b, Some((m, &p.ctx))),
        linearize(a, Some((m, &p.ctx))),
    ) {
        (Some(lb), Some(la)) => lb.add(&la, &-BigRational::one()),
        _ => return Ok(None),
    };
    if d.eval(point).as_ref() != Some(&actual) {
        return Ok(None);
    }
    Ok(Some((d, actual)))
}

/// Confirms the difference `d` on the whole piece `lits` (dropping it, and its sign
/// literal, when it does not hold), and without one whether the outputs differ
/// everywhere on it; with the region's note when a query answered unknown.
fn confirm_difference(
    cx: &Ctx,
    s: &mut Solver,
    space: &Space,
    lits: &mut Vec<Lit>,
    d: &mut Option<Lin>,
) -> Result<(Option<bool>, Option<String>), CheckError> {
    let p = cx.p;
    let mut region_note = None;
    if d.is_some() {
        let mut q = lits.iter().map(|l| l.term(&cx.sorts)).collect::<Vec<_>>();
        q.push(cx.bad(d));
        let confirmed = match check_sliced(p, s, &q)? {
            Outcome::Unsat(_) => true,
            Outcome::Sat(_) => false,
            Outcome::Unknown(r) => {
                region_note = Some(format!(
                    "whether the difference is linear here is unknown ({r})"
                ));
                false
            }
        };
        if !confirmed {
            *d = None;
            if lits.last().is_some_and(|l| !space.atoms.contains(&l.atom)) {
                lits.pop();
            }
        }
    }
    if d.is_some() {
        return Ok((Some(true), region_note));
    }
    let mut q = lits.iter().map(|l| l.term(&cx.sorts)).collect::<Vec<_>>();
    q.push(cx.same.clone());
    let everywhere = match check_sliced(p, s, &q)? {
        Outcome::Unsat(_) => Some(true),
        Outcome::Sat(_) => Some(false),
        Outcome::Unknown(r) => {
            region_note = Some(format!(
                "whether the outputs differ everywhere here is unknown ({r})"
            ));
            None
        }
    };
    Ok((everywhere, region_note))
}

/// What growing one piece works with.
struct Growth<'a, 'p> {
    cx: &'a Ctx<'p>,
    s: &'a mut Solver,
    space: &'a Space,
    /// The difference on the piece, `None` when it is not linear.
    d: &'a Option<Lin>,
    /// The regions found before, as one term.
    overlap: &'a Option<Term>,
    /// Whether the outputs differ everywhere on the piece, so that it may grow.
    grow: bool,
    /// The reason of the first simplification query that answered unknown.
    kept_on_unknown: Option<Reason>,
}

impl Growth<'_, '_> {
    /// Asks for a point of `q` where the region would claim something false or
    /// overlap a region found before.
    fn wrong_or_overlapping(&mut self, mut q: Vec<Term>) -> Result<Outcome, CheckError> {
        let mut bad = vec![self.cx.bad(self.d)];
        bad.extend(self.overlap.clone());
        q.push(or(&bad).expect("one"));
        check_sliced(self.cx.p, self.s, &q)
    }

    /// Whether `o` is unsat; an unknown answer is remembered and counts as sat.
    fn unsat(&mut self, o: Outcome) -> bool {
        match o {
            Outcome::Unsat(_) => true,
            Outcome::Sat(_) => false,
            Outcome::Unknown(r) => {
                self.kept_on_unknown.get_or_insert(r);
                false
            }
        }
    }

    /// The terms of `lits`.
    fn terms(&self, lits: &[Lit]) -> Vec<Term> {
        lits.iter().map(|l| l.term(&self.cx.sorts)).collect()
    }

    /// Whether the piece with `cand` in place of `lits[k]` (none for `None`) stays right
    /// and disjoint from the regions found before.
    fn holds_with(
        &mut self,
        lits: &[Lit],
        k: usize,
        cand: Option<&Lit>,
    ) -> Result<bool, CheckError> {
        let mut q: Vec<Term> = lits
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != k)
            .map(|(_, l)| l.term(&self.cx.sorts))
            .collect();
        q.extend(cand.map(|c| c.term(&self.cx.sorts)));
        let o = self.wrong_or_overlapping(q)?;
        Ok(self.unsat(o))
    }

    /// Bounds on one input grow to the next threshold of either side as long as the
    /// difference stays the same and the region disjoint from those listed.
    ///
    /// The looser candidates form a chain of growing sets, so the loosest that works is
    /// found by galloping and bisection (a few queries per bound however many
    /// thresholds lie in between).
    fn grow_bounds(
        &mut self,
        lits: &mut Vec<Lit>,
        point: &BTreeMap<Symbol, BigRational>,
    ) -> Result<(), CheckError> {
        let mut k = 0;
        while k < lits.len() {
            let Some((v, _, lower, _)) = lits[k].bound() else {
                k += 1;
                continue;
            };
            // chain[0] is the bound itself (known to hold); then the looser ones.
            let mut chain = vec![lits[k].clone()];
            chain.extend(looser_bounds(&lits[k], &self.space.atoms, &v, lower, point));
            let good = self.loosest(lits, k, &chain)?;
            match chain.get(good) {
                Some(c) if good > 0 => {
                    lits[k] = c.clone();
                    k += 1;
                }
                Some(_) => k += 1,
                None => {
                    lits.remove(k);
                }
            }
        }
        Ok(())
    }

    /// The index of the loosest bound of `chain` that can replace `lits[k]`
    /// (`chain.len()` for no bound at all), by galloping and bisection.
    fn loosest(&mut self, lits: &[Lit], k: usize, chain: &[Lit]) -> Result<usize, CheckError> {
        // Index j stands for chain[j]; chain.len() for no bound at all.
        let n = chain.len();
        let (mut good, mut bad_at) = (0usize, None::<usize>);
        let mut step = 1usize;
        while good < n {
            let j = (good + step).min(n);
            if self.holds_with(lits, k, chain.get(j))? {
                good = j;
                step *= 2;
            } else {
                bad_at = Some(j);
                break;
            }
        }
        if let Some(mut hi) = bad_at {
            while hi - good > 1 {
                let mid = good + (hi - good) / 2;
                if self.holds_with(lits, k, chain.get(mid))? {
                    good = mid;
                } else {
                    hi = mid;
                }
            }
        }
        Ok(good)
    }

    /// Drops the conditions other than the grown bounds that the others imply or,
    /// when the piece may grow, whose removal keeps it right and disjoint from the
    /// regions found before; a strict bound whose boundary is a cell of its own is
    /// tried non-strict first.
    fn drop_conditions(&mut self, lits: &mut Vec<Lit>) -> Result<(), CheckError> {
        let grow = self.grow;
        let mut i = 0;
        while i < lits.len() {
            if grow && lits[i].bound().is_some() {
                // Grown above.
                i += 1;
                continue;
            }
            if grow {
                self.relax(lits, i)?;
            }
            let mut trial = lits.clone();
            let lit = trial.remove(i);
            // A literal the others imply passes the growth check below as well (the
            // set is the same), so the separate question is only asked without it.
            let mut implied = self.terms(&trial);
            implied.push(Term::not(lit.term(&self.cx.sorts)));
            let o = if grow {
                Outcome::Sat(Model::new())
            } else {
                check_sliced(self.cx.p, self.s, &implied)?
            };
            if self.unsat(o) {
                *lits = trial;
                continue;
            }
            if grow {
                let q = self.terms(&trial);
                let o = self.wrong_or_overlapping(q)?;
                if self.unsat(o) {
                    *lits = trial;
                    continue;
                }
            }
            i += 1;
        }
        Ok(())
    }

    /// A strict bound `lits[i]` whose boundary is a cell of its own: made non-strict
    /// when the piece stays right and disjoint with it.
    fn relax(&mut self, lits: &mut Vec<Lit>, i: usize) -> Result<(), CheckError> {
        if let Some(relaxed) = lits[i]
            .relaxed()
            .filter(|r| self.space.seen.contains(&r.atom))
        {
            let mut trial = lits.clone();
            trial[i] = relaxed;
            let q = self.terms(&trial);
            if let Outcome::Unsat(_) = self.wrong_or_overlapping(q)? {
                *lits = trial;
            }
        }
        Ok(())
    }
}

/// The piece's exact term, with the regions listed before it cut out should the
/// solver show that it meets them (a piece always lies outside them, see the module
/// documentation); with the region's note.
fn cut_out_overlap(
    cx: &Ctx,
    s: &mut Solver,
    piece: &Piece,
    overlap: &Option<Term>,
    mut region_note: Option<String>,
) -> Result<(Term, Option<String>), CheckError> {
    let mut exact = cx.exact(piece);
    if let Some(o) = overlap {
        if let Outcome::Sat(_) = check_sliced(cx.p, s, &[exact.clone(), o.clone()])? {
            exact = Term::app(Op::And, vec![exact, Term::not(o.clone())]);
            region_note.get_or_insert_with(|| {
                "the regions listed before it are cut out of it".to_string()
            });
        }
    }
    Ok((exact, region_note))
}

/// The regions in the order of their first input values.
fn in_example_order(regions: Vec<Region>) -> Vec<Region> {
    let mut order: Vec<usize> = (0..regions.len()).collect();
    let key = |r: &Region| -> Vec<(String, Option<BigRational>)> {
        r.example
            .iter()
            .map(|(k, v)| (k.clone(), crate::parse_rational(v)))
            .collect()
    };
    order.sort_by(|a, b| key(&regions[*a]).cmp(&key(&regions[*b])));
    let mut sorted: Vec<Region> = Vec::new();
    let mut regions: Vec<Option<Region>> = regions.into_iter().map(Some).collect();
    for i in order {
        if let Some(r) = regions[i].take() {
            sorted.push(r);
        }
    }
    sorted
}

fn show_point(cx: &Ctx, m: &Model) -> String {
    cx.inputs
        .iter()
        .filter_map(|(v, _)| {
            m.get(v)
                .map(|x| format!("{} = {}", (cx.display)(v), show(x)))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The three checks of the partition.
fn prove(
    cx: &Ctx,
    s: &mut Solver,
    exacts: &[Term],
    stopped: bool,
    covered: bool,
) -> Result<Partition, CheckError> {
    let one = |t: &Term| {
        Term::app(
            Op::Ite,
            vec![
                t.clone(),
                Term::Real(BigRational::one()),
                Term::Real(zero()),
            ],
        )
    };
    let disjoint = if exacts.len() < 2 {
        Proof::Proved
    } else {
        let sum = Term::app(Op::Add, exacts.iter().map(one).collect());
        let two = Term::app(
            Op::Ge,
            vec![sum, Term::Real(BigRational::from_integer(2.into()))],
        );
        match check_sliced(cx.p, s, &[two])? {
            Outcome::Unsat(_) => Proof::Proved,
            Outcome::Sat(m) => Proof::Refuted(format!(
                "two regions share the input {}",
                show_point(cx, &complete(&m, &cx.p.ctx))
            )),
            Outcome::Unknown(r) => Proof::Unknown(r.into()),
        }
    };
    let union = or(exacts).expect("at least one region");
    let within = match check_sliced(cx.p, s, &[union.clone(), cx.same.clone()])? {
        Outcome::Unsat(_) => Proof::Proved,
        Outcome::Sat(m) => Proof::Refuted(format!(
            "the outputs agree at {}, inside a region",
            show_point(cx, &complete(&m, &cx.p.ctx))
        )),
        Outcome::Unknown(r) => Proof::Unknown(r.into()),
    };
    // `covered`: the enumeration ended on an unsat answer to "the outputs differ and
    // the input is in none of the regions", the same set as asked here.
    let covers = match if covered {
        Outcome::Unsat(Vec::new())
    } else {
        check_sliced(cx.p, s, &[cx.differ.clone(), Term::not(union)])?
    } {
        Outcome::Unsat(_) => Proof::Proved,
        Outcome::Sat(m) => Proof::Refuted(format!(
            "{}the outputs differ at {}, outside every region",
            if stopped {
                "(enumeration stopped) "
            } else {
                ""
            },
            show_point(cx, &complete(&m, &cx.p.ctx))
        )),
        Outcome::Unknown(r) => Proof::Unknown(r.into()),
    };
    Ok(Partition {
        disjoint,
        within_divergence: within,
        covers_divergence: covers,
    })
}

/// An interval of one input.
#[derive(Debug, Clone, Default)]
struct Interval {
    lo: Option<(BigRational, bool)>,
    hi: Option<(BigRational, bool)>,
}

impl Interval {
    /// Tightens by `x >= b` (lower) or `x <= b` (upper); `closed` false for strict.
    fn tighten(&mut self, b: BigRational, lower: bool, closed: bool) {
        let slot = if lower { &mut self.lo } else { &mut self.hi };
        let better = match slot {
            None => true,
            Some((c, cc)) => {
                if lower {
                    b > *c || (b == *c && *cc && !closed)
                } else {
                    b < *c || (b == *c && *cc && !closed)
                }
            }
        };
        if better {
            *slot = Some((b, closed));
        }
    }

    /// For an integer input: closed integer bounds.
    fn integral(mut self) -> Interval {
        if let Some((b, closed)) = self.lo.take() {
            let mut c = b.ceil();
            if c == b && !closed {
                c += BigRational::one();
            }
            self.lo = Some((c, true));
        }
        if let Some((b, closed)) = self.hi.take() {
            let mut f = b.floor();
            if f == b && !closed {
                f -= BigRational::one();
            }
            self.hi = Some((f, true));
        }
        self
    }

    fn contains(&self, x: &BigRational) -> bool {
        self.lo
            .as_ref()
            .is_none_or(|(b, c)| if *c { x >= b } else { x > b })
            && self
                .hi
                .as_ref()
                .is_none_or(|(b, c)| if *c { x <= b } else { x < b })
    }
}

/// The box the literals (and Ψ) describe; `exact` false when some literal is not a
/// bound of one input (the box is then larger than the region).
fn boxed(cx: &Ctx, lits: &[Lit]) -> (BTreeMap<Symbol, Interval>, bool) {
    let mut b: BTreeMap<Symbol, Interval> = BTreeMap::new();
    let mut exact = true;
    for l in lits.iter().chain(&cx.always) {
        match l.bound() {
            Some((v, x, lower, strict)) => b.entry(v).or_default().tighten(x, lower, !strict),
            None => exact = false,
        }
    }
    for (v, srt) in &cx.inputs {
        if *srt == Sort::Int {
            if let Some(i) = b.remove(v) {
                b.insert(v.clone(), i.integral());
            }
        }
    }
    (b, exact)
}

fn pow10(e: i32) -> BigRational {
    let ten = BigRational::from_integer(10.into());
    if e >= 0 {
        num_traits::pow(ten, e as usize)
    } else {
        num_traits::pow(ten, (-e) as usize).recip()
    }
}

/// The number of decimal digits before the point of |x| (at least 1).
fn magnitude(x: &BigRational) -> i32 {
    let a = x.abs().floor().to_integer();
    a.to_string().trim_start_matches('-').len() as i32
}

/// The roundest number strictly inside (or at a closed end of) the interval, other
/// than `avoid`: a multiple of the largest power of ten that fits, nearest the middle.
fn roundest(iv: &Interval, int: bool, avoid: Option<&BigRational>) -> Option<BigRational> {
    let min_e = if int { 0 } else { -2 };
    let top = match (&iv.lo, &iv.hi) {
        (Some((a, _)), Some((b, _))) => magnitude(&(b - a)),
        (Some((a, _)), None) | (None, Some((a, _))) => magnitude(a) - 1,
        (None, None) => 0,
    };
    for e in (min_e..=top.max(min_e)).rev() {
        let step = pow10(e);
        let ok = |x: &BigRational| iv.contains(x) && avoid != Some(x);
        let cands: Vec<BigRational> = match (&iv.lo, &iv.hi) {
            (None, None) => vec![zero()],
            (Some((a, _)), None) => {
                let f = (a / &step).ceil() * &step;
                vec![f.clone(), f + &step]
            }
            (None, Some((b, _))) => {
                let f = (b / &step).floor() * &step;
                vec![f.clone(), f - &step]
            }
            (Some((a, _)), Some((b, _))) => {
                let mid = (a + b) / BigRational::from_integer(2.into());
                let f = (&mid / &step).round() * &step;
                vec![f.clone(), &f + &step, f - &step]
            }
        };
        if let Some(x) = cands.into_iter().find(ok) {
            return Some(x);
        }
    }
    None
}

/// A value at an end of the interval: a closed end first (rounded inwards to cents, or
/// to integers for an integer input), else a cent inside an open end.
fn boundary(iv: &Interval, int: bool) -> Option<BigRational> {
    let unit = if int { BigRational::one() } else { pow10(-2) };
    let step = |x: &BigRational, up: bool| {
        let y = x / &unit;
        let y = if up { y.ceil() } else { y.floor() };
        y * &unit
    };
    for want_closed in [true, false] {
        for (end, up) in [(&iv.lo, true), (&iv.hi, false)] {
            let Some((b, closed)) = end else { continue };
            if *closed != want_closed {
                continue;
            }
            let mut x = step(b, up);
            if x == *b && !closed {
                if up {
                    x += &unit;
                } else {
                    x -= &unit;
                }
            }
            if iv.contains(&x) {
                return Some(x);
            }
        }
    }
    None
}

/// Range of a linear `d` over a box.
fn range_over(d: &Lin, b: &BTreeMap<Symbol, Interval>) -> Range {
    let mut lo = Some(d.k.clone());
    let mut hi = Some(d.k.clone());
    let (mut lo_att, mut hi_att) = (true, true);
    for (v, c) in &d.c {
        let iv = b.get(v).cloned().unwrap_or_default();
        let (for_min, for_max) = if c.is_positive() {
            (&iv.lo, &iv.hi)
        } else {
            (&iv.hi, &iv.lo)
        };
        match for_min {
            Some((x, closed)) => {
                lo = lo.map(|s| s + c * x);
                lo_att &= *closed;
            }
            None => lo = None,
        }
        match for_max {
            Some((x, closed)) => {
                hi = hi.map(|s| s + c * x);
                hi_att &= *closed;
            }
            None => hi = None,
        }
    }
    Range {
        min: RangeEnd {
            attained: lo.is_some() && lo_att,
            value: lo.map(|x| num(&x)),
        },
        max: RangeEnd {
            attained: hi.is_some() && hi_att,
            value: hi.map(|x| num(&x)),
        },
    }
}

/// The literals for people: the bounds of one input joined into an interval
/// (`0 < income <= 57375`), in the order of the inputs, then the other conditions.
fn conditions(cx: &Ctx, lits: &[Lit]) -> Vec<String> {
    let name = |n: &str| (cx.display)(n);
    let mut per_var: BTreeMap<Symbol, Interval> = BTreeMap::new();
    let mut rest: Vec<String> = Vec::new();
    for l in lits {
        match l.bound() {
            Some((v, x, lower, strict)) => per_var.entry(v).or_default().tighten(x, lower, !strict),
            None => {
                let c = l.human(&name);
                if !rest.contains(&c) {
                    rest.push(c);
                }
            }
        }
    }
    let mut out = Vec::new();
    let mut vars: Vec<Symbol> = cx.inputs.iter().map(|(v, _)| v.clone()).collect();
    vars.extend(
        per_var
            .keys()
            .filter(|v| !cx.inputs.iter().any(|(n, _)| n == *v))
            .cloned(),
    );
    for v in vars {
        let Some(iv) = per_var.get(&v) else { continue };
        let n = name(&v);
        out.push(match (&iv.lo, &iv.hi) {
            (Some((a, ac)), Some((b, bc))) if a == b && *ac && *bc => format!("{n} == {}", num(a)),
            (Some((a, ac)), Some((b, bc))) => format!(
                "{} {} {n} {} {}",
                num(a),
                if *ac { "<=" } else { "<" },
                if *bc { "<=" } else { "<" },
                num(b)
            ),
            (Some((a, ac)), None) => format!("{n} {} {}", if *ac { ">=" } else { ">" }, num(a)),
            (None, Some((b, bc))) => format!("{n} {} {}", if *bc { "<=" } else { "<" }, num(b)),
            (None, None) => continue,
        });
    }
    out.extend(rest);
    out
}

/// The region's report: conditions, difference, range and confirmed witnesses.
fn describe(
    cx: &Ctx,
    s: &mut Solver,
    piece: &Piece,
    exact: &Term,
    found: &Model,
    mut note: Option<String>,
) -> Result<Region, CheckError> {
    let p = cx.p;
    let name = |n: &str| (cx.display)(n);
    let conditions = conditions(cx, &piece.lits);
    let (bx, box_exact) = boxed(cx, &piece.lits);
    // Inputs that the region's own conditions bound (the others only by Ψ).
    let own: HashSet<Symbol> = piece
        .lits
        .iter()
        .flat_map(|l| match &l.atom {
            Atom::Lin { lin, .. } => lin.keys().cloned().collect::<Vec<_>>(),
            Atom::Raw(t) => t.free_vars().into_iter().map(|(n, _)| n).collect(),
        })
        .collect();
    // Candidate points: at the boundary, a round number inside.
    let mut candidates: Vec<(WitnessKind, BTreeMap<Symbol, BigRational>)> = Vec::new();
    for kind in [WitnessKind::Boundary, WitnessKind::Inside] {
        let mut pt = BTreeMap::new();
        for (v, srt) in &cx.inputs {
            let iv = bx.get(v).cloned().unwrap_or_default();
            let int = *srt == Sort::Int;
            let from_model = found.get(v).and_then(rat);
            let x = match kind {
                WitnessKind::Boundary if own.contains(v) => boundary(&iv, int)
                    .or_else(|| roundest(&iv, int, None))
                    .or(from_model),
                _ => {
                    let b = boundary(&iv, int);
                    roundest(&iv, int, b.as_ref())
                        .or_else(|| roundest(&iv, int, None))
                        .or(from_model)
                }
            };
            if let Some(x) = x {
                pt.insert(v.clone(), x);
            }
        }
        if !candidates.iter().any(|(_, q)| *q == pt) {
            candidates.push((kind, pt));
        }
    }
    let mut witnesses: Vec<Witness> = Vec::new();
    for (kind, pt) in candidates {
        let mut q = vec![exact.clone()];
        for (v, srt) in &cx.inputs {
            if let Some(x) = pt.get(v) {
                let val = if *srt == Sort::Int {
                    Term::Int(x.to_integer())
                } else {
                    Term::Real(x.clone())
                };
                q.push(Term::app(
                    Op::Eq,
                    vec![Term::Var(v.clone(), srt.clone()), val],
                ));
            }
        }
        if let Outcome::Sat(m) = check_sliced(cx.p, s, &q)? {
            witnesses.push(witness(cx, kind, &complete(&m, &p.ctx))?);
        }
    }
    if witnesses.is_empty() {
        // The solver's own point of the region.
        if let Outcome::Sat(m) = check_sliced(cx.p, s, std::slice::from_ref(exact))? {
            witnesses.push(witness(cx, WitnessKind::Solver, &complete(&m, &p.ctx))?);
        } else {
            witnesses.push(witness(cx, WitnessKind::Solver, found)?);
        }
    }
    let first = witnesses[0].clone();
    let (kind, difference, range) = match &piece.d {
        Some(d) if d.is_const() => (
            DifferenceKind::Constant,
            num(&d.k),
            Some(Range {
                min: RangeEnd {
                    value: Some(num(&d.k)),
                    attained: true,
                },
                max: RangeEnd {
                    value: Some(num(&d.k)),
                    attained: true,
                },
            }),
        ),
        Some(d) => (
            DifferenceKind::Linear,
            human_lin(&d.c, &d.k, &name),
            if box_exact {
                Some(range_over(d, &bx))
            } else {
                None
            },
        ),
        None => (DifferenceKind::Sample, first.difference.clone(), None),
    };
    if range.is_none() && piece.d.is_some() {
        let n = "range not computed: the region is not a box of single-input bounds".to_string();
        note = Some(match note {
            Some(prev) => format!("{prev}; {n}"),
            None => n,
        });
    }
    let smt = {
        let shown = side::rename_term(exact, &|n: &str| Arc::from(n));
        logic::print::term(&shown)
    };
    Ok(Region {
        everywhere: piece.everywhere,
        conditions,
        example: first.inputs.clone(),
        nl_output: first.nl_output.clone(),
        bl_output: first.bl_output.clone(),
        difference,
        note,
        smt,
        difference_kind: kind,
        range,
        witnesses,
    })
}

fn witness(cx: &Ctx, at: WitnessKind, m: &Model) -> Result<Witness, CheckError> {
    let p = cx.p;
    let mut inputs = BTreeMap::new();
    for (v, srt) in &cx.inputs {
        let x = logic::eval(&Term::Var(v.clone(), srt.clone()), m, &p.ctx)
            .map_err(|e| CheckError::Replay(e.to_string()))?;
        inputs.insert((cx.display)(v), show(&x));
    }
    let a = value_of(&p.nl.output, m, &p.ctx)?;
    let b = value_of(&p.bl.output, m, &p.ctx)?;
    let difference = match (rat(&a), rat(&b)) {
        (Some(x), Some(y)) => num(&(y - x)),
        _ => "?".into(),
    };
    Ok(Witness {
        at,
        inputs,
        nl_output: show(&a),
        bl_output: show(&b),
        difference,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> BigRational {
        crate::parse_rational(s).unwrap()
    }

    #[test]
    fn round_numbers() {
        let iv = Interval {
            lo: Some((r("0"), false)),
            hi: Some((r("57375"), true)),
        };
        assert_eq!(boundary(&iv, false), Some(r("57375")));
        assert_eq!(roundest(&iv, false, None), Some(r("30000")));
        let iv = Interval {
            lo: Some((r("253414"), false)),
            hi: None,
        };
        assert_eq!(boundary(&iv, false), Some(r("253414.01")));
        assert_eq!(roundest(&iv, false, None), Some(r("300000")));
        let iv = Interval {
            lo: Some((r("49.99"), false)),
            hi: Some((r("50"), false)),
        };
        assert_eq!(boundary(&iv, false), None);
        assert_eq!(roundest(&iv, false, None), None);
        let iv = Interval {
            lo: Some((r("900000000"), true)),
            hi: None,
        };
        assert_eq!(boundary(&iv, true), Some(r("900000000")));
        assert_eq!(
            roundest(&iv, true, Some(&r("900000000"))),
            Some(r("1000000000"))
        );
    }

    #[test]
    fn linear_rendering() {
        let mut c = BTreeMap::new();
        c.insert(Arc::from("bl.income"), r("0.0025"));
        let s = human_lin(&c, &r("-132.2"), &|n: &str| qualified(n).1.to_string());
        assert_eq!(s, "0.0025*income - 132.2");
        let mut c = BTreeMap::new();
        c.insert(Arc::from("x"), r("-1"));
        assert_eq!(human_lin(&c, &r("0"), &|n: &str| n.to_string()), "-x");
    }

    #[test]
    fn ranges_at_vertices() {
        let mut c = BTreeMap::new();
        c.insert(Arc::from("x"), r("-0.145"));
        let d = Lin { c, k: zero() };
        let mut b = BTreeMap::new();
        b.insert(
            Arc::from("x"),
            Interval {
                lo: Some((r("0"), false)),
                hi: Some((r("57375"), true)),
            },
        );
        let g = range_over(&d, &b);
        assert_eq!(g.min.value.as_deref(), Some("-8319.375"));
        assert!(g.min.attained);
        assert_eq!(g.max.value.as_deref(), Some("0"));
        assert!(!g.max.attained);
    }
}
