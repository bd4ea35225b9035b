//! The C view and the ambiguity views on recorded reports (tests/fixtures):
//!
//! - `clamp_mixed.c` / `clamp_mixed.verify.json`: `vera c verify
//!   crates/serve/tests/fixtures/clamp_mixed.c --format json` (Frama-C 27, z3 and cvc5);
//!   one postcondition (`wrong`, line 7) is false, the rest proves; the loop
//!   invariant's goals are not matched to its clause by the report.
//! - `inconsistent.c` / `inconsistent.verify.json`: the same on
//!   crates/acsl/tests/c/bad/inconsistent.c (contradictory preconditions: a failed
//!   smoke test).
//! - `hemodialysis.ambiguity.json`, `hemodialysis.clarify-run.json`,
//!   `hemodialysis.proposals.json`: `vera formalize`, `vera ambiguity` and
//!   `vera clarify` on examples/hemodialysis replayed from
//!   crates/pipeline/tests/cassettes/csv-pipeline.jsonl (as crates/vera/tests/recorded_runs.rs does).
//!
//! - `timed-formalize.ambiguity-timed.json`: `vera ambiguity
//!   crates/vera/tests/fixtures/timed-formalize.toml -n 4 --solver z3 --format json`
//!   with the model played by a local chat server answering as
//!   `timed_ambiguity_payload` in crates/vera/tests/json_schemas.rs does (R1: one
//!   reading and an invalid sample; R2: the edge and the level reading by turns).
//!
//! Variants (missing results, hostile text) are made from these in the tests.

use serde_json::{json, Value};
use serve::ambig::{render_ambiguity, render_proposals};
use serve::cview::{render_c, ViewError};

fn fixture(name: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn json_fixture(name: &str) -> Value {
    serde_json::from_str(&fixture(name)).unwrap()
}

const HOSTILE: &str = "<script>alert(1)</script>\u{1b}[31m";

/// No markup and no control character from `HOSTILE` survives.
fn assert_escaped(html: &str) {
    assert!(!html.contains("<script"), "unescaped script tag");
    assert!(!html.contains('\u{1b}'), "raw escape character");
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{html}"
    );
    assert!(html.contains("\u{241b}[31m"), "escape shown as its picture");
}

/// The `<tr>` of line `n`, up to its `</tr>`.
fn row(html: &str, n: usize) -> &str {
    let start = html
        .find(&format!("<tr id=\"L{n}\""))
        .unwrap_or_else(|| panic!("no row L{n}"));
    let end = html[start..].find("</tr>").unwrap() + start;
    &html[start..end]
}

/// The class attribute of a line's row (empty when it has none).
fn row_class(html: &str, n: usize) -> &str {
    let r = row(html, n);
    let head = &r[..r.find('>').unwrap()];
    match head.find("class=\"") {
        Some(i) => {
            let rest = &head[i + 7..];
            &rest[..rest.find('"').unwrap()]
        }
        None => "",
    }
}

/// The number shown by the summary count with `data-status`.
fn count(html: &str, status: &str) -> usize {
    let key = format!("data-status=\"{status}\"><span class=\"value\">");
    let i = html
        .find(&key)
        .unwrap_or_else(|| panic!("no count {status}"))
        + key.len();
    html[i..i + html[i..].find('<').unwrap()].parse().unwrap()
}

fn clamp() -> (String, Value) {
    (
        fixture("clamp_mixed.c"),
        json_fixture("clamp_mixed.verify.json"),
    )
}

// ------------------------------------------------------------------ C view

#[test]
fn every_source_line_is_a_numbered_row() {
    let (src, rep) = clamp();
    let html = render_c("clamp_mixed.c", &src, &rep).unwrap();
    assert_eq!(html.matches("<table class=\"source\">").count(), 1);
    let lines = src.lines().count();
    assert_eq!(lines, 30);
    for n in 1..=lines {
        assert!(html.contains(&format!("<a href=\"#L{n}\">{n}</a>")), "L{n}");
    }
    assert!(!html.contains(&format!("id=\"L{}\"", lines + 1)));
    // Text as written, escaped.
    assert!(row(&html, 7).contains("ensures wrong: \\result == x;"));
    assert!(row(&html, 10).contains("if (x &lt; lo)"));
}

#[test]
fn clauses_are_coloured_as_the_report_says() {
    let (src, rep) = clamp();
    let html = render_c("clamp_mixed.c", &src, &rep).unwrap();
    // Every property of the report whose goals are all valid, at its line.
    let mut proved_lines = Vec::new();
    for s in rep["report"]["segments"].as_array().unwrap() {
        let run = &s["run"];
        for p in run["properties"].as_array().unwrap() {
            let names = p["goals"].as_array().unwrap();
            let all_valid = !names.is_empty()
                && names.iter().all(|n| {
                    run["goals"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|g| &g["name"] == n && g["status"] == "valid")
                });
            if all_valid {
                proved_lines.push(p["line"].as_u64().unwrap() as usize);
            }
        }
    }
    assert_eq!(proved_lines, [5, 6, 9, 19, 21, 28]);
    for l in &proved_lines {
        assert_eq!(row_class(&html, *l), "goal-proved", "L{l}");
    }
    // `wrong` (line 7): cvc5 answered unknown. Not proved, with the goal named.
    assert_eq!(row_class(&html, 7), "goal-unproved");
    let r7 = row(&html, 7);
    assert!(
        r7.contains("typed_clamp_ensures_wrong: unknown (CVC5 1.0.3)"),
        "{r7}"
    );
    assert!(r7.contains("postcondition: not proved"));
    // The loop invariant and loop assigns (lines 23, 24) have no goal matched in the
    // report: no result, never proved, though Frama-C's own status is valid.
    for l in [23, 24] {
        assert_eq!(row_class(&html, l), "goal-unknown", "L{l}");
        let r = row(&html, l);
        assert!(r.contains("no result"), "{r}");
        assert!(r.contains("no WP goal of the report is matched to this clause"));
        assert!(r.contains("Frama-C&#39;s property status: valid"));
    }
    // Lines without a clause carry no status.
    for l in [1, 2, 3, 4, 8, 10, 15, 22] {
        assert_eq!(row_class(&html, l), "", "L{l}");
    }
    // Counts of clauses: 6 proved, 1 not proved, 2 without a result, none failed.
    assert_eq!(count(&html, "proved"), 6);
    assert_eq!(count(&html, "unproved"), 1);
    assert_eq!(count(&html, "unknown"), 2);
    assert_eq!(count(&html, "failed"), 0);
    // The report's own totals and verdict.
    assert!(html.contains("WP verdict: not proved (1 of 14 goals)"));
    assert!(html.contains("14 goals · 13 proved · 0 timeouts"));
    // Goals that no clause claims are listed, with their results.
    assert!(html.contains("Goals not matched to a clause"));
    for g in [
        "typed_count_up_loop_invariant_bound_preserved: valid (Qed, 2 ms)",
        "typed_count_up_loop_variant_decrease: valid (Qed, 1 ms)",
    ] {
        assert!(html.contains(g), "{g}");
    }
}

#[test]
fn a_line_with_several_clauses_takes_the_worst() {
    let (src, mut rep) = clamp();
    // Move `wrong` (not proved) onto the line of `inside` (proved).
    let props = rep["report"]["segments"][0]["run"]["properties"]
        .as_array_mut()
        .unwrap();
    let wrong = props.iter_mut().find(|p| p["line"] == 7).unwrap();
    wrong["line"] = json!(5);
    let html = render_c("clamp_mixed.c", &src, &rep).unwrap();
    assert_eq!(row_class(&html, 5), "goal-unproved");
    let r5 = row(&html, 5);
    assert!(r5.contains("class=\"clause goal-proved\""));
    assert!(r5.contains("class=\"clause goal-unproved\""));
    assert_eq!(row_class(&html, 7), "");
}

#[test]
fn a_goal_missing_from_the_report_is_no_result_never_proved() {
    let (src, mut rep) = clamp();
    // Drop the goal of `inside` (line 5): its clause still names it.
    let goals = rep["report"]["segments"][0]["run"]["goals"]
        .as_array_mut()
        .unwrap();
    goals.retain(|g| g["name"] != "typed_clamp_ensures_inside");
    let html = render_c("clamp_mixed.c", &src, &rep).unwrap();
    assert_eq!(row_class(&html, 5), "goal-unknown");
    assert!(row(&html, 5).contains("typed_clamp_ensures_inside: no result in the report"));
    // A goal without a status is no result too.
    let (_, mut rep) = clamp();
    rep["report"]["segments"][0]["run"]["goals"][0]
        .as_object_mut()
        .unwrap()
        .remove("status");
    let html = render_c("clamp_mixed.c", &src, &rep).unwrap();
    assert_eq!(row_class(&html, 5), "goal-unknown");
    // A status the view does not know is not proved either.
    let (_, mut rep) = clamp();
    rep["report"]["segments"][0]["run"]["goals"][0]["status"] = json!("maybe");
    let html = render_c("clamp_mixed.c", &src, &rep).unwrap();
    assert_eq!(row_class(&html, 5), "goal-unknown");
}

#[test]
fn failed_and_invalid_goals_are_failed() {
    let (src, mut rep) = clamp();
    rep["report"]["segments"][0]["run"]["goals"][4]["status"] = json!("invalid");
    assert_eq!(
        rep["report"]["segments"][0]["run"]["goals"][4]["name"],
        "typed_clamp_ensures_wrong"
    );
    let html = render_c("clamp_mixed.c", &src, &rep).unwrap();
    assert_eq!(row_class(&html, 7), "goal-failed");
    assert_eq!(count(&html, "failed"), 1);
    assert_eq!(count(&html, "unproved"), 0);
}

#[test]
fn an_unreadable_run_claims_nothing() {
    let (src, mut rep) = clamp();
    rep["report"]["segments"][0]["run"]["verdict"] =
        json!({"verdict": "unreadable", "reason": "Proved goals: missing"});
    let html = render_c("clamp_mixed.c", &src, &rep).unwrap();
    for l in [5, 6, 9] {
        assert_eq!(row_class(&html, l), "goal-unknown", "L{l}");
    }
    assert!(row(&html, 5).contains("could not be read"));
    // The other segment is untouched.
    assert_eq!(row_class(&html, 19), "goal-proved");
}

#[test]
fn a_failed_smoke_test_makes_the_proofs_vacuous() {
    let src = fixture("inconsistent.c");
    let rep = json_fixture("inconsistent.verify.json");
    let html = render_c("inconsistent.c", &src, &rep).unwrap();
    // The contradictory preconditions: invalid or unreachable.
    for l in [3, 4] {
        assert_eq!(row_class(&html, l), "goal-failed", "L{l}");
    }
    // The postcondition and assigns goals are valid in the report, but vacuous.
    for l in [6, 8] {
        assert_eq!(row_class(&html, l), "goal-unproved", "L{l}");
        assert!(row(&html, l).contains("a smoke test failed in vacuous: the proof is vacuous"));
    }
    assert_eq!(count(&html, "proved"), 0);
    assert_eq!(count(&html, "failed"), 2);
    assert_eq!(count(&html, "unproved"), 2);
    assert!(html.contains("WP verdict: inconsistent"));
    assert!(html.contains("typed_vacuous_wp_smoke_default_requires (in vacuous)"));
    assert!(html.contains("<a href=\"#L8\">line 8</a>: Failed smoke-test"));
}

#[test]
fn clauses_beyond_the_source_are_listed_apart() {
    let (src, rep) = clamp();
    let short: String = src.lines().take(6).map(|l| format!("{l}\n")).collect();
    let html = render_c("clamp_mixed.c", &short, &rep).unwrap();
    assert!(!html.contains("id=\"L7\""));
    assert!(html.contains("Clauses beyond the last line of the source"));
    assert!(html.contains("line 7: "));
}

#[test]
fn the_source_must_be_a_file_of_the_report() {
    let (src, rep) = clamp();
    // Names with or without leading directories match.
    for name in [
        "clamp_mixed.c",
        "fixtures/clamp_mixed.c",
        "/work/x/crates/serve/tests/fixtures/clamp_mixed.c",
    ] {
        render_c(name, &src, &rep).unwrap();
    }
    match render_c("other.c", &src, &rep) {
        Err(ViewError::FileNotInReport { source_name, files }) => {
            assert_eq!(source_name, "other.c");
            assert!(files.contains("clamp_mixed.c"));
        }
        other => panic!("{other:?}"),
    }
    // A name that merely ends the same is another file.
    assert!(render_c("mixed.c", &src, &rep).is_err());
}

#[test]
fn hostile_text_in_the_source_and_report_is_escaped() {
    let (src, mut rep) = clamp();
    let src = src.replacen("/* Restrict", &format!("/* {HOSTILE} Restrict"), 1);
    let run = &mut rep["report"]["segments"][0]["run"];
    run["properties"][2]["text"] = json!(HOSTILE);
    run["properties"][2]["kind"] = json!(HOSTILE);
    run["properties"][2]["function"] = json!(HOSTILE);
    run["goals"][4]["prover"] = json!(HOSTILE);
    run["goals"][4]["name"] = json!(HOSTILE);
    run["properties"][2]["goals"] = json!([HOSTILE]);
    run["warnings"] = json!([{"plugin": "wp", "file": null, "line": 2, "text": HOSTILE}]);
    run["smoke_tests"][0]["name"] = json!(HOSTILE);
    run["smoke_tests"][0]["passed"] = json!(false);
    rep["report"]["frama_c_version"] = json!(HOSTILE);
    let html = render_c(HOSTILE, &src, &{
        let mut r = rep.clone();
        r["report"]["file"] = json!(HOSTILE);
        r["report"]["files"] = json!([HOSTILE]);
        r["report"]["segments"][0]["run"]["properties"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .for_each(|p| p["file"] = json!(null));
        r
    })
    .unwrap();
    assert_escaped(&html);
    assert!(row(&html, 1).contains("&lt;script&gt;"));
    assert_eq!(row_class(&html, 7), "goal-unproved");
    // The hostile text also went through the default rendering.
    let html = render_c("clamp_mixed.c", &src, &rep).unwrap();
    assert_escaped(&html);
}

#[test]
fn malformed_reports_are_errors_not_panics() {
    let (src, rep) = clamp();
    assert!(matches!(
        render_c("clamp_mixed.c", &src, &json!({"schema": "vera.c-synth.v1"})),
        Err(ViewError::Schema { .. })
    ));
    assert!(matches!(
        render_c("clamp_mixed.c", &src, &json!(42)),
        Err(ViewError::Schema { found, .. }) if found == "missing"
    ));
    let mut r = rep.clone();
    r["report"].as_object_mut().unwrap().remove("segments");
    let e = render_c("clamp_mixed.c", &src, &r).unwrap_err();
    assert_eq!(e.to_string(), "report.segments: missing");
    let mut r = rep.clone();
    r["report"]["segments"][1]["run"]["properties"][0]["line"] = json!("19");
    let e = render_c("clamp_mixed.c", &src, &r).unwrap_err();
    assert_eq!(
        e.to_string(),
        "report.segments[1].run.properties[0].line: expected a non-negative integer, found a string"
    );
    // Every field removed, or replaced by a value of another type, in turn: an
    // answer or an error, never a panic.
    let mut tried = 0;
    for_each_variant(&rep, &mut |v| {
        tried += 1;
        let _ = render_c("clamp_mixed.c", &src, v);
    });
    assert!(tried > 400, "{tried}");
}

/// Calls `f` on copies of `v` with one field (at any depth) removed or replaced by
/// `null`, a string, a number, or an array.
fn for_each_variant(v: &Value, f: &mut dyn FnMut(&Value)) {
    fn paths(v: &Value, here: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
        match v {
            Value::Object(o) => {
                for (k, x) in o {
                    here.push(k.clone());
                    out.push(here.clone());
                    paths(x, here, out);
                    here.pop();
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    here.push(i.to_string());
                    out.push(here.clone());
                    paths(x, here, out);
                    here.pop();
                }
            }
            _ => {}
        }
    }
    fn at<'a>(v: &'a mut Value, path: &[String]) -> &'a mut Value {
        path.iter().fold(v, |v, k| match v {
            Value::Array(a) => &mut a[k.parse::<usize>().unwrap()],
            other => &mut other[k.as_str()],
        })
    }
    let mut all = Vec::new();
    paths(v, &mut Vec::new(), &mut all);
    for p in all {
        let (last, parent) = p.split_last().unwrap();
        for replacement in [
            None,
            Some(json!(null)),
            Some(json!("x")),
            Some(json!(-1)),
            Some(json!([])),
        ] {
            let mut c = v.clone();
            let slot = at(&mut c, parent);
            match (&replacement, slot) {
                (None, Value::Object(o)) => {
                    o.remove(last);
                }
                (None, Value::Array(a)) => {
                    a.remove(last.parse::<usize>().unwrap());
                }
                (Some(r), slot) => *at(slot, std::slice::from_ref(last)) = r.clone(),
                _ => unreachable!(),
            }
            f(&c);
        }
    }
}

// ------------------------------------------------------------------ ambiguity

/// The `<article>` of requirement `id`, up to its `</article>`.
fn article<'a>(html: &'a str, id: &str) -> &'a str {
    let start = html
        .find(&format!("data-id=\"{id}\""))
        .unwrap_or_else(|| panic!("no article {id}"));
    let start = html[..start].rfind("<article").unwrap();
    let end = html[start..].find("</article>").unwrap() + start;
    &html[start..end]
}

fn ambiguity_count(html: &str, key: &str) -> u64 {
    let k = format!("data-count=\"{key}\"><span class=\"value\">");
    let i = html.find(&k).unwrap_or_else(|| panic!("no count {key}")) + k.len();
    html[i..i + html[i..].find('<').unwrap()].parse().unwrap()
}

#[test]
fn readings_classes_and_witnesses_as_the_report_says() {
    let rep = json_fixture("hemodialysis.ambiguity.json");
    let html = render_ambiguity(&rep).unwrap();
    let summary = &rep["report"]["summary"];
    assert_eq!(ambiguity_count(&html, "requirements"), 5);
    assert_eq!(ambiguity_count(&html, "flagged"), 3);
    assert_eq!(ambiguity_count(&html, "could_not_screen"), 1);
    for k in [
        "requirements",
        "flagged",
        "could_not_screen",
        "invalid_samples",
    ] {
        assert_eq!(Some(ambiguity_count(&html, k)), summary[k].as_u64(), "{k}");
    }
    assert!(html.contains("<h2>Ambiguity screening: formalized.toml</h2>"));
    let reqs = rep["report"]["requirements"].as_array().unwrap();
    assert_eq!(reqs.len(), 5);
    let mut flagged = Vec::new();
    let mut witness_rows = 0;
    for r in reqs {
        let id = r["id"].as_str().unwrap();
        let a = article(&html, id);
        assert!(a.contains(&format!("id=\"req-{id}\"")));
        let status = if r["flagged"] == true {
            flagged.push(id);
            "flagged"
        } else if r["could_not_screen"] == true {
            "not-screened"
        } else {
            "one-reading"
        };
        assert!(
            a.starts_with(&format!("<article class=\"requirement {status}\"")),
            "{id}"
        );
        let Some(p) = r.get("partition") else {
            continue;
        };
        let classes = p["classes"].as_array().unwrap();
        let candidates: usize = classes
            .iter()
            .map(|c| c["members"].as_array().unwrap().len())
            .sum();
        assert_eq!(
            a.matches("<tr class=\"reading\"").count(),
            classes.len(),
            "{id}"
        );
        for c in classes {
            let label = c["label"].as_str().unwrap();
            let size = c["members"].as_array().unwrap().len();
            let row_start = a.find(&format!("data-class=\"{label}\"")).unwrap();
            let row = &a[row_start..row_start + a[row_start..].find("</tr>").unwrap()];
            assert!(
                row.contains(&format!("data-size=\"{size}\">{size} of {candidates}")),
                "{row}"
            );
            let formula = report::html::escape(c["formula"].as_str().unwrap());
            assert!(row.contains(&formula), "{row}");
        }
        for s in p["separations"].as_array().unwrap() {
            for side in ["only_a", "only_b"] {
                let Some(d) = s.get(side) else { continue };
                let expl = report::html::escape(d["explanation"].as_str().unwrap());
                assert!(a.contains(&expl), "{expl}");
                for w in d["witness"].as_array().unwrap() {
                    let value = match w.get("unit") {
                        Some(u) => {
                            format!("{} {}", w["value"].as_str().unwrap(), u.as_str().unwrap())
                        }
                        None => w["value"].as_str().unwrap().to_string(),
                    };
                    let cell = format!(
                        "<tr><td class=\"variable\">{}</td><td class=\"value\">{}</td></tr>",
                        w["variable"].as_str().unwrap(),
                        value
                    );
                    assert!(a.contains(&cell), "{id}: {cell}");
                    witness_rows += 1;
                }
            }
        }
    }
    assert_eq!(flagged, ["R-AIR-1", "R-AIR-2", "R-TEMP-1"]);
    assert!(witness_rows > 10, "{witness_rows}");
    // R-AIR-1: three readings of one sample each; samples #1, #2 and #5 were valid.
    let a = article(&html, "R-AIR-1");
    assert!(a.contains("3 of 5 samples valid"));
    assert!(a.contains("<span class=\"members\">(#5)</span>"));
    assert!(a.contains("<h4>A vs B</h4>"));
    assert!(a.contains(
        "A state A allows and B rules out: at blood_flow = 0 mL/min, air_volume = 0.15 mL"
    ));
    assert!(
        a.contains("<td class=\"variable\">blood_flow</td><td class=\"value\">5/13 mL/min</td>")
    );
    // R-TEMP-1's readings disagree at exactly 41 degC.
    assert!(article(&html, "R-TEMP-1").contains("dialysate_temp = 41 degC"));
    // R-BF-4 could not be screened: why its samples were invalid.
    let a = article(&html, "R-BF-4");
    assert!(a.contains("not screened ("), "{a}");
    assert!(a.contains("class=\"invalid-samples\""));
    // No proposals in a plain screening.
    assert!(!html.contains("Proposed clarification"));
}

#[test]
fn a_clarify_run_shows_each_proposal_with_its_requirement() {
    let rep = json_fixture("hemodialysis.clarify-run.json");
    let html = render_ambiguity(&rep).unwrap();
    let proposals = rep["report"]["proposals"].as_array().unwrap();
    assert_eq!(proposals.len(), 3);
    assert_eq!(html.matches("<h4>Proposed clarification</h4>").count(), 3);
    for p in proposals {
        let a = article(&html, p["id"].as_str().unwrap());
        assert!(a.contains("Proposed clarification"));
        assert!(a.contains(&report::html::escape(p["clarified"].as_str().unwrap())));
        assert!(a.contains(&format!(
            "readings {} → {}",
            p["classes_before"], p["classes_after"]
        )));
        assert!(a.contains("did not converge"));
        assert!(a.contains(&report::html::escape(p["note"].as_str().unwrap())));
    }
    assert!(!article(&html, "R-BF-4").contains("Proposed clarification"));
    assert!(html.contains("Clarification: 3 ambiguity-sensitive before, 3 after."));
}

#[test]
fn proposals_have_a_preview_form_each() {
    let rep = json_fixture("hemodialysis.proposals.json");
    let html =
        render_proposals("specs/proposals.json", &rep, "tok123", &Default::default()).unwrap();
    let ps = rep["proposals"].as_array().unwrap();
    assert_eq!(
        html.matches(
            "<form class=\"choose-reading\" method=\"post\" action=\"/spec/proposal/preview\">"
        )
        .count(),
        ps.len()
    );
    for p in ps {
        let id = p["id"].as_str().unwrap();
        let a = article(&html, id);
        for input in [
            "<input type=\"hidden\" name=\"proposals\" value=\"specs/proposals.json\">".to_string(),
            format!("<input type=\"hidden\" name=\"id\" value=\"{id}\">"),
            "<input type=\"hidden\" name=\"csrf\" value=\"tok123\">".to_string(),
        ] {
            assert!(a.contains(&input), "{id}: {input}");
        }
        assert!(a.contains("<button type=\"submit\">Preview this clarification</button>"));
        assert!(a.contains(&format!(
            "<dd class=\"original\">{}</dd>",
            report::html::escape(p["original"].as_str().unwrap())
        )));
        assert!(a.contains(&format!(
            "<dd class=\"clarified\">{}</dd>",
            report::html::escape(p["clarified"].as_str().unwrap())
        )));
        // None converged: no single reading, no formula.
        assert!(a.contains("class=\"no-formula\""));
        assert!(a.contains("not accepted"));
    }
    assert!(html.contains("<span class=\"value\">3</span> proposals"));
    assert!(html.contains("<span class=\"value\">0</span> converged"));
    // R-AIR-2's rewrite failed: the history says why.
    assert!(article(&html, "R-AIR-2")
        .contains("rejected: failed: only 1 of 5 formalizations of this rewrite are valid"));
}

#[test]
fn a_converged_proposal_shows_its_formula() {
    let mut rep = json_fixture("hemodialysis.proposals.json");
    let p = &mut rep["proposals"][2];
    p["converged"] = json!(true);
    p["accepted"] = json!(true);
    p["classes_after"] = json!(1);
    p["formula"] = json!("(=> (> dialysate_temp 41.0) alarm_temp)");
    let html = render_proposals("proposals.json", &rep, "t", &Default::default()).unwrap();
    let a = article(&html, "R-TEMP-1");
    assert!(a.starts_with("<article class=\"proposal converged\""));
    assert!(a.contains("converged to one reading · readings 3 → 1"));
    assert!(
        a.contains("<code class=\"formula\">(=&gt; (&gt; dialysate_temp 41.0) alarm_temp)</code>")
    );
    assert!(html.contains("<span class=\"value\">1</span> converged"));
    // A timed proposal's pattern instead of a formula.
    p_pattern(&mut rep);
    let html = render_proposals("proposals.json", &rep, "t", &Default::default()).unwrap();
    assert!(
        article(&html, "R-TEMP-1").contains("<span class=\"key\">within</span> <code>3 s</code>")
    );
}

fn p_pattern(rep: &mut Value) {
    let p = rep["proposals"][2].as_object_mut().unwrap();
    p.remove("formula");
    p.insert(
        "pattern".into(),
        json!({"when": "(> dialysate_temp 41.0)", "then": "alarm_temp", "within": "3 s"}),
    );
}

#[test]
fn hostile_text_in_ambiguity_reports_is_escaped() {
    let mut rep = json_fixture("hemodialysis.ambiguity.json");
    let r = &mut rep["report"]["requirements"][0];
    r["id"] = json!(HOSTILE);
    r["text"] = json!(HOSTILE);
    r["samples"][2]["answer"] = json!(HOSTILE);
    r["samples"][2]["error"] = json!(HOSTILE);
    let p = &mut r["partition"];
    p["classes"][0]["formula"] = json!(HOSTILE);
    p["classes"][1]["label"] = json!(HOSTILE);
    p["separations"][0]["only_a"]["witness"][0]["variable"] = json!(HOSTILE);
    p["separations"][0]["only_a"]["witness"][0]["value"] = json!(HOSTILE);
    p["separations"][0]["only_a"]["explanation"] = json!(HOSTILE);
    rep["file"] = json!(HOSTILE);
    let html = render_ambiguity(&rep).unwrap();
    assert_escaped(&html);
    // The anchor of a hostile id holds no markup either.
    assert!(html.contains("id=\"req-.3cscript.3ealert.281.29.3c.2fscript.3e.1b.5b31m\""));

    let mut props = json_fixture("hemodialysis.proposals.json");
    props["proposals"][0]["id"] = json!(HOSTILE);
    props["proposals"][0]["clarified"] = json!(HOSTILE);
    props["proposals"][0]["history"][0]["rejected"] = json!(HOSTILE);
    props["proposals"][1]["formula"] = json!(HOSTILE);
    let html = render_proposals(
        HOSTILE,
        &props,
        "\"><script>x</script>",
        &Default::default(),
    )
    .unwrap();
    assert_escaped(&html);
    assert!(html.contains("name=\"csrf\" value=\"&quot;&gt;&lt;script&gt;x&lt;/script&gt;\""));
}

#[test]
fn malformed_ambiguity_payloads_are_errors_not_panics() {
    let rep = json_fixture("hemodialysis.ambiguity.json");
    assert!(matches!(
        render_ambiguity(&json!({"schema": "vera.clarify-run-timed.v1"})),
        Err(ViewError::Schema { .. })
    ));
    assert!(matches!(
        render_proposals("p.json", &rep, "t", &Default::default()),
        Err(ViewError::Schema {
            expected: "vera.clarify.v1",
            ..
        })
    ));
    let mut r = rep.clone();
    r["report"]["requirements"][1]
        .as_object_mut()
        .unwrap()
        .remove("flagged");
    assert_eq!(
        render_ambiguity(&r).unwrap_err().to_string(),
        "report.requirements[1].flagged: missing"
    );
    let mut tried = 0;
    // The first requirement only, to keep the number of variants small.
    let mut small = rep.clone();
    small["report"]["requirements"]
        .as_array_mut()
        .unwrap()
        .truncate(1);
    for_each_variant(&small, &mut |v| {
        tried += 1;
        let _ = render_ambiguity(v);
    });
    let props = json_fixture("hemodialysis.proposals.json");
    for_each_variant(&props, &mut |v| {
        tried += 1;
        let _ = render_proposals("p.json", v, "t", &Default::default());
    });
    let run = json_fixture("hemodialysis.clarify-run.json");
    let mut small = run.clone();
    small["report"]["screening"]["requirements"]
        .as_array_mut()
        .unwrap()
        .truncate(1);
    small["report"]["proposals"]
        .as_array_mut()
        .unwrap()
        .truncate(1);
    for_each_variant(&small, &mut |v| {
        tried += 1;
        let _ = render_ambiguity(v);
    });
    assert!(tried > 500, "{tried}");
}

#[test]
fn timed_readings_and_the_question_trace() {
    let rep = json_fixture("timed-formalize.ambiguity-timed.json");
    let html = render_ambiguity(&rep).unwrap();
    for (k, n) in [
        ("requirements", 2),
        ("flagged", 1),
        ("could_not_screen", 0),
        ("invalid_samples", 1),
        ("undecided", 0),
    ] {
        assert_eq!(ambiguity_count(&html, k), n, "{k}");
        assert_eq!(rep["report"]["summary"][k], n, "{k}");
    }
    for r in rep["report"]["requirements"].as_array().unwrap() {
        let a = article(&html, r["id"].as_str().unwrap());
        let classes = r["classes"].as_array().unwrap();
        assert_eq!(a.matches("<tr class=\"reading\"").count(), classes.len());
        let total: usize = classes
            .iter()
            .map(|c| c["members"].as_array().unwrap().len())
            .sum();
        for c in classes {
            let size = c["members"].as_array().unwrap().len();
            let label = c["label"].as_str().unwrap();
            let i = a.find(&format!("data-class=\"{label}\"")).unwrap();
            let row = &a[i..i + a[i..].find("</tr>").unwrap()];
            assert!(row.contains(&format!("{size} of {total}")), "{row}");
            assert!(row.contains(&report::html::escape(c["reading"].as_str().unwrap())));
            for (k, v) in c["pattern"].as_object().unwrap() {
                let cell = format!(
                    "<span class=\"key\">{k}</span> <code>{}</code>",
                    report::html::escape(v.as_str().unwrap())
                );
                assert!(row.contains(&cell), "{cell}");
            }
        }
        for q in r["questions"].as_array().unwrap() {
            for row in q["timeline"]["rows"].as_array().unwrap() {
                let mut cells = format!(
                    "<tr><td class=\"time\">{} to {}</td>",
                    row["from_time"].as_str().unwrap(),
                    row["to_time"].as_str().unwrap()
                );
                for v in row["values"].as_array().unwrap() {
                    cells.push_str(&format!(
                        "<td class=\"value\">{}</td>",
                        v["value"].as_str().unwrap()
                    ));
                }
                assert!(a.contains(&cells), "{cells}");
            }
        }
    }
    let r1 = article(&html, "R1");
    assert!(r1.starts_with("<article class=\"requirement one-reading\""));
    assert!(r1.contains("3 of 4 samples valid; compared on traces up to step"));
    assert!(r1.contains("is not a whole number of ticks"));
    let r2 = article(&html, "R2");
    assert!(r2.starts_with("<article class=\"requirement flagged\""));
    assert!(r2.contains("<span class=\"members\">(#1 #3)</span>"));
    assert!(r2.contains("<span class=\"members\">(#2 #4)</span>"));
    assert!(r2.contains("<h4>A vs B <span class=\"kinds\">(edge-or-level)</span></h4>"));
    assert!(r2.contains("<th class=\"variable\">no_flow</th><th class=\"variable\">alarm</th>"));
    assert!(r2.contains("On this trace reading A holds; the other is broken at 1 s."));
    // The question's words without its plain-text table.
    assert!(r2.contains("<p class=\"question-text\">Does the requirement apply once"));
    assert!(!r2.contains("0 s to 1 s  true"));

    // Hostile text in a timed report.
    let mut bad = rep.clone();
    let r = &mut bad["report"]["requirements"][1];
    r["classes"][0]["reading"] = json!(HOSTILE);
    r["classes"][0]["pattern"]["then"] = json!(HOSTILE);
    r["questions"][0]["question"] = json!(HOSTILE);
    r["questions"][0]["timeline"]["rows"][0]["values"][0]["variable"] = json!(HOSTILE);
    r["questions"][0]["timeline"]["rows"][1]["values"][1]["value"] = json!(HOSTILE);
    r["undecided"] = json!([[HOSTILE, "B"]]);
    let html = render_ambiguity(&bad).unwrap();
    assert_escaped(&html);
    let mut tried = 0;
    for_each_variant(&rep, &mut |v| {
        tried += 1;
        let _ = render_ambiguity(v);
    });
    assert!(tried > 200, "{tried}");
}
