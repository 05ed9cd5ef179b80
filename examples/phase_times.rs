use std::time::{Duration, Instant};
use streaming_iterator::StreamingIterator;
fn main() {
    let root = std::env::args().nth(1).unwrap();
    let ext = std::env::args().nth(2).unwrap();
    let mut files = Vec::new();
    let mut stack = vec![std::path::PathBuf::from(root)];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            if p.is_dir() {
                stack.push(p)
            } else if p.extension().is_some_and(|x| x == ext.as_str()) {
                files.push(p)
            }
        }
    }
    let (mut parse, mut outline, mut tags) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    for path in &files {
        let src = std::fs::read(path).unwrap();
        let lang = coderd::syntax::languages::for_path(path, None).unwrap();
        let q = coderd::syntax::queries::of(lang).unwrap();
        let t = Instant::now();
        let tree = coderd::syntax::parse(lang, &src, None).unwrap();
        parse += t.elapsed();
        let t = Instant::now();
        let _o = coderd::syntax::items::extract(&tree, &src, q);
        outline += t.elapsed();
        let t = Instant::now();
        let mut cursor = tree_sitter::QueryCursor::new();
        let mut caps = cursor.captures(q.tags.as_ref().unwrap(), tree.root_node(), src.as_slice());
        let mut n = 0;
        while let Some(_) = caps.next() {
            n += 1;
        }
        tags += t.elapsed();
        std::hint::black_box(n);
    }
    println!(
        "files {} parse {:?} outline {:?} tags {:?}",
        files.len(),
        parse,
        outline,
        tags
    );
}
