/* report/private.h — helpers shared by the report module's files. */
#ifndef IB_REPORT_PRIVATE_H
#define IB_REPORT_PRIVATE_H

#include "report/report.h"

/* A JSON number (int, float, or the strings "NaN", "Infinity",
 * "-Infinity") into *out; false for anything else. */
bool rep_json_number(const ib_val *v, double *out);

#endif
