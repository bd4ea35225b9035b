//! Opens the HTML rendering in a real headless Chromium.
//!
//! Chromium is required: `scripts/setup` installs Debian's `chromium`, and this test
//! fails when it is missing. Set `VERA_CHROMIUM` to use another binary. Chromium runs as
//! root in CI, hence `--no-sandbox`; each run gets a fresh temporary profile.

#[path = "support/chromium.rs"]
mod chromium;
use chromium::run_chromium;

use report::html::{Bar, Block, Count, Edge, Node, Page, Section, Tone};

fn representative() -> Page {
    let req = |i: usize, tone| Node {
        label: format!("R{i}"),
        tone,
    };
    Page {
        title: "vera audit: fees.req".into(),
        subtitle: Some("spec fees.req, solver z3 4.13".into()),
        counts: vec![
            Count {
                label: "requirements".into(),
                value: 12,
                tone: Tone::Neutral,
            },
            Count {
                label: "conflicts".into(),
                value: 1,
                tone: Tone::Bad,
            },
            Count {
                label: "vacuous".into(),
                value: 2,
                tone: Tone::Warn,
            },
            Count {
                label: "fine".into(),
                value: 9,
                tone: Tone::Good,
            },
        ],
        sections: vec![
            Section {
                heading: "Conflicts".into(),
                blocks: vec![
                    Block::Text("R1, R2 and R3 cannot all hold at once.".into()),
                    Block::Graph {
                        caption: "Conflict between R1, R2 and R3".into(),
                        nodes: vec![req(1, Tone::Bad), req(2, Tone::Bad), req(3, Tone::Bad)],
                        edges: vec![
                            Edge {
                                from: 0,
                                to: 1,
                                label: Some("fee > 10".into()),
                            },
                            Edge {
                                from: 1,
                                to: 2,
                                label: Some("fee < 5".into()),
                            },
                            Edge {
                                from: 2,
                                to: 0,
                                label: None,
                            },
                            Edge {
                                from: 2,
                                to: 2,
                                label: Some("itself".into()),
                            },
                        ],
                    },
                    Block::Item {
                        title: "R7 <script>alert(1)</script>".into(),
                        badge: "vacuous".into(),
                        tone: Tone::Warn,
                        blocks: vec![Block::Code("(=> (> amount 100) (< amount 50))".into())],
                    },
                ],
            },
            Section {
                heading: "Subsumption".into(),
                blocks: vec![Block::Graph {
                    caption: "Which requirement implies which".into(),
                    nodes: (0..12)
                        .map(|i| req(i, if i % 4 == 0 { Tone::Warn } else { Tone::Good }))
                        .collect(),
                    edges: (0..11)
                        .map(|i| Edge {
                            from: i / 2,
                            to: i + 1,
                            label: Some("implies".into()),
                        })
                        .collect(),
                }],
            },
            Section {
                heading: "Mutation detection".into(),
                blocks: vec![
                    Block::Bars {
                        caption: "Mutants detected per operator".into(),
                        bars: vec![
                            Bar {
                                label: "boundary".into(),
                                value: 18.0,
                                max: 20.0,
                                tone: Tone::Good,
                            },
                            Bar {
                                label: "negation".into(),
                                value: 7.0,
                                max: 20.0,
                                tone: Tone::Bad,
                            },
                        ],
                    },
                    Block::Table {
                        headers: vec!["operator".into(), "detected".into()],
                        rows: vec![
                            vec!["boundary".into(), "18 of 20".into()],
                            vec!["negation".into(), "7 of 20".into()],
                        ],
                    },
                ],
            },
        ],
    }
}

#[test]
fn chromium_renders_the_page() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    let html = report::html::render(&representative());
    std::fs::write(&page, &html).unwrap();

    // The DOM as Chromium built it: key texts are there, the script is text.
    let dom = run_chromium(&dir.path().join("profile-dom"), &page, &["--dump-dom"]);
    for text in [
        "vera audit: fees.req",
        "conflicts",
        "Conflict between R1, R2 and R3",
        "fee &gt; 10",
        "R7 &lt;script&gt;alert(1)&lt;/script&gt;",
        "Mutants detected per operator",
        "18 / 20 (90%)",
        "7 of 20",
    ] {
        assert!(dom.contains(text), "{text:?} not in the DOM:\n{dom}");
    }
    assert!(!dom.to_ascii_lowercase().contains("<script"));
    assert!(dom.contains("<svg"), "no SVG in the DOM");

    // Nothing refers to the network: the only URLs are namespace names.
    let mut rest = dom.as_str();
    while let Some(i) = rest.find("http") {
        let tail = &rest[i..];
        let ok = [
            "http://www.w3.org/2000/svg",
            "http://www.w3.org/1999/xhtml",
            "http://www.w3.org/1999/xlink",
        ]
        .iter()
        .any(|ns| tail.starts_with(ns));
        assert!(
            ok || !(tail.starts_with("http://") || tail.starts_with("https://")),
            "network reference in the page: {}",
            &tail[..tail.len().min(80)]
        );
        rest = &tail[4..];
    }

    // A screenshot of the right size that is not one flat color.
    let shot = dir.path().join("shot.png");
    run_chromium(
        &dir.path().join("profile-shot"),
        &page,
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1200,1600",
            "--hide-scrollbars",
        ],
    );
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(&shot).expect("chromium wrote the screenshot"),
    ));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("a sane PNG size")];
    let info = reader.next_frame(&mut buf).expect("PNG pixels");
    assert_eq!((info.width, info.height), (1200, 1600));
    let bytes = &buf[..info.buffer_size()];
    let channels = info.color_type.samples();
    let mut colors: Vec<&[u8]> = bytes.chunks(channels).collect();
    colors.sort_unstable();
    colors.dedup();
    assert!(
        colors.len() >= 16,
        "the screenshot has only {} distinct colors",
        colors.len()
    );
    if let Some(keep) = std::env::var_os("VERA_KEEP_SCREENSHOT") {
        std::fs::copy(&shot, keep).unwrap();
    }
}
