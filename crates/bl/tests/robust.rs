//! Hostile and large inputs for the BL parser and the bounds reader: no panic, and
//! bounded time and memory, on 1 MB inputs, 10,000 levels of nesting, huge numerals,
//! invalid UTF-8 (read lossily, as the command line does) and unbalanced brackets.
//!
//! Memory is measured with a counting allocator (this test binary only) that counts
//! each thread's own allocations, so tests running beside one another do not inflate
//! each other's figures; the checks also take a lock so that timings are their own.

use bl::check::Bounds;
use logic::SourceFile;
use proptest::prelude::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Mutex;
use std::time::{Duration, Instant};

struct Counting;

// Counts are per thread: the test harness runs other tests (and proptest generates
// inputs) on other threads at the same time, and their allocations are not this
// input's. `const` thread-locals of `Cell` allocate nothing, so the allocator may
// use them.
thread_local! {
    static CURRENT: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

fn grew(by: usize) {
    let now = CURRENT.with(|c| {
        let now = c.get().saturating_add(by);
        c.set(now);
        now
    });
    PEAK.with(|p| p.set(p.get().max(now)));
}

fn shrank(by: usize) {
    CURRENT.with(|c| c.set(c.get().saturating_sub(by)));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                shrank(layout.size() - new_size);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// One test at a time, so that the allocation counts are its own.
static SERIAL: Mutex<()> = Mutex::new(());

/// Time allowed for one input. The inputs take well under 3 s each in a debug build;
/// the margin is for a loaded machine. Anything quadratic takes minutes.
const TIME: Duration = Duration::from_secs(8);

/// Memory allowed beyond the input itself, per byte of input, plus a constant.
const MEMORY_PER_BYTE: usize = 64;
const MEMORY_BASE: usize = 8 << 20;

/// Runs `f` on `input` and checks that it neither panics nor takes more than [`TIME`]
/// or allocates more than the memory bound at its peak.
fn bounded<T>(what: &str, input: &str, f: impl FnOnce(&str) -> T) -> T {
    let start_mem = CURRENT.with(Cell::get);
    PEAK.with(|p| p.set(start_mem));
    let t = Instant::now();
    let out = f(input);
    let took = t.elapsed();
    let peak = PEAK.with(Cell::get).saturating_sub(start_mem);
    eprintln!(
        "{what}: {} bytes in {took:?}, {peak} bytes at the peak",
        input.len()
    );
    let limit = MEMORY_BASE + MEMORY_PER_BYTE * input.len();
    assert!(took < TIME, "{what}: {took:?} for {} bytes", input.len());
    assert!(
        peak < limit,
        "{what}: {peak} bytes allocated at the peak for {} bytes of input",
        input.len()
    );
    out
}

/// Parses a program; when it parses, also formats, encodes and runs it (inputs 0),
/// which must not panic either. Returns the rendered errors, if any.
fn parse_all(text: &str) -> Option<String> {
    let f = SourceFile::new("hostile.bl", text);
    match bl::parse(&f) {
        Ok(p) => {
            let _ = bl::warnings(&p, &f).to_string();
            let _ = bl::format::program(&p);
            let _ = bl::encode_text(&p);
            let zeros = p
                .inputs()
                .map(|i| {
                    (
                        i.to_string(),
                        num_rational::BigRational::from_integer(0.into()),
                    )
                })
                .collect();
            let _ = bl::run(&p, &zeros);
            None
        }
        Err(d) => Some(d.to_string()),
    }
}

fn check_bl(what: &str, text: &str) -> Option<String> {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out = bounded(what, text, parse_all);
    if let Some(e) = &out {
        assert!(e.len() < 40_000, "{what}: {} bytes of errors", e.len());
    }
    out
}

fn check_bounds(what: &str, text: &str) -> Option<String> {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out = bounded(what, text, |t| {
        Bounds::from_json("hostile.json", t)
            .err()
            .map(|e| e.to_string())
    });
    if let Some(e) = &out {
        assert!(e.len() < 2_000, "{what}: {} bytes of error", e.len());
        assert!(e.starts_with("hostile.json:"), "{what}: {e}");
    }
    out
}

const MB: usize = 1 << 20;

#[test]
fn bl_deep_nesting_is_an_error_not_a_crash() {
    let n = bl::parse::MAX_DEPTH + 10;
    let parens = format!("let x = {}1{}\n", "(".repeat(n), ")".repeat(n));
    let e = check_bl("100,010 parentheses", &parens).expect("too deep");
    assert!(e.contains("nested more than 100000 levels"), "{e}");
    let ifs = format!(
        "let x = <input>\nlet y = {}0\n",
        "if x < 1 then 1 else ".repeat(n)
    );
    let e = check_bl("100,010 else-ifs", &ifs).expect("too deep");
    assert!(e.contains("nested more than 100000 levels"), "{e}");
    let conds = format!(
        "let x = <input>\nlet y = {}x{}\n",
        "if ".repeat(n),
        " < 1 then 1 else 2".repeat(n)
    );
    let e = check_bl("100,010 ifs in conditions", &conds).expect("too deep");
    assert!(e.contains("nested more than 100000 levels"), "{e}");
    let chain = format!("let x = 1{}\n", " + 1".repeat(MB / 4));
    let e = check_bl("a chain of 262,144 additions", &chain).expect("too deep");
    assert!(e.contains("nested more than 100000 levels"), "{e}");
    // Just inside the limits: parses, encodes and runs.
    let ok = format!(
        "let x = <input>\nlet y = {}0\nlet z = 1{}\n",
        "if x < 1 then 1 else ".repeat(990),
        " * 1".repeat(990)
    );
    assert_eq!(check_bl("990 levels", &ok), None);
}

#[test]
fn bl_unbalanced_brackets() {
    for (what, text) in [
        ("1 MB of `(`", format!("let x = {}", "(".repeat(MB))),
        ("1 MB of `)`", format!("let x = 1{}", ")".repeat(MB))),
        ("`()` pairs", format!("let x = {}", "()".repeat(MB / 2))),
        ("`)(` pairs", format!("let x = 1 {}", ")(".repeat(MB / 2))),
    ] {
        assert!(check_bl(what, &text).is_some(), "{what}");
    }
}

#[test]
fn bl_huge_numerals_and_names() {
    let digits = "7".repeat(MB);
    let e = check_bl("a 1 MB integer", &format!("let x = {digits}\n")).unwrap();
    assert!(e.contains("digits; at most 200"), "{e}");
    let e = check_bl("a 1 MB fraction", &format!("let x = 1.{digits}\n")).unwrap();
    assert!(e.contains("digits; at most 200"), "{e}");
    let e = check_bl("a point and no digits", &format!("let x = {digits}.\n")).unwrap();
    assert!(e.contains("digits"), "{e}");
    // Many numbers at the limit: valid, and exact.
    let big = "9".repeat(100);
    let text = format!(
        "let x = <input>\n{}",
        (0..500)
            .map(|i| format!("let y{i} = x * {big}.{big}\n"))
            .collect::<String>()
    );
    assert_eq!(check_bl("500 numbers of 200 digits", &text), None);
    // A 1 MB name, used before its definition and unknown.
    let name = format!("n{}", "a".repeat(MB));
    let e = check_bl("a 1 MB name", &format!("let x = {name} + m{name}\n")).unwrap();
    assert!(e.contains("unknown identifier"), "{e}");
}

#[test]
fn bl_carriage_returns_and_odd_positions() {
    for text in [
        "let x =\r",
        "let x = 1 +\r\n",
        "let x = 1\rlet y = z\r",
        "\r\r\r",
        "let x = (\r\n\r\n",
        "let x = <input>\r\nlet y = x /\r\n0\r\n",
        "let é = 1",
        "let x = 1 é",
        "let x = 1é\r",
    ] {
        check_bl(&format!("{text:?}"), text);
    }
}

#[test]
fn bl_many_bindings() {
    // 45,000 valid bindings (1 MB), each using the one before.
    let mut text = String::from("let x0 = <input>\n");
    for i in 1..45_000 {
        text.push_str(&format!("let x{i} = x{} + 1\n", i - 1));
    }
    assert!(text.len() > MB);
    assert_eq!(check_bl("45,000 bindings", &text), None);
}

#[test]
fn bl_many_errors() {
    // 30,000 bindings, 30,000 unknown names close to them (the "did you mean" search)
    // and 30,000 rebindings.
    let mut text = String::new();
    for i in 0..30_000 {
        text.push_str(&format!(
            "let v{i} = 1\nlet w{i} = v{i}x + u{i}\nlet v{i} = 2\n"
        ));
    }
    let e = check_bl("90,000 errors", &text).unwrap();
    assert!(e.contains("more diagnostics not shown"), "{e}");
    // 1 MB of unexpected characters and of stray keywords.
    let e = check_bl("1 MB of `!`", &"!".repeat(MB)).unwrap();
    assert!(
        e.contains(&format!("{} errors", MB)),
        "{}",
        &e[e.len() - 200..]
    );
    check_bl("1 MB of `let`", &"let ".repeat(MB / 4)).unwrap();
    check_bl("1 MB of `if`", &format!("let x = {}", "if ".repeat(MB / 3))).unwrap();
    check_bl("empty", "").unwrap();
    check_bl("whitespace", &" \n\t\r".repeat(MB / 4)).unwrap();
}

#[test]
fn bl_invalid_utf8_is_read_lossily() {
    let mut bytes = Vec::new();
    let mut seed = 0x2545_f491_u32;
    while bytes.len() < MB {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        match seed % 7 {
            0 => bytes.extend_from_slice(b"let x = "),
            1 => bytes.push(0xff),
            2 => bytes.extend_from_slice(&[0xe2, 0x82]),
            3 => bytes.extend_from_slice("×≤\u{1b}[2J".as_bytes()),
            _ => bytes.push((seed >> 8) as u8),
        }
    }
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let e = check_bl("1 MB of invalid UTF-8", &text).unwrap();
    assert!(!e.contains('\u{1b}'), "escape characters are escaped");
    // One bad byte in a valid program is located.
    let text = String::from_utf8_lossy(b"let x = <input>\nlet y = x \xff 2\n").into_owned();
    let e = check_bl("one bad byte", &text).unwrap();
    assert!(
        e.starts_with("hostile.bl:2:11: error: unexpected character"),
        "{e}"
    );
    assert!(e.contains("not valid UTF-8"), "{e}");
}

#[test]
fn bounds_hostile_json() {
    for (what, text) in [
        ("1 MB of `[`", "[".repeat(MB)),
        ("1 MB of `]`", "]".repeat(MB)),
        ("1 MB of `{`", "{".repeat(MB)),
        (
            "10,000 nested arrays in an entry",
            format!(
                "[{{\"type\": \"equals\", \"variables\": {}\"x\"{}}}]",
                "[".repeat(10_000),
                "]".repeat(10_000)
            ),
        ),
        (
            "10,000 nested objects",
            format!("[{}{}]", "{\"a\":".repeat(10_000), "}".repeat(10_000)),
        ),
        (
            "a 1 MB integer",
            format!(
                "[{{\"type\": \"ranges\", \"variables\": [\"x\"], \"min\": {}}}]",
                "9".repeat(MB)
            ),
        ),
        (
            "a 1 MB number string",
            format!(
                "[{{\"type\": \"ranges\", \"variables\": [\"x\"], \"min\": \"{}/3\"}}]",
                "9".repeat(MB)
            ),
        ),
        (
            "a huge exponent",
            "[{\"type\": \"ranges\", \"variables\": [\"x\"], \"min\": 1e999999999}]".into(),
        ),
        (
            "a huge exponent in a string",
            "[{\"type\": \"ranges\", \"variables\": [\"x\"], \"min\": \"1e-999999999\"}]".into(),
        ),
        (
            "a 1 MB type",
            format!("[{{\"type\": \"{}\"}}]", "t\\u001b".repeat(MB / 7)),
        ),
        (
            "a 1 MB field name",
            format!("[{{\"type\": \"ranges\", \"{}\": 1}}]", "f".repeat(MB)),
        ),
        (
            "an unterminated string",
            format!("[{{\"type\": \"{}", "s".repeat(MB)),
        ),
        (
            "unbalanced",
            "[{\"type\": \"outputs\", \"variables\": [\"a\", \"b\"]]}".into(),
        ),
        ("empty", String::new()),
        ("1 MB of spaces", " ".repeat(MB)),
    ] {
        assert!(check_bounds(what, &text).is_some(), "{what}");
    }
}

#[test]
fn bounds_large_valid_files() {
    // 15,000 valid entries (1 MB), then the same with one bad entry at the end.
    let entry =
        "{\"type\": \"ranges\", \"variables\": [\"x\"], \"min\": \"1/3\", \"max\": \"1e400\"},\n";
    let mut text = format!("[{}", entry.repeat(15_000));
    text.push_str("{\"type\": \"outputs\", \"variables\": [\"a\", \"b\"]}]");
    assert_eq!(check_bounds("15,000 entries", &text), None);
    let bad = text.replace(
        "{\"type\": \"outputs\", \"variables\": [\"a\", \"b\"]}]",
        "{\"type\": \"outputs\", \"variables\": [\"a\"]}]",
    );
    let e = check_bounds("15,000 entries, the last bad", &bad).unwrap();
    assert!(
        e.starts_with("hostile.json:15001:1: error: entry 15001"),
        "{e}"
    );
    // Invalid UTF-8, read lossily.
    let text =
        String::from_utf8_lossy(b"[{\"type\": \"equals\", \"variables\": [\"a\xff\xfe\", \"b\"]}]")
            .into_owned();
    assert_eq!(check_bounds("invalid UTF-8 in a name", &text), None);
}

/// Token soup: fragments of BL and of garbage, up to a few thousand of them.
fn soup() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("let ".to_string()),
        Just("if ".to_string()),
        Just(" then ".to_string()),
        Just(" else ".to_string()),
        Just("<input>".to_string()),
        Just(" = ".to_string()),
        Just("(".to_string()),
        Just(")".to_string()),
        Just(" + ".to_string()),
        Just(" / ".to_string()),
        Just(" * ".to_string()),
        Just(" - ".to_string()),
        Just(" <= ".to_string()),
        Just(" == ".to_string()),
        Just("\n".to_string()),
        "[a-z][a-z0-9_]{0,6}",
        "[0-9]{1,30}(\\.[0-9]{0,30})?",
        "\\PC{1,3}",
        any::<u8>().prop_map(|b| String::from_utf8_lossy(&[b]).into_owned()),
    ];
    proptest::collection::vec(piece, 0..1_000).prop_map(|v| v.concat())
}

fn json_soup() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("[".to_string()),
        Just("]".to_string()),
        Just("{".to_string()),
        Just("}".to_string()),
        Just(",".to_string()),
        Just(":".to_string()),
        Just("\"type\"".to_string()),
        Just("\"ranges\"".to_string()),
        Just("\"outputs\"".to_string()),
        Just("\"variables\"".to_string()),
        Just("\"min\"".to_string()),
        Just("\"max\"".to_string()),
        Just("\"".to_string()),
        "-?[0-9]{1,40}(\\.[0-9]{1,10})?([eE][-+]?[0-9]{1,12})?",
        "\"[-0-9/.eE]{0,20}\"",
        "\\PC{1,3}",
    ];
    proptest::collection::vec(piece, 0..800).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn bl_token_soup_never_panics(text in soup()) {
        check_bl("token soup", &text);
    }

    #[test]
    fn bounds_json_soup_never_panics(text in json_soup()) {
        let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let t = Instant::now();
        if let Err(e) = Bounds::from_json("soup.json", &text) {
            let e = e.to_string();
            prop_assert!(e.len() < 2_000);
            prop_assert!(e.starts_with("soup.json"), "{}", e);
        }
        prop_assert!(t.elapsed() < TIME);
    }
}
