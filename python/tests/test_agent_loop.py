"""Our agent loop's ``run`` with Verl's real continuous-token builder and the tiny tokenizer, against a
loopback TEST PEER of the environment service (aiohttp) and a scripted stand-in for Verl's LLM
server. Verl's worker is left out (the integration test runs it); here the loop's own contract is
checked: tokens and masks, the return on the last token, and failures that never raise."""

import asyncio

import pytest
from aiohttp import web
from verl.utils.tokenizer.continuous_token_wiring import create_continuous_token_builder
from verl.workers.rollout.replica import TokenOutput

from conftest import start_test_peer
from graph_planner_verl import agent_loop
from graph_planner_verl.agent_loop import GraphPlannerAgentLoop
from graph_planner_verl.service_client import EnvServiceClient, ServiceAddress
from graph_planner_verl.step_tokens import whole_prompts

TOKEN = "t"
REPLIES = ["<function=explore>\n<parameter=op>find</parameter>\n</function>", "<function=submit>\n</function>"]


class ServicePeer:
    def __init__(self, fail_step=False):
        self.fail_step = fail_step
        self.calls = []

    async def handle(self, request):
        body = await request.json() if request.can_read_body else {}
        self.calls.append((request.path, body))
        if request.path == "/episodes":
            return web.json_response(
                {"episode_id": "task-a-g1-x", "system_prompt": "You fix bugs.", "observation": "Issue: add is wrong.", "max_steps": 4, "deadline": 0}
            )
        if request.path.endswith("/step"):
            if self.fail_step:
                return web.json_response({"error": {"code": "internal", "message": "sandbox died"}}, status=503)
            done = body["turn"] == 2
            return web.json_response({"turn": body["turn"], "observation": "Found add at calc.py:3.", "reward": 0, "done": done})
        if request.path.endswith("/close"):
            return web.json_response({"episode_id": "task-a-g1-x", "total_reward": 0.75, "resolved": True, "steps": 2, "termination_reason": "submitted"})
        return web.json_response({"error": {"code": "no-such-route", "message": request.path}}, status=404)


class ScriptedServer:
    """Stands in for Verl's LLM server: returns the next reply's tokens with the end-of-turn token."""

    def __init__(self, tokenizer, log_probs=False):
        self.tokenizer = tokenizer
        self.log_probs = log_probs
        self.requests = []
        self.prompts = []
        self.outputs = []

    async def generate(self, request_id, *, prompt_ids, sampling_params, **_):
        self.requests.append((request_id, len(prompt_ids)))
        self.prompts.append(list(prompt_ids))
        text = REPLIES[min(len(self.requests) - 1, len(REPLIES) - 1)]
        token_ids = self.tokenizer.encode(text, add_special_tokens=False) + [self.tokenizer.eos_token_id]
        output = TokenOutput(token_ids=token_ids, log_probs=[-0.125 * (i + 1) for i in range(len(token_ids))] if self.log_probs else None)
        self.outputs.append(output)
        return output


def make_loop(tokenizer, prompt_length=4096, response_length=4096, log_probs=False):
    # The loop's own state, without Verl's worker and its trainer config (see the module docstring).
    loop = GraphPlannerAgentLoop.__new__(GraphPlannerAgentLoop)
    loop.tokenizer = tokenizer
    loop.continuous_token_builder = create_continuous_token_builder(tokenizer, hf_model_type="qwen2")
    loop.prompt_length = prompt_length
    loop.response_length = response_length
    loop.loop = asyncio.get_running_loop()
    loop.server_manager = ScriptedServer(tokenizer, log_probs)
    return loop


@pytest.fixture
async def service(request):
    peer = ServicePeer(**getattr(request, "param", {}))
    runner, url = await start_test_peer(peer.handle)
    agent_loop._client = EnvServiceClient(ServiceAddress(url, TOKEN), attempts=2, backoff_s=0.01)
    yield peer
    agent_loop._client = None
    await runner.cleanup()


KWARGS = {"uid": "g1", "extra_info": {"task_id": "task-a"}, "raw_prompt": [{"role": "user", "content": "placeholder"}]}


async def test_runs_an_episode_and_puts_its_return_on_the_sample(service, tiny_tokenizer):
    loop = make_loop(tiny_tokenizer)
    output = await loop.run({"temperature": 1.0}, **KWARGS)
    assert output.reward_score == 0.75
    model = [t for t, m in zip(output.response_ids, output.response_mask) if m == 1]
    assert tiny_tokenizer.decode(model, skip_special_tokens=True) == "".join(REPLIES)
    assert 0 in output.response_mask, "the observation between the replies is masked"
    assert output.extra_fields["episode_id"] == "task-a-g1-x"
    assert output.extra_fields["resolved"] is True and output.extra_fields["group_id"] == "g1"
    assert output.extra_fields["reward_extra_info"] == {"resolved": 1.0, "total_reward": 0.75, "env_steps": 2.0}
    create = service.calls[0]
    assert create[0] == "/episodes" and create[1]["task_id"] == "task-a" and create[1]["group_id"] == "g1"
    steps = [body for path, body in service.calls if path.endswith("/step")]
    assert [s["reply"] for s in steps] == REPLIES and [s["turn"] for s in steps] == [1, 2]
    # The episode id is the request id, so a real server keeps one episode on one replica.
    assert {rid for rid, _ in loop.server_manager.requests} == {"task-a-g1-x"}
    # Each step carries the tokens behind its reply: the prompt the model saw (whole, then as a
    # change that reads back into it) and the tokens it sampled; no log-probabilities were returned.
    server = loop.server_manager
    assert "prompt_token_ids" in steps[0]["tokens"] and "prompt_delta" in steps[1]["tokens"]
    assert whole_prompts([s["tokens"] for s in steps]) == server.prompts
    assert [s["tokens"]["completion_token_ids"] for s in steps] == [o.token_ids for o in server.outputs]
    assert all("logprobs" not in s["tokens"] for s in steps)


async def test_the_rollout_servers_log_probabilities_go_with_the_tokens(service, tiny_tokenizer):
    loop = make_loop(tiny_tokenizer, log_probs=True)
    output = await loop.run({"temperature": 1.0}, **KWARGS)
    assert output.reward_score == 0.75
    steps = [body for path, body in service.calls if path.endswith("/step")]
    assert [s["tokens"]["logprobs"] for s in steps] == [o.log_probs for o in loop.server_manager.outputs]
    assert [len(s["tokens"]["logprobs"]) for s in steps] == [len(s["tokens"]["completion_token_ids"]) for s in steps]


@pytest.mark.parametrize("service", [{"fail_step": True}], indirect=True)
async def test_an_environment_failure_becomes_a_masked_zero_reward_sample(service, tiny_tokenizer):
    output = await make_loop(tiny_tokenizer).run({}, **KWARGS)
    assert output.reward_score == 0.0
    assert set(output.response_mask) == {0}
    assert "sandbox died" in output.extra_fields["env_failure"]
    assert ("/episodes/task-a-g1-x/close", {"reason": "interrupted"}) in service.calls


async def test_an_over_long_first_prompt_is_refused_and_the_episode_closed(service, tiny_tokenizer):
    output = await make_loop(tiny_tokenizer, prompt_length=8).run({}, **KWARGS)
    assert output.reward_score == 0.0 and set(output.response_mask) == {0}
    assert "rollout.prompt_length=8" in output.extra_fields["env_failure"]
    assert len(output.prompt_ids) <= 8
    assert ("/episodes/task-a-g1-x/close", {"reason": "interrupted"}) in service.calls
    assert not [p for p, _ in service.calls if p.endswith("/step")], "nothing was stepped"


async def test_a_row_without_a_task_id_fails_the_sample_not_the_step(service, tiny_tokenizer):
    output = await make_loop(tiny_tokenizer).run({}, uid="g2", extra_info={})
    assert output.reward_score == 0.0 and "extra_info.task_id" in output.extra_fields["env_failure"]
    assert service.calls == []


async def test_a_service_that_is_gone_stops_the_step_instead_of_masking_every_sample(tiny_tokenizer):
    agent_loop._client = EnvServiceClient(ServiceAddress("http://127.0.0.1:9", TOKEN), attempts=2, backoff_s=0.01)
    try:
        with pytest.raises(agent_loop.EnvironmentGone) as gone:
            await make_loop(tiny_tokenizer).run({}, **KWARGS)
        assert "has gp train ended" in str(gone.value)
    finally:
        agent_loop._client = None
