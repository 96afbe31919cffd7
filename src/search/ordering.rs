//! Move ordering over already-evaluated children.
//!
//! Bands, best first: the TT move; captures and promotions by MVV-LVA with the net's child
//! score as tie-break; the two killers; the quiets by the net's child score (the Deep Pink
//! idea: the net ranks the quiet moves), each moved up or down by its history; last,
//! where the parent's board is given, the captures that lose material by static exchange
//! (a queen taking a defended pawn is searched after the quiet moves, not before them).
//! Where a move policy has scored the node (`PlyBuf::policy`), it ranks every quiet that is
//! not a killer instead, above every quiet ranked by score and history.

use super::history::{quiet_score, role_index, ContRow};
use super::params::{
    ORDER_BAD_NOISY, ORDER_CHILD_CLAMP, ORDER_HISTORY_MIX_DIVISOR, ORDER_KILLER,
    ORDER_MVV_LVA_STEP, ORDER_NOISY, ORDER_POLICY, ORDER_POLICY_SPAN, ORDER_TT, PIECE_VALUES,
};
use super::see::see;
use super::thread::PlyBuf;
use super::tt::pack_move;
use crate::chess::{Color, Move, Role};
use shakmaty::Board;

pub fn is_noisy(m: &Move) -> bool {
    m.is_capture() || m.is_promotion()
}

/// Material a noisy move wins at once: the victim plus the promotion gain.
pub fn material_gain(m: &Move) -> i32 {
    let victim = m.capture().map_or(0, |r| PIECE_VALUES[role_index(r)]);
    let promotion = m
        .promotion()
        .map_or(0, |r| PIECE_VALUES[role_index(r)] - PIECE_VALUES[0]);
    victim + promotion
}

/// Most valuable victim first, then least valuable attacker; a queen promotion counts like
/// capturing a queen.
fn mvv_lva(m: &Move) -> i32 {
    let victim = m.capture().map_or(0, |r| role_index(r) as i32 + 1);
    let promotion = match m.promotion() {
        Some(Role::Queen) => 5,
        _ => 0,
    };
    (victim + promotion) * 8 + (6 - role_index(m.role()) as i32)
}

/// What ordering may know besides the children themselves.
pub struct OrderHints<'a> {
    pub tt_move: u16,
    pub killers: [Option<Move>; 2],
    /// History of the side to move, `None` in quiescence.
    pub history: Option<&'a [[i32; 64]; 64]>,
    /// Continuation history after the move one ply ago (countermove history) and two plies
    /// ago (follow-up history), where there were such moves; `mover` is the side to move.
    pub cont: [Option<&'a ContRow>; 2],
    pub mover: Color,
    /// The parent's board, for the static exchange of captures; `None` in quiescence, which
    /// searches no losing capture.
    pub board: Option<&'a Board>,
}

impl OrderHints<'_> {
    /// No TT move, killers or history: what quiescence orders by (MVV-LVA and child score).
    pub const NONE: OrderHints<'static> = OrderHints {
        tt_move: 0,
        killers: [None; 2],
        history: None,
        cont: [None; 2],
        mover: Color::White,
        board: None,
    };

    /// A quiet move's history score: butterfly plus both continuations.
    fn quiet_score(&self, m: &Move) -> Option<i32> {
        Some(quiet_score(self.history?, self.cont, self.mover, m))
    }
}

/// Appends to `staged` (which may hold the TT move already, then skipped) the captures and
/// promotions of `moves` that do not lose material by static exchange on `board`, by MVV-LVA
/// (ties in move order), then the killers that are legal quiet moves here: the bands
/// [`order_children`] puts first, for a node to search before it builds its other children.
pub fn stage_good_noisy_and_killers(
    board: &Board,
    moves: &[Move],
    killers: [Option<Move>; 2],
    staged: &mut Vec<Move>,
) {
    let start = staged.len();
    for m in moves {
        if is_noisy(m) && !staged.contains(m) && !loses_material(Some(board), m) {
            staged.push(*m);
        }
    }
    staged[start..].sort_by_key(|m| std::cmp::Reverse(mvv_lva(m)));
    for k in killers.into_iter().flatten() {
        if !is_noisy(&k) && moves.contains(&k) && !staged.contains(&k) {
            staged.push(k);
        }
    }
}

/// Fills `buf.order` with every child, best first. Deterministic: ties go to move order.
pub fn order_children(buf: &mut PlyBuf, hints: &OrderHints) {
    buf.order.clear();
    let policy = (buf.policy.len() == buf.children.len()).then_some(&buf.policy);
    for (i, child) in buf.children.iter().enumerate() {
        let m = &child.mv;
        let child_score = (-child.eval).clamp(-ORDER_CHILD_CLAMP, ORDER_CHILD_CLAMP);
        let key = if hints.tt_move != 0 && pack_move(m) == hints.tt_move {
            ORDER_TT
        } else if is_noisy(m) {
            let band = if loses_material(hints.board, m) {
                ORDER_BAD_NOISY
            } else {
                ORDER_NOISY
            };
            band + mvv_lva(m) * ORDER_MVV_LVA_STEP + child_score
        } else if hints.killers[0] == Some(*m) {
            ORDER_KILLER + 1
        } else if hints.killers[1] == Some(*m) {
            ORDER_KILLER
        } else if let Some(policy) = policy {
            ORDER_POLICY + policy_key(policy[i])
        } else {
            // History shifts the net's ranking rather than overruling it: a quiet that cut
            // elsewhere in this search once ranked above every quiet the net preferred.
            child_score
                + hints
                    .quiet_score(m)
                    .map_or(0, |h| h / ORDER_HISTORY_MIX_DIVISOR)
        };
        buf.order.push((key, i as u32));
    }
    buf.order
        .sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
}

/// Whether the capture `m` loses material by static exchange on `board`; a promotion never
/// counts as losing, nor does anything without a board to look at.
fn loses_material(board: Option<&Board>, m: &Move) -> bool {
    match board {
        Some(board) if !m.is_promotion() => see(board, m) < 0,
        _ => false,
    }
}

/// A log-probability as an ordering offset in [-ORDER_POLICY_SPAN, 0]; NaN sorts last.
fn policy_key(log_p: f32) -> i32 {
    if log_p.is_nan() {
        return -ORDER_POLICY_SPAN;
    }
    ((log_p * 1000.0) as i32).clamp(-ORDER_POLICY_SPAN, 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::{Position, Square};
    use crate::search::history::{piece_to, update_history, PIECE_TO};
    use crate::search::thread::Child;
    use shakmaty::Position as _;

    fn buf_for(fen: &str) -> PlyBuf {
        let pos = Position::from_fen(fen).expect("valid test FEN");
        let mut buf = PlyBuf::default();
        for m in pos.legal_moves() {
            let child = pos.play(&m);
            buf.children.push(Child {
                mv: m,
                pos: child,
                eval: 0,
            });
        }
        buf
    }

    fn first(buf: &PlyBuf) -> Move {
        buf.children[buf.order[0].1 as usize].mv
    }

    #[test]
    fn tt_move_then_best_capture_then_killer() {
        // White can take the queen on d5 with the pawn or the knight, or a rook on a8 with the queen.
        let fen = "r3k3/8/8/3q4/4P3/2N5/8/Q3K3 w - - 0 1";
        let mut buf = buf_for(fen);
        let quiet = buf
            .children
            .iter()
            .map(|c| c.mv)
            .find(|m| !is_noisy(m))
            .expect("a quiet move");
        let history = [[0; 64]; 64];
        order_children(
            &mut buf,
            &OrderHints {
                tt_move: pack_move(&quiet),
                killers: [None; 2],
                history: Some(&history),
                cont: [None; 2],
                mover: Color::White,
                board: None,
            },
        );
        assert_eq!(first(&buf), quiet);
        order_children(
            &mut buf,
            &OrderHints {
                tt_move: 0,
                killers: [Some(quiet), None],
                history: Some(&history),
                cont: [None; 2],
                mover: Color::White,
                board: None,
            },
        );
        let best = first(&buf);
        assert_eq!((best.from(), best.to()), (Some(Square::E4), Square::D5));
        let second = buf.children[buf.order[1].1 as usize].mv;
        assert_eq!((second.from(), second.to()), (Some(Square::C3), Square::D5));
        let killer_rank = buf
            .order
            .iter()
            .position(|&(_, i)| buf.children[i as usize].mv == quiet);
        // Three captures (exd5, Nxd5, Qxa8) come before the killer.
        assert_eq!(killer_rank, Some(3));
    }

    #[test]
    fn a_capture_that_loses_material_comes_after_the_quiets() {
        // Qxd6 takes a pawn the c7 pawn defends: it loses the queen for a pawn.
        let fen = "4k3/2p5/3p4/8/8/8/3Q4/4K3 w - - 0 1";
        let mut buf = buf_for(fen);
        let pos = Position::from_fen(fen).expect("valid");
        let losing = pos.parse_uci_move("d2d6").expect("legal");
        let rank = |buf: &PlyBuf| {
            buf.order
                .iter()
                .position(|&(_, i)| buf.children[i as usize].mv == losing)
        };
        order_children(&mut buf, &OrderHints::NONE);
        assert_eq!(rank(&buf), Some(0), "without a board every capture leads");
        let board = pos.inner().board().clone();
        let hints = OrderHints {
            board: Some(&board),
            ..OrderHints::NONE
        };
        order_children(&mut buf, &hints);
        assert_eq!(
            rank(&buf),
            Some(buf.children.len() - 1),
            "after every quiet"
        );
    }

    #[test]
    fn quiets_follow_the_net_score() {
        let mut buf = buf_for("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
        let target = buf.children.len() - 1;
        buf.children[target].eval = -500; // the opponent is worse off after this move
        order_children(&mut buf, &OrderHints::NONE);
        assert_eq!(buf.order[0].1 as usize, target);
    }

    #[test]
    fn history_shifts_the_net_ranking_without_overruling_it() {
        let mut buf = buf_for("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
        let (preferred, historic, punished) = (1, 4, 0);
        buf.children[preferred].eval = -300; // the net likes this move 300 cp more
        let mut history = [[0; 64]; 64];
        update_history(&mut history, &buf.children[historic].mv, 4000);
        update_history(&mut history, &buf.children[punished].mv, -4000);
        let hints = OrderHints {
            history: Some(&history),
            ..OrderHints::NONE
        };
        order_children(&mut buf, &hints);
        let rank = |i: usize| buf.order.iter().position(|&(_, j)| j as usize == i);
        assert_eq!(
            rank(preferred),
            Some(0),
            "4000 of history is worth 125 cp, not 300"
        );
        assert_eq!(rank(historic), Some(1), "history lifts a move among equals");
        assert_eq!(
            rank(punished),
            Some(buf.children.len() - 1),
            "and sinks one that failed"
        );
    }

    #[test]
    fn a_policy_ranks_quiets_above_history_but_below_killers() {
        let mut buf = buf_for("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
        let quiets: Vec<usize> = (0..buf.children.len()).collect();
        let (favourite, historic, killer) = (quiets[2], quiets[5], quiets[7]);
        let mut history = [[0; 64]; 64];
        update_history(&mut history, &buf.children[historic].mv, 4000);
        let hints = OrderHints {
            tt_move: 0,
            killers: [Some(buf.children[killer].mv), None],
            history: Some(&history),
            cont: [None; 2],
            mover: Color::White,
            board: None,
        };
        order_children(&mut buf, &hints);
        assert_eq!(
            buf.order[1].1 as usize, historic,
            "history leads without a policy"
        );

        buf.policy = vec![-5.0; buf.children.len()];
        buf.policy[favourite] = -0.1;
        buf.policy[historic] = -9.0;
        buf.policy[3] = f32::NAN;
        order_children(&mut buf, &hints);
        let rank = |i: usize| {
            buf.order
                .iter()
                .position(|&(_, j)| j as usize == i)
                .unwrap()
        };
        assert_eq!(rank(killer), 0);
        assert_eq!(rank(favourite), 1);
        assert_eq!(
            rank(historic),
            buf.children.len() - 2,
            "history no longer counts"
        );
        assert_eq!(rank(3), buf.children.len() - 1, "NaN sorts last");

        // A policy for other children (a stale buffer) is ignored.
        buf.policy.pop();
        order_children(&mut buf, &hints);
        assert_eq!(buf.order[1].1 as usize, historic);
    }

    #[test]
    fn continuation_history_lifts_a_quiet_reply() {
        let mut buf = buf_for("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
        let history = [[0; 64]; 64];
        let target = buf.children.len() - 1;
        let reply = buf.children[target].mv;
        let mut row = [0; PIECE_TO];
        row[piece_to(Color::White, &reply)] = 300;
        let hints = |cont| OrderHints {
            tt_move: 0,
            killers: [None; 2],
            history: Some(&history),
            cont,
            mover: Color::White,
            board: None,
        };
        order_children(&mut buf, &hints([None, Some(&row)]));
        assert_eq!(buf.order[0].1 as usize, target);
        // The same entry for Black's pieces says nothing about White's move.
        let mut black_row = [0; PIECE_TO];
        black_row[piece_to(Color::Black, &reply)] = 300;
        order_children(&mut buf, &hints([Some(&black_row), None]));
        assert_ne!(buf.order[0].1 as usize, target);
    }

    #[test]
    fn staging_takes_captures_that_keep_material_by_mvv_lva_then_legal_quiet_killers() {
        // exd5 and Nc3xd5 win the queen; Nc4xb6 (a7 defends) and Qxa7 (the rook defends)
        // lose material and stay for the batch.
        let fen = "r3k3/p7/1p6/3q4/2N1P3/2N5/8/Q3K3 w - - 0 1";
        let pos = Position::from_fen(fen).expect("valid test FEN");
        let moves: Vec<Move> = pos.legal_moves().to_vec();
        let uci = |m: &Move| m.to_uci(shakmaty::CastlingMode::Standard).to_string();
        let find = |s: &str| *moves.iter().find(|m| uci(m) == s).expect(s);
        let board = pos.inner().board();
        // A killer from elsewhere (illegal here) is left out; so is one already staged.
        let foreign = Move::Normal {
            role: Role::Rook,
            from: Square::H1,
            to: Square::H8,
            capture: None,
            promotion: None,
        };
        let mut staged = Vec::new();
        stage_good_noisy_and_killers(
            board,
            &moves,
            [Some(foreign), Some(find("e1e2"))],
            &mut staged,
        );
        let got: Vec<String> = staged.iter().map(uci).collect();
        assert_eq!(got, ["e4d5", "c3d5", "e1e2"]);
        // The TT move, staged already, keeps its place and is not staged twice.
        let mut staged = vec![find("c3d5")];
        stage_good_noisy_and_killers(board, &moves, [Some(find("c3d5")), None], &mut staged);
        let got: Vec<String> = staged.iter().map(uci).collect();
        assert_eq!(got, ["c3d5", "e4d5"]);
    }
}
