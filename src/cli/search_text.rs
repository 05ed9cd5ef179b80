//! `coder search` as text (`path:line:text`, `path-line-text` for context, `--` between
//! groups, as `rg -n` prints), rendered while the answer is parsed: each line is written out as
//! soon as its object is read, borrowed from the reply's bytes. No list of files or lines is
//! built, so a 20 MB answer costs one pass over its bytes and no allocation per line.

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt;
use std::io::Write;

/// Renders a `search` result; `Err` when it is not a search answer (nothing written then, since
/// the shape is checked on the first key) or stdout failed.
pub fn render(out: &mut impl Write, json: &str) -> Result<(), Failure> {
    let mut de = serde_json::Deserializer::from_str(json);
    let mut state = Rendering {
        out,
        io: None,
        truncated_reason: None,
    };
    let outcome = (&mut state).deserialize(&mut de);
    if let Some(e) = state.io.take() {
        return Err(Failure::Io(e));
    }
    outcome.map_err(|_| Failure::NotSearch)?;
    if let Some(reason) = state.truncated_reason {
        state.out.flush().map_err(Failure::Io)?;
        eprintln!("[truncated: {reason}]");
    }
    Ok(())
}

pub enum Failure {
    /// The text is not a search answer: the caller shows it another way.
    NotSearch,
    Io(std::io::Error),
}

/// Where the rendering goes, and what it met on the way (an I/O error is kept aside: serde's
/// errors cannot carry one).
struct Rendering<'o, W: Write> {
    out: &'o mut W,
    io: Option<std::io::Error>,
    truncated_reason: Option<String>,
}

impl<W: Write> Rendering<'_, W> {
    fn write<E: de::Error>(&mut self, parts: &[&[u8]]) -> Result<(), E> {
        for part in parts {
            if let Err(e) = self.out.write_all(part) {
                self.io = Some(e);
                return Err(E::custom("stdout failed"));
            }
        }
        Ok(())
    }
}

/// The answer object: `files` is rendered as it streams by; the rest is skipped, except
/// `truncated_reason`.
impl<'de, W: Write> DeserializeSeed<'de> for &mut Rendering<'_, W> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, W: Write> Visitor<'de> for &mut Rendering<'_, W> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a search answer")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut first = true;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            // Every search answer starts with `path`: anything else is shown another way
            // before a byte of it is written.
            if first && key != "path" {
                return Err(de::Error::custom("not a search answer"));
            }
            first = false;
            match key.as_ref() {
                "files" => map.next_value_seed(Files(&mut *self))?,
                "truncated_reason" => {
                    self.truncated_reason = map.next_value::<Option<String>>()?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

struct Files<'r, 'o, W: Write>(&'r mut Rendering<'o, W>);

impl<'de, W: Write> DeserializeSeed<'de> for Files<'_, '_, W> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, W: Write> Visitor<'de> for Files<'_, '_, W> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of files")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(File(&mut *self.0))?.is_some() {}
        Ok(())
    }
}

struct File<'r, 'o, W: Write>(&'r mut Rendering<'o, W>);

impl<'de, W: Write> DeserializeSeed<'de> for File<'_, '_, W> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, W: Write> Visitor<'de> for File<'_, '_, W> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a file with its lines")
    }
    /// The daemon writes `path` before `lines`; a file without `lines` (paths only) is its path.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut path: Option<Cow<'de, str>> = None;
        let mut had_lines = false;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match (key.as_ref(), &path) {
                ("path", _) => path = Some(map.next_value::<Cow<'de, str>>()?),
                ("lines", Some(p)) => {
                    map.next_value_seed(Lines {
                        to: &mut *self.0,
                        path: p.as_bytes(),
                    })?;
                    had_lines = true;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        match (path, had_lines) {
            (Some(p), false) => self.0.write(&[p.as_bytes(), b"\n"]),
            _ => Ok(()),
        }
    }
}

struct Lines<'r, 'o, 'p, W: Write> {
    to: &'r mut Rendering<'o, W>,
    path: &'p [u8],
}

impl<'de, W: Write> DeserializeSeed<'de> for Lines<'_, '_, '_, W> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_option(self)
    }
}

#[derive(Deserialize)]
struct Line<'a> {
    line: Option<u64>,
    #[serde(rename = "match")]
    is_match: bool,
    #[serde(borrow)]
    text: Cow<'a, str>,
}

impl<'de, W: Write> Visitor<'de> for Lines<'_, '_, '_, W> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of lines")
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut previous: Option<u64> = None;
        let mut digits = [0u8; 20];
        while let Some(line) = seq.next_element::<Line<'de>>()? {
            let n = line.line.unwrap_or(0);
            if previous.is_some_and(|p| n > p + 1) {
                self.to.write(&[b"--\n"])?;
            }
            let sep: &[u8] = if line.is_match { b":" } else { b"-" };
            let number = crate::jsonw::decimal(n, &mut digits);
            self.to
                .write(&[self.path, sep, number, sep, line.text.as_bytes(), b"\n"])?;
            previous = Some(n);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_as_rg_does_and_refuses_other_answers() {
        let answer = r#"{"path":"/w","pattern":"x","files":[
            {"path":"/w/a.rs","matches":2,"lines":[
                {"line":1,"match":true,"column":1,"text":"x = 1"},
                {"line":2,"match":false,"text":"ctx \"q\""},
                {"line":9,"match":true,"column":3,"text":"a x"}]},
            {"path":"/w/b.rs","matches":1}],
            "truncated":true,"truncated_reason":"max_results"}"#;
        let mut out = Vec::new();
        assert!(render(&mut out, answer).is_ok());
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "/w/a.rs:1:x = 1\n/w/a.rs-2-ctx \"q\"\n--\n/w/a.rs:9:a x\n/w/b.rs\n"
        );
        let mut out = Vec::new();
        let other = render(&mut out, r#"{"content":"x","files":[]}"#);
        assert!(matches!(other, Err(Failure::NotSearch)) && out.is_empty());
    }
}
