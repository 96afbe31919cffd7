//! A `pgn_reader::Visitor` that turns one PGN game into its start position and legal move
//! list, or the reason it is skipped. Tag filters run before the movetext is parsed, so
//! filtered-out games cost almost nothing.
//!
//! pgn-reader silently drops tokens it cannot parse as SAN; the next move is then played by
//! the wrong side and is almost always illegal, which skips the game as `IllegalMove`.

use super::date::PgnDate;
use super::filter::{parse_elo, GameResult, ResultFilter, SkipReason};
use pgn_reader::{Outcome, RawTag, SanPlus, Skip, Visitor};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, KnownOutcome, Move, Position as _};
use std::ops::ControlFlow;

/// Game-level filters applied while reading; `cerise data triplets` takes them as arguments.
#[derive(clap::Args, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameFilter {
    /// Keep only games where both players have an Elo tag of at least this.
    #[arg(long)]
    pub min_elo: Option<u32>,
    /// Results to keep: `all`, `decisive`, or a list like `1-0,0-1` (`*` games are skipped).
    #[arg(long, default_value = "all")]
    pub results: ResultFilter,
}

/// A game that passed the filters and whose moves are all legal.
#[derive(Clone, Debug)]
pub struct ParsedGame {
    pub start: Chess,
    /// Every move is legal in the position reached by the moves before it.
    pub moves: Vec<Move>,
    pub result: GameResult,
    /// The `Date` tag, if it names at least a year.
    pub date: Option<PgnDate>,
}

pub type GameOutcome = Result<ParsedGame, SkipReason>;

#[derive(Default)]
pub struct GameTags {
    white_elo: Option<u32>,
    black_elo: Option<u32>,
    /// `None`: no Result tag; `Some(None)`: a tag holding `*` or something unknown.
    result: Option<Option<GameResult>>,
    start: Option<Result<Chess, ()>>,
    date: Option<PgnDate>,
    variant_ok: bool,
    variant_seen: bool,
}

pub struct GameMoves {
    start: Chess,
    pos: Chess,
    moves: Vec<Move>,
    tag_result: Option<Option<GameResult>>,
    movetext_result: Option<GameResult>,
    date: Option<PgnDate>,
}

pub struct GameVisitor {
    filter: GameFilter,
}

impl GameVisitor {
    pub fn new(filter: GameFilter) -> Self {
        GameVisitor { filter }
    }

    fn check_result(&self, result: Option<GameResult>) -> Result<GameResult, SkipReason> {
        let result = result.ok_or(SkipReason::UnknownResult)?;
        if self.filter.results.accepts(result) {
            Ok(result)
        } else {
            Err(SkipReason::ResultFiltered)
        }
    }

    fn check_tags(&self, tags: &GameTags) -> Result<(), SkipReason> {
        if tags.variant_seen && !tags.variant_ok {
            return Err(SkipReason::Variant);
        }
        if let Some(Err(())) = tags.start {
            return Err(SkipReason::BadFen);
        }
        if let Some(result) = tags.result {
            self.check_result(result)?;
        }
        if let Some(min) = self.filter.min_elo {
            let (white, black) = (
                tags.white_elo.ok_or(SkipReason::MissingElo)?,
                tags.black_elo.ok_or(SkipReason::MissingElo)?,
            );
            if white < min || black < min {
                return Err(SkipReason::LowElo);
            }
        }
        Ok(())
    }
}

fn parse_start(value: &[u8]) -> Result<Chess, ()> {
    let fen = Fen::from_ascii(value).map_err(|_| ())?;
    fen.into_position(CastlingMode::Standard).map_err(|_| ())
}

impl Visitor for GameVisitor {
    type Tags = GameTags;
    type Movetext = GameMoves;
    type Output = GameOutcome;

    fn begin_tags(&mut self) -> ControlFlow<GameOutcome, GameTags> {
        ControlFlow::Continue(GameTags::default())
    }

    fn tag(
        &mut self,
        tags: &mut GameTags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<GameOutcome> {
        let text = || value.decode_utf8_lossy();
        match name {
            b"WhiteElo" => tags.white_elo = parse_elo(&text()),
            b"BlackElo" => tags.black_elo = parse_elo(&text()),
            b"Result" => tags.result = Some(GameResult::from_pgn(&text())),
            b"FEN" => tags.start = Some(parse_start(value.as_bytes())),
            b"Date" => tags.date = PgnDate::parse(&text()),
            b"Variant" => {
                tags.variant_seen = true;
                let v = text().trim().to_ascii_lowercase();
                // Cutechess writes "normal"; some sites tag standard games set up from a FEN
                // as "From Position". Anything else (Chess960, atomic, ...) is another game.
                tags.variant_ok = matches!(
                    v.as_str(),
                    "" | "standard" | "normal" | "chess" | "from position"
                );
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: GameTags) -> ControlFlow<GameOutcome, GameMoves> {
        if let Err(reason) = self.check_tags(&tags) {
            return ControlFlow::Break(Err(reason));
        }
        let start = match tags.start {
            Some(Ok(pos)) => pos,
            _ => Chess::default(),
        };
        ControlFlow::Continue(GameMoves {
            pos: start.clone(),
            start,
            moves: Vec::with_capacity(128),
            tag_result: tags.result,
            movetext_result: None,
            date: tags.date,
        })
    }

    fn san(&mut self, game: &mut GameMoves, san_plus: SanPlus) -> ControlFlow<GameOutcome> {
        match san_plus.san.to_move(&game.pos) {
            Ok(m) => {
                game.pos.play_unchecked(m);
                game.moves.push(m);
                ControlFlow::Continue(())
            }
            Err(_) => ControlFlow::Break(Err(SkipReason::IllegalMove)),
        }
    }

    fn begin_variation(&mut self, _game: &mut GameMoves) -> ControlFlow<GameOutcome, Skip> {
        ControlFlow::Continue(Skip(true))
    }

    fn outcome(&mut self, game: &mut GameMoves, outcome: Outcome) -> ControlFlow<GameOutcome> {
        game.movetext_result = match outcome {
            Outcome::Known(KnownOutcome::Decisive { winner }) => Some(if winner.is_white() {
                GameResult::WhiteWins
            } else {
                GameResult::BlackWins
            }),
            Outcome::Known(KnownOutcome::Draw) => Some(GameResult::Draw),
            Outcome::Unknown => None,
        };
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, game: GameMoves) -> GameOutcome {
        // The Result tag wins over the movetext terminator; it was already checked.
        let result = match game.tag_result {
            Some(result) => result,
            None => game.movetext_result,
        };
        let result = self.check_result(result)?;
        Ok(ParsedGame {
            start: game.start,
            moves: game.moves,
            result,
            date: game.date,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pgn_reader::Reader;

    fn read_all(pgn: &str, filter: GameFilter) -> Vec<GameOutcome> {
        let mut reader = Reader::new(pgn.as_bytes());
        let mut visitor = GameVisitor::new(filter);
        let mut out = Vec::new();
        while let Some(g) = reader.read_game(&mut visitor).expect("in-memory PGN reads") {
            out.push(g);
        }
        out
    }

    const GAMES: &str = r#"[White "a"]
[Date "2001.02.03"]
[Result "1-0"]
[WhiteElo "2500"]
[BlackElo ""]

1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0

[Result "0-1"]
[WhiteElo "2400"]
[BlackElo "2300"]

1. d4 {comment} d5 (1... Nf6 2. c4) 2. c4 0-1

[Result "*"]

1. e4 *

[Result "1/2-1/2"]
[SetUp "1"]
[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]

1. e3 Kd7 1/2-1/2

[Result "1-0"]
[FEN "not a fen"]

1. e4 1-0

[Result "1-0"]
[Variant "Atomic"]

1. e4 1-0

[Result "1-0"]
[Variant "normal"]

1. e4 1-0

[Result "1-0"]

1. e4 e5 2. Ke3 1-0

1. e4 e5 0-1
"#;

    #[test]
    fn classifies_games() {
        let out = read_all(GAMES, GameFilter::default());
        assert_eq!(out.len(), 9);
        let g = out[0].as_ref().expect("scholar's mate is valid");
        assert_eq!(g.moves.len(), 7);
        assert_eq!(g.result, GameResult::WhiteWins);
        assert_eq!(g.date.map(|d| d.earliest()), Some(20010203));
        let g = out[1].as_ref().expect("variation skipped");
        assert_eq!(g.date, None, "no Date tag");
        assert_eq!(g.moves.len(), 3, "the side line is not part of the game");
        assert_eq!(out[2].as_ref().unwrap_err(), &SkipReason::UnknownResult);
        let g = out[3].as_ref().expect("FEN start");
        assert_eq!(g.start.board().occupied().count(), 3);
        assert_eq!(g.moves.len(), 2);
        assert_eq!(out[4].as_ref().unwrap_err(), &SkipReason::BadFen);
        assert_eq!(out[5].as_ref().unwrap_err(), &SkipReason::Variant);
        assert_eq!(out[6].as_ref().expect("cutechess tag").moves.len(), 1);
        assert_eq!(out[7].as_ref().unwrap_err(), &SkipReason::IllegalMove);
        // No Result tag: the movetext terminator decides.
        assert_eq!(
            out[8].as_ref().expect("tagless").result,
            GameResult::BlackWins
        );
    }

    #[test]
    fn filters_by_elo_and_result() {
        let filter = GameFilter {
            min_elo: Some(2350),
            results: "decisive".parse().expect("valid filter"),
        };
        let out = read_all(GAMES, filter);
        assert_eq!(out[0].as_ref().unwrap_err(), &SkipReason::MissingElo);
        assert_eq!(out[1].as_ref().unwrap_err(), &SkipReason::LowElo);
        assert_eq!(out[3].as_ref().unwrap_err(), &SkipReason::ResultFiltered);
        let filter = GameFilter {
            min_elo: Some(2300),
            ..GameFilter::default()
        };
        assert!(read_all(GAMES, filter)[1].is_ok());
    }
}
