use std::io::{self, Read, Write};

fn main() {
    let mut input = String::new();
    io::stdin().read_to_string(&mut input).unwrap();
    let mut out = String::new();
    for line in input.lines() {
        let p: Vec<i64> = line.split_whitespace().map(|x| x.parse().unwrap()).collect();
        if p.len() >= 2 {
            out.push_str(&format!("{}\n", p[0] + p[1]));
        }
    }
    io::stdout().write_all(out.as_bytes()).unwrap();
}
