//! Content hashes of requests: the cache key and the cassette key.

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::types::Request;

/// Version of the key format; bump it when the hashed content changes meaning.
const KEY_VERSION: u32 = 1;

/// The key of `request` sent to `model` of provider `provider`: the SHA-256 (hex) of a
/// canonical JSON rendering of all four (object keys sorted, so the key does not depend
/// on how `serde_json` was built).
pub fn request_key(provider: &str, model: &str, request: &Request) -> String {
    let v = serde_json::json!({
        "v": KEY_VERSION,
        "provider": provider,
        "model": model,
        "request": serde_json::to_value(request).expect("a request serializes"),
    });
    let mut text = String::new();
    canonical(&v, &mut text);
    let digest = Sha256::digest(text.as_bytes());
    let mut hex = String::with_capacity(64);
    for b in digest {
        hex.push_str(&format!("{b:02x}"));
    }
    hex
}

/// Writes `v` as JSON with object keys in sorted order.
pub(crate) fn canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String((*k).clone()).to_string());
                out.push(':');
                canonical(&map[*k], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_separate_everything() {
        let r = Request::new().user("hi").temperature(1.0);
        let k = request_key("openai", "m", &r);
        assert_eq!(k.len(), 64);
        assert_eq!(k, request_key("openai", "m", &r.clone()));
        assert_ne!(k, request_key("anthropic", "m", &r));
        assert_ne!(k, request_key("openai", "m2", &r));
        assert_ne!(k, request_key("openai", "m", &r.clone().sample(1)));
        assert_ne!(k, request_key("openai", "m", &r.clone().temperature(0.5)));
        assert_ne!(
            k,
            request_key("openai", "m", &Request::new().user("hi ").temperature(1.0))
        );
    }

    #[test]
    fn canonical_sorts_keys() {
        let a: Value = serde_json::from_str(r#"{"b":1,"a":{"d":[1,2],"c":"x"}}"#).unwrap();
        let mut s = String::new();
        canonical(&a, &mut s);
        assert_eq!(s, r#"{"a":{"c":"x","d":[1,2]},"b":1}"#);
    }
}
