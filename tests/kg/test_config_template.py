"""`hopgraph init` writes kg/config_template.py; a user who keeps that file must get the
models' defaults, not an older hand copy of them."""

import tomllib

from kg.config import Settings, load_settings
from kg.config_template import DEFAULT_TOML

PATH_KEYS = {("store", "data_dir")}  # resolved against the file's folder, by design


def test_the_commented_config_loads_to_the_models_defaults(tmp_path, monkeypatch):
    for name in [k for k in __import__("os").environ if k.startswith("HOPGRAPH_") or k.startswith("OPENAI_")]:
        monkeypatch.delenv(name)
    path = tmp_path / "hopgraph.toml"
    path.write_text(DEFAULT_TOML, encoding="utf-8")
    loaded, defaults = load_settings(path).model_dump(), Settings().model_dump()
    differ = []
    for section, values in defaults.items():
        if not isinstance(values, dict):
            continue
        for key, value in values.items():
            if (section, key) not in PATH_KEYS and loaded[section][key] != value:
                differ.append(f"[{section}] {key}: template {loaded[section][key]!r}, model {value!r}")
    assert not differ, "hopgraph.toml template differs from the settings models: " + "; ".join(differ)


def test_every_key_of_the_template_is_a_settings_key():
    data = tomllib.loads(DEFAULT_TOML)
    fields = Settings.model_fields
    for section, values in data.items():
        assert section in fields, f"[{section}] is no settings section"
        model = fields[section].annotation
        for key in values:
            assert key in model.model_fields, f"[{section}] {key} is no settings key"
