"""Verl's GRPO advantage over the members of a group that reached an outcome.

An episode that reaches no outcome (the infrastructure failed it, its sandbox host was lost, its
tests could not be graded) comes back from our agent loop with every response token masked and
reward 0 (agent_loop.py, ``_failed``). Verl's GRPO would still count that 0 in its group's mean and
standard deviation, crediting the other members with advantage they did not earn. This estimator
is Verl's ``compute_grpo_outcome_advantage`` run over the members with an outcome only:

- ``exclude`` (the default): a member without an outcome is left out of its group's mean and
  standard deviation and gets advantage 0; a group left with fewer than two outcomes gets 0 for
  every member, since one outcome has nothing to be compared with.
- ``drop_group``: any member without an outcome zeroes its whole group (SkyRL's rule).

A group where every member has an outcome gets exactly Verl's numbers, a group of one included.

Verl 0.9.1's ``compute_advantage`` hands a registered estimator only ``token_level_rewards``,
``response_mask``, ``index`` (the ``uid`` column) and ``config`` (``algorithm``), and its v1
trainer fetches no other column for it, so the marker of "no outcome" is the mask itself: a member
whose response mask is all zero has no outcome. A real episode always has a model token under mask
1, because its first turn asks the model before anything can end it (docs/trainer-bridge.md,
"Failed members").

Importing this module registers the estimator; ``gp train`` names this module in
``VERL_USE_EXTERNAL_MODULES``, which ``import verl`` imports in every process of the run.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
import torch
from verl.trainer.ppo.core_algos import compute_grpo_outcome_advantage, register_adv_est

ESTIMATOR_NAME = "grpo_real_outcomes"
FAILED_MEMBER_RULES = ("exclude", "drop_group")


def setting(config: Optional[Any], key: str, default: Any) -> Any:
    """A key of Verl's ``algorithm`` config, which arrives as a DictConfig, an AlgoConfig or nothing."""
    if config is None:
        return default
    value = config.get(key, default)
    return default if value is None else value


def outcome_rows(response_mask: torch.Tensor, index: np.ndarray, rule: str) -> torch.Tensor:
    """Which rows take part in their group's GRPO: a bool per row."""
    has_outcome = response_mask.sum(dim=-1) > 0
    groups: dict[Any, list[int]] = {}
    for row, uid in enumerate(index):
        groups.setdefault(uid, []).append(row)
    kept = has_outcome.clone()
    for rows in groups.values():
        real = int(has_outcome[rows].sum())
        if real == len(rows):
            continue
        if rule == "drop_group" or real < 2:
            kept[rows] = False
    return kept


@register_adv_est(ESTIMATOR_NAME)
def compute_real_outcome_grpo_advantage(
    token_level_rewards: torch.Tensor,
    response_mask: torch.Tensor,
    index: np.ndarray,
    epsilon: float = 1e-6,
    config: Optional[Any] = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Advantages and returns (the same tensor, as Verl's GRPO returns them), shape (bs, response_length).

    ``norm_adv_by_std_in_grpo`` and ``failed_members`` are read from ``config``: Verl passes its
    own GRPO the former as an argument but a registered estimator only the config.
    """
    rule = setting(config, "failed_members", "exclude")
    if rule not in FAILED_MEMBER_RULES:
        raise ValueError(f"algorithm.failed_members is {rule!r}; expected one of {', '.join(FAILED_MEMBER_RULES)}")
    norm = bool(setting(config, "norm_adv_by_std_in_grpo", True))
    kept = outcome_rows(response_mask, index, rule)
    advantages = torch.zeros_like(token_level_rewards)
    rows = torch.nonzero(kept).flatten()
    if len(rows) > 0:
        # Verl's function on the kept rows only: a group's numbers depend on its own rows alone, so
        # each kept row gets exactly what Verl computes for a group made of the kept members.
        picked = rows.tolist()
        computed, _ = compute_grpo_outcome_advantage(
            token_level_rewards=token_level_rewards[rows],
            response_mask=response_mask[rows],
            index=index[picked],
            epsilon=epsilon,
            norm_adv_by_std_in_grpo=norm,
        )
        advantages[rows] = computed
    return advantages, advantages
