"""Answers grading questions with SWE-bench's own harness code, the reference of the differential test.

Usage: python3 -S harness_cases.py SWEBENCH_DIR < requests.jsonl

SWEBENCH_DIR holds the unpacked swebench 5.0.2 and unidiff wheels (test/support/swebenchHarness.ts
pins them). Each request line is a JSON object with a "kind"; the answer line says what the
harness's function of that name returns for it:

- parse {parser, log}: PARSER_REGISTRY[parser](log) as [id, status] pairs, in the map's order;
- logs_eval {parser, log}: get_logs_eval on the log written to a file, {status_map, found};
- predicate {predicate, case, status_map}: test_passed, test_failed or test_maintained;
- report {status_map, gold}: get_eval_tests_report and get_resolution_status;
- exit_code {text}: parse_test_exit_code;
- evaluate {parser, log, gold}: what get_eval_report decides for a log: get_logs_eval, then (when
  the log is found) the tests report and the resolution;
- repo_parsers {}: for each repository of MAP_REPO_TO_PARSER_PY, the registry names of its parser.

When the harness's function raises (a parser that fails on a log), the answer is {"raised": NAME}.

Status maps travel as [id, status] pairs, because the order of a map decides which of several
prefix matches a truncated id takes. The harness's packages `swebench` and `swebench.harness` are
made here as empty modules whose `__path__` points at their folders: their `__init__` files import
Docker and Modal clients that grading never uses, and the submodules then import as the harness
imports them.
"""

import importlib
import json
import os
import sys
import tempfile
import types


def bare_package(name, path):
    module = types.ModuleType(name)
    module.__path__ = [path]
    sys.modules[name] = module


def load(root):
    sys.path.insert(0, root)
    bare_package("swebench", f"{root}/swebench")
    bare_package("swebench.harness", f"{root}/swebench/harness")
    return (
        importlib.import_module("swebench.harness.grading"),
        importlib.import_module("swebench.harness.log_parsers"),
        importlib.import_module("swebench.harness.log_parsers.python"),
    )


def pairs(status_map):
    return [[k, v] for k, v in status_map.items()]


def gold_lists(gold):
    return {
        "FAIL_TO_PASS": gold.get("FAIL_TO_PASS", []),
        "PASS_TO_PASS": gold.get("PASS_TO_PASS", []),
        "FAIL_TO_FAIL": [],
        "PASS_TO_FAIL": [],
    }


def logs_eval(grading, parser, log):
    spec = types.SimpleNamespace(log_parser=parser)
    fd, path = tempfile.mkstemp(suffix=".log")
    try:
        # The harness reads its log with open() in text mode; newline="" keeps the bytes as given.
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(log)
        return grading.get_logs_eval(spec, path)
    finally:
        os.unlink(path)


def answer(grading, registry, python_parsers, request):
    kind = request["kind"]
    if kind == "parse":
        return pairs(registry[request["parser"]](request["log"], None))
    if kind == "logs_eval":
        status_map, found = logs_eval(grading, request["parser"], request["log"])
        return {"status_map": pairs(status_map), "found": found}
    if kind == "predicate":
        fn = {"test_passed": grading.test_passed, "test_failed": grading.test_failed, "test_maintained": grading.test_maintained}[request["predicate"]]
        return fn(request["case"], dict(request["status_map"]))
    if kind == "report":
        report = grading.get_eval_tests_report(dict(request["status_map"]), gold_lists(request["gold"]))
        return {"tests_status": report, "resolution": grading.get_resolution_status(report)}
    if kind == "exit_code":
        return grading.parse_test_exit_code(request["text"])
    if kind == "evaluate":
        status_map, found = logs_eval(grading, request["parser"], request["log"])
        if not found:
            return {"found": False}
        report = grading.get_eval_tests_report(status_map, gold_lists(request["gold"]))
        return {"found": True, "status_map": pairs(status_map), "tests_status": report, "resolution": grading.get_resolution_status(report)}
    if kind == "repo_parsers":
        return {repo: sorted(name for name, fn in registry.items() if fn is parser) for repo, parser in python_parsers.MAP_REPO_TO_PARSER_PY.items()}
    raise ValueError(f"unknown request kind {kind!r}")


def main():
    grading, parsers, python_parsers = load(sys.argv[1])
    for line in sys.stdin:
        if line.strip():
            request = json.loads(line)
            try:
                reply = answer(grading, parsers.PARSER_REGISTRY, python_parsers, request)
            except Exception as error:  # The harness raising is an answer too: the instance errors.
                reply = {"raised": type(error).__name__}
            print(json.dumps(reply, ensure_ascii=False))


if __name__ == "__main__":
    main()
