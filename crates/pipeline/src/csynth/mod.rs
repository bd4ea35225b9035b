//! Specification synthesis for C (SpecSyn, sections 3.2 and 3.3): a language model
//! proposes ACSL clauses, Frama-C/WP decides.
//!
//! For each segment of the file (dependencies first) and each point of interest of
//! the segment (inner loops, outer loops, then the contract), the model sees the
//! segment's harness (callee contracts included, already accepted clauses included,
//! the point marked `/* >>>INFILL<<< */`) and answers with JSON: a list of clauses,
//! each a kind from a fixed list and one expression. Only those strings are taken;
//! each is sanitized ([`clause::sanitize`]: one clause, no comment delimiters, no
//! braces, no C statements) and inserted with `acsl`'s byte-preserving insertion, so
//! the code is never regenerated. Every clause is labelled (`ensures vera_s7: ...`)
//! where ACSL allows it, which ties WP's goals back to the clause.
//!
//! Candidates are checked Houdini-style: verify the segment, drop the clauses with
//! a goal that is not proved, verify again, until every remaining clause is proved
//! together. Dropped and refused clauses, Frama-C's errors and the goals still open
//! go back to the model in a repair turn, up to [`SynthOptions::attempts`] answers
//! per point; what is still unproved after that is left out.
//!
//! Strengthening: the segment's non-equivalent mutants (`acsl` mutants filtered by
//! Trivial Compiler Equivalence) are verified against the accepted clauses; the
//! survivors are shown to the model, which proposes stronger clauses; those that
//! verify on the original are kept. The VDR is measured before and after.
//!
//! Requires clauses are assumptions: in their own function they produce no goal,
//! so they are reported as `assumed`, not `proved`, and a precondition that is
//! literally false is refused. Calls to them are checked in the callers' segments.
//!
//! [`job::run`] is `vera c synth` as one call: the files read as one file or a
//! program, the outputs checked and written, the recall against a reference.

pub mod clause;
pub mod job;
pub mod prompt;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Instant;

use acsl::annotate::insertions_for;
use acsl::strength::Fate;
use acsl::verify::harness_name;
use acsl::workspace::Workspace;
use acsl::wp::Counters;
use acsl::{
    function_segments, harness, insert, parse_c, points_of_interest, run_wp, strength_edited,
    strength_file, CFile, Goal, GoalStatus, Poi, PoiKind, Segment, StrengthOptions, StrengthReport,
    Verdict, WpConfig, WpError,
};
use llm::{Client, LlmError, Request};
use serde::{Deserialize, Serialize};

pub use clause::{sanitize, split_annotation, Clause, ClauseKind};
use prompt::{point_schema, strengthen_schema, Prompts, INFILL};

/// Settings of the loop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SynthOptions {
    /// Answers per point of interest: the first one and the repairs (at least 1).
    pub attempts: usize,
    /// Run VDR-guided strengthening after generation.
    pub strengthen: bool,
    /// Strengthening rounds per segment.
    pub refine_rounds: usize,
    /// At most this many mutants per segment (spread over it).
    pub max_mutants: Option<usize>,
    /// At most this many surviving mutants shown in one strengthening prompt.
    pub max_survivors_shown: usize,
    /// Sampling temperature.
    pub temperature: f64,
    /// Token limit of one answer.
    pub max_tokens: u32,
    /// Preprocessor flags for compiling mutants (Trivial Compiler Equivalence):
    /// the file's `-I`/`-D`/`-U`, which Frama-C gets through `WpConfig::extra_args`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub compiler_flags: Vec<String>,
}

impl Default for SynthOptions {
    fn default() -> Self {
        SynthOptions {
            attempts: 3,
            strengthen: true,
            refine_rounds: 1,
            max_mutants: Some(16),
            max_survivors_shown: 5,
            temperature: 0.0,
            max_tokens: 600,
            compiler_flags: Vec::new(),
        }
    }
}

/// Errors of the loop. Unusable answers are not errors: they are fed back to the
/// model and counted.
#[derive(Debug, thiserror::Error)]
pub enum SynthError {
    /// The C file does not parse.
    #[error("{0}")]
    Parse(acsl::Diagnostics),
    /// Frama-C could not run (setup, process limit, ...).
    #[error(transparent)]
    Wp(#[from] WpError),
    /// Insertion failed.
    #[error(transparent)]
    Annotate(#[from] acsl::AnnotateError),
    /// The LLM client failed (configuration, transport after retries, replay miss, ...).
    #[error(transparent)]
    Llm(#[from] LlmError),
    /// The annotated text no longer has the segment (a bug: only comments are added).
    #[error("the annotated text lost the segment [{0}]")]
    LostSegment(String),
    /// The input already verifies badly: Frama-C rejects the original file.
    #[error("Frama-C rejects the input file before any clause is added:\n{0}")]
    InputRejected(String),
    /// The reference file cannot be used.
    #[error("reference file: {0}")]
    Reference(String),
    /// An annotation of a program cannot be carried to its original file.
    #[error("an annotation cannot be placed in the original files: {0}")]
    Place(String),
}

/// A point of interest, by function and kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PointId {
    /// The function.
    pub function: String,
    /// Contract or loop.
    #[serde(flatten)]
    pub kind: PoiKind,
}

impl PointId {
    fn of(p: &Poi) -> PointId {
        PointId {
            function: p.function.clone(),
            kind: p.kind,
        }
    }

    /// `f:contract` or `f:loop0`: how points are named to the model.
    pub fn tag(&self) -> String {
        match self.kind {
            PoiKind::Contract => format!("{}:contract", self.function),
            PoiKind::Loop { index } => format!("{}:loop{index}", self.function),
        }
    }

    fn allowed(&self) -> &'static [ClauseKind] {
        match self.kind {
            PoiKind::Contract => &ClauseKind::CONTRACT,
            PoiKind::Loop { .. } => &ClauseKind::LOOP,
        }
    }
}

/// Which step proposed a clause.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// The first answer for a point.
    Generate,
    /// A repair answer.
    Repair,
    /// A strengthening answer.
    Strengthen,
}

/// What became of one proposed clause.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "status")]
pub enum ClauseStatus {
    /// Not decided yet (never in a finished report).
    Pending,
    /// Every goal of the clause is proved, together with the other kept clauses.
    Proved,
    /// A precondition: assumed in its function (no goal there), kept.
    Assumed,
    /// Some goal was not proved: left out.
    Dropped {
        /// The goals and their status.
        goals: Vec<String>,
    },
    /// Refused by the sanitizer before verification.
    Rejected {
        /// Why.
        reason: String,
    },
    /// Frama-C refused the annotation (syntax or typing).
    RejectedByFramaC {
        /// Frama-C's messages for its line.
        message: String,
    },
    /// The same clause (up to whitespace) was already proposed at this point.
    Duplicate,
}

impl ClauseStatus {
    /// Kept in the output.
    pub fn kept(&self) -> bool {
        matches!(self, ClauseStatus::Proved | ClauseStatus::Assumed)
    }
}

/// One clause a model proposed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Proposal {
    /// Number, also in the label `vera_s<id>`.
    pub id: usize,
    /// Where.
    pub at: PointId,
    /// The clause as given (kind and expression); for refused entries, the raw text.
    pub text: String,
    /// The sanitized clause (none when refused by the sanitizer).
    #[serde(skip)]
    clause: Option<Clause>,
    /// Which step proposed it.
    pub origin: Origin,
    /// Which answer for its point (1 = first).
    pub attempt: usize,
    /// What became of it.
    #[serde(flatten)]
    pub status: ClauseStatus,
    /// Dropped at first, proved once the function's preconditions were kept.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub revived: bool,
    /// Mutants (ids) this clause rejects in the final strength measurement.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kills: Vec<usize>,
}

fn label(id: usize) -> String {
    format!("vera_s{id}")
}

/// How a point of interest went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PointOutcome {
    /// Everything proposed in the first answer was proved.
    AcceptedFirst,
    /// A repair answer left nothing open.
    Repaired,
    /// The answers ran out with clauses still unproved; those were left out.
    Exhausted,
    /// Nothing was kept.
    NothingKept,
    /// A program's point whose annotation has no place in the original files (a
    /// loop inside a macro's expansion, a line a macro changed before it): the
    /// model was not asked; `reason` says where and why.
    NotPlaceable,
}

/// One point of interest in the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointReport {
    /// Where.
    #[serde(flatten)]
    pub at: PointId,
    /// 1-based line of the function or loop in the input (for a program: in `file`).
    pub line: usize,
    /// For a program: the original file of the point, relative to the working
    /// directory where it is under it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Why the point was skipped ([`PointOutcome::NotPlaceable`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Answers asked for.
    pub attempts: usize,
    /// LLM requests for this point.
    pub llm_requests: usize,
    /// Prompt tokens of the provider calls for this point.
    pub input_tokens: u64,
    /// Generated tokens of the provider calls for this point.
    pub output_tokens: u64,
    /// Frama-C runs for this point.
    pub verifier_calls: usize,
    /// Frama-C runs answered from the cache.
    pub verifier_cache_hits: usize,
    /// How it went.
    pub outcome: PointOutcome,
    /// The clauses kept here (after generation and repair).
    pub kept: Vec<String>,
    /// Goals of the function still open after the last answer (RTE guards, calls).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub open_goals: Vec<String>,
}

/// Strength of one segment before and after refinement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SegmentStrength {
    /// The segment's functions.
    pub functions: Vec<String>,
    /// Killed and assessed mutants, and the VDR, before refinement.
    pub before: VdrCount,
    /// The same after refinement.
    pub after: VdrCount,
    /// LLM requests for strengthening.
    pub llm_requests: usize,
    /// Clauses kept from strengthening.
    pub added: Vec<String>,
    /// Mutants that still survive (line and change).
    pub survivors: Vec<String>,
    /// When mutants could not be assessed (e.g. gcc rejects the file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Killed / assessed mutants.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct VdrCount {
    /// Killed.
    pub killed: usize,
    /// Killed + survived.
    pub assessed: usize,
    /// killed / assessed.
    pub vdr: Option<f64>,
}

impl VdrCount {
    fn of(r: &StrengthReport) -> VdrCount {
        VdrCount {
            killed: r.killed,
            assessed: r.killed + r.survived,
            vdr: r.vdr,
        }
    }
    fn add(&mut self, o: &VdrCount) {
        self.killed += o.killed;
        self.assessed += o.assessed;
        self.vdr = (self.assessed > 0).then(|| self.killed as f64 / self.assessed as f64);
    }
}

/// Totals of the run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Distinct clauses proposed (all steps, duplicates excluded).
    pub proposed: usize,
    /// Proved and kept.
    pub proved: usize,
    /// Preconditions kept as assumptions.
    pub assumed: usize,
    /// Unprovable, left out.
    pub dropped: usize,
    /// Refused by the sanitizer.
    pub rejected: usize,
    /// Refused by Frama-C.
    pub rejected_by_frama_c: usize,
    /// Duplicates (not counted in `proposed`).
    pub duplicates: usize,
    /// proved / (proposed − assumed): the share of the checkable proposals that
    /// were proved. `None` when nothing checkable was proposed.
    pub precision: Option<f64>,
    /// Mutant counts and VDR of the whole file after generation and repair.
    pub vdr_before: VdrCount,
    /// The same after strengthening.
    pub vdr_after: VdrCount,
    /// Frama-C runs of the loop (generation, repair, Houdini, final check).
    pub verifier_calls: usize,
    /// Of those, answered from the cache.
    pub verifier_cache_hits: usize,
    /// Frama-C runs of the strength measurements (baselines and mutants).
    pub strength_verifier_calls: usize,
    /// Of those, answered from the cache.
    pub strength_cache_hits: usize,
    /// LLM requests.
    pub llm_requests: u64,
    /// LLM provider calls (not cache hits or replays).
    pub llm_calls: u64,
    /// Prompt tokens of provider calls.
    pub input_tokens: u64,
    /// Generated tokens of provider calls.
    pub output_tokens: u64,
    /// Wall time in seconds.
    pub wall_seconds: f64,
}

/// The report of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SynthReport {
    /// The input file.
    pub file: Option<PathBuf>,
    /// Settings.
    pub options: SynthOptions,
    /// Prompt template ids.
    pub prompts: Vec<String>,
    /// Points of interest in processing order.
    pub points: Vec<PointReport>,
    /// Every clause proposed.
    pub clauses: Vec<Proposal>,
    /// Strength per segment (empty with strengthening off and no measurement).
    pub strength: Vec<SegmentStrength>,
    /// Verification of the annotated output, file-wide.
    pub final_verdict: Verdict,
    /// Totals.
    pub summary: Summary,
    /// LLM accounting per stage (SpecSyn's Table 5 columns).
    pub llm: llm::Accounting,
}

/// The annotated text and the report.
#[derive(Debug, Clone)]
pub struct SynthOutcome {
    /// The input with the kept clauses inserted (the code is byte-for-byte the input);
    /// empty for a program (see `files`).
    pub text: String,
    /// For a program: every own file (absolute original path) with the kept
    /// clauses inserted where they belong (sources and headers).
    pub files: Vec<(PathBuf, String)>,
    /// The report.
    pub report: SynthReport,
}

/// Run the loop on a parsed file with `client` as the model and Frama-C/WP as the
/// judge. `log` receives one line per step (for progress output).
pub fn synthesize(
    file: &CFile,
    client: &Client,
    wp: &WpConfig,
    opts: &SynthOptions,
    log: &mut dyn FnMut(&str),
) -> Result<SynthOutcome, SynthError> {
    let judge = Judge::Harness {
        file_name: harness_name(file),
    };
    run_loop(file, judge, client, wp, opts, log)
}

/// Run the loop on a program of several files (or one file with its headers):
/// points of interest are the program's own functions, wherever their text is;
/// every candidate is verified in a copy of the original files with the build's
/// flags ([`Workspace`]), and the kept clauses go into the original sources and
/// headers (`SynthOutcome::files`). Strengthening measures each segment's
/// mutants in the program's files as written ([`acsl::strength_edited`]).
pub fn synthesize_program(
    ws: &Workspace<'_>,
    client: &Client,
    wp: &WpConfig,
    opts: &SynthOptions,
    log: &mut dyn FnMut(&str),
) -> Result<SynthOutcome, SynthError> {
    run_loop(
        &ws.program().file,
        Judge::Program(ws),
        client,
        wp,
        opts,
        log,
    )
}

/// Who verifies candidates.
enum Judge<'a> {
    /// Harnesses cut from one file's text, written under this name.
    Harness { file_name: String },
    /// The original files of a program, copied.
    Program(&'a Workspace<'a>),
}

/// The loop behind [`synthesize`] and [`synthesize_program`]: every point of interest
/// of every segment, then the final build and its report.
fn run_loop(
    file: &CFile,
    judge: Judge<'_>,
    client: &Client,
    wp: &WpConfig,
    opts: &SynthOptions,
    log: &mut dyn FnMut(&str),
) -> Result<SynthOutcome, SynthError> {
    let start = Instant::now();
    let program = match &judge {
        Judge::Program(ws) => Some(*ws),
        Judge::Harness { .. } => None,
    };
    let mut e = Engine {
        original: file,
        pois: Vec::new(),
        client,
        wp,
        opts,
        prompts: Prompts::builtin()?,
        counters: Counters::default(),
        proposals: Vec::new(),
        judge,
        strength_calls: (0, 0),
    };
    let segs = own_segments(file, program, log);
    for s in &segs {
        e.pois.extend(points_of_interest(file, s));
    }
    // The input itself must be accepted by Frama-C.
    for s in &segs {
        if let (_, Err(m)) = e.verify(|_| false, &s.functions)? {
            return Err(SynthError::InputRejected(m.join("\n")));
        }
    }
    let mut points = Vec::new();
    let mut strength = Vec::new();
    for s in &segs {
        e.segment(s, &mut points, log)?;
        if opts.strengthen {
            let st = e.strengthen(s, log)?;
            log(&format!(
                "  strength: VDR {} -> {} ({} clause(s) added)",
                pct(st.before.vdr),
                pct(st.after.vdr),
                st.added.len()
            ));
            strength.push(st);
        }
    }
    // Kills are attributed on the final measurement.
    let (text, files, fin) = e.final_build(program)?;
    let acc = client.accounting();
    let summary = e.summary(&fin.stats, &strength, &acc, start);
    let report = SynthReport {
        file: file.path.clone(),
        options: opts.clone(),
        prompts: e.prompts.ids(),
        points,
        clauses: e.proposals,
        strength,
        final_verdict: fin.verdict,
        summary,
        llm: acc,
    };
    Ok(SynthOutcome {
        text,
        files,
        report,
    })
}

/// The segments to annotate: for a program, its own functions, each function once.
fn own_segments(
    file: &CFile,
    program: Option<&Workspace<'_>>,
    log: &mut dyn FnMut(&str),
) -> Vec<Segment> {
    // Not the C library's functions; and a header's static function has a copy in
    // every unit that includes it, while its annotations have one place, in the header.
    let mut seen: std::collections::BTreeMap<String, String> = Default::default();
    let mut skipped: Vec<String> = Vec::new();
    let segs: Vec<Segment> = function_segments(file)
        .into_iter()
        .filter(|s| {
            program.is_none_or(|ws| {
                // Points are told apart by function name: a second, different
                // `static` function of the same name in another unit is not
                // annotated (said in the log), never given the first one's clauses.
                let mut new = false;
                for &i in &s.items {
                    let it = &file.items[i];
                    if it.kind != acsl::ItemKind::Function || ws.program().is_library(it) {
                        continue;
                    }
                    let place = ws
                        .program()
                        .item_origin(it)
                        .map(|o| format!("{}:{}", o.file.display(), o.line))
                        .unwrap_or_default();
                    match seen.get(&it.name) {
                        None => {
                            seen.insert(it.name.clone(), place);
                            new = true;
                        }
                        Some(first) if *first != place => skipped.push(format!(
                            "{place}: a second function named `{}` (the first is at {first}) is not annotated: points are told apart by name",
                            it.name
                        )),
                        Some(_) => {}
                    }
                }
                new
            })
        })
        .collect();
    for m in &skipped {
        log(m);
    }
    segs
}

/// What one answer at a point of interest came to.
enum Reply {
    /// No clause that was not proposed before: asking again would repeat it.
    Nothing,
    /// Every new clause is settled and nothing is open: no repair.
    Clean,
    /// A repair is due, with this feedback.
    Repair(String),
}

fn pct(v: Option<f64>) -> String {
    v.map(|v| format!("{:.0}%", 100.0 * v))
        .unwrap_or_else(|| "n/a".into())
}

/// An expression without a leading clause label (`name: ...`).
fn strip_label(expr: &str) -> &str {
    match expr.split_once(':') {
        Some((l, rest))
            if !l.trim().is_empty()
                && l.trim().chars().all(|c| c.is_alphanumeric() || c == '_')
                && !rest.starts_with(':') =>
        {
            rest.trim_start()
        }
        _ => expr,
    }
}

/// Does goal `name` carry label `l` (`..._l` or `..._l_...`)?
fn has_label(name: &str, l: &str) -> bool {
    name.match_indices(l).any(|(i, _)| {
        let after = &name[i + l.len()..];
        i > 0 && name.as_bytes()[i - 1] == b'_' && (after.is_empty() || after.starts_with('_'))
    })
}

/// The part of a goal name after `<model>_<function>_`.
fn goal_rest<'g>(name: &'g str, function: &str) -> Option<&'g str> {
    name.split_once('_')?
        .1
        .strip_prefix(function)?
        .strip_prefix('_')
}

/// Does goal `name` belong to this clause? Labelled clauses by label; the others
/// (assigns, loop assigns, loop variant) by kind within their function, so several
/// of one kind in one function are judged together.
fn belongs(name: &str, id: usize, at: &PointId, kind: ClauseKind) -> bool {
    if kind.labelled() {
        return has_label(name, &label(id));
    }
    let prefix = match kind {
        ClauseKind::Assigns => "assigns",
        ClauseKind::LoopAssigns => "loop_assigns",
        _ => "loop_variant",
    };
    goal_rest(name, &at.function).is_some_and(|r| r.starts_with(prefix))
}

fn goal_line(g: &Goal) -> String {
    format!("{}: {:?}", g.name, g.status).to_lowercase()
}

/// The line numbers named in Frama-C's messages (`file.c:12: ...`).
fn message_lines(messages: &[String], file_name: &str) -> Vec<(usize, String)> {
    let pat = format!("{file_name}:");
    let mut out = Vec::new();
    for m in messages {
        for (i, _) in m.match_indices(&pat) {
            let digits: String = m[i + pat.len()..]
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            if let Ok(n) = digits.parse() {
                out.push((n, m.clone()));
            }
        }
    }
    out
}

struct HoudiniOut {
    /// Ids proved (or assumed).
    kept: Vec<usize>,
    /// Ids dropped or refused by Frama-C.
    failed: Vec<usize>,
    /// Goals of the segment not proved and not tied to a candidate.
    open: Vec<Goal>,
}

struct Engine<'a> {
    original: &'a CFile,
    pois: Vec<Poi>,
    client: &'a Client,
    wp: &'a WpConfig,
    opts: &'a SynthOptions,
    prompts: Prompts,
    counters: Counters,
    proposals: Vec<Proposal>,
    judge: Judge<'a>,
    strength_calls: (usize, usize),
}

impl Engine<'_> {
    /// The original text with the clauses of the proposals `include` selects.
    fn build(&self, include: impl Fn(&Proposal) -> bool) -> Result<String, SynthError> {
        let ins = self.insertions(include)?;
        Ok(insert(&self.original.text, &ins)?.text)
    }

    /// Where the clauses of the proposals `include` selects go in the original text.
    fn insertions(
        &self,
        include: impl Fn(&Proposal) -> bool,
    ) -> Result<Vec<acsl::Insertion>, SynthError> {
        let mut ins = Vec::new();
        for poi in &self.pois {
            let at = PointId::of(poi);
            let texts: Vec<String> = self
                .proposals
                .iter()
                .filter(|p| p.at == at && include(p))
                .filter_map(|p| p.clause.as_ref().map(|c| c.text(Some(&label(p.id)))))
                .collect();
            ins.extend(insertions_for(self.original, poi, &texts)?);
        }
        Ok(ins)
    }

    fn segment_of(&self, cf: &CFile, functions: &[String]) -> Result<Segment, SynthError> {
        function_segments(cf)
            .into_iter()
            .find(|s| s.functions == functions)
            .ok_or_else(|| SynthError::LostSegment(functions.join(", ")))
    }

    /// Verify the segment with `functions` with the clauses `include` selects:
    /// the texts verified (the name Frama-C's messages give each, and the text)
    /// and the run, or Frama-C's messages when it rejects them.
    #[allow(clippy::type_complexity)]
    fn verify(
        &self,
        include: impl Fn(&Proposal) -> bool,
        functions: &[String],
    ) -> Result<(Vec<(String, String)>, Result<acsl::WpRun, Vec<String>>), SynthError> {
        let (texts, run) = match &self.judge {
            Judge::Harness { file_name } => {
                let text = self.build(include)?;
                let cf = parse_c(text.as_str()).map_err(SynthError::Parse)?;
                let seg = self.segment_of(&cf, functions)?;
                let h = harness(&cf, &seg);
                let run = run_wp(&h.text, file_name, &h.functions, self.wp, &self.counters);
                (vec![(file_name.clone(), text)], run)
            }
            Judge::Program(ws) => {
                let ins = self.insertions(include)?;
                let edited = ws.edited(&ins).map_err(SynthError::Place)?;
                let seg = self.segment_of(self.original, functions)?;
                let run = ws.run(&edited, &seg, self.wp, &self.counters);
                let texts = edited
                    .into_iter()
                    .map(|(p, t)| {
                        let name = p
                            .file_name()
                            .map(|n| n.to_string_lossy().into_owned())
                            .unwrap_or_default();
                        (name, t)
                    })
                    .collect();
                (texts, run)
            }
        };
        match run {
            Ok(r) => Ok((texts, Ok(r))),
            Err(WpError::FramaC { messages, .. }) => Ok((texts, Err(messages))),
            Err(e) => Err(e.into()),
        }
    }

    /// The code shown to the model: the segment's harness with the kept clauses,
    /// labels removed, and the marker before `at` (when given).
    fn shown_code(&self, seg: &Segment, at: Option<&PointId>) -> Result<String, SynthError> {
        let mut text = self.build(|p| p.status.kept())?;
        let mut cf = parse_c(text.as_str()).map_err(SynthError::Parse)?;
        if let Judge::Program(ws) = &self.judge {
            // The C library's declarations are not shown: blank them (keeping
            // lines) and parse again. Only comments were added, so the items
            // are those of the program, in order.
            let program = ws.program();
            if cf.items.len() == program.file.items.len() {
                let mut bytes = text.into_bytes();
                for (i, item) in cf.items.iter().enumerate() {
                    if program.is_library(&program.file.items[i]) {
                        let span = item.full_span();
                        for b in &mut bytes[span.start..span.end] {
                            if *b != b'\n' {
                                *b = b' ';
                            }
                        }
                    }
                }
                text = String::from_utf8_lossy(&bytes).into_owned();
                cf = parse_c(text.as_str()).map_err(SynthError::Parse)?;
            }
        }
        let s = self.segment_of(&cf, &seg.functions)?;
        let h = harness(&cf, &s);
        let mark_line = at.and_then(|at| {
            points_of_interest(&cf, &s)
                .into_iter()
                .find(|p| PointId::of(p) == *at)
                .map(|p| p.existing.map(|e| e.line).unwrap_or(p.line))
        });
        let mut out = String::new();
        for (i, line) in h.text.lines().enumerate() {
            if Some(i + 1) == mark_line {
                let indent: String = line.chars().take_while(|c| c.is_whitespace()).collect();
                out.push_str(&indent);
                out.push_str(INFILL);
                out.push('\n');
            }
            out.push_str(&strip_labels(line));
            out.push('\n');
        }
        // Collapse the blank lines a harness leaves for removed functions.
        let mut collapsed = String::new();
        let mut blank = 0;
        for l in out.lines() {
            if l.trim().is_empty() {
                blank += 1;
                if blank > 1 {
                    continue;
                }
            } else {
                blank = 0;
            }
            collapsed.push_str(l);
            collapsed.push('\n');
        }
        Ok(collapsed.trim().to_string())
    }

    fn propose(
        &mut self,
        at: &PointId,
        kind: &str,
        expr: &str,
        origin: Origin,
        attempt: usize,
    ) -> usize {
        let id = self.proposals.len() + 1;
        let (clause, status) = match sanitize(kind, expr, at.allowed()) {
            Ok(c) => {
                // A clause the point's annotation already has, or one proposed
                // before, is a duplicate: proving it again adds nothing.
                let written = self
                    .pois
                    .iter()
                    .find(|p| PointId::of(p) == *at)
                    .and_then(|p| p.existing)
                    .is_some_and(|e| {
                        split_annotation(e.text(&self.original.text))
                            .into_iter()
                            .any(|(kind, expr)| {
                                kind == Some(c.kind)
                                    && Clause {
                                        kind: c.kind,
                                        expr: strip_label(&expr).to_string(),
                                    }
                                    .key()
                                        == c.key()
                            })
                    });
                let dup = written
                    || self.proposals.iter().any(|p| {
                        p.at == *at && p.clause.as_ref().is_some_and(|d| d.key() == c.key())
                    });
                let st = if dup {
                    ClauseStatus::Duplicate
                } else {
                    ClauseStatus::Pending
                };
                (Some(c), st)
            }
            Err(reason) => (None, ClauseStatus::Rejected { reason }),
        };
        let text = clause
            .as_ref()
            .map(|c| c.text(None))
            .unwrap_or_else(|| format!("{kind} {expr}"));
        self.proposals.push(Proposal {
            id,
            at: at.clone(),
            text,
            clause,
            origin,
            attempt,
            status,
            revived: false,
            kills: Vec::new(),
        });
        id
    }

    fn get(&self, id: usize) -> &Proposal {
        &self.proposals[id - 1]
    }

    fn set(&mut self, id: usize, status: ClauseStatus) {
        self.proposals[id - 1].status = status;
    }

    /// Houdini: verify the kept clauses with `candidates`, drop the candidates with
    /// an unproved goal (or refused by Frama-C), until the rest is proved together.
    fn houdini(
        &mut self,
        candidates: Vec<usize>,
        functions: &[String],
    ) -> Result<HoudiniOut, SynthError> {
        let mut current = candidates;
        let mut failed = Vec::new();
        let mut open = Vec::new();
        while !current.is_empty() {
            let cur: BTreeSet<usize> = current.iter().copied().collect();
            let (texts, run) =
                self.verify(|p| p.status.kept() || cur.contains(&p.id), functions)?;
            match run {
                Err(messages) => {
                    let mut culprits = Vec::new();
                    for &id in &current {
                        let p = self.get(id);
                        let Some(c) = &p.clause else { continue };
                        let needle = c.text(Some(&label(id)));
                        // The file and line the clause is on, and the messages there.
                        let Some((name, text, pos)) = texts
                            .iter()
                            .find_map(|(n, t)| t.find(&needle).map(|pos| (n, t, pos)))
                        else {
                            continue;
                        };
                        let lines = message_lines(&messages, name);
                        let line = text[..pos].matches('\n').count() + 1;
                        let msgs: Vec<&str> = lines
                            .iter()
                            .filter(|(n, _)| *n == line)
                            .map(|(_, m)| m.as_str())
                            .collect();
                        if !msgs.is_empty() {
                            culprits.push((id, msgs.join("\n")));
                        }
                    }
                    if culprits.is_empty() {
                        let message = messages.join("\n");
                        for &id in &current {
                            self.set(
                                id,
                                ClauseStatus::RejectedByFramaC {
                                    message: message.clone(),
                                },
                            );
                        }
                        failed.append(&mut current);
                    } else {
                        for (id, message) in culprits {
                            self.set(id, ClauseStatus::RejectedByFramaC { message });
                            current.retain(|&c| c != id);
                            failed.push(id);
                        }
                    }
                }
                Ok(run) => {
                    let mut failing = Vec::new();
                    let mut verdicts = Vec::new();
                    for &id in &current {
                        let p = self.get(id);
                        let kind = p
                            .clause
                            .as_ref()
                            .map(|c| c.kind)
                            .unwrap_or(ClauseKind::Ensures);
                        let goals: Vec<&Goal> = run
                            .goals
                            .iter()
                            .filter(|g| belongs(&g.name, id, &p.at, kind))
                            .collect();
                        let bad: Vec<String> = goals
                            .iter()
                            .filter(|g| g.status != GoalStatus::Valid)
                            .map(|g| goal_line(g))
                            .collect();
                        if goals.is_empty() && kind != ClauseKind::Requires {
                            failing.push((id, vec!["no goal was generated for it".to_string()]));
                        } else if !bad.is_empty() {
                            failing.push((id, bad));
                        } else if goals.is_empty() {
                            verdicts.push((id, ClauseStatus::Assumed));
                        } else {
                            verdicts.push((id, ClauseStatus::Proved));
                        }
                    }
                    // A new precondition under which some code of its function is
                    // unreachable (a failed smoke test there) is vacuous there:
                    // dropped, like an unproved clause.
                    for t in run.smoke_tests.iter().filter(|t| !t.passed) {
                        for &id in &current {
                            let p = self.get(id);
                            let requires = p
                                .clause
                                .as_ref()
                                .is_some_and(|c| c.kind == ClauseKind::Requires);
                            if requires
                                && t.function.as_deref() == Some(p.at.function.as_str())
                                && !failing.iter().any(|(f, _)| *f == id)
                            {
                                failing.push((
                                    id,
                                    vec![format!(
                                        "smoke test {} fails: with it, code of {} is unreachable",
                                        t.name, p.at.function
                                    )],
                                ));
                            }
                        }
                    }
                    if failing.is_empty() {
                        for (id, st) in verdicts {
                            self.set(id, st);
                        }
                        open = self.open_goals(&run.goals, &current);
                        break;
                    }
                    for (id, goals) in failing {
                        self.set(id, ClauseStatus::Dropped { goals });
                        current.retain(|&c| c != id);
                        failed.push(id);
                    }
                    if current.is_empty() {
                        open = self.open_goals(&run.goals, &failed);
                    }
                }
            }
        }
        Ok(HoudiniOut {
            kept: current,
            failed,
            open,
        })
    }

    /// Retry the dropped clauses of a segment after preconditions were kept there.
    fn revive(&mut self, seg: &Segment) -> Result<usize, SynthError> {
        let in_seg = |p: &Proposal| seg.functions.contains(&p.at.function);
        let has_requires = self.proposals.iter().any(|p| {
            in_seg(p)
                && p.status.kept()
                && p.clause.as_ref().map(|c| c.kind) == Some(ClauseKind::Requires)
        });
        let dropped: Vec<usize> = self
            .proposals
            .iter()
            .filter(|p| in_seg(p) && matches!(p.status, ClauseStatus::Dropped { .. }))
            .map(|p| p.id)
            .collect();
        if !has_requires || dropped.is_empty() {
            return Ok(0);
        }
        let before: Vec<ClauseStatus> = dropped
            .iter()
            .map(|&id| self.get(id).status.clone())
            .collect();
        for &id in &dropped {
            self.set(id, ClauseStatus::Pending);
        }
        let h = self.houdini(dropped.clone(), &seg.functions)?;
        // A clause that fails again keeps the goals of its first failure.
        for (id, st) in dropped.iter().zip(before) {
            if !self.get(*id).status.kept() {
                self.set(*id, st);
            } else {
                self.proposals[*id - 1].revived = true;
            }
        }
        Ok(h.kept.len())
    }

    /// Unproved goals not tied to any of `ids`.
    fn open_goals(&self, goals: &[Goal], ids: &[usize]) -> Vec<Goal> {
        goals
            .iter()
            .filter(|g| g.status != GoalStatus::Valid)
            .filter(|g| {
                !ids.iter().any(|&id| {
                    let p = self.get(id);
                    p.clause
                        .as_ref()
                        .is_some_and(|c| belongs(&g.name, id, &p.at, c.kind))
                })
            })
            .cloned()
            .collect()
    }

    fn request(&self, turns: &[(bool, String)], schema: serde_json::Value) -> Request {
        let mut r = Request::new().system(self.prompts.system.render(&[]).unwrap_or_default());
        for (user, text) in turns {
            r = if *user {
                r.user(text.clone())
            } else {
                r.assistant(text.clone())
            };
        }
        r.temperature(self.opts.temperature)
            .max_tokens(self.opts.max_tokens)
            .schema("acsl_clauses", schema)
    }

    /// Runs the points of one segment, then revives its dropped clauses with the preconditions.
    fn segment(
        &mut self,
        s: &Segment,
        points: &mut Vec<PointReport>,
        log: &mut dyn FnMut(&str),
    ) -> Result<(), SynthError> {
        log(&format!("segment {} [{}]", s.index, s.functions.join(", ")));
        for poi in points_of_interest(self.original, s) {
            let r = self.point(s, &poi, log)?;
            let place = match &r.file {
                Some(f) => format!("{f}:{}", r.line),
                None => format!("line {}", r.line),
            };
            log(&format!(
                "  {} ({place}): {:?}, {} attempt(s), kept {}",
                r.at.tag(),
                r.outcome,
                r.attempts,
                r.kept.len()
            ));
            points.push(r);
        }
        // Loops come before the contract, so a loop invariant can fail only for
        // want of the precondition chosen later: once preconditions were kept,
        // the dropped clauses of the segment get one more Houdini pass.
        let revived = self.revive(s)?;
        if revived > 0 {
            log(&format!(
                "  {revived} dropped clause(s) proved with the preconditions"
            ));
            for r in points
                .iter_mut()
                .filter(|r| s.functions.contains(&r.at.function))
            {
                r.kept = self
                    .proposals
                    .iter()
                    .filter(|p| p.at == r.at && p.status.kept())
                    .map(|p| p.text.clone())
                    .collect();
            }
        }
        Ok(())
    }

    /// The input with every kept clause and its final verification, where kills are counted.
    #[allow(clippy::type_complexity)]
    fn final_build(
        &self,
        program: Option<&Workspace<'_>>,
    ) -> Result<(String, Vec<(PathBuf, String)>, acsl::VerifyReport), SynthError> {
        Ok(match program {
            None => {
                let text = self.build(|p| p.status.kept())?;
                let mut out = parse_c(text.as_str()).map_err(SynthError::Parse)?;
                out.path = self.original.path.clone();
                let fin = acsl::verify_file(&out, self.wp)?;
                (text, Vec::new(), fin)
            }
            Some(ws) => {
                let ins = self.insertions(|p| p.status.kept())?;
                let edited = ws.edited(&ins).map_err(SynthError::Place)?;
                let fin = ws.verify(&edited, self.wp)?;
                (String::new(), edited.into_iter().collect(), fin)
            }
        })
    }

    /// The counts of the run: verifier work, clause fates, strength and model usage.
    fn summary(
        &self,
        fin: &acsl::RunStats,
        strength: &[SegmentStrength],
        acc: &llm::Accounting,
        start: Instant,
    ) -> Summary {
        let (vc, vh) = self.counters.get();
        let mut summary = Summary {
            verifier_calls: vc + fin.verifier_calls,
            verifier_cache_hits: vh + fin.cache_hits,
            strength_verifier_calls: self.strength_calls.0,
            strength_cache_hits: self.strength_calls.1,
            ..Summary::default()
        };
        for p in &self.proposals {
            match &p.status {
                ClauseStatus::Duplicate => summary.duplicates += 1,
                ClauseStatus::Rejected { .. } => summary.rejected += 1,
                ClauseStatus::RejectedByFramaC { .. } => summary.rejected_by_frama_c += 1,
                ClauseStatus::Proved => summary.proved += 1,
                ClauseStatus::Assumed => summary.assumed += 1,
                ClauseStatus::Dropped { .. } | ClauseStatus::Pending => summary.dropped += 1,
            }
        }
        summary.proposed = self.proposals.len() - summary.duplicates;
        let checkable = summary.proposed - summary.assumed;
        summary.precision = (checkable > 0).then(|| summary.proved as f64 / checkable as f64);
        for st in strength {
            summary.vdr_before.add(&st.before);
            summary.vdr_after.add(&st.after);
        }
        summary.llm_requests = acc.total.requests;
        summary.llm_calls = acc.total.calls;
        summary.input_tokens = acc.total.input_tokens;
        summary.output_tokens = acc.total.output_tokens;
        summary.wall_seconds = start.elapsed().as_secs_f64();
        summary
    }
    /// Generation and repair for one point of interest.
    fn point(
        &mut self,
        seg: &Segment,
        poi: &Poi,
        log: &mut dyn FnMut(&str),
    ) -> Result<PointReport, SynthError> {
        let at = PointId::of(poi);
        let (calls0, hits0) = self.counters.get();
        let code = self.shown_code(seg, Some(&at))?;
        let (file, line) = self.origin_of(poi);
        let place = match &file {
            Some(f) => format!("{f}:{line}"),
            None => format!("line {line}"),
        };
        let mut report = PointReport {
            at: at.clone(),
            line,
            file,
            reason: None,
            attempts: 0,
            llm_requests: 0,
            input_tokens: 0,
            output_tokens: 0,
            verifier_calls: 0,
            verifier_cache_hits: 0,
            outcome: PointOutcome::NothingKept,
            kept: Vec::new(),
            open_goals: Vec::new(),
        };
        if let Some(reason) = self.unplaceable(poi)? {
            log(&format!("  {}: skipped: {reason}", at.tag()));
            return Ok(PointReport {
                reason: Some(reason),
                outcome: PointOutcome::NotPlaceable,
                ..report
            });
        }
        let first = self.point_prompt(poi, &at, &code, &place)?;
        let (any_failure, last_clean) = self.converse(seg, poi, &at, first, &mut report, log)?;
        let kept: Vec<String> = self
            .proposals
            .iter()
            .filter(|p| p.at == at && p.status.kept())
            .map(|p| p.text.clone())
            .collect();
        report.outcome = if kept.is_empty() {
            PointOutcome::NothingKept
        } else if last_clean && !any_failure {
            PointOutcome::AcceptedFirst
        } else if last_clean {
            PointOutcome::Repaired
        } else {
            PointOutcome::Exhausted
        };
        report.kept = kept;
        let (calls1, hits1) = self.counters.get();
        report.verifier_calls = calls1 - calls0;
        report.verifier_cache_hits = hits1 - hits0;
        Ok(report)
    }

    /// Where the point is in the files the user wrote (file for a program, and line).
    fn origin_of(&self, poi: &Poi) -> (Option<String>, usize) {
        match &self.judge {
            Judge::Program(ws) => match ws
                .program()
                .origin(poi.existing.map(|e| e.start).unwrap_or(poi.anchor))
            {
                Some(o) => (Some(o.file.display().to_string()), o.line),
                None => (None, poi.line),
            },
            Judge::Harness { .. } => (None, poi.line),
        }
    }

    /// Why a program's point has no place in the original files (`None`: it has one).
    fn unplaceable(&self, poi: &Poi) -> Result<Option<String>, SynthError> {
        if let Judge::Program(ws) = &self.judge {
            let probe = insertions_for(
                self.original,
                poi,
                &[
                    "requires \\true".to_string(),
                    "assigns \\nothing".to_string(),
                ],
            )?;
            if let Err(reason) = ws.place(&probe) {
                return Ok(Some(reason));
            }
        }
        Ok(None)
    }

    /// The first prompt at a point: the code, what to annotate, the clause kinds allowed.
    fn point_prompt(
        &self,
        poi: &Poi,
        at: &PointId,
        code: &str,
        place: &str,
    ) -> Result<String, SynthError> {
        let (what, hint) = match poi.kind {
            PoiKind::Contract => (
                format!("the contract of function `{}`", poi.function),
                "Give requires clauses for what the code needs (valid pointers, ranges that avoid overflow), ensures clauses for what it computes, and an assigns clause.",
            ),
            PoiKind::Loop { index } => (
                format!("loop {index} of function `{}` ({place})", poi.function),
                "Give loop invariants that hold before every iteration (bounds of the loop variables, what the loop has computed so far), a loop assigns clause listing every variable the loop modifies, and a loop variant.",
            ),
        };
        let kinds: Vec<&str> = at.allowed().iter().map(|k| k.keyword()).collect();
        Ok(self.prompts.point.render(&[
            ("code", code),
            ("point", &what),
            ("kinds", &kinds.join(", ")),
            ("hint", hint),
        ])?)
    }

    /// Asks and repairs until an answer is clean or attempts run out: (any failure, last clean).
    fn converse(
        &mut self,
        seg: &Segment,
        poi: &Poi,
        at: &PointId,
        first: String,
        report: &mut PointReport,
        log: &mut dyn FnMut(&str),
    ) -> Result<(bool, bool), SynthError> {
        let schema = point_schema(at.allowed());
        let mut turns: Vec<(bool, String)> = vec![(true, first)];
        let mut any_failure = false;
        let mut last_clean = false;
        for attempt in 1..=self.opts.attempts.max(1) {
            report.attempts = attempt;
            report.llm_requests += 1;
            let stage = if attempt == 1 {
                "c-synth-generate"
            } else {
                "c-synth-repair"
            };
            let req = self.request(&turns, schema.clone());
            let done = match self.client.complete(stage, &req) {
                Ok(d) => d,
                Err(e) if e.is_answer_problem() => {
                    let fb = e.feedback().unwrap_or_else(|| e.to_string());
                    log(&format!("    answer {attempt}: unusable ({e})"));
                    any_failure = true;
                    last_clean = false;
                    turns.push((false, "(unusable answer)".into()));
                    turns.push((true, self.prompts.repair.render(&[("problems", &fb)])?));
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            if done.source == llm::Source::Provider {
                report.input_tokens += done.response.usage.input_tokens;
                report.output_tokens += done.response.usage.output_tokens;
            }
            match self.judge_answer(seg, poi, at, attempt, &done, report, log)? {
                Reply::Nothing => {
                    // Nothing new: asking again with the same feedback would repeat it.
                    last_clean = !any_failure;
                    break;
                }
                Reply::Clean => {
                    last_clean = true;
                    break;
                }
                Reply::Repair(problems) => {
                    any_failure = true;
                    last_clean = false;
                    turns.push((false, done.text().to_string()));
                    turns.push((
                        true,
                        self.prompts.repair.render(&[("problems", &problems)])?,
                    ));
                }
            }
        }
        Ok((any_failure, last_clean))
    }

    /// Records and verifies one answer's clauses and says whether a repair is due.
    #[allow(clippy::too_many_arguments)]
    fn judge_answer(
        &mut self,
        seg: &Segment,
        poi: &Poi,
        at: &PointId,
        attempt: usize,
        done: &llm::Completion,
        report: &mut PointReport,
        log: &mut dyn FnMut(&str),
    ) -> Result<Reply, SynthError> {
        let origin = if attempt == 1 {
            Origin::Generate
        } else {
            Origin::Repair
        };
        let entries = entries(done.json.as_ref());
        let mut new = Vec::new();
        let mut refused = Vec::new();
        for (_, kind, expr) in &entries {
            let id = self.propose(at, kind, expr, origin, attempt);
            match &self.get(id).status {
                ClauseStatus::Pending => new.push(id),
                ClauseStatus::Rejected { .. } => refused.push(id),
                _ => {}
            }
        }
        if new.is_empty() && refused.is_empty() {
            return Ok(Reply::Nothing);
        }
        let h = self.houdini(new, &seg.functions)?;
        let open: Vec<&Goal> = h
            .open
            .iter()
            .filter(|g| g.function.as_deref() == Some(poi.function.as_str()))
            .collect();
        report.open_goals = open.iter().map(|g| goal_line(g)).collect();
        // Open goals of the function (RTE guards, call preconditions) call for
        // a repair at the contract, where preconditions go.
        let needs_repair = !h.failed.is_empty()
            || !refused.is_empty()
            || (poi.kind == PoiKind::Contract && !open.is_empty());
        log(&format!(
            "    answer {attempt}: {} proposed, {} kept, {} failed, {} refused",
            entries.len(),
            h.kept.len(),
            h.failed.len(),
            refused.len()
        ));
        if !needs_repair {
            return Ok(Reply::Clean);
        }
        Ok(Reply::Repair(
            self.describe(&h.kept, &h.failed, &refused, &open),
        ))
    }

    /// The repair feedback.
    fn describe(
        &self,
        kept: &[usize],
        failed: &[usize],
        refused: &[usize],
        open: &[&Goal],
    ) -> String {
        let mut s = String::new();
        if !kept.is_empty() {
            s.push_str("Proved and kept:\n");
            for &id in kept {
                s.push_str(&format!("- {}\n", self.get(id).text));
            }
        }
        for &id in failed.iter().chain(refused) {
            let p = self.get(id);
            match &p.status {
                // Goal names only: whether a false goal ends as a timeout or a
                // prover failure varies from run to run, and the prompt must not.
                ClauseStatus::Dropped { goals } => s.push_str(&format!(
                    "Not proved, removed: {} (goals not proved: {})\n",
                    p.text,
                    goals
                        .iter()
                        .map(|g| g.split(':').next().unwrap_or(g))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
                ClauseStatus::RejectedByFramaC { message } => s.push_str(&format!(
                    "Frama-C rejected: {} ({})\n",
                    p.text,
                    message.lines().take(3).collect::<Vec<_>>().join(" ")
                )),
                ClauseStatus::Rejected { reason } => {
                    s.push_str(&format!("Refused: {} ({reason})\n", p.text))
                }
                _ => {}
            }
        }
        if !open.is_empty() {
            s.push_str("Goals of the function still not proved (runtime-error guards, calls); a precondition or a loop invariant may be missing:\n");
            for g in open.iter().take(8) {
                s.push_str(&format!("- {}\n", g.name));
            }
        }
        s.trim_end().to_string()
    }

    fn measure(&mut self, seg: &Segment) -> Result<StrengthReport, acsl::StrengthError> {
        let io = |e: SynthError| acsl::StrengthError::Wp(WpError::Io(e.to_string()));
        let mut opts = StrengthOptions {
            functions: Some(seg.functions.clone()),
            max_mutants: self.opts.max_mutants,
            ..StrengthOptions::default()
        };
        let r = match &self.judge {
            Judge::Harness { .. } => {
                let text = self.build(|p| p.status.kept()).map_err(io)?;
                let mut cf = parse_c(text.as_str()).map_err(WpError::Parse)?;
                cf.path = self.original.path.clone();
                opts.tce
                    .flags
                    .extend(self.opts.compiler_flags.iter().cloned());
                strength_file(&cf, self.wp, &opts)?
            }
            // The program's files with the kept clauses, mutated where each
            // function is written; the units compile with their own flags.
            Judge::Program(ws) => {
                let ins = self.insertions(|p| p.status.kept()).map_err(io)?;
                let edited = ws.edited(&ins).map_err(|e| io(SynthError::Place(e)))?;
                strength_edited(ws, &edited, self.wp, &opts)?
            }
        };
        self.strength_calls.0 += r.stats.verifier_calls;
        self.strength_calls.1 += r.stats.verifier_cache_hits;
        Ok(r)
    }

    /// VDR-guided refinement of one segment.
    fn strengthen(
        &mut self,
        seg: &Segment,
        log: &mut dyn FnMut(&str),
    ) -> Result<SegmentStrength, SynthError> {
        let mut out = SegmentStrength {
            functions: seg.functions.clone(),
            before: VdrCount::default(),
            after: VdrCount::default(),
            llm_requests: 0,
            added: Vec::new(),
            survivors: Vec::new(),
            error: None,
        };
        let mut last = match self.measure(seg) {
            Ok(r) => r,
            Err(acsl::StrengthError::Wp(w)) => return Err(w.into()),
            Err(other) => {
                out.error = Some(other.to_string());
                return Ok(out);
            }
        };
        out.before = VdrCount::of(&last);
        let points: Vec<PointId> = self
            .pois
            .iter()
            .filter(|p| seg.functions.contains(&p.function))
            .map(PointId::of)
            .collect();
        let tags: Vec<String> = points.iter().map(PointId::tag).collect();
        for _round in 0..self.opts.refine_rounds {
            let survivors: Vec<String> = last
                .survivors()
                .take(self.opts.max_survivors_shown)
                .map(|m| {
                    format!(
                        "- in `{}`, {}: `{}` replaced by `{}`\n{}",
                        m.mutant.function,
                        mutant_place(m),
                        m.mutant.original,
                        m.mutant.replacement,
                        m.diff.trim_end()
                    )
                })
                .collect();
            if survivors.is_empty() {
                break;
            }
            let code = self.shown_code(seg, None)?;
            let prompt = self.prompts.strengthen.render(&[
                ("code", &code),
                ("mutants", &survivors.join("\n")),
                ("points", &tags.join(", ")),
            ])?;
            let req = self.request(&[(true, prompt)], strengthen_schema(&tags));
            out.llm_requests += 1;
            let done = match self.client.complete("c-synth-strengthen", &req) {
                Ok(d) => d,
                Err(e) if e.is_answer_problem() => {
                    log(&format!("    strengthening answer unusable ({e})"));
                    break;
                }
                Err(e) => return Err(e.into()),
            };
            let mut new = Vec::new();
            for (at, kind, expr) in entries(done.json.as_ref()) {
                let Some(point) = points.iter().find(|p| p.tag() == at).cloned() else {
                    let id = self.propose(&points[0], &kind, &expr, Origin::Strengthen, 1);
                    self.set(
                        id,
                        ClauseStatus::Rejected {
                            reason: format!("unknown point {at:?}"),
                        },
                    );
                    continue;
                };
                let id = self.propose(&point, &kind, &expr, Origin::Strengthen, 1);
                if self.get(id).status == ClauseStatus::Pending {
                    new.push(id);
                }
            }
            let h = self.houdini(new, &seg.functions)?;
            if h.kept.is_empty() {
                break;
            }
            last = match self.measure(seg) {
                Ok(r) => r,
                Err(acsl::StrengthError::Wp(w)) => return Err(w.into()),
                Err(other) => {
                    out.error = Some(other.to_string());
                    break;
                }
            };
        }
        out.after = VdrCount::of(&last);
        // Which kept clause rejects which mutant, on the final measurement.
        for m in &last.mutants {
            let Fate::Killed { unproved, .. } = &m.fate else {
                continue;
            };
            for p in self.proposals.iter_mut().filter(|p| p.status.kept()) {
                let Some(c) = &p.clause else { continue };
                if unproved.iter().any(|g| belongs(g, p.id, &p.at, c.kind)) {
                    p.kills.push(m.mutant.id);
                }
            }
        }
        out.added = self
            .proposals
            .iter()
            .filter(|p| {
                p.origin == Origin::Strengthen
                    && p.status.kept()
                    && seg.functions.contains(&p.at.function)
            })
            .map(|p| p.text.clone())
            .collect();
        out.survivors = last
            .survivors()
            .map(|m| {
                format!(
                    "{} in {}: `{}` -> `{}`",
                    mutant_place(m),
                    m.mutant.function,
                    m.mutant.original,
                    m.mutant.replacement
                )
            })
            .collect();
        Ok(out)
    }
}

/// Where a mutant is: `line N` in one file, `FILE:N` in a program.
fn mutant_place(m: &acsl::MutantOutcome) -> String {
    match &m.file {
        Some(f) => format!("{}:{}", f.display(), m.mutant.line),
        None => format!("line {}", m.mutant.line),
    }
}

/// `(at, kind, expr)` of each entry of a validated answer.
fn entries(json: Option<&serde_json::Value>) -> Vec<(String, String, String)> {
    let s = |v: &serde_json::Value, k: &str| {
        v.get(k)
            .and_then(|x| x.as_str())
            .unwrap_or_default()
            .to_string()
    };
    json.and_then(|j| j.get("clauses"))
        .and_then(|c| c.as_array())
        .map(|a| {
            a.iter()
                .map(|v| (s(v, "at"), s(v, "kind"), s(v, "expr")))
                .collect()
        })
        .unwrap_or_default()
}

/// Removes `vera_s<N>: ` labels from a line of code shown to the model.
fn strip_labels(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(i) = rest.find("vera_s") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 6..];
        let digits = after.chars().take_while(|c| c.is_ascii_digit()).count();
        if digits > 0 && after[digits..].starts_with(": ") {
            rest = &after[digits + 2..];
        } else {
            out.push_str("vera_s");
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// One reference clause and whether the synthesized specification covers it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecallClause {
    /// Where.
    #[serde(flatten)]
    pub at: PointId,
    /// The reference clause.
    pub text: String,
    /// Proved when added alongside the synthesized clauses.
    pub covered: bool,
    /// Its goals and their status, or Frama-C's message.
    pub detail: Vec<String>,
}

/// Recall against a hand-written reference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecallReport {
    /// Reference postconditions and loop invariants considered.
    pub reference_clauses: usize,
    /// Of those, covered.
    pub covered: usize,
    /// covered / reference_clauses.
    pub recall: Option<f64>,
    /// Per clause.
    pub clauses: Vec<RecallClause>,
    /// What the number means.
    pub definition: String,
    /// Frama-C runs.
    pub verifier_calls: usize,
}

/// Recall of a synthesized text against a reference file with hand-written ACSL on
/// the same code: the share of the reference's `ensures` and `loop invariant`
/// clauses that are proved when added, one at a time, as extra goals at their point
/// alongside the synthesized clauses. This is weaker than SpecSyn's equivalence
/// check: a postcondition that WP proves from the code alone counts as covered even
/// if the synthesized contract does not state it, so it mostly measures whether the
/// synthesized loop invariants are strong enough for the reference's goals.
pub fn recall(
    synthesized: &CFile,
    reference: &CFile,
    wp: &WpConfig,
) -> Result<RecallReport, SynthError> {
    let counters = Counters::default();
    let name = harness_name(synthesized);
    let mut clauses = Vec::new();
    let mut refs: Vec<(Poi, ClauseKind, String)> = Vec::new();
    for seg in function_segments(reference) {
        for poi in points_of_interest(reference, &seg) {
            let Some(span) = poi.existing else { continue };
            for (kind, expr) in split_annotation(span.text(&reference.text)) {
                if let Some(k @ (ClauseKind::Ensures | ClauseKind::LoopInvariant)) = kind {
                    refs.push((poi.clone(), k, expr));
                }
            }
        }
    }
    let segs = function_segments(synthesized);
    for (n, (rpoi, kind, expr)) in refs.iter().enumerate() {
        let at = PointId::of(rpoi);
        let text = Clause {
            kind: *kind,
            expr: expr.clone(),
        };
        let lab = format!("vera_ref{n}");
        let mut rc = RecallClause {
            at: at.clone(),
            text: text.text(None),
            covered: false,
            detail: Vec::new(),
        };
        let target = segs.iter().find_map(|s| {
            points_of_interest(synthesized, s)
                .into_iter()
                .find(|p| PointId::of(p) == at)
                .map(|p| (s.clone(), p))
        });
        let Some((seg, poi)) = target else {
            rc.detail
                .push("no such point in the synthesized file".into());
            clauses.push(rc);
            continue;
        };
        let annotated = acsl::annotate_poi(synthesized, &poi, &[text.text(Some(&lab))])?;
        let cf = parse_c(annotated.text.as_str()).map_err(SynthError::Parse)?;
        let Some(s2) = function_segments(&cf)
            .into_iter()
            .find(|s| s.functions == seg.functions)
        else {
            return Err(SynthError::LostSegment(seg.functions.join(", ")));
        };
        let h = harness(&cf, &s2);
        match run_wp(&h.text, &name, &h.functions, wp, &counters) {
            Ok(run) => {
                let goals: Vec<&Goal> = run
                    .goals
                    .iter()
                    .filter(|g| has_label(&g.name, &lab))
                    .collect();
                rc.covered =
                    !goals.is_empty() && goals.iter().all(|g| g.status == GoalStatus::Valid);
                rc.detail = goals.iter().map(|g| goal_line(g)).collect();
            }
            Err(WpError::FramaC { messages, .. }) => rc.detail = messages,
            Err(e) => return Err(e.into()),
        }
        clauses.push(rc);
    }
    let covered = clauses.iter().filter(|c| c.covered).count();
    Ok(RecallReport {
        reference_clauses: clauses.len(),
        covered,
        recall: (!clauses.is_empty()).then(|| covered as f64 / clauses.len() as f64),
        clauses,
        definition: "share of the reference's ensures and loop invariant clauses proved when added one at a time alongside the synthesized clauses (not an equivalence check)".into(),
        verifier_calls: counters.get().0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_goals() {
        assert!(has_label("typed_f_ensures_vera_s3", "vera_s3"));
        assert!(has_label(
            "typed_f_loop_invariant_vera_s3_preserved",
            "vera_s3"
        ));
        assert!(!has_label("typed_f_ensures_vera_s31", "vera_s3"));
        let at = PointId {
            function: "f".into(),
            kind: PoiKind::Contract,
        };
        assert!(belongs("typed_f_assigns", 1, &at, ClauseKind::Assigns));
        assert!(!belongs(
            "typed_f_loop_assigns",
            1,
            &at,
            ClauseKind::Assigns
        ));
        assert!(belongs(
            "typed_f_loop_variant_decrease",
            1,
            &at,
            ClauseKind::LoopVariant
        ));
        assert!(!belongs("typed_f_g_assigns", 1, &at, ClauseKind::Assigns));
        assert_eq!(
            strip_labels("/*@ ensures vera_s12: \\result >= 0;"),
            "/*@ ensures \\result >= 0;"
        );
        assert_eq!(
            message_lines(&["[kernel:annot-error] a.c:3: Warning: x".into()], "a.c"),
            vec![(3, "[kernel:annot-error] a.c:3: Warning: x".to_string())]
        );
    }
}
