//! vera's printer: every rendering of a command's report — terminal text, the typed JSON
//! payloads, HTML pages, SARIF findings, JUnit suites and the paper-style tables.
//!
//! A command in the binary calls a domain library (`reqs`, `pipeline`, ...), hands the
//! result to a builder here (an [`audit::AuditRun`], a [`timed::TimedRun`], ...) and gets
//! back a value implementing [`report::Report`], which the binary writes in the format
//! the user chose and whose status decides the exit code.
//!
//! *API Boundary*: this crate reads the domain crates' result types and writes strings
//! and serializable values; it runs no solver, asks no model, reads and writes no file,
//! and does not print (the binary writes what it returns).

pub mod ask;
pub mod audit;
pub mod bl;
pub mod c;
pub mod dense;
pub mod extract;
pub mod mutate;
pub mod output;
pub mod pipe;
pub mod qa;
pub mod run;
pub mod schema;
pub mod smt;
pub mod table;
pub mod tables;
pub mod tests;
pub mod text;
pub mod timed;

/// A report whose terminal text is written when it is built, with a typed JSON payload
/// (which carries its own `schema` field) and, where the command has them, findings,
/// cases and a page.
pub struct Rendered<T: serde::Serialize> {
    /// The schema tag (the payload's `schema` field holds the same).
    pub schema: &'static str,
    /// How the run came out.
    pub status: report::Status,
    /// The terminal text.
    pub text: String,
    /// The JSON payload.
    pub payload: T,
    /// Findings for SARIF, if the command has them.
    pub findings: Option<report::Findings>,
    /// Cases for JUnit, if the command has them.
    pub suites: Option<Vec<report::Suite>>,
    /// The HTML page, if the command has one.
    pub page: Option<report::html::Page>,
    /// A CSV table, if the command has one.
    pub csv: Option<String>,
}

impl<T: serde::Serialize> Rendered<T> {
    /// A report with text and payload only.
    pub fn new(schema: &'static str, status: report::Status, text: String, payload: T) -> Self {
        Rendered {
            schema,
            status,
            text,
            payload,
            findings: None,
            suites: None,
            page: None,
            csv: None,
        }
    }
}

impl<T: serde::Serialize> report::Report for Rendered<T> {
    fn schema(&self) -> &'static str {
        self.schema
    }
    fn status(&self) -> report::Status {
        self.status
    }
    fn human(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        w.write_all(self.text.as_bytes())
    }
    fn json(&self) -> serde_json::Result<String> {
        serde_json::to_string_pretty(&self.payload)
    }
    fn findings(&self) -> Option<report::Findings> {
        self.findings.clone()
    }
    fn suites(&self) -> Option<Vec<report::Suite>> {
        self.suites.clone()
    }
    fn page(&self) -> Option<report::html::Page> {
        self.page.clone()
    }
    fn csv(&self) -> Option<String> {
        self.csv.clone()
    }
}

/// `vera.text.v1`: the payload of commands whose result is text (a formatted program, an
/// encoding, evaluated bindings, a ping).
#[derive(serde::Serialize)]
pub struct TextJson {
    /// `vera.text.v1`.
    pub schema: &'static str,
    /// The command.
    pub command: &'static str,
    /// The text it printed.
    pub text: String,
}

/// The report of a command whose result is text.
pub fn text_report(command: &'static str, text: String) -> Rendered<TextJson> {
    Rendered::new(
        "vera.text.v1",
        report::Status::Ok,
        text.clone(),
        TextJson {
            schema: "vera.text.v1",
            command,
            text,
        },
    )
}
