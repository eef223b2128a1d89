/* infbench — the InferenceX continuous inference benchmark in C. */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

#ifndef IB_VERSION
#define IB_VERSION "0.1.0"
#endif

static const char help[] =
    "usage: infbench <command> [options]\n"
    "\n"
    "commands:\n"
    "  matrix     expand master configs into the sweep matrix (full-sweep, test-config)\n"
    "  validate   check master configs and runners.yaml, reporting every problem\n"
    "  changelog  perf-changelog tools: process, validate, gate, ci-priority\n"
    "  sim        the engine simulator: an OpenAI-compatible server over a performance model\n"
    "             (sim validate|calibrate: its accuracy on published InferenceX points, the fit)\n"
    "  bench      the serving benchmark client (drop-in for benchmark_serving.py)\n"
    "  tokenize   encode text into token ids with a HuggingFace tokenizer.json\n"
    "  detokenize decode token ids into text with a HuggingFace tokenizer.json\n"
    "  eval       accuracy evals: the gsm8k client, scoring, score gate, collection (eval run|score|validate|collect|make-dataset)\n"
    "  chat-template render chat messages with a chat template (or the DeepSeek-V4 framing)\n"
    "  success-rate per-hardware job success rates of a workflow run (calc_success_rate.py)\n"
    "  collect    collect every *.json below a folder into agg_NAME.json (collect_results.py)\n"
    "  process    a raw result and the environment into the agg row, with power (process_result.py)\n"
    "  power      validate GPU telemetry and patch power into an agg row (aggregate_power*.py)\n"
    "  agentic    AgentX results: process, validate, power-adapter (utils/agentic)\n"
    "  agentx     AgentX traces: make-traces (a stand-in corpus), check\n"
    "  review     the mechanical review checklist over a change or recipe/config files\n"
    "  report     agg rows -> one self-contained HTML report (charts, frontiers, evals), SVG or text\n"
    "  sweep      an endpoint at several concurrencies -> agg rows -> DIR/report.html, resumable\n"
    "  compare    compare agg rows with their baselines as markdown tables (compare_results.py)\n"
    "  db         the results database: ingest, import, query, latest, history (SQLite, PostgreSQL)\n"
    "  report-golden check the report maths against golden case folders\n"
    "  run        run matrix rows (simulator or recipes) into a resumable results store\n"
    "\n"
    "Run 'infbench <command> --help' for a command's options; docs/ has a page per command.\n";

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(help, stderr);
		fprintf(stderr, "infbench: error: a command is required\n");
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		fputs(help, stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version")) {
		printf("infbench %s\n", IB_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "matrix"))
		return cmd_matrix(argc - 1, argv + 1);
	if (!strcmp(cmd, "validate"))
		return cmd_validate(argc - 1, argv + 1);
	if (!strcmp(cmd, "sim"))
		return cmd_sim(argc - 1, argv + 1);
	if (!strcmp(cmd, "bench"))
		return cmd_bench(argc - 1, argv + 1);
	if (!strcmp(cmd, "tokenize"))
		return cmd_tokenize(argc - 1, argv + 1);
	if (!strcmp(cmd, "detokenize"))
		return cmd_detokenize(argc - 1, argv + 1);
	if (!strcmp(cmd, "success-rate"))
		return cmd_success_rate(argc - 1, argv + 1);
	if (!strcmp(cmd, "collect"))
		return cmd_collect(argc - 1, argv + 1);
	if (!strcmp(cmd, "process"))
		return cmd_process(argc - 1, argv + 1);
	if (!strcmp(cmd, "power"))
		return cmd_power(argc - 1, argv + 1);
	if (!strcmp(cmd, "agentic"))
		return cmd_agentic(argc - 1, argv + 1);
	if (!strcmp(cmd, "agentx"))
		return cmd_agentx(argc - 1, argv + 1);
	if (!strcmp(cmd, "changelog"))
		return cmd_changelog(argc - 1, argv + 1);
	if (!strcmp(cmd, "eval"))
		return cmd_eval(argc - 1, argv + 1);
	if (!strcmp(cmd, "chat-template"))
		return cmd_chat_template(argc - 1, argv + 1);
	if (!strcmp(cmd, "review"))
		return cmd_review(argc - 1, argv + 1);
	if (!strcmp(cmd, "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(cmd, "sweep"))
		return cmd_sweep(argc - 1, argv + 1);
	if (!strcmp(cmd, "compare"))
		return cmd_compare(argc - 1, argv + 1);
	if (!strcmp(cmd, "db"))
		return cmd_db(argc - 1, argv + 1);
	if (!strcmp(cmd, "report-golden"))
		return cmd_report_golden(argc - 1, argv + 1);
	if (!strcmp(cmd, "run"))
		return cmd_run(argc - 1, argv + 1);
	fputs(help, stderr);
	fprintf(stderr, "infbench: error: unknown command '%s'\n", cmd);
	return 2;
}
