"""bench/match.py itself: its bookkeeping of crashes, illegal moves and Elo, the pentanomial
counts and SPRT, concurrency, and its EPD, PGN and Polyglot openings, with fake engines."""

from __future__ import annotations

import math
import re
import struct
import subprocess
import sys
import threading
from pathlib import Path

import chess.pgn
import chess.polyglot
import pytest

from conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
import match  # noqa: E402

FAKE = f"{sys.executable} {Path(__file__).with_name('fake_engine.py')}"


def test_elo_of_even_and_lopsided_scores():
    assert match.elo_with_margin(5, 10, 5)[0] == pytest.approx(0)
    e, margin = match.elo_with_margin(30, 40, 10)  # 62.5%
    assert e == pytest.approx(-400 * math.log10(1 / 0.625 - 1))
    assert 0 < margin < 100
    assert match.elo_with_margin(3, 0, 0) == (math.inf, math.inf)


def test_time_control_parsing():
    tc = match.TimeControl.parse("10+0.1")
    assert (tc.base, tc.inc) == (10, 0.1)
    for bad in ("abc", "0+1", "10+-1"):
        with pytest.raises(Exception):
            match.TimeControl.parse(bad)


@pytest.mark.parametrize("mode,counter", [("crash", "crashes"), ("illegal", "illegal")])
def test_misbehaviour_loses_and_is_counted(mode, counter):
    bad = match.Player(f"{FAKE} {mode}", {}, name="bad")
    good = match.Player(f"{FAKE} ok", {}, name="good")
    try:
        for white, black in ((bad, good), (good, bad)):
            r = match.play_game(white, black, chess.STARTING_FEN, match.TimeControl(5, 0))
            assert r.result == ("0-1" if white is bad else "1-0"), r.termination
    finally:
        bad.quit()
        good.quit()
    assert getattr(bad.stats, counter) == 2  # and the engine was restarted for the second game
    assert good.stats == match.Stats()


def test_runner_writes_pgn_and_summary(tmp_path):
    out = tmp_path / "games.pgn"
    r = subprocess.run(
        [sys.executable, str(REPO / "bench" / "match.py"), "--engine1", f"{FAKE} ok", "--engine2",
         f"{FAKE} ok", "--games", "2", "--tc", "5+0", "--max-plies", "20", "--out", str(out)],
        capture_output=True, text=True, timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert "W 0 / D 2 / L 0" in r.stdout, r.stdout
    with out.open() as f:
        games = [chess.pgn.read_game(f), chess.pgn.read_game(f)]
    assert all(g is not None and g.headers["Result"] == "1/2-1/2" for g in games)
    # Paired: the same opening with colours swapped.
    assert games[0].headers["FEN"] == games[1].headers["FEN"]
    assert games[0].headers["White"] == games[1].headers["Black"]


# --- Pentanomial statistics, SPRT, concurrency and opening books ---------------------------

SCRIPTED = f"{FAKE} scripted"
STARTPOS = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0"
# One opening per pair; the scripted fake engine reads its fullmove number minus one as the
# mask of who loses, giving these pairs for engine 1: DD, WD, WW, LD, LL, WL (each side loses
# as White), WL (each loses as Black), DD.
SCRIPT_MASKS = [0, 8, 12, 1, 3, 5, 10, 0]
SCRIPT_PENTA = [1, 1, 4, 1, 1]  # LL, LD, DD+WL (2 + 2), WD, WW


def run_match(capsys, *args: str) -> tuple[list[str], dict[str, str]]:
    """Runs bench/match.py in this process; returns its output lines and the summary fields."""
    assert match.main(list(args)) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].startswith("summary: "), lines[-1]
    return lines, dict(f.split("=", 1) for f in lines[-1].split()[1:])


def read_games(path: Path) -> list[chess.pgn.Game]:
    with path.open() as f:
        return list(iter(lambda: chess.pgn.read_game(f), None))


def scripted_openings(tmp_path: Path) -> Path:
    epd = tmp_path / "scripted.epd"
    epd.write_text("".join(f"{STARTPOS} {mask + 1}\n" for mask in SCRIPT_MASKS))
    return epd


# fastchess's app/tests/sprt_test.cpp (fastchess Stats(LL, LD, WL, DD, WD, WW); here DD+WL is
# one count). Its degenerate all-WW case is left out: its value changed between fastchess
# versions, being a matter of how the zero counts are regularized and when iteration stops.
@pytest.mark.parametrize("penta,elo0,elo1,model,llr", [
    ([365, 16618, 36029 + 200, 16974, 390], 0, 2, "normalized", 2.25),
    ([127, 4883, 10311 + 401, 5150, 104], -1.75, 0.25, "normalized", 3.01),
    ([223, 9863, 20279 + 1000, 10037, 246], 0.5, 2.5, "logistic", -3.07),
    ([871, 26175, 55003 + 980, 26678, 821], 0, 2, "logistic", -4.98),
])
def test_sprt_llr_matches_fastchess(penta, elo0, elo1, model, llr):
    assert match.sprt_llr(penta, elo0, elo1, model) == pytest.approx(llr, rel=0.01)


def test_sprt_llr_against_hand_computation():
    # With many pairs and close hypotheses the GSPRT is, to first order, the Brownian one
    # (fishtest's LLR_alt2): N (s1 - s0) (2 s - s0 - s1) / (2 var), s the mean pair score.
    penta = [100, 400, 900, 500, 100]
    n = sum(penta)
    s = sum(c * i / 4 for i, c in enumerate(penta)) / n
    var = sum(c * (i / 4 - s) ** 2 for i, c in enumerate(penta)) / n
    s0, s1 = 0.5, 1 / (1 + 10 ** (-5 / 400))
    brownian = n * (s1 - s0) * (2 * s - s0 - s1) / (2 * var)
    assert match.sprt_llr(penta, 0, 5, "logistic") == pytest.approx(brownian, rel=0.02)
    # Swapping the hypotheses negates the ratio; no pairs, no evidence.
    assert match.sprt_llr(penta, 5, 0, "normalized") == pytest.approx(-match.sprt_llr(penta, 0, 5, "normalized"))
    assert match.sprt_llr([0] * 5, 0, 5) == 0
    lower, upper = match.sprt_bounds(0.05, 0.05)
    assert (lower, upper) == (pytest.approx(math.log(0.05 / 0.95)), pytest.approx(math.log(0.95 / 0.05)))
    assert upper == pytest.approx(2.944, abs=1e-3)


def test_pentanomial_bookkeeping_and_elo():
    tally = match.Tally()
    # Pairs (engine 1's score in each game): WW, WL, LW, DD, LD.
    for score in (1, 1, 1, 0, 0, 1, 0.5, 0.5, 0, 0.5):
        tally.add(score)
    assert tally.penta == [0, 1, 3, 0, 1] and tally.win_loss_pairs == 2
    assert (tally.wins, tally.draws, tally.losses) == (4, 3, 3)
    tally.add(1)  # a lone game completes no pair and changes no pair count
    assert tally.penta == [0, 1, 3, 0, 1]
    # Hand computation: pair scores 0.25, 0.5 x3, 1 per game; mean 0.55, variance 0.06.
    mean, var = 0.55, (0.3 ** 2 + 3 * 0.05 ** 2 + 0.45 ** 2) / 5
    margin = 1.96 * math.sqrt(var / 5)
    e, err = match.pentanomial_elo([0, 1, 3, 0, 1])
    assert e == pytest.approx(match.elo(mean))
    assert err == pytest.approx((match.elo(mean + margin) - match.elo(mean - margin)) / 2)
    assert var == pytest.approx(0.06)
    # A lone unpaired game falls back to the per-game model.
    lone = match.Tally()
    lone.add(0.5)
    assert lone.elo() == (0.0, math.inf, "trinomial")  # one game: no spread to measure


@pytest.mark.parametrize("engines,result,wins,concurrency", [
    ((f"{FAKE} ok", f"{FAKE} illegal"), "H1", True, "1"),
    ((f"{FAKE} illegal", f"{FAKE} ok"), "H0", False, "1"),
    ((f"{FAKE} ok", f"{FAKE} illegal"), "H1", True, "2"),  # the games still running are not counted
])
def test_sprt_stops_when_decided(capsys, tmp_path, engines, result, wins, concurrency):
    # The `illegal` fake loses every game (its third move is illegal), so each pair is WW (or LL);
    # wide hypotheses and loose error rates make the test decide within a few pairs.
    sprt = ("0", "100", "0.2", "0.2")
    lines, summary = run_match(capsys, "--engine1", engines[0], "--engine2", engines[1], "--games", "40",
                               "--tc", "5+0", "--max-plies", "20", "--sprt", *sprt, "--concurrency", concurrency,
                               "--out", str(tmp_path / "sprt.pgn"))
    lower, upper = match.sprt_bounds(0.2, 0.2)
    pairs = next(k for k in range(1, 20)
                 if not lower < match.sprt_llr([0, 0, 0, 0, k] if wins else [k, 0, 0, 0, 0], 0, 100) < upper)
    assert summary["result"] == result
    assert summary["games"] == str(2 * pairs) and 2 * pairs < 40, lines
    assert summary["pentanomial"] == (f"[0,0,0,0,{pairs}]" if wins else f"[{pairs},0,0,0,0]")
    assert summary["bounds"] == f"{lower:.2f},{upper:.2f}"
    assert summary["illegal"] == ("0," if wins else "") + str(2 * pairs) + ("" if wins else ",0")
    assert len([l for l in lines if l.startswith("game ")]) == 2 * pairs
    assert len(read_games(tmp_path / "sprt.pgn")) == 2 * pairs


def test_concurrency_gives_the_same_counts_in_the_same_order(capsys, tmp_path):
    epd = scripted_openings(tmp_path)
    runs = {}
    for n in (1, 2):
        out = tmp_path / f"c{n}.pgn"
        lines, summary = run_match(capsys, "--engine1", f"{SCRIPTED} 1", "--name1", "one",
                                   "--engine2", f"{SCRIPTED} 2", "--name2", "two",
                                   "--games", str(2 * len(SCRIPT_MASKS)), "--tc", "5+0", "--max-plies", "4",
                                   "--openings", str(epd), "--concurrency", str(n), "--out", str(out))
        pgn = [(g.headers["Round"], g.headers["Result"]) for g in read_games(out)]
        games, pairs = ([l for l in lines if l.startswith(word)] for word in ("game ", "pairs "))
        runs[n] = games, summary, pgn, pairs
    assert runs[1] == runs[2]
    _, summary, pgn, pairs_line = runs[1]
    assert summary["pentanomial"] == "[" + ",".join(map(str, SCRIPT_PENTA)) + "]"
    assert pairs_line == ["pairs (one's view): LL 1, LD 1, DD 2 + WL 2, WD 1, WW 1"]
    assert (summary["W"], summary["D"], summary["L"]) == ("5", "6", "5")
    assert (summary["illegal"], summary["timeloss"], summary["crash"]) == ("5,5", "0,0", "0,0")
    assert [r for r, _ in pgn] == [str(g) for g in range(1, 2 * len(SCRIPT_MASKS) + 1)]


def test_a_resumed_match_counts_its_games_and_ends_as_an_uninterrupted_one(capsys, tmp_path):
    epd = scripted_openings(tmp_path)
    total = 2 * len(SCRIPT_MASKS)

    def run(out: Path, games: int, *extra: str):
        return run_match(capsys, "--engine1", f"{SCRIPTED} 1", "--name1", "one", "--engine2", f"{SCRIPTED} 2",
                         "--name2", "two", "--games", str(games), "--tc", "5+0", "--max-plies", "4",
                         "--openings", str(epd), "--out", str(out), *extra)

    whole = tmp_path / "whole.pgn"
    _, expected = run(whole, total)
    texts = whole.read_text().split("\n\n[Event")
    assert len(texts) == total
    for cut in (6, 7):  # 7: an unfinished pair, cut from the file and replayed
        part = tmp_path / f"part{cut}.pgn"
        part.write_text("\n\n[Event".join(texts[:cut]) + "\n\n")
        lines, summary = run(part, total, "--resume")
        assert lines[0] == "resuming: 6 games already in " + str(part) + " (one: +3 =3 -0)", lines[0]  # pairs DD, WD, WW
        assert [l for l in lines if l.startswith("game ")][0].startswith(f"game   7/{total}:"), lines
        assert summary == expected
        rounds = [g.headers["Round"] for g in read_games(part)]
        assert rounds == [str(g) for g in range(1, total + 1)]


def test_resume_refuses_a_pgn_of_other_engines(capsys, tmp_path):
    out = tmp_path / "games.pgn"
    run_match(capsys, "--engine1", f"{FAKE} ok", "--name1", "a", "--engine2", f"{FAKE} ok", "--name2", "b",
              "--games", "2", "--tc", "5+0", "--max-plies", "4", "--out", str(out))
    with pytest.raises(SystemExit, match="expects round 1, 'c' - 'b'"):
        match.main(["--engine1", f"{FAKE} ok", "--name1", "c", "--engine2", f"{FAKE} ok", "--name2", "b",
                    "--games", "4", "--tc", "5+0", "--out", str(out), "--resume"])


def test_games_finishing_out_of_order_are_reported_in_order():
    # Events, not sleeps, set the order, so that a loaded machine cannot change it.
    started, finished = [], []
    lock = threading.Lock()
    overtaken = threading.Event()  # games 1 and 2 have finished, game 0 not yet

    def play(g, abort):
        with lock:
            started.append(g)
        if g == 0:
            assert overtaken.wait(10), "games 1 and 2 never finished"
        elif g >= 6:
            # Still running when the caller stops reading; a real game ends on the abort.
            assert abort.wait(10), "the abort never came"
        with lock:
            finished.append(g)
            if {1, 2} <= set(finished):
                overtaken.set()
        return g

    results = match.play_in_order(12, play, concurrency=3)
    assert [next(results) for _ in range(6)] == [(g, g) for g in range(6)]
    assert finished.index(0) > max(finished.index(1), finished.index(2))
    results.close()  # as when the SPRT decides: the games not started are cancelled
    # A game from 6 on holds its worker until the abort, which comes after the cancel: at most
    # three of them start (the 12 would all start if the close let the pool run on).
    assert len(started) <= 9 and set(range(6)) <= set(started), started


def test_pgn_openings_are_played_from_their_moves(capsys, tmp_path):
    book = tmp_path / "book.pgn"
    book.write_text('[Event "a"]\n\n1. e4 e5 2. Nf3 Nc6 *\n\n'
                    '[Event "b"]\n[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]\n[SetUp "1"]\n\n1. Kd2 Kd7 *\n')
    out = tmp_path / "games.pgn"
    lines, summary = run_match(capsys, "--engine1", f"{FAKE} ok", "--engine2", f"{FAKE} ok", "--games", "4",
                               "--tc", "5+0", "--max-plies", "2", "--openings", str(book), "--book-plies", "3",
                               "--out", str(out))
    games = read_games(out)
    assert len(games) == 4 and summary["games"] == "4"
    first = [[m.uci() for m in g.mainline_moves()] for g in games]
    # Cut to 3 plies, the same line for both games of a pair, then 2 plies of the engines.
    assert first[0][:3] == first[1][:3] == ["e2e4", "e7e5", "g1f3"] and len(first[0]) == 5
    assert first[2][:2] == first[3][:2] == ["e1d2", "e8d7"] and len(first[2]) == 4
    assert games[2].headers["FEN"] == "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
    comments = [n.comment for n in games[0].mainline()]
    # The engines' moves carry the runner's time (these engines send no score).
    assert comments[:3] == ["book", "book", "book"] and comments[3].endswith("s"), comments


def write_polyglot(path: Path, lines: dict[str, list[tuple[str, int]]]) -> None:
    """A Polyglot book: for the position after each space-separated UCI line, moves and weights."""
    entries = []
    for line, moves in lines.items():
        board = chess.Board()
        for uci in line.split():
            board.push_uci(uci)
        for uci, weight in moves:
            m = chess.Move.from_uci(uci)
            raw = m.to_square | m.from_square << 6  # Polyglot's move: to, from, (no promotion)
            entries.append(struct.pack(">QHHI", chess.polyglot.zobrist_hash(board), raw, weight, 0))
    path.write_bytes(b"".join(sorted(entries)))


def test_polyglot_book_lines_are_weighted_seeded_and_shared_by_a_pair(capsys, tmp_path):
    bin_ = tmp_path / "book.bin"
    write_polyglot(bin_, {"": [("e2e4", 1), ("d2d4", 1)], "e2e4": [("c7c5", 1)], "d2d4": [("g8f6", 3), ("d7d5", 1)]})
    book = match.OpeningBook(bin_, plies=4, seed=7)
    lines = [book.for_pair(k).moves for k in range(40)]
    assert lines == [match.OpeningBook(bin_, plies=4, seed=7).for_pair(k).moves for k in range(40)]
    assert set(lines) == {("e2e4", "c7c5"), ("d2d4", "g8f6"), ("d2d4", "d7d5")}  # ends where the book does
    assert lines != [match.OpeningBook(bin_, plies=4, seed=8).for_pair(k).moves for k in range(40)]
    out = tmp_path / "games.pgn"
    run_match(capsys, "--engine1", f"{FAKE} ok", "--engine2", f"{FAKE} ok", "--games", "4", "--tc", "5+0",
              "--max-plies", "2", "--openings", str(bin_), "--book-plies", "1", "--seed", "7", "--out", str(out))
    played = [[m.uci() for m in g.mainline_moves()] for g in read_games(out)]
    assert [p[:1] for p in played] == [list(book.for_pair(k // 2).moves[:1]) for k in range(4)]



def test_chess960_starting_arrays_are_seeded_shared_by_a_pair_and_varied(capsys, tmp_path):
    book = match.OpeningBook(None, seed=3, chess960=True)
    starts = [book.for_pair(k) for k in range(30)]
    assert starts == [match.OpeningBook(None, seed=3, chess960=True).for_pair(k) for k in range(30)]
    assert starts != [match.OpeningBook(None, seed=4, chess960=True).for_pair(k) for k in range(30)]
    assert len({o.fen for o in starts}) > 20  # 960 arrays: a repeat in 30 draws is rare
    for o in starts:
        board = o.board()
        assert o.chess960 and board.chess960 and o.moves == ()
        assert board.castling_rights == board.rooks  # all four castles, by the outer rooks
        assert board.board_fen().split("/")[1:7] == ["pppppppp", "8", "8", "8", "8", "PPPPPPPP"]
    out = tmp_path / "games.pgn"
    # fake_engine offers UCI_Chess960; python-chess sets it because the boards are Chess960.
    run_match(capsys, "--engine1", f"{FAKE} ok", "--engine2", f"{FAKE} ok", "--variant", "chess960",
              "--seed", "3", "--games", "4", "--tc", "5+0", "--max-plies", "6", "--out", str(out))
    games = read_games(out)
    assert [g.headers["Variant"] for g in games] == ["Chess960"] * 4
    assert [g.headers["FEN"] for g in games] == [book.for_pair(k // 2).fen for k in range(4)]
    for g in games:  # every move legal by the Chess960 rules
        board = g.board()
        assert board.chess960
        for m in g.mainline_moves():
            assert m in board.legal_moves
            board.push(m)


def test_chess960_castling_crosses_the_wire_as_king_takes_rook(capsys, tmp_path):
    # King f1 and rook g1 (and f8/g8): O-O is f1g1 in Chess960, a castle that looks like a
    # king step. Written in Shredder-FEN and in X-FEN, both read as the same position.
    epd = tmp_path / "960.epd"
    epd.write_text("bnrbnkrq/pppppppp/8/8/8/8/PPPPPPPP/BNRBNKRQ w GCgc - 0 1\n"
                   "bnrbnkrq/pppppppp/8/8/8/8/PPPPPPPP/BNRBNKRQ w KQkq - 0 1\n")
    out = tmp_path / "games.pgn"
    run_match(capsys, "--engine1", f"{FAKE} castle", "--engine2", f"{FAKE} castle", "--variant", "chess960",
              "--openings", str(epd), "--games", "4", "--tc", "5+0", "--max-plies", "2", "--out", str(out))
    games = read_games(out)
    assert len(games) == 4
    for g in games:
        board = g.board()
        moves = list(g.mainline_moves())
        assert [board.uci(m) for m in moves] == ["f1g1", "f8g8"], g
        for m in moves:
            assert board.is_kingside_castling(m)
            board.push(m)
        assert board.board_fen() == "bnrbnrkq/pppppppp/8/8/8/8/PPPPPPPP/BNRBNRKQ"
        assert g.accept(chess.pgn.StringExporter(headers=False, comments=False)).startswith("1. O-O O-O")


def test_chess960_refuses_what_cannot_hold_it(tmp_path):
    bin_ = tmp_path / "book.bin"
    write_polyglot(bin_, {"": [("e2e4", 1)]})
    with pytest.raises(SystemExit, match="Polyglot book holds lines from the standard start"):
        match.OpeningBook(bin_, chess960=True)
    with pytest.raises(SystemExit, match="--book-plies applies"):
        match.OpeningBook(None, plies=4, chess960=True)
    pgn = tmp_path / "960.pgn"
    pgn.write_text('[Variant "Chess960"]\n[FEN "bnrbnkrq/pppppppp/8/8/8/8/PPPPPPPP/BNRBNKRQ w GCgc - 0 1"]\n'
                   '[SetUp "1"]\n\n1. O-O *\n')
    with pytest.raises(SystemExit, match="play them with --variant chess960"):
        match.OpeningBook(pgn)
    # Read as Chess960 it is that line, the castle written king takes rook.
    assert match.OpeningBook(pgn, chess960=True).for_pair(0).moves == ("f1g1",)
    # The standard start's castles become king takes rook when a standard PGN is played as Chess960.
    std = tmp_path / "std.pgn"
    std.write_text("1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O *\n")
    opening = match.OpeningBook(std, chess960=True).for_pair(0)
    assert opening.moves[-1] == "e1h1" and opening.board().board_fen().endswith("RNBQ1RK1")


SUMMARY = re.compile(r"summary: games=\d+ W=\d+ D=\d+ L=\d+ score=\d+\.\d% elo=[+-](\d+\.\d|inf) err=(\d+\.\d|inf) "
                     r"pentanomial=\[\d+,\d+,\d+,\d+,\d+\]( llr=-?\d+\.\d\d bounds=-?\d+\.\d\d,-?\d+\.\d\d "
                     r"result=(H0|H1|inconclusive))? illegal=\d+,\d+ timeloss=\d+,\d+ crash=\d+,\d+ "
                     r"adjudication=[a-z0-9(),+]+ adjudicated=\d+")


def test_summary_line_format():
    tally = match.Tally()
    for score, fault in ((1, (2, "crash")), (0.5, None), (0, (1, "timeloss"))):
        tally.add(score, fault)
    plain = match.summary_line(tally, None, None)
    assert SUMMARY.fullmatch(plain), plain
    assert "llr" not in plain and " crash=0,1" in plain and " timeloss=1,0" in plain
    assert "pentanomial=[0,0,0,1,0]" in plain and "games=3 W=1 D=1 L=1 score=50.0%" in plain
    assert plain.endswith(" adjudication=off adjudicated=0"), plain
    rules = match.Adjudication(resign=(3, 1000), draw=(40, 8, 10), max_plies=600)
    assert match.summary_line(tally, None, None, rules).endswith(
        " adjudication=resign(3,1000)+draw(40,8,10)+maxplies(600) adjudicated=0")
    sprt = match.Sprt(0, 5, 0.05, 0.05)
    with_sprt = match.summary_line(tally, sprt, sprt.llr(tally.penta))
    assert SUMMARY.fullmatch(with_sprt), with_sprt
    assert " bounds=-2.94,2.94 result=inconclusive " in with_sprt


def _ladder():
    import ladder  # bench/ is on sys.path (above)

    return ladder


def test_ladder_reads_summaries_and_weights_the_informative_levels(tmp_path):
    ladder = _ladder()
    log = tmp_path / "x.log"
    log.write_text("game 1/2: ...\nsummary: games=40 W=10 D=10 L=20 score=37.5% elo=-88.7 err=100.0 "
                   "pentanomial=[5,5,5,3,2] illegal=0,0 timeloss=0,0 crash=0,0\n")
    s = ladder.read_summary(log)
    assert (s["games"], s["W"], s["D"], s["L"], s["score"], s["elo"], s["err"]) == (40, 10, 10, 20, 37.5, -88.7, 100.0)
    assert ladder.read_summary(tmp_path / "missing.log") is None
    even = {"score": 50.0, "elo": 0.0, "err": 100.0}
    # Two equally precise levels: the mean of their two readings, with a margin shrunk by sqrt(2).
    rating, margin = ladder.combined([(1800, even), (2100, {"score": 20.0, "elo": -240.0, "err": 100.0})])
    assert rating == pytest.approx((1800 + 1860) / 2)
    assert margin == pytest.approx(100 / math.sqrt(2))
    # A level won outright tells no rating and is left out.
    assert ladder.combined([(1500, {"score": 100.0, "elo": math.inf, "err": math.inf})]) is None


def test_ladder_resumes_without_replaying_finished_levels(tmp_path):
    for level, line in ((1800, "W=20 D=0 L=20 score=50.0% elo=+0.0 err=90.0"),
                        (2100, "W=8 D=0 L=32 score=20.0% elo=-240.8 err=90.0")):
        (tmp_path / f"ladder-v1.2-sf{level}.log").write_text(
            f"summary: games=40 {line} pentanomial=[0,0,20,0,0] illegal=0,0 timeloss=0,0 crash=0,0\n")
    r = subprocess.run([sys.executable, str(REPO / "bench" / "ladder.py"), "--levels", "1800", "2100",
                        "--tag", "v1.2", "--results", str(tmp_path), "--stockfish", "/nonexistent-stockfish"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("already played") == 2 and "match.py" not in r.stdout
    assert "| 1800 | 40 | 20 / 0 / 20 | 50.0% | 1800 ± 90 |" in r.stdout
    assert "estimate: Cerise ≈ 1830 ± 64" in r.stdout


def test_a_killed_match_still_reports_its_finished_games(tmp_path):
    # Slow fake engines (each move takes 0.2 s) so that the match is still running when killed.
    slow = f"{FAKE} slow"
    proc = subprocess.Popen(
        [sys.executable, "-u", str(REPO / "bench" / "match.py"), "--engine1", slow, "--engine2", slow,
         "--games", "40", "--tc", "60+0", "--max-plies", "4"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("game   2/"):
            break
    proc.terminate()
    out = proc.stdout.read()
    assert proc.wait(timeout=60) == 0, out
    assert "interrupted" in out, out
    summary = [line for line in out.splitlines() if line.startswith("summary: ")]
    assert summary and "games=" in summary[0], out
    games = int(summary[0].split("games=")[1].split()[0])
    assert 2 <= games < 40, out


# --- The rules that end a game --------------------------------------------------------------
# bench/match.py once ended games with python-chess's outcome(claim_draw=True): a draw as soon
# as the side to move *could* claim one, by a move that would repeat a position a third time or
# reach the hundredth ply. cutechess-cli and fastchess end a game only when that has happened.

LINE = f"{FAKE} line"
# Knights out and back: the start position occurs after plies 0, 4 and 8.
KNIGHTS = ["b1c3", "b8c6", "c3b1", "c6b8"] * 2


def play_line(moves: list[str], fen: str = chess.STARTING_FEN, score: int | None = None,
              adjudication: match.Adjudication | None = None) -> match.GameResult:
    """A game between two engines that both follow `moves` (then play their first legal move)."""
    args = ",".join(moves) or "-"
    if score is not None:
        args += f" {score}"
    white, black = match.Player(f"{LINE} {args}", {}, name="w"), match.Player(f"{LINE} {args}", {}, name="b")
    try:
        return match.play_game(white, black, fen, match.TimeControl(30, 0), adjudication)
    finally:
        white.quit()
        black.quit()


def test_a_threefold_that_could_be_claimed_but_is_not_played_goes_on():
    # After 4. Nb1 Black could repeat the start position a third time with Nb8; it plays e5
    # instead, and White walks into the fool's mate. The old runner drew the game at ply 7.
    r = play_line(KNIGHTS[:7] + ["e7e5", "f2f3", "a7a6", "g2g4", "d8h4"])
    assert (r.result, r.termination) == ("0-1", "checkmate"), r.termination
    assert len(list(r.game.mainline_moves())) == 12


def test_a_real_third_occurrence_ends_the_game():
    r = play_line(KNIGHTS + ["e2e4"])
    assert (r.result, r.termination) == ("1/2-1/2", "threefold_repetition")
    assert [m.uci() for m in r.game.mainline_moves()] == KNIGHTS  # at the third occurrence, not before


def test_the_fifty_move_rule_ends_the_game_at_the_hundredth_ply():
    # The halfmove clock starts at 90; no capture, pawn move or repetition follows, so the game
    # ends after exactly 10 plies. The old runner drew it after 9, when Black could claim.
    shuffle = ["a1b1", "h8g8", "b1c1", "g8h8", "c1d1", "h8g8", "d1d2", "g8h8", "d2d3", "h8g8", "d3d4"]
    r = play_line(shuffle, fen="7k/8/8/8/8/8/8/R3K3 w - - 90 60")
    assert (r.result, r.termination) == ("1/2-1/2", "fifty_moves")
    assert len(list(r.game.mainline_moves())) == 10


def test_a_mate_on_the_hundredth_ply_is_a_mate():
    # Ra1-a8 mates on the ply that also brings the halfmove clock to 100.
    r = play_line(["a1a8"], fen="7k/6pp/8/8/8/8/8/R3K3 w - - 99 60")
    assert (r.result, r.termination) == ("1-0", "checkmate")


def test_game_over_needs_the_position_to_have_occurred():
    board = chess.Board()
    for uci in KNIGHTS[:7]:
        board.push_uci(uci)
    assert board.can_claim_threefold_repetition() and match.game_over(board) is None
    board.push_uci("c6b8")
    assert match.game_over(board) == ("1/2-1/2", "threefold_repetition")
    assert match.game_over(chess.Board("7k/8/8/8/8/8/8/R3K3 b - - 99 60")) is None
    assert match.game_over(chess.Board("7k/8/8/8/8/8/8/R3K3 b - - 100 60")) == ("1/2-1/2", "fifty_moves")
    assert match.game_over(chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")) == ("1/2-1/2", "stalemate")
    assert match.game_over(chess.Board("7k/8/8/8/8/8/8/4K2N w - - 0 1")) == ("1/2-1/2", "insufficient_material")


def test_no_adjudication_unless_asked():
    # Scores of -2000 from both sides would resign the game at once under --resign; without it
    # the game is played to the rules' end (here the threefold repetition of the knights).
    r = play_line(KNIGHTS, score=-2000)
    assert (r.result, r.termination, r.adjudicated) == ("1/2-1/2", "threefold_repetition", False)


def test_resign_adjudication_after_count_moves_of_the_losing_side():
    rules = match.Adjudication(resign=(3, 1000))
    r = play_line([], score=-1000, adjudication=rules)  # both sides think they are lost
    # White's third move is ply 5: White has resigned first.
    assert r.result == "0-1" and r.adjudicated and "white resigns" in r.termination, r.termination
    assert len(list(r.game.mainline_moves())) == 5
    r = play_line(KNIGHTS, score=-999, adjudication=rules)
    assert (r.termination, r.adjudicated) == ("threefold_repetition", False)  # -999 is within the bound


def test_draw_adjudication_after_the_move_number_and_count():
    r = play_line([], score=5, adjudication=match.Adjudication(draw=(3, 2, 10)))
    # Both scores small from the first ply, but not before full move 3 (ply 6).
    assert (r.result, r.adjudicated) == ("1/2-1/2", True) and "adjudicated draw" in r.termination
    assert len(list(r.game.mainline_moves())) == 6


def test_an_engine_without_scores_is_never_adjudicated_by_score():
    r = play_line(KNIGHTS, adjudication=match.Adjudication(resign=(1, 0), draw=(0, 1, 10000)))
    assert (r.termination, r.adjudicated) == ("threefold_repetition", False)


def test_summary_names_adjudication_and_counts_endings(capsys, tmp_path):
    lines, summary = run_match(capsys, "--engine1", f"{LINE} -", "--engine2", f"{LINE} -", "--games", "2",
                               "--tc", "5+0", "--max-plies", "6", "--openings", str(scripted_openings(tmp_path)))
    assert (summary["adjudication"], summary["adjudicated"]) == ("maxplies(6)", "2")
    assert "endings: adjudicated 2" in lines
    lines, summary = run_match(capsys, "--engine1", f"{LINE} {','.join(KNIGHTS)}", "--engine2",
                               f"{LINE} {','.join(KNIGHTS)}", "--games", "2", "--tc", "5+0",
                               "--openings", str(scripted_openings(tmp_path)))
    assert (summary["adjudication"], summary["adjudicated"]) == ("off", "0")
    assert "endings: threefold_repetition 2" in lines


# --- Move comments and clock use ------------------------------------------------------------


def test_engine_moves_carry_score_depth_and_time_and_book_moves_stay_book():
    # Both sides play their first legal move and send `info depth 1 score cp 25` before it.
    opening = match.Opening(moves=("e2e4",))
    white, black = match.Player(f"{LINE} - 25", {}, name="w"), match.Player(f"{LINE} - 25", {}, name="b")
    try:
        r = match.play_game(white, black, opening, match.TimeControl(30, 0), match.Adjudication(max_plies=6))
    finally:
        white.quit()
        black.quit()
    nodes = list(r.game.mainline())
    assert nodes[0].comment == "book"
    engine_moves = nodes[1:]
    assert len(engine_moves) == 6
    for node in engine_moves:
        score_depth, seconds = node.comment.split()
        assert score_depth == "+0.25/1", node.comment
        assert seconds.endswith("s") and 0 <= float(seconds[:-1]) < 5, node.comment
    # The comments are the runner's own clock: they sum to what each side's clock lost.
    black_used = sum(float(n.comment.split()[1][:-1]) for n in engine_moves[::2])
    assert abs(black_used - sum(s for s, _ in r.clocks[chess.BLACK])) < 0.01


def test_move_comment_forms():
    info = {"score": chess.engine.PovScore(chess.engine.Cp(-130), chess.WHITE), "depth": 9}
    assert match.move_comment(info, chess.WHITE, 0.5) == "-1.30/9 0.500s"
    assert match.move_comment(info, chess.BLACK, 0.5) == "+1.30/9 0.500s"
    mate = {"score": chess.engine.PovScore(chess.engine.Mate(3), chess.BLACK)}
    assert match.move_comment(mate, chess.BLACK, 1.25) == "+M3 1.250s"
    assert match.move_comment(mate, chess.WHITE, 1.25) == "-M3 1.250s"
    assert match.move_comment({}, chess.WHITE, 0.0123) == "0.012s"


def test_clock_use_is_counted_per_engine_whatever_its_colour():
    tally = match.Tally()
    # Game 1: engine 1 white, 2 moves of 0.5 s, ends with 9 s; engine 2 black, 1 move of 2 s.
    tally.add_clocks({chess.WHITE: [(0.5, 9.5), (0.5, 9.0)], chess.BLACK: [(2.0, 8.0)]}, True)
    # Game 2: engine 1 black, one move of 1 s, ends with 5 s; engine 2 white, no move.
    tally.add_clocks({chess.WHITE: [], chess.BLACK: [(1.0, 5.0)]}, False)
    assert tally.moves == {1: 3, 2: 1}
    assert tally.thought == {1: 2.0, 2: 2.0}
    line = tally.clock_report("one", "two")
    assert line == ("clock use (means over the 2 games of this run): one 0.667s a move, 7.0s left at the end; "
                    "two 2.000s a move, 4.0s left at the end"), line
    assert match.Tally().clock_report("one", "two") is None
