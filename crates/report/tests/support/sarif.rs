//! Validating SARIF logs against the official SARIF 2.1.0 JSON schema in
//! `testdata/sarif` (shared: `crates/vera/tests` includes this file with `#[path]`).
//!
//! The schema declares JSON Schema draft 4, which knows no `uri-reference` format, so
//! every log is validated twice: once as the schema declares, and once read as draft 7,
//! whose `uri-reference` format check makes sure artifact URIs are real URI references.

use jsonschema::{Draft, Validator};
use serde_json::Value;

/// The schema compiled as it declares itself, and read as draft 7.
pub struct Validators {
    declared: Validator,
    draft7: Validator,
}

pub fn validator() -> Validators {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/sarif/sarif-schema-2.1.0.json"
    );
    let text = std::fs::read_to_string(path).expect("the SARIF schema in testdata/sarif");
    let schema: Value = serde_json::from_str(&text).expect("the SARIF schema is JSON");
    // No retriever is configured and the crate is built without its HTTP and file
    // resolvers: every `$ref` of the schema is inside the file.
    let declared = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the SARIF schema compiles without fetching anything");
    assert_eq!(
        schema["$schema"], "http://json-schema.org/draft-04/schema#",
        "the schema is expected to declare draft 4"
    );
    let draft7 = jsonschema::options()
        .with_draft(Draft::Draft7)
        .should_validate_formats(true)
        .build(&schema)
        .expect("the SARIF schema compiles as draft 7");
    Validators { declared, draft7 }
}

pub fn errors(v: &Validators, log: &Value) -> Vec<String> {
    v.declared
        .iter_errors(log)
        .map(|e| format!("draft 4: {} at {}", e, e.instance_path))
        .chain(
            v.draft7
                .iter_errors(log)
                .map(|e| format!("draft 7: {} at {}", e, e.instance_path)),
        )
        .collect()
}

pub fn assert_valid(v: &Validators, log: &Value) {
    let errs = errors(v, log);
    assert!(
        errs.is_empty(),
        "SARIF log rejected by the schema:\n{}\n{}",
        errs.join("\n"),
        serde_json::to_string_pretty(log).unwrap()
    );
}
