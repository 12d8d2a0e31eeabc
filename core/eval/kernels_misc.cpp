#include "eval/kernels.h"

namespace etscope::eval {

void registerMiscKernels() { }

} // namespace etscope::eval
