"""The anchor of ``model-server-tokens-per-s`` (bench/modelFigures.ts): llama.cpp driven directly,
in-process through llama-cpp-python's ``Llama.create_chat_completion``, with the prompt, context,
threads and greedy settings the embedded server gets, so the figure is the server's own cost.

``python modelServerAnchor.py MODEL SPEC.json`` prints one JSON line: completion tokens and seconds
of each run (after one warm-up run).
"""

import json
import sys
import time

from llama_cpp import Llama


def main() -> None:
    model, spec_file = sys.argv[1], sys.argv[2]
    with open(spec_file, encoding="utf-8") as handle:
        spec = json.load(handle)
    llm = Llama(model_path=model, n_ctx=spec["n_ctx"], n_threads=spec["threads"], n_threads_batch=spec["threads"], verbose=False)
    runs = []
    for i in range(spec["runs"] + 1):
        # A different first line each time, so no run reuses the previous run's cached prompt.
        messages = [{"role": "system", "content": f"Run {i}. {spec['messages'][0]['content']}"}, *spec["messages"][1:]]
        started = time.perf_counter()
        out = llm.create_chat_completion(messages=messages, max_tokens=spec["max_tokens"], temperature=0)
        seconds = time.perf_counter() - started
        if i > 0:
            runs.append({"completion_tokens": out["usage"]["completion_tokens"], "prompt_tokens": out["usage"]["prompt_tokens"], "seconds": seconds})
    print(json.dumps({"runs": runs}))


if __name__ == "__main__":
    main()
