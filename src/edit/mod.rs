//! The write side: locating edits in a file's text and committing them to disk.

pub mod splice;
pub mod update;
