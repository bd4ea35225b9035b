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

fn verdict_word(v: &Verdict) -> String {
    match v {
        Verdict::Proved { goals } => paint(Paint::Good, &format!("proved ({goals} goals)")),
        Verdict::NotProved { unproved, goals } => paint(
            Paint::Bad,
            &format!("not proved ({unproved} of {goals} goals open)"),
        ),
        Verdict::NoGoals => paint(Paint::Warn, "no goals (nothing was checked)"),
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
                for p in s
                    .run
                    .properties
                    .iter()
                    .filter(|p| !matches!(p.status, acsl::wp::PropertyStatus::Valid))
                {
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
        Verdict::NoGoals => EXIT_ERROR,
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
