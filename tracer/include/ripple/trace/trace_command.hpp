#pragma once
// `ripple trace`: run a program under the tracer, and `ripple trace info`.
namespace ripple::trace {
int trace_main(int argc, char** argv);
}
