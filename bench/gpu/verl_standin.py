"""The few Verl 0.9.1 functions the smoke's actor update and policy client call, for a machine
where Verl itself cannot be imported.

``import verl`` runs ``verl/__init__.py``, which imports ``verl.protocol``, which does ``import ray``
at module level (and ``verl.utils.torch_functional`` imports ``tensordict``): without Ray (a wheel
of about 70 MB, over what travels to a lent GPU machine) no Verl module imports at all. So this file
registers, under Verl's own module names, plain-torch transcriptions of exactly what
``python/graph_planner_verl/smoke/actor.py`` and ``model_policy.py`` call, and the real smoke code
then runs unchanged on top of them:

- ``verl.utils.torch_functional``: ``logprobs_from_logits`` (its non-flash-attn path,
  ``logprobs_from_logits_v2``), ``entropy_from_logits``, ``masked_sum``, ``masked_mean``;
- ``verl.trainer.ppo.core_algos``: ``agg_loss`` (token-mean and token-sum; dp_size 1) and
  ``get_policy_loss_fn("vanilla")`` (``compute_policy_loss_vanilla``: dual-clip PPO);
- ``verl.utils.config``: ``omega_conf_to_dataclass``, which returns a non-DictConfig as it is;
- ``verl.workers.rollout.replica``: ``TokenOutput`` (a dataclass instead of pydantic's model).

``bench/gpu/smoke_halves.py --loss both`` on a machine with Verl runs the real functions and these on
the same batch and records that loss, entropy and gradient norm agree.

Verl (volcengine/verl) is licensed under the Apache License 2.0; these transcriptions of its
functions are under the same licence. They are a benchmark's stand-in only: nothing in the product
imports this file.
"""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass, field
from typing import Any, Optional

import torch
import torch.nn.functional as F


# verl/utils/torch_functional.py (0.9.1)
def masked_sum(values, mask, axis=None):
    valid_values = torch.where(mask.bool(), values, 0.0)
    return (valid_values * mask).sum(axis=axis)


def masked_mean(values, mask, axis=None):
    s = masked_sum(values, mask, axis)
    return s / (mask.sum(axis=axis) + 1e-8)


def logprobs_from_logits(logits, labels, inplace_backward=True):
    """``logprobs_from_logits_v2``: Verl's path when flash-attn's cross-entropy is not installed."""
    if logits.dtype in [torch.float32, torch.float64]:
        logits_labels = torch.gather(logits, dim=-1, index=labels.unsqueeze(-1)).squeeze(-1)
        logsumexp_values = torch.stack([torch.logsumexp(logit, dim=-1) for logit in logits])
        return logits_labels - logsumexp_values
    rows = []
    for row_logits, row_labels in zip(logits, labels, strict=True):
        row_logprobs = F.log_softmax(row_logits, dim=-1)
        rows.append(row_logprobs.gather(dim=-1, index=row_labels.unsqueeze(-1)).squeeze(-1))
    return torch.stack(rows)


def entropy_from_logits(logits):
    pd = torch.nn.functional.softmax(logits, dim=-1)
    return torch.logsumexp(logits, dim=-1) - torch.sum(pd * logits, dim=-1)


# verl/trainer/ppo/core_algos.py (0.9.1)
def agg_loss(loss_mat, loss_mask, loss_agg_mode, dp_size=1, batch_num_tokens=None, global_batch_size=None, loss_scale_factor=None):
    if loss_agg_mode == "token-mean":
        if batch_num_tokens is None:
            batch_num_tokens = loss_mask.sum()
        return masked_sum(loss_mat, loss_mask) / batch_num_tokens * dp_size
    if loss_agg_mode == "token-sum":
        return masked_sum(loss_mat, loss_mask) * dp_size
    raise ValueError(f"the stand-in covers token-mean and token-sum, not {loss_agg_mode}")


def compute_policy_loss_vanilla(old_log_prob, log_prob, advantages, response_mask, loss_agg_mode="token-mean", config=None, rollout_is_weights=None):
    assert config is not None
    clip_ratio = config.clip_ratio
    cliprange_low = config.clip_ratio_low if config.clip_ratio_low is not None else clip_ratio
    cliprange_high = config.clip_ratio_high if config.clip_ratio_high is not None else clip_ratio
    clip_ratio_c = config.get("clip_ratio_c", 3.0)
    negative_approx_kl = torch.clamp(log_prob - old_log_prob, min=-20.0, max=20.0)
    ratio = torch.exp(negative_approx_kl)
    ppo_kl = masked_mean(-negative_approx_kl, response_mask)
    pg_losses1 = -advantages * ratio
    pg_losses2 = -advantages * torch.clamp(ratio, 1 - cliprange_low, 1 + cliprange_high)
    clip_pg_losses1 = torch.maximum(pg_losses1, pg_losses2)
    pg_clipfrac = masked_mean(torch.gt(pg_losses2, pg_losses1).float(), response_mask)
    pg_losses3 = -advantages * clip_ratio_c
    clip_pg_losses2 = torch.min(pg_losses3, clip_pg_losses1)
    pg_clipfrac_lower = masked_mean(torch.gt(clip_pg_losses1, pg_losses3) * (advantages < 0).float(), response_mask)
    pg_losses = torch.where(advantages < 0, clip_pg_losses2, clip_pg_losses1)
    if rollout_is_weights is not None:
        pg_losses = pg_losses * rollout_is_weights
    pg_loss = agg_loss(loss_mat=pg_losses, loss_mask=response_mask, loss_agg_mode=loss_agg_mode, **config.global_batch_info)
    return pg_loss, {
        "actor/pg_clipfrac": pg_clipfrac.detach().item(),
        "actor/ppo_kl": ppo_kl.detach().item(),
        "actor/pg_clipfrac_lower": pg_clipfrac_lower.detach().item(),
    }


def get_policy_loss_fn(name):
    if name != "vanilla":
        raise ValueError(f"the stand-in has only the vanilla policy loss, not {name}")
    return compute_policy_loss_vanilla


# verl/utils/config.py (0.9.1): a config that is already an object is returned as it is.
def omega_conf_to_dataclass(config, dataclass_type=None):
    return config


# verl/workers/rollout/replica.py (0.9.1)
@dataclass
class TokenOutput:
    token_ids: list[int]
    log_probs: Optional[list[float]] = None
    routed_experts: Optional[Any] = None
    stop_reason: Optional[str] = None
    num_preempted: Optional[int] = None
    extra_fields: dict[str, Any] = field(default_factory=dict)


class Cfg(dict):
    """An attribute dict with ``.get``, enough of an OmegaConf node for actor.py and the loss."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError as error:
            raise AttributeError(name) from error


def smoke_config(temperature: float, top_p: float, lr: float, entropy_coeff: float) -> Cfg:
    """The smoke's actor and rollout settings with Verl 0.9.1's defaults for the rest (actor.yaml)."""
    actor = Cfg(
        policy_loss=Cfg(loss_mode="vanilla"),
        loss_agg_mode="token-mean",
        clip_ratio=0.2,
        clip_ratio_low=0.2,
        clip_ratio_high=0.2,
        clip_ratio_c=3.0,
        entropy_coeff=entropy_coeff,
        grad_clip=1.0,
        global_batch_info={},
        optim=Cfg(lr=lr, weight_decay=0.01),
    )
    return Cfg(actor_rollout_ref=Cfg(actor=actor, rollout=Cfg(temperature=temperature, top_p=top_p)))


def install() -> None:
    """Registers the stand-in under Verl's module names (only call it where ``import verl`` fails)."""
    names = {
        "verl": {},
        "verl.utils": {},
        "verl.utils.torch_functional": {
            "logprobs_from_logits": logprobs_from_logits,
            "entropy_from_logits": entropy_from_logits,
            "masked_sum": masked_sum,
            "masked_mean": masked_mean,
        },
        "verl.utils.config": {"omega_conf_to_dataclass": omega_conf_to_dataclass},
        "verl.trainer": {},
        "verl.trainer.ppo": {},
        "verl.trainer.ppo.core_algos": {
            "agg_loss": agg_loss,
            "get_policy_loss_fn": get_policy_loss_fn,
            "compute_policy_loss_vanilla": compute_policy_loss_vanilla,
        },
        "verl.workers": {},
        "verl.workers.rollout": {},
        "verl.workers.rollout.replica": {"TokenOutput": TokenOutput},
    }
    for name, attrs in names.items():
        module = types.ModuleType(name)
        module.__dict__.update(attrs)
        module.__dict__["__standin__"] = True
        module.__path__ = []  # a package, so submodules resolve
        sys.modules[name] = module
    for name in names:
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, sys.modules[name])
