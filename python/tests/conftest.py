import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))


@pytest.fixture(scope="session")
def tiny_tokenizer(tmp_path_factory):
    """The smoke run's tokenizer, built offline (graph_planner_verl/smoke/tiny_model.py)."""
    from transformers import AutoTokenizer

    from graph_planner_verl.smoke.tiny_model import build_tiny_model

    return AutoTokenizer.from_pretrained(build_tiny_model(str(tmp_path_factory.mktemp("tiny") / "model")))


async def start_test_peer(handle):
    """Serves ``handle`` (an aiohttp handler for every path) on a free loopback port: a TEST PEER
    standing in for the environment service. Returns the runner (to clean up) and the base URL."""
    from aiohttp import web

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"
