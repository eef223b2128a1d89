/* Unit tests for base/: buffers, arenas, files, glob matching, errors. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"

/* ---- helpers: a private temp directory per test ---- */

static void make_tmpdir(char *dir, size_t cap)
{
	snprintf(dir, cap, "/tmp/ib_base_XXXXXX");
	cr_assert_not_null(mkdtemp(dir), "mkdtemp failed");
}

/* Removes every plain file in dir, then dir itself. */
static void remove_tmpdir(const char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *de;
		while ((de = readdir(d)) != NULL) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			char p[1024];
			snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
			struct stat st;
			if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
				rmdir(p);
			else
				unlink(p);
		}
		closedir(d);
	}
	rmdir(dir);
}

/* Number of directory entries other than "." and "..". */
static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	cr_assert_not_null(d);
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* ---- ib_buf ---- */

/* The policy of base.h: the first failed growth sticks; later appends are
 * no-ops that return it and leave the contents as they were. */
Test(base, buf_error_is_sticky)
{
	ib_buf b = {0};
	cr_assert_eq(ib_buf_puts(&b, "head "), 0);
	ib_test_fail_growth(0);
	char big[200];
	memset(big, 'x', sizeof big);
	cr_assert_eq(ib_buf_append(&b, big, sizeof big), IB_ENOMEM);
	ib_test_fail_growth(-1);
	cr_assert_eq(ib_buf_error(&b), IB_ENOMEM);
	/* growth works again, but the buffer stays failed */
	cr_assert_eq(ib_buf_puts(&b, "tail"), IB_ENOMEM);
	cr_assert_eq(ib_buf_putc(&b, '!'), IB_ENOMEM);
	cr_assert_eq(ib_buf_printf(&b, "%d", 42), IB_ENOMEM);
	cr_assert_eq(ib_buf_reserve(&b, 1), IB_ENOMEM);
	cr_assert_str_eq(b.data, "head ");
	b.len = 0; /* reuse keeps the error */
	cr_assert_eq(ib_buf_puts(&b, "x"), IB_ENOMEM);
	ib_buf_free(&b); /* free clears it */
	cr_assert_eq(ib_buf_error(&b), 0);
	cr_assert_eq(ib_buf_puts(&b, "ok"), 0);
	cr_assert_str_eq(b.data, "ok");
	ib_buf_free(&b);
}

/* A size past size_t sticks too (IB_ERANGE), without allocating. */
Test(base, buf_overflow_is_sticky)
{
	ib_buf b = {0};
	cr_assert_eq(ib_buf_puts(&b, "a"), 0);
	cr_assert_eq(ib_buf_reserve(&b, SIZE_MAX), IB_ERANGE);
	cr_assert_eq(ib_buf_putc(&b, 'b'), IB_ERANGE);
	cr_assert_str_eq(b.data, "a");
	ib_buf_free(&b);
}

/* A buffer whose growth failed half-way is never written: the output file
 * is absent (no temporary left either) and the error names it. */
Test(base, buf_write_file_refuses_a_failed_buffer)
{
	char dir[64], path[128];
	make_tmpdir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/out.json", dir);
	ib_buf b = {0};
	ib_test_fail_growth(3); /* 64 → 128 → 256 → 512 bytes, then no more */
	for (int i = 0; i < 1000; i++)
		ib_buf_printf(&b, "line %d\n", i); /* unchecked: the policy allows it */
	ib_test_fail_growth(-1);
	cr_assert_eq(ib_buf_error(&b), IB_ENOMEM);
	cr_assert_gt(b.len, 0); /* a prefix is there: writing it would truncate */
	ib_error e = {0};
	cr_assert_eq(ib_buf_write_file(path, &b, &e), IB_ENOMEM);
	cr_assert_str_eq(e.file, path);
	cr_assert(strstr(e.msg, "out of memory"), "%s", e.msg);
	char line[1024];
	ib_error_format(&e, line, sizeof line);
	cr_assert(strncmp(line, path, strlen(path)) == 0, "%s", line);
	cr_assert_eq(access(path, F_OK), -1);
	cr_assert_eq(count_entries(dir), 0);
	/* the same for a stream: nothing written, the name in the error */
	FILE *f = tmpfile();
	cr_assert_not_null(f);
	cr_assert_eq(ib_buf_write_to(f, "standard output", &b, &e), IB_ENOMEM);
	cr_assert_str_eq(e.file, "standard output");
	cr_assert_eq(ftell(f), 0);
	fclose(f);
	ib_buf_free(&b);
	/* a sound buffer is written whole */
	cr_assert_eq(ib_buf_puts(&b, "whole\n"), 0);
	cr_assert_eq(ib_buf_write_file(path, &b, &e), 0, "%s", e.msg);
	ib_buf_free(&b);
	cr_assert_eq(ib_read_file(path, &b, &e), 0);
	cr_assert_str_eq(b.data, "whole\n");
	ib_buf_free(&b);
	remove_tmpdir(dir);
}

Test(base, buf_append_puts_printf)
{
	ib_buf b = {0};
	cr_assert_eq(ib_buf_puts(&b, "ab"), 0);
	cr_assert_eq(ib_buf_printf(&b, "%d-%s", 42, "x"), 0);
	cr_assert_eq(ib_buf_putc(&b, '!'), 0);
	cr_assert_eq(ib_buf_append(&b, "cdef", 2), 0);
	cr_assert_str_eq(b.data, "ab42-x!cd");
	cr_assert_eq(b.len, 9);
	cr_assert_eq(b.data[b.len], '\0');
	ib_buf_free(&b);
	cr_assert_null(b.data);
	cr_assert_eq(b.len, 0);
	cr_assert_eq(b.cap, 0);
}

Test(base, buf_empty_append_is_terminated)
{
	ib_buf b = {0};
	cr_assert_eq(ib_buf_append(&b, "", 0), 0);
	cr_assert_not_null(b.data);
	cr_assert_str_eq(b.data, "");
	cr_assert_eq(b.len, 0);
	ib_buf_free(&b);
}

Test(base, buf_grows_over_many_writes)
{
	ib_buf b = {0};
	for (int i = 0; i < 100000; i++)
		cr_assert_eq(ib_buf_putc(&b, (char)('a' + i % 26)), 0);
	cr_assert_eq(b.len, 100000);
	cr_assert_geq(b.cap, b.len + 1);
	for (size_t i = 0; i < b.len; i++)
		cr_assert_eq(b.data[i], (char)('a' + i % 26), "byte %zu", i);
	cr_assert_eq(b.data[b.len], '\0');
	ib_buf_free(&b);
}

Test(base, buf_printf_long_and_embedded_nul)
{
	ib_buf b = {0};
	char big[5000];
	memset(big, 'z', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	cr_assert_eq(ib_buf_printf(&b, "<%s>", big), 0);
	cr_assert_eq(b.len, sizeof big + 1);
	cr_assert_eq(b.data[0], '<');
	cr_assert_eq(b.data[b.len - 1], '>');
	/* binary data with NUL bytes is kept as is */
	cr_assert_eq(ib_buf_append(&b, "a\0b", 3), 0);
	cr_assert_eq(b.len, sizeof big + 4);
	cr_assert_eq(memcmp(b.data + b.len - 3, "a\0b", 3), 0);
	ib_buf_free(&b);
}

Test(base, buf_reserve_keeps_content)
{
	ib_buf b = {0};
	cr_assert_eq(ib_buf_puts(&b, "keep"), 0);
	cr_assert_eq(ib_buf_reserve(&b, 1 << 20), 0);
	cr_assert_geq(b.cap, b.len + (1 << 20) + 1);
	cr_assert_str_eq(b.data, "keep");
	ib_buf_free(&b);
}

/* ---- arena ---- */

Test(base, arena_many_allocations_aligned_zeroed_distinct)
{
	ib_arena *a = ib_arena_new();
	cr_assert_not_null(a);
	enum { N = 20000 };
	unsigned char **ptrs = malloc(N * sizeof *ptrs);
	size_t *sizes = malloc(N * sizeof *sizes);
	cr_assert(ptrs && sizes);
	size_t want = 0;
	for (size_t i = 0; i < N; i++) {
		/* sizes 1..97 plus an occasional large block (own block) */
		sizes[i] = i % 1000 == 999 ? 40000 : 1 + (i * 7) % 97;
		ptrs[i] = ib_arena_alloc(a, sizes[i]);
		cr_assert_not_null(ptrs[i]);
		/* base.h: aligned to 8 bytes (pointers, 64-bit ints, doubles) */
		cr_assert_eq((uintptr_t)ptrs[i] % 8, 0, "allocation %zu misaligned", i);
		for (size_t k = 0; k < sizes[i]; k++)
			cr_assert_eq(ptrs[i][k], 0, "allocation %zu not zeroed", i);
		memset(ptrs[i], (int)(i & 0xff), sizes[i]);
		want += sizes[i];
	}
	/* no allocation overlaps another: every byte still holds its own tag */
	for (size_t i = 0; i < N; i++)
		for (size_t k = 0; k < sizes[i]; k++)
			cr_assert_eq(ptrs[i][k], (unsigned char)(i & 0xff),
			             "allocation %zu overwritten", i);
	cr_assert_geq(ib_arena_used(a), want);
	free(ptrs);
	free(sizes);
	ib_arena_free(a);
}

Test(base, arena_typed_storage_after_odd_sizes)
{
	ib_arena *a = ib_arena_new();
	cr_assert_not_null(a);
	for (int i = 1; i < 200; i++) {
		char *c = ib_arena_alloc(a, (size_t)i % 13 + 1);
		c[0] = 'x';
		/* UBSan checks the alignment of these typed accesses */
		double *d = ib_arena_alloc(a, 2 * sizeof *d);
		int64_t *n = ib_arena_alloc(a, sizeof *n);
		void **p = ib_arena_alloc(a, sizeof *p);
		d[1] = i * 0.5;
		*n = (int64_t)i << 40;
		*p = d;
		cr_assert(d[1] == i * 0.5);
		cr_assert_eq(*n, (int64_t)i << 40);
		cr_assert_eq(*p, d);
	}
	ib_arena_free(a);
}

Test(base, arena_zero_size_and_used_grows)
{
	ib_arena *a = ib_arena_new();
	cr_assert_not_null(a);
	cr_assert_eq(ib_arena_used(a), 0);
	void *p = ib_arena_alloc(a, 0);
	void *q = ib_arena_alloc(a, 0);
	cr_assert_not_null(p);
	cr_assert_not_null(q);
	cr_assert_neq(p, q);
	size_t u = ib_arena_used(a);
	cr_assert_gt(u, 0);
	cr_assert_not_null(ib_arena_alloc(a, 100));
	cr_assert_geq(ib_arena_used(a), u + 100);
	ib_arena_free(a);
	ib_arena_free(NULL); /* allowed */
}

Test(base, arena_strdup_strndup_printf)
{
	ib_arena *a = ib_arena_new();
	cr_assert_not_null(a);
	const char *src = "hello";
	char *s = ib_arena_strdup(a, src);
	cr_assert_str_eq(s, "hello");
	cr_assert_neq(s, src);
	char *n = ib_arena_strndup(a, "abcdef", 3);
	cr_assert_str_eq(n, "abc");
	char *e = ib_arena_strdup(a, "");
	cr_assert_str_eq(e, "");
	char *p = ib_arena_printf(a, "%s_tp%d_conc%lld", "dsr1", 8, 64LL);
	cr_assert_str_eq(p, "dsr1_tp8_conc64");
	/* a formatted string longer than a small block boundary */
	char *big = ib_arena_printf(a, "%0*d", 70000, 7);
	cr_assert_eq(strlen(big), 70000);
	cr_assert_eq(big[69999], '7');
	cr_assert_eq(big[0], '0');
	/* earlier strings are intact */
	cr_assert_str_eq(s, "hello");
	cr_assert_str_eq(n, "abc");
	ib_arena_free(a);
}

/* ---- files ---- */

Test(base, read_file_missing_is_enoent)
{
	char dir[64];
	make_tmpdir(dir, sizeof dir);
	char path[128];
	snprintf(path, sizeof path, "%s/nope.yaml", dir);
	ib_buf b = {0};
	ib_error e = {0};
	int rc = ib_read_file(path, &b, &e);
	cr_assert_eq(rc, IB_ENOENT);
	cr_assert_eq(e.code, IB_ENOENT);
	cr_assert_str_eq(e.file, path);
	cr_assert_gt(strlen(e.msg), 0);
	ib_buf_free(&b);
	/* NULL error pointer is allowed */
	cr_assert_eq(ib_read_file(path, &b, NULL), IB_ENOENT);
	ib_buf_free(&b);
	remove_tmpdir(dir);
}

Test(base, read_file_directory_is_eio)
{
	char dir[64];
	make_tmpdir(dir, sizeof dir);
	ib_buf b = {0};
	ib_error e = {0};
	cr_assert_eq(ib_read_file(dir, &b, &e), IB_EIO);
	cr_assert_eq(e.code, IB_EIO);
	cr_assert_str_eq(e.file, dir);
	ib_buf_free(&b);
	remove_tmpdir(dir);
}

Test(base, write_atomic_then_read_back)
{
	char dir[64];
	make_tmpdir(dir, sizeof dir);
	char path[128];
	snprintf(path, sizeof path, "%s/out.json", dir);
	ib_error e = {0};
	cr_assert_eq(ib_write_file_atomic(path, "[1, 2]\n", 7, &e), 0, "%s", e.msg);
	/* overwrite with different content */
	cr_assert_eq(ib_write_file_atomic(path, "{}\n", 3, &e), 0, "%s", e.msg);
	ib_buf b = {0};
	cr_assert_eq(ib_buf_puts(&b, "prefix:"), 0);
	cr_assert_eq(ib_read_file(path, &b, &e), 0, "%s", e.msg);
	cr_assert_str_eq(b.data, "prefix:{}\n", "read appends to the buffer");
	ib_buf_free(&b);
	/* only the target file is left in the folder: no temporary file */
	cr_assert_eq(count_entries(dir), 1);
	remove_tmpdir(dir);
}

Test(base, write_atomic_large_binary_file)
{
	char dir[64];
	make_tmpdir(dir, sizeof dir);
	char path[128];
	snprintf(path, sizeof path, "%s/big.bin", dir);
	size_t n = 300000;
	unsigned char *data = malloc(n);
	cr_assert_not_null(data);
	for (size_t i = 0; i < n; i++)
		data[i] = (unsigned char)(i * 31 + 7);
	ib_error e = {0};
	cr_assert_eq(ib_write_file_atomic(path, data, n, &e), 0, "%s", e.msg);
	ib_buf b = {0};
	cr_assert_eq(ib_read_file(path, &b, &e), 0, "%s", e.msg);
	cr_assert_eq(b.len, n);
	cr_assert_eq(memcmp(b.data, data, n), 0);
	cr_assert_eq(b.data[b.len], '\0');
	ib_buf_free(&b);
	free(data);
	cr_assert_eq(count_entries(dir), 1);
	remove_tmpdir(dir);
}

Test(base, write_atomic_into_missing_folder_fails)
{
	char dir[64];
	make_tmpdir(dir, sizeof dir);
	char path[160];
	snprintf(path, sizeof path, "%s/no/such/dir/x.json", dir);
	ib_error e = {0};
	cr_assert_eq(ib_write_file_atomic(path, "x", 1, &e), IB_EIO);
	cr_assert_str_eq(e.file, path);
	cr_assert_eq(count_entries(dir), 0);
	remove_tmpdir(dir);
}

Test(base, atomic_stream_commit_and_abort)
{
	char dir[64];
	make_tmpdir(dir, sizeof dir);
	char path[128];
	snprintf(path, sizeof path, "%s/rows.json", dir);
	ib_error e = {0};
	ib_atomic w;
	cr_assert_eq(ib_atomic_open(&w, path, &e), 0, "%s", e.msg);
	fputs("[1, ", w.f);
	fputs("2]\n", w.f);
	/* not visible under its final name before the commit */
	cr_assert_neq(access(path, F_OK), 0);
	cr_assert_eq(ib_atomic_commit(&w, &e), 0, "%s", e.msg);
	ib_buf b = {0};
	cr_assert_eq(ib_read_file(path, &b, &e), 0);
	cr_assert_str_eq(b.data, "[1, 2]\n");
	/* an aborted write leaves the old content and no temporary file */
	cr_assert_eq(ib_atomic_open(&w, path, &e), 0, "%s", e.msg);
	fputs("garbage", w.f);
	ib_atomic_abort(&w);
	b.len = 0;
	cr_assert_eq(ib_read_file(path, &b, &e), 0);
	cr_assert_str_eq(b.data, "[1, 2]\n");
	ib_buf_free(&b);
	cr_assert_eq(count_entries(dir), 1);
	remove_tmpdir(dir);
}

/* ---- glob (Python fnmatch.fnmatchcase) ---- */

typedef struct {
	const char *pat, *s;
	bool want;
} glob_case;

Test(base, glob_match_fnmatchcase_semantics)
{
	/* each expectation checked against Python 3.11 fnmatch.fnmatchcase */
	static const glob_case cases[] = {
	    {"*", "", true},
	    {"*", "abc", true},
	    {"a*c", "ac", true},
	    {"a*c", "abbbc", true},
	    {"a*c", "abd", false},
	    {"*a*b", "xaxxb", true},
	    {"**b", "ab", true},
	    {"a*", "a", true},
	    {"a?c", "abc", true},
	    {"a?c", "ac", false},
	    {"a?c", "abcd", false},
	    {"[abc]x", "bx", true},
	    {"[abc]x", "dx", false},
	    {"[!abc]x", "dx", true},
	    {"[!abc]x", "ax", false},
	    {"a[!b]", "a", false},
	    {"[a-c]", "b", true},
	    {"[a-c]", "d", false},
	    {"[!a-c]", "b", false},
	    {"[!a-c]", "z", true},
	    {"[a-]", "-", true},
	    {"[a-c-e]", "d", false},
	    {"[a-c-e]", "-", true},
	    {"[]]", "]", true},
	    {"[!]]", "a", true},
	    {"[!]]", "]", false},
	    {"[*]", "*", true},
	    {"[?]", "?", true},
	    {"[?]", "x", false},
	    {"[[]", "[", true},
	    /* an unclosed '[' is a literal */
	    {"a[b", "a[b", true},
	    {"a[b", "ab", false},
	    {"a[", "a[", true},
	    {"x[a", "x[a", true},
	    {"*[", "x[", true},
	    /* '/' and a leading '.' are ordinary characters */
	    {"*", ".hidden", true},
	    {"*", "a/b", true},
	    {"a?b", "a/b", true},
	    /* case-sensitive, whole string */
	    {"A*", "abc", false},
	    {"abc", "abcd", false},
	    {"bc", "abc", false},
	    {"dsr1-*-sglang", "dsr1-fp8-mi300x-sglang", true},
	    {"dsr1-*-sglang", "dsr1-fp8-mi300x-vllm", false},
	    {"*-mi3??x-*", "dsr1-fp8-mi300x-sglang", true},
	    {"*-mi3??x-*", "dsr1-fp8-mi3000x-sglang", false},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		cr_expect_eq(ib_glob_match(cases[i].pat, cases[i].s), cases[i].want,
		             "pattern '%s' vs '%s': want %d", cases[i].pat, cases[i].s,
		             cases[i].want);
}

Test(base, str_has_prefix)
{
	cr_assert(ib_str_has_prefix("cluster:b300", "cluster:"));
	cr_assert(ib_str_has_prefix("abc", ""));
	cr_assert_not(ib_str_has_prefix("clus", "cluster:"));
	cr_assert_not(ib_str_has_prefix("image:x", "Image:"));
}

/* ---- errors ---- */

Test(base, fail_fills_error_and_returns_code)
{
	ib_error e = {0};
	int rc = ib_fail(&e, IB_EPARSE, "f.yaml", 3, 7, "bad %s %d", "thing", 5);
	cr_assert_eq(rc, IB_EPARSE);
	cr_assert_eq(e.code, IB_EPARSE);
	cr_assert_str_eq(e.file, "f.yaml");
	cr_assert_eq(e.line, 3);
	cr_assert_eq(e.col, 7);
	cr_assert_str_eq(e.msg, "bad thing 5");
	/* NULL error: just the code */
	cr_assert_eq(ib_fail(NULL, IB_EINVAL, "x", 1, 1, "ignored"), IB_EINVAL);
	/* NULL file becomes empty */
	cr_assert_eq(ib_fail(&e, IB_ENOENT, NULL, 0, 0, "gone"), IB_ENOENT);
	cr_assert_str_eq(e.file, "");
	cr_assert_eq(e.line, 0);
}

Test(base, error_format_parts)
{
	ib_error e = {0};
	char out[256];
	ib_fail(&e, IB_EPARSE, "f.yaml", 3, 7, "bad");
	ib_error_format(&e, out, sizeof out);
	cr_assert_str_eq(out, "f.yaml:3:7: bad");
	ib_fail(&e, IB_EINVAL, "f.yaml", 3, 0, "no column");
	ib_error_format(&e, out, sizeof out);
	cr_assert_str_eq(out, "f.yaml:3: no column");
	ib_fail(&e, IB_ENOENT, "f.yaml", 0, 0, "missing");
	ib_error_format(&e, out, sizeof out);
	cr_assert_str_eq(out, "f.yaml: missing");
	ib_fail(&e, IB_EINVAL, NULL, 0, 0, "plain");
	ib_error_format(&e, out, sizeof out);
	cr_assert_str_eq(out, "plain");
	/* truncation keeps a terminated string */
	ib_fail(&e, IB_EINVAL, "long-file-name.yaml", 12, 34, "message");
	char small[8];
	ib_error_format(&e, small, sizeof small);
	cr_assert_str_eq(small, "long-fi");
}

Test(base, error_long_message_truncated_safely)
{
	ib_error e = {0};
	char big[5000];
	memset(big, 'm', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	ib_fail(&e, IB_EINVAL, big, 1, 1, "%s", big);
	cr_assert_eq(strlen(e.file), sizeof e.file - 1);
	cr_assert_eq(strlen(e.msg), sizeof e.msg - 1);
}

Test(base, err_names)
{
	cr_assert_str_eq(ib_err_name(IB_OK), "ok");
	cr_assert_str_eq(ib_err_name(IB_ENOENT), "not found");
	cr_assert_str_eq(ib_err_name(IB_EPARSE), "parse error");
	cr_assert_str_eq(ib_err_name(IB_ERANGE), "out of range");
	cr_assert_str_eq(ib_err_name(-99), "unknown error");
}

Test(base, monotonic_clock_does_not_go_back)
{
	int64_t a = ib_now_ns();
	int64_t b = ib_now_ns();
	cr_assert_gt(a, 0);
	cr_assert_geq(b, a);
}

Test(base, grow_doubles_and_checks_overflow)
{
	int *v = NULL;
	size_t cap = 0;
	cr_assert_eq(ib_grow(&v, &cap, 1), 0);
	cr_assert_eq(cap, 8);
	for (int i = 0; i < 1000; i++) {
		cr_assert_eq(ib_grow(&v, &cap, (size_t)i + 1), 0);
		v[i] = i;
	}
	cr_assert_geq(cap, 1000);
	cr_assert_eq(v[999], 999);
	size_t before = cap;
	/* a count whose byte size overflows size_t is refused, the array kept */
	cr_assert_eq(ib_grow(&v, &cap, SIZE_MAX / 2), IB_ERANGE);
	cr_assert_eq(cap, before);
	cr_assert_eq(v[500], 500);
	free(v);
	ib_buf b = {0};
	cr_assert_eq(ib_buf_append(&b, "x", 1), 0);
	cr_assert_eq(ib_buf_reserve(&b, SIZE_MAX), IB_ERANGE);
	cr_assert_str_eq(b.data, "x");
	ib_buf_free(&b);
}

Test(base, arena_grow_copies_and_checks_overflow)
{
	ib_arena *a = ib_arena_new();
	cr_assert_not_null(a);
	int64_t *v = NULL;
	size_t cap = 0;
	for (int i = 0; i < 1000; i++) {
		cr_assert_eq(ib_arena_grow(a, &v, &cap, (size_t)i + 1), 0);
		v[i] = i;
	}
	cr_assert_geq(cap, 1000);
	for (int i = 0; i < 1000; i++)
		cr_assert_eq(v[i], i);
	size_t before = cap;
	cr_assert_eq(ib_arena_grow(a, &v, &cap, SIZE_MAX / 4), IB_ERANGE);
	cr_assert_eq(cap, before);
	cr_assert_eq(v[999], 999);
	ib_arena_free(a);
}

Test(base, arena_alloc_refuses_sizes_that_wrap)
{
	ib_arena *a = ib_arena_new();
	cr_assert_not_null(a);
	/* rounding SIZE_MAX up to 8 wrapped to 0 and handed out 8 bytes */
	cr_assert_null(ib_arena_alloc(a, SIZE_MAX));
	cr_assert_null(ib_arena_alloc(a, SIZE_MAX - 3));
	cr_assert_not_null(ib_arena_alloc(a, 16));
	ib_arena_free(a);
}

Test(base, diags_format_and_count)
{
	ib_arena *a = ib_arena_new();
	ib_diags d = {.a = a};
	cr_assert_eq(ib_diag_add(&d,
	                         &(ib_diag){.file = "x.yaml",
	                                    .line = 3,
	                                    .col = 7,
	                                    .rule = "R1",
	                                    .subject = "key",
	                                    .field = "tp"},
	                         "bad %d", 4),
	             0);
	cr_assert_eq(ib_diag_add(&d, &(ib_diag){.severity = IB_SEV_WARNING, .field = ""}, "hmm"),
	             0);
	cr_assert_eq(ib_diag_add(&d, &(ib_diag){.file = "y", .line = 2}, "z"), 0);
	cr_assert_eq(ib_diag_add(&d,
	                         &(ib_diag){.file = "c.yaml",
	                                    .line = 4,
	                                    .col = 1,
	                                    .kind = "entry",
	                                    .subject = "",
	                                    .field = "a.b",
	                                    .got = "5"},
	                         "%s", "bad"),
	             0);
	cr_assert_eq(
	    ib_diag_add(&d, &(ib_diag){.severity = IB_SEV_NOTE, .file = "", .line = 0}, "n"), 0);
	ib_buf out = {0};
	ib_diag_format(&d.items[0], &out);
	cr_assert_str_eq(out.data, "x.yaml:3:7: [R1] 'key': field 'tp': bad 4");
	out.len = 0;
	ib_diag_format(&d.items[1], &out);
	cr_assert_str_eq(out.data, "warning: hmm");
	cr_assert_null(d.items[1].field, "an empty field path is no field");
	out.len = 0;
	ib_diag_format(&d.items[2], &out);
	cr_assert_str_eq(out.data, "y:2: z");
	out.len = 0;
	ib_diag_format(&d.items[3], &out);
	cr_assert_str_eq(out.data, "c.yaml:4:1: entry '': field 'a.b': bad (got 5)",
	                 "an empty subject is kept");
	out.len = 0;
	ib_diag_format(&d.items[4], &out);
	cr_assert_str_eq(out.data, ": note: n", "an empty file name is kept");
	cr_assert_eq(ib_diags_count(&d, IB_SEV_ERROR), 3);
	cr_assert_eq(ib_diags_count(&d, IB_SEV_WARNING), 1);
	cr_assert_eq(ib_diags_count(&d, IB_SEV_NOTE), 1);
	ib_buf_free(&out);
	ib_arena_free(a);
}

Test(base, diags_quotes_fix_and_growth)
{
	ib_arena *a = ib_arena_new();
	ib_diags d = {.a = a};
	cr_assert_eq(ib_diag_quote_add(&d, "f", 1, "x"), IB_EINVAL, "nothing to quote for");
	/* the strings are copies: the caller's buffers may change afterwards */
	char file[16] = "r.sh", fix[16] = "do it";
	cr_assert_eq(ib_diag_add(&d, &(ib_diag){.file = file, .line = 9, .fix = fix}, "m"), 0);
	strcpy(file, "zz");
	strcpy(fix, "zz");
	cr_assert_eq(ib_diag_quote_add(&d, "s1.sh", 4, "if [ x ]; then"), 0);
	cr_assert_eq(ib_diag_quote_add(&d, NULL, 0, NULL), 0);
	const ib_diag *g = &d.items[0];
	cr_assert_str_eq(g->file, "r.sh");
	cr_assert_str_eq(g->fix, "do it");
	cr_assert_eq(g->nquotes, 2);
	cr_assert_str_eq(g->quotes[0].file, "s1.sh");
	cr_assert_eq(g->quotes[0].line, 4);
	cr_assert_str_eq(g->quotes[0].text, "if [ x ]; then");
	cr_assert_null(g->quotes[1].file);
	cr_assert_str_eq(g->quotes[1].text, "");
	/* many items: the array grows in the arena and keeps every earlier one */
	for (int i = 0; i < 100; i++)
		cr_assert_eq(ib_diag_add(&d, &(ib_diag){.line = i}, "item %d", i), 0);
	cr_assert_eq(d.n, 101);
	cr_assert_eq(d.items[0].nquotes, 2, "quotes survive growth");
	cr_assert_str_eq(d.items[100].msg, "item 99");
	cr_assert_eq(d.items[57].line, 56);
	ib_arena_free(a);
}

/* Only regular files are read: a directory, a device or a FIFO is an error
 * (a FIFO without a writer must not block, /dev/zero must not grow forever). */
Test(base, read_file_rejects_non_regular_files)
{
	ib_buf b = {0};
	ib_error e = {0};
	cr_assert_eq(ib_read_file("/", &b, &e), IB_EIO);
	cr_assert_eq(ib_read_file("/dev/zero", &b, &e), IB_EIO);
	cr_assert(strstr(e.msg, "not a regular file") != NULL, "%s", e.msg);
	char dir[] = "/tmp/ib_fifo_XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char path[64];
	snprintf(path, sizeof path, "%s/f", dir);
	cr_assert_eq(mkfifo(path, 0600), 0);
	cr_assert_eq(ib_read_file(path, &b, &e), IB_EIO);
	unlink(path);
	rmdir(dir);
	ib_buf_free(&b);
}

Test(base, utf8_decode_is_strict_like_python)
{
	uint32_t cp = 0;
	cr_assert_eq(ib_utf8_decode("\xf0\x9f\x98\x80", 4, &cp), 4);
	cr_assert_eq(cp, 0x1F600);
	cr_assert_eq(ib_utf8_decode("\xc0\x80", 2, &cp), IB_UTF8_BAD_START);
	cr_assert_eq(ib_utf8_decode("\xe0\x80\x80", 3, &cp), IB_UTF8_BAD_CONTINUATION);
	cr_assert_eq(ib_utf8_decode("\xed\xa0\x80", 3, &cp), IB_UTF8_BAD_CONTINUATION);
	cr_assert_eq(ib_utf8_decode("\xf0\x9f\x98", 3, &cp), IB_UTF8_TRUNCATED);
	cr_assert_str_eq(ib_utf8_reason(IB_UTF8_BAD_START), "invalid start byte");
}

Test(base, utf8_bad_len_and_encode)
{
	/* maximal subparts: a bad start is 1, a valid prefix cut short is its length */
	cr_assert_eq(ib_utf8_bad_len("\xff", 1), 1);
	cr_assert_eq(ib_utf8_bad_len("\xe2\x82", 2), 2);
	cr_assert_eq(ib_utf8_bad_len("\xe2\x82x", 3), 2);
	cr_assert_eq(ib_utf8_bad_len("\xf0\x9f\x98x", 4), 3);
	cr_assert_eq(ib_utf8_bad_len("\xed\xa0\x80", 3), 1);
	cr_assert_eq(ib_utf8_bad_len("\xe0\x80", 2), 1);
	char o[4];
	cr_assert_eq(ib_utf8_encode(0x41, o), 1);
	cr_assert_eq(ib_utf8_encode(0xE9, o), 2);
	cr_assert(!memcmp(o, "\xc3\xa9", 2));
	cr_assert_eq(ib_utf8_encode(0x20AC, o), 3);
	cr_assert(!memcmp(o, "\xe2\x82\xac", 3));
	cr_assert_eq(ib_utf8_encode(0x1F600, o), 4);
	cr_assert(!memcmp(o, "\xf0\x9f\x98\x80", 4));
	cr_assert_eq(ib_utf8_encode(0xD800, o), 3); /* a Python str may hold one */
	cr_assert(!memcmp(o, "\xed\xa0\x80", 3));
	cr_assert_eq(ib_utf8_encode(0x110000, o), 3);
	cr_assert(!memcmp(o, "\xef\xbf\xbd", 3));
	/* every code point survives encode + decode */
	for (uint32_t cp = 0; cp <= 0x10FFFF; cp += cp < 0x1000 ? 1 : 97) {
		if (cp >= 0xD800 && cp <= 0xDFFF)
			continue;
		uint32_t back;
		size_t n = ib_utf8_encode(cp, o);
		cr_assert_eq(ib_utf8_decode(o, n, &back), (int)n);
		cr_assert_eq(back, cp);
	}
}

Test(base, proc_run_captures_both_streams_and_status)
{
	const char *argv[] = {"sh", "-c", "printf out; printf err >&2; pwd >&2; exit 3", NULL};
	ib_buf out = {0}, err = {0};
	int st = -1;
	ib_error e;
	cr_assert_eq(ib_proc_run(argv, "/tmp", &out, &err, &st, &e), 0);
	cr_assert_eq(st, 3);
	cr_assert_str_eq(out.data, "out");
	cr_assert_str_eq(err.data, "err/tmp\n");
	ib_buf_free(&out);
	ib_buf_free(&err);
}

Test(base, proc_run_missing_program_is_an_error)
{
	const char *argv[] = {"no-such-program-infbench", NULL};
	int st = -1;
	ib_error e;
	cr_assert_eq(ib_proc_run(argv, NULL, NULL, NULL, &st, &e), IB_EIO);
	cr_assert(strstr(e.msg, "no-such-program-infbench"));
}

Test(base, proc_run_large_output_on_both_pipes_does_not_deadlock)
{
	const char *argv[] = {"sh", "-c", "head -c 300000 /dev/zero; head -c 300000 /dev/zero >&2",
	                      NULL};
	ib_buf out = {0}, err = {0};
	int st = -1;
	cr_assert_eq(ib_proc_run(argv, NULL, &out, &err, &st, NULL), 0);
	cr_assert_eq(st, 0);
	cr_assert_eq(out.len, 300000);
	cr_assert_eq(err.len, 300000);
	ib_buf_free(&out);
	ib_buf_free(&err);
}

/* ---- Python int() / float() of text ---- */

Test(base, py_int_accepts_what_python_accepts)
{
	int64_t v;
	cr_assert(ib_py_int(" 1_024\t", 7, &v) && v == 1024);
	cr_assert(ib_py_int("+8", 2, &v) && v == 8);
	cr_assert(ib_py_int("-01", 3, &v) && v == -1);
	cr_assert(!ib_py_int("8.0", 3, &v));
	cr_assert(!ib_py_int("1k", 2, &v));
	cr_assert(!ib_py_int("_1", 2, &v));
	cr_assert(!ib_py_int("1_", 2, &v));
	cr_assert(!ib_py_int("1__0", 4, &v));
	cr_assert(!ib_py_int("", 0, &v));
	cr_assert(!ib_py_int("-", 1, &v));
	cr_assert(!ib_py_int("99999999999999999999", 20, &v)); /* beyond 64 bits */
}

Test(base, py_float_accepts_what_python_accepts)
{
	double d;
	cr_assert(ib_py_float(" 0.85\n", 6, &d) && d == 0.85);
	cr_assert(ib_py_float("1_0.5", 5, &d) && d == 10.5);
	cr_assert(ib_py_float(".5", 2, &d) && d == 0.5);
	cr_assert(ib_py_float("5.", 2, &d) && d == 5.0);
	cr_assert(ib_py_float("-1E2", 4, &d) && d == -100.0);
	cr_assert(ib_py_float("1e400", 5, &d) && d > 1e308);
	cr_assert(ib_py_float("-Infinity", 9, &d) && d < -1e308);
	cr_assert(ib_py_float("nan", 3, &d) && d != d);
	cr_assert(!ib_py_float("1.5e", 4, &d));
	cr_assert(!ib_py_float("0x10", 4, &d));
	cr_assert(!ib_py_float("abc", 3, &d));
	cr_assert(!ib_py_float(".", 1, &d));
	cr_assert(!ib_py_float("", 0, &d));
	cr_assert(!ib_py_float("1__0", 4, &d));
}

/* FIPS 180-4 vectors, and the same bytes fed in pieces of every size 1..130
 * (the SHA-NI path takes runs of whole blocks, the buffer the rest) */
Test(base, sha256_vectors_and_pieces)
{
	char hex[65];
	ib_sha256_hex("abc", 3, hex);
	cr_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	ib_sha256_hex("", 0, hex);
	cr_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	ib_sha256_hex(m, strlen(m), hex);
	cr_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	static char a[1000000];
	memset(a, 'a', sizeof a);
	for (size_t step = 1; step <= 130; step += 43) {
		ib_sha256 s;
		uint8_t d[32];
		ib_sha256_init(&s);
		for (size_t o = 0; o < sizeof a; o += step)
			ib_sha256_update(&s, a + o, sizeof a - o < step ? sizeof a - o : step);
		ib_sha256_final(&s, d);
		for (int i = 0; i < 32; i++)
			snprintf(hex + 2 * i, 3, "%02x", d[i]);
		cr_assert_str_eq(hex,
		                 "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
		                 "pieces of %zu", step);
	}
}
