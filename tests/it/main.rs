//! The daemon's integration tests, one binary (as cargo's and ripgrep's): each module was its own
//! test binary, each linking the whole daemon, so a change to the daemon linked it 34 times. One
//! binary links it once, and its tests share one process: a test changes nothing process-wide
//! (no `std::env::set_var`: a daemon gets its environment through `Daemon::start_env`) and counts
//! only what it started itself (a daemon's children by its pid, a command's processes by a marker).
//!
//! Run one module or one test: `cargo test --test it exec_sandbox::` or `cargo test --test it --
//! name_fragment`. Data the tests read (cases, corpora, fixtures) sits beside this folder, in
//! tests/<name>/, found from `CARGO_MANIFEST_DIR`.

mod common;

mod agent;
mod broad_roots;
mod cases;
mod chatcli;
mod checkpoint;
mod cli;
mod corpus;
mod crosscheck;
mod daemon;
mod edit_crash;
mod edit_generated;
mod edit_jail_races;
mod edit_races;
mod edit_versions;
mod editor;
mod edits;
mod exec_corpus;
mod exec_process;
mod exec_sandbox;
mod exec_test;
mod git;
mod iii_engine;
mod iii_worker;
mod lsp;
mod lsp_fake;
mod lsp_sandbox;
mod map;
mod map_breadth;
mod map_fresh;
mod map_history;
mod map_lane;
mod map_modules;
mod mcp;
mod navigate;
mod no_work_lost;
mod perturb;
mod reference;
mod structure;
mod symedit;
mod tidy;
mod todo;
