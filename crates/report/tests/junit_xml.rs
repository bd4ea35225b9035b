//! Reads the JUnit rendering back with a real XML parser and checks counts, attributes
//! and the round trip of awkward text; one representative document is a golden snapshot.

use report::{Case, Outcome, Suite};

fn case(name: &str, outcome: Outcome) -> Case {
    Case {
        name: name.into(),
        class: "vera.ask".into(),
        outcome,
        seconds: Some(0.25),
        output: None,
    }
}

fn representative() -> Vec<Suite> {
    vec![
        Suite {
            name: "questions.yaml".into(),
            file: Some("specs/questions.yaml".into()),
            cases: vec![
                Case {
                    output: Some("answer: yes".into()),
                    ..case("Q1", Outcome::Passed)
                },
                case(
                    "Q2",
                    Outcome::Failed {
                        message: "expected no, got yes".into(),
                        detail: "counterexample:\n  income = 50000\n  rate = 0.15".into(),
                    },
                ),
                case(
                    "Q3",
                    Outcome::Error {
                        message: "solver answered unknown".into(),
                        detail: "z3: timeout after 10s".into(),
                    },
                ),
                case(
                    "Q4",
                    Outcome::Skipped {
                        message: "needs a C compiler".into(),
                    },
                ),
            ],
        },
        Suite {
            name: "consistency".into(),
            file: None,
            cases: vec![Case {
                seconds: None,
                ..case("batch-1", Outcome::Passed)
            }],
        },
    ]
}

fn attr<'a>(n: roxmltree::Node<'a, '_>, name: &str) -> &'a str {
    n.attribute(name)
        .unwrap_or_else(|| panic!("<{}> has no {name}", n.tag_name().name()))
}

fn child<'a, 'i>(c: roxmltree::Node<'a, 'i>, tag: &str) -> roxmltree::Node<'a, 'i> {
    c.children()
        .find(|n| n.has_tag_name(tag))
        .unwrap_or_else(|| panic!("no <{tag}>"))
}

#[test]
fn counts_and_attributes_read_back() {
    let xml = report::junit::render(&representative());
    let doc = roxmltree::Document::parse(&xml).expect("well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    assert_eq!(attr(root, "tests"), "5");
    assert_eq!(attr(root, "failures"), "1");
    assert_eq!(attr(root, "errors"), "1");
    assert_eq!(attr(root, "skipped"), "1");
    assert_eq!(attr(root, "time"), "1.000");

    let suites: Vec<_> = root.children().filter(|n| n.is_element()).collect();
    assert_eq!(suites.len(), 2);
    let s = suites[0];
    assert_eq!(s.tag_name().name(), "testsuite");
    assert_eq!(attr(s, "name"), "questions.yaml");
    assert_eq!(attr(s, "tests"), "4");
    assert_eq!(attr(s, "failures"), "1");
    assert_eq!(attr(s, "errors"), "1");
    assert_eq!(attr(s, "skipped"), "1");
    assert_eq!(attr(s, "time"), "1.000");
    assert_eq!(attr(suites[1], "tests"), "1");
    assert_eq!(attr(suites[1], "time"), "0.000");

    let cases: Vec<_> = s.children().filter(|n| n.is_element()).collect();
    assert_eq!(cases.len(), 4);
    for c in &cases {
        assert_eq!(c.tag_name().name(), "testcase");
        assert_eq!(attr(*c, "classname"), "vera.ask");
        assert_eq!(attr(*c, "time"), "0.250");
        assert_eq!(attr(*c, "file"), "specs/questions.yaml");
    }
    assert_eq!(child(cases[0], "system-out").text(), Some("answer: yes"));
    let failure = child(cases[1], "failure");
    assert_eq!(attr(failure, "message"), "expected no, got yes");
    assert_eq!(attr(failure, "type"), "failure");
    assert_eq!(
        failure.text(),
        Some("counterexample:\n  income = 50000\n  rate = 0.15")
    );
    let error = child(cases[2], "error");
    assert_eq!(attr(error, "message"), "solver answered unknown");
    assert_eq!(error.text(), Some("z3: timeout after 10s"));
    assert_eq!(
        attr(child(cases[3], "skipped"), "message"),
        "needs a C compiler"
    );
    // A passed case without output is an empty element.
    let batch = suites[1].children().find(|n| n.is_element()).unwrap();
    assert!(batch.children().next().is_none());
}

#[test]
fn awkward_text_round_trips() {
    let nasty = "a<b & \"c\" 'd' ]]> e\u{0}f\u{7}g\u{1F} 🚀 ünï\tx\r\ny";
    // What a reader gets back: the forbidden controls as control pictures.
    let expected = "a<b & \"c\" 'd' ]]> e\u{2400}f\u{2407}g\u{241F} 🚀 ünï\tx\r\ny";
    let suites = vec![Suite {
        name: nasty.into(),
        file: Some(nasty.into()),
        cases: vec![
            Case {
                name: nasty.into(),
                class: nasty.into(),
                outcome: Outcome::Failed {
                    message: nasty.into(),
                    detail: nasty.into(),
                },
                seconds: Some(1.0),
                output: Some(nasty.into()),
            },
            Case {
                name: "skip".into(),
                class: "c".into(),
                outcome: Outcome::Skipped {
                    message: nasty.into(),
                },
                seconds: None,
                output: None,
            },
            Case {
                name: "err".into(),
                class: "c".into(),
                outcome: Outcome::Error {
                    message: nasty.into(),
                    detail: nasty.into(),
                },
                seconds: None,
                output: None,
            },
        ],
    }];
    let xml = report::junit::render(&suites);
    assert!(!xml.contains('\u{0}') && !xml.contains('\u{7}') && !xml.contains('\u{1F}'));
    assert!(!xml.contains("]]>"));
    let doc = roxmltree::Document::parse(&xml).expect("well-formed XML");
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .unwrap();
    assert_eq!(attr(suite, "name"), expected);
    let tc = suite.children().find(|n| n.is_element()).unwrap();
    assert_eq!(attr(tc, "name"), expected);
    assert_eq!(attr(tc, "classname"), expected);
    assert_eq!(attr(tc, "file"), expected);
    let failure = tc.children().find(|n| n.has_tag_name("failure")).unwrap();
    assert_eq!(attr(failure, "message"), expected);
    assert_eq!(failure.text(), Some(expected));
    let out = tc
        .children()
        .find(|n| n.has_tag_name("system-out"))
        .unwrap();
    assert_eq!(out.text(), Some(expected));
    let skipped = doc
        .descendants()
        .find(|n| n.has_tag_name("skipped"))
        .unwrap();
    assert_eq!(attr(skipped, "message"), expected);
    let error = doc.descendants().find(|n| n.has_tag_name("error")).unwrap();
    assert_eq!(attr(error, "message"), expected);
    assert_eq!(error.text(), Some(expected));
}

#[test]
fn no_suites_reads_back_as_zero() {
    let xml = report::junit::render(&[]);
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let root = doc.root_element();
    assert_eq!(attr(root, "tests"), "0");
    assert_eq!(root.children().filter(|n| n.is_element()).count(), 0);
}

#[test]
fn representative_document_snapshot() {
    insta::assert_snapshot!(
        "junit_representative",
        report::junit::render(&representative())
    );
}
