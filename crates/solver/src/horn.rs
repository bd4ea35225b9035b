//! Constrained Horn clauses solved by z3's fixedpoint engine (Spacer).
//!
//! A [`HornProblem`] declares relations (uninterpreted predicates) and clauses
//! `∀ vars. body ⇒ head`, where `head` is a relation applied to terms or `false`, and
//! the relations appear in the body as [`Term::Call`]s of sort Bool. [`solve`] asks
//! z3 (`(set-logic HORN)`) whether the clauses have a model: `sat` means they do (a
//! query clause with head `false` can never fire: what it asks is unreachable), and
//! z3's model, the definition of each relation, is read back as terms
//! ([`HornOutcome::Safe`]); `unsat` means a query fires ([`HornOutcome::Unsafe`]).
//!
//! Nothing is trusted here: a model is a claim the caller re-checks (that the
//! definitions satisfy every clause) with ordinary queries of a validated [`Solver`]
//! session; this module only reads what z3 says. Every text sent is printed from terms
//! and sorts by `logic::print`, as in the rest of this crate.
//!
//! [`Solver`]: crate::Solver

use crate::process::{Answer, Process};
use crate::{Reason, SolverConfig, SolverError, SolverKind};
use logic::print;
use logic::sexp::{self, Sexp};
use logic::{Context, Sort, Symbol, Term};

/// One clause: `∀ vars. body ⇒ head` (`head` `None` is `false`).
#[derive(Debug, Clone)]
pub struct HornClause {
    /// The universally quantified variables.
    pub vars: Vec<(Symbol, Sort)>,
    /// The premise: relations as [`Term::Call`]s and constraints.
    pub body: Term,
    /// The conclusion: a relation applied to terms, or `None` for `false`.
    pub head: Option<Term>,
}

/// Relations and clauses.
#[derive(Debug, Clone, Default)]
pub struct HornProblem {
    /// The enumeration sorts the clauses use, with their constructors (declared
    /// first).
    pub enums: Vec<(Symbol, Vec<Symbol>)>,
    /// Each relation with the sorts of its arguments.
    pub relations: Vec<(Symbol, Vec<Sort>)>,
    /// The clauses.
    pub clauses: Vec<HornClause>,
}

/// A relation's definition read from z3's model: its parameters and its body over
/// them.
#[derive(Debug, Clone)]
pub struct Definition {
    /// The relation.
    pub relation: Symbol,
    /// The parameters, in argument order.
    pub params: Vec<(Symbol, Sort)>,
    /// The body.
    pub body: Term,
}

/// What z3 said.
#[derive(Debug, Clone)]
pub enum HornOutcome {
    /// The clauses have a model (no query clause fires), with its definitions.
    Safe(Vec<Definition>),
    /// No model: a query clause fires.
    Unsafe,
    /// No answer.
    Unknown(Reason),
}

fn sort_text(s: &Sort) -> String {
    let mut out = String::new();
    sexp::write_flat(&mut out, &print::sort_sexp(s));
    out
}

fn symbol_text(s: &str) -> String {
    let mut out = String::new();
    sexp::write_symbol(&mut out, s);
    out
}

/// The problem as SMT-LIB text (what [`solve`] sends, without the options).
pub fn text(problem: &HornProblem) -> Vec<String> {
    let mut lines = vec!["(set-logic HORN)".to_string()];
    for (name, ctors) in &problem.enums {
        let declare = logic::Command::DeclareEnum(name.clone(), ctors.clone());
        lines.push(print::command(&declare));
    }
    for (name, sorts) in &problem.relations {
        let args: Vec<String> = sorts.iter().map(sort_text).collect();
        lines.push(format!(
            "(declare-fun {} ({}) Bool)",
            symbol_text(name),
            args.join(" ")
        ));
    }
    for c in &problem.clauses {
        let head = c
            .head
            .as_ref()
            .map_or_else(|| "false".to_string(), print::term);
        let imp = format!("(=> {} {head})", print::term(&c.body));
        if c.vars.is_empty() {
            lines.push(format!("(assert {imp})"));
        } else {
            let vars: Vec<String> = c
                .vars
                .iter()
                .map(|(n, s)| format!("({} {})", symbol_text(n), sort_text(s)))
                .collect();
            lines.push(format!("(assert (forall ({}) {imp}))", vars.join(" ")));
        }
    }
    lines
}

/// Solves the problem with z3 (the configuration's binary and time limit; a cvc5
/// configuration is refused: cvc5 has no Horn engine).
pub fn solve(config: &SolverConfig, problem: &HornProblem) -> Result<HornOutcome, SolverError> {
    if config.kind != SolverKind::Z3 {
        return Err(SolverError::Unsupported(
            "Horn clauses are solved by z3 only".into(),
        ));
    }
    let program = config.resolved_program();
    let mut p = Process::spawn(&program, config.kind.args()).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            SolverError::NotFound {
                program: program.clone(),
                hint: "put `z3` on PATH, or set VERA_Z3 to the binary".into(),
            }
        } else {
            SolverError::Io(e)
        }
    })?;
    let limit = config.watchdog();
    let mut lines = vec!["(set-option :print-success true)".to_string()];
    // Without inlining, the model defines the relations by quantifier-free formulas
    // (inlined clauses come back as existential quantifiers, which cannot be checked).
    lines.push("(set-option :fp.xform.inline_linear false)".to_string());
    lines.push("(set-option :fp.xform.inline_eager false)".to_string());
    lines.push(format!(
        "(set-option :timeout {})",
        config.timeout.as_millis().max(1)
    ));
    lines.extend(text(problem));
    let mut transcript = String::new();
    for l in &lines {
        transcript.push_str(l);
        transcript.push('\n');
        p.send(l).map_err(SolverError::Io)?;
        match p.read(limit) {
            Answer::Item(s) if s == "success" => {}
            Answer::Item(s) => {
                p.kill();
                return Err(SolverError::Solver {
                    command: l.clone(),
                    message: s,
                });
            }
            Answer::Timeout => {
                p.kill();
                return Ok(HornOutcome::Unknown(Reason::Timeout));
            }
            Answer::Eof(d) => return Ok(HornOutcome::Unknown(Reason::Crashed(d))),
            Answer::TooLong => {
                p.kill();
                return Err(SolverError::Protocol {
                    expected: "success".into(),
                    got: "an answer too long to read".into(),
                });
            }
        }
    }
    p.send("(check-sat)").map_err(SolverError::Io)?;
    let answer = match p.read(limit) {
        Answer::Item(s) => s,
        Answer::Timeout => {
            p.kill();
            return Ok(HornOutcome::Unknown(Reason::Timeout));
        }
        Answer::Eof(d) => return Ok(HornOutcome::Unknown(Reason::Crashed(d))),
        Answer::TooLong => {
            p.kill();
            return Ok(HornOutcome::Unknown(Reason::Other(
                "answer too long".into(),
            )));
        }
    };
    let outcome = match answer.as_str() {
        "unsat" => HornOutcome::Unsafe,
        "unknown" => {
            let _ = p.send("(get-info :reason-unknown)");
            let why = match p.read(limit) {
                Answer::Item(s) => s,
                _ => "unknown".into(),
            };
            HornOutcome::Unknown(Reason::from_solver(&why))
        }
        "sat" => {
            p.send("(get-model)").map_err(SolverError::Io)?;
            match p.read(limit) {
                Answer::Item(s) => match read_model(&s, problem) {
                    Ok(defs) => HornOutcome::Safe(defs),
                    Err(e) => HornOutcome::Unknown(Reason::Other(format!(
                        "the fixedpoint engine's model could not be read: {e}"
                    ))),
                },
                Answer::Timeout => HornOutcome::Unknown(Reason::Timeout),
                Answer::Eof(d) => HornOutcome::Unknown(Reason::Crashed(d)),
                Answer::TooLong => HornOutcome::Unknown(Reason::Other("model too long".into())),
            }
        }
        other => {
            p.kill();
            return Err(SolverError::Protocol {
                expected: "sat, unsat or unknown".into(),
                got: other.to_string(),
            });
        }
    };
    let _ = p.send("(exit)");
    p.kill();
    Ok(outcome)
}

/// Reads `((define-fun R ((x!0 Int) ...) Bool body) ...)`.
fn read_model(text: &str, problem: &HornProblem) -> Result<Vec<Definition>, String> {
    let e = sexp::read_one(text).map_err(|d| format!("{d:?}"))?;
    let items = e.as_list().ok_or("the model is not a list")?;
    let mut out = Vec::new();
    for item in items {
        let parts = item.as_list().ok_or("a model entry is not a list")?;
        if parts.first().and_then(Sexp::as_symbol) != Some("define-fun") || parts.len() != 5 {
            continue;
        }
        let name = parts[1].as_symbol().ok_or("a definition without a name")?;
        let Some((rel, sorts)) = problem.relations.iter().find(|(n, _)| &**n == name) else {
            continue;
        };
        let params = parts[2].as_list().ok_or("parameters are not a list")?;
        if params.len() != sorts.len() {
            return Err(format!("{name}: {} parameters", params.len()));
        }
        let mut ctx = Context::new();
        ctx.set_logic("ALL");
        for (e, ctors) in &problem.enums {
            ctx.declare_enum(e.clone(), ctors.clone());
        }
        let mut ps = Vec::new();
        for (pm, s) in params.iter().zip(sorts) {
            let pn = pm
                .as_list()
                .and_then(|l| l.first())
                .and_then(Sexp::as_symbol)
                .ok_or("a parameter without a name")?;
            let sym: Symbol = pn.into();
            ctx.declare_const(sym.clone(), s.clone());
            ps.push((sym, s.clone()));
        }
        let mut el = logic::elab::Elaborator::new(ctx);
        let body = el.term(&parts[4]).ok_or_else(|| {
            let d: Vec<String> = el
                .take_diagnostics()
                .iter()
                .map(|d| d.message.clone())
                .collect();
            format!("{name}: {}", d.join("; "))
        })?;
        if body.sort() != Sort::Bool {
            return Err(format!("{name}: the body is not Boolean"));
        }
        out.push(Definition {
            relation: rel.clone(),
            params: ps,
            body,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use logic::Op;

    #[test]
    fn a_clock_bound_is_proved_and_a_reachable_state_found() {
        let r: Symbol = "R".into();
        let c = Term::var("c", Sort::Real);
        let d = Term::var("d", Sort::Real);
        let real = |x: i64| Term::Real(num_rational::BigRational::from_integer(x.into()));
        let app = |t: Term| Term::Call(r.clone(), vec![t], Sort::Bool);
        let mk = |bad: i64| HornProblem {
            enums: Vec::new(),
            relations: vec![(r.clone(), vec![Sort::Real])],
            clauses: vec![
                HornClause {
                    vars: vec![("c".into(), Sort::Real)],
                    body: Term::app(
                        Op::And,
                        vec![
                            Term::app(Op::Gt, vec![c.clone(), real(0)]),
                            Term::app(Op::Lt, vec![c.clone(), real(5)]),
                        ],
                    ),
                    head: Some(app(c.clone())),
                },
                HornClause {
                    vars: vec![("c".into(), Sort::Real), ("d".into(), Sort::Real)],
                    body: Term::app(
                        Op::And,
                        vec![
                            app(c.clone()),
                            Term::app(Op::Gt, vec![d.clone(), real(0)]),
                            Term::app(
                                Op::Lt,
                                vec![Term::app(Op::Add, vec![c.clone(), d.clone()]), real(5)],
                            ),
                        ],
                    ),
                    head: Some(app(Term::app(Op::Add, vec![c.clone(), d.clone()]))),
                },
                HornClause {
                    vars: vec![("c".into(), Sort::Real)],
                    body: Term::app(
                        Op::And,
                        vec![
                            app(c.clone()),
                            Term::app(Op::Gt, vec![c.clone(), real(bad)]),
                        ],
                    ),
                    head: None,
                },
            ],
        };
        let config = SolverConfig::new(SolverKind::Z3);
        match solve(&config, &mk(6)).unwrap() {
            HornOutcome::Safe(defs) => {
                assert_eq!(defs.len(), 1);
                assert_eq!(defs[0].params.len(), 1);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            solve(&config, &mk(3)).unwrap(),
            HornOutcome::Unsafe
        ));
    }
}
