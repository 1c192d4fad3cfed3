# Graph Planner's runner witness, started by Python's `site` in every process of the test command
# (gp_witness_core.py says what the witness does). `site` imports this file before the working
# directory or a script's folder is put on sys.path, so what it imports here comes from the
# environment, never from the repository: in a process started as pytest it imports pytest and
# the witness's plugin, and a `pytest.py` or `_pytest/` in the repository can no longer shadow
# them (on every Python version, where Python's own safe-path mode exists only from 3.11). In a
# process started as a unittest runner (`python -m unittest`, Django's `runtests.py`) it imports
# unittest, claims the key and takes the fingerprints at once. Any other process is left alone.
# Then the next `sitecustomize` on the path, if there is one, runs as it would have.
import os
import sys


def _command_line():
    argv = getattr(sys, "orig_argv", None)
    if argv:
        return list(argv)
    try:
        with open("/proc/self/cmdline", "rb") as handle:
            return [a.decode("utf-8", "replace") for a in handle.read().split(b"\0")[:-1]]
    except OSError:
        return []


def _module_run():
    """The module named by `-m`, or None when the process runs a script or a command."""
    args = _command_line()[1:]
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "-m":
            return args[i + 1] if i + 1 < len(args) else None
        if arg.startswith("-m"):
            return arg[2:]
        if arg in ("-W", "-X"):
            i += 2
            continue
        if arg == "-c" or arg == "--" or not arg.startswith("-"):
            return None
        i += 1
    return None


def _runner():
    module = _module_run()
    if module is not None:
        return {"pytest": "pytest", "py.test": "pytest", "unittest": "unittest"}.get(module)
    script = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if script in ("pytest", "py.test"):
        return "pytest"
    if script == "runtests.py":
        return "unittest"
    return None


def _start():
    if sys.version_info[0] < 3 or not os.environ.get("GP_WITNESS_KEY_FILE"):
        return
    runner = _runner()
    if runner is None:
        return
    if runner == "pytest":
        # Nothing before this file imports the runner, but a .pth file in site-packages runs
        # earlier and could rewrite it before the fingerprints are taken: a runner module already
        # loaded here is named, and the run counts as tampered.
        early = [name for name in ("pytest", "_pytest", "pluggy") if name in sys.modules]
        try:
            import pytest  # noqa: F401
            import gp_witness  # noqa: F401
        except ImportError:
            # pytest is not installed; the command will say so itself.
            return
        import gp_witness_core

        gp_witness_core.early_imports[:] = early
        gp_witness_core.claim("pytest")
        return
    import unittest  # noqa: F401
    import gp_witness_core

    witness = gp_witness_core.claim("unittest")
    if witness is not None:
        witness.plugin = True
        witness.arm()


def _chain():
    """Runs the `sitecustomize` this file hides, as `site` would have."""
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    path = [p for p in sys.path if os.path.abspath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


_start()
if sys.version_info[0] >= 3:
    _chain()
