//! Suites run against real implementations: executables (shell and awk scripts written
//! here, run as processes), BL programs (the fees dataset's Ontario tax rule, and the
//! same rule with one bracket threshold mistyped) and a C function (examples/c/clamp.c,
//! through the generated driver). Faulty implementations fail at the cases that show
//! the fault, with the requirement they break; crashes, hangs, failures and garbage are
//! errors, never passes.

use logic::SourceFile;
use rbt::run::{run_suite, BlProgram, Executable, RunReport, Verdict};
use rbt::{generate, Options, Problem};
use solver::{SolverConfig, SolverKind};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn z3() -> SolverConfig {
    SolverConfig::new(SolverKind::Z3)
}

const PUMP: &str = r#"
[[variables]]
name = "x"
sort = "Int"
min = 0
max = 100
role = "input"
[[variables]]
name = "t"
sort = "Real"
min = 0
max = 10
role = "input"
[[variables]]
name = "mode"
sort = "Bool"
role = "input"
[[variables]]
name = "alarm"
sort = "Bool"
role = "output"
[[variables]]
name = "level"
sort = "Int"
min = 0
max = 10
role = "output"
[[requirements]]
id = "R1"
text = "In mode, above 50 the alarm is raised."
formula = "(=> (and mode (> x 50)) alarm)"
[[requirements]]
id = "R2"
text = "Out of mode the level is 0."
formula = "(=> (not mode) (= level 0))"
[[requirements]]
id = "R4"
text = "A hot pump raises the alarm."
formula = "(=> (>= t 2.5) alarm)"
"#;

fn pump() -> Problem {
    let spec = reqs::parse_spec(SourceFile::new("pump.toml", PUMP)).unwrap();
    Problem::from_spec(spec, None).unwrap()
}

/// A script in a fresh folder: `#!/bin/sh` and `body`.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join(name);
    std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

fn run_exe(p: &Problem, program: PathBuf, timeout: Duration) -> RunReport {
    let suite = generate(p, &Options::new(z3())).unwrap();
    let mut exe = Executable::new(p, program, vec![], timeout, &[], None, vec![]).unwrap();
    run_suite(p, &suite, &mut exe, &z3(), None).unwrap()
}

/// An awk program that reads the header and the case (x, t, mode) and prints
/// `alarm,level` with the alarm raised above `limit`.
fn pump_impl(limit: &str) -> String {
    format!(
        "awk -F, 'NR == 2 {{ a = (($3 == \"true\" && $1 > {limit}) || $2 >= 2.5) ? \"true\" : \"false\"; \
         l = ($3 == \"true\") ? 5 : 0; print a \",\" l }}'"
    )
}

#[test]
fn an_executable_passes_and_a_faulty_one_fails_at_the_boundary() {
    let dir = tempfile::tempdir().unwrap();
    let p = pump();
    let good = run_exe(
        &p,
        script(dir.path(), "good", &pump_impl("50")),
        Duration::from_secs(5),
    );
    assert_eq!((good.failed, good.errors), (0, 0), "{good:#?}");
    assert!(good.passed > 0);
    // The alarm starts one unit late: the boundary case x = 51 in mode catches it.
    let late = run_exe(
        &p,
        script(dir.path(), "late", &pump_impl("51")),
        Duration::from_secs(5),
    );
    assert_eq!(late.errors, 0, "{late:#?}");
    let failed: Vec<&rbt::run::CaseResult> = late
        .cases
        .iter()
        .filter(|c| matches!(c.verdict, Verdict::Fail { .. }))
        .collect();
    assert!(!failed.is_empty(), "{late:#?}");
    for c in &failed {
        let x = c.inputs.iter().find(|i| i.variable == "x").unwrap();
        assert_eq!(x.value, "51", "{c:#?}");
        let Verdict::Fail {
            violated,
            differences,
        } = &c.verdict
        else {
            unreachable!()
        };
        assert_eq!(violated, &["R1"]);
        assert_eq!(differences[0].variable, "alarm");
        assert_eq!(
            (
                differences[0].expected.as_str(),
                differences[0].observed.as_str()
            ),
            ("true", "false")
        );
    }
}

#[test]
fn crashes_hangs_failures_and_garbage_are_errors_never_passes() {
    let dir = tempfile::tempdir().unwrap();
    let p = pump();
    let cases: [(&str, &str, &str); 6] = [
        ("crash", "kill -SEGV $$", "crashed (signal 11)"),
        ("hang", "sleep 30", "no answer within 0.5 s"),
        (
            "fails",
            "echo broken >&2; exit 3",
            "exited with status 3: broken",
        ),
        (
            "garbage",
            "echo hello,world",
            "unreadable output: alarm: `hello` is not a Boolean",
        ),
        (
            "short",
            "echo true",
            "expected 2 values (alarm, level), got 1",
        ),
        ("silent", "true", "expected one line with 2 values"),
    ];
    for (name, body, message) in cases {
        let start = std::time::Instant::now();
        let r = run_exe(
            &p,
            script(dir.path(), name, body),
            Duration::from_millis(500),
        );
        assert_eq!(r.passed, 0, "{name}: {r:#?}");
        assert_eq!(r.errors, r.cases.len(), "{name}");
        for c in &r.cases {
            match &c.verdict {
                Verdict::Error { message: m } => assert!(m.contains(message), "{name}: {m}"),
                other => panic!("{name}: {other:?}"),
            }
        }
        if name == "hang" {
            // The process group is stopped at the limit: no case waits for the sleep.
            assert!(
                start.elapsed() < Duration::from_secs(25),
                "{:?}",
                start.elapsed()
            );
        }
    }
}

fn ontario() -> (Problem, bl::check::bounds::Bounds) {
    let d = root().join("testdata/fees-dataset/cra-25/on");
    let doc = SourceFile::new(
        "on.smt2",
        std::fs::read_to_string(d.join("on.smt2")).unwrap(),
    );
    let bounds = bl::check::bounds::Bounds::from_json(
        "bounds.json",
        &std::fs::read_to_string(root().join("examples/fees/cra-bounds.json")).unwrap(),
    )
    .unwrap();
    (
        Problem::from_documentation(&doc, Some(&bounds)).unwrap(),
        bounds,
    )
}

fn bl_run(p: &Problem, bounds: &bl::check::bounds::Bounds, text: &str) -> RunReport {
    let program = bl::parse(&SourceFile::new("prog.bl", text)).unwrap();
    let suite = generate(p, &Options::new(z3())).unwrap();
    let mut imp = BlProgram::new(
        p,
        "prog.bl",
        program,
        &[],
        Some(bounds),
        &[("sin".into(), "123456789".into())],
    )
    .unwrap();
    run_suite(p, &suite, &mut imp, &z3(), None).unwrap()
}

#[test]
fn a_tax_rule_with_a_mistyped_bracket_fails_at_that_bracket() {
    let (p, bounds) = ontario();
    assert_eq!(
        p.roles
            .inputs
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>(),
        ["Income"]
    );
    let prog =
        std::fs::read_to_string(root().join("testdata/fees-dataset/cra-25/on/prog.bl")).unwrap();
    let ok = bl_run(&p, &bounds, &prog);
    assert_eq!((ok.failed, ok.errors), (0, 0), "{ok:#?}");
    // SIRNA's typo: the top of the second bracket written 105757 for 105775.
    let right = "if income > 105775 then 105775 else income";
    assert!(prog.contains(right));
    let typo = prog.replace(right, "if income > 105757 then 105757 else income");
    let bad = bl_run(&p, &bounds, &typo);
    assert_eq!(bad.errors, 0, "{bad:#?}");
    let failed: Vec<&rbt::run::CaseResult> = bad
        .cases
        .iter()
        .filter(|c| matches!(c.verdict, Verdict::Fail { .. }))
        .collect();
    assert!(!failed.is_empty());
    // Every failing case is at or above the mistyped threshold; the boundary cases of
    // the bracket (105774.99, 105775, 105775.01) are among them.
    let incomes: Vec<String> = failed.iter().map(|c| c.inputs[0].value.clone()).collect();
    for i in &incomes {
        let v: f64 = i.parse().unwrap();
        assert!(v > 105757.0, "{incomes:?}");
    }
    for b in ["105774.99", "105775.0", "105775.01"] {
        assert!(incomes.iter().any(|i| i == b), "{b} not in {incomes:?}");
    }
    // Below the typo every case still passes.
    for c in &bad.cases {
        let v: f64 = c.inputs[0].value.parse().unwrap();
        if v <= 105757.0 {
            assert_eq!(c.verdict, Verdict::Pass, "{c:#?}");
        }
    }
    for c in &failed {
        let Verdict::Fail {
            violated,
            differences,
        } = &c.verdict
        else {
            unreachable!()
        };
        assert!(!violated.is_empty());
        assert_eq!(differences[0].variable, "FinalTaxes", "{c:#?}");
    }
}

#[test]
fn a_c_function_runs_through_its_driver() {
    let spec = reqs::load(&root().join("examples/c/clamp-spec.toml")).unwrap();
    let p = Problem::from_spec(spec, None).unwrap();
    let suite = generate(&p, &Options::new(z3())).unwrap();
    let run = |source: &Path| {
        let mut f =
            rbt::cfunc::CFunction::build(&p, source, "clamp", &[], None, Duration::from_secs(5))
                .unwrap();
        run_suite(&p, &suite, &mut f, &z3(), None).unwrap()
    };
    let ok = run(&root().join("examples/c/clamp.c"));
    assert_eq!(
        (ok.passed, ok.failed, ok.errors),
        (suite.cases.len(), 0, 0),
        "{ok:#?}"
    );
    let dir = tempfile::tempdir().unwrap();
    let original = std::fs::read_to_string(root().join("examples/c/clamp.c")).unwrap();
    // A wrong upper end: values above the interval come back as its lower end.
    let wrong = dir.path().join("wrong.c");
    std::fs::write(&wrong, original.replace("return hi;", "return lo;")).unwrap();
    let r = run(&wrong);
    assert!(r.failed > 0 && r.errors == 0, "{r:#?}");
    for c in &r.cases {
        if let Verdict::Fail { violated, .. } = &c.verdict {
            assert_eq!(violated, &["C-ABOVE"], "{c:#?}");
        }
    }
    // A crash and a hang in the function are errors of the cases that reach them.
    let crash = dir.path().join("crash.c");
    std::fs::write(
        &crash,
        original.replace("return hi;", "{ volatile int *p = 0; return *p; }"),
    )
    .unwrap();
    let r = run(&crash);
    assert!(r.errors > 0 && r.failed == 0, "{r:#?}");
    assert!(r
        .cases
        .iter()
        .any(|c| matches!(&c.verdict, Verdict::Error { message } if message.contains("crashed"))));
    let hang = dir.path().join("hang.c");
    std::fs::write(&hang, original.replace("return hi;", "for (;;) {}")).unwrap();
    let mut f =
        rbt::cfunc::CFunction::build(&p, &hang, "clamp", &[], None, Duration::from_millis(300))
            .unwrap();
    let r = run_suite(&p, &suite, &mut f, &z3(), None).unwrap();
    assert!(r.errors > 0, "{r:#?}");
    assert!(r.cases.iter().any(
        |c| matches!(&c.verdict, Verdict::Error { message } if message.contains("no answer"))
    ));
    // A function that does not compile is a setup error, not a run.
    let broken = dir.path().join("broken.c");
    std::fs::write(&broken, original.replace("return x;", "return x +;")).unwrap();
    assert!(
        rbt::cfunc::CFunction::build(&p, &broken, "clamp", &[], None, Duration::from_secs(1))
            .is_err()
    );
}
