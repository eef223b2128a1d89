/* tok internals shared by the files of src/tok/. Not part of the public face. */
#ifndef IB_TOK_PRIVATE_H
#define IB_TOK_PRIVATE_H

#include "tok/tok.h"

#include <stdatomic.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

/* Token ids are below this: a larger one is taken as a broken file. The id
 * tables are sized by the largest id (16.7M ids: 64x the largest real
 * vocabularies, ~262k; 2^28 let one entry of a fuzzed file ask for 2 GB). */
#define TOK_MAX_ID (1 << 24)

/* ---- json.c: a small, fast JSON reader for tokenizer.json ----
 *
 * A tokenizer.json holds 10^5-10^6 vocabulary entries and merges; reading it
 * into a general value tree costs about a second for the biggest files, so tok
 * has a compact reader of its own (docs/tokenize.md). Nodes live in an arena;
 * strings are decoded to UTF-8, NUL-terminated, and point into the arena or
 * into the input text, so the input must outlive the tree. */
typedef enum { TJ_NULL, TJ_FALSE, TJ_TRUE, TJ_INT, TJ_NUM, TJ_STR, TJ_ARR, TJ_OBJ } tj_type;

typedef struct tj tj;
struct tj {
	uint32_t type; /* tj_type */
	uint32_t n;    /* STR: byte length; ARR: items; OBJ: keys */
	union {
		const char *s; /* STR */
		int64_t i;     /* INT */
		double f;      /* NUM */
		tj *items;     /* ARR: n values; OBJ: 2n nodes, key then value */
	};
};

/* Parses text[0..len) (which must stay alive, is modified in place, and must
 * be followed by a NUL byte, as ib_buf guarantees) into *out. Malformed JSON
 * or invalid UTF-8: IB_EPARSE with name, line and column. */
int tj_parse(ib_arena *a, const char *name, char *text, size_t len, tj **out, ib_error *e);
/* The value of the last `key` in object o, or NULL. */
const tj *tj_get(const tj *o, const char *key);
const char *tj_type_name(const tj *v);

/* ---- uni.c: UTF-8 and the Unicode properties HuggingFace uses ---- */

/* Offset of the first byte that is not part of valid UTF-8 (no surrogates, no
 * overlong forms, nothing above U+10FFFF), or len when all is valid. */
size_t tok_utf8_check(const char *s, size_t len);
/* Decodes the code point at s[*i] of valid UTF-8 and advances *i. */
uint32_t tok_utf8_next(const char *s, size_t *i);
/* Length of the UTF-8 sequence that starts with byte b (1 for continuation
 * bytes, so that loops always advance). */
static inline size_t tok_utf8_len(unsigned char b)
{
	return b < 0xC0 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
}
/* Writes cp as UTF-8 into out (4 bytes room); returns the length. */
size_t tok_utf8_put(char *out, uint32_t cp);

bool tok_uc_space(uint32_t c);   /* Rust char::is_whitespace (White_Space) */
bool tok_uc_word(uint32_t c);    /* Rust regex \w */
bool tok_uc_numeric(uint32_t c); /* Rust char::is_numeric (Nd, Nl, No) */
bool tok_uc_punct(uint32_t c);   /* ASCII punctuation or a P* category */

enum { TOK_NFC, TOK_NFD, TOK_NFKC, TOK_NFKD };
/* Appends the normal form of valid UTF-8 s to out. */
int tok_uc_normalize(ib_buf *out, const char *s, size_t len, int form);
/* Appends Rust's per-character to_lowercase of s. */
int tok_uc_lower(ib_buf *out, const char *s, size_t len);
/* Appends s with each maximal invalid subpart replaced by U+FFFD (Rust
 * String::from_utf8_lossy). */
int tok_utf8_lossy(ib_buf *out, const char *s, size_t len);

/* GPT-2 byte-level alphabet: the code point each byte stands as, and back.
 * Printable bytes (0x21-0x7E, 0xA1-0xAC, 0xAE-0xFF) stand as themselves, the
 * other 68 as U+0100.. in byte order. */
static inline uint32_t tok_byte_to_cp(unsigned char b)
{
	if ((b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b != 0xAD))
		return b;
	if (b <= 0x20)
		return 0x100u + b;
	if (b <= 0xA0)
		return 0x100u + 33 + (b - 0x7Fu);
	return 0x143; /* 0xAD */
}
/* The byte a byte-level code point stands for, or -1. */
int tok_cp_to_byte(uint32_t cp);

/* ---- vocab.c: hash tables ---- */

/* Hash of a byte string. */
uint64_t tok_hash(const char *s, size_t len);

/* String -> u32 map. Keys are not copied: they must outlive the map. */
typedef struct {
	const char *k;
	uint32_t len;
	uint32_t val;
} tok_sent;
typedef struct {
	tok_sent *e;
	size_t n, cap;  /* entries */
	uint64_t *slot; /* 0 empty; see vocab.c */
	size_t mask;
} tok_smap;
/* Inserts or, when the key is there, overwrites. */
int tok_smap_put(tok_smap *m, const char *k, size_t len, uint32_t val);
bool tok_smap_get(const tok_smap *m, const char *k, size_t len, uint32_t *val);
/* The same with h = tok_hash(k, len) already known. */
bool tok_smap_get_h(const tok_smap *m, const char *k, size_t len, uint64_t h, uint32_t *val);
void tok_smap_free(tok_smap *m);

/* (u32, u32) -> (rank, id) map for BPE merges; one 16-byte slot per probe. */
typedef struct {
	struct tok_pslot {
		uint64_t key; /* UINT64_MAX when empty */
		uint32_t rank, id;
	} * slot;
	size_t n, mask;
} tok_pmap;
/* Room for `expect` distinct pairs. */
int tok_pmap_init(tok_pmap *m, size_t expect);
/* Inserts or overwrites (a later merge of the same pair wins, as in HF). */
void tok_pmap_put(tok_pmap *m, uint32_t a, uint32_t b, uint32_t rank, uint32_t id);
static inline bool tok_pmap_get(const tok_pmap *m, uint32_t a, uint32_t b, uint32_t *rank,
                                uint32_t *id)
{
	uint64_t k = (uint64_t)a << 32 | b;
	uint64_t h = k * 0x9E3779B97F4A7C15ull;
	size_t i = (size_t)(h >> 20) & m->mask;
	for (;;) {
		const struct tok_pslot *x = &m->slot[i];
		if (x->key == k) {
			*rank = x->rank;
			*id = x->id;
			return true;
		}
		if (x->key == UINT64_MAX)
			return false;
		i = (i + 1) & m->mask;
	}
}
/* Asks the CPU to fetch the slot where tok_pmap_get(m, a, b) starts. */
static inline void tok_pmap_prefetch(const tok_pmap *m, uint32_t a, uint32_t b)
{
	uint64_t k = (uint64_t)a << 32 | b;
	__builtin_prefetch(&m->slot[(size_t)((k * 0x9E3779B97F4A7C15ull) >> 20) & m->mask]);
}
void tok_pmap_free(tok_pmap *m);

/* Byte trie of added-token texts for leftmost-longest matching. */
typedef struct {
	uint32_t root[256];      /* node index + 1, 0 none */
	int nroots;              /* distinct first bytes */
	unsigned char only_root; /* the first byte when nroots == 1 */
	struct tok_tnode {
		uint32_t child;   /* first child node + 1 */
		uint32_t sibling; /* next sibling + 1 */
		int32_t added;    /* index in tok.added when a token ends here, else -1 */
		uint8_t byte;
	} * node;
	size_t n, cap;
} tok_trie;
int tok_trie_add(tok_trie *t, const char *s, size_t len, int32_t added);
/* The longest token that starts at s[0]: its length, and *added; 0 if none. */
size_t tok_trie_longest(const tok_trie *t, const char *s, size_t len, int32_t *added);
void tok_trie_free(tok_trie *t);

/* ---- regex ---- */
typedef struct {
	pcre2_code *code; /* NULL for a literal */
	const char *src;  /* the pattern as written (a literal: the text) */
	size_t src_len;
	bool jit;    /* code was compiled by the JIT: matched through pcre2_jit_match */
	bool llama3; /* the pattern is TOK_LLAMA3_RE: tok_split_llama3 matches it */
} tok_re;

/* ---- components (load.c builds them, encode.c / decode.c run them) ---- */
enum {
	TN_SEQ,
	TN_NFC,
	TN_NFD,
	TN_NFKC,
	TN_NFKD,
	TN_LOWER,
	TN_REPLACE,
	TN_PREPEND,
	TN_STRIP,
	TN_BYTELEVEL
};
typedef struct tok_norm tok_norm;
struct tok_norm {
	int kind;
	tok_norm **sub;
	size_t nsub;
	tok_re re;       /* REPLACE */
	const char *str; /* REPLACE content, PREPEND text */
	size_t slen;
	bool left, right; /* STRIP */
};

enum {
	TP_SEQ,
	TP_BYTELEVEL,
	TP_SPLIT,
	TP_DIGITS,
	TP_METASPACE,
	TP_WHITESPACE,
	TP_WSSPLIT,
	TP_PUNCT
};
enum { TB_REMOVED, TB_ISOLATED, TB_PREVIOUS, TB_NEXT, TB_CONTIGUOUS };
enum { TM_ALWAYS, TM_FIRST, TM_NEVER };
typedef struct tok_pre tok_pre;
struct tok_pre {
	int kind;
	tok_pre **sub;
	size_t nsub;
	tok_re re; /* SPLIT; BYTELEVEL with use_regex; WHITESPACE */
	int behavior;
	bool invert, add_prefix_space, use_regex, individual_digits, split;
	int prepend_scheme;
	char repl[5]; /* METASPACE replacement, UTF-8 */
	size_t repl_len;
};

enum { TD_SEQ, TD_BYTELEVEL, TD_METASPACE, TD_BYTEFALLBACK, TD_FUSE, TD_STRIP, TD_REPLACE };
typedef struct tok_dec tok_dec;
struct tok_dec {
	int kind;
	tok_dec **sub;
	size_t nsub;
	tok_re re;       /* REPLACE */
	const char *str; /* REPLACE content */
	size_t slen;
	char ch[5]; /* STRIP content, METASPACE replacement (UTF-8) */
	size_t ch_len;
	size_t start, stop; /* STRIP */
	bool prepend_never; /* METASPACE */
};

enum { TPP_BYTELEVEL, TPP_TEMPLATE, TPP_SEQ };
typedef struct tok_post tok_post;
struct tok_post {
	int kind;
	tok_post **sub;
	size_t nsub;
	/* TEMPLATE, single sequence: the pieces in order; a piece is sequence A
	 * (seq) or the ids of a special token */
	struct tok_tpl {
		bool seq;
		const uint32_t *ids;
		size_t n;
	} * tpl;
	size_t ntpl;
};

typedef struct {
	const char *content;
	size_t len;
	uint32_t id;
	bool special, lstrip, rstrip, normalized, single_word;
} tok_added;

/* ---- bpe.c ---- */
typedef struct {
	tok_smap vocab;   /* token -> id */
	tok_pmap merges;  /* (left id, right id) -> (rank, merged id) */
	const char *unk;  /* unk_token or NULL */
	const char *cont; /* continuing_subword_prefix (NULL when absent or empty) */
	const char *eow;  /* end_of_word_suffix (NULL when absent or empty) */
	size_t cont_len, eow_len;
	bool fuse_unk, byte_fallback, ignore_merges;
	/* a merge result holds U+2581 right after another character (set by
	 * the merges; kept in the cache) */
	bool joins_meta;
	/* words may be cut before each U+2581 that follows another character:
	 * set at load when no merge result contains such a pair (bpe.c) */
	bool split_meta;
	int64_t byte_id[256]; /* <0xNN> ids for byte fallback, -1 if absent */
	int32_t *bmp_id;      /* id of each code point of the BMP, -1 if absent */
	/* word cache: piece text -> ids */
	struct tok_centry {
		uint64_t hash;
		uint32_t koff, klen, ioff, n;
	} * cache;
	size_t cache_mask, cache_n;
	ib_buf cache_pool;
	/* scratch for the merge loop */
	struct tok_sym {
		uint32_t id;
		int32_t prev, next;
		uint32_t len;
	} * sym;
	size_t sym_cap;
	struct tok_merge {
		uint64_t key; /* rank << 32 | position */
		uint32_t id;
	} * heap;
	size_t heap_cap;
} tok_bpe;

/* Whether a merge result r contains a U+2581 right after another character
 * (which rules out split_meta). */
bool tok_bpe_merge_joins_meta(const char *r, size_t n);
/* Appends the ids of one pre-tokenized piece. */
int tok_bpe_tokenize(tok_bpe *m, const char *s, size_t len, tok_ids *out, ib_error *e);
/* The same when h = tok_hash(s, len) is known. */
int tok_bpe_tokenize_h(tok_bpe *m, const char *s, size_t len, uint64_t h, tok_ids *out,
                       ib_error *e);
/* Asks the CPU to fetch what the first lookup of a piece whose tok_hash is h
 * reads (the vocabulary's slot and the word cache's); a hint, nothing more. */
void tok_bpe_prefetch(const tok_bpe *m, uint64_t h);
void tok_bpe_free(tok_bpe *m);

/* ---- the tokenizer ---- */
typedef struct {
	size_t off, len; /* in tok.pool */
	int64_t id;      /* an added token's id, or -1 */
	bool first;      /* starts at the start of the input (Metaspace "first") */
} tok_piece;

typedef struct {
	tok_piece *v;
	size_t n, cap;
} tok_pieces;

/* A part of a string: a regex match or the text between matches. */
typedef struct {
	size_t start, end;
	bool match;
} tok_span;
typedef struct {
	tok_span *v;
	size_t n, cap;
} tok_spans;

struct tok {
	char *name;
	ib_arena *arena; /* components and the strings they keep */
	tok_bpe bpe;
	tok_norm *norm;
	tok_pre *pre;
	tok_post *post;
	tok_dec *dec;
	/* added tokens, in the order of tokenizer.json */
	tok_added *added;
	size_t nadded;
	tok_smap added_map;   /* content -> id */
	tok_smap special_set; /* texts of the special added tokens */
	tok_trie raw_trie, norm_trie;
	bool have_raw_trie, have_norm_trie;
	/* id -> token */
	const char **id_str;
	uint32_t *id_len;
	uint8_t *id_special;
	size_t nids;
	/* ByteLevel decoding, when the decoder is a lone ByteLevel: each id's
	 * decoded bytes (its characters unmapped, or its own UTF-8 when one is
	 * not of the byte-level alphabet), so that decoding is a copy per id.
	 * Built by the first tok_decode (decode.c: it reads every token's text,
	 * which a load from the cache has not touched, ~4 ms for 128k tokens)
	 * and published atomically, since tok_decode may run concurrently;
	 * NULL until then, or for other decoders. */
	_Atomic(struct tok_dectab *) dectab;
	size_t vocab_size, vocab_size_added;
	/* tokenizer_config.json special tokens */
	const char *cfg_name[8], *cfg_val[8];
	size_t ncfg;
	/* every compiled regex, released by tok_free */
	pcre2_code **codes;
	size_t ncodes, capcodes;
	/* encode scratch */
	pcre2_match_data *md;
	pcre2_match_context *mctx;
	pcre2_jit_stack *jit;
	ib_buf pool, nbuf[2];
	tok_pieces lists[4]; /* raw split, result, spare, sub-pieces (encode.c) */
	tok_spans spans;
	/* split.c: each code point's classes for tok_split_llama3 (0: not asked
	 * yet; calloc'd at its first call) and the regexes that answer them */
	unsigned char *cls;
	pcre2_code *cls_re[3];
	/* the piece memo (encode.c): model pieces already tokenized -> their
	 * ids, in front of the model's own lookups; small enough to stay in the
	 * CPU's caches, emptied when full and by tok_encode_forget */
	struct tok_memo {
		uint64_t *slot; /* hash's high half << 32 | entry + 1; 0 empty */
		struct tok_memo_e {
			uint32_t koff, klen; /* key in keys */
			uint32_t val, n;     /* n == 1: the id; else ids[val .. val + n) */
		} * e;
		size_t n, mask;
		size_t gen; /* counts the emptyings: an entry index of an older gen is stale */
		ib_buf keys;
		tok_ids ids;
	} memo;
	/* while encode pre-tokenizes: the last pre-tokenizer step, a plain
	 * ByteLevel mapping, which it leaves to the model loop (a piece whose
	 * raw bytes are in the memo is never mapped); else NULL */
	const struct tok_pre *defer_map;
	char byte_utf8[256][2]; /* the byte-level character of each byte, UTF-8 */
	/* loaded from the cache (cache.c): the file's bytes, which the vocab's
	 * strings and slots and the merges' slots point into; else NULL */
	char *blob;
	size_t blob_map; /* its mapping's length (cache.c), 0: malloc'd */
	/* SHA-256 of the tokenizer.json (tok_source_sha256): known when
	 * have_sha; from_file: name is the path of the file it was read from */
	uint8_t sha[32];
	bool have_sha, from_file;
};

/* A decode-table entry: up to TOK_DEC_INLINE bytes inline; a longer one has
 * len == TOK_DEC_LONG and its offset and length (two uint32_t, memcpy'd) in
 * b, pointing into the table's lng. 16 bytes: one cache line holds four. */
enum { TOK_DEC_INLINE = 15, TOK_DEC_LONG = 255 };
struct tok_decent {
	uint8_t len;
	char b[TOK_DEC_INLINE];
};
struct tok_dectab {
	struct tok_decent *e; /* nids entries */
	char *lng;            /* the bytes of the long entries */
};
/* decode.c: releases t->dectab. */
void tok_dec_table_free(tok *t);

/* ---- tok.c: loading, in the pieces cache.c shares ---- */

/* A new tok named `name` with nothing loaded (the encoder's scratch made),
 * or NULL when out of memory. Free with tok_free. */
tok *tok_new(const char *name);
/* Loads tokenizer.json text (NUL after it, modified in place) into a new
 * t. With slim non-NULL, also appends to it the JSON tok_cache_slim makes of
 * the text (left empty when it cannot). Errors as tok_load. */
int tok_build_json(tok *t, char *text, size_t len, ib_buf *slim, ib_error *e);
/* Loads t from the JSON tok_cache_slim made (modified in place) when the
 * model's vocabulary, merges and joins_meta are already in t->bpe. */
int tok_build_slim(tok *t, char *json, size_t len, ib_error *e);

/* ---- cache.c: the cache of loaded tokenizers (docs/tokenize.md) ---- */

/* Loads the tokenizer.json at path (tok_load's work but the folder and its
 * tokenizer_config.json) through the cache: a valid cache file of the same
 * content is loaded instead of the JSON, and a tokenizer loaded from the
 * JSON is written to the cache. Errors as tok_load; the cache's own
 * failures (an unwritable folder, a damaged file) are never errors. */
int tok_load_file(const char *path, tok **out, ib_error *e);
/* Appends root as JSON without model.vocab and model.merges (the text the
 * cache keeps for the rest); IB_ERANGE for a number JSON cannot hold. */
int tok_cache_slim(const tj *root, ib_buf *out);
/* Loads a cache file's bytes img[0..len) (malloc'd when map is 0, else an
 * anonymous mapping of map bytes; always taken over: kept by the tok, or
 * freed or unmapped). When key is non-NULL the file must be that of a
 * tokenizer.json with key[0] = its content hash, key[1] = its length. 0 and
 * *out, or IB_EINVAL with why when the bytes are not a valid cache file
 * (never trusted: every offset and index is checked), IB_ENOMEM. */
int tok_cache_load_image(const char *name, char *img, size_t len, size_t map, const uint64_t key[2],
                         tok **out, ib_error *e);
/* Recomputes the checksum of a cache file's bytes in place (fuzzing: so
 * that changed bytes reach the checks behind it). No-op when too short. */
void tok_cache_seal(char *img, size_t len);

/* load.c: compiles pat (PCRE2, UTF and UCP, JIT when available) into re,
 * owned by t; a literal (a {"String": ...} pattern) is kept as text and
 * searched directly. `where` names the JSON path for messages. */
int tok_re_compile(tok *t, tok_re *re, const char *pat, size_t len, bool literal, const char *where,
                   ib_error *e);

/* load.c: the normalizer, pre-tokenizer, post-processor and decoder of a
 * tokenizer.json root object. */
int tok_load_components(tok *t, const tj *root, ib_error *e);

/* encode.c: all matches of re in s with Oniguruma's iteration rules (an empty
 * match right after the previous match is skipped by one character), as
 * matched and unmatched spans that cover s (one unmatched empty span for an
 * empty s), into out (cleared first). mctx may be NULL. */
int tok_re_find(const tok_re *re, pcre2_match_data *md, pcre2_match_context *mctx, const char *s,
                size_t len, tok_spans *out, ib_error *e);
/* Steps 1-3 of encoding (added tokens, normalizer, pre-tokenizers): *out is
 * the list of pieces the model will see, owned by t like the piece texts in
 * t->pool, until the next call. */
int tok_pretokenize(tok *t, const char *text, size_t len, const tok_pieces **out, ib_error *e);
/* Appends span [start, end) to s (IB_ENOMEM). */
int tok_span_push(tok_spans *s, size_t start, size_t end, bool match);

/* llama3's Split regex, as written in its tokenizer.json. */
extern const char TOK_LLAMA3_RE[];
/* Compiles the character-class regexes of tok_split_llama3 (once); false
 * when it cannot (then the regex engine matches TOK_LLAMA3_RE). */
bool tok_split_prepare(tok *t);
/* The spans of TOK_LLAMA3_RE over valid UTF-8 s[0..len), as tok_re_find
 * gives them, without the regex engine; needs tok_split_prepare. IB_ENOMEM. */
int tok_split_llama3(tok *t, const char *s, size_t len, tok_spans *out);
/* Runs a normalizer on s, leaving the result in *out (cleared first). */
int tok_normalize(tok *t, const tok_norm *n, const char *s, size_t len, ib_buf *out, ib_error *e);

#endif
