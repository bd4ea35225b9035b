//! The `vera` command line: argument parsing, terminal and JSON output, exit codes.
//! All checking happens in the library crates; this binary only wires them up.

/// `eprintln!` that cannot panic: a reader that closed standard error (`vera ... 2>&1 |
/// head`) must not turn a warning into a crash. It shadows the standard macro in every
/// module of the binary (they are declared below it).
macro_rules! eprintln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod audit;
mod blcmd;
mod ccmd;
mod cli;
mod extractcmd;
mod files;
mod interrupt;
mod llmcmd;
mod output;
mod pipecmd;
mod progress;
mod qacmd;
mod runcmd;
mod schemacmd;
mod servecmd;
mod smt;
mod tablecmd;
mod testscmd;
mod timed_ask;

use clap::{CommandFactory, FromArgMatches};
use std::process::ExitCode;

fn main() -> ExitCode {
    let matches = cli::Cli::command().get_matches();
    files::register_inputs(&matches);
    files::set_csv_columns(&matches);
    let args = match cli::Cli::from_arg_matches(&matches) {
        Ok(a) => a,
        Err(e) => e.exit(),
    };
    files::set_force(args.force);
    // `vera serve` stops on SIGINT and SIGTERM itself: it stops its checks' processes
    // and removes its temporary folder first (the handler here would exit at once).
    if !matches!(args.command, cli::Command::Serve(_)) {
        interrupt::install();
    }
    // Every command on a large stack: rule chains and formulas thousands of levels
    // deep (a nested `if` or `ite` per table row) must not exhaust it.
    let name = cli::command_name(&matches);
    match logic::with_big_stack(|| cli::run(args, &name)) {
        Ok(code) => code,
        Err(e) => {
            if e.downcast_ref::<output::Reported>().is_none() {
                eprintln!("error: {e:#}");
            }
            ExitCode::from(output::EXIT_ERROR)
        }
    }
}
