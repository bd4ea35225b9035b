//! Specification strength: the variant discrimination rate (VDR) of a file's
//! specifications, the share of non-equivalent mutants that the unchanged
//! specifications reject (SpecSyn, section 3.3).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::annotate::harness;
use crate::front::{parse_c, CFile};
use crate::mutate::{mutants, Mutant, Operator};
use crate::segment::function_segments;
use crate::tce::{self, Compiled, Equivalence, TceConfig, TceCounters, TceError};
use crate::util::parallel_map;
use crate::verify::{combine, harness_name, verify_segment};
use crate::wp::{detect, run_wp, Counters, GoalStatus, Verdict, WpConfig, WpError};

/// What to mutate and how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StrengthOptions {
    /// Only mutate these functions (all function definitions when `None`).
    pub functions: Option<Vec<String>>,
    /// Operators to apply.
    pub operators: Vec<Operator>,
    /// At most this many mutants, spread evenly over the file (all when `None`).
    pub max_mutants: Option<usize>,
    /// Compiler settings for Trivial Compiler Equivalence; its cache directory
    /// defaults to the verifier's.
    pub tce: TceConfig,
}

impl Default for StrengthOptions {
    fn default() -> Self {
        StrengthOptions {
            functions: None,
            operators: Operator::ALL.to_vec(),
            max_mutants: None,
            tce: TceConfig::default(),
        }
    }
}

/// Errors of `strength`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StrengthError {
    /// Verification could not run.
    #[error(transparent)]
    Wp(#[from] WpError),
    /// Compilation could not run.
    #[error(transparent)]
    Tce(#[from] TceError),
    /// The original file does not compile, so TCE cannot filter mutants.
    #[error("the original file does not compile with gcc: {0}")]
    OriginalDoesNotCompile(String),
    /// A requested function is not defined in the file.
    #[error("no function `{0}` is defined in the file")]
    NoFunction(String),
}

/// What happened to one mutant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "fate")]
pub enum Fate {
    /// Same stripped object as the original: not counted.
    Equivalent,
    /// gcc rejects it: not counted.
    DoesNotCompile {
        /// The compiler's message.
        message: String,
    },
    /// Frama-C rejects it: not counted.
    RejectedByFramaC {
        /// Frama-C's messages.
        message: String,
    },
    /// The original specification fails on it.
    Killed {
        /// Goals proved on the original and not on the mutant.
        unproved: Vec<String>,
    },
    /// The original specification still verifies on it.
    Survived,
}

/// One mutant and its fate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MutantOutcome {
    /// The mutant.
    pub mutant: Mutant,
    /// Its fate.
    pub fate: Fate,
    /// A diff of the mutated line (for survivors; empty otherwise).
    pub diff: String,
}

/// Counts for a group of mutants (a function or an operator).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Tally {
    /// Mutants generated.
    pub mutants: usize,
    /// Non-equivalent mutants assessed by the verifier.
    pub assessed: usize,
    /// Killed.
    pub killed: usize,
    /// VDR = killed / assessed.
    pub vdr: Option<f64>,
}

/// Counters and timing of a strength run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StrengthStats {
    /// Frama-C processes started.
    pub verifier_calls: usize,
    /// Verifier runs answered from the cache.
    pub verifier_cache_hits: usize,
    /// Compiler runs.
    pub compilations: usize,
    /// Compilations answered from the cache.
    pub compile_cache_hits: usize,
    /// Wall time in seconds.
    pub wall_seconds: f64,
}

/// The strength of a file's specifications.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StrengthReport {
    /// The file.
    pub file: Option<PathBuf>,
    /// Killed / (killed + survived); `None` when no mutant could be assessed.
    pub vdr: Option<f64>,
    /// Mutants generated before sampling.
    pub generated: usize,
    /// Mutants considered (after `max_mutants`).
    pub considered: usize,
    /// Equivalent under TCE.
    pub equivalent: usize,
    /// Rejected by gcc.
    pub not_compiling: usize,
    /// Rejected by Frama-C.
    pub rejected: usize,
    /// Killed.
    pub killed: usize,
    /// Survived.
    pub survived: usize,
    /// The verdict of the original file's mutated segments. When it is not
    /// "proved", a mutant counts as killed only if it fails a goal that the
    /// original proves.
    pub baseline: Verdict,
    /// Per function.
    pub functions: BTreeMap<String, Tally>,
    /// Per operator.
    pub operators: BTreeMap<String, Tally>,
    /// Every mutant considered and its fate.
    pub mutants: Vec<MutantOutcome>,
    /// Counters.
    pub stats: StrengthStats,
}

impl StrengthReport {
    /// The surviving mutants.
    pub fn survivors(&self) -> impl Iterator<Item = &MutantOutcome> {
        self.mutants.iter().filter(|m| m.fate == Fate::Survived)
    }
}

fn sample(mut ms: Vec<Mutant>, max: Option<usize>) -> Vec<Mutant> {
    let Some(max) = max else { return ms };
    if ms.len() <= max || max == 0 {
        if max == 0 {
            ms.clear();
        }
        return ms;
    }
    let n = ms.len();
    (0..max).map(|k| ms[k * n / max].clone()).collect()
}

fn tally(outcomes: &[&MutantOutcome]) -> Tally {
    let killed = outcomes
        .iter()
        .filter(|o| matches!(o.fate, Fate::Killed { .. }))
        .count();
    let survived = outcomes.iter().filter(|o| o.fate == Fate::Survived).count();
    let assessed = killed + survived;
    Tally {
        mutants: outcomes.len(),
        assessed,
        killed,
        vdr: (assessed > 0).then(|| killed as f64 / assessed as f64),
    }
}

/// Measure the strength of the specifications of a parsed file.
pub fn strength_file(
    file: &CFile,
    cfg: &WpConfig,
    opts: &StrengthOptions,
) -> Result<StrengthReport, StrengthError> {
    let start = Instant::now();
    detect(cfg)?;
    if let Some(fs) = &opts.functions {
        for f in fs {
            if file.function(f).is_none() {
                return Err(StrengthError::NoFunction(f.clone()));
            }
        }
    }
    let mut tce_cfg = opts.tce.clone();
    if tce_cfg.cache_dir.is_none() {
        tce_cfg.cache_dir = cfg.cache_dir.clone();
    }
    let counters = Counters::default();
    let tce_counters = TceCounters::default();

    let all = mutants(file, opts.functions.as_deref(), &opts.operators);
    let generated = all.len();
    let considered = sample(all, opts.max_mutants);
    let mutated_functions: BTreeSet<&str> =
        considered.iter().map(|m| m.function.as_str()).collect();

    // Baselines of the segments that contain mutated functions.
    let segs: Vec<_> = function_segments(file)
        .into_iter()
        .filter(|s| {
            s.functions
                .iter()
                .any(|f| mutated_functions.contains(f.as_str()))
        })
        .collect();
    let base: Vec<_> = parallel_map(&segs, cfg.jobs, |s| verify_segment(file, s, cfg, &counters))
        .into_iter()
        .collect::<Result<_, _>>()?;
    let baseline = combine(&base.iter().map(|b| &b.run).collect::<Vec<_>>());
    let mut unproved_in_base: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for b in &base {
        let bad: BTreeSet<String> = b
            .run
            .goals
            .iter()
            .filter(|g| g.status != GoalStatus::Valid)
            .map(|g| g.name.clone())
            .collect();
        for f in &b.functions {
            unproved_in_base.insert(f.clone(), bad.clone());
        }
    }

    let original = tce::compile(&file.text, &tce_cfg, &tce_counters)?;
    if let Compiled::Rejected { message } = &original {
        return Err(StrengthError::OriginalDoesNotCompile(message.clone()));
    }
    let name = harness_name(file);
    let outcomes: Vec<Result<MutantOutcome, StrengthError>> =
        parallel_map(&considered, cfg.jobs, |m| {
            let text = m.apply(&file.text);
            let fate = match tce::compile(&text, &tce_cfg, &tce_counters)? {
                c @ Compiled::Object { .. } => match tce::compare(&original, &c) {
                    Equivalence::Equivalent => Fate::Equivalent,
                    _ => assess(file, m, &text, &name, cfg, &counters, &unproved_in_base)?,
                },
                Compiled::Rejected { message } => Fate::DoesNotCompile { message },
            };
            let diff = if fate == Fate::Survived {
                m.diff(&file.text)
            } else {
                String::new()
            };
            Ok(MutantOutcome {
                mutant: m.clone(),
                fate,
                diff,
            })
        });
    let outcomes: Vec<MutantOutcome> = outcomes.into_iter().collect::<Result<_, _>>()?;

    let refs: Vec<&MutantOutcome> = outcomes.iter().collect();
    let total = tally(&refs);
    let mut functions = BTreeMap::new();
    for f in &mutated_functions {
        let g: Vec<&MutantOutcome> = outcomes
            .iter()
            .filter(|o| o.mutant.function == *f)
            .collect();
        functions.insert((*f).to_string(), tally(&g));
    }
    let mut operators = BTreeMap::new();
    for op in Operator::ALL {
        let g: Vec<&MutantOutcome> = outcomes
            .iter()
            .filter(|o| o.mutant.operator == op)
            .collect();
        if !g.is_empty() {
            let key = serde_json::to_value(op)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_else(|| format!("{op:?}"));
            operators.insert(key, tally(&g));
        }
    }
    let count = |p: fn(&Fate) -> bool| outcomes.iter().filter(|o| p(&o.fate)).count();
    let (verifier_calls, verifier_cache_hits) = counters.get();
    Ok(StrengthReport {
        file: file.path.clone(),
        vdr: total.vdr,
        generated,
        considered: outcomes.len(),
        equivalent: count(|f| *f == Fate::Equivalent),
        not_compiling: count(|f| matches!(f, Fate::DoesNotCompile { .. })),
        rejected: count(|f| matches!(f, Fate::RejectedByFramaC { .. })),
        killed: total.killed,
        survived: total.assessed - total.killed,
        baseline,
        functions,
        operators,
        mutants: outcomes,
        stats: StrengthStats {
            verifier_calls,
            verifier_cache_hits,
            compilations: tce_counters.compilations.load(Ordering::Relaxed),
            compile_cache_hits: tce_counters.cache_hits.load(Ordering::Relaxed),
            wall_seconds: start.elapsed().as_secs_f64(),
        },
    })
}

/// Verify one non-equivalent mutant with the original specification.
fn assess(
    _file: &CFile,
    m: &Mutant,
    text: &str,
    name: &str,
    cfg: &WpConfig,
    counters: &Counters,
    unproved_in_base: &BTreeMap<String, BTreeSet<String>>,
) -> Result<Fate, StrengthError> {
    let mutated = match parse_c(text) {
        Ok(f) => f,
        Err(d) => {
            return Ok(Fate::RejectedByFramaC {
                message: format!("the mutant does not parse: {d}"),
            })
        }
    };
    let Some(seg) = function_segments(&mutated)
        .into_iter()
        .find(|s| s.functions.contains(&m.function))
    else {
        return Ok(Fate::RejectedByFramaC {
            message: format!("function `{}` vanished", m.function),
        });
    };
    let h = harness(&mutated, &seg);
    match run_wp(&h.text, name, &h.functions, cfg, counters) {
        Ok(run) => {
            let empty = BTreeSet::new();
            let base = unproved_in_base.get(&m.function).unwrap_or(&empty);
            let unproved: Vec<String> = run
                .goals
                .iter()
                .filter(|g| g.status != GoalStatus::Valid && !base.contains(&g.name))
                .map(|g| g.name.clone())
                .collect();
            Ok(if unproved.is_empty() {
                Fate::Survived
            } else {
                Fate::Killed { unproved }
            })
        }
        Err(WpError::FramaC { messages, .. }) => Ok(Fate::RejectedByFramaC {
            message: messages.join("\n"),
        }),
        Err(e) => Err(e.into()),
    }
}

/// Parse the C file at `path` and measure the strength of its specifications.
pub fn strength(
    path: &Path,
    cfg: &WpConfig,
    opts: &StrengthOptions,
) -> Result<StrengthReport, StrengthError> {
    let file = parse_c(path).map_err(WpError::Parse)?;
    strength_file(&file, cfg, opts)
}
