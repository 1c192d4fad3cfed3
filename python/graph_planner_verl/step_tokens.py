"""What each step sends of the policy's tokens (``tokens`` of the step body, declared in
server/src/protocol/runs.ts as ``stepTokensSchema``): the prompt the model saw, the tokens it
sampled and their log-probabilities, which the environment service records into the step, where
they become ATIF's ``prompt_token_ids``, ``completion_token_ids`` and ``logprobs``.

The first turn's prompt goes whole; each later one as a change to the previous turn's prompt and
completion (``prompt_delta``: how many of their tokens it keeps, then the new ones). A chat's prompt
grows by a reply and an observation every turn, so whole prompts would make an episode's bodies,
and its trajectory, grow with the square of its turns: measured in docs/trainer-bridge.md#tokens,
a 30-turn episode that fills a 16k-token context sends about 1.7 MB of prompt ids whole and about
0.1 MB as changes. ``kept`` is usually the whole previous context, less when the chat template
rewrites the end of a turn (Verl's continuous-token builders may drop tokens at the junction).
``whole_prompts`` reads the prompts back, as the server's ``episodes/promptTokens.ts`` does.
"""

from __future__ import annotations

import logging
import math
from typing import Any, Optional, Sequence

logger = logging.getLogger(__name__)


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """How many tokens ``a`` and ``b`` share from their start."""
    n = min(len(a), len(b))
    # The usual case, an untouched prefix, is one list comparison in C.
    if list(a[:n]) == list(b[:n]):
        return n
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


class StepTokens:
    """Builds each turn's ``tokens`` in order; one object per episode."""

    def __init__(self) -> None:
        self.context: Optional[list[int]] = None

    def body(self, prompt_ids: Sequence[int], completion_ids: Sequence[int], logprobs: Optional[Sequence[float]] = None) -> dict[str, Any]:
        prompt = [int(t) for t in prompt_ids]
        completion = [int(t) for t in completion_ids]
        tokens: dict[str, Any] = {"completion_token_ids": completion}
        kept = common_prefix(self.context, prompt) if self.context is not None else 0
        if kept > 0:
            tokens["prompt_delta"] = {"kept": kept, "token_ids": prompt[kept:]}
        else:
            tokens["prompt_token_ids"] = prompt
        usable = _usable_logprobs(logprobs, len(completion))
        if usable is not None:
            tokens["logprobs"] = usable
        self.context = prompt + completion
        return tokens


def _usable_logprobs(logprobs: Optional[Sequence[float]], count: int) -> Optional[list[float]]:
    """The log-probabilities as JSON can carry them, or None: one per completion token, each finite
    (JSON has no NaN or infinity, and a body that holds one would be refused whole)."""
    if logprobs is None:
        return None
    values = [float(v) for v in logprobs]
    if len(values) != count:
        logger.warning("the rollout server returned %d log-probabilities for %d tokens; the step is recorded without them", len(values), count)
        return None
    if not all(math.isfinite(v) for v in values):
        logger.warning("the rollout server returned a log-probability that is not finite; the step is recorded without them")
        return None
    return values


def whole_prompts(steps_tokens: Sequence[Optional[dict[str, Any]]]) -> list[Optional[list[int]]]:
    """Each step's whole prompt from the ``tokens`` its trajectory records (None where not known)."""
    prompts: list[Optional[list[int]]] = []
    context: Optional[list[int]] = None
    for tokens in steps_tokens:
        prompt: Optional[list[int]] = None
        if tokens is not None and tokens.get("prompt_token_ids") is not None:
            prompt = list(tokens["prompt_token_ids"])
        elif tokens is not None and tokens.get("prompt_delta") is not None and context is not None and tokens["prompt_delta"]["kept"] <= len(context):
            prompt = context[: tokens["prompt_delta"]["kept"]] + list(tokens["prompt_delta"]["token_ids"])
        prompts.append(prompt)
        context = prompt + list(tokens["completion_token_ids"]) if prompt is not None and tokens is not None else None
    return prompts
