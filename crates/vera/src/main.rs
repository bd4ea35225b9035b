//! The `vera` command line: argument parsing, terminal and JSON output, exit codes.
//! All checking happens in the library crates; this binary only wires them up.

mod audit;
mod blcmd;
mod ccmd;
mod cli;
mod llmcmd;
mod output;
mod pipecmd;
mod qacmd;
mod smt;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(output::EXIT_ERROR)
        }
    }
}
