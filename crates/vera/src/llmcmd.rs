//! `vera llm ping`, and the options every LLM-backed command shares: configuration,
//! cassettes, cache mode, concurrency, a progress bar and Ctrl-C handling.

use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use std::sync::Arc;

/// Options that choose and drive the language model.
#[derive(Debug, Clone, Args)]
pub struct LlmArgs {
    /// The configuration file (its [llm] table; VERA_LLM_* variables override it).
    #[arg(long = "llm-config", default_value = "vera.toml")]
    pub llm_config: PathBuf,
    /// Record every exchange in this cassette (JSON lines; a new file unless --force,
    /// which adds to it).
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// Answer only from this cassette; no model is called.
    #[arg(long)]
    pub replay: Option<PathBuf>,
    /// With --replay: ask the model for the requests the cassette does not hold instead
    /// of failing. With --record, this re-records a cassette after a change that alters
    /// some requests, asking the model only for those.
    #[arg(long, requires = "replay")]
    pub replay_then_live: bool,
    /// Do not read or write the LLM cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Ask the model again and overwrite cached answers.
    #[arg(long, conflicts_with = "no_cache")]
    pub refresh: bool,
    /// Constrain formula answers with a GBNF grammar of the schema (the configuration's
    /// `grammar = true`; for llama.cpp's server only, refused with other providers).
    #[arg(long)]
    pub grammar: bool,
    /// Requests in flight at once (overrides the configuration).
    #[arg(long = "llm-concurrency")]
    pub llm_concurrency: Option<usize>,
    /// No progress bar (it is also off when standard error is not a terminal).
    #[arg(long)]
    pub quiet: bool,
}

impl LlmArgs {
    /// The client these options describe, with a progress bar on a terminal and a
    /// Ctrl-C handler that stops the run cleanly (answers already received are kept in
    /// the cache and the cassette).
    pub fn client(&self) -> Result<llm::Client> {
        let cfg = llm::LlmConfig::load_with(&self.llm_config, &self.overrides())?;
        let mut b = cfg.builder()?;
        use std::io::IsTerminal;
        if !self.quiet && std::io::stderr().is_terminal() {
            b = b.observer(Arc::new(crate::progress::Bar::default()));
        }
        let client = b.build();
        let token = client.cancel_token();
        crate::interrupt::on_first_interrupt(
            "finishing the requests in flight, keeping what is done (press Ctrl-C again to stop at once)",
            move || token.cancel(),
        );
        Ok(client)
    }
}

impl LlmArgs {
    /// What these options change in the configuration.
    fn overrides(&self) -> llm::Overrides {
        llm::Overrides {
            record: self.record.clone(),
            record_append: crate::files::force(),
            replay: self.replay.clone(),
            replay_then_live: self.replay_then_live,
            no_cache: self.no_cache,
            refresh: self.refresh,
            grammar: self.grammar,
            concurrency: self.llm_concurrency,
        }
    }

    /// The embeddings client of the configuration (`embedding_model`), if one is set.
    pub fn embeddings(&self) -> Result<Option<Arc<dyn llm::Embeddings>>> {
        Ok(llm::LlmConfig::load(Some(&self.llm_config))?.embeddings()?)
    }
}

/// `vera llm ping [--config vera.toml]`
pub fn ping(a: &crate::cli::LlmPingArgs) -> crate::output::Outcome {
    match llm::ping(&a.config) {
        Ok(p) => {
            let text = printer::tables::ping_text(&p.config, &p.model, &p.answer, p.seconds);
            crate::output::text("llm ping", text)
        }
        Err(e) => {
            eprintln!("{}", printer::tables::ping_error(&e));
            Err(crate::output::Reported.into())
        }
    }
}
