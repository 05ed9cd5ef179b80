//! Seeded perturbation corpus for `locate` and `diff` (an integration test: it needs only the public API of `edit`).
//!
//! Clean (file, edit) pairs come from three small realistic sources in six byte variants (LF, CRLF,
//! mixed EOL, BOM, Latin-1, no final newline). Each pair is perturbed the ways LLMs get edits
//! wrong, and every case carries an oracle: the exact expected bytes, "already applied", or
//! "refuse". The test asserts that nothing is ever applied at a wrong place, that line endings of
//! the file survive, and that whitespace-only perturbations are recovered.

use coderd_edit::diff::{parse, plan_file};
use coderd_edit::locate::{locate_replace, Occurrence};
use coderd_edit::splice::apply;

const RUST: &str = r#"use std::collections::HashMap;
use std::fmt;

/// A small inventory kept by the cafe menu service.
pub struct Inventory {
    items: HashMap<String, u32>,
    name: String,
}

impl Inventory {
    pub fn new(name: &str) -> Self {
        Inventory {
            items: HashMap::new(),
            name: name.to_string(),
        }
    }

    pub fn add(&mut self, item: &str, count: u32) {
        let entry = self.items.entry(item.to_string()).or_insert(0);
        *entry += count;
    }

    pub fn remove(&mut self, item: &str, count: u32) -> Result<(), String> {
        match self.items.get_mut(item) {
            Some(have) if *have >= count => {
                *have -= count;
                Ok(())
            }
            Some(have) => Err(format!("only {} of {item} left", have)),
            None => Err(format!("no {item} in {}", self.name)),
        }
    }

    pub fn total(&self) -> u32 {
        self.items.values().sum()
    }
}

impl fmt::Display for Inventory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut keys: Vec<_> = self.items.keys().collect();
        keys.sort();
        for key in keys {
            writeln!(f, "{key}: {}", self.items[key])?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_and_removes() {
        let mut inv = Inventory::new("shop");
        inv.add("apple", 3);
        inv.add("pear", 2);
        assert_eq!(inv.total(), 5);
        inv.remove("apple", 1).unwrap();
        assert_eq!(inv.total(), 4);
    }

    #[test]
    fn refuses_too_many() {
        let mut inv = Inventory::new("shop");
        inv.add("plum", 1);
        assert!(inv.remove("plum", 2).is_err());
        assert!(inv.remove("kiwi", 1).is_err());
    }
}
"#;

const PYTHON: &str = r#"import json
import os
from dataclasses import dataclass, field


@dataclass
class Order:
    """An order placed at the cafe counter."""

    customer: str
    items: list = field(default_factory=list)
    paid: bool = False

    def add(self, name, price):
        # Don’t allow negative prices.
        if price < 0:
            raise ValueError(f"bad price for {name}: {price}")
        self.items.append((name, price))

    def total(self):
        return sum(price for _, price in self.items)

    def to_json(self):
        return json.dumps({
            "customer": self.customer,
            "items": self.items,
            "paid": self.paid,
        })


def load_orders(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as handle:
        raw = json.load(handle)
    orders = []
    for entry in raw:
        order = Order(entry["customer"])
        for name, price in entry["items"]:
            order.add(name, price)
        order.paid = entry.get("paid", False)
        orders.append(order)
    return orders


def summary(orders):
    paid = [o for o in orders if o.paid]
    unpaid = [o for o in orders if not o.paid]
    return {
        "paid": sum(o.total() for o in paid),
        "unpaid": sum(o.total() for o in unpaid),
        "count": len(orders),
    }


if __name__ == "__main__":
    result = summary(load_orders("orders.json"))
    print(json.dumps(result, indent=2))
"#;

const GO: &str = "package server

import (
\t\"errors\"
\t\"net/http\"
\t\"sync\"
)

// Store keeps the cafe menu prices in memory.
type Store struct {
\tmu     sync.Mutex
\tprices map[string]int
}

var ErrMissing = errors.New(\"no such item\")

func NewStore() *Store {
\treturn &Store{prices: make(map[string]int)}
}

func (s *Store) Set(name string, price int) {
\ts.mu.Lock()
\tdefer s.mu.Unlock()
\ts.prices[name] = price
}

func (s *Store) Get(name string) (int, error) {
\ts.mu.Lock()
\tdefer s.mu.Unlock()
\tprice, ok := s.prices[name]
\tif !ok {
\t\treturn 0, ErrMissing
\t}
\treturn price, nil
}

func (s *Store) Handler() http.Handler {
\treturn http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
\t\tname := r.URL.Query().Get(\"item\")
\t\tprice, err := s.Get(name)
\t\tif err != nil {
\t\t\thttp.Error(w, err.Error(), http.StatusNotFound)
\t\t\treturn
\t\t}
\t\tw.Header().Set(\"Content-Type\", \"text/plain\")
\t\t_, _ = w.Write([]byte(http.StatusText(price)))
\t})
}
";

/// xorshift64*: small, deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn variants(src: &str) -> Vec<(&'static str, Vec<u8>)> {
    let lf = src.as_bytes().to_vec();
    let crlf = src.replace('\n', "\r\n").into_bytes();
    let mut mixed = Vec::new();
    for (i, line) in src.split_inclusive('\n').enumerate() {
        if i % 2 == 1 {
            mixed.extend_from_slice(line.replace('\n', "\r\n").as_bytes());
        } else {
            mixed.extend_from_slice(line.as_bytes());
        }
    }
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend_from_slice(&lf);
    let latin1: Vec<u8> = {
        let s = src.replace("cafe", "caf\u{1}");
        s.bytes().map(|b| if b == 1 { 0xE9 } else { b }).collect()
    };
    let mut no_nl = lf.clone();
    no_nl.pop();
    vec![
        ("lf", lf),
        ("crlf", crlf),
        ("mixed", mixed),
        ("bom", bom),
        ("latin1", latin1),
        ("no_final_newline", no_nl),
    ]
}

/// Lines as (content, eol) byte vectors, split as `locate`'s line table splits them: only LF and
/// CRLF end lines, and an unterminated last line has an empty EOL.
fn lines_of(file: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut lines = Vec::new();
    let mut rest = file;
    while !rest.is_empty() {
        let Some(nl) = rest.iter().position(|&b| b == b'\n') else {
            lines.push((rest.to_vec(), Vec::new()));
            break;
        };
        let content_end = if nl > 0 && rest[nl - 1] == b'\r' {
            nl - 1
        } else {
            nl
        };
        lines.push((
            rest[..content_end].to_vec(),
            rest[content_end..=nl].to_vec(),
        ));
        rest = &rest[nl + 1..];
    }
    lines
}

fn join(lines: &[(Vec<u8>, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (c, e) in lines {
        out.extend_from_slice(c);
        out.extend_from_slice(e);
    }
    out
}

fn lead(s: &[u8]) -> Vec<u8> {
    s.iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .copied()
        .collect()
}

fn count_naive(hay: &[u8], needle: &[u8]) -> usize {
    if needle.is_empty() || needle.len() > hay.len() {
        return 0;
    }
    (0..=hay.len() - needle.len())
        .filter(|&i| &hay[i..i + needle.len()] == needle)
        .count()
}

/// The window's trimmed lines occur once among the file's trimmed lines.
fn loosely_unique(lines: &[(Vec<u8>, Vec<u8>)], s: usize, w: usize) -> bool {
    let key = |l: &(Vec<u8>, Vec<u8>)| l.0.trim_ascii().to_vec();
    let target: Vec<Vec<u8>> = lines[s..s + w].iter().map(key).collect();
    (0..=lines.len() - w)
        .filter(|&i| (0..w).all(|j| key(&lines[i + j]) == target[j]))
        .count()
        == 1
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Modify,
    Insert,
    Delete,
    ModifyInsert,
}

/// A clean edit: lines `s..s+w` of the file become `new` (with the file's own EOLs).
struct Edit {
    s: usize,
    w: usize,
    old: Vec<(Vec<u8>, Vec<u8>)>,
    new: Vec<(Vec<u8>, Vec<u8>)>,
}

fn make_edit(
    rng: &mut Rng,
    lines: &[(Vec<u8>, Vec<u8>)],
    s: usize,
    w: usize,
    tag: usize,
) -> Option<Edit> {
    let old = lines[s..s + w].to_vec();
    let nonblank: Vec<usize> = (0..w)
        .filter(|&j| old[j].0.trim_ascii().len() >= 3 && !old[j].0.starts_with(b"\xEF\xBB\xBF"))
        .collect();
    if nonblank.is_empty() {
        return None;
    }
    let op = [Op::Modify, Op::Insert, Op::Delete, Op::ModifyInsert][rng.below(4)];
    let mut new = old.clone();
    // Changed lines stay strictly inside the window so the old text is gone after the edit.
    let inner: Vec<usize> = nonblank.iter().copied().filter(|&j| j + 1 < w).collect();
    let t = *inner.get(rng.below(inner.len()))?;
    let modified = |l: &(Vec<u8>, Vec<u8>)| {
        let mut c = l.0.clone();
        c.extend_from_slice(format!(" /*edited{tag}*/").as_bytes());
        (c, l.1.clone())
    };
    let inserted = |l: &(Vec<u8>, Vec<u8>)| {
        let mut c = lead(&l.0);
        c.extend_from_slice(format!("inserted_line_{tag}();").as_bytes());
        (c, l.1.clone())
    };
    match op {
        Op::Modify => new[t] = modified(&old[t]),
        Op::Insert => new.insert(t + 1, inserted(&old[t])),
        Op::Delete => {
            if t == 0 {
                return None;
            }
            new.remove(t);
        }
        Op::ModifyInsert => {
            new[t] = modified(&old[t]);
            new.insert(t + 1, inserted(&old[t]));
        }
    }
    Some(Edit { s, w, old, new })
}

fn expected_after(lines: &[(Vec<u8>, Vec<u8>)], edits: &[&Edit]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut sorted: Vec<&&Edit> = edits.iter().collect();
    sorted.sort_by_key(|e| e.s);
    for e in sorted {
        out.extend(join(&lines[at..e.s]));
        out.extend(join(&e.new));
        at = e.s + e.w;
    }
    out.extend(join(&lines[at..]));
    out
}

#[derive(Debug, PartialEq)]
enum Oracle {
    Bytes(Vec<u8>),
    Already,
    Refuse,
}

#[derive(Default, Debug)]
struct Tally {
    cases: usize,
    correct: usize,
    wrong_place: usize,
    false_already: usize,
    eol_or_bytes_broken: usize,
    ws_cases: usize,
    ws_recovered: usize,
    refuse_cases: usize,
    refused: usize,
    failures: Vec<String>,
}

impl Tally {
    fn record(
        &mut self,
        label: String,
        variant: &str,
        file: &[u8],
        whitespace_only: bool,
        oracle: Oracle,
        outcome: Result<(Vec<u8>, bool), String>,
    ) {
        self.cases += 1;
        if whitespace_only {
            self.ws_cases += 1;
        }
        if oracle == Oracle::Refuse {
            self.refuse_cases += 1;
        }
        let ok = match (&oracle, &outcome) {
            (Oracle::Bytes(want), Ok((got, false))) => {
                if got != want {
                    self.wrong_place += 1;
                }
                got == want
            }
            (Oracle::Bytes(_), Ok((_, true))) => {
                self.false_already += 1;
                false
            }
            (Oracle::Bytes(_), Err(_)) => false,
            (Oracle::Already, Ok((got, true))) => got == file,
            (Oracle::Already, Ok((_, false))) => {
                self.wrong_place += 1;
                false
            }
            (Oracle::Already, Err(_)) => false,
            (Oracle::Refuse, Err(_)) => {
                self.refused += 1;
                true
            }
            (Oracle::Refuse, Ok((_, true))) => {
                self.false_already += 1;
                false
            }
            (Oracle::Refuse, Ok((_, false))) => {
                self.wrong_place += 1;
                false
            }
        };
        if let Ok((got, _)) = &outcome {
            if !eol_kept(variant, file, got) {
                self.eol_or_bytes_broken += 1;
                self.failures
                    .push(format!("EOL broken: {label} [{variant}]"));
            }
        }
        if ok {
            self.correct += 1;
            if whitespace_only {
                self.ws_recovered += 1;
            }
        } else if self.failures.len() < 40 {
            self.failures.push(format!(
                "{label} [{variant}]: oracle {:?} got {:?}",
                match &oracle {
                    Oracle::Bytes(_) => "bytes",
                    Oracle::Already => "already",
                    Oracle::Refuse => "refuse",
                },
                outcome
                    .as_ref()
                    .map(|(b, a)| (String::from_utf8_lossy(b).len(), *a))
            ));
        }
    }
}

/// Line-ending and encoding invariants of the variant survive an application.
fn eol_kept(variant: &str, before: &[u8], after: &[u8]) -> bool {
    let bare_lf = |b: &[u8]| (0..b.len()).any(|i| b[i] == b'\n' && (i == 0 || b[i - 1] != b'\r'));
    let any_cr = |b: &[u8]| b.contains(&b'\r');
    match variant {
        "crlf" => !bare_lf(after),
        "lf" | "bom" | "latin1" | "no_final_newline" => !any_cr(after),
        _ => true,
    }
    .then_some(())
    .is_some()
        && (before.starts_with(b"\xEF\xBB\xBF") == after.starts_with(b"\xEF\xBB\xBF"))
        && (before.ends_with(b"\n") == after.ends_with(b"\n"))
        && (!before.contains(&0xE9) || after.contains(&0xE9))
}

fn to_eol(lines: &[(Vec<u8>, Vec<u8>)], eol: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    lines
        .iter()
        .map(|(c, e)| {
            (
                c.clone(),
                if e.is_empty() {
                    e.clone()
                } else {
                    eol.to_vec()
                },
            )
        })
        .collect()
}

fn reindent(
    lines: &[(Vec<u8>, Vec<u8>)],
    add: Option<&[u8]>,
    remove: usize,
) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
    lines
        .iter()
        .map(|(c, e)| {
            if c.trim_ascii().is_empty() {
                return Some((c.clone(), e.clone()));
            }
            match add {
                Some(p) => {
                    let mut v = p.to_vec();
                    v.extend_from_slice(c);
                    Some((v, e.clone()))
                }
                None => c
                    .starts_with(&vec![b' '; remove])
                    .then(|| (c[remove..].to_vec(), e.clone())),
            }
        })
        .collect()
}

fn run_locate(file: &[u8], search: &[u8], replace: &[u8]) -> Result<(Vec<u8>, bool), String> {
    match locate_replace(file, search, replace, Occurrence::Unique) {
        Ok(l) => Ok((apply(file, &l.splices), l.already_applied)),
        Err(e) => Err(e.to_string()),
    }
}

fn locate_cases(t: &mut Tally, rng: &mut Rng, variant: &str, file: &[u8]) {
    let lines = lines_of(file);
    let n = lines.len();
    let mut made = 0;
    let mut tries = 0;
    while made < 6 && tries < 200 {
        tries += 1;
        let w = 3 + rng.below(6);
        if w + 1 > n {
            continue;
        }
        let s = rng.below(n - w + 1);
        let Some(edit) = make_edit(rng, &lines, s, w, made) else {
            continue;
        };
        let search = join(&edit.old);
        let replace = join(&edit.new);
        if count_naive(file, &search) != 1 || !loosely_unique(&lines, s, w) {
            continue;
        }
        made += 1;
        let want = expected_after(&lines, &[&edit]);
        let label = |k: &str| format!("locate {k} @{s}+{w}");
        let region_crlf = edit.old.iter().any(|l| l.1 == b"\r\n");

        // Clean.
        t.record(
            label("clean"),
            variant,
            file,
            true,
            Oracle::Bytes(want.clone()),
            run_locate(file, &search, &replace),
        );
        // Re-indent both sides.
        let adds: [&[u8]; 3] = [b"  ", b"    ", b"\t"];
        for (k, add) in adds.iter().enumerate() {
            let (s2, r2) = (
                reindent(&edit.old, Some(add), 0),
                reindent(&edit.new, Some(add), 0),
            );
            if let (Some(s2), Some(r2)) = (s2, r2) {
                t.record(
                    label(&format!("indent+{k}")),
                    variant,
                    file,
                    true,
                    Oracle::Bytes(want.clone()),
                    run_locate(file, &join(&s2), &join(&r2)),
                );
            }
        }
        for remove in [2, 4] {
            if let (Some(s2), Some(r2)) = (
                reindent(&edit.old, None, remove),
                reindent(&edit.new, None, remove),
            ) {
                t.record(
                    label(&format!("indent-{remove}")),
                    variant,
                    file,
                    true,
                    Oracle::Bytes(want.clone()),
                    run_locate(file, &join(&s2), &join(&r2)),
                );
            }
        }
        // Trailing whitespace: added on some search lines.
        let mut s2 = edit.old.clone();
        for l in s2.iter_mut() {
            if rng.below(2) == 0 {
                l.0.extend_from_slice(b"  ");
            }
        }
        t.record(
            label("trailing_ws"),
            variant,
            file,
            true,
            Oracle::Bytes(want.clone()),
            run_locate(file, &join(&s2), &replace),
        );
        // EOL flip on both sides.
        let flip: &[u8] = if region_crlf { b"\n" } else { b"\r\n" };
        t.record(
            label("eol_flip"),
            variant,
            file,
            true,
            Oracle::Bytes(want.clone()),
            run_locate(
                file,
                &join(&to_eol(&edit.old, flip)),
                &join(&to_eol(&edit.new, flip)),
            ),
        );
        // Typography: straight quotes curled, or a space made NBSP.
        let typo = |c: &[u8], rng: &mut Rng| -> Vec<u8> {
            let s = String::from_utf8_lossy(c).to_string();
            if s.contains('"') && rng.below(2) == 0 {
                let mut open = true;
                s.chars()
                    .map(|ch| {
                        if ch == '"' {
                            open = !open;
                            if !open {
                                '\u{201c}'
                            } else {
                                '\u{201d}'
                            }
                        } else {
                            ch
                        }
                    })
                    .collect::<String>()
                    .into_bytes()
            } else if let Some(p) = s.trim_start().find(' ') {
                let at = s.len() - s.trim_start().len() + p;
                let mut v = s.into_bytes();
                v.splice(at..at + 1, "\u{a0}".bytes());
                v
            } else {
                s.replace('\u{2019}', "'").into_bytes()
            }
        };
        if edit.old.iter().all(|l| std::str::from_utf8(&l.0).is_ok()) {
            let s2: Vec<_> = edit
                .old
                .iter()
                .map(|(c, e)| (typo(c, rng), e.clone()))
                .collect();
            t.record(
                label("typography"),
                variant,
                file,
                true,
                Oracle::Bytes(want.clone()),
                run_locate(file, &join(&s2), &replace),
            );
        }
        // Spurious trailing blank line on both sides.
        if let Some(last) = edit.old.last().filter(|l| !l.1.is_empty()) {
            let eol = last.1.clone();
            let mut s2 = search.clone();
            s2.extend_from_slice(&eol);
            let mut r2 = replace.clone();
            r2.extend_from_slice(&eol);
            t.record(
                label("blank_tail"),
                variant,
                file,
                true,
                Oracle::Bytes(want.clone()),
                run_locate(file, &s2, &r2),
            );
        }
        // Several whitespace perturbations at once.
        if let (Some(s2), Some(r2)) = (
            reindent(&edit.old, Some(b"    "), 0),
            reindent(&edit.new, Some(b"    "), 0),
        ) {
            let mut s3 = to_eol(&s2, flip);
            for l in s3.iter_mut() {
                l.0.push(b' ');
            }
            t.record(
                label("combined"),
                variant,
                file,
                true,
                Oracle::Bytes(want.clone()),
                run_locate(file, &join(&s3), &join(&to_eol(&r2, flip))),
            );
        }
        // Duplicated anchor: the search text twice in the file.
        let at = if s > 2 {
            rng.below(s)
        } else {
            (s + w + rng.below(n - s - w + 1)).min(n)
        };
        let mut dup_lines = lines.clone();
        let mut block = edit.old.clone();
        if block.last().is_some_and(|l| l.1.is_empty()) {
            block.last_mut().unwrap().1 = b"\n".to_vec();
        }
        for (k, l) in block.into_iter().enumerate() {
            dup_lines.insert(at + k, l);
        }
        if dup_lines.last().is_some_and(|l| !l.1.is_empty())
            != lines.last().is_some_and(|l| !l.1.is_empty())
        {
            // Keep the variant's final-newline state.
        }
        let dup = join(&dup_lines);
        let oracle = if count_naive(&dup, &search) >= 2 {
            Oracle::Refuse
        } else {
            Oracle::Bytes(Vec::new())
        };
        if oracle == Oracle::Refuse {
            t.record(
                label("duplicate"),
                variant,
                &dup,
                false,
                oracle,
                run_locate(&dup, &search, &replace),
            );
        }
        // Lone `}` anchor.
        if let Some(j) = (0..n).find(|&j| lines[(j + s) % n].0.trim_ascii() == b"}") {
            let j = (j + s) % n;
            let anchor = join(&lines[j..j + 1]);
            let mut rep = anchor.clone();
            rep.extend_from_slice(b"// after");
            rep.extend_from_slice(if lines[j].1.is_empty() {
                b"\n"
            } else {
                &lines[j].1
            });
            let count = count_naive(file, &anchor);
            let oracle = if count == 1 {
                let p = (0..file.len())
                    .find(|&i| file[i..].starts_with(&anchor))
                    .unwrap_or(0);
                let mut v = file[..p].to_vec();
                v.extend_from_slice(&rep);
                v.extend_from_slice(&file[p + anchor.len()..]);
                Oracle::Bytes(v)
            } else {
                Oracle::Refuse
            };
            t.record(
                label("lone_brace"),
                variant,
                file,
                false,
                oracle,
                run_locate(file, &anchor, &rep),
            );
        }
        // One context line changed in content: must refuse.
        let mut s2 = edit.old.clone();
        let cands: Vec<usize> = (0..w)
            .filter(|&j| s2[j].0.trim_ascii().len() >= 3)
            .collect();
        let j = cands[rng.below(cands.len())];
        let ld = lead(&s2[j].0).len();
        s2[j].0.insert(ld, b'Q');
        t.record(
            label("stale_context"),
            variant,
            file,
            false,
            Oracle::Refuse,
            run_locate(file, &join(&s2), &replace),
        );
        // Replay on the edited file.
        let oracle = if count_naive(&search, &replace) > 0 {
            Oracle::Refuse
        } else {
            Oracle::Already
        };
        t.record(
            label("replay"),
            variant,
            &want,
            false,
            oracle,
            run_locate(&want, &search, &replace),
        );
        if std::env::var("PERTURB_DEBUG").is_ok() {
            let l = locate_replace(&want, &search, &replace, Occurrence::Unique);
            if !matches!(&l, Ok(l) if l.already_applied) {
                println!(
                    "REPLAY {variant} search={:?}\nreplace={:?}\n{:?}",
                    String::from_utf8_lossy(&search),
                    String::from_utf8_lossy(&replace),
                    l.map(|l| (l.matched_with, l.lines))
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Diffs

struct DiffEdit {
    edit: Edit,
    /// Context lines before and after the changed lines.
    ctx: usize,
}

/// Renders hunks for the edits; `numbers` = None gives `@@ @@`.
fn hunk_text(
    lines: &[(Vec<u8>, Vec<u8>)],
    d: &DiffEdit,
    number_shift: Option<i64>,
) -> (String, Vec<u8>) {
    let e = &d.edit;
    // Common prefix/suffix of old and new inside the window.
    let mut pre = 0;
    while pre < e.old.len() && pre < e.new.len() && e.old[pre] == e.new[pre] {
        pre += 1;
    }
    let mut suf = 0;
    while suf < e.old.len() - pre
        && suf < e.new.len() - pre
        && e.old[e.old.len() - 1 - suf] == e.new[e.new.len() - 1 - suf]
    {
        suf += 1;
    }
    let first = e.s + pre; // first changed line in the file
    let removed = &e.old[pre..e.old.len() - suf];
    let added = &e.new[pre..e.new.len() - suf];
    let cb = first.saturating_sub(d.ctx);
    let after = first + removed.len();
    let ca = (after + d.ctx).min(lines.len());
    let mut body = Vec::new();
    let no_nl = |l: &(Vec<u8>, Vec<u8>)| l.1.is_empty();
    let push = |prefix: u8, l: &(Vec<u8>, Vec<u8>), body: &mut Vec<u8>| {
        body.push(prefix);
        body.extend_from_slice(&l.0);
        body.push(b'\n');
    };
    for l in &lines[cb..first] {
        push(b' ', l, &mut body);
    }
    for l in removed {
        push(b'-', l, &mut body);
        if no_nl(l) {
            body.extend_from_slice(b"\\ No newline at end of file\n");
        }
    }
    for l in added {
        push(b'+', l, &mut body);
        if no_nl(l) {
            body.extend_from_slice(b"\\ No newline at end of file\n");
        }
    }
    for l in &lines[after..ca] {
        push(b' ', l, &mut body);
        if no_nl(l) {
            body.extend_from_slice(b"\\ No newline at end of file\n");
        }
    }
    let old_count = (first - cb) + removed.len() + (ca - after);
    let new_count = (first - cb) + added.len() + (ca - after);
    let header = match number_shift {
        None => "@@ @@\n".to_string(),
        Some(k) => format!(
            "@@ -{},{} +{},{} @@\n",
            (cb as i64 + 1 + k).max(1),
            old_count,
            cb + 1,
            new_count
        ),
    };
    (header, body)
}

fn run_diff(file: &[u8], diff: &[u8]) -> Result<(Vec<u8>, bool), String> {
    let patches = parse(diff, Some("src/f")).map_err(|e| e.to_string())?;
    if patches.len() != 1 {
        return Err(format!("{} file patches", patches.len()));
    }
    match plan_file(file, &patches[0]) {
        Ok(l) => Ok((apply(file, &l.splices), l.already_applied)),
        Err(e) => Err(e.to_string()),
    }
}

fn diff_cases(t: &mut Tally, rng: &mut Rng, variant: &str, file: &[u8]) {
    let lines = lines_of(file);
    let n = lines.len();
    for round in 0..5 {
        // One to three edits, far apart.
        let k = 1 + rng.below(3);
        let mut edits: Vec<DiffEdit> = Vec::new();
        let mut tries = 0;
        while edits.len() < k && tries < 100 {
            tries += 1;
            let w = 3 + rng.below(4);
            let s = rng.below(n - w + 1);
            if edits
                .iter()
                .any(|d| s + w + 8 > d.edit.s && d.edit.s + d.edit.w + 8 > s)
            {
                continue;
            }
            let Some(edit) = make_edit(rng, &lines, s, w, round * 10 + edits.len()) else {
                continue;
            };
            let ctx = 1 + rng.below(3);
            let d = DiffEdit { edit, ctx };
            // The hunk's old side must be unique (trimmed) or the case is not clean.
            let (_, body) = hunk_text(&lines, &d, Some(0));
            let old_lines: Vec<Vec<u8>> = body
                .split(|&b| b == b'\n')
                .filter(|l| l.first().is_some_and(|&c| c == b' ' || c == b'-'))
                .map(|l| l[1..].trim_ascii().to_vec())
                .collect();
            let m = old_lines.len();
            let count = (0..=n.saturating_sub(m))
                .filter(|&i| (0..m).all(|j| lines[i + j].0.trim_ascii() == old_lines[j].as_slice()))
                .count();
            if count != 1 {
                continue;
            }
            edits.push(d);
        }
        if edits.is_empty() {
            continue;
        }
        let want = expected_after(&lines, &edits.iter().map(|d| &d.edit).collect::<Vec<_>>());
        let build = |shift: Option<i64>, order_rev: bool, headers: bool| -> Vec<u8> {
            let mut out = Vec::new();
            if headers {
                out.extend_from_slice(b"diff --git a/src/f b/src/f\nindex 0000000..1111111 100644\n--- a/src/f\t2024-05-01 10:00:00\n+++ b/src/f\n");
            }
            let mut hs: Vec<(String, Vec<u8>)> =
                edits.iter().map(|d| hunk_text(&lines, d, shift)).collect();
            hs.sort_by_key(|h| h.0.clone());
            let mut order: Vec<usize> = (0..edits.len()).collect();
            order.sort_by_key(|&i| edits[i].edit.s);
            if order_rev {
                order.reverse();
            }
            for i in order {
                let (h, b) = hunk_text(&lines, &edits[i], shift);
                out.extend_from_slice(h.as_bytes());
                out.extend_from_slice(&b);
            }
            out
        };
        let label = |k: &str| format!("diff {k} round {round} ({} hunks)", edits.len());
        let ok = |b: Vec<u8>| Oracle::Bytes(b);
        t.record(
            label("clean"),
            variant,
            file,
            true,
            ok(want.clone()),
            run_diff(file, &build(Some(0), false, true)),
        );
        t.record(
            label("no_headers"),
            variant,
            file,
            true,
            ok(want.clone()),
            run_diff(file, &build(Some(0), false, false)),
        );
        let shift = rng.below(30) as i64 - 15;
        t.record(
            label("wrong_numbers"),
            variant,
            file,
            true,
            ok(want.clone()),
            run_diff(file, &build(Some(shift), false, true)),
        );
        t.record(
            label("no_numbers"),
            variant,
            file,
            true,
            ok(want.clone()),
            run_diff(file, &build(None, false, false)),
        );
        t.record(
            label("shuffled"),
            variant,
            file,
            true,
            ok(want.clone()),
            run_diff(file, &build(Some(0), true, true)),
        );
        // CRLF diff text.
        let crlf: Vec<u8> = String::from_utf8_lossy(&build(Some(0), false, true))
            .replace('\n', "\r\n")
            .into_bytes();
        if std::str::from_utf8(file).is_ok() {
            t.record(
                label("crlf_diff"),
                variant,
                file,
                true,
                ok(want.clone()),
                run_diff(file, &crlf),
            );
        }
        // No "\ No newline" markers (LLMs drop them).
        let plain: Vec<u8> = String::from_utf8_lossy(&build(None, false, false))
            .replace("\\ No newline at end of file\n", "")
            .into_bytes();
        if std::str::from_utf8(file).is_ok() {
            t.record(
                label("no_eof_marker"),
                variant,
                file,
                true,
                ok(want.clone()),
                run_diff(file, &plain),
            );
        }
        // Trailing blank context line on every hunk, and spaces lost on blank context.
        let mut blank = Vec::new();
        for line in build(Some(0), false, false).split_inclusive(|&b| b == b'\n') {
            if line.starts_with(b"@@") && !blank.is_empty() {
                blank.extend_from_slice(b"\n");
            }
            if line == b" \n" {
                blank.extend_from_slice(b"\n");
            } else {
                blank.extend_from_slice(line);
            }
        }
        blank.extend_from_slice(b"\n");
        t.record(
            label("blank_tail"),
            variant,
            file,
            true,
            ok(want.clone()),
            run_diff(file, &blank),
        );
        // Re-indented hunk bodies (+4 spaces on non-blank lines) and trailing spaces.
        let mut reind = Vec::new();
        for line in build(None, false, false).split_inclusive(|&b| b == b'\n') {
            match line.first() {
                Some(b' ' | b'+' | b'-') if !line[1..].trim_ascii().is_empty() => {
                    reind.push(line[0]);
                    reind.extend_from_slice(b"    ");
                    reind.extend_from_slice(&line[1..line.len() - 1]);
                    reind.extend_from_slice(if line[0] == b'+' { b"\n" } else { b" \n" });
                }
                _ => reind.extend_from_slice(line),
            }
        }
        if std::str::from_utf8(file).is_ok() {
            t.record(
                label("reindent"),
                variant,
                file,
                true,
                ok(want.clone()),
                run_diff(file, &reind),
            );
        }
        // Stale context in the first hunk: must refuse.
        let d0 = &edits[0];
        let (h, b) = hunk_text(&lines, d0, None);
        let mut stale = h.into_bytes();
        let mut changed = false;
        for line in b.split_inclusive(|&c| c == b'\n') {
            if !changed && line.first() == Some(&b' ') && line[1..].trim_ascii().len() >= 3 {
                let ld = lead(&line[1..]).len();
                stale.push(b' ');
                stale.extend_from_slice(&line[1..1 + ld]);
                stale.push(b'Q');
                stale.extend_from_slice(&line[1 + ld..]);
                changed = true;
            } else {
                stale.extend_from_slice(line);
            }
        }
        if changed {
            t.record(
                label("stale_context"),
                variant,
                file,
                false,
                Oracle::Refuse,
                run_diff(file, &stale),
            );
        }
        // Duplicated region, no numbers: must refuse.
        let e0 = &d0.edit;
        let (h, body) = hunk_text(&lines, d0, Some(0));
        let _ = h;
        let old_len = body
            .split(|&c| c == b'\n')
            .filter(|l| l.first().is_some_and(|&c| c == b' ' || c == b'-'))
            .count();
        let first_old = e0.s.saturating_sub(0);
        let _ = first_old;
        let mut dup_lines = lines.clone();
        // Copy the whole neighbourhood of the hunk to the end of the file.
        let from = e0.s.saturating_sub(d0.ctx + 1);
        let to = (e0.s + e0.w + d0.ctx + 1).min(n);
        let mut block: Vec<_> = lines[from..to].to_vec();
        if let Some(l) = dup_lines.last_mut() {
            if l.1.is_empty() {
                l.1 = b"\n".to_vec();
            }
        }
        if let Some(l) = block.last_mut() {
            if l.1.is_empty() {
                l.1 = b"\n".to_vec();
            }
        }
        dup_lines.extend(block);
        let dup = join(&dup_lines);
        let _ = old_len;
        let single = DiffEdit {
            edit: Edit {
                s: e0.s,
                w: e0.w,
                old: e0.old.clone(),
                new: e0.new.clone(),
            },
            ctx: d0.ctx,
        };
        let (_, b) = hunk_text(&lines, &single, None);
        let mut amb = b"@@ @@\n".to_vec();
        amb.extend_from_slice(&b);
        t.record(
            label("duplicate_no_hint"),
            variant,
            &dup,
            false,
            Oracle::Refuse,
            run_diff(&dup, &amb),
        );
        // Same, with the right numbers: the hint picks the original place.
        let (h, b) = hunk_text(&lines, &single, Some(0));
        let mut hinted = h.into_bytes();
        hinted.extend_from_slice(&b);
        let mut want_dup = expected_after(&lines, &[&single.edit]);
        let mut tail = dup[file.len()..].to_vec();
        if !file.ends_with(b"\n") {
            want_dup.extend_from_slice(b"\n");
            tail = dup[file.len() + 1..].to_vec();
        }
        want_dup.extend_from_slice(&tail);
        t.record(
            label("duplicate_hinted"),
            variant,
            &dup,
            false,
            Oracle::Bytes(want_dup),
            run_diff(&dup, &hinted),
        );
        // Replay on the edited file.
        t.record(
            label("replay"),
            variant,
            &want,
            false,
            Oracle::Already,
            run_diff(&want, &build(Some(0), false, true)),
        );
        if std::env::var("PERTURB_DEBUG").is_ok() {
            let d = build(Some(0), false, true);
            if !matches!(run_diff(&want, &d), Ok((_, true))) {
                let p = parse(&d, None).unwrap();
                let l = plan_file(&want, &p[0]);
                println!(
                    "DREPLAY {variant}\n{}\n{:?}",
                    String::from_utf8_lossy(&d),
                    l.map(|l| (l.lines, l.splices))
                );
            }
        }
    }
}

#[test]
fn perturbation_corpus() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut loc = Tally::default();
    let mut dif = Tally::default();
    for src in [RUST, PYTHON, GO] {
        for (variant, file) in variants(src) {
            locate_cases(&mut loc, &mut rng, variant, &file);
            diff_cases(&mut dif, &mut rng, variant, &file);
        }
    }
    for (name, t) in [("locate", &loc), ("diff", &dif)] {
        println!(
            "{name}: {} cases, {} correct; wrong place {}, false already-applied {}, EOL/bytes broken {}; \
             whitespace-only recovered {}/{}; must-refuse refused {}/{}",
            t.cases, t.correct, t.wrong_place, t.false_already, t.eol_or_bytes_broken,
            t.ws_recovered, t.ws_cases, t.refused, t.refuse_cases
        );
        for f in &t.failures {
            println!("  {f}");
        }
    }
    for t in [&loc, &dif] {
        assert!(t.cases >= 250);
        assert_eq!(t.wrong_place, 0, "wrong-place applications");
        assert_eq!(t.false_already, 0, "false already-applied answers");
        assert_eq!(t.eol_or_bytes_broken, 0, "EOL or encoding changed");
        assert!(
            t.ws_recovered * 100 >= t.ws_cases * 99,
            "whitespace recovery below 99%"
        );
    }
    assert!(loc.cases + dif.cases >= 500);
}
