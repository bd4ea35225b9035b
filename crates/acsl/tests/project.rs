//! Programs of several translation units with preprocessor flags: a test
//! program (tests/c/project: three .c files, two headers, a compilation
//! database, macros, an `#ifdef` chosen by `-D`, contracts on prototypes in
//! headers, a static inline function in a header, lemmas) verified by vera and
//! by a direct `frama-c` run with the same flags; locations in the original
//! files; lemmas proved once; the cache re-proving only what an edit touches;
//! bad input located in the original files.
//! These tests need frama-c, why3, z3, cvc5 and gcc (scripts/setup installs them).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use acsl::*;

fn project() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/project")
}

fn config(cache: &Path) -> WpConfig {
    WpConfig {
        timeout: 5,
        par: 2,
        jobs: 2,
        cache_dir: Some(cache.to_path_buf()),
        why3_config: Some(PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("acsl-why3.conf")),
        ..WpConfig::default()
    }
}

fn preprocessor() -> Preprocessor {
    Preprocessor::for_frama_c(Path::new("frama-c")).unwrap()
}

fn load(dir: &Path) -> Program {
    let units = read_compile_commands(&dir.join("compile_commands.json"), &[]).unwrap();
    Program::load(&units, &preprocessor()).unwrap()
}

/// (goal name, proved?) of a direct Frama-C run on `files` (absolute), each
/// with its preprocessor flags.
fn direct_run(files: &[(String, String)], cfg: &WpConfig) -> BTreeSet<(String, bool)> {
    let s = detect(cfg).unwrap();
    let per_file: Vec<String> = files
        .iter()
        .map(|(f, flags)| format!("{f}:{flags}"))
        .collect();
    let out = Command::new("frama-c")
        .args([
            "-wp",
            "-wp-rte",
            "-wp-prover",
            &cfg.prover,
            "-wp-timeout",
            "5",
            "-wp-par",
            "2",
        ])
        .arg(format!("-cpp-extra-args-per-file={}", per_file.join(",")))
        .args(files.iter().map(|(f, _)| f))
        .env("WHY3CONFIG", &s.why3_config)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    text.lines()
        .filter_map(|l| {
            let g = l.strip_prefix("[wp] ")?.split("Goal ").nth(1)?;
            Some(match g.split_once(" : ") {
                Some((name, status)) => (name.trim().to_string(), status.starts_with("Valid")),
                None => (g.trim().to_string(), false),
            })
        })
        .collect()
}

/// The project's files with the flags its compilation database gives them.
fn project_files(dir: &Path) -> Vec<(String, String)> {
    let inc = format!("-I{}", dir.join("include").display());
    let file = |f: &str| dir.join("src").join(f).display().to_string();
    vec![
        (file("buffer.c"), inc.clone()),
        (file("stats.c"), inc.clone()),
        (file("main.c"), format!("{inc} -DWITH_CLAMP")),
    ]
}

fn all_goals(r: &VerifyReport) -> Vec<&Goal> {
    r.segments
        .iter()
        .flat_map(|s| &s.run.goals)
        .chain(r.lemmas.iter().flat_map(|l| &l.goals))
        .collect()
}

#[test]
fn a_program_agrees_with_frama_c_run_directly_with_the_same_flags() {
    let cache = tempfile::tempdir().unwrap();
    let cfg = config(cache.path());
    let dir = project();
    let program = load(&dir);
    let report = verify::verify_program(&program, &cfg).unwrap();

    // The same goals with the same statuses, each exactly once.
    let goals = all_goals(&report);
    let mine: BTreeSet<(String, bool)> = goals
        .iter()
        .map(|g| (g.name.clone(), g.status == GoalStatus::Valid))
        .collect();
    assert_eq!(mine.len(), goals.len(), "a goal was proved twice");
    assert_eq!(mine, direct_run(&project_files(&dir), &cfg));
    assert!(report.verdict.is_proved(), "{:?}", report.verdict);

    // Functions from headers and macros are there: the static inline function
    // once per unit that includes it (Frama-C renames the copies), the function
    // a macro writes, and the `#ifdef` branch -DWITH_CLAMP selects (a call).
    for g in [
        "typed_imax_ensures",
        "typed_imax_0_ensures",
        "typed_imax_1_ensures",
    ] {
        assert!(mine.iter().any(|(n, _)| n == g), "{g} missing");
    }
    let reset = program.functions().find(|f| f.name == "reset_at").unwrap();
    assert!(reset.refs.contains("clamp_index"));
    assert!(program.functions().any(|f| f.name == "default_value"));
    assert!(report
        .functions_without_goals
        .contains(&"default_value".to_string()));

    // Lemmas: proved in one run, in none of the segment runs.
    let lemmas = report.lemmas.as_ref().expect("a lemma run");
    let names: BTreeSet<&str> = lemmas.goals.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(
        names,
        BTreeSet::from([
            "typed_lemma_capacity_positive",
            "typed_lemma_twice_capacity"
        ])
    );
    for s in &report.segments {
        assert!(s.run.goals.iter().all(|g| !g.name.contains("lemma")));
    }
    // Located at their `lemma` keyword in the header.
    let at: BTreeSet<(String, usize)> = lemmas
        .goals
        .iter()
        .map(|g| (g.file.clone().unwrap_or_default(), g.line.unwrap_or(0)))
        .collect();
    let header = |l: usize| (format!("{}/include/buffer.h", rel(&dir)), l);
    assert_eq!(at, BTreeSet::from([header(12), header(13)]));

    // Every location is in an original file, at the clause: the contract on
    // the prototype in stats.h, the ensures of reset_at in main.c.
    let originals = [
        "src/buffer.c",
        "src/stats.c",
        "src/main.c",
        "include/buffer.h",
        "include/stats.h",
    ];
    let props: Vec<&Property> = report
        .segments
        .iter()
        .flat_map(|s| &s.run.properties)
        .chain(lemmas.properties.iter())
        .collect();
    assert!(!props.is_empty());
    for p in &props {
        let f = p.file.as_deref().unwrap_or("");
        assert!(
            originals.iter().any(|o| f.ends_with(o)),
            "{f} is not an original file ({p:?})"
        );
        let lines = std::fs::read_to_string(dir.join(f))
            .or_else(|_| std::fs::read_to_string(f))
            .unwrap()
            .lines()
            .count();
        assert!(p.line >= 1 && p.line <= lines, "{p:?}");
    }
    let ensures = |function: &str| {
        props
            .iter()
            .find(|p| p.function == function && p.kind == "postcondition")
            .map(|p| (p.file.clone().unwrap(), p.line))
            .unwrap()
    };
    let (f, l) = ensures("reset_at");
    assert!(f.ends_with("src/main.c") && l == 10, "{f}:{l}");
    let (f, l) = ensures("peak");
    assert!(f.ends_with("include/stats.h") && l == 6, "{f}:{l}");
    // Goals carry the location and key of their clause.
    let g = goals
        .iter()
        .find(|g| g.name == "typed_reset_at_ensures")
        .unwrap();
    assert_eq!(g.line, Some(10));
    assert!(g
        .key
        .as_deref()
        .unwrap()
        .starts_with("reset_at|postcondition|"));
    let inv = goals
        .iter()
        .find(|g| g.name == "typed_fill_loop_invariant_established")
        .unwrap();
    assert!(inv.file.as_deref().unwrap().ends_with("src/buffer.c"));
    assert_eq!(inv.line, Some(10));
}

#[test]
fn the_ifdef_branch_follows_the_flags() {
    let cache = tempfile::tempdir().unwrap();
    let cfg = config(cache.path());
    let dir = project();
    let unit = |f: &str, defs: &[&str]| {
        let mut args = vec![format!("-I{}", dir.join("include").display())];
        args.extend(defs.iter().map(|d| format!("-D{d}")));
        Unit {
            source: dir.join("src").join(f),
            directory: dir.clone(),
            flags: CppFlags::from_args(&args, &dir, "test").unwrap(),
        }
    };
    // Without WITH_CLAMP, reset_at reads buf[i] for any i: the memory access
    // cannot be proved, and clamp_index is not called.
    let units = vec![
        unit("buffer.c", &[]),
        unit("stats.c", &[]),
        unit("main.c", &[]),
    ];
    let program = Program::load(&units, &preprocessor()).unwrap();
    let reset = program.functions().find(|f| f.name == "reset_at").unwrap();
    assert!(!reset.refs.contains("clamp_index"));
    let report = verify::verify_program(&program, &cfg).unwrap();
    assert!(!report.verdict.is_proved());
    let open: Vec<&Goal> = all_goals(&report)
        .into_iter()
        .filter(|g| g.status != GoalStatus::Valid)
        .collect();
    assert!(
        open.iter()
            .any(|g| g.name.starts_with("typed_reset_at_assert_rte_mem_access")),
        "{open:?}"
    );

    let units = vec![
        unit("buffer.c", &[]),
        unit("stats.c", &[]),
        unit("main.c", &["WITH_CLAMP"]),
    ];
    let program = Program::load(&units, &preprocessor()).unwrap();
    let reset = program.functions().find(|f| f.name == "reset_at").unwrap();
    assert!(reset.refs.contains("clamp_index"));
}

/// Copy the test program to a temporary directory.
fn copy_project() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for sub in ["src", "include"] {
        std::fs::create_dir_all(tmp.path().join(sub)).unwrap();
        for e in std::fs::read_dir(project().join(sub)).unwrap() {
            let p = e.unwrap().path();
            std::fs::copy(&p, tmp.path().join(sub).join(p.file_name().unwrap())).unwrap();
        }
    }
    std::fs::copy(
        project().join("compile_commands.json"),
        tmp.path().join("compile_commands.json"),
    )
    .unwrap();
    tmp
}

#[test]
fn an_edit_re_proves_only_the_segments_it_touches() {
    let cache = tempfile::tempdir().unwrap();
    let cfg = config(cache.path());
    let tmp = copy_project();
    let first = verify::verify_program(&load(tmp.path()), &cfg).unwrap();
    let runs = first.segments.len() + 1;
    assert_eq!(first.stats.verifier_calls, runs);
    let again = verify::verify_program(&load(tmp.path()), &cfg).unwrap();
    assert_eq!(
        (again.stats.verifier_calls, again.stats.cache_hits),
        (0, runs)
    );

    // Change fill's body (same lines): only fill's segment runs again; its
    // callers use fill's contract, which did not change.
    let path = tmp.path().join("src/buffer.c");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("buf[k] = v;", "buf[k] = v + 0;")).unwrap();
    let edited = verify::verify_program(&load(tmp.path()), &cfg).unwrap();
    assert_eq!(edited.stats.verifier_calls, 1, "{:?}", edited.stats);
    assert!(edited.verdict.is_proved());
    let fresh: Vec<&SegmentReport> = edited.segments.iter().filter(|s| !s.run.cached).collect();
    assert_eq!(fresh.len(), 1);
    assert_eq!(fresh[0].functions, vec!["fill".to_string()]);

    // Add a line to clamp_index's body: it runs again, and so does fill, which
    // moved one line down (its results name lines); nothing in the other files,
    // whose harnesses see clamp_index only through its contract.
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replace(
            "  if (i < 0) return 0;\n",
            "  if (i < 0) return 0;\n  if (i == 0) return 0;\n",
        ),
    )
    .unwrap();
    let moved = verify::verify_program(&load(tmp.path()), &cfg).unwrap();
    let mut fresh: Vec<String> = moved
        .segments
        .iter()
        .filter(|s| !s.run.cached)
        .flat_map(|s| s.functions.clone())
        .collect();
    fresh.sort();
    assert_eq!(fresh, ["clamp_index", "fill"], "{:?}", moved.stats);
    assert!(moved.lemmas.as_ref().unwrap().cached);
    assert!(moved.verdict.is_proved());
    let invariant = moved
        .segments
        .iter()
        .flat_map(|s| &s.run.properties)
        .find(|p| p.function == "fill" && p.kind == "loop invariant")
        .unwrap();
    assert_eq!(invariant.line, 11);

    // Change a flag: everything runs again.
    let db = tmp.path().join("compile_commands.json");
    let text = std::fs::read_to_string(&db).unwrap();
    std::fs::write(&db, text.replace("\"-O2\", \"-Wall\"", "\"-DUNUSED\"")).unwrap();
    let reflagged = verify::verify_program(&load(tmp.path()), &cfg).unwrap();
    assert_eq!(reflagged.stats.cache_hits, 0);
}

fn load_err(dir: &Path, files: &[&str], flags: &[&str]) -> Diagnostics {
    let args: Vec<String> = flags.iter().map(|s| s.to_string()).collect();
    let units: Vec<Unit> = files
        .iter()
        .map(|f| Unit {
            source: dir.join(f),
            directory: dir.to_path_buf(),
            flags: CppFlags::from_args(&args, dir, "test").unwrap(),
        })
        .collect();
    Program::load(&units, &preprocessor()).unwrap_err()
}

/// A bracket an included file leaves open, or closes without opening it, is an error
/// of that file, at its line, though the parser notices it only in the file that
/// includes it.
#[test]
fn a_bracket_a_header_leaves_open_is_located_in_the_header() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("open.h"), "/* { */\nstruct s {\n  int a;\n").unwrap();
    std::fs::write(
        dir.join("a.c"),
        "#include \"open.h\"\nint g(int y) { return y; }\n",
    )
    .unwrap();
    std::fs::write(dir.join("extra.h"), "int f(int x) { return x; }}\n").unwrap();
    std::fs::write(
        dir.join("b.c"),
        "#include \"extra.h\"\nint g(int y) { return y; }\n",
    )
    .unwrap();
    let d = load_err(dir, &["a.c", "b.c"], &[]);
    let shown: Vec<String> = d
        .items
        .iter()
        .map(|i| {
            format!(
                "{}:{}: {}",
                i.file
                    .as_ref()
                    .unwrap()
                    .file_name()
                    .unwrap()
                    .to_string_lossy(),
                i.line,
                i.message
            )
        })
        .collect();
    assert_eq!(
        shown[0],
        "open.h:2: this `{` is not closed before the end of the file (a file that includes it cannot close it)",
        "{shown:#?}"
    );
    // extra.h's own syntax error is found by the parser, in extra.h.
    assert!(
        shown
            .iter()
            .any(|s| s.starts_with("extra.h:1: syntax error")),
        "{shown:#?}"
    );
}

#[test]
fn bad_input_is_located_in_the_original_files() {
    let tmp = copy_project();
    let dir = tmp.path();
    // A missing header: the preprocessor's error at the #include line.
    std::fs::write(
        dir.join("src/missing.c"),
        "int a;\n#include \"nowhere.h\"\n",
    )
    .unwrap();
    let d = load_err(dir, &["src/missing.c"], &["-Iinclude"]);
    let e = &d.items[0];
    assert!(e.file.as_ref().unwrap().ends_with("src/missing.c"), "{d}");
    assert_eq!(e.line, 2, "{d}");
    assert!(e.message.contains("nowhere.h"), "{d}");

    // A syntax error in a header is reported in the header, at the broken
    // declaration, not in the file that includes it.
    std::fs::write(
        dir.join("include/broken.h"),
        "int ok;\nint broken(int x {\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("src/uses.c"),
        "int before;\n#include \"broken.h\"\nint f(void) { return 0; }\n",
    )
    .unwrap();
    let d = load_err(dir, &["src/uses.c"], &["-Iinclude"]);
    assert!(
        d.items.iter().any(|e| e
            .file
            .as_ref()
            .is_some_and(|f| f.ends_with("include/broken.h"))
            && e.line == 2),
        "{d}"
    );

    // A macro that is not defined leaves text that does not parse: located at
    // the invocation in the source.
    std::fs::write(
        dir.join("src/macro.c"),
        "int a;\n\nUNDEFINED_MACRO(x, y)\nint b;\n",
    )
    .unwrap();
    let d = load_err(dir, &["src/macro.c"], &[]);
    assert!(
        d.items
            .iter()
            .any(|e| e.file.as_ref().is_some_and(|f| f.ends_with("src/macro.c")) && e.line == 3),
        "{d}"
    );

    // Errors of several units come back together; a missing file is one.
    let d = load_err(dir, &["src/missing.c", "src/nonexistent.c"], &["-Iinclude"]);
    assert_eq!(d.items.len(), 2, "{d}");
    let shown = d.to_string();
    assert!(
        shown.contains("nowhere.h") && shown.contains("nonexistent.c"),
        "{shown}"
    );

    // Flags: a flag without its value, a database that is not one.
    let e = CppFlags::from_args(&["-I".to_string()], dir, "the command line").unwrap_err();
    assert!(e.to_string().contains("`-I` needs a value"), "{e}");
    std::fs::write(
        dir.join("bad.json"),
        "[\n  {\"directory\": \".\",\n   \"file\": 3}\n]\n",
    )
    .unwrap();
    let e = read_compile_commands(&dir.join("bad.json"), &[]).unwrap_err();
    assert!(e.to_string().contains("line 3"), "{e}");
    let e = read_compile_commands(
        &dir.join("compile_commands.json"),
        &[PathBuf::from("/elsewhere/x.c")],
    )
    .unwrap_err();
    assert!(matches!(e, FlagError::NotInDatabase { .. }), "{e}");
}

#[test]
fn compile_command_flags_are_read_like_a_compiler_reads_them() {
    let dir = Path::new("/proj/build");
    let args: Vec<String> = [
        "-I../include",
        "-I",
        "gen",
        "-isystem",
        "/opt/x",
        "-DA=1",
        "-D",
        "B",
        "-UC",
        "-include",
        "cfg.h",
        "-std=c99",
        "-O2",
        "-Wall",
        "-c",
        "-o",
        "out.o",
        "-MF",
        "dep.d",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let f = CppFlags::from_args(&args, dir, "test").unwrap();
    assert_eq!(
        f.args,
        [
            "-I/proj/include",
            "-I/proj/build/gen",
            "-isystem",
            "/opt/x",
            "-DA=1",
            "-DB",
            "-UC",
            "-include",
            "/proj/build/cfg.h",
            "-std=c99"
        ]
    );
    assert_eq!(
        f.ignored,
        ["-O2", "-Wall", "-c", "-o", "out.o", "-MF", "dep.d"]
    );
}

#[test]
fn a_false_lemma_is_not_proved_in_a_single_file_either() {
    // Runs restricted to functions (-wp-fct) generate no lemma goals: without
    // the lemma run, this file would verify although its lemma is false.
    let cache = tempfile::tempdir().unwrap();
    let cfg = config(cache.path());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lemma.c");
    std::fs::write(
        &path,
        "/*@ lemma wrong: \\forall integer x; x > 0; */\n\n/*@ assigns \\nothing;\n    ensures \\result == 1; */\nint one(void) { return 1; }\n",
    )
    .unwrap();
    let r = verify(&path, &cfg).unwrap();
    assert!(!r.verdict.is_proved(), "{:?}", r.verdict);
    let lemmas = r.lemmas.as_ref().unwrap();
    assert_eq!(lemmas.goals.len(), 1);
    assert_ne!(lemmas.goals[0].status, GoalStatus::Valid);
    assert!(r.segments.iter().all(|s| s.run.verdict.is_proved()));
}

/// An ACSL by Example folder (tests/c/acsl-by-example, MIT) verified from its
/// compilation database, compared goal for goal with a direct Frama-C run on
/// `files` with the flags of its makefiles (`-I` of each of `includes`).
fn acsl_by_example(folder: &str, files: &[&str], includes: &[&str]) -> VerifyReport {
    let cache = tempfile::tempdir().unwrap();
    let cfg = config(cache.path());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/acsl-by-example");
    let dir = root.join(folder);
    let units = read_compile_commands(&dir.join("compile_commands.json"), &[]).unwrap();
    let program = Program::load(&units, &preprocessor()).unwrap();
    let report = verify::verify_program(&program, &cfg).unwrap();
    let goals = all_goals(&report);
    let mine: BTreeSet<(String, bool)> = goals
        .iter()
        .map(|g| (g.name.clone(), g.status == GoalStatus::Valid))
        .collect();
    assert_eq!(mine.len(), goals.len());
    let flags = includes
        .iter()
        .map(|f| format!("-I{}", crate_path(&dir, f)))
        .collect::<Vec<_>>()
        .join(" ");
    let files: Vec<(String, String)> = files
        .iter()
        .map(|f| (dir.join(f).display().to_string(), flags.clone()))
        .collect();
    assert_eq!(mine, direct_run(&files, &cfg));
    report
}

/// The properties of a report's segments.
fn segment_properties(report: &VerifyReport) -> Vec<&Property> {
    report
        .segments
        .iter()
        .flat_map(|s| &s.run.properties)
        .collect()
}

#[test]
fn acsl_by_example_binary_search_verifies_as_with_frama_c_directly() {
    // Contracts in headers, logic and lemmas in .acsl files included through -I.
    let report = acsl_by_example(
        "BinarySearch",
        &[
            "lower_bound.c",
            "upper_bound.c",
            "equal_range.c",
            "binary_search.c",
        ],
        &[".", "..", "../Logic", "../MinMax"],
    );
    assert!(report.verdict.is_proved(), "{:?}", report.verdict);
    // The lemmas of the .acsl files, proved once, located in them.
    let lemmas = report.lemmas.as_ref().unwrap();
    assert!(lemmas.goals.len() >= 5, "{:?}", lemmas.goals);
    let lemma_props: Vec<&Property> = lemmas
        .properties
        .iter()
        .filter(|p| p.kind == "lemma")
        .collect();
    assert!(!lemma_props.is_empty(), "{:?}", lemmas.properties);
    assert!(
        lemma_props
            .iter()
            .all(|p| p.file.as_deref().is_some_and(|f| f.ends_with(".acsl"))),
        "{lemma_props:?}"
    );
    // Contracts on the prototypes in the headers.
    assert!(segment_properties(&report)
        .iter()
        .any(|p| p.function == "lower_bound"
            && p.kind == "postcondition"
            && p.file
                .as_deref()
                .is_some_and(|f| f.ends_with("BinarySearch/lower_bound.h"))));
}

#[test]
fn acsl_by_example_min_max_verifies_as_with_frama_c_directly() {
    // Seven units; max_seq calls max_element2 of another unit through the
    // contract in its header; minmax_element returns a struct made by make_pair.
    let report = acsl_by_example(
        "MinMax",
        &[
            "clamp.c",
            "make_pair.c",
            "max_element.c",
            "max_element2.c",
            "max_seq.c",
            "min_element.c",
            "minmax_element.c",
        ],
        &[".", "..", "../Logic"],
    );
    let props = segment_properties(&report);
    // The callee's precondition is checked at the call in max_seq.c.
    assert!(
        props.iter().any(|p| p.function == "max_seq"
            && p.kind == "precondition of max_element2"
            && p.file
                .as_deref()
                .is_some_and(|f| f.ends_with("MinMax/max_seq.c"))),
        "{props:#?}"
    );
    // max_seq's segment has max_element2 by its contract only.
    let seg = report
        .segments
        .iter()
        .find(|s| s.functions.contains(&"max_seq".to_string()))
        .unwrap();
    assert!(seg.assumed.contains(&"max_element2".to_string()), "{seg:?}");
    for f in ["clamp", "max_element", "min_element", "minmax_element"] {
        assert!(
            props.iter().any(|p| p.function == f
                && p.kind == "postcondition"
                && p.file
                    .as_deref()
                    .is_some_and(|h| h.ends_with(&format!("MinMax/{f}.h")))),
            "{f}"
        );
    }
}

fn crate_path(dir: &Path, rel: &str) -> String {
    acsl::project::normalize(&dir.join(rel))
        .display()
        .to_string()
}

/// `dir` as the reports name it: relative to the working directory.
fn rel(dir: &Path) -> String {
    let cwd = std::env::current_dir().unwrap();
    dir.strip_prefix(&cwd).unwrap_or(dir).display().to_string()
}

/// The mutants of a report by what they change (line, operator, text) with
/// their fates.
fn fates(r: &StrengthReport) -> Vec<(usize, Operator, String, String, String)> {
    let mut v: Vec<_> = r
        .mutants
        .iter()
        .map(|m| {
            let fate = serde_json::to_value(&m.fate).unwrap()["fate"]
                .as_str()
                .unwrap()
                .to_string();
            (
                m.mutant.line,
                m.mutant.operator,
                m.mutant.original.clone(),
                m.mutant.replacement.clone(),
                fate,
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn strength_of_a_file_alone_and_as_a_program_agree() {
    // The same self-contained files through both pipelines: harnesses cut from
    // the file's text (`strength`), and the whole preprocessed program verified
    // in a private copy of the original files (`strength_program`). The same
    // mutants, and each with the same fate.
    let cache = tempfile::tempdir().unwrap();
    // Mutants leave goals open: each costs the whole prover timeout.
    let cfg = WpConfig {
        timeout: 2,
        ..config(cache.path())
    };
    let opts = StrengthOptions::default();
    let c = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c");
    let pp = preprocessor();
    let name = "abs_weak.c";
    let path = c.join(name);
    let alone = strength(&path, &cfg, &opts).unwrap();
    let units = vec![Unit {
        source: path.clone(),
        directory: c.clone(),
        flags: CppFlags::default(),
    }];
    let program = Program::load(&units, &pp).unwrap();
    let ws = workspace::Workspace::new(&program, &pp).unwrap();
    let whole = strength_program(&ws, &cfg, &opts).unwrap();
    assert!(alone.killed > 0, "{name}");
    assert_eq!(fates(&alone), fates(&whole), "{name}");
    assert_eq!(alone.vdr, whole.vdr, "{name}");
    assert_eq!(whole.not_in_source, 0);
    assert!(whole.mutants.iter().all(|m| m.file.is_some()));
}

#[test]
fn strength_of_the_project_mutates_each_file_as_written() {
    let cache = tempfile::tempdir().unwrap();
    let cfg = WpConfig {
        timeout: 2,
        ..config(cache.path())
    };
    let dir = project();
    let before = texts(&dir);
    let program = load(&dir);
    let pp = preprocessor();
    let ws = workspace::Workspace::new(&program, &pp).unwrap();
    // clamp_index, peak and reset_at are left out to keep the test short.
    let opts = StrengthOptions {
        functions: Some(
            ["imax", "fill", "top", "default_value"]
                .map(String::from)
                .to_vec(),
        ),
        ..StrengthOptions::default()
    };
    let r = strength_program(&ws, &cfg, &opts).unwrap();
    assert!(r.baseline.is_proved(), "{:?}", r.baseline);
    // Every mutant is at its place in the file it names, as written there.
    let mut by_file: BTreeMap<String, usize> = BTreeMap::new();
    for m in &r.mutants {
        let f = m.file.as_ref().expect("a program's mutant names its file");
        let text = std::fs::read_to_string(f).unwrap();
        assert_eq!(&text[m.mutant.start..m.mutant.end], m.mutant.original);
        assert_eq!(
            text[..m.mutant.start].matches('\n').count() + 1,
            m.mutant.line
        );
        *by_file
            .entry(f.file_name().unwrap().to_string_lossy().into())
            .or_default() += 1;
    }
    // The header's inline function, in every unit, is mutated once, in the
    // header; a loop bound written with a macro is mutated as written.
    let imax = r.mutants.iter().filter(|m| m.mutant.function == "imax");
    assert_eq!(imax.clone().count(), 5, "{by_file:?}");
    assert!(imax
        .clone()
        .all(|m| m.file.as_ref().unwrap().ends_with("include/buffer.h")));
    assert!(r
        .mutants
        .iter()
        .any(|m| m.mutant.function == "fill" && m.mutant.original == "CAPACITY"));
    // `a > b` -> `a >= b` in imax compiles to the same object in every unit.
    assert!(r.mutants.iter().any(|m| m.mutant.function == "imax"
        && m.mutant.replacement == ">="
        && m.fate == Fate::Equivalent));
    // default_value is written by a macro invocation: its mutants have no place.
    assert!(r.not_in_source > 0);
    assert!(!r
        .mutants
        .iter()
        .any(|m| m.mutant.function == "default_value"));
    // The weak postcondition of `top` lets its argument mutants survive; a
    // deleted store breaks fill's loop invariant, located in buffer.c.
    assert!(r
        .survivors()
        .any(|m| m.mutant.function == "top" && m.mutant.line == 21));
    let deleted = r
        .mutants
        .iter()
        .find(|m| m.mutant.function == "fill" && m.mutant.original == "buf[k] = v;")
        .unwrap();
    match &deleted.fate {
        Fate::Killed { properties, .. } => assert!(
            properties.iter().any(|p| p
                .file
                .as_deref()
                .is_some_and(|f| f.ends_with("src/buffer.c"))
                && p.line == 11),
            "{properties:?}"
        ),
        f => panic!("deleting the store is not killed: {f:?}"),
    }
    assert_eq!(
        r.considered,
        r.equivalent + r.not_compiling + r.rejected + r.killed + r.survived
    );
    // The user's files are as they were.
    assert_eq!(texts(&dir), before);
    // Another copy of the program: every run and compilation from the caches,
    // the same report.
    let again = workspace::Workspace::new(&program, &pp).unwrap();
    let r2 = strength_program(&again, &cfg, &opts).unwrap();
    assert_eq!(r2.stats.verifier_calls, 0, "{:?}", r2.stats);
    assert_eq!(r2.stats.compilations, 0, "{:?}", r2.stats);
    assert_eq!(fates(&r2), fates(&r));
    assert_eq!(r2.baseline_open, r.baseline_open);
}

/// Every file under `dir` with its bytes.
fn texts(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}
