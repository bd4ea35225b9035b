//! Command-line definitions.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// vera audits specifications with an SMT solver.
#[derive(Debug, Parser)]
#[command(name = "vera", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Work with SMT-LIB files directly.
    #[command(subcommand)]
    Smt(SmtCommand),
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
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Json,
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Smt(SmtCommand::Check {
            files,
            solver,
            output,
        }) => crate::smt::check(&files, &solver, output.format),
        Command::Smt(SmtCommand::Fmt { file, width }) => crate::smt::fmt(&file, width),
    }
}
