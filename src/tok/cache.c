/* The cache of loaded tokenizers (tok.h, docs/tokenize.md "The tokenizer
 * cache").
 *
 * Loading a tokenizer.json costs 0.1-0.5 s, nearly all of it the vocabulary
 * and the merges: parsing 10^5-10^6 JSON strings and building two hash
 * tables. A cache file keeps those tables as they are in memory, so that a
 * load reads one file and points into it:
 *
 *   header    magic, format, byte order, the hash the tables were built
 *             with, the key (content hash and length of the tokenizer.json),
 *             its SHA-256 (for the result's tokenizer_sha256 and the prompt
 *             cache, which would otherwise hash the file at every run), a
 *             checksum of everything after the header, the file size, the
 *             counts, and the offset and length of each section
 *   json      the tokenizer.json without model.vocab and model.merges,
 *             NUL-terminated: the loader reads the rest (options,
 *             normalizer, pre-tokenizer, post-processor, decoder, added
 *             tokens) from it as from the original
 *   strings   the vocabulary's token texts, each NUL-terminated
 *   entries   per vocabulary entry: offset of its text, length, id (3 x u32)
 *   vslots    the vocabulary's hash slots (tok_smap: entry index + 1 and
 *             the high half of the hash), used in place
 *   pslots    the merges' hash slots (tok_pmap), used in place
 *
 * The file is named by the key and the format ("<hash>-<length>.v<F>.tok"),
 * so a changed tokenizer.json (or a new format) is simply another file.
 * Nothing read is trusted: the header must match, the checksum must agree,
 * the sections must lie in order inside the file, every entry's text must lie
 * inside the strings and end with a NUL, every slot must name an entry that
 * exists, each table must keep an empty slot (so that probes end), every id
 * must be below the loader's limit, and a sample of keys must be found where
 * the tables say. A file that fails any check is ignored and written anew.
 *
 * Bump FORMAT when the layout, tok_hash, the tables' hashing or what the
 * loader derives from the vocabulary and merges changes. */
#include "fmt/fmt.h"
#include "tok/private.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum {
	FORMAT = 1,
	ENDIAN = 0x01020304,
	ALIGN = 64,         /* sections start on a cache line */
	CHUNK = 1 << 16,    /* the content hash folds one bulk hash per 64 KiB */
	SPOT = 64,          /* keys looked up again after the checks */
	FLAG_JOINS_META = 1 /* tok_bpe.joins_meta */
};
enum { SEC_JSON, SEC_STR, SEC_ENT, SEC_VSLOT, SEC_PSLOT, NSEC };
static const char MAGIC[8] = {'I', 'B', 'T', 'O', 'K', 'C', '\r', '\n'};
/* tok_hash of this text is in every file: a changed hash function (which
 * would misplace every slot) makes old files foreign */
static const char PROBE[] = "infbench tokenizer cache";

typedef struct {
	char magic[8];
	uint32_t format, endian;
	uint64_t probe;
	uint64_t key[2];    /* content hash and length of the tokenizer.json */
	uint8_t sha256[32]; /* of the tokenizer.json (tok_source_sha256) */
	uint64_t sum;       /* bulk hash of the bytes after the header */
	uint64_t size;      /* of the whole file */
	uint64_t flags;
	uint64_t nent, npairs;
	uint64_t sec[NSEC][2]; /* offset and length of each section */
} hdr;

typedef struct {
	uint32_t off, len, val;
} ent;

/* ---- where ---- */

int tok_cache_folder(char *out, size_t cap)
{
	const char *v = getenv("INFBENCH_TOK_CACHE"), *x = getenv("XDG_CACHE_HOME"),
	           *home = getenv("HOME");
	int n = -1;
	if (v && *v)
		n = strcmp(v, "off") ? snprintf(out, cap, "%s", v) : -1;
	else if (x && x[0] == '/') /* the XDG spec: a relative path is ignored */
		n = snprintf(out, cap, "%s/infbench/tok", x);
	else if (home && *home)
		n = snprintf(out, cap, "%s/.cache/infbench/tok", home);
	if (n <= 0 || (size_t)n >= cap) {
		if (cap)
			out[0] = '\0';
		return 0;
	}
	return 1;
}

/* ---- hashing megabytes: the key and the checksum ---- */

/* A hash of n bytes for the content key and the checksum: tok_hash's
 * multiply-xorshift step on four independent lanes of 8 bytes (the CPU runs
 * them side by side: about four times tok_hash's speed on megabytes, where
 * it was a third of a warm load), the lanes and the tail folded with
 * tok_hash at the end. Not for hash tables: tok_hash is. */
static inline uint64_t lane(uint64_t h, const char *p)
{
	uint64_t w;
	memcpy(&w, p, 8);
	h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
	return h ^ h >> 31;
}

static uint64_t bulk_hash(const char *p, size_t n)
{
	uint64_t a = 0x9E3779B97F4A7C15ull, b = 0xBF58476D1CE4E5B9ull, c = 0x94D049BB133111EBull,
	         d = 0xD6E8FEB86659FD93ull;
	size_t o = 0;
	for (; n - o >= 32; o += 32) {
		a = lane(a, p + o);
		b = lane(b, p + o + 8);
		c = lane(c, p + o + 16);
		d = lane(d, p + o + 24);
	}
	uint64_t r = ib_fnv1a_word(tok_hash(p + o, n - o) ^ n, a);
	r = ib_fnv1a_word(ib_fnv1a_word(ib_fnv1a_word(r, b), c), d);
	return tok_hash((const char *)&r, sizeof r);
}

/* ---- the key: a hash of the content ---- */

/* Folds one chunk (CHUNK bytes, the last one shorter) into the key. The
 * file is read a chunk at a time into one small buffer: a warm load never
 * holds the tokenizer.json in memory. */
static void key_add(uint64_t key[2], const char *p, size_t n)
{
	key[0] = ib_fnv1a_word(key[0], bulk_hash(p, n));
	key[1] += n;
}

static void key_of(const char *p, size_t n, uint64_t key[2])
{
	key[0] = IB_FNV1A_BASIS;
	key[1] = 0;
	for (size_t o = 0; o < n || o == 0; o += CHUNK)
		key_add(key, p + o, n - o < CHUNK ? n - o : CHUNK);
}

/* The checksum of a file's bytes after the header: the same fold, so that a
 * reader can sum each chunk as it reads it, while it is in the CPU's cache. */
static uint64_t sum_of(const char *p, size_t n)
{
	uint64_t k[2];
	key_of(p, n, k);
	return k[0];
}

/* Reads up to n bytes (fewer only at the end of the file): the count, or -1
 * on an error. */
static ssize_t read_full(int fd, char *p, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, p + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/* ---- the index: the key of a tokenizer.json whose status is unchanged ----
 *
 * Hashing a 10-30 MB tokenizer.json at every load costs as much as the rest
 * of a warm load, so the key of each file is remembered in a small index
 * file ("<device>-<inode>.idx") with the file's size, modification and
 * status-change times: while they are the same, the content is. As git's
 * index does, a file changed less than two seconds before it was hashed is
 * not remembered (a change within the clock's granularity could keep its
 * times), and the status-change time cannot be set back by a user. */

static pthread_mutex_t write_mu = PTHREAD_MUTEX_INITIALIZER;
static const char IDX_MAGIC[8] = {'I', 'B', 'T', 'O', 'K', 'I', '\r', '\n'};

typedef struct {
	char magic[8];
	uint64_t format, dev, ino, size, mtime[2], ctime[2], key[2];
} idx_rec;

static void idx_of(const struct stat *st, idx_rec *x)
{
	memset(x, 0, sizeof *x);
	memcpy(x->magic, IDX_MAGIC, sizeof IDX_MAGIC);
	x->format = FORMAT;
	x->dev = (uint64_t)st->st_dev;
	x->ino = (uint64_t)st->st_ino;
	x->size = (uint64_t)st->st_size;
	x->mtime[0] = (uint64_t)st->st_mtim.tv_sec;
	x->mtime[1] = (uint64_t)st->st_mtim.tv_nsec;
	x->ctime[0] = (uint64_t)st->st_ctim.tv_sec;
	x->ctime[1] = (uint64_t)st->st_ctim.tv_nsec;
}

static void idx_name(char *out, size_t cap, const char *dir, const struct stat *st)
{
	snprintf(out, cap, "%s/%llx-%llx.idx", dir, (unsigned long long)st->st_dev,
	         (unsigned long long)st->st_ino);
}

/* The remembered key of the file of status st: whether there is one. */
static bool idx_get(const char *dir, const struct stat *st, uint64_t key[2])
{
	char path[4200];
	idx_rec want, got;
	idx_of(st, &want);
	idx_name(path, sizeof path, dir, st);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	bool ok = fd >= 0 && read_full(fd, (char *)&got, sizeof got) == (ssize_t)sizeof got;
	if (fd >= 0)
		close(fd);
	if (!ok)
		return false;
	memcpy(want.key, got.key, sizeof want.key);
	if (memcmp(&want, &got, sizeof want))
		return false;
	memcpy(key, got.key, sizeof got.key);
	return true;
}

static void idx_put(const char *dir, const struct stat *st, const uint64_t key[2])
{
	char path[4200];
	idx_rec x;
	ib_error ignore = {0};
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	if (st->st_ctim.tv_sec > now.tv_sec - 2 || st->st_mtim.tv_sec > now.tv_sec - 2)
		return; /* changed just now: maybe again within the same tick */
	idx_of(st, &x);
	memcpy(x.key, key, sizeof x.key);
	idx_name(path, sizeof path, dir, st);
	pthread_mutex_lock(&write_mu);
	if (!ib_mkdirs(dir, 0755, &ignore))
		ib_write_file_atomic(path, &x, sizeof x, &ignore);
	pthread_mutex_unlock(&write_mu);
}

/* The key of the file at path: remembered in the index (*st its status,
 * *remembered true), or read in chunks (and then remembered); -1 when it
 * cannot be read (the loader then reports why). */
static int key_of_file(const char *dir, const char *path, uint64_t key[2], struct stat *st,
                       bool *remembered)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), rc = -1;
	struct stat after;
	char *buf = NULL;
	*remembered = false;
	if (fd < 0 || fstat(fd, st) || !S_ISREG(st->st_mode))
		goto out;
	if ((*remembered = idx_get(dir, st, key))) {
		rc = 0;
		goto out;
	}
	if (!(buf = malloc(CHUNK)))
		goto out;
	key[0] = IB_FNV1A_BASIS;
	key[1] = 0;
	for (bool first = true;; first = false) {
		ssize_t n = read_full(fd, buf, CHUNK);
		if (n < 0)
			goto out;
		if (n || first)
			key_add(key, buf, (size_t)n);
		if (n < CHUNK)
			break;
	}
	rc = 0;
	/* remembered only when the file did not change while it was read */
	idx_rec x, y;
	if (!fstat(fd, &after)) {
		idx_of(st, &x);
		idx_of(&after, &y);
		if (!memcmp(&x, &y, sizeof x))
			idx_put(dir, st, key);
	}
out:
	free(buf);
	if (fd >= 0)
		close(fd);
	return rc;
}

static void file_name(char *out, size_t cap, const char *dir, const uint64_t key[2])
{
	snprintf(out, cap, "%s/%016llx-%llx.v%d.tok", dir, (unsigned long long)key[0],
	         (unsigned long long)key[1], FORMAT);
}

/* ---- the JSON of the rest ---- */

static int put_val(ib_buf *o, const tj *v, int depth);

/* An object; at the top (depth 0) "model" objects leave out vocab and
 * merges. */
static int put_obj(ib_buf *o, const tj *v, int depth)
{
	bool first = true;
	ib_buf_putc(o, '{');
	for (size_t k = 0; k < v->n; k++) {
		const tj *key = &v->items[2 * k], *val = &v->items[2 * k + 1];
		if (depth == 1 && ((key->n == 5 && !memcmp(key->s, "vocab", 5)) ||
		                   (key->n == 6 && !memcmp(key->s, "merges", 6))))
			continue;
		if (!first)
			ib_buf_putc(o, ',');
		first = false;
		ib_json_write_str(o, key->s, key->n, false);
		ib_buf_putc(o, ':');
		bool model =
		    depth == 0 && key->n == 5 && !memcmp(key->s, "model", 5) && val->type == TJ_OBJ;
		int rc = model ? put_obj(o, val, 1) : put_val(o, val, 2);
		if (rc)
			return rc;
	}
	return ib_buf_putc(o, '}');
}

static int put_val(ib_buf *o, const tj *v, int depth)
{
	char num[40];
	switch (v->type) {
	case TJ_NULL:
		return ib_buf_puts(o, "null");
	case TJ_FALSE:
		return ib_buf_puts(o, "false");
	case TJ_TRUE:
		return ib_buf_puts(o, "true");
	case TJ_INT:
		return ib_buf_printf(o, "%lld", (long long)v->i);
	case TJ_NUM:
		if (!isfinite(v->f))
			return IB_ERANGE;
		/* read back as a number that is not an integer, as written */
		snprintf(num, sizeof num, "%.17g", v->f);
		return ib_buf_printf(o, "%s%s", num, strpbrk(num, ".eE") ? "" : ".0");
	case TJ_STR:
		return ib_json_write_str(o, v->s, v->n, false);
	case TJ_ARR:
		ib_buf_putc(o, '[');
		for (size_t k = 0; k < v->n; k++) {
			int rc;
			if (k)
				ib_buf_putc(o, ',');
			if ((rc = put_val(o, &v->items[k], depth)))
				return rc;
		}
		return ib_buf_putc(o, ']');
	default:
		return put_obj(o, v, depth);
	}
}

int tok_cache_slim(const tj *root, ib_buf *out)
{
	int rc = put_val(out, root, 0);
	return rc ? rc : ib_buf_error(out);
}

/* ---- reading ---- */

static int bad(const char *name, ib_error *e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad(const char *name, ib_error *e, const char *fmt, ...)
{
	char m[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	return ib_fail(e, IB_EINVAL, name, 0, 0, "not a valid tokenizer cache file: %s", m);
}

static bool pow2(uint64_t n)
{
	return n && !(n & (n - 1));
}

/* The header's checks and the sections' bounds. */
static int check_layout(const char *name, const char *img, size_t len, const hdr *h,
                        const uint64_t key[2], const uint64_t *sum, ib_error *e)
{
	if (len < sizeof *h || memcmp(h->magic, MAGIC, sizeof MAGIC))
		return bad(name, e, "no header");
	if (h->format != FORMAT || h->endian != ENDIAN ||
	    h->probe != tok_hash(PROBE, sizeof PROBE - 1))
		return bad(name, e, "another format (%u, this build reads %d)", h->format, FORMAT);
	if (key && (h->key[0] != key[0] || h->key[1] != key[1]))
		return bad(name, e, "made from another tokenizer.json");
	if (h->size != len)
		return bad(name, e, "%zu bytes, the header says %llu", len,
		           (unsigned long long)h->size);
	if (h->sum != (sum ? *sum : sum_of(img + sizeof *h, len - sizeof *h)))
		return bad(name, e, "checksum mismatch");
	uint64_t end = sizeof *h;
	for (int s = 0; s < NSEC; s++) {
		uint64_t off = h->sec[s][0], n = h->sec[s][1];
		if (off % 8 || off < end || off > len || n > len - off)
			return bad(name, e, "section %d out of bounds", s);
		end = off + n;
	}
	if (h->sec[SEC_JSON][1] < 1 || img[h->sec[SEC_JSON][0] + h->sec[SEC_JSON][1] - 1] ||
	    h->sec[SEC_STR][1] < 1 || img[h->sec[SEC_STR][0] + h->sec[SEC_STR][1] - 1])
		return bad(name, e, "a text section does not end with a NUL");
	if (h->nent >= UINT32_MAX || h->sec[SEC_ENT][1] != h->nent * sizeof(ent))
		return bad(name, e, "%llu vocabulary entries in %llu bytes",
		           (unsigned long long)h->nent, (unsigned long long)h->sec[SEC_ENT][1]);
	uint64_t nv = h->sec[SEC_VSLOT][1] / 8, np = h->sec[SEC_PSLOT][1] / 16;
	if (h->sec[SEC_VSLOT][1] % 8 || (h->nent ? !pow2(nv) || nv <= h->nent : nv != 0))
		return bad(name, e, "%llu vocabulary slots for %llu entries",
		           (unsigned long long)nv, (unsigned long long)h->nent);
	if (h->sec[SEC_PSLOT][1] % 16 || !pow2(np) || np <= h->npairs)
		return bad(name, e, "%llu merge slots for %llu merges", (unsigned long long)np,
		           (unsigned long long)h->npairs);
	return 0;
}

/* A table's used slots must be its entries: one of them each. */
static int counted(const char *name, ib_error *e, uint64_t used, uint64_t want, const char *what)
{
	return used == want ? 0
	                    : bad(name, e, "%llu %s slots used for %llu entries",
	                          (unsigned long long)used, what, (unsigned long long)want);
}

/* Every entry, every slot. */
static int check_tables(const char *name, const char *img, const hdr *h, ib_error *e)
{
	int rc;
	const char *str = img + h->sec[SEC_STR][0];
	uint64_t nstr = h->sec[SEC_STR][1], used = 0;
	for (uint64_t k = 0; k < h->nent; k++) {
		ent x;
		memcpy(&x, img + h->sec[SEC_ENT][0] + k * sizeof x, sizeof x);
		if ((uint64_t)x.off + x.len >= nstr || str[(uint64_t)x.off + x.len] ||
		    x.val >= TOK_MAX_ID)
			return bad(name, e, "vocabulary entry %llu out of bounds",
			           (unsigned long long)k);
	}
	const uint64_t *vs = (const uint64_t *)(const void *)(img + h->sec[SEC_VSLOT][0]);
	for (uint64_t k = 0, nv = h->sec[SEC_VSLOT][1] / 8; k < nv; k++) {
		uint32_t idx = (uint32_t)vs[k];
		if (!vs[k])
			continue;
		if (!idx || idx > h->nent)
			return bad(name, e, "vocabulary slot %llu names no entry",
			           (unsigned long long)k);
		used++;
	}
	if ((rc = counted(name, e, used, h->nent, "vocabulary")))
		return rc;
	const struct tok_pslot *ps =
	    (const struct tok_pslot *)(const void *)(img + h->sec[SEC_PSLOT][0]);
	used = 0;
	for (uint64_t k = 0, np = h->sec[SEC_PSLOT][1] / 16; k < np; k++) {
		if (ps[k].key == UINT64_MAX)
			continue;
		if (ps[k].key >> 32 >= TOK_MAX_ID || (uint32_t)ps[k].key >= TOK_MAX_ID ||
		    ps[k].id >= TOK_MAX_ID)
			return bad(name, e, "merge slot %llu holds an id out of range",
			           (unsigned long long)k);
		used++;
	}
	return counted(name, e, used, h->npairs, "merge");
}

/* Some keys of each table are looked up where the tables say they are (a
 * table placed by another hash function is foreign). */
static int spot_check(const char *name, const tok_bpe *m, ib_error *e)
{
	size_t step = m->vocab.n / SPOT + 1, seen = 0;
	for (size_t k = 0; k < m->vocab.n; k += step) {
		const tok_sent *x = &m->vocab.e[k];
		uint32_t val;
		if (!tok_smap_get(&m->vocab, x->k, x->len, &val) || val != x->val)
			return bad(name, e, "vocabulary entry %zu is not where its hash says", k);
	}
	for (size_t k = 0; k <= m->merges.mask && seen < SPOT; k++) {
		const struct tok_pslot *x = &m->merges.slot[k];
		uint32_t rank, id;
		if (x->key == UINT64_MAX)
			continue;
		seen++;
		if (!tok_pmap_get(&m->merges, (uint32_t)(x->key >> 32), (uint32_t)x->key, &rank,
		                  &id) ||
		    rank != x->rank || id != x->id)
			return bad(name, e, "merge slot %zu is not where its hash says", k);
	}
	return 0;
}

static void release(char *img, size_t map)
{
	if (map)
		munmap(img, map);
	else
		free(img);
}

/* tok_cache_load_image with the checksum already known (sum non-NULL: the
 * reader summed the chunks as it read them) */
static int load_image(const char *name, char *img, size_t len, size_t map, const uint64_t key[2],
                      const uint64_t *sum, tok **out, ib_error *e)
{
	hdr h;
	tok *t = NULL;
	int rc;
	memset(&h, 0, sizeof h);
	if (len >= sizeof h)
		memcpy(&h, img, sizeof h);
	if ((rc = check_layout(name, img, len, &h, key, sum, e)) ||
	    (rc = check_tables(name, img, &h, e)))
		goto fail;
	if (!(t = tok_new(name))) {
		rc = ib_fail(e, IB_ENOMEM, name, 0, 0, "out of memory loading the tokenizer");
		goto fail;
	}
	t->blob = img;
	t->blob_map = map;
	img = NULL;
	tok_bpe *m = &t->bpe;
	if (h.nent && !(m->vocab.e = malloc(h.nent * sizeof *m->vocab.e))) {
		rc = ib_fail(e, IB_ENOMEM, name, 0, 0, "out of memory loading the tokenizer");
		goto fail;
	}
	const char *str = t->blob + h.sec[SEC_STR][0];
	for (uint64_t k = 0; k < h.nent; k++) {
		ent x;
		memcpy(&x, t->blob + h.sec[SEC_ENT][0] + k * sizeof x, sizeof x);
		m->vocab.e[k] = (tok_sent){.k = str + x.off, .len = x.len, .val = x.val};
	}
	m->vocab.n = m->vocab.cap = h.nent;
	m->vocab.slot = h.nent ? (uint64_t *)(void *)(t->blob + h.sec[SEC_VSLOT][0]) : NULL;
	m->vocab.mask = h.nent ? h.sec[SEC_VSLOT][1] / 8 - 1 : 0;
	m->merges.slot = (struct tok_pslot *)(void *)(t->blob + h.sec[SEC_PSLOT][0]);
	m->merges.mask = h.sec[SEC_PSLOT][1] / 16 - 1;
	m->merges.n = h.npairs;
	m->joins_meta = h.flags & FLAG_JOINS_META;
	memcpy(t->sha, h.sha256, sizeof t->sha);
	t->have_sha = true;
	if ((rc = spot_check(name, m, e)) ||
	    (rc = tok_build_slim(t, t->blob + h.sec[SEC_JSON][0], h.sec[SEC_JSON][1] - 1, e)))
		goto fail;
	*out = t;
	return 0;
fail:
	if (img)
		release(img, map);
	tok_free(t);
	return rc;
}

int tok_cache_load_image(const char *name, char *img, size_t len, size_t map, const uint64_t key[2],
                         tok **out, ib_error *e)
{
	return load_image(name, img, len, map, key, NULL, out, e);
}

void tok_cache_seal(char *img, size_t len)
{
	hdr h;
	if (len < sizeof h)
		return;
	memcpy(&h, img, sizeof h);
	h.sum = sum_of(img + sizeof h, len - sizeof h);
	memcpy(img, &h, sizeof h);
}

/* ---- writing ---- */

static size_t up(size_t n)
{
	return (n + ALIGN - 1) / ALIGN * ALIGN;
}

/* The file of t (loaded from JSON) into a new buffer (*img, *len); -1 when
 * it cannot be made (out of memory, sizes out of range). */
static int image_of(const tok *t, const ib_buf *slim, const uint64_t key[2], char **img,
                    size_t *len)
{
	const tok_bpe *m = &t->bpe;
	hdr h;
	memset(&h, 0, sizeof h);
	memcpy(h.magic, MAGIC, sizeof MAGIC);
	h.format = FORMAT;
	h.endian = ENDIAN;
	h.probe = tok_hash(PROBE, sizeof PROBE - 1);
	h.key[0] = key[0];
	h.key[1] = key[1];
	memcpy(h.sha256, t->sha, sizeof h.sha256);
	h.flags = m->joins_meta ? FLAG_JOINS_META : 0;
	h.nent = m->vocab.n;
	h.npairs = m->merges.n;
	size_t nstr = 1; /* a NUL of its own: never empty */
	for (size_t k = 0; k < m->vocab.n; k++)
		nstr += m->vocab.e[k].len + (size_t)1;
	if (nstr > UINT32_MAX || !m->merges.slot)
		return -1;
	size_t n[NSEC] = {slim->len + 1, nstr, m->vocab.n * sizeof(ent),
	                  m->vocab.n ? (m->vocab.mask + 1) * 8 : 0, (m->merges.mask + 1) * 16};
	size_t off = up(sizeof h);
	for (int s = 0; s < NSEC; s++) {
		h.sec[s][0] = off;
		h.sec[s][1] = n[s];
		off = up(off + n[s]);
	}
	h.size = off;
	char *p = calloc(1, off);
	if (!p)
		return -1;
	memcpy(p + h.sec[SEC_JSON][0], slim->data, slim->len);
	char *str = p + h.sec[SEC_STR][0];
	size_t so = 1;
	for (size_t k = 0; k < m->vocab.n; k++) {
		const tok_sent *x = &m->vocab.e[k];
		ent en = {(uint32_t)so, x->len, x->val};
		memcpy(str + so, x->k, x->len);
		so += x->len + (size_t)1;
		memcpy(p + h.sec[SEC_ENT][0] + k * sizeof en, &en, sizeof en);
	}
	if (m->vocab.n)
		memcpy(p + h.sec[SEC_VSLOT][0], m->vocab.slot, n[SEC_VSLOT]);
	memcpy(p + h.sec[SEC_PSLOT][0], m->merges.slot, n[SEC_PSLOT]);
	h.sum = sum_of(p + sizeof h, off - sizeof h);
	memcpy(p, &h, sizeof h);
	*img = p;
	*len = off;
	return 0;
}

/* Writes t's cache file (best effort: every failure leaves no file). One
 * thread at a time (ib_write_file_atomic's temporary name is per process). */
static void store(const char *dir, const tok *t, const ib_buf *slim, const uint64_t key[2])
{
	char path[4200];
	char *img = NULL;
	size_t len = 0;
	ib_error ignore = {0};
	if (!slim->len || !t->have_sha || image_of(t, slim, key, &img, &len))
		return;
	file_name(path, sizeof path, dir, key);
	pthread_mutex_lock(&write_mu);
	if (!ib_mkdirs(dir, 0755, &ignore))
		ib_write_file_atomic(path, img, len, &ignore);
	pthread_mutex_unlock(&write_mu);
	free(img);
}

/* ---- tok_load's path ---- */

/* The cache file at path mapped in place (private: the loader's in-place
 * parse of its JSON section copies only the pages it writes), summed as
 * sum_of does. No copy: a read fault maps the page cache's own pages, many
 * at a time. *len is the size (also the mapping's); NULL when the file is
 * missing, unreadable, empty or over 4 GiB. infbench replaces cache files
 * by rename, never in place; a file truncated in place by another program
 * while it is loaded would end the process (SIGBUS). */
static char *read_image(const char *path, size_t *len, uint64_t *sum)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	char *p = NULL;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size < sizeof(hdr) ||
	    (uint64_t)st.st_size > (uint64_t)1 << 32)
		goto out;
	size_t n = (size_t)st.st_size, got = sizeof(hdr);
	uint64_t k[2] = {IB_FNV1A_BASIS, 0};
	char *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		goto out;
	/* the header, then a chunk at a time (sum_of's fold, same chunks) */
	if (got == n)
		key_add(k, m, 0);
	for (size_t c; got < n; got += c) {
		c = n - got < CHUNK ? n - got : CHUNK;
		key_add(k, m + got, c);
	}
	p = m;
	*len = n;
	*sum = k[0];
out:
	close(fd);
	return p;
}

int tok_load_file(const char *path, tok **out, ib_error *e)
{
	char dir[4096], file[4200];
	uint64_t key[2], was[2];
	struct stat st;
	bool remembered = false;
	ib_buf text = {0}, slim = {0};
	bool on =
	    tok_cache_folder(dir, sizeof dir) && !key_of_file(dir, path, key, &st, &remembered);
	int rc;
	if (on) {
		ib_error ignore = {0};
		size_t n = 0;
		file_name(file, sizeof file, dir, key);
		/* a missing, unreadable, damaged or foreign file: load the JSON */
		uint64_t sum = 0;
		char *img = read_image(file, &n, &sum);
		if (img && !load_image(path, img, n, n, key, &sum, out, &ignore)) {
			(*out)->from_file = true;
			return 0;
		}
	}
	if ((rc = ib_read_file(path, &text, e)))
		goto out;
	tok *t = tok_new(path);
	if (!t) {
		rc = ib_fail(e, IB_ENOMEM, path, 0, 0, "out of memory loading the tokenizer");
		goto out;
	}
	t->from_file = true;
	/* the key and digest of what was read (the file may have changed
	 * since), before the parser changes the text in place */
	if (on) {
		memcpy(was, key, sizeof was);
		key_of(text.data ? text.data : "", text.len, key);
		/* an index entry that named another content is dropped */
		if (remembered && memcmp(was, key, sizeof was)) {
			idx_name(file, sizeof file, dir, &st);
			unlink(file);
		}
		ib_sha256 sh;
		ib_sha256_init(&sh);
		ib_sha256_update(&sh, text.data ? text.data : "", text.len);
		ib_sha256_final(&sh, t->sha);
		t->have_sha = true;
	}
	if ((rc = tok_build_json(t, text.data ? text.data : (char *)"", text.len, on ? &slim : NULL,
	                         e))) {
		tok_free(t);
		goto out;
	}
	if (on)
		store(dir, t, &slim, key);
	*out = t;
out:
	ib_buf_free(&text);
	ib_buf_free(&slim);
	return rc;
}
