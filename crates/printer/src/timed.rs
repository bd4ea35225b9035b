//! The report of `vera audit` on a spec of timed requirements (`vera.audit-timed.v1`):
//! verdicts on traces, each with its bound, and witness traces as interval tables.

use report::{Finding, Findings, Level, Location, Report, Rule, Status};
use reqs::audit::Vacuity;
use reqs::timed::audit::{
    RtInconsistency, TimedConsistency, TimedRedundancy, TimedReport, TimedRequirementAudit,
    TimedViolatability, Timeline,
};
use reqs::Spec;
use serde::Serialize;

/// One finished audit over time; `R` is the report of the reading it used (discrete
/// ticks or dense time).
pub struct OverTimeRun<R> {
    /// The spec file as named on the command line.
    pub file: String,
    pub spec: Spec,
    pub report: R,
    pub witnesses: bool,
    pub solver: String,
    pub seconds: f64,
}

/// One finished timed audit.
pub type TimedRun = OverTimeRun<TimedReport>;

impl<R: Serialize> OverTimeRun<R> {
    /// A finding about the requirements `ids` of this run's spec ([`spec_finding`]).
    pub(crate) fn finding(
        &self,
        rule: &'static str,
        level: Level,
        ids: &[String],
        message: String,
    ) -> Finding {
        spec_finding(&self.file, &self.spec, rule, level, ids, message)
    }

    /// The JSON payload under `schema` ([`OverTimeJson`]).
    pub(crate) fn over_time_json(&self, schema: &'static str) -> serde_json::Result<String> {
        serde_json::to_string_pretty(&OverTimeJson {
            schema,
            spec: &self.spec.name,
            file: &self.file,
            solver: &self.solver,
            report: &self.report,
            seconds: self.seconds,
        })
    }
}

/// The place of a requirement or domain constraint of `spec` by id, in `file` (the
/// spec as named on the command line).
fn spec_place(file: &str, spec: &Spec, id: &str) -> Location {
    let line = spec
        .requirements
        .iter()
        .find(|r| r.id == id)
        .map(|r| r.line)
        .or_else(|| spec.domain.iter().find(|d| d.id == id).map(|d| d.line))
        .and_then(|l| u32::try_from(l).ok())
        .filter(|l| *l > 0);
    Location::new(file, line)
}

/// A finding about the requirements `ids` of a timed or dense spec: placed at the
/// first, the others related (the file itself when there are none).
pub(crate) fn spec_finding(
    file: &str,
    spec: &Spec,
    rule: &'static str,
    level: Level,
    ids: &[String],
    message: String,
) -> Finding {
    let mut places = ids
        .iter()
        .map(|id| spec_place(file, spec, id).with_message(id.clone()));
    Finding {
        rule,
        level,
        message,
        location: places.next().or_else(|| Some(Location::new(file, None))),
        related: places.collect(),
    }
}

impl TimedRun {
    /// The report of `vera audit` on a timed spec in the reading it used: this run's
    /// for discrete ticks, [`crate::dense::DenseRun`]'s for dense time.
    pub fn of(
        file: String,
        spec: Spec,
        report: reqs::timed::request::TimedAudit,
        witnesses: bool,
        solver: String,
        seconds: f64,
    ) -> Box<dyn report::Report> {
        use reqs::timed::request::TimedAudit;
        match report {
            TimedAudit::Dense(report) => Box::new(crate::dense::DenseRun {
                file,
                spec,
                report,
                witnesses,
                solver,
                seconds,
            }),
            TimedAudit::Discrete(report) => Box::new(TimedRun {
                file,
                spec,
                report,
                witnesses,
                solver,
                seconds,
            }),
        }
    }
}

/// The JSON payload of an audit over time (`vera.audit-timed.v1`, and the dense-time
/// audit's): the report's own fields next to the spec, file, solver and time.
#[derive(Serialize)]
struct OverTimeJson<'a, R> {
    schema: &'static str,
    spec: &'a str,
    file: &'a str,
    solver: &'a str,
    #[serde(flatten)]
    report: &'a R,
    seconds: f64,
}

/// The last lines of an audit over time: what was not formalized, then the cost.
pub(crate) fn closing_lines(o: &mut String, not_formalized: &[String], cost: String) {
    if !not_formalized.is_empty() {
        o.push_str(&format!("not formalized: {}\n", not_formalized.join(", ")));
    }
    o.push_str(&cost);
}

const RULES: &[Rule] = &[
    Rule {
        id: "VERA-TIMED-INCONSISTENT",
        name: "NoRun",
        short: "No run satisfies these requirements together with the domain.",
        help: "Decide which requirement of the conflict is wrong, or restrict one of them.",
        level: Level::Error,
    },
    Rule {
        id: "VERA-TIMED-RT-INCONSISTENT",
        name: "DeadEnd",
        short: "After a run every requirement allows, no next step satisfies these requirements.",
        help: "Look at the prefix: the requirements demand contradicting things at its next step. Add a requirement that avoids the prefix, or change a duration.",
        level: Level::Error,
    },
    Rule {
        id: "VERA-TIMED-ENV-CONFLICT",
        name: "ForcedDeadEnd",
        short: "After a run every requirement allows, the environment can choose inputs for which no outputs satisfy these requirements.",
        help: "The system cannot keep these requirements whatever the environment does: weaken one, or constrain the inputs in the domain.",
        level: Level::Error,
    },
    Rule {
        id: "VERA-TIMED-VACUOUS",
        name: "NeverFires",
        short: "The requirement cannot fire within the horizon.",
        help: "Check its trigger against the requirements named, or raise the horizon.",
        level: Level::Warning,
    },
    Rule {
        id: "VERA-TIMED-REDUNDANT",
        name: "Redundant",
        short: "Within the horizon the other requirements already enforce this one.",
        help: "Remove it or mark it as intended.",
        level: Level::Warning,
    },
    Rule {
        id: "VERA-TIMED-IMPLIED-BY-DOMAIN",
        name: "ImpliedByDomain",
        short: "Within the horizon the domain constraints enforce this requirement.",
        help: "It constrains nothing the domain does not already.",
        level: Level::Warning,
    },
    Rule {
        id: "VERA-TIMED-BOUND",
        name: "BoundTooSmall",
        short: "The horizon is shorter than the requirement's own durations.",
        help: "Run with a longer --horizon; vacuity and redundancy were not judged.",
        level: Level::Warning,
    },
    Rule {
        id: "VERA-TIMED-UNDECIDED",
        name: "Undecided",
        short: "A check gave no answer.",
        help: "Raise the solver timeout or simplify the requirement.",
        level: Level::Error,
    },
];

/// The trace as an interval table: the first interval lists every variable, the next
/// ones what changed.
pub fn timeline_text(out: &mut String, t: &Timeline, indent: &str) {
    let mut prev: Option<&reqs::audit::Witness> = None;
    for row in &t.rows {
        let shown: Vec<String> = row
            .values
            .iter()
            .filter(|a| prev.is_none_or(|p| !p.contains(a)))
            .map(|a| match &a.unit {
                Some(u) => format!("{}={} {u}", a.variable, a.value),
                None => format!("{}={}", a.variable, a.value),
            })
            .collect();
        let span = if row.to == row.from + 1 {
            row.from_time.clone()
        } else {
            format!("[{}, {})", row.from_time, row.to_time)
        };
        let what = if shown.is_empty() {
            "(no change)".to_string()
        } else {
            shown.join("  ")
        };
        out.push_str(&format!("{indent}{span:<20} {what}\n"));
        prev = Some(&row.values);
    }
    if let (Some(l), Some(time)) = (t.loops_to, &t.loops_to_time) {
        out.push_str(&format!(
            "{indent}then repeats from step {l} ({time}) for ever\n"
        ));
    }
}

fn vacuity_text(v: &Vacuity, within: &str) -> Option<String> {
    match v {
        Vacuity::Vacuous {
            because,
            response_conflict,
        } => Some(if because.is_empty() {
            format!("cannot fire {within}")
        } else if *response_conflict {
            format!(
                "cannot fire {within}: whenever it fires, its response contradicts {}",
                because.join(", ")
            )
        } else {
            format!("cannot fire {within} because of {}", because.join(", "))
        }),
        Vacuity::Unknown { reason } => Some(format!("vacuity undecided: {reason}")),
        _ => None,
    }
}

/// How far a "never" verdict reaches: every run when k-induction proved it, else the
/// horizon.
fn within(a: &TimedRequirementAudit, verdict: &str) -> &'static str {
    if a.proved_for_every_run.contains(&verdict) {
        "in any run (proved by k-induction)"
    } else {
        "within the horizon"
    }
}

/// rt-inconsistency (`env`: the environment's dead ends) in words.
fn rt_text(o: &mut String, r: &RtInconsistency, env: bool) {
    let what = if env {
        "conflicts the environment can force"
    } else {
        "rt-inconsistency"
    };
    match r {
        RtInconsistency::NotChecked { reason } => {
            o.push_str(&format!("{what}: not checked ({reason})\n"))
        }
        RtInconsistency::NoneUpTo {
            up_to,
            time,
            every_prefix: false,
        } => o.push_str(&format!(
            "{what}: no dead end after any prefix of up to {up_to} steps ({time})\n"
        )),
        RtInconsistency::NoneUpTo {
            up_to,
            every_prefix: true,
            ..
        } => o.push_str(&format!(
            "{what}: no dead end after any prefix (prefixes up to {up_to} steps checked, all longer ones by k-induction)\n"
        )),
        RtInconsistency::Found {
            conflicts,
            up_to,
            complete,
        } => {
            o.push_str(&format!(
                "{}: {} minimal set{} of requirements (prefixes of up to {up_to} steps checked{})\n",
                if env {
                    "conflicts the environment can force"
                } else {
                    "rt-inconsistent"
                },
                conflicts.len(),
                if conflicts.len() == 1 { "" } else { "s" },
                if *complete { "" } else { "; the list may be incomplete" }
            ));
            for c in conflicts {
                let at = c
                    .prefix
                    .rows
                    .last()
                    .map(|row| row.to_time.clone())
                    .unwrap_or_default();
                if c.dead_end_at == 0 {
                    o.push_str(&format!(
                        "  {}: in the very first state, {}\n",
                        c.requirements.join(", "),
                        if env {
                            "the environment can choose inputs for which no outputs satisfy them"
                        } else {
                            "no state satisfies them"
                        }
                    ));
                    continue;
                }
                o.push_str(&format!(
                    "  {}{}: every requirement holds on this prefix, and {} at step {} ({at}):\n",
                    c.requirements.join(", "),
                    if c.domain.is_empty() {
                        String::new()
                    } else {
                        format!(" (with {})", c.domain.join(", "))
                    },
                    if env {
                        "the environment can choose inputs for which no outputs satisfy them"
                    } else {
                        "no state satisfies them"
                    },
                    c.dead_end_at
                ));
                timeline_text(o, &c.prefix, "    ");
            }
        }
        RtInconsistency::Unknown { reason } => o.push_str(&format!("{what} undecided: {reason}\n")),
    }
}

impl TimedRun {
    fn requirement_lines(&self, a: &TimedRequirementAudit, out: &mut String) {
        let mut lines = Vec::new();
        if !a.fits {
            lines.push(format!(
                "bound too small for {}: it needs {} steps, the horizon has {}",
                a.id,
                a.needs_steps,
                self.report.horizon.steps + 1
            ));
        }
        if let Some(t) = vacuity_text(&a.vacuity_domain, within(a, "vacuity_domain")) {
            lines.push(format!("{t} (domain constraints alone)"));
        } else if let Some(t) = vacuity_text(&a.vacuity, within(a, "vacuity")) {
            lines.push(t);
        }
        match &a.violatability {
            TimedViolatability::ImpliedByDomain { because } => lines.push(format!(
                "implied by the domain {} ({})",
                within(a, "implied_by_domain"),
                crate::audit::ids_or(because, "it holds in every trace: a tautology")
            )),
            TimedViolatability::Unknown { reason } => {
                lines.push(format!("violatability undecided: {reason}"))
            }
            TimedViolatability::Violatable { .. } => {}
        }
        match &a.redundancy {
            TimedRedundancy::Redundant { subsumed_by } => lines.push(format!(
                "redundant {}: already enforced by {}",
                within(a, "redundancy"),
                crate::audit::ids_or(subsumed_by, "nothing else: it holds in every trace")
            )),
            TimedRedundancy::Unknown { reason } => {
                lines.push(format!("redundancy undecided: {reason}"))
            }
            _ => {}
        }
        let show_trace = self.witnesses;
        if lines.is_empty() && !show_trace {
            return;
        }
        out.push_str(&format!("\n{} (line {}): {}\n", a.id, a.line, a.pattern));
        for l in lines {
            out.push_str(&format!("  {l}\n"));
        }
        if show_trace {
            if let TimedViolatability::Violatable { trace, at } = &a.violatability {
                // The not-redundant witness serves when there is one: the other
                // requirements hold on it too (and it breaks as early as they allow).
                let on = if matches!(a.redundancy, TimedRedundancy::NotRedundant { .. }) {
                    "every other requirement holds on it"
                } else {
                    "the domain constraints hold on it"
                };
                out.push_str(&format!("  broken at step {at} by this trace ({on}):\n"));
                timeline_text(out, trace, "    ");
            }
        }
    }
}

impl Report for TimedRun {
    fn schema(&self) -> &'static str {
        "vera.audit-timed.v1"
    }

    fn status(&self) -> Status {
        let r = &self.report;
        let unknown = matches!(r.consistency, TimedConsistency::Unknown { .. })
            || matches!(r.rt_inconsistency, RtInconsistency::Unknown { .. })
            || matches!(r.environment, RtInconsistency::Unknown { .. })
            // A requirement whose durations exceed the horizon is not judged: a
            // finding (bound too small), not an undecided check.
            || r.requirements.iter().filter(|a| a.fits).any(|a| {
                matches!(a.vacuity, Vacuity::Unknown { .. })
                    || matches!(a.vacuity_domain, Vacuity::Unknown { .. })
                    || matches!(a.violatability, TimedViolatability::Unknown { .. })
                    || matches!(a.redundancy, TimedRedundancy::Unknown { .. })
            });
        Status::of(unknown, r.has_findings() || !r.bound_too_small.is_empty())
    }

    fn human(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        let r = &self.report;
        let mut o = String::new();
        o.push_str(&format!(
            "{}: {} requirements on traces (tick {}; horizon {} steps = {}, {})\n",
            self.file,
            self.spec.requirements.len(),
            r.tick,
            r.horizon.steps,
            r.horizon.time,
            r.horizon.source
        ));
        if !r.bound_too_small.is_empty() {
            o.push_str(&format!(
                "warning: bound too small for {}: their durations do not fit in the horizon; raise --horizon\n",
                r.bound_too_small.join(", ")
            ));
        }
        match &r.consistency {
            TimedConsistency::Consistent { infinite, witness } => {
                if *infinite {
                    o.push_str("consistent: an infinite run satisfies every requirement (this one loops):\n");
                } else {
                    o.push_str(&format!(
                        "consistent up to {} steps ({}): a run of that length satisfies every requirement; no looping run was found within it, so an infinite run is not shown\n",
                        r.horizon.steps, r.horizon.time
                    ));
                }
                timeline_text(&mut o, witness, "  ");
            }
            TimedConsistency::DomainInconsistent { conflict } => o.push_str(&format!(
                "domain inconsistent: the domain constraints {} admit no state\n",
                conflict.join(", ")
            )),
            TimedConsistency::Inconsistent {
                conflicts,
                complete,
            } => {
                o.push_str(&format!(
                    "inconsistent: no run satisfies every requirement ({} minimal conflict{}{})\n",
                    conflicts.len(),
                    if conflicts.len() == 1 { "" } else { "s" },
                    if *complete { ", all of them" } else { "" }
                ));
                for c in conflicts {
                    o.push_str(&format!("  conflict: {}\n", c.join(", ")));
                }
            }
            TimedConsistency::Unknown { reason } => {
                o.push_str(&format!("consistency undecided: {reason}\n"))
            }
        }
        rt_text(&mut o, &r.rt_inconsistency, false);
        match (&r.rt_inconsistency, &r.environment) {
            // Every dead end the environment can force was one whatever the next state:
            // the sets found are those above.
            (RtInconsistency::Found { .. }, RtInconsistency::NoneUpTo { up_to, time, .. }) => {
                o.push_str(&format!(
                    "conflicts the environment can force: none besides the dead ends above (prefixes of up to {up_to} steps, {time}, checked)\n"
                ))
            }
            _ => rt_text(&mut o, &r.environment, true),
        }
        let before = o.len();
        for a in &r.requirements {
            self.requirement_lines(a, &mut o);
        }
        let all_clear = matches!(r.consistency, TimedConsistency::Consistent { .. })
            && r.requirements.iter().all(|a| {
                matches!(a.vacuity, Vacuity::Reachable | Vacuity::NotApplicable)
                    && matches!(a.violatability, TimedViolatability::Violatable { .. })
                    && matches!(a.redundancy, TimedRedundancy::NotRedundant { .. })
            });
        if o.len() == before && all_clear {
            o.push_str(&format!(
                "every requirement can fire, can be broken and is not implied by the others within {} steps\n",
                r.horizon.steps
            ));
        } else if !matches!(r.consistency, TimedConsistency::Consistent { .. }) {
            o.push_str(
                "vacuity under the other requirements and redundancy are not checked while the requirements have no run together\n",
            );
        } else if !all_clear && o.len() == before {
            o.push_str("some checks did not run or gave no answer: see --format json\n");
        }
        closing_lines(
            &mut o,
            &r.not_formalized,
            format!("{} solver queries, {:.1} s\n", r.queries, self.seconds),
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
            TimedConsistency::Inconsistent { conflicts, .. } => {
                for c in conflicts {
                    out.push(self.finding(
                        "VERA-TIMED-INCONSISTENT",
                        Level::Error,
                        c,
                        format!("no run satisfies {} together", c.join(", ")),
                    ));
                }
            }
            TimedConsistency::DomainInconsistent { conflict } => out.push(self.finding(
                "VERA-TIMED-INCONSISTENT",
                Level::Error,
                conflict,
                format!(
                    "the domain constraints {} admit no state",
                    conflict.join(", ")
                ),
            )),
            TimedConsistency::Unknown { reason } => out.push(self.finding(
                "VERA-TIMED-UNDECIDED",
                Level::Error,
                &[],
                format!("consistency not decided: {reason}"),
            )),
            TimedConsistency::Consistent { .. } => {}
        }
        for (env, rt) in [(false, &r.rt_inconsistency), (true, &r.environment)] {
            match rt {
                RtInconsistency::Found { conflicts, .. } => {
                    for c in conflicts {
                        out.push(self.finding(
                            if env {
                                "VERA-TIMED-ENV-CONFLICT"
                            } else {
                                "VERA-TIMED-RT-INCONSISTENT"
                            },
                            Level::Error,
                            &c.requirements,
                            format!(
                                "after a prefix of {} steps that every requirement allows, {} {}",
                                c.dead_end_at,
                                if env {
                                    "the environment can choose inputs for which no outputs satisfy"
                                } else {
                                    "no next step satisfies"
                                },
                                c.requirements.join(", ")
                            ),
                        ));
                    }
                }
                RtInconsistency::Unknown { reason } => out.push(self.finding(
                    "VERA-TIMED-UNDECIDED",
                    Level::Error,
                    &[],
                    format!("dead ends not decided: {reason}"),
                )),
                _ => {}
            }
        }
        for id in &r.bound_too_small {
            out.push(self.finding(
                "VERA-TIMED-BOUND",
                Level::Warning,
                std::slice::from_ref(id),
                format!("bound too small for {id}"),
            ));
        }
        for a in &r.requirements {
            let me = std::slice::from_ref(&a.id);
            for (v, name) in [
                (&a.vacuity_domain, "vacuity_domain"),
                (&a.vacuity, "vacuity"),
            ] {
                if let Some(t) = vacuity_text(v, within(a, name)) {
                    let rule = if matches!(v, Vacuity::Unknown { .. }) {
                        "VERA-TIMED-UNDECIDED"
                    } else {
                        "VERA-TIMED-VACUOUS"
                    };
                    out.push(self.finding(rule, Level::Warning, me, format!("{}: {t}", a.id)));
                    break;
                }
            }
            if let TimedViolatability::ImpliedByDomain { because } = &a.violatability {
                out.push(self.finding(
                    "VERA-TIMED-IMPLIED-BY-DOMAIN",
                    Level::Warning,
                    me,
                    format!("{} is implied by {}", a.id, because.join(", ")),
                ));
            }
            if let TimedRedundancy::Redundant { subsumed_by } = &a.redundancy {
                out.push(self.finding(
                    "VERA-TIMED-REDUNDANT",
                    Level::Warning,
                    me,
                    format!("{} is already enforced by {}", a.id, subsumed_by.join(", ")),
                ));
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
