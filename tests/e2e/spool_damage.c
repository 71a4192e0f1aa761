// Fault injection for trace_crash (preloaded into the ranks, after the tracer): a disk that damages
// a block it took. The first pwrite that covers rank 1's second event block of its spool
// (<output>.spool/rank-000001.bin, at 16384 + 4096) has one byte of that block flipped on its way,
// so that the block's check fails when MPI_Finalize reads the spool back.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
static int is_rank1_spool(int fd) {
  char link[64], path[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(link, path, sizeof path - 1);
  if (n <= 0) return 0;
  path[n] = 0;
  return strstr(path, ".spool/rank-000001.bin") != NULL;
}
ssize_t pwrite64(int fd, const void* data, size_t bytes, off_t offset) {
  static ssize_t (*real)(int, const void*, size_t, off_t);
  static int done;
  const off_t block = 16384 + 4096; /* the second event block */
  if (!real) real = (ssize_t(*)(int, const void*, size_t, off_t))dlsym(RTLD_NEXT, "pwrite64");
  if (!done && offset <= block && block + 4096 <= offset + (off_t)bytes && is_rank1_spool(fd)) {
    ((unsigned char*)data)[block - offset + 100] ^= 0xff; /* the tracer's staging buffer: its check fails */
    done = 1;
  }
  return real(fd, data, bytes, offset);
}
ssize_t pwrite(int fd, const void* data, size_t bytes, off_t offset) { return pwrite64(fd, data, bytes, offset); }
