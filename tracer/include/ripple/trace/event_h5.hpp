#pragma once
// The HDF5 side of the trace schema, shared by the writer, `ripple trace recover` and the reader.
#include <hdf5.h>

#include <string>

#include "ripple/common/hdf5_file.hpp"
#include "ripple/trace/trace_schema.hpp"

namespace ripple::trace {

// The in-memory compound type of Event, field by field as schema::kFields names them.
inline H5Id event_h5_type() {
  H5Id type(RIPPLE_H5_CHECK(H5Tcreate(H5T_COMPOUND, sizeof(Event))));
  for (const auto& f : schema::kFields) {
    const hid_t t = f.type == schema::Field::F64   ? H5T_NATIVE_DOUBLE
                    : f.type == schema::Field::I64 ? H5T_NATIVE_INT64
                    : f.type == schema::Field::U64 ? H5T_NATIVE_UINT64
                                                   : H5T_NATIVE_INT32;
    RIPPLE_H5_CHECK(H5Tinsert(type.get(), f.name, f.offset, t));
  }
  return type;
}

// The `call_names` attribute: every call name, newline-separated, in Call order.
inline std::string call_names_text() {
  std::string names;
  for (int c = 0; c < call_count(); ++c) names += std::string(c ? "\n" : "") + call_name(c);
  return names;
}

}  // namespace ripple::trace
