#include "backend/starpu_policies.h"
#include "util/settings.h"

#include <array>
#include <utility>

namespace parasol::backend {
namespace {

// Parasol name -> StarPU 1.3 policy name.
constexpr std::array<std::pair<std::string_view, std::string_view>, 11> kPolicies{{
    {"heft", "dmda"},     // HEFT: earliest finish time from performance models + transfers
    {"dmda", "dmda"},
    {"dmdas", "dmdas"},   // dmda, queues sorted by priority
    {"dmdar", "dmdar"},   // dmda, ready tasks first
    {"dm", "dm"},         // performance models only, transfers ignored
    {"eager", "eager"},   // one central queue, first idle device takes the next command
    {"prio", "prio"},     // eager with priorities
    {"ws", "ws"},         // work stealing
    {"lws", "lws"},       // locality-aware work stealing
    {"random", "random"}, // random, weighted by device speed
    {"peager", "peager"},
}};

}  // namespace

bool is_known_policy(std::string_view name) {
  for (auto& [parasol, starpu] : kPolicies)
    if (parasol == name) return true;
  return false;
}

std::string starpu_policy(std::string_view name) {
  for (auto& [parasol, starpu] : kPolicies)
    if (parasol == name) return std::string(starpu);
  return "dmda";
}

bool is_data_aware(std::string_view name) {
  return starpu_policy(name).rfind("dmda", 0) == 0;
}

std::string known_policy_list() {
  std::string out;
  for (auto& [parasol, starpu] : kPolicies) {
    if (!out.empty()) out += ", ";
    out += parasol;
  }
  return out;
}

std::string default_policy() {
  const std::string& name = settings::scheduler();
  if (is_known_policy(name)) return name;
  return "heft";
}

}  // namespace parasol::backend
