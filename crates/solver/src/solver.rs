//! One solver process driven incrementally.

use crate::config::{SolverConfig, SolverKind};
use crate::error::{Reason, SolverError};
use crate::process::{Answer, Process};
use crate::transcript::Transcript;
use logic::context::{Entry, INTERNAL_PREFIX, MAX_SCOPES};
use logic::eval::{parse_model, parse_values, Evaluator};
use logic::sexp::{Sexp, SexpKind};
use logic::{print, Command, Context, Model, Op, Sort, Symbol, Term, Value};
use num_bigint::BigUint;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// The answer to a check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Satisfiable, with a model of the declared constants (validated when
    /// [`SolverConfig::validate`] is set).
    Sat(Model),
    /// Unsatisfiable. For [`Solver::check_assuming`], the assumptions in the solver's
    /// core, in the order given (validated when [`SolverConfig::validate`] is set);
    /// empty for [`Solver::check`].
    Unsat(Vec<Term>),
    /// No answer, and why.
    Unknown(Reason),
}

impl Outcome {
    /// True for [`Outcome::Sat`].
    pub fn is_sat(&self) -> bool {
        matches!(self, Outcome::Sat(_))
    }

    /// True for [`Outcome::Unsat`].
    pub fn is_unsat(&self) -> bool {
        matches!(self, Outcome::Unsat(_))
    }

    /// `sat`, `unsat` or `unknown`, as SMT-LIB spells them.
    pub fn status(&self) -> &'static str {
        match self {
            Outcome::Sat(_) => "sat",
            Outcome::Unsat(_) => "unsat",
            Outcome::Unknown(_) => "unknown",
        }
    }
}

/// One scope of the assertion stack: the commands sent in it and the assumption
/// literals introduced in it. The id tells frames apart (a popped frame and the next
/// one pushed are different), so that the re-check process can be brought up to date
/// with only the commands it has not seen.
#[derive(Debug, Clone)]
struct Frame {
    id: u64,
    commands: Vec<Command>,
    literals: HashMap<Term, Term>,
}

/// The process that re-checks unsat answers: a second solver with the same binary and
/// options, started on the first re-check. `sync` has, per scope open in it, the id
/// of the main frame it mirrors and how many of that frame's commands it was sent.
struct Checker {
    solver: Box<Solver>,
    sync: Vec<(u64, usize)>,
}

/// Why an exchange with the process did not produce an answer.
enum Fail {
    /// The process died or hung and is gone, or the re-check of an unsat answer gave
    /// up; a check reports this as unknown.
    Lost(Reason),
    /// An error to hand to the caller.
    Err(SolverError),
}

impl From<SolverError> for Fail {
    fn from(e: SolverError) -> Fail {
        Fail::Err(e)
    }
}

/// A solver process and the state vera has sent to it.
///
/// The process is restarted transparently after a crash, a watchdog kill or garbage
/// output; the recorded assertion stack is re-sent first, so the restart is invisible
/// to the caller apart from [`Solver::restarts`].
pub struct Solver {
    config: SolverConfig,
    program: PathBuf,
    proc: Option<Process>,
    version: String,
    context: Context,
    frames: Vec<Frame>,
    next_frame: u64,
    transcript: Option<Transcript>,
    restarts: usize,
    next_literal: usize,
    model_ready: bool,
    /// The last model that passed validation, with vera's own literals: a candidate
    /// witness against later unsat answers.
    last_model: Option<Model>,
    checker: Option<Checker>,
    /// Companion sessions started so far ([`Solver::companion`]).
    companions: usize,
}

impl std::fmt::Debug for Solver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Solver")
            .field("kind", &self.config.kind)
            .field("program", &self.program)
            .field("version", &self.version)
            .field("depth", &self.depth())
            .field("running", &self.proc.is_some())
            .field("restarts", &self.restarts)
            .finish()
    }
}

/// Reads `major.minor` from a version string such as `4.13.0` or `1.0.3-dev`.
fn parse_version(s: &str) -> Option<(u64, u64)> {
    let mut parts = s
        .split(|c: char| !c.is_ascii_digit())
        .filter(|p| !p.is_empty());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    Some((major, minor))
}

/// The text of a string or symbol atom; other expressions printed.
fn atom_text(e: &Sexp) -> String {
    match &e.kind {
        SexpKind::Str(s) | SexpKind::Symbol(s) => s.clone(),
        _ => e.to_string(),
    }
}

/// The message of an `(error "...")` answer.
fn error_message(e: &Sexp) -> Option<String> {
    match e.as_list() {
        Some([head, msg]) if head.as_symbol() == Some("error") => Some(atom_text(msg)),
        _ => None,
    }
}

impl Solver {
    /// Starts the solver: spawns the process, switches on acknowledgements, checks the
    /// version and sets models, unsat assumptions and the per-query time limit.
    pub fn start(config: &SolverConfig) -> Result<Solver, SolverError> {
        let transcript = match &config.transcript {
            Some(p) => Some(Transcript::create(p, config.transcript_force)?),
            None => None,
        };
        let mut s = Solver {
            config: config.clone(),
            program: config.resolved_program(),
            proc: None,
            version: String::new(),
            context: Context::new(),
            frames: Vec::new(),
            next_frame: 0,
            transcript,
            restarts: 0,
            next_literal: 0,
            model_ready: false,
            last_model: None,
            checker: None,
            companions: 0,
        };
        let base = s.new_frame();
        s.frames.push(base);
        s.launch()?;
        Ok(s)
    }

    /// The version the solver reported, e.g. `4.13.0`.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// Which solver this is.
    pub fn kind(&self) -> SolverKind {
        self.config.kind
    }

    /// The configuration it was started with.
    pub fn config(&self) -> &SolverConfig {
        &self.config
    }

    /// The binary being run.
    pub fn program(&self) -> &Path {
        &self.program
    }

    /// The symbols declared so far (what models are read against).
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// The number of open `push` scopes.
    pub fn depth(&self) -> usize {
        self.frames.len() - 1
    }

    /// The transcript file, if one is written.
    pub fn transcript_path(&self) -> Option<&Path> {
        self.transcript.as_ref().map(Transcript::path)
    }

    /// How many times the process has been restarted.
    pub fn restarts(&self) -> usize {
        self.restarts
    }

    /// The assertions in force, outermost scope first (including vera's own
    /// definitions of assumption literals).
    pub fn assertions(&self) -> impl Iterator<Item = &Term> {
        self.frames
            .iter()
            .flat_map(|f| &f.commands)
            .filter_map(|c| match c {
                Command::Assert(t) => Some(t),
                _ => None,
            })
    }

    /// The declarations, definitions and assertions in force, outermost scope first,
    /// without vera's own assumption literals (their declarations and definitions):
    /// what another session needs to pose the same problem.
    pub fn commands(&self) -> impl Iterator<Item = &Command> {
        self.frames
            .iter()
            .flat_map(|f| &f.commands)
            .filter(|c| match c {
                Command::DeclareConst(n, _) => !n.starts_with(INTERNAL_PREFIX),
                // A literal's definition is `(= vera!aN t)` (see `literals`).
                Command::Assert(Term::App(Op::Eq, xs)) => !matches!(
                    xs.first(),
                    Some(Term::Var(n, _)) if n.starts_with(INTERNAL_PREFIX)
                ),
                _ => true,
            })
    }

    /// Starts another session with the same solver binary and options, empty, for a
    /// side problem; its transcript, when this session writes one, goes next to this
    /// one's as `stem.<name>-<n>.smt2` (n counts this session's companions).
    pub fn companion(&mut self, name: &str) -> Result<Solver, SolverError> {
        self.companions += 1;
        let n = self.companions;
        let mut config = self.config.clone();
        config.program = Some(self.program.clone());
        config.transcript = self.transcript_path().map(|main| {
            let stem = main
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "transcript".into());
            main.with_file_name(format!("{stem}.{name}-{n}.smt2"))
        });
        Solver::start(&config)
    }

    /// Sends a state-changing command: `set-logic`, `declare-const`,
    /// `declare-datatype`, `define-fun`, `assert`, `push` or `pop`. Anything else is
    /// [`SolverError::Unsupported`] (checks, models and options have their own methods).
    /// On success the command is recorded, so that it is re-sent after a restart.
    pub fn command(&mut self, c: &Command) -> Result<(), SolverError> {
        match c {
            Command::SetLogic(_)
            | Command::DeclareConst(..)
            | Command::DeclareEnum(..)
            | Command::DefineFun(_)
            | Command::Assert(_)
            | Command::Push(_)
            | Command::Pop(_) => {}
            other => {
                return Err(SolverError::Unsupported(format!(
                    "`{}` cannot be sent with Solver::command",
                    other.name()
                )))
            }
        }
        if let Command::Push(n) = c {
            let open = self.depth();
            if *n as usize > MAX_SCOPES - open.min(MAX_SCOPES) {
                return Err(SolverError::Unsupported(format!(
                    "`(push {n})` with {open} scope(s) open exceeds the limit of {MAX_SCOPES} open scopes"
                )));
            }
        }
        if let Command::Assert(t) = c {
            if t.sort() != Sort::Bool {
                return Err(SolverError::Unsupported(format!(
                    "assertion `{}` is not a Boolean formula",
                    print::term(t)
                )));
            }
        }
        self.model_ready = false;
        self.ack(c)?;
        self.record(c);
        Ok(())
    }

    /// Declares a constant.
    pub fn declare_const(&mut self, name: &str, sort: Sort) -> Result<(), SolverError> {
        self.command(&Command::DeclareConst(Symbol::from(name), sort))
    }

    /// Asserts a Boolean formula.
    pub fn assert(&mut self, t: &Term) -> Result<(), SolverError> {
        self.command(&Command::Assert(t.clone()))
    }

    /// Opens a scope.
    pub fn push(&mut self) -> Result<(), SolverError> {
        self.command(&Command::Push(1))
    }

    /// Closes the innermost scope, forgetting its declarations and assertions.
    pub fn pop(&mut self) -> Result<(), SolverError> {
        self.command(&Command::Pop(1))
    }

    /// Checks the assertions in force.
    pub fn check(&mut self) -> Result<Outcome, SolverError> {
        self.query(None, true)
    }

    /// Checks the assertions in force together with the assumptions (Boolean
    /// formulas). An [`Outcome::Unsat`] lists the assumptions in the core.
    ///
    /// Assumptions that are not Boolean constants or their negations are named by
    /// fresh `vera!a<n>` literals, declared and defined in the current scope.
    pub fn check_assuming(&mut self, assumptions: &[Term]) -> Result<Outcome, SolverError> {
        self.assuming(assumptions, true)
    }

    /// [`Solver::check_assuming`] for one step of a search whose answers are not
    /// reported as they come: neither the model of a `sat` answer nor the core of an
    /// `unsat` one is re-checked, whatever [`SolverConfig::validate`] says (an `unsat`
    /// answer is confirmed by asking it again in this process and in a second one,
    /// which costs about twice the query). The caller re-checks what it reports: a
    /// run against the requirements, and what the search did not find by one
    /// [`Solver::check_assuming`] at the end.
    pub fn check_assuming_unchecked(
        &mut self,
        assumptions: &[Term],
    ) -> Result<Outcome, SolverError> {
        self.assuming(assumptions, false)
    }

    fn assuming(&mut self, assumptions: &[Term], checked: bool) -> Result<Outcome, SolverError> {
        if let Some(t) = assumptions.iter().find(|t| t.sort() != Sort::Bool) {
            return Err(SolverError::Unsupported(format!(
                "assumption `{}` is not a Boolean formula",
                print::term(t)
            )));
        }
        // cvc5 rejects an empty `(check-sat-assuming ())`; it means plain check-sat.
        if assumptions.is_empty() {
            return self.query(None, checked);
        }
        self.query(Some(assumptions), checked)
    }

    /// The values of terms in the model of the last check, which must have been `sat`
    /// with no command sent since.
    pub fn get_values(&mut self, terms: &[Term]) -> Result<Vec<Value>, SolverError> {
        if !self.model_ready || self.proc.is_none() {
            return Err(SolverError::NoModel);
        }
        if terms.is_empty() {
            return Ok(Vec::new());
        }
        let c = Command::GetValue(terms.to_vec());
        let r = self.exchange(&c).and_then(|ans| match error_message(&ans) {
            Some(_) => Err(self.reject(&c, &ans, "values")),
            None => parse_values(&ans, terms, &self.context)
                .map_err(|e| self.protocol(format!("values ({e})"), &ans)),
        });
        self.flush();
        r.map_err(|f| self.to_error(&c, f))
    }

    /// Forgets every declaration and assertion (`(reset)`), keeping the process. If the
    /// reset fails the process is dropped and a fresh one starts on the next command.
    pub fn reset(&mut self) -> Result<(), SolverError> {
        self.frames = vec![self.new_frame()];
        self.context = Context::new();
        self.model_ready = false;
        self.last_model = None;
        self.next_literal = 0;
        if self.proc.is_none() {
            return Ok(());
        }
        self.note("reset");
        // Whether `(reset)` itself is acknowledged differs between solvers (it resets
        // `:print-success`); `init` skips the acknowledgements that come.
        let r = self.send(&Command::Reset).and_then(|()| self.init());
        self.flush();
        if r.is_err() {
            self.kill();
        }
        Ok(())
    }

    /// Empties the assertion stack as SMT-LIB's `(reset-assertions)` does: every scope,
    /// assertion, declaration and definition goes, the logic and the options stay.
    ///
    /// The solvers disagree here (z3 keeps declarations), so vera does not send
    /// `(reset-assertions)`: it resets and sends the logic again.
    pub fn reset_assertions(&mut self) -> Result<(), SolverError> {
        let logic = self.frames.first().and_then(|f| {
            f.commands.iter().find_map(|c| match c {
                Command::SetLogic(l) => Some(l.clone()),
                _ => None,
            })
        });
        self.reset()?;
        if let Some(l) = logic {
            self.command(&Command::SetLogic(l))?;
        }
        Ok(())
    }

    // ---- internals ----

    fn new_frame(&mut self) -> Frame {
        self.next_frame += 1;
        Frame {
            id: self.next_frame,
            commands: Vec::new(),
            literals: HashMap::new(),
        }
    }

    fn note(&mut self, text: &str) {
        if let Some(t) = &mut self.transcript {
            let _ = t.note(text);
        }
    }

    fn flush(&mut self) {
        if let Some(t) = &mut self.transcript {
            let _ = t.flush();
        }
    }

    fn kill(&mut self) {
        if let Some(mut p) = self.proc.take() {
            p.kill();
        }
    }

    /// Spawns the process and initialises it.
    fn launch(&mut self) -> Result<(), SolverError> {
        let p = Process::spawn(&self.program, self.config.kind.args()).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                let k = self.config.kind;
                SolverError::NotFound {
                    program: self.program.clone(),
                    hint: format!(
                        "install {k} with scripts/setup, put `{}` on PATH, or set {} to the binary",
                        k.default_program(),
                        k.env_var()
                    ),
                }
            } else {
                SolverError::Io(e)
            }
        })?;
        self.proc = Some(p);
        let key = (self.program.clone(), self.config.kind);
        let r = if probed()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(&key)
        {
            self.init()
        } else {
            self.handshake()
                .and_then(|()| self.probe_answers())
                .and_then(|()| {
                    // cvc5 refuses `set-logic` after a check: start afresh after the probe.
                    self.note("vera: the start-up checks passed; the session starts here");
                    self.send(&Command::Reset)?;
                    self.init()
                })
        };
        self.flush();
        if let Err(f) = r {
            self.kill();
            return Err(self.to_error(&Command::GetInfo("version".into()), f));
        }
        probed()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key);
        Ok(())
    }

    /// The start-up sanity probe: on an empty state `(check-sat)` must be `sat` and
    /// `(check-sat-assuming (false))` must be `unsat`. A binary that answers the same to
    /// everything (or is not a solver at all) is refused here, before it answers a real
    /// query. It runs before the time limit is set, so a tiny limit cannot make it fail.
    ///
    /// A binary (and driver) that passed is not probed again in this process: the
    /// first check costs z3 some 10 to 20 ms of set-up, and pools and re-checks start
    /// the same binary many times.
    fn probe_answers(&mut self) -> Result<(), Fail> {
        let probes = [
            (Command::CheckSat, "sat"),
            (Command::CheckSatAssuming(vec![Term::Bool(false)]), "unsat"),
        ];
        for (c, want) in probes {
            let ans = self.exchange(&c)?;
            if ans.as_symbol() != Some(want) {
                if error_message(&ans).is_none() && ans.as_symbol().is_none() {
                    return Err(self.protocol(format!("{want} (start-up check)"), &ans));
                }
                return Err(Fail::Err(SolverError::FailedProbe {
                    query: print::command(&c),
                    expected: want,
                    got: ans.to_string(),
                }));
            }
        }
        Ok(())
    }

    /// The option commands sent at start and after a reset.
    fn init(&mut self) -> Result<(), Fail> {
        self.handshake()?;
        self.options()
    }

    /// Switches on acknowledgements and checks the version.
    fn handshake(&mut self) -> Result<(), Fail> {
        let on = || Some(Sexp::sym("true"));
        let c = Command::SetOption("print-success".into(), on());
        self.send(&c)?;
        let c = Command::GetInfo("version".into());
        self.send(&c)?;
        // After `(reset)` some solvers acknowledge the reset and the first option,
        // some do not: skip up to two acknowledgements.
        let mut ans = self.receive("the version")?;
        for _ in 0..2 {
            if ans.as_symbol() != Some("success") {
                break;
            }
            ans = self.receive("the version")?;
        }
        let version = match ans.as_list() {
            Some([k, v]) if k.kind == SexpKind::Keyword("version".into()) => atom_text(v),
            _ => return Err(self.reject(&c, &ans, "(:version \"...\")")),
        };
        let (maj, min) = self.config.kind.min_version();
        match parse_version(&version) {
            Some(v) if v >= (maj, min) => {}
            _ => {
                return Err(Fail::Err(SolverError::Version {
                    found: version,
                    required: format!("{} {maj}.{min}", self.config.kind),
                }))
            }
        }
        self.version = version;
        Ok(())
    }

    /// Models, unsat assumptions and the time limit.
    fn options(&mut self) -> Result<(), Fail> {
        let on = || Some(Sexp::sym("true"));
        self.expect_ack(&Command::SetOption("produce-models".into(), on()))?;
        self.expect_ack(&Command::SetOption(
            "produce-unsat-assumptions".into(),
            on(),
        ))?;
        // A positive limit under a millisecond is 1 ms, not "no limit" (0).
        let ms = self
            .config
            .timeout
            .as_millis()
            .max(u128::from(!self.config.timeout.is_zero()));
        if ms > 0 {
            let ms = u64::try_from(ms).unwrap_or(u64::MAX);
            self.expect_ack(&Command::SetOption(
                self.config.kind.timeout_option().into(),
                Some(Sexp::new(SexpKind::Numeral(BigUint::from(ms)))),
            ))?;
        }
        Ok(())
    }

    /// Restarts a dead process and re-sends the recorded stack.
    fn ensure_running(&mut self) -> Result<(), SolverError> {
        if self.proc.is_some() {
            return Ok(());
        }
        self.restarts += 1;
        let n = self.restarts;
        self.note(&format!(
            "vera: the solver process was restarted here (restart {n}); the `(reset)` below \
             stands for the new process and is not sent, the rest is re-sent"
        ));
        if let Some(t) = &mut self.transcript {
            let _ = t.command(&print::command(&Command::Reset));
        }
        self.launch()?;
        let frames = self.frames.clone();
        for (i, frame) in frames.iter().enumerate() {
            let push = Command::Push(1);
            let cmds = (i > 0).then_some(&push).into_iter().chain(&frame.commands);
            for c in cmds {
                if let Err(f) = self.expect_ack(c) {
                    self.kill();
                    self.flush();
                    return Err(self.to_error(c, f));
                }
            }
        }
        self.flush();
        Ok(())
    }

    /// Writes a command.
    fn send(&mut self, c: &Command) -> Result<(), Fail> {
        let text = print::command(c);
        if let Some(t) = &mut self.transcript {
            t.command(&text).map_err(SolverError::Io)?;
        }
        let Some(p) = &mut self.proc else {
            return Err(Fail::Lost(Reason::Crashed(
                "the process is not running".into(),
            )));
        };
        if p.send(&text).is_err() {
            let report = p.death_report();
            self.proc = None;
            return Err(Fail::Lost(Reason::Crashed(report)));
        }
        Ok(())
    }

    /// Reads one answer, within the watchdog limit.
    fn receive(&mut self, expected: &str) -> Result<Sexp, Fail> {
        let limit = self.config.watchdog();
        let Some(p) = &mut self.proc else {
            return Err(Fail::Lost(Reason::Crashed(
                "the process is not running".into(),
            )));
        };
        match p.read(limit) {
            Answer::Item(text) => {
                let parsed = logic::sexp::read_one(&text);
                if let Some(t) = &mut self.transcript {
                    let _ = match &parsed {
                        Ok(e) => t.answer(&e.to_string()),
                        Err(_) => t.answer(&text),
                    };
                }
                match parsed {
                    Ok(e) => Ok(e),
                    Err(_) => {
                        self.kill();
                        Err(Fail::Err(SolverError::Protocol {
                            expected: expected.to_string(),
                            got: text,
                        }))
                    }
                }
            }
            Answer::Eof(report) => {
                self.note(&format!("vera: the solver died: {report}"));
                self.proc = None;
                Err(Fail::Lost(Reason::Crashed(report)))
            }
            Answer::Timeout => {
                self.note(&format!(
                    "vera: no answer within {limit:?}; the solver was stopped"
                ));
                self.kill();
                Err(Fail::Lost(Reason::Timeout))
            }
            Answer::TooLong => {
                self.note("vera: the solver's answer was too long; the solver was stopped");
                self.kill();
                Err(Fail::Err(SolverError::Protocol {
                    expected: expected.to_string(),
                    got: format!("an answer longer than {} bytes", crate::process::MAX_ANSWER),
                }))
            }
        }
    }

    /// Sends a command and reads its answer.
    fn exchange(&mut self, c: &Command) -> Result<Sexp, Fail> {
        self.send(c)?;
        self.receive(&format!("an answer to `{}`", c.name()))
    }

    /// Garbage: stops the process (it restarts on the next command).
    fn protocol(&mut self, expected: String, got: &Sexp) -> Fail {
        self.kill();
        Fail::Err(SolverError::Protocol {
            expected,
            got: got.to_string(),
        })
    }

    /// An answer that is not the expected one: an `(error ...)` (after which the
    /// process is probed, since some solvers exit after an error) or garbage.
    fn reject(&mut self, c: &Command, ans: &Sexp, expected: &str) -> Fail {
        match error_message(ans) {
            Some(message) => {
                self.probe();
                Fail::Err(SolverError::Solver {
                    command: print::command(c),
                    message,
                })
            }
            None => self.protocol(expected.to_string(), ans),
        }
    }

    /// Checks that the process still answers; drops it if not.
    fn probe(&mut self) {
        let c = Command::GetInfo("version".into());
        if let Ok(ans) = self.exchange(&c) {
            if ans.as_list().is_none_or(|l| l.len() != 2) {
                self.kill();
            }
        }
    }

    /// Sends a command that must be acknowledged with `success`.
    fn expect_ack(&mut self, c: &Command) -> Result<(), Fail> {
        let ans = self.exchange(c)?;
        if ans.as_symbol() == Some("success") {
            Ok(())
        } else {
            Err(self.reject(c, &ans, "success"))
        }
    }

    /// Turns a lost process into the error of a non-check command.
    fn to_error(&self, c: &Command, f: Fail) -> SolverError {
        match f {
            Fail::Err(e) => e,
            Fail::Lost(Reason::Timeout) => SolverError::Unresponsive {
                command: print::command(c),
                waited: self.config.watchdog(),
            },
            Fail::Lost(r) => SolverError::Died {
                command: print::command(c),
                detail: match r {
                    Reason::Crashed(d) => d,
                    other => other.to_string(),
                },
            },
        }
    }

    /// Sends an acknowledged command, restarting the process first if needed. A
    /// process found dead is restarted and the command tried once more. So is a
    /// command the solver refused as "canceled": z3's timer for the query before can
    /// fire after that query has answered and cancel the next command (seen with
    /// millisecond limits), which then had no effect.
    fn ack(&mut self, c: &Command) -> Result<(), SolverError> {
        let (mut tried, mut canceled) = (false, false);
        loop {
            self.ensure_running()?;
            match self.expect_ack(c) {
                Ok(()) => return Ok(()),
                Err(Fail::Lost(Reason::Crashed(_))) if !tried => tried = true,
                Err(Fail::Err(SolverError::Solver { message, .. }))
                    if !canceled && message.ends_with("canceled") =>
                {
                    canceled = true
                }
                Err(f) => {
                    self.flush();
                    return Err(self.to_error(c, f));
                }
            }
        }
    }

    /// Updates the context and the recorded stack after an acknowledged command.
    fn record(&mut self, c: &Command) {
        match c {
            Command::SetLogic(l) => self.context.set_logic(l),
            Command::DeclareConst(n, s) => self.context.declare_const(n.clone(), s.clone()),
            Command::DeclareEnum(n, ctors) => self.context.declare_enum(n.clone(), ctors.clone()),
            Command::DefineFun(f) => self.context.define((**f).clone()),
            Command::Push(n) => {
                // `command` checked the count against MAX_SCOPES, which bounds the frames.
                if self.context.push(*n as usize).is_ok() {
                    for _ in 0..*n {
                        let f = self.new_frame();
                        self.frames.push(f);
                    }
                }
                return;
            }
            Command::Pop(n) => {
                let n = (*n as usize).min(self.depth());
                self.frames.truncate(self.frames.len() - n);
                self.context.pop(n);
                return;
            }
            _ => {}
        }
        let frame = self.frames.last_mut().expect("base frame");
        frame.commands.push(c.clone());
    }

    /// True for a declared Boolean constant or its negation.
    fn is_prop_literal(&self, t: &Term) -> bool {
        match t {
            Term::Var(n, Sort::Bool) => {
                matches!(self.context.get(n), Some(Entry::Const(Sort::Bool)))
            }
            Term::App(Op::Not, args) => args.len() == 1 && self.is_prop_literal(&args[0]),
            _ => false,
        }
    }

    /// The literal sent for each assumption, defining fresh ones where needed.
    fn literals(&mut self, assumptions: &[Term]) -> Result<Vec<Term>, SolverError> {
        let mut out = Vec::with_capacity(assumptions.len());
        for t in assumptions {
            if self.is_prop_literal(t) {
                out.push(t.clone());
                continue;
            }
            if let Some(l) = self.frames.iter().rev().find_map(|f| f.literals.get(t)) {
                out.push(l.clone());
                continue;
            }
            let name: Symbol = Arc::from(format!("{INTERNAL_PREFIX}a{}", self.next_literal));
            self.next_literal += 1;
            let lit = Term::Var(name.clone(), Sort::Bool);
            for c in [
                Command::DeclareConst(name, Sort::Bool),
                Command::Assert(Term::app(Op::Eq, vec![lit.clone(), t.clone()])),
            ] {
                self.ack(&c)?;
                self.record(&c);
            }
            self.frames
                .last_mut()
                .expect("base frame")
                .literals
                .insert(t.clone(), lit.clone());
            out.push(lit);
        }
        Ok(out)
    }

    /// One check; `checked`: its answer is re-checked when the configuration says so.
    fn query(
        &mut self,
        assumptions: Option<&[Term]>,
        checked: bool,
    ) -> Result<Outcome, SolverError> {
        self.model_ready = false;
        self.ensure_running()?;
        let lits = match assumptions {
            Some(a) => self.literals(a)?,
            None => Vec::new(),
        };
        let c = match assumptions {
            Some(_) => Command::CheckSatAssuming(lits.clone()),
            None => Command::CheckSat,
        };
        let r = self.run_query(&c, assumptions, &lits, checked);
        self.flush();
        match r {
            Ok(o) => Ok(o),
            Err(Fail::Lost(reason)) => Ok(Outcome::Unknown(reason)),
            Err(Fail::Err(e)) => Err(e),
        }
    }

    fn run_query(
        &mut self,
        c: &Command,
        assumptions: Option<&[Term]>,
        lits: &[Term],
        checked: bool,
    ) -> Result<Outcome, Fail> {
        let validate = self.config.validate && checked;
        let ans = self.exchange(c)?;
        match ans.as_symbol() {
            Some("sat") => {
                let model = self.fetch_model(assumptions.unwrap_or(&[]))?;
                if validate {
                    self.validate_model(&model, assumptions.unwrap_or(&[]))?;
                    self.last_model = Some(model.clone());
                }
                self.model_ready = true;
                let mut public = model;
                public.values.retain(|k, _| !k.starts_with(INTERNAL_PREFIX));
                Ok(Outcome::Sat(public))
            }
            Some("unsat") => {
                let (core, core_lits) = match assumptions {
                    Some(a) => self.fetch_core(a, lits)?,
                    None => (Vec::new(), Vec::new()),
                };
                if validate {
                    self.confirm_unsat(&core, &core_lits)?;
                }
                Ok(Outcome::Unsat(core))
            }
            Some("unknown") => Ok(Outcome::Unknown(self.reason_unknown()?)),
            _ => Err(self.reject(c, &ans, "sat, unsat or unknown")),
        }
    }

    /// Declared constants the assertions, assumptions and definitions mention.
    fn needed_consts(&self, assumptions: &[Term]) -> Vec<(Symbol, Sort)> {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        let bodies = self.context.defs().map(|d| &d.body);
        for t in self.assertions().chain(assumptions).chain(bodies) {
            for (n, s) in t.free_vars() {
                if matches!(self.context.get(&n), Some(Entry::Const(_))) && seen.insert(n.clone()) {
                    out.push((n, s));
                }
            }
        }
        out
    }

    fn fetch_model(&mut self, assumptions: &[Term]) -> Result<Model, Fail> {
        let c = Command::GetModel;
        let ans = self.exchange(&c)?;
        if error_message(&ans).is_some() {
            return Err(self.reject(&c, &ans, "a model"));
        }
        let mut model = match parse_model(&ans, &self.context) {
            Ok(m) => m,
            Err(e) => return Err(self.protocol(format!("a model ({e})"), &ans)),
        };
        let missing: Vec<Term> = self
            .needed_consts(assumptions)
            .into_iter()
            .filter(|(n, _)| model.get(n).is_none())
            .map(|(n, s)| Term::Var(n, s))
            .collect();
        if !missing.is_empty() {
            let c = Command::GetValue(missing.clone());
            let ans = self.exchange(&c)?;
            if error_message(&ans).is_some() {
                return Err(self.reject(&c, &ans, "values"));
            }
            let values = match parse_values(&ans, &missing, &self.context) {
                Ok(v) => v,
                Err(e) => return Err(self.protocol(format!("values ({e})"), &ans)),
            };
            for (t, v) in missing.iter().zip(values) {
                if let Term::Var(n, _) = t {
                    model.insert(n.clone(), v);
                }
            }
        }
        Ok(model)
    }

    fn validate_model(&self, model: &Model, assumptions: &[Term]) -> Result<(), Fail> {
        let mut ev = Evaluator::new(model, &self.context);
        for t in self.assertions().chain(assumptions) {
            let bad = match ev.eval_bool(t) {
                Ok(true) => continue,
                Ok(false) => print::term(t),
                Err(e) => format!("{} (cannot be evaluated: {e})", print::term(t)),
            };
            return Err(Fail::Err(SolverError::InvalidModel {
                assertion: bad,
                model: model.clone(),
                transcript: self.transcript_path().map(Path::to_path_buf),
            }));
        }
        Ok(())
    }

    /// The assumptions in the solver's core and their literals.
    fn fetch_core(
        &mut self,
        assumptions: &[Term],
        lits: &[Term],
    ) -> Result<(Vec<Term>, Vec<Term>), Fail> {
        let c = Command::GetUnsatAssumptions;
        let ans = self.exchange(&c)?;
        let Some(items) = ans.as_list() else {
            return Err(self.reject(&c, &ans, "a list of assumptions"));
        };
        if error_message(&ans).is_some() {
            return Err(self.reject(&c, &ans, "a list of assumptions"));
        }
        let keys: Vec<String> = lits.iter().map(print::term).collect();
        let mut picked = vec![false; keys.len()];
        for it in items {
            let s = it.to_string();
            let mut found = false;
            for (i, k) in keys.iter().enumerate() {
                if *k == s {
                    picked[i] = true;
                    found = true;
                }
            }
            if !found {
                return Err(self.protocol("one of the assumptions".into(), it));
            }
        }
        let mut core = Vec::new();
        let mut core_lits = Vec::new();
        let mut seen = HashSet::new();
        for (i, p) in picked.iter().enumerate() {
            if *p && seen.insert(&keys[i]) {
                core.push(assumptions[i].clone());
                core_lits.push(lits[i].clone());
            }
        }
        Ok((core, core_lits))
    }

    /// Checks an unsat answer before it is reported: first against models vera can
    /// evaluate itself (the last validated model, and every constant at a default
    /// value), then by a re-check of the core in a separate solver process. An empty
    /// core stands for the assertions alone and is re-checked with `(check-sat)`.
    fn confirm_unsat(&mut self, core: &[Term], core_lits: &[Term]) -> Result<(), Fail> {
        let transcript = self.transcript_path().map(Path::to_path_buf);
        if let Some(witness) = self.refute(core_lits) {
            self.note(&format!(
                "vera: the unsat answer is wrong: every assertion and assumption of the \
                 core holds in {witness}"
            ));
            return Err(Fail::Err(SolverError::InvalidCore {
                core: core.to_vec(),
                transcript,
            }));
        }
        // The second process works on the core while this one re-checks it too.
        let pending = self.start_recheck(core_lits);
        if !core_lits.is_empty() {
            if let Err(f) = self.recheck_here(core, core_lits) {
                // Its answer is not needed: stop it rather than wait.
                self.checker = None;
                return Err(f);
            }
        }
        let answer = pending.and_then(|c| self.finish_recheck(&c));
        if let Some(p) = self
            .checker
            .as_ref()
            .and_then(|c| c.solver.transcript_path())
        {
            let p = p.display().to_string();
            self.note(&format!(
                "vera: the core was re-checked in a separate process ({p})"
            ));
        }
        match answer {
            Ok(a) if a == "unsat" => Ok(()),
            Ok(a) if a == "sat" => Err(Fail::Err(SolverError::InvalidCore {
                core: core.to_vec(),
                transcript,
            })),
            // The second process gave up (its time limit, say): the answer is
            // undecided, as it would be had the first process given up.
            Ok(a) if a == "unknown" => Err(Fail::Lost(Reason::Other(
                "the unsat answer could not be confirmed: the re-check of its core in a \
                 second process answered unknown"
                    .into(),
            ))),
            Ok(a) => Err(Fail::Err(SolverError::UnconfirmedCore {
                core: core.to_vec(),
                detail: format!("the re-check answered {a}"),
                transcript,
            })),
            Err(e) => Err(Fail::Err(SolverError::UnconfirmedCore {
                core: core.to_vec(),
                detail: format!("the re-check failed: {e}"),
                transcript,
            })),
        }
    }

    /// Re-checks a non-empty core on this process, as vera always has. It catches a
    /// solver that cannot reproduce its own core, and it keeps this process's
    /// sequence of queries (and so its later models, which recorded runs and reports
    /// depend on) what it was before the re-check in a second process was added.
    fn recheck_here(&mut self, core: &[Term], core_lits: &[Term]) -> Result<(), Fail> {
        let c = Command::CheckSatAssuming(core_lits.to_vec());
        let ans = self.exchange(&c)?;
        match ans.as_symbol() {
            Some("unsat") => Ok(()),
            Some("sat" | "unknown") => Err(Fail::Err(SolverError::InvalidCore {
                core: core.to_vec(),
                transcript: self.transcript_path().map(Path::to_path_buf),
            })),
            _ => Err(self.reject(&c, &ans, "unsat")),
        }
    }

    /// A model, described, in which every assertion in force and every core literal
    /// holds, if vera can find one by evaluation alone.
    fn refute(&self, core_lits: &[Term]) -> Option<&'static str> {
        let mut candidates = Vec::with_capacity(2);
        if let Some(m) = &self.last_model {
            candidates.push((m.clone(), "the last model the solver gave"));
        }
        candidates.push((Model::new(), "the assignment of default values"));
        for (mut m, what) in candidates {
            for (n, sort) in self.context.consts() {
                if m.get(n).is_none_or(|v| &v.sort() != sort) {
                    m.insert(n.clone(), default_value(sort, &self.context)?);
                }
            }
            // Assumptions that are Boolean constants can be made true directly.
            for l in core_lits {
                match l {
                    Term::Var(n, Sort::Bool) => m.insert(n.clone(), Value::Bool(true)),
                    Term::App(Op::Not, a) => {
                        if let [Term::Var(n, Sort::Bool)] = a.as_slice() {
                            m.insert(n.clone(), Value::Bool(false));
                        }
                    }
                    _ => {}
                }
            }
            // vera's literals for compound assumptions take the value of what they name.
            let mut named = Vec::new();
            {
                let mut ev = Evaluator::new(&m, &self.context);
                for f in &self.frames {
                    for (t, lit) in &f.literals {
                        if let (Term::Var(n, _), Ok(v)) = (lit, ev.eval(t)) {
                            named.push((n.clone(), v));
                        }
                    }
                }
            }
            for (n, v) in named {
                m.insert(n, v);
            }
            let mut ev = Evaluator::new(&m, &self.context);
            let holds = self
                .assertions()
                .chain(core_lits)
                .all(|t| matches!(ev.eval_bool(t), Ok(true)));
            if holds {
                return Some(what);
            }
        }
        None
    }

    /// Starts a re-check of the assertions in force with the given literals assumed,
    /// in the separate re-check process (started on first use and brought up to date
    /// with the commands it has not seen): sends the check and returns it, without
    /// waiting for the answer, so that this process can work meanwhile.
    fn start_recheck(&mut self, lits: &[Term]) -> Result<Command, SolverError> {
        let mut checker = match self.checker.take() {
            Some(c) => c,
            None => {
                let mut config = self.config.clone();
                config.validate = false;
                config.program = Some(self.program.clone());
                config.transcript = self.transcript_path().map(recheck_path);
                Checker {
                    solver: Box::new(Solver::start(&config)?),
                    sync: Vec::new(),
                }
            }
        };
        let r = self
            .sync_checker(&mut checker)
            .and_then(|()| checker.solver.bare_send(lits));
        if r.is_err() {
            // Its state is unknown: start from a clean one next time.
            checker.sync.clear();
        }
        self.checker = Some(checker);
        r
    }

    /// The answer to the check [`Solver::start_recheck`] sent: `sat`, `unsat` or
    /// `unknown` (with a reason when the process died or hung).
    fn finish_recheck(&mut self, c: &Command) -> Result<String, SolverError> {
        let Some(checker) = self.checker.as_mut() else {
            return Err(SolverError::Unsupported(
                "the re-check process is gone".into(),
            ));
        };
        let r = checker.solver.bare_receive(c);
        if r.is_err() {
            checker.sync.clear();
        }
        r
    }

    /// Brings the re-check process to the state of this one: pops the scopes that
    /// differ, then sends the missing commands and scopes.
    ///
    /// A scope of the re-check process stands for a frame of this session if it was
    /// sent that frame (same id) or the same commands so far: per-query scopes are
    /// popped and pushed again with the same content many times in a row (a core
    /// minimization), and are then left in place instead of re-sent.
    fn sync_checker(&self, ck: &mut Checker) -> Result<(), SolverError> {
        let m = &self.frames;
        let mirrors = |ck: &Checker, k: usize| -> bool {
            let (id, sent) = ck.sync[k];
            let f = &m[k];
            sent <= f.commands.len()
                && (id == f.id
                    || ck
                        .solver
                        .frames
                        .get(k)
                        .is_some_and(|cf| cf.commands[..] == f.commands[..sent]))
        };
        let mut keep = 0;
        while keep < ck.sync.len() && keep < m.len() && mirrors(ck, keep) {
            let complete = ck.sync[keep].1 == m[keep].commands.len();
            ck.sync[keep].0 = m[keep].id;
            keep += 1;
            // Commands are added to the top scope only: one that lacks some is the
            // last that can stay.
            if !complete {
                break;
            }
        }
        let c = &mut ck.sync;
        if keep == 0 {
            ck.solver.reset()?;
            c.clear();
            c.push((m[0].id, 0));
        } else if c.len() > keep {
            let n = u32::try_from(c.len() - keep).unwrap_or(u32::MAX);
            ck.solver.command(&Command::Pop(n))?;
            c.truncate(keep);
        }
        let mut level = c.len() - 1;
        loop {
            let frame = &m[level];
            while c[level].1 < frame.commands.len() {
                ck.solver.command(&frame.commands[c[level].1])?;
                c[level].1 += 1;
            }
            level += 1;
            if level >= m.len() {
                return Ok(());
            }
            ck.solver.command(&Command::Push(1))?;
            c.push((m[level].id, 0));
        }
    }

    /// Sends a check whose answer is only read, not validated: `(check-sat)` for no
    /// literals, else `(check-sat-assuming ...)`. [`Solver::bare_receive`] reads it.
    fn bare_send(&mut self, lits: &[Term]) -> Result<Command, SolverError> {
        self.model_ready = false;
        self.ensure_running()?;
        let c = if lits.is_empty() {
            Command::CheckSat
        } else {
            Command::CheckSatAssuming(lits.to_vec())
        };
        match self.send(&c) {
            // A process lost while sending shows in the answer.
            Ok(()) | Err(Fail::Lost(_)) => Ok(c),
            Err(Fail::Err(e)) => Err(e),
        }
    }

    /// The answer to the check [`Solver::bare_send`] sent.
    fn bare_receive(&mut self, c: &Command) -> Result<String, SolverError> {
        let r = self
            .receive(&format!("an answer to `{}`", c.name()))
            .and_then(|ans| match ans.as_symbol() {
                Some(a @ ("sat" | "unsat" | "unknown")) => Ok(a.to_string()),
                _ => Err(self.reject(c, &ans, "sat, unsat or unknown")),
            });
        self.flush();
        match r {
            Ok(a) => Ok(a),
            Err(Fail::Lost(reason)) => Ok(format!("unknown ({reason})")),
            Err(Fail::Err(e)) => Err(e),
        }
    }

    fn reason_unknown(&mut self) -> Result<Reason, Fail> {
        let c = Command::GetInfo("reason-unknown".into());
        let ans = self.exchange(&c)?;
        match ans.as_list() {
            Some([k, v]) if k.kind == SexpKind::Keyword("reason-unknown".into()) => {
                Ok(Reason::from_solver(&atom_text(v)))
            }
            _ => match self.reject(&c, &ans, "(:reason-unknown ...)") {
                Fail::Err(SolverError::Solver { message, .. }) => {
                    Ok(Reason::Other(format!("no reason given ({message})")))
                }
                f => Err(f),
            },
        }
    }
}

/// The binaries that passed the start-up probe in this process, with their driver.
fn probed() -> &'static Mutex<HashSet<(PathBuf, SolverKind)>> {
    static PROBED: OnceLock<Mutex<HashSet<(PathBuf, SolverKind)>>> = OnceLock::new();
    PROBED.get_or_init(Default::default)
}

/// A value of each sort, for the default assignment: `false`, `0`, the first
/// constructor.
pub fn default_value(sort: &Sort, ctx: &Context) -> Option<Value> {
    Some(match sort {
        Sort::Bool => Value::Bool(false),
        Sort::Int => Value::Int(0.into()),
        Sort::Real => Value::Real(num_rational::BigRational::from_integer(0.into())),
        Sort::Enum(e) => match ctx.get(e) {
            Some(Entry::EnumSort(ctors)) => Value::Enum(e.clone(), ctors.first()?.clone()),
            _ => return None,
        },
    })
}

/// The transcript of the re-check process: `dir/stem.recheck.smt2`.
pub(crate) fn recheck_path(main: &Path) -> PathBuf {
    let stem = main
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "transcript".into());
    main.with_file_name(format!("{stem}.recheck.smt2"))
}

impl Drop for Solver {
    fn drop(&mut self) {
        self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::parse_version;

    #[test]
    fn versions() {
        assert_eq!(parse_version("4.13.0"), Some((4, 13)));
        assert_eq!(parse_version("1.0.3"), Some((1, 0)));
        assert_eq!(parse_version("4.8.17 - build hashcode 3f"), Some((4, 8)));
        assert_eq!(parse_version("v2"), Some((2, 0)));
        assert_eq!(parse_version("dev"), None);
    }
}
