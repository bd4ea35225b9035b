//! Validates the SARIF rendering against the official SARIF 2.1.0 JSON schema
//! (`testdata/sarif/sarif-schema-2.1.0.json`, the OASIS errata 01 edition), and checks
//! that the validator does reject broken logs so that a passing validation means
//! something.
//!
//! The schema declares JSON Schema draft 4, which knows no `uri-reference` format, so
//! every log is validated twice: once as the schema declares (draft 4, with the formats
//! draft 4 knows), and once read as draft 7, whose `uri-reference` format check makes
//! sure artifact URIs are real URI references. The schema uses no keyword whose meaning
//! differs between the two drafts (no `exclusiveMinimum`, `exclusiveMaximum` or
//! `dependencies`), so the second reading asks nothing the schema does not.

#[path = "support/sarif.rs"]
mod sarif;
use report::{Finding, Findings, Level, Location, Rule};
use sarif::{assert_valid, errors, validator};
use serde_json::{json, Value};

fn rules() -> Vec<Rule> {
    vec![
        Rule {
            id: "VERA-AUDIT-CONFLICT",
            name: "GlobalConflict",
            short: "Some requirements cannot all hold at once.",
            help: "Weaken or drop one of the requirements in the conflict.",
            level: Level::Error,
        },
        Rule {
            id: "VERA-AUDIT-VACUOUS",
            name: "VacuousRequirement",
            short: "A requirement's condition can never be met.",
            help: "Check the condition against the other requirements.",
            level: Level::Warning,
        },
        Rule {
            id: "VERA-AUDIT-NOTE",
            name: "Note",
            short: "Worth a look.",
            help: "Read the message.",
            level: Level::Note,
        },
    ]
}

fn finding(rule: &'static str, level: Level, location: Option<Location>) -> Finding {
    Finding {
        rule,
        level,
        message: format!("{rule} found something"),
        location,
        related: vec![],
    }
}

#[test]
fn empty_run_is_valid() {
    let v = validator();
    let findings = Findings {
        command: "audit".into(),
        rules: rules(),
        findings: vec![],
        files: vec![],
    };
    let log = report::sarif::render(&findings, "0.1.0");
    assert_valid(&v, &log);
    assert_eq!(log["runs"][0]["results"], json!([]));

    // Not even rules.
    assert_valid(&v, &report::sarif::render(&Findings::default(), "0.1.0"));
}

#[test]
fn findings_with_and_without_lines_are_valid() {
    let v = validator();
    let mut with_column = Location::new("spec.req", Some(12));
    with_column.column = Some(4);
    let findings = Findings {
        command: "audit".into(),
        rules: rules(),
        findings: vec![
            finding(
                "VERA-AUDIT-CONFLICT",
                Level::Error,
                Some(Location::new("spec.req", Some(3))),
            ),
            finding(
                "VERA-AUDIT-VACUOUS",
                Level::Warning,
                Some(Location::new("spec.req", None)),
            ),
            finding("VERA-AUDIT-NOTE", Level::Note, None),
            finding("VERA-AUDIT-NOTE", Level::Note, Some(with_column)),
            // A rule the run does not list, and a line 0 that must not become a region.
            finding(
                "VERA-UNLISTED",
                Level::Error,
                Some(Location::new("spec.req", Some(0))),
            ),
        ],
        files: vec!["spec.req".into()],
    };
    let log = report::sarif::render(&findings, "0.1.0");
    assert_valid(&v, &log);
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 5);
    assert_eq!(
        results[0]["locations"][0]["physicalLocation"]["region"]["startLine"],
        3
    );
    assert!(results[1]["locations"][0]["physicalLocation"]
        .get("region")
        .is_none());
    assert!(results[2].get("locations").is_none());
    assert_eq!(
        results[3]["locations"][0]["physicalLocation"]["region"]["startColumn"],
        4
    );
}

#[test]
fn related_locations_are_valid() {
    let v = validator();
    let findings = Findings {
        command: "consistency".into(),
        rules: rules(),
        findings: vec![Finding {
            rule: "VERA-AUDIT-CONFLICT",
            level: Level::Error,
            message: "R1, R3 and R7 conflict.".into(),
            location: Some(Location::new("spec.req", Some(1))),
            related: vec![
                Location::new("spec.req", Some(3)).with_message("R3 takes part in the conflict"),
                Location::new("other.req", None).with_message("R7 takes part in the conflict"),
                Location::new("spec.req", Some(9)),
            ],
        }],
        files: vec!["spec.req".into(), "other.req".into()],
    };
    let log = report::sarif::render(&findings, "0.1.0");
    assert_valid(&v, &log);
    let related = log["runs"][0]["results"][0]["relatedLocations"]
        .as_array()
        .unwrap();
    let ids: Vec<&Value> = related.iter().map(|r| &r["id"]).collect();
    assert_eq!(ids, [&json!(0), &json!(1), &json!(2)]);
    assert_eq!(
        related[1]["message"]["text"],
        "R7 takes part in the conflict"
    );
    assert!(related[2].get("message").is_none());
}

#[test]
fn awkward_file_names_are_valid_uri_references() {
    let v = validator();
    let names = [
        "my specs/fee rules.req",
        "règles/frais été.req",
        "日本語/仕様.req",
        "odd#name?.req",
        "100%.req",
        "a:b.req",
        "../up/one.req",
        "/abs/path with space.req",
        "emoji 🚀.req",
    ];
    let findings = Findings {
        command: "audit".into(),
        rules: rules(),
        findings: names
            .iter()
            .enumerate()
            .map(|(i, n)| Finding {
                rule: "VERA-AUDIT-VACUOUS",
                level: Level::Warning,
                message: format!("finding {i} in {n}"),
                location: Some(Location::new(*n, Some(i as u32 + 1))),
                related: vec![Location::new(*n, None).with_message("same file")],
            })
            .collect(),
        files: names.iter().map(|n| n.to_string()).collect(),
    };
    let log = report::sarif::render(&findings, "0.1.0");
    assert_valid(&v, &log);
    let artifacts = log["runs"][0]["artifacts"].as_array().unwrap();
    assert_eq!(artifacts.len(), names.len());
    assert_eq!(
        artifacts[0]["location"]["uri"],
        "my%20specs/fee%20rules.req"
    );
    assert_eq!(artifacts[6]["location"]["uri"], "../up/one.req");
    assert_eq!(
        artifacts[7]["location"]["uri"],
        "file:///abs/path%20with%20space.req"
    );
    for a in artifacts {
        let uri = a["location"]["uri"].as_str().unwrap();
        assert!(uri.is_ascii() && !uri.contains(' '), "{uri}");
    }
}

/// The validator must reject logs that break the schema; otherwise the tests above
/// would pass whatever the renderer wrote.
#[test]
fn broken_logs_are_rejected() {
    let v = validator();
    let findings = Findings {
        command: "audit".into(),
        rules: rules(),
        findings: vec![finding(
            "VERA-AUDIT-CONFLICT",
            Level::Error,
            Some(Location::new("spec.req", Some(3))),
        )],
        files: vec!["spec.req".into()],
    };
    let good = report::sarif::render(&findings, "0.1.0");
    assert_valid(&v, &good);

    let mut fatal = good.clone();
    fatal["runs"][0]["results"][0]["level"] = json!("fatal");
    assert!(!errors(&v, &fatal).is_empty(), "level \"fatal\" accepted");

    let mut bad_version = good.clone();
    bad_version["version"] = json!("2.0.0");
    assert!(
        !errors(&v, &bad_version).is_empty(),
        "version 2.0.0 accepted"
    );

    let mut line_zero = good.clone();
    line_zero["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
        json!(0);
    assert!(!errors(&v, &line_zero).is_empty(), "startLine 0 accepted");

    let mut region_without_start = good.clone();
    region_without_start["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"] =
        json!({ "startColumn": 2 });
    assert!(
        !errors(&v, &region_without_start).is_empty(),
        "region without a start accepted"
    );

    let mut unknown_property = good.clone();
    unknown_property["runs"][0]["tool"]["driver"]["colour"] = json!("blue");
    assert!(
        !errors(&v, &unknown_property).is_empty(),
        "unknown driver property accepted"
    );

    let mut no_driver_name = good.clone();
    no_driver_name["runs"][0]["tool"]["driver"]
        .as_object_mut()
        .unwrap()
        .remove("name");
    assert!(
        !errors(&v, &no_driver_name).is_empty(),
        "driver without a name accepted"
    );

    let mut raw_space = good.clone();
    raw_space["runs"][0]["artifacts"][0]["location"]["uri"] = json!("my spec.req");
    assert!(
        !errors(&v, &raw_space).is_empty(),
        "URI with a raw space accepted (format checks are off?)"
    );
}
