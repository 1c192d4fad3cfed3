"""Token bookkeeping of one episode with Verl's own continuous-token builder and the tiny tokenizer."""

import pytest
from verl.utils.tokenizer.continuous_token_wiring import create_continuous_token_builder

from graph_planner_verl.token_trace import PromptTooLong, TokenTrace

REPLIES = [
    "<function=explore>\n<parameter=op>find</parameter>\n<parameter=query>parse_args</parameter>\n</function>",
    "Thinking aloud, then:\n<function=submit>\n</function>",
]
OBSERVATION = "Step 1: found 3 nodes.\n- cli.py:10 parse_args (function)\n"


def trace_for(tokenizer, prompt_limit=4096, response_limit=4096):
    builder = create_continuous_token_builder(tokenizer, hf_model_type="qwen2")
    return TokenTrace(builder, tokenizer, prompt_limit=prompt_limit, response_limit=response_limit)


def reply_tokens(tokenizer, text):
    # A model's reply ends with its end-of-turn token, which the server returns with the text.
    return tokenizer.encode(text, add_special_tokens=False) + [tokenizer.eos_token_id]


def run_episode(tokenizer, trace):
    trace.start([{"role": "system", "content": "You fix bugs."}, {"role": "user", "content": "The first observation."}])
    trace.add_reply(reply_tokens(tokenizer, REPLIES[0]))
    trace.add_observation(OBSERVATION)
    trace.add_reply(reply_tokens(tokenizer, REPLIES[1]))
    return trace


def test_mask_one_tokens_decode_exactly_to_the_model_replies(tiny_tokenizer):
    trace = run_episode(tiny_tokenizer, trace_for(tiny_tokenizer))
    model_tokens = [t for t, m in zip(trace.response_ids, trace.response_mask) if m == 1]
    assert tiny_tokenizer.decode(model_tokens, skip_special_tokens=True) == "".join(REPLIES)
    assert trace.replies == REPLIES


def test_the_observation_and_chat_boundaries_carry_mask_zero(tiny_tokenizer):
    trace = run_episode(tiny_tokenizer, trace_for(tiny_tokenizer))
    env_tokens = [t for t, m in zip(trace.response_ids, trace.response_mask) if m == 0]
    text = tiny_tokenizer.decode(env_tokens, skip_special_tokens=False)
    assert OBSERVATION in text
    assert "<|im_start|>user" in text and "<|im_start|>assistant" in text
    assert REPLIES[0] not in text, "the assistant reply was re-tokenised into the mask-0 span"


def test_prompt_and_response_cover_the_whole_conversation(tiny_tokenizer):
    trace = run_episode(tiny_tokenizer, trace_for(tiny_tokenizer))
    assert len(trace.response_ids) == len(trace.response_mask)
    whole = tiny_tokenizer.apply_chat_template(trace.messages, tokenize=False)
    rendered = tiny_tokenizer.decode(trace.prompt_ids + trace.response_ids, skip_special_tokens=False)
    # The rendered conversation ends with the last assistant turn's end token and newline;
    # the token stream stops at the end token the model produced.
    assert whole.startswith(rendered)
    assert whole[len(rendered) :] in ("", "\n")


def test_an_over_long_first_prompt_is_refused_not_truncated(tiny_tokenizer):
    trace = trace_for(tiny_tokenizer, prompt_limit=16)
    with pytest.raises(PromptTooLong) as refused:
        trace.start([{"role": "user", "content": "word " * 200}])
    assert refused.value.limit == 16 and refused.value.tokens > 16
    assert "max_input_tokens" in str(refused.value)
    assert trace.token_ids == []


def test_the_response_budget_is_reported_spent(tiny_tokenizer):
    trace = trace_for(tiny_tokenizer, response_limit=10)
    trace.start([{"role": "user", "content": "hi"}])
    assert not trace.exhausted
    trace.add_reply(reply_tokens(tiny_tokenizer, REPLIES[0]))
    assert trace.exhausted


def test_log_probs_follow_the_mask(tiny_tokenizer):
    trace = trace_for(tiny_tokenizer)
    trace.start([{"role": "user", "content": "hi"}])
    tokens = reply_tokens(tiny_tokenizer, REPLIES[0])
    trace.add_reply(tokens, [-0.5] * len(tokens))
    trace.add_observation(OBSERVATION)
    assert len(trace.response_logprobs) == len(trace.response_mask)
    assert all(lp == -0.5 for lp, m in zip(trace.response_logprobs, trace.response_mask) if m == 1)
