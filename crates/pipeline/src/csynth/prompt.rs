//! Prompt templates and answer schemas of the C synthesis loop.

use llm::Template;
use serde_json::{json, Value};

use super::clause::ClauseKind;

const SYSTEM: &str = include_str!("../../../../prompts/c-synth-system.txt");
const POINT: &str = include_str!("../../../../prompts/c-synth-point.txt");
const REPAIR: &str = include_str!("../../../../prompts/c-synth-repair.txt");
const STRENGTHEN: &str = include_str!("../../../../prompts/c-synth-strengthen.txt");

/// The marker placed before the point of interest in the code shown to the model.
pub const INFILL: &str = "/* >>>INFILL<<< */";

/// The four templates, parsed once.
#[derive(Debug, Clone)]
pub struct Prompts {
    /// System message.
    pub system: Template,
    /// One point of interest.
    pub point: Template,
    /// The repair turn.
    pub repair: Template,
    /// The strengthening request.
    pub strengthen: Template,
}

impl Prompts {
    /// The templates shipped in `prompts/`.
    pub fn builtin() -> llm::Result<Prompts> {
        Ok(Prompts {
            system: Template::parse("c-synth-system", SYSTEM)?,
            point: Template::parse("c-synth-point", POINT)?,
            repair: Template::parse("c-synth-repair", REPAIR)?,
            strengthen: Template::parse("c-synth-strengthen", STRENGTHEN)?,
        })
    }

    /// Template ids for the report.
    pub fn ids(&self) -> Vec<String> {
        [&self.system, &self.point, &self.repair, &self.strengthen]
            .iter()
            .map(|t| t.id())
            .collect()
    }
}

/// The answer schema for one point of interest.
pub fn point_schema(kinds: &[ClauseKind]) -> Value {
    let names: Vec<&str> = kinds.iter().map(|k| k.keyword()).collect();
    clauses_schema(&names, None)
}

/// The answer schema for strengthening: each clause names its point.
pub fn strengthen_schema(points: &[String]) -> Value {
    let kinds: Vec<&str> = ClauseKind::CONTRACT
        .iter()
        .chain(ClauseKind::LOOP.iter())
        .map(|k| k.keyword())
        .collect();
    clauses_schema(&kinds, Some(points))
}

/// The answer schema of up to eight clauses of the `kinds` named, each naming its
/// point (one of `points`) when given.
fn clauses_schema(kinds: &[&str], points: Option<&[String]>) -> Value {
    let mut properties = serde_json::Map::new();
    let mut required = Vec::new();
    if let Some(points) = points {
        properties.insert("at".into(), json!({"type": "string", "enum": points}));
        required.push("at");
    }
    properties.insert("kind".into(), json!({"type": "string", "enum": kinds}));
    properties.insert(
        "expr".into(),
        json!({"type": "string", "minLength": 1, "maxLength": 400}),
    );
    required.extend(["kind", "expr"]);
    json!({
        "type": "object",
        "properties": {
            "clauses": {
                "type": "array",
                "maxItems": 8,
                "items": {
                    "type": "object",
                    "properties": properties,
                    "required": required,
                    "additionalProperties": false
                }
            }
        },
        "required": ["clauses"],
        "additionalProperties": false
    })
}
