//! Live: the local model (`scripts/local-llm start`) fills in forms for the five
//! requirements of `tests/fixtures/grammar-live/` with the form's JSON schema enforced by
//! the server. Every answer must read as a form over the schema (the server kept to the
//! schema); how many formulas are equivalent to the hand-written references is reported,
//! not asserted: that is the model's quality, not vera's. One form per requirement, no
//! repair turns.
//!
//! Skipped with a note when no server answers, unless `VERA_LLM_LIVE=require`.

mod common;

use logic::SourceFile;
use pipeline::form::Form;
use pipeline::formalize::{formalize, FormalizeOptions};
use solver::{SolverConfig, SolverKind};

fn fixture(name: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/grammar-live")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn every_answer_of_the_local_model_is_a_form_under_the_enforced_schema() {
    let Some(base) = common::live::server_or_skip() else {
        return;
    };
    let spec = reqs::parse_spec(SourceFile::new("spec.toml", fixture("spec.toml")))
        .unwrap_or_else(|d| panic!("{d}"));
    let references: toml::Table = toml::from_str(&fixture("references.toml")).unwrap();
    let c = common::live::client(&base, false);
    let mut options = FormalizeOptions {
        max_retries: 0,
        ..FormalizeOptions::default()
    };
    options.vote.samples = 1;
    let z3 = SolverConfig::new(SolverKind::Z3);
    let t0 = std::time::Instant::now();
    let report = formalize(&spec, &c, &z3, &options).expect("formalization runs");
    let secs = t0.elapsed().as_secs_f64();
    let universe = reqs::equiv::Universe::of_spec(&spec);
    let mut checker = reqs::equiv::Checker::new(&universe, &z3).unwrap();
    let mut not_forms = Vec::new();
    let mut equivalent = 0;
    for f in &report.requirements {
        // The form answer is the first attempt (the SMT-LIB fallback comes after it).
        let answer = &f.attempts[0].answer;
        let read = llm::jsonschema::parse_answer(answer)
            .map_err(|e| e.to_string())
            .and_then(|v| Form::from_json(&spec, &v).map_err(|e| e.to_string()));
        if let Err(e) = &read {
            not_forms.push(format!("{}: {e}: {answer}", f.id));
        }
        let reference = spec
            .parse_formula("reference", references[&f.id].as_str().expect("a formula"))
            .unwrap_or_else(|d| panic!("{}: {d}", f.id));
        let eq = match (&f.term, f.path) {
            (Some(t), Some(pipeline::formpath::Path::Form)) => {
                checker.equivalent(t, &reference).expect("solver")
            }
            _ => None,
        };
        equivalent += usize::from(eq == Some(true));
        eprintln!(
            "{}: {answer} -> {:?} (path {:?}; equivalent to the reference: {eq:?})",
            f.id, f.formula, f.path
        );
    }
    let acc = c.accounting();
    eprintln!(
        "forms: {equivalent}/{} equivalent to the reference; {} calls, {:.1} s per call, {secs:.1} s in all",
        report.requirements.len(),
        acc.total.calls,
        acc.total.call_secs / acc.total.calls.max(1) as f64
    );
    assert!(
        not_forms.is_empty(),
        "answers that are not forms under the enforced schema: {not_forms:#?}"
    );
}
