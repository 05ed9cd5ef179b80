//! The write side: locating edits in a file's text and committing them to disk.

pub mod diff;
pub mod locate;
#[cfg(test)]
mod perturb;
pub mod splice;
