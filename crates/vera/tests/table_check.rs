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

const USPS: &str = "testdata/fees-dataset/usps";

/// `vera table smt`: one guarded clause per cell with its line, then the domain.
#[test]
fn a_table_prints_as_flat_guarded_clauses() {
    let (code, out, err) = vera(&[
        "table",
        "smt",
        &format!(
            "{USPS}/library-retail-large-envelope-parcel/library-retail-large-envelope-parcel.csv"
        ),
        "--name",
        "Weight-Not-Over(lbs.)=w",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("(declare-const w Real)"), "{out}");
    assert!(
        out.contains("(assert (=> (and (< 1.0 w) (<= w 2.0)) (= single_piece 4.96))) ; line 3"),
        "{out}"
    );
    assert_eq!(out.matches("(assert (=>").count(), 70, "{out}");
    // No clause nests deeper than its guard, whatever the number of rows.
    let deepest = out
        .lines()
        .map(|l| {
            let mut d = 0i32;
            let mut m = 0;
            for c in l.chars() {
                d += match c {
                    '(' => 1,
                    ')' => -1,
                    _ => 0,
                };
                m = m.max(d);
            }
            m
        })
        .max()
        .unwrap();
    assert!(deepest <= 5, "{deepest}");
    // A table with several outcome columns needs --then or --by.
    let (code, _, err) = vera(&[
        "table",
        "smt",
        &format!("{USPS}/priority-mail-express-retail/priority-mail-express-retail-nl.csv"),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("has 9 outcome columns"), "{err}");
    assert!(err.contains("--by"), "{err}");
}

/// The USPS tables against their BL programs, with both solvers: the library table
/// agrees with its program; the priority table read as weight steps does not (the
/// program charges `max` between the listed weights), and read as points it has gaps
/// inside its range, which the check reports as inputs with no output.
#[test]
fn a_table_is_one_side_of_a_consistency_check() {
    for s in solvers() {
        let d = format!("{USPS}/library-retail-large-envelope-parcel");
        let (code, out, err) = vera(&[
            "consistency",
            "--table",
            &format!("{d}/library-retail-large-envelope-parcel.csv"),
            "--name",
            "Weight-Not-Over(lbs.)=w",
            "--impl",
            &format!("{d}/library-retail-large-envelope-parcel.bl"),
            "--solver",
            s,
            "--format",
            "json",
        ]);
        assert_eq!(code, 0, "{s}: {out}{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["report"]["verdict"], "consistent", "{s}");
        assert_eq!(v["report"]["assumptions"][0], "table_rows_w", "{s}");

        let d = format!("{USPS}/priority-mail-express-retail");
        let table = format!("{d}/priority-mail-express-retail-nl.csv");
        let program = format!("{d}/priority-mail-express-retail-bl.bl");
        let (code, out, err) = vera(&[
            "consistency",
            "--table",
            &table,
            "--by",
            "zone",
            "--name",
            "Weight=weight",
            "--impl",
            &program,
            "--solver",
            s,
        ]);
        assert_eq!(code, 1, "{s}: {out}{err}");
        assert!(out.contains("[Inconsistency Found]"), "{s}: {out}");
        let (code, out, err) = vera(&[
            "consistency",
            "--table",
            &table,
            "--by",
            "zone",
            "--bare",
            "point",
            "--name",
            "Weight=weight",
            "--impl",
            &program,
            "--solver",
            s,
        ]);
        assert_eq!(code, 2, "{s}: {out}{err}");
        assert!(
            out.contains("has no solution for the allowed input"),
            "{s}: {out}"
        );
    }
    // Table options without a table are an error, not ignored.
    let (code, _, err) = vera(&["consistency", "--by", "zone", "--impl", "x.bl"]);
    assert_eq!(code, 2);
    assert!(err.contains("give it with --table"), "{err}");
}

/// `X,0 - 100,2,50`: an unquoted decimal comma makes a fourth cell, which used to be
/// dropped (fee 2, so the conflict of 2.50 with 2.75 passed for a harmless overlap with
/// "0 cell problems"). A row longer than the header is an error at its extra cell.
#[test]
fn a_row_longer_than_the_header_is_refused_where_it_is() {
    let t = tempfile::tempdir().unwrap();
    let csv = t.path().join("fees.csv");
    std::fs::write(
        &csv,
        "product,amount,fee\nX,0 - 100,2,50\nX,50 - 200,2.75\n",
    )
    .unwrap();
    let path = csv.display().to_string();
    let (code, out, err) = vera(&["table", "check", &path]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains(&format!(
            "{path}:2:13: the row has 4 cells, the header row 3: `50` is beyond the last column"
        )),
        "{err}"
    );
    // Quoted, the cell is one amount and the conflict is found.
    std::fs::write(
        &csv,
        "product,amount,fee\nX,0 - 100,\"2,50\"\nX,50 - 200,2.75\n",
    )
    .unwrap();
    let (code, out, err) = vera(&["table", "check", &path]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("conflict"), "{out}");
}

/// `--when amount,amount`: one column named twice would be two inputs that are one,
/// and every row a contradiction; it is refused.
#[test]
fn a_column_named_twice_is_refused() {
    let (code, out, err) = vera(&[
        "table",
        "check",
        "crates/table/testdata/fees.csv",
        "--when",
        "amount,amount",
    ]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    assert_eq!(
        err.trim(),
        "error: crates/table/testdata/fees.csv:1:1: column `amount` is given twice for --when; name each column once"
    );
}

/// A table saved as UTF-16 (with a byte-order mark, as spreadsheets' "Unicode text"
/// writes it) is read as its text, with a note saying so: the same report as for UTF-8.
#[test]
fn a_utf16_table_is_read() {
    let t = tempfile::tempdir().unwrap();
    let csv =
        std::fs::read_to_string(common::root().join("crates/table/testdata/fees.csv")).unwrap();
    let mut bytes = vec![0xFF, 0xFE];
    bytes.extend(csv.encode_utf16().flat_map(u16::to_le_bytes));
    let path = t.path().join("fees.csv");
    std::fs::write(&path, bytes).unwrap();
    let p = path.display().to_string();
    let (code, out, err) = vera(&["table", "check", &p]);
    let (code8, out8, _) = vera(&["table", "check", "crates/table/testdata/fees.csv"]);
    assert_eq!(code, code8, "{err}");
    assert!(
        err.contains(&format!("note: {p} is UTF-16LE text; read as such")),
        "{err}"
    );
    assert_eq!(
        text(&out.replace(&p, "crates/table/testdata/fees.csv")),
        text(&out8)
    );
}
