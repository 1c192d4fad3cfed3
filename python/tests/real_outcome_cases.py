"""The shared cases of GRPO over real outcomes (test/fixtures/grpo-real-outcomes/): groups.json's
groups and the advantages real_outcome_grpo.py gives them, which cases.json holds. The TypeScript
group view (server/src/groups/groupAdvantage.ts) is tested against cases.json, and
test_real_outcome_grpo.py checks that cases.json is still what the estimator computes, so the
view shows what the trainer used.

Run as a script to rewrite cases.json after changing groups.json or the estimator:
``python python/tests/real_outcome_cases.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import torch

from graph_planner_verl.real_outcome_grpo import compute_real_outcome_grpo_advantage

FIXTURE = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "grpo-real-outcomes"


def computed(case: dict[str, Any]) -> list[float]:
    """Each row's advantage as the estimator computes it, for one case of groups.json."""
    rows = case["rows"]
    length = 3
    rewards = torch.zeros(len(rows), length)
    mask = torch.zeros(len(rows), length, dtype=torch.int64)
    for row, (reward, has_outcome, _) in enumerate(rows):
        if has_outcome:
            mask[row, :] = 1
            rewards[row, length - 1] = float(reward)
    index = np.array([uid for _, _, uid in rows], dtype=object)
    advantages, _ = compute_real_outcome_grpo_advantage(rewards, mask, index, config={"failed_members": case["rule"], "norm_adv_by_std_in_grpo": case["norm"]})
    return [round(float(advantages[row, 0]), 6) for row in range(len(rows))]


def cases() -> dict[str, Any]:
    groups = json.loads((FIXTURE / "groups.json").read_text())
    return {
        "about": "Written by python/tests/real_outcome_cases.py from groups.json: each case's advantages as real_outcome_grpo.py computes them, rounded to 6 places.",
        "cases": [{**case, "advantages": computed(case)} for case in groups["cases"]],
    }


if __name__ == "__main__":
    (FIXTURE / "cases.json").write_text(json.dumps(cases(), indent=1) + "\n")
