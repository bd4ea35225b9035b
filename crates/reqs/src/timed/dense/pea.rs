//! Countertraces compiled into phase event automata.
//!
//! A location of the automaton is the set of countertrace phases that the run seen so
//! far can currently be in (*active*), with, for a phase with a lower bound, whether its
//! clock has not yet reached the bound (*waiting*), and whether the phase was entered
//! at a point where its bound counts from (*exact*). A location never contains the last
//! phase: reaching it would mean the run matched the whole countertrace, which the
//! requirement forbids, so such a step does not exist. The automaton has one clock per
//! bounded phase, reset when the phase is entered.
//!
//! This is the construction of Hoenicke's thesis (Combination of Processes, Data, and
//! Time, 2006) that the peer implements: for each location (starting from a virtual
//! one before time 0) every successor set of phases is built one phase at a time, each
//! phase either left, kept (it was active and may stay), entered (the phase before it is
//! complete), or seeped into (the phase before it is active and done, so the phase is
//! active exactly when its formula holds), with the guard collecting the condition on
//! the clocks and on the next state under which that choice is possible. A choice whose
//! guard is false as a Boolean combination of atoms is dropped ([`super::bdd`]), so the
//! same locations exist as in the peer's automata; the tests compare them with the
//! automata of Hanfor's documentation (crates/reqs/tests/data/hanfor-peas.txt).

use super::bdd::{Bdd, Ref, FALSE, TRUE};
use super::catalog::{Bound, CounterTrace};

/// The phases of a location, as bit sets over the countertrace's phases.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Bits {
    /// Phases the run can be in.
    pub active: u32,
    /// Active phases whose lower bound is not reached yet.
    pub waiting: u32,
    /// Active phases whose clock counts from the phase's very start.
    pub exact: u32,
}

impl Bits {
    /// The peer's name of the location: `st` and the active phases, each followed by
    /// `X` when exact or `W` when waiting (`st012W`).
    pub fn name(&self) -> String {
        let mut s = String::from("st");
        for i in 0..32 {
            let bit = 1u32 << i;
            if bit > self.active {
                break;
            }
            if self.active & bit == 0 {
                continue;
            }
            s.push_str(&i.to_string());
            if self.exact & bit != 0 {
                s.push('X');
            } else if self.waiting & bit != 0 {
                s.push('W');
            }
        }
        s
    }

    /// Phases `p` whose predecessor is active and not waiting: the run can seep into
    /// them whenever their formula holds.
    fn seep(&self) -> u32 {
        (self.active & !self.waiting) << 1
    }
}

/// A transition of a phase event automaton.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transition {
    /// The location it leads to.
    pub dest: usize,
    /// When it may be taken: a diagram over clock atoms (the clocks before the step)
    /// and primed data atoms (the next state).
    pub guard: Ref,
    /// The phases whose clocks it resets.
    pub resets: Vec<usize>,
}

/// A location of a phase event automaton.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// Its phases; `None` for the extra initial location of a countertrace whose first
    /// phase is not `true` (the run starts outside the first phase).
    pub bits: Option<Bits>,
    /// What holds while the automaton is here (a diagram over the current state).
    pub state_inv: Ref,
    /// Clock bounds while here: `(phase, strict)` is `c < T` when strict, else `c ≤ T`,
    /// for the clock of that phase and its bound `T`.
    pub clock_inv: Vec<(usize, bool)>,
    /// Its transitions.
    pub transitions: Vec<Transition>,
}

impl Location {
    /// The location's name as the peer writes it.
    pub fn name(&self) -> String {
        match &self.bits {
            Some(b) => b.name(),
            None => "stinit".into(),
        }
    }
}

/// A phase event automaton compiled from one countertrace (its diagrams in a table
/// shared by every automaton of a spec).
#[derive(Debug, Clone)]
pub struct Pea {
    /// The countertrace.
    pub phases: CounterTrace,
    /// Its number in the product (the owner of its clock atoms).
    pub aut: usize,
    /// Its locations.
    pub locations: Vec<Location>,
    /// The locations a run may start in.
    pub init: Vec<usize>,
}

impl Pea {
    /// The clocks: the phases with a bound, with the bound's constant (ticks).
    pub fn clocks(&self) -> Vec<(usize, u64)> {
        self.phases
            .iter()
            .enumerate()
            .filter_map(|(p, ph)| ph.bound.value().map(|c| (p, c)))
            .collect()
    }

    /// An invariant: a single location (its state invariant must hold at every point).
    pub fn is_invariant(&self) -> bool {
        self.locations.len() == 1
    }

    /// The locations that show the requirement applies: those where the highest phase
    /// that occurs in any location is active. `None` when every location has it (the
    /// requirement cannot be vacuous), or when no location has a phase.
    pub fn applies_in(&self) -> Option<Vec<usize>> {
        let max = self
            .locations
            .iter()
            .filter_map(|l| l.bits.map(|b| b.active))
            .max()
            .unwrap_or(0);
        if max == 0 {
            return None;
        }
        let top = 31 - max.leading_zeros();
        let reached: Vec<usize> = (0..self.locations.len())
            .filter(|i| {
                self.locations[*i]
                    .bits
                    .is_some_and(|b| b.active & (1 << top) != 0)
            })
            .collect();
        if reached.len() == self.locations.len() {
            None
        } else {
            Some(reached)
        }
    }
}

/// What the construction knows about the location it builds successors of.
struct Source {
    bits: Bits,
    loc: Option<usize>,
    /// Per phase: when the phase can be kept.
    keep: Vec<Ref>,
    /// Per phase: when the phase can be entered.
    enter: Vec<Ref>,
}

/// A transition while [`Builder::step`] builds it one phase at a time: its guard, the
/// state invariant of its destination so far, the clocks it resets and the destination's
/// phases so far.
#[derive(Clone, Copy)]
struct Partial<'r> {
    guard: Ref,
    inv: Ref,
    resets: &'r [usize],
    bits: Bits,
}

impl<'r> Partial<'r> {
    /// Nothing chosen yet: every guard and invariant true, no reset, no phase.
    const START: Partial<'static> = Partial {
        guard: TRUE,
        inv: TRUE,
        resets: &[],
        bits: Bits {
            active: 0,
            waiting: 0,
            exact: 0,
        },
    };

    /// This transition under `guard`, with phase `bit` added to the active ones and the
    /// given waiting and exact phases.
    fn with(self, guard: Ref, bit: u32, waiting: u32, exact: u32) -> Partial<'r> {
        Partial {
            guard,
            bits: Bits {
                active: self.bits.active | bit,
                waiting,
                exact,
            },
            ..self
        }
    }
}

/// Phase `p` as [`Builder::step`] chooses for it: its bit, when the source lets it be
/// kept or entered, and whether the destination can seep into it.
#[derive(Clone, Copy)]
struct PhaseAt {
    p: usize,
    bit: u32,
    keep: Ref,
    enter: Ref,
    seep_dest: bool,
}

struct Builder<'a> {
    ct: &'a CounterTrace,
    b: &'a mut Bdd,
    /// The last phase that matters: the trailing phases that may be empty never need
    /// to be matched.
    last: usize,
    /// The clock atom `c_p < T_p` of each bounded phase.
    lt: Vec<Ref>,
    /// Primed phase invariants.
    inv_next: Vec<Ref>,
    locations: Vec<Location>,
    index: std::collections::HashMap<Bits, usize>,
    todo: std::collections::VecDeque<Bits>,
    /// Transitions found from the virtual start: (dest, guard).
    initial: Vec<usize>,
}

impl Builder<'_> {
    fn n(&self) -> usize {
        self.ct.len()
    }

    /// When phase `i` is complete (can be followed by phase `i+1`) in location `s`.
    fn complete(&mut self, s: &Bits, i: usize) -> Ref {
        let ph = self.ct[i];
        let base = if i > 0 && ph.allow_empty {
            self.complete(s, i - 1)
        } else {
            FALSE
        };
        let bit = 1u32 << i;
        if s.active & bit == 0 {
            return base;
        }
        if s.waiting & bit != 0 {
            // Waiting: complete only when an exact bound has just been reached.
            if s.exact & bit != 0 {
                let reached = self.b.not(self.lt[i]);
                return self.b.or(base, reached);
            }
            return base;
        }
        if ph.bound.is_upper() && s.seep() & bit == 0 && s.exact & bit == 0 {
            // A strict upper bound: complete while the clock is below it.
            return self.b.or(base, self.lt[i]);
        }
        TRUE
    }

    fn source(&mut self, bits: Bits, loc: usize) -> Source {
        let n = self.n();
        let mut keep = vec![FALSE; n];
        let mut enter = vec![FALSE; n];
        for p in 0..n {
            let bit = 1u32 << p;
            if bits.active & bit != 0 {
                keep[p] = if self.ct[p].bound.is_upper() && bits.seep() & bit == 0 {
                    self.lt[p]
                } else {
                    TRUE
                };
            }
            if p > 0 {
                enter[p] = self.complete(&bits, p - 1);
            }
        }
        Source {
            bits,
            loc: Some(loc),
            keep,
            enter,
        }
    }

    /// Extends the partial transition `t` from `src` with a choice for phase `p` and
    /// then the phases after it, emitting each complete transition.
    fn step(&mut self, src: &Source, p: usize, t: Partial) {
        let inv_next = self.b.prime(t.inv);
        if self.b.and(t.guard, inv_next) == FALSE {
            return;
        }
        let n = self.n();
        if p == n {
            if t.bits.active & (1 << (n - 1)) == 0 {
                self.emit(src, t.guard, t.inv, t.resets, t.bits);
            }
            return;
        }
        let bit = 1u32 << p;
        let at = PhaseAt {
            p,
            bit,
            keep: src.keep[p],
            enter: src.enter[p],
            seep_dest: t.bits.seep() & bit != 0,
        };
        self.step_inactive(src, at, t);

        // Phase p active: its formula holds.
        let inv = self.b.and(t.inv, self.ct[p].inv);
        let mut reset_p = t.resets.to_vec();
        reset_p.push(p);
        let t = Partial { inv, ..t };
        let entered = Partial {
            resets: &reset_p,
            ..t
        };
        match self.ct[p].bound {
            Bound::Ge(_) | Bound::Gt(_) => self.step_lower(src, at, t, entered),
            Bound::Lt(_) | Bound::Le(_) => self.step_upper(src, at, t, entered),
            Bound::None => {
                let g = if at.seep_dest {
                    t.guard
                } else {
                    let ke = self.b.or(at.keep, at.enter);
                    self.b.and(t.guard, ke)
                };
                if g != FALSE {
                    let Bits { waiting, exact, .. } = t.bits;
                    self.step(src, p + 1, t.with(g, bit, waiting, exact));
                }
            }
        }
    }

    /// The choices of [`Self::step`] that leave phase `at.p` out of the destination.
    fn step_inactive(&mut self, src: &Source, at: PhaseAt, t: Partial) {
        if at.seep_dest {
            // Whenever its formula holds, the run is in it: so it must not hold.
            let ninv = self.b.not(self.ct[at.p].inv);
            let inv = self.b.and(t.inv, ninv);
            self.step(src, at.p + 1, Partial { inv, ..t });
        } else {
            let could = self.b.or(at.enter, at.keep);
            let could = self.b.and(could, self.inv_next[at.p]);
            let not_could = self.b.not(could);
            let leave = self.b.and(t.guard, not_could);
            if leave != FALSE {
                self.step(src, at.p + 1, Partial { guard: leave, ..t });
            }
        }
    }

    /// The choices of [`Self::step`] that make phase `at.p`, with a lower bound (`>` or
    /// `≥`), active: kept as it is (`t`), or entered with its clock reset (`entered`).
    fn step_lower(&mut self, src: &Source, at: PhaseAt, t: Partial, entered: Partial) {
        let (p, bit, keep, enter) = (at.p, at.bit, at.keep, at.enter);
        let Bits { waiting, exact, .. } = t.bits;
        let kept = self.b.and(t.guard, keep);
        if kept != FALSE {
            if src.bits.waiting & bit != 0 {
                // Keep waiting while below the bound, or stop waiting.
                let below = self.b.and(kept, self.lt[p]);
                let nlt = self.b.not(self.lt[p]);
                let above = self.b.and(kept, nlt);
                let x = exact | (src.bits.exact & bit);
                self.step(src, p + 1, t.with(below, bit, waiting | bit, x));
                self.step(src, p + 1, t.with(above, bit, waiting, exact));
            } else {
                self.step(src, p + 1, t.with(kept, bit, waiting, exact));
            }
        }
        let nkeep = self.b.not(keep);
        let remaining = self.b.and(t.guard, nkeep);
        let strict = if matches!(self.ct[p].bound, Bound::Ge(_)) {
            let ex = self.b.and(remaining, enter);
            if ex != FALSE {
                let e = entered.with(ex, bit, waiting | bit, exact | bit);
                self.step(src, p + 1, e);
            }
            if at.seep_dest {
                let ne = self.b.not(enter);
                self.b.and(remaining, ne)
            } else {
                FALSE
            }
        } else if at.seep_dest {
            remaining
        } else {
            self.b.and(remaining, enter)
        };
        if strict != FALSE {
            self.step(src, p + 1, entered.with(strict, bit, waiting | bit, exact));
        }
    }

    /// The choices of [`Self::step`] that make phase `at.p`, with an upper bound (`<` or
    /// `≤`), active: kept as it is (`t`), or entered with its clock reset (`entered`).
    fn step_upper(&mut self, src: &Source, at: PhaseAt, t: Partial, entered: Partial) {
        let (p, bit, guard) = (at.p, at.bit, t.guard);
        let Bits { waiting, exact, .. } = t.bits;
        if at.seep_dest {
            // Re-entered at any time: the clock does not matter.
            self.step(src, p + 1, t.with(guard, bit, waiting, exact));
            return;
        }
        let strict_lt = matches!(self.ct[p].bound, Bound::Lt(_));
        let (normal, exact_entry, kept) = if src.bits.seep() & bit != 0 {
            if strict_lt {
                (guard, FALSE, FALSE)
            } else {
                let ne = self.b.not(at.enter);
                (self.b.and(guard, ne), self.b.and(guard, at.enter), FALSE)
            }
        } else {
            let ne = self.b.not(at.enter);
            let k = self.b.and(at.keep, ne);
            let k = self.b.and(guard, k);
            if strict_lt {
                (self.b.and(guard, at.enter), FALSE, k)
            } else {
                (FALSE, self.b.and(guard, at.enter), k)
            }
        };
        if normal != FALSE {
            self.step(src, p + 1, entered.with(normal, bit, waiting, exact));
        }
        if exact_entry != FALSE {
            let e = entered.with(exact_entry, bit, waiting, exact | bit);
            self.step(src, p + 1, e);
        }
        if kept != FALSE {
            let x = exact | (src.bits.exact & bit);
            self.step(src, p + 1, t.with(kept, bit, waiting, x));
        }
    }

    /// A transition from `src` to the location of `bits`.
    fn emit(&mut self, src: &Source, guard: Ref, inv: Ref, resets: &[usize], bits: Bits) {
        let dest = match self.index.get(&bits) {
            Some(d) => *d,
            None => {
                // Every phase up to the highest active one (active or not, as the peer
                // has it) that is waiting, or has an upper bound and cannot be seeped
                // into, bounds its clock.
                let mut clock_inv = Vec::new();
                for p in 0..self.n() {
                    let bit = 1u32 << p;
                    if bit > bits.active {
                        break;
                    }
                    let ph = self.ct[p];
                    if bits.waiting & bit != 0 || (ph.bound.is_upper() && bits.seep() & bit == 0) {
                        // A lower bound reached exactly in the last phase that matters
                        // must not be reached: strict.
                        let strict = p == self.last && ph.bound.is_lower() && bits.exact & bit != 0;
                        clock_inv.push((p, strict));
                    }
                }
                let d = self.locations.len();
                self.locations.push(Location {
                    bits: Some(bits),
                    state_inv: inv,
                    clock_inv,
                    transitions: Vec::new(),
                });
                self.index.insert(bits, d);
                self.todo.push_back(bits);
                d
            }
        };
        match src.loc {
            None => self.initial.push(dest),
            Some(s) => {
                // The guard assuming the source's clock bounds: `c < T` is true where the
                // source already bounds `c` strictly.
                let mut g = guard;
                let strict: Vec<usize> = self.locations[s]
                    .clock_inv
                    .iter()
                    .filter(|(_, st)| *st)
                    .map(|(p, _)| *p)
                    .collect();
                for p in strict {
                    let v = self.b.support(self.lt[p])[0];
                    g = self.b.restrict(g, v, true);
                }
                let mut resets = resets.to_vec();
                resets.sort_unstable();
                resets.dedup();
                self.locations[s].transitions.push(Transition {
                    dest,
                    guard: g,
                    resets,
                });
            }
        }
    }
}

/// Compiles a countertrace (its diagrams in `bdd`) into phase event automaton number
/// `aut`.
pub fn compile(ct: CounterTrace, bdd: &mut Bdd, aut: usize) -> Pea {
    let n = ct.len();
    assert!((1..32).contains(&n), "a countertrace has 1 to 31 phases");
    let mut last = n - 1;
    while last > 0 && ct[last].allow_empty {
        last -= 1;
    }
    let lt: Vec<Ref> = (0..n)
        .map(|p| {
            if ct[p].bound.value().is_some() {
                bdd.clock_lt(aut, p)
            } else {
                TRUE
            }
        })
        .collect();
    let inv_next: Vec<Ref> = (0..n).map(|p| bdd.prime(ct[p].inv)).collect();
    let mut b = Builder {
        ct: &ct,
        b: bdd,
        last,
        lt,
        inv_next,
        locations: Vec::new(),
        index: Default::default(),
        todo: Default::default(),
        initial: Vec::new(),
    };
    // Before time 0: the first phase can be entered, and so can each following one
    // while all before it may be empty.
    let mut enter = vec![FALSE; n];
    for p in 0..n {
        enter[p] = TRUE;
        if !ct[p].allow_empty {
            break;
        }
    }
    let start = Source {
        bits: Bits {
            active: 0,
            waiting: 0,
            exact: 0,
        },
        loc: None,
        keep: vec![FALSE; n],
        enter,
    };
    b.step(&start, 0, Partial::START);
    while let Some(bits) = b.todo.pop_front() {
        let loc = b.index[&bits];
        let src = b.source(bits, loc);
        b.step(&src, 0, Partial::START);
    }
    let mut init: Vec<usize> = Vec::new();
    let mut locations = b.locations;
    let mut stinit = None;
    for d in b.initial {
        if locations[d].bits.is_some_and(|x| x.active == 0) {
            // The run starts where the first phase does not hold, and then can never
            // match the countertrace: a location of its own with that invariant.
            let s = *stinit.get_or_insert_with(|| {
                let inv = b.b.not(ct[0].inv);
                let s = locations.len();
                locations.push(Location {
                    bits: None,
                    state_inv: inv,
                    clock_inv: Vec::new(),
                    transitions: vec![
                        Transition {
                            dest: d,
                            guard: TRUE,
                            resets: Vec::new(),
                        },
                        Transition {
                            dest: s,
                            guard: TRUE,
                            resets: Vec::new(),
                        },
                    ],
                });
                s
            });
            if !init.contains(&s) {
                init.push(s);
            }
        } else if !init.contains(&d) {
            init.push(d);
        }
    }
    Pea {
        phases: ct,
        aut,
        locations,
        init,
    }
}
