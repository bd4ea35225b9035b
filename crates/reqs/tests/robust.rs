//! The spec loader never panics and stays within bounded time on hostile input: random
//! bytes, huge numbers, deep nesting, megabyte strings, broken CSV.

use logic::SourceFile;
use proptest::prelude::*;
use std::time::{Duration, Instant};

fn load(text: &str) {
    let start = Instant::now();
    let _ = reqs::parse_spec(SourceFile::new("h.toml", text));
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "took {:?}",
        start.elapsed()
    );
}

fn load_csv(csv: &str) {
    let schema = SourceFile::new("s.toml", "[[variables]]\nname = \"x\"\nsort = \"Int\"\n");
    let start = Instant::now();
    let _ = reqs::spec::parse_csv(schema, &SourceFile::new("r.csv", csv));
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "took {:?}",
        start.elapsed()
    );
}

fn spec_with(formula: &str, extra: &str) -> String {
    format!(
        "{extra}[[variables]]\nname = \"x\"\nsort = \"Int\"\n[[requirements]]\nid = \"R1\"\ntext = \"t\"\nformula = '''{formula}'''\n"
    )
}

#[test]
fn hostile_specs_are_errors_not_panics() {
    let deep = format!("{}x{}", "(not ".repeat(20_000), ")".repeat(20_000));
    let wide = format!("(and {})", "(> x 1) ".repeat(100_000));
    let big = format!("(> x {})", "9".repeat(200_000));
    let sym = format!("(> {} 1)", "y".repeat(100_000));
    for f in [
        deep.as_str(),
        wide.as_str(),
        big.as_str(),
        sym.as_str(),
        "(((",
        ")))",
        "(! x :named)",
        "(/ x)",
    ] {
        load(&spec_with(f, ""));
    }
    load(&spec_with(
        "(> x 1)",
        &format!(
            "[[variables]]\nname = \"z\"\nsort = \"Int\"\nmin = {}\nmax = 1\n",
            "1".repeat(5000)
        ),
    ));
    load(&spec_with(
        "(> x 1)",
        "[[variables]]\nname = \"z\"\nsort = \"Int\"\nmin = 1e308\nmax = -1e308\n",
    ));
    load(&"[[requirements]]\n".repeat(50_000));
    load(&format!(
        "[[requirements]]\nid = \"{}\"\ntext = \"t\"\n",
        "i".repeat(1 << 20)
    ));
    load("\u{0}\u{1}\u{feff}[[\u{202e}");
    load_csv(&format!("id,text,formula\n{}", "R,\"".repeat(50_000)));
    load_csv(&"\"".repeat(1 << 20));
    load_csv(&format!("id,text,formula\nR1,t,{deep}\n"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..4096)) {
        let text = String::from_utf8_lossy(&bytes);
        load(&text);
        load_csv(&text);
    }

    #[test]
    fn random_formulas_never_panic(f in "[()!a-z0-9 :./<>=+*-]{0,300}") {
        load(&spec_with(&f, ""));
        load_csv(&format!("id,text,formula\nR1,t,\"{f}\"\n"));
    }
}
