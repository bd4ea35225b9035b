//! `vera serve`: a local review page over a folder of specs, rule cases and C files.
//!
//! The people who decide on findings (is this redundancy intended, which reading of an
//! ambiguous requirement is right, is this divergence an accepted exception) see them
//! here with their evidence, decide, and the decision is written into their files:
//! with a diff preview, an atomic write, and a refusal when the file changed since the
//! page showed it. Checks are re-run from the page as `vera` child processes.
//!
//! *Architecture Invariant*: nothing here decides a verdict. The verdicts on the pages
//! come from the reports of `vera` commands run as child processes (their JSON
//! payloads, `docs/json.md`), or from the library crates' own checks; this crate only
//! shows them and writes the person's decisions.
//!
//! *Architecture Invariant*: every file read or written is named relative to the served
//! folder and resolved by [`paths::Root`]; nothing outside it is served or written.
//!
//! Modules: [`server`] (the address, the connections, their timeouts and the stop),
//! [`app`] (the router, the token and CSRF checks), [`jobs`] (checks as child
//! processes), [`workspace`] (what is in the folder), [`paths`], [`page`] (the frame
//! and HTML helpers), [`spec_page`], [`case_page`] and [`report_page`] (the pages and
//! their writes), [`case_plot`] and [`plot`] (the rule-pair chart), [`exceptions_edit`],
//! [`ambig`] (ambiguity readings and clarification proposals) and [`cview`] (C sources
//! with their proof status).

// Page helpers return a finished error page (`Result<_, Response>`) for the handler to
// send as it is; boxing the response would only add noise at every call site.
#![allow(clippy::result_large_err)]

pub mod ambig;
pub mod app;
pub mod case_page;
pub mod case_plot;
pub mod cview;
pub mod exceptions_edit;
pub mod jobs;
pub mod page;
pub mod paths;
pub mod payload;
pub mod plot;
pub mod report_page;
pub mod server;
pub mod spec_page;
pub mod workspace;

use std::net::SocketAddr;
use std::path::PathBuf;
use tokio::signal::unix::{signal, SignalKind};

/// How to serve.
#[derive(Debug, Clone)]
pub struct Config {
    /// The folder to serve.
    pub root: PathBuf,
    /// Where to listen: an address of the server's own in 127.0.0.0/8 unless the
    /// person asked for another.
    pub listen: server::Listen,
    /// The port (0: any free port).
    pub port: u16,
    /// The `vera` binary that runs the checks (the running one).
    pub vera: PathBuf,
    /// Extra arguments for every check (e.g. `--solver cvc5`).
    pub check_args: Vec<String>,
    /// How many checks run at once; the others are queued.
    pub max_checks: usize,
}

/// Why the server could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    // The io errors are part of the message and not a `source`: a caller that prints
    // the chain would print them twice.
    /// The folder cannot be served.
    #[error("{}: {error}", path.display())]
    Root {
        /// The folder.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The address cannot be bound.
    #[error("cannot listen on {addr}: {error}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        error: std::io::Error,
    },
    /// The server failed.
    #[error("the server stopped: {0}")]
    Io(std::io::Error),
}

impl From<std::io::Error> for ServeError {
    fn from(e: std::io::Error) -> ServeError {
        ServeError::Io(e)
    }
}

/// What the server says once it listens.
#[derive(Debug, Clone)]
pub struct Started {
    /// The address to open (it holds the access token).
    pub url: String,
    /// vera's temporary files left in the folder by an interrupted save, removed at
    /// start (relative to the folder).
    pub removed_temps: Vec<String>,
}

/// Why the server stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// SIGINT (Ctrl-C).
    Interrupt,
    /// SIGTERM.
    Terminate,
}

/// How long stopping waits for the checks' processes to be gone.
const STOP_CHECKS_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Serves until SIGINT or SIGTERM, then stops gracefully: no new connection, every
/// check (queued or running) stopped with its whole process group, the server's
/// temporary folder removed; returns which signal stopped it. `ready` is called once
/// as soon as the server listens.
pub fn run(config: Config, ready: impl FnOnce(&Started)) -> Result<Stop, ServeError> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let out = rt.block_on(async move {
        // First, so that a signal during the start is not lost (nor ends the process
        // without its cleanup).
        let mut interrupt = signal(SignalKind::interrupt())?;
        let mut terminate = signal(SignalKind::terminate())?;
        let root = paths::Root::new(&config.root).map_err(|error| ServeError::Root {
            path: config.root.clone(),
            error,
        })?;
        let listener = server::bind(config.listen, config.port)
            .await
            .map_err(|(addr, error)| ServeError::Bind { addr, error })?;
        let removed_temps = workspace::remove_stale_temps(&root);
        let local = listener.local_addr()?;
        let app = app::App::new(root, local, &config)?;
        let url = format!("http://{}/?token={}", display_addr(local), app.token());
        let router = app::router(app.clone());
        ready(&Started { url, removed_temps });
        let (stop, closing) = server::serve(listener, router, async {
            tokio::select! {
                _ = interrupt.recv() => Stop::Interrupt,
                _ = terminate.recv() => Stop::Terminate,
            }
        })
        .await;
        app.jobs.shutdown(STOP_CHECKS_WAIT).await;
        closing.wait(server::STOP_GRACE).await;
        app.scratch.remove();
        Ok(stop)
    });
    // Requests still in progress (a chart being computed) are not waited for.
    rt.shutdown_timeout(std::time::Duration::from_millis(500));
    out
}

fn display_addr(a: SocketAddr) -> String {
    match a {
        SocketAddr::V4(_) => a.to_string(),
        SocketAddr::V6(v) => format!("[{}]:{}", v.ip(), v.port()),
    }
}
