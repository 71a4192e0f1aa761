#pragma once
// perf_event_open as every source of the tracer calls it: close-on-exec (programs the application
// runs get none of the tracer's descriptors), and an inherited event inherited by threads only
// (inherit_thread, Linux 5.13): a process the rank forks (system(), a helper) is not counted or
// sampled as the rank. Older kernels refuse that bit with EINVAL; the event is then opened without it.
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>

namespace ripple::trace::detail {

inline int perf_open(perf_event_attr attr, pid_t pid, int cpu, int group_fd) {
  auto open = [&] { return static_cast<int>(syscall(SYS_perf_event_open, &attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC)); };
  if (attr.inherit == 0) return open();
  attr.inherit_thread = 1;
  const int fd = open();
  if (fd >= 0 || errno != EINVAL) return fd;
  attr.inherit_thread = 0;
  return open();
}

}  // namespace ripple::trace::detail
