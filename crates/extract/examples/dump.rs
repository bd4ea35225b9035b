fn main() {
    let p = std::env::args().nth(1).unwrap();
    let b = std::fs::read(&p).unwrap();
    let x = extract::extract(&p, &b, None).unwrap();
    for r in &x.requirements {
        println!("{:?}\t{}\t{}\t{}", r.confidence, r.id, r.source.line.unwrap_or(0), r.text);
    }
    for n in &x.notes { eprintln!("note: {n}"); }
    eprintln!("high {} total {}", x.high(), x.requirements.len());
}
