//! What an output may be: only a regular file (new, or existing with `force`) in a
//! folder that exists. Devices, pipes and symbolic links are refused even with `force`,
//! because replacing them by a rename would destroy them.

use safefile::{check_output, write_atomic, SafeFileError};
use std::fs;

#[test]
fn special_files_and_links_are_refused_even_with_force() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.json");
    fs::write(&real, "mine").unwrap();
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let fifo = dir.path().join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    for (path, what) in [
        (link.as_path(), "a symbolic link"),
        (fifo.as_path(), "a named pipe"),
        (std::path::Path::new("/dev/full"), "a device"),
    ] {
        for force in [false, true] {
            match write_atomic(path, b"new", force) {
                Err(SafeFileError::NotRegular { what: w, .. }) => assert_eq!(w, what),
                other => panic!("{}: {other:?}", path.display()),
            }
        }
    }
    // Nothing was replaced: the link still points at the untouched file, the pipe and
    // the device are still what they were.
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(fs::read_to_string(&real).unwrap(), "mine");
    use std::os::unix::fs::FileTypeExt;
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    assert!(fs::metadata("/dev/full")
        .unwrap()
        .file_type()
        .is_char_device());
}

#[test]
fn a_missing_folder_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("nope/report.json");
    match check_output(&out, true) {
        Err(e @ SafeFileError::NoFolder { .. }) => {
            let m = e.to_string();
            assert!(m.contains("nope") && m.contains("does not exist"), "{m}");
            assert!(!m.contains(".report.json."), "no temporary file named: {m}");
        }
        other => panic!("{other:?}"),
    }
    // A regular file: new is fine, existing needs force.
    let ok = dir.path().join("report.json");
    check_output(&ok, false).unwrap();
    write_atomic(&ok, b"1", false).unwrap();
    assert!(matches!(
        check_output(&ok, false),
        Err(SafeFileError::Exists { .. })
    ));
    write_atomic(&ok, b"2", true).unwrap();
    assert_eq!(fs::read_to_string(&ok).unwrap(), "2");
    // A bare file name is in the working folder, which exists.
    check_output(std::path::Path::new("surely-not-here.json"), false).unwrap();
}
