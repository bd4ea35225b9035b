//! SARIF 2.1.0 rendering of [`Findings`].
//!
//! [`render`] turns the neutral finding model into one SARIF log with a single run whose
//! tool is `vera`. Each [`Rule`](crate::Rule) becomes a reporting descriptor in
//! `tool.driver.rules`, each [`Finding`] a result that points back at its rule by id and
//! index, and each checked file an entry of `artifacts`. File names are kept as the user
//! gave them: a relative path stays a relative URI reference (with spaces, non-ASCII and
//! other reserved characters percent-encoded), an absolute path becomes a `file:` URI.
//!
//! The output is checked against the official SARIF 2.1.0 JSON schema in the crate's
//! tests.

use serde_json::{json, Map, Value};

use crate::{Finding, Findings, Level, Location};

/// The `$schema` URI written into every log.
pub const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// The SARIF version written into every log.
pub const VERSION: &str = "2.1.0";

/// Renders `findings` as a SARIF 2.1.0 log produced by vera `tool_version`.
///
/// Findings whose rule is not among `findings.rules` keep their `ruleId` but get no
/// `ruleIndex`. Files named by locations but missing from `findings.files` are added to
/// `artifacts` after the listed ones, so every location can refer to its artifact by
/// index.
pub fn render(findings: &Findings, tool_version: &str) -> Value {
    let rules: Vec<Value> = findings
        .rules
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "name": r.name,
                "shortDescription": { "text": r.short },
                "help": { "text": r.help },
                "defaultConfiguration": { "level": level(r.level) },
            })
        })
        .collect();

    let artifacts = Artifacts::collect(findings);
    let results: Vec<Value> = findings
        .findings
        .iter()
        .map(|f| result(f, findings, &artifacts))
        .collect();

    let run = json!({
        "tool": {
            "driver": {
                "name": "vera",
                "version": tool_version,
                "rules": rules,
            }
        },
        "artifacts": artifacts.values(),
        "results": results,
    });

    json!({
        "$schema": SCHEMA_URI,
        "version": VERSION,
        "runs": [run],
    })
}

/// The SARIF name of a level.
fn level(l: Level) -> &'static str {
    match l {
        Level::Error => "error",
        Level::Warning => "warning",
        Level::Note => "note",
    }
}

/// The files of a run, in the order of their `artifacts` entries.
struct Artifacts {
    files: Vec<String>,
}

impl Artifacts {
    /// The checked files first, then any other file a location names, each once.
    fn collect(findings: &Findings) -> Artifacts {
        let mut files: Vec<String> = Vec::new();
        let mut add = |f: &str| {
            if !files.iter().any(|g| g == f) {
                files.push(f.to_string());
            }
        };
        for f in &findings.files {
            add(f);
        }
        for finding in &findings.findings {
            for loc in finding.location.iter().chain(&finding.related) {
                add(&loc.file);
            }
        }
        Artifacts { files }
    }

    /// The index of `file` in `artifacts`.
    fn index(&self, file: &str) -> Option<usize> {
        self.files.iter().position(|f| f == file)
    }

    /// The `artifacts` array.
    fn values(&self) -> Vec<Value> {
        self.files
            .iter()
            .map(|f| json!({ "location": { "uri": uri_reference(f) } }))
            .collect()
    }
}

/// One `result` object.
fn result(f: &Finding, findings: &Findings, artifacts: &Artifacts) -> Value {
    let mut r = Map::new();
    r.insert("ruleId".into(), json!(f.rule));
    if let Some(i) = findings.rules.iter().position(|rule| rule.id == f.rule) {
        r.insert("ruleIndex".into(), json!(i));
    }
    r.insert("level".into(), json!(level(f.level)));
    r.insert("message".into(), json!({ "text": f.message }));
    if let Some(loc) = &f.location {
        r.insert("locations".into(), json!([location(loc, artifacts, None)]));
    }
    if !f.related.is_empty() {
        let related: Vec<Value> = f
            .related
            .iter()
            .enumerate()
            .map(|(i, loc)| location(loc, artifacts, Some(i)))
            .collect();
        r.insert("relatedLocations".into(), Value::Array(related));
    }
    Value::Object(r)
}

/// One `location` object; `id` is given for related locations.
fn location(loc: &Location, artifacts: &Artifacts, id: Option<usize>) -> Value {
    let mut artifact = Map::new();
    artifact.insert("uri".into(), json!(uri_reference(&loc.file)));
    if let Some(i) = artifacts.index(&loc.file) {
        artifact.insert("index".into(), json!(i));
    }
    let mut physical = Map::new();
    physical.insert("artifactLocation".into(), Value::Object(artifact));
    // A region needs a start line; line 0 is not a line (lines count from 1).
    if let Some(line) = loc.line.filter(|&l| l > 0) {
        let mut region = Map::new();
        region.insert("startLine".into(), json!(line));
        if let Some(col) = loc.column.filter(|&c| c > 0) {
            region.insert("startColumn".into(), json!(col));
        }
        physical.insert("region".into(), Value::Object(region));
    }
    let mut out = Map::new();
    if let Some(id) = id {
        out.insert("id".into(), json!(id));
    }
    out.insert("physicalLocation".into(), Value::Object(physical));
    if let Some(m) = &loc.message {
        out.insert("message".into(), json!({ "text": m }));
    }
    Value::Object(out)
}

/// Makes a file name as the user gave it into a URI reference.
///
/// A relative path stays relative: every byte other than an unreserved character
/// (`A-Z a-z 0-9 - . _ ~`) or `/` is percent-encoded, so spaces, `#`, `?`, `%`, `:` and
/// non-ASCII letters cannot change how the reference is read. An absolute path (`/...`)
/// becomes a `file:` URI, as SARIF asks for absolute locations.
pub fn uri_reference(file: &str) -> String {
    let encoded = percent_encode_path(file);
    if file.starts_with('/') {
        format!("file://{encoded}")
    } else {
        encoded
    }
}

/// Percent-encodes everything in `path` but unreserved characters and `/`.
fn percent_encode_path(path: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(path.len());
    for &b in path.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push('%');
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 0xF)] as char);
        }
    }
    out
}

/// A SARIF log for a run that failed before it had results: one run with no results
/// and an invocation that did not succeed, its notification carrying `message` and the
/// located problems (`file`, `line`, `message`).
pub fn render_failure(
    message: &str,
    problems: &[(Option<String>, Option<usize>, String)],
    tool_version: &str,
) -> Value {
    let mut notifications = vec![json!({
        "level": "error",
        "message": { "text": message },
    })];
    for (file, line, text) in problems {
        let mut n = json!({
            "level": "error",
            "message": { "text": text },
        });
        if let Some(f) = file {
            let mut region = json!({});
            if let Some(l) = line {
                region = json!({ "startLine": l });
            }
            n["locations"] = json!([{
                "physicalLocation": {
                    "artifactLocation": { "uri": uri_reference(f) },
                    "region": region,
                }
            }]);
        }
        notifications.push(n);
    }
    json!({
        "$schema": SCHEMA_URI,
        "version": VERSION,
        "runs": [{
            "tool": { "driver": { "name": "vera", "version": tool_version } },
            "invocations": [{
                "executionSuccessful": false,
                "exitCode": 2,
                "toolExecutionNotifications": notifications,
            }],
            "results": [],
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rule;

    fn rule() -> Rule {
        Rule {
            id: "VERA-TEST",
            name: "TestRule",
            short: "A test rule.",
            help: "Nothing to do.",
            level: Level::Warning,
        }
    }

    #[test]
    fn uri_references_keep_relative_paths_relative() {
        assert_eq!(uri_reference("specs/a.req"), "specs/a.req");
        assert_eq!(uri_reference("my spec.req"), "my%20spec.req");
        assert_eq!(uri_reference("règles.req"), "r%C3%A8gles.req");
        assert_eq!(uri_reference("a:b#c?d%e"), "a%3Ab%23c%3Fd%25e");
        assert_eq!(uri_reference("../x.req"), "../x.req");
        assert_eq!(
            uri_reference("/srv/my spec.req"),
            "file:///srv/my%20spec.req"
        );
    }

    #[test]
    fn results_point_at_their_rule_and_artifact() {
        let f = Findings {
            command: "audit".into(),
            rules: vec![rule()],
            findings: vec![Finding {
                rule: "VERA-TEST",
                level: Level::Error,
                message: "found".into(),
                location: Some(Location::new("b.req", Some(3))),
                related: vec![Location::new("a.req", None).with_message("here too")],
            }],
            files: vec!["a.req".into()],
        };
        let log = render(&f, "1.2.3");
        let run = &log["runs"][0];
        assert_eq!(log["version"], "2.1.0");
        assert_eq!(run["tool"]["driver"]["name"], "vera");
        assert_eq!(run["tool"]["driver"]["version"], "1.2.3");
        assert_eq!(run["tool"]["driver"]["rules"][0]["id"], "VERA-TEST");
        assert_eq!(
            run["tool"]["driver"]["rules"][0]["defaultConfiguration"]["level"],
            "warning"
        );
        let r = &run["results"][0];
        assert_eq!(r["ruleIndex"], 0);
        assert_eq!(r["level"], "error");
        let loc = &r["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uri"], "b.req");
        assert_eq!(loc["artifactLocation"]["index"], 1);
        assert_eq!(loc["region"]["startLine"], 3);
        let rel = &r["relatedLocations"][0];
        assert_eq!(rel["id"], 0);
        assert_eq!(rel["message"]["text"], "here too");
        assert!(rel["physicalLocation"].get("region").is_none());
        assert_eq!(run["artifacts"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn unknown_rule_has_no_index_and_line_zero_no_region() {
        let f = Findings {
            findings: vec![Finding {
                rule: "VERA-OTHER",
                level: Level::Note,
                message: "m".into(),
                location: Some(Location::new("a.req", Some(0))),
                related: vec![],
            }],
            ..Findings::default()
        };
        let r = &render(&f, "0")["runs"][0]["results"][0];
        assert!(r.get("ruleIndex").is_none());
        assert!(r.get("relatedLocations").is_none());
        assert!(r["locations"][0]["physicalLocation"]
            .get("region")
            .is_none());
    }
}
