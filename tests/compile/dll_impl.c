/* The implementation alone, built as a Windows DLL with PTCODEC_DLL: every
   function is exported (tests/test_windows.sh). */
#define PTCODEC_IMPLEMENTATION
#include "../../ptcodec.h"
