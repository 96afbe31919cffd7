#!/usr/bin/env python3
"""Draws Cerise's strength by ladder date and by generation as one SVG, from the figures
of bench/records/strength.csv (each a quote of its record), for the README's first screen.

    python3 bench/strength_chart.py            # writes bench/strength.svg
    python3 bench/strength_chart.py --check    # exit 1 if bench/strength.svg is stale

Standard library only, so that it runs anywhere the repository does; the output is the same
bytes on every machine (no dates, no floating-point text beyond one decimal)."""

from __future__ import annotations

import argparse
import csv
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
CSV = HERE / "records" / "strength.csv"
SVG = HERE / "strength.svg"

WIDTH, HEIGHT = 900, 350
PANEL_TOP, PANEL_BOTTOM = 48, 250
KEPT, NOT_KEPT, AXIS, TEXT = "#b0173a", "#8a8a8a", "#444444", "#222222"


@dataclass
class Row:
    panel: str
    label: str
    date: str
    elo: float
    error: float
    kept: bool
    record: str
    quote: str


def read_rows(path: Path = CSV) -> list[Row]:
    """The CSV's rows; a malformed one stops the script with its line number."""
    lines = [l for l in path.read_text(encoding="utf-8").splitlines() if not l.startswith("#")]
    rows = []
    for n, rec in enumerate(csv.DictReader(lines), start=2):
        try:
            if rec["panel"] not in ("ladder", "gain") or rec["kept"] not in ("yes", "no"):
                raise ValueError(f"panel {rec['panel']!r} or kept {rec['kept']!r}")
            rows.append(Row(rec["panel"], rec["label"], rec["date"], float(rec["elo"]),
                            float(rec["error"]), rec["kept"] == "yes", rec["record"], rec["quote"]))
        except (KeyError, TypeError, ValueError) as e:
            sys.exit(f"{path}: data row {n - 1} is malformed ({e}); see the header comment")
    return rows


def esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def num(x: float) -> str:
    """One decimal at most, so that the text is the same on every machine."""
    return f"{x:.1f}".rstrip("0").rstrip(".")


def panel(rows: list[Row], x0: float, x1: float, lo: float, hi: float, step: float,
          title: str, zero: bool) -> list[str]:
    """One panel: a y grid from `lo` to `hi`, each row a point with its 95% error bar and
    its label below, in the CSV's order."""
    out = [f'<text x="{num((x0 + x1) / 2)}" y="28" text-anchor="middle" font-size="15" '
           f'font-weight="bold" fill="{TEXT}">{esc(title)}</text>']

    def y(v: float) -> float:
        return PANEL_BOTTOM - (v - lo) / (hi - lo) * (PANEL_BOTTOM - PANEL_TOP)

    tick = lo
    while tick <= hi + 1e-9:
        out.append(f'<line x1="{num(x0)}" x2="{num(x1)}" y1="{num(y(tick))}" y2="{num(y(tick))}" '
                   f'stroke="#dddddd" stroke-width="1"/>')
        out.append(f'<text x="{num(x0 - 6)}" y="{num(y(tick) + 4)}" text-anchor="end" '
                   f'font-size="11" fill="{AXIS}">{num(tick)}</text>')
        tick += step
    if zero:
        out.append(f'<line x1="{num(x0)}" x2="{num(x1)}" y1="{num(y(0))}" y2="{num(y(0))}" '
                   f'stroke="{AXIS}" stroke-width="1.2"/>')
    slot = (x1 - x0) / len(rows)
    for i, r in enumerate(rows):
        cx = x0 + slot * (i + 0.5)
        colour = KEPT if r.kept else NOT_KEPT
        top, bottom = y(min(r.elo + r.error, hi)), y(max(r.elo - r.error, lo))
        out.append(f'<line x1="{num(cx)}" x2="{num(cx)}" y1="{num(top)}" y2="{num(bottom)}" '
                   f'stroke="{colour}" stroke-width="1.5"/>')
        fill = colour if r.kept else "white"
        out.append(f'<circle cx="{num(cx)}" cy="{num(y(r.elo))}" r="4.5" fill="{fill}" '
                   f'stroke="{colour}" stroke-width="1.5"><title>{esc(r.label)}, {r.date}: '
                   f'{esc(r.quote)} ({r.record})</title></circle>')
        ly = PANEL_BOTTOM + 12
        out.append(f'<text transform="translate({num(cx + 3)},{ly}) rotate(40)" font-size="10" '
                   f'fill="{TEXT}">{esc(r.label)}</text>')
    return out


def draw(rows: list[Row]) -> str:
    ladder = [r for r in rows if r.panel == "ladder"]
    gains = [r for r in rows if r.panel == "gain"]
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
    ]
    parts += panel(ladder, 60, 430, 1700, 2300, 100,
                   "Against Stockfish 15.1 (UCI_Elo scale, 10+0.1)", zero=False)
    parts += panel(gains, 500, 880, -60, 140, 20,
                   "Each new net against the one it replaced (Elo)", zero=True)
    parts.append(f'<text x="{WIDTH / 2:.0f}" y="{HEIGHT - 6}" text-anchor="middle" font-size="11" '
                 f'fill="{AXIS}">bars: 95% intervals · hollow: not kept · from '
                 f'bench/records/strength.csv (bench/strength_chart.py)</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="do not write; exit 1 if bench/strength.svg differs from what the CSV draws")
    ap.add_argument("--out", type=Path, default=SVG, help="where to write (default bench/strength.svg)")
    args = ap.parse_args()
    svg = draw(read_rows())
    if args.check:
        if not args.out.exists() or args.out.read_text(encoding="utf-8") != svg:
            print(f"{args.out} is stale: run python3 bench/strength_chart.py", file=sys.stderr)
            return 1
        print(f"{args.out} is current")
        return 0
    args.out.write_text(svg, encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
