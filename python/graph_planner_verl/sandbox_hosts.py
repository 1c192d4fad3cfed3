"""``python -m graph_planner_verl.sandbox_hosts SPEC``: the driver that puts a sandbox host on every node.

It runs as a Ray job of ``gp train --ray`` or ``gp eval --ray`` (docs/sandbox-hosts.md). Every alive
node that advertises the custom resource ``gp_sandbox_slots`` gets one actor, pinned to it; the
actor starts our CLI's ``gp sandbox host`` there with the node's slots, handing it the host spec
on its standard input and keeping that pipe open as its lifeline: when the actor dies, however it
dies, the host sees its input close, ends its episodes and removes its containers. When a host
process dies on its own, its actor exits too, so Ray restarts it (up to the spec's
``max_restarts``) and a fresh host takes the node's slots. Ray places, restarts and ends the
hosts; nothing here schedules episodes (the front door routes them).

The spec (its registry token included) is read here, on the node the job's driver runs on, and
reaches the actors through Ray, never through the job's submission, which Ray shows in clear.
Exit 0 when every host ended, 1 when no node offers slots.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from graph_planner_verl.node_prepull import RESOURCE, slot_nodes


def host_command(cli: list[str], node: str, slots: int, listen: str) -> list[str]:
    """Our CLI's ``gp sandbox host``, its spec read from standard input."""
    return [*cli, "sandbox", "host", "--spec", "-", "--node", node, "--slots", str(slots), "--listen", listen]


@ray.remote(num_cpus=0)
class SandboxHostActor:
    """Holds one node's host process; dies with it, so Ray can restart both."""

    def __init__(self, spec_text: str, slots: int) -> None:
        spec = json.loads(spec_text)
        node = ray.get_runtime_context().get_node_id()
        listen = ray.util.get_node_ip_address() if spec.get("listen") == "node" else "127.0.0.1"
        # A session of its own: when Ray ends this actor it signals the actor's process group, and the
        # host must outlive that long enough to end its episodes and remove its containers, which it
        # starts doing as soon as its standard input (this actor's end of the pipe) closes.
        self.process = subprocess.Popen(host_command(spec["cli"], node, slots, listen), stdin=subprocess.PIPE, start_new_session=True)
        assert self.process.stdin is not None
        self.process.stdin.write((json.dumps(spec) + "\n").encode("utf-8"))
        self.process.stdin.flush()

    def serve(self) -> int:
        code = self.process.wait()
        if code == 0:
            # The host ended because it was asked to (the front door's shutdown at the run's end, or
            # SIGTERM): a host restarted now would start and register while the job is being ended,
            # and be killed with it before it could remove its scratch folder.
            return 0
        # The host ended without being asked (killed, crashed): this actor ends as well, so Ray
        # restarts it and a new host registers for the node.
        print(f"gp sandbox hosts: the host process exited with {code}; its actor ends so Ray can restart it", flush=True)
        os._exit(1)


def main(argv: list[str]) -> int:
    with open(argv[1], encoding="utf-8") as handle:
        spec_text = handle.read()
    spec = json.loads(spec_text)
    ray.init()
    nodes = [(n["node_id"], n["slots"]) for n in slot_nodes(ray.nodes())]
    if not nodes:
        print(
            f"gp sandbox hosts: no alive node of this cluster offers sandbox slots; start nodes with "
            f"--resources '{{\"{RESOURCE}\": N}}' (gp ray slots prints N for a machine)",
            file=sys.stderr,
            flush=True,
        )
        return 1
    restarts = int(spec.get("max_restarts", 2))
    print(f"gp sandbox hosts: {len(nodes)} node(s) offer {sum(s for _, s in nodes)} slot(s)", flush=True)
    actors = {}
    for node, slots in nodes:
        actors[node] = SandboxHostActor.options(
            scheduling_strategy=NodeAffinitySchedulingStrategy(node_id=node, soft=False),
            max_restarts=restarts,
        ).remote(spec_text, slots)
    pending = {actors[node].serve.remote(): node for node in actors}
    failures = {node: 0 for node in actors}
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        node = pending.pop(ready[0])
        try:
            ray.get(ready[0])
        except ray.exceptions.RayActorError as error:
            failures[node] += 1
            if failures[node] > restarts:
                print(f"gp sandbox hosts: the host on node {node[:12]} is gone for good ({type(error).__name__})", flush=True)
                continue
            print(f"gp sandbox hosts: the host on node {node[:12]} died; Ray restarts it ({failures[node]} of {restarts})", flush=True)
            pending[actors[node].serve.remote()] = node
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
