//! Parse + type-check throughput on the largest file of the SMT-LIB set in testdata/smtlib, and on
//! all 150 files together. Prints MB/s. Run: `cargo bench -p logic --bench parse`.

use logic::{parse_script, SourceFile};
use std::path::Path;
use std::time::{Duration, Instant};

fn throughput(name: &str, texts: &[(String, String)]) {
    let bytes: usize = texts.iter().map(|(_, t)| t.len()).sum();
    // Warm up, then run for at least two seconds.
    for (n, t) in texts {
        parse_script(&SourceFile::new(n.clone(), t.clone())).expect("parses");
    }
    let start = Instant::now();
    let mut rounds = 0u64;
    while start.elapsed() < Duration::from_secs(2) {
        for (n, t) in texts {
            let s = parse_script(&SourceFile::new(n.clone(), t.clone())).expect("parses");
            std::hint::black_box(s);
        }
        rounds += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    let mb = (bytes as f64 * rounds as f64) / 1e6;
    println!(
        "{name}: {bytes} bytes x {rounds} rounds in {secs:.2} s = {:.1} MB/s (parse + type-check)",
        mb / secs
    );
}

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/smtlib");
    let mut texts: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("testdata/smtlib is present")
        .map(|e| {
            let p = e.unwrap().path();
            (
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    texts.sort_by_key(|(_, t)| std::cmp::Reverse(t.len()));
    let largest = texts[0].clone();
    let short = Path::new(&largest.0)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .to_string();
    throughput(
        &format!("largest file ({short})"),
        std::slice::from_ref(&largest),
    );
    throughput(&format!("all {} files", texts.len()), &texts);
}
