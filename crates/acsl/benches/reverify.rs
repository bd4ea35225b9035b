//! Re-verification of a program of several files after an edit: how many
//! segments run Frama-C again and how long it takes, on the test program
//! (tests/c/project: 3 units, 2 headers) and on ACSL by Example's binary search
//! (4 units, headers and logic files). Each program is copied to a temporary
//! directory and verified cold, warm, after an edit of one function's body that
//! keeps its lines, and after an edit that adds a line to it.
//!
//! `cargo bench -p acsl --bench reverify` (needs frama-c, why3, z3, cvc5, gcc)

use std::path::{Path, PathBuf};
use std::time::Instant;

use acsl::{read_compile_commands, verify::verify_program, Preprocessor, Program, WpConfig};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_dir(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap();
        }
    }
}

struct Case {
    name: &'static str,
    /// The copied directory, relative to tests/c.
    dir: &'static str,
    /// The compilation database, relative to `dir`.
    db: &'static str,
    /// The edited file, relative to `dir`, the function, and the two edits.
    file: &'static str,
    function: &'static str,
    same_lines: (&'static str, &'static str),
    new_line: (&'static str, &'static str),
}

fn run(case: &Case) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/c")
        .join(case.dir);
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&src, tmp.path());
    let cache = tempfile::tempdir().unwrap();
    let cfg = WpConfig {
        cache_dir: Some(cache.path().to_path_buf()),
        why3_config: Some(std::env::temp_dir().join("vera-bench-why3.conf")),
        ..WpConfig::default()
    };
    let pp = Preprocessor::for_frama_c(&cfg.frama_c).unwrap();
    let db: PathBuf = tmp.path().join(case.db);
    let step = |what: &str| {
        let start = Instant::now();
        let units = read_compile_commands(&db, &[]).unwrap();
        let program = Program::load(&units, &pp).unwrap();
        let r = verify_program(&program, &cfg).unwrap();
        let fresh: Vec<String> = r
            .segments
            .iter()
            .filter(|s| !s.run.cached)
            .flat_map(|s| s.functions.clone())
            .chain(
                r.lemmas
                    .iter()
                    .filter(|l| !l.cached)
                    .map(|_| "(lemmas)".to_string()),
            )
            .collect();
        println!(
            "| {} | {what} | {} | {} | {} | {:.1} s | {} |",
            case.name,
            r.segments.len() + usize::from(r.lemmas.is_some()),
            r.stats.verifier_calls,
            r.stats.cache_hits,
            start.elapsed().as_secs_f64(),
            if fresh.is_empty() {
                "—".into()
            } else {
                fresh.join(", ")
            }
        );
        assert!(r.verdict.is_proved(), "{what}: {:?}", r.verdict);
    };
    step("cold");
    step("warm");
    let file = tmp.path().join(case.file);
    let edit = |(from, to): (&str, &str)| {
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains(from), "{}: `{from}` not found", case.file);
        std::fs::write(&file, text.replacen(from, to, 1)).unwrap();
    };
    edit(case.same_lines);
    step(&format!("{} body edited, same lines", case.function));
    edit(case.new_line);
    step(&format!("{} gains a line", case.function));
}

fn main() {
    println!("| program | run | runs | Frama-C calls | cache hits | wall | re-proved |");
    println!("|---|---|---|---|---|---|---|");
    run(&Case {
        name: "tests/c/project",
        dir: "project",
        db: "compile_commands.json",
        file: "src/buffer.c",
        function: "fill",
        same_lines: ("buf[k] = v;", "buf[k] = v + 0;"),
        new_line: (
            "void fill(int *buf, int v) {\n",
            "void fill(int *buf, int v) {\n  v = v + 0;\n",
        ),
    });
    run(&Case {
        name: "ACSL by Example, BinarySearch",
        dir: "acsl-by-example",
        db: "BinarySearch/compile_commands.json",
        file: "BinarySearch/lower_bound.c",
        function: "lower_bound",
        same_lines: ("left = middle + 1u;", "left = 1u + middle;"),
        new_line: (
            "  size_type right = n;\n",
            "  size_type right = n;\n  size_type unused = 0u;\n",
        ),
    });
}
