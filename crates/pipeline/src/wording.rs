//! How the schema's words read: a variable's description as a noun phrase or as a
//! clause, word stems and opposites. Shared by [`crate::readback`] (formula → English)
//! and [`crate::controlled`] (English → form), so that both read a description the same
//! way.
//!
//! A Boolean variable's description is read in one of three ways:
//!
//! - a *copula clause* with one `is`/`are` ("the cassette door is open"), or a phrase
//!   ending in a predicate word ("left low beam on", "hazard warning switch pressed"),
//!   which reads as "the left low beam is on";
//! - a *verb clause* whose verb ends in `-s` and stands last or before a preposition or
//!   an article ("the alarm sounds", "dialysate bypasses the dialyzer");
//! - anything else is *opaque*: the read-back quotes it whole and negates it with "it is
//!   not the case that", and the parser matches it only with "is true", "holds".
//!
//! A description with a connective, a relative word or another auxiliary ("and", "not",
//! "that", "has", ...) is always opaque: inserting a "not" into it could negate the wrong
//! part.

use reqs::spec::Variable;

/// Articles: dropped when words are matched.
pub(crate) const ARTICLES: &[&str] = &["the", "a", "an"];

/// Prepositions: they end a noun phrase's core ("pressure in the arterial line").
pub(crate) const PREPOSITIONS: &[&str] = &[
    "in", "of", "at", "by", "for", "to", "from", "on", "with", "before", "after", "during",
    "within", "per", "into", "onto", "over", "under", "through", "via", "between",
];

/// Words that keep a description as it is when it is used as a noun phrase.
const DETERMINERS: &[&str] = &[
    "the", "its", "their", "his", "her", "our", "your", "my", "this", "these", "those", "each",
    "every", "any", "all",
];

/// Relative and subordinating words: a description with one is opaque.
const RELATIVES: &[&str] = &[
    "that", "which", "who", "whose", "whom", "where", "when", "while", "if", "because", "unless",
    "until", "whether", "since", "although", "whenever",
];

/// Connectives and negations: a description with one is opaque.
const LOGICAL: &[&str] = &[
    "and", "or", "but", "nor", "not", "no", "never", "neither", "either", "none", "nothing",
    "without", "except", "only",
];

/// Auxiliaries other than `is`/`are`: a description with one is opaque.
const AUXILIARIES: &[&str] = &[
    "was", "were", "has", "have", "had", "can", "could", "will", "would", "shall", "should",
    "must", "may", "might", "does", "do", "did", "been", "being",
];

/// Words that state a condition at the end of a phrase ("... on", "... active").
const PREDICATES: &[&str] = &[
    "on",
    "off",
    "active",
    "inactive",
    "open",
    "closed",
    "pressed",
    "released",
    "enabled",
    "disabled",
    "engaged",
    "disengaged",
    "locked",
    "unlocked",
    "present",
    "absent",
    "ready",
    "full",
    "empty",
    "valid",
    "invalid",
    "available",
    "high",
    "low",
];

/// Past participles without `-ed` that follow a noun ("blood flow set by the operator").
const PARTICIPLES: &[&str] = &[
    "set", "left", "seen", "shown", "given", "known", "held", "kept", "chosen", "taken", "done",
    "found", "sent", "built", "made", "drawn", "worn",
];

/// Opposite predicates, as stems (see [`stem`]).
const ANTONYMS: &[(&str, &str)] = &[
    ("on", "off"),
    ("open", "clos"),
    ("activ", "inactiv"),
    ("enabl", "disabl"),
    ("run", "stop"),
    ("lock", "unlock"),
    ("engag", "disengag"),
    ("present", "absent"),
];

/// True when two stems are opposite predicates.
pub(crate) fn opposite(a: &str, b: &str) -> bool {
    ANTONYMS
        .iter()
        .any(|(x, y)| (a == *x && b == *y) || (a == *y && b == *x))
}

/// A word reduced to a stem for matching: lower case, without `-ing`, `-ed`, `-es`, `-s`
/// and a final `e`, so "closes", "closed", "closing" and "close" share one stem, and
/// "running", "runs" and "run" another. Words with digits or symbols stay as they are.
pub(crate) fn stem(word: &str) -> String {
    let w = word.to_lowercase();
    if w.len() <= 3 || !w.chars().all(|c| c.is_ascii_alphabetic()) {
        return w;
    }
    let undouble = |s: &str| -> String {
        let b = s.as_bytes();
        let n = b.len();
        if n >= 2 && b[n - 1] == b[n - 2] && b"bdgmnprt".contains(&b[n - 1]) {
            s[..n - 1].to_string()
        } else {
            s.to_string()
        }
    };
    let mut s = if let Some(x) = w.strip_suffix("ing").filter(|x| x.len() >= 3) {
        undouble(x)
    } else if let Some(x) = w.strip_suffix("ied").filter(|x| x.len() >= 2) {
        format!("{x}y")
    } else if let Some(x) = w.strip_suffix("ies").filter(|x| x.len() >= 2) {
        format!("{x}y")
    } else if let Some(x) = w
        .strip_suffix("ed")
        .filter(|x| x.len() >= 3 && !w.ends_with("eed"))
    {
        undouble(x)
    } else if let Some(x) = w.strip_suffix("es") {
        if ["s", "x", "z", "ch", "sh"].iter().any(|e| x.ends_with(e)) {
            x.to_string()
        } else {
            format!("{x}e")
        }
    } else if w.ends_with('s') && !["ss", "us", "is"].iter().any(|e| w.ends_with(e)) {
        w[..w.len() - 1].to_string()
    } else {
        w
    };
    if s.len() > 3 && s.ends_with('e') && !s.ends_with("ee") {
        s.pop();
    }
    s
}

/// A text's words for matching: lower case, parenthesized parts left out, hyphens as
/// spaces, punctuation around words removed.
pub(crate) fn match_words(text: &str) -> Vec<String> {
    let mut plain = String::new();
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth > 0 => {}
            '-' => plain.push(' '),
            _ => plain.push(c),
        }
    }
    plain
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| ",.;:!?\"'".contains(c))
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// Stems of the words of `text`, articles left out.
pub(crate) fn stems(text: &str) -> Vec<String> {
    match_words(text)
        .iter()
        .filter(|w| !ARTICLES.contains(&w.as_str()))
        .map(|w| stem(w))
        .collect()
}

fn lower(w: &str) -> String {
    w.trim_matches(|c: char| ",.;:!?\"'".contains(c))
        .to_lowercase()
}

fn predicate_word(w: &str) -> bool {
    PREDICATES.contains(&w)
        || (w.len() >= 5 && w.ends_with("ed") && !w.ends_with("eed"))
        || (w.len() >= 5 && w.ends_with("ing"))
}

fn s_verb(w: &str) -> bool {
    w.len() >= 3
        && w.chars().all(|c| c.is_ascii_lowercase())
        && w.ends_with('s')
        && !["ss", "us", "is", "ous"].iter().any(|e| w.ends_with(e))
}

/// How a Boolean variable's description (or name) reads; the words are the original
/// ones, so the read-back can quote them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reading {
    /// "`subject` is `predicate`" (with `aux` as written), or a phrase "`subject`
    /// `predicate`" with the copula left out (`aux` is `None`).
    Copula {
        /// The subject's words.
        subject: Vec<String>,
        /// `is` / `are` as written, if the description has it.
        aux: Option<String>,
        /// What is said of the subject.
        predicate: Vec<String>,
    },
    /// "`subject` `verb` `rest`", the verb in its `-s` form.
    Verb {
        /// The subject's words.
        subject: Vec<String>,
        /// The verb as written ("sounds").
        verb: String,
        /// The words after the verb.
        rest: Vec<String>,
    },
}

impl Reading {
    /// The subject's words.
    pub(crate) fn subject(&self) -> &[String] {
        match self {
            Reading::Copula { subject, .. } | Reading::Verb { subject, .. } => subject,
        }
    }
}

/// The reading of a Boolean description, or `None` when it is opaque.
pub(crate) fn reading(text: &str) -> Option<Reading> {
    let words: Vec<String> = text.split_whitespace().map(str::to_string).collect();
    if words.is_empty() {
        return None;
    }
    let low: Vec<String> = words.iter().map(|w| lower(w)).collect();
    // Every word of a reading is a plain word (parentheses aside): a description with
    // punctuation inside is read whole.
    let paren = |w: &str| w.starts_with('(') && w.ends_with(')');
    if words
        .iter()
        .any(|w| !paren(w) && w.contains(|c: char| ";:!?\"()[]{}".contains(c)))
    {
        return None;
    }
    if low.iter().any(|w| {
        LOGICAL.contains(&w.as_str())
            || RELATIVES.contains(&w.as_str())
            || AUXILIARIES.contains(&w.as_str())
    }) {
        return None;
    }
    let n = words.len();
    let aux: Vec<usize> = (0..n)
        .filter(|&i| low[i] == "is" || low[i] == "are")
        .collect();
    match aux.as_slice() {
        [] => {}
        [i] if *i >= 1 && *i + 1 < n && !paren(&words[i + 1]) => {
            return Some(Reading::Copula {
                subject: words[..*i].to_vec(),
                aux: Some(words[*i].clone()),
                predicate: words[i + 1..].to_vec(),
            })
        }
        _ => return None,
    }
    let mut k = n;
    while k > 0 && !paren(&words[k - 1]) && predicate_word(&low[k - 1]) {
        k -= 1;
    }
    let subject_words = words[..k].iter().filter(|w| !paren(w)).count();
    if k < n && subject_words >= 1 && !ARTICLES.contains(&low[k - 1].as_str()) {
        return Some(Reading::Copula {
            subject: words[..k].to_vec(),
            aux: None,
            predicate: words[k..].to_vec(),
        });
    }
    let i = (1..n).find(|&i| s_verb(&low[i]))?;
    let next_ok = i + 1 == n || {
        let nx = low[i + 1].as_str();
        PREPOSITIONS.contains(&nx) || ARTICLES.contains(&nx) || nx == "its" || nx == "their"
    };
    if !next_ok || ARTICLES.contains(&low[i - 1].as_str()) {
        return None;
    }
    Some(Reading::Verb {
        subject: words[..i].to_vec(),
        verb: words[i].clone(),
        rest: words[i + 1..].to_vec(),
    })
}

/// True when an opaque description still reads as a clause (it has an auxiliary or an
/// `-s` verb after its first word): the read-back then quotes it as it is.
pub(crate) fn clause_like(text: &str) -> bool {
    let low: Vec<String> = text.split_whitespace().map(lower).collect();
    low.iter().enumerate().any(|(i, w)| {
        w == "is" || w == "are" || AUXILIARIES.contains(&w.as_str()) || (i >= 1 && s_verb(w))
    })
}

/// True when the last word of a noun phrase looks plural ("brake lights").
pub(crate) fn plural(words: &[String]) -> bool {
    words
        .iter()
        .rev()
        .map(|w| lower(w))
        .find(|w| !w.starts_with('('))
        .is_some_and(|w| s_verb(&w))
}

/// The base form of an `-s` verb: "sounds" → "sound", "bypasses" → "bypass",
/// "carries" → "carry", "has" → "have".
pub(crate) fn base_verb(verb: &str) -> String {
    let v = verb.to_string();
    if v.eq_ignore_ascii_case("has") {
        return "have".into();
    }
    if let Some(x) = v.strip_suffix("ies") {
        return format!("{x}y");
    }
    for e in ["sses", "shes", "ches", "xes", "zes", "oes"] {
        if v.ends_with(e) {
            return v[..v.len() - 2].to_string();
        }
    }
    v.strip_suffix('s').map(str::to_string).unwrap_or(v)
}

/// A description used as a noun phrase: kept when it starts with a determiner, "a"/"an"
/// become "the", otherwise "the" is put in front.
pub(crate) fn with_article(words: &[String]) -> String {
    let Some(first) = words.first() else {
        return String::new();
    };
    let f = lower(first);
    if DETERMINERS.contains(&f.as_str()) {
        words.join(" ")
    } else if f == "a" || f == "an" {
        let mut out = vec!["the".to_string()];
        out.extend_from_slice(&words[1..]);
        out.join(" ")
    } else {
        // "Infusion rate" (a description written as a sentence start) reads "the infusion
        // rate"; "ABS valve" and "KeyState" keep their capitals.
        let mut chars = first.chars();
        let sentence_start = chars.next().is_some_and(|c| c.is_uppercase())
            && chars.clone().count() > 0
            && chars.all(|c| c.is_lowercase());
        let mut out = words.to_vec();
        if sentence_start {
            out[0] = first.to_lowercase();
        }
        format!("the {}", out.join(" "))
    }
}

/// A description as it goes into a sentence: trimmed, without a closing full stop.
pub(crate) fn plain_description(d: &str) -> &str {
    d.trim().trim_end_matches('.').trim_end()
}

/// A variable's name as words: underscores as spaces.
pub(crate) fn name_words(v: &Variable) -> String {
    v.name.replace('_', " ")
}

/// How a numeric or enumeration variable is named in a sentence: its description as a
/// noun phrase, or its name with underscores as spaces.
pub(crate) fn noun_phrase(v: &Variable) -> String {
    match v.description.as_deref().map(plain_description) {
        Some(d) if !d.is_empty() => {
            let words: Vec<String> = d.split_whitespace().map(str::to_string).collect();
            with_article(&words)
        }
        _ => name_words(v),
    }
}

/// The words of a description (articles left out) and where its core ends: before the
/// first preposition, relative word or participle after the first word.
fn core_end(text: &str) -> (Vec<String>, Option<usize>) {
    let words: Vec<String> = match_words(text)
        .into_iter()
        .filter(|w| !ARTICLES.contains(&w.as_str()))
        .collect();
    let end = (1..words.len()).find(|&i| {
        let w = words[i].as_str();
        PREPOSITIONS.contains(&w)
            || RELATIVES.contains(&w)
            || PARTICIPLES.contains(&w)
            || (w.len() >= 5 && (w.ends_with("ed") && !w.ends_with("eed") || w.ends_with("ing")))
    });
    (words, end)
}

/// The heads a noun phrase naming this description may end with: the last word of its
/// core (the words before the first preposition, relative word or participle after the
/// first word), and the participle itself when it ends the description ("a sensor
/// reading", "treatment time remaining"). Stems, articles left out.
pub(crate) fn heads(text: &str) -> Vec<String> {
    let (words, end) = core_end(text);
    if words.is_empty() {
        return Vec::new();
    }
    match end {
        None => vec![stem(words.last().expect("not empty"))],
        Some(i) => {
            let mut h = vec![stem(&words[i - 1])];
            let w = words[i].as_str();
            if i + 1 == words.len() && !PREPOSITIONS.contains(&w) && !RELATIVES.contains(&w) {
                h.push(stem(w));
            }
            h
        }
    }
}

/// The stems of a description's core (see [`heads`]) with a participle that ends it: the
/// words that qualify its head noun ("upper arterial pressure alarm limit", "blood flow
/// set"), not those of a phrase after it ("at the dialyzer inlet").
pub(crate) fn core_stems(text: &str) -> Vec<String> {
    let (words, end) = core_end(text);
    let end = match end {
        // A participle that ends the core qualifies it too ("blood flow set by ...").
        Some(i)
            if !PREPOSITIONS.contains(&words[i].as_str())
                && !RELATIVES.contains(&words[i].as_str()) =>
        {
            i + 1
        }
        Some(i) => i,
        None => words.len(),
    };
    words[..end].iter().map(|w| stem(w)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn stems_join_word_forms() {
        for group in [
            &["close", "closes", "closed", "closing"][..],
            &["run", "runs", "running"],
            &["stop", "stops", "stopped", "stopping"],
            &["sound", "sounds", "sounding"],
            &["bypass", "bypasses", "bypassed"],
            &["blink", "blinks", "blinking"],
            &["raise", "raises", "raised"],
            &["see", "sees"],
            &["beam", "beams"],
            &["minute", "minutes"],
            &["press", "pressed", "presses"],
        ] {
            let s = stem(group[0]);
            for w in group {
                assert_eq!(stem(w), s, "{w} vs {}", group[0]);
            }
        }
        assert_ne!(stem("speed"), stem("spe"));
        assert_eq!(stem("mL/min"), "ml/min");
        assert!(opposite(&stem("stopped"), &stem("runs")));
        assert!(opposite(&stem("off"), &stem("on")));
        assert!(!opposite(&stem("on"), &stem("open")));
    }

    #[test]
    fn descriptions_read_as_clauses_or_phrases() {
        assert_eq!(
            reading("the cassette door is open"),
            Some(Reading::Copula {
                subject: words("the cassette door"),
                aux: Some("is".into()),
                predicate: words("open")
            })
        );
        assert_eq!(
            reading("left low beam on"),
            Some(Reading::Copula {
                subject: words("left low beam"),
                aux: None,
                predicate: words("on")
            })
        );
        assert_eq!(
            reading("darkness mode (camouflage) switched on"),
            Some(Reading::Copula {
                subject: words("darkness mode (camouflage)"),
                aux: None,
                predicate: words("switched on")
            })
        );
        assert_eq!(
            reading("the alarm sounds"),
            Some(Reading::Verb {
                subject: words("the alarm"),
                verb: "sounds".into(),
                rest: vec![]
            })
        );
        assert_eq!(
            reading("dialysate bypasses the dialyzer"),
            Some(Reading::Verb {
                subject: words("dialysate"),
                verb: "bypasses".into(),
                rest: words("the dialyzer")
            })
        );
        // Opaque: a verb before an object, connectives, relative words, auxiliaries.
        for d in [
            "the blood leak detector sees blood in the dialysate",
            "an indicator",
            "the door is open and the alarm sounds",
            "the pump that is selected runs",
            "the test has passed",
            "the door is open or is closed",
        ] {
            assert_eq!(reading(d), None, "{d}");
        }
    }

    #[test]
    fn noun_phrases_and_heads() {
        assert_eq!(
            with_article(&words("battery voltage")),
            "the battery voltage"
        );
        assert_eq!(with_article(&words("a level")), "the level");
        assert_eq!(with_article(&words("its limit")), "its limit");
        assert_eq!(heads("pressure in the arterial line"), vec!["pressur"]);
        assert_eq!(heads("blood flow set by the operator"), vec!["flow"]);
        assert_eq!(heads("a sensor reading"), vec!["sensor", "read"]);
        assert_eq!(heads("lower arterial pressure alarm limit"), vec!["limit"]);
        assert_eq!(base_verb("bypasses"), "bypass");
        assert_eq!(base_verb("sounds"), "sound");
        assert_eq!(base_verb("carries"), "carry");
        assert!(plural(&words("brake lights")));
        assert!(!plural(&words("the status")));
    }
}
