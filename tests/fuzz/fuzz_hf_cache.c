/* The Hugging Face cache lookup of --tokenizer / --model (tok/hfcache.c:
 * tok_resolve). The input's first line is the name to resolve ("org/name",
 * "org/name@rev", anything); each further line creates an entry of a
 * private cache folder ($HF_HUB_CACHE; the other cache variables point
 * nowhere): "PATH/" a folder, "PATH" an empty file ("PATH=TEXT" with that
 * text), "PATH -> TARGET" a symbolic link. Paths are relative and never
 * climb out ("..", leading "/" and NUL are refused). Checks: no crash; an
 * error has a message; a name resolved into the cache is a snapshot folder
 * that holds tokenizer.json. */
#include "fuzz.h"

#include "tok/tok.h"

static const char *const files[] = {NULL};

static bool safe(const char *p)
{
	if (!*p || *p == '/' || strlen(p) > 200)
		return false;
	for (const char *s = p; (s = strstr(s, "..")); s += 2)
		if ((s == p || s[-1] == '/') && (s[2] == '/' || !s[2]))
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = fuzz_tmpdir(files);
	char cache[512], home[512];
	snprintf(cache, sizeof cache, "%s/cache", dir);
	snprintf(home, sizeof home, "%s/home", dir);
	static bool env;
	if (!env) {
		env = true;
		setenv("HF_HUB_CACHE", cache, 1);
		setenv("HOME", home, 1);
		unsetenv("HUGGINGFACE_HUB_CACHE");
		unsetenv("HF_HOME");
		unsetenv("XDG_CACHE_HOME");
	}
	fuzz_rmtree(cache);
	mkdir(cache, 0755);
	char *text = fuzz_strdup(data, size);
	char *name = text, *line = strchr(text, '\n');
	if (line)
		*line++ = '\0';
	for (int k = 0; line && k < 64; k++) {
		char *next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *arrow = strstr(line, " -> "), *eq = strchr(line, '=');
		if (arrow)
			*arrow = '\0';
		else if (eq)
			*eq = '\0';
		size_t n = strlen(line);
		if (safe(line)) {
			char p[1024];
			snprintf(p, sizeof p, "%s/%s", cache, line);
			/* the folders on the way (a file in the way: the entry fails) */
			for (char *s = p + strlen(cache) + 1; (s = strchr(s, '/')); s++) {
				*s = '\0';
				mkdir(p, 0755);
				*s = '/';
			}
			if (arrow) {
				if (symlink(arrow + 4, p)) {
				}
			} else if (n && line[n - 1] != '/') {
				FILE *f = fopen(p, "wb");
				if (f) {
					if (eq)
						fputs(eq + 1, f);
					fclose(f);
				}
			}
		}
		line = next;
	}
	char *out = NULL;
	ib_error e = {0};
	int rc = tok_resolve(name, &out, &e);
	FUZZ_CHECK(rc <= 0, "rc %d", rc);
	if (rc) {
		FUZZ_CHECK(e.msg[0] && !out, "error %d without a message", rc);
	} else {
		FUZZ_CHECK(out, "no path");
		if (strcmp(out, name) && !strncmp(out, cache, strlen(cache))) { /* looked up */
			char p[2048];
			struct stat st;
			snprintf(p, sizeof p, "%s/tokenizer.json", out);
			FUZZ_CHECK(!stat(out, &st) && S_ISDIR(st.st_mode) && !stat(p, &st) &&
			               S_ISREG(st.st_mode),
			           "%s resolves to %s, not a snapshot with tokenizer.json", name, out);
		}
	}
	free(out);
	free(text);
	fuzz_rmtree(cache);
	return 0;
}
