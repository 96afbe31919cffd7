//! Search events to UCI text, one line per event.

use crate::search::{Bound, Info, SearchEvent};
use std::fmt::Write;

/// `info depth D seldepth S [multipv K] score cp X [lowerbound|upperbound] [wdl W D L] nodes N nps N
/// hashfull H [tbhits N] time T pv ...` (`pv` is left out when empty, since a bare `pv` confuses some
/// GUIs).
pub fn info_line(info: &Info) -> String {
    let mut line = format!("info depth {} seldepth {}", info.depth, info.seldepth);
    if let Some(k) = info.multipv {
        let _ = write!(line, " multipv {k}");
    }
    let _ = write!(line, " score {}", info.score);
    match info.bound {
        Some(Bound::Lower) => line.push_str(" lowerbound"),
        Some(Bound::Upper) => line.push_str(" upperbound"),
        None => {}
    }
    if let Some([w, d, l]) = info.wdl {
        let _ = write!(line, " wdl {w} {d} {l}");
    }
    let _ = write!(
        line,
        " nodes {} nps {} hashfull {}",
        info.nodes, info.nps, info.hashfull
    );
    if let Some(hits) = info.tbhits {
        let _ = write!(line, " tbhits {hits}");
    }
    let _ = write!(line, " time {}", info.time.as_millis());
    if !info.pv.is_empty() {
        line.push_str(" pv ");
        line.push_str(&info.pv.join(" "));
    }
    line
}

pub fn bestmove_line(best: Option<&str>, ponder: Option<&str>) -> String {
    match (best, ponder) {
        (Some(best), Some(ponder)) => format!("bestmove {best} ponder {ponder}"),
        (Some(best), None) => format!("bestmove {best}"),
        (None, _) => "bestmove 0000".to_string(),
    }
}

/// `info string ...`, flattened to one line so a message cannot forge another command.
pub fn info_string(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    format!("info string {flat}")
}

pub fn error_line(text: &str) -> String {
    info_string(&format!("error: {text}"))
}

pub fn event_line(event: &SearchEvent) -> String {
    match event {
        SearchEvent::Info(info) => info_line(info),
        SearchEvent::Message(text) => info_string(text),
        SearchEvent::BestMove { best, ponder } => bestmove_line(best.as_deref(), ponder.as_deref()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Score;
    use std::time::Duration;

    fn info(score: Score, bound: Option<Bound>, pv: &[&str]) -> Info {
        Info {
            depth: 5,
            seldepth: 9,
            multipv: None,
            score,
            wdl: None,
            bound,
            nodes: 12345,
            nps: 67890,
            hashfull: 12,
            tbhits: None,
            time: Duration::from_millis(182),
            pv: pv.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn centipawn_line_with_pv() {
        assert_eq!(
            info_line(&info(Score::Cp(-31), None, &["e2e4", "e7e5"])),
            "info depth 5 seldepth 9 score cp -31 nodes 12345 nps 67890 hashfull 12 time 182 \
             pv e2e4 e7e5"
        );
    }

    #[test]
    fn mate_scores_in_moves_with_sign() {
        let line = info_line(&info(Score::Mate(3), None, &["d1h5"]));
        assert!(line.contains(" score mate 3 nodes "), "{line}");
        let line = info_line(&info(Score::Mate(-2), None, &["a2a3"]));
        assert!(line.contains(" score mate -2 nodes "), "{line}");
    }

    #[test]
    fn bounds_follow_the_score() {
        let line = info_line(&info(Score::Cp(40), Some(Bound::Lower), &["e2e4"]));
        assert!(line.contains("score cp 40 lowerbound nodes"), "{line}");
        let line = info_line(&info(Score::Cp(40), Some(Bound::Upper), &["e2e4"]));
        assert!(line.contains("score cp 40 upperbound nodes"), "{line}");
    }

    #[test]
    fn empty_pv_is_left_out() {
        let line = info_line(&info(Score::Cp(0), None, &[]));
        assert!(line.ends_with("time 182"), "{line}");
    }

    #[test]
    fn bestmove_forms() {
        assert_eq!(bestmove_line(Some("e2e4"), None), "bestmove e2e4");
        assert_eq!(
            bestmove_line(Some("e2e4"), Some("e7e5")),
            "bestmove e2e4 ponder e7e5"
        );
        assert_eq!(bestmove_line(None, None), "bestmove 0000");
    }

    #[test]
    fn messages_stay_on_one_line() {
        assert_eq!(
            event_line(&SearchEvent::Message("a\nbestmove e2e4".into())),
            "info string a bestmove e2e4"
        );
        assert_eq!(error_line("bad"), "info string error: bad");
    }
}
