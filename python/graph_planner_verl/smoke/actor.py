"""The smoke's actor update: one policy-gradient step with Verl's loss on CPU.

Verl's FSDP workers need GPUs, so the update is a plain torch loop around Verl's own pieces: the
policy loss of ``get_policy_loss_fn``, minus ``actor.entropy_coeff`` times the entropy as Verl's
``ppo_loss`` subtracts it (verl/workers/utils/losses.py), with the logits divided by the rollout
temperature as Verl's actor divides them before taking log-probabilities.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch


@dataclass
class ResponseView:
    """The batch cut to the columns some sample uses, so a CPU forward pass costs the longest
    conversation, not the whole padded budget (prompts are padded on the left, responses on the right)."""

    input_ids: torch.Tensor
    attention_mask: torch.Tensor
    position_ids: torch.Tensor
    responses: torch.Tensor
    response_mask: torch.Tensor
    length: int

    @property
    def tokens(self) -> int:
        """The tokens one forward pass reads."""
        return int(self.attention_mask.sum())


def response_view(batch) -> ResponseView:
    prompt_width = batch.batch["prompts"].shape[-1]
    mask_all = batch.batch["attention_mask"]
    used = torch.nonzero(mask_all.any(dim=0)).flatten()
    left = int(used.min()) if len(used) else 0
    length = max(1, int(mask_all[:, prompt_width:].sum(dim=-1).max()))
    right = prompt_width + length
    return ResponseView(
        input_ids=batch.batch["input_ids"][:, left:right],
        attention_mask=mask_all[:, left:right],
        position_ids=batch.batch["position_ids"][..., left:right],
        responses=batch.batch["responses"][:, :length],
        response_mask=batch.batch["response_mask"][:, :length].float(),
        length=length,
    )


def rollout_temperature(config) -> float:
    temperature = float(config.actor_rollout_ref.rollout.temperature or 0.0)
    return temperature if temperature > 0 else 1.0


def response_logits(model, view: ResponseView, temperature: float) -> torch.Tensor:
    """The temperature-scaled logits that predict each response token."""
    logits = model(input_ids=view.input_ids, attention_mask=view.attention_mask, position_ids=view.position_ids, logits_to_keep=view.length + 1).logits
    return logits[:, :-1, :] / temperature


def response_log_probs(model, view: ResponseView, temperature: float) -> torch.Tensor:
    """Each response token's log-probability under ``model``'s current weights (no gradient)."""
    from verl.utils.torch_functional import logprobs_from_logits

    with torch.no_grad():
        return logprobs_from_logits(response_logits(model, view, temperature), view.responses)


@dataclass
class UpdateResult:
    metrics: dict[str, float]
    # The log-probabilities of the response tokens under the weights before this update.
    old_log_probs: torch.Tensor
    view: ResponseView


def actor_update(model, optimizer, batch, config, micro_batch: int | None = None) -> UpdateResult:
    """One policy-gradient step with Verl's loss (``get_policy_loss_fn``) on the batch's responses.

    With ``micro_batch``, the rows go through the model that many at a time and their gradients
    add up before the one optimizer step, as Verl's ``ppo_micro_batch_size_per_gpu`` does: each
    chunk's loss is weighted by its share of the batch's response tokens (``token-mean``) or rows
    (the ``seq-mean`` modes), so the step is the same as one pass over the whole batch.
    """
    from verl.trainer.ppo.core_algos import agg_loss, get_policy_loss_fn
    from verl.utils.config import omega_conf_to_dataclass
    from verl.utils.torch_functional import entropy_from_logits, logprobs_from_logits

    whole = response_view(batch)
    advantages_all = batch.batch["advantages"][:, : whole.length]
    temperature = rollout_temperature(config)
    actor_config = config.actor_rollout_ref.actor
    loss_mode = actor_config.policy_loss.get("loss_mode", "vanilla")
    agg_mode = actor_config.loss_agg_mode
    entropy_coeff = float(actor_config.get("entropy_coeff", 0.0) or 0.0)
    rows = whole.input_ids.shape[0]
    step = rows if not micro_batch or micro_batch >= rows or agg_mode not in ("token-mean", "seq-mean-token-mean", "seq-mean-token-sum") else micro_batch
    total_tokens = float(whole.response_mask.sum())
    model.train()
    optimizer.zero_grad()
    olds = []
    figures: dict[str, float] = {"actor/pg_loss": 0.0, "actor/entropy": 0.0}
    pg_metrics: dict[str, Any] = {}
    for start in range(0, rows, step):
        part = slice(start, start + step)
        view = ResponseView(
            input_ids=whole.input_ids[part],
            attention_mask=whole.attention_mask[part],
            position_ids=whole.position_ids[part],
            responses=whole.responses[part],
            response_mask=whole.response_mask[part],
            length=whole.length,
        )
        if step == rows:
            weight = 1.0
        elif agg_mode == "token-mean":
            weight = float(view.response_mask.sum()) / total_tokens if total_tokens > 0 else 0.0
        else:
            weight = view.input_ids.shape[0] / rows
        logits = response_logits(model, view, temperature)
        current = logprobs_from_logits(logits, view.responses)
        # This is the batch's only update and the weights are still those that produced the responses,
        # so the old log-probabilities are this pass's own, detached: a second forward pass would
        # compute the same numbers at a third more of the update's time.
        old = current.detach()
        olds.append(old)
        pg_loss, pg_metrics = get_policy_loss_fn(loss_mode)(
            old_log_prob=old,
            log_prob=current,
            advantages=advantages_all[part],
            response_mask=view.response_mask,
            loss_agg_mode=agg_mode,
            config=omega_conf_to_dataclass(actor_config),
        )
        entropy = agg_loss(entropy_from_logits(logits), view.response_mask, agg_mode)
        loss = (pg_loss - entropy_coeff * entropy) * weight
        if weight > 0:
            loss.backward()
        figures["actor/pg_loss"] += float(pg_loss.detach()) * weight
        figures["actor/entropy"] += float(entropy.detach()) * weight
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), float(actor_config.get("grad_clip", 1.0) or 1.0))
    optimizer.step()
    metrics: dict[str, float] = {**figures, "actor/grad_norm": float(grad_norm), "actor/lr": optimizer.param_groups[0]["lr"]}
    for key, value in (pg_metrics or {}).items():
        metrics[key if key.startswith("actor/") else f"actor/{key}"] = float(value.detach() if torch.is_tensor(value) else value)
    return UpdateResult(metrics=metrics, old_log_probs=torch.cat(olds, dim=0), view=whole)


def parameter_snapshot(model: Any) -> list[torch.Tensor]:
    return [p.detach().clone() for p in model.parameters()]


def parameter_distance(model: Any, snapshot: list[torch.Tensor]) -> float:
    """The L2 norm of the difference between the model's parameters and a snapshot of them."""
    total = torch.zeros((), dtype=torch.float64)
    for p, before in zip(model.parameters(), snapshot):
        total += (p.detach().double() - before.double()).pow(2).sum()
    return float(total.sqrt())
