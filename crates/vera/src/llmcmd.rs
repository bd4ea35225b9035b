//! `vera llm ping`: checks an LLM configuration end to end and says what is wrong.

use crate::output::{EXIT_ERROR, EXIT_OK};
use anyhow::Result;
use std::path::Path;
use std::process::ExitCode;

/// `vera llm ping [--config vera.toml]`
pub fn ping(config: &Path) -> Result<ExitCode> {
    let cfg = match llm::LlmConfig::load(Some(config)) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(EXIT_ERROR));
        }
    };
    let model = cfg.model().unwrap_or_else(|_| "(no model set)".into());
    println!(
        "provider {:?}, endpoint {}, model {model}",
        cfg.provider,
        cfg.base_url()
    );
    let client = match cfg.client() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(EXIT_ERROR));
        }
    };
    let start = std::time::Instant::now();
    match client.ping() {
        Ok(c) => {
            println!(
                "ok: answered {:?} in {:.2} s ({:?}, {} retries)",
                c.text().trim(),
                start.elapsed().as_secs_f64(),
                c.source,
                c.retries
            );
            Ok(ExitCode::from(EXIT_OK))
        }
        Err(e) => {
            eprintln!("error: {e}");
            if matches!(cfg.provider, llm::ProviderKind::Local) {
                eprintln!("hint: start the local model with `scripts/local-llm start`");
            }
            Ok(ExitCode::from(EXIT_ERROR))
        }
    }
}
