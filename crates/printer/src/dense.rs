//! The report of `vera audit` on a spec read in dense time (`vera.audit-dense.v1`): the
//! peer's checks, each verdict with what it rests on (a run that shows it, a proof for
//! every run, or a search up to a number of intervals), runs as interval tables.

use report::{Findings, Level, Report, Rule, Status};
use reqs::timed::dense::audit::{
    DenseConsistency, DenseEnvironment, DenseRedundancy, DenseReport, DenseTrace, DenseVacuity,
    Reach,
};

/// One finished dense-time audit.
pub type DenseRun = crate::timed::OverTimeRun<DenseReport>;

const RULES: &[Rule] = &[
    Rule {
        id: "VERA-DENSE-INCONSISTENT",
        name: "NoRun",
        short: "No run satisfies these requirements.",
        help: "Decide which requirement is wrong, or restrict one of them.",
        level: Level::Error,
    },
    Rule {
        id: "VERA-DENSE-RT-INCONSISTENT",
        name: "DeadEnd",
        short: "After a run every requirement allows, these requirements have no common next step.",
        help: "Look at the run: the requirements demand contradicting things right after it. Add a requirement that avoids it, or change a duration.",
        level: Level::Error,
    },
    Rule {
        id: "VERA-DENSE-ENV-CONFLICT",
        name: "EnvironmentForcesDeadEnd",
        short: "After a run every requirement allows, the environment can choose the next inputs so that these requirements have no common next step.",
        help: "Look at the run and the requirements: one of them may have to be an assumption on the inputs, or the responses need more time.",
        level: Level::Error,
    },
    Rule {
        id: "VERA-DENSE-VACUOUS",
        name: "NeverApplies",
        short: "No run gets to the point where the requirement applies.",
        help: "Check its trigger against the other requirements.",
        level: Level::Warning,
    },
    Rule {
        id: "VERA-DENSE-REDUNDANT",
        name: "Redundant",
        short: "No run the other requirements allow breaks this requirement: they imply it.",
        help: "Remove it, or check whether one of the requirements it is shown against says more than intended.",
        level: Level::Warning,
    },
    Rule {
        id: "VERA-DENSE-UNDECIDED",
        name: "Undecided",
        short: "A check gave no answer, or was only searched up to a number of intervals.",
        help: "Raise the solver timeout or the search depth (--depth).",
        level: Level::Error,
    },
];

/// A run as rows `[from, to)  x=.. y=..`: the first row lists every variable, the next
/// ones what changed.
pub fn trace_text(out: &mut String, t: &DenseTrace, indent: &str) {
    let mut prev: Option<&reqs::audit::Witness> = None;
    let width = t
        .rows
        .iter()
        .map(|r| r.from.len() + r.to.len() + 4)
        .max()
        .unwrap_or(0);
    for row in &t.rows {
        let shown: Vec<String> = row
            .values
            .iter()
            .filter(|a| prev.is_none_or(|p| !p.contains(a)))
            .map(|a| format!("{}={}", a.variable, a.value))
            .collect();
        let span = format!("[{}, {})", row.from, row.to);
        out.push_str(&format!(
            "{indent}{span:<width$}  {}\n",
            if shown.is_empty() {
                "(no change)".to_string()
            } else {
                shown.join("  ")
            }
        ));
        prev = Some(&row.values);
    }
}

fn reach_basis(r: &Reach) -> String {
    match r {
        Reach::Unreachable { proved: true, .. } => "proved for every run".into(),
        Reach::Unreachable {
            proved: false,
            up_to,
        } => {
            format!("checked up to {up_to} intervals only")
        }
        Reach::Reachable { intervals, .. } => format!("shown by a run of {intervals} intervals"),
        Reach::Unknown { reason, .. } => format!("undecided: {reason}"),
    }
}

/// Conflicts the environment can force: the counts, each conflict with its run, each
/// set not decided with why.
fn environment_lines(o: &mut String, e: &DenseEnvironment) {
    let (checks, trivial) = match e {
        DenseEnvironment::NotChecked { reason } => {
            o.push_str(&format!(
                "conflicts the environment can force: not checked ({reason})\n"
            ));
            return;
        }
        DenseEnvironment::Checked { checks, trivial } => (checks, trivial),
    };
    let (found, open) = (e.conflicts(), e.open());
    let proved = checks.len() - found.len() - open.len();
    o.push_str(&format!(
        "conflicts the environment can force: {} set{}; {proved} proved free, {trivial} trivially free{}\n",
        found.len(),
        if found.len() == 1 { "" } else { "s" },
        if open.is_empty() {
            String::new()
        } else {
            format!(", {} not decided", open.len())
        }
    ));
    for c in found {
        if let Reach::Reachable { trace, intervals } = &c.dead_end {
            o.push_str(&format!(
                "  {}: after this run ({intervals} intervals) every requirement holds, and the environment can choose the next inputs so that these have no common next step:\n",
                c.automata.join(", ")
            ));
            trace_text(o, trace, "    ");
            if !trace.next_inputs.is_empty() {
                o.push_str(&format!(
                    "    then the environment chooses: {}\n",
                    trace.next_inputs.join("  ")
                ));
            }
        }
    }
    for c in open {
        o.push_str(&format!(
            "  {}: {}\n",
            c.automata.join(", "),
            reach_basis(&c.dead_end)
        ));
    }
}

/// The redundancy counts, when any requirement was checked.
fn redundancy_line(o: &mut String, r: &DenseReport) {
    let count = |f: &dyn Fn(&DenseRedundancy) -> bool| {
        r.requirements.iter().filter(|a| f(&a.redundancy)).count()
    };
    let not = count(&|x| matches!(x, DenseRedundancy::NotRedundant { .. }));
    let proved = count(&|x| matches!(x, DenseRedundancy::Redundant { proved: true, .. }));
    let open = count(&DenseRedundancy::undecided);
    if not + proved + open > 0 {
        o.push_str(&format!(
            "redundancy: {proved} redundant (proved), {not} broken by a run the others allow{}\n",
            if open > 0 {
                format!(", {open} not decided")
            } else {
                String::new()
            }
        ));
    }
}

/// What the report says of a requirement's redundancy, when it is a finding.
fn redundancy_text(r: &DenseRedundancy) -> Option<String> {
    let against = |by: &[String]| match by.len() {
        0 => "it holds on every run".to_string(),
        1..=6 => format!("implied by {}", by.join(", ")),
        n => format!("implied by {}, ... ({n} requirements)", by[..5].join(", ")),
    };
    match r {
        DenseRedundancy::Redundant {
            proved: true,
            by,
            minimal,
            ..
        } => Some(format!(
            "redundant: no run the others allow breaks it (proved for every run; {}{})",
            against(by),
            if *minimal || by.is_empty() {
                ""
            } else {
                "; some of them may not be needed"
            }
        )),
        DenseRedundancy::Redundant {
            proved: false,
            up_to,
            ..
        } => Some(format!(
            "redundant for runs of up to {up_to} intervals; not proved for longer ones"
        )),
        DenseRedundancy::Unknown { reason } => Some(format!("redundancy undecided: {reason}")),
        _ => None,
    }
}

impl Report for DenseRun {
    fn schema(&self) -> &'static str {
        "vera.audit-dense.v1"
    }

    fn status(&self) -> Status {
        let r = &self.report;
        let undecided = matches!(r.consistency, DenseConsistency::Unknown { .. })
            || r.requirements.iter().any(|a| {
                matches!(
                    a.vacuity,
                    DenseVacuity::Unknown { .. } | DenseVacuity::Vacuous { proved: false, .. }
                ) || a.redundancy.undecided()
            })
            || r.rt_checks.iter().any(|c| {
                matches!(
                    c.dead_end,
                    Reach::Unknown { .. } | Reach::Unreachable { proved: false, .. }
                )
            })
            || !r.environment.open().is_empty();
        Status::of(undecided, r.has_findings())
    }

    fn human(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        let r = &self.report;
        let mut o = String::new();
        o.push_str(&format!(
            "{}: {} requirements in dense time ({} automata; tick {}, ε {})\n",
            self.file,
            self.spec.requirements.len(),
            r.automata.len(),
            r.tick,
            r.epsilon
        ));
        match &r.consistency {
            DenseConsistency::Consistent { witness } => {
                o.push_str("consistent: a first interval satisfies every requirement:\n");
                trace_text(&mut o, witness, "  ");
            }
            DenseConsistency::Inconsistent { because } if because.is_empty() => {
                o.push_str("inconsistent: no first interval satisfies every requirement\n")
            }
            DenseConsistency::Inconsistent { because } => {
                o.push_str(&format!("inconsistent: {}\n", contradiction(because)))
            }
            DenseConsistency::Unknown { reason } => {
                o.push_str(&format!("consistency undecided: {reason}\n"))
            }
        }
        let dead: Vec<_> = r
            .rt_checks
            .iter()
            .filter(|c| matches!(c.dead_end, Reach::Reachable { .. }))
            .collect();
        let open: Vec<_> = r
            .rt_checks
            .iter()
            .filter(|c| {
                !matches!(
                    c.dead_end,
                    Reach::Reachable { .. } | Reach::Unreachable { proved: true, .. }
                )
            })
            .collect();
        let proved = r.rt_checks.len() - dead.len() - open.len();
        if r.rt_skipped {
            o.push_str("rt-inconsistency: not checked (--no-rt)\n");
        } else {
            o.push_str(&format!(
            "rt-inconsistency: {} set{} with a dead end; {} proved free of dead ends, {} trivially free{}\n",
            dead.len(),
            if dead.len() == 1 { "" } else { "s" },
            proved,
            r.rt_trivial,
            if open.is_empty() {
                String::new()
            } else {
                format!(", {} not decided", open.len())
            }
        ));
        }
        for c in &dead {
            if let Reach::Reachable { trace, intervals } = &c.dead_end {
                o.push_str(&format!(
                    "  {}: after this run ({intervals} intervals) every requirement holds and these have no common next step:\n",
                    c.automata.join(", ")
                ));
                trace_text(&mut o, trace, "    ");
            }
        }
        for c in &open {
            o.push_str(&format!(
                "  {}: {}\n",
                c.automata.join(", "),
                reach_basis(&c.dead_end)
            ));
        }
        environment_lines(&mut o, &r.environment);
        redundancy_line(&mut o, r);
        for a in &r.requirements {
            let mut lines: Vec<String> = Vec::new();
            let vacuity = match &a.vacuity {
                DenseVacuity::Vacuous { proved: true, .. } => Some(
                    "vacuous: no run gets to where it applies (proved for every run)".to_string(),
                ),
                DenseVacuity::Vacuous {
                    proved: false,
                    up_to,
                } => Some(format!(
                    "vacuous for runs of up to {up_to} intervals; not proved for longer ones"
                )),
                DenseVacuity::Unknown { reason } => Some(format!("vacuity undecided: {reason}")),
                _ => None,
            };
            lines.extend(vacuity);
            lines.extend(redundancy_text(&a.redundancy));
            if !lines.is_empty() || self.witnesses {
                o.push_str(&format!("\n{} (line {}): {}\n", a.id, a.line, a.pattern));
                for l in lines {
                    o.push_str(&format!("  {l}\n"));
                }
                if self.witnesses {
                    for ct in &a.countertraces {
                        o.push_str(&format!("  countertrace: {ct}\n"));
                    }
                    if let DenseVacuity::NotVacuous { trace } = &a.vacuity {
                        o.push_str("  applies after this run:\n");
                        trace_text(&mut o, trace, "    ");
                    }
                    if let DenseRedundancy::NotRedundant { trace } = &a.redundancy {
                        o.push_str("  broken in the last interval of this run, which the other requirements allow:\n");
                        trace_text(&mut o, trace, "    ");
                    }
                }
            }
        }
        crate::timed::closing_lines(
            &mut o,
            &r.not_formalized,
            format!(
                "{} checks (the peer's count), {:.1} s\n",
                r.results, self.seconds
            ),
        );
        w.write_all(o.as_bytes())
    }

    fn json(&self) -> serde_json::Result<String> {
        self.over_time_json(self.schema())
    }

    fn findings(&self) -> Option<Findings> {
        let r = &self.report;
        let mut out = Vec::new();
        match &r.consistency {
            DenseConsistency::Inconsistent { because } => out.push(self.finding(
                "VERA-DENSE-INCONSISTENT",
                Level::Error,
                because,
                if because.is_empty() {
                    "no run satisfies the requirements".into()
                } else {
                    contradiction(because)
                },
            )),
            DenseConsistency::Unknown { reason } => out.push(self.finding(
                "VERA-DENSE-UNDECIDED",
                Level::Error,
                &[],
                format!("consistency not decided: {reason}"),
            )),
            DenseConsistency::Consistent { .. } => {}
        }
        for c in &r.rt_checks {
            match &c.dead_end {
                Reach::Reachable { intervals, .. } => out.push(self.finding(
                    "VERA-DENSE-RT-INCONSISTENT",
                    Level::Error,
                    &c.requirements,
                    format!(
                        "after a run of {intervals} intervals that every requirement allows, {} have no common next step",
                        c.automata.join(", ")
                    ),
                )),
                Reach::Unreachable { proved: true, .. } => {}
                other => out.push(self.finding(
                    "VERA-DENSE-UNDECIDED",
                    Level::Error,
                    &c.requirements,
                    format!("dead ends of {}: {}", c.automata.join(", "), reach_basis(other)),
                )),
            }
        }
        for c in r.environment.conflicts() {
            if let Reach::Reachable { intervals, .. } = &c.dead_end {
                out.push(self.finding(
                    "VERA-DENSE-ENV-CONFLICT",
                    Level::Error,
                    &c.requirements,
                    format!(
                        "after a run of {intervals} intervals that every requirement allows, the environment can choose the next inputs so that {} have no common next step",
                        c.requirements.join(", ")
                    ),
                ));
            }
        }
        for c in r.environment.open() {
            out.push(self.finding(
                "VERA-DENSE-UNDECIDED",
                Level::Error,
                &c.requirements,
                format!(
                    "dead ends the environment can force on {}: {}",
                    c.requirements.join(", "),
                    reach_basis(&c.dead_end)
                ),
            ));
        }
        for a in &r.requirements {
            let me = std::slice::from_ref(&a.id);
            match &a.vacuity {
                DenseVacuity::Vacuous { proved: true, .. } => out.push(self.finding(
                    "VERA-DENSE-VACUOUS",
                    Level::Warning,
                    me,
                    format!("{} never applies (proved for every run)", a.id),
                )),
                DenseVacuity::Vacuous {
                    proved: false,
                    up_to,
                } => out.push(self.finding(
                    "VERA-DENSE-UNDECIDED",
                    Level::Error,
                    me,
                    format!(
                        "{} applies on no run of up to {up_to} intervals; longer runs not decided",
                        a.id
                    ),
                )),
                DenseVacuity::Unknown { reason } => out.push(self.finding(
                    "VERA-DENSE-UNDECIDED",
                    Level::Error,
                    me,
                    format!("vacuity of {} not decided: {reason}", a.id),
                )),
                _ => {}
            }
            let (rule, level) = match &a.redundancy {
                DenseRedundancy::Redundant { proved: true, .. } => {
                    ("VERA-DENSE-REDUNDANT", Level::Warning)
                }
                DenseRedundancy::Redundant { .. } | DenseRedundancy::Unknown { .. } => {
                    ("VERA-DENSE-UNDECIDED", Level::Error)
                }
                _ => continue,
            };
            if let Some(text) = redundancy_text(&a.redundancy) {
                out.push(self.finding(rule, level, me, format!("{}: {text}", a.id)));
            }
        }
        Some(Findings {
            command: "audit".into(),
            rules: RULES.to_vec(),
            findings: out,
            files: vec![self.file.clone()],
        })
    }
}

/// What an inconsistency among the requirements `because` is: one that no state
/// satisfies, or invariants that contradict each other.
fn contradiction(because: &[String]) -> String {
    match because {
        [one] => format!("{one} can never hold: no state satisfies it"),
        _ => format!(
            "the invariants of {} contradict each other",
            because.join(", ")
        ),
    }
}
