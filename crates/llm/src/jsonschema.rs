//! A small JSON Schema checker for structured answers: `type`, `enum`, `const`,
//! `properties`, `required`, `additionalProperties: false`, `items`, `minItems`,
//! `maxItems`, `minLength`, `maxLength`, `minimum`, `maximum`, `anyOf`, `oneOf`, and
//! `$ref` to the schema's own `$defs` / `definitions` (`#/$defs/name`).
//! Keywords it does not know are ignored (the provider enforces them, or nobody does).

use serde_json::Value;

/// Checks `value` against `schema`; the error names the first violation and its JSON
/// pointer.
pub fn validate(schema: &Value, value: &Value) -> Result<(), String> {
    check(schema, schema, value, "", 0)
}

/// How deep `$ref`s may nest while one value is checked (a schema that refers to
/// itself without consuming the value would otherwise never end).
const MAX_REF_DEPTH: usize = 64;

/// The schema a local `$ref` names (`#/$defs/x`, `#/definitions/x`, `#`).
fn resolve<'a>(root: &'a Value, r: &str) -> Option<&'a Value> {
    let pointer = r.strip_prefix('#')?;
    root.pointer(pointer)
}

fn type_ok(t: &str, v: &Value) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        "number" => v.is_number(),
        "integer" => {
            v.as_i64().is_some()
                || v.as_u64().is_some()
                || v.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => true,
    }
}

fn at(path: &str) -> String {
    if path.is_empty() {
        "the answer".into()
    } else {
        format!("`{path}`")
    }
}

fn check(root: &Value, schema: &Value, v: &Value, path: &str, refs: usize) -> Result<(), String> {
    let Some(s) = schema.as_object() else {
        return Ok(());
    };
    if let Some(Value::String(r)) = s.get("$ref") {
        if refs >= MAX_REF_DEPTH {
            return Err(format!(
                "{}: the schema's references nest too deep",
                at(path)
            ));
        }
        let target = resolve(root, r).ok_or_else(|| {
            format!(
                "{}: the schema refers to `{r}`, which it does not define",
                at(path)
            )
        })?;
        check(root, target, v, path, refs + 1)?;
    }
    match s.get("type") {
        Some(Value::String(t)) if !type_ok(t, v) => {
            return Err(format!("{} should be of type {t}", at(path)))
        }
        Some(Value::Array(ts)) if !ts.iter().any(|t| t.as_str().is_some_and(|t| type_ok(t, v))) => {
            return Err(format!("{} has none of the allowed types", at(path)))
        }
        _ => {}
    }
    if let Some(Value::Array(allowed)) = s.get("enum") {
        if !allowed.contains(v) {
            let names: Vec<String> = allowed.iter().map(|a| a.to_string()).collect();
            return Err(format!(
                "{} should be one of {}",
                at(path),
                names.join(", ")
            ));
        }
    }
    if let Some(c) = s.get("const") {
        if c != v {
            return Err(format!("{} should be {c}", at(path)));
        }
    }
    if let Some(Value::Array(alts)) = s.get("anyOf").or_else(|| s.get("oneOf")) {
        if !alts
            .iter()
            .any(|alt| check(root, alt, v, path, refs).is_ok())
        {
            return Err(format!("{} matches none of the alternatives", at(path)));
        }
    }
    if let Value::Object(obj) = v {
        if let Some(Value::Array(req)) = s.get("required") {
            for r in req.iter().filter_map(|r| r.as_str()) {
                if !obj.contains_key(r) {
                    return Err(format!("{} is missing the field `{r}`", at(path)));
                }
            }
        }
        let props = s.get("properties").and_then(|p| p.as_object());
        for (k, item) in obj {
            let sub = format!("{path}/{k}");
            match props.and_then(|p| p.get(k)) {
                Some(ps) => check(root, ps, item, &sub, 0)?,
                None => match s.get("additionalProperties") {
                    Some(Value::Bool(false)) => {
                        return Err(format!("{} has an unexpected field `{k}`", at(path)))
                    }
                    Some(extra @ Value::Object(_)) => check(root, extra, item, &sub, 0)?,
                    _ => {}
                },
            }
        }
    }
    if let Value::Array(items) = v {
        let n = items.len() as u64;
        if let Some(min) = s.get("minItems").and_then(|m| m.as_u64()) {
            if n < min {
                return Err(format!("{} should have at least {min} items", at(path)));
            }
        }
        if let Some(max) = s.get("maxItems").and_then(|m| m.as_u64()) {
            if n > max {
                return Err(format!("{} should have at most {max} items", at(path)));
            }
        }
        if let Some(item_schema) = s.get("items") {
            for (i, item) in items.iter().enumerate() {
                check(root, item_schema, item, &format!("{path}/{i}"), 0)?;
            }
        }
    }
    if let Value::String(text) = v {
        let n = text.chars().count() as u64;
        if let Some(min) = s.get("minLength").and_then(|m| m.as_u64()) {
            if n < min {
                return Err(format!("{} should be at least {min} characters", at(path)));
            }
        }
        if let Some(max) = s.get("maxLength").and_then(|m| m.as_u64()) {
            if n > max {
                return Err(format!("{} should be at most {max} characters", at(path)));
            }
        }
    }
    if let Some(x) = v.as_f64() {
        if let Some(min) = s.get("minimum").and_then(|m| m.as_f64()) {
            if x < min {
                return Err(format!("{} should be at least {min}", at(path)));
            }
        }
        if let Some(max) = s.get("maximum").and_then(|m| m.as_f64()) {
            if x > max {
                return Err(format!("{} should be at most {max}", at(path)));
            }
        }
    }
    Ok(())
}

/// Parses an answer as JSON, tolerating a Markdown code fence around it (small models
/// add one even when told not to).
pub fn parse_answer(text: &str) -> Result<Value, String> {
    let t = text.trim();
    let t = strip_fence(t).unwrap_or(t);
    serde_json::from_str(t).map_err(|e| format!("not valid JSON ({e})"))
}

fn strip_fence(t: &str) -> Option<&str> {
    let rest = t.strip_prefix("```")?;
    let rest = rest.split_once('\n')?.1;
    Some(rest.trim_end().strip_suffix("```")?.trim())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn checks_common_keywords() {
        let s = json!({
            "type": "object",
            "properties": {
                "formula": {"type": "string", "minLength": 1},
                "kind": {"enum": ["a", "b"]},
                "n": {"type": "integer", "minimum": 0},
                "xs": {"type": "array", "items": {"type": "number"}, "maxItems": 2}
            },
            "required": ["formula"],
            "additionalProperties": false
        });
        assert!(validate(
            &s,
            &json!({"formula": "x", "kind": "a", "n": 3, "xs": [1, 2.5]})
        )
        .is_ok());
        assert!(validate(&s, &json!({}))
            .unwrap_err()
            .contains("missing the field `formula`"));
        assert!(validate(&s, &json!({"formula": ""})).is_err());
        assert!(validate(&s, &json!({"formula": "x", "kind": "c"}))
            .unwrap_err()
            .contains("/kind"));
        assert!(validate(&s, &json!({"formula": "x", "n": -1})).is_err());
        assert!(validate(&s, &json!({"formula": "x", "n": 1.5})).is_err());
        assert!(validate(&s, &json!({"formula": "x", "xs": [1, 2, 3]})).is_err());
        assert!(validate(&s, &json!({"formula": "x", "other": 1}))
            .unwrap_err()
            .contains("unexpected"));
        assert!(validate(&s, &json!([1])).is_err());
    }

    #[test]
    fn follows_local_references() {
        let s = json!({
            "$defs": {
                "leaf": {"type": "integer"},
                "tree": {"anyOf": [
                    {"$ref": "#/$defs/leaf"},
                    {"type": "array", "items": {"$ref": "#/$defs/tree"}}
                ]}
            },
            "$ref": "#/$defs/tree"
        });
        assert!(validate(&s, &json!([1, [2, [3]]])).is_ok());
        assert!(validate(&s, &json!([1, ["x"]])).is_err());
        let dangling = json!({"$ref": "#/$defs/nothing"});
        assert!(validate(&dangling, &json!(1))
            .unwrap_err()
            .contains("does not define"));
        let looping = json!({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"});
        assert!(validate(&looping, &json!(1))
            .unwrap_err()
            .contains("nest too deep"));
    }

    #[test]
    fn parses_fenced_answers() {
        assert_eq!(
            parse_answer("```json\n{\"a\": 1}\n```").unwrap(),
            json!({"a": 1})
        );
        assert_eq!(parse_answer(" {\"a\": 1} ").unwrap(), json!({"a": 1}));
        assert!(parse_answer("the answer is 1").is_err());
    }
}
