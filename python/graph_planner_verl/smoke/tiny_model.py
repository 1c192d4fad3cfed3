"""A tiny random Qwen2-architecture causal LM with a byte-level BPE tokenizer trained here.

No registry we can reach ships model weights, and the smoke run only needs the mechanics: a
tokenizer with a ChatML template that round-trips any text exactly (byte-level, no clean-up of
spaces), and a model small enough for one real update on CPU. Built in seconds and cached by its
recipe version, so a second smoke run reuses it.
"""

from __future__ import annotations

import json
import os
from typing import Iterable

from .model_folder import save_model_folder

RECIPE_VERSION = 1
CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]


def _corpus() -> Iterable[str]:
    """Text shaped like our conversations, so the vocabulary is not only single bytes."""
    words = "def class return import self path file line repo issue test graph node explore memory repair submit function parameter".split()
    for i in range(400):
        yield " ".join(words[(i + k) % len(words)] for k in range(12))
        yield f"<function=explore>\n<parameter=op>find</parameter>\n<parameter=query>{words[i % len(words)]}</parameter>\n</function>"


def build_tiny_model(directory: str, *, seed: int = 0) -> str:
    """Builds the model into ``directory`` (atomically) unless the same recipe is already there."""
    marker = os.path.join(directory, "gp_tiny_model.json")
    if os.path.exists(marker):
        with open(marker, encoding="utf-8") as handle:
            if json.load(handle).get("recipe") == RECIPE_VERSION:
                return directory

    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=1024, special_tokens=SPECIAL_TOKENS, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    bpe.train_from_iterator(_corpus(), trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        clean_up_tokenization_spaces=False,
        model_max_length=32768,
    )
    tokenizer.chat_template = CHATML_TEMPLATE

    torch.manual_seed(seed)
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=32768,
        tie_word_embeddings=True,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=None,
        torch_dtype="float32",
    )
    model = Qwen2ForCausalLM(config)

    record = {"recipe": RECIPE_VERSION, "seed": seed, "parameters": sum(p.numel() for p in model.parameters())}
    return save_model_folder(directory, tokenizer, model, "gp_tiny_model.json", record, ".tiny-model-")
