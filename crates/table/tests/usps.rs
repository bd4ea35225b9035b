//! The USPS retail rate tables of the fees dataset (testdata/fees-dataset/usps, MIT, see
//! its LICENSE): weight steps ("not over") by zone. As published they are complete and
//! unambiguous; with a planted error they are not.

mod common;
use common::*;
use table::{BareMode, Columns, Kind, Options, Table};

const TABLES: &[&str] = &[
    "library-retail-large-envelope-parcel/library-retail-large-envelope-parcel.csv",
    "media-retail-large-envelope-parcel/media-retail-large-envelope-parcel.csv",
    "priority-mail-express-retail/priority-mail-express-retail-nl.csv",
];

#[test]
fn the_published_tables_are_complete_and_unambiguous() {
    for kind in solvers() {
        for name in TABLES {
            let t = read(&usps(name));
            let r = check(&t, &Options::default(), kind);
            assert!(r.is_clean(), "{kind} {name}:\n{}", render(&r));
            assert_eq!(r.inputs.len(), 1, "{name}");
            assert_eq!(r.inputs[0].meaning, "not-over");
            for g in &r.groups {
                assert!(g.gaps_exact, "{name}");
                assert_eq!(
                    g.ranges[0].text.replace(".0", ""),
                    "> 0 and <= 70",
                    "{name}"
                );
            }
        }
        // The wide table: one outcome column per zone.
        let t = read(&usps(TABLES[2]));
        let r = check(&t, &Options::default(), kind);
        assert_eq!(r.outcomes.len(), 9);
        assert_eq!(r.groups.len(), 9);
        assert_eq!(r.groups[0].rows, 71);
    }
}

/// Planted errors in the library rate table: a doubled 5 lb row with another price is a
/// conflict over the step (4, 5]; read as points instead of steps (`--bare point`,
/// as the dataset's own SMT-LIB formalization of the priority-mail table reads it),
/// everything between the listed weights is a gap.
#[test]
fn planted_errors_are_found() {
    let text = std::fs::read_to_string(usps(TABLES[0])).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    lines.insert(6, "5,7.20".into()); // after the row `5,7.10` (line 6)
    let planted = lines.join("\n") + "\n";
    let t = Table::read("planted.csv", planted.as_bytes()).unwrap();
    for kind in solvers() {
        let r = check(&t, &Options::default(), kind);
        let f: Vec<(Kind, &str, Vec<u32>, String)> = r
            .findings
            .iter()
            .map(|f| {
                (
                    f.kind,
                    f.region.text.as_str(),
                    f.rows.clone(),
                    f.witness.0[0].1.clone(),
                )
            })
            .collect();
        assert_eq!(
            f,
            [(
                Kind::Conflict,
                "4 < Weight-Not-Over(lbs.) <= 5",
                vec![6, 7],
                "5".to_string()
            )],
            "{kind}"
        );
        assert_eq!(r.findings[0].values[0].value, "7.10");
        assert_eq!(r.findings[0].values[1].value, "7.20");

        let points = Options {
            columns: Columns {
                bare: Some(BareMode::Point),
                ..Columns::default()
            },
            ranges: table::parse_range("weight not over lbs=0..70").unwrap(),
        };
        let t = read(&usps(TABLES[0]));
        let r = check(&t, &points, kind);
        // [0, 1), (1, 2), ..., (69, 70): 70 gaps.
        assert_eq!(r.groups[0].gaps, 70, "{kind}");
        assert!(r.groups[0].gaps_exact);
        assert_eq!(r.findings[0].region.text, "0 <= Weight-Not-Over(lbs.) < 1");
        assert_eq!(r.findings[1].witness.0[0].1, "1.5");
    }
}
