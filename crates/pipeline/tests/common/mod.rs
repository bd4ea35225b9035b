//! Shared pieces of the pipeline tests: a small spec and a scripted client.
#![allow(dead_code)]

pub mod live;

use llm::{Cache, Client, Request, Response, Scripted};
use std::sync::{Arc, Mutex};

pub const SPEC: &str = r#"
[spec]
name = "toy"

[[enums]]
name = "Mode"
values = ["Off", "Run", "Service"]

[[variables]]
name = "temp"
sort = "Real"
unit = "degC"
min = 0
max = 100

[[variables]]
name = "alarm"
sort = "Bool"

[[variables]]
name = "heater"
sort = "Bool"

[[variables]]
name = "mode"
sort = "Mode"

[[requirements]]
id = "R1"
text = "If the temperature exceeds 40 degC, the alarm shall be raised."
formula = "(=> (> temp 40) alarm)"

[[requirements]]
id = "R2"
text = "While the alarm is active, the heater shall be off."
formula = "(=> alarm (not heater))"

[[requirements]]
id = "R3"
text = "In service mode the temperature stays below 30 degC."
formula = "(=> (= mode Service) (< temp 30))"
"#;

pub fn spec() -> reqs::Spec {
    reqs::parse_spec(logic::SourceFile::new("toy.toml", SPEC)).unwrap()
}

pub fn z3() -> solver::SolverConfig {
    solver::SolverConfig::new(solver::SolverKind::Z3)
}

pub type Seen = Arc<Mutex<Vec<Request>>>;

/// A client whose answers (or errors) come from `f(request, call number)`.
pub fn scripted(
    f: impl Fn(&Request, usize) -> llm::Result<Response> + Send + Sync + 'static,
) -> Client {
    Client::builder(Scripted::from_fn(f))
        .cache(Cache::in_memory().unwrap())
        .concurrency(1)
        .build()
}

/// A client whose answers come from `f(request)`; the requests are kept.
pub fn client(f: impl Fn(&Request) -> String + Send + Sync + 'static) -> (Client, Seen) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s2 = seen.clone();
    let p = Scripted::from_fn(move |r, _| {
        s2.lock().unwrap().push(r.clone());
        Ok(Response::text(f(r)))
    });
    (
        Client::builder(p)
            .cache(Cache::in_memory().unwrap())
            .concurrency(1)
            .build(),
        seen,
    )
}

/// The text after `marker` on its line in the last user message.
pub fn after(r: &Request, marker: &str) -> Option<String> {
    let last = &r.messages.last()?.content;
    last.lines()
        .rev()
        .find_map(|l| l.strip_prefix(marker))
        .map(|s| s.trim().to_string())
}

/// The requirement text of a formalization prompt (first user message).
pub fn formalizing(r: &Request) -> Option<String> {
    let first = &r.messages.first()?.content;
    if !first.contains("Translate the requirement into one SMT-LIB 2 term") {
        return None;
    }
    first
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("Requirement: "))
        .map(str::to_string)
}
