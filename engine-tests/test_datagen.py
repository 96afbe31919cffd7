"""`cerise datagen` as a user runs it: killed (SIGKILL) or stopped (SIGTERM) mid-run, then
the same command again, gives the same file as a run that was never interrupted."""

from __future__ import annotations

import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

GAMES = "40"
NODES = "300"


def command(binary: Path, out: Path, threads: int) -> list[str]:
    return [
        str(binary), "datagen", "--out", str(out), "--games", GAMES, "--nodes", NODES,
        "--threads", str(threads), "--quiet",
    ]


def run_to_end(binary: Path, out: Path, threads: int) -> str:
    done = subprocess.run(command(binary, out, threads), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def interrupt_after_first_commit(binary: Path, out: Path, sig: int) -> subprocess.CompletedProcess:
    """Starts a run, waits until the file holds a committed game, then sends `sig`."""
    proc = subprocess.Popen(command(binary, out, 2), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    header_only = None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        size = out.stat().st_size if out.exists() else 0
        if header_only is None and size > 0:
            header_only = size
        if header_only is not None and size > header_only:
            break
        time.sleep(0.005)
    if proc.poll() is not None:
        pytest.fail(f"datagen finished before it could be interrupted; raise GAMES ({GAMES})")
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=120)
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["kill", "term"])
def test_an_interrupted_run_resumes_to_the_same_bytes(cerise_bin: Path, tmp_path: Path, sig: int):
    whole = tmp_path / "whole.self"
    run_to_end(cerise_bin, whole, 1)
    parts = tmp_path / "parts.self"
    stopped = interrupt_after_first_commit(cerise_bin, parts, sig)
    if sig == signal.SIGKILL:
        assert stopped.returncode == -signal.SIGKILL
    else:
        # SIGTERM is a clean stop: the games in order so far are committed, exit 0.
        assert stopped.returncode == 0, stopped.stderr
        assert "stopping" in stopped.stderr
    assert parts.stat().st_size < whole.stat().st_size, "the interrupted file is shorter"
    summary = run_to_end(cerise_bin, parts, 2)
    assert "resumed" in summary, summary
    assert parts.read_bytes() == whole.read_bytes()


def test_info_reads_the_file_and_a_damaged_one_is_refused_by_name(cerise_bin: Path, tmp_path: Path):
    out = tmp_path / "g.self"
    run_to_end(cerise_bin, out, 2)
    info = subprocess.run([str(cerise_bin), "datagen", "info", str(out)], capture_output=True, text=True, timeout=60)
    assert info.returncode == 0, info.stderr
    assert "positions" in info.stdout
    bad = tmp_path / "bad.self"
    bad.write_bytes(b"not a self-play file at all")
    refused = subprocess.run([str(cerise_bin), "datagen", "info", str(bad)], capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0
    assert "bad.self" in refused.stderr
    assert "panicked" not in refused.stderr


def test_wdl_fits_a_model_and_tables_it_on_held_out_games(cerise_bin: Path, tmp_path: Path):
    out = tmp_path / "g.self"
    run_to_end(cerise_bin, out, 2)
    fit = subprocess.run([str(cerise_bin), "datagen", "wdl", str(out), "--holdout-every", "4", "--steps", "300",
                          "--no-progress"], capture_output=True, text=True, timeout=120)
    assert fit.returncode == 0, fit.stderr
    assert "pub const MODEL: WdlModel" in fit.stdout and "held-out mean log-loss" in fit.stdout, fit.stdout
    rows = [l for l in fit.stdout.splitlines() if ".." in l and "/" in l]
    assert len(rows) == 18, fit.stdout
    missing = subprocess.run([str(cerise_bin), "datagen", "wdl", str(tmp_path / "none.self")],
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode != 0 and "none.self" in missing.stderr and "panicked" not in missing.stderr


def test_pack_stores_one_whole_record_a_game_and_unpack_restores_every_byte(cerise_bin: Path, tmp_path: Path):
    plain = tmp_path / "g.self"
    run_to_end(cerise_bin, plain, 2)
    info = subprocess.run([str(cerise_bin), "datagen", "info", str(plain)], capture_output=True, text=True, timeout=60)
    games = re.search(r"^positions\s+\d+ in (\d+) games", info.stdout, re.M)
    assert games, info.stdout
    packed = tmp_path / "g.spk"
    done = subprocess.run([str(cerise_bin), "datagen", "pack", str(plain), "--out", str(packed)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    # Every game of a datagen file is one run: its first record whole, then 4 bytes a ply.
    assert f"({games[1]} stored whole)" in done.stdout, done.stdout
    assert packed.stat().st_size * 5 < plain.stat().st_size
    back = tmp_path / "back.self"
    done = subprocess.run([str(cerise_bin), "datagen", "unpack", str(packed), "--out", str(back)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert back.read_bytes() == plain.read_bytes()
    # A packed file where a self-play file is expected says how to unpack it.
    resumed = subprocess.run(command(cerise_bin, packed, 1), capture_output=True, text=True, timeout=60)
    assert resumed.returncode != 0
    assert "cerise datagen unpack" in resumed.stderr, resumed.stderr
    assert "panicked" not in resumed.stderr
