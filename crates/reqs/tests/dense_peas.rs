//! The countertrace compiler against the automata Hanfor's documentation draws for
//! every pattern in every scope (tests/data/hanfor-peas.txt, extracted from its SVG
//! pictures by scripts/hanfor/pea_oracle.py; the formulas are the Boolean variables P,
//! Q, R, S, T, U and the durations 5 and 10 time units, as in the pictures).
//!
//! For each automaton: the same locations (by their phase sets), the same initial
//! ones, the same state and clock invariants, the same transitions with the same clock
//! resets, and the same guards, compared as Boolean functions where the target
//! location's invariant holds (the pictures show guards simplified under it).

use logic::{Sort, Term};
use reqs::timed::dense::bdd::{Atom, Bdd, Ref, FALSE, TRUE};
use reqs::timed::dense::catalog::countertraces;
use reqs::timed::dense::pea::{compile, Pea};
use reqs::timed::dense::{DenseScope, Kind};
use std::collections::{BTreeMap, BTreeSet};

struct Entry {
    pattern: String,
    scope: String,
    index: usize,
    /// name -> (state invariant, clock invariant, initial)
    locs: BTreeMap<String, (String, String, bool)>,
    /// (source, target, guard, resets); the same pair may have several transitions.
    edges: Vec<(String, String, String, String)>,
}

fn entries() -> Vec<Entry> {
    let text = include_str!("data/hanfor-peas.txt");
    let mut out: Vec<Entry> = Vec::new();
    for line in text.lines() {
        if let Some(h) = line.strip_prefix("== ") {
            let w: Vec<&str> = h.split_whitespace().collect();
            out.push(Entry {
                pattern: w[0].into(),
                scope: w[1].into(),
                index: w[2].parse().unwrap(),
                locs: BTreeMap::new(),
                edges: Vec::new(),
            });
        } else if let Some(l) = line.strip_prefix("loc ") {
            let parts: Vec<&str> = l.split(" | ").collect();
            let init = parts[2].ends_with(" init");
            let clk = parts[2].trim_end_matches(" init").to_string();
            out.last_mut()
                .unwrap()
                .locs
                .insert(parts[0].into(), (parts[1].into(), clk, init));
        } else if let Some(l) = line.strip_prefix("edge ") {
            let parts: Vec<&str> = l.split(" | ").collect();
            let (a, b) = parts[0].split_once(" -> ").unwrap();
            out.last_mut().unwrap().edges.push((
                a.into(),
                b.into(),
                parts[1].into(),
                parts.get(2).unwrap_or(&"").trim().into(),
            ));
        }
    }
    out
}

/// Reads the pictures' formulas (`(R && !S')`, `c0 < 5`) into diagrams of `bdd`.
struct Reader<'a> {
    toks: Vec<String>,
    i: usize,
    bdd: &'a mut Bdd,
    /// clock name (c0, c1) -> phase
    clocks: &'a [usize],
    aut: usize,
}

fn lex(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let cs: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '(' || c == ')' || c == '!' || c == '\'' {
            out.push(c.to_string());
            i += 1;
        } else if c == '&' || c == '|' {
            out.push(format!("{c}{c}"));
            i += 2;
        } else if c == '<' || c == '>' || c == '=' {
            let mut t = c.to_string();
            if cs.get(i + 1) == Some(&'=') {
                t.push('=');
                i += 1;
            }
            out.push(t);
            i += 1;
        } else {
            let mut t = String::new();
            while i < cs.len() && (cs[i].is_alphanumeric() || cs[i] == '_' || cs[i] == '.') {
                t.push(cs[i]);
                i += 1;
            }
            out.push(t);
        }
    }
    out
}

impl Reader<'_> {
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.i).map(String::as_str)
    }
    fn or(&mut self) -> Ref {
        let mut a = self.and();
        while self.peek() == Some("||") {
            self.i += 1;
            let b = self.and();
            a = self.bdd.or(a, b);
        }
        a
    }
    fn and(&mut self) -> Ref {
        let mut a = self.unary();
        while self.peek() == Some("&&") {
            self.i += 1;
            let b = self.unary();
            a = self.bdd.and(a, b);
        }
        a
    }
    fn unary(&mut self) -> Ref {
        if self.peek() == Some("!") {
            self.i += 1;
            let a = self.unary();
            return self.bdd.not(a);
        }
        self.atom()
    }
    fn atom(&mut self) -> Ref {
        let t = self.toks[self.i].clone();
        self.i += 1;
        match t.as_str() {
            "(" => {
                let a = self.or();
                assert_eq!(self.peek(), Some(")"));
                self.i += 1;
                a
            }
            "true" => TRUE,
            "false" => FALSE,
            c if c.starts_with('c') && c[1..].chars().all(|x| x.is_ascii_digit()) => {
                let phase = self.clocks[c[1..].parse::<usize>().unwrap()];
                let op = self.toks[self.i].clone();
                self.i += 2; // the operator and the constant
                let lt = self.bdd.clock_lt(self.aut, phase);
                match op.as_str() {
                    "<" => lt,
                    ">=" => self.bdd.not(lt),
                    other => panic!("clock relation {other} in a guard"),
                }
            }
            v => {
                let x = Term::var(v, Sort::Bool);
                let f = self.bdd.of_term(&x);
                if self.peek() == Some("'") {
                    self.i += 1;
                    self.bdd.prime(f)
                } else {
                    f
                }
            }
        }
    }
}

fn read(bdd: &mut Bdd, clocks: &[usize], aut: usize, s: &str) -> Ref {
    let mut r = Reader {
        toks: lex(s),
        i: 0,
        bdd,
        clocks,
        aut,
    };
    let f = r.or();
    assert_eq!(r.i, r.toks.len(), "unread text in {s}");
    f
}

/// The clock invariant as the pictures write it: `c0 <= 5 && c1 < 10`.
fn clock_text(pea: &Pea) -> Vec<(usize, bool)> {
    let _ = pea;
    Vec::new()
}

fn scope_of(s: &str, p: Ref, q: Ref) -> DenseScope<Ref> {
    match s {
        "Globally" => DenseScope::Globally,
        "Before" => DenseScope::Before(p),
        "After" => DenseScope::After(p),
        "Between" => DenseScope::Between(p, q),
        "AfterUntil" => DenseScope::AfterUntil(p, q),
        other => panic!("scope {other}"),
    }
}

#[test]
fn every_pattern_compiles_to_the_documented_automaton() {
    let mut problems = Vec::new();
    let mut compared = 0;
    for e in entries() {
        let kind = Kind::from_name(&e.pattern).expect("a pattern of the catalog");
        let mut bdd = Bdd::new();
        let v = |b: &mut Bdd, n: &str| b.of_term(&Term::var(n, Sort::Bool));
        let (p, q) = (v(&mut bdd, "P"), v(&mut bdd, "Q"));
        let f: Vec<Ref> = ["R", "S", "T", "U"][..kind.formulas()]
            .iter()
            .map(|n| v(&mut bdd, n))
            .collect();
        let d = [5u64, 10][..kind.durations()].to_vec();
        let cts = countertraces(&mut bdd, kind, &scope_of(&e.scope, p, q), &f, &d);
        let Some(ct) = cts.get(e.index).cloned() else {
            problems.push(format!(
                "{} {} {}: no countertrace {}",
                e.pattern, e.scope, e.index, e.index
            ));
            continue;
        };
        let pea = compile(ct, &mut bdd, 0);
        let _ = clock_text(&pea);
        let what = format!("{} {} {}", e.pattern, e.scope, e.index);
        let clocks: Vec<usize> = pea.clocks().iter().map(|(p, _)| *p).collect();
        let names: BTreeSet<String> = pea.locations.iter().map(|l| l.name()).collect();
        let theirs: BTreeSet<String> = e.locs.keys().cloned().collect();
        if names != theirs {
            problems.push(format!(
                "{what}: locations {names:?}, documented {theirs:?}"
            ));
            continue;
        }
        compared += 1;
        let index: BTreeMap<String, usize> = pea
            .locations
            .iter()
            .enumerate()
            .map(|(i, l)| (l.name(), i))
            .collect();
        for (name, (inv, clk, init)) in &e.locs {
            let l = &pea.locations[index[name]];
            let their_inv = read(&mut bdd, &clocks, 0, inv);
            if their_inv != l.state_inv {
                problems.push(format!(
                    "{what}: state invariant of {name} differs from {inv}"
                ));
            }
            if pea.init.contains(&index[name]) != *init {
                problems.push(format!("{what}: {name} initial: {}", !init));
            }
            let mine: Vec<String> = l
                .clock_inv
                .iter()
                .map(|(p, strict)| {
                    let c = clocks.iter().position(|x| x == p).unwrap();
                    let t = pea.phases[*p].bound.value().unwrap();
                    format!("c{c} {} {t}", if *strict { "<" } else { "<=" })
                })
                .collect();
            let mine = if mine.is_empty() {
                "true".to_string()
            } else {
                mine.join(" && ")
            };
            let theirs = clk.trim_start_matches('(').trim_end_matches(')');
            if mine != theirs {
                problems.push(format!(
                    "{what}: clock invariant of {name}: {mine}, documented {clk}"
                ));
            }
        }
        // Transitions grouped by (source, target, resets), their guards joined.
        let mut mine: BTreeMap<(String, String, String), Ref> = BTreeMap::new();
        for l in &pea.locations {
            for t in &l.transitions {
                let resets: Vec<String> = t
                    .resets
                    .iter()
                    .map(|p| format!("c{}", clocks.iter().position(|x| x == p).unwrap()))
                    .collect();
                let key = (l.name(), pea.locations[t.dest].name(), resets.join(","));
                let g = mine.get(&key).copied().unwrap_or(FALSE);
                let g = bdd.or(g, t.guard);
                mine.insert(key, g);
            }
        }
        let mut theirs: BTreeMap<(String, String, String), Ref> = BTreeMap::new();
        for (a, b, guard, resets) in &e.edges {
            let key = (a.clone(), b.clone(), resets.clone());
            let g = read(&mut bdd, &clocks, 0, guard);
            let old = theirs.get(&key).copied().unwrap_or(FALSE);
            let g = bdd.or(old, g);
            theirs.insert(key, g);
        }
        let keys: BTreeSet<&(String, String, String)> = mine.keys().chain(theirs.keys()).collect();
        for key in keys {
            let dest = &pea.locations[index[&key.1]];
            let dest_inv = bdd.prime(dest.state_inv);
            let a = mine.get(key).copied().unwrap_or(FALSE);
            let b = theirs.get(key).copied().unwrap_or(FALSE);
            let a = bdd.and(a, dest_inv);
            let b = bdd.and(b, dest_inv);
            if a != b {
                problems.push(format!(
                    "{what}: transitions {} -> {} resetting [{}] differ",
                    key.0, key.1, key.2
                ));
            }
        }
        let _ = bdd
            .atoms()
            .iter()
            .filter(|a| matches!(a, Atom::Clock { .. }))
            .count();
    }
    assert!(
        problems.is_empty(),
        "{} problems ({compared} automata compared):\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert_eq!(compared, 165);
}
