//! The write side: locating edits in a file's text and committing them to disk.

pub mod commit;
pub mod content;
pub mod locks;
pub mod paths;
pub mod splice;
pub mod txn;
pub mod update;
pub mod update_file;
pub mod write;
