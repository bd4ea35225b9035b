//! Throughput of the LLM client against a local OpenAI-compatible test server with an
//! artificial latency of 200 ms per request: 320 requests (64 requirements × 5 samples)
//! at concurrency 1 and 16, then the same 320 from a warm cache.
//!
//! `cargo bench -p llm --bench throughput` (about 70 s, most of it the concurrency-1
//! run). `VERA_BENCH_REQUIREMENTS=8` makes it shorter.

#[path = "../tests/support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use llm::{Cache, Client, HttpSettings, OpenAi, Request};

fn requests(requirements: usize, samples: u32) -> Vec<Request> {
    let mut out = Vec::new();
    for r in 0..requirements {
        for s in 0..samples {
            out.push(
                Request::new()
                    .system("Formalize the requirement as one SMT-LIB term.")
                    .user(format!(
                        "R{r}: if the temperature exceeds {} degrees, the alarm sounds",
                        30 + r
                    ))
                    .temperature(1.0)
                    .max_tokens(64)
                    .sample(s),
            );
        }
    }
    out
}

fn client(server: &support::Server, cache: Cache, concurrency: usize) -> Client {
    let settings = HttpSettings {
        read_timeout: Duration::from_secs(30),
        ..HttpSettings::default()
    };
    let provider = OpenAi::new("openai", &server.url(), "bench", None, settings);
    Client::builder(provider)
        .cache(cache)
        .concurrency(concurrency)
        .build()
}

fn run(label: &str, c: &Client, reqs: &[Request]) -> Duration {
    let t0 = Instant::now();
    let out = c.run_all("bench", reqs);
    let took = t0.elapsed();
    let failed = out.iter().filter(|r| r.is_err()).count();
    assert_eq!(failed, 0, "{label}: {failed} requests failed");
    let acc = c.accounting();
    println!(
        "{label:<28} {:>4} requests  {:>9.3} s  ({} calls, {} cache hits)",
        reqs.len(),
        took.as_secs_f64(),
        acc.total.calls,
        acc.total.cache_hits
    );
    took
}

fn main() {
    let n: usize = std::env::var("VERA_BENCH_REQUIREMENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    let reqs = requests(n, 5);
    let server = support::Server::start(support::echo_openai(Duration::from_millis(200)));
    let dir = std::env::temp_dir().join(format!("vera-llm-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    println!("llm throughput: local server, 200 ms latency per request");
    let c1 = run(
        "cold, concurrency 1",
        &client(&server, Cache::open(dir.join("c1.sqlite")).unwrap(), 1),
        &reqs,
    );
    let warm_path = dir.join("c16.sqlite");
    let c16 = run(
        "cold, concurrency 16",
        &client(&server, Cache::open(&warm_path).unwrap(), 16),
        &reqs,
    );
    let warm = run(
        "warm cache, concurrency 16",
        &client(&server, Cache::open(&warm_path).unwrap(), 16),
        &reqs,
    );
    println!(
        "speed-up 1 → 16: {:.1}×; warm run: {:.1} ms ({:.0}× faster than cold at 16)",
        c1.as_secs_f64() / c16.as_secs_f64(),
        warm.as_secs_f64() * 1e3,
        c16.as_secs_f64() / warm.as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
