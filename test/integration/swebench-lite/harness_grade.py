"""Re-grades test logs with SWE-bench's own harness code, the reference of the Lite integration test.

Usage: python harness_grade.py SWEBENCH_DIR INSTANCES_JSONL < requests.jsonl
Each request line is {"instance_id": ..., "log": PATH}; each answer line is
{"instance_id", "log", "resolution", "tests_status"} as swebench's get_logs_eval and grading
compute it ("not-gradable" when get_logs_eval does not find the log's results).

SWEBENCH_DIR holds the unpacked `swebench` and `unidiff` wheels (pinned by the test). Its `swebench/harness/__init__`
imports Docker and Modal clients the grading code never uses, so the packages are made here as
empty modules whose `__path__` points at their folders: their submodules (grading, constants,
log_parsers) then import as the harness imports them, and nothing else runs.
"""

import importlib
import json
import sys
import types


def bare_package(name, path):
    module = types.ModuleType(name)
    module.__path__ = [path]
    sys.modules[name] = module


def main():
    root, instances_file = sys.argv[1], sys.argv[2]
    # The unpacked wheels (swebench and unidiff, which swebench.utils imports) are the path's first entry.
    sys.path.insert(0, root)
    bare_package("swebench", f"{root}/swebench")
    bare_package("swebench.harness", f"{root}/swebench/harness")
    grading = importlib.import_module("swebench.harness.grading")
    python_parsers = importlib.import_module("swebench.harness.log_parsers.python")
    instances = {}
    with open(instances_file, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                instances[row["instance_id"]] = row
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        row = instances[request["instance_id"]]
        # The harness's table of each Python repository's parser (scikit-learn's is parse_log_scikit),
        # and its own reading of the log: the markers, the fallback to the whole log, the exit status.
        parser = python_parsers.MAP_REPO_TO_PARSER_PY[row["repo"]].__name__
        status_map, found = grading.get_logs_eval(types.SimpleNamespace(log_parser=parser), request["log"])
        gold = {"FAIL_TO_PASS": json.loads(row["FAIL_TO_PASS"]), "PASS_TO_PASS": json.loads(row["PASS_TO_PASS"])}
        if not found:
            print(json.dumps({"instance_id": request["instance_id"], "log": request["log"], "resolution": "not-gradable", "tests_status": None}))
            continue
        report = grading.get_eval_tests_report(status_map, gold)
        print(
            json.dumps(
                {"instance_id": request["instance_id"], "log": request["log"], "resolution": grading.get_resolution_status(report), "tests_status": report}
            )
        )


if __name__ == "__main__":
    main()
