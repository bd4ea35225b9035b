//! `vera serve`: starts the review page (the `serve` crate) and prints its address.

use crate::cli::{ServeArgs, SolverChoice};
use std::io::Write as _;
use std::process::ExitCode;

pub fn serve(a: &ServeArgs) -> anyhow::Result<ExitCode> {
    if let Some(ip) = a.listen.filter(|ip| !ip.is_loopback()) {
        eprintln!(
            "warning: listening on {ip}: anyone who can reach this address and has the printed \
             address with its token can read and change the files under {}",
            a.dir.display()
        );
    }
    let vera = std::env::current_exe()
        .map_err(|e| anyhow::anyhow!("cannot find the running vera binary: {e}"))?;
    let check_args = match a.solver {
        SolverChoice::Z3 => vec![],
        SolverChoice::Cvc5 => vec!["--solver".to_string(), "cvc5".to_string()],
    };
    let config = serve::Config {
        root: a.dir.clone(),
        listen: match a.listen {
            Some(ip) => serve::server::Listen::Ip(ip),
            None => serve::server::Listen::OwnLoopback,
        },
        port: a.port,
        vera,
        check_args,
        max_checks: solver::job_count(a.jobs.map_or(0, usize::from)),
    };
    let stop = serve::run(config, |started| {
        // A closed standard output must not stop the server.
        let mut out = std::io::stdout();
        let _ = writeln!(out, "vera serve: {}", started.url);
        let _ = out.flush();
        for t in &started.removed_temps {
            eprintln!("removed {t}: a temporary file left by an interrupted save");
        }
        eprintln!(
            "serving {}; open the address above; Ctrl-C stops",
            a.dir.display()
        );
    })?;
    // Stopped by a signal, after its cleanup: the shell's usual status for it.
    Ok(match stop {
        serve::Stop::Interrupt => ExitCode::from(130),
        serve::Stop::Terminate => ExitCode::from(143),
    })
}
