//! The one clarification loop of plain and timed specs. What differs between the two
//! is a [`Readings`] (on top of how their texts are screened): the prompt of a
//! rewrite, and the few choices the plain loop makes on top (a follow-up turn after a
//! rewrite that repeats the text or describes the change, the notes of a formula that
//! did not converge, the formula or the pattern a converged proposal carries). The
//! rounds, the rejected rewrites, the proposals and their convergence are written once
//! here.

use super::{clean_text, meta_answer, ClarifyOptions, Proposal, Round};
use crate::ambiguity::{screen_items, selected, Screened, Screens, Texts};
use crate::formalize::PipelineError;
use llm::{Client, Request};
use reqs::equiv::{Checker, Universe};
use reqs::Spec;
use solver::SolverConfig;

/// A rewrite that is not screened.
pub(crate) enum Rejection {
    /// No answer, or one longer than 2000 characters.
    Empty,
    /// The text it was meant to replace, again.
    Unchanged,
    /// It describes the rewrite instead of being one (why).
    Meta(String),
}

impl Rejection {
    /// The reason in the proposal's history.
    pub(crate) fn reason(&self) -> String {
        match self {
            Rejection::Empty => "the answer was empty or longer than 2000 characters".into(),
            Rejection::Unchanged => "the text is unchanged".into(),
            Rejection::Meta(why) => format!("meta-answer: {why}"),
        }
    }
}

/// What tells one kind of reading (formulas over one state, patterns over traces) from
/// the other in the loop.
pub(crate) trait Readings: Screens {
    /// The label of the rewrite requests.
    const LABEL: &'static str;
    /// The label of the follow-up turn, in the same conversation, after a rewrite that
    /// repeats the text or is a meta-answer; `None`: no follow-up, the rewrite is
    /// rejected at once.
    const FOLLOW_UP: Option<&'static str> = None;

    /// The rewrite prompt of a screening.
    fn prompt(spec: &Spec, s: &Self::Screening, samples: u32) -> Result<String, PipelineError>;
    /// The note a rejected rewrite leaves on its proposal (`None`: the note stays) and
    /// whether it ends the requirement's rounds. By default the reason, and it does.
    fn rejected(r: &Rejection) -> (Option<String>, bool) {
        (Some(r.reason()), true)
    }
    /// Why a changed text did not converge, when there is more to say than that it
    /// still has several readings.
    fn unconverged(_s: &Self::Screening, _options: &ClarifyOptions) -> Option<String> {
        None
    }
    /// Writes the single reading of a screening into its proposal (`None` unless converged).
    fn keep_reading(p: &mut Proposal, s: &Self::Screening);
}

/// Runs the loop: screens (unless a screening is given), then clarifies every flagged
/// requirement for up to `options.rounds` rounds. Returns the first screening and the
/// outcome.
pub(crate) fn clarify<K: Readings>(
    spec: &Spec,
    client: &Client,
    solver: &SolverConfig,
    options: &ClarifyOptions,
    screening: Option<K::Report>,
) -> Result<(K::Report, Outcome<K::Screening>), PipelineError> {
    let cx = Context {
        texts: Texts {
            spec,
            client,
            solver,
            options: &options.screening,
        },
        options,
    };
    let universe = Universe::of_spec(spec);
    let mut checker = Checker::new(&universe, solver)?;
    let first = match screening {
        Some(s) => s,
        None => {
            let items = selected(spec, options.screening.only.as_deref())?;
            screen_items::<K>(&cx.texts, &mut checker, &items)?
        }
    };
    // Worked examples stay those of the first screening, so that before and after differ
    // only in the text.
    let skip: Vec<String> = K::screenings(&first)
        .iter()
        .map(|s| s.id().to_string())
        .collect();
    // Current screening of every flagged requirement.
    let current: Vec<K::Screening> = K::screenings(&first)
        .iter()
        .filter(|s| s.flagged())
        .cloned()
        .collect();
    let mut run = Clarifying::<K> {
        proposals: current.iter().map(unclarified).collect(),
        stuck: vec![false; current.len()],
        current,
    };
    let mut flagged_per_round = vec![run.current.len()];
    for _round in 0..options.rounds {
        if !run.round(&cx, &mut checker, &skip)? {
            break;
        }
        flagged_per_round.push(run.current.iter().filter(|s| s.flagged()).count());
    }
    run.conclude(options);
    Ok((
        first,
        Outcome {
            proposals: run.proposals,
            flagged_per_round,
            current: run.current,
        },
    ))
}

/// What the loop leaves.
pub(crate) struct Outcome<S> {
    /// One per flagged requirement.
    pub proposals: Vec<Proposal>,
    /// Flagged count after each round (index 0: before any round).
    pub flagged_per_round: Vec<usize>,
    /// The last screening of every flagged requirement, index for index with the proposals.
    pub current: Vec<S>,
}

/// What every round reads.
struct Context<'a> {
    /// The spec, the model, the solver and the options of a screening.
    texts: Texts<'a>,
    /// The loop's options.
    options: &'a ClarifyOptions,
}

/// The proposal of a flagged requirement before any round: its own text, unclarified.
fn unclarified<S: Screened>(s: &S) -> Proposal {
    Proposal {
        id: s.id().to_string(),
        original: s.text().to_string(),
        clarified: s.text().to_string(),
        rounds: 0,
        classes_before: s.classes(),
        classes_after: s.classes(),
        converged: false,
        accepted: false,
        formula: None,
        pattern: None,
        history: vec![],
        note: None,
    }
}

/// The flagged requirements in the loop, index for index: their current screening,
/// their proposal, and whether asking again is pointless.
struct Clarifying<K: Readings> {
    current: Vec<K::Screening>,
    proposals: Vec<Proposal>,
    /// A requirement whose rewrite was rejected is (mostly) not asked again: the same
    /// evidence would give the same answer.
    stuck: Vec<bool>,
}

impl<K: Readings> Clarifying<K> {
    /// One round over the open requirements; `false` when none was open.
    fn round(
        &mut self,
        cx: &Context,
        checker: &mut Checker,
        skip: &[String],
    ) -> Result<bool, PipelineError> {
        let open: Vec<usize> = (0..self.current.len())
            .filter(|&i| self.current[i].flagged() && !self.stuck[i])
            .collect();
        if open.is_empty() {
            return Ok(false);
        }
        let texts = self.ask_rewrites(cx, &open)?;
        let mut items = Vec::new();
        let mut back = Vec::new();
        for (&i, text) in open.iter().zip(texts) {
            if let Some(t) = self.sort_answer(i, text) {
                items.push((self.current[i].id().to_string(), t));
                back.push(i);
            }
        }
        let screened = K::screen(&cx.texts, checker, &items, skip)?;
        for (i, s) in back.into_iter().zip(screened) {
            self.take_screened(i, s);
        }
        Ok(true)
    }

    /// Asks for a rewrite of each open requirement from its evidence, cleaned.
    fn ask_rewrites(
        &self,
        cx: &Context,
        open: &[usize],
    ) -> Result<Vec<Option<String>>, PipelineError> {
        let mut reqs = Vec::new();
        for &i in open {
            let p = K::prompt(
                cx.texts.spec,
                &self.current[i],
                cx.options.screening.samples,
            )?;
            reqs.push(
                Request::new()
                    .user(p)
                    .temperature(cx.options.temperature)
                    .max_tokens(300),
            );
        }
        let answers = cx.texts.client.run_all(K::LABEL, &reqs);
        let mut texts = Vec::new();
        for a in answers {
            texts.push(match a {
                Ok(c) => clean_text(c.text()),
                Err(e) if e.is_answer_problem() => None,
                Err(e) => return Err(e.into()),
            });
        }
        if let Some(label) = K::FOLLOW_UP {
            self.follow_up(cx.texts.client, label, open, &reqs, &mut texts)?;
        }
        Ok(texts)
    }

    /// Tells the model once when a rewrite repeats the text or describes the change instead.
    fn follow_up(
        &self,
        client: &Client,
        label: &str,
        open: &[usize],
        reqs: &[Request],
        texts: &mut [Option<String>],
    ) -> Result<(), PipelineError> {
        // In the same conversation; a second such answer ends the requirement's rounds.
        let follow_up = |k: usize, t: &Option<String>| -> Option<String> {
            let t = t.as_deref()?;
            let original = self.current[open[k]].text();
            if same_text(t, original) {
                Some(UNCHANGED.to_string())
            } else {
                meta_answer(t, original)
                    .map(|why| format!("{META} The answer was not taken: {why}."))
            }
        };
        let again: Vec<(usize, String)> = (0..open.len())
            .filter_map(|k| follow_up(k, &texts[k]).map(|m| (k, m)))
            .collect();
        if again.is_empty() {
            return Ok(());
        }
        let follow: Vec<Request> = again
            .iter()
            .map(|(k, message)| {
                reqs[*k]
                    .clone()
                    .assistant(texts[*k].clone().unwrap_or_default())
                    .user(message.clone())
            })
            .collect();
        for (&(k, _), a) in again.iter().zip(client.run_all(label, &follow)) {
            texts[k] = match a {
                Ok(c) => clean_text(c.text()),
                Err(e) if e.is_answer_problem() => texts[k].take(),
                Err(e) => return Err(e.into()),
            };
        }
        Ok(())
    }

    /// Counts the round and records an answer that cannot be taken; else the rewrite to screen.
    fn sort_answer(&mut self, i: usize, text: Option<String>) -> Option<String> {
        let current = &self.current[i];
        self.proposals[i].rounds += 1;
        let (rejection, text) = match text {
            None => (Rejection::Empty, String::new()),
            Some(t) if same_text(&t, current.text()) => (Rejection::Unchanged, t),
            Some(t) => match meta_answer(&t, current.text()) {
                Some(why) => (Rejection::Meta(why), t),
                None => return Some(t),
            },
        };
        let (note, stuck) = K::rejected(&rejection);
        let proposal = &mut self.proposals[i];
        proposal.history.push(Round {
            text,
            classes: current.classes(),
            rejected: Some(rejection.reason()),
        });
        if note.is_some() {
            proposal.note = note;
        }
        if stuck {
            self.stuck[i] = true;
        }
        None
    }

    /// Takes the screening of a rewrite as current, unless the rewrite could not be screened.
    fn take_screened(&mut self, i: usize, s: K::Screening) {
        let proposal = &mut self.proposals[i];
        if s.could_not_screen() {
            // Not formalizable: a failed rewrite, never progress. The text it was
            // meant to replace stays current (and counts in the statistics); the
            // same evidence would bring the same answer, so the rounds end.
            let why = format!(
                "failed: only {} of {} formalizations of this rewrite are valid, too few to screen it",
                s.valid(),
                s.samples()
            );
            proposal.history.push(Round {
                text: s.text().to_string(),
                classes: self.current[i].classes(),
                rejected: Some(why.clone()),
            });
            proposal.note = Some(format!("the last rewrite {why}"));
            self.stuck[i] = true;
            return;
        }
        proposal.history.push(Round {
            text: s.text().to_string(),
            classes: s.classes(),
            rejected: None,
        });
        proposal.clarified = s.text().to_string();
        proposal.classes_after = s.classes();
        self.current[i] = s;
    }

    /// Decides which proposals converged to one reading and notes why the others did not.
    fn conclude(&mut self, options: &ClarifyOptions) {
        for (p, s) in self.proposals.iter_mut().zip(&self.current) {
            let changed = !same_text(&p.clarified, &p.original);
            p.converged =
                s.classes() == 1 && p.rounds > 0 && changed && s.valid() >= options.min_valid;
            if p.note.is_none() && !p.converged {
                p.note = Some(if !changed {
                    "no rewrite differs from the original text".into()
                } else if let Some(why) = K::unconverged(s, options) {
                    why
                } else {
                    format!("still {} readings after {} round(s)", s.classes(), p.rounds)
                });
            }
            p.accepted = p.converged;
            K::keep_reading(p, s);
        }
    }
}

/// The follow-up turn after a meta-answer (followed by the reason it was not taken).
const META: &str = "That describes how the requirement should be changed instead of changing it. \
Answer with the rewritten requirement itself, as it would stand in the specification (for \
example \"The pump shall ...\"), not with a sentence about the requirement, its text or its \
readings.";

/// The follow-up turn after a rewrite that repeats the text.
const UNCHANGED: &str = "That is the same text as before, so it still admits the readings above. \
Change the wording so that exactly one of them remains: for example, say whether each \
boundary value is included, or which condition applies when both could. Answer with the \
rewritten requirement text alone.";

/// Equal up to case, whitespace and punctuation.
fn same_text(a: &str, b: &str) -> bool {
    let norm = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    norm(a) == norm(b)
}
