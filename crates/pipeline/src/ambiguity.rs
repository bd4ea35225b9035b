//! Ambiguity screening (VeriMed sections 2.1 and 2.2): each requirement is formalized N
//! times at temperature 1.0 (distinct sample indices, so the cache keeps the samples
//! apart); the valid samples are partitioned by bidirectional equivalence under the
//! domain ([`reqs::equiv`]); a requirement with more than one class is flagged
//! ambiguity-sensitive, with one representative per class and the witnesses that
//! separate them, in words.

use crate::formalize::{
    examples, excerpt, requirement_prompt, schema_info, validate_screened, PipelineError, Prompts,
    ValidateError,
};
use llm::{Client, Completion, LlmError, Request};
use reqs::equiv::{Checker, Partition, Universe};
use reqs::Spec;
use serde::Serialize;
use solver::SolverConfig;

/// Options of the screening.
#[derive(Debug, Clone)]
pub struct AmbiguityOptions {
    /// Samples per requirement (default 5).
    pub samples: u32,
    /// Sampling temperature (default 1.0).
    pub temperature: f64,
    /// Worked examples in the prompt (default 2).
    pub examples: usize,
    /// Only these ids.
    pub only: Option<Vec<String>>,
    /// Token limit per answer (`None`, the default here, sends no limit; the command
    /// line sends [`crate::formalize::DEFAULT_MAX_TOKENS`] unless told otherwise).
    pub max_tokens: Option<u32>,
}

impl Default for AmbiguityOptions {
    fn default() -> Self {
        AmbiguityOptions {
            samples: 5,
            temperature: 1.0,
            examples: 2,
            only: None,
            max_tokens: None,
        }
    }
}

/// One sample.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sample {
    /// Its sample index.
    pub index: u32,
    /// The answer (shortened).
    pub answer: String,
    /// The formula as vera read it, when valid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub formula: Option<String>,
    /// Why it is not valid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Its class label, when valid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
}

/// The screening of one requirement (or one text of it).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Screening {
    /// The requirement id.
    pub id: String,
    /// The text screened.
    pub text: String,
    /// The samples.
    pub samples: Vec<Sample>,
    /// Valid samples.
    pub valid: usize,
    /// Classes of the valid samples (none when no sample is valid).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition: Option<Partition>,
    /// More than one class.
    pub flagged: bool,
    /// Fewer than two valid samples: nothing to compare, so the screening says nothing
    /// about ambiguity (a failure, never "one reading").
    pub could_not_screen: bool,
    /// The witnesses in words, one line per distinguishing state.
    pub explanations: Vec<String>,
}

impl Screening {
    /// Number of classes (0 without valid samples).
    pub fn classes(&self) -> usize {
        self.partition.as_ref().map_or(0, |p| p.metrics.classes)
    }
}

/// Totals over a screening run (Fig. 6).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Summary {
    /// Requirements screened.
    pub requirements: usize,
    /// Requirements with at least one valid sample.
    pub screened: usize,
    /// Flagged ambiguity-sensitive.
    pub flagged: usize,
    /// Requirements with fewer than two valid samples (not screened).
    pub could_not_screen: usize,
    /// Samples that were not valid formulas.
    pub invalid_samples: usize,
    /// Pairs of valid samples of one requirement that are equivalent, pooled.
    pub agreeing_pairs: usize,
    /// Pairs of valid samples of one requirement, pooled.
    pub pairs: usize,
    /// Agreeing pairs over all pairs of valid samples, pooled over requirements; `None`
    /// when there is no pair of valid samples to compare.
    pub pairwise_agreement: Option<f64>,
    /// Mean number of classes per requirement with a valid sample.
    pub mean_distinct_encodings: f64,
}

/// The result of [`screen`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AmbiguityReport {
    /// Per requirement, in spec order.
    pub requirements: Vec<Screening>,
    /// Totals.
    pub summary: Summary,
}

/// Totals over screenings.
pub fn summarize(items: &[&Screening]) -> Summary {
    let (mut agree, mut pairs, mut classes, mut with) = (0usize, 0usize, 0usize, 0usize);
    for s in items {
        if let Some(p) = &s.partition {
            agree += p.metrics.agreeing_pairs;
            pairs += p.metrics.pairs;
            classes += p.metrics.classes;
            with += 1;
        }
    }
    Summary {
        requirements: items.len(),
        screened: with,
        flagged: items.iter().filter(|s| s.flagged).count(),
        could_not_screen: items.iter().filter(|s| s.could_not_screen).count(),
        agreeing_pairs: agree,
        pairs,
        invalid_samples: items.iter().map(|s| s.samples.len() - s.valid).sum(),
        pairwise_agreement: (pairs > 0).then(|| agree as f64 / pairs as f64),
        mean_distinct_encodings: if with == 0 {
            0.0
        } else {
            classes as f64 / with as f64
        },
    }
}

/// Screens texts (id, text) with an existing checker: N samples each, partitioned. The
/// worked examples in the prompt come from formalized requirements not in `skip` (the
/// ids of the whole screening run, so that a text screened again later sees the same
/// examples).
pub fn screen_texts(
    spec: &Spec,
    client: &Client,
    checker: &mut Checker,
    items: &[(String, String)],
    skip: &[String],
    options: &AmbiguityOptions,
) -> Result<Vec<Screening>, PipelineError> {
    let prompts = Prompts::builtin();
    let schema = schema_info(spec).render();
    let ex = examples(spec, &prompts, skip, options.examples);
    let grammar = crate::formalize::formula_grammar(spec, client);
    let mut users = Vec::new();
    for (_, text) in items {
        users.push(requirement_prompt(&prompts, &schema, &ex, text)?);
    }
    let reqs = sample_requests(&users, options, |mut r| {
        if let Some(m) = options.max_tokens {
            r = r.max_tokens(m);
        }
        if let Some(g) = &grammar {
            r = r.grammar(g.clone());
        }
        r
    });
    let mut answers = client.run_all("ambiguity", &reqs).into_iter();
    let mut out = Vec::new();
    for (id, text) in items {
        let mut samples = Vec::new();
        let mut terms = Vec::new();
        let mut which = Vec::new();
        let read = read_samples(&mut answers, options.samples, |c| {
            validate_screened(spec, checker, c.text(), text).map(|(t, _)| t)
        })?;
        for (index, answer, result) in read {
            match result {
                Ok(t) => {
                    samples.push(Sample {
                        index,
                        answer,
                        formula: Some(logic::print::term(&t)),
                        error: None,
                        class: None,
                    });
                    which.push(samples.len() - 1);
                    terms.push(t);
                }
                Err(e) => samples.push(Sample {
                    index,
                    answer,
                    formula: None,
                    error: Some(e),
                    class: None,
                }),
            }
        }
        let partition = if terms.is_empty() {
            None
        } else {
            Some(checker.partition(&terms)?)
        };
        let mut explanations = Vec::new();
        if let Some(p) = &partition {
            for (k, &s) in which.iter().enumerate() {
                samples[s].class = Some(p.classes[p.class_of[k]].label.clone());
            }
            for sep in &p.separations {
                for d in [&sep.only_a, &sep.only_b].into_iter().flatten() {
                    explanations.push(d.explanation.clone());
                }
            }
        }
        let flagged = partition.as_ref().is_some_and(|p| p.metrics.classes > 1);
        out.push(Screening {
            id: id.clone(),
            text: text.clone(),
            could_not_screen: terms.len() < 2,
            valid: terms.len(),
            samples,
            partition,
            flagged,
            explanations,
        });
    }
    Ok(out)
}

/// The requests of a screening: `options.samples` of each prompt (one user message
/// each) at the options' temperature, with distinct sample indices so that the cache
/// keeps them apart; `kind` adds what the kind of answer needs (token limit, grammar or
/// schema).
pub(crate) fn sample_requests(
    users: &[String],
    options: &AmbiguityOptions,
    kind: impl Fn(Request) -> Request,
) -> Vec<Request> {
    let mut reqs = Vec::new();
    for user in users {
        for i in 0..options.samples {
            reqs.push(kind(
                Request::new()
                    .user(user.clone())
                    .temperature(options.temperature)
                    .sample(i),
            ));
        }
    }
    reqs
}

/// One sample as [`read_samples`] gives it: its index, its answer (shortened), and what
/// it reads as or why it is not valid.
pub(crate) type SampleRead<T> = (u32, String, Result<T, String>);

/// The `n` samples of one text, taken from a screening's `answers`: each one's index,
/// its answer (shortened) and what `validate` reads in it, or why it is not valid (an
/// answer problem of the client is an invalid sample with its feedback). A provider or
/// solver failure ends the screening.
pub(crate) fn read_samples<T>(
    answers: &mut impl Iterator<Item = Result<Completion, LlmError>>,
    n: u32,
    mut validate: impl FnMut(&Completion) -> Result<T, ValidateError>,
) -> Result<Vec<SampleRead<T>>, PipelineError> {
    let mut out = Vec::new();
    for i in 0..n {
        let Some(a) = answers.next() else {
            return Err(PipelineError::Input(
                "the client returned fewer answers than requests".into(),
            ));
        };
        let (answer, result) = match a {
            Ok(c) => (excerpt(c.text()), validate(&c)),
            Err(e) if e.is_answer_problem() => (
                String::new(),
                Err(ValidateError::Invalid(
                    e.feedback().unwrap_or_else(|| e.to_string()),
                )),
            ),
            Err(e) => return Err(e.into()),
        };
        match result {
            Ok(t) => out.push((i, answer, Ok(t))),
            Err(ValidateError::Invalid(e)) => out.push((i, answer, Err(e))),
            Err(ValidateError::Solver(e)) => return Err(e.into()),
        }
    }
    Ok(out)
}

/// Screens the requirements of `spec` (or those in `options.only`).
pub fn screen(
    spec: &Spec,
    client: &Client,
    solver: &SolverConfig,
    options: &AmbiguityOptions,
) -> Result<AmbiguityReport, PipelineError> {
    screen_run::<Formulas>(&Texts {
        spec,
        client,
        solver,
        options,
    })
}

/// What a screening reads.
pub(crate) struct Texts<'a> {
    /// The spec.
    pub spec: &'a Spec,
    /// The model.
    pub client: &'a Client,
    /// The solver (the timed screening compares patterns with it).
    pub solver: &'a SolverConfig,
    /// How texts are screened.
    pub options: &'a AmbiguityOptions,
}

/// What the screening and clarification loops read of the screening of one text,
/// plain or timed.
pub(crate) trait Screened: Clone {
    /// The requirement id.
    fn id(&self) -> &str;
    /// The text screened.
    fn text(&self) -> &str;
    /// More than one reading.
    fn flagged(&self) -> bool;
    /// Readings (classes) found.
    fn classes(&self) -> usize;
    /// Valid formalizations.
    fn valid(&self) -> usize;
    /// Formalizations asked for.
    fn samples(&self) -> usize;
    /// Too few valid formalizations to compare.
    fn could_not_screen(&self) -> bool;
}

/// How the texts of one kind of spec are screened: formulas over one state
/// ([`Formulas`]) or patterns over traces (`crate::timed`).
pub(crate) trait Screens {
    /// The screening of one text.
    type Screening: Screened;
    /// The screening of a whole run.
    type Report;
    /// The screenings of a run's report.
    fn screenings(report: &Self::Report) -> &[Self::Screening];
    /// The report of a run's screenings (with its totals).
    fn report(requirements: Vec<Self::Screening>) -> Self::Report;
    /// Screens texts (id, text); `skip` are the ids of the whole run (see [`screen_texts`]).
    fn screen(
        cx: &Texts,
        checker: &mut Checker,
        items: &[(String, String)],
        skip: &[String],
    ) -> Result<Vec<Self::Screening>, PipelineError>;
}

/// Screens the selected requirements (`options.only`, else all).
pub(crate) fn screen_run<K: Screens>(cx: &Texts) -> Result<K::Report, PipelineError> {
    let items = selected(cx.spec, cx.options.only.as_deref())?;
    let universe = Universe::of_spec(cx.spec);
    let mut checker = Checker::new(&universe, cx.solver)?;
    screen_items::<K>(cx, &mut checker, &items)
}

/// Screens texts (id, text) as one run, with an existing checker.
pub(crate) fn screen_items<K: Screens>(
    cx: &Texts,
    checker: &mut Checker,
    items: &[(String, String)],
) -> Result<K::Report, PipelineError> {
    let skip: Vec<String> = items.iter().map(|(i, _)| i.clone()).collect();
    Ok(K::report(K::screen(cx, checker, items, &skip)?))
}

/// Formulas over one state: the plain screening.
pub(crate) struct Formulas;

impl Screens for Formulas {
    type Screening = Screening;
    type Report = AmbiguityReport;

    fn screenings(report: &AmbiguityReport) -> &[Screening] {
        &report.requirements
    }

    fn report(requirements: Vec<Screening>) -> AmbiguityReport {
        let summary = summarize(&requirements.iter().collect::<Vec<_>>());
        AmbiguityReport {
            requirements,
            summary,
        }
    }

    fn screen(
        cx: &Texts,
        checker: &mut Checker,
        items: &[(String, String)],
        skip: &[String],
    ) -> Result<Vec<Screening>, PipelineError> {
        screen_texts(cx.spec, cx.client, checker, items, skip, cx.options)
    }
}

impl Screened for Screening {
    fn id(&self) -> &str {
        &self.id
    }
    fn text(&self) -> &str {
        &self.text
    }
    fn flagged(&self) -> bool {
        self.flagged
    }
    fn classes(&self) -> usize {
        Screening::classes(self)
    }
    fn valid(&self) -> usize {
        self.valid
    }
    fn samples(&self) -> usize {
        self.samples.len()
    }
    fn could_not_screen(&self) -> bool {
        self.could_not_screen
    }
}

/// (id, text) of the selected requirements, in spec order.
pub fn selected(
    spec: &Spec,
    only: Option<&[String]>,
) -> Result<Vec<(String, String)>, PipelineError> {
    if let Some(only) = only {
        for id in only {
            if !spec.requirements.iter().any(|r| &r.id == id) {
                return Err(PipelineError::Input(format!("no requirement `{id}`")));
            }
        }
    }
    Ok(spec
        .requirements
        .iter()
        .filter(|r| only.is_none_or(|o| o.contains(&r.id)))
        .map(|r| (r.id.clone(), r.text.clone()))
        .collect())
}
