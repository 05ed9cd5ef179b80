//! The write side: locating edits in a file's text and committing them to disk.

pub mod diff;
pub mod locate;
pub mod splice;
