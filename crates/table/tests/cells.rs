//! Property tests of the cell parser: printed intervals, amounts and outcomes read back
//! to the same values, in the several ways tables write them; any text at all gives an
//! answer or an error, never a panic.

use num_bigint::BigInt;
use num_rational::BigRational;
use proptest::prelude::*;
use table::cell::{self, Bound, Condition, Interval, Outcome, OutcomeCell};

/// An exact decimal: `units / 10^scale`.
fn amount() -> impl Strategy<Value = BigRational> {
    (any::<i64>(), 0u32..5).prop_map(|(u, scale)| {
        let u = u / 7; // keep room for sums
        BigRational::new(BigInt::from(u), BigInt::from(10).pow(scale))
    })
}

/// How an amount is written.
#[derive(Debug, Clone)]
struct Style {
    thousands: bool,
    prefix: Option<&'static str>,
    suffix: Option<&'static str>,
    dash: &'static str,
}

fn style() -> impl Strategy<Value = Style> {
    (
        any::<bool>(),
        prop_oneof![
            Just(None),
            Just(Some("$")),
            Just(Some("€")),
            Just(Some("USD "))
        ],
        prop_oneof![
            Just(None),
            Just(Some(" EUR")),
            Just(Some(" USD")),
            Just(Some(" lbs"))
        ],
        prop_oneof![
            Just(" - "),
            Just(" – "),
            Just(" — "),
            Just(" to "),
            Just("-")
        ],
    )
        .prop_map(|(thousands, prefix, suffix, dash)| Style {
            thousands,
            prefix,
            suffix,
            dash,
        })
}

fn write_amount(v: &BigRational, s: &Style) -> String {
    let d = cell::decimal(v, 0);
    let (neg, d) = match d.strip_prefix('-') {
        Some(rest) => (true, rest.to_string()),
        None => (false, d),
    };
    let (int, frac) = match d.split_once('.') {
        Some((i, f)) => (i.to_string(), Some(f.to_string())),
        None => (d.clone(), None),
    };
    let int = if s.thousands {
        let digits: Vec<char> = int.chars().collect();
        let mut out = String::new();
        for (k, c) in digits.iter().enumerate() {
            if k > 0 && (digits.len() - k).is_multiple_of(3) {
                out.push(',');
            }
            out.push(*c);
        }
        out
    } else {
        int
    };
    let mut out = String::new();
    if let Some(p) = s.prefix {
        out.push_str(p);
    }
    if neg {
        out.push('-');
    }
    out.push_str(&int);
    if let Some(f) = frac {
        out.push('.');
        out.push_str(&f);
    }
    if let Some(x) = s.suffix {
        out.push_str(x);
    }
    out
}

fn interval() -> impl Strategy<Value = Interval> {
    (
        proptest::option::of((amount(), any::<bool>())),
        proptest::option::of((amount(), any::<bool>())),
    )
        .prop_map(|(lo, hi)| Interval {
            lo: lo.map(|(value, inclusive)| Bound { value, inclusive }),
            hi: hi.map(|(value, inclusive)| Bound { value, inclusive }),
        })
        .prop_filter("non-empty", |i| !i.is_empty())
}

/// The interval in one of the word forms tables use.
fn write_interval(i: &Interval, s: &Style, words: bool) -> String {
    let a = |v: &BigRational| write_amount(v, s);
    match (&i.lo, &i.hi) {
        (None, None) => "any".into(),
        (Some(l), None) => match (l.inclusive, words) {
            (true, true) => format!("{} or more", a(&l.value)),
            (false, true) => format!("more than {}", a(&l.value)),
            (true, false) => format!(">= {}", a(&l.value)),
            (false, false) => format!("> {}", a(&l.value)),
        },
        (None, Some(h)) => match (h.inclusive, words) {
            (true, true) => format!("up to {}", a(&h.value)),
            (false, true) => format!("less than {}", a(&h.value)),
            (true, false) => format!("<= {}", a(&h.value)),
            (false, false) => format!("< {}", a(&h.value)),
        },
        (Some(l), Some(h)) if l.inclusive && h.inclusive && l.value != h.value => {
            if words {
                format!("between {} and {}", a(&l.value), a(&h.value))
            } else {
                format!("{}{}{}", a(&l.value), s.dash, a(&h.value))
            }
        }
        (Some(l), Some(h)) => format!(
            "{} {} and {} {}",
            if l.inclusive { "at least" } else { "over" },
            a(&l.value),
            if h.inclusive { "not over" } else { "under" },
            a(&h.value)
        ),
    }
}

fn read_interval(text: &str) -> Interval {
    match cell::parse_condition(text) {
        Ok(Condition::Interval(i)) => i,
        Ok(Condition::Bare(v)) => Interval::point(v),
        Err(e) => panic!("`{text}`: {} at {}", e.message, e.offset),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn amounts_round_trip(v in amount(), s in style()) {
        let text = write_amount(&v, &s);
        prop_assert_eq!(cell::parse_condition(&text).map_err(|e| e.message), Ok(Condition::Bare(v)), "{}", text);
    }

    #[test]
    fn intervals_round_trip_through_the_printer(i in interval(), d in 0usize..4) {
        let text = cell::interval_text(&i, d);
        prop_assert_eq!(read_interval(&text), i, "{}", text);
    }

    #[test]
    fn intervals_round_trip_in_table_styles(i in interval(), s in style(), words in any::<bool>()) {
        // A dash right after a negative amount's sign is not a range: `-` alone is
        // written with spaces around it.
        prop_assume!(s.dash != "-" || i.lo.as_ref().is_none_or(|b| !cell::is_negative(&b.value)) && i.hi.as_ref().is_none_or(|b| !cell::is_negative(&b.value)));
        let text = write_interval(&i, &s, words);
        prop_assert_eq!(read_interval(&text), i, "{}", text);
    }

    #[test]
    fn outcomes_round_trip(p in amount(), f in amount(), d in 0usize..4) {
        let o = Outcome { percent: p, fixed: f };
        let text = cell::outcome_text(&o, d);
        let back = match cell::parse_outcome(&text) {
            Ok(OutcomeCell::Plain(o)) => o,
            other => panic!("`{text}`: {other:?}"),
        };
        prop_assert_eq!(back, o, "{}", text);
    }

    #[test]
    fn witnesses_lie_in_their_interval(i in interval()) {
        let w = cell::simplest(&i).expect("a non-empty interval has a witness");
        prop_assert!(i.contains(&w));
        for c in cell::candidates(&i) {
            prop_assert!(i.contains(&c));
        }
    }

    #[test]
    fn any_text_is_read_or_refused_without_panic(text in "\\PC{0,40}") {
        let _ = cell::parse_condition(&text);
        let _ = cell::parse_outcome(&text);
        let _ = cell::shape(&text);
    }

    #[test]
    fn table_like_text_is_read_or_refused_without_panic(text in "[0-9 ,.$%<>=–-]{0,30}|(if|then|and|or|more|less|up|to|over|between| |[0-9]|,|%)*") {
        let _ = cell::parse_condition(&text);
        let _ = cell::parse_outcome(&text);
    }

    #[test]
    fn any_bytes_are_a_table_or_an_error(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = table::Table::read("x.csv", &bytes);
    }
}
