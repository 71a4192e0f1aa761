// Fault injection for the tracer's start-up (preloaded after the tracer, so the tracer's PMPI_Init*
// reaches this first): the first thread created after PMPI_Init returns, which is the tracer's
// background thread, fails with EAGAIN, as it would where a pids cgroup or `ulimit -u` has no room
// left for it. Threads MPI starts inside PMPI_Init, and every later one, are created as usual.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static int fail_next;

int PMPI_Init(int* argc, char*** argv) {
  int (*real)(int*, char***) = (int (*)(int*, char***))dlsym(RTLD_NEXT, "PMPI_Init");
  const int rc = real(argc, argv);
  fail_next = 1;
  return rc;
}

int PMPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  int (*real)(int*, char***, int, int*) = (int (*)(int*, char***, int, int*))dlsym(RTLD_NEXT, "PMPI_Init_thread");
  const int rc = real(argc, argv, required, provided);
  fail_next = 1;
  return rc;
}

int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*), void* arg) {
  int (*real)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*) =
      (int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*))dlsym(RTLD_NEXT, "pthread_create");
  if (fail_next) {
    fail_next = 0;
    fprintf(stderr, "thread_faults: the first thread after PMPI_Init fails (EAGAIN)\n");
    return EAGAIN;
  }
  return real(thread, attr, start, arg);
}
