//! The prompt templates shipped in `prompts/` parse and use the variables their callers
//! fill in.

use std::collections::BTreeSet;
use std::path::PathBuf;

use llm::Template;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../prompts")
}

#[test]
fn every_shipped_template_parses() {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "txt") {
            let name = path.file_stem().unwrap().to_str().unwrap().to_string();
            let t = Template::load(dir(), &name).unwrap_or_else(|e| panic!("{e}"));
            assert!(t.version() >= 1);
            names.push(name);
        }
    }
    assert!(names.len() >= 3, "{names:?}");
}

#[test]
fn formalize_template_variables() {
    let t = Template::load(dir(), "formalize-requirement").unwrap();
    let vars: BTreeSet<&str> = t.variables();
    assert_eq!(
        vars,
        ["examples", "requirement", "schema"].into_iter().collect()
    );
    let text = t
        .render(&[("schema", "S"), ("examples", "E"), ("requirement", "R")])
        .unwrap();
    assert!(text.contains("Requirement: R\nTerm:"));
    assert!(matches!(
        t.render(&[("schema", "S")]),
        Err(llm::LlmError::MissingVariable { .. })
    ));
}
