"""The README's strength chart: drawn from bench/records/strength.csv, whose every figure
is a quote of the record it names, so that the chart cannot drift from the records."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
import strength_chart  # noqa: E402


def test_every_figure_is_quoted_from_its_record():
    rows = strength_chart.read_rows()
    assert {r.panel for r in rows} == {"ladder", "gain"}
    for r in rows:
        text = (REPO / "bench" / "records" / r.record).read_text(encoding="utf-8")
        assert r.quote in text, f"{r.record} no longer says {r.quote!r} ({r.label})"
        # The plotted numbers are the quoted ones.
        elo, err = r.quote.replace("−", "-").lstrip("+").split(" ± ")
        assert (float(elo), float(err)) == (r.elo, r.error), r


def test_the_committed_chart_is_what_the_figures_draw():
    r = subprocess.run([sys.executable, str(REPO / "bench" / "strength_chart.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_a_malformed_row_is_refused_with_its_number(tmp_path):
    bad = tmp_path / "strength.csv"
    bad.write_text("panel,label,date,elo,error,kept,record,quote\n"
                   "ladder,x,2026-01-01,1900,50,yes,ladder.md,1900 ± 50\n"
                   "ladder,y,2026-01-02,lots,50,yes,ladder.md,1900 ± 50\n")
    try:
        strength_chart.read_rows(bad)
    except SystemExit as e:
        assert "row 2" in str(e) and "malformed" in str(e), e
    else:
        raise AssertionError("a row with elo 'lots' was read")
