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

/// The section a citation names after `docs/<name>.md` (`docs/<name>.md,
/// "Section"` or `docs/<name>.md ("Section")`, the quote possibly broken
/// over comment lines), with its line breaks and comment markers made
/// single spaces.
fn cited_section(after: &str) -> Option<String> {
    let mut rest = after;
    let mut separated = false;
    loop {
        let c = rest.chars().next()?;
        if c == ',' || c == ';' || c == '(' {
            separated = true;
        } else if !(c.is_whitespace() || c == '/' || c == '!' || c == '#') {
            break;
        }
        rest = &rest[c.len_utf8()..];
    }
    let quoted = rest.strip_prefix('"').filter(|_| separated)?;
    let end = quoted.find('"')?;
    let words: Vec<&str> = quoted[..end]
        .split_whitespace()
        .filter(|w| !w.chars().all(|c| c == '/' || c == '!' || c == '#'))
        .collect();
    Some(words.join(" "))
}

/// Every document a file cites (`docs/<name>.md`) exists, and every section
/// it cites by name (`docs/<name>.md, "Section"`) is a heading of that
/// document (a heading that starts with the name: headings carry dates).
#[test]
fn every_cited_document_and_section_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    walk(root, &mut files);
    let mut bad = Vec::new();
    let mut sections = 0;
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        let mut from = 0;
        while let Some(at) = text[from..].find("docs/") {
            let start = from + at;
            from = start + 5;
            let name_len = text[from..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                .unwrap_or(text.len() - from);
            let stem = &text[from..from + name_len];
            let Some(after) = text[from + name_len..].strip_prefix(".md") else {
                continue;
            };
            if stem.is_empty() {
                continue;
            }
            let line = text[..start].matches('\n').count() + 1;
            let doc = root.join("docs").join(format!("{stem}.md"));
            let Ok(body) = std::fs::read_to_string(&doc) else {
                bad.push(format!(
                    "{}:{line}: docs/{stem}.md does not exist",
                    f.display()
                ));
                continue;
            };
            if let Some(section) = cited_section(after) {
                sections += 1;
                let found = body
                    .lines()
                    .filter(|l| l.starts_with('#'))
                    .any(|l| l.trim_start_matches('#').trim().starts_with(&section));
                if !found {
                    bad.push(format!(
                        "{}:{line}: docs/{stem}.md has no section \"{section}\"",
                        f.display()
                    ));
                }
            }
        }
    }
    assert!(sections > 40, "found only {sections} cited sections");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// In Markdown a line that starts with `- ` begins a list item even in the
/// middle of a paragraph, so a range wrapped at its dash ("1.34\n- 2.34x")
/// renders as a stray bullet. A line that starts an item must follow a
/// blank line, a heading or table row, a line that ends with a colon (a
/// list the sentence announces), another item (nested under it unless its
/// text starts with a digit, which is how a wrapped range reads), or the
/// continuation of an item indented deeper than it (the next item of an
/// outer list). Code blocks are left alone.
#[test]
fn no_wrapped_line_starts_a_list_item() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    walk(root, &mut files);
    let indent = |l: &str| l.len() - l.trim_start().len();
    let item = |l: &str| l.trim_start().starts_with("- ");
    let mut bad = Vec::new();
    let mut docs = 0;
    for f in files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "md"))
    {
        let text = std::fs::read_to_string(f).unwrap();
        docs += 1;
        let mut fenced = false;
        let mut prev = "";
        for (i, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
                prev = "";
                continue;
            }
            if fenced {
                continue;
            }
            let p = prev.trim();
            let fine = !item(line)
                || p.is_empty()
                || p.starts_with('#')
                || p.starts_with('|')
                || p.ends_with(':')
                || if item(prev) {
                    indent(line) <= indent(prev)
                        || !line.trim_start()[2..].starts_with(|c: char| c.is_ascii_digit())
                } else {
                    indent(line) < indent(prev)
                };
            if !fine {
                bad.push(format!("{}:{}: {prev}\n  then: {line}", f.display(), i + 1));
            }
            prev = line;
        }
    }
    assert!(docs > 10, "found only {docs} Markdown files");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
