use clap::Parser;

fn main() {
    let cli = coderd::cli::Cli::parse();
    std::process::exit(coderd::cli::run(cli));
}
