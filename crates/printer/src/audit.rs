//! The report of `vera audit`: the typed JSON payload (`vera.audit.v1`), the terminal
//! text, the findings for SARIF and the HTML page.

use crate::text::{clean, excerpt, paint, Paint};
use report::html::{Bar, Block, Count, Edge, Node, Page, Section, Tone};
use report::{Finding, Findings, Level, Location, Report, Rule, Status};
use reqs::audit::{Consistency, Redundancy, RequirementAudit, Vacuity, Violatability, Witness};
use reqs::realize::Realizability;
use reqs::summary::{env_conflicts_of, vacuous_by_priority, Summary};
use reqs::Spec;
use serde::Serialize;
use std::fmt::Write as _;

/// One finished audit, with everything its renderings need.
pub struct AuditRun {
    /// The requirements file as named on the command line (a CSV's requirements are
    /// there, its schema's domain constraints in `spec.source`).
    pub file: String,
    pub spec: Spec,
    pub report: reqs::AuditReport,
    pub summary: Summary,
    pub witnesses: bool,
    pub cached: bool,
    pub solver: String,
    pub seconds: f64,
}

/// `vera.audit.v1`.
#[derive(Serialize)]
struct AuditJson<'a> {
    schema: &'static str,
    spec: &'a str,
    file: &'a str,
    solver: &'a str,
    summary: &'a Summary,
    consistency: &'a Consistency,
    realizability: &'a Realizability,
    requirements: Vec<RequirementJson<'a>>,
    not_formalized: &'a [String],
    /// Findings whose likely cause is a variable another requirement fixes.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    causes: &'a [reqs::forcing::Cause],
    /// The redundancy causes in the shape v1 readers know (`redundant`, `requirement`,
    /// `variable`, `value`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    redundancy_causes: Vec<RedundancyCauseJson<'a>>,
    queries: usize,
    seconds: f64,
}

#[derive(Serialize)]
struct RedundancyCauseJson<'a> {
    redundant: &'a str,
    requirement: &'a str,
    variable: &'a str,
    value: &'a str,
}

#[derive(Serialize)]
struct RequirementJson<'a> {
    text: &'a str,
    /// The formula read back in plain English (vera's own, no model).
    #[serde(skip_serializing_if = "Option::is_none")]
    reads: Option<String>,
    #[serde(flatten)]
    audit: &'a RequirementAudit,
}

/// The finding kinds of an audit (SARIF rules).
const RULES: &[Rule] = &[
    Rule {
        id: "VERA-AUDIT-INCONSISTENT",
        name: "GlobalConflict",
        short: "No state satisfies these requirements together with the domain.",
        help: "Decide which of the requirements in the conflict is wrong, or restrict one of them.",
        level: Level::Error,
    },
    Rule {
        id: "VERA-AUDIT-DOMAIN-INCONSISTENT",
        name: "DomainConflict",
        short: "The domain constraints alone have no state.",
        help: "Correct the domain constraints or variable bounds in the conflict.",
        level: Level::Error,
    },
    Rule {
        id: "VERA-AUDIT-CONFLICT-FOR-SOME-INPUTS",
        name: "ConflictForSomeInputs",
        short: "For some input values no outputs satisfy these requirements.",
        help:
            "Answer the decision the conflict asks: which requirement gives way for these inputs.",
        level: Level::Error,
    },
    Rule {
        id: "VERA-AUDIT-VACUOUS",
        name: "Vacuous",
        short: "The requirement's trigger can never hold, so it never applies.",
        help: "Check the trigger against the domain and the requirements named as the cause.",
        level: Level::Warning,
    },
    Rule {
        id: "VERA-AUDIT-IMPLIED-BY-DOMAIN",
        name: "ImpliedByDomain",
        short: "The domain alone already forces the requirement; it can never be violated.",
        help: "Drop the requirement or check whether the domain is too strong.",
        level: Level::Warning,
    },
    Rule {
        id: "VERA-AUDIT-REDUNDANT",
        name: "Redundant",
        short: "Other requirements together already imply this one.",
        help: "Drop it, or check whether the subsuming requirements say more than intended.",
        level: Level::Warning,
    },
    Rule {
        id: "VERA-AUDIT-FIXES-VARIABLE",
        name: "FixesVariable",
        short: "The requirement fixes a variable to one value in every state, which it cannot mean (an input, or a conditional requirement).",
        help: "Check the formula against the text: a condition written as an invariant fixes what it tests; the requirements made vacuous or redundant by it name it as their cause.",
        level: Level::Warning,
    },
    Rule {
        id: "VERA-AUDIT-UNDECIDED",
        name: "Undecided",
        short:
            "The solver could not decide a check (unknown, timeout, failure); nothing was proved.",
        help: "Raise --timeout, try the other solver, or simplify the formulas involved.",
        level: Level::Error,
    },
    Rule {
        id: "VERA-AUDIT-NOT-FORMALIZED",
        name: "NotFormalized",
        short: "The requirement has no formula and takes no part in the audit.",
        help: "Write its formula or run `vera formalize`.",
        level: Level::Note,
    },
];

impl AuditRun {
    fn file(&self) -> &str {
        &self.file
    }

    /// The place of a requirement or domain constraint by id.
    fn place(&self, id: &str) -> Location {
        let line = |l: usize| u32::try_from(l).ok().filter(|l| *l > 0);
        match self.spec.requirements.iter().find(|r| r.id == id) {
            Some(r) => Location::new(self.file(), line(r.line)),
            // Domain constraints are in the spec or, for a CSV, its schema.
            None => Location::new(
                self.spec.source.name(),
                self.spec
                    .domain
                    .iter()
                    .find(|d| d.id == id)
                    .and_then(|d| line(d.line)),
            ),
        }
    }

    fn text_of(&self, id: &str) -> &str {
        self.spec
            .requirements
            .iter()
            .find(|r| r.id == id)
            .map(|r| r.text.as_str())
            .or_else(|| {
                self.spec
                    .domain
                    .iter()
                    .find(|d| d.id == id)
                    .and_then(|d| d.text.as_deref())
            })
            .unwrap_or("")
    }

    /// A finding at the first of `ids`, the others as related places.
    fn group(&self, rule: &'static str, level: Level, ids: &[String], message: String) -> Finding {
        let mut places = ids.iter().map(|id| {
            self.place(id)
                .with_message(format!("{id}: {}", excerpt(self.text_of(id), 100)))
        });
        let location = places.next();
        Finding {
            rule,
            level,
            message,
            location,
            related: places.collect(),
        }
    }

    fn requirement_findings(&self, a: &RequirementAudit, out: &mut Vec<Finding>) {
        let at = |rule, level, message: String, related: &[String]| Finding {
            rule,
            level,
            message,
            location: Some(self.place(&a.id)),
            related: related
                .iter()
                .map(|id| self.place(id).with_message(id.clone()))
                .collect(),
        };
        let mut undecided = Vec::new();
        for (what, v) in [("domain", &a.vacuity_domain), ("model", &a.vacuity_model)] {
            match v {
                Vacuity::Vacuous { because, .. }
                    if what == "domain" || !vacuous_by_priority(&self.report, a) =>
                {
                    let mut cause = if because.is_empty() {
                        String::new()
                    } else {
                        format!(" because of {}", because.join(", "))
                    };
                    if what == "model" {
                        cause.push_str(&self.likely_cause("vacuous", &a.id));
                    }
                    out.push(at(
                        "VERA-AUDIT-VACUOUS",
                        Level::Warning,
                        format!(
                            "{}: the trigger can never hold under the {what}{cause}",
                            a.id
                        ),
                        because,
                    ));
                }
                Vacuity::Unknown { reason } => {
                    undecided.push(format!("vacuity ({what}): {reason}"))
                }
                _ => {}
            }
        }
        match &a.violatability {
            Violatability::ImpliedByDomain { because } => out.push(at(
                "VERA-AUDIT-IMPLIED-BY-DOMAIN",
                Level::Warning,
                format!(
                    "{}: the domain alone forces it; it can never be violated",
                    a.id
                ),
                because,
            )),
            Violatability::Unknown { reason } => undecided.push(format!("violatability: {reason}")),
            Violatability::Violatable { .. } => {}
        }
        match &a.redundancy {
            Redundancy::Redundant { subsumed_by } => out.push(at(
                "VERA-AUDIT-REDUNDANT",
                Level::Warning,
                format!(
                    "{}: implied by {}{}",
                    a.id,
                    if subsumed_by.is_empty() {
                        "the domain".to_string()
                    } else {
                        subsumed_by.join(", ")
                    },
                    self.likely_cause("redundant", &a.id)
                ),
                subsumed_by,
            )),
            Redundancy::Unknown { reason } => undecided.push(format!("redundancy: {reason}")),
            _ => {}
        }
        for f in a.fixes.iter().filter(|f| f.kind.is_finding()) {
            out.push(at(
                "VERA-AUDIT-FIXES-VARIABLE",
                Level::Warning,
                format!(
                    "{}: fixes {} = {}{} in every state, though {}",
                    a.id,
                    f.variable,
                    f.value,
                    f.unit
                        .as_deref()
                        .map(|u| format!(" {u}"))
                        .unwrap_or_default(),
                    f.kind.why()
                ),
                &[],
            ));
        }
        if a.fixes_unknown {
            undecided.push("whether it fixes a variable in every state".to_string());
        }
        if !undecided.is_empty() {
            out.push(at(
                "VERA-AUDIT-UNDECIDED",
                Level::Error,
                format!("{}: not decided: {}", a.id, undecided.join("; ")),
                &[],
            ));
        }
    }

    /// " (likely cause: R fixes v = x in every state)" for a finding about `id`, or "".
    fn likely_cause(&self, finding: &str, id: &str) -> String {
        let named: Vec<String> = self
            .report
            .causes
            .iter()
            .filter(|c| c.finding == finding && c.of == id)
            .map(|c| {
                format!(
                    "{} fixes {} = {} in every state",
                    c.forced.requirement, c.forced.variable, c.forced.value
                )
            })
            .collect();
        if named.is_empty() {
            String::new()
        } else {
            format!(" (likely cause: {})", named.join("; "))
        }
    }

    fn env_conflicts(&self) -> &[reqs::realize::EnvConflict] {
        match &self.report.realizability {
            Realizability::Unrealizable { conflicts, .. } => conflicts,
            _ => &[],
        }
    }
}

fn witness_rows(w: &Witness) -> Vec<Vec<String>> {
    w.iter()
        .map(|a| {
            vec![
                a.variable.clone(),
                format!(
                    "{}{}",
                    a.value,
                    a.unit
                        .as_deref()
                        .map(|u| format!(" {u}"))
                        .unwrap_or_default()
                ),
            ]
        })
        .collect()
}

fn witness_table(w: &Witness) -> Block {
    Block::Table {
        headers: vec!["variable".into(), "value".into()],
        rows: witness_rows(w),
    }
}

impl Report for AuditRun {
    fn schema(&self) -> &'static str {
        "vera.audit.v1"
    }

    fn status(&self) -> Status {
        let r = &self.report;
        let unknown = matches!(r.consistency, Consistency::Unknown { .. })
            || matches!(r.realizability, Realizability::Unknown { .. })
            || matches!(
                r.realizability,
                Realizability::Unrealizable {
                    incomplete: Some(reqs::Incomplete::Unknown { .. }),
                    ..
                }
            )
            || self.summary.unknown > 0;
        let findings = !matches!(r.consistency, Consistency::Consistent)
            || matches!(r.realizability, Realizability::Unrealizable { .. })
            || r.requirements.iter().any(RequirementAudit::has_findings);
        Status::of(unknown, findings)
    }

    fn human(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        w.write_all(
            human_audit(
                &self.file,
                &self.spec,
                &self.report,
                &self.summary,
                self.witnesses,
                self.cached,
            )
            .as_bytes(),
        )
    }

    fn json(&self) -> serde_json::Result<String> {
        let requirements = self
            .report
            .requirements
            .iter()
            .map(|a| RequirementJson {
                text: self.text_of(&a.id),
                reads: self
                    .spec
                    .requirements
                    .iter()
                    .find(|r| r.id == a.id)
                    .and_then(|r| r.formula.as_ref())
                    .map(|f| pipeline::readback::sentence(&self.spec, f)),
                audit: a,
            })
            .collect();
        serde_json::to_string_pretty(&AuditJson {
            schema: self.schema(),
            spec: &self.spec.name,
            file: self.file(),
            solver: &self.solver,
            summary: &self.summary,
            consistency: &self.report.consistency,
            realizability: &self.report.realizability,
            requirements,
            not_formalized: &self.report.not_formalized,
            causes: &self.report.causes,
            redundancy_causes: self
                .report
                .causes
                .iter()
                .filter(|c| c.finding == "redundant")
                .map(|c| RedundancyCauseJson {
                    redundant: &c.of,
                    requirement: &c.forced.requirement,
                    variable: &c.forced.variable,
                    value: &c.forced.value,
                })
                .collect(),
            queries: self.report.queries,
            seconds: self.seconds,
        })
    }

    fn findings(&self) -> Option<Findings> {
        let mut out = Vec::new();
        match &self.report.consistency {
            Consistency::Consistent => {}
            Consistency::DomainInconsistent { conflict } => out.push(self.group(
                "VERA-AUDIT-DOMAIN-INCONSISTENT",
                Level::Error,
                conflict,
                format!(
                    "the domain constraints {} have no state together",
                    conflict.join(", ")
                ),
            )),
            Consistency::Inconsistent {
                conflicts,
                incomplete,
                ..
            } => {
                for c in conflicts {
                    out.push(self.group(
                        "VERA-AUDIT-INCONSISTENT",
                        Level::Error,
                        c,
                        format!("no state satisfies {} together", c.join(", ")),
                    ));
                }
                if let Some(reqs::Incomplete::Unknown { reason }) = incomplete {
                    out.push(Finding {
                        rule: "VERA-AUDIT-UNDECIDED",
                        level: Level::Error,
                        message: format!("the search for further conflicts stopped: {reason}"),
                        location: Some(Location::new(self.file(), None)),
                        related: Vec::new(),
                    });
                }
            }
            Consistency::Unknown { reason } => out.push(Finding {
                rule: "VERA-AUDIT-UNDECIDED",
                level: Level::Error,
                message: format!("global consistency not decided: {reason}"),
                location: Some(Location::new(self.file(), None)),
                related: Vec::new(),
            }),
        }
        for c in self.env_conflicts() {
            let inputs: Vec<String> = c
                .inputs
                .iter()
                .map(|a| format!("{} = {}", a.variable, a.value))
                .collect();
            out.push(self.group(
                "VERA-AUDIT-CONFLICT-FOR-SOME-INPUTS",
                Level::Error,
                &c.requirements,
                format!(
                    "when {}, no outputs satisfy {}: {}",
                    inputs.join(", "),
                    c.requirements.join(", "),
                    c.question
                ),
            ));
        }
        match &self.report.realizability {
            Realizability::Unknown { reason }
            | Realizability::Unrealizable {
                incomplete: Some(reqs::Incomplete::Unknown { reason }),
                ..
            } => out.push(Finding {
                rule: "VERA-AUDIT-UNDECIDED",
                level: Level::Error,
                message: format!("conflicts for some inputs not decided: {reason}"),
                location: Some(Location::new(self.file(), None)),
                related: Vec::new(),
            }),
            _ => {}
        }
        for a in &self.report.requirements {
            self.requirement_findings(a, &mut out);
        }
        for id in &self.report.not_formalized {
            out.push(Finding {
                rule: "VERA-AUDIT-NOT-FORMALIZED",
                level: Level::Note,
                message: format!("{id} has no formula and takes no part in the audit"),
                location: Some(self.place(id)),
                related: Vec::new(),
            });
        }
        Some(Findings {
            command: "audit".into(),
            rules: RULES.to_vec(),
            findings: out,
            files: {
                let mut f = vec![self.file().to_string()];
                if self.spec.source.name() != self.file() {
                    f.push(self.spec.source.name().to_string());
                }
                f
            },
        })
    }

    fn notes(&self) -> Vec<String> {
        if self.cached {
            vec![format!(
                "{} of {} checks reused from the cache",
                self.report.reused, self.report.checks
            )]
        } else {
            Vec::new()
        }
    }

    fn page(&self) -> Option<Page> {
        let s = &self.summary;
        let conflicts = match &self.report.consistency {
            Consistency::Inconsistent { conflicts, .. } => conflicts.len(),
            Consistency::DomainInconsistent { .. } => 1,
            _ => 0,
        };
        let counts = vec![
            Count::neutral("requirements", s.requirements),
            Count::neutral("formalized", s.formalized),
            Count::findings("global conflicts", conflicts, Tone::Bad),
            Count::findings(
                "conflicts for some inputs",
                s.conflicts_for_some_inputs,
                Tone::Bad,
            ),
            Count::findings("vacuous", s.vacuous, Tone::Warn),
            Count::findings("implied by domain", s.implied_by_domain, Tone::Warn),
            Count::findings("redundant", s.redundant, Tone::Warn),
            Count::findings("fix a variable", s.fixes_a_variable, Tone::Warn),
            Count::findings("undecided", s.unknown, Tone::Bad),
        ];
        let mut sections = Vec::new();

        sections.push(self.conflicts_section());
        sections.extend(self.redundancy_section());
        sections.push(self.requirements_section());
        let formalized = s.formalized.max(1) as f64;
        sections.push(Section {
            heading: "Findings by kind".into(),
            blocks: vec![Block::Bars {
                caption: "Requirements with each finding, of those formalized".into(),
                bars: [
                    ("vacuous", s.vacuous, Tone::Warn),
                    ("implied by domain", s.implied_by_domain, Tone::Warn),
                    ("redundant", s.redundant, Tone::Warn),
                    ("fix a variable", s.fixes_a_variable, Tone::Warn),
                    ("undecided", s.unknown, Tone::Bad),
                ]
                .into_iter()
                .map(|(label, n, tone)| Bar {
                    label: label.into(),
                    value: n as f64,
                    max: formalized,
                    tone,
                })
                .collect(),
            }],
        });
        Some(Page {
            title: format!("vera audit: {}", self.spec.name),
            subtitle: Some(format!(
                "{} · solver {} · {} queries in {:.2} s",
                self.file(),
                self.solver,
                self.report.queries,
                self.seconds
            )),
            counts,
            sections,
        })
    }
}

impl AuditRun {
    /// The page's conflicts: each minimal conflict as a picture of the requirements it
    /// joins, then the conflicts the environment can force.
    fn conflicts_section(&self) -> Section {
        let mut conflict_blocks = Vec::new();
        match &self.report.consistency {
            Consistency::Consistent => conflict_blocks.push(Block::Text(
                "The requirements and the domain have a common state: no global conflict.".into(),
            )),
            Consistency::DomainInconsistent { conflict } => {
                conflict_blocks.push(Block::Text(format!(
                    "The domain constraints alone have no state: {}.",
                    conflict.join(", ")
                )))
            }
            Consistency::Inconsistent { conflicts, .. } => {
                let (nodes, edges) = core_graph(conflicts);
                conflict_blocks.push(Block::Graph {
                    caption:
                        "Minimal conflicts: requirements joined by an edge clash in the same core"
                            .into(),
                    nodes,
                    edges,
                });
                for (k, c) in conflicts.iter().enumerate() {
                    conflict_blocks.push(Block::Item {
                        title: format!("Conflict {}", k + 1),
                        badge: "inconsistent".into(),
                        tone: Tone::Bad,
                        blocks: vec![self.text_table(c)],
                    });
                }
            }
            Consistency::Unknown { reason } => conflict_blocks.push(Block::Text(format!(
                "Global consistency was not decided: {reason}"
            ))),
        }
        for (k, c) in self.env_conflicts().iter().enumerate() {
            conflict_blocks.push(Block::Item {
                title: format!("Conflict for some inputs {}", k + 1),
                badge: "unrealizable".into(),
                tone: Tone::Bad,
                blocks: vec![
                    Block::Text(c.question.clone()),
                    self.text_table(&c.requirements),
                    Block::Text("Inputs under which no outputs satisfy them:".into()),
                    witness_table(&c.inputs),
                ],
            });
        }
        Section {
            heading: "Conflicts".into(),
            blocks: conflict_blocks,
        }
    }

    /// The page's subsumption graph: an arrow from each subsuming requirement to the
    /// one it implies (none when nothing is redundant).
    fn redundancy_section(&self) -> Option<Section> {
        let mut nodes: Vec<Node> = Vec::new();
        let mut edges = Vec::new();
        let index = |id: &str, tone: Tone, nodes: &mut Vec<Node>| {
            if let Some(i) = nodes.iter().position(|n| n.label == id) {
                if tone == Tone::Warn {
                    nodes[i].tone = Tone::Warn;
                }
                i
            } else {
                nodes.push(Node {
                    label: id.to_string(),
                    tone,
                });
                nodes.len() - 1
            }
        };
        for a in &self.report.requirements {
            if let Redundancy::Redundant { subsumed_by } = &a.redundancy {
                let to = index(&a.id, Tone::Warn, &mut nodes);
                for b in subsumed_by {
                    let from = index(b, Tone::Neutral, &mut nodes);
                    edges.push(Edge {
                        from,
                        to,
                        label: None,
                    });
                }
            }
        }
        (!nodes.is_empty()).then(|| Section {
            heading: "Redundancy".into(),
            blocks: vec![Block::Graph {
                caption: "Subsumption: an arrow from each requirement to one it helps imply (redundant ones in amber)".into(),
                nodes,
                edges,
            }],
        })
    }

    /// The page's requirements, one card each, findings first.
    fn requirements_section(&self) -> Section {
        let mut items = Vec::new();
        for a in &self.report.requirements {
            let mut found = Vec::new();
            self.requirement_findings(a, &mut found);
            let (badge, tone) = match found.first() {
                None => ("ok".to_string(), Tone::Good),
                Some(f) => (
                    RULES
                        .iter()
                        .find(|r| r.id == f.rule)
                        .map_or("finding", |r| r.name)
                        .to_string(),
                    if f.level == Level::Error {
                        Tone::Bad
                    } else {
                        Tone::Warn
                    },
                ),
            };
            let mut blocks = vec![Block::Text(self.text_of(&a.id).to_string())];
            if let Some(f) = self
                .spec
                .requirements
                .iter()
                .find(|r| r.id == a.id)
                .and_then(|r| r.formula.as_ref())
            {
                blocks.push(Block::Code(logic::print::term(f)));
                // The formula in words, for the reviewer to check against the text.
                blocks.push(Block::Text(format!(
                    "Reads: {}",
                    pipeline::readback::sentence(&self.spec, f)
                )));
            }
            for f in &found {
                blocks.push(Block::Text(f.message.clone()));
            }
            if self.witnesses {
                if let Violatability::Violatable { witness } = &a.violatability {
                    blocks.push(Block::Text("A state that violates it:".into()));
                    blocks.push(witness_table(witness));
                }
            }
            items.push(Block::Item {
                title: a.id.clone(),
                badge,
                tone,
                blocks,
            });
        }
        for id in &self.report.not_formalized {
            items.push(Block::Item {
                title: id.clone(),
                badge: "not formalized".into(),
                tone: Tone::Neutral,
                blocks: vec![Block::Text(self.text_of(id).to_string())],
            });
        }
        // Findings first: errors, then warnings, then the requirements without findings.
        let rank = |b: &Block| match b {
            Block::Item {
                tone: Tone::Bad, ..
            } => 0,
            Block::Item {
                tone: Tone::Warn, ..
            } => 1,
            Block::Item {
                tone: Tone::Good, ..
            } => 2,
            _ => 3,
        };
        items.sort_by_key(rank);
        Section {
            heading: "Requirements".into(),
            blocks: items,
        }
    }
}

impl AuditRun {
    fn text_table(&self, ids: &[String]) -> Block {
        Block::Table {
            headers: vec!["id".into(), "text".into()],
            rows: ids
                .iter()
                .map(|id| vec![id.clone(), self.text_of(id).to_string()])
                .collect(),
        }
    }
}

/// The requirements of the conflict cores as nodes, each core drawn as a ring of edges.
fn core_graph(conflicts: &[Vec<String>]) -> (Vec<Node>, Vec<Edge>) {
    let mut nodes: Vec<Node> = Vec::new();
    let mut edges = Vec::new();
    for (k, core) in conflicts.iter().enumerate() {
        let idx: Vec<usize> = core
            .iter()
            .map(|id| match nodes.iter().position(|n| &n.label == id) {
                Some(i) => i,
                None => {
                    nodes.push(Node {
                        label: id.clone(),
                        tone: Tone::Bad,
                    });
                    nodes.len() - 1
                }
            })
            .collect();
        if idx.len() >= 2 {
            for w in 0..idx.len() {
                let (from, to) = (idx[w], idx[(w + 1) % idx.len()]);
                if idx.len() == 2 && w == 1 {
                    break;
                }
                edges.push(Edge {
                    from,
                    to,
                    label: Some(format!("#{}", k + 1)),
                });
            }
        }
    }
    (nodes, edges)
}

/// "note: R fixes v = x in every state ..." lines under a vacuity or redundancy finding
/// of `id` whose likely cause is a fixed variable.
fn cause_notes(lines: &mut Vec<String>, report: &reqs::AuditReport, finding: &str, id: &str) {
    for c in report
        .causes
        .iter()
        .filter(|c| c.finding == finding && c.of == id)
    {
        let f = &c.forced;
        lines.push(format!(
            "  note: {} fixes {} = {} in every state, which is the likely cause: check that {} means that (a conditional requirement written as an invariant makes every requirement about {} {})",
            f.requirement, f.variable, f.value, f.requirement, f.variable, finding
        ));
    }
}

/// How far a list of conflicts goes: all of them (`complete`), up to a cap (of
/// `min_cap` or more: a smaller one goes unsaid), or up to an undecided answer.
fn extent(complete: bool, incomplete: Option<&reqs::Incomplete>, min_cap: usize) -> String {
    match incomplete {
        _ if complete => " (all of them)".to_string(),
        Some(reqs::Incomplete::Cap { cap, listed_up_to }) if *cap >= min_cap => {
            capped(*cap, *listed_up_to)
        }
        Some(reqs::Incomplete::Unknown { reason }) => format!(
            " ({} — there may be more: {reason})",
            paint(Paint::Warn, "incomplete")
        ),
        _ => String::new(),
    }
}

/// What a conflict list stopped by its cap says about the conflicts not listed.
fn capped(cap: usize, listed_up_to: Option<usize>) -> String {
    match listed_up_to {
        Some(0) | None => format!(
            " (stopped at {cap}; there may be more, their number unknown: raise it with --all-conflicts N)"
        ),
        Some(k) => format!(
            " (stopped at {cap}, smallest first: every conflict of up to {k} requirement(s) is listed; there may be larger ones, their number unknown: raise it with --all-conflicts N)"
        ),
    }
}

/// `ids`, or what is known when the list is empty.
pub(crate) fn ids_or(v: &[String], empty: &str) -> String {
    if v.is_empty() {
        empty.to_string()
    } else {
        ids(v)
    }
}

/// The realizability section: conflicts the environment can force, each with its input
/// state and the decision it asks for.
fn human_realizability(o: &mut String, r: &Realizability, text_of: &dyn Fn(&str) -> String) {
    match r {
        Realizability::NotChecked { reason } => {
            let _ = writeln!(o, "realizability: not checked ({reason})");
        }
        Realizability::Realizable { .. } => {
            let _ = writeln!(
                o,
                "realizability: {} — for every input the domain allows, some outputs satisfy every requirement",
                paint(Paint::Good, "realizable")
            );
        }
        Realizability::Unknown { reason } => {
            let _ = writeln!(
                o,
                "realizability: {} ({reason})",
                paint(Paint::Warn, "unknown")
            );
        }
        Realizability::Unrealizable {
            conflicts,
            complete,
            incomplete,
        } => {
            let extent = extent(*complete, incomplete.as_ref(), 0);
            let _ = writeln!(
                o,
                "realizability: {} — {} conflict(s) the environment can force{extent}",
                paint(Paint::Bad, "unrealizable"),
                conflicts.len()
            );
            for (k, c) in conflicts.iter().enumerate() {
                let mut members = c.requirements.clone();
                members.extend(c.domain.iter().cloned());
                let _ = writeln!(o, "  conflict for some inputs {}: {}", k + 1, ids(&members));
                for id in &members {
                    let _ = writeln!(o, "    {id}: {}", text_of(id));
                }
                let _ = writeln!(o, "    inputs:");
                witness_text(o, &c.inputs, "      ");
                let _ = writeln!(o, "    decide: {}", clean(&c.question));
            }
        }
    }
}

pub(crate) fn witness_text(out: &mut String, w: &Witness, indent: &str) {
    let width = w
        .iter()
        .map(|a| a.variable.len())
        .max()
        .unwrap_or(0)
        .min(40);
    for a in w {
        let unit = a
            .unit
            .as_deref()
            .map(|u| format!(" {u}"))
            .unwrap_or_default();
        let _ = writeln!(out, "{indent}{:width$} = {}{}", a.variable, a.value, unit);
    }
}

pub(crate) fn ids(v: &[String]) -> String {
    v.join(", ")
}

/// The consistency verdict with its conflicts (after the environment's conflicts,
/// when there are any). False when the domain constraints alone clash: nothing else
/// is reported then.
fn consistency_text(
    o: &mut String,
    report: &reqs::AuditReport,
    env_conflicts: bool,
    text_of: &dyn Fn(&str) -> String,
) -> bool {
    match &report.consistency {
        Consistency::Consistent if env_conflicts => {
            let _ = writeln!(
                o,
                "consistency: some state satisfies every requirement, but not for every input (the conflicts above)"
            );
        }
        Consistency::Consistent => {
            let _ = writeln!(o, "consistency: {}", paint(Paint::Good, "consistent"));
        }
        Consistency::DomainInconsistent { conflict } => {
            let _ = writeln!(
                o,
                "consistency: {} — the domain constraints alone clash: {}",
                paint(Paint::Bad, "inconsistent"),
                ids(conflict)
            );
            for id in conflict {
                let _ = writeln!(o, "  {id}: {}", text_of(id));
            }
            return false;
        }
        Consistency::Inconsistent {
            conflicts,
            complete,
            incomplete,
        } => {
            let extent = extent(*complete, incomplete.as_ref(), 2);
            let _ = writeln!(
                o,
                "consistency: {} — {} minimal conflict(s){extent}",
                paint(Paint::Bad, "inconsistent"),
                conflicts.len(),
            );
            for (k, c) in conflicts.iter().enumerate() {
                let _ = writeln!(o, "  conflict {}: {}", k + 1, ids(c));
                for id in c {
                    let _ = writeln!(o, "    {id}: {}", text_of(id));
                }
            }
            if matches!(incomplete, Some(reqs::Incomplete::Cap { cap: 1, .. })) {
                let _ = writeln!(o, "  (use --all-conflicts N to list more)");
            }
        }
        Consistency::Unknown { reason } => {
            let _ = writeln!(
                o,
                "consistency: {} ({reason})",
                paint(Paint::Warn, "unknown")
            );
        }
    }
    true
}

/// The counts of findings (only those of the checks that ran when the requirements are
/// inconsistent).
fn counts_text(o: &mut String, report: &reqs::AuditReport, s: &Summary) {
    if matches!(report.consistency, Consistency::Consistent) {
        let _ = writeln!(
            o,
            "findings: {} vacuous, {} redundant, {} implied by domain, {} conflict(s) for some inputs, {}{} unknown",
            s.vacuous, s.redundant, s.implied_by_domain, s.conflicts_for_some_inputs,
            if s.fixes_a_variable > 0 {
                format!("{} fix a variable, ", s.fixes_a_variable)
            } else {
                String::new()
            },
            s.unknown
        );
    } else {
        // Redundancy and vacuity under M did not run: no count of them.
        let _ = writeln!(
            o,
            "other findings: {} vacuous under the domain, {} implied by domain, {} unknown (redundancy and vacuity under the other requirements not checked, see below)",
            s.vacuous, s.implied_by_domain, s.unknown
        );
    }
}

/// The findings about one requirement, one line each: vacuity, violatability,
/// redundancy, fixed variables and the reviews recorded for them.
fn requirement_findings(
    spec: &Spec,
    report: &reqs::AuditReport,
    a: &RequirementAudit,
) -> Vec<String> {
    let mut lines = Vec::new();
    match &a.vacuity_domain {
        Vacuity::Vacuous { because, .. } => lines.push(format!(
            "{}: the trigger can never hold under the domain constraints ({})",
            paint(Paint::Bad, "vacuous"),
            ids_or(because, "it contradicts itself, whatever the domain")
        )),
        Vacuity::Unknown { reason } => lines.push(format!(
            "{} vacuity under the domain: {reason}",
            paint(Paint::Warn, "unknown")
        )),
        _ => {}
    }
    match &a.vacuity_model {
        Vacuity::Vacuous { .. } if vacuous_by_priority(report, a) => {
            for (k, partners) in env_conflicts_of(report, &a.id) {
                lines.push(format!(
                    "{}: whenever the environment makes its trigger hold, it clashes with {} (conflict for some inputs {k} above): decide which one takes priority",
                    paint(Paint::Bad, "conflict for some inputs"),
                    ids(&partners)
                ));
            }
        }
        Vacuity::Vacuous {
            because,
            response_conflict,
        } => {
            let why = if *response_conflict {
                format!(
                    ": whenever its trigger holds, its response contradicts {}",
                    ids_or(because, "the trigger itself")
                )
            } else {
                format!(
                    " because of {}",
                    ids_or(because, "its own trigger, which cannot hold")
                )
            };
            lines.push(format!(
                "{}: {} can never fire{why}",
                paint(Paint::Bad, "vacuous"),
                a.id
            ));
            cause_notes(&mut lines, report, "vacuous", &a.id);
        }
        Vacuity::Unknown { reason } => lines.push(format!(
            "{} vacuity under the other requirements: {reason}",
            paint(Paint::Warn, "unknown")
        )),
        _ => {}
    }
    match &a.violatability {
        Violatability::ImpliedByDomain { because } if because.is_empty() => lines.push(format!(
            "{}: no state breaks it: the formula holds in every state on its own, so it constrains nothing",
            paint(Paint::Bad, "implied by domain"),
        )),
        Violatability::ImpliedByDomain { because } => lines.push(format!(
            "{}: no state of the domain breaks it (already enforced by {})",
            paint(Paint::Bad, "implied by domain"),
            ids(because)
        )),
        Violatability::Unknown { reason } => lines.push(format!(
            "{} violatability: {reason}",
            paint(Paint::Warn, "unknown")
        )),
        Violatability::Violatable { .. } => {}
    }
    match &a.redundancy {
        Redundancy::Redundant { subsumed_by } if subsumed_by.is_empty() => lines.push(format!(
            "{}: the formula holds in every state on its own, so nothing else is needed to enforce it",
            paint(Paint::Bad, "redundant"),
        )),
        Redundancy::Redundant { subsumed_by } => {
            lines.push(format!(
                "{}: already enforced by {}",
                paint(Paint::Bad, "redundant"),
                ids(subsumed_by)
            ));
            cause_notes(&mut lines, report, "redundant", &a.id);
        }
        Redundancy::Unknown { reason } => lines.push(format!(
            "{} redundancy: {reason}",
            paint(Paint::Warn, "unknown")
        )),
        _ => {}
    }
    fixes_lines(&mut lines, report, a);
    review_lines(&mut lines, spec, a);
    lines
}

/// The variables a requirement's formula fixes in every state, with the findings they
/// likely cause.
fn fixes_lines(lines: &mut Vec<String>, report: &reqs::AuditReport, a: &RequirementAudit) {
    for f in a.fixes.iter().filter(|f| f.kind.is_finding()) {
        lines.push(format!(
            "{}: its formula fixes {} = {}{} in every state, though {}: check the formula against the text (a condition written as an invariant fixes what it tests)",
            paint(Paint::Bad, "fixes a variable"),
            f.variable,
            f.value,
            f.unit.as_deref().map(|u| format!(" {u}")).unwrap_or_default(),
            f.kind.why()
        ));
        let hurt: Vec<&str> = report
            .causes
            .iter()
            .filter(|c| c.forced.requirement == a.id && c.forced.variable == f.variable)
            .map(|c| c.of.as_str())
            .collect();
        if !hurt.is_empty() {
            let mut hurt = hurt;
            hurt.sort_unstable();
            hurt.dedup();
            lines.push(format!(
                "  it is the likely cause of the findings about {}",
                hurt.join(", ")
            ));
        }
    }
    if a.fixes_unknown {
        lines.push(format!(
            "{} whether it fixes a variable in every state",
            paint(Paint::Warn, "unknown")
        ));
    }
}

/// The reviews recorded for the findings a requirement has (the finding stays one).
fn review_lines(lines: &mut Vec<String>, spec: &Spec, a: &RequirementAudit) {
    // A person's review of a finding (`[[reviews]]`) is shown under it; the finding
    // stays a finding.
    let found = [
        (
            "redundant",
            matches!(a.redundancy, Redundancy::Redundant { .. }),
        ),
        (
            "vacuous",
            matches!(a.vacuity_domain, Vacuity::Vacuous { .. })
                || matches!(a.vacuity_model, Vacuity::Vacuous { .. }),
        ),
        (
            "not-violatable",
            matches!(a.violatability, Violatability::ImpliedByDomain { .. }),
        ),
    ];
    for r in spec.reviews.iter().filter(|r| r.requirement == a.id) {
        if found.iter().any(|(f, on)| *on && *f == r.finding) {
            lines.push(format!(
                "  reviewed ({}) by {} on {}: {}",
                r.finding,
                clean(&r.reviewed_by),
                clean(&r.date),
                clean(&r.reason)
            ));
        }
    }
}

/// The end of the report: what was not formalized, why checks did not run, and how
/// many requirements have no finding.
fn closing_text(o: &mut String, report: &reqs::AuditReport, cached: bool) {
    if !report.not_formalized.is_empty() {
        let _ = writeln!(
            o,
            "\nnot formalized (not audited): {}",
            ids(&report.not_formalized)
        );
    }
    match report.consistency {
        Consistency::Consistent => {}
        Consistency::Unknown { .. } => {
            let _ = writeln!(
                o,
                "\nvacuity under the other requirements and redundancy are unknown: they need the consistency check, which had no answer"
            );
        }
        _ => {
            let _ = writeln!(
                o,
                "\nvacuity under the other requirements and redundancy are not checked while the requirements are inconsistent"
            );
        }
    }
    let in_env_conflict = |id: &str| match (&report.realizability, &report.consistency) {
        (Realizability::Unrealizable { conflicts, .. }, _) => conflicts
            .iter()
            .any(|c| c.requirements.iter().any(|r| r == id)),
        (_, Consistency::Inconsistent { conflicts, .. }) => {
            conflicts.iter().any(|c| c.iter().any(|r| r == id))
        }
        _ => false,
    };
    let ok = report
        .requirements
        .iter()
        .filter(|a| !a.has_findings() && !in_env_conflict(&a.id))
        .count();
    let reused = if cached {
        format!(
            "{} of {} checks reused from the cache, ",
            report.reused, report.checks
        )
    } else {
        String::new()
    };
    let _ = if matches!(report.consistency, Consistency::Consistent) {
        writeln!(
            o,
            "\n{ok} of {} formalized requirements have no findings ({reused}{} solver queries)",
            report.requirements.len(),
            report.queries
        )
    } else {
        writeln!(
            o,
            "\n{ok} of {} formalized requirements are in no conflict and have no finding among the checks that ran ({reused}{} solver queries)",
            report.requirements.len(),
            report.queries
        )
    };
}

/// The terminal report: summary first, then findings by requirement.
pub fn human_audit(
    file: &str,
    spec: &Spec,
    report: &reqs::AuditReport,
    s: &Summary,
    witnesses: bool,
    cached: bool,
) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{} ({})", clean(&spec.name), clean(file));
    let _ = writeln!(
        o,
        "{} requirements ({} formalized) over {} variables, {} domain constraints",
        s.requirements, s.formalized, s.variables, s.domain_constraints
    );
    let text_of = |id: &str| {
        spec.requirements
            .iter()
            .find(|r| r.id == id)
            .map(|r| excerpt(&r.text, 90))
            .or_else(|| {
                spec.domain
                    .iter()
                    .find(|d| d.id == id)
                    .and_then(|d| d.text.as_deref().map(|t| excerpt(t, 90)))
            })
            .unwrap_or_default()
    };
    // Conflicts come before anything that reads like a verdict.
    let env_conflicts = matches!(report.realizability, Realizability::Unrealizable { .. });
    if env_conflicts {
        human_realizability(&mut o, &report.realizability, &text_of);
    }
    if !consistency_text(&mut o, report, env_conflicts, &text_of) {
        return o;
    }
    if !env_conflicts {
        human_realizability(&mut o, &report.realizability, &text_of);
    }
    counts_text(&mut o, report, s);
    for a in &report.requirements {
        let req = spec
            .requirements
            .iter()
            .find(|r| r.id == a.id)
            .expect("audited requirements exist");
        let lines = requirement_findings(spec, report, a);
        let show_witness = witnesses && matches!(a.violatability, Violatability::Violatable { .. });
        if lines.is_empty() && !show_witness {
            continue;
        }
        let _ = writeln!(
            o,
            "\n{} (line {}, {})",
            paint(Paint::Id, &a.id),
            a.line,
            a.kind
        );
        let _ = writeln!(o, "  \"{}\"", excerpt(&req.text, 100));
        for l in &lines {
            let _ = writeln!(o, "  {l}");
        }
        if let (true, Violatability::Violatable { witness }) = (show_witness, &a.violatability) {
            let _ = writeln!(o, "  violated in this state of the domain:");
            witness_text(&mut o, witness, "    ");
        }
    }
    closing_text(&mut o, report, cached);
    o
}

/// What to say of a file of another format (`reqs::input::Foreign`) given where a spec
/// is expected: how `vera extract` reads it, and the spec to give instead.
pub fn not_a_spec_hint(path: &std::path::Path, kind: reqs::input::Foreign) -> String {
    use reqs::input::Foreign;
    let shown = clean(&path.display().to_string());
    let toml = clean(&path.with_extension("toml").display().to_string());
    match kind {
        Foreign::Req => {
            let from = if path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("req"))
            {
                ""
            } else {
                " --from req"
            };
            format!(
                "{shown} is an Ultimate/Hanfor requirements file (.req), not a vera spec: import it with `vera extract {shown}{from} -o {toml}` (a timed spec, docs/extract.md), then give {toml}"
            )
        }
        Foreign::Fret => format!(
            "{shown} is not a vera spec (those are TOML): a FRET export is imported with `vera extract {shown} --timed -o {toml}` (its FRETish sentences as timed requirements) or listed with `vera extract {shown} -o {toml}`; then give {toml}"
        ),
        Foreign::Document => format!(
            "{shown} is not a vera spec (those are TOML): `vera extract {shown} -o {toml}` lists its requirements as a spec to formalize; then give {toml}"
        ),
    }
}
