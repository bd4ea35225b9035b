//! Synthetic specs with the structure of real ones, for benchmarks: alarm thresholds
//! over ranges, mode guards, interlocks, and some planted redundancy (a margin) and
//! overlap (a shared boundary).

use std::fmt::Write as _;

/// The TOML text of a spec with about `n` requirements.
///
/// Requirements come in groups of five over one sensor: a high and a low alarm, an
/// interlock, a mode guard and a run rule. Every tenth group adds a margin alarm that
/// makes its high alarm redundant; every thirteenth adds two threshold rules that
/// overlap at one boundary value. Ten groups share one mode variable.
pub fn spec_text(n: usize) -> String {
    let mut vars = String::new();
    let mut domain = String::new();
    let mut reqs = String::new();
    let mut count = 0;
    let mut g = 0;
    let var = |out: &mut String,
               name: &str,
               sort: &str,
               unit: Option<&str>,
               bounds: Option<(i64, i64)>| {
        let _ = write!(
            out,
            "\n[[variables]]\nname = \"{name}\"\nsort = \"{sort}\"\n"
        );
        if let Some(u) = unit {
            let _ = writeln!(out, "unit = \"{u}\"");
        }
        if let Some((lo, hi)) = bounds {
            let _ = writeln!(out, "min = {lo}\nmax = {hi}");
        }
    };
    let req = |out: &mut String, count: &mut usize, id: String, text: &str, formula: String| {
        let _ = write!(
            out,
            "\n[[requirements]]\nid = \"{id}\"\ntext = \"{text}\"\nformula = \"{formula}\"\n"
        );
        *count += 1;
    };
    while count < n {
        if g % 10 == 0 {
            var(&mut vars, &format!("mode{}", g / 10), "Mode", None, None);
        }
        let m = format!("mode{}", g / 10);
        let (s, lo, hi, a, act) = (
            format!("s{g}"),
            format!("lo{g}"),
            format!("hi{g}"),
            format!("a{g}"),
            format!("act{g}"),
        );
        var(&mut vars, &s, "Real", Some("kPa"), Some((0, 1000)));
        var(&mut vars, &lo, "Real", Some("kPa"), Some((0, 1000)));
        var(&mut vars, &hi, "Real", Some("kPa"), Some((0, 1000)));
        var(&mut vars, &a, "Bool", None, None);
        var(&mut vars, &act, "Bool", None, None);
        let _ = write!(domain, "\n[[domain]]\nid = \"D{g}\"\ntext = \"limits are ordered\"\nformula = \"(< {lo} {hi})\"\n");
        req(
            &mut reqs,
            &mut count,
            format!("G{g}-HIGH"),
            "high alarm",
            format!("(=> (> {s} {hi}) {a})"),
        );
        req(
            &mut reqs,
            &mut count,
            format!("G{g}-LOW"),
            "low alarm",
            format!("(=> (< {s} {lo}) {a})"),
        );
        req(
            &mut reqs,
            &mut count,
            format!("G{g}-LOCK"),
            "alarm interlock",
            format!("(=> {a} (not {act}))"),
        );
        req(
            &mut reqs,
            &mut count,
            format!("G{g}-SERVICE"),
            "no actuation in service",
            format!("(=> (= {m} Service) (not {act}))"),
        );
        req(
            &mut reqs,
            &mut count,
            format!("G{g}-RUN"),
            "actuate when running",
            format!("(=> (and (= {m} Run) (not {a}) (> {s} 10)) {act})"),
        );
        if g % 10 == 3 {
            req(
                &mut reqs,
                &mut count,
                format!("G{g}-MARGIN"),
                "early alarm",
                format!("(=> (> {s} (- {hi} 5)) {a})"),
            );
        }
        if g % 13 == 5 {
            let th = format!("th{g}");
            var(&mut vars, &th, "Real", Some("kPa"), None);
            req(
                &mut reqs,
                &mut count,
                format!("G{g}-TH1"),
                "low band threshold",
                format!("(=> (<= {s} 200) (= {th} 1))"),
            );
            req(
                &mut reqs,
                &mut count,
                format!("G{g}-TH2"),
                "high band threshold",
                format!("(=> (>= {s} 200) (= {th} 2))"),
            );
        }
        g += 1;
    }
    format!(
        "[spec]\nname = \"generated spec with {count} requirements\"\n\n[[enums]]\nname = \"Mode\"\nvalues = [\"Off\", \"Run\", \"Service\"]\n{vars}{domain}{reqs}"
    )
}

/// A small deterministic generator (splitmix64), so that specs are reproducible
/// without a dependency. The state is the seed to start from.
pub(crate) struct Mix(pub(crate) u64);

impl Mix {
    /// The next number.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The phases of the generated device, in the order of [`connected_spec_text`]'s enum.
pub const PHASES: [&str; 4] = ["Standby", "Prime", "Treat", "Rinse"];

/// The TOML text of a spec with `n` requirements that form one connected component,
/// as real requirement sets do: almost every requirement is guarded by the same phase
/// variable, sensors are shared between alarms and interlocks, and actuators are
/// linked by interlocks. With roles: the phase and the sensors are inputs, the
/// actuators outputs.
///
/// The schema: a 4-valued `phase`, `n/4` pressure sensors in `[0, 1000]`, and `n/6`
/// Boolean actuators in three kinds (alarms, motors, valves). In every 20 requirements:
/// 9 phase-guarded threshold alarms (`phase = P and p_j > c => alarm_k`), 2 weaker
/// duplicates of earlier alarms (a higher threshold: redundant), 4 sensor interlocks
/// (two pressures above their limits close a valve), 3 phase invariants (a motor on or
/// off in a phase, a valve closed in a phase) and 2 actuator interlocks (a valve closed
/// while a motor runs or an alarm sounds). Every 97th alarm has a threshold above the
/// sensor's range (vacuous under the domain). The spec is consistent and realizable:
/// alarms on, valves closed and motors as their phase says serve every input.
pub fn connected_spec_text(n: usize) -> String {
    let n = n.max(1);
    let mut g = Connected::new(n);
    let mut out = g.schema();
    for i in 0..n {
        let (id, text, formula) = match i % 20 {
            0..=8 => g.alarm(i),
            9 | 10 if !g.earlier.is_empty() => g.duplicate(i),
            9..=14 => g.sensor_lock(i),
            15..=17 => g.phase_invariant(i),
            _ => g.actuator_lock(i),
        };
        let _ = write!(
            out,
            "\n[[requirements]]\nid = \"{id}\"\ntext = \"{text}\"\nformula = \"{formula}\"\n"
        );
    }
    out
}

/// A generated requirement: its id, text and formula.
type Generated = (String, String, String);

/// The state of [`connected_spec_text`] while it writes the requirements.
struct Connected {
    n: usize,
    sensors: usize,
    actuators: usize,
    alarms: Vec<usize>,
    motors: Vec<usize>,
    valves: Vec<usize>,
    rng: Mix,
    /// Earlier alarms, for the weaker duplicates: (phase, sensor, threshold, alarm).
    earlier: Vec<(usize, usize, i64, usize)>,
    /// How many requirements of each kind are written: alarms, sensor interlocks,
    /// phase invariants and actuator interlocks.
    next_alarm: usize,
    next_lock: usize,
    next_inv: usize,
    next_act: usize,
}

/// The name of actuator `k`: an alarm, a motor or a valve by `k` mod 3.
fn act_name(k: usize) -> String {
    match k % 3 {
        0 => format!("alarm{k}"),
        1 => format!("motor{k}"),
        _ => format!("valve{k}"),
    }
}

/// Whether motor `m` runs in phase `p`: each motor runs in the phases of a fixed
/// pattern (never none, never all).
fn runs(m: usize, p: usize) -> bool {
    let pattern = 1 + (m / 3) % 14;
    pattern & (1 << p) != 0
}

/// The alarm requirement `{prefix}-{i}`: in phase `p`, sensor `j` above `c` raises
/// alarm `a`.
fn alarm_requirement(
    prefix: &str,
    i: usize,
    (p, j, c, a): (usize, usize, i64, usize),
) -> Generated {
    (
        format!("{prefix}-{i}"),
        format!(
            "In phase {}, a pressure p{j} above {c} kPa shall raise {}.",
            PHASES[p],
            act_name(a)
        ),
        format!(
            "(=> (and (= phase {}) (> p{j} {c})) {})",
            PHASES[p],
            act_name(a)
        ),
    )
}

impl Connected {
    /// The generator for `n` requirements (`n > 0`).
    fn new(n: usize) -> Connected {
        let actuators = (n / 6).max(6);
        Connected {
            n,
            sensors: (n / 4).max(2),
            actuators,
            alarms: (0..actuators).filter(|k| k % 3 == 0).collect(),
            motors: (0..actuators).filter(|k| k % 3 == 1).collect(),
            valves: (0..actuators).filter(|k| k % 3 == 2).collect(),
            rng: Mix(0x5eed ^ n as u64),
            earlier: Vec::new(),
            next_alarm: 0,
            next_lock: 0,
            next_inv: 0,
            next_act: 0,
        }
    }

    /// The spec's header, enum and variables.
    fn schema(&self) -> String {
        let n = self.n;
        let mut out = String::new();
        let _ = write!(
            out,
            "[spec]\nname = \"generated one-component spec with {n} requirements\"\n\n[[enums]]\nname = \"Phase\"\nvalues = [{}]\n\n[[variables]]\nname = \"phase\"\nsort = \"Phase\"\nrole = \"input\"\n",
            PHASES
                .iter()
                .map(|p| format!("\"{p}\""))
                .collect::<Vec<_>>()
                .join(", ")
        );
        for j in 0..self.sensors {
            let _ = write!(
                out,
                "\n[[variables]]\nname = \"p{j}\"\nsort = \"Real\"\nunit = \"kPa\"\nmin = 0\nmax = 1000\nrole = \"input\"\n"
            );
        }
        for k in 0..self.actuators {
            let _ = write!(
                out,
                "\n[[variables]]\nname = \"{}\"\nsort = \"Bool\"\nrole = \"output\"\n",
                act_name(k)
            );
        }
        out
    }

    /// Requirement `i`, a phase-guarded threshold alarm (every 97th one vacuous).
    fn alarm(&mut self, i: usize) -> Generated {
        let t = self.next_alarm;
        self.next_alarm += 1;
        let p = self.rng.below(4);
        let j = t % self.sensors;
        let c = if t % 97 == 50 {
            1200
        } else {
            100 + 10 * self.rng.below(80) as i64
        };
        let a = self.alarms[self.rng.below(self.alarms.len())];
        self.earlier.push((p, j, c, a));
        alarm_requirement("ALM", i, (p, j, c, a))
    }

    /// Requirement `i`, a weaker duplicate of an earlier alarm (`earlier` not empty).
    fn duplicate(&mut self, i: usize) -> Generated {
        let (p, j, c, a) = self.earlier.swap_remove(self.rng.below(self.earlier.len()));
        alarm_requirement("DUP", i, (p, j, c + 20, a))
    }

    /// Requirement `i`, a sensor interlock: two pressures above their limits close a
    /// valve.
    fn sensor_lock(&mut self, i: usize) -> Generated {
        let sensors = self.sensors;
        let t = self.next_lock;
        self.next_lock += 1;
        let j = t % sensors;
        let k = (j + 1 + self.rng.below(sensors - 1)) % sensors;
        let (c, d) = (
            300 + 10 * self.rng.below(60) as i64,
            300 + 10 * self.rng.below(60) as i64,
        );
        let v = self.valves[t % self.valves.len()];
        (
            format!("LOCK-{i}"),
            format!(
                "While p{j} is above {c} kPa and p{k} above {d} kPa, {} shall be closed.",
                act_name(v)
            ),
            format!("(=> (and (> p{j} {c}) (> p{k} {d})) (not {}))", act_name(v)),
        )
    }

    /// Requirement `i`, a phase invariant: a valve closed in a phase, or a motor on or
    /// off in a phase.
    fn phase_invariant(&mut self, i: usize) -> Generated {
        let t = self.next_inv;
        self.next_inv += 1;
        let p = t % 4;
        let slot = t / 4;
        if slot % 3 == 2 {
            // Each valve is closed in two phases.
            let v = self.valves[(slot / 3 * 2 + p / 2) % self.valves.len()];
            return (
                format!("INV-{i}"),
                format!("In phase {}, {} shall be closed.", PHASES[p], act_name(v)),
                format!("(=> (= phase {}) (not {}))", PHASES[p], act_name(v)),
            );
        }
        let m = self.motors[(slot - slot / 3) % self.motors.len()];
        let on = runs(m, p);
        (
            format!("INV-{i}"),
            format!(
                "In phase {}, {} shall {}.",
                PHASES[p],
                act_name(m),
                if on { "run" } else { "be stopped" }
            ),
            if on {
                format!("(=> (= phase {}) {})", PHASES[p], act_name(m))
            } else {
                format!("(=> (= phase {}) (not {}))", PHASES[p], act_name(m))
            },
        )
    }

    /// Requirement `i`, an actuator interlock: a valve closed while a motor runs or an
    /// alarm sounds.
    fn actuator_lock(&mut self, i: usize) -> Generated {
        let actuators = self.actuators;
        let t = self.next_act;
        self.next_act += 1;
        // Interlocks stay within a group of six actuators: the alarm or the
        // motor of each half shuts that half's valve.
        let groups = actuators.div_ceil(6);
        let g = (t % groups) * 6;
        let (other, v) = match (t / groups) % 4 {
            0 => (g, g + 2),
            1 => (g + 1, g + 2),
            2 => (g + 3, g + 5),
            _ => (g + 4, g + 5),
        };
        let (other, v) = if v < actuators {
            (other, v)
        } else {
            (
                self.alarms[t % self.alarms.len()],
                self.valves[t % self.valves.len()],
            )
        };
        (
            format!("ACT-{i}"),
            format!(
                "While {} is on, {} shall be closed.",
                act_name(other),
                act_name(v)
            ),
            format!("(=> {} (not {}))", act_name(other), act_name(v)),
        )
    }
}

/// Boolean inputs and outputs of [`timed_spec`]'s schema.
const TIMED_INPUTS: usize = 16;
const TIMED_OUTPUTS: usize = 24;

/// The TOML text of a timed spec (docs/timed.md) with `n` timed requirements,
/// deterministic from `seed`, for benchmarks of the unrolling and the audits on traces.
///
/// The schema: `tick = "1 s"`, 16 Boolean inputs `in0 ..`, 24 Boolean outputs `out0 ..`,
/// three bounded numeric inputs (`temp` and `pressure` Real, `level` Int) and two
/// bounded numeric outputs (`speed` Int in `[0, 10]`, `rate` Real in `[0, 50]`).
/// Scopes, triggers and `until`/`before` conditions are state formulas over the inputs;
/// each requirement's response is over one output (`out<i mod 24>`), sometimes with an
/// upper bound on `speed` or `rate`. The pattern kinds are mixed: global, `while` and
/// `after` (sometimes with `until`) scopes; `if`, `when`, `held_for`, `within_last`,
/// `initially` and no trigger; immediate, `next`, `within`, `for`, `not_before`,
/// `until` and `before` timings; durations of 1 to 10 s (each requirement needs at
/// most 22 steps).
///
/// The spec is consistent whatever the inputs do: every response is "the output on
/// (and the bound met)", or for `not_before` its negation, so that the trace with every
/// output on and `speed`, `rate` at 0 satisfies every requirement at every step (and
/// loops).
pub fn timed_spec(n: usize, seed: u64) -> String {
    let mut rng = Mix(seed ^ 0x7173_ed00_0000_0001);
    let mut out = timed_variables(n, seed);
    for i in 0..n {
        let o = i % TIMED_OUTPUTS;
        let response = match rng.below(5) {
            0 => format!("(and out{o} (<= speed {}))", rng.below(10)),
            1 => format!("(and out{o} (<= rate {}.5))", rng.below(50)),
            _ => format!("out{o}"),
        };
        let mut keys = String::new();
        let mut words = Vec::new();
        random_scope(&mut rng, &mut keys, &mut words);
        random_trigger(&mut rng, &mut keys, &mut words);
        let then = random_timing(&mut rng, response, &mut keys, &mut words);
        let _ = write!(
            out,
            "\n[[requirements]]\nid = \"T-{i}\"\ntext = \"{}.\"\n[requirements.timed]\n{keys}then = \"{then}\"\n",
            words.join(", ")
        );
    }
    out
}

/// The `[spec]` and `[time]` tables and the variables of [`timed_spec`].
fn timed_variables(n: usize, seed: u64) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "[spec]\nname = \"generated timed spec with {n} requirements (seed {seed})\"\n\n[time]\ntick = \"1 s\"\n"
    );
    for j in 0..TIMED_INPUTS {
        let _ = write!(
            out,
            "\n[[variables]]\nname = \"in{j}\"\nsort = \"Bool\"\nrole = \"input\"\n"
        );
    }
    for j in 0..TIMED_OUTPUTS {
        let _ = write!(
            out,
            "\n[[variables]]\nname = \"out{j}\"\nsort = \"Bool\"\nrole = \"output\"\n"
        );
    }
    for (name, sort, unit, max, role) in [
        ("temp", "Real", "degC", 200, "input"),
        ("pressure", "Real", "kPa", 1000, "input"),
        ("level", "Int", "mm", 100, "input"),
        ("speed", "Int", "rpm", 10, "output"),
        ("rate", "Real", "mL/h", 50, "output"),
    ] {
        let _ = write!(
            out,
            "\n[[variables]]\nname = \"{name}\"\nsort = \"{sort}\"\nunit = \"{unit}\"\nmin = 0\nmax = {max}\nrole = \"{role}\"\n"
        );
    }
    out
}

/// A random state formula over the inputs of [`timed_spec`].
fn timed_cond(rng: &mut Mix) -> String {
    let a = rng.below(TIMED_INPUTS);
    match rng.below(8) {
        0..=2 => format!("in{a}"),
        3 => format!("(not in{a})"),
        4 => {
            let b = (a + 1 + rng.below(TIMED_INPUTS - 1)) % TIMED_INPUTS;
            format!("(and in{a} in{b})")
        }
        5 => format!("(> temp {}.5)", 20 + 10 * rng.below(17)),
        6 => format!("(< pressure {})", 100 + 50 * rng.below(17)),
        _ => format!("(>= level {})", 10 + 5 * rng.below(17)),
    }
}

/// A random duration of [`timed_spec`], in seconds.
fn timed_secs(rng: &mut Mix) -> usize {
    1 + rng.below(10)
}

/// Adds a random scope (globally most often) to a timed requirement's `keys` and
/// `words`.
fn random_scope(rng: &mut Mix, keys: &mut String, words: &mut Vec<String>) {
    match rng.below(20) {
        0..=9 => {}
        10..=14 => {
            let c = timed_cond(rng);
            words.push(format!("while {c}"));
            let _ = writeln!(keys, "scope_while = \"{c}\"");
        }
        15..=18 => {
            let c = timed_cond(rng);
            words.push(format!("after {c}"));
            let _ = writeln!(keys, "scope_after = \"{c}\"");
        }
        _ => {
            let (a, b) = (timed_cond(rng), timed_cond(rng));
            words.push(format!("after {a} until {b}"));
            let _ = writeln!(keys, "scope_after = \"{a}\"\nscope_until = \"{b}\"");
        }
    }
}

/// Adds a random trigger to a timed requirement's `keys` and `words`.
fn random_trigger(rng: &mut Mix, keys: &mut String, words: &mut Vec<String>) {
    match rng.below(20) {
        0..=1 => words.push("always".into()),
        2 => {
            words.push("initially".into());
            keys.push_str("initially = true\n");
        }
        3..=8 => {
            let c = timed_cond(rng);
            words.push(format!("if {c}"));
            let _ = writeln!(keys, "if = \"{c}\"");
        }
        9..=12 => {
            let c = timed_cond(rng);
            words.push(format!("when {c} becomes true"));
            let _ = writeln!(keys, "when = \"{c}\"");
        }
        13..=16 => {
            let (c, d) = (timed_cond(rng), timed_secs(rng));
            words.push(format!("if {c} has held for {d} s"));
            let _ = writeln!(keys, "if = \"{c}\"\nheld_for = \"{d} s\"");
        }
        _ => {
            let (c, d) = (timed_cond(rng), timed_secs(rng));
            words.push(format!("if {c} held within the last {d} s"));
            let _ = writeln!(keys, "if = \"{c}\"\nwithin_last = \"{d} s\"");
        }
    }
}

/// Adds a random timing of `response` to a timed requirement's `keys` and `words`;
/// the formula its `then` holds.
fn random_timing(
    rng: &mut Mix,
    response: String,
    keys: &mut String,
    words: &mut Vec<String>,
) -> String {
    match rng.below(20) {
        0..=3 => {
            words.push(format!("{response} shall hold"));
            response
        }
        4..=5 => {
            words.push(format!("{response} shall hold at the next step"));
            keys.push_str("next = true\n");
            response
        }
        6..=9 => {
            let d = timed_secs(rng);
            words.push(format!("{response} shall hold within {d} s"));
            let _ = writeln!(keys, "within = \"{d} s\"");
            response
        }
        10..=12 => {
            let d = timed_secs(rng);
            words.push(format!("{response} shall hold for {d} s"));
            let _ = writeln!(keys, "for = \"{d} s\"");
            response
        }
        13..=14 => {
            // "The negation does not hold for d s": the response is kept.
            let d = timed_secs(rng);
            words.push(format!("{response} shall not be dropped before {d} s"));
            let _ = writeln!(keys, "not_before = \"{d} s\"");
            format!("(not {response})")
        }
        15..=18 => {
            let c = timed_cond(rng);
            words.push(format!("{response} shall hold until {c}"));
            let _ = writeln!(keys, "until = \"{c}\"");
            response
        }
        _ => {
            let c = timed_cond(rng);
            words.push(format!("{response} shall hold before {c}"));
            let _ = writeln!(keys, "before = \"{c}\"");
            response
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: String) -> crate::Spec {
        crate::parse_spec(logic::SourceFile::new("timed.toml", text))
            .unwrap_or_else(|d| panic!("{d}"))
    }

    #[test]
    fn timed_spec_loads_with_every_requirement_timed() {
        let text = timed_spec(200, 7);
        assert_eq!(text, timed_spec(200, 7), "deterministic from the seed");
        assert_ne!(text, timed_spec(200, 8));
        let s = load(text);
        assert!(s.time.is_some());
        assert_eq!(s.requirements.len(), 200);
        assert!(s.requirements.iter().all(|r| r.timed.is_some()));
        let bools = s
            .variables
            .iter()
            .filter(|v| v.sort == logic::Sort::Bool)
            .count();
        assert_eq!(bools, TIMED_INPUTS + TIMED_OUTPUTS);
        // Every kind of scope, trigger and timing occurs.
        use crate::timed::{Scope, Timing, Trigger};
        let ps: Vec<_> = s
            .requirements
            .iter()
            .filter_map(|r| r.timed.as_ref())
            .collect();
        for scope in [
            |s: &Scope| matches!(s, Scope::Globally),
            |s: &Scope| matches!(s, Scope::While(_)),
            |s: &Scope| matches!(s, Scope::After(_)),
            |s: &Scope| matches!(s, Scope::AfterUntil(..)),
        ] {
            assert!(ps.iter().any(|p| scope(&p.scope)));
        }
        for trigger in [
            |t: &Trigger| matches!(t, Trigger::Always),
            |t: &Trigger| matches!(t, Trigger::Initially),
            |t: &Trigger| matches!(t, Trigger::Level(_)),
            |t: &Trigger| matches!(t, Trigger::Edge(_)),
            |t: &Trigger| matches!(t, Trigger::HeldFor(..)),
            |t: &Trigger| matches!(t, Trigger::WithinLast(..)),
        ] {
            assert!(ps.iter().any(|p| trigger(&p.trigger)));
        }
        for timing in [
            |t: &Timing| matches!(t, Timing::Immediately),
            |t: &Timing| matches!(t, Timing::Next),
            |t: &Timing| matches!(t, Timing::Within(_)),
            |t: &Timing| matches!(t, Timing::For(_)),
            |t: &Timing| matches!(t, Timing::NotBefore(_)),
            |t: &Timing| matches!(t, Timing::Until(_)),
            |t: &Timing| matches!(t, Timing::Before(_)),
        ] {
            assert!(ps.iter().any(|p| timing(&p.timing)));
        }
        assert!(ps.iter().all(|p| p.longest() <= 20));
    }

    /// The consistency argument of [`timed_spec`], checked by the trace evaluator: with
    /// every output on and `speed`, `rate` at 0, no requirement is violated at any step,
    /// whatever the inputs do.
    #[test]
    fn timed_spec_outputs_on_satisfy_everything() {
        use logic::{Model, Value};
        use num_rational::BigRational;
        let s = load(timed_spec(200, 3));
        let mut rng = Mix(11);
        let trace: Vec<Model> = (0..60)
            .map(|_| {
                let mut m = Model::new();
                for v in &s.variables {
                    let real = |x: usize| Value::Real(BigRational::from_integer(x.into()));
                    let val = match &*v.name {
                        o if o.starts_with("out") => Value::Bool(true),
                        i if i.starts_with("in") => Value::Bool(rng.below(3) == 0),
                        "speed" => Value::Int(0.into()),
                        "rate" => real(0),
                        "level" => Value::Int(rng.below(101).into()),
                        "temp" => real(rng.below(201)),
                        _ => real(rng.below(1001)),
                    };
                    m.insert(v.name.clone(), val);
                }
                m
            })
            .collect();
        for r in &s.requirements {
            let p = r.timed.as_ref().expect("timed");
            let v = crate::timed::trace::violations(p, &trace, &s.context).unwrap();
            assert!(v.is_empty(), "{} violated at {v:?}", r.id);
        }
    }
}
