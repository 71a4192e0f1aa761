// Fault injection for the tests of the tracer's own trace file (preloaded after the tracer, so the
// tracer's PMPI_File_* calls reach these first): I/O errors that a file system reports on one rank
// only, which a small tmpfs or a file-size limit cannot produce on demand.
//   MPIIO_FAULTS_CLOSE_RANK=r   that rank's MPI_File_close reports MPI_ERR_IO after closing (as NFS
//                               reports a failed write-back at close)
//   MPIIO_FAULTS_WRITE_RANK=r   that rank's independent writes (HDF5's metadata) fail with ENOSPC
//   MPIIO_FAULTS_SHORT_SIZE=1   every rank's MPI_File_get_size says one byte less, so that HDF5's
//                               close extends the file (a collective MPI_File_set_size on every rank)
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int this_rank(void) {
  const char* r = getenv("OMPI_COMM_WORLD_RANK");
  return r != NULL ? atoi(r) : -1;
}
static int chosen(const char* knob) {
  const char* v = getenv(knob);
  return v != NULL && atoi(v) == this_rank();
}
static void* next(const char* name) { return dlsym(RTLD_NEXT, name); }

int PMPI_File_close(MPI_File* fh) {
  int (*real)(MPI_File*) = (int (*)(MPI_File*))next("PMPI_File_close");
  const int rc = real(fh);
  if (rc == MPI_SUCCESS && chosen("MPIIO_FAULTS_CLOSE_RANK")) {
    fprintf(stderr, "mpiio_faults: rank %d: MPI_File_close reports MPI_ERR_IO\n", this_rank());
    return MPI_ERR_IO;
  }
  return rc;
}

int PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype type, MPI_Status* status) {
  int (*real)(MPI_File, MPI_Offset, const void*, int, MPI_Datatype, MPI_Status*) =
      (int (*)(MPI_File, MPI_Offset, const void*, int, MPI_Datatype, MPI_Status*))next("PMPI_File_write_at");
  if (chosen("MPIIO_FAULTS_WRITE_RANK")) {
    errno = ENOSPC;
    return MPI_ERR_IO;
  }
  return real(fh, offset, buf, count, type, status);
}

int PMPI_File_get_size(MPI_File fh, MPI_Offset* size) {
  int (*real)(MPI_File, MPI_Offset*) = (int (*)(MPI_File, MPI_Offset*))next("PMPI_File_get_size");
  const int rc = real(fh, size);
  if (rc == MPI_SUCCESS && getenv("MPIIO_FAULTS_SHORT_SIZE") != NULL && *size > 0) *size -= 1;
  return rc;
}
// HDF5 asks MPI_File_get_size, which the tracer does not wrap: it must reach the one above.
int MPI_File_get_size(MPI_File fh, MPI_Offset* size) { return PMPI_File_get_size(fh, size); }
