#include "backend/uncarried_features.h"

namespace parasol::backend {

bool answer_uncarried(cl_device_info param, InfoOut& out, cl_int& result) {
  switch (param) {
    case CL_DEVICE_SVM_CAPABILITIES: result = out.scalar(cl_device_svm_capabilities{0}); return true;
    case CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES:
      result = out.scalar(cl_command_queue_properties{0});
      return true;
    case CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES:
      result = out.scalar(cl_device_device_enqueue_capabilities{0});
      return true;
    case CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE:
    case CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE:
    case CL_DEVICE_MAX_ON_DEVICE_QUEUES:
    case CL_DEVICE_MAX_ON_DEVICE_EVENTS:
    case CL_DEVICE_MAX_PIPE_ARGS:
    case CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS:
    case CL_DEVICE_PIPE_MAX_PACKET_SIZE:
    case CL_DEVICE_MAX_NUM_SUB_GROUPS:
    case CL_DEVICE_IMAGE_PITCH_ALIGNMENT:
    case CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT: result = out.scalar(cl_uint{0}); return true;
    case CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS:
    case CL_DEVICE_PIPE_SUPPORT:
    case CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT: result = out.scalar(cl_bool{CL_FALSE}); return true;
    case CL_DEVICE_IL_VERSION: result = out.string(""); return true;
    case CL_DEVICE_ILS_WITH_VERSION: result = out.bytes(nullptr, 0); return true;
    default: return false;
  }
}

}  // namespace parasol::backend
