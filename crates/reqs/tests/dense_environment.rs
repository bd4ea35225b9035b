//! Conflicts the environment can force in dense time (realizability over time): after
//! a run every requirement allows, the environment chooses the next inputs so that a
//! set of requirements has no common next step whatever the system chooses, while
//! other inputs leave one. Small specs in Ultimate's `.req` syntax (`Input` and
//! `Output` declarations give the roles) with known answers, on z3.

mod dense;
use dense::audit;
use reqs::timed::dense::audit::{DenseEnvironment, DenseReport, Reach};

/// Per set asked about: its requirements and "forced after N" (a run of N intervals
/// shown), "free (proved)" or what else its answer is.
fn verdicts(r: &DenseReport) -> Vec<(String, String)> {
    let DenseEnvironment::Checked { checks, .. } = &r.environment else {
        panic!("not checked: {:?}", r.environment)
    };
    checks
        .iter()
        .map(|c| {
            let v = match &c.dead_end {
                Reach::Reachable { intervals, trace } => {
                    assert_eq!(trace.rows.is_empty(), *intervals == 0, "a run is shown");
                    format!("forced after {intervals}")
                }
                Reach::Unreachable { proved: true, .. } => "free (proved)".into(),
                other => format!("{other:?}"),
            };
            (c.requirements.join(","), v)
        })
        .collect()
}

fn expect(text: &str, want: &[(&str, &str)]) {
    let r = audit(text);
    assert!(
        r.rt_inconsistent().is_empty(),
        "no rt-inconsistency: {text}"
    );
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(verdicts(&r), want, "{text}");
}

#[test]
fn two_invariants_that_demand_opposite_outputs_for_one_input() {
    expect(
        "Input a is bool\nOutput b is bool\n\
         R1: Globally, it is always the case that \"b\" holds.\n\
         R2: Globally, it is always the case that if \"a\" holds then \"!b\" holds as well.\n",
        &[("R1,R2", "forced after 1")],
    );
}

#[test]
fn a_deadline_the_environment_can_take_away() {
    // a for 2 s with b false: R1 now demands b, and the environment's !a makes R2 forbid
    // it. Either alone the system can always keep.
    expect(
        "Input a is bool\nOutput b is bool\n\
         R1: Globally, it is always the case that if \"a\" holds then \"b\" holds after at most 2 time units.\n\
         R2: Globally, it is always the case that if \"!a\" holds then \"!b\" holds as well.\n",
        &[("R1,R2", "forced after 1")],
    );
}

#[test]
fn requirements_the_system_can_always_keep_have_no_conflict() {
    expect(
        "Input a is bool\nOutput b is bool\n\
         R1: Globally, it is always the case that if \"a\" holds then \"b\" holds as well.\n\
         R3: Globally, it is always the case that if \"a\" holds then \"b\" holds after at most 2 time units.\n",
        &[],
    );
}

#[test]
fn a_rising_input_that_two_requirements_answer_differently() {
    // R3 and R4 clash exactly when c rises, which the environment decides; R4's second
    // automaton alone (with R3) never gets stuck: proved.
    let r = audit(
        "Input c is bool\nOutput x is bool\n\
         R3: Globally, it is always the case that if \"c\" holds then \"x\" holds as well.\n\
         R4: Globally, it is always the case that once \"c\" becomes satisfied, \"!x\" holds for at least 3 time units.\n",
    );
    let v = verdicts(&r);
    assert!(
        v.contains(&("R3,R4".into(), "forced after 1".into())),
        "{v:?}"
    );
    assert!(r.rt_inconsistent().is_empty());
}

#[test]
fn sets_not_linked_through_the_system_variables_are_not_paired() {
    // Two independent conflicts; no pair across them is asked (each would only repeat
    // one of its members' conflict).
    let r = audit(
        "Input a is bool\nInput c is bool\nOutput b is bool\nOutput x is bool\n\
         R1: Globally, it is always the case that if \"a\" holds then \"b\" holds after at most 2 time units.\n\
         R2: Globally, it is always the case that if \"!a\" holds then \"!b\" holds as well.\n\
         R5: Globally, it is always the case that if \"c\" holds then \"x\" holds after at most 2 time units.\n\
         R6: Globally, it is always the case that if \"!c\" holds then \"!x\" holds as well.\n",
    );
    assert_eq!(
        verdicts(&r),
        vec![
            ("R1,R2".to_string(), "forced after 1".to_string()),
            ("R5,R6".to_string(), "forced after 1".to_string())
        ]
    );
}

#[test]
fn not_checked_without_a_variable_of_the_system() {
    let r = audit(
        "Input a is bool\nInput b is bool\n\
         R1: Globally, it is always the case that \"b\" holds.\n",
    );
    match r.environment {
        DenseEnvironment::NotChecked { reason } => {
            assert!(reason.contains("every variable is an input"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn not_checked_with_a_timed_assumption_on_the_inputs() {
    let r = audit(
        "Input a is bool\nOutput b is bool\n\
         A1: Globally, it is always the case that once \"a\" becomes satisfied, \"a\" holds for at least 3 time units.\n\
         R1: Globally, it is always the case that if \"a\" holds then \"b\" holds as well.\n",
    );
    match r.environment {
        DenseEnvironment::NotChecked { reason } => {
            assert!(reason.starts_with("A1 constrains inputs only"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_invariant_over_inputs_is_the_environments_assumption() {
    // Without A1 the environment can choose a and c together; with it, it cannot.
    let base = "Input a is bool\nInput c is bool\nOutput b is bool\n\
         R1: Globally, it is always the case that if \"a\" holds then \"b\" holds as well.\n\
         R2: Globally, it is always the case that if \"c\" holds then \"!b\" holds as well.\n";
    expect(base, &[("R1,R2", "forced after 1")]);
    let assumed = format!("{base}A1: Globally, it is always the case that \"!(a && c)\" holds.\n");
    expect(&assumed, &[]);
}

#[test]
fn int_outputs_are_judged_by_a_search_over_the_inputs() {
    // The environment's a = 1 asks c to be 2 and 3 at once; with R2 only above 5 the
    // system always has an answer.
    let clash = "Input a is int\nOutput c is int\n\
         R1: Globally, it is always the case that if \"a == 1\" holds then \"c == 2\" holds as well.\n\
         R2: Globally, it is always the case that if \"a > 0\" holds then \"c == 3\" holds as well.\n";
    expect(clash, &[("R1,R2", "forced after 1")]);
    expect(&clash.replace("a > 0", "a > 5"), &[]);
}

#[test]
fn an_output_that_follows_an_int_input_is_left_undecided_with_the_reason() {
    // Every input has its own answer (c = a + 1): the search never runs out of
    // candidates, and the check says so rather than passing.
    let r = audit(
        "Input a is int\nOutput c is int\n\
         R1: Globally, it is always the case that \"c == a + 1\" holds.\n",
    );
    let DenseEnvironment::Checked { checks, .. } = &r.environment else {
        panic!("{:?}", r.environment)
    };
    match &checks[..] {
        [c] => match &c.dead_end {
            Reach::Unknown { reason, .. } => {
                assert!(reason.to_string().contains("not settled"), "{reason}")
            }
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_conflict_names_only_the_invariants_it_needs() {
    // R1 links x and b into one group with R2 and R3, but R2's x plays no part in R1's
    // conflict (the Between scope closed with b false), nor R1 (an internal the system
    // chooses) in R2's and R3's.
    expect(
        "Input a is bool\nInput c is bool\nOutput b is bool\nOutput x is bool\n\
         R1: Between \"a\" and \"c\", it is always the case that \"b\" holds.\n\
         R2: Globally, it is always the case that if \"c\" holds then \"x\" holds as well.\n\
         R3: Globally, it is always the case that if \"x\" holds then \"b\" holds after at most 10 time units.\n",
        &[("R1", "forced after 1")],
    );
    expect(
        "Input a is bool\nInternal s is bool\nOutput b is bool\n\
         R1: Globally, it is always the case that if \"a\" holds then \"s\" holds as well.\n\
         R2: Globally, it is always the case that if \"s\" holds then \"b\" holds after at most 2 time units.\n\
         R3: Globally, it is always the case that if \"!a\" holds then \"!b\" holds as well.\n",
        &[("R2,R3", "forced after 1")],
    );
}

#[test]
fn the_inputs_the_environment_chooses_are_shown() {
    let r = audit(
        "Input a is bool\nInput c is bool\nOutput b is bool\n\
         R1: Globally, it is always the case that if \"a\" holds then \"b\" holds after at most 2 time units.\n\
         R2: Globally, it is always the case that if \"c\" holds then \"!b\" holds as well.\n",
    );
    let conflicts = r.environment.conflicts();
    let [c] = &conflicts[..] else {
        panic!("{:?}", r.environment)
    };
    let Reach::Reachable { trace, .. } = &c.dead_end else {
        panic!("{c:?}")
    };
    assert_eq!(trace.next_inputs, vec!["c=true".to_string()], "{trace:?}");
    let r = audit(
        "Input x is int\nOutput y is int\n\
         R1: Globally, it is always the case that if \"x == 1\" holds then \"y == 5\" holds after at most 2 time units.\n\
         R2: Globally, it is always the case that if \"x == 2\" holds then \"y == 0\" holds as well.\n",
    );
    let conflicts = r.environment.conflicts();
    let Reach::Reachable { trace, .. } = &conflicts[0].dead_end else {
        panic!("{:?}", r.environment)
    };
    assert_eq!(trace.next_inputs, vec!["x=2".to_string()], "{trace:?}");
}

#[test]
fn a_dead_end_of_an_automaton_stricter_than_its_countertrace_is_not_a_finding() {
    // "after at most 2 for at least 3": b true is always a next step for the
    // countertraces, but the automaton skips its empty phase only where the state
    // changes. The dead end it finds is reported undecided, never as a conflict.
    let r = audit(
        "Input a is bool\nOutput b is bool\n\
         R1: Globally, it is always the case that if \"a\" holds, then \"b\" holds after at most 2 time units for at least 3 time units.\n",
    );
    assert!(r.environment.conflicts().is_empty(), "{:?}", r.environment);
    // The countertrace evaluator replays the environment's choice and finds a next
    // interval the countertraces allow.
    let open = r.environment.open();
    assert!(!open.is_empty(), "{:?}", r.environment);
    for c in open {
        match &c.dead_end {
            Reach::Unknown { reason, .. } => assert!(
                reason
                    .to_string()
                    .contains("the countertraces allow a next interval"),
                "{reason}"
            ),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn a_dead_end_of_a_stricter_automaton_that_the_evaluator_replays_is_a_conflict() {
    // With c the environment forbids b while R1's second automaton demands it: the
    // countertrace evaluator finds no next interval either, so it is reported.
    expect(
        "Input a is bool\nInput c is bool\nOutput b is bool\n\
         R1: Globally, it is always the case that if \"a\" holds, then \"b\" holds after at most 2 time units for at least 3 time units.\n\
         R2: Globally, it is always the case that if \"c\" holds then \"!b\" holds as well.\n",
        &[("R1,R2", "forced after 1"), ("R1,R2", "forced after 2")],
    );
}

/// Every stage the audit told of: its name, its number of steps and the steps
/// reported done, in the order they came.
#[derive(Default)]
struct Recorded(std::sync::Mutex<Vec<(String, usize, Vec<usize>)>>);

impl reqs::progress::Observer for Recorded {
    fn stage(&self, name: &str, total: usize) {
        self.0
            .lock()
            .unwrap()
            .push((name.into(), total, Vec::new()));
    }
    fn step(&self, done: usize, _note: &str) {
        let mut stages = self.0.lock().unwrap();
        stages
            .last_mut()
            .expect("a step within a stage")
            .2
            .push(done);
    }
}

#[test]
fn the_audit_tells_its_stages_and_how_far_each_has_got() {
    use reqs::timed::dense::audit::DenseOptions;
    use solver::{SolverConfig, SolverKind};
    let recorded = std::sync::Arc::new(Recorded::default());
    let mut options = DenseOptions::new(SolverConfig::new(SolverKind::Z3));
    options.progress = reqs::progress::Progress::to(recorded.clone());
    options.jobs = 2;
    let r = dense::audit_with(
        "Input a is bool\nInput c is bool\nOutput b is bool\nOutput d is bool\n\
         R1: Globally, it is always the case that if \"a\" holds then \"b\" holds after at most 2 time units.\n\
         R2: Globally, it is always the case that if \"c\" holds then \"d\" holds after at most 3 time units.\n\
         R3: Globally, it is always the case that once \"d\" becomes satisfied, it holds for at least 4 time units.\n\
         R4: Globally, it is always the case that if \"!a\" holds then \"!b\" holds as well.\n",
        &options,
    );
    let stages = recorded.0.lock().unwrap().clone();
    let names: Vec<&str> = stages.iter().map(|s| s.0.as_str()).collect();
    // The rt pre-check first, one step per pair of the three automata that are not
    // invariants: the pairs judged so far, before each and at the end.
    let (name, total, steps) = &stages[0];
    assert_eq!(
        name,
        "rt-inconsistency: sets of automata without a next step"
    );
    assert_eq!(*total, 3);
    assert_eq!(*total, r.rt_checks.len() + r.rt_trivial);
    assert_eq!(steps, &[0, 1, 2, 3]);
    // Then the environment's groups, the search, and the redundancy check's own search.
    let at = |n: &str| {
        names
            .iter()
            .position(|s| *s == n)
            .unwrap_or_else(|| panic!("{n} in {names:?}"))
    };
    let env = &stages[at("environment: groups of automata")];
    assert_eq!(env.2.last(), Some(&env.1), "every group judged");
    assert!(at("environment: groups of automata") < at("runs searched, by intervals"));
    assert!(at("runs searched, by intervals") < at("redundancy: runs searched, by intervals"));
    for (name, total, steps) in &stages {
        assert!(
            steps.iter().all(|d| d <= total),
            "{name}: {steps:?} of {total}"
        );
        if name.ends_with("by intervals") {
            assert!(steps.windows(2).all(|w| w[0] < w[1]), "{name}: {steps:?}");
        }
        if name.ends_with("proofs for runs of any length") {
            // One step per question, from two threads: each count once.
            let mut sorted = steps.clone();
            sorted.sort();
            assert_eq!(sorted, (1..=*total).collect::<Vec<_>>(), "{name}");
        }
    }
}
