//! FRET requirements: an array of requirements as FRET exports them, or a project
//! export (`{"requirements": [...], "variables": [...]}`). Each requirement's `reqid` is
//! its id, its `rationale` its text when present (else its `fulltext`), and `fulltext`
//! is kept as the FRETish sentence.

use crate::{one_line, Confidence, ExtractError, Extraction, Requirement, Source, Variable};
use serde_json::Value;

pub(crate) fn extract(file: &str, text: &str, x: &mut Extraction) -> Result<(), ExtractError> {
    let v: Value = serde_json::from_str(text).map_err(|e| ExtractError::Syntax {
        file: file.into(),
        line: e.line() as u32,
        column: e.column() as u32,
        message: format!("not valid JSON: {e}")
            .replace(&format!(" at line {} column {}", e.line(), e.column()), ""),
    })?;
    let shape = |m: &str| ExtractError::Shape {
        file: file.into(),
        message: m.into(),
    };
    let (reqs, vars) = match &v {
        Value::Array(a) => (a.as_slice(), &[][..]),
        Value::Object(o) => {
            let reqs = o
                .get("requirements")
                .or_else(|| o.get("docs"))
                .and_then(Value::as_array)
                .ok_or_else(|| shape("a FRET file is an array of requirements or an object with a \"requirements\" array"))?;
            let vars = o
                .get("variables")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice);
            (reqs.as_slice(), vars)
        }
        _ => return Err(shape(
            "a FRET file is an array of requirements or an object with a \"requirements\" array",
        )),
    };
    for (i, r) in reqs.iter().enumerate() {
        let record = i as u32 + 1;
        let bad = |m: String| ExtractError::Record {
            file: file.into(),
            record,
            message: m,
        };
        let o = r
            .as_object()
            .ok_or_else(|| bad("a requirement is a JSON object".into()))?;
        let field = |k: &str| -> Result<Option<String>, ExtractError> {
            match o.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(bad(format!("\"{k}\" is not a string"))),
            }
        };
        let id = field("reqid")?.ok_or_else(|| bad("no \"reqid\"".into()))?;
        let fulltext = field("fulltext")?;
        let rationale = field("rationale")?;
        let Some(text) = rationale.clone().or_else(|| fulltext.clone()) else {
            return Err(bad(format!(
                "requirement {id} has neither \"rationale\" nor \"fulltext\""
            )));
        };
        x.requirements.push(Requirement {
            id: one_line(&id),
            text: one_line(&text),
            section: field("parent_reqid")?.map(|p| one_line(&p)),
            kind: None,
            confidence: Confidence::High,
            source: Source {
                file: file.into(),
                line: None,
                record: Some(record),
            },
            fretish: fulltext.map(|f| one_line(&f)),
            formalization: None,
        });
    }
    for (i, v) in vars.iter().enumerate() {
        let Some(o) = v.as_object() else {
            return Err(ExtractError::Record {
                file: file.into(),
                record: i as u32 + 1,
                message: "a variable is a JSON object".into(),
            });
        };
        let s = |k: &str| {
            o.get(k)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        let Some(name) = s("variable_name").or_else(|| s("name")) else {
            return Err(ExtractError::Record {
                file: file.into(),
                record: i as u32 + 1,
                message: "a variable has no \"variable_name\"".into(),
            });
        };
        x.variables.push(Variable {
            name,
            data_type: s("dataType"),
            role: s("idType"),
            description: s("description"),
        });
    }
    Ok(())
}
