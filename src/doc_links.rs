//! The repository's documents link to each other and to the logs their figures come from:
//! README.md to bench/README.md, the bench page to its records in bench/records/, the net
//! cards to the records and to each other. Records move and headings get renamed, and a
//! link that points nowhere is found by the reader who needed it. This test follows every
//! relative link of those documents: the file must exist, and a `#anchor` into a Markdown
//! file must name one of its headings, slugged as GitHub slugs them.
//!
//! A plain text scan: links inside fenced code blocks and inline code are not links, and
//! web links (`http:`, `https:`, `mailto:`) are not checked.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

/// The documents whose links are checked, relative to the repository root; a name ending
/// in `/*.md` stands for every Markdown file of that folder.
const DOCUMENTS: &[&str] = &[
    "README.md",
    "CONTRIBUTING.md",
    "bench/README.md",
    "bench/records/*.md",
    "bench/queue/README.md",
    "selfplay/README.md",
    "nets/*.md",
];

/// GitHub's anchor for a heading: the heading's text (a link's label in place of the
/// link), lower-cased, without the characters that are neither alphanumeric (in any
/// script), a space, a hyphen nor an underscore, and with each space made a hyphen.
fn slug(heading: &str) -> String {
    let text = strip_link_targets(heading);
    text.chars()
        .flat_map(char::to_lowercase)
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// `[label](target)` becomes `label`, as it reads once rendered.
fn strip_link_targets(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("](") {
        let Some(len) = rest[start..].find(')') else {
            break;
        };
        out.push_str(&rest[..start]);
        rest = &rest[start + len + 1..];
    }
    out.push_str(rest);
    out
}

/// The text with every fenced code block's lines and every inline code span blanked out,
/// line breaks kept, so that offsets still give the same line numbers.
fn without_code(text: &str) -> String {
    blank_code_spans(&without_fences(text))
}

/// The text with every fenced code block's lines blanked out.
fn without_fences(text: &str) -> String {
    let mut lines = Vec::new();
    // The fence's character and length while inside a fenced block.
    let mut fence: Option<(char, usize)> = None;
    for line in text.split('\n') {
        let trimmed = line.trim_start();
        let first = trimmed.chars().next().filter(|c| *c == '`' || *c == '~');
        let run = first.map_or(0, |f| trimmed.chars().take_while(|c| *c == f).count());
        match fence {
            Some((ch, len)) => {
                if first == Some(ch) && run >= len && trimmed[run..].trim().is_empty() {
                    fence = None;
                }
                lines.push(String::new());
            }
            None if run >= 3 => {
                fence = first.map(|f| (f, run));
                lines.push(String::new());
            }
            None => lines.push(line.to_string()),
        }
    }
    lines.join("\n")
}

/// Blanks inline code spans: a run of backticks up to the next run of the same length,
/// within one paragraph (a span does not cross a blank line).
fn blank_code_spans(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = chars.clone();
    let run_at = |i: usize| chars[i..].iter().take_while(|c| **c == '`').count();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            i += 1;
            continue;
        }
        let open = run_at(i);
        let mut j = i + open;
        let mut close = None;
        while j < chars.len() {
            if chars[j] == '\n' && chars.get(j + 1) == Some(&'\n') {
                break;
            }
            if chars[j] == '`' {
                let run = run_at(j);
                if run == open {
                    close = Some(j);
                    break;
                }
                j += run;
            } else {
                j += 1;
            }
        }
        match close {
            Some(end) => {
                for c in &mut out[i..end + open] {
                    if *c != '\n' {
                        *c = ' ';
                    }
                }
                i = end + open;
            }
            None => i += open,
        }
    }
    out.into_iter().collect()
}

/// The anchors of a Markdown file's headings, duplicates numbered as GitHub numbers them
/// (`x`, `x-1`, `x-2`).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    for line in without_fences(text).lines() {
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let heading = line[hashes..].trim().trim_end_matches('#').trim();
        let base = slug(heading);
        let mut anchor = base.clone();
        let mut n = 0;
        while seen.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        seen.insert(anchor);
    }
    seen
}

/// Every link target of a Markdown text with its line (1-based): inline links and images
/// (`[label](target)`, `[label](target "title")`) and reference definitions
/// (`[label]: target`), outside code.
fn links(text: &str) -> Vec<(usize, String)> {
    let text = without_code(text);
    let line_of = |offset: usize| text[..offset].matches('\n').count() + 1;
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("](") {
        let start = from + at + 2;
        let rest = &text[start..];
        let rest_trimmed = rest.trim_start_matches(' ');
        let skip = rest.len() - rest_trimmed.len();
        let target: String = if let Some(inner) = rest_trimmed.strip_prefix('<') {
            inner.chars().take_while(|c| *c != '>').collect()
        } else {
            rest_trimmed
                .chars()
                .take_while(|c| !c.is_whitespace() && *c != ')')
                .collect()
        };
        if !target.is_empty() {
            found.push((line_of(start + skip), target));
        }
        from = start;
    }
    let mut offset = 0;
    for line in text.split('\n') {
        let trimmed = line.trim_start_matches(' ');
        if line.len() - trimmed.len() <= 3 && trimmed.starts_with('[') {
            if let Some(end) = trimmed.find("]:") {
                let target = trimmed[end + 2..].split_whitespace().next().unwrap_or("");
                let target = target.trim_start_matches('<').trim_end_matches('>');
                if end > 1 && !target.is_empty() {
                    found.push((line_of(offset), target.to_string()));
                }
            }
        }
        offset += line.len() + 1;
    }
    found.sort();
    found
}

/// A link to another site or a mail address, which this test does not follow.
fn is_external(target: &str) -> bool {
    let scheme: String = target
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        .collect();
    !scheme.is_empty() && target[scheme.len()..].starts_with(':')
}

/// `%20` and the like, decoded.
fn percent_decoded(path: &str) -> String {
    let bytes = path.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
            Some(b) if bytes[i] == b'%' => {
                out.push(b);
                i += 3;
            }
            _ => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `a/b/../c` as `a/c`, without asking the file system.
fn normalized(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Why the link `target` of the document `file` (relative to `root`) points nowhere, or
/// `None` when it resolves.
fn broken(root: &Path, file: &Path, target: &str) -> Option<String> {
    if is_external(target) {
        return None;
    }
    let (path, anchor) = match target.split_once('#') {
        Some((path, anchor)) => (path, Some(anchor)),
        None => (target, None),
    };
    let resolved = if path.is_empty() {
        file.to_path_buf()
    } else if let Some(from_root) = path.strip_prefix('/') {
        normalized(Path::new(&percent_decoded(from_root)))
    } else {
        normalized(&file.parent().unwrap().join(percent_decoded(path)))
    };
    let on_disk = root.join(&resolved);
    if !on_disk.exists() {
        return Some(format!("{} does not exist", resolved.display()));
    }
    let anchor = anchor.filter(|a| !a.is_empty())?;
    if on_disk.extension().and_then(|e| e.to_str()) != Some("md") || on_disk.is_dir() {
        return None;
    }
    let text = std::fs::read_to_string(&on_disk).unwrap();
    if anchors(&text).contains(&anchor.to_lowercase()) {
        None
    } else {
        Some(format!("{} has no heading #{anchor}", resolved.display()))
    }
}

/// The documents named by `patterns` under `root`, relative to it, sorted.
fn documents(root: &Path, patterns: &[&str]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for pattern in patterns {
        if let Some(folder) = pattern.strip_suffix("/*.md") {
            let mut found: Vec<PathBuf> = std::fs::read_dir(root.join(folder))
                .unwrap_or_else(|e| panic!("{folder}: {e}"))
                .map(|entry| entry.unwrap().path())
                .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("md"))
                .map(|p| Path::new(folder).join(p.file_name().unwrap()))
                .collect();
            found.sort();
            files.extend(found);
        } else {
            files.push(PathBuf::from(pattern));
        }
    }
    files
}

/// Every link of the documents that points nowhere, one `file:line: link (why)` each.
fn broken_links(root: &Path, patterns: &[&str]) -> Vec<String> {
    let mut problems = Vec::new();
    for file in documents(root, patterns) {
        let text = std::fs::read_to_string(root.join(&file))
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for (line, target) in links(&text) {
            if let Some(why) = broken(root, &file, &target) {
                problems.push(format!("{}:{line}: {target} ({why})", file.display()));
            }
        }
    }
    problems
}

#[test]
fn every_relative_link_of_the_documents_resolves() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let problems = broken_links(root, DOCUMENTS);
    assert!(
        problems.is_empty(),
        "{} links point nowhere:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn headings_slug_as_github_slugs_them() {
    assert_eq!(slug("Search changes (issue #6)"), "search-changes-issue-6");
    assert_eq!(
        slug("Playing strength: `bench/match.py`"),
        "playing-strength-benchmatchpy"
    );
    assert_eq!(
        slug("Evaluator families: the win/loss CNN (issue #7)"),
        "evaluator-families-the-winloss-cnn-issue-7"
    );
    assert_eq!(
        slug("2026-11-27 (afternoon): generation 10"),
        "2026-11-27-afternoon-generation-10"
    );
    assert_eq!(slug("UCI_Elo ± 58, Généalogie"), "uci_elo--58-généalogie");
    assert_eq!(slug("See [the card](nets/x.md) here"), "see-the-card-here");
    // Inline code in a heading keeps its text; only the backticks go.
    assert!(anchors("## Speed: `bench`\n").contains("speed-bench"));
}

#[test]
fn a_repeated_heading_is_numbered() {
    let text = "# Runs\n## Result\ntext\n## Result\n### Result\n```\n# Result\n```\n";
    let expected: BTreeSet<String> = ["runs", "result", "result-1", "result-2"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(anchors(text), expected);
}

#[test]
fn links_are_found_with_their_lines_and_code_is_skipped() {
    let text = "See [a](a.md#b) and ![img](c.png).\n\
                `[not](inline.md)` and ``[nor](double.md)``\n\
                ```sh\n[nor](fenced.md)\n```\n\
                A [label over\ntwo lines](d.md \"title\") and [web](https://example.com).\n\
                [7]: ../results/x.log\n\
                A code span `over\ntwo lines [x](span.md)` ends.\n";
    let found = links(text);
    let expected = [
        (1, "a.md#b"),
        (1, "c.png"),
        (7, "d.md"),
        (7, "https://example.com"),
        (8, "../results/x.log"),
    ];
    let expected: Vec<(usize, String)> =
        expected.iter().map(|(l, t)| (*l, t.to_string())).collect();
    assert_eq!(found, expected);
    assert!(is_external("https://example.com") && is_external("mailto:a@b.c"));
    assert!(!is_external("../results/x.log") && !is_external("#anchor"));
}

#[test]
fn a_missing_file_or_anchor_is_reported_and_a_good_link_is_not() {
    let root = std::env::temp_dir().join(format!("cerise-doc-links-{}", std::process::id()));
    std::fs::create_dir_all(root.join("docs/records")).unwrap();
    std::fs::write(
        root.join("docs/records/one.md"),
        "# One\n## Two words\nBack: [up](../README.md#top), [here](#one).\n",
    )
    .unwrap();
    std::fs::write(
        root.join("docs/README.md"),
        "# Top\n[ok](records/one.md#two-words) [dir](records/) [bad anchor](records/one.md#three)\n\
         [missing](records/two.md) [self](#top) [web](https://example.com/x)\n",
    )
    .unwrap();
    let problems = broken_links(&root, &["docs/README.md", "docs/records/*.md"]);
    std::fs::remove_dir_all(&root).unwrap();
    assert_eq!(
        problems,
        [
            "docs/README.md:2: records/one.md#three (docs/records/one.md has no heading #three)",
            "docs/README.md:3: records/two.md (docs/records/two.md does not exist)",
        ]
    );
}
