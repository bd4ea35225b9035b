//! Prompt templates: versioned text files rendered with named variables.
//!
//! A template file (by convention `prompts/<name>.txt` at the repository root) starts
//! with a version line, `version: <N>`; every other line is the body. Placeholders are
//! `{{name}}` (spaces inside the braces allowed), names made of letters, digits and `_`.
//! Rendering fails on a placeholder without a value; a `{{` that does not open a valid
//! placeholder is an error when the template is parsed, so typos show up early.

use std::collections::BTreeSet;
use std::path::Path;

use crate::error::{LlmError, Result};

/// A parsed template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template {
    name: String,
    version: u32,
    parts: Vec<Part>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Text(String),
    Var(String),
}

impl Template {
    /// Parses template text; `name` is used in errors and in [`Template::id`].
    pub fn parse(name: &str, text: &str) -> Result<Template> {
        let err = |detail: String| LlmError::Template {
            template: name.to_string(),
            detail,
        };
        let (first, body) = text.split_once('\n').unwrap_or((text, ""));
        let version = first
            .trim()
            .strip_prefix("version:")
            .and_then(|v| v.trim().parse::<u32>().ok())
            .ok_or_else(|| {
                err(format!(
                    "the first line must be `version: <N>`, not {:?}",
                    first.trim()
                ))
            })?;
        let mut parts = Vec::new();
        let mut rest = body;
        while let Some(i) = rest.find("{{") {
            if i > 0 {
                parts.push(Part::Text(rest[..i].to_string()));
            }
            let after = &rest[i + 2..];
            let line = body[..body.len() - rest.len() + i].matches('\n').count() + 2;
            let end = after
                .find("}}")
                .ok_or_else(|| err(format!("line {line}: `{{{{` without a closing `}}}}`")))?;
            let var = after[..end].trim();
            let valid = !var.is_empty()
                && var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !var.starts_with(|c: char| c.is_ascii_digit());
            if !valid {
                return Err(err(format!(
                    "line {line}: {{{{{}}}}} is not a variable name",
                    &after[..end]
                )));
            }
            parts.push(Part::Var(var.to_string()));
            rest = &after[end + 2..];
        }
        if !rest.is_empty() {
            parts.push(Part::Text(rest.to_string()));
        }
        Ok(Template {
            name: name.to_string(),
            version,
            parts,
        })
    }

    /// Loads `dir/<name>.txt`.
    pub fn load(dir: impl AsRef<Path>, name: &str) -> Result<Template> {
        let path = dir.as_ref().join(format!("{name}.txt"));
        safefile::register_input(&path);
        let text = std::fs::read_to_string(&path).map_err(|e| LlmError::Template {
            template: path.display().to_string(),
            detail: e.to_string(),
        })?;
        Template::parse(name, &text)
    }

    /// The template's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its version.
    pub fn version(&self) -> u32 {
        self.version
    }

    /// `name@vN`, for reports.
    pub fn id(&self) -> String {
        format!("{}@v{}", self.name, self.version)
    }

    /// The variables it uses.
    pub fn variables(&self) -> BTreeSet<&str> {
        self.parts
            .iter()
            .filter_map(|p| match p {
                Part::Var(v) => Some(v.as_str()),
                Part::Text(_) => None,
            })
            .collect()
    }

    /// Renders with `vars` (name, value); every placeholder needs a value, extra values
    /// are ignored.
    pub fn render(&self, vars: &[(&str, &str)]) -> Result<String> {
        let mut out = String::new();
        for p in &self.parts {
            match p {
                Part::Text(t) => out.push_str(t),
                Part::Var(v) => {
                    let value = vars
                        .iter()
                        .find(|(k, _)| k == v)
                        .map(|(_, val)| *val)
                        .ok_or_else(|| LlmError::MissingVariable {
                            template: self.name.clone(),
                            name: v.clone(),
                        })?;
                    out.push_str(value);
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_and_reports() {
        let t = Template::parse(
            "t",
            "version: 2\nHello {{ who }}, {{what}}!\n{\"json\": 1}\n",
        )
        .unwrap();
        assert_eq!(t.version(), 2);
        assert_eq!(t.id(), "t@v2");
        assert_eq!(
            t.variables().into_iter().collect::<Vec<_>>(),
            ["what", "who"]
        );
        assert_eq!(
            t.render(&[("who", "x"), ("what", "y"), ("extra", "z")])
                .unwrap(),
            "Hello x, y!\n{\"json\": 1}\n"
        );
        match t.render(&[("who", "x")]) {
            Err(LlmError::MissingVariable { name, .. }) => assert_eq!(name, "what"),
            other => panic!("{other:?}"),
        }
        assert!(Template::parse("t", "Hello")
            .unwrap_err()
            .to_string()
            .contains("version"));
        let e = Template::parse("t", "version: 1\na\n{{ not a var }}")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 3"), "{e}");
        assert!(Template::parse("t", "version: 1\n{{x").is_err());
    }
}
