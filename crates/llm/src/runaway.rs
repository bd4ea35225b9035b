//! Runaway answers: a small model at temperature 0 can fall into a loop and repeat the
//! same few characters until the token limit (`(and (and (and ...`, `0.00000000...`).
//! [`repeated_tail`] notices such a loop at the end of a text, so that a streamed answer
//! can be stopped as soon as it starts and a cut answer gets feedback that names the loop.

/// A loop at the end of an answer: `unit` repeated `times` times, back to back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repetition {
    /// The repeated piece of text.
    pub unit: String,
    /// How many times it repeats at the end of the text.
    pub times: usize,
}

/// Longest repeated unit looked for, in bytes.
pub const MAX_UNIT: usize = 48;
/// Fewest repetitions that make a loop.
pub const MIN_TIMES: usize = 6;
/// Fewest bytes the repetitions must cover together (so that `))))))` closing a deep
/// but finished term is not a loop).
pub const MIN_SPAN: usize = 64;

/// The loop at the end of `text`, if the text ends with one unit of at most
/// [`MAX_UNIT`] bytes repeated at least [`MIN_TIMES`] times over at least [`MIN_SPAN`]
/// bytes. The shortest such unit is reported. Cost: O([`MAX_UNIT`] × span) per call.
pub fn repeated_tail(text: &str) -> Option<Repetition> {
    let b = text.as_bytes();
    for len in 1..=MAX_UNIT.min(b.len() / MIN_TIMES) {
        let unit = &b[b.len() - len..];
        let mut times = 1;
        while (times + 1) * len <= b.len() && &b[b.len() - (times + 1) * len..][..len] == unit {
            times += 1;
        }
        if times >= MIN_TIMES && times * len >= MIN_SPAN {
            // Report the unit on character boundaries (a unit may cut a multi-byte
            // character; the repetition itself is still exact in bytes).
            let unit = String::from_utf8_lossy(unit).into_owned();
            return Some(Repetition { unit, times });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loops_are_found_and_finished_terms_are_not() {
        let runaway = format!("(=> door_open {}", "(and ".repeat(20));
        let r = repeated_tail(&runaway).expect("a loop");
        assert_eq!((r.unit.as_str(), r.times), ("(and ", 20));
        let zeros = format!("(> rate 0.{}", "0".repeat(80));
        assert_eq!(repeated_tail(&zeros).map(|r| r.unit), Some("0".into()));
        // A deep but closed term ends in many parentheses: not a loop.
        let deep = format!("{}x{}", "(not ".repeat(30), ")".repeat(30));
        assert_eq!(repeated_tail(&deep), None);
        assert_eq!(repeated_tail("(=> (> pressure 300) alarm)"), None);
        assert_eq!(repeated_tail(""), None);
        // Fewer than MIN_TIMES repetitions of a long unit.
        let long = "(and (> a 1) (< b 2)) ".repeat(5);
        assert_eq!(repeated_tail(&long), None);
    }

    #[test]
    fn multi_byte_text_does_not_panic() {
        let t = "é".repeat(100);
        let r = repeated_tail(&t).expect("a loop");
        assert!(r.times >= MIN_TIMES);
        let _ = repeated_tail("ééé(and (and");
    }
}
