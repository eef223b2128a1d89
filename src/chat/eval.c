/* The interpreter: evaluates expressions and executes statements of the tree
 * built by parse.c, with jinja2's scoping: a for loop runs each iteration in
 * a new scope (assignments in the body do not leak out, nor into the next
 * iteration), macros and with blocks have their own scope, if does not. */
#include "chat/private.h"

#include <stdarg.h>
#include <string.h>

#define MAX_CALL_DEPTH 100
enum { FLOW_BREAK = 1, FLOW_CONTINUE = 2 };

int rt_fail(interp *in, uint32_t at, int code, const char *fmt, ...)
{
	char msg[sizeof in->e->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return chat_fail_at(in->t, at, in->e, code, "%s", msg);
}

int rt_nomem(interp *in)
{
	return ib_fail(in->e, IB_ENOMEM, in->t->name, 0, 0, "out of memory");
}

int rt_str_fail(interp *in, uint32_t at, int rc)
{
	if (rc == IB_ERANGE)
		return rt_fail(
		    in, at, IB_ERANGE,
		    "maximum recursion depth exceeded while getting the str of an object "
		    "(a value nested deeper than %d levels, or one that contains itself)",
		    CV_MAX_DEPTH);
	return rt_nomem(in);
}

int rt_check_mem(interp *in, uint32_t at)
{
	if (ib_arena_used(in->a) + in->out->len > in->mem_limit)
		return rt_fail(in, at, IB_ERANGE,
		               "the template needs more than %zu bytes of memory", in->mem_limit);
	return 0;
}

int rt_undefined(interp *in, uint32_t at, const cv *u)
{
	if (u->u.hint)
		return rt_fail(in, at, IB_EINVAL, "%s", u->u.hint);
	ib_buf b = {0};
	int rc = 0;
	if (!u->u.obj) {
		rc = u->u.name ? cv_repr_to(&b, u->u.name) : ib_buf_puts(&b, "value");
		if (!rc)
			rc = ib_buf_puts(&b, " is undefined");
	} else {
		const cv *o = u->u.obj;
		char tr[64];
		if (o->t == CV_NONE)
			snprintf(tr, sizeof tr, "None");
		else if (o->t == CV_NS)
			snprintf(tr, sizeof tr, "jinja2.utils.Namespace object");
		else if (o->t == CV_LOOP)
			snprintf(tr, sizeof tr, "jinja2.runtime.LoopContext object");
		else if (o->t == CV_MACRO)
			snprintf(tr, sizeof tr, "jinja2.runtime.Macro object");
		else
			snprintf(tr, sizeof tr, "%s object", cv_typename(o));
		if (u->u.name && u->u.name->t != CV_STR) {
			rc = ib_buf_printf(&b, "%s has no element ", tr);
			if (!rc)
				rc = cv_repr_to(&b, u->u.name);
		} else {
			rc = ib_buf_printf(&b, "'%s' has no attribute ", tr);
			if (!rc)
				rc = u->u.name ? cv_repr_to(&b, u->u.name) : 0;
		}
	}
	if (rc) {
		ib_buf_free(&b);
		return rt_nomem(in);
	}
	rc = rt_fail(in, at, IB_EINVAL, "%s", b.data ? b.data : "undefined");
	ib_buf_free(&b);
	return rc;
}

int rt_buf_str(interp *in, ib_buf *b, cv **out)
{
	*out = cv_str(in->a, b->data ? b->data : "", b->len);
	ib_buf_free(b);
	return *out ? 0 : rt_nomem(in);
}

int rt_to_str(interp *in, cv *v, cv **out)
{
	if (v->t == CV_STR) {
		*out = v;
		return 0;
	}
	ib_buf b = {0};
	int rc = cv_str_to(&b, v);
	if (rc) {
		ib_buf_free(&b);
		return rt_str_fail(in, 0, rc);
	}
	return rt_buf_str(in, &b, out);
}

cv *rt_arg(cargs *a, size_t idx, const char *name)
{
	if (idx < a->npos)
		return a->pos[idx];
	for (size_t i = 0; name && i < a->nkw; i++)
		if (!strcmp(a->kwn[i], name))
			return a->kwv[i];
	return NULL;
}

int rt_args_check(interp *in, cargs *a, const char *fn, size_t npos, const char *const *names)
{
	if (a->npos > npos)
		return rt_fail(in, a->at, IB_EINVAL,
		               "%s() takes at most %zu argument%s (%zu given)", fn, npos,
		               npos == 1 ? "" : "s", a->npos);
	for (size_t i = 0; i < a->nkw; i++) {
		size_t k = 0;
		bool found = false;
		for (; names && names[k]; k++)
			if (!strcmp(names[k], a->kwn[i])) {
				found = true;
				break;
			}
		if (!found)
			return rt_fail(in, a->at, IB_EINVAL,
			               "%s() got an unexpected keyword argument '%s'", fn,
			               a->kwn[i]);
		if (k < a->npos)
			return rt_fail(in, a->at, IB_EINVAL,
			               "%s() got multiple values for argument '%s'", fn, a->kwn[i]);
	}
	return 0;
}

/* ---- scopes ---- */

static scope *scope_new(interp *in, scope *parent)
{
	scope *s = ib_arena_alloc(in->a, sizeof *s);
	if (s)
		s->parent = parent;
	return s;
}

static cv *scope_find(scope *s, const char *name, size_t n)
{
	for (; s; s = s->parent)
		for (size_t i = s->n; i-- > 0;)
			if (s->lens[i] == n && !memcmp(s->names[i], name, n))
				return s->vals[i];
	return NULL;
}

static int scope_set(interp *in, scope *s, const char *name, size_t n, cv *v)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->lens[i] == n && !memcmp(s->names[i], name, n)) {
			s->vals[i] = v;
			return 0;
		}
	if (s->n == s->cap) { /* three parallel arrays of one capacity */
		size_t c1 = s->cap, c2 = s->cap, c3 = s->cap;
		if (ib_arena_grow(in->a, &s->names, &c1, s->n + 1) ||
		    ib_arena_grow(in->a, &s->lens, &c2, s->n + 1) ||
		    ib_arena_grow(in->a, &s->vals, &c3, s->n + 1))
			return rt_nomem(in);
		s->cap = c1;
	}
	s->names[s->n] = name;
	s->lens[s->n] = n;
	s->vals[s->n] = v;
	s->n++;
	return 0;
}

/* ---- expressions ---- */

static int eval(interp *in, const node *x, cv **out);
static int exec(interp *in, const node *x);

static int eval_name(interp *in, const node *x, cv **out)
{
	cv *v = scope_find(in->sc, x->s, x->n);
	if (v) {
		*out = v;
		return 0;
	}
	const char *canon;
	cv_fn fn = chat_global(x->s, x->n, &canon);
	if (fn) {
		cv *f = cv_new(in->a, CV_FUNC);
		if (!f)
			return rt_nomem(in);
		f->fn.fn = fn;
		f->fn.name = canon;
		*out = f;
		return 0;
	}
	cv *name = cv_str_ref(in->a, x->s, x->n);
	if (!name || !(*out = cv_undef(in->a, name, NULL, NULL)))
		return rt_nomem(in);
	return 0;
}

/* Evaluates call arguments into a (positional, keywords, *args, **kwargs);
 * `extra` slots are left free at the front of the positional list. */
static int eval_args(interp *in, const node *x, size_t extra, cargs *a)
{
	cv **dyn = NULL;
	size_t ndyn = 0;
	cv *dynkw = NULL;
	int rc;
	if (x->dyn) {
		cv *d;
		if ((rc = eval(in, x->dyn, &d)) || (rc = rt_iter(in, x->dyn->pos, d, &dyn, &ndyn)))
			return rc;
	}
	if (x->dynkw) {
		if ((rc = eval(in, x->dynkw, &dynkw)))
			return rc;
		if (dynkw->t != CV_DICT)
			return rt_fail(in, x->dynkw->pos, IB_EINVAL,
			               "argument after ** must be a mapping, not %s",
			               cv_typename(dynkw));
	}
	size_t npos = extra + x->nitems + ndyn, nkw = x->nkw + (dynkw ? dynkw->d.n : 0);
	a->pos = ib_arena_alloc(in->a, (npos + 1) * sizeof(cv *));
	a->kwn = ib_arena_alloc(in->a, (nkw + 1) * sizeof(char *));
	a->kwv = ib_arena_alloc(in->a, (nkw + 1) * sizeof(cv *));
	if (!a->pos || !a->kwn || !a->kwv)
		return rt_nomem(in);
	a->npos = npos;
	a->at = x->pos;
	for (size_t i = 0; i < x->nitems; i++)
		if ((rc = eval(in, x->items[i], &a->pos[extra + i])))
			return rc;
	for (size_t i = 0; i < ndyn; i++)
		a->pos[extra + x->nitems + i] = dyn[i];
	a->nkw = 0;
	for (size_t i = 0; i < x->nkw; i++) {
		a->kwn[a->nkw] = x->kwn[i];
		if ((rc = eval(in, x->kwv[i], &a->kwv[a->nkw++])))
			return rc;
	}
	for (size_t i = 0; dynkw && i < dynkw->d.n; i++) {
		cv *k = dynkw->d.k[i];
		if (k->t != CV_STR)
			return rt_fail(in, x->dynkw->pos, IB_EINVAL, "keywords must be strings");
		char *name = ib_arena_strndup(in->a, k->s.s, k->s.n);
		if (!name)
			return rt_nomem(in);
		for (size_t j = 0; j < a->nkw; j++)
			if (!strcmp(a->kwn[j], name))
				return rt_fail(in, x->dynkw->pos, IB_EINVAL,
				               "got multiple values for keyword argument '%s'",
				               name);
		a->kwn[a->nkw] = name;
		a->kwv[a->nkw++] = dynkw->d.v[i];
	}
	return 0;
}

/* a filter node applied to input (for filter blocks a->a is NULL) */
static int eval_filter(interp *in, const node *x, cv *input, cv **out)
{
	int rc;
	cv *v = input;
	if (x->a) {
		if (x->a->t == N_FILTER && input)
			rc = eval_filter(in, x->a, input, &v);
		else
			rc = eval(in, x->a, &v);
		if (rc)
			return rc;
	}
	cv_fn fn = chat_filter(x->s, x->n);
	if (!fn)
		return rt_fail(in, x->pos, IB_EINVAL, "No filter named '%.*s'.", (int)x->n, x->s);
	cargs a;
	if ((rc = eval_args(in, x, 1, &a)))
		return rc;
	a.pos[0] = v;
	return fn(in, NULL, &a, out);
}

static int eval_test(interp *in, const node *x, cv **out)
{
	cv *v;
	int rc = eval(in, x->a, &v);
	if (rc)
		return rc;
	cv_fn fn = chat_test(x->s, x->n);
	if (!fn)
		return rt_fail(in, x->pos, IB_EINVAL, "No test named '%.*s'.", (int)x->n, x->s);
	cargs a;
	if ((rc = eval_args(in, x, 1, &a)))
		return rc;
	a.pos[0] = v;
	cv *r;
	if ((rc = fn(in, NULL, &a, &r)))
		return rc;
	bool t = cv_truthy(r);
	*out = CV_BOOLV(x->op ? !t : t);
	return 0;
}

static int hashable_d(interp *in, uint32_t at, const cv *k, int depth)
{
	if (depth > CV_MAX_DEPTH)
		return rt_fail(
		    in, at, IB_ERANGE,
		    "maximum recursion depth exceeded (a key nested deeper than %d levels)",
		    CV_MAX_DEPTH);
	if (k->t == CV_LIST || k->t == CV_DICT || k->t == CV_NS)
		return rt_fail(in, at, IB_EINVAL, "unhashable type: '%s'", cv_typename(k));
	if (k->t == CV_TUPLE)
		for (size_t i = 0; i < k->l.n; i++)
			if (hashable_d(in, at, k->l.v[i], depth + 1))
				return IB_EINVAL;
	return 0;
}

static int hashable(interp *in, uint32_t at, const cv *k)
{
	return hashable_d(in, at, k, 0);
}

#define MAX_NEST 3000

static int eval_node(interp *in, const node *x, cv **out);

static int eval(interp *in, const node *x, cv **out)
{
	if (in->nest >= MAX_NEST)
		return rt_fail(in, x->pos, IB_ERANGE, "template nested too deeply");
	in->nest++;
	int rc = eval_node(in, x, out);
	in->nest--;
	return rc;
}

static int eval_node(interp *in, const node *x, cv **out)
{
	int rc = 0;
	cv *l, *r;
	switch (x->t) {
	case N_CONST:
		*out = x->val;
		return 0;
	case N_NAME:
		return eval_name(in, x, out);
	case N_LIST:
	case N_TUPLE: {
		cv *s = cv_seq(in->a, x->t == N_LIST ? CV_LIST : CV_TUPLE, x->nitems);
		if (!s)
			return rt_nomem(in);
		for (size_t i = 0; i < x->nitems; i++)
			if ((rc = eval(in, x->items[i], &s->l.v[i])))
				return rc;
		*out = s;
		return 0;
	}
	case N_DICT: {
		cv *d = cv_new(in->a, CV_DICT);
		if (!d)
			return rt_nomem(in);
		for (size_t i = 0; i < x->nitems; i++) {
			if ((rc = eval(in, x->items[i], &l)) || (rc = eval(in, x->items2[i], &r)) ||
			    (rc = hashable(in, x->items[i]->pos, l)))
				return rc;
			if (cv_dict_set(in->a, d, l, r))
				return rt_nomem(in);
		}
		*out = d;
		return 0;
	}
	case N_GETATTR:
		if ((rc = eval(in, x->a, &l)))
			return rc;
		return rt_getattr(in, x->pos, l, x->s, x->n, out);
	case N_GETITEM:
		if ((rc = eval(in, x->a, &l)))
			return rc;
		if (x->b->t == N_SLICE) {
			cv *p[3] = {NULL, NULL, NULL};
			const node *q[3] = {x->b->a, x->b->b, x->b->c};
			for (int i = 0; i < 3; i++)
				if (q[i] && (rc = eval(in, q[i], &p[i])))
					return rc;
			return chat_slice(in, x->pos, l, p[0], p[1], p[2], out);
		}
		if ((rc = eval(in, x->b, &r)))
			return rc;
		return rt_getitem(in, x->pos, l, r, out);
	case N_CALL: {
		if ((rc = eval(in, x->a, &l)))
			return rc;
		cargs a;
		if ((rc = eval_args(in, x, 0, &a)))
			return rc;
		return rt_call(in, l, &a, out);
	}
	case N_FILTER:
		return eval_filter(in, x, NULL, out);
	case N_TEST:
		return eval_test(in, x, out);
	case N_NEG:
	case N_POS: {
		if ((rc = eval(in, x->a, &l)))
			return rc;
		if (l->t == CV_UNDEF)
			return rt_undefined(in, x->pos, l);
		cv zero = {.t = CV_INT, .i = 0};
		if (l->t != CV_INT && l->t != CV_FLOAT && l->t != CV_BOOL)
			return rt_fail(in, x->pos, IB_EINVAL, "bad operand type for unary %c: '%s'",
			               x->t == N_NEG ? '-' : '+', cv_typename(l));
		if (x->t == N_POS && l->t != CV_BOOL) {
			*out = l;
			return 0;
		}
		if (l->t == CV_FLOAT) /* -0.0 stays negative */
			return ret_float(in, -l->f, out);
		return rt_binop(in, x->pos, x->t == N_NEG ? OP_SUB : OP_ADD, &zero, l, out);
	}
	case N_NOT:
		if ((rc = eval(in, x->a, &l)))
			return rc;
		*out = CV_BOOLV(!cv_truthy(l));
		return 0;
	case N_BINOP:
		if ((rc = eval(in, x->a, &l)) || (rc = eval(in, x->b, &r)))
			return rc;
		return rt_binop(in, x->pos, x->op, l, r, out);
	case N_CONCAT: {
		ib_buf b = {0};
		for (size_t i = 0; i < x->nitems; i++) {
			if ((rc = eval(in, x->items[i], &l))) {
				ib_buf_free(&b);
				return rc;
			}
			if (cv_str_to(&b, l)) {
				ib_buf_free(&b);
				return rt_nomem(in);
			}
		}
		if ((rc = rt_buf_str(in, &b, out)))
			return rc;
		return rt_check_mem(in, x->pos);
	}
	case N_COMPARE: {
		if ((rc = eval(in, x->a, &l)))
			return rc;
		for (size_t i = 0; i < x->nitems; i++) {
			bool ok;
			if ((rc = eval(in, x->items[i], &r)) ||
			    (rc = rt_compare(in, x->items[i]->pos, x->ops[i], l, r, &ok)))
				return rc;
			if (!ok) {
				*out = CV_BOOLV(false);
				return 0;
			}
			l = r;
		}
		*out = CV_BOOLV(true);
		return 0;
	}
	case N_AND:
	case N_OR:
		if ((rc = eval(in, x->a, &l)))
			return rc;
		if (cv_truthy(l) == (x->t == N_OR)) {
			*out = l;
			return 0;
		}
		return eval(in, x->b, out);
	case N_COND:
		if ((rc = eval(in, x->b, &l)))
			return rc;
		if (cv_truthy(l))
			return eval(in, x->a, out);
		if (x->c)
			return eval(in, x->c, out);
		{
			int line = 1;
			for (size_t i = 0; i < x->pos && i < in->t->len; i++)
				line += in->t->src[i] == '\n';
			const char *h =
			    ib_arena_printf(in->a,
			                    "the inline if-expression on line %d evaluated "
			                    "to false and no else section was defined.",
			                    line);
			if (!h || !(*out = cv_undef(in->a, NULL, NULL, h)))
				return rt_nomem(in);
			return 0;
		}
	default:
		return rt_fail(in, x->pos, IB_EINVAL, "not an expression");
	}
}

/* ---- calls ---- */

static int call_macro(interp *in, cv *m, cargs *a, cv **out)
{
	const node *def = m->m.def;
	const char *name = m->m.name;
	uint32_t at = a->at;
	if (in->depth >= MAX_CALL_DEPTH)
		return rt_fail(in, at, IB_ERANGE,
		               "maximum recursion depth exceeded (%d macro calls)", MAX_CALL_DEPTH);
	scope *s = scope_new(in, m->m.closure);
	if (!s)
		return rt_nomem(in);
	size_t np = def->nitems;
	if (a->npos > np && !def->uses_varargs)
		return rt_fail(in, at, IB_EINVAL, "macro '%s' takes not more than %zu argument(s)",
		               name, np);
	bool *bound = ib_arena_alloc(in->a, (np + 1) * sizeof *bound);
	cv *kwargs = cv_new(in->a, CV_DICT);
	if (!bound || !kwargs)
		return rt_nomem(in);
	int rc;
	for (size_t i = 0; i < np && i < a->npos; i++) {
		if ((rc = scope_set(in, s, def->items[i]->s, def->items[i]->n, a->pos[i])))
			return rc;
		bound[i] = true;
	}
	cv *caller = NULL;
	for (size_t k = 0; k < a->nkw; k++) {
		const char *kn = a->kwn[k];
		size_t kl = strlen(kn);
		bool done = false;
		for (size_t i = a->npos; i < np && !done; i++)
			if (def->items[i]->n == kl && !memcmp(def->items[i]->s, kn, kl)) {
				if ((rc = scope_set(in, s, def->items[i]->s, kl, a->kwv[k])))
					return rc;
				bound[i] = done = true;
			}
		if (done)
			continue;
		if (!strcmp(kn, "caller") && def->uses_caller && def->t == N_MACRO) {
			caller = a->kwv[k];
			continue;
		}
		if (!def->uses_kwargs) {
			if (!strcmp(kn, "caller"))
				return rt_fail(
				    in, at, IB_EINVAL,
				    "macro '%s' was invoked with two values for the special "
				    "caller argument. This is most likely a bug.",
				    name);
			return rt_fail(in, at, IB_EINVAL,
			               "macro '%s' takes no keyword argument '%s'", name, kn);
		}
		cv *key = cv_str_ref(in->a, kn, kl);
		if (!key || cv_dict_set(in->a, kwargs, key, a->kwv[k]))
			return rt_nomem(in);
	}
	scope *saved = in->sc;
	in->sc = s;
	for (size_t i = 0; i < np; i++) {
		if (bound[i])
			continue;
		cv *v;
		if (def->items2[i]) {
			if ((rc = eval(in, def->items2[i], &v))) {
				in->sc = saved;
				return rc;
			}
		} else {
			const char *h = ib_arena_printf(in->a, "parameter '%.*s' was not provided",
			                                (int)def->items[i]->n, def->items[i]->s);
			if (!h || !(v = cv_undef(in->a, NULL, NULL, h)))
				return rt_nomem(in);
		}
		if ((rc = scope_set(in, s, def->items[i]->s, def->items[i]->n, v))) {
			in->sc = saved;
			return rc;
		}
	}
	in->sc = saved;
	if (def->uses_varargs) {
		size_t extra = a->npos > np ? a->npos - np : 0;
		cv *va = cv_seq(in->a, CV_TUPLE, extra);
		if (!va)
			return rt_nomem(in);
		for (size_t i = 0; i < extra; i++)
			va->l.v[i] = a->pos[np + i];
		if ((rc = scope_set(in, s, "varargs", 7, va)))
			return rc;
	}
	if (def->uses_kwargs && (rc = scope_set(in, s, "kwargs", 6, kwargs)))
		return rc;
	if (def->t == N_MACRO && def->uses_caller) {
		if (!caller && !(caller = cv_undef(in->a, NULL, NULL, "No caller defined")))
			return rt_nomem(in);
		if ((rc = scope_set(in, s, "caller", 6, caller)))
			return rc;
	}
	ib_buf buf = {0}, *saved_out = in->out;
	in->out = &buf;
	in->sc = s;
	in->depth++;
	rc = exec(in, def->b);
	in->depth--;
	in->sc = saved;
	in->out = saved_out;
	if (rc < 0) {
		ib_buf_free(&buf);
		return rc;
	}
	return rt_buf_str(in, &buf, out);
}

int rt_call(interp *in, cv *f, cargs *a, cv **out)
{
	switch (f->t) {
	case CV_FUNC:
		return f->fn.fn(in, f->fn.self, a, out);
	case CV_MACRO:
		return call_macro(in, f, a, out);
	case CV_UNDEF:
		return rt_undefined(in, a->at, f);
	default:
		return rt_fail(in, a->at, IB_EINVAL, "'%s' object is not callable", cv_typename(f));
	}
}

/* ---- statements ---- */

static int assign(interp *in, const node *target, cv *v)
{
	int rc;
	if (target->t == N_NAME)
		return scope_set(in, in->sc, target->s, target->n, v);
	if (target->t == N_NSREF) {
		cv *ns = scope_find(in->sc, target->s, target->n);
		if (!ns || ns->t != CV_NS)
			return rt_fail(in, target->pos, IB_EINVAL,
			               "cannot assign attribute on non-namespace object");
		cv *k = cv_str_ref(in->a, target->s2, target->n2);
		if (!k || cv_dict_set(in->a, ns, k, v))
			return rt_nomem(in);
		return 0;
	}
	/* a tuple of targets: unpack */
	cv **items;
	size_t n;
	if (v->t == CV_UNDEF)
		return rt_undefined(in, target->pos, v);
	if ((rc = rt_iter(in, target->pos, v, &items, &n)))
		return rc;
	if (n < target->nitems)
		return rt_fail(in, target->pos, IB_EINVAL,
		               "not enough values to unpack (expected %zu, got %zu)",
		               target->nitems, n);
	if (n > target->nitems)
		return rt_fail(in, target->pos, IB_EINVAL,
		               "too many values to unpack (expected %zu)", target->nitems);
	for (size_t i = 0; i < n; i++)
		if ((rc = assign(in, target->items[i], items[i])))
			return rc;
	return 0;
}

/* Runs body in a scope of its own (as jinja2 does for block sets and filter
 * blocks) into a string. A break or continue inside leaves without a value
 * and is returned (> 0). */
static int capture(interp *in, const node *body, cv **out)
{
	ib_buf buf = {0}, *saved = in->out;
	scope *outer = in->sc, *s = scope_new(in, outer);
	if (!s)
		return rt_nomem(in);
	in->out = &buf;
	in->sc = s;
	int rc = exec(in, body);
	in->out = saved;
	in->sc = outer;
	if (rc) {
		ib_buf_free(&buf);
		return rc;
	}
	return rt_buf_str(in, &buf, out);
}

static int exec_for(interp *in, const node *x)
{
	cv *seq;
	cv **items;
	size_t n;
	int rc;
	if ((rc = eval(in, x->b, &seq)) || (rc = rt_iter(in, x->b->pos, seq, &items, &n)))
		return rc;
	scope *outer = in->sc;
	if (x->e && n) {
		cv **kept = ib_arena_alloc(in->a, n * sizeof *kept);
		if (!kept)
			return rt_nomem(in);
		size_t k = 0;
		for (size_t i = 0; i < n; i++) {
			scope *s = scope_new(in, outer);
			cv *c;
			if (!s)
				return rt_nomem(in);
			in->sc = s;
			rc = assign(in, x->a, items[i]);
			if (!rc)
				rc = eval(in, x->e, &c);
			in->sc = outer;
			if (rc)
				return rc;
			if (cv_truthy(c))
				kept[k++] = items[i];
		}
		items = kept;
		n = k;
	}
	if (n == 0) {
		if (!x->d)
			return 0;
		scope *s = scope_new(in, outer);
		if (!s)
			return rt_nomem(in);
		in->sc = s;
		rc = exec(in, x->d);
		in->sc = outer;
		return rc < 0 ? rc : 0;
	}
	cloop *ls = ib_arena_alloc(in->a, sizeof *ls);
	cv *lv = cv_new(in->a, CV_LOOP);
	if (!ls || !lv)
		return rt_nomem(in);
	ls->items = items;
	ls->n = n;
	lv->loop = ls;
	for (size_t i = 0; i < n; i++) {
		ls->i = i;
		scope *s = scope_new(in, outer);
		if (!s)
			return rt_nomem(in);
		in->sc = s;
		rc = scope_set(in, s, "loop", 4, lv);
		if (!rc)
			rc = assign(in, x->a, items[i]);
		if (!rc)
			rc = exec(in, x->c);
		in->sc = outer;
		if (!rc)
			rc = rt_check_mem(in, x->pos);
		if (rc < 0)
			return rc;
		if (rc == FLOW_BREAK)
			break;
	}
	return 0;
}

static int exec_node(interp *in, const node *x);

static int exec(interp *in, const node *x)
{
	if (in->nest >= MAX_NEST)
		return rt_fail(in, x->pos, IB_ERANGE, "template nested too deeply");
	in->nest++;
	int rc = exec_node(in, x);
	in->nest--;
	return rc;
}

static int exec_node(interp *in, const node *x)
{
	int rc = 0;
	cv *v;
	switch (x->t) {
	case N_TEXT:
		if (ib_buf_append(in->out, x->s, x->n))
			return rt_nomem(in);
		return 0;
	case N_PRINT:
		if ((rc = eval(in, x->a, &v)))
			return rc;
		if ((rc = cv_str_to(in->out, v)))
			return rt_str_fail(in, x->pos, rc);
		return rt_check_mem(in, x->pos);
	case N_BODY:
		for (size_t i = 0; i < x->nitems; i++)
			if ((rc = exec(in, x->items[i])))
				return rc;
		return 0;
	case N_IF:
		if ((rc = eval(in, x->a, &v)))
			return rc;
		if (cv_truthy(v))
			return exec(in, x->b);
		return x->c ? exec(in, x->c) : 0;
	case N_FOR:
		return exec_for(in, x);
	case N_SET:
		if ((rc = eval(in, x->b, &v)))
			return rc;
		return assign(in, x->a, v);
	case N_SETBLK:
		if ((rc = capture(in, x->b, &v)))
			return rc;
		if (x->c && (rc = eval_filter(in, x->c, v, &v)))
			return rc;
		return assign(in, x->a, v);
	case N_MACRO: {
		cv *m = cv_new(in->a, CV_MACRO);
		if (!m || !(m->m.name = ib_arena_strndup(in->a, x->s, x->n)))
			return rt_nomem(in);
		m->m.def = x;
		m->m.closure = in->sc;
		return scope_set(in, in->sc, x->s, x->n, m);
	}
	case N_CALLBLK: {
		cv *caller = cv_new(in->a, CV_MACRO);
		if (!caller)
			return rt_nomem(in);
		caller->m.def = x;
		caller->m.closure = in->sc;
		caller->m.name = "caller";
		const node *call = x->a;
		cv *f;
		cargs a;
		if ((rc = eval(in, call->a, &f)) || (rc = eval_args(in, call, 0, &a)))
			return rc;
		/* append caller=... to the keywords */
		const char **kwn = ib_arena_alloc(in->a, (a.nkw + 1) * sizeof *kwn);
		cv **kwv = ib_arena_alloc(in->a, (a.nkw + 1) * sizeof *kwv);
		if (!kwn || !kwv)
			return rt_nomem(in);
		if (a.nkw) {
			memcpy(kwn, a.kwn, a.nkw * sizeof *kwn);
			memcpy(kwv, a.kwv, a.nkw * sizeof *kwv);
		}
		kwn[a.nkw] = "caller";
		kwv[a.nkw] = caller;
		a.kwn = kwn;
		a.kwv = kwv;
		a.nkw++;
		if ((rc = rt_call(in, f, &a, &v)))
			return rc;
		if ((rc = cv_str_to(in->out, v)))
			return rt_str_fail(in, x->pos, rc);
		return rt_check_mem(in, x->pos);
	}
	case N_FILTBLK:
		if ((rc = capture(in, x->b, &v)) || (rc = eval_filter(in, x->a, v, &v)))
			return rc; /* an error, or a break / continue inside */
		if ((rc = cv_str_to(in->out, v)))
			return rt_str_fail(in, x->pos, rc);
		return 0;
	case N_WITH: {
		scope *s = scope_new(in, in->sc);
		if (!s)
			return rt_nomem(in);
		cv **vals = ib_arena_alloc(in->a, (x->nitems + 1) * sizeof *vals);
		if (!vals)
			return rt_nomem(in);
		for (size_t i = 0; i < x->nitems; i++)
			if ((rc = eval(in, x->items2[i], &vals[i])))
				return rc;
		scope *saved = in->sc;
		in->sc = s;
		for (size_t i = 0; !rc && i < x->nitems; i++)
			rc = assign(in, x->items[i], vals[i]);
		if (!rc)
			rc = exec(in, x->b);
		in->sc = saved;
		return rc;
	}
	case N_GENBLK: {
		/* the body runs as the caller of a call block: its own scope */
		scope *saved = in->sc, *s = scope_new(in, in->sc);
		if (!s)
			return rt_nomem(in);
		in->sc = s;
		rc = exec(in, x->b);
		in->sc = saved;
		return rc < 0 ? rc : 0;
	}
	case N_BREAK:
		return FLOW_BREAK;
	case N_CONTINUE:
		return FLOW_CONTINUE;
	default:
		return rt_fail(in, x->pos, IB_EINVAL, "not a statement");
	}
}

int chat_tmpl_render(const chat_tmpl *t, const ib_val *vars, ib_buf *out, ib_error *e)
{
	size_t len0 = out->len;
	ib_arena *a = ib_arena_new();
	if (!a)
		return ib_fail(e, IB_ENOMEM, t->name, 0, 0, "out of memory");
	interp in = {.a = a, .t = t, .e = e, .out = out, .mem_limit = CHAT_MEM_LIMIT};
	int rc = 0;
	in.sc = scope_new(&in, NULL);
	if (!in.sc)
		rc = rt_nomem(&in);
	for (size_t i = 0; !rc && vars && vars->type == IB_V_MAP && i < vars->map.n; i++) {
		const ib_val *k = vars->map.kv[i].key;
		if (k->type != IB_V_STR)
			continue;
		cv *v = cv_from_ib(a, vars->map.kv[i].val);
		if (!v)
			rc = rt_nomem(&in);
		else
			rc = scope_set(&in, in.sc, k->str.s, k->str.len, v);
	}
	if (!rc) {
		scope *top = scope_new(&in, in.sc);
		if (!top)
			rc = rt_nomem(&in);
		in.sc = top;
	}
	if (!rc)
		rc = exec(&in, t->root);
	if (rc > 0)
		rc = 0; /* break / continue cannot escape a loop: the parser checks */
	if (rc) {
		out->len = len0;
		if (out->data)
			out->data[len0] = 0;
	}
	ib_arena_free(a);
	return rc;
}

int ret_int(interp *in, int64_t i, cv **out)
{
	return (*out = cv_int(in->a, i)) ? 0 : rt_nomem(in);
}

int ret_float(interp *in, double f, cv **out)
{
	return (*out = cv_float(in->a, f)) ? 0 : rt_nomem(in);
}

int mklist(interp *in, cv **items, size_t n, cv **out)
{
	cv *l = cv_seq(in->a, CV_LIST, n);
	if (!l)
		return rt_nomem(in);
	if (n)
		memcpy(l->l.v, items, n * sizeof *items);
	*out = l;
	return 0;
}

int chat_gen(interp *in, cv **items, size_t n, const char *tname, const char *fname, cv **out)
{
	cv *g = cv_seq(in->a, CV_LIST, n);
	if (!g)
		return rt_nomem(in);
	g->t = CV_GEN;
	if (n)
		memcpy(g->l.v, items, n * sizeof *items);
	g->l.tname = tname;
	g->l.fname = fname;
	*out = g;
	return 0;
}
