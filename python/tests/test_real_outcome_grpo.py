"""GRPO over real outcomes (real_outcome_grpo.py): Verl's numbers exactly for groups where every
member has an outcome, members without one left out of their group's mean and standard deviation
with advantage 0, groups left with one outcome zeroed, and SkyRL's drop-the-group rule on request
(docs/training.md, "Failed members")."""

import os
import random
import subprocess
import sys

import numpy as np
import pytest
import torch
from omegaconf import OmegaConf
from verl import DataProto
from verl.trainer.ppo.core_algos import compute_grpo_outcome_advantage, get_adv_estimator_fn
from verl.trainer.ppo.ray_trainer import compute_advantage

from graph_planner_verl.real_outcome_grpo import ESTIMATOR_NAME, compute_real_outcome_grpo_advantage

EPSILON = 1e-6


def batch(members: list[tuple[str, float | None]], length: int, seed: int = 0):
    """Rewards, masks and uids as our agent loop's samples reach Verl: a member with an outcome has
    some model tokens under mask 1 and its reward on its last valid token; a member without one
    (None) has every token masked and reward 0 (agent_loop.py, ``_failed``)."""
    rng = random.Random(seed)
    rewards = torch.zeros(len(members), length)
    mask = torch.zeros(len(members), length, dtype=torch.int64)
    for row, (_, reward) in enumerate(members):
        if reward is None:
            continue
        valid = rng.randint(1, length)
        for position in range(valid):
            # Model tokens and environment tokens alternate in runs, as in a multi-turn episode.
            mask[row, position] = 1 if position == 0 or rng.random() < 0.6 else 0
        rewards[row, valid - 1] = reward
    index = np.array([uid for uid, _ in members], dtype=object)
    return rewards, mask, index


def ours(rewards, mask, index, **config):
    advantages, returns = compute_real_outcome_grpo_advantage(rewards, mask, index, config=config)
    assert torch.equal(advantages, returns)
    return advantages


def scalar(advantages, mask, row: int) -> float:
    """A row's advantage: GRPO broadcasts one number over the row's mask-1 tokens."""
    values = advantages[row][mask[row] == 1].unique()
    assert len(values) <= 1
    return float(values[0]) if len(values) else 0.0


def random_groups(rng: random.Random, sizes: list[int], binary: bool) -> list[tuple[str, float]]:
    members = [(f"g{g}", float(rng.choice([0.0, 1.0])) if binary else rng.uniform(-1.0, 2.0)) for g, size in enumerate(sizes) for _ in range(size)]
    # Verl interleaves a task's repeats, but nothing should depend on the rows of a group being adjacent.
    rng.shuffle(members)
    return members


@pytest.mark.parametrize("norm", [True, False])
@pytest.mark.parametrize(
    "sizes,length,binary",
    [([2, 2, 2, 2], 5, True), ([5, 5, 5], 33, False), ([8], 7, True), ([1, 3, 4, 2, 6], 12, False), ([4, 4], 1, True), ([1, 1], 3, False)],
)
def test_groups_where_every_member_has_an_outcome_get_exactly_verls_numbers(sizes, length, binary, norm):
    rng = random.Random(len(sizes) * 100 + length)
    rewards, mask, index = batch(random_groups(rng, sizes, binary), length, seed=length)
    expected, _ = compute_grpo_outcome_advantage(rewards.clone(), mask, index, epsilon=EPSILON, norm_adv_by_std_in_grpo=norm)
    for rule in ("exclude", "drop_group"):
        assert torch.equal(ours(rewards, mask, index, norm_adv_by_std_in_grpo=norm, failed_members=rule), expected)


def test_verls_compute_advantage_finds_it_by_name_and_reads_its_settings_from_the_algorithm_config():
    rewards, mask, index = batch([("a", 1.0), ("a", 0.0), ("a", 0.5), ("b", 2.0), ("b", -1.0)], 6)
    data = DataProto.from_dict(tensors={"token_level_rewards": rewards, "response_mask": mask}, non_tensors={"uid": index})
    assert get_adv_estimator_fn(ESTIMATOR_NAME) is compute_real_outcome_grpo_advantage
    for norm in (True, False):
        algorithm = OmegaConf.create({"adv_estimator": ESTIMATOR_NAME, "norm_adv_by_std_in_grpo": norm, "failed_members": "exclude"})
        got = compute_advantage(data, adv_estimator=ESTIMATOR_NAME, norm_adv_by_std_in_grpo=norm, config=algorithm).batch["advantages"].clone()
        verl = compute_advantage(data, adv_estimator="grpo", norm_adv_by_std_in_grpo=norm, config=algorithm).batch["advantages"]
        assert torch.equal(got, verl)


def test_a_member_without_an_outcome_is_left_out_of_its_groups_mean_and_std_and_gets_zero():
    # The example with a spread: three members reached an outcome, the fourth lost its host.
    members = [("t", 1.0), ("t", 0.5), ("t", 0.0), ("t", None), ("u", 1.0), ("u", 0.0)]
    rewards, mask, index = batch(members, 9)
    for norm in (True, False):
        advantages = ours(rewards, mask, index, norm_adv_by_std_in_grpo=norm)
        real = torch.tensor([1.0, 0.5, 0.0])
        mean, std = float(real.mean()), float(real.std())
        for row, reward in enumerate([1.0, 0.5, 0.0]):
            want = (reward - mean) / (std + EPSILON) if norm else reward - mean
            assert scalar(advantages, mask, row) == pytest.approx(want, abs=1e-6)
        assert not advantages[3].any(), "the member without an outcome gets advantage 0"
        # Verl's GRPO counts the failed member's 0 in the baseline: the resolved member gets more.
        verl, _ = compute_grpo_outcome_advantage(rewards.clone(), mask, index, norm_adv_by_std_in_grpo=norm)
        assert scalar(verl, mask, 0) > scalar(advantages, mask, 0) + 0.1
        # The group without a failure is untouched.
        assert torch.equal(advantages[4:], verl[4:])


def test_a_group_left_with_fewer_than_two_outcomes_contributes_nothing():
    members = [("one", 1.0), ("one", None), ("one", None), ("none", None), ("none", None), ("full", 1.0), ("full", 0.0), ("alone", 3.0)]
    rewards, mask, index = batch(members, 4)
    advantages = ours(rewards, mask, index)
    assert not advantages[:5].any(), "one outcome has nothing to be compared with, and no outcome nothing at all"
    verl, _ = compute_grpo_outcome_advantage(rewards.clone(), mask, index)
    assert scalar(verl, mask, 0) != 0.0, "Verl's GRPO would have given the lone outcome an advantage"
    # A group of one without a failure keeps Verl's number (its score, as Verl's GRPO has it).
    assert torch.equal(advantages[5:], verl[5:])
    assert scalar(advantages, mask, 7) == pytest.approx(3.0, rel=1e-5)


def test_drop_group_zeroes_every_member_of_a_group_with_a_failure():
    members = [("t", 1.0), ("t", 0.5), ("t", 0.0), ("t", None), ("u", 1.0), ("u", 0.0), ("u", 0.25)]
    rewards, mask, index = batch(members, 8)
    dropped = ours(rewards, mask, index, failed_members="drop_group")
    assert not dropped[:4].any()
    excluded = ours(rewards, mask, index, failed_members="exclude")
    assert excluded[:3].any(), "the exclude rule keeps the group's three outcomes"
    verl, _ = compute_grpo_outcome_advantage(rewards.clone(), mask, index)
    assert torch.equal(dropped[4:], verl[4:]) and torch.equal(excluded[4:], verl[4:])


def test_advantages_stay_zero_where_the_mask_is_zero():
    rewards, mask, index = batch([("a", 1.0), ("a", 0.0), ("a", None), ("b", 0.5), ("b", 0.25)], 16, seed=3)
    advantages = ours(rewards, mask, index)
    assert not advantages[mask == 0].any()
    assert advantages[mask == 1].any()


def test_refuses_an_unknown_failed_members_rule():
    rewards, mask, index = batch([("a", 1.0), ("a", 0.0)], 2)
    with pytest.raises(ValueError, match="failed_members"):
        ours(rewards, mask, index, failed_members="ignore")


def test_importing_verl_with_gp_trains_environment_registers_it():
    """What ``gp train`` sets for the trainer (server/src/trainer/trainRun.ts): every process that
    imports Verl, the one computing advantages included, has the estimator registered."""
    package_root = os.path.join(os.path.dirname(__file__), "..")
    env = {**os.environ, "PYTHONPATH": package_root, "VERL_USE_EXTERNAL_MODULES": "graph_planner_verl.real_outcome_grpo"}
    script = "import verl\nfrom verl.trainer.ppo.core_algos import ADV_ESTIMATOR_REGISTRY\nprint(ADV_ESTIMATOR_REGISTRY['grpo_real_outcomes'].__module__)"
    ran = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert ran.stdout.strip().endswith("graph_planner_verl.real_outcome_grpo")


def test_the_shared_cases_are_what_the_estimator_computes():
    """test/fixtures/grpo-real-outcomes/cases.json, which the group view's tests read, is still
    what the estimator gives; rewrite it with real_outcome_cases.py after a deliberate change."""
    import json

    from real_outcome_cases import FIXTURE, cases

    assert json.loads((FIXTURE / "cases.json").read_text()) == cases()
