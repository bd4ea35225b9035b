//! Bad tables give a clear error or finding with `file:line:col`, never a panic: a
//! malformed interval, similar and doubled keys, an empty group, a 10 MB CSV, a cell
//! the parser cannot read, a file that is not UTF-8, a column name that is not there.

mod common;
use common::*;
use std::time::{Duration, Instant};
use table::{Columns, Options, ProblemKind, Table, TableError};

fn options(keys: &[&str], when: &[&str], then: &[&str]) -> Options {
    let v = |x: &[&str]| (!x.is_empty()).then(|| x.iter().map(|s| s.to_string()).collect());
    Options {
        columns: Columns {
            keys: v(keys),
            when: v(when),
            then: v(then),
            bare: None,
        },
        ranges: vec![],
    }
}

fn first_solver() -> Option<solver::SolverKind> {
    solvers().into_iter().next()
}

#[test]
fn a_file_that_is_not_utf8_is_an_error_at_its_first_bad_byte() {
    let e = Table::read(
        "fees.csv",
        b"product,amount,fee\nCard,0 - 10,1\nCaf\xe9,0 - 10,2\n",
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "fees.csv:3:4: the file is not UTF-8 (invalid byte 0xe9); save it as UTF-8"
    );
}

#[test]
fn an_unclosed_quote_is_an_error_where_it_opens() {
    let e = Table::read("fees.csv", b"a,b\n1,2\n3,\"4\n5,6\n").unwrap_err();
    assert!(
        e.to_string()
            .starts_with("fees.csv:3:3: a quoted cell is never closed"),
        "{e}"
    );
}

/// A cell beyond the header row is never dropped: `X,0 - 100,2,50` (an unquoted
/// decimal comma) would read as fee 2. Every long row is named, at its extra cell; a
/// trailing empty cell is not one.
#[test]
fn a_row_longer_than_the_header_is_an_error_at_its_extra_cell() {
    let e = Table::read(
        "fees.csv",
        b"product,amount,fee\nX,0 - 100,2,50\nX,50 - 200,2.75\nY,0 - 10,1,\nY,10 - 20,\"1,5\",7\n",
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "fees.csv:2:13: the row has 4 cells, the header row 3: `50` is beyond the last column (a decimal comma in an unquoted cell? quote the cell, or write a decimal point)\n\
         fees.csv:5:17: the row has 4 cells, the header row 3: `7` is beyond the last column (a decimal comma in an unquoted cell? quote the cell, or write a decimal point)"
    );
    let t = Table::read("fees.csv", b"product,amount,fee\nY,0 - 10,1,\n").unwrap();
    assert_eq!(t.rows.len(), 1);
}

/// A column named twice for one role is refused (it would make every row contradict
/// itself).
#[test]
fn a_column_named_twice_for_one_role_is_refused() {
    let t = Table::read("fees.csv", b"product,amount,fee\nCard,0 - 10,1\n").unwrap();
    let e =
        table::Layout::resolve(&t, &options(&[], &["amount", "amount"], &[]).columns).unwrap_err();
    assert_eq!(
        e.to_string(),
        "fees.csv:1:1: column `amount` is given twice for --when; name each column once"
    );
    let e = table::Layout::resolve(&t, &options(&[], &[], &["fee", "FEE "]).columns).unwrap_err();
    assert_eq!(
        e.to_string(),
        "fees.csv:1:1: column `fee` is given twice for --then (as `fee` and `FEE `); name each column once"
    );
}

#[test]
fn a_missing_column_names_the_columns_there_are() {
    let t = Table::read("fees.csv", b"product,amount,fee\nCard,0 - 10,1\n").unwrap();
    let Some(kind) = first_solver() else { return };
    let e = table::check(
        &t,
        &options(&["country"], &[], &[]),
        &solver::SolverConfig::new(kind),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "fees.csv:1:1: no column `country` (given for --keys); the columns are `product`, `amount`, `fee`"
    );
    let e =
        table::Layout::resolve(&t, &options(&["amount"], &["amount"], &[]).columns).unwrap_err();
    assert_eq!(
        e.to_string(),
        "fees.csv:1:1: column `amount` is given as both --keys and --when"
    );
    let t = Table::read("names.csv", b"product,country\nCard,US\n").unwrap();
    let e = table::Layout::resolve(&t, &Columns::default()).unwrap_err();
    assert!(matches!(e, TableError::NoOutcome { line: 1, .. }), "{e}");
    let e = table::parse_range("weight=0..").unwrap();
    assert_eq!(e[0].0, "weight");
    let t = Table::read("fees.csv", b"product,amount,fee\nCard,0 - 10,1\n").unwrap();
    let o = Options {
        ranges: table::parse_range("weight=0..10").unwrap(),
        ..Options::default()
    };
    let e = table::check(&t, &o, &solver::SolverConfig::new(kind)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "bad --range `weight`: no input `weight`; the inputs are `amount`"
    );
}

#[test]
fn malformed_cells_are_located_findings() {
    let Some(kind) = first_solver() else { return };
    let csv = "product,amount,fee\nCard,50.00 -- 500.00,1\nCard,> ,2\nCard,1 - 2,3.49% +\nCard,\"12,5\",1\nCard,3 - 4,\"=IF(A2>5,1,2)\"\n";
    let t = Table::read("fees.csv", csv.as_bytes()).unwrap();
    let r = check(&t, &options(&["product"], &["amount"], &["fee"]), kind);
    let at: Vec<(ProblemKind, u32, Option<u32>)> = r
        .problems
        .iter()
        .map(|p| (p.kind, p.line, p.column))
        .collect();
    assert_eq!(
        at,
        [
            (ProblemKind::EmptyGroup, 2, None),
            (ProblemKind::Unreadable, 2, Some(6)),
            (ProblemKind::Unreadable, 3, Some(8)),
            (ProblemKind::Unreadable, 4, Some(19)),
            (ProblemKind::Unreadable, 5, Some(9)),
            (ProblemKind::Unreadable, 6, Some(16)),
        ],
        "{}",
        render(&r)
    );
    assert!(r.findings.is_empty());
    insta::assert_snapshot!("malformed_cells", render(&r));
}

#[test]
fn similar_and_doubled_keys() {
    let Some(kind) = first_solver() else { return };
    let csv = "product,country,amount,fee\nCard,US,0 - 10,1\nCard,US ,10 - 20,2\ncard,us,0 - 20,1\nCard,U.S.,0 - 20,1\nCard,US,0 - 10,1\n";
    let t = Table::read("keys.csv", csv.as_bytes()).unwrap();
    let r = check(&t, &Options::default(), kind);
    // `US ` is `US` (cells are trimmed); `us` and `U.S.` are reported as similar.
    let similar: Vec<(u32, Vec<u32>)> = r
        .problems
        .iter()
        .filter(|p| p.kind == ProblemKind::SimilarKeys)
        .map(|p| (p.line, p.lines.clone()))
        .collect();
    assert_eq!(
        similar,
        [(4, vec![2, 4]), (4, vec![2, 4, 5])],
        "{}",
        render(&r)
    );
    // The doubled row overlaps its twin; 10 is in both of the first two rows.
    let kinds: Vec<(table::Kind, Vec<u32>)> = r
        .findings
        .iter()
        .map(|f| (f.kind, f.rows.clone()))
        .collect();
    assert_eq!(
        kinds,
        [
            (table::Kind::Conflict, vec![2, 3]),
            (table::Kind::Overlap, vec![2, 6]),
            (table::Kind::Conflict, vec![3, 6]),
        ],
        "{}",
        render(&r)
    );
}

#[test]
fn an_empty_group_is_a_finding() {
    let Some(kind) = first_solver() else { return };
    let csv = "product,amount,fee\nCard,0 - 10,1\nGift,0 - 10,\nGift,oops,2\n";
    let t = Table::read("empty.csv", csv.as_bytes()).unwrap();
    let r = check(&t, &Options::default(), kind);
    let empty: Vec<&table::Problem> = r
        .problems
        .iter()
        .filter(|p| p.kind == ProblemKind::EmptyGroup)
        .collect();
    assert_eq!(empty.len(), 1, "{}", render(&r));
    assert_eq!((empty[0].line, empty[0].lines.clone()), (3, vec![3, 4]));
    assert!(empty[0].message.contains("product=Gift"));
}

#[test]
fn a_ten_megabyte_table_is_checked_or_refused_quickly() {
    let Some(kind) = first_solver() else { return };
    // 1. Ten megabytes of rows: more rows than the reader takes, refused at the first
    //    row over the limit.
    let mut csv = String::from("product,amount,fee,note\n");
    let mut i = 0u64;
    while csv.len() < 10 << 20 {
        csv.push_str(&format!(
            "P{},{} - {},1,{}\n",
            i % 50,
            i,
            i + 1,
            "x".repeat(60)
        ));
        i += 1;
    }
    let start = Instant::now();
    let e = Table::read("big.csv", csv.as_bytes()).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("big.csv:{}:1: the table has more than 100000 rows; split it (by key) into several files", table::model::MAX_ROWS + 2)
    );
    assert!(start.elapsed() < Duration::from_secs(20));
    // 2. Ten megabytes in fewer, wider rows: read and checked (the notes column is
    //    text with no role once the keys are given).
    let mut csv = String::from("product,amount,fee,note\n");
    let mut i = 0u64;
    while csv.len() < 10 << 20 {
        csv.push_str(&format!(
            "P{},{} - {},{},{}\n",
            i % 4,
            i,
            i + 1,
            i % 3,
            "note ".repeat(400)
        ));
        i += 1;
    }
    let start = Instant::now();
    let t = Table::read("wide.csv", csv.as_bytes()).unwrap();
    let r = check(&t, &options(&["product"], &["amount"], &["fee"]), kind);
    assert_eq!(r.groups.len(), 4);
    assert!(r.problems.is_empty());
    // Each group has the rows i, i+4, ...: gaps between them.
    assert!(
        r.groups
            .iter()
            .all(|g| !g.gaps_exact && g.gaps == table::analyze::MAX_FINDINGS && g.truncated),
        "{}",
        render(&r)
    );
    assert!(r.undecided.is_empty());
    assert!(
        start.elapsed() < Duration::from_secs(120),
        "{:?}",
        start.elapsed()
    );
    // 3. One cell of ten megabytes: an unreadable cell, shown cut.
    let csv = format!(
        "product,amount,fee\nCard,0 - 10,{}\nCard,10 - 20,2\n",
        "9".repeat(10 << 20)
    );
    let t = Table::read("cell.csv", csv.as_bytes()).unwrap();
    let r = check(&t, &Options::default(), kind);
    assert_eq!(r.problems.len(), 1, "{}", render(&r));
    let p = &r.problems[0];
    assert_eq!(
        (p.kind, p.line, p.column),
        (ProblemKind::Unreadable, 2, Some(13 + 500))
    );
    assert!(p.message.len() < 400, "{}", p.message);
}

/// A table of keys and outcomes only: a key that occurs twice is a conflict (different
/// outcomes) or an overlap (the same), holding for every input.
#[test]
fn doubled_keys_without_conditions() {
    let Some(kind) = first_solver() else { return };
    let t = Table::read(
        "keys.csv",
        b"product,country,fee\nA,US,1\nA,US,2\nB,US,1\nB,US,1.00\nA,CA,1\n",
    )
    .unwrap();
    let r = check(&t, &Options::default(), kind);
    assert!(r.inputs.is_empty());
    let f: Vec<(table::Kind, &str, Vec<u32>)> = r
        .findings
        .iter()
        .map(|f| (f.kind, f.region.text.as_str(), f.rows.clone()))
        .collect();
    assert_eq!(
        f,
        [
            (
                table::Kind::Conflict,
                "always (the table has no numeric input)",
                vec![2, 3]
            ),
            (
                table::Kind::Overlap,
                "always (the table has no numeric input)",
                vec![4, 5]
            ),
        ]
    );
    assert_eq!(r.findings[0].region.smt, "true");
}
