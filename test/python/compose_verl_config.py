"""Composes Verl 0.9.1's own ``ppo_trainer`` Hydra config with the overrides in JSON files (each a
list of command-line arguments, with a file of the keys to read back) and prints, one JSON line per
pair in order, the values the test checks or the error Hydra raised. Hydra refuses a key the config
does not have, so an override that drifted from Verl fails here, not in a user's launch. All pairs
share one process because importing Verl takes seconds."""

import json
import os
import sys
import traceback

import verl
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

config_dir = os.path.join(os.path.dirname(verl.__file__), "trainer", "config")
pairs = sys.argv[1:]
if len(pairs) == 0 or len(pairs) % 2 != 0:
    sys.exit("usage: compose_verl_config.py ARGS.json KEYS.json [ARGS.json KEYS.json ...]")
for arguments_file, keys_file in zip(pairs[0::2], pairs[1::2]):
    arguments = json.load(open(arguments_file, encoding="utf-8"))
    keys = json.load(open(keys_file, encoding="utf-8"))
    try:
        with initialize_config_dir(config_dir=config_dir, version_base=None):
            config = compose(config_name="ppo_trainer", overrides=arguments)
        values = {key: OmegaConf.to_container(OmegaConf.create({"v": OmegaConf.select(config, key)}), resolve=False)["v"] for key in keys}
        print(json.dumps({"values": values}), flush=True)
    except Exception:  # noqa: BLE001 - every refusal is reported for its own config
        print(json.dumps({"error": traceback.format_exc()[-2000:]}), flush=True)
