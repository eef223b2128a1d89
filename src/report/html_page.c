/* The report page: one HTML document with the data, style and script
 * inline and a Content-Security-Policy that forbids any fetch. */
#include "report/html_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int html_esc(ib_buf *b, const char *s)
{
	for (; s && *s; s++) {
		int rc;
		switch (*s) {
		case '&':
			rc = ib_buf_puts(b, "&amp;");
			break;
		case '<':
			rc = ib_buf_puts(b, "&lt;");
			break;
		case '>':
			rc = ib_buf_puts(b, "&gt;");
			break;
		case '"':
			rc = ib_buf_puts(b, "&quot;");
			break;
		default:
			rc = ib_buf_putc(b, *s);
		}
		if (rc)
			return rc;
	}
	return 0;
}

static const char *str(const ib_val *m, const char *k)
{
	const ib_val *v = ib_map_get(m, k);
	return v && v->type == IB_V_STR ? v->str.s : NULL;
}

static size_t count(const ib_val *m, const char *k)
{
	const ib_val *v = ib_map_get(m, k);
	return v && v->type == IB_V_LIST ? v->list.n : 0;
}

/* A double in the shortest of "%.15g" / "%.17g" that reads back exactly
 * (one or two snprintf calls; the embedded data has ~10^5 numbers). */
static int put_num(ib_buf *b, double x)
{
	char t[40];
	if (!isfinite(x))
		return ib_buf_puts(b, "null");
	snprintf(t, sizeof t, "%.15g", x);
	if (strtod(t, NULL) != x)
		snprintf(t, sizeof t, "%.17g", x);
	return ib_buf_puts(b, t);
}

/* The data as compact JSON for <script type="application/json">: every '<'
 * is written \u003c so that no "</script>" can end the element early. */
static int put_json(ib_buf *b, ib_buf *scratch, const ib_val *v)
{
	int rc = 0;
	switch (v->type) {
	case IB_V_NULL:
		return ib_buf_puts(b, "null");
	case IB_V_BOOL:
		return ib_buf_puts(b, v->b ? "true" : "false");
	case IB_V_INT:
		return ib_buf_printf(b, "%lld", (long long)v->i);
	case IB_V_FLOAT:
		return put_num(b, v->f);
	case IB_V_STR:
	case IB_V_DATE:
		scratch->len = 0;
		rc = ib_json_write_str(scratch, v->str.s, v->str.len, true);
		for (size_t i = 0; !rc && i < scratch->len; i++)
			rc = scratch->data[i] == '<' ? ib_buf_puts(b, "\\u003c")
			                             : ib_buf_putc(b, scratch->data[i]);
		return rc;
	case IB_V_LIST:
		rc = ib_buf_putc(b, '[');
		for (size_t i = 0; !rc && i < v->list.n; i++) {
			if (i)
				rc = ib_buf_putc(b, ',');
			rc = rc ? rc : put_json(b, scratch, v->list.v[i]);
		}
		return rc ? rc : ib_buf_putc(b, ']');
	case IB_V_MAP:
		rc = ib_buf_putc(b, '{');
		for (size_t i = 0; !rc && i < v->map.n; i++) {
			if (i)
				rc = ib_buf_putc(b, ',');
			rc = rc ? rc : put_json(b, scratch, v->map.kv[i].key);
			rc = rc ? rc : ib_buf_putc(b, ':');
			rc = rc ? rc : put_json(b, scratch, v->map.kv[i].val);
		}
		return rc ? rc : ib_buf_putc(b, '}');
	}
	return 0;
}

static int embed_json(ib_buf *out, const ib_val *data)
{
	ib_buf scratch = {0};
	int rc = put_json(out, &scratch, data);
	ib_buf_free(&scratch);
	return rc;
}

static int chart_card(ib_buf *b, char w)
{
	return ib_buf_printf(
	    b,
	    "<div class=\"chart\" id=\"chart%c\"><h2></h2><div class=\"caption\"></div>"
	    "<div class=\"toggles\"><label><input type=\"checkbox\" data-toggle=\"log\"> Log "
	    "scale</label><label><input type=\"checkbox\" data-toggle=\"optimal\"> Optimal "
	    "only</label><label><input type=\"checkbox\" data-toggle=\"labels\"> "
	    "Parallelism labels</label><label><input type=\"checkbox\" data-toggle=\"table\"> "
	    "Table</label><button class=\"small csv\">Export CSV</button></div>"
	    "<svg viewBox=\"0 0 600 420\" role=\"img\"></svg><div class=\"legend\"></div>"
	    "<div class=\"tablewrap\" id=\"table%c\" style=\"display:none\"></div></div>",
	    w, w);
}

static int head(ib_buf *b, const ib_val *data)
{
	const char *title = str(data, "title");
	int rc = ib_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	                        "<meta name=\"viewport\" content=\"width=device-width, "
	                        "initial-scale=1\"><meta http-equiv=\"Content-Security-Policy\" "
	                        "content=\"default-src 'none'; style-src 'unsafe-inline'; "
	                        "script-src 'unsafe-inline'; img-src data: blob:\"><title>");
	rc = rc ? rc : html_esc(b, title);
	rc = rc ? rc : ib_buf_puts(b, "</title><style>\n");
	rc = rc ? rc : ib_buf_puts(b, rep_asset_css);
	rc = rc ? rc : ib_buf_puts(b, "</style></head><body>\n<header><h1>");
	rc = rc ? rc : html_esc(b, title);
	rc = rc ? rc
	        : ib_buf_printf(b, "</h1><div class=\"sub\">%zu benchmark rows, %zu eval charts",
	                        count(data, "rows"), count(data, "evals"));
	const ib_val *ag = ib_map_get(data, "agentic");
	if (!rc && ag)
		rc = ib_buf_printf(b, ", %zu agentic rows", count(ag, "rows"));
	const ib_val *total = ib_map_get(data, "rowsTotal");
	if (!rc && total && total->type == IB_V_INT)
		rc = ib_buf_printf(b, " (of %lld loaded: thinned, every frontier point kept)",
		                   (long long)total->i);
	if (!rc && count(data, "skipped"))
		rc =
		    ib_buf_printf(b, ", %zu input problems (rows skipped)", count(data, "skipped"));
	if (!rc && str(data, "generated")) {
		rc = ib_buf_puts(b, " • generated ");
		rc = rc ? rc : html_esc(b, str(data, "generated"));
	}
	return rc ? rc : ib_buf_puts(b, " • made by infbench report</div></header>\n");
}

static bool has_trend(const ib_val *data)
{
	const ib_val *g = ib_map_get(data, "groups");
	for (size_t i = 0; g && i < g->list.n; i++)
		if (ib_map_get(g->list.v[i], "trend"))
			return true;
	return false;
}

static int tabs(ib_buf *b, const ib_val *data)
{
	const ib_val *cmp = ib_map_get(data, "compare");
	bool compare = cmp && cmp->type == IB_V_BOOL && cmp->b;
	/* agentic rows: their tab after Inference, or first and shown when there
	 * is no fixed-length row to draw */
	bool ag = ib_map_get(data, "agentic"), first = ag && !count(data, "groups");
	int rc = first ? ib_buf_puts(b, "<nav class=\"tabs\"><button data-tab=\"agentic\" "
	                                "class=\"on\">Agentic</button>")
	               : ib_buf_puts(b, "<nav class=\"tabs\"><button data-tab=\"inference\" "
	                                "class=\"on\">Inference</button>");
	if (!rc && ag && !first)
		rc = ib_buf_puts(b, "<button data-tab=\"agentic\">Agentic</button>");
	if (!rc && compare)
		rc = ib_buf_puts(b, "<button data-tab=\"comparison\">Comparison</button>");
	if (!rc && count(data, "evals"))
		rc = ib_buf_puts(b, "<button data-tab=\"evaluation\">Evaluation</button>");
	if (!rc && has_trend(data))
		rc = ib_buf_puts(b, "<button data-tab=\"trends\">Historical trends</button>");
	rc = rc ? rc : ib_buf_puts(b, "<button data-tab=\"gpus\">GPU cost &amp; power</button>");
	const ib_val *total = ib_map_get(data, "rowsTotal");
	if (!rc && total && total->type == IB_V_INT)
		rc = ib_buf_printf(b, " (of %lld loaded: thinned, every frontier point kept)",
		                   (long long)total->i);
	if (!rc && count(data, "skipped"))
		rc = ib_buf_printf(b, "<button data-tab=\"skipped\">Skipped rows (%zu)</button>",
		                   count(data, "skipped"));
	return rc ? rc : ib_buf_puts(b, "</nav>\n");
}

static int inference(ib_buf *b, bool on)
{
	int rc = ib_buf_puts(b, on ? "<section class=\"view on\" id=\"view-inference\">"
	                           : "<section class=\"view\" id=\"view-inference\">");
	rc = rc ? rc
	        : ib_buf_puts(
	              b, "<div class=\"controls\">"
	                 "<label>Model <select id=\"sel-model\"></select></label>"
	                 "<label>ISL/OSL <select id=\"sel-seq\"></select></label>"
	                 "<label>Precision <span id=\"precs\"></span></label>"
	                 "<label>Y-axis metric <select id=\"sel-metric\"></select></label>"
	                 "<span id=\"xa-box\" style=\"display:none\"><label>X-axis metric <select "
	                 "id=\"sel-xa\"></select></label> <label>X-axis scale <select "
	                 "id=\"sel-xscale\"></select></label></span>"
	                 "<label>Latency chart x <select id=\"sel-xb\"></select></label></div>"
	                 "<div id=\"fpwarn\"></div><div id=\"simnote\"></div><div "
	                 "id=\"context\"></div><div "
	                 "class=\"charts\">");
	rc = rc ? rc : chart_card(b, 'A');
	rc = rc ? rc : chart_card(b, 'B');
	return rc ? rc
	          : ib_buf_puts(b, "</div><div id=\"clientbound\"></div><div id=\"accept\"></div>"
	                           "<p class=\"note\">Frontiers (Pareto, per GPU × framework × "
	                           "spec decoding × precision and date), derived cost and energy "
	                           "metrics and colours are computed by infbench's report library "
	                           "with the InferenceX dashboard's rules; hover a point for "
	                           "details, click to pin. Hollow markers: client-bound points. "
	                           "Dashed rings and a SIMULATED badge: points of the simulator. "
	                           "✕ markers and dashed lines: the compared run.</p></section>\n");
}

static int others(ib_buf *b, const ib_val *data)
{
	const ib_val *cmp = ib_map_get(data, "compare");
	int rc = 0;
	if (cmp && cmp->type == IB_V_BOOL && cmp->b)
		rc = ib_buf_puts(b,
		                 "<section class=\"view\" id=\"view-comparison\"><p class=\"note\">"
		                 "The model and sequence chosen on the Inference tab.</p>"
		                 "<div id=\"compare-body\"></div></section>\n");
	if (!rc && has_trend(data))
		rc = ib_buf_puts(b,
		                 "<section class=\"view\" id=\"view-trends\"><div "
		                 "class=\"controls\"><label>Metric <select "
		                 "id=\"sel-tmetric\"></select></label><label>Target interactivity "
		                 "<select id=\"sel-ttarget\"></select></label><span "
		                 "class=\"note\">model and sequence of the Inference "
		                 "tab</span></div><div id=\"trend-body\"></div></section>\n");
	if (!rc && count(data, "evals"))
		rc = ib_buf_puts(b, "<section class=\"view\" id=\"view-evaluation\"><div "
		                    "class=\"controls\"><label>Benchmark <select "
		                    "id=\"sel-eval\"></select></label></div><div "
		                    "id=\"eval-body\"></div></section>\n");
	rc = rc ? rc
	        : ib_buf_puts(b, "<section class=\"view\" id=\"view-gpus\"><p class=\"note\">GPU "
	                         "power and $/GPU-hour used for the cost and energy metrics "
	                         "(SemiAnalysis Market Pricing Surveys &amp; AI Cloud TCO Model; "
	                         "SemiAnalysis Datacenter Industry Model). The custom columns feed "
	                         "the \"Custom User Values\" metrics.</p><div "
	                         "id=\"gpu-body\"></div></section>\n");
	const ib_val *sk = ib_map_get(data, "skipped");
	if (!rc && sk && sk->type == IB_V_LIST && sk->list.n) {
		rc = ib_buf_puts(b, "<section class=\"view\" id=\"view-skipped\"><p class=\"note\">"
		                    "Input that could not be drawn (the dashboard's row rules): "
		                    "</p><ul class=\"list\" id=\"skipped-list\">");
		for (size_t i = 0; !rc && i < sk->list.n; i++) {
			rc = ib_buf_puts(b, "<li>");
			rc = rc ? rc : html_esc(b, sk->list.v[i]->str.s);
			rc = rc ? rc : ib_buf_puts(b, "</li>");
		}
		rc = rc ? rc : ib_buf_puts(b, "</ul></section>\n");
	}
	return rc;
}

int rep_html_write(ib_buf *out, const ib_val *data, const rep_page_opts *o, ib_error *e)
{
	(void)o;
	const ib_val *ag = ib_map_get(data, "agentic");
	bool first = ag && !count(data, "groups");
	int rc = head(out, data);
	rc = rc ? rc : tabs(out, data);
	rc = rc ? rc : inference(out, !first);
	rc = rc ? rc : others(out, data);
	rc = rc ? rc : ag ? rep_agentic_html(out, ag, first) : 0;
	rc = rc ? rc
	        : ib_buf_puts(out, "<div id=\"tip\"></div>\n<script type=\"application/json\" "
	                           "id=\"ib-data\">");
	rc = rc ? rc : embed_json(out, data);
	rc = rc ? rc : ib_buf_puts(out, "</script>\n<script>\n");
	rc = rc ? rc : ib_buf_puts(out, rep_asset_js);
	if (!rc && ag) {
		rc = ib_buf_puts(out, "</script>\n<script>\n");
		rc = rc ? rc : ib_buf_puts(out, rep_asset_agentic_js);
	}
	rc = rc ? rc : ib_buf_puts(out, "</script>\n</body></html>\n");
	if (rc)
		return ib_fail(e, rc, NULL, 0, 0, "out of memory");
	return 0;
}
