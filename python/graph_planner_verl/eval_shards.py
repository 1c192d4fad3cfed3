"""``python -m graph_planner_verl.eval_shards SPEC``: the driver of a sharded ``gp eval --ray``.

It runs as a Ray job. It splits the evaluation's tasks into one shard per alive node (or the number
the spec asks for), round-robin so each shard gets a similar mix, and runs each shard as a Ray task
spread over the cluster (``scheduling_strategy="SPREAD"``): the task runs our own CLI, ``gp eval``,
on its node's Docker, into ``<run>/shards/shard-<k>/``. Ray places the work; nothing here schedules.
``gp eval`` merges the shards' reports when the job has ended (server/src/trainer/rayEval.ts).

The run folder must be on a filesystem every node sees (the launching machine's, on one node).
Exit 0 when every shard ran (resolved or not), 1 when a shard could not run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import ray


def split(tasks: list[str], shards: int) -> list[list[str]]:
    """Round-robin: task i goes to shard i mod n, so every shard gets tasks from the whole file."""
    return [tasks[k::shards] for k in range(shards) if tasks[k::shards]]


@ray.remote(num_cpus=1)
def run_shard(index: int, command: list[str], shard_dir: str) -> dict[str, Any]:
    node = ray.get_runtime_context().get_node_id()
    done = subprocess.run(command, capture_output=True, text=True)
    with open(os.path.join(shard_dir, "shard.log"), "w", encoding="utf-8") as log:
        log.write(done.stdout)
        log.write(done.stderr)
    return {"shard": index, "node": node, "exit_code": done.returncode, "tail": (done.stderr or done.stdout)[-2000:]}


def main(argv: list[str]) -> int:
    with open(argv[1], encoding="utf-8") as handle:
        spec = json.load(handle)
    ray.init()
    alive = [n for n in ray.nodes() if n.get("Alive")]
    with open(spec["tasks_file"], encoding="utf-8") as handle:
        tasks = [line for line in handle.read().splitlines() if line.strip()]
    shards = split(tasks, int(spec.get("shards") or len(alive) or 1))
    print(f"gp eval --ray: {len(tasks)} task(s) in {len(shards)} shard(s) over {len(alive)} node(s)", flush=True)
    pending = []
    for k, lines in enumerate(shards):
        shard_dir = os.path.join(spec["run_dir"], "shards", f"shard-{k}")
        os.makedirs(shard_dir, exist_ok=True)
        tasks_file = os.path.join(shard_dir, "tasks.jsonl")
        with open(tasks_file, "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")
        command = [*spec["cli"], "eval", tasks_file, *spec["args"], "--run-dir", shard_dir]
        pending.append(run_shard.options(scheduling_strategy="SPREAD").remote(k, command, shard_dir))
    failed = 0
    for result in ray.get(pending):
        # gp eval exits 0 when it ran, 1 when every episode failed to run and 75 when the
        # infrastructure failed some episodes (listed in its report beside the rate): all leave a report.
        ran = result["exit_code"] in (0, 1, 75)
        failed += 0 if ran else 1
        print(f"shard {result['shard']} on node {result['node'][:12]}: exit code {result['exit_code']}" + ("" if ran else f"\n{result['tail']}"), flush=True)
    with open(os.path.join(spec["run_dir"], "shards", "shards.json"), "w", encoding="utf-8") as handle:
        json.dump({"shards": len(shards), "nodes": len(alive)}, handle)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
