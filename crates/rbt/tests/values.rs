//! Table cells read back to the values they print, for every value (property test).

use logic::{Sort, Symbol, Value};
use num_bigint::BigInt;
use num_rational::BigRational;
use proptest::prelude::*;

proptest! {
    #[test]
    fn reals_print_and_read_back(n in any::<i64>(), d in 1i64..1_000_000_000) {
        let v = Value::Real(BigRational::new(BigInt::from(n), BigInt::from(d)));
        let cell = rbt::values::show(&v);
        prop_assert_eq!(rbt::values::parse(&cell, &Sort::Real, &[]), Ok(v));
    }

    #[test]
    fn integers_print_and_read_back(n in any::<i128>()) {
        let v = Value::Int(BigInt::from(n));
        let cell = rbt::values::show(&v);
        prop_assert_eq!(rbt::values::parse(&cell, &Sort::Int, &[]), Ok(v));
    }

    #[test]
    fn garbage_is_never_a_value(s in "\\PC{0,20}") {
        let enums = vec![(Symbol::from("P"), vec![Symbol::from("A")])];
        for sort in [Sort::Bool, Sort::Int, Sort::Real, Sort::Enum("P".into())] {
            if let Ok(v) = rbt::values::parse(&s, &sort, &enums) {
                // Whatever reads is a value of the sort that prints back to the same value.
                prop_assert_eq!(v.sort(), sort.clone());
                prop_assert_eq!(rbt::values::parse(&rbt::values::show(&v), &sort, &enums), Ok(v));
            }
        }
    }
}
