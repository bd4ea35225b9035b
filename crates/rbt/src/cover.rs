//! Coverage of an existing suite: which obligations its vectors meet, which vectors no
//! valid system could produce (with the requirements they contradict), and which
//! requirements no vector exercises.
//!
//! A vector assigns some variables (a test table's inputs, and its expected outputs
//! where it gives them). It is *valid* when it extends to a state that satisfies the
//! domain and every requirement, and it *meets* an obligation when every such state
//! does: the obligation holds whatever the values the vector leaves open. (A value the
//! spec forces counts; a free output the vector leaves open does not.) An obligation no
//! vector meets is *missed* when some valid state meets it and *unreachable* (with a
//! minimal core) when none does.

use crate::generate::{check_consistent, reach, GenerateError, Reach};
use crate::obligations::{obligations, Obligation};
use crate::problem::Problem;
use crate::session::{equalities, Session};
use crate::values;
use logic::{Model, Symbol, Term, Value};
use serde::Serialize;
use solver::{Outcome, SolverConfig};

/// One vector of the suite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vector {
    /// Its label: the `id` column, else `row N`.
    pub id: String,
    /// Its line in the file.
    pub line: usize,
    /// The variables it assigns.
    pub values: Vec<(Symbol, Value)>,
}

/// A suite file that cannot be read, every problem located.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .0.join("\n"))]
pub struct ReadError(pub Vec<String>);

/// What a suite file holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vectors {
    /// The vectors, in file order.
    pub vectors: Vec<Vector>,
    /// Columns that name no variable of the spec (kept as labels or ignored).
    pub ignored: Vec<String>,
}

/// A reader of the suite CSV `text` (of `file`) past its header, and the header's
/// columns: rows may differ in length, cells are trimmed, a byte order mark is skipped.
pub(crate) fn suite_csv<'t>(
    file: &str,
    text: &'t str,
) -> Result<(csv::Reader<&'t [u8]>, Vec<String>), ReadError> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.trim_start_matches('\u{feff}').as_bytes());
    match rdr.headers() {
        Ok(h) => {
            let header = h.iter().map(String::from).collect();
            Ok((rdr, header))
        }
        Err(e) => Err(ReadError(vec![format!("{file}: {e}")])),
    }
}

/// Reads a suite CSV: a header naming columns, one vector per row. Columns named as a
/// spec variable give its value (empty, `free` or `undecided` leave it open); an `id`
/// column labels the vectors; other columns are ignored (and listed). A cell that is not
/// a value of its variable's sort is an error at `file:line:column`; all are reported.
pub fn read_vectors(p: &Problem, file: &str, text: &str) -> Result<Vectors, ReadError> {
    let (mut rdr, header) = suite_csv(file, text)?;
    let mut columns: Vec<Option<&reqs::spec::Variable>> = Vec::new();
    let mut ignored = Vec::new();
    let mut id_col = None;
    let mut errors = Vec::new();
    for (i, h) in header.iter().enumerate() {
        let v = p.spec.variable(h);
        if v.is_some()
            && columns
                .iter()
                .flatten()
                .any(|c| c.name == v.expect("some").name)
        {
            errors.push(format!(
                "{file}:1:{}: column `{}` appears twice",
                i + 1,
                values::cut(h)
            ));
        }
        if v.is_none() {
            if h.eq_ignore_ascii_case("id") && id_col.is_none() {
                id_col = Some(i);
            } else {
                ignored.push(h.clone());
            }
        }
        columns.push(v);
    }
    if columns.iter().all(Option::is_none) {
        errors.push(format!(
            "{file}:1: no column is named as a variable of the spec (columns: {})",
            values::cut(&header.join(", "))
        ));
    }
    let mut vectors = Vec::new();
    for (row, rec) in rdr.records().enumerate() {
        let rec = match rec {
            Ok(r) => r,
            Err(e) => {
                errors.push(format!("{file}: {e}"));
                continue;
            }
        };
        let line = rec.position().map(|p| p.line() as usize).unwrap_or(row + 2);
        if rec.iter().all(|c| c.is_empty()) {
            continue;
        }
        let mut vals = Vec::new();
        for (i, cell) in rec.iter().enumerate() {
            let Some(Some(v)) = columns.get(i) else {
                continue;
            };
            if cell.is_empty()
                || cell.eq_ignore_ascii_case("free")
                || cell.eq_ignore_ascii_case("undecided")
            {
                continue;
            }
            match values::parse(cell, &v.sort, &p.spec.enums) {
                Ok(x) => vals.push((v.name.clone(), x)),
                Err(e) => errors.push(format!("{file}:{line}:{}: {}: {e}", i + 1, v.name)),
            }
        }
        let id = id_col
            .and_then(|i| rec.get(i))
            .filter(|s| !s.is_empty())
            .map(String::from)
            .unwrap_or_else(|| format!("row {}", row + 1));
        vectors.push(Vector {
            id,
            line,
            values: vals,
        });
    }
    if errors.is_empty() {
        Ok(Vectors { vectors, ignored })
    } else {
        Err(ReadError(errors))
    }
}

/// Whether a vector can come from a valid system.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Validity {
    /// Some state that satisfies the domain and every requirement agrees with it.
    Valid,
    /// None does: a minimal set of requirements and domain constraints it contradicts.
    Invalid {
        /// The core.
        core: Vec<String>,
    },
    /// The solver could not decide.
    Undecided {
        /// Its reason.
        #[serde(flatten)]
        reason: solver::Undecided,
    },
}

/// A vector's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VectorResult {
    /// Its label.
    pub id: String,
    /// Its line in the file.
    pub line: usize,
    /// How many variables it assigns.
    pub assigned: usize,
    /// Valid or not.
    #[serde(flatten)]
    pub validity: Validity,
    /// The obligations it meets.
    pub meets: Vec<String>,
}

/// What became of an obligation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Coverage {
    /// Vectors meet it.
    Met {
        /// Their labels.
        vectors: Vec<String>,
    },
    /// No vector meets it, but a valid state does: a gap in the suite.
    Missed,
    /// No valid state meets it.
    Unreachable {
        /// What rules it out.
        core: Vec<String>,
    },
    /// The solver could not decide.
    Undecided {
        /// Its reason.
        #[serde(flatten)]
        reason: solver::Undecided,
    },
}

/// An obligation and its coverage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ObligationCoverage {
    /// The obligation.
    #[serde(flatten)]
    pub obligation: Obligation,
    /// Its coverage.
    #[serde(flatten)]
    pub coverage: Coverage,
}

/// A requirement's coverage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RequirementCoverage {
    /// Its id.
    pub id: String,
    /// Its line.
    pub line: usize,
    /// Whether it has a formula.
    pub formalized: bool,
    /// Obligations.
    pub obligations: usize,
    /// Met.
    pub met: usize,
    /// Missed.
    pub missed: usize,
    /// Unreachable.
    pub unreachable: usize,
    /// Undecided.
    pub undecided: usize,
    /// Whether some vector makes it apply (meets its trigger obligation).
    pub exercised: bool,
}

/// The coverage of a suite.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CoverReport {
    /// Per vector.
    pub vectors: Vec<VectorResult>,
    /// Per obligation.
    pub obligations: Vec<ObligationCoverage>,
    /// Per requirement.
    pub requirements: Vec<RequirementCoverage>,
    /// Formalized requirements no vector exercises.
    pub not_exercised: Vec<String>,
    /// Columns that name no variable.
    pub ignored_columns: Vec<String>,
    /// Solver queries.
    pub queries: usize,
}

impl CoverReport {
    /// Obligations with a coverage of that kind.
    pub fn count(&self, f: impl Fn(&Coverage) -> bool) -> usize {
        self.obligations.iter().filter(|o| f(&o.coverage)).count()
    }

    /// Vectors no valid system produces.
    pub fn invalid(&self) -> usize {
        self.vectors
            .iter()
            .filter(|v| matches!(v.validity, Validity::Invalid { .. }))
            .count()
    }

    /// True when something was left undecided.
    pub fn has_errors(&self) -> bool {
        self.count(|c| matches!(c, Coverage::Undecided { .. })) > 0
            || self
                .vectors
                .iter()
                .any(|v| matches!(v.validity, Validity::Undecided { .. }))
    }
}

/// Measures `vectors` against the obligations of the problem.
pub fn cover(
    p: &Problem,
    vectors: &Vectors,
    config: &SolverConfig,
    boundaries: bool,
) -> Result<CoverReport, GenerateError> {
    let mut s = Session::start(p, config)?;
    check_consistent(&mut s)?;
    let obls = obligations(p, boundaries);
    let all = s.members();
    let ctx = &p.spec.context;
    // Validity, and a valid completion of each valid vector.
    let mut results = Vec::new();
    let mut states: Vec<Option<(Vec<Term>, Model)>> = Vec::new();
    for v in &vectors.vectors {
        let eqs = equalities(v.values.iter().map(|(n, x)| (&**n, x)));
        let validity = match s.check(&all, &eqs, false)? {
            Outcome::Sat(m) => {
                let st = s.state(&m);
                s.validate(&st, &[])?;
                states.push(Some((eqs, st)));
                Validity::Valid
            }
            Outcome::Unsat(core) => {
                let core = s.minimize(core, &eqs)?;
                states.push(None);
                Validity::Invalid { core: s.ids(&core) }
            }
            Outcome::Unknown(r) => {
                states.push(None);
                Validity::Undecided {
                    reason: r.clone().into(),
                }
            }
        };
        results.push(VectorResult {
            id: v.id.clone(),
            line: v.line,
            assigned: v.values.len(),
            validity,
            meets: Vec::new(),
        });
    }
    // Coverage: true in the completion, and in every valid state that agrees with the
    // vector (by evaluation when the vector assigns every variable of the obligation).
    let mut coverage = Vec::new();
    for o in &obls {
        let mut met = Vec::new();
        for (k, st) in states.iter().enumerate() {
            let Some((eqs, state)) = st else { continue };
            if !logic::eval_bool(&o.formula, state, ctx).unwrap_or(false) {
                continue;
            }
            let assigned = |n: &str| vectors.vectors[k].values.iter().any(|(m, _)| &**m == n);
            let determined = if o.formula.free_vars().iter().all(|(n, _)| assigned(n)) {
                true
            } else {
                let mut extra = eqs.clone();
                extra.push(Term::not(o.formula.clone()));
                matches!(s.check(&all, &extra, false)?, Outcome::Unsat(_))
            };
            if determined {
                met.push(k);
            }
        }
        let c = if met.is_empty() {
            match reach(&mut s, &o.formula, &format!("obligation {}", o.id))? {
                Reach::State(_) => Coverage::Missed,
                Reach::Unreachable(core) => Coverage::Unreachable { core },
                Reach::Undecided(reason) => Coverage::Undecided { reason },
            }
        } else {
            for &k in &met {
                results[k].meets.push(o.id.clone());
            }
            Coverage::Met {
                vectors: met.iter().map(|&k| results[k].id.clone()).collect(),
            }
        };
        coverage.push(ObligationCoverage {
            obligation: o.clone(),
            coverage: c,
        });
    }
    let mut requirements = Vec::new();
    let mut not_exercised = Vec::new();
    for r in &p.spec.requirements {
        let mine: Vec<&ObligationCoverage> = coverage
            .iter()
            .filter(|o| o.obligation.requirement == r.id)
            .collect();
        let n = |f: &dyn Fn(&Coverage) -> bool| mine.iter().filter(|o| f(&o.coverage)).count();
        let exercised = mine.iter().any(|o| {
            o.obligation.id == format!("{}/trigger", r.id)
                && matches!(o.coverage, Coverage::Met { .. })
        });
        if r.formula.is_some() && !exercised {
            not_exercised.push(r.id.clone());
        }
        requirements.push(RequirementCoverage {
            id: r.id.clone(),
            line: r.line,
            formalized: r.formula.is_some(),
            obligations: mine.len(),
            met: n(&|c| matches!(c, Coverage::Met { .. })),
            missed: n(&|c| matches!(c, Coverage::Missed)),
            unreachable: n(&|c| matches!(c, Coverage::Unreachable { .. })),
            undecided: n(&|c| matches!(c, Coverage::Undecided { .. })),
            exercised,
        });
    }
    Ok(CoverReport {
        vectors: results,
        obligations: coverage,
        requirements,
        not_exercised,
        ignored_columns: vectors.ignored.clone(),
        queries: s.queries,
    })
}
