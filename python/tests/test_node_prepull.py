"""The pure parts of ``gp images prepull --ray``'s driver: which nodes get a prepull, and each node's line."""

import json

from graph_planner_verl.node_prepull import LINE_PREFIX, format_line, node_line, prepull_command, slot_nodes

NODE = {"node_id": "abc123", "ip": "10.0.0.2", "slots": 3}


def ray_node(node_id, alive=True, **resources):
    return {"NodeID": node_id, "Alive": alive, "NodeManagerAddress": "10.0.0.2", "Resources": resources}


def test_only_alive_nodes_with_a_whole_slot_get_a_prepull():
    nodes = [
        ray_node("head", CPU=4.0),
        ray_node("a", CPU=8.0, gp_sandbox_slots=3.0),
        ray_node("dead", alive=False, gp_sandbox_slots=5.0),
        ray_node("half", gp_sandbox_slots=0.5),
        {"NodeID": "bare", "Alive": True},
    ]
    assert slot_nodes(nodes) == [{"node_id": "a", "ip": "10.0.0.2", "slots": 3}]


def test_a_node_line_carries_the_prepull_results_even_when_an_image_failed():
    results = [
        {"image": "x:1", "status": "present", "attempts": 0, "durationMs": 1},
        {"image": "y:1", "status": "failed", "attempts": 3, "durationMs": 9, "error": "no such image"},
    ]
    line = node_line(NODE, 1, json.dumps({"results": results}, indent=2), "y:1: attempt 1 failed")
    assert line == {**NODE, "exit_code": 1, "results": results, "error": None}


def test_a_node_whose_prepull_printed_no_json_says_why_with_the_tail_of_its_output():
    line = node_line(NODE, 2, "", "gp images prepull: a dataset file cannot be read.\n")
    assert line["results"] is None
    assert line["exit_code"] == 2
    assert "printed no results" in line["error"] and "a dataset file cannot be read." in line["error"]
    assert node_line(NODE, 0, json.dumps({"results": "nope"}), "")["results"] is None


def test_the_line_is_one_prefixed_json_line_and_the_command_asks_for_json():
    text = format_line({**NODE, "exit_code": 0, "results": [], "error": None})
    assert text.startswith(LINE_PREFIX) and "\n" not in text
    assert json.loads(text[len(LINE_PREFIX) :])["node_id"] == "abc123"
    assert prepull_command({"cli": ["node", "/opt/gp/dist/cli.js"], "args": ["/data/tasks.jsonl", "--retries", "1"]}) == [
        "node",
        "/opt/gp/dist/cli.js",
        "images",
        "prepull",
        "/data/tasks.jsonl",
        "--retries",
        "1",
        "--json",
    ]
