"""``python -m graph_planner_verl.lifeline -- ARGS...``: runs ``python ARGS...`` (the trainer) for as
long as ``gp train`` is alive.

``gp train`` starts the trainer locally in a process group of its own (server/src/cluster/jobLaunch.ts),
so that stopping it reaches Verl's workers and the Ray processes it starts. If ``gp train`` is
killed outright (SIGKILL, the out-of-memory killer, a closed terminal's session) it cannot stop
that group, and the trainer would go on without the environment service it trains through,
holding CPUs and GPUs. So ``gp train`` keeps a pipe to this wrapper's standard input and never
writes to it: when the pipe closes, ``gp train`` is gone, and the wrapper ends the whole group,
SIGTERM first and SIGKILL after a grace period, as ``gp runs stop`` would.

Otherwise the wrapper is transparent: the trainer runs as its child in the same group, signals
sent to the group reach it directly (the wrapper ignores SIGTERM and SIGINT and waits for it), and
the wrapper ends as the trainer did, with its exit code or by the same signal.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

# How long the trainer has to end after SIGTERM before the group is killed (gp's own stop waits 15 s).
GRACE_S = 15.0


def end_group(child: subprocess.Popen, grace_s: float = GRACE_S) -> None:
    """SIGTERM to the process group, then SIGKILL to it if the trainer has not ended within the grace."""
    group = os.getpgrp()
    try:
        os.killpg(group, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        if child.poll() is not None:
            break
        time.sleep(0.1)
    # Verl's workers and Ray's processes may outlive the driver; the group goes, the wrapper with it.
    os.killpg(group, signal.SIGKILL)


def watch_lifeline(child: subprocess.Popen, grace_s: float) -> None:
    """Blocks until standard input closes (gp writes nothing to it), then ends the group if the trainer still runs."""
    # The raw descriptor, not sys.stdin: a daemon thread holding the buffered reader's lock at
    # interpreter shutdown aborts the process.
    try:
        while os.read(0, 65536):
            pass
    except OSError:
        pass
    if child.poll() is None:
        # The log goes to gp, which is gone: the write may fail (a closed pipe), and must not stop the ending.
        try:
            print("graph_planner lifeline: gp train is gone (its pipe closed); ending the trainer and its processes", file=sys.stderr, flush=True)
        except OSError:
            pass
        end_group(child, grace_s)


def main(argv: list[str]) -> int:
    if "--" not in argv:
        print("usage: python -m graph_planner_verl.lifeline -- ARGS...", file=sys.stderr)
        return 2
    args = argv[argv.index("--") + 1 :]
    grace_s = float(os.environ.get("GP_LIFELINE_GRACE_S", GRACE_S))
    child = subprocess.Popen([sys.executable, *args], stdin=subprocess.DEVNULL)
    # The trainer handles SIGTERM and SIGINT sent to the group; the wrapper waits for it to end.
    # (Set after the start, so the trainer does not inherit the ignoring.)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=watch_lifeline, args=(child, grace_s), daemon=True).start()
    code = child.wait()
    if code < 0:
        # Ended by a signal: end the same way, so gp reports "killed by SIGTERM" as it did without the wrapper.
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    return code


if __name__ == "__main__":
    status = main(sys.argv)
    sys.stdout.flush()
    sys.stderr.flush()
    # Straight out: the watching thread is still blocked reading the pipe.
    os._exit(status)
