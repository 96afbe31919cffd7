//! A playable position back from a [`CompactBoard`], for code that needs legal moves or
//! attack maps of a board the search handed over (the RBF features, the policy's clipping).
//!
//! The compact board keeps only the pieces, seen from the side to move, so the position is
//! rebuilt with the side to move as White. Castling rights are guessed: a side keeps the
//! right to castle on a wing while its king and that wing's rook stand on their starting
//! squares (true in almost every real game; a king or rook that moved away and back is the
//! exception). En passant is never available. Trainers must rebuild their positions the
//! same way, so that a net sees in training what it will see in play.

use super::CompactBoard;
use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, FromSetup, Piece, Position as _, Role, Setup,
    Square,
};

const ROLES: [Role; 6] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
    Role::King,
];

/// The board's pieces on a shakmaty board: codes 1..=6 White (the side to move), 7..=12
/// Black.
pub fn board_of(compact: &CompactBoard) -> Board {
    let mut board = Board::empty();
    for (sq, &code) in compact.0.iter().enumerate() {
        if code == 0 || code > 12 {
            continue;
        }
        let color = if code <= 6 {
            Color::White
        } else {
            Color::Black
        };
        let role = ROLES[(code as usize - 1) % 6];
        board.set_piece_at(Square::new(sq as u32), Piece { color, role });
    }
    board
}

/// The castling rights the module note guesses for `board`.
pub fn guessed_castling(board: &Board) -> Bitboard {
    let mut rights = Bitboard::EMPTY;
    let sides = [
        (Color::White, Square::E1, Square::A1, Square::H1),
        (Color::Black, Square::E8, Square::A8, Square::H8),
    ];
    for (color, king, queen_rook, king_rook) in sides {
        if board.piece_at(king)
            != Some(Piece {
                color,
                role: Role::King,
            })
        {
            continue;
        }
        for rook in [queen_rook, king_rook] {
            if board.piece_at(rook)
                == Some(Piece {
                    color,
                    role: Role::Rook,
                })
            {
                rights.add(rook);
            }
        }
    }
    rights
}

/// The position of `compact` with White (the side to move) to play, or `None` for a board
/// that is no chess position at all (no king of each side). Checks that cannot arise in a
/// game (the side not to move in check) are allowed through, so every searched board maps.
// shakmaty's error carries the position it could not validate, so it is large; it never
// leaves this function.
#[allow(clippy::result_large_err)]
pub fn position_of(compact: &CompactBoard) -> Option<Chess> {
    let board = board_of(compact);
    let setup = Setup {
        castling_rights: guessed_castling(&board),
        board,
        ..Setup::empty()
    };
    let pos = Chess::from_setup(setup, CastlingMode::Standard)
        .or_else(|e| e.ignore_invalid_castling_rights())
        .or_else(|e| e.ignore_too_much_material())
        .or_else(|e| e.ignore_impossible_check())
        .ok()?;
    debug_assert_eq!(pos.turn(), Color::White);
    Some(pos)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::EnPassantMode;

    fn chess(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    fn fen_of(pos: &Chess) -> String {
        Fen::from_position(pos, EnPassantMode::Legal).to_string()
    }

    #[test]
    fn white_to_move_comes_back_with_its_castling_rights() {
        let start = Chess::default();
        let back = position_of(&CompactBoard::from_chess(&start)).unwrap();
        assert_eq!(fen_of(&back), fen_of(&start));
        assert_eq!(back.legal_moves().len(), 20);
    }

    #[test]
    fn black_to_move_comes_back_mirrored() {
        // After 1. e4, Black to move: seen from Black, Black's pieces are White's and play up.
        let pos = chess("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
        let back = position_of(&CompactBoard::from_chess(&pos)).unwrap();
        assert_eq!(
            fen_of(&back),
            "rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        );
        assert_eq!(back.legal_moves().len(), pos.legal_moves().len());
    }

    #[test]
    fn castling_rights_are_guessed_from_kings_and_rooks() {
        // White's king-side rook has gone; Black's king has moved.
        let pos = chess("r3k2r/8/8/8/8/8/8/R3K3 w Qkq - 0 1");
        let board = board_of(&CompactBoard::from_chess(&pos));
        assert_eq!(
            guessed_castling(&board),
            Bitboard::from(Square::A1) | Square::A8 | Square::H8
        );
        let moved = chess("r4k1r/8/8/8/8/8/8/R3K2R w KQ - 0 1");
        let board = board_of(&CompactBoard::from_chess(&moved));
        assert_eq!(
            guessed_castling(&board),
            Bitboard::from(Square::A1) | Square::H1
        );
    }

    #[test]
    fn a_board_without_kings_is_not_a_position() {
        let mut compact = CompactBoard::from_chess(&Chess::default());
        compact.0[4] = 0; // the white king on e1
        assert!(position_of(&compact).is_none());
    }
}
