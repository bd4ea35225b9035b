//! `vera equiv`, `vera formalize`, `vera ambiguity`, `vera clarify` and
//! `vera consistency --nl-text`: the formalization loops of the `pipeline` crate.

use crate::output::{excerpt, paint, Paint, Rendered};
use anyhow::{bail, Context as _, Result};
use pipeline::ambiguity::{AmbiguityOptions, AmbiguityReport, Screening};
use pipeline::clarify::{ClarifyOptions, ProposalsFile};
use pipeline::formalize::{FormalizeOptions, Mode};
use report::Status;
use reqs::equiv::{Partition, Universe};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

pub use crate::llmcmd::LlmArgs;

/// A comma-separated list of requirement ids (`--only`).
pub(crate) fn ids(only: &Option<String>) -> Option<Vec<String>> {
    only.as_ref().map(|s| {
        s.split(',')
            .map(|x| x.trim().to_string())
            .filter(|x| !x.is_empty())
            .collect()
    })
}

fn print_accounting(client: &llm::Client) {
    let a = client.accounting();
    eprintln!(
        "llm: {} requests, {} calls, {} cache hits, {} replayed, {} input + {} output tokens",
        a.total.requests,
        a.total.calls,
        a.total.cache_hits,
        a.total.replayed,
        a.total.input_tokens,
        a.total.output_tokens
    );
}

// ------------------------------------------------------------------ equiv

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

/// `vera equiv SPEC TERM... | --candidates FILE`
pub fn equiv(a: &crate::cli::EquivArgs) -> crate::output::Outcome {
    let (spec_path, schema, terms) = (a.spec.as_path(), a.csv.schema.as_deref(), &a.terms);
    let (candidates, solver) = (a.candidates.as_deref(), &a.solver);
    let spec = crate::audit::load_spec(spec_path, schema)?;
    let sets: Vec<(String, Vec<String>)> = match candidates {
        Some(f) => {
            if !terms.is_empty() {
                bail!("give candidate terms on the command line or --candidates, not both");
            }
            let text = safefile::read_text(f)?;
            reqs::equiv::load_candidates(&text, &f.display().to_string())
                .map_err(|d| anyhow::anyhow!("{d}"))?
        }
        None => {
            if terms.is_empty() {
                bail!("give at least one candidate TERM, or --candidates FILE");
            }
            vec![("command line".into(), terms.to_vec())]
        }
    };
    let universe = Universe::of_spec(&spec);
    let mut checker = reqs::equiv::Checker::new(&universe, &solver.config())?;
    let mut results = Vec::new();
    let mut any_split = false;
    for (id, texts) in &sets {
        let mut ts = Vec::new();
        for (i, t) in texts.iter().enumerate() {
            match spec.parse_formula(&format!("{id} #{}", i + 1), t) {
                Ok(t) => ts.push(t),
                Err(d) => {
                    eprintln!("{d}");
                    return Err(crate::output::Reported.into());
                }
            }
        }
        let p = checker.partition(&ts)?;
        any_split |= p.metrics.classes > 1;
        results.push((id.clone(), p));
    }
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
    Ok(Box::new(Rendered::new(
        "vera.equiv.v1",
        status,
        o,
        EquivJson {
            schema: "vera.equiv.v1",
            file: spec_path.display().to_string(),
            sets: results
                .into_iter()
                .map(|(id, partition)| EquivSet { id, partition })
                .collect(),
            queries: checker.queries,
        },
    )))
}

/// `vera.equiv.v1`.
#[derive(serde::Serialize)]
struct EquivJson {
    schema: &'static str,
    file: String,
    sets: Vec<EquivSet>,
    queries: usize,
}

/// One set of candidates and its partition into readings.
#[derive(serde::Serialize)]
struct EquivSet {
    id: String,
    partition: Partition,
}

/// The JSON payload of the LLM commands: `schema`, what was read and written, the
/// command's own report, the LLM accounting (`llm`) and the wall time.
#[derive(serde::Serialize)]
struct LlmJson<T: serde::Serialize> {
    schema: &'static str,
    #[serde(flatten)]
    files: serde_json::Map<String, serde_json::Value>,
    #[serde(flatten)]
    body: T,
    llm: llm::Accounting,
    seconds: f64,
}

/// The named files of an LLM command's payload.
fn files(pairs: &[(&str, &Path)]) -> serde_json::Map<String, serde_json::Value> {
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
struct ReportBody<T: serde::Serialize> {
    report: T,
}

// ------------------------------------------------------------------ formalize

fn default_out(input: &Path, suffix: &str) -> PathBuf {
    let stem = input
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "spec".into());
    input.with_file_name(format!("{stem}.{suffix}"))
}

/// `vera formalize SPEC_OR_CSV [--schema S] [-o OUT]`
pub fn formalize(a: &crate::cli::FormalizeArgs) -> crate::output::Outcome {
    let (llm_args, solver, force) = (&a.llm, &a.solver, crate::files::force());
    let spec = crate::audit::load_spec_to_formalize(&a.input, a.csv.schema.as_deref())?;
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| default_out(&a.input, "formalized.toml"));
    let mut inputs: Vec<&Path> = vec![&a.input];
    if let Some(s) = &a.csv.schema {
        inputs.push(s);
    }
    // Refused before the model is asked: an input, or an existing file without --force.
    safefile::plan_output(&out, force)?;
    let client = llm_args.client()?;
    let mut options = FormalizeOptions {
        mode: if a.batch {
            Mode::Batch
        } else {
            Mode::PerRequirement
        },
        max_retries: a.retries,
        only: ids(&a.only),
        reformalize: ids(&a.reformalize).unwrap_or_default(),
        examples: a.examples,
        max_tokens: Some(a.max_tokens),
        decompose: !a.no_decompose,
        ..Default::default()
    };
    a.form.apply(&mut options);
    let start = std::time::Instant::now();
    let report = pipeline::formalize::formalize(&spec, &client, &solver.config(), &options)?;
    let seconds = start.elapsed().as_secs_f64();
    let text = pipeline::formalize::formalized_spec(&spec, &report);
    pipeline::formalize::write_new(&out, &text, &inputs, force)?;
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
            (Some(pipeline::formpath::Path::Smtlib), _) if a.form.smtlib => String::new(),
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
                    let _ = writeln!(o, "    reads: {}", crate::output::clean(r));
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
                    a.form.agreement
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
        "\n{} requirements: {} on the first attempt, {} after repair, {} flagged for review, {} failed; wrote {} ({seconds:.1} s)",
        report.requirements.len(),
        report.first_attempt,
        report.after_repair,
        report.flagged.len(),
        report.failed.len(),
        out.display()
    );
    let p = &report.by_path;
    if !a.form.smtlib && !a.batch && p.parser + p.form + p.smtlib > 0 {
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
    if let Some(reason) = &report.halted {
        eprintln!(
            "error: stopped asking the model: {reason}\n  what was formalized before is written to {}; run the same command again to go on (the answers received so far come from the cache)",
            out.display()
        );
    }
    if !report.kept.is_empty() {
        let _ = writeln!(
            o,
            "kept as written ({} already had a formula; --reformalize IDS to ask again)",
            report.kept.len()
        );
    }
    print_accounting(&client);
    let status = if report.halted.is_some() {
        Status::Error
    } else if report.failed.is_empty() && report.flagged.is_empty() {
        Status::Ok
    } else {
        Status::Findings
    };
    Ok(Box::new(Rendered::new(
        "vera.formalize.v1",
        status,
        o,
        LlmJson {
            schema: "vera.formalize.v1",
            files: files(&[("input", &a.input), ("output", &out)]),
            body: ReportBody { report },
            llm: client.accounting(),
            seconds,
        },
    )))
}

// ------------------------------------------------------------------ ambiguity

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

/// `vera ambiguity SPEC`
pub fn ambiguity(a: &crate::cli::AmbiguityArgs) -> crate::output::Outcome {
    let (spec_path, schema, only) = (a.spec.as_path(), a.csv.schema.as_deref(), &a.only);
    let (sampling, llm_args, solver) = ((a.samples, a.max_tokens), &a.llm, &a.solver);
    let spec = crate::audit::load_spec_discrete(spec_path, schema, "ambiguity")?;
    if spec.time.is_some() {
        return ambiguity_timed(a, &spec);
    }
    let client = llm_args.client()?;
    let (samples, max_tokens) = sampling;
    let options = AmbiguityOptions {
        samples,
        only: ids(only),
        max_tokens: Some(max_tokens),
        ..Default::default()
    };
    let start = std::time::Instant::now();
    let rep: AmbiguityReport =
        pipeline::ambiguity::screen(&spec, &client, &solver.config(), &options)?;
    let seconds = start.elapsed().as_secs_f64();
    let mut o = String::new();
    for s in &rep.requirements {
        render_screening(&mut o, s);
    }
    o.push('\n');
    render_summary(&mut o, &rep.summary);
    let _ = writeln!(o, "({seconds:.1} s)");
    print_accounting(&client);
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
            llm: client.accounting(),
            seconds,
        },
    );
    r.page = Some(page);
    Ok(Box::new(r))
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

/// `vera ambiguity` on a spec with a `[time]` table: samples of timed patterns grouped
/// by trace equivalence, with the questions that tell the readings apart.
fn ambiguity_timed(a: &crate::cli::AmbiguityArgs, spec: &reqs::Spec) -> crate::output::Outcome {
    let client = a.llm.client()?;
    let options = AmbiguityOptions {
        samples: a.samples,
        only: ids(&a.only),
        max_tokens: Some(a.max_tokens),
        ..Default::default()
    };
    let start = std::time::Instant::now();
    let rep = pipeline::timed::screen_timed(spec, &client, &a.solver.config(), &options)?;
    let seconds = start.elapsed().as_secs_f64();
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
    print_accounting(&client);
    let status = if s.could_not_screen > 0 || s.undecided > 0 {
        Status::Error
    } else if s.flagged > 0 {
        Status::Findings
    } else {
        Status::Ok
    };
    let page = ambiguity_timed_page(&a.spec, &rep, seconds);
    let mut r = Rendered::new(
        "vera.ambiguity-timed.v1",
        status,
        o,
        LlmJson {
            schema: "vera.ambiguity-timed.v1",
            files: files(&[("file", &a.spec)]),
            body: ReportBody { report: rep },
            llm: client.accounting(),
            seconds,
        },
    );
    r.page = Some(page);
    Ok(Box::new(r))
}

/// The timed ambiguity page: requirements by number of readings as bars, then each
/// flagged requirement with its readings and questions.
fn ambiguity_timed_page(
    spec_path: &Path,
    rep: &pipeline::timed::TimedAmbiguityReport,
    seconds: f64,
) -> report::html::Page {
    use report::html::{Block, Count, Page, Section, Tone};
    let s = &rep.summary;
    let mut by_classes: std::collections::BTreeMap<String, usize> = Default::default();
    for r in &rep.requirements {
        let key = match (r.could_not_screen, r.classes.len()) {
            (true, _) => "not screened".to_string(),
            (_, 1) => "1 reading".to_string(),
            (_, n) => format!("{n} readings"),
        };
        *by_classes.entry(key).or_default() += 1;
    }
    let bars = reading_bars(by_classes, rep.requirements.len());
    let items = rep
        .requirements
        .iter()
        .filter(|r| r.flagged)
        .map(|r| {
            let mut o = String::new();
            render_timed_screening(&mut o, r);
            Block::Item {
                title: r.id.clone(),
                badge: "ambiguity-sensitive".into(),
                tone: Tone::Warn,
                blocks: vec![Block::Text(r.text.clone()), Block::Code(o)],
            }
        })
        .collect();
    Page {
        title: format!("vera ambiguity (timed): {}", spec_path.display()),
        subtitle: Some(format!("{seconds:.1} s")),
        counts: vec![
            Count::neutral("requirements", s.requirements),
            Count::findings("ambiguity-sensitive", s.flagged, Tone::Warn),
            Count::findings("not screened", s.could_not_screen, Tone::Bad),
            Count::findings("undecided pairs", s.undecided, Tone::Bad),
        ],
        sections: vec![
            Section {
                heading: "Readings over time".into(),
                blocks: vec![Block::Bars {
                    caption: "Timed requirements by number of readings that differ on some trace"
                        .into(),
                    bars,
                }],
            },
            Section {
                heading: "Ambiguity-sensitive requirements, with the questions of time".into(),
                blocks: items,
            },
        ],
    }
}

/// The ambiguity page: requirements by number of readings as bars, then each flagged
/// requirement with its readings.
fn ambiguity_page(spec_path: &Path, rep: &AmbiguityReport, seconds: f64) -> report::html::Page {
    use report::html::{Block, Count, Page, Section, Tone};
    let s = &rep.summary;
    let mut by_classes: std::collections::BTreeMap<String, usize> = Default::default();
    for r in &rep.requirements {
        let key = match r.partition.as_ref().map(|p| p.metrics.classes) {
            None => "not screened".to_string(),
            Some(1) => "1 reading".to_string(),
            Some(n) => format!("{n} readings"),
        };
        *by_classes.entry(key).or_default() += 1;
    }
    let bars = reading_bars(by_classes, rep.requirements.len());
    let items = rep
        .requirements
        .iter()
        .filter(|r| r.flagged)
        .map(|r| {
            let mut o = String::new();
            if let Some(p) = &r.partition {
                render_partition(&mut o, p);
            }
            Block::Item {
                title: r.id.clone(),
                badge: "ambiguity-sensitive".into(),
                tone: Tone::Warn,
                blocks: vec![Block::Text(r.text.clone()), Block::Code(o)],
            }
        })
        .collect();
    Page {
        title: format!("vera ambiguity: {}", spec_path.display()),
        subtitle: Some(format!("{seconds:.1} s")),
        counts: vec![
            Count::neutral("requirements", s.requirements),
            Count::findings("ambiguity-sensitive", s.flagged, Tone::Warn),
            Count::findings("not screened", s.could_not_screen, Tone::Bad),
        ],
        sections: vec![
            Section {
                heading: "Ambiguity classes".into(),
                blocks: vec![Block::Bars {
                    caption: "Requirements by number of distinct readings among the samples".into(),
                    bars,
                }],
            },
            Section {
                heading: "Ambiguity-sensitive requirements".into(),
                blocks: items,
            },
        ],
    }
}

// ------------------------------------------------------------------ clarify

/// `vera clarify SPEC [-o PROPOSALS] | --apply PROPOSALS [--out SPEC]`
pub fn clarify(a: &crate::cli::ClarifyArgs) -> crate::output::Outcome {
    let (llm_args, solver, force) = (&a.llm, &a.solver, crate::files::force());
    let spec = crate::audit::load_spec_discrete(&a.spec, a.csv.schema.as_deref(), "clarify")?;
    let mut inputs: Vec<&Path> = vec![&a.spec];
    if let Some(s) = &a.csv.schema {
        inputs.push(s);
    }
    if let Some(pf) = &a.apply {
        let text = safefile::read_text(pf)?;
        let file: ProposalsFile =
            serde_json::from_str(&text).with_context(|| format!("{}", pf.display()))?;
        if file.schema != "vera.clarify.v1" {
            bail!("{}: not a vera.clarify.v1 proposals file", pf.display());
        }
        let stale = pipeline::clarify::not_applicable(&spec, &file.proposals);
        if !stale.is_empty() {
            let lines: Vec<String> = stale.iter().map(|n| format!("  {n}")).collect();
            bail!(
                "{}: {} accepted proposal(s) do not fit {} as it is now; nothing written (run vera clarify again, or set \"accepted\": false on them):\n{}",
                pf.display(),
                stale.len(),
                a.spec.display(),
                lines.join("\n")
            );
        }
        let (out_text, changed) = pipeline::clarify::apply(&spec, &file.proposals);
        let out = a
            .out
            .clone()
            .unwrap_or_else(|| default_out(&a.spec, "clarified.toml"));
        inputs.push(pf);
        if changed.is_empty() {
            eprintln!(
                "nothing to apply: no proposal in {} is accepted (set \"accepted\": true to take one); nothing written",
                pf.display()
            );
            return Ok(Box::new(Rendered::new(
                "vera.clarify-apply.v1",
                Status::Ok,
                String::new(),
                ApplyJson {
                    schema: "vera.clarify-apply.v1",
                    proposals: pf.display().to_string(),
                    applied: changed,
                    output: None,
                },
            )));
        }
        pipeline::formalize::write_new(&out, &out_text, &inputs, force)?;
        let text = format!(
            "applied {} accepted proposal(s) ({}); wrote {}\n",
            changed.len(),
            changed.join(", "),
            out.display()
        );
        return Ok(Box::new(Rendered::new(
            "vera.clarify-apply.v1",
            Status::Ok,
            text,
            ApplyJson {
                schema: "vera.clarify-apply.v1",
                proposals: pf.display().to_string(),
                applied: changed,
                output: Some(out.display().to_string()),
            },
        )));
    }
    let out = a
        .proposals
        .clone()
        .unwrap_or_else(|| default_out(&a.spec, "proposals.json"));
    // Refused before the model is asked: an input, or an existing file without --force.
    safefile::plan_output(&out, force)?;
    let client = llm_args.client()?;
    let options = ClarifyOptions {
        rounds: a.rounds,
        screening: AmbiguityOptions {
            samples: a.samples,
            only: ids(&a.only),
            max_tokens: Some(a.max_tokens),
            ..Default::default()
        },
        ..Default::default()
    };
    if spec.time.is_some() {
        return clarify_timed(a, &spec, &client, &options, &out, &inputs);
    }
    let start = std::time::Instant::now();
    let rep = pipeline::clarify::clarify(&spec, &client, &solver.config(), &options, None)?;
    let seconds = start.elapsed().as_secs_f64();
    let converged = rep.proposals.iter().filter(|p| p.converged).count();
    // 0: every flagged requirement converged (or none was flagged); 1: some did not;
    // 2: none did, so there is nothing to apply.
    let code = if converged == rep.proposals.len() {
        Status::Ok
    } else if converged > 0 {
        Status::Findings
    } else {
        Status::Error
    };
    let file = ProposalsFile {
        schema: "vera.clarify.v1".into(),
        file: a.spec.display().to_string(),
        proposals: rep.proposals.clone(),
    };
    pipeline::formalize::write_new(&out, &serde_json::to_string_pretty(&file)?, &inputs, force)?;
    let mut o = String::new();
    for p in &rep.proposals {
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
        for r in p.history.iter().filter(|r| r.rejected.is_some()) {
            let _ = writeln!(
                o,
                "  rejected: {} ({})",
                excerpt(&r.text, 100),
                r.rejected.as_deref().unwrap_or_default()
            );
        }
        if let Some(n) = &p.note {
            let _ = writeln!(o, "  why: {n}");
        }
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
        a.spec.display(),
        out.display()
    );
    print_accounting(&client);
    Ok(Box::new(Rendered::new(
        "vera.clarify-run.v1",
        code,
        o,
        LlmJson {
            schema: "vera.clarify-run.v1",
            files: files(&[("file", &a.spec), ("proposals_file", &out)]),
            body: ReportBody { report: rep },
            llm: client.accounting(),
            seconds,
        },
    )))
}

/// `vera clarify` on a spec with a `[time]` table: the questions of time put to the
/// model, the rewrites screened again on traces; the proposals file is the same
/// `vera.clarify.v1` (a converged proposal carries its pattern).
fn clarify_timed(
    a: &crate::cli::ClarifyArgs,
    spec: &reqs::Spec,
    client: &llm::Client,
    options: &ClarifyOptions,
    out: &Path,
    inputs: &[&Path],
) -> crate::output::Outcome {
    let start = std::time::Instant::now();
    let rep = pipeline::timed::clarify_timed(spec, client, &a.solver.config(), options, None)?;
    let seconds = start.elapsed().as_secs_f64();
    let converged = rep.proposals.iter().filter(|p| p.converged).count();
    let code = if converged == rep.proposals.len() {
        Status::Ok
    } else if converged > 0 {
        Status::Findings
    } else {
        Status::Error
    };
    let file = ProposalsFile {
        schema: "vera.clarify.v1".into(),
        file: a.spec.display().to_string(),
        proposals: rep.proposals.clone(),
    };
    pipeline::formalize::write_new(
        out,
        &serde_json::to_string_pretty(&file)?,
        inputs,
        crate::files::force(),
    )?;
    let mut o = String::new();
    for s in rep.screening.requirements.iter().filter(|s| s.flagged) {
        render_timed_screening(&mut o, s);
    }
    for p in &rep.proposals {
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
        if let Some(n) = &p.note {
            let _ = writeln!(o, "  why: {n}");
        }
    }
    let _ = writeln!(
        o,
        "\nconverged: {converged} of {} flagged timed requirement(s); flagged per round: {:?}\nwrote {} ({seconds:.1} s); apply with `vera clarify {} --apply {}`",
        rep.proposals.len(),
        rep.flagged_per_round,
        out.display(),
        a.spec.display(),
        out.display()
    );
    print_accounting(client);
    Ok(Box::new(Rendered::new(
        "vera.clarify-run-timed.v1",
        code,
        o,
        LlmJson {
            schema: "vera.clarify-run-timed.v1",
            files: files(&[("file", &a.spec), ("proposals_file", out)]),
            body: ReportBody { report: rep },
            llm: client.accounting(),
            seconds,
        },
    )))
}

/// `vera.clarify-apply.v1`.
#[derive(serde::Serialize)]
struct ApplyJson {
    schema: &'static str,
    proposals: String,
    applied: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<String>,
}

// ------------------------------------------------------------------ consistency --nl-text

/// `vera consistency --nl-text RULE.txt --variables model.json --impl P.bl [--bounds B]`
pub fn consistency_nl_text(
    a: &crate::cli::ConsistencyArgs,
    rule_path: &Path,
) -> crate::output::Outcome {
    let (llm_args, solver) = (&a.llm, &a.solver);
    let start = std::time::Instant::now();
    let rule = safefile::read_text(rule_path)?;
    let vars_path = match &a.variables {
        Some(v) => v.clone(),
        None => rule_path.with_file_name("model.json"),
    };
    let vars_text = safefile::read_text(&vars_path).with_context(|| {
        format!(
            "cannot read the variable specification {} (give --variables)",
            vars_path.display()
        )
    })?;
    let vars = pipeline::voting::VariableSpec::from_json(&vars_text)?;
    let Some(imp) = &a.implementation else {
        bail!("--nl-text needs --impl PROGRAM.bl");
    };
    let imp_text = safefile::read_text(imp)?;
    let imp_file = logic::SourceFile::new(imp.display().to_string(), imp_text);
    let imp_side = if imp.extension().is_some_and(|x| x == "bl") {
        bl::check::SideSource::Bl(imp_file)
    } else {
        bl::check::SideSource::Smt(imp_file)
    };
    let mut input = bl::check::CheckInput::new(
        bl::check::SideSource::Smt(logic::SourceFile::new("nl", "")),
        imp_side,
    );
    input.bl_output = a.impl_output.clone();
    if let Some(b) = &a.bounds {
        let text = safefile::read_text(b)?;
        input.bounds = Some(bl::check::Bounds::from_json(
            &b.display().to_string(),
            &text,
        )?);
    }
    input.assumptions = a
        .assume
        .iter()
        .map(|x| bl::check::Assumption::parse_arg(x))
        .collect::<Result<Vec<_>, _>>()?;
    // The output: --nl-output, else the last variable of the specification (SIRNA's
    // specifications list the output last, e.g. FinalTaxes).
    let output = a
        .nl_output
        .clone()
        .or_else(|| vars.variables.last().map(|v| v.name.clone()));
    input.nl_output = a.nl_output.clone();
    let client = llm_args.client()?;
    let options = pipeline::voting::VotingOptions {
        translations: a.translations,
        theta: a.theta,
        output: output.clone(),
        repairs: a.retries,
        ..Default::default()
    };
    let checked = pipeline::voting::check_text(
        &rule,
        &rule_path.display().to_string(),
        &vars,
        &input,
        &client,
        &solver.config(),
        &options,
    )?;
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
        o.push_str(&printer::bl::render_check(r));
    }
    print_accounting(&client);
    let status = match report {
        None => Status::Error,
        Some(r) => match r.verdict {
            bl::check::Verdict::Consistent => Status::Ok,
            bl::check::Verdict::Inconsistent => Status::Findings,
            _ => Status::Error,
        },
    };
    Ok(Box::new(Rendered::new(
        "vera.consistency-nl.v1",
        status,
        o,
        LlmJson {
            schema: "vera.consistency-nl.v1",
            files: files(&[("rule", rule_path), ("implementation", imp)]),
            body: checked,
            llm: client.accounting(),
            seconds: start.elapsed().as_secs_f64(),
        },
    )))
}

// ------------------------------------------------------------------ draft-variables

/// `vera draft-variables RULE.txt --example-rule EX.txt [--example-spec model.json] [-o OUT]`
pub fn draft_variables(a: &crate::cli::DraftVariablesArgs) -> crate::output::Outcome {
    let llm_args = &a.llm;
    let start = std::time::Instant::now();
    let read = |p: &Path| safefile::read_text(p);
    let rule = read(&a.rule)?;
    let example_rule = read(&a.example_rule)?;
    let spec_path = a
        .example_spec
        .clone()
        .unwrap_or_else(|| a.example_rule.with_file_name("model.json"));
    let example = pipeline::voting::VariableSpec::from_json(&read(&spec_path)?)
        .with_context(|| format!("{} (the example specification)", spec_path.display()))?;
    let client = llm_args.client()?;
    let draft =
        match pipeline::voting::draft_variables(&rule, &example_rule, &example, &client, a.retries)
        {
            Ok(d) => d,
            Err(e) => {
                eprintln!("error: {e}");
                print_accounting(&client);
                return Err(crate::output::Reported.into());
            }
        };
    let json = serde_json::to_string_pretty(&draft.spec)? + "\n";
    if let Some(out) = &a.out {
        let inputs = [
            a.rule.as_path(),
            a.example_rule.as_path(),
            spec_path.as_path(),
        ];
        pipeline::formalize::write_new(out, &json, &inputs, crate::files::force())?;
    }
    eprintln!(
        "drafted {} variables in {} answer(s){}; names shared with the example: {}",
        draft.spec.variables.len(),
        draft.attempts,
        a.out
            .as_ref()
            .map(|o| format!(", written to {}", o.display()))
            .unwrap_or_default(),
        if draft.shared_names.is_empty() {
            "none".to_string()
        } else {
            draft.shared_names.join(", ")
        }
    );
    for r in &draft.refused {
        eprintln!("  refused: {}", excerpt(r, 160));
    }
    eprintln!("review the draft before using it: the descriptions decide how rules are formalized");
    print_accounting(&client);
    // The terminal output is the draft itself, unless it went to a file.
    let text = if a.out.is_none() { json } else { String::new() };
    Ok(Box::new(Rendered::new(
        "vera.draft-variables.v1",
        Status::Ok,
        text,
        LlmJson {
            schema: "vera.draft-variables.v1",
            files: files(&[("rule", &a.rule), ("example", &spec_path)]),
            body: DraftBody { draft },
            llm: client.accounting(),
            seconds: start.elapsed().as_secs_f64(),
        },
    )))
}

/// The body of `vera.draft-variables.v1`.
#[derive(serde::Serialize)]
struct DraftBody {
    draft: pipeline::voting::Draft,
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
