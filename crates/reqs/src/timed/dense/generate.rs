//! Synthetic dense-time specs for the scale benchmark: Hanfor patterns over Boolean
//! inputs and outputs, with durations that can be scaled without changing anything
//! else (so the time of an audit can be compared across duration scales).

use std::fmt::Write as _;

/// Boolean inputs and outputs of the generated schema.
const INPUTS: usize = 16;
const OUTPUTS: usize = 24;

struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The TOML text of a dense-time spec with `n` requirements, deterministic from
/// `seed`; every duration is `scale` times a number from 1 to 10 ticks (`tick = "1
/// s"`), so that specs of the same `n` and `seed` differ only in their durations.
///
/// The schema: 16 Boolean inputs `in0 ..`, 24 Boolean outputs `out0 ..`, a Real input
/// `temp` in [0, 200] and an Int input `level` in [0, 100]. Scopes (mostly global; some
/// before, after, after-until and between) and triggers are formulas over the inputs;
/// each requirement's response is over one output (`out<i mod 24>`). The patterns:
/// invariance, response with a delay (on a level and on an edge), invariance for a
/// minimum time, response after a trigger held for a time (with a delay or a minimum
/// time), each demanding the output or (one in three) forbidding it; recurrence and a
/// minimum duration of the output; and an absence that forbids an output under an
/// input. Minimum durations against responses that forbid the output after a time are
/// the dead ends of Ultimate's rtinconsistency_test4. The run with every input false
/// and every output true satisfies every requirement, so the spec is consistent.
pub fn spec_text(n: usize, seed: u64, scale: u64) -> String {
    let mut rng = Mix(seed ^ 0x0de5_e000_0000_0001);
    let mut out = String::new();
    let _ = write!(
        out,
        "[spec]\nname = \"generated dense spec with {n} requirements (seed {seed}, durations x{scale})\"\n\n[time]\ntick = \"1 s\"\nsemantics = \"dense\"\n"
    );
    for j in 0..INPUTS {
        let _ = write!(
            out,
            "\n[[variables]]\nname = \"in{j}\"\nsort = \"Bool\"\nrole = \"input\"\n"
        );
    }
    for j in 0..OUTPUTS {
        let _ = write!(
            out,
            "\n[[variables]]\nname = \"out{j}\"\nsort = \"Bool\"\nrole = \"output\"\n"
        );
    }
    let _ = write!(
        out,
        "\n[[variables]]\nname = \"temp\"\nsort = \"Real\"\nmin = 0\nmax = 200\nrole = \"input\"\n\
         \n[[variables]]\nname = \"level\"\nsort = \"Int\"\nmin = 0\nmax = 100\nrole = \"input\"\n"
    );
    // A condition over the inputs (true when every input is false only if negated).
    let cond = |rng: &mut Mix| -> String {
        let a = rng.below(INPUTS);
        match rng.below(8) {
            0..=3 => format!("in{a}"),
            4 => {
                let b = (a + 1 + rng.below(INPUTS - 1)) % INPUTS;
                format!("(and in{a} in{b})")
            }
            5 => {
                let b = (a + 1 + rng.below(INPUTS - 1)) % INPUTS;
                format!("(or in{a} in{b})")
            }
            6 => format!("(> temp {}.5)", 20 + 10 * rng.below(17)),
            _ => format!("(>= level {})", 10 + 5 * rng.below(17)),
        }
    };
    let dur = |rng: &mut Mix| format!("{} s", scale * (1 + rng.below(10) as u64));
    for i in 0..n {
        let out_i = format!("out{}", i % OUTPUTS);
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
                let _ = writeln!(keys, "scope_before = \"{}\"", cond(&mut rng));
            }
            8 => {
                let _ = writeln!(keys, "scope_after = \"{}\"", cond(&mut rng));
            }
            _ => {
                let (a, b) = (cond(&mut rng), cond(&mut rng));
                if rng.below(2) == 0 {
                    let _ = writeln!(keys, "scope_after = \"{a}\"\nscope_until = \"{b}\"");
                } else {
                    let _ = writeln!(keys, "scope_between = \"{a}\"\nscope_and = \"{b}\"");
                }
            }
        }
        let c = cond(&mut rng);
        let (pattern, rest) = match rng.below(20) {
            0..=2 => ("Invariance", format!("R = \"{c}\"\nS = \"{o}\"\n")),
            3..=6 => (
                "ResponseDelay",
                format!("R = \"{c}\"\nS = \"{o}\"\nc1 = \"{}\"\n", dur(&mut rng)),
            ),
            7..=8 => (
                "EdgeResponseDelay",
                format!("R = \"{c}\"\nS = \"{o}\"\nc1 = \"{}\"\n", dur(&mut rng)),
            ),
            9..=10 => (
                "InvarianceBoundL2",
                format!("R = \"{c}\"\nS = \"{o}\"\nc1 = \"{}\"\n", dur(&mut rng)),
            ),
            11..=12 => (
                "ResponseBoundL1",
                format!("R = \"{c}\"\nS = \"{o}\"\nc1 = \"{}\"\n", dur(&mut rng)),
            ),
            13 => (
                "ResponseDelayBoundL1",
                format!(
                    "R = \"{c}\"\nS = \"{o}\"\nc1 = \"{}\"\nc2 = \"{}\"\n",
                    dur(&mut rng),
                    dur(&mut rng)
                ),
            ),
            14 => (
                "ResponseBoundL12",
                format!(
                    "R = \"{c}\"\nS = \"{o}\"\nc1 = \"{}\"\nc2 = \"{}\"\n",
                    dur(&mut rng),
                    dur(&mut rng)
                ),
            ),
            15 => (
                "ReccurrenceBoundL",
                format!("R = \"{out_i}\"\nc1 = \"{}\"\n", dur(&mut rng)),
            ),
            16 => (
                "DurationBoundL",
                format!("R = \"{out_i}\"\nc1 = \"{}\"\n", dur(&mut rng)),
            ),
            17..=18 => ("Universality", format!("R = \"(or {out_i} {c})\"\n")),
            _ => (
                "Absence",
                format!("R = \"(and in{} {out_i})\"\n", rng.below(INPUTS)),
            ),
        };
        let _ = write!(
            out,
            "\n[[requirements]]\nid = \"D-{i}\"\ntext = \"a generated {pattern} requirement\"\n[requirements.timed]\npattern = \"{pattern}\"\n{keys}{rest}"
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_specs_load_and_differ_only_in_durations() {
        let a = spec_text(60, 3, 1);
        assert_eq!(a, spec_text(60, 3, 1));
        let b = spec_text(60, 3, 1000);
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
