/* jinja2's built-in tests (`x is defined`, `x is divisibleby 3`, ...). */
#include "chat/private.h"

#include <string.h>

#define N(a) (sizeof(a) / sizeof(a)[0])

static int yes(cv **out, bool b)
{
	*out = CV_BOOLV(b);
	return 0;
}

static cv *arg1(interp *in, cargs *a, const char *fn, int *rc)
{
	*rc = rt_args_check(in, a, fn, 2, NULL);
	if (*rc)
		return NULL;
	cv *x = rt_arg(a, 1, NULL);
	if (!x)
		*rc = rt_fail(in, a->at, IB_EINVAL, "test '%s' needs an argument", fn);
	return x;
}

#define T0(name, expr)                                                                             \
	static int t_##name(interp *in, cv *self, cargs *a, cv **out)                              \
	{                                                                                          \
		(void)self;                                                                        \
		if (rt_args_check(in, a, #name, 1, NULL))                                          \
			return IB_EINVAL;                                                          \
		cv *v = a->pos[0];                                                                 \
		(void)v;                                                                           \
		return yes(out, (expr));                                                           \
	}

T0(defined, v->t != CV_UNDEF)
T0(undefined, v->t == CV_UNDEF)
T0(none, v->t == CV_NONE)
T0(boolean, v->t == CV_BOOL)
T0(false, v->t == CV_BOOL && !v->b)
T0(true, v->t == CV_BOOL && v->b)
T0(integer, v->t == CV_INT)
T0(float, v->t == CV_FLOAT)
T0(number, v->t == CV_INT || v->t == CV_FLOAT || v->t == CV_BOOL)
T0(string, v->t == CV_STR)
T0(mapping, v->t == CV_DICT)
T0(iterable, v->t == CV_STR || v->t == CV_LIST || v->t == CV_TUPLE || v->t == CV_DICT ||
                 v->t == CV_GEN || v->t == CV_UNDEF)
T0(sequence,
   v->t == CV_STR || v->t == CV_LIST || v->t == CV_TUPLE || v->t == CV_DICT || v->t == CV_UNDEF)
T0(callable, v->t == CV_FUNC || v->t == CV_MACRO || v->t == CV_UNDEF)
T0(escaped, false)

static int parity(interp *in, cargs *a, cv **out, int want, const char *fn)
{
	if (rt_args_check(in, a, fn, 1, NULL))
		return IB_EINVAL;
	cv two = {.t = CV_INT, .i = 2}, *m;
	int rc = rt_binop(in, a->at, OP_MOD, a->pos[0], &two, &m);
	if (rc)
		return rc;
	cv w = {.t = CV_INT, .i = want};
	return yes(out, cv_equal(m, &w));
}

static int t_odd(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	return parity(in, a, out, 1, "odd");
}

static int t_even(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	return parity(in, a, out, 0, "even");
}

static int t_divisibleby(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	int rc;
	cv *d = arg1(in, a, "divisibleby", &rc), *m;
	if (!d)
		return rc;
	if ((rc = rt_binop(in, a->at, OP_MOD, a->pos[0], d, &m)))
		return rc;
	cv zero = {.t = CV_INT, .i = 0};
	return yes(out, cv_equal(m, &zero));
}

static int cmp_test(interp *in, cargs *a, cv **out, int op, const char *fn)
{
	int rc;
	cv *x = arg1(in, a, fn, &rc);
	if (!x)
		return rc;
	bool r;
	if ((rc = rt_compare(in, a->at, op, a->pos[0], x, &r)))
		return rc;
	return yes(out, r);
}

#define TC(name, op)                                                                               \
	static int t_##name(interp *in, cv *self, cargs *a, cv **out)                              \
	{                                                                                          \
		(void)self;                                                                        \
		return cmp_test(in, a, out, op, #name);                                            \
	}

TC(eq, OP_EQ)
TC(ne, OP_NE)
TC(lt, OP_LT)
TC(le, OP_LTEQ)
TC(gt, OP_GT)
TC(ge, OP_GTEQ)
TC(in, OP_IN)

static int t_sameas(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	int rc;
	cv *x = arg1(in, a, "sameas", &rc);
	if (!x)
		return rc;
	cv *v = a->pos[0];
	if (v == x)
		return yes(out, true);
	/* None, True, False and small values are singletons in Python */
	if (v->t == x->t && (v->t == CV_NONE || v->t == CV_BOOL))
		return yes(out, v->t == CV_NONE || v->b == x->b);
	return yes(out, false);
}

static int case_test(interp *in, cargs *a, cv **out, bool upper, const char *fn)
{
	if (rt_args_check(in, a, fn, 1, NULL))
		return IB_EINVAL;
	cv *s, *f, *r;
	cargs none = {.at = a->at};
	int rc = rt_to_str(in, a->pos[0], &s);
	if (!rc)
		rc = chat_method(in, s, upper ? "isupper" : "islower", 7, &f);
	if (!rc)
		rc = rt_call(in, f, &none, &r);
	if (rc)
		return rc;
	*out = r;
	return 0;
}

static int t_lower(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	return case_test(in, a, out, false, "lower");
}

static int t_upper(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	return case_test(in, a, out, true, "upper");
}

static int t_filter(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	(void)in;
	cv *v = a->pos[0];
	return yes(out, v->t == CV_STR && chat_filter(v->s.s, v->s.n));
}

static int t_test(interp *in, cv *self, cargs *a, cv **out)
{
	(void)self;
	(void)in;
	cv *v = a->pos[0];
	return yes(out, v->t == CV_STR && chat_test(v->s.s, v->s.n));
}

typedef struct {
	const char *name;
	cv_fn fn;
} entry;

static const entry tests[] = {
    {"defined", t_defined},
    {"undefined", t_undefined},
    {"none", t_none},
    {"boolean", t_boolean},
    {"false", t_false},
    {"true", t_true},
    {"integer", t_integer},
    {"float", t_float},
    {"number", t_number},
    {"string", t_string},
    {"mapping", t_mapping},
    {"iterable", t_iterable},
    {"sequence", t_sequence},
    {"callable", t_callable},
    {"escaped", t_escaped},
    {"odd", t_odd},
    {"even", t_even},
    {"divisibleby", t_divisibleby},
    {"eq", t_eq},
    {"equalto", t_eq},
    {"==", t_eq},
    {"ne", t_ne},
    {"!=", t_ne},
    {"lt", t_lt},
    {"lessthan", t_lt},
    {"<", t_lt},
    {"le", t_le},
    {"<=", t_le},
    {"gt", t_gt},
    {"greaterthan", t_gt},
    {">", t_gt},
    {"ge", t_ge},
    {">=", t_ge},
    {"in", t_in},
    {"sameas", t_sameas},
    {"lower", t_lower},
    {"upper", t_upper},
    {"filter", t_filter},
    {"test", t_test},
};

cv_fn chat_test(const char *name, size_t n)
{
	for (size_t i = 0; i < N(tests); i++)
		if (strlen(tests[i].name) == n && !memcmp(tests[i].name, name, n))
			return tests[i].fn;
	return NULL;
}
