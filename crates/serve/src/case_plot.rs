//! The plot section of the case page: both outputs over one input, the other inputs
//! fixed by the person (a GET form, so a chart has a link of its own).

use crate::case_page::CaseFiles;
use crate::page::{enc, escape, hidden};
use crate::plot::{self, PlotRequest};
use std::collections::BTreeMap;
use std::path::Path;

/// The plot section: the chart and the form that chooses the input and fixes the
/// others. `params` are the page's query parameters: `x`, `from`, `to`, and `fix.NAME`
/// for each other input. Runs the solver for an SMT-LIB side (call it off the async
/// threads).
pub fn section(
    root: &Path,
    rel: &str,
    case: &CaseFiles,
    regions: &[bl::check::Region],
    params: &BTreeMap<String, String>,
    solver: &solver::SolverConfig,
) -> String {
    let mut s = String::from("<section id=\"plot-section\"><h2>Both outputs over one input</h2>");
    let files = match plot::CaseFiles::from_paths(
        &root.join(&case.nl),
        &root.join(&case.implementation),
        case.bounds.as_ref().map(|b| root.join(b)).as_deref(),
        None,
    ) {
        Ok(f) => f,
        Err(e) => {
            s.push_str(&format!(
                "<p class=\"meta\">No chart: {}</p></section>",
                escape(&e.to_string())
            ));
            return s;
        }
    };
    let inputs = match plot::inputs_of(&files) {
        Ok(i) if !i.is_empty() => i,
        Ok(_) => {
            s.push_str("<p class=\"meta\">No chart: the case has no input.</p></section>");
            return s;
        }
        Err(e) => {
            s.push_str(&format!(
                "<p class=\"meta\">No chart: {}</p></section>",
                escape(&e.to_string())
            ));
            return s;
        }
    };
    let (req, notes) = request(params, &inputs, regions);
    let result = plot::plot_case(&files, &req, regions, solver);
    let (fixed, from, to) = match &result {
        Ok(p) => (p.fixed.clone(), p.from.clone(), p.to.clone()),
        Err(_) => (
            req.fixed
                .iter()
                .map(|(k, v)| (k.clone(), plot::exact(v)))
                .collect(),
            params.get("from").cloned().unwrap_or_default(),
            params.get("to").cloned().unwrap_or_default(),
        ),
    };
    s.push_str(&form(rel, &inputs, &req.x, &fixed, &from, &to));
    for n in &notes {
        s.push_str(&format!("<p class=\"meta\">{}</p>", escape(n)));
    }
    match result {
        Ok(p) => s.push_str(&chart(rel, &p)),
        Err(e) => s.push_str(&format!(
            "<p class=\"meta\">No chart: {}</p>",
            escape(&e.to_string())
        )),
    }
    s.push_str("</section>");
    s
}

/// The plot asked for by the page's query (`x`, `from`, `to`, `fix.NAME`), with notes on
/// the values that were not numbers. Without a choice of `x`, the input the regions
/// speak of first; without fixed inputs, the first region's example.
fn request(
    params: &BTreeMap<String, String>,
    inputs: &[String],
    regions: &[bl::check::Region],
) -> (PlotRequest, Vec<String>) {
    let mut notes = Vec::new();
    let x = params
        .get("x")
        .filter(|x| inputs.contains(x))
        .cloned()
        .unwrap_or_else(|| {
            // The input the regions speak of first (often the income), else the first.
            inputs
                .iter()
                .find(|i| {
                    regions
                        .iter()
                        .any(|r| r.conditions.first().is_some_and(|c| c.contains(i.as_str())))
                })
                .unwrap_or(&inputs[0])
                .clone()
        });
    let num = |key: &str, notes: &mut Vec<String>| -> Option<num_rational::BigRational> {
        let v = params.get(key)?.trim();
        if v.is_empty() {
            return None;
        }
        match bl::parse_rational(v) {
            Some(r) => Some(r),
            None => {
                notes.push(format!(
                    "`{v}` is not a number (for {key}); the default is used"
                ));
                None
            }
        }
    };
    let mut req = PlotRequest {
        x: x.clone(),
        from: num("from", &mut notes),
        to: num("to", &mut notes),
        fixed: BTreeMap::new(),
        samples: 0,
    };
    for i in inputs.iter().filter(|i| **i != x) {
        if let Some(v) = num(&format!("fix.{i}"), &mut notes) {
            req.fixed.insert(i.clone(), v);
        }
    }
    // Without a choice, fix the other inputs where the first region diverges, so the
    // first chart shows the divergence the check found.
    if !params.keys().any(|k| k.starts_with("fix.")) {
        if let Some(r) = regions.first() {
            for (k, v) in &r.example {
                if *k != x && inputs.contains(k) {
                    if let Some(v) = bl::parse_rational(v) {
                        req.fixed.insert(k.clone(), v);
                    }
                }
            }
        }
    }
    (req, notes)
}

/// The form that chooses the input along which to plot, the range and the fixed values.
fn form(
    rel: &str,
    inputs: &[String],
    x: &String,
    fixed: &BTreeMap<String, String>,
    from: &str,
    to: &str,
) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "<form id=\"plot-form\" method=\"get\" action=\"/case\" class=\"plot-form\">{}<label>along <select name=\"x\">{}</select></label><label>from <input name=\"from\" value=\"{}\"></label><label>to <input name=\"to\" value=\"{}\"></label>",
        hidden("path", rel),
        inputs
            .iter()
            .map(|i| format!("<option{}>{}</option>", if *i == *x { " selected" } else { "" }, escape(i)))
            .collect::<String>(),
        escape(from),
        escape(to),
    ));
    for i in inputs.iter().filter(|i| *i != x) {
        s.push_str(&format!(
            "<label>{} fixed at <input name=\"fix.{}\" value=\"{}\"></label>",
            escape(i),
            escape(i),
            escape(fixed.get(i).map(String::as_str).unwrap_or(""))
        ));
    }
    s.push_str("<button type=\"submit\">Draw</button></form>");
    s
}

/// The chart with a summary of where the outputs differ and its notes.
fn chart(rel: &str, p: &plot::Plot) -> String {
    let mut s = String::new();
    s.push_str(&format!("<div class=\"chart\">{}</div>", p.svg));
    if p.divergent.is_empty() {
        s.push_str(
            "<p id=\"plot-summary\">At every sample of this range the two outputs agree.</p>",
        );
    } else {
        let runs: Vec<String> = p
            .divergent
            .iter()
            .map(|(a, b)| {
                if a == b {
                    a.clone()
                } else {
                    format!("{a} … {b}")
                }
            })
            .collect();
        s.push_str(&format!(
            "<p id=\"plot-summary\">The outputs differ at the samples {} = {}.</p>",
            escape(&p.x),
            escape(&runs.join(", "))
        ));
    }
    if !p.notes.is_empty() {
        s.push_str("<ul class=\"plot-notes\">");
        for n in p.notes.iter().take(20) {
            s.push_str(&format!("<li>{}</li>", escape(n)));
        }
        if p.notes.len() > 20 {
            s.push_str(&format!("<li>… and {} more</li>", p.notes.len() - 20));
        }
        s.push_str("</ul>");
    }
    s.push_str(&format!(
        "<p class=\"meta\">{} samples, each computed exactly (the BL interpreter; the solver for an SMT-LIB side). <a href=\"/case?path={}\">Reset the chart</a></p>",
        p.points.len(),
        escape(&enc(rel))
    ));
    s
}
