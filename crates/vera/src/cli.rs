//! Command-line definitions.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// vera audits specifications with an SMT solver.
#[derive(Debug, Parser)]
#[command(name = "vera", version, about, long_about = None)]
pub struct Cli {
    /// Replace an output file that already exists (a transcript, a cassette, a written
    /// spec or report). vera never writes over one of the command's inputs, even with
    /// --force.
    #[arg(long, global = true)]
    pub force: bool,
    #[command(subcommand)]
    pub command: Command,
}

/// `vera serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The folder to review (specs, rule case folders, C files, saved reports).
    #[arg(default_value = ".")]
    pub dir: PathBuf,
    /// The port (0: any free port).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// Listen on this address instead of one of the server's own in 127.0.0.0/8. Anyone
    /// who can reach it and has the printed address (with its token) can read and change
    /// the files under DIR; on 127.0.0.1, the browser also sends the page's cookie to
    /// every other web server on 127.0.0.1 it visits.
    #[arg(long, value_name = "IP")]
    pub listen: Option<std::net::IpAddr>,
    /// The solver the checks run with.
    #[arg(long, value_enum, default_value_t = SolverChoice::Z3)]
    pub solver: SolverChoice,
    /// How many checks run at once (default: the number of cores); the others wait in
    /// a queue the page shows.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Audit a requirements spec: global consistency, vacuity, violatability, redundancy.
    ///
    /// Exit status: 0 no findings, 1 findings, 2 bad input, solver failure or unknown.
    Audit(AuditArgs),
    /// Open the review page on a folder: requirement tables with the audit's findings,
    /// rule cases with their divergences plotted, decisions written into the files
    /// (with a diff preview, refused when the file changed since the page showed it).
    ///
    /// Listens on an address of its own in 127.0.0.0/8 (127.0.0.1 where the system has
    /// no other) and prints the address to open, with a random access token. Runs until
    /// stopped by Ctrl-C (exit status 130) or SIGTERM (143), after stopping its checks
    /// and removing its temporary folder; exit status 2 when it cannot start.
    Serve(ServeArgs),
    /// Ask scenario questions: is a claim entailed by the requirements under a scenario?
    ///
    /// Exit status: 0 all entailed (or derived), 1 some not entailed or scenario
    /// impossible, 2 bad input, unknown, or an answer that contradicts `expected`.
    Ask(AskArgs),
    /// Verified question answering: the model extracts a scenario and proposes an
    /// answer over the schema; the solver checks M ∧ s ∧ ¬a and rejected answers are
    /// repaired with one of four feedback modes.
    ///
    /// Exit status: 0 every question accepted in every mode, 1 some rejected after the
    /// repair budget, 2 bad input, LLM or solver failure.
    Qa(QaArgs),
    /// Round trip: formula → sentence → formula, checked for equivalence under the
    /// domain, with one repair turn for mismatches. It checks that the formula survives
    /// a trip through text; sentences that do not mention the formula's variables or
    /// drift from the requirement text are flagged.
    ///
    /// Exit status: 0 all equivalent and none flagged, 1 some differ or are flagged, 2
    /// bad input, LLM or solver failure.
    Roundtrip(RoundtripArgs),
    /// End-to-end fault detection: faulty requirement texts are formalized again and
    /// substituted into the model; a fault is detected by inconsistency or
    /// non-equivalence.
    ///
    /// Exit status: 0 every fault detected, 1 some missed, 2 bad input, LLM or solver failure.
    Faults(FaultsArgs),
    /// The evaluation harness: runs the experiments and writes eval.json and tables.md
    /// (Table 1, Fig. 4, Fig. 5, Fig. 6 as tables) with the LLM accounting.
    ///
    /// Exit status: 0 written, 2 bad input, LLM or solver failure.
    Eval(EvalArgs),
    /// Mutation analysis: would the spec notice if a requirement were wrong?
    ///
    /// Exit status: 0 every mutant detected, 1 some mutants undetected (equivalent
    /// under the domain), 2 bad input, solver failure or unknown.
    Mutate(MutateArgs),
    /// Check a documented rule (SMT-LIB) against its BL implementation.
    ///
    /// Exit status: 0 consistent, 1 inconsistent, 2 unknown, rejected formalization or
    /// bad input. With --batch: the worst over all cases.
    Consistency(Box<ConsistencyArgs>),
    /// Draft a variable specification (model.json) for a new rule text from one example
    /// rule of the same domain and its specification (SIRNA Fig. 9).
    ///
    /// Exit status: 0 drafted, 2 no valid draft or bad input.
    DraftVariables(DraftVariablesArgs),
    /// Partition candidate formulas into classes of equivalence under the domain, with
    /// distinguishing witnesses (boundary values first) and agreement metrics.
    ///
    /// Exit status: 0 one class per set, 1 some set has several, 2 bad input.
    Equiv(EquivArgs),
    /// Formalize requirement texts with a language model: schema and domain in the
    /// prompt, every answer parsed as untrusted input and checked by the solver, a
    /// repair loop; writes a NEW spec with provenance per requirement.
    ///
    /// Exit status: 0 all formalized, 1 some still fail (listed), 2 bad input or LLM failure.
    Formalize(FormalizeArgs),
    /// Screen requirement texts for ambiguity: N formalizations at temperature 1.0 each,
    /// partitioned by solver equivalence; several classes flag the requirement.
    ///
    /// Exit status: 0 none flagged, 1 some flagged, 2 bad input or LLM failure.
    Ambiguity(AmbiguityArgs),
    /// Clarify ambiguity-sensitive requirements from the solver's evidence, re-screening
    /// each rewrite; writes a proposals file. With --apply, writes accepted proposals
    /// into a new spec.
    ///
    /// Exit status: 0 every flagged requirement converged (or none was flagged), 1 some
    /// did not, 2 none converged (nothing to apply), bad input, LLM or solver failure.
    /// With --apply: 0 applied or nothing to apply, 2 bad input.
    Clarify(ClarifyArgs),
    /// The BL business-rule language.
    #[command(subcommand)]
    Bl(BlCommand),
    /// C files with ACSL specifications, verified with Frama-C/WP.
    #[command(subcommand)]
    C(CCommand),
    /// The language-model layer.
    #[command(subcommand)]
    Llm(LlmCommand),
    /// Work with SMT-LIB files directly.
    #[command(subcommand)]
    Smt(SmtCommand),
    /// Rate and fee tables (CSV).
    #[command(subcommand)]
    Table(TableCommand),
    /// Extract the requirement list of a document (plain text, text from a PDF,
    /// Markdown), a FRET JSON file, a Hanfor CSV or a ReqIF 1.2 file: a vera spec without
    /// formulas (TOML, the default) or JSON. An Ultimate/Hanfor `.req` file (Hanfor's
    /// pattern sentences) is imported with its formulas instead, as a timed spec (TOML
    /// only, docs/timed.md) that `vera audit` checks. Deterministic: no language model.
    ///
    /// Exit status: 0 requirements found, 1 none found (nothing to check), 2 bad input
    /// (for a `.req` file: every error listed, with its line and column).
    Extract(ExtractArgs),
    /// Requirements-based tests: for every formalized requirement, cases that reach its
    /// trigger and show its response, a masking MC/DC pair per condition (its
    /// unique-first-cause obligations) and boundary values of every numeric comparison,
    /// each case a state the solver found valid against the domain and every
    /// requirement, with the outputs the spec forces (or `free`); obligations no valid
    /// state meets are findings with their cause. `vera tests run` runs the suite
    /// against an implementation, `vera tests cover` measures an existing suite.
    ///
    /// Exit status: 0 every obligation met, 1 findings (unreachable obligations,
    /// requirements without a formula), 2 bad input (an inconsistent spec among it),
    /// solver failure or an undecided obligation.
    Tests(Box<TestsArgs>),
    /// Typed schemas drafted from a requirement list.
    #[command(subcommand)]
    Schema(SchemaCommand),
    /// From a requirements document to an audited model in one resumable command:
    /// extract the requirements, draft the schema (checked by the solver), formalize
    /// with repair, audit, screen for ambiguity and run the round trip. Every stage
    /// writes its files into the run directory (default DOC.vera/ beside the document)
    /// and is recorded in its run.json; a rerun reuses the stages whose inputs did not
    /// change (the model's answers come from the cache), and a file you edited there
    /// (a reviewed schema.toml) is used as it is and never written over without
    /// --force. One report with the counts of every stage.
    ///
    /// Exit status: 0 nothing found, 1 findings (schema findings, requirements that did
    /// not formalize, audit findings, ambiguity flags, round trips that differ), 2 bad
    /// input, a stage that failed, something the solver could not decide, a requirement
    /// that could not be screened, or no requirement to check.
    Run(RunArgs),
}

/// The arguments of `vera run`.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// The document: plain text (from a PDF), Markdown, FRET JSON, Hanfor CSV or ReqIF.
    pub document: PathBuf,
    /// The run directory (default: DOC.vera beside the document).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Only the requirements of these sections (section numbers or id prefixes,
    /// comma-separated: `5` or `5.1,5.2`).
    #[arg(long, value_delimiter = ',', value_name = "S,...")]
    pub sections: Vec<String>,
    /// Keep candidate requirements ("shall" sentences the document does not mark).
    #[arg(long)]
    pub candidates: bool,
    /// At most N requirements (after --sections).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: Option<u64>,
    /// Use this schema (a vera spec: enumerations, variables, domain) instead of
    /// drafting one; a requirement of it with the same id as an extracted one keeps its
    /// formula.
    #[arg(long, value_name = "SPEC")]
    pub schema: Option<PathBuf>,
    /// Requirements per schema-drafting request (0: the whole list at once).
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub chunk: usize,
    /// Token limit per schema-drafting answer.
    #[arg(long, value_name = "N", default_value_t = pipeline::schema::DEFAULT_MAX_TOKENS,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub schema_max_tokens: u32,
    /// Repair turns of each formalization.
    #[arg(long, default_value_t = 2)]
    pub retries: usize,
    /// Samples per requirement of the ambiguity screening (at least 2: one sample has
    /// nothing to be compared with).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(2..))]
    pub samples: u32,
    #[command(flatten)]
    pub form: FormArgs,
    /// Skip the ambiguity screening.
    #[arg(long)]
    pub no_ambiguity: bool,
    /// Skip the round trip.
    #[arg(long)]
    pub no_roundtrip: bool,
    #[command(flatten)]
    pub llm: crate::pipecmd::LlmArgs,
    #[command(flatten)]
    pub solver: SolverArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, Subcommand)]
pub enum SchemaCommand {
    /// Draft the typed schema of a requirement list (the output of `vera extract`, JSON
    /// or TOML, or any vera spec) with a language model: enumerations, variables with
    /// sorts, units, bounds from the document's numbers, roles and the requirements each
    /// serves, domain constraints. The draft is checked before anything is formalized:
    /// a satisfiable domain, no empty or single-point range, no variables forced equal,
    /// no quantity under two names, no unused or missing variable (one repair round asks
    /// for missing ones; --probe also formalizes every requirement against the draft and
    /// asks for the names the answers needed). Writes a NEW spec (default
    /// REQS.schema.toml) for `vera formalize`.
    ///
    /// Exit status: 0 drafted without findings, 1 drafted and written with findings,
    /// 2 bad input, no valid draft from the model, an LLM or solver failure, or a check
    /// the solver could not decide.
    Draft(SchemaDraftArgs),
}

/// The arguments of `vera schema draft`.
#[derive(Debug, Clone, Args)]
pub struct SchemaDraftArgs {
    /// The requirement list: vera.requirements.v1 JSON or a TOML spec.
    pub input: PathBuf,
    /// The schema file to write (default: REQS.schema.toml beside the input).
    #[arg(long, short = 'o')]
    pub out: Option<PathBuf>,
    /// Answers asked again after one that is not a valid draft.
    #[arg(long, default_value_t = 2)]
    pub retries: usize,
    /// Rounds that ask the model for missing variables (0: report them only).
    #[arg(long, default_value_t = 1)]
    pub repairs: usize,
    /// Token limit per answer.
    #[arg(long, value_name = "N", default_value_t = pipeline::schema::DEFAULT_MAX_TOKENS)]
    pub max_tokens: u32,
    /// Formalize every requirement against the checked draft: those whose answers need
    /// a name the schema lacks get the variable proposed in one more repair round, and
    /// are formalized again (costs one formalization per requirement).
    #[arg(long)]
    pub probe: bool,
    /// Repair turns of each formalization in the probe.
    #[arg(long, default_value_t = 2, requires = "probe")]
    pub probe_retries: usize,
    /// Requirements per request (0: the whole list at once). A longer list is drafted in
    /// chunks, each later request extending the schema so far: for models with a small
    /// context.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub chunk: usize,
    #[command(flatten)]
    pub llm: crate::pipecmd::LlmArgs,
    #[command(flatten)]
    pub solver: SolverArgs,
    #[command(flatten)]
    pub output: TextOutputArgs,
}

#[derive(Debug, Subcommand)]
pub enum TableCommand {
    /// Check a table for gaps (inputs where no row applies), conflicts (two rows apply
    /// with different outcomes) and overlaps (two rows apply with the same outcome), per
    /// group of key values and per outcome column.
    ///
    /// Exit status: 0 complete and unambiguous, 1 findings or unreadable cells, 2 bad
    /// input, solver failure or an undecided question.
    Check(TableCheckArgs),
    /// Print one group of a table as an SMT-LIB formalization (one guarded clause per
    /// cell, then the table's domain): what `vera consistency --table` checks.
    ///
    /// Exit status: 0 written, 2 bad input.
    Smt(TableSmtArgs),
}

#[derive(Debug, Subcommand)]
pub enum CCommand {
    /// Print the file's segments (strongly connected components of the dependency
    /// graph, dependencies first) and their points of interest.
    Segments(CSegmentsArgs),
    /// Verify the file's existing ACSL annotations with Frama-C/WP, segment by segment.
    ///
    /// Exit status: 0 all proved, 1 goals not proved or vacuous (failed smoke tests),
    /// 2 no goals at all, bad input or a broken setup.
    Verify(CVerifyArgs),
    /// Measure how strong the specifications are: the share of non-equivalent mutants
    /// of the code they reject (variant discrimination rate).
    Strength(CStrengthArgs),
    /// Synthesize ACSL specifications with a language model, Frama-C/WP as the judge:
    /// per point of interest generation and repair, unprovable clauses dropped, then
    /// strengthening against surviving mutants. Writes a new annotated file and a
    /// JSON report; the input is never modified.
    ///
    /// Exit status: 0 the output verifies, 1 goals remain open, 2 bad input or setup.
    Synth(SynthArgs),
}

/// Options of `vera c synth`.
#[derive(Debug, Args)]
pub struct SynthArgs {
    /// The C file, or the files of a program (they are never modified; with
    /// --compile-commands: the units to take from it, all when none is named).
    #[arg(required_unless_present = "compile_commands")]
    pub files: Vec<PathBuf>,
    /// The annotated copy to write (default: FILE.synth.c next to the input); one
    /// file only.
    #[arg(long, conflicts_with = "out_dir")]
    pub out: Option<PathBuf>,
    /// Treat the files as one program and write an annotated copy of each of its
    /// own files (sources and the headers they include) under DIR, at its path
    /// relative to the working directory. Needed for several files.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// The JSON report to write (default: the output with extension .json, or
    /// DIR/vera-synth.json).
    #[arg(long)]
    pub report: Option<PathBuf>,
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
    pub reference: Option<PathBuf>,
    #[command(flatten)]
    pub cpp: CppArgs,
    #[command(flatten)]
    pub llm: crate::llmcmd::LlmArgs,
    #[command(flatten)]
    pub wp: WpArgs,
    #[command(flatten)]
    pub output: TextOutputArgs,
}

/// Options of the Frama-C/WP runs.
#[derive(Debug, Clone, Args)]
pub struct WpArgs {
    /// Provers WP uses, comma-separated, tried in order.
    #[arg(long, default_value = "z3,cvc5")]
    pub prover: String,
    /// Per-goal prover timeout, in seconds.
    #[arg(long = "wp-timeout", default_value_t = 2)]
    pub wp_timeout: u32,
    /// Also prove run-time-error guards (-wp-rte).
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    pub rte: bool,
    /// Do not run WP's smoke tests (dead code, contradictory preconditions). They
    /// run by default; without them a vacuous proof is reported as proved.
    #[arg(long, conflicts_with = "smoke_tests")]
    pub no_smoke_tests: bool,
    /// Run smoke tests: the default, accepted for older scripts.
    #[arg(long, hide = true)]
    pub smoke_tests: bool,
    /// Parallel Frama-C processes.
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    /// Result cache directory (default: ~/.cache/vera/acsl).
    #[arg(long)]
    pub cache_dir: Option<PathBuf>,
    /// Do not read or write the verifier's result cache.
    #[arg(long)]
    pub no_verifier_cache: bool,
}

impl WpArgs {
    /// The Frama-C program (the default configuration's).
    pub fn frama_c() -> PathBuf {
        acsl::WpConfig::default().frama_c
    }

    /// The verifier configuration these options describe.
    pub fn config(&self) -> acsl::WpConfig {
        let mut c = acsl::WpConfig {
            prover: self.prover.clone(),
            timeout: self.wp_timeout,
            rte: self.rte,
            smoke_tests: !self.no_smoke_tests,
            ..Default::default()
        };
        if let Some(j) = self.jobs.filter(|j| *j > 0) {
            c.jobs = j;
        }
        if let Some(d) = &self.cache_dir {
            c.cache_dir = Some(d.clone());
        }
        if self.no_verifier_cache {
            c.cache_dir = None;
        }
        c
    }
}

#[derive(Debug, Subcommand)]
pub enum LlmCommand {
    /// Check an LLM configuration with one small request and say what is wrong.
    Ping(LlmPingArgs),
}

#[derive(Debug, Subcommand)]
pub enum BlCommand {
    /// Parse and check a BL program; report every error with file:line:col.
    Check(BlFileArgs),
    /// Print a BL program in canonical layout (the file is not changed).
    Fmt(BlFileArgs),
    /// Print the SMT-LIB encoding of a BL program (one definition per let).
    Encode(BlFileArgs),
    /// Run a BL program on inputs with exact arithmetic.
    Eval(BlEvalArgs),
}

#[derive(Debug, Subcommand)]
pub enum SmtCommand {
    /// Parse, type-check and solve SMT-LIB files; print sat with a model, unsat with a core.
    ///
    /// Exit status: 0 when every check is sat, 1 when the last check of some file is
    /// unsat and none is unknown, 2 on unknown, solver failure or bad input.
    Check(SmtCheckArgs),
    /// Pretty-print an SMT-LIB file to standard output (the file itself is not changed).
    Fmt(SmtFmtArgs),
}

/// The arguments of `vera audit`.
#[derive(Debug, Clone, Args)]
pub struct AuditArgs {
    /// The spec (TOML), or a CSV with --schema (columns by header name: id, text,
    /// optional formula; see --csv-columns).
    pub spec: PathBuf,
    #[command(flatten)]
    pub csv: CsvArgs,
    /// When inconsistent, list up to N minimal conflicts (default: one).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub all_conflicts: usize,
    /// Also print a violating state for every requirement.
    #[arg(long)]
    pub witnesses: bool,
    /// Folder where results are kept, so that re-running after an edit asks again
    /// only the checks the edit can change.
    #[arg(long, value_name = "DIR", default_value = ".vera-cache/audit")]
    pub cache_dir: PathBuf,
    /// Ask every check again: neither read nor write the cache.
    #[arg(long, conflicts_with = "cache_dir")]
    pub no_cache: bool,
    /// Timed specs: how far the audits look, as a duration ("300 s", "50 ticks");
    /// default: the spec's `[time]` horizon, else twice its longest requirement.
    #[arg(long, value_name = "DURATION")]
    pub horizon: Option<String>,
    /// Timed specs: look for dead ends (rt-inconsistency) after prefixes up to this
    /// long (default: the longest requirement and two steps, within the horizon).
    #[arg(long, value_name = "DURATION")]
    pub rt_horizon: Option<String>,
    /// Timed specs: skip the rt-inconsistency check.
    #[arg(long)]
    pub no_rt: bool,
    /// Dense-time specs: search runs of up to N intervals before proving the rest for
    /// every run (default: from the automata's sizes).
    #[arg(long, value_name = "N")]
    pub depth: Option<usize>,
    /// Dense-time specs: skip the redundancy check (whether the other requirements
    /// imply each one).
    #[arg(long)]
    pub no_redundancy: bool,
    #[command(flatten)]
    pub solver: SolverArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// The arguments of `vera ask`.
#[derive(Debug, Clone, Args)]
pub struct AskArgs {
    /// The spec (TOML), or a CSV with --schema.
    pub spec: PathBuf,
    #[command(flatten)]
    pub csv: CsvArgs,
    /// The scenario, an SMT-LIB formula over the schema (default: true).
    #[arg(long, conflicts_with = "questions")]
    pub scenario: Option<String>,
    /// The claim to check under the scenario.
    #[arg(long)]
    pub claim: Option<String>,
    /// A questions file (TOML, one questions table per question: id, text, scenario, claim, expected).
    #[arg(long, conflicts_with_all = ["claim", "derive"])]
    pub questions: Option<PathBuf>,
    /// Instead of checking a claim, print what the requirements force under the scenario.
    #[arg(long, conflicts_with = "claim")]
    pub derive: bool,
    /// For a timed spec: how far past the question's last time the runs go (a duration;
    /// default: the longest requirement's durations plus one tick).
    #[arg(long, value_name = "DURATION")]
    pub margin: Option<String>,
    #[command(flatten)]
    pub solver: SolverArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// The arguments of `vera qa`.
#[derive(Debug, Clone, Args)]
pub struct QaArgs {
    /// The spec (TOML).
    pub spec: PathBuf,
    /// The questions file (TOML, see docs/qa.md).
    pub questions: PathBuf,
    #[command(flatten)]
    pub qa: crate::qacmd::QaLoopArgs,
    #[command(flatten)]
    pub llm: crate::qacmd::ModelArgs,
    #[command(flatten)]
    pub solver: SolverArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// The arguments of `vera roundtrip`.
#[derive(Debug, Clone, Args)]
pub struct RoundtripArgs {
    /// The spec (TOML).
    pub spec: PathBuf,
    /// Only the first N formalized requirements.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// No repair turn.
    #[arg(long)]
    pub no_repair: bool,
    #[command(flatten)]
    pub llm: crate::qacmd::ModelArgs,
    #[command(flatten)]
    pub solver: SolverArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// The arguments of `vera faults`.
#[derive(Debug, Clone, Args)]
pub struct FaultsArgs {
    /// The spec (TOML).
    pub spec: PathBuf,
    /// Faulty texts (TOML `[[mutants]]`); without it the model writes one per requirement.
    #[arg(long)]
    pub mutants: Option<PathBuf>,
    /// With generated faults: only the first N formalized requirements.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    #[command(flatten)]
    pub llm: crate::qacmd::ModelArgs,
    #[command(flatten)]
    pub solver: SolverArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// The arguments of `vera eval`.
#[derive(Debug, Clone, Args)]
pub struct EvalArgs {
    /// The spec (TOML).
    pub spec: PathBuf,
    #[command(flatten)]
    pub eval: crate::qacmd::ExperimentArgs,
    #[command(flatten)]
    pub llm: crate::qacmd::ModelArgs,
    #[command(flatten)]
    pub solver: SolverArgs,
}

/// The arguments of `vera mutate`.
#[derive(Debug, Clone, Args)]
pub struct MutateArgs {
    /// The spec (TOML), or a CSV with --schema.
    pub spec: PathBuf,
    #[command(flatten)]
    pub csv: CsvArgs,
    #[command(flatten)]
    pub solver: SolverArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// The arguments of `vera tests`.
#[derive(Debug, Clone, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct TestsArgs {
    #[command(subcommand)]
    pub command: Option<TestsCommand>,
    /// The spec (TOML), or the documentation side of a rule (SMT-LIB, `.smt2`, with
    /// `--bounds` as for `vera consistency`).
    #[arg(required = true)]
    pub spec: Option<PathBuf>,
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// Also write the traceability matrix (CSV: one row per requirement, one column
    /// per case) to FILE.
    #[arg(long, value_name = "FILE")]
    pub matrix: Option<PathBuf>,
    #[command(flatten)]
    pub solver: SolverArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `vera tests run` and `vera tests cover`.
#[derive(Debug, Clone, Subcommand)]
pub enum TestsCommand {
    /// Generate the suite of SPEC and run it against an implementation: an executable
    /// (one process per case: a CSV header and the case's inputs on standard input, the
    /// outputs as one CSV line on standard output), a BL program (`.bl`, with `--bounds`
    /// as for `vera consistency`) or a C function (`.c` with `--function`: vera writes a
    /// driver and compiles it with the system C compiler). Each case passes when the
    /// observed outputs, with the case's inputs, satisfy the domain and every
    /// requirement; fails with the requirements they contradict; errors when the
    /// implementation crashes, hangs, prints garbage or the solver cannot decide.
    ///
    /// Exit status: 0 every case passed, 1 some failed, 2 an error (bad input, a case
    /// that could not run or be judged).
    Run(Box<TestsRunArgs>),
    /// Measure an existing suite (CSV, one column per variable) against the
    /// obligations of SPEC: per requirement and condition the obligations its vectors
    /// meet, the vectors no valid system could produce (with the requirements they
    /// contradict), and the requirements no vector exercises.
    ///
    /// Exit status: 0 every reachable obligation met and every vector valid, 1 gaps or
    /// invalid vectors, 2 bad input or an undecided check.
    Cover(Box<TestsCoverArgs>),
}

/// How a suite is derived from a spec.
#[derive(Debug, Clone, Args)]
pub struct SuiteArgs {
    /// The inputs a test sets, comma-separated (the other variables are outputs).
    /// Default: the spec's `role` fields, else a variable no response mentions.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "VAR,...",
        conflicts_with = "roles"
    )]
    pub inputs: Option<Vec<String>>,
    /// A roles file (TOML, `inputs = ["a", "b"]`) naming the inputs.
    #[arg(long, value_name = "FILE")]
    pub roles: Option<PathBuf>,
    /// The step of Real variables (the distance from a bound to its nearest values):
    /// `VAR=STEP` for one variable, `STEP` for all (default 0.01); Int variables move
    /// by 1.
    #[arg(long, value_name = "[VAR=]STEP")]
    pub step: Vec<String>,
    /// No boundary cases (only triggers, condition pairs and response conditions).
    #[arg(long)]
    pub no_boundaries: bool,
    /// For an SMT-LIB documentation SPEC: SIRNA's bounds JSON (ranges are the domain;
    /// mapped and ranged constants are the inputs; with `vera tests run`, the mapping
    /// to a BL program's names and the output pair).
    #[arg(long, value_name = "FILE")]
    pub bounds: Option<PathBuf>,
}

/// The arguments of `vera tests run`.
#[derive(Debug, Clone, Args)]
pub struct TestsRunArgs {
    /// The spec (TOML) or documentation side (SMT-LIB).
    pub spec: PathBuf,
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// The implementation: an executable, a BL program (`.bl`) or a C file (`.c`, with
    /// `--function`).
    #[arg(long = "impl", value_name = "X")]
    pub implementation: PathBuf,
    /// Arguments passed to an executable implementation (repeat for each).
    #[arg(long = "arg", value_name = "ARG", allow_hyphen_values = true)]
    pub args: Vec<String>,
    /// The C function to call.
    #[arg(long, value_name = "NAME")]
    pub function: Option<String>,
    /// How the implementation's names map to the spec's: `IMPL=SPEC`, comma-separated
    /// or repeated (a C parameter, `result` for a C function's value, a column of an
    /// executable, a BL binding). Unmapped names map to the spec variable of the same
    /// name.
    #[arg(long = "map", value_delimiter = ',', value_name = "IMPL=SPEC,...")]
    pub map: Vec<String>,
    /// The outputs an executable prints, in order, comma-separated (spec names;
    /// default: every output of the spec in schema order). For a C function, the spec
    /// variable its result is (default: the spec's only output).
    #[arg(long, value_delimiter = ',', value_name = "VAR,...")]
    pub outputs: Option<Vec<String>>,
    /// A value for an implementation input the spec does not have, for every case:
    /// `NAME=VALUE` (e.g. a BL program's `sin`).
    #[arg(long = "fix", value_name = "NAME=VALUE")]
    pub fix: Vec<String>,
    /// Time limit per case, in seconds (executables and C functions).
    #[arg(long, default_value_t = 5.0, value_parser = parse_seconds)]
    pub case_timeout: f64,
    /// Accept numeric outputs within this distance of a value the spec allows (for
    /// floating-point implementations; default 0: exact).
    #[arg(long, value_name = "EPS")]
    pub tolerance: Option<String>,
    #[command(flatten)]
    pub solver: SolverArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// The arguments of `vera tests cover`.
#[derive(Debug, Clone, Args)]
pub struct TestsCoverArgs {
    /// The spec (TOML) or documentation side (SMT-LIB).
    pub spec: PathBuf,
    /// The suite: a CSV whose header names spec variables (other columns, such as
    /// `id`, are kept as labels or ignored; an empty cell or `free` leaves a variable
    /// open).
    pub vectors: PathBuf,
    #[command(flatten)]
    pub suite: SuiteArgs,
    #[command(flatten)]
    pub solver: SolverArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// The arguments of `vera consistency`.
#[derive(Debug, Clone, Args)]
pub struct ConsistencyArgs {
    /// The documentation's formalization (SMT-LIB).
    #[arg(long)]
    pub nl: Option<PathBuf>,
    /// Its output variable (default: from the bounds, else the one defined constant nothing uses).
    #[arg(long)]
    pub nl_output: Option<String>,
    /// A rate or fee table (CSV) as the documentation side, instead of --nl: one group,
    /// one guarded clause per cell (see `vera table smt`).
    #[arg(long, value_name = "FILE.csv", conflicts_with_all = ["nl", "batch", "nl_text"])]
    pub table: Option<PathBuf>,
    /// With --table: how its columns are read.
    #[command(flatten)]
    pub table_columns: TableColumnsArgs,
    /// With --table: the group and the names.
    #[command(flatten)]
    pub table_select: TableSelectArgs,
    /// The implementation (BL, or SMT-LIB).
    #[arg(long = "impl")]
    pub implementation: Option<PathBuf>,
    /// Its output variable (default: from the bounds, else the last binding).
    #[arg(long)]
    pub impl_output: Option<String>,
    /// Mappings and input ranges in the SIRNA bounds format (JSON).
    #[arg(long)]
    pub bounds: Option<PathBuf>,
    /// A named assumption NAME=TERM added to the input constraints (repeatable).
    #[arg(long, value_name = "NAME=TERM")]
    pub assume: Vec<String>,
    /// List every diverging input region, not just one counterexample.
    #[arg(long)]
    pub enumerate: bool,
    /// At most this many regions.
    #[arg(long, default_value_t = 16)]
    pub max_regions: usize,
    /// Accepted exceptions on file (TOML, see docs/bl.md), in addition to the
    /// exceptions.toml found next to the implementation (or, with --batch, in the
    /// dataset's folders).
    #[arg(long, value_name = "FILE")]
    pub exceptions: Option<PathBuf>,
    /// Do not read exceptions.toml files found next to the cases.
    #[arg(long)]
    pub no_exceptions: bool,
    /// Fail (exit 1) when an accepted exception is stale (excludes no divergent input)
    /// or broader than needed (excludes inputs where the outputs agree); without it
    /// they are warnings in the report, SARIF and JUnit, and the exit status follows
    /// the verdicts.
    #[arg(long, conflicts_with = "no_exceptions")]
    pub strict_exceptions: bool,
    /// Do not equate same-named inputs of the two sides by default.
    #[arg(long)]
    pub no_same_name_mapping: bool,
    /// Check every case under a folder laid out like the fees dataset. --bounds, when
    /// given, applies to every case (a folder's own bounds.json is then not used);
    /// without it each folder's bounds.json is used.
    #[arg(long, value_name = "DIR")]
    pub batch: Option<PathBuf>,
    /// With --batch: check only shard K of N (1 <= K <= N) of the sorted case list,
    /// position i going to shard i mod N + 1; merge the JSON reports with --merge.
    #[arg(long, value_name = "K/N", requires = "batch")]
    pub shard: Option<bl::batch::Shard>,
    /// Merge JSON batch reports (e.g. the shards of --shard) into one report.
    #[arg(
        long,
        value_name = "REPORT.json",
        num_args = 1..,
        conflicts_with_all = ["nl", "implementation", "batch", "nl_text", "bounds", "assume", "enumerate"]
    )]
    pub merge: Vec<PathBuf>,
    /// Formalize this rule text with a language model (voted translations) instead of --nl.
    #[arg(
        long,
        value_name = "RULE.txt",
        conflicts_with_all = ["nl", "batch", "enumerate", "max_regions", "no_same_name_mapping"]
    )]
    pub nl_text: Option<PathBuf>,
    /// With --nl-text: the variable specification (default: model.json next to the rule).
    #[arg(long, requires = "nl_text", conflicts_with_all = ["nl", "batch"], value_name = "JSON")]
    pub variables: Option<PathBuf>,
    /// With --nl-text: translations to vote on.
    #[arg(long, requires = "nl_text", conflicts_with_all = ["nl", "batch"], default_value_t = 3)]
    pub translations: u32,
    /// With --nl-text: the confidence threshold θ.
    #[arg(long, requires = "nl_text", conflicts_with_all = ["nl", "batch"], default_value_t = 2.0 / 3.0)]
    pub theta: f64,
    /// With --nl-text: repair turns for a translation that does not parse.
    #[arg(long, requires = "nl_text", conflicts_with_all = ["nl", "batch"], default_value_t = 2)]
    pub retries: usize,
    #[command(flatten)]
    pub llm: crate::pipecmd::LlmArgs,
    #[command(flatten)]
    pub solver: SolverArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// The arguments of `vera draft-variables`.
#[derive(Debug, Clone, Args)]
pub struct DraftVariablesArgs {
    /// The new rule text.
    pub rule: PathBuf,
    /// An example rule text of the same domain.
    #[arg(long, value_name = "RULE.txt")]
    pub example_rule: PathBuf,
    /// The example's variable specification (default: model.json next to it).
    #[arg(long, value_name = "JSON")]
    pub example_spec: Option<PathBuf>,
    /// Write the draft here instead of standard output.
    #[arg(long, short = 'o')]
    pub out: Option<PathBuf>,
    /// Repair turns after the first answer.
    #[arg(long, default_value_t = 2)]
    pub retries: usize,
    #[command(flatten)]
    pub llm: crate::pipecmd::LlmArgs,
    #[command(flatten)]
    pub output: TextOutputArgs,
}

/// The arguments of `vera equiv`.
#[derive(Debug, Clone, Args)]
pub struct EquivArgs {
    /// The spec (TOML), or a CSV with --schema.
    pub spec: PathBuf,
    /// Candidate terms over the schema.
    pub terms: Vec<String>,
    #[command(flatten)]
    pub csv: CsvArgs,
    /// A TOML file of candidate sets: one requirements table per set, with id and candidates.
    #[arg(long)]
    pub candidates: Option<PathBuf>,
    #[command(flatten)]
    pub solver: SolverArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// How requirement texts become formulas: forms voted on by meaning, or SMT-LIB terms.
#[derive(Debug, Clone, Args)]
pub struct FormArgs {
    /// Ask the model for SMT-LIB terms only (no controlled-English parser, no forms, no
    /// vote): the path of earlier versions, and the one recorded cassettes of them replay.
    #[arg(long)]
    pub smtlib: bool,
    /// Forms drawn per requirement; the largest group of equivalent formulas wins
    /// (docs/formalize.md, "Forms and the vote").
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=20))]
    pub forms: u32,
    /// Share of the valid forms the largest group must hold (below it the requirement is
    /// flagged for review and gets no formula).
    #[arg(long, value_name = "SHARE", default_value_t = 0.6)]
    pub agreement: f64,
    /// Temperature of every form after the first (the first is drawn at the model's
    /// usual temperature, 0 by default): lower draws agree more often, including on a
    /// wrong reading.
    #[arg(long, value_name = "T", default_value_t = 0.7)]
    pub form_temperature: f64,
    /// Do not read requirements written in controlled English without a model: ask the
    /// model about every requirement.
    #[arg(long)]
    pub no_parse: bool,
    /// Let forms compare a number with arithmetic (sum, difference, min, max, ratio of
    /// numbers and numeric variables) when the text names two numeric variables.
    #[arg(long)]
    pub arithmetic: bool,
}

impl FormArgs {
    /// The formalization options these flags set (over the defaults).
    pub fn apply(&self, o: &mut pipeline::formalize::FormalizeOptions) {
        o.forms = !self.smtlib;
        // The term path of earlier versions asks the model about every requirement.
        o.parse = !self.no_parse && !self.smtlib;
        o.vote.samples = self.forms as usize;
        o.vote.threshold = self.agreement.clamp(0.0, 1.0);
        o.vote.temperature = self.form_temperature.clamp(0.0, 2.0);
        o.arithmetic = self.arithmetic && !self.smtlib;
    }
}

/// The arguments of `vera formalize`.
#[derive(Debug, Clone, Args)]
pub struct FormalizeArgs {
    /// The spec (TOML), or a CSV with --schema (columns by header name).
    pub input: PathBuf,
    #[command(flatten)]
    pub csv: CsvArgs,
    /// The new spec file (default: INPUT.formalized.toml).
    #[arg(long, short = 'o')]
    pub out: Option<PathBuf>,
    /// The whole set in one request (JSON id -> formula) instead of one request each.
    #[arg(long)]
    pub batch: bool,
    /// Repair turns after the first attempt.
    #[arg(long, default_value_t = 5)]
    pub retries: usize,
    /// Only these requirement ids (comma-separated). Requirements that already have a
    /// formula are kept as they are unless named in --reformalize.
    #[arg(long)]
    pub only: Option<String>,
    /// Formalize these ids again although they have a formula (comma-separated).
    #[arg(long, value_name = "IDS")]
    pub reformalize: Option<String>,
    /// Worked examples taken from requirements whose formula a person wrote or
    /// accepted (`origin = "model"` formulas need `accepted = true`).
    #[arg(long, default_value_t = 2)]
    pub examples: usize,
    /// Token limit per answer, first attempts and repair turns alike (a formula is a
    /// few dozen tokens; a longer answer is cut and repaired).
    #[arg(long, value_name = "N", default_value_t = pipeline::formalize::DEFAULT_MAX_TOKENS)]
    pub max_tokens: u32,
    /// Do not retry a multi-sentence requirement that no turn formalized clause by
    /// clause (each sentence formalized on its own, the clauses conjoined).
    #[arg(long)]
    pub no_decompose: bool,
    #[command(flatten)]
    pub form: FormArgs,
    #[command(flatten)]
    pub llm: crate::pipecmd::LlmArgs,
    #[command(flatten)]
    pub solver: SolverArgs,
    #[command(flatten)]
    pub output: TextOutputArgs,
}

/// The arguments of `vera ambiguity`.
#[derive(Debug, Clone, Args)]
pub struct AmbiguityArgs {
    /// The spec (TOML), or a CSV with --schema.
    pub spec: PathBuf,
    #[command(flatten)]
    pub csv: CsvArgs,
    /// Samples per requirement.
    #[arg(long, short = 'n', default_value_t = 5)]
    pub samples: u32,
    /// Token limit per sampled formalization (a longer answer is an invalid sample).
    #[arg(long, value_name = "N", default_value_t = pipeline::formalize::DEFAULT_MAX_TOKENS)]
    pub max_tokens: u32,
    /// Only these requirement ids (comma-separated).
    #[arg(long)]
    pub only: Option<String>,
    #[command(flatten)]
    pub llm: crate::pipecmd::LlmArgs,
    #[command(flatten)]
    pub solver: SolverArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// The arguments of `vera clarify`.
#[derive(Debug, Clone, Args)]
pub struct ClarifyArgs {
    /// The spec (TOML), or a CSV with --schema.
    pub spec: PathBuf,
    #[command(flatten)]
    pub csv: CsvArgs,
    /// Rounds at most (with --controlled: answers asked per requirement).
    #[arg(long, default_value_t = 5)]
    pub rounds: usize,
    /// Instead of clarifying ambiguous requirements: ask the model to restate each
    /// requirement the controlled-English reader does not read in the reader's style.
    /// A restatement is kept only when the reader parses it into a formula the screening
    /// accepts; it is shown with that formula and its read-back, and written (never
    /// accepted) to SPEC.restated.json for a person to accept and --apply.
    #[arg(long, conflicts_with_all = ["samples", "apply"])]
    pub controlled: bool,
    /// Samples per screening.
    #[arg(long, short = 'n', default_value_t = 5)]
    pub samples: u32,
    /// Token limit per sampled formalization (a longer answer is an invalid sample).
    #[arg(long, value_name = "N", default_value_t = pipeline::formalize::DEFAULT_MAX_TOKENS)]
    pub max_tokens: u32,
    /// Only these requirement ids (comma-separated).
    #[arg(long)]
    pub only: Option<String>,
    /// The proposals file to write (default: SPEC.proposals.json).
    #[arg(long, short = 'o')]
    pub proposals: Option<PathBuf>,
    /// Apply the accepted proposals (or restatements) of this file instead of clarifying.
    #[arg(
        long,
        value_name = "PROPOSALS",
        conflicts_with_all = ["rounds", "samples", "max_tokens", "only", "proposals"]
    )]
    pub apply: Option<PathBuf>,
    /// With --apply: the new spec file (default: SPEC.clarified.toml).
    #[arg(long, requires = "apply")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub llm: crate::pipecmd::LlmArgs,
    #[command(flatten)]
    pub solver: SolverArgs,
    #[command(flatten)]
    pub output: TextOutputArgs,
}

/// The arguments of `vera c segments`.
#[derive(Debug, Clone, Args)]
pub struct CSegmentsArgs {
    /// The C files: one file, or the translation units of a program (with
    /// --compile-commands: the units to take from it, all when none is named).
    #[arg(required_unless_present = "compile_commands")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub cpp: CppArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// How C files are preprocessed, as a C compiler or the build takes it.
#[derive(Debug, Clone, Default, Args)]
pub struct CppArgs {
    /// Add DIR to the include search path (as `cc -I`).
    #[arg(short = 'I', value_name = "DIR", allow_hyphen_values = false)]
    pub include: Vec<PathBuf>,
    /// Define a macro: NAME or NAME=VALUE (as `cc -D`).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
    /// Undefine a macro (as `cc -U`).
    #[arg(short = 'U', value_name = "NAME")]
    pub undefine: Vec<String>,
    /// Take each file's flags from a JSON compilation database
    /// (`compile_commands.json`, as CMake or Bear write it).
    #[arg(long, value_name = "FILE")]
    pub compile_commands: Option<PathBuf>,
}

impl CppArgs {
    /// The flags as compiler arguments.
    pub fn args(&self) -> Vec<String> {
        let mut a: Vec<String> = Vec::new();
        for d in &self.include {
            a.push(format!("-I{}", d.display()));
        }
        for d in &self.define {
            a.push(format!("-D{d}"));
        }
        for u in &self.undefine {
            a.push(format!("-U{u}"));
        }
        a
    }
}

/// The arguments of `vera c verify`.
#[derive(Debug, Clone, Args)]
pub struct CVerifyArgs {
    /// The C files: one file, or the translation units of a program (with
    /// --compile-commands: the units to take from it, all when none is named).
    #[arg(required_unless_present = "compile_commands")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub cpp: CppArgs,
    #[command(flatten)]
    pub wp: WpArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// The arguments of `vera c strength`.
#[derive(Debug, Clone, Args)]
pub struct CStrengthArgs {
    /// The C file, or the files of a program (with --compile-commands: the units
    /// to take from it, all when none is named). A program's mutants are written
    /// into the file they come from in a private copy; the files are never
    /// modified.
    #[arg(required_unless_present = "compile_commands")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub cpp: CppArgs,
    /// At most this many mutants, spread over the file.
    #[arg(long)]
    pub max_mutants: Option<usize>,
    #[command(flatten)]
    pub wp: WpArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// The arguments of `vera llm ping`.
#[derive(Debug, Clone, Args)]
pub struct LlmPingArgs {
    /// The configuration file (its [llm] table; VERA_LLM_* variables override it).
    #[arg(long, alias = "llm-config", default_value = "vera.toml")]
    pub config: PathBuf,
}

/// The arguments of `vera bl check`, `vera bl fmt` and `vera bl encode`.
#[derive(Debug, Clone, Args)]
pub struct BlFileArgs {
    /// The program.
    pub file: PathBuf,
}

/// The arguments of `vera bl eval`.
#[derive(Debug, Clone, Args)]
pub struct BlEvalArgs {
    /// The program.
    pub file: PathBuf,
    /// Input values, NAME=VALUE (12, -3.5 or 1/3).
    pub inputs: Vec<String>,
    /// Print only this binding.
    #[arg(long)]
    pub output: Option<String>,
}

/// The arguments of `vera smt check`.
#[derive(Debug, Clone, Args)]
pub struct SmtCheckArgs {
    /// SMT-LIB 2.6 files (several are solved in parallel, see --jobs).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub solver: SolverArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// The arguments of `vera table check`.
#[derive(Debug, Clone, Args)]
pub struct TableCheckArgs {
    /// The table (CSV with a header row).
    pub file: PathBuf,
    #[command(flatten)]
    pub columns: TableColumnsArgs,
    /// The range an input is checked over, NAME=LO..HI, both ends inclusive, either may
    /// be left out (repeatable; default: the hull of each group's rows).
    #[arg(long, value_name = "NAME=LO..HI")]
    pub range: Vec<String>,
    /// Ask the language model to rewrite the cells the parser cannot read in the cell
    /// language; a rewriting is used only when the parser reads it, and every one is
    /// listed for review (the check then exits 1 until the table itself is fixed).
    #[arg(long)]
    pub llm: bool,
    /// With --llm: more answers per cell after one the parser refuses.
    #[arg(long = "cell-retries", default_value_t = 2, requires = "llm")]
    pub cell_retries: usize,
    /// With --llm: the most cells to ask about (the rest stay unreadable).
    #[arg(long = "max-cells", default_value_t = 50, requires = "llm")]
    pub max_cells: usize,
    #[command(flatten)]
    pub llm_args: crate::pipecmd::LlmArgs,
    #[command(flatten)]
    pub solver: SolverArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// How a table's columns are read (shared by `vera table` and `vera consistency --table`).
#[derive(Debug, Clone, Args, Default)]
pub struct TableColumnsArgs {
    /// Key columns by header name, comma-separated (default: the columns of text).
    #[arg(long, value_delimiter = ',', value_name = "COL,...")]
    pub keys: Option<Vec<String>>,
    /// Condition columns by header name, one numeric input each (default: the columns
    /// with intervals, else the first column of bare amounts).
    #[arg(long, value_delimiter = ',', value_name = "COL,...")]
    pub when: Option<Vec<String>>,
    /// Outcome columns by header name (default: the other columns of amounts,
    /// percentages or rule sentences).
    #[arg(long, value_delimiter = ',', value_name = "COL,...")]
    pub then: Option<Vec<String>>,
    /// What a bare amount in a condition column means: not-over (a step's upper end,
    /// the default for a column of bare amounts), at-least (a step's lower end) or
    /// point.
    #[arg(long, value_name = "MEANING")]
    pub bare: Option<table::BareMode>,
}

/// Which part of a table becomes a formalization, and its names.
#[derive(Debug, Clone, Args, Default)]
pub struct TableSelectArgs {
    /// The group, by its key values: KEY=VALUE,... (needed when the table has groups).
    #[arg(long, value_delimiter = ',', value_name = "KEY=VALUE,...")]
    pub group: Vec<String>,
    /// Use every outcome column, selected by this input: a column whose header ends
    /// in a number (`Zone 3`) applies when the input equals that number.
    #[arg(long, value_name = "INPUT")]
    pub by: Option<String>,
    /// The SMT-LIB name of an input, COLUMN=NAME (repeatable; default: the header in
    /// lower case with `_` for other characters).
    #[arg(long = "name", value_name = "COLUMN=NAME")]
    pub names: Vec<String>,
}

/// The arguments of `vera table smt`.
#[derive(Debug, Clone, Args)]
pub struct TableSmtArgs {
    /// The table (CSV with a header row).
    pub file: PathBuf,
    #[command(flatten)]
    pub columns: TableColumnsArgs,
    #[command(flatten)]
    pub select: TableSelectArgs,
    /// The output constant's name (default: from the outcome column's header, or `fee`
    /// with --by).
    #[arg(long = "output-name", value_name = "NAME")]
    pub output_name: Option<String>,
}

/// The arguments of `vera smt fmt`.
#[derive(Debug, Clone, Args)]
pub struct SmtFmtArgs {
    /// The file to format.
    pub file: PathBuf,
    /// Preferred line width.
    #[arg(long, default_value_t = 100)]
    pub width: usize,
}

/// Options that choose and limit the solver.
#[derive(Debug, Clone, Args)]
pub struct SolverArgs {
    /// Which solver to run.
    #[arg(long, value_enum, default_value_t = SolverChoice::Z3)]
    pub solver: SolverChoice,
    /// Limit per solver query, in seconds.
    #[arg(long, default_value_t = 10.0, value_parser = parse_seconds)]
    pub timeout: f64,
    /// Parallel solver processes (default: number of cores).
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    /// Write every command sent and every answer to this .smt2 file (replayable with the solver).
    #[arg(long)]
    pub transcript: Option<PathBuf>,
}

impl SolverArgs {
    /// The solver configuration these options describe.
    pub fn config(&self) -> solver::SolverConfig {
        let mut c = solver::SolverConfig::new(match self.solver {
            SolverChoice::Z3 => solver::SolverKind::Z3,
            SolverChoice::Cvc5 => solver::SolverKind::Cvc5,
        });
        c.timeout = Duration::from_secs_f64(self.timeout);
        c.transcript = self.transcript.clone();
        c.transcript_force = crate::files::force();
        c
    }

    /// Refuses, before any work, a transcript that cannot be written: an input, or an
    /// existing file without --force, at its path or at one of the paths written beside
    /// it (one per solver process, and their re-check transcripts).
    pub fn plan_transcripts(&self) -> anyhow::Result<()> {
        let Some(t) = &self.transcript else {
            return Ok(());
        };
        let force = crate::files::force();
        for p in solver::transcript_files(t, self.jobs()) {
            if p == *t || p.exists() {
                safefile::plan_output(&p, force)?;
            }
        }
        Ok(())
    }

    /// The number of parallel jobs (`-j 0` or none: one per core).
    pub fn jobs(&self) -> usize {
        solver::job_count(self.jobs.unwrap_or(0))
    }
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if v.is_finite() && v > 0.0 && v < 1e6 {
        Ok(v)
    } else {
        Err("the timeout must be a positive number of seconds".into())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SolverChoice {
    Z3,
    Cvc5,
}

/// How a CSV of requirements is read: the TOML spec whose schema it uses, and which
/// columns hold what.
#[derive(Debug, Clone, Args)]
pub struct CsvArgs {
    /// The TOML spec whose schema (enums, variables, domain) a CSV uses.
    #[arg(long)]
    pub schema: Option<PathBuf>,
    /// With a CSV: which columns hold the id, text, formula and row type, by header
    /// name, e.g. id=ReqID,text=Body,formula=SMT (default: recognized from the header
    /// row; see docs/spec-format.md).
    #[arg(long, value_name = "ROLE=COLUMN,...")]
    pub csv_columns: Option<reqs::CsvColumns>,
}

/// The arguments of `vera extract`.
#[derive(Debug, Clone, Args)]
pub struct ExtractArgs {
    /// The file to read.
    pub file: PathBuf,
    /// How to read it (default: from its name and first bytes; a name ending in `.req`
    /// is an Ultimate/Hanfor requirements file).
    #[arg(long, value_enum, default_value_t = ExtractFrom::Auto)]
    pub from: ExtractFrom,
    /// Output format: the TOML spec (human) or the JSON list (`vera.requirements.v1`).
    /// A `.req` file is imported as a TOML spec only.
    #[arg(long, value_enum, default_value_t = TextFormat::Human)]
    pub format: TextFormat,
    /// The time step of a spec imported from an Ultimate `.req` file or a FRET export
    /// (`--timed`), a number and a unit (us, ms, s, min, h). Default for a `.req` file
    /// read in dense time: the greatest common divisor of its durations; in discrete
    /// time and for FRET, "1 s". Every duration of the file must be a whole number of
    /// ticks; a FRET time point is one tick. With a FRET export, `--tick` implies
    /// `--timed`.
    #[arg(long, value_name = "DURATION")]
    pub tick: Option<String>,
    /// `.req` files: how the spec reads time. `dense` (the default) is Ultimate's own
    /// reading, every pattern of Hanfor's catalog over real time; `discrete` maps the
    /// patterns that have one to vera's step-by-step keys (docs/timed.md).
    #[arg(long, value_enum, default_value_t = ReqTime::Dense)]
    pub semantics: ReqTime,
    /// FRET exports only: import the requirements' FRETish `fulltext` as a timed spec
    /// with formulas (docs/extract.md), instead of the requirement list.
    #[arg(long)]
    pub timed: bool,
    /// FRET exports only (implies `--timed`): import the requirements that can be
    /// imported and list the others (each with its place and reason) instead of
    /// refusing the file.
    #[arg(long)]
    pub skip_unsupported: bool,
    /// Write the output to FILE (atomically; an existing FILE needs --force; never an
    /// input) instead of standard output.
    #[arg(long = "output", short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// How a `.req` file's spec reads time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReqTime {
    /// Real time, as Ultimate reads the file.
    Dense,
    /// vera's steps of one tick.
    Discrete,
}

/// The formats `vera extract --from` names: `req` is the Ultimate/Hanfor `.req` import
/// (a timed spec with formulas), the others give the requirement list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExtractFrom {
    Auto,
    Text,
    Markdown,
    Fret,
    Hanfor,
    Reqif,
    Req,
}

impl ExtractFrom {
    /// The reading asked for (`None` for `auto`: `extract::Reading::resolve` decides).
    pub fn asked(self) -> Option<extract::Reading> {
        use extract::Reading::{List, Req};
        match self {
            ExtractFrom::Auto => None,
            ExtractFrom::Text => Some(List(Some(extract::Format::Text))),
            ExtractFrom::Markdown => Some(List(Some(extract::Format::Markdown))),
            ExtractFrom::Fret => Some(List(Some(extract::Format::Fret))),
            ExtractFrom::Hanfor => Some(List(Some(extract::Format::Hanfor))),
            ExtractFrom::Reqif => Some(List(Some(extract::Format::Reqif))),
            ExtractFrom::Req => Some(Req),
        }
    }
}

/// How results are printed.
#[derive(Debug, Clone, Args)]
pub struct OutputArgs {
    /// Output format: text for a terminal, the versioned JSON payload, SARIF 2.1.0
    /// (findings), JUnit XML (pass/fail cases), a self-contained HTML page or a CSV
    /// table (test tables). Each command says which it offers; asking for another is an
    /// error.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Write the output to FILE (atomically; an existing FILE needs --force; `-` is
    /// standard output) instead of standard output.
    #[arg(long = "output", short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// How the results of a command that writes its own file (`-o`) are printed.
#[derive(Debug, Clone, Args)]
pub struct TextOutputArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = TextFormat::Human)]
    pub format: TextFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Json,
    Sarif,
    Junit,
    Html,
    Csv,
}

/// The formats of commands whose own output file is `-o`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TextFormat {
    Human,
    Json,
}

impl OutputArgs {
    /// The file to write, if any: `-o -` means standard output, like no `-o` at all.
    pub fn file(&self) -> Option<&std::path::Path> {
        self.output
            .as_deref()
            .filter(|p| *p != std::path::Path::new("-"))
    }
}

impl From<TextFormat> for Format {
    fn from(f: TextFormat) -> Format {
        match f {
            TextFormat::Human => Format::Human,
            TextFormat::Json => Format::Json,
        }
    }
}

impl From<Format> for report::Format {
    fn from(f: Format) -> report::Format {
        match f {
            Format::Human => report::Format::Human,
            Format::Json => report::Format::Json,
            Format::Sarif => report::Format::Sarif,
            Format::Junit => report::Format::Junit,
            Format::Html => report::Format::Html,
            Format::Csv => report::Format::Csv,
        }
    }
}

/// What [`run`] needs of a command before it runs it: how its report is printed
/// (`--format` and `-o` where the command has them; commands that write their own
/// file take `--format` only, the text commands print text), its solver options where
/// it runs a solver, and the call that runs it.
struct Plan<'a> {
    output: OutputArgs,
    solver: Option<&'a SolverArgs>,
    run: Box<dyn FnOnce() -> crate::output::Outcome + 'a>,
}

impl<'a> Plan<'a> {
    fn new(
        output: impl Into<OutputArgs>,
        solver: impl Into<Option<&'a SolverArgs>>,
        run: impl FnOnce() -> crate::output::Outcome + 'a,
    ) -> Self {
        let (output, solver, run) = (output.into(), solver.into(), Box::new(run));
        Plan {
            output,
            solver,
            run,
        }
    }
}

impl From<&OutputArgs> for OutputArgs {
    fn from(o: &OutputArgs) -> Self {
        o.clone()
    }
}

/// A command that writes its own file, or prints text: no `-o`.
impl From<TextFormat> for OutputArgs {
    fn from(format: TextFormat) -> Self {
        let format = format.into();
        OutputArgs {
            format,
            output: None,
        }
    }
}

impl Command {
    /// The command's [`Plan`].
    fn plan(&self) -> Plan<'_> {
        use crate::{audit, blcmd, ccmd, pipecmd, qacmd, smt, tablecmd};
        use TextFormat::Human;
        match self {
            Command::Audit(a) => Plan::new(&a.output, &a.solver, || audit::audit(a)),
            Command::Ask(a) => Plan::new(&a.output, &a.solver, || audit::ask(a)),
            Command::Mutate(a) => Plan::new(&a.output, &a.solver, || audit::mutate(a)),
            Command::Qa(a) => Plan::new(&a.output, &a.solver, || qacmd::qa(a)),
            Command::Roundtrip(a) => Plan::new(&a.output, &a.solver, || qacmd::roundtrip(a)),
            Command::Faults(a) => Plan::new(&a.output, &a.solver, || qacmd::faults(a)),
            Command::Eval(a) => Plan::new(Human, &a.solver, || qacmd::eval(a)),
            Command::Consistency(a) => Plan::new(&a.output, &a.solver, || match &a.nl_text {
                Some(rule) => pipecmd::consistency_nl_text(a, rule),
                None => blcmd::consistency(a),
            }),
            Command::DraftVariables(a) => {
                Plan::new(a.output.format, None, || pipecmd::draft_variables(a))
            }
            Command::Equiv(a) => Plan::new(&a.output, &a.solver, || pipecmd::equiv(a)),
            Command::Formalize(a) => {
                Plan::new(a.output.format, &a.solver, || pipecmd::formalize(a))
            }
            Command::Ambiguity(a) => Plan::new(&a.output, &a.solver, || pipecmd::ambiguity(a)),
            Command::Clarify(a) => Plan::new(a.output.format, &a.solver, || pipecmd::clarify(a)),
            Command::Bl(BlCommand::Check(a)) => Plan::new(Human, None, || blcmd::check(a)),
            Command::Bl(BlCommand::Fmt(a)) => Plan::new(Human, None, || blcmd::fmt(a)),
            Command::Bl(BlCommand::Encode(a)) => Plan::new(Human, None, || blcmd::encode(a)),
            Command::Bl(BlCommand::Eval(a)) => Plan::new(Human, None, || blcmd::eval(a)),
            Command::C(CCommand::Segments(a)) => Plan::new(&a.output, None, || ccmd::segments(a)),
            Command::C(CCommand::Verify(a)) => Plan::new(&a.output, None, || ccmd::verify(a)),
            Command::C(CCommand::Strength(a)) => Plan::new(&a.output, None, || ccmd::strength(a)),
            Command::C(CCommand::Synth(a)) => Plan::new(a.output.format, None, || ccmd::synth(a)),
            Command::Llm(LlmCommand::Ping(a)) => Plan::new(Human, None, || crate::llmcmd::ping(a)),
            Command::Smt(SmtCommand::Check(a)) => Plan::new(&a.output, &a.solver, || smt::check(a)),
            Command::Smt(SmtCommand::Fmt(a)) => Plan::new(Human, None, || smt::fmt(a)),
            Command::Table(TableCommand::Check(a)) => {
                Plan::new(&a.output, &a.solver, || tablecmd::check(a))
            }
            Command::Table(TableCommand::Smt(a)) => Plan::new(Human, None, || tablecmd::smt(a)),
            Command::Extract(a) => {
                let output = OutputArgs {
                    format: a.format.into(),
                    output: a.output.clone(),
                };
                Plan::new(output, None, || crate::extractcmd::extract(a))
            }
            Command::Schema(SchemaCommand::Draft(a)) => {
                Plan::new(a.output.format, &a.solver, || crate::schemacmd::draft(a))
            }
            Command::Run(a) => Plan::new(&a.output, &a.solver, || crate::runcmd::run(a)),
            Command::Tests(a) => {
                let (output, solver) = match &a.command {
                    None => (&a.output, &a.solver),
                    Some(TestsCommand::Run(r)) => (&r.output, &r.solver),
                    Some(TestsCommand::Cover(c)) => (&c.output, &c.solver),
                };
                Plan::new(output, solver, || crate::testscmd::tests(a))
            }
            Command::Serve(_) => Plan::new(Human, None, || {
                Err(anyhow::anyhow!("serve is run by cli::run"))
            }),
        }
    }
}

/// The command as typed, e.g. `c verify` (for messages): the names of the subcommands
/// in `m`, outermost first.
pub fn command_name(m: &clap::ArgMatches) -> String {
    let mut names = Vec::new();
    let mut m = m;
    while let Some((n, sub)) = m.subcommand() {
        names.push(n);
        m = sub;
    }
    names.join(" ")
}

/// Runs a parsed command line: the command's report is rendered by
/// [`crate::output::emit`], and its status becomes the exit code here, the one place
/// where that happens (errors that are not reports exit 2 in `main`).
pub fn run(cli: Cli, name: &str) -> anyhow::Result<ExitCode> {
    if let Command::Serve(a) = &cli.command {
        return crate::servecmd::serve(a);
    }
    let plan = cli.command.plan();
    let output = plan.output;
    // An output file that cannot be written is refused before any work is done; one
    // that becomes an input later (a header the preprocessor opens) is refused as soon
    // as the command knows it (`safefile::check_planned`), and in any case when it is
    // written (`output::emit` through `safefile::write_atomic`).
    if let Some(path) = output.file() {
        safefile::plan_output(path, cli.force)?;
    }
    if let Some(s) = plan.solver {
        s.plan_transcripts()?;
    }
    let report = match (plan.run)() {
        Ok(r) => r,
        Err(e) => {
            crate::output::emit_error(name, &e, &output);
            return Ok(ExitCode::from(crate::output::EXIT_ERROR));
        }
    };
    let status = crate::output::emit(name, report.as_ref(), &output)?;
    Ok(ExitCode::from(status.exit_code()))
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Clap's own consistency checks on every subcommand (unique names, valid defaults).
    #[test]
    fn command_line_definition_is_valid() {
        super::Cli::command().debug_assert();
    }

    /// The name of a command in messages is the subcommands as typed.
    #[test]
    fn command_names_are_the_subcommands_as_typed() {
        for (line, name) in [
            (&["vera", "audit", "s.toml"][..], "audit"),
            (&["vera", "c", "verify", "f.c"][..], "c verify"),
            (&["vera", "tests", "s.toml"][..], "tests"),
            (&["vera", "bl", "fmt", "p.bl"][..], "bl fmt"),
            (&["vera", "schema", "draft", "r.md"][..], "schema draft"),
        ] {
            let m = super::Cli::command().try_get_matches_from(line).unwrap();
            assert_eq!(super::command_name(&m), name);
        }
    }
}
