#pragma once
// What this binary is: its Ripple version and the git revision it was built from (MPI-free: the
// trace-format library writes them into files it makes without MPI).
namespace ripple {

const char* ripple_version();
const char* ripple_git_revision();

}  // namespace ripple
