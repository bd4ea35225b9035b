//! The extractor on real and hand-written files: the Open PCA pump requirements document
//! (text extracted from its PDF), FRET, Hanfor and ReqIF files written in each tool's
//! documented format, Markdown, and bad input of every kind.

use extract::{extract, Confidence, ExtractError, Extraction, Format};
use std::path::Path;

fn testdata(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(rel)
        .display()
        .to_string()
}

/// Extracts `rel` under testdata/, named by its relative path (stable in snapshots).
fn run(rel: &str) -> Result<Extraction, ExtractError> {
    let bytes = std::fs::read(testdata(rel)).unwrap();
    extract(rel, &bytes, None)
}

fn pca() -> Extraction {
    run("open-pca-pump/requirements.txt").unwrap()
}

fn text_of<'a>(x: &'a Extraction, id: &str) -> &'a str {
    &x.requirements
        .iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("no requirement {id}"))
        .text
}

#[test]
fn pca_pump_counts() {
    let x = pca();
    assert_eq!(x.format, Format::Text);
    let high: Vec<_> = x
        .requirements
        .iter()
        .filter(|r| r.confidence == Confidence::High)
        .collect();
    assert_eq!(high.len(), 148);
    // Sections 5 to 8 hold the document's requirements (part II): 146 numbered
    // paragraphs, of which two are marked removed.
    let in_5_to_8 = high
        .iter()
        .filter(|r| ["5.", "6.", "7.", "8."].iter().any(|p| r.id.starts_with(p)))
        .count();
    assert_eq!(in_5_to_8, 144);
    // The other four are the environmental requirements of 3.4.
    assert!(high[..4].iter().all(|r| r.id.starts_with("3.4(")));
    assert_eq!(x.requirements.len() - high.len(), 5, "candidates");
    // Ids are unique and say section and paragraph.
    assert!(
        x.notes.iter().all(|n| !n.contains("renamed")),
        "{:?}",
        x.notes
    );
    assert!(x
        .notes
        .contains(&"skipped paragraphs marked removed: 6.5(8), 6.8(7)".to_string()));
}

#[test]
fn pca_pump_has_no_debris() {
    let x = pca();
    for r in &x.requirements {
        let t = &r.text;
        assert!(
            !t.contains("Open PCA System Requirements"),
            "{}: header in {t}",
            r.id
        );
        assert!(!t.contains("February 6, 2020"), "{}: header in {t}", r.id);
        assert!(
            !t.split_whitespace().any(|w| w.starts_with('-')
                && w.ends_with('-')
                && w.len() > 2
                && w[1..w.len() - 1].bytes().all(|b| b.is_ascii_digit())),
            "{}: page number in {t}",
            r.id
        );
        assert!(
            !t.contains(['\u{fb00}', '\u{fb01}', '\u{fb02}', '\u{fb03}', '\u{fb04}']),
            "{}: ligature in {t}",
            r.id
        );
        assert!(!t.contains("requirement R"), "{}: a footnote in {t}", r.id);
        assert!(r.source.line.is_some_and(|l| l > 0), "{}", r.id);
    }
}

#[test]
fn pca_pump_sample_texts() {
    let x = pca();
    // a footnote mark after a word and one before a line break; a ligature
    assert_eq!(
        text_of(&x, "5.1(2)"),
        "The pump shall be able to deliver basal infusion at flows throughout the basal infusion flow range of Fbasal min = 1 to Fbasal max = 10 ml/hr. (UC1 §4.1.1)"
    );
    // a footnote mark glued to a word
    assert_eq!(
        text_of(&x, "6.6(3)"),
        "Each log entry shall have a time stamp with its time of occurrence."
    );
    // a number that is not a footnote mark stays
    assert_eq!(
        text_of(&x, "6.4(8)"),
        "If the pump gets overheated to more than Tpoh = 55 C, the pump shall issue an pump overheated alarm (EC4.2.9)."
    );
    // over a page break (header, page number and footnotes in between)
    assert_eq!(
        text_of(&x, "6.4.3(3)"),
        "The alarm melody of audible alarms signals shall conform to Table AAA.1 of standard IEC 60601-1-8 for drug or fluid delivery. “C d g” shall be used for medium priority alarms; “C d g - C d” shall be used for high priority alarms; “e c” shall be used for warnings and low priority alarms. (IEC 60601-1-8 2.3.1)"
    );
    // words hyphenated at line ends: joined, and a hyphenated word kept
    assert_eq!(
        text_of(&x, "6.9(1)"),
        "The drug library can be thought of as a lookup table that, given a drug name and a location, provides typical and safe limits of different infusion parameters. The drug library shall be determined by the hospital pharmacist, and loaded into the PCA pump via its communication port."
    );
    assert_eq!(
        text_of(&x, "8.3(2)"),
        "The provisioning jack must be physically inaccessible, except to authorized technical personnel. Jacks for test equipment must be similarly inaccessible."
    );
    assert_eq!(
        text_of(&x, "7.4(4)"),
        "Occurrence of unavoidable single-event upsets caused by cosmic-ray-induced high- and thermal-energy neutrons must be either masked, or detected to fail-stop. (EC22d §4.2.22)"
    );
    // a mark after a section number, and a wrapped line that looks like a heading
    assert_eq!(
        text_of(&x, "6.5(11)"),
        "The Control Panel shall show alarm condition as described in Section 6.4.2. (IEC 60601-1-8 2.3.1)"
    );
    assert!(
        text_of(&x, "6.4.1(1)").contains("IEC 60601-1-8 Medical electrical equipment - Part 1-8")
    );
    // capitals spaced out by math typesetting, joined where the document has the word
    assert_eq!(
        text_of(&x, "5.2(4)"),
        "Prescribed VTBI and rate shall not exceed the maximum VTBI limit set by the drug library from the hospital pharmacy for the drug loaded in the PCA pump. (EC3 §4.2.3)"
    );
    assert!(text_of(&x, "5.1(5)").contains("FKV O = 1 ml/hr"));
    // a sentence and a reference end a paragraph: the remark after it is not part of it
    assert_eq!(
        text_of(&x, "6.4.3(4)"),
        "Each tone in the alarm melody shall be composed of a minimum of 4 harmonic components in the range 300 Hz to 4000 Hz comprising an inverted 9th jazz chord. (IEC 60601-1-8 2.3.1)"
    );
    // items that complete a lead-in sentence begin with it
    assert_eq!(
        text_of(&x, "6.5(20)"),
        "The Control Panel confirms operation after power-on self-test of display of visual information, and (UC1.2 §4.1.1)"
    );
    assert!(text_of(&x, "6.5(22)").starts_with("The PCA pump shall resume"));
    // the last requirement of section 8, and where it is
    let last = x.requirements.last().unwrap();
    assert_eq!(last.id, "8.3(4)");
    assert_eq!(
        last.text,
        "Provisioning shall be a single, unitary block-transfer."
    );
    assert_eq!(last.source.line, Some(2045));
    assert_eq!(last.section.as_deref(), Some("8.3 Provisioning"));
}

#[test]
fn pca_pump_is_deterministic() {
    assert_eq!(pca(), pca());
}

fn snapshot(rel: &str) -> String {
    serde_json::to_string_pretty(&run(rel).unwrap()).unwrap()
}

#[test]
fn fret_files() {
    insta::assert_snapshot!("fret_requirements", snapshot("fret/requirements.json"));
    insta::assert_snapshot!("fret_project", snapshot("fret/project.json"));
}

#[test]
fn hanfor_file() {
    insta::assert_snapshot!("hanfor_requirements", snapshot("hanfor/requirements.csv"));
}

#[test]
fn reqif_file() {
    insta::assert_snapshot!("reqif_requirements", snapshot("reqif/requirements.reqif"));
}

#[test]
fn markdown_file() {
    insta::assert_snapshot!("markdown_lighting", snapshot("docs/lighting.md"));
}

#[test]
fn malformed_files_are_located_errors() {
    let errs: Vec<String> = [
        "fret/broken.json",
        "fret/no-reqid.json",
        "hanfor/broken.csv",
        "hanfor/no-id-column.csv",
        "reqif/broken.reqif",
    ]
    .iter()
    .map(|f| run(f).unwrap_err().to_string())
    .collect();
    insta::assert_snapshot!("malformed", errs.join("\n"));
}

#[test]
fn wrong_format_asked_is_an_error_not_a_panic() {
    let bytes = std::fs::read(testdata("docs/lighting.md")).unwrap();
    for f in [Format::Fret, Format::Hanfor, Format::Reqif] {
        assert!(extract("lighting.md", &bytes, Some(f)).is_err(), "{f:?}");
    }
    let bytes = std::fs::read(testdata("reqif/requirements.reqif")).unwrap();
    // read as text, XML is prose: no panic, whatever it finds
    extract("r.reqif", &bytes, Some(Format::Text)).unwrap();
}

#[test]
fn formats_are_guessed_from_name_and_content() {
    assert_eq!(Format::detect("a.reqif", b""), Format::Reqif);
    assert_eq!(
        Format::detect("a.xml", b"<?xml version=\"1.0\"?>\n<REQ-IF>"),
        Format::Reqif
    );
    assert_eq!(
        Format::detect("export", b"  [\n {\"reqid\": \"A\"}]"),
        Format::Fret
    );
    assert_eq!(Format::detect("a.json", b""), Format::Fret);
    assert_eq!(Format::detect("a.csv", b"ID,Description"), Format::Hanfor);
    assert_eq!(Format::detect("a.md", b"# Title"), Format::Markdown);
    assert_eq!(
        Format::detect("a.txt", b"[R-1] The pump shall stop."),
        Format::Text
    );
    let x = extract("a.txt", b"[R-1] The pump shall stop.\n", None).unwrap();
    assert_eq!(x.requirements[0].id, "R-1");
}

#[test]
fn bad_input() {
    let e = |b: &[u8]| extract("f.txt", b, None).unwrap_err().to_string();
    assert_eq!(e(b""), "f.txt: the file is empty");
    assert_eq!(e(b" \n\t\n"), "f.txt: the file is empty");
    assert_eq!(
        e(b"\x7fELF\x02\x01\x01\x00\x00"),
        "f.txt: a binary file (a NUL byte at offset 7), not text"
    );
    assert_eq!(
        e(b"(1) The pump shall stop.\nCaf\xe9 au lait\n"),
        "f.txt:2:4: not UTF-8 (save the file as UTF-8)"
    );
    let none = extract("notes.txt", b"Nothing here is required.\n", None).unwrap();
    assert!(none.requirements.is_empty());
}

/// 50 MB of document: bounded time (a single pass per stage) and memory.
#[test]
fn a_fifty_megabyte_document() {
    let mut doc = String::with_capacity(51 << 20);
    let mut section = 0;
    while doc.len() < 50 << 20 {
        section += 1;
        doc.push_str(&format!("{section} Section number {section}\n"));
        for p in 1..=20 {
            doc.push_str(&format!(
                "({p}) The pump shall keep the rate of channel {p} below the limit set for the\n\
                 section {section} while the door is closed and the alarm is silent.\n"
            ));
            doc.push_str(
                "Some prose about the pump, with a sentence that shall be a candidate in it.\n\n",
            );
        }
    }
    let start = std::time::Instant::now();
    let x = extract("big.txt", doc.as_bytes(), None).unwrap();
    let took = start.elapsed();
    assert_eq!(x.high(), section * 20);
    assert!(took.as_secs() < 120, "took {took:?}");
}

/// A document of `pages` pages, each with a running header, the requirements
/// `lines(page)` and a `Page k of n` footer.
fn paged(pages: usize, mut lines: impl FnMut(usize) -> Vec<String>) -> String {
    let mut doc = String::new();
    for p in 1..=pages {
        doc.push_str("ACME Infusion Monitor - Software Requirements, issue 3\n\n");
        for l in lines(p) {
            doc.push_str(&l);
            doc.push_str("\n\n");
        }
        doc.push_str(&format!("Page {p} of {pages}\n"));
    }
    doc
}

/// Requirement lines that differ only in their digits are not page furniture, even
/// when they stand next to most page breaks: 14 `R-n: Channel k shall be monitored.`
/// lines (4 first on their page, 10 in the middle) among 44 requirements all stay.
#[test]
fn requirements_alike_but_for_digits_are_not_page_headers() {
    let mut n = 0;
    let mut channels = 0;
    let doc = paged(10, |p| {
        let mut v = Vec::new();
        for k in 0..if p <= 4 { 5 } else { 4 } {
            n += 1;
            // The first line of pages 1-4, and the third line of every page.
            let channel = (p <= 4 && k == 0) || (k == 2 && channels < 14);
            if channel && channels < 14 {
                channels += 1;
                v.push(format!("R-{n}: Channel {channels} shall be monitored."));
            } else {
                v.push(format!(
                    "R-{n}: The {} alarm is audible from 3 m.",
                    ["door", "air", "flow", "battery", "power"][k % 5]
                ));
            }
        }
        v
    });
    let x = extract("mon.txt", doc.as_bytes(), None).unwrap();
    assert_eq!(x.requirements.len(), 44, "{:#?}", x.notes);
    let monitored = x
        .requirements
        .iter()
        .filter(|r| r.text.ends_with("shall be monitored."))
        .count();
    assert_eq!(monitored, 14);
    // The running header is dropped, and each line dropped is named.
    assert!(x.requirements.iter().all(|r| !r.text.contains("ACME")));
    let note = x
        .notes
        .iter()
        .find(|n| n.contains("running header"))
        .unwrap_or_else(|| panic!("{:#?}", x.notes));
    assert!(
        note.starts_with("dropped 10 running header or footer lines like `ACME Infusion Monitor - Software Requirements, issue 3` next to page breaks (lines 1, "),
        "{note}"
    );
}

/// 29 pages of three requirements each, every one shaped like the others: none is
/// taken for a header or a footer.
#[test]
fn a_document_of_requirements_shaped_alike_keeps_all_of_them() {
    let doc = paged(29, |p| {
        (0..3)
            .map(|k| {
                let n = (p - 1) * 3 + k + 1;
                format!("REQ-{n} The controller shall log event {n} within 5 ms.")
            })
            .collect()
    });
    let x = extract("log.txt", doc.as_bytes(), None).unwrap();
    assert_eq!(x.requirements.len(), 87, "{:#?}", x.notes);
    assert_eq!(x.high(), 87);
    // Numbered paragraphs too.
    let doc = paged(12, |p| {
        (1..=3)
            .map(|k| format!("({k}) Valve {p} opens in {k} s."))
            .collect()
    });
    let x = extract("valves.txt", doc.as_bytes(), None).unwrap();
    assert_eq!(x.requirements.len(), 36, "{:#?}", x.notes);
}

/// Markdown: an escaped pipe is part of its cell, a table row without an id is named in
/// a note (not dropped silently), and a fenced code block is skipped whole, its closing
/// fence included, with a note.
#[test]
fn markdown_pipes_empty_ids_and_code_blocks() {
    let doc = "# Spec\n\n| ID | Requirement |\n|----|-------------|\n| D-1 | The display shall show `a \\| b` as one value. |\n|  | The display shall blink twice. |\n| D-3 |  |\n\nR-7: The pump shall stop.\n\n```\nR-8: an example, not a requirement\n```\n\nR-9: The alarm shall sound.\n~~~~text\nint x;\n~~~~\n";
    let x = extract("s.md", doc.as_bytes(), None).unwrap();
    let got: Vec<(&str, &str)> = x
        .requirements
        .iter()
        .map(|r| (r.id.as_str(), r.text.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("D-1", "The display shall show `a | b` as one value."),
            ("R-7", "The pump shall stop."),
            ("R-9", "The alarm shall sound."),
        ]
    );
    assert_eq!(
        x.notes,
        [
            "line 6: a table row without an id is not read as a requirement: The display shall blink twice.",
            "line 7: table row D-3 has no text and is not read as a requirement",
            "skipped a fenced code block (lines 11-13)",
            "skipped a fenced code block (lines 16-18)",
        ]
    );
}

/// A requirement that ends in a number next to a table of contents is not taken for one
/// of its entries.
#[test]
fn a_requirement_beside_a_table_of_contents_stays() {
    let doc = "Contents\n1 Intro .......... 3\n2 Pump .......... 4\nR-1: The pump shall deliver at most 10\n\n1 Intro\nText.\n";
    let x = extract("toc.txt", doc.as_bytes(), None).unwrap();
    assert_eq!(x.requirements.len(), 1, "{:#?}", x.notes);
    assert_eq!(x.requirements[0].text, "The pump shall deliver at most 10");
}
