"""``python -m graph_planner_verl.smoke.run --run-dir DIR --steps N -- OVERRIDES…``: the smoke run.

It composes Verl's own ``ppo_trainer`` config with the overrides ``gp train`` computed, builds the
tiny model at ``actor_rollout_ref.model.path`` when it is missing, and for each step runs Verl's
real pieces on CPU: ``RLHFDataset`` and its collate, ``AgentLoopWorker.generate_sequences`` with our
agent loop (registered through the agent-loop YAML file) against the environment service, GRPO
``compute_advantage``, one actor update with Verl's policy loss, ``compute_data_metrics`` and the
``Tracking`` file logger. Only the LLM server is replaced (scripted_policy.py), and the update is a
plain loop around Verl's loss because Verl's FSDP workers need GPUs.

It then checks what the integration test asserts and writes ``smoke/checks.json`` in the run
directory; a failed check exits 3, so a broken installation never looks like a good one.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
import uuid
from typing import Any

import numpy as np
import torch


def compose_config(overrides: list[str]):
    import verl
    from hydra import compose, initialize_config_dir

    config_dir = os.path.join(os.path.dirname(verl.__file__), "trainer", "config")
    with initialize_config_dir(config_dir=config_dir, version_base=None):
        return compose(config_name="ppo_trainer", overrides=overrides)


def first_batch(config, tokenizer, step: int):
    from torch.utils.data import DataLoader
    from verl.utils.dataset.rl_dataset import RLHFDataset, collate_fn

    dataset = RLHFDataset(data_files=config.data.train_files, tokenizer=tokenizer, config=config.data, processor=None)
    size = int(config.data.train_batch_size)
    loader = DataLoader(dataset, batch_size=size, shuffle=False, collate_fn=collate_fn, drop_last=False)
    batches = list(loader)
    return batches[step % len(batches)]


def actor_update(model, optimizer, batch, config) -> dict[str, float]:
    """One policy-gradient step with Verl's loss (``get_policy_loss_fn``) on the batch's responses."""
    from verl.trainer.ppo.core_algos import agg_loss, get_policy_loss_fn
    from verl.utils.torch_functional import logprobs_from_logits

    # Verl pads every sample to prompt_length + response_length; the padding columns no sample uses
    # are cut first (prompts are padded on the left, responses on the right), so the CPU forward
    # pass costs the longest conversation, not the whole budget.
    prompt_width = batch.batch["prompts"].shape[-1]
    mask_all = batch.batch["attention_mask"]
    used = torch.nonzero(mask_all.any(dim=0)).flatten()
    left = int(used.min()) if len(used) else 0
    length = max(1, int(mask_all[:, prompt_width:].sum(dim=-1).max()))
    right = prompt_width + length
    input_ids = batch.batch["input_ids"][:, left:right]
    attention_mask = mask_all[:, left:right]
    position_ids = batch.batch["position_ids"][..., left:right]
    responses = batch.batch["responses"][:, :length]
    response_mask = batch.batch["response_mask"][:, :length].float()
    advantages = batch.batch["advantages"][:, :length]

    def log_probs():
        logits = model(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids).logits
        return logprobs_from_logits(logits[:, -length - 1 : -1, :], responses)

    model.train()
    with torch.no_grad():
        old = log_probs()
    optimizer.zero_grad()
    current = log_probs()
    actor_config = config.actor_rollout_ref.actor
    loss_mode = actor_config.policy_loss.get("loss_mode", "vanilla")
    from verl.utils.config import omega_conf_to_dataclass

    pg_loss, pg_metrics = get_policy_loss_fn(loss_mode)(
        old_log_prob=old,
        log_prob=current,
        advantages=advantages,
        response_mask=response_mask,
        loss_agg_mode=actor_config.loss_agg_mode,
        config=omega_conf_to_dataclass(actor_config),
    )
    pg_loss.backward()
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), float(actor_config.get("grad_clip", 1.0) or 1.0))
    optimizer.step()
    metrics = {"actor/pg_loss": float(pg_loss.detach()), "actor/grad_norm": float(grad_norm), "actor/lr": optimizer.param_groups[0]["lr"]}
    for key, value in (pg_metrics or {}).items():
        metrics[key if key.startswith("actor/") else f"actor/{key}"] = float(value.detach() if torch.is_tensor(value) else value)
    entropy = -(current.exp() * current)
    metrics["actor/entropy"] = float(agg_loss(entropy, response_mask, "token-mean").detach())
    return metrics


EXTRA_KEYS = ("episode_id", "task_id", "group_id", "episode_return", "resolved", "steps", "termination_reason", "env_failure")


def fields_of(batch, i: int) -> dict[str, Any]:
    """Our agent loop's ``extra_fields`` of sample ``i``: Verl turns each key into a column of the batch."""
    return {key: batch.non_tensor_batch[key][i] for key in EXTRA_KEYS if key in batch.non_tensor_batch and batch.non_tensor_batch[key][i] is not None}


def check_step(batch, policy, tokenizer, n: int, groups: int) -> list[dict[str, Any]]:
    """The properties the issue asks the smoke to prove, per sample; each entry says what held."""
    failures = []
    responses = batch.batch["responses"]
    mask = batch.batch["response_mask"]
    scores = batch.batch["rm_scores"]
    advantages = batch.batch["advantages"]
    uids = batch.non_tensor_batch["uid"]
    for i in range(len(batch)):
        fields = fields_of(batch, i)
        if fields.get("env_failure"):
            failures.append({"sample": i, "check": "environment", "detail": fields["env_failure"]})
            continue
        episode = fields.get("episode_id")
        decoded = tokenizer.decode(responses[i][mask[i] == 1].tolist(), skip_special_tokens=True)
        expected = "".join(policy.replies.get(episode, []))
        if decoded != expected:
            failures.append({"sample": i, "check": "mask-1 tokens decode to the replies", "detail": {"decoded": decoded[:500], "expected": expected[:500]}})
        valid = int(batch.batch["attention_mask"][i, -responses.shape[-1] :].sum())
        nonzero = torch.nonzero(scores[i]).flatten().tolist()
        ret = float(fields.get("episode_return", 0.0))
        if abs(float(scores[i, valid - 1]) - ret) > 1e-6 or any(p != valid - 1 for p in nonzero):
            failures.append({"sample": i, "check": "reward on the last valid token equals the return", "detail": {"valid": valid, "nonzero": nonzero, "return": ret}})
        if float(advantages[i][mask[i] == 0].abs().sum()) != 0.0:
            failures.append({"sample": i, "check": "advantages are zero where the mask is 0"})
    sizes = {}
    for uid in uids:
        sizes[uid] = sizes.get(uid, 0) + 1
    if len(sizes) != groups or any(size != n for size in sizes.values()):
        failures.append({"check": "one GRPO group per task of size n", "detail": {"groups": len(sizes), "expected_groups": groups, "sizes": sorted(sizes.values()), "n": n}})
    return failures


def samples_of(batch, tokenizer) -> list[dict[str, Any]]:
    """What each sample was, for the test and for a person reading ``smoke/checks.json``."""
    rows = []
    for i in range(len(batch)):
        fields = fields_of(batch, i)
        mask = batch.batch["response_mask"][i]
        rows.append(
            {
                "uid": str(batch.non_tensor_batch["uid"][i]),
                "episode_id": fields.get("episode_id"),
                "task_id": fields.get("task_id"),
                "return": fields.get("episode_return"),
                "resolved": fields.get("resolved"),
                "model_tokens": int(mask.sum()),
                "env_tokens": int((batch.batch["attention_mask"][i, -mask.shape[-1] :] - mask).sum()),
                "score": float(batch.batch["rm_scores"][i].sum()),
                "advantage": float(batch.batch["advantages"][i][mask == 1].mean()) if int(mask.sum()) else 0.0,
                "decoded_model_tokens": tokenizer.decode(batch.batch["responses"][i][mask == 1].tolist(), skip_special_tokens=True),
            }
        )
    return rows


async def run(args) -> int:
    from transformers import AutoModelForCausalLM
    from verl import DataProto
    from verl.experimental.agent_loop.agent_loop import AgentLoopWorker
    from verl.trainer.ppo.core_algos import AdvantageEstimator
    from verl.trainer.ppo.metric_utils import compute_data_metrics, compute_timing_metrics
    from verl.trainer.ppo.ray_trainer import compute_advantage
    from verl.utils import hf_tokenizer
    from verl.utils.tracking import Tracking

    from ..service_client import EnvServiceClient, ServiceAddress, close_sessions
    from .scripted_policy import ScriptedPolicyClient
    from .tiny_model import build_tiny_model

    config = compose_config(args.overrides)
    model_path = config.actor_rollout_ref.model.path
    build_tiny_model(model_path)
    tokenizer = hf_tokenizer(model_path)
    policy = ScriptedPolicyClient(EnvServiceClient(ServiceAddress.from_file()), tokenizer)
    worker = AgentLoopWorker(config, llm_client=policy)
    model = AutoModelForCausalLM.from_pretrained(model_path, torch_dtype=torch.float32)
    optimizer = torch.optim.AdamW(model.parameters(), lr=float(config.actor_rollout_ref.actor.optim.lr))
    tracker = Tracking(project_name=config.trainer.project_name, experiment_name=config.trainer.experiment_name, default_backend=list(config.trainer.logger))
    n = int(config.actor_rollout_ref.rollout.n)
    report: dict[str, Any] = {"steps": [], "ok": True}
    for step in range(1, args.steps + 1):
        timing: dict[str, float] = {}
        started = time.perf_counter()
        batch = DataProto.from_single_dict(first_batch(config, tokenizer, step - 1))
        groups = len(batch)
        batch.non_tensor_batch["uid"] = np.array([str(uuid.uuid4()) for _ in range(groups)], dtype=object)
        batch.meta_info["global_steps"] = step
        batch = batch.repeat(repeat_times=n, interleave=True)
        began = time.perf_counter()
        output = await worker.generate_sequences(batch)
        timing["gen"] = time.perf_counter() - began
        batch = batch.union(output)
        batch.batch["token_level_scores"] = batch.batch["rm_scores"]
        batch.batch["token_level_rewards"] = batch.batch["rm_scores"]
        began = time.perf_counter()
        batch = compute_advantage(
            batch,
            adv_estimator=AdvantageEstimator(config.algorithm.adv_estimator),
            num_repeat=n,
            norm_adv_by_std_in_grpo=bool(config.algorithm.norm_adv_by_std_in_grpo),
            config=config.algorithm,
        )
        timing["adv"] = time.perf_counter() - began
        began = time.perf_counter()
        actor_metrics = actor_update(model, optimizer, batch, config)
        timing["update_actor"] = time.perf_counter() - began
        timing["step"] = time.perf_counter() - started
        metrics = {**compute_data_metrics(batch, use_critic=False), **compute_timing_metrics(batch, timing), **actor_metrics}
        metrics["training/global_step"] = step
        tracker.log(data={k: float(v) for k, v in metrics.items() if isinstance(v, (int, float, np.floating, np.integer))}, step=step)
        failures = check_step(batch, policy, tokenizer, n, groups)
        report["steps"].append({"step": step, "failures": failures, "samples": samples_of(batch, tokenizer), "metrics_keys": sorted(metrics)})
        report["ok"] = report["ok"] and not failures
    out = os.path.join(args.run_dir, "smoke")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "checks.json.tmp"), "w", encoding="utf-8") as handle:
        json.dump(report, handle, indent=2, default=str)
    os.replace(os.path.join(out, "checks.json.tmp"), os.path.join(out, "checks.json"))
    del tracker
    await close_sessions()
    if not report["ok"]:
        for step in report["steps"]:
            for failure in step["failures"]:
                print(f"smoke check failed at step {step['step']}: {json.dumps(failure, default=str)[:800]}", file=sys.stderr)
        return 3
    print(f"smoke: {args.steps} step(s) passed every check; see {os.path.join(out, 'checks.json')}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m graph_planner_verl.smoke.run")
    parser.add_argument("--run-dir", required=True)
    parser.add_argument("--steps", type=int, default=1)
    parser.add_argument("overrides", nargs="*")
    args = parser.parse_args(argv)
    return asyncio.run(run(args))


if __name__ == "__main__":
    sys.exit(main())
