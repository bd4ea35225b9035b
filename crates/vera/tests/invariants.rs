//! The rules of ARCHITECTURE.md's "Rules the tests check", checked on the workspace as
//! it is: the dependency table against `cargo metadata`, and the library sources for
//! printing, ending the process and writing files outside `safefile`. Each check is
//! also run on a planted violation, so a check that can no longer fail is noticed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The dependency table between the `dependency-rules` markers: crate → allowed crates
/// (`None`: any).
fn allowed(architecture: &str) -> BTreeMap<String, Option<BTreeSet<String>>> {
    let begin = architecture
        .find("<!-- dependency-rules: begin -->")
        .expect("ARCHITECTURE.md has the dependency rules");
    let end = architecture
        .find("<!-- dependency-rules: end -->")
        .expect("the dependency rules end");
    let mut out = BTreeMap::new();
    for line in architecture[begin..end].lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 4 || !cells[1].starts_with('`') {
            continue;
        }
        let name = cells[1].trim_matches('`').to_string();
        let may = if cells[2] == "every crate" {
            None
        } else {
            Some(
                cells[2]
                    .split(',')
                    .map(|c| c.trim().trim_matches('`').to_string())
                    .filter(|c| !c.is_empty() && c != "—")
                    .collect(),
            )
        };
        out.insert(name, may);
    }
    out
}

/// Each workspace crate's build dependencies on workspace crates.
fn dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let m: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let packages = m["packages"].as_array().unwrap();
    let names: BTreeSet<String> = packages
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect();
    packages
        .iter()
        .map(|p| {
            let deps = p["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["kind"].is_null())
                .map(|d| d["name"].as_str().unwrap().to_string())
                .filter(|d| names.contains(d))
                .collect();
            (p["name"].as_str().unwrap().to_string(), deps)
        })
        .collect()
}

/// The dependencies the table does not allow, and the crates it does not name.
fn dependency_violations(
    rules: &BTreeMap<String, Option<BTreeSet<String>>>,
    deps: &BTreeMap<String, BTreeSet<String>>,
) -> Vec<String> {
    let mut out = Vec::new();
    for (name, uses) in deps {
        match rules.get(name) {
            None => out.push(format!(
                "{name} has no row in ARCHITECTURE.md's dependency rules"
            )),
            Some(None) => {}
            Some(Some(may)) => {
                for d in uses.difference(may) {
                    out.push(format!(
                        "{name} depends on {d}, which its row in ARCHITECTURE.md does not allow"
                    ));
                }
            }
        }
    }
    out
}

/// The lines of a source file outside its tests (everything before the first
/// `#[cfg(test)]`: test modules close the files of this workspace), without comment
/// lines, each with whether it or the line above carries the `// scratch:` mark.
fn library_lines(text: &str) -> Vec<(usize, &str, bool)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if l.trim() == "#[cfg(test)]" {
            break;
        }
        if l.trim_start().starts_with("//") {
            continue;
        }
        let marked = l.contains("// scratch:") || (i > 0 && lines[i - 1].contains("// scratch:"));
        out.push((i + 1, *l, marked));
    }
    out
}

/// What a library line must not do, by rule: (rule, needles).
const PRINTING: &[&str] = &["println!(", "eprintln!(", "print!(", "eprint!(", "dbg!("];
const EXITING: &[&str] = &["process::exit("];
const WRITING: &[&str] = &[
    "fs::write(",
    "File::create(",
    "OpenOptions::new(",
    "fs::copy(",
];

/// Source violations of one file of crate `krate`.
fn source_violations(krate: &str, file: &str, text: &str) -> Vec<String> {
    let binary = krate == "vera";
    let mut out = Vec::new();
    for (n, line, marked) in library_lines(text) {
        let at = format!("{file}:{n}");
        if !binary && PRINTING.iter().any(|p| line.contains(p)) {
            out.push(format!("{at}: a library prints: {}", line.trim()));
        }
        let exits = EXITING.iter().any(|p| line.contains(p));
        if exits && !(binary && file.ends_with("interrupt.rs")) {
            out.push(format!("{at}: ends the process: {}", line.trim()));
        }
        if binary
            && line.contains("ExitCode::from(")
            && !["cli.rs", "main.rs", "servecmd.rs"]
                .iter()
                .any(|f| file.ends_with(f))
        {
            out.push(format!("{at}: makes an exit code: {}", line.trim()));
        }
        if krate != "safefile" && WRITING.iter().any(|p| line.contains(p)) && !marked {
            out.push(format!(
                "{at}: writes a file outside safefile (mark scratch files `// scratch:`): {}",
                line.trim()
            ));
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Every source file of every crate: (crate, path from the root, text).
fn sources() -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(root().join("crates")).unwrap().flatten() {
        let krate = entry.file_name().to_string_lossy().into_owned();
        let mut files = Vec::new();
        let src = entry.path().join("src");
        if src.is_dir() {
            rust_files(&src, &mut files);
        }
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            let shown = f.strip_prefix(root()).unwrap_or(&f).display().to_string();
            out.push((krate.clone(), shown, text));
        }
    }
    out
}

#[test]
fn every_crate_depends_only_on_what_its_row_allows() {
    let architecture = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let rules = allowed(&architecture);
    assert!(rules.len() >= 13, "{rules:?}");
    let violations = dependency_violations(&rules, &dependencies());
    assert!(violations.is_empty(), "{violations:#?}");
}

#[test]
fn no_library_prints_ends_the_process_or_writes_files_on_its_own() {
    let mut violations = Vec::new();
    for (krate, shown, text) in sources() {
        violations.extend(source_violations(&krate, &shown, &text));
    }
    assert!(violations.is_empty(), "{violations:#?}");
}

#[test]
fn a_planted_violation_of_each_rule_is_caught() {
    // A dependency the table does not allow, and a crate the table does not name.
    let rules = allowed(
        "<!-- dependency-rules: begin -->\n| crate | may depend on | because |\n|---|---|---|\n| `logic` | — | x |\n| `reqs` | `logic` | x |\n<!-- dependency-rules: end -->",
    );
    let mut deps = BTreeMap::new();
    deps.insert("logic".to_string(), BTreeSet::from(["reqs".to_string()]));
    deps.insert("reqs".to_string(), BTreeSet::from(["logic".to_string()]));
    deps.insert("newcrate".to_string(), BTreeSet::new());
    let v = dependency_violations(&rules, &deps);
    assert_eq!(v.len(), 2, "{v:?}");
    assert!(v[0].contains("logic depends on reqs"), "{v:?}");
    assert!(v[1].contains("newcrate has no row"), "{v:?}");
    // Printing, ending the process and writing a file in a library, and the binary's
    // exit code made outside its one site.
    let lib = "fn f() {\n    eprintln!(\"debug\");\n    std::process::exit(3);\n    std::fs::write(p, b)?;\n    std::fs::write(q, b)?; // scratch: a log in our own temp folder\n    // scratch: the line below writes into our own temp folder\n    std::fs::write(r, b)?;\n}\n#[cfg(test)]\nmod tests { fn g() { println!(\"fine in tests\"); } }\n";
    let v = source_violations("reqs", "crates/reqs/src/x.rs", lib);
    assert_eq!(v.len(), 3, "{v:#?}");
    assert!(v[0].contains("x.rs:2: a library prints"));
    assert!(v[1].contains("x.rs:3: ends the process"));
    assert!(v[2].contains("x.rs:4: writes a file outside safefile"));
    let bin = "fn run() -> ExitCode { ExitCode::from(7) }\n";
    let v = source_violations("vera", "crates/vera/src/audit.rs", bin);
    assert!(v.iter().any(|x| x.contains("makes an exit code")), "{v:?}");
    assert!(source_violations("vera", "crates/vera/src/cli.rs", bin).is_empty());
}

/// The longest a library function may be, in lines (its signature and body).
const LONGEST_FUNCTION: usize = 150;

/// The functions of a source file longer than [`LONGEST_FUNCTION`] lines, outside
/// `#[cfg(test)]` modules: `file:line: name is N lines`.
fn long_functions(file: &str, text: &str) -> Vec<String> {
    use syn::spanned::Spanned;
    use syn::visit::Visit;
    struct Finder<'a> {
        file: &'a str,
        out: Vec<String>,
    }
    impl Finder<'_> {
        /// From the `fn` keyword to the body's closing brace (doc comments and
        /// attributes are not counted).
        fn measure(&mut self, sig: &syn::Signature, body: &syn::Block) {
            let (start, end) = (sig.fn_token.span.start().line, body.span().end().line);
            let lines = end - start + 1;
            if lines > LONGEST_FUNCTION {
                self.out.push(format!(
                    "{}:{start}: {} is {lines} lines",
                    self.file, sig.ident
                ));
            }
        }
    }
    fn is_test(attrs: &[syn::Attribute]) -> bool {
        attrs.iter().any(|a| {
            a.path().is_ident("test")
                || (a.path().is_ident("cfg")
                    && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test"))
        })
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
            if !is_test(&m.attrs) {
                syn::visit::visit_item_mod(self, m);
            }
        }
        fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
            if !is_test(&f.attrs) {
                self.measure(&f.sig, &f.block);
                syn::visit::visit_item_fn(self, f);
            }
        }
        fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
            self.measure(&f.sig, &f.block);
            syn::visit::visit_impl_item_fn(self, f);
        }
        fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
            if let Some(body) = &f.default {
                self.measure(&f.sig, body);
            }
            syn::visit::visit_trait_item_fn(self, f);
        }
    }
    let parsed = match syn::parse_file(text) {
        Ok(p) => p,
        Err(e) => return vec![format!("{file}: not parsed: {e}")],
    };
    let mut finder = Finder {
        file,
        out: Vec::new(),
    };
    finder.visit_file(&parsed);
    finder.out
}

#[test]
fn no_library_function_is_longer_than_150_lines() {
    let mut long = Vec::new();
    let mut measured = 0;
    for (_, shown, text) in sources().into_iter().filter(|(k, _, _)| k != "vera") {
        long.extend(long_functions(&shown, &text));
        measured += 1;
    }
    assert!(measured > 100, "only {measured} files read");
    assert!(long.is_empty(), "{long:#?}");
}

#[test]
fn a_planted_long_function_is_caught_and_one_in_tests_is_not() {
    let body = "    let x = 1;\n".repeat(LONGEST_FUNCTION);
    let planted = format!(
        "/// Doc.\npub fn short() {{}}\n\nfn long() {{\n{body}}}\n\nstruct S;\nimpl S {{\n    fn method(&self) {{\n{body}    }}\n}}\n\n#[cfg(test)]\nmod tests {{\n    fn helper() {{\n{body}    }}\n}}\n"
    );
    let v = long_functions("crates/x/src/lib.rs", &planted);
    assert_eq!(v.len(), 2, "{v:#?}");
    assert_eq!(v[0], "crates/x/src/lib.rs:4: long is 152 lines");
    assert_eq!(v[1], "crates/x/src/lib.rs:159: method is 152 lines");
}
