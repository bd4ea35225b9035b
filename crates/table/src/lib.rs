//! Rate and fee tables as vera reads them: a CSV whose rows are grouped by key columns
//! (product, country, currency), with condition columns (intervals over numeric inputs)
//! and outcome columns (an amount, a percentage plus a fixed part, or a rule sentence).
//!
//! * [`cell`] is the deterministic cell parser (exact rationals, never floats).
//! * [`model`] reads the CSV with every cell's line and column and resolves which
//!   columns are keys, conditions and outcomes.
//! * [`analyze`] checks every group and outcome column with a solver: **gaps** (inputs
//!   in range where no row applies), **conflicts** (two rows apply with different
//!   outcomes) and **overlaps** (two rows apply with the same outcome), each with its
//!   region, a witness at human numbers checked by `logic`'s evaluator, and the rows'
//!   lines.
//!
//! ```no_run
//! let table = table::Table::read("fees.csv", b"amount,fee\n0 - 50,1\n40 - 100,2\n")?;
//! let config = solver::SolverConfig::new(solver::SolverKind::Z3);
//! let report = table::check(&table, &table::Options::default(), &config)?;
//! assert_eq!(report.findings[0].kind, table::Kind::Conflict);
//! # Ok::<(), table::TableError>(())
//! ```
//!
//! *API Boundary*: this crate knows `logic` and `solver`; it knows nothing of BL,
//! requirement specs, language models or terminals. Its report is plain serializable
//! data; the binary renders it.

#![warn(missing_docs)]

pub mod analyze;
pub mod cell;
pub mod command;
mod error;
pub mod model;
pub mod smt;

pub use analyze::{
    check, Finding, Group, Kind, Options, Point, Problem, ProblemKind, Region, Report, Summary,
    Undecided,
};
pub use error::{LongRow, TableError};
pub use model::{parse_range, BareMode, Columns, Layout, Table};
pub use smt::{formalize, Formalization, OutcomeChoice, Selection};
