//! `vera c segments|verify|strength`: C files with ACSL specifications, checked with
//! Frama-C/WP, through the `acsl` crate.

use crate::cli::{Format, WpArgs};
use crate::output::{paint, Paint, EXIT_ERROR, EXIT_FINDINGS, EXIT_OK};
use acsl::Verdict;
use anyhow::{Context as _, Result};
use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

fn parse(path: &Path) -> Result<Option<acsl::CFile>> {
    std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
    match acsl::parse_c(path) {
        Ok(f) => Ok(Some(f)),
        Err(d) => {
            eprintln!("{d}");
            Ok(None)
        }
    }
}

/// `vera c segments FILE`
pub fn segments(path: &Path, format: Format) -> Result<ExitCode> {
    let Some(file) = parse(path)? else {
        return Ok(ExitCode::from(EXIT_ERROR));
    };
    let segs = acsl::segments(&file);
    match format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(
                &serde_json::json!({"schema": "vera.c-segments.v1", "segments": segs})
            )?
        ),
        Format::Human => {
            let mut o = String::new();
            for s in &segs {
                let names: Vec<&str> = s
                    .functions
                    .iter()
                    .chain(&s.others)
                    .map(String::as_str)
                    .collect();
                let _ = write!(o, "segment {}: {}", s.index, names.join(", "));
                if s.recursive {
                    let _ = write!(o, " (recursive)");
                }
                if !s.depends_on.is_empty() {
                    let deps: Vec<String> = s.depends_on.iter().map(|d| d.to_string()).collect();
                    let _ = write!(o, "; depends on {}", deps.join(", "));
                }
                let _ = writeln!(o);
                let _ = write!(
                    o,
                    "{}",
                    callees("  ", &s.called_by_contract, &s.called_with_body)
                );
                if !s.functions.is_empty() {
                    for p in acsl::points_of_interest(&file, s) {
                        let what = match p.kind {
                            acsl::PoiKind::Contract => "contract".to_string(),
                            acsl::PoiKind::Loop { index } => format!("loop {index}"),
                        };
                        let has = if p.existing.is_some() {
                            "annotated"
                        } else {
                            "no annotation"
                        };
                        let _ = writeln!(o, "  {} {what} at line {} ({has})", p.function, p.line);
                    }
                }
            }
            print!("{o}");
        }
    }
    Ok(ExitCode::from(EXIT_OK))
}

/// The lines that say how a segment's harness uses the functions it calls.
fn callees(indent: &str, by_contract: &[String], with_body: &[String]) -> String {
    let mut o = String::new();
    if !by_contract.is_empty() {
        let _ = writeln!(
            o,
            "{indent}callees used through their contracts: {}",
            by_contract.join(", ")
        );
    }
    if !with_body.is_empty() {
        let _ = writeln!(
            o,
            "{indent}callees included with their bodies (no contract or no assigns clause; a call may assign anything): {}",
            with_body.join(", ")
        );
    }
    o
}

fn verdict_word(v: &Verdict) -> String {
    match v {
        Verdict::Proved { goals } => paint(Paint::Good, &format!("proved ({goals} goals)")),
        Verdict::NotProved { unproved, goals } => paint(
            Paint::Bad,
            &format!("not proved ({unproved} of {goals} goals open)"),
        ),
        Verdict::NoGoals => paint(Paint::Warn, "no goals (nothing was checked)"),
        Verdict::Unreadable { reason } => paint(
            Paint::Bad,
            &format!("not proved: WP's output does not add up ({reason})"),
        ),
        Verdict::Inconsistent {
            failed_smoke_tests, ..
        } => paint(
            Paint::Bad,
            &format!(
                "vacuous: smoke tests failed ({})",
                failed_smoke_tests.join(", ")
            ),
        ),
    }
}

/// `vera c verify FILE`
pub fn verify(path: &Path, wp: &WpArgs, format: Format) -> Result<ExitCode> {
    if parse(path)?.is_none() {
        return Ok(ExitCode::from(EXIT_ERROR));
    }
    let cfg = wp.config();
    let report = match acsl::verify(path, &cfg) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(EXIT_ERROR));
        }
    };
    match format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(
                &serde_json::json!({"schema": "vera.c-verify.v1", "report": report})
            )?
        ),
        Format::Human => {
            let mut o = String::new();
            let _ = writeln!(o, "{}: {}", path.display(), verdict_word(&report.verdict));
            let _ = writeln!(
                o,
                "Frama-C {}, prover {}; {} of {} goals proved, {} timeouts",
                report.frama_c_version, report.prover, report.proved, report.goals, report.timeouts
            );
            for s in &report.segments {
                let _ = writeln!(
                    o,
                    "  segment {} [{}]: {}",
                    s.segment,
                    s.functions.join(", "),
                    verdict_word(&s.run.verdict)
                );
                let _ = write!(o, "{}", callees("    ", &s.assumed, &s.with_body));
                // Properties of the callees in the harness are not checked there.
                for p in s.run.properties.iter().filter(|p| {
                    !matches!(p.status, acsl::wp::PropertyStatus::Valid)
                        && s.functions.contains(&p.function)
                }) {
                    let _ = writeln!(
                        o,
                        "    line {}: {} `{}` in {}: {:?}",
                        p.line, p.kind, p.text, p.function, p.status
                    );
                }
            }
            if !report.functions_without_goals.is_empty() {
                let _ = writeln!(
                    o,
                    "  no goals for: {}",
                    report.functions_without_goals.join(", ")
                );
            }
            let _ = writeln!(
                o,
                "{} verifier calls, {} cache hits, {:.2} s",
                report.stats.verifier_calls, report.stats.cache_hits, report.stats.wall_seconds
            );
            print!("{o}");
        }
    }
    Ok(ExitCode::from(match report.verdict {
        Verdict::Proved { .. } => EXIT_OK,
        Verdict::NotProved { .. } | Verdict::Inconsistent { .. } => EXIT_FINDINGS,
        Verdict::NoGoals | Verdict::Unreadable { .. } => EXIT_ERROR,
    }))
}

/// `vera c strength FILE`
pub fn strength(
    path: &Path,
    wp: &WpArgs,
    max_mutants: Option<usize>,
    format: Format,
) -> Result<ExitCode> {
    if parse(path)?.is_none() {
        return Ok(ExitCode::from(EXIT_ERROR));
    }
    let cfg = wp.config();
    let options = acsl::StrengthOptions {
        max_mutants,
        ..Default::default()
    };
    let report = match acsl::strength(path, &cfg, &options) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(EXIT_ERROR));
        }
    };
    match format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(
                &serde_json::json!({"schema": "vera.c-strength.v1", "report": report})
            )?
        ),
        Format::Human => {
            let mut o = String::new();
            let vdr = report
                .vdr
                .map(|v| format!("{:.1}%", 100.0 * v))
                .unwrap_or_else(|| "n/a".into());
            let _ = writeln!(o, "{}: variant discrimination rate {vdr}", path.display());
            let _ = writeln!(
                o,
                "{} mutants ({} considered): {} killed, {} survived, {} equivalent (compiler), {} not compiling, {} rejected by Frama-C",
                report.generated, report.considered, report.killed, report.survived, report.equivalent, report.not_compiling, report.rejected
            );
            let _ = writeln!(o, "original: {}", verdict_word(&report.baseline));
            if !report.baseline_open.is_empty() {
                let _ = writeln!(
                    o,
                    "  not proved in the original (mutants are not killed by these):"
                );
                for p in &report.baseline_open {
                    let _ = writeln!(
                        o,
                        "    line {}: {} `{}` in {}: {:?}",
                        p.line, p.kind, p.text, p.function, p.status
                    );
                }
                let _ = writeln!(
                    o,
                    "    goals: {}",
                    report.baseline_unproved_goals.join(", ")
                );
            }
            for m in report
                .mutants
                .iter()
                .filter(|m| matches!(m.fate, acsl::strength::Fate::Survived))
            {
                let _ = writeln!(
                    o,
                    "  survived: line {} in {} ({:?}): `{}` -> `{}`",
                    m.mutant.line,
                    m.mutant.function,
                    m.mutant.operator,
                    m.mutant.original,
                    m.mutant.replacement
                );
            }
            print!("{o}");
        }
    }
    Ok(ExitCode::from(
        if report.survived == 0 && report.vdr.is_some() {
            EXIT_OK
        } else if report.vdr.is_some() {
            EXIT_FINDINGS
        } else {
            EXIT_ERROR
        },
    ))
}

/// Options of `vera c synth`.
#[derive(Debug, clap::Args)]
pub struct SynthArgs {
    /// The C file (it is never modified).
    pub file: std::path::PathBuf,
    /// The annotated copy to write (default: FILE.synth.c next to the input).
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// The JSON report to write (default: the output with extension .json).
    #[arg(long)]
    pub report: Option<std::path::PathBuf>,
    /// Answers per point of interest: the first one and the repairs.
    #[arg(long, default_value_t = 3)]
    pub attempts: usize,
    /// Skip the VDR-guided strengthening (the VDR is then not measured).
    #[arg(long)]
    pub no_strengthen: bool,
    /// Strengthening rounds per segment.
    #[arg(long, default_value_t = 1)]
    pub refine_rounds: usize,
    /// At most this many mutants per segment.
    #[arg(long, default_value_t = 16)]
    pub max_mutants: usize,
    /// A copy of the file with hand-written ACSL: report recall against it.
    #[arg(long)]
    pub reference: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub llm: crate::llmcmd::LlmArgs,
    #[command(flatten)]
    pub wp: WpArgs,
    #[command(flatten)]
    pub output: crate::cli::OutputArgs,
}

/// `vera c synth FILE`
pub fn synth(a: &SynthArgs) -> Result<ExitCode> {
    use pipeline::csynth;
    let Some(file) = parse(&a.file)? else {
        return Ok(ExitCode::from(EXIT_ERROR));
    };
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| a.file.with_extension("synth.c"));
    let report_path = a
        .report
        .clone()
        .unwrap_or_else(|| out.with_extension("json"));
    // Checked before the (long) synthesis: never an input (by identity), never an
    // existing file without --force.
    safefile::register_input(&a.file);
    safefile::check_output(&out, crate::files::force())?;
    safefile::check_output(&report_path, crate::files::force())?;
    let reference = match &a.reference {
        Some(p) => match parse(p)? {
            Some(f) => Some(f),
            None => return Ok(ExitCode::from(EXIT_ERROR)),
        },
        None => None,
    };
    let client = match a.llm.client() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e:#}");
            return Ok(ExitCode::from(EXIT_ERROR));
        }
    };
    let wp = a.wp.config();
    let opts = csynth::SynthOptions {
        attempts: a.attempts.max(1),
        strengthen: !a.no_strengthen,
        refine_rounds: a.refine_rounds,
        max_mutants: Some(a.max_mutants),
        ..Default::default()
    };
    let human = a.output.format == Format::Human;
    let mut log = |l: &str| {
        if human {
            eprintln!("{l}");
        }
    };
    let outcome = match csynth::synthesize(&file, &client, &wp, &opts, &mut log) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            if a.llm.replay.is_none() {
                eprintln!("hint: with the local model, is it running? `scripts/local-llm start`");
            }
            return Ok(ExitCode::from(EXIT_ERROR));
        }
    };
    safefile::write_atomic(&out, outcome.text.as_bytes(), crate::files::force())?;
    let recall = match reference {
        Some(r) => {
            let mut synthesized = acsl::parse_c(outcome.text.as_str())
                .map_err(|d| anyhow::anyhow!("the annotated output does not parse: {d}"))?;
            synthesized.path = file.path.clone();
            match csynth::recall(&synthesized, &r, &wp) {
                Ok(rc) => Some(rc),
                Err(e) => {
                    eprintln!("error: recall: {e}");
                    return Ok(ExitCode::from(EXIT_ERROR));
                }
            }
        }
        None => None,
    };
    let r = &outcome.report;
    let json = serde_json::json!({
        "schema": "vera.c-synth.v1",
        "output": out,
        "report": r,
        "recall": recall,
    });
    safefile::write_atomic(
        &report_path,
        serde_json::to_string_pretty(&json)?.as_bytes(),
        crate::files::force(),
    )?;
    match a.output.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&json)?),
        Format::Human => {
            let s = &r.summary;
            let pct = |v: Option<f64>| {
                v.map(|v| format!("{:.1}%", 100.0 * v))
                    .unwrap_or_else(|| "n/a".into())
            };
            let mut o = String::new();
            let _ = writeln!(
                o,
                "{} -> {}: {}",
                a.file.display(),
                out.display(),
                verdict_word(&r.final_verdict)
            );
            let _ = writeln!(
                o,
                "clauses: {} proposed, {} proved, {} assumed (requires), {} dropped, {} refused, {} refused by Frama-C, {} duplicates; precision {}",
                s.proposed, s.proved, s.assumed, s.dropped, s.rejected, s.rejected_by_frama_c, s.duplicates, pct(s.precision)
            );
            if opts.strengthen {
                let _ = writeln!(
                    o,
                    "VDR before refinement {} ({}/{}), after {} ({}/{})",
                    pct(s.vdr_before.vdr),
                    s.vdr_before.killed,
                    s.vdr_before.assessed,
                    pct(s.vdr_after.vdr),
                    s.vdr_after.killed,
                    s.vdr_after.assessed
                );
            }
            if let Some(rc) = &recall {
                let _ = writeln!(
                    o,
                    "recall {} ({} of {} reference clauses; {})",
                    pct(rc.recall),
                    rc.covered,
                    rc.reference_clauses,
                    rc.definition
                );
            }
            let _ = writeln!(
                o,
                "LLM: {} requests, {} calls, {} tokens in, {} out; verifier: {} runs ({} cached), strength {} runs ({} cached); {:.1} s",
                s.llm_requests, s.llm_calls, s.input_tokens, s.output_tokens, s.verifier_calls, s.verifier_cache_hits, s.strength_verifier_calls, s.strength_cache_hits, s.wall_seconds
            );
            let _ = writeln!(o, "report: {}", report_path.display());
            print!("{o}");
        }
    }
    Ok(ExitCode::from(if r.final_verdict.is_proved() {
        EXIT_OK
    } else {
        EXIT_FINDINGS
    }))
}
