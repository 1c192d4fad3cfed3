"""Reads files with the formats' own code and says, one JSON line per file, whether it accepted them.

``python format_conformance.py atif FILE...`` validates each file with the ``atif`` package's
Pydantic models (ATIF v1.8, the format's models and validator on PyPI, pinned in
python/requirements.txt). The tests (test/support/formatConformance.ts) run it with the trainer
environment's Python on our exports, so what we write is checked by the format's code, not by our
own transcription of its rules. Each line: ``{"file", "ok", "error"?, "steps"?}``.
"""

from __future__ import annotations

import json
import sys


def check_atif(path: str) -> dict[str, object]:
    from atif import Trajectory
    from pydantic import ValidationError

    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        trajectory = Trajectory.model_validate(data)
    except (ValidationError, ValueError, OSError) as error:
        return {"file": path, "ok": False, "error": str(error)}
    return {"file": path, "ok": True, "steps": len(trajectory.steps)}


CHECKS = {"atif": check_atif}


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] not in CHECKS:
        print(f"usage: format_conformance.py {{{'|'.join(CHECKS)}}} FILE...", file=sys.stderr)
        return 2
    check = CHECKS[argv[1]]
    for path in argv[2:]:
        print(json.dumps(check(path)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
