//! The reference interpreter: exact rational arithmetic, no rounding anywhere.

use crate::ast::{BinOp, Binding, Expr, ExprKind, Program};
use logic::Span;
use num_rational::BigRational;
use num_traits::Zero;
use std::collections::BTreeMap;

/// Values of every binding after a run, by name.
pub type Values = BTreeMap<String, BigRational>;

/// Why a program produced no value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InterpError {
    /// An `<input>` binding was given no value.
    #[error("no value given for input `{0}`")]
    MissingInput(String),
    /// A value was given for a name that is not an `<input>` of the program.
    #[error("`{0}` is not an input of the program")]
    NotAnInput(String),
    /// A division whose divisor evaluated to zero.
    #[error("division by zero in the definition of `{binding}`")]
    DivisionByZero {
        /// The binding being computed.
        binding: String,
        /// Where the division is.
        span: Span,
    },
    /// A reference to a name with no value (only for programs built by hand; parsed
    /// programs are checked).
    #[error("`{0}` has no value")]
    Unbound(String),
    /// The requested output is not a binding of the program.
    #[error("`{0}` is not bound in the program")]
    NoSuchBinding(String),
}

/// Runs the program on the given inputs and returns the value of every binding.
pub fn run(
    program: &Program,
    inputs: &BTreeMap<String, BigRational>,
) -> Result<Values, InterpError> {
    for k in inputs.keys() {
        if !program.inputs().any(|i| i == k) {
            return Err(InterpError::NotAnInput(k.clone()));
        }
    }
    let mut env = Values::new();
    for l in &program.lets {
        let v = match &l.value {
            Binding::Input => inputs
                .get(&l.name)
                .cloned()
                .ok_or_else(|| InterpError::MissingInput(l.name.clone()))?,
            Binding::Expr(e) => eval(e, &env, &l.name)?,
        };
        env.insert(l.name.clone(), v);
    }
    Ok(env)
}

/// Runs the program and returns the value of one binding (usually the output).
pub fn interpret(
    program: &Program,
    inputs: &BTreeMap<String, BigRational>,
    output: &str,
) -> Result<BigRational, InterpError> {
    if program.get(output).is_none() {
        return Err(InterpError::NoSuchBinding(output.to_string()));
    }
    let mut env = run(program, inputs)?;
    Ok(env
        .remove(output)
        .expect("every binding has a value after a run"))
}

/// Evaluates one expression in an environment.
pub fn eval(e: &Expr, env: &Values, binding: &str) -> Result<BigRational, InterpError> {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || eval_inner(e, env, binding))
}

fn eval_inner(e: &Expr, env: &Values, binding: &str) -> Result<BigRational, InterpError> {
    Ok(match &e.kind {
        ExprKind::Num(n) => n.clone(),
        ExprKind::Var(v) => env
            .get(v)
            .cloned()
            .ok_or_else(|| InterpError::Unbound(v.clone()))?,
        ExprKind::Paren(x) => eval(x, env, binding)?,
        ExprKind::Bin(op, a, b) => {
            let a = eval(a, env, binding)?;
            let b = eval(b, env, binding)?;
            match op {
                BinOp::Add => a + b,
                BinOp::Sub => a - b,
                BinOp::Mul => a * b,
                BinOp::Div => {
                    if b.is_zero() {
                        return Err(InterpError::DivisionByZero {
                            binding: binding.to_string(),
                            span: e.span,
                        });
                    }
                    a / b
                }
            }
        }
        ExprKind::If {
            lhs,
            cmp,
            rhs,
            then_,
            else_,
        } => {
            let l = eval(lhs, env, binding)?;
            let r = eval(rhs, env, binding)?;
            if cmp.holds(&l, &r) {
                eval(then_, env, binding)?
            } else {
                eval(else_, env, binding)?
            }
        }
    })
}
