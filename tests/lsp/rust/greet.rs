pub fn greet(name: &str) -> String {
    format!("hello {name}")
}
