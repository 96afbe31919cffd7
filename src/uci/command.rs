//! One input line to one [`Command`]. `go` and `position` are parsed here in full because
//! vampirc-uci 0.11.1 panics on `go depth 300` and silently truncates bad move lists; the
//! remaining standard commands go through vampirc behind `catch_unwind`.

use crate::engine::PositionSpec;
use crate::search::Limits;
use std::time::Duration;
use vampirc_uci::UciMessage;

/// Lines longer than this are answered with an error and skipped unparsed.
pub const MAX_LINE_BYTES: usize = 1 << 20;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Uci,
    Debug(bool),
    IsReady,
    /// `value` is empty when the GUI sent none.
    SetOption {
        name: String,
        value: String,
    },
    Register,
    UciNewGame,
    /// Checked for syntax only; legality is checked by the engine.
    Position(PositionSpec),
    /// `searchmoves` are syntactically plausible; the engine checks them for legality.
    Go(Limits),
    Stop,
    PonderHit,
    Quit,
    Bench {
        depth: Option<u32>,
        threads: Option<usize>,
    },
    Perft(u32),
    Eval,
    Display,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("unknown command '{0}'")]
    Unknown(String),
    #[error("{command}: {reason}")]
    Invalid {
        command: &'static str,
        reason: String,
    },
    #[error("line of {0} bytes is longer than the {MAX_LINE_BYTES}-byte limit; ignored")]
    TooLong(usize),
}

fn invalid(command: &'static str, reason: impl Into<String>) -> ParseError {
    ParseError::Invalid {
        command,
        reason: reason.into(),
    }
}

/// The first `n` characters, for echoing garbage back without flooding the GUI.
pub fn excerpt(text: &str, n: usize) -> String {
    text.chars()
        .take(n)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

/// Parses one line; `Ok(None)` for a blank line, which UCI says to ignore.
pub fn parse_line(line: &str) -> Result<Option<Command>, ParseError> {
    let line = line.trim();
    let mut tokens = line.split_whitespace();
    let Some(first) = tokens.next() else {
        return Ok(None);
    };
    let rest: Vec<&str> = tokens.collect();
    let command = match first.to_ascii_lowercase().as_str() {
        "go" => Command::Go(parse_go(&rest)?),
        "position" => Command::Position(parse_position(&rest)?),
        "bench" => parse_bench(&rest)?,
        "perft" => Command::Perft(parse_perft(&rest)?),
        "eval" if rest.is_empty() => Command::Eval,
        "d" if rest.is_empty() => Command::Display,
        "setoption" => parse_setoption(line)?,
        "uci" | "debug" | "isready" | "register" | "ucinewgame" | "stop" | "ponderhit" | "quit" => {
            parse_with_vampirc(line)?
        }
        _ => return Err(ParseError::Unknown(excerpt(line, 40))),
    };
    Ok(Some(command))
}

/// vampirc-uci for the simple commands, shielded from its panics.
fn parse_with_vampirc(line: &str) -> Result<Command, ParseError> {
    let parsed = std::panic::catch_unwind(|| vampirc_uci::parse_one(line));
    let unknown = || ParseError::Unknown(excerpt(line, 40));
    let message = parsed.map_err(|_| unknown())?;
    Ok(match message {
        UciMessage::Uci => Command::Uci,
        UciMessage::Debug(on) => Command::Debug(on),
        UciMessage::IsReady => Command::IsReady,
        UciMessage::Register { .. } => Command::Register,
        UciMessage::UciNewGame => Command::UciNewGame,
        UciMessage::Stop => Command::Stop,
        UciMessage::PonderHit => Command::PonderHit,
        UciMessage::Quit => Command::Quit,
        UciMessage::SetOption { name, value } => Command::SetOption {
            name: normalize_spaces(&name),
            value: value.map(|v| v.trim().to_string()).unwrap_or_default(),
        },
        _ => return Err(unknown()),
    })
}

/// `setoption name <name with spaces> [value <value>]`.
fn parse_setoption(line: &str) -> Result<Command, ParseError> {
    let usage = "expected 'setoption name <name> [value <value>]'";
    let command = parse_with_vampirc(line).map_err(|_| invalid("setoption", usage))?;
    match &command {
        Command::SetOption { name, .. } if !name.is_empty() => Ok(command),
        _ => Err(invalid("setoption", usage)),
    }
}

fn normalize_spaces(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn parse_number<T: std::str::FromStr>(
    command: &'static str,
    field: &str,
    text: Option<&&str>,
) -> Result<T, ParseError> {
    let text = text.ok_or_else(|| invalid(command, format!("'{field}' needs a value")))?;
    if text.starts_with('-') {
        return Err(invalid(
            command,
            format!(
                "'{field}' must not be negative, got '{}'",
                excerpt(text, 40)
            ),
        ));
    }
    text.parse::<T>().map_err(|_| {
        let what = if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
            "is out of range"
        } else {
            "is not a non-negative integer"
        };
        invalid(
            command,
            format!("'{field}' value '{}' {what}", excerpt(text, 40)),
        )
    })
}

const GO_KEYWORDS: &[&str] = &[
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "infinite",
    "ponder",
    "searchmoves",
];

/// Looks like a UCI move (e2e4, e7e8q); legality is checked later against the position.
fn is_uci_move_syntax(text: &str) -> bool {
    let b = text.as_bytes();
    let square = |f: u8, r: u8| (b'a'..=b'h').contains(&f) && (b'1'..=b'8').contains(&r);
    (b.len() == 4 || (b.len() == 5 && b"qrbnQRBN".contains(&b[4])))
        && square(b[0], b[1])
        && square(b[2], b[3])
}

/// The tokens after `go`. Every number is u32/u64 (times in ms), so huge values are
/// range errors rather than panics.
pub fn parse_go(tokens: &[&str]) -> Result<Limits, ParseError> {
    let ms = |v: u64| Duration::from_millis(v);
    let mut limits = Limits::default();
    let mut i = 0;
    while i < tokens.len() {
        let key = tokens[i].to_ascii_lowercase();
        let value = tokens.get(i + 1);
        let mut used = 2;
        match key.as_str() {
            "wtime" => limits.wtime = Some(ms(parse_number("go", &key, value)?)),
            "btime" => limits.btime = Some(ms(parse_number("go", &key, value)?)),
            "winc" => limits.winc = Some(ms(parse_number("go", &key, value)?)),
            "binc" => limits.binc = Some(ms(parse_number("go", &key, value)?)),
            "movetime" => limits.movetime = Some(ms(parse_number("go", &key, value)?)),
            "movestogo" => limits.movestogo = Some(parse_number("go", &key, value)?),
            "depth" => limits.depth = Some(parse_number("go", &key, value)?),
            "nodes" => limits.nodes = Some(parse_number("go", &key, value)?),
            "mate" => limits.mate = Some(parse_number("go", &key, value)?),
            "infinite" => {
                limits.infinite = true;
                used = 1;
            }
            "ponder" => {
                limits.ponder = true;
                used = 1;
            }
            "searchmoves" => {
                let moves: Vec<String> = tokens[i + 1..]
                    .iter()
                    .take_while(|t| !GO_KEYWORDS.contains(&t.to_ascii_lowercase().as_str()))
                    .map(|t| t.to_string())
                    .collect();
                if moves.is_empty() {
                    return Err(invalid("go", "'searchmoves' needs at least one move"));
                }
                if let Some(bad) = moves.iter().find(|m| !is_uci_move_syntax(m)) {
                    return Err(invalid(
                        "go",
                        format!("'{}' in searchmoves is not a UCI move", excerpt(bad, 40)),
                    ));
                }
                used = 1 + moves.len();
                limits.searchmoves = moves;
            }
            _ => {
                return Err(invalid(
                    "go",
                    format!(
                        "unknown parameter '{}' (expected one of {})",
                        excerpt(tokens[i], 40),
                        GO_KEYWORDS.join(", ")
                    ),
                ))
            }
        }
        i += used;
    }
    Ok(limits)
}

/// The tokens after `position`: `startpos | fen <fields>` then optionally `moves ...`.
pub fn parse_position(tokens: &[&str]) -> Result<PositionSpec, ParseError> {
    let usage = "expected 'position startpos|fen <fen> [moves <move>...]'";
    let (fen, rest) = match tokens.first().map(|t| t.to_ascii_lowercase()).as_deref() {
        Some("startpos") => (None, &tokens[1..]),
        Some("fen") => {
            let end = tokens
                .iter()
                .position(|t| t.eq_ignore_ascii_case("moves"))
                .unwrap_or(tokens.len());
            let fields = &tokens[1..end];
            if fields.is_empty() {
                return Err(invalid("position", "'fen' needs a FEN string"));
            }
            (Some(fields.join(" ")), &tokens[end..])
        }
        _ => return Err(invalid("position", usage)),
    };
    let moves = match rest.split_first() {
        None => Vec::new(),
        Some((kw, moves)) if kw.eq_ignore_ascii_case("moves") => {
            moves.iter().map(|m| m.to_string()).collect()
        }
        Some((other, _)) => {
            return Err(invalid(
                "position",
                format!("unexpected '{}'; {usage}", excerpt(other, 40)),
            ))
        }
    };
    Ok(PositionSpec { fen, moves })
}

fn parse_bench(tokens: &[&str]) -> Result<Command, ParseError> {
    if tokens.len() > 2 {
        return Err(invalid("bench", "expected 'bench [depth] [threads]'"));
    }
    let depth = match tokens.first() {
        Some(_) => Some(parse_number("bench", "depth", tokens.first())?),
        None => None,
    };
    let threads = match tokens.get(1) {
        Some(_) => Some(parse_number("bench", "threads", tokens.get(1))?),
        None => None,
    };
    if threads == Some(0) {
        return Err(invalid("bench", "threads must be at least 1"));
    }
    Ok(Command::Bench { depth, threads })
}

fn parse_perft(tokens: &[&str]) -> Result<u32, ParseError> {
    if tokens.len() != 1 {
        return Err(invalid("perft", "expected 'perft <depth>'"));
    }
    parse_number("perft", "depth", tokens.first())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn go(line: &str) -> Result<Limits, ParseError> {
        match parse_line(line) {
            Ok(Some(Command::Go(limits))) => Ok(limits),
            Ok(other) => panic!("'{line}' parsed as {other:?}"),
            Err(e) => Err(e),
        }
    }

    #[test]
    fn go_reads_every_field() {
        let l = go(
            "go wtime 1000 btime 2000 winc 10 binc 20 movestogo 30 depth 7 nodes 5000 \
                    mate 3 movetime 400 ponder infinite searchmoves e2e4 g1f3",
        )
        .unwrap();
        assert_eq!(l.wtime, Some(Duration::from_millis(1000)));
        assert_eq!(l.btime, Some(Duration::from_millis(2000)));
        assert_eq!(l.winc, Some(Duration::from_millis(10)));
        assert_eq!(l.binc, Some(Duration::from_millis(20)));
        assert_eq!(l.movestogo, Some(30));
        assert_eq!(l.depth, Some(7));
        assert_eq!(l.nodes, Some(5000));
        assert_eq!(l.mate, Some(3));
        assert_eq!(l.movetime, Some(Duration::from_millis(400)));
        assert!(l.ponder && l.infinite);
        assert_eq!(l.searchmoves, vec!["e2e4", "g1f3"]);
    }

    #[test]
    fn searchmoves_stop_at_the_next_keyword() {
        let l = go("go searchmoves e2e4 d2d4 depth 3").unwrap();
        assert_eq!(l.searchmoves, vec!["e2e4", "d2d4"]);
        assert_eq!(l.depth, Some(3));
        assert!(go("go searchmoves depth 3").is_err());
        assert!(go("go searchmoves e2e4 xyz").is_err());
    }

    #[test]
    fn bare_go_has_no_limits() {
        assert_eq!(go("go").unwrap(), Limits::default());
    }

    #[test]
    fn values_that_overflow_vampirc_are_fine() {
        assert_eq!(go("go depth 300").unwrap().depth, Some(300));
        assert_eq!(go("go movestogo 300").unwrap().movestogo, Some(300));
        assert_eq!(go("go mate 1000").unwrap().mate, Some(1000));
        assert_eq!(
            go("go nodes 18446744073709551615").unwrap().nodes,
            Some(u64::MAX)
        );
        assert_eq!(
            go("go wtime 99999999999999").unwrap().wtime,
            Some(Duration::from_millis(99_999_999_999_999))
        );
    }

    #[test]
    fn out_of_range_and_negative_numbers_are_errors() {
        let e = go("go depth 99999999999999999999").unwrap_err().to_string();
        assert!(e.contains("out of range"), "{e}");
        let e = go("go nodes 99999999999999999999999")
            .unwrap_err()
            .to_string();
        assert!(e.contains("out of range"), "{e}");
        let e = go("go depth -5").unwrap_err().to_string();
        assert!(e.contains("negative") && e.contains("depth"), "{e}");
        let e = go("go wtime -100").unwrap_err().to_string();
        assert!(e.contains("negative"), "{e}");
    }

    #[test]
    fn go_garbage_is_an_error() {
        for line in [
            "go depth",
            "go depth abc",
            "go depth 3.5",
            "go fast",
            "go depth 3 banana",
        ] {
            assert!(go(line).is_err(), "{line}");
        }
    }

    #[test]
    fn position_startpos_and_fen_with_moves() {
        let cmd = parse_line("position startpos moves e2e4 e7e5").unwrap();
        assert_eq!(
            cmd,
            Some(Command::Position(PositionSpec {
                fen: None,
                moves: vec!["e2e4".into(), "e7e5".into()]
            }))
        );
        let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
        let cmd = parse_line(&format!("position fen {fen} moves e7e5")).unwrap();
        assert_eq!(
            cmd,
            Some(Command::Position(PositionSpec {
                fen: Some(fen.into()),
                moves: vec!["e7e5".into()]
            }))
        );
        let cmd = parse_line(&format!("position fen {fen}")).unwrap();
        assert_eq!(
            cmd,
            Some(Command::Position(PositionSpec {
                fen: Some(fen.into()),
                moves: vec![]
            }))
        );
        let cmd = parse_line("position startpos moves").unwrap();
        assert_eq!(
            cmd,
            Some(Command::Position(PositionSpec {
                fen: None,
                moves: vec![]
            }))
        );
    }

    #[test]
    fn position_syntax_errors() {
        for line in [
            "position",
            "position fen",
            "position fen moves e2e4",
            "position startpos e2e4",
            "position banana",
        ] {
            assert!(parse_line(line).is_err(), "{line}");
        }
    }

    #[test]
    fn setoption_names_with_spaces_values_and_case() {
        assert_eq!(
            parse_line("setoption name Move Overhead value 100").unwrap(),
            Some(Command::SetOption {
                name: "Move Overhead".into(),
                value: "100".into()
            })
        );
        assert_eq!(
            parse_line("SETOPTION NAME hash VALUE 32").unwrap(),
            Some(Command::SetOption {
                name: "hash".into(),
                value: "32".into()
            })
        );
        assert_eq!(
            parse_line("setoption name Ponder").unwrap(),
            Some(Command::SetOption {
                name: "Ponder".into(),
                value: String::new()
            })
        );
        assert_eq!(
            parse_line("setoption name EvalFile value /tmp/a net.safetensors").unwrap(),
            Some(Command::SetOption {
                name: "EvalFile".into(),
                value: "/tmp/a net.safetensors".into()
            })
        );
        assert!(parse_line("setoption").is_err());
        assert!(parse_line("setoption value 3").is_err());
    }

    #[test]
    fn simple_commands_and_blank_lines() {
        assert_eq!(parse_line("uci").unwrap(), Some(Command::Uci));
        assert_eq!(parse_line("  isready  ").unwrap(), Some(Command::IsReady));
        assert_eq!(parse_line("ucinewgame").unwrap(), Some(Command::UciNewGame));
        assert_eq!(parse_line("stop").unwrap(), Some(Command::Stop));
        assert_eq!(parse_line("ponderhit").unwrap(), Some(Command::PonderHit));
        assert_eq!(parse_line("quit").unwrap(), Some(Command::Quit));
        assert_eq!(parse_line("debug on").unwrap(), Some(Command::Debug(true)));
        assert_eq!(parse_line("eval").unwrap(), Some(Command::Eval));
        assert_eq!(parse_line("d").unwrap(), Some(Command::Display));
        assert_eq!(parse_line("perft 3").unwrap(), Some(Command::Perft(3)));
        assert_eq!(
            parse_line("bench 5 2").unwrap(),
            Some(Command::Bench {
                depth: Some(5),
                threads: Some(2)
            })
        );
        assert_eq!(parse_line("").unwrap(), None);
        assert_eq!(parse_line(" \t ").unwrap(), None);
    }

    #[test]
    fn garbage_is_an_unknown_command_with_a_short_excerpt() {
        let long = "x".repeat(500);
        match parse_line(&long) {
            Err(ParseError::Unknown(text)) => assert_eq!(text.len(), 40),
            other => panic!("{other:?}"),
        }
        for line in [
            "\u{fffd}\u{fffd}abc",
            "hello world",
            "ucix",
            "perft",
            "perft x",
        ] {
            assert!(parse_line(line).is_err(), "{line}");
        }
    }
}
