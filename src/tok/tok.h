/* tok — HuggingFace tokenizer.json tokenizers: added tokens, normalizers,
 * pre-tokenizers, the BPE model (byte-level, or SentencePiece-style with byte
 * fallback), post-processors and decoders, with the semantics of HuggingFace
 * tokenizers 0.22 (docs/tokenize.md lists what is supported).
 *
 * Errors follow base.h: 0 or a negative ib_err, details in an ib_error.
 *
 * Threads: a loaded tok is never changed by tok_decode, tok_vocab_size,
 * tok_id_to_token, tok_token_to_id, tok_id_is_special and tok_config_token,
 * which may run concurrently (the first tok_decode of a ByteLevel decoder
 * builds a table of each id's bytes, published atomically). tok_encode uses buffers and a word
 * cache kept inside the tok, so calls of tok_encode on one tok must not overlap (load one tok per
 * encoding thread, or serialise the calls).
 */
#ifndef IB_TOK_H
#define IB_TOK_H

#include "base/base.h"

#include <stdlib.h>

typedef struct tok tok;

/* Loads a tokenizer. `path` is a tokenizer.json file, or a folder that holds
 * tokenizer.json and, optionally, tokenizer_config.json (read for
 * tok_config_token). On success *out is a new tok the caller releases with
 * tok_free. Errors: IB_ENOENT (no such file), IB_EIO, IB_EPARSE (malformed
 * JSON, with the file, line and column), IB_EINVAL (a component type or option
 * that is not supported, or an inconsistent vocabulary; the message names the
 * JSON path and the type, e.g. "pre_tokenizer.pretokenizers[1]: unsupported
 * pre-tokenizer type 'Foo'"), IB_ENOMEM. */
int tok_load(const char *path, tok **out, ib_error *e);

/* The cache of loaded tokenizers: tok_load keeps each tokenizer.json it
 * loads as a compact binary file named by a hash of its content and the
 * cache format, and loads that instead when the content is the same (a
 * few ms instead of 0.1-0.5 s). The folder is $INFBENCH_TOK_CACHE ("off": no
 * cache), else $XDG_CACHE_HOME/infbench/tok, else $HOME/.cache/infbench/tok.
 * Files are written atomically and checked in full when read: a damaged or
 * foreign file is ignored and written anew. Writing is best effort (an
 * unwritable folder only means no cache). docs/tokenize.md. */

/* The cache folder in use into out (cap bytes, NUL-terminated): 1, or 0
 * with out empty when the cache is off (INFBENCH_TOK_CACHE=off, no HOME) or
 * the path does not fit. */
int tok_cache_folder(char *out, size_t cap);

/* Whether t was loaded from the cache. */
bool tok_from_cache(const tok *t);

/* The SHA-256 of the tokenizer.json t was loaded from (tok_load), as 64
 * lowercase hex digits and a NUL: kept in the cache file, else computed from
 * the file on the first call (so, like tok_encode, not concurrently with
 * another call on t). Errors: IB_EINVAL for a tok loaded from memory
 * (tok_load_json), the file's read error. */
int tok_source_sha256(tok *t, char hex[65], ib_error *e);

/* The same from tokenizer.json text in memory; `name` is used in messages.
 * The text is copied: the caller may free it afterwards. */
int tok_load_json(const char *name, const char *json, size_t len, tok **out, ib_error *e);

void tok_free(tok *t);

/* A growable list of token ids, owned by the caller; free with tok_ids_free.
 * A zeroed tok_ids is an empty list. */
typedef struct {
	uint32_t *v;
	size_t n, cap;
} tok_ids;

void tok_ids_free(tok_ids *ids);

/* Appends id, doubling the room when full; 0 or IB_ENOMEM (ids unchanged).
 * Inline: the encoder calls it once per token. */
static inline int tok_ids_push(tok_ids *ids, uint32_t id)
{
	if (ids->n == ids->cap && ib_grow(&ids->v, &ids->cap, ids->n + 1))
		return IB_ENOMEM;
	ids->v[ids->n++] = id;
	return 0;
}

/* Encodes `len` bytes of UTF-8 text (NULs allowed) as HuggingFace
 * `Tokenizer.encode(text, add_special_tokens)` does and appends the ids to
 * *out. Added tokens written literally in the text always become their ids;
 * add_special only decides whether the post-processor adds its special tokens
 * (e.g. a TemplateProcessing BOS). Errors: IB_EINVAL for text that is not valid
 * UTF-8 (the message gives the byte offset) or for a model whose unk_token is
 * not in its vocabulary (when an unknown character needs it), IB_ERANGE when
 * the regex engine gives up on a piece, IB_ENOMEM. On error *out keeps the ids
 * it had before. */
int tok_encode(tok *t, const char *text, size_t len, bool add_special, tok_ids *out, ib_error *e);
/* tok_encode of text that the caller knows to be valid UTF-8, such as
 * tok_decode's output (always valid) with ASCII bytes removed: the check is
 * skipped. The text MUST be valid UTF-8: the regex engine is not asked to
 * check it either, and invalid text is undefined behaviour. */
int tok_encode_valid(tok *t, const char *text, size_t len, bool add_special, tok_ids *out,
                     ib_error *e);
/* tok_encode remembers the ids of the pieces it tokenized (a few thousand,
 * emptied when full) so that text that repeats them costs a lookup each.
 * tok_encode_forget empties that memo: a caller that moves on to unrelated
 * text (the next random prompt, whose pieces its own re-encodings repeat)
 * keeps it small. Results never depend on it. */
void tok_encode_forget(tok *t);

/* Decodes ids as HuggingFace `Tokenizer.decode(ids, skip_special_tokens)` does
 * and appends the UTF-8 text to *out. Ids that have no token are left out (as
 * in HuggingFace); with skip_special, tokens whose text is a special added
 * token are left out. Byte sequences that are not valid UTF-8 become U+FFFD as
 * the decoders specify. Errors: IB_ENOMEM, or IB_ERANGE when the regex of a
 * Replace decoder gives up. */
int tok_decode(const tok *t, const uint32_t *ids, size_t n, bool skip_special, ib_buf *out,
               ib_error *e);

/* The model vocabulary size without added tokens (transformers'
 * tokenizer.vocab_size), or, with_added, the number of distinct token strings
 * of the model vocabulary and the added tokens together (len(tokenizer)). */
size_t tok_vocab_size(const tok *t, bool with_added);

/* The token text of an id (added tokens first, then the model vocabulary), or
 * NULL when the id has none. *len (if non-NULL) receives its length; the text
 * is NUL-terminated and lives as long as the tok. */
const char *tok_id_to_token(const tok *t, uint32_t id, size_t *len);

/* The id of a token text (added tokens first, then the model vocabulary), or
 * -1 when there is none. */
int64_t tok_token_to_id(const tok *t, const char *s, size_t len);

/* Whether the id is a special added token (skipped by skip_special). */
bool tok_id_is_special(const tok *t, uint32_t id);

/* A special token named in tokenizer_config.json, e.g. "bos_token",
 * "eos_token", "pad_token", "unk_token": its text (a plain string, or the
 * "content" of an AddedToken object), or NULL when the config does not set it
 * or was not loaded. Lives as long as the tok. */
const char *tok_config_token(const tok *t, const char *name);

/* Resolves a tokenizer argument (--tokenizer, --model) to a local path.
 * A name that exists on disk (file or folder), or that cannot be a model id
 * (an absolute path, "./x", more than one '/'), is returned as is, for the
 * loader to open or to report. Otherwise
 * it is read as a Hugging Face model id, "org/name" or "org/name@revision"
 * (default revision "main"), and looked up offline the way huggingface_hub
 * does: in $HF_HUB_CACHE, $HUGGINGFACE_HUB_CACHE, $HF_HOME/hub,
 * $XDG_CACHE_HOME/huggingface/hub and ~/.cache/huggingface/hub (each once,
 * in that order), the folder models--org--name, its refs/<revision> (a
 * commit) → snapshots/<commit>/, or snapshots/<revision>/ when the revision
 * is a commit; the snapshot must hold tokenizer.json. On success *out is a
 * new string (free()). Errors: IB_ENOENT, the message listing every place
 * looked and why it did not hold the tokenizer, and how to pass a folder;
 * IB_ENOMEM. */
int tok_resolve(const char *name, char **out, ib_error *e);

/* The cache folders tok_resolve looks in, in order, without duplicates:
 * fills caches[i] (NUL-terminated) and origin[i] (e.g. "$HF_HOME/hub");
 * returns how many (at most cap). */
int tok_hf_caches(char caches[][1024], const char *origin[], size_t cap);

#endif
