//! Macro forms tree-sitter-rust 0.24.2 does not read: `macro_rules` with a blank before its `!`,
//! and macros 2.0 (`macro m() {}`), at the top level and in a module. Written for coderd's
//! recovery corpus (tests/it/corpus.rs); every item after them must still be found.

pub struct Before {
    pub id: u32,
}

macro_rules ! T_ {
    ($($t:tt)*) => { $($t)* };
}

pub fn after_macro_rules() -> u32 {
    T_!(1)
}

pub macro square($x:expr) {
    $x * $x
}

pub fn after_macro() -> u32 {
    square!(3)
}

pub mod inner {
    pub macro twice($x:expr) {
        $x + $x
    }

    pub fn after_in_mod() -> u32 {
        twice!(2)
    }

    macro_rules  ! count {
        () => { 0 };
    }

    pub struct InMod {
        pub count: usize,
    }

    impl InMod {
        pub fn new() -> Self {
            InMod { count: count!() }
        }
    }
}

macro m() {}

pub enum AfterAll {
    First,
    Second { value: u32 },
}

pub trait Shape {
    fn area(&self) -> f64;
}

pub const LIMIT: usize = 8;
