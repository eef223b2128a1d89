/* infbench — the InferenceX continuous inference benchmark in C. */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

#ifndef IB_VERSION
#define IB_VERSION "0.1.0"
#endif

/* The command table: `infbench --help` lists it in this order, and main
 * dispatches from it. */
static const cli_command commands[] = {
    {"matrix", cmd_matrix, "expand master configs into the sweep matrix (full-sweep, test-config)"},
    {"validate", cmd_validate, "check master configs and runners.yaml, reporting every problem"},
    {"changelog", cmd_changelog, "perf-changelog tools: process, validate, gate, ci-priority"},
    {"sim", cmd_sim,
     "the engine simulator: an OpenAI-compatible server over a performance model\n"
     "             (sim validate|calibrate: its accuracy on published InferenceX points, the fit)"},
    {"bench", cmd_bench, "the serving benchmark client (drop-in for benchmark_serving.py)"},
    {"tokenize", cmd_tokenize, "encode text into token ids with a HuggingFace tokenizer.json"},
    {"detokenize", cmd_detokenize, "decode token ids into text with a HuggingFace tokenizer.json"},
    {"eval", cmd_eval,
     "accuracy evals: the gsm8k client, scoring, score gate, collection (eval "
     "run|score|validate|collect|make-dataset)"},
    {"chat-template", cmd_chat_template,
     "render chat messages with a chat template (or the DeepSeek-V4 framing)"},
    {"success-rate", cmd_success_rate,
     "per-hardware job success rates of a workflow run (calc_success_rate.py)"},
    {"collect", cmd_collect,
     "collect every *.json below a folder into agg_NAME.json (collect_results.py)"},
    {"process", cmd_process,
     "a raw result and the environment into the agg row, with power (process_result.py)"},
    {"power", cmd_power,
     "validate GPU telemetry and patch power into an agg row (aggregate_power*.py)"},
    {"agentic", cmd_agentic, "AgentX results: process, validate, power-adapter (utils/agentic)"},
    {"agentx", cmd_agentx, "AgentX traces: make-traces (a stand-in corpus), check"},
    {"aiperf", cmd_aiperf,
     "aiperf profile --scenario inferencex-agentx-mvp, run by the AgentX replay (a shim)"},
    {"review", cmd_review, "the mechanical review checklist over a change or recipe/config files"},
    {"report", cmd_report,
     "agg rows -> one self-contained HTML report (charts, frontiers, evals), SVG or text"},
    {"sweep", cmd_sweep,
     "an endpoint at several concurrencies -> agg rows -> DIR/report.html, resumable"},
    {"compare", cmd_compare,
     "compare agg rows with their baselines as markdown tables (compare_results.py)"},
    {"db", cmd_db,
     "the results database: ingest, import, query, latest, history (SQLite, PostgreSQL)"},
    {"report-golden", cmd_report_golden, "check the report maths against golden case folders"},
    {"run", cmd_run, "run matrix rows (simulator or recipes) into a resumable results store"},
};

/* `infbench --help`: the usage line, then one line per command (its name
 * in a column of 10), then where to read more. */
static void help(FILE *f)
{
	fputs("usage: infbench <command> [options]\n\ncommands:\n", f);
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fputs("\nRun 'infbench <command> --help' for a command's options; docs/ has a page per "
	      "command.\n",
	      f);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		help(stderr);
		fprintf(stderr, "infbench: error: a command is required\n");
		return CLI_USAGE;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		help(stdout);
		return CLI_OK;
	}
	if (!strcmp(cmd, "--version")) {
		printf("infbench %s\n", IB_VERSION);
		return CLI_OK;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(cmd, commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	help(stderr);
	fprintf(stderr, "infbench: error: unknown command '%s'\n", cmd);
	return CLI_USAGE;
}
