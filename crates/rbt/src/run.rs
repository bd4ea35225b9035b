//! Running a suite against an implementation and judging every case with the spec.
//!
//! An implementation maps a case's inputs to observed outputs: an executable (one
//! process per case, in its own process group, with a time limit), a BL program (the
//! exact interpreter) or a C function (a generated driver, compiled with the system C
//! compiler, run as an executable). A case
//!
//! * **passes** when the observed outputs, with the case's inputs, satisfy the domain
//!   and every requirement (outputs the implementation does not report may take any
//!   value; with a tolerance, numeric outputs may move by that much);
//! * **fails** when they do not: the report names a minimal set of requirements (and
//!   domain constraints) they contradict, and the forced outputs that differ;
//! * is an **error** when the implementation crashes, hangs, exits with a failure or
//!   prints what cannot be read as the outputs, or when the solver cannot decide.
//!   An error is never a pass.

use crate::problem::Problem;
use crate::session::{equalities, Session, SessionError};
use crate::suite::{Case, Cell, Expected, Suite};
use crate::values;
use logic::{Op, Sort, Symbol, Term, Value};
use num_rational::BigRational;
use serde::Serialize;
use solver::{Outcome, SolverConfig};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Why one case could not run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CaseError {
    /// The process could not be started.
    #[error("cannot start {program}: {reason}")]
    Start {
        /// The program.
        program: String,
        /// The system's reason.
        reason: String,
    },
    /// No answer within the time limit; the process group was killed.
    #[error("no answer within {seconds} s (the process was stopped)")]
    Hung {
        /// The limit.
        seconds: f64,
    },
    /// Killed by a signal (a crash).
    #[error("crashed (signal {signal}){}", tail(.stderr))]
    Crashed {
        /// The signal.
        signal: i32,
        /// The end of its standard error.
        stderr: String,
    },
    /// A non-zero exit status.
    #[error("exited with status {code}{}", tail(.stderr))]
    Failed {
        /// The status.
        code: i32,
        /// The end of its standard error.
        stderr: String,
    },
    /// Output that is not the outputs asked for.
    #[error("unreadable output: {0}")]
    Garbage(String),
    /// The implementation cannot take this case (a value out of its type's range, a
    /// division by zero in a BL program).
    #[error("{0}")]
    Rejected(String),
}

fn tail(stderr: &str) -> String {
    let t = stderr.trim();
    if t.is_empty() {
        String::new()
    } else {
        let start = t.char_indices().rev().nth(300).map(|(i, _)| i).unwrap_or(0);
        format!(": {}", t[start..].replace('\n', " | "))
    }
}

/// Why an implementation cannot be set up at all.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// A mapping, a fixed value or a name that does not fit.
    #[error("{0}")]
    Mapping(String),
    /// The C file does not parse or the function is not in it.
    #[error("{0}")]
    C(String),
    /// The driver does not compile.
    #[error("the generated driver does not compile with {compiler}:\n{output}")]
    Build {
        /// The compiler.
        compiler: String,
        /// What it said.
        output: String,
    },
    /// A file or process problem.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Something that maps a case's inputs to observed outputs.
pub trait Implementation {
    /// Runs one case: the inputs (spec names) to the observed outputs (spec names).
    fn run(&mut self, inputs: &[(Symbol, Value)]) -> Result<Vec<(Symbol, Value)>, CaseError>;
    /// What it is, for reports (`executable ./sim`, `BL program prog.bl`, ...).
    fn describe(&self) -> String;
    /// Runs a sequence of steps (a timed test): the inputs of each step to the
    /// outputs of each step. By default every step is run on its own, as a case: right
    /// for an implementation without state (a BL program, a C function); an executable
    /// gets the whole sequence at once.
    fn run_sequence(
        &mut self,
        steps: &[Vec<(Symbol, Value)>],
    ) -> Result<Vec<Vec<(Symbol, Value)>>, CaseError> {
        steps
            .iter()
            .enumerate()
            .map(|(t, inputs)| {
                self.run(inputs).map_err(|e| match e {
                    CaseError::Garbage(m) => CaseError::Garbage(format!("step {t}: {m}")),
                    CaseError::Rejected(m) => CaseError::Rejected(format!("step {t}: {m}")),
                    other => other,
                })
            })
            .collect()
    }
}

/// `IMPL=SPEC` pairs.
pub fn parse_map(items: &[String]) -> Result<Vec<(String, String)>, SetupError> {
    items
        .iter()
        .filter(|s| !s.trim().is_empty())
        .map(|s| match s.split_once('=') {
            Some((a, b)) if !a.trim().is_empty() && !b.trim().is_empty() => {
                Ok((a.trim().to_string(), b.trim().to_string()))
            }
            _ => Err(SetupError::Mapping(format!(
                "`{}` is not IMPL=SPEC",
                values::cut(s)
            ))),
        })
        .collect()
}

fn spec_var<'a>(p: &'a Problem, name: &str) -> Result<&'a reqs::spec::Variable, SetupError> {
    p.spec.variable(name).ok_or_else(|| {
        SetupError::Mapping(format!(
            "`{}` is not a variable of the spec",
            values::cut(name)
        ))
    })
}

// ------------------------------------------------------------------ executables

/// An executable run once per case.
///
/// Standard input: a CSV header naming the columns, then one line with the case's
/// values. Standard output: one CSV line with the outputs in the order of `outputs`
/// (a header line naming them first is accepted). The process runs in its own process
/// group, which is killed when the time limit passes.
#[derive(Debug, Clone)]
pub struct Executable {
    /// The program.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// The time limit per case.
    pub timeout: Duration,
    /// The columns sent: the column name and the spec input it carries.
    pub inputs: Vec<(String, Symbol)>,
    /// Extra columns with a fixed text for every case.
    pub fixed: Vec<(String, String)>,
    /// The outputs read, in order: the column name and the spec output.
    pub outputs: Vec<(String, Symbol, Sort)>,
    /// Enumerations of the spec, to read enumeration values.
    pub enums: Vec<(Symbol, Vec<Symbol>)>,
    /// How a value is written for the program.
    pub write: fn(&Value) -> String,
}

impl Executable {
    /// An executable over the spec's names: every input is a column named as its
    /// variable (or as `map` renames it), `outputs` (spec names, default every output)
    /// are read in order.
    pub fn new(
        p: &Problem,
        program: PathBuf,
        args: Vec<String>,
        timeout: Duration,
        map: &[(String, String)],
        outputs: Option<&[String]>,
        fixed: Vec<(String, String)>,
    ) -> Result<Executable, SetupError> {
        let column = |spec: &str| -> String {
            map.iter()
                .find(|(_, s)| s == spec)
                .map(|(i, _)| i.clone())
                .unwrap_or_else(|| spec.to_string())
        };
        for (_, s) in map {
            spec_var(p, s)?;
        }
        let inputs = p
            .roles
            .inputs
            .iter()
            .map(|n| (column(n), n.clone()))
            .collect();
        let outs: Vec<String> = match outputs {
            Some(o) => o.to_vec(),
            None => p.roles.outputs.iter().map(|n| n.to_string()).collect(),
        };
        let mut read = Vec::new();
        for o in &outs {
            let v = spec_var(p, o)?;
            if p.roles.is_input(o) {
                return Err(SetupError::Mapping(format!(
                    "`{o}` is an input of the spec, not an output"
                )));
            }
            read.push((column(o), v.name.clone(), v.sort.clone()));
        }
        if read.is_empty() {
            return Err(SetupError::Mapping(
                "the implementation reports no output".into(),
            ));
        }
        Ok(Executable {
            program,
            args,
            timeout,
            inputs,
            fixed,
            outputs: read,
            enums: p.spec.enums.clone(),
            write: values::show,
        })
    }

    fn line(cells: &[String]) -> String {
        let mut w = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(Vec::new());
        let _ = w.write_record(cells);
        String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
    }
}

/// Output beyond this is garbage.
const MAX_OUTPUT: u64 = 1 << 20;

/// Runs `program` with `stdin`, in its own process group, within `timeout`:
/// standard output and the tail of standard error.
pub fn run_process(
    program: &Path,
    args: &[String],
    stdin: &[u8],
    timeout: Duration,
) -> Result<(String, String), CaseError> {
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| CaseError::Start {
            program: program.display().to_string(),
            reason: e.to_string(),
        })?;
    let pid = child.id() as i32;
    let kill_group = || {
        // SAFETY: killpg only sends a signal; the group is the child's own
        // (process_group(0) above), so nothing else is hit.
        unsafe {
            libc::killpg(pid, libc::SIGKILL);
        }
    };
    let mut input = child.stdin.take().expect("piped");
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        // A program that does not read its input closes the pipe: not an error here.
        let _ = input.write_all(&data);
    });
    let mut out = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = (&mut out).take(MAX_OUTPUT + 1).read_to_end(&mut v);
        v
    });
    let mut err = child.stderr.take().expect("piped");
    let err_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = (&mut err).take(MAX_OUTPUT).read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if start.elapsed() >= timeout => break None,
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(_) => break None,
        }
    };
    // Whatever happened, nothing of the group may outlive the case (a grandchild that
    // keeps the pipes open would also keep the readers waiting).
    kill_group();
    let status = match status {
        Some(s) => s,
        None => {
            let _ = child.wait();
            let _ = writer.join();
            let _ = reader.join();
            let _ = err_reader.join();
            return Err(CaseError::Hung {
                seconds: timeout.as_secs_f64(),
            });
        }
    };
    let _ = writer.join();
    let stdout = reader.join().unwrap_or_default();
    let stderr = String::from_utf8_lossy(&err_reader.join().unwrap_or_default()).into_owned();
    if let Some(signal) = status.signal() {
        return Err(CaseError::Crashed { signal, stderr });
    }
    if !status.success() {
        return Err(CaseError::Failed {
            code: status.code().unwrap_or(-1),
            stderr,
        });
    }
    if stdout.len() as u64 > MAX_OUTPUT {
        return Err(CaseError::Garbage("more than 1 MiB of output".into()));
    }
    let stdout = String::from_utf8(stdout)
        .map_err(|_| CaseError::Garbage("the output is not UTF-8 text".into()))?;
    Ok((stdout, stderr))
}

impl Implementation for Executable {
    fn run(&mut self, inputs: &[(Symbol, Value)]) -> Result<Vec<(Symbol, Value)>, CaseError> {
        let text = self.input_text(std::slice::from_ref(&inputs.to_vec()));
        let (stdout, _) = run_process(&self.program, &self.args, text.as_bytes(), self.timeout)?;
        let mut rows = self.read(&stdout, 1)?;
        Ok(rows.pop().expect("one row"))
    }

    fn describe(&self) -> String {
        format!("executable {}", self.program.display())
    }

    /// One process for the whole sequence: the header, then a line per step;
    /// standard output: a line per step (after an optional header).
    fn run_sequence(
        &mut self,
        steps: &[Vec<(Symbol, Value)>],
    ) -> Result<Vec<Vec<(Symbol, Value)>>, CaseError> {
        let text = self.input_text(steps);
        let (stdout, _) = run_process(&self.program, &self.args, text.as_bytes(), self.timeout)?;
        self.read(&stdout, steps.len())
    }
}

impl Executable {
    /// The header line and a line per row of inputs.
    fn input_text(&self, rows: &[Vec<(Symbol, Value)>]) -> String {
        let mut header: Vec<String> = self.inputs.iter().map(|(c, _)| c.clone()).collect();
        header.extend(self.fixed.iter().map(|(c, _)| c.clone()));
        let mut text = Executable::line(&header);
        for inputs in rows {
            let mut row: Vec<String> = Vec::new();
            for (_, s) in &self.inputs {
                let v = inputs
                    .iter()
                    .find(|(n, _)| n == s)
                    .map(|(_, v)| (self.write)(v))
                    .unwrap_or_default();
                row.push(v);
            }
            row.extend(self.fixed.iter().map(|(_, v)| v.clone()));
            text.push_str(&Executable::line(&row));
        }
        text
    }

    /// Reads the program's output: `lines` records with a value per output (after an
    /// optional header naming them).
    fn read(&self, stdout: &str, lines: usize) -> Result<Vec<Vec<(Symbol, Value)>>, CaseError> {
        let mut rdr = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .trim(csv::Trim::All)
            .from_reader(stdout.as_bytes());
        let mut records: Vec<Vec<String>> = Vec::new();
        for r in rdr.records() {
            let r = r.map_err(|e| CaseError::Garbage(format!("not CSV ({e})")))?;
            let cells: Vec<String> = r.iter().map(String::from).collect();
            if cells.iter().all(|c| c.is_empty()) {
                continue;
            }
            records.push(cells);
        }
        let names: Vec<&str> = self.outputs.iter().map(|(c, _, _)| c.as_str()).collect();
        if records.len() == lines + 1
            && records[0]
                .iter()
                .map(String::as_str)
                .eq(names.iter().copied())
        {
            records.remove(0);
        }
        let shown = || values::cut(stdout.trim());
        let plural = |k: usize| if k == 1 { "" } else { "s" };
        if records.len() != lines {
            return Err(CaseError::Garbage(format!(
                "expected {} with {} value{} ({}), got {} line{}: `{}`",
                if lines == 1 {
                    "one line".to_string()
                } else {
                    format!("{lines} lines")
                },
                names.len(),
                plural(names.len()),
                names.join(", "),
                records.len(),
                plural(records.len()),
                shown()
            )));
        }
        let mut rows = Vec::new();
        for (t, record) in records.iter().enumerate() {
            let at = if lines == 1 {
                String::new()
            } else {
                format!("step {t}: ")
            };
            if record.len() != names.len() {
                return Err(CaseError::Garbage(format!(
                    "{at}expected {} value{} ({}), got {}: `{}`",
                    names.len(),
                    plural(names.len()),
                    names.join(", "),
                    record.len(),
                    values::cut(&record.join(","))
                )));
            }
            let mut out = Vec::new();
            for ((c, s, sort), cell) in self.outputs.iter().zip(record) {
                let v = values::parse(cell, sort, &self.enums)
                    .map_err(|e| CaseError::Garbage(format!("{at}{c}: {e}")))?;
                out.push((s.clone(), v));
            }
            rows.push(out);
        }
        Ok(rows)
    }
}

// ------------------------------------------------------------------ BL programs

/// A BL program run in the exact interpreter.
#[derive(Debug, Clone)]
pub struct BlProgram {
    name: String,
    program: bl::Program,
    /// BL input ← spec input.
    inputs: Vec<(String, Symbol)>,
    /// BL inputs with a fixed value.
    fixed: BTreeMap<String, BigRational>,
    /// BL binding → spec output.
    outputs: Vec<(String, Symbol, Sort)>,
}

impl BlProgram {
    /// Sets up a BL program: its inputs and output mapped to the spec's variables by
    /// `map` (`BL=SPEC`), then by the bounds' `equals` and `outputs` entries, then by
    /// equal names; BL inputs the spec does not have need a value in `fixed`.
    pub fn new(
        p: &Problem,
        name: &str,
        program: bl::Program,
        map: &[(String, String)],
        bounds: Option<&bl::check::bounds::Bounds>,
        fixed: &[(String, String)],
    ) -> Result<BlProgram, SetupError> {
        use bl::check::bounds::BoundItem;
        let bl_names: Vec<String> = program.lets.iter().map(|l| l.name.clone()).collect();
        let is_bl = |n: &str| bl_names.iter().any(|b| b == n);
        let is_spec = |n: &str| p.spec.variable(n).is_some();
        let strip = |n: &str, prefix: &str| n.strip_prefix(prefix).unwrap_or(n).to_string();
        // (bl name, spec name) pairs, in order of precedence.
        let mut pairs: Vec<(String, String)> = map.to_vec();
        if let Some(b) = bounds {
            for item in &b.items {
                let vars = match item {
                    BoundItem::Equals { variables } | BoundItem::Outputs { variables } => variables,
                    _ => continue,
                };
                let bl_side: Vec<String> = vars
                    .iter()
                    .filter(|v| {
                        v.starts_with("bl.") || (!v.starts_with("nl.") && is_bl(v) && !is_spec(v))
                    })
                    .map(|v| strip(v, "bl."))
                    .collect();
                let spec_side: Vec<String> = vars
                    .iter()
                    .filter(|v| {
                        v.starts_with("nl.") || (!v.starts_with("bl.") && is_spec(v) && !is_bl(v))
                    })
                    .map(|v| strip(v, "nl."))
                    .collect();
                for b in &bl_side {
                    for s in &spec_side {
                        pairs.push((b.clone(), s.clone()));
                    }
                }
            }
        }
        let spec_of = |bl: &str| -> Option<String> {
            pairs
                .iter()
                .find(|(b, _)| b == bl)
                .map(|(_, s)| s.clone())
                .or_else(|| is_spec(bl).then(|| bl.to_string()))
        };
        let fixed_values: BTreeMap<String, BigRational> = fixed
            .iter()
            .map(|(n, v)| {
                values::rational(v)
                    .map(|r| (n.clone(), r))
                    .ok_or_else(|| SetupError::Mapping(format!("--fix {n}={v}: not a number")))
            })
            .collect::<Result<_, _>>()?;
        let mut inputs = Vec::new();
        for i in program.inputs() {
            if fixed_values.contains_key(i) {
                continue;
            }
            match spec_of(i) {
                Some(s) if p.roles.is_input(&s) => {
                    let v = spec_var(p, &s)?;
                    if !v.sort.is_numeric() {
                        return Err(SetupError::Mapping(format!(
                            "BL input `{i}` is mapped to `{s}`, a {} variable; BL computes with numbers",
                            v.sort
                        )));
                    }
                    inputs.push((i.to_string(), v.name.clone()));
                }
                Some(s) => {
                    return Err(SetupError::Mapping(format!(
                        "BL input `{i}` is mapped to `{s}`, which is not an input of the spec"
                    )))
                }
                None => {
                    return Err(SetupError::Mapping(format!(
                        "BL input `{i}` has no spec variable: map it (--map {i}=VAR, or --bounds) or give it a value (--fix {i}=VALUE)"
                    )))
                }
            }
        }
        for k in fixed_values.keys() {
            if !program.inputs().any(|i| i == k) {
                return Err(SetupError::Mapping(format!(
                    "--fix {k}: `{k}` is not an input of the program"
                )));
            }
        }
        let mut outputs = Vec::new();
        for b in &bl_names {
            if program.inputs().any(|i| i == b) {
                continue;
            }
            if let Some(s) = spec_of(b) {
                if let Some(v) = p.spec.variable(&s) {
                    if !p.roles.is_input(&s) && v.sort.is_numeric() {
                        outputs.push((b.clone(), v.name.clone(), v.sort.clone()));
                    }
                }
            }
        }
        if outputs.is_empty() {
            return Err(SetupError::Mapping(
                "no binding of the program is mapped to an output of the spec: name the pair (--map BINDING=OUTPUT, or an `outputs` entry in --bounds)".into(),
            ));
        }
        Ok(BlProgram {
            name: name.to_string(),
            program,
            inputs,
            fixed: fixed_values,
            outputs,
        })
    }
}

impl Implementation for BlProgram {
    fn run(&mut self, inputs: &[(Symbol, Value)]) -> Result<Vec<(Symbol, Value)>, CaseError> {
        let mut env = self.fixed.clone();
        for (b, s) in &self.inputs {
            let v = inputs
                .iter()
                .find(|(n, _)| n == s)
                .and_then(|(_, v)| values::as_rational(v))
                .ok_or_else(|| CaseError::Rejected(format!("the case has no value for `{s}`")))?;
            env.insert(b.clone(), v);
        }
        let all = bl::run(&self.program, &env).map_err(|e| CaseError::Rejected(e.to_string()))?;
        let mut out = Vec::new();
        for (b, s, sort) in &self.outputs {
            let r = all.get(b).expect("every binding has a value after a run");
            let v = values::numeric(r, sort).ok_or_else(|| {
                CaseError::Garbage(format!("`{b}` = {r}, not a value of {sort} (`{s}`)"))
            })?;
            out.push((s.clone(), v));
        }
        Ok(out)
    }

    fn describe(&self) -> String {
        format!("BL program {}", self.name)
    }
}

// ------------------------------------------------------------------ judging

/// An output whose forced value the implementation did not produce.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Difference {
    /// The output.
    pub variable: String,
    /// The value the spec forces.
    pub expected: String,
    /// The value observed.
    pub observed: String,
}

/// How one case came out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum Verdict {
    /// The observed outputs satisfy the domain and every requirement.
    Pass,
    /// They do not.
    Fail {
        /// A minimal set of requirements (and domain constraints) they contradict.
        violated: Vec<String>,
        /// Forced outputs that differ.
        differences: Vec<Difference>,
    },
    /// The case could not run or be judged.
    Error {
        /// Why.
        message: String,
    },
}

/// One case's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CaseResult {
    /// The case.
    pub case: String,
    /// Its requirements.
    pub requirements: Vec<String>,
    /// Its inputs.
    pub inputs: Vec<Cell>,
    /// What the implementation gave (empty on an error).
    pub observed: Vec<Cell>,
    /// The verdict.
    #[serde(flatten)]
    pub verdict: Verdict,
}

/// The run of a suite.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunReport {
    /// What ran.
    pub implementation: String,
    /// Per case.
    pub cases: Vec<CaseResult>,
    /// Passed.
    pub passed: usize,
    /// Failed.
    pub failed: usize,
    /// Errors.
    pub errors: usize,
    /// The tolerance used, if any.
    pub tolerance: Option<String>,
}

/// Runs every case of `suite` on `imp` and judges it against the spec in one solver
/// session.
pub fn run_suite(
    p: &Problem,
    suite: &Suite,
    imp: &mut dyn Implementation,
    config: &SolverConfig,
    tolerance: Option<&BigRational>,
) -> Result<RunReport, SessionError> {
    let mut s = Session::start(p, config)?;
    let mut cases = Vec::new();
    for c in &suite.cases {
        cases.push(run_case(&mut s, c, imp, tolerance)?);
    }
    let count =
        |f: fn(&Verdict) -> bool| cases.iter().filter(|c: &&CaseResult| f(&c.verdict)).count();
    Ok(RunReport {
        implementation: imp.describe(),
        passed: count(|v| matches!(v, Verdict::Pass)),
        failed: count(|v| matches!(v, Verdict::Fail { .. })),
        errors: count(|v| matches!(v, Verdict::Error { .. })),
        cases,
        tolerance: tolerance.map(values::show_rational),
    })
}

fn run_case(
    s: &mut Session,
    c: &Case,
    imp: &mut dyn Implementation,
    tolerance: Option<&BigRational>,
) -> Result<CaseResult, SessionError> {
    let base = CaseResult {
        case: c.id.clone(),
        requirements: c.requirements.clone(),
        inputs: c.inputs.clone(),
        observed: Vec::new(),
        verdict: Verdict::Pass,
    };
    let observed = match imp.run(&c.input_values) {
        Ok(o) => o,
        Err(e) => {
            return Ok(CaseResult {
                verdict: Verdict::Error {
                    message: e.to_string(),
                },
                ..base
            })
        }
    };
    let verdict = judge(s, &c.input_values, &c.expected_values, &observed, tolerance)?;
    Ok(CaseResult {
        observed: observed
            .iter()
            .map(|(n, v)| Cell {
                variable: n.to_string(),
                value: values::show(v),
            })
            .collect(),
        verdict,
        ..base
    })
}

/// Equal, or within `tolerance` for numbers.
pub(crate) fn close(a: &Value, b: &Value, tolerance: Option<&BigRational>) -> bool {
    match (tolerance, values::as_rational(a), values::as_rational(b)) {
        (Some(t), Some(x), Some(y)) => {
            let d = x - y;
            let d = if d < BigRational::from_integer(0.into()) {
                -d
            } else {
                d
            };
            d <= *t
        }
        _ => a == b,
    }
}

/// `x` (a variable of `v`'s sort) is the observed `v`: equal, or for a number within
/// `tolerance` of it.
pub(crate) fn observed_is(x: Term, v: &Value, tolerance: Option<&BigRational>) -> Vec<Term> {
    match (tolerance, values::as_rational(v)) {
        (Some(t), Some(r)) if v.sort().is_numeric() => {
            let x = match v.sort() {
                Sort::Int => Term::app(Op::ToReal, vec![x]),
                _ => x,
            };
            vec![
                Term::app(Op::Le, vec![Term::Real(&r - t), x.clone()]),
                Term::app(Op::Le, vec![x, Term::Real(&r + t)]),
            ]
        }
        _ => vec![Term::app(Op::Eq, vec![x, v.to_term()])],
    }
}

/// Judges observed outputs: pass when the inputs and the observed outputs (within the
/// tolerance) can be completed to a state that satisfies the domain and every
/// requirement; otherwise fail with a minimal set of members they contradict.
pub fn judge(
    s: &mut Session,
    inputs: &[(Symbol, Value)],
    expected: &[(Symbol, Expected)],
    observed: &[(Symbol, Value)],
    tolerance: Option<&BigRational>,
) -> Result<Verdict, SessionError> {
    let differences: Vec<Difference> = observed
        .iter()
        .filter_map(|(n, v)| {
            let e = expected.iter().find(|(m, _)| m == n)?;
            match &e.1 {
                Expected::Value(x) if !close(x, v, tolerance) => Some(Difference {
                    variable: n.to_string(),
                    expected: values::show(x),
                    observed: values::show(v),
                }),
                _ => None,
            }
        })
        .collect();
    let mut extra = equalities(inputs.iter().map(|(n, v)| (&**n, v)));
    for (n, v) in observed {
        extra.extend(observed_is(Term::var(n, v.sort()), v, tolerance));
    }
    let all = s.members();
    match s.check(&all, &extra, false)? {
        Outcome::Sat(_) => Ok(Verdict::Pass),
        Outcome::Unsat(core) => {
            let core = s.minimize(core, &extra)?;
            Ok(Verdict::Fail {
                violated: s.ids(&core),
                differences,
            })
        }
        Outcome::Unknown(r) => Ok(Verdict::Error {
            message: format!("the solver could not judge the outputs ({r})"),
        }),
    }
}
