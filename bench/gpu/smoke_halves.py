#!/usr/bin/env python3
"""The two heavy halves of ``gp train --smoke`` (generation and the actor update), timed on whatever
this machine has: a CUDA GPU when one is visible, else the CPU. The same script runs on a lent GPU
machine and on the development machine, so the two JSON files compare figure for figure.

    python bench/gpu/smoke_halves.py --assets DIR --out FILE [--device auto|cpu|cuda] [--loss auto|standin|verl]

``--assets DIR`` holds SmolLM2-135M-Instruct's ``config.json`` and tokenizer files (no weights) and
``prompt.json``: the smoke's first prompt as token ids (the planner's system prompt and the first
observation of ``sample-calc-add`` through the model's chat template) and the smoke's shapes and
settings. The model is built from the config with random weights (seed 0, initialised on the CPU,
so every machine starts from the same numbers): same architecture, same cost per token, but its
replies are noise. A random model samples the end-of-turn token almost never, so every reply runs
to the 48-token budget, as the real model's mostly do in the smoke.

What runs is the smoke's own code from ``python/graph_planner_verl/smoke/``, loaded by file path:

- generation: ``ModelPolicyClient._sample`` (model_policy.py), the exact call the smoke makes for
  each reply (batch 1, ``generate`` with temperature and top-p, logits kept for the
  log-probabilities), under ``torch.device(...)`` so its tensors land on the GPU; larger batches
  of the same prompt go through ``model.generate`` with the same arguments, as a batching server
  would run a group's samples together;
- the update: ``actor_update`` (actor.py) on a Verl-shaped batch (prompts left-padded to the
  smoke's 3,072, responses right-padded to 4,096; each response two 48-token replies with mask 1
  around a 252-token observation with mask 0), so ``response_view`` cuts it exactly as in the
  smoke; fp32, and bf16 as ``torch.autocast`` over fp32 weights (mixed precision as Verl's FSDP
  actor runs it).

``actor_update`` imports Verl's policy loss, entropy and log-probability functions. Where Verl
imports (the trainer venv) ``--loss auto`` uses them; where it does not (no Ray: ``import verl``
imports Ray), ``verl_standin.py`` registers plain-torch transcriptions of those functions under
Verl's names. ``--loss standin`` forces the stand-in everywhere (like for like across machines);
with Verl importable the script first checks, on one batch, that the stand-in and Verl give the
same loss, entropy and gradient norm.

It writes ``--out`` after every measurement (a partial file survives a timeout) and prints it at
the end. ``--budget-s`` skips what is left once that many seconds have passed.
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import json
import os
import platform
import statistics
import sys
import time
import traceback
import types

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SMOKE = os.path.join(REPO, "python", "graph_planner_verl", "smoke")
sys.path.insert(0, HERE)

import torch  # noqa: E402

STARTED = time.perf_counter()


def load_file(name: str, path: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


def elapsed() -> float:
    return time.perf_counter() - STARTED


class Report:
    def __init__(self, path: str):
        self.path = path
        self.data: dict = {"started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "generation": [], "update": [], "skipped": [], "errors": []}

    def save(self) -> None:
        self.data["elapsed_s"] = round(elapsed(), 2)
        tmp = self.path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump(self.data, handle, indent=2, default=str)
        os.replace(tmp, self.path)


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def machine(device: torch.device) -> dict:
    info = {
        "device": device.type,
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cpu_count": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "loadavg_start": os.getloadavg(),
        "platform": platform.platform(),
    }
    try:
        import transformers

        info["transformers"] = transformers.__version__
    except Exception as error:  # noqa: BLE001
        info["transformers"] = repr(error)
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        info.update(gpu=props.name, gpu_memory_gib=round(props.total_memory / 2**30, 1), sms=props.multi_processor_count, cuda=torch.version.cuda)
    return info


def choose_loss(mode: str, report: Report):
    """Real Verl where it imports (and is wanted), else the stand-in. Returns (kind, real modules)."""
    import_error = None
    if mode in ("auto", "verl", "both"):
        try:
            import verl.trainer.ppo.core_algos  # noqa: F401
            import verl.utils.config  # noqa: F401
            import verl.utils.torch_functional  # noqa: F401
            import verl.workers.rollout.replica  # noqa: F401

            real = {k: v for k, v in sys.modules.items() if k == "verl" or k.startswith("verl.")}
            report.data["verl"] = {"importable": True, "version": getattr(sys.modules["verl"], "__version__", "?")}
            if mode == "verl" or mode == "auto":
                report.data["verl"]["used_for_timings"] = "verl"
                return "verl", real
            return "both", real
        except Exception as error:  # noqa: BLE001
            import_error = f"{type(error).__name__}: {error}"
            if mode == "verl":
                raise
    for name in [k for k in sys.modules if k == "verl" or k.startswith("verl.")]:
        del sys.modules[name]
    import verl_standin

    verl_standin.install()
    report.data["verl"] = {
        "importable": "not tried (--loss standin)" if mode == "standin" else False,
        "import_error": import_error,
        "used_for_timings": "standin (bench/gpu/verl_standin.py)",
    }
    return "standin", None


def build_model(assets: str, device: torch.device, layers: int | None = None):
    from transformers import AutoConfig, AutoModelForCausalLM

    config = AutoConfig.from_pretrained(assets)
    if layers:
        config.num_hidden_layers = layers  # --layers: only to try the script quickly, never for figures
    torch.manual_seed(0)
    try:
        model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)  # initialised on the CPU: the same numbers everywhere
    except TypeError:
        model = AutoModelForCausalLM.from_config(config).float()
    fingerprint = float(sum(p.detach().double().sum() for p in model.parameters()))
    params = sum(p.numel() for p in model.parameters())
    return model.to(device), {
        "architecture": config.architectures,
        "layers": config.num_hidden_layers,
        "hidden": config.hidden_size,
        "vocab": config.vocab_size,
        "params": params,
        "weights": "random init, torch.manual_seed(0), on the CPU",
        "weight_sum_fingerprint": fingerprint,
        "attn_implementation": getattr(config, "_attn_implementation", None),
    }


def sampling(spec: dict) -> dict:
    return {"temperature": spec["temperature"], "top_p": spec["top_p"]}


def generated_tokens(sequences: torch.Tensor, prompt_len: int, eos: int) -> int:
    """Tokens each row sampled, up to and including its first end-of-turn token."""
    total = 0
    for row in sequences[:, prompt_len:].tolist():
        total += row.index(eos) + 1 if eos in row else len(row)
    return total


def time_smoke_sample(model_policy, model, tokenizer, spec, device, reps: int) -> dict:
    """The smoke's own per-reply call: ModelPolicyClient._sample."""
    client = model_policy.ModelPolicyClient(model, tokenizer, max_new_tokens=spec["reply_tokens"])
    seconds, tokens = [], 0
    with torch.device(device):
        client._sample(list(spec["prompt_ids"]), sampling(spec))  # warm-up
        for _ in range(reps):
            sync(device)
            generation = client._sample(list(spec["prompt_ids"]), sampling(spec))
            sync(device)
            seconds.append(generation.seconds)
            tokens += len(generation.token_ids)
    return {"path": "model_policy.ModelPolicyClient._sample", "seconds_per_call": seconds, "tokens": tokens, "seconds": sum(seconds)}


def time_generate(model, tokenizer, spec, device, batch: int, reps: int) -> dict:
    """The same generate arguments as _sample, on `batch` copies of the prompt at once."""
    ids = torch.tensor([spec["prompt_ids"]] * batch, dtype=torch.long, device=device)
    kwargs = dict(
        attention_mask=torch.ones_like(ids),
        max_new_tokens=spec["reply_tokens"],
        do_sample=True,
        temperature=spec["temperature"],
        top_p=spec["top_p"],
        top_k=0,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        output_logits=True,
        return_dict_in_generate=True,
    )
    model.eval()
    seconds, tokens = [], 0
    with torch.no_grad():
        model.generate(ids, **{**kwargs, "max_new_tokens": 4})  # warm-up
        for _ in range(reps):
            sync(device)
            began = time.perf_counter()
            out = model.generate(ids, **kwargs)
            sync(device)
            seconds.append(time.perf_counter() - began)
            tokens += generated_tokens(out.sequences, ids.shape[1], tokenizer.eos_token_id)
    return {"path": "model.generate (same arguments as _sample)", "seconds_per_call": seconds, "tokens": tokens, "seconds": sum(seconds)}


def smoke_batch(spec: dict, batch: int, device: torch.device, seed: int = 1):
    """A batch laid out as Verl's agent loop hands it to the smoke's update (see the module doc)."""
    g = torch.Generator().manual_seed(seed)
    vocab = spec["vocab_size"]
    prompt_ids = torch.tensor(spec["prompt_ids"], dtype=torch.long)
    pw, rw = spec["prompt_budget"], spec["response_budget"]
    reply, obs = spec["reply_tokens"], spec["observation_tokens"]
    used = reply * spec["replies_per_episode"] + obs * (spec["replies_per_episode"] - 1)
    prompts = torch.zeros(batch, pw, dtype=torch.long)
    prompts[:, pw - len(prompt_ids) :] = prompt_ids
    prompt_mask = torch.zeros(batch, pw, dtype=torch.long)
    prompt_mask[:, pw - len(prompt_ids) :] = 1
    responses = torch.zeros(batch, rw, dtype=torch.long)
    responses[:, :used] = torch.randint(3, vocab, (batch, used), generator=g)
    response_mask = torch.zeros(batch, rw, dtype=torch.long)
    at = 0
    for turn in range(spec["replies_per_episode"]):
        response_mask[:, at : at + reply] = 1
        at += reply + obs
    response_attention = torch.zeros(batch, rw, dtype=torch.long)
    response_attention[:, :used] = 1
    attention_mask = torch.cat([prompt_mask, response_attention], dim=1)
    position_ids = torch.clamp(torch.cumsum(attention_mask, dim=-1) - 1, min=0)
    # GRPO advantages of groups of two with different returns: +-0.7071 on every response token.
    signs = torch.tensor([1.0 if i % 2 == 0 else -1.0 for i in range(batch)]).unsqueeze(1)
    advantages = signs * 0.7071 * response_mask.float()
    tensors = {
        "prompts": prompts,
        "responses": responses,
        "input_ids": torch.cat([prompts, responses], dim=1),
        "attention_mask": attention_mask,
        "position_ids": position_ids,
        "response_mask": response_mask,
        "advantages": advantages,
    }
    return types.SimpleNamespace(batch={k: v.to(device) for k, v in tensors.items()})


def time_update(actor, model, optimizer, config, spec, device, batch: int, precision: str, reps: int, warmup: int) -> dict:
    data = smoke_batch(spec, batch, device)
    autocast = torch.autocast(device_type=device.type, dtype=torch.bfloat16) if precision == "bf16" else None
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)

    def once():
        if autocast is None:
            return actor.actor_update(model, optimizer, data, config)
        with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
            return actor.actor_update(model, optimizer, data, config)

    for _ in range(warmup):
        once()
    seconds, result = [], None
    for _ in range(reps):
        sync(device)
        began = time.perf_counter()
        result = once()
        sync(device)
        seconds.append(time.perf_counter() - began)
    entry = {
        "precision": precision,
        "batch": batch,
        "tokens": result.view.tokens,
        "response_length": result.view.length,
        "sequence_columns": int(result.view.input_ids.shape[1]),
        "reps": reps,
        "warmup": warmup,
        "seconds_per_update": seconds,
        "seconds_median": statistics.median(seconds),
        "tokens_per_s": result.view.tokens / statistics.median(seconds),
        "metrics": result.metrics,
    }
    if device.type == "cuda":
        entry["peak_memory_gib"] = round(torch.cuda.max_memory_allocated(device) / 2**30, 2)
    return entry


def validate_standin(actor, model, spec, device, real_modules, verl_config, standin_config) -> dict:
    """One update with Verl's functions and one with the stand-in, from the same weights and batch."""
    import verl_standin

    out = {}
    for kind in ("verl", "standin"):
        m = copy.deepcopy(model)
        opt = torch.optim.AdamW(m.parameters(), lr=spec["lr"], weight_decay=0.01)
        if kind == "standin":
            verl_standin.install()
        data = smoke_batch(spec, 2, device)
        began = time.perf_counter()
        result = actor.actor_update(m, opt, data, verl_config if kind == "verl" else standin_config)
        out[kind] = {
            "seconds": time.perf_counter() - began,
            "metrics": result.metrics,
            "weight_sum": float(sum(p.detach().double().sum() for p in m.parameters())),
        }
        del m, opt
    for name in [k for k in sys.modules if k == "verl" or k.startswith("verl.")]:
        del sys.modules[name]
    sys.modules.update(real_modules)
    keys = ("actor/pg_loss", "actor/entropy", "actor/grad_norm", "actor/ppo_kl")
    out["max_abs_metric_diff"] = max(abs(out["verl"]["metrics"][k] - out["standin"]["metrics"][k]) for k in keys)
    out["weight_sum_diff"] = abs(out["verl"]["weight_sum"] - out["standin"]["weight_sum"])
    return out


def verl_composed_config(spec: dict):
    """Verl's own ppo_trainer config with the smoke's settings (as `gp train --smoke` passes them)."""
    import verl
    from hydra import compose, initialize_config_dir

    overrides = [
        f"actor_rollout_ref.rollout.temperature={spec['temperature']}",
        f"actor_rollout_ref.rollout.top_p={spec['top_p']}",
        "algorithm.adv_estimator=grpo",
        "data.train_batch_size=1",
        "actor_rollout_ref.rollout.n=2",
        "actor_rollout_ref.actor.ppo_mini_batch_size=1",
        f"actor_rollout_ref.actor.optim.lr={spec['lr']}",
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2",
        f"actor_rollout_ref.actor.entropy_coeff={spec['entropy_coeff']}",
    ]
    with initialize_config_dir(config_dir=os.path.join(os.path.dirname(verl.__file__), "trainer", "config"), version_base=None):
        return compose(config_name="ppo_trainer", overrides=overrides)


def ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--assets", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    parser.add_argument("--loss", default="auto", choices=("auto", "standin", "verl", "both"))
    parser.add_argument("--gen-batches", default=None, help="batch sizes for generate beyond the smoke's batch 1 (default: 2,8 on CPU; 2,8,64 on a GPU)")
    parser.add_argument("--update-batches", default=None, help="update batch sizes (default: 2,8 on CPU; 2,8,32 on a GPU); 2 is the smoke's")
    parser.add_argument("--precisions", default="fp32,bf16")
    parser.add_argument("--only", default="both", choices=("both", "generation", "update"), help="time only one half")
    parser.add_argument("--reps", type=int, default=None, help="timed repetitions per figure (default 1 on CPU, 5 on a GPU)")
    parser.add_argument("--budget-s", type=float, default=1e9)
    parser.add_argument("--layers", type=int, default=None, help="fewer layers than the config's, to try the script quickly (not for figures)")
    args = parser.parse_args(argv)

    device = torch.device("cuda" if (args.device == "cuda" or (args.device == "auto" and torch.cuda.is_available())) else "cpu")
    gpu = device.type == "cuda"
    gen_batches = ints(args.gen_batches) if args.gen_batches else ([2, 8, 64] if gpu else [2, 8])
    update_batches = ints(args.update_batches) if args.update_batches else ([2, 8, 32] if gpu else [2, 8])
    precisions = [p for p in args.precisions.split(",") if p]
    reps = args.reps or (5 if gpu else 1)

    report = Report(args.out)
    report.data["machine"] = machine(device)
    report.data["argv"] = sys.argv[1:]
    with open(os.path.join(args.assets, "prompt.json"), encoding="utf-8") as handle:
        spec = json.load(handle)

    loss_kind, real_modules = choose_loss(args.loss, report)
    actor = load_file("gp_smoke_actor", os.path.join(SMOKE, "actor.py"))
    model_policy = load_file("gp_smoke_model_policy", os.path.join(SMOKE, "model_policy.py"))
    import verl_standin
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(args.assets)
    model, model_info = build_model(args.assets, device, args.layers)
    spec["vocab_size"] = model.config.vocab_size
    report.data["model"] = model_info
    report.data["smoke_shapes"] = {k: v for k, v in spec.items() if k != "prompt_ids"} | {"prompt_tokens": len(spec["prompt_ids"])}
    report.save()

    standin_config = verl_standin.smoke_config(spec["temperature"], spec["top_p"], spec["lr"], spec["entropy_coeff"])
    config = standin_config
    if real_modules is not None:
        config = verl_composed_config(spec)
        if loss_kind == "both":
            try:
                report.data["standin_check"] = validate_standin(actor, model, spec, device, real_modules, config, standin_config)
            except Exception as error:  # noqa: BLE001
                report.data["errors"].append({"what": "standin_check", "error": traceback.format_exc()})
            # Time with the stand-in, as on a machine without Verl.
            verl_standin.install()
            config = standin_config
            report.data["verl"]["used_for_timings"] = "standin (bench/gpu/verl_standin.py), checked against verl above"
        report.save()

    # 1. Generation: fp32 weights, then a bf16 copy.
    models = {"fp32": model}
    for precision in precisions:
        if precision not in models:
            models[precision] = copy.deepcopy(model).to(torch.bfloat16)
        m = models[precision]
        jobs = [("smoke", 1), ("generate", 1)] + [("generate", b) for b in gen_batches] if args.only != "update" else []
        for path, batch in jobs:
            if elapsed() > args.budget_s:
                report.data["skipped"].append(f"generation {precision} batch {batch}: budget")
                continue
            try:
                r = reps if batch <= 8 or gpu else 1
                if path == "smoke":
                    entry = time_smoke_sample(model_policy, m, tokenizer, spec, device, r)
                else:
                    entry = time_generate(m, tokenizer, spec, device, batch, r)
                entry.update(precision=precision, batch=batch, prompt_tokens=len(spec["prompt_ids"]), max_new_tokens=spec["reply_tokens"], reps=r)
                entry["tokens_per_s"] = entry["tokens"] / entry["seconds"]
                # The median call, so one slow first call (allocator growth) does not weigh on the figure.
                entry["tokens_per_s_median_call"] = entry["tokens"] / r / statistics.median(entry["seconds_per_call"])
                report.data["generation"].append(entry)
                print(f"[{elapsed():7.1f}s] generation {precision} batch {batch}: {entry['tokens_per_s']:.1f} tokens/s ({entry['path']})", flush=True)
            except Exception as error:  # noqa: BLE001
                report.data["errors"].append({"what": f"generation {precision} batch {batch} {path}", "error": traceback.format_exc()[-3000:]})
                print(f"generation {precision} batch {batch} failed: {error}", flush=True)
                if gpu:
                    torch.cuda.empty_cache()
            report.save()
    for key in [k for k in models if k != "fp32"]:
        del models[key]
    if gpu:
        torch.cuda.empty_cache()

    # 2. The actor update: fp32 weights and AdamW; bf16 is autocast over them.
    optimizer = torch.optim.AdamW(model.parameters(), lr=spec["lr"], weight_decay=0.01)
    for precision in precisions if args.only != "generation" else []:
        for batch in update_batches:
            if elapsed() > args.budget_s:
                report.data["skipped"].append(f"update {precision} batch {batch}: budget")
                continue
            try:
                warmup = 1 if (gpu or batch == min(update_batches)) else 0
                entry = time_update(
                    actor, model, optimizer, config, spec, device, batch, precision, reps if (gpu or batch == min(update_batches)) else 1, warmup
                )
                report.data["update"].append(entry)
                print(
                    f"[{elapsed():7.1f}s] update {precision} batch {batch}: {entry['tokens_per_s']:.1f} tokens/s, {entry['seconds_median']:.3f} s ({entry['tokens']} tokens)",
                    flush=True,
                )
            except Exception as error:  # noqa: BLE001
                report.data["errors"].append({"what": f"update {precision} batch {batch}", "error": traceback.format_exc()[-3000:]})
                print(f"update {precision} batch {batch} failed: {error}", flush=True)
                optimizer.zero_grad(set_to_none=True)
                if gpu:
                    torch.cuda.empty_cache()
            report.save()

    # 3. A smoke step's two halves at these speeds: 4 replies of 48 tokens at batch 1, one update at batch 2.
    estimate = {}
    for precision in precisions:
        g = next((e for e in report.data["generation"] if e["precision"] == precision and e["batch"] == 1), None)  # _sample first, generate if it failed
        u = next((e for e in report.data["update"] if e["precision"] == precision and e["batch"] == 2), None)
        if g and u:
            gen_s = spec["samples_per_step"] * spec["replies_per_episode"] * spec["reply_tokens"] / g["tokens_per_s"]
            estimate[precision] = {"generation_s": gen_s, "update_s": u["seconds_median"], "two_halves_s": gen_s + u["seconds_median"]}
    report.data["smoke_step_estimate"] = estimate
    report.data["machine"]["loadavg_end"] = os.getloadavg()
    report.save()
    print(json.dumps({k: report.data[k] for k in ("machine", "verl", "smoke_step_estimate", "skipped")}, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
