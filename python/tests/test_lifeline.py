"""The trainer's lifeline (graph_planner_verl/lifeline.py): when gp train's pipe closes, the trainer's
whole process group ends, a trainer that ignores SIGTERM included; otherwise the wrapper is
transparent (exit codes and signals come through). Real processes, real signals."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ADAPTER = str(Path(__file__).resolve().parents[1])


def start(code: str, grace: str = "2", stderr: int | None = None) -> tuple[subprocess.Popen, int]:
    """The wrapper around ``python -c CODE`` in a session of its own, as gp starts it; and the trainer's pid."""
    env = {**os.environ, "PYTHONPATH": ADAPTER, "GP_LIFELINE_GRACE_S": grace}
    wrapper = subprocess.Popen(
        [sys.executable, "-m", "graph_planner_verl.lifeline", "--", "-c", f"import os, sys, time, signal\nprint(os.getpid(), flush=True)\n{code}"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        env=env,
        start_new_session=True,
    )
    assert wrapper.stdout is not None
    pid = int(wrapper.stdout.readline())
    return wrapper, pid


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie has ended; only its parent has not collected it yet.
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split(") ")[-1][:1] != "Z"


def wait_gone(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_a_closed_pipe_ends_the_trainer_and_its_children():
    # The trainer starts a child of its own in the group, as Verl's driver starts Ray's processes.
    wrapper, trainer = start(
        "child = __import__('subprocess').Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\nprint(child.pid, flush=True)\ntime.sleep(120)"
    )
    assert wrapper.stdout is not None and wrapper.stdin is not None
    grandchild = int(wrapper.stdout.readline())
    assert alive(trainer) and alive(grandchild)
    wrapper.stdin.close()  # gp train is gone
    wrapper.wait(timeout=10)
    assert wait_gone(trainer, 5), "the trainer outlived gp train"
    assert wait_gone(grandchild, 5), "the trainer's child outlived gp train"


def test_the_trainer_ends_when_gp_is_gone_with_its_log_pipes_closed_too():
    # gp killed outright closes every pipe at once: the wrapper's message about it cannot be written.
    wrapper, trainer = start("time.sleep(120)", stderr=subprocess.PIPE)
    assert wrapper.stdin is not None and wrapper.stdout is not None and wrapper.stderr is not None
    wrapper.stderr.close()
    wrapper.stdout.close()
    wrapper.stdin.close()
    wrapper.wait(timeout=10)
    assert wait_gone(trainer, 5), "the trainer outlived gp train"


def test_a_trainer_that_ignores_sigterm_is_killed_after_the_grace():
    wrapper, trainer = start("signal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint('ignoring', flush=True)\ntime.sleep(120)", grace="1")
    assert wrapper.stdin is not None and wrapper.stdout is not None
    assert wrapper.stdout.readline().strip() == b"ignoring"
    started = time.monotonic()
    wrapper.stdin.close()
    wrapper.wait(timeout=10)
    assert wait_gone(trainer, 5)
    assert wrapper.returncode == -signal.SIGKILL
    assert time.monotonic() - started >= 1.0, "SIGKILL came only after the grace"


def test_with_gp_alive_the_wrapper_is_transparent():
    wrapper, _ = start("sys.exit(3)")
    assert wrapper.wait(timeout=10) == 3
    # A stop signals the whole group (jobLaunch.ts): the trainer ends by it, and so does the wrapper.
    wrapper, trainer = start("time.sleep(120)")
    os.killpg(wrapper.pid, signal.SIGTERM)
    assert wrapper.wait(timeout=10) == -signal.SIGTERM
    assert wait_gone(trainer, 5)
    wrapper, _ = start("print('done', flush=True)")
    assert wrapper.stdout is not None
    assert wrapper.stdout.readline().strip() == b"done"
    assert wrapper.wait(timeout=10) == 0
