#pragma once
// The HDF5 side of the trace schema, shared by the writer, `ripple trace recover` and the reader.
#include <hdf5.h>

#include <cstddef>
#include <string>
#include <utility>

#include "ripple/common/hdf5_file.hpp"
#include "ripple/trace/placement_record.hpp"
#include "ripple/trace/sample_record.hpp"
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

// A fixed-length string of n bytes, zero-padded (/ranks/placement's host and binding end with a
// zero within their n; /ranks/sources' longest fills its n).
inline H5Id text_h5_type(std::size_t n, H5T_str_t pad = H5T_STR_NULLPAD) {
  H5Id t(RIPPLE_H5_CHECK(H5Tcopy(H5T_C_S1)));
  RIPPLE_H5_CHECK(H5Tset_size(t.get(), n));
  RIPPLE_H5_CHECK(H5Tset_strpad(t.get(), pad));
  return t;
}

// The compound type of /ranks/placement: fixed-length strings and 32-bit integers.
inline H5Id placement_h5_type() {
  H5Id host = text_h5_type(sizeof Placement::host, H5T_STR_NULLTERM);
  H5Id binding = text_h5_type(sizeof Placement::binding, H5T_STR_NULLTERM);
  H5Id type(RIPPLE_H5_CHECK(H5Tcreate(H5T_COMPOUND, sizeof(Placement))));
  RIPPLE_H5_CHECK(H5Tinsert(type.get(), "host", offsetof(Placement, host), host.get()));
  RIPPLE_H5_CHECK(H5Tinsert(type.get(), "binding", offsetof(Placement, binding), binding.get()));
  const std::pair<const char*, std::size_t> ints[] = {{"node", offsetof(Placement, node)},
                                                      {"pu", offsetof(Placement, pu)},
                                                      {"core", offsetof(Placement, core)},
                                                      {"package", offsetof(Placement, package)},
                                                      {"numa", offsetof(Placement, numa)},
                                                      {"node_leader", offsetof(Placement, node_leader)},
                                                      {"socket_leader", offsetof(Placement, socket_leader)}};
  for (const auto& [name, at] : ints) RIPPLE_H5_CHECK(H5Tinsert(type.get(), name, at, H5T_NATIVE_INT32));
  return type;
}

// The compound type of /samples/records.
inline H5Id sample_h5_type() {
  H5Id type(RIPPLE_H5_CHECK(H5Tcreate(H5T_COMPOUND, sizeof(SampleRecord))));
  RIPPLE_H5_CHECK(H5Tinsert(type.get(), "time", offsetof(SampleRecord, time), H5T_NATIVE_DOUBLE));
  const std::pair<const char*, std::size_t> u64[] = {{"ip", offsetof(SampleRecord, ip)},
                                                     {"addr", offsetof(SampleRecord, addr)},
                                                     {"weight", offsetof(SampleRecord, weight)},
                                                     {"data_src", offsetof(SampleRecord, data_src)}};
  for (const auto& [name, at] : u64) RIPPLE_H5_CHECK(H5Tinsert(type.get(), name, at, H5T_NATIVE_UINT64));
  const std::pair<const char*, std::size_t> i32[] = {
      {"rank", offsetof(SampleRecord, rank)},   {"iteration", offsetof(SampleRecord, iteration)},
      {"cpu", offsetof(SampleRecord, cpu)},     {"tid", offsetof(SampleRecord, tid)},
      {"level", offsetof(SampleRecord, level)}, {"hit", offsetof(SampleRecord, hit)}};
  for (const auto& [name, at] : i32) RIPPLE_H5_CHECK(H5Tinsert(type.get(), name, at, H5T_NATIVE_INT32));
  return type;
}

}  // namespace ripple::trace
