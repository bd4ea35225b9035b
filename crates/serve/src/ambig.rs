//! The ambiguity view: the readings `vera ambiguity` sampled for each requirement,
//! grouped into equivalence classes, with the states that tell two readings apart;
//! and the proposals file `vera clarify` writes, with a form per proposal to preview
//! it (docs/formalize.md).
//!
//! Both views are pure functions of the JSON payloads and return HTML fragments for
//! the page's `<main>`. Every text that comes from a payload is escaped with
//! [`report::html::escape`]. Errors are [`ViewError`]s.

use std::fmt::Write as _;

use report::html::escape;
use serde_json::Value;

use crate::cview::At;
pub use crate::cview::ViewError;

/// An HTML `id` for a requirement: `req-` and the id with every character outside
/// `[A-Za-z0-9_-]` written as `.` and its code point in hex, so that two ids never
/// share an anchor.
fn anchor(id: &str) -> String {
    let mut s = String::from("req-");
    for c in id.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            s.push(c);
        } else {
            let _ = write!(s, ".{:x}", c as u32);
        }
    }
    s
}

/// `1 sample` / `2 samples`.
fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Renders a `vera ambiguity` payload (`vera.ambiguity.v1`, or
/// `vera.ambiguity-timed.v1` for a spec with a `[time]` table), or the screening of a
/// `vera clarify` run (`vera.clarify-run.v1`) together with its proposals.
///
/// The fragment holds the summary counts, then one `<article class="requirement">`
/// per requirement (anchor `req-ID`), with its status (`ambiguity-sensitive`,
/// `one reading`, `not screened`), its text, a `<table class="readings">` with one
/// row per equivalence class (label, size, the sample numbers, the representative
/// formula), every pair of readings with the witness states that tell them apart as
/// `<table class="witness">` (variable, value), the pairs the solver left undecided,
/// the invalid samples with the reason, and, from a clarify run, the requirement's
/// proposed clarification.
///
/// A timed screening has the same parts, with patterns for formulas: each class
/// shows its reading in words and its pattern, and each pair of readings the
/// question that tells them apart with its trace as `<table class="timeline">`
/// (one row per interval of time, one column per variable).
///
/// # Errors
///
/// [`ViewError`] when the payload has another schema tag (a timed clarify run,
/// `vera.clarify-run-timed.v1`, is not read by this view), lacks a field the view
/// needs or holds one of another type.
pub fn render_ambiguity(report: &Value) -> Result<String, ViewError> {
    let root = At::root(report);
    let tag = root.schema_tag();
    let (screening, proposals) = match tag.as_str() {
        "vera.ambiguity.v1" => (root.field("report")?, None),
        "vera.ambiguity-timed.v1" => return render_timed(&root),
        "vera.clarify-run.v1" => {
            let r = root.field("report")?;
            (r.field("screening")?, Some(r.field("proposals")?.items()?))
        }
        _ => {
            return Err(ViewError::Schema {
                expected: "vera.ambiguity.v1, vera.ambiguity-timed.v1 or vera.clarify-run.v1",
                found: tag,
            })
        }
    };
    let mut o = String::from("<section class=\"ambiguity\">\n");
    let file = root.opt_str("file")?;
    let _ = writeln!(
        o,
        "<h2>Ambiguity screening{}</h2>",
        file.map(|f| format!(": {}", escape(f))).unwrap_or_default()
    );
    let requirements = screening.field("requirements")?.items()?;
    if let Some(s) = screening.opt("summary")? {
        summary(&mut o, &s)?;
    }
    if proposals.is_some() {
        if let Some(stats) = root.field("report")?.opt("stats")? {
            clarify_stats(&mut o, &stats)?;
        }
    }
    if requirements.is_empty() {
        o.push_str("<p class=\"empty\">The report screens no requirement.</p>\n");
    }
    for r in &requirements {
        let id = r.str_field("id")?;
        let proposal = match &proposals {
            Some(ps) => {
                let mut found = None;
                for p in ps {
                    if p.str_field("id")? == id {
                        found = Some(p.clone());
                        break;
                    }
                }
                found
            }
            None => None,
        };
        requirement(&mut o, r, proposal.as_ref())?;
    }
    o.push_str("</section>\n");
    Ok(o)
}

/// The counts of a screening's summary `s` that it has (with `undecided`, the timed
/// screening's undecided pairs too).
fn counts(o: &mut String, s: &At<'_>, undecided: bool) -> Result<(), ViewError> {
    o.push_str("<ul class=\"counts ambiguity-counts\">\n");
    let rows = [
        ("requirements", "requirements", "neutral"),
        ("flagged", "ambiguity-sensitive", "flagged"),
        ("could_not_screen", "not screened", "not-screened"),
        ("invalid_samples", "invalid samples", "invalid"),
        ("undecided", "undecided pairs", "undecided"),
    ];
    let shown = if undecided { &rows[..] } else { &rows[..4] };
    for (key, label, class) in shown {
        if let Some(n) = s.opt(key)? {
            let _ = writeln!(
                o,
                "<li class=\"count {class}\" data-count=\"{key}\"><span class=\"value\">{}</span> {label}</li>",
                n.count()?
            );
        }
    }
    o.push_str("</ul>\n");
    Ok(())
}

/// The summary counts of a screening.
fn summary(o: &mut String, s: &At<'_>) -> Result<(), ViewError> {
    counts(o, s, false)?;
    if let Some(a) = s.opt("pairwise_agreement")? {
        let _ = writeln!(
            o,
            "<p class=\"agreement\">Pairwise agreement of the valid samples: {:.1}%</p>",
            100.0 * a.number()?
        );
    }
    Ok(())
}

/// The before/after statistics of a clarify run.
fn clarify_stats(o: &mut String, s: &At<'_>) -> Result<(), ViewError> {
    let flagged = |k: &str| -> Result<Option<u64>, ViewError> {
        match s.opt(k)? {
            Some(x) => x.opt("flagged")?.map(|f| f.count()).transpose(),
            None => Ok(None),
        }
    };
    if let (Some(b), Some(a)) = (flagged("before")?, flagged("after")?) {
        let _ = writeln!(
            o,
            "<p class=\"clarify-stats\">Clarification: {b} ambiguity-sensitive before, {a} after.</p>"
        );
    }
    Ok(())
}

/// The head of a screened requirement's article: its id, status badge and text. Gives
/// back its samples and how many were valid.
fn requirement_head<'a>(o: &mut String, r: &At<'a>) -> Result<(Vec<At<'a>>, u64), ViewError> {
    let id = r.str_field("id")?;
    let flagged = r.field("flagged")?.bool()?;
    let could_not = r.field("could_not_screen")?.bool()?;
    let samples = r.field("samples")?.items()?;
    let valid = r.field("valid")?.count()?;
    let (class, status) = if flagged {
        ("flagged", "ambiguity-sensitive".to_string())
    } else if could_not {
        (
            "not-screened",
            format!(
                "not screened ({} valid; two are needed)",
                plural(valid, "sample", "samples")
            ),
        )
    } else {
        ("one-reading", "one reading".to_string())
    };
    let _ = writeln!(
        o,
        "<article class=\"requirement {class}\" id=\"{}\" data-id=\"{}\">",
        escape(&anchor(id)),
        escape(id)
    );
    let _ = writeln!(
        o,
        "<h3><span class=\"req-id\">{}</span> <span class=\"badge {class}\">{}</span></h3>",
        escape(id),
        escape(&status)
    );
    let _ = writeln!(
        o,
        "<p class=\"req-text\">{}</p>",
        escape(r.str_field("text")?)
    );
    Ok((samples, valid))
}

/// One screened requirement.
fn requirement(o: &mut String, r: &At<'_>, proposal: Option<&At<'_>>) -> Result<(), ViewError> {
    let (samples, valid) = requirement_head(o, r)?;
    let _ = writeln!(
        o,
        "<p class=\"samples-note\">{valid} of {} valid</p>",
        plural(samples.len() as u64, "sample", "samples")
    );
    if let Some(p) = r.opt("partition")? {
        partition(o, &p, &samples)?;
    } else if !r.field("could_not_screen")?.bool()? {
        // No partition: show the one reading the samples give, if any.
        for s in &samples {
            if let Some(f) = s.opt_str("formula")? {
                let _ = writeln!(
                    o,
                    "<p class=\"one-reading\">Reading: <code class=\"formula\">{}</code></p>",
                    escape(f)
                );
                break;
            }
        }
    }
    invalid_samples(o, &samples)?;
    if let Some(p) = proposal {
        o.push_str("<div class=\"proposal-summary\">\n<h4>Proposed clarification</h4>\n");
        proposal_body(o, p)?;
        o.push_str("</div>\n");
    }
    o.push_str("</article>\n");
    Ok(())
}

/// How many samples the classes have in all.
fn members(classes: &[At<'_>]) -> Result<u64, ViewError> {
    let mut n = 0;
    for c in classes {
        n += c.field("members")?.items()?.len() as u64;
    }
    Ok(n)
}

/// The start of class `c`'s row of a readings table, up to its last cell's content:
/// its label, its size out of `total`, and the numbers of its samples (#1 is sample 0).
/// Returns the label.
fn class_row_start<'a>(
    o: &mut String,
    c: &At<'a>,
    samples: &[At<'_>],
    total: u64,
) -> Result<&'a str, ViewError> {
    let label = c.str_field("label")?;
    let size = c.field("members")?.items()?.len() as u64;
    let mut numbers = Vec::new();
    for s in samples {
        if s.opt_str("class")? == Some(label) {
            numbers.push(format!("#{}", s.field("index")?.count()? + 1));
        }
    }
    let _ = write!(
        o,
        "<tr class=\"reading\" data-class=\"{}\"><td class=\"class-label\">{}</td><td class=\"class-size\" data-size=\"{size}\">{size} of {total}{}</td><td>",
        escape(label),
        escape(label),
        if numbers.is_empty() {
            String::new()
        } else {
            format!(" <span class=\"members\">({})</span>", numbers.join(" "))
        },
    );
    Ok(label)
}

/// The classes, separations and undecided pairs of a partition.
fn partition(o: &mut String, p: &At<'_>, samples: &[At<'_>]) -> Result<(), ViewError> {
    let classes = p.field("classes")?.items()?;
    let mut labels = Vec::new();
    let candidates = members(&classes)?;
    o.push_str("<table class=\"readings\">\n<thead><tr><th>reading</th><th>samples</th><th>formula (representative)</th></tr></thead>\n<tbody>\n");
    for c in &classes {
        labels.push(class_row_start(o, c, samples, candidates)?);
        let _ = writeln!(
            o,
            "<code class=\"formula\">{}</code></td></tr>",
            escape(c.str_field("formula")?)
        );
    }
    o.push_str("</tbody>\n</table>\n");
    let label = |i: u64| -> String {
        labels
            .get(i as usize)
            .map(|l| l.to_string())
            .unwrap_or_else(|| format!("#{i} (no such class)"))
    };
    let separations = p.field("separations")?.items()?;
    if !separations.is_empty() {
        o.push_str("<div class=\"separations\">\n");
    }
    for s in &separations {
        let (a, b) = (label(s.field("a")?.count()?), label(s.field("b")?.count()?));
        let _ = writeln!(
            o,
            "<div class=\"separation\">\n<h4>{} vs {}</h4>",
            escape(&a),
            escape(&b)
        );
        let (only_a, only_b) = (s.opt("only_a")?, s.opt("only_b")?);
        if only_a.is_none() && only_b.is_none() {
            o.push_str("<p class=\"undecided\">No distinguishing state found (the solver could not decide).</p>\n");
        }
        for (yes, no, d) in [(&a, &b, only_a), (&b, &a, only_b)] {
            if let Some(d) = d {
                distinction(o, yes, no, &d)?;
            }
        }
        o.push_str("</div>\n");
    }
    if !separations.is_empty() {
        o.push_str("</div>\n");
    }
    let undecided = p.field("undecided")?.items()?;
    if !undecided.is_empty() {
        o.push_str("<ul class=\"undecided\">\n");
        for pair in &undecided {
            let ij = pair.items()?;
            let (Some(i), Some(j)) = (ij.first(), ij.get(1)) else {
                return Err(ViewError::Type {
                    path: pair.path.clone(),
                    expected: "a pair of class indices",
                    found: "an array of another length",
                });
            };
            let _ = writeln!(
                o,
                "<li>Candidates #{} and #{}: the solver could not compare them (kept apart)</li>",
                i.count()? + 1,
                j.count()? + 1
            );
        }
        o.push_str("</ul>\n");
    }
    Ok(())
}

/// A state one reading allows and the other rules out, as a table.
fn distinction(o: &mut String, yes: &str, no: &str, d: &At<'_>) -> Result<(), ViewError> {
    let _ = writeln!(
        o,
        "<figure class=\"witness\" data-allows=\"{}\" data-rules-out=\"{}\">",
        escape(yes),
        escape(no)
    );
    let _ = writeln!(
        o,
        "<figcaption>A state {} allows and {} rules out: {}</figcaption>",
        escape(yes),
        escape(no),
        escape(d.str_field("explanation")?)
    );
    o.push_str(
        "<table class=\"witness\">\n<thead><tr><th>variable</th><th>value</th></tr></thead>\n<tbody>\n",
    );
    for a in d.field("witness")?.items()? {
        let value = match a.opt_str("unit")? {
            Some(u) => format!("{} {u}", a.str_field("value")?),
            None => a.str_field("value")?.to_string(),
        };
        let _ = writeln!(
            o,
            "<tr><td class=\"variable\">{}</td><td class=\"value\">{}</td></tr>",
            escape(a.str_field("variable")?),
            escape(&value)
        );
    }
    o.push_str("</tbody>\n</table>\n");
    if let Some(b) = d.opt_str("boundary")? {
        let _ = writeln!(o, "<p class=\"boundary\">Boundary: {}</p>", escape(b));
    }
    o.push_str("</figure>\n");
    Ok(())
}

/// The samples that were not valid formulas, with the reason.
fn invalid_samples(o: &mut String, samples: &[At<'_>]) -> Result<(), ViewError> {
    let mut rows = Vec::new();
    for s in samples {
        if s.opt("formula")?.is_none() && s.opt("pattern")?.is_none() {
            let reason = s
                .opt_str("error")?
                .unwrap_or("no formula and no reason in the report");
            rows.push((
                s.field("index")?.count()? + 1,
                s.str_field("answer")?,
                reason,
            ));
        }
    }
    if rows.is_empty() {
        return Ok(());
    }
    let _ = writeln!(
        o,
        "<details class=\"invalid-samples\"><summary>{}</summary>\n<ul>",
        plural(rows.len() as u64, "invalid sample", "invalid samples")
    );
    for (n, answer, reason) in rows {
        let _ = writeln!(
            o,
            "<li>#{n}: <code class=\"answer\">{}</code> <span class=\"reason\">{}</span></li>",
            escape(answer),
            escape(reason)
        );
    }
    o.push_str("</ul>\n</details>\n");
    Ok(())
}

/// A proposal's texts, formula and history (shared by both views).
fn proposal_body(o: &mut String, p: &At<'_>) -> Result<(), ViewError> {
    let converged = p.field("converged")?.bool()?;
    let accepted = p.opt("accepted")?.map(|a| a.bool()).transpose()?;
    let before = p.field("classes_before")?.count()?;
    let after = p.field("classes_after")?.count()?;
    let rounds = p.field("rounds")?.count()?;
    let _ = writeln!(
        o,
        "<p class=\"proposal-status {}\">{} · readings {before} → {after} · {}{}</p>",
        if converged {
            "converged"
        } else {
            "not-converged"
        },
        if converged {
            "converged to one reading"
        } else {
            "did not converge"
        },
        plural(rounds, "round", "rounds"),
        match accepted {
            Some(true) => " · accepted",
            Some(false) => " · not accepted",
            None => "",
        }
    );
    let _ = writeln!(
        o,
        "<dl class=\"proposal-texts\">\n<dt>Original</dt><dd class=\"original\">{}</dd>\n<dt>Clarified</dt><dd class=\"clarified\">{}</dd>",
        escape(p.str_field("original")?),
        escape(p.str_field("clarified")?)
    );
    if let Some(f) = p.opt_str("formula")? {
        let _ = writeln!(
            o,
            "<dt>Formula</dt><dd><code class=\"formula\">{}</code></dd>",
            escape(f)
        );
    } else if let Some(pat) = p.opt("pattern")? {
        o.push_str("<dt>Pattern</dt><dd>");
        pattern(o, &pat)?;
        o.push_str("</dd>\n");
    } else {
        o.push_str(
            "<dt>Formula</dt><dd class=\"no-formula\">none: the clarified text does not have a single reading</dd>\n",
        );
    }
    o.push_str("</dl>\n");
    if let Some(n) = p.opt_str("note")? {
        let _ = writeln!(o, "<p class=\"note\">{}</p>", escape(n));
    }
    let history = p.field("history")?.items()?;
    if !history.is_empty() {
        let _ = writeln!(
            o,
            "<details class=\"history\"><summary>{}</summary>\n<ol>",
            plural(history.len() as u64, "rewrite", "rewrites")
        );
        for h in &history {
            let classes = h.field("classes")?.count()?;
            let _ = write!(
                o,
                "<li><span class=\"text\">{}</span> <span class=\"classes\">({})</span>",
                escape(h.str_field("text")?),
                plural(classes, "reading", "readings")
            );
            if let Some(r) = h.opt_str("rejected")? {
                let _ = write!(
                    o,
                    " <span class=\"rejected\">rejected: {}</span>",
                    escape(r)
                );
            }
            o.push_str("</li>\n");
        }
        o.push_str("</ol>\n</details>\n");
    }
    Ok(())
}

/// Renders a proposals file written by `vera clarify` (`vera.clarify.v1`), which the
/// page knows as `file_rel` (a path relative to the served folder).
///
/// One `<article class="proposal">` per proposal (anchor `req-ID`): whether it
/// converged, the original and clarified texts, the formula (or timed pattern) of
/// its single reading when it has one, the note and the rewrites tried; and a form
/// `<form class="choose-reading" method="post" action="/spec/proposal/preview">`
/// with the hidden inputs `proposals` (`file_rel`), `id` (the requirement id) and
/// `csrf` (the page's token), and a button "Preview this clarification". A proposal
/// whose id is in `no_longer_fits` (the spec's requirement changed since, or is gone:
/// the value says why) gets that reason (`<p class="no-longer-fits">`) instead of the
/// form.
///
/// # Errors
///
/// [`ViewError`] when the payload is not `vera.clarify.v1`, lacks a field the view
/// needs or holds one of another type.
pub fn render_proposals(
    file_rel: &str,
    proposals: &Value,
    csrf: &str,
    no_longer_fits: &std::collections::BTreeMap<String, String>,
) -> Result<String, ViewError> {
    let root = At::root(proposals);
    let tag = root.schema_tag();
    if tag != "vera.clarify.v1" {
        return Err(ViewError::Schema {
            expected: "vera.clarify.v1",
            found: tag,
        });
    }
    let items = root.field("proposals")?.items()?;
    let mut o = String::from("<section class=\"proposals\">\n");
    let _ = writeln!(o, "<h2>Clarification proposals: {}</h2>", escape(file_rel));
    if let Some(spec) = root.opt_str("file")? {
        let _ = writeln!(
            o,
            "<p class=\"spec-file\">For the spec {}</p>",
            escape(spec)
        );
    }
    let converged = {
        let mut n = 0;
        for p in &items {
            if p.field("converged")?.bool()? {
                n += 1;
            }
        }
        n
    };
    let _ = writeln!(
        o,
        "<ul class=\"counts proposal-counts\"><li class=\"count neutral\"><span class=\"value\">{}</span> proposals</li><li class=\"count converged\"><span class=\"value\">{converged}</span> converged</li></ul>",
        items.len()
    );
    if items.is_empty() {
        o.push_str("<p class=\"empty\">The file holds no proposal.</p>\n");
    }
    for p in &items {
        let id = p.str_field("id")?;
        let conv = p.field("converged")?.bool()?;
        let _ = writeln!(
            o,
            "<article class=\"proposal {}\" id=\"{}\" data-id=\"{}\">",
            if conv { "converged" } else { "not-converged" },
            escape(&anchor(id)),
            escape(id)
        );
        let _ = writeln!(o, "<h3><span class=\"req-id\">{}</span></h3>", escape(id));
        proposal_body(&mut o, p)?;
        if let Some(why) = no_longer_fits.get(id) {
            let _ = writeln!(
                o,
                "<p class=\"no-longer-fits\">Cannot be chosen: {}. Run <code>vera clarify</code> again on the spec as it is now.</p>\n</article>",
                escape(why)
            );
            continue;
        }
        let _ = writeln!(
            o,
            "<form class=\"choose-reading\" method=\"post\" action=\"/spec/proposal/preview\">\n<input type=\"hidden\" name=\"proposals\" value=\"{}\">\n<input type=\"hidden\" name=\"id\" value=\"{}\">\n<input type=\"hidden\" name=\"csrf\" value=\"{}\">\n<button type=\"submit\">Preview this clarification</button>\n</form>",
            // The values the form sends back: exactly the file name and the id (the
            // visible stand-ins of `escape` would name another proposal).
            crate::page::attr(file_rel),
            crate::page::attr(id),
            crate::page::attr(csrf)
        );
        o.push_str("</article>\n");
    }
    o.push_str("</section>\n");
    Ok(o)
}

/// A timed pattern as a list of its keys and values.
fn pattern(o: &mut String, p: &At<'_>) -> Result<(), ViewError> {
    let obj = p.v.as_object().ok_or_else(|| ViewError::Type {
        path: p.path.clone(),
        expected: "an object",
        found: "another type",
    })?;
    o.push_str("<ul class=\"pattern\">");
    for (k, v) in obj {
        let text = match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let _ = write!(
            o,
            "<li><span class=\"key\">{}</span> <code>{}</code></li>",
            escape(k),
            escape(&text)
        );
    }
    o.push_str("</ul>");
    Ok(())
}

/// A `vera.ambiguity-timed.v1` payload.
fn render_timed(root: &At<'_>) -> Result<String, ViewError> {
    let rep = root.field("report")?;
    let mut o = String::from("<section class=\"ambiguity timed\">\n");
    let _ = writeln!(
        o,
        "<h2>Ambiguity screening (timed){}</h2>",
        root.opt_str("file")?
            .map(|f| format!(": {}", escape(f)))
            .unwrap_or_default()
    );
    if let Some(s) = rep.opt("summary")? {
        counts(&mut o, &s, true)?;
    }
    let requirements = rep.field("requirements")?.items()?;
    if requirements.is_empty() {
        o.push_str("<p class=\"empty\">The report screens no requirement.</p>\n");
    }
    for r in &requirements {
        timed_requirement(&mut o, r)?;
    }
    o.push_str("</section>\n");
    Ok(o)
}

/// One timed requirement: classes of patterns, questions with their traces.
fn timed_requirement(o: &mut String, r: &At<'_>) -> Result<(), ViewError> {
    let (samples, valid) = requirement_head(o, r)?;
    let _ = writeln!(
        o,
        "<p class=\"samples-note\">{valid} of {} valid; compared on traces up to step {}</p>",
        plural(samples.len() as u64, "sample", "samples"),
        r.field("k")?.count()?
    );
    let classes = r.field("classes")?.items()?;
    if !classes.is_empty() {
        let total = members(&classes)?;
        o.push_str("<table class=\"readings\">\n<thead><tr><th>reading</th><th>samples</th><th>pattern (representative)</th></tr></thead>\n<tbody>\n");
        for c in &classes {
            class_row_start(o, c, &samples, total)?;
            let _ = write!(
                o,
                "<span class=\"reading-words\">{}</span>",
                escape(c.str_field("reading")?)
            );
            pattern(o, &c.field("pattern")?)?;
            o.push_str("</td></tr>\n");
        }
        o.push_str("</tbody>\n</table>\n");
    }
    let questions = r.field("questions")?.items()?;
    if !questions.is_empty() {
        o.push_str("<div class=\"separations\">\n");
    }
    for q in &questions {
        let between = q
            .field("between")?
            .items()?
            .iter()
            .map(|b| b.str())
            .collect::<Result<Vec<_>, _>>()?;
        let kinds = q
            .field("kinds")?
            .items()?
            .iter()
            .map(|k| k.str())
            .collect::<Result<Vec<_>, _>>()?;
        let _ = writeln!(
            o,
            "<div class=\"separation question\">\n<h4>{} <span class=\"kinds\">({})</span></h4>",
            escape(&between.join(" vs ")),
            escape(&kinds.join(", "))
        );
        // The question's words; its trace is the table below.
        let text = q.str_field("question")?;
        let table = q.str_field("table")?;
        let words = text.strip_suffix(table).unwrap_or(text);
        for line in words.lines().filter(|l| !l.trim().is_empty()) {
            let _ = writeln!(o, "<p class=\"question-text\">{}</p>", escape(line));
        }
        let _ = writeln!(
            o,
            "<p class=\"holds\">On this trace reading {} holds; the other is broken at {}.</p>",
            escape(q.str_field("holds")?),
            escape(q.str_field("broken_at")?)
        );
        timeline(o, &q.field("timeline")?)?;
        o.push_str("</div>\n");
    }
    if !questions.is_empty() {
        o.push_str("</div>\n");
    }
    let undecided = r.field("undecided")?.items()?;
    if !undecided.is_empty() {
        o.push_str("<ul class=\"undecided\">\n");
        for pair in &undecided {
            let ab = pair
                .items()?
                .iter()
                .map(|x| x.str())
                .collect::<Result<Vec<_>, _>>()?;
            let _ = writeln!(
                o,
                "<li>Readings {}: the solver could not compare them (kept apart)</li>",
                escape(&ab.join(" and "))
            );
        }
        o.push_str("</ul>\n");
    }
    invalid_samples(o, &samples)?;
    o.push_str("</article>\n");
    Ok(())
}

/// A trace as a table: one row per interval, one column per variable.
fn timeline(o: &mut String, t: &At<'_>) -> Result<(), ViewError> {
    let rows = t.field("rows")?.items()?;
    // The variables, in the order they first appear.
    let mut vars: Vec<&str> = Vec::new();
    for r in &rows {
        for a in r.field("values")?.items()? {
            let v = a.str_field("variable")?;
            if !vars.contains(&v) {
                vars.push(v);
            }
        }
    }
    o.push_str("<table class=\"witness timeline\">\n<thead><tr><th>time</th>");
    for v in &vars {
        let _ = write!(o, "<th class=\"variable\">{}</th>", escape(v));
    }
    o.push_str("</tr></thead>\n<tbody>\n");
    for r in &rows {
        let _ = write!(
            o,
            "<tr><td class=\"time\">{} to {}</td>",
            escape(r.str_field("from_time")?),
            escape(r.str_field("to_time")?)
        );
        let values = r.field("values")?.items()?;
        for v in &vars {
            let mut cell = String::new();
            for a in &values {
                if a.str_field("variable")? == *v {
                    cell = match a.opt_str("unit")? {
                        Some(u) => format!("{} {u}", a.str_field("value")?),
                        None => a.str_field("value")?.to_string(),
                    };
                }
            }
            let _ = write!(o, "<td class=\"value\">{}</td>", escape(&cell));
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</tbody>\n</table>\n");
    if let Some(l) = t.opt_str("loops_to_time")? {
        let _ = writeln!(
            o,
            "<p class=\"loops\">After its last step the run repeats from {}.</p>",
            escape(l)
        );
    }
    Ok(())
}
