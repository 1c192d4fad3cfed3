"""The environment service's HTTP client (bodies: server/src/protocol/envService.ts).

Verl instantiates one agent-loop object per sample, so the HTTP session is kept per event loop,
not per object. Creating and stepping are idempotent on the server (a client key, a turn number),
so every request is retried on a lost connection or a 5xx; a 429 waits for its ``Retry-After``
(seconds or an HTTP date). A refusal the client caused (4xx) is raised at once: retrying it cannot
help. Every failure, a reply that is not JSON or is larger than ``max_reply_bytes`` included, is a
``ServiceError``: the agent loop has one exception to handle.

Every request is built from, and every reply parsed into, the models of ``service_types.py``, which
``npm run schemas`` generates from the service's zod bodies (schemas/env-service.schema.json): a
reply missing a field, or holding one the service does not send, is a ``ServiceError`` naming the
field, so a field renamed on one side fails the tests instead of a training run.
"""

from __future__ import annotations

import asyncio
import datetime
import email.utils
import json
import os
import stat
import urllib.parse
from dataclasses import dataclass
from typing import Any, Optional, TypeVar

import aiohttp
from pydantic import BaseModel, ValidationError

from .service_types import CloseBody, CloseReply, CreateEpisodeBody, CreateEpisodeReply, ErrorReply, PolicyReply, ServiceFile, StepBody, StepReply

SERVICE_FILE_ENV = "GP_ENV_SERVICE_FILE"

Reply = TypeVar("Reply", bound=BaseModel)


class ServiceError(Exception):
    """A request the service refused or never answered; ``code`` is the service's error code."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(f"{code}: {message}" if status == 0 else f"HTTP {status} {code}: {message}")
        self.status = status
        self.code = code


@dataclass(frozen=True)
class ServiceAddress:
    url: str
    token: str

    @staticmethod
    def from_file(path: Optional[str] = None) -> "ServiceAddress":
        """Reads the 0600 file ``gp train`` writes; its path, never the token, travels in the environment."""
        path = path or os.environ.get(SERVICE_FILE_ENV)
        if not path:
            raise ServiceError(0, "no-service-file", f"set {SERVICE_FILE_ENV} to the env_service.json of the run (gp train sets it)")
        try:
            mode = os.stat(path).st_mode
            with open(path, encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, ValueError) as error:
            raise ServiceError(0, "unreadable-service-file", f"{path}: {error}") from error
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise ServiceError(0, "service-file-too-open", f"{path} is readable by others (mode {oct(mode & 0o777)}); it holds a token and must be 0600")
        try:
            file = ServiceFile.model_validate(data)
        except ValidationError as error:
            raise ServiceError(0, "malformed-service-file", f"{path} must hold {{url, token, pid}} ({_broken_fields(error)})") from error
        return ServiceAddress(url=file.url.rstrip("/"), token=file.token)


def worker_node() -> Optional[str]:
    """The Ray node this process runs on, so the front door can keep its episodes on that node's sandbox host; None outside Ray."""
    try:
        import ray

        if not ray.is_initialized():
            return None
        return ray.get_runtime_context().get_node_id()
    except Exception:  # noqa: BLE001 - no Ray, or no runtime context: the service counts without it
        return None


def _segment(episode_id: str) -> str:
    """An episode id as one path segment: ``/``, ``?``, ``%`` and the rest percent-encoded."""
    return urllib.parse.quote(episode_id, safe="")


_sessions: dict[int, aiohttp.ClientSession] = {}


def _compact_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _session() -> aiohttp.ClientSession:
    """One session per running event loop: sessions cannot cross loops, and one per sample would leak sockets."""
    loop = asyncio.get_running_loop()
    session = _sessions.get(id(loop))
    if session is None or session.closed:
        # Compact JSON: a step's token ids are most of its body, and ", " would add a tenth to them.
        session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None, sock_connect=30), json_serialize=_compact_json)
        _sessions[id(loop)] = session
    return session


async def close_sessions() -> None:
    """Closes the current event loop's session (a process that ends its loop calls this first)."""
    session = _sessions.pop(id(asyncio.get_running_loop()), None)
    if session is not None:
        await session.close()


class EnvServiceClient:
    def __init__(
        self,
        address: ServiceAddress,
        *,
        attempts: int = 6,
        backoff_s: float = 1.0,
        request_timeout_s: float = 1800.0,
        max_wait_s: float = 3600.0,
        max_reply_bytes: int = 16 * 1024 * 1024,
    ):
        self.address = address
        self.max_reply_bytes = max_reply_bytes
        self.max_wait_s = max_wait_s
        self.attempts = attempts
        self.backoff_s = backoff_s
        self.request_timeout_s = request_timeout_s

    async def create(self, client_key: str, task_id: str, group_id: Optional[str]) -> CreateEpisodeReply:
        node = worker_node()
        body = CreateEpisodeBody(
            client_key=client_key, task_id=task_id, group_id=group_id[:200] if group_id else None, worker_node=node[:200] if node else None
        )
        return await self._call("POST", "/episodes", body, CreateEpisodeReply)

    async def step(self, episode_id: str, turn: int, reply: str, tokens: Optional[dict[str, Any]] = None) -> StepReply:
        """Sends the reply, with the policy's tokens behind it when given (step_tokens.py), for the step to record."""
        return await self._call("POST", f"/episodes/{_segment(episode_id)}/step", StepBody(turn=turn, reply=reply, tokens=tokens), StepReply)

    async def close(self, episode_id: str, reason: str = "max_steps") -> CloseReply:
        return await self._call("POST", f"/episodes/{_segment(episode_id)}/close", CloseBody(reason=reason), CloseReply)

    async def policy(self, episode_id: str) -> str:
        """The scripted policy's reply (a service started for ``gp train --smoke`` only)."""
        return (await self._call("GET", f"/episodes/{_segment(episode_id)}/policy", None, PolicyReply)).reply

    async def _call(self, method: str, path: str, request: Optional[BaseModel], reply: type[Reply]) -> Reply:
        """One request, retried as the module says; every way it can fail is a ``ServiceError``."""
        # Absent fields are left out, not sent as null: the service's bodies have no nullable field.
        body = None if request is None else request.model_dump(mode="json", by_alias=True, exclude_none=True)
        failures = 0
        waited_s = 0.0
        while True:
            try:
                async with _session().request(
                    method,
                    self.address.url + path,
                    json=body,
                    headers={"Authorization": f"Bearer {self.address.token}"},
                    timeout=aiohttp.ClientTimeout(total=self.request_timeout_s),
                ) as response:
                    text = await _bounded_text(response, self.max_reply_bytes)
                    if response.status == 200:
                        return _parsed(reply, _json_object(text, f"{method} {path}"), f"{method} {path}")
                    code, message = _error_of(text)
                    error = ServiceError(response.status, code, message)
                    if response.status == 429:
                        # The service is at its cap of open episodes: waiting is the expected path,
                        # bounded by the longest a sample may wait for a slot.
                        delay = retry_after_seconds(response.headers.get("Retry-After"))
                        if waited_s + delay > self.max_wait_s:
                            raise ServiceError(429, code, f"{message} (waited {waited_s:.0f} s for a free slot)")
                        waited_s += delay
                        await asyncio.sleep(delay)
                        continue
                    if response.status < 500:
                        raise error
            except ServiceError:
                raise
            except (aiohttp.ClientError, asyncio.TimeoutError, ConnectionError, OSError) as cause:
                error = ServiceError(0, "unreachable", f"{method} {self.address.url}{path}: {cause!r}")
            failures += 1
            if failures >= self.attempts:
                raise error
            await asyncio.sleep(self.backoff_s * (2 ** (failures - 1)))


async def _bounded_text(response: aiohttp.ClientResponse, limit: int) -> str:
    """The reply's text, read no further than ``limit`` bytes: a runaway reply is an error, not memory."""
    declared = response.content_length
    if declared is not None and declared > limit:
        raise ServiceError(response.status, "reply-too-large", f"the reply declares {declared} bytes; at most {limit} are read")
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.content.iter_chunked(64 * 1024):
        size += len(chunk)
        if size > limit:
            raise ServiceError(response.status, "reply-too-large", f"the reply is over {limit} bytes; at most {limit} are read")
        chunks.append(chunk)
    return b"".join(chunks).decode("utf-8", errors="replace")


def _json_object(text: str, what: str) -> dict[str, Any]:
    """A 200 reply's body, which the service always sends as a JSON object."""
    try:
        value = json.loads(text)
    except ValueError as error:
        raise ServiceError(200, "unexpected-reply", f"{what} answered 200 with a body that is not JSON ({error}): {text[:200]!r}") from error
    if not isinstance(value, dict):
        raise ServiceError(200, "unexpected-reply", f"{what} answered 200 with {type(value).__name__}, not a JSON object")
    return value


def _parsed(model: type[Reply], value: dict[str, Any], what: str) -> Reply:
    """A 200 reply's object as the service's contract says it is, or a ``ServiceError`` naming each broken field."""
    try:
        return model.model_validate(value)
    except ValidationError as error:
        raise ServiceError(200, "unexpected-reply", f"{what} answered 200 with a body that is not a {model.__name__} ({_broken_fields(error)})") from error


def _broken_fields(error: ValidationError) -> str:
    """Pydantic's errors as ``field: what is wrong``, without its links: one line a person can act on."""
    return "; ".join(f"{'.'.join(str(part) for part in issue['loc']) or '(body)'}: {issue['msg']}" for issue in error.errors())


def retry_after_seconds(header: Optional[str], default_s: float = 5.0, most_s: float = 300.0) -> float:
    """``Retry-After`` as seconds: a number of seconds or an HTTP date (RFC 9110), within [0, most_s]."""
    if header is None or header.strip() == "":
        return default_s
    value = header.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return default_s
        if when.tzinfo is None:
            when = when.replace(tzinfo=datetime.timezone.utc)
        seconds = (when - datetime.datetime.now(datetime.timezone.utc)).total_seconds()
    if seconds != seconds:  # NaN
        return default_s
    return min(max(seconds, 0.0), most_s)


def _error_of(text: str) -> tuple[str, str]:
    """The service's error code and message; a body of another shape (a proxy's page) is shown as it came."""
    try:
        error = ErrorReply.model_validate_json(text).error
        return error.code, error.message
    except ValueError:
        return "unexpected-reply", text[:300]
