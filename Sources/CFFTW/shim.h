#ifndef CADENZA_CFFTW_SHIM_H
#define CADENZA_CFFTW_SHIM_H
#include <fftw3.h>
#endif
