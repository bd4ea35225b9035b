//! `vera extract FILE`: the requirement list of a document, a FRET JSON file, a Hanfor
//! CSV or a ReqIF file (the `extract` crate), as a vera TOML spec without formulas
//! (the default) or as JSON (`vera.requirements.v1`); or an Ultimate/Hanfor `.req` file
//! imported with its formulas as a timed TOML spec (`extract::req_to_spec`,
//! docs/timed.md); or a FRET export's FRETish sentences imported as a timed spec
//! (`--timed`, `extract::fret_to_spec`).

use crate::cli::{ExtractReading, TextFormat};
use extract::{Confidence, Extraction, FretImport, ReqImport};
use report::Status;

/// The report of `vera extract` on a requirement list.
pub struct ExtractRun {
    x: Extraction,
}

/// The report of `vera extract` on a `.req` file: the timed spec it was imported as.
pub struct ReqRun {
    /// The file as named on the command line.
    file: String,
    import: ReqImport,
}

/// `vera extract FILE`
pub fn extract(a: &crate::cli::ExtractArgs) -> crate::output::Outcome {
    let name = a.file.display().to_string();
    let format = match a.from.reading(&a.file) {
        ExtractReading::Req => return import_req(a, name),
        ExtractReading::List(format) => format,
    };
    if a.timed || a.skip_unsupported || a.tick.is_some() {
        let bytes = crate::files::read_utf8(&a.file)?;
        let read_as = format.unwrap_or_else(|| extract::Format::detect(&name, &bytes));
        if read_as == extract::Format::Fret {
            return import_fret(a, name, bytes);
        }
        let how = match format {
            Some(f) => format!("it is read with --from {}", f.name()),
            None => format!(
                "its name does not end in .req (--from req reads it as one) and it is read as {}",
                read_as.name()
            ),
        };
        if a.timed || a.skip_unsupported {
            anyhow::bail!(
                "--timed (and --skip-unsupported) imports the FRETish sentences of a FRET export; {} is not read as \
                 one: {how}",
                crate::output::clean(&name)
            );
        }
        anyhow::bail!(
            "--tick sets the time step of a spec imported from an Ultimate .req file or a FRET \
             export; {} is not read as either: {how}",
            crate::output::clean(&name)
        );
    }
    let bytes = crate::files::read_utf8(&a.file)?;
    let x = extract::extract(&name, &bytes, format)?;
    // What was dropped or repaired is said on standard error too (and kept in the
    // spec's comments and the JSON's notes): a person checks it there.
    for n in &x.notes {
        eprintln!("note: {}", comment(n));
    }
    let run = ExtractRun { x };
    eprintln!("{}", crate::output::clean(&run.summary()));
    Ok(Box::new(run))
}

/// `vera extract FILE.req`: the timed spec of `req_to_spec`. Its notes go to standard
/// error (and into the spec as comments); its errors are listed all at once, each with
/// its place, and exit with status 2.
fn import_req(a: &crate::cli::ExtractArgs, name: String) -> crate::output::Outcome {
    if a.skip_unsupported {
        anyhow::bail!(
            "--skip-unsupported is for FRET exports; an Ultimate .req file is imported whole \
             or not at all"
        );
    }
    if a.format == TextFormat::Json {
        anyhow::bail!(
            "--format json is not available for an Ultimate .req file: it is imported as a \
             timed spec, written as TOML (docs/timed.md); leave out --format json"
        );
    }
    let text = safefile::read_text(&a.file)?;
    let options = extract::ReqOptions {
        tick: a.tick.as_deref(),
        semantics: match a.semantics {
            crate::cli::ReqTime::Dense => extract::ReqSemantics::Dense,
            crate::cli::ReqTime::Discrete => extract::ReqSemantics::Discrete,
        },
    };
    let import = match extract::req_to_spec_with(&name, &text, &options) {
        Ok(i) => i,
        Err(errors) => {
            for e in &errors {
                eprintln!("{}", crate::output::clean(&e.to_string()));
            }
            eprintln!(
                "error: {} cannot be imported: {} above",
                crate::output::clean(&name),
                if errors.len() == 1 {
                    "the error"
                } else {
                    "the errors"
                }
            );
            return Err(crate::output::Reported.into());
        }
    };
    for n in &import.notes {
        eprintln!("note: {}", comment(n));
    }
    let run = ReqRun { file: name, import };
    eprintln!("{}", crate::output::clean(&run.summary()));
    Ok(Box::new(run))
}

/// `vera extract EXPORT.json --timed`: the timed spec of `fret_to_spec`. As for a `.req`
/// file, notes go to standard error and into the spec, and every error is listed at
/// once (exit status 2); with `--skip-unsupported`, the requirements that cannot be
/// imported are listed as warnings and as comments in the spec instead.
fn import_fret(
    a: &crate::cli::ExtractArgs,
    name: String,
    bytes: Vec<u8>,
) -> crate::output::Outcome {
    if a.format == TextFormat::Json {
        anyhow::bail!(
            "--format json is not available with --timed: a FRET export is then imported as \
             a timed spec, written as TOML (docs/timed.md); leave out --format json"
        );
    }
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let good = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
            anyhow::bail!(
                "{}:{line}: not UTF-8 (save the file as UTF-8)",
                crate::output::clean(&name)
            );
        }
    };
    let options = extract::FretOptions {
        tick: a.tick.as_deref(),
        skip_refused: a.skip_unsupported,
    };
    let import = match extract::fret_to_spec(&name, &text, &options) {
        Ok(i) => i,
        Err(errors) => {
            for e in &errors {
                eprintln!("{}", crate::output::clean(&e.to_string()));
            }
            eprintln!(
                "error: {} cannot be imported: {} above{}",
                crate::output::clean(&name),
                if errors.len() == 1 {
                    "the error"
                } else {
                    "the errors"
                },
                if errors.iter().any(|e| e.requirement.is_some()) {
                    " (--skip-unsupported imports the other requirements)"
                } else {
                    ""
                }
            );
            return Err(crate::output::Reported.into());
        }
    };
    for e in &import.refused {
        eprintln!("warning: {} (not imported)", comment(&e.to_string()));
    }
    for n in &import.notes {
        eprintln!("note: {}", comment(n));
    }
    let run = FretRun { file: name, import };
    eprintln!("{}", crate::output::clean(&run.summary()));
    Ok(Box::new(run))
}

/// The report of `vera extract --timed` on a FRET export.
pub struct FretRun {
    /// The file as named on the command line.
    file: String,
    import: FretImport,
}

impl FretRun {
    fn summary(&self) -> String {
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
        if extra.is_empty() {
            return i.toml.clone();
        }
        match i.toml.find("\n\n") {
            Some(k) if i.toml.starts_with('#') => {
                format!("{}\n{extra}{}", &i.toml[..k], &i.toml[k + 1..])
            }
            _ => format!("{extra}\n{}", i.toml),
        }
    }
}

impl report::Report for FretRun {
    fn schema(&self) -> &'static str {
        // Never rendered: `import_fret` refuses `--format json` before reading the file.
        SCHEMA
    }

    fn status(&self) -> Status {
        if self.import.requirements == 0 {
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
        Err(serde::ser::Error::custom(
            "a FRET export read with --timed is imported as a TOML spec only",
        ))
    }
}

const SCHEMA: &str = extract::SCHEMA_TAG;

/// A TOML string, written by the TOML crate (JSON's escapes are not TOML's: a DEL
/// character, U+007F, is raw in JSON and forbidden in a TOML string).
fn toml_str(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
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

/// `n` with the plural `s` when it is not one: `3 variables`.
fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

impl ReqRun {
    /// One line: how many requirements from which file.
    fn summary(&self) -> String {
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
        let i = &self.import;
        if i.notes.is_empty() {
            return i.toml.clone();
        }
        let notes: String = i
            .notes
            .iter()
            .map(|n| format!("# note: {}\n", comment(n)))
            .collect();
        match i.toml.find("\n\n") {
            Some(k) if i.toml.starts_with('#') => {
                format!("{}\n{notes}{}", &i.toml[..k], &i.toml[k + 1..])
            }
            _ => format!("{notes}\n{}", i.toml),
        }
    }
}

impl report::Report for ReqRun {
    fn schema(&self) -> &'static str {
        // Never rendered: `import_req` refuses `--format json` before reading the file.
        SCHEMA
    }

    fn status(&self) -> Status {
        if self.import.requirements == 0 {
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
        Err(serde::ser::Error::custom(
            "a .req file is imported as a TOML spec only",
        ))
    }
}
