"""The on-policy smoke's pieces on the tiny random model: the model policy's log-probabilities are
the model's own, and each check of on_policy.py fails when what it checks does not hold."""

from __future__ import annotations

import asyncio
import json

import numpy as np
import torch

from graph_planner_verl.smoke.actor import ResponseView
from graph_planner_verl.smoke.model_policy import Generation, ModelPolicyClient
from graph_planner_verl.smoke.on_policy import LOG_PROB_TOLERANCE, check_moved, check_replies, check_same_weights, mask_runs


class Batch:
    """The two parts of a Verl ``DataProto`` the checks read."""

    def __init__(self, tensors: dict, non_tensors: dict):
        self.batch = tensors
        self.non_tensor_batch = non_tensors

    def __len__(self) -> int:
        return len(next(iter(self.batch.values())))


def tiny_model(tokenizer):
    from transformers import AutoModelForCausalLM

    return AutoModelForCausalLM.from_pretrained(tokenizer.name_or_path, dtype=torch.float32)


def test_the_model_policy_returns_the_sampled_tokens_with_their_log_probs_under_its_current_weights(tiny_tokenizer):
    torch.manual_seed(0)
    model = tiny_model(tiny_tokenizer)
    policy = ModelPolicyClient(model, tiny_tokenizer, max_new_tokens=12)
    prompt = tiny_tokenizer.apply_chat_template(
        [{"role": "user", "content": "explore the graph"}], add_generation_prompt=True, tokenize=True, return_dict=True
    )["input_ids"]
    out = asyncio.run(policy.generate("episode-1", prompt_ids=prompt, sampling_params={"temperature": 0.7, "top_p": 0.95}))
    assert 0 < len(out.token_ids) <= 12 and len(out.log_probs) == len(out.token_ids)
    assert policy.totals.replies["episode-1"][0].token_ids == out.token_ids
    assert policy.replies["episode-1"] == [tiny_tokenizer.decode(out.token_ids, skip_special_tokens=True)]

    def recomputed():
        ids = torch.tensor([prompt + out.token_ids])
        with torch.no_grad():
            logits = model(input_ids=ids).logits[0, len(prompt) - 1 : -1] / 0.7
        return torch.log_softmax(logits, dim=-1).gather(-1, torch.tensor(out.token_ids).unsqueeze(-1)).squeeze(-1)

    assert (recomputed() - torch.tensor(out.log_probs)).abs().max() < 1e-4
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    assert (recomputed() - torch.tensor(out.log_probs)).abs().max() > 10 * LOG_PROB_TOLERANCE, "other weights give other log-probs"


def test_mask_runs_are_the_replies_between_the_environment_tokens():
    assert mask_runs(torch.tensor([1, 1, 0, 0, 1, 0, 1, 1])) == [(0, 2), (4, 5), (6, 8)]
    assert mask_runs(torch.tensor([0, 0])) == []


def replies_batch(tokens_a: list[int], tokens_b: list[int]) -> Batch:
    responses = torch.tensor([tokens_a + [7, 7] + tokens_b + [0, 0]])
    mask = torch.tensor([[1] * len(tokens_a) + [0, 0] + [1] * len(tokens_b) + [0, 0]])
    return Batch({"responses": responses, "response_mask": mask}, {"episode_id": np.array(["ep"], dtype=object)})


def write_trajectory(run_dir, responses: list[str]) -> None:
    folder = run_dir / "trajectories"
    folder.mkdir(exist_ok=True)
    lines = [{"type": "start"}] + [{"type": "step", "step": i + 1, "response": r} for i, r in enumerate(responses)] + [{"type": "end"}]
    (folder / "ep.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_check_replies_holds_for_the_sampled_tokens_and_fails_for_other_tokens_or_other_replies(tiny_tokenizer, tmp_path):
    a = tiny_tokenizer.encode("def add", add_special_tokens=False)
    b = tiny_tokenizer.encode("return self", add_special_tokens=False)
    generations = {"ep": [Generation(prompt_ids=[], token_ids=t, log_probs=[0.0] * len(t), weights_version=0, seconds=0.0) for t in (a, b)]}
    write_trajectory(tmp_path, ["def add", "return self"])
    assert check_replies(replies_batch(a, b), generations, tiny_tokenizer, str(tmp_path)) == []
    other = check_replies(replies_batch(a, b[:-1]), generations, tiny_tokenizer, str(tmp_path))
    assert [f["check"] for f in other] == ["mask-1 tokens are the tokens the model sampled"]
    write_trajectory(tmp_path, ["def add", "return other"])
    changed = check_replies(replies_batch(a, b), generations, tiny_tokenizer, str(tmp_path))
    assert [f["check"] for f in changed] == ["mask-1 tokens decode to the replies the trajectory holds"]


def test_check_same_weights_fails_beyond_the_tolerance_and_check_moved_fails_for_unmoved_weights():
    recorded = torch.tensor([[-0.5, -1.0, 0.0]])
    mask = torch.tensor([[1.0, 1.0, 0.0]])
    view = ResponseView(
        input_ids=torch.zeros(1, 3), attention_mask=torch.ones(1, 3), position_ids=torch.zeros(1, 3), responses=torch.zeros(1, 3), response_mask=mask, length=3
    )
    batch = Batch({"rollout_log_probs": recorded}, {})
    gap, failures = check_same_weights(batch, view, recorded + torch.tensor([[1e-5, -1e-5, 5.0]]))
    assert failures == [] and gap["tokens"] == 2 and gap["max_abs"] < 1e-4, "mask-0 positions are not compared"
    _, failures = check_same_weights(batch, view, recorded + torch.tensor([[0.0, 0.01, 0.0]]))
    assert [f["check"] for f in failures] == ["recorded log-probs equal the model's under the sampling weights"]
    assert check_moved(0.0, 0.1) != [] and check_moved(0.3, 0.0) != [] and check_moved(0.3, 0.1) == []


def test_check_same_weights_fails_with_a_reason_when_no_episode_recorded_a_reply():
    # Every episode of a step can fail before its first reply (a sandbox that would not start);
    # Verl's batch then has no rollout_log_probs, and the check must fail, naming that, not crash.
    mask = torch.tensor([[0.0, 0.0, 0.0]])
    view = ResponseView(
        input_ids=torch.zeros(1, 3), attention_mask=torch.ones(1, 3), position_ids=torch.zeros(1, 3), responses=torch.zeros(1, 3), response_mask=mask, length=3
    )
    batch = Batch({"responses": torch.zeros(1, 3)}, {})
    gap, failures = check_same_weights(batch, view, torch.zeros(1, 3))
    assert gap["tokens"] == 0 and "no rollout_log_probs" in gap["missing"]
    assert [f["check"] for f in failures] == ["recorded log-probs equal the model's under the sampling weights"]
