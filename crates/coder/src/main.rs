//! `coder`: see the library (`coder::run`).

fn main() {
    let mut args = std::env::args();
    let program = args.next().unwrap_or_default();
    std::process::exit(coder::run_as(&program, args.collect()));
}
