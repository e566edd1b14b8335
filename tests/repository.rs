//! The repository stands alone: no file refers to a path outside it (a
//! clone has nothing beside it).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
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

/// The names a string literal would capture as a format string
/// (`"{name}"`, `"{name:?}"`, `"{:>width$}"`): a format macro reads them as
/// it reads names in code.
fn format_names(lit: &[char]) -> Vec<String> {
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut out = Vec::new();
    let mut k = 0;
    while k < lit.len() {
        if lit[k] == '{' && lit.get(k + 1) == Some(&'{') {
            k += 2;
        } else if lit[k] == '{' {
            // To the closing brace: a name first, and `name$` in the spec.
            let end = lit[k..]
                .iter()
                .position(|&x| x == '}')
                .map_or(lit.len(), |e| k + e);
            let spec: String = lit[k + 1..end].iter().collect();
            let mut names: Vec<&str> = spec
                .split(|ch: char| !ident(ch) && ch != '$')
                .filter(|w| w.ends_with('$'))
                .map(|w| w.trim_end_matches('$'))
                .collect();
            names.push(spec.split(|ch: char| !ident(ch)).next().unwrap_or(""));
            out.extend(
                names
                    .into_iter()
                    .filter(|w| w.starts_with(|ch: char| ch == '_' || ch.is_alphabetic()))
                    .map(String::from),
            );
            k = end + 1;
        } else {
            k += 1;
        }
    }
    out
}

/// Rust source as tokens, for the module graph: identifiers, `::` and
/// single punctuation marks, and the names a string literal captures as a
/// format string; comments, the rest of string and character literals and
/// numbers left out (so that a brace in a string does not count).
fn rust_tokens(text: &str) -> Vec<String> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    // The end of a string literal whose opening quote is at `q`, with `hashes`
    // hashes (a raw string) or escapes (`hashes` is `None`).
    let string_end = |q: usize, hashes: Option<usize>| -> usize {
        let mut k = q + 1;
        while k < c.len() {
            match hashes {
                None if c[k] == '\\' => k += 2,
                None if c[k] == '"' => return k + 1,
                Some(h)
                    if c[k] == '"'
                        && c[k + 1..].iter().take(h).filter(|&&x| x == '#').count() == h =>
                {
                    return k + 1 + h;
                }
                _ => k += 1,
            }
        }
        c.len()
    };
    while i < c.len() {
        let ch = c[i];
        let next = c.get(i + 1).copied().unwrap_or(' ');
        if ch == '/' && next == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && next == '*' {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if ch == '"' {
            let end = string_end(i, None);
            out.extend(format_names(&c[i..end]));
            i = end;
        } else if (ch == 'r' || ch == 'b') && !(i > 0 && ident(c[i - 1])) && {
            // A raw or byte string: r"..", r#".."#, b"..", br#".."#.
            let mut k = i + 1;
            if ch == 'b' && c.get(k) == Some(&'r') {
                k += 1;
            }
            let h = c[k..].iter().take_while(|&&x| x == '#').count();
            c.get(k + h) == Some(&'"') && (h == 0 || ch == 'r' || c[i + 1] == 'r')
        } {
            let mut k = i + 1;
            if c[k] == 'r' {
                k += 1;
            }
            let raw = c[i] == 'r' || c[i + 1] == 'r';
            let h = c[k..].iter().take_while(|&&x| x == '#').count();
            let end = string_end(k + h, raw.then_some(h));
            out.extend(format_names(&c[i..end]));
            i = end;
        } else if ch == '\'' {
            // A character literal, or a lifetime's quote.
            if next == '\\' {
                i += 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if c.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else if ch == '_' || ch.is_alphabetic() {
            let s = i;
            while i < c.len() && ident(c[i]) {
                i += 1;
            }
            out.push(c[s..i].iter().collect());
            // A raw identifier: r#name.
            if out.last().is_some_and(|t| t == "r") && c.get(i) == Some(&'#') {
                out.pop();
                i += 1;
            }
        } else if ch.is_ascii_digit() {
            while i < c.len()
                && (ident(c[i]) || c[i] == '.' && c.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
            {
                i += 1;
            }
        } else if ch == ':' && next == ':' {
            out.push("::".into());
            i += 2;
        } else {
            if !ch.is_whitespace() {
                out.push(ch.to_string());
            }
            i += 1;
        }
    }
    out
}

/// For each of a file's tokens, whether it is a local binding's name, at
/// the binding or in its scope: a `let`, `if let`, `while let` or `for`
/// pattern's lower-case names and a function's parameters, each scoped to
/// its block (the enclosing one for `let`, the next one for the others),
/// and a closure's parameters, scoped to its body. Such a name does not
/// lead to an item that a glob import brings in under the same name (`let
/// report = ..` against a glob-imported `fn report`). What this does not
/// know errs toward a use: a match arm's bindings and a lifetime's name
/// count as names the module may mean.
fn locals(t: &[String]) -> Vec<bool> {
    let tok = |k: usize| t.get(k).map(String::as_str).unwrap_or("");
    let lower = |s: &str| s.starts_with(|ch: char| ch == '_' || ch.is_lowercase());
    let mut local = vec![false; t.len()];
    // The names bound in each open block, innermost last; and the names
    // of a header (`for`, `if let`, `while let`, `fn`) that the next block
    // opened will hold.
    let mut scopes: Vec<Vec<String>> = vec![Vec::new()];
    let mut pending: Vec<String> = Vec::new();
    let mut j = 0;
    while j < t.len() {
        match tok(j) {
            "{" => scopes.push(std::mem::take(&mut pending)),
            "}" if scopes.len() > 1 => {
                scopes.pop();
            }
            "let" | "for" => {
                // The pattern, up to its `=`, `;` or type (`let`) or its `in`
                // (a `for` loop; `impl T for S {` and `for<'a>` have none).
                let is_for = tok(j) == "for";
                let into_next = is_for || matches!(tok(j.wrapping_sub(1)), "if" | "while");
                let mut depth = 0usize;
                let mut k = j + 1;
                let mut names = Vec::new();
                while k < t.len() {
                    match tok(k) {
                        "{" if depth == 0 && is_for => break,
                        "(" | "[" | "{" => depth += 1,
                        ")" | "]" | "}" if depth == 0 => break,
                        ")" | "]" | "}" => depth -= 1,
                        "=" | "in" | ";" | ":" if depth == 0 => break,
                        s if lower(s)
                            && !matches!(s, "mut" | "ref")
                            && tok(k - 1) != "::"
                            && !matches!(tok(k + 1), "::" | "(" | "{" | ":" | "!") =>
                        {
                            names.push(k);
                        }
                        _ => {}
                    }
                    k += 1;
                }
                if is_for && tok(k) != "in" {
                    j += 1;
                    continue;
                }
                for k in names {
                    local[k] = true;
                    if into_next {
                        pending.push(t[k].clone());
                    } else {
                        scopes.last_mut().unwrap().push(t[k].clone());
                    }
                }
                j = k;
                continue;
            }
            "fn" => {
                // The parameters: the names before a `:` at the top of the
                // parameter list, and `self`; held by the body, if any.
                let mut k = j + 1;
                while k < t.len() && tok(k) != "(" {
                    k += 1;
                }
                let mut depth = 0usize;
                let mut params = Vec::new();
                while k < t.len() {
                    match tok(k) {
                        "(" | "[" | "<" => depth += 1,
                        ")" | "]" | ">" => depth = depth.saturating_sub(1),
                        s if depth == 1 && lower(s) && matches!(tok(k + 1), ":" | "," | ")") => {
                            local[k] = true;
                            params.push(s.to_string());
                        }
                        _ => {}
                    }
                    k += 1;
                    if depth == 0 {
                        break;
                    }
                }
                // To the body's `{`, or the `;` of a declaration without one;
                // a function pointer's type (`fn(u8)`) ends at a `,` or a
                // closing bracket instead, and has no body.
                let mut depth = 0usize;
                while k < t.len() {
                    match tok(k) {
                        "(" | "[" => depth += 1,
                        ")" | "]" if depth > 0 => depth -= 1,
                        "{" | ";" | "}" | ")" | "]" | "," | "=" if depth == 0 => break,
                        _ => {}
                    }
                    k += 1;
                }
                if tok(k) == "{" {
                    pending = params;
                }
                j = k;
                continue;
            }
            "|" if matches!(
                tok(j.wrapping_sub(1)),
                "" | "(" | "," | "=" | "move" | "{" | ";" | "return" | ">" | "["
            ) =>
            {
                // A closure: its parameters, to the closing `|`, are local
                // in its body (a block, or an expression up to a `,`, `;` or
                // closing bracket of its own level).
                let mut depth = 0usize;
                let mut k = j + 1;
                let mut params = Vec::new();
                while k < t.len() {
                    match tok(k) {
                        "|" if depth == 0 => break,
                        "(" | "[" | "<" => depth += 1,
                        ")" | "]" | ">" if depth > 0 => depth -= 1,
                        ";" | "{" | "}" | ")" | "]" => break,
                        s if lower(s)
                            && matches!(tok(k - 1), "|" | "," | "(" | "mut" | "&" | "ref")
                            && matches!(tok(k + 1), ":" | "," | "|" | ")") =>
                        {
                            local[k] = true;
                            params.push(s.to_string());
                        }
                        _ => {}
                    }
                    k += 1;
                }
                if tok(k) == "|" {
                    let mut depth = 0usize;
                    let mut b = k + 1;
                    let block = tok(b) == "{";
                    while b < t.len() {
                        match tok(b) {
                            "(" | "[" | "{" => depth += 1,
                            ")" | "]" | "}" if depth == 0 => break,
                            ")" | "]" | "}" => {
                                depth -= 1;
                                if block && depth == 0 {
                                    break;
                                }
                            }
                            "," | ";" if depth == 0 => break,
                            s if params.iter().any(|p| p == s) => local[b] = true,
                            _ => {}
                        }
                        b += 1;
                    }
                }
            }
            s if lower(s) && scopes.iter().flatten().any(|n| n == s) => local[j] = true,
            _ => {}
        }
        j += 1;
    }
    local
}

/// The paths of a use tree (or of a path in code) at `t[j]`, under
/// `prefix`: each whole path with the name it binds; returns the index
/// after the tree.
fn use_tree(
    t: &[String],
    mut j: usize,
    prefix: &[String],
    out: &mut Vec<(Vec<String>, String)>,
) -> usize {
    let tok = |k: usize| t.get(k).map(String::as_str).unwrap_or("");
    let mut path = prefix.to_vec();
    loop {
        match tok(j) {
            "{" => {
                j += 1;
                while tok(j) != "}" && j < t.len() {
                    let end = use_tree(t, j, &path, out);
                    // Past a comma, or past a token no use tree starts
                    // with (not Rust, but no endless loop on it).
                    j = if tok(end) == "," || end == j {
                        end + 1
                    } else {
                        end
                    };
                }
                return j + 1;
            }
            "*" => {
                path.push("*".into());
                out.push((path, "*".into()));
                return j + 1;
            }
            s if s.starts_with(|ch: char| ch == '_' || ch.is_alphabetic()) => {
                if s != "self" {
                    path.push(s.to_string());
                }
                j += 1;
                if tok(j) == "::"
                    && (tok(j + 1) == "{"
                        || tok(j + 1) == "*"
                        || tok(j + 1).starts_with(|ch: char| ch == '_' || ch.is_alphabetic()))
                {
                    j += 1;
                    continue;
                }
                let mut name = path.last().cloned().unwrap_or_default();
                if tok(j) == "as" {
                    name = tok(j + 1).to_string();
                    j += 2;
                }
                out.push((path, name));
                return j;
            }
            _ => {
                out.push((path.clone(), path.last().cloned().unwrap_or_default()));
                return j;
            }
        }
    }
}

/// Every module of a crate and what each uses: (the modules, by
/// path; each module's paths that it uses, from where, as written in
/// `use` declarations and code; the names each module's `use`
/// declarations bind, to their paths).
type Uses = (
    HashSet<Vec<String>>,
    Vec<(Vec<String>, Vec<String>)>,
    HashMap<(Vec<String>, String), Vec<String>>,
);

/// The files of the crates under `src` as (module path, text), by crate:
/// the library's (`lib`, from `src/lib.rs`) and each binary's (its name,
/// from `src/bin/<name>.rs` and the files under `src/bin/<name>/`).
fn crate_files() -> BTreeMap<String, Vec<(Vec<String>, String)>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    let mut crates: BTreeMap<String, Vec<_>> = BTreeMap::new();
    for f in files {
        if f.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let rel = f.strip_prefix(&src).unwrap();
        let mut path: Vec<String> = rel
            .with_extension("")
            .iter()
            .map(|s| s.to_string_lossy().to_string())
            .collect();
        let name = if path[0] == "bin" {
            path.remove(0);
            path.remove(0)
        } else {
            "lib".to_string()
        };
        if path.last().is_some_and(|l| l == "mod" || l == "lib") {
            path.pop();
        }
        let text = std::fs::read_to_string(&f).unwrap();
        // A module's file is found by its module path; a `#[path]`
        // attribute must name the file that path gives.
        for (k, _) in text.match_indices("#[path = \"") {
            let rest = &text[k + 10..];
            let (file, after) = rest.split_once("\"]").unwrap();
            let child = after
                .trim_start()
                .strip_prefix("mod ")
                .and_then(|m| m.split_once(';'))
                .map(|(m, _)| m.trim())
                .unwrap_or_else(|| panic!("{}: #[path] not on a `mod name;`", f.display()));
            let expected = match path.as_slice() {
                [] if name == "lib" => src.join(child),
                [] => src.join("bin").join(&name).join(child),
                _ => f.with_extension("").join(child),
            };
            let target = f.parent().unwrap().join(file);
            assert!(
                target == expected.with_extension("rs") || target == expected.join("mod.rs"),
                "{}: module {child} is read from {file}, not where its path puts it",
                f.display()
            );
        }
        crates.entry(name).or_default().push((path, text));
    }
    crates
}

/// What the modules of `files` (module path, text) use: see [`Uses`].
fn module_uses(files: &[(Vec<String>, String)]) -> Uses {
    let units: Vec<(Vec<String>, Vec<String>)> = files
        .iter()
        .map(|(path, text)| (path.clone(), rust_tokens(text)))
        .collect();
    // Pass over a file's tokens keeping the module each token is in
    // (inline `mod name { .. }` blocks included), whether that is a unit
    // test module, and whether the token stands among the module's items
    // (not inside a function, an `impl` or a trait: only such an item is
    // a name a glob import brings in).
    fn scan(
        base: &[String],
        t: &[String],
        mut at: impl FnMut(&[String], bool, bool, usize) -> usize,
    ) {
        let mut inline: Vec<(String, usize, bool)> = Vec::new();
        let mut depth = 0usize;
        let mut j = 0;
        while j < t.len() {
            let cur: Vec<String> = base
                .iter()
                .cloned()
                .chain(inline.iter().map(|m| m.0.clone()))
                .collect();
            let testing = inline.iter().any(|m| m.2);
            let item = depth == inline.last().map_or(0, |m| m.1 + 1);
            let next = at(&cur, testing, item, j);
            if next > j {
                j = next;
                continue;
            }
            match t[j].as_str() {
                "mod" if t.get(j + 2).is_some_and(|x| x == "{") => {
                    let cfg_test = j >= 7 && t[j - 7..j].join("") == "#[cfg(test)]";
                    inline.push((t[j + 1].clone(), depth, cfg_test));
                    depth += 1;
                    j += 3;
                    continue;
                }
                "{" => depth += 1,
                "}" => {
                    depth = depth.saturating_sub(1);
                    if inline.last().is_some_and(|m| m.1 == depth) {
                        inline.pop();
                    }
                }
                _ => {}
            }
            j += 1;
        }
    }
    let mut modules = HashSet::new();
    for (base, t) in &units {
        modules.insert(base.clone());
        scan(base, t, |cur, _, _, j| {
            if t[j] == "mod" && t.get(j + 2).is_some_and(|x| x == ";" || x == "{") {
                let mut m = cur.to_vec();
                m.push(t[j + 1].clone());
                modules.insert(m);
            }
            j
        });
    }
    let mut refs = Vec::new();
    let mut binds = HashMap::new();
    // Glob imports (`use super::*`): the importing module and the module
    // whose names it takes; and the names each module's code mentions.
    let mut globs: Vec<(Vec<String>, Vec<String>)> = Vec::new();
    let mut mentions: HashMap<Vec<String>, HashSet<String>> = HashMap::new();
    // The names of the items each module defines (`fn name`, `struct
    // name`, ...), which a glob import of it takes.
    const ITEMS: [&str; 9] = [
        "fn", "struct", "enum", "union", "trait", "type", "const", "static", "mod",
    ];
    let mut defines: HashMap<Vec<String>, HashSet<String>> = HashMap::new();
    for (base, t) in &units {
        let local = locals(t);
        scan(base, t, |cur, testing, item, j| {
            if testing {
                return j;
            }
            // A name that may be an item the module's scope holds: not a
            // local binding, a field or method (after `.`), a later segment
            // of a path, nor a field or parameter being declared (before a
            // single `:`).
            let prev = if j > 0 { t[j - 1].as_str() } else { "" };
            if t[j].starts_with(|ch: char| ch == '_' || ch.is_alphabetic())
                && !local[j]
                && prev != "."
                && prev != "::"
                && t.get(j + 1).is_none_or(|x| x != ":")
            {
                mentions
                    .entry(cur.to_vec())
                    .or_default()
                    .insert(t[j].clone());
            }
            if item
                && ITEMS.contains(&t[j].as_str())
                && let Some(name) = t.get(j + 1)
            {
                defines
                    .entry(cur.to_vec())
                    .or_default()
                    .insert(name.clone());
            }
            let in_use = prev == "use";
            let start: Option<Vec<String>> = match t[j].as_str() {
                _ if prev == "::" || t.get(j + 1).is_none_or(|x| x != "::") => None,
                "crate" => Some(Vec::new()),
                "self" => Some(cur.to_vec()),
                "super" => Some(cur[..cur.len().saturating_sub(1)].to_vec()),
                // `use child::..` names the module's own child.
                s if in_use && modules.contains(&[cur, &[s.to_string()]].concat()) => {
                    let mut out = Vec::new();
                    let end = use_tree(t, j, cur, &mut out);
                    for (p, name) in out {
                        if name == "*" {
                            globs.push((cur.to_vec(), p[..p.len() - 1].to_vec()));
                        } else {
                            binds.insert((cur.to_vec(), name), p.clone());
                        }
                        refs.push((cur.to_vec(), p));
                    }
                    return end;
                }
                _ => None,
            };
            let Some(mut prefix) = start else { return j };
            let mut k = j + 2;
            while t.get(k).is_some_and(|x| x == "super") && t.get(k + 1).is_some_and(|x| x == "::")
            {
                prefix.pop();
                k += 2;
            }
            let mut out = Vec::new();
            let end = use_tree(t, k, &prefix, &mut out);
            for (p, name) in out {
                if in_use && name == "*" {
                    globs.push((cur.to_vec(), p[..p.len() - 1].to_vec()));
                } else if in_use {
                    binds.insert((cur.to_vec(), name), p.clone());
                }
                refs.push((cur.to_vec(), p));
            }
            end
        });
    }
    // A glob import binds, in the importing module, every name the module
    // it takes them from defines or binds (twice over, for a glob of a
    // glob); and it uses what the names its module mentions lead to there.
    for _ in 0..2 {
        for (m, from) in &globs {
            let defined = defines.get(from).into_iter().flatten();
            let bound: Vec<String> = binds
                .keys()
                .filter(|(at, _)| at == from)
                .map(|(_, n)| n.clone())
                .collect();
            for name in defined.cloned().chain(bound) {
                let to = binds
                    .get(&(from.clone(), name.clone()))
                    .cloned()
                    .unwrap_or_else(|| [from.as_slice(), std::slice::from_ref(&name)].concat());
                binds.entry((m.clone(), name)).or_insert(to);
            }
        }
    }
    // (A name the module defines itself is its own item: it shadows the
    // glob's.)
    for (m, from) in globs {
        let own = defines.get(&m);
        for name in mentions.get(&m).into_iter().flatten() {
            if own.is_some_and(|d| d.contains(name)) {
                continue;
            }
            if let Some(p) = binds.get(&(from.clone(), name.clone())) {
                refs.push((m.clone(), p.clone()));
            }
        }
    }
    (modules, refs, binds)
}

/// The module a path leads to, through the names modules bind with `use`
/// (`crate::Error` leads to module `error`).
fn module_of(
    p: &[String],
    modules: &HashSet<Vec<String>>,
    binds: &HashMap<(Vec<String>, String), Vec<String>>,
) -> Vec<String> {
    let mut p = p.to_vec();
    for _ in 0..16 {
        let mut m = 0;
        while m < p.len() && modules.contains(&p[..m + 1]) {
            m += 1;
        }
        match p
            .get(m)
            .and_then(|name| binds.get(&(p[..m].to_vec(), name.clone())))
        {
            Some(to) if to.as_slice() != &p[..m + 1] => {
                let mut q = to.clone();
                q.extend_from_slice(&p[m + 1..]);
                p = q;
            }
            _ => return p[..m].to_vec(),
        }
    }
    p
}

/// Each parent module's graph between its children: child to the
/// children it uses.
type Graphs = HashMap<Vec<String>, BTreeMap<String, BTreeSet<String>>>;

/// Each group of sibling modules that use each other in a cycle, with the
/// uses that tie it (`in crate::net: a -> b, b -> a`); and each parent's
/// graph between its children.
fn sibling_cycles(uses: &Uses) -> (Vec<String>, Graphs) {
    let (modules, refs, binds) = uses;
    // For each parent, the graph between its children.
    let mut graphs: Graphs = HashMap::new();
    for (from, p) in refs {
        let to = module_of(p, modules, binds);
        let k = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
        if k < from.len() && k < to.len() {
            graphs
                .entry(from[..k].to_vec())
                .or_default()
                .entry(from[k].clone())
                .or_default()
                .insert(to[k].clone());
        }
    }
    let mut cycles = Vec::new();
    for (parent, g) in &graphs {
        let names: Vec<&String> = g
            .keys()
            .chain(g.values().flatten())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let uses: Vec<Vec<usize>> = names
            .iter()
            .map(|n| {
                g.get(*n)
                    .into_iter()
                    .flatten()
                    .map(|u| names.iter().position(|x| *x == u).unwrap())
                    .collect()
            })
            .collect();
        // Every group of children that reach each other, with the uses
        // that tie it.
        let reach: Vec<BTreeSet<usize>> = (0..names.len())
            .map(|k| {
                let mut seen = BTreeSet::new();
                let mut todo = uses[k].clone();
                while let Some(j) = todo.pop() {
                    if seen.insert(j) {
                        todo.extend(&uses[j]);
                    }
                }
                seen
            })
            .collect();
        let mut done = BTreeSet::new();
        for k in 0..names.len() {
            let group: Vec<usize> = (0..names.len())
                .filter(|&j| reach[k].contains(&j) && reach[j].contains(&k))
                .collect();
            if group.len() > 1 && done.insert(group.clone()) {
                let ties: Vec<String> = group
                    .iter()
                    .flat_map(|&a| {
                        let (names, group) = (&names, &group);
                        uses[a]
                            .iter()
                            .filter(move |b| group.contains(b))
                            .map(move |&b| format!("{} -> {}", names[a], names[b]))
                    })
                    .collect();
                let at: Vec<&str> = ["crate"]
                    .into_iter()
                    .chain(parent.iter().map(String::as_str))
                    .collect();
                cycles.push(format!("in {}: {}", at.join("::"), ties.join(", ")));
            }
        }
    }
    cycles.sort();
    (cycles, graphs)
}

/// No modules that share a parent use each other in a cycle, at any depth
/// of the library (between the crate's top-level modules, between the
/// files of `net`, of `wave`, ...) and of the command-line tool (between
/// its commands), counting what they use by path, by `use` declaration (a
/// glob's by the names the module mentions) and through their parent's
/// re-exports. The library's error type counts as module `error`
/// (`crate::Error` through the root's re-export); its deadlock variants
/// carry the reports of module `deadlock`, below every router model. A
/// module's unit tests (an inline `#[cfg(test)] mod`) are left out: they
/// are not part of the crate, and may use any module's helpers.
#[test]
fn no_sibling_modules_use_each_other_in_a_cycle() {
    let crates = crate_files();
    assert_eq!(
        crates.keys().collect::<Vec<_>>(),
        ["lib", "wormcast"],
        "the crates under src"
    );
    let mut graphs = BTreeMap::new();
    for (name, files) in &crates {
        let uses = module_uses(files);
        let (cycles, g) = sibling_cycles(&uses);
        assert!(
            cycles.is_empty(),
            "sibling modules of {name} use each other in a cycle:\n{}",
            cycles.join("\n")
        );
        graphs.insert(name.as_str(), (uses.0.len(), g));
    }
    // The check sees each graph: `net`'s files use each other, every
    // module uses `error` (through the crate root's re-export), and the
    // binary's commands use the modules they share.
    let (n, lib) = &graphs["lib"];
    assert!(*n > 100, "{n} modules");
    assert!(lib[&vec!["net".to_string()]]["routing"].contains("updown"));
    assert!(lib[&Vec::new()]["switch"].contains("error"));
    let (n, bin) = &graphs["wormcast"];
    assert!(*n > 10, "{n} modules");
    assert!(bin[&Vec::new()]["tree_cmd"].contains("mesh_exp"), "{bin:?}");
    // (By the names `use super::*` brings in: `open_wave`, `parse_param`.)
    assert!(bin[&Vec::new()]["twin_cmd"].contains("wave_cmd"), "{bin:?}");
}

/// The check itself finds cycles planted every way a module can use a
/// sibling, and none in what only looks like one.
#[test]
fn the_sibling_cycle_check_finds_planted_cycles() {
    let m = |path: &str, text: &str| {
        let p: Vec<String> = path
            .split("::")
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        (p, text.to_string())
    };
    let cycles = |files: &[(Vec<String>, String)]| sibling_cycles(&module_uses(files)).0;
    let root = m("", "mod net; mod wave; pub use net::Topology;");
    let net = m(
        "net",
        "mod a;\nmod b;\nmod c;\npub use b::{Net as Renamed, Other};\n",
    );
    let a_b = [
        // a uses b by path in code, b uses a by a grouped use declaration.
        ("fn f() { super::b::g(); }", "use super::{a::X, c};"),
        // Through the parent's re-export, under another name.
        ("use super::Renamed;", "use crate::net::a::{self};"),
        // From the crate root, several lines, nested groups.
        (
            "use crate::{\n    net::{b::{Y,\n Z}},\n};",
            "fn g() -> crate::net::a::T { todo!() }",
        ),
        // `super::super` from an inline module, and `self`.
        (
            "mod inner { fn f() { super::super::b::g() } }",
            "use self::super::a::X;",
        ),
        // A glob import of the parent, whose re-export names b's item.
        ("use super::*;\nfn f(_: Renamed) {}", "use super::a::X;"),
        // A path in what a macro is given (which a Rust parser leaves as
        // tokens).
        (
            "fn f() { debug_assert!(crate::net::b::ok()); }",
            "fn g(x: u8) -> bool { matches!(x, super::a::ONE) }",
        ),
    ];
    for (a, b) in a_b {
        let files = [
            root.clone(),
            net.clone(),
            m("net::a", a),
            m("net::b", b),
            m("net::c", ""),
        ];
        assert_eq!(
            cycles(&files),
            ["in crate::net: a -> b, b -> a"],
            "{a:?} / {b:?}"
        );
    }
    // Not uses: comments, strings, characters, a unit test module.
    let decoys = [
        "// super::a::X\n/* super::a::X /* nested */ super::a::X */",
        r#"const S: &str = "super::a::X { }"; const R: &str = r"super::a::X";"#,
        "const C: char = '{'; fn f<'a>(x: &'a u8) {}",
        "#[cfg(test)]\nmod tests { use super::super::a::X; }",
        // A glob import of the parent, naming nothing that leads to a.
        "use super::*;\nfn f(_: Other) {}",
        // Not Rust: a use group of what no path starts with, unbalanced
        // braces; the scan ends all the same.
        "use super::{ ( ; } } } use super::{",
    ];
    for d in decoys {
        let files = [
            root.clone(),
            net.clone(),
            m("net::a", "use super::b::Y;"),
            m("net::b", d),
        ];
        assert!(cycles(&files).is_empty(), "{d:?}");
    }
    // The parent's glob re-export of a child, named by a sibling.
    let files = [
        root.clone(),
        m("net", "mod a;\nmod b;\npub use b::*;\n"),
        m("net::a", "use super::Net;"),
        m("net::b", "pub struct Net;\nfn f() { super::a::g() }"),
    ];
    assert_eq!(cycles(&files), ["in crate::net: a -> b, b -> a"]);
    // A glob import brings in a sibling's `report`: a name that may be it
    // counts, whatever else a module calls `report` does not.
    let glob_of = |b: &str, a: &str| {
        let files = [
            root.clone(),
            m("net", "mod a;\nmod b;\npub use b::*;\n"),
            m("net::a", &format!("use super::*;\n{a}")),
            m("net::b", &format!("{b}\nfn f() {{ super::a::g() }}")),
        ];
        cycles(&files)
    };
    let glob = |a: &str| glob_of("pub fn report() {}", a);
    for a in [
        "fn f() { report() }",
        // Passed as a value, and captured by a format string.
        "fn f() { g(report) }",
        "fn f() -> String { format!(\"{report:?}\") }",
        "fn f() -> String { format!(r\"{:>report$}\", 1) }",
        // Past the scope of a local of the same name.
        "fn f() { let report = 1; }\nfn g() { report() }",
        "fn f() { { let report = 1; } report() }",
        "fn f(report: u8) {}\nfn g() { report() }",
        "fn f(v: &[u8]) { for report in v {} report() }",
        // Past the block of a local of that name, with a function
        // pointer's type in the block; and in an `impl .. for`.
        "fn f() { let report = 1; g(1 as fn(u8)) }\nfn h() { report() }",
        "struct S;\nimpl Drop for S { fn drop(&mut self) { g(report) } }",
        // Past a closure's body, and beside a closure that takes none.
        "fn f() { let g = |report| report + 1; report() }",
        "fn f() { h(|| report()) }",
        "fn f(x: u8) -> u8 { x | report() }",
    ] {
        assert_eq!(glob(a), ["in crate::net: a -> b, b -> a"], "{a:?}");
    }
    for a in [
        // A field or a method.
        "fn f(x: &S) -> u8 { x.report }",
        "fn f(x: &S) { x.report(); }",
        "struct S { report: u8 }",
        "fn f() -> S { S { report: 1 } }",
        // A later segment of another path.
        "fn f() { wormcast::wave::report() }",
        // Locals and parameters of that name, in their scopes.
        "fn f(report: u8) -> u8 { report + 1 }",
        "fn f() -> u8 { let report = 1; report }",
        "fn f() -> u8 { let (mut report, x) = (1, 2); report += x; report }",
        "fn f(v: &[u8]) { for report in v { g(report) } }",
        "fn f(o: Option<u8>) { if let Some(report) = o { g(report) } }",
        "fn f() { let g = |report: u8, x| report + x; h(|report| { report }) }",
        // A format string's text, its escaped braces, and a local it
        // captures.
        "fn f() -> String { format!(\"report {{report}} {}\", 1) }",
        "fn f() -> String { let report = 1; format!(\"{report}\") }",
        // The module's own item of that name, which shadows the glob's.
        "fn report() {}\nfn f() { report() }",
    ] {
        assert!(glob(a).is_empty(), "{a:?}");
    }
    // A method, an associated item or a function's own nested function of
    // b's is no item a glob brings in: `drop` is the prelude's.
    for b in [
        "pub struct S;\nimpl Drop for S { fn drop(&mut self) {} }",
        "pub trait T { const drop: u8; fn drop(&self); }",
        "pub fn h() { fn drop() {} }",
    ] {
        assert!(glob_of(b, "fn f(x: u8) { drop(x) }").is_empty(), "{b:?}");
    }
    assert_eq!(
        glob_of("pub fn drop() {}", "fn f(x: u8) { drop(x) }"),
        ["in crate::net: a -> b, b -> a"]
    );
    // A cycle of three among top-level modules, through the crate root.
    let files = [
        m("", "mod x; mod y; mod z; pub use z::Error;"),
        m("x", "use crate::y::A;"),
        m("y", "use crate::Error;"),
        m("z", "use crate::x::B;"),
    ];
    assert_eq!(cycles(&files), ["in crate: x -> y, y -> z, z -> x"]);
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
