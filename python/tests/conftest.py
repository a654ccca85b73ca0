"""Shared helpers of the vitesse pytest suite: the CLI to compare with, shared data paths."""
import os
import shutil
import subprocess

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SHARED = os.path.join(REPO, "..", "shared")


def cli_path():
    """The `vitesse` CLI: $VITESSE_CLI, the build tree of $VITESSE_BUILD_DIR, ./build, or PATH."""
    cands = [os.environ.get("VITESSE_CLI")]
    if os.environ.get("VITESSE_BUILD_DIR"):
        cands.append(os.path.join(os.environ["VITESSE_BUILD_DIR"], "vitesse"))
    cands += [os.path.join(REPO, "build", "vitesse"), shutil.which("vitesse")]
    for c in cands:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return os.path.abspath(c)
    return None


@pytest.fixture(scope="session")
def cli():
    """Runs the CLI with the given arguments and returns its stdout (skips without one)."""
    path = cli_path()
    if not path:
        pytest.skip("no vitesse CLI (set VITESSE_CLI or VITESSE_BUILD_DIR)")

    def run(*args):
        return subprocess.run([path, *map(str, args)], check=True, capture_output=True,
                              text=True).stdout
    return run
