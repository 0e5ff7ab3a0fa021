#ifndef CADENZA_CSNDFILE_SHIM_H
#define CADENZA_CSNDFILE_SHIM_H
#include <sndfile.h>
#endif
