//! The reports of the commands that ask a model: `equiv`, `formalize`, `ambiguity`,
//! `clarify` (plain and timed), `consistency --nl-text` and `draft-variables`. Each JSON
//! payload carries what was read and written, the command's report, the model's
//! accounting and the wall time.

use crate::text::{clean, excerpt, paint, Paint};
use crate::Rendered;
use pipeline::ambiguity::{AmbiguityReport, Screening};
use report::Status;
use reqs::equiv::Partition;
use std::fmt::Write as _;
use std::path::Path;

fn render_partition(o: &mut String, p: &Partition) {
    let m = &p.metrics;
    let _ = writeln!(
        o,
        "  {} candidates, {} classes; pairwise agreement {:.1}%, entropy {:.2} bits, confidence {:.2}",
        m.candidates,
        m.classes,
        100.0 * m.pairwise_agreement,
        m.entropy,
        m.confidence
    );
    for c in &p.classes {
        let members: Vec<String> = c.members.iter().map(|i| format!("#{}", i + 1)).collect();
        let _ = writeln!(
            o,
            "  reading {} ({}): {}",
            paint(Paint::Id, &c.label),
            members.join(" "),
            c.formula
        );
    }
    // Every pair of readings, with the states that tell them apart.
    for s in &p.separations {
        let (a, b) = (&p.classes[s.a].label, &p.classes[s.b].label);
        let _ = writeln!(o, "  {a} vs {b}:");
        if s.only_a.is_none() && s.only_b.is_none() {
            let _ = writeln!(
                o,
                "    no distinguishing state found (the solver could not decide)"
            );
        }
        for (yes, no, d) in [(a, b, &s.only_a), (b, a, &s.only_b)] {
            if let Some(d) = d {
                let _ = writeln!(
                    o,
                    "    - a state {yes} allows and {no} rules out: {}",
                    d.explanation
                );
            }
        }
    }
    for (i, j) in &p.undecided {
        let _ = writeln!(o, "  undecided: #{} and #{} (solver unknown)", i + 1, j + 1);
    }
}

/// The report of `vera equiv` on the spec `file`: each set of candidates with its
/// partition into readings; more than one reading in a set is a finding.
pub fn equiv_report(
    file: String,
    results: Vec<(String, Partition)>,
    queries: usize,
) -> Rendered<EquivJson> {
    let any_split = results.iter().any(|(_, p)| p.metrics.classes > 1);
    let mut o = String::new();
    for (id, p) in &results {
        let _ = writeln!(o, "{}", paint(Paint::Id, id));
        render_partition(&mut o, p);
    }
    let status = if any_split {
        Status::Findings
    } else {
        Status::Ok
    };
    Rendered::new(
        "vera.equiv.v1",
        status,
        o,
        EquivJson {
            schema: "vera.equiv.v1",
            file,
            sets: results
                .into_iter()
                .map(|(id, partition)| EquivSet { id, partition })
                .collect(),
            queries,
        },
    )
}

/// `vera.equiv.v1`.
#[derive(serde::Serialize)]
pub struct EquivJson {
    schema: &'static str,
    file: String,
    sets: Vec<EquivSet>,
    queries: usize,
}

/// One set of candidates and its partition into readings.
#[derive(serde::Serialize)]
pub struct EquivSet {
    id: String,
    partition: Partition,
}

/// The JSON payload of the LLM commands: `schema`, what was read and written, the
/// command's own report, the LLM accounting (`llm`) and the wall time.
#[derive(serde::Serialize)]
pub struct LlmJson<T: serde::Serialize> {
    schema: &'static str,
    #[serde(flatten)]
    files: serde_json::Map<String, serde_json::Value>,
    #[serde(flatten)]
    body: T,
    llm: llm::Accounting,
    seconds: f64,
}

/// The named files of an LLM command's payload.
pub fn files(pairs: &[(&str, &Path)]) -> serde_json::Map<String, serde_json::Value> {
    pairs
        .iter()
        .map(|(k, p)| {
            (
                k.to_string(),
                serde_json::Value::from(p.display().to_string()),
            )
        })
        .collect()
}

/// The payload body `{"report": ...}`.
#[derive(serde::Serialize)]
pub struct ReportBody<T: serde::Serialize> {
    report: T,
}

/// What `vera formalize` was asked and what it wrote, for its report.
pub struct FormalizeRun<'a> {
    /// SMT-LIB answers only (`--smtlib`).
    pub smtlib: bool,
    /// The share of agreeing forms the vote needs (`--agreement`).
    pub agreement: f64,
    /// All requirements in one request (`--batch`).
    pub batch: bool,
    /// The input and output files, for the JSON payload.
    pub files: serde_json::Map<String, serde_json::Value>,
    /// The spec written.
    pub out: &'a Path,
    /// The model's accounting.
    pub llm: llm::Accounting,
    /// Wall time.
    pub seconds: f64,
}

/// The report of `vera formalize`: one line per requirement (its formula and the path
/// that made it, its readings when flagged, its last error when failed). A run that
/// stopped asking the model is an error; a requirement failed or flagged is a finding.
pub fn formalize_report(
    spec: &reqs::Spec,
    report: pipeline::formalize::FormalizeReport,
    run: &FormalizeRun,
) -> Rendered<LlmJson<ReportBody<pipeline::formalize::FormalizeReport>>> {
    let mut o = String::new();
    for f in &report.requirements {
        let shown = f.formula.clone().or_else(|| {
            let tb = spec.time.as_ref()?;
            f.timed
                .as_ref()
                .map(|p| format!("[timed] {}", p.describe(tb)))
        });
        let how = match (f.path, &f.vote) {
            (Some(pipeline::formpath::Path::Form), Some(v)) => {
                format!(" [form, {} of {} agree]", v.agreeing, v.valid)
            }
            (Some(pipeline::formpath::Path::Parser), _) => " [parsed, no model]".to_string(),
            (Some(pipeline::formpath::Path::Smtlib), _) if run.smtlib => String::new(),
            (Some(pipeline::formpath::Path::Smtlib), _) => " [SMT-LIB fallback]".to_string(),
            _ => String::new(),
        };
        match (&shown, &f.vote) {
            (Some(t), _) => {
                let _ = writeln!(
                    o,
                    "{} {}{how}  {}",
                    paint(Paint::Good, "ok"),
                    paint(Paint::Id, &f.id),
                    t
                );
                if let Some(r) = &f.reads {
                    let _ = writeln!(o, "    reads: {}", clean(r));
                }
            }
            (None, Some(v)) if f.flagged => {
                let _ = writeln!(
                    o,
                    "{} {}  the forms disagree: {} of {} valid answers agree (below --agreement {}); no formula written",
                    paint(Paint::Warn, "review"),
                    paint(Paint::Id, &f.id),
                    v.agreeing,
                    v.valid,
                    run.agreement
                );
                for (k, r) in v.readings.iter().enumerate() {
                    let _ = writeln!(
                        o,
                        "    reading {} ({} of {}): {}",
                        reqs::equiv::label(k),
                        r.count,
                        v.valid,
                        r.formula
                    );
                }
            }
            (None, _) => {
                let e = f
                    .attempts
                    .last()
                    .and_then(|x| x.error.clone())
                    .unwrap_or_default();
                let _ = writeln!(
                    o,
                    "{} {}  {}",
                    paint(Paint::Bad, "failed"),
                    paint(Paint::Id, &f.id),
                    excerpt(&e, 100)
                );
            }
        }
        let rejected = f.attempts.iter().filter(|x| x.error.is_some()).count();
        if rejected > 0 {
            let _ = writeln!(
                o,
                "    {} answer(s) of {} rejected and repaired",
                rejected,
                f.attempts.len()
            );
        }
    }
    let _ = writeln!(
        o,
        "\n{} requirements: {} on the first attempt, {} after repair, {} flagged for review, {} failed; wrote {} ({:.1} s)",
        report.requirements.len(),
        report.first_attempt,
        report.after_repair,
        report.flagged.len(),
        report.failed.len(),
        run.out.display(),
        run.seconds
    );
    let p = &report.by_path;
    if !run.smtlib && !run.batch && p.parser + p.form + p.smtlib > 0 {
        let _ = writeln!(
            o,
            "formulas by path: {} parsed without a model, {} by voted forms, {} by SMT-LIB fallback",
            p.parser, p.form, p.smtlib
        );
    }
    if !report.flagged.is_empty() {
        let _ = writeln!(
            o,
            "flagged for review (no formula; the readings are in the new spec's comments): {}",
            report.flagged.join(", ")
        );
    }
    if !report.failed.is_empty() {
        let _ = writeln!(o, "not formalized: {}", report.failed.join(", "));
    }
    if !report.kept.is_empty() {
        let _ = writeln!(
            o,
            "kept as written ({} already had a formula; --reformalize IDS to ask again)",
            report.kept.len()
        );
    }
    let status = Status::of(
        report.halted.is_some(),
        !report.failed.is_empty() || !report.flagged.is_empty(),
    );
    Rendered::new(
        "vera.formalize.v1",
        status,
        o,
        LlmJson {
            schema: "vera.formalize.v1",
            files: run.files.clone(),
            body: ReportBody { report },
            llm: run.llm.clone(),
            seconds: run.seconds,
        },
    )
}

/// The bars of an ambiguity page: requirements by number of readings (plain and timed
/// screenings alike), out of `total` requirements.
fn reading_bars<I: IntoIterator<Item = (String, usize)>>(
    by_classes: I,
    total: usize,
) -> Vec<report::html::Bar> {
    use report::html::{Bar, Tone};
    let total = total.max(1) as f64;
    by_classes
        .into_iter()
        .map(|(label, n)| Bar {
            tone: if label == "1 reading" {
                Tone::Good
            } else if label == "not screened" {
                Tone::Bad
            } else {
                Tone::Warn
            },
            label,
            value: n as f64,
            max: total,
        })
        .collect()
}

/// The first lines of a screened requirement: its status, and how many samples were
/// invalid (plain and timed screenings alike).
fn screening_header(
    o: &mut String,
    (id, text): (&str, &str),
    (flagged, could_not_screen): (bool, bool),
    (valid, samples): (usize, usize),
) {
    let status = if flagged {
        paint(Paint::Bad, "ambiguity-sensitive")
    } else if could_not_screen {
        paint(
            Paint::Warn,
            &format!(
                "could not screen ({valid} valid sample{}; two are needed)",
                if valid == 1 { "" } else { "s" }
            ),
        )
    } else {
        paint(Paint::Good, "one reading")
    };
    let _ = writeln!(
        o,
        "{} {status}  {}",
        paint(Paint::Id, id),
        excerpt(text, 90)
    );
    if valid < samples {
        let _ = writeln!(o, "  {} of {samples} samples invalid", samples - valid);
    }
}

fn render_screening(o: &mut String, s: &Screening) {
    screening_header(
        o,
        (&s.id, &s.text),
        (s.flagged, s.could_not_screen),
        (s.valid, s.samples.len()),
    );
    if s.flagged {
        if let Some(p) = &s.partition {
            render_partition(o, p);
        }
    } else if let Some(f) = s.samples.iter().find_map(|x| x.formula.as_deref()) {
        let _ = writeln!(o, "  reading: {}", excerpt(f, 110));
    }
}

fn render_summary(o: &mut String, s: &pipeline::ambiguity::Summary) {
    let _ = writeln!(
        o,
        "{} of {} requirements ambiguity-sensitive, {} could not be screened; pairwise agreement {}; mean distinct encodings {:.2}; {} invalid samples",
        s.flagged,
        s.requirements,
        s.could_not_screen,
        s.pairwise_agreement
            .map_or("n/a (no two valid samples)".to_string(), |a| format!("{:.1}%", 100.0 * a)),
        s.mean_distinct_encodings,
        s.invalid_samples
    );
}

/// The report of `vera ambiguity` on the spec at `spec_path`: each screened requirement
/// with its readings, the summary and the page. A requirement that could not be screened
/// (fewer than two valid samples) is an error, never a pass; a flagged one a finding.
pub fn ambiguity_report(
    spec_path: &Path,
    rep: AmbiguityReport,
    llm: llm::Accounting,
    seconds: f64,
) -> Rendered<LlmJson<ReportBody<AmbiguityReport>>> {
    let mut o = String::new();
    for s in &rep.requirements {
        render_screening(&mut o, s);
    }
    o.push('\n');
    render_summary(&mut o, &rep.summary);
    let _ = writeln!(o, "({seconds:.1} s)");
    let status = if rep.summary.could_not_screen > 0 {
        // A requirement without two valid samples was not screened: not a pass.
        Status::Error
    } else if rep.summary.flagged > 0 {
        Status::Findings
    } else {
        Status::Ok
    };
    let page = ambiguity_page(spec_path, &rep, seconds);
    let mut r = Rendered::new(
        "vera.ambiguity.v1",
        status,
        o,
        LlmJson {
            schema: "vera.ambiguity.v1",
            files: files(&[("file", spec_path)]),
            body: ReportBody { report: rep },
            llm,
            seconds,
        },
    );
    r.page = Some(page);
    r
}

fn render_timed_screening(o: &mut String, s: &pipeline::timed::TimedScreening) {
    screening_header(
        o,
        (&s.id, &s.text),
        (s.flagged, s.could_not_screen),
        (s.valid, s.samples.len()),
    );
    // No valid sample at all: the first error says why.
    if s.valid == 0 && !s.samples.is_empty() {
        if let Some(e) = s.samples.iter().find_map(|x| x.error.as_deref()) {
            let _ = writeln!(o, "  first error: {}", excerpt(e, 110));
        }
    }
    if s.flagged {
        for c in &s.classes {
            let _ = writeln!(
                o,
                "  reading {} ({} of {} samples): {}",
                c.label,
                c.members.len(),
                s.valid,
                c.reading
            );
        }
        for q in &s.questions {
            let _ = writeln!(
                o,
                "  question ({} vs {}; {}):",
                q.between[0],
                q.between[1],
                q.kinds.join(", ")
            );
            for line in q.question.lines() {
                let _ = writeln!(o, "    {line}");
            }
        }
        for [a, b] in &s.undecided {
            let _ = writeln!(
                o,
                "  readings {a} and {b}: the solver could not compare them (kept apart)"
            );
        }
    } else if let Some(c) = s.classes.first() {
        let _ = writeln!(o, "  reading: {}", excerpt(&c.reading, 110));
    }
}

/// The report of `vera ambiguity` on a timed spec: samples of timed patterns grouped by
/// trace equivalence, with the questions that tell the readings apart.
pub fn ambiguity_timed_report(
    spec_path: &Path,
    rep: pipeline::timed::TimedAmbiguityReport,
    llm: llm::Accounting,
    seconds: f64,
) -> Rendered<LlmJson<ReportBody<pipeline::timed::TimedAmbiguityReport>>> {
    let mut o = String::new();
    for s in &rep.requirements {
        render_timed_screening(&mut o, s);
    }
    let s = &rep.summary;
    let _ = writeln!(
        o,
        "\n{} of {} timed requirements ambiguity-sensitive (readings compared on traces), {} could not be screened; {} invalid samples; {} pair(s) of readings undecided\n({seconds:.1} s)",
        s.flagged, s.requirements, s.could_not_screen, s.invalid_samples, s.undecided
    );
    let status = Status::of(s.could_not_screen > 0 || s.undecided > 0, s.flagged > 0);
    let page = ambiguity_timed_page(spec_path, &rep, seconds);
    let mut r = Rendered::new(
        "vera.ambiguity-timed.v1",
        status,
        o,
        LlmJson {
            schema: "vera.ambiguity-timed.v1",
            files: files(&[("file", spec_path)]),
            body: ReportBody { report: rep },
            llm,
            seconds,
        },
    );
    r.page = Some(page);
    r
}

/// One screened requirement on an ambiguity page: how many readings it has (`None`: not
/// screened), and when flagged, its id, text and readings as terminal text.
struct PageItem {
    classes: Option<usize>,
    flagged: Option<(String, String, String)>,
}

/// An ambiguity page (plain and timed screenings alike): requirements by number of
/// readings as bars, then each flagged requirement with its readings.
fn readings_page(
    title: String,
    seconds: f64,
    counts: Vec<report::html::Count>,
    (bars_heading, caption, items_heading): (&str, &str, &str),
    items: Vec<PageItem>,
) -> report::html::Page {
    use report::html::{Block, Page, Section, Tone};
    let mut by_classes: std::collections::BTreeMap<String, usize> = Default::default();
    for i in &items {
        let key = match i.classes {
            None => "not screened".to_string(),
            Some(1) => "1 reading".to_string(),
            Some(n) => format!("{n} readings"),
        };
        *by_classes.entry(key).or_default() += 1;
    }
    let bars = reading_bars(by_classes, items.len());
    let blocks = items
        .into_iter()
        .filter_map(|i| i.flagged)
        .map(|(id, text, o)| Block::Item {
            title: id,
            badge: "ambiguity-sensitive".into(),
            tone: Tone::Warn,
            blocks: vec![Block::Text(text), Block::Code(o)],
        })
        .collect();
    Page {
        title,
        subtitle: Some(format!("{seconds:.1} s")),
        counts,
        sections: vec![
            Section {
                heading: bars_heading.into(),
                blocks: vec![Block::Bars {
                    caption: caption.into(),
                    bars,
                }],
            },
            Section {
                heading: items_heading.into(),
                blocks,
            },
        ],
    }
}

/// The timed ambiguity page: flagged requirements with their readings and questions.
fn ambiguity_timed_page(
    spec_path: &Path,
    rep: &pipeline::timed::TimedAmbiguityReport,
    seconds: f64,
) -> report::html::Page {
    use report::html::{Count, Tone};
    let s = &rep.summary;
    let items = rep
        .requirements
        .iter()
        .map(|r| PageItem {
            classes: (!r.could_not_screen).then_some(r.classes.len()),
            flagged: r.flagged.then(|| {
                let mut o = String::new();
                render_timed_screening(&mut o, r);
                (r.id.clone(), r.text.clone(), o)
            }),
        })
        .collect();
    readings_page(
        format!("vera ambiguity (timed): {}", spec_path.display()),
        seconds,
        vec![
            Count::neutral("requirements", s.requirements),
            Count::findings("ambiguity-sensitive", s.flagged, Tone::Warn),
            Count::findings("not screened", s.could_not_screen, Tone::Bad),
            Count::findings("undecided pairs", s.undecided, Tone::Bad),
        ],
        (
            "Readings over time",
            "Timed requirements by number of readings that differ on some trace",
            "Ambiguity-sensitive requirements, with the questions of time",
        ),
        items,
    )
}

/// The ambiguity page: flagged requirements with their readings.
fn ambiguity_page(spec_path: &Path, rep: &AmbiguityReport, seconds: f64) -> report::html::Page {
    use report::html::{Count, Tone};
    let s = &rep.summary;
    let items = rep
        .requirements
        .iter()
        .map(|r| PageItem {
            classes: r.partition.as_ref().map(|p| p.metrics.classes),
            flagged: r.flagged.then(|| {
                let mut o = String::new();
                if let Some(p) = &r.partition {
                    render_partition(&mut o, p);
                }
                (r.id.clone(), r.text.clone(), o)
            }),
        })
        .collect();
    readings_page(
        format!("vera ambiguity: {}", spec_path.display()),
        seconds,
        vec![
            Count::neutral("requirements", s.requirements),
            Count::findings("ambiguity-sensitive", s.flagged, Tone::Warn),
            Count::findings("not screened", s.could_not_screen, Tone::Bad),
        ],
        (
            "Ambiguity classes",
            "Requirements by number of distinct readings among the samples",
            "Ambiguity-sensitive requirements",
        ),
        items,
    )
}

/// The exit status of a clarification run: every flagged requirement converged (or none
/// was flagged) is a pass; some not, a finding; none, an error (nothing to apply).
fn clarify_status(proposals: &[pipeline::clarify::Proposal]) -> Status {
    match pipeline::clarify::convergence(proposals) {
        pipeline::clarify::Convergence::All => Status::Ok,
        pipeline::clarify::Convergence::Some => Status::Findings,
        pipeline::clarify::Convergence::None => Status::Error,
    }
}

/// One proposal of a clarification run: its outcome, the text before and after, the
/// rewrites rejected on the way (`rejected`) and why it did not converge.
fn proposal_lines(o: &mut String, p: &pipeline::clarify::Proposal, rejected: bool) {
    let status = if p.converged {
        paint(Paint::Good, "converged")
    } else {
        paint(Paint::Warn, "not converged")
    };
    let _ = writeln!(
        o,
        "{} {status} after {} round(s): {} -> {} readings",
        paint(Paint::Id, &p.id),
        p.rounds,
        p.classes_before,
        p.classes_after
    );
    let _ = writeln!(o, "  was: {}", p.original);
    if p.converged {
        let _ = writeln!(o, "  now: {}", p.clarified);
    } else if p.clarified != p.original {
        let _ = writeln!(o, "  last screened rewrite: {}", p.clarified);
    }
    if rejected {
        for r in p.history.iter().filter(|r| r.rejected.is_some()) {
            let _ = writeln!(
                o,
                "  rejected: {} ({})",
                excerpt(&r.text, 100),
                r.rejected.as_deref().unwrap_or_default()
            );
        }
    }
    if let Some(n) = &p.note {
        let _ = writeln!(o, "  why: {n}");
    }
}

/// The report of `vera clarify` on the spec at `spec_path`, whose proposals went to `out`.
pub fn clarify_report(
    spec_path: &Path,
    out: &Path,
    rep: pipeline::clarify::ClarifyReport,
    llm: llm::Accounting,
    seconds: f64,
) -> Rendered<LlmJson<ReportBody<pipeline::clarify::ClarifyReport>>> {
    let converged = rep.proposals.iter().filter(|p| p.converged).count();
    let code = clarify_status(&rep.proposals);
    let mut o = String::new();
    for p in &rep.proposals {
        proposal_lines(&mut o, p, true);
    }
    let rejected = |what: &str| {
        rep.proposals
            .iter()
            .flat_map(|p| &p.history)
            .filter(|r| r.rejected.as_deref().is_some_and(|x| x.starts_with(what)))
            .count()
    };
    let _ = writeln!(
        o,
        "\nconverged: {converged} of {} flagged requirement(s){}; rewrites rejected: {} meta-answer(s), {} failed to formalize, {} unchanged, {} empty",
        rep.proposals.len(),
        if converged == 0 && !rep.proposals.is_empty() {
            " (nothing converged: no proposal to apply)"
        } else {
            ""
        },
        rejected("meta-answer"),
        rejected("failed"),
        rejected("the text is unchanged"),
        rejected("the answer was empty"),
    );
    let s = &rep.stats;
    o.push_str("\nbefore: ");
    render_summary(&mut o, &s.before);
    o.push_str("after:  ");
    render_summary(&mut o, &s.after);
    let _ = writeln!(
        o,
        "flagged per round: {:?}\nwrote {} ({seconds:.1} s); apply with `vera clarify {} --apply {}`",
        s.flagged_per_round,
        out.display(),
        spec_path.display(),
        out.display()
    );
    Rendered::new(
        "vera.clarify-run.v1",
        code,
        o,
        LlmJson {
            schema: "vera.clarify-run.v1",
            files: files(&[("file", spec_path), ("proposals_file", out)]),
            body: ReportBody { report: rep },
            llm,
            seconds,
        },
    )
}

/// The report of `vera clarify --apply PROPOSALS`: the proposals `applied`, and the spec
/// written (none when no proposal was accepted).
pub fn apply_report(
    proposals: &Path,
    applied: Vec<String>,
    output: Option<&Path>,
) -> Rendered<ApplyJson> {
    let text = match output {
        Some(out) => format!(
            "applied {} accepted proposal(s) ({}); wrote {}\n",
            applied.len(),
            applied.join(", "),
            out.display()
        ),
        None => String::new(),
    };
    Rendered::new(
        "vera.clarify-apply.v1",
        Status::Ok,
        text,
        ApplyJson {
            schema: "vera.clarify-apply.v1",
            proposals: proposals.display().to_string(),
            applied,
            output: output.map(|o| o.display().to_string()),
        },
    )
}

/// The report of `vera clarify` on a timed spec, whose proposals went to `out`.
pub fn clarify_timed_report(
    spec_path: &Path,
    out: &Path,
    rep: pipeline::timed::TimedClarifyReport,
    llm: llm::Accounting,
    seconds: f64,
) -> Rendered<LlmJson<ReportBody<pipeline::timed::TimedClarifyReport>>> {
    let converged = rep.proposals.iter().filter(|p| p.converged).count();
    let code = clarify_status(&rep.proposals);
    let mut o = String::new();
    for s in rep.screening.requirements.iter().filter(|s| s.flagged) {
        render_timed_screening(&mut o, s);
    }
    for p in &rep.proposals {
        proposal_lines(&mut o, p, false);
    }
    let _ = writeln!(
        o,
        "\nconverged: {converged} of {} flagged timed requirement(s); flagged per round: {:?}\nwrote {} ({seconds:.1} s); apply with `vera clarify {} --apply {}`",
        rep.proposals.len(),
        rep.flagged_per_round,
        out.display(),
        spec_path.display(),
        out.display()
    );
    Rendered::new(
        "vera.clarify-run-timed.v1",
        code,
        o,
        LlmJson {
            schema: "vera.clarify-run-timed.v1",
            files: files(&[("file", spec_path), ("proposals_file", out)]),
            body: ReportBody { report: rep },
            llm,
            seconds,
        },
    )
}

/// `vera.clarify-apply.v1`.
#[derive(serde::Serialize)]
pub struct ApplyJson {
    schema: &'static str,
    proposals: String,
    applied: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<String>,
}

/// The report of `vera consistency --nl-text`: the vote over the rule's translations,
/// then the check of the accepted one against the implementation. No check (the vote
/// rejected every translation) or a check that did not decide is an error.
pub fn consistency_nl_report(
    files: serde_json::Map<String, serde_json::Value>,
    checked: pipeline::voting::TextCheck,
    llm: llm::Accounting,
    seconds: f64,
) -> Rendered<LlmJson<pipeline::voting::TextCheck>> {
    let (v, report) = (&checked.vote, &checked.report);
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} translations, confidence {:.2} (θ = {:.2}): {}",
        v.translations.len(),
        v.confidence,
        v.theta,
        if v.accepted {
            paint(Paint::Good, "accepted")
        } else {
            paint(Paint::Bad, "rejected")
        }
    );
    for t in &v.translations {
        let _ = writeln!(
            o,
            "  #{} class {} ({} answer{})",
            t.index + 1,
            t.class.as_deref().unwrap_or("-"),
            t.attempts,
            if t.attempts == 1 { "" } else { "s" }
        );
        for d in &t.diagnostics {
            let _ = writeln!(o, "    {:?}: {}", d.category, excerpt(&d.message, 120));
        }
    }
    if let Some(r) = report {
        o.push('\n');
        o.push_str(&crate::bl::render_check(r));
    }
    let status = match report {
        None => Status::Error,
        Some(r) => match r.verdict {
            bl::check::Verdict::Consistent => Status::Ok,
            bl::check::Verdict::Inconsistent => Status::Findings,
            _ => Status::Error,
        },
    };
    Rendered::new(
        "vera.consistency-nl.v1",
        status,
        o,
        LlmJson {
            schema: "vera.consistency-nl.v1",
            files,
            body: checked,
            llm,
            seconds,
        },
    )
}

/// The report of `vera draft-variables`: `text` is the draft itself, unless it went to
/// a file.
pub fn draft_report(
    files: serde_json::Map<String, serde_json::Value>,
    draft: pipeline::voting::Draft,
    text: String,
    llm: llm::Accounting,
    seconds: f64,
) -> Rendered<LlmJson<DraftBody>> {
    Rendered::new(
        "vera.draft-variables.v1",
        Status::Ok,
        text,
        LlmJson {
            schema: "vera.draft-variables.v1",
            files,
            body: DraftBody { draft },
            llm,
            seconds,
        },
    )
}

/// What `vera draft-variables` says on standard error about its draft (`out`: the file
/// it was written to, if any): the counts, each refused answer, and a reminder to
/// review it.
pub fn draft_notes(draft: &pipeline::voting::Draft, out: Option<&Path>) -> Vec<String> {
    let mut notes = vec![format!(
        "drafted {} variables in {} answer(s){}; names shared with the example: {}",
        draft.spec.variables.len(),
        draft.attempts,
        out.map(|o| format!(", written to {}", o.display()))
            .unwrap_or_default(),
        if draft.shared_names.is_empty() {
            "none".to_string()
        } else {
            draft.shared_names.join(", ")
        }
    )];
    for r in &draft.refused {
        notes.push(format!("  refused: {}", excerpt(r, 160)));
    }
    notes.push(
        "review the draft before using it: the descriptions decide how rules are formalized"
            .to_string(),
    );
    notes
}

/// The body of `vera.draft-variables.v1`.
#[derive(serde::Serialize)]
pub struct DraftBody {
    draft: pipeline::voting::Draft,
}

/// [`ambiguity_report`] or [`ambiguity_timed_report`], by the report's kind.
pub fn ambiguity_any_report(
    spec_path: &Path,
    rep: pipeline::timed::Either<AmbiguityReport, pipeline::timed::TimedAmbiguityReport>,
    llm: llm::Accounting,
    seconds: f64,
) -> Box<dyn report::Report> {
    use pipeline::timed::Either;
    match rep {
        Either::Plain(r) => Box::new(ambiguity_report(spec_path, r, llm, seconds)),
        Either::Timed(r) => Box::new(ambiguity_timed_report(spec_path, r, llm, seconds)),
    }
}

/// [`clarify_report`] or [`clarify_timed_report`], by the report's kind.
pub fn clarify_any_report(
    spec_path: &Path,
    out: &Path,
    rep: pipeline::timed::Either<
        pipeline::clarify::ClarifyReport,
        pipeline::timed::TimedClarifyReport,
    >,
    llm: llm::Accounting,
    seconds: f64,
) -> Box<dyn report::Report> {
    use pipeline::timed::Either;
    match rep {
        Either::Plain(r) => Box::new(clarify_report(spec_path, out, r, llm, seconds)),
        Either::Timed(r) => Box::new(clarify_timed_report(spec_path, out, r, llm, seconds)),
    }
}

/// The report of `vera clarify` on what it did, with the lines it says on standard
/// error besides: the notes of `--apply`, or the model's accounting.
pub fn clarified(
    spec: &Path,
    clarified: pipeline::command::Clarified,
) -> (Box<dyn report::Report>, Vec<String>) {
    use pipeline::command::Clarified as C;
    match clarified {
        C::Applied {
            proposals,
            changed,
            written,
            notes,
        } => {
            let written = written.as_deref();
            let report = apply_report(&proposals, changed, written);
            (Box::new(report), notes)
        }
        C::Restated {
            out,
            report,
            llm,
            seconds,
        } => {
            let line = crate::tables::accounting_line(&llm);
            let report = restate_report(spec, &out, *report, llm, seconds);
            (Box::new(report), vec![line])
        }
        C::Clarified {
            out,
            report,
            llm,
            seconds,
        } => {
            let line = crate::tables::accounting_line(&llm);
            let report = clarify_any_report(spec, &out, *report, llm, seconds);
            (report, vec![line])
        }
    }
}

/// The report of `vera clarify --controlled`: per requirement the rewrite, its formula
/// and read-back, or why no rewrite was taken; written to `out`. Exit status: 0 when
/// every requirement looked at reads as controlled English now or was restated, 1 when
/// some were not restated, 2 when none was (or the provider stopped the run).
pub fn restate_report(
    spec_path: &Path,
    out: &Path,
    rep: pipeline::restate::RestateFile,
    llm: llm::Accounting,
    seconds: f64,
) -> Rendered<LlmJson<ReportBody<pipeline::restate::RestateFile>>> {
    use pipeline::restate::RestateStatus as S;
    let mut o = String::new();
    for r in &rep.restatements {
        let tried = r.attempts.len();
        match r.status {
            S::Restated => {
                let _ = writeln!(
                    o,
                    "{} {} (answer {tried})\n  was:     {}\n  now:     {}\n  reads:   {}\n  formula: {}{}",
                    paint(Paint::Id, &r.id),
                    paint(Paint::Good, "restated"),
                    r.original,
                    r.text.as_deref().unwrap_or(""),
                    r.reads.as_deref().unwrap_or(""),
                    r.formula.as_deref().unwrap_or(""),
                    match r.same_as_spec {
                        Some(true) => "\n  equivalent to the spec's formula",
                        Some(false) => "\n  NOT equivalent to the spec's formula",
                        None => "",
                    }
                );
            }
            S::NotRestated => {
                let _ = writeln!(
                    o,
                    "{} {} after {tried} answer(s)\n  was:     {}",
                    paint(Paint::Id, &r.id),
                    paint(Paint::Warn, "not restated"),
                    r.original
                );
                for a in &r.attempts {
                    let _ = writeln!(
                        o,
                        "  - \"{}\": {}",
                        a.text,
                        a.refused.as_deref().unwrap_or("taken")
                    );
                }
            }
            S::Controlled => {
                let _ = writeln!(
                    o,
                    "{} controlled English already: nothing asked",
                    paint(Paint::Id, &r.id)
                );
            }
            S::NotAsked => {
                let _ = writeln!(o, "{} not asked", paint(Paint::Id, &r.id));
            }
        }
    }
    let [restated, not, controlled, not_asked] = rep.counts();
    let _ = writeln!(
        o,
        "\nrestated: {restated}, not restated: {not}, controlled already: {controlled}, not asked: {not_asked}"
    );
    if let Some(why) = &rep.halted {
        let _ = writeln!(o, "the run stopped asking: {why}");
    }
    let _ = writeln!(
        o,
        "wrote {} ({seconds:.1} s); nothing is accepted: compare each rewrite and its read-back with the original, set \"accepted\": true on those that say the same, then `vera clarify {} --apply {}`",
        out.display(),
        spec_path.display(),
        out.display()
    );
    let code = Status::of(rep.halted.is_some() || (restated == 0 && not > 0), not > 0);
    Rendered::new(
        "vera.restate-run.v1",
        code,
        o,
        LlmJson {
            schema: "vera.restate-run.v1",
            files: files(&[("file", spec_path), ("restatements_file", out)]),
            body: ReportBody { report: rep },
            llm,
            seconds,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::render_partition;

    const SPEC: &str = r#"
[[variables]]
name = "temp"
sort = "Real"
unit = "degC"
min = 20
max = 45

[[variables]]
name = "alarm"
sort = "Bool"
"#;

    /// Every reading is shown with its formula, and every pair of readings with a state
    /// that tells them apart, in the terminal report and in the JSON one.
    #[test]
    fn every_reading_has_its_formula_and_a_distinguishing_witness() {
        let spec = reqs::parse_spec(logic::SourceFile::new("t.toml", SPEC)).unwrap();
        let universe = reqs::equiv::Universe::of_spec(&spec);
        let config = solver::SolverConfig::new(solver::SolverKind::Z3);
        let mut checker = reqs::equiv::Checker::new(&universe, &config).unwrap();
        let readings = [
            "(=> (and (> temp 33) (< temp 40)) alarm)",
            "(=> (and (>= temp 33) (<= temp 40)) alarm)",
            "(=> (and (> temp 33) (<= temp 40)) alarm)",
            "(=> (and (> temp 33) (< temp 40)) alarm)",
        ];
        let terms: Vec<logic::Term> = readings
            .iter()
            .map(|r| spec.parse_formula("reading", r).unwrap())
            .collect();
        let p = checker.partition(&terms).unwrap();
        assert_eq!(p.classes.len(), 3);
        let mut o = String::new();
        render_partition(&mut o, &p);
        for c in &p.classes {
            assert!(
                o.contains(&format!("reading {} (", c.label)) && o.contains(&c.formula),
                "{o}"
            );
        }
        for pair in ["A vs B:", "A vs C:", "B vs C:"] {
            let at = o.find(pair).unwrap_or_else(|| panic!("{pair}\n{o}"));
            let next = o[at..].lines().nth(1).unwrap();
            assert!(
                next.trim_start().starts_with("- a state ") && next.contains("temp = "),
                "{pair}: {next}\n{o}"
            );
        }
        // JSON: classes with their formulas, separations with witnesses.
        let j = serde_json::to_value(&p).unwrap();
        assert_eq!(j["classes"].as_array().unwrap().len(), 3);
        for c in j["classes"].as_array().unwrap() {
            assert!(c["formula"].as_str().unwrap().contains("temp"));
        }
        let seps = j["separations"].as_array().unwrap();
        assert_eq!(seps.len(), 3);
        for s in seps {
            let w = s.get("only_a").or(s.get("only_b")).unwrap();
            assert!(!w["witness"].as_array().unwrap().is_empty(), "{s}");
            assert!(!w["explanation"].as_str().unwrap().is_empty(), "{s}");
        }
    }
}
