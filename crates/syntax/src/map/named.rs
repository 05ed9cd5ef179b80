//! The files a map names after its items. A file's best item takes about 90 characters of a map
//! on rust-analyzer (its path, the item's line, the `⋮` lines around it); its name in a folder's
//! group about 17. So when the items cannot show every file the map could list, the next files
//! by rank are named without their items, grouped by folder in the order of each folder's best
//! file (`crates/hir-ty/src/{infer.rs,lib.rs}`, shell brace syntax), and a budget lists
//! several times as many of the files a change may need (`render` decides the room). A file with
//! no item that still says something (a module of re-exports) has no other way into the map: it
//! is named too, even when the items show every other file (`Ranked::itemless`).

use super::index::FileTags;
use super::rank::Ranked;
use super::render::FILL_TRIES;
use foldhash::{HashMap, HashSet};
use std::fmt::Write;
use std::sync::Arc;

/// The line before the names, saying what they are.
pub const HEADING: &str = "⋮ next files by rank, without their items:\n";

/// The named files, by folder group, and the characters their lines take.
pub struct Named<'a> {
    files: &'a [Arc<FileTags>],
    /// The groups in the order of their first file; a file whose name cannot share braces (a
    /// root file, a name holding `,`, `{`, `}` or white space) is a group of its own.
    groups: Vec<Group<'a>>,
    /// Per folder, its group in `groups`.
    by_folder: HashMap<&'a str, usize>,
    chars: usize,
    /// The named files, in the order they were named (`in_order`, then the untied files with no
    /// item).
    named: Vec<usize>,
    /// Whether every file the items left out is named, and every file with no item.
    complete: bool,
}

struct Group<'a> {
    folder: &'a str,
    names: Vec<&'a str>,
}

impl<'a> Named<'a> {
    /// The files the map may list but its items leave out (`in_order`), named while their lines
    /// fit in `room`, then any of the next files that still fit; once all are, the same for the
    /// files with no item tied to nothing, in path order. Like any other file, they may take a
    /// share of the room from the items (`render::best_of`: the split listing the most files).
    pub fn fill(
        files: &'a [Arc<FileTags>],
        ranked: &Ranked,
        shown: impl Fn(usize) -> bool,
        left_out: usize,
        room: usize,
    ) -> Named<'a> {
        let mut named = Named {
            files,
            groups: Vec::new(),
            by_folder: HashMap::default(),
            chars: 0,
            named: Vec::new(),
            complete: true,
        };
        named.complete = named.add_while_room(in_order(files, ranked, shown, left_out), room);
        if named.complete {
            let (_, untied) = ranked.itemless();
            named.complete = named.add_while_room(untied.iter().map(|&f| f as usize), room);
        }
        named
    }

    /// Names `next` files while their lines fit in `room`, then each of the next `FILL_TRIES`
    /// that still fits: whether every one was named.
    fn add_while_room(&mut self, next: impl Iterator<Item = usize>, room: usize) -> bool {
        let (mut all, mut tries) = (true, 0);
        for f in next {
            if !all {
                if tries == FILL_TRIES {
                    break;
                }
                tries += 1;
            }
            all &= self.add(f, room);
        }
        all
    }

    pub fn chars(&self) -> usize {
        self.chars
    }

    pub fn count(&self) -> usize {
        self.named.len()
    }

    /// The named files, in the order they were named.
    pub fn files(&self) -> &[usize] {
        &self.named
    }

    /// Whether every file the items left out is named, and every file with no item.
    pub fn complete(&self) -> bool {
        self.complete
    }

    /// Names file `f` when its line still fits in `room`: whether it did.
    fn add(&mut self, f: usize, room: usize) -> bool {
        let (folder, name) = split(&self.files[f].rel);
        let shares = shares(folder, name);
        let group = self.by_folder.get(folder).copied().filter(|_| shares);
        let name_chars = name.chars().count();
        let cost = match group.map(|g| self.groups[g].names.len()) {
            // `folder/a` becomes `folder/{a,b}`.
            Some(1) => "{,}".len() + name_chars,
            Some(_) => ",".len() + name_chars,
            // `folder/a` on a line of its own (`a` at the root).
            None => folder.chars().count() + usize::from(!folder.is_empty()) + name_chars + 1,
        };
        let heading = match self.named.len() {
            0 => HEADING.chars().count(),
            _ => 0,
        };
        if self.chars + heading + cost > room {
            return false;
        }
        match group {
            Some(g) => self.groups[g].names.push(name),
            None => {
                if shares {
                    self.by_folder.insert(folder, self.groups.len());
                }
                self.groups.push(Group {
                    folder,
                    names: vec![name],
                });
            }
        }
        self.chars += heading + cost;
        self.named.push(f);
        true
    }

    /// Appends the heading and the groups' lines to `out` (nothing when no file is named).
    pub fn write(&self, out: &mut String) {
        if self.named.is_empty() {
            return;
        }
        let from = out.len();
        out.push_str(HEADING);
        for group in &self.groups {
            write_line(group.folder, &group.names, out);
        }
        debug_assert_eq!(out[from..].chars().count(), self.chars);
    }
}

/// The files the items leave out, in the order the map names them: the `left_out` files of
/// `ranked` not `shown`, each once, in rank order (the order of their first items), and among
/// them each file with no item tied to the focus files at its place in the ranking
/// (`Ranked::itemless`). The ranking is read no further than its last file left out.
fn in_order<'r>(
    files: &'r [Arc<FileTags>],
    ranked: &'r Ranked,
    shown: impl Fn(usize) -> bool + 'r,
    left_out: usize,
) -> impl Iterator<Item = usize> + 'r {
    let (tied, _) = ranked.itemless();
    let mut tied = tied.iter().peekable();
    let mut items = ranked.items(files);
    let (mut read, mut seen) = (0, HashSet::default());
    std::iter::from_fn(move || loop {
        let done = seen.len() == left_out;
        if let Some(&(_, f)) = tied.next_if(|&&(place, _)| done || place <= read) {
            return Some(f as usize);
        }
        if done {
            return None;
        }
        let Some(item) = items.next() else {
            // The ranking holds every file its items leave out (`Ranked::files`).
            debug_assert_eq!(seen.len(), left_out, "files left out but not ranked");
            return tied.next().map(|&(_, f)| f as usize);
        };
        read += 1;
        let f = item.file as usize;
        if !shown(f) && seen.insert(f) {
            return Some(f);
        }
    })
}

/// A path's folder (`""` at the root) and file name.
pub fn split(rel: &str) -> (&str, &str) {
    rel.rsplit_once('/').unwrap_or(("", rel))
}

/// Whether `name` may share a brace group in `folder`: both without the characters that would
/// make the braces ambiguous, and not at the root (where `{a,b}` would be a bare brace line).
pub fn shares(folder: &str, name: &str) -> bool {
    let plain = |s: &str| !s.contains([',', '{', '}']) && !s.chars().any(char::is_whitespace);
    !folder.is_empty() && plain(folder) && plain(name)
}

/// The line of `names` in `folder`: `folder/name`, or `folder/{a,b}` for several.
pub fn write_line(folder: &str, names: &[&str], out: &mut String) {
    if !folder.is_empty() {
        write!(out, "{folder}/").ok();
    }
    match names {
        [one] => out.push_str(one),
        _ => {
            write!(out, "{{{}}}", names.join(",")).ok();
        }
    }
    out.push('\n');
}
