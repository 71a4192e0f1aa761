#pragma once
// What a process knows of its job before MPI starts (MPI-free: command lines are checked before).
namespace ripple {

// This process's rank as the launcher (mpirun, srun) announces it, before MPI starts; 0 if none.
int launcher_rank();

// The exit code of a rank that fails before MPI starts while rank 0 says why for the job: a rank
// other than 0 returns it only after 2 s, because the launcher (mpirun; srun with
// --kill-on-bad-exit) ends every rank at the first non-zero exit, which could be before rank 0 has
// written its line.
int after_rank_zero_spoke(int code);

}  // namespace ripple
