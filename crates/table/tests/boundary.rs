//! The crate's place in the workspace (ARCHITECTURE.md): among vera's crates it depends
//! on `logic` and `solver` only.

#[test]
fn depends_on_logic_and_solver_only_among_veras_crates() {
    let manifest =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")).unwrap();
    let workspace: Vec<String> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let mut section = String::new();
    let mut ours = Vec::new();
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            section = line.to_string();
            continue;
        }
        if section != "[dependencies]" {
            continue;
        }
        let name = line.split(['=', '.', ' ']).next().unwrap_or_default();
        if workspace.iter().any(|w| w == name) {
            ours.push(name.to_string());
        }
    }
    ours.sort();
    assert_eq!(ours, ["logic", "solver"]);
}
