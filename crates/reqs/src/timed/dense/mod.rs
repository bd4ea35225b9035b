//! Dense time: requirements read as the peer (Ultimate's requirements checker, the
//! back end of Hanfor) reads them, over real-valued time, with clocks.
//!
//! A requirement is a pattern of Hanfor's catalog ([`Kind`]) in a scope
//! ([`DenseScope`]), with its state formulas and durations. Its meaning is a list of
//! Duration Calculus countertraces ([`catalog`]), each compiled into a phase event
//! automaton with clocks ([`pea`]). A run is a sequence of intervals of positive,
//! real length over which the state does not change; the automata read one interval
//! per step, whatever its length, so the cost of a check grows with the number of
//! changes a run needs, not with its durations ([`system`]). The audits
//! ([`audit`]) are those of the peer: consistency, vacuity of each automaton, and
//! rt-inconsistency of every pair of automata that are not invariants (with every
//! invariant added), each decided by reachability in the product of all automata:
//! bounded model checking finds the runs, and a proof by the Horn-clause engine of z3
//! (an inductive invariant, re-checked by vera's own solver queries) closes the
//! questions no run answers.
//!
//! docs/timed.md ("Dense time") states the reading and where vera differs from the
//! peer.

pub mod audit;
pub mod bdd;
pub mod catalog;
pub mod eval;
pub mod generate;
pub mod pea;
pub mod system;

use logic::Term;
use serde::Serialize;

/// A pattern of Hanfor's catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Kind {
    /// "it is never the case that R holds"
    Absence,
    /// "it is always the case that R holds"
    Universality,
    /// "it is always the case that initially R holds"
    Initialization,
    /// "if R holds, then S holds as well"
    Invariance,
    /// "if R holds, then it holds persistently"
    Persistence,
    /// "if R holds, then S eventually holds" (also "R eventually holds")
    Response,
    /// "transitions to states in which R holds occur at most twice"
    ExistenceBoundU,
    /// "if R holds, then S previously held"
    Precedence,
    /// "if R holds and is succeeded by S, then T previously held"
    PrecedenceChain12,
    /// "if R holds, then S previously held and was preceded by T"
    PrecedenceChain21,
    /// "if R holds, then S eventually holds and is succeeded by T"
    ResponseChain12,
    /// "if R holds, then S eventually holds and is succeeded by T where U does not hold
    /// between S and T"
    ConstrainedChain,
    /// "once R becomes satisfied, it holds for at least c1"
    DurationBoundL,
    /// "once R becomes satisfied, it holds for less than c1"
    DurationBoundU,
    /// "once R becomes satisfied, S holds for at least c1"
    EdgeResponseBoundL2,
    /// "once R becomes satisfied and holds for at most c1, then S holds afterwards"
    EdgeResponseBoundU1,
    /// "once R becomes satisfied, S holds after at most c1"
    EdgeResponseDelay,
    /// "once R becomes satisfied, S holds after at most c1 for at least c2"
    EdgeResponseDelayBoundL2,
    /// "R holds at least every c1"
    ReccurrenceBoundL,
    /// "R holds after at most c1"
    UniversalityDelay,
    /// "if R holds, then S holds after at most c1"
    ResponseDelay,
    /// "if R holds for at least c1, then S holds afterwards for at least c2"
    ResponseBoundL12,
    /// "if R holds for at least c1, then S holds after at most c2"
    ResponseDelayBoundL1,
    /// "if R holds for at least c1, then S holds afterwards"
    ResponseBoundL1,
    /// "if R holds, then S holds after at most c1 for at least c2"
    ResponseDelayBoundL2,
    /// "if R holds, then S holds for at least c1"
    InvarianceBoundL2,
    /// "after R holds for at least c1, then S holds" (deprecated: ResponseBoundL1)
    BndEntryCondition,
    /// "after R holds for at least c1 and S holds, then T holds"
    TriggerResponseBoundL1,
    /// "after R holds for at least c1 and S holds, then T holds after at most c2"
    TriggerResponseDelayBoundL1,
}

impl Kind {
    /// Every pattern.
    pub const ALL: [Kind; 29] = [
        Kind::Absence,
        Kind::Universality,
        Kind::Initialization,
        Kind::Invariance,
        Kind::Persistence,
        Kind::Response,
        Kind::ExistenceBoundU,
        Kind::Precedence,
        Kind::PrecedenceChain12,
        Kind::PrecedenceChain21,
        Kind::ResponseChain12,
        Kind::ConstrainedChain,
        Kind::DurationBoundL,
        Kind::DurationBoundU,
        Kind::EdgeResponseBoundL2,
        Kind::EdgeResponseBoundU1,
        Kind::EdgeResponseDelay,
        Kind::EdgeResponseDelayBoundL2,
        Kind::ReccurrenceBoundL,
        Kind::UniversalityDelay,
        Kind::ResponseDelay,
        Kind::ResponseBoundL12,
        Kind::ResponseDelayBoundL1,
        Kind::ResponseBoundL1,
        Kind::ResponseDelayBoundL2,
        Kind::InvarianceBoundL2,
        Kind::BndEntryCondition,
        Kind::TriggerResponseBoundL1,
        Kind::TriggerResponseDelayBoundL1,
    ];

    /// Hanfor's name of the pattern.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Absence => "Absence",
            Kind::Universality => "Universality",
            Kind::Initialization => "Initialization",
            Kind::Invariance => "Invariance",
            Kind::Persistence => "Persistence",
            Kind::Response => "Response",
            Kind::ExistenceBoundU => "ExistenceBoundU",
            Kind::Precedence => "Precedence",
            Kind::PrecedenceChain12 => "PrecedenceChain12",
            Kind::PrecedenceChain21 => "PrecedenceChain21",
            Kind::ResponseChain12 => "ResponseChain12",
            Kind::ConstrainedChain => "ConstrainedChain",
            Kind::DurationBoundL => "DurationBoundL",
            Kind::DurationBoundU => "DurationBoundU",
            Kind::EdgeResponseBoundL2 => "EdgeResponseBoundL2",
            Kind::EdgeResponseBoundU1 => "EdgeResponseBoundU1",
            Kind::EdgeResponseDelay => "EdgeResponseDelay",
            Kind::EdgeResponseDelayBoundL2 => "EdgeResponseDelayBoundL2",
            Kind::ReccurrenceBoundL => "ReccurrenceBoundL",
            Kind::UniversalityDelay => "UniversalityDelay",
            Kind::ResponseDelay => "ResponseDelay",
            Kind::ResponseBoundL12 => "ResponseBoundL12",
            Kind::ResponseDelayBoundL1 => "ResponseDelayBoundL1",
            Kind::ResponseBoundL1 => "ResponseBoundL1",
            Kind::ResponseDelayBoundL2 => "ResponseDelayBoundL2",
            Kind::InvarianceBoundL2 => "InvarianceBoundL2",
            Kind::BndEntryCondition => "BndEntryCondition",
            Kind::TriggerResponseBoundL1 => "TriggerResponseBoundL1",
            Kind::TriggerResponseDelayBoundL1 => "TriggerResponseDelayBoundL1",
        }
    }

    /// The pattern of a name (Hanfor's, with or without the `Pattern` suffix).
    pub fn from_name(s: &str) -> Option<Kind> {
        let s = s.strip_suffix("Pattern").unwrap_or(s);
        Kind::ALL.iter().copied().find(|k| k.name() == s)
    }

    /// How many state formulas the pattern has (R, S, T, U).
    pub fn formulas(self) -> usize {
        match self {
            Kind::Absence
            | Kind::Universality
            | Kind::Initialization
            | Kind::Persistence
            | Kind::ExistenceBoundU
            | Kind::DurationBoundL
            | Kind::DurationBoundU
            | Kind::ReccurrenceBoundL
            | Kind::UniversalityDelay => 1,
            Kind::PrecedenceChain12
            | Kind::PrecedenceChain21
            | Kind::ResponseChain12
            | Kind::TriggerResponseBoundL1
            | Kind::TriggerResponseDelayBoundL1 => 3,
            Kind::ConstrainedChain => 4,
            _ => 2,
        }
    }

    /// How many durations the pattern has (c1, c2).
    pub fn durations(self) -> usize {
        match self {
            Kind::DurationBoundL
            | Kind::DurationBoundU
            | Kind::EdgeResponseBoundL2
            | Kind::EdgeResponseBoundU1
            | Kind::EdgeResponseDelay
            | Kind::ReccurrenceBoundL
            | Kind::UniversalityDelay
            | Kind::ResponseDelay
            | Kind::ResponseBoundL1
            | Kind::InvarianceBoundL2
            | Kind::BndEntryCondition
            | Kind::TriggerResponseBoundL1 => 1,
            Kind::EdgeResponseDelayBoundL2
            | Kind::ResponseBoundL12
            | Kind::ResponseDelayBoundL1
            | Kind::ResponseDelayBoundL2
            | Kind::TriggerResponseDelayBoundL1 => 2,
            _ => 0,
        }
    }

    /// The peer reads the pattern as more than one countertrace.
    pub fn multiple_countertraces(self) -> bool {
        matches!(
            self,
            Kind::EdgeResponseBoundL2
                | Kind::EdgeResponseDelayBoundL2
                | Kind::ResponseDelayBoundL2
                | Kind::PrecedenceChain21
                | Kind::ResponseChain12
                | Kind::ConstrainedChain
        )
    }

    /// The sentence, with `R`, `S`, `T`, `U` for the formulas and `c1`, `c2` for the
    /// durations.
    pub fn sentence(self) -> &'static str {
        match self {
            Kind::Absence => "it is never the case that R holds",
            Kind::Universality => "it is always the case that R holds",
            Kind::Initialization => "it is always the case that initially R holds",
            Kind::Invariance => "it is always the case that if R holds, then S holds as well",
            Kind::Persistence => "it is always the case that if R holds, then it holds persistently",
            Kind::Response => "it is always the case that if R holds, then S eventually holds",
            Kind::ExistenceBoundU => "transitions to states in which R holds occur at most twice",
            Kind::Precedence => "it is always the case that if R holds, then S previously held",
            Kind::PrecedenceChain12 => {
                "it is always the case that if R holds and is succeeded by S, then T previously held"
            }
            Kind::PrecedenceChain21 => {
                "it is always the case that if R holds, then S previously held and was preceded by T"
            }
            Kind::ResponseChain12 => {
                "it is always the case that if R holds, then S eventually holds and is succeeded by T"
            }
            Kind::ConstrainedChain => {
                "it is always the case that if R holds, then S eventually holds and is succeeded by T where U does not hold between S and T"
            }
            Kind::DurationBoundL => {
                "it is always the case that once R becomes satisfied, it holds for at least c1"
            }
            Kind::DurationBoundU => {
                "it is always the case that once R becomes satisfied, it holds for less than c1"
            }
            Kind::EdgeResponseBoundL2 => {
                "it is always the case that once R becomes satisfied, S holds for at least c1"
            }
            Kind::EdgeResponseBoundU1 => {
                "it is always the case that once R becomes satisfied and holds for at most c1, then S holds afterwards"
            }
            Kind::EdgeResponseDelay => {
                "it is always the case that once R becomes satisfied, S holds after at most c1"
            }
            Kind::EdgeResponseDelayBoundL2 => {
                "it is always the case that once R becomes satisfied, S holds after at most c1 for at least c2"
            }
            Kind::ReccurrenceBoundL => "it is always the case that R holds at least every c1",
            Kind::UniversalityDelay => "it is always the case that R holds after at most c1",
            Kind::ResponseDelay => {
                "it is always the case that if R holds, then S holds after at most c1"
            }
            Kind::ResponseBoundL12 => {
                "it is always the case that if R holds for at least c1, then S holds afterwards for at least c2"
            }
            Kind::ResponseDelayBoundL1 => {
                "it is always the case that if R holds for at least c1, then S holds after at most c2"
            }
            Kind::ResponseBoundL1 => {
                "it is always the case that if R holds for at least c1, then S holds afterwards"
            }
            Kind::ResponseDelayBoundL2 => {
                "it is always the case that if R holds, then S holds after at most c1 for at least c2"
            }
            Kind::InvarianceBoundL2 => {
                "it is always the case that if R holds, then S holds for at least c1"
            }
            Kind::BndEntryCondition => {
                "it is always the case that after R holds for at least c1, then S holds"
            }
            Kind::TriggerResponseBoundL1 => {
                "it is always the case that after R holds for at least c1 and S holds, then T holds"
            }
            Kind::TriggerResponseDelayBoundL1 => {
                "it is always the case that after R holds for at least c1 and S holds, then T holds after at most c2"
            }
        }
    }
}

/// Where a dense-time requirement applies; `T` is a state formula (a term, or its
/// decision diagram).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DenseScope<T> {
    /// Everywhere.
    Globally,
    /// Before the first point where `P` holds.
    Before(T),
    /// From the first point where `P` holds on.
    After(T),
    /// In each segment from a point where `P` holds to the next point where `Q` holds,
    /// a segment that `Q` closes.
    Between(T, T),
    /// In each segment from a point where `P` holds until `Q` holds, also a last one
    /// that `Q` never closes.
    AfterUntil(T, T),
}

impl<T> DenseScope<T> {
    /// The scope with its formulas mapped.
    pub fn map<U>(&self, mut f: impl FnMut(&T) -> U) -> DenseScope<U> {
        match self {
            DenseScope::Globally => DenseScope::Globally,
            DenseScope::Before(p) => DenseScope::Before(f(p)),
            DenseScope::After(p) => DenseScope::After(f(p)),
            DenseScope::Between(p, q) => DenseScope::Between(f(p), f(q)),
            DenseScope::AfterUntil(p, q) => DenseScope::AfterUntil(f(p), f(q)),
        }
    }

    /// Its formulas, `P` first.
    pub fn formulas(&self) -> Vec<&T> {
        match self {
            DenseScope::Globally => vec![],
            DenseScope::Before(p) | DenseScope::After(p) => vec![p],
            DenseScope::Between(p, q) | DenseScope::AfterUntil(p, q) => vec![p, q],
        }
    }
}

/// A requirement in dense time: a pattern of the catalog in a scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DensePattern {
    /// The pattern.
    pub kind: Kind,
    /// The scope.
    pub scope: DenseScope<Term>,
    /// The state formulas R, S, T, U (as many as [`Kind::formulas`]).
    pub formulas: Vec<Term>,
    /// The durations c1, c2 in ticks (as many as [`Kind::durations`]).
    pub durations: Vec<u64>,
}

impl DensePattern {
    /// Every state formula the pattern mentions (scope first).
    pub fn terms(&self) -> Vec<&Term> {
        let mut v = self.scope.formulas();
        v.extend(self.formulas.iter());
        v
    }

    /// The pattern as Hanfor's sentence, with the formulas and durations written in.
    pub fn describe(&self, time: &super::TimeBase) -> String {
        let p = |t: &Term| format!("\"{}\"", logic::print::term(t));
        let scope = match &self.scope {
            DenseScope::Globally => "Globally".to_string(),
            DenseScope::Before(a) => format!("Before {}", p(a)),
            DenseScope::After(a) => format!("After {}", p(a)),
            DenseScope::Between(a, b) => format!("Between {} and {}", p(a), p(b)),
            DenseScope::AfterUntil(a, b) => format!("After {} until {}", p(a), p(b)),
        };
        let mut s = String::new();
        for w in self.kind.sentence().split(' ') {
            let word = match w {
                "R" | "S" | "T" | "U" | "R," | "S," => {
                    let i = "RSTU".find(&w[..1]).expect("a slot");
                    let comma = if w.ends_with(',') { "," } else { "" };
                    self.formulas
                        .get(i)
                        .map(|t| format!("{}{comma}", p(t)))
                        .unwrap_or_else(|| w.to_string())
                }
                "c1" | "c2" => {
                    let i = if w == "c1" { 0 } else { 1 };
                    self.durations
                        .get(i)
                        .map(|d| time.show(*d))
                        .unwrap_or_else(|| w.to_string())
                }
                other => other.to_string(),
            };
            if !s.is_empty() {
                s.push(' ');
            }
            s.push_str(&word);
        }
        format!("{scope}, {s}")
    }
}
