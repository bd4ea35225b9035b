//! `vera table check` end to end: the terminal text (golden), exit codes 0, 1 and 2, and
//! bad input reported with its location, with z3 and cvc5.

mod common;
use common::vera;

fn solvers() -> Vec<&'static str> {
    ["z3", "cvc5"]
        .into_iter()
        .filter(|s| {
            std::process::Command::new(s)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .collect()
}

/// The text without the solver's version (the last line names it).
fn text(out: &str) -> String {
    let mut lines: Vec<&str> = out.lines().collect();
    let last = lines.pop().unwrap_or_default();
    let last = last.split(" (").next().unwrap_or_default();
    lines.push(last);
    lines.join("\n") + "\n"
}

#[test]
fn findings_are_shown_per_group_with_witnesses_and_rows() {
    let mut first: Option<String> = None;
    for s in solvers() {
        let (code, out, err) = vera(&[
            "table",
            "check",
            "crates/table/testdata/fees.csv",
            "--solver",
            s,
        ]);
        assert_eq!(code, 1, "{err}");
        let out = text(&out);
        match &first {
            None => {
                insta::assert_snapshot!("fees_human", out);
                first = Some(out);
            }
            Some(f) => assert_eq!(*f, out, "{s}"),
        }
        let (code, out, err) = vera(&[
            "table",
            "check",
            "crates/table/testdata/bad.csv",
            "--solver",
            s,
        ]);
        assert_eq!(code, 1, "{err}");
        assert!(
            out.contains("crates/table/testdata/bad.csv:2:11: unreadable cell: cannot read `10 -` in column `amount`: expected a number"),
            "{out}"
        );
        assert!(
            out.contains("empty group: group product=Gift: no row could be read"),
            "{out}"
        );
    }
}

#[test]
fn a_complete_table_exits_0() {
    for s in solvers() {
        let (code, out, err) = vera(&[
            "table",
            "check",
            "testdata/fees-dataset/usps/media-retail-large-envelope-parcel/media-retail-large-envelope-parcel.csv",
            "--solver",
            s,
        ]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains("(all rows) (line 2, 70 rows; Weight-Not-Over(lbs.) in > 0 and <= 70 (rows)): complete and unambiguous"), "{out}");
    }
}

#[test]
fn bad_input_exits_2_with_its_location() {
    let (code, out, err) = vera(&[
        "table",
        "check",
        "crates/table/testdata/fees.csv",
        "--when",
        "price",
    ]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert_eq!(
        err.trim(),
        "error: crates/table/testdata/fees.csv:1:1: no column `price` (given for --when); the columns are `product`, `country`, `currency`, `amount`, `fee`"
    );
    let (code, _, err) = vera(&[
        "table",
        "check",
        "crates/table/testdata/fees.csv",
        "--range",
        "amount=9..1",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("bad --range `amount=9..1`: the range is empty"),
        "{err}"
    );
    let (code, _, err) = vera(&["table", "check", "crates/table/testdata/none.csv"]);
    assert_eq!(code, 2);
    assert!(err.contains("none.csv"), "{err}");
    let (code, _, err) = vera(&[
        "table",
        "check",
        "crates/table/testdata/fees.csv",
        "--bare",
        "sometimes",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("expected not-over, at-least or point"),
        "{err}"
    );
}
