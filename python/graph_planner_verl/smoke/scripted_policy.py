"""The smoke run's stand-in for Verl's LLM server: it answers ``generate`` with the rule agent's
reply for the episode (served by the environment service of a smoke run), tokenised and ended
with the end-of-turn token as a model's output would be. Verl's own CPU tests replace the server
the same way; everything around it (dataset, agent-loop worker, advantages, update) is Verl's.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from verl.workers.rollout.replica import TokenOutput

from ..service_client import EnvServiceClient
from .recorded_tokens import Sampled


class ScriptedPolicyClient:
    def __init__(self, client: EnvServiceClient, tokenizer: Any):
        self.client = client
        self.tokenizer = tokenizer
        self.replies: dict[str, list[str]] = defaultdict(list)
        # Each episode's prompts and replies as token ids, for recorded_tokens.py's check.
        self.sampled: dict[str, list[Sampled]] = defaultdict(list)
        self.calls = 0

    async def generate(self, request_id: str, *, prompt_ids: list[int], sampling_params: dict[str, Any], **_: Any) -> TokenOutput:
        # Our agent loop uses the episode id as the request id (sticky sessions on a real server).
        reply = await self.client.policy(request_id)
        self.calls += 1
        self.replies[request_id].append(reply)
        token_ids = self.tokenizer.encode(reply, add_special_tokens=False) + [self.tokenizer.eos_token_id]
        self.sampled[request_id].append(Sampled(prompt_ids=list(prompt_ids), token_ids=list(token_ids), log_probs=None))
        return TokenOutput(token_ids=token_ids, log_probs=None, stop_reason="completed", num_preempted=0)
