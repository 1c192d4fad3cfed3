# Graph Planner's runner witness as a pytest plugin (gp_witness_core.py says what it does). pytest
# loads it with `-p gp_witness`; in a process started as pytest, `sitecustomize.py` has already
# imported it from this folder, with pytest itself, before the repository was on sys.path.
"""Graph Planner's runner witness. PYTEST_DONT_REWRITE: it is imported before pytest's assertion
rewriting starts, and pytest warns about such a module unless its docstring says this."""
import pytest

import gp_witness_core as _core

# The plugin manager of the first configuration that loaded this plugin; pytester's inline runs
# in pytest's own test suite make more, and they neither arm nor end the witness.
_seen = []


def _witness():
    if _core._claimed:
        return _core._claimed[0] if _core._claimed[0].runner == "pytest" else None
    return _core.claim("pytest")


def pytest_plugin_registered(plugin, manager):
    # pytest calls this for every plugin registered before this one too; the first call is the
    # moment this module is loaded, before pytest loads the plugins of installed distributions.
    if _seen:
        return
    _seen.append(manager)
    witness = _witness()
    if witness is None:
        return
    witness.plugin = True
    _core.block_repository_plugins(witness, manager)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config):
    # The conftest files, the first code of the repository that pytest runs, load after this.
    if not _seen or early_config.pluginmanager is not _seen[0]:
        return
    witness = _witness()
    if witness is not None:
        witness.arm(early_config.pluginmanager)
        # The end is checked as the last of the configuration's cleanups (they run last added
        # first), once pytest has undone its own patches of its classes (the legacypath plugin
        # adds `Config.inifile` and the like for the session).
        early_config.add_cleanup(lambda: witness.finish("cleanup"))
