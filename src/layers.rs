//! The layering stated in `lib.rs`, enforced, for library and test code alike: every
//! `crate::X` and `super::` path in each top-level module must name that module or one it
//! may use. And inside every module the files use each other one way only: no chain of
//! paths leads from a file back to itself. With the first rule that makes the whole crate's
//! file graph free of loops.
//!
//! A plain text scan: comments, strings and character literals are blanked first, so a
//! path in a doc comment or a message counts for nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each top-level module and the other modules it may use. A new module must be added.
const ALLOWED: &[(&str, &[&str])] = &[
    // The choice-enum macro, which any layer expands (as `choice_enum!`, no path to scan).
    ("choice", &[]),
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
    // Runs what it trained through the evaluators, where all inference runs.
    ("train", &["chess", "net", "eval", "data", "features"]),
    // Runs a net (opened as `EvalFile` values are, by `eval::open`) over training data.
    ("harden", &["chess", "net", "eval", "data"]),
    // Plays games with the search; records the search signature `bench` declares.
    (
        "datagen",
        &[
            "chess", "net", "eval", "search", "bench", "data", "features",
        ],
    ),
];

/// Files of `src/` that belong to no layer: the crate root, the binary, this test, the test
/// of the documents' links, and the tests of pipelines that cross layers.
const OUTSIDE: &[&str] = &[
    "lib.rs",
    "main.rs",
    "layers.rs",
    "doc_links.rs",
    "end_to_end.rs",
];

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The identifier at the start of `text`.
fn ident(text: &str) -> &str {
    let end = text.find(|c: char| !is_ident(c)).unwrap_or(text.len());
    &text[..end]
}

/// The lines of `text` with comments, string literals and character literals blanked
/// (quotes kept, line breaks kept), so that only code is left to scan.
fn code_lines(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied().unwrap_or('\0');
        if c == '/' && next == '/' {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if (c == 'r' || (c == 'b' && next == 'r'))
            && (i == 0 || !is_ident(chars[i - 1]))
            && {
                let start = if c == 'b' { i + 2 } else { i + 1 };
                let hashes = chars[start..].iter().take_while(|&&h| h == '#').count();
                chars.get(start + hashes) == Some(&'"')
            }
        {
            // A raw string: r"…", r#"…"#, br"…" and so on, with no escapes.
            let start = if c == 'b' { i + 2 } else { i + 1 };
            let hashes = chars[start..].iter().take_while(|&&h| h == '#').count();
            let body = start + hashes + 1;
            out.extend(std::iter::repeat_n(' ', body - i - 1));
            out.push('"');
            i = body;
            while i < chars.len() {
                let closes = chars[i] == '"'
                    && chars[i + 1..].iter().take_while(|&&h| h == '#').count() >= hashes;
                if closes {
                    out.push('"');
                    out.extend(std::iter::repeat_n(' ', hashes));
                    i += 1 + hashes;
                    break;
                }
                out.push(blank(chars[i]));
                i += 1;
            }
        } else if c == '"' {
            out.push('"');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < chars.len() {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
            if i < chars.len() {
                out.push('"');
                i += 1;
            }
        } else if c == '\'' && (next == '\\' || chars.get(i + 2) == Some(&'\'')) {
            // A character literal ('{', '\n', '\u{7f}'); a lifetime ('a) has no closing quote.
            out.push('\'');
            i += 1;
            if chars[i] == '\\' {
                out.push(' ');
                i += 1;
            }
            while i < chars.len() && chars[i] != '\'' {
                out.push(blank(chars[i]));
                i += 1;
            }
            if i < chars.len() {
                out.push('\'');
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out.lines().map(str::to_string).collect()
}

/// For each line, how many inline modules (`mod x { … }`) enclose it: a `super::` there
/// climbs out of those first.
fn inline_nesting(lines: &[String]) -> Vec<usize> {
    let mut nesting = Vec::with_capacity(lines.len());
    // The brace depth just outside each open inline module.
    let mut open: Vec<i64> = Vec::new();
    let mut depth = 0i64;
    for line in lines {
        nesting.push(open.len());
        let item = line.trim_start();
        let item = ["pub(crate) ", "pub(super) ", "pub "]
            .iter()
            .find_map(|v| item.strip_prefix(v))
            .unwrap_or(item);
        if let Some(rest) = item.strip_prefix("mod ") {
            let name = ident(rest);
            if !name.is_empty() && rest[name.len()..].trim_start().starts_with('{') {
                open.push(depth);
            }
        }
        depth += line.matches('{').count() as i64 - line.matches('}').count() as i64;
        while open.last().is_some_and(|&d| d >= depth) {
            open.pop();
        }
    }
    nesting
}

/// The paths that start at `at` in `line` (just after a `crate::` or `super::` prefix):
/// one, or one per entry of a `{a::b, c}` group on this line. Each is its identifiers.
fn paths_at(rest: &str) -> Vec<Vec<String>> {
    let segments = |text: &str| -> Vec<String> {
        let mut out = Vec::new();
        let mut rest = text.trim_start();
        loop {
            let name = ident(rest);
            if name.is_empty() {
                break;
            }
            out.push(name.to_string());
            match rest[name.len()..].strip_prefix("::") {
                Some(r) => rest = r,
                None => break,
            }
        }
        out
    };
    match rest.strip_prefix('{') {
        Some(group) => group
            .split('}')
            .next()
            .unwrap_or_default()
            .split(',')
            .map(segments)
            .collect(),
        None => vec![segments(rest)],
    }
}

/// Where the `super::` paths and `crate::` paths of a line lead: `(ups, segments)`, `ups`
/// being the number of `super::`, or `None` for a `crate::` path.
fn line_paths(line: &str) -> Vec<(Option<usize>, Vec<String>)> {
    let mut found = Vec::new();
    for (at, _) in line.match_indices("crate::") {
        if line[..at].ends_with(is_ident) || line[..at].ends_with("::") {
            continue;
        }
        for path in paths_at(&line[at + "crate::".len()..]) {
            found.push((None, path));
        }
    }
    for (at, _) in line.match_indices("super::") {
        if line[..at].ends_with(is_ident) || line[..at].ends_with("::") {
            continue;
        }
        let mut rest = &line[at..];
        let mut ups = 0;
        while let Some(r) = rest.strip_prefix("super::") {
            rest = r;
            ups += 1;
        }
        for path in paths_at(rest) {
            found.push((Some(ups), path));
        }
    }
    found
}

/// The top-level modules that `crate::` and `super::` paths in `lines` lead to, with their
/// line numbers (from 1). `depth` is how deep the file's module is: 1 for `src/x.rs` and
/// `src/x/mod.rs`, 2 for `src/x/y.rs`, and so on; inline modules add to it.
fn references(lines: &[String], depth: usize) -> Vec<(usize, String)> {
    let nesting = inline_nesting(lines);
    let mut found = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        for (ups, path) in line_paths(line) {
            // Only a `super::` path that climbs to the crate root leaves the module.
            let to_root = ups.is_none_or(|ups| ups == depth + nesting[n]);
            if let (true, Some(first)) = (to_root, path.first()) {
                found.push((n + 1, first.clone()));
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

/// Upward imports in the sources under `src`, test code included, one message each.
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
        for (path, depth) in &sources {
            let lines = code_lines(&std::fs::read_to_string(path).unwrap());
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

/// A file of one module's directory, by its module path below that module: `[]` for the
/// module's own `mod.rs` (or `src/m.rs`), `["a"]` for `a.rs` or `a/mod.rs`, and so on.
type FileModule = Vec<String>;

fn node_name(module: &[String]) -> String {
    if module.is_empty() {
        "mod".to_string()
    } else {
        module.join("/")
    }
}

/// The names a `pub use` line re-exports, each with the path it comes from as written
/// (`pub use a::B;`, `pub use a::{B, C};`), or `None` for another line.
fn reexported(line: &str) -> Option<Vec<(String, Vec<String>)>> {
    let rest = line.trim().strip_prefix("pub use ")?;
    let (from, names): (Vec<String>, Vec<String>) = match rest.split_once("::{") {
        Some((from, group)) => (
            from.split("::").map(str::to_string).collect(),
            group
                .split('}')
                .next()
                .unwrap_or_default()
                .split(',')
                .filter_map(|entry| entry.rsplit("::").next())
                .map(|name| ident(name.trim()).to_string())
                .collect(),
        ),
        None => {
            let mut path = paths_at(rest).remove(0);
            let name = path.pop().unwrap_or_default();
            (path, vec![name])
        }
    };
    Some(
        names
            .into_iter()
            .filter(|n| !n.is_empty())
            .map(|name| (name, from.clone()))
            .collect(),
    )
}

/// The files of module `name` and, for each, the other files its paths lead to; files
/// named `tests.rs` are left out, and so are the paths to them. A path leads to the file of
/// its longest prefix that is one (the module's root file if none is), except that a name
/// that file re-exports leads on to where it comes from. Re-exports are names, not uses,
/// and lead nowhere: every `pub use` of the root, and a `pub use` of a child module's item
/// in any file (`cnn.rs` naming `torch::Cnn`, which `cnn/torch.rs` defines using `cnn.rs`).
fn file_graph(name: &str, files: &[(FileModule, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let modules: BTreeSet<&FileModule> = files.iter().map(|(m, _)| m).collect();
    let crate_path = format!("crate::{name}::");
    // The longest prefix of `target` that is a file of the module, if any is.
    let file_of = |target: &[String]| -> Option<FileModule> {
        (1..=target.len())
            .rev()
            .map(|len| target[..len].to_vec())
            .find(|prefix| modules.contains(prefix))
    };
    let children_of = |module: &FileModule| -> BTreeSet<String> {
        modules
            .iter()
            .filter(|m| m.len() == module.len() + 1 && m.starts_with(module))
            .map(|m| m[module.len()].clone())
            .collect()
    };
    // Whether a file's line is a re-export that names rather than uses.
    let is_name = |module: &FileModule, line: &str| -> bool {
        match reexported(line) {
            None => false,
            Some(_) if module.is_empty() => true,
            Some(names) => names.iter().all(|(_, from)| {
                from.first()
                    .is_some_and(|f| children_of(module).contains(f))
            }),
        }
    };
    // Each file's re-exported names, with the module path they come from.
    let mut reexports: BTreeMap<(FileModule, String), FileModule> = BTreeMap::new();
    for (module, text) in files {
        for line in code_lines(text) {
            if !is_name(module, &line) {
                continue;
            }
            for (name, from) in reexported(&line).unwrap_or_default() {
                let mut path = module.clone();
                path.extend(from);
                reexports.insert((module.clone(), name), path);
            }
        }
    }
    let resolve = |target: &[String]| -> FileModule {
        let file = file_of(target).unwrap_or_default();
        target
            .get(file.len())
            .and_then(|name| reexports.get(&(file.clone(), name.clone())))
            .and_then(|from| file_of(from))
            .unwrap_or(file)
    };
    let is_tests = |m: &FileModule| m.last().is_some_and(|n| n == "tests");
    let mut graph = BTreeMap::new();
    for (module, text) in files.iter().filter(|(m, _)| !is_tests(m)) {
        let lines = code_lines(text);
        let nesting = inline_nesting(&lines);
        let children = children_of(module);
        let mut uses = BTreeSet::new();
        for (n, line) in lines.iter().enumerate() {
            if is_name(module, line) {
                continue;
            }
            // Where this line's code sits: the file's module and its inline modules.
            let here = module.len() + nesting[n];
            let mut targets = Vec::new();
            for (at, _) in line.match_indices(&crate_path) {
                if !line[..at].ends_with(is_ident) {
                    targets.extend(paths_at(&line[at + crate_path.len()..]));
                }
            }
            for (ups, path) in line_paths(line) {
                let Some(ups) = ups else { continue };
                if ups > here {
                    continue; // out of this module's directory
                }
                let mut target: Vec<String> = module.clone();
                // Inline modules have no file of their own: stand-ins, cut off by `ups`.
                target.extend((0..nesting[n]).map(|_| "{inline}".to_string()));
                target.truncate(here - ups);
                target.extend(path);
                targets.push(target);
            }
            // A bare path to a child module: `driver::run`, `use control::Control;`.
            for (at, _) in line.match_indices("::") {
                let before = &line[..at];
                let start = before.rfind(|c: char| !is_ident(c)).map_or(0, |i| i + 1);
                let first = &before[start..];
                let prefixed = before[..start].ends_with("::");
                if !prefixed && children.contains(first) {
                    let mut target = module.clone();
                    target.extend(paths_at(&line[start..]).into_iter().flatten());
                    targets.push(target);
                }
            }
            for target in targets {
                if target.iter().any(|s| s == "{inline}") {
                    continue; // within this file
                }
                let file = resolve(&target);
                if &file != module && !is_tests(&file) {
                    uses.insert(node_name(&file));
                }
            }
        }
        graph.insert(node_name(module), uses);
    }
    graph
}

/// A loop in `graph` as the files along it, first and last the same; `None` if it has none.
fn find_loop(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

/// The files of top-level module `name` under `src`, each with its module path.
fn module_files(src: &Path, name: &str) -> Vec<(FileModule, String)> {
    let mut out = Vec::new();
    let top = src.join(format!("{name}.rs"));
    if top.is_file() {
        out.push((Vec::new(), std::fs::read_to_string(&top).unwrap()));
    }
    let dir = src.join(name);
    let mut found = Vec::new();
    if dir.is_dir() {
        files(&dir, 2, &mut found);
    }
    for (path, _) in found {
        let relative = path.strip_prefix(&dir).unwrap().with_extension("");
        let mut module: FileModule = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().to_string())
            .collect();
        if module.last().is_some_and(|m| m == "mod") {
            module.pop();
        }
        out.push((module, std::fs::read_to_string(&path).unwrap()));
    }
    out
}

#[test]
fn layers_depend_only_downward() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let problems = violations(&src);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every module's files must not form an import loop: a chain of `super::`, `crate::m::`
/// and child-module paths from one file back to itself. A directory's `tests.rs` files,
/// which exist to use everything, are left out of the loop check (not the layer check).
#[test]
fn files_inside_a_module_use_each_other_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut loops = Vec::new();
    for (name, _) in ALLOWED {
        let graph = file_graph(name, &module_files(&src, name));
        if let Some(cycle) = find_loop(&graph) {
            loops.push(format!(
                "an import loop in src/{name}/: {}",
                cycle.join(" -> ")
            ));
        }
        // The scan sees the uses it should, so that no loop is not no edges.
        let uses = |from: &str, to: &str| graph[from].contains(to);
        match *name {
            "search" => {
                assert!(uses("alphabeta", "ordering") && uses("ordering", "thread"));
                assert!(uses("thread", "history") && uses("mod", "control"));
                assert!(uses("driver", "mod") && uses("driver", "limits"));
            }
            "net" => assert!(uses("rbf", "file") && uses("file", "family")),
            "train" => assert!(uses("loader", "config") && uses("objective", "loader")),
            _ => {}
        }
    }
    assert!(loops.is_empty(), "{}", loops.join("\n"));
}

#[test]
fn the_scan_sees_paths_in_code_and_tests_but_not_in_comments_or_strings() {
    let text = "use crate::chess::Position;\n\
                use crate::{eval::Evaluator, uci};\n\
                // use crate::train::x;\n\
                fn f() { super::super::bench::run(); super::sibling(); }\n\
                #[cfg(test)]\n\
                mod tests {\n\
                    use crate::data::rng;\n\
                    use super::super::super::net::x;\n\
                    use super::super::sibling;\n\
                    const S: &str = \"crate::harden\"; const C: char = '{';\n\
                }\n\
                /* crate::selfplay */ use crate::search::Limits; // crate::net\n\
                const R: &str = r#\"crate::train \"# ;\n";
    let lines = code_lines(text);
    assert_eq!(lines.len(), 13);
    let found = references(&lines, 2);
    let expected: Vec<(usize, String)> = [
        (1, "chess"),
        (2, "eval"),
        (2, "uci"),
        (4, "bench"),
        (7, "data"),
        (8, "net"),
        (12, "search"),
    ]
    .iter()
    .map(|(n, m)| (*n, m.to_string()))
    .collect();
    assert_eq!(found, expected);
    // In a depth-1 file `super::` is the crate root already.
    let lines = code_lines("use super::uci::x;\nuse super::super::y;\n");
    assert_eq!(references(&lines, 1), [(1, "uci".to_string())]);
}

#[test]
fn a_loop_between_files_is_found_and_named() {
    let file = |path: &[&str], text: &str| -> (FileModule, String) {
        (
            path.iter().map(|s| s.to_string()).collect(),
            text.to_string(),
        )
    };
    let mut files = vec![
        file(&[], "pub mod a;\npub mod b;\npub mod c;\npub use c::{Gamma, Delta};\npub struct Top;\nfn f() { a::go(); }\n"),
        file(&["a"], "use super::b::Beta;\nuse super::Gamma;\nuse crate::m::tests::f;\n"),
        file(&["b"], "use super::Top;\n#[cfg(test)]\nmod tests {\n    use super::*;\n    use super::super::c::x;\n}\n"),
        file(&["c"], "// use super::a;\nfn g() -> &'static str { \"super::a\" }\n"),
        file(&["tests"], "use super::a;\n"),
    ];
    let graph = file_graph("m", &files);
    let set = |names: &[&str]| names.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(
        graph["mod"],
        set(&["a"]),
        "pub use and mod lines are no uses"
    );
    assert_eq!(
        graph["a"],
        set(&["b", "c"]),
        "a re-exported name leads to its file"
    );
    assert_eq!(graph["b"], set(&["mod", "c"]), "test modules count");
    assert_eq!(graph["c"], set(&[]), "comments and strings do not");
    assert!(
        !graph.contains_key("tests"),
        "tests.rs files are no part of it"
    );
    // mod -> a -> b -> mod.
    assert_eq!(
        find_loop(&graph),
        Some(["a", "b", "mod", "a"].map(String::from).to_vec())
    );
    files[2] = file(&["b"], "use crate::m::c::Delta;\n");
    let graph = file_graph("m", &files);
    assert_eq!(find_loop(&graph), None);
    files[3] = file(&["c"], "fn g() { crate::m::a::go(); }\n");
    let graph = file_graph("m", &files);
    assert!(find_loop(&graph).is_some());
}

#[test]
fn a_child_modules_item_named_by_its_parent_leads_to_the_child() {
    let file = |path: &[&str], text: &str| -> (FileModule, String) {
        (
            path.iter().map(|s| s.to_string()).collect(),
            text.to_string(),
        )
    };
    // `p.rs` names `q::Q` for its users; `p/q.rs` implements it with `p.rs`'s types.
    let files = vec![
        file(&[], "pub mod p;\npub mod r;\n"),
        file(&["p"], "mod q;\npub use q::Q;\npub struct P;\n"),
        file(&["p", "q"], "use super::P;\npub struct Q;\n"),
        file(&["r"], "use crate::m::p::{P, Q};\nuse super::p::Q as R;\n"),
    ];
    let graph = file_graph("m", &files);
    let set = |names: &[&str]| names.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(graph["p"], set(&[]), "a re-export is a name, not a use");
    assert_eq!(graph["p/q"], set(&["p"]));
    assert_eq!(
        graph["r"],
        set(&["p", "p/q"]),
        "a re-exported name leads to its file"
    );
    assert_eq!(find_loop(&graph), None);
}
