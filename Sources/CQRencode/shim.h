#ifndef CLOUDSYNC_QRENCODE_SHIM_H
#define CLOUDSYNC_QRENCODE_SHIM_H
#include <qrencode.h>
#endif
