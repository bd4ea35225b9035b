//! Record and replay: every exchange as one JSON line.
//!
//! A line is `{"key": ..., "provider": ..., "model": ..., "request": {...},
//! "response": {...}}`, with no timestamps, so recording the same deterministic session
//! twice gives the same file. Replay answers only from the cassette; a request it does
//! not hold fails with its key and a hint naming the closest recorded prompt and the
//! first line where they differ.
//!
//! One difference is tolerated: `max_tokens`. A recorded answer to a request that
//! differs from the one asked for only in `max_tokens`, that ended naturally
//! (`finish: stop`, not `length`) and whose completion used no more tokens than the new
//! cap (known from the recorded usage; any count when the new request has no cap), is
//! the answer the new request gets: a cap only cuts generation short, and this
//! generation ended before the cap was reached. So lowering or adding a cap does not
//! invalidate recordings that fit under it, and a recording that would have been cut
//! still fails as missing.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::error::{LlmError, Result};
use crate::key::request_key;
use crate::types::{FinishReason, Request, Response};

/// One recorded exchange.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Exchange {
    /// The request key.
    pub key: String,
    /// The provider id.
    pub provider: String,
    /// The model.
    pub model: String,
    /// The full request.
    pub request: Request,
    /// The raw response.
    pub response: Response,
}

/// Appends exchanges to a cassette file.
///
/// The cassette is written beside its path and renamed into place when the recorder is
/// dropped (see [`safefile::Stream`]): an interrupted run leaves the previous cassette as
/// it was. An input of the run is never recorded over.
pub struct Recorder {
    file: Mutex<safefile::Stream>,
    path: PathBuf,
}

impl Recorder {
    /// Opens a new cassette at `path` (creating its directories). An existing file is
    /// refused unless `append`, which keeps its exchanges and adds the new ones after them.
    pub fn open(path: impl AsRef<Path>, append: bool) -> Result<Recorder> {
        let path = path.as_ref().to_path_buf();
        let stream = safefile::Stream::create(
            &path,
            append,
            safefile::StreamOptions {
                append: true,
                cut_marker: None,
            },
        )
        .map_err(|e| LlmError::Cassette(e.to_string()))?;
        Ok(Recorder {
            file: Mutex::new(stream),
            path,
        })
    }

    /// The cassette file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one exchange (one `write` of a whole line, flushed).
    pub fn record(&self, exchange: &Exchange) -> Result<()> {
        let mut line = serde_json::to_string(exchange).expect("an exchange serializes");
        line.push('\n');
        let f = self.file.lock().unwrap_or_else(|p| p.into_inner());
        f.write_all(line.as_bytes())
            .map_err(|e| LlmError::Cassette(format!("cannot write {}: {e}", self.path.display())))
    }
}

/// Answers from a cassette.
pub struct Replayer {
    path: PathBuf,
    by_key: HashMap<String, usize>,
    /// Exchange indices by the key of their request without `max_tokens`.
    by_uncapped_key: HashMap<String, Vec<usize>>,
    exchanges: Vec<Exchange>,
}

/// The key of `request` with its `max_tokens` removed.
fn uncapped_key(provider: &str, model: &str, request: &Request) -> String {
    let mut r = request.clone();
    r.max_tokens = None;
    request_key(provider, model, &r)
}

impl Replayer {
    /// Loads a cassette; a bad line is an error naming its line number.
    pub fn open(path: impl AsRef<Path>) -> Result<Replayer> {
        let path = path.as_ref().to_path_buf();
        let file = File::open(&path)
            .map_err(|e| LlmError::Cassette(format!("cannot open {}: {e}", path.display())))?;
        let mut exchanges = Vec::new();
        let mut by_key = HashMap::new();
        let mut by_uncapped_key: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, line) in BufReader::new(file).lines().enumerate() {
            let line = line
                .map_err(|e| LlmError::Cassette(format!("cannot read {}: {e}", path.display())))?;
            if line.trim().is_empty() {
                continue;
            }
            let ex: Exchange = serde_json::from_str(&line).map_err(|e| {
                LlmError::Cassette(format!(
                    "{}:{}: not an exchange: {e}",
                    path.display(),
                    i + 1
                ))
            })?;
            // The first recording of a key wins (later ones are re-recordings).
            by_key.entry(ex.key.clone()).or_insert(exchanges.len());
            by_uncapped_key
                .entry(uncapped_key(&ex.provider, &ex.model, &ex.request))
                .or_default()
                .push(exchanges.len());
            exchanges.push(ex);
        }
        Ok(Replayer {
            path,
            by_key,
            by_uncapped_key,
            exchanges,
        })
    }

    /// Number of distinct recorded requests.
    pub fn len(&self) -> usize {
        self.by_key.len()
    }

    /// Whether the cassette is empty.
    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }

    /// The recorded answer to `request` (whose key is `key`) sent to `model` of
    /// `provider`: the exchange with that key, else one that differs only in
    /// `max_tokens` and fits under the new cap (see the module documentation), else
    /// [`LlmError::ReplayMissing`] with a hint.
    pub fn get(
        &self,
        provider: &str,
        model: &str,
        key: &str,
        request: &Request,
    ) -> Result<Response> {
        if let Some(&i) = self.by_key.get(key) {
            return Ok(self.exchanges[i].response.clone());
        }
        let fits = |r: &Response| {
            r.finish == FinishReason::Stop
                && match request.max_tokens {
                    None => true,
                    Some(cap) => {
                        r.usage.output_tokens > 0 && r.usage.output_tokens <= u64::from(cap)
                    }
                }
        };
        let uncapped = uncapped_key(provider, model, request);
        if let Some(i) = self
            .by_uncapped_key
            .get(&uncapped)
            .into_iter()
            .flatten()
            .find(|&&i| fits(&self.exchanges[i].response))
        {
            return Ok(self.exchanges[*i].response.clone());
        }
        Err(LlmError::ReplayMissing {
            key: key.to_string(),
            hint: self.hint(request),
        })
    }

    fn hint(&self, request: &Request) -> String {
        if self.exchanges.is_empty() {
            return format!("the cassette {} holds no exchanges", self.path.display());
        }
        let wanted = request.prompt_text();
        let wanted_lines: Vec<&str> = wanted.lines().collect();
        let best = self
            .exchanges
            .iter()
            .enumerate()
            .max_by_key(|(i, ex)| {
                (
                    similarity(&wanted_lines, &ex.request.prompt_text()),
                    std::cmp::Reverse(*i),
                )
            })
            .map(|(_, ex)| ex)
            .expect("not empty");
        let recorded = best.request.prompt_text();
        let mut out = format!(
            "closest of the {} recorded requests in {}: {}",
            self.exchanges.len(),
            self.path.display(),
            best.key
        );
        if recorded == wanted {
            let mut diffs = Vec::new();
            let (a, b) = (&best.request, request);
            if a.sample != b.sample {
                diffs.push(format!("sample {} (recorded {})", b.sample, a.sample));
            }
            if a.temperature != b.temperature {
                diffs.push(format!(
                    "temperature {:?} (recorded {:?})",
                    b.temperature, a.temperature
                ));
            }
            if a.max_tokens != b.max_tokens {
                diffs.push(format!(
                    "max_tokens {:?} (recorded {:?})",
                    b.max_tokens, a.max_tokens
                ));
            }
            if a.seed != b.seed {
                diffs.push(format!("seed {:?} (recorded {:?})", b.seed, a.seed));
            }
            if a.stop != b.stop {
                diffs.push("stop sequences".into());
            }
            if a.schema != b.schema {
                diffs.push("JSON schema".into());
            }
            if a.grammar != b.grammar {
                diffs.push("grammar".into());
            }
            if diffs.is_empty() {
                diffs.push(format!(
                    "provider or model (recorded {} / {})",
                    best.provider, best.model
                ));
            }
            out.push_str(&format!(
                "\nsame prompt; the request differs in: {}",
                diffs.join(", ")
            ));
        } else {
            let rec_lines: Vec<&str> = recorded.lines().collect();
            let n = wanted_lines
                .iter()
                .zip(&rec_lines)
                .take_while(|(a, b)| a == b)
                .count();
            let show = |l: Option<&&str>| match l {
                Some(l) => format!("{:?}", truncate(l, 160)),
                None => "(end of prompt)".into(),
            };
            out.push_str(&format!(
                "\nfirst difference at prompt line {}:\n  recorded:  {}\n  requested: {}",
                n + 1,
                show(rec_lines.get(n)),
                show(wanted_lines.get(n))
            ));
        }
        out
    }
}

fn truncate(s: &str, n: usize) -> String {
    let mut t: String = s.chars().take(n).collect();
    if t.len() < s.len() {
        t.push('…');
    }
    t
}

/// Lines in common, then the common prefix in lines, then how much of the first
/// differing line agrees (common leading plus trailing characters).
fn similarity(wanted: &[&str], recorded: &str) -> (usize, usize, usize) {
    let rec: Vec<&str> = recorded.lines().collect();
    let set: HashSet<&str> = rec.iter().copied().collect();
    let common = wanted.iter().filter(|l| set.contains(*l)).count();
    let prefix = wanted.iter().zip(&rec).take_while(|(a, b)| a == b).count();
    let chars = match (wanted.get(prefix), rec.get(prefix)) {
        (Some(a), Some(b)) => {
            let head = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
            let tail = a
                .chars()
                .rev()
                .zip(b.chars().rev())
                .take_while(|(x, y)| x == y)
                .count();
            head + tail
        }
        _ => 0,
    };
    (common, prefix, chars)
}
