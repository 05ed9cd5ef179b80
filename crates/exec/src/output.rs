//! Bounded capture of one output stream: the first bytes and the last bytes, with an exact count
//! of what was dropped between them. Memory stays at the cap whatever the command prints, and the
//! two ends are cut on UTF-8 character boundaries so the text never starts or ends mid-character.

use std::collections::VecDeque;

/// Head and tail of a stream whose total may exceed `head_cap + tail_cap`.
pub struct Capture {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    head_cap: usize,
    tail_cap: usize,
    total: u64,
}

/// A stream as it goes into the result.
pub struct Captured {
    pub text: String,
    /// Bytes the stream carried that are not in `text`.
    pub omitted_bytes: u64,
}

impl Capture {
    /// A capture keeping at most `budget` bytes: half from the start, half from the end.
    pub fn new(budget: usize) -> Capture {
        let head_cap = budget / 2;
        Capture {
            head: Vec::new(),
            tail: VecDeque::new(),
            head_cap,
            tail_cap: budget - head_cap,
            total: 0,
        }
    }

    pub fn push(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let room = self.head_cap - self.head.len();
        if room > 0 {
            let take = room.min(bytes.len());
            self.head.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
        }
        if bytes.len() >= self.tail_cap {
            self.tail.clear();
            self.tail.extend(&bytes[bytes.len() - self.tail_cap..]);
            return;
        }
        let overflow = (self.tail.len() + bytes.len()).saturating_sub(self.tail_cap);
        self.tail.drain(..overflow);
        self.tail.extend(bytes);
    }

    /// The text: head, a marker naming the omitted count when bytes were dropped, then tail.
    pub fn finish(self) -> Captured {
        let tail: Vec<u8> = self.tail.into_iter().collect();
        let dropped_between = self.total - self.head.len() as u64 - tail.len() as u64;
        if dropped_between == 0 {
            let mut all = self.head;
            all.extend_from_slice(&tail);
            return Captured {
                text: String::from_utf8_lossy(&all).into_owned(),
                omitted_bytes: 0,
            };
        }
        let head = &self.head[..utf8_prefix_len(&self.head)];
        let tail = &tail[utf8_suffix_start(&tail)..];
        let omitted = self.total - head.len() as u64 - tail.len() as u64;
        let text = format!(
            "{}\n…[{omitted} bytes omitted]…\n{}",
            String::from_utf8_lossy(head),
            String::from_utf8_lossy(tail)
        );
        Captured {
            text,
            omitted_bytes: omitted,
        }
    }
}

/// The length of `bytes` without a trailing incomplete UTF-8 sequence.
fn utf8_prefix_len(bytes: &[u8]) -> usize {
    match std::str::from_utf8(bytes) {
        Ok(_) => bytes.len(),
        Err(e) if e.error_len().is_none() => e.valid_up_to(),
        Err(_) => bytes.len(),
    }
}

/// Where the first complete character of `bytes` starts (skipping continuation bytes).
fn utf8_suffix_start(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .take(4)
        .position(|b| (b & 0xC0) != 0x80)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_head_and_tail_and_counts_the_rest_exactly() {
        let mut capture = Capture::new(10);
        for chunk in b"0123456789abcdefghij".chunks(3) {
            capture.push(chunk);
        }
        let out = capture.finish();
        assert_eq!(out.omitted_bytes, 10);
        assert_eq!(
            out.text.len() as u64 - "\n…[10 bytes omitted]…\n".len() as u64,
            10
        );
        assert!(out.text.starts_with("01234\n"), "{}", out.text);
        assert!(out.text.ends_with("\nfghij"), "{}", out.text);
    }

    #[test]
    fn small_output_is_kept_whole() {
        let mut capture = Capture::new(100);
        capture.push(b"hello ");
        capture.push(b"world");
        let out = capture.finish();
        assert_eq!((out.text.as_str(), out.omitted_bytes), ("hello world", 0));
    }

    #[test]
    fn cuts_fall_on_character_boundaries_and_count_the_partial_characters() {
        let text = "é".repeat(20); // 40 bytes
        let mut capture = Capture::new(9);
        capture.push(text.as_bytes());
        let out = capture.finish();
        assert!(!out.text.contains('\u{fffd}'), "{}", out.text);
        let kept = out.text.matches('é').count() as u64 * 2;
        assert_eq!(kept + out.omitted_bytes, 40);
    }
}
