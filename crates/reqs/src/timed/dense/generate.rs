//! Synthetic dense-time specs for the scale benchmark: Hanfor patterns over Boolean
//! inputs and outputs, with durations that can be scaled without changing anything
//! else (so the time of an audit can be compared across duration scales).
//!
//! Two shapes ([`Shape`]): every requirement over one fixed set of 42 variables (the
//! size of a small spec, so a larger spec is ever more tangled), or components of eight
//! requirements with variables of their own and two shared mode inputs (about 1.3
//! variables a requirement, the ratio of Ultimate's industrial examples: `deploy.req`
//! has 120 variables for 84 requirements, `PCU_B_sample2.req` 101 for 109).

use crate::generate::Mix;
use std::fmt::Write as _;

/// Boolean inputs and outputs of the shared schema.
const INPUTS: usize = 16;
const OUTPUTS: usize = 24;
/// Requirements, own Boolean inputs and own outputs of one component.
const COMPONENT: usize = 8;
const COMPONENT_INPUTS: usize = 4;
const COMPONENT_OUTPUTS: usize = 4;
/// Mode inputs every component reads.
const MODES: usize = 2;

/// How the requirements of a generated spec share their variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// 16 Boolean inputs, 24 Boolean outputs, a Real and an Int input, whatever the
    /// number of requirements.
    Shared,
    /// Components of eight requirements, each with four Boolean inputs, four Boolean
    /// outputs, a Real and an Int input of its own, and two Boolean mode inputs read
    /// by every component.
    Components,
}

/// The variables one requirement may read and the outputs it may constrain.
struct Pool {
    inputs: Vec<String>,
    outputs: Vec<String>,
    temp: String,
    level: String,
}

impl Pool {
    /// A condition over the inputs (false when every Boolean input is false and the
    /// numbers are at their least).
    fn cond(&self, rng: &mut Mix) -> String {
        let n = self.inputs.len();
        let a = rng.below(n);
        let other = |rng: &mut Mix| &self.inputs[(a + 1 + rng.below(n - 1)) % n];
        match rng.below(8) {
            0..=3 => self.inputs[a].clone(),
            4 => format!("(and {} {})", self.inputs[a], other(rng)),
            5 => format!("(or {} {})", self.inputs[a], other(rng)),
            6 => format!("(> {} {}.5)", self.temp, 20 + 10 * rng.below(17)),
            _ => format!("(>= {} {})", self.level, 10 + 5 * rng.below(17)),
        }
    }
}

/// The TOML text of a dense-time spec with `n` requirements of the [`Shape::Shared`]
/// shape (see [`shaped_text`]).
pub fn spec_text(n: usize, seed: u64, scale: u64) -> String {
    shaped_text(n, seed, scale, Shape::Shared)
}

/// The TOML text of a dense-time spec with `n` requirements, deterministic from
/// `seed`; every duration is `scale` times a number from 1 to 10 ticks (`tick = "1
/// s"`), so that specs of the same `n`, `seed` and `shape` differ only in their
/// durations.
///
/// The schema is the `shape`'s; Reals range over [0, 200] and Ints over [0, 100].
/// Scopes (mostly global; some before, after, after-until and between) and triggers
/// are formulas over the inputs a requirement may read; each requirement's response is
/// over one output (the shared shape: `out<i mod 24>`). The patterns: invariance,
/// response with a delay (on a level and on an edge), invariance for a minimum time,
/// response after a trigger held for a time (with a delay or a minimum time), each
/// demanding the output or (one in three) forbidding it; recurrence and a minimum
/// duration of the output; and an absence that forbids an output under an input.
/// Minimum durations against responses that forbid the output after a time are the
/// dead ends of Ultimate's rtinconsistency_test4. The run with every input false and
/// every output true satisfies every requirement, so the spec is consistent.
pub fn shaped_text(n: usize, seed: u64, scale: u64, shape: Shape) -> String {
    let mut rng = Mix(seed ^ 0x0de5_e000_0000_0001);
    let mut out = String::new();
    let shape_name = match shape {
        Shape::Shared => String::new(),
        Shape::Components => ", components".into(),
    };
    let _ = write!(
        out,
        "[spec]\nname = \"generated dense spec with {n} requirements (seed {seed}, durations x{scale}{shape_name})\"\n\n[time]\ntick = \"1 s\"\nsemantics = \"dense\"\n"
    );
    let pools = pools(n, shape);
    for (k, pool) in pools.iter().enumerate() {
        // The modes are every component's first inputs; declared once.
        let own = if shape == Shape::Components && k > 0 {
            &pool.inputs[MODES..]
        } else {
            &pool.inputs[..]
        };
        declare(&mut out, own, "input");
        declare(&mut out, &pool.outputs, "output");
        let _ = write!(
            out,
            "\n[[variables]]\nname = \"{}\"\nsort = \"Real\"\nmin = 0\nmax = 200\nrole = \"input\"\n\
             \n[[variables]]\nname = \"{}\"\nsort = \"Int\"\nmin = 0\nmax = 100\nrole = \"input\"\n",
            pool.temp, pool.level
        );
    }
    for i in 0..n {
        let pool = match shape {
            Shape::Shared => &pools[0],
            Shape::Components => &pools[i / COMPONENT],
        };
        requirement(&mut out, &mut rng, pool, i, scale);
    }
    out
}

/// The variable pools: one for the shared shape, one per component otherwise.
fn pools(n: usize, shape: Shape) -> Vec<Pool> {
    let names = |prefix: &str, count: usize| -> Vec<String> {
        (0..count).map(|j| format!("{prefix}{j}")).collect()
    };
    match shape {
        Shape::Shared => vec![Pool {
            inputs: names("in", INPUTS),
            outputs: names("out", OUTPUTS),
            temp: "temp".into(),
            level: "level".into(),
        }],
        Shape::Components => (0..n.div_ceil(COMPONENT))
            .map(|k| {
                let mut inputs = names("mode", MODES);
                inputs.extend(names(&format!("c{k}_in"), COMPONENT_INPUTS));
                Pool {
                    inputs,
                    outputs: names(&format!("c{k}_out"), COMPONENT_OUTPUTS),
                    temp: format!("c{k}_temp"),
                    level: format!("c{k}_level"),
                }
            })
            .collect(),
    }
}

/// `[[variables]]` entries for Boolean `names` of one role.
fn declare(out: &mut String, names: &[String], role: &str) {
    for name in names {
        let _ = write!(
            out,
            "\n[[variables]]\nname = \"{name}\"\nsort = \"Bool\"\nrole = \"{role}\"\n"
        );
    }
}

/// The `i`-th requirement, over `pool`.
fn requirement(out: &mut String, rng: &mut Mix, pool: &Pool, i: usize, scale: u64) {
    let dur = |rng: &mut Mix| format!("{} s", scale * (1 + rng.below(10) as u64));
    let out_i = pool.outputs[i % pool.outputs.len()].clone();
    // A triggered response may also forbid the output (the trigger is over the
    // inputs, false when they are).
    let o = if rng.below(3) == 0 {
        format!("(not {out_i})")
    } else {
        out_i.clone()
    };
    let mut keys = String::new();
    match rng.below(10) {
        0..=6 => {}
        7 => {
            let _ = writeln!(keys, "scope_before = \"{}\"", pool.cond(rng));
        }
        8 => {
            let _ = writeln!(keys, "scope_after = \"{}\"", pool.cond(rng));
        }
        _ => {
            let (a, b) = (pool.cond(rng), pool.cond(rng));
            if rng.below(2) == 0 {
                let _ = writeln!(keys, "scope_after = \"{a}\"\nscope_until = \"{b}\"");
            } else {
                let _ = writeln!(keys, "scope_between = \"{a}\"\nscope_and = \"{b}\"");
            }
        }
    }
    let c = pool.cond(rng);
    let pick = rng.below(20);
    let (pattern, rest) = match pick {
        0..=2 => ("Invariance", format!("R = \"{c}\"\nS = \"{o}\"\n")),
        3..=12 => {
            let name = match pick {
                3..=6 => "ResponseDelay",
                7..=8 => "EdgeResponseDelay",
                9..=10 => "InvarianceBoundL2",
                _ => "ResponseBoundL1",
            };
            let c1 = dur(rng);
            (name, format!("R = \"{c}\"\nS = \"{o}\"\nc1 = \"{c1}\"\n"))
        }
        13..=14 => {
            let (c1, c2) = (dur(rng), dur(rng));
            let name = if pick == 13 {
                "ResponseDelayBoundL1"
            } else {
                "ResponseBoundL12"
            };
            let rest = format!("R = \"{c}\"\nS = \"{o}\"\nc1 = \"{c1}\"\nc2 = \"{c2}\"\n");
            (name, rest)
        }
        15..=16 => {
            let name = if pick == 15 {
                "ReccurrenceBoundL"
            } else {
                "DurationBoundL"
            };
            (name, format!("R = \"{out_i}\"\nc1 = \"{}\"\n", dur(rng)))
        }
        17..=18 => ("Universality", format!("R = \"(or {out_i} {c})\"\n")),
        _ => {
            let input = &pool.inputs[rng.below(pool.inputs.len())];
            ("Absence", format!("R = \"(and {input} {out_i})\"\n"))
        }
    };
    let _ = write!(
        out,
        "\n[[requirements]]\nid = \"D-{i}\"\ntext = \"a generated {pattern} requirement\"\n[requirements.timed]\npattern = \"{pattern}\"\n{keys}{rest}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_specs_load_and_differ_only_in_durations() {
        for shape in [Shape::Shared, Shape::Components] {
            let a = shaped_text(60, 3, 1, shape);
            assert_eq!(a, shaped_text(60, 3, 1, shape));
            let b = shaped_text(60, 3, 1000, shape);
            let s = crate::parse_spec(logic::SourceFile::new("d.toml", a.clone())).unwrap();
            assert_eq!(s.requirements.len(), 60);
            assert!(s.requirements.iter().all(|r| r.dense.is_some()));
            let t = crate::parse_spec(logic::SourceFile::new("d.toml", b.clone())).unwrap();
            for (x, y) in s.requirements.iter().zip(&t.requirements) {
                let (p, q) = (x.dense.as_ref().unwrap(), y.dense.as_ref().unwrap());
                assert_eq!(
                    (p.kind, &p.scope, &p.formulas),
                    (q.kind, &q.scope, &q.formulas)
                );
                let scaled: Vec<u64> = p.durations.iter().map(|d| d * 1000).collect();
                assert_eq!(scaled, q.durations);
            }
        }
    }

    #[test]
    fn components_have_about_one_variable_per_requirement() {
        let text = shaped_text(200, 1, 1, Shape::Components);
        let s = crate::parse_spec(logic::SourceFile::new("d.toml", text)).unwrap();
        // 25 components of 4 inputs, 4 outputs, a Real and an Int; 2 modes.
        assert_eq!(s.variables.len(), 25 * 10 + 2);
        let shared = crate::parse_spec(logic::SourceFile::new("d.toml", spec_text(200, 1, 1)));
        assert_eq!(shared.unwrap().variables.len(), 42);
    }
}
