//! Cutting open streams is process-wide, so this test runs alone in its own binary.

use safefile::{interrupt_all, Stream, StreamOptions};
use std::fs;

#[test]
fn stream_appears_only_when_finished_and_a_cut_one_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.smt2");
    let s = Stream::create(
        &out,
        false,
        StreamOptions {
            append: false,
            cut_marker: Some(";; vera: ".into()),
        },
    )
    .unwrap();
    s.write_all(b"(check-sat)\n").unwrap();
    assert!(!out.exists(), "an unfinished stream is not at its path");
    s.finish().unwrap();
    assert_eq!(fs::read_to_string(&out).unwrap(), "(check-sat)\n");

    let cut = dir.path().join("cut.smt2");
    let s = Stream::create(
        &cut,
        false,
        StreamOptions {
            append: false,
            cut_marker: Some(";; vera: ".into()),
        },
    )
    .unwrap();
    s.write_all(b"(assert true)\n").unwrap();
    let closed = interrupt_all("interrupted (Ctrl-C)");
    assert!(closed.contains(&cut));
    assert_eq!(
        fs::read_to_string(&cut).unwrap(),
        "(assert true)\n;; vera: cut here: interrupted (Ctrl-C)\n"
    );
    assert!(s.write_all(b"more").is_err());
}
