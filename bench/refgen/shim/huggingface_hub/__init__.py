"""Offline stand-in for `huggingface_hub` (bench/refgen.sh): the reference client
only imports `huggingface_hub.constants`; tokenizers are local directories."""
from . import constants  # noqa: F401
