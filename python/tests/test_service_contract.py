"""The environment service's contract on the Python side (service_types.py, generated from
schemas/env-service.schema.json): against a loopback TEST PEER that answers with a whole body less
one field, or with one field more, every client call fails with a ``ServiceError`` that names the
field, so a field renamed on one side of the bridge fails here rather than in a training run. The
service's side (what it sends fits the same schema) is test/unit/envServiceContract.test.ts."""

import json
import os

import pytest
from aiohttp import web

from conftest import start_test_peer
from graph_planner_verl.service_client import EnvServiceClient, ServiceAddress, ServiceError
from graph_planner_verl.service_types import CloseReply, CreateEpisodeReply, PolicyReply, StepReply

TOKEN = "contract-token"

# One whole reply per call, as the service sends it; each test takes a field away or adds one.
WHOLE = {
    "create": (CreateEpisodeReply, {"episode_id": "t-1", "system_prompt": "sys", "observation": "obs", "max_steps": 4, "deadline": 0}),
    "step": (StepReply, {"turn": 1, "observation": "next", "reward": 0, "done": False, "termination_reason": "submitted", "protocol_error": "no action"}),
    "close": (CloseReply, {"episode_id": "t-1", "total_reward": 0.5, "resolved": True, "steps": 2, "termination_reason": "submitted"}),
    "policy": (PolicyReply, {"reply": "<function=submit>\n</function>"}),
}


def call(client, name):
    return {
        "create": lambda: client.create("k", "t", None),
        "step": lambda: client.step("t-1", 1, "reply"),
        "close": lambda: client.close("t-1"),
        "policy": lambda: client.policy("t-1"),
    }[name]()


@pytest.fixture
async def peer():
    """A peer that answers every request with ``peer.body``."""

    class State:
        body = None

    state = State()

    async def handle(_request):
        return web.json_response(state.body)

    runner, state.url = await start_test_peer(handle)
    yield state
    await runner.cleanup()


def client_for(peer):
    return EnvServiceClient(ServiceAddress(peer.url, TOKEN), attempts=1, backoff_s=0.01)


def test_every_reply_the_client_reads_lists_the_fields_the_service_sends():
    # The bodies above are whole: the models ask for every field they hold, and no other.
    for model, body in WHOLE.values():
        assert set(body) == {field.alias or name for name, field in model.model_fields.items()}, model.__name__
    assert ("close", "total_reward") in required_fields()
    assert {name for name, _ in required_fields()} == set(WHOLE), "every call's reply has a field the next test takes away"


def required_fields():
    """Each call with each field its reply must hold, by the name the service sends it under."""
    return [(name, field.alias or key) for name, (model, _) in WHOLE.items() for key, field in model.model_fields.items() if field.is_required()]


@pytest.mark.parametrize("name,field", required_fields())
async def test_a_reply_missing_a_field_fails_in_the_client_with_the_fields_name(peer, name, field):
    peer.body = {key: value for key, value in WHOLE[name][1].items() if key != field}
    with pytest.raises(ServiceError) as broken:
        await call(client_for(peer), name)
    assert broken.value.code == "unexpected-reply"
    assert f"{field}: Field required" in str(broken.value), str(broken.value)


@pytest.mark.parametrize("name", list(WHOLE))
async def test_a_reply_with_a_field_the_service_does_not_send_fails_with_that_fields_name(peer, name):
    # A renamed optional field reads as one unknown field and one absent: the unknown one is caught.
    peer.body = {**WHOLE[name][1], "episode_return": 0.5}
    with pytest.raises(ServiceError) as broken:
        await call(client_for(peer), name)
    assert "episode_return: Extra inputs are not permitted" in str(broken.value), str(broken.value)


async def test_a_field_of_the_wrong_type_is_refused_not_converted(peer):
    peer.body = {**WHOLE["close"][1], "resolved": "true"}
    with pytest.raises(ServiceError) as broken:
        await call(client_for(peer), "close")
    assert "resolved: Input should be a valid boolean" in str(broken.value)


async def test_a_whole_reply_reads_as_its_model(peer):
    peer.body = WHOLE["close"][1]
    closed = await call(client_for(peer), "close")
    assert (closed.episode_id, closed.total_reward, closed.resolved, closed.steps, closed.termination_reason) == ("t-1", 0.5, True, 2, "submitted")


def test_a_service_file_missing_its_token_names_it(tmp_path):
    path = tmp_path / "env_service.json"
    path.write_text(json.dumps({"url": "http://127.0.0.1:1", "pid": 1}))
    os.chmod(path, 0o600)
    with pytest.raises(ServiceError) as broken:
        ServiceAddress.from_file(str(path))
    assert broken.value.code == "malformed-service-file" and "token: Field required" in str(broken.value)
