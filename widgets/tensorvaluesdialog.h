#pragma once

#include "etdump/debugbuffer.h"

class QDialog;
class QWidget;
class QString;

namespace etscope {

// Every value of one tensor with its index, 1000 per page (a Debug data row, double-clicked).
QDialog *makeTensorValuesDialog(QWidget *parent, const QString &label, TensorData values);

} // namespace etscope
