"""Writing a model folder for the smoke run: tokenizer, weights and a marker that says what was
written, staged beside the folder and renamed into place, so a cut-short write never leaves a
half-written model where a later run would load it."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from typing import Any


def save_model_folder(directory: str, tokenizer: Any, model: Any, marker: str, record: dict[str, object], prefix: str) -> str:
    """Saves ``tokenizer`` and ``model`` into ``directory`` with ``record`` in the file ``marker``; returns ``directory``."""
    parent = os.path.dirname(os.path.abspath(directory))
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=prefix, dir=parent)
    try:
        tokenizer.save_pretrained(staging)
        model.save_pretrained(staging)
        with open(os.path.join(staging, marker), "w", encoding="utf-8") as handle:
            json.dump(record, handle)
        if os.path.exists(directory):
            shutil.rmtree(directory)
        os.replace(staging, directory)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return directory
