"""The smoke run's real policy model: SmolLM2-135M-Instruct, read once from the GGUF file that
``scripts/setup-language-model.sh`` installs and kept as a Hugging Face folder (safetensors,
tokenizer, chat template) beside the tiny model's cache.

transformers reads a GGUF file by dequantising it to float (``gguf_file=``), which takes tens of
seconds and needs the ``gguf`` package; the folder written here loads in about a second, and Verl's
dataset and agent loop read the tokenizer from it by path like any other model's. The folder is
staged and renamed into place, so a cut-short conversion never leaves a half-written model, and it
is rebuilt when the recipe or the source file changes.
"""

from __future__ import annotations

import json
import os

from .model_folder import save_model_folder

RECIPE_VERSION = 1
MARKER = "gp_language_model.json"
# SmolLM2's chat template ends each turn with <|im_end|>, and the model stops there; its GGUF
# metadata names <|im_start|> as the end token instead, so generation would never stop at a turn's
# end. <|endoftext|> pads, so padding is never mistaken for a turn's end.
END_OF_TURN = "<|im_end|>"
PAD = "<|endoftext|>"


def _source_id(gguf_path: str) -> dict[str, object]:
    stat = os.stat(gguf_path)
    return {"recipe": RECIPE_VERSION, "source": os.path.basename(gguf_path), "bytes": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def convert_language_model(gguf_path: str, directory: str) -> str:
    """Writes the model of ``gguf_path`` into ``directory`` as a Hugging Face folder, unless it is already there."""
    if not os.path.isfile(gguf_path):
        raise FileNotFoundError(f"{gguf_path} is missing: run bash scripts/setup-language-model.sh (or pass --smoke-policy scripted)")
    want = _source_id(gguf_path)
    marker = os.path.join(directory, MARKER)
    if os.path.exists(marker):
        with open(marker, encoding="utf-8") as handle:
            if json.load(handle) == want:
                return directory

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder, name = os.path.split(os.path.abspath(gguf_path))
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    tokenizer.eos_token = END_OF_TURN
    tokenizer.pad_token = PAD
    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32)
    model.config.eos_token_id = tokenizer.eos_token_id
    model.config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id

    return save_model_folder(directory, tokenizer, model, MARKER, want, ".language-model-")
