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

    let bad = SourceFile::new("reqs.csv", "R1,a,(> t 1)\nR1,b,(> x 1)\nR3\n");
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
