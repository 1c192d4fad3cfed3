"""The smoke's check that each training step's trajectory records the policy's tokens behind its reply
(docs/trainer-bridge.md#tokens): the completion ids are the tokens the policy returned, the whole
prompts read back from the recorded ones (step_tokens.whole_prompts) are the prompts the policy was
given, and the log-probabilities are the ones it returned, exactly, or absent when it returned none.
It compares what the policy client saw (both smoke policies keep it) with what the environment
service wrote, so the whole road, agent loop, HTTP, service and trajectory file, is checked.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Optional

from ..step_tokens import whole_prompts


@dataclass
class Sampled:
    """One reply as the smoke's policy produced it."""

    prompt_ids: list[int]
    token_ids: list[int]
    log_probs: Optional[list[float]]


def recorded_steps(run_dir: str, episode_id: str) -> list[dict[str, Any]]:
    """The trajectory's steps that hold a reply (an end made by a close holds none)."""
    path = os.path.join(run_dir, "trajectories", f"{episode_id}.jsonl")
    with open(path, encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    return [record for record in records if record.get("type") == "step" and record.get("response") is not None]


def check_recorded_tokens(batch, sampled: dict[str, list[Sampled]], run_dir: str) -> list[dict[str, Any]]:
    failures = []
    for i in range(len(batch)):
        fields = batch.non_tensor_batch
        episode = fields["episode_id"][i] if "episode_id" in fields else None
        if episode is None or ("env_failure" in fields and fields["env_failure"][i]):
            continue
        given = sampled.get(episode, [])
        steps = recorded_steps(run_dir, episode)
        tokens = [step.get("tokens") for step in steps]
        # The last reply is not sent when it spends the response budget (agent_loop.py), so the
        # trajectory may hold one reply fewer than the policy gave, never a different one.
        expected = given[: len(steps)]
        problem = None
        if not steps or len(given) - len(steps) not in (0, 1):
            problem = {"recorded_steps": len(steps), "replies": len(given)}
        elif any(t is None for t in tokens):
            problem = {"steps_without_tokens": [n + 1 for n, t in enumerate(tokens) if t is None]}
        elif [t["completion_token_ids"] for t in tokens] != [s.token_ids for s in expected]:
            problem = {"completion_token_ids": [len(t["completion_token_ids"]) for t in tokens], "sampled": [len(s.token_ids) for s in expected]}
        elif whole_prompts(tokens) != [s.prompt_ids for s in expected]:
            problem = {
                "prompts_read_back": [len(p) if p is not None else None for p in whole_prompts(tokens)],
                "prompts_given": [len(s.prompt_ids) for s in expected],
            }
        elif [t.get("logprobs") for t in tokens] != [s.log_probs for s in expected]:
            problem = {"logprobs_recorded": [len(t.get("logprobs") or []) for t in tokens], "logprobs_returned": [len(s.log_probs or []) for s in expected]}
        if problem is not None:
            failures.append({"sample": i, "check": "the trajectory records the tokens behind each reply", "detail": {"episode_id": episode, **problem}})
    return failures
