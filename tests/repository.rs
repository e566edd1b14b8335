//! The repository stands alone: no file refers to a path outside it (a
//! clone has nothing beside it).

use std::path::Path;

fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if name == "target" || name.starts_with('.') && name != ".ci" {
            continue;
        }
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[test]
fn no_file_refers_outside_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    walk(root, &mut files);
    let outside = [["..", "/shared"].concat(), ["ARCHITECTURE", ".md"].concat()];
    let mut hits = Vec::new();
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        for (i, line) in text.lines().enumerate() {
            if outside.iter().any(|o| line.contains(o.as_str())) {
                hits.push(format!("{}:{}: {line}", f.display(), i + 1));
            }
        }
    }
    assert!(files.len() > 50, "walked {} files", files.len());
    assert!(hits.is_empty(), "{}", hits.join("\n"));
}
