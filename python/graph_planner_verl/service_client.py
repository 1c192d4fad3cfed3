"""The environment service's HTTP client (bodies: server/src/protocol/envService.ts).

Verl instantiates one agent-loop object per sample, so the HTTP session is kept per event loop,
not per object. Creating and stepping are idempotent on the server (a client key, a turn number),
so every request is retried on a lost connection or a 5xx; a 429 waits for its ``Retry-After``.
A refusal the client caused (4xx) is raised at once: retrying it cannot help.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
from dataclasses import dataclass
from typing import Any, Optional

import aiohttp

SERVICE_FILE_ENV = "GP_ENV_SERVICE_FILE"


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
        if not isinstance(data, dict) or not isinstance(data.get("url"), str) or not isinstance(data.get("token"), str):
            raise ServiceError(0, "malformed-service-file", f"{path} must hold {{url, token, pid}}")
        return ServiceAddress(url=data["url"].rstrip("/"), token=data["token"])


_sessions: dict[int, aiohttp.ClientSession] = {}


def _session() -> aiohttp.ClientSession:
    """One session per running event loop: sessions cannot cross loops, and one per sample would leak sockets."""
    loop = asyncio.get_running_loop()
    session = _sessions.get(id(loop))
    if session is None or session.closed:
        session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None, sock_connect=30))
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
    ):
        self.address = address
        self.max_wait_s = max_wait_s
        self.attempts = attempts
        self.backoff_s = backoff_s
        self.request_timeout_s = request_timeout_s

    async def create(self, client_key: str, task_id: str, group_id: Optional[str]) -> dict[str, Any]:
        body: dict[str, Any] = {"client_key": client_key, "task_id": task_id}
        if group_id:
            body["group_id"] = group_id[:200]
        return await self._call("POST", "/episodes", body)

    async def step(self, episode_id: str, turn: int, reply: str) -> dict[str, Any]:
        return await self._call("POST", f"/episodes/{episode_id}/step", {"turn": turn, "reply": reply})

    async def close(self, episode_id: str, reason: str = "max_steps") -> dict[str, Any]:
        return await self._call("POST", f"/episodes/{episode_id}/close", {"reason": reason})

    async def policy(self, episode_id: str) -> str:
        """The scripted policy's reply (a service started for ``gp train --smoke`` only)."""
        return (await self._call("GET", f"/episodes/{episode_id}/policy", None))["reply"]

    async def _call(self, method: str, path: str, body: Optional[dict[str, Any]]) -> dict[str, Any]:
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
                    text = await response.text()
                    if response.status == 200:
                        return json.loads(text)
                    code, message = _error_of(text)
                    error = ServiceError(response.status, code, message)
                    if response.status == 429:
                        # The service is at its cap of open episodes: waiting is the expected path,
                        # bounded by the longest a sample may wait for a slot.
                        delay = float(response.headers.get("Retry-After", "5"))
                        if waited_s + delay > self.max_wait_s:
                            raise ServiceError(429, code, f"{message} (waited {waited_s:.0f} s for a free slot)")
                        waited_s += delay
                        await asyncio.sleep(delay)
                        continue
                    if response.status < 500:
                        raise error
            except (aiohttp.ClientError, asyncio.TimeoutError, ConnectionError) as cause:
                error = ServiceError(0, "unreachable", f"{method} {self.address.url}{path}: {cause!r}")
            failures += 1
            if failures >= self.attempts:
                raise error
            await asyncio.sleep(self.backoff_s * (2 ** (failures - 1)))


def _error_of(text: str) -> tuple[str, str]:
    try:
        error = json.loads(text)["error"]
        return str(error["code"]), str(error["message"])
    except (ValueError, KeyError, TypeError):
        return "unexpected-reply", text[:300]
