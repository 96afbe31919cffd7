//! A UCI engine driven as a labelling oracle: one child process, one thread of it, a fresh
//! hash for every position (`ucinewgame`), so each label depends only on its position and the
//! search limit, never on the order in which positions were labelled. With `Threads 1` a
//! fixed depth or node count then gives the same label on every run, so a killed run resumes
//! without changing the data.

use anyhow::{anyhow, bail, Context, Result};
use crossbeam::channel::{unbounded, Receiver, RecvTimeoutError};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::Duration;

/// How long the engine may take to answer `uci` and `isready`.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(20);

/// How far one search goes: the main label's limit, recorded in the labels file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchLimit {
    Depth(u32),
    Nodes(u64),
}

impl SearchLimit {
    fn go(self) -> String {
        match self {
            SearchLimit::Depth(d) => format!("go depth {d}"),
            SearchLimit::Nodes(n) => format!("go nodes {n}"),
        }
    }
}

impl std::fmt::Display for SearchLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SearchLimit::Depth(d) => write!(f, "depth {d}"),
            SearchLimit::Nodes(n) => write!(f, "nodes {n}"),
        }
    }
}

/// An engine score from the side to move's point of view, as UCI reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineScore {
    Cp(i32),
    /// Moves to mate: positive when the side to move mates.
    Mate(i32),
}

impl EngineScore {
    pub fn negate(self) -> EngineScore {
        match self {
            EngineScore::Cp(cp) => EngineScore::Cp(-cp),
            EngineScore::Mate(n) => EngineScore::Mate(-n),
        }
    }
}

/// Engine settings shared by every worker.
#[derive(Clone, Debug)]
pub struct EngineSpec {
    pub path: PathBuf,
    /// `Hash` in MiB, per engine process.
    pub hash_mb: u32,
    /// Longest wait for one search before the engine is declared hung.
    pub search_timeout: Duration,
}

/// A running engine.
pub struct UciEngine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// The `id name` the engine reported.
    pub name: String,
    path: PathBuf,
    search_timeout: Duration,
}

impl UciEngine {
    /// Starts the engine, checks that it speaks UCI and sets one thread and the hash size.
    pub fn start(spec: &EngineSpec) -> Result<UciEngine> {
        let mut child = Command::new(&spec.path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| {
                format!(
                    "cannot start the engine {}; install it (for Stockfish: \
                     `apt-get install stockfish`, then --engine /usr/games/stockfish) or pass \
                     --engine with the path of a UCI engine",
                    spec.path.display()
                )
            })?;
        let stdin = child.stdin.take().context("engine stdin")?;
        let stdout = child.stdout.take().context("engine stdout")?;
        let (tx, rx) = unbounded();
        std::thread::Builder::new()
            .name("uci-reader".into())
            .spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            })
            .context("cannot start the engine reader thread")?;
        let mut engine = UciEngine {
            child,
            stdin,
            lines: rx,
            name: String::new(),
            path: spec.path.clone(),
            search_timeout: spec.search_timeout,
        };
        let mut name = None;
        // A program that exits at once fails on the write of `uci` (broken pipe) rather than
        // on the read, so both steps carry the same advice.
        engine
            .send("uci")
            .and_then(|_| {
                engine.read_until(HANDSHAKE_TIMEOUT, "uciok", |line| {
                    if let Some(rest) = line.strip_prefix("id name ") {
                        name = Some(rest.trim().to_string());
                    }
                })
            })
            .with_context(|| {
                format!(
                    "{} did not answer `uci` with `uciok`; is it a UCI engine?",
                    spec.path.display()
                )
            })?;
        engine.name = name.unwrap_or_else(|| spec.path.display().to_string());
        engine.send("setoption name Threads value 1")?;
        engine.send(&format!("setoption name Hash value {}", spec.hash_mb))?;
        engine.ready()?;
        Ok(engine)
    }

    fn send(&mut self, command: &str) -> Result<()> {
        writeln!(self.stdin, "{command}")
            .and_then(|_| self.stdin.flush())
            .map_err(|e| self.died(&format!("while sending `{command}`: {e}")))
    }

    /// An error that says the engine stopped, with its exit status when there is one.
    fn died(&mut self, context: &str) -> anyhow::Error {
        let status = match self.child.try_wait() {
            Ok(Some(status)) => format!("it exited with {status}"),
            _ => "it closed its output".to_string(),
        };
        anyhow!(
            "the engine {} stopped answering {context}: {status}",
            self.path.display()
        )
    }

    /// Reads lines until one equals `token`, passing the others to `each`.
    fn read_until(
        &mut self,
        timeout: Duration,
        token: &str,
        mut each: impl FnMut(&str),
    ) -> Result<()> {
        loop {
            match self.lines.recv_timeout(timeout) {
                Ok(line) if line.trim() == token => return Ok(()),
                Ok(line) => each(&line),
                Err(RecvTimeoutError::Timeout) => bail!(
                    "the engine {} did not answer `{token}` within {} s; is it a UCI engine?",
                    self.path.display(),
                    timeout.as_secs()
                ),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(self.died(&format!("before `{token}`")))
                }
            }
        }
    }

    fn ready(&mut self) -> Result<()> {
        self.send("isready")?;
        self.read_until(HANDSHAKE_TIMEOUT, "readyok", |_| {})
    }

    /// The engine's score for `fen` at `limit`, from the side to move's view: the last exact
    /// `score` before `bestmove` (bounds from a failed aspiration window are skipped).
    pub fn evaluate(&mut self, fen: &str, limit: SearchLimit) -> Result<EngineScore> {
        self.send("ucinewgame")?;
        self.ready()?;
        self.send(&format!("position fen {fen}"))?;
        self.send(&limit.go())?;
        let mut last = None;
        let mut bad = None;
        let timeout = self.search_timeout;
        loop {
            let line = match self.lines.recv_timeout(timeout) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => bail!(
                    "the engine {} gave no bestmove for {fen} within {} s ({limit}); \
                     lower --depth or --nodes, or raise --search-timeout",
                    self.path.display(),
                    timeout.as_secs()
                ),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(self.died(&format!("while searching {fen}")))
                }
            };
            if line.starts_with("bestmove") {
                break;
            }
            if line.starts_with("info") {
                match parse_score(&line) {
                    Ok(Some(score)) => last = Some(score),
                    Ok(None) => {}
                    Err(e) => bad = Some(e),
                }
            }
        }
        match (last, bad) {
            (Some(score), _) => Ok(score),
            (None, Some(e)) => Err(e.context(format!("the engine's score for {fen}"))),
            (None, None) => bail!(
                "the engine {} reported no score for {fen} before bestmove",
                self.path.display()
            ),
        }
    }
}

impl Drop for UciEngine {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit").and_then(|_| self.stdin.flush());
        // Give it a moment to exit on its own, then make sure.
        for _ in 0..50 {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The exact score in an `info` line, or `None` when it has none or only a bound.
pub fn parse_score(line: &str) -> Result<Option<EngineScore>> {
    let mut tokens = line.split_whitespace();
    let mut score = None;
    while let Some(token) = tokens.next() {
        match token {
            // `string` runs to the end of the line and may say anything.
            "string" => break,
            "lowerbound" | "upperbound" => return Ok(None),
            "score" => {
                let kind = tokens.next();
                let value = tokens.next();
                let parsed = value.and_then(|v| v.parse::<i32>().ok());
                score = Some(match (kind, parsed) {
                    (Some("cp"), Some(v)) => EngineScore::Cp(v),
                    (Some("mate"), Some(v)) => EngineScore::Mate(v),
                    _ => bail!("unreadable score in `{line}`"),
                });
            }
            _ => {}
        }
    }
    Ok(score)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_read_from_info_lines() {
        let line = "info depth 12 seldepth 16 multipv 1 score cp 132 nodes 49277 pv a2a3";
        assert_eq!(parse_score(line).unwrap(), Some(EngineScore::Cp(132)));
        let line = "info depth 20 score mate -3 nodes 5 pv e1e2";
        assert_eq!(parse_score(line).unwrap(), Some(EngineScore::Mate(-3)));
        assert_eq!(parse_score("info depth 3 nodes 100").unwrap(), None);
        let bound = "info depth 12 score cp 40 lowerbound nodes 9";
        assert_eq!(parse_score(bound).unwrap(), None);
        let text = "info string score cp 99 is not a score";
        assert_eq!(parse_score(text).unwrap(), None);
        assert!(parse_score("info depth 1 score cp x").is_err());
        assert!(parse_score("info depth 1 score wdl 1").is_err());
    }

    #[test]
    fn a_missing_engine_is_named_with_the_fix() {
        let spec = EngineSpec {
            path: "/nonexistent/stockfish".into(),
            hash_mb: 16,
            search_timeout: Duration::from_secs(5),
        };
        let err = UciEngine::start(&spec).err().expect("no such engine");
        let text = format!("{err:#}");
        assert!(text.contains("/nonexistent/stockfish"), "{text}");
        assert!(text.contains("--engine"), "{text}");
    }
}
