import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))


@pytest.fixture(scope="session")
def tiny_tokenizer(tmp_path_factory):
    """The smoke run's tokenizer, built offline (graph_planner_verl/smoke/tiny_model.py)."""
    from transformers import AutoTokenizer

    from graph_planner_verl.smoke.tiny_model import build_tiny_model

    return AutoTokenizer.from_pretrained(build_tiny_model(str(tmp_path_factory.mktemp("tiny") / "model")))
