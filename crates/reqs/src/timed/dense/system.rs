//! The product of the automata as a transition system over intervals, and the two ways
//! it is searched: bounded model checking (runs of `n` intervals, whatever their
//! lengths) and Horn clauses for z3's fixedpoint engine (every run).
//!
//! A run is a sequence of intervals `I₀, I₁, ...` of positive real length `δₖ`; over
//! each the state `xₖ` does not change. After the interval `Iₖ` (the *check point* k)
//! every automaton is in a location `pcₖ` whose state invariant holds of `xₖ` and whose
//! clock invariant holds of the clocks, which have grown by `δₖ` over the interval.
//! The first interval starts in an initial location with every clock at 0. From check
//! point k to k+1 every automaton takes one transition whose guard holds of the clocks
//! at k and of the next state `xₖ₊₁`, resetting some clocks; then `δₖ₊₁` passes. This is
//! the loop the peer's checker runs (its Boogie encoding of the product).
//!
//! Variables: `x@k` for the schema's variables, `vera.pc.<a>@k` (Int) the location of
//! automaton `a`, `vera.clk.<a>.<p>@k` (Real) the clock of its phase `p`, and
//! `vera.delta@k` (Real) the length of interval k; time is counted in ticks.

use super::bdd::{Atom, Ref};
use super::pea::Pea;
use crate::timed::unroll::{at, var_at};
use logic::{Op, Sort, Symbol, Term};
use num_rational::BigRational;
use solver::horn::{Definition, HornClause, HornOutcome, HornProblem};
use solver::{Outcome, Solver, SolverConfig, SolverError};

/// One automaton of the product.
#[derive(Debug, Clone)]
pub struct Automaton {
    /// The requirement it belongs to (index into the spec's requirements).
    pub req: usize,
    /// The requirement's id.
    pub id: String,
    /// Which of the requirement's countertraces.
    pub ct: usize,
    /// The automaton.
    pub pea: Pea,
}

/// The product of the automata of a spec.
#[derive(Debug, Clone)]
pub struct System {
    /// The schema's variables.
    pub state: Vec<(Symbol, Sort)>,
    /// Enumeration sorts.
    pub enums: Vec<(Symbol, Vec<Symbol>)>,
    /// The automata.
    pub automata: Vec<Automaton>,
    /// The diagrams of every automaton's invariants and guards.
    /// Shared: a part of the product ([`System::restricted`]) is a cheap copy; the
    /// table is written only while the audit prepares its questions ([`System::bdd_mut`]).
    pub bdd: std::sync::Arc<super::bdd::Bdd>,
    /// The peer's ε for dead-end checks: half the greatest common divisor of the
    /// durations, in ticks (0 without durations).
    pub epsilon: BigRational,
    /// Domain constraints (state formulas that hold at every point).
    pub domain: Vec<Term>,
    /// The SMT-LIB logic of the queries.
    pub logic: String,
    /// History variables: `x@prev` (the value of `x` over the previous interval; over
    /// the first interval, its own value) and its `x`.
    pub history: Vec<(Symbol, Symbol, Sort)>,
    /// The automata taken into the product (`None`: all). A product of fewer automata
    /// has more runs: what it never reaches, the whole product never reaches.
    pub only: Option<Vec<bool>>,
    /// The automata with one more location, [`System::violated`] (empty: none): such an
    /// automaton goes there, and stays, when the run breaks its requirement (no
    /// location of its own fits the next interval). The other automata still constrain
    /// the run; the redundancy checks ask whether one automaton can get there while
    /// those of other requirements do not.
    pub violable: Vec<bool>,
    /// Each automaton's constraints hold only under its own literal
    /// ([`System::act`]): the solver's core of an unsatisfiable query then names the
    /// automata that forbid its point ([`Bmc::check_guarded`]).
    pub guarded: bool,
}

fn real(r: &BigRational) -> Term {
    Term::Real(r.clone())
}

fn ticks(c: u64) -> BigRational {
    BigRational::from_integer(c.into())
}

fn and(v: Vec<Term>) -> Term {
    let mut v: Vec<Term> = v.into_iter().filter(|t| *t != Term::Bool(true)).collect();
    if v.contains(&Term::Bool(false)) {
        return Term::Bool(false);
    }
    match v.len() {
        0 => Term::Bool(true),
        1 => v.pop().expect("one"),
        _ => Term::App(Op::And, v),
    }
}

fn or(v: Vec<Term>) -> Term {
    let mut v: Vec<Term> = v.into_iter().filter(|t| *t != Term::Bool(false)).collect();
    if v.contains(&Term::Bool(true)) {
        return Term::Bool(true);
    }
    match v.len() {
        0 => Term::Bool(false),
        1 => v.pop().expect("one"),
        _ => Term::App(Op::Or, v),
    }
}

fn eq(a: Term, b: Term) -> Term {
    Term::App(Op::Eq, vec![a, b])
}

impl System {
    /// The diagrams, to add to (copied first if a part still shares them).
    pub fn bdd_mut(&mut self) -> &mut super::bdd::Bdd {
        std::sync::Arc::make_mut(&mut self.bdd)
    }

    /// The automata of the product, with their numbers.
    pub fn taken(&self) -> impl Iterator<Item = (usize, &Automaton)> {
        self.automata
            .iter()
            .enumerate()
            .filter(|(a, _)| self.only.as_ref().is_none_or(|o| o[*a]))
    }

    /// The same system with only the automata `keep` in its product.
    pub fn restricted(&self, keep: Vec<bool>) -> System {
        System {
            only: Some(keep),
            ..self.clone()
        }
    }

    /// The same system where the automata `which` may be violated (see
    /// [`System::violable`]).
    pub fn with_violations(&self, which: Vec<bool>) -> System {
        System {
            violable: which,
            ..self.clone()
        }
    }

    /// The same system with every automaton's constraints under its literal (see
    /// [`System::guarded`]).
    pub fn guarded(&self) -> System {
        System {
            guarded: true,
            ..self.clone()
        }
    }

    /// The literal automaton `a`'s constraints hold under in a guarded system.
    pub fn act(&self, a: usize) -> Term {
        Term::Var(format!("vera.act.{a}").into(), Sort::Bool)
    }

    /// `terms`, automaton `a`'s constraints, added to `out`: under its literal in a
    /// guarded system.
    fn push_own(&self, out: &mut Vec<Term>, a: usize, terms: Vec<Term>) {
        if self.guarded {
            let t = and(terms);
            if t != Term::Bool(true) {
                out.push(Term::App(Op::Implies, vec![self.act(a), t]));
            }
        } else {
            out.extend(terms);
        }
    }

    /// Whether automaton `a` may be violated.
    pub fn is_violable(&self, a: usize) -> bool {
        self.violable.get(a).copied().unwrap_or(false)
    }

    /// The location an automaton of a violable system goes to when the run breaks its
    /// requirement: one past its own.
    pub fn violated(&self, a: usize) -> usize {
        self.automata[a].pea.locations.len()
    }

    /// The location of automaton `a` at check point `k`.
    pub fn pc(&self, a: usize, k: usize) -> Term {
        Term::Var(var_at(&format!("vera.pc.{a}"), k), Sort::Int)
    }

    /// The clock of phase `p` of automaton `a` at check point `k`.
    pub fn clk(&self, a: usize, p: usize, k: usize) -> Term {
        Term::Var(var_at(&format!("vera.clk.{a}.{p}"), k), Sort::Real)
    }

    /// The length of interval `k`.
    pub fn delta(&self, k: usize) -> Term {
        Term::Var(var_at("vera.delta", k), Sort::Real)
    }

    /// `pcₐ = l` at `k`.
    pub fn at_loc(&self, a: usize, l: usize, k: usize) -> Term {
        eq(self.pc(a, k), Term::int(l as i64))
    }

    /// The constant of the clock of phase `p` of automaton `a`.
    pub fn bound(&self, a: usize, p: usize) -> BigRational {
        ticks(self.automata[a].pea.phases[p].bound.value().unwrap_or(0))
    }

    /// `c < T` for the clock of phase `p` of automaton `a` at `k`, or `c < T - ε` when
    /// `shifted`.
    pub fn clock_lt(&self, a: usize, p: usize, k: usize, shifted: bool) -> Term {
        let mut t = self.bound(a, p);
        if shifted {
            t -= &self.epsilon;
        }
        Term::App(Op::Lt, vec![self.clk(a, p, k), real(&t)])
    }

    /// A state formula at check point `k`: `x` is `x@k`, a history variable `x@prev`
    /// is `x@(k-1)` (`x@0` at 0).
    pub fn at(&self, t: &Term, k: usize) -> Term {
        if self.history.is_empty() {
            return at(t, k);
        }
        let map: std::collections::HashMap<Symbol, Term> = self
            .history
            .iter()
            .map(|(h, x, s)| {
                (
                    var_at(h, k),
                    Term::Var(var_at(x, k.saturating_sub(1)), s.clone()),
                )
            })
            .collect();
        subst(&at(t, k), &map)
    }

    /// A diagram of automaton `a` as a term at check point `k`: data atoms over `x@k`
    /// (primed ones over `x@(k+1)`), clock atoms over the clocks at `k`.
    pub fn term(&self, a: usize, f: Ref, k: usize, shifted: bool) -> Term {
        let _ = a;
        self.bdd.to_term(f, &|atom| match atom {
            Atom::Data { term, primed } => self.at(term, if *primed { k + 1 } else { k }),
            Atom::Clock { aut, phase } => self.clock_lt(*aut, *phase, k, shifted),
        })
    }

    /// Every variable of check point `k`.
    pub fn declarations(&self, k: usize) -> Vec<(Symbol, Sort)> {
        let mut out: Vec<(Symbol, Sort)> = self
            .state
            .iter()
            .map(|(n, s)| (var_at(n, k), s.clone()))
            .collect();
        for c in self.control(k) {
            if !out.iter().any(|(m, _)| *m == c.0) {
                out.push(c);
            }
        }
        if let Term::Var(n, s) = self.delta(k) {
            out.push((n, s));
        }
        if self.guarded && k == 0 {
            out.extend(self.taken().map(|(a, _)| match self.act(a) {
                Term::Var(n, s) => (n, s),
                _ => unreachable!("a literal is a variable"),
            }));
        }
        out
    }

    /// The control state at `k`: every location and clock variable, in a fixed order
    /// (the arguments of the reachability relation).
    pub fn control(&self, k: usize) -> Vec<(Symbol, Sort)> {
        let mut out = Vec::new();
        for (a, aut) in self.taken() {
            if let Term::Var(n, s) = self.pc(a, k) {
                out.push((n, s));
            }
            for (p, _) in aut.pea.clocks() {
                if let Term::Var(n, s) = self.clk(a, p, k) {
                    out.push((n, s));
                }
            }
        }
        // The values the next interval's history variables refer to.
        for (_, x, s) in &self.history {
            let n = var_at(x, k);
            if !out.iter().any(|(m, _)| *m == n) {
                out.push((n, s.clone()));
            }
        }
        out
    }

    /// What holds at check point `k` of every run: each automaton in one of its
    /// locations, whose state and clock invariants hold, and the domain constraints.
    pub fn invariants(&self, k: usize) -> Vec<Term> {
        let mut out: Vec<Term> = self.domain.iter().map(|d| self.at(d, k)).collect();
        for (a, aut) in self.taken() {
            let pea = &aut.pea;
            let pc = self.pc(a, k);
            let mut own = vec![Term::App(Op::Ge, vec![pc.clone(), Term::int(0)])];
            let count = pea.locations.len() + usize::from(self.is_violable(a));
            own.push(Term::App(Op::Lt, vec![pc.clone(), Term::int(count as i64)]));
            for l in 0..pea.locations.len() {
                let here = self.location_holds(a, l, k, &|p| self.clk(a, p, k), false);
                if here != Term::Bool(true) {
                    own.push(Term::App(Op::Implies, vec![self.at_loc(a, l, k), here]));
                }
            }
            self.push_own(&mut out, a, own);
        }
        out
    }

    /// What location `l` of automaton `a` demands at check point `k`: its state
    /// invariant, and its clock bounds on the clocks `clock(p)` (only those that break
    /// the requirement when exceeded, when `breaking_only`; see
    /// [`System::bound_breaks`]).
    fn location_holds(
        &self,
        a: usize,
        l: usize,
        k: usize,
        clock: &dyn Fn(usize) -> Term,
        breaking_only: bool,
    ) -> Term {
        let loc = &self.automata[a].pea.locations[l];
        let mut here = vec![self.term(a, loc.state_inv, k, false)];
        for (p, strict) in &loc.clock_inv {
            if breaking_only && !self.bound_breaks(a, *p) {
                continue;
            }
            let op = if *strict { Op::Lt } else { Op::Le };
            here.push(Term::App(op, vec![clock(*p), real(&self.bound(a, *p))]));
        }
        and(here)
    }

    /// The first interval: initial locations, every clock at the interval's length (in
    /// a violable system, the violated location when no initial one fits).
    pub fn init(&self) -> Vec<Term> {
        let mut out = vec![Term::App(Op::Gt, vec![self.delta(0), real(&ticks(0))])];
        for (a, aut) in self.taken() {
            let mut starts: Vec<Term> =
                aut.pea.init.iter().map(|l| self.at_loc(a, *l, 0)).collect();
            if self.is_violable(a) {
                let fits: Vec<Term> = (aut.pea.init.iter())
                    .map(|l| self.location_holds(a, *l, 0, &|p| self.clk(a, p, 0), true))
                    .collect();
                starts.push(and(vec![
                    self.at_loc(a, self.violated(a), 0),
                    Term::not(or(fits)),
                ]));
            }
            let mut own = vec![or(starts)];
            for (p, _) in aut.pea.clocks() {
                own.push(eq(self.clk(a, p, 0), self.delta(0)));
            }
            self.push_own(&mut out, a, own);
        }
        out.extend(self.invariants(0));
        out
    }

    /// One step, from check point `k` to `k+1`.
    pub fn step(&self, k: usize) -> Vec<Term> {
        let d = self.delta(k + 1);
        let mut out = vec![Term::App(Op::Gt, vec![d.clone(), real(&ticks(0))])];
        for (a, aut) in self.taken() {
            let clocks = aut.pea.clocks();
            let mut alts = Vec::new();
            for (l, loc) in aut.pea.locations.iter().enumerate() {
                for t in &loc.transitions {
                    let mut c = vec![
                        self.at_loc(a, l, k),
                        self.at_loc(a, t.dest, k + 1),
                        self.term(a, t.guard, k, false),
                    ];
                    for (p, _) in &clocks {
                        let next = self.clock_after(a, *p, k, &t.resets);
                        c.push(eq(self.clk(a, *p, k + 1), next));
                    }
                    alts.push(and(c));
                }
            }
            if self.is_violable(a) {
                alts.extend(self.violation_steps(a, k));
            }
            self.push_own(&mut out, a, vec![or(alts)]);
        }
        out.extend(self.invariants(k + 1));
        out
    }
}

impl System {
    /// The clock of phase `p` of automaton `a` at check point `k + 1` after a step
    /// from `k` that resets the clocks `resets`: the next interval's length, or the
    /// clock at `k` grown by it.
    fn clock_after(&self, a: usize, p: usize, k: usize, resets: &[usize]) -> Term {
        let d = self.delta(k + 1);
        if resets.contains(&p) {
            d
        } else {
            Term::App(Op::Add, vec![self.clk(a, p, k), d])
        }
    }

    /// True when the clock bound of phase `p` of automaton `a` breaks the requirement
    /// when a run exceeds it: `p` is the last phase of the countertrace that cannot be
    /// empty and has a lower bound (staying past it completes the countertrace). The
    /// other clock bounds of a location only make the automaton change location at
    /// that time (a step the run can always take, the state unchanged).
    fn bound_breaks(&self, a: usize, p: usize) -> bool {
        let phases = &self.automata[a].pea.phases;
        let last = (0..phases.len())
            .rev()
            .find(|q| !phases[*q].allow_empty)
            .unwrap_or(0);
        p == last && phases[p].bound.is_lower()
    }

    /// The steps of automaton `a` into (and within) its violated location from check
    /// point `k`: taken exactly when none of its transitions fits the next interval
    /// (its guard, and the state invariant and the breaking clock bounds of where it
    /// leads: the other bounds the run meets by a step at that time); the clocks keep
    /// growing there.
    fn violation_steps(&self, a: usize, k: usize) -> Vec<Term> {
        let pea = &self.automata[a].pea;
        let grow: Vec<Term> = (pea.clocks().iter())
            .map(|(p, _)| eq(self.clk(a, *p, k + 1), self.clock_after(a, *p, k, &[])))
            .collect();
        let mut fits = Vec::new();
        for (l, loc) in pea.locations.iter().enumerate() {
            for t in &loc.transitions {
                let clock = |p: usize| self.clock_after(a, p, k, &t.resets);
                fits.push(and(vec![
                    self.at_loc(a, l, k),
                    self.term(a, t.guard, k, false),
                    self.location_holds(a, t.dest, k + 1, &clock, true),
                ]));
            }
        }
        let v = self.violated(a);
        let stay = and([
            vec![self.at_loc(a, v, k), self.at_loc(a, v, k + 1)],
            grow.clone(),
        ]
        .concat());
        let enter = and([
            vec![
                Term::not(self.at_loc(a, v, k)),
                self.at_loc(a, v, k + 1),
                Term::not(or(fits)),
            ],
            grow,
        ]
        .concat());
        vec![stay, enter]
    }
}

/// Bounded model checking: a solver session holding the first `depth + 1` check points
/// of every run.
pub struct Bmc<'a> {
    sys: &'a System,
    /// The session.
    pub solver: Solver,
    /// The last check point asserted.
    pub depth: usize,
}

impl<'a> Bmc<'a> {
    /// A session with the first check point.
    pub fn start(sys: &'a System, config: &SolverConfig) -> Result<Bmc<'a>, SolverError> {
        let mut solver = Solver::start(config)?;
        solver.command(&logic::Command::SetLogic(sys.logic.as_str().into()))?;
        for (name, ctors) in &sys.enums {
            solver.command(&logic::Command::DeclareEnum(name.clone(), ctors.clone()))?;
        }
        for (n, s) in sys.declarations(0) {
            solver.declare_const(&n, s)?;
        }
        solver.assert(&and(sys.init()))?;
        Ok(Bmc {
            sys,
            solver,
            depth: 0,
        })
    }

    /// Adds the next check point.
    pub fn extend(&mut self) -> Result<(), SolverError> {
        let k = self.depth + 1;
        for (n, s) in self.sys.declarations(k) {
            self.solver.declare_const(&n, s)?;
        }
        self.solver.assert(&and(self.sys.step(k - 1)))?;
        self.depth = k;
        Ok(())
    }

    /// Is `bad` (a formula over check point `depth`) possible at the last check point?
    ///
    /// Asked in a scope of its own: the literal the solver session defines for `bad`
    /// goes with it, so hundreds of questions do not pile up definitions that every
    /// later model would have to cover.
    pub fn check(&mut self, bad: &Term) -> Result<Outcome, SolverError> {
        self.scoped(std::slice::from_ref(bad), true)
    }

    /// `bad` (the assumptions) asked in a scope of its own, its answer re-checked when
    /// `checked`.
    fn scoped(&mut self, bad: &[Term], checked: bool) -> Result<Outcome, SolverError> {
        self.solver.push()?;
        let out = if checked {
            self.solver.check_assuming(bad)
        } else {
            self.solver.check_assuming_unchecked(bad)
        };
        self.solver.pop()?;
        out
    }

    /// Is `bad` possible with every automaton's literal assumed (the whole product)?
    /// The session's system must be guarded ([`System::guarded`]); an unsatisfiable
    /// answer names in its core the literals of the automata that forbid `bad`. Not
    /// re-checked, as [`Bmc::search`] is not.
    pub fn check_guarded(&mut self, bad: &Term) -> Result<Outcome, SolverError> {
        let mut assumed = vec![bad.clone()];
        assumed.extend(self.sys.taken().map(|(a, _)| self.sys.act(a)));
        self.scoped(&assumed, false)
    }

    /// [`Bmc::check`] as a step of the search: the answer is not re-checked by the
    /// solver layer ([`Solver::check_assuming_unchecked`]). A run it shows is taken
    /// only when `bad` holds in it (else the question is asked again, checked); the
    /// caller re-checks the run against the requirements, and asks what the search
    /// did not find again, checked, at every depth before reporting it.
    pub fn search(&mut self, bad: &Term) -> Result<Outcome, SolverError> {
        match self.scoped(std::slice::from_ref(bad), false)? {
            Outcome::Sat(m)
                if logic::eval::eval_bool(bad, &m, self.solver.context()) == Ok(true) =>
            {
                Ok(Outcome::Sat(m))
            }
            Outcome::Sat(_) => self.check(bad),
            other => Ok(other),
        }
    }
}

/// What a proof by the fixedpoint engine gave.
#[derive(Debug, Clone)]
pub enum Proof {
    /// An inductive invariant that excludes the bad states, re-checked by vera.
    Proved,
    /// A bad state is reachable (the engine found a run; bounded model checking shows
    /// one).
    Reachable,
    /// No answer, or an invariant that did not pass the re-check.
    Unknown(solver::Undecided),
}

const REACH: &str = "vera.reach";

impl System {
    /// The Horn problem "can a state satisfying `bad` (over check point 0's control
    /// state) be reached?".
    pub fn horn(&self, bad: &Term) -> HornProblem {
        let rel: Symbol = REACH.into();
        let data = self.needs_state(bad);
        let ctl0 = self.relation_args(0, data);
        let ctl1 = self.relation_args(1, data);
        let sorts: Vec<Sort> = ctl0.iter().map(|(_, s)| s.clone()).collect();
        let app = |ctl: &[(Symbol, Sort)]| {
            Term::Call(
                rel.clone(),
                ctl.iter()
                    .map(|(n, s)| Term::Var(n.clone(), s.clone()))
                    .collect(),
                Sort::Bool,
            )
        };
        let d0 = self.declarations(0);
        let mut d01 = self.declarations(0);
        d01.extend(self.declarations(1));
        let mut step = vec![app(&ctl0)];
        step.extend(self.step(0));
        HornProblem {
            enums: self.enums.clone(),
            relations: vec![(rel.clone(), sorts)],
            clauses: vec![
                HornClause {
                    vars: d0.clone(),
                    body: and(self.init()),
                    head: Some(app(&ctl0)),
                },
                HornClause {
                    vars: d01,
                    body: and(step),
                    head: Some(app(&ctl1)),
                },
                HornClause {
                    vars: d0,
                    body: and(vec![app(&ctl0), bad.clone()]),
                    head: None,
                },
            ],
        }
    }

    /// True when `bad` mentions the state (not only locations and clocks): then the
    /// reachability relation keeps the state too.
    fn needs_state(&self, bad: &Term) -> bool {
        let ctl = self.control(0);
        bad.free_vars()
            .iter()
            .any(|(n, _)| !ctl.iter().any(|(m, _)| m == n))
    }

    /// The arguments of the reachability relation at `k`.
    fn relation_args(&self, k: usize, with_state: bool) -> Vec<(Symbol, Sort)> {
        let mut out = self.control(k);
        if with_state {
            for (n, s) in &self.state {
                let v = var_at(n, k);
                if !out.iter().any(|(m, _)| *m == v) {
                    out.push((v, s.clone()));
                }
            }
        }
        out
    }

    /// The invariant of a definition of the reachability relation, at check point `k`.
    fn invariant_at(&self, def: &Definition, k: usize, with_state: bool) -> Term {
        let ctl = self.relation_args(k, with_state);
        let map: std::collections::HashMap<Symbol, Term> = def
            .params
            .iter()
            .zip(&ctl)
            .map(|((p, _), (n, s))| (p.clone(), Term::Var(n.clone(), s.clone())))
            .collect();
        subst(&def.body, &map)
    }

    /// Proves with z3's fixedpoint engine that no reachable check point satisfies
    /// `bad`; the invariant it returns is re-checked here (it holds initially, is kept
    /// by every step, and excludes `bad`), each by a validated solver query.
    pub fn prove(&self, bad: &Term, config: &SolverConfig) -> Result<Proof, SolverError> {
        let problem = self.horn(bad);
        let defs = match solver::horn::solve(config, &problem)? {
            HornOutcome::Unsafe => return Ok(Proof::Reachable),
            HornOutcome::Unknown(r) => return Ok(Proof::Unknown(r.clone().into())),
            HornOutcome::Safe(defs) => defs,
        };
        let Some(def) = defs.into_iter().find(|d| &*d.relation == REACH) else {
            return Ok(Proof::Unknown(solver::Undecided::other(
                "the engine's model has no invariant",
            )));
        };
        let mut s = Solver::start(config)?;
        s.command(&logic::Command::SetLogic(self.logic.as_str().into()))?;
        for (name, ctors) in &self.enums {
            s.command(&logic::Command::DeclareEnum(name.clone(), ctors.clone()))?;
        }
        for k in 0..2 {
            for (n, srt) in self.declarations(k) {
                s.declare_const(&n, srt)?;
            }
        }
        let data = self.needs_state(bad);
        let inv0 = self.invariant_at(&def, 0, data);
        let inv1 = self.invariant_at(&def, 1, data);
        let mut initial = self.init();
        initial.push(Term::not(inv0.clone()));
        let mut kept = vec![inv0.clone()];
        kept.extend(self.step(0));
        kept.push(Term::not(inv1));
        let excludes = and(vec![inv0, bad.clone()]);
        for (what, q) in [
            ("holds initially", and(initial)),
            ("is kept by every step", and(kept)),
            ("excludes the state asked about", excludes),
        ] {
            match s.check_assuming(&[q])? {
                Outcome::Unsat(_) => {}
                Outcome::Sat(_) => {
                    return Ok(Proof::Unknown(solver::Undecided::other(format!(
                    "the fixedpoint engine's invariant does not pass the re-check: it not {what}"
                ))))
                }
                Outcome::Unknown(r) => {
                    return Ok(Proof::Unknown(solver::Undecided::other(format!(
                        "re-checking that the invariant {what} gave no answer: {r}"
                    ))))
                }
            }
        }
        Ok(Proof::Proved)
    }
}

/// The term with the variables in `map` replaced.
pub fn subst(t: &Term, map: &std::collections::HashMap<Symbol, Term>) -> Term {
    match t {
        Term::Var(n, _) => map.get(n).cloned().unwrap_or_else(|| t.clone()),
        Term::App(op, args) => Term::App(*op, args.iter().map(|a| subst(a, map)).collect()),
        Term::Call(f, args, s) => Term::Call(
            f.clone(),
            args.iter().map(|a| subst(a, map)).collect(),
            s.clone(),
        ),
        Term::Let(b, body) => {
            let b2: Vec<(Symbol, Term)> =
                b.iter().map(|(n, v)| (n.clone(), subst(v, map))).collect();
            let mut inner = map.clone();
            for (n, _) in b {
                inner.remove(n);
            }
            Term::Let(b2, Box::new(subst(body, &inner)))
        }
        Term::Named(inner, n) => Term::Named(Box::new(subst(inner, map)), n.clone()),
        other => other.clone(),
    }
}
