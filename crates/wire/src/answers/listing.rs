//! `list-folder`'s answer (`Answer::ListFolder`), built by the daemon's `listing` and rendered by
//! `coder` from these fields. The fields are in alphabetical order: the answer was a
//! `serde_json::Value` (a sorted map) before it was typed, and its bytes stay those.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::path::PathBuf;

/// One page of a folder's entries, sorted by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FolderPage {
    /// The entries of this page.
    pub entries: Vec<FolderEntry>,
    /// The `cursor` of the next page (`null` on the last).
    pub next_cursor: Option<String>,
    /// The folder, as an absolute path.
    pub path: PathBuf,
    /// Entries in the folder, on every page.
    pub total: usize,
}

/// One entry of a folder.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FolderEntry {
    /// Left out of walks by the config's default excludes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub default_excluded: bool,
    /// `file`, `dir`, `symlink`, `other` or `unknown`.
    pub kind: Cow<'static, str>,
    /// Its name.
    pub name: String,
    /// A secret by the workspace policy: listed, never read.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub non_accessible: bool,
    /// Files only: the size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The page as a `Value` wrote it (keys sorted, `next_cursor` always there), read back.
    #[test]
    fn a_folder_page_keeps_the_bytes_of_the_sorted_map_it_was() {
        let page = FolderPage {
            entries: vec![
                FolderEntry {
                    default_excluded: true,
                    kind: "dir".into(),
                    name: "target".into(),
                    non_accessible: false,
                    size: None,
                },
                FolderEntry {
                    default_excluded: false,
                    kind: "file".into(),
                    name: ".env".into(),
                    non_accessible: true,
                    size: Some(12),
                },
            ],
            next_cursor: None,
            path: "/w".into(),
            total: 2,
        };
        let text = serde_json::to_string(&page).unwrap();
        assert_eq!(
            text,
            r#"{"entries":[{"default_excluded":true,"kind":"dir","name":"target"},{"kind":"file","name":".env","non_accessible":true,"size":12}],"next_cursor":null,"path":"/w","total":2}"#
        );
        assert_eq!(serde_json::from_str::<FolderPage>(&text).unwrap(), page);
    }
}
