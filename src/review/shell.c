/* A tolerant scanner of bash recipes (private.h): simple commands with their
 * if / case / loop nesting, and what a recipe's name and code say about it. */
#include "review/private.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum { SEP_NONE, SEP_AND, SEP_OR, SEP_PIPE, SEP_LIST };
enum { FR_IF, FR_CASE, FR_LOOP, FR_BRACE };

typedef struct {
	int kind;
	bool awaiting; /* if/elif or while/until/for: still reading the condition */
	int line;      /* line of the (latest) condition */
	ib_buf cond;   /* the conditions as written, "if X ; elif Y" */
	ib_buf latest; /* the latest if/elif condition, for `guard` */
} frame;

typedef struct {
	ib_arena *a;
	rv_script *s;
	frame fr[64];
	int nfr;
	/* the previous segment of the same list, for `[ test ] && cmd` */
	bool prev_test;
	char prev_text[512];
	int prev_line;
	int rc;
} scan;

static bool is_word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.' || c == '/';
}

bool rv_has_token(const char *text, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
		bool left = p == text || !is_word_char(p[-1]);
		bool right = !is_word_char(p[n]);
		if (left && right)
			return true;
	}
	return false;
}

/* quotes dropped, ${NAME} → $NAME, blanks collapsed, trimmed */
static const char *normalize(ib_arena *a, const char *t)
{
	size_t n = strlen(t);
	char *o = ib_arena_alloc(a, n + 1);
	if (!o)
		return NULL;
	size_t k = 0;
	bool space = false;
	for (size_t i = 0; i < n; i++) {
		char c = t[i];
		if (c == '"' || c == '\'')
			continue;
		if (c == '$' && t[i + 1] == '{') {
			size_t j = i + 2;
			while (isalnum((unsigned char)t[j]) || t[j] == '_')
				j++;
			if (t[j] == '}' && j > i + 2) {
				if (space && k)
					o[k++] = ' ';
				space = false;
				o[k++] = '$';
				memcpy(o + k, t + i + 2, j - i - 2);
				k += j - i - 2;
				i = j;
				continue;
			}
		}
		if (isspace((unsigned char)c)) {
			space = true;
			continue;
		}
		if (space && k)
			o[k++] = ' ';
		space = false;
		o[k++] = c;
	}
	o[k] = 0;
	return o;
}

static const char *trim(char *t)
{
	while (isspace((unsigned char)*t))
		t++;
	size_t n = strlen(t);
	while (n && isspace((unsigned char)t[n - 1]))
		t[--n] = 0;
	return t;
}

/* Is `w` the first word of t? Returns the rest (after blanks) or NULL. */
static const char *kw(const char *t, const char *w)
{
	size_t n = strlen(w);
	if (strncmp(t, w, n) || (t[n] && !isspace((unsigned char)t[n]) && t[n] != ';'))
		return NULL;
	t += n;
	while (isspace((unsigned char)*t))
		t++;
	return t;
}

static bool is_test(const char *t)
{
	return t[0] == '[' || kw(t, "test") || (t[0] == '(' && t[1] == '(');
}

static void emit(scan *sc, const char *text, int line, int end_line, int sep)
{
	if (sc->rc)
		return;
	rv_script *s = sc->s;
	if (ib_grow(&s->cmds, &s->cmds_cap, s->ncmds + 1)) {
		sc->rc = IB_ENOMEM;
		return;
	}
	rv_cmd *c = &s->cmds[s->ncmds];
	memset(c, 0, sizeof *c);
	c->line = line;
	c->end_line = end_line;
	c->text = ib_arena_strdup(sc->a, text);
	c->norm = normalize(sc->a, text);
	ib_buf conds = {0};
	for (int i = 0; i < sc->nfr; i++) {
		frame *f = &sc->fr[i];
		if (f->kind != FR_IF && f->kind != FR_CASE)
			continue;
		c->nguard++;
		c->nif += f->kind == FR_IF;
		c->guard_line = f->line;
		c->guard = f->latest.data ? ib_arena_strdup(sc->a, f->latest.data) : NULL;
		if (conds.len)
			ib_buf_puts(&conds, " ; ");
		ib_buf_puts(&conds, f->cond.data ? f->cond.data : "");
	}
	if ((sep == SEP_AND || sep == SEP_OR) && sc->prev_test) {
		c->nguard++;
		c->nif++;
		c->guard_line = sc->prev_line;
		c->guard = ib_arena_strdup(sc->a, sc->prev_text);
		if (conds.len)
			ib_buf_puts(&conds, " ; ");
		ib_buf_puts(&conds, sc->prev_text);
	}
	c->conds = ib_arena_strdup(sc->a, conds.data ? conds.data : "");
	c->guard_norm = c->guard ? normalize(sc->a, c->guard) : NULL;
	ib_buf_free(&conds);
	if (!c->text || !c->norm || !c->conds) {
		sc->rc = IB_ENOMEM;
		return;
	}
	s->ncmds++;
}

static void push(scan *sc, int kind, const char *cond, int line, bool awaiting)
{
	if (sc->nfr == (int)(sizeof sc->fr / sizeof sc->fr[0]))
		return; /* absurd nesting: stop tracking, never fail */
	frame *f = &sc->fr[sc->nfr++];
	memset(f, 0, sizeof *f);
	f->kind = kind;
	f->awaiting = awaiting;
	f->line = line;
	ib_buf_puts(&f->cond, cond);
	ib_buf_puts(&f->latest, cond);
}

static void pop(scan *sc, int kind)
{
	/* pop up to and including the innermost frame of that kind */
	for (int i = sc->nfr - 1; i >= 0; i--) {
		if (sc->fr[i].kind != kind)
			continue;
		while (sc->nfr > i) {
			frame *f = &sc->fr[--sc->nfr];
			ib_buf_free(&f->cond);
			ib_buf_free(&f->latest);
		}
		return;
	}
}

static frame *top(scan *sc)
{
	return sc->nfr ? &sc->fr[sc->nfr - 1] : NULL;
}

/* One segment between separators. */
static void segment(scan *sc, char *raw, int line, int end_line, int sep)
{
	const char *t = trim(raw);
	const char *rest;
	char buf[8192];
	for (;;) {
		if (!*t)
			return;
		frame *f = top(sc);
		if (f && f->awaiting) {
			if ((rest = kw(t, "then")) || (rest = kw(t, "do"))) {
				f->awaiting = false;
				t = rest;
				sep = SEP_NONE;
				continue;
			}
			/* more of the condition: `if a && b; then` */
			ib_buf_puts(&f->cond, " ");
			ib_buf_puts(&f->cond, t);
			ib_buf_puts(&f->latest, " ");
			ib_buf_puts(&f->latest, t);
			return;
		}
		if ((rest = kw(t, "if"))) {
			snprintf(buf, sizeof buf, "if %s", rest);
			push(sc, FR_IF, buf, line, true);
			return;
		}
		if ((rest = kw(t, "elif"))) {
			if (f && f->kind == FR_IF) {
				snprintf(buf, sizeof buf, "elif %s", rest);
				ib_buf_puts(&f->cond, " ; ");
				ib_buf_puts(&f->cond, buf);
				f->latest.len = 0;
				ib_buf_puts(&f->latest, buf);
				f->line = line;
				f->awaiting = true;
			}
			return;
		}
		if ((rest = kw(t, "else"))) {
			if (f && f->kind == FR_IF) {
				ib_buf_puts(&f->cond, " ; else");
				ib_buf_puts(&f->latest, " ... else");
			}
			t = rest;
			sep = SEP_NONE;
			continue;
		}
		if (kw(t, "fi")) {
			pop(sc, FR_IF);
			return;
		}
		if (kw(t, "while") || kw(t, "until") || kw(t, "for") || kw(t, "select")) {
			push(sc, FR_LOOP, t, line, true);
			/* `for x in a b; do` arrives as two segments; `do` ends the wait */
			return;
		}
		if (kw(t, "done")) {
			pop(sc, FR_LOOP);
			return;
		}
		if (kw(t, "case")) {
			push(sc, FR_CASE, t, line, false);
			return;
		}
		if (kw(t, "esac")) {
			pop(sc, FR_CASE);
			return;
		}
		if ((rest = kw(t, "function"))) {
			push(sc, FR_BRACE, t, line, false);
			return;
		}
		if (t[0] == '{' && (t[1] == 0 || isspace((unsigned char)t[1]))) {
			push(sc, FR_BRACE, "{", line, false);
			t = trim((char *)t + 1);
			continue;
		}
		if (t[0] == '}' && (t[1] == 0 || isspace((unsigned char)t[1]) || t[1] == ';')) {
			pop(sc, FR_BRACE);
			return;
		}
		{ /* name() { */
			const char *p = t;
			while (isalnum((unsigned char)*p) || *p == '_' || *p == '-' || *p == ':')
				p++;
			const char *q = p;
			while (*q == ' ')
				q++;
			if (p > t && q[0] == '(' && q[1] == ')') {
				push(sc, FR_BRACE, t, line, false);
				return;
			}
		}
		if (f && f->kind == FR_CASE) {
			/* a case arm `pat)` or `pat) cmd` */
			const char *p = strchr(t, ')');
			if (p && !memchr(t, ' ', (size_t)(p - t)) && !strstr(t, "$(") &&
			    (p == t || t[0] != '(')) {
				t = trim((char *)p + 1);
				f->line = line;
				continue;
			}
		}
		if ((rest = kw(t, "!")))
			t = rest;
		break;
	}
	emit(sc, t, line, end_line, sep);
	sc->prev_test = is_test(t);
	snprintf(sc->prev_text, sizeof sc->prev_text, "%s", t);
	sc->prev_line = line;
}

/* Reads a here-document word after `<<` at p; returns its length or 0. */
static size_t heredoc_word(const char *p, char *out, size_t cap, bool *dash)
{
	const char *q = p;
	*dash = false;
	if (*q == '-') {
		*dash = true;
		q++;
	}
	while (*q == ' ')
		q++;
	char quote = 0;
	if (*q == '\'' || *q == '"')
		quote = *q++;
	size_t n = 0;
	while (q[n] && (isalnum((unsigned char)q[n]) || q[n] == '_' || q[n] == '-') && n + 1 < cap)
		n++;
	if (!n)
		return 0;
	memcpy(out, q, n);
	out[n] = 0;
	q += n;
	if (quote && *q == quote)
		q++;
	return (size_t)(q - p);
}

static int split_lines(rv_script *s, ib_arena *a)
{
	int n = 1;
	for (size_t i = 0; i < s->len; i++)
		n += s->text[i] == '\n';
	s->lines = ib_arena_alloc(a, sizeof *s->lines * (size_t)n);
	if (!s->lines)
		return IB_ENOMEM;
	size_t start = 0;
	s->nlines = 0;
	for (size_t i = 0; i <= s->len; i++) {
		if (i == s->len || s->text[i] == '\n') {
			if (i == s->len && i == start)
				break;
			size_t e = i;
			if (e > start && s->text[e - 1] == '\r')
				e--;
			s->lines[s->nlines] = ib_arena_strndup(a, s->text + start, e - start);
			if (!s->lines[s->nlines])
				return IB_ENOMEM;
			s->nlines++;
			start = i + 1;
		}
	}
	return 0;
}

static int scan_text(scan *sc)
{
	rv_script *s = sc->s;
	const char *t = s->text;
	size_t n = s->len;
	ib_buf seg = {0};
	int line = 1, seg_line = 1, sep = SEP_NONE;
	char quote = 0;
	int depth = 0;
	char hd[8][64];
	bool hd_dash[8];
	int nhd = 0;
#define FLUSH(next_sep)                                                                            \
	do {                                                                                       \
		segment(sc, seg.data ? seg.data : (char *)"", seg_line, line, sep);                \
		seg.len = 0;                                                                       \
		if (seg.data)                                                                      \
			seg.data[0] = 0;                                                           \
		sep = (next_sep);                                                                  \
		seg_line = line;                                                                   \
	} while (0)
	for (size_t i = 0; i < n && !sc->rc; i++) {
		char c = t[i];
		if (seg.len == 0 && !quote && !depth)
			seg_line = line;
		if (quote == '\'') {
			ib_buf_putc(&seg, c);
			if (c == '\n')
				line++;
			if (c == '\'')
				quote = 0;
			continue;
		}
		if (quote == '"') {
			if (c == '\\' && i + 1 < n) {
				if (t[i + 1] == '\n') {
					i++;
					line++;
					continue;
				}
				ib_buf_putc(&seg, c);
				ib_buf_putc(&seg, t[++i]);
				continue;
			}
			ib_buf_putc(&seg, c);
			if (c == '\n')
				line++;
			if (c == '"')
				quote = 0;
			continue;
		}
		if (c == '\\' && i + 1 < n) {
			if (t[i + 1] == '\n') {
				ib_buf_putc(&seg, ' ');
				i++;
				line++;
				continue;
			}
			ib_buf_putc(&seg, c);
			ib_buf_putc(&seg, t[++i]);
			continue;
		}
		if (c == '#' && (i == 0 || isspace((unsigned char)t[i - 1]) || t[i - 1] == ';')) {
			while (i < n && t[i] != '\n')
				i++;
			i--; /* the newline is handled next */
			continue;
		}
		if (c == '\'' || c == '"') {
			quote = c;
			ib_buf_putc(&seg, c);
			continue;
		}
		if (c == '(') {
			depth++;
			ib_buf_putc(&seg, c);
			continue;
		}
		if (c == ')' && depth) {
			depth--;
			ib_buf_putc(&seg, c);
			continue;
		}
		if (c == '<' && i + 2 < n && t[i + 1] == '<' && t[i + 2] != '<' && nhd < 8) {
			bool dash;
			size_t k = heredoc_word(t + i + 2, hd[nhd], sizeof hd[nhd], &dash);
			if (k) {
				hd_dash[nhd++] = dash;
				ib_buf_append(&seg, t + i, k + 2);
				i += k + 1;
				continue;
			}
		}
		if (c == '\n') {
			if (depth) {
				ib_buf_putc(&seg, ' ');
				line++;
				continue;
			}
			FLUSH(SEP_NONE);
			line++;
			/* here-document bodies */
			for (int h = 0; h < nhd; h++) {
				while (i + 1 < n) {
					size_t b = i + 1, e = b;
					while (e < n && t[e] != '\n')
						e++;
					const char *l = t + b;
					size_t ll = e - b;
					if (hd_dash[h])
						while (ll && (*l == '\t' || *l == ' ')) {
							l++;
							ll--;
						}
					while (ll && (l[ll - 1] == '\r' || l[ll - 1] == ' '))
						ll--;
					i = e < n ? e : n - 1;
					line++;
					if (ll == strlen(hd[h]) && !memcmp(l, hd[h], ll))
						break;
				}
			}
			nhd = 0;
			seg_line = line;
			continue;
		}
		if (depth) {
			ib_buf_putc(&seg, c);
			continue;
		}
		if (c == ';') {
			if (i + 1 < n && t[i + 1] == ';')
				i++;
			FLUSH(SEP_LIST);
			continue;
		}
		if (c == '&' && i + 1 < n && t[i + 1] == '&') {
			i++;
			FLUSH(SEP_AND);
			continue;
		}
		if (c == '|' && i + 1 < n && t[i + 1] == '|') {
			i++;
			FLUSH(SEP_OR);
			continue;
		}
		if (c == '|') {
			if (i + 1 < n && t[i + 1] == '&')
				i++;
			FLUSH(SEP_PIPE);
			continue;
		}
		if (c == '&' && !(i > 0 && (t[i - 1] == '>' || t[i - 1] == '<')) &&
		    !(i + 1 < n && t[i + 1] == '>')) {
			FLUSH(SEP_LIST);
			continue;
		}
		ib_buf_putc(&seg, c);
	}
	if (!sc->rc)
		FLUSH(SEP_NONE);
#undef FLUSH
	ib_buf_free(&seg);
	while (sc->nfr) {
		frame *f = &sc->fr[--sc->nfr];
		ib_buf_free(&f->cond);
		ib_buf_free(&f->latest);
	}
	return sc->rc;
}

int rv_count_flags_line(const char *ln, char *quote)
{
	int n = 0, depth = 0;
	for (size_t i = 0; ln[i]; i++) {
		char c = ln[i];
		if (*quote) {
			if (c == '\\' && *quote == '"' && ln[i + 1])
				i++;
			else if (c == *quote)
				*quote = 0;
			continue;
		}
		if (c == '\'' || c == '"') {
			*quote = c;
			continue;
		}
		if (c == '#' && (i == 0 || isspace((unsigned char)ln[i - 1])))
			break;
		if (c == '(')
			depth++;
		else if (c == ')' && depth)
			depth--;
		else if (!depth && c == '-' && ln[i + 1] == '-' &&
		         (i == 0 || isspace((unsigned char)ln[i - 1])) &&
		         isalpha((unsigned char)ln[i + 2])) {
			static const char *const addr[] = {
			    "--model", "--model-path", "--served-model-name",
			    "--host",  "--port",       NULL};
			size_t k = strcspn(ln + i, " \t=");
			bool skip = false;
			for (int j = 0; addr[j] && !skip; j++)
				skip = strlen(addr[j]) == k && !strncmp(ln + i, addr[j], k);
			n += !skip;
		}
	}
	return n;
}

const char *rv_fw_name(int fw)
{
	switch (fw) {
	case RV_FW_VLLM:
		return "vllm";
	case RV_FW_SGLANG:
		return "sglang";
	case RV_FW_TRT:
		return "trt";
	case RV_FW_ATOM:
		return "atom";
	default:
		return "";
	}
}

static int launch_kind(const char *norm)
{
	if (strstr(norm, "vllm serve "))
		return RV_FW_VLLM;
	if (strstr(norm, "sglang.launch_server") || strstr(norm, "sglang serve "))
		return RV_FW_SGLANG;
	if (strstr(norm, "trtllm-serve "))
		return RV_FW_TRT;
	if (strstr(norm, "atom.entrypoints"))
		return RV_FW_ATOM;
	return RV_FW_NONE;
}

static bool is_client(const char *norm)
{
	return !strncmp(norm, "run_benchmark_serving", 21) ||
	       strstr(norm, "benchmark_serving.py") || strstr(norm, "infbench bench ");
}

static bool precision_token(const char *t)
{
	static const char *const pre[] = {"fp", "bf", "int", "mxfp", "nvfp", NULL};
	for (int i = 0; pre[i]; i++) {
		size_t k = strlen(pre[i]);
		if (!strncmp(t, pre[i], k) && isdigit((unsigned char)t[k])) {
			const char *p = t + k;
			while (isdigit((unsigned char)*p))
				p++;
			return *p == 0;
		}
	}
	return false;
}

static bool spec_token(const char *t)
{
	return !strcmp(t, "mtp") || !strncmp(t, "eagle", 5) || !strcmp(t, "nextn") ||
	       !strcmp(t, "spec") || !strcmp(t, "dspark");
}

static int fw_token(const char *t)
{
	if (!strcmp(t, "vllm"))
		return RV_FW_VLLM;
	if (!strcmp(t, "sglang"))
		return RV_FW_SGLANG;
	if (!strcmp(t, "trt") || !strcmp(t, "trtllm"))
		return RV_FW_TRT;
	if (!strcmp(t, "atom"))
		return RV_FW_ATOM;
	return RV_FW_NONE;
}

static int parse_name(ib_arena *a, rv_script *s)
{
	const char *path = s->path;
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t bl = strlen(base);
	s->scenario = s->model = s->precision = s->gpu = s->vendor = s->variant = s->spec = "";
	s->gen = "";
	if (bl < 4 || strcmp(base + bl - 3, ".sh"))
		return 0;
	/* scenario: the folders between benchmarks/ and the file, without deprecated */
	ib_buf sc = {0};
	const char *p = path;
	if (!strncmp(p, "benchmarks/", 11))
		p += 11;
	while (p < base) {
		const char *e = strchr(p, '/');
		if (!e || e >= base)
			break;
		if (!(e - p == 10 && !strncmp(p, "deprecated", 10))) {
			if (sc.len)
				ib_buf_putc(&sc, '/');
			ib_buf_append(&sc, p, (size_t)(e - p));
		}
		p = e + 1;
	}
	s->scenario = ib_arena_strdup(a, sc.data ? sc.data : "");
	ib_buf_free(&sc);
	char *name = ib_arena_strndup(a, base, bl - 3);
	if (!name || !s->scenario)
		return IB_ENOMEM;
	char *tok[32];
	int nt = 0;
	for (char *q = name; nt < 32;) {
		tok[nt++] = q;
		char *u = strchr(q, '_');
		if (!u)
			break;
		*u = 0;
		q = u + 1;
	}
	if (nt < 3 || !precision_token(tok[1]) || !*tok[0] || !*tok[2])
		return 0;
	s->is_recipe = true;
	s->model = tok[0];
	s->precision = tok[1];
	s->gpu = tok[2];
	s->vendor = !strncmp(tok[2], "mi", 2) ? "amd" : "nvidia";
	const char *g = tok[2];
	if (!strncmp(g, "mi3", 3))
		s->gen = g[3] == '5' ? "cdna4" : "cdna3";
	else if (g[0] == 'h' && isdigit((unsigned char)g[1]))
		s->gen = "hopper";
	else if ((g[0] == 'b' && isdigit((unsigned char)g[1])) ||
	         (g[0] == 'g' && g[1] == 'b' && isdigit((unsigned char)g[2])))
		s->gen = "blackwell";
	else {
		size_t k = 0;
		while (isalpha((unsigned char)g[k]))
			k++;
		s->gen = ib_arena_strndup(a, g, k);
		if (!s->gen)
			return IB_ENOMEM;
	}
	ib_buf v = {0};
	int fw = RV_FW_NONE;
	for (int i = 3; i < nt; i++) {
		if (spec_token(tok[i]))
			s->spec = tok[i];
		else if (fw_token(tok[i]))
			fw = fw_token(tok[i]);
		else {
			if (v.len)
				ib_buf_putc(&v, '_');
			ib_buf_puts(&v, tok[i]);
		}
	}
	s->variant = ib_arena_strdup(a, v.data ? v.data : "");
	ib_buf_free(&v);
	if (!s->variant)
		return IB_ENOMEM;
	if (s->fw == RV_FW_NONE)
		s->fw = fw;
	return 0;
}

rv_script *rv_script_parse(ib_arena *a, const char *path, const char *text, size_t len)
{
	rv_script *s = ib_arena_alloc(a, sizeof *s);
	if (!s)
		return NULL;
	s->path = path;
	s->text = text;
	s->len = len;
	s->launch = s->client = -1;
	if (split_lines(s, a))
		return NULL;
	scan sc = {.a = a, .s = s};
	if (scan_text(&sc)) {
		free(s->cmds);
		return NULL;
	}
	for (size_t i = 0; i < s->ncmds; i++) {
		const char *nm = s->cmds[i].norm;
		int k = launch_kind(nm);
		if (k && s->launch < 0) {
			s->launch = (int)i;
			s->fw = k;
		}
		if (s->client < 0 && is_client(nm))
			s->client = (int)i;
		if (strstr(nm, "--speculative-config") || strstr(nm, "speculative_config") ||
		    strstr(nm, "--speculative-algorithm") || strstr(nm, "--draft-model") ||
		    strstr(nm, "DRAFT_MODEL=") || strstr(nm, "--method eagle"))
			s->spec_content = true;
	}
	if (parse_name(a, s)) {
		free(s->cmds);
		return NULL;
	}
	return s;
}
