"""The environment-service client against a hostile or broken TEST PEER (aiohttp on loopback), not
the real service (issue 21, item 7): whatever comes back (a 200 that is not JSON or not an object,
a reply larger than the cap, an endless reply, bytes that are not UTF-8, a ``Retry-After`` as an
HTTP date or as garbage, a dropped connection), the agent loop gets a ``ServiceError`` and nothing
else, and episode ids travel as one path segment."""

import asyncio
import datetime
import email.utils
import urllib.parse

import pytest
from aiohttp import web

from conftest import start_test_peer
from graph_planner_verl.service_client import EnvServiceClient, ServiceAddress, ServiceError, retry_after_seconds

TOKEN = "test-token"


@pytest.fixture
async def peer():
    """A peer whose next answer a test sets with ``peer.answer = handler``."""

    class State:
        answer = None
        paths = []

    state = State()

    async def handle(request):
        state.paths.append(request.raw_path)
        return await state.answer(request)

    runner, state.url = await start_test_peer(handle)
    yield state
    await runner.cleanup()


def client_for(peer, **kwargs):
    return EnvServiceClient(ServiceAddress(peer.url, TOKEN), backoff_s=0.01, attempts=2, **kwargs)


async def _failure(call):
    with pytest.raises(ServiceError) as caught:
        await call
    return caught.value


async def test_a_200_that_is_not_json_or_not_an_object_is_a_service_error(peer):
    async def not_json(_request):
        return web.Response(status=200, text="<html>proxy login</html>")

    peer.answer = not_json
    error = await _failure(client_for(peer).create("k", "t", None))
    assert error.code == "unexpected-reply" and "not JSON" in str(error)

    async def a_list(_request):
        return web.json_response([1, 2, 3])

    peer.answer = a_list
    error = await _failure(client_for(peer).step("e", 1, "reply"))
    assert error.code == "unexpected-reply" and "list" in str(error)

    async def no_reply_field(_request):
        return web.json_response({"something": "else"})

    peer.answer = no_reply_field
    error = await _failure(client_for(peer).policy("e"))
    assert error.code == "unexpected-reply"


async def test_a_reply_over_the_cap_is_refused_whether_or_not_it_declares_its_length(peer):
    async def declared(_request):
        return web.Response(status=200, body=b"{" + b" " * 5000 + b"}", content_type="application/json")

    peer.answer = declared
    error = await _failure(client_for(peer, max_reply_bytes=1000).create("k", "t", None))
    assert error.code == "reply-too-large"

    async def endless(request):
        response = web.StreamResponse(status=200)
        await response.prepare(request)
        for _ in range(200):
            await response.write(b" " * 1024)
        return response

    peer.answer = endless
    error = await _failure(client_for(peer, max_reply_bytes=64 * 1024).create("k", "t", None))
    assert error.code == "reply-too-large"


async def test_bytes_that_are_not_utf8_and_error_bodies_of_any_shape_are_service_errors(peer):
    async def latin1(_request):
        return web.Response(status=409, body=b"\xff\xfe not utf-8 \x80", content_type="text/plain")

    peer.answer = latin1
    error = await _failure(client_for(peer).step("e", 1, "x"))
    assert error.status == 409 and error.code == "unexpected-reply"

    async def error_not_an_object(_request):
        return web.json_response({"error": "just a string"}, status=400)

    peer.answer = error_not_an_object
    error = await _failure(client_for(peer).close("e"))
    assert error.status == 400 and error.code == "unexpected-reply"


async def test_a_dropped_connection_on_every_attempt_is_a_service_error(peer):
    async def drop(request):
        request.transport.close()
        return web.Response()

    peer.answer = drop
    error = await _failure(client_for(peer).create("k", "t", None))
    assert error.code == "unreachable"


async def test_retry_after_as_seconds_as_an_http_date_or_as_garbage():
    assert retry_after_seconds("7") == 7.0
    assert retry_after_seconds(None) == 5.0
    assert retry_after_seconds("soon") == 5.0
    assert retry_after_seconds("nan") == 5.0
    assert retry_after_seconds("-3") == 0.0
    assert retry_after_seconds("99999") == 300.0
    in_ten = email.utils.format_datetime(datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=10), usegmt=True)
    assert 8.0 <= retry_after_seconds(in_ten) <= 10.0
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0


async def test_a_429_with_an_http_date_waits_and_then_succeeds(peer):
    answers = []

    async def busy_then_ok(request):
        answers.append(1)
        if len(answers) == 1:
            when = email.utils.format_datetime(datetime.datetime.now(datetime.timezone.utc), usegmt=True)
            return web.json_response({"error": {"code": "too-many-episodes", "message": "busy"}}, status=429, headers={"Retry-After": when})
        return web.json_response({"episode_id": "t-1", "system_prompt": "s", "observation": "o", "max_steps": 2, "deadline": 0})

    peer.answer = busy_then_ok
    created = await asyncio.wait_for(client_for(peer).create("k", "t", None), timeout=10)
    assert created.episode_id == "t-1" and len(answers) == 2


async def test_an_episode_id_travels_as_one_path_segment(peer):
    async def ok(_request):
        return web.json_response({"turn": 1, "observation": "o", "reward": 0, "done": False})

    peer.answer = ok
    await client_for(peer).step("a/b?c=%d#e", 1, "x")
    parts = peer.paths[-1].split("/")
    assert parts[0] == "" and parts[1] == "episodes" and parts[3] == "step" and len(parts) == 4, peer.paths[-1]
    assert urllib.parse.unquote(parts[2]) == "a/b?c=%d#e"
