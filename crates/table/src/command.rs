//! The choices of `vera table check`, `vera table smt` and `vera consistency --table`
//! as written on the command line, read and checked: the `--range` items, and which
//! group and outcome of a table become a formalization under which names. The caller
//! reads the file (this crate reads none).

use crate::{Columns, Formalization, Options, OutcomeChoice, Selection, Table, TableError};

/// Why a command's choices cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// Several `--then` columns without `--by`.
    #[error(
        "--then names one outcome column for a formalization (or give --by INPUT to use several)"
    )]
    SeveralOutcomes,
    /// A `--group` or `--name` item that is not `NAME=VALUE`.
    #[error("{what} `{arg}`: expected NAME=VALUE")]
    Pair {
        /// The option.
        what: &'static str,
        /// The item.
        arg: String,
    },
    /// The table cannot be read or formalized.
    #[error(transparent)]
    Table(#[from] TableError),
}

/// Which part of a table becomes a formalization, as written (`--group`, `--by`,
/// `--name`, the output's name).
#[derive(Debug, Clone, Default)]
pub struct Choice {
    /// `KEY=VALUE` items of the group.
    pub group: Vec<String>,
    /// The input that selects among the outcome columns.
    pub by: Option<String>,
    /// `COLUMN=NAME` items.
    pub names: Vec<String>,
    /// The output constant's name.
    pub output: Option<String>,
    /// Put before each input's name in [`Formalization::hull`].
    pub hull_prefix: String,
}

/// The options of a check: `columns`, and the `--range` items read.
pub fn check_options(columns: Columns, ranges: &[String]) -> Result<Options, TableError> {
    let mut read = Vec::new();
    for r in ranges {
        read.extend(crate::parse_range(r)?);
    }
    Ok(Options {
        columns,
        ranges: read,
    })
}

fn pairs(args: &[String], what: &'static str) -> Result<Vec<(String, String)>, CommandError> {
    args.iter()
        .map(|a| match a.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => {
                Ok((k.trim().to_string(), v.trim().to_string()))
            }
            _ => Err(CommandError::Pair {
                what,
                arg: a.clone(),
            }),
        })
        .collect()
}

/// One group of `t` as a formalization, chosen by `choice`. The cells that cannot be
/// read are left out and listed in [`Formalization::problems`].
pub fn formalize(
    t: &Table,
    columns: Columns,
    choice: &Choice,
) -> Result<Formalization, CommandError> {
    if choice.by.is_none() && columns.then.as_ref().is_some_and(|v| v.len() > 1) {
        return Err(CommandError::SeveralOutcomes);
    }
    let outcome = match (&choice.by, &columns.then) {
        (Some(by), _) => OutcomeChoice::By(by.clone()),
        (None, Some(v)) if v.len() == 1 => OutcomeChoice::Column(v[0].clone()),
        _ => OutcomeChoice::Only,
    };
    let sel = Selection {
        group: pairs(&choice.group, "--group")?,
        outcome,
        names: pairs(&choice.names, "--name")?,
        output: choice.output.clone(),
        hull_prefix: choice.hull_prefix.clone(),
    };
    let options = Options {
        columns,
        ranges: Vec::new(),
    };
    Ok(crate::formalize(t, &options, &sel)?)
}
