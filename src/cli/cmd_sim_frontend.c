/* infbench sim frontend: the frontend of a multi-node row's simulator
 * roles (docs/sim.md "Roles and the frontend"); the routing and the clock
 * are cluster/'s (cl_fe_new), this parses the flags and runs the loop. */
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/sim_common.h"
#include "cluster/frontend.h"

#include <stdio.h>
#include <stdlib.h>

static int serve(arg_parser *p, const cl_fe_opts *o, double duration)
{
	static const char prog[] = "infbench sim frontend";
	ib_error e = {0};
	net_loop *l = NULL;
	cl_frontend *f = NULL;
	int status = CLI_FAIL;
	arg_opt *pf = args_get(p, "--port-file");
	cli_serve_block_signals();
	if (net_loop_new(&l, &e) || cl_fe_new(l, o, &f, &e)) {
		cli_error(prog, NULL, &e);
		goto out;
	}
	if (pf->seen) {
		char port[32];
		int n = snprintf(port, sizeof port, "%d\n", cl_fe_port(f));
		if (ib_write_file_atomic(pf->vals[0], port, (size_t)n, &e)) {
			cli_error(prog, "--port-file", &e);
			goto out;
		}
	}
	fprintf(stderr, "%s: listening on http://%s:%d, %zu prefill role(s), %zu answering\n", prog,
	        o->host, cl_fe_port(f), o->nprefill, o->nworkers);
	status = cli_serve_loop(l, duration) ? CLI_FAIL : CLI_OK;
out:
	cl_fe_free(f);
	if (l)
		net_loop_free(l);
	return status;
}

int cmd_sim_frontend(int argc, char **argv)
{
	arg_opt opts[] = {
	    CLI_SERVE_OPTS,
	    {.name = "--prefill",
	     .kind = ARG_MANY,
	     .metavar = "HOST:PORT",
	     .help = "the prefill roles (`infbench sim --role prefill`); none: the workers serve "
	             "whole requests (an aggregated row)"},
	    {.name = "--workers",
	     .kind = ARG_MANY,
	     .metavar = "HOST:PORT",
	     .help = "the processes that answer (required): the decode roles (`--role decode`) "
	             "after --prefill, else whole simulators"},
	    {.name = "--time-scale",
	     .kind = ARG_ONE,
	     .metavar = "S",
	     .help = "the roles' --time-scale: announced to the client, and the rate of the "
	             "frontend's clock (default 1)"},
	    {.name = "--duration",
	     .kind = ARG_ONE,
	     .metavar = "SECONDS",
	     .help = "stop after this long (default: until SIGINT/SIGTERM)"},
	    {.name = "--help", .alias = "-h", .kind = ARG_FLAG, .help = "show this help and exit"},
	};
	arg_parser p = {
	    .prog = "infbench sim frontend",
	    .top = "infbench sim frontend",
	    .desc = "One OpenAI endpoint in front of simulator processes that each serve one role "
	            "of a\ndeployment (a multi-node row's srun steps): a completion goes to the "
	            "least busy prefill\nrole, then to the least busy decode role, whose answer "
	            "streams back with its model\ntimestamps moved onto the frontend's clock. A "
	            "request with an X-Dynamo-Session-ID\nheader sticks to the processes its "
	            "id hashes to (session affinity).",
	    .epilog = "See docs/sim.md \"Roles and the frontend\".",
	    .opts = opts,
	    .nopts = sizeof opts / sizeof *opts,
	};
	int rc = args_parse(&p, argc - 1, argv + 1, NULL, 0);
	if (rc) {
		args_free(&p);
		return rc == 1 ? CLI_OK : rc;
	}
	arg_opt *x;
	cl_fe_opts o = {.host = "127.0.0.1", .port = 8000};
	double duration = 0;
	char *end;
	if ((x = args_get(&p, "--host"))->seen)
		o.host = x->vals[0];
	if ((x = args_get(&p, "--port"))->seen)
		o.port = (int)x->ivals[0];
	if ((x = args_get(&p, "--prefill"))->seen)
		o.prefill = x->vals, o.nprefill = x->nvals;
	if ((x = args_get(&p, "--workers"))->seen)
		o.workers = x->vals, o.nworkers = x->nvals;
	if (!o.nworkers)
		rc = args_error(&p, NULL, "--workers HOST:PORT... is required");
	else if (o.port < 0 || o.port > 65535)
		rc = args_error(&p, NULL, "argument --port: must be 0..65535");
	else if ((x = args_get(&p, "--time-scale"))->seen &&
	         (!((o.time_scale = strtod(x->vals[0], &end)) >= 1e-3) || *end ||
	          o.time_scale > 1e9))
		rc =
		    args_error(&p, NULL, "argument --time-scale: must be a number in [0.001, 1e9]");
	else if ((x = args_get(&p, "--duration"))->seen &&
	         (!((duration = strtod(x->vals[0], &end)) >= 0) || *end || duration > 1e9))
		rc = args_error(&p, NULL, "argument --duration: must be a number in [0, 1e9]");
	else
		rc = serve(&p, &o, duration);
	args_free(&p);
	return rc;
}
