// Parasol's scheduling-policy names and the StarPU policies behind them.
#pragma once

#include <string>
#include <string_view>

namespace parasol::backend {

// True for a name Parasol accepts in CL_CONTEXT_SCHEDULER_PARASOL.
bool is_known_policy(std::string_view name);
// The StarPU policy implementing a known name ("heft" is StarPU's dmda).
std::string starpu_policy(std::string_view name);
// Whether the policy weighs data transfers (heft and the dmda family): a
// command whose data is all resident on one device stays there under it.
bool is_data_aware(std::string_view name);
// "eager, heft, ..." for error messages and docs.
std::string known_policy_list();
// The policy of a context that names none: $PARASOL_SCHED, else "heft".
std::string default_policy();

}  // namespace parasol::backend
