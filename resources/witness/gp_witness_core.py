# Graph Planner's runner witness (docs/sandbox.md, "The runner witness"): what the pytest plugin
# (`gp_witness.py`) and the unittest wrapper (`sitecustomize.py`) share.
#
# The test command runs with this folder first on PYTHONPATH, so `sitecustomize.py` beside this
# file runs in every Python process before the repository can be on sys.path, and pytest loads
# `gp_witness` as a plugin with `-p gp_witness` (through PYTEST_ADDOPTS). The process that runs
# the tests (pytest, `python -m unittest`, Django's runtests.py) claims a one-time key that the
# host wrote to a file (it renames and removes the file, so no later process can read it), takes
# a fingerprint of the runner's own functions, classes and hooks before any code of the
# repository runs, checks them again as the process ends, and writes signed records (HMAC-SHA256
# under that key) to a copy of the stderr it started with. The host removes the records from the
# log, verifies them and calls a run whose runner changed, or whose witness went silent, not
# gradable (server/src/testing/runnerWitness.ts).
#
# The syntax is kept to what Python 3.6 reads; in Python 2 `claim` takes nothing.
import os
import sys

_TAG = "GPWITNESS1"
_ROOTS = ("pytest", "_pytest", "pluggy", "unittest")
_KEPT_NAMES = 20
_NAME_CHARS = 120
# Set once this process has claimed the key; nothing in it is for other code to use.
_claimed = []


def _env(name):
    value = os.environ.get(name, "")
    return value if value != "" else None


def _inside(path, root):
    if not path or not root:
        return False
    real = os.path.realpath(path)
    base = os.path.realpath(root)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


def _root_of(name):
    return name.split(".", 1)[0]


def _fingerprint(value):
    """What must stay the same object for a value to be unchanged: the object and its code."""
    if isinstance(value, property):
        return (value, value.fget, value.fset, value.fdel)
    if isinstance(value, (classmethod, staticmethod)):
        func = value.__func__
        return (value, func, getattr(func, "__code__", None))
    code = getattr(value, "__code__", None)
    if code is not None:
        return (value, code, getattr(value, "__defaults__", None), getattr(value, "__kwdefaults__", None))
    return (value,)


def _same(a, b):
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _is_member(value):
    return callable(value) or isinstance(value, (property, classmethod, staticmethod))


def _runner_modules():
    return sorted((name, module) for name, module in list(sys.modules.items()) if module is not None and _root_of(name) in _ROOTS)


def _class_name(cls):
    return "%s.%s" % (cls.__module__, getattr(cls, "__qualname__", cls.__name__))


def _snapshot_modules():
    """Every function and class the runner's modules hold, and every member of those classes.

    A module attribute is kept per module (rebinding `_pytest.runner.x` matters even when another
    module holds the same object); a class's members are kept once, under the class's own name.
    """
    modules = {}
    classes = {}
    for name, module in _runner_modules():
        entries = {}
        for attr, value in list(vars(module).items()):
            owner = getattr(value, "__module__", None)
            if not isinstance(owner, str) or _root_of(owner) not in _ROOTS:
                continue
            if isinstance(value, type):
                if id(value) not in classes:
                    members = dict((k, _fingerprint(v)) for k, v in list(vars(value).items()) if _is_member(v))
                    classes[id(value)] = (value, members)
                entries[attr] = _fingerprint(value)
            elif callable(value):
                entries[attr] = _fingerprint(value)
        modules[name] = (module, entries)
    return (modules, list(classes.values()))


def _module_changes(snapshot):
    modules, classes = snapshot
    changed = []
    for name, (module, entries) in sorted(modules.items()):
        if sys.modules.get(name) is not module:
            changed.append("module %s replaced" % name)
            continue
        now = vars(module)
        for attr, fp in sorted(entries.items()):
            value = now.get(attr)
            if value is None or not _same(fp, _fingerprint(value)):
                changed.append("%s.%s" % (name, attr))
    for cls, members in sorted(classes, key=lambda c: _class_name(c[0])):
        current = vars(cls)
        for member, mfp in sorted(members.items()):
            if member not in current or not _same(mfp, _fingerprint(current[member])):
                changed.append("%s.%s" % (_class_name(cls), member))
        for member in sorted(set(current) - set(members)):
            if _is_member(current[member]):
                changed.append("%s.%s added" % (_class_name(cls), member))
    return changed


def _hookimpls(caller):
    if hasattr(caller, "get_hookimpls"):
        return list(caller.get_hookimpls())
    return list(getattr(caller, "_nonwrappers", [])) + list(getattr(caller, "_wrappers", []))


def _snapshot_hooks(pm):
    hooks = {}
    for name, caller in list(vars(pm.hook).items()):
        if name.startswith("_"):
            continue
        impls = [(impl.plugin_name, impl.function) for impl in _hookimpls(caller)]
        hooks[name] = (caller, getattr(caller, "_hookexec", None), impls)
    plugins = [(name, plugin) for name, plugin in pm.list_name_plugin() if name is not None and plugin is not None]
    own = dict((k, v) for k, v in list(vars(pm).items()) if callable(v))
    return (pm, pm.hook, hooks, plugins, own)


def _hook_changes(snapshot):
    pm, relay, hooks, plugins, own = snapshot
    changed = []
    if pm.hook is not relay:
        changed.append("the plugin manager's hook relay replaced")
    for name, value in sorted(own.items()):
        if vars(pm).get(name) is not value:
            changed.append("plugin manager %s" % name)
    for name, plugin in plugins:
        if pm.get_plugin(name) is not plugin:
            changed.append("plugin %s unregistered or replaced" % name)
    for name, (caller, hookexec, impls) in sorted(hooks.items()):
        now = getattr(pm.hook, name, None)
        if now is not caller:
            changed.append("hook %s replaced" % name)
            continue
        if getattr(now, "_hookexec", None) is not hookexec:
            changed.append("hook %s caller replaced" % name)
        current = [(impl.plugin_name, impl.function) for impl in _hookimpls(now)]
        for plugin_name, function in impls:
            if not any(p == plugin_name and f is function for p, f in current):
                changed.append("hook %s of plugin %s" % (name, plugin_name))
    return changed


class _Witness(object):
    def __init__(self, key, run, repo, runner, pid):
        # Everything the reports need is taken now, before any code of the repository runs, so a
        # later rewrite of these modules cannot change what the witness writes or how it signs.
        import base64
        import hashlib
        import hmac
        import json

        self._sign = lambda data, _k=key, _n=hmac.new, _h=hashlib.sha256: _n(_k, data, _h).hexdigest()
        self._encode = base64.b64encode
        self._dumps = json.dumps
        self._write = os.write
        self._fd = os.dup(2)
        self.run = run
        self.repo = repo
        self.runner = runner
        self.pid = pid
        self.modules = None
        self.hooks = None
        self.plugin = False
        self.blocked = []
        self.inside = []
        self.ended = False

    def emit(self, event, fields):
        record = {"run": self.run, "event": event, "pid": self.pid, "runner": self.runner}
        record.update(fields)
        data = self._encode(self._dumps(record, sort_keys=True).encode("utf-8"))
        line = b"\n" + _TAG.encode("ascii") + b" " + data + b" " + self._sign(data).encode("ascii") + b"\n"
        try:
            while line:
                line = line[self._write(self._fd, line):]
        except OSError:
            pass

    def arm(self, pm=None):
        """Takes the fingerprints; called once the runner is loaded and before the repository's code."""
        if self.modules is not None:
            return
        self.inside = self._shadowed()
        self.modules = _snapshot_modules()
        if pm is not None:
            self.hooks = _snapshot_hooks(pm)
        versions = {"python": "%d.%d.%d" % tuple(sys.version_info[:3])}
        pytest = sys.modules.get("pytest")
        if pytest is not None:
            versions["pytest"] = str(getattr(pytest, "__version__", "?"))
        self.emit("armed", {
            "versions": versions,
            "modules": len(self.modules[0]),
            "hooks": 0 if self.hooks is None else len(self.hooks[2]),
            "blocked": self.blocked,
            "inside": self.inside,
        })

    def _shadowed(self):
        found = ["%s imported at interpreter start-up, before the witness (a .pth file in site-packages?)" % name for name in early_imports]
        if _env("GP_WITNESS_RUNNER_REPO") is not None:
            return found
        for name in ("pytest", "_pytest", "pluggy", "unittest"):
            module = sys.modules.get(name)
            path = getattr(module, "__file__", None)
            if module is not None and _inside(path, self.repo):
                found.append("%s from %s" % (name, os.path.relpath(os.path.realpath(path), os.path.realpath(self.repo))))
        return found

    def finish(self, how):
        if self.ended or os.getpid() != self.pid:
            return
        self.ended = True
        changed = []
        if self.modules is not None:
            changed.extend(_module_changes(self.modules))
        if self.hooks is not None:
            changed.extend(_hook_changes(self.hooks))
        self.emit("end", {
            "how": how,
            "armed": self.modules is not None,
            "plugin": self.plugin,
            "changedCount": len(changed),
            "changed": [c[:_NAME_CHARS] for c in changed[:_KEPT_NAMES]],
        })


# Runner modules that were already loaded when sitecustomize.py started (sitecustomize.py sets it).
early_imports = []


def claim(runner):
    """The witness of this process, when it is the first to take the host's key; None otherwise."""
    if sys.version_info[0] < 3:
        return None
    if _claimed:
        return _claimed[0]
    path = _env("GP_WITNESS_KEY_FILE")
    run = _env("GP_WITNESS_RUN")
    if path is None or run is None:
        return None
    pid = os.getpid()
    # A rename is atomic: of two processes that start at once, one gets the key and the other
    # finds no file. The key is removed before anything of the repository is imported.
    mine = "%s.%d" % (path, pid)
    try:
        os.rename(path, mine)
    except OSError:
        return None
    try:
        with open(mine, "rb") as handle:
            key = handle.read().strip()
    finally:
        try:
            os.unlink(mine)
        except OSError:
            pass
    if not key:
        return None
    witness = _Witness(key, run, _env("GP_WITNESS_REPO") or os.getcwd(), runner, pid)
    _claimed.append(witness)
    import atexit

    atexit.register(witness.finish, "exit")
    witness.emit("start", {})
    return witness


def block_repository_plugins(witness, manager):
    """Blocks each pytest11 entry point whose distribution lives inside the repository."""
    repo = witness.repo
    try:
        from importlib import metadata

        found = [(getattr(d, "_path", None), [ep.name for ep in d.entry_points if ep.group == "pytest11"]) for d in metadata.distributions()]
    except Exception:
        try:
            import pkg_resources

            found = [(d.egg_info or d.location, list(d.get_entry_map("pytest11"))) for d in pkg_resources.working_set]
        except Exception:
            found = []
    for location, names in found:
        if location is None or not _inside(str(location), repo):
            continue
        for name in names:
            # A name already registered is a plugin pytest loaded itself; the entry point is then
            # skipped by pytest anyway, and blocking the name would unregister pytest's own.
            if manager.get_plugin(name) is None and not manager.is_blocked(name):
                manager.set_blocked(name)
                witness.blocked.append(name)
