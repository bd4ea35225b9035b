//! The C synthesis loop on a program of two files and a header, driven by the
//! scripted provider, with the real Frama-C/WP as the judge (frama-c, why3, z3,
//! cvc5 and gcc must be installed; scripts/setup does it): clauses that use the
//! header's macros are verified in the original files with the build's flags,
//! and each kept clause lands in the file it belongs to (a source, the header
//! where the prototype's contract is, before a macro that writes a function).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use acsl::workspace::Workspace;
use acsl::{CppFlags, Preprocessor, Program, Unit, WpConfig};
use llm::{Cache, Client, Provider, Request, Response, Scripted};
use pipeline::csynth::{synthesize_program, ClauseStatus, PointOutcome, SynthOptions};

const HEADER: &str = "#define MAXV 100\n\
\n\
int bounded(int x);\n\
\n\
/*@ assigns \\nothing; */\n\
int clampz(int x);\n";

const A: &str = "#include \"lim.h\"\n\
\n\
int bounded(int x) {\n\
\tif (x > MAXV) return MAXV;\n\
\tif (x < 0) return 0;\n\
\treturn x;\n\
}\n\
\n\
int clampz(int x) { return x < 0 ? 0 : x; }\n";

const B: &str = "#include \"lim.h\"\n\
#define GETTER(name, v) int name(void) { return v; }\n\
\n\
GETTER(seven, 7)\n\
\n\
int use(int x) { return bounded(x) + 1; }\n\
\n\
int count(void) {\n\
  int c = 0;\n\
  int n = MAXV; for (int i = 0; i < n; i++) c = i % MAXV;\n\
  return c;\n\
}\n\
\n\
int last(void) {\n\
  int c = 0;\n\
  int n = MAXV; for (int i = 0; i < n; i++) c = i;\n\
  return c;\n\
}\n";

fn first_prompt(r: &Request) -> String {
    r.messages
        .iter()
        .find(|m| m.role == llm::Role::User)
        .map(|m| m.content.clone())
        .unwrap_or_default()
}

fn clauses(items: &[(&str, &str)]) -> Response {
    let v: Vec<serde_json::Value> = items
        .iter()
        .map(|(k, e)| serde_json::json!({"kind": k, "expr": e}))
        .collect();
    Response::text(serde_json::json!({ "clauses": v }).to_string())
}

fn wp(cache: &Path) -> WpConfig {
    WpConfig {
        timeout: 2,
        par: 2,
        jobs: 2,
        cache_dir: Some(cache.to_path_buf()),
        why3_config: Some(PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("csynth-why3.conf")),
        ..WpConfig::default()
    }
}

/// The program of `root`'s a.c and b.c, compiled with `-Iinc`.
fn load(root: &Path, cfg: &WpConfig) -> (Program, Preprocessor) {
    let flags = CppFlags::from_args(&["-Iinc".to_string()], root, "test").unwrap();
    let units: Vec<Unit> = ["a.c", "b.c"]
        .iter()
        .map(|f| Unit {
            source: root.join(f),
            directory: root.to_path_buf(),
            flags: flags.clone(),
        })
        .collect();
    let pp = Preprocessor::for_frama_c(&cfg.frama_c).unwrap();
    (Program::load(&units, &pp).unwrap(), pp)
}

#[test]
fn clauses_go_into_the_files_they_belong_to() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("proj");
    std::fs::create_dir_all(root.join("inc")).unwrap();
    // The header has CRLF line ends (the preprocessor doubles them in comments).
    let header = HEADER.replace('\n', "\r\n");
    std::fs::write(root.join("inc/lim.h"), &header).unwrap();
    std::fs::write(root.join("a.c"), A).unwrap();
    std::fs::write(root.join("b.c"), B).unwrap();
    let cfg = wp(&dir.path().join("cache"));
    let (program, pp) = load(&root, &cfg);
    let ws = Workspace::new(&program, &pp).unwrap();

    let provider = Arc::new(Scripted::from_fn(|r, _| {
        let p = first_prompt(r);
        // The code shown is the program's, not the C library's declarations.
        assert!(!p.contains("__fc_"), "{p}");
        Ok(if p.contains("function `bounded`") {
            clauses(&[
                // Makes `if (x < 0) return 0;` dead code: a failed smoke test.
                ("requires", "0 <= x"),
                ("assigns", "\\nothing"),
                // A macro of the header: only the original files can verify it.
                ("ensures", "0 <= \\result <= MAXV"),
            ])
        } else if p.contains("function `clampz`") {
            clauses(&[
                // Already in the prototype's contract: a duplicate, not inserted.
                ("assigns", "\\nothing"),
                ("ensures", "\\result >= 0"),
                ("ensures", "\\result == x"),
            ])
        } else if p.contains("function `seven`") {
            clauses(&[("assigns", "\\nothing"), ("ensures", "\\result == 7")])
        } else if p.contains("function `count`") {
            clauses(&[])
        } else if p.contains("loop 0 of function `last`") {
            clauses(&[("loop invariant", "0 <= i <= n"), ("loop assigns", "i, c")])
        } else if p.contains("function `last`") {
            clauses(&[])
        } else if p.contains("function `use`") {
            clauses(&[
                ("assigns", "\\nothing"),
                ("ensures", "1 <= \\result <= MAXV + 1"),
            ])
        } else {
            panic!("unexpected prompt: {p}")
        })
    }));
    let p: Arc<dyn Provider> = provider;
    let client = Client::builder_arc(p)
        .cache(Cache::in_memory().unwrap())
        .build();
    // Strengthening has a test of its own below.
    let opts = SynthOptions {
        attempts: 1,
        strengthen: false,
        ..SynthOptions::default()
    };
    let out = synthesize_program(&ws, &client, &cfg, &opts, &mut |l| eprintln!("{l}")).unwrap();
    let r = &out.report;
    let status = |t: &str| {
        r.clauses
            .iter()
            .find(|c| c.text == t)
            .map(|c| c.status.clone())
            .unwrap_or_else(|| panic!("no clause {t}: {:#?}", r.clauses))
    };
    assert_eq!(
        status("ensures 0 <= \\result <= MAXV"),
        ClauseStatus::Proved
    );
    match status("requires 0 <= x") {
        ClauseStatus::Dropped { goals } => assert!(goals[0].contains("smoke test"), "{goals:?}"),
        s => panic!("a precondition that makes code dead was kept: {s:?}"),
    }
    assert_eq!(status("ensures \\result >= 0"), ClauseStatus::Proved);
    assert!(matches!(
        status("ensures \\result == x"),
        ClauseStatus::Dropped { .. }
    ));
    assert_eq!(status("ensures \\result == 7"), ClauseStatus::Proved);
    assert!(r
        .clauses
        .iter()
        .any(|c| c.at.function == "clampz" && c.status == ClauseStatus::Duplicate));
    // Proved through bounded's new contract.
    assert_eq!(
        status("ensures 1 <= \\result <= MAXV + 1"),
        ClauseStatus::Proved
    );
    assert!(r.final_verdict.is_proved(), "{:?}", r.final_verdict);
    // Points are named by their original file and line.
    let point = |f: &str| r.points.iter().find(|p| p.at.function == f).unwrap();
    assert!(point("bounded").file.as_deref().unwrap().ends_with("a.c"));
    assert_eq!(point("bounded").line, 3);
    assert!(point("clampz")
        .file
        .as_deref()
        .unwrap()
        .ends_with("inc/lim.h"));
    assert_eq!(point("clampz").line, 5);
    assert_eq!(point("seven").line, 4);

    let file = |name: &str| -> String {
        let want = std::fs::canonicalize(root.join(name)).unwrap();
        out.files
            .iter()
            .find(|(p, _)| std::fs::canonicalize(p).unwrap() == want)
            .map(|(_, t)| t.clone())
            .unwrap_or_else(|| panic!("no output for {name}"))
    };
    let a = file("a.c");
    let b = file("b.c");
    let h = file("inc/lim.h");
    // bounded's contract before its definition, indented as the file is.
    let at = a.find("int bounded(int x) {").unwrap();
    assert!(
        a[..at].contains("ensures vera_s3: 0 <= \\result <= MAXV;"),
        "{a}"
    );
    // clampz's clause inside the existing contract of its prototype, in the header.
    assert!(h.contains("\\result >= 0"), "{h}");
    assert!(!a.contains("\\result >= 0"), "{a}");
    assert!(!h.contains("\\result == x"), "{h}");
    assert_eq!(h.matches("assigns").count(), 1, "{h}");
    // seven's contract right before the macro invocation that writes it.
    let at = b.find("GETTER(seven, 7)").unwrap();
    assert!(b[..at].ends_with("\\result == 7; */\n"), "{b}");
    // The code itself is untouched, and so are the inputs.
    // The header keeps its CRLF line ends.
    assert!(!h.replace("\r\n", "").contains('\n'), "{h:?}");
    // A loop on a line where macros expand both before and after its start has
    // no place: skipped before the model is asked, with the reason.
    let skipped = r
        .points
        .iter()
        .find(|p| p.at.function == "count" && p.outcome == PointOutcome::NotPlaceable)
        .expect("count's loop is not placeable");
    assert!(
        skipped.reason.as_deref().unwrap().contains("b.c:10"),
        "{skipped:?}"
    );
    // A loop after a macro on its line is placed by the code after it, right
    // before its `for`.
    let last = &b[b.find("int last(void)").unwrap()..];
    assert!(
        last.contains("int n = MAXV; /*@ loop invariant vera_s"),
        "{b}"
    );
    let (before, after) = last.split_once("loop assigns i, c; */").unwrap();
    assert!(before.contains("0 <= i <= n;"), "{b}");
    assert!(
        after
            .trim_start()
            .starts_with("for (int i = 0; i < n; i++) c = i;"),
        "{b}"
    );
    for (name, original, new) in [
        ("a.c", A, &a),
        ("b.c", B, &b),
        ("inc/lim.h", header.as_str(), &h),
    ] {
        assert_eq!(code_of(new), code_of(original), "{name}");
        assert_eq!(
            std::fs::read_to_string(root.join(name)).unwrap(),
            original,
            "{name}"
        );
    }
}

#[test]
fn strengthening_measures_mutants_in_the_files_as_written() {
    // lim's contract is on its prototype in the header; its body is in a.c.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("proj");
    std::fs::create_dir_all(root.join("inc")).unwrap();
    std::fs::write(
        root.join("inc/m.h"),
        "#define LIM 10\n\n/*@ assigns \\nothing; */\nint lim(int x);\n",
    )
    .unwrap();
    let a = "#include \"m.h\"\n\nint lim(int x) {\n  if (x > LIM) return LIM;\n  return x;\n}\n";
    std::fs::write(root.join("a.c"), a).unwrap();
    std::fs::write(
        root.join("b.c"),
        "#include \"m.h\"\n\nint one(void) { return 1; }\n",
    )
    .unwrap();
    let cfg = wp(&dir.path().join("cache"));
    let (program, pp) = load(&root, &cfg);
    let ws = Workspace::new(&program, &pp).unwrap();

    let asked = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let seen = asked.clone();
    let provider = Arc::new(Scripted::from_fn(move |r, _| {
        let p = first_prompt(r);
        seen.lock().unwrap().push(p.clone());
        Ok(if p.contains("too weak") {
            // The strengthening prompt: one stronger postcondition for lim.
            let v = serde_json::json!({"clauses": [{
                "at": "lim:contract",
                "kind": "ensures",
                "expr": "x <= LIM ==> \\result == x"
            }]});
            Response::text(v.to_string())
        } else if p.contains("function `lim`") {
            // Weak: a mutant that returns 0 for small x satisfies it.
            clauses(&[("ensures", "\\result <= LIM")])
        } else if p.contains("function `one`") {
            clauses(&[("assigns", "\\nothing"), ("ensures", "\\result == 1")])
        } else {
            panic!("unexpected prompt: {p}")
        })
    }));
    let p: Arc<dyn Provider> = provider;
    let client = Client::builder_arc(p)
        .cache(Cache::in_memory().unwrap())
        .build();
    let opts = SynthOptions {
        attempts: 1,
        ..SynthOptions::default()
    };
    let out = synthesize_program(&ws, &client, &cfg, &opts, &mut |l| eprintln!("{l}")).unwrap();
    let r = &out.report;
    assert!(r.final_verdict.is_proved(), "{:?}", r.final_verdict);
    let lim = r
        .strength
        .iter()
        .find(|s| s.functions == ["lim"])
        .expect("lim's segment is measured");
    assert!(lim.error.is_none(), "{lim:?}");
    assert!(lim.before.assessed > 0, "{lim:?}");
    assert!(lim.after.vdr > lim.before.vdr, "{lim:?}");
    assert_eq!(lim.added, ["ensures x <= LIM ==> \\result == x"]);
    // The survivors shown to the model are named by their file and line, in the
    // source as written (the macro unexpanded).
    let prompts = asked.lock().unwrap();
    let strengthen = prompts.iter().find(|p| p.contains("too weak")).unwrap();
    assert!(strengthen.contains("a.c:5"), "{strengthen}");
    // one's mutants are all killed: no strengthening prompt for it.
    let one = r.strength.iter().find(|s| s.functions == ["one"]).unwrap();
    assert_eq!(one.llm_requests, 0, "{one:?}");
    assert_eq!(one.before.killed, one.before.assessed);
    // The stronger clause is written into the prototype's contract in the header.
    let header = out
        .files
        .iter()
        .find(|(p, _)| p.ends_with("inc/m.h"))
        .map(|(_, t)| t.clone())
        .unwrap();
    assert!(header.contains("x <= LIM ==> \\result == x"), "{header}");
    assert_eq!(std::fs::read_to_string(root.join("a.c")).unwrap(), a);
}

/// The text without ACSL comments and whitespace: what the compiler sees.
fn code_of(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("/*@") {
        out.push_str(&rest[..i]);
        let end = rest[i..].find("*/").unwrap() + i + 2;
        rest = &rest[end..];
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}
