/* power: the multinode power files' shared types (private). */
#ifndef IB_POWER_MN_H
#define IB_POWER_MN_H

#include "power/private.h"

#include <stdarg.h>

typedef struct {
	double t;
	int64_t seq;
	const char *host;
	int64_t index;
	const char *uuid;
	double power;
	size_t order;
} mn_row;

typedef struct { /* an expected device of the manifest */
	const char *host;
	int64_t index;
	const char *role; /* of the first assignment */
	int64_t group;    /* het group, -1 for None */
	bool role_conflict, group_conflict;
} mn_dev;

typedef struct {
	const char *type;
	int64_t conc;
} mn_ewin;

typedef struct { /* a device seen in samples.csv */
	const char *host;
	int64_t index;
	const char **uuids;
	size_t nuuid;
	mn_row **rows; /* by scrape_seq */
	size_t n;
	double *times; /* sorted */
	double first, last;
} mn_obs;

typedef struct {
	mn_dev *dev;
	size_t ndev;
	mn_ewin *ewin;
	size_t newin;
	mn_row *rows;
	size_t nrows; /* unique rows */
	mn_obs *obs;  /* sorted by (hostname, gpu_index) */
	size_t nobs;
	pw_reasons sample_reasons;
	bool dup_rows, roles_ok, groups_ok;
} mn_pkg;

typedef struct {
	ib_arena *a;
	pw_reasons reasons;
	const char *fail[256];
	size_t nfail;
} mn_audit;

void pw_mn_fail(mn_audit *au, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pw_mn_reason(mn_audit *au, const char *r, const char *detail);
bool pw_mn_finite(const ib_val *v);
double pw_mn_num(const ib_val *v);
void pw_mn_check_wire(mn_audit *au, const ib_val *manifest, size_t *nfailures);
/* 0, -1 (no memory) or 1 (malformed: why gets the exception text). */
int pw_mn_parse_expected(mn_audit *au, const ib_val *manifest, mn_pkg *p, char *why, size_t cap);
int pw_mn_read_samples(mn_audit *au, const char *path, mn_pkg *p);
void pw_mn_sort_doubles(double *v, size_t n);
const mn_obs *pw_mn_find_obs(const mn_pkg *p, const char *host, int64_t index);
void pw_mn_validate_devices(mn_pkg *p, pw_reasons *r);
const char *pw_mn_role_of(const mn_pkg *p, const char *host, int64_t index);
void pw_mn_check_topology(mn_audit *au, const mn_pkg *p, int64_t prefill, int64_t decode,
                          int64_t agg);

/* The producer's side of the package (power_mn_pack.c): recomputes what
 * the validator recomputes from power_dir's samples.csv and windows/ (results
 * under logs_root) for manifest m (in a: its wire fields, expected devices
 * and windows set) and stores it in m: observed_devices,
 * window_validations, artifact_errors, sample_row_count and
 * publication_valid (true when nothing failed; else *first_failure says
 * what, in a). IB_EINVAL when m's expected devices or windows are
 * malformed, IB_ENOMEM. */
int pw_mn_seal(ib_arena *a, const char *power_dir, const char *logs_root, ib_val *m,
               const char **first_failure, ib_error *e);

#endif
