// SimReader reads schema versions 1 to 3 and the optional /iteration_end of version 2 on.
#include "ripple/model/sim_reader.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>

#include <string>
#include <vector>

#include "ripple/common/error.hpp"
#include "ripple/common/hdf5_file.hpp"

namespace ripple::model {
namespace {

// A minimal ripple-sim file of 3 oscillators and 2 stored times; /iteration_end [rows, k] if rows > 0.
std::string make_file(const std::string& name, std::int64_t version, hsize_t rows = 0, hsize_t k = 0) {
  std::string path = ::testing::TempDir() + "sim_reader_" + name + ".h5";
  H5Id file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  write_attribute(file.get(), "schema", std::string("ripple-sim"));
  write_attribute(file.get(), "schema_version", version);
  write_attribute(file.get(), "oscillators", std::int64_t{3});
  create_dataset(file.get(), "/time", {2});
  create_dataset(file.get(), "/phase", {2, 3});
  create_dataset(file.get(), "/omega", {3});
  create_dataset(file.get(), "/order_parameter", {2});
  if (rows > 0) {
    H5Id ds = create_dataset(file.get(), "/iteration_end", {rows, k});
    std::vector<double> v(rows * k);
    for (hsize_t i = 0; i < rows; ++i)
      for (hsize_t c = 0; c < k; ++c) v[i * k + c] = static_cast<double>(10 * i + c);
    if (!v.empty()) H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  }
  return path;
}

std::string error_of(const std::string& path) {
  try {
    const SimReader r(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(SimReader, VersionOneHasNoIterationEnds) {
  const SimReader r(make_file("v1", 1));
  EXPECT_EQ(r.oscillators(), 3);
  EXPECT_FALSE(r.has_iteration_end());
  EXPECT_EQ(r.iterations(), 0);
  EXPECT_THROW((void)r.iteration_end(), InputError);
}

TEST(SimReader, VersionTwoReadsIterationEndsWholeOrByRows) {
  const SimReader r(make_file("v2", 2, 3, 4));
  ASSERT_TRUE(r.has_iteration_end());
  EXPECT_EQ(r.iterations(), 4);
  const std::vector<double> all = r.iteration_end();
  ASSERT_EQ(all.size(), 12u);
  EXPECT_EQ(all[2 * 4 + 3], 23.0);
  EXPECT_EQ(r.iteration_end_rows(1, 2), std::vector<double>(all.begin() + 4, all.end()));
  EXPECT_TRUE(r.iteration_end_rows(3, 0).empty());
  EXPECT_THROW((void)r.iteration_end_rows(2, 2), InputError);
  // Without [output] iterations a version 2 file has none.
  EXPECT_FALSE(SimReader(make_file("v2_without", 2)).has_iteration_end());
  // K = 0: no oscillator reached 2π.
  const SimReader none(make_file("v2_empty", 2, 3, 0));
  EXPECT_TRUE(none.has_iteration_end());
  EXPECT_TRUE(none.iteration_end().empty());
}

TEST(SimReader, RefusesOtherVersionsAndShapesSayingWhatItReads) {
  EXPECT_NE(error_of(make_file("v4", 4)).find("schema_version 4 but this reader reads versions 1 to 3"), std::string::npos);
  EXPECT_NE(error_of(make_file("v0", 0)).find("reads versions 1 to 3"), std::string::npos);
  EXPECT_NE(error_of(make_file("v2_rows", 2, 2, 4)).find("/iteration_end is not [oscillators, iterations]"), std::string::npos);
}

}  // namespace
}  // namespace ripple::model
