#include "schedulers/socl_factor_choice.h"

#include <limits>

namespace parasol::schedulers {

SoclFactorChoice::SoclFactorChoice(cl_uint space) : space_(space) {}

cl_uint SoclFactorChoice::choose() {
  std::lock_guard lock(mutex_);
  if (space_ < 2) return 1;
  // SOCL's scan: the first factor not tried yet; past the end, the
  // shortest measured (factor 1 while none is measured). The statistics
  // grow with the factors tried, not with the space (any cl_uint).
  cl_uint factor = 1, best = 1;
  std::uint64_t best_ns = std::numeric_limits<std::uint64_t>::max();
  while (factor < space_ && factor < ns_.size() && (ns_[factor] != 0 || in_flight_[factor])) {
    if (ns_[factor] != 0 && ns_[factor] < best_ns) {
      best_ns = ns_[factor];
      best = factor;
    }
    ++factor;
  }
  if (factor == space_) factor = best;
  if (factor >= ns_.size()) {
    ns_.resize(factor + 1, 0);
    in_flight_.resize(factor + 1, false);
  }
  in_flight_[factor] = true;
  return factor;
}

void SoclFactorChoice::record(cl_uint factor, std::uint64_t ns) {
  std::lock_guard lock(mutex_);
  if (factor >= ns_.size()) return;
  ns_[factor] = ns ? ns : 1;  // 0 means "not measured"
  in_flight_[factor] = false;
}

void SoclFactorChoice::abandon(cl_uint factor) {
  std::lock_guard lock(mutex_);
  if (factor < in_flight_.size()) in_flight_[factor] = false;
}

}  // namespace parasol::schedulers
