#!/usr/bin/env python3
"""Writes resources/swebench/spec-dates.json: the day each SWE-bench specification was written.

Run it from the repository root with any Python 3.9+ (it reads PyPI's JSON API, nothing else):

    python3 scripts/date-swebench-specs.py

Why: an environment built from a specification resolves every package the specification leaves
unpinned as of a date (docs/upstream-contracts.md#environments-as-of-a-date). The harness built its
environments when each specification's exact pins were the current releases: SWE-bench's authors
pinned what their environments held on the day they wrote the entry. So a specification's date is
the day after the newest upload among its exact pins (`name==1.2.3`; a wildcard `==1.2.*` or a
bare name says nothing about the day), and a specification with no exact pin gets FLOOR, the day
after the newest pin of the oldest entries (the tables' first validation run, August 2023).

The file is committed; `server/src/datasets/specDates.ts` reads it. Nothing at run or test time
reaches PyPI for it.
"""

import datetime
import json
import os
import re
import sys
import urllib.request

SPECS = os.path.join("resources", "swebench", "specs.json")
OUT = os.path.join("resources", "swebench", "spec-dates.json")
FLOOR = "2023-09-06"
EXACT = re.compile(r"^([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?==([A-Za-z0-9_.+!\-]+)$")


def words(text):
    return [w.strip("'\"") for w in text.split()]


def pins(spec):
    out = []
    packages = spec.get("packages", "")
    if packages not in ("requirements.txt", "environment.yml"):
        out += words(packages)
    out += spec.get("pip_packages", [])
    found = {}
    for word in out:
        m = EXACT.match(word.strip())
        if m and "*" not in m.group(2):
            found[m.group(1).lower()] = m.group(2)
    return found


cache = {}


def files_of(name):
    """The project's files from PyPI's simple JSON API (PEP 691, with PEP 700's upload times)."""
    if name not in cache:
        request = urllib.request.Request(f"https://pypi.org/simple/{name}/", headers={"Accept": "application/vnd.pypi.simple.v1+json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as reply:
                cache[name] = json.load(reply)["files"]
        except Exception as error:  # a name PyPI does not know (a conda-only package) dates nothing
            print(f"{name}: {error}", file=sys.stderr)
            cache[name] = []
    return cache[name]


def uploaded(name, version):
    """The day the first file of NAME==VERSION was uploaded, or None."""
    stem = re.sub(r"[-_.]+", "[-_.]", re.escape(re.sub(r"[-_.]+", "-", name.lower())).replace("\\-", "-"))
    pattern = re.compile(rf"^{stem}-{re.escape(version)}(?:-|\.tar|\.zip)", re.IGNORECASE)
    times = sorted(f["upload-time"] for f in files_of(re.sub(r"[-_.]+", "-", name.lower())) if pattern.match(f["filename"]) and f.get("upload-time"))
    return times[0][:10] if times else None


def main():
    table = json.load(open(SPECS))
    dates = {}
    for repo, versions in sorted(table["repos"].items()):
        for version, spec in versions.items():
            newest = None
            for name, pinned in sorted(pins(spec).items()):
                day = uploaded(name, pinned)
                if day is not None and (newest is None or day > newest[0]):
                    newest = (day, f"{name}=={pinned}")
            if newest is None:
                dates[f"{repo}@{version}"] = {"date": FLOOR, "why": "no exact pin: the tables' first validation run"}
            else:
                after = (datetime.date.fromisoformat(newest[0]) + datetime.timedelta(days=1)).isoformat()
                day = max(after, FLOOR)
                dates[f"{repo}@{version}"] = {
                    "date": day,
                    "why": f"newest exact pin {newest[1]} uploaded {newest[0]}" + ("" if day == after else f"; raised to the floor {FLOOR}"),
                }
    out = {
        "schema": "graph-planner/swebench-spec-dates@1",
        "generated_by": "scripts/date-swebench-specs.py",
        "specs_sha256_source": table["swebench"]["sha256"],
        "floor": FLOOR,
        "dates": dates,
    }
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
