//! `vera equiv`, `vera formalize`, `vera ambiguity`, `vera clarify` and
//! `vera consistency --nl-text`: the formalization loops of the `pipeline` crate.

use crate::output::excerpt;
use anyhow::{bail, Context as _, Result};
use pipeline::ambiguity::AmbiguityOptions;
use pipeline::clarify::{ClarifyOptions, ProposalsFile};
use pipeline::formalize::{FormalizeOptions, Mode};
use std::path::{Path, PathBuf};

pub use crate::llmcmd::LlmArgs;

/// A comma-separated list of requirement ids (`--only`).
pub(crate) fn ids(only: &Option<String>) -> Option<Vec<String>> {
    only.as_deref().map(pipeline::select::parse_ids)
}

/// The model's accounting on standard error.
fn print_accounting(client: &llm::Client) {
    eprintln!("{}", printer::tables::accounting_line(&client.accounting()));
}

// ------------------------------------------------------------------ equiv

/// `vera equiv SPEC TERM... | --candidates FILE`
pub fn equiv(a: &crate::cli::EquivArgs) -> crate::output::Outcome {
    use reqs::equiv::SetsError;
    let spec = crate::audit::load_spec(&a.spec, a.csv.schema.as_deref())?;
    let sets = reqs::equiv::candidate_sets(a.candidates.as_deref(), &a.terms);
    let partitioned = sets.and_then(|s| reqs::equiv::partition_sets(&spec, &s, &a.solver.config()));
    let (results, queries) = partitioned.map_err(|e| match e {
        SetsError::Formula(d) => {
            eprintln!("{d}");
            crate::output::Reported.into()
        }
        SetsError::Read(e) => anyhow::Error::new(e),
        other => anyhow::Error::new(other),
    })?;
    let file = a.spec.display().to_string();
    Ok(Box::new(printer::pipe::equiv_report(
        file, results, queries,
    )))
}

// ------------------------------------------------------------------ formalize

/// The default output next to `input` (see [`pipeline::formalize::default_output`]).
fn default_out(input: &Path, suffix: &str) -> PathBuf {
    pipeline::formalize::default_output(input, "spec", suffix)
}

/// `vera formalize SPEC_OR_CSV [--schema S] [-o OUT]`
pub fn formalize(a: &crate::cli::FormalizeArgs) -> crate::output::Outcome {
    let (llm_args, solver, force) = (&a.llm, &a.solver, crate::files::force());
    let spec = crate::audit::load_spec_to_formalize(&a.input, a.csv.schema.as_deref())?;
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| default_out(&a.input, "formalized.toml"));
    let mut inputs: Vec<&Path> = vec![&a.input];
    if let Some(s) = &a.csv.schema {
        inputs.push(s);
    }
    // Refused before the model is asked: an input, or an existing file without --force.
    safefile::plan_output(&out, force)?;
    let client = llm_args.client()?;
    let mut options = FormalizeOptions {
        mode: if a.batch {
            Mode::Batch
        } else {
            Mode::PerRequirement
        },
        max_retries: a.retries,
        only: ids(&a.only),
        reformalize: ids(&a.reformalize).unwrap_or_default(),
        examples: a.examples,
        max_tokens: Some(a.max_tokens),
        decompose: !a.no_decompose,
        ..Default::default()
    };
    a.form.apply(&mut options);
    let start = std::time::Instant::now();
    let report = pipeline::formalize::formalize(&spec, &client, &solver.config(), &options)?;
    let seconds = start.elapsed().as_secs_f64();
    let text = pipeline::formalize::formalized_spec(&spec, &report);
    pipeline::formalize::write_new(&out, &text, &inputs, force)?;
    if let Some(reason) = &report.halted {
        eprintln!(
            "error: stopped asking the model: {reason}\n  what was formalized before is written to {}; run the same command again to go on (the answers received so far come from the cache)",
            out.display()
        );
    }
    print_accounting(&client);
    Ok(Box::new(printer::pipe::formalize_report(
        &spec,
        report,
        &printer::pipe::FormalizeRun {
            smtlib: a.form.smtlib,
            agreement: a.form.agreement,
            batch: a.batch,
            files: printer::pipe::files(&[("input", &a.input), ("output", &out)]),
            out: &out,
            llm: client.accounting(),
            seconds,
        },
    )))
}

// ------------------------------------------------------------------ ambiguity

/// `vera ambiguity SPEC`: formulas, or timed patterns grouped by trace equivalence.
pub fn ambiguity(a: &crate::cli::AmbiguityArgs) -> crate::output::Outcome {
    let schema = a.csv.schema.as_deref();
    let spec = crate::audit::load_spec_discrete(&a.spec, schema, "ambiguity")?;
    let client = a.llm.client()?;
    let options = AmbiguityOptions {
        samples: a.samples,
        only: ids(&a.only),
        max_tokens: Some(a.max_tokens),
        ..Default::default()
    };
    let start = std::time::Instant::now();
    let rep = pipeline::timed::screen_any(&spec, &client, &a.solver.config(), &options)?;
    let seconds = start.elapsed().as_secs_f64();
    print_accounting(&client);
    Ok(printer::pipe::ambiguity_any_report(
        &a.spec,
        rep,
        client.accounting(),
        seconds,
    ))
}

// ------------------------------------------------------------------ clarify

/// `vera clarify SPEC [-o PROPOSALS] | --apply PROPOSALS [--out SPEC]`
pub fn clarify(a: &crate::cli::ClarifyArgs) -> crate::output::Outcome {
    let (llm_args, solver, force) = (&a.llm, &a.solver, crate::files::force());
    let spec = crate::audit::load_spec_discrete(&a.spec, a.csv.schema.as_deref(), "clarify")?;
    let mut inputs: Vec<&Path> = vec![&a.spec];
    if let Some(s) = &a.csv.schema {
        inputs.push(s);
    }
    if let Some(pf) = &a.apply {
        let out = (a.out.clone()).unwrap_or_else(|| default_out(&a.spec, "clarified.toml"));
        inputs.push(pf);
        let (text, spec_name) = (safefile::read_text(pf)?, a.spec.display().to_string());
        let changed =
            pipeline::clarify::apply_file(&spec, &spec_name, (pf, &text), &out, &inputs, force)?;
        if changed.is_empty() {
            eprintln!(
                "nothing to apply: no entry in {} is accepted (set \"accepted\": true to take one); nothing written",
                pf.display()
            );
        }
        let written = (!changed.is_empty()).then_some(out.as_path());
        return Ok(Box::new(printer::pipe::apply_report(pf, changed, written)));
    }
    let suffix = if a.controlled {
        "restated.json"
    } else {
        "proposals.json"
    };
    let out = (a.proposals.clone()).unwrap_or_else(|| default_out(&a.spec, suffix));
    // Refused before the model is asked: an input, or an existing file without --force.
    safefile::plan_output(&out, force)?;
    let client = llm_args.client()?;
    let start = std::time::Instant::now();
    if a.controlled {
        let options = pipeline::restate::RestateOptions {
            attempts: a.rounds,
            only: ids(&a.only),
            max_tokens: a.max_tokens.min(400),
            ..Default::default()
        };
        let name = a.spec.display().to_string();
        let rep = pipeline::restate::restate(&spec, &name, &client, &solver.config(), &options)?;
        pipeline::formalize::write_new(&out, &rep.to_json()?, &inputs, force)?;
        print_accounting(&client);
        let seconds = start.elapsed().as_secs_f64();
        let llm = client.accounting();
        return Ok(Box::new(printer::pipe::restate_report(
            &a.spec, &out, rep, llm, seconds,
        )));
    }
    let options = ClarifyOptions {
        rounds: a.rounds,
        screening: AmbiguityOptions {
            samples: a.samples,
            only: ids(&a.only),
            max_tokens: Some(a.max_tokens),
            ..Default::default()
        },
        ..Default::default()
    };
    let rep = pipeline::timed::clarify_any(&spec, &client, &solver.config(), &options)?;
    let seconds = start.elapsed().as_secs_f64();
    let file = ProposalsFile::new(a.spec.display().to_string(), rep.proposals().to_vec());
    pipeline::formalize::write_new(&out, &file.to_json()?, &inputs, force)?;
    print_accounting(&client);
    let llm = client.accounting();
    Ok(printer::pipe::clarify_any_report(
        &a.spec, &out, rep, llm, seconds,
    ))
}

// ------------------------------------------------------------------ consistency --nl-text

/// `vera consistency --nl-text RULE.txt --variables model.json --impl P.bl [--bounds B]`
pub fn consistency_nl_text(
    a: &crate::cli::ConsistencyArgs,
    rule_path: &Path,
) -> crate::output::Outcome {
    let (llm_args, solver) = (&a.llm, &a.solver);
    let start = std::time::Instant::now();
    let rule = safefile::read_text(rule_path)?;
    let vars_path = match &a.variables {
        Some(v) => v.clone(),
        None => rule_path.with_file_name("model.json"),
    };
    let vars_text = safefile::read_text(&vars_path).with_context(|| {
        format!(
            "cannot read the variable specification {} (give --variables)",
            vars_path.display()
        )
    })?;
    let vars = pipeline::voting::VariableSpec::from_json(&vars_text)?;
    let Some(imp) = &a.implementation else {
        bail!("--nl-text needs --impl PROGRAM.bl");
    };
    let imp_text = safefile::read_text(imp)?;
    let imp_file = logic::SourceFile::new(imp.display().to_string(), imp_text);
    let imp_side = bl::check::SideSource::implementation(imp, imp_file);
    let mut input = bl::check::CheckInput::new(
        bl::check::SideSource::Smt(logic::SourceFile::new("nl", "")),
        imp_side,
    );
    input.bl_output = a.impl_output.clone();
    input.bounds = a
        .bounds
        .as_deref()
        .map(crate::blcmd::read_bounds)
        .transpose()?;
    input.assumptions = a
        .assume
        .iter()
        .map(|x| bl::check::Assumption::parse_arg(x))
        .collect::<Result<Vec<_>, _>>()?;
    // The output: --nl-output, else the last variable of the specification (SIRNA's
    // specifications list the output last, e.g. FinalTaxes).
    let output = a
        .nl_output
        .clone()
        .or_else(|| vars.variables.last().map(|v| v.name.clone()));
    input.nl_output = a.nl_output.clone();
    let client = llm_args.client()?;
    let options = pipeline::voting::VotingOptions {
        translations: a.translations,
        theta: a.theta,
        output: output.clone(),
        repairs: a.retries,
        ..Default::default()
    };
    let checked = pipeline::voting::check_text(
        &rule,
        &rule_path.display().to_string(),
        &vars,
        &input,
        &client,
        &solver.config(),
        &options,
    )?;
    print_accounting(&client);
    Ok(Box::new(printer::pipe::consistency_nl_report(
        printer::pipe::files(&[("rule", rule_path), ("implementation", imp)]),
        checked,
        client.accounting(),
        start.elapsed().as_secs_f64(),
    )))
}

// ------------------------------------------------------------------ draft-variables

/// `vera draft-variables RULE.txt --example-rule EX.txt [--example-spec model.json] [-o OUT]`
pub fn draft_variables(a: &crate::cli::DraftVariablesArgs) -> crate::output::Outcome {
    let llm_args = &a.llm;
    let start = std::time::Instant::now();
    let read = |p: &Path| safefile::read_text(p);
    let rule = read(&a.rule)?;
    let example_rule = read(&a.example_rule)?;
    let spec_path = a
        .example_spec
        .clone()
        .unwrap_or_else(|| a.example_rule.with_file_name("model.json"));
    let example = pipeline::voting::VariableSpec::from_json(&read(&spec_path)?)
        .with_context(|| format!("{} (the example specification)", spec_path.display()))?;
    let client = llm_args.client()?;
    let draft =
        match pipeline::voting::draft_variables(&rule, &example_rule, &example, &client, a.retries)
        {
            Ok(d) => d,
            Err(e) => {
                eprintln!("error: {e}");
                print_accounting(&client);
                return Err(crate::output::Reported.into());
            }
        };
    let json = serde_json::to_string_pretty(&draft.spec)? + "\n";
    if let Some(out) = &a.out {
        let inputs = [
            a.rule.as_path(),
            a.example_rule.as_path(),
            spec_path.as_path(),
        ];
        pipeline::formalize::write_new(out, &json, &inputs, crate::files::force())?;
    }
    eprintln!(
        "drafted {} variables in {} answer(s){}; names shared with the example: {}",
        draft.spec.variables.len(),
        draft.attempts,
        a.out
            .as_ref()
            .map(|o| format!(", written to {}", o.display()))
            .unwrap_or_default(),
        if draft.shared_names.is_empty() {
            "none".to_string()
        } else {
            draft.shared_names.join(", ")
        }
    );
    for r in &draft.refused {
        eprintln!("  refused: {}", excerpt(r, 160));
    }
    eprintln!("review the draft before using it: the descriptions decide how rules are formalized");
    print_accounting(&client);
    // The terminal output is the draft itself, unless it went to a file.
    let text = if a.out.is_none() { json } else { String::new() };
    Ok(Box::new(printer::pipe::draft_report(
        printer::pipe::files(&[("rule", &a.rule), ("example", &spec_path)]),
        draft,
        text,
        client.accounting(),
        start.elapsed().as_secs_f64(),
    )))
}
