//! Specialization's `default const` and `default type` in an impl, which tree-sitter-rust 0.24.2
//! does not read (it knows `default fn`). Written for coderd's recovery corpus
//! (tests/it/corpus.rs); every item after them must still be found.

pub trait Limits {
    const MAX: u32;
    type Unit;
    fn limit(&self) -> u32;
}

impl<T> Limits for Vec<T> {
    default const MAX: u32 = 4;
    default type Unit = u8;
    default fn limit(&self) -> u32 {
        Self::MAX
    }
}

impl Limits for Vec<u8> {
    const MAX: u32 = 8;
    type Unit = u16;
    fn limit(&self) -> u32 {
        Self::MAX * 2
    }
}

pub fn after_impls() -> u32 {
    vec![1u8].limit()
}

pub struct Budget {
    pub max: u32,
    pub used: u32,
}

impl Budget {
    pub const EMPTY: Budget = Budget { max: 0, used: 0 };

    pub fn left(&self) -> u32 {
        self.max - self.used
    }
}

pub static DEFAULT_BUDGET: Budget = Budget::EMPTY;
