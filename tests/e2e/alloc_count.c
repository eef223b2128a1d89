/* An LD_PRELOAD shim for tests/e2e/agentx_replay.sh: counts the calls to
 * malloc, calloc and realloc a process makes after its first connect() (so
 * loading the tokenizer and the corpus is left out) and writes the count to
 * the file named by $ALLOC_COUNT_FILE when the process exits. For release
 * builds only: a sanitizer's allocator must come first. Built by the suite
 * with `cc -shared -fPIC`. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

static int counting;
static unsigned long long count;

static void counted(void)
{
	if (__atomic_load_n(&counting, __ATOMIC_RELAXED))
		__atomic_add_fetch(&count, 1, __ATOMIC_RELAXED);
}

void *malloc(size_t n)
{
	counted();
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	counted();
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	counted();
	return __libc_realloc(p, n);
}

int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	static int (*real)(int, const struct sockaddr *, socklen_t);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "connect");
	__atomic_store_n(&counting, 1, __ATOMIC_RELAXED);
	return real(fd, addr, len);
}

__attribute__((destructor)) static void report(void)
{
	unsigned long long n = __atomic_load_n(&count, __ATOMIC_RELAXED);
	const char *path = getenv("ALLOC_COUNT_FILE");
	if (!path)
		return;
	char line[32];
	int k = snprintf(line, sizeof line, "%llu\n", n);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return;
	if (write(fd, line, (size_t)k) != k)
		unlink(path);
	close(fd);
}
