// The functions of this module are inline in its header; this file gives the target its one source.
#include "CTokenPrefetch.h"
