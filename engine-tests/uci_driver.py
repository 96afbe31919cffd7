"""A raw-pipe UCI driver that records every line with its arrival time.

python-chess hides what these tests need to see (duplicate bestmoves, the exact error
lines, round-trip latency), so the engine is driven by hand here.
"""

from __future__ import annotations

import queue
import re
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

INFO_FIELDS = ("depth", "score", "nodes", "nps", "time", "pv")
BENCH_LINE = re.compile(r"^\d+ nodes \d+ nps$")


@dataclass
class Line:
    text: str
    at: float


@dataclass
class SearchOutput:
    lines: list[Line] = field(default_factory=list)

    @property
    def bestmoves(self) -> list[str]:
        return [l.text for l in self.lines if l.text.split()[:1] == ["bestmove"]]

    @property
    def infos(self) -> list[str]:
        return [l.text for l in self.lines if l.text.startswith("info ")]

    def bestmove(self) -> str:
        assert len(self.bestmoves) == 1, f"expected one bestmove, got {self.bestmoves}"
        return self.bestmoves[0].split()[1]


class EngineDied(AssertionError):
    pass


class Uci:
    """One engine process. Every line it prints is kept in `transcript` for failure messages."""

    def __init__(self, argv: list[str], stderr_path: Path | None = None):
        self.argv = argv
        self._stderr = open(stderr_path, "wb") if stderr_path else subprocess.DEVNULL
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            bufsize=0,
        )
        self.lines: queue.Queue[Line | None] = queue.Queue()
        self.transcript: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            self.lines.put(Line(text, time.monotonic()))
        self.lines.put(None)

    # -- writing --------------------------------------------------------------------------

    def send(self, command: str | bytes) -> float:
        """Writes one line (a newline is added) and returns when it was sent."""
        data = command if isinstance(command, bytes) else command.encode()
        self.transcript.append(f">> {data[:200]!r}" if isinstance(command, bytes) else f">> {command[:200]}")
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(data + b"\n")
            self.proc.stdin.flush()
        except BrokenPipeError as e:
            raise EngineDied(self._died("stdin closed while writing")) from e
        return time.monotonic()

    def close_stdin(self) -> None:
        self.transcript.append(">> <EOF>")
        assert self.proc.stdin is not None
        self.proc.stdin.close()

    # -- reading --------------------------------------------------------------------------

    def next_line(self, timeout: float) -> Line | None:
        """The next line, or None when nothing arrived in time. Raises if the engine exited."""
        try:
            line = self.lines.get(timeout=max(timeout, 0))
        except queue.Empty:
            return None
        if line is None:
            self.lines.put(None)
            raise EngineDied(self._died("engine closed stdout"))
        self.transcript.append(f"<< {line.text[:300]}")
        return line

    def read_until(self, pred, timeout: float, what: str) -> list[Line]:
        """Lines up to and including the first that satisfies `pred`; fails after `timeout`."""
        deadline = time.monotonic() + timeout
        got: list[Line] = []
        while True:
            line = self.next_line(deadline - time.monotonic())
            if line is None:
                raise AssertionError(f"no {what} within {timeout:.1f}s\n{self.dump()}")
            got.append(line)
            if pred(line.text):
                return got

    def drain(self, quiet: float) -> list[Line]:
        """Everything printed until the engine has been silent for `quiet` seconds."""
        got = []
        while (line := self.next_line(quiet)) is not None:
            got.append(line)
        return got

    # -- UCI conversations ----------------------------------------------------------------

    def handshake(self, timeout: float = 20.0) -> list[Line]:
        self.send("uci")
        return self.read_until(lambda t: t == "uciok", timeout, "uciok")

    def sync(self, timeout: float = 10.0) -> list[Line]:
        """Sends isready and returns what came before readyok."""
        self.send("isready")
        return self.read_until(lambda t: t == "readyok", timeout, "readyok")[:-1]

    def go(self, command: str, timeout: float = 30.0) -> SearchOutput:
        """Sends a `go ...` that ends by itself and collects up to the bestmove, then checks
        (with a sync) that no second bestmove follows."""
        self.send(command)
        out = SearchOutput(self.read_until(is_bestmove, timeout, f"bestmove after '{command}'"))
        out.lines += self.sync()
        return out

    def errors(self, lines: list[Line]) -> list[str]:
        return [l.text for l in lines if l.text.startswith("info string error")]

    # -- shutdown -------------------------------------------------------------------------

    def quit(self, timeout: float = 5.0) -> int:
        if self.proc.poll() is None:
            try:
                self.send("quit")
                self.close_stdin()
            except (EngineDied, BrokenPipeError, ValueError):
                pass
        try:
            return self.proc.wait(timeout)
        finally:
            self.kill()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self._stderr is not subprocess.DEVNULL:
            self._stderr.close()

    def dump(self) -> str:
        tail = "\n".join(self.transcript[-60:])
        return f"--- transcript (last 60 lines) of {' '.join(self.argv)} ---\n{tail}"

    def _died(self, why: str) -> str:
        try:
            rc = self.proc.wait(2)
        except subprocess.TimeoutExpired:
            rc = None
        return f"{why}; exit status {rc}\n{self.dump()}"


def is_bestmove(text: str) -> bool:
    return text.split()[:1] == ["bestmove"]


def info_fields(text: str) -> dict[str, str]:
    """Maps each known `info` keyword to what follows it (`pv` to the whole PV)."""
    words = text.split()
    keys = {"depth", "seldepth", "score", "nodes", "nps", "time", "pv", "hashfull", "multipv",
            "currmove", "currmovenumber", "tbhits", "string"}
    out: dict[str, str] = {}
    i = 1
    while i < len(words):
        key = words[i]
        if key == "pv" or key == "string":
            out[key] = " ".join(words[i + 1:])
            break
        if key == "score":
            out[key] = " ".join(words[i + 1:i + 3])
            i += 3
            while i < len(words) and words[i] in ("lowerbound", "upperbound"):
                i += 1
            continue
        if key in keys and i + 1 < len(words):
            out[key] = words[i + 1]
            i += 2
        else:
            i += 1
    return out


def assert_full_info(text: str) -> None:
    """An `info` line that reports a finished iteration: every field a GUI shows."""
    f = info_fields(text)
    missing = [k for k in INFO_FIELDS if k not in f]
    assert not missing, f"info line lacks {missing}: {text!r}"
    for k in ("depth", "nodes", "nps", "time"):
        assert f[k].isdigit(), f"info {k} is not a number: {text!r}"
    kind, _, value = f["score"].partition(" ")
    assert kind in ("cp", "mate") and re.fullmatch(r"-?\d+", value), f"bad score: {text!r}"
    assert f["pv"].split(), f"empty pv: {text!r}"
