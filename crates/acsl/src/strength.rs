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
use crate::mutate::{mutants, source_mutants, Mutant, Operator};
use crate::project::{display_path, normalize};
use crate::segment::function_segments;
use crate::tce::{self, Compiled, Equivalence, TceConfig, TceCounters, TceError};
use crate::util::parallel_map;
use crate::verify::{combine, harness_name, program_segments, verify_segment};
use crate::workspace::{Edited, Workspace};
use crate::wp::{
    detect, run_wp, Counters, GoalStatus, Property, PropertyStatus, Verdict, WpConfig, WpError,
    WpRun,
};

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
        /// WP's names of the mutant's goals that are not proved and whose names
        /// are not among the original's unproved goals (names of run-time-error
        /// guards and call preconditions are numbered by position, so this list
        /// is informative; the decision rests on `properties`).
        unproved: Vec<String>,
        /// The properties the mutant leaves open that the original does not:
        /// proved there, or new.
        properties: Vec<OpenProperty>,
    },
    /// The original specification still verifies on it.
    Survived,
}

/// A property (annotation clause or run-time-error guard) that a run does not
/// prove, named by what it is and where it is rather than by WP's goal name,
/// whose number depends on the position of the property among others of its kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenProperty {
    /// The original file (programs of several files only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The function.
    pub function: String,
    /// Frama-C's kind (`postcondition`, `signed_overflow`, ...).
    pub kind: String,
    /// The line in the original file.
    pub line: usize,
    /// The property's text with whitespace collapsed.
    pub text: String,
    /// Its status.
    pub status: PropertyStatus,
}

impl OpenProperty {
    fn of(p: &Property, (file, line): (Option<String>, usize)) -> OpenProperty {
        OpenProperty {
            file,
            function: p.function.clone(),
            kind: p.kind.clone(),
            line,
            text: p.text.split_whitespace().collect::<Vec<_>>().join(" "),
            status: p.status.clone(),
        }
    }

    fn exact(&self) -> (Option<String>, String, String, usize, String) {
        (
            self.file.clone(),
            self.function.clone(),
            self.kind.clone(),
            self.line,
            self.text.clone(),
        )
    }

    fn loose(&self) -> (Option<String>, String, String, usize) {
        (
            self.file.clone(),
            self.function.clone(),
            self.kind.clone(),
            self.line,
        )
    }
}

/// The properties of `functions` that `run` leaves open (neither proved nor
/// assumed), named by the file and line `place` gives each (the original's).
fn open_properties(
    run: &WpRun,
    functions: &[String],
    place: impl Fn(&Property) -> (Option<String>, usize),
) -> Vec<OpenProperty> {
    run.properties
        .iter()
        .filter(|p| functions.contains(&p.function))
        .filter(|p| !p.status.is_proved() && !p.status.is_assumed())
        .map(|p| OpenProperty::of(p, place(p)))
        .collect()
}

/// The mutant's open properties that the original's open properties do not
/// account for. A property is matched by function, kind, line and text, each
/// original property at most once. On the mutated lines, where the mutation
/// changed the text of the guards, a property is matched by function, kind and
/// line: a guard that was already open there does not kill the mutant because
/// the mutated expression reads differently.
fn unexplained(
    original: &[OpenProperty],
    mutant: &[OpenProperty],
    mutated: impl Fn(&OpenProperty) -> bool,
) -> Vec<OpenProperty> {
    type Exact = (Option<String>, String, String, usize, String);
    let mut exact: BTreeMap<Exact, usize> = BTreeMap::new();
    let mut loose: BTreeMap<(Option<String>, String, String, usize), usize> = BTreeMap::new();
    for p in original {
        *exact.entry(p.exact()).or_default() += 1;
        *loose.entry(p.loose()).or_default() += 1;
    }
    let mut rest = Vec::new();
    for p in mutant {
        match exact.get_mut(&p.exact()) {
            Some(n) if *n > 0 => {
                *n -= 1;
                if let Some(l) = loose.get_mut(&p.loose()) {
                    *l = l.saturating_sub(1);
                }
            }
            _ => rest.push(p),
        }
    }
    let mut out = Vec::new();
    for p in rest {
        match loose.get_mut(&p.loose()) {
            Some(n) if *n > 0 && mutated(p) => *n -= 1,
            _ => out.push(p.clone()),
        }
    }
    out
}

/// One mutant and its fate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MutantOutcome {
    /// The original file the mutant's offsets and line are in (programs of
    /// several files only; a single file's mutants are in that file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
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
    /// The source files of a program of several files (empty for one file).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<PathBuf>,
    /// Mutants of functions that a macro invocation writes (no file has their
    /// text): they cannot be written into a source file and are not counted in
    /// `generated`. Programs only.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub not_in_source: usize,
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
    /// "proved", a mutant counts as killed only if it leaves open a property
    /// that the original proves (or one the original does not have).
    pub baseline: Verdict,
    /// The properties of the mutated segments that the original does not prove
    /// (empty when the baseline is proved).
    pub baseline_open: Vec<OpenProperty>,
    /// WP's names of the goals of the mutated segments that the original does
    /// not prove.
    pub baseline_unproved_goals: Vec<String>,
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

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn sample<T: Clone>(mut ms: Vec<T>, max: Option<usize>) -> Vec<T> {
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
    let mut open_in_base: BTreeMap<String, Baseline> = BTreeMap::new();
    let mut baseline_open = Vec::new();
    let mut baseline_unproved_goals = Vec::new();
    for b in &base {
        let bad = Baseline::of(&b.run, &b.functions, |p| (None, p.line));
        baseline_open.extend(bad.properties.iter().cloned());
        baseline_unproved_goals.extend(bad.goals.iter().cloned());
        for f in &b.functions {
            open_in_base.insert(f.clone(), bad.clone());
        }
    }
    // Mutants are verified without smoke tests: code that a mutation makes dead
    // is not a rejection by the specification. The original's smoke tests are
    // in the baseline.
    let mutant_cfg = WpConfig {
        smoke_tests: false,
        ..cfg.clone()
    };

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
                    _ => assess(m, &text, &name, &mutant_cfg, &counters, &open_in_base)?,
                },
                Compiled::Rejected { message } => Fate::DoesNotCompile { message },
            };
            let diff = if fate == Fate::Survived {
                m.diff(&file.text)
            } else {
                String::new()
            };
            Ok(MutantOutcome {
                file: None,
                mutant: m.clone(),
                fate,
                diff,
            })
        });
    let outcomes: Vec<MutantOutcome> = outcomes.into_iter().collect::<Result<_, _>>()?;
    Ok(summarize(
        Summary {
            file: file.path.clone(),
            files: Vec::new(),
            not_in_source: 0,
            generated,
            baseline,
            baseline_open,
            baseline_unproved_goals,
            mutated_functions: mutated_functions.iter().map(|f| f.to_string()).collect(),
            stats: stats(&counters, &tce_counters, start),
        },
        outcomes,
    ))
}

fn stats(counters: &Counters, tce: &TceCounters, start: Instant) -> StrengthStats {
    let (verifier_calls, verifier_cache_hits) = counters.get();
    StrengthStats {
        verifier_calls,
        verifier_cache_hits,
        compilations: tce.compilations.load(Ordering::Relaxed),
        compile_cache_hits: tce.cache_hits.load(Ordering::Relaxed),
        wall_seconds: start.elapsed().as_secs_f64(),
    }
}

/// What a report says besides its mutants' outcomes.
struct Summary {
    file: Option<PathBuf>,
    files: Vec<PathBuf>,
    not_in_source: usize,
    generated: usize,
    baseline: Verdict,
    baseline_open: Vec<OpenProperty>,
    baseline_unproved_goals: Vec<String>,
    mutated_functions: BTreeSet<String>,
    stats: StrengthStats,
}

/// The report: counts per function and operator, and the VDR.
fn summarize(s: Summary, outcomes: Vec<MutantOutcome>) -> StrengthReport {
    let mutated_functions = &s.mutated_functions;

    let refs: Vec<&MutantOutcome> = outcomes.iter().collect();
    let total = tally(&refs);
    let mut functions = BTreeMap::new();
    for f in mutated_functions {
        let g: Vec<&MutantOutcome> = outcomes
            .iter()
            .filter(|o| o.mutant.function == *f)
            .collect();
        functions.insert(f.clone(), tally(&g));
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
    StrengthReport {
        file: s.file,
        files: s.files,
        not_in_source: s.not_in_source,
        vdr: total.vdr,
        generated: s.generated,
        considered: outcomes.len(),
        equivalent: count(|f| *f == Fate::Equivalent),
        not_compiling: count(|f| matches!(f, Fate::DoesNotCompile { .. })),
        rejected: count(|f| matches!(f, Fate::RejectedByFramaC { .. })),
        killed: total.killed,
        survived: total.assessed - total.killed,
        baseline: s.baseline,
        baseline_open: s.baseline_open,
        baseline_unproved_goals: s.baseline_unproved_goals,
        functions,
        operators,
        mutants: outcomes,
        stats: s.stats,
    }
}

/// What the original leaves unproved in one segment.
#[derive(Debug, Clone, Default)]
struct Baseline {
    /// WP's names of the goals not proved.
    goals: BTreeSet<String>,
    /// The properties not proved.
    properties: Vec<OpenProperty>,
}

impl Baseline {
    /// What `run` leaves unproved of `functions` (properties placed by `place`).
    fn of(
        run: &WpRun,
        functions: &[String],
        place: impl Fn(&Property) -> (Option<String>, usize),
    ) -> Baseline {
        Baseline {
            goals: run
                .goals
                .iter()
                .filter(|g| g.status != GoalStatus::Valid)
                .map(|g| g.name.clone())
                .collect(),
            properties: open_properties(run, functions, place),
        }
    }
}

/// The line of the original that line `l` of the mutant corresponds to, and
/// whether it is one of the mutated lines.
fn original_line(m: &Mutant, l: usize) -> (usize, bool) {
    let before = m.original.matches('\n').count();
    let after = m.replacement.matches('\n').count();
    if l < m.line {
        (l, false)
    } else if l <= m.line + after {
        (l.min(m.line + before), true)
    } else {
        (l + before - after, false)
    }
}

/// Verify one non-equivalent mutant with the original specification.
fn assess(
    m: &Mutant,
    text: &str,
    name: &str,
    cfg: &WpConfig,
    counters: &Counters,
    open_in_base: &BTreeMap<String, Baseline>,
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
    let run = match run_wp(&h.text, name, &h.functions, cfg, counters) {
        Ok(run) => run,
        Err(WpError::FramaC { messages, .. }) => {
            return Ok(Fate::RejectedByFramaC {
                message: messages.join("\n"),
            })
        }
        Err(e) => return Err(e.into()),
    };
    let empty = Baseline::default();
    let base = open_in_base.get(&m.function).unwrap_or(&empty);
    let mutated_lines = m.line..=m.line + m.original.matches('\n').count();
    Ok(judge(
        &run,
        &h.functions,
        base,
        |p| (None, original_line(m, p.line).0),
        |p| mutated_lines.contains(&p.line),
    ))
}

/// The fate of a mutant that the verifier ran on: killed when it leaves open a
/// property the original's `base` does not (file and line carried back to the
/// original's by `place`; on the lines `mutated` says changed, a guard is
/// matched by file, function, kind and line).
fn judge(
    run: &WpRun,
    functions: &[String],
    base: &Baseline,
    place: impl Fn(&Property) -> (Option<String>, usize),
    mutated: impl Fn(&OpenProperty) -> bool,
) -> Fate {
    let open = open_properties(run, functions, &place);
    let properties = unexplained(&base.properties, &open, mutated);
    let unproved_goals: Vec<&str> = run
        .goals
        .iter()
        .filter(|g| g.status != GoalStatus::Valid)
        .map(|g| g.name.as_str())
        .collect();
    let mut unproved: Vec<String> = unproved_goals
        .iter()
        .filter(|g| !base.goals.contains(**g))
        .map(|g| g.to_string())
        .collect();
    // The goals of labelled clauses among the killing properties, by name.
    for p in run
        .properties
        .iter()
        .filter(|p| functions.contains(&p.function))
    {
        let key = OpenProperty::of(p, place(p));
        if properties.contains(&key) {
            for g in &p.goals {
                if unproved_goals.contains(&g.as_str()) && !unproved.contains(g) {
                    unproved.push(g.clone());
                }
            }
        }
    }
    // Without a property report (nothing to match), fall back on goal names.
    let no_report = !run
        .properties
        .iter()
        .any(|p| functions.contains(&p.function));
    if !properties.is_empty() || (no_report && !unproved.is_empty()) {
        Fate::Killed {
            unproved,
            properties,
        }
    } else {
        Fate::Survived
    }
}

/// A mutant of a program: the original file it is written into (absolute, and
/// as the program names it), its offsets and line in that file.
type Placed = (PathBuf, PathBuf, Mutant);

/// Measure the strength of the specifications of a program of several files
/// (or one file with the build's flags): mutants of its own functions are made
/// on each own file's text as written (a source, or a header for its inline
/// functions), macros unexpanded; a function that a macro invocation writes has
/// no text to mutate and its mutants are only counted. Each mutant is
/// compiled, unit by unit that includes its file, with the units' flags for
/// Trivial Compiler Equivalence, and verified as part of the whole program
/// (Frama-C with the build's flags, restricted to the mutated function's
/// segment) in `ws`'s private copy; the user's files are never written.
pub fn strength_program(
    ws: &Workspace,
    cfg: &WpConfig,
    opts: &StrengthOptions,
) -> Result<StrengthReport, StrengthError> {
    strength_edited(ws, ws.originals(), cfg, opts)
}

/// [`strength_program`] of edited texts of the program's own files (the same
/// code with annotations added, as a synthesis loop has them): mutants are made
/// on, and verified against, `texts` (every own file, by absolute path, as
/// [`Workspace::edited`] gives them); lines are those of `texts`.
pub fn strength_edited(
    ws: &Workspace,
    texts: &Edited,
    cfg: &WpConfig,
    opts: &StrengthOptions,
) -> Result<StrengthReport, StrengthError> {
    let start = Instant::now();
    detect(cfg)?;
    let program = ws.program();
    let cwd = std::env::current_dir().unwrap_or_default();
    let names = function_names(program, opts)?;
    let mut tce_cfg = opts.tce.clone();
    if tce_cfg.cache_dir.is_none() {
        tce_cfg.cache_dir = cfg.cache_dir.clone();
    }
    let counters = Counters::default();
    let tce_counters = TceCounters::default();
    let (mut placed, not_in_source) = placed_mutants(program, texts, &names, opts, &cwd);
    for (i, (_, _, m)) in placed.iter_mut().enumerate() {
        m.id = i;
    }
    let generated = placed.len();
    let considered = sample(placed, opts.max_mutants);
    let mutated_functions: BTreeSet<String> = considered
        .iter()
        .map(|(_, _, m)| m.function.clone())
        .collect();

    // Baselines of the segments of mutated functions, in the unchanged copy.
    let work = program_segments(program, |seg| {
        seg.functions.iter().any(|f| mutated_functions.contains(f))
    });
    let originals: &Edited = texts;
    let base = baselines(ws, originals, &work, cfg, &counters)?;

    // The objects of the unchanged units that mutants touch.
    let mut touched: Vec<usize> = considered
        .iter()
        .flat_map(|(abs, _, _)| ws.units_including(abs))
        .collect();
    touched.sort_unstable();
    touched.dedup();
    let objects = ws.compile(originals, &touched, &tce_cfg, &tce_counters)?;
    let mut original_objects = BTreeMap::new();
    for (u, c) in touched.iter().zip(objects) {
        if let Compiled::Rejected { message } = &c {
            let source = &program.units[*u].unit.source;
            return Err(StrengthError::OriginalDoesNotCompile(format!(
                "{}: {message}",
                source.display()
            )));
        }
        original_objects.insert(*u, c);
    }

    let trial = Trial {
        ws,
        originals,
        work: &work,
        original_objects: &original_objects,
        open_in_base: &base.open_in_base,
        // Mutants are verified without smoke tests (see `strength_file`).
        mutant_cfg: WpConfig {
            smoke_tests: false,
            ..cfg.clone()
        },
        tce_cfg: &tce_cfg,
        counters: &counters,
        tce_counters: &tce_counters,
        cwd: &cwd,
    };
    let mut outcomes = Vec::new();
    for (abs, shown, m) in &considered {
        outcomes.push(trial.outcome(abs, shown, m)?);
    }
    Ok(summarize(
        Summary {
            file: None,
            files: program.sources(),
            not_in_source,
            generated,
            baseline: base.verdict,
            baseline_open: base.open,
            baseline_unproved_goals: base.unproved_goals,
            mutated_functions,
            stats: stats(&counters, &tce_counters, start),
        },
        outcomes,
    ))
}

/// The functions to mutate: those the options name (each must be the program's own),
/// else every function of the program.
fn function_names(
    program: &crate::project::Program,
    opts: &StrengthOptions,
) -> Result<Vec<String>, StrengthError> {
    let own: BTreeSet<String> = program.functions().map(|i| i.name.clone()).collect();
    if let Some(fs) = &opts.functions {
        for f in fs {
            if !own.contains(f) {
                return Err(StrengthError::NoFunction(f.clone()));
            }
        }
    }
    Ok(opts
        .functions
        .clone()
        .unwrap_or_else(|| own.iter().cloned().collect()))
}

/// Mutants of each own file's text (its functions as written, macros unexpanded: the
/// same mutants as for the file alone), and how many mutants of the program have no
/// place: a function that no file defines as written (a macro invocation writes it)
/// has its mutants counted, not assessed.
fn placed_mutants(
    program: &crate::project::Program,
    texts: &Edited,
    names: &[String],
    opts: &StrengthOptions,
    cwd: &Path,
) -> (Vec<Placed>, usize) {
    let mut placed: Vec<Placed> = Vec::new();
    let mut parsed: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
    for (abs, text) in texts {
        let shown = display_path(&abs.display().to_string(), cwd);
        let (ms, defined) = source_mutants(text, Some(names), &opts.operators);
        parsed.insert(abs.clone(), defined);
        placed.extend(ms.into_iter().map(|m| (abs.clone(), shown.clone(), m)));
    }
    let mut not_in_source = 0;
    for m in mutants(&program.file, Some(names), &opts.operators) {
        let written = program
            .origin(m.start)
            .map(|o| normalize(&cwd.join(o.file)))
            .and_then(|o| parsed.get(&o))
            .is_some_and(|defined| defined.contains(&m.function));
        if !written {
            not_in_source += 1;
        }
    }
    (placed, not_in_source)
}

/// What the unchanged program's runs leave unproved.
struct Baselines {
    /// The verdict of the unchanged segments.
    verdict: Verdict,
    /// What each function's segment leaves unproved.
    open_in_base: BTreeMap<String, Baseline>,
    /// The properties not proved.
    open: Vec<OpenProperty>,
    /// WP's names of the goals not proved.
    unproved_goals: Vec<String>,
}

/// Runs the segments of `work` on the unchanged texts.
fn baselines(
    ws: &Workspace,
    originals: &Edited,
    work: &[(crate::segment::Segment, Vec<String>)],
    cfg: &WpConfig,
    counters: &Counters,
) -> Result<Baselines, StrengthError> {
    let mut base_runs = Vec::new();
    for (seg, _) in work {
        base_runs.push(ws.run(originals, seg, cfg, counters)?);
    }
    let verdict = combine(&base_runs.iter().collect::<Vec<_>>());
    let mut open_in_base: BTreeMap<String, Baseline> = BTreeMap::new();
    let mut open = Vec::new();
    let mut unproved_goals = Vec::new();
    for ((seg, linked), run) in work.iter().zip(&base_runs) {
        let bad = Baseline::of(run, linked, |p| (p.file.clone(), p.line));
        open.extend(bad.properties.iter().cloned());
        unproved_goals.extend(bad.goals.iter().cloned());
        for f in &seg.functions {
            open_in_base.insert(f.clone(), bad.clone());
        }
    }
    Ok(Baselines {
        verdict,
        open_in_base,
        open,
        unproved_goals,
    })
}

/// What judging one mutant of a program needs.
struct Trial<'a, 'p> {
    ws: &'a Workspace<'p>,
    originals: &'a Edited,
    /// The segments of the mutated functions, with the functions each links.
    work: &'a [(crate::segment::Segment, Vec<String>)],
    /// The objects of the unchanged units that mutants touch.
    original_objects: &'a BTreeMap<usize, Compiled>,
    open_in_base: &'a BTreeMap<String, Baseline>,
    mutant_cfg: WpConfig,
    tce_cfg: &'a TceConfig,
    counters: &'a Counters,
    tce_counters: &'a TceCounters,
    cwd: &'a Path,
}

impl Trial<'_, '_> {
    /// The outcome of mutant `m` of file `abs` (shown as `shown`): compiled unit by
    /// unit for equivalence, then verified in its function's segment.
    fn outcome(
        &self,
        abs: &Path,
        shown: &Path,
        m: &Mutant,
    ) -> Result<MutantOutcome, StrengthError> {
        let original = &self.originals[abs];
        let mut edited = self.originals.clone();
        edited.insert(abs.to_path_buf(), m.apply(original));
        let units = self.ws.units_including(abs);
        let objects = self
            .ws
            .compile(&edited, &units, self.tce_cfg, self.tce_counters)?;
        let rejected = objects.iter().find_map(|c| match c {
            Compiled::Rejected { message } => Some(message.clone()),
            Compiled::Object { .. } => None,
        });
        let same = !units.is_empty()
            && units.iter().zip(&objects).all(|(u, c)| {
                self.original_objects
                    .get(u)
                    .is_some_and(|o| tce::compare(o, c) == Equivalence::Equivalent)
            });
        let fate = if let Some(message) = rejected {
            Fate::DoesNotCompile { message }
        } else if same {
            Fate::Equivalent
        } else {
            self.verified(&edited, abs, m)?
        };
        let diff = if fate == Fate::Survived {
            m.diff(original)
        } else {
            String::new()
        };
        Ok(MutantOutcome {
            file: Some(shown.to_path_buf()),
            mutant: m.clone(),
            fate,
            diff,
        })
    }

    /// The fate of mutant `m` of file `abs` when the program with it (`edited`) is
    /// verified in the mutated function's segment.
    fn verified(&self, edited: &Edited, abs: &Path, m: &Mutant) -> Result<Fate, StrengthError> {
        let Some((seg, linked)) = self
            .work
            .iter()
            .find(|(s, _)| s.functions.contains(&m.function))
        else {
            return Ok(Fate::RejectedByFramaC {
                message: format!("function `{}` has no segment", m.function),
            });
        };
        match self.ws.run(edited, seg, &self.mutant_cfg, self.counters) {
            Ok(run) => {
                let here = |f: &Option<String>| {
                    f.as_deref()
                        .is_some_and(|f| normalize(&self.cwd.join(f)) == *abs)
                };
                let mutated_lines = m.line..=m.line + m.original.matches('\n').count();
                let empty = Baseline::default();
                Ok(judge(
                    &run,
                    linked,
                    self.open_in_base.get(&m.function).unwrap_or(&empty),
                    |p| {
                        let line = if here(&p.file) {
                            original_line(m, p.line).0
                        } else {
                            p.line
                        };
                        (p.file.clone(), line)
                    },
                    |p| here(&p.file) && mutated_lines.contains(&p.line),
                ))
            }
            Err(WpError::FramaC { messages, .. }) => Ok(Fate::RejectedByFramaC {
                message: messages.join("\n"),
            }),
            Err(e) => Err(e.into()),
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn open(function: &str, kind: &str, line: usize, text: &str) -> OpenProperty {
        OpenProperty {
            file: None,
            function: function.into(),
            kind: kind.into(),
            line,
            text: text.into(),
            status: PropertyStatus::Unknown,
        }
    }

    #[test]
    fn open_properties_are_matched_by_what_and_where() {
        let original = vec![
            open("f", "signed_overflow", 11, "k + 1 ≤ 2147483647"),
            open("f", "signed_overflow", 12, "a + b ≤ 2147483647"),
        ];
        let elsewhere = |_: &OpenProperty| false;
        // The same guards, whatever WP calls their goals: nothing new.
        assert!(unexplained(&original, &original, elsewhere).is_empty());
        // A guard the original proves, or a new one, is open on the mutant.
        let new = open("f", "division_by_zero", 12, "b ≢ 0");
        let mutant = vec![original[0].clone(), new.clone()];
        assert_eq!(unexplained(&original, &mutant, elsewhere), vec![new]);
        // Each original property accounts for one open property only.
        let twice = vec![original[0].clone(), original[0].clone()];
        assert_eq!(unexplained(&original, &twice, elsewhere).len(), 1);
        // On the mutated line a changed expression is the same guard.
        let changed = vec![open("f", "signed_overflow", 11, "k + 2 ≤ 2147483647")];
        assert!(unexplained(&original, &changed, |p| p.line == 11).is_empty());
        assert_eq!(unexplained(&original, &changed, elsewhere), changed);
        // A postcondition is never explained by a guard.
        let post = vec![open("f", "postcondition", 11, "\\result ≥ 0")];
        assert_eq!(unexplained(&original, &post, |p| p.line == 11), post);
    }

    #[test]
    fn mutant_lines_map_back_to_the_original() {
        let m = Mutant {
            id: 0,
            operator: Operator::StatementDeletion,
            function: "f".into(),
            start: 0,
            end: 0,
            line: 5,
            original: "g(a,\n  b);".into(),
            replacement: ";".into(),
        };
        assert_eq!(original_line(&m, 4), (4, false));
        assert_eq!(original_line(&m, 5), (5, true));
        // The deleted statement spanned two lines: later lines move up by one.
        assert_eq!(original_line(&m, 6), (7, false));
    }
}
