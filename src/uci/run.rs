//! The command loop: reacts to parsed commands and prints search events as they arrive.
//! Only commands that change what a search depends on (and the blocking extras: `bench`,
//! `perft`) wait for a running search; `isready`, `stop`, `ponderhit` answer at once.

use super::command::{Command, ParseError};
use super::format::{error_line, event_line, info_string};
use super::io::{spawn_reader, Output};
use super::options::declarations;
use crate::bench::{self, BenchConfig};
use crate::engine::Engine;
use crate::search::SearchEvent;
use crossbeam::channel::{Receiver, Sender};
use std::io::BufRead;

pub const ENGINE_NAME: &str = "Cerise";
pub const ENGINE_AUTHOR: &str = "the Cerise developers";

pub struct UciLoop {
    engine: Engine,
    events: Receiver<SearchEvent>,
    out: Output,
    debug: bool,
}

enum Flow {
    Continue,
    Quit,
}

impl UciLoop {
    pub fn new(out: Output) -> Self {
        let (tx, rx): (Sender<SearchEvent>, Receiver<SearchEvent>) =
            crossbeam::channel::unbounded();
        UciLoop {
            engine: Engine::new(tx),
            events: rx,
            out,
            debug: false,
        }
    }

    /// Runs until `quit` or the end of `commands`; a running search is stopped and its
    /// `bestmove` printed before returning.
    pub fn run(&mut self, commands: Receiver<Result<Command, ParseError>>) {
        loop {
            crossbeam::channel::select! {
                recv(commands) -> msg => {
                    let flow = match msg {
                        Ok(Ok(command)) => self.handle(command),
                        Ok(Err(e)) => {
                            self.out.line(&error_line(&e.to_string()));
                            Flow::Continue
                        }
                        Err(_) => Flow::Quit,
                    };
                    if let Flow::Quit = flow {
                        self.settle();
                        return;
                    }
                }
                recv(self.events) -> event => {
                    if let Ok(event) = event {
                        self.out.line(&event_line(&event));
                    }
                }
            }
        }
    }

    /// Stops any search, waits for it, and prints what it still had to say (its final info
    /// and bestmove), so later output cannot overtake it.
    fn settle(&mut self) {
        self.engine.stop_and_wait();
        while let Ok(event) = self.events.try_recv() {
            self.out.line(&event_line(&event));
        }
    }

    fn lines(&mut self, lines: &[String]) {
        for line in lines {
            self.out.line(line);
        }
    }

    fn handle(&mut self, command: Command) -> Flow {
        match command {
            Command::Uci => {
                self.out.line(&format!(
                    "id name {ENGINE_NAME} {}",
                    env!("CARGO_PKG_VERSION")
                ));
                self.out.line(&format!("id author {ENGINE_AUTHOR}"));
                self.lines(&declarations());
                // Names the net in use (GUIs log it); a failed default load is said here.
                if let Some(e) = self.engine.startup_error() {
                    self.out.line(&format!("info string error: {e}"));
                }
                self.out
                    .line(&format!("info string {}", self.engine.evaluator_summary()));
                self.out.line("uciok");
            }
            Command::Debug(on) => self.debug = on,
            Command::IsReady => self.out.line("readyok"),
            Command::Register => {}
            Command::SetOption { name, value } => {
                self.settle();
                match self.engine.set_option(&name, &value) {
                    Ok(Some(news)) => self.out.line(&info_string(&news)),
                    Ok(None) => {}
                    Err(e) => self.out.line(&error_line(&e)),
                }
            }
            Command::UciNewGame => {
                self.settle();
                self.engine.new_game();
            }
            Command::Position(spec) => {
                self.settle();
                if let Err(e) = self.engine.set_position(&spec) {
                    self.out
                        .line(&error_line(&format!("{e}; the position is unchanged")));
                }
            }
            Command::Go(limits) => {
                self.settle();
                if let Err(e) = self.engine.go(limits) {
                    self.out.line(&error_line(&e));
                }
            }
            Command::Stop => self.engine.stop(),
            Command::PonderHit => self.engine.ponderhit(),
            Command::Quit => return Flow::Quit,
            Command::Bench { depth, threads } => {
                // Fresh tables of its own: the game's TT and cache are untouched.
                self.settle();
                let eval = self.engine.evaluator();
                let config = BenchConfig::for_evaluator(eval.as_ref(), depth, threads);
                let header = bench::header_line(&config, eval.as_ref());
                self.out.line(&info_string(&header));
                let out = &mut self.out;
                match bench::run(&config, eval, &mut |line| out.line(&info_string(line))) {
                    Ok(summary) => {
                        self.out.line(&info_string(&summary.stats_line()));
                        self.out.line(&summary.final_line());
                    }
                    Err(e) => self.out.line(&error_line(&e)),
                }
            }
            Command::Perft(depth) => {
                self.settle();
                match self.engine.perft(depth) {
                    Ok(lines) => self.lines(&lines),
                    Err(e) => self.out.line(&error_line(&e)),
                }
            }
            Command::Eval => match self.engine.eval_report() {
                Ok(lines) => self.lines(&lines),
                Err(e) => self.out.line(&error_line(&e)),
            },
            Command::Display => {
                let lines = self.engine.display();
                self.lines(&lines);
            }
        }
        if self.debug {
            let searching = self.engine.is_searching();
            self.out
                .line(&info_string(&format!("debug: searching={searching}")));
        }
        Flow::Continue
    }
}

/// The UCI protocol over `input` and `out`; returns when the GUI quits or input ends.
pub fn run_uci(input: impl BufRead + Send + 'static, out: Output) {
    let (tx, rx) = crossbeam::channel::unbounded();
    let _reader = spawn_reader(input, tx);
    UciLoop::new(out).run(rx);
}

/// The UCI protocol on stdin and stdout.
pub fn run_stdio() {
    let stdin = std::io::BufReader::new(std::io::stdin());
    run_uci(stdin, Output::stdout());
}

#[cfg(test)]
mod tests {
    use super::*;
    use parking_lot::Mutex;
    use std::io::Write;
    use std::sync::Arc;

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Runs a whole session from a script and returns the output lines.
    fn session(script: &str) -> Vec<String> {
        let sink = Shared::default();
        let input = std::io::Cursor::new(script.as_bytes().to_vec());
        run_uci(input, Output::new(Box::new(sink.clone())));
        let bytes = sink.0.lock().clone();
        String::from_utf8(bytes)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn handshake_lists_options_and_ends_with_uciok() {
        let out = session("uci\nisready\n");
        assert!(out[0].starts_with("id name Cerise "));
        assert!(out[1].starts_with("id author "));
        let options: Vec<_> = out
            .iter()
            .filter(|l| l.starts_with("option name"))
            .collect();
        assert_eq!(
            options.len(),
            crate::engine::options::OptionId::ALL.len(),
            "{out:?}"
        );
        assert!(options.contains(
            &&"option name Backend type combo default auto var auto var native var torch"
                .to_string()
        ));
        // The default net, named with the backend that runs it.
        let named = &out[out.len() - 3];
        assert!(
            named.starts_with("info string evaluator net ") && named.contains(", backend "),
            "{named}"
        );
        assert_eq!(out[out.len() - 2], "uciok");
        assert_eq!(out[out.len() - 1], "readyok");
    }

    #[test]
    fn errors_are_reported_and_state_is_kept() {
        let out = session(
            "position startpos moves e2e4\nposition startpos moves e2e4 e2e4\n\nxyzzy\n\
             setoption name Hash value 0\nd\n",
        );
        assert!(out[0].starts_with("info string error: ") && out[0].contains("e2e4"));
        assert_eq!(out[1], "info string error: unknown command 'xyzzy'");
        assert!(out[2].starts_with("info string error: Hash"));
        assert!(out
            .iter()
            .any(|l| l == "Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"));
    }

    #[test]
    fn one_bestmove_per_go_and_eof_stops_an_infinite_search() {
        let out = session("position startpos\ngo depth 2\nisready\ngo infinite\n");
        let best: Vec<_> = out.iter().filter(|l| l.starts_with("bestmove ")).collect();
        assert_eq!(best.len(), 2, "{out:?}");
        // Each bestmove follows its search's last info line; `isready` is answered at once,
        // so its readyok may come between the two.
        for (i, line) in out.iter().enumerate() {
            if line.starts_with("bestmove") {
                let before = out[..i].iter().rev().find(|l| *l != "readyok");
                assert!(
                    before.is_some_and(|l| l.starts_with("info depth ")),
                    "{out:?}"
                );
            }
        }
        assert!(out.contains(&"readyok".to_string()));
    }

    #[test]
    fn mated_side_answers_bestmove_0000() {
        let out = session("position fen 7k/6Q1/6K1/8/8/8/8/8 b - - 0 1\ngo depth 3\n");
        assert_eq!(out.last().unwrap(), "bestmove 0000", "{out:?}");
    }

    #[test]
    fn bench_ends_with_the_nodes_nps_line() {
        let out = session("bench 1\n");
        let last = out.last().unwrap();
        let words: Vec<&str> = last.split(' ').collect();
        assert_eq!(words.len(), 4, "{last}");
        assert!(
            words[0].parse::<u64>().unwrap() > 0 && words[1] == "nodes",
            "{last}"
        );
        assert!(
            words[2].parse::<u64>().is_ok() && words[3] == "nps",
            "{last}"
        );
        assert!(
            out[0].starts_with("info string bench with evaluator net ")
                && out[0].contains(", backend ")
                && out[0].ends_with("; depth 1, threads 1"),
            "{out:?}"
        );
        assert!(out.len() > 30 && out[1].starts_with("info string bench  1/"));
        assert!(out[out.len() - 2].starts_with("info string bench-stats "));
    }

    #[test]
    fn illegal_searchmoves_start_no_search_and_idle_stop_is_silent() {
        let out = session("stop\ngo depth 2 searchmoves e2e5\nisready\n");
        assert_eq!(out.len(), 2, "{out:?}");
        assert!(
            out[0].starts_with("info string error: searchmoves: "),
            "{out:?}"
        );
        assert_eq!(out[1], "readyok");
    }

    #[test]
    fn searchmoves_restrict_the_root() {
        let out = session("go depth 3 searchmoves h2h3\n");
        assert_eq!(
            out.last().unwrap().split(' ').nth(1),
            Some("h2h3"),
            "{out:?}"
        );
    }
}
