/* The Weka trace corpus in the local Hugging Face hub cache (datasets
 * layout): datasets--<org>--<name>/snapshots/<rev>/ holding *.jsonl, found offline. */
#include "agentx/agentx.h"
#include "tok/tok.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { MAX_CACHES = 5 };

static bool is_dir(const char *p, struct stat *st)
{
	return stat(p, st) == 0 && S_ISDIR(st->st_mode);
}

/* The names of folder d's entries matching glob pat (NULL: all but . and
 * ..), sorted; 0, or -1 without memory (a missing folder gives none). */
static int list_dir(const char *d, const char *pat, char ***out, size_t *n)
{
	*out = NULL;
	*n = 0;
	DIR *dp = opendir(d);
	if (!dp)
		return 0;
	size_t cap = 0;
	struct dirent *de;
	int rc = 0;
	while ((de = readdir(dp))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (pat && !ib_glob_match(pat, de->d_name))
			continue;
		if (ib_grow(out, &cap, *n + 1) || !((*out)[*n] = strdup(de->d_name))) {
			rc = -1;
			break;
		}
		(*n)++;
	}
	closedir(dp);
	if (rc) {
		ax_paths_free(*out, *n);
		*out = NULL;
		*n = 0;
		return rc;
	}
	for (size_t i = 1; i < *n; i++) /* insertion sort: folders are small */
		for (size_t k = i; k > 0 && strcmp((*out)[k - 1], (*out)[k]) > 0; k--) {
			char *t = (*out)[k];
			(*out)[k] = (*out)[k - 1];
			(*out)[k - 1] = t;
		}
	return 0;
}

void ax_paths_free(char **paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

/* Does snapshot folder d hold a *.jsonl or *.json entry? */
static int has_traces(const char *d)
{
	char **names;
	size_t n;
	if (list_dir(d, NULL, &names, &n))
		return -1;
	bool yes = false;
	for (size_t i = 0; i < n && !yes; i++)
		yes = ib_glob_match("*.jsonl", names[i]) || ib_glob_match("*.json", names[i]);
	ax_paths_free(names, n);
	return yes;
}

/* The hub cache root InferenceX reads, into root (NULL when none). */
static const char *hub_root(char caches[][1024])
{
	const char *origin[MAX_CACHES];
	int n = tok_hf_caches(caches, origin, MAX_CACHES);
	for (int i = 0; i < n; i++)
		if (strncmp(origin[i], "$XDG_CACHE_HOME", 15))
			return caches[i];
	return NULL;
}

int ax_hf_snapshot(const char *pattern, char **dir, ib_buf *why)
{
	*dir = NULL;
	if (!pattern)
		pattern = "datasets--semianalysisai--cc-traces-weka*";
	char caches[MAX_CACHES][1024];
	const char *root = hub_root(caches);
	struct stat st;
	if (!root || !is_dir(root, &st)) {
		if (why && ib_buf_printf(why, "no Hugging Face hub cache folder (%s)",
		                         root ? root : "$HF_HUB_CACHE, $HF_HOME, $HOME unset"))
			return IB_ENOMEM;
		return 0;
	}
	char **ds;
	size_t nds;
	if (list_dir(root, pattern, &ds, &nds))
		return IB_ENOMEM;
	int rc = 0;
	long long best_s = 0, best_ns = 0;
	ib_buf p = {0};
	for (size_t i = 0; i < nds && rc >= 0; i++) {
		p.len = 0;
		if (ib_buf_printf(&p, "%s/%s/snapshots", root, ds[i])) {
			rc = IB_ENOMEM;
			break;
		}
		char **snaps;
		size_t ns;
		if (!is_dir(p.data, &st))
			continue;
		if (list_dir(p.data, NULL, &snaps, &ns)) {
			rc = IB_ENOMEM;
			break;
		}
		size_t base = p.len;
		for (size_t k = 0; k < ns; k++) {
			p.len = base;
			if (ib_buf_printf(&p, "/%s", snaps[k])) {
				rc = IB_ENOMEM;
				break;
			}
			if (!is_dir(p.data, &st))
				continue;
			long long s = (long long)st.st_mtim.tv_sec, nsec = st.st_mtim.tv_nsec;
			if (*dir && (s < best_s || (s == best_s && nsec <= best_ns)))
				continue;
			int h = has_traces(p.data);
			if (h < 0) {
				rc = IB_ENOMEM;
				break;
			}
			if (!h)
				continue;
			char *d = strdup(p.data);
			if (!d) {
				rc = IB_ENOMEM;
				break;
			}
			free(*dir);
			*dir = d, best_s = s, best_ns = nsec;
		}
		ax_paths_free(snaps, ns);
	}
	ax_paths_free(ds, nds);
	ib_buf_free(&p);
	if (rc < 0) {
		free(*dir);
		*dir = NULL;
		return rc;
	}
	if (*dir)
		return 1;
	if (why && ib_buf_printf(why, "no snapshot of %s/%s holds a *.jsonl or *.json file", root,
	                         pattern))
		return IB_ENOMEM;
	return 0;
}

int ax_corpus_files(const char *dir, char ***paths, size_t *n, ib_error *e)
{
	*paths = NULL;
	*n = 0;
	struct stat st;
	if (!is_dir(dir, &st))
		return ib_fail(e, IB_EIO, dir, 0, 0, "not a readable folder");
	static const char *const pats[] = {"*.jsonl", "*.json"};
	size_t cap = 0;
	for (size_t g = 0; g < 2; g++) {
		char **names;
		size_t nn;
		if (list_dir(dir, pats[g], &names, &nn))
			goto oom;
		for (size_t i = 0; i < nn; i++) {
			size_t l = strlen(dir) + strlen(names[i]) + 2;
			char *s = malloc(l);
			if (!s || ib_grow(paths, &cap, *n + 1)) {
				free(s);
				ax_paths_free(names, nn);
				goto oom;
			}
			snprintf(s, l, "%s/%s", dir, names[i]);
			(*paths)[(*n)++] = s;
		}
		ax_paths_free(names, nn);
	}
	return 0;
oom:
	ax_paths_free(*paths, *n);
	*paths = NULL;
	*n = 0;
	return ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
}

/* aiperf's public-dataset loaders that the inferencex-agentx-mvp scenario
 * allows, and their datasets (resolve_trace_source) */
static const char *const loaders[][2] = {
    {"semianalysis_cc_traces_weka_with_subagents", "semianalysisai/cc-traces-weka-061526"},
    {"semianalysis_cc_traces_weka_with_subagents_256k",
     "semianalysisai/cc-traces-weka-061526-256k"},
    {"semianalysis_cc_traces_weka_with_subagents_060226",
     "semianalysisai/cc-traces-weka-with-subagents-060226"},
    {"semianalysis_cc_traces_weka_with_subagents_060226_256k",
     "semianalysisai/cc-traces-weka-with-subagents-060226-256k"},
    {"semianalysis_cc_traces_weka_with_subagents_060526",
     "semianalysisai/cc-traces-weka-with-subagents-060526"},
    {"semianalysis_cc_traces_weka_with_subagents_060526_256k",
     "semianalysisai/cc-traces-weka-with-subagents-060526-256k"},
    {"semianalysis_cc_traces_weka_with_subagents_060826",
     "semianalysisai/cc-traces-weka-with-subagents-060826"},
    {"semianalysis_cc_traces_weka_with_subagents_060826_256k",
     "semianalysisai/cc-traces-weka-with-subagents-060826-256k"},
    {"semianalysis_cc_traces_weka_061326", "semianalysisai/cc-traces-weka-061326"},
    {"semianalysis_cc_traces_weka_061326_256k", "semianalysisai/cc-traces-weka-061326-256k"},
    {"semianalysis_cc_traces_weka_061526", "semianalysisai/cc-traces-weka-061526"},
    {"semianalysis_cc_traces_weka_061526_256k", "semianalysisai/cc-traces-weka-061526-256k"},
    {"semianalysis_cc_traces_weka_062126", "semianalysisai/cc-traces-weka-062126"},
    {"semianalysis_cc_traces_weka_062126_256k", "semianalysisai/cc-traces-weka-062126-256k"},
};

int ax_reference_corpus(const char *prefix, const char *loader, const char **loader_out,
                        const char **dataset, ib_error *e)
{
	static const char *const full[] = {"dsv4", "glm5.2", "minimaxm3", "kimik3"};
	if (!loader || !*loader) {
		bool f = false;
		for (size_t i = 0; i < sizeof full / sizeof *full && prefix && !f; i++)
			f = !strncmp(prefix, full[i], strlen(full[i]));
		loader = f ? "semianalysis_cc_traces_weka_062126"
		           : "semianalysis_cc_traces_weka_062126_256k";
	}
	size_t n = sizeof loaders / sizeof *loaders;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(loader, loaders[i][0])) {
			if (loader_out)
				*loader_out = loaders[i][0];
			*dataset = loaders[i][1];
			return 0;
		}
	ib_buf all = {0};
	for (size_t i = 0; i < n; i++)
		ib_buf_printf(&all, "%s%s", i ? ", " : "", loaders[i][0]);
	int rc = ib_fail(e, IB_EINVAL, "", 0, 0, "unknown WEKA_LOADER_OVERRIDE='%s'. Allowed: %s",
	                 loader, all.data ? all.data : "");
	ib_buf_free(&all);
	return rc;
}
