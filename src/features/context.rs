//! Shared attack maps for one position, computed once per [`super::extract`] call so
//! that every family reads the same bitboards (Stockfish's `attackedBy` tables).
//!
//! Per colour: the attacks of each piece type, the union of all attacks, the squares
//! attacked at least twice, the per-piece attack sets (for mobility and king attackers),
//! the mobility area and the king ring. Everything lives on the stack.

use shakmaty::attacks::{bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks};
use shakmaty::{Bitboard, Board, Chess, Color, Position, Rank, Role, Square};

/// One non-pawn, non-king piece and the squares it attacks.
#[derive(Clone, Copy)]
pub(super) struct PieceAttacks {
    pub sq: Square,
    pub role: Role,
    pub attacks: Bitboard,
}

/// Attack maps of one side.
#[derive(Clone, Copy)]
pub(super) struct Side {
    /// Attacks by role, indexed by `Role as usize - 1` (pawn .. king).
    pub by_role: [Bitboard; 6],
    /// Union of every attack of this side.
    pub all: Bitboard,
    /// Squares attacked by at least two of this side's pieces (pawns counted one by one).
    pub twice: Bitboard,
    /// Knights, bishops, rooks and queens with their attack sets; `len` are valid.
    pub pieces: [PieceAttacks; 16],
    pub len: usize,
    /// Stockfish's mobility area: squares not holding our king or queens, our pawns that
    /// are blocked or still on ranks 2–3, and not attacked by enemy pawns.
    pub mobility_area: Bitboard,
    /// The king's square, its neighbours and, on the back rank, the rank in front.
    pub king_ring: Bitboard,
    pub king: Square,
}

impl Side {
    pub fn attacks(&self, role: Role) -> Bitboard {
        self.by_role[role as usize - 1]
    }
    pub fn pieces(&self) -> &[PieceAttacks] {
        &self.pieces[..self.len]
    }
}

/// The position and both sides' attack maps.
pub(super) struct Context<'a> {
    pub pos: &'a Chess,
    pub board: &'a Board,
    pub sides: [Side; 2],
}

/// Index into [`Context::sides`].
pub(super) fn idx(c: Color) -> usize {
    c as usize
}

/// One square towards the enemy for `c`.
pub(super) fn up(c: Color) -> i32 {
    if c.is_white() {
        8
    } else {
        -8
    }
}

/// `b` moved one rank towards `c`'s opponent.
pub(super) fn push(b: Bitboard, c: Color) -> Bitboard {
    b.shift(up(c))
}

/// The squares attacked by the pawns of `c` in `pawns`.
pub(super) fn pawn_attack_set(pawns: Bitboard, c: Color) -> Bitboard {
    let f = push(pawns, c);
    let not_a = !Bitboard::from_file(shakmaty::File::A);
    let not_h = !Bitboard::from_file(shakmaty::File::H);
    (f & not_h).shift(1) | (f & not_a).shift(-1)
}

/// `sq`'s rank counted from `c`'s side, 0..=7.
pub(super) fn rel_rank(c: Color, sq: Square) -> u32 {
    c.relative_rank(sq.rank()) as u32
}

/// The ranks of `c`'s relative rank `r` (0-based).
pub(super) fn rel_rank_bb(c: Color, r: u32) -> Bitboard {
    Bitboard::from_rank(c.relative_rank(Rank::new(r)))
}

/// Files adjacent to `sq`'s file.
pub(super) fn adjacent_files(sq: Square) -> Bitboard {
    let f = sq.file();
    let mut b = Bitboard::EMPTY;
    if let Some(l) = f.offset(-1) {
        b |= Bitboard::from_file(l);
    }
    if let Some(r) = f.offset(1) {
        b |= Bitboard::from_file(r);
    }
    b
}

/// Squares strictly in front of `sq` from `c`'s point of view, on any file.
pub(super) fn forward_ranks(c: Color, sq: Square) -> Bitboard {
    let r = sq.rank() as u32;
    if c.is_white() {
        if r == 7 {
            Bitboard::EMPTY
        } else {
            Bitboard(!0u64 << (8 * (r + 1)))
        }
    } else if r == 0 {
        Bitboard::EMPTY
    } else {
        Bitboard(!0u64 >> (8 * (8 - r)))
    }
}

/// Squares in front of `sq` on its own file.
pub(super) fn forward_file(c: Color, sq: Square) -> Bitboard {
    forward_ranks(c, sq) & Bitboard::from_file(sq.file())
}

/// Squares in front of `sq` on the adjacent files (where enemy pawns could attack it
/// from, or from which ours could defend the square in front).
pub(super) fn attack_span(c: Color, sq: Square) -> Bitboard {
    forward_ranks(c, sq) & adjacent_files(sq)
}

/// Squares an enemy pawn must not occupy for a pawn of `c` on `sq` to be passed.
pub(super) fn passed_span(c: Color, sq: Square) -> Bitboard {
    forward_file(c, sq) | attack_span(c, sq)
}

/// Our pieces that are the only piece between `sq` and an enemy slider of `sliders`
/// aimed at it (pinned pieces when `sq` is our king).
pub(super) fn slider_blockers(
    board: &Board,
    sliders: Bitboard,
    sq: Square,
    ours: Bitboard,
) -> Bitboard {
    let rooks = sliders & board.rooks_and_queens() & rook_attacks(sq, Bitboard::EMPTY);
    let bishops = sliders & board.bishops_and_queens() & bishop_attacks(sq, Bitboard::EMPTY);
    let mut blockers = Bitboard::EMPTY;
    for sniper in rooks | bishops {
        let between = shakmaty::attacks::between(sq, sniper) & board.occupied();
        if between.count() == 1 && between.is_subset(ours) {
            blockers |= between;
        }
    }
    blockers
}

impl<'a> Context<'a> {
    pub fn new(pos: &'a Chess) -> Context<'a> {
        let board = pos.board();
        let occ = board.occupied();
        let empty_side = Side {
            by_role: [Bitboard::EMPTY; 6],
            all: Bitboard::EMPTY,
            twice: Bitboard::EMPTY,
            pieces: [PieceAttacks {
                sq: Square::A1,
                role: Role::Knight,
                attacks: Bitboard::EMPTY,
            }; 16],
            len: 0,
            mobility_area: Bitboard::EMPTY,
            king_ring: Bitboard::EMPTY,
            king: Square::A1,
        };
        let mut sides = [empty_side; 2];
        for c in Color::ALL {
            let s = &mut sides[idx(c)];
            let ours = board.by_color(c);
            let add = |s: &mut Side, role: Role, a: Bitboard| {
                s.twice |= s.all & a;
                s.all |= a;
                s.by_role[role as usize - 1] |= a;
            };
            for p in board.pawns() & ours {
                add(s, Role::Pawn, pawn_attacks(c, p));
            }
            for sq in (board.knights() | board.bishops() | board.rooks() | board.queens()) & ours {
                let role = board.role_at(sq).expect("occupied");
                // Sliders see through their own kind of sliders (Stockfish's x-rays), so
                // batteries count the squares behind the front piece.
                let a = match role {
                    Role::Knight => knight_attacks(sq),
                    Role::Bishop => bishop_attacks(sq, occ ^ (board.queens() & ours)),
                    Role::Rook => rook_attacks(sq, occ ^ (board.rooks_and_queens() & ours)),
                    _ => bishop_attacks(sq, occ) | rook_attacks(sq, occ),
                };
                add(s, role, a);
                if s.len < s.pieces.len() {
                    s.pieces[s.len] = PieceAttacks {
                        sq,
                        role,
                        attacks: a,
                    };
                    s.len += 1;
                }
            }
            if let Some(k) = board.king_of(c) {
                s.king = k;
                add(s, Role::King, king_attacks(k));
                let mut ring = king_attacks(k).with(k);
                if rel_rank(c, k) == 0 {
                    ring |= push(ring, c);
                }
                s.king_ring = ring;
            }
        }
        for c in Color::ALL {
            let ours = board.by_color(c);
            let our_pawns = board.pawns() & ours;
            let low = rel_rank_bb(c, 1) | rel_rank_bb(c, 2);
            let blocked = our_pawns & push(occ, !c);
            let excluded = (our_pawns & (low | blocked))
                | (ours & (board.kings() | board.queens()))
                | sides[idx(!c)].attacks(Role::Pawn);
            sides[idx(c)].mobility_area = !excluded;
        }
        Context { pos, board, sides }
    }

    pub fn us(&self, c: Color) -> &Side {
        &self.sides[idx(c)]
    }
    pub fn them(&self, c: Color) -> &Side {
        &self.sides[idx(!c)]
    }
    pub fn ours(&self, c: Color, role: Role) -> Bitboard {
        self.board.by_color(c) & self.board.by_role(role)
    }
}
