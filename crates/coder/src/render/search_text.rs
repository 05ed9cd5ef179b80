//! `coder search` as text (`path:line:text`, `path-line-text` for context, `--` between
//! groups, as `rg -n` prints). `coder` asks the daemon for `format: "text"`, which its walker
//! threads render, and prints that string. A JSON answer (`format: "json"`) is rendered while it
//! is parsed: each line is written out as soon as its object is read, borrowed from the reply's
//! bytes, with no list of files or lines built.

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt;
use std::io::{BufRead, Write};

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
                // The daemon rendered it (`format: "text"`): printed as it is.
                "text" => {
                    let text = map.next_value::<Cow<'de, str>>()?;
                    self.write(&[text.as_bytes()])?;
                }
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
        let mut previous_was_context = false;
        let mut digits = [0u8; 20];
        while let Some(line) = seq.next_element::<Line<'de>>()? {
            let n = line.line.unwrap_or(0);
            // A gap is a group boundary only where context is shown (as `rg` prints it): two
            // matches with no context between them are not groups.
            let gap = previous.is_some_and(|p| n > p + 1);
            if gap && (!line.is_match || previous_was_context) {
                self.to.write(&[b"--\n"])?;
            }
            let sep: &[u8] = if line.is_match { b":" } else { b"-" };
            let number = wire::jsonw::decimal(n, &mut digits);
            self.to
                .write(&[self.path, sep, number, sep, line.text.as_bytes(), b"\n"])?;
            previous = Some(n);
            previous_was_context = !line.is_match;
        }
        Ok(())
    }
}

/// The key that opens a text answer's lines. It can only occur where the daemon wrote it: inside
/// a JSON string every `"` is escaped, so `"` followed by `:` is never inside one.
const TEXT_KEY: &[u8] = b"\"text\":\"";

/// Reads a reply line from `input`, printing a text answer's lines (`format: "text"`) to `out` as
/// they arrive, unescaped, without holding them: the daemon sends megabytes and `coder` holds a
/// buffer's worth. Returns the reply with its `text` emptied (what is left to check: an error,
/// `truncated_reason`), or the whole reply when it has no text (an error, another form).
pub fn stream_reply(input: &mut impl BufRead, out: &mut impl Write) -> std::io::Result<Vec<u8>> {
    let mut reply = Vec::new();
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            return Ok(reply);
        }
        let newline = memchr::memchr(b'\n', buf);
        let take = newline.map_or(buf.len(), |i| i + 1);
        // The key may straddle two reads: look again from a few bytes back.
        let from = reply.len().saturating_sub(TEXT_KEY.len());
        reply.extend_from_slice(&buf[..take]);
        input.consume(take);
        let answer = reply.starts_with(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{");
        if let Some(at) = memchr::memmem::find(&reply[from..], TEXT_KEY).filter(|_| answer) {
            let value = from + at + TEXT_KEY.len();
            // Whatever followed the key in this read is the text's start: give it back first.
            let rest = reply.split_off(value);
            let mut input = Prefixed {
                prefix: &rest,
                inner: input,
            };
            wire::jsonw::copy_unescaped(&mut input, out)?;
            reply.push(b'"');
            input.read_until(b'\n', &mut reply)?;
            return Ok(reply);
        }
        if newline.is_some() {
            return Ok(reply);
        }
    }
}

/// A reader that yields `prefix` before what `inner` holds, without copying either.
struct Prefixed<'a, R> {
    prefix: &'a [u8],
    inner: R,
}

impl<R: BufRead> std::io::Read for Prefixed<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Prefixed<'_, R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.prefix.is_empty() {
            self.inner.fill_buf()
        } else {
            Ok(self.prefix)
        }
    }

    fn consume(&mut self, n: usize) {
        if self.prefix.is_empty() {
            self.inner.consume(n);
        } else {
            self.prefix = &self.prefix[n.min(self.prefix.len())..];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out `step` bytes at a time, so every split point is met.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    #[test]
    fn a_text_answer_streams_unescaped_at_every_split() {
        let text = "a.rs:1:x = \"q\" \\ tab\tend é 漢 🦀 \u{1} \u{7f}\n--\nb.rs-2-/*/\n";
        let answer = serde_json::json!({"path": "/w", "pattern": "\"text\":\"", "text": text,
            "files_matched": 2, "truncated_reason": "max_results"});
        // The daemon writes the key order path, pattern, ..., text, ...; serde_json sorts keys,
        // so build the line in the daemon's order by hand.
        let line = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"path\":\"/w\",\"pattern\":{},\"text\":{},\"files_matched\":2,\"truncated_reason\":\"max_results\"}}}}\n",
            answer["pattern"], answer["text"]
        );
        // A surrogate pair as another writer might send it.
        let line = line.replace("🦀", "\\ud83e\\udd80");
        for step in 1..40 {
            let mut input = std::io::BufReader::with_capacity(
                7,
                Trickle {
                    data: line.as_bytes(),
                    step,
                },
            );
            let mut out = Vec::new();
            let rest = stream_reply(&mut input, &mut out).unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), text, "step {step}");
            let rest: serde_json::Value = serde_json::from_slice(&rest).unwrap();
            assert_eq!(rest["result"]["text"], "", "step {step}");
            assert_eq!(rest["result"]["truncated_reason"], "max_results");
        }
    }

    #[test]
    fn a_reply_without_text_is_returned_whole() {
        let line = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32000}}\n{\"next\":1}\n";
        let mut input = std::io::BufReader::with_capacity(5, &line[..]);
        let mut out = Vec::new();
        let rest = stream_reply(&mut input, &mut out).unwrap();
        assert!(out.is_empty());
        assert_eq!(
            rest,
            &line[..line.iter().position(|&b| b == b'\n').unwrap() + 1]
        );
    }

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
