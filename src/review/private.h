/* review — private interfaces between the files of the module. */
#ifndef IB_REVIEW_PRIVATE_H
#define IB_REVIEW_PRIVATE_H

#include "fmt/fmt.h"
#include "review/review.h"

/* ---- shell scanning (shell.c) ----
 * A tolerant scanner of bash recipes: it splits the text into simple commands
 * (at newlines, ';', '&&', '||', '|', '&' outside quotes and parentheses,
 * backslash-newline joined, comments and here-document bodies dropped) and
 * tracks the if / case / loop / function nesting of each. It never fails on
 * odd input: unknown constructs are plain commands. */
typedef struct {
	int line, end_line;     /* physical lines of the command (1-based) */
	const char *text;       /* the command as written (continuations joined by a space) */
	const char *norm;       /* normalized: quotes dropped, ${X} as $X, blanks collapsed */
	int nguard;             /* enclosing guards: if / elif / else branches, case arms,
	                           and `[ test ] && cmd` */
	int nif;                /* of those, if-branches and `[ test ] &&` only */
	int guard_line;         /* line of the innermost guard's condition, 0 when none */
	const char *guard;      /* the innermost guard as written ("if [[ ... ]]"), or NULL */
	const char *guard_norm; /* the same, normalized */
	const char *conds;      /* the conditions of every enclosing guard, joined by " ; " */
} rv_cmd;

typedef enum { RV_FW_NONE, RV_FW_VLLM, RV_FW_SGLANG, RV_FW_TRT, RV_FW_ATOM } rv_fw;

typedef struct {
	const char *path; /* repository-relative */
	const char *text;
	size_t len;
	int nlines;
	const char **lines; /* physical lines, without the newline */
	rv_cmd *cmds;
	size_t ncmds, cmds_cap;
	/* from the path: benchmarks/<scenario>/<model>_<precision>_<gpu>[_tokens].sh */
	bool is_recipe;       /* the name has that shape */
	const char *scenario; /* folder below benchmarks/ without deprecated/ parts */
	const char *model, *precision, *gpu, *vendor; /* vendor: "amd" / "nvidia" */
	const char *gen;     /* GPU generation: "cdna3" (mi300x, mi325x), "cdna4" (mi35x),
	                        "hopper" (h*), "blackwell" (b*, gb*), else the GPU's letters */
	const char *variant; /* the name's other tokens except framework and spec ("") */
	const char *spec;    /* spec token of the name ("mtp", "eagle"...) or "" */
	int fw;              /* rv_fw: from the launch command, else the name */
	bool spec_content;   /* a draft model or speculative config in the code */
	int launch;          /* index of the server launch command in cmds, -1 */
	int client;          /* index of the benchmark client call, -1 */
} rv_script;

/* Parses a script; strings are allocated in a. Returns NULL only when out of memory. */
rv_script *rv_script_parse(ib_arena *a, const char *path, const char *text, size_t len);
const char *rv_fw_name(int fw);
/* Does text contain `word` as a whole token (not part of a longer name)? */
bool rv_has_token(const char *text, const char *word);
/* Counts the option tokens (--x) of one physical line outside quotes and
 * $(...), given the quote state at the start of the line (updated for the
 * next line). The address options (--model, --model-path, --served-model-name,
 * --host, --port) are not counted. */
int rv_count_flags_line(const char *ln, char *quote);

/* ---- report building (report.c) ---- */
/* Appends a finding of rule `rule` (its severity; fix NULL: the rule's fix)
 * to r->findings; strings are copied, msg formatted. Quotes go to the last
 * finding with ib_diag_quote_add(&r->findings, ...). Returns 0, IB_ENOMEM, or
 * IB_EINVAL for a rule id not in rv_rules(). */
int rv_add(rv_report *r, const char *rule, const char *file, int line, const char *fix,
           const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void rv_checked(rv_report *r, const char *rule);
int rv_file_add(rv_report *r, const char *path);

/* ---- trees of files (tree.c) ----
 * The files the review can look at: a working tree, a git commit, or
 * in-memory documents. Texts are read on first use and cached. */
typedef struct rv_tree rv_tree;
typedef enum { RV_TREE_MEM, RV_TREE_DIR, RV_TREE_GIT } rv_tree_kind;
struct rv_tree {
	int kind;
	ib_arena *a;
	const char *root; /* DIR: the folder; GIT: the repository folder */
	const char *ref;  /* GIT: the commit */
	size_t n, cap;
	const char **paths;
	const char **texts; /* NULL until read */
	size_t *lens;
	rv_script **scripts; /* parsed on first use */
	bool *missing;       /* read failed */
	/* the recipes the configs map to (recipe-config-missing), sorted, built once */
	const ib_val *mapped_for;
	const char **mapped;
	size_t nmapped;
};
int rv_tree_add(rv_tree *t, const char *path, const char *text, size_t len);
/* Lists the files of a working tree below root (all of it) or of a commit. */
int rv_tree_list_dir(rv_tree *t, ib_error *e);
int rv_tree_list_git(rv_tree *t, ib_error *e);
/* Index of a path, or -1. */
long rv_tree_find(const rv_tree *t, const char *path);
/* The text of file i (read on first use); NULL when it cannot be read. */
const char *rv_tree_text(rv_tree *t, size_t i, size_t *len);
/* The parsed script of file i; NULL when unreadable or out of memory. */
rv_script *rv_tree_script(rv_tree *t, size_t i);
void rv_tree_free(rv_tree *t);
/* Runs git with argv (after "git -C repo") and captures stdout into out;
 * a non-zero exit is IB_EINVAL with git's first stderr line. */
int rv_git(const char *repo, const char *const *args, ib_buf *out, ib_error *e);

/* ---- rules ---- */
/* recipe.c: the rules over one recipe (chat template, EP, launch lines). */
int rv_check_recipe(rv_report *r, rv_script *s);
/* sister.c: the sister-script rules of s against its family in tree. */
int rv_check_sisters(rv_report *r, rv_tree *t, rv_script *s);
/* config.c: master-config rules over the entries of `head`, compared with
 * the entries of `base` (change mode: the merged on-main configs, and only
 * new or changed entries are checked; files mode: all configs of the tree).
 * Recipes are looked up in tree. */
int rv_check_configs(rv_report *r, rv_tree *t, const ib_val *base, const ib_val *head,
                     bool change_mode);
/* The recipe paths a single-node config entry maps to (one per scenario and
 * spec-decoding value), each the first candidate present in tree, or the
 * preferred name when none is; found[i] says which. Returns the count. */
size_t rv_entry_recipes(ib_arena *a, rv_tree *t, const ib_val *entry, const char **paths,
                        bool *found, size_t cap);
/* Loads every configs/...master*.yaml of tree (or only only_path) and merges
 * their entries into one map (file order; a key seen before is skipped);
 * files that do not parse are skipped (`infbench validate` reports them).
 * NULL only when out of memory. */
ib_val *rv_load_configs(rv_tree *t, const char *only_path);

#endif
