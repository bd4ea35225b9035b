//! Fault detection: the spec's own mutants (`reqs::mutate`'s operators) as faulty
//! implementations, and random suites of valid vectors to compare with.
//!
//! A mutant replaces one requirement `r` by `r'`: a faulty implementation produces, on
//! a case's inputs `x`, outputs that satisfy the mutated spec `M' = D ∧ R[r := r'] ∧ x`.
//! The case is judged against the original spec `M = D ∧ R`.
//!
//! * The case **reveals** the mutant when some outputs the faulty implementation may
//!   give fail it: `M' ∧ ¬r ∧ x` is satisfiable (an implementation that shows its fault
//!   wherever it can fails this case).
//! * The case **kills it for sure** when every output of the faulty implementation fails
//!   it: it reveals the mutant and `M ∧ r' ∧ x` is unsat.
//!
//! A mutant that only narrows what the spec allows is revealed by no case: every
//! implementation of it is a correct implementation of the original.

use crate::problem::Problem;
use crate::session::{equalities, Session, SessionError};
use logic::{Model, Sort, Symbol, Term, Value};
use num_bigint::BigInt;
use num_rational::BigRational;
use solver::{Outcome, SolverConfig};

/// A test vector with the state it was found in (for the evaluation shortcut).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// The inputs.
    pub inputs: Vec<(Symbol, Value)>,
    /// A state that satisfies the domain and every requirement with these inputs.
    pub state: Model,
}

/// What a case shows of a mutant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kill {
    /// Nothing: every output the faulty implementation may give passes.
    No,
    /// Some outputs it may give fail the case.
    Revealed,
    /// Every output it may give fails the case.
    Sure,
}

/// The formula of the requirement a mutant replaces: the `index`th of the spec.
fn replaced(p: &Problem, index: usize) -> Term {
    p.spec.requirements[index]
        .formula
        .clone()
        .expect("a mutant of a formalized requirement")
}

/// The kill matrix of mutants on probes: `matrix[m][c]`. A mutant is the index of the
/// requirement it replaces (in the spec's requirements) and its formula. `unknown`
/// answers count as [`Kill::No`] and are counted in the second value.
pub fn kill_matrix(
    p: &Problem,
    probes: &[Probe],
    mutants: &[(usize, Term)],
    config: &SolverConfig,
) -> Result<(Vec<Vec<Kill>>, usize), SessionError> {
    let mut s = Session::start(p, config)?;
    let all = s.members();
    let ctx = &p.spec.context;
    let mut unknown = 0;
    let mut out = Vec::new();
    for (index, m) in mutants {
        let original = replaced(p, *index);
        let others = s.members_except(*index);
        let mut row = Vec::new();
        for probe in probes {
            let x = equalities(probe.inputs.iter().map(|(n, v)| (&**n, v)));
            let mut faulty = x.clone();
            faulty.push(m.clone());
            faulty.push(Term::not(original.clone()));
            let revealed = match s.check(&others, &faulty, false)? {
                Outcome::Sat(_) => true,
                Outcome::Unsat(_) => false,
                Outcome::Unknown(_) => {
                    unknown += 1;
                    false
                }
            };
            if !revealed {
                row.push(Kill::No);
                continue;
            }
            // The probe's state satisfies the original spec; if the mutant holds there
            // too, a faulty implementation may pass.
            if logic::eval_bool(m, &probe.state, ctx).unwrap_or(false) {
                row.push(Kill::Revealed);
                continue;
            }
            let mut both = x;
            both.push(m.clone());
            row.push(match s.check(&all, &both, false)? {
                Outcome::Unsat(_) => Kill::Sure,
                Outcome::Sat(_) => Kill::Revealed,
                Outcome::Unknown(_) => {
                    unknown += 1;
                    Kill::Revealed
                }
            });
        }
        out.push(row);
    }
    Ok((out, unknown))
}

/// Which mutants some valid test could reveal: there are inputs for which a valid
/// state exists (so the inputs make a test) and the faulty implementation may give
/// outputs that break the original requirement (`M' ∧ ¬r`). One query per mutant, over
/// two copies of the outputs that share the inputs. `unknown` counts as not revealable
/// and is counted in the second value.
pub fn revealable(
    p: &Problem,
    mutants: &[(usize, Term)],
    config: &SolverConfig,
) -> Result<(Vec<bool>, usize), SessionError> {
    let mut s = Session::start(p, config)?;
    // The copy: every output renamed, the domain and every requirement over it.
    let copy = |n: &str| -> Symbol {
        if p.roles.is_input(n) {
            Symbol::from(n)
        } else {
            Symbol::from(format!("vera!copy.{n}").as_str())
        }
    };
    for o in &p.roles.outputs {
        let v = p.spec.variable(o).expect("an output is a variable");
        s.solver.declare_const(&copy(o), v.sort.clone())?;
    }
    let formulas = p.spec.domain.iter().map(|d| &d.formula).chain(
        p.spec
            .formalized()
            .map(|r| r.formula.as_ref().expect("formalized")),
    );
    for f in formulas {
        s.solver
            .assert(&bl::check::side::rename_term(f, &|n: &str| copy(n)))?;
    }
    let mut out = Vec::new();
    let mut unknown = 0;
    for (index, m) in mutants {
        let original = replaced(p, *index);
        let others = s.members_except(*index);
        out.push(
            match s.check(&others, &[m.clone(), Term::not(original)], false)? {
                Outcome::Sat(_) => true,
                Outcome::Unsat(_) => false,
                Outcome::Unknown(_) => {
                    unknown += 1;
                    false
                }
            },
        );
    }
    Ok((out, unknown))
}

/// A small deterministic generator (SplitMix64), so a seed gives the same suite on
/// every machine.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform integer in `lo ..= hi`.
    pub fn range(&mut self, lo: &BigInt, hi: &BigInt) -> BigInt {
        if hi <= lo {
            return lo.clone();
        }
        let span = hi - lo + 1;
        let r = BigInt::from(self.next_u64()) * BigInt::from(self.next_u64());
        lo + (r % span)
    }
}

/// `n` random valid probes: every input drawn uniformly (numbers on their step grid
/// within their bounds, ±1000 where a bound is missing; Booleans and enumeration values
/// with equal chances), kept when the domain and the requirements allow them (the
/// solver's state completes the outputs). Gives up after `50 n` draws.
pub fn random_probes(
    p: &Problem,
    n: usize,
    seed: u64,
    config: &SolverConfig,
) -> Result<Vec<Probe>, SessionError> {
    let mut s = Session::start(p, config)?;
    let all = s.members();
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    let thousand = BigRational::from_integer(BigInt::from(1000));
    let mut draws = 0;
    while out.len() < n && draws < 50 * n {
        draws += 1;
        let mut inputs = Vec::new();
        for name in &p.roles.inputs {
            let v = p.spec.variable(name).expect("an input is a variable");
            let value = match &v.sort {
                Sort::Bool => Value::Bool(rng.next_u64() & 1 == 1),
                Sort::Enum(e) => {
                    let ctors = p
                        .spec
                        .enums
                        .iter()
                        .find(|(n, _)| n == e)
                        .map(|(_, c)| c.clone())
                        .unwrap_or_default();
                    let k = (rng.next_u64() % ctors.len().max(1) as u64) as usize;
                    Value::Enum(e.clone(), ctors[k].clone())
                }
                sort => {
                    let step = p.step_of(name).expect("numeric");
                    let lo = v.min.clone().unwrap_or_else(|| -thousand.clone());
                    let hi = v.max.clone().unwrap_or_else(|| thousand.clone());
                    // Multiples of the step inside [lo, hi].
                    let klo = (&lo / &step).ceil().to_integer();
                    let khi = (&hi / &step).floor().to_integer();
                    let k = rng.range(&klo, &khi);
                    let r = BigRational::from_integer(k) * &step;
                    match sort {
                        Sort::Int => Value::Int(r.to_integer()),
                        _ => Value::Real(r),
                    }
                }
            };
            inputs.push((name.clone(), value));
        }
        let eqs = equalities(inputs.iter().map(|(n, v)| (&**n, v)));
        if let Outcome::Sat(m) = s.check(&all, &eqs, false)? {
            let state = s.state(&m);
            s.validate(&state, &[])?;
            out.push(Probe { inputs, state });
        }
    }
    Ok(out)
}

/// The probes of a generated suite's cases.
pub fn probes_of(suite: &crate::suite::Suite) -> Vec<Probe> {
    suite
        .cases
        .iter()
        .map(|c| Probe {
            inputs: c.input_values.clone(),
            state: c.model.clone(),
        })
        .collect()
}
