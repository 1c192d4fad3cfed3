"""The smoke's check that trajectories record the tokens behind each reply (smoke/recorded_tokens.py)
holds on a faithful record and fails on each way a record can be wrong."""

from __future__ import annotations

import copy
import json

import numpy as np

from graph_planner_verl.smoke.recorded_tokens import Sampled, check_recorded_tokens
from graph_planner_verl.step_tokens import StepTokens

SAMPLED = [
    Sampled(prompt_ids=[1, 2, 3], token_ids=[7, 8], log_probs=[-0.5, -0.25]),
    Sampled(prompt_ids=[1, 2, 3, 7, 8, 9], token_ids=[10], log_probs=[-1.5]),
]


class Batch:
    def __init__(self, episodes):
        self.non_tensor_batch = {"episode_id": np.array(episodes, dtype=object)}

    def __len__(self):
        return len(self.non_tensor_batch["episode_id"])


def write_trajectory(run_dir, episode, steps):
    (run_dir / "trajectories").mkdir(exist_ok=True)
    lines = [{"type": "start"}, *({"type": "step", "response": "r", **({"tokens": t} if t is not None else {})} for t in steps), {"type": "end"}]
    (run_dir / "trajectories" / f"{episode}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))


def faithful():
    sender = StepTokens()
    return [sender.body(s.prompt_ids, s.token_ids, s.log_probs) for s in SAMPLED]


def check(tmp_path, steps, sampled=SAMPLED):
    write_trajectory(tmp_path, "e1", steps)
    return check_recorded_tokens(Batch(["e1"]), {"e1": sampled}, str(tmp_path))


def test_a_faithful_record_passes_and_one_reply_fewer_is_allowed(tmp_path):
    assert check(tmp_path, faithful()) == []
    assert check(tmp_path, faithful()[:1]) == [], "the last reply is not sent when it spends the budget"


def test_each_way_a_record_can_be_wrong_fails(tmp_path):
    missing = faithful()
    missing[1] = None
    assert "steps_without_tokens" in check(tmp_path, missing)[0]["detail"]
    wrong_completion = faithful()
    wrong_completion[1]["completion_token_ids"] = [11]
    assert "completion_token_ids" in check(tmp_path, wrong_completion)[0]["detail"]
    wrong_prompt = faithful()
    wrong_prompt[1]["prompt_delta"]["kept"] = 4
    assert "prompts_read_back" in check(tmp_path, wrong_prompt)[0]["detail"]
    wrong_logprobs = faithful()
    wrong_logprobs[0]["logprobs"] = [-0.5, -0.2500001]
    assert "logprobs_recorded" in check(tmp_path, wrong_logprobs)[0]["detail"]
    without_logprobs = copy.deepcopy(faithful())
    del without_logprobs[1]["logprobs"]
    assert check(tmp_path, without_logprobs) != []
    assert "recorded_steps" in check(tmp_path, [])[0]["detail"]
