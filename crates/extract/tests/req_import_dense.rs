//! The `.req` importer in dense time (the default): every regression file of Ultimate
//! imports with every requirement as a pattern of Hanfor's catalog, the other example
//! files of Ultimate's repository (tests/data/ultimate-req/examples) import or are
//! refused with errors that say where and name the construct, durations keep their
//! units and the tick is their greatest common divisor.

use extract::{req_to_spec, ReqImport};
use std::path::{Path, PathBuf};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ultimate-req")
}

/// Every `.req` file under `dir`, sorted.
fn all_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "req") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn rel(p: &Path) -> String {
    p.strip_prefix(data_dir()).unwrap().display().to_string()
}

fn import_text(name: &str, text: &str) -> ReqImport {
    req_to_spec(name, text, None).unwrap_or_else(|e| panic!("{name}: {e:?}"))
}

const PATTERN_KEYS: &[&str] = &[
    "pattern",
    "scope_before",
    "scope_after",
    "scope_until",
    "scope_between",
    "scope_and",
    "R",
    "S",
    "T",
    "U",
    "c1",
    "c2",
];

#[test]
fn every_regression_file_imports_as_patterns_of_the_catalog() {
    let files: Vec<PathBuf> = all_files(&data_dir())
        .into_iter()
        .filter(|p| !rel(p).starts_with("examples"))
        .collect();
    assert_eq!(files.len(), 222);
    for p in files {
        let name = rel(&p);
        let text = std::fs::read_to_string(&p).unwrap();
        let r = import_text(&name, &text);
        assert!(r.expected.is_some(), "{name}: #TestSpec");
        let v: toml::Value = toml::from_str(&r.toml).unwrap();
        assert_eq!(v["time"]["semantics"].as_str(), Some("dense"), "{name}");
        for q in v
            .get("requirements")
            .and_then(|r| r.as_array())
            .map_or(&[][..], |a| a.as_slice())
        {
            let t = q["timed"].as_table().unwrap();
            assert!(t["pattern"].is_str(), "{name}: {q:?}");
            for k in t.keys() {
                assert!(PATTERN_KEYS.contains(&k.as_str()), "{name}: key {k}");
            }
        }
    }
}

/// The example files of Ultimate's repository besides the regression files: every one
/// imports, or is refused with located errors naming what is not read; the table of
/// refusals is a golden file.
#[test]
fn every_example_file_imports_or_is_refused_with_a_located_reason() {
    let dir = data_dir().join("examples");
    let files = all_files(&dir);
    assert_eq!(files.len(), 332);
    let (mut imported, mut rows) = (0, Vec::new());
    for p in &files {
        let name = p.strip_prefix(&dir).unwrap().display().to_string();
        let text = std::fs::read_to_string(p).unwrap();
        match req_to_spec(&name, &text, None) {
            Ok(r) => {
                toml::from_str::<toml::Value>(&r.toml).unwrap();
                imported += 1;
            }
            Err(es) => {
                for e in &es {
                    assert!(e.line > 0 && e.column > 0, "{name}: {e}");
                    let line = text.lines().nth(e.line as usize - 1).unwrap();
                    assert!(line.chars().count() + 1 >= e.column as usize, "{e}");
                }
                // Refused sentences name what was found where a pattern was expected.
                rows.push(format!("{}", es[0]));
            }
        }
    }
    rows.push(format!(
        "{imported} imported, {} refused",
        files.len() - imported
    ));
    insta::assert_snapshot!(rows.join("\n"));
}

#[test]
fn durations_keep_their_units_and_the_tick_is_their_gcd() {
    let text = "Input a is bool\nInput b is bool\nCONST T is 30.0\n\
        req1: Globally, it is always the case that if \"a\" holds, then \"b\" holds after at most \"T\" time units\n\
        req2: Globally, it is always the case that once \"a\" becomes satisfied, it holds for at least \"45\" time units\n";
    let r = import_text("t.req", text);
    assert!(
        r.toml
            .contains("[time]\ntick = \"15 s\"\nsemantics = \"dense\"\n"),
        "{}",
        r.toml
    );
    assert!(
        r.toml.contains("[time.durations]\nT = \"30 s\"\n"),
        "{}",
        r.toml
    );
    assert!(r.toml.contains("c1 = \"45 s\""), "{}", r.toml);
    // Physical units: everything in microseconds, as Ultimate counts them.
    let text = "Input a is bool\nInput b is bool\n\
        req1: Globally, it is always the case that if \"a\" holds, then \"b\" holds after at most 20 msec\n\
        req2: Globally, it is always the case that if \"a\" holds, then \"b\" holds for at least 5 usec\n";
    let r = import_text("t.req", text);
    assert!(r.toml.contains("tick = \"5 us\""), "{}", r.toml);
    assert!(r.toml.contains("c1 = \"20000 us\""), "{}", r.toml);
    assert!(r.toml.contains("c1 = \"5 us\""), "{}", r.toml);
    // Fractions: the tick divides them.
    let text = "Input a is bool\nInput b is bool\n\
        req1: Globally, it is always the case that if \"a\" holds, then \"b\" holds after at most \"2.5\" time units\n\
        req2: Globally, it is always the case that if \"a\" holds, then \"b\" holds for at least \"1\" time units\n";
    let r = import_text("t.req", text);
    assert!(r.toml.contains("tick = \"0.5 s\""), "{}", r.toml);
    assert!(r.toml.contains("c1 = \"2.5 s\""), "{}", r.toml);
    // A given tick that does not divide a duration: located error.
    let e = req_to_spec("t.req", text, Some("2 s")).unwrap_err();
    assert!(e[0].to_string().starts_with("t.req:3:"), "{}", e[0]);
    assert!(
        e[0].message.contains("not a whole number of ticks"),
        "{}",
        e[0]
    );
    // Large durations are clock constants, not steps: no limit.
    let text = "Input a is bool\nInput b is bool\n\
        req1: Globally, it is always the case that if \"a\" holds, then \"b\" holds after at most \"100000\" time units\n\
        req2: Globally, it is always the case that if \"a\" holds, then \"b\" holds for at least \"1\" time units\n";
    let r = import_text("t.req", text);
    assert!(r.toml.contains("c1 = \"100000 s\""), "{}", r.toml);
}

#[test]
fn snapshot_every_scope_and_the_patterns_without_a_discrete_reading() {
    let text = "Input P is bool\nInput Q is bool\nInput R is bool\nInput S is bool\nInput T is bool\nInput U is bool\nInput n is int\n\
        r1: Between \"P\" and \"Q\" it is always the case that if \"R\" holds, then \"S\" eventually holds and is succeeded by \"T\" where \"U\" does not hold between \"S\" and \"T\"\n\
        r2: After \"P\" until \"Q\" it is always the case that \"R\" holds at least every \"10\" time units\n\
        r3: Before \"P\" it is always the case that if \"R\" holds, then \"S\" holds after at most \"5\" time units for at least \"20\" time units\n\
        r4: Globally \"R\" eventually holds\n\
        r5: After \"n > prev(n)\" it is always the case that initially \"prev(R)\" holds\n";
    let r = import_text("scopes.req", text);
    insta::assert_snapshot!(r.toml);
}
