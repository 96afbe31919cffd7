//! Positions and moves over shakmaty, the compact board and its network encoding, and perft.

pub mod board;
pub mod chess960;
pub mod compact;
pub mod history;
pub mod perft;
pub mod position;
pub mod samples;
pub mod syzygy;

pub use board::{
    stm_move_squares, swap_sides_feature, CompactBoard, ENCODING_NAME, ENCODING_WIDTH,
};
pub use history::KeyHistory;
pub use position::{ChessError, Position, START_FEN};
pub use samples::{sample_boards, sample_families};
pub use shakmaty::{CastlingMode, Color, Move, MoveList, Role, Square};
