//! The layering stated in `lib.rs`, enforced: every `crate::X` and `super::` path in the
//! non-test code of each top-level module must name that module or one it may use.
//!
//! A plain text scan: comments are dropped, and test code (an item after `#[cfg(test)]`,
//! and the file of a `#[cfg(test)] mod x;`) is left out, since tests may borrow helpers
//! from beside them without making the library depend on them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Each top-level module and the other modules it may use. A new module must be added.
const ALLOWED: &[(&str, &[&str])] = &[
    ("chess", &[]),
    ("features", &["chess"]),
    ("net", &["chess"]),
    ("eval", &["chess", "net", "features"]),
    ("search", &["chess", "net", "eval", "features"]),
    ("engine", &["chess", "net", "eval", "search", "features"]),
    (
        "bench",
        &["chess", "net", "eval", "search", "engine", "features"],
    ),
    // The UCI `bench` command runs the bench.
    (
        "uci",
        &[
            "chess", "net", "eval", "search", "engine", "bench", "features",
        ],
    ),
    ("data", &["chess", "net", "features"]),
    ("train", &["chess", "net", "data", "features"]),
    // Runs a net (loaded as `EvalFile` values are) over training data.
    ("harden", &["chess", "net", "eval", "engine", "data"]),
    // Plays games with the search; records the search signature `bench` declares.
    (
        "selfplay",
        &[
            "chess", "net", "eval", "search", "engine", "bench", "data", "features",
        ],
    ),
];

/// Files of `src/` that belong to no layer: the crate root, the binary, this test.
const OUTSIDE: &[&str] = &["lib.rs", "main.rs", "layers.rs"];

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The identifier at the start of `text`.
fn ident(text: &str) -> &str {
    let end = text.find(|c: char| !is_ident(c)).unwrap_or(text.len());
    &text[..end]
}

/// `text` with line comments blanked and test items blanked (line numbers kept), and the
/// names of test-only child modules declared as `#[cfg(test)] mod x;`.
fn without_tests(text: &str) -> (Vec<String>, Vec<String>) {
    let lines: Vec<String> = text
        .lines()
        .map(|l| match l.find("//") {
            Some(i) => l[..i].to_string(),
            None => l.to_string(),
        })
        .collect();
    let mut kept = Vec::with_capacity(lines.len());
    let mut test_children = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != "#[cfg(test)]" {
            kept.push(lines[i].clone());
            i += 1;
            continue;
        }
        // Skip the attribute, any further attributes, then the item they apply to: up to
        // a `;` before any brace, or to the brace that closes its first one.
        kept.push(String::new());
        i += 1;
        while i < lines.len() && lines[i].trim_start().starts_with("#[") {
            kept.push(String::new());
            i += 1;
        }
        let mut depth = 0i64;
        let mut opened = false;
        while i < lines.len() {
            let line = &lines[i];
            let item = line.trim();
            if !opened {
                let rest = item.strip_prefix("pub ").unwrap_or(item);
                if let Some(name) = rest.strip_prefix("mod ") {
                    if name.ends_with(';') {
                        test_children.push(ident(name).to_string());
                    }
                }
            }
            depth += line.matches('{').count() as i64 - line.matches('}').count() as i64;
            opened |= line.contains('{');
            kept.push(String::new());
            i += 1;
            if (opened && depth <= 0) || (!opened && item.ends_with(';')) {
                break;
            }
        }
    }
    (kept, test_children)
}

/// The top-level modules that `crate::` and `super::` paths in `lines` lead to, with their
/// line numbers (from 1). `depth` is how deep the file's module is: 1 for `src/x.rs` and
/// `src/x/mod.rs`, 2 for `src/x/y.rs`, and so on.
fn references(lines: &[String], depth: usize) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let mut push = |name: &str| {
            if !name.is_empty() {
                found.push((n + 1, name.to_string()));
            }
        };
        for (at, _) in line.match_indices("crate::") {
            if line[..at].ends_with(is_ident) {
                continue;
            }
            let rest = &line[at + "crate::".len()..];
            match rest.strip_prefix('{') {
                // `crate::{a::b, c}`: the first name of each entry (on this line).
                Some(group) => {
                    let group = group.split('}').next().unwrap_or_default();
                    for entry in group.split(',') {
                        push(ident(entry.trim()));
                    }
                }
                None => push(ident(rest)),
            }
        }
        for (at, _) in line.match_indices("super::") {
            if line[..at].ends_with(is_ident) || line[..at].ends_with("super::") {
                continue;
            }
            let mut rest = &line[at..];
            let mut ups = 0;
            while let Some(r) = rest.strip_prefix("super::") {
                rest = r;
                ups += 1;
            }
            // Only a path that climbs to the crate root leaves the module.
            if ups == depth {
                push(ident(rest));
            }
        }
    }
    found
}

/// Every `.rs` file under `dir`, with its module depth (`base` for files directly in it).
fn files(dir: &Path, base: usize, out: &mut Vec<(PathBuf, usize)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files(&path, base + 1, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let depth = if path.file_name().is_some_and(|n| n == "mod.rs") {
                base - 1
            } else {
                base
            };
            out.push((path, depth));
        }
    }
}

/// Upward imports in the sources under `src`, one message each.
fn violations(src: &Path) -> Vec<String> {
    let layers: BTreeSet<&str> = ALLOWED.iter().map(|(m, _)| *m).collect();
    let mut problems = Vec::new();
    for entry in std::fs::read_dir(src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let module = name.trim_end_matches(".rs");
        if !OUTSIDE.contains(&name.as_str()) && !layers.contains(module) {
            problems.push(format!(
                "src/{name} is in no layer: add it to ALLOWED in src/layers.rs"
            ));
        }
    }
    for (module, allowed) in ALLOWED {
        let mut sources = Vec::new();
        let top = src.join(format!("{module}.rs"));
        if top.is_file() {
            sources.push((top, 1));
        }
        let dir = src.join(module);
        if dir.is_dir() {
            files(&dir, 2, &mut sources);
        }
        assert!(!sources.is_empty(), "no sources for module {module}");
        let mut test_only: BTreeSet<PathBuf> = BTreeSet::new();
        for (path, depth) in &sources {
            if test_only.iter().any(|t| path.starts_with(t)) {
                continue;
            }
            let text = std::fs::read_to_string(path).unwrap();
            let (lines, test_children) = without_tests(&text);
            // A child of `x.rs` or `x/mod.rs` lives in `x/`.
            let child_dir = if path.file_name().is_some_and(|n| n == "mod.rs") {
                path.parent().unwrap().to_path_buf()
            } else {
                path.with_extension("")
            };
            for child in test_children {
                test_only.insert(child_dir.join(format!("{child}.rs")));
                test_only.insert(child_dir.join(child));
            }
            for (line, target) in references(&lines, *depth) {
                if target != *module
                    && layers.contains(target.as_str())
                    && !allowed.contains(&target.as_str())
                {
                    problems.push(format!(
                        "{}:{line}: {module} uses {target}, a layer above it or beside it \
                         ({module} may use: {})",
                        path.strip_prefix(src.parent().unwrap())
                            .unwrap_or(path)
                            .display(),
                        allowed.join(", ")
                    ));
                }
            }
        }
    }
    problems
}

#[test]
fn layers_depend_only_downward() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let problems = violations(&src);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_scan_sees_paths_and_skips_comments_and_tests() {
    let text = "use crate::chess::Position;\n\
                use crate::{eval::Evaluator, uci};\n\
                // use crate::train::x;\n\
                fn f() { super::super::bench::run(); super::sibling(); }\n\
                #[cfg(test)]\n\
                mod tests {\n\
                    use crate::data::rng;\n\
                }\n\
                #[cfg(test)]\n\
                mod more;\n\
                use crate::search::Limits; // crate::net\n";
    let (lines, children) = without_tests(text);
    assert_eq!(children, ["more"]);
    let found = references(&lines, 2);
    let expected: Vec<(usize, String)> = [
        (1, "chess"),
        (2, "eval"),
        (2, "uci"),
        (4, "bench"),
        (11, "search"),
    ]
    .iter()
    .map(|(n, m)| (*n, m.to_string()))
    .collect();
    assert_eq!(found, expected);
    // In a depth-1 file `super::` is the crate root already.
    let (lines, _) = without_tests("use super::uci::x;\nuse super::super::y;\n");
    assert_eq!(references(&lines, 1), [(1, "uci".to_string())]);
}
