//! The syntax tree of a BL program, with source spans on every node.

use logic::Span;
use num_rational::BigRational;

/// A whole program: a sequence of `let` bindings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    /// The bindings in source order.
    pub lets: Vec<Let>,
}

/// `let name = <input>` or `let name = expr`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Let {
    /// The bound name.
    pub name: String,
    /// Where the name is written.
    pub name_span: Span,
    /// What the name is bound to.
    pub value: Binding,
    /// The whole binding, from `let` to the end of the expression.
    pub span: Span,
}

/// The right-hand side of a `let`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Binding {
    /// `<input>`: a value supplied from outside.
    Input,
    /// A computed value.
    Expr(Expr),
}

/// Arithmetic operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (exact rational division)
    Div,
}

impl BinOp {
    /// The operator as written in BL.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
        }
    }

    /// The matching SMT-LIB operator.
    pub fn smt(self) -> logic::Op {
        match self {
            BinOp::Add => logic::Op::Add,
            BinOp::Sub => logic::Op::Sub,
            BinOp::Mul => logic::Op::Mul,
            BinOp::Div => logic::Op::Div,
        }
    }
}

/// Comparison operators of `if` conditions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `>`
    Gt,
    /// `<`
    Lt,
    /// `==`
    Eq,
    /// `<=`
    Le,
    /// `>=`
    Ge,
}

impl CmpOp {
    /// The operator as written in BL.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Gt => ">",
            CmpOp::Lt => "<",
            CmpOp::Eq => "==",
            CmpOp::Le => "<=",
            CmpOp::Ge => ">=",
        }
    }

    /// The matching SMT-LIB operator.
    pub fn smt(self) -> logic::Op {
        match self {
            CmpOp::Gt => logic::Op::Gt,
            CmpOp::Lt => logic::Op::Lt,
            CmpOp::Eq => logic::Op::Eq,
            CmpOp::Le => logic::Op::Le,
            CmpOp::Ge => logic::Op::Ge,
        }
    }

    /// Decides the comparison on two exact values.
    pub fn holds(self, a: &BigRational, b: &BigRational) -> bool {
        match self {
            CmpOp::Gt => a > b,
            CmpOp::Lt => a < b,
            CmpOp::Eq => a == b,
            CmpOp::Le => a <= b,
            CmpOp::Ge => a >= b,
        }
    }
}

/// An expression with its span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expr {
    /// What the expression is.
    pub kind: ExprKind,
    /// Where it is written.
    pub span: Span,
}

/// The kinds of expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExprKind {
    /// A number literal such as `0.145`, kept exact.
    Num(BigRational),
    /// A reference to an earlier `let`.
    Var(String),
    /// `( e )`, kept so that the formatter can reproduce the source.
    Paren(Box<Expr>),
    /// `e1 op e2`.
    Bin(BinOp, Box<Expr>, Box<Expr>),
    /// `if lhs cmp rhs then then_ else else_`.
    If {
        /// Left operand of the condition.
        lhs: Box<Expr>,
        /// The comparison.
        cmp: CmpOp,
        /// Right operand of the condition.
        rhs: Box<Expr>,
        /// Value when the condition holds.
        then_: Box<Expr>,
        /// Value otherwise.
        else_: Box<Expr>,
    },
}

impl Program {
    /// The binding named `name`, if any.
    pub fn get(&self, name: &str) -> Option<&Let> {
        self.lets.iter().find(|l| l.name == name)
    }

    /// Names bound to `<input>`, in order.
    pub fn inputs(&self) -> impl Iterator<Item = &str> {
        self.lets
            .iter()
            .filter(|l| l.value == Binding::Input)
            .map(|l| l.name.as_str())
    }

    /// The last binding's name: the conventional output of a program.
    pub fn last_name(&self) -> Option<&str> {
        self.lets.last().map(|l| l.name.as_str())
    }
}

impl Drop for Expr {
    /// Iterative, so that dropping a chain of any length (an `if` per table row) never
    /// exhausts the stack: each child's kind is taken out and its children queued
    /// before the child itself is dropped.
    fn drop(&mut self) {
        // Boxes, not expressions: moving a box moves a pointer, and the children keep
        // their allocations until they are taken apart here.
        #[allow(clippy::vec_box)]
        fn take(kind: &mut ExprKind, queue: &mut Vec<Box<Expr>>) {
            let leaf = ExprKind::Var(String::new());
            match std::mem::replace(kind, leaf) {
                ExprKind::Num(_) | ExprKind::Var(_) => {}
                ExprKind::Paren(x) => queue.push(x),
                ExprKind::Bin(_, a, b) => queue.extend([a, b]),
                ExprKind::If {
                    lhs,
                    rhs,
                    then_,
                    else_,
                    ..
                } => queue.extend([lhs, rhs, then_, else_]),
            }
        }
        if matches!(self.kind, ExprKind::Num(_) | ExprKind::Var(_)) {
            return;
        }
        let mut queue = Vec::new();
        take(&mut self.kind, &mut queue);
        while let Some(mut e) = queue.pop() {
            take(&mut e.kind, &mut queue);
        }
    }
}

impl Expr {
    /// Names this expression refers to, with their spans, in source order.
    pub fn vars(&self) -> Vec<(&str, Span)> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            if let ExprKind::Var(v) = &e.kind {
                out.push((v.as_str(), e.span));
            }
            stack.extend(e.children().rev());
        }
        out
    }

    /// The direct subexpressions, in source order.
    pub fn children(&self) -> impl DoubleEndedIterator<Item = &Expr> {
        let children: [Option<&Expr>; 4] = match &self.kind {
            ExprKind::Num(_) | ExprKind::Var(_) => [None, None, None, None],
            ExprKind::Paren(x) => [Some(x), None, None, None],
            ExprKind::Bin(_, a, b) => [Some(a), Some(b), None, None],
            ExprKind::If {
                lhs,
                rhs,
                then_,
                else_,
                ..
            } => [Some(lhs), Some(rhs), Some(then_), Some(else_)],
        };
        children.into_iter().flatten()
    }
}
