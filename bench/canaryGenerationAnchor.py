"""The anchor of ``canary-generation-tokens-per-s`` (bench/canaryFigures.ts): llama.cpp on the same
model (SmolLM2-135M-Instruct, the GGUF file the canary converts), in-process through
llama-cpp-python, sampling replies to the canary's own prompts with the canary's budget and
temperature on the same two threads, one reply at a time as a llama.cpp server slot makes them.

``python canaryGenerationAnchor.py MODEL canary.json REPLIES MAX_TOKENS`` prints one JSON line:
completion tokens and seconds (after one warm-up reply).
"""

import json
import sys
import time

from llama_cpp import Llama


def main() -> None:
    model, spec_file, replies, max_tokens = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    with open(spec_file, encoding="utf-8") as handle:
        spec = json.load(handle)
    prompts = [spec["tasks"][task]["prompt"] for task in spec["train"]]
    llm = Llama(model_path=model, n_ctx=512, n_threads=2, n_threads_batch=2, seed=0, verbose=False)
    llm.create_chat_completion(messages=[{"role": "user", "content": prompts[0]}], max_tokens=max_tokens, temperature=1.0)
    tokens = 0
    started = time.perf_counter()
    for i in range(replies):
        out = llm.create_chat_completion(
            messages=[{"role": "user", "content": prompts[i % len(prompts)]}], max_tokens=max_tokens, temperature=1.0, top_p=1.0, top_k=0
        )
        tokens += out["usage"]["completion_tokens"]
    print(json.dumps({"tokens": tokens, "seconds": time.perf_counter() - started, "replies": replies}))


if __name__ == "__main__":
    main()
