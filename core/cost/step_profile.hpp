// Times from a measured step profile (model.timing = profile, docs/cost-model.md "Profiles"; the file's tables as
// read and checked: core/config/step_profile_file.hpp). Between grid points the tables are interpolated linearly
// (bilinearly on two axes). Below an axis's first point the first point's time is used: a forward or step cannot
// get much cheaper than its smallest measured shape, since the weights are read and the kernels launched anyway.
// Beyond an axis's last point the run is refused with one line naming the shape (ProfileRangeError).
#pragma once

#include <string>

#include "core/config/input_error.hpp"
#include "core/config/step_profile_file.hpp"

namespace dualpath {

// A time beyond a profile's measured range: a bad input (exit 2), raised where the shape first occurs.
class ProfileRangeError : public InputError {
 public:
  using InputError::InputError;
};

// f(v) of a table, f(va, vb) of a grid; `file` and `what` name the profile and the shape in a ProfileRangeError.
double profile_at(const ProfileAxisTable& t, double v, const std::string& file, const std::string& what);
double profile_at(const ProfileGrid& g, double va, double vb, const std::string& file, const std::string& what);

}  // namespace dualpath
