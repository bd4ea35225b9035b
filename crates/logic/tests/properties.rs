//! Property tests: the printer round-trips through the parser, and the evaluator is
//! consistent with the printer (printed literals of values evaluate to themselves).

use logic::testgen::{self, Gen};
use logic::{eval, parse_term, print, Sort, SourceFile};
use proptest::prelude::*;

fn sorts() -> impl Strategy<Value = Sort> {
    prop_oneof![
        Just(Sort::Bool),
        Just(Sort::Int),
        Just(Sort::Real),
        Just(Sort::Enum("Color".into()))
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn print_then_parse_is_identity(seed in any::<u64>(), sort in sorts(), depth in 0usize..6) {
        let ctx = testgen::schema();
        let t = Gen::new(seed).term(&sort, depth);
        let text = print::term(&t);
        let back = parse_term(&SourceFile::new("printed", text.clone()), &ctx)
            .map_err(|d| TestCaseError::fail(format!("{text}\n{d}")))?;
        prop_assert_eq!(&back, &t, "printed: {}", text);
        // Pretty printing only changes layout.
        let pretty = print::term_pretty(&t, 30);
        let back = parse_term(&SourceFile::new("pretty", pretty.clone()), &ctx)
            .map_err(|d| TestCaseError::fail(format!("{pretty}\n{d}")))?;
        prop_assert_eq!(&back, &t);
    }

    #[test]
    fn values_print_as_literals_that_evaluate_to_themselves(seed in any::<u64>(), sort in sorts(), depth in 0usize..5) {
        let ctx = testgen::schema();
        let mut g = Gen::new(seed);
        let t = g.term(&sort, depth);
        let m = testgen::model(g.rng());
        if let Ok(v) = eval(&t, &m, &ctx) {
            prop_assert_eq!(v.sort(), t.sort());
            let lit = print::term(&v.to_term());
            let back = parse_term(&SourceFile::new("value", lit.clone()), &ctx)
                .map_err(|d| TestCaseError::fail(format!("{lit}\n{d}")))?;
            prop_assert_eq!(eval(&back, &m, &ctx).unwrap(), v);
        }
    }
}
