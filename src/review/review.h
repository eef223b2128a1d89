/* review — the mechanical part of InferenceX's pull-request review checklist
 * (docs/review.md): rules over benchmark recipes (server launch scripts),
 * master configs and perf-changelog.yaml, each with an id, a severity and a
 * fix message.
 *
 * Two modes:
 *  - files:  rv_review() with o->files set reviews those files of the working
 *            tree of o->repo (recipes *.sh, master configs *.yaml); sister
 *            recipes are read from the same working tree.
 *  - change: rv_review() with o->base set reviews the files changed between
 *            merge-base(base, head) and head (default HEAD), read with the
 *            git command line; the rules about perf-changelog.yaml and new
 *            config keys run only in this mode.
 * rv_review_docs() runs the files-mode rules over in-memory documents (for
 * tests and callers that already hold the texts).
 *
 * Findings are diagnostics of base's one list (ib_diags, base.h): each is an
 * ib_diag with rule (a rule id), severity (rv_severity), file
 * (repository-relative, NULL when about the change), line (0: not about a
 * line), msg, fix (never NULL: the finding's own or the rule's) and quotes
 * (lines of other files as evidence: "the sisters do it this way").
 *
 * Ownership: the caller sets r->a (an arena) before the call; the review
 * uses it as r->findings.a, and every string and array of the report lives
 * there except r->files, which rv_report_free releases (not the arena).
 * The library never prints.
 */
#ifndef IB_REVIEW_H
#define IB_REVIEW_H

#include "base/base.h"

/* A finding's ib_diag severity: a blocking one is an error. */
typedef enum { RV_BLOCKING = IB_SEV_ERROR, RV_WARNING = IB_SEV_WARNING } rv_severity;

/* One rule of the checklist; the table is static (rv_rules). */
typedef struct {
	const char *id;    /* "sister-guard" */
	int severity;      /* rv_severity of its findings */
	bool change_only;  /* needs a base..head change (not run in files mode) */
	const char *title; /* one line: what it checks */
	const char *fix;   /* the generic fix */
} rv_rule;

/* The rule table, in report order; *n gets its length. */
const rv_rule *rv_rules(size_t *n);
/* The index of a rule id in rv_rules(), or -1. */
int rv_rule_index(const char *id);

typedef struct {
	ib_arena *a;      /* the caller's; set before rv_review */
	const char *mode; /* "files" or "change" */
	const char *base; /* change mode: the merge-base commit and head commit */
	const char *head;
	const char **files; /* the files reviewed (repository-relative) */
	size_t nfiles, files_cap;
	ib_diags findings;  /* in report order (see above); count them with ib_diags_count */
	size_t checked[32]; /* per rule index: how many subjects the rule looked at */
} rv_report;

typedef struct {
	const char *repo;         /* the repository's folder (required) */
	const char *base;         /* change mode: base ref (NULL: files mode) */
	const char *head;         /* change mode: head ref (NULL: HEAD) */
	const char *const *files; /* files mode: paths relative to repo, or absolute under it */
	size_t nfiles;
} rv_opts;

/* Runs the review. Returns 0 when it ran, whatever it found (r->findings);
 * IB_ENOENT for a missing repository folder or file, IB_EINVAL for a folder
 * that is not a git work tree (change mode) or a ref git does not know,
 * IB_EIO when git cannot be run, IB_ENOMEM. The message says which. */
int rv_review(const rv_opts *o, rv_report *r, ib_error *e);

/* An in-memory document of a tree: a repository-relative path and its text. */
typedef struct {
	const char *path;
	const char *text;
	size_t len;
} rv_doc;
/* Files-mode rules over the documents named in targets (paths that must be
 * in tree; a target not in tree is IB_ENOENT); sister recipes are looked for
 * among all of tree. Returns 0, IB_ENOENT or IB_ENOMEM. */
int rv_review_docs(rv_report *r, const rv_doc *tree, size_t ntree, const char *const *targets,
                   size_t ntargets, ib_error *e);

/* Formats the report: the reference's comment style (✅ / 🟡 / 🔴 per rule,
 * then each finding with file:line, quotes and fix); a JSON document; or
 * GitHub workflow annotations (::error / ::warning). Appends to out;
 * returns 0 or IB_ENOMEM. */
int rv_format_text(const rv_report *r, ib_buf *out);
int rv_format_json(const rv_report *r, ib_buf *out);
int rv_format_github(const rv_report *r, ib_buf *out);
void rv_report_free(rv_report *r);

#endif
