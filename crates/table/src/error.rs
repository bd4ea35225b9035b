//! Errors that stop a table from being read or checked at all. A cell that cannot be
//! read is not an error but a [`crate::Problem`] in the report.

/// Why a table could not be read or checked.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// The file is not UTF-8.
    #[error("{file}:{line}:{column}: the file is not UTF-8 (invalid byte 0x{byte:02x}); save it as UTF-8")]
    NotUtf8 {
        /// The file.
        file: String,
        /// 1-based line of the first invalid byte.
        line: u32,
        /// 1-based column (in characters) of the first invalid byte.
        column: u32,
        /// The byte.
        byte: u8,
    },
    /// The CSV syntax is broken (an unclosed quote).
    #[error("{file}:{line}:{column}: {message}")]
    Csv {
        /// The file.
        file: String,
        /// 1-based line.
        line: u32,
        /// 1-based column.
        column: u32,
        /// What is wrong.
        message: String,
    },
    /// Rows with more cells than the header row: a cell beyond the last column would be
    /// dropped (an unquoted decimal comma, `2,50`, makes two cells of one).
    #[error("{}", long_rows_message(.file, *.header, .rows))]
    LongRows {
        /// The file.
        file: String,
        /// The number of columns of the header row.
        header: usize,
        /// Each long row: its line, the column of its first cell beyond the header,
        /// how many cells it has, and that cell's text.
        rows: Vec<LongRow>,
    },
    /// No header row.
    #[error("{file}:1:1: the table is empty (no header row)")]
    Empty {
        /// The file.
        file: String,
    },
    /// A column named on the command line is not in the header row.
    #[error("{file}:{line}:1: no column `{name}` (given for {role}); the columns are {available}")]
    MissingColumn {
        /// The file.
        file: String,
        /// The header row's line.
        line: u32,
        /// The name given.
        name: String,
        /// `--keys`, `--when` or `--then`.
        role: &'static str,
        /// The header names, quoted and comma-separated.
        available: String,
    },
    /// A column was given two roles.
    #[error("{file}:{line}:1: column `{name}` is given as both {first} and {second}")]
    TwoRoles {
        /// The file.
        file: String,
        /// The header row's line.
        line: u32,
        /// The column.
        name: String,
        /// One role.
        first: &'static str,
        /// The other.
        second: &'static str,
    },
    /// A column was named twice for one role.
    #[error("{file}:{line}:1: column `{name}` is given twice for {role}{spelled}; name each column once")]
    Twice {
        /// The file.
        file: String,
        /// The header row's line.
        line: u32,
        /// The column.
        name: String,
        /// `--keys`, `--when` or `--then`.
        role: &'static str,
        /// How the two names were spelled, when they differ (` (as `a` and `A`)`).
        spelled: String,
    },
    /// No column holds outcomes.
    #[error("{file}:{line}:1: no column holds outcomes (amounts, percentages or rule sentences); name it with --then")]
    NoOutcome {
        /// The file.
        file: String,
        /// The header row's line.
        line: u32,
    },
    /// More rows than the reader takes.
    #[error(
        "{file}:{line}:1: the table has more than {max} rows; split it (by key) into several files"
    )]
    TooManyRows {
        /// The file.
        file: String,
        /// The first row over the limit.
        line: u32,
        /// The limit.
        max: usize,
    },
    /// A `--range` argument that does not read.
    #[error("bad --range `{arg}`: {message}")]
    BadRange {
        /// The argument.
        arg: String,
        /// What is wrong.
        message: String,
    },
    /// The region grid of a group with several inputs is too large.
    #[error("{file}: group {group}: {cells} cells over the inputs exceed the limit of {max}; give --range or fewer --when columns")]
    TooManyCells {
        /// The file.
        file: String,
        /// The group.
        group: String,
        /// Cells needed.
        cells: u128,
        /// The limit.
        max: usize,
    },
    /// The group, columns or names chosen for a formalization do not fit the table.
    #[error("{file}: {message}")]
    Selection {
        /// The file.
        file: String,
        /// What does not fit, and what would.
        message: String,
    },
    /// The solver session failed (not an unknown answer: those are in the report).
    #[error("solver: {0}")]
    Solver(#[from] solver::SolverError),
    /// A solver answer contradicts vera's own arithmetic; a bug or a broken solver.
    #[error("{0}")]
    Inconsistent(String),
}

/// A row with more cells than the header row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LongRow {
    /// 1-based line.
    pub line: u32,
    /// 1-based column of the first cell beyond the header.
    pub column: u32,
    /// How many cells the row has.
    pub cells: usize,
    /// The first cell beyond the header, as written.
    pub extra: String,
}

fn long_rows_message(file: &str, header: usize, rows: &[LongRow]) -> String {
    rows.iter()
        .map(|r| {
            format!(
                "{file}:{}:{}: the row has {} cells, the header row {header}: `{}` is beyond the last column (a decimal comma in an unquoted cell? quote the cell, or write a decimal point)",
                r.line,
                r.column,
                r.cells,
                r.extra.trim()
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}
