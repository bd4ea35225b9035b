//! Measure `verify` (cold and warm) and `strength` on the C files under
//! tests/c: `cargo run --release -p acsl --example measure [DIR]`.

use std::path::PathBuf;
use std::time::Instant;

use acsl::{strength, verify, StrengthOptions, WpConfig};

fn main() {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/c"));
    let cache = tempfile::tempdir().expect("temporary directory");
    let cfg = WpConfig {
        cache_dir: Some(cache.path().to_path_buf()),
        ..WpConfig::default()
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    files.sort();
    for pass in ["cold", "warm"] {
        let t = Instant::now();
        let (mut calls, mut hits, mut proved) = (0, 0, 0);
        for f in &files {
            match verify(f, &cfg) {
                Ok(r) => {
                    calls += r.stats.verifier_calls;
                    hits += r.stats.cache_hits;
                    proved += usize::from(r.verdict.is_proved());
                }
                Err(e) => eprintln!("{}: {e}", f.display()),
            }
        }
        println!(
            "verify {pass}: {} files, {proved} proved, {calls} verifier calls, {hits} cache hits, {:.1} s",
            files.len(),
            t.elapsed().as_secs_f64()
        );
    }
    let scfg = WpConfig {
        timeout: 1,
        ..cfg.clone()
    };
    let opts = StrengthOptions::default();
    println!("file | mutants | equivalent | not compiling | rejected | killed | survived | VDR | verifier calls | cache hits | compilations | s");
    let t = Instant::now();
    for f in &files {
        match strength(f, &scfg, &opts) {
            Ok(r) => println!(
                "{} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.1}",
                f.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                r.considered,
                r.equivalent,
                r.not_compiling,
                r.rejected,
                r.killed,
                r.survived,
                r.vdr
                    .map(|v| format!("{v:.2}"))
                    .unwrap_or_else(|| "-".into()),
                r.stats.verifier_calls,
                r.stats.verifier_cache_hits,
                r.stats.compilations,
                r.stats.wall_seconds
            ),
            Err(e) => eprintln!("{}: {e}", f.display()),
        }
    }
    println!("strength total: {:.1} s", t.elapsed().as_secs_f64());
}
