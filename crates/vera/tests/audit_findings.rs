//! What `vera audit` tells a reviewer about the cause of its findings and about the
//! conflicts it lists: a requirement that fixes a variable in every state is named, as a
//! finding of its own and as the cause of the findings it produces elsewhere; capped
//! conflict lists hold the smallest conflicts. Each test runs with z3 and cvc5.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

const SOLVERS: [&str; 2] = ["z3", "cvc5"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs vera from the repository root; returns (code, stdout, stderr).
fn vera(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_vera"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("vera runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn audit_json(spec: &str, solver: &str, extra: &[&str]) -> (i32, serde_json::Value) {
    let mut args = vec!["audit", spec, "--solver", solver, "--format", "json"];
    args.extend_from_slice(extra);
    let (code, out, err) = vera(&args);
    let j = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}\n{out}\n{err}"));
    (code, j)
}

const ELS: &str = "crates/vera/tests/fixtures/els-planted.toml";

#[test]
fn a_formula_that_fixes_an_input_is_named_as_the_culprit() {
    for solver in SOLVERS {
        let (code, j) = audit_json(ELS, solver, &["--no-cache"]);
        assert_eq!(code, 1, "{solver}: findings are exit 1");
        let reqs = j["requirements"].as_array().unwrap();
        let by_id = |id: &str| reqs.iter().find(|r| r["id"] == id).unwrap();
        // ELS-45 fixes subvoltage = true: a finding of its own (an input).
        let fixes = by_id("ELS-45")["fixes"].as_array().expect("ELS-45 fixes");
        assert_eq!(fixes.len(), 1, "{solver}: {fixes:?}");
        assert_eq!(fixes[0]["variable"], "subvoltage");
        assert_eq!(fixes[0]["value"], "true");
        assert_eq!(fixes[0]["kind"], "input");
        assert_eq!(j["summary"]["fixes_a_variable"], 1, "{solver}");
        // Nothing else fixes a variable: ELS-46 only constrains cornerL under its trigger.
        for id in ["ELS-14", "ELS-21", "ELS-30", "ELS-46"] {
            assert!(by_id(id).get("fixes").is_none(), "{solver}: {id}");
        }
        // It is named as the cause of every vacuity and redundancy it produces.
        let causes = j["causes"].as_array().expect("causes");
        for (finding, of) in [
            ("vacuous", "ELS-14"),
            ("vacuous", "ELS-21"),
            ("redundant", "ELS-14"),
        ] {
            assert!(
                causes.iter().any(|c| c["finding"] == finding
                    && c["of"] == of
                    && c["requirement"] == "ELS-45"
                    && c["variable"] == "subvoltage"),
                "{solver}: {finding} {of} not traced to ELS-45: {causes:?}"
            );
        }
        // ELS-30 does not mention subvoltage: no cause is invented for it.
        assert!(causes.iter().all(|c| c["of"] != "ELS-30"), "{solver}");
    }
    // The terminal report says it where the reader looks.
    let (code, out, _) = vera(&["audit", ELS, "--no-cache"]);
    assert_eq!(code, 1);
    assert!(
        out.contains("fixes a variable: its formula fixes subvoltage = true in every state, though it is an input"),
        "{out}"
    );
    assert!(
        out.contains("it is the likely cause of the findings about ELS-14, ELS-21"),
        "{out}"
    );
    assert!(
        out.contains(
            "note: ELS-45 fixes subvoltage = true in every state, which is the likely cause"
        ),
        "{out}"
    );
    // And SARIF carries the finding with its own rule.
    let (_, sarif, _) = vera(&["audit", ELS, "--no-cache", "--format", "sarif"]);
    assert!(sarif.contains("VERA-AUDIT-FIXES-VARIABLE"), "{sarif}");
}

#[test]
fn an_unconditional_requirement_on_an_output_is_recorded_not_flagged() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("heater.toml");
    std::fs::write(
        &spec,
        "[spec]\nname = \"heater\"\nlogic = \"QF_LIA\"\n\n[[variables]]\nname = \"t\"\nsort = \"Int\"\nrole = \"input\"\nmin = 0\nmax = 50\n\n[[variables]]\nname = \"heater\"\nsort = \"Bool\"\nrole = \"output\"\n\n[[variables]]\nname = \"fan\"\nsort = \"Bool\"\nrole = \"output\"\n\n[[requirements]]\nid = \"H1\"\ntext = \"The heater shall be off.\"\nformula = \"(not heater)\"\n\n[[requirements]]\nid = \"H2\"\ntext = \"If the temperature is above 30, the fan shall run.\"\nformula = \"(=> (> t 30) fan)\"\n\n[[requirements]]\nid = \"H3\"\ntext = \"When the temperature is above 45, the fan shall run at once.\"\nformula = \"(and (> t 45) fan)\"\n",
    )
    .unwrap();
    let spec = spec.display().to_string();
    for solver in SOLVERS {
        let (_, j) = audit_json(&spec, solver, &["--no-cache"]);
        let reqs = j["requirements"].as_array().unwrap();
        let by_id = |id: &str| reqs.iter().find(|r| r["id"] == id).unwrap();
        let h1 = by_id("H1")["fixes"].as_array().expect("H1 fixes heater");
        assert_eq!(h1[0]["kind"], "invariant", "{solver}");
        assert!(by_id("H2").get("fixes").is_none(), "{solver}");
        // H3 fixes fan = true (and pins t above 45, an input): a conditional text.
        let h3 = by_id("H3")["fixes"].as_array().expect("H3 fixes fan");
        let fan = h3.iter().find(|f| f["variable"] == "fan").unwrap();
        assert_eq!(fan["kind"], "conditional-text", "{solver}");
        assert_eq!(j["summary"]["fixes_a_variable"], 1, "{solver}: only H3");
    }
}

/// A spec with roles: `threes` groups whose requirements clash for some inputs in a
/// conflict of three, and `fours` groups that clash in a conflict of four. The groups
/// share no variable, so each holds exactly one minimal conflict.
fn realizability_spec(threes: usize, fours: usize) -> String {
    let mut s = String::from("[spec]\nname = \"chains\"\nlogic = \"QF_LIA\"\n");
    let var = |s: &mut String, n: &str, role: &str| {
        let _ = write!(
            s,
            "\n[[variables]]\nname = \"{n}\"\nsort = \"Bool\"\nrole = \"{role}\"\n"
        );
    };
    let req = |s: &mut String, id: &str, f: &str| {
        let _ = write!(
            s,
            "\n[[requirements]]\nid = \"{id}\"\ntext = \"{id}\"\nformula = \"{f}\"\n"
        );
    };
    // Fours first, so that an enumeration in spec order would fill the cap with them.
    for g in 0..fours {
        for (n, role) in [
            ("a", "input"),
            ("b", "input"),
            ("o", "output"),
            ("p", "output"),
            ("q", "output"),
        ] {
            var(&mut s, &format!("{n}4_{g}"), role);
        }
        req(&mut s, &format!("F{g}-1"), &format!("(=> a4_{g} o4_{g})"));
        req(&mut s, &format!("F{g}-2"), &format!("(=> o4_{g} p4_{g})"));
        req(&mut s, &format!("F{g}-3"), &format!("(=> p4_{g} q4_{g})"));
        req(
            &mut s,
            &format!("F{g}-4"),
            &format!("(=> b4_{g} (not q4_{g}))"),
        );
    }
    for g in 0..threes {
        for (n, role) in [
            ("a", "input"),
            ("b", "input"),
            ("o", "output"),
            ("p", "output"),
        ] {
            var(&mut s, &format!("{n}3_{g}"), role);
        }
        req(&mut s, &format!("T{g}-1"), &format!("(=> a3_{g} o3_{g})"));
        req(&mut s, &format!("T{g}-2"), &format!("(=> o3_{g} p3_{g})"));
        req(
            &mut s,
            &format!("T{g}-3"),
            &format!("(=> b3_{g} (not p3_{g}))"),
        );
    }
    s
}

#[test]
fn a_capped_list_of_conflicts_for_some_inputs_holds_the_smallest() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("chains.toml");
    std::fs::write(&spec, realizability_spec(5, 18)).unwrap();
    let spec = spec.display().to_string();
    for solver in SOLVERS {
        // 23 minimal conflicts; the default list stops at 20.
        let (code, j) = audit_json(&spec, solver, &["--no-cache"]);
        assert_eq!(code, 1, "{solver}");
        let r = &j["realizability"];
        assert_eq!(r["status"], "unrealizable", "{solver}: {r}");
        let sizes: Vec<usize> = r["conflicts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["requirements"].as_array().unwrap().len())
            .collect();
        assert_eq!(sizes.len(), 20, "{solver}: {sizes:?}");
        assert_eq!(
            &sizes[..5],
            &[3; 5],
            "{solver}: every 3-conflict first: {sizes:?}"
        );
        assert!(sizes[5..].iter().all(|s| *s == 4), "{solver}: {sizes:?}");
        assert_eq!(r["complete"], false);
        assert_eq!(r["incomplete"]["why"], "cap");
        assert_eq!(r["incomplete"]["listed_up_to"], 3, "{solver}: {r}");
        // --all-conflicts raises the cap: all 23, complete.
        let (_, j) = audit_json(&spec, solver, &["--no-cache", "--all-conflicts", "30"]);
        let r = &j["realizability"];
        assert_eq!(r["conflicts"].as_array().unwrap().len(), 23, "{solver}");
        assert_eq!(r["complete"], true, "{solver}");
    }
    let (_, out, _) = vera(&["audit", &spec, "--no-cache"]);
    assert!(
        out.contains("every conflict of up to 3 requirement(s) is listed; there may be larger ones, their number unknown"),
        "{out}"
    );
}

#[test]
fn a_capped_list_of_global_conflicts_holds_the_smallest() {
    // Three 3-requirement contradictions written first, then two 2-requirement ones.
    let mut s = String::from(
        "[spec]\nname = \"clashes\"\nlogic = \"QF_LIA\"\n\n[[variables]]\nname = \"n\"\nsort = \"Int\"\n",
    );
    for g in 0..3 {
        let _ = write!(
            s,
            "\n[[variables]]\nname = \"x{g}\"\nsort = \"Int\"\n\n[[requirements]]\nid = \"C{g}-1\"\ntext = \"c\"\nformula = \"(> x{g} 5)\"\n\n[[requirements]]\nid = \"C{g}-2\"\ntext = \"c\"\nformula = \"(=> (> x{g} 5) (> x{g} 10))\"\n\n[[requirements]]\nid = \"C{g}-3\"\ntext = \"c\"\nformula = \"(< x{g} 7)\"\n"
        );
    }
    for g in 0..2 {
        let _ = write!(
            s,
            "\n[[variables]]\nname = \"y{g}\"\nsort = \"Int\"\n\n[[requirements]]\nid = \"P{g}-1\"\ntext = \"p\"\nformula = \"(> y{g} 5)\"\n\n[[requirements]]\nid = \"P{g}-2\"\ntext = \"p\"\nformula = \"(< y{g} 2)\"\n"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("clashes.toml");
    std::fs::write(&spec, s).unwrap();
    let spec = spec.display().to_string();
    for solver in SOLVERS {
        let (code, j) = audit_json(&spec, solver, &["--no-cache", "--all-conflicts", "3"]);
        assert_eq!(code, 1, "{solver}");
        let c = &j["consistency"];
        let sizes: Vec<usize> = c["conflicts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_array().unwrap().len())
            .collect();
        assert_eq!(sizes, vec![2, 2, 3], "{solver}: {c}");
        assert_eq!(c["incomplete"]["listed_up_to"], 2, "{solver}: {c}");
        let (_, j) = audit_json(&spec, solver, &["--no-cache", "--all-conflicts", "10"]);
        assert_eq!(j["consistency"]["complete"], true, "{solver}");
        assert_eq!(
            j["consistency"]["conflicts"].as_array().unwrap().len(),
            5,
            "{solver}"
        );
    }
}

#[test]
fn a_horizon_too_long_to_unroll_is_refused_before_any_memory_is_spent() {
    // Two durations of 100,000 s on a 1 s tick: the derived horizon (twice the longest
    // requirement) would unroll 400,004 steps.
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("long.toml");
    std::fs::write(
        &spec,
        "[spec]\nname = \"long\"\n\n[time]\ntick = \"1 s\"\n\n[[variables]]\nname = \"a\"\nsort = \"Bool\"\n\n[[variables]]\nname = \"b\"\nsort = \"Bool\"\n\n[[requirements]]\nid = \"L-1\"\ntext = \"If a has held for 100000 s, b shall hold for 100000 s.\"\n[requirements.timed]\nif = \"a\"\nheld_for = \"100000 s\"\nthen = \"b\"\nfor = \"100000 s\"\n",
    )
    .unwrap();
    let started = std::time::Instant::now();
    let (code, out, err) = vera(&["audit", &spec.display().to_string(), "--timeout", "5"]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(err.contains("too large: the horizon is"), "{err}");
    assert!(err.contains("derived"), "{err}");
    assert!(err.contains("--horizon"), "{err}");
    // Refused at once, not after filling memory.
    assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
}
