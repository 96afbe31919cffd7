"""Move generation: the whole perft suite to depth 4, through the binary's two entry points."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import chess
import pytest

from conftest import run_cli

MAX_DEPTH = 4
DIVIDE_LINE = re.compile(r"^([a-h][1-8][a-h][1-8][qrbn]?):?\s+(\d+)\s*$")
TOTAL_LINE = re.compile(r"^Nodes searched: (\d+)$")


def total_of(lines: list[str]) -> int:
    """The `Nodes searched: N` total that ends perft output (the Stockfish convention)."""
    totals = [int(m.group(1)) for l in lines if (m := TOTAL_LINE.match(l.strip()))]
    assert len(totals) == 1, f"want one 'Nodes searched: N' line, got {totals}:\n" + "\n".join(lines[-30:])
    return totals[0]


def load_suite(data_dir):
    path = data_dir / "perft" / "perftsuite.epd"
    suite = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        fen, *fields = [p.strip() for p in line.split(";")]
        counts = {int(f.split()[0][1:]): int(f.split()[1]) for f in fields if f}
        suite.append((fen, counts))
    assert len(suite) == 128, f"expected 128 positions in {path}, found {len(suite)}"
    return path, suite


def test_perft_suite_subcommand_passes(cerise_bin, data_dir):
    path, _ = load_suite(data_dir)
    r = run_cli(cerise_bin, "perft-suite", "--file", str(path), "--depth", str(MAX_DEPTH))
    assert r.returncode == 0, f"perft-suite failed ({r.returncode}):\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"


def test_perft_suite_subcommand_fails_on_a_wrong_count(cerise_bin, tmp_path):
    # A passing exit status only means something if a wrong expectation makes it fail.
    bad = tmp_path / "bad.epd"
    bad.write_text("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 401\n")
    r = run_cli(cerise_bin, "perft-suite", "--file", str(bad), "--depth", "2")
    assert r.returncode != 0, f"perft-suite accepted D2 401 for the start position:\n{r.stdout}\n{r.stderr}"


def test_perft_subcommand_missing_file_is_an_error(cerise_bin, tmp_path):
    r = run_cli(cerise_bin, "perft-suite", "--file", str(tmp_path / "missing.epd"), "--depth", "1")
    assert r.returncode != 0
    assert "missing.epd" in r.stderr + r.stdout, f"error does not name the file:\n{r.stderr}"


def cli_perft(cerise_bin, fen: str, depth: int) -> tuple[int, dict[str, int], str]:
    r = run_cli(cerise_bin, "perft", str(depth), "--fen", fen)
    assert r.returncode == 0, f"perft {depth} --fen '{fen}' failed ({r.returncode}):\n{r.stderr}"
    total = total_of(r.stdout.splitlines())
    divide = {}
    for line in r.stdout.splitlines():
        m = DIVIDE_LINE.match(line.strip())
        if m:
            divide[m.group(1)] = int(m.group(2))
    return total, divide, r.stdout


def test_every_suite_position_to_depth_4_via_perft(cerise_bin, data_dir):
    _, suite = load_suite(data_dir)
    jobs = [(fen, d, n) for fen, counts in suite for d, n in counts.items() if d == MAX_DEPTH]
    assert len(jobs) == len(suite)

    def check(job):
        fen, depth, expected = job
        total, divide, out = cli_perft(cerise_bin, fen, depth)
        problems = []
        if total != expected:
            problems.append(f"{fen}: depth {depth} gave {total}, expected {expected}")
        if divide:
            legal = {m.uci() for m in chess.Board(fen).legal_moves}
            if set(divide) != legal or sum(divide.values()) != total:
                problems.append(f"{fen}: divide does not match the legal moves or the total:\n{out}")
        return problems

    with ThreadPoolExecutor(max_workers=2) as pool:
        problems = [p for ps in pool.map(check, jobs) for p in ps]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_uci_perft_command_matches_suite(engine, data_dir, depth):
    _, suite = load_suite(data_dir)
    fen, counts = suite[1]  # kiwipete: castling, en passant, promotions within reach
    engine.send(f"position fen {fen}")
    engine.send(f"perft {depth}")
    lines = engine.sync(timeout=60)
    assert total_of([l.text for l in lines]) == counts[depth], engine.dump()
