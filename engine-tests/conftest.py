"""Fixtures for the black-box tests: the release binary, fresh engine processes, data paths.

The binary is `$CERISE_BIN` or `target/release/cerise`. When it is missing the tests are
skipped with a hint, unless `CERISE_REQUIRE_BIN=1` (scripts/test.sh sets it), which makes
that a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from uci_driver import Uci  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data"


def binary_path() -> Path:
    return Path(os.environ.get("CERISE_BIN", REPO / "target" / "release" / "cerise"))


@pytest.fixture(scope="session")
def cerise_bin() -> Path:
    path = binary_path()
    if not (path.is_file() and os.access(path, os.X_OK)):
        msg = f"{path} not found; build it with scripts/setup.sh (or set CERISE_BIN)"
        if os.environ.get("CERISE_REQUIRE_BIN") == "1":
            pytest.fail(msg, pytrace=False)
        pytest.skip(msg)
    return path


@pytest.fixture(scope="session")
def data_dir() -> Path:
    if not DATA.is_dir():
        pytest.fail(f"shared data not found at {DATA}; the repo expects shared/ beside it", pytrace=False)
    return DATA


@pytest.fixture(scope="session")
def sunfish_cmd() -> list[str]:
    beside = Path(sys.executable).parent / "sunfish-uci"
    found = str(beside) if beside.exists() else shutil.which("sunfish-uci")
    if not found:
        pytest.fail("sunfish-uci not found; run scripts/test.sh (it installs sunfish into .venv)", pytrace=False)
    return [found]


@pytest.fixture
def start_engine(cerise_bin: Path, tmp_path: Path):
    """Starts engines on demand and makes sure none outlives its test."""
    started: list[Uci] = []

    def start(*args: str) -> Uci:
        eng = Uci([str(cerise_bin), *args], stderr_path=tmp_path / f"stderr-{len(started)}.txt")
        started.append(eng)
        return eng

    yield start
    for eng in started:
        eng.kill()


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, f"rep_{rep.when}", rep)


@pytest.fixture
def engine(start_engine, request) -> Uci:
    """A UCI engine that has completed the handshake; it must exit cleanly on `quit`."""
    eng = start_engine()
    eng.handshake()
    eng.sync()
    yield eng
    rc = eng.quit()
    call = getattr(request.node, "rep_call", None)
    if call is not None and call.failed:
        return  # the test's own failure already shows the transcript
    assert rc == 0, f"engine exited with status {rc} after quit\n{eng.dump()}"


def run_cli(cerise_bin: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(cerise_bin), *args], capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )


@pytest.fixture(scope="session")
def small_net(cerise_bin: Path, tmp_path_factory) -> Path:
    """An untrained `small` net made by the engine's own `net init`."""
    out = tmp_path_factory.mktemp("nets") / "small.safetensors"
    r = run_cli(cerise_bin, "net", "init", "--preset", "small", "--out", str(out), "--seed", "1")
    assert r.returncode == 0, f"net init failed ({r.returncode}):\n{r.stdout}\n{r.stderr}"
    assert out.is_file() and out.stat().st_size > 0, f"net init wrote nothing at {out}"
    return out


@pytest.fixture(scope="session")
def fresh_cnn(cerise_bin: Path, tmp_path_factory) -> Path:
    """An untrained `mocha` CNN made by the engine's own `net init`."""
    out = tmp_path_factory.mktemp("nets") / "mocha.safetensors"
    r = run_cli(cerise_bin, "net", "init", "--preset", "mocha", "--out", str(out), "--seed", "1")
    assert r.returncode == 0, f"net init failed ({r.returncode}):\n{r.stdout}\n{r.stderr}"
    return out


RBF_LABELS = REPO / "src" / "train" / "rbf" / "fixtures" / "sample-d10.tsv"


def train_tiny_rbf(cerise_bin: Path, out: Path, scenario: int) -> Path:
    """`cerise train-rbf` on the 400 Stockfish-labelled positions of the fixture."""
    r = run_cli(cerise_bin, "train-rbf", "--labels", str(RBF_LABELS), "--out", str(out),
                "--scenario", str(scenario), "--sets", "2,3,4,5", "--split", "60,20,20",
                timeout=300)
    assert r.returncode == 0, f"train-rbf failed ({r.returncode}):\n{r.stdout}\n{r.stderr}"
    assert "test" in r.stdout and "MAE" in r.stdout, r.stdout
    return out


@pytest.fixture(scope="session")
def tiny_rbf(cerise_bin: Path, tmp_path_factory) -> Path:
    """A scenario 3 (features only) RBF net trained in CI on the labelled fixture."""
    return train_tiny_rbf(cerise_bin, tmp_path_factory.mktemp("nets") / "rbf.safetensors", 3)


@pytest.fixture(scope="session")
def tiny_rbf_with_search_inputs(cerise_bin: Path, tmp_path_factory) -> Path:
    """A scenario 1 RBF net: it needs depth 2/4/8 evaluations, so it cannot play."""
    return train_tiny_rbf(cerise_bin, tmp_path_factory.mktemp("nets") / "rbf-s1.safetensors", 1)


@pytest.fixture(scope="session")
def tiny_policy(cerise_bin: Path, tmp_path_factory) -> Path:
    """ConvChess's seven nets trained for 30 steps on the fixture games (`data positions`
    then `train --config configs/convchess.toml`), as a user would make one."""
    work = tmp_path_factory.mktemp("policy")
    games = REPO / "src" / "data" / "fixtures" / "mini.pgn"
    r = run_cli(cerise_bin, "data", "positions", str(games), "--ending", "all",
                "--out", str(work / "pos"), "--split", "80,20,0", "--no-progress")
    assert r.returncode == 0, f"data positions failed:\n{r.stdout}\n{r.stderr}"
    r = run_cli(cerise_bin, "train", "--config", str(REPO / "configs" / "convchess.toml"),
                "--train", str(work / "pos.train.pos"), "--valid", str(work / "pos.valid.pos"),
                "--steps", "30", "--batch", "64", "--eval-every", "10",
                "--out-dir", str(work / "run"))
    assert r.returncode == 0, f"train failed:\n{r.stdout}\n{r.stderr}"
    nets = sorted((work / "run").glob("cerise-convchess-*.safetensors"))
    assert len(nets) == 1, f"expected one policy file in {work / 'run'}: {nets}"
    return nets[0]


@pytest.fixture(scope="session")
def shipped_cnn() -> Path:
    """The best shipped win/loss CNN (nets/README.md names it)."""
    nets = sorted(REPO.glob("nets/cerise-mocha-relu-bn-*.safetensors"))
    assert nets, "no shipped CNN in nets/ (cerise-mocha-relu-bn-*.safetensors)"
    return nets[-1]
