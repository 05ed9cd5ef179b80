mod burst;
mod greet;

pub fn run() -> String {
    greet::greet("world")
}
