/* `infbench report --svg DIR`: each chart of the default views as a
 * standalone SVG file (axes from rep_scatter_axes, paths from
 * par_monotone_path, labels from the library's number formats). */
#include "report/html_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum {
	W = REP_SVG_W,
	H = REP_SVG_H,
	MT = REP_SVG_MT,
	MR = REP_SVG_MR,
	MB = REP_SVG_MB,
	ML = REP_SVG_ML
};

static const ib_val *get(const ib_val *m, const char *k)
{
	return m && m->type == IB_V_MAP ? ib_map_get(m, k) : NULL;
}
static const char *sget(const ib_val *m, const char *k)
{
	const ib_val *v = get(m, k);
	return v && v->type == IB_V_STR ? v->str.s : "";
}

int rep_svg_esc(ib_buf *b, const char *s)
{
	int rc = 0;
	for (; *s && !rc; s++)
		rc = *s == '&'   ? ib_buf_puts(b, "&amp;")
		     : *s == '<' ? ib_buf_puts(b, "&lt;")
		     : *s == '>' ? ib_buf_puts(b, "&gt;")
		                 : ib_buf_putc(b, *s);
	return rc;
}

double rep_lin_px(const rep_lin *s, double v)
{
	return s->r0 + (v - s->lo) / (s->hi - s->lo) * (s->r1 - s->r0);
}

int rep_svg_axes(ib_buf *b, const rep_axis *x, const rep_axis *y, const rep_lin *sx,
                 const rep_lin *sy, const char *xl, const char *yl)
{
	int rc = 0;
	for (size_t i = 0; !rc && i < x->nticks; i++) {
		char t[48];
		par_fmt_tick(x->ticks[i], t, sizeof t);
		double p = rep_lin_px(sx, x->ticks[i]), at = p, half = 3.1 * (double)strlen(t);
		/* centred on the tick unless that cuts it at an edge (10px digits:
		 * at most 6.2px a character), as the page does */
		const char *anchor = p + half > W - 1 ? "end" : p - half < 1 ? "start" : "middle";
		if (*anchor != 'm')
			at = *anchor == 'e' ? W - 1 : 1;
		rc = ib_buf_printf(
		    b,
		    "<line x1=\"%.2f\" x2=\"%.2f\" y1=\"%d\" y2=\"%d\" stroke=\"#eef0f3\"/>"
		    "<text x=\"%.2f\" y=\"%d\" font-size=\"10\" fill=\"#6b7280\" "
		    "text-anchor=\"%s\">%s</text>\n",
		    p, p, MT, H - MB, at, H - MB + 14, anchor, t);
	}
	for (size_t i = 0; !rc && i < y->nticks; i++) {
		char t[48];
		par_fmt_tick_large(y->ticks[i], t, sizeof t);
		double p = rep_lin_px(sy, y->ticks[i]);
		rc = ib_buf_printf(
		    b,
		    "<line x1=\"%d\" x2=\"%d\" y1=\"%.2f\" y2=\"%.2f\" stroke=\"#eef0f3\"/>"
		    "<text x=\"%d\" y=\"%.2f\" font-size=\"10\" fill=\"#6b7280\" "
		    "text-anchor=\"end\">%s</text>\n",
		    ML, W - MR, p, p, ML - 6, p + 3, t);
	}
	rc = rc ? rc
	        : ib_buf_printf(b,
	                        "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#9ca3af\"/>"
	                        "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#9ca3af\"/>"
	                        "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">",
	                        ML, W - MR, H - MB, H - MB, ML, ML, MT, H - MB, (ML + W - MR) / 2,
	                        H - MB + 36);
	rc = rc ? rc : rep_svg_esc(b, xl);
	rc = rc ? rc
	        : ib_buf_printf(b,
	                        "</text><text transform=\"translate(14,%d) rotate(-90)\" "
	                        "font-size=\"11\" text-anchor=\"middle\">",
	                        (MT + H - MB) / 2);
	rc = rc ? rc : rep_svg_esc(b, yl);
	return rc ? rc : ib_buf_puts(b, "</text>\n");
}

/* One chart of a group as an SVG document into b. */
static int chart_svg(ib_buf *b, const ib_val *data, const ib_val *g, const char *key,
                     const char *title, const char *xl, const char *yl)
{
	const ib_val *v = get(get(g, "views"), key), *paths = get(v, "paths"),
	             *rows = get(data, "rows"), *series = get(data, "series");
	rep_vpt *vp = NULL;
	size_t n = 0;
	int rc = rep_view_points(data, g, key, &vp, &n);
	if (rc)
		return rc;
	par_pt *pp = calloc(n ? n : 1, sizeof *pp);
	if (!pp) {
		free(vp);
		return IB_ENOMEM;
	}
	for (size_t k = 0; k < n; k++)
		pp[k] = (par_pt){NULL, vp[k].x, vp[k].y};
	rep_axes_opts ao = {.scale_type = "linear"};
	rep_axis ax, ay;
	rep_scatter_axes(pp, n, &ao, &ax, &ay);
	rep_lin sx = {ax.nice[0], ax.nice[1], ML, W - MR},
	        sy = {ay.nice[0], ay.nice[1], H - MB, MT};
	rc = ib_buf_printf(b,
	                   "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
	                   "width=\"%d\" height=\"%d\" font-family=\"sans-serif\">\n"
	                   "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>"
	                   "<text x=\"%d\" y=\"16\" font-size=\"14\" font-weight=\"600\">",
	                   W, H, W, H, W, H, ML);
	rc = rc ? rc : rep_svg_esc(b, title);
	rc = rc ? rc
	        : ib_buf_printf(b,
	                        "</text><text x=\"%d\" y=\"30\" font-size=\"10\" "
	                        "fill=\"#6b7280\">",
	                        ML);
	rc = rc ? rc : rep_svg_esc(b, sget(g, "modelLabel"));
	rc = rc ? rc : ib_buf_puts(b, " • ");
	rc = rc ? rc : rep_svg_esc(b, sget(g, "seq"));
	rc = rc ? rc : ib_buf_puts(b, " • Source: infbench</text>\n");
	rc = rc ? rc : rep_svg_axes(b, &ax, &ay, &sx, &sy, xl, yl);
	/* frontier paths: the library's, through pixel points */
	for (size_t q = 0; !rc && paths && q < paths->list.n; q++) {
		const ib_val *path = paths->list.v[q];
		par_pt *fp = calloc(path->list.n + 1, sizeof *fp);
		size_t m = 0;
		if (!fp) {
			rc = IB_ENOMEM;
			break;
		}
		long long si = -1;
		for (size_t t = 0; t < path->list.n; t++) {
			long long row = path->list.v[t]->i;
			for (size_t k = 0; k < n; k++)
				if (vp[k].row == row) {
					fp[m++] = (par_pt){NULL, rep_lin_px(&sx, pp[k].x),
					                   rep_lin_px(&sy, pp[k].y)};
					break;
				}
			si = get(rows->list.v[row], "s")->i;
		}
		ib_buf d = {0};
		rc = par_monotone_path(fp, m, &d);
		const ib_val *s = series->list.v[si];
		if (!rc && m >= 2)
			rc = ib_buf_printf(
			    b,
			    "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2.5\"%s/>\n",
			    d.data, sget(s, "color"),
			    get(s, "run")->i >= 0 ? " stroke-dasharray=\"6 3\"" : "");
		ib_buf_free(&d);
		free(fp);
	}
	for (size_t k = 0; !rc && k < n; k++) {
		if (!isfinite(pp[k].x) || !isfinite(pp[k].y))
			continue;
		const ib_val *r = rows->list.v[vp[k].row];
		const ib_val *s = series->list.v[get(r, "s")->i];
		const ib_val *cb = get(r, "cb");
		bool hollow = cb && cb->type == IB_V_INT && cb->i == 1;
		rc = ib_buf_printf(
		    b, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"3.5\" %s=\"%s\"%s><title>",
		    rep_lin_px(&sx, pp[k].x), rep_lin_px(&sy, pp[k].y), hollow ? "stroke" : "fill",
		    sget(s, "color"), hollow ? " fill=\"#fff\"" : "");
		rc = rc ? rc : rep_svg_esc(b, sget(s, "label"));
		rc = rc ? rc
		        : ib_buf_printf(b, " %s conc %lld</title></circle>\n", sget(r, "par"),
		                        (long long)get(r, "conc")->i);
	}
	free(pp);
	free(vp);
	return rc ? rc : ib_buf_puts(b, "</svg>\n");
}

static void file_part(char *out, size_t cap, const char *s)
{
	size_t k = 0;
	for (; *s && k + 1 < cap; s++)
		out[k++] = (*s == '/' || *s == ' ') ? '_' : *s;
	out[k] = 0;
}

int rep_svg_write_dir(const ib_val *data, const char *dir, size_t *nfiles, ib_error *e)
{
	static const struct {
		const char *view, *name, *title, *xl, *yl;
	} charts[] = {
	    {"A|tpPerGpu|median_intvty", "interactivity_tpPerGpu",
	     "Token Throughput per GPU vs. Interactivity", "Interactivity (tok/s/user)",
	     "Token Throughput per GPU (tok/s/gpu)"},
	    {"B|tpPerGpu|median_e2el", "e2el_tpPerGpu",
	     "Token Throughput per GPU vs. End-to-end Latency", "End-to-end Latency (s)",
	     "Token Throughput per GPU (tok/s/gpu)"},
	    {"A|costh|median_intvty", "interactivity_costh",
	     "Cost per Million Total Tokens (Owning - Hyperscaler) vs. Interactivity",
	     "Interactivity (tok/s/user)", "Cost per Million Total Tokens ($)"},
	    {"B|costh|median_e2el", "e2el_costh",
	     "Cost per Million Total Tokens (Owning - Hyperscaler) vs. End-to-end Latency",
	     "End-to-end Latency (s)", "Cost per Million Total Tokens ($)"},
	};
	*nfiles = 0;
	int made = ib_mkdirs(dir, 0777, e);
	if (made)
		return made;
	const ib_val *groups = get(data, "groups");
	for (size_t i = 0; i < groups->list.n; i++) {
		const ib_val *g = groups->list.v[i];
		for (size_t c = 0; c < sizeof charts / sizeof charts[0]; c++) {
			const ib_val *v = get(get(g, "views"), charts[c].view);
			if (!v)
				continue;
			ib_buf b = {0};
			int rc = chart_svg(&b, data, g, charts[c].view, charts[c].title,
			                   charts[c].xl, charts[c].yl);
			char m[128], s[64], path[1024];
			file_part(m, sizeof m, sget(g, "model"));
			file_part(s, sizeof s, sget(g, "seq"));
			snprintf(path, sizeof path, "%s/%s_%s_%s.svg", dir, m, s, charts[c].name);
			if (rc && !ib_buf_error(&b)) /* a buffer error is reported naming path */
				rc = ib_fail(e, rc, NULL, 0, 0, "out of memory");
			else
				rc = ib_buf_write_file(path, &b, e);
			ib_buf_free(&b);
			if (rc)
				return rc;
			(*nfiles)++;
		}
	}
	return 0;
}
