//! The round trip driven by the scripted provider: equivalent at once, repaired by the
//! one repair turn, still different after it (budget exhausted), and formalizations that
//! never parse.

mod common;

use common::{client, formalizing, spec, z3};
use pipeline::roundtrip::{
    self, lexical_cosine, parse_formula_answer, Equivalence, RoundTripOptions,
};

fn describe(formula: &str, repair: bool) -> String {
    match (formula, repair) {
        (f, _) if f.contains("(> temp 40") => {
            "If the temperature exceeds 40 degC, the alarm shall be raised.".into()
        }
        ("(=> alarm (not heater))", false) => {
            "While the alarm is active, the heater shall be on.".into()
        }
        ("(=> alarm (not heater))", true) => {
            "While the alarm is active, the heater shall be off.".into()
        }
        _ => "In service mode the temperature stays below 30 degC.".into(),
    }
}

fn formalize(text: &str) -> String {
    match text {
        "If the temperature exceeds 40 degC, the alarm shall be raised." => {
            "(=> (> temp 40) alarm)".into()
        }
        "While the alarm is active, the heater shall be on." => "(=> alarm heater)".into(),
        "While the alarm is active, the heater shall be off." => {
            "Term: (=> alarm (not heater))".into()
        }
        // A boundary slip, inside a code fence.
        _ => "```smt\n(=> (= mode Service) (<= temp 30))\n```".into(),
    }
}

#[test]
fn equivalent_repaired_and_exhausted() {
    let s = spec();
    let (c, seen) = client(|r| {
        if let Some(t) = formalizing(r) {
            return formalize(&t);
        }
        let first = &r.messages[0].content;
        let f = first
            .lines()
            .find_map(|l| l.strip_prefix("Formula: "))
            .unwrap()
            .to_string();
        describe(&f, r.messages.len() > 1)
    });
    let rep = roundtrip::run(&s, &c, &z3(), &RoundTripOptions::default()).unwrap();
    let t = &rep.trips;
    assert_eq!(t.len(), 3);
    assert_eq!(t[0].initial, Some(Equivalence::Equivalent));
    assert_eq!(t[0].repaired, None);
    assert_eq!(t[0].similarity_milli, Some(1000));
    // vera's own read-back of each formula, next to the text, with the share of the
    // text's words it contains.
    for trip in t {
        let reads = trip
            .readback
            .as_deref()
            .expect("every formula is read back");
        assert!(!reads.is_empty());
        assert!(trip.readback_overlap_milli.is_some_and(|m| m <= 1000));
    }
    assert!(
        t[0].readback.as_deref().unwrap().contains("40"),
        "{:?}",
        t[0].readback
    );
    // R2: differs, fixed by the repair turn.
    assert!(matches!(t[1].initial, Some(Equivalence::Differs { .. })));
    assert_eq!(t[1].repaired, Some(Equivalence::Equivalent));
    assert_eq!(
        t[1].reformalized.as_deref(),
        Some("(=> alarm (not heater))")
    );
    assert_eq!(
        t[1].sentence.as_deref(),
        Some("While the alarm is active, the heater shall be off.")
    );
    // R3: the boundary differs at temp = 30 and stays different.
    let Some(Equivalence::Differs { direction, witness }) = &t[2].repaired else {
        panic!("{:?}", t[2])
    };
    assert_eq!(*direction, "other-only");
    assert!(
        witness
            .iter()
            .any(|a| a.variable == "temp" && a.value == "30.0"),
        "{witness:?}"
    );
    assert_eq!(
        (rep.initial.k, rep.after_repair.k, rep.after_repair.n),
        (1, 2, 3)
    );
    assert!(rep.mean_lexical_similarity.unwrap() > 0.5);
    // The repair turn carries the re-formalized formula and the witness; formalization
    // prompts never show the requirement itself as an example.
    let reqs = seen.lock().unwrap();
    let repair = reqs
        .iter()
        .find(|r| r.messages.len() == 3 && r.messages[0].content.contains("Formula: (=> alarm"))
        .unwrap();
    let last = &repair.messages[2].content;
    assert!(
        last.contains("(=> alarm heater)") && last.contains("alarm = true"),
        "{last}"
    );
    for r in reqs.iter().filter(|r| formalizing(r).is_some()) {
        let text = formalizing(r).unwrap();
        if text.starts_with("If the temperature exceeds 40") {
            assert_eq!(
                r.messages[0]
                    .content
                    .matches("If the temperature exceeds 40")
                    .count(),
                1
            );
        }
    }
}

#[test]
fn formalizations_that_never_parse() {
    let s = spec();
    let (c, seen) = client(|r| {
        if formalizing(r).is_some() {
            if r.messages.len() == 1 {
                "(=> (> temp 40)".into()
            } else {
                "(=> (> pressure 40) alarm)".into()
            }
        } else {
            "If the temperature exceeds 40 degC, the alarm shall be raised.".into()
        }
    });
    let rep = roundtrip::run(
        &s,
        &c,
        &z3(),
        &RoundTripOptions {
            selection: pipeline::select::Selection::first(Some(1)),
            repair: true,
            embeddings: None,
        },
    )
    .unwrap();
    let t = &rep.trips[0];
    assert_eq!(t.initial, None);
    assert!(
        t.problem.as_ref().unwrap().contains("pressure"),
        "{:?}",
        t.problem
    );
    assert_eq!((rep.initial.k, rep.initial.n), (0, 1));
    // One describe call, then the formalization and its one format-repair turn.
    let reqs = seen.lock().unwrap();
    assert_eq!(reqs.len(), 3);
    assert!(reqs[2].messages[2]
        .content
        .starts_with("Your previous answer could not be used"));
}

#[test]
fn untrusted_formulas_and_similarity() {
    let s = spec();
    assert!(parse_formula_answer(&s, "(> temp 40)").is_ok());
    assert!(parse_formula_answer(&s, "(> temp 40)) (check-sat").is_err());
    assert!(parse_formula_answer(&s, "(> temp 40)) (assert alarm").is_err());
    assert!(
        parse_formula_answer(&s, "(> temp 40)) (declare-const x Int) (assert (> x 0)").is_err()
    );
    assert!(parse_formula_answer(&s, "").is_err());
    assert!((lexical_cosine("the alarm is raised", "The alarm is raised.") - 1.0).abs() < 1e-9);
    assert_eq!(lexical_cosine("alarm", "heater"), 0.0);
}

/// Scripted embedding content: a bag of lower-cased words hashed into 64 buckets. The
/// real HTTP protocol is tested in the llm crate; this drives the round trip's use.
struct WordEmbeddings(std::sync::Mutex<Vec<Vec<String>>>);

impl llm::Embeddings for WordEmbeddings {
    fn model(&self) -> &str {
        "scripted-words"
    }
    fn embed(&self, texts: &[String]) -> llm::Result<Vec<Vec<f64>>> {
        self.0.lock().unwrap().push(texts.to_vec());
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = vec![0.0; 64];
                for w in t.to_lowercase().split(|c: char| !c.is_alphanumeric()) {
                    if !w.is_empty() {
                        let h = w.bytes().fold(7u64, |h, b| h.wrapping_mul(31) + b as u64);
                        v[(h % 64) as usize] += 1.0;
                    }
                }
                v
            })
            .collect())
    }
}

#[test]
fn embedding_similarity_when_configured() {
    let s = spec();
    let (c, _) = client(|r| {
        if let Some(t) = formalizing(r) {
            return formalize(&t);
        }
        let first = &r.messages[0].content;
        let f = first
            .lines()
            .find_map(|l| l.strip_prefix("Formula: "))
            .unwrap()
            .to_string();
        describe(&f, r.messages.len() > 1)
    });
    let emb = std::sync::Arc::new(WordEmbeddings(Default::default()));
    let opts = RoundTripOptions {
        embeddings: Some(emb.clone()),
        ..RoundTripOptions::default()
    };
    let rep = roundtrip::run(&s, &c, &z3(), &opts).unwrap();
    // One embeddings request: (original text, final sentence) for each of the 3 trips.
    let calls = emb.0.lock().unwrap().clone();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].len(), 6);
    assert_eq!(calls[0][0], s.requirements[0].text);
    assert_eq!(Some(&calls[0][1]), rep.trips[0].sentence.as_ref());
    assert_eq!(rep.embedding_model.as_deref(), Some("scripted-words"));
    let milli: Vec<i32> = rep
        .trips
        .iter()
        .map(|t| t.embedding_similarity_milli.unwrap())
        .collect();
    assert!(milli.iter().all(|m| (0..=1000).contains(m)), "{milli:?}");
    let mean = rep.mean_embedding_similarity.unwrap();
    let expect = milli.iter().map(|m| *m as f64).sum::<f64>() / 3000.0;
    assert!((mean - expect).abs() < 0.002, "{mean} vs {expect}");
    // Without embeddings the fields are absent.
    let plain = roundtrip::run(&s, &c, &z3(), &RoundTripOptions::default()).unwrap();
    assert!(plain.mean_embedding_similarity.is_none());
    assert!(plain
        .trips
        .iter()
        .all(|t| t.embedding_similarity_milli.is_none()));
}

/// A spec whose R2 text says something its formula does not (the formula was written
/// for another requirement).
const FLAG_SPEC: &str = r#"
[[variables]]
name = "temp"
sort = "Real"
unit = "degC"

[[variables]]
name = "alarm"
sort = "Bool"

[[variables]]
name = "display_on"
sort = "Bool"

[[requirements]]
id = "R1"
text = "If the temperature exceeds 40 degC, the alarm shall be raised."
formula = "(=> (> temp 40) alarm)"

[[requirements]]
id = "R2"
text = "The display shall show the time of day."
formula = "(=> (> temp 40) alarm)"

[[requirements]]
id = "R3"
text = "The display shall be on."
formula = "display_on"
"#;

#[test]
fn sentences_that_skip_the_variables_or_drift_are_flagged_even_when_equivalent() {
    let s = reqs::parse_spec(logic::SourceFile::new("flags.toml", FLAG_SPEC)).unwrap();
    let (c, _) = client(|r| {
        if let Some(t) = formalizing(r) {
            return match t.as_str() {
                "Display on." => "display_on".into(),
                _ => "(=> (> temp 40) alarm)".into(),
            };
        }
        let first = &r.messages[0].content;
        let f = first
            .lines()
            .find_map(|l| l.strip_prefix("Formula: "))
            .unwrap();
        if f == "display_on" {
            return "Display on.".into();
        }
        // R1's and R2's formulas are the same, so their prompts (and answers) are too:
        // a sentence that names neither variable.
        "Above the limit, the warning must be given.".into()
    });
    let rep = roundtrip::run(&s, &c, &z3(), &RoundTripOptions::default()).unwrap();
    let t = &rep.trips;
    assert_eq!(t.len(), 3);
    // Equivalent formulas every time: the flags come from the sentences alone.
    assert!(t.iter().all(|t| t.initially_equivalent()), "{t:?}");
    let kinds = |k: usize| t[k].flags.iter().map(|f| f.kind).collect::<Vec<_>>();
    // R1: neither temp nor alarm is mentioned, and the sentence has none of the text's
    // content words, so it drifted too.
    assert_eq!(kinds(0), ["unmentioned-variables", "drift"]);
    assert!(
        t[0].flags[0].message.contains("temp, alarm")
            || t[0].flags[0].message.contains("alarm, temp")
    );
    // R2: same sentence against a text about the display.
    assert_eq!(kinds(1), ["unmentioned-variables", "drift"]);
    // R3: "Display on." names display_on by a word of its name and shares "display".
    assert!(t[2].flags.is_empty(), "{:?}", t[2].flags);
    assert_eq!(rep.flagged, 2);
    assert_eq!(rep.after_repair.k, 3);
    assert!(!t[0].passed() && t[2].passed());
}

#[test]
fn drift_and_variable_mentions_are_measured_as_documented() {
    use pipeline::roundtrip::{content_overlap, sentence_flags, DRIFT_THRESHOLD};
    let s = spec();
    let f = s.requirements[0].formula.clone().unwrap(); // (=> (> temp 40) alarm)
    let text = "If the temperature exceeds 40 degC, the alarm shall be raised.";
    // Content words of the text: temperature, exceeds, 40, degc, alarm, raised; the
    // sentence has temp (a 4-letter prefix of temperature), 40, degc, alarm: 4 of 6.
    let o = content_overlap(text, "When temp is above 40 degC the alarm is on.").unwrap();
    assert!((o - 4.0 / 6.0).abs() < 1e-9, "{o}");
    assert!(sentence_flags(text, &f, "When temp is above 40 degC the alarm is on.").is_empty());
    // Mentions both variables, but about something else entirely: drift only.
    let flags = sentence_flags(
        "The display shall show the time of day.",
        &f,
        "If temp exceeds 40, alarm is set.",
    );
    assert_eq!(flags.len(), 1);
    assert_eq!(flags[0].kind, "drift");
    assert!(flags[0].message.contains("0%"), "{}", flags[0].message);
    // Mentions one variable only.
    let flags = sentence_flags(
        text,
        &f,
        "If the temperature exceeds 40 degC, sound the horn.",
    );
    assert_eq!(flags.len(), 1);
    assert_eq!(flags[0].kind, "unmentioned-variables");
    assert!(
        flags[0].message.contains("mention alarm "),
        "{}",
        flags[0].message
    );
    // The threshold is 25%: one content word of four is enough, none is drift.
    let drift = |sentence: &str| {
        sentence_flags("alarm heater pump valve", &f, sentence)
            .iter()
            .any(|x| x.kind == "drift")
    };
    assert_eq!(
        content_overlap("alarm heater pump valve", "temp alarm"),
        Some(DRIFT_THRESHOLD)
    );
    assert!(!drift("temp alarm"));
    assert!(drift("temp above 40"));
}

#[test]
fn an_enumeration_variable_is_mentioned_through_its_value() {
    use pipeline::roundtrip::sentence_flags;
    let s = spec();
    let f = s.requirements[2].formula.clone().unwrap(); // (=> (= mode Service) (< temp 30))
    let text = "In service mode the temperature stays below 30 degC.";
    assert!(
        sentence_flags(text, &f, "During service the temperature is below 30 degC.").is_empty()
    );
    let flags = sentence_flags(text, &f, "The temperature is below 30 degC.");
    assert_eq!(flags.len(), 1, "{flags:?}");
    assert!(
        flags[0].message.contains("mention mode "),
        "{}",
        flags[0].message
    );
}
