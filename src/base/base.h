/* base — errors, buffers, arenas, files and clocks shared by every module.
 *
 * Error convention (DESIGN.md §Conventions 3): every fallible function returns 0
 * on success or a negative ib_err code, and fills an ib_error the caller passed
 * (which may be NULL when the caller does not want details). The library never
 * prints to stdout and never calls exit().
 *
 * Ownership: the caller owns what it passes in. Objects returned through an out
 * pointer are owned by the caller and released with the matching _free.
 */
#ifndef IB_BASE_H
#define IB_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

typedef enum {
	IB_OK = 0,
	IB_ENOMEM = -1, /* allocation failed */
	IB_EIO = -2,    /* a file could not be read or written */
	IB_EPARSE = -3, /* malformed input (YAML, JSON, ...) */
	IB_EINVAL = -4, /* input is well-formed but violates a rule */
	IB_ENOENT = -5, /* a named file or item does not exist */
	IB_ERANGE = -6, /* a number does not fit */
} ib_err;

/* Details of the last error. `file` is empty when the error does not come
 * from an input file; line and col are 1-based, 0 when unknown. */
typedef struct {
	int code;
	char file[512];
	int line, col;
	char msg[2048];
} ib_error;

/* Fills e (if non-NULL) and returns code, so callers can `return ib_fail(...)`. */
int ib_fail(ib_error *e, int code, const char *file, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* Formats "file:line:col: msg" (parts that are unknown are left out) into out. */
void ib_error_format(const ib_error *e, char *out, size_t cap);
const char *ib_err_name(int code);

/* ---- the one growth helper (DESIGN.md convention 12) ----
 * ib_grow(&items, &cap, need) makes room for at least `need` elements of
 * sizeof *items bytes, doubling the capacity (at least 8 elements). Every
 * size computation is checked: a count whose byte size does not fit size_t is
 * IB_ERANGE, an allocation failure IB_ENOMEM; on failure the array and *cap
 * are unchanged (the caller still owns and frees the old array). The array is
 * realloc'd, so it is released with free(). New elements are not zeroed. */
int ib_grow_(void *pp, size_t *cap, size_t need, size_t size);
#define ib_grow(pp, cap, need) ib_grow_((pp), (cap), (need), sizeof **(pp))
/* The same for an array that lives in arena a: the larger array is allocated
 * in a and the *cap old elements are copied (the old array stays in the arena
 * until it is freed); new elements are zeroed. Same errors and capacities. */
typedef struct ib_arena ib_arena;
int ib_arena_grow_(ib_arena *a, void *pp, size_t *cap, size_t need, size_t size);
#define ib_arena_grow(a, pp, cap, need) ib_arena_grow_((a), (pp), (cap), (need), sizeof **(pp))
/* Test-only failure injection (tests/unit/test_base.c): the n-th growth
 * from now (0: the next one) in this thread that needs memory fails with
 * IB_ENOMEM as if the allocation had failed; n < 0 turns it off (the
 * default). A per-thread counter, so it never reaches another thread. */
void ib_test_fail_growth(long n);
/* a + b and a * b into *out; false (and *out untouched) when they overflow. */
static inline bool ib_size_add(size_t a, size_t b, size_t *out)
{
	size_t r;
	if (__builtin_add_overflow(a, b, &r))
		return false;
	*out = r;
	return true;
}
static inline bool ib_size_mul(size_t a, size_t b, size_t *out)
{
	size_t r;
	if (__builtin_mul_overflow(a, b, &r))
		return false;
	*out = r;
	return true;
}

/* ---- the one UTF-8 decoder (DESIGN.md convention 12) ----
 * Decodes one code point from the n bytes at p, strictly as Python's 'utf-8'
 * codec does (no overlongs, no surrogates, nothing above U+10FFFF). Returns
 * the bytes used (1-4) and sets *cp, or one of the negative reasons below
 * (the error is always at p[0], as Python reports it). */
enum {
	IB_UTF8_BAD_START = -1,        /* "invalid start byte" */
	IB_UTF8_BAD_CONTINUATION = -2, /* "invalid continuation byte" */
	IB_UTF8_TRUNCATED = -3,        /* "unexpected end of data" (n too small) */
};
/* The decoder itself, inline for the loops that validate every byte of a
 * text (the tokenizer's): ib_utf8_decode's result, and *valid = how many
 * bytes before the failing one belong to the sequence (0 on success). */
static inline __attribute__((always_inline)) int ib_utf8_decode_at(const unsigned char *s, size_t n,
                                                                   uint32_t *cp, size_t *valid)
{
	*valid = 0;
	if (n == 0)
		return IB_UTF8_TRUNCATED;
	unsigned c = s[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c < 0xC2 || c > 0xF4)
		return IB_UTF8_BAD_START;
	size_t len = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
	uint32_t v = c & (0x7Fu >> len);
	/* the second byte's range excludes overlongs (E0, F0), surrogates (ED)
	 * and code points beyond U+10FFFF (F4) */
	unsigned lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
	unsigned hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
	for (size_t i = 1; i < len; i++) {
		*valid = i;
		if (i >= n)
			return IB_UTF8_TRUNCATED;
		unsigned b = s[i];
		if (b < lo || b > hi)
			return IB_UTF8_BAD_CONTINUATION;
		lo = 0x80;
		hi = 0xBF;
		v = (v << 6) | (b & 0x3F);
	}
	*valid = 0;
	*cp = v;
	return (int)len;
}
int ib_utf8_decode(const void *p, size_t n, uint32_t *cp);
/* Decodes the code point at s of text already known to be valid UTF-8 (no
 * checks: the caller validated it) and sets *n to its length (1-4). */
static inline __attribute__((always_inline)) uint32_t ib_utf8_decode_valid(const unsigned char *s,
                                                                           size_t *n)
{
	uint32_t c = s[0];
	if (c < 0x80) {
		*n = 1;
		return c;
	}
	if (c < 0xE0) {
		*n = 2;
		return (c & 0x1F) << 6 | (s[1] & 0x3F);
	}
	if (c < 0xF0) {
		*n = 3;
		return (c & 0x0F) << 12 | (uint32_t)(s[1] & 0x3F) << 6 | (s[2] & 0x3F);
	}
	*n = 4;
	return (c & 0x07) << 18 | (uint32_t)(s[1] & 0x3F) << 12 | (uint32_t)(s[2] & 0x3F) << 6 |
	       (s[3] & 0x3F);
}
/* Python's words for a negative ib_utf8_decode result. */
const char *ib_utf8_reason(int rc);
/* For text that does not decode at p: the length (1-3) of the maximal
 * invalid subpart there, the bytes that Python's errors='replace' and Rust's
 * from_utf8_lossy turn into one U+FFFD ("substitution of maximal subparts"). */
size_t ib_utf8_bad_len(const void *p, size_t n);
/* The encoder: writes code point cp as 1-4 bytes into out and returns the
 * count. Surrogates are written as their 3 bytes (a Python str may hold
 * them); a value above U+10FFFF is written as U+FFFD. */
size_t ib_utf8_encode(uint32_t cp, char out[4]);

/* ---- growable byte buffer; data is always NUL-terminated when non-NULL ----
 *
 * THE POLICY FOR BUFFER ERRORS (the one place that decides it): the error of
 * a buffer is sticky. The first append that cannot grow the buffer (out of
 * memory, a size past size_t, an encoding error of printf) stores its ib_err
 * in b->err; from then on every append is a no-op that returns that error,
 * and the contents stay as they were before the failed append (a prefix of
 * the intended output). So builders may append without checking each call:
 * the code that FINISHES an output checks the buffer once — ib_buf_write_file
 * for a file (written atomically: an errored buffer writes nothing and fails
 * with an error naming the file), ib_buf_write_to for a stream such as
 * stdout. Every output file and every stdout answer built in an ib_buf goes
 * through one of the two, so a failed allocation is an error with the
 * file's name, never a truncated file. Code that reads a buffer for another
 * purpose (a parser, a request body) checks ib_buf_error (or the append's
 * result) before using it. `len = 0` reuses a buffer and keeps its error;
 * ib_buf_free clears it. */
typedef struct {
	char *data;
	size_t len, cap;
	int err; /* 0, or the sticky ib_err of the first failed append */
} ib_buf;

/* Each returns 0, or the buffer's (sticky) error: IB_ENOMEM or IB_ERANGE
 * when it cannot grow, IB_EINVAL for a format vsnprintf cannot encode. */
int ib_buf_reserve(ib_buf *b, size_t extra);
int ib_buf_append(ib_buf *b, const void *p, size_t n);
int ib_buf_puts(ib_buf *b, const char *s);
int ib_buf_putc(ib_buf *b, char c);
int ib_buf_printf(ib_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ib_buf_vprintf(ib_buf *b, const char *fmt, va_list ap);
/* The sticky error: 0 when every append so far succeeded. */
static inline int ib_buf_error(const ib_buf *b)
{
	return b->err;
}
/* Releases the data and clears the error (the buffer is empty and usable). */
void ib_buf_free(ib_buf *b);
/* Formats fmt/ap and hands the text to fn(arg, stream, text): each line
 * without its newline when lines is true (a text ending in "\n" gives no
 * empty last line), else the whole text. Nothing when fn is NULL or the
 * text cannot be built. The one helper behind the library's log callbacks
 * of the shape (arg, stream, line). */
void ib_emitv(void (*fn)(void *arg, int stream, const char *text), void *arg, int stream,
              bool lines, const char *fmt, va_list ap);
/* Finishing an output built in b (the check of the policy above):
 * ib_buf_write_file writes b's bytes to path atomically (ib_write_file_atomic);
 * when b has an error nothing is written and the error (b->err) names path.
 * ib_buf_write_to writes them to f (stdout, stderr) and flushes it; `name`
 * ("standard output") is what the error names. Both return 0, b's error,
 * or IB_EIO when the write fails. */
int ib_buf_write_file(const char *path, const ib_buf *b, ib_error *e);
int ib_buf_write_to(FILE *f, const char *name, const ib_buf *b, ib_error *e);
/* The error of an output `name` not written because building it failed
 * with code (IB_ENOMEM, IB_ERANGE, IB_EINVAL): "NAME: not written: out of
 * memory while building it". Returns code. For writers whose failure did
 * not come from a buffer (an arena, a list) but must still name the file. */
int ib_fail_unwritten(ib_error *e, int code, const char *name);

/* ---- logging: the one callback shape (the library never prints) ----
 * A library function with lines for the user hands each one to an ib_log_fn
 * that the caller (the CLI) installs with its arg, tagged with where it
 * belongs: IB_LOG_OUT (what the reference prints on stdout), IB_LOG_ERR
 * (notes and warnings, for stderr), IB_LOG_PROGRESS (a status line to redraw
 * in place; NULL clears it). Whether a line ends in "\n" is the caller's
 * contract with its module (its header says). A NULL fn drops the lines. */
enum { IB_LOG_OUT = 1, IB_LOG_ERR = 2, IB_LOG_PROGRESS = 3 };
typedef void (*ib_log_fn)(void *arg, int stream, const char *line);

/* ---- arena: many small allocations released together ---- */

/* Returns a new arena or NULL on allocation failure; free with ib_arena_free. */
ib_arena *ib_arena_new(void);
void ib_arena_free(ib_arena *a);
/* Returns zeroed memory aligned to 8 bytes (pointers, 64-bit ints, doubles;
 * not long double), valid until the arena is freed;
 * NULL on allocation failure (also for a size no allocation can have). */
void *ib_arena_alloc(ib_arena *a, size_t n);
/* Copies n bytes of s plus a NUL terminator into the arena. */
char *ib_arena_strndup(ib_arena *a, const char *s, size_t n);
char *ib_arena_strdup(ib_arena *a, const char *s);
char *ib_arena_printf(ib_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Bytes handed out so far (for tests and memory reports). */
size_t ib_arena_used(const ib_arena *a);

/* ---- diagnostics: a list of problems found in inputs ----
 * The one diagnostics list of infbench: every stage that reports many
 * problems at once collects them here — config validation (`validate`,
 * `matrix`, the runner's --config-files), changelog, review (its findings,
 * with a fix and quoted evidence each), report (skipped rows) and sim
 * calibration files. Each stage keeps its own output format; the one-line
 * form of ib_diag_format is what validate, report and sim print.
 *
 * Ownership: the caller sets `a` (its arena) before the first add; the items
 * array and every string and quote are allocated there, so there is nothing
 * to free apart from the arena. A pointer into `items` goes stale at the next
 * add (the array is copied when it grows; the old copy stays in the arena). */
typedef enum { IB_SEV_ERROR = 0, IB_SEV_WARNING = 1, IB_SEV_NOTE = 2 } ib_severity;
/* A line of another place quoted as evidence ("the sisters do it this way"). */
typedef struct {
	const char *file; /* NULL when not about a file */
	int line;         /* 1-based, 0 when not about a line */
	const char *text;
} ib_diag_quote;
typedef struct {
	int severity;                /* ib_severity */
	const char *file;            /* NULL when not about a file */
	int line, col;               /* 1-based, 0 when unknown */
	const char *rule;            /* a rule id ("R3", "sister-guard"), or NULL */
	const char *kind;            /* what the subject is ("entry"), or NULL */
	const char *subject;         /* the entry, key or row it is about, or NULL */
	const char *field;           /* a field path, or NULL */
	const char *msg;             /* what is wrong, in plain words (never NULL) */
	const char *got;             /* a short rendering of the offending value, or NULL */
	const char *fix;             /* how to fix it, or NULL */
	const ib_diag_quote *quotes; /* evidence elsewhere (ib_diag_quote_add) */
	size_t nquotes;
} ib_diag;
typedef struct {
	ib_arena *a; /* the caller's; set before the first add */
	ib_diag *items;
	size_t n, cap;
} ib_diags;
/* Appends a copy of *g whose msg is formatted from fmt (g->msg and g->quotes
 * are ignored). Strings are copied into d->a as given, NULL staying NULL,
 * except that an empty field path is stored as NULL (the top level).
 * Returns 0 or IB_ENOMEM (then nothing was added). */
int ib_diag_add(ib_diags *d, const ib_diag *g, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int ib_diag_addv(ib_diags *d, const ib_diag *g, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
/* Appends a quote (file and text copied; NULL text is "") to the last
 * diagnostic added. Returns 0, IB_ENOMEM, or IB_EINVAL when d is empty. */
int ib_diag_quote_add(ib_diags *d, const char *file, int line, const char *text);
/* Formats one line into out:
 *   file:line:col: [rule] kind 'subject': field 'F': warning: msg (got X)
 * Absent parts are left out (":col" also when col is 0, ":line:col" when line
 * is 0, "kind " when kind is NULL); "warning: " / "note: " precede msg for
 * those severities; fix and quotes are not part of it. */
void ib_diag_format(const ib_diag *g, ib_buf *out);
/* The number of diagnostics of a severity. */
size_t ib_diags_count(const ib_diags *d, int severity);

/* ---- Python number literals ----
 * int(s) and float(s) of Python for text s[0..n): surrounding whitespace,
 * a sign, '_' between two digits; float also takes inf/infinity/nan in any
 * case and exponents, and gives inf on overflow as Python does. int is base
 * 10 and limited to 64 bits (false beyond, where Python has big ints).
 * False when s is not such a literal. */
bool ib_py_int(const char *s, size_t n, int64_t *out);
bool ib_py_float(const char *s, size_t n, double *out);

/* ---- files ---- */
/* Reads the whole file into out (appending). Missing file → IB_ENOENT;
 * a directory or unreadable file → IB_EIO. The message names the path. */
int ib_read_file(const char *path, ib_buf *out, ib_error *e);
/* The same with a size limit (0: none): a file larger than max bytes is
 * refused from its size before anything is read (and a file that grows
 * past it while read), with IB_ERANGE naming the path, its size and the
 * limit. */
int ib_read_file_max(const char *path, size_t max, ib_buf *out, ib_error *e);
/* mkdir -p path (0755), then checks the folder is writable: IB_EIO naming
 * the part that could not be made, or the folder that cannot be written. */
int ib_mkdirs_writable(const char *path, ib_error *e);
/* Writes data to path through a temporary file in the same folder and a
 * rename, so readers never see a half-written file. */
int ib_write_file_atomic(const char *path, const void *data, size_t len, ib_error *e);

/* Streaming variant: ib_atomic_open creates a temporary file next to path
 * and returns it for writing; ib_atomic_commit flushes, syncs and renames it
 * over path (closing it in every case); ib_atomic_abort closes and removes it. */
typedef struct {
	FILE *f;
	char *tmp;        /* temporary path (heap) */
	const char *path; /* the caller's final path */
} ib_atomic;
int ib_atomic_open(ib_atomic *w, const char *path, ib_error *e);
int ib_atomic_commit(ib_atomic *w, ib_error *e);
void ib_atomic_abort(ib_atomic *w);

/* mkdir -p (the one helper): creates path and every missing folder above it
 * with mode (before the umask); folders that exist are fine. IB_EIO naming
 * the folder that could not be made, IB_EINVAL for a path over 4095 bytes. */
int ib_mkdirs(const char *path, mode_t mode, ib_error *e);

/* ---- child processes (the one spawner) ----
 * ib_proc_spawn starts argv[0] (looked up in PATH) with stdin from
 * /dev/null and returns at once with its *pid; ib_proc_reap collects it.
 * Every child infbench starts goes through it (ib_proc_run below; run/'s
 * servers and clients). IB_EIO "cannot start PROG: why" when it cannot. */
typedef struct {
	const char *const *argv;
	char *const *envp; /* NULL: this process's environment */
	const char *cwd;   /* NULL: the current folder */
	int out_fd;        /* > 0: dup2'd onto the child's stdout; 0: inherited */
	int err_fd;        /* > 0: dup2'd onto the child's stderr; 0: inherited */
	const char *log;   /* non-NULL: stdout and stderr appended to this file (not the fds) */
	bool group;        /* a process group of its own, default signal dispositions
	                      and an empty signal mask (a server stopped as a group) */
} ib_spawn;
int ib_proc_spawn(const ib_spawn *s, pid_t *pid, ib_error *e);
/* Collects child pid: true with *status (the exit status, 128 + the signal
 * number when it was killed, -1 when pid is not a child of ours) once it
 * has ended; false while it runs (only when !hang: hang waits for it). */
bool ib_proc_reap(pid_t pid, int *status, bool hang);
/* Runs argv[0] (looked up in PATH) with argv, in folder cwd (NULL: the
 * current one), stdin from /dev/null, and appends what it writes to stdout
 * and stderr to out and err (either may be NULL to discard). *status gets
 * the exit status (128 + signal number when it was killed). Returns 0 when
 * the program ran, whatever its status; IB_EIO when it could not be started
 * (the message names the program), IB_ENOMEM when its output did not fit. */
int ib_proc_run(const char *const *argv, const char *cwd, ib_buf *out, ib_buf *err, int *status,
                ib_error *e);
/* The value of variable name in env ("KEY=VALUE" strings, NULL-terminated;
 * the first match wins), or in this process's environment when env is NULL;
 * NULL when it is not set. Points into env. */
const char *ib_env_get(const char *const *env, const char *name);
/* Whether an environment value is a true boolean as Python settings read
 * them: "1", "true", "yes" or "on", in any case (NULL: false). */
bool ib_env_true(const char *value);

/* ---- clocks ---- */
/* CLOCK_MONOTONIC in nanoseconds: for durations only. */
int64_t ib_now_ns(void);
/* This process's CPU time so far (user + system, every thread), seconds. */
double ib_cpu_s(void);

/* ---- numpy's legacy RandomState (MT19937), bit for bit ---- */
typedef struct {
	uint32_t mt[624];
	int pos;        /* next word of mt; 624: twist before the next output */
	bool has_gauss; /* the polar method's cached second value */
	double gauss;
} ib_mt;

/* np.random.seed(s) / RandomState(s) for 0 <= s < 2^32 (init_genrand). */
void ib_mt_seed(ib_mt *m, uint32_t s);
/* RandomState(list of uint32) (init_by_array). */
void ib_mt_seed_array(ib_mt *m, const uint32_t *key, size_t n);
/* The next raw 32-bit output. */
uint32_t ib_mt_next(ib_mt *m);
/* randint(low, high): uniform in [low, high) by masked rejection, one draw
 * per attempt (two for ranges wider than 2^32); high > low. */
int64_t ib_mt_randint(ib_mt *m, int64_t low, int64_t high);
/* random_sample(): 53-bit double in [0, 1) from two outputs. */
double ib_mt_double(ib_mt *m);
double ib_mt_exponential(ib_mt *m);
double ib_mt_gauss(ib_mt *m);
double ib_mt_standard_gamma(ib_mt *m, double shape);
/* gamma(shape, scale): inter-arrival times of the benchmark client. */
double ib_mt_gamma(ib_mt *m, double shape, double scale);

/* Python's `random` module on the same generator: random.seed(s) for an
 * int (init_by_array over the 32-bit words of |s|), and random.choice's
 * index, _randbelow(n) (getrandbits(n.bit_length()) until < n); n >= 1. */
void ib_mt_py_seed(ib_mt *m, int64_t s);
uint64_t ib_mt_py_randbelow(ib_mt *m, uint64_t n);

/* ---- SHA-256 ---- */
typedef struct {
	uint32_t h[8];
	uint64_t len;
	uint8_t buf[64];
	size_t nbuf;
} ib_sha256;
void ib_sha256_init(ib_sha256 *s);
void ib_sha256_update(ib_sha256 *s, const void *data, size_t n);
void ib_sha256_final(ib_sha256 *s, uint8_t out[32]);
/* The lowercase hex digest of data[0..n) into out (65 bytes with the NUL). */
void ib_sha256_hex(const void *data, size_t n, char out[65]);

/* ---- FNV-1a, 64 bits: the one non-cryptographic hash of bytes ----
 * ib_fnv1a folds the n bytes at p into h (start from IB_FNV1A_BASIS;
 * chained calls hash the concatenation); ib_fnv1a_word folds one whole
 * value into h in one step, (h ^ v) * prime (seeds built from numbers). */
#define IB_FNV1A_BASIS 0xcbf29ce484222325ULL
#define IB_FNV1A_PRIME 0x100000001b3ULL
uint64_t ib_fnv1a(uint64_t h, const void *p, size_t n);
static inline uint64_t ib_fnv1a_word(uint64_t h, uint64_t v)
{
	return (h ^ v) * IB_FNV1A_PRIME;
}

/* ---- shared libraries loaded on first use (the one dlopen helper) ----
 * A library that only some commands need (OpenSSL, SQLite, libpq) is loaded
 * when first used, not at start, so that every command does not pay its
 * loading and relocation. ib_dl_load opens soname (RTLD_NOW | RTLD_LOCAL) and
 * resolves the n names into sym[] (also from the libraries it depends on).
 * Returns 0, or IB_EIO with why (cap bytes) saying which library or symbol is
 * missing; the library stays loaded. Not thread-safe: call it under the
 * caller's pthread_once. */
int ib_dl_load(const char *soname, const char *const names[], void *sym[], size_t n, char *why,
               size_t cap);
/* One table of such functions per source file: LIST(X) names each function
 * once (X(f) for each); IB_DL_TABLE(LIST, soname) defines the table and
 * ib_dl_init (call it under pthread_once(&ib_dl_once, ib_dl_init); then
 * ib_dl_why[0] != 0 means the library or a function is missing), and
 * IB_DL_FN(f) is the loaded f, with f's declared type. Needs <pthread.h>. */
#define IB_DL_INDEX(f) IB_DL_I_##f,
#define IB_DL_NAME(f)  #f,
#define IB_DL_TABLE(LIST, soname)                                                                  \
	enum { LIST(IB_DL_INDEX) IB_DL_N };                                                        \
	static const char *const ib_dl_names[IB_DL_N] = {LIST(IB_DL_NAME)};                        \
	static void *ib_dl_sym[IB_DL_N];                                                           \
	static pthread_once_t ib_dl_once = PTHREAD_ONCE_INIT;                                      \
	static char ib_dl_why[256];                                                                \
	static void ib_dl_init(void)                                                               \
	{                                                                                          \
		ib_dl_load(soname, ib_dl_names, ib_dl_sym, IB_DL_N, ib_dl_why, sizeof ib_dl_why);  \
	}
#define IB_DL_FN(f) (*(__typeof__(f) *)ib_dl_sym[IB_DL_I_##f])

/* ---- small string helpers ---- */
bool ib_str_has_prefix(const char *s, const char *prefix);
/* Makes text from a log safe to show on a terminal, in place: terminal
 * escape sequences (ESC [ ... final, ESC ] ... BEL or ESC \, ESC and one
 * character) are removed, '\r' becomes a space and every other control
 * byte but '\n' and '\t' a '?'. Returns the new length. */
size_t ib_str_strip_ctl(char *s);
/* The one qsort/bsearch comparator of C strings: x and y point to (const)
 * char pointers; strcmp's bytewise order. */
int ib_cmp_str(const void *x, const void *y);
/* fnmatch-style match of a whole string: '*', '?', '[seq]', '[!seq]'.
 * Unlike fnmatch(3), '/' and leading '.' are ordinary characters
 * (the semantics of Python's fnmatch.fnmatchcase). */
bool ib_glob_match(const char *pattern, const char *s);

#endif
