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

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Audit a requirements spec: global consistency, vacuity, violatability, redundancy.
    ///
    /// Exit status: 0 no findings, 1 findings, 2 bad input, solver failure or unknown.
    Audit {
        /// The spec (TOML), or a CSV with --schema (columns by header name: id, text,
        /// optional formula; see --csv-columns).
        spec: PathBuf,
        /// The TOML spec whose schema (enums, variables, domain) a CSV uses.
        #[arg(long)]
        schema: Option<PathBuf>,
        /// With a CSV: which columns hold the id, text, formula and row type, by header
        /// name, e.g. id=ReqID,text=Body,formula=SMT (default: recognized from the header
        /// row; see docs/spec-format.md).
        #[arg(long, value_name = "ROLE=COLUMN,...")]
        csv_columns: Option<reqs::CsvColumns>,
        /// When inconsistent, list up to N minimal conflicts (default: one).
        #[arg(long, value_name = "N", default_value_t = 1)]
        all_conflicts: usize,
        /// Also print a violating state for every requirement.
        #[arg(long)]
        witnesses: bool,
        /// Folder where results are kept, so that re-running after an edit asks again
        /// only the checks the edit can change.
        #[arg(long, value_name = "DIR", default_value = ".vera-cache/audit")]
        cache_dir: PathBuf,
        /// Ask every check again: neither read nor write the cache.
        #[arg(long)]
        no_cache: bool,
        #[command(flatten)]
        solver: SolverArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Ask scenario questions: is a claim entailed by the requirements under a scenario?
    ///
    /// Exit status: 0 all entailed (or derived), 1 some not entailed or scenario
    /// impossible, 2 bad input, unknown, or an answer that contradicts `expected`.
    Ask {
        /// The spec (TOML), or a CSV with --schema.
        spec: PathBuf,
        /// The TOML spec whose schema a CSV uses.
        #[arg(long)]
        schema: Option<PathBuf>,
        /// With a CSV: which columns hold the id, text, formula and row type, by header
        /// name, e.g. id=ReqID,text=Body,formula=SMT (default: recognized from the header
        /// row; see docs/spec-format.md).
        #[arg(long, value_name = "ROLE=COLUMN,...")]
        csv_columns: Option<reqs::CsvColumns>,
        /// The scenario, an SMT-LIB formula over the schema (default: true).
        #[arg(long)]
        scenario: Option<String>,
        /// The claim to check under the scenario.
        #[arg(long)]
        claim: Option<String>,
        /// A questions file (TOML, one questions table per question: id, text, scenario, claim, expected).
        #[arg(long, conflicts_with_all = ["claim", "derive"])]
        questions: Option<PathBuf>,
        /// Instead of checking a claim, print what the requirements force under the scenario.
        #[arg(long, conflicts_with = "claim")]
        derive: bool,
        #[command(flatten)]
        solver: SolverArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Verified question answering: the model extracts a scenario and proposes an
    /// answer over the schema; the solver checks M ∧ s ∧ ¬a and rejected answers are
    /// repaired with one of four feedback modes.
    ///
    /// Exit status: 0 every question accepted in every mode, 1 some rejected after the
    /// repair budget, 2 bad input, LLM or solver failure.
    Qa {
        /// The spec (TOML).
        spec: PathBuf,
        /// The questions file (TOML, see docs/qa.md).
        questions: PathBuf,
        #[command(flatten)]
        qa: crate::qacmd::QaArgs,
        #[command(flatten)]
        llm: crate::qacmd::ModelArgs,
        #[command(flatten)]
        solver: SolverArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Round trip: formula → sentence → formula, checked for equivalence under the
    /// domain, with one repair turn for mismatches. It checks that the formula survives
    /// a trip through text; sentences that do not mention the formula's variables or
    /// drift from the requirement text are flagged.
    ///
    /// Exit status: 0 all equivalent and none flagged, 1 some differ or are flagged, 2
    /// bad input, LLM or solver failure.
    Roundtrip {
        /// The spec (TOML).
        spec: PathBuf,
        /// Only the first N formalized requirements.
        #[arg(long, value_name = "N")]
        limit: Option<usize>,
        /// No repair turn.
        #[arg(long)]
        no_repair: bool,
        #[command(flatten)]
        llm: crate::qacmd::ModelArgs,
        #[command(flatten)]
        solver: SolverArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// End-to-end fault detection: faulty requirement texts are formalized again and
    /// substituted into the model; a fault is detected by inconsistency or
    /// non-equivalence.
    ///
    /// Exit status: 0 every fault detected, 1 some missed, 2 bad input, LLM or solver failure.
    Faults {
        /// The spec (TOML).
        spec: PathBuf,
        /// Faulty texts (TOML `[[mutants]]`); without it the model writes one per requirement.
        #[arg(long)]
        mutants: Option<PathBuf>,
        /// With generated faults: only the first N formalized requirements.
        #[arg(long, value_name = "N")]
        limit: Option<usize>,
        #[command(flatten)]
        llm: crate::qacmd::ModelArgs,
        #[command(flatten)]
        solver: SolverArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// The evaluation harness: runs the experiments and writes eval.json and tables.md
    /// (Table 1, Fig. 4, Fig. 5, Fig. 6 as tables) with the LLM accounting.
    ///
    /// Exit status: 0 written, 2 bad input, LLM or solver failure.
    Eval {
        /// The spec (TOML).
        spec: PathBuf,
        #[command(flatten)]
        eval: crate::qacmd::EvalArgs,
        #[command(flatten)]
        llm: crate::qacmd::ModelArgs,
        #[command(flatten)]
        solver: SolverArgs,
    },
    /// Mutation analysis: would the spec notice if a requirement were wrong?
    ///
    /// Exit status: 0 every mutant detected, 1 some mutants undetected (equivalent
    /// under the domain), 2 bad input, solver failure or unknown.
    Mutate {
        /// The spec (TOML), or a CSV with --schema.
        spec: PathBuf,
        /// The TOML spec whose schema a CSV uses.
        #[arg(long)]
        schema: Option<PathBuf>,
        /// With a CSV: which columns hold the id, text, formula and row type, by header
        /// name, e.g. id=ReqID,text=Body,formula=SMT (default: recognized from the header
        /// row; see docs/spec-format.md).
        #[arg(long, value_name = "ROLE=COLUMN,...")]
        csv_columns: Option<reqs::CsvColumns>,
        #[command(flatten)]
        solver: SolverArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Check a documented rule (SMT-LIB) against its BL implementation.
    ///
    /// Exit status: 0 consistent, 1 inconsistent, 2 unknown, rejected formalization or
    /// bad input. With --batch: the worst over all cases.
    Consistency {
        /// The documentation's formalization (SMT-LIB).
        #[arg(long)]
        nl: Option<PathBuf>,
        /// Its output variable (default: from the bounds, else the one defined constant nothing uses).
        #[arg(long)]
        nl_output: Option<String>,
        /// The implementation (BL, or SMT-LIB).
        #[arg(long = "impl")]
        implementation: Option<PathBuf>,
        /// Its output variable (default: from the bounds, else the last binding).
        #[arg(long)]
        impl_output: Option<String>,
        /// Mappings and input ranges in the SIRNA bounds format (JSON).
        #[arg(long)]
        bounds: Option<PathBuf>,
        /// A named assumption NAME=TERM added to the input constraints (repeatable).
        #[arg(long, value_name = "NAME=TERM")]
        assume: Vec<String>,
        /// List every diverging input region, not just one counterexample.
        #[arg(long)]
        enumerate: bool,
        /// At most this many regions.
        #[arg(long, default_value_t = 16)]
        max_regions: usize,
        /// Do not equate same-named inputs of the two sides by default.
        #[arg(long)]
        no_same_name_mapping: bool,
        /// Check every case under a folder laid out like the fees dataset.
        #[arg(long, value_name = "DIR")]
        batch: Option<PathBuf>,
        /// Formalize this rule text with a language model (voted translations) instead of --nl.
        #[arg(
            long,
            value_name = "RULE.txt",
            conflicts_with_all = ["nl", "batch", "enumerate", "max_regions", "no_same_name_mapping"]
        )]
        nl_text: Option<PathBuf>,
        /// With --nl-text: the variable specification (default: model.json next to the rule).
        #[arg(long, requires = "nl_text", conflicts_with_all = ["nl", "batch"], value_name = "JSON")]
        variables: Option<PathBuf>,
        /// With --nl-text: translations to vote on.
        #[arg(long, requires = "nl_text", conflicts_with_all = ["nl", "batch"], default_value_t = 3)]
        translations: u32,
        /// With --nl-text: the confidence threshold θ.
        #[arg(long, requires = "nl_text", conflicts_with_all = ["nl", "batch"], default_value_t = 2.0 / 3.0)]
        theta: f64,
        /// With --nl-text: repair turns for a translation that does not parse.
        #[arg(long, requires = "nl_text", conflicts_with_all = ["nl", "batch"], default_value_t = 2)]
        retries: usize,
        #[command(flatten)]
        llm: crate::pipecmd::LlmArgs,
        #[command(flatten)]
        solver: SolverArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Draft a variable specification (model.json) for a new rule text from one example
    /// rule of the same domain and its specification (SIRNA Fig. 9).
    ///
    /// Exit status: 0 drafted, 2 no valid draft or bad input.
    DraftVariables {
        /// The new rule text.
        rule: PathBuf,
        /// An example rule text of the same domain.
        #[arg(long, value_name = "RULE.txt")]
        example_rule: PathBuf,
        /// The example's variable specification (default: model.json next to it).
        #[arg(long, value_name = "JSON")]
        example_spec: Option<PathBuf>,
        /// Write the draft here instead of standard output.
        #[arg(long, short = 'o')]
        out: Option<PathBuf>,
        /// Repair turns after the first answer.
        #[arg(long, default_value_t = 2)]
        retries: usize,
        #[command(flatten)]
        llm: crate::pipecmd::LlmArgs,
        #[command(flatten)]
        output: TextOutputArgs,
    },
    /// Partition candidate formulas into classes of equivalence under the domain, with
    /// distinguishing witnesses (boundary values first) and agreement metrics.
    ///
    /// Exit status: 0 one class per set, 1 some set has several, 2 bad input.
    Equiv {
        /// The spec (TOML), or a CSV with --schema.
        spec: PathBuf,
        /// Candidate terms over the schema.
        terms: Vec<String>,
        /// The TOML spec whose schema a CSV uses.
        #[arg(long)]
        schema: Option<PathBuf>,
        /// With a CSV: which columns hold the id, text, formula and row type, by header
        /// name, e.g. id=ReqID,text=Body,formula=SMT (default: recognized from the header
        /// row; see docs/spec-format.md).
        #[arg(long, value_name = "ROLE=COLUMN,...")]
        csv_columns: Option<reqs::CsvColumns>,
        /// A TOML file of candidate sets: one requirements table per set, with id and candidates.
        #[arg(long)]
        candidates: Option<PathBuf>,
        #[command(flatten)]
        solver: SolverArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Formalize requirement texts with a language model: schema and domain in the
    /// prompt, every answer parsed as untrusted input and checked by the solver, a
    /// repair loop; writes a NEW spec with provenance per requirement.
    ///
    /// Exit status: 0 all formalized, 1 some still fail (listed), 2 bad input or LLM failure.
    Formalize {
        /// The spec (TOML), or a CSV with --schema (columns by header name).
        input: PathBuf,
        /// The TOML spec whose schema a CSV uses.
        #[arg(long)]
        schema: Option<PathBuf>,
        /// With a CSV: which columns hold the id, text, formula and row type, by header
        /// name, e.g. id=ReqID,text=Body,formula=SMT (default: recognized from the header
        /// row; see docs/spec-format.md).
        #[arg(long, value_name = "ROLE=COLUMN,...")]
        csv_columns: Option<reqs::CsvColumns>,
        /// The new spec file (default: INPUT.formalized.toml).
        #[arg(long, short = 'o')]
        out: Option<PathBuf>,
        /// The whole set in one request (JSON id -> formula) instead of one request each.
        #[arg(long)]
        batch: bool,
        /// Repair turns after the first attempt.
        #[arg(long, default_value_t = 5)]
        retries: usize,
        /// Only these requirement ids (comma-separated). Requirements that already have a
        /// formula are kept as they are unless named in --reformalize.
        #[arg(long)]
        only: Option<String>,
        /// Formalize these ids again although they have a formula (comma-separated).
        #[arg(long, value_name = "IDS")]
        reformalize: Option<String>,
        /// Worked examples taken from requirements whose formula a person wrote or
        /// accepted (`origin = "model"` formulas need `accepted = true`).
        #[arg(long, default_value_t = 2)]
        examples: usize,
        /// Token limit per answer, first attempts and repair turns alike (a formula is a
        /// few dozen tokens; a longer answer is cut and repaired).
        #[arg(long, value_name = "N", default_value_t = pipeline::formalize::DEFAULT_MAX_TOKENS)]
        max_tokens: u32,
        /// Do not retry a multi-sentence requirement that no turn formalized clause by
        /// clause (each sentence formalized on its own, the clauses conjoined).
        #[arg(long)]
        no_decompose: bool,
        #[command(flatten)]
        llm: crate::pipecmd::LlmArgs,
        #[command(flatten)]
        solver: SolverArgs,
        #[command(flatten)]
        output: TextOutputArgs,
    },
    /// Screen requirement texts for ambiguity: N formalizations at temperature 1.0 each,
    /// partitioned by solver equivalence; several classes flag the requirement.
    ///
    /// Exit status: 0 none flagged, 1 some flagged, 2 bad input or LLM failure.
    Ambiguity {
        /// The spec (TOML), or a CSV with --schema.
        spec: PathBuf,
        /// The TOML spec whose schema a CSV uses.
        #[arg(long)]
        schema: Option<PathBuf>,
        /// With a CSV: which columns hold the id, text, formula and row type, by header
        /// name, e.g. id=ReqID,text=Body,formula=SMT (default: recognized from the header
        /// row; see docs/spec-format.md).
        #[arg(long, value_name = "ROLE=COLUMN,...")]
        csv_columns: Option<reqs::CsvColumns>,
        /// Samples per requirement.
        #[arg(long, short = 'n', default_value_t = 5)]
        samples: u32,
        /// Token limit per sampled formalization (a longer answer is an invalid sample).
        #[arg(long, value_name = "N", default_value_t = pipeline::formalize::DEFAULT_MAX_TOKENS)]
        max_tokens: u32,
        /// Only these requirement ids (comma-separated).
        #[arg(long)]
        only: Option<String>,
        #[command(flatten)]
        llm: crate::pipecmd::LlmArgs,
        #[command(flatten)]
        solver: SolverArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Clarify ambiguity-sensitive requirements from the solver's evidence, re-screening
    /// each rewrite; writes a proposals file. With --apply, writes accepted proposals
    /// into a new spec.
    ///
    /// Exit status: 0 every flagged requirement converged (or none was flagged), 1 some
    /// did not, 2 none converged (nothing to apply), bad input, LLM or solver failure.
    /// With --apply: 0 applied or nothing to apply, 2 bad input.
    Clarify {
        /// The spec (TOML), or a CSV with --schema.
        spec: PathBuf,
        /// The TOML spec whose schema a CSV uses.
        #[arg(long)]
        schema: Option<PathBuf>,
        /// With a CSV: which columns hold the id, text, formula and row type, by header
        /// name, e.g. id=ReqID,text=Body,formula=SMT (default: recognized from the header
        /// row; see docs/spec-format.md).
        #[arg(long, value_name = "ROLE=COLUMN,...")]
        csv_columns: Option<reqs::CsvColumns>,
        /// Rounds at most.
        #[arg(long, default_value_t = 5)]
        rounds: usize,
        /// Samples per screening.
        #[arg(long, short = 'n', default_value_t = 5)]
        samples: u32,
        /// Token limit per sampled formalization (a longer answer is an invalid sample).
        #[arg(long, value_name = "N", default_value_t = pipeline::formalize::DEFAULT_MAX_TOKENS)]
        max_tokens: u32,
        /// Only these requirement ids (comma-separated).
        #[arg(long)]
        only: Option<String>,
        /// The proposals file to write (default: SPEC.proposals.json).
        #[arg(long, short = 'o')]
        proposals: Option<PathBuf>,
        /// Apply the accepted proposals of this file instead of clarifying.
        #[arg(long, value_name = "PROPOSALS")]
        apply: Option<PathBuf>,
        /// With --apply: the new spec file (default: SPEC.clarified.toml).
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        llm: crate::pipecmd::LlmArgs,
        #[command(flatten)]
        solver: SolverArgs,
        #[command(flatten)]
        output: TextOutputArgs,
    },
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
}

#[derive(Debug, Subcommand)]
pub enum CCommand {
    /// Print the file's segments (strongly connected components of the dependency
    /// graph, dependencies first) and their points of interest.
    Segments {
        /// The C file.
        file: PathBuf,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Verify the file's existing ACSL annotations with Frama-C/WP, segment by segment.
    ///
    /// Exit status: 0 all proved, 1 goals not proved or vacuous (failed smoke tests),
    /// 2 no goals at all, bad input or a broken setup.
    Verify {
        /// The C file.
        file: PathBuf,
        #[command(flatten)]
        wp: WpArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Measure how strong the specifications are: the share of non-equivalent mutants
    /// of the code they reject (variant discrimination rate).
    Strength {
        /// The C file.
        file: PathBuf,
        /// At most this many mutants, spread over the file.
        #[arg(long)]
        max_mutants: Option<usize>,
        #[command(flatten)]
        wp: WpArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Synthesize ACSL specifications with a language model, Frama-C/WP as the judge:
    /// per point of interest generation and repair, unprovable clauses dropped, then
    /// strengthening against surviving mutants. Writes a new annotated file and a
    /// JSON report; the input is never modified.
    ///
    /// Exit status: 0 the output verifies, 1 goals remain open, 2 bad input or setup.
    Synth(crate::ccmd::SynthArgs),
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
    Ping {
        /// The configuration file (its [llm] table; VERA_LLM_* variables override it).
        #[arg(long, alias = "llm-config", default_value = "vera.toml")]
        config: PathBuf,
    },
}

#[derive(Debug, Subcommand)]
pub enum BlCommand {
    /// Parse and check a BL program; report every error with file:line:col.
    Check {
        /// The program.
        file: PathBuf,
    },
    /// Print a BL program in canonical layout (the file is not changed).
    Fmt {
        /// The program.
        file: PathBuf,
    },
    /// Print the SMT-LIB encoding of a BL program (one definition per let).
    Encode {
        /// The program.
        file: PathBuf,
    },
    /// Run a BL program on inputs with exact arithmetic.
    Eval {
        /// The program.
        file: PathBuf,
        /// Input values, NAME=VALUE (12, -3.5 or 1/3).
        inputs: Vec<String>,
        /// Print only this binding.
        #[arg(long)]
        output: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum SmtCommand {
    /// Parse, type-check and solve SMT-LIB files; print sat with a model, unsat with a core.
    ///
    /// Exit status: 0 when every check is sat, 1 when the last check of some file is
    /// unsat and none is unknown, 2 on unknown, solver failure or bad input.
    Check {
        /// SMT-LIB 2.6 files (several are solved in parallel, see --jobs).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        solver: SolverArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Pretty-print an SMT-LIB file to standard output (the file itself is not changed).
    Fmt {
        /// The file to format.
        file: PathBuf,
        /// Preferred line width.
        #[arg(long, default_value_t = 100)]
        width: usize,
    },
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

    /// The number of parallel jobs.
    pub fn jobs(&self) -> usize {
        self.jobs
            .filter(|j| *j > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
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

/// How results are printed.
#[derive(Debug, Clone, Args)]
pub struct OutputArgs {
    /// Output format: text for a terminal, the versioned JSON payload, SARIF 2.1.0
    /// (findings), JUnit XML (pass/fail cases) or a self-contained HTML page. Each
    /// command says which it offers; asking for another is an error.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Write the output to FILE (atomically; an existing FILE needs --force) instead of
    /// standard output.
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
}

/// The formats of commands whose own output file is `-o`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TextFormat {
    Human,
    Json,
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
        }
    }
}

impl Command {
    /// The `--output FILE` of the command, if given.
    fn output_file(&self) -> Option<&std::path::Path> {
        let output = match self {
            Command::Audit { output, .. }
            | Command::Ask { output, .. }
            | Command::Consistency { output, .. }
            | Command::Equiv { output, .. }
            | Command::Ambiguity { output, .. }
            | Command::Qa { output, .. }
            | Command::Roundtrip { output, .. }
            | Command::Faults { output, .. }
            | Command::Mutate { output, .. }
            | Command::C(
                CCommand::Segments { output, .. }
                | CCommand::Verify { output, .. }
                | CCommand::Strength { output, .. },
            )
            | Command::Smt(SmtCommand::Check { output, .. }) => output,
            _ => return None,
        };
        output.output.as_deref()
    }

    /// The `--csv-columns` of a command that reads requirement CSVs.
    fn csv_columns(&self) -> Option<&reqs::CsvColumns> {
        match self {
            Command::Audit { csv_columns, .. }
            | Command::Ask { csv_columns, .. }
            | Command::Mutate { csv_columns, .. }
            | Command::Equiv { csv_columns, .. }
            | Command::Formalize { csv_columns, .. }
            | Command::Ambiguity { csv_columns, .. }
            | Command::Clarify { csv_columns, .. } => csv_columns.as_ref(),
            _ => None,
        }
    }
}

/// Renders a command's report (the one place where a report becomes an exit code).
fn finish(
    command: &str,
    outcome: crate::output::Outcome,
    output: &OutputArgs,
) -> anyhow::Result<ExitCode> {
    let report = outcome?;
    let status = crate::output::emit(command, report.as_ref(), output)?;
    Ok(ExitCode::from(status.exit_code()))
}

/// [`finish`] for the commands that write their own file with `-o`: the report goes to
/// standard output.
fn finish_text(
    command: &str,
    outcome: crate::output::Outcome,
    format: TextFormat,
) -> anyhow::Result<ExitCode> {
    let output = OutputArgs {
        format: format.into(),
        output: None,
    };
    finish(command, outcome, &output)
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let force = cli.force;
    crate::files::set_csv_columns(cli.command.csv_columns().cloned());
    // An output file that cannot be written is refused before any work is done.
    if let Some(path) = cli.command.output_file() {
        safefile::check_output(path, force)?;
    }
    match cli.command {
        Command::Audit {
            spec,
            schema,
            all_conflicts,
            witnesses,
            cache_dir,
            no_cache,
            solver,
            output,
            ..
        } => finish(
            "audit",
            crate::audit::audit(
                &spec,
                schema.as_deref(),
                &solver,
                all_conflicts,
                witnesses,
                (!no_cache).then_some(cache_dir.as_path()),
            ),
            &output,
        ),
        Command::Ask {
            spec,
            schema,
            scenario,
            claim,
            questions,
            derive,
            solver,
            output,
            ..
        } => finish(
            "ask",
            crate::audit::ask(
                &crate::audit::AskArgs {
                    spec,
                    schema,
                    scenario,
                    claim,
                    questions,
                    derive,
                },
                &solver,
            ),
            &output,
        ),
        Command::Consistency {
            nl,
            nl_output,
            implementation,
            impl_output,
            bounds,
            assume,
            enumerate,
            max_regions,
            no_same_name_mapping,
            batch,
            nl_text: Some(rule),
            variables,
            translations,
            theta,
            retries,
            llm,
            solver,
            output,
        } => {
            // The parser refuses these with --nl-text; only their defaults reach here.
            let _ = (enumerate, max_regions, no_same_name_mapping, batch, nl);
            finish(
                "consistency",
                crate::pipecmd::consistency_nl_text(
                    &crate::pipecmd::NlTextArgs {
                        rule,
                        variables,
                        translations,
                        theta,
                        retries,
                        nl_output,
                        implementation,
                        impl_output,
                        bounds,
                        assume,
                    },
                    &llm,
                    &solver,
                ),
                &output,
            )
        }
        Command::Consistency {
            nl,
            nl_output,
            implementation,
            impl_output,
            bounds,
            assume,
            enumerate,
            max_regions,
            no_same_name_mapping,
            batch,
            solver,
            output,
            ..
        } => crate::blcmd::consistency(
            &crate::blcmd::ConsistencyArgs {
                nl,
                nl_output,
                implementation,
                impl_output,
                bounds,
                assume,
                enumerate,
                max_regions,
                no_same_name_mapping,
                batch,
            },
            &solver,
        )
        .and_then(|r| finish("consistency", Ok(r), &output)),
        Command::Equiv {
            spec,
            terms,
            schema,
            candidates,
            solver,
            output,
            ..
        } => finish(
            "equiv",
            crate::pipecmd::equiv(
                &spec,
                schema.as_deref(),
                &terms,
                candidates.as_deref(),
                &solver,
            ),
            &output,
        ),
        Command::DraftVariables {
            rule,
            example_rule,
            example_spec,
            out,
            retries,
            llm,
            output,
        } => finish_text(
            "draft-variables",
            crate::pipecmd::draft_variables(
                &crate::pipecmd::DraftArgs {
                    rule,
                    example_rule,
                    example_spec,
                    out,
                    force,
                    retries,
                },
                &llm,
            ),
            output.format,
        ),
        Command::Formalize {
            input,
            schema,
            out,
            batch,
            retries,
            only,
            reformalize,
            examples,
            max_tokens,
            no_decompose,
            llm,
            solver,
            output,
            ..
        } => finish_text(
            "formalize",
            crate::pipecmd::formalize(
                &crate::pipecmd::FormalizeArgs {
                    input,
                    schema,
                    output: out,
                    force,
                    batch,
                    retries,
                    only,
                    reformalize,
                    examples,
                    max_tokens,
                    no_decompose,
                },
                &llm,
                &solver,
            ),
            output.format,
        ),
        Command::Ambiguity {
            spec,
            schema,
            samples,
            max_tokens,
            only,
            llm,
            solver,
            output,
            ..
        } => finish(
            "ambiguity",
            crate::pipecmd::ambiguity(
                &spec,
                schema.as_deref(),
                (samples, max_tokens),
                &only,
                &llm,
                &solver,
            ),
            &output,
        ),
        Command::Clarify {
            spec,
            schema,
            rounds,
            samples,
            max_tokens,
            only,
            proposals,
            apply,
            out,
            llm,
            solver,
            output,
            ..
        } => finish_text(
            "clarify",
            crate::pipecmd::clarify(
                &crate::pipecmd::ClarifyArgs {
                    spec,
                    schema,
                    rounds,
                    samples,
                    max_tokens,
                    only,
                    proposals,
                    apply,
                    output: out,
                    force,
                },
                &llm,
                &solver,
            ),
            output.format,
        ),
        Command::Qa {
            spec,
            questions,
            qa,
            llm,
            solver,
            output,
        } => finish(
            "qa",
            crate::qacmd::qa(&spec, &questions, &qa, &llm, &solver),
            &output,
        ),
        Command::Roundtrip {
            spec,
            limit,
            no_repair,
            llm,
            solver,
            output,
        } => finish(
            "roundtrip",
            crate::qacmd::roundtrip(&spec, limit, no_repair, &llm, &solver),
            &output,
        ),
        Command::Faults {
            spec,
            mutants,
            limit,
            llm,
            solver,
            output,
        } => finish(
            "faults",
            crate::qacmd::faults(&spec, mutants.as_deref(), limit, &llm, &solver),
            &output,
        ),
        Command::Eval {
            spec,
            eval,
            llm,
            solver,
        } => finish_text(
            "eval",
            crate::qacmd::eval(&spec, &eval, &llm, &solver),
            TextFormat::Human,
        ),
        Command::Mutate {
            spec,
            schema,
            solver,
            output,
            ..
        } => finish(
            "mutate",
            crate::audit::mutate(&spec, schema.as_deref(), &solver),
            &output,
        ),
        Command::C(CCommand::Segments { file, output }) => {
            finish("c segments", crate::ccmd::segments(&file), &output)
        }
        Command::C(CCommand::Verify { file, wp, output }) => {
            finish("c verify", crate::ccmd::verify(&file, &wp), &output)
        }
        Command::C(CCommand::Strength {
            file,
            max_mutants,
            wp,
            output,
        }) => finish(
            "c strength",
            crate::ccmd::strength(&file, &wp, max_mutants),
            &output,
        ),
        Command::C(CCommand::Synth(args)) => {
            finish_text("c synth", crate::ccmd::synth(&args), args.output.format)
        }
        Command::Llm(LlmCommand::Ping { config }) => {
            finish_text("llm ping", crate::llmcmd::ping(&config), TextFormat::Human)
        }
        Command::Bl(BlCommand::Check { file }) => {
            finish_text("bl check", crate::blcmd::check(&file), TextFormat::Human)
        }
        Command::Bl(BlCommand::Fmt { file }) => {
            finish_text("bl fmt", crate::blcmd::fmt(&file), TextFormat::Human)
        }
        Command::Bl(BlCommand::Encode { file }) => {
            finish_text("bl encode", crate::blcmd::encode(&file), TextFormat::Human)
        }
        Command::Bl(BlCommand::Eval {
            file,
            inputs,
            output,
        }) => finish_text(
            "bl eval",
            crate::blcmd::eval(&file, &inputs, output.as_deref()),
            TextFormat::Human,
        ),
        Command::Smt(SmtCommand::Check {
            files,
            solver,
            output,
        }) => finish("smt check", crate::smt::check(&files, &solver), &output),
        Command::Smt(SmtCommand::Fmt { file, width }) => {
            finish_text("smt fmt", crate::smt::fmt(&file, width), TextFormat::Human)
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Clap's own consistency checks on every subcommand (unique names, valid defaults).
    #[test]
    fn command_line_definition_is_valid() {
        super::Cli::command().debug_assert();
    }
}
