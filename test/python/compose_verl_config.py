"""Composes Verl 0.9.1's own ``ppo_trainer`` Hydra config with the overrides in a JSON file (a list
of command-line arguments) and prints the values the test checks, as JSON. Hydra refuses a key the
config does not have, so an override that drifted from Verl fails here, not in a user's launch."""

import json
import os
import sys

import verl
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

arguments = json.load(open(sys.argv[1], encoding="utf-8"))
config_dir = os.path.join(os.path.dirname(verl.__file__), "trainer", "config")
with initialize_config_dir(config_dir=config_dir, version_base=None):
    config = compose(config_name="ppo_trainer", overrides=arguments)
keys = json.load(open(sys.argv[2], encoding="utf-8"))
print(json.dumps({key: OmegaConf.to_container(OmegaConf.create({"v": OmegaConf.select(config, key)}), resolve=False)["v"] for key in keys}))
