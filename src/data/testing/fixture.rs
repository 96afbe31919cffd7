//! The committed PGN fixture (`mini.pgn`: 20 master games from `sample_masters_1000.pgn`
//! plus hand-made corrupt, set-up and bad-FEN games) and a deliberately naive reader of it,
//! which the tests of every PGN command compare their records with.

use pgn_reader::{RawTag, Reader, SanPlus, Visitor};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position as _};
use std::ops::ControlFlow;

pub(crate) const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/data/fixtures/mini.pgn");

/// A deliberately naive reference: raw tags and SAN text per game, replayed separately.
#[derive(Default, Debug)]
pub(crate) struct RawGame {
    pub(crate) tags: Vec<(String, String)>,
    pub(crate) sans: Vec<String>,
}

impl RawGame {
    pub(crate) fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

struct Collect;

impl Visitor for Collect {
    type Tags = RawGame;
    type Movetext = RawGame;
    type Output = RawGame;
    fn begin_tags(&mut self) -> ControlFlow<RawGame, RawGame> {
        ControlFlow::Continue(RawGame::default())
    }
    fn tag(&mut self, g: &mut RawGame, name: &[u8], value: RawTag<'_>) -> ControlFlow<RawGame> {
        g.tags.push((
            String::from_utf8_lossy(name).into_owned(),
            value.decode_utf8_lossy().into_owned(),
        ));
        ControlFlow::Continue(())
    }
    fn begin_movetext(&mut self, g: RawGame) -> ControlFlow<RawGame, RawGame> {
        ControlFlow::Continue(g)
    }
    fn san(&mut self, g: &mut RawGame, san: SanPlus) -> ControlFlow<RawGame> {
        g.sans.push(san.to_string());
        ControlFlow::Continue(())
    }
    fn end_game(&mut self, g: RawGame) -> RawGame {
        g
    }
}

pub(crate) fn raw_games() -> Vec<RawGame> {
    let text = std::fs::read(FIXTURE).expect("fixture is committed");
    let mut reader = Reader::new(&text[..]);
    let mut out = Vec::new();
    while let Some(g) = reader.read_game(&mut Collect).expect("fixture reads") {
        out.push(g);
    }
    out
}

/// The positions of a game before each move, or `None` if the game has an illegal move or
/// a bad start.
pub(crate) fn replay(g: &RawGame) -> Option<(Vec<Chess>, Vec<shakmaty::Move>)> {
    let mut pos = match g.tag("FEN") {
        Some(fen) => fen
            .parse::<Fen>()
            .ok()?
            .into_position(CastlingMode::Standard)
            .ok()?,
        None => Chess::default(),
    };
    let (mut before, mut moves) = (Vec::new(), Vec::new());
    for s in &g.sans {
        let m = s.parse::<SanPlus>().ok()?.san.to_move(&pos).ok()?;
        before.push(pos.clone());
        moves.push(m);
        pos.play_unchecked(m);
    }
    Some((before, moves))
}
