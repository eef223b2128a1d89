/* Hugging Face model ids → a local snapshot folder, offline, as
 * huggingface_hub's cache layout has it:
 *   <cache>/models--<org>--<name>/refs/<revision>   holds a commit hash
 *   <cache>/models--<org>--<name>/snapshots/<commit>/tokenizer.json
 * A revision that is a snapshot name (a commit) is used directly. */
#include "tok/tok.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { MAX_CACHES = 5 };

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* huggingface_hub's repo-id rule: "name" or "org/name" of [A-Za-z0-9._-],
 * no "--" or "..", not starting or ending with '-' or '.', <= 96 chars. */
static bool valid_id(const char *s, size_t n)
{
	if (n == 0 || n > 96 || strstr(s, "--") || strstr(s, ".."))
		return false;
	int slashes = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '/') {
			if (++slashes > 1 || i == 0 || i + 1 == n)
				return false;
			continue;
		}
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			return false;
	}
	return s[0] != '-' && s[0] != '.' && s[n - 1] != '-' && s[n - 1] != '.';
}

/* A revision: a branch, tag or commit; "refs/pr/N" has slashes. No "..",
 * nothing that leaves the repo folder. */
static bool valid_rev(const char *r)
{
	if (!*r || *r == '/' || strstr(r, ".."))
		return false;
	for (const char *p = r; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == '\\')
			return false;
	return true;
}

/* "~/x" → "$HOME/x" (Python's expanduser), appended to b. */
static int put_path(ib_buf *b, const char *p)
{
	const char *home = getenv("HOME");
	if (p[0] == '~' && (p[1] == '/' || !p[1]) && home && *home)
		return ib_buf_printf(b, "%s%s", home, p + 1);
	return ib_buf_puts(b, p);
}

int tok_hf_caches(char caches[][1024], const char *origin[], size_t cap)
{
	size_t n = 0;
	struct {
		const char *env, *suffix, *label;
	} src[] = {
	    {"HF_HUB_CACHE", "", "$HF_HUB_CACHE"},
	    {"HUGGINGFACE_HUB_CACHE", "", "$HUGGINGFACE_HUB_CACHE"},
	    {"HF_HOME", "/hub", "$HF_HOME/hub"},
	    {"XDG_CACHE_HOME", "/huggingface/hub", "$XDG_CACHE_HOME/huggingface/hub"},
	    {"HOME", "/.cache/huggingface/hub", "~/.cache/huggingface/hub"},
	};
	for (size_t i = 0; i < sizeof src / sizeof src[0] && n < cap; i++) {
		const char *v = getenv(src[i].env);
		if (!v || !*v)
			continue;
		ib_buf b = {0};
		if (put_path(&b, v) || ib_buf_puts(&b, src[i].suffix) || b.len >= 1024) {
			ib_buf_free(&b);
			continue;
		}
		bool dup = false;
		for (size_t k = 0; k < n; k++)
			dup |= !strcmp(caches[k], b.data);
		if (!dup) {
			memcpy(caches[n], b.data, b.len + 1);
			origin[n++] = src[i].label;
		}
		ib_buf_free(&b);
	}
	return (int)n;
}

/* Looks for id@rev in one cache; 1: found (*out set), 0: not there (why
 * appended to why), < 0: out of memory. */
static int look(const char *cache, const char *folder, const char *rev, char **out, ib_buf *why)
{
	ib_buf repo = {0}, p = {0}, ref = {0};
	ib_error ignore = {0};
	int rc = 0;
	if (ib_buf_printf(&repo, "%s/%s", cache, folder))
		goto oom;
	if (!is_dir(repo.data)) {
		rc = ib_buf_printf(why, "\n  %s: no such folder", repo.data) ? -1 : 0;
		goto done;
	}
	const char *commit = rev;
	if (ib_buf_printf(&p, "%s/refs/%s", repo.data, rev))
		goto oom;
	if (is_file(p.data) && ib_read_file(p.data, &ref, &ignore) == 0 && ref.data) {
		while (ref.len && (ref.data[ref.len - 1] == '\n' || ref.data[ref.len - 1] == '\r' ||
		                   ref.data[ref.len - 1] == ' '))
			ref.data[--ref.len] = 0;
		if (ref.len && !strchr(ref.data, '/') && !strstr(ref.data, ".."))
			commit = ref.data;
	}
	p.len = 0;
	if (ib_buf_printf(&p, "%s/snapshots/%s", repo.data, commit))
		goto oom;
	if (!is_dir(p.data)) {
		rc = ib_buf_printf(why, "\n  %s: no refs/%s and no snapshots/%s", repo.data, rev,
		                   commit)
		         ? -1
		         : 0;
		goto done;
	}
	size_t dirlen = p.len;
	if (ib_buf_puts(&p, "/tokenizer.json"))
		goto oom;
	if (!is_file(p.data)) {
		p.data[dirlen] = 0;
		rc = ib_buf_printf(why, "\n  %s: has no tokenizer.json", p.data) ? -1 : 0;
		goto done;
	}
	p.data[dirlen] = 0;
	if (!(*out = strdup(p.data)))
		goto oom;
	rc = 1;
	goto done;
oom:
	rc = -1;
done:
	ib_buf_free(&repo);
	ib_buf_free(&p);
	ib_buf_free(&ref);
	return rc;
}

int tok_resolve(const char *name, char **out, ib_error *e)
{
	*out = NULL;
	struct stat st;
	if (stat(name, &st) == 0) {
		if (!(*out = strdup(name)))
			return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
		return 0;
	}
	const char *at = strrchr(name, '@');
	size_t idlen = at ? (size_t)(at - name) : strlen(name);
	const char *rev = at ? at + 1 : "main";
	char id[128];
	if (idlen < sizeof id) {
		memcpy(id, name, idlen);
		id[idlen] = 0;
	}
	if (idlen >= sizeof id || !valid_id(id, idlen) || !valid_rev(rev)) {
		/* not an id: the path as given, for the loader to report */
		if (!(*out = strdup(name)))
			return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
		return 0;
	}
	char folder[160] = "models--";
	for (size_t i = 0, k = 8; i <= idlen; i++) {
		if (id[i] == '/') {
			folder[k++] = '-';
			folder[k++] = '-';
		} else
			folder[k++] = id[i];
	}
	char caches[MAX_CACHES][1024];
	const char *origin[MAX_CACHES];
	int nc = tok_hf_caches(caches, origin, MAX_CACHES);
	ib_buf why = {0};
	int rc = 0;
	for (int i = 0; i < nc; i++) {
		rc = look(caches[i], folder, rev, out, &why);
		if (rc == 1) {
			rc = 0;
			goto done;
		}
		if (rc < 0)
			break;
		if (ib_buf_printf(&why, " (%s)", origin[i])) {
			rc = -1;
			break;
		}
	}
	if (rc < 0) {
		rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
		goto done;
	}
	rc = ib_fail(e, IB_ENOENT, NULL, 0, 0,
	             "'%s' is not a local folder, and no Hugging Face cache holds its tokenizer "
	             "(revision %s, "
	             "looked up offline); looked in:%s\n"
	             "pass the folder that holds tokenizer.json (--tokenizer DIR), or set "
	             "HF_HUB_CACHE or HF_HOME "
	             "to the cache that holds %s",
	             name, rev,
	             nc ? (why.data ? why.data : "")
	                : "\n  nowhere (HF_HUB_CACHE, HF_HOME and HOME unset)",
	             folder);
done:
	ib_buf_free(&why);
	return rc;
}
