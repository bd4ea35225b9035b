//! Repair feedback in the schema's terms: the answers the local model gave on the
//! labeled pump set (examples/labeled/pump.toml) that failed to parse, and the hint each
//! now carries back to the model.

use logic::SourceFile;
use pipeline::formalize::parse_answer;

fn pump() -> reqs::Spec {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/labeled/pump.toml"
    );
    let text = std::fs::read_to_string(path).expect("labeled pump schema");
    reqs::parse_spec(SourceFile::new("pump.toml", text)).unwrap_or_else(|d| panic!("{d}"))
}

/// The feedback for `answer`, which must be refused.
fn feedback(answer: &str) -> String {
    match parse_answer(&pump(), answer) {
        Ok(t) => panic!("`{answer}` was accepted as {t:?}"),
        Err(e) => e,
    }
}

fn hint(answer: &str) -> String {
    let f = feedback(answer);
    let h = f
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("= hint: "))
        .unwrap_or_else(|| panic!("no hint in {f}"));
    h.to_string()
}

#[test]
fn an_invented_name_is_matched_to_an_enumeration_value() {
    let h = hint("(=> door_open pump_stopped)");
    assert!(h.starts_with("`pump_stopped` is not in the schema"), "{h}");
    assert!(h.contains("perhaps (= mode Stopped)"), "{h}");
    assert!(!h.contains("declare-const"), "{h}");
    assert!(h.contains("mode (Stopped|Basal|Bolus|KVO)"), "{h}");
}

#[test]
fn an_invented_name_without_a_match_lists_the_schema() {
    let h = hint("(=> (not pump_on) (= infusion_rate 0))");
    assert!(h.contains("use only"), "{h}");
    for name in [
        "door_open",
        "occlusion",
        "alarm",
        "infusion_rate",
        "max_rate",
        "vtbi",
    ] {
        assert!(h.contains(name), "{name} missing from {h}");
    }
    assert!(!h.contains("declare-const"), "{h}");
    // `pump` is a word of mode's description, "pumping mode".
    assert!(
        h.contains("perhaps a comparison of `mode` with a value of PumpMode"),
        "{h}"
    );
}

#[test]
fn a_number_used_as_a_condition_is_compared_by_name() {
    let h = hint("(=> (and (not vtbi) (not door_open)) (= mode KVO))");
    assert!(h.contains("`vtbi` is a number"), "{h}");
    assert!(h.contains("(= vtbi 0)"), "{h}");
}

#[test]
fn an_enumeration_value_used_as_a_condition_names_its_variable() {
    let h = hint("(=> (= vtbi 0) KVO)");
    assert!(h.contains("(= mode KVO)"), "{h}");
    let h = hint("(=> mode (= infusion_rate 0))");
    assert!(h.contains("(= mode Stopped)"), "{h}");
}

#[test]
fn an_implication_with_one_argument_offers_its_consequence() {
    let h = hint("(=> (<= infusion_rate max_rate))");
    assert!(h.contains("\"if A then B\""), "{h}");
    assert!(h.ends_with("e.g. (<= infusion_rate max_rate)"), "{h}");
}

#[test]
fn declaring_is_refused_in_the_schemas_terms() {
    let h = hint("(=> (not (declare-const pump_on Int)) (= infusion_rate 0))");
    assert!(h.contains("nothing can be declared"), "{h}");
}

#[test]
fn the_message_and_position_stay_the_elaborators() {
    let f = feedback("(=> door_open pump_stopped)");
    // Line 1, column 15 of the answer as the model wrote it, quoted as it wrote it.
    assert!(
        f.starts_with("answer:1:15: error: undeclared symbol `pump_stopped`"),
        "{f}"
    );
    assert!(f.contains("1 | (=> door_open pump_stopped)\n"), "{f}");
    assert!(!f.contains("assert"), "{f}");
}

#[test]
fn a_condition_and_consequence_in_one_conjunction_are_split() {
    let h = hint("(=> (and door_open (= mode Stopped)))");
    assert!(
        h.ends_with("perhaps (=> door_open (= mode Stopped))"),
        "{h}"
    );
    let h = hint("(=> (and occlusion (= mode Stopped) alarm))");
    assert!(
        h.ends_with("perhaps (=> occlusion (and (= mode Stopped) alarm))"),
        "{h}"
    );
}

#[test]
fn terms_side_by_side_are_named_without_an_assert() {
    let f = feedback("(not alarm) (and door_open)");
    assert!(
        f.starts_with("the answer has 2 terms side by side (`(not alarm)`, `(and door_open)`)"),
        "{f}"
    );
    assert!(!f.contains("assert"), "{f}");
}

#[test]
fn an_unclosed_answer_is_shown_as_written() {
    let f = feedback("(=> door_open (= mode Stopped)");
    assert!(!f.contains("assert"), "{f}");
    assert!(f.contains("(=> door_open (= mode Stopped)"), "{f}");
}

#[test]
fn an_extra_closing_parenthesis_is_the_answers() {
    let f = feedback("(=> door_open (= mode Stopped)))");
    assert!(
        f.starts_with("answer:1:32: error: the answer closes more parentheses than it opens"),
        "{f}"
    );
    assert!(f.contains("1 | (=> door_open (= mode Stopped)))\n"), "{f}");
}

#[test]
fn a_multi_line_answer_keeps_its_lines() {
    let f = feedback("(and (> vtbi 0)\n  (not vtbi))");
    assert!(f.starts_with("answer:2:8: error: sort mismatch"), "{f}");
    assert!(f.contains("2 |   (not vtbi))"), "{f}");
}

#[test]
fn formalization_prompts_say_how_each_sort_is_written() {
    let notes = pipeline::formalize::reading_notes(&pump());
    assert_eq!(
        notes,
        "\nHow to write them (no other names exist):\n\
         - mode holds one of Stopped, Basal, Bolus, KVO; a state such as Stopped is written (= mode Stopped).\n\
         - infusion_rate, max_rate, vtbi are numbers: compare them, e.g. (= infusion_rate 0) or (> infusion_rate 0), never use them as conditions.\n\
         - door_open, occlusion, alarm are conditions (true or false) by themselves.\n"
    );
}

#[test]
fn a_negated_comparison_without_its_equals_sign() {
    let h = hint("(=> (not mode Stopped) (= infusion_rate 0))");
    assert!(h.ends_with("write (not (= mode Stopped))"), "{h}");
    let h = hint("(not vtbi 0)");
    assert!(h.ends_with("write (not (= vtbi 0))"), "{h}");
}

#[test]
fn a_term_closed_early_is_said_so() {
    let f = feedback("(=> (or occlusion (not (= mode Stopped)))) alarm)");
    assert!(
        f.contains("the parentheses close the term before its end"),
        "{f}"
    );
    assert!(!f.contains("assert"), "{f}");
}
