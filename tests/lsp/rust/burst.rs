pub fn burst() -> i32 {
    1
}
