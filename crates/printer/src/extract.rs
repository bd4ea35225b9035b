//! The reports of `vera extract`: a requirement list as a TOML spec without formulas or
//! as JSON (`vera.requirements.v1`), and a `.req` file or a FRET export imported as a
//! timed TOML spec, with what was left out and why.

use extract::{Confidence, Extraction, FretImport, ReqImport};
use report::Status;

/// The report of `vera extract` on a requirement list.
pub struct ExtractRun {
    /// What was extracted.
    pub x: Extraction,
}

/// What `vera extract` read from a `.req` file: the timed spec it was imported as
/// (shown as an imported spec, like a FRET export).
pub struct ReqRun {
    /// The file as named on the command line.
    pub file: String,
    /// The import.
    pub import: ReqImport,
}

/// What `vera extract --timed` read from a FRET export (shown as an imported spec, like a `.req` file).
pub struct FretRun {
    /// The file as named on the command line.
    pub file: String,
    /// The import.
    pub import: FretImport,
}

impl FretRun {
    pub fn summary(&self) -> String {
        let i = &self.import;
        let left = match i.refused.len() {
            0 => String::new(),
            _ => format!(
                ", {} left out",
                count(i.read.iter().filter(|r| !r.imported).count(), "requirement")
            ),
        };
        if i.requirements == 0 {
            return format!(
                "0 requirements imported from {} (read as FRET, FRETish){left}: nothing to check",
                self.file
            );
        }
        format!(
            "{} imported from {} (read as FRET, FRETish): a timed spec with {}{left}",
            count(i.requirements, "requirement"),
            self.file,
            count(i.variables, "variable"),
        )
    }

    /// The spec, with the notes and the requirements left out as comments below its
    /// header comment.
    fn toml(&self) -> String {
        let i = &self.import;
        let mut extra: String = i
            .notes
            .iter()
            .map(|n| format!("# note: {}\n", comment(n)))
            .collect();
        for e in &i.refused {
            extra.push_str(&format!("# not imported: {}\n", comment(&e.to_string())));
        }
        below_header(&i.toml, &extra)
    }
}

const SCHEMA: &str = extract::SCHEMA_TAG;

/// A TOML string, written by the TOML crate (JSON's escapes are not TOML's: a DEL
/// character, U+007F, is raw in JSON and forbidden in a TOML string).
fn toml_str(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// `s` safe inside a TOML comment: one line, no control characters.
pub fn comment(s: &str) -> String {
    crate::text::clean(&s.replace(['\n', '\r'], " "))
}

impl ExtractRun {
    /// One line: how many requirements from which file.
    pub fn summary(&self) -> String {
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

/// `n` with the plural `s` when it is not one: `3 variables`.
fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

impl ReqRun {
    /// One line: how many requirements from which file.
    pub fn summary(&self) -> String {
        let i = &self.import;
        if i.requirements == 0 {
            return format!(
                "0 requirements found in {} (read as Ultimate .req): nothing to check",
                self.file
            );
        }
        let notes = match i.notes.len() {
            0 => String::new(),
            n => format!(" ({} above)", count(n, "note")),
        };
        format!(
            "{} imported from {} (read as Ultimate .req): a timed spec with {}{notes}",
            count(i.requirements, "requirement"),
            self.file,
            count(i.variables, "variable"),
        )
    }

    /// The spec, with the importer's notes as comments below its header comment.
    fn toml(&self) -> String {
        let notes: String = self
            .import
            .notes
            .iter()
            .map(|n| format!("# note: {}\n", comment(n)))
            .collect();
        below_header(&self.import.toml, &notes)
    }
}

/// An import that yields no requirement is a finding: there is nothing to check.
/// A spec imported from a `.req` file or a FRET export (`what`), as a report: its TOML
/// with the comments of the import, and no JSON form.
struct ImportedSpec {
    what: &'static str,
    toml: String,
    requirements: usize,
}

impl report::Report for ImportedSpec {
    fn schema(&self) -> &'static str {
        // Never rendered: `import_req` and `import_fret` refuse `--format json` before
        // reading the file.
        SCHEMA
    }

    fn status(&self) -> Status {
        if self.requirements == 0 {
            Status::Findings
        } else {
            Status::Ok
        }
    }

    fn human(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        w.write_all(self.toml.as_bytes())?;
        w.flush()
    }

    /// An imported spec has no JSON form: it is TOML.
    fn json(&self) -> serde_json::Result<String> {
        Err(serde::ser::Error::custom(format!(
            "{} is imported as a TOML spec only",
            self.what
        )))
    }
}

/// `toml` with the comment lines `extra` put below its header comment (the first
/// paragraph, when the text begins with a comment), or above it.
fn below_header(toml: &str, extra: &str) -> String {
    if extra.is_empty() {
        return toml.to_string();
    }
    match toml.find("\n\n") {
        Some(k) if toml.starts_with('#') => format!("{}\n{extra}{}", &toml[..k], &toml[k + 1..]),
        _ => format!("{extra}\n{toml}"),
    }
}

/// The report of `vera extract` on what was imported, with the lines it says on
/// standard error besides: the requirements a FRET import left out (with
/// `--skip-unsupported`, as warnings; they are comments in the spec too), the notes of
/// the reading (what was dropped or repaired, also in the spec's comments and the
/// JSON's notes: a person checks it there), then the summary.
pub fn imported(file: String, imported: extract::Imported) -> (Box<dyn report::Report>, String) {
    let notes = |notes: &[String]| -> Vec<String> {
        let note = |n: &String| format!("note: {}", comment(n));
        notes.iter().map(note).collect()
    };
    let (run, mut lines): (Box<dyn report::Report>, _) = match imported {
        extract::Imported::List(x) => {
            let lines = notes(&x.notes);
            let run = ExtractRun { x };
            let summary = run.summary();
            (Box::new(run), [lines, vec![summary]].concat())
        }
        extract::Imported::Req(import) => {
            let lines = notes(&import.notes);
            let run = ReqRun { file, import };
            let spec = ImportedSpec {
                what: "a .req file",
                toml: run.toml(),
                requirements: run.import.requirements,
            };
            (Box::new(spec), [lines, vec![run.summary()]].concat())
        }
        extract::Imported::Fret(import) => {
            let refused = import.refused.iter();
            let refused =
                refused.map(|e| format!("warning: {} (not imported)", comment(&e.to_string())));
            let lines = [refused.collect(), notes(&import.notes)].concat();
            let run = FretRun { file, import };
            let spec = ImportedSpec {
                what: "a FRET export read with --timed",
                toml: run.toml(),
                requirements: run.import.requirements,
            };
            (Box::new(spec), [lines, vec![run.summary()]].concat())
        }
    };
    if let Some(summary) = lines.last_mut() {
        *summary = crate::text::clean(summary);
    }
    (run, lines.join("\n"))
}

/// What `vera extract` says on standard error when a `.req` file or a FRET export
/// cannot be imported: its errors, each with its place, then one line that says so.
/// `None` for the other errors, which are one message.
pub fn import_errors(file: &str, e: &extract::ImportError) -> Option<String> {
    use extract::ImportError;
    let (errors, hint): (Vec<String>, &str) = match e {
        ImportError::Req { errors, .. } => (errors.iter().map(|e| e.to_string()).collect(), ""),
        ImportError::Fret {
            errors, skippable, ..
        } => (
            errors.iter().map(|e| e.to_string()).collect(),
            if *skippable {
                " (--skip-unsupported imports the other requirements)"
            } else {
                ""
            },
        ),
        _ => return None,
    };
    let mut lines: Vec<String> = errors.iter().map(|e| crate::text::clean(e)).collect();
    lines.push(format!(
        "error: {} cannot be imported: {} above{hint}",
        crate::text::clean(file),
        if errors.len() == 1 {
            "the error"
        } else {
            "the errors"
        }
    ));
    Some(lines.join("\n"))
}
