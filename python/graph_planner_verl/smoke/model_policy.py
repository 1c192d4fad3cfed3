"""The smoke run's on-policy LLM client: Verl's agent loop asks it for each reply, and it samples the
reply from the same torch model object the smoke's actor update changes, so a step generates from
the weights the previous step's update left (docs/trainer-bridge.md#smoke).

It keeps Verl's ``generate(request_id, *, prompt_ids, sampling_params) -> TokenOutput`` contract
(the one its LLM server manager offers the agent loop), returns the sampled token ids ending with
the end-of-turn token when the model stopped there, and the log-probability of each sampled token
under the temperature-scaled distribution it was sampled from, which is how Verl's actor computes
log-probabilities (``logits / temperature``), so the two can be compared token by token.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import torch
from verl.workers.rollout.replica import TokenOutput

from .recorded_tokens import Sampled


@dataclass
class Generation:
    """One reply as it was sampled: its context, its tokens and their log-probabilities, and when."""

    prompt_ids: list[int]
    token_ids: list[int]
    log_probs: list[float]
    weights_version: int
    seconds: float


@dataclass
class GenerationTotals:
    calls: int = 0
    tokens: int = 0
    seconds: float = 0.0
    replies: dict[str, list[Generation]] = field(default_factory=lambda: defaultdict(list))


def effective_temperature(sampling_params: dict[str, Any]) -> float:
    """Verl asks for greedy decoding with temperature 0; its log-probabilities are then unscaled."""
    temperature = float(sampling_params.get("temperature", 1.0) or 0.0)
    return temperature if temperature > 0 else 1.0


class ModelPolicyClient:
    def __init__(self, model: Any, tokenizer: Any, *, max_new_tokens: int):
        self.model = model
        self.tokenizer = tokenizer
        self.max_new_tokens = max_new_tokens
        # Bumped by the smoke after every actor update, so each reply records which weights made it.
        self.weights_version = 0
        self.totals = GenerationTotals()
        # One generation at a time: the model is shared with the update, and two CPU generations at
        # once would only split the same cores and blur the per-reply timings.
        self._lock = asyncio.Lock()

    def new_step(self) -> GenerationTotals:
        """Starts a step's tally and returns the previous one."""
        previous, self.totals = self.totals, GenerationTotals()
        return previous

    @property
    def sampled(self) -> dict[str, list[Sampled]]:
        """This step's prompts and replies as token ids, with their log-probabilities, for recorded_tokens.py's check."""
        return {
            episode: [Sampled(prompt_ids=list(g.prompt_ids), token_ids=list(g.token_ids), log_probs=list(g.log_probs)) for g in gens]
            for episode, gens in self.totals.replies.items()
        }

    @property
    def replies(self) -> dict[str, list[str]]:
        """Each episode's replies as text, as the agent loop decodes them (smoke/run.py's checks read this)."""
        return {episode: [self.tokenizer.decode(g.token_ids, skip_special_tokens=True) for g in gens] for episode, gens in self.totals.replies.items()}

    async def generate(self, request_id: str, *, prompt_ids: list[int], sampling_params: dict[str, Any], **_: Any) -> TokenOutput:
        # Our agent loop uses the episode id as the request id (sticky sessions on a real server).
        async with self._lock:
            loop = asyncio.get_running_loop()
            generation = await loop.run_in_executor(None, self._sample, list(prompt_ids), dict(sampling_params))
        self.totals.calls += 1
        self.totals.tokens += len(generation.token_ids)
        self.totals.seconds += generation.seconds
        self.totals.replies[request_id].append(generation)
        stopped = bool(generation.token_ids) and generation.token_ids[-1] == self.tokenizer.eos_token_id
        return TokenOutput(token_ids=generation.token_ids, log_probs=generation.log_probs, stop_reason="completed" if stopped else "length", num_preempted=0)

    def _sample(self, prompt_ids: list[int], sampling_params: dict[str, Any]) -> Generation:
        started = time.perf_counter()
        temperature = float(sampling_params.get("temperature", 1.0) or 0.0)
        top_p = float(sampling_params.get("top_p", 1.0) or 1.0)
        top_k = int(sampling_params.get("top_k", -1) or -1)
        inputs = torch.tensor([prompt_ids], dtype=torch.long)
        was_training = self.model.training
        self.model.eval()
        try:
            with torch.no_grad():
                out = self.model.generate(
                    inputs,
                    attention_mask=torch.ones_like(inputs),
                    max_new_tokens=self.max_new_tokens,
                    do_sample=temperature > 0,
                    temperature=temperature if temperature > 0 else None,
                    top_p=top_p if temperature > 0 else None,
                    top_k=top_k if temperature > 0 and top_k > 0 else 0,
                    eos_token_id=self.tokenizer.eos_token_id,
                    pad_token_id=self.tokenizer.pad_token_id,
                    output_logits=True,
                    return_dict_in_generate=True,
                )
        finally:
            self.model.train(was_training)
        token_ids = out.sequences[0, inputs.shape[1] :].tolist()
        # The raw logits of each generated position, from the same forward passes that sampled the
        # tokens; scaled by the temperature as Verl's actor scales them.
        logits = torch.stack(out.logits, dim=1)[0].float() / effective_temperature(sampling_params)
        chosen = torch.tensor(token_ids, dtype=torch.long)
        log_probs = torch.log_softmax(logits, dim=-1).gather(-1, chosen.unsqueeze(-1)).squeeze(-1).tolist()
        return Generation(
            prompt_ids=prompt_ids, token_ids=token_ids, log_probs=log_probs, weights_version=self.weights_version, seconds=time.perf_counter() - started
        )
