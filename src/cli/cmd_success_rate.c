/* infbench success-rate NAME: per-hardware job success rates of a workflow
 * run, a drop-in for InferenceX's utils/calc_success_rate.py
 * (docs/success-rate.md). */
#include "cli/cli.h"
#include "results/results.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "usage: infbench success-rate [--runner-config FILE] [--jobs FILE|-] NAME\n"
    "\n"
    "Count, per hardware label of runners.yaml, the successful and the total jobs of a\n"
    "workflow run, print the reference's table and write NAME.json. The jobs come from\n"
    "--jobs (a JSON file or '-' for stdin: a list of {name, conclusion} or the GitHub\n"
    "API's {\"jobs\": [...]}) or from the GitHub stand-in named by GOLDEN_GITHUB_FIXTURE\n"
    "(with GITHUB_REPOSITORY and GITHUB_RUN_ID). runners.yaml: --runner-config, else\n"
    "configs/runners.yaml, else ./runners.yaml.\n"
    "\n"
    "See docs/success-rate.md.\n";

static void err(const char *what, const ib_error *e)
{
	char msg[2700];
	ib_error_format(e, msg, sizeof msg);
	fprintf(stderr, "infbench success-rate: error: %s%s\n", what, msg);
}

/* GOLDEN_GITHUB_FIXTURE: the jobs of the run, or NULL with *status set
 * (0: authentication failed, write null; 1: error). */
static const ib_val *from_fixture(ib_arena *a, const char *path, int *status)
{
	ib_val *fx;
	ib_error e = {0};
	*status = 1;
	if (ib_json_parse_file(a, path, &fx, &e)) {
		err("", &e);
		return NULL;
	}
	const ib_val *ae = ib_map_get(fx, "auth_error");
	if (ae && ib_val_truthy(ae)) {
		printf("Authentication failed: %s\n", ae->type == IB_V_STR ? ae->str.s : "error");
		*status = 0;
		return NULL;
	}
	const ib_val *u = ib_map_get(fx, "user"), *repo = ib_map_get(fx, "repo");
	const ib_val *run = ib_map_get(fx, "run");
	if (!u || u->type != IB_V_STR || !repo || repo->type != IB_V_STR || !run ||
	    run->type != IB_V_MAP) {
		fprintf(stderr, "infbench success-rate: error: %s: needs 'user', 'repo', 'run'\n",
		        path);
		return NULL;
	}
	printf("Authenticated as user: %s\n", u->str.s);
	const char *want = getenv("GITHUB_REPOSITORY");
	if (!want || strcmp(want, repo->str.s)) {
		printf("Error: 404 {\"message\": \"Not Found\", \"status\": \"404\"}\n");
		return NULL;
	}
	printf("Found repo: %s\n", repo->str.s);
	const char *rid = getenv("GITHUB_RUN_ID");
	if (!rid) {
		printf("Error: GITHUB_RUN_ID is not set\n");
		return NULL;
	}
	char *end;
	errno = 0;
	long long id = strtoll(rid, &end, 10);
	while (*end == ' ' || *end == '\t' || *end == '\n')
		end++;
	if (end == rid || *end || errno) {
		printf("Error: invalid literal for int() with base 10: '%s'\n", rid);
		return NULL;
	}
	const ib_val *rv = ib_map_get(run, "id"), *rn = ib_map_get(run, "name");
	if (!rv || rv->type != IB_V_INT || rv->i != id) {
		printf("Error: 404 {\"message\": \"Not Found\", \"status\": \"404\"}\n");
		return NULL;
	}
	printf("Found run: %lld - %s\n", id, rn && rn->type == IB_V_STR ? rn->str.s : "None");
	const ib_val *jobs = ib_map_get(fx, "jobs");
	if (!jobs || jobs->type != IB_V_LIST) {
		fprintf(stderr, "infbench success-rate: error: %s: field 'jobs': must be a list\n",
		        path);
		return NULL;
	}
	*status = 0;
	return jobs;
}

static const ib_val *from_file(ib_arena *a, const char *path)
{
	ib_val *v = NULL;
	ib_error e = {0};
	int rc;
	if (!strcmp(path, "-")) {
		ib_buf b = {0};
		rc = cli_read_input(NULL, &b, &e);
		rc = rc ? rc : ib_json_parse(a, "<stdin>", b.data ? b.data : "", b.len, &v, &e);
		ib_buf_free(&b);
	} else {
		rc = ib_json_parse_file(a, path, &v, &e);
	}
	if (rc) {
		err("", &e);
		return NULL;
	}
	if (v->type == IB_V_MAP)
		v = ib_map_get(v, "jobs");
	if (!v || v->type != IB_V_LIST) {
		fprintf(stderr, "infbench success-rate: error: %s: field 'jobs': must be a list\n",
		        path);
		return NULL;
	}
	return v;
}

int cmd_success_rate(int argc, char **argv)
{
	const char *runners_path = NULL, *jobs_path = NULL, *name = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage, stdout);
			return CLI_OK;
		}
		if ((!strcmp(argv[i], "--runner-config") || !strcmp(argv[i], "--jobs")) &&
		    i + 1 < argc) {
			*(argv[i][2] == 'r' ? &runners_path : &jobs_path) = argv[i + 1];
			i++;
		} else if (!name) {
			name = argv[i];
		}
	}
	if (!runners_path)
		runners_path = access("configs/runners.yaml", F_OK) == 0 ? "configs/runners.yaml"
		                                                         : "runners.yaml";
	ib_arena *a = ib_arena_new();
	if (!a)
		return CLI_FAIL;
	int status = CLI_FAIL;
	ib_val *runners, *rates = NULL;
	const char **labels = NULL;
	size_t nl = 0;
	ib_error e = {0};
	ib_buf b = {0};
	if (ib_yaml_load_file(a, runners_path, &runners, &e)) {
		err("", &e);
		goto out;
	}
	if (runners->type != IB_V_MAP) {
		fprintf(stderr,
		        "infbench success-rate: error: %s:%d:%d: runners.yaml must be a mapping of "
		        "runner labels\n",
		        runners_path, runners->line > 0 ? runners->line : 1,
		        runners->col > 0 ? runners->col : 1);
		goto out;
	}
	if (res_hw_labels(runners, &labels, &nl))
		goto out;
	const ib_val *jobs;
	const char *fx = getenv("GOLDEN_GITHUB_FIXTURE");
	int st = 0;
	if (jobs_path)
		jobs = from_file(a, jobs_path);
	else if (fx)
		jobs = from_fixture(a, fx, &st);
	else {
		fprintf(stderr,
		        "infbench success-rate: error: no jobs: give --jobs FILE (or '-')\n");
		goto out;
	}
	/* only the stand-in's authentication failure writes null (as the
	 * reference); a missing or invalid jobs file is an error */
	if (!jobs && (st || jobs_path))
		goto out;
	if (jobs && res_success_rates(a, jobs, labels, nl, &rates, &e)) {
		err(jobs_path ? jobs_path : fx, &e);
		goto out;
	}
	if (res_success_table(&b, rates))
		goto out;
	if (ib_buf_write_to(stdout, "standard output", &b, &e)) {
		err("", &e);
		goto out;
	}
	if (!name) {
		fprintf(stderr, "infbench success-rate: error: NAME is required\n");
		goto out;
	}
	ib_json_opts o = {.indent = 2, .ensure_ascii = true};
	ib_val *doc = rates ? rates : ib_v_null(a);
	size_t n = strlen(name) + sizeof ".json";
	char *path = ib_arena_alloc(a, n);
	if (!doc || !path)
		goto out;
	snprintf(path, n, "%s.json", name);
	if (ib_json_write_path(path, doc, &o, &e)) {
		err("", &e);
		goto out;
	}
	status = CLI_OK;
out:
	ib_buf_free(&b);
	free(labels);
	ib_arena_free(a);
	return status;
}
