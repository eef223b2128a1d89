/* config — master-config and runners.yaml loading and validation
 * (spec/matrix.md §1: F1–F52, V1–V24, R1–R4).
 *
 * Validation never changes the loaded values: the generator copies raw values
 * into rows, exactly as the reference does. Every problem found is recorded
 * in the caller's diagnostics list (ib_diags, base.h; its strings go to the
 * list's arena) as an IB_SEV_ERROR with kind "entry", subject the
 * master-config key or runner label (or none), field the dotted path and got
 * the offending value, so that ib_diag_format prints
 * `file:line:col: entry 'k': field 'f': msg (got X)`. Loading goes on after a
 * problem wherever it can, so that one run reports all of them.
 */
#ifndef IB_CONFIG_H
#define IB_CONFIG_H

#include "fmt/fmt.h"

/* Loads the master configs in order, merging their top-level keys (§1.1):
 * a missing or unreadable file, malformed YAML, a document that is not a
 * mapping, a key with '*', or a key already loaded from an earlier file is a
 * problem; then every entry of the merged mapping is validated (§1.3–1.4).
 * *merged receives the merged mapping (keys in file order, values raw) even
 * when there are problems. Returns 0 when no problem was found, IB_EINVAL when
 * some were recorded in d, IB_ENOMEM on allocation failure. */
int cfg_load_master(ib_arena *a, const char *const *paths, size_t npaths, ib_val **merged,
                    ib_diags *d);

/* Validates one master-config entry (raw value) under key `key`; problems go
 * to d. Returns true when the entry is valid. */
bool cfg_validate_entry(const char *key, const ib_val *entry, ib_diags *d);

/* Loads and validates runners.yaml (§1.5, R1–R4). Returns 0, IB_EINVAL (with
 * problems in d) or IB_ENOMEM. *runners receives the raw mapping on success. */
int cfg_load_runners(ib_arena *a, const char *path, ib_val **runners, ib_diags *d);

/* Validates a parsed runners.yaml document (R1–R4); problems go to d with
 * `file` as their file (for nested hardware entries, the file recorded in
 * the YAML nodes, which is the same when the document was loaded from it).
 * Returns true when valid. */
bool cfg_validate_runners(const ib_val *doc, ib_diags *d, const char *file);

/* ---- lax coercions shared with the generator (pydantic v2 lax mode, §1.2) ---- */
/* int: int, bool, integral float, numeric string. */
bool cfg_lax_int(const ib_val *v, int64_t *out);
/* bool: bool, 0/1, and the strings true/false/yes/no/on/off/t/f/y/n/1/0. */
bool cfg_lax_bool(const ib_val *v, bool *out);
/* float: float, int, bool, numeric string. */
bool cfg_lax_float(const ib_val *v, double *out);

#endif
