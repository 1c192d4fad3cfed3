"""Reads files with the formats' own code and says, one JSON line per file, whether it accepted them.

``python format_conformance.py atif FILE...`` validates each file with the ``atif`` package's
Pydantic models (ATIF v1.8, the format's models and validator on PyPI); ``inspect FILE...`` reads
each log with Inspect AI's own ``read_eval_log`` and reports what it read of every sample. Both
packages are pinned in python/requirements.txt. The tests (test/support/formatConformance.ts) run
this with the trainer environment's Python on our exports, so what we write is checked by the
formats' code, not by our own transcription of their rules. Each line: ``{"file", "ok",
"error"?, "steps"?, "samples"?, "accuracy"?}``.
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


def check_inspect(path: str) -> dict[str, object]:
    from inspect_ai.log import read_eval_log

    try:
        log = read_eval_log(path)
    except Exception as error:  # noqa: BLE001 - any refusal of the reader is the answer asked for
        return {"file": path, "ok": False, "error": f"{type(error).__name__}: {error}"}
    samples = []
    for sample in log.samples or []:
        calls = sum(len(m.tool_calls or []) for m in sample.messages if m.role == "assistant")
        samples.append(
            {
                "id": sample.id,
                "epoch": sample.epoch,
                "scores": {name: score.value for name, score in (sample.scores or {}).items()},
                "messages": len(sample.messages),
                "roles": [m.role for m in sample.messages],
                "tool_calls": calls,
                "metadata": sorted((sample.metadata or {}).keys()),
                "error": sample.error.message if sample.error is not None else None,
            }
        )
    scores = log.results.scores if log.results is not None else []
    accuracy = scores[0].metrics["accuracy"].value if scores and "accuracy" in scores[0].metrics else None
    return {"file": path, "ok": True, "status": log.status, "task": log.eval.task, "samples": samples, "accuracy": accuracy}


CHECKS = {"atif": check_atif, "inspect": check_inspect}


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
