"""Stand-in for `transformers` (bench/refgen.sh): just what InferenceX's
benchmark_serving.py uses of a fast tokenizer, with a REAL tokenizer behind it.

`AutoTokenizer.from_pretrained(DIR)` returns a `NodeTokenizer` for DIR/tokenizer.json
and DIR/tokenizer_config.json. Its encode/decode run in HuggingFace tokenizers 0.22.2
(Rust), through the node binding @anush008/tokenizers, in a tokserver.js child
process. Each Python process starts its own child on first use (keyed by pid, so a
tokenizer inherited through fork() never talks to its parent's child). Semantics, as
in transformers 4.x and as used for the golden data (/work/shared/golden/dataset):
  * vocab_size: get_vocab_size(with_added_tokens=False);
  * encode(text, add_special_tokens=False);
  * decode(ids): decode(ids, skip_special_tokens=False), then clean_up_tokenization
    when tokenizer_config.json sets clean_up_tokenization_spaces: true;
  * apply_chat_template(messages, add_generation_prompt, tokenize=False): the config's
    chat_template rendered with jinja2 as transformers does (sandboxed environment,
    trim_blocks, lstrip_blocks, loopcontrols, tojson without ASCII escaping, the
    special-token strings of the config as variables).
"""
import json
import os
import struct
import subprocess
from datetime import datetime

import jinja2.ext
import numpy as np
from jinja2.sandbox import ImmutableSandboxedEnvironment

__version__ = "4.0-refgen-stand-in"

_SERVER_JS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tokserver.js")
_SPECIAL_TOKENS = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")
_CLEANUP = ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"),
            (" n't", "n't"), (" 'm", "'m"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re"))


class PreTrainedTokenizerBase:
    pass


class PreTrainedTokenizer(PreTrainedTokenizerBase):
    pass


class PreTrainedTokenizerFast(PreTrainedTokenizerBase):
    pass


def _token_text(value):
    """A special token of tokenizer_config.json: a string or an AddedToken object."""
    return value.get("content") if isinstance(value, dict) else value


def _compile_chat_template(source):
    """transformers' _compile_jinja_template (4.x), without the generation-tag tracker."""
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    def strftime_now(fmt):
        return datetime.now().strftime(fmt)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env.from_string(source)


class _Server:
    """One tokserver.js child, owned by the process that started it."""

    def __init__(self, tokenizer_json):
        self.pid = os.getpid()
        self.proc = subprocess.Popen(["node", _SERVER_JS, tokenizer_json],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def call(self, op, payload):
        try:
            self.proc.stdin.write(struct.pack("<cI", op, len(payload)) + payload)
            self.proc.stdin.flush()
            head = self.proc.stdout.read(4)
            if len(head) == 4:
                n = struct.unpack("<I", head)[0]
                data = self.proc.stdout.read(n)
                if len(data) == n:
                    return data
        except BrokenPipeError:
            pass
        raise RuntimeError("tokserver.js (pid %d) died, exit status %s" % (self.proc.pid, self.proc.wait()))


class NodeTokenizer(PreTrainedTokenizerFast):
    def __init__(self, path):
        self.name_or_path = path
        self._tokenizer_json = os.path.join(path, "tokenizer.json")
        with open(os.path.join(path, "tokenizer_config.json"), encoding="utf-8") as f:
            config = json.load(f)
        self.clean_up_tokenization_spaces = config.get("clean_up_tokenization_spaces") is True
        self.special_tokens_map = {k: _token_text(config[k]) for k in _SPECIAL_TOKENS if config.get(k)}
        if config.get("additional_special_tokens"):
            self.special_tokens_map["additional_special_tokens"] = [
                _token_text(t) for t in config["additional_special_tokens"]]
        self.chat_template = config.get("chat_template")
        self._template = _compile_chat_template(self.chat_template) if self.chat_template else None
        self._server = None
        self._vocab_size = None

    def call(self, op, payload=b""):
        """One request to this process's tokserver.js (see its header for the ops)."""
        if self.server_pid() is None:
            self._server = _Server(self._tokenizer_json)
        return self._server.call(op, payload)

    def server_pid(self):
        """Pid of this process's tokserver.js, or None before its first use."""
        return self._server.proc.pid if self._server and self._server.pid == os.getpid() else None

    def close(self):
        """End this process's tokserver.js and reap it."""
        if self.server_pid():
            self._server.proc.stdin.close()
            self._server.proc.wait()
        self._server = None

    @property
    def vocab_size(self):
        if self._vocab_size is None:
            self._vocab_size = struct.unpack("<I", self.call(b"V"))[0]
        return self._vocab_size

    def encode(self, text, add_special_tokens=True):
        if add_special_tokens:
            raise NotImplementedError("stand-in tokenizer: only add_special_tokens=False")
        return np.frombuffer(self.call(b"E", text.encode("utf-8")), dtype="<u4").tolist()

    def decode(self, token_ids, skip_special_tokens=False):
        if skip_special_tokens:
            raise NotImplementedError("stand-in tokenizer: only skip_special_tokens=False")
        text = self.call(b"D", np.asarray(token_ids, dtype="<u4").tobytes()).decode("utf-8")
        if self.clean_up_tokenization_spaces:
            for old, new in _CLEANUP:
                text = text.replace(old, new)
        return text

    def apply_chat_template(self, conversation, add_generation_prompt=False, tokenize=True):
        if tokenize:
            raise NotImplementedError("stand-in tokenizer: only tokenize=False")
        if self._template is None:
            raise ValueError("Cannot use chat template functions because tokenizer.chat_template is not set "
                             "(%s)" % self.name_or_path)
        return self._template.render(messages=conversation, tools=None, documents=None,
                                     add_generation_prompt=add_generation_prompt, **self.special_tokens_map)


class AutoTokenizer:
    @classmethod
    def from_pretrained(cls, path, *args, **kwargs):
        path = str(path)
        if not os.path.isfile(os.path.join(path, "tokenizer.json")):
            raise OSError("stand-in AutoTokenizer: %s/tokenizer.json not found (only local directories)" % path)
        return NodeTokenizer(path)
