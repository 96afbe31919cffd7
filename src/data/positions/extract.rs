//! Labelled positions from one game: every position before a move, past the skipped opening
//! plies, one in `every` of them, each with the move played from it and the game's result.

use super::record::LabelledPosition;
use crate::chess::{stm_move_squares, CompactBoard};
use crate::data::pgn::ParsedGame;
use shakmaty::{Chess, Color, Move, Position as _};

/// The record for `pos` and the move `m` played from it, in the board's side-to-move frame.
/// `white_result` is the game's result for White; `ply` the move's index in the game.
pub fn label(pos: &Chess, m: Move, white_result: i8, ply: u16) -> LabelledPosition {
    let white_to_move = pos.turn() == Color::White;
    let (from, to) = stm_move_squares(&m, pos.turn());
    LabelledPosition {
        board: CompactBoard::from_chess(pos),
        white_to_move,
        result: white_result,
        from,
        to,
        role: m.role(),
        promotion: m.promotion(),
        ply,
    }
}

/// Which plies of a game are kept: `ply >= skip` and `(ply - skip) % every == offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlySelection {
    pub skip: u32,
    pub every: u32,
    /// `0..every`, drawn per game so `every = 2` does not keep one colour's moves only.
    pub offset: u32,
}

impl PlySelection {
    pub fn keeps(self, ply: usize) -> bool {
        let ply = ply as u64;
        let skip = u64::from(self.skip);
        ply >= skip && (ply - skip) % u64::from(self.every.max(1)) == u64::from(self.offset)
    }
}

/// Appends `game`'s selected records to `out` (not cleared) and returns the position after
/// the last move, from which the caller tells whether the game ended in checkmate. Moves past
/// ply 65535 (the record's `u16` limit; no real game gets there) give no record.
pub fn game_positions(
    game: &ParsedGame,
    select: PlySelection,
    out: &mut Vec<LabelledPosition>,
) -> Chess {
    let white_result = game.result.score_for(Color::White);
    let mut pos = game.start.clone();
    for (ply, &m) in game.moves.iter().enumerate() {
        if select.keeps(ply) {
            if let Ok(ply16) = u16::try_from(ply) {
                out.push(label(&pos, m, white_result, ply16));
            }
        }
        pos.play_unchecked(m);
    }
    pos
}

#[cfg(test)]
mod tests {
    use super::super::super::filter::GameResult;
    use super::super::super::testing::game_of;
    use super::*;
    use crate::data::records::Record;
    use shakmaty::san::San;
    use shakmaty::Role;

    const ALL: PlySelection = PlySelection {
        skip: 0,
        every: 1,
        offset: 0,
    };

    fn records(g: &ParsedGame, select: PlySelection) -> (Vec<LabelledPosition>, Chess) {
        let mut out = Vec::new();
        let end = game_positions(g, select, &mut out);
        (out, end)
    }

    #[test]
    fn moves_are_stored_in_the_movers_frame() {
        let g = game_of(&["e4", "e5", "Nf3", "Nc6"], GameResult::BlackWins);
        let (recs, _) = records(&g, ALL);
        assert_eq!(recs.len(), 4);
        let first = recs[0];
        assert_eq!(
            (first.from, first.to),
            (12, 28),
            "1.e4 is e2 (12) -> e4 (28)"
        );
        assert_eq!(
            (first.role, first.promotion, first.ply),
            (Role::Pawn, None, 0)
        );
        assert!(first.white_to_move);
        assert_eq!(first.board, CompactBoard::from_chess(&Chess::default()));
        // 1...e5 is e7 -> e5, mirrored to the same squares as 1.e4.
        let reply = recs[1];
        assert!(!reply.white_to_move);
        assert_eq!((reply.from, reply.to, reply.ply), (12, 28, 1));
        assert_eq!(reply.absolute_move(), (52, 36));
        assert_eq!(reply.uci(), "e7e5");
        // 2...Nc6 is b8 (57) -> c6 (42), mirrored to b1 (1) -> c3 (18).
        assert_eq!(
            (recs[3].from, recs[3].to, recs[3].role),
            (1, 18, Role::Knight)
        );
        // The result is White's view in every record; stm_result flips it for Black.
        assert!(recs.iter().all(|r| r.result == -1));
        assert_eq!(recs[0].stm_result(), -1);
        assert_eq!(recs[1].stm_result(), 1);
        // Every record passes the reader's validation.
        for (i, r) in recs.iter().enumerate() {
            let mut buf = [0u8; super::super::record::RECORD_BYTES];
            r.encode(&mut buf);
            assert_eq!(LabelledPosition::decode(&buf, i as u64).expect("valid"), *r);
        }
    }

    #[test]
    fn castling_is_the_kings_move_and_promotions_are_kept() {
        let g = game_of(
            &[
                "e4", "d5", "Nf3", "Qd6", "Be2", "Bd7", "O-O", "Nc6", "d3", "O-O-O",
            ],
            GameResult::Draw,
        );
        let (recs, _) = records(&g, ALL);
        let white_castles = recs[6];
        assert_eq!((white_castles.from, white_castles.to), (4, 6), "e1 -> g1");
        assert_eq!(white_castles.role, Role::King);
        assert_eq!(white_castles.uci(), "e1g1");
        let black_castles = recs[9];
        assert!(!black_castles.white_to_move);
        assert_eq!(
            (black_castles.from, black_castles.to),
            (4, 2),
            "e8 -> c8, mirrored to e1 -> c1"
        );
        assert_eq!(black_castles.uci(), "e8c8");
        assert!(recs.iter().all(|r| r.result == 0));

        // A black pawn promoting: stored as rank 7 -> rank 8 of the mover's frame.
        let start: Chess = "8/8/8/8/8/5K2/p7/7k b - - 0 1"
            .parse::<shakmaty::fen::Fen>()
            .expect("FEN")
            .into_position(shakmaty::CastlingMode::Standard)
            .expect("legal");
        let m = "a1=N"
            .parse::<San>()
            .unwrap()
            .to_move(&start)
            .expect("legal");
        let rec = label(&start, m, -1, 0);
        assert_eq!((rec.from, rec.to), (48, 56), "a2 -> a1 seen as a7 -> a8");
        assert_eq!((rec.role, rec.promotion), (Role::Pawn, Some(Role::Knight)));
        assert_eq!(rec.uci(), "a2a1n");
        let mut buf = [0u8; super::super::record::RECORD_BYTES];
        rec.encode(&mut buf);
        assert_eq!(LabelledPosition::decode(&buf, 0).expect("valid"), rec);
    }

    #[test]
    fn skip_and_every_select_plies_and_the_end_is_returned() {
        let sans = ["f3", "e5", "g4", "Qh4#"];
        let g = game_of(&sans, GameResult::BlackWins);
        let (recs, end) = records(&g, ALL);
        assert!(end.is_checkmate(), "fool's mate");
        assert_eq!(recs.len(), 4);
        let skip2 = PlySelection { skip: 2, ..ALL };
        let (recs, _) = records(&g, skip2);
        assert_eq!(recs.iter().map(|r| r.ply).collect::<Vec<_>>(), [2, 3]);
        assert_eq!(recs[1].role, Role::Queen);
        let every2 = |offset| PlySelection {
            skip: 1,
            every: 2,
            offset,
        };
        let plies = |s| records(&g, s).0.iter().map(|r| r.ply).collect::<Vec<_>>();
        assert_eq!(plies(every2(0)), [1, 3]);
        assert_eq!(plies(every2(1)), [2]);
        assert_eq!(plies(PlySelection { skip: 9, ..ALL }), Vec::<u16>::new());
    }
}
