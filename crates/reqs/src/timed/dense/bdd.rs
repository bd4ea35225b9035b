//! Reduced ordered binary decision diagrams over the atoms of requirement formulas.
//!
//! The compiler of countertraces into phase event automata decides "this guard is
//! false" at every step of its construction. The peer decides it on decision diagrams
//! whose atoms are the relational subformulas of the requirements (a comparison or a
//! Boolean variable, compared by its text) and the clock constraints: a conjunction is
//! dropped when it is false *as a Boolean combination of its atoms*, not when an
//! arithmetic argument shows it unsatisfiable. The same choice here makes the same
//! locations exist (which matters: the vacuity check looks at the last phase that
//! occurs in some location).
//!
//! Atoms are numbered in the order they are first met; that order is the variable order
//! of the diagrams. A data atom is a state formula over the current state or over the
//! next one (*primed*); a clock atom is `c < T` for the clock of one phase.

use logic::{Op, Term};
use rustc_hash::FxHashMap as HashMap;

/// A node of a diagram: an index into the manager's table (0 is false, 1 is true).
pub type Ref = u32;
/// The false diagram.
pub const FALSE: Ref = 0;
/// The true diagram.
pub const TRUE: Ref = 1;

/// What a diagram variable stands for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Atom {
    /// A Boolean state formula with no Boolean connective at its top, over the current
    /// state or (primed) over the next one.
    Data {
        /// The formula.
        term: Term,
        /// Over the next state.
        primed: bool,
    },
    /// `c < T` for the clock of countertrace phase `phase` of automaton `aut`.
    Clock {
        /// The automaton.
        aut: usize,
        /// The phase the clock measures.
        phase: usize,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Node {
    var: u32,
    lo: Ref,
    hi: Ref,
}

/// How many results of [`Bdd::ite`] are kept at the most.
const ITE_MEMO_LIMIT: usize = 1 << 22;

/// A table of diagrams over one set of atoms.
#[derive(Debug, Clone, Default)]
pub struct Bdd {
    nodes: Vec<Node>,
    unique: HashMap<Node, Ref>,
    ite_memo: HashMap<(Ref, Ref, Ref), Ref>,
    /// `ite_memo` is emptied when it holds this many results.
    memo_limit: usize,
    prime_memo: HashMap<Ref, Ref>,
    atoms: Vec<Atom>,
    atom_index: HashMap<(String, bool), u32>,
    clock_index: HashMap<(usize, usize), u32>,
}

impl Bdd {
    /// An empty table.
    pub fn new() -> Bdd {
        let leaf = Node {
            var: u32::MAX,
            lo: 0,
            hi: 0,
        };
        Bdd {
            nodes: vec![leaf, leaf],
            memo_limit: ITE_MEMO_LIMIT,
            ..Bdd::default()
        }
    }

    /// The atoms, by variable number.
    pub fn atoms(&self) -> &[Atom] {
        &self.atoms
    }

    fn mk(&mut self, var: u32, lo: Ref, hi: Ref) -> Ref {
        if lo == hi {
            return lo;
        }
        let n = Node { var, lo, hi };
        if let Some(r) = self.unique.get(&n) {
            return *r;
        }
        let r = self.nodes.len() as Ref;
        self.nodes.push(n);
        self.unique.insert(n, r);
        r
    }

    fn var_of(&self, f: Ref) -> u32 {
        self.nodes[f as usize].var
    }

    /// The diagram of one variable.
    pub fn var(&mut self, v: u32) -> Ref {
        self.mk(v, FALSE, TRUE)
    }

    /// The atom `c < T` of the clock of phase `phase` of automaton `aut`.
    pub fn clock_lt(&mut self, aut: usize, phase: usize) -> Ref {
        let v = match self.clock_index.get(&(aut, phase)) {
            Some(v) => *v,
            None => {
                let v = self.atoms.len() as u32;
                self.atoms.push(Atom::Clock { aut, phase });
                self.clock_index.insert((aut, phase), v);
                v
            }
        };
        self.var(v)
    }

    fn data_atom(&mut self, t: &Term, primed: bool) -> Ref {
        let key = (logic::print::term(t), primed);
        let v = match self.atom_index.get(&key) {
            Some(v) => *v,
            None => {
                let v = self.atoms.len() as u32;
                self.atoms.push(Atom::Data {
                    term: t.clone(),
                    primed,
                });
                self.atom_index.insert(key, v);
                v
            }
        };
        self.var(v)
    }

    /// `if f then g else h`.
    pub fn ite(&mut self, f: Ref, g: Ref, h: Ref) -> Ref {
        if f == TRUE {
            return g;
        }
        if f == FALSE {
            return h;
        }
        if g == h {
            return g;
        }
        if g == TRUE && h == FALSE {
            return f;
        }
        if let Some(r) = self.ite_memo.get(&(f, g, h)) {
            return *r;
        }
        let v = [f, g, h]
            .iter()
            .filter(|x| **x > TRUE)
            .map(|x| self.var_of(*x))
            .min()
            .expect("f is not a leaf");
        let (f0, f1) = self.cofactors(f, v);
        let (g0, g1) = self.cofactors(g, v);
        let (h0, h1) = self.cofactors(h, v);
        let lo = self.ite(f0, g0, h0);
        let hi = self.ite(f1, g1, h1);
        let r = self.mk(v, lo, hi);
        // A cache only: emptied when full, so thousands of conjunctions (the rt
        // pre-check's pairs) do not keep every intermediate result.
        if self.ite_memo.len() >= self.memo_limit {
            self.ite_memo.clear();
        }
        self.ite_memo.insert((f, g, h), r);
        r
    }

    fn cofactors(&self, f: Ref, v: u32) -> (Ref, Ref) {
        if f <= TRUE {
            return (f, f);
        }
        let n = self.nodes[f as usize];
        if n.var == v {
            (n.lo, n.hi)
        } else {
            (f, f)
        }
    }

    /// `¬f`.
    pub fn not(&mut self, f: Ref) -> Ref {
        self.ite(f, FALSE, TRUE)
    }

    /// `f ∧ g`.
    pub fn and(&mut self, f: Ref, g: Ref) -> Ref {
        self.ite(f, g, FALSE)
    }

    /// `f ∨ g`.
    pub fn or(&mut self, f: Ref, g: Ref) -> Ref {
        self.ite(f, TRUE, g)
    }

    /// `f` with variable `v` fixed to `value`.
    pub fn restrict(&mut self, f: Ref, v: u32, value: bool) -> Ref {
        let mut memo = HashMap::default();
        self.restrict_rec(f, v, value, &mut memo)
    }

    fn restrict_rec(&mut self, f: Ref, v: u32, value: bool, memo: &mut HashMap<Ref, Ref>) -> Ref {
        if f <= TRUE {
            return f;
        }
        if let Some(r) = memo.get(&f) {
            return *r;
        }
        let n = self.nodes[f as usize];
        let r = if n.var == v {
            if value {
                n.hi
            } else {
                n.lo
            }
        } else if n.var > v {
            f
        } else {
            let lo = self.restrict_rec(n.lo, v, value, memo);
            let hi = self.restrict_rec(n.hi, v, value, memo);
            self.mk(n.var, lo, hi)
        };
        memo.insert(f, r);
        r
    }

    /// `f` with the variables `vars` (sorted) quantified existentially: true where some
    /// values of them make `f` true.
    pub fn exists(&mut self, f: Ref, vars: &[u32]) -> Ref {
        let mut memo = HashMap::default();
        self.exists_rec(f, vars, &mut memo)
    }

    fn exists_rec(&mut self, f: Ref, vars: &[u32], memo: &mut HashMap<Ref, Ref>) -> Ref {
        if f <= TRUE {
            return f;
        }
        if let Some(r) = memo.get(&f) {
            return *r;
        }
        let n = self.nodes[f as usize];
        let lo = self.exists_rec(n.lo, vars, memo);
        let hi = self.exists_rec(n.hi, vars, memo);
        let r = if vars.binary_search(&n.var).is_ok() {
            self.or(lo, hi)
        } else {
            self.mk(n.var, lo, hi)
        };
        memo.insert(f, r);
        r
    }

    /// The variables `f` depends on, in order.
    pub fn support(&self, f: Ref) -> Vec<u32> {
        let mut seen = rustc_hash::FxHashSet::default();
        let mut stack = vec![f];
        let mut vars = std::collections::BTreeSet::new();
        while let Some(x) = stack.pop() {
            if x <= TRUE || !seen.insert(x) {
                continue;
            }
            let n = self.nodes[x as usize];
            vars.insert(n.var);
            stack.push(n.lo);
            stack.push(n.hi);
        }
        vars.into_iter().collect()
    }

    /// `f` with every data atom primed (over the next state).
    pub fn prime(&mut self, f: Ref) -> Ref {
        if let Some(r) = self.prime_memo.get(&f) {
            return *r;
        }
        let mut memo = HashMap::default();
        let r = self.prime_rec(f, &mut memo);
        self.prime_memo.insert(f, r);
        r
    }

    fn prime_rec(&mut self, f: Ref, memo: &mut HashMap<Ref, Ref>) -> Ref {
        if f <= TRUE {
            return f;
        }
        if let Some(r) = memo.get(&f) {
            return *r;
        }
        let n = self.nodes[f as usize];
        let lo = self.prime_rec(n.lo, memo);
        let hi = self.prime_rec(n.hi, memo);
        let v = match self.atoms[n.var as usize].clone() {
            Atom::Data { term, .. } => self.data_atom(&term, true),
            Atom::Clock { .. } => self.var(n.var),
        };
        let r = self.ite(v, hi, lo);
        memo.insert(f, r);
        r
    }

    /// The diagram of a Boolean state formula (over the current state): the Boolean
    /// connectives are taken apart, everything else is an atom.
    pub fn of_term(&mut self, t: &Term) -> Ref {
        match t {
            Term::Bool(true) => TRUE,
            Term::Bool(false) => FALSE,
            Term::Named(inner, _) => self.of_term(inner),
            Term::App(op, args) => {
                let bools = args.iter().all(|a| a.sort() == logic::Sort::Bool);
                match op {
                    Op::Not => {
                        let a = self.of_term(&args[0]);
                        self.not(a)
                    }
                    Op::And => args.iter().fold(TRUE, |acc, a| {
                        let b = self.of_term(a);
                        self.and(acc, b)
                    }),
                    Op::Or => args.iter().fold(FALSE, |acc, a| {
                        let b = self.of_term(a);
                        self.or(acc, b)
                    }),
                    Op::Implies => {
                        // Right associative: (=> a b c) is a ⇒ (b ⇒ c).
                        let mut acc = self.of_term(args.last().expect("arguments"));
                        for a in args[..args.len() - 1].iter().rev() {
                            let x = self.of_term(a);
                            let nx = self.not(x);
                            acc = self.or(nx, acc);
                        }
                        acc
                    }
                    Op::Xor if bools => {
                        args.iter().skip(1).fold(self.of_term(&args[0]), |acc, a| {
                            let b = self.of_term(a);
                            let nb = self.not(b);
                            self.ite(acc, nb, b)
                        })
                    }
                    Op::Eq if bools && args.len() == 2 => {
                        let a = self.of_term(&args[0]);
                        let b = self.of_term(&args[1]);
                        let nb = self.not(b);
                        self.ite(a, b, nb)
                    }
                    Op::Distinct if bools && args.len() == 2 => {
                        let a = self.of_term(&args[0]);
                        let b = self.of_term(&args[1]);
                        let nb = self.not(b);
                        self.ite(a, nb, b)
                    }
                    Op::Ite if t.sort() == logic::Sort::Bool => {
                        let c = self.of_term(&args[0]);
                        let a = self.of_term(&args[1]);
                        let b = self.of_term(&args[2]);
                        self.ite(c, a, b)
                    }
                    _ => self.data_atom(t, false),
                }
            }
            _ => self.data_atom(t, false),
        }
    }

    /// The diagram as a term; `atom` gives the term of each variable.
    pub fn to_term(&self, f: Ref, atom: &dyn Fn(&Atom) -> Term) -> Term {
        let mut memo: HashMap<Ref, Term> = HashMap::default();
        self.to_term_rec(f, atom, &mut memo)
    }

    fn to_term_rec(
        &self,
        f: Ref,
        atom: &dyn Fn(&Atom) -> Term,
        memo: &mut HashMap<Ref, Term>,
    ) -> Term {
        if f == TRUE {
            return Term::Bool(true);
        }
        if f == FALSE {
            return Term::Bool(false);
        }
        if let Some(t) = memo.get(&f) {
            return t.clone();
        }
        let n = self.nodes[f as usize];
        let a = atom(&self.atoms[n.var as usize]);
        let r = match (n.lo, n.hi) {
            (FALSE, TRUE) => a,
            (TRUE, FALSE) => Term::not(a),
            (FALSE, hi) => Term::App(Op::And, vec![a, self.to_term_rec(hi, atom, memo)]),
            (lo, FALSE) => Term::App(
                Op::And,
                vec![Term::not(a), self.to_term_rec(lo, atom, memo)],
            ),
            (lo, TRUE) => Term::App(Op::Or, vec![a, self.to_term_rec(lo, atom, memo)]),
            (TRUE, hi) => Term::App(Op::Or, vec![Term::not(a), self.to_term_rec(hi, atom, memo)]),
            (lo, hi) => Term::App(
                Op::Ite,
                vec![
                    a,
                    self.to_term_rec(hi, atom, memo),
                    self.to_term_rec(lo, atom, memo),
                ],
            ),
        };
        memo.insert(f, r.clone());
        r
    }

    /// Evaluates `f` under an assignment of its variables.
    pub fn eval(&self, f: Ref, value: &dyn Fn(u32) -> bool) -> bool {
        let mut x = f;
        while x > TRUE {
            let n = self.nodes[x as usize];
            x = if value(n.var) { n.hi } else { n.lo };
        }
        x == TRUE
    }

    /// Every path to true as a cube: the variables it fixes, with their values.
    pub fn cubes(&self, f: Ref) -> Vec<Vec<(u32, bool)>> {
        let mut out = Vec::new();
        let mut path = Vec::new();
        self.cubes_rec(f, &mut path, &mut out);
        out
    }

    fn cubes_rec(&self, f: Ref, path: &mut Vec<(u32, bool)>, out: &mut Vec<Vec<(u32, bool)>>) {
        if f == FALSE {
            return;
        }
        if f == TRUE {
            out.push(path.clone());
            return;
        }
        let n = self.nodes[f as usize];
        path.push((n.var, false));
        self.cubes_rec(n.lo, path, out);
        path.pop();
        path.push((n.var, true));
        self.cubes_rec(n.hi, path, out);
        path.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use logic::Sort;

    #[test]
    fn connectives_and_atoms() {
        let mut b = Bdd::new();
        let x = Term::var("x", Sort::Bool);
        let y = Term::var("y", Sort::Bool);
        let gt = Term::app(Op::Gt, vec![Term::var("n", Sort::Int), Term::int(5)]);
        let f = b.of_term(&Term::app(Op::And, vec![x.clone(), Term::not(x.clone())]));
        assert_eq!(f, FALSE);
        let g = b.of_term(&Term::app(Op::Implies, vec![x.clone(), y.clone()]));
        let h = b.of_term(&Term::app(Op::Or, vec![Term::not(x.clone()), y.clone()]));
        assert_eq!(g, h);
        // Arithmetic is not looked into: n > 5 and its negation are one atom.
        let a = b.of_term(&gt);
        let na = b.not(a);
        assert_eq!(b.and(a, na), FALSE);
        // Primed atoms are other variables.
        let pa = b.prime(a);
        assert_ne!(pa, a);
        assert_ne!(b.and(pa, na), FALSE);
        let c = b.clock_lt(0, 2);
        let cube = b.and(c, pa);
        assert_eq!(b.support(cube).len(), 2);
        assert_eq!(b.prime(c), c);
        let r = b.restrict(cube, b.support(c)[0], true);
        assert_eq!(r, pa);
    }

    proptest::proptest! {
        /// A table whose results cache is emptied every few entries gives the same
        /// diagrams (the same node numbers) as one that keeps them all, and each is
        /// the function asked for on every assignment of its eight variables.
        #[test]
        fn emptying_the_cache_changes_no_diagram(ops in proptest::collection::vec((0u8..3, 0usize..64, 0usize..64), 1..60)) {
            let (mut kept, mut emptied) = (Bdd::new(), Bdd::new());
            emptied.memo_limit = 3;
            // Each diagram with its truth table over the 256 assignments.
            let mut fs: Vec<(Ref, Ref, [bool; 256])> = (0..8u32)
                .map(|v| {
                    let table = std::array::from_fn(|a| a & (1 << v) != 0);
                    (kept.var(v), emptied.var(v), table)
                })
                .collect();
            for (op, i, j) in ops {
                let ((f1, f2, tf), (g1, g2, tg)) = (fs[i % fs.len()], fs[j % fs.len()]);
                let made = match op {
                    0 => (kept.and(f1, g1), emptied.and(f2, g2), std::array::from_fn(|a| tf[a] && tg[a])),
                    1 => (kept.or(f1, g1), emptied.or(f2, g2), std::array::from_fn(|a| tf[a] || tg[a])),
                    _ => (kept.not(f1), emptied.not(f2), std::array::from_fn(|a| !tf[a])),
                };
                fs.push(made);
            }
            for (f1, f2, table) in fs {
                proptest::prop_assert_eq!(f1, f2);
                for (a, want) in table.iter().enumerate() {
                    proptest::prop_assert_eq!(emptied.eval(f2, &|v| a & (1 << v) != 0), *want);
                }
            }
        }
    }
}
