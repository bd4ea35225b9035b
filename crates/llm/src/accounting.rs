//! What a run cost: per run and per named stage (the columns of SpecSyn's Table 5).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Prices in dollars per million tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Prices {
    /// Per million prompt tokens.
    pub input_per_mtok: f64,
    /// Per million generated tokens.
    pub output_per_mtok: f64,
}

impl Prices {
    /// The cost of `input` and `output` tokens.
    pub fn cost(&self, input: u64, output: u64) -> f64 {
        (input as f64 * self.input_per_mtok + output as f64 * self.output_per_mtok) / 1e6
    }
}

/// Counters for one stage or the whole run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// Requests answered or failed.
    pub requests: u64,
    /// Requests that went to the provider (each counted once, however often retried).
    pub calls: u64,
    /// Requests answered from the cache.
    pub cache_hits: u64,
    /// Requests answered from a replay cassette.
    pub replayed: u64,
    /// Extra attempts after transient failures.
    pub retries: u64,
    /// Requests that ended in an error (of any kind).
    pub errors: u64,
    /// Of those, answer problems (empty, truncated, oversized, malformed).
    pub answer_errors: u64,
    /// Prompt tokens paid for (provider calls only).
    pub input_tokens: u64,
    /// Generated tokens paid for (provider calls only).
    pub output_tokens: u64,
    /// Wall-clock seconds spent in batches and single requests of this stage.
    pub wall_secs: f64,
    /// Seconds spent waiting for the provider, summed over calls (exceeds `wall_secs`
    /// when calls run in parallel).
    pub call_secs: f64,
    /// Estimated cost in dollars from the configured prices.
    pub cost_usd: f64,
}

impl Stats {
    /// Adds `o` to these counters.
    pub fn merge(&mut self, o: &Stats) {
        self.requests += o.requests;
        self.calls += o.calls;
        self.cache_hits += o.cache_hits;
        self.replayed += o.replayed;
        self.retries += o.retries;
        self.errors += o.errors;
        self.answer_errors += o.answer_errors;
        self.input_tokens += o.input_tokens;
        self.output_tokens += o.output_tokens;
        self.wall_secs += o.wall_secs;
        self.call_secs += o.call_secs;
        self.cost_usd += o.cost_usd;
    }
}

/// Counters for the run and for each stage.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Accounting {
    /// The whole run.
    pub total: Stats,
    /// Per stage, by name.
    pub stages: BTreeMap<String, Stats>,
}

impl Accounting {
    /// Adds `delta` to `stage` and to the total.
    pub fn add(&mut self, stage: &str, delta: &Stats) {
        self.total.merge(delta);
        self.stages
            .entry(stage.to_string())
            .or_default()
            .merge(delta);
    }
}
