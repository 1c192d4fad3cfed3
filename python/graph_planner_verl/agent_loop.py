"""Verl's agent loop for Graph Planner: each sample is one episode of the environment service.

The loop builds the conversation from the service's system prompt and first observation, asks
Verl's LLM server for a reply, sends the reply's raw text to the service (which parses it, runs
the action in the sandbox and renders the next observation), and repeats until the episode is
done or the response budget is spent. The episode's return, which the service computes from the
graded tests, becomes the sample's reward on its last token.

An episode's failure never raises: one exception would fail Verl's whole step, so the sample
comes back with a zero mask and zero reward and the reason in ``extra_fields``. A service that
does not answer at all is different: the run cannot go on, so that one raises (EnvironmentGone).
"""

from __future__ import annotations

import logging
import os
import time
import uuid
from typing import Any, Optional

from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopMetrics, AgentLoopOutput, register
from verl.utils.profiler import simple_timer

from .service_client import EnvServiceClient, ServiceAddress, ServiceError
from .service_types import CloseReply, CreateEpisodeReply, StepReply
from .step_tokens import StepTokens
from .token_trace import PromptTooLong, TokenTrace

logger = logging.getLogger(__name__)
logger.setLevel(os.getenv("VERL_LOGGING_LEVEL", "WARN"))

_client: Optional[EnvServiceClient] = None


class TimedClient:
    """The service client with the seconds its calls took added up, so a step's time can be split
    into generation and environment (the smoke reports both; Verl's ``tool_calls`` timer covers
    only the steps, not creating and closing the episode)."""

    def __init__(self, client: EnvServiceClient):
        self.client = client
        self.seconds = 0.0

    async def _timed(self, call: Any) -> Any:
        started = time.perf_counter()
        try:
            return await call
        finally:
            self.seconds += time.perf_counter() - started

    async def create(self, *args: Any) -> CreateEpisodeReply:
        return await self._timed(self.client.create(*args))

    async def step(self, *args: Any) -> StepReply:
        return await self._timed(self.client.step(*args))

    async def close(self, *args: Any) -> CloseReply:
        return await self._timed(self.client.close(*args))


class EnvironmentGone(RuntimeError):
    """The environment service does not answer at all: the run cannot go on."""


def service_client() -> EnvServiceClient:
    """One client per process; its HTTP sessions are kept per event loop (service_client.py)."""
    global _client
    if _client is None:
        _client = EnvServiceClient(ServiceAddress.from_file())
    return _client


def task_id_of(kwargs: dict[str, Any]) -> str:
    extra = kwargs.get("extra_info") or {}
    task_id = extra.get("task_id") if isinstance(extra, dict) else None
    if not isinstance(task_id, str) or not task_id:
        raise ServiceError(0, "no-task-id", "the dataset row has no extra_info.task_id; write the training parquet with gp train")
    return task_id


def reward_extra_info(resolved: bool, total_reward: float, steps: int) -> dict[str, float]:
    """Per-sample figures Verl carries into its rollout dumps and validation metrics
    (``val-core/<data_source>/resolved/mean@N``); every sample must have the same keys."""
    return {"resolved": float(resolved), "total_reward": total_reward, "env_steps": float(steps)}


@register("graph_planner")
class GraphPlannerAgentLoop(AgentLoopBase):
    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.prompt_length = self.rollout_config.prompt_length
        self.response_length = self.rollout_config.response_length

    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        client = TimedClient(service_client())
        trace = TokenTrace(self.continuous_token_builder, self.tokenizer, prompt_limit=self.prompt_length, response_limit=self.response_length)
        metrics: dict[str, Any] = {}
        # Verl hands the GRPO group as ``uid``; from here on it is our ``group_id``.
        extra: dict[str, Any] = {"group_id": str(kwargs.get("uid", ""))}
        episode_id: Optional[str] = None
        total_reward = 0.0
        try:
            task_id = task_id_of(kwargs)
            extra["task_id"] = task_id
            created = await client.create(f"{kwargs.get('uid', 'nogroup')}-{uuid.uuid4().hex}", task_id, str(kwargs.get("uid", "")) or None)
            episode_id = created.episode_id
            extra["episode_id"] = episode_id
            messages = [{"role": "system", "content": created.system_prompt}, {"role": "user", "content": created.observation}]
            await self.loop.run_in_executor(None, trace.start, messages)
            closed = await self._episode(client, episode_id, trace, sampling_params, metrics)
            total_reward = closed.total_reward
            extra.update(resolved=closed.resolved, steps=closed.steps, termination_reason=closed.termination_reason, total_reward=total_reward)
            extra["reward_extra_info"] = reward_extra_info(closed.resolved, total_reward, closed.steps)
            extra["env_seconds"] = client.seconds
        except (ServiceError, PromptTooLong) as error:
            if isinstance(error, ServiceError) and error.code == "unreachable":
                # Not one episode's failure: the service (and gp train with it) is gone, so every
                # sample would come back masked and the trainer would train on nothing while
                # looking alive. Failing the step stops it instead.
                raise EnvironmentGone(f"the environment service is unreachable after retries ({error}); has gp train ended?") from error
            return await self._failed(client, episode_id, trace, extra, metrics, error)
        return AgentLoopOutput(
            prompt_ids=trace.prompt_ids,
            response_ids=trace.response_ids[: self.response_length],
            response_mask=trace.response_mask[: self.response_length],
            response_logprobs=trace.response_logprobs[: self.response_length] if trace.response_logprobs else None,
            # Verl's name for the episode's return (AgentLoopOutput.reward_score).
            reward_score=total_reward,
            num_turns=len(trace.messages),
            metrics=AgentLoopMetrics(**metrics),
            extra_fields=extra,
        )

    async def _episode(self, client: TimedClient, episode_id: str, trace: TokenTrace, sampling_params: dict[str, Any], metrics: dict[str, Any]) -> CloseReply:
        turn = 0
        # Each step records the policy's tokens behind its reply (step_tokens.py), for ATIF's export.
        step_tokens = StepTokens()
        while True:
            # A copy: the trace's list is the builder's, and the step must send the prompt as the model saw it.
            prompt_ids = list(trace.token_ids)
            with simple_timer("generate_sequences", metrics):
                output = await self.server_manager.generate(request_id=episode_id, prompt_ids=prompt_ids, sampling_params=sampling_params)
            reply = await self.loop.run_in_executor(None, trace.add_reply, output.token_ids, output.log_probs)
            turn += 1
            if trace.exhausted:
                return await client.close(episode_id, "max_steps")
            tokens = step_tokens.body(prompt_ids, output.token_ids, output.log_probs)
            with simple_timer("tool_calls", metrics):
                answer = await client.step(episode_id, turn, reply, tokens)
            if answer.done:
                return await client.close(episode_id, "max_steps")
            await self.loop.run_in_executor(None, trace.add_observation, answer.observation)
            if trace.exhausted:
                return await client.close(episode_id, "max_steps")

    async def _failed(
        self, client: TimedClient, episode_id: Optional[str], trace: TokenTrace, extra: dict[str, Any], metrics: dict[str, Any], error: Exception
    ) -> AgentLoopOutput:
        """A sample that teaches nothing: every token masked, reward zero, and why in ``extra_fields``."""
        logger.warning("graph_planner episode %s failed: %s", episode_id or "(not created)", error)
        extra["env_failure"] = str(error)
        extra["reward_extra_info"] = reward_extra_info(False, 0.0, 0)
        if episode_id is not None:
            try:
                await client.close(episode_id, "interrupted")
            except ServiceError as close_error:
                extra["env_failure"] += f"; closing it failed too: {close_error}"
        extra["env_seconds"] = client.seconds
        prompt = trace.prompt_ids if trace.token_ids else [self.tokenizer.pad_token_id or 0]
        response = trace.response_ids[: self.response_length] or [self.tokenizer.pad_token_id or 0]
        return AgentLoopOutput(
            prompt_ids=prompt[-self.prompt_length :],
            response_ids=response,
            response_mask=[0] * len(response),
            reward_score=0.0,
            num_turns=len(trace.messages),
            metrics=AgentLoopMetrics(**metrics),
            extra_fields=extra,
        )
