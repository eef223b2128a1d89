/* infbench db: the results database (docs/db.md) — ingest, import, query,
 * latest, history, version. */
#include "cli/cmd_db.h"
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: infbench db COMMAND [--db URL] [options]\n"
    "\n"
    "The results database: SQLite by default (one file, WAL journal), PostgreSQL\n"
    "when URL is postgres://... or postgresql://...; the schema is created and\n"
    "migrated on first use. URL: --db, else $DATABASE_URL, else infbench.db.\n"
    "\n"
    "commands:\n"
    "  ingest FILE...   store agg rows (agg_bmk.json, agg_*.json; eval rows of\n"
    "                   agg_eval_*.json too) as one run, in one transaction;\n"
    "                   ingesting the same run again changes nothing\n"
    "      --run-id ID  the run (default: $GITHUB_RUN_ID, else a hash of the files)\n"
    "      --date D     its date, YYYY-MM-DD (default: today, UTC)\n"
    "      --branch B   git branch (default: $GITHUB_HEAD_REF or $GITHUB_REF_NAME)\n"
    "      --sha S      git commit (default: $GITHUB_SHA)\n"
    "      --runner R   runner name (default: $RUNNER_NAME)\n"
    "      --progress N a progress line on stderr every N rows written\n"
    "  import FILE      store rows shaped like the dashboard's joined tables\n"
    "                   (configs + benchmark_results + workflow_runs), e.g. an export\n"
    "  query            stored benchmark rows (eval rows with --evals, agentic\n"
    "                   rows with --agentic or --scenario S)\n"
    "  latest           the latest_benchmarks view: the newest error-free row per\n"
    "                   (config, conc, isl, osl); with --agentic the latest_agentic\n"
    "                   view (per config, scenario, KV offload mode and conc, less\n"
    "                   the rows that failed the validity gate)\n"
    "  history          a metric interpolated at a target interactivity per\n"
    "                   config group and date (the dashboard's historical trends)\n"
    "      --target X   the interactivity (tok/s/user), required\n"
    "      --metric M   the dashboard metric (default tpPerGpu)\n"
    "  version          the schema version and backend\n"
    "\n"
    "filters (query, latest, history): --model M --hw H --framework F\n"
    "  --precision P --spec S --isl N --osl N --conc N --since DATE --until DATE\n"
    "  --branch B --run-id ID --simulated yes|no (only the simulator's rows, or\n"
    "  only measured ones), --scenario S (agentic rows of that scenario, e.g.\n"
    "  agentic-coding; implies --agentic, which takes no --isl/--osl);\n"
    "  output: --format json (default) | table\n"
    "\n"
    "Exit status: 0; 1 on an error (bad input names the file, row and field;\n"
    "nothing is written); 2 on a usage error. See docs/db.md.\n";

typedef struct {
	const char *db, *format, *metric, *target;
	res_run_meta meta;
	res_db_filter f;
	const char **files;
	size_t nfiles;
	int64_t progress;
} db_opts;

static void progress(void *ctx, int stream, const char *line)
{
	(void)ctx;
	(void)stream;
	fprintf(stderr, "%s\n", line);
}

static int bad(const char *fmt, const char *a)
{
	fprintf(stderr, "infbench db: error: ");
	fprintf(stderr, fmt, a);
	fputc('\n', stderr);
	return CLI_USAGE;
}

static int int_opt(const char *name, const char *v, int64_t *out)
{
	char *end;
	long long x = strtoll(v, &end, 10);
	if (!*v || *end || x <= 0)
		return bad("%s: expected a positive integer", name);
	*out = x;
	return 0;
}

/* Parses the options after the command word; -1 to go on, else exit status. */
static int parse(int argc, char **argv, db_opts *o)
{
	static const char *const names[] = {
	    "--db", "--date", "--sha", "--runner", "--format", "--metric", "--target", "--progress",
	};
	const char **dst[] = {&o->db,     &o->meta.date, &o->meta.sha, &o->meta.runner,
	                      &o->format, &o->metric,    &o->target,   NULL};
	o->files = calloc((size_t)argc + 1, sizeof *o->files);
	if (!o->files)
		return bad("%s", "out of memory");
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage, stdout);
			return CLI_OK;
		}
		if (!strcmp(a, "--evals") || !strcmp(a, "--agentic")) {
			*(a[2] == 'e' ? &o->f.evals : &o->f.agentic) = true;
			continue;
		}
		if (a[0] != '-' || !a[1]) {
			o->files[o->nfiles++] = a;
			continue;
		}
		int fr = cli_db_filter("infbench db", a, i + 1 < argc ? argv[i + 1] : NULL, &o->f);
		if (fr == 2)
			return CLI_USAGE;
		if (fr == 1) {
			i++;
			continue;
		}
		size_t k = 0;
		while (k < sizeof names / sizeof names[0] && strcmp(a, names[k]))
			k++;
		if (k == sizeof names / sizeof names[0])
			return bad("unknown option '%s' (see infbench db --help)", a);
		if (i + 1 >= argc)
			return bad("%s needs a value", a);
		const char *v = argv[++i];
		if (dst[k])
			*dst[k] = v;
		else if (int_opt(a, v, &o->progress))
			return CLI_USAGE;
	}
	o->meta.branch = o->f.branch; /* and they are the run's metadata for ingest */
	o->meta.run_id = o->f.run_id;
	if (o->f.scenario)
		o->f.agentic = true;
	if (o->f.agentic && o->f.evals)
		return bad("%s", "--agentic (--scenario) and --evals exclude each other");
	if (o->f.agentic && (o->f.isl || o->f.osl))
		return bad("%s", "agentic rows have no ISL/OSL: --isl/--osl do not apply");
	return -1;
}

static const char *env_or(const char *v, const char *a, const char *b)
{
	const char *x = a ? getenv(a) : NULL;
	if (v)
		return v;
	if (x && *x)
		return x;
	x = b ? getenv(b) : NULL;
	return x && *x ? x : NULL;
}

static int do_ingest(res_db *db, db_opts *o, ib_error *e)
{
	if (!o->nfiles)
		return bad("%s", "ingest needs at least one agg file");
	o->meta.run_id = env_or(o->meta.run_id, "GITHUB_RUN_ID", NULL);
	o->meta.branch = env_or(o->meta.branch, "GITHUB_HEAD_REF", "GITHUB_REF_NAME");
	o->meta.sha = env_or(o->meta.sha, "GITHUB_SHA", NULL);
	o->meta.runner = env_or(o->meta.runner, "RUNNER_NAME", NULL);
	o->meta.progress = progress;
	o->meta.progress_every = (size_t)o->progress;
	res_ingest_stats st;
	int rc = res_db_ingest(db, &o->meta, o->files, o->nfiles, &st, e);
	if (rc)
		return rc;
	printf("ingested %zu benchmark rows (%zu new, %zu already stored) ", st.rows, st.inserted,
	       st.existing);
	if (st.agentic) /* the line of fixed-length ingests stays as it was */
		printf("and %zu agentic rows (%zu new) ", st.agentic, st.agentic_inserted);
	printf("and %zu eval rows (%zu new) into %s\n", st.evals, st.evals_inserted,
	       res_db_backend(db));
	return 0;
}

static int do_import(res_db *db, db_opts *o, ib_error *e)
{
	if (o->nfiles != 1)
		return bad("%s", "import needs exactly one FILE");
	res_ingest_stats st;
	size_t skipped = 0;
	int rc = res_db_import(db, o->files[0], &st, &skipped, e);
	if (rc)
		return rc;
	printf("imported %zu rows (%zu new), skipped %zu rows that no baseline query can match\n",
	       st.rows, st.inserted, skipped);
	return 0;
}

/* the columns of --format table */
static int print_table(const ib_val *rows)
{
	static const char *const fixed[] = {
	    "date",      "run_id",      "hardware",     "framework",    "model",
	    "precision", "spec_method", "prefill_tp",   "prefill_ep",   "isl",
	    "osl",       "conc",        "tput_per_gpu", "median_intvty"};
	/* agentic rows: the scenario, offload mode, interactivity, cache hits */
	static const char *const agentic[] = {"date",
	                                      "run_id",
	                                      "hardware",
	                                      "framework",
	                                      "model",
	                                      "precision",
	                                      "spec_method",
	                                      "prefill_tp",
	                                      "benchmark_type",
	                                      "kv_offloading",
	                                      "conc",
	                                      "tput_per_gpu",
	                                      "p90_intvty",
	                                      "p90_e2e_norm_intvty",
	                                      "server_gpu_cache_hit_rate"};
	bool ag = rows->list.n && ib_map_get(rows->list.v[0], "kv_offloading");
	const char *const *h = ag ? agentic : fixed;
	size_t nc = ag ? sizeof agentic / sizeof *agentic : sizeof fixed / sizeof *fixed,
	       nr = rows->list.n;
	const ib_val **cells = calloc(nr * nc + 1, sizeof *cells);
	if (!cells)
		return CLI_FAIL;
	for (size_t r = 0; r < nr; r++)
		for (size_t c = 0; c < nc; c++) {
			const ib_val *m = rows->list.v[r];
			const ib_val *v = ib_map_get(m, h[c]);
			cells[r * nc + c] = v ? v : ib_map_get(ib_map_get(m, "metrics"), h[c]);
		}
	ib_buf b = {0};
	int rc = ib_table_github(&b, h, nc, cells, nr);
	if (!rc || ib_buf_error(&b)) { /* a buffer error is reported naming the output */
		ib_buf_putc(&b, '\n');
		rc = cli_emit("infbench db", NULL, &b);
	}
	ib_buf_free(&b);
	free(cells);
	return rc ? 1 : 0;
}

static int do_query(res_db *db, db_opts *o, bool latest, ib_error *e)
{
	ib_arena *a = ib_arena_new();
	ib_val *rows = NULL;
	o->f.latest = latest;
	int rc = a ? res_db_query(db, &o->f, a, &rows, e) : IB_ENOMEM;
	if (!rc) {
		bool table = o->format && !strcmp(o->format, "table");
		rc = table ? print_table(rows) : cli_emit_json(NULL, rows);
		rc = rc ? IB_EIO : 0;
		if (rc)
			ib_fail(e, IB_EIO, NULL, 0, 0, "writing the output failed");
	}
	ib_arena_free(a);
	return rc;
}

int cmd_db(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	const char *cmd = argv[1];
	static const char *const cmds[] = {"ingest", "import",  "query",
	                                   "latest", "history", "version"};
	size_t k = 0;
	while (k < 6 && strcmp(cmd, cmds[k]))
		k++;
	if (k == 6)
		return bad("unknown command '%s' (see infbench db --help)", cmd);
	db_opts o = {0};
	int st = parse(argc, argv, &o);
	if (st >= 0) {
		free(o.files);
		return st;
	}
	if (o.format && strcmp(o.format, "json") && strcmp(o.format, "table")) {
		free(o.files);
		return bad("--format: expected json or table, not '%s'", o.format);
	}
	const char *url = env_or(o.db, "DATABASE_URL", NULL);
	ib_error e = {0};
	res_db *db = NULL;
	int rc = res_db_open(url ? url : "infbench.db", k <= 1, &db, &e);
	if (!rc) {
		switch (k) {
		case 0:
			rc = do_ingest(db, &o, &e);
			break;
		case 1:
			rc = do_import(db, &o, &e);
			break;
		case 2:
		case 3:
			rc = do_query(db, &o, k == 3, &e);
			break;
		case 4:
			if (o.f.agentic) {
				rc =
				    bad("%s",
				        "history draws fixed-length rows: no --agentic/--scenario");
				break;
			}
			rc = cmd_db_history(db, &o.f, o.metric, o.target, o.format, &e);
			break;
		default: {
			int v = 0;
			rc = res_db_schema_version(db, &v, &e);
			if (!rc)
				printf("%s schema version %d\n", res_db_backend(db), v);
		}
		}
	}
	if (rc > 0) { /* a usage error already reported */
		res_db_close(db);
		free(o.files);
		return rc;
	}
	if (rc)
		cli_error("infbench db", cmds[k], &e);
	res_db_close(db);
	free(o.files);
	return rc ? CLI_FAIL : CLI_OK;
}
