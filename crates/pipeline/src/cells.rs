//! Table cells the deterministic parser cannot read, read by a language model
//! (`vera table check --llm`).
//!
//! The model never decides what a cell means on its own: it is asked to *rewrite* the
//! cell in the table crate's cell language, and the rewriting is accepted only when
//! `table::cell` reads it (a condition cell as a condition, an outcome cell as an
//! outcome or rule sentence). An answer the parser refuses goes back to the model with
//! the parser's message, up to a retry budget. Accepted readings are substituted into
//! a copy of the table, which is then checked as usual; the caller shows every reading
//! for review next to the findings that rest on it.

use std::fmt::Write as _;

use llm::{Client, LlmError, Request, Template};
use table::cell;
use table::model::{Columns, Layout, Table};

/// What a cell is in its table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// A condition column: an interval over a numeric input.
    Condition,
    /// An outcome column: an amount, a percentage plus a fixed part, or a rule sentence.
    Outcome,
}

impl Role {
    fn name(self) -> &'static str {
        match self {
            Role::Condition => "condition",
            Role::Outcome => "outcome",
        }
    }

    /// Whether the deterministic parser reads `text` as a cell of this role; the
    /// parser's message when it does not.
    pub fn check(self, text: &str) -> Result<(), String> {
        self.check_naming(text, None)
    }

    /// [`Role::check`]; with `inputs`, a rule sentence must also name one of them (a
    /// rewriting that invents an input is refused).
    fn check_naming(self, text: &str, inputs: Option<&[String]>) -> Result<(), String> {
        match self {
            Role::Condition => cell::parse_condition(text).map(|_| ()).map_err(|e| e.message),
            Role::Outcome => match cell::parse_outcome(text).map_err(|e| e.message)? {
                cell::OutcomeCell::Rule { input, .. } => match inputs {
                    Some(names) if !names.iter().any(|n| names_input(n, &input)) => Err(format!(
                        "the rule sentence names `{input}`, which is not an input of the table ({})",
                        names.join(", ")
                    )),
                    _ => Ok(()),
                },
                cell::OutcomeCell::Plain(_) => Ok(()),
            },
        }
    }
}

/// Whether a header (or a name used by a rule sentence) is the input a rule sentence
/// names, as the table check matches them.
fn names_input(header: &str, input: &str) -> bool {
    let (h, w) = (table::analyze::words(header), table::analyze::words(input));
    h == w || h.split(' ').any(|x| x == w)
}

/// The inputs a rule sentence may name: the condition columns' headers and the names
/// rule sentences of the table as written already use.
pub fn inputs(table: &Table, columns: &Columns) -> Result<Vec<String>, table::TableError> {
    let layout = Layout::resolve(table, columns)?;
    let mut names: Vec<String> = layout
        .when
        .iter()
        .filter_map(|(c, _)| table.headers.get(*c).cloned())
        .collect();
    for row in &table.rows {
        for c in &layout.then {
            if let Some(Ok(cell::OutcomeCell::Rule { input, .. })) =
                row.cells.get(*c).map(|x| cell::parse_outcome(&x.text))
            {
                if !names.iter().any(|n| names_input(n, &input)) {
                    names.push(input);
                }
            }
        }
    }
    Ok(names)
}

/// A cell the parser cannot read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    /// Index of the data row in `Table::rows`.
    pub row: usize,
    /// Index of the column.
    pub col: usize,
    /// 1-based line and column of the cell.
    pub line: u32,
    /// 1-based column (characters) where the cell starts.
    pub column: u32,
    /// The column's header.
    pub header: String,
    /// Condition or outcome.
    pub role: Role,
    /// The cell as written.
    pub text: String,
    /// Why the parser refused it.
    pub problem: String,
}

/// The cells of condition and outcome columns that the parser cannot read, in file
/// order. Blank outcome cells are not listed (they are a missing outcome, not an
/// unreadable one).
pub fn unreadable(table: &Table, columns: &Columns) -> Result<Vec<Unreadable>, table::TableError> {
    let layout = Layout::resolve(table, columns)?;
    let mut roles: Vec<(usize, Role)> = layout
        .when
        .iter()
        .map(|(c, _)| (*c, Role::Condition))
        .chain(layout.then.iter().map(|c| (*c, Role::Outcome)))
        .collect();
    roles.sort_by_key(|(c, _)| *c);
    let mut out = Vec::new();
    for (ri, row) in table.rows.iter().enumerate() {
        for (c, role) in &roles {
            let Some(cellv) = row.cells.get(*c) else {
                continue;
            };
            if *role == Role::Outcome && cellv.text.trim().is_empty() {
                continue;
            }
            if let Err(problem) = role.check(&cellv.text) {
                out.push(Unreadable {
                    row: ri,
                    col: *c,
                    line: cellv.line,
                    column: cellv.column,
                    header: table.headers.get(*c).cloned().unwrap_or_default(),
                    role: *role,
                    text: cellv.text.clone(),
                    problem,
                });
            }
        }
    }
    Ok(out)
}

/// Cells longer than this are not sent to the model (a cell is a few words; a longer one
/// is left unreadable rather than filling the prompt).
pub const MAX_CELL_CHARS: usize = 400;

/// The row's other cells are shown to the model cut to this many characters each.
const MAX_CONTEXT_CHARS: usize = 80;

/// What the model made of one cell.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Reading {
    /// 1-based line of the cell.
    pub line: u32,
    /// 1-based column where the cell starts.
    pub column: u32,
    /// The column's header.
    pub header: String,
    /// Condition or outcome.
    pub role: Role,
    /// The cell as written.
    pub original: String,
    /// The rewriting the parser accepted; `None` when no answer was accepted.
    pub reading: Option<String>,
    /// Why there is no reading (the model's reason or the last refusal).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Answers asked for this cell.
    pub answers: usize,
    /// Why earlier answers were refused.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<String>,
    /// Index of the data row (not serialized).
    #[serde(skip)]
    pub row: usize,
    /// Index of the column (not serialized).
    #[serde(skip)]
    pub col: usize,
}

/// Options of [`read_cells`].
#[derive(Debug, Clone)]
pub struct CellOptions {
    /// More answers per cell after a refused one.
    pub retries: usize,
    /// The most cells asked about; the rest are left unread (and stay unreadable cells
    /// of the check).
    pub max_cells: usize,
    /// Output token limit per answer.
    pub max_tokens: u32,
}

impl Default for CellOptions {
    fn default() -> Self {
        CellOptions {
            retries: 2,
            max_cells: 50,
            max_tokens: 200,
        }
    }
}

/// The prompt template (built in; `prompts/table-cell.txt`).
pub fn template() -> Template {
    Template::parse(
        "table-cell",
        include_str!("../../../prompts/table-cell.txt"),
    )
    .expect("built-in template")
}

/// The cell language as the prompt states it, per role.
fn shapes(role: Role) -> &'static str {
    match role {
        Role::Condition => {
            "- a range, both ends included: `50.00 - 500.00`\n\
             - above (end excluded): `> 5000.01`; at least: `>= 10`\n\
             - below (end excluded): `< 50`; at most: `<= 50`\n\
             - both bounds: `> 500 and <= 5000`\n\
             - one value: `= 5`; a bare amount: `3.49`\n\
             - every value: `any`\n\
             Numbers are plain decimals (no thousands separators needed); a currency code \
             may follow an amount (`50.00 USD`)."
        }
        Role::Outcome => {
            "- an amount: `4.25`\n\
             - a percentage of the row's input: `2%`\n\
             - a percentage plus a fixed part: `3.49% + 0.39`\n\
             - a rule sentence: `if INPUT is between 10.00 - 20.00, then 3%` (INPUT one of \
             the table's inputs, the condition in the condition shapes: `> 5000`, `<= 50`, \
             ...)\n\
             - nothing is due: `0`\n\
             Numbers are plain decimals; a currency code may follow an amount \
             (`0.39 EUR`)."
        }
    }
}

/// The answer's cell: the JSON object's `cell` (or its `reason` when it is null), or,
/// when the answer is not JSON, its first non-blank line without quotes or backticks.
fn answer_cell(text: &str) -> Result<String, String> {
    let t = text.trim();
    let json = t
        .strip_prefix("```json")
        .or_else(|| t.strip_prefix("```"))
        .and_then(|x| x.trim_end().strip_suffix("```"))
        .unwrap_or(t)
        .trim();
    if json.starts_with('{') {
        let v: serde_json::Value = serde_json::from_str(json)
            .map_err(|e| format!("the answer is not the JSON object asked for: {e}"))?;
        return match v.get("cell") {
            Some(serde_json::Value::String(s)) if !s.trim().is_empty() => Ok(s.trim().into()),
            Some(serde_json::Value::Null) => Err(format!(
                "no reading: {}",
                v.get("reason")
                    .and_then(|r| r.as_str())
                    .unwrap_or("the model gave none")
            )),
            _ => Err("the answer has no `cell` string".into()),
        };
    }
    let line = t
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default();
    let line = line
        .trim_matches(|c| c == '`' || c == '"' || c == '\'')
        .trim();
    if line.is_empty() {
        Err("the answer is empty".into())
    } else {
        Ok(line.to_string())
    }
}

/// The row's other cells as `header = text` pairs, for context.
fn row_context(table: &Table, u: &Unreadable) -> String {
    let mut o = String::new();
    for (c, cellv) in table.rows[u.row].cells.iter().enumerate() {
        if c == u.col {
            continue;
        }
        if !o.is_empty() {
            o.push_str("; ");
        }
        let h = table.headers.get(c).map(String::as_str).unwrap_or("?");
        let text: String = cellv.text.trim().chars().take(MAX_CONTEXT_CHARS).collect();
        let _ = write!(o, "{h} = {text}");
    }
    o
}

/// Asks the model for a rewriting of each cell (up to `options.max_cells`), accepting
/// only what the deterministic parser reads in the cell's role, and a rule sentence only
/// when it names one of `inputs` ([`inputs`]). Transport, configuration and replay
/// errors stop the run; answer problems are retried.
pub fn read_cells(
    table: &Table,
    cells: &[Unreadable],
    inputs: &[String],
    client: &Client,
    options: &CellOptions,
) -> Result<Vec<Reading>, LlmError> {
    let listed = if inputs.is_empty() {
        "none".to_string()
    } else {
        inputs.join(", ")
    };
    let template = template();
    let mut out = Vec::new();
    for u in cells.iter().take(options.max_cells) {
        let mut reading = Reading {
            line: u.line,
            column: u.column,
            header: u.header.clone(),
            role: u.role,
            original: u.text.clone(),
            reading: None,
            reason: None,
            answers: 0,
            refused: Vec::new(),
            row: u.row,
            col: u.col,
        };
        if u.text.trim().chars().count() > MAX_CELL_CHARS {
            reading.reason = Some(format!(
                "not asked: the cell is longer than {MAX_CELL_CHARS} characters"
            ));
            out.push(reading);
            continue;
        }
        let prompt = template.render(&[
            ("file", &table.file),
            ("header", &u.header),
            ("role", u.role.name()),
            ("row", &row_context(table, u)),
            ("cell", u.text.trim()),
            ("shapes", shapes(u.role)),
            ("inputs", &listed),
        ])?;
        let mut req = Request::new()
            .user(prompt)
            .temperature(0.0)
            .max_tokens(options.max_tokens);
        for _ in 0..=options.retries {
            reading.answers += 1;
            let (shown, problem) = match client.complete("table-cell", &req) {
                Ok(c) => {
                    let text = c.text().to_string();
                    match answer_cell(&text) {
                        Ok(cellt) => match u.role.check_naming(&cellt, Some(inputs)) {
                            Ok(()) => {
                                reading.reading = Some(cellt);
                                break;
                            }
                            Err(e) => (text, format!("vera's parser cannot read `{cellt}`: {e}")),
                        },
                        Err(e) if e.starts_with("no reading: ") => {
                            reading.reason = Some(e["no reading: ".len()..].to_string());
                            break;
                        }
                        Err(e) => (text, e),
                    }
                }
                Err(e) if e.is_answer_problem() => {
                    (String::new(), e.feedback().unwrap_or_else(|| e.to_string()))
                }
                Err(e) => return Err(e),
            };
            reading.refused.push(problem.clone());
            req = req.assistant(shown).user(format!(
                "That answer cannot be used: {problem}\nAnswer again with the JSON object alone."
            ));
        }
        if reading.reading.is_none() && reading.reason.is_none() {
            reading.reason = reading.refused.last().cloned();
        }
        out.push(reading);
    }
    Ok(out)
}

/// A copy of the table with the accepted readings in place of the cells they read.
pub fn apply(table: &Table, readings: &[Reading]) -> Table {
    let mut t = table.clone();
    for r in readings {
        if let Some(text) = &r.reading {
            if let Some(c) = t
                .rows
                .get_mut(r.row)
                .and_then(|row| row.cells.get_mut(r.col))
            {
                c.text = text.clone();
            }
        }
    }
    t
}

/// A table whose unreadable cells the model was asked to rewrite ([`read_table`]).
#[derive(Debug)]
pub struct ReadTable {
    /// The table, with the accepted rewritings in place of the cells they read.
    pub table: Table,
    /// Every rewriting, accepted or not.
    pub readings: Vec<Reading>,
    /// The line of each reading's row.
    pub rows: Vec<u32>,
    /// The model's accounting (`None`: no cell needed the model, which was not asked).
    pub llm: Option<llm::Accounting>,
}

impl ReadTable {
    /// `table` as it is: no cell rewritten, no model asked.
    pub fn unread(table: Table) -> Self {
        let (readings, rows, llm) = (Vec::new(), Vec::new(), None);
        ReadTable {
            table,
            readings,
            rows,
            llm,
        }
    }
}

/// Why [`read_table`] failed. `E` is the error of the caller's client.
#[derive(Debug, thiserror::Error)]
pub enum ReadTableError<E> {
    /// The caller's client could not be built (its error, as it is).
    #[error("{0}")]
    Client(E),
    /// The table's columns cannot be read.
    #[error(transparent)]
    Table(#[from] table::TableError),
    /// The model failed (transport, configuration, replay).
    #[error(transparent)]
    Llm(#[from] LlmError),
}

/// The cells of `table` the parser cannot read in `columns` ([`unreadable`]), rewritten
/// by the model of the `client` (built only when there is such a cell) as
/// [`read_cells`] does, with the accepted rewritings in place ([`apply`]).
pub fn read_table<E>(
    table: Table,
    columns: &Columns,
    client: impl FnOnce() -> Result<Client, E>,
    options: &CellOptions,
) -> Result<ReadTable, ReadTableError<E>> {
    let cells = unreadable(&table, columns)?;
    if cells.is_empty() {
        return Ok(ReadTable::unread(table));
    }
    let client = client().map_err(ReadTableError::Client)?;
    let names = inputs(&table, columns)?;
    let readings = read_cells(&table, &cells, &names, &client, options)?;
    let rows = readings.iter().map(|r| table.rows[r.row].line).collect();
    let table = apply(&table, &readings);
    let llm = Some(client.accounting());
    Ok(ReadTable {
        table,
        readings,
        rows,
        llm,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use llm::Scripted;

    fn client(answers: &[&str]) -> Client {
        let s = Scripted::from_texts(answers.iter().map(|s| s.to_string()));
        Client::builder(s).build()
    }

    const CSV: &str = "product,amount,fee\n\
                       card,0 - 50,1\n\
                       card,fifty to five hundred,2%\n\
                       card,> 500,3.49% plus thirty-nine cents\n";

    /// The columns of [`CSV`], named.
    fn columns() -> Columns {
        Columns {
            keys: Some(vec!["product".into()]),
            when: Some(vec!["amount".into()]),
            then: Some(vec!["fee".into()]),
            bare: None,
        }
    }

    #[test]
    fn finds_the_cells_the_parser_refuses_with_their_roles() {
        let t = Table::read("fees.csv", CSV.as_bytes()).unwrap();
        let cols = columns();
        let u = unreadable(&t, &cols).unwrap();
        let got: Vec<(u32, Role, &str)> = u
            .iter()
            .map(|u| (u.line, u.role, u.text.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (3, Role::Condition, "fifty to five hundred"),
                (4, Role::Outcome, "3.49% plus thirty-nine cents"),
            ]
        );
    }

    #[test]
    fn accepts_only_what_the_parser_reads_and_feeds_its_message_back() {
        let t = Table::read("fees.csv", CSV.as_bytes()).unwrap();
        let cols = columns();
        let u = unreadable(&t, &cols).unwrap();
        let c = client(&[
            // First cell: a refused answer, then one in the cell language.
            "{\"cell\": \"fifty - 500\"}",
            "```json\n{\"cell\": \"50 - 500\"}\n```",
            // Second cell: the model declines.
            "{\"cell\": null, \"reason\": \"cents in words\"}",
        ]);
        let r = read_cells(&t, &u, &["amount".into()], &c, &CellOptions::default()).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].reading.as_deref(), Some("50 - 500"));
        assert_eq!(r[0].answers, 2);
        assert_eq!(r[0].refused.len(), 1);
        assert!(
            r[0].refused[0].starts_with("vera's parser cannot read `fifty - 500`"),
            "{:?}",
            r[0].refused
        );
        assert_eq!(r[1].reading, None);
        assert_eq!(r[1].reason.as_deref(), Some("cents in words"));
        let t2 = apply(&t, &r);
        assert_eq!(t2.rows[1].cells[1].text, "50 - 500");
        assert_eq!(t2.rows[2].cells[2].text, t.rows[2].cells[2].text);
        assert_eq!(unreadable(&t2, &cols).unwrap().len(), 1);
    }

    #[test]
    fn a_budget_spent_on_refused_answers_leaves_the_cell_unread() {
        let t = Table::read("fees.csv", CSV.as_bytes()).unwrap();
        let cols = Columns::default();
        let cols = Columns {
            when: Some(vec!["amount".into()]),
            then: Some(vec!["fee".into()]),
            ..cols
        };
        let u = unreadable(&t, &cols).unwrap();
        let c = client(&["no idea", "still no idea"]);
        let options = CellOptions {
            retries: 1,
            max_cells: 1,
            ..CellOptions::default()
        };
        let r = read_cells(&t, &u, &[], &c, &options).unwrap();
        assert_eq!(r.len(), 1, "max_cells bounds the questions");
        assert_eq!(r[0].reading, None);
        assert_eq!(r[0].answers, 2);
        assert!(r[0]
            .reason
            .as_deref()
            .unwrap()
            .contains("cannot read `still no idea`"));
    }

    #[test]
    fn a_rule_sentence_must_name_an_input_of_the_table() {
        let t = Table::read("fees.csv", CSV.as_bytes()).unwrap();
        let cols = columns();
        let names = inputs(&t, &cols).unwrap();
        assert_eq!(names, vec!["amount".to_string()]);
        let u: Vec<Unreadable> = unreadable(&t, &cols)
            .unwrap()
            .into_iter()
            .filter(|u| u.role == Role::Outcome)
            .collect();
        let c = client(&[
            "{\"cell\": \"if NAME is between 10.00 - 20.00, then 3%\"}",
            "{\"cell\": \"if the amount is over 500, then 3.49% + 0.39\"}",
        ]);
        let r = read_cells(&t, &u, &names, &c, &CellOptions::default()).unwrap();
        assert!(
            r[0].refused[0].contains("names `name`, which is not an input of the table (amount)"),
            "{:?}",
            r[0].refused
        );
        assert_eq!(
            r[0].reading.as_deref(),
            Some("if the amount is over 500, then 3.49% + 0.39")
        );
    }

    #[test]
    fn a_cell_too_long_for_a_cell_is_not_sent() {
        let long = "x".repeat(MAX_CELL_CHARS + 1);
        let csv = format!("amount,fee\n0 - 10,1\n{long},2\n");
        let t = Table::read("long.csv", csv.as_bytes()).unwrap();
        let cols = Columns {
            when: Some(vec!["amount".into()]),
            then: Some(vec!["fee".into()]),
            ..Columns::default()
        };
        let u = unreadable(&t, &cols).unwrap();
        assert_eq!(u.len(), 1);
        let r = read_cells(&t, &u, &[], &client(&[]), &CellOptions::default()).unwrap();
        assert_eq!(r[0].answers, 0);
        assert_eq!(r[0].reading, None);
        assert!(r[0].reason.as_deref().unwrap().starts_with("not asked"));
    }
}
