//! Rendering a schema description for injection into prompts, as VeriMed does.
//!
//! The description is plain data defined here, so that the crates that own schemas
//! (requirements, business rules) fill it in without this crate knowing them.

use serde::{Deserialize, Serialize};

/// One variable of the schema.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VariableInfo {
    /// The symbol the formulas use.
    pub name: String,
    /// Its sort as written in formulas: `Bool`, `Int`, `Real` or an enumeration's name.
    pub sort: String,
    /// Unit of measure, if any.
    #[serde(default)]
    pub unit: Option<String>,
    /// What it means.
    #[serde(default)]
    pub description: Option<String>,
    /// Lower bound as text (e.g. `0` or `35.5`), if any.
    #[serde(default)]
    pub min: Option<String>,
    /// Upper bound as text, if any.
    #[serde(default)]
    pub max: Option<String>,
}

/// One enumeration.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnumInfo {
    /// Its name (a sort).
    pub name: String,
    /// Its values, as written in formulas.
    pub values: Vec<String>,
    /// What it means.
    #[serde(default)]
    pub description: Option<String>,
}

/// One domain constraint.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConstraintInfo {
    /// Its id.
    pub id: String,
    /// Its text.
    #[serde(default)]
    pub text: Option<String>,
    /// Its formula (SMT-LIB), if known.
    #[serde(default)]
    pub formula: Option<String>,
}

/// What a prompt needs to know about a schema.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchemaInfo {
    /// The variables.
    pub variables: Vec<VariableInfo>,
    /// The enumerations.
    #[serde(default)]
    pub enums: Vec<EnumInfo>,
    /// The domain constraints.
    #[serde(default)]
    pub domain: Vec<ConstraintInfo>,
}

impl SchemaInfo {
    /// Renders the schema as a prompt section: one line per variable
    /// (`- name : Sort [unit] in [min, max] — description`), then enumerations and
    /// domain constraints. Deterministic (input order), so prompts are cache-stable.
    pub fn render(&self) -> String {
        let mut out = String::from("Variables:\n");
        if self.variables.is_empty() {
            out.push_str("(none)\n");
        }
        for v in &self.variables {
            out.push_str(&format!("- {} : {}", v.name, v.sort));
            if let Some(u) = v.unit.as_deref().filter(|u| !u.is_empty()) {
                out.push_str(&format!(" [{u}]"));
            }
            match (&v.min, &v.max) {
                (Some(lo), Some(hi)) => out.push_str(&format!(" in [{lo}, {hi}]")),
                (Some(lo), None) => out.push_str(&format!(" >= {lo}")),
                (None, Some(hi)) => out.push_str(&format!(" <= {hi}")),
                (None, None) => {}
            }
            if let Some(d) = v.description.as_deref().filter(|d| !d.is_empty()) {
                out.push_str(&format!(" — {}", one_line(d)));
            }
            out.push('\n');
        }
        if !self.enums.is_empty() {
            out.push_str("\nEnumerations:\n");
            for e in &self.enums {
                out.push_str(&format!("- {} = {}", e.name, e.values.join(" | ")));
                if let Some(d) = e.description.as_deref().filter(|d| !d.is_empty()) {
                    out.push_str(&format!(" — {}", one_line(d)));
                }
                out.push('\n');
            }
        }
        if !self.domain.is_empty() {
            out.push_str("\nDomain constraints (always true):\n");
            for c in &self.domain {
                out.push_str(&format!("- {}:", c.id));
                if let Some(t) = c.text.as_deref().filter(|t| !t.is_empty()) {
                    out.push_str(&format!(" {}", one_line(t)));
                }
                if let Some(f) = c.formula.as_deref().filter(|f| !f.is_empty()) {
                    out.push_str(&format!(" ⇒ {}", one_line(f)));
                }
                out.push('\n');
            }
        }
        out
    }

    /// The symbols a formula may use: variable names and enumeration values.
    pub fn symbols(&self) -> Vec<&str> {
        let mut s: Vec<&str> = self.variables.iter().map(|v| v.name.as_str()).collect();
        s.extend(
            self.enums
                .iter()
                .flat_map(|e| e.values.iter().map(String::as_str)),
        );
        s
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_all_parts() {
        let s = SchemaInfo {
            variables: vec![
                VariableInfo {
                    name: "temp".into(),
                    sort: "Real".into(),
                    unit: Some("°C".into()),
                    description: Some("body\n temperature".into()),
                    min: Some("30".into()),
                    max: Some("45".into()),
                },
                VariableInfo {
                    name: "mode".into(),
                    sort: "Mode".into(),
                    ..Default::default()
                },
            ],
            enums: vec![EnumInfo {
                name: "Mode".into(),
                values: vec!["Off".into(), "On".into()],
                description: None,
            }],
            domain: vec![ConstraintInfo {
                id: "D1".into(),
                text: Some("Off means cold".into()),
                formula: Some("(=> (= mode Off) (< temp 36))".into()),
            }],
        };
        let r = s.render();
        assert_eq!(
            r,
            "Variables:\n- temp : Real [°C] in [30, 45] — body temperature\n- mode : Mode\n\n\
             Enumerations:\n- Mode = Off | On\n\n\
             Domain constraints (always true):\n- D1: Off means cold ⇒ (=> (= mode Off) (< temp 36))\n"
        );
        assert_eq!(s.symbols(), ["temp", "mode", "Off", "On"]);
    }
}
