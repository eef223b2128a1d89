/* Private to matrix/: the generator's state and helpers shared by its files. */
#ifndef IB_MATRIX_PRIVATE_H
#define IB_MATRIX_PRIVATE_H

#include "matrix/matrix.h"

typedef struct {
	ib_arena *a;
	const mx_opts *o;
	const ib_val *runners;
	ib_val *rows;
	ib_error *e;
	const char *key;     /* current config key */
	const ib_val *cfg;   /* current config entry */
	ib_val *runner_vals; /* list of runner strings for this config */
	bool multinode;
	ib_val *disagg;
} gen;

/* The concurrency values of one search-space entry (raw list items or
 * expanded ints), in order. */
typedef struct {
	ib_val **v;
	size_t n, cap; /* cap: room in v (grown by doubling: linear memory) */
} cvals;

int mx_oom(gen *g);
double mx_num(const ib_val *v);
int mx_push_c(gen *g, cvals *c, ib_val *v);
int mx_expand_into(gen *g, cvals *c, int64_t start, int64_t end, int64_t step);
int mx_list_into(gen *g, cvals *c, const ib_val *list);
void mx_keep_if(cvals *c, bool (*pred)(const ib_val *, const void *), const void *arg);
bool mx_ge(const ib_val *v, const void *m);
bool mx_le(const ib_val *v, const void *m);
bool mx_in_conc(const ib_val *v, const void *arg);
int mx_add_components(gen *g, ib_val *row, const ib_val *bmk);
ib_val *mx_row_head(gen *g, ib_val *runner);
ib_val *mx_worker_with_defaults(ib_arena *a, const ib_val *w);
ib_val *mx_get_or(ib_arena *a, const ib_val *m, const char *key, const char *def_str);
ib_val *mx_get_or_int(ib_arena *a, const ib_val *m, const char *key, int64_t def);
int64_t mx_ival(const ib_val *v);
int mx_sn_fixed(gen *g, const ib_val *isl, const ib_val *osl, const ib_val *bmk);
int mx_mn_fixed(gen *g, const ib_val *isl, const ib_val *osl, const ib_val *bmk);
int mx_agentic(gen *g, const ib_val *acfg, const ib_val *bmk);
bool mx_seq_selected(const mx_opts *o, const ib_val *isl, const ib_val *osl);
int mx_tc_concs(gen *g, const ib_val *bmk, cvals *c, bool *skip);

/* row[k] = v for a literal key k; returns from the caller on failure. */
#define SET(row, k, v)                                                                             \
	do {                                                                                       \
		ib_val *v_ = (v);                                                                  \
		int rc_ = IB_ENOMEM;                                                               \
		if (v_)                                                                            \
			IB_MAP_SET_LIT(rc_, g->a, (row), k, v_);                                   \
		if (rc_)                                                                           \
			return mx_oom(g);                                                          \
	} while (0)

#endif
