//! Byte-level input (lossy UTF-8, capped line length) and line-flushed output.

use super::command::{parse_line, Command, ParseError, MAX_LINE_BYTES};
use crossbeam::channel::Sender;
use std::io::{BufRead, Write};

/// One line read with a length cap, before parsing.
#[derive(Debug, PartialEq, Eq)]
pub enum RawLine {
    Text(String),
    /// The line had this many bytes; its content was discarded.
    TooLong(usize),
}

/// Reads up to the next `\n` without ever holding more than `max` bytes of it;
/// `Ok(None)` at end of input.
pub fn read_line_capped(reader: &mut impl BufRead, max: usize) -> std::io::Result<Option<RawLine>> {
    let mut kept = Vec::new();
    let mut total = 0usize;
    let mut saw_any = false;
    loop {
        let buf = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            break;
        }
        saw_any = true;
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], true),
            None => (buf, false),
        };
        total += chunk.len();
        if kept.len() < max {
            let room = max - kept.len();
            kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
        }
        let consumed = chunk.len() + usize::from(done);
        reader.consume(consumed);
        if done {
            break;
        }
    }
    if !saw_any {
        return Ok(None);
    }
    if total > max {
        return Ok(Some(RawLine::TooLong(total)));
    }
    Ok(Some(RawLine::Text(
        String::from_utf8_lossy(&kept).into_owned(),
    )))
}

/// Parses every input line on this thread and forwards the results; end of input (or a read
/// error) is sent as `quit`, and so is the end of a `quit` line itself.
pub fn spawn_reader(
    mut input: impl BufRead + Send + 'static,
    commands: Sender<Result<Command, ParseError>>,
) -> std::thread::JoinHandle<()> {
    std::thread::Builder::new()
        .name("uci-input".into())
        .spawn(move || loop {
            let parsed = match read_line_capped(&mut input, MAX_LINE_BYTES) {
                Ok(Some(RawLine::Text(line))) => match parse_line(&line) {
                    Ok(None) => continue,
                    Ok(Some(command)) => Ok(command),
                    Err(e) => Err(e),
                },
                Ok(Some(RawLine::TooLong(n))) => Err(ParseError::TooLong(n)),
                Ok(None) | Err(_) => Ok(Command::Quit),
            };
            let quitting = matches!(parsed, Ok(Command::Quit));
            if commands.send(parsed).is_err() || quitting {
                return;
            }
        })
        .expect("cannot spawn the UCI input thread")
}

/// Line-oriented output: every line is flushed at once, because GUIs read engines through
/// pipes, where Rust's stdout would otherwise sit on a block buffer.
pub struct Output {
    sink: Box<dyn Write + Send>,
}

impl Output {
    pub fn new(sink: Box<dyn Write + Send>) -> Self {
        Output { sink }
    }

    pub fn stdout() -> Self {
        Output::new(Box::new(std::io::stdout()))
    }

    /// A closed pipe is ignored: the GUI is gone, and end of input will follow.
    pub fn line(&mut self, text: &str) {
        let _ = writeln!(self.sink, "{text}");
        let _ = self.sink.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Cursor};

    fn lines(bytes: &[u8], cap: usize, buffer: usize) -> Vec<RawLine> {
        let mut reader = BufReader::with_capacity(buffer, Cursor::new(bytes.to_vec()));
        let mut out = Vec::new();
        while let Some(line) = read_line_capped(&mut reader, cap).unwrap() {
            out.push(line);
        }
        out
    }

    #[test]
    fn splits_lines_and_keeps_a_last_line_without_newline() {
        assert_eq!(
            lines(b"uci\nisready\n\nquit", 100, 3),
            vec![
                RawLine::Text("uci".into()),
                RawLine::Text("isready".into()),
                RawLine::Text("".into()),
                RawLine::Text("quit".into()),
            ]
        );
    }

    #[test]
    fn invalid_utf8_becomes_replacement_characters() {
        assert_eq!(
            lines(b"\xff\xfego\n", 100, 8),
            vec![RawLine::Text("\u{fffd}\u{fffd}go".into())]
        );
    }

    #[test]
    fn long_lines_are_reported_and_skipped_whole() {
        let mut input = vec![b'a'; 50];
        input.extend_from_slice(b"\nisready\n");
        assert_eq!(
            lines(&input, 10, 4),
            vec![RawLine::TooLong(50), RawLine::Text("isready".into())]
        );
    }

    #[test]
    fn reader_thread_sends_quit_at_end_of_input() {
        let (tx, rx) = crossbeam::channel::unbounded();
        let input = Cursor::new(b"isready\nfoo\n\n".to_vec());
        spawn_reader(input, tx).join().unwrap();
        let got: Vec<_> = rx.iter().collect();
        assert_eq!(got.len(), 3);
        assert_eq!(got[0], Ok(Command::IsReady));
        assert!(matches!(got[1], Err(ParseError::Unknown(_))));
        assert_eq!(got[2], Ok(Command::Quit));
    }
}
