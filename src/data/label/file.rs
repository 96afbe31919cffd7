//! The labels file: plain text, one position per line, so that it can be read by anything,
//! appended one line at a time, and resumed after a kill (a partial last line is dropped).
//!
//! ```text
//! # cerise-labels v1
//! # engine: Stockfish 15.1
//! # limit: depth 14
//! # extra-depths: 2,4,8
//! # source: masters.pgn.bz2
//! # selection: positions 80000, per-game 10, skip-plies 20, min-elo 0, seed 1
//! index    game    ply    fen    score    d2    d4    d8
//! 0    3    24    r1bq1rk1/pp2bppp/... w - - 0 13    35    20    41    30
//! ```
//!
//! Fields are separated by tabs (shown as spaces above). Every score is from White's point of view: centipawns, or `#N` for a mate in N moves
//! (`#-N`: Black mates). `game` is the game's index in the source (splits go by game), `ply`
//! how many moves were played before the position. Lines come in the order they finished, not
//! by index.

use super::uci_client::EngineScore;
use anyhow::{bail, ensure, Context, Result};
use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

pub const MAGIC: &str = "# cerise-labels v1";

/// The settings a labels file was made with. A resumed run must match them exactly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelsHeader {
    pub engine: String,
    pub limit: String,
    pub extra_depths: Vec<u32>,
    pub source: String,
    pub selection: String,
}

impl LabelsHeader {
    pub fn columns(&self) -> String {
        let mut cols = "index\tgame\tply\tfen\tscore".to_string();
        for d in &self.extra_depths {
            cols.push_str(&format!("\td{d}"));
        }
        cols
    }

    /// The header block, ending with the column line and a newline.
    pub fn render(&self) -> String {
        let extras: Vec<String> = self.extra_depths.iter().map(u32::to_string).collect();
        format!(
            "{MAGIC}\n# engine: {}\n# limit: {}\n# extra-depths: {}\n# source: {}\n\
             # selection: {}\n{}\n",
            self.engine,
            self.limit,
            extras.join(","),
            self.source,
            self.selection,
            self.columns()
        )
    }

    /// The first difference from `other`, for an error message.
    pub fn difference(&self, other: &LabelsHeader) -> Option<String> {
        let fields = [
            ("engine", &self.engine, &other.engine),
            ("limit", &self.limit, &other.limit),
            ("source", &self.source, &other.source),
            ("selection", &self.selection, &other.selection),
        ];
        for (name, a, b) in fields {
            if a != b {
                return Some(format!("{name}: the file has `{a}`, this run `{b}`"));
            }
        }
        (self.extra_depths != other.extra_depths).then(|| {
            format!(
                "extra-depths: the file has {:?}, this run {:?}",
                self.extra_depths, other.extra_depths
            )
        })
    }
}

/// A score as the file stores it: centipawns or a mate distance, White's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Label {
    Cp(i32),
    Mate(i32),
}

impl Label {
    /// White's view of an engine score given for the side to move.
    pub fn from_engine(score: EngineScore, white_to_move: bool) -> Label {
        let white = if white_to_move { score } else { score.negate() };
        match white {
            EngineScore::Cp(cp) => Label::Cp(cp),
            EngineScore::Mate(n) => Label::Mate(n),
        }
    }

    /// Centipawns, or `None` for a mate.
    pub fn cp(self) -> Option<i32> {
        match self {
            Label::Cp(cp) => Some(cp),
            Label::Mate(_) => None,
        }
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Label::Cp(cp) => write!(f, "{cp}"),
            Label::Mate(n) => write!(f, "#{n}"),
        }
    }
}

impl std::str::FromStr for Label {
    type Err = String;
    fn from_str(text: &str) -> Result<Label, String> {
        let parsed = match text.strip_prefix('#') {
            Some(n) => n.parse().map(Label::Mate),
            None => text.parse().map(Label::Cp),
        };
        parsed.map_err(|_| format!("`{text}` is not a score (centipawns, or #N for a mate)"))
    }
}

/// One labelled position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelRow {
    pub index: u64,
    pub game: u64,
    pub ply: u32,
    pub fen: String,
    pub score: Label,
    /// One per extra depth, in the header's order.
    pub extra: Vec<Label>,
}

impl LabelRow {
    pub fn render(&self) -> String {
        let mut line = format!(
            "{}\t{}\t{}\t{}\t{}",
            self.index, self.game, self.ply, self.fen, self.score
        );
        for label in &self.extra {
            line.push_str(&format!("\t{label}"));
        }
        line.push('\n');
        line
    }
}

/// A labels file read back: its header, its complete rows, and how many bytes they take (a
/// resumed run truncates the file there, dropping a line a kill cut short).
#[derive(Debug)]
pub struct LabelsFile {
    pub header: LabelsHeader,
    pub rows: Vec<LabelRow>,
    pub complete_bytes: u64,
    /// Whether the file ended in a partial line, which was not read.
    pub partial_tail: bool,
}

impl LabelsFile {
    pub fn open(path: &Path) -> Result<LabelsFile> {
        let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
        Self::read(file).with_context(|| format!("{} is not a valid labels file", path.display()))
    }

    pub fn read(input: impl Read) -> Result<LabelsFile> {
        let mut reader = BufReader::new(input);
        let mut line = String::new();
        let mut offset = 0u64;
        let mut number = 0usize;
        let next = |reader: &mut BufReader<_>, line: &mut String| -> Result<bool> {
            line.clear();
            let n = reader.read_line(line)?;
            Ok(n > 0)
        };
        let mut header_lines = Vec::new();
        // The magic, five settings and the column line.
        for _ in 0..7 {
            ensure!(
                next(&mut reader, &mut line)? && line.ends_with('\n'),
                "the header ends early (line {})",
                number + 1
            );
            number += 1;
            offset += line.len() as u64;
            header_lines.push(line.trim_end_matches('\n').to_string());
        }
        ensure!(
            header_lines[0] == MAGIC,
            "line 1 is `{}`, not `{MAGIC}`",
            header_lines[0]
        );
        let field = |i: usize, key: &str| -> Result<String> {
            let prefix = format!("# {key}: ");
            match header_lines[i].strip_prefix(&prefix) {
                Some(value) => Ok(value.to_string()),
                None if header_lines[i] == prefix.trim_end() => Ok(String::new()),
                None => bail!("line {} should start with `{prefix}`", i + 1),
            }
        };
        let extras = field(3, "extra-depths")?;
        let extra_depths = if extras.is_empty() {
            Vec::new()
        } else {
            extras
                .split(',')
                .map(|d| d.parse::<u32>())
                .collect::<Result<_, _>>()
                .with_context(|| format!("line 4: bad extra depths `{extras}`"))?
        };
        let header = LabelsHeader {
            engine: field(1, "engine")?,
            limit: field(2, "limit")?,
            extra_depths,
            source: field(4, "source")?,
            selection: field(5, "selection")?,
        };
        ensure!(
            header_lines[6] == header.columns(),
            "line 7 is `{}`, expected the columns `{}`",
            header_lines[6],
            header.columns()
        );
        let mut rows = Vec::new();
        let mut partial_tail = false;
        while next(&mut reader, &mut line)? {
            number += 1;
            if !line.ends_with('\n') {
                partial_tail = true;
                break;
            }
            let row = parse_row(line.trim_end_matches('\n'), header.extra_depths.len())
                .with_context(|| format!("line {number}"))?;
            offset += line.len() as u64;
            rows.push(row);
        }
        Ok(LabelsFile {
            header,
            rows,
            complete_bytes: offset,
            partial_tail,
        })
    }
}

fn parse_row(line: &str, extras: usize) -> Result<LabelRow> {
    let fields: Vec<&str> = line.split('\t').collect();
    ensure!(
        fields.len() == 5 + extras,
        "{} tab-separated fields, expected {}",
        fields.len(),
        5 + extras
    );
    let number = |i: usize, name: &str| -> Result<u64> {
        fields[i]
            .parse()
            .with_context(|| format!("bad {name} `{}`", fields[i]))
    };
    let label = |text: &str| text.parse::<Label>().map_err(anyhow::Error::msg);
    Ok(LabelRow {
        index: number(0, "index")?,
        game: number(1, "game")?,
        ply: u32::try_from(number(2, "ply")?).context("ply out of range")?,
        fen: fields[3].to_string(),
        score: label(fields[4])?,
        extra: fields[5..]
            .iter()
            .map(|t| label(t))
            .collect::<Result<_>>()?,
    })
}
