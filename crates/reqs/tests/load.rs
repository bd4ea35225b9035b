//! Bad spec files: every problem reported at once with file:line:col (golden files).
//! Bless intended changes with `INSTA_UPDATE=always cargo test -p reqs`.

use logic::SourceFile;

fn errors(text: &str) -> String {
    match reqs::parse_spec(SourceFile::new("spec.toml", text)) {
        Ok(_) => panic!("expected errors"),
        Err(d) => d.to_string(),
    }
}

fn warnings(text: &str) -> String {
    reqs::parse_spec(SourceFile::new("spec.toml", text))
        .unwrap_or_else(|d| panic!("{d}"))
        .warnings
        .to_string()
}

#[test]
fn toml_syntax_error() {
    insta::assert_snapshot!(errors("[spec]\nname = \"x\"\n[[variables]\nname = \"a\"\n"));
}

#[test]
fn unknown_field() {
    insta::assert_snapshot!(errors(
        "[[variables]]\nname = \"a\"\nsort = \"Int\"\nunits = \"mL\"\n"
    ));
}

#[test]
fn every_schema_and_formula_problem_at_once() {
    insta::assert_snapshot!(errors(
        r#"[[enums]]
name = "Mode"
values = ["Idle", "Run", "Idle"]

[[variables]]
name = "rate"
sort = "Real"
min = 10
max = 5

[[variables]]
name = "flag"
sort = "Bool"
min = 0

[[variables]]
name = "mode"
sort = "Modes"

[[variables]]
name = "count"
sort = "Int"
max = 2.5

[[requirements]]
id = "R1"
text = "rate is positive"
formula = "(> rat 0)"

[[requirements]]
id = "R1"
text = "duplicate"
formula = "(> rate 0)"

[[requirements]]
id = "R2"
text = "not a formula"
formula = "(+ rate 1)"

[[requirements]]
id = "R3"
text = "unbalanced"
formula = "(and flag (> rate 1)"

[[requirements]]
id = "R4"
text = "mistyped"
formula = "(=> flag (= rate Idle))"
"#
    ));
}

#[test]
fn warnings_for_unused_variables_and_unformalized_requirements() {
    insta::assert_snapshot!(warnings(
        "[[variables]]\nname = \"a\"\nsort = \"Int\"\n\n[[variables]]\nname = \"b\"\nsort = \"Bool\"\n\n\
         [[requirements]]\nid = \"R1\"\ntext = \"b holds\"\nformula = \"b\"\n\n\
         [[requirements]]\nid = \"R2\"\ntext = \"to be written\"\n"
    ));
}

#[test]
fn multiline_formula_errors_point_into_the_formula() {
    let text = "[[variables]]\nname = \"a\"\nsort = \"Int\"\n[[requirements]]\nid = \"R1\"\ntext = \"t\"\nformula = '''\n(and (> a 1)\n     (< b 2))'''\n";
    let e = errors(text);
    assert!(
        e.starts_with("spec.toml:9:9: error: undeclared symbol `b`"),
        "{e}"
    );
}

#[test]
fn csv_requirements_over_a_schema() {
    let schema = SourceFile::new(
        "schema.toml",
        "[[variables]]\nname = \"t\"\nsort = \"Real\"\n[[variables]]\nname = \"alarm\"\nsort = \"Bool\"\n",
    );
    let csv = SourceFile::new(
        "reqs.csv",
        "id,text,formula\nR1,\"If hot, alarm.\",\"(=> (> t 40) alarm)\"\nR2,Display the time,\n",
    );
    let spec = reqs::spec::parse_csv(schema.clone(), &csv).unwrap();
    assert_eq!(spec.requirements.len(), 2);
    assert!(spec.requirements[0].is_conditional());
    assert_eq!(spec.requirements[0].text, "If hot, alarm.");
    assert_eq!(spec.requirements[0].line, 2);
    assert!(spec.requirements[1].formula.is_none());
    assert!(spec
        .warnings
        .to_string()
        .contains("reqs.csv:3:1: warning: requirement `R2` is not formalized"));

    let bad = SourceFile::new(
        "reqs.csv",
        "id,text,formula\nR1,a,(> t 1)\nR1,b,(> x 1)\nR3\n",
    );
    let e = reqs::spec::parse_csv(schema, &bad).unwrap_err().to_string();
    insta::assert_snapshot!(e);
}

#[test]
fn csv_rows_with_crlf_line_ends_are_located_on_their_own_line() {
    // Spreadsheet exports end rows with CRLF.
    let schema = SourceFile::new(
        "schema.toml",
        "[[variables]]\nname = \"t\"\nsort = \"Real\"\n",
    );
    let csv = SourceFile::new(
        "reqs.csv",
        "id,text\r\nR1,The heater shall stop above 40 degC.\r\nR2,\"If cold, heat.\"\r\n",
    );
    let spec = reqs::spec::parse_csv(schema, &csv).unwrap();
    let w = spec.warnings.to_string();
    assert!(
        w.contains("reqs.csv:2:1: warning: requirement `R1` is not formalized"),
        "{w}"
    );
    assert!(
        w.contains("reqs.csv:3:1: warning: requirement `R2` is not formalized"),
        "{w}"
    );
    assert_eq!(spec.requirements[0].line, 2);
    assert_eq!(spec.requirements[1].line, 3);
}

#[test]
fn csv_quote_that_swallows_rows_is_a_located_error() {
    let schema = SourceFile::new("s.toml", "[[variables]]\nname = \"x\"\nsort = \"Int\"\n");
    // Closed nowhere: the field would run to the end of the file.
    let open = SourceFile::new("r.csv", "id,text,formula\nR1,\"x is big,(> x 1)\n");
    let e = reqs::spec::parse_csv(schema.clone(), &open)
        .unwrap_err()
        .to_string();
    assert!(e.contains("r.csv:2:4: error: unterminated quote"), "{e}");
    // Closed only by a later row's quote: R2 would vanish into R1's text.
    let swallow = SourceFile::new(
        "r.csv",
        "id,text,formula\nR1,\"x is big,(> x 1)\nR2,\"x is small\",(< x 9)\n",
    );
    let e = reqs::spec::parse_csv(schema.clone(), &swallow)
        .unwrap_err()
        .to_string();
    assert!(e.contains("r.csv:2:4: error"), "{e}");
    assert!(e.contains("swallows the row `R2`"), "{e}");
    // A quoted text over several lines, with a doubled quote, is fine.
    let multi = SourceFile::new(
        "r.csv",
        "id,text,formula\nR1,\"x is big,\nsaid the \"\"spec\"\"\",(> x 1)\nR2,small,(< x 9)\n",
    );
    let spec = reqs::spec::parse_csv(schema, &multi).unwrap();
    assert_eq!(spec.requirements.len(), 2);
    assert!(spec.requirements[0].text.contains("\"spec\""));
}

fn csv_schema() -> SourceFile {
    SourceFile::new(
        "schema.toml",
        "[[variables]]\nname = \"temp\"\nsort = \"Real\"\n[[variables]]\nname = \"alarm\"\nsort = \"Bool\"\n",
    )
}

/// A Hanfor-style export (written for this test): `ID,Description,Formal Text,Type,...`,
/// with heading and information rows among the requirements.
#[test]
fn hanfor_export_is_read_by_its_header_names() {
    let csv = SourceFile::new(
        "hanfor.csv",
        "ID,Description,Formal Text,Type,Tags,Status\n\
         H1,Temperature monitoring,,Heading,,\n\
         REQ-1,\"If the temperature exceeds 40, the alarm shall be raised.\",\"Globally, it is always the case that if \"\"temp > 40\"\" holds, then \"\"alarm\"\" holds\",requirement,safety,review\n\
         I1,This section describes the alarm.,,Information,,\n\
         REQ-2,The alarm shall be silent below 10 degrees.,,requirement,,\n",
    );
    let spec = reqs::spec::parse_csv(csv_schema(), &csv).unwrap();
    let ids: Vec<&str> = spec.requirements.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["REQ-1", "REQ-2"]);
    assert_eq!(
        spec.requirements[0].text,
        "If the temperature exceeds 40, the alarm shall be raised."
    );
    assert_eq!(spec.requirements[0].line, 3);
    assert_eq!(spec.requirements[1].line, 5);
    // Hanfor's formal text is its own notation: not read as SMT-LIB, and said so.
    assert!(spec.requirements.iter().all(|r| r.formula.is_none()));
    insta::assert_snapshot!(spec.warnings.to_string());
}

/// A DOORS-style export (written for this test): `ID,Object Heading,Object Text,...`;
/// heading objects have a heading and no text.
#[test]
fn doors_export_is_read_by_its_header_names() {
    let csv = SourceFile::new(
        "doors.csv",
        "\u{feff}ID,Object Heading,Object Text,Object Type,SMT\r\n\
         SRS-1,1 Alarms,,,\r\n\
         SRS-2,,The alarm shall sound above 40 degrees.,Requirement,(=> (> temp 40) alarm)\r\n\
         SRS-3,,Alarms are logged.,Info,\r\n\
         SRS-4,,The alarm shall be off below 10 degrees.,Requirement,(=> (< temp 10) (not alarm))\r\n",
    );
    let spec = reqs::spec::parse_csv(csv_schema(), &csv).unwrap();
    let ids: Vec<&str> = spec.requirements.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["SRS-2", "SRS-4"]);
    assert!(spec.requirements.iter().all(|r| r.is_conditional()));
    assert_eq!(spec.requirements[1].line, 5);
    insta::assert_snapshot!(spec.warnings.to_string());
}

#[test]
fn other_layouts_are_read_with_a_column_mapping() {
    let csv = SourceFile::new(
        "other.csv",
        "Prio,ReqID,Body,SMT\nhigh,A-1,The alarm shall sound above 40.,(=> (> temp 40) alarm)\nlow,A-2,Quiet when cold.,(=> (< temp 10) (not alarm))\n",
    );
    let columns: reqs::CsvColumns = "id=ReqID, text=body".parse().unwrap();
    let spec = reqs::spec::parse_csv_with(csv_schema(), &csv, &columns).unwrap();
    assert_eq!(spec.requirements.len(), 2);
    assert_eq!(spec.requirements[0].id, "A-1");
    assert_eq!(spec.requirements[0].text, "The alarm shall sound above 40.");
    assert!(spec.requirements[0].formula.is_some());
    // Errors about a row point at its id cell, on its own line.
    let bad = SourceFile::new(
        "other.csv",
        "Prio,ReqID,Body,SMT\nhigh,A-1,Loud.,(> tmp 40)\n",
    );
    let e = reqs::spec::parse_csv_with(csv_schema(), &bad, &columns)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("other.csv:2:6: error: A-1: undeclared symbol `tmp`"),
        "{e}"
    );
    // One column cannot be both the id and the text.
    let same: reqs::CsvColumns = "text=ReqID".parse().unwrap();
    let e = reqs::spec::parse_csv_with(csv_schema(), &csv, &same)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with(
            "other.csv:1:1: error: the id and the text would both be read from column `ReqID`"
        ),
        "{e}"
    );
    for wrong in ["", "id", "id=", "row=X", "id=A,id=B"] {
        assert!(wrong.parse::<reqs::CsvColumns>().is_err(), "{wrong}");
    }
}

#[test]
fn an_unrecognized_layout_is_one_error_naming_the_headers_and_the_flag() {
    let many_rows: String = (1..=50)
        .map(|i| format!("A-{i},Text {i},(> temp {i})\n"))
        .collect();
    let csv = SourceFile::new("other.csv", format!("ReqNo,Body,Logic\n{many_rows}"));
    let e = reqs::spec::parse_csv(csv_schema(), &csv).unwrap_err();
    assert_eq!(e.0.len(), 1, "{e}");
    insta::assert_snapshot!(e.to_string());
    // A file without a header row: its first row is shown as what was found.
    let bare = SourceFile::new("bare.csv", "R1,The alarm sounds.,alarm\n");
    let e = reqs::spec::parse_csv(csv_schema(), &bare).unwrap_err();
    assert_eq!(e.0.len(), 1, "{e}");
    let e = e.to_string();
    assert!(
        e.starts_with("bare.csv:1:1: error: cannot tell which columns hold the requirement ids and texts: the first row should name the columns, and it has `R1`, `The alarm sounds.`, `alarm`"),
        "{e}"
    );
    assert!(e.contains("--csv-columns"), "{e}");
    // A mapping that names a column the file does not have.
    let csv = SourceFile::new("other.csv", "ReqNo,Body\nA-1,Loud.\n");
    let columns: reqs::CsvColumns = "id=ReqNo,text=Text Body".parse().unwrap();
    let e = reqs::spec::parse_csv_with(csv_schema(), &csv, &columns)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("other.csv:1:1: error: --csv-columns names `Text Body` as the text column, but the header row has `ReqNo`, `Body`"),
        "{e}"
    );
}

const REVIEWED: &str = r#"[[variables]]
name = "a"
sort = "Int"

[[requirements]]
id = "R1"
text = "a stays below 5"
formula = "(< a 5)"

[[reviews]]
requirement = "R1"
finding = "redundant"
reason = "kept on purpose"
reviewed_by = "J. T"
date = "2026-12-04"
"#;

#[test]
fn reviews_are_read_with_their_line() {
    let spec = reqs::parse_spec(SourceFile::new("spec.toml", REVIEWED)).unwrap();
    assert_eq!(spec.reviews.len(), 1);
    let r = &spec.reviews[0];
    assert_eq!(
        (
            r.requirement.as_str(),
            r.finding.as_str(),
            r.reviewed_by.as_str(),
            r.line
        ),
        ("R1", "redundant", "J. T", 11)
    );
}

#[test]
fn every_review_problem_at_once() {
    let bad = REVIEWED
        .replace("requirement = \"R1\"", "requirement = \"R9\"")
        .replace("\"redundant\"", "\"conflict\"")
        .replace("\"kept on purpose\"", "\" \"")
        .replace("2026-12-04", "2026-13-04");
    let e = errors(&bad);
    for want in [
        "spec.toml:11:15: error: no requirement `R9` to review",
        "spec.toml:12:11: error: `conflict` is not a finding that can be reviewed",
        "spec.toml:13:10: error: empty",
        "spec.toml:15:8: error: `2026-13-04` is not a date",
    ] {
        assert!(e.contains(want), "missing {want:?} in:\n{e}");
    }
}

#[test]
fn a_review_date_must_be_a_day_of_the_calendar() {
    for (date, ok) in [
        ("2024-02-29", true),
        ("2000-02-29", true),
        ("2024-12-31", true),
        ("2024-02-30", false),
        ("2023-02-29", false),
        ("1900-02-29", false),
        ("2024-04-31", false),
        ("2024-00-10", false),
        ("2024-01-00", false),
        ("2024-1-01", false),
    ] {
        let text = REVIEWED.replace("2026-12-04", date);
        let got = reqs::parse_spec(SourceFile::new("spec.toml", text.as_str()));
        assert_eq!(got.is_ok(), ok, "{date}");
        assert_eq!(reqs::spec::is_calendar_date(date), ok, "{date}");
        if !ok {
            let e = errors(&text);
            assert!(
                e.contains(&format!("spec.toml:15:8: error: `{date}` is not a date")),
                "{e}"
            );
        }
    }
}
