"""The anchors of the on-policy smoke figures (bench/smokeFigures.ts): the same model, bare.

``python bench/smokeAnchor.py MODEL_DIR SPEC.json`` loads the smoke's converted model folder and
measures, on this machine's CPU with nothing around the model: sampling replies to the smoke's own
first prompt (its token ids, from smoke/checks.json) with the smoke's budget and sampling settings (``model.generate``), and actor updates
(forward, backward, AdamW step) on a batch of the smoke update's shape. It prints one JSON line.
"""

from __future__ import annotations

import json
import sys
import time

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer


def generation(model, tokenizer, spec) -> dict[str, float]:
    ids = torch.tensor([spec["prompt_ids"]], dtype=torch.long)
    tokens, seconds = 0, 0.0
    for _ in range(spec["replies"]):
        started = time.perf_counter()
        with torch.no_grad():
            out = model.generate(
                ids,
                attention_mask=torch.ones_like(ids),
                max_new_tokens=spec["max_new_tokens"],
                do_sample=True,
                temperature=spec["temperature"],
                top_p=spec["top_p"],
                top_k=0,
                eos_token_id=tokenizer.eos_token_id,
                pad_token_id=tokenizer.pad_token_id,
            )
        seconds += time.perf_counter() - started
        tokens += out.shape[1] - ids.shape[1]
    return {"seconds": seconds, "tokens": tokens, "prompt_tokens": int(ids.shape[1])}


def update(model, spec) -> dict[str, float]:
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-6)
    batch, length = spec["update_batch"], spec["update_length"]
    ids = torch.randint(0, model.config.vocab_size, (batch, length))
    model.train()
    tokens, seconds = 0, 0.0
    for _ in range(spec["updates"]):
        started = time.perf_counter()
        optimizer.zero_grad()
        logits = model(input_ids=ids).logits
        loss = torch.log_softmax(logits[:, :-1].float(), dim=-1).gather(-1, ids[:, 1:].unsqueeze(-1)).mean()
        loss.backward()
        optimizer.step()
        seconds += time.perf_counter() - started
        tokens += batch * length
    return {"seconds": seconds, "tokens": tokens}


def main() -> int:
    model_dir, spec_file = sys.argv[1], sys.argv[2]
    with open(spec_file, encoding="utf-8") as handle:
        spec = json.load(handle)
    torch.manual_seed(0)
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32).eval()
    print(json.dumps({"generation": generation(model, tokenizer, spec), "update": update(model, spec)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
