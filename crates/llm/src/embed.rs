//! Text embeddings through an OpenAI-compatible `POST {base_url}/embeddings` endpoint
//! (hosted services, vLLM, Ollama, a llama.cpp server started with `--embeddings`), and
//! the cosine similarity of two embeddings. Used for the round trip's optional text
//! similarity; answers are not cached (they are cheap and deterministic per model).

use serde_json::{json, Value};

use crate::error::{LlmError, Result};
use crate::http::{bearer, endpoint, Http, HttpSettings};
use crate::secret::ApiKey;

/// Something that turns texts into vectors, one per text, in order.
pub trait Embeddings: Send + Sync {
    /// The model name (for reports).
    fn model(&self) -> &str;
    /// One vector per text, in the order of `texts`.
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f64>>>;
}

impl std::fmt::Debug for dyn Embeddings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Embeddings({})", self.model())
    }
}

/// An OpenAI-compatible embeddings client.
pub struct OpenAiEmbeddings {
    model: String,
    url: String,
    key: Option<ApiKey>,
    http: Http,
}

impl OpenAiEmbeddings {
    /// A client for `base_url` (e.g. `http://127.0.0.1:8081/v1`).
    pub fn new(
        base_url: &str,
        model: impl Into<String>,
        key: Option<ApiKey>,
        settings: HttpSettings,
    ) -> OpenAiEmbeddings {
        OpenAiEmbeddings {
            model: model.into(),
            url: endpoint(base_url, "embeddings"),
            key,
            http: Http::new(settings),
        }
    }

    /// The request body for `texts`.
    pub fn body(&self, texts: &[String]) -> Value {
        json!({"model": self.model, "input": texts, "encoding_format": "float"})
    }
}

impl Embeddings for OpenAiEmbeddings {
    fn model(&self) -> &str {
        &self.model
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f64>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let headers = bearer(self.key.as_ref());
        let v = self
            .http
            .post_json(&self.url, &headers, &self.body(texts), self.key.as_ref())?;
        parse_embeddings(&v, texts.len())
    }
}

/// Reads an embeddings response: `data[*].embedding`, placed by `data[*].index` (in
/// order when absent). Exactly `n` vectors of one non-zero length are required.
pub fn parse_embeddings(v: &Value, n: usize) -> Result<Vec<Vec<f64>>> {
    let bad = |detail: String| LlmError::bad_response(detail, &v.to_string());
    let data = v
        .get("data")
        .and_then(|d| d.as_array())
        .ok_or_else(|| bad("no `data` array".into()))?;
    if data.len() != n {
        return Err(bad(format!("{} embeddings for {n} inputs", data.len())));
    }
    let mut out: Vec<Option<Vec<f64>>> = vec![None; n];
    for (pos, item) in data.iter().enumerate() {
        let index = match item.get("index") {
            None => pos,
            Some(i) => i
                .as_u64()
                .map(|i| i as usize)
                .filter(|&i| i < n)
                .ok_or_else(|| bad(format!("bad `index` {i}")))?,
        };
        let vector = item
            .get("embedding")
            .and_then(|e| e.as_array())
            .ok_or_else(|| bad(format!("item {pos} has no `embedding` array")))?
            .iter()
            .map(|x| x.as_f64())
            .collect::<Option<Vec<f64>>>()
            .ok_or_else(|| bad(format!("item {pos} has a non-number in its embedding")))?;
        if out[index].replace(vector).is_some() {
            return Err(bad(format!("index {index} twice")));
        }
    }
    let out: Vec<Vec<f64>> = out.into_iter().map(|v| v.unwrap_or_default()).collect();
    let dim = out[0].len();
    if dim == 0 || out.iter().any(|v| v.len() != dim) {
        return Err(bad("embeddings of different or zero length".into()));
    }
    Ok(out)
}

/// Cosine similarity; 0 when either vector is zero or the lengths differ.
pub fn cosine(a: &[f64], b: &[f64]) -> f64 {
    if a.len() != b.len() {
        return 0.0;
    }
    let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f64 = a.iter().map(|x| x * x).sum::<f64>().sqrt();
    let nb: f64 = b.iter().map(|x| x * x).sum::<f64>().sqrt();
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na * nb)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_by_index_and_checks_shape() {
        let v = json!({"data": [
            {"index": 1, "embedding": [0.0, 1.0]},
            {"index": 0, "embedding": [1.0, 0.0]}]});
        let e = parse_embeddings(&v, 2).unwrap();
        assert_eq!(e, vec![vec![1.0, 0.0], vec![0.0, 1.0]]);
        assert!(parse_embeddings(&v, 3).is_err());
        let ragged = json!({"data": [{"embedding": [1.0]}, {"embedding": [1.0, 2.0]}]});
        assert!(parse_embeddings(&ragged, 2).is_err());
        let twice =
            json!({"data": [{"index": 0, "embedding": [1.0]}, {"index": 0, "embedding": [1.0]}]});
        assert!(parse_embeddings(&twice, 2).is_err());
        assert!(parse_embeddings(&json!({"object": "list"}), 1).is_err());
    }

    #[test]
    fn cosine_values() {
        assert!((cosine(&[1.0, 0.0], &[1.0, 0.0]) - 1.0).abs() < 1e-12);
        assert!(cosine(&[1.0, 0.0], &[0.0, 1.0]).abs() < 1e-12);
        assert!((cosine(&[1.0, 1.0], &[1.0, 0.0]) - 0.5f64.sqrt()).abs() < 1e-12);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
        assert_eq!(cosine(&[1.0], &[1.0, 0.0]), 0.0);
    }
}
