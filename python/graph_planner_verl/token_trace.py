"""One episode's conversation as Verl's continuous token stream, with its response mask.

Model tokens carry mask 1; everything the template or the environment adds (chat boundaries,
observations) carries mask 0. The message list is snapshotted *after* the assistant turn is
appended and before the observation is merged, or the reply would be re-tokenised into the mask-0
span (docs/trainer-bridge.md#pitfalls). The builder is Verl's own (``create_continuous_token_builder``),
so the tokens match what Verl's trainer sees.
"""

from __future__ import annotations

from typing import Any, Optional


class PromptTooLong(Exception):
    """The first prompt does not fit ``rollout.prompt_length``: refused, because Verl would cut its start silently."""

    def __init__(self, tokens: int, limit: int):
        super().__init__(
            f"the first prompt is {tokens} tokens, more than rollout.prompt_length={limit}; "
            "raise planner_sampling.max_input_tokens or shorten the task's observation"
        )
        self.tokens = tokens
        self.limit = limit


class TokenTrace:
    def __init__(self, builder: Any, tokenizer: Any, *, prompt_limit: int, response_limit: int):
        self.builder = builder
        self.tokenizer = tokenizer
        self.prompt_limit = prompt_limit
        self.response_limit = response_limit
        self.messages: list[dict[str, Any]] = []
        self.token_ids: list[int] = []
        self.response_mask: list[int] = []
        self.response_logprobs: Optional[list[float]] = None
        self.replies: list[str] = []

    def start(self, messages: list[dict[str, Any]]) -> list[int]:
        self.messages = [dict(m) for m in messages]
        tokens = list(self.builder.build_initial_tokens(self.messages))
        if len(tokens) > self.prompt_limit:
            raise PromptTooLong(len(tokens), self.prompt_limit)
        self.token_ids = tokens
        return tokens

    def add_reply(self, token_ids: list[int], logprobs: Optional[list[float]] = None) -> str:
        """Appends the model's tokens (mask 1) and the assistant message; returns the reply text."""
        keep_logprobs = self.response_logprobs is not None or bool(logprobs)
        merged = self.builder.merge_assistant_tokens(self.token_ids, list(token_ids))
        mask, aligned = self.builder.align_response_metadata(
            merged,
            self.response_mask,
            (self.response_logprobs or [0.0] * len(self.response_mask)) if keep_logprobs else None,
            assistant_logprobs=list(logprobs) if logprobs else None,
        )
        self.token_ids = merged.token_ids
        self.response_mask = mask
        if keep_logprobs:
            self.response_logprobs = aligned
        text = self.tokenizer.decode(token_ids, skip_special_tokens=True)
        self.messages.append({"role": "assistant", "content": text})
        self.replies.append(text)
        return text

    def add_observation(self, text: str) -> None:
        """Merges the environment's answer as a user turn (mask 0), up to the next generation prompt."""
        previous = list(self.messages)
        self.messages.append({"role": "user", "content": text})
        merged = self.builder.merge_context_tokens(previous, self.messages, self.token_ids)
        mask, aligned = self.builder.align_response_metadata(merged, self.response_mask, self.response_logprobs)
        self.token_ids = merged.token_ids
        self.response_mask = mask
        if self.response_logprobs is not None:
            self.response_logprobs = aligned

    @property
    def exhausted(self) -> bool:
        """The response budget (``rollout.response_length``) is spent: no room for another turn."""
        return len(self.response_mask) >= self.response_limit

    @property
    def prompt_ids(self) -> list[int]:
        return self.token_ids[: len(self.token_ids) - len(self.response_mask)]

    @property
    def response_ids(self) -> list[int]:
        return self.token_ids[len(self.token_ids) - len(self.response_mask) :] if self.response_mask else []
