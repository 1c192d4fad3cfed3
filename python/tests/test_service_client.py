"""The environment-service client against a loopback TEST PEER (aiohttp), not the real service:
the TypeScript integration tests drive the real one. The peer answers as the service's protocol
says (server/src/protocol/envService.ts) and lets a test inject 429s, 5xx and dropped connections."""

import json
import os
import stat

import pytest
from aiohttp import web

from conftest import start_test_peer
from graph_planner_verl.service_client import EnvServiceClient, ServiceAddress, ServiceError

TOKEN = "test-token"


class Peer:
    def __init__(self):
        self.hits = []
        self.faults = []  # (path, status) answered once each, in order

    async def handle(self, request):
        body = await request.json() if request.can_read_body else None
        self.hits.append((request.method, request.path, body, request.headers.get("Authorization")))
        if request.headers.get("Authorization") != f"Bearer {TOKEN}":
            return web.json_response({"error": {"code": "unauthorised", "message": "send the token"}}, status=401)
        for i, (path, status) in enumerate(self.faults):
            if request.path == path:
                del self.faults[i]
                if status == "drop":
                    request.transport.close()
                    return web.Response()
                headers = {"Retry-After": "0"} if status == 429 else {}
                return web.json_response({"error": {"code": f"fault-{status}", "message": "injected"}}, status=status, headers=headers)
        if request.path == "/episodes":
            return web.json_response({"episode_id": f"{body['task_id']}-1", "system_prompt": "sys", "observation": "obs", "max_steps": 4, "deadline": 0})
        if request.path.endswith("/step"):
            if body["turn"] != 1:
                return web.json_response({"error": {"code": "wrong-turn", "message": "expects turn 1"}}, status=409)
            return web.json_response({"turn": 1, "observation": "next", "reward": 0, "done": False})
        return web.json_response({"error": {"code": "no-such-route", "message": request.path}}, status=404)


@pytest.fixture
async def peer():
    state = Peer()
    runner, state.url = await start_test_peer(state.handle)
    yield state
    await runner.cleanup()


def client_for(peer, token=TOKEN, **kwargs):
    return EnvServiceClient(ServiceAddress(peer.url, token), backoff_s=0.01, **kwargs)


async def test_creates_and_steps_with_the_bearer_token(peer):
    client = client_for(peer)
    created = await client.create("key-1", "task-a", "group-1")
    assert created.episode_id == "task-a-1"
    assert (await client.step("task-a-1", 1, "<function=submit>\n</function>")).observation == "next"
    method, path, body, auth = peer.hits[0]
    assert (method, path, body, auth) == ("POST", "/episodes", {"client_key": "key-1", "task_id": "task-a", "group_id": "group-1"}, f"Bearer {TOKEN}")


async def test_retries_a_dropped_connection_and_a_5xx_with_the_same_body(peer):
    peer.faults = [("/episodes", "drop"), ("/episodes", 503)]
    created = await client_for(peer).create("key-2", "task-b", None)
    assert created.episode_id == "task-b-1"
    bodies = [hit[2] for hit in peer.hits]
    assert len(bodies) == 3 and all(b == {"client_key": "key-2", "task_id": "task-b"} for b in bodies)


async def test_waits_on_429_without_spending_its_failure_budget(peer):
    peer.faults = [("/episodes", 429)] * 5
    created = await client_for(peer, attempts=2).create("key-3", "task-c", None)
    assert created.episode_id == "task-c-1"
    assert len(peer.hits) == 6


async def test_a_refusal_the_client_caused_is_raised_at_once(peer):
    client = client_for(peer)
    with pytest.raises(ServiceError) as refused:
        await client.step("task-a-1", 2, "reply")
    assert refused.value.status == 409 and refused.value.code == "wrong-turn"
    assert len(peer.hits) == 1


async def test_a_wrong_token_is_refused_not_retried(peer):
    with pytest.raises(ServiceError) as refused:
        await client_for(peer, token="wrong").create("k", "t", None)
    assert refused.value.status == 401
    assert len(peer.hits) == 1


async def test_gives_up_after_its_attempts_when_nothing_answers():
    client = EnvServiceClient(ServiceAddress("http://127.0.0.1:9", TOKEN), attempts=2, backoff_s=0.01)
    with pytest.raises(ServiceError) as failed:
        await client.create("k", "t", None)
    assert failed.value.code == "unreachable" and "127.0.0.1:9" in str(failed.value)


def test_reads_the_service_file_and_refuses_one_others_can_read(tmp_path):
    path = tmp_path / "env_service.json"
    path.write_text(json.dumps({"url": "http://127.0.0.1:1234/", "token": "t", "pid": 1}))
    os.chmod(path, 0o600)
    assert ServiceAddress.from_file(str(path)) == ServiceAddress("http://127.0.0.1:1234", "t")
    os.chmod(path, 0o644)
    with pytest.raises(ServiceError) as refused:
        ServiceAddress.from_file(str(path))
    assert refused.value.code == "service-file-too-open"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o644


def test_names_the_variable_to_set_when_no_file_is_given(monkeypatch):
    monkeypatch.delenv("GP_ENV_SERVICE_FILE", raising=False)
    with pytest.raises(ServiceError) as missing:
        ServiceAddress.from_file()
    assert "GP_ENV_SERVICE_FILE" in str(missing.value)
