#!/usr/bin/env python3
"""Writes resources/swebench/specs.json: SWE-bench's own environment tables for its Python repositories.

Run it from the repository root with any Python 3.9+:

    python3 scripts/generate-swebench-specs.py

It makes a throwaway venv, installs the pinned `swebench` wheel from the package index there with
`--require-hashes --no-deps` (its dependencies — docker, datasets, modal — are not needed to read
constants), imports the harness's constants modules without running the package's `__init__`
(which imports all of them), and writes the tables as JSON. Nothing else in the project imports
`swebench`: the JSON is committed and `server/src/datasets/swebenchTable.ts` reads it.

Which release: the current release on PyPI is 5.0.2, whose grading rules the project follows
(docs/upstream-contracts.md#swe-bench-grading), but 5.x no longer ships these tables: instances
carry a Dockerfile each in a task repository (`swebench/task/repo.py`), and
`swebench.harness.constants` keeps only log markers. 4.1.0 is the last release with
`MAP_REPO_VERSION_TO_SPECS`; the environments of SWE-bench, Lite and Verified were built from it,
so its tables are the ones recorded here (docs/upstream-contracts.md#swe-bench-specification-tables).
"""

import ast
import importlib
import json
import os
import subprocess
import sys
import tempfile
import types

VERSION = "4.1.0"
SHA256 = "1243776f720047cc9e20a427f7a52b75c13a07abda6154fb60fe77f82ec8af57"
LICENSE = "MIT"
CURRENT_RELEASE = "5.0.2"
WHY_NOT_CURRENT = (
    "swebench 5.x ships no environment tables (MAP_REPO_VERSION_TO_SPECS and the requirement and "
    "environment.yml path maps were removed; each instance carries its own Dockerfile in a task "
    "repository); 4.1.0 is the last release with them."
)
OUT = os.path.join("resources", "swebench", "specs.json")

# Passed through as the harness wrote them; `swebenchTable.ts` decides what each means locally.
SPEC_KEYS = (
    "python",
    "packages",
    "pip_packages",
    "pre_install",
    "install",
    "no_use_env",
    "test_cmd",
    "eval_commands",
    "env_vars_test",
    "nano_cpus",
    "execute_test_as_nonroot",
)


def install(venv_dir: str) -> str:
    subprocess.run([sys.executable, "-m", "venv", venv_dir], check=True)
    python = os.path.join(venv_dir, "bin", "python")
    requirements = os.path.join(venv_dir, "requirements.txt")
    with open(requirements, "w", encoding="utf-8") as f:
        f.write(f"swebench=={VERSION} --hash=sha256:{SHA256}\n")
    subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps", "--only-binary=:all:", "--require-hashes", "-r", requirements],
        check=True,
    )
    return subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], check=True, capture_output=True, text=True
    ).stdout.strip()


def load_constants(site_packages: str) -> types.ModuleType:
    """`swebench.harness.constants` alone: its parents are empty stand-ins, so their imports never run."""
    for name in ("swebench", "swebench.harness"):
        package = types.ModuleType(name)
        package.__path__ = [os.path.join(site_packages, *name.split("."))]
        sys.modules[name] = package
    sys.path.insert(0, site_packages)
    return importlib.import_module("swebench.harness.constants")


def spec_json(spec: dict) -> dict:
    unknown = sorted(set(spec) - set(SPEC_KEYS))
    if unknown:
        raise SystemExit(f"swebench {VERSION} has spec keys this script does not know: {unknown}; add them to SPEC_KEYS and to swebenchTable.ts")
    return {key: spec[key] for key in SPEC_KEYS if key in spec}


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="gp-swebench-specs-") as tmp:
        site_packages = install(os.path.join(tmp, "venv"))
        constants = load_constants(site_packages)
        python_tables = importlib.import_module("swebench.harness.constants.python")
        repos = python_tables.MAP_REPO_VERSION_TO_SPECS_PY
        table = {
            "schema": "graph-planner/swebench-specs@1",
            "generated_by": "scripts/generate-swebench-specs.py",
            "swebench": {
                "version": VERSION,
                "sha256": SHA256,
                "file": f"swebench-{VERSION}-py3-none-any.whl",
                "license": LICENSE,
                "current_release": CURRENT_RELEASE,
                "why_not_current": WHY_NOT_CURRENT,
            },
            # The harness's names, kept so a reader can find each table in its source.
            "sources": {
                "specs": "swebench/harness/constants/python.py MAP_REPO_VERSION_TO_SPECS_PY",
                "install": "swebench/harness/constants/python.py MAP_REPO_TO_INSTALL_PY",
                "requirements_paths": "swebench/harness/constants/python.py MAP_REPO_TO_REQS_PATHS",
                "environment_yml_paths": "swebench/harness/constants/python.py MAP_REPO_TO_ENV_YML_PATHS",
                "replace_packages": "swebench/harness/test_spec/python.py REPLACE_REQ_PACKAGES",
            },
            "repos": {
                repo: {version: spec_json(spec) for version, spec in sorted(versions.items(), key=lambda kv: version_key(kv[0]))}
                for repo, versions in sorted(repos.items())
            },
            "install": dict(sorted(python_tables.MAP_REPO_TO_INSTALL_PY.items())),
            "requirements_paths": dict(sorted(constants.MAP_REPO_TO_REQS_PATHS.items())),
            "environment_yml_paths": dict(sorted(constants.MAP_REPO_TO_ENV_YML_PATHS.items())),
            "replace_packages": replace_packages(site_packages),
        }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(table, f, indent=1, sort_keys=False)
        f.write("\n")
    count = sum(len(v) for v in table["repos"].values())
    print(f"Wrote {OUT}: {len(table['repos'])} repositories, {count} repository versions, from swebench {VERSION}.")


def replace_packages(site_packages: str) -> list:
    """`REPLACE_REQ_PACKAGES` of test_spec/python.py, read from its source: importing that module needs `requests`."""
    path = os.path.join(site_packages, "swebench", "harness", "test_spec", "python.py")
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "REPLACE_REQ_PACKAGES" for t in node.targets):
            return [list(pair) for pair in ast.literal_eval(node.value)]
    raise SystemExit(f"REPLACE_REQ_PACKAGES is not in {path}")


def version_key(version: str) -> list:
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in version.replace("-", ".").split(".")]


if __name__ == "__main__":
    main()
