#pragma once
// `ripple sim`: the command-line front of the simulator.
namespace ripple::model {
int sim_main(int argc, char** argv);
}
