#include "core/study/output_folder.hpp"

#include <filesystem>
#include <fstream>
#include <iomanip>

#include "core/study/run_folders.hpp"
#include "core/config/input_error.hpp"
#include "core/config/output_file.hpp"

namespace dualpath::study {

void claim_output_folder(const std::string& folder, const std::string& result_file, const nlohmann::json& identity,
                         const std::string& what) {
  make_output_folder(folder, "--out");
  const std::string path = folder + "/" + result_file;
  std::ifstream in(path);
  if (!in) {
    write_json_atomically(path, nlohmann::json{{"identity", identity}});  // shards may start together
    return;
  }
  nlohmann::json old;
  try {
    old = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception&) {
    throw InputError(path, "not valid JSON; remove it or choose another --out");
  }
  const nlohmann::json had = old.value("identity", nlohmann::json());
  if (had != identity)
    throw InputError(path, "this folder holds " + what + " of " + had.dump() + "; this one is " + identity.dump() +
                               ". Use another --out");
}

}  // namespace dualpath::study
