//! Synthetic specs with the structure of real ones, for benchmarks: alarm thresholds
//! over ranges, mode guards, interlocks, and some planted redundancy (a margin) and
//! overlap (a shared boundary).

use std::fmt::Write as _;

/// The TOML text of a spec with about `n` requirements.
///
/// Requirements come in groups of five over one sensor: a high and a low alarm, an
/// interlock, a mode guard and a run rule. Every tenth group adds a margin alarm that
/// makes its high alarm redundant; every thirteenth adds two threshold rules that
/// overlap at one boundary value. Ten groups share one mode variable.
pub fn spec_text(n: usize) -> String {
    let mut vars = String::new();
    let mut domain = String::new();
    let mut reqs = String::new();
    let mut count = 0;
    let mut g = 0;
    let var = |out: &mut String,
               name: &str,
               sort: &str,
               unit: Option<&str>,
               bounds: Option<(i64, i64)>| {
        let _ = write!(
            out,
            "\n[[variables]]\nname = \"{name}\"\nsort = \"{sort}\"\n"
        );
        if let Some(u) = unit {
            let _ = writeln!(out, "unit = \"{u}\"");
        }
        if let Some((lo, hi)) = bounds {
            let _ = writeln!(out, "min = {lo}\nmax = {hi}");
        }
    };
    let req = |out: &mut String, count: &mut usize, id: String, text: &str, formula: String| {
        let _ = write!(
            out,
            "\n[[requirements]]\nid = \"{id}\"\ntext = \"{text}\"\nformula = \"{formula}\"\n"
        );
        *count += 1;
    };
    while count < n {
        if g % 10 == 0 {
            var(&mut vars, &format!("mode{}", g / 10), "Mode", None, None);
        }
        let m = format!("mode{}", g / 10);
        let (s, lo, hi, a, act) = (
            format!("s{g}"),
            format!("lo{g}"),
            format!("hi{g}"),
            format!("a{g}"),
            format!("act{g}"),
        );
        var(&mut vars, &s, "Real", Some("kPa"), Some((0, 1000)));
        var(&mut vars, &lo, "Real", Some("kPa"), Some((0, 1000)));
        var(&mut vars, &hi, "Real", Some("kPa"), Some((0, 1000)));
        var(&mut vars, &a, "Bool", None, None);
        var(&mut vars, &act, "Bool", None, None);
        let _ = write!(domain, "\n[[domain]]\nid = \"D{g}\"\ntext = \"limits are ordered\"\nformula = \"(< {lo} {hi})\"\n");
        req(
            &mut reqs,
            &mut count,
            format!("G{g}-HIGH"),
            "high alarm",
            format!("(=> (> {s} {hi}) {a})"),
        );
        req(
            &mut reqs,
            &mut count,
            format!("G{g}-LOW"),
            "low alarm",
            format!("(=> (< {s} {lo}) {a})"),
        );
        req(
            &mut reqs,
            &mut count,
            format!("G{g}-LOCK"),
            "alarm interlock",
            format!("(=> {a} (not {act}))"),
        );
        req(
            &mut reqs,
            &mut count,
            format!("G{g}-SERVICE"),
            "no actuation in service",
            format!("(=> (= {m} Service) (not {act}))"),
        );
        req(
            &mut reqs,
            &mut count,
            format!("G{g}-RUN"),
            "actuate when running",
            format!("(=> (and (= {m} Run) (not {a}) (> {s} 10)) {act})"),
        );
        if g % 10 == 3 {
            req(
                &mut reqs,
                &mut count,
                format!("G{g}-MARGIN"),
                "early alarm",
                format!("(=> (> {s} (- {hi} 5)) {a})"),
            );
        }
        if g % 13 == 5 {
            let th = format!("th{g}");
            var(&mut vars, &th, "Real", Some("kPa"), None);
            req(
                &mut reqs,
                &mut count,
                format!("G{g}-TH1"),
                "low band threshold",
                format!("(=> (<= {s} 200) (= {th} 1))"),
            );
            req(
                &mut reqs,
                &mut count,
                format!("G{g}-TH2"),
                "high band threshold",
                format!("(=> (>= {s} 200) (= {th} 2))"),
            );
        }
        g += 1;
    }
    format!(
        "[spec]\nname = \"generated spec with {count} requirements\"\n\n[[enums]]\nname = \"Mode\"\nvalues = [\"Off\", \"Run\", \"Service\"]\n{vars}{domain}{reqs}"
    )
}
