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
//! Modules: [`app`] (the router, the token and CSRF checks), [`jobs`] (checks as child
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
pub mod plot;
pub mod report_page;
pub mod spec_page;
pub mod workspace;

use std::net::SocketAddr;
use std::path::PathBuf;

/// How to serve.
#[derive(Debug, Clone)]
pub struct Config {
    /// The folder to serve.
    pub root: PathBuf,
    /// Where to listen (127.0.0.1 unless the person asked for another address).
    pub addr: SocketAddr,
    /// The `vera` binary that runs the checks (the running one).
    pub vera: PathBuf,
    /// Extra arguments for every check (e.g. `--solver cvc5`).
    pub check_args: Vec<String>,
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

/// Serves until the process is stopped. `ready` is called once as soon as the server
/// listens.
pub fn run(config: Config, ready: impl FnOnce(&Started)) -> Result<(), ServeError> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let root = paths::Root::new(&config.root).map_err(|error| ServeError::Root {
            path: config.root.clone(),
            error,
        })?;
        let listener = tokio::net::TcpListener::bind(config.addr)
            .await
            .map_err(|error| ServeError::Bind {
                addr: config.addr,
                error,
            })?;
        let removed_temps = workspace::remove_stale_temps(&root);
        let local = listener.local_addr()?;
        let app = app::App::new(root, local, &config)?;
        let url = format!("http://{}/?token={}", display_addr(local), app.token());
        let router = app::router(app);
        ready(&Started { url, removed_temps });
        axum::serve(listener, router).await?;
        Ok(())
    })
}

fn display_addr(a: SocketAddr) -> String {
    match a {
        SocketAddr::V4(_) => a.to_string(),
        SocketAddr::V6(v) => format!("[{}]:{}", v.ip(), v.port()),
    }
}
