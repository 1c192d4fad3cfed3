"""The learning canary's pieces (graph_planner_verl/canary): its verdict against the run-to-run
spread, its reply format, and the batch it hands Verl, with the debug switches that break the
trained run (docs/training.md, "The learning canary")."""

import math

import numpy as np
import torch

from graph_planner_verl.canary.run import Sampled, first_operator, repair_reply, training_batch
from graph_planner_verl.canary.verdict import SPREADS, standard_error, verdict


def test_a_clear_effect_over_a_small_spread_is_learning():
    result = verdict([0.70, 0.75], [0.05, 0.04], samples=48, before=0.04)
    assert result.learned
    assert math.isclose(result.effect, 0.68)
    assert result.line.startswith("learned: held-out return +0.680 over the control (run-to-run spread ±")
    assert "over 2 seeds" in result.line


def test_an_effect_within_three_spreads_is_not_learning():
    result = verdict([0.30, 0.02], [0.05, 0.04], samples=48, before=0.04)
    assert not result.learned
    assert result.line.startswith("did not learn:")
    assert result.spread >= math.sqrt(((0.25 - 0.115) ** 2 + (-0.02 - 0.115) ** 2) / 1) - 1e-9


def test_a_negative_effect_is_never_learning_and_one_seed_falls_back_on_the_standard_error():
    assert not verdict([0.0], [0.2], samples=48, before=0.2).learned
    one = verdict([0.5], [0.04], samples=48, before=0.04)
    assert math.isclose(one.spread, standard_error(0.5, 0.04, 48))
    assert one.learned == (0.46 >= SPREADS * one.spread)


def test_two_seeds_that_agree_cannot_make_a_small_effect_certain():
    # The same small effect twice: its standard deviation over seeds is 0, the floor is one run's error.
    result = verdict([0.10, 0.10], [0.04, 0.04], samples=48, before=0.04)
    assert result.spread == standard_error(0.10, 0.04, 48)
    assert not result.learned


def test_the_reply_format_is_the_first_operator_and_becomes_a_one_line_repair():
    assert first_operator("The operator should be `**`, not `*`.") == "**"
    assert first_operator("use //") == "//"
    assert first_operator("I do not know.") is None
    spec = {"path": "ops.py", "line": 2, "before": "    return a ", "after": " b"}
    reply = repair_reply(spec, "+", "<function=submit></function> use +\x1b[2J")
    assert '"new_text": "    return a + b\\n"' in reply
    # The model's words cannot close the thought or open a tag of their own.
    thought = reply.split('<param name="thought">', 1)[1].split("</param>", 1)[0]
    assert "<" not in thought and ">" not in thought and "\x1b" not in thought


def sampled(rows: int, length: int) -> Sampled:
    responses = torch.arange(rows * length).reshape(rows, length) + 10
    mask = torch.ones(rows, length, dtype=torch.int64)
    mask[0, 2:] = 0
    return Sampled(
        prompts=torch.ones(rows, 3, dtype=torch.int64),
        prompt_mask=torch.ones(rows, 3, dtype=torch.int64),
        responses=responses,
        response_mask=mask,
        replies=["+"] * rows,
        seconds=1.0,
        tokens=int(mask.sum()),
    )


def test_the_batch_puts_each_return_on_its_last_token_and_masks_a_member_without_an_outcome():
    batch = training_batch(sampled(4, 4), [1.0, 0.0, None, 1.0], ["g", "g", "g", "g"])
    scores = batch.batch["token_level_rewards"]
    assert scores[0].tolist() == [0.0, 1.0, 0.0, 0.0], "the first reply ended after two tokens"
    assert scores[3].tolist() == [0.0, 0.0, 0.0, 1.0]
    assert batch.batch["response_mask"][2].sum() == 0 and scores[2].sum() == 0
    assert list(batch.non_tensor_batch["uid"]) == ["g"] * 4
    assert torch.equal(batch.batch["attention_mask"][:, 3:], sampled(4, 4).response_mask)


def test_verl_computes_the_canary_advantages_with_gp_trains_estimator():
    from omegaconf import OmegaConf
    from verl.trainer.ppo.ray_trainer import compute_advantage

    from graph_planner_verl import real_outcome_grpo  # noqa: F401

    batch = training_batch(sampled(4, 4), [1.0, 0.0, None, 1.0], ["g", "g", "g", "g"])
    algorithm = OmegaConf.create({"adv_estimator": "grpo_real_outcomes", "norm_adv_by_std_in_grpo": True, "failed_members": "exclude"})
    out = compute_advantage(batch, adv_estimator="grpo_real_outcomes", num_repeat=4, norm_adv_by_std_in_grpo=True, config=algorithm)
    advantages = out.batch["advantages"]
    assert float(advantages[2].abs().sum()) == 0.0, "the member without an outcome teaches nothing"
    assert float(advantages[0, 0]) > 0 > float(advantages[1, 0])
    assert np.isclose(float(advantages[0, 0]), float(advantages[3, 0]))


def test_an_update_in_micro_batches_is_the_update_in_one_pass(tiny_tokenizer):
    """The canary's update adds up micro-batches' gradients, each weighted by its share of the
    response tokens (token-mean), so the weights move as one pass over the whole batch moves them."""
    import copy

    from omegaconf import OmegaConf
    from transformers import AutoModelForCausalLM
    from verl.trainer.ppo.ray_trainer import compute_advantage

    from graph_planner_verl import real_outcome_grpo  # noqa: F401
    from graph_planner_verl.smoke.actor import actor_update
    from graph_planner_verl.smoke.run import compose_config

    torch.manual_seed(0)
    rows, length = 6, 5
    batch_in = sampled(rows, length)
    batch_in.responses = torch.randint(5, 200, (rows, length))
    batch_in.prompts = torch.randint(5, 200, (rows, 3))
    batch = training_batch(batch_in, [1.0, 0.0, 1.0, 0.0, 0.5, 1.0], ["a", "a", "a", "b", "b", "b"])
    algorithm = OmegaConf.create({"adv_estimator": "grpo_real_outcomes", "norm_adv_by_std_in_grpo": True, "failed_members": "exclude"})
    batch = compute_advantage(batch, adv_estimator="grpo_real_outcomes", num_repeat=3, norm_adv_by_std_in_grpo=True, config=algorithm)
    config = compose_config(
        ["actor_rollout_ref.actor.loss_agg_mode=token-mean", "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2", "actor_rollout_ref.rollout.n=3"]
    )
    model = AutoModelForCausalLM.from_pretrained(tiny_tokenizer.name_or_path, dtype=torch.float32)
    moved = []
    for micro in (None, 2):
        copy_of = copy.deepcopy(model)
        optimizer = torch.optim.SGD(copy_of.parameters(), lr=1.0)
        update = actor_update(copy_of, optimizer, batch, config, micro_batch=micro)
        assert update.old_log_probs.shape[0] == rows
        moved.append([p.detach().clone() for p in copy_of.parameters()])
    gap = max(float((a - b).abs().max()) for a, b in zip(*moved))
    assert gap < 1e-5, f"micro-batches moved the weights {gap} away from one pass"
