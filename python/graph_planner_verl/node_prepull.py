"""``python -m graph_planner_verl.node_prepull SPEC_JSON``: the driver of ``gp images prepull --ray``.

It runs as a Ray job. For every alive node that offers sandboxes (the custom resource
``gp_sandbox_slots``, which ``gp ray slots`` prints for ``ray start --resources``), it runs one Ray
task pinned to that node (``NodeAffinitySchedulingStrategy``, not soft, and no CPU, so a busy node
still takes it): the task runs our own CLI, ``gp images prepull ... --json``, against the node's
Docker daemon and returns what it printed. The driver prints one line per node,
``gp-node-prepull {json}``, as each node finishes; ``gp images prepull --ray`` reads those lines
(server/src/cluster/rayPrepull.ts, server/src/protocol/rayCluster.ts).

The spec (one JSON argument) holds ``cli`` (how a node starts our CLI) and ``args`` (the prepull's
files, manifests, images and options). Files must be on storage every node sees, as for
``gp eval --ray``. Exit 0 when every node answered, 1 when none offers slots or a node's prepull
could not run; images that failed to pull are in the lines, not in the exit code.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

RESOURCE = "gp_sandbox_slots"
LINE_PREFIX = "gp-node-prepull "
TAIL = 2000


def slot_nodes(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The alive nodes of ``ray.nodes()`` with at least one whole slot, as ``{node_id, ip, slots}``."""
    found = []
    for node in nodes:
        slots = int((node.get("Resources") or {}).get(RESOURCE, 0))
        if node.get("Alive") and slots > 0:
            found.append({"node_id": node["NodeID"], "ip": node.get("NodeManagerAddress", ""), "slots": slots})
    return found


def node_line(node: dict[str, Any], exit_code: int, stdout: str, stderr: str) -> dict[str, Any]:
    """One node's answer: the prepull's results when it printed its JSON, else why not.

    ``gp images prepull --json`` exits 1 when an image failed to pull and still prints its results,
    so the results, not the exit code, say what happened; no JSON means the command itself failed.
    """
    try:
        results = json.loads(stdout)["results"]
        if not isinstance(results, list):
            raise TypeError("results is not a list")
    except (ValueError, KeyError, TypeError) as error:
        tail = (stderr or stdout).strip()[-TAIL:]
        return {**node, "exit_code": exit_code, "results": None, "error": f"gp images prepull printed no results ({error}); exit code {exit_code}: {tail}"}
    return {**node, "exit_code": exit_code, "results": results, "error": None}


def format_line(line: dict[str, Any]) -> str:
    return LINE_PREFIX + json.dumps(line, separators=(",", ":"))


def prepull_command(spec: dict[str, Any]) -> list[str]:
    return [*spec["cli"], "images", "prepull", *spec["args"], "--json"]


def run_on_node(node: dict[str, Any], command: list[str]) -> dict[str, Any]:
    try:
        done = subprocess.run(command, capture_output=True, text=True)
    except OSError as error:
        return {**node, "exit_code": 127, "results": None, "error": f"could not start {command[0]}: {error}"}
    return node_line(node, done.returncode, done.stdout, done.stderr)


def main(argv: list[str]) -> int:
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    spec = json.loads(argv[1])
    command = prepull_command(spec)
    ray.init()
    nodes = slot_nodes(ray.nodes())
    if not nodes:
        print(
            f"gp images prepull --ray: no alive node offers sandboxes (none has the resource {RESOURCE}); start nodes with the --resources argument gp ray slots prints",
            flush=True,
        )
        return 1
    print(f"gp images prepull --ray: {len(nodes)} node(s) offer sandboxes", flush=True)
    remote = ray.remote(num_cpus=0)(run_on_node)
    node_of = {remote.options(scheduling_strategy=NodeAffinitySchedulingStrategy(node_id=n["node_id"], soft=False)).remote(n, command): n for n in nodes}
    pending = list(node_of)
    failed = 0
    while pending:
        ready, pending = ray.wait(pending, num_returns=1)
        try:
            line = ray.get(ready[0])
        except Exception as error:  # The node died, or Ray could not run the task there.
            line = {**node_of[ready[0]], "exit_code": -1, "results": None, "error": f"the Ray task failed: {str(error)[-TAIL:]}"}
        failed += 1 if line["results"] is None else 0
        print(format_line(line), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
