"""The settings check themselves: a bad chain type or hop range is refused
where it is read (file, environment, command line), in one line naming the key."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from builders.chains.chain_types import chain_type
from kg.config import Settings, load_settings, override
from kg.errors import ConfigError


def test_a_misspelt_chain_type_in_the_file_names_the_key_and_the_choices(tmp_path):
    path = tmp_path / "hopgraph.toml"
    path.write_text('[generate]\ntypes = ["text_chan"]\n')
    with pytest.raises(ConfigError) as caught:
        load_settings(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: generate.types: unknown chain type 'text_chan'")
    assert "text_chain" in message and "\n" not in message


def test_hops_out_of_order_in_the_file_are_refused(tmp_path):
    path = tmp_path / "hopgraph.toml"
    path.write_text("[generate]\nmin_hops = 4\nmax_hops = 2\n")
    with pytest.raises(ConfigError, match=r"generate: min_hops \(4\) is above max_hops \(2\)"):
        load_settings(path)


def test_the_model_itself_refuses_what_the_cli_used_to_catch():
    with pytest.raises(ValidationError):
        Settings(generate={"types": ["text_chan"]})
    with pytest.raises(ValidationError):
        Settings(generate={"min_hops": 4, "max_hops": 2})
    with pytest.raises(ValidationError):
        Settings(generate={"types": []})
    assert Settings(generate={"min_hops": 3, "max_hops": 3}).generate.max_hops == 3


def test_command_line_values_get_the_same_rules_and_name_the_key():
    settings = Settings()
    override(settings, "generate", min_hops=5, max_hops=6)  # both at once: valid together
    assert (settings.generate.min_hops, settings.generate.max_hops) == (5, 6)
    with pytest.raises(ConfigError, match=r"^generate: min_hops \(5\) is above max_hops \(3\)$"):
        override(settings, "generate", max_hops=3)
    assert settings.generate.max_hops == 6  # a refused value leaves the settings as they were
    with pytest.raises(ConfigError, match=r"^ingest.executor: "):
        override(settings, "ingest", executor="dask")
    with pytest.raises(ConfigError, match=r"^export.formats.0: "):
        override(settings, "export", formats=["csv"])
    override(settings, "generate", n=None, seed=3)  # None: not given, left as it was
    assert settings.generate.seed == 3 and settings.generate.n == Settings().generate.n


def test_an_unknown_chain_type_name_is_a_clear_error():
    assert chain_type("text_chain").serial
    with pytest.raises(ConfigError, match="unknown chain type 'text_chan'; choose from text_chain"):
        chain_type("text_chan")

