//! Truncated text: where it was cut (refused with its JSON Pointer) and closing what can be
//! closed without guessing string content.

use super::{string_end, Failure};

/// Where a truncated text was cut, when closing its brackets would mean guessing content: inside
/// a string, after `:` or `,`, after a key, in a number or a literal. `None` when the text ends
/// between values, so appending the closers of the open brackets restores it.
pub fn truncation(text: &str) -> Option<Failure> {
    let scan = Scan::run(text);
    if scan.open.is_empty() || scan.broken {
        return None;
    }
    let what = scan.cut?;
    Some(Failure::Truncated {
        pointer: scan.pointer(),
        what,
    })
}

/// Appends the closers of the open `{`/`[` stack, only when the scan ends between values.
pub(super) fn close_truncated(text: &str) -> Option<String> {
    let scan = Scan::run(text);
    if scan.cut.is_some() || scan.open.is_empty() || scan.broken {
        return None;
    }
    let mut out = text.trim_end().to_string();
    for frame in scan.open.iter().rev() {
        out.push(if frame.is_object { '}' } else { ']' });
    }
    Some(out)
}

/// One open bracket during a scan, with where the scan is inside it (for the pointer).
struct Frame {
    is_object: bool,
    key: Option<String>,
    index: usize,
}

/// A string-aware scan of (possibly truncated) JSON: the open brackets at the end and, if the
/// text stops where more must follow, what was cut.
struct Scan {
    open: Vec<Frame>,
    cut: Option<&'static str>,
    /// Something other than JSON was met (the closing repair does not apply).
    broken: bool,
}

impl Scan {
    fn run(text: &str) -> Scan {
        let mut scan = Scan {
            open: Vec::new(),
            cut: None,
            broken: false,
        };
        let bytes = text.as_bytes();
        // What the last token was: 'k' key string, 'v' complete value, ':' ',' '{' '[' openers.
        let mut last = b' ';
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            match b {
                b' ' | b'\n' | b'\r' | b'\t' => {}
                b'"' => {
                    let is_key = scan.open.last().is_some_and(|f| f.is_object)
                        && matches!(last, b'{' | b',');
                    let Some(end) = string_end(text, i) else {
                        if is_key {
                            scan.key_here(None);
                        }
                        scan.cut = Some("inside a string");
                        return scan;
                    };
                    if is_key {
                        let key = serde_json::from_str::<String>(&text[i..end]).ok();
                        scan.key_here(key);
                        last = b'k';
                    } else {
                        last = b'v';
                    }
                    i = end;
                    continue;
                }
                b'{' | b'[' => {
                    scan.open.push(Frame {
                        is_object: b == b'{',
                        key: None,
                        index: 0,
                    });
                    last = b;
                }
                b'}' | b']' => {
                    if scan.open.pop().is_none() {
                        scan.broken = true;
                        return scan;
                    }
                    last = b'v';
                }
                b':' => last = b':',
                b',' => {
                    if let Some(f) = scan.open.last_mut() {
                        if !f.is_object {
                            f.index += 1;
                        }
                    }
                    last = b',';
                }
                _ => {
                    let len = text[i..]
                        .find([',', '}', ']', ' ', '\n', '\r', '\t'])
                        .unwrap_or(text.len() - i);
                    let token = &text[i..i + len];
                    let literal = matches!(token, "true" | "false" | "null");
                    if i + len == text.len() && !literal {
                        scan.cut = Some("inside a number or literal");
                        return scan;
                    }
                    let known =
                        matches!(token, "true" | "false" | "null") || token.parse::<f64>().is_ok();
                    if !known {
                        scan.broken = true;
                        return scan;
                    }
                    last = b'v';
                    i += len;
                    continue;
                }
            }
            i += 1;
        }
        scan.cut = match last {
            b':' => Some("after a `:`"),
            b',' => Some("after a `,`"),
            b'k' => Some("after a key"),
            _ => None,
        };
        scan
    }

    fn key_here(&mut self, key: Option<String>) {
        if let Some(f) = self.open.last_mut() {
            f.key = key;
        }
    }

    /// The JSON Pointer of the place the text stops.
    fn pointer(&self) -> String {
        let mut out = String::new();
        for f in &self.open {
            out.push('/');
            if f.is_object {
                let key = f.key.clone().unwrap_or_default();
                out.push_str(&key.replace('~', "~0").replace('/', "~1"));
            } else {
                out.push_str(&f.index.to_string());
            }
        }
        out
    }
}
