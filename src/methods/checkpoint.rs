//! Workspace snapshots: `checkpoint` (see `checkpoint`; the automatic snapshot before mutating
//! calls is applied in `server`).

use super::{method, Method};

pub fn methods() -> Vec<Method> {
    vec![method(
        "checkpoint",
        &[],
        "Workspace snapshots in a shadow git repository: --list (default), --create [--label], \
         --restore HASH (snapshots first; never deletes newer files).",
        true,
        |s, p| coderd_git::checkpoint::run(s, &s.checkpoints, p),
    )
    .answers(wire::answers::Answer::Checkpoint)
    .bare(&["label"])]
}
