//! The paper-shaped Markdown tables of `vera qa`, `vera faults` and `vera eval` (the
//! eval writes them to tables.md): Fig. 4, Fig. 5, Fig. 6 and Table 1 of the VeriMed
//! paper, from the typed reports of the `pipeline` crate.

use pipeline::eval::{AmbiguityExperiment, EvalReport};
use pipeline::faults::{FaultReport, FaultResult};
use pipeline::qa::{QaReport, RateCi};
use reqs::mutate::Detection;

/// The Fig. 4 tables (outcomes and cumulative accuracy per mode) in Markdown.
pub fn qa(report: &QaReport) -> String {
    let mut o = String::new();
    o.push_str("| feedback | questions | first attempt | final accuracy | repair success | complete answers |\n");
    o.push_str("|---|---:|---|---|---|---|\n");
    for m in &report.modes {
        o.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            m.mode.label(),
            m.questions,
            m.first_attempt.show(),
            m.final_accuracy.show(),
            m.repair_success.show(),
            m.complete.show()
        ));
    }
    o.push_str("\n| feedback | accepted first | fixed during repair | rejected after budget |\n");
    o.push_str("|---|---:|---:|---:|\n");
    for m in &report.modes {
        let fixed = m.final_accuracy.k - m.first_attempt.k;
        o.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            m.mode.name(),
            m.first_attempt.k,
            fixed,
            m.questions - m.final_accuracy.k
        ));
    }
    o.push_str("\nCumulative verified accuracy by attempt:\n\n| feedback |");
    for k in 0..=report.max_repairs {
        o.push_str(&format!(" {k} |"));
    }
    o.push_str("\n|---|");
    for _ in 0..=report.max_repairs {
        o.push_str("---:|");
    }
    o.push('\n');
    for m in &report.modes {
        o.push_str(&format!("| {} |", m.mode.name()));
        for c in &m.cumulative {
            let pct = if m.questions == 0 {
                0.0
            } else {
                100.0 * *c as f64 / m.questions as f64
            };
            o.push_str(&format!(" {pct:.1}% |"));
        }
        o.push('\n');
    }
    o
}

/// The Fig. 5 tables in Markdown.
pub fn faults(report: &FaultReport) -> String {
    let mut o = String::from(
        "| fault type | mutants | detected | rate (Wilson 95%) |\n|---|---:|---:|---|\n",
    );
    for (c, r) in &report.rates {
        o.push_str(&format!("| {c} | {} | {} | {} |\n", r.n, r.k, r.show()));
    }
    o.push_str(&format!(
        "\n{} of {} faulty texts formalized; {} modified models globally inconsistent.\n",
        report.formalized,
        report.results.len(),
        report.inconsistent
    ));
    let missed: Vec<&FaultResult> = report.results.iter().filter(|r| !r.detected()).collect();
    if !missed.is_empty() {
        o.push_str("\n| missed | category | why |\n|---|---|---|\n");
        for r in missed {
            let why = match (&r.detection, &r.problem) {
                (Some(Detection::Equivalent), _) => {
                    "equivalent to the original under C".to_string()
                }
                (Some(Detection::Unknown { reason }), _) => format!("unknown: {reason}"),
                (_, Some(p)) => format!("did not formalize: {}", one_line(p)),
                _ => "-".into(),
            };
            o.push_str(&format!(
                "| {} | {} | {} |\n",
                r.mutant.requirement,
                r.mutant.category.as_deref().unwrap_or("-"),
                why
            ));
        }
    }
    o
}

fn one_line(s: &str) -> String {
    let s: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    s.chars().take(100).collect::<String>().replace('|', "/")
}

/// The paper-shaped tables in Markdown.
pub fn eval(r: &EvalReport) -> String {
    let mut o = format!("# Evaluation: {}\n\n", r.spec);
    if r.audit.is_some() || r.roundtrip.is_some() {
        o.push_str("## Table 1 (a): audit and round trip\n\n| metric | value |\n|---|---|\n");
        if let Some(a) = &r.audit {
            o.push_str(&format!(
                "| requirements formalized (spec) | {}/{} |\n| global consistency | {} |\n| vacuous | {} {} |\n| redundant | {} {} |\n| implied by the domain | {} |\n",
                a.formalized,
                a.requirements,
                a.consistency,
                a.vacuous.len(),
                list(&a.vacuous),
                a.redundant.len(),
                list(&a.redundant),
                a.implied_by_domain.len()
            ));
        }
        if let Some(t) = &r.roundtrip {
            o.push_str(&format!(
                "| RT equivalent, first try | {} |\n| RT equivalent, after one repair | {} |\n| RT mean lexical cosine | {} |\n| RT mean embedding cosine | {} |\n",
                pct(&t.initial),
                pct(&t.after_repair),
                t.mean_lexical_similarity
                    .map(|s| format!("{:.1}%", 100.0 * s))
                    .unwrap_or_else(|| "-".into()),
                match (&t.mean_embedding_similarity, &t.embedding_model) {
                    (Some(s), Some(m)) => format!("{:.1}% ({m})", 100.0 * s),
                    _ => "- (no embedding_model configured)".into(),
                }
            ));
        }
        o.push('\n');
    }
    if let Some(m) = &r.mutation {
        o.push_str("## Table 1 (b): mutation stress test\n\n| category | mutants | detected | rate | Wilson 95% |\n|---|---:|---:|---:|---|\n");
        for rate in &m.rates {
            o.push_str(&format!(
                "| {} | {} | {} | {:.1}% | [{:.1}%, {:.1}%] |\n",
                rate.category,
                rate.mutants,
                rate.detected,
                100.0 * rate.rate,
                100.0 * rate.interval.0,
                100.0 * rate.interval.1
            ));
        }
        if !m.undetected.is_empty() {
            o.push_str("\nUndetected (equivalent under the domain):\n\n");
            for u in &m.undetected {
                o.push_str(&format!(
                    "- {}: {} — {}\n",
                    u.mutant.requirement,
                    u.mutant.category.name(),
                    u.mutant.description
                ));
            }
        }
        o.push('\n');
    }
    if let Some(q) = &r.qa {
        o.push_str(&format!(
            "## Fig. 4: question answering with verifier feedback (up to {} repairs)\n\n",
            q.max_repairs
        ));
        o.push_str(&qa(q));
        o.push('\n');
    }
    if let Some(f) = &r.faults {
        o.push_str("## Fig. 5: end-to-end fault detection\n\n");
        o.push_str(&faults(f));
        o.push('\n');
    }
    if let Some(a) = &r.ambiguity {
        o.push_str(&ambiguity_markdown(a));
    }
    if !r.accounting.is_empty() {
        o.push_str("## LLM accounting per experiment\n\n| experiment | requests | provider calls | cached/replayed | tokens in | tokens out | LLM wall s | experiment wall s | cost $ |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (name, acc) in &r.accounting {
            let s = &acc.total;
            o.push_str(&format!(
                "| {name} | {} | {} | {} | {} | {} | {:.2} | {:.2} | {:.4} |\n",
                s.requests,
                s.calls,
                s.cache_hits + s.replayed,
                s.input_tokens,
                s.output_tokens,
                s.wall_secs,
                r.seconds.get(name).copied().unwrap_or(0.0),
                s.cost_usd
            ));
        }
    }
    o
}

fn pct(r: &RateCi) -> String {
    r.show()
}

fn list(ids: &[String]) -> String {
    if ids.is_empty() {
        String::new()
    } else {
        format!("({})", ids.join(", "))
    }
}

fn ambiguity_markdown(a: &AmbiguityExperiment) -> String {
    let st = &a.report.stats;
    let flagged = |s: &pipeline::ambiguity::Summary| RateCi::new(s.flagged, s.screened);
    let agree = |s: &pipeline::ambiguity::Summary| RateCi::new(s.agreeing_pairs, s.pairs);
    let mut o = format!(
        "## Fig. 6: ambiguity under repeated formalization (N = {}, up to {} clarification rounds)\n\n\
         | metric | before clarification | after clarification |\n|---|---|---|\n\
         | (A) ambiguity-sensitive requirements | {} | {} |\n\
         | (D) pairwise SMT agreement | {} | {} |\n\
         | mean distinct encodings per requirement | {:.2} | {:.2} |\n\
         | samples that were not valid formulas | {} | {} |\n\n",
        a.samples,
        a.rounds,
        pct(&flagged(&st.before)),
        pct(&flagged(&st.after)),
        pct(&agree(&st.before)),
        pct(&agree(&st.after)),
        st.before.mean_distinct_encodings,
        st.after.mean_distinct_encodings,
        st.before.invalid_samples,
        st.after.invalid_samples,
    );
    let mut flagged: Vec<&pipeline::ambiguity::Screening> = a
        .report
        .screening
        .requirements
        .iter()
        .filter(|s| s.flagged)
        .collect();
    flagged.sort_by_key(|s| std::cmp::Reverse(s.classes()));
    if !flagged.is_empty() {
        o.push_str("(B) distinct encodings per flagged requirement:\n\n| requirement | encodings | samples per encoding |\n|---|---:|---|\n");
        for s in flagged {
            let sizes: Vec<usize> = s
                .partition
                .as_ref()
                .map(|p| p.classes.iter().map(|c| c.members.len()).collect())
                .unwrap_or_default();
            o.push_str(&format!("| {} | {} | {:?} |\n", s.id, s.classes(), sizes));
        }
        o.push('\n');
    }
    if a.rounds == 0 {
        o.push_str("(C) clarification was not run (0 rounds).\n\n");
    } else if !a.report.proposals.is_empty() {
        o.push_str(&format!(
            "(C) flagged after each round: {:?}\n\n| requirement | classes before | classes after | rounds | converged | clarified text | note |\n|---|---:|---:|---:|---|---|---|\n",
            st.flagged_per_round
        ));
        for p in &a.report.proposals {
            o.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} |\n",
                p.id,
                p.classes_before,
                p.classes_after,
                p.rounds,
                if p.converged { "yes" } else { "no" },
                p.clarified.replace('|', "\\|"),
                p.note.as_deref().unwrap_or("").replace('|', "\\|")
            ));
        }
        o.push('\n');
    }
    o
}

/// The LLM accounting in one line (requests, calls, cache hits, replayed answers and
/// tokens), as commands print it on standard error after a run.
pub fn accounting_line(a: &llm::Accounting) -> String {
    format!(
        "llm: {} requests, {} calls, {} cache hits, {} replayed, {} input + {} output tokens",
        a.total.requests,
        a.total.calls,
        a.total.cache_hits,
        a.total.replayed,
        a.total.input_tokens,
        a.total.output_tokens
    )
}

/// The LLM accounting as a plain-text table, one line per stage and a total line.
pub fn accounting(a: &llm::Accounting) -> String {
    let mut out = format!(
        "{:<20} {:>8} {:>7} {:>7} {:>7} {:>6} {:>10} {:>10} {:>9} {:>9}\n",
        "stage",
        "requests",
        "calls",
        "cached",
        "retries",
        "errors",
        "tok in",
        "tok out",
        "wall s",
        "cost $"
    );
    let row = |name: &str, s: &llm::Stats| {
        format!(
            "{:<20} {:>8} {:>7} {:>7} {:>7} {:>6} {:>10} {:>10} {:>9.2} {:>9.4}\n",
            name,
            s.requests,
            s.calls,
            s.cache_hits + s.replayed,
            s.retries,
            s.errors,
            s.input_tokens,
            s.output_tokens,
            s.wall_secs,
            s.cost_usd
        )
    };
    for (name, s) in &a.stages {
        out.push_str(&row(name, s));
    }
    out.push_str(&row("total", &a.total));
    out
}

/// What `vera llm ping` says on standard error when the check fails: the error, and
/// for the local model how to start it.
pub fn ping_error(e: &llm::PingError) -> String {
    let mut s = format!("error: {e}");
    if e.local {
        s.push_str("\nhint: start the local model with `scripts/local-llm start`");
    }
    s
}

/// `vera llm ping`'s text: the endpoint asked, and its answer with the time it took.
pub fn ping_text(
    cfg: &llm::LlmConfig,
    model: &str,
    answer: &llm::Completion,
    seconds: f64,
) -> String {
    format!(
        "provider {:?}, endpoint {}, model {model}\nok: answered {:?} in {:.2} s ({:?}, {} retries)\n",
        cfg.provider,
        cfg.base_url(),
        answer.text().trim(),
        seconds,
        answer.source,
        answer.retries
    )
}

#[cfg(test)]
mod tests {
    /// One line per stage, in name order, then the total.
    #[test]
    fn accounting_table_has_a_line_per_stage_and_the_total() {
        let mut a = llm::Accounting::default();
        let s = |requests, calls| llm::Stats {
            requests,
            calls,
            ..Default::default()
        };
        a.add("formalize", &s(5, 3));
        a.add("ask", &s(1, 1));
        let t = super::accounting(&a);
        let firsts: Vec<&str> = t
            .lines()
            .map(|l| l.split_whitespace().next().unwrap())
            .collect();
        assert_eq!(firsts, ["stage", "ask", "formalize", "total"], "{t}");
        let total: Vec<&str> = t.lines().last().unwrap().split_whitespace().collect();
        assert_eq!(&total[..3], ["total", "6", "4"], "{t}");
    }
}
