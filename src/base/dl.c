/* Shared libraries loaded on first use. */
#include "base/base.h"

#include <dlfcn.h>
#include <stdio.h>

int ib_dl_load(const char *soname, const char *const names[], void *sym[], size_t n, char *why,
               size_t cap)
{
	void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(why, cap, "%s", dlerror());
		return IB_EIO;
	}
	for (size_t i = 0; i < n; i++) {
		sym[i] = dlsym(lib, names[i]);
		if (!sym[i]) {
			snprintf(why, cap, "%s lacks %s", soname, names[i]);
			return IB_EIO;
		}
	}
	return 0;
}
