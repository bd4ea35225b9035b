//! `verify`: check the existing annotations of a C file, one harness per segment,
//! independent segments in parallel.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::annotate::harness;
use crate::front::{parse_c, CFile};
use crate::segment::{function_segments, Segment};
use crate::util::parallel_map;
use crate::wp::{detect, run_wp, Counters, GoalStatus, Verdict, WpConfig, WpError, WpRun};

/// The result of one segment's harness.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SegmentReport {
    /// The segment index (topological order).
    pub segment: usize,
    /// Functions verified.
    pub functions: Vec<String>,
    /// Called functions used through their contracts (assumed, not proved, here).
    pub assumed: Vec<String>,
    /// Called functions included with their bodies (no contract, or no default
    /// `assigns` clause): calls to them may assign anything.
    pub with_body: Vec<String>,
    /// The run.
    pub run: WpRun,
}

/// Verification counts and timing.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunStats {
    /// Frama-C processes started.
    pub verifier_calls: usize,
    /// Runs answered from the cache.
    pub cache_hits: usize,
    /// Wall time of the whole command in seconds.
    pub wall_seconds: f64,
}

/// What `verify` found for a file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerifyReport {
    /// The file.
    pub file: Option<PathBuf>,
    /// The verdict over all segments.
    pub verdict: Verdict,
    /// Goals over all segments.
    pub goals: usize,
    /// Goals proved.
    pub proved: usize,
    /// Goals that timed out.
    pub timeouts: usize,
    /// Functions for which WP generated no goal at all (nothing was checked there).
    pub functions_without_goals: Vec<String>,
    /// Per segment, in topological order.
    pub segments: Vec<SegmentReport>,
    /// Counters.
    pub stats: RunStats,
    /// Frama-C version used.
    pub frama_c_version: String,
    /// Prover used.
    pub prover: String,
}

/// Combine the verdicts of several runs into one.
pub fn combine(runs: &[&WpRun]) -> Verdict {
    let unreadable: Vec<&str> = runs
        .iter()
        .filter_map(|r| match &r.verdict {
            Verdict::Unreadable { reason } => Some(reason.as_str()),
            _ => None,
        })
        .collect();
    if !unreadable.is_empty() {
        return Verdict::Unreadable {
            reason: unreadable.join("; "),
        };
    }
    let goals: usize = runs.iter().map(|r| r.goals.len()).sum();
    let unproved: usize = runs
        .iter()
        .map(|r| {
            r.goals
                .iter()
                .filter(|g| g.status != GoalStatus::Valid)
                .count()
        })
        .sum();
    let failed: Vec<String> = runs
        .iter()
        .flat_map(|r| {
            r.smoke_tests
                .iter()
                .filter(|s| !s.passed)
                .map(|s| s.name.clone())
        })
        .collect();
    if !failed.is_empty() {
        Verdict::Inconsistent {
            failed_smoke_tests: failed,
            unproved,
            goals,
        }
    } else if goals == 0 {
        Verdict::NoGoals
    } else if unproved == 0 {
        Verdict::Proved { goals }
    } else {
        Verdict::NotProved { unproved, goals }
    }
}

/// The file name used for harnesses of `file`.
pub(crate) fn harness_name(file: &CFile) -> String {
    file.path
        .as_ref()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".c"))
        .unwrap_or_else(|| "input.c".into())
}

/// Verify one segment of a parsed file.
pub fn verify_segment(
    file: &CFile,
    segment: &Segment,
    cfg: &WpConfig,
    counters: &Counters,
) -> Result<SegmentReport, WpError> {
    let h = harness(file, segment);
    let run = run_wp(&h.text, &harness_name(file), &h.functions, cfg, counters)?;
    Ok(SegmentReport {
        segment: segment.index,
        functions: h.functions,
        assumed: h.assumed,
        with_body: h.with_body,
        run,
    })
}

/// Verify the annotations of a parsed file.
pub fn verify_file(file: &CFile, cfg: &WpConfig) -> Result<VerifyReport, WpError> {
    let start = Instant::now();
    let setup = detect(cfg)?;
    let counters = Counters::default();
    let segs = function_segments(file);
    let results = parallel_map(&segs, cfg.jobs, |s| verify_segment(file, s, cfg, &counters));
    let mut segments = Vec::new();
    for r in results {
        segments.push(r?);
    }
    let runs: Vec<&WpRun> = segments.iter().map(|s| &s.run).collect();
    let verdict = combine(&runs);
    let goals = runs.iter().map(|r| r.goals.len()).sum();
    let proved = runs
        .iter()
        .map(|r| {
            r.goals
                .iter()
                .filter(|g| g.status == GoalStatus::Valid)
                .count()
        })
        .sum();
    let timeouts = runs
        .iter()
        .map(|r| {
            r.goals
                .iter()
                .filter(|g| g.status == GoalStatus::Timeout)
                .count()
        })
        .sum();
    let mut functions_without_goals = Vec::new();
    for s in &segments {
        for f in &s.functions {
            if !s
                .run
                .goals
                .iter()
                .any(|g| g.function.as_deref() == Some(f.as_str()))
            {
                functions_without_goals.push(f.clone());
            }
        }
    }
    let (verifier_calls, cache_hits) = counters.get();
    Ok(VerifyReport {
        file: file.path.clone(),
        verdict,
        goals,
        proved,
        timeouts,
        functions_without_goals,
        segments,
        stats: RunStats {
            verifier_calls,
            cache_hits,
            wall_seconds: start.elapsed().as_secs_f64(),
        },
        frama_c_version: setup.frama_c_version,
        prover: cfg.prover.clone(),
    })
}

/// Parse and verify the C file at `path`.
pub fn verify(path: &Path, cfg: &WpConfig) -> Result<VerifyReport, WpError> {
    let file = parse_c(path).map_err(WpError::Parse)?;
    verify_file(&file, cfg)
}
