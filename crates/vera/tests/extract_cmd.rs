//! `vera extract` end to end: the TOML spec it prints (golden), what vera's spec loader
//! makes of it, `-o` (atomic, never over an input or an existing file without --force),
//! and exit codes 0, 1 and 2 with located errors.

mod common;
use common::{root, vera};

#[test]
fn markdown_to_a_toml_spec() {
    let (code, out, err) = vera(&["extract", "crates/extract/testdata/docs/lighting.md"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("7 requirements extracted from crates/extract/testdata/docs/lighting.md (read as markdown): 5 marked in the source, 2 candidates"),
        "{err}"
    );
    insta::assert_snapshot!("extract_lighting_toml", out);
}

#[test]
fn fret_and_hanfor_keep_their_formal_text_in_comments() {
    let (code, out, err) = vera(&["extract", "crates/extract/testdata/fret/project.json"]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("extract_fret_toml", out);
    let (code, out, err) = vera(&["extract", "crates/extract/testdata/hanfor/requirements.csv"]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("extract_hanfor_toml", out);
}

#[test]
fn the_written_spec_loads_and_is_never_written_over_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pca.toml");
    let o = out.to_str().unwrap();
    let pca = "crates/extract/testdata/open-pca-pump/requirements.txt";
    let (code, stdout, err) = vera(&["extract", pca, "-o", o]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.is_empty());
    let spec = std::fs::read_to_string(&out).unwrap();
    assert_eq!(spec.matches("[[requirements]]").count(), 153);
    assert!(spec.contains("id = \"5.1(3)\""));
    // An existing file needs --force.
    let (code, _, err) = vera(&["extract", pca, "-o", o]);
    assert_eq!(code, 2);
    assert!(err.contains("already exists"), "{err}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), spec);
    // Never over the input, not even with --force.
    let (code, _, err) = vera(&["extract", o, "-o", o, "--force"]);
    assert_eq!(code, 2);
    assert!(err.contains("is an input"), "{err}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), spec);
    // vera's spec loader reads it: every requirement is there, none formalized yet.
    let (code, _, err) = vera(&["audit", o]);
    assert_eq!(code, 2);
    assert!(
        err.contains("has 153 requirement(s) and none with a formula"),
        "{err}"
    );
}

#[test]
fn exit_codes_and_bad_input() {
    let (code, out, err) = vera(&[
        "extract",
        "crates/extract/testdata/docs/no-requirements.txt",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("0 requirements found in"), "{err}");
    assert!(out.contains("# 0 requirements found in"), "{out}");
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        p.to_str().unwrap().to_string()
    };
    for (file, message) in [
        (write("empty.txt", b""), "empty.txt: the file is empty"),
        (
            write("tool.bin", b"\x7fELF\x02\x00\x00"),
            "a binary file (a NUL byte at offset 5), not text",
        ),
        (
            write("latin1.md", b"# T\n\nCaf\xe9\n"),
            "latin1.md:3:4: not UTF-8",
        ),
        (
            write("bad.json", b"[{\"reqid\": 1}]"),
            "bad.json: record 1: \"reqid\" is not a string",
        ),
    ] {
        let (code, out, err) = vera(&["extract", &file]);
        assert_eq!(code, 2, "{file}: {err}");
        assert!(out.is_empty(), "{out}");
        assert!(err.contains(message), "{file}: {err}");
    }
    // --from overrides the guess.
    let (code, _, err) = vera(&[
        "extract",
        "crates/extract/testdata/docs/lighting.md",
        "--from",
        "reqif",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("lighting.md:1:1: not well-formed XML"),
        "{err}"
    );
    let _ = root();
}
