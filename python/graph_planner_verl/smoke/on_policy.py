"""What the on-policy smoke must prove, step by step (docs/trainer-bridge.md#smoke): the replies the
environment received are the tokens the model sampled, their recorded log-probabilities are the
model's own under the weights that sampled them, every update moves the weights, and a later
step's replies come from the updated weights, not the initial ones. Each check returns its
measured figures and, when it does not hold, a failure entry for ``smoke/checks.json``.
"""

from __future__ import annotations

import json
import os
from typing import Any

import torch

from .actor import ResponseView, response_log_probs

# Float32 on CPU: the log-probabilities of a generation (one token at a time, with a key-value
# cache) and of a whole-sequence forward pass of the same weights differ by rounding only, far
# below this; one optimiser step at the smoke's learning rate moves them by far more.
LOG_PROB_TOLERANCE = 2e-3


def mask_runs(mask: torch.Tensor) -> list[tuple[int, int]]:
    """The [start, end) spans of consecutive 1s: one per reply in Verl's response mask."""
    runs, start = [], None
    for i, value in enumerate(mask.tolist()):
        if value and start is None:
            start = i
        elif not value and start is not None:
            runs.append((start, i))
            start = None
    if start is not None:
        runs.append((start, len(mask)))
    return runs


def trajectory_responses(run_dir: str, episode_id: str) -> list[str]:
    """The replies the environment service recorded for the episode, step by step."""
    path = os.path.join(run_dir, "trajectories", f"{episode_id}.jsonl")
    with open(path, encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    return [record.get("response") or "" for record in records if record.get("type") == "step"]


def check_replies(batch, generations: dict[str, list[Any]], tokenizer, run_dir: str) -> list[dict[str, Any]]:
    """Each mask-1 run is one sampled reply's tokens, and decodes to the reply the trajectory holds."""
    failures = []
    for i in range(len(batch)):
        episode = batch.non_tensor_batch["episode_id"][i] if "episode_id" in batch.non_tensor_batch else None
        if episode is None:
            continue
        mask = batch.batch["response_mask"][i]
        runs = mask_runs(mask)
        sampled = [g.token_ids for g in generations.get(episode, [])]
        tokens = [batch.batch["responses"][i][a:b].tolist() for a, b in runs]
        if tokens != sampled:
            failures.append(
                {
                    "sample": i,
                    "check": "mask-1 tokens are the tokens the model sampled",
                    "detail": {"runs": [len(t) for t in tokens], "sampled": [len(t) for t in sampled]},
                }
            )
            continue
        recorded = trajectory_responses(run_dir, episode)
        decoded = [tokenizer.decode(t, skip_special_tokens=True) for t in tokens]
        # The last reply is not sent when it spends the response budget (agent_loop.py), so the
        # trajectory may hold one reply fewer than the model sampled, never a different one.
        if decoded[: len(recorded)] != recorded or len(decoded) - len(recorded) not in (0, 1):
            failures.append(
                {
                    "sample": i,
                    "check": "mask-1 tokens decode to the replies the trajectory holds",
                    "detail": {"decoded": [d[:200] for d in decoded], "recorded": [r[:200] for r in recorded]},
                }
            )
    return failures


def log_prob_gap(batch, view: ResponseView, log_probs: torch.Tensor) -> dict[str, Any]:
    """How far ``log_probs`` are from the log-probabilities recorded at sampling, over the model's tokens."""
    if "rollout_log_probs" not in batch.batch.keys():
        # No sample of the step recorded log-probabilities: every episode failed before its first
        # reply (the episodes' own errors are in the run's events). The check then fails with this
        # count of zero tokens rather than the smoke crashing on the missing key.
        return {"tokens": 0, "max_abs": 0.0, "mean_abs": 0.0, "missing": "the batch has no rollout_log_probs: no episode of the step recorded a sampled reply"}
    recorded = batch.batch["rollout_log_probs"][:, : view.length]
    mask = view.response_mask.bool()
    gap = (recorded - log_probs).abs()[mask]
    return {"tokens": int(mask.sum()), "max_abs": float(gap.max()) if gap.numel() else 0.0, "mean_abs": float(gap.mean()) if gap.numel() else 0.0}


def check_same_weights(batch, view: ResponseView, old_log_probs: torch.Tensor) -> tuple[dict[str, float], list[dict[str, Any]]]:
    """The recorded log-probabilities are the model's, under the weights that sampled the replies."""
    gap = log_prob_gap(batch, view, old_log_probs)
    if gap["tokens"] == 0 or gap["max_abs"] > LOG_PROB_TOLERANCE:
        return gap, [{"check": "recorded log-probs equal the model's under the sampling weights", "detail": {**gap, "tolerance": LOG_PROB_TOLERANCE}}]
    return gap, []


def check_not_initial(batch, view: ResponseView, initial_model, temperature: float) -> tuple[dict[str, float], list[dict[str, Any]]]:
    """After an update, the replies' recorded log-probabilities are not those of the initial weights."""
    gap = log_prob_gap(batch, view, response_log_probs(initial_model, view, temperature))
    if gap["max_abs"] <= 5 * LOG_PROB_TOLERANCE:
        return gap, [{"check": "the replies come from the updated weights, not the initial ones", "detail": {**gap, "must_exceed": 5 * LOG_PROB_TOLERANCE}}]
    return gap, []


def check_moved(distance: float, grad_norm: float) -> list[dict[str, Any]]:
    """The update changed the weights, and through the loss's gradient: weight decay alone would
    move them too, with nothing learnt."""
    if not (distance > 0 and grad_norm > 0):
        return [{"check": "the update changed the weights", "detail": {"l2_delta": distance, "grad_norm": grad_norm}}]
    return []


def environment_tokens(batch) -> int:
    """The tokens the environment's side of the conversations adds: prompts and observations."""
    width = batch.batch["responses"].shape[-1]
    attention = batch.batch["attention_mask"]
    return int(attention[:, :-width].sum() + (attention[:, -width:] - batch.batch["response_mask"]).sum())


def environment_seconds(batch) -> float:
    values = batch.non_tensor_batch.get("env_seconds")
    return float(sum(v for v in values if v is not None)) if values is not None else 0.0
