//! Every SMT-LIB file of the test data (testdata/) parses, prints and re-parses to the same terms.

use logic::{parse_script, print, SourceFile};
use std::path::{Path, PathBuf};

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata")
}

fn smt2_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("test data is present") {
        let p = e.unwrap().path();
        if p.is_dir() {
            smt2_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "smt2") {
            out.push(p);
        }
    }
}

fn round_trip(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let file = SourceFile::new(path.display().to_string(), text);
    let script = parse_script(&file).map_err(|d| d.to_string())?;
    let printed = logic::script::format_script(&script, 100);
    let again = parse_script(&SourceFile::new("printed", printed.clone()))
        .map_err(|d| format!("printed form does not parse: {d}\n{printed}"))?;
    let a: Vec<_> = script.commands.iter().map(|c| &c.command).collect();
    let b: Vec<_> = again.commands.iter().map(|c| &c.command).collect();
    if a != b {
        return Err("re-parsed commands differ".into());
    }
    for t in script.assertions() {
        let s = print::term(t);
        let back = logic::parse_term(&SourceFile::new("t", s), &script.context)
            .map_err(|d| d.to_string())?;
        if &back != t {
            return Err(format!("term differs after printing: {}", print::term(t)));
        }
    }
    Ok(())
}

#[test]
fn smtlib_benchmarks_round_trip() {
    let mut files = Vec::new();
    smt2_files(&shared().join("smtlib"), &mut files);
    assert_eq!(files.len(), 150, "the benchmark set has 150 files");
    let failures: Vec<String> = files
        .iter()
        .filter_map(|f| round_trip(f).err().map(|e| format!("{}: {e}", f.display())))
        .collect();
    println!(
        "{} passed, {} failed",
        files.len() - failures.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn fees_dataset_formalizations_round_trip() {
    let mut files = Vec::new();
    // The checker cases under language/ define functions with `forall`; the BL
    // consistency checker reads those, not the term layer.
    smt2_files(&shared().join("fees-dataset/cra-25"), &mut files);
    smt2_files(&shared().join("fees-dataset/usps"), &mut files);
    assert!(files.len() > 20);
    let failures: Vec<String> = files
        .iter()
        .filter_map(|f| round_trip(f).err().map(|e| format!("{}: {e}", f.display())))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
