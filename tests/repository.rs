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

/// The library's module graph has no cycle: each top-level module uses
/// (outside comments) only modules that do not use it back, directly or
/// through others. The crate's error type counts as module `error`
/// (`crate::Error`, `crate::Result`); its deadlock variants carry the
/// reports of module `deadlock`, below every router model.
#[test]
fn the_module_graph_has_no_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut modules: Vec<(String, Vec<std::path::PathBuf>)> = Vec::new();
    for e in std::fs::read_dir(&src).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        if name == "lib" || name == "bin" {
            continue;
        }
        let mut files = Vec::new();
        if p.is_dir() {
            walk(&p, &mut files);
        } else {
            files.push(p.clone());
        }
        modules.push((name, files));
    }
    let names: Vec<String> = modules.iter().map(|m| m.0.clone()).collect();
    let uses: Vec<Vec<usize>> = modules
        .iter()
        .map(|(me, files)| {
            let mut u = Vec::new();
            for f in files {
                let text = std::fs::read_to_string(f).unwrap();
                for line in text.lines() {
                    let code = line.split("//").next().unwrap();
                    let uses_error = code.contains("crate::Error")
                        || code.contains("crate::Result")
                        || (code.contains("crate::{")
                            && (code.contains("Error") || code.contains("Result")));
                    for (k, n) in names.iter().enumerate() {
                        let hit =
                            code.contains(&format!("crate::{n}")) || (n == "error" && uses_error);
                        if n != me && hit && !u.contains(&k) {
                            u.push(k);
                        }
                    }
                }
            }
            u
        })
        .collect();
    assert!(names.len() >= 12, "{names:?}");
    // Depth-first search for a back edge.
    fn visit(
        k: usize,
        uses: &[Vec<usize>],
        state: &mut [u8],
        path: &mut Vec<usize>,
    ) -> Option<Vec<usize>> {
        state[k] = 1;
        path.push(k);
        for &j in &uses[k] {
            if state[j] == 1 {
                let at = path.iter().position(|&x| x == j).unwrap();
                let mut c = path[at..].to_vec();
                c.push(j);
                return Some(c);
            }
            if state[j] == 0
                && let Some(c) = visit(j, uses, state, path)
            {
                return Some(c);
            }
        }
        path.pop();
        state[k] = 2;
        None
    }
    let mut state = vec![0u8; names.len()];
    for k in 0..names.len() {
        if state[k] == 0
            && let Some(c) = visit(k, &uses, &mut state, &mut Vec::new())
        {
            let c: Vec<&str> = c.iter().map(|&i| names[i].as_str()).collect();
            panic!("the modules use each other in a cycle: {}", c.join(" -> "));
        }
    }
}
