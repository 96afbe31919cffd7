#!/usr/bin/env python3
"""The Elo ladder: Cerise against Stockfish at several UCI_Elo levels, and one rating from all.

    .venv/bin/python bench/ladder.py                       # 1500 1800 2100 2400 2700, 40 games each
    .venv/bin/python bench/ladder.py --levels 1800 2100 --games 60 --opt Threads=1

Each level is one `bench/match.py` match (Cerise as engine 1, 10+0.1 unless --tc says otherwise,
`bench/openings.epd` paired, or with --variant chess960 the 960 starting arrays) against
Stockfish with UCI_LimitStrength=true, UCI_Elo=LEVEL, Threads=1 and Hash=16. Its log and PGN
go to bench/results/ladder-<tag>-sf<LEVEL>.{log,pgn}; a level whose log already ends in a
summary line is not played again, so a killed ladder resumes where it stopped. The last lines give, per level, W/D/L, the score and Cerise's rating on that
level's scale (LEVEL + the Elo difference, with its 95% margin), then one estimate: the
inverse-variance weighted mean of the levels whose score lies strictly between 0 and 100%
(a 0% or 100% level says only that Cerise is far below or above it).

Stockfish calibrates UCI_Elo at 60+0.6 against other engines; at 10+0.1 its levels play
somewhat below their nominal rating, so this ladder's figures are on "Stockfish at 10+0.1"
scale, not CCRL's or FIDE's. Debian's stockfish (15.1) is looked up as `stockfish` on PATH or
/usr/games/stockfish; --stockfish names another.
"""

from __future__ import annotations

import argparse
import datetime
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SUMMARY = re.compile(r"^summary: games=(\d+) W=(\d+) D=(\d+) L=(\d+) score=([\d.]+)% elo=([^ ]+) err=([^ ]+)")


def find_stockfish(given: str | None) -> str:
    if given:
        return given
    for candidate in (shutil.which("stockfish"), "/usr/games/stockfish"):
        if candidate and Path(candidate).exists():
            return candidate
    raise SystemExit("stockfish not found: install it (apt-get install stockfish) or pass --stockfish PATH")


def read_summary(log: Path) -> dict | None:
    """The parsed summary line of a finished match log, or None if the match did not finish."""
    if not log.exists():
        return None
    for line in reversed(log.read_text(errors="replace").splitlines()):
        m = SUMMARY.match(line)
        if m:
            games, w, d, l = (int(m.group(i)) for i in range(1, 5))
            elo, err = float(m.group(6)), float(m.group(7))
            return {"games": games, "W": w, "D": d, "L": l, "score": float(m.group(5)), "elo": elo, "err": err}
    return None


def combined(rows: list[tuple[int, dict]]) -> tuple[float, float] | None:
    """Inverse-variance weighted rating (and its 95% margin) over the informative levels."""
    weights, total = 0.0, 0.0
    for level, s in rows:
        if 0 < s["score"] < 100 and math.isfinite(s["elo"]) and math.isfinite(s["err"]) and s["err"] > 0:
            w = 1.0 / (s["err"] / 1.96) ** 2
            weights += w
            total += w * (level + s["elo"])
    if weights == 0:
        return None
    return total / weights, 1.96 / math.sqrt(weights)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", default=str(HERE.parent / "target/release/cerise"), help="Cerise's command")
    ap.add_argument("--opt", action="append", default=[], metavar="NAME=VALUE", help="UCI option for Cerise")
    ap.add_argument("--stockfish", help="Stockfish's command (default: stockfish on PATH, or /usr/games/stockfish)")
    ap.add_argument("--levels", type=int, nargs="+", default=[1500, 1800, 2100, 2400, 2700])
    ap.add_argument("--games", type=int, default=40, help="games per level (default 40)")
    ap.add_argument("--tc", default="10+0.1")
    ap.add_argument("--concurrency", type=int, default=1,
                    help="games at once (default 1); at most the core count, one thinking engine per core")
    ap.add_argument("--openings", help="match.py's --openings (default bench/openings.epd, or with --variant "
                                       "chess960 the 960 starting arrays)")
    ap.add_argument("--variant", choices=("standard", "chess960"), default="standard",
                    help="match.py's --variant: chess960 plays every game as Chess960 (default standard)")
    ap.add_argument("--tag", default=datetime.date.today().isoformat(),
                    help="names the result files (default: today's date); the same tag resumes a ladder")
    ap.add_argument("--results", type=Path, default=HERE / "results", help="folder of the logs and PGNs")
    args = ap.parse_args(argv)
    for level in args.levels:
        if not 1350 <= level <= 2850:
            ap.error(f"UCI_Elo {level} is outside Stockfish 15.1's range 1350-2850")
    stockfish = find_stockfish(args.stockfish)
    results = args.results
    results.mkdir(parents=True, exist_ok=True)

    rows = []
    for level in args.levels:
        # Names built whole: Path.with_suffix would cut a tag that holds a dot ("v1.2").
        stem = f"ladder-{args.tag}-sf{level}"
        log, pgn = results / f"{stem}.log", results / f"{stem}.pgn"
        summary = read_summary(log)
        if summary is None:
            cmd = [sys.executable, str(HERE / "match.py"), "--engine1", args.engine, "--name1", "Cerise",
                   "--engine2", stockfish, "--name2", f"Stockfish-{level}",
                   "--opt2", "UCI_LimitStrength=true", "--opt2", f"UCI_Elo={level}",
                   "--opt2", "Threads=1", "--opt2", "Hash=16",
                   "--games", str(args.games), "--tc", args.tc, "--variant", args.variant,
                   "--concurrency", str(args.concurrency),
                   "--out", str(pgn)]
            if args.openings:
                cmd += ["--openings", args.openings]
            for opt in args.opt:
                cmd += ["--opt1", opt]
            print(f"[ladder] UCI_Elo {level}: {' '.join(cmd)}", flush=True)
            pgn.unlink(missing_ok=True)
            with open(log, "w") as out:
                proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                assert proc.stdout is not None
                for line in proc.stdout:
                    out.write(line)
                    out.flush()
                    print(line, end="", flush=True)
                if proc.wait() != 0:
                    print(f"[ladder] the match at UCI_Elo {level} failed (exit {proc.returncode}); see {log}")
                    return 1
            summary = read_summary(log)
            if summary is None:
                print(f"[ladder] no summary line in {log}")
                return 1
        else:
            print(f"[ladder] UCI_Elo {level}: already played ({log})")
        rows.append((level, summary))

    print()
    print("| Stockfish UCI_Elo | games | W / D / L | score | Cerise on this level's scale |")
    print("| --- | --- | --- | --- | --- |")
    for level, s in rows:
        print(f"| {level} | {s['games']} | {s['W']} / {s['D']} / {s['L']} | {s['score']:.1f}% | "
              f"{level + s['elo']:.0f} ± {s['err']:.0f} |")
    estimate = combined(rows)
    if estimate is None:
        print("estimate: none (every level was won or lost outright; add levels)")
    else:
        print(f"estimate: Cerise ≈ {estimate[0]:.0f} ± {estimate[1]:.0f} on the Stockfish-10+0.1 scale")
    return 0


if __name__ == "__main__":
    sys.exit(main())
