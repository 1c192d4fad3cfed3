"""The learning canary's driver: ``gp train --canary`` starts it (server/src/trainer/canary.ts).

Does this pipeline learn? SmolLM2-135M-Instruct is trained with GRPO on tasks whose fix is one
operator. Each reply is sampled from the weights the last update left (batched, with the model's
KV cache, at most ``--max-new-tokens`` tokens); its first operator becomes a one-line repair in our
environment service, which runs and grades the task's tests in a sandbox, so the reward is the
environment's. The rewards go through Verl's own pieces: a ``DataProto``, ``compute_advantage``
with the estimator ``gp train`` registers (GRPO over real outcomes) and Verl's policy loss
(smoke/actor.py). Beside it runs a control from the same seed and the same tasks, sampled from
the initial weights, whose update is switched off. Before and after, the same held-out tasks are
scored; the verdict compares the trained run's score with the control's against the run-to-run
spread over ``--seeds`` seeds (verdict.py) and lands in ``<run>/canary/verdict.json``.

``GP_CANARY_BREAK`` (a debug switch, not a config key) breaks the trained run on purpose, so the
canary can be shown to catch it: ``negate-advantages``, ``zero-mask`` (the response mask zeroed
before the update) or ``withhold-reward`` (the reward never reaches the advantages).
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import os
import random
import re
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np
import torch

from ..service_client import EnvServiceClient, ServiceAddress, ServiceError, close_sessions
from ..smoke.actor import actor_update, rollout_temperature
from ..smoke.run import compose_config
from .verdict import verdict

# The canary's reply format: the first operator of the reply is its answer.
OPERATOR = re.compile(r"\*\*|//|[-+*%]")
BREAKS = ("negate-advantages", "zero-mask", "withhold-reward")
SUBMIT = '<function=submit>\n<param name="thought">Grade the fix.</param>\n</function>'
# Episodes the driver keeps open at once (the service's cap is one step's worth).
OPEN_AT_ONCE = 4
# Rows per forward and backward pass of the update: a whole step at once needs gigabytes of activations on CPU.
MICRO_BATCH = 8


def first_operator(reply: str) -> Optional[str]:
    found = OPERATOR.search(reply)
    return found.group(0) if found else None


def repair_reply(spec: dict[str, Any], operator: str, raw: str) -> str:
    """The action our environment runs for a reply: the task's line with ``operator`` in place."""
    line = spec["line"]
    patches = [{"edits": [{"path": spec["path"], "start": line, "end": line, "new_text": f"{spec['before']}{operator}{spec['after']}\n"}]}]
    # The model's own words go into the thought, without the characters of the protocol's tags.
    said = re.sub(r"[<>\x00-\x1f]", " ", raw).strip()[:200]
    return f'<function=repair>\n<param name="thought">The model replied: {said}</param>\n<param name="patches">{json.dumps(patches)}</param>\n</function>'


async def run_episode(client: EnvServiceClient, task_id: str, group: str, key: str, spec: dict[str, Any], raw: str) -> Optional[float]:
    """One episode of the reply through the environment service: its return, or None when the
    infrastructure failed it (no outcome: masked, as the agent loop masks one)."""
    episode_id = None
    try:
        created = await client.create(key, task_id, group)
        episode_id = created.episode_id
        operator = first_operator(raw)
        turn = 1
        if operator is not None:
            answer = await client.step(episode_id, turn, repair_reply(spec, operator, raw))
            turn += 1
            if answer.done:
                return (await client.close(episode_id, "max_steps")).total_reward
        await client.step(episode_id, turn, SUBMIT)
        return (await client.close(episode_id, "max_steps")).total_reward
    except ServiceError as error:
        if error.code == "unreachable":
            raise
        print(f"canary: episode {episode_id or key} reached no outcome: {error}", file=sys.stderr)
        if episode_id is not None:
            try:
                await client.close(episode_id, "interrupted")
            except ServiceError:
                pass
        return None


@dataclass
class Sampled:
    prompts: torch.Tensor
    prompt_mask: torch.Tensor
    responses: torch.Tensor
    response_mask: torch.Tensor
    replies: list[str]
    seconds: float
    tokens: int


def sample(model, tokenizer, prompts: list[str], n: int, max_new_tokens: int, temperature: float, seed: int) -> Sampled:
    """``n`` replies to each prompt in one batched ``generate`` (left-padded prompts, KV cache)."""
    texts = [tokenizer.apply_chat_template([{"role": "user", "content": p}], tokenize=False, add_generation_prompt=True) for p in prompts]
    encoded = tokenizer(texts, return_tensors="pt", padding=True)
    ids = encoded["input_ids"].repeat_interleave(n, dim=0)
    mask = encoded["attention_mask"].repeat_interleave(n, dim=0)
    torch.manual_seed(seed)
    model.eval()
    began = time.perf_counter()
    with torch.no_grad():
        out = model.generate(
            input_ids=ids,
            attention_mask=mask,
            max_new_tokens=max_new_tokens,
            do_sample=True,
            temperature=temperature,
            top_p=1.0,
            top_k=0,
            pad_token_id=tokenizer.pad_token_id,
        )
    seconds = time.perf_counter() - began
    responses = out[:, ids.shape[1] :]
    response_mask = torch.ones_like(responses)
    for row in range(responses.shape[0]):
        ends = torch.nonzero(responses[row] == tokenizer.eos_token_id).flatten()
        if len(ends):
            response_mask[row, int(ends[0]) + 1 :] = 0
    replies = [tokenizer.decode(responses[row][response_mask[row] == 1], skip_special_tokens=True) for row in range(responses.shape[0])]
    return Sampled(ids, mask, responses, response_mask, replies, seconds, int(response_mask.sum()))


def training_batch(sampled: Sampled, rewards: list[Optional[float]], uids: list[str]):
    """The step as Verl's trainer holds it: a ``DataProto`` with the reward on each response's last
    token and, for a member without an outcome, every response token masked."""
    from verl import DataProto

    response_mask = sampled.response_mask.clone()
    scores = torch.zeros(response_mask.shape, dtype=torch.float32)
    for row, reward in enumerate(rewards):
        if reward is None:
            response_mask[row] = 0
            continue
        last = int(response_mask[row].sum()) - 1
        scores[row, max(last, 0)] = float(reward)
    attention = torch.cat([sampled.prompt_mask, sampled.response_mask], dim=1)
    return DataProto.from_dict(
        tensors={
            "prompts": sampled.prompts,
            "responses": sampled.responses,
            "input_ids": torch.cat([sampled.prompts, sampled.responses], dim=1),
            "attention_mask": attention,
            "position_ids": (attention.cumsum(dim=-1) - 1).clamp(min=0),
            "response_mask": response_mask,
            "token_level_scores": scores,
            "token_level_rewards": scores.clone(),
        },
        non_tensors={"uid": np.array(uids, dtype=object)},
    )


@dataclass
class Arm:
    """One of the two runs of a seed: ``trained`` updates its weights, ``control`` never does."""

    name: str
    model: Any
    optimizer: Optional[torch.optim.Optimizer]
    curve: list[float] = field(default_factory=list)


class Canary:
    def __init__(self, args, config, model, tokenizer, spec: dict[str, Any], client: EnvServiceClient):
        self.args = args
        self.config = config
        self.model = model
        self.tokenizer = tokenizer
        self.spec = spec
        self.client = client
        self.gate = asyncio.Semaphore(OPEN_AT_ONCE)
        self.temperature = rollout_temperature(config)
        self.n = int(config.actor_rollout_ref.rollout.n)
        self.batch = int(config.data.train_batch_size)
        self.broken = os.environ.get("GP_CANARY_BREAK") or None
        if self.broken is not None and self.broken not in BREAKS:
            raise SystemExit(f"GP_CANARY_BREAK is {self.broken!r}; expected one of {', '.join(BREAKS)}")
        self.generation = {"seconds": 0.0, "tokens": 0}
        self.keys = 0

    async def returns(self, task_ids: list[str], sampled: Sampled, label: str) -> tuple[list[Optional[float]], list[str]]:
        """Each reply's return from the environment, and its GRPO group (one per task and label)."""
        # The replies come task by task, the same number for each (``sample``'s repeat_interleave).
        per_task = len(sampled.replies) // len(task_ids)
        tasks = [task_ids[row // per_task] for row in range(len(sampled.replies))]
        groups = [f"{label}-{task}" for task in tasks]

        async def one(row: int) -> Optional[float]:
            async with self.gate:
                self.keys += 1
                return await run_episode(self.client, tasks[row], groups[row], f"{label}-{self.keys}", self.spec["tasks"][tasks[row]], sampled.replies[row])

        return list(await asyncio.gather(*(one(row) for row in range(len(sampled.replies))))), groups

    def generate(self, model, task_ids: list[str], n: int, seed: int) -> Sampled:
        prompts = [self.spec["tasks"][t]["prompt"] for t in task_ids]
        sampled = sample(model, self.tokenizer, prompts, n, self.args.max_new_tokens, self.temperature, seed)
        self.generation["seconds"] += sampled.seconds
        self.generation["tokens"] += sampled.tokens
        return sampled

    async def held_out(self, model, seed: int, label: str) -> float:
        """The held-out score: the mean return over every held-out task, ``--held-out-samples`` each."""
        tasks = list(self.spec["held_out"])
        rewards: list[Optional[float]] = []
        for start in range(0, len(tasks), 8):
            chunk = tasks[start : start + 8]
            sampled = self.generate(model, chunk, self.args.held_out_samples, seed + start)
            got, _ = await self.returns(chunk, sampled, f"{label}-held-out")
            rewards.extend(got)
        real = [r for r in rewards if r is not None]
        return sum(real) / len(real) if real else 0.0

    async def step(self, arm: Arm, task_ids: list[str], seed: int, label: str) -> dict[str, float]:
        from verl.trainer.ppo.ray_trainer import compute_advantage

        sampled = self.generate(arm.model, task_ids, self.n, seed)
        began = time.perf_counter()
        rewards, groups = await self.returns(task_ids, sampled, f"{arm.name}-{label}")
        env_seconds = time.perf_counter() - began
        batch = training_batch(sampled, rewards, groups)
        trained = arm.optimizer is not None
        if trained and self.broken == "withhold-reward":
            batch.batch["token_level_rewards"] = torch.zeros_like(batch.batch["token_level_rewards"])
        algorithm = self.config.algorithm
        batch = compute_advantage(
            batch,
            adv_estimator=algorithm.adv_estimator,
            num_repeat=self.n,
            norm_adv_by_std_in_grpo=bool(algorithm.norm_adv_by_std_in_grpo),
            config=algorithm,
        )
        real = [r for r in rewards if r is not None]
        figures = {
            f"canary/{arm.name}/train_return": sum(real) / len(real) if real else 0.0,
            f"canary/{arm.name}/no_outcome": float(len(rewards) - len(real)),
            f"canary/{arm.name}/env_s": env_seconds,
        }
        if trained:
            if self.broken == "negate-advantages":
                batch.batch["advantages"] = -batch.batch["advantages"]
            if self.broken == "zero-mask":
                batch.batch["response_mask"] = torch.zeros_like(batch.batch["response_mask"])
            began = time.perf_counter()
            update = actor_update(arm.model, arm.optimizer, batch, self.config, micro_batch=MICRO_BATCH)
            figures.update(update.metrics)
            figures["canary/update_s"] = time.perf_counter() - began
            figures["critic/score/mean"] = figures[f"canary/{arm.name}/train_return"]
            figures["response_length/mean"] = float(sampled.response_mask.sum(dim=-1).float().mean())
        arm.curve.append(figures[f"canary/{arm.name}/train_return"])
        return figures


async def run(args) -> int:
    from verl.utils import hf_tokenizer
    from verl.utils.tracking import Tracking

    # Registers gp train's estimator with Verl (real_outcome_grpo.py) in this process, which computes the advantages.
    from .. import real_outcome_grpo  # noqa: F401
    from ..smoke.run import load_policy_model

    with open(args.spec, encoding="utf-8") as handle:
        spec = json.load(handle)
    config = compose_config(args.overrides)
    model_path = config.actor_rollout_ref.model.path
    torch.manual_seed(args.seed)
    args.policy = "model"
    model = load_policy_model(args, model_path)
    tokenizer = hf_tokenizer(model_path)
    tokenizer.padding_side = "left"
    initial = copy.deepcopy(model.state_dict())
    tracker = Tracking(project_name=config.trainer.project_name, experiment_name=config.trainer.experiment_name, default_backend=list(config.trainer.logger))
    canary = Canary(args, config, model, tokenizer, spec, EnvServiceClient(ServiceAddress.from_file()))
    lr = float(config.actor_rollout_ref.actor.optim.lr)
    began = time.perf_counter()
    if canary.broken:
        print(f"canary: the trained run is broken on purpose (GP_CANARY_BREAK={canary.broken})")
    before = await canary.held_out(model, args.seed, "before")
    print(f"canary: held-out return before training {before:.3f}", flush=True)
    control_model = copy.deepcopy(model).eval()
    seeds: list[dict[str, Any]] = []
    for index in range(args.seeds):
        seed = args.seed + 1000 * (index + 1)
        model.load_state_dict(initial)
        torch.manual_seed(seed)
        trained = Arm("trained", model, torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0))
        control = Arm("control", control_model, None)
        order = random.Random(seed)
        for step in range(1, args.steps + 1):
            task_ids = order.sample(list(spec["train"]), canary.batch)
            # Both runs get the same tasks and the same sampling seed at each step.
            figures: dict[str, float] = {"canary/seed": float(index)}
            for arm in (trained, control):
                figures.update(await canary.step(arm, task_ids, seed + step, f"{index}-{step}"))
            generation = canary.generation
            figures["canary/generation/tokens_per_s"] = generation["tokens"] / generation["seconds"] if generation["seconds"] else 0.0
            global_step = index * args.steps + step
            if step == args.steps:
                figures["canary/trained/held_out"] = await canary.held_out(trained.model, seed, f"trained-{index}")
                figures["canary/control/held_out"] = await canary.held_out(control.model, seed, f"control-{index}")
                seeds.append(
                    {
                        "seed": seed,
                        "trained": figures["canary/trained/held_out"],
                        "control": figures["canary/control/held_out"],
                        "trained_curve": trained.curve,
                        "control_curve": control.curve,
                    }
                )
            tracker.log(data=figures, step=global_step)
            print(
                f"canary: seed {index + 1}/{args.seeds} step {step}/{args.steps}: return {figures['canary/trained/train_return']:.3f} trained, {figures['canary/control/train_return']:.3f} control",
                flush=True,
            )
    samples = len(spec["held_out"]) * args.held_out_samples
    result = verdict([s["trained"] for s in seeds], [s["control"] for s in seeds], samples, before)
    report = {
        "learned": result.learned,
        "line": result.line,
        "effect": result.effect,
        "spread": result.spread,
        "before": before,
        "seeds": seeds,
        "held_out_samples": samples,
        "broken": canary.broken,
        "wall_s": time.perf_counter() - began,
        "generation": {
            **canary.generation,
            "tokens_per_s": canary.generation["tokens"] / canary.generation["seconds"] if canary.generation["seconds"] else 0.0,
        },
    }
    out = os.path.join(args.run_dir, "canary")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "verdict.json.tmp"), "w", encoding="utf-8") as handle:
        json.dump(report, handle, indent=1)
    os.replace(os.path.join(out, "verdict.json.tmp"), os.path.join(out, "verdict.json"))
    del tracker
    await close_sessions()
    print(f"canary: {result.line}", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m graph_planner_verl.canary.run")
    parser.add_argument("--run-dir", required=True)
    parser.add_argument("--spec", required=True, help="the task family's canary.json (server/src/trainer/canary.ts writes it)")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--language-model", required=True, help="the GGUF file of SmolLM2-135M-Instruct")
    parser.add_argument("--held-out-samples", type=int, default=2)
    parser.add_argument("--max-new-tokens", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("overrides", nargs="*")
    args = parser.parse_args(argv)
    return asyncio.run(run(args))


if __name__ == "__main__":
    sys.exit(main())
