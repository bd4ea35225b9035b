//! The output rule, for every command: `-o PATH --force` is refused when PATH is any
//! file the command reads — named on the command line, a unit of a compilation
//! database, a header the preprocessor opened (found through `-I`, `-imacros`, beside
//! the source), a file read beside another (exceptions on file), an imported `.req`
//! file, a CSV and its schema — however PATH is
//! spelled (`./`, absolute, a hard link, a symbolic link), and the file is left as it
//! was. Needs gcc and frama-c (the C commands), z3 (the others).

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A command line and every file (relative to the test folder) it reads.
struct Case {
    args: Vec<&'static str>,
    reads: Vec<&'static str>,
}

const PROJECT: [&str; 6] = [
    "p/src/buffer.c",
    "p/src/stats.c",
    "p/src/main.c",
    "p/include/buffer.h",
    "p/include/stats.h",
    "p/include/config.h",
];

fn cases() -> Vec<Case> {
    let with = |extra: &[&'static str]| {
        let mut v: Vec<&'static str> = PROJECT.to_vec();
        v.extend(extra);
        v
    };
    let db = "p/compile_commands.json";
    vec![
        Case {
            args: vec!["c", "segments", "--compile-commands", db],
            reads: with(&[db]),
        },
        Case {
            args: vec!["c", "verify", "--compile-commands", db, "--format", "json"],
            reads: with(&[db]),
        },
        Case {
            // Only one unit is asked for; the database's other units are the
            // project's files all the same.
            args: vec!["c", "strength", "--compile-commands", db, "p/src/stats.c"],
            reads: with(&[db]),
        },
        Case {
            args: vec![
                "c",
                "segments",
                "-I",
                "p/include",
                "-D",
                "WITH_CLAMP",
                "p/src/buffer.c",
                "p/src/stats.c",
                "p/src/main.c",
            ],
            reads: PROJECT.to_vec(),
        },
        Case {
            args: vec!["c", "verify", "-I", "p/include", "p/src/buffer.c"],
            reads: vec!["p/src/buffer.c", "p/include/buffer.h", "p/include/config.h"],
        },
        Case {
            // A header beside a single file.
            args: vec!["c", "verify", "one/a.c"],
            reads: vec!["one/a.c", "one/a.h"],
        },
        Case {
            args: vec!["c", "segments", "one/a.c"],
            reads: vec!["one/a.c", "one/a.h"],
        },
        Case {
            // A header found through an include folder with a space in its name and
            // one read through `-imacros` (it leaves no line marker).
            args: vec![
                "c",
                "segments",
                "--compile-commands",
                "q/compile_commands.json",
            ],
            reads: vec![
                "q/compile_commands.json",
                "q/m.c",
                "q/my inc/x.h",
                "q/defs.h",
            ],
        },
        Case {
            args: vec!["extract", "doc.md"],
            reads: vec!["doc.md"],
        },
        Case {
            args: vec!["audit", "h.toml"],
            reads: vec!["h.toml"],
        },
        Case {
            args: vec!["table", "check", "fees.csv"],
            reads: vec!["fees.csv"],
        },
        Case {
            // An Ultimate file imported as a timed spec.
            args: vec!["extract", "ex.req"],
            reads: vec!["ex.req"],
        },
        Case {
            // Requirements in a CSV, their variables in a schema.
            args: vec!["audit", "reqs.csv", "--schema", "schema.toml"],
            reads: vec!["reqs.csv", "schema.toml"],
        },
        Case {
            // exceptions.toml is read because it lies beside the program.
            args: vec![
                "consistency",
                "--nl",
                "cra/ab/ab.smt2",
                "--impl",
                "cra/ab/prog.bl",
                "--bounds",
                "bounds.json",
            ],
            reads: vec![
                "cra/ab/ab.smt2",
                "cra/ab/prog.bl",
                "cra/ab/exceptions.toml",
                "bounds.json",
            ],
        },
    ]
}

const EXCEPTIONS: &str = r#"[[exception]]
id = "sin_exception"
assume = "(< sin 900000000)"
reason = "temporary workers taxed elsewhere"
accepted_by = "J. Tremblay"
date = "2026-11-02"
"#;

/// The test folder: the C project of the acsl tests, a single file with a header beside
/// it, a project read through `-imacros` and an include folder with a space, and one
/// input of each other kind.
fn setup() -> tempfile::TempDir {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    let copy = |from: &str, to: &str| {
        let to = d.join(to);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(root.join(from), to).unwrap();
    };
    let project = "crates/acsl/tests/c/project";
    for f in PROJECT {
        copy(&format!("{project}/{}", &f[2..]), f);
    }
    copy(
        &format!("{project}/compile_commands.json"),
        "p/compile_commands.json",
    );
    let write = |to: &str, text: &str| {
        let to = d.join(to);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(to, text).unwrap();
    };
    write(
        "one/a.c",
        "#include \"a.h\"\n/*@ ensures \\result == x; assigns \\nothing; */\nint id(int x) { return x + ZERO; }\n",
    );
    write("one/a.h", "#define ZERO 0\n");
    write(
        "q/compile_commands.json",
        r#"[{"directory": ".", "file": "m.c", "arguments": ["cc", "-imacros", "defs.h", "-I", "my inc", "-c", "m.c"]}]"#,
    );
    write(
        "q/m.c",
        "#include <x.h>\nint twice(int v) { return v * FACTOR + OFFSET; }\n",
    );
    write("q/my inc/x.h", "#define OFFSET 0\n");
    write("q/defs.h", "#define FACTOR 2\n");
    write(
        "doc.md",
        "# Pump\n\n## 1 Flow\n\n1. The pump shall stop when the door opens.\n",
    );
    copy("examples/hemodialysis/hemodialysis.toml", "h.toml");
    copy("crates/table/testdata/fees.csv", "fees.csv");
    copy("testdata/fees-dataset/cra-25/ab/ab.smt2", "cra/ab/ab.smt2");
    copy("testdata/fees-dataset/cra-25/ab/prog.bl", "cra/ab/prog.bl");
    copy("examples/fees/cra-bounds.json", "bounds.json");
    write("cra/ab/exceptions.toml", EXCEPTIONS);
    copy(
        "crates/extract/tests/data/ultimate-req/ex-rtinconsistent-01.req",
        "ex.req",
    );
    write(
        "schema.toml",
        "[[variables]]\nname = \"temp\"\nsort = \"Real\"\n[[variables]]\nname = \"alarm\"\nsort = \"Bool\"\n",
    );
    write(
        "reqs.csv",
        "id,text,formula\nR1,Alarm above 40.,(=> (> temp 40) alarm)\nR2,No alarm below 10.,(=> (< temp 10) (not alarm))\n",
    );
    t
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let md = std::fs::symlink_metadata(&p).unwrap();
            if md.is_dir() {
                todo.push(p);
            } else if md.is_file() {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// How the output path names the input.
#[derive(Debug, Clone, Copy)]
enum Spelling {
    AsRead,
    Dotted,
    Absolute,
    HardLink,
    SymLink,
}

#[test]
fn no_command_writes_its_report_over_a_file_it_reads() {
    let t = setup();
    let dir = t.path().to_path_buf();
    let cases = cases();
    let links = dir.join("links");
    std::fs::create_dir(&links).unwrap();
    let before = snapshot(&dir);
    let pick = (0..cases.len()).prop_flat_map(|c| {
        (
            Just(c),
            0..cases[c].reads.len(),
            prop_oneof![
                Just(Spelling::AsRead),
                Just(Spelling::Dotted),
                Just(Spelling::Absolute),
                Just(Spelling::HardLink),
                Just(Spelling::SymLink),
            ],
        )
    });
    let mut runner = TestRunner::new(Config {
        cases: 64,
        failure_persistence: None,
        ..Config::default()
    });
    let counter = std::sync::atomic::AtomicUsize::new(0);
    let result = runner.run(&pick, |(c, i, spelling)| {
        let n = counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let case = &cases[c];
        let target = case.reads[i];
        let out: String = match spelling {
            Spelling::AsRead => target.to_string(),
            Spelling::Dotted => format!("./{target}"),
            Spelling::Absolute => dir.join(target).display().to_string(),
            Spelling::HardLink => {
                let l = links.join(format!("hard{n}"));
                std::fs::hard_link(dir.join(target), &l).unwrap();
                l.display().to_string()
            }
            Spelling::SymLink => {
                let l = links.join(format!("sym{n}"));
                std::os::unix::fs::symlink(dir.join(target), &l).unwrap();
                l.display().to_string()
            }
        };
        let mut args = case.args.clone();
        args.extend(["-o", out.as_str(), "--force"]);
        let run = Command::new(env!("CARGO_BIN_EXE_vera"))
            .args(&args)
            .current_dir(&dir)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&run.stderr);
        prop_assert_eq!(run.status.code(), Some(2), "{:?}: {}", args, err);
        // A symbolic link is refused as one when the command line is read, before its
        // target is known to be an input.
        let said = err.contains("is an input of this command")
            || (matches!(spelling, Spelling::SymLink) && err.contains("is a symbolic link"));
        prop_assert!(said, "{:?}: {}", args, err);
        // Nothing changed, and nothing was left behind (links aside).
        let mut now = snapshot(&dir);
        now.retain(|p, _| !p.starts_with(&links));
        let mut was = before.clone();
        was.retain(|p, _| !p.starts_with(&links));
        if now != was {
            return Err(TestCaseError::fail(format!(
                "{args:?} changed the folder: {:?}",
                now.keys()
                    .filter(|k| was.get(*k) != now.get(*k))
                    .collect::<Vec<_>>()
            )));
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// The same command with an output that is not an input writes it (the refusal above
/// is about the input, not the command).
#[test]
fn the_same_commands_write_an_output_that_is_not_an_input() {
    let t = setup();
    let dir = t.path();
    for args in [
        &[
            "c",
            "segments",
            "--compile-commands",
            "p/compile_commands.json",
        ][..],
        &[
            "c",
            "segments",
            "--compile-commands",
            "q/compile_commands.json",
        ][..],
        &["c", "segments", "one/a.c"][..],
    ] {
        let out = dir.join("out.txt");
        let mut a = args.to_vec();
        let o = out.display().to_string();
        a.extend(["-o", o.as_str(), "--force"]);
        let run = Command::new(env!("CARGO_BIN_EXE_vera"))
            .args(&a)
            .current_dir(dir)
            .output()
            .unwrap();
        assert_eq!(
            run.status.code(),
            Some(0),
            "{a:?}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        assert!(std::fs::read_to_string(&out).unwrap().contains("segment"));
    }
}
