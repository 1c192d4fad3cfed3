"""``python -m graph_planner_verl.smoke.run --run-dir DIR --steps N --policy model|scripted -- OVERRIDES…``: the smoke run.

It composes Verl's own ``ppo_trainer`` config with the overrides ``gp train`` computed, puts the
policy's model at ``actor_rollout_ref.model.path`` when it is missing (the real SmolLM2 converted
from its GGUF file, language_model.py, or the tiny random model, tiny_model.py), and for each step
runs Verl's real pieces on CPU: ``RLHFDataset`` and its collate, ``AgentLoopWorker.generate_sequences``
with our agent loop (registered through the agent-loop YAML file) against the environment service,
``compute_advantage`` with GRPO over real outcomes (real_outcome_grpo.py), one actor update with
Verl's loss (actor.py), ``compute_data_metrics`` and the ``Tracking`` file logger. Only Verl's LLM server is replaced: by the model itself sampling
with the weights the update changes (model_policy.py), or by the rule agent's replies
(scripted_policy.py). The update is a plain loop around Verl's loss because Verl's FSDP workers
need GPUs.

It then checks what the integration test asserts (the trajectories recording the tokens behind each
reply, recorded_tokens.py; with the model policy also on_policy.py's checks,
and each step's time split into generation, environment and update) and writes
``smoke/checks.json`` in the run directory; a failed check exits 3, so a broken installation never
looks like a good one.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import os
import sys
import time
import uuid
from typing import Any

import numpy as np
import torch

from .actor import actor_update, parameter_distance, parameter_snapshot, rollout_temperature
from .on_policy import check_not_initial, check_moved, check_replies, check_same_weights, environment_seconds, environment_tokens, mask_runs
from .recorded_tokens import check_recorded_tokens


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


EXTRA_KEYS = ("episode_id", "task_id", "group_id", "total_reward", "resolved", "steps", "termination_reason", "env_failure")


def fields_of(batch, i: int) -> dict[str, Any]:
    """Our agent loop's ``extra_fields`` of sample ``i``: Verl turns each key into a column of the batch."""
    return {key: batch.non_tensor_batch[key][i] for key in EXTRA_KEYS if key in batch.non_tensor_batch and batch.non_tensor_batch[key][i] is not None}


def decoded_replies(responses, mask, tokenizer) -> list[str]:
    """Each reply's text: every run of mask-1 tokens decoded on its own, as the agent loop decodes a reply."""
    return [tokenizer.decode(responses[a:b].tolist(), skip_special_tokens=True) for a, b in mask_runs(mask)]


# How the environment service refuses an episode the infrastructure failed (serviceEpisode.ts and
# remoteEpisode.ts): such a sample is the estimator's to leave out, not a failure of the smoke.
NO_OUTCOME = "reached no outcome because the infrastructure failed"


def no_outcome(fields: dict[str, Any]) -> bool:
    return NO_OUTCOME in str(fields.get("env_failure", ""))


def check_step(batch, policy, tokenizer, n: int, groups: int, algorithm) -> list[dict[str, Any]]:
    """The properties the issue asks the smoke to prove, per sample; each entry says what held."""
    failures = []
    responses = batch.batch["responses"]
    mask = batch.batch["response_mask"]
    scores = batch.batch["rm_scores"]
    advantages = batch.batch["advantages"]
    # Verl's batch names each sample's GRPO group ``uid``.
    uids = batch.non_tensor_batch["uid"]
    for i in range(len(batch)):
        fields = fields_of(batch, i)
        if no_outcome(fields):
            # The infrastructure failed it (a lost sandbox host): it must teach nothing.
            if int(mask[i].sum()) != 0 or float(advantages[i].abs().sum()) != 0.0:
                failures.append({"sample": i, "check": "a sample without an outcome is masked with advantage 0", "detail": fields["env_failure"]})
            continue
        if fields.get("env_failure"):
            failures.append({"sample": i, "check": "environment", "detail": fields["env_failure"]})
            continue
        episode = fields.get("episode_id")
        decoded = decoded_replies(responses[i], mask[i], tokenizer)
        expected = list(policy.replies.get(episode, []))
        if decoded != expected:
            failures.append(
                {
                    "sample": i,
                    "check": "mask-1 tokens decode to the replies",
                    "detail": {"decoded": [d[:200] for d in decoded], "expected": [e[:200] for e in expected]},
                }
            )
        valid = int(batch.batch["attention_mask"][i, -responses.shape[-1] :].sum())
        nonzero = torch.nonzero(scores[i]).flatten().tolist()
        total_reward = float(fields.get("total_reward", 0.0))
        if abs(float(scores[i, valid - 1]) - total_reward) > 1e-6 or any(p != valid - 1 for p in nonzero):
            failures.append(
                {
                    "sample": i,
                    "check": "reward on the last valid token equals the return",
                    "detail": {"valid": valid, "nonzero": nonzero, "total_reward": total_reward},
                }
            )
        if float(advantages[i][mask[i] == 0].abs().sum()) != 0.0:
            failures.append({"sample": i, "check": "advantages are zero where the mask is 0"})
    failures.extend(check_real_outcome_advantages(batch, algorithm))
    sizes = {}
    for uid in uids:
        sizes[uid] = sizes.get(uid, 0) + 1
    if len(sizes) != groups or any(size != n for size in sizes.values()):
        failures.append(
            {"check": "one GRPO group per task of size n", "detail": {"groups": len(sizes), "expected_groups": groups, "sizes": sorted(sizes.values()), "n": n}}
        )
    return failures


def check_real_outcome_advantages(batch, algorithm) -> list[dict[str, Any]]:
    """The trainer used GRPO over real outcomes (real_outcome_grpo.py), registered through Verl's
    registry in this process: the batch's advantages are what it computes, which differ from Verl's
    plain GRPO as soon as a member has no outcome; and some group had two outcomes to compare."""
    from ..real_outcome_grpo import ESTIMATOR_NAME, compute_real_outcome_grpo_advantage, outcome_rows

    mask = batch.batch["response_mask"]
    uids = batch.non_tensor_batch["uid"]
    failures = []
    if str(algorithm.adv_estimator) == ESTIMATOR_NAME:
        expected, _ = compute_real_outcome_grpo_advantage(batch.batch["token_level_rewards"], mask, uids, config=algorithm)
        gap = float((expected - batch.batch["advantages"]).abs().max())
        if gap > 1e-6:
            failures.append({"check": "advantages are GRPO over real outcomes", "detail": {"max_abs_gap": gap}})
    kept = outcome_rows(mask, uids, str(algorithm.get("failed_members", "exclude") or "exclude"))
    if not bool(kept.any()):
        failures.append({"check": "some GRPO group has two outcomes to compare", "detail": {"outcomes": int((mask.sum(dim=-1) > 0).sum())}})
    return failures


def samples_of(batch, tokenizer) -> list[dict[str, Any]]:
    """What each sample was, for the test and for a person reading ``smoke/checks.json``."""
    rows = []
    for i in range(len(batch)):
        fields = fields_of(batch, i)
        mask = batch.batch["response_mask"][i]
        rows.append(
            {
                "group_id": str(batch.non_tensor_batch["uid"][i]),
                "episode_id": fields.get("episode_id"),
                "task_id": fields.get("task_id"),
                "total_reward": fields.get("total_reward"),
                "resolved": fields.get("resolved"),
                "model_tokens": int(mask.sum()),
                "env_tokens": int((batch.batch["attention_mask"][i, -mask.shape[-1] :] - mask).sum()),
                "score": float(batch.batch["rm_scores"][i].sum()),
                # A masked sample's largest advantage, which must be 0: a wrong one shows here.
                "advantage": float(batch.batch["advantages"][i][mask == 1].mean()) if int(mask.sum()) else float(batch.batch["advantages"][i].abs().max()),
                "no_outcome": no_outcome(fields),
                "decoded_model_tokens": "".join(decoded_replies(batch.batch["responses"][i], mask, tokenizer)),
            }
        )
    return rows


def load_policy_model(args, model_path: str):
    """Builds or converts the smoke's model into ``model_path`` and loads it for training on CPU."""
    from transformers import AutoModelForCausalLM

    from .language_model import convert_language_model
    from .tiny_model import build_tiny_model

    if args.policy == "model":
        convert_language_model(args.language_model, model_path)
    else:
        build_tiny_model(model_path)
    return AutoModelForCausalLM.from_pretrained(model_path, dtype=torch.float32)


def phase(seconds: float, tokens: int) -> dict[str, float]:
    return {"seconds": seconds, "tokens": tokens, "tokens_per_s": tokens / seconds if seconds > 0 else 0.0}


async def run(args) -> int:
    from verl import DataProto
    from verl.experimental.agent_loop.agent_loop import AgentLoopWorker
    from verl.trainer.ppo.metric_utils import compute_data_metrics, compute_timing_metrics
    from verl.trainer.ppo.ray_trainer import compute_advantage
    from verl.utils import hf_tokenizer
    from verl.utils.tracking import Tracking

    # Registers gp train's estimator with Verl (real_outcome_grpo.py) in this process, which computes the advantages.
    from .. import real_outcome_grpo  # noqa: F401
    from ..service_client import EnvServiceClient, ServiceAddress, close_sessions
    from .model_policy import ModelPolicyClient
    from .scripted_policy import ScriptedPolicyClient

    config = compose_config(args.overrides)
    model_path = config.actor_rollout_ref.model.path
    torch.manual_seed(args.seed)
    model = load_policy_model(args, model_path)
    tokenizer = hf_tokenizer(model_path)
    on_policy = args.policy == "model"
    # The initial weights, kept to show that a later step's replies come from the updated ones.
    initial = copy.deepcopy(model).eval() if on_policy else None
    policy = (
        ModelPolicyClient(model, tokenizer, max_new_tokens=args.max_new_tokens)
        if on_policy
        else ScriptedPolicyClient(EnvServiceClient(ServiceAddress.from_file()), tokenizer)
    )
    worker = AgentLoopWorker(config, llm_client=policy)
    optimizer = torch.optim.AdamW(
        model.parameters(),
        lr=float(config.actor_rollout_ref.actor.optim.lr),
        weight_decay=float(config.actor_rollout_ref.actor.optim.get("weight_decay", 0.0) or 0.0),
    )
    tracker = Tracking(project_name=config.trainer.project_name, experiment_name=config.trainer.experiment_name, default_backend=list(config.trainer.logger))
    n = int(config.actor_rollout_ref.rollout.n)
    report: dict[str, Any] = {"policy": args.policy, "model_path": model_path, "steps": [], "ok": True}
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
            # By name, as Verl's trainer passes it: a registered estimator is no member of Verl's enum.
            adv_estimator=config.algorithm.adv_estimator,
            num_repeat=n,
            norm_adv_by_std_in_grpo=bool(config.algorithm.norm_adv_by_std_in_grpo),
            config=config.algorithm,
        )
        timing["adv"] = time.perf_counter() - began
        before = parameter_snapshot(model) if on_policy else None
        began = time.perf_counter()
        update = actor_update(model, optimizer, batch, config)
        timing["update_actor"] = time.perf_counter() - began
        timing["step"] = time.perf_counter() - started
        metrics = {**compute_data_metrics(batch, use_critic=False), **compute_timing_metrics(batch, timing), **update.metrics}
        metrics["training/global_step"] = step
        tracker.log(data={k: float(v) for k, v in metrics.items() if isinstance(v, (int, float, np.floating, np.integer))}, step=step)
        failures = check_step(batch, policy, tokenizer, n, groups, config.algorithm)
        failures.extend(check_recorded_tokens(batch, policy.sampled, args.run_dir))
        entry: dict[str, Any] = {"step": step, "failures": failures, "samples": samples_of(batch, tokenizer), "metrics_keys": sorted(metrics)}
        if on_policy:
            entry.update(on_policy_step(args, batch, policy, tokenizer, update, model, initial, before, rollout_temperature(config), step, failures))
            entry["timing"] = {
                "step_seconds": timing["step"],
                "generation": phase(policy.totals.seconds, policy.totals.tokens),
                "environment": phase(environment_seconds(batch), environment_tokens(batch)),
                "update": phase(timing["update_actor"], update.view.tokens),
            }
            policy.new_step()
            policy.weights_version = step
        report["steps"].append(entry)
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
    left_out = sum(1 for step in report["steps"] for sample in step["samples"] if sample["no_outcome"])
    if left_out:
        print(f"smoke: {left_out} sample(s) reached no outcome (the infrastructure failed them): masked, advantage 0, left out of their group")
    print(f"smoke: {args.steps} step(s) passed every check; see {os.path.join(out, 'checks.json')}")
    return 0


def on_policy_step(args, batch, policy, tokenizer, update, model, initial, before, temperature: float, step: int, failures: list) -> dict[str, Any]:
    """The on-policy checks of one step (on_policy.py); their failures join the step's."""
    failures.extend(check_replies(batch, policy.totals.replies, tokenizer, args.run_dir))
    same, problems = check_same_weights(batch, update.view, update.old_log_probs)
    failures.extend(problems)
    first = next(iter(policy.totals.replies.values()), [])
    # The exact prompt of the step's first reply, so a benchmark can time the bare model on the same input.
    figures: dict[str, Any] = {
        "weights_version": policy.weights_version,
        "log_prob_gap_sampling_weights": same,
        "first_prompt_ids": first[0].prompt_ids if first else [],
    }
    if step > 1:
        other, problems = check_not_initial(batch, update.view, initial, temperature)
        failures.extend(problems)
        figures["log_prob_gap_initial_weights"] = other
    figures["l2_delta"] = parameter_distance(model, before)
    figures["l2_from_initial"] = parameter_distance(model, parameter_snapshot(initial))
    failures.extend(check_moved(figures["l2_delta"], update.metrics["actor/grad_norm"]))
    return {"on_policy": figures}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m graph_planner_verl.smoke.run")
    parser.add_argument("--run-dir", required=True)
    parser.add_argument("--steps", type=int, default=1)
    parser.add_argument("--policy", choices=("model", "scripted"), default="model")
    parser.add_argument("--language-model", help="the GGUF file the model policy converts and trains (--policy model)")
    parser.add_argument("--max-new-tokens", type=int, default=64, help="the model policy's reply budget, in tokens")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("overrides", nargs="*")
    args = parser.parse_args(argv)
    return asyncio.run(run(args))


if __name__ == "__main__":
    sys.exit(main())
