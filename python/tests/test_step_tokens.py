"""What a step sends of the policy's tokens (step_tokens.py): the first prompt whole, each later one as a
change to the turn before that reads back into the very prompt, log-probabilities only as JSON can
carry them, and bodies that grow with the turns, not their square (docs/trainer-bridge.md#tokens)."""

import json
import random
import struct

from verl.utils.tokenizer.continuous_token_wiring import create_continuous_token_builder

from graph_planner_verl.step_tokens import StepTokens, common_prefix, whole_prompts
from graph_planner_verl.token_trace import TokenTrace


def test_the_first_prompt_goes_whole_and_later_ones_as_changes_that_read_back():
    tokens = StepTokens()
    first = tokens.body([1, 2, 3], [7, 8], [-0.5, -0.25])
    assert first == {"prompt_token_ids": [1, 2, 3], "completion_token_ids": [7, 8], "logprobs": [-0.5, -0.25]}
    second = tokens.body([1, 2, 3, 7, 8, 9, 10], [11])
    assert second == {"prompt_delta": {"kept": 5, "token_ids": [9, 10]}, "completion_token_ids": [11]}
    # A template that rewrites the end of the previous turn: one token of it dropped, two added.
    third = tokens.body([1, 2, 3, 7, 8, 9, 10, 12, 13], [14])
    assert third["prompt_delta"] == {"kept": 7, "token_ids": [12, 13]}
    fourth = tokens.body([1, 2, 3, 7, 8, 9, 10, 12, 99, 15], [16])
    assert fourth["prompt_delta"] == {"kept": 8, "token_ids": [99, 15]}
    # A prompt that shares nothing with the turn before goes whole again.
    fifth = tokens.body([42, 43], [44])
    assert fifth["prompt_token_ids"] == [42, 43] and "prompt_delta" not in fifth
    bodies = [first, second, third, fourth, fifth]
    assert whole_prompts(bodies) == [[1, 2, 3], [1, 2, 3, 7, 8, 9, 10], [1, 2, 3, 7, 8, 9, 10, 12, 13], [1, 2, 3, 7, 8, 9, 10, 12, 99, 15], [42, 43]]


def test_a_change_after_a_step_without_tokens_is_not_read_back():
    assert whole_prompts(
        [{"prompt_token_ids": [1], "completion_token_ids": [2]}, None, {"prompt_delta": {"kept": 1, "token_ids": [3]}, "completion_token_ids": [4]}]
    ) == [[1], None, None]
    assert whole_prompts(
        [{"prompt_token_ids": [1], "completion_token_ids": [2]}, {"prompt_delta": {"kept": 3, "token_ids": [3]}, "completion_token_ids": [4]}]
    ) == [[1], None]


def test_log_probabilities_json_cannot_carry_or_that_do_not_match_the_tokens_are_left_out():
    assert "logprobs" not in StepTokens().body([1], [2, 3], [-0.1, float("nan")])
    assert "logprobs" not in StepTokens().body([1], [2, 3], [-0.1, float("-inf")])
    assert "logprobs" not in StepTokens().body([1], [2, 3], [-0.1])
    assert "logprobs" not in StepTokens().body([1], [2, 3], None)
    body = StepTokens().body([1], [2, 3], [-0.1, -2.0])
    json.dumps(body, allow_nan=False)
    assert body["logprobs"] == [-0.1, -2.0]


def test_common_prefix():
    assert common_prefix([1, 2, 3], [1, 2, 3, 4]) == 3
    assert common_prefix([1, 2, 3], [1, 9, 3]) == 1
    assert common_prefix([], [1]) == 0
    assert common_prefix([5], [6]) == 0


def test_with_verls_builder_every_prompt_the_model_saw_reads_back_exactly(tiny_tokenizer):
    builder = create_continuous_token_builder(tiny_tokenizer, hf_model_type="qwen2")
    trace = TokenTrace(builder, tiny_tokenizer, prompt_limit=4096, response_limit=4096)
    trace.start([{"role": "system", "content": "You fix bugs."}, {"role": "user", "content": "Issue: add is wrong."}])
    tokens, seen, bodies = StepTokens(), [], []
    for turn in range(4):
        prompt = list(trace.token_ids)
        seen.append(prompt)
        completion = tiny_tokenizer.encode(f"<function=explore>\n<parameter=op>find {turn}</parameter>\n</function>", add_special_tokens=False) + [
            tiny_tokenizer.eos_token_id
        ]
        trace.add_reply(completion)
        bodies.append(tokens.body(prompt, completion))
        trace.add_observation(f"Found {turn} places in calc.py.")
    assert "prompt_token_ids" in bodies[0] and all("prompt_delta" in b for b in bodies[1:])
    assert whole_prompts(bodies) == seen


def _episode_bytes(turns: int, *, first: int = 2048, completion: int = 160, observation: int = 328):
    """The JSON bytes (as the client sends them) of one episode's step tokens, sent as changes and
    sent whole: Qwen-sized token ids, float32 log-probabilities as Python floats."""
    rng = random.Random(0)
    vocabulary = 151_643

    def as_float32(x):
        return struct.unpack("f", struct.pack("f", x))[0]

    prompt = [rng.randrange(vocabulary) for _ in range(first)]
    sender = StepTokens()
    changes = whole = 0
    for _ in range(turns):
        reply = [rng.randrange(vocabulary) for _ in range(completion)]
        logprobs = [as_float32(-rng.expovariate(2.0)) for _ in reply]
        changes += len(json.dumps(sender.body(prompt, reply, logprobs), separators=(",", ":")))
        whole += len(json.dumps({"prompt_token_ids": prompt, "completion_token_ids": reply, "logprobs": logprobs}, separators=(",", ":")))
        prompt = prompt + reply + [rng.randrange(vocabulary) for _ in range(observation)]
    return {"changes": changes, "whole": whole, "last_prompt": len(prompt) - completion - observation}


def test_a_30_turn_episode_that_fills_a_16k_context_sends_its_prompts_in_linear_not_quadratic_bytes():
    half, full = _episode_bytes(15), _episode_bytes(30)
    assert 16_000 <= full["last_prompt"] <= 16_384, full
    # Whole prompts: twice the turns, about four times the bytes; as changes, about twice.
    assert full["whole"] / half["whole"] > 3.0, (half, full)
    assert full["changes"] / half["changes"] < 2.2, (half, full)
    assert full["changes"] * 8 < full["whole"], full
