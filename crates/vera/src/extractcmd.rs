//! `vera extract FILE`: the requirement list of a document, a FRET JSON file, a Hanfor
//! CSV or a ReqIF file (the `extract` crate), as a vera TOML spec without formulas
//! (the default) or as JSON (`vera.requirements.v1`).

use extract::{Confidence, Extraction};
use report::Status;

/// The report of `vera extract`.
pub struct ExtractRun {
    x: Extraction,
}

/// `vera extract FILE`
pub fn extract(a: &crate::cli::ExtractArgs) -> crate::output::Outcome {
    let bytes = safefile::read_bytes(&a.file)?;
    let name = a.file.display().to_string();
    let x = extract::extract(&name, &bytes, a.from.format())?;
    let run = ExtractRun { x };
    eprintln!("{}", crate::output::clean(&run.summary()));
    Ok(Box::new(run))
}

const SCHEMA: &str = extract::SCHEMA_TAG;

/// A TOML basic string (JSON's escapes are TOML's).
fn toml_str(s: &str) -> String {
    serde_json::to_string(s).expect("a string serializes")
}

/// `s` safe inside a TOML comment: one line, no control characters.
fn comment(s: &str) -> String {
    crate::output::clean(&s.replace(['\n', '\r'], " "))
}

impl ExtractRun {
    /// One line: how many requirements from which file.
    fn summary(&self) -> String {
        let c = self.x.counts();
        if c.requirements == 0 {
            return format!(
                "0 requirements found in {} (read as {}): nothing to check",
                self.x.file,
                self.x.format.name()
            );
        }
        format!(
            "{} requirement{} extracted from {} (read as {}): {} marked in the source, {} candidate{}",
            c.requirements,
            if c.requirements == 1 { "" } else { "s" },
            self.x.file,
            self.x.format.name(),
            c.high,
            c.candidate,
            if c.candidate == 1 { "" } else { "s" }
        )
    }

    /// The TOML spec: requirements without formulas, each with a comment giving its source.
    fn toml(&self) -> String {
        let x = &self.x;
        let mut o = String::new();
        o.push_str(&format!("# {}\n", comment(&self.summary())));
        o.push_str("# Written by `vera extract`. No formulas yet: add [[variables]] and a formula to each\n");
        o.push_str("# requirement (docs/spec-format.md), or run `vera formalize`. A candidate is a \"shall\"\n");
        o.push_str("# sentence the source does not mark as a requirement: keep it or delete it.\n");
        for n in &x.notes {
            o.push_str(&format!("# note: {}\n", comment(n)));
        }
        for v in &x.variables {
            o.push_str(&format!(
                "# variable in the source: {} ({}{}){}\n",
                comment(&v.name),
                comment(v.data_type.as_deref().unwrap_or("no type")),
                v.role
                    .as_deref()
                    .map(|r| format!(", {}", comment(r)))
                    .unwrap_or_default(),
                v.description
                    .as_deref()
                    .map(|d| format!(": {}", comment(d)))
                    .unwrap_or_default()
            ));
        }
        let stem = std::path::Path::new(&x.file)
            .file_stem()
            .map_or(x.file.clone(), |s| s.to_string_lossy().into_owned());
        o.push_str(&format!("\n[spec]\nname = {}\n", toml_str(&stem)));
        for r in &x.requirements {
            o.push_str("\n[[requirements]]\n");
            let mut c = match (r.source.line, r.source.record) {
                (Some(l), _) => format!("{}:{l}", r.source.file),
                (None, Some(n)) => format!("{}, record {n}", r.source.file),
                (None, None) => r.source.file.clone(),
            };
            if r.confidence == Confidence::Candidate {
                c = format!("candidate, {c}");
            }
            if let Some(s) = &r.section {
                c.push_str(&format!(", section {s}"));
            }
            if let Some(k) = &r.kind {
                c.push_str(&format!(", type {k}"));
            }
            o.push_str(&format!("# {}\n", comment(&c)));
            if let Some(f) = &r.fretish {
                o.push_str(&format!("# FRETish: {}\n", comment(f)));
            }
            if let Some(f) = &r.formalization {
                o.push_str(&format!("# formalization in the source: {}\n", comment(f)));
            }
            o.push_str(&format!(
                "id = {}\ntext = {}\n",
                toml_str(&r.id),
                toml_str(&r.text)
            ));
        }
        o
    }
}

impl report::Report for ExtractRun {
    fn schema(&self) -> &'static str {
        SCHEMA
    }

    fn status(&self) -> Status {
        if self.x.requirements.is_empty() {
            Status::Findings
        } else {
            Status::Ok
        }
    }

    fn human(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        w.write_all(self.toml().as_bytes())?;
        w.flush()
    }

    fn json(&self) -> serde_json::Result<String> {
        self.x.to_json()
    }
}
