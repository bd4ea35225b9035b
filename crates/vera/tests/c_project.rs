//! `vera c segments|verify` on a program of several files with preprocessor flags
//! or a compilation database (the test program in crates/acsl/tests/c/project):
//! locations in the original files, contracts on header prototypes, the lemma
//! run, the cache on a second run, errors as JSON with their file and line, and
//! bad flags. Needs frama-c, why3, z3, cvc5 and gcc (scripts/setup).

mod common;

use common::vera;
use serde_json::Value;

const P: &str = "crates/acsl/tests/c/project";

#[test]
fn segments_of_a_program_point_into_the_original_files() {
    let inc = format!("{P}/include");
    let files: Vec<String> = ["buffer.c", "stats.c", "main.c"]
        .iter()
        .map(|f| format!("{P}/src/{f}"))
        .collect();
    let mut args = vec!["c", "segments", "-I", &inc, "-D", "WITH_CLAMP"];
    args.extend(files.iter().map(String::as_str));
    let (code, out, err) = vera(&args);
    assert_eq!(code, 0, "{err}");
    // The contract on the prototype in the header is peak's point of interest.
    assert!(
        out.contains(&format!(
            "peak contract at {P}/include/stats.h:4 (annotated)"
        )),
        "{out}"
    );
    // The function a macro writes, at the macro's invocation.
    assert!(
        out.contains(&format!(
            "default_value contract at {P}/src/main.c:6 (no annotation)"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!("fill loop 0 at {P}/src/buffer.c:10 (annotated)")),
        "{out}"
    );
    // Nothing from Frama-C's C library headers.
    assert!(!out.contains("libc"), "{out}");
}

#[test]
fn a_compile_commands_project_verifies_with_located_goals() {
    let cache = tempfile::tempdir().unwrap();
    let cache_dir = cache.path().display().to_string();
    let db = format!("{P}/compile_commands.json");
    let args = [
        "c",
        "verify",
        "--compile-commands",
        &db,
        "--cache-dir",
        &cache_dir,
        "-j",
        "2",
    ];
    let mut json_args = args.to_vec();
    json_args.extend(["--format", "json"]);
    let (code, out, err) = vera(&json_args);
    assert_eq!(code, 0, "{out}\n{err}");
    let j: Value = serde_json::from_str(&out).unwrap();
    let r = &j["report"];
    assert_eq!(r["verdict"]["verdict"], "proved");
    let files: Vec<&str> = r["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        files,
        [
            format!("{P}/src/buffer.c"),
            format!("{P}/src/stats.c"),
            format!("{P}/src/main.c")
        ]
    );
    assert_eq!(r["lemmas"]["goals"].as_array().unwrap().len(), 2);
    // Every property and every goal that names a clause is in an original file.
    for s in r["segments"].as_array().unwrap() {
        for p in s["run"]["properties"].as_array().unwrap() {
            let f = p["file"].as_str().unwrap();
            assert!(f.starts_with(P), "{p}");
        }
        for g in s["run"]["goals"].as_array().unwrap() {
            if let Some(f) = g["file"].as_str() {
                assert!(f.starts_with(P), "{g}");
                assert!(g["line"].as_u64().unwrap() > 0);
            }
        }
    }
    // The same run again comes from the cache, and the text names clauses by
    // file and line.
    let (code, out, err) = vera(&args);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("0 verifier calls, 8 cache hits"), "{out}");
    assert!(
        out.contains("lemmas (proved once): proved (2 goals)"),
        "{out}"
    );
    assert!(
        out.contains(&format!("[wp:pedantic-assigns] {P}/src/main.c:6: No 'assigns' specification for function 'default_value'")),
        "{out}"
    );
}

#[test]
fn errors_come_as_json_with_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("uses.c");
    std::fs::write(&src, "int a;\n#include \"nowhere.h\"\n").unwrap();
    let src = src.display().to_string();
    let inc = format!("{P}/include");
    let (code, out, err) = vera(&["c", "verify", "-I", &inc, &src, "--format", "json"]);
    assert_eq!(code, 2, "{err}");
    let j: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["schema"], "vera.error.v1");
    assert_eq!(j["command"], "c verify");
    let d = &j["error"]["diagnostics"][0];
    assert!(d["file"].as_str().unwrap().ends_with("uses.c"), "{j}");
    assert_eq!(d["line"], 2);
    assert!(d["message"].as_str().unwrap().contains("nowhere.h"), "{j}");

    // The same in human form, on standard error, with file:line.
    let (code, out, err) = vera(&["c", "segments", "-I", &inc, &src]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(err.contains("uses.c:2:10: preprocessor: "), "{err}");

    // A file the database does not list; an unknown flag.
    let db = format!("{P}/compile_commands.json");
    let (code, _, err) = vera(&["c", "verify", "--compile-commands", &db, &src]);
    assert_eq!(code, 2);
    assert!(err.contains("has no entry in"), "{err}");
    let (code, _, err) = vera(&["c", "verify", "-Q", &src]);
    assert_eq!(code, 2);
    assert!(err.contains("unexpected argument '-Q'"), "{err}");
}

#[test]
fn strength_of_one_unit_with_its_flags() {
    // main.c includes headers from include/ and calls functions defined in the
    // other units: its mutants compile and its harnesses verify with the flags.
    let inc = format!("{P}/include");
    let main = format!("{P}/src/main.c");
    let (code, out, err) = vera(&[
        "c",
        "strength",
        &main,
        "-I",
        &inc,
        "-D",
        "WITH_CLAMP",
        "--max-mutants",
        "6",
        "-j",
        "2",
        "--no-verifier-cache",
    ]);
    // `top` promises only a non-negative result: some mutants survive.
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("original: proved"), "{out}");
    assert!(
        out.contains("0 not compiling, 0 rejected by Frama-C"),
        "{out}"
    );
    assert!(!out.contains(" 0 killed"), "{out}");
    assert!(
        out.contains(&format!("survived: {main}:21 in top")),
        "{out}"
    );
}

#[test]
fn sarif_has_one_result_per_open_goal_at_its_clause() {
    // Without WITH_CLAMP, reset_at reads buf[i] for any i: its memory-access
    // goals are open, in src/main.c at the `return buf[k];` line.
    let cache = tempfile::tempdir().unwrap();
    let cache_dir = cache.path().display().to_string();
    let inc = format!("{P}/include");
    let files: Vec<String> = ["buffer.c", "stats.c", "main.c"]
        .iter()
        .map(|f| format!("{P}/src/{f}"))
        .collect();
    let mut args = vec![
        "c",
        "verify",
        "-I",
        &inc,
        "--cache-dir",
        &cache_dir,
        "-j",
        "2",
    ];
    args.extend(files.iter().map(String::as_str));
    args.extend(["--format", "sarif"]);
    let (code, out, err) = vera(&args);
    assert_eq!(code, 1, "{err}");
    let log: Value = serde_json::from_str(&out).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert!(!results.is_empty());
    let main = format!("{P}/src/main.c");
    let open: Vec<&Value> = results
        .iter()
        .filter(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == main.as_str()
                && r["locations"][0]["physicalLocation"]["region"]["startLine"] == 14
        })
        .collect();
    assert!(!open.is_empty(), "{out}");
    for r in &open {
        assert_eq!(r["ruleId"], "VERA-C-NOT-PROVED");
        let m = r["message"]["text"].as_str().unwrap();
        assert!(
            m.starts_with("goal typed_reset_at_assert_rte_mem_access"),
            "{m}"
        );
    }
    // One result per goal: no two results name the same goal.
    let mut names: Vec<&str> = results
        .iter()
        .filter_map(|r| r["message"]["text"].as_str())
        .filter_map(|m| m.strip_prefix("goal "))
        .filter_map(|m| m.split_whitespace().next())
        .collect();
    let n = names.len();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), n, "{out}");
}

#[test]
fn one_file_with_a_header_beside_it_needs_no_flags() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("h.h"),
        "/*@ assigns \\nothing;\n    ensures \\result == 2; */\nint two(void);\n",
    )
    .unwrap();
    let src = tmp.path().join("s.c");
    std::fs::write(&src, "#include \"h.h\"\nint two(void) { return 3; }\n").unwrap();
    let src = src.display().to_string();
    // The contract on the prototype in the header is the function's.
    let (code, out, err) = vera(&["c", "segments", &src]);
    assert_eq!(code, 0, "{err}");
    let h = tmp.path().join("h.h").display().to_string();
    assert!(
        out.contains(&format!("two contract at {h}:1 (annotated)")),
        "{out}"
    );
    // ... and is what verify checks: the body returns 3, so it is not proved, at h.h:2.
    let (code, out, err) = vera(&[
        "c",
        "verify",
        &src,
        "--no-verifier-cache",
        "--wp-timeout",
        "2",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains(&format!("{h}:2: postcondition")), "{out}");

    // A header that is not there is an error at the include line, not a silent pass.
    let miss = tmp.path().join("miss.c");
    std::fs::write(&miss, "int a;\n#include \"nothere.h\"\n").unwrap();
    let (code, out, err) = vera(&["c", "segments", &miss.display().to_string()]);
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("miss.c:2:10: preprocessor: "), "{err}");
}

#[test]
fn an_include_directory_may_have_a_comma_in_its_name() {
    let tmp = tempfile::tempdir().unwrap();
    let inc = tmp.path().join("a,b");
    std::fs::create_dir(&inc).unwrap();
    std::fs::write(inc.join("v.h"), "#define V 1\n").unwrap();
    let src = tmp.path().join("t.c");
    std::fs::write(
        &src,
        "#include \"v.h\"\n/*@ assigns \\nothing; ensures \\result == 1; */\nint f(void) { return V; }\n",
    )
    .unwrap();
    let inc = inc.display().to_string();
    let src = src.display().to_string();
    // Frama-C splits its preprocessor option at commas; the directory must reach
    // its preprocessor whole, or the header is not found and verify fails.
    let (code, out, err) = vera(&["c", "verify", "-I", &inc, &src, "--no-verifier-cache"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("proved (2 goals)"), "{out}");
}

#[test]
fn a_goal_under_a_line_directive_is_reported_where_the_directive_says() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("l.c");
    std::fs::write(
        &src,
        "/*@ assigns \\nothing;\n    ensures \\result == 1; */\nint one(void) { return 1; }\n\
         #line 50 \"gen.y\"\n/*@ assigns \\nothing;\n    ensures \\result == 3; */\n\
         int three(void) { return 4; }\n",
    )
    .unwrap();
    let src = src.display().to_string();
    let common = ["--no-verifier-cache", "--wp-timeout", "2"];
    let mut args = vec!["c", "verify", &src];
    args.extend(common);
    let (code, out, err) = vera(&args);
    assert_eq!(code, 1, "{out}{err}");
    // Generated code points at its grammar, as a compiler's messages would.
    assert!(
        out.contains("gen.y:51: postcondition `\\result ≡ 3` in three"),
        "{out}"
    );
    args.extend(["--format", "sarif"]);
    let (code, out, _) = vera(&args);
    assert_eq!(code, 1);
    let sarif: Value = serde_json::from_str(&out).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{out}");
    let loc = &results[0]["locations"][0]["physicalLocation"];
    assert_eq!(loc["region"]["startLine"], 51, "{out}");
}

#[test]
fn static_copies_get_the_names_the_linker_gives_them() {
    let tmp = tempfile::tempdir().unwrap();
    let unit = |name: &str, text: &str| {
        let p = tmp.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    let c = "/*@ assigns \\nothing;\n    ensures \\result == N; */\n";
    let u1 = unit(
        "u1.c",
        &format!(
            "{}static int f(void) {{ return 1; }}\n",
            c.replace('N', "1")
        ),
    );
    // The second static `f` returns 3 against a contract of 2: not proved.
    let u2 = unit(
        "u2.c",
        &format!(
            "{}static int f(void) {{ return 3; }}\n",
            c.replace('N', "2")
        ),
    );
    // A global `f_0` makes Frama-C call the second static copy `f_1`.
    let u3 = unit(
        "u3.c",
        &format!("{}int f_0(void) {{ return 7; }}\n", c.replace('N', "7")),
    );
    let (code, out, err) = vera(&[
        "c",
        "verify",
        &u1,
        &u2,
        &u3,
        "--no-verifier-cache",
        "--wp-timeout",
        "2",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    // Each function verified once: 3 functions, 2 goals each.
    assert!(out.contains("not proved (1 of 6 goals open)"), "{out}");
    assert!(out.contains("[f, f_1]"), "{out}");
    assert!(
        out.contains("u2.c:2: postcondition `\\result ≡ 2` in f_1: Unknown"),
        "{out}"
    );
}

#[test]
fn files_with_crlf_line_ends_are_reported_at_their_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("w.c");
    std::fs::write(
        &src,
        "/*@ assigns \\nothing;\r\n    ensures \\result == 1; */\r\nint one(void) { return 1; }\r\n\r\n\
         /*@ assigns \\nothing;\r\n    ensures \\result == 3; */\r\nint three(void) { return 4; }\r\n",
    )
    .unwrap();
    let src = src.display().to_string();
    // One file as it is, and the same file as a program (a flag): both read
    // the clause at line 6, where it is (Frama-C alone says 7).
    for flags in [&[][..], &["-DX"][..]] {
        let mut args = vec![
            "c",
            "verify",
            &src,
            "--no-verifier-cache",
            "--wp-timeout",
            "1",
        ];
        args.extend(flags);
        let (code, out, err) = vera(&args);
        assert_eq!(code, 1, "{out}{err}");
        assert!(
            out.contains("w.c:6: postcondition `\\result ≡ 3` in three"),
            "{flags:?}: {out}"
        );
    }
}

#[test]
fn functions_inside_conditional_blocks_are_seen() {
    // A file whose functions sit inside `#ifndef`/`#ifdef` blocks is
    // preprocessed: the branch the (absent) flags select is the program, the
    // other one is not.
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("g.c");
    std::fs::write(
        &src,
        "#ifndef G_C\n#define G_C\n/*@ assigns \\nothing;\n    ensures \\result == x; */\nint id(int x) { return x; }\n#ifdef EXTRA\nint extra(void) { return 1; }\n#endif\n#endif\n",
    )
    .unwrap();
    let src = src.display().to_string();
    let (code, out, err) = vera(&["c", "segments", &src]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&format!("id contract at {src}:3 (annotated)")),
        "{out}"
    );
    assert!(!out.contains("extra"), "{out}");
    let (code, out, _) = vera(&["c", "segments", &src, "-D", "EXTRA"]);
    assert_eq!(code, 0);
    assert!(out.contains("extra"), "{out}");
}

/// Runs vera in `dir`; returns (exit code, stdout, stderr).
fn vera_in(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vera"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("vera runs");
    (
        out.status.code().expect("exit code"),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// File names Frama-C would misread: `-dash.c` is verified as a file (not taken for an
/// option), a name with `"` or `\` is refused by vera with a message that says why.
#[test]
fn file_names_frama_c_would_misread() {
    let t = tempfile::tempdir().unwrap();
    let clamp = common::root().join("examples/c/clamp.c");
    for name in ["-dash.c", "q\"uote.c", "back\\slash.c"] {
        std::fs::copy(&clamp, t.path().join(name)).unwrap();
    }
    let (code, out, err) = vera_in(t.path(), &["c", "verify", "--", "-dash.c"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("-dash.c: proved (7 goals)"), "{out}");
    for name in ["q\"uote.c", "back\\slash.c"] {
        let (code, out, err) = vera_in(t.path(), &["c", "verify", name]);
        assert_eq!(code, 2, "{out}{err}");
        assert!(
            err.contains(&format!(
                "{name}: Frama-C cannot read a file whose name has a `\"` or a `\\`"
            )),
            "{err}"
        );
    }
}

/// A brace a header leaves open is reported in the header, at its line, not at the end
/// of the `.c` file where the parser notices it.
#[test]
fn a_brace_a_header_leaves_open_is_reported_in_the_header() {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(t.path().join("bad.h"), "struct s {\n  int a;\n").unwrap();
    std::fs::write(
        t.path().join("use.c"),
        "#include \"bad.h\"\nint g(int y) { return y; }\n",
    )
    .unwrap();
    let (code, out, err) = vera_in(t.path(), &["c", "verify", "use.c"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.starts_with("bad.h:1: this `{` is not closed before the end of the file"),
        "{err}"
    );
}
