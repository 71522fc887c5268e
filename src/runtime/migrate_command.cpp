#include "runtime/migrate_command.h"

namespace parasol::runtime {

MigrateCommand::MigrateCommand(core::Device* device,
                               std::vector<core::Ref<core::Buffer>> buffers,
                               bool content_undefined)
    : TaskCommand(device, 0), buffers_(std::move(buffers)), content_undefined_(content_undefined) {
  // Undefined content needs no transfer: a write access only claims the data.
  // (A sub-buffer shares its parent's data, whose other parts must survive.)
  for (const auto& b : buffers_)
    access(*b, content_undefined && !b->parent() ? STARPU_W : STARPU_R);
}

cl_int MigrateCommand::execute(void*[], core::Device&, const VendorPlace&, cl_event*) {
  return CL_COMPLETE;
}

std::size_t MigrateCommand::bytes() const {
  std::size_t total = 0;
  for (const auto& b : buffers_)
    if (!content_undefined_ || b->parent()) total += b->size();  // as in the constructor
  return total;
}

}  // namespace parasol::runtime
