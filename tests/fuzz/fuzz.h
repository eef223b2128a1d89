/* Shared helpers of the libFuzzer targets in tests/fuzz/ (docs/fuzzing.md).
 *
 * Each target defines LLVMFuzzerTestOneInput. A check that fails calls
 * FUZZ_CHECK's abort(), which libFuzzer reports as a crash with the input
 * that caused it. Split points for streaming parsers come from the input
 * itself (fuzz_split), so the fuzzer explores them like any other byte.
 */
#ifndef IB_FUZZ_H
#define IB_FUZZ_H

#include "base/base.h"
#include "fmt/fmt.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond, ...)                                                                      \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);   \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* Takes the first four bytes of *data (when there are four) as two 16-bit
 * split seeds and returns two cut points 0 <= cut[0] <= cut[1] <= n of the
 * rest, which stays in *data / *size. */
static inline void fuzz_split(const uint8_t **data, size_t *size, size_t cut[2])
{
	size_t a = 0, b = 0;
	if (*size >= 4) {
		a = (size_t)(*data)[0] << 8 | (*data)[1];
		b = (size_t)(*data)[2] << 8 | (*data)[3];
		*data += 4;
		*size -= 4;
	}
	size_t n = *size;
	a %= n + 1;
	b %= n + 1;
	cut[0] = a < b ? a : b;
	cut[1] = a < b ? b : a;
}

/* The input cut at its first form feed ('\f'): the part before it in
 * [0, *first) and the rest after it; without one, all of it is the rest. */
static inline size_t fuzz_two_parts(const uint8_t *data, size_t size, size_t *first)
{
	const uint8_t *ff = memchr(data, '\f', size);
	*first = ff ? (size_t)(ff - data) : 0;
	return ff ? *first + 1 : 0;
}

/* A NUL-terminated heap copy of data[0..n) (the parsers that want C strings). */
static inline char *fuzz_strdup(const uint8_t *data, size_t n)
{
	char *s = malloc(n + 1);
	if (!s)
		abort();
	if (n)
		memcpy(s, data, n);
	s[n] = '\0';
	return s;
}

/* Is data[0..size) an empty YAML document (nothing, blanks, comments)? It
 * has no line for a message to name. */
static inline bool fuzz_yaml_empty(ib_arena *a, const uint8_t *data, size_t size)
{
	ib_val *v;
	ib_error e;
	return size == 0 ||
	       (!ib_yaml_load(a, "doc", (const char *)data, size, &v, &e) && v->type == IB_V_NULL);
}

/* Writes data[0..n) to path (whole), aborting on an I/O error of the test
 * harness itself. */
static inline void fuzz_write(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f)) {
		perror(path);
		abort();
	}
}

/* The input cut at its form feeds ('\f') into at most max parts: part i is
 * data[off[i] .. off[i] + len[i]); the last part takes the rest (form feeds
 * included). Returns how many parts there are (at least 1). */
static inline size_t fuzz_parts(const uint8_t *data, size_t size, size_t max, size_t *off,
                                size_t *len)
{
	size_t n = 0, at = 0;
	while (n + 1 < max) {
		const uint8_t *ff = memchr(data + at, '\f', size - at);
		if (!ff)
			break;
		off[n] = at;
		len[n] = (size_t)(ff - (data + at));
		at += len[n] + 1;
		n++;
	}
	off[n] = at;
	len[n] = size - at;
	return n + 1;
}

/* Removes the tree at path (files, folders, links; never follows a link). */
static inline void fuzz_rmtree(const char *path)
{
	struct stat st;
	if (lstat(path, &st))
		return;
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		struct dirent *de;
		while (d && (de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			char p[4096];
			if ((size_t)snprintf(p, sizeof p, "%s/%s", path, de->d_name) < sizeof p)
				fuzz_rmtree(p);
		}
		if (d)
			closedir(d);
	}
	remove(path);
}

/* Writes data[0..n) to dir/rel, creating the folders of rel first. */
static inline void fuzz_write_at(const char *dir, const char *rel, const void *data, size_t n)
{
	char p[1024];
	snprintf(p, sizeof p, "%s/%s", dir, rel);
	for (char *s = p + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	fuzz_write(p, data, n);
}

/* A private scratch folder for targets whose parsers read files: created on
 * first use below $TMPDIR (or /tmp), removed (with the files the target
 * names in `files`) at exit. */
static char fuzz_dir_[256];
static const char *const *fuzz_files_;

static inline void fuzz_cleanup_(void)
{
	char p[512];
	for (size_t i = 0; fuzz_files_ && fuzz_files_[i]; i++) {
		snprintf(p, sizeof p, "%s/%s", fuzz_dir_, fuzz_files_[i]);
		remove(p);
	}
	rmdir(fuzz_dir_);
}

static inline const char *fuzz_tmpdir(const char *const *files)
{
	if (!fuzz_dir_[0]) {
		const char *t = getenv("TMPDIR");
		snprintf(fuzz_dir_, sizeof fuzz_dir_, "%s/ibfuzz.XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(fuzz_dir_)) {
			perror("mkdtemp");
			abort();
		}
		fuzz_files_ = files;
		atexit(fuzz_cleanup_);
	}
	return fuzz_dir_;
}

#endif
