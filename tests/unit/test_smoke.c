#include <criterion/criterion.h>

#include "base/base.h"

Test(base, buf_append)
{
	ib_buf b = {0};
	cr_assert_eq(ib_buf_puts(&b, "ab"), 0);
	cr_assert_eq(ib_buf_printf(&b, "%d", 42), 0);
	cr_assert_str_eq(b.data, "ab42");
	ib_buf_free(&b);
}
